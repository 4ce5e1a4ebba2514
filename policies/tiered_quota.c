/* tiered_quota — the tiered policy's quotas (docs/policies.md "tiered",
 * quotas): per tenant and per project, the billing-weighted GPU-seconds and
 * the core-seconds of the jobs that ended inside the quota window (a log
 * in end order, dropped from the front as the window moves), what runs
 * now (its usage so far plus what its estimate leaves), what requeued
 * jobs ran, and the estimates of the jobs passed over earlier in the pass;
 * storage and bandwidth of what runs. A pending job that would go over is
 * held ("quota") and released once it fits again, after every job of its
 * tenant that waits. Called from policies/tiered.c; the state is struct
 * tiered (policies/tiered_int.h). */
#include <stdio.h>
#include <stdlib.h>

#include "policies/tiered_int.h"

static int32_t ent_tenant(const struct tiered *t, const struct job *j)
{
	return t->org && j->tenant >= 0 && j->tenant < t->org->nt ? j->tenant : -1;
}

static int32_t ent_project(const struct tiered *t, const struct job *j)
{
	int32_t e = ent_tenant(t, j);
	if (e < 0 || t->org->t[e].nprojects <= 0)
		return -1;
	const struct org_tenant *ot = &t->org->t[e];
	return t->org->nt + ot->first_project + (j->group >= 0 && j->group < ot->nprojects ? j->group : 0);
}

/* The entity's sums as of this pass: ended jobs out of the window dropped. */
static struct qent *ent_get(struct tiered *t, int32_t e, simtime now)
{
	struct qent *q = &t->qe[e];
	if (q->stamp != t->pass) {
		q->stamp = t->pass;
		q->run_gpu = q->run_core = q->storage = q->bw = 0;
		q->ahead_gpu = q->ahead_core = q->wait_gpu = q->wait_core = 0;
	}
	int side = e >= t->org->nt;
	simtime w = q->q->window_us;
	while (w > 0 && q->head >= 0 && t->log[q->head].end < now - w) {
		q->gpu -= t->log[q->head].gpu;
		q->core -= t->log[q->head].core;
		q->head = t->log[q->head].next[side];
		if (q->head < 0)
			q->tail = -1;
	}
	return q;
}

static void ent_add(struct tiered *t, const struct job *j, simtime now, double gpu, double core,
                    double st, double bw)
{
	int32_t e[2] = { ent_tenant(t, j), ent_project(t, j) };
	for (int k = 0; k < 2; k++)
		if (e[k] >= 0) {
			struct qent *q = ent_get(t, e[k], now);
			q->run_gpu += gpu;
			q->run_core += core;
			q->storage += st;
			q->bw += bw;
		}
}

/* A running job's usage so far plus what its estimate leaves. */
static void commit_running(struct tiered *t, const struct job *j, simtime now)
{
	simtime el = now > j->start_us ? now - j->start_us : 0, est = estimate_us(j);
	double s = simtime_to_s(el > est ? el : est);
	ent_add(t, j, now, (j->gpu_s + job_milli(&j->req) / (double)HL_MILLI * s) * t->wt[j->id],
	        j->core_s + (double)job_req_cores(&j->req) * s,
	        j->req.pool > 0 ? (double)j->req.storage_gib : 0, j->req.pool > 0 ? (double)j->req.io_mbps : 0);
}

/* A job started in this pass: its estimate (its earlier runs were counted
 * while it was pending). */
void tiered_commit_start(struct tiered *t, const struct job *j, simtime now)
{
	double s = simtime_to_s(estimate_us(j));
	ent_add(t, j, now, job_milli(&j->req) / (double)HL_MILLI * s * t->wt[j->id],
	        (double)job_req_cores(&j->req) * s,
	        j->req.pool > 0 ? (double)j->req.storage_gib : 0, j->req.pool > 0 ? (double)j->req.io_mbps : 0);
}

/* A pending job's estimate: billing-weighted GPU-seconds (at the least
 * weight it may run at) and core-seconds. */
static void job_est(const struct tiered *t, const struct job *j, double *gpu, double *core)
{
	double s = simtime_to_s(estimate_us(j));
	*gpu = job_milli(&j->req) / (double)HL_MILLI * s * job_wmin(t, j);
	*core = (double)job_req_cores(&j->req) * s;
}

/* Adds pending job j's estimate to what waits (at the pass start) or to
 * what went before (ahead, during the pass) for its tenant and project. */
static void quota_queue(struct tiered *t, const struct view *v, const struct job *j, bool ahead)
{
	if (j->approved)
		return;
	double gpu, core;
	job_est(t, j, &gpu, &core);
	int32_t e[2] = { ent_tenant(t, j), ent_project(t, j) };
	for (int k = 0; k < 2; k++)
		if (e[k] >= 0) {
			struct qent *q = ent_get(t, e[k], v->now);
			*(ahead ? &q->ahead_gpu : &q->wait_gpu) += gpu;
			*(ahead ? &q->ahead_core : &q->wait_core) += core;
		}
}

void tiered_quota_refresh(struct tiered *t, const struct view *v)
{
	for (int32_t k = 0; k < v->nrunning; k++)
		commit_running(t, &v->jobs[v->running[k]], v->now);
	for (int32_t k = 0; k < v->npending; k++) {
		const struct job *j = &v->jobs[v->pending[k]];
		if (j->gpu_s > 0 || j->core_s > 0)   /* requeued: its earlier runs */
			ent_add(t, j, v->now, j->gpu_s * t->wt[j->id], j->core_s, 0, 0);
		if (t->nheld > 0)   /* only the release check reads it */
			quota_queue(t, v, j, false);
	}
}

static bool ent_over(const struct qent *q, bool release, double gpu, double core, double st, double bw)
{
	const struct quota *l = q->q;
	double g = q->gpu + q->run_gpu + (release ? q->wait_gpu : q->ahead_gpu);
	double c = q->core + q->run_core + (release ? q->wait_core : q->ahead_core);
	return (gpu > 0 && l->gpu_hours > 0 && g + gpu > l->gpu_hours * 3600.0 + 1e-9) ||
	       (core > 0 && l->core_hours > 0 && c + core > l->core_hours * 3600.0 + 1e-9) ||
	       (st > 0 && l->storage_gib > 0 && q->storage + st > l->storage_gib + 1e-9) ||
	       (bw > 0 && l->bw_mbps > 0 && q->bw + bw > l->bw_mbps + 1e-9);
}

/* Would pending job j, run for its estimate, exceed a quota, after what
 * runs and what went before it in this pass? With `release` (j is held),
 * after every pending job instead: a job released while others of its
 * tenant wait would only be held again. */
static bool quota_over(struct tiered *t, const struct view *v, const struct job *j, bool release)
{
	if (!t->quotas || j->approved)
		return false;
	double gpu, core;
	job_est(t, j, &gpu, &core);
	double st = j->req.pool > 0 ? (double)j->req.storage_gib : 0;
	double bw = j->req.pool > 0 ? (double)j->req.io_mbps : 0;
	int32_t e[2] = { ent_tenant(t, j), ent_project(t, j) };
	for (int k = 0; k < 2; k++)
		if (e[k] >= 0 && ent_over(ent_get(t, e[k], v->now), release, gpu, core, st, bw))
			return true;
	return false;
}

/* Pending job j had its turn and did not start: later jobs of its tenant
 * and project count its estimate, so that they do not take the quota it
 * waits with. */
void tiered_quota_wait(struct tiered *t, const struct view *v, const struct job *j)
{
	if (t->quotas)
		quota_queue(t, v, j, true);
}

void tiered_quota_note(struct tiered *t, const struct view *v, struct decide *out, const struct job *j, bool release)
{
	double gpu, core;
	job_est(t, j, &gpu, &core);
	double st = j->req.pool > 0 ? (double)j->req.storage_gib : 0;
	double bw = j->req.pool > 0 ? (double)j->req.io_mbps : 0;
	int32_t e[2] = { ent_tenant(t, j), ent_project(t, j) };
	for (int k = 0; k < 2; k++) {
		if (e[k] < 0)
			continue;
		struct qent *q = ent_get(t, e[k], v->now);
		if (!ent_over(q, release, gpu, core, st, bw))
			continue;
		const struct quota *l = q->q;
		char who[160];
		if (k == 0)
			snprintf(who, sizeof who, "tenant %s", t->org->t[e[k]].name);
		else
			snprintf(who, sizeof who, "project %s of tenant %s", t->org->p[e[k] - t->org->nt].name,
			         t->org->t[e[0]].name);
		const char *by = release ? "used, running and waiting" : "used, running and queued ahead of it";
		double days = simtime_to_s(l->window_us) / 86400;
		double g = q->gpu + q->run_gpu + (release ? q->wait_gpu : q->ahead_gpu);
		double c = q->core + q->run_core + (release ? q->wait_core : q->ahead_core);
		const char *tail = release ? "still held" : "held";
		if (gpu > 0 && l->gpu_hours > 0 && g + gpu > l->gpu_hours * 3600.0 + 1e-9)
			decide_note(out, j->id, "%s for the GPU-hour quota of %s: %.3g of its %g GPU-hours in %g days %s; "
			            "it needs %.3g more (hetlab approve releases it)", tail, who, g / 3600, l->gpu_hours, days,
			            by, gpu / 3600);
		else if (core > 0 && l->core_hours > 0 && c + core > l->core_hours * 3600.0 + 1e-9)
			decide_note(out, j->id, "%s for the core-hour quota of %s: %.3g of its %g core-hours in %g days %s; "
			            "it needs %.3g more (hetlab approve releases it)", tail, who, c / 3600, l->core_hours, days,
			            by, core / 3600);
		else if (st > 0 && l->storage_gib > 0 && q->storage + st > l->storage_gib + 1e-9)
			decide_note(out, j->id, "%s for the storage quota of %s: %.0f of its %g GiB held by running jobs; "
			            "it needs %.0f (hetlab approve releases it)", tail, who, q->storage, l->storage_gib, st);
		else
			decide_note(out, j->id, "%s for the bandwidth quota of %s: %.0f of its %g MB/s held by running jobs; "
			            "it needs %.0f (hetlab approve releases it)", tail, who, q->bw, l->bw_mbps, bw);
		return;
	}
}

/* Holds pending job j for quota when it is over: 1 held, 0 not, -1 error. */
int tiered_quota_hold(struct tiered *t, const struct view *v, struct decide *out, const struct job *j)
{
	if (!quota_over(t, v, j, false))
		return 0;
	if (decide_noting(out))
		tiered_quota_note(t, v, out, j, false);
	if (decide_hold(out, j->id, "quota"))
		return -1;
	t->held[t->nheld++] = j->id;
	return 1;
}

/* Quota-held jobs back under their quotas go back to the queue. */
int tiered_quota_release(struct tiered *t, const struct view *v, struct decide *out)
{
	int32_t w = 0;
	for (int32_t k = 0; k < t->nheld; k++) {
		const struct job *j = &v->jobs[t->held[k]];
		if (j->state != JOB_HELD || j->hold_why != HOLD_QUOTA)
			continue;
		if (quota_over(t, v, j, true)) {
			if (decide_noting(out))
				tiered_quota_note(t, v, out, j, true);
			t->held[w++] = j->id;
			continue;
		}
		if (decide_release(out, j->id))
			return -1;
		quota_queue(t, v, j, false);   /* the next held job counts it */
	}
	t->nheld = w;
	return 0;
}

void tiered_quota_finish(void *state, const struct view *v, int32_t id)
{
	struct tiered *t = state;
	if (!t->quotas || t->nlog > t->njobs)
		return;
	const struct job *j = &v->jobs[id];
	int32_t e[2] = { ent_tenant(t, j), ent_project(t, j) };
	if (e[0] < 0)
		return;
	int32_t n = t->nlog++;
	t->log[n] = (struct qlog){ .end = v->now, .gpu = j->gpu_s * t->wt[id], .core = j->core_s,
	                           .next = { -1, -1 } };
	for (int k = 0; k < 2; k++) {
		if (e[k] < 0)
			continue;
		struct qent *q = &t->qe[e[k]];
		if (q->tail >= 0)
			t->log[q->tail].next[k] = n;
		else
			q->head = n;
		q->tail = n;
		q->gpu += t->log[n].gpu;
		q->core += t->log[n].core;
	}
}

/* Quotas are on when a tenant or project of org o has one; then the
 * per-entity sums and the log of ended jobs (room for nj) are allocated.
 * 0, or -1 out of memory. */
int tiered_quota_init(struct tiered *t, const struct org *o, size_t nj)
{
	for (int32_t i = 0; o && i < o->nt; i++)
		t->quotas |= o->t[i].quota.gpu_hours > 0 || o->t[i].quota.core_hours > 0 ||
		             o->t[i].quota.storage_gib > 0 || o->t[i].quota.bw_mbps > 0;
	for (int32_t i = 0; o && i < o->np; i++)
		t->quotas |= o->p[i].quota.gpu_hours > 0 || o->p[i].quota.core_hours > 0 ||
		             o->p[i].quota.storage_gib > 0 || o->p[i].quota.bw_mbps > 0;
	if (!t->quotas)
		return 0;
	t->nqe = o->nt + o->np;
	t->qe = calloc((size_t)t->nqe, sizeof *t->qe);
	t->log = calloc(nj, sizeof *t->log);
	if (!t->qe || !t->log)
		return -1;
	for (int32_t e = 0; e < t->nqe; e++) {
		t->qe[e].q = e < o->nt ? &o->t[e].quota : &o->p[e - o->nt].quota;
		t->qe[e].head = t->qe[e].tail = -1;
	}
	return 0;
}

/* Drops the log entries no window holds any more (every list's head has
 * passed them), renumbering the rest in order, so that a run that never
 * ends keeps only its windows' worth (sim_compact calls it through the
 * policy's renumber hook). The lists keep their order: the sums and what
 * expires next are as before. */
void tiered_quota_compact(struct tiered *t)
{
	if (!t->quotas || t->nlog == 0)
		return;
	/* Mark with next[] itself: an entry is kept when a list still reaches
	 * it; its new index goes into a scratch pass over the log in order. */
	int32_t *to = t->ids;   /* nj entries of per-pass scratch; the log has at most nj */
	for (int32_t n = 0; n < t->nlog; n++)
		to[n] = -1;
	for (int32_t e = 0; e < t->nqe; e++) {
		int side = e >= t->org->nt;
		for (int32_t n = t->qe[e].head; n >= 0; n = t->log[n].next[side])
			to[n] = 0;
	}
	int32_t k = 0;
	for (int32_t n = 0; n < t->nlog; n++)
		if (to[n] == 0)
			to[n] = k++;
	for (int32_t n = 0; n < t->nlog; n++) {
		if (to[n] < 0)
			continue;
		struct qlog g = t->log[n];
		for (int s = 0; s < 2; s++)
			g.next[s] = g.next[s] >= 0 ? to[g.next[s]] : -1;
		t->log[to[n]] = g;
	}
	for (int32_t e = 0; e < t->nqe; e++) {
		struct qent *q = &t->qe[e];
		q->head = q->head >= 0 ? to[q->head] : -1;
		q->tail = q->tail >= 0 ? to[q->tail] : -1;
	}
	t->nlog = k;
}
