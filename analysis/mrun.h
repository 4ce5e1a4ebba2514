/* mrun — one run database read for the metric registry (analysis/metric):
 * its nodes and when they were present, its jobs and every run of each
 * (from the start, requeue and end events), its samples and racks, and the
 * names of its tenants and services. mrun_metrics() computes every metric
 * of the registry within a window; the report's figures read the same
 * model (per GPU model and class over time).
 *
 * Inside analysis/ only. Ownership: an mrun owns everything in it
 * (mrun_close frees it); the database is open read-only between
 * mrun_open and mrun_close. */
#ifndef HL_MRUN_H
#define HL_MRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/metric.h"

struct sqlite3;

struct mrun_span {
	int64_t a_us, b_us;          /* [a, b) */
};

struct mrun_node {
	char *name, *rack, *type, *gpu_model;   /* gpu_model NULL: a CPU node */
	int64_t cores, gpus;
	int rack_idx, type_idx, model_idx;      /* into the name lists below; model -1 */
	struct mrun_span *present;              /* when the node was in the cluster */
	int npresent;
};

struct mrun_job {
	int64_t id;
	int cls;                     /* enum job_class, or JOB_NCLASS for another name */
	int64_t tenant, grp;         /* -1 when NULL */
	char state;                  /* 'd' done, 'f' failed, 'k' killed, '?' other */
	char *reason;                /* NULL when none */
	int64_t submit_us, start_us, end_us;    /* -1 when NULL */
	int64_t cores;
	double gpus;                 /* card equivalents */
	int *node;                   /* its nodes (indices), from node_list */
	int nnode;
	struct mrun_span *runs;      /* every run: start to requeue or end */
	int nruns;
	double preemptions, lost_gpu_s, quota_held_s;
};

struct mrun_names {
	char **v;
	int n;
};

struct mrun_rack {
	char *name;
	double cap_w, peak_w, warn_s, over_s, throttled_gpu_h;   /* NaN when not recorded */
};

struct mrun_rsample {
	int64_t t_us;
	int rack;
	double power_w, cap_w, throttle;
	bool warn;
};

struct mrun {
	const char *path;
	struct sqlite3 *db;
	bool borrowed;               /* db is the caller's (mrun_open_conn): not closed */
	struct mrun_node *nodes;
	int nnodes;
	struct mrun_names racks_n, types, models, tenant_names, service_names;
	struct mrun_job *jobs;
	size_t njobs;
	int64_t first_submit_us, last_submit_us, last_end_us, last_us;
	/* samples: time, IT and facility power (NaN when not recorded) */
	int64_t *s_t;
	double *s_power, *s_fac;
	size_t nsamples;
	struct mrun_rack *racks;     /* by rack id */
	int nracks;
	struct mrun_rsample *rs;
	size_t nrs;
	bool power_on;
	int64_t total_cores, total_gpus;   /* run row: the cluster at the start */
	double it_kwh, facility_kwh, cost, carbon_kg;   /* run totals (NaN when none) */
	struct metric_window recorded;  /* the run's "measure" (given false: none) */
};

int mrun_open(const char *db, struct mrun *r, char *err, size_t errlen);
/* The same from a connection the caller has open (and keeps: mrun_close
 * leaves it open), e.g. the recorder's before its transaction commits,
 * which sees the rows it has written; path names the file in messages. */
int mrun_open_conn(struct sqlite3 *db, const char *path, struct mrun *r, char *err, size_t errlen);
void mrun_close(struct mrun *r);
/* The window's bounds: w when given, else the recorded one, else the whole
 * run; *whole tells whether it is the whole run. */
void mrun_window(const struct mrun *r, const struct metric_window *w, struct metric_window *used,
                 int64_t *t0_us, int64_t *t1_us, bool *whole);
/* Every metric of the registry into out (emptied first). */
int mrun_metrics(struct mrun *r, const struct metric_window *w, struct metric_set *out, char *err,
                 size_t errlen);
/* The name of tenant t / service g ("t3" style from the run's names, else the number). */
const char *mrun_tenant_name(const struct mrun *r, int64_t t, char *buf, size_t len);
const char *mrun_service_name(const struct mrun *r, int64_t g, char *buf, size_t len);
/* Seconds of [a, b) inside [t0, t1]. */
double mrun_overlap_s(int64_t a, int64_t b, int64_t t0, int64_t t1);

#endif
