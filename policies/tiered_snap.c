/* tiered_snap — the tiered policy's snapshot hooks (policy_ops.save /
 * load): what it keeps between passes. Per job: the billing weight of the
 * model it last ran on and its open preemption plan; the plans and their
 * victims; the nodes they claim and the cards hidden or holding inference
 * jobs; the cached reservation (its shadow time depends on when it was
 * computed, so it is saved, not recomputed); the quota holds and the
 * quota log with every tenant's and project's sums; the pass counter the
 * sums are stamped with; the placer and the priorities. What a pass
 * rebuilds (candidate lists, scratch states, the dev-tier tallies, the
 * memo of failed requests) is not saved. */
#include "policies/tiered_int.h"

#include <stdlib.h>

#define PUT(w, x) snap_put((w), &(x), sizeof(x))
#define GET(r, x) snap_get((r), &(x), sizeof(x))

int tiered_snap_save(void *state, const struct view *v, struct snapw *w)
{
	const struct tiered *t = state;
	size_t nn = (size_t)t->nnodes;
	size_t nj = (size_t)(v->njobs < t->njobs + 1 ? v->njobs : t->njobs + 1);   /* the rest as init left them */
	snap_put_tag(w, "tiered");
	snap_put_n(w, t->nnodes);
	snap_put_n(w, t->njobs);
	snap_put_n(w, (int64_t)nj);
	snap_put(w, t->wt, nj * sizeof *t->wt);
	snap_put(w, t->plan_of, nj * sizeof *t->plan_of);
	snap_put_n(w, t->nplans);
	snap_put_n(w, t->npv);
	snap_put(w, t->plans, (size_t)t->nplans * sizeof *t->plans);
	snap_put(w, t->pv, (size_t)t->npv * sizeof *t->pv);
	snap_put(w, t->owner, nn * sizeof *t->owner);
	snap_put(w, t->hid, nn * sizeof *t->hid);
	snap_put(w, t->infmask, nn * sizeof *t->infmask);
	PUT(w, t->masked);
	PUT(w, t->owned_any);
	PUT(w, t->owned_last);
	PUT(w, t->cached);
	PUT(w, t->cached_head);
	PUT(w, t->cached_np);
	PUT(w, t->cached_key);
	PUT(w, t->cached_shadow);
	snap_put(w, t->head, (size_t)(t->cached_np > 0 ? t->cached_np : 0) * sizeof *t->head);
	PUT(w, t->pass);
	snap_put_n(w, t->nheld);
	snap_put(w, t->held, (size_t)t->nheld * sizeof *t->held);
	snap_put_n(w, t->quotas ? t->nqe : 0);
	for (int32_t e = 0; t->quotas && e < t->nqe; e++) {
		struct qent q = t->qe[e];
		q.q = NULL;
		PUT(w, q);
	}
	snap_put_n(w, t->quotas ? t->nlog : 0);
	if (t->quotas)
		snap_put(w, t->log, (size_t)t->nlog * sizeof *t->log);
	placer_save(&t->pl, w);
	prio_save(t->pr, v, w);
	return 0;
}

int tiered_snap_load(void *state, const struct view *v, struct snapr *r)
{
	struct tiered *t = state;
	size_t nn = (size_t)t->nnodes, nj = (size_t)t->njobs + 1;
	if (snap_get_tag(r, "tiered"))
		return -1;
	int64_t n1 = snap_get_n(r, INT32_MAX, "the nodes"), n2 = snap_get_n(r, INT32_MAX, "the jobs");
	if (r->bad)
		return -1;
	if (n1 != t->nnodes || n2 != t->njobs)
		return snap_bad(r, "sized for %lld nodes and %lld jobs, this run for %d and %d", (long long)n1,
		                (long long)n2, t->nnodes, t->njobs);
	int64_t njs = snap_get_n(r, t->njobs + 1, "the jobs saved");
	if (njs < 0)
		return -1;
	for (size_t i = 0; i < nj; i++) {
		t->wt[i] = 1.0;
		t->plan_of[i] = -1;
	}
	snap_get(r, t->wt, (size_t)njs * sizeof *t->wt);
	snap_get(r, t->plan_of, (size_t)njs * sizeof *t->plan_of);
	int64_t np = snap_get_n(r, t->cap_plans, "the preemption plans");
	int64_t npv = snap_get_n(r, t->njobs + 1, "the plans' victims");
	if (np < 0 || npv < 0)
		return -1;
	t->nplans = (int32_t)np;
	t->npv = (int32_t)npv;
	snap_get(r, t->plans, (size_t)np * sizeof *t->plans);
	snap_get(r, t->pv, (size_t)npv * sizeof *t->pv);
	snap_get(r, t->owner, nn * sizeof *t->owner);
	snap_get(r, t->hid, nn * sizeof *t->hid);
	snap_get(r, t->infmask, nn * sizeof *t->infmask);
	GET(r, t->masked);
	GET(r, t->owned_any);
	GET(r, t->owned_last);
	GET(r, t->cached);
	GET(r, t->cached_head);
	GET(r, t->cached_np);
	GET(r, t->cached_key);
	GET(r, t->cached_shadow);
	if (t->cached_np < 0 || t->cached_np > t->nnodes)
		return snap_bad(r, "a reservation of %d parts", t->cached_np);
	snap_get(r, t->head, (size_t)t->cached_np * sizeof *t->head);
	GET(r, t->pass);
	int64_t nh = snap_get_n(r, t->njobs + 1, "the quota holds");
	if (nh < 0)
		return -1;
	t->nheld = (int32_t)nh;
	snap_get(r, t->held, (size_t)nh * sizeof *t->held);
	int64_t nqe = snap_get_n(r, t->quotas ? t->nqe : 0, "the quota sums");
	if (nqe < 0)
		return -1;
	if (nqe != (t->quotas ? t->nqe : 0))
		return snap_bad(r, "%lld quota sums, this run has %d", (long long)nqe, t->quotas ? t->nqe : 0);
	for (int32_t e = 0; e < nqe; e++) {
		const struct quota *q = t->qe[e].q;
		GET(r, t->qe[e]);
		t->qe[e].q = q;
	}
	int64_t nlog = snap_get_n(r, t->quotas ? t->njobs + 1 : 0, "the quota log");
	if (nlog < 0)
		return -1;
	if (t->quotas) {
		t->nlog = (int32_t)nlog;
		snap_get(r, t->log, (size_t)nlog * sizeof *t->log);
	}
	if (r->bad || placer_load(&t->pl, r))
		return -1;
	return prio_load(t->pr, v, r);
}
