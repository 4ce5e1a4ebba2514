/* slurm_sync — what Slurm did, read back every tick (the Slurm executor's
 * observe; docs/slurm.md). One `squeue -t all -j` of the Slurm jobs this
 * state has open (never of every job slurmctld remembers), `sinfo --json`
 * for the nodes, `sacct` for jobs slurmctld has forgotten and for the end
 * of requeued runs. What it sees becomes recorded inputs of the engine:
 *   - RUNNING: the attempt runs since Slurm's start time (its usage counts
 *     from there);
 *   - UNSTART: Slurm has not started a placed job within start_timeout_s
 *     (another job took the node, a node failed, a limit hetlab does not
 *     know), or it is held: it is held in Slurm and goes back to pending
 *     in the engine, to be placed again;
 *   - REQUEUE: Slurm requeued it by itself (a node failure under
 *     ReturnToService); held, back to pending;
 *   - END: a final state, with Slurm's exit and start/end times; a job
 *     preempted by hetlab that checkpointed and requeued itself held is
 *     "exited after the signal";
 *   - FOREIGN: what jobs not this state's hold of each node (a site's own
 *     jobs, reservations, nodes drained outside hetlab), taken out of what
 *     the policy may use.
 * Slurm jobs of this state that the engine no longer runs are held (when
 * the engine may run the job again) or cancelled. */
#include "live/exec/slurm_glue.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Requeues seen this tick, waiting for the end time of their run. */
struct rq {
	int32_t id;
	int64_t sid;
	bool ckpt;               /* the job's own, after the checkpoint signal */
	bool unseen;             /* its run was never seen running (started and
	                            requeued between two reads) */
	bool may_wait;           /* for that run's sacct record (Slurm keeps it pending) */
	char why[200];
};

struct rqs {
	struct rq *v;
	int n, cap;
};

/* How long a requeue of a run never seen running waits for slurmdbd's
 * record of that run (its start) before it is taken for no run. */
#define RQ_WAIT_S 10.0

/* A row for the engine about its job id (index), recorded by the job's
 * state id (the index may change before the row is recorded: a full
 * table makes room at a submission); data copied. */
static void row(const struct live *L, struct obs *o, enum rec_in kind, int32_t id, int32_t attempt, int64_t t1,
                int64_t t2, int st, int reason, const char *data)
{
	struct rec_row r = { .kind = kind, .job = live_sid(L, id), .node = -1, .attempt = attempt, .state = st,
	                     .reason = reason, .data = (char *)data, .t1_us = t1, .t2_us = t2 };
	obs_add(o, &r);
}

/* A final Slurm state as the end of the engine's attempt. */
static void end_row(struct live *L, struct obs *o, int32_t id, enum sx_state st, int code, int sig, int64_t start,
                    int64_t end, int64_t sid, const char *from)
{
	const struct job *j = &L->s.jobs[id];
	enum job_state js = JOB_FAILED;
	enum end_reason why = END_EXIT;
	switch (st) {
	case SX_COMPLETED: js = JOB_DONE; why = END_NONE; break;
	case SX_FAILED: js = JOB_FAILED; why = END_EXIT; break;
	case SX_CANCELLED: case SX_PREEMPTED: js = JOB_KILLED; why = END_CANCELLED; break;
	case SX_TIMEOUT: js = JOB_KILLED; why = END_WALLTIME; break;
	case SX_OOM: js = JOB_FAILED; why = END_OOM; break;
	default: js = JOB_FAILED; why = END_NODE_FAIL; break;
	}
	char msg[200];
	snprintf(msg, sizeof msg, "Slurm job %" PRId64 " %s, exit %d:%d%s%s", sid, sx_state_name(st), code, sig,
	         from ? " " : "", from ? from : "");
	live_log(L, "job %" PRId64 " (Slurm %" PRId64 "): %s%s", live_sid(L, id), sid, msg,
	         j->state == JOB_CHECKPOINTING ? " after the checkpoint signal" : "");
	row(L, o, RIN_END, id, (int32_t)j->restarts, sx_eng_time(L, start), sx_eng_time(L, end), js, why, msg);
}

/* A job hetlab signalled to checkpoint that died of that very signal
 * (Slurm had launched it a moment before: no trap was set yet) was
 * preempted, not failed: it is requeued, as a preemption is, with no
 * checkpoint taken. */
static bool died_on_ckpt(const struct live *L, int32_t id, enum sx_state st, int sig)
{
	return L->s.jobs[id].state == JOB_CHECKPOINTING && sig == L->cfg.sig && (st == SX_FAILED || st == SX_CANCELLED);
}

#define DIED_ON_CKPT "died of the checkpoint signal before it could checkpoint"

static void rq_add(struct rqs *q, int32_t id, int64_t sid, bool ckpt, bool unseen, bool may_wait, const char *why)
{
	if (q->n == q->cap) {
		int cap = q->cap ? 2 * q->cap : 16;
		struct rq *n = realloc(q->v, (size_t)cap * sizeof *n);
		if (!n)
			return;
		q->v = n;
		q->cap = cap;
	}
	struct rq *r = &q->v[q->n++];
	*r = (struct rq){ .id = id, .sid = sid, .ckpt = ckpt, .unseen = unseen, .may_wait = may_wait };
	snprintf(r->why, sizeof r->why, "%s", why);
}

/* The rows of this tick's requeues, each run ending when slurmdbd says it
 * did (the last requeued record of its Slurm job), else now. A run never
 * seen running (Slurm started and requeued it between two reads) ran from
 * that record's start: a restart, its seconds counted; without a record
 * it is taken for a start that never happened. */
static void requeue_rows(struct live *L, struct obs *o, struct rqs *q)
{
	struct sx_exec *x = L->xctx;
	if (q->n == 0)
		return;
	int64_t *sids = malloc((size_t)q->n * sizeof *sids);
	struct sx_acct *a = NULL;
	int na = 0;
	bool no_acct = false, acct = false;
	char err[600];
	double now = sx_wall();
	for (int k = 0; sids && k < q->n; k++)
		sids[k] = q->v[k].sid;
	if (sids && x->have_conf && x->conf.accounting) {
		acct = sx_acct_by_id(&x->c, sids, q->n, &a, &na, &no_acct, err, sizeof err) == 0;
		if (!acct)
			live_log(L, "reading sacct for the end of %d requeued run%s: %s (ended now, then)", q->n,
			         q->n == 1 ? "" : "s", err);
	}
	for (int k = 0; k < q->n; k++) {
		const struct rq *r = &q->v[k];
		const struct job *j = &L->s.jobs[r->id];
		struct sx_jobtrack *sj = sx_tj(L, r->id);
		int64_t end = -1, start = -1;
		for (int i = 0; i < na; i++)
			if (a[i].id == r->sid && a[i].st != SX_PENDING && a[i].st != SX_RUNNING && a[i].end_unix > end) {
				end = a[i].end_unix;
				start = a[i].start_unix;
			}
		if (r->unseen && start > 0 && start < (int64_t)sj->placed_at - 1)
			start = end = -1;   /* an earlier run's record: not this one's yet */
		if (r->unseen && r->may_wait && start <= 0 && acct && (sj->rq_wait == 0 || now - sj->rq_wait < RQ_WAIT_S)) {
			/* slurmdbd has not the run's record yet: asked again next tick. */
			if (sj->rq_wait == 0)
				sj->rq_wait = now;
			sj->phase = SX_PH_PLACED;
			continue;
		}
		sj->rq_wait = 0;
		if (r->unseen && start > 0)
			live_log(L, "job %" PRId64 " (Slurm %" PRId64 "): its run from %" PRId64 " to %" PRId64
			         " (sacct) was never seen running: counted", live_sid(L, r->id), r->sid, start, end);
		/* The wrapper's requeue after the checkpoint signal is a requeue
		 * too: an end row would be final (a job that ended without
		 * requeuing itself never saw the signal). */
		row(L, o, RIN_REQUEUE, r->id, (int32_t)j->restarts, r->unseen ? sx_eng_time(L, start) : -1,
		    sx_eng_time(L, end), 0, 0, r->why);
	}
	free(a);
	free(sids);
	free(q->v);
	q->v = NULL;
	q->n = q->cap = 0;
}

/* An adopted held Slurm job placed again on the engine's nodes: 0, or -1
 * (logged). */
static int place_again(struct live *L, int32_t id, int64_t sid)
{
	struct sx_exec *x = L->xctx;
	struct sx_shape sh;
	char why[600];
	const char *nodes[256];
	int n = sx_node_names(L, id, nodes, 256);
	struct sx_cmd c;
	int rc = sx_shape_of(L, id, &sh, why, sizeof why);
	if (rc == 0)
		rc = sx_place_cmd(sid, nodes, n, sh.partition && sh.partition[0] ? sh.partition : NULL,
		                  sx_relaunch_delay(L, id), &c, why, sizeof why);
	if (rc == 0) {
		sx_run(&x->c, &c);
		if (c.rc)
			snprintf(why, sizeof why, "%s", c.err);
		rc = c.rc ? -1 : 0;
		sx_cmd_done(&c);
	}
	if (rc == 0)
		sx_tj(L, id)->place_due = false;
	else
		live_log(L, "job %" PRId64 " (Slurm %" PRId64 "): placing the held job again after the restart: %s",
		         live_sid(L, id), sid, why);
	return rc;
}

/* What Slurm says of running job id's attempt. */
static void reconcile(struct live *L, struct obs *o, struct rqs *rq, int32_t id, const struct sx_jobinfo *ji,
                      double now)
{
	struct sx_exec *x = L->xctx;
	struct sx_jobtrack *sj = sx_tj(L, id);
	const struct job *j = &L->s.jobs[id];
	int att = (int)j->restarts;
	int expect = att - sj->base;
	bool ckpt = j->state == JOB_CHECKPOINTING;
	/* Never seen running; a requeue of such a run may wait for its record
	 * while Slurm keeps it pending (held, once asked). */
	bool unseen = sj->phase == SX_PH_PLACED;
	bool may_wait = ji->st == SX_PENDING || ji->st == SX_HELD;
	if (ji->restarts > expect && !sx_state_final(ji->st)) {
		/* Requeued since this attempt began. */
		if (ji->st == SX_REQUEUED || ji->st == SX_COMPLETING)
			return;   /* on its way: next tick */
		if (ckpt && ji->st == SX_HELD) {
			live_log(L, "job %" PRId64 " (Slurm %" PRId64 "): checkpointed and requeued itself held",
			         live_sid(L, id), ji->id);
			rq_add(rq, id, ji->id, true, unseen, may_wait, "checkpointed after the signal; requeued held");
		} else {
			char why[200];
			snprintf(why, sizeof why, "Slurm requeued it (%s)", ji->reason[0] ? ji->reason : "restart");
			if (sj->rq_wait == 0)
				live_log(L, "job %" PRId64 " (Slurm %" PRId64 "): %s", live_sid(L, id), ji->id, why);
			if (ji->st == SX_RUNNING)
				sx_add_act(x, SX_ACT_REQUEUE, sj->key, -1, ji->id, NULL);
			else if (ji->st == SX_PENDING)
				sx_add_act(x, SX_ACT_HOLD, sj->key, -1, ji->id, NULL);
			rq_add(rq, id, ji->id, false, unseen, may_wait, why);
		}
		sj->killed_at = now;
		sj->phase = SX_PH_IDLE;
		return;
	}
	switch (ji->st) {
	case SX_RUNNING:
	case SX_SUSPENDED:
		sj->place_due = false;
		if (sj->phase == SX_PH_PLACED) {
			sj->phase = SX_PH_RUNNING;
			row(L, o, RIN_RUNNING, id, att, sx_eng_time(L, ji->start_unix), -1, 0, 0, NULL);
		}
		return;
	case SX_COMPLETING:
	case SX_REQUEUED:
		return;
	case SX_PENDING:
	case SX_HELD:
		if (sj->phase != SX_PH_PLACED)
			return;
		if (ji->st == SX_HELD && now - sj->placed_at < x->cfg->start_timeout_s) {
			/* Placed, still held: the release failed (or a restart cut it
			 * short); again, until start_timeout_s: then placed again (a
			 * release that always fails, e.g. "the DB index is being set"
			 * of a requeued job after a slurmctld restart, was retried for
			 * ever, each try holding the tick for 5 s). */
			struct sx_cmd c;
			if (sj->place_due && place_again(L, id, ji->id) != 0)
				return;   /* tried again next tick, until the timeout */
			sx_release_cmd(ji->id, &c);
			sx_run(&x->c, &c);
			if (c.rc && !sj->release_due)
				live_log(L, "job %" PRId64 " (Slurm %" PRId64 "): release failed: %s (tried again until %.0f s after "
				         "its placement)", live_sid(L, id), ji->id, c.err, x->cfg->start_timeout_s);
			sj->release_due = c.rc != 0;
			sx_cmd_done(&c);
			return;
		}
		if (now - sj->placed_at >= x->cfg->start_timeout_s) {
			char why[200];
			snprintf(why, sizeof why, "Slurm did not start it in %.0f s (%s)", x->cfg->start_timeout_s,
			         ji->reason[0] ? ji->reason : "pending");
			live_log(L, "job %" PRId64 " (Slurm %" PRId64 "): %s: held and placed again",
			         live_sid(L, id), ji->id, why);
			if (ji->st == SX_PENDING)
				sx_add_act(x, SX_ACT_HOLD, sj->key, -1, ji->id, NULL);
			row(L, o, RIN_UNSTART, id, att, -1, -1, 0, 0, why);
			sj->phase = SX_PH_IDLE;
		}
		return;
	default:
		break;
	}
	if (sx_state_final(ji->st)) {
		if (died_on_ckpt(L, id, ji->st, ji->exit_sig)) {
			live_log(L, "job %" PRId64 " (Slurm %" PRId64 "): Slurm job %" PRId64 " %s, exit %d:%d: " DIED_ON_CKPT
			         ": requeued", live_sid(L, id), ji->id, ji->id, sx_state_name(ji->st), ji->exit_code, ji->exit_sig);
			rq_add(rq, id, ji->id, false, unseen, false, DIED_ON_CKPT);
			sj->killed_at = now;
		} else {
			end_row(L, o, id, ji->st, ji->exit_code, ji->exit_sig, ji->start_unix, ji->end_unix, ji->id, NULL);
		}
		sj->open = false;
		sj->phase = SX_PH_IDLE;
		sx_xref_close_later(L, sj->key, ji->id);
	}
}

/* Jobs slurmctld has forgotten: what slurmdbd kept, else lost. */
static void gone(struct live *L, struct obs *o, const int32_t *ids, int n)
{
	struct sx_exec *x = L->xctx;
	if (n <= 0)
		return;
	int64_t *sids = malloc((size_t)n * sizeof *sids);
	if (!sids)
		return;
	for (int k = 0; k < n; k++)
		sids[k] = sx_tj(L, ids[k])->sid;
	struct sx_acct *a = NULL;
	int na = 0;
	bool no_acct = false;
	char err[600];
	int rc = sx_acct_by_id(&x->c, sids, n, &a, &na, &no_acct, err, sizeof err);
	if (rc && !no_acct) {
		live_log(L, "reading sacct for %d job%s slurmctld forgot: %s (asked again next tick)",
		         n, n == 1 ? "" : "s",
		         err);
		free(sids);
		return;
	}
	for (int k = 0; k < n; k++) {
		int32_t id = ids[k];
		struct sx_jobtrack *sj = sx_tj(L, id);
		const struct sx_acct *last = NULL;
		for (int i = 0; i < na; i++)
			if (a[i].id == sids[k] && (!last || a[i].start_unix >= last->start_unix))
				last = &a[i];
		if (last && !sx_state_final(last->st) && last->st != SX_REQUEUED)
			continue;   /* slurmdbd says it still runs: slurmctld restarting? next tick */
		if (last && died_on_ckpt(L, id, last->st, last->exit_sig)) {
			live_log(L, "job %" PRId64 " (Slurm %" PRId64 "): Slurm job %" PRId64 " %s, exit %d:%d (from sacct): "
			         DIED_ON_CKPT ": requeued", live_sid(L, id), sids[k], sids[k], sx_state_name(last->st), last->exit_code,
			         last->exit_sig);
			row(L, o, RIN_REQUEUE, id, (int32_t)L->s.jobs[id].restarts,
			    sj->phase == SX_PH_PLACED && last->start_unix > 0 ? sx_eng_time(L, last->start_unix) : -1,
			    last->end_unix > 0 ? sx_eng_time(L, last->end_unix) : -1, 0,
			    0, DIED_ON_CKPT);
		} else if (last && last->st != SX_REQUEUED) {
			end_row(L, o, id, last->st, last->exit_code, last->exit_sig, last->start_unix, last->end_unix, sids[k],
			        "(from sacct)");
		} else {
			live_log(L, "job %" PRId64 " (Slurm %" PRId64 "): gone from slurmctld and %s: lost",
			         live_sid(L, id), sids[k],
			         no_acct ? "no accounting" : "unknown to slurmdbd");
			row(L, o, RIN_END, id, (int32_t)L->s.jobs[id].restarts, -1, -1, JOB_FAILED, END_NODE_FAIL,
			    "gone from Slurm: no record of how it ended");
		}
		sj->open = false;
		sj->phase = SX_PH_IDLE;
		sx_xref_close_later(L, sj->key, sids[k]);
	}
	free(a);
	free(sids);
}

/* What jobs not this state's hold of each node. */
static void foreign(struct live *L, struct obs *o)
{
	struct sx_exec *x = L->xctx;
	const struct sim *s = &L->s;
	if (!x->have_nodes)
		return;
	if (!x->fhold_synced && s->live) {
		/* After a restart the engine holds what the replayed rows asked
		 * (the last ones before the crash): compared with that, a hold
		 * Slurm no longer shows is released. (Compared with nothing, a
		 * hold recorded just before a kill -9 stayed for ever, and the
		 * soak's gangs on that node never started.) */
		for (int32_t i = 0; i < s->cl.nnodes; i++) {
			const struct sim_xin *w = &s->live->foreign_want[i];   /* asked: the engine takes the rest as it frees */
			x->fhold[i] = (struct sx_nodeuse){ .cpus = (int32_t)w->a, .gpus = (int32_t)w->b, .mem = w->mem_mib };
		}
	}
	x->fhold_synced = true;
	struct sx_nodeuse *ours = calloc((size_t)s->cl.nnodes + 1, sizeof *ours);
	if (!ours)
		return;
	/* Ours: the running attempts Slurm runs, in Slurm's terms. */
	for (int32_t k = 0; k < s->nrunning; k++) {
		int32_t id = s->running[k];
		const struct sx_jobtrack *t = sx_track_find(x, live_sid(L, id));
		const struct sx_jobinfo *ji = t ? sx_snap_find(x, t->sid) : NULL;
		if (!ji || (ji->st != SX_RUNNING && ji->st != SX_COMPLETING && ji->st != SX_SUSPENDED))
			continue;
		struct sx_shape sh;
		char why[200];
		if (sx_shape_of(L, id, &sh, why, sizeof why))
			continue;
		for (int i = 0; i < s->jobs[id].nparts; i++) {
			const struct alloc_part *p = &sx_parts_of(L, id)[i];
			int32_t ni = x->nidx[p->node];
			ours[p->node].cpus += sh.cpn;
			/* No --mem where Slurm schedules memory: it gave the whole node. */
			ours[p->node].mem += sh.mem > 0 || !x->conf.memory || ni < 0 ? sh.mem : x->nodes[ni].mem_mib;
			ours[p->node].gpus += p->milli > 0 || p->mig_profile >= 0 ? 0 : hl_popcount64(p->gpus);
		}
	}
	for (int32_t i = 0; i < s->cl.nnodes; i++) {
		int32_t ni = x->nidx[i];
		if (ni < 0)
			continue;
		const struct sx_nodeinfo *n = &x->nodes[ni];
		const struct node *nd = &s->cl.nodes[i];
		struct sx_nodeuse f = { 0 };
		const char *what = "jobs not hetlab's";
		if (n->down || n->not_responding)
			continue;   /* down: the node is out of service (probe rounds) */
		if (n->unregistered)
			continue;   /* after a slurmctld restart, until its slurmd registers: its use is not known
			             * (gres_used counted hetlab's 2 GPUs as 4); the last hold stands */
		double per = nd->cores > 0 && n->cpus > nd->cores ? (double)n->cpus / nd->cores : 1.0;
		if ((n->drain && strncmp(n->reason, "hetlab", 6) != 0) || n->reserved) {
			f.cpus = nd->cores;
			f.gpus = nd->ngpus;
			f.mem = nd->mem_mib;
			what = n->reserved ? "a reservation" : "drained outside hetlab";
		} else {
			int32_t fc = n->alloc_cpus - ours[i].cpus;
			f.cpus = fc > 0 ? (int32_t)ceil(fc / per) : 0;
			f.mem = n->alloc_mem_mib - ours[i].mem > 0 ? n->alloc_mem_mib - ours[i].mem : 0;
			f.gpus = n->gpus_used - ours[i].gpus > 0 ? n->gpus_used - ours[i].gpus : 0;
		}
		struct sx_nodeuse *last = &x->fhold[i];
		if (f.cpus == last->cpus && f.gpus == last->gpus && f.mem == last->mem)
			continue;
		char data[96];
		snprintf(data, sizeof data, "%d %d %" PRId64, f.cpus, f.gpus, f.mem);
		struct rec_row r = { .kind = RIN_FOREIGN, .job = -1, .node = i, .data = data };
		obs_add(o, &r);
		*last = f;
		live_log(L, "node %s: %s hold %d cores, %d GPUs, %" PRId64 " MiB", nd->name, what, f.cpus, f.gpus, f.mem);
		char err[512];
		if (lstate_foreign_set(&L->st, nd->name, f.cpus, f.gpus, f.mem, what, err, sizeof err))
			live_log(L, "%s", err);
	}
	free(ours);
}

int sx_observe(struct live *L, struct obs *o)
{
	struct sx_exec *x = L->xctx;
	struct sim *s = &L->s;
	double now = sx_wall();
	for (int32_t k = 0; k < x->later.n; k++) {
		struct rec_row r = x->later.rows[k];
		obs_add(o, &r);
	}
	obs_free(&x->later);
	/* The nodes before the jobs: a job of ours that starts between the two
	 * reads is then counted ours, never the others'. When Slurm cannot be
	 * read, /healthz says so at once, and nothing else is tried this tick
	 * (each command would wait for the controller). */
	sx_read_nodes(L);
	bool blind = !x->have_nodes || sx_refresh_snap(L);
	if (s->live && s->live->blind != blind) {
		/* The policy decides nothing while Slurm cannot be read (its
		 * decisions would rest on what it saw last); compared with the
		 * engine's flag, which a restart replays. */
		struct rec_row r = { .kind = RIN_BLIND, .job = -1, .node = -1, .state = blind };
		obs_add(o, &r);
		live_logl(L, blind ? LIVE_WARN : LIVE_INFO, blind ? "Slurm cannot be read: no job is started until it can"
		                                                  : "Slurm can be read again: jobs are started");
	}
	if (blind) {
		x->ctld_down = true;
		L->healthy = false;   /* the daemon publishes it at once */
		return 0;
	}
	x->ctld_down = false;
	L->healthy = true;
	L->why[0] = 0;
	x->last_ok = now;
	int32_t *lost = malloc(((size_t)s->nrunning + 1) * sizeof *lost);
	int nlost = 0;
	struct rqs rq = { 0 };
	for (int32_t k = 0; k < s->nrunning; k++) {
		int32_t id = s->running[k];
		struct sx_jobtrack *sj = sx_tj(L, id);
		if (sj->phase != SX_PH_PLACED && sj->phase != SX_PH_RUNNING)
			continue;
		if ((int32_t)s->jobs[id].restarts != sj->attempt)
			continue;
		const struct sx_jobinfo *ji = sx_snap_find(x, sj->sid);
		if (ji)
			reconcile(L, o, &rq, id, ji, now);
		else if (lost)
			lost[nlost++] = id;
	}
	requeue_rows(L, o, &rq);
	gone(L, o, lost, nlost);
	free(lost);
	/* Slurm jobs of this state the engine does not run: held while the job
	 * may run again (pending, held), cancelled once it has ended (or left
	 * the engine's tables: it ended). ji->key is the job's state id. */
	for (int i = 0; i < x->nsnap; i++) {
		const struct sx_jobinfo *ji = &x->snap[i];
		if (strcmp(ji->state_id, L->state_id) != 0 || ji->key < 0 || ji->key >= live_njobs(L))
			continue;
		int32_t at = live_index(L, ji->key);
		struct sx_jobtrack *sj = sx_track_find(x, ji->key);
		const struct job *j = at >= 0 ? &s->jobs[at] : NULL;
		bool mine = sj && sj->sid == ji->id && sj->open;   /* its current Slurm job, not seen final */
		bool runs = j && (j->state == JOB_RUNNING || j->state == JOB_CHECKPOINTING) && sj && sj->sid == ji->id &&
		            (sj->phase == SX_PH_PLACED || sj->phase == SX_PH_RUNNING || sj->phase == SX_PH_WANT);
		if (runs)
			continue;
		if (sx_state_final(ji->st)) {
			if (mine) {
				sj->open = false;
				sx_xref_close(L, ji->key, ji->id);
				if (at < 0)
					sx_track_drop(x, ji->key);   /* it left the engine: nothing more to follow */
			}
			continue;
		}
		/* Not open: replaced by a new Slurm job (its cancel cut short). */
		bool again = j && !job_state_final((enum job_state)j->state) && mine;
		if (!again)
			sx_add_act(x, SX_ACT_CANCEL_SID, ji->key, -1, ji->id, NULL);
		else if (ji->st == SX_RUNNING)
			sx_add_act(x, SX_ACT_REQUEUE, ji->key, -1, ji->id, NULL);
		else if (ji->st == SX_PENDING)
			sx_add_act(x, SX_ACT_HOLD, ji->key, -1, ji->id, NULL);
	}
	/* An open Slurm job of a job that left the engine (it ended) that
	 * squeue no longer lists: slurmctld has forgotten it, final long ago
	 * (a crash came between the end row and its xref close): closed, and
	 * no longer followed. */
	bool forgot = false;
	for (int32_t k = 0; k < x->capjt; k++) {
		struct sx_jobtrack *t = x->jt[k];
		if (!t || !t->open || t->sid <= 0 || t->key >= live_njobs(L) || live_index(L, t->key) >= 0 ||
		    sx_snap_find(x, t->sid))
			continue;
		t->open = false;
		sx_xref_close(L, t->key, t->sid);
		forgot = true;
	}
	if (forgot)
		sx_track_prune(L);
	foreign(L, o);
	sx_run_acts(L);
	return 0;
}

/* DOWN or not responding in Slurm is down; a node Slurm does not list
 * (not in the driven partitions) says nothing. */
int sx_nodes_begin(struct live *L)
{
	struct sx_exec *x = L->xctx;
	return x->have_nodes ? 0 : -1;
}

int sx_node_down(struct live *L, int32_t node)
{
	struct sx_exec *x = L->xctx;
	if (!x->have_nodes)
		return -1;
	if (x->nidx[node] < 0) {
		/* Not a node of the driven partitions: nothing may run there. */
		if (!x->warned_absent) {
			live_log(L, "node %s of the scenario is not in Slurm's partition%s %s: out of service",
			         L->s.cl.nodes[node].name, x->cfg->npartition > 1 ? "s" : "",
			         x->cfg->npartition ? x->cfg->partition[0] : "(default)");
			x->warned_absent = true;
		}
		return 1;
	}
	const struct sx_nodeinfo *n = &x->nodes[x->nidx[node]];
	return n->down || n->not_responding;
}
