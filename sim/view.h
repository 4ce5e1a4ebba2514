/* view — what a policy may read, and the one way it acts.
 *
 * A scheduling pass hands the policy a const struct view: the time, the
 * cluster's labels and free capacity, the job table, the pending queue in
 * submit order and the running list. The policy reads nothing else.
 *
 * It acts through the decision sink `struct decide`: decide_start() asks the
 * engine to start a job on an allocation. The engine validates every
 * decision at once (request satisfied, nothing over-allocated, job pending)
 * and applies it to the model, so the view the policy reads next already
 * shows the capacity taken: a policy needs no copy of the free state to
 * make several decisions in one pass. An invalid decision is a bug in the
 * policy: decide_start() returns -1 and the engine stops the run with an
 * error naming the policy; the policy should return at once.
 *
 * The pending list may hold jobs started earlier in the same pass (their
 * state is no longer JOB_PENDING); the engine compacts it after the pass. */
#ifndef HL_VIEW_H
#define HL_VIEW_H

#include "sim/cluster.h"
#include "sim/job.h"

struct view {
	simtime now;
	const struct cluster *cl;       /* labels, racks, free capacity (cl->free) */
	const struct job *jobs;         /* job table, indexed by job id */
	const int32_t *pending;         /* job ids, submit order */
	int32_t npending;
	const int32_t *running;         /* job ids, no particular order */
	int32_t nrunning;
	const struct alloc_part *parts; /* cl->pool.p: running jobs' allocations */
	uint64_t alloc_epoch;           /* changes whenever a job starts or ends: a policy may
	                                   reuse what it computed from the same epoch */
	int32_t njobs;                  /* jobs in the table (ids 0 .. njobs-1): a snapshot saves
	                                   what a policy keeps per job for those only */
};

struct decide;   /* owned by the engine */

/* Starts `job` on `parts` (copied). 0 on success, -1 on an invalid decision. */
int decide_start(struct decide *d, int32_t job, const struct alloc_part *parts, int nparts);
/* Puts a pending job on hold with a reason (recorded). The reason "quota"
 * makes it a quota hold (HOLD_QUOTA): the org's approval events release it
 * (marking it approved), at once when its tenant auto-approves. */
int decide_hold(struct decide *d, int32_t job, const char *reason);
/* Releases a held job back to pending. */
int decide_release(struct decide *d, int32_t job);
/* Preempts a running job (reason recorded): the engine signals it to
 * checkpoint (state checkpointing, job.signalled_us = now) and, after its
 * class's grace time or once its checkpoint is written, stops it, frees its
 * resources and requeues it as pending; it resumes from its last
 * checkpoint (docs/models.md "Preemption and checkpoints"). Until then its
 * resources stay taken: a policy sees the victim in state checkpointing and
 * should not preempt more for the same need. Only a running job (not one
 * already signalled) may be preempted. */
int decide_preempt(struct decide *d, int32_t job, const char *reason);
/* decide_preempt with the victim's grace given (grace_us >= 0; -1: its
 * class's) and, with cancel, the victim ended at the end of its grace
 * (killed, reason "preempted": Slurm's PreemptMode=CANCEL) instead of
 * requeued. A victim that exits by itself within its grace ends as it
 * would have. */
int decide_preempt_ex(struct decide *d, int32_t job, const char *reason, simtime grace_us, bool cancel);
/* Asks for a scheduling pass at time `at` (later than now) even if nothing
 * else happens then: for a policy waiting on time alone (an exemption or a
 * quota window running out). */
int decide_wake(struct decide *d, simtime at);
/* Drains a node (reason recorded): it finishes its running jobs, takes no
 * new ones (state draining, then drained once empty), until resumed. */
int decide_drain(struct decide *d, int32_t node, const char *reason);
/* Puts a drained or draining node back in service. */
int decide_resume(struct decide *d, int32_t node);

/* Why a pending job did not start in this pass, in words for people
 * (`hetlab why`, docs/forecast.md): a note, never a decision. Only when
 * decide_noting() is true does anyone listen (a forecast's pass); a
 * policy formats no reason otherwise. */
bool decide_noting(const struct decide *d);
void decide_note(struct decide *d, int32_t job, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Expected end of a running job from what a policy may know: its start plus
 * its walltime estimate (SIMTIME_INF when it has none). */
static inline simtime view_expected_end(const struct job *j)
{
	return j->walltime_us == SIMTIME_INF ? SIMTIME_INF : j->start_us + j->walltime_us;
}

#endif
