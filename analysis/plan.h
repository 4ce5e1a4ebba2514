/* plan — a what-if search for the cheapest cluster that meets targets.
 *
 * `hetlab plan PLAN.json` varies a few integer scenario settings (node or
 * rack counts, each a JSON path with a range and a capex per unit) and looks
 * for the combination of the lowest yearly cost of ownership whose
 * replicated runs meet every target (a metric of analysis/metric.h with a
 * max or a min). This module holds the plan as plain data, the cost model
 * (capex amortised over a life, yearly energy at the facility's PUE and the
 * tariff, maintenance per node-year, rack space per rack-year), the search
 * (greedy, or exhaustive over the box) and the printing of the frontier it
 * explored. It does not run
 * anything itself: each candidate is evaluated through a caller-supplied
 * function (cli/cmd_plan.c runs `hetlab run` processes; the tests plug in a
 * table), so the search is testable without a simulator. The loader is
 * config/plancfg.c. Method and format: docs/planning.md.
 *
 * Ownership: a spec owns its strings and arrays (plan_spec_fini); a result
 * owns its candidates (plan_result_fini). Everything passed in is borrowed.
 * sqlite3 handles never leave plan.c. */
#ifndef HL_PLAN_H
#define HL_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/metric.h"

/* The confidence level of the t interval reported for each target. */
#define PLAN_LEVEL 0.95

/* One integer decision variable. */
struct plan_var {
	char *path;             /* JSON path into the scenario, "$.racks[0].count" */
	long min, max;          /* inclusive, 0 <= min <= max */
	double cost;            /* capex per unit added, >= 0 */
	long owned;             /* the units the site has: only x - owned > 0 carry capex
	                           ("owned", default the scenario's value at the path) */
};

/* One target: the mean over seeds of `metric` must be <= bound (is_max) or
 * >= bound. */
struct plan_target {
	char metric[METRIC_NAME_MAX];   /* canonical name */
	int is_max;
	double bound;
};

struct plan_spec {
	char *file;             /* the plan file as given (NULL in tests) */
	char *scenario;         /* the base scenario text: fixed values applied,
	                           relative file paths made absolute */
	char *out;              /* the output directory, resolved */
	struct plan_var *var;
	size_t nvar;
	struct plan_target *target;
	size_t ntarget;
	uint64_t *seed;
	size_t nseed;
	/* The cost of ownership (docs/planning.md, "Cost"), "cost" in the file. */
	double life_years;             /* capex amortised over it (default 5) */
	double energy_price_per_kwh;   /* NaN: the scenario's own tariff (the run's energy_cost) */
	double pue;                    /* NaN: the run's facility energy (its PUE model) */
	double maint_per_node_year;    /* maintenance per node per year */
	double space_per_rack_year;    /* rack space and power provisioning per rack per year */
	struct metric_window window;   /* the measurement window for every target and the energy */
	int confident;                 /* "confident": a target counts as met only when the
	                                  t bound in its direction meets it, not just the mean */
};

/* What one run of a candidate used, for its running costs. */
struct plan_usage {
	double it_kwh, facility_kwh;   /* in the window; NaN without the power model */
	double energy_cost;            /* at the scenario's tariff, in the window; NaN: none */
	double window_s;               /* the window's length */
	double nodes, racks;           /* in the cluster (counted once present) */
};

/* What an evaluator returns for one candidate: per seed s, the value of
 * target t in val[s * ntarget + t] (NaN when undefined) and its usage in
 * use[s]. */
typedef int (*plan_eval_fn)(void *ctx, const struct plan_spec *spec, const long *x, double *val,
                            struct plan_usage *use, char *err, size_t errlen);

/* One evaluated candidate. */
struct plan_cand {
	long *x;                /* nvar values */
	double capex;           /* sum cost_i max(0, x_i - owned_i) */
	double capex_year;      /* capex / life_years */
	double energy_kwh_year; /* facility energy per year (mean over seeds, annualised) */
	double energy_year;     /* its cost per year */
	double maint_year, space_year;
	double nodes, racks;    /* mean over seeds */
	double cost;            /* per year: the sum of the four; the objective */
	double *mean;           /* ntarget means over the seeds where defined (NaN: none) */
	double *bound;          /* ntarget: the t-interval end in the target's direction
	                           (the upper end for a max, the lower for a min); NaN with < 2 seeds */
	int *ok;                /* ntarget: 1 when the mean meets the target */
	double *per_seed;       /* nseed x ntarget: each seed's value (NaN: undefined) */
	int feasible;           /* every ok */
	int confident;          /* feasible and every bound meets its target too */
	double violation;       /* max over targets of the relative shortfall, 0 when feasible */
	size_t order;           /* 0-based evaluation order */
};

struct plan_result {
	struct plan_cand *cand;  /* every candidate evaluated, in evaluation order */
	size_t ncand;
	long answer;             /* index into cand of the answer, -1 when none is feasible */
	int exhaustive;
};

void plan_spec_fini(struct plan_spec *s);
void plan_result_fini(struct plan_result *r);

/* sum cost_i max(0, x_i - owned_i): only what the candidate adds to the
 * site costs capex (the rest is owned). */
double plan_capex(const struct plan_spec *s, const long *x);
/* The relative shortfall of one target: (mean - bound) / max(|bound|, 1e-9)
 * for a max, the other way round for a min, clamped at 0; +inf for a NaN
 * mean. */
double plan_shortfall(const struct plan_target *t, double mean);

/* Runs the search: greedy (docs/planning.md) or, with exhaustive, every
 * candidate of the box. A spec without targets is a what-if costing: every
 * candidate of the box, no answer. Each candidate is evaluated once (cached by value).
 * `progress` (may be NULL) gets one line per evaluated candidate. 0, or -1
 * with a message when an evaluation fails or memory runs out. */
int plan_search(const struct plan_spec *s, int exhaustive, plan_eval_fn eval, void *ctx,
                FILE *progress, struct plan_result *r, char *err, size_t errlen);

/* The frontier and the answer as text (or JSON). 0, or -1 when the stream fails. */
int plan_print(const struct plan_spec *s, const struct plan_result *r, int json, FILE *out);

/* "cand-X1-X2-..." (caller frees; NULL on ENOMEM). */
char *plan_cand_name(const struct plan_spec *s, const long *x);
/* The usage of one run from its metrics (within their window) and its
 * database (nodes and racks). 0, or -1 with a message. */
int plan_run_usage(const char *db, const struct metric_set *m, struct plan_usage *u, char *err,
                   size_t errlen);
/* The cost terms of a run's meta row "cost" (a scenario's "cost" block,
 * validated by config/costcfg.c) into s, everything else zero: no
 * variables (so no capex), no targets. NULL text: the defaults (the
 * scenario's tariff, its PUE model, nothing per node or rack). 0, or -1
 * with a message. */
int plan_cost_terms(const char *text, struct plan_spec *s, char *err, size_t errlen);
/* Fills the yearly costs of c from the mean usage over the seeds. */
void plan_cost(const struct plan_spec *s, const struct plan_usage *use, size_t nuse,
               struct plan_cand *c);

#endif
