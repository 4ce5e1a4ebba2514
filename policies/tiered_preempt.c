/* tiered_preempt — the tiered policy's preemption (docs/policies.md
 * "tiered", preemption): an inference job that does not fit signals the
 * fewest running offline or dev jobs whose resources let it fit (by the
 * victim order of classes, then priority, then least work lost since the
 * last checkpoint; never one younger than preempt_exempt_s; a gang whole or
 * not at all) and opens a plan. While its victims stop, the plan claims the
 * nodes the job will start on (owner[]), so that nothing else takes what
 * they free; a plan whose victims have all stopped gets one last try. Called
 * from policies/tiered.c; the state is struct tiered
 * (policies/tiered_int.h). */
#include <stdio.h>
#include <stdlib.h>

#include "policies/tiered_int.h"

/* Gives parts back to scratch f, except on nodes claimed by another plan. */
static void give_masked(const struct tiered *t, struct nodefree *f, const struct alloc_part *p, int n,
                        int32_t keep)
{
	nodefree_give(f, p, n);
	for (int k = 0; k < n; k++)
		if (t->owner[p[k].node] >= 0 && t->owner[p[k].node] != keep)
			f[p[k].node] = nf_zero;
}

/* Recomputes the open plans: drops those whose job started or left the
 * queue, marks done those whose victims all stopped, and lets each claim
 * the nodes its job would start on once its victims are gone. */
void tiered_plans_refresh(struct tiered *t, const struct view *v)
{
	const struct cluster *cl = v->cl;
	int32_t w = 0, pw = 0;
	for (int32_t k = 0; k < t->nplans; k++) {
		struct plan pl = t->plans[k];
		if (pl.job < 0)
			continue;
		if (v->jobs[pl.job].state != JOB_PENDING) {
			t->plan_of[pl.job] = -1;
			continue;
		}
		bool out = false;
		for (int32_t i = 0; i < pl.nv; i++) {
			if (t->pv[pl.v0 + i] < 0)
				continue;   /* it ended and left the table (tiered_plans_renumber) */
			const struct job *vj = &v->jobs[t->pv[pl.v0 + i]];
			out |= (vj->state == JOB_RUNNING || vj->state == JOB_CHECKPOINTING) && vj->signalled_us == pl.at;
		}
		memmove(&t->pv[pw], &t->pv[pl.v0], (size_t)pl.nv * sizeof *t->pv);
		pl.v0 = pw;
		pw += pl.nv;
		pl.done = !out;
		t->plan_of[pl.job] = w;
		t->plans[w++] = pl;
	}
	t->nplans = w;
	t->npv = pw;
	if (t->owned_last || t->nplans > 0)
		for (int32_t i = 0; i < cl->nnodes; i++)
			t->owner[i] = -1;
	t->owned_any = false;
	for (int32_t k = 0; k < t->nplans; k++) {
		const struct plan *pl = &t->plans[k];
		t->owned_any = true;   /* masked_copy honours the claims made so far */
		masked_copy(t, cl, t->scr, -1);
		for (int32_t i = 0; i < pl->nv; i++) {
			if (t->pv[pl->v0 + i] < 0)
				continue;
			const struct job *vj = &v->jobs[t->pv[pl->v0 + i]];
			if (vj->nparts > 0 && vj->signalled_us == pl->at)
				give_masked(t, t->scr, &v->parts[vj->parts], vj->nparts, -1);
		}
		int n = placer_place(&t->pl, cl, t->scr, &v->jobs[pl->job], t->parts);
		for (int i = 0; i < n; i++)
			t->owner[t->parts[i].node] = k;
	}
	t->owned_any = false;
	for (int32_t i = 0; i < cl->nnodes && t->nplans > 0 && !t->owned_any; i++)
		t->owned_any = t->owner[i] >= 0;
	t->owned_last = t->owned_any;
	if (t->owned_any)
		for (int32_t i = 0; i < cl->nnodes; i++)
			t->avail[i] = t->owner[i] >= 0 ? nf_zero : cl->free[i];
}

/* Drops plan k (its job started, or it gives up): its claims go back. */
void tiered_plan_drop(struct tiered *t, const struct cluster *cl, int32_t k)
{
	t->plan_of[t->plans[k].job] = -1;
	t->plans[k].job = -1;
	for (int32_t i = 0; i < cl->nnodes && t->owned_any; i++)
		if (t->owner[i] == k) {
			t->owner[i] = -1;
			node_states(t, cl, i);
		}
}

static int vcand_cmp(const void *a, const void *b)
{
	const struct vcand *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	if (x->lost != y->lost)
		return x->lost < y->lost ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Does j fit scr with the victims chosen[0 .. nv) given back, skipping
 * chosen[skip]? Fills t->parts. */
static int fits_without(struct tiered *t, const struct view *v, const struct job *j, int32_t nv, int32_t skip)
{
	masked_copy(t, v->cl, t->scr, -1);
	for (int32_t k = 0; k < nv; k++) {
		if (k == skip)
			continue;
		const struct job *r = &v->jobs[t->cand[t->chosen[k]].id];
		give_masked(t, t->scr, &v->parts[r->parts], r->nparts, -1);
	}
	return placer_place(&t->pl, v->cl, t->scr, j, t->parts);
}

/* No victim could be taken now: if some would-be victim is only protected
 * by its exemption, ask for a pass when the first exemption runs out (else
 * nothing may happen until the next arrival or end). */
int tiered_wake_at_exemption(struct tiered *t, const struct view *v, struct decide *out)
{
	simtime at = SIMTIME_INF;
	for (int32_t k = 0; k < v->nrunning; k++) {
		const struct job *r = &v->jobs[v->running[k]];
		if (r->state == JOB_RUNNING && r->signalled_us < 0 && t->vrank[r->cls] >= 0 &&
		    v->now - r->start_us < t->exempt_us && r->start_us + t->exempt_us < at)
			at = r->start_us + t->exempt_us;
	}
	return at == SIMTIME_INF ? 0 : decide_wake(out, at);
}

/* Inference job j does not fit: signals the fewest victims whose resources
 * let it fit, and opens a plan for it. 0 (also when none would do), -1 on
 * a rejected decision. */
int tiered_preempt_for(struct tiered *t, const struct view *v, struct decide *out, const struct job *j)
{
	const struct cluster *cl = v->cl;
	t->nopre = "no room for another preemption plan";
	if (t->nplans >= t->cap_plans)
		return 0;
	for (int32_t i = 0; i < cl->nnodes; i++)
		t->suit[i] = t->owner[i] < 0 && cluster_node_suits(cl, i, &j->req, t->pl.how);
	int32_t nc = 0;
	bool exempt = false;
	for (int32_t k = 0; k < v->nrunning; k++) {
		const struct job *r = &v->jobs[v->running[k]];
		if (r->state != JOB_RUNNING || r->signalled_us >= 0 || t->vrank[r->cls] < 0)
			continue;
		if (v->now - r->start_us < t->exempt_us) {
			exempt = true;
			continue;
		}
		const struct alloc_part *p = &v->parts[r->parts];
		bool useful = false, claimed = false;
		for (int i = 0; i < r->nparts; i++) {
			useful |= t->suit[p[i].node] != 0;
			claimed |= t->owner[p[i].node] >= 0;
		}
		if (useful && !claimed)
			t->cand[nc++] = (struct vcand){ r->id, t->vrank[r->cls], prio_priority(t->pr, v, r),
			                                 lost_us(r, v->now) };
	}
	t->nopre = exempt ? "stopping every job it may preempt (those past preempt_exempt_s) would not make room"
	                  : "stopping every job it may preempt would not make room";
	if (nc == 0) {
		t->nopre = exempt ? "the jobs it may preempt started less than preempt_exempt_s ago"
		                  : "no running job it may preempt holds a node where it could run";
		return 0;
	}
	qsort(t->cand, (size_t)nc, sizeof *t->cand, vcand_cmp);
	for (int32_t k = 0; k < nc; k++)
		t->chosen[k] = k;
	if (!fits_without(t, v, j, nc, -1))
		return 0;   /* not even with every candidate gone */
	/* The shortest prefix of the order that makes room... */
	masked_copy(t, cl, t->scr, -1);
	int64_t cores = 0, gpus = 0;   /* free on the nodes where j suits */
	for (int32_t i = 0; i < cl->nnodes; i++)
		if (t->suit[i]) {
			cores += t->scr[i].cores;
			gpus += t->scr[i].gpus;
		}
	int32_t nv = 0;
	bool fit = false;
	while (nv < nc && !fit) {
		const struct job *r = &v->jobs[t->cand[nv].id];
		const struct alloc_part *p = &v->parts[r->parts];
		for (int i = 0; i < r->nparts; i++)
			if (t->suit[p[i].node]) {
				cores -= t->scr[p[i].node].cores;
				gpus -= t->scr[p[i].node].gpus;
			}
		give_masked(t, t->scr, p, r->nparts, -1);
		for (int i = 0; i < r->nparts; i++)
			if (t->suit[p[i].node]) {
				cores += t->scr[p[i].node].cores;
				gpus += t->scr[p[i].node].gpus;
			}
		nv++;
		fit = place_aggregate_ok(cl, cores, gpus, &j->req) && placer_place(&t->pl, cl, t->scr, j, t->parts) > 0;
	}
	if (!fit)
		return 0;
	/* ...less the victims it does without, the most protected first. */
	for (int32_t i = nv - 2; i >= 0; i--)
		if (fits_without(t, v, j, nv, i)) {
			memmove(&t->chosen[i], &t->chosen[i + 1], (size_t)(nv - i - 1) * sizeof *t->chosen);
			nv--;
		}
	int n = fits_without(t, v, j, nv, -1);
	if (n == 0 || t->npv + nv > t->njobs + 1)
		return 0;
	int32_t k = t->nplans++;
	t->plans[k] = (struct plan){ .job = j->id, .v0 = t->npv, .nv = nv, .at = v->now };
	t->plan_of[j->id] = k;
	if (!t->owned_any) {
		t->owned_any = t->owned_last = true;
		memcpy(t->avail, cl->free, (size_t)cl->nnodes * sizeof *t->avail);
	}
	for (int i = 0; i < n; i++) {
		t->owner[t->parts[i].node] = k;
		node_states(t, cl, t->parts[i].node);
	}
	char why[64];
	snprintf(why, sizeof why, "for inference job %lld", (long long)j->num);
	for (int32_t i = 0; i < nv; i++) {
		int32_t id = t->cand[t->chosen[i]].id;
		t->pv[t->npv++] = id;
		if (decide_preempt(out, id, why))
			return -1;
	}
	return 0;
}

/* Finished jobs leave the engine's table (sim_compact): a plan whose job
 * leaves is dropped (the next refresh would drop it: its job is not
 * pending), a victim that leaves becomes -1 (an ended victim holds
 * nothing, so the refresh passes over it as it would have). */
void tiered_plans_renumber(struct tiered *t, const int32_t *map, int32_t nold)
{
	for (int32_t k = 0; k < t->nplans; k++) {
		struct plan *pl = &t->plans[k];
		if (pl->job >= 0)
			pl->job = pl->job < nold ? map[pl->job] : -1;
		for (int32_t i = 0; i < pl->nv; i++) {
			int32_t *id = &t->pv[pl->v0 + i];
			*id = *id >= 0 && *id < nold ? map[*id] : -1;
		}
	}
}
