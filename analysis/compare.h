/* compare — policy A/B over replications, paired by seed.
 *
 * `hetlab run --seeds A-B --out DIR` leaves one results file per seed in
 * DIR. Because the workload streams do not depend on policy decisions, the
 * same seed gives the same workload under every policy (common random
 * numbers), so a run of policy A and a run of policy B with the same seed
 * form a pair, and the per-pair differences d_i = B_i - A_i cancel most of
 * the workload's own variation.
 *
 * This module reads each run's metrics from the registry (analysis/metric.h,
 * read-only, within a measurement window) and a digest of its job table,
 * pairs the two sides by seed (warning when a pair's job tables differ),
 * says what differs between A and B (policy, parameters, the JSON paths of
 * their scenario.json), and for every metric computes the mean difference, a
 * Student-t or percentile-bootstrap confidence interval, the Wilcoxon
 * signed-rank p-value and a verdict; it prints the result as text, JSON or
 * one self-contained HTML page with a figure of the changes. The method is
 * in docs/compare.md; keep the two in step.
 *
 * Ownership: every struct here is caller-owned storage filled by an
 * `_load` / `compare_build` call and emptied by its `_fini`; strings and
 * streams passed in are borrowed. sqlite3 handles never leave compare.c and
 * compare_run.c (which reads one run database). */
#ifndef HL_COMPARE_H
#define HL_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis/metric.h"
#include "sim/job.h"

/* The interval a metric's verdict rests on. */
enum compare_method { COMPARE_CI_NONE, COMPARE_CI_T, COMPARE_CI_BOOTSTRAP };

enum compare_verdict {
	COMPARE_NA,             /* fewer than 2 pairs with the metric defined */
	COMPARE_NO_DIFF,        /* the interval contains 0 */
	COMPARE_BETTER,         /* B is better than A */
	COMPARE_WORSE           /* B is worse than A */
};

enum compare_format { COMPARE_TEXT, COMPARE_JSON, COMPARE_HTML };

/* Differences with |sample skewness| above this use the bootstrap interval. */
#define COMPARE_SKEW_LIMIT 1.0
/* Bootstrap resamples, and the fixed seed of its generator (mt19937). */
#define COMPARE_BOOT_N 10000
#define COMPARE_BOOT_SEED 20250101UL
/* Exact Wilcoxon distribution up to this many non-zero differences. */
#define COMPARE_WILCOXON_EXACT_MAX 20
/* Below this many pairs the output warns that the interval is wide. */
#define COMPARE_FEW_PAIRS 5

/* One run database: its settings, its metrics (analysis/metric.h) within
 * the comparison's window, and a digest of its workload. */
struct compare_run {
	char *path;             /* the file */
	char *seed;             /* run.seed as decimal text */
	char *policy, *scenario;   /* policy: "easy" or "easy, placement topology" */
	char *policy_params;    /* NULL when none */
	char *cluster;          /* "N nodes, C cores, G GPUs"; NULL when the run has no such columns */
	uint64_t workload;      /* FNV-1a over the job table's submit times and requests */
	struct metric_set m;
};

/* Every run database in one directory. */
struct compare_side {
	char *dir;
	struct compare_run *run;     /* sorted by seed (numerically) */
	size_t nrun;
	char *scenario_json;         /* DIR/scenario.json (a sweep point, a plan candidate); NULL */
};

/* The statistics of one metric over the pairs where both sides define it. */
struct compare_stat {
	char metric[METRIC_NAME_MAX];   /* canonical name */
	size_t n;                    /* pairs used */
	double mean_a, mean_b;       /* means of each side over those pairs */
	double mean_diff, sd_diff;   /* of d_i = B_i - A_i; sd with n - 1 */
	double skewness;             /* of the d_i, gsl_stats_skew; 0 when sd is 0 */
	double rel_change;           /* mean_b / mean_a - 1; NaN when mean_a is 0 */
	double t_lo, t_hi;           /* Student-t interval */
	double boot_lo, boot_hi;     /* percentile bootstrap interval */
	enum compare_method method;  /* which interval the verdict uses */
	double lo, hi;               /* that interval */
	double w_plus;               /* Wilcoxon W+ (sum of the ranks of d_i > 0) */
	size_t w_n;                  /* non-zero differences */
	int w_exact;                 /* 1: exact distribution, 0: normal approximation */
	double p;                    /* Wilcoxon two-sided p-value; NaN with n = 0 */
	enum compare_verdict verdict;
};

/* A comparison of two sides. */
struct compare_result {
	const struct compare_side *a, *b;   /* borrowed */
	double level;
	size_t npair;
	const char **pair_seed;      /* borrowed from the runs of a */
	const char **only_a, **only_b;   /* seeds present on one side only */
	size_t nonly_a, nonly_b;
	struct compare_stat *stat;
	size_t nstat;
	char **warning;              /* lines to show the reader */
	size_t nwarning;
	char **differs;              /* what differs between A and B ("policy: easy -> conservative") */
	size_t ndiffers;
	double *pa, *pb;             /* nstat x npair paired values (NaN where undefined), for the figure */
};

/* ---- metrics and files ---------------------------------------------------- */

/* 1 when higher values of the metric are better, 0 otherwise. */
int compare_metric_higher_better(const char *name);
/* "text", "json" or "html"; -1 for anything else. */
int compare_format_parse(const char *name);
const char *compare_verdict_name(enum compare_verdict v);

/* Reads one run database read-only, its metrics within window w (NULL:
 * the run's own window). 0, or -1 with a message naming the file. */
int compare_run_load(const char *path, const struct metric_window *w, struct compare_run *r,
                     char *err, size_t errlen);
/* What `hetlab sweep` reads of a run: compare_run_load, except that the
 * metrics come from the run's table run_metric when it holds them for w
 * from this very build (analysis/runmetric.h; *stored true, the same
 * values, and workload left 0); else the full load (*stored false). */
int compare_run_load_summary(const char *path, const struct metric_window *w,
                             struct compare_run *r, bool *stored, char *err, size_t errlen);
void compare_run_fini(struct compare_run *r);
/* Reads every `*.db` file of `dir`; two files with the same seed, or none at
 * all, are errors. 0, or -1 with a message. */
int compare_side_load(const char *dir, const struct metric_window *w, struct compare_side *s,
                      char *err, size_t errlen);
void compare_side_fini(struct compare_side *s);

/* ---- statistics (exposed for the tests) ----------------------------------- */

/* Sample mean and standard deviation (n - 1) of d[0..n-1]. */
void compare_mean_sd(const double *d, size_t n, double *mean, double *sd);
/* Sample skewness (1/n) sum ((d_i - mean) / sd)^3 with the n - 1 sd; 0 when
 * n < 2 or sd is 0. */
double compare_skewness(const double *d, size_t n);
/* mean -/+ t_{(1+level)/2, n-1} sd / sqrt(n). 0, or -1 when n < 2. */
int compare_t_interval(const double *d, size_t n, double level, double *lo, double *hi);
/* Percentile bootstrap of the mean: `nboot` resamples with replacement drawn
 * by mt19937 seeded with `seed`; the (1-level)/2 and (1+level)/2 quantiles
 * (linear interpolation) of the resampled means. 0, or -1 when n < 1 or out
 * of memory. */
int compare_bootstrap_interval(const double *d, size_t n, double level, size_t nboot,
                               unsigned long seed, double *lo, double *hi);
/* Wilcoxon signed-rank test, two-sided: zeros dropped, midranks for ties.
 * Exact distribution of W+ (given the ranks) for up to
 * COMPARE_WILCOXON_EXACT_MAX non-zero differences, else the normal
 * approximation with tie correction and a 0.5 continuity correction.
 * Returns p (1 when every difference is 0; NaN when n is 0 or out of
 * memory); w_plus, nonzero and exact may be NULL. */
double compare_wilcoxon(const double *d, size_t n, double *w_plus, size_t *nonzero, int *exact);
/* The verdict for an interval [lo, hi] of B - A. */
enum compare_verdict compare_verdict_of(double lo, double hi, int higher_better);
/* All the statistics of one metric from paired values (pairs where either
 * value is NaN are left out). 0, or -1 when out of memory. */
int compare_stat_compute(struct compare_stat *st, const char *metric, const double *a,
                         const double *b, size_t n, double level);

/* ---- comparison ----------------------------------------------------------- */

/* Pairs a and b by seed and computes the statistics of `metrics[0..nmetric-1]`
 * (canonical names), or, with nmetric 0, of the headline metrics that some
 * paired run defines (compare_default_metrics). Fewer than 2 pairs is an
 * error. 0, or -1 with a message. */
int compare_build(const struct compare_side *a, const struct compare_side *b,
                  const char *const *metrics, size_t nmetric, double level,
                  struct compare_result *res, char *err, size_t errlen);
void compare_result_fini(struct compare_result *res);
/* Prints the result; 0, or -1 when the stream fails. */
int compare_print(const struct compare_result *res, enum compare_format fmt, FILE *out);

/* The headline metrics compare, sweep and plan show by default: the mean
 * and 95th percentile wait, JCT, bounded slowdown, utilisations, makespan,
 * killed jobs, the mean wait of each class, energy and SLO violation when
 * the run has them. Fills names (borrowed from a static table or from the
 * set) and returns their count (at most max). */
size_t compare_default_metrics(const struct metric_set *s, const char **names, size_t max);

/* Shared by compare.c and compare_out.c. */
const char *compare_method_name(enum compare_method m);
/* "1, 2, 5-9": the seeds as ranges; the caller frees it (NULL on ENOMEM). */
char *compare_seed_list(const char *const *seed, size_t n);
/* The side's policy, or "mixed" / "?" */
const char *compare_side_policy(const struct compare_side *s);

#endif
