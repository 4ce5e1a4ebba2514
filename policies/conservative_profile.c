/* conservative_profile — the availability profile of conservative
 * backfilling (policies/conservative.c describes it): segments with the
 * aggregate free cores and GPUs, one timeline per node, the groups of
 * nodes with equal timelines, a window's per-node minimum and the count of
 * nodes that could hold a gang's part from each segment. Pure: it reads the
 * view and writes struct cons only. */
#include "policies/conservative_int.h"
#include "sim/power.h"

#include <stdlib.h>
#include <string.h>

/* Inserts a segment at time t after position `after`, with segment
 * `after`'s aggregates. Returns its position, or -1 when memory runs out. */
int cons_seg_insert(struct cons *p, int after, simtime t)
{
	if (p->nsegs == p->cap_segs) {
		int32_t cap = p->cap_segs * 2;
		struct seg *sg = realloc(p->segs, (size_t)cap * sizeof *sg);
		if (!sg)
			return -1;
		p->segs = sg;
		int32_t *c = realloc(p->could, ((size_t)cap + 1) * sizeof *c);
		if (!c)
			return -1;
		p->could = c;
		int32_t *sp = realloc(p->spos, (size_t)cap * sizeof *sp);
		if (!sp)
			return -1;
		p->spos = sp;
		p->cap_segs = cap;
	}
	int pos = after + 1;
	memmove(&p->segs[pos + 1], &p->segs[pos], (size_t)(p->nsegs - pos) * sizeof *p->segs);
	p->segs[pos] = p->segs[after];
	p->segs[pos].t = t;
	p->segs[pos].id = p->nsegs++;
	for (int32_t k = pos; k < p->nsegs; k++)
		p->spos[p->segs[k].id] = k;
	return pos;
}

/* Index of the entry of timeline l in force at time t (t >= e[0].t). */
static int32_t tl_at(const struct timeline *l, simtime t)
{
	int32_t lo = 0, hi = l->n - 1;
	while (lo < hi) {
		int32_t mid = lo + (hi - lo + 1) / 2;
		if (l->e[mid].t <= t)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Makes timeline l change at the start of segment s (a copy of the entry
 * in force there), unless it already does; returns the entry starting
 * there, or -1 when memory runs out. */
static int32_t tl_split(struct timeline *l, const struct seg *s)
{
	simtime t = s->t;
	int32_t k = tl_at(l, t);
	if (l->e[k].t == t)
		return k;
	if (l->n == l->cap) {
		int32_t cap = l->cap ? 2 * l->cap : 8;
		struct tlent *e = realloc(l->e, (size_t)cap * sizeof *e);
		if (!e)
			return -1;
		l->e = e;
		l->cap = cap;
	}
	memmove(&l->e[k + 2], &l->e[k + 1], (size_t)(l->n - k - 1) * sizeof *l->e);
	l->e[k + 1] = l->e[k];
	l->e[k + 1].t = t;
	l->e[k + 1].sid = s->id;
	l->n++;
	return k + 1;
}

/* Recomputes l's range of free cores and memory over its entries. */
static void tl_span(struct timeline *l)
{
	l->sver = l->ver;
	l->lo_cores = l->hi_cores = l->e[0].f.cores;
	l->lo_mem = l->hi_mem = l->e[0].f.mem_mib;
	for (int32_t k = 1; k < l->n; k++) {
		const struct nodefree *f = &l->e[k].f;
		if (f->cores < l->lo_cores) l->lo_cores = f->cores;
		if (f->cores > l->hi_cores) l->hi_cores = f->cores;
		if (f->mem_mib < l->lo_mem) l->lo_mem = f->mem_mib;
		if (f->mem_mib > l->hi_mem) l->hi_mem = f->mem_mib;
	}
}

/* Takes (give: gives back) part x from node x->node's timeline from the
 * start of segment kf to that of segment kt (-1: to the end). -1 when
 * memory runs out. */
static int group_join(struct cons *p, const struct cluster *cl, int32_t i);
static void group_leave(struct cons *p, int32_t i);

static int tl_apply(struct cons *p, const struct cluster *cl, const struct alloc_part *x, int32_t kf, int32_t kt,
                    bool give)
{
	struct timeline *l = &p->tl[x->node];
	if (p->grouped)
		group_leave(p, x->node);
	simtime to = kt < 0 ? SIMTIME_INF : p->segs[kt].t;
	int32_t a = tl_split(l, &p->segs[kf]);
	if (a < 0 || (kt >= 0 && tl_split(l, &p->segs[kt]) < 0))
		return -1;
	l->ver = ++p->gen;
	struct alloc_part one = *x;
	one.node = 0;   /* nodefree_take / give index their state by node */
	for (int32_t k = a; k < l->n && l->e[k].t < to; k++) {
		if (give)
			nodefree_give(&l->e[k].f, &one, 1);
		else
			nodefree_take(&l->e[k].f, &one, 1);
	}
	if (p->grouped && group_join(p, cl, x->node))
		p->grouped = false;   /* tables full: rebuilt at the next plain gang */
	return 0;
}

static void group_add(struct cons *p, int32_t i, int32_t g);

static bool part_same(const struct alloc_part *a, const struct alloc_part *b)
{
	struct alloc_part x = *a, y = *b;
	x.node = y.node = 0;
	return memcmp(&x, &y, sizeof x) == 0;
}

/* tl_apply for every part of an allocation. A part equal to the one
 * before it, on a node that was in the same group as that one's node, ends
 * with the same timeline: it is copied, and the node follows the other into
 * its new group. -1 when memory runs out. */
int cons_apply(struct cons *p, const struct cluster *cl, const struct alloc_part *parts, int n,
                       int32_t kf, int32_t kt, bool give)
{
	int32_t prev = -1, prev_grp = -1;
	for (int x = 0; x < n; x++) {
		int32_t i = parts[x].node;
		if (p->grouped && prev >= 0 && p->gof[i] == prev_grp && part_same(&parts[x], &parts[x - 1])) {
			struct timeline *l = &p->tl[i];
			const struct timeline *src = &p->tl[parts[prev].node];
			if (l->cap < src->n) {
				struct tlent *e = realloc(l->e, (size_t)src->cap * sizeof *e);
				if (!e)
					return -1;
				l->e = e;
				l->cap = src->cap;
			}
			group_leave(p, i);
			memcpy(l->e, src->e, (size_t)src->n * sizeof *l->e);
			l->n = src->n;
			l->ver = ++p->gen;
			group_add(p, i, p->gof[parts[prev].node]);
			prev = x;
			continue;
		}
		prev_grp = p->grouped ? p->gof[i] : -1;
		if (tl_apply(p, cl, &parts[x], kf, kt, give))
			return -1;
		prev = x;
	}
	return 0;
}

/* Whole cards of a part (a share or MIG instance holds none). */
static int whole_gpus(const struct alloc_part *p)
{
	return p->milli > 0 || p->mig_profile >= 0 ? 0 : hl_popcount64(p->gpus);
}

void cons_seg_take(struct seg *s, const struct alloc_part *parts, int n)
{
	for (int i = 0; i < n; i++) {
		s->cores -= parts[i].cores;
		s->gpus -= whole_gpus(&parts[i]);
	}
}

static void seg_give(struct seg *s, const struct alloc_part *parts, int n)
{
	for (int i = 0; i < n; i++) {
		s->cores += parts[i].cores;
		s->gpus += whole_gpus(&parts[i]);
	}
}

int cons_profile_build(struct cons *p, const struct view *v)
{
	const struct cluster *cl = v->cl;
	p->nsegs = 1;
	p->grouped = false;
	p->segs[0] = (struct seg){ .t = v->now, .cores = cl->free_cores, .gpus = cl->free_gpus, .id = 0 };
	p->spos[0] = 0;
	if (!p->count) {
		for (int32_t i = 0; i < cl->nnodes; i++) {
			struct timeline *l = &p->tl[i];
			if (l->cap == 0) {
				l->e = malloc(8 * sizeof *l->e);
				if (!l->e)
					return -1;
				l->cap = 8;
			}
			l->n = 1;
			l->e[0] = (struct tlent){ .t = v->now, .sid = 0, .f = cl->free[i] };
			l->ver = ++p->gen;
		}
	}
	int32_t n = v->nrunning;
	memcpy(p->ids, v->running, (size_t)n * sizeof *p->ids);
	sort_by_expected_end(v->jobs, p->ids, n);
	for (int32_t k = 0; k < n; k++) {
		const struct job *r = &v->jobs[p->ids[k]];
		simtime end = view_expected_end(r);
		if (end == SIMTIME_INF)
			break;
		if (end <= v->now)
			end = v->now + 1;   /* overran its estimate: assume it ends next */
		int last = p->nsegs - 1;
		if (p->segs[last].t != end && (last = cons_seg_insert(p, last, end)) < 0)
			return -1;
		seg_give(&p->segs[last], &v->parts[r->parts], r->nparts);
		if (!p->count && cons_apply(p, cl, &v->parts[r->parts], r->nparts, last, -1, true))
			return -1;
	}
	return 0;
}

/* p->min = each node's minimum free state over [from, to), from its
 * timeline's entries in force then. `several`: the window spans more than
 * one segment, and, as a minimum over several states, GPUs are recounted
 * from the cards free throughout and cores capped at the NUMA domains'
 * sum; over one segment the state is taken as it is. Node cursors move
 * forward only: the starts tried by one earliest() call increase. */
static void tl_min(struct timeline *l, simtime from, simtime to, bool several, struct nodefree *m)
{
	while (l->cur + 1 < l->n && l->e[l->cur + 1].t <= from)
		l->cur++;
	*m = l->e[l->cur].f;
	if (!several)
		return;
	for (int32_t k = l->cur + 1; k < l->n && l->e[k].t < to; k++) {
		const struct nodefree *f = &l->e[k].f;
		if (f->cores < m->cores) m->cores = f->cores;
		if (f->mem_mib < m->mem_mib) m->mem_mib = f->mem_mib;
		m->gpu_free &= f->gpu_free;
		for (int d = 0; d < HL_NUMA_MAX; d++)
			if (f->numa_free[d] < m->numa_free[d])
				m->numa_free[d] = f->numa_free[d];
	}
	m->gpus = hl_popcount64(m->gpu_free);
	int32_t dsum = 0;
	for (int d = 0; d < HL_NUMA_MAX; d++)
		dsum += m->numa_free[d];
	if (dsum < m->cores)
		m->cores = dsum;
}

/* Grouped, the minimum is per group (p->gmin, node i's p->gmin[p->gof[i]]),
 * and copied to p->min only when `per_node`. */
void cons_window_min(struct cons *p, simtime from, simtime to, bool several, bool per_node)
{
	if (p->grouped) {
		for (int32_t a = 0; a < p->nact; a++) {
			int32_t g = p->act[a];
			tl_min(&p->tl[p->grp[g].head], from, to, several, &p->gmin[g]);
		}
		if (!per_node)
			return;
		for (int32_t i = 0; i < p->nnodes; i++)
			p->min[i] = p->gmin[p->gof[i]];
		return;
	}
	for (int32_t i = 0; i < p->nnodes; i++)
		tl_min(&p->tl[i], from, to, several, &p->min[i]);
}

/* For a gang request (r->nodes > 0): how many nodes could hold one part
 * of r for `wall` from each segment's start, as changes p->could[k] whose
 * running sum over k is that count. A node could only when it is up, not
 * blocked by power, statically suits r, and every entry of its timeline
 * the window overlaps has the part's cores, memory and (a whole-card
 * request) cards: a placement needs all of that of each node it uses
 * (cluster_node_fits), and the minimum over the window it must fit is no
 * larger than any entry. So a start at which fewer than r->nodes nodes
 * could is one where earliest() would find no placement, and it is skipped
 * without computing the minimum. */
/* The runs of entries of l good for one part of r (see cons_gang_could), from
 * entry *from on, into run[] (at most max; *from is left where to go on):
 * their number. */
static int good_runs(const struct timeline *l, const struct job_req *r, int32_t *from, int32_t *run,
                     int max)
{
	int32_t g = job_req_shared(r) ? 0 : r->gpus, c = r->cores;
	int64_t m = r->mem_mib;
	int nr = 0;
	int32_t a = -1, k = *from;
	for (; k <= l->n && nr < max; k++) {
		bool good = false;
		if (k < l->n) {
			const struct nodefree *f = &l->e[k].f;
			good = (f->cores >= c) & (f->mem_mib >= m);
			if (g > 0)
				good = good && (f->gpus >= g || hl_popcount64(f->gpu_free) >= g);
		}
		if (good) {
			if (a < 0)
				a = k;
		} else if (a >= 0) {
			run[2 * nr] = a;
			run[2 * nr + 1] = k;
			nr++;
			a = -1;
		}
	}
	*from = a >= 0 ? a : k;
	return nr;
}

/* Counts (weight w), into p->could, the starts of `wall` that the good run
 * [a, b) of timeline l allows: from a's segment until e[b].t - wall. */
static void could_add(struct cons *p, const struct timeline *l, int32_t a, int32_t b, simtime wall, int32_t w)
{
	int32_t sa = p->spos[l->e[a].sid];
	if (b == l->n) {
		p->could[sa] += w;
		return;
	}
	simtime x = l->e[b].t - wall;
	if (wall == SIMTIME_INF || x < l->e[a].t)
		return;
	int32_t lo = sa + 1, hi = p->spos[l->e[b].sid];   /* the first segment after x */
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (p->segs[mid].t <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	p->could[sa] += w;
	p->could[lo] -= w;
}

/* --- groups of nodes with equal timelines ------------------------------- */

static uint64_t tl_hash(const struct timeline *l, int svc)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)svc;
	for (int32_t k = 0; k < l->n; k++) {
		const struct tlent *e = &l->e[k];
		if (k > 0)   /* e[0].t is the pass's now in every timeline */
			h = (h ^ (uint64_t)e->t) * 1099511628211ull;
		h = (h ^ ((uint64_t)(uint32_t)e->f.cores << 32 | (uint32_t)e->f.gpus)) * 1099511628211ull;
		h = (h ^ (uint64_t)e->f.mem_mib) * 1099511628211ull;
		h = (h ^ e->f.gpu_free) * 1099511628211ull;
	}
	return h;
}

/* Equal timelines (every field of every entry: struct tlent has no
 * padding). */
static bool tl_same(const struct timeline *a, const struct timeline *b)
{
	return a->n == b->n && memcmp(a->e, b->e, (size_t)a->n * sizeof *a->e) == 0;
}

/* Links node i into group g. */
static void group_add(struct cons *p, int32_t i, int32_t g)
{
	struct tgroup *x = &p->grp[g];
	p->gof[i] = g;
	p->gprev[i] = -1;
	p->gnext[i] = x->head;
	if (x->head >= 0)
		p->gprev[x->head] = i;
	x->head = i;
	if (x->count++ == 0) {
		x->act = p->nact;
		p->act[p->nact++] = g;
	}
}

/* Puts node i into the group of its timeline (a new one if none). -1 when
 * memory runs out. */
static int group_join(struct cons *p, const struct cluster *cl, int32_t i)
{
	uint64_t h = tl_hash(&p->tl[i], cl->svc[i]);
	uint32_t slot = (uint32_t)(h >> 32) & (uint32_t)p->gmask;
	int32_t g;
	for (;; slot = (slot + 1) & (uint32_t)p->gmask) {
		g = p->gindex[slot] - 1;
		if (g < 0)
			break;
		const struct tgroup *x = &p->grp[g];
		if (x->h == h && x->count > 0 && cl->svc[x->head] == cl->svc[i] &&
		    tl_same(&p->tl[x->head], &p->tl[i]))
			break;
	}
	if (g < 0) {
		if (p->ngrp == p->capgrp || 2 * (p->ngrp + 1) > p->gmask + 1)
			return -1;   /* the caller rebuilds (and sizes) the groups */
		g = p->ngrp++;
		p->grp[g] = (struct tgroup){ .h = h, .head = -1, .count = 0, .act = -1 };
		p->gindex[slot] = g + 1;
	}
	group_add(p, i, g);
	return 0;
}

static void group_leave(struct cons *p, int32_t i)
{
	struct tgroup *x = &p->grp[p->gof[i]];
	if (p->gprev[i] >= 0)
		p->gnext[p->gprev[i]] = p->gnext[i];
	else
		x->head = p->gnext[i];
	if (p->gnext[i] >= 0)
		p->gprev[p->gnext[i]] = p->gprev[i];
	if (--x->count == 0) {
		int32_t last = p->act[--p->nact];
		p->act[x->act] = last;
		p->grp[last].act = x->act;
		x->act = -1;
	}
}

/* Builds the groups from scratch (sizing the tables for every node and
 * as many changes again). -1 when memory runs out. */
static int groups_build(struct cons *p, const struct cluster *cl)
{
	int32_t cap = 2 * p->nnodes + 16;
	if (p->capgrp < cap) {
		struct tgroup *g = realloc(p->grp, (size_t)cap * sizeof *g);
		if (!g)
			return -1;
		p->grp = g;
		struct nodefree *m = realloc(p->gmin, (size_t)cap * sizeof *m);
		if (!m)
			return -1;
		p->gmin = m;
		p->capgrp = cap;
	}
	if (p->gmask + 1 < 2 * cap) {
		int32_t sz = p->gmask + 1;
		while (sz < 2 * cap)
			sz *= 2;
		int32_t *ix = realloc(p->gindex, (size_t)sz * sizeof *ix);
		if (!ix)
			return -1;
		p->gindex = ix;
		p->gmask = sz - 1;
	}
	memset(p->gindex, 0, ((size_t)p->gmask + 1) * sizeof *p->gindex);
	p->ngrp = p->nact = 0;
	for (int32_t i = 0; i < p->nnodes; i++)
		if (group_join(p, cl, i))
			return -1;
	p->grouped = true;
	return 0;
}

/* --- counting the nodes that could --------------------------------------- */

/* Adds (weight w) the starts timeline l allows one part of r, its entries
 * good for it being judged as cons_gang_could says. */
static void node_could(struct cons *p, struct timeline *l, const struct job_req *r, bool plain, simtime wall,
                       int32_t w)
{
	if (l->sver != l->ver)
		tl_span(l);
	if (l->hi_cores < r->cores || l->hi_mem < r->mem_mib)
		return;   /* never good */
	if (l->lo_cores >= r->cores && l->lo_mem >= r->mem_mib && (plain || r->gpus == 0)) {
		could_add(p, l, 0, l->n, wall, w);   /* good throughout */
		return;
	}
	int32_t run[2 * TL_RUNS], from = 0;
	while (from <= l->n) {
		int nr = good_runs(l, r, &from, run, TL_RUNS);
		for (int k = 0; k < nr; k++)
			could_add(p, l, run[2 * k], run[2 * k + 1], wall, w);
	}
}

void cons_gang_could(struct cons *p, const struct cluster *cl, const struct job_req *r, simtime wall)
{
	/* A plain request's suitability is its sizes, which the free state
	 * implies, and its answer depends on the timeline's cores and memory
	 * alone: the same for every node of a group. */
	bool plain = cluster_req_plain(r);
	memset(p->could, 0, (size_t)(p->nsegs + 1) * sizeof *p->could);
	if (plain && !cl->pw && (p->grouped || groups_build(p, cl) == 0)) {
		for (int32_t a = 0; a < p->nact; a++) {
			const struct tgroup *g = &p->grp[p->act[a]];
			if (cl->svc[g->head] == NODE_UP)
				node_could(p, &p->tl[g->head], r, true, wall, g->count);
		}
		return;
	}
	for (int32_t i = 0; i < p->nnodes; i++) {
		if (cl->svc[i] != NODE_UP || (cl->pw && power_node_blocked(cl, i)) ||
		    (!plain && !cluster_node_suits(cl, i, r, FIT_IGNORE_GPU_MEM)))
			continue;
		node_could(p, &p->tl[i], r, plain, wall, 1);
	}
}
