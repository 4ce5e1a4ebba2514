/* slurm_queue — the slurm policy's shared steps (slurm_int.h): the
 * queue in Slurm's order (job_scheduler.c build_job_queue and
 * sort_job_queue2, sorted as glibc's qsort sorts), a start and what it
 * changes, the nodes in service, a job's time limit. Called by the main
 * pass (slurm.c) and the backfill cycle (slurm_bf.c). */
#include "policies/slurm_int.h"
#include "sim/power.h"

#include <stdlib.h>

/* The time limit of a running job for its end time (start + limit), s. */
int64_t sl_time_limit_s(const struct sl *st, int32_t job)
{
	const struct sl_job *sj = &st->job[job];
	const struct slurm_part *p = &st->cfg->part[sj->part];
	int64_t part_max = p->max_time_s < 0 ? 525600 * 60LL : p->max_time_s;
	if (sj->limit_s < 0)
		return part_max;
	return p->max_time_s < 0 ? sj->limit_s : (sj->limit_s < part_max ? sj->limit_s : part_max);
}

bool sl_eligible(const struct sl *st, int32_t job)
{
	const struct sl_job *sj = &st->job[job];
	return st->v->jobs[job].state == JOB_PENDING && !sj->never && sj->begin_us <= st->v->now;
}

void sl_touched_at(struct sl *st, simtime t)
{
	if (t > st->change_us)
		st->change_us = t;
	st->nchange++;
	if (st->next_bf_us == SIMTIME_INF) {
		/* backfill polls every second from its due time on: the first
		 * poll after the change runs the cycle */
		simtime k = (t - st->bf_poll_us + SL_SEC - 1) / SL_SEC;
		st->next_bf_us = st->bf_poll_us + (k > 1 ? k : 1) * SL_SEC;
		SL_TRACE(st, "bf poll from %.3f, change at %.3f: next %.3f", simtime_to_s(st->bf_poll_us),
		         simtime_to_s(t), simtime_to_s(st->next_bf_us));
	}
}

void sl_touched(struct sl *st)
{
	sl_touched_at(st, st->v->now);
}

/* A job was submitted, started, ended or requeued. */
void sl_changed(struct sl *st)
{
	sl_touched(st);
	st->idle_cycles = 0;
}

int sl_start(struct sl *st, int32_t id, const struct alloc_part *parts, int nparts)
{
	if (decide_start(st->out, id, parts, nparts))
		return -1;
	struct sl_job *sj = &st->job[id];
	placer_started(&st->pl, st->v, &st->v->jobs[id], parts, nparts);
	int64_t t[STRES_N];
	sl_tres_of(st, id, parts, nparts, t);
	sj->cpus = (int32_t)t[STRES_CPU];
	sj->nodes = (int32_t)t[STRES_NODE];
	sj->gpus = (int32_t)t[STRES_GPU];
	sj->mem_mib = t[STRES_MEM];
	sj->charged_us = st->v->now;
	if (sj->limit_s < 0) {
		/* no --time and no DefaultTime: the partition's MaxTime */
		const struct slurm_part *p = &st->cfg->part[sj->part];
		sj->limit_s = p->max_time_s;
	}
	if (st->p[SP_ENFORCE] >= 0.5)
		sl_limits_add(st, id, 1);
	st->acted = true;
	sl_changed(st);
	return 0;
}

/* ---- the queue's order (job_scheduler.c sort_job_queue2) ---- */

static int rec_cmp(const struct sl *st, const struct sl_rec *a, const struct sl_rec *b)
{
	if (st->p[SP_PREEMPT_QOS] >= 0.5) {
		if (sl_can_preempt(st, a->job, b->job))
			return -1;
		if (sl_can_preempt(st, b->job, a->job))
			return 1;
	}
	if (a->tier != b->tier)
		return a->tier > b->tier ? -1 : 1;
	if (a->prio != b->prio)
		return a->prio > b->prio ? -1 : 1;
	if (a->submit_s != b->submit_s)
		return a->submit_s < b->submit_s ? -1 : 1;
	if (a->jobid != b->jobid)
		return a->jobid < b->jobid ? -1 : 1;
	return -1;
}

/* glibc's qsort for these arrays: a top-down merge sort that keeps the
 * left record when the comparison is <= 0 (msort.c). The comparison is
 * not a total order when preemption is on; the same algorithm on the same
 * input gives Slurm's order all the same. */
static void msort(const struct sl *st, struct sl_rec *b, int32_t n, struct sl_rec *tmp)
{
	if (n <= 1)
		return;
	int32_t n1 = n / 2, n2 = n - n1;
	struct sl_rec *b1 = b, *b2 = b + n1, *t = tmp;
	msort(st, b1, n1, tmp);
	msort(st, b2, n2, tmp);
	while (n1 > 0 && n2 > 0) {
		if (rec_cmp(st, b1, b2) <= 0) {
			*t++ = *b1++;
			n1--;
		} else {
			*t++ = *b2++;
			n2--;
		}
	}
	if (n1 > 0)
		memcpy(t, b1, (size_t)n1 * sizeof *t);
	memcpy(b, tmp, (size_t)(n - n2) * sizeof *b);
}

static int by_job_order(const void *x, const void *y)
{
	const struct sl_rec *a = x, *b = y;
	return (a->jobid > b->jobid) - (a->jobid < b->jobid);
}

/* Builds st->q from the eligible pending jobs (build_job_queue) and sorts
 * it. Slurm's job list is in creation order, which the merge sort starts
 * from. */
void sl_sort(struct sl *st)
{
	const struct view *v = st->v;
	st->nq = 0;
	bool sorted_in = true;
	for (int32_t i = 0; i < v->npending; i++) {
		int32_t id = v->pending[i];
		if (id >= st->cap_job || !st->job[id].known || !sl_eligible(st, id))
			continue;
		struct sl_job *sj = &st->job[id];
		if (sj->accrue_us < 0)
			sj->accrue_us = st->p[SP_ACCRUE_ALWAYS] >= 0.5 ? sj->submit_us : sj->begin_us;
		struct sl_rec *r = &st->q[st->nq++];
		r->job = id;
		r->prio = sj->prio;
		r->tier = st->cfg->part[sj->part].prio_tier;
		r->qos = (int16_t)sj->qos;
		r->submit_s = sj->submit_us / SL_SEC;
		r->jobid = v->jobs[id].trace_id;
		if (st->nq > 1 && r->jobid < st->q[st->nq - 2].jobid)
			sorted_in = false;
	}
	if (!sorted_in)
		qsort(st->q, (size_t)st->nq, sizeof *st->q, by_job_order);
	msort(st, st->q, st->nq, st->qtmp);
}

void sl_nodes_up(struct sl *st)
{
	const struct cluster *cl = st->cl;
	memset(st->up, 0, (size_t)st->nw * 8);
	for (int32_t k = 0; k < st->n; k++) {
		int32_t i = st->ord[k];
		if (cl->svc[i] == NODE_UP && (!cl->pw || !power_node_blocked(cl, i)))
			sl_set(st->up, k);
	}
}
