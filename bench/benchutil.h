/* benchutil — the few helpers every benchmark needs: a monotonic clock and
 * the median of a handful of runs. Header-only: each bench/X.c is its own
 * program. */
#ifndef HL_BENCHUTIL_H
#define HL_BENCHUTIL_H

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_MAX_RUNS 64

static inline double bench_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of the calling thread: what a single-threaded loop costs, less
 * sensitive than the wall clock to other processes on a shared machine
 * (though they still share its caches). */
static inline double bench_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of n ≤ BENCH_MAX_RUNS values (v is left as it is). */
static inline double bench_median(const double *v, int n)
{
	double s[BENCH_MAX_RUNS];
	memcpy(s, v, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, bench_cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

#endif
