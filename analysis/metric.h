/* metric — the one registry of run metrics: names, units, directions, and
 * their values for one run database within a measurement window.
 *
 * Every figure `hetlab compare`, `sweep`, `plan` and the report's summary
 * speak of is a metric of this registry. A metric's name is a base name,
 * optionally with one label: `p95_wait`, `p95_wait{class=training}`,
 * `gpu_util{gpu=H100-SXM-80GB}`, `slo_violation_s{service=chat-api}`. The
 * base names are STAT_QUANTITY (mean_wait, p95_jct) or a quantity with its
 * unit (it_energy_kwh, lost_gpu_h); each base has a unit, a direction
 * (lower or higher is better, or neither) and the label keys it takes.
 * Older names are aliases (`wait_training` is `mean_wait{class=training}`).
 * The list and the formulas are in docs/compare.md ("Metrics"):
 * keep the two in step (`hetlab compare --list-metrics` prints this table).
 *
 * The measurement window (analysis/metric_window.h): every metric counts
 * only what falls in [t0, t1]: job metrics the jobs submitted in it, time
 * metrics (utilisation, energy, rack power, SLO violation) the time in it. t0 = start + warm-up; t1 = the
 * last job's end − cool-down, or the last arrival ("arrivals"). The start
 * is the first submit.
 *
 * Ownership: sets and windows are caller-owned storage; metric_set_fini
 * frees a set's names. sqlite3 handles never leave metric.c. */
#ifndef HL_METRIC_H
#define HL_METRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/metric_window.h"   /* the measurement window */

enum metric_dir { METRIC_LOWER = -1, METRIC_NEUTRAL = 0, METRIC_HIGHER = 1 };

/* Label keys a base accepts (bits). */
enum {
	METRIC_L_CLASS = 1 << 0,
	METRIC_L_TENANT = 1 << 1,
	METRIC_L_GPU = 1 << 2,       /* GPU model */
	METRIC_L_TYPE = 1 << 3,      /* node type */
	METRIC_L_RACK = 1 << 4,
	METRIC_L_SERVICE = 1 << 5,
	METRIC_L_REASON = 1 << 6,    /* a job's end reason */
};

struct metric_kind {
	const char *base;
	const char *unit;            /* "s", "fraction", "kWh", ... */
	enum metric_dir dir;
	unsigned labels;             /* METRIC_L_* */
	const char *what;            /* one line: what it counts */
};

/* The registry, ending with a NULL base. */
extern const struct metric_kind metric_kinds[];

enum { METRIC_NAME_MAX = 128 };

/* Checks `name` (a base, a base{key=value}, or an alias) and writes its
 * canonical spelling into canon. The kind, or NULL with a message in err
 * (an unknown base lists none; a label the base does not take says which
 * it takes). */
const struct metric_kind *metric_parse(const char *name, char *canon, size_t len, char *err,
                                       size_t errlen);
/* The kind of a canonical name (NULL when unknown). */
const struct metric_kind *metric_kind_of(const char *name);
/* -1 lower is better, 1 higher, 0 neither (unknown names: lower). */
int metric_direction(const char *name);
const char *metric_unit(const char *name);
/* The values the metric can take: [0, 1] for a utilisation, [0, inf) for
 * the rest (counts, times, energies, shares that may pass 1 such as
 * peak_cap); an interval drawn for it is cut to them. */
void metric_range(const char *name, double *lo, double *hi);
/* The label key of bit i (METRIC_L_* is 1 << i): "class", "tenant", ...;
 * NULL past the last. */
const char *metric_label_key(int i);
/* Prints the registry: one line per base with unit, direction, labels. */
void metric_print_list(FILE *out);

/* ---- values of one run ---------------------------------------------------- */

struct metric_val {
	char *name;                  /* canonical */
	double v;                    /* NaN when undefined */
};

struct metric_set {
	struct metric_val *v;        /* sorted by name */
	size_t n, cap;
	struct metric_window window; /* the window used */
	int64_t t0_us, t1_us;        /* its resolved bounds (t1 < t0: empty) */
	bool whole;                  /* the window is the whole run */
};

/* Reads every metric of the run database `db` within the window: `w` when
 * given (w->given), else the window the run recorded (its scenario's
 * "measure"), else the whole run. 0, or -1 with a message naming the file. */
int metric_run_load(const char *db, const struct metric_window *w, struct metric_set *out,
                    char *err, size_t errlen);
void metric_set_fini(struct metric_set *s);
/* The value of a canonical name; NaN when the run does not define it. */
double metric_get(const struct metric_set *s, const char *name);
/* Sets (adds or replaces) a value; 0, or -1 when out of memory. */
int metric_set_put(struct metric_set *s, const char *name, double v);
/* The meta rows a run's file carries for the metrics: "labels" (the
 * tenants' and services' names, JSON) and, when the scenario gave one,
 * "measure" (its window, JSON; NULL otherwise). Both malloc'd; -1 on ENOMEM. */
int metric_meta_texts(const struct metric_window *w, const char *const *tenants, int ntenants,
                      const char *const *services, int nservices, char **labels, char **measure);

#endif
