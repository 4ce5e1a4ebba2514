/* easy — EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001), at the
 * resource level so it works on heterogeneous nodes.
 *
 * Jobs start in submit order while they fit. The first that does not fit
 * (the head) gets a reservation: the earliest time, by the running jobs'
 * walltime estimates, at which a first-fit placement exists (the shadow
 * time), and that placement's resources. A later job may start now if it
 * fits and either ends by the shadow time, or uses only resources that the
 * head's reservation leaves over (the "extra" resources).
 *
 * Per node, with F the free state now, S the free state at the shadow time
 * and R the head's reserved part there, the extra free state is
 *   X = min(F, S − R)   (cores and memory),  X.gpus = F.gpus ∖ R.gpus.
 * A job started on extra resources stays running past the shadow time, so
 * it is also taken from S. Only one reservation exists, so the head cannot
 * be delayed by backfilled jobs (given exact estimates).
 *
 * Counting mode. When the head and a candidate are both fungible — spread
 * requests for cores with no memory or GPU constraint, as every SWF job is —
 * any free core serves either, and the reservation is kept as counts, as
 * the classic algorithm does on a homogeneous machine: the shadow time is
 * the first estimated end at which the free core count S reaches the head's
 * need h, and a candidate that would run past it may take up to
 * min(F, S − h) cores. This is never stricter than the node-level rule and
 * costs O(running jobs) instead of O(nodes) a pass. A pass switches to the
 * node level for good at the first candidate (or head) that is not
 * fungible.
 *
 * Placement. Reservations are first fit (place_first_fit) on the shadow
 * state; every start is placed by the placer (env->placement): on the live
 * free state when the job may use anything free (in order, ending by the
 * shadow time, counting mode), on the extra state X otherwise — X is no
 * larger than the live state per node, card and NUMA domain, so what fits
 * X is valid now:
 *   X.numa[d] = min(F.numa[d], S.numa[d] − R.numa[d]),
 *   X.cores   = min(F.cores, S.cores − R.cores, Σ_d X.numa[d]). */
#include "policies/placement.h"
#include "policies/policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P_MAX_JOB_TEST };

static const struct policy_param easy_params[] = {
	[P_MAX_JOB_TEST] = { "bf_max_job_test", 500, 1, 1e9,
	                     "jobs behind the head tried for backfill per pass (Slurm bf_max_job_test)" },
	{ NULL, 0, 0, 0, NULL },
};

struct easy {
	int32_t max_test;
	int32_t nnodes;
	struct alloc_part *parts, *head;
	struct nodefree *shadow, *extra;
	struct alloc_part *need;    /* per node: the head's reserved part (zero if none) */
	int32_t *ids;
	int64_t extra_cores, extra_gpus;
	/* The reservation last computed, reused while the head and the
	 * allocation epoch are unchanged (passes caused by arrivals only). */
	bool cached;
	int32_t cached_head;
	uint64_t cached_epoch;
	simtime cached_shadow;
	bool ccached;               /* the same for the counting reservation */
	int32_t ccached_head;
	uint64_t ccached_epoch;
	simtime ccached_shadow;
	int64_t ccached_free;
	struct placer pl;
};

static bool fungible(const struct job_req *r)
{
	return r->nodes == 0 && r->gpus == 0 && r->mem_mib == 0;
}

static void easy_fini(void *state);

static int easy_init(void **state, const struct policy_env *env, const struct policy_cfg *cfg,
                     char *err, size_t errlen)
{
	size_t n = (size_t)env->cl->nnodes + 1;
	struct easy *p = calloc(1, sizeof *p);
	if (!p)
		return -1;
	if (placer_init(&p->pl, env->placement, env->label_blind, env->seed, env->cl, env->njobs,
	                err, errlen)) {
		easy_fini(p);
		return -1;
	}
	p->max_test = (int32_t)cfg->v[P_MAX_JOB_TEST];
	p->nnodes = env->cl->nnodes;
	p->parts = calloc(n, sizeof *p->parts);
	p->head = calloc(n, sizeof *p->head);
	p->shadow = calloc(n, sizeof *p->shadow);
	p->extra = calloc(n, sizeof *p->extra);
	p->need = calloc(n, sizeof *p->need);
	p->ids = calloc((size_t)env->njobs + 1, sizeof *p->ids);
	if (!p->parts || !p->head || !p->shadow || !p->extra || !p->need || !p->ids) {
		easy_fini(p);
		return -1;
	}
	*state = p;
	return 0;
}

static void easy_fini(void *state)
{
	struct easy *p = state;
	placer_fini(&p->pl);
	free(p->parts);
	free(p->head);
	free(p->shadow);
	free(p->extra);
	free(p->need);
	free(p->ids);
	free(p);
}

/* Earliest time the head fits by the running jobs' estimates; fills
 * p->shadow with the free state then and p->head with the placement.
 * Returns the part count (0: it never fits, e.g. nodes are down). */
static int find_shadow(struct easy *p, const struct view *v, const struct job *head, simtime *when)
{
	const struct cluster *cl = v->cl;
	memcpy(p->shadow, cl->free, (size_t)cl->nnodes * sizeof *p->shadow);
	int64_t cores = cl->free_cores, gpus = cl->free_gpus;
	int32_t n = v->nrunning;
	memcpy(p->ids, v->running, (size_t)n * sizeof *p->ids);
	sort_by_expected_end(v->jobs, p->ids, n);
	for (int32_t k = 0; k < n; k++) {
		const struct job *r = &v->jobs[p->ids[k]];
		const struct alloc_part *rp = &v->parts[r->parts];
		nodefree_give(p->shadow, rp, r->nparts);
		for (int i = 0; i < r->nparts; i++) {
			cores += rp[i].cores;
			gpus += hl_popcount64(rp[i].gpus);
		}
		simtime end = view_expected_end(r);
		if (k + 1 < n && view_expected_end(&v->jobs[p->ids[k + 1]]) == end)
			continue;   /* release everything that ends at the same time first */
		if (!place_aggregate_ok(cl, cores, gpus, &head->req))
			continue;
		int np = place_first_fit(cl, p->shadow, &head->req, p->head);
		if (np) {
			/* A job past its estimate is assumed to end next. */
			*when = end > v->now ? end : v->now + 1;
			return np;
		}
	}
	return 0;
}

static void extra_node(struct easy *p, const struct cluster *cl, int i)
{
	struct nodefree *x = &p->extra[i];
	p->extra_cores -= x->cores;
	p->extra_gpus -= x->gpus;
	nodefree_extra(&cl->free[i], &p->shadow[i], &p->need[i], x);
	p->extra_cores += x->cores;
	p->extra_gpus += x->gpus;
}

/* Computes the head's reservation and the extra free state around it. */
static void reserve(struct easy *p, const struct view *v, const struct job *head, simtime *shadow)
{
	const struct cluster *cl = v->cl;
	int nh = find_shadow(p, v, head, shadow);
	memset(p->need, 0, (size_t)cl->nnodes * sizeof *p->need);
	for (int k = 0; k < nh; k++)
		p->need[p->head[k].node] = p->head[k];
	/* X = F except on the head's nodes. */
	memcpy(p->extra, cl->free, (size_t)cl->nnodes * sizeof *p->extra);
	p->extra_cores = cl->free_cores;
	p->extra_gpus = cl->free_gpus;
	for (int k = 0; k < nh; k++)
		extra_node(p, cl, p->head[k].node);
}

/* Counting reservation: *shadow and the free core count *sfree then. */
static void reserve_count(struct easy *p, const struct view *v, const struct job *head,
                          simtime *shadow, int64_t *sfree)
{
	int64_t cores = v->cl->free_cores;
	int32_t n = v->nrunning;
	memcpy(p->ids, v->running, (size_t)n * sizeof *p->ids);
	sort_by_expected_end(v->jobs, p->ids, n);
	*shadow = SIMTIME_INF;
	for (int32_t k = 0; k < n; k++) {
		const struct job *r = &v->jobs[p->ids[k]];
		cores += job_req_cores(&r->req);
		simtime end = view_expected_end(r);
		if (k + 1 < n && view_expected_end(&v->jobs[p->ids[k + 1]]) == end)
			continue;
		if (cores >= head->req.cores) {
			*shadow = end > v->now ? end : v->now + 1;
			break;
		}
	}
	*sfree = cores;
}

static void easy_submit(void *state, const struct view *v, int32_t job)
{
	struct easy *p = state;
	placer_submit(&p->pl, &v->jobs[job]);
}

/* Why each job left pending waits (decide_note; only when someone
 * listens): the head, for what no node has free now; the rest, behind its
 * reservation (shadow: its start by the walltime estimates, SIMTIME_INF
 * when not computed this pass). */
static void easy_notes(const struct view *v, struct decide *out, const struct job *head, simtime shadow)
{
	char why[400], when[64] = "";
	if (shadow != SIMTIME_INF)
		snprintf(when, sizeof when, ", reserved from t=%.0f s", simtime_to_s(shadow));
	for (int32_t i = 0; i < v->npending; i++) {
		const struct job *j = &v->jobs[v->pending[i]];
		if (j->state != JOB_PENDING)
			continue;
		int fits = cluster_why(v->cl, v->cl->free, &j->req, why, sizeof why);
		if (j == head)
			decide_note(out, j->id, "first in the queue; %s", fits ? "no placement the strategy accepts now" : why);
		else if (fits)
			decide_note(out, j->id, "would delay the reservation of job %lld (first in the queue%s)",
			            (long long)head->num, when);
		else
			decide_note(out, j->id, "%s; behind the reservation of job %lld", why, (long long)head->num);
	}
}

static void easy_schedule(void *state, const struct view *v, struct decide *out)
{
	struct easy *p = state;
	const struct cluster *cl = v->cl;
	int32_t i = 0;
	const struct job *head = NULL;

	placer_sync(&p->pl, v);

	for (; i < v->npending; i++) {
		const struct job *j = &v->jobs[v->pending[i]];
		if (j->state != JOB_PENDING)
			continue;
		int n = place_aggregate_ok(cl, cl->free_cores, cl->free_gpus, &j->req)
		        ? placer_place(&p->pl, cl, cl->free, j, p->parts) : 0;
		if (!n) {
			head = j;
			break;
		}
		if (decide_start(out, j->id, p->parts, n))
			return;
		placer_started(&p->pl, v, j, p->parts, n);
	}
	if (!head)
		return;
	simtime shadow = SIMTIME_INF;
	if (cl->free_cores == 0 && cl->free_gpus == 0)
		goto notes;

	/* The reservation is computed when the first candidate that could
	 * fit now needs it: on a full machine most passes never do. */
	enum { NONE, COUNT, NODE } mode = NONE;
	int64_t sfree = 0;                     /* counting mode: free cores at the shadow time */
	int32_t smallest_failed = INT32_MAX;   /* fungible requests that missed the extra */
	int32_t tested = 0;
	for (i++; i < v->npending && tested < p->max_test; i++) {
		const struct job *j = &v->jobs[v->pending[i]];
		if (j->state != JOB_PENDING)
			continue;
		tested++;
		if (!place_aggregate_ok(cl, cl->free_cores, cl->free_gpus, &j->req))
			continue;
		bool fung = fungible(&j->req) && fungible(&head->req);
		if (mode == NONE && fung) {
			if (p->ccached && p->ccached_head == head->id && p->ccached_epoch == v->alloc_epoch) {
				shadow = p->ccached_shadow;
				sfree = p->ccached_free;
			} else {
				reserve_count(p, v, head, &shadow, &sfree);
				p->ccached = true;
				p->ccached_head = head->id;
				p->ccached_epoch = v->alloc_epoch;
				p->ccached_shadow = shadow;
				p->ccached_free = sfree;
			}
			mode = COUNT;
		} else if (mode != NODE && !fung) {
			if (p->cached && p->cached_head == head->id && p->cached_epoch == v->alloc_epoch) {
				shadow = p->cached_shadow;
			} else {
				reserve(p, v, head, &shadow);
				p->cached = true;
				p->cached_head = head->id;
				p->cached_epoch = v->alloc_epoch;
				p->cached_shadow = shadow;
			}
			mode = NODE;
		}
		bool before = j->walltime_us != SIMTIME_INF && v->now + j->walltime_us <= shadow;
		bool simple = fungible(&j->req);
		int n;
		if (before) {
			n = placer_place(&p->pl, cl, cl->free, j, p->parts);
		} else if (simple && j->req.cores >= smallest_failed) {
			continue;
		} else if (mode == COUNT) {
			int64_t extra = sfree - head->req.cores;
			if (cl->free_cores < extra)
				extra = cl->free_cores;
			n = j->req.cores <= extra ? placer_place(&p->pl, cl, cl->free, j, p->parts) : 0;
			if (!n)
				smallest_failed = j->req.cores;
		} else {
			n = place_aggregate_ok(cl, p->extra_cores, p->extra_gpus, &j->req)
			    ? placer_place(&p->pl, cl, p->extra, j, p->parts) : 0;
			if (!n && simple)
				smallest_failed = j->req.cores;
		}
		if (!n)
			continue;
		if (decide_start(out, j->id, p->parts, n))
			return;
		placer_started(&p->pl, v, j, p->parts, n);
		if (mode == COUNT) {
			if (!before)
				sfree -= j->req.cores;
		} else {
			if (!before)
				nodefree_take(p->shadow, p->parts, n);
			for (int k = 0; k < n; k++)
				extra_node(p, cl, p->parts[k].node);
		}
		if (cl->free_cores == 0 && cl->free_gpus == 0)
			break;
	}
notes:
	if (decide_noting(out))
		easy_notes(v, out, head, shadow);
}

/* The cached reservations name their head by id. */
static int easy_renumber(void *state, const struct view *v, const int32_t *map, int32_t nold, int32_t nnew)
{
	(void)v, (void)nnew;
	struct easy *p = state;
	p->cached_head = p->cached_head >= 0 && p->cached_head < nold ? map[p->cached_head] : -1;
	p->ccached_head = p->ccached_head >= 0 && p->ccached_head < nold ? map[p->ccached_head] : -1;
	p->cached = p->cached && p->cached_head >= 0;
	p->ccached = p->ccached && p->ccached_head >= 0;
	return 0;
}

/* The cached reservations (their shadow time depends on when they were
 * computed, so they are saved, not recomputed) and the placer. */
static int easy_save(void *state, const struct view *v, struct snapw *w)
{
	(void)v;
	const struct easy *p = state;
	size_t nn = (size_t)p->nnodes;
	snap_put_tag(w, "easy");
	snap_put(w, &p->cached, sizeof p->cached);
	snap_put(w, &p->cached_head, sizeof p->cached_head);
	snap_put(w, &p->cached_epoch, sizeof p->cached_epoch);
	snap_put(w, &p->cached_shadow, sizeof p->cached_shadow);
	snap_put(w, &p->ccached, sizeof p->ccached);
	snap_put(w, &p->ccached_head, sizeof p->ccached_head);
	snap_put(w, &p->ccached_epoch, sizeof p->ccached_epoch);
	snap_put(w, &p->ccached_shadow, sizeof p->ccached_shadow);
	snap_put(w, &p->ccached_free, sizeof p->ccached_free);
	snap_put(w, &p->extra_cores, sizeof p->extra_cores);
	snap_put(w, &p->extra_gpus, sizeof p->extra_gpus);
	snap_put(w, p->shadow, nn * sizeof *p->shadow);
	snap_put(w, p->extra, nn * sizeof *p->extra);
	snap_put(w, p->need, nn * sizeof *p->need);
	placer_save(&p->pl, w);
	return 0;
}

static int easy_load(void *state, const struct view *v, struct snapr *r)
{
	(void)v;
	struct easy *p = state;
	size_t nn = (size_t)p->nnodes;
	if (snap_get_tag(r, "easy"))
		return -1;
	snap_get(r, &p->cached, sizeof p->cached);
	snap_get(r, &p->cached_head, sizeof p->cached_head);
	snap_get(r, &p->cached_epoch, sizeof p->cached_epoch);
	snap_get(r, &p->cached_shadow, sizeof p->cached_shadow);
	snap_get(r, &p->ccached, sizeof p->ccached);
	snap_get(r, &p->ccached_head, sizeof p->ccached_head);
	snap_get(r, &p->ccached_epoch, sizeof p->ccached_epoch);
	snap_get(r, &p->ccached_shadow, sizeof p->ccached_shadow);
	snap_get(r, &p->ccached_free, sizeof p->ccached_free);
	snap_get(r, &p->extra_cores, sizeof p->extra_cores);
	snap_get(r, &p->extra_gpus, sizeof p->extra_gpus);
	snap_get(r, p->shadow, nn * sizeof *p->shadow);
	snap_get(r, p->extra, nn * sizeof *p->extra);
	snap_get(r, p->need, nn * sizeof *p->need);
	return r->bad ? -1 : placer_load(&p->pl, r);
}

const struct policy_ops policy_easy = {
	.name = "easy",
	.summary = "EASY backfilling: the queue head holds a reservation, later jobs fill around it",
	.params = easy_params,
	.init = easy_init,
	.fini = easy_fini,
	.submit = easy_submit,
	.schedule = easy_schedule,
	.renumber = easy_renumber,
	.save = easy_save,
	.load = easy_load,
};
