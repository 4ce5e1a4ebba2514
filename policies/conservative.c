/* conservative — conservative backfilling (Mu'alem & Feitelson 2001): every
 * queued job, in submit order, gets a reservation at the earliest time it
 * fits in the availability profile without delaying any earlier
 * reservation; a job whose reservation is now starts.
 *
 * The profile is an array-backed timeline (as Slurm's backfill keeps one):
 * segments [t_k, t_k+1) with the cluster's aggregate free cores and GPUs,
 * and beside it, at the node level, one timeline per node — its free state
 * and the times it changes, which are only where a running job on it ends
 * or a reservation on it starts or ends. It is built every pass (but see
 * "Passes that change nothing" below) from the free state now and the
 * running jobs' walltime estimates; a reservation splits the segment where
 * it ends, and its nodes' timelines where it starts and ends, and takes
 * its placement from the aggregates of every segment it spans and from its
 * nodes' states within its window. A job
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
 * of whole idle cards: shares and MIG instances do not move it.
 *
 * Passes that change nothing. Many passes follow a submission alone (a
 * third of those of bench/cons's gang workload find the last pass's
 * profile as it was). When a pass's view shows what the last node-level pass
 * saw — the same alloc_epoch (no job started or ended since), free state
 * and node services, no power model, and that pass's pending entries at
 * the front of the queue, each still pending or not as it was — and that
 * pass started nothing and no placement failed at its now, a fresh pass
 * would make the same reservations for those jobs: its profile is the last
 * one but for its front moving from the last now to this one. Every later
 * start is tried on the same segments and fails or fits as it did; the try
 * now fails as it did then, on the same state with a window reaching
 * further (the count of nodes that could and the aggregate checks can only
 * fail more; a failed placement rules reuse out, as a placer need not be
 * monotone). So the pass moves the kept profile to now and goes on from
 * where the last one stopped, with the jobs submitted since — provided
 * nothing in the profile starts between the two nows (a job past its
 * estimate moves with now) and the window, reaching further, takes in no
 * segment start the last pass's did not (a job it left without a
 * reservation might get one). Counting-mode passes are not kept.
 *
 * Files: this one holds the policy (its passes and the earliest start of a
 * job); conservative_profile.c the profile (segments, node timelines and
 * their groups, a window's minimum, the count of nodes that could);
 * conservative_int.h what they share. */
#include "policies/conservative_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P_MAX_JOB_TEST, P_WINDOW_MIN };
enum { N_NONE = 1, N_RESV };   /* nhow: no start within the window; a reservation */

static const struct policy_param cons_params[] = {
	[P_MAX_JOB_TEST] = { "bf_max_job_test", 100, 1, 1e9,
	                     "queued jobs given a reservation per pass (Slurm bf_max_job_test)" },
	[P_WINDOW_MIN] = { "bf_window", 1440, 1, 1e9,
	                   "minutes ahead that reservations may start (Slurm bf_window)" },
	{ NULL, 0, 0, 0, NULL },
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
		cons_gang_could(p, cl, &j->req, wall);
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
		cons_window_min(p, p->segs[k].t, end, last > k, !of);
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
		if (p->nhow)
			p->nhow[i] = n ? N_RESV : N_NONE;
		if (!n) {
			if (memo && p->nnf < NOFIT_MAX && !nofit_known(p->nf, p->nnf, j))
				p->nf[p->nnf++] = (struct nofit){ j->req.nodes, j->req.cores, j->req.mem_mib,
				                                  j->walltime_us };
			continue;
		}
		simtime end = j->walltime_us == SIMTIME_INF ? SIMTIME_INF : p->segs[k].t + j->walltime_us;
		if (p->nhow) {
			p->nat[i] = p->segs[k].t;
			p->nend[i] = end;
		}
		int last = k;
		while (last + 1 < p->nsegs && p->segs[last + 1].t < end)
			last++;
		if (end != SIMTIME_INF && (last + 1 == p->nsegs || p->segs[last + 1].t != end) &&
		    cons_seg_insert(p, last, end) < 0)
			return -1;
		for (int s = k; s <= last; s++)
			cons_seg_take(&p->segs[s], p->parts, n);
		if (!p->count && cons_apply(p, v->cl, p->parts, n, k, end == SIMTIME_INF ? -1 : last + 1, false))
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
	return cons_profile_build(p, v);
}

/* Why each job left pending waits (decide_note), from the pass just made:
 * its reservation and the earlier ones in its way, or no start within the
 * window, or not tried (bf_max_job_test). */
static void cons_notes(const struct cons *p, const struct view *v, struct decide *out)
{
	char why[400], behind[200];
	for (int32_t i = 0; i < v->npending; i++) {
		const struct job *j = &v->jobs[v->pending[i]];
		if (j->state != JOB_PENDING)
			continue;
		if (i >= p->next || !p->nhow[i]) {
			decide_note(out, j->id, "not tried this pass: bf_max_job_test=%d jobs were tested before it", p->max_test);
			continue;
		}
		/* Earlier reservations whose windows reach into its own (all of
		 * them for a job with none). */
		simtime until = p->nhow[i] == N_RESV ? p->nend[i] : SIMTIME_INF;
		size_t at = 0;
		int named = 0, more = 0;
		behind[0] = 0;
		for (int32_t e = 0; e < i; e++) {
			const struct job *x = &v->jobs[v->pending[e]];
			if (x->state != JOB_PENDING || p->nhow[e] != N_RESV || p->nat[e] >= until)
				continue;
			if (named == 3) {
				more++;
				continue;
			}
			int w = snprintf(behind + at, sizeof behind - at, "%s%lld", named ? ", " : "", (long long)x->num);
			if (w > 0 && at + (size_t)w < sizeof behind)
				at += (size_t)w;
			named++;
		}
		if (more && at < sizeof behind)
			snprintf(behind + at, sizeof behind - at, " and %d more", more);
		if (cluster_why(v->cl, v->cl->free, &j->req, why, sizeof why))
			snprintf(why, sizeof why, "%s", named ? "fits now but would delay an earlier reservation"
			                                      : "no placement the strategy accepts now");
		if (p->nhow[i] == N_NONE)
			decide_note(out, j->id, "%s; no reservation: no start within bf_window (%.0f min) that delays no "
			            "earlier reservation", why, simtime_to_s(p->window_us) / 60);
		else if (named)
			decide_note(out, j->id, "%s; reserved from t=%.0f s, behind the reservation%s of job%s %s", why,
			            simtime_to_s(p->nat[i]), named + more > 1 ? "s" : "", named + more > 1 ? "s" : "", behind);
		else
			decide_note(out, j->id, "%s; reserved from t=%.0f s, when running jobs end (by their estimates)", why,
			            simtime_to_s(p->nat[i]));
	}
}

static void cons_pass(struct cons *p, const struct view *v, struct decide *out);

static void cons_schedule(void *state, const struct view *v, struct decide *out)
{
	struct cons *p = state;
	if (!decide_noting(out)) {
		cons_pass(p, v, out);
		return;
	}
	/* With notes, a fresh pass (it decides as the kept one would: see
	 * "Passes that change nothing") that records what each job got. */
	size_t n = (size_t)v->npending + 1;
	p->kept = false;
	p->nhow = calloc(n, 1);
	p->nat = calloc(n, sizeof *p->nat);
	p->nend = calloc(n, sizeof *p->nend);
	if (p->nhow && p->nat && p->nend) {
		cons_pass(p, v, out);
		cons_notes(p, v, out);
	} else {
		free(p->nhow);
		p->nhow = NULL;
		cons_pass(p, v, out);
	}
	free(p->nhow);
	free(p->nat);
	free(p->nend);
	p->nhow = NULL;
	p->nat = p->nend = NULL;
}

static void cons_pass(struct cons *p, const struct view *v, struct decide *out)
{
	placer_sync(&p->pl, v);
	/* The counting pass stops at the first pending job that is not
	 * fungible: when that is the first, it is not begun (and only then is
	 * the pass one at the node level from the start, which may go on from
	 * the last). */
	int32_t i = 0;
	while (i < v->npending && v->jobs[v->pending[i]].state != JOB_PENDING)
		i++;
	bool count = i == v->npending || fungible(&v->jobs[v->pending[i]].req);
	if (!count && kept_holds(p, v)) {
		/* The profile moves to now; the pass goes on with the jobs
		 * submitted since. */
		p->segs[0].t = v->now;
		for (int32_t n = 0; n < p->nnodes; n++)
			p->tl[n].e[0].t = v->now;
		if (run_pass(p, v, out) == 0)
			keep(p, v);
		else
			p->kept = false;
		return;
	}
	p->kept = false;
	p->count = count;
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

/* What the last pass kept names pending jobs by id: a renumbered run
 * builds its profile afresh at the next pass, which decides as the kept
 * one would (test_compact). */
static int cons_renumber(void *state, const struct view *v, const int32_t *map, int32_t nold, int32_t nnew)
{
	(void)v, (void)map, (void)nold, (void)nnew;
	struct cons *p = state;
	p->kept = false;
	return 0;
}

/* Snapshots: the profile the last pass kept is dropped, as at a
 * renumbering (the next pass builds it afresh and decides as the kept one
 * would); the placer's state is saved. */
static int cons_save(void *state, const struct view *v, struct snapw *w)
{
	(void)v;
	placer_save(&((struct cons *)state)->pl, w);
	return 0;
}

static int cons_load(void *state, const struct view *v, struct snapr *r)
{
	(void)v;
	struct cons *p = state;
	p->kept = false;
	return placer_load(&p->pl, r);
}

const struct policy_ops policy_conservative = {
	.name = "conservative",
	.summary = "conservative backfilling: every queued job holds a reservation",
	.params = cons_params,
	.init = cons_init,
	.fini = cons_fini,
	.submit = cons_submit,
	.schedule = cons_schedule,
	.renumber = cons_renumber,
	.save = cons_save,
	.load = cons_load,
};
