/* conservative — conservative backfilling (Mu'alem & Feitelson 2001): every
 * queued job, in submit order, gets a reservation at the earliest time it
 * fits in the availability profile without delaying any earlier
 * reservation; a job whose reservation is now starts.
 *
 * The profile is an array-backed timeline (as Slurm's backfill keeps one):
 * segments [t_k, t_k+1) each holding a full per-node free state. It is
 * built every pass from the free state now and the running jobs' walltime
 * estimates; a reservation splits the segment where it ends and takes its
 * placement from every segment it spans. A job fits from segment k when
 * one placement fits the per-node minimum of every segment it spans.
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

struct seg {
	simtime t;
	int64_t cores, gpus;      /* aggregate free */
	int32_t slot;             /* index of its free state in `states` */
};

struct cons {
	int32_t max_test;
	simtime window_us;
	int32_t nnodes;
	struct alloc_part *parts;
	struct nodefree *states;  /* cap_segs × nnodes */
	struct nodefree *min;     /* nnodes: the intersection being tested */
	struct seg *segs;         /* in time order */
	int32_t nsegs, cap_segs;
	int32_t *ids;
	bool count;               /* this pass keeps counts only (see above) */
	struct placer pl;
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
	p->states = calloc((size_t)p->cap_segs * n, sizeof *p->states);
	p->segs = calloc((size_t)p->cap_segs, sizeof *p->segs);
	p->ids = calloc((size_t)env->njobs + 1, sizeof *p->ids);
	if (!p->parts || !p->min || !p->states || !p->segs || !p->ids) {
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
	free(p->states);
	free(p->segs);
	free(p->ids);
	free(p);
}

static struct nodefree *st(struct cons *p, const struct seg *s)
{
	return &p->states[(size_t)s->slot * (size_t)(p->nnodes + 1)];
}

/* Inserts a segment at time t after position `after`, as a copy of segment
 * `after`'s state. Returns its position, or -1 when memory runs out. */
static int insert_seg(struct cons *p, int after, simtime t)
{
	if (p->nsegs == p->cap_segs) {
		int32_t cap = p->cap_segs * 2;
		size_t n = (size_t)p->nnodes + 1;
		struct nodefree *ns = realloc(p->states, (size_t)cap * n * sizeof *ns);
		if (!ns)
			return -1;
		p->states = ns;
		struct seg *sg = realloc(p->segs, (size_t)cap * sizeof *sg);
		if (!sg)
			return -1;
		p->segs = sg;
		p->cap_segs = cap;
	}
	int pos = after + 1;
	memmove(&p->segs[pos + 1], &p->segs[pos], (size_t)(p->nsegs - pos) * sizeof *p->segs);
	p->segs[pos] = p->segs[after];
	p->segs[pos].t = t;
	p->segs[pos].slot = p->nsegs;   /* slots are never freed within a pass */
	p->nsegs++;
	if (!p->count)
		memcpy(st(p, &p->segs[pos]), st(p, &p->segs[after]), (size_t)p->nnodes * sizeof(struct nodefree));
	return pos;
}

/* Whole cards of a part (a share or MIG instance holds none). */
static int whole_gpus(const struct alloc_part *p)
{
	return p->milli > 0 || p->mig_profile >= 0 ? 0 : hl_popcount64(p->gpus);
}

static void seg_take(struct cons *p, struct seg *s, const struct alloc_part *parts, int n)
{
	if (!p->count)
		nodefree_take(st(p, s), parts, n);
	for (int i = 0; i < n; i++) {
		s->cores -= parts[i].cores;
		s->gpus -= whole_gpus(&parts[i]);
	}
}

static void seg_give(struct cons *p, struct seg *s, const struct alloc_part *parts, int n)
{
	if (!p->count)
		nodefree_give(st(p, s), parts, n);
	for (int i = 0; i < n; i++) {
		s->cores += parts[i].cores;
		s->gpus += whole_gpus(&parts[i]);
	}
}

static int build_profile(struct cons *p, const struct view *v)
{
	const struct cluster *cl = v->cl;
	p->nsegs = 1;
	p->segs[0] = (struct seg){ .t = v->now, .cores = cl->free_cores, .gpus = cl->free_gpus, .slot = 0 };
	if (!p->count)
		memcpy(st(p, &p->segs[0]), cl->free, (size_t)cl->nnodes * sizeof *cl->free);
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
		seg_give(p, &p->segs[last], &v->parts[r->parts], r->nparts);
	}
	return 0;
}

/* Earliest segment from which `j` fits for its whole walltime; fills
 * p->parts and returns the part count, with the segment in *at. */
static int earliest(struct cons *p, const struct view *v, const struct job *j, simtime limit, int *at)
{
	const struct cluster *cl = v->cl;
	simtime wall = j->walltime_us;
	for (int k = 0; k < p->nsegs && p->segs[k].t <= limit; k++) {
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
			return placer_place(&p->pl, cl, cl->free, j, p->parts);
		}
		memcpy(p->min, st(p, &p->segs[k]), (size_t)cl->nnodes * sizeof *p->min);
		for (int s = k + 1; s <= last; s++) {
			const struct nodefree *f = st(p, &p->segs[s]);
			for (int i = 0; i < cl->nnodes; i++) {
				struct nodefree *m = &p->min[i];
				if (f[i].cores < m->cores) m->cores = f[i].cores;
				if (f[i].mem_mib < m->mem_mib) m->mem_mib = f[i].mem_mib;
				m->gpu_free &= f[i].gpu_free;
				m->gpus = hl_popcount64(m->gpu_free);
				int32_t dsum = 0;
				for (int d = 0; d < HL_NUMA_MAX; d++) {
					if (f[i].numa_free[d] < m->numa_free[d])
						m->numa_free[d] = f[i].numa_free[d];
					dsum += m->numa_free[d];
				}
				if (dsum < m->cores)
					m->cores = dsum;
			}
		}
		int n = k == 0 ? placer_place(&p->pl, cl, p->min, j, p->parts)
		               : place_first_fit(cl, p->min, &j->req, p->parts);
		if (n) {
			*at = k;
			return n;
		}
	}
	return 0;
}

/* One pass in the mode p->count says. 1: a job that is not fungible was met
 * in counting mode, so the pass must start over at the node level; 0 done;
 * -1 the policy must stop (an invalid decision or no memory). */
static int run_pass(struct cons *p, const struct view *v, struct decide *out)
{
	if (build_profile(p, v))
		return -1;   /* out of memory: no backfill this pass; jobs wait */
	int32_t tested = 0;
	simtime limit = v->now + p->window_us;
	for (int32_t i = 0; i < v->npending && tested < p->max_test; i++) {
		const struct job *j = &v->jobs[v->pending[i]];
		if (j->state != JOB_PENDING)
			continue;
		if (p->count && !fungible(&j->req))
			return 1;
		int k;
		int n = earliest(p, v, j, limit, &k);
		if (n == 0 || k > 0)
			tested++;   /* jobs that start now are not backfill tests */
		if (!n)
			continue;
		simtime end = j->walltime_us == SIMTIME_INF ? SIMTIME_INF : p->segs[k].t + j->walltime_us;
		int last = k;
		while (last + 1 < p->nsegs && p->segs[last + 1].t < end)
			last++;
		if (end != SIMTIME_INF && (last + 1 == p->nsegs || p->segs[last + 1].t != end) &&
		    insert_seg(p, last, end) < 0)
			return -1;
		for (int s = k; s <= last; s++)
			seg_take(p, &p->segs[s], p->parts, n);
		if (k == 0) {
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

static void cons_schedule(void *state, const struct view *v, struct decide *out)
{
	struct cons *p = state;
	placer_sync(&p->pl, v);
	p->count = true;
	if (run_pass(p, v, out) == 1) {
		p->count = false;
		run_pass(p, v, out);
	}
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
