/* slurm_bf — one cycle of Slurm 22.05's sched/backfill (backfill.c
 * _attempt_backfill, cons_common/job_test.c _will_run_test;
 * docs/slurm-twin.md "Backfill").
 *
 * The cycle walks the eligible jobs in queue order, up to bf_max_job_test
 * of them. Its plan is the node-space map: time slots from now to
 * bf_window, each with the nodes no planned job holds then (whole nodes,
 * slots rounded to bf_resolution on the wall clock). For a job it takes
 * the nodes of its partition that are free of plans over [start, start +
 * time limit] and asks the will-run test when they can take it, releasing
 * the running jobs at their expected ends (start + time limit) in batches
 * anchored on a 30-second boundary, the window doubling after each; the
 * start is the end of the last job released. A job that can start now
 * starts (a real allocation: it may pick other nodes of those allowed, and
 * it may preempt); one that cannot is planned — its nodes are taken out of
 * the map from floor(start) to floor(start + limit) — so that no later job
 * may delay it. A start later than the point where more nodes come free
 * in the map is tried again from that point.
 *
 * Times here are Unix seconds (slurm_cfg.unix_start + engine time). */
#include "policies/slurm_int.h"

#include <stdlib.h>

static int64_t epoch(const struct sl *st, simtime t)
{
	return st->cfg->unix_start + (t >= 0 ? t / SL_SEC : -((-t + SL_SEC - 1) / SL_SEC));
}

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
	return m->begin && m->end && m->next && m->bits && st->bf_user_cnt && st->bf_part_cnt ? 0 : -1;
}

void sl_bf_fini(struct sl *st)
{
	free(st->map.begin);
	free(st->map.end);
	free(st->map.next);
	free(st->map.bits);
	free(st->ends);
	free(st->endtmp);
	free(st->bf_user_cnt);
	free(st->bf_part_cnt);
	free(st->cands);
}

/* ---- running jobs by expected end ---- */

static int end_cmp(const void *x, const void *y)
{
	const struct sl_end *a = x, *b = y;
	if (a->end_s != b->end_s)
		return a->end_s < b->end_s ? -1 : 1;
	return (a->job > b->job) - (a->job < b->job);
}

static int64_t end_of(const struct sl *st, int32_t id)
{
	const struct sl_job *sj = &st->job[id];
	int64_t lim = sj->limit_s < 0 ? 365 * 86400LL : sj->limit_s;
	return epoch(st, st->v->jobs[id].start_us) + lim;
}

static int ends_room(struct sl *st, int32_t n)
{
	if (n <= st->cap_ends)
		return 0;
	int32_t ncap = st->cap_ends ? st->cap_ends : 256;
	while (ncap < n)
		ncap *= 2;
	struct sl_end *e = realloc(st->ends, (size_t)ncap * sizeof *e);
	if (!e)
		return -1;
	st->ends = e;
	st->cap_ends = ncap;
	return 0;
}

int sl_room(struct sl *st, int32_t nrun)
{
	if (ends_room(st, nrun + 1))
		return -1;
	int32_t need = 2 * (nrun + 1);
	if (need > st->cap_cands) {
		int32_t *c = realloc(st->cands, (size_t)need * sizeof *c);
		if (!c)
			return -1;
		st->cands = c;
		st->cap_cands = need;
	}
	return 0;
}

void sl_ends_build(struct sl *st)
{
	const struct view *v = st->v;
	st->nends = 0;
	if (ends_room(st, v->nrunning + 1))
		return;
	for (int32_t k = 0; k < v->nrunning; k++) {
		int32_t id = v->running[k];
		if (id >= st->cap_job || !st->job[id].known)
			continue;
		st->ends[st->nends++] = (struct sl_end){ .job = id, .end_s = end_of(st, id) };
	}
	qsort(st->ends, (size_t)st->nends, sizeof *st->ends, end_cmp);
}

/* A job started in the cycle joins the list in order. */
static void ends_add(struct sl *st, int32_t id)
{
	if (ends_room(st, st->nends + 1))
		return;
	struct sl_end e = { .job = id, .end_s = end_of(st, id) };
	int32_t k = st->nends;
	while (k > 0 && end_cmp(&st->ends[k - 1], &e) > 0) {
		st->ends[k] = st->ends[k - 1];
		k--;
	}
	st->ends[k] = e;
	st->nends++;
}

/* ---- the will-run test ---- */

static bool job_on(const struct sl *st, int32_t id, const uint64_t *nodes)
{
	const struct job *j = &st->v->jobs[id];
	const struct alloc_part *p = &st->v->parts[j->parts];
	for (int32_t k = 0; k < j->nparts; k++)
		if (sl_bit(nodes, st->pos[p[k].node]))
			return true;
	return false;
}

/* What the nodes of `avail` offer the tested job (a necessary condition
 * of a fit, kept up to date as jobs are released, so that the full
 * selection runs only where it may succeed): nodes that can take a gang's
 * part, or CPUs for a spread request. */
struct fz {
	const struct job_req *r;
	const uint64_t *avail;
	int64_t have, need;
	bool on;
};

static void fz_init(struct sl *st, struct fz *z, const struct job_req *r, const uint64_t *avail,
                    const struct nodefree *f)
{
	*z = (struct fz){ .r = r, .avail = avail, .on = !job_req_shared(r),
	                  .need = r->nodes > 0 ? r->nodes : job_req_cores(r) };
	if (!z->on)
		return;
	for (int32_t k = 0; k < st->n; k++) {
		if (!sl_bit(avail, k)) {
			st->okc[k] = 0;
			continue;
		}
		int32_t c = sl_node_cpus(st, f, st->ord[k], r);
		st->okc[k] = c;
		z->have += r->nodes > 0 ? c > 0 : c;
	}
}

static bool fz_may(const struct fz *z)
{
	return !z->on || z->have >= z->need;
}

/* Job id's resources go back to st->fut. */
static void release(struct sl *st, struct fz *z, int32_t id)
{
	const struct job *j = &st->v->jobs[id];
	const struct alloc_part *p = &st->v->parts[j->parts];
	nodefree_give(st->fut, p, j->nparts);
	if (!z || !z->on)
		return;
	for (int32_t m = 0; m < j->nparts; m++) {
		int32_t k = st->pos[p[m].node];
		if (!sl_bit(z->avail, k))
			continue;
		int32_t c = sl_node_cpus(st, st->fut, p[m].node, z->r);
		z->have += z->r->nodes > 0 ? (c > 0) - (st->okc[k] > 0) : c - st->okc[k];
		st->okc[k] = c;
	}
}

static bool is_cand(const struct sl *st, int32_t id)
{
	return st->job[id].mark == st->stamp;
}

/* _guess_job_end: a job past its expected end. */
static int64_t guess_end(const struct sl *st, const struct sl_end *e, int64_t now)
{
	const struct sl_job *sj = &st->job[e->job];
	int32_t over = st->cfg->part[sj->part].over_time_limit_min;
	if (over < 0)
		over = (int32_t)st->p[SP_OVERTIME];
	int64_t end = e->end_s + (int64_t)st->p[SP_KILL_WAIT] + (int64_t)over * 60;
	return end <= now ? now + 1 : end;
}

/* When job id can start on the nodes `avail` (Slurm order), the nodes it
 * would take in st->parts; -1 when never (within what the test sees).
 * now_only: TEST_NOW_ONLY (no reservation wanted). preempt: the job may
 * preempt (its candidates are in st->cands). */
static int64_t will_run(struct sl *st, int32_t id, const uint64_t *avail, bool now_only, bool preempt, int *np,
                        int64_t now)
{
	const struct cluster *cl = st->cl;
	const struct job_req *r = &st->v->jobs[id].req;
	struct fz z;
	fz_init(st, &z, r, avail, cl->free);
	*np = fz_may(&z) ? sl_select(st, id, cl->free, avail, true) : 0;
	if (*np > 0)
		return now;
	if (now_only && !preempt)
		return -1;
	memcpy(st->fut, cl->free, (size_t)st->n * sizeof *st->fut);
	st->stamp++;   /* the candidates of this test, if any, are marked with it */
	if (preempt && st->ncands > 0) {
		for (int32_t k = 0; k < st->ncands; k++)
			st->job[st->cands[k]].mark = st->stamp;
		for (int32_t k = 0; k < st->ncands; k++)
			if (job_on(st, st->cands[k], avail))
				release(st, &z, st->cands[k]);
		if (fz_may(&z) && (*np = sl_select(st, id, st->fut, avail, true)) > 0)
			return now;
	}
	if (now_only)
		return -1;
	int64_t window = 30, anchor = 0;
	int32_t it = 0;
	bool more = true;
	while (more) {
		const struct sl_end *last = NULL;
		int cnt = 0;
		bool skip_test = false;
		for (;;) {
			if (it >= st->nends) {
				more = false;
				break;
			}
			const struct sl_end *e = &st->ends[it++];
			if ((preempt && is_cand(st, e->job)) || !job_on(st, e->job, avail))
				continue;
			if (!anchor)
				anchor = e->end_s + (window - e->end_s % window);
			last = e;
			release(st, &z, e->job);
			if (it >= st->nends) {
				more = false;
				break;
			}
			if (st->ends[it].end_s > anchor + window)
				break;
			if (cnt++ > 200) {
				skip_test = true;
				break;
			}
		}
		if (!last)
			break;
		if (skip_test)
			continue;
		const struct sl_end *nx = it < st->nends ? &st->ends[it] : NULL;
		do
			window *= 2;
		while (nx && nx->end_s > anchor + window);
		if (fz_may(&z) && (*np = sl_select(st, id, st->fut, avail, true)) > 0)
			return last->end_s <= now ? guess_end(st, last, now) : last->end_s;
	}
	return -1;
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
	int64_t now = epoch(st, v->now);
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
	uint64_t *avail = st->avail, *cand = st->cand, *sel = st->tmp2, *prev = st->tmp;
	for (int32_t r = 0; r < st->nq; r++) {
		int32_t id = st->q[r].job;
		const struct job *j = &v->jobs[id];
		struct sl_job *sj = &st->job[id];
		if (j->state != JOB_PENDING)
			continue;
		if (depth >= max_test)
			break;
		if (enforce && !stop && !sl_limits_pre(st, id))
			continue;
		if (!bf_counts(st, sj))
			continue;
		const struct slurm_qos *q = &st->cfg->qos[sj->qos];
		bool no_reserve = (st->p[SP_BF_MIN_PRIO] > 0 && sj->prio < st->p[SP_BF_MIN_PRIO]) ||
		                  (st->p[SP_BF_MIN_AGE] > 0 && now - epoch(st, sj->begin_us) < (int64_t)st->p[SP_BF_MIN_AGE]);
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
			int np;
			int64_t S = will_run(st, id, avail, no_reserve, may_preempt, &np, now);
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
				if (enforce && !stop && !sl_limits_post(st, id, st->parts, n))
					break;   /* accounting policy: no plan */
				if (n > 0) {
					SL_TRACE(st, "bf start %lld node %d [free %d %d %d %d %d %d cand %llx]", (long long)v->jobs[id].trace_id, st->parts[0].node + 1,
					         st->cl->free[0].cores, st->cl->free[1].cores, st->cl->free[2].cores, st->cl->free[3].cores,
					         st->cl->free[4].cores, st->cl->free[5].cores, (unsigned long long)cand[0]);
					if (sl_start(st, id, st->parts, n))
						return;
					ends_add(st, id);
					if (max_start > 0 && ++started >= max_start)
						goto done;
					break;
				}
				if (may_preempt && sl_preempt(st, id, cand) < 0)
					return;
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
			if (enforce && !stop && !sl_limits_post(st, id, st->parts, np))
				break;
			if (q->flags & SLURM_QOS_NO_RESERVE)
				break;
			if (m->n >= space || m->n + 2 > m->cap)
				goto done;
			for (int32_t w = 0; w < nw; w++)
				sel[w] = ~sel[w];
			SL_TRACE(st, "bf plan %lld at %lld", (long long)v->jobs[id].trace_id, (long long)(S % 1000));
			add_resv(st, s_rnd, e_rnd, sel, res);
			break;
		}
	}
done:
	st->bf_planned = planned;
}
