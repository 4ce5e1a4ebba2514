/* predict — a job's run time, learned from the state's own history
 * (docs/forecast.md "The predictor").
 *
 * Users ask for more time than their jobs take. For each job that ended
 * by itself (done or failed, or killed at its limit) the predictor keeps
 * the ratio r = actual run time / requested time limit in rings of the
 * last PRED_RING samples at four levels: (tenant, class), tenant, class,
 * and everything. A job's run time is drawn from the finest level that
 * has at least min_n samples (bootstrap: one of its ratios, times the
 * job's limit); with none, it runs to its limit (what `squeue --start`
 * assumes). A job with no limit draws an absolute run time the same way
 * (PRED_NO_LIMIT_S when nothing is known). A running job that has run
 * e seconds draws only among the ratios that make it run past e (the
 * empirical distribution conditioned on being still alive); one that has
 * outlived every sample runs e × (1 + 2u) + 1 s in all, u uniform in
 * [0, 1) (as long again as it has, on average), within its limit.
 *
 * The predictor owns its memory; it reads no clock and no file: the same
 * samples and the same seed give the same draws. */
#ifndef HL_LIVE_PREDICT_H
#define HL_LIVE_PREDICT_H

#include <stdbool.h>
#include <stdint.h>

#define PRED_RING 64
#define PRED_MIN_N 5            /* default samples a level needs */
#define PRED_NO_LIMIT_S 3600.0  /* a job with neither a limit nor history */

enum pred_level { PRED_TENANT_CLASS, PRED_TENANT, PRED_CLASS, PRED_ALL, PRED_LIMIT, PRED_NLEVEL };

struct pred_ring {
	int32_t tenant, cls;        /* -1: any */
	int32_t n, next;            /* samples held (≤ PRED_RING), next slot */
	int64_t seen;               /* samples ever added */
	double ratio[PRED_RING];    /* actual / limit (jobs with a limit) */
	int32_t nabs, nextabs;
	double abs_s[PRED_RING];    /* run time of jobs without a limit */
};

struct pred {
	struct pred_ring *r;
	int32_t n, cap;
	int32_t min_n;
};

void pred_init(struct pred *p, int32_t min_n);
void pred_fini(struct pred *p);
/* A job of tenant and class that ran run_s seconds with limit_s (≤ 0 or
 * not finite: none). 0, or -1 (ENOMEM). */
int pred_add(struct pred *p, int32_t tenant, int32_t cls, double run_s, double limit_s);
/* A run time (s) drawn for a job of tenant and class with limit_s that
 * has run elapsed_s (0 if pending); rng is the caller's splitmix64 state.
 * Never more than the limit, never less than elapsed_s. *lvl (may be
 * NULL) gets the level used. */
double pred_draw(const struct pred *p, int32_t tenant, int32_t cls, double limit_s, double elapsed_s, uint64_t *rng,
                 enum pred_level *lvl);
/* The level a job would draw from, with that level's sample count, mean
 * and standard deviation of its ratios (for `hetlab why`). */
enum pred_level pred_level_of(const struct pred *p, int32_t tenant, int32_t cls, bool has_limit, int32_t *n,
                              double *mean, double *sd);
const char *pred_level_name(enum pred_level l);

/* splitmix64: the draws' random numbers. */
static inline uint64_t pred_rand(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif
