/* runasm — the composition root: the one place where a run is assembled
 * from a loaded scenario. `hetlab run` (cli/cmd_run.c), the benchmarks
 * bench/replay.c and bench/pass.c and the live daemon (live/rebuild.c) all
 * go through it, so that a benchmark times exactly what the command does
 * and the daemon's engine is set up as a run's is.
 *
 * run_assemble does, in this order:
 *   1. the policy: by name (the option's, else the scenario's), with its
 *      parameters (defaults, then the scenario's policy_params, then the
 *      NAME=VALUE options), each checked against its range;
 *   2. the workload: the trace (the option's, else the scenario's,
 *      "$TRACES/" resolved in the trace directory) or the synthetic
 *      workload, demand scaling, the cluster sized from the trace, the
 *      labels checked and bound (cluster_bind_workload), then the
 *      scenario's "tiered" and "slurm" blocks and the power model. A run
 *      without a workload (the live daemon: jobs come later) binds the
 *      "tiered" block only;
 *   3. the engine's settings from the scenario (then o->tune), the policy
 *      initialised on them (placement, seed, org, tiered, slurm), the
 *      engine (sim_init), the policy as its scheduler and the health
 *      monitor when the settings have a fault model with health checks;
 *   4. the results file, when o->out is given: the recorder (attached, the
 *      trace's notes and names, the billing block) and the notifier in
 *      front of it.
 * run_go runs the engine to its end; run_finish seals the results file
 * (the policy's parameters, the placement, the tenants' and services'
 * names and the measurement window go into it); run_free undoes it all.
 *
 * Ownership: struct run owns the policy's state, the health monitor, the
 * recorder, the workload's names and the engine (its own, or the caller's
 * storage o->sim). The scenario is borrowed and changed: bound to the
 * workload, its cluster taken by the engine (sim_init), so it serves one
 * run and outlives it. Options and what they point to are borrowed for
 * the run's life. */
#ifndef HL_RUNASM_H
#define HL_RUNASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <limits.h>
#include <time.h>

#include "analysis/notify.h"
#include "analysis/recorder.h"
#include "config/scenario.h"
#include "policies/policy.h"
#include "sim/engine.h"
#include "traces/trace.h"

/* A policy chosen and configured, then initialised (policies/policy.h). */
struct run_policy {
	const struct policy_ops *ops;
	struct policy_cfg cfg;
	void *state;                  /* after run_policy_init; ops->fini frees it */
};

/* Finds the policy `name` (NULL: the scenario's $.policy) and sets its
 * parameters: defaults, the scenario's policy_params (sc may be NULL),
 * then flags[0..nflags) of the form NAME=VALUE (`--param`). 0, or -1 with
 * err naming where the bad name or value came from; -2 when it came from a
 * flag (a usage error). */
int run_policy_find(struct run_policy *p, const char *name, const struct scenario *sc,
                    char *const *flags, int nflags, char *err, size_t errlen);
/* Initialises the policy's state for env. 0 or -1 with err. */
int run_policy_init(struct run_policy *p, const struct policy_env *env, char *err, size_t errlen);
/* Every parameter as "name=value ..." (for the run row). */
void run_policy_params_text(const struct run_policy *p, char *buf, size_t len);
/* Frees the state; p may be zeroed or only found. */
void run_policy_fini(struct run_policy *p);

struct run_opts {
	/* the policy */
	const char *policy;           /* NULL: the scenario's */
	char *const *params;          /* NAME=VALUE, over the scenario's policy_params */
	int nparams;
	/* the workload */
	const char *trace;            /* a trace file over the scenario's workload; NULL: the scenario's */
	const char *traces_dir;       /* where "$TRACES/..." and inventories are found */
	bool lenient;                 /* skip malformed trace lines, run jobs no node's labels match */
	const double *scale_rate;     /* NULL: none; a replay's arrivals thinned or replicated by it */
	int32_t max_jobs;             /* > 0: no workload; jobs come later (sim_add_job), at most this many */
	/* the engine */
	struct sim *sim;              /* storage for the engine; NULL: the run's own */
	/* Called with the engine's settings as the scenario gives them, before
	 * the policy sees them (the live daemon sets its live mode). May be NULL. */
	void (*tune)(void *ctx, struct sim_cfg *cfg);
	void *tune_ctx;
	void (*progress)(void *ctx, const struct sim *s);
	void *progress_ctx;
	/* the results */
	const char *out;              /* results file; NULL: no recorder and no notifier */
	const struct recorder_opts *rec;   /* NULL: the defaults */
	const char *version;          /* the program's, for the run row */
	/* Warnings and notes about the input ("WHO: warning: ..."); NULL: none. */
	FILE *notes;
	const char *who;
};

struct run {
	struct scenario *sc;          /* borrowed (see above) */
	struct run_opts o;            /* a copy; what it points to is borrowed */
	struct run_policy pol;
	struct workload w;            /* the names and counts of the workload (its jobs went to the engine) */
	char tpath[PATH_MAX + 64];          /* the trace read; "" when synthetic or none */
	char trace_notes[1024];       /* what the trace reader did (extended SWF, Slurm dumps) */
	struct sim *s;                /* &own, or o->sim */
	struct sim own;
	bool have_sim;
	struct sim_health hmon;
	struct recorder *rec;
	struct notifier nt;
	bool have_nt;
	int32_t njobs, nnodes;
	int64_t cores, gpus;
	struct timespec t0;           /* when the engine's set-up began */
	double wall_s;                /* set-up and run, by run_go */
};

/* Assembles r (see above). 0; -1 with err; -2 for a bad argument (a
 * `--param` flag, or o->out naming the trace or the scenario the run
 * reads): nothing written. Call
 * run_free after either. */
int run_assemble(struct run *r, struct scenario *sc, const struct run_opts *o, char *err,
                 size_t errlen);
/* Runs the engine to its end (sim_run). 0 or -1 with the engine's error. */
int run_go(struct run *r, char *err, size_t errlen);
/* Writes what the results file keeps besides the recorder's rows and
 * seals it (recorder_finish); warns of rejected jobs and failed notify
 * commands. Without a results file only the warnings. 0 or -1 with err. */
int run_finish(struct run *r, char *err, size_t errlen);
void run_free(struct run *r);

#endif
