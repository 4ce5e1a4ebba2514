/* fit — calibrating the synthetic generator from a real trace, and the
 * two-sample Kolmogorov–Smirnov test that says how close a generated trace
 * comes to the original.
 *
 * trace_fit() reads a struct workload (any reader's) and fills a struct
 * synth_cfg, class by class: the arrival rate and its hour-of-week profile,
 * maximum-likelihood fits of the durations to the lognormal, Weibull and
 * gamma distributions (the smallest AIC wins; or 101 empirical quantiles),
 * the GPU-count and core-count mixes, the walltime factor and the failure
 * share. trace_fit_write() writes such a configuration as the scenario's
 * "workload.synthetic" object, which the scenario loader (synth_load_file in
 * config/scenario.h) reads back. docs/workloads.md gives every estimator.
 *
 * The estimators and the KS functions are exported on their own for tests
 * and benchmarks. Everything borrows its inputs; nothing keeps a pointer.
 * Errors: 0 on success, -1 with a message in err. */
#ifndef HL_FIT_H
#define HL_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "traces/ks.h"
#include "traces/trace.h"

/* Durations shorter than this are raised to it before fitting (the
 * generator never draws shorter ones either). */
#define FIT_MIN_DUR_S 1.0
/* Quantiles written for an empirical duration distribution. */
#define FIT_NQUANT SYNTH_EMP_MAX

/* The three parametric families, in report order. */
enum fit_family { FIT_LOGNORMAL, FIT_WEIBULL, FIT_GAMMA, FIT_NFAMILY };

/* One family's maximum-likelihood fit. */
struct fit_dur {
	int32_t dist;          /* enum synth_dist of the family */
	bool ok;               /* false: the sample does not determine it (fewer
	                        * than two distinct values) or it did not converge */
	double median_s, sigma; /* lognormal: e^mu and sigma */
	double shape, scale_s;  /* Weibull k, lambda; gamma k, theta */
	double loglik;         /* ln L at the estimate (densities in 1/s) */
	double aic;            /* 2k - 2 ln L with k = 2 */
	int iters;             /* Newton iterations (0 for the closed form) */
	double mean_s;         /* the mean below the trace's longest duration (what the
	                        * generator draws with dur_max_s; set by trace_fit) */
};

struct fit_opts {
	bool empirical;        /* durations as FIT_NQUANT quantiles, not the best family */
	bool force;            /* use family `dist` (enum fit_family) whatever the AIC says */
	int32_t dist;
	double burst_gap_s;    /* > 0: jobs this close after the previous one of their
	                        * class are a burst (burst_p, burst_mean, burst_gap_s) */
	bool independent;      /* the model of before: durations independent of sizes and
	                        * Poisson arrivals; default (false) the joint model:
	                        * durations per size class and arrival gaps in profile
	                        * time (gap_quantiles_s; not with burst_gap_s) */
};

/* What trace_fit saw and chose, per class, for printing. */
struct fit_class_report {
	int64_t njobs;
	int64_t nfloored;      /* durations below FIT_MIN_DUR_S raised to it */
	double rate_per_h;
	double profile_min, profile_max;
	struct fit_dur dur[FIT_NFAMILY];
	int32_t best;          /* enum fit_family with the smallest AIC, -1 when none fits */
	double dur_mean_s, dur_p50_s, dur_max_s;
	int64_t ncpu, ngpu;    /* CPU-only and GPU jobs */
	int32_t ncpu_values;   /* distinct core counts of CPU-only jobs */
	int64_t ncpu_folded;   /* CPU-only jobs whose core count was folded into a kept one */
	int32_t ngpu_values;   /* distinct GPU counts */
	int64_t ngpu_folded;
	int64_t nspread;       /* CPU-only jobs with a spread request */
	int64_t nratio;        /* jobs with an estimate and a runtime > 0 */
	int64_t nfailed;
	int64_t nbursts;       /* bursts with at least one extra job (burst_gap_s > 0) */
	int64_t nburst_extra;  /* jobs that follow the first of their burst */
	int32_t nsize;         /* size classes of the joint model (0: independent) */
	int64_t nzero_gap;     /* arrival gaps of exactly 0 s (simultaneous submissions) */
	int64_t ngaps;         /* arrival gaps fitted (0: Poisson arrivals) */
	int32_t ntenants;      /* distinct tenant ids >= 0 */
	bool tenant_weighted;  /* weights written (at most SYNTH_TENANTS_MAX tenants) */
	double top_tenant_share; /* the busiest tenant's share of the jobs */
};

struct fit_report {
	int32_t njobs;
	double span_days;      /* first to last submit */
	bool aligned;          /* hour 0 from the trace's UnixStartTime (UTC) */
	int64_t unix_start;    /* -1 when the trace has none: hour 0 = submit time 0 */
	struct fit_class_report cls[JOB_NCLASS];
};

/* Fits every class present in w. out is initialised (synth_cfg_init) and
 * each present class gets rate_per_h > 0; rep may be NULL. -1 when w is
 * empty, spans no time, or a class cannot be fitted. */
int trace_fit(const struct workload *w, const struct fit_opts *o, struct synth_cfg *out,
              struct fit_report *rep, char *err, size_t errlen);

/* Writes m as a model file: {"fitted_from": ..., "days", "gpus_per_node",
 * "classes": {...}} with only the classes whose rate_per_h > 0, only the
 * duration keys of each class's dur_dist, and the keys trace_fit sets
 * (bursts when burst_p > 0; not GPU models or checkpoints). Atomic: a temporary file in the
 * same folder renamed over path. fitted_from may be NULL (key left out). */
int trace_fit_write(const char *path, const struct synth_cfg *m, const char *fitted_from,
                    char *err, size_t errlen);

/* The "fitted_from" of a model file into out ("" when it has none). */
int trace_fit_source(const char *path, char *out, size_t len, char *err, size_t errlen);

/* Maximum-likelihood fits of x[0..n) (all > 0). They fail (-1) only on bad
 * input: n < 2, a value <= 0 or not finite. A sample whose values are all
 * equal gives ok = false for Weibull and gamma and sigma 0 for lognormal. */
int fit_lognormal(const double *x, size_t n, struct fit_dur *f, char *err, size_t errlen);
int fit_weibull(const double *x, size_t n, struct fit_dur *f, char *err, size_t errlen);
int fit_gamma(const double *x, size_t n, struct fit_dur *f, char *err, size_t errlen);
/* All three; *best gets the family with the smallest AIC (-1 when none is ok). */
int fit_durations(const double *x, size_t n, struct fit_dur f[FIT_NFAMILY], int32_t *best,
                  char *err, size_t errlen);
/* The mean of f's distribution truncated to (0, max_s] (max_s <= 0: not
 * truncated); NAN when f is not ok or GSL fails. */
double fit_dur_mean(const struct fit_dur *f, double max_s);
/* nq >= 2 quantiles of the sorted x[0..n) at probabilities i/(nq-1), by
 * linear interpolation between order statistics (Hyndman and Fan type 7). */
void fit_quantiles(const double *sorted, size_t n, double *q, int nq);

#endif
