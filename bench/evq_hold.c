/* evq_hold — the classic hold model on the event queue (struct evq).
 *
 * The queue is filled with `--events` pending events (default 1,000,000) at
 * exponentially distributed times, then `--holds` hold operations are timed
 * (default 10,000,000): each pops the earliest event and pushes a new one at
 * the popped time plus an exponential increment, so the queue length stays
 * constant. One hold = one pop + one push; "events/s" below counts pops, the
 * figure the engine's event loop is bounded by. The figure reported is the
 * median over `--runs` repetitions (default 5); each repetition refills the
 * queue from the same seed and does an untimed warm-up of `--events` holds
 * first, so the timed part sees the steady-state time distribution.
 *
 * Each repetition times the queue of commit bae9ac3 (bench/evq_base.h, the
 * baseline) and then today's (sim/evq.c) on the same holds, so the ratio of
 * the two is taken on one machine at one moment (the machine is shared and
 * its speed varies between minutes); the ratio reported is the median of the
 * per-repetition ratios. The time is the thread's CPU time (the machine
 * is shared: time spent descheduled is not the queue's). Target: today's queue at least 2x the baseline at
 * one million pending. --no-base times today's queue alone.
 *
 * Increments come from a precomputed table of 2^16 exponential variates
 * (xorshift64*, fixed seed), so the timed loop measures the queue and not
 * log(): the table is 512 KiB and stays in cache beside the heap.
 *
 * usage: evq_hold [--events N] [--holds N] [--runs N] [--no-base]
 * Exit status 0 whether or not the target is met; 1 on bad arguments, out
 * of memory or a queue that pops out of order. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/benchutil.h"
#include "bench/evq_base.h"
#include "sim/evq.h"

#define INC_BITS 16
#define INC_N (1u << INC_BITS)
#define MEAN_INC_US SIMTIME_SEC     /* mean increment: one simulated second */

static uint64_t xorshift64s(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* Exponential with mean MEAN_INC_US, at least 1 µs. */
static simtime draw_exp(uint64_t *s)
{
	double u = ((double)(xorshift64s(s) >> 11) + 0.5) / 9007199254740992.0;   /* (0,1) */
	simtime d = (simtime)(-log(u) * (double)MEAN_INC_US);
	return d > 0 ? d : 1;
}


static int parse_count(const char *flag, const char *val, long long min, long long max, long long *out)
{
	char *end;
	long long v = val ? strtoll(val, &end, 10) : 0;
	if (!val || end == val || *end || v < min || v > max) {
		fprintf(stderr, "evq_hold: %s: expected an integer in [%lld, %lld], got '%s'\n",
		        flag, min, max, val ? val : "(nothing)");
		return -1;
	}
	*out = v;
	return 0;
}

/* One hold loop and one timed repetition per queue type (Q: struct Q,
 * P: its function prefix); the two are the same code on different queues. */
#define HOLD_FUNCS(Q, P)                                                              \
/* Runs n holds; returns the number of pops that came out earlier than the   \
 * one before (must be 0), or -1 when the queue runs out of memory or empties. */ \
static long long hold_##Q(struct Q *q, const simtime *inc, long long n, uint32_t *k) \
{                                                                                 \
	long long bad = 0;                                                        \
	simtime last = P##_peek(q)->t;                                            \
	struct ev e;                                                              \
	for (long long i = 0; i < n; i++) {                                       \
		if (P##_pop(q, &e) != 1)                                          \
			return -1;                                                \
		bad += e.t < last;                                                \
		last = e.t;                                                       \
		if (P##_push(q, e.t + inc[*k & (INC_N - 1)], e.kind, e.id, e.ver, e.arg)) \
			return -1;                                                \
		(*k)++;                                                           \
	}                                                                         \
	return bad;                                                               \
}                                                                                 \
/* Fills a fresh queue from the same seed, warms it up, times nhold holds:  \
 * holds/s, or -1 (message printed) on a failure. */                           \
static double rep_##Q(const simtime *inc, long long nev, long long nhold)         \
{                                                                                 \
	struct Q q;                                                               \
	uint64_t s = 0x243F6A8885A308D3ULL;   /* same queue every run */      \
	if (P##_init(&q, (size_t)nev)) {                                          \
		fprintf(stderr, "evq_hold: out of memory for %lld events\n", nev);   \
		return -1;                                                        \
	}                                                                         \
	for (long long i = 0; i < nev; i++)                                       \
		if (P##_push(&q, draw_exp(&s), 1, (int32_t)(i & 0x7fffffff), 0, 0)) { \
			fprintf(stderr, "evq_hold: out of memory for %lld events\n", nev); \
			P##_fini(&q);                                             \
			return -1;                                                \
		}                                                                 \
	uint32_t k = (uint32_t)(xorshift64s(&s) & (INC_N - 1));                   \
	long long bad = hold_##Q(&q, inc, nev, &k);   /* warm-up, untimed */     \
	double t0 = bench_cpu_s();                                                \
	long long bad2 = bad < 0 ? -1 : hold_##Q(&q, inc, nhold, &k);            \
	double dt = bench_cpu_s() - t0;                                           \
	int ok = bad == 0 && bad2 == 0 && P##_len(&q) == (size_t)nev;            \
	P##_fini(&q);                                                             \
	if (!ok) {                                                                \
		fprintf(stderr, "evq_hold: %s: %s\n", #P,                          \
		        bad < 0 || bad2 < 0 ? "out of memory or queue emptied"     \
		                            : "events popped out of time order"); \
		return -1;                                                        \
	}                                                                         \
	return (double)nhold / dt;                                                \
}

HOLD_FUNCS(evq, evq)
HOLD_FUNCS(evqb, evqb)

int main(int argc, char **argv)
{
	long long nev = 1000000, nhold = 10000000, runs = 5;
	int base = 1;
	for (int i = 1; i < argc; i += 2) {   /* every argument is a flag and its value */
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int r;
		if (strcmp(a, "--events") == 0) r = parse_count(a, val, 1, 1LL << 30, &nev);
		else if (strcmp(a, "--holds") == 0) r = parse_count(a, val, 1, 1LL << 40, &nhold);
		else if (strcmp(a, "--runs") == 0) r = parse_count(a, val, 1, BENCH_MAX_RUNS, &runs);
		else if (strcmp(a, "--no-base") == 0) {
			base = 0;
			i--;   /* a flag without a value */
			continue;
		}
		else {
			fprintf(stderr, "evq_hold: unknown argument '%s'\n"
			        "usage: evq_hold [--events N] [--holds N] [--runs N] [--no-base]\n", a);
			return 1;
		}
		if (r)
			return 1;
	}

	simtime *inc = malloc(INC_N * sizeof *inc);
	if (!inc) {
		fprintf(stderr, "evq_hold: out of memory\n");
		return 1;
	}
	uint64_t seed = 0x9E3779B97F4A7C15ULL;
	for (unsigned i = 0; i < INC_N; i++)
		inc[i] = draw_exp(&seed);

	printf("evq_hold: hold model, %lld pending events, %lld timed holds per run, %lld runs, "
	       "exponential increments (mean 1 s); the queue of bae9ac3 (base) and today's, alternately\n",
	       nev, nhold, runs);
	double rate[BENCH_MAX_RUNS], brate[BENCH_MAX_RUNS], ratio[BENCH_MAX_RUNS];
	for (int r = 0; r < runs; r++) {
		brate[r] = base ? rep_evqb(inc, nev, nhold) : 1;
		rate[r] = brate[r] > 0 ? rep_evq(inc, nev, nhold) : -1;
		if (rate[r] < 0) {
			free(inc);
			return 1;
		}
		ratio[r] = rate[r] / brate[r];
		if (base)
			printf("  run %d: base %.2f, today %.2f M holds/s (%.2fx)\n", r + 1, brate[r] / 1e6,
			       rate[r] / 1e6, ratio[r]);
		else
			printf("  run %d: %.2f M holds/s\n", r + 1, rate[r] / 1e6);
	}
	free(inc);

	double med = bench_median(rate, (int)runs);
	printf("  median: %.2f M holds/s = %.2f M events/s (pops/s), %.2f M queue ops/s (pop + push), "
	       "%.1f ns per hold\n", med / 1e6, med / 1e6, 2 * med / 1e6, 1e9 / med);
	if (base) {
		double bmed = bench_median(brate, (int)runs);
		printf("  base (bae9ac3): %.2f M holds/s, %.1f ns per hold\n", bmed / 1e6, 1e9 / bmed);
		printf("  today / base: %.2fx (median of the per-run ratios); target >= 2x: %s\n",
		       bench_median(ratio, (int)runs), bench_median(ratio, (int)runs) >= 2 ? "met" : "NOT met");
	}
	return 0;
}
