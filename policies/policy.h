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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sim/engine.h"
#include "sim/snap.h"
#include "sim/view.h"

#define POLICY_MAX_PARAMS 64

struct tiered_cfg;
struct slurm_cfg;

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
	const char *placement;         /* placement strategy name; NULL or "" = first-fit */
	bool label_blind;              /* placement ignores the GPU memory jobs need */
	uint64_t seed;                 /* the run's seed (for strategies that randomise) */
	const struct org *org;         /* tenants, projects, shares, quotas; NULL = none */
	const struct sim_cfg *sim;     /* the engine's settings (checkpoint grace per class, ...) */
	const struct tiered_cfg *tiered;   /* the scenario's "tiered" block (policies/tiered.h); NULL none */
	const struct slurm_cfg *slurm;     /* the scenario's "slurm" block, bound (policies/slurm.h); NULL none */
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
	/* Finished jobs leave the engine's table (sim_compact; a live daemon
	 * runs for months): the job that is `old` becomes map[old], or leaves
	 * when map[old] is -1 (it has ended, and finish was called for it),
	 * for old < nold; the table will have nnew jobs. v is the view before
	 * (its ids old), for what the policy must settle about the jobs that
	 * leave; keep no pointer into it. The map keeps order (a < b ⇒ map[a]
	 * < map[b]), so what the policy keeps ordered by id stays ordered, and
	 * the run decides as it would have. Rewrite every job id the policy
	 * keeps between calls, and drop what it keeps for jobs that leave;
	 * called between passes. 0, or -1 when memory runs out (the run
	 * fails). A policy that keeps no job id between calls sets
	 * policy_renumber_none; NULL: the policy cannot be compacted (a live
	 * daemon with it keeps every job). */
	int (*renumber)(void *state, const struct view *v, const int32_t *map, int32_t nold, int32_t nnew);
	/* Snapshots (sim_snap_save / load, sim/snap.h): save writes what the
	 * policy keeps between calls that a later call reads (what a pass
	 * rebuilds from the view need not be saved; a cache it can drop must
	 * then be dropped by load); load reads it back into a state that init
	 * just made for the same scenario, so that the run decides from then
	 * on as the saved one would have (test_snap checks every policy).
	 * save: 0, or -1 when memory runs out. load: 0, or -1 with r marked
	 * bad (snap_bad: what did not fit). NULL: the run cannot be
	 * snapshotted (a live daemon with it replays its whole recording). */
	int (*save)(void *state, const struct view *v, struct snapw *w);
	int (*load)(void *state, const struct view *v, struct snapr *r);
};

/* The renumber hook of a policy that keeps no job id between calls. */
int policy_renumber_none(void *state, const struct view *v, const int32_t *map, int32_t nold, int32_t nnew);

/* The registry (policies/registry.c). */
const struct policy_ops *policy_find(const char *name);
/* NULL-terminated array of every registered policy, in listing order. */
const struct policy_ops *const *policy_all(void);
/* "fcfs, easy, conservative" — for error messages. */
void policy_names(char *buf, size_t len);

/* Parameter tables and the engine's view of an instance (policies/params.c,
 * below the registry: a policy may call these). The index of parameter
 * `name` in p->params, or -1. */
int policy_param_index(const struct policy_ops *p, const char *name);
/* cfg with every parameter at its default (the rest zero). */
void policy_cfg_defaults(const struct policy_ops *p, struct policy_cfg *cfg);
/* Fills the engine's view of a policy instance. */
void policy_to_sched(const struct policy_ops *p, void *state, struct sim_sched *out);

/* Shared building blocks (policies/place.c). */

/* First-fit placement of request r on free state f, in node order (the
 * reservations of easy and conservative; starts go through a placer,
 * policies/placement.h). A GPU gang takes the first nodes of the (GPU
 * model, plane) group of the lowest-numbered fitting node whose group has
 * enough; a time-sliced share takes, on a scratch state, an idle card of
 * f's gpu_free first, else a live card with room (cluster_share_fits); a
 * MIG request the first card cluster_mig_pick accepts. Fills out[] (room
 * for cl->nnodes parts) and returns the part count, or 0 when it does not
 * fit. */
int place_first_fit(const struct cluster *cl, const struct nodefree *f,
                    const struct job_req *r, struct alloc_part *out);
/* place_first_fit with cluster_node_fits_ex's `how`: FIT_ANY_STATE places
 * on f as if every node were in service and unblocked (can r ever fit f,
 * whatever the nodes' state now?). */
int place_first_fit_ex(const struct cluster *cl, const struct nodefree *f,
                       const struct job_req *r, struct alloc_part *out, unsigned how);
/* place_first_fit of a gang of whole-node parts (r->nodes > 0, not a
 * share, and no GPUs when r->nodes > 1), where node i's free state is
 * f[of[i]]: nodes in equal states share one (conservative's node groups). */
int place_first_fit_of(const struct cluster *cl, const struct nodefree *f, const int32_t *of,
                       const struct job_req *r, struct alloc_part *out);
/* Fills one node's part of request r on `node` (nf: that node's free
 * state): `cores` cores (a gang: r->cores) with their memory, the cards in
 * `gpus`, the NUMA split (cluster_numa_split), milli = r->gpu_milli for a
 * time-sliced share, and mig_prof / mig_start for a MIG instance (-1 when
 * not MIG). 0, or -1 when the cores cannot be split over the node's NUMA
 * domains. */
int place_part(const struct cluster *cl, const struct nodefree *nf, int node,
               const struct job_req *r, int32_t cores, uint64_t gpus, int mig_prof,
               int mig_start, struct alloc_part *out);
/* Cores a spread request (nodes == 0) may take on a node with free state
 * nf: free cores, limited by memory per core and, when NUMA-local, by the
 * largest free domain. */
int32_t place_spread_cores(const struct cluster *cl, const struct nodefree *nf, int node,
                           const struct job_req *r, int32_t want);
/* (GPU model, plane) group of node i, numbered 0 .. (ngpus+1)(nplanes+1)-1;
 * a CPU node's model counts as -1. */
static inline int32_t place_group(const struct cluster *cl, int node)
{
	const struct node *n = &cl->nodes[node];
	return (n->gpu_model + 1) * (cl->nplanes + 1) + (n->plane + 1);
}
/* Cheap necessary condition on aggregate free cores/GPUs (free_gpus counts
 * whole idle cards: a share or MIG instance needs none of them). */
static inline int place_aggregate_ok(const struct cluster *cl, int64_t free_cores,
                                     int64_t free_gpus, const struct job_req *r)
{
	(void)cl;
	return job_req_cores(r) <= free_cores && (job_req_shared(r) ? 0 : job_req_gpus(r)) <= free_gpus;
}
/* The n lowest set bits of free_mask (a node's lowest free GPUs). */
uint64_t place_pick_gpus(uint64_t free_mask, int n);
/* The extra free state of one node around a reservation (EASY's
 * X = min(F, S − R)): what is free now (f) and also at the shadow time
 * (s) once the head's reserved part (r) is taken, per NUMA domain, cores,
 * memory; GPUs free now and not reserved. Never negative. */
void nodefree_extra(const struct nodefree *f, const struct nodefree *s, const struct alloc_part *r,
                    struct nodefree *x);
/* Sorts running job ids by expected end (walltime estimate), ties by id. */
void sort_by_expected_end(const struct job *jobs, int32_t *ids, int32_t n);

#endif
