/* conservative — conservative backfilling (Mu'alem & Feitelson 2001): every
 * queued job, in submit order, gets a reservation at the earliest time it
 * fits in the availability profile without delaying any earlier
 * reservation; a job whose reservation is now starts.
 *
 * The profile is an array-backed timeline (as Slurm's backfill keeps one):
 * segments [t_k, t_k+1) with the cluster's aggregate free cores and GPUs,
 * and beside it, at the node level, one timeline per node — its free state
 * and the times it changes, which are only where a running job on it ends
 * or a reservation on it starts or ends. It is built every pass from the
 * free state now and the running jobs' walltime estimates; a reservation
 * splits the segment where it ends, and its nodes' timelines where it
 * starts and ends, and takes its placement from the aggregates of every
 * segment it spans and from its nodes' states within its window. A job
 * fits from segment k when one placement fits the per-node minimum over
 * its window [t_k, t_k + walltime), which each node's own timeline gives
 * from the few entries the window overlaps (a cursor per node follows k).
 *
 * The profile is indexed by node group and time, so that a try costs
 * neither O(nodes × segments) nor a placement where none can succeed:
 *   - nodes with equal timelines form a group (equal free states at equal
 *     times); a window's minimum is computed once per group, and a
 *     reservation giving a group's nodes the same part computes one new
 *     timeline and copies it (no power model only);
 *   - for a gang, each group's (else node's) runs of entries with the
 *     part's cores, memory and cards are intervals of starts it could take;
 *     summed over segments they say at which starts at least `nodes` nodes
 *     could, and only those are tried (a placement needs that of every node
 *     it takes, so the starts skipped are starts that would fail);
 *   - a plain gang no larger in any respect than one that found no start
 *     within the window this pass finds none either (the profile has only
 *     filled since) and is not tried.
 * Every start tried is tried as before (the same minimum, the same
 * placement), so the schedules are those of the plain scan of every node
 * in every segment (tests/scenario/pins.sh pins them).
 *
 * Jobs that can start at once always do; of the rest, only the first
 * bf_max_job_test are given reservations, and a job whose
 * earliest start lies beyond now + bf_window gets no reservation (Slurm's
 * bf_max_job_test and bf_window).
 *
 * Counting mode: while every queued job the pass meets is a plain core
 * request (spread, no memory or GPU constraint — every SWF job), any free
 * core serves any of them, and the profile keeps only each segment's free
 * core count, as classic conservative backfilling on a homogeneous machine
 * does: O(segments) per job instead of O(segments × nodes). At the first job
 * that is not, the pass starts over at the node level (the jobs it already
 * started stay started; the reservations are recomputed).
 *
 * Placement. Reservations in the future are first fit (place_first_fit);
 * a job that starts now is placed by the placer (env->placement) on the
 * per-node minimum of the segments it spans — no larger than the live
 * state per node, card and NUMA domain, so valid now and delaying no
 * earlier reservation (in counting mode, on the live state). Segment
 * states keep NUMA free counts (nodefree_take / give); the minimum takes
 * them per domain and caps cores at their sum. A segment's GPU count is
 * of whole idle cards: shares and MIG instances do not move it. */
#include "policies/placement.h"
#include "policies/policy.h"
#include "sim/power.h"

#include <stdlib.h>
#include <string.h>

enum { P_MAX_JOB_TEST, P_WINDOW_MIN };

static const struct policy_param cons_params[] = {
	[P_MAX_JOB_TEST] = { "bf_max_job_test", 100, 1, 1e9,
	                     "queued jobs given a reservation per pass (Slurm bf_max_job_test)" },
	[P_WINDOW_MIN] = { "bf_window", 1440, 1, 1e9,
	                   "minutes ahead that reservations may start (Slurm bf_window)" },
	{ NULL, 0, 0, 0, NULL },
};

/* A segment's id is its place in the order of creation (segments are
 * only added during a pass); cons.spos maps ids to positions. */
struct seg {
	simtime t;
	int64_t cores, gpus;      /* aggregate free */
	int32_t id;
};

/* One node's timeline: its free state from e[k].t until e[k+1].t (the
 * last entry until the profile's end); e[0].t is the pass's now. An entry
 * starts where a segment does: that segment's id is sid. */
struct tlent {
	simtime t;
	int32_t sid;
	int32_t zero;             /* 0: no padding, for tl_same's memcmp */
	struct nodefree f;
};

#define TL_RUNS 8   /* good runs gang_could() takes at a time */

struct timeline {
	struct tlent *e;
	int32_t n, cap;
	int32_t cur;              /* earliest(): the entry in force at the start tried */
	uint64_t ver;             /* changes whenever e does (never wraps in a run) */
	uint64_t sver;            /* the version lo_ / hi_ are for */
	int32_t lo_cores, hi_cores;   /* the least and most free cores and memory */
	int64_t lo_mem, hi_mem;       /* over the entries (tl_span) */
};

/* Nodes with equal timelines (and service state) form a group: a plain
 * gang's count of nodes that could goes over groups, weighted by their
 * size, a window's minimum is computed once per group, and a reservation
 * that gives the nodes of one group the same part computes the first
 * node's new timeline and copies it to the others. Groups are built at the
 * first plain gang of a pass and kept as reservations change timelines.
 * Without a power model only (power can block single nodes between two
 * jobs of a pass). */
struct tgroup {
	uint64_t h;               /* hash of the timeline */
	int32_t head, count;      /* first member, members */
	int32_t act;              /* position in cons.act; -1 when empty */
};

/* A plain gang (sizes only: no GPUs, labels, plane, pool or NUMA rule)
 * that found no start within the window this pass. */
struct nofit {
	int32_t nodes, cores;
	int64_t mem_mib;
	simtime wall;
};

#define NOFIT_MAX 16

struct cons {
	int32_t max_test;
	simtime window_us;
	int32_t nnodes;
	struct alloc_part *parts;
	struct timeline *tl;      /* nnodes */
	struct nodefree *min;     /* nnodes: the intersection being tested */
	struct seg *segs;         /* in time order */
	int32_t nsegs, cap_segs;
	int32_t *ids;
	int32_t *could;           /* gang_could(): cap_segs + 1 */
	int32_t *spos;            /* cap_segs: position of the segment by id */
	uint64_t gen;             /* timeline versions are drawn from it */
	bool grouped;             /* groups are built for this pass */
	struct tgroup *grp;       /* ngrp, of which nact non-empty, listed in act */
	struct nodefree *gmin;    /* capgrp: window_min() per group */
	int32_t ngrp, capgrp, nact;
	int32_t *act;             /* nnodes */
	int32_t *gindex;          /* group by hash, open addressing; gmask + 1 slots */
	int32_t gmask;
	int32_t *gof, *gnext, *gprev;   /* nnodes: a node's group and its neighbours in it */
	bool count;               /* this pass keeps counts only (see above) */
	struct placer pl;
	/* The pass in progress, and what the last one leaves for the next
	 * (see "Passes that change nothing" above). */
	int32_t next;             /* the pending entry it looks at next */
	int32_t tested;
	struct nofit nf[NOFIT_MAX];
	int nnf;
	bool clean;               /* no start, no failed placement now, no shortage */
	bool kept;                /* the profile and the fields below are the last pass's */
	uint64_t kept_epoch;
	simtime kept_limit;
	int32_t *kept_pend;       /* the pending entries it looked at: id, or ~id when not pending */
	int32_t cap_pend;
	struct nodefree *kept_free;   /* nnodes: cl->free */
	uint8_t *kept_svc;            /* nnodes: cl->svc */
};

static bool fungible(const struct job_req *r)
{
	return r->nodes == 0 && r->gpus == 0 && r->mem_mib == 0;
}

static void cons_fini(void *state);

static int cons_init(void **state, const struct policy_env *env, const struct policy_cfg *cfg,
                     char *err, size_t errlen)
{
	size_t n = (size_t)env->cl->nnodes + 1;
	struct cons *p = calloc(1, sizeof *p);
	if (!p)
		return -1;
	if (placer_init(&p->pl, env->placement, env->label_blind, env->seed, env->cl, env->njobs,
	                err, errlen)) {
		cons_fini(p);
		return -1;
	}
	p->max_test = (int32_t)cfg->v[P_MAX_JOB_TEST];
	p->window_us = (simtime)cfg->v[P_WINDOW_MIN] * SIMTIME_MIN;
	p->nnodes = env->cl->nnodes;
	/* Segments: one now, one per distinct running-job end, two per
	 * reservation. Sized for the worst case so passes do not allocate. */
	int64_t maxrun = env->cl->total_cores + env->cl->total_gpus;
	if (maxrun > env->njobs)
		maxrun = env->njobs;
	p->cap_segs = (int32_t)(maxrun + 2 * (int64_t)p->max_test + 2);
	p->parts = calloc(n, sizeof *p->parts);
	p->min = calloc(n, sizeof *p->min);
	p->tl = calloc(n, sizeof *p->tl);
	p->segs = calloc((size_t)p->cap_segs, sizeof *p->segs);
	p->could = calloc((size_t)p->cap_segs + 1, sizeof *p->could);
	p->spos = calloc((size_t)p->cap_segs, sizeof *p->spos);
	p->act = calloc(n, sizeof *p->act);
	p->gof = calloc(n, sizeof *p->gof);
	p->gnext = calloc(n, sizeof *p->gnext);
	p->gprev = calloc(n, sizeof *p->gprev);
	p->gmask = 16;
	while (p->gmask < 2 * (int32_t)n)
		p->gmask *= 2;
	p->gindex = calloc((size_t)p->gmask, sizeof *p->gindex);
	p->gmask--;
	p->ids = calloc((size_t)env->njobs + 1, sizeof *p->ids);
	p->cap_pend = env->njobs + 1;
	p->kept_pend = calloc((size_t)p->cap_pend, sizeof *p->kept_pend);
	p->kept_free = calloc(n, sizeof *p->kept_free);
	p->kept_svc = calloc(n, 1);
	if (!p->parts || !p->min || !p->tl || !p->segs || !p->could || !p->spos || !p->act || !p->gof || !p->gnext ||
	    !p->gprev || !p->gindex || !p->ids || !p->kept_pend || !p->kept_free || !p->kept_svc) {
		cons_fini(p);
		return -1;
	}
	*state = p;
	return 0;
}

static void cons_fini(void *state)
{
	struct cons *p = state;
	placer_fini(&p->pl);
	free(p->parts);
	free(p->min);
	if (p->tl)
		for (int32_t i = 0; i < p->nnodes; i++)
			free(p->tl[i].e);
	free(p->tl);
	free(p->could);
	free(p->spos);
	free(p->grp);
	free(p->gmin);
	free(p->act);
	free(p->gindex);
	free(p->gof);
	free(p->gnext);
	free(p->gprev);
	free(p->segs);
	free(p->ids);
	free(p->kept_pend);
	free(p->kept_free);
	free(p->kept_svc);
	free(p);
}

/* Inserts a segment at time t after position `after`, with segment
 * `after`'s aggregates. Returns its position, or -1 when memory runs out. */
static int insert_seg(struct cons *p, int after, simtime t)
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
static int apply_parts(struct cons *p, const struct cluster *cl, const struct alloc_part *parts, int n,
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

static void seg_take(struct seg *s, const struct alloc_part *parts, int n)
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

static int build_profile(struct cons *p, const struct view *v)
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
		if (p->segs[last].t != end && (last = insert_seg(p, last, end)) < 0)
			return -1;
		seg_give(&p->segs[last], &v->parts[r->parts], r->nparts);
		if (!p->count && apply_parts(p, cl, &v->parts[r->parts], r->nparts, last, -1, true))
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
static void window_min(struct cons *p, simtime from, simtime to, bool several, bool per_node)
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
/* The runs of entries of l good for one part of r (see gang_could), from
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
 * good for it being judged as gang_could says. */
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

static void gang_could(struct cons *p, const struct cluster *cl, const struct job_req *r, simtime wall)
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

/* Earliest segment from which `j` fits for its whole walltime; fills
 * p->parts and returns the part count, with the segment in *at; 0 when it
 * fits nowhere. */
static int earliest(struct cons *p, const struct view *v, const struct job *j, simtime limit, int *at)
{
	const struct cluster *cl = v->cl;
	simtime wall = j->walltime_us;
	bool gang = !p->count && j->req.nodes > 0;
	int32_t could = 0;   /* gang: nodes that could, from the start tried */
	if (gang)
		gang_could(p, cl, &j->req, wall);
	if (p->grouped)
		for (int32_t a = 0; a < p->nact; a++)
			p->tl[p->grp[p->act[a]].head].cur = 0;
	else if (!p->count)
		for (int32_t i = 0; i < p->nnodes; i++)
			p->tl[i].cur = 0;
	for (int k = 0; k < p->nsegs && p->segs[k].t <= limit; k++) {
		if (gang) {
			could += p->could[k];
			if (could < j->req.nodes)
				continue;
		}
		if (!place_aggregate_ok(cl, p->segs[k].cores, p->segs[k].gpus, &j->req))
			continue;
		simtime end = wall == SIMTIME_INF ? SIMTIME_INF : p->segs[k].t + wall;
		bool ok = true;
		int last = k;
		while (last + 1 < p->nsegs && p->segs[last + 1].t < end) {
			last++;
			if (!place_aggregate_ok(cl, p->segs[last].cores, p->segs[last].gpus, &j->req)) {
				ok = false;
				break;
			}
		}
		if (!ok)
			continue;
		if (p->count) {
			/* The counts suffice; where the job goes is chosen when it
			 * starts. A reservation is kept as one part of its cores. */
			*at = k;
			if (k > 0) {
				p->parts[0] = (struct alloc_part){ .node = 0, .cores = j->req.cores,
				                                     .mig_profile = -1, .mig_start = -1 };
				return 1;
			}
			int n = placer_place(&p->pl, cl, cl->free, j, p->parts);
			if (!n)
				p->clean = false;
			return n;
		}
		/* A reservation of whole-node parts is placed on the groups' states. */
		bool of = k > 0 && p->grouped && j->req.nodes > 0 && !job_req_shared(&j->req) &&
		          (j->req.gpus == 0 || j->req.nodes == 1);
		window_min(p, p->segs[k].t, end, last > k, !of);
		int n = k == 0 ? placer_place(&p->pl, cl, p->min, j, p->parts)
		        : of   ? place_first_fit_of(cl, p->gmin, p->gof, &j->req, p->parts)
		               : place_first_fit(cl, p->min, &j->req, p->parts);
		if (n) {
			*at = k;
			return n;
		}
		if (k == 0)
			p->clean = false;   /* the placer said no now: a later now may differ */
	}
	return 0;
}

/* One pass in the mode p->count says. 1: a job that is not fungible was met
 * in counting mode, so the pass must start over at the node level; 0 done;
 * -1 the policy must stop (an invalid decision or no memory). */
/* Did a plain gang no larger in any respect than j's (nodes, cores and
 * memory per node, walltime) find no start within the window earlier in
 * this pass? Then j finds none either: the profile has only filled since,
 * and j needs at least as many nodes, each with at least as much, for at
 * least as long, where every node that could hold a part of j could hold
 * one of the other (the rule Slurm's backfill applies to jobs of the same
 * request). */
static bool nofit_known(const struct nofit *nf, int n, const struct job *j)
{
	for (int i = 0; i < n; i++)
		if (nf[i].nodes <= j->req.nodes && nf[i].cores <= j->req.cores &&
		    nf[i].mem_mib <= j->req.mem_mib && nf[i].wall <= j->walltime_us)
			return true;
	return false;
}

static int run_pass(struct cons *p, const struct view *v, struct decide *out)
{
	simtime limit = v->now + p->window_us;
	for (; p->next < v->npending && p->tested < p->max_test; p->next++) {
		int32_t i = p->next;
		const struct job *j = &v->jobs[v->pending[i]];
		if (j->state != JOB_PENDING)
			continue;
		if (p->count && !fungible(&j->req))
			return 1;
		int k;
		bool memo = !p->count && j->req.nodes > 0 && cluster_req_plain(&j->req);
		int n = memo && nofit_known(p->nf, p->nnf, j) ? 0 : earliest(p, v, j, limit, &k);
		if (n == 0 || k > 0)
			p->tested++;   /* jobs that start now are not backfill tests */
		if (!n) {
			if (memo && p->nnf < NOFIT_MAX && !nofit_known(p->nf, p->nnf, j))
				p->nf[p->nnf++] = (struct nofit){ j->req.nodes, j->req.cores, j->req.mem_mib,
				                                  j->walltime_us };
			continue;
		}
		simtime end = j->walltime_us == SIMTIME_INF ? SIMTIME_INF : p->segs[k].t + j->walltime_us;
		int last = k;
		while (last + 1 < p->nsegs && p->segs[last + 1].t < end)
			last++;
		if (end != SIMTIME_INF && (last + 1 == p->nsegs || p->segs[last + 1].t != end) &&
		    insert_seg(p, last, end) < 0)
			return -1;
		for (int s = k; s <= last; s++)
			seg_take(&p->segs[s], p->parts, n);
		if (!p->count && apply_parts(p, v->cl, p->parts, n, k, end == SIMTIME_INF ? -1 : last + 1, false))
			return -1;
		if (k == 0) {
			p->clean = false;
			if (decide_start(out, j->id, p->parts, n))
				return -1;
			placer_started(&p->pl, v, j, p->parts, n);
		}
	}
	return 0;
}

static void cons_submit(void *state, const struct view *v, int32_t job)
{
	struct cons *p = state;
	placer_submit(&p->pl, &v->jobs[job]);
}

/* Would a pass now find what the last one left (see "Passes that change
 * nothing")? Then it may go on from where that one stopped. */
static bool kept_holds(const struct cons *p, const struct view *v)
{
	const struct cluster *cl = v->cl;
	if (!p->kept || v->alloc_epoch != p->kept_epoch || cl->pw || cl->nnodes != p->nnodes ||
	    v->npending < p->next || v->now < p->segs[0].t)
		return false;
	if (p->nsegs > 1 && p->segs[1].t <= v->now)
		return false;   /* something ends by now: the profile's front moved */
	for (int32_t i = 0; i < p->next; i++) {
		int32_t id = v->pending[i];
		if (p->kept_pend[i] != (v->jobs[id].state == JOB_PENDING ? id : ~id))
			return false;
	}
	if (memcmp(p->kept_free, cl->free, (size_t)p->nnodes * sizeof *p->kept_free) != 0 ||
	    memcmp(p->kept_svc, cl->svc, (size_t)p->nnodes) != 0)
		return false;
	simtime limit = v->now + p->window_us;
	for (int32_t k = p->nsegs - 1; k > 0 && p->segs[k].t > p->kept_limit; k--)
		if (p->segs[k].t <= limit)
			return false;   /* the wider window takes in a start the last pass could not */
	return true;
}

/* Keeps the node-level pass just run for the next (its profile stays in p). */
static void keep(struct cons *p, const struct view *v)
{
	const struct cluster *cl = v->cl;
	p->kept = false;
	if (!p->clean || cl->pw || p->next > p->cap_pend)
		return;
	for (int32_t i = 0; i < p->next; i++) {
		int32_t id = v->pending[i];
		p->kept_pend[i] = v->jobs[id].state == JOB_PENDING ? id : ~id;
	}
	memcpy(p->kept_free, cl->free, (size_t)p->nnodes * sizeof *p->kept_free);
	memcpy(p->kept_svc, cl->svc, (size_t)p->nnodes);
	p->kept_epoch = v->alloc_epoch;
	p->kept_limit = v->now + p->window_us;
	p->kept = true;
}

/* Starts a pass in the mode p->count says: a fresh profile. -1 when memory
 * runs out. */
static int fresh(struct cons *p, const struct view *v)
{
	p->next = 0;
	p->tested = 0;
	p->nnf = 0;
	p->clean = true;
	return build_profile(p, v);
}

static void cons_schedule(void *state, const struct view *v, struct decide *out)
{
	struct cons *p = state;
	placer_sync(&p->pl, v);
	if (kept_holds(p, v)) {
		/* The profile moves to now; the pass goes on with the jobs
		 * submitted since. */
		p->segs[0].t = v->now;
		for (int32_t i = 0; i < p->nnodes; i++)
			p->tl[i].e[0].t = v->now;
		if (run_pass(p, v, out) == 0)
			keep(p, v);
		else
			p->kept = false;
		return;
	}
	p->kept = false;
	/* The counting pass stops at the first pending job that is not
	 * fungible: when that is the first, it is not begun. */
	int32_t i = 0;
	while (i < v->npending && v->jobs[v->pending[i]].state != JOB_PENDING)
		i++;
	p->count = i < v->npending && fungible(&v->jobs[v->pending[i]].req);
	bool started = false;   /* by the counting pass */
	if (p->count) {
		if (fresh(p, v) || run_pass(p, v, out) != 1)
			return;
		started = !p->clean;
		p->count = false;
	}
	if (fresh(p, v) == 0 && run_pass(p, v, out) == 0 && !started)
		keep(p, v);
}

const struct policy_ops policy_conservative = {
	.name = "conservative",
	.summary = "conservative backfilling: every queued job holds a reservation",
	.params = cons_params,
	.init = cons_init,
	.fini = cons_fini,
	.submit = cons_submit,
	.schedule = cons_schedule,
};
