/* policy — the whole contract between the engine and a scheduling policy.
 *
 * A policy is a const table of hooks (the Linux sched_class pattern) built
 * with designated initialisers and registered in policies/registry.c. The
 * engine calls the hooks; the policy reads only the view and the time it is
 * handed (view.h) and acts only through decide_start() / decide_hold().
 * It never reads a clock, a file, an environment variable or global state:
 * that is what makes a run reproducible from its seed and lets the same
 * code run live.
 *
 * Parameters: each policy lists the numeric parameters it accepts (name,
 * default, bounds, one line of documentation) in a table ending with a NULL
 * name. A scenario's "policy_params" may set only those; the loader checks
 * names and bounds, so a hook reads cfg->v[i] without validation. */
#ifndef HL_POLICY_H
#define HL_POLICY_H

#include <stddef.h>
#include "sim/engine.h"
#include "sim/view.h"

#define POLICY_MAX_PARAMS 16

struct policy_param {
	const char *name;
	double def, min, max;
	const char *doc;
};

struct policy_cfg {
	double v[POLICY_MAX_PARAMS];   /* in the order of policy_ops.params */
};

/* What a policy may size itself by at init. */
struct policy_env {
	const struct cluster *cl;      /* labels and capacity; do not keep pointers to free state */
	int32_t njobs;                 /* upper bound on jobs in the run (sizing hint) */
};

struct policy_ops {
	const char *name;
	const char *summary;
	const struct policy_param *params;   /* NULL-name terminated; may be NULL */

	/* Called once before the run. Allocates the policy's state into *state
	 * (all scratch memory it will need, so that passes allocate nothing).
	 * NULL: the policy has no state. Returns 0, or -1 with a message. */
	int (*init)(void **state, const struct policy_env *env, const struct policy_cfg *cfg,
	            char *err, size_t errlen);
	/* Frees what init allocated. NULL: nothing to free. */
	void (*fini)(void *state);
	/* A job was submitted (it is already in v->pending). NULL: ignored. */
	void (*submit)(void *state, const struct view *v, int32_t job);
	/* A job reached a final state (its allocation is already free). NULL: ignored. */
	void (*finish)(void *state, const struct view *v, int32_t job);
	/* A scheduling pass: at most once per timestamp, after that timestamp's
	 * events, when something changed. Starts jobs through `out`. Required. */
	void (*schedule)(void *state, const struct view *v, struct decide *out);
};

/* The registry. */
const struct policy_ops *policy_find(const char *name);
/* NULL-terminated array of every registered policy, in listing order. */
const struct policy_ops *const *policy_all(void);
/* "fcfs, easy, conservative" — for error messages. */
void policy_names(char *buf, size_t len);
int policy_param_index(const struct policy_ops *p, const char *name);
void policy_cfg_defaults(const struct policy_ops *p, struct policy_cfg *cfg);
/* Fills the engine's view of a policy instance. */
void policy_to_sched(const struct policy_ops *p, void *state, struct sim_sched *out);

/* Shared building blocks (policies/place.c). */

/* First-fit placement of request r on free state f, in node order. Fills
 * out[] (room for cl->nnodes parts) and returns the part count, or 0 when
 * it does not fit. */
int place_first_fit(const struct cluster *cl, const struct nodefree *f,
                    const struct job_req *r, struct alloc_part *out);
/* Cheap necessary condition on aggregate free cores/GPUs. */
static inline int place_aggregate_ok(const struct cluster *cl, int64_t free_cores,
                                     int64_t free_gpus, const struct job_req *r)
{
	(void)cl;
	return job_req_cores(r) <= free_cores && job_req_gpus(r) <= free_gpus;
}
/* Sorts running job ids by expected end (walltime estimate), ties by id. */
void sort_by_expected_end(const struct job *jobs, int32_t *ids, int32_t n);

#endif
