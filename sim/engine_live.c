/* engine_live — live mode's side of the engine (sim/live.h): jobs that
 * arrive while it runs (sim_add_job) and what the world did, injected as
 * events: exits, cancels, approvals, readings, and what the executor saw of
 * each start (it runs; it never started; the executor requeued it; jobs
 * not the engine's hold part of a node). In live mode an attempt counts
 * usage only from the moment the executor saw it run, and up to the end
 * the executor reports, so that what hetlab accounts is what the cluster
 * ran. The seam's lower half is live_core.c. */
#include "sim/engine.h"
#include "sim/check.h"
#include "sim/engine_int.h"
#include "sim/fault.h"
#include "sim/live.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void killed(struct sim *s, struct job *j, enum job_state st);

/* ---- live mode: jobs that arrive, and what the world did ---- */

int live_grow_jobs(struct sim *s, int32_t need)
{
	if (need <= s->cap_jobs)
		return 0;
	int32_t cap = s->cap_jobs > 32 ? s->cap_jobs : 32;
	while (cap < need)
		cap *= 2;
	struct job *jobs = realloc(s->jobs, (size_t)cap * sizeof *jobs);
	if (jobs)
		s->jobs = jobs;
	struct job_truth *truth = realloc(s->truth, (size_t)cap * sizeof *truth);
	if (truth)
		s->truth = truth;
	struct jobrun *run = realloc(s->run, (size_t)cap * sizeof *run);
	if (run)
		s->run = run;
	struct live_run *lrun = realloc(s->live->run, (size_t)cap * sizeof *lrun);
	if (lrun)
		s->live->run = lrun;
	int32_t *pend = realloc(s->pending, (size_t)cap * sizeof *pend);
	if (pend)
		s->pending = pend;
	int32_t *runl = realloc(s->running, (size_t)cap * sizeof *runl);
	if (runl)
		s->running = runl;
	if (!jobs || !truth || !run || !lrun || !pend || !runl)
		return -1;
	s->cap_jobs = s->cap_pending = cap;
	return 0;
}

int32_t sim_add_job(struct sim *s, const struct job *j, const struct job_truth *t)
{
	int32_t id = s->njobs;
	if (live_grow_jobs(s, id + 2))
		return -1;
	struct job *nj = &s->jobs[id];
	*nj = *j;
	s->truth[id] = t ? *t : (struct job_truth){ 0 };
	nj->id = id;
	nj->num = s->ngone + id;
	nj->run_idx = -1;
	nj->req.cls = nj->cls;
	if (nj->submit_us < s->now)
		nj->submit_us = s->now;
	if (id > 0 && nj->submit_us < s->jobs[id - 1].submit_us)
		nj->submit_us = s->jobs[id - 1].submit_us;
	if (nj->ckpt_every_us == 0 && nj->cls < JOB_NCLASS)
		nj->ckpt_every_us = s->cfg.ckpt[nj->cls].every_us;
	s->run[id] = (struct jobrun){ .stop_at = -1 };
	s->live->run[id] = (struct live_run){ 0 };
	s->njobs++;
	/* The submit chain (handle_submit) picks it up; start it when idle. */
	if (s->next_submit == id && sim_push(s, nj->submit_us, SIM_EV_SUBMIT, id, 0, 0))
		return -1;
	return id;
}

int sim_inject_end(struct sim *s, simtime t, int32_t id, uint32_t attempt, enum job_state st,
                   enum end_reason reason)
{
	return sim_push(s, t, SIM_EV_XEND, id, attempt, SIM_END_ARG(st, reason));
}

int sim_inject_cancel(struct sim *s, simtime t, int32_t id)
{
	return sim_push(s, t, SIM_EV_CANCEL, id, 0, 0);
}

int sim_inject_approve(struct sim *s, simtime t, int32_t tenant)
{
	return sim_push(s, t, SIM_EV_XAPPROVE, tenant, 0, 0);
}

int sim_inject_reading(struct sim *s, simtime t, int32_t node, const struct sim_reading *r)
{
	if (node < 0 || node >= s->cl.nnodes)
		return 0;
	if (s->live->ninj == s->live->capinj) {
		int32_t cap = s->live->capinj ? 2 * s->live->capinj : 64;
		struct sim_reading *n = realloc(s->live->inj, (size_t)cap * sizeof *n);
		if (!n)
			return eng_fail(s, "out of memory keeping readings");
		s->live->inj = n;
		s->live->capinj = cap;
	}
	s->live->inj[s->live->ninj] = *r;
	return sim_push(s, t, SIM_EV_PROBE, node, 0, s->live->ninj++);
}


/* Live: job id's attempt exited. A job signalled for preemption that
 * exits before its grace ends has checkpointed: it is requeued. */
static void live_exited(struct sim *s, int32_t id, uint32_t attempt, enum job_state st, enum end_reason why)
{
	if (id < 0 || id >= s->njobs)
		return;
	struct job *j = &s->jobs[id];
	if ((j->state != JOB_RUNNING && j->state != JOB_CHECKPOINTING) || j->restarts != attempt)
		return;   /* stale: it ended or was requeued already */
	if (s->live->run[id].killing) {
		killed(s, j, st);
		return;
	}
	if (j->state == JOB_CHECKPOINTING) {
		live_exec_stop(s, id, EXEC_STOP_PREEMPT);
		eng_requeue_job(s, id, "exited after the preemption signal");
		return;
	}
	j->reason = (uint8_t)why;
	sim_job_end(s, id, st);
}

/* Live: an operator cancelled job id. */
static void live_cancel(struct sim *s, int32_t id)
{
	if (id < 0 || id >= s->njobs)
		return;
	/* Its submit is due at this very time (its event is queued behind
	 * ours): submit it first. The queued event still carries the chain on. */
	while (id >= s->next_submit && s->next_submit < s->njobs && s->jobs[s->next_submit].submit_us <= s->now)
		eng_submit_one(s, s->next_submit++);
	if (id >= s->next_submit)
		return;
	struct job *j = &s->jobs[id];
	switch (j->state) {
	case JOB_RUNNING:
	case JOB_CHECKPOINTING:
		live_kill(s, id, END_CANCELLED);
		return;
	case JOB_PENDING:
	case JOB_HELD:
		for (int32_t k = 0; k < s->npending; k++)
			if (s->pending[k] == id) {
				memmove(&s->pending[k], &s->pending[k + 1], (size_t)(s->npending - k - 1) * sizeof *s->pending);
				s->npending--;
				break;
			}
		if (j->hold_since >= 0)
			j->held_us += s->now - j->hold_since;
		j->hold_since = -1;
		eng_end_unstarted(s, id, END_CANCELLED, "cancelled");
		s->dirty = true;
		eng_finish_hook(s, id);
		return;
	default:
		return;
	}
}

/* Live: a node's reading. GPU errors count as a GPU falling off the bus
 * (the health monitor drains the node); a hot node is drained until it
 * cools. */
static void live_reading(struct sim *s, int32_t node, const struct sim_reading *r)
{
	if (!s->live->rd)
		return;
	s->live->rd[node] = *r;
	s->live->rd[node].at = s->now;
	struct node_health *h = s->cl.health ? &s->cl.health[node] : NULL;
	if (!h || !r->ok)
		return;
	if (r->down == 1 && s->cl.svc[node] != NODE_DOWN && s->cl.svc[node] != NODE_ABSENT) {
		/* Down until a reading says it is up again. */
		eng_apply_fault(s, node, FAULT_NODE_CRASH, -1, 0, 86400.0 * 3650);
	} else if (r->down == 0 && s->cl.svc[node] == NODE_DOWN) {
		eng_repair(s, node, FAULT_NODE_CRASH, 0);
	}
	if (r->gpu_errors > 0) {
		double rep = s->live->cfg.xid_repair_s > 0 ? s->live->cfg.xid_repair_s : 86400;
		eng_apply_fault(s, node, FAULT_GPU_XID, r->bad_gpu >= 0 ? r->bad_gpu : 0, 0, rep);
	}
	if (s->live->cfg.hot_c > 0 && isfinite(r->temp_c)) {
		char d[48];
		if (!h->hot && r->temp_c >= s->live->cfg.hot_c) {
			h->hot = true;
			h->temp_c = r->temp_c;
			snprintf(d, sizeof d, "hot %.0f C", r->temp_c);
			eng_rec_event(s, REC_FAULT, -1, node, 0, d);
			s->dirty = true;
		} else if (h->hot && r->temp_c < (s->live->cfg.cool_c > 0 ? s->live->cfg.cool_c : s->live->cfg.hot_c - 5)) {
			h->hot = false;
			snprintf(d, sizeof d, "cooled %.0f C", r->temp_c);
			eng_rec_event(s, REC_REPAIR, -1, node, 0, d);
			s->dirty = true;
		}
	}
}


/* ---- what the executor saw of a start ---- */

void live_kill(struct sim *s, int32_t id, enum end_reason why)
{
	struct job *j = &s->jobs[id];
	if (j->state != JOB_RUNNING && j->state != JOB_CHECKPOINTING)
		return;
	struct live_run *r = s->live ? &s->live->run[id] : NULL;
	if (r && r->killing)
		return;
	live_exec_stop(s, id, EXEC_STOP_KILL);
	if (!r || !s->live->cfg.async_start) {
		j->reason = (uint8_t)why;
		sim_job_end(s, id, JOB_KILLED);
		return;
	}
	r->killing = true;
	r->kill_reason = (uint8_t)why;
	s->run[id].stop_at = -1;   /* a preemption's grace no longer applies */
	j->ver++;          /* nor its walltime */
}

/* A job hetlab stopped has ended, as the executor says (st): killed for
 * the reason it was stopped for, unless it had finished first. */
static void killed(struct sim *s, struct job *j, enum job_state st)
{
	if (st == JOB_DONE) {
		j->reason = END_NONE;
		sim_job_end(s, j->id, JOB_DONE);
		return;
	}
	j->reason = s->live->run[j->id].kill_reason;
	sim_job_end(s, j->id, JOB_KILLED);
}

static int xin_add(struct sim *s, const struct sim_xin *x)
{
	if (s->live->nxin == s->live->capxin) {
		int32_t cap = s->live->capxin ? 2 * s->live->capxin : 64;
		struct sim_xin *n = realloc(s->live->xin, (size_t)cap * sizeof *n);
		if (!n)
			return -1;
		s->live->xin = n;
		s->live->capxin = cap;
	}
	s->live->xin[s->live->nxin] = *x;
	return s->live->nxin++;
}

static int push_x(struct sim *s, simtime t, uint32_t kind, int32_t id, uint32_t attempt, const struct sim_xin *x)
{
	int k = xin_add(s, x);
	if (k < 0)
		return eng_fail(s, "out of memory keeping live inputs");
	return sim_push(s, t, kind, id, attempt, k);
}

int sim_inject_running(struct sim *s, simtime t, int32_t id, uint32_t attempt, simtime started)
{
	struct sim_xin x = { .a = started, .b = -1 };
	return push_x(s, t, SIM_EV_XRUN, id, attempt, &x);
}

int sim_inject_end_at(struct sim *s, simtime t, int32_t id, uint32_t attempt, enum job_state st,
                      enum end_reason reason, simtime started, simtime ended)
{
	struct sim_xin x = { .a = started, .b = ended, .st = st, .reason = reason };
	return push_x(s, t, SIM_EV_XEND2, id, attempt, &x);
}

int sim_inject_unstart(struct sim *s, simtime t, int32_t id, uint32_t attempt, const char *why)
{
	struct sim_xin x = { .a = -1, .b = -1 };
	snprintf(x.why, sizeof x.why, "%s", why ? why : "");
	return push_x(s, t, SIM_EV_XUNSTART, id, attempt, &x);
}

int sim_inject_requeue(struct sim *s, simtime t, int32_t id, uint32_t attempt, simtime started, simtime ended,
                       const char *why)
{
	struct sim_xin x = { .a = started, .b = ended };
	snprintf(x.why, sizeof x.why, "%s", why ? why : "");
	return push_x(s, t, SIM_EV_XREQUEUE, id, attempt, &x);
}

int sim_inject_foreign(struct sim *s, simtime t, int32_t node, int32_t cores, int32_t gpus, int64_t mem_mib)
{
	struct sim_xin x = { .a = cores, .b = gpus, .mem_mib = mem_mib };
	return push_x(s, t, SIM_EV_FOREIGN, node, 0, &x);
}

int sim_inject_blind(struct sim *s, simtime t, bool blind)
{
	return sim_push(s, t, SIM_EV_XBLIND, -1, 0, blind ? 1 : 0);
}

/* The attempt of running job id, or NULL when the input is stale. */
static struct job *live_job(struct sim *s, int32_t id, uint32_t attempt)
{
	if (id < 0 || id >= s->njobs)
		return NULL;
	struct job *j = &s->jobs[id];
	if ((j->state != JOB_RUNNING && j->state != JOB_CHECKPOINTING) || j->restarts != attempt)
		return NULL;
	return j;
}

static simtime clamp(simtime t, simtime lo, simtime hi)
{
	return t < lo ? lo : t > hi ? hi : t;
}

/* The executor saw the attempt run since `started`: it accounts from
 * there, and its walltime counts from there. */
static void confirm(struct sim *s, struct job *j, simtime started)
{
	struct live_run *r = &s->live->run[j->id];
	if (r->confirmed)
		return;
	r->confirmed = true;
	if (started >= 0) {
		r->acct_start = clamp(started, r->floor_us, s->now);
		j->start_us = r->acct_start < j->submit_us ? j->submit_us : r->acct_start;
	}
	if (j->walltime_us != SIMTIME_INF && !s->cfg.keep_overruns) {
		j->ver++;
		simtime at = j->start_us + (j->walltime_us < 1 ? 1 : j->walltime_us);
		sim_push(s, at > s->now ? at : s->now + 1, SIM_EV_END, j->id, j->ver, SIM_END_ARG(JOB_KILLED, END_WALLTIME));
	}
}

/* Sets the end of the segment being accounted to `ended` (clamped). */
static void account_until(struct sim *s, const struct job *j, simtime ended)
{
	s->live->acct_at = ended >= 0;
	s->live->acct_end = ended >= 0 ? clamp(ended, s->live->run[j->id].acct_start, s->now) : -1;
}

/* The attempt never ran: back to pending, as if it had not been started. */
static void unstart(struct sim *s, struct job *j, const char *why)
{
	const struct live_run *r = &s->live->run[j->id];
	int node = j->nparts ? s->cl.pool.p[j->parts].node : -1;
	j->ver++;
	j->signalled_us = -1;
	s->run[j->id].stop_at = -1;
	if (eng_release_alloc(s, j->id))
		return;
	if (r->counted_restart && j->restarts > 0)
		j->restarts--;
	j->start_us = r->prev_start;
	HL_VERIFY(job_set_state(j, JOB_PREEMPTED) == 0);
	HL_VERIFY(job_set_state(j, JOB_PENDING) == 0);
	char d[160];
	snprintf(d, sizeof d, "not started by the executor%s%s", why && why[0] ? ": " : "", why ? why : "");
	eng_rec_event(s, REC_REQUEUE, j->id, node, JOB_PENDING, d);
	eng_pending_insert(s, j->id);
	s->dirty = true;
}

static void live_x(struct sim *s, const struct ev *e, const struct sim_xin *x)
{
	struct job *j = live_job(s, e->id, e->ver);
	if (!j)
		return;   /* stale: another attempt, or it ended already */
	const struct live_run *r = &s->live->run[j->id];
	switch (e->kind) {
	case SIM_EV_XRUN:
		confirm(s, j, x->a);
		break;
	case SIM_EV_XEND2:
		/* An end the executor timed (Slurm's): final even for a job
		 * signalled for preemption. Such an executor reports a checkpoint
		 * as a requeue (SIM_EV_XREQUEUE); a job that ended without one
		 * never saw the signal (or finished first): it is done, not run
		 * again. */
		if (!r->confirmed && x->a >= 0)
			confirm(s, j, x->a);
		account_until(s, j, x->b);
		if (r->killing) {
			killed(s, j, (enum job_state)x->st);
		} else {
			j->reason = (uint8_t)x->reason;
			sim_job_end(s, j->id, (enum job_state)x->st);
		}
		s->live->acct_at = false;
		break;
	case SIM_EV_XUNSTART:
		if (r->killing)
			killed(s, j, JOB_KILLED);   /* stopped before it ever ran */
		else if (!r->confirmed)
			unstart(s, j, x->why);
		break;
	case SIM_EV_XREQUEUE:
		/* A run the executor started and requeued between two of its
		 * reads: it ran (from x->a), so this is a restart, not an unstart. */
		if (!r->confirmed && !r->killing && x->a >= 0)
			confirm(s, j, x->a);
		if (r->killing) {
			account_until(s, j, x->b);
			killed(s, j, JOB_KILLED);
			s->live->acct_at = false;
		} else if (!r->confirmed) {
			unstart(s, j, x->why);
		} else {
			account_until(s, j, x->b);
			eng_requeue_job(s, j->id, x->why[0] ? x->why : "requeued by the executor");
			s->live->acct_at = false;
		}
		break;
	default:
		break;
	}
}

/* Whether node's foreign hold is less than asked. */
static bool foreign_is_short(const struct sim *s, int32_t node)
{
	const struct alloc_part *p = &s->live->foreign[node];
	const struct sim_xin *w = &s->live->foreign_want[node];
	return p->cores < w->a || hl_popcount64(p->gpus) < w->b || p->mem_mib < w->mem_mib;
}

/* What jobs not the engine's hold of a node: released, then taken again
 * as asked (at most what is free). The rest is taken as it becomes free
 * (foreign_topup): a foreign job that Slurm runs on cores the engine
 * still gave to a job of its own (placed, not yet started by Slurm)
 * otherwise stayed out of the hold after that job was taken back, and
 * the policy placed there again, and again. */
static void live_foreign(struct sim *s, int32_t node, const struct sim_xin *x)
{
	if (node < 0 || node >= s->cl.nnodes || !s->live->foreign)
		return;
	bool was_short = foreign_is_short(s, node);
	s->live->foreign_want[node] = (struct sim_xin){ .a = x->a, .b = x->b, .mem_mib = x->mem_mib };
	struct alloc_part *p = &s->live->foreign[node];
	static const struct job_req plain = { .nodes = 1 };
	if (p->cores || p->gpus || p->mem_mib)
		cluster_give(&s->cl, -1, &plain, p, 1);
	memset(p, 0, sizeof *p);
	p->node = node;
	p->mig_profile = -1;
	struct nodefree *f = &s->cl.free[node];
	const struct node *nd = &s->cl.nodes[node];
	int32_t cores = (int32_t)(x->a < f->cores ? x->a : f->cores);
	for (int d = 0; d < nd->numa && d < HL_NUMA_MAX && cores > 0; d++) {
		int take = f->numa_free[d] < cores ? f->numa_free[d] : cores;
		p->numa_cores[d] = (int16_t)take;
		p->cores += take;
		cores -= take;
	}
	if (nd->numa <= 0)
		p->cores = cores;
	p->mem_mib = x->mem_mib < f->mem_mib ? x->mem_mib : f->mem_mib;
	if (p->mem_mib < 0)
		p->mem_mib = 0;
	int want = (int)x->b;
	for (int g = nd->ngpus - 1; g >= 0 && want > 0; g--)
		if ((f->gpu_free >> g) & 1u) {
			p->gpus |= 1ull << g;
			want--;
		}
	if (p->cores || p->gpus || p->mem_mib)
		cluster_take(&s->cl, -1, &plain, p, 1);
	s->live->foreign_short += (int32_t)foreign_is_short(s, node) - (int32_t)was_short;
	s->alloc_epoch++;
	s->dirty = true;
}

/* Foreign holds short of what was asked take what has become free since
 * (a live event released it), before the next pass places anything. */
static void foreign_topup(struct sim *s)
{
	for (int32_t i = 0; i < s->cl.nnodes && s->live->foreign_short > 0; i++) {
		if (!foreign_is_short(s, i))
			continue;
		const struct alloc_part *p = &s->live->foreign[i];
		const struct nodefree *f = &s->cl.free[i];
		const struct sim_xin *w = &s->live->foreign_want[i];
		if ((p->cores < w->a && f->cores > 0) || (hl_popcount64(p->gpus) < w->b && f->gpu_free) ||
		    (p->mem_mib < w->mem_mib && f->mem_mib > 0)) {
			struct sim_xin want = *w;
			live_foreign(s, i, &want);
		}
	}
}

static bool handle_x(struct sim *s, const struct ev *e);

/* A live event may change any node's jobs, state or readings: the health
 * monitor looks at every node in the next pass (live events are few). */
bool live_handle(struct sim *s, const struct ev *e)
{
	if (!s->live)
		return e->kind >= SIM_EV_XEND;   /* a detached run (sim_live_detach) drops live inputs */
	if (!handle_x(s, e))
		return false;
	/* Only an end, a requeue, a take-back or a cancel frees capacity (a
	 * reading, a start or an approval does not): no scan for those. */
	bool frees = e->kind == SIM_EV_XEND || e->kind == SIM_EV_XEND2 || e->kind == SIM_EV_XUNSTART ||
	             e->kind == SIM_EV_XREQUEUE || e->kind == SIM_EV_CANCEL;
	if (frees && s->live->foreign_short > 0)
		foreign_topup(s);
	s->cl.hlog_all = true;
	return true;
}

static bool handle_x(struct sim *s, const struct ev *e)
{
	switch (e->kind) {
	case SIM_EV_XEND:
		live_exited(s, e->id, e->ver, (enum job_state)(e->arg & 0xff), (enum end_reason)(e->arg >> 8));
		return true;
	case SIM_EV_CANCEL:
		live_cancel(s, e->id);
		return true;
	case SIM_EV_XAPPROVE:
		eng_approve_tenant(s, e->id, "approved by an operator");
		return true;
	case SIM_EV_XBLIND:
		s->live->blind = e->arg != 0;
		s->dirty = true;   /* seeing again: a pass decides what waited */
		return true;
	case SIM_EV_PROBE:
		live_reading(s, e->id, &s->live->inj[e->arg]);
		if (++s->live->injdone == s->live->ninj)
			s->live->ninj = s->live->injdone = 0;
		return true;
	case SIM_EV_XRUN:
	case SIM_EV_XEND2:
	case SIM_EV_XUNSTART:
	case SIM_EV_XREQUEUE:
	case SIM_EV_FOREIGN:
		if (e->kind == SIM_EV_FOREIGN)
			live_foreign(s, e->id, &s->live->xin[e->arg]);
		else
			live_x(s, e, &s->live->xin[e->arg]);
		if (++s->live->xindone == s->live->nxin)
			s->live->nxin = s->live->xindone = 0;
		return true;
	default:
		return false;
	}
}
