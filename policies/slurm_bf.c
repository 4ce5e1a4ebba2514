/* slurm_bf — one cycle of Slurm 22.05's sched/backfill (backfill.c
 * _attempt_backfill, cons_common/job_test.c _will_run_test;
 * docs/slurm-twin.md "Backfill").
 *
 * The cycle walks the eligible jobs in queue order, up to bf_max_job_test
 * of them. Its plan is the node-space map: time slots from now to
 * bf_window, each with the nodes no planned job holds then (whole nodes,
 * slots rounded to bf_resolution on the wall clock). For a job it takes
 * the nodes of its partition that are free of plans over [start, start +
 * time limit] and asks the will-run test (slurm_willrun.c) when they can
 * take it. A job that can start now starts (a real allocation: it may pick
 * other nodes of those allowed, and it may preempt); one that cannot is
 * planned — its nodes are taken out of the map from floor(start) to
 * floor(start + limit) — so that no later job may delay it. A start later
 * than the point where more nodes come free in the map is tried again from
 * that point.
 *
 * Two shortcuts with the same decisions (tests/unit/test_slurm_short.c):
 * a try whose start is surely past that point is not tested (the test's
 * floor), and the cycle stops, once something is planned, behind the last
 * job that could start at all on the free nodes of its partition
 * (bf_full_plan 1 plans on to the end, as squeue --start would show).
 *
 * Times here are Unix seconds (slurm_cfg.unix_start + engine time). */
#include "policies/slurm_int.h"

#include <stdlib.h>

/* A request's first look on the free nodes of its partition: per
 * partition, the most free cores, memory and GPUs on one node in service
 * and the free cores of all of them (a node that takes a part has at
 * least the part's of each). */
struct sl_roomp {
	int32_t cores, gpus;
	int64_t mem, sum;
};

/* One memo entry: a request on a partition and whether the free nodes
 * hold it. */
struct sl_memo {
	struct job_req r;
	int32_t part;
	uint32_t stamp;
	bool fits;
};

#define SL_MEMO 512

int sl_bf_init(struct sl *st)
{
	int64_t space = (int64_t)(st->p[SP_BF_SPACE] > 0 ? st->p[SP_BF_SPACE] : st->p[SP_BF_MAX_TEST]);
	if (space < 2)
		space = 2;
	struct sl_map *m = &st->map;
	m->cap = (int32_t)space + 4;
	m->begin = calloc((size_t)m->cap, sizeof *m->begin);
	m->end = calloc((size_t)m->cap, sizeof *m->end);
	m->next = calloc((size_t)m->cap, sizeof *m->next);
	m->bits = calloc((size_t)m->cap * (size_t)st->nw, 8);
	st->bf_user_cnt = calloc((size_t)st->cfg->nusers + 1, sizeof *st->bf_user_cnt);
	st->bf_part_cnt = calloc((size_t)st->cfg->npart + 1, sizeof *st->bf_part_cnt);
	st->roomp = calloc((size_t)st->cfg->npart + 1, sizeof *st->roomp);
	st->memo = calloc(SL_MEMO, sizeof *st->memo);
	return m->begin && m->end && m->next && m->bits && st->bf_user_cnt && st->bf_part_cnt && st->roomp &&
	               st->memo ? 0 : -1;
}

void sl_bf_fini(struct sl *st)
{
	free(st->map.begin);
	free(st->map.end);
	free(st->map.next);
	free(st->map.bits);
	free(st->bf_user_cnt);
	free(st->bf_part_cnt);
	free(st->roomp);
	free(st->memo);
}

/* ---- the node-space map ---- */

static uint64_t *mbits(struct sl *st, int32_t r)
{
	return st->map.bits + (size_t)r * (size_t)st->nw;
}

static int32_t map_new(struct sl *st, int64_t b, int64_t e, int32_t copy_of)
{
	struct sl_map *m = &st->map;
	int32_t r = m->n++;
	m->begin[r] = b;
	m->end[r] = e;
	sl_copy(mbits(st, r), mbits(st, copy_of), st->nw);
	return r;
}

/* _add_reservation: nodes not in `keep` are taken from start to end. */
static void add_resv(struct sl *st, int64_t start, int64_t end, const uint64_t *keep, int64_t res)
{
	struct sl_map *m = &st->map;
	int32_t nw = st->nw, j = 0, one_before = 0, one_after = -1;
	bool placed = false;
	if (start < m->begin[0])
		start = m->begin[0];
	if (end < start + res)
		end = start + res;
	for (;;) {
		if (m->end[j] > start) {
			int32_t i = map_new(st, start, m->end[j], j);
			m->end[j] = start;
			m->next[i] = m->next[j];
			m->next[j] = i;
			placed = true;
			break;
		}
		if (m->end[j] == start) {
			placed = true;
			break;
		}
		one_before = j;
		if ((j = m->next[j]) == 0)
			break;
	}
	while (placed && (j = m->next[j]) != 0) {
		if (end < m->end[j]) {
			int32_t i = map_new(st, end, m->end[j], j);
			m->end[j] = end;
			m->next[i] = m->next[j];
			m->next[j] = i;
		}
		sl_and(mbits(st, j), keep, nw);
		if (end == m->end[j]) {
			if (m->next[j])
				one_after = m->next[j];
			break;
		}
	}
	for (int32_t i = one_before; i != one_after;) {
		int32_t k = m->next[i];
		if (k == 0)
			break;
		if (memcmp(mbits(st, i), mbits(st, k), (size_t)nw * 8)) {
			i = k;
			continue;
		}
		m->end[i] = m->end[k];
		m->next[i] = m->next[k];
		break;
	}
}

/* _test_resv_overlap: would `use` collide with a plan in [start, end)? */
static bool resv_overlap(struct sl *st, const uint64_t *use, int64_t start, int64_t end)
{
	for (int32_t j = 0;;) {
		if (st->map.end[j] > start && st->map.begin[j] < end && !sl_subset(use, mbits(st, j), st->nw))
			return true;
		if ((j = st->map.next[j]) == 0)
			return false;
	}
}

/* ---- what could start now at all ---- */

/* Whether the free nodes of job id's partition in service hold its
 * request (plans aside): enough nodes that take a gang's part, CPUs for
 * a spread request. */
static bool fits_free(struct sl *st, int32_t id)
{
	const struct job_req *r = &st->v->jobs[id].req;
	int32_t part = st->job[id].part;
	const struct sl_roomp *a = &st->roomp[part];
	if (job_req_shared(r))
		return true;   /* the placer's; not worth a bound */
	if (r->nodes == 0 ? a->sum < r->cores
	                  : a->cores < r->cores || a->mem < r->mem_mib || a->gpus < r->gpus)
		return false;
	uint32_t h = sl_req_hash(r, part) & (SL_MEMO - 1);
	struct sl_memo *e = NULL;
	for (int probe = 0; probe < 8; probe++) {
		struct sl_memo *x = &st->memo[(h + (uint32_t)probe) & (SL_MEMO - 1)];
		if (x->stamp != st->memo_stamp) {
			e = x;
			break;
		}
		if (x->part == part && !memcmp(&x->r, r, sizeof *r))
			return x->fits;
	}
	const uint64_t *pb = st->part_bits + (size_t)part * (size_t)st->nw;
	int64_t have = 0, need = r->nodes > 0 ? r->nodes : r->cores;
	for (int32_t k = 0; k < st->n && have < need; k++) {
		if (!sl_bit(pb, k) || !sl_bit(st->up, k))
			continue;
		int32_t c = sl_node_cpus(st, st->cl->free, st->ord[k], r);
		have += r->nodes > 0 ? c > 0 : c;
	}
	if (e)
		*e = (struct sl_memo){ .r = *r, .part = part, .stamp = st->memo_stamp, .fits = have >= need };
	return have >= need;
}

/* The last record of the queue whose job could start now at all (-1
 * none): a job that may preempt, or one whose request the free nodes of
 * its partition hold. A plan only takes nodes away and a start only uses
 * them, so a job behind that record starts in no part of this cycle, and
 * its plan could bind only jobs behind it: the cycle may stop there once
 * it has planned something (bf_planned), with the same decisions. */
static int32_t last_startable(struct sl *st)
{
	const struct cluster *cl = st->cl;
	int32_t np = st->cfg->npart;
	memset(st->roomp, 0, (size_t)np * sizeof *st->roomp);
	for (int32_t k = 0; k < st->n; k++) {
		if (!sl_bit(st->up, k))
			continue;
		const struct nodefree *f = &cl->free[st->ord[k]];
		for (int32_t p = 0; p < np; p++) {
			if (!sl_bit(st->part_bits + (size_t)p * (size_t)st->nw, k))
				continue;
			struct sl_roomp *a = &st->roomp[p];
			if (f->cores > a->cores)
				a->cores = f->cores;
			if (f->gpus > a->gpus)
				a->gpus = f->gpus;
			if (f->mem_mib > a->mem)
				a->mem = f->mem_mib;
			a->sum += f->cores;
		}
	}
	if (++st->memo_stamp == 0) {
		memset(st->memo, 0, SL_MEMO * sizeof *st->memo);
		st->memo_stamp = 1;
	}
	bool preempt_on = st->p[SP_PREEMPT_QOS] >= 0.5;
	for (int32_t r = st->nq - 1; r >= 0; r--) {
		int32_t id = st->q[r].job;
		if (st->v->jobs[id].state != JOB_PENDING)
			continue;
		if ((preempt_on && st->cfg->qos[st->job[id].qos].npreempt > 0) || fits_free(st, id))
			return r;
	}
	return -1;
}

/* ---- the cycle ---- */

static void parts_bits(struct sl *st, int n, uint64_t *bits)
{
	memset(bits, 0, (size_t)st->nw * 8);
	for (int k = 0; k < n; k++)
		sl_set(bits, st->pos[st->parts[k].node]);
}

/* Counts one record against bf_max_job_part / bf_max_job_user; false
 * when a limit is already reached. */
static bool bf_counts(struct sl *st, const struct sl_job *sj)
{
	int64_t mp = (int64_t)st->p[SP_BF_MAX_PART], mu = (int64_t)st->p[SP_BF_MAX_USER];
	if (mp > 0 && st->bf_part_cnt[sj->part] >= mp)
		return false;
	if (mu > 0 && sj->user >= 0 && sj->user < st->cfg->nusers && st->bf_user_cnt[sj->user] >= mu)
		return false;
	st->bf_part_cnt[sj->part]++;
	if (sj->user >= 0 && sj->user < st->cfg->nusers)
		st->bf_user_cnt[sj->user]++;
	return true;
}

void sl_bf_cycle(struct sl *st)
{
	const struct view *v = st->v;
	int32_t nw = st->nw;
	int64_t now = sl_epoch(st, v->now);
	int64_t res = (int64_t)st->p[SP_BF_RES], window = (int64_t)st->p[SP_BF_WINDOW] * 60;
	int64_t max_test = (int64_t)st->p[SP_BF_MAX_TEST], max_start = (int64_t)st->p[SP_BF_MAX_START];
	int32_t space = (int32_t)(st->p[SP_BF_SPACE] > 0 ? st->p[SP_BF_SPACE] : st->p[SP_BF_MAX_TEST]);
	bool enforce = st->p[SP_ENFORCE] >= 0.5, stop = st->p[SP_ASSOC_STOP] >= 0.5;
	bool preempt_on = st->p[SP_PREEMPT_QOS] >= 0.5;
	sl_sort(st);
	sl_nodes_up(st);
	SL_TRACE(st, "bf cycle (%d queued)", st->nq);
	struct sl_map *m = &st->map;
	m->n = 1;
	m->begin[0] = now / res * res;
	m->end[0] = (now + window) / res * res;
	m->next[0] = 0;
	sl_copy(mbits(st, 0), st->up, nw);
	sl_ends_build(st);
	memset(st->bf_part_cnt, 0, (size_t)st->cfg->npart * sizeof *st->bf_part_cnt);
	memset(st->bf_user_cnt, 0, (size_t)st->cfg->nusers * sizeof *st->bf_user_cnt);
	int64_t depth = 0, started = 0;
	bool planned = false;
	int32_t last = st->p[SP_BF_FULL_PLAN] >= 0.5 ? st->nq : last_startable(st);
	uint64_t *avail = st->avail, *cand = st->cand, *sel = st->tmp2, *prev = st->tmp;
	for (int32_t r = 0; r < st->nq; r++) {
		if (r > last && planned)
			break;
		int32_t id = st->q[r].job;
		const struct job *j = &v->jobs[id];
		struct sl_job *sj = &st->job[id];
		if (j->state != JOB_PENDING)
			continue;
		if (depth >= max_test)
			break;
		if (enforce && !stop && !sl_limits_pre(st, id)) {
			sj->why = SLW_LIMIT;
			continue;
		}
		if (!bf_counts(st, sj))
			continue;
		sj->plan_us = 0;
		const struct slurm_qos *q = &st->cfg->qos[sj->qos];
		bool no_reserve = (st->p[SP_BF_MIN_PRIO] > 0 && sj->prio < st->p[SP_BF_MIN_PRIO]) ||
		                  (st->p[SP_BF_MIN_AGE] > 0 && now - sl_epoch(st, sj->begin_us) < (int64_t)st->p[SP_BF_MIN_AGE]);
		int64_t tl = sl_time_limit_s(st, id);
		if ((q->flags & SLURM_QOS_NO_RESERVE) && st->p[SP_PREEMPT_MODE] >= 0.5)
			tl = 60;
		bool may_preempt = preempt_on && q->npreempt > 0;
		const uint64_t *pb = st->part_bits + (size_t)sj->part * (size_t)nw;
		if (may_preempt) {
			sl_copy(cand, st->up, nw);
			sl_and(cand, pb, nw);
			sl_preempt_cands(st, id, cand);
		} else {
			st->ncands = 0;
		}
		int32_t min_nodes = j->req.nodes > 0 ? j->req.nodes : 1;
		int64_t later = now;
		bool counted = false;
		for (int tries = 0; tries < 10000; tries++) {
			int64_t start_res = later, end_t;
			later = 0;
			end_t = (start_res > now ? start_res : now) + tl;
			sl_copy(avail, st->up, nw);
			sl_and(avail, pb, nw);
			sl_copy(prev, avail, nw);
			for (int32_t s = 0;;) {
				if (m->end[s] > start_res && m->next[s] && later == 0) {
					/* does the next slot free a node this one holds? */
					const uint64_t *nb = mbits(st, m->next[s]), *cb = mbits(st, s);
					for (int32_t w = 0; w < nw; w++)
						if ((prev[w] & nb[w]) & ~(avail[w] & cb[w])) {
							later = m->end[s];
							break;
						}
				}
				if (m->end[s] <= start_res)
					;
				else if (m->begin[s] <= end_t)
					sl_and(avail, mbits(st, s), nw);
				else
					break;
				if ((s = m->next[s]) == 0)
					break;
			}
			if (sl_count(avail, nw) < min_nodes) {
				if (later && !no_reserve)
					continue;
				break;
			}
			if (!counted) {
				depth++;
				counted = true;
			}
			sl_copy(cand, avail, nw);   /* the nodes a start now may use */
			/* over a limit with TRES that no selection changes: neither
			 * a start nor a plan, whatever the test says */
			bool cut = st->p[SP_SHORTCUTS] >= 0.5;
			if (cut && planned && enforce && !stop && sl_tres_fixed(st, id) && !sl_limits_post(st, id, st->parts, 0))
				break;
			/* a start surely past `later` would only send the job
			 * there: the same as the test's answer once something is
			 * planned */
			if (cut && planned && later && !no_reserve && !(may_preempt && st->ncands > 0)) {
				int64_t floor_s = sl_will_run_floor(st, id, avail, now);
				if (floor_s == -1 || floor_s > later)
					continue;
			}
			int np;
			int64_t S = sl_will_run(st, id, avail, no_reserve, may_preempt, &np, now);
			if (S < 0) {
				if (later && !no_reserve)
					continue;
				break;
			}
			if (S < start_res)
				S = start_res;
			planned = true;
			parts_bits(st, np, sel);
			if (S <= now) {
				int n = sl_select(st, id, st->cl->free, cand, false);
				/* under assoc_limit_stop the limits are not checked
				 * before selection nor before a plan, but a start
				 * still meets them, before and after selection
				 * (select_nodes: the accounting policy); Slurm then
				 * plans the job from the next end or 500 s on, the
				 * twin plans nothing */
				if (enforce && ((stop && !sl_limits_pre(st, id)) || !sl_limits_post(st, id, st->parts, n))) {
					sj->why = SLW_LIMIT;
					break;   /* accounting policy: no plan */
				}
				if (n > 0) {
					SL_TRACE(st, "bf start %lld node %d [free %d %d %d %d %d %d cand %llx]", (long long)v->jobs[id].trace_id, st->parts[0].node + 1,
					         st->cl->free[0].cores, st->cl->free[1].cores, st->cl->free[2].cores, st->cl->free[3].cores,
					         st->cl->free[4].cores, st->cl->free[5].cores, (unsigned long long)cand[0]);
					if (sl_start(st, id, st->parts, n))
						return;
					sl_ends_add(st, id);
					if (max_start > 0 && ++started >= max_start)
						goto done;
					break;
				}
				if (may_preempt) {
					if (sl_preempt(st, id, cand) < 0)
						return;
					sl_will_run_stale(st);
				}
				later = 0;   /* preemption under way: plan its nodes from now */
			}
			if (S > now && no_reserve)
				break;
			if (later && S > later)
				continue;
			int64_t s_rnd = S / res * res, e_rnd = (S + tl) / res * res;
			if (S > now + window)
				break;
			if (S > now && resv_overlap(st, sel, s_rnd, e_rnd)) {
				later = S;
				continue;
			}
			if (enforce && !stop && !sl_limits_post(st, id, st->parts, np)) {
				sj->why = SLW_LIMIT;
				break;
			}
			if (q->flags & SLURM_QOS_NO_RESERVE)
				break;
			if (m->n >= space || m->n + 2 > m->cap)
				goto done;
			for (int32_t w = 0; w < nw; w++)
				sel[w] = ~sel[w];
			SL_TRACE(st, "bf plan %lld at %lld", (long long)v->jobs[id].trace_id, (long long)(S % 1000));
			add_resv(st, s_rnd, e_rnd, sel, res);
			sj->plan_us = (S - st->cfg->unix_start) * SL_SEC;
			break;
		}
	}
done:
	st->bf_planned = planned;
}
