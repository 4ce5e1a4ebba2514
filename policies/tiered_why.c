/* tiered_why — why a job waits under the tiered policy, in words
 * (view.h decide_note; docs/forecast.md "Why a job waits"). Called from
 * the pass (policies/tiered.c) where it passes a job over, only while
 * someone listens, with what the pass computed: the offline state, the
 * head's reservation, the rank in the priority order, the preemption
 * plans. It decides nothing. */
#include <stdio.h>

#include "policies/tiered_int.h"

int tiered_why_fit(const struct tiered *t, const struct view *v, const struct job *j, bool offline, char *buf,
                   size_t len)
{
	const struct cluster *cl = v->cl;
	if (!offline || !t->masked) {
		if (!cluster_why(cl, cl->free, &j->req, buf, len))
			return 0;
		snprintf(buf, len, "no placement the strategy accepts now");
		return 1;
	}
	/* The offline state O: what it lacks, and whether the live state has it. */
	if (cluster_why(cl, t->F, &j->req, buf, len)) {
		snprintf(buf, len, "no placement the strategy accepts now");
		return 1;
	}
	char req[256], live[400];
	cluster_req_text(cl, &j->req, req, sizeof req);
	if (cluster_why(cl, cl->free, &j->req, live, sizeof live))
		snprintf(buf, len, "%s: the free nodes that fit it are bound to inference, claimed by a preemption, or "
		         "hold the GPUs reserved for inference", req);
	return 0;
}

static const char *tenant_name(const struct tiered *t, const struct job *j, char *buf, size_t len)
{
	if (t->org && j->tenant >= 0 && j->tenant < t->org->nt)
		return t->org->t[j->tenant].name;
	snprintf(buf, len, "%d", j->tenant);
	return buf;
}

void tiered_note_devcap(const struct tiered *t, struct decide *out, const struct job *j, int64_t used)
{
	char nb[16];
	decide_note(out, j->id, "dev: over the dev GPU cap of tenant %s: its dev jobs hold %.2f of its %.2f GPUs, it asks "
	            "%.2f", tenant_name(t, j, nb, sizeof nb), used / (double)HL_MILLI, t->dev_max_milli / (double)HL_MILLI,
	            job_milli(&j->req) / (double)HL_MILLI);
}

static void ahead_text(int32_t n, char *buf, size_t len)
{
	if (n == 0)
		snprintf(buf, len, "first by priority");
	else
		snprintf(buf, len, "%d job%s of higher priority ahead", n, n == 1 ? "" : "s");
}

void tiered_note_inference(struct tiered *t, const struct view *v, struct decide *out, const struct job *j,
                           int32_t plan, bool opened)
{
	if (plan >= 0) {
		const struct plan *pl = &t->plans[plan];
		char ids[160] = "";
		size_t at = 0;
		for (int32_t k = 0; k < pl->nv && k < 4; k++) {
			int32_t id = t->pv[pl->v0 + k];
			if (id < 0)
				continue;
			int w = snprintf(ids + at, sizeof ids - at, "%s%lld", at ? ", " : "", (long long)v->jobs[id].num);
			if (w > 0 && at + (size_t)w < sizeof ids)
				at += (size_t)w;
		}
		decide_note(out, j->id, "inference: %s job%s %s%s to checkpoint and stop for it (preempted at t=%.0f s)",
		            opened ? "preempting" : "waiting for", pl->nv == 1 ? "" : "s", ids, pl->nv > 4 ? ", ..." : "",
		            simtime_to_s(pl->at));
		return;
	}
	char why[400];
	tiered_why_fit(t, v, j, false, why, sizeof why);
	if (!t->preempt)
		decide_note(out, j->id, "inference: %s; it does not preempt (preempt=0)", why);
	else
		decide_note(out, j->id, "inference: %s; no preemption: %s", why, t->nopre ? t->nopre : "none would do");
}

void tiered_note_offline(struct tiered *t, const struct view *v, struct decide *out, const struct job *j, bool head,
                         bool resv)
{
	char why[400], ahead[64], when[64] = "";
	const char *cls = job_class_name(j->cls);
	bool dev = j->cls == JOB_DEV;
	if (dev)
		snprintf(ahead, sizeof ahead, "dev, idle fill after the offline queue");
	else
		ahead_text(t->nahead, ahead, sizeof ahead);
	int fits = tiered_why_fit(t, v, j, true, why, sizeof why);
	bool resv_on = t->have_head && t->shadow_t != SIMTIME_INF;
	if (resv_on)
		snprintf(when, sizeof when, "reserved from t=%.0f s", simtime_to_s(t->shadow_t));
	long long h = t->have_head && t->cached_head >= 0 ? (long long)v->jobs[t->cached_head].num : -1;
	if (head && resv)
		decide_note(out, j->id, "%s, %s; %s; %s", cls, ahead, why, when);
	else if (head)
		decide_note(out, j->id, "%s, %s; %s; no reservation (no start by the running jobs' estimates)", cls, ahead,
		            why);
	else if (!resv_on)
		decide_note(out, j->id, "%s, %s; %s", cls, ahead, why);
	else if (fits)
		decide_note(out, j->id, "%s, %s; would delay the reservation of job %lld (%s)", cls, ahead, h, when);
	else
		decide_note(out, j->id, "%s, %s; %s; behind the reservation of job %lld", cls, ahead, why, h);
}

void tiered_note_untried(struct tiered *t, const struct view *v, struct decide *out, int32_t first, int32_t dev_from)
{
	bool offline_left = first >= 0;
	for (int32_t id = first; id >= 0; id = prio_order_next(t->pr)) {
		const struct job *j = &v->jobs[id];
		if (j->state != JOB_PENDING)
			continue;
		char ahead[64];
		ahead_text(t->nahead++, ahead, sizeof ahead);
		decide_note(out, id, "%s, %s; not tried this pass (bf_max_job_test=%d reached)", job_class_name(j->cls),
		            ahead, t->max_test);
	}
	for (int32_t k = dev_from; k < t->ndev; k++) {
		const struct job *j = &v->jobs[t->dev[k]];
		if (j->state != JOB_PENDING)
			continue;
		if (offline_left)
			decide_note(out, j->id, "dev: no idle fill this pass (bf_max_job_test cut the offline queue short)");
		else
			decide_note(out, j->id, "dev: not tried this pass (bf_max_job_test=%d reached)", t->max_test);
	}
}
