/* engine — the top of the engine: a run's set-up and tear-down, the event
 * loop (sim_step, sim_run) and its dispatch of each event to the file that
 * owns it, the scheduling pass (health monitor, then policy), the start
 * decision, arrivals and sampling. Live mode's events go to engine_live.c
 * (live_handle). The layering, top down: engine.c; engine_live.c,
 * exec_sim.c; engine_fault.c; engine_jobs.c; engine_power.c;
 * engine_speed.c; engine_core.c — each calls only files below it
 * (engine_int.h). See engine.h for the model and view.h for the policy's
 * side. */
#include "sim/engine.h"
#include "sim/check.h"
#include "sim/engine_int.h"
#include "sim/fault.h"
#include "sim/power.h"

#include <gsl/gsl_rng.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sim_init(struct sim *s, const struct sim_cfg *cfg, struct cluster *cl,
             struct job *jobs, struct job_truth *truth, int32_t njobs)
{
	memset(s, 0, sizeof *s);
	s->cfg = *cfg;
	s->cl = *cl;
	memset(cl, 0, sizeof *cl);
	s->jobs = jobs;
	s->truth = truth;
	s->njobs = njobs;
	s->exec = &exec_sim_ops;
	s->last_pass = -1;
	/* Sized for the worst case up front, so the loop never grows them:
	 * every job pending, every job running, one end event per job plus
	 * the arrival and sampling events. */
	s->cap_pending = njobs + 1;
	s->cap_jobs = njobs + 1;
	s->pending = malloc((size_t)s->cap_pending * sizeof *s->pending);
	s->running = malloc((size_t)(njobs + 1) * sizeof *s->running);
	s->rack_w = calloc((size_t)s->cl.nracks + 1, sizeof *s->rack_w);
	s->run = calloc((size_t)njobs + 1, sizeof *s->run);
	s->onnode = calloc((size_t)s->cl.nnodes + 1, sizeof *s->onnode);
	if (!s->pending || !s->running || !s->rack_w || !s->run || !s->onnode || evq_init(&s->q, (size_t)njobs + 16))
		goto fail_alloc;
	for (int32_t i = 0; i < njobs; i++) {
		s->jobs[i].id = i;
		s->jobs[i].num = i;
		s->jobs[i].run_idx = -1;
		s->jobs[i].req.cls = s->jobs[i].cls;
		if (s->jobs[i].ckpt_every_us == 0 && s->jobs[i].cls < JOB_NCLASS)
			s->jobs[i].ckpt_every_us = cfg->ckpt[s->jobs[i].cls].every_us;
		s->run[i].stop_at = -1;
	}
	if (cfg->fault && eng_faults_init(s))
		goto fail_alloc;
	for (int32_t k = 0; s->cl.pw && k < cfg->nenv; k++)
		if (evq_push(&s->q, cfg->env[k].at_us, SIM_EV_ENV, -1, 0, k))
			goto fail_alloc;
	for (int32_t k = 0; cfg->org && k < cfg->org->napprove; k++)
		if (evq_push(&s->q, cfg->org->approve[k].at_us, SIM_EV_APPROVE, -1, 0, k))
			goto fail_alloc;
	if (njobs > 0 && evq_push(&s->q, jobs[0].submit_us, SIM_EV_SUBMIT, 0, 0, 0))
		goto fail_alloc;
	if (cfg->sample_every_us > 0 && (njobs > 0 || cfg->open_ended) &&
	    evq_push(&s->q, 0, SIM_EV_SAMPLE, -1, 0, 0))
		goto fail_alloc;
	return 0;
fail_alloc:
	sim_fini(s);
	return -1;
}

void sim_fini(struct sim *s)
{
	for (int32_t i = 0; s->onnode && i < s->cl.nnodes; i++)
		free(s->onnode[i].id);
	free(s->onnode);
	free(s->onbuf);
	s->onnode = NULL;
	s->onbuf = NULL;
	free(s->cl.w_stale);   /* the engine's, not the cluster's */
	s->cl.w_stale = NULL;
	cluster_fini(&s->cl);
	free(s->jobs);
	free(s->truth);
	free(s->pending);
	free(s->running);
	free(s->rack_w);
	free(s->node_w);
	s->node_w = NULL;
	free(s->node_wcores);
	s->node_wcores = NULL;
	free(s->node_w2);
	free(s->node_wcores2);
	s->node_w2 = NULL;
	s->node_wcores2 = NULL;
	free(s->run);
	live_fini(s);
	for (int k = 0; k < 8; k++)
		if (s->fault_rng[k])
			gsl_rng_free(s->fault_rng[k]);
	s->rack_w = NULL;
	s->run = NULL;
	evq_fini(&s->q);
	s->jobs = NULL;
	s->truth = NULL;
	s->pending = s->running = NULL;
}

void sim_set_sched(struct sim *s, const struct sim_sched *sched) { s->sched = *sched; }
void sim_set_health(struct sim *s, const struct sim_health *h) { s->health = *h; }
void sim_set_recorder(struct sim *s, const struct sim_recorder *rec) { s->rec = *rec; }

void sim_set_note(struct sim *s, sim_note_fn fn, void *ctx)
{
	s->note = fn;
	s->note_ctx = ctx;
}

bool decide_noting(const struct decide *d)
{
	return d->s->note != NULL;
}

void decide_note(struct decide *d, int32_t job, const char *fmt, ...)
{
	struct sim *s = d->s;
	if (!s->note || job < 0 || job >= s->njobs)
		return;
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	s->note(s->note_ctx, s, job, why);
}

void sim_set_executor(struct sim *s, const struct executor_ops *ops, void *ctx)
{
	s->exec = ops;
	s->exec_ctx = ctx;
}

/* Forgets the first n marks and, when `all` (what the monitor has looked
 * at), hlog_all; marks made since, by its own decisions, stay for the next
 * pass. */
static void health_log_clear(struct cluster *cl, int32_t n, bool all)
{
	if (!cl->health)
		return;
	for (int32_t k = 0; k < n; k++)
		cl->hlogged[cl->hlog[k]] = 0;
	if (n > 0 && cl->nhlog > n)
		memmove(cl->hlog, cl->hlog + n, (size_t)(cl->nhlog - n) * sizeof *cl->hlog);
	cl->nhlog -= n;
	if (all)
		cl->hlog_all = false;
}

/* The end of a preempted job's grace (or of its last checkpoint): it stops,
 * its resources are freed, and it is requeued with the work it saved. */
static int stop_preempted(struct sim *s, int32_t id)
{
	return eng_requeue_job(s, id, NULL);
}

int decide_wake(struct decide *d, simtime at)
{
	struct sim *s = d->s;
	if (s->failed)
		return -1;
	return sim_push(s, at > s->now ? at : s->now + 1, SIM_EV_WAKE, -1, 0, 0);
}

static void handle_submit(struct sim *s)
{
	simtime t = s->now;
	while (s->next_submit < s->njobs && s->jobs[s->next_submit].submit_us <= t)
		eng_submit_one(s, s->next_submit++);
	if (s->next_submit < s->njobs)
		sim_push(s, s->jobs[s->next_submit].submit_us, SIM_EV_SUBMIT, s->next_submit, 0, 0);
}

static int64_t sample_rows_max(const struct sim *s)
{
	return s->cfg.max_sample_rows > 0 ? s->cfg.max_sample_rows : SIM_SAMPLE_ROWS_MAX;
}

#define SAMPLE_LIMIT_HINT "raise $.sample_interval_s or set $.horizon_days (docs/scenario.md \"Limits\")"

/* Whether a sample may use the cache of node powers (node_w): the modelled
 * probe without the power model, in a run whose nodes are fixed. Set up on
 * the first sample (every node stale); false when out of memory. */
static bool sample_cached(struct sim *s)
{
	if (s->cl.pw)
		return false;
	if (!s->node_w) {
		s->node_w = calloc((size_t)s->cl.nnodes + 1, sizeof *s->node_w);
		s->node_wcores = malloc(((size_t)s->cl.nnodes + 1) * sizeof *s->node_wcores);
		s->cl.w_stale = malloc((size_t)s->cl.nnodes + 1);
		if (!s->node_w || !s->node_wcores || !s->cl.w_stale) {
			free(s->node_w);
			free(s->node_wcores);
			free(s->cl.w_stale);
			s->node_w = NULL;
			s->node_wcores = NULL;
			s->cl.w_stale = NULL;
			return false;
		}
		memset(s->cl.w_stale, 1, (size_t)s->cl.nnodes + 1);
		for (int32_t i = 0; i <= s->cl.nnodes; i++)
			s->node_wcores[i] = -1;
	}
	return true;
}

/* The second slot of the cache of node powers (node_w2): a node without
 * GPUs that goes busy and idle again (a machine of one-core nodes, every
 * node at every sample) finds its power there instead of computing it
 * again. NULL when out of memory (then every such change is computed). */
static double *sample_slot2(struct sim *s)
{
	if (s->node_w2 && s->node_w2_n == s->cl.nnodes)
		return s->node_w2;
	free(s->node_w2);
	free(s->node_wcores2);
	s->node_w2 = malloc(((size_t)s->cl.nnodes + 1) * sizeof *s->node_w2);
	s->node_wcores2 = malloc(((size_t)s->cl.nnodes + 1) * sizeof *s->node_wcores2);
	if (!s->node_w2 || !s->node_wcores2) {
		free(s->node_w2);
		free(s->node_wcores2);
		s->node_w2 = NULL;
		s->node_wcores2 = NULL;
		return NULL;
	}
	for (int32_t i = 0; i <= s->cl.nnodes; i++)
		s->node_wcores2[i] = -1;
	s->node_w2_n = s->cl.nnodes;
	return s->node_w2;
}

/* Node i's power: node_w's, else the power model's. */
static inline double node_power(const struct sim *s, const double *node_w, int32_t i)
{
	return node_w ? node_w[i] : s->cl.pw->node[i].power_w;
}

/* The nodes' powers summed, in node order, and each rack's into rack_w:
 * a rack's nodes are one range, and the racks follow one another in node
 * order (cluster_add_nodes), so a rack's sum stays in a register and no
 * node's record is read for its rack (at 100,000 nodes, a cache line a
 * node at every sample). */
static double sum_node_powers(struct sim *s, const double *node_w)
{
	double total = 0;
	for (int32_t k = 0; k < s->cl.nracks; k++) {
		const struct rack *r = &s->cl.racks[k];
		double acc = 0;
		for (int32_t i = r->first_node; i < r->first_node + r->nnodes; i++) {
			double w = node_power(s, node_w, i);
			total += w;
			acc += w;
		}
		s->rack_w[k] = acc;
	}
	return total;
}

static void handle_sample(struct sim *s)
{
	if (!s->rec.sample)
		goto next;   /* nobody records samples: skip the probes */
	s->sample_rows += 1 + s->cl.nracks;
	if (s->sample_rows > sample_rows_max(s)) {
		eng_fail(s, "at day %.1f the run's samples pass %lld rows (sample and rack_sample), the most "
		         "a run records: " SAMPLE_LIMIT_HINT, simtime_to_s(s->now) / 86400.0,
		         (long long)sample_rows_max(s));
		return;
	}
	struct sim_sample smp = {
		.t = s->now,
		.cores_total = s->cl.total_cores,
		.cores_alloc = s->cl.total_cores - s->cl.free_cores,
		.gpus_total = s->cl.total_gpus,
		.gpus_alloc = s->cl.gpus_busy,
		.pending = s->npending,
		.running = s->nrunning,
	};
	for (int32_t k = 0; k < s->cl.nracks; k++)
		s->rack_w[k] = 0;
	if (live_sample_power(s, &smp.power_w)) {
		/* Live: each node's reading, else its model. */
	} else if (sample_cached(s)) {
		/* The modelled probe's readings of the nodes whose free state
		 * changed since the last sample, the others as they were: the same
		 * values summed in the same order as below. */
		double *w2 = sample_slot2(s);
		for (int32_t i = 0; i < s->cl.nnodes; i++)
			if (s->cl.w_stale[i]) {
				/* A node without GPUs draws what its free cores say: one
				 * whose free cores are those of its last probe (busy
				 * again with another job) keeps its power, and one whose
				 * free cores are those of the probe before takes that
				 * probe's power back. A node with GPUs keeps -1 there,
				 * and is probed each time. */
				int32_t c = s->cl.free[i].cores, was = s->node_wcores[i];
				if (was != c) {
					double w = w2 && s->node_wcores2[i] == c ? w2[i] : eng_probe_power(s, i);
					if (w2 && was >= 0) {
						w2[i] = s->node_w[i];
						s->node_wcores2[i] = was;
					}
					s->node_w[i] = w;
					s->node_wcores[i] = s->cl.nodes[i].ngpus > 0 ? -1 : c;
				}
				s->cl.w_stale[i] = 0;
			}
		smp.power_w = sum_node_powers(s, s->node_w);
	} else if (s->cl.pw) {
		/* The modelled probe's power is the power model's, as it is:
		 * its temperature and utilisation, which it computes too, are
		 * not what a sample keeps. */
		smp.power_w = sum_node_powers(s, NULL);
	} else {
		/* Out of memory for the cache: every node's model. */
		for (int32_t i = 0; i < s->cl.nnodes; i++) {
			struct probe_node pn;
			eng_probe_model(s, i, &pn);
			smp.power_w += pn.power_w;
			s->rack_w[s->cl.nodes[i].rack] += pn.power_w;
		}
	}
	smp.rack_power_w = s->rack_w;
	smp.nracks = s->cl.nracks;
	s->rec.sample(s->rec.ctx, &smp);
next:
	/* Sample on while anything can still happen: a job running, one yet to
	 * arrive, or another event due. Held jobs alone change nothing. */
	if (s->cfg.open_ended ||
	    (s->nfinished < s->njobs && (s->nrunning > 0 || s->next_submit < s->njobs || evq_len(&s->q) > 0)))
		sim_push(s, s->now + s->cfg.sample_every_us, SIM_EV_SAMPLE, -1, 0, 0);
}

static void handle(struct sim *s, const struct ev *e)
{
	switch (e->kind) {
	case SIM_EV_SUBMIT:
		handle_submit(s);
		break;
	case SIM_EV_END:
		if (e->id < 0 || e->ver != s->jobs[e->id].ver)
			break;   /* stale: the job was stopped or rescheduled */
		if (s->live) {
			live_kill(s, e->id, (enum end_reason)(e->arg >> 8));   /* its walltime */
			break;
		}
		s->jobs[e->id].reason = (uint8_t)(e->arg >> 8);
		sim_job_end(s, e->id, (enum job_state)(e->arg & 0xff));
		break;
	case SIM_EV_SAMPLE:
		handle_sample(s);
		break;
	case SIM_EV_WAKE:
		s->dirty = true;
		break;
	case SIM_EV_STOP:
		if (e->id >= 0 && s->jobs[e->id].state == JOB_CHECKPOINTING && s->run[e->id].stop_at == e->t) {
			if (s->run[e->id].cancel_on_stop) {
				live_kill(s, e->id, END_PREEMPTED);   /* the executor kills it (at once in simulation) */
				break;
			}
			live_exec_stop(s, e->id, EXEC_STOP_PREEMPT);
			stop_preempted(s, e->id);
		}
		break;
	case SIM_EV_APPROVE:
		eng_approve_tenant(s, s->cfg.org->approve[e->arg].tenant, "approved");
		break;
	case SIM_EV_THERMAL:
		if (s->cl.pw && e->ver == s->cl.pw->node[e->id].ver)
			eng_pw_thermal(s, e->id);
		break;
	case SIM_EV_CAP:
		if (s->cl.pw)
			eng_pw_cap(s, e->id);
		break;
	case SIM_EV_ENV:
		if (s->cl.pw)
			eng_pw_env(s, &s->cfg.env[e->arg]);
		break;
	case SIM_EV_FAULT:
		eng_health_mark(s, e->id);
		if (s->cl.health)
			eng_apply_fault(s, e->id, e->arg & 0xff, e->arg >> 8, s->cfg.fault->proc[e->arg & 0xff].value,
			                s->cfg.fault->proc[e->arg & 0xff].repair_s);
		break;
	case SIM_EV_REPAIR:
		eng_health_mark(s, e->id);
		if (s->cl.health)
			eng_repair(s, e->id, e->arg & 0xff, e->arg >> 8);
		break;
	case SIM_EV_FEVENT:
		s->cl.hlog_all = true;
		if (s->cl.health)
			eng_fault_event(s, &s->cfg.fault->ev[e->arg]);
		break;
	default:
		if (!live_handle(s, e))
			eng_fail(s, "unknown event kind %u at t=%lld us", e->kind, (long long)e->t);
	}
}

static void compact_pending(struct sim *s)
{
	int32_t k = 0;
	for (int32_t i = 0; i < s->npending; i++) {
		int32_t id = s->pending[i];
		if (s->jobs[id].state == JOB_PENDING)
			s->pending[k++] = id;
	}
	s->npending = k;
}

static void pass(struct sim *s)
{
	struct view v;
	struct decide d = { .s = s, .v = &v };
	eng_view_fill(s, &v);
	s->dirty = false;
	s->last_pass = s->now;
	s->npasses++;
	int32_t seen = s->cl.nhlog;
	bool all = s->cl.hlog_all;
	if (s->health.check)
		s->health.check(s->health.state, &v, &d);
	health_log_clear(&s->cl, seen, all);
	if (s->sched.schedule && !s->failed && live_may_decide(s))
		s->sched.schedule(s->sched.state, &v, &d);
	compact_pending(s);
}

int decide_start(struct decide *d, int32_t id, const struct alloc_part *parts, int nparts)
{
	struct sim *s = d->s;
	char why[256];
	if (s->failed)
		return -1;
	const char *pol = s->sched.name ? s->sched.name : "?";
	if (id < 0 || id >= s->njobs)
		return eng_fail(s, "policy '%s' made an invalid decision at t=%.6f s: start of job %d, which does not exist",
		                pol, simtime_to_s(s->now), id);
	struct job *j = &s->jobs[id];
	if (j->state != JOB_PENDING || j->submit_us > s->now)
		return eng_fail(s, "policy '%s' made an invalid decision at t=%.6f s: start of job %d (trace id %lld), which is %s, not pending",
		                pol, simtime_to_s(s->now), id, (long long)j->trace_id,
		                j->submit_us > s->now ? "not yet submitted" : job_state_name((enum job_state)j->state));
	if (nparts > s->cl.nnodes ||
	    cluster_check_alloc(&s->cl, s->cl.free, &j->req, parts, nparts, why, sizeof why))
		return eng_fail(s, "policy '%s' made an invalid decision at t=%.6f s: start of job %d (trace id %lld): %s",
		                pol, simtime_to_s(s->now), id, (long long)j->trace_id,
		                nparts > s->cl.nnodes ? "more parts than nodes" : why);
	uint32_t off = partpool_get(&s->cl.pool, nparts);
	if (off == UINT32_MAX)
		return eng_fail(s, "out of memory growing the allocation pool");
	memcpy(&s->cl.pool.p[off], parts, (size_t)nparts * sizeof *parts);
	simtime setup = cluster_take(&s->cl, id, &j->req, parts, nparts);
	if (eng_onnode_add(s, parts, nparts, id))
		return eng_fail(s, "out of memory indexing job %d's nodes", id);
	s->alloc_epoch++;
	HL_VERIFY(job_set_state(j, JOB_RUNNING) == 0);
	j->parts = off;
	j->nparts = nparts;
	simtime prev_start = j->start_us;
	if (j->start_us >= 0) {
		/* A requeued job starts again: it loads its checkpoint first. */
		j->restarts++;
		setup += s->cfg.ckpt[j->cls].restart_us;
	}
	j->start_us = s->now;
	s->run[id] = (struct jobrun){ .since = s->now + setup, .saved_us = s->run[id].saved_us, .stop_at = -1 };
	live_started(s, id, prev_start);
	if (s->cl.pw) {
		eng_pw_parts_changed(s, parts, nparts);
		s->run[id].power_w = eng_job_active_w(s, j);
		s->run[id].power_since = s->now;
	}
	j->run_idx = s->nrunning;
	s->running[s->nrunning++] = id;
	s->ndecisions++;
	eng_rec_event(s, REC_START, id, parts[0].node, JOB_RUNNING, NULL);
	/* The running list grew and the pool may have moved: the policy's
	 * next read of its view must see both. */
	eng_view_fill(s, d->v);
	if (s->exec->start(s->exec_ctx, s, id))
		return eng_fail(s, "executor '%s' could not start job %d: %s", s->exec->name, id,
		                s->err[0] ? s->err : "error");
	if (live_launched(s, id))
		return -1;
	if (eng_retime_neighbours(s, id, &s->cl.pool.p[off], nparts, (double)j->req.io_mbps))
		return -1;
	return 0;
}

/* The job of the next event, when it ends one, is read from memory while
 * this event is handled: of 10 M jobs the one that ends next is anywhere
 * in 2.3 GB, and its record and run state are the first things its end
 * reads. (Results do not change: this only loads cache lines.) */
static inline void prefetch_next(struct sim *s)
{
	const struct ev *nx = evq_peek(&s->q);
	if (!nx || nx->kind != SIM_EV_END || nx->id < 0 || nx->id >= s->njobs)
		return;
	const char *j = (const char *)&s->jobs[nx->id], *r = (const char *)&s->run[nx->id];
	for (size_t o = 0; o < sizeof(struct job); o += 64)
		__builtin_prefetch(j + o);
	for (size_t o = 0; o < sizeof(struct jobrun); o += 64)
		__builtin_prefetch(r + o);
}

int sim_step(struct sim *s)
{
	const struct ev *top = evq_peek(&s->q);
	if (s->failed)
		return -1;
	if (s->cfg.fault && !s->cfg.open_ended && s->nfinished >= s->njobs && s->njobs + s->ngone > 0)
		return 0;   /* every job has ended: failures and repairs alone do not go on */
	if (!top)
		return s->q.oom ? eng_fail(s, "out of memory in the event queue") : 0;
	if (top->t > s->cfg.horizon_us)
		return 0;
	s->now = top->t;
	struct ev e;
	while ((top = evq_peek(&s->q)) && top->t == s->now && !s->failed) {
		if (evq_pop(&s->q, &e) < 0)
			return eng_fail(s, "out of memory in the event queue");
		s->nevents++;
		prefetch_next(s);
		handle(s, &e);
	}
	if (s->q.oom)
		return eng_fail(s, "out of memory in the event queue");
	if (s->dirty && !s->failed)
		pass(s);
	if (s->failed)
		return -1;
	if (s->cfg.progress && (s->nevents & 0xffff) < 64)
		s->cfg.progress(s->cfg.progress_ctx, s);
	return evq_len(&s->q) > 0 ? 1 : 0;
}

/* Samples run at least until the last job arrives: refuses up front a run
 * whose samples would pass SIM_SAMPLE_ROWS_MAX by then. */
static int check_sample_rows(struct sim *s)
{
	if (!s->rec.sample || s->cfg.sample_every_us <= 0 || s->njobs == 0)
		return 0;
	simtime last = s->jobs[s->njobs - 1].submit_us;
	if (last > s->cfg.horizon_us)
		last = s->cfg.horizon_us;
	double rows = ((double)last / (double)s->cfg.sample_every_us + 1) * (1.0 + s->cl.nracks);
	if (rows <= (double)sample_rows_max(s))
		return 0;
	return eng_fail(s, "sampling every %g s until the last job arrives (day %.1f) takes %.3g rows "
	                "(sample and rack_sample), more than a run records (%lld): " SAMPLE_LIMIT_HINT,
	                simtime_to_s(s->cfg.sample_every_us), simtime_to_s(last) / 86400.0, rows,
	                (long long)sample_rows_max(s));
}

int sim_run(struct sim *s)
{
	int r;
	if (s->nevents == 0 && check_sample_rows(s))
		return -1;
	while ((r = sim_step(s)) > 0)
		;
	if (r < 0)
		return -1;
	if (s->cl.pw)
		eng_pw_finish(s);
	/* Jobs still pending or running at the horizon are reported as they
	 * are; jobs not yet submitted were never part of the run. */
	for (int32_t i = 0; i < s->next_submit && s->rec.job_end; i++)
		if (!job_state_final((enum job_state)s->jobs[i].state))
			s->rec.job_end(s->rec.ctx, s, &s->jobs[i]);
	return 0;
}
