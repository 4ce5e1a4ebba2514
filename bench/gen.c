/* gen — how long the synthetic generator takes to make a million jobs from
 * a model fitted to a real trace.
 *
 *   gen [TRACE] [--jobs N] [--runs N] [--empirical]
 *
 * TRACE defaults to the KTH-SP2 log in traces/data/ (run from the
 * repository root). It is read and fitted once (trace_fit, timed once), then
 * the model's rate is scaled (scale_rate) so that about N jobs (default
 * 1,000,000) arrive over the fitted span, and trace_synth is timed --runs
 * times (default 5); the median is reported, with jobs per second and the
 * peak RSS. The workload is freed outside the timing.
 *
 * Target (from the calibration issue): 1,000,000 jobs in under 2 s.
 *
 * Exit status: 0 (whether or not the target is met); 1 on any error; 2 on
 * bad arguments; 77 when the trace file is missing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench/benchutil.h"
#include "traces/fit.h"
#include "traces/trace.h"

#define USAGE "usage: gen [TRACE] [--jobs N] [--runs N] [--empirical]\n"
#define DEFAULT_TRACE "traces/data/swf-kth-sp2-1996/KTH-SP2-1996-2.1-cln.swf.gz"
#define TARGET_S 2.0
#define EXIT_SKIP 77

static double peak_rss_mib(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return -1;
	return (double)ru.ru_maxrss / 1024.0;
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

int main(int argc, char **argv)
{
	const char *trace = DEFAULT_TRACE;
	long jobs = 1000000, runs = 5;
	struct fit_opts fo = { 0 };
	bool have_trace = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if ((strcmp(a, "--jobs") == 0 || strcmp(a, "--runs") == 0) && i + 1 < argc) {
			bool is_jobs = a[2] == 'j';
			if (!parse_long(argv[++i], 1, is_jobs ? 40000000 : BENCH_MAX_RUNS,
			                is_jobs ? &jobs : &runs)) {
				fprintf(stderr, "gen: %s: expected an integer in [1, %d], got '%s'\n" USAGE, a,
				        is_jobs ? 40000000 : BENCH_MAX_RUNS, argv[i]);
				return 2;
			}
		} else if (strcmp(a, "--empirical") == 0) {
			fo.empirical = true;
		} else if (a[0] == '-') {
			fprintf(stderr, "gen: unknown option or missing value: %s\n" USAGE, a);
			return 2;
		} else if (!have_trace) {
			trace = a;
			have_trace = true;
		} else {
			fprintf(stderr, "gen: too many arguments ('%s')\n" USAGE, a);
			return 2;
		}
	}
	if (access(trace, R_OK) != 0) {
		fprintf(stderr, "gen: %s: %s (run from the repository root)\n", trace, strerror(errno));
		return EXIT_SKIP;
	}

	char err[1024] = "";
	struct workload w;
	struct synth_cfg m;
	struct swf_opts so = { .lenient = false };
	double t0 = bench_now_s();
	if (trace_swf_read(trace, &so, &w, err, sizeof err) != 0) {
		fprintf(stderr, "gen: %s\n", err);
		return 1;
	}
	double t1 = bench_now_s();
	if (trace_fit(&w, &fo, &m, NULL, err, sizeof err) != 0) {
		fprintf(stderr, "gen: %s: %s\n", trace, err);
		workload_free(&w);
		return 1;
	}
	double t2 = bench_now_s();
	int32_t nsrc = w.n;
	workload_free(&w);

	double per_span = 0;
	for (int c = 0; c < JOB_NCLASS; c++)
		per_span += m.cls[c].rate_per_h * (1 + m.cls[c].burst_p * m.cls[c].burst_mean) * 24 * m.days;
	m.scale_rate = (double)jobs / per_span;

	double t[BENCH_MAX_RUNS];
	int32_t made = 0;
	for (int r = 0; r < runs; r++) {
		double a = bench_now_s();
		if (trace_synth(&m, (uint64_t)r + 1, &w, err, sizeof err) != 0) {
			fprintf(stderr, "gen: %s\n", err);
			return 1;
		}
		t[r] = bench_now_s() - a;
		made = w.n;
		workload_free(&w);
	}
	double med = bench_median(t, (int)runs);
	printf("gen: trace_synth from a model fitted to %s (%d jobs, %.1f days)\n", trace, (int)nsrc,
	       m.days);
	printf("  read %.3f s, fit %.3f s (%s)\n", t1 - t0, t2 - t1,
	       fo.empirical ? "empirical durations" : "best of lognormal, Weibull, gamma by AIC");
	printf("  rate x %.2f: %d jobs (last run), median of %ld runs %.3f s, %.2f M jobs/s, peak RSS %.1f MiB\n",
	       m.scale_rate, (int)made, runs, med, made / med / 1e6, peak_rss_mib());
	printf("  target: %ld jobs in under %.0f s: %s\n", jobs, TARGET_S, med < TARGET_S ? "met" : "NOT met");
	return 0;
}
