/* engine_speed — a running job's modelled progress: its speed now
 * (device, sharing, network, storage, power limits and health;
 * docs/models.md "Speed"), its rate with checkpoint pauses, the end event
 * that follows from the work left (done, failed per its truth, killed at
 * its walltime, or OOM), and re-timing a job, or the jobs that share its
 * cards or storage pool, when a speed may have changed.
 * Calls engine_core.c only. */
#include "sim/engine.h"
#include "sim/engine_int.h"
#include "sim/fault.h"
#include "sim/power.h"

#include <math.h>
#include <string.h>

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

/* Sets the job's rate from its device speed and checkpoint pauses: with an
 * interval I of work and a cost c of wall time per checkpoint, a device
 * rate r gives r · I / (I + r · c), and a share r·c / (I + r·c) of the wall
 * time goes to writing checkpoints (the pauses spread evenly: a fluid
 * approximation, docs/models.md). */
static void set_rate(struct sim *s, int32_t id)
{
	struct jobrun *r = &s->run[id];
	double every, cost;
	eng_ckpt_of(s, &s->jobs[id], &every, &cost);
	r->dev_rate = sim_job_speed(s, id);
	r->rate = r->dev_rate;
	r->ckfrac = 0;
	if (every > 0 && cost > 0) {
		double w = r->dev_rate * cost;
		r->rate = r->dev_rate * every / (every + w);
		r->ckfrac = w / (every + w);
	}
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
	eng_advance(s, id);
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
int eng_retime_neighbours(struct sim *s, int32_t id, const struct alloc_part *parts, int nparts,
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
