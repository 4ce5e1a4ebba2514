/* slurm_preempt — preempt/qos of Slurm 22.05 (slurmctld/preempt.c,
 * plugins/preempt/qos, cons_common/job_test.c _run_now;
 * docs/slurm-twin.md "Preemption").
 *
 * A job whose QOS lists others in Preempt= may take the nodes of their
 * running jobs when it cannot start otherwise. The candidates, lowest QOS
 * priority first, then fewest nodes, are removed one at a time until the
 * job fits; the one whose removal made it fit moves to the front, those
 * before it follow by how many of the chosen nodes they hold, and the
 * removal starts over, at most twice more (preempt_reorder_count=1). The
 * victims are the removed jobs on the nodes finally chosen. They are
 * requeued (REQUEUE) or cancelled (CANCEL) at the end of their QOS's
 * GraceTime, seen on slurmctld's 30-second timer; the preemptor does not
 * start in the pass that preempts — it waits, as Slurm's "nodes busy",
 * and signals no new victims for KillWait + MessageTimeout. */
#include "policies/slurm_int.h"

#include <stdlib.h>

bool sl_can_preempt(const struct sl *st, int32_t a, int32_t b)
{
	int32_t qa = st->job[a].qos, qb = st->job[b].qos;
	if (qa == qb || qa < 0 || qb < 0)
		return false;
	const struct slurm_qos *q = &st->cfg->qos[qa];
	for (int32_t k = 0; k < q->npreempt; k++)
		if (q->preempt[k] == qb)
			return true;
	return false;
}

/* The victim's preempt mode: its QOS's, else the global one. */
static int mode_of(const struct sl *st, int32_t id)
{
	int m = st->cfg->qos[st->job[id].qos].preempt_mode;
	if (m == SLURM_PM_UNSET) {
		int g = (int)st->p[SP_PREEMPT_MODE];
		m = g == 1 ? SLURM_PM_CANCEL : g == 2 ? SLURM_PM_REQUEUE : SLURM_PM_OFF;
	}
	return m;
}

static int32_t count_on(const struct sl *st, int32_t id, const uint64_t *nodes)
{
	const struct job *j = &st->v->jobs[id];
	const struct alloc_part *p = &st->v->parts[j->parts];
	int32_t c = 0;
	for (int32_t k = 0; k < j->nparts; k++)
		c += sl_bit(nodes, st->pos[p[k].node]);
	return c;
}

int sl_cands_room(struct sl *st, int32_t nrun)
{
	int32_t need = 2 * (nrun + 1);
	if (need <= st->cap_cands)
		return 0;
	int32_t *c = realloc(st->cands, (size_t)need * sizeof *c);
	if (!c)
		return -1;
	st->cands = c;
	st->cap_cands = need;
	return 0;
}

static const struct sl *key_st;
static int64_t cand_key(const struct sl *st, int32_t id)
{
	uint32_t qp = st->cfg->qos[st->job[id].qos].priority;
	int32_t nodes = st->v->jobs[id].nparts;
	return ((int64_t)(qp > 0xffff ? 0xffff : qp) << 16) + (nodes > 0xffff ? 0xffff : nodes);
}

static int by_key(const void *x, const void *y)
{
	int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
	int64_t ka = cand_key(key_st, a), kb = cand_key(key_st, b);
	if (ka != kb)
		return ka < kb ? -1 : 1;
	int64_t ia = key_st->v->jobs[a].trace_id, ib = key_st->v->jobs[b].trace_id;
	return ia != ib ? (ia < ib ? -1 : 1) : (a > b) - (a < b);
}

void sl_preempt_cands(struct sl *st, int32_t id, const uint64_t *cand)
{
	const struct view *v = st->v;
	st->ncands = 0;
	if (sl_cands_room(st, st->v->nrunning))
		return;
	for (int32_t k = 0; k < v->nrunning; k++) {
		int32_t r = v->running[k];
		if (r >= st->cap_job || !st->job[r].known || !sl_can_preempt(st, id, r))
			continue;
		int m = mode_of(st, r);
		if (m != SLURM_PM_REQUEUE && m != SLURM_PM_CANCEL)
			continue;
		int64_t ex = st->cfg->qos[st->job[r].qos].preempt_exempt_s;
		if (ex < 0)
			ex = (int64_t)st->p[SP_PREEMPT_EXEMPT];
		if (ex > 0 && v->jobs[r].start_us + simtime_from_s((double)ex) > v->now)
			continue;
		if (!sl_job_on(st, r, cand))
			continue;
		st->cands[st->ncands++] = r;
	}
	key_st = st;
	qsort(st->cands, (size_t)st->ncands, sizeof *st->cands, by_key);
}

/* Stable descending sort of order[] by use[] (list_sort of
 * _sort_usable_nodes_dec): insertion sort, the lists are short. */
static void sort_usable(int32_t *order, int32_t *use, int32_t n)
{
	for (int32_t i = 1; i < n; i++) {
		int32_t o = order[i], u = use[i], k = i;
		while (k > 0 && use[k - 1] < u) {
			order[k] = order[k - 1];
			use[k] = use[k - 1];
			k--;
		}
		order[k] = o;
		use[k] = u;
	}
}

/* The 30-second timer of slurmctld that ends a victim's grace. */
static simtime grace_end(const struct sl *st, simtime now, int64_t grace_s)
{
	if (grace_s <= 0)
		return now;
	simtime t = now + simtime_from_s((double)grace_s), step = 30 * SL_SEC;
	simtime off = t - st->ctld_us;
	if (off > 0 && off % step)
		t += step - off % step;
	return t;
}

static int add_victim(struct sl *st, int32_t id)
{
	if (st->job[id].victim)
		return 0;
	if (st->nvictims == st->cap_victims) {
		int32_t ncap = st->cap_victims ? st->cap_victims * 2 : 64;
		int32_t *nv = realloc(st->victims, (size_t)ncap * sizeof *nv);
		if (!nv)
			return -1;
		st->victims = nv;
		st->cap_victims = ncap;
	}
	st->victims[st->nvictims++] = id;
	st->job[id].victim = true;
	return 0;
}

/* The nodes of st->parts (n of them) as a set in st->tmp. */
static void chosen(struct sl *st, int n)
{
	memset(st->tmp, 0, (size_t)st->nw * 8);
	for (int k = 0; k < n; k++)
		sl_set(st->tmp, st->pos[st->parts[k].node]);
}

int sl_preempt(struct sl *st, int32_t id, const uint64_t *cand)
{
	const struct view *v = st->v;
	struct sl_job *sj = &st->job[id];
	sl_preempt_cands(st, id, cand);
	int32_t n = st->ncands, fit = -1;
	if (n == 0)
		return 0;
	int32_t *order = st->cands, *use = st->cands + n;
	int pass = 0;
	for (bool again = true; again;) {
		again = false;
		memcpy(st->fut, st->cl->free, (size_t)st->n * sizeof *st->fut);
		for (int32_t k = 0; k < n; k++) {
			const struct job *vj = &v->jobs[order[k]];
			nodefree_give(st->fut, &v->parts[vj->parts], vj->nparts);
			int np = sl_select(st, id, st->fut, cand, true);
			if (np == 0)
				continue;
			chosen(st, np);
			if (pass++ > 1 || n <= pass) {
				fit = k;
				break;
			}
			for (int32_t q = 0; q < n; q++)
				use[q] = q < k ? count_on(st, order[q], st->tmp) : q == k ? 99999 : 0;
			sort_usable(order, use, n);
			again = true;
			break;
		}
	}
	if (fit < 0)
		return 0;
	/* signalled within KillWait + MessageTimeout: it waits, no new victims */
	simtime quiet = simtime_from_s(st->p[SP_KILL_WAIT] + st->p[SP_MSG_TIMEOUT]);
	if (sj->preempt_us >= 0 && v->now < sj->preempt_us + quiet)
		return 1;
	bool any = false;
	for (int32_t q = 0; q < n; q++) {
		int32_t r = order[q];
		if (!sl_job_on(st, r, st->tmp))
			continue;
		if (q > fit)
			break;
		if (v->jobs[r].state != JOB_RUNNING)
			continue;   /* already in its grace */
		int m = mode_of(st, r);
		bool cancel = m == SLURM_PM_CANCEL || st->p[SP_JOB_REQUEUE] < 0.5;
		const struct slurm_qos *vq = &st->cfg->qos[st->job[r].qos];
		simtime end = grace_end(st, v->now, vq->grace_s);
		if (decide_preempt_ex(st->out, r, cancel ? "QOS preemption (cancel)" : "QOS preemption (requeue)",
		                      end - v->now, cancel))
			return -1;
		if (add_victim(st, r))
			return -1;
		any = true;
	}
	if (any) {
		sj->preempt_us = v->now;
		st->acted = true;
		sl_change_at(st, SLT_QUIET, v->now + quiet);
	}
	return 1;
}
