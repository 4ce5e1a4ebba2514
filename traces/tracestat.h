/* tracestat — statistics of a workload, as `hetlab trace inspect` prints
 * them: span and arrival rate, arrivals by hour of day and day of week,
 * runtime and size percentiles, power-of-two size classes, walltime
 * estimates, offered load, and demand (jobs, core-hours, GPU-hours) per GPU
 * model and per class or queue.
 *
 * Pure computation over a struct workload: no I/O. tracestat_compute fills
 * a struct tracestat, which owns its arrays until tracestat_free.
 *
 * Conventions (docs/traces.md, "inspect"):
 * - Percentiles are nearest-rank: the value at rank ceil(p × n) in sorted
 *   order.
 * - Hours and days are counted from an origin: the workload's UnixStartTime
 *   (w->unix_start ≥ 0: then hours are UTC and day 0 of the week is Monday)
 *   or else the trace's time 0 (hour 0 is the trace's first hour, day 0 its
 *   first day). The rate at hour of day h is the arrivals in hour-h slots
 *   divided by the number of hour-h slots that the window from the first to
 *   the last arrival touches (whole slots, counted even when the window
 *   covers them only in part); likewise per day of the week, in jobs per day.
 * - GPU-hours are GPUs × truth runtime; a job whose req.gpu_models names
 *   exactly one catalog model counts for that model, one naming none for
 *   "any", one naming several (or a bit the catalog does not have) for
 *   "several". */
#ifndef HL_TRACESTAT_H
#define HL_TRACESTAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sim/cluster.h"
#include "traces/trace.h"

#define TRACESTAT_BUCKETS 32    /* size class k: sizes in (2^(k-1), 2^k] */

enum tracestat_by { TRACESTAT_BY_CLASS, TRACESTAT_BY_QUEUE };

struct tracestat_opts {
	enum tracestat_by by;            /* grouping of the demand table */
	const struct catalog *cat;       /* GPU models by bit; NULL: every GPU-hour is "any" */
	/* Per job, nonzero when the job was already there when the trace began
	 * and so is not an arrival (DLRM instances without a creation time);
	 * NULL: every job is an arrival. */
	const uint8_t *not_arrival;
};

struct tracestat_pct {
	int64_t n;                       /* values counted */
	double mean, p50, p90, p95, p99, max;
};

struct tracestat_sizes {
	int64_t njobs;
	int64_t bucket[TRACESTAT_BUCKETS];
	int64_t pow2;                    /* exact powers of two */
	struct tracestat_pct pct;
};

struct tracestat_group {
	int32_t key;                     /* enum job_class, or the queue (-1: none) */
	int64_t jobs;
	double core_h, gpu_h;
};

struct tracestat {
	int32_t n;                       /* jobs */
	simtime first_us, last_us;       /* first and last submit (all jobs) */
	double span_days;                /* last - first submit */
	/* Arrivals (jobs not flagged not_arrival) */
	int64_t arrivals;
	simtime afirst_us, alast_us;     /* first and last arrival */
	double arrivals_per_h;           /* arrivals / (alast - afirst) */
	bool utc;                        /* origin UnixStartTime (UTC) or the trace start */
	char tz[64];                     /* with utc: the zone of the hours and days ("" UTC) */
	int64_t hour_n[24], dow_n[7];    /* arrivals per hour of day / day of week */
	int64_t hour_slots[24], dow_slots[7];   /* slots of each in the window */
	double hour_rate[24];            /* arrivals per hour, per hour of day */
	double dow_rate[7];              /* arrivals per day, per day of the week */
	/* Runtimes (s) and sizes */
	struct tracestat_pct run_s;
	simtime *run_sorted_us;          /* n truth runtimes, ascending (for a CDF) */
	struct tracestat_sizes cores;    /* total cores per job, every job */
	struct tracestat_sizes gpus;     /* total GPUs per job, jobs with GPUs */
	int64_t with_estimate;
	double est_ratio_mean;           /* walltime / run over jobs with both > 0 */
	int64_t failed;
	double load;                     /* offered load; -1 when unknown */
	int32_t capacity;
	const char *capacity_from;       /* "MaxProcs" or "MaxNodes" */
	int64_t per_class[JOB_NCLASS];
	int64_t tenants, tenant_unknown;
	/* Demand */
	double core_h, gpu_h;            /* totals */
	int32_t nmodels;                 /* cat->ngpus (0 without a catalog) */
	double *model_gpu_h;             /* [nmodels] */
	double any_gpu_h, several_gpu_h;
	enum tracestat_by by;
	int32_t ngroups;
	struct tracestat_group *groups;  /* ascending key; classes: all JOB_NCLASS */
};

/* o may be NULL (by class, no catalog, every job an arrival). 0, or -1
 * with "out of memory" in err (s is then empty). */
int tracestat_compute(const struct workload *w, const struct tracestat_opts *o,
                      struct tracestat *s, char *err, size_t errlen);
void tracestat_free(struct tracestat *s);

/* Day-of-week label: "Mon".."Sun" (utc) or "day 0".."day 6". */
const char *tracestat_dow_name(bool utc, int d);
/* Size class k's label into buf: "1", "2", "3-4", "5-8", ... */
void tracestat_bucket_label(int k, char *buf, size_t len);

#endif
