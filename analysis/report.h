/* report — the summary of one run, read from its results file only.
 *
 * report_print() opens a run.db written by the recorder read-only, checks
 * that it is a results file of a schema version it understands, computes
 * the metrics (run information, final states, makespan, utilisation,
 * waiting time, job completion time and bounded slowdown, overall, per
 * job class and per tenant; work lost to preemption, checkpoint and held
 * time; the inference services' replica delays and SLO violation time;
 * the GPU use of reserved and shared capacity; the means of the
 * monitoring samples; and, for a run with the power model, its energy,
 * PUE, cost and carbon, each rack's peak against its cap, and the energy
 * cost per tenant and class; for a run with failures, drains or nodes
 * joining and leaving, the operations figures) and prints them as
 * aligned text for a person, as JSON for a program, or as a document:
 * Markdown tables, or one self-contained HTML page with the run's
 * figures (analysis/runplot) inlined as SVG.
 * The formulas are in docs/results.md ("Report metrics"); percentiles
 * interpolate linearly between order statistics (analysis/dbutil.h).
 *
 * Four files, each calling only those before it: report_load.c reads the
 * file (struct report), report_compute.c computes the figures from it,
 * report_doc.c writes the documents and report.c the text and JSON, and
 * holds the entry points below.
 *
 * Ownership: the caller's strings and stream are borrowed; the report
 * holds nothing once it returns. */
#ifndef HL_REPORT_H
#define HL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sqlite3.h>

#include "analysis/dbutil.h"   /* report_percentile, report_has_column */
#include "analysis/mrun.h"

enum report_format { REPORT_TEXT, REPORT_JSON, REPORT_MARKDOWN, REPORT_HTML };

/* "text", "json", "markdown" (or "md") or "html"; -1 for anything else. */
int report_format_parse(const char *name);
/* 0 on success; -1 with a message naming `db` in err. */
int report_print(const char *db, enum report_format fmt, FILE *out, char *err, size_t errlen);
/* report_print, with a warning for the person in warn ("" when none; may
 * be NULL): the HTML report warns when gnuplot is missing and the page has
 * no figures, which is not an error. */
int report_write(const char *db, enum report_format fmt, FILE *out, char *warn, size_t warnlen,
                 char *err, size_t errlen);
/* report_write within a measurement window (NULL: the run's own window,
 * analysis/metric.h): the job tables count the jobs submitted in it, the
 * summary's metrics everything in it; the report names the window. */
int report_write_window(const char *db, enum report_format fmt, const struct metric_window *w,
                        FILE *out, char *warn, size_t warnlen, char *err, size_t errlen);

/* ---- inside the report module (analysis/report*.c) only ------------------ */

struct report_run {
	char *scenario, *policy, *seed, *version, *trace, *created, *policy_params;
	char *placement;         /* NULL in files written before placements existed */
	char *reasons;           /* "oom 12, walltime 3" — why jobs failed or were killed; NULL none */
	bool seed_int;           /* seed fits an INTEGER (else its digits as TEXT) */
	double wall_s;
	int64_t events, passes, jobs, nodes, total_cores, total_gpus;
	int64_t skipped_malformed, skipped_unusable, rejected;
};

/* A job row as the metrics need it; times -1 when NULL. The fields after
 * `gpus` come from job columns later than the first files: a column the
 * file lacks (see report.have) reads as tenant/grp -1, counts and
 * seconds 0, gpu_s NaN. */
struct report_job {
	int cls, state;          /* indexes in report.classes / report.states */
	int64_t submit_us, start_us, end_us;
	int64_t cores;
	double gpus;             /* card equivalents (a 250m share is 0.25) */
	int64_t tenant, grp;     /* -1 when NULL; grp is the service of a replica */
	int64_t preemptions;
	double gpu_s;            /* GPU-seconds held, all runs; NaN when not recorded */
	double lost_gpu_s, ckpt_s, held_s;
	double energy_kwh, energy_cost;   /* 0 when NULL (no power model) */
	bool quota_hold;         /* hold_why = 'quota' */
};

/* Which of the later job columns the file has (report.have). */
enum {
	REPORT_HAVE_TENANT = 1 << 0,
	REPORT_HAVE_GRP = 1 << 1,
	REPORT_HAVE_PREEMPTIONS = 1 << 2,
	REPORT_HAVE_GPU_S = 1 << 3,
	REPORT_HAVE_LOST_GPU_S = 1 << 4,
	REPORT_HAVE_CKPT_S = 1 << 5,
	REPORT_HAVE_HELD_S = 1 << 6,
	REPORT_HAVE_HOLD_WHY = 1 << 7,
	REPORT_HAVE_ENERGY = 1 << 8,      /* energy_j and energy_cost */
};

/* Distinct strings in order of first appearance, and a display order. */
struct report_names {
	char **v;
	int64_t *count;
	int *order;
	int n, cap;
};

struct report_dist {
	size_t n;
	double mean, p50, p95, p99, max;   /* NaN when n is 0 */
};

struct report_group {
	int64_t jobs, started, ended;
	double core_s, gpu_s;              /* allocated device-seconds */
	double core_util, gpu_util;        /* NaN when undefined */
	struct report_dist wait, jct;
	double bsld;                       /* mean bounded slowdown, NaN if none */
	/* Sums over the group's jobs (0 when the file lacks the column). */
	int64_t preemptions, quota_holds;
	double lost_gpu_s, ckpt_s, held_s;
	double energy_kwh, energy_cost;    /* its jobs' energy (power model on) */
};

/* One inference service: its replicas are the inference jobs whose grp
 * is the service's index. */
struct report_service {
	int64_t grp, replicas, started;
	double slo_violation_s;            /* measure of the union of the replicas' waits */
	double delay_mean_s, delay_max_s;  /* over started replicas; NaN when none */
};

/* GPU-seconds of class inference (reserved capacity) and of the other
 * classes (shared), over total_gpus × makespan. */
struct report_gpu_split {
	double inference_s, shared_s;
	double inference_util, shared_util;  /* NaN when undefined */
	bool all_runs;                       /* gpu_s recorded: every run counts */
};

struct report_samples {
	int64_t n;
	double pending, running, core_share, gpu_share, power_w;
};

/* One rack's power-model totals (table rack) and its hottest sampled node. */
struct report_rack_power {
	char *name;
	double cap_w, peak_w, warn_s, over_s, throttled_gpu_h, energy_kwh, facility_kwh, cost;
	double temp_max_c;                 /* max of rack_sample.temp_max; NaN when none */
};

/* The power section: present (on) when run.it_energy_kwh is not NULL. */
struct report_power {
	bool on;
	double it_kwh, facility_kwh, idle_kwh, cost;
	double carbon_kg;                  /* NaN when the site tracks none */
	double pue, idle_share;            /* facility / IT, idle / IT; NaN when IT is 0 */
	double jobs_cost;                  /* Σ job.energy_cost: idle's cost is cost − this */
	struct report_rack_power *racks;   /* by rack id */
	int nracks;
};

/* The cost of the run at its rate (docs/planning.md, "The cost of a plain
 * run"): the plan's cost model (analysis/plan.c) over this one run, with
 * the scenario's "cost" block (the results' meta row "cost") when it has
 * one. Present (on) when the run has an energy cost (the power model) or
 * the block. No capex: a run adds nothing to the site. */
struct report_cost {
	bool on;
	bool terms;                        /* the scenario gave a "cost" block */
	double price_kwh, pue;             /* the block's; NaN: the tariff, the PUE model */
	double maint_per_node, space_per_rack;
	double window_s;                   /* the window the rate is taken over */
	double energy_cost;                /* in the window, at the scenario's tariff; NaN none */
	double kwh_year, energy_year;      /* facility energy and its cost a year at this rate */
	double nodes, racks, maint_year, space_year;
	double year;                       /* the sum of the three a year */
};

/* The cost section's three lines for a person, shared by the text and the
 * HTML report: the total a year, the energy, maintenance and rack space. */
void report_cost_lines(const struct report_cost *rc, char line[3][400]);

/* A kind of failure or a drain reason, and its counts. */
struct report_ops_kind {
	char *name;
	int64_t n;                         /* fault events, or drains */
	double node_s;                     /* drained node-seconds (drain reasons only) */
};

/* The operations section (docs/results.md, "Operations"): present (on)
 * when the event table has a fault, repair, drain, resume, join or leave
 * event, or a requeue for a fault. Kinds and reasons sorted by name. */
struct report_ops {
	bool on;
	bool billing;                      /* the file has a billing table */
	struct report_ops_kind *faults, *drains;
	int nfaults, ndrains;
	int64_t nodes;
	double present_s, down_s, drained_s, unavail_s;  /* node-seconds */
	double availability;               /* 1 − unavail / present; NaN when none present */
	int64_t migrations;                /* requeues after a node crash or a lost GPU */
	double migration_lost_s;           /* Σ their "lost X s" */
	int64_t node_fail_jobs;            /* job.reason = 'node_fail'; -1 without the column */
	int64_t joined, left;
};

struct report {
	const char *path;
	struct sqlite3 *db;
	int64_t schema_version;
	struct report_run run;
	struct report_job *rows;
	size_t nrows;
	struct report_names classes, states;
	double makespan_s;                 /* NaN when no job ended */
	struct report_group all, *per_class;
	int64_t *tenants;                  /* distinct tenants, ascending */
	struct report_group *per_tenant;   /* in the order of tenants */
	int ntenants;
	struct report_service *services;   /* by service index */
	int nservices;
	struct report_gpu_split gpu_split;
	unsigned have;                     /* REPORT_HAVE_* */
	bool any_lost;                     /* a preemption, lost work or checkpoint time */
	bool any_hold;                     /* a quota hold or held time */
	struct report_samples smp;
	struct report_power power;
	struct report_ops ops;
	struct report_cost cost;
	struct mrun mr;                    /* the run for the metric registry (names, window) */
	struct metric_set ms;              /* every metric within the window */
	char window[160];                  /* "whole run" or the window with its bounds */
	double *scratch;                   /* nrows values for the distributions */
	size_t *idx;                       /* nrows row indexes: the group being computed */
	char *err;
	size_t errlen;
};

/* report_load.c: opens rp->path read-only and reads the run, its jobs
 * (those submitted in window w, NULL: the run's own; analysis/metric.h),
 * samples and power model into rp. 0, or -1 with a message in rp->err;
 * report_load_fini frees what it read (and closes the file) either way. */
int report_load(struct report *rp, const struct metric_window *w);
void report_load_fini(struct report *rp);
/* "PATH: " and the message into rp->err; -1. */
int report_failf(struct report *rp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* report_failf with "WHAT: " and SQLite's message; -1. */
int report_fail_db(struct report *rp, const char *what);
/* report_compute.c: the figures of a loaded report (groups, services, GPU
 * split, display order, the operations section). 0, or -1 with a message;
 * report_compute_fini frees them either way. */
int report_compute(struct report *rp);
void report_compute_fini(struct report *rp);

/* The name of tenant t and of service g (the run's names, else the number;
 * report_load.c). */
const char *report_tenant_name(const struct report *rp, int64_t t, char *buf, size_t len);
const char *report_service_name(const struct report *rp, int64_t g, char *buf, size_t len);
/* The headline metrics the document's summary shows (report_doc.c):
 * name, label for a person, and how to print the value ('p' a share, 'h'
 * hours from seconds, else the unit); ends with a NULL name. */
struct report_headline {
	const char *metric, *label;
	char fmt;
};
extern const struct report_headline report_headlines[];

/* report_doc.c: the loaded and computed report as Markdown or HTML. */
void report_doc_markdown(const struct report *rp, FILE *out);
/* -1 with a message in rp->err when the page cannot be made; a missing
 * gnuplot is a warning in warn, not an error. */
int report_doc_html(const struct report *rp, FILE *out, char *warn, size_t warnlen);

#endif
