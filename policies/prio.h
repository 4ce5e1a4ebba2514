/* prio — job priority as Slurm admins know it: decayed fair-share usage
 * per tenant and project, the classic fair-share factor F = 2^(−U/S),
 * Slurm's Fair Tree ordering over tenant → project, and the multifactor
 * priority Σ weight_i · factor_i (docs/policies.md "Priority").
 *
 * A building block the queue disciplines share (multifactor, fairshare,
 * tiered): pure — state is what the caller's hooks feed it from the view —
 * and allocation-free after prio_init.
 *
 * Usage is counted in billing units: GPU-seconds weighted by the GPU
 * model's billing weight (org.gpu_weight) plus core-seconds × core_weight,
 * accrued from the running jobs at each pass and decayed exponentially
 * with the org's half-life. */
#ifndef HL_PRIO_H
#define HL_PRIO_H

#include <stdbool.h>
#include <stddef.h>
#include "policies/policy.h"
#include "sim/org.h"

/* Multifactor weights (Slurm PriorityWeight*), and the knobs of the factors. */
struct prio_weights {
	double age, fairshare, jobsize, qos, partition, nice;
	simtime max_age_us;          /* the age factor saturates here (PriorityMaxAge, default 7 days) */
	bool fair_tree;              /* fair-share factor by Fair Tree rank instead of 2^(−U/S) */
	bool favor_small;            /* job size factor: small jobs high (PriorityFavorSmall) */
	double qos_by_class[JOB_NCLASS];        /* QOS factor in [0,1] per class */
	double partition_by_class[JOB_NCLASS];  /* partition factor in [0,1] per class */
};

struct prio;

/* Allocates the state for env's cluster and org (env->org may be NULL:
 * every job is its own tenant's with one share). 0, or -1 with err. */
int prio_init(struct prio **pp, const struct policy_env *env, const struct prio_weights *w,
              char *err, size_t errlen);
void prio_fini(struct prio *p);

/* Brings usage up to v->now: decays it and adds what the running jobs
 * used since the last call. Call once at the top of each pass. */
void prio_update(struct prio *p, const struct view *v);

/* Decayed usage of a tenant / of a tenant's project, in billing units. */
double prio_usage_tenant(const struct prio *p, int32_t tenant);
double prio_usage_project(const struct prio *p, int32_t tenant, int32_t project);

/* Fair-share factor of job j in [0, 1]: classic 2^(−U/S) of its tenant
 * (U its usage share, S its normalised shares), times the project's within
 * the tenant; or with fair_tree, 1 − (rank − 1) / n over the Fair Tree
 * order of all users (tenant, project) with jobs. */
double prio_fairshare(const struct prio *p, const struct view *v, const struct job *j);

/* The multifactor priority of pending job j now (higher first). */
double prio_priority(const struct prio *p, const struct view *v, const struct job *j);

/* Sorts ids (pending job ids) by priority, highest first; ties by submit
 * time, then id. Uses scratch sized at init. */
void prio_sort(struct prio *p, const struct view *v, int32_t *ids, int32_t n);

/* Billing units job j uses per second where it runs now (0 if not running). */
double prio_job_rate(const struct prio *p, const struct view *v, const struct job *j);

/* Call after decide_start succeeded for job: its run is charged from now
 * on, so that a job that ends before the next prio_update is charged too
 * (prio_update finds running jobs it was not told of, but not those that
 * started and ended in between). */
void prio_started(struct prio *p, const struct view *v, int32_t job);

/* Incremental order, for a pass that looks at only the first jobs of a
 * long queue: prio_order_start keys ids (as prio_sort orders them) into a
 * heap, O(n); each prio_order_next returns the next id in that order,
 * O(log n), or -1 when none is left. Shares prio_sort's scratch: a
 * prio_sort in between ends the order. */
/* Finished jobs leave the engine's table (policy_ops.renumber): the same
 * for what prio keeps by job id. 0. */
int prio_renumber(struct prio *p, const struct view *v, const int32_t *map, int32_t nold, int32_t nnew);

/* Snapshots (policy_ops.save / load): usage, tenants and leaves, the runs
 * being charged, the per-job leaves and run places (of v's jobs). load
 * into a state prio_init made for the same scenario: 0, or -1 with r
 * marked bad. */
void prio_save(const struct prio *p, const struct view *v, struct snapw *w);
int prio_load(struct prio *p, const struct view *v, struct snapr *r);

void prio_order_start(struct prio *p, const struct view *v, const int32_t *ids, int32_t n);
int32_t prio_order_next(struct prio *p);

#endif
