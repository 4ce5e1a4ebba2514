/* engine_jobs — the job lifecycle after the start decision: a job's
 * usage segments, its end (sim_job_end: the allocation goes back after the
 * recorder has seen it), a requeue with the work its checkpoint saved, a
 * node drained empty or leaving, a job rejected or cancelled before it ran,
 * the submit of one job, and the policy's preempt, hold and release
 * decisions (with the tenant approvals that release held jobs).
 * Calls engine_power.c, engine_speed.c and engine_core.c. */
#include "sim/engine.h"
#include "sim/check.h"
#include "sim/engine_int.h"
#include "sim/fault.h"
#include "sim/power.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* GPUs a running job holds in card equivalents: its request's whole cards,
 * or the fraction of one card its share or MIG instance is. */
static double job_gpu_eq(const struct sim *s, const struct job *j)
{
	if (j->req.gpus == 0 || j->nparts == 0)
		return 0;
	if (job_req_shared(&j->req))
		return eng_part_gpu_eq(&s->cl, &s->cl.pool.p[j->parts]);
	return (double)job_req_gpus(&j->req);
}

/* Adds the run segment that ends now to the job's usage. The allocation
 * always matches the request, so the request gives the totals. */
static void account_segment(struct sim *s, struct job *j)
{
	if (j->start_us < 0 || j->nparts == 0)
		return;
	simtime from = j->start_us, end = s->now;
	if (!live_account_span(s, j, &from, &end))
		return;   /* live: an attempt the executor never saw run used nothing */
	double secs = simtime_to_s(end - from);
	j->gpu_s += job_gpu_eq(s, j) * secs;
	j->core_s += (double)job_req_cores(&j->req) * secs;
}

int eng_release_alloc(struct sim *s, int32_t id)
{
	struct job *j = &s->jobs[id];
	cluster_give(&s->cl, id, &j->req, &s->cl.pool.p[j->parts], j->nparts);
	eng_onnode_del(s, &s->cl.pool.p[j->parts], j->nparts, id);
	for (int i = 0; i < j->nparts; i++) {
		int32_t n = s->cl.pool.p[j->parts + (uint32_t)i].node;
		if (s->cl.svc[n] == NODE_DRAINING && !s->onnode_live) {
			/* Built now, from a running list that still holds id: take it out. */
			if (eng_onnode_build(s))
				return -1;
			eng_onnode_del(s, &s->cl.pool.p[j->parts], j->nparts, id);
		}
		if (s->cl.svc[n] == NODE_DRAINING && !eng_node_has_jobs(s, n, id)) {
			eng_health_mark(s, n);
			eng_node_emptied(s, n);
		}
	}
	if (s->cl.pw)
		eng_pw_parts_changed(s, &s->cl.pool.p[j->parts], j->nparts);
	s->alloc_epoch++;
	s->run[id].rate = 0;
	if (eng_retime_neighbours(s, id, &s->cl.pool.p[j->parts], j->nparts, -(double)j->req.io_mbps))
		return -1;
	partpool_put(&s->cl.pool, j->parts, j->nparts);
	j->nparts = 0;
	int32_t k = j->run_idx;
	int32_t last = s->running[--s->nrunning];
	s->running[k] = last;
	s->jobs[last].run_idx = k;
	j->run_idx = -1;
	s->dirty = true;
	return 0;
}

int sim_job_end(struct sim *s, int32_t id, enum job_state st)
{
	struct job *j = &s->jobs[id];
	if (j->state != JOB_RUNNING && j->state != JOB_CHECKPOINTING)
		return eng_fail(s, "job %d ends in state %s at t=%lld us", id,
		                job_state_name((enum job_state)j->state), (long long)s->now);
	eng_advance(s, id);
	eng_job_energy_advance(s, id);
	if (job_set_state(j, st))
		return eng_fail(s, "job %d: illegal transition to %s", id, job_state_name(st));
	j->end_us = live_end_time(s, j);
	j->ver++;
	j->signalled_us = -1;
	s->run[id].stop_at = -1;
	account_segment(s, j);
	if (st == JOB_FAILED && s->cl.health)
		for (int i = 0; i < j->nparts; i++) {
			struct node_health *h = &s->cl.health[s->cl.pool.p[j->parts + (uint32_t)i].node];
			h->job_fail_at[h->job_fails++ % HEALTH_RING] = s->now;
			eng_health_mark(s, s->cl.pool.p[j->parts + (uint32_t)i].node);
		}
	eng_rec_event(s, REC_END, id, j->nparts ? s->cl.pool.p[j->parts].node : -1, st,
	              j->reason != END_NONE ? end_reason_name((enum end_reason)j->reason) : NULL);
	if (s->rec.job_end)
		s->rec.job_end(s->rec.ctx, s, j);
	if (eng_release_alloc(s, id))
		return -1;
	s->nfinished++;
	eng_finish_hook(s, id);
	return 0;
}

/* Stops running job id and requeues it with the work its checkpoint
 * saved; why (NULL: a preemption) goes into the event's detail. */
int eng_requeue_job(struct sim *s, int32_t id, const char *why)
{
	struct job *j = &s->jobs[id];
	struct jobrun *r = &s->run[id];
	double every, cost;
	if (s->live) {
		/* Live: the job saved what its own checkpoint saved; we cannot
		 * know how much work that was. */
		account_segment(s, j);
		r->stop_at = -1;
		j->signalled_us = -1;
		j->ver++;
		int node = j->nparts ? s->cl.pool.p[j->parts].node : -1;
		if (eng_release_alloc(s, id))
			return -1;
		HL_VERIFY(job_set_state(j, JOB_PREEMPTED) == 0);
		HL_VERIFY(job_set_state(j, JOB_PENDING) == 0);
		eng_rec_event(s, REC_REQUEUE, id, node, JOB_PENDING, why ? why : "requeued after its grace");
		eng_pending_insert(s, id);
		return 0;
	}
	eng_ckpt_of(s, j, &every, &cost);
	eng_advance(s, id);
	eng_job_energy_advance(s, id);
	double total = s->truth[id].run_us < 1 ? 1.0 : (double)s->truth[id].run_us;
	double done = total - r->work_us;
	double saved = r->saved_us;
	if (r->ckpt_on_signal)
		saved = done;                               /* the checkpoint written on the signal */
	else if (every > 0 && floor(done / every) * every > saved)
		saved = floor(done / every) * every;        /* the last periodic checkpoint */
	double lost = done > saved ? done - saved : 0;
	if (lost > 0 && r->dev_rate > 0)
		j->lost_gpu_s += lost / r->dev_rate / 1e6 * job_gpu_eq(s, j);
	account_segment(s, j);
	r->saved_us = saved;
	r->stop_at = -1;
	r->ckpt_on_signal = false;
	j->signalled_us = -1;
	j->ver++;
	char detail[160];
	snprintf(detail, sizeof detail, "%s%slost %.1f s of work, resumes at %.1f of %.1f s",
	         why ? why : "", why ? ": " : "", lost / 1e6, saved / 1e6, total / 1e6);
	int node = j->nparts ? s->cl.pool.p[j->parts].node : -1;
	if (eng_release_alloc(s, id))
		return -1;
	HL_VERIFY(job_set_state(j, JOB_PREEMPTED) == 0);
	HL_VERIFY(job_set_state(j, JOB_PENDING) == 0);
	eng_rec_event(s, REC_REQUEUE, id, node, JOB_PENDING, detail);
	eng_pending_insert(s, id);
	return 0;
}

/* Adds (present = true) or removes a node's capacity from the totals. */
void eng_node_presence(struct sim *s, int32_t node, bool present)
{
	struct cluster *cl = &s->cl;
	int64_t sign = present ? 1 : -1;
	cl->total_cores += sign * cl->nodes[node].cores;
	cl->free_cores += sign * cl->free[node].cores;
	cl->total_gpus += sign * cl->nodes[node].ngpus;
	cl->free_gpus += sign * cl->free[node].gpus;
}

void eng_node_emptied(struct sim *s, int32_t node)
{
	struct node_health *h = s->cl.health ? &s->cl.health[node] : NULL;
	if (h && strcmp(h->drain_reason, "leave") == 0) {
		cluster_set_svc(&s->cl, node, NODE_ABSENT);
		eng_node_presence(s, node, false);
		if (s->cl.pw)
			eng_pw_node_changed(s, node);
		eng_rec_event(s, REC_LEAVE, -1, node, 0, NULL);
		return;
	}
	cluster_set_svc(&s->cl, node, NODE_DRAINED);
}

int decide_preempt(struct decide *d, int32_t id, const char *reason)
{
	return decide_preempt_ex(d, id, reason, -1, false);
}

int decide_preempt_ex(struct decide *d, int32_t id, const char *reason, simtime grace_us, bool cancel)
{
	struct sim *s = d->s;
	if (s->failed)
		return -1;
	if (id < 0 || id >= s->njobs || s->jobs[id].state != JOB_RUNNING)
		return eng_fail(s, "policy '%s' made an invalid decision at t=%.6f s: preemption of job %d, which is not running%s",
		                s->sched.name ? s->sched.name : "?", simtime_to_s(s->now), id,
		                id >= 0 && id < s->njobs && s->jobs[id].state == JOB_CHECKPOINTING ? " (already signalled)" : "");
	struct job *j = &s->jobs[id];
	struct jobrun *r = &s->run[id];
	struct ckpt_cfg cc_own = s->cfg.ckpt[j->cls];
	if (grace_us >= 0)
		cc_own.grace_us = grace_us;
	const struct ckpt_cfg *cc = &cc_own;
	double every, cost;
	eng_ckpt_of(s, j, &every, &cost);
	eng_advance(s, id);
	HL_VERIFY(job_set_state(j, JOB_CHECKPOINTING) == 0);
	r->cancel_on_stop = cancel;
	j->signalled_us = s->now;
	j->preemptions++;
	eng_rec_event(s, REC_PREEMPT, id, j->nparts ? s->cl.pool.p[j->parts].node : -1, JOB_CHECKPOINTING, reason);
	simtime after;
	if (live_preempt_signal(s, id)) {
		/* Live: the job is told to checkpoint; it is stopped at the end
		 * of its grace unless it exits first (SIM_EV_XEND requeues it
		 * then). */
		after = cc->grace_us;
	} else if (!cancel && every > 0 && cc->grace_us >= cc->cost_us && r->rate > 0) {
		/* Time to write a checkpoint on the signal: nothing is lost; it
		 * stops once written. */
		r->ckpt_on_signal = true;
		r->rate = 0;
		j->ckpt_s += simtime_to_s(cc->cost_us);
		j->ver++;   /* no progress now: its end event is void */
		after = cc->cost_us;
	} else {
		/* It runs on until the kill; what it did since its last
		 * checkpoint is lost (it may still finish in time). */
		after = cc->grace_us;
	}
	r->stop_at = s->now + (after < 1 ? 1 : after);
	s->alloc_epoch++;   /* what a policy computed about the future changed */
	return sim_push(s, r->stop_at, SIM_EV_STOP, id, 0, 0);
}

/* Ends job id, which never ran, as killed for `why` now. */
void eng_end_unstarted(struct sim *s, int32_t id, enum end_reason why, const char *detail)
{
	struct job *j = &s->jobs[id];
	HL_VERIFY(job_set_state(j, JOB_KILLED) == 0);
	j->reason = (uint8_t)why;
	j->end_us = s->now;
	eng_rec_event(s, REC_END, id, -1, JOB_KILLED, detail);
	if (s->rec.job_end)
		s->rec.job_end(s->rec.ctx, s, j);
	s->nfinished++;
}

/* Rejects at submit a job that could not run even on the empty cluster, as
 * Slurm does, so that it cannot block a queue for ever. */
void eng_submit_one(struct sim *s, int32_t id)
{
	struct job *j = &s->jobs[id];
	eng_rec_event(s, REC_SUBMIT, id, -1, JOB_PENDING, NULL);
	if (!cluster_can_ever_fit(&s->cl, &j->req)) {
		eng_end_unstarted(s, id, END_REJECTED, "request exceeds the cluster");
		s->nrejected++;
		return;
	}
	s->pending[s->npending++] = id;
	s->dirty = true;
	if (s->sched.submit) {
		struct view v;
		eng_view_fill(s, &v);
		s->sched.submit(s->sched.state, &v, id);
	}
}

static void release_one(struct sim *s, int32_t id, const char *detail)
{
	struct job *j = &s->jobs[id];
	HL_VERIFY(job_set_state(j, JOB_PENDING) == 0);
	if (j->hold_since >= 0)
		j->held_us += s->now - j->hold_since;
	j->hold_since = -1;
	eng_rec_event(s, REC_RELEASE, id, -1, JOB_PENDING, detail);
	eng_pending_insert(s, id);
}

/* Releases tenant's jobs held for quota and marks them approved. */
void eng_approve_tenant(struct sim *s, int32_t tenant, const char *detail)
{
	for (int32_t i = 0; i < s->next_submit; i++) {
		struct job *j = &s->jobs[i];
		if (j->tenant == tenant && j->state == JOB_HELD && j->hold_why == HOLD_QUOTA) {
			j->approved = 1;
			release_one(s, i, detail);
		}
	}
}

int decide_hold(struct decide *d, int32_t id, const char *reason)
{
	struct sim *s = d->s;
	if (s->failed)
		return -1;
	if (id < 0 || id >= s->njobs || s->jobs[id].state != JOB_PENDING)
		return eng_fail(s, "policy '%s' made an invalid decision at t=%.6f s: hold of job %d, which is not pending",
		                s->sched.name ? s->sched.name : "?", simtime_to_s(s->now), id);
	struct job *j = &s->jobs[id];
	HL_VERIFY(job_set_state(j, JOB_HELD) == 0);
	j->hold_since = s->now;
	j->hold_why = (uint8_t)job_hold_parse(reason);
	eng_rec_event(s, REC_HOLD, id, -1, JOB_HELD, reason);
	const struct org_tenant *t = org_tenant(s->cfg.org, j->tenant);
	if (j->hold_why == HOLD_QUOTA && t && t->auto_approve) {
		/* The pending list is being walked by the policy: the job goes
		 * back as approved and is picked up at the next pass. */
		j->approved = 1;
		HL_VERIFY(job_set_state(j, JOB_PENDING) == 0);
		j->hold_since = -1;
		eng_rec_event(s, REC_RELEASE, id, -1, JOB_PENDING, "auto-approved");
		s->dirty = true;
		sim_push(s, s->now + 1, SIM_EV_WAKE, -1, 0, 0);
	}
	return 0;
}

int decide_release(struct decide *d, int32_t id)
{
	struct sim *s = d->s;
	if (s->failed)
		return -1;
	if (id < 0 || id >= s->njobs || s->jobs[id].state != JOB_HELD)
		return eng_fail(s, "policy '%s' made an invalid decision at t=%.6f s: release of job %d, which is not held",
		                s->sched.name ? s->sched.name : "?", simtime_to_s(s->now), id);
	release_one(s, id, "released");
	eng_view_fill(s, d->v);
	return 0;
}
