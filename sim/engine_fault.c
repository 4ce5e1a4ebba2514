/* engine_fault — faults, repairs, joins and leaves (sim/fault.h), and the
 * health monitor's drain and resume decisions: the failure processes and
 * their random streams, the injected fault events, what a fault does to a
 * node's state and to the jobs on it (they fail, or move by the scenario's
 * migration scope), and a repair's return of the node or card.
 * Calls engine_jobs.c, engine_power.c, engine_speed.c and engine_core.c. */
#include "sim/engine.h"
#include "sim/engine_int.h"
#include "sim/fault.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
 * migration scope; in live mode with an executor that owns its jobs'
 * fates (Slurm), a node seen down keeps its jobs until the executor says
 * they were requeued or ended. */
static int fault_hit_jobs(struct sim *s, int32_t node, int gpu, const char *why)
{
	if (gpu < 0 && live_exec_fates(s))
		return 0;   /* what the executor says of each job decides (observe) */
	int scope = s->cfg.fault ? s->cfg.fault->migrate : MIGRATE_NONE;
	/* Downwards in the running list, as a walk from its end meets them
	 * (removing one moves the last, already seen, into its place). */
	int32_t n = eng_onnode_sorted(s, node);
	if (n < 0)
		return eng_fail(s, "out of memory");
	for (int32_t k = n - 1; k >= 0; k--) {
		int32_t id = s->onbuf[k];
		struct job *j = &s->jobs[id];
		if (j->run_idx < 0 || !job_uses(s, j, node, gpu))
			continue;
		bool move = scope == MIGRATE_ALL || (scope == MIGRATE_CHECKPOINTED && j->ckpt_every_us > 0);
		live_exec_stop(s, id, move ? EXEC_STOP_PREEMPT : EXEC_STOP_KILL);
		if (move) {
			if (eng_requeue_job(s, id, why))
				return -1;
		} else {
			eng_advance(s, id);
			j->reason = END_NODE_FAIL;
			if (sim_job_end(s, id, JOB_FAILED))
				return -1;
		}
	}
	return 0;
}

static int retime_node(struct sim *s, int32_t node)
{
	int32_t n = eng_onnode_sorted(s, node);
	if (n < 0)
		return eng_fail(s, "out of memory");
	for (int32_t k = 0; k < n; k++)
		if (sim_job_retime(s, s->onbuf[k]))
			return -1;
	return 0;
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

int eng_apply_fault(struct sim *s, int32_t node, int kind, int gpu, double value, double repair_s)
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
	eng_rec_event(s, REC_FAULT, -1, node, 0, detail);
	switch (kind) {
	case FAULT_NODE_CRASH:
		h->crash_at[h->crashes++ % HEALTH_RING] = s->now;
		if (fault_hit_jobs(s, node, -1, "node crash"))
			return -1;
		if (cl->svc[node] == NODE_UP || cl->svc[node] == NODE_DRAINING || cl->svc[node] == NODE_DRAINED)
			cluster_set_svc(cl, node, NODE_DOWN);
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

int eng_repair(struct sim *s, int32_t node, int kind, int gpu)
{
	struct cluster *cl = &s->cl;
	struct node_health *h = &cl->health[node];
	switch (kind) {
	case FAULT_NODE_CRASH:
		if (cl->svc[node] == NODE_DOWN)
			cluster_set_svc(cl, node, h->drained_since >= 0 ? NODE_DRAINED : NODE_UP);
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
	eng_rec_event(s, REC_REPAIR, -1, node, 0, fault_kind_name(kind));
	s->dirty = true;
	if (retime_node(s, node))
		return -1;
	if (cl->svc[node] != NODE_ABSENT)
		fault_schedule(s, node, kind);   /* its next failure, from now */
	return 0;
}

int eng_fault_event(struct sim *s, const struct fault_event *e)
{
	struct cluster *cl = &s->cl;
	switch (e->kind) {
	case FEV_FAULT: {
		double rep = e->repair_s >= 0 ? e->repair_s : s->cfg.fault->proc[e->fault].repair_s;
		return eng_apply_fault(s, e->node, e->fault, e->gpu < 0 ? 0 : e->gpu, e->value, rep);
	}
	case FEV_JOIN:
		if (cl->svc[e->node] != NODE_ABSENT)
			return 0;
		cluster_set_svc(cl, e->node, NODE_UP);
		eng_node_presence(s, e->node, true);
		if (cl->pw)
			eng_pw_node_changed(s, e->node);
		eng_rec_event(s, REC_JOIN, -1, e->node, 0, cl->types[cl->nodes[e->node].type].name);
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
		eng_rec_event(s, REC_DRAIN, -1, e->node, 0, "leave (decommission)");
		if (!eng_node_has_jobs(s, e->node, -1) && cl->svc[e->node] != NODE_DOWN)
			eng_node_emptied(s, e->node);
		else if (cl->svc[e->node] != NODE_DOWN)
			cluster_set_svc(cl, e->node, NODE_DRAINING);
		return 0;
	}
	case FEV_DRAIN: {
		/* as an operator's scontrol update State=DRAIN: no new job,
		 * the running ones go on (a node down stays down, drained
		 * when it comes back) */
		struct node_health *h = &cl->health[e->node];
		if (cl->svc[e->node] == NODE_ABSENT || h->drained_since >= 0)
			return 0;   /* gone, or drained already (its own reason stands) */
		snprintf(h->drain_reason, sizeof h->drain_reason, "scheduled");
		h->drained_since = s->now;
		eng_health_mark(s, e->node);
		if (cl->svc[e->node] == NODE_UP)
			cluster_set_svc(cl, e->node, eng_node_has_jobs(s, e->node, -1) ? NODE_DRAINING : NODE_DRAINED);
		eng_rec_event(s, REC_DRAIN, -1, e->node, 0, "scheduled (scenario event)");
		s->dirty = true;
		return 0;
	}
	case FEV_RESUME: {
		struct node_health *h = &cl->health[e->node];
		if (h->drained_since < 0 || strcmp(h->drain_reason, "scheduled") != 0)
			return 0;   /* not drained by its drain event */
		h->drained_since = -1;
		h->drain_reason[0] = 0;
		eng_health_mark(s, e->node);
		if (cl->svc[e->node] == NODE_DRAINING || cl->svc[e->node] == NODE_DRAINED)
			cluster_set_svc(cl, e->node, NODE_UP);
		eng_rec_event(s, REC_RESUME, -1, e->node, 0, NULL);
		s->dirty = true;
		return 0;
	}
	}
	return 0;
}

/* Sets up the failure processes, injected events and absent nodes. */
int eng_faults_init(struct sim *s)
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
			cluster_set_svc(cl, fc->ev[k].node, NODE_ABSENT);
			eng_node_presence(s, fc->ev[k].node, false);
			if (cl->pw)
				eng_pw_node_changed(s, fc->ev[k].node);   /* absent: no power until it joins */
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
		return eng_fail(s, "health monitor made an invalid decision at t=%.6f s: drain of node %d, which is not up",
		                simtime_to_s(s->now), node);
	struct node_health *h = &cl->health[node];
	eng_health_mark(s, node);
	snprintf(h->drain_reason, sizeof h->drain_reason, "%s", reason ? reason : "");
	h->drained_since = s->now;
	if (cl->svc[node] == NODE_UP)
		cluster_set_svc(cl, node, eng_node_has_jobs(s, node, -1) ? NODE_DRAINING : NODE_DRAINED);
	eng_rec_event(s, REC_DRAIN, -1, node, 0, reason);
	live_node_state(s, node, true, reason ? reason : "");
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
		return eng_fail(s, "health monitor made an invalid decision at t=%.6f s: resume of node %d, which is not drained",
		                simtime_to_s(s->now), node);
	struct node_health *h = &cl->health[node];
	if (strcmp(h->drain_reason, "leave") == 0)
		return 0;   /* leaving for good */
	eng_health_mark(s, node);
	h->drained_since = -1;
	h->drain_reason[0] = 0;
	if (cl->svc[node] != NODE_DOWN)
		cluster_set_svc(cl, node, NODE_UP);
	eng_rec_event(s, REC_RESUME, -1, node, 0, NULL);
	live_node_state(s, node, false, NULL);
	s->dirty = true;
	return 0;
}
