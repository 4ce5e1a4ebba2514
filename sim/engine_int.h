/* engine_int — what the engine's files share; not for other modules
 * (their API is engine.h).
 *
 * The engine is layered, each file calling only the files below it, so
 * that no two files call each other:
 *
 *     engine_detach.c a live run made a simulation (forecasts; nothing
 *                     in the engine calls it)
 *     engine.c        set-up, the event loop and its dispatch, the pass,
 *                     the start decision, arrivals, sampling
 *     engine_live.c   live mode's inputs from the world (live_*)
 *     exec_sim.c      the simulated executor
 *     engine_fault.c  faults, repairs, joins and leaves; drain and resume
 *     engine_jobs.c   a job's end, requeue, rejection; preempt, hold, release
 *     engine_power.c  power, thermal and energy accounting
 *     engine_speed.c  a running job's speed, progress and end event
 *     engine_compact.c  ended jobs leave the tables (sim_compact)
 *     live_core.c     live mode's per-attempt bookkeeping, accounting and
 *                     executor calls (the live seam's lower half)
 *     engine_core.c   the run's error, event push, recorder names, the
 *                     per-node job index, the health log, pending insert
 *
 * Small helpers on the per-event path are static inline here, so that the
 * split into files added no call to that path. */
#ifndef HL_ENGINE_INT_H
#define HL_ENGINE_INT_H

#include <stdlib.h>

#include "sim/engine.h"

/* What a policy's decisions act on: the run, and the pass's view, kept
 * current as decisions apply. */
struct decide {
	struct sim *s;
	struct view *v;
};
/* ---- engine_core.c ---- */

/* Records the run's error (the first one wins) and fails it; returns -1. */
int eng_fail(struct sim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline void eng_rec_event(struct sim *s, enum rec_kind k, int32_t job, int32_t node, int state,
                                 const char *detail)
{
	if (s->rec.event)
		s->rec.event(s->rec.ctx, s->now, k, job, node, state, detail);
}

static inline void eng_view_fill(const struct sim *s, struct view *v)
{
	v->now = s->now;
	v->cl = &s->cl;
	v->jobs = s->jobs;
	v->pending = s->pending;
	v->npending = s->npending;
	v->running = s->running;
	v->nrunning = s->nrunning;
	v->parts = s->cl.pool.p;
	v->alloc_epoch = s->alloc_epoch;
	v->njobs = s->njobs;
}

/* The policy's finish hook for job id, if it has one. */
void eng_finish_hook(struct sim *s, int32_t id);
/* Puts job id into the pending list at its place by submit time (the list
 * is in submit order; a requeued or released job keeps its submit time). */
void eng_pending_insert(struct sim *s, int32_t id);
/* The health monitor looks again at `node` at the next pass (its record
 * or service state changed); at every node when the log cannot grow. */
void eng_health_mark(struct sim *s, int32_t node);
/* GPUs a part holds in card equivalents: a share its milli, a MIG
 * instance its compute slices over the card's. */
double eng_part_gpu_eq(const struct cluster *cl, const struct alloc_part *p);

/* The running jobs with a part on a node, in no order: what a node's
 * event (a fault, a power limit, a drain) acts on, without a scan of every
 * running job. A job has at most one part per node. */
struct nodejobs {
	int32_t *id;
	int32_t n, cap;
};

/* Fills onnode from the running list and keeps it from then on; -1 when
 * memory runs out (the run failed). */
int eng_onnode_build(struct sim *s);

/* Can onnode wait until something reads it? A plain simulation (no power
 * model, faults, health monitor or live mode) reads it only when a node
 * drains, which such a run never does: its jobs' starts and ends then
 * skip a step per node of their allocation. */
static inline bool eng_onnode_lazy(const struct sim *s)
{
	return !s->cl.pw && !s->cl.health && !s->cfg.fault && !s->health.check && !s->live;
}

static inline int eng_onnode_add(struct sim *s, const struct alloc_part *parts, int nparts, int32_t id)
{
	if (!s->onnode_live) {
		if (eng_onnode_lazy(s))
			return 0;
		if (eng_onnode_build(s))   /* id is not on the running list yet */
			return -1;
	}
	for (int i = 0; i < nparts; i++) {
		struct nodejobs *o = &s->onnode[parts[i].node];
		if (o->n == o->cap) {
			int32_t cap = o->cap ? 2 * o->cap : 4;
			int32_t *ids = realloc(o->id, (size_t)cap * sizeof *ids);
			if (!ids)
				return -1;
			o->id = ids;
			o->cap = cap;
		}
		o->id[o->n++] = id;
	}
	return 0;
}

static inline void eng_onnode_del(struct sim *s, const struct alloc_part *parts, int nparts, int32_t id)
{
	if (!s->onnode_live)
		return;
	for (int i = 0; i < nparts; i++) {
		struct nodejobs *o = &s->onnode[parts[i].node];
		for (int32_t k = 0; k < o->n; k++)
			if (o->id[k] == id) {
				o->id[k] = o->id[--o->n];
				break;
			}
	}
}

/* Does any running job but `except` hold a part on node? */
static inline bool eng_node_has_jobs(struct sim *s, int32_t node, int32_t except)
{
	if (!s->onnode_live && eng_onnode_build(s))
		return true;
	const struct nodejobs *o = &s->onnode[node];
	for (int32_t k = 0; k < o->n; k++)
		if (o->id[k] != except)
			return true;
	return false;
}


/* The running jobs on `node`, in running-list order (as a walk of the
 * running list meets them), into s->onbuf; their number, -1 when memory
 * runs out. */
int32_t eng_onnode_sorted(struct sim *s, int32_t node);

/* ---- engine_speed.c (and sim_job_speed, sim_job_begin, sim_job_retime
 * in engine.h) ---- */

/* The job's checkpoint interval (reference work) and cost (wall time). */
static inline void eng_ckpt_of(const struct sim *s, const struct job *j, double *every, double *cost)
{
	*every = (double)j->ckpt_every_us;
	*cost = (double)s->cfg.ckpt[j->cls].cost_us;
}

/* Brings job id's progress (and checkpoint time) up to now. */
static inline void eng_advance(struct sim *s, int32_t id)
{
	struct jobrun *r = &s->run[id];
	if (r->rate <= 0 || s->now <= r->since)
		return;
	double dt = (double)(s->now - r->since);
	r->work_us -= dt * r->rate;
	if (r->work_us < 0)
		r->work_us = 0;
	s->jobs[id].ckpt_s += dt / 1e6 * r->ckfrac;
	r->since = s->now;
}

/* After job `id` started or ended with `parts`: re-times the jobs whose
 * speed may have changed (those time-sharing its cards, those on its
 * storage pool when it is or was oversubscribed); io_delta is the change
 * of the pool's reservation. */
int eng_retime_neighbours(struct sim *s, int32_t id, const struct alloc_part *parts, int nparts,
                          double io_delta);

/* ---- engine_power.c ---- */

/* The active power of running job id: its cards' share of their power
 * above idle at their limit, and its cores' share of the sockets'. */
double eng_job_active_w(const struct sim *s, const struct job *j);
/* Integrates job id's energy and its cost up to now. */
void eng_job_energy_advance(struct sim *s, int32_t id);
/* Node `node`'s allocation or limit changed: integrate up to now at the
 * old power, then take the new one (for each part's node: _parts_). */
void eng_pw_node_changed(struct sim *s, int32_t node);
void eng_pw_parts_changed(struct sim *s, const struct alloc_part *parts, int n);
/* The events: a node reached a temperature threshold; a rack's capping
 * controller acts; an environment event of the scenario. */
void eng_pw_thermal(struct sim *s, int32_t node);
void eng_pw_cap(struct sim *s, int32_t rack);
void eng_pw_env(struct sim *s, const struct env_event *e);
/* Brings every integral up to the end of the run. */
void eng_pw_finish(struct sim *s);

/* ---- engine_jobs.c (and sim_job_end in engine.h) ---- */

/* Gives running job id's allocation back and takes it off the running
 * list. */
int eng_release_alloc(struct sim *s, int32_t id);
/* Stops running job id and requeues it with the work its checkpoint saved
 * (live: with what its own checkpoint saved); why goes into the event's
 * detail (NULL: a preemption). */
int eng_requeue_job(struct sim *s, int32_t id, const char *why);
/* Adds (present = true) or removes a node's capacity from the totals. */
void eng_node_presence(struct sim *s, int32_t node, bool present);
/* A draining node's last job ended: it is drained, or gone when leaving. */
void eng_node_emptied(struct sim *s, int32_t node);
/* Ends job id, which never ran, as killed for `why` now. */
void eng_end_unstarted(struct sim *s, int32_t id, enum end_reason why, const char *detail);
/* Submits job id (or rejects it when it could never fit). */
void eng_submit_one(struct sim *s, int32_t id);
/* Releases tenant's jobs held for quota and marks them approved. */
void eng_approve_tenant(struct sim *s, int32_t tenant, const char *detail);

/* ---- engine_fault.c ---- */

struct fault_event;
/* A fault of `kind` hits node (GPU gpu) now; repaired after repair_s. */
int eng_apply_fault(struct sim *s, int32_t node, int kind, int gpu, double value, double repair_s);
int eng_repair(struct sim *s, int32_t node, int kind, int gpu);
/* An injected fault, join or leave of the scenario. */
int eng_fault_event(struct sim *s, const struct fault_event *e);
/* Sets up the failure processes, injected events and absent nodes. */
int eng_faults_init(struct sim *s);

/* ---- probe_sim.c ---- */

/* A node's modelled reading (docs/models.md): its power, temperature and
 * allocated share. */
struct probe_node {
	double power_w;
	double temp_c;
	double util;            /* allocated fraction of the node's cores/GPUs */
};
void eng_probe_model(const struct sim *s, int32_t node, struct probe_node *out);
/* Its power_w alone (what a sample sums): the same value, without the
 * temperature and utilisation. */
double eng_probe_power(const struct sim *s, int32_t node);

/* ---- the live seam (sim/live.h) ----
 *
 * The only calls by which the rest of the engine reaches live mode; each
 * does nothing (or the simulation's answer) when s->live is NULL. The
 * engine's other files never read struct sim_live. engine_live.c handles
 * the injected inputs (above the other files); live_core.c holds what the
 * lower files call (it calls only engine_core.c). */

/* engine_live.c: room for `need` jobs in every per-job table (the
 * engine's and the live seam's). 0, or -1 on ENOMEM. */
int live_grow_jobs(struct sim *s, int32_t need);
/* engine_live.c: live mode's events (SIM_EV_X*, SIM_EV_CANCEL,
 * SIM_EV_PROBE, SIM_EV_FOREIGN). false when e is not one of them. */
bool live_handle(struct sim *s, const struct ev *e);
/* engine_live.c: stops running job id for `why` (cancelled, walltime, a
 * preempted job's cancel): at once in simulation and with the local
 * executor; with an asynchronous one (Slurm) the executor is asked, and
 * the job ends, still holding its resources until then, when the executor
 * says it has. */
void live_kill(struct sim *s, int32_t id, enum end_reason why);

/* live_core.c. Frees s->live. */
void live_fini(struct sim *s);
/* Ended jobs left the tables (sim_compact): the per-job bookkeeping moves,
 * job old to map[old] (-1: it left), for old < n. */
void live_renumber(struct sim *s, const int32_t *map, int32_t n);
/* A snapshot (sim/engine_snap.c) of the seam's state: per job, per node,
 * the injected inputs not yet handled. load: into a live run with room
 * for s->njobs jobs; 0, or -1 with r marked bad. */
struct snapw;
struct snapr;
void live_snap_save(const struct sim *s, struct snapw *w);
/* The layout of what it saves as it lies in memory (a hash of sizes). */
uint64_t live_snap_layout(void);
int live_snap_load(struct sim *s, struct snapr *r);
/* A start decision: the attempt's live bookkeeping (before the executor's
 * start), then its walltime kill (after it). */
void live_started(struct sim *s, int32_t id, simtime prev_start);
int live_launched(struct sim *s, int32_t id);
/* Tells the executor to stop job id (its failure is not the run's: the
 * job may already be gone). */
void live_exec_stop(struct sim *s, int32_t id, enum exec_stop how);
/* A node drained (with the reason) or resumed: the executor is told. */
void live_node_state(struct sim *s, int32_t node, bool drain, const char *reason);
/* Whether a node seen down leaves its jobs to the executor (Slurm). */
bool live_exec_fates(const struct sim *s);
/* Whether the policy may decide in this pass: false while the executor
 * cannot read the world (sim_inject_blind); true in simulation. */
bool live_may_decide(const struct sim *s);
/* A preemption's checkpoint signal goes to the job (the executor's
 * signal): false in simulation, where the checkpoint is modelled. */
bool live_preempt_signal(struct sim *s, int32_t id);
/* The run segment of job j to account, [*from, *end) (the start decision
 * and now in simulation; live: the executor's start and the end it
 * reported). false: nothing to account (an attempt never seen running). */
bool live_account_span(const struct sim *s, const struct job *j, simtime *from, simtime *end);
/* The end time of job j ending now: now, or the end the executor reported. */
simtime live_end_time(const struct sim *s, const struct job *j);
/* A sample's IT power in live mode: each node's reading, else its model;
 * rack_w filled. false in simulation. */
bool live_sample_power(struct sim *s, double *power_w);

#endif
