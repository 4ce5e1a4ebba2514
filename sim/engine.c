/* engine — the event loop, decision validation and job bookkeeping.
 * See engine.h for the model and view.h for the policy's side. */
#include "sim/engine.h"
#include "sim/engine_int.h"
#include "sim/mig.h"
#include "sim/power.h"
#include "sim/fault.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct decide {
	struct sim *s;
	struct view *v;   /* the pass's view, kept current as decisions apply */
};

static const char *const rec_names[REC_NKIND] = {
	[REC_SUBMIT] = "submit", [REC_START] = "start", [REC_END] = "end",
	[REC_HOLD] = "hold", [REC_RELEASE] = "release", [REC_PREEMPT] = "preempt",
	[REC_SAMPLE_MARK] = "sample", [REC_REQUEUE] = "requeue",
	[REC_DRAIN] = "drain", [REC_RESUME] = "resume", [REC_FAULT] = "fault", [REC_REPAIR] = "repair",
	[REC_JOIN] = "join", [REC_LEAVE] = "leave",
};

const char *rec_kind_name(enum rec_kind k)
{
	return (unsigned)k < REC_NKIND ? rec_names[k] : "?";
}

static void rec_event(struct sim *s, enum rec_kind k, int32_t job, int32_t node, int state,
                      const char *detail)
{
	if (s->rec.event)
		s->rec.event(s->rec.ctx, s->now, k, job, node, state, detail);
}

static int fail(struct sim *s, const char *fmt, ...)
{
	if (!s->failed) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(s->err, sizeof s->err, fmt, ap);
		va_end(ap);
		s->failed = true;
	}
	return -1;
}

static int faults_init(struct sim *s);

/* The running jobs with a part on a node, in no order: what a node's
 * event (a fault, a power limit, a drain) acts on, without a scan of every
 * running job. A job has at most one part per node. */
struct nodejobs {
	int32_t *id;
	int32_t n, cap;
};

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
	s->probe = &probe_sim_ops;
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
		s->jobs[i].run_idx = -1;
		s->jobs[i].req.cls = s->jobs[i].cls;
		if (s->jobs[i].ckpt_every_us == 0 && s->jobs[i].cls < JOB_NCLASS)
			s->jobs[i].ckpt_every_us = cfg->ckpt[s->jobs[i].cls].every_us;
		s->run[i].stop_at = -1;
	}
	if (cfg->live && (!(s->rd = calloc((size_t)s->cl.nnodes + 1, sizeof *s->rd)) ||
	                  !(s->foreign = calloc((size_t)s->cl.nnodes + 1, sizeof *s->foreign))))
		goto fail_alloc;
	if (cfg->fault && faults_init(s))
		goto fail_alloc;
	for (int32_t k = 0; s->cl.pw && k < cfg->nenv; k++)
		if (evq_push(&s->q, cfg->env[k].at_us, SIM_EV_ENV, -1, 0, k))
			goto fail_alloc;
	for (int32_t k = 0; cfg->org && k < cfg->org->napprove; k++)
		if (evq_push(&s->q, cfg->org->approve[k].at_us, SIM_EV_APPROVE, -1, 0, k))
			goto fail_alloc;
	if (njobs > 0 && evq_push(&s->q, jobs[0].submit_us, SIM_EV_SUBMIT, 0, 0, 0))
		goto fail_alloc;
	if (cfg->sample_every_us > 0 && (njobs > 0 || cfg->live) &&
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
	cluster_fini(&s->cl);
	free(s->jobs);
	free(s->truth);
	free(s->pending);
	free(s->running);
	free(s->rack_w);
	free(s->run);
	free(s->rd);
	free(s->inj);
	s->rd = s->inj = NULL;
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

void sim_set_executor(struct sim *s, const struct executor_ops *ops, void *ctx)
{
	s->exec = ops;
	s->exec_ctx = ctx;
}

void sim_set_probe(struct sim *s, const struct probe_ops *ops, void *ctx)
{
	s->probe = ops;
	s->probe_ctx = ctx;
}

int sim_push(struct sim *s, simtime t, uint32_t kind, int32_t id, uint32_t ver, int32_t arg)
{
	if (evq_push(&s->q, t, kind, id, ver, arg))
		return fail(s, "out of memory growing the event queue");
	return 0;
}

simtime sim_next_time(struct sim *s)
{
	const struct ev *top = evq_peek(&s->q);
	return top ? top->t : SIMTIME_INF;
}

/* Live: tells the executor to stop job id (its failure is not the run's:
 * the job may already be gone). */
static void exec_stop_live(struct sim *s, int32_t id, enum exec_stop how)
{
	if (s->cfg.live && s->exec->stop)
		s->exec->stop(s->exec_ctx, s, id, how);
}

static void view_fill(const struct sim *s, struct view *v)
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
}

static void finish_hook(struct sim *s, int32_t job)
{
	if (s->sched.finish) {
		struct view v;
		view_fill(s, &v);
		s->sched.finish(s->sched.state, &v, job);
	}
}

/* ---- speed ---- */

double sim_job_speed(const struct sim *s, int32_t id)
{
	const struct job *j = &s->jobs[id];
	const struct cluster *cl = &s->cl;
	if (j->nparts == 0)
		return 1.0;
	const struct alloc_part *p = &cl->pool.p[j->parts];
	double pf = 1.0;   /* power limits (capping or heat) slow its GPUs, whatever the runtimes are */
	if (cl->pw && j->req.gpus > 0)
		for (int i = 0; i < j->nparts; i++) {
			double f = power_speed_factor(cl, p[i].node);
			pf = f < pf ? f : pf;
		}
	if (cl->health && j->req.gpus > 0) {
		/* A degraded card slows the job to its speed; a lossy link slows a
		 * gang by 1 / (1 + 20 × loss) (retransmissions; an estimate). */
		double loss = 0;
		for (int i = 0; i < j->nparts; i++) {
			const struct node_health *h = &cl->health[p[i].node];
			for (uint64_t m = p[i].gpus; m; m &= m - 1) {
				double g = h->gpu_speed[__builtin_ctzll(m)];
				pf = g < pf ? g : pf;
			}
			loss = h->nic_loss > loss ? h->nic_loss : loss;
		}
		if (j->nparts > 1 && loss > 0)
			pf /= 1.0 + 20.0 * loss;
		if (pf <= 0)
			pf = 1e-9;   /* a card gone: the job is about to be stopped */
	}
	if (!s->cfg.speed_model)
		return pf;
	double v = j->req.gpus > 0 ? cluster_gpu_speed(cl, p[0].node, j->cls, j->req.precision) : 1.0;
	for (int i = 0; i < j->nparts; i++) {
		if (p[i].milli <= 0)
			continue;
		const struct node *n = &cl->nodes[p[i].node];
		const struct gpustate *gs = &cl->gpu[n->gpu0 + __builtin_ctzll(p[i].gpus)];
		if (gs->milli_used > HL_MILLI)
			v *= (double)HL_MILLI / gs->milli_used;
		if (gs->nshare > 1) {
			double f = 1.0 - cl->share.switch_cost * (gs->nshare - 1);
			v *= f < 0.1 ? 0.1 : f;
		}
	}
	if (j->nparts > 1 && j->req.gpus > 0) {
		bool leaves = false, planes = false;
		const struct node *n0 = &cl->nodes[p[0].node];
		for (int i = 1; i < j->nparts; i++) {
			const struct node *n = &cl->nodes[p[i].node];
			leaves |= n->leaf != n0->leaf;
			planes |= n->plane != n0->plane;
		}
		if (planes)
			v /= 1.0 + cl->net.mixed;
		else if (leaves)
			v /= 1.0 + cl->net.spine[n0->plane >= 0 ? cl->planes[n0->plane].kind : PLANE_ETH];
	}
	if (j->req.pool > 0 && j->req.io_mbps > 0) {
		const struct storage_pool *po = &cl->pools[j->req.pool - 1];
		if (po->bw_mbps > 0 && po->resv_mbps > po->bw_mbps)
			v /= (1.0 - po->io_fraction) + po->io_fraction * po->resv_mbps / po->bw_mbps;
	}
	return v * pf;
}

/* ---- power (sim/power.h) ---- */

static double part_gpu_eq(const struct cluster *cl, const struct alloc_part *p);

/* The active power of running job id: its cards' share of their power
 * above idle at their limit, and its cores' share of the sockets'. */
static double job_active_w(const struct sim *s, const struct job *j)
{
	const struct cluster *cl = &s->cl;
	double w = 0;
	for (int i = 0; i < j->nparts; i++) {
		const struct alloc_part *p = &cl->pool.p[j->parts + (uint32_t)i];
		w += part_gpu_eq(cl, p) * power_gpu_active_w(cl, p->node) +
		     p->cores * power_cpu_active_w_per_core(cl, p->node);
	}
	return w;
}

/* Integrates job id's energy and its cost up to now. */
static void job_energy_advance(struct sim *s, int32_t id)
{
	struct jobrun *r = &s->run[id];
	struct job *j = &s->jobs[id];
	if (!s->cl.pw || s->now <= r->power_since)
		return;
	j->energy_j += r->power_w * simtime_to_s(s->now - r->power_since);
	j->energy_cost += r->power_w * power_price_integral(&s->cl.pw->cfg, r->power_since, s->now) / 3.6e6;
	r->power_since = s->now;
}

static void pw_schedule_crossing(struct sim *s, int32_t node)
{
	struct node_power *np = &s->cl.pw->node[node];
	np->ver++;
	simtime t = power_next_crossing(&s->cl, node, s->now);
	if (t != SIMTIME_INF)
		sim_push(s, t, SIM_EV_THERMAL, node, np->ver, 0);
}

/* A rack's warning (with hysteresis), over-cap state and controller. */
static void pw_rack_check(struct sim *s, int32_t rack)
{
	struct power_state *pw = s->cl.pw;
	struct rack_power *rp = &pw->rack[rack];
	bool was_warn = rp->flags & PW_RACK_WARN;
	if (rp->power_w > pw->cfg.warn_frac * rp->cap_w)
		rp->flags |= PW_RACK_WARN;
	else if (was_warn && rp->power_w < pw->cfg.resume_frac * rp->cap_w) {
		rp->flags &= (uint8_t)~PW_RACK_WARN;
		s->dirty = true;   /* it takes work again */
	}
	if (rp->power_w > rp->cap_w + 1e-9)
		rp->flags |= PW_RACK_OVER;
	else
		rp->flags &= (uint8_t)~PW_RACK_OVER;
	if (rp->power_w > rp->peak_w)
		rp->peak_w = rp->power_w;
	if (!rp->react_pending && ((rp->flags & PW_RACK_OVER) || rp->throttle < 1)) {
		rp->react_pending = true;
		sim_push(s, s->now + (pw->cfg.react_us < 1 ? 1 : pw->cfg.react_us), SIM_EV_CAP, rack, 0, 0);
	}
}

/* Node `node`'s allocation or limit changed: integrate up to now at the
 * old power, then take the new one. */
static void pw_node_changed(struct sim *s, int32_t node)
{
	struct cluster *cl = &s->cl;
	struct power_state *pw = cl->pw;
	int32_t rack = cl->nodes[node].rack;
	power_advance_rack(cl, rack, s->now);
	power_advance_node(cl, node, s->now);
	double p = power_node_w(cl, node);
	pw->rack[rack].power_w += p - pw->node[node].power_w;
	pw->node[node].power_w = p;
	pw_rack_check(s, rack);
	pw_schedule_crossing(s, node);
}

static void pw_parts_changed(struct sim *s, const struct alloc_part *parts, int n)
{
	for (int i = 0; i < n; i++)
		pw_node_changed(s, parts[i].node);
}

static int32_t onnode_sorted(struct sim *s, int32_t node);

/* Sets a node's GPU power limit: the jobs on it change power and speed. */
static int pw_set_limit(struct sim *s, int32_t node, double lim)
{
	struct cluster *cl = &s->cl;
	if (cl->pw->node[node].limit == lim)
		return 0;
	/* Energy and progress so far at the old limit. */
	power_advance_rack(cl, cl->nodes[node].rack, s->now);
	int32_t n = onnode_sorted(s, node);   /* in running-list order, as a walk meets them */
	if (n < 0)
		return fail(s, "out of memory");
	for (int32_t k = 0; k < n; k++)
		job_energy_advance(s, s->onbuf[k]);
	cl->pw->node[node].limit = lim;
	pw_node_changed(s, node);
	for (int32_t k = 0; k < n; k++) {
		int32_t id = s->onbuf[k];
		s->run[id].power_w = job_active_w(s, &s->jobs[id]);
		if (sim_job_retime(s, id))
			return -1;
	}
	return 0;
}

/* A node reached a temperature threshold. */
static void pw_thermal(struct sim *s, int32_t node)
{
	struct cluster *cl = &s->cl;
	struct node_power *np = &cl->pw->node[node];
	const struct cooling_cfg *c = &cl->pw->cfg.cool[cl->nodes[node].cooling];
	power_advance_rack(cl, cl->nodes[node].rack, s->now);
	power_advance_node(cl, node, s->now);
	const double eps = 1e-6;
	uint8_t old = np->flags;
	if (np->temp_c >= c->throttle_c - eps)
		np->flags |= PW_NODE_THROTTLED | PW_NODE_HOT;
	else if (np->temp_c >= c->warn_c - eps)
		np->flags |= PW_NODE_HOT;
	if ((old & (PW_NODE_HOT | PW_NODE_THROTTLED)) && np->temp_c <= c->resume_c + eps)
		np->flags &= (uint8_t)~(PW_NODE_HOT | PW_NODE_THROTTLED);
	if ((old ^ np->flags) & PW_NODE_HOT)
		s->dirty = true;
	if ((old ^ np->flags) & PW_NODE_THROTTLED)
		pw_set_limit(s, node, power_node_limit(cl, node));
	pw_schedule_crossing(s, node);
}

/* The capping controller of a rack acts. */
static void pw_cap(struct sim *s, int32_t rack)
{
	struct cluster *cl = &s->cl;
	struct rack_power *rp = &cl->pw->rack[rack];
	rp->react_pending = false;
	power_advance_rack(cl, rack, s->now);
	double target = power_rack_target(cl, rack);
	if (target != rp->throttle) {
		rp->throttle = target;
		const struct rack *r = &cl->racks[rack];
		for (int32_t i = r->first_node; i < r->first_node + r->nnodes; i++)
			if (pw_set_limit(s, i, power_node_limit(cl, i)))
				return;
	}
	/* Nothing more to do until the rack's load changes: a node change
	 * calls pw_rack_check, which brings the controller back. */
}

/* An environment event of the scenario. */
static void pw_env(struct sim *s, const struct env_event *e)
{
	struct cluster *cl = &s->cl;
	struct power_state *pw = cl->pw;
	if (e->kind == ENV_RACK_CAP) {
		power_advance_rack(cl, e->target, s->now);
		pw->rack[e->target].cap_w = e->value;
		pw_rack_check(s, e->target);
		return;
	}
	for (int32_t r = 0; r < cl->nracks; r++)
		if (cl->racks[r].cooling == e->target)
			power_advance_rack(cl, r, s->now);
	for (int32_t i = 0; i < cl->nnodes; i++)
		if (cl->nodes[i].cooling == e->target)
			power_advance_node(cl, i, s->now);
	if (e->kind == ENV_INLET)
		pw->cfg.cool[e->target].inlet_c = e->value;
	else
		pw->cfg.cool[e->target].rise_c *= e->value;
	for (int32_t i = 0; i < cl->nnodes; i++)
		if (cl->nodes[i].cooling == e->target)
			pw_schedule_crossing(s, i);
}

/* Brings every integral up to the end of the run. */
static void pw_finish(struct sim *s)
{
	struct cluster *cl = &s->cl;
	struct power_state *pw = cl->pw;
	for (int32_t r = 0; r < cl->nracks; r++)
		power_advance_rack(cl, r, s->now);
	pw->idle_energy_j = 0;
	for (int32_t i = 0; i < cl->nnodes; i++) {
		power_advance_node(cl, i, s->now);
		pw->idle_energy_j += power_node_idle_w(cl, i) * simtime_to_s(s->now);
	}
	for (int32_t k = 0; k < s->nrunning; k++)
		job_energy_advance(s, s->running[k]);
}

/* The job's checkpoint interval (reference work) and cost (wall time). */
static void ckpt_of(const struct sim *s, const struct job *j, double *every, double *cost)
{
	*every = (double)j->ckpt_every_us;
	*cost = (double)s->cfg.ckpt[j->cls].cost_us;
}

/* Sets the job's rate from its device speed and checkpoint pauses: with an
 * interval I of work and a cost c of wall time per checkpoint, a device
 * rate r gives r · I / (I + r · c), and a share r·c / (I + r·c) of the wall
 * time goes to writing checkpoints (the pauses spread evenly: a fluid
 * approximation, docs/models.md). */
static void set_rate(struct sim *s, int32_t id)
{
	struct jobrun *r = &s->run[id];
	double every, cost;
	ckpt_of(s, &s->jobs[id], &every, &cost);
	r->dev_rate = sim_job_speed(s, id);
	r->rate = r->dev_rate;
	r->ckfrac = 0;
	if (every > 0 && cost > 0) {
		double w = r->dev_rate * cost;
		r->rate = r->dev_rate * every / (every + w);
		r->ckfrac = w / (every + w);
	}
}

/* Brings job id's progress (and checkpoint time) up to now. */
static void advance(struct sim *s, int32_t id)
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

/* GPUs a part holds in card equivalents: a share its milli, a MIG
 * instance its compute slices over the card's. */
static double part_gpu_eq(const struct cluster *cl, const struct alloc_part *p)
{
	if (!p->gpus)
		return 0;
	if (p->milli > 0)
		return p->milli / (double)HL_MILLI;
	const struct node *n = &cl->nodes[p->node];
	if (p->mig_profile >= 0 && cl->gpu && cl->gpu[n->gpu0 + __builtin_ctzll(p->gpus)].mig) {
		const struct mig_card *c = cl->gpu[n->gpu0 + __builtin_ctzll(p->gpus)].mig->card;
		return (double)c->profiles[p->mig_profile].compute_slices / c->compute_slices;
	}
	return hl_popcount64(p->gpus);
}

/* GPUs a running job holds in card equivalents: its request's whole cards,
 * or the fraction of one card its share or MIG instance is. */
static double job_gpu_eq(const struct sim *s, const struct job *j)
{
	if (j->req.gpus == 0 || j->nparts == 0)
		return 0;
	if (job_req_shared(&j->req))
		return part_gpu_eq(&s->cl, &s->cl.pool.p[j->parts]);
	return (double)job_req_gpus(&j->req);
}

/* Adds the run segment that ends now to the job's usage. The allocation
 * always matches the request, so the request gives the totals. */
static void account_segment(struct sim *s, struct job *j)
{
	if (j->start_us < 0 || j->nparts == 0)
		return;
	/* Live: an attempt the executor never saw run used nothing; one that
	 * ended earlier than now (the executor's clock) ends there. */
	if (s->cfg.live && !s->run[j->id].confirmed)
		return;
	simtime from = s->cfg.live ? s->run[j->id].acct_start : j->start_us;
	simtime end = s->acct_at && s->acct_end >= from ? s->acct_end : s->now;
	double secs = simtime_to_s(end - from);
	j->gpu_s += job_gpu_eq(s, j) * secs;
	j->core_s += (double)job_req_cores(&j->req) * secs;
}

/* Pushes the end of running job id from its progress state. */
static int push_end(struct sim *s, int32_t id)
{
	struct job *j = &s->jobs[id];
	const struct jobrun *r = &s->run[id];
	double left = r->work_us / r->rate;
	simtime end = r->since + (left > 4e18 ? (simtime)4e18 : (simtime)ceil(left - 1e-6));
	enum job_state st = s->truth[id].fails ? JOB_FAILED : JOB_DONE;
	enum end_reason why = s->truth[id].fails ? END_TRACE_FAIL : END_NONE;
	if (j->walltime_us != SIMTIME_INF && !s->cfg.keep_overruns) {
		simtime wall = j->start_us + (j->walltime_us < 1 ? 1 : j->walltime_us);
		if (end > wall) {
			end = wall;
			st = JOB_KILLED;
			why = END_WALLTIME;
		}
	}
	if (end <= s->now)
		end = s->now + 1;
	return sim_push(s, end, SIM_EV_END, id, j->ver, SIM_END_ARG(st, why));
}

/* Does job id lack the GPU memory it needs where it was placed? */
static bool job_oom(const struct sim *s, int32_t id)
{
	const struct job *j = &s->jobs[id];
	const struct cluster *cl = &s->cl;
	if (j->req.gpu_mem_mib <= 0 || j->req.gpus == 0)
		return false;
	for (int i = 0; i < j->nparts; i++) {
		const struct alloc_part *p = &cl->pool.p[j->parts + (uint32_t)i];
		const struct node *n = &cl->nodes[p->node];
		if (p->milli > 0) {
			const struct gpustate *gs = &cl->gpu[n->gpu0 + __builtin_ctzll(p->gpus)];
			if (gs->mem_need_mib > n->gpu_mem_mib)
				return true;   /* the card's sharers together need more than it has */
		} else if (j->req.gpu_mem_mib > cluster_part_gpu_mem(cl, p)) {
			return true;
		}
	}
	return false;
}

int sim_job_begin(struct sim *s, int32_t id)
{
	struct jobrun *r = &s->run[id];
	const struct job *j = &s->jobs[id];
	if (job_oom(s, id)) {
		/* It allocates, then dies: it holds its resources until then. */
		r->rate = 0;
		simtime after = s->cl.oom_after_us < 1 ? 1 : s->cl.oom_after_us;
		return sim_push(s, r->since + after, SIM_EV_END, id, j->ver, SIM_END_ARG(JOB_FAILED, END_OOM));
	}
	double total = s->truth[id].run_us < 1 ? 1.0 : (double)s->truth[id].run_us;
	r->work_us = total - r->saved_us;   /* a requeued job resumes from its checkpoint */
	if (r->work_us < 1)
		r->work_us = 1;
	set_rate(s, id);
	return push_end(s, id);
}

int sim_job_retime(struct sim *s, int32_t id)
{
	struct jobrun *r = &s->run[id];
	if (r->rate <= 0)
		return 0;   /* not progressing (failing with OOM, or writing its last checkpoint) */
	double old = r->rate;
	advance(s, id);
	set_rate(s, id);
	if (r->rate == old)
		return 0;
	s->jobs[id].ver++;
	return push_end(s, id);
}

/* After job `id` started or ended with `parts`: the jobs whose speed may
 * have changed — those time-sharing its cards, and those on its storage
 * pool when the pool is (or was) oversubscribed; io_delta is the change of
 * the pool's reservation. */
static int retime_neighbours(struct sim *s, int32_t id, const struct alloc_part *parts, int nparts,
                             double io_delta)
{
	const struct cluster *cl = &s->cl;
	const struct job *j = &s->jobs[id];
	if (!s->cfg.speed_model)
		return 0;
	for (int i = 0; i < nparts; i++) {
		if (parts[i].milli <= 0)
			continue;
		const struct gpustate *gs = &cl->gpu[cl->nodes[parts[i].node].gpu0 + __builtin_ctzll(parts[i].gpus)];
		int32_t ids[HL_SHARE_MAX];
		int n = gs->nshare < HL_SHARE_MAX ? gs->nshare : HL_SHARE_MAX;
		memcpy(ids, gs->sharer, (size_t)n * sizeof *ids);
		for (int k = 0; k < n; k++)
			if (ids[k] != id && sim_job_retime(s, ids[k]))
				return -1;
	}
	if (j->req.pool > 0 && j->req.io_mbps > 0) {
		const struct storage_pool *po = &cl->pools[j->req.pool - 1];
		double before = po->resv_mbps - io_delta;
		if (po->resv_mbps > po->bw_mbps || before > po->bw_mbps)
			for (int32_t k = 0; k < s->nrunning; k++) {
				int32_t o = s->running[k];
				if (o != id && s->jobs[o].req.pool == j->req.pool && sim_job_retime(s, o))
					return -1;
			}
	}
	return 0;
}

/* Every job ends exactly once; the allocation goes back after the recorder
 * has seen it. */
/* Gives a running job's allocation back and takes it off the running list. */
/* The health monitor looks again at `node` at the next pass (its record
 * or service state changed); at every node when the log cannot grow. */
static void health_mark(struct sim *s, int32_t node)
{
	struct cluster *cl = &s->cl;
	if (!cl->health || cl->hlogged[node])
		return;
	if (cl->nhlog == cl->caphlog) {
		int32_t cap = cl->caphlog ? 2 * cl->caphlog : 64;
		int32_t *l = realloc(cl->hlog, (size_t)cap * sizeof *l);
		if (!l) {
			cl->hlog_all = true;
			return;
		}
		cl->hlog = l;
		cl->caphlog = cap;
	}
	cl->hlogged[node] = 1;
	cl->hlog[cl->nhlog++] = node;
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

static void node_emptied(struct sim *s, int32_t node);

static int onnode_add(struct sim *s, const struct alloc_part *parts, int nparts, int32_t id)
{
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

static void onnode_del(struct sim *s, const struct alloc_part *parts, int nparts, int32_t id)
{
	for (int i = 0; i < nparts; i++) {
		struct nodejobs *o = &s->onnode[parts[i].node];
		for (int32_t k = 0; k < o->n; k++)
			if (o->id[k] == id) {
				o->id[k] = o->id[--o->n];
				break;
			}
	}
}

static int cmp_run_idx(const void *a, const void *b, void *ctx)
{
	const struct job *jobs = ctx;
	int32_t x = jobs[*(const int32_t *)a].run_idx, y = jobs[*(const int32_t *)b].run_idx;
	return (x > y) - (x < y);
}

/* The running jobs on `node`, in running-list order (as a walk of the
 * running list meets them), into s->onbuf; their number, -1 when memory
 * runs out. */
static int32_t onnode_sorted(struct sim *s, int32_t node)
{
	const struct nodejobs *o = &s->onnode[node];
	if (o->n > s->cap_onbuf) {
		int32_t *b = realloc(s->onbuf, (size_t)o->cap * sizeof *b);
		if (!b)
			return -1;
		s->onbuf = b;
		s->cap_onbuf = o->cap;
	}
	if (o->n == 0)
		return 0;
	memcpy(s->onbuf, o->id, (size_t)o->n * sizeof *s->onbuf);
	qsort_r(s->onbuf, (size_t)o->n, sizeof *s->onbuf, cmp_run_idx, s->jobs);
	return o->n;
}

/* Does any running job but `except` hold a part on node? */
static bool node_has_jobs(const struct sim *s, int32_t node, int32_t except)
{
	const struct nodejobs *o = &s->onnode[node];
	for (int32_t k = 0; k < o->n; k++)
		if (o->id[k] != except)
			return true;
	return false;
}

static int release_alloc(struct sim *s, int32_t id)
{
	struct job *j = &s->jobs[id];
	cluster_give(&s->cl, id, &j->req, &s->cl.pool.p[j->parts], j->nparts);
	onnode_del(s, &s->cl.pool.p[j->parts], j->nparts, id);
	for (int i = 0; i < j->nparts; i++) {
		int32_t n = s->cl.pool.p[j->parts + (uint32_t)i].node;
		if (s->cl.svc[n] == NODE_DRAINING && !node_has_jobs(s, n, id)) {
			health_mark(s, n);
			node_emptied(s, n);
		}
	}
	if (s->cl.pw)
		pw_parts_changed(s, &s->cl.pool.p[j->parts], j->nparts);
	s->alloc_epoch++;
	s->run[id].rate = 0;
	if (retime_neighbours(s, id, &s->cl.pool.p[j->parts], j->nparts, -(double)j->req.io_mbps))
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
		return fail(s, "job %d ends in state %s at t=%lld us", id,
		            job_state_name((enum job_state)j->state), (long long)s->now);
	advance(s, id);
	job_energy_advance(s, id);
	if (job_set_state(j, st))
		return fail(s, "job %d: illegal transition to %s", id, job_state_name(st));
	j->end_us = s->acct_at && s->acct_end >= j->start_us ? s->acct_end : s->acct_at ? j->start_us : s->now;
	j->ver++;
	j->signalled_us = -1;
	s->run[id].stop_at = -1;
	account_segment(s, j);
	if (st == JOB_FAILED && s->cl.health)
		for (int i = 0; i < j->nparts; i++) {
			struct node_health *h = &s->cl.health[s->cl.pool.p[j->parts + (uint32_t)i].node];
			h->job_fail_at[h->job_fails++ % HEALTH_RING] = s->now;
			health_mark(s, s->cl.pool.p[j->parts + (uint32_t)i].node);
		}
	rec_event(s, REC_END, id, j->nparts ? s->cl.pool.p[j->parts].node : -1, st,
	          j->reason != END_NONE ? end_reason_name((enum end_reason)j->reason) : NULL);
	if (s->rec.job_end)
		s->rec.job_end(s->rec.ctx, s, j);
	if (release_alloc(s, id))
		return -1;
	s->nfinished++;
	finish_hook(s, id);
	return 0;
}

/* Puts job id into the pending list at its place by submit time (the list
 * is in submit order; a requeued or released job keeps its submit time). */
static void pending_insert(struct sim *s, int32_t id)
{
	int32_t lo = 0, hi = s->npending;
	const struct job *j = &s->jobs[id];
	while (lo < hi) {
		int32_t mid = (lo + hi) / 2;
		const struct job *m = &s->jobs[s->pending[mid]];
		if (m->submit_us < j->submit_us || (m->submit_us == j->submit_us && m->id < j->id))
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&s->pending[lo + 1], &s->pending[lo], (size_t)(s->npending - lo) * sizeof *s->pending);
	s->pending[lo] = id;
	s->npending++;
	s->dirty = true;
}

/* The end of a preempted job's grace (or of its last checkpoint): it stops,
 * its resources are freed, and it is requeued with the work it saved. */
static int requeue_job(struct sim *s, int32_t id, const char *why);

static int stop_preempted(struct sim *s, int32_t id)
{
	return requeue_job(s, id, NULL);
}

/* Stops running job id and requeues it with the work its checkpoint
 * saved; why (NULL: a preemption) goes into the event's detail. */
static int requeue_job(struct sim *s, int32_t id, const char *why)
{
	struct job *j = &s->jobs[id];
	struct jobrun *r = &s->run[id];
	double every, cost;
	if (s->cfg.live) {
		/* Live: the job saved what its own checkpoint saved; we cannot
		 * know how much work that was. */
		account_segment(s, j);
		r->stop_at = -1;
		j->signalled_us = -1;
		j->ver++;
		int node = j->nparts ? s->cl.pool.p[j->parts].node : -1;
		if (release_alloc(s, id))
			return -1;
		job_set_state(j, JOB_PREEMPTED);
		job_set_state(j, JOB_PENDING);
		rec_event(s, REC_REQUEUE, id, node, JOB_PENDING, why ? why : "requeued after its grace");
		pending_insert(s, id);
		return 0;
	}
	ckpt_of(s, j, &every, &cost);
	advance(s, id);
	job_energy_advance(s, id);
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
	if (release_alloc(s, id))
		return -1;
	job_set_state(j, JOB_PREEMPTED);
	job_set_state(j, JOB_PENDING);
	rec_event(s, REC_REQUEUE, id, node, JOB_PENDING, detail);
	pending_insert(s, id);
	return 0;
}


/* ---- faults, drains, joins (sim/fault.h) ---- */

static bool job_uses(const struct sim *s, const struct job *j, int32_t node, int gpu)
{
	for (int i = 0; i < j->nparts; i++) {
		const struct alloc_part *p = &s->cl.pool.p[j->parts + (uint32_t)i];
		if (p->node == node && (gpu < 0 || ((p->gpus >> gpu) & 1u)))
			return true;
	}
	return false;
}

/* The jobs on a failed node (or GPU) fail or move, by the scenario's
 * migration scope. */
static int fault_hit_jobs(struct sim *s, int32_t node, int gpu, const char *why)
{
	int scope = s->cfg.fault ? s->cfg.fault->migrate : MIGRATE_NONE;
	/* Downwards in the running list, as a walk from its end meets them
	 * (removing one moves the last, already seen, into its place). */
	int32_t n = onnode_sorted(s, node);
	if (n < 0)
		return fail(s, "out of memory");
	for (int32_t k = n - 1; k >= 0; k--) {
		int32_t id = s->onbuf[k];
		struct job *j = &s->jobs[id];
		if (j->run_idx < 0 || !job_uses(s, j, node, gpu))
			continue;
		bool move = scope == MIGRATE_ALL || (scope == MIGRATE_CHECKPOINTED && j->ckpt_every_us > 0);
		exec_stop_live(s, id, move ? EXEC_STOP_PREEMPT : EXEC_STOP_KILL);
		if (move) {
			if (requeue_job(s, id, why))
				return -1;
		} else {
			advance(s, id);
			j->reason = END_NODE_FAIL;
			if (sim_job_end(s, id, JOB_FAILED))
				return -1;
		}
	}
	return 0;
}

static int retime_node(struct sim *s, int32_t node)
{
	int32_t n = onnode_sorted(s, node);
	if (n < 0)
		return fail(s, "out of memory");
	for (int32_t k = 0; k < n; k++)
		if (sim_job_retime(s, s->onbuf[k]))
			return -1;
	return 0;
}

/* Adds (present = true) or removes a node's capacity from the totals. */
static void node_presence(struct sim *s, int32_t node, bool present)
{
	struct cluster *cl = &s->cl;
	int64_t sign = present ? 1 : -1;
	cl->total_cores += sign * cl->nodes[node].cores;
	cl->free_cores += sign * cl->free[node].cores;
	cl->total_gpus += sign * cl->nodes[node].ngpus;
	cl->free_gpus += sign * cl->free[node].gpus;
}

static void node_emptied(struct sim *s, int32_t node)
{
	struct node_health *h = s->cl.health ? &s->cl.health[node] : NULL;
	if (h && strcmp(h->drain_reason, "leave") == 0) {
		s->cl.svc[node] = NODE_ABSENT;
		node_presence(s, node, false);
		if (s->cl.pw)
			pw_node_changed(s, node);
		rec_event(s, REC_LEAVE, -1, node, 0, NULL);
		return;
	}
	s->cl.svc[node] = NODE_DRAINED;
}

static void fault_schedule(struct sim *s, int32_t node, int kind)
{
	const struct fault_proc *fp = &s->cfg.fault->proc[kind];
	gsl_rng *r = s->fault_rng[kind];
	if (fp->dist == FDIST_NONE || !r || s->nfinished >= s->njobs)
		return;   /* no failures once every job has ended: the run is over */
	double dt = fp->dist == FDIST_EXP ? gsl_ran_exponential(r, fp->mtbf_s)
	                                  : gsl_ran_weibull(r, fp->scale_s, fp->shape);
	simtime at = s->now + simtime_from_s(dt < 1e-6 ? 1e-6 : dt);
	int32_t gpu = s->cl.nodes[node].ngpus > 0 ? (int32_t)gsl_rng_uniform_int(r, (unsigned long)s->cl.nodes[node].ngpus) : 0;
	sim_push(s, at, SIM_EV_FAULT, node, 0, kind | (gpu << 8));
}

/* A card is back: whole-card pools get it again (MIG cards are not pooled). */
static void gpu_back(struct sim *s, int32_t node, int g)
{
	struct cluster *cl = &s->cl;
	const struct node *n = &cl->nodes[node];
	if (g < n->mig_cards || g >= n->ngpus || ((cl->free[node].gpu_free >> g) & 1u) || cl->gpu[n->gpu0 + g].nshare)
		return;
	cl->free[node].gpu_free |= 1ull << g;
	cl->free[node].gpus++;
	cluster_free_changed(cl, node);
	if (cl->svc[node] != NODE_ABSENT)
		cl->free_gpus++;
}

static int apply_fault(struct sim *s, int32_t node, int kind, int gpu, double value, double repair_s)
{
	struct cluster *cl = &s->cl;
	struct node_health *h = &cl->health[node];
	const struct node *n = &cl->nodes[node];
	if (cl->svc[node] == NODE_ABSENT || (kind == FAULT_NODE_CRASH && cl->svc[node] == NODE_DOWN))
		return 0;
	if (gpu >= n->ngpus)
		gpu = n->ngpus ? 0 : -1;
	char detail[96];
	if (gpu >= 0 && (kind == FAULT_GPU_XID || kind == FAULT_GPU_DEGRADE))
		snprintf(detail, sizeof detail, "%s gpu %d", fault_kind_name(kind), gpu);
	else
		snprintf(detail, sizeof detail, "%s", fault_kind_name(kind));
	rec_event(s, REC_FAULT, -1, node, 0, detail);
	switch (kind) {
	case FAULT_NODE_CRASH:
		h->crash_at[h->crashes++ % HEALTH_RING] = s->now;
		if (fault_hit_jobs(s, node, -1, "node crash"))
			return -1;
		if (cl->svc[node] == NODE_UP || cl->svc[node] == NODE_DRAINING || cl->svc[node] == NODE_DRAINED)
			cl->svc[node] = NODE_DOWN;
		h->down_until = s->now + simtime_from_s(repair_s);
		break;
	case FAULT_GPU_XID:
		if (gpu < 0)
			return 0;
		h->gpu_speed[gpu] = 0;
		if (fault_hit_jobs(s, node, gpu, "GPU fell off the bus"))
			return -1;
		if ((cl->free[node].gpu_free >> gpu) & 1u) {
			cl->free[node].gpu_free &= ~(1ull << gpu);
			cl->free[node].gpus--;
			cluster_free_changed(cl, node);
			cl->free_gpus--;
		}
		break;
	case FAULT_GPU_DEGRADE:
		if (gpu < 0)
			return 0;
		h->gpu_speed[gpu] = value;
		break;
	case FAULT_NIC:
		h->nic_loss = value;
		break;
	case FAULT_SMART:
		h->smart = true;
		break;
	case FAULT_DRIVER:
		h->driver_drift = true;
		break;
	}
	if (retime_node(s, node))
		return -1;
	s->dirty = true;
	return sim_push(s, s->now + simtime_from_s(repair_s < 1e-6 ? 1e-6 : repair_s), SIM_EV_REPAIR, node, 0,
	                kind | ((gpu < 0 ? 0 : gpu) << 8));
}

static int repair(struct sim *s, int32_t node, int kind, int gpu)
{
	struct cluster *cl = &s->cl;
	struct node_health *h = &cl->health[node];
	switch (kind) {
	case FAULT_NODE_CRASH:
		if (cl->svc[node] == NODE_DOWN)
			cl->svc[node] = h->drained_since >= 0 ? NODE_DRAINED : NODE_UP;
		h->down_until = -1;
		break;
	case FAULT_GPU_XID:
		h->gpu_speed[gpu] = 1;
		gpu_back(s, node, gpu);
		break;
	case FAULT_GPU_DEGRADE:
		h->gpu_speed[gpu] = 1;
		break;
	case FAULT_NIC:
		h->nic_loss = 0;
		break;
	case FAULT_SMART:
		h->smart = false;
		break;
	case FAULT_DRIVER:
		h->driver_drift = false;
		break;
	}
	rec_event(s, REC_REPAIR, -1, node, 0, fault_kind_name(kind));
	s->dirty = true;
	if (retime_node(s, node))
		return -1;
	if (cl->svc[node] != NODE_ABSENT)
		fault_schedule(s, node, kind);   /* its next failure, from now */
	return 0;
}

static int fault_event(struct sim *s, const struct fault_event *e)
{
	struct cluster *cl = &s->cl;
	switch (e->kind) {
	case FEV_FAULT: {
		double rep = e->repair_s >= 0 ? e->repair_s : s->cfg.fault->proc[e->fault].repair_s;
		return apply_fault(s, e->node, e->fault, e->gpu < 0 ? 0 : e->gpu, e->value, rep);
	}
	case FEV_JOIN:
		if (cl->svc[e->node] != NODE_ABSENT)
			return 0;
		cl->svc[e->node] = NODE_UP;
		node_presence(s, e->node, true);
		if (cl->pw)
			pw_node_changed(s, e->node);
		rec_event(s, REC_JOIN, -1, e->node, 0, cl->types[cl->nodes[e->node].type].name);
		s->dirty = true;
		for (int k = 0; k < FAULT_NKIND; k++)
			fault_schedule(s, e->node, k);
		return 0;
	case FEV_LEAVE: {
		struct node_health *h = &cl->health[e->node];
		if (cl->svc[e->node] == NODE_ABSENT)
			return 0;
		snprintf(h->drain_reason, sizeof h->drain_reason, "leave");
		h->drained_since = s->now;
		rec_event(s, REC_DRAIN, -1, e->node, 0, "leave (decommission)");
		if (!node_has_jobs(s, e->node, -1) && cl->svc[e->node] != NODE_DOWN)
			node_emptied(s, e->node);
		else if (cl->svc[e->node] != NODE_DOWN)
			cl->svc[e->node] = NODE_DRAINING;
		return 0;
	}
	}
	return 0;
}

/* Sets up the failure processes, injected events and absent nodes. */
static int faults_init(struct sim *s)
{
	struct cluster *cl = &s->cl;
	const struct fault_cfg *fc = s->cfg.fault;
	if (!cl->health && !(cl->health = calloc((size_t)cl->nnodes + 1, sizeof *cl->health)))
		return -1;
	if (!cl->hlogged && !(cl->hlogged = calloc((size_t)cl->nnodes + 1, 1)))
		return -1;
	cl->hlog_all = true;
	for (int32_t i = 0; i < cl->nnodes; i++) {
		struct node_health *h = &cl->health[i];
		for (int g = 0; g < 64; g++)
			h->gpu_speed[g] = 1;
		h->down_until = -1;
		h->drained_since = -1;
	}
	for (int32_t k = 0; k < fc->nev; k++)
		if (fc->ev[k].kind == FEV_JOIN && cl->svc[fc->ev[k].node] != NODE_ABSENT) {
			cl->svc[fc->ev[k].node] = NODE_ABSENT;
			node_presence(s, fc->ev[k].node, false);
			if (cl->pw)
				pw_node_changed(s, fc->ev[k].node);   /* absent: no power until it joins */
		}
	for (int k = 0; k < FAULT_NKIND && k < 8; k++) {
		if (fc->proc[k].dist == FDIST_NONE)
			continue;
		gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
		if (!r)
			return -1;
		gsl_rng_set(r, (unsigned long)(s->cfg.seed * 1000003u + 7919u * (uint64_t)(k + 1)));
		s->fault_rng[k] = r;
		for (int32_t i = 0; i < cl->nnodes; i++)
			if (cl->svc[i] != NODE_ABSENT)
				fault_schedule(s, i, k);
	}
	for (int32_t k = 0; k < fc->nev; k++)
		if (sim_push(s, fc->ev[k].at_us, SIM_EV_FEVENT, -1, 0, k))
			return -1;
	return 0;
}

int decide_drain(struct decide *d, int32_t node, const char *reason)
{
	struct sim *s = d->s;
	struct cluster *cl = &s->cl;
	if (s->failed)
		return -1;
	if (node < 0 || node >= cl->nnodes || !cl->health || (cl->svc[node] != NODE_UP && cl->svc[node] != NODE_DOWN))
		return fail(s, "health monitor made an invalid decision at t=%.6f s: drain of node %d, which is not up",
		            simtime_to_s(s->now), node);
	struct node_health *h = &cl->health[node];
	health_mark(s, node);
	snprintf(h->drain_reason, sizeof h->drain_reason, "%s", reason ? reason : "");
	h->drained_since = s->now;
	if (cl->svc[node] == NODE_UP)
		cl->svc[node] = node_has_jobs(s, node, -1) ? NODE_DRAINING : NODE_DRAINED;
	rec_event(s, REC_DRAIN, -1, node, 0, reason);
	if (s->cfg.live && s->exec->node_state)
		s->exec->node_state(s->exec_ctx, s, node, true, reason ? reason : "");
	return 0;
}

int decide_resume(struct decide *d, int32_t node)
{
	struct sim *s = d->s;
	struct cluster *cl = &s->cl;
	if (s->failed)
		return -1;
	if (node < 0 || node >= cl->nnodes || !cl->health ||
	    (cl->svc[node] != NODE_DRAINED && cl->svc[node] != NODE_DRAINING && cl->svc[node] != NODE_DOWN))
		return fail(s, "health monitor made an invalid decision at t=%.6f s: resume of node %d, which is not drained",
		            simtime_to_s(s->now), node);
	struct node_health *h = &cl->health[node];
	if (strcmp(h->drain_reason, "leave") == 0)
		return 0;   /* leaving for good */
	health_mark(s, node);
	h->drained_since = -1;
	h->drain_reason[0] = 0;
	if (cl->svc[node] != NODE_DOWN)
		cl->svc[node] = NODE_UP;
	rec_event(s, REC_RESUME, -1, node, 0, NULL);
	if (s->cfg.live && s->exec->node_state)
		s->exec->node_state(s->exec_ctx, s, node, false, NULL);
	s->dirty = true;
	return 0;
}

int decide_wake(struct decide *d, simtime at)
{
	struct sim *s = d->s;
	if (s->failed)
		return -1;
	return sim_push(s, at > s->now ? at : s->now + 1, SIM_EV_WAKE, -1, 0, 0);
}

int decide_preempt(struct decide *d, int32_t id, const char *reason)
{
	struct sim *s = d->s;
	if (s->failed)
		return -1;
	if (id < 0 || id >= s->njobs || s->jobs[id].state != JOB_RUNNING)
		return fail(s, "policy '%s' made an invalid decision at t=%.6f s: preemption of job %d, which is not running%s",
		            s->sched.name ? s->sched.name : "?", simtime_to_s(s->now), id,
		            id >= 0 && id < s->njobs && s->jobs[id].state == JOB_CHECKPOINTING ? " (already signalled)" : "");
	struct job *j = &s->jobs[id];
	struct jobrun *r = &s->run[id];
	const struct ckpt_cfg *cc = &s->cfg.ckpt[j->cls];
	double every, cost;
	ckpt_of(s, j, &every, &cost);
	advance(s, id);
	job_set_state(j, JOB_CHECKPOINTING);
	j->signalled_us = s->now;
	j->preemptions++;
	rec_event(s, REC_PREEMPT, id, j->nparts ? s->cl.pool.p[j->parts].node : -1, JOB_CHECKPOINTING, reason);
	simtime after;
	if (s->cfg.live) {
		/* The job is told to checkpoint; it is stopped at the end of its
		 * grace unless it exits first (SIM_EV_XEND requeues it then). */
		if (s->exec->signal)
			s->exec->signal(s->exec_ctx, s, id);
		after = cc->grace_us;
	} else if (every > 0 && cc->grace_us >= cc->cost_us && r->rate > 0) {
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
static void end_unstarted(struct sim *s, int32_t id, enum end_reason why, const char *detail)
{
	struct job *j = &s->jobs[id];
	job_set_state(j, JOB_KILLED);
	j->reason = (uint8_t)why;
	j->end_us = s->now;
	rec_event(s, REC_END, id, -1, JOB_KILLED, detail);
	if (s->rec.job_end)
		s->rec.job_end(s->rec.ctx, s, j);
	s->nfinished++;
}

/* Rejects at submit a job that could not run even on the empty cluster, as
 * Slurm does, so that it cannot block a queue for ever. */
static void submit_one(struct sim *s, int32_t id)
{
	struct job *j = &s->jobs[id];
	rec_event(s, REC_SUBMIT, id, -1, JOB_PENDING, NULL);
	if (!cluster_can_ever_fit(&s->cl, &j->req)) {
		end_unstarted(s, id, END_REJECTED, "request exceeds the cluster");
		s->nrejected++;
		return;
	}
	s->pending[s->npending++] = id;
	s->dirty = true;
	if (s->sched.submit) {
		struct view v;
		view_fill(s, &v);
		s->sched.submit(s->sched.state, &v, id);
	}
}

static void handle_submit(struct sim *s)
{
	simtime t = s->now;
	while (s->next_submit < s->njobs && s->jobs[s->next_submit].submit_us <= t)
		submit_one(s, s->next_submit++);
	if (s->next_submit < s->njobs)
		sim_push(s, s->jobs[s->next_submit].submit_us, SIM_EV_SUBMIT, s->next_submit, 0, 0);
}

static int64_t sample_rows_max(const struct sim *s)
{
	return s->cfg.max_sample_rows > 0 ? s->cfg.max_sample_rows : SIM_SAMPLE_ROWS_MAX;
}

#define SAMPLE_LIMIT_HINT "raise $.sample_interval_s or set $.horizon_days (docs/scenario.md \"Limits\")"

static void handle_sample(struct sim *s)
{
	if (!s->rec.sample)
		goto next;   /* nobody records samples: skip the probes */
	s->sample_rows += 1 + s->cl.nracks;
	if (!s->cfg.live && s->sample_rows > sample_rows_max(s)) {
		fail(s, "at day %.1f the run's samples pass %lld rows (sample and rack_sample), the most "
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
	if (s->probe && s->probe->node) {
		for (int32_t i = 0; i < s->cl.nnodes; i++) {
			struct probe_node pn;
			if (s->rd && s->rd[i].ok && isfinite(s->rd[i].power_w)) {
				smp.power_w += s->rd[i].power_w;
				s->rack_w[s->cl.nodes[i].rack] += s->rd[i].power_w;
			} else if (s->probe->node(s->probe_ctx, s, i, &pn) == 0) {
				smp.power_w += pn.power_w;
				s->rack_w[s->cl.nodes[i].rack] += pn.power_w;
			}
		}
	}
	smp.rack_power_w = s->rack_w;
	smp.nracks = s->cl.nracks;
	s->rec.sample(s->rec.ctx, &smp);
next:
	/* Sample on while anything can still happen: a job running, one yet to
	 * arrive, or another event due. Held jobs alone change nothing. */
	if (s->cfg.live ||
	    (s->nfinished < s->njobs && (s->nrunning > 0 || s->next_submit < s->njobs || evq_len(&s->q) > 0)))
		sim_push(s, s->now + s->cfg.sample_every_us, SIM_EV_SAMPLE, -1, 0, 0);
}

static void approve_tenant(struct sim *s, int32_t tenant, const char *detail);

static void handle(struct sim *s, const struct ev *e)
{
	switch (e->kind) {
	case SIM_EV_SUBMIT:
		handle_submit(s);
		break;
	case SIM_EV_END:
		if (e->ver != s->jobs[e->id].ver)
			break;   /* stale: the job was stopped or rescheduled */
		if (s->cfg.live) {
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
		if (s->jobs[e->id].state == JOB_CHECKPOINTING && s->run[e->id].stop_at == e->t) {
			exec_stop_live(s, e->id, EXEC_STOP_PREEMPT);
			stop_preempted(s, e->id);
		}
		break;
	case SIM_EV_APPROVE:
		approve_tenant(s, s->cfg.org->approve[e->arg].tenant, "approved");
		break;
	case SIM_EV_THERMAL:
		if (s->cl.pw && e->ver == s->cl.pw->node[e->id].ver)
			pw_thermal(s, e->id);
		break;
	case SIM_EV_CAP:
		if (s->cl.pw)
			pw_cap(s, e->id);
		break;
	case SIM_EV_ENV:
		if (s->cl.pw)
			pw_env(s, &s->cfg.env[e->arg]);
		break;
	case SIM_EV_FAULT:
		health_mark(s, e->id);
		if (s->cl.health)
			apply_fault(s, e->id, e->arg & 0xff, e->arg >> 8, s->cfg.fault->proc[e->arg & 0xff].value,
			            s->cfg.fault->proc[e->arg & 0xff].repair_s);
		break;
	case SIM_EV_REPAIR:
		health_mark(s, e->id);
		if (s->cl.health)
			repair(s, e->id, e->arg & 0xff, e->arg >> 8);
		break;
	case SIM_EV_FEVENT:
		s->cl.hlog_all = true;
		if (s->cl.health)
			fault_event(s, &s->cfg.fault->ev[e->arg]);
		break;
	default:
		if (!live_handle(s, e))
			fail(s, "unknown event kind %u at t=%lld us", e->kind, (long long)e->t);
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
	view_fill(s, &v);
	s->dirty = false;
	s->last_pass = s->now;
	s->npasses++;
	int32_t seen = s->cl.nhlog;
	bool all = s->cl.hlog_all;
	if (s->health.check)
		s->health.check(s->health.state, &v, &d);
	health_log_clear(&s->cl, seen, all);
	if (s->sched.schedule && !s->failed)
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
		return fail(s, "policy '%s' made an invalid decision at t=%.6f s: start of job %d, which does not exist",
		            pol, simtime_to_s(s->now), id);
	struct job *j = &s->jobs[id];
	if (j->state != JOB_PENDING || j->submit_us > s->now)
		return fail(s, "policy '%s' made an invalid decision at t=%.6f s: start of job %d (trace id %lld), which is %s, not pending",
		            pol, simtime_to_s(s->now), id, (long long)j->trace_id,
		            j->submit_us > s->now ? "not yet submitted" : job_state_name((enum job_state)j->state));
	if (nparts > s->cl.nnodes ||
	    cluster_check_alloc(&s->cl, s->cl.free, &j->req, parts, nparts, why, sizeof why))
		return fail(s, "policy '%s' made an invalid decision at t=%.6f s: start of job %d (trace id %lld): %s",
		            pol, simtime_to_s(s->now), id, (long long)j->trace_id,
		            nparts > s->cl.nnodes ? "more parts than nodes" : why);
	uint32_t off = partpool_get(&s->cl.pool, nparts);
	if (off == UINT32_MAX)
		return fail(s, "out of memory growing the allocation pool");
	memcpy(&s->cl.pool.p[off], parts, (size_t)nparts * sizeof *parts);
	simtime setup = cluster_take(&s->cl, id, &j->req, parts, nparts);
	if (onnode_add(s, parts, nparts, id))
		return fail(s, "out of memory indexing job %d's nodes", id);
	s->alloc_epoch++;
	job_set_state(j, JOB_RUNNING);
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
	if (s->cfg.live)
		live_started(s, id, prev_start);
	if (s->cl.pw) {
		pw_parts_changed(s, parts, nparts);
		s->run[id].power_w = job_active_w(s, j);
		s->run[id].power_since = s->now;
	}
	j->run_idx = s->nrunning;
	s->running[s->nrunning++] = id;
	s->ndecisions++;
	rec_event(s, REC_START, id, parts[0].node, JOB_RUNNING, NULL);
	/* The running list grew and the pool may have moved: the policy's
	 * next read of its view must see both. */
	view_fill(s, d->v);
	if (s->exec->start(s->exec_ctx, s, id))
		return fail(s, "executor '%s' could not start job %d: %s", s->exec->name, id,
		            s->err[0] ? s->err : "error");
	if (s->cfg.live && j->walltime_us != SIMTIME_INF && !s->cfg.keep_overruns &&
	    sim_push(s, s->now + (j->walltime_us < 1 ? 1 : j->walltime_us), SIM_EV_END, id, j->ver,
	             SIM_END_ARG(JOB_KILLED, END_WALLTIME)))
		return -1;
	if (retime_neighbours(s, id, &s->cl.pool.p[off], nparts, (double)j->req.io_mbps))
		return -1;
	return 0;
}

static void release_one(struct sim *s, int32_t id, const char *detail)
{
	struct job *j = &s->jobs[id];
	job_set_state(j, JOB_PENDING);
	if (j->hold_since >= 0)
		j->held_us += s->now - j->hold_since;
	j->hold_since = -1;
	rec_event(s, REC_RELEASE, id, -1, JOB_PENDING, detail);
	pending_insert(s, id);
}

/* Releases tenant's jobs held for quota and marks them approved. */
static void approve_tenant(struct sim *s, int32_t tenant, const char *detail)
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
		return fail(s, "policy '%s' made an invalid decision at t=%.6f s: hold of job %d, which is not pending",
		            s->sched.name ? s->sched.name : "?", simtime_to_s(s->now), id);
	struct job *j = &s->jobs[id];
	job_set_state(j, JOB_HELD);
	j->hold_since = s->now;
	j->hold_why = reason && strcmp(reason, "quota") == 0 ? HOLD_QUOTA : HOLD_OTHER;
	rec_event(s, REC_HOLD, id, -1, JOB_HELD, reason);
	const struct org_tenant *t = org_tenant(s->cfg.org, j->tenant);
	if (j->hold_why == HOLD_QUOTA && t && t->auto_approve) {
		/* The pending list is being walked by the policy: the job goes
		 * back as approved and is picked up at the next pass. */
		j->approved = 1;
		job_set_state(j, JOB_PENDING);
		j->hold_since = -1;
		rec_event(s, REC_RELEASE, id, -1, JOB_PENDING, "auto-approved");
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
		return fail(s, "policy '%s' made an invalid decision at t=%.6f s: release of job %d, which is not held",
		            s->sched.name ? s->sched.name : "?", simtime_to_s(s->now), id);
	release_one(s, id, "released");
	view_fill(s, d->v);
	return 0;
}

int sim_step(struct sim *s)
{
	const struct ev *top = evq_peek(&s->q);
	if (s->failed)
		return -1;
	if (s->cfg.fault && !s->cfg.live && s->nfinished >= s->njobs && s->njobs > 0)
		return 0;   /* every job has ended: failures and repairs alone do not go on */
	if (!top)
		return s->q.oom ? fail(s, "out of memory in the event queue") : 0;
	if (top->t > s->cfg.horizon_us)
		return 0;
	s->now = top->t;
	struct ev e;
	while ((top = evq_peek(&s->q)) && top->t == s->now && !s->failed) {
		if (evq_pop(&s->q, &e) < 0)
			return fail(s, "out of memory in the event queue");
		s->nevents++;
		handle(s, &e);
	}
	if (s->q.oom)
		return fail(s, "out of memory in the event queue");
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
	if (s->cfg.live || !s->rec.sample || s->cfg.sample_every_us <= 0 || s->njobs == 0)
		return 0;
	simtime last = s->jobs[s->njobs - 1].submit_us;
	if (last > s->cfg.horizon_us)
		last = s->cfg.horizon_us;
	double rows = ((double)last / (double)s->cfg.sample_every_us + 1) * (1.0 + s->cl.nracks);
	if (rows <= (double)sample_rows_max(s))
		return 0;
	return fail(s, "sampling every %g s until the last job arrives (day %.1f) takes %.3g rows "
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
		pw_finish(s);
	/* Jobs still pending or running at the horizon are reported as they
	 * are; jobs not yet submitted were never part of the run. */
	for (int32_t i = 0; i < s->next_submit && s->rec.job_end; i++)
		if (!job_state_final((enum job_state)s->jobs[i].state))
			s->rec.job_end(s->rec.ctx, s, &s->jobs[i]);
	return 0;
}

/* ---- for engine_live.c (engine_int.h) ---- */

int eng_fail(struct sim *s, const char *fmt, ...)
{
	if (!s->failed) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(s->err, sizeof s->err, fmt, ap);
		va_end(ap);
		s->failed = true;
	}
	return -1;
}

void eng_rec_event(struct sim *s, enum rec_kind k, int32_t job, int32_t node, int state, const char *detail)
{
	rec_event(s, k, job, node, state, detail);
}

int eng_release_alloc(struct sim *s, int32_t id)
{
	return release_alloc(s, id);
}

void eng_account_segment(struct sim *s, struct job *j)
{
	account_segment(s, j);
}

void eng_pending_insert(struct sim *s, int32_t id)
{
	pending_insert(s, id);
}

int eng_requeue_job(struct sim *s, int32_t id, const char *why)
{
	return requeue_job(s, id, why);
}

void eng_finish_hook(struct sim *s, int32_t id)
{
	finish_hook(s, id);
}

void eng_end_unstarted(struct sim *s, int32_t id, enum end_reason why, const char *detail)
{
	end_unstarted(s, id, why, detail);
}

void eng_submit_one(struct sim *s, int32_t id)
{
	submit_one(s, id);
}

int eng_apply_fault(struct sim *s, int32_t node, int kind, int gpu, double value, double repair_s)
{
	return apply_fault(s, node, kind, gpu, value, repair_s);
}

int eng_repair(struct sim *s, int32_t node, int kind, int gpu)
{
	return repair(s, node, kind, gpu);
}

void eng_approve_tenant(struct sim *s, int32_t tenant, const char *detail)
{
	approve_tenant(s, tenant, detail);
}

void eng_exec_stop(struct sim *s, int32_t id, enum exec_stop how)
{
	exec_stop_live(s, id, how);
}
