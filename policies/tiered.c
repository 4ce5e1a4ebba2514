/* tiered — online inference, offline fair-share with backfill, dev idle
 * fill, preemption and quotas in one policy. See tiered.h and
 * docs/policies.md "tiered".
 *
 * A pass, in order:
 *  1. usage and plans: prio_update; the quota sums; the preemption plans
 *     still open (an inference job waiting for its victims to stop) claim
 *     the nodes they will start on (owner[]), so that nothing else takes
 *     what the victims free;
 *  2. holds: dev jobs over the runtime limit or larger than the dev cap,
 *     any job over its tenant's or project's quota (and quota-held jobs
 *     back under it are released);
 *  3. inference, by priority: on its bound nodes, else anywhere not
 *     claimed; when it does not fit, a preemption (preempt_for);
 *  4. offline (training, batch), by priority, on the offline state O —
 *     the live free state less the bound and claimed nodes and less the
 *     reserved GPUs (hidden from the highest-numbered nodes down) — with
 *     EASY backfilling around the first that does not fit (the head);
 *  5. dev, by priority, as backfill candidates after every offline job,
 *     within each tenant's dev GPU cap; skipped when bf_max_job_test cut
 *     the offline queue short (some offline job might still have fitted).
 *
 * Every start goes through the placer; a placement on O is checked again
 * on the live state (a time-sliced share may take an idle card that O
 * hid): no part on a bound or claimed node, and every reserved model keeps
 * its reserved count of free whole cards. */
#include "policies/tiered.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/placement.h"
#include "policies/policy.h"
#include "policies/prio.h"
#include "sim/org.h"

enum {
	P_BF_MAX_JOB_TEST, P_PREEMPT_EXEMPT_S, P_PREEMPT,
	P_W_AGE, P_W_FAIRSHARE, P_W_JOBSIZE, P_W_QOS, P_MAX_AGE_DAYS, P_FAIR_TREE, P_FAVOR_SMALL,
	P_QOS_TRAINING, P_QOS_INFERENCE, P_QOS_BATCH, P_QOS_DEV,
};

static const struct policy_param tiered_params[] = {
	[P_BF_MAX_JOB_TEST] = { "bf_max_job_test", 500, 1, 1e9,
	                        "offline and dev jobs behind the head tried for backfill per pass (Slurm bf_max_job_test)" },
	[P_PREEMPT_EXEMPT_S] = { "preempt_exempt_s", 600, 0, 1e9,
	                         "a job that started less than this ago is never preempted (Slurm PreemptExemptTime)" },
	[P_PREEMPT] = { "preempt", 1, 0, 1, "1: inference preempts offline and dev work; 0: it only waits" },
	[P_W_AGE] = { "weight_age", 1000, 0, 1e9, "multifactor weight of queue age (PriorityWeightAge)" },
	[P_W_FAIRSHARE] = { "weight_fairshare", 10000, 0, 1e9,
	                    "multifactor weight of the fair-share factor (PriorityWeightFairshare)" },
	[P_W_JOBSIZE] = { "weight_jobsize", 0, 0, 1e9, "multifactor weight of job size (PriorityWeightJobSize)" },
	[P_W_QOS] = { "weight_qos", 0, 0, 1e9, "multifactor weight of the class QOS (PriorityWeightQOS)" },
	[P_MAX_AGE_DAYS] = { "max_age_days", 7, 1e-6, 1e5, "the age factor saturates after this wait (PriorityMaxAge)" },
	[P_FAIR_TREE] = { "fair_tree", 0, 0, 1, "1: fair-share by Fair Tree rank; 0: classic 2^(-U/S)" },
	[P_FAVOR_SMALL] = { "favor_small", 0, 0, 1, "1: the job size factor favours small jobs (PriorityFavorSmall)" },
	[P_QOS_TRAINING] = { "qos_training", 0.5, 0, 1, "QOS factor of training jobs" },
	[P_QOS_INFERENCE] = { "qos_inference", 1, 0, 1, "QOS factor of inference jobs (orders the inference tier)" },
	[P_QOS_BATCH] = { "qos_batch", 0.5, 0, 1, "QOS factor of batch jobs" },
	[P_QOS_DEV] = { "qos_dev", 0, 0, 1, "QOS factor of dev jobs" },
	{ NULL, 0, 0, 0, NULL },
};

#define MAX_MODELS 64     /* job_req.gpu_models is a 64-bit mask */
#define TIERED_MEMO 16    /* failed requests remembered per free state and pass */

struct plan {             /* an inference job waiting for its victims */
	int32_t job;          /* -1 once dropped */
	int32_t v0, nv;       /* its victims: pv[v0 .. v0 + nv) */
	simtime at;           /* when they were signalled (their signalled_us) */
	bool done;            /* no victim holds resources any more: the job's last try */
};

struct qlog {             /* an ended job's usage; entries in end order */
	simtime end;
	double gpu, core;     /* billing-weighted GPU-seconds, core-seconds */
	int32_t next[2];      /* next entry of the same tenant, project */
};

struct qent {             /* a tenant's or a project's quota use */
	const struct quota *q;
	double gpu, core;     /* ended jobs inside the window */
	int32_t head, tail;   /* their log entries, oldest first */
	uint64_t stamp;       /* the pass the sums below belong to */
	double run_gpu, run_core, storage, bw;   /* running jobs (committed) and requeued ones */
	double ahead_gpu, ahead_core;   /* estimates of the jobs passed over earlier in the pass */
	double wait_gpu, wait_core;     /* estimates of every pending job at the pass start */
};

struct vcand {
	int32_t id, rank;
	double prio;
	simtime lost;
};

struct dpair {
	int32_t tenant, milli;
};

struct tiered {
	struct placer pl;
	struct prio *pr;
	const struct org *org;
	int32_t nnodes, njobs, max_test;
	simtime exempt_us;
	bool preempt;
	int8_t vrank[JOB_NCLASS];        /* victim rank by class; -1 never a victim */
	int32_t dev_max_milli;           /* -1 unlimited */
	simtime dev_max_runtime_us;
	uint8_t *bound;                  /* per node: bound to inference */
	int32_t *bound_list, nbound;
	int32_t nres, rmodel[TIERED_MAX_RESERVE], rgpus[TIERED_MAX_RESERVE];
	int8_t rof[MAX_MODELS];          /* reserve index of a GPU model, -1 none */
	uint64_t models_present;
	double wmodel[MAX_MODELS];       /* billing weight per GPU model */
	double wmin_any;                 /* the least over the models present */
	/* requests that failed on the offline state (0) and on the extra
	 * state (1) in this pass: both only shrink, so they fail again */
	struct job_req memo[2][TIERED_MEMO];
	int nmemo[2], next_memo[2];
	/* per pass */
	uint64_t pass;
	int32_t inf_used[TIERED_MAX_RESERVE], keep[TIERED_MAX_RESERVE], freecnt[TIERED_MAX_RESERVE];
	bool masked, owned_any, owned_last;
	struct alloc_part *parts, *head, *need;
	struct nodefree *avail, *bst, *off, *sraw, *shadow, *extra, *scr;
	struct nodefree *empty;          /* offline capacity of the empty cluster; NULL when nothing is reserved */
	const struct nodefree *F;        /* offline state: off, or cl->free when nothing is masked */
	uint64_t *hid;                   /* per node: cards hidden from O for reservations */
	uint64_t *infmask;               /* per node: cards holding inference jobs */
	int32_t *owner;                  /* per node: the plan that claimed it, -1 none */
	uint8_t *suit;
	int32_t *inf, *offl, *dev, *ids, *chosen;
	int32_t ninf, noff, ndev;
	struct vcand *cand;
	int64_t extra_cores, extra_gpus;
	bool have_head;
	simtime shadow_t;
	bool cached;                     /* the reservation, reused while head and epoch hold */
	int32_t cached_head, cached_np;
	uint64_t cached_epoch;
	simtime cached_shadow;
	struct plan *plans;
	int32_t nplans, cap_plans;
	int32_t *pv, npv;
	int32_t *plan_of;                /* per job: its open plan, -1 none */
	bool quotas;
	struct qent *qe;
	int32_t nqe;
	struct qlog *log;
	int32_t nlog;
	double *wt;                      /* per job: billing weight of the GPU model it last ran on */
	int32_t *held, nheld;            /* jobs this policy held for quota */
	struct dpair *devrun, *devnew;
	int32_t ndevrun, ndevnew;
};

static const struct nodefree nf_zero;

/* ---- helpers ---- */

static int64_t job_milli(const struct job_req *r)
{
	if (r->gpu_milli > 0)
		return r->gpu_milli;
	if (r->mig_g > 0)
		return (r->mig_g * HL_MILLI + 6) / 7;
	return job_req_gpus(r) * HL_MILLI;
}

static double model_weight(const struct org *o, int32_t m)
{
	if (o && o->gpu_weight && m >= 0 && m < o->ngpu_weight && o->gpu_weight[m] > 0)
		return o->gpu_weight[m];
	return 1.0;
}

/* The least billing weight among the GPU models the job may run on. */
static double job_wmin(const struct tiered *t, const struct job *j)
{
	if (!j->req.gpu_models)
		return t->wmin_any;
	uint64_t ok = t->models_present & j->req.gpu_models;
	double w = 0;
	for (; ok; ok &= ok - 1) {
		double x = t->wmodel[__builtin_ctzll(ok)];
		if (w == 0 || x < w)
			w = x;
	}
	return w > 0 ? w : 1.0;
}

/* Time since the job's last checkpoint: the work it would lose now. The
 * interval is reference work; it is read as wall time here. */
static simtime lost_us(const struct job *j, simtime now)
{
	simtime ran = now > j->start_us ? now - j->start_us : 0;
	return j->ckpt_every_us > 0 ? ran % j->ckpt_every_us : ran;
}

static simtime estimate_us(const struct job *j)
{
	return j->walltime_us == SIMTIME_INF ? SIMTIME_HOUR : j->walltime_us;
}

static int rsv_of(const struct tiered *t, const struct cluster *cl, int32_t node)
{
	int32_t m = cl->nodes[node].gpu_model;
	return m >= 0 && m < MAX_MODELS && !t->bound[node] ? t->rof[m] : -1;
}

/* Refreshes node i's derived states from the live free state. */
static void node_states(struct tiered *t, const struct cluster *cl, int32_t i)
{
	const struct nodefree *f = &cl->free[i];
	bool own = t->owner[i] >= 0;
	if (t->owned_any)
		t->avail[i] = own ? nf_zero : *f;
	if (t->bound[i])
		t->bst[i] = own ? nf_zero : *f;
	if (t->masked) {
		if (own || t->bound[i]) {
			t->off[i] = nf_zero;
		} else {
			t->off[i] = *f;
			t->off[i].gpu_free &= ~t->hid[i];
			t->off[i].gpus = hl_popcount64(t->off[i].gpu_free);
		}
	}
}

/* f[i] = the live state, or zero on nodes claimed by a plan other than keep. */
static void masked_copy(const struct tiered *t, const struct cluster *cl, struct nodefree *f, int32_t keep)
{
	memcpy(f, cl->free, (size_t)cl->nnodes * sizeof *f);
	if (t->owned_any)
		for (int32_t i = 0; i < cl->nnodes; i++)
			if (t->owner[i] >= 0 && t->owner[i] != keep)
				f[i] = nf_zero;
}

/* Gives parts back to scratch f, except on nodes claimed by another plan. */
static void give_masked(const struct tiered *t, struct nodefree *f, const struct alloc_part *p, int n,
                        int32_t keep)
{
	nodefree_give(f, p, n);
	for (int k = 0; k < n; k++)
		if (t->owner[p[k].node] >= 0 && t->owner[p[k].node] != keep)
			f[p[k].node] = nf_zero;
}

/* Hides keep[r] free cards of each reserved model in f, from the last node
 * down (whole idle nodes stay whole for inference); records them in hid. */
static void hide(const struct tiered *t, const struct cluster *cl, struct nodefree *f, const int32_t *keep,
                 uint64_t *hid)
{
	int32_t left[TIERED_MAX_RESERVE], any = 0;
	for (int r = 0; r < t->nres; r++)
		any += (left[r] = keep[r] > 0 ? keep[r] : 0);
	for (int32_t i = cl->nnodes - 1; i >= 0 && any > 0; i--) {
		int r = rsv_of(t, cl, i);
		if (r < 0 || left[r] == 0)
			continue;
		while (f[i].gpu_free && left[r] > 0) {
			uint64_t b = 1ull << (63 - __builtin_clzll(f[i].gpu_free));
			f[i].gpu_free &= ~b;
			f[i].gpus--;
			if (hid)
				hid[i] |= b;
			left[r]--;
			any--;
		}
	}
}

/* ---- quotas ---- */

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
static void commit_start(struct tiered *t, const struct job *j, simtime now)
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

static void quota_refresh(struct tiered *t, const struct view *v)
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
static void quota_wait(struct tiered *t, const struct view *v, const struct job *j)
{
	if (t->quotas)
		quota_queue(t, v, j, true);
}

/* Holds pending job j for quota when it is over: 1 held, 0 not, -1 error. */
static int quota_hold(struct tiered *t, const struct view *v, struct decide *out, const struct job *j)
{
	if (!quota_over(t, v, j, false))
		return 0;
	if (decide_hold(out, j->id, "quota"))
		return -1;
	t->held[t->nheld++] = j->id;
	return 1;
}

/* Quota-held jobs back under their quotas go back to the queue. */
static int quota_release(struct tiered *t, const struct view *v, struct decide *out)
{
	int32_t w = 0;
	for (int32_t k = 0; k < t->nheld; k++) {
		const struct job *j = &v->jobs[t->held[k]];
		if (j->state != JOB_HELD || j->hold_why != HOLD_QUOTA)
			continue;
		if (quota_over(t, v, j, true)) {
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

static void tiered_finish(void *state, const struct view *v, int32_t id)
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

/* ---- dev cap ---- */

static int dpair_cmp(const void *a, const void *b)
{
	const struct dpair *x = a, *y = b;
	return (x->tenant > y->tenant) - (x->tenant < y->tenant);
}

static void dev_prepare(struct tiered *t, const struct view *v)
{
	t->ndevrun = t->ndevnew = 0;
	if (t->dev_max_milli < 0)
		return;
	for (int32_t k = 0; k < v->nrunning; k++) {
		const struct job *j = &v->jobs[v->running[k]];
		if (j->cls == JOB_DEV)
			t->devrun[t->ndevrun++] = (struct dpair){ j->tenant, (int32_t)job_milli(&j->req) };
	}
	qsort(t->devrun, (size_t)t->ndevrun, sizeof *t->devrun, dpair_cmp);
}

static int64_t dev_used(const struct tiered *t, int32_t tenant)
{
	int32_t lo = 0, hi = t->ndevrun;
	while (lo < hi) {
		int32_t mid = (lo + hi) / 2;
		if (t->devrun[mid].tenant < tenant)
			lo = mid + 1;
		else
			hi = mid;
	}
	int64_t used = 0;
	for (; lo < t->ndevrun && t->devrun[lo].tenant == tenant; lo++)
		used += t->devrun[lo].milli;
	for (int32_t k = 0; k < t->ndevnew; k++)
		if (t->devnew[k].tenant == tenant)
			used += t->devnew[k].milli;
	return used;
}

/* ---- starting ---- */

/* Starts j on t->parts[0 .. n) and keeps every derived state current. */
static int start_job(struct tiered *t, const struct view *v, struct decide *out, const struct job *j, int n)
{
	const struct cluster *cl = v->cl;
	const struct alloc_part *p = t->parts;
	for (int k = 0; k < n; k++) {
		int r = rsv_of(t, cl, p[k].node);
		if (r < 0 || t->owner[p[k].node] >= 0)
			continue;
		t->freecnt[r] -= hl_popcount64(p[k].gpus & cl->free[p[k].node].gpu_free);
		if (j->cls == JOB_INFERENCE) {
			t->inf_used[r] += hl_popcount64(p[k].gpus & ~t->infmask[p[k].node]);
			t->infmask[p[k].node] |= p[k].gpus;
		}
	}
	if (decide_start(out, j->id, p, n))
		return -1;
	placer_started(&t->pl, v, j, p, n);
	prio_started(t->pr, v, j->id);
	int32_t m = cl->nodes[p[0].node].gpu_model;
	t->wt[j->id] = j->req.gpus > 0 || job_req_shared(&j->req) ? model_weight(t->org, m) : 1.0;
	if (t->quotas)
		commit_start(t, j, v->now);
	if (j->cls == JOB_DEV && t->dev_max_milli >= 0)
		t->devnew[t->ndevnew++] = (struct dpair){ j->tenant, (int32_t)job_milli(&j->req) };
	for (int k = 0; k < n; k++)
		node_states(t, cl, p[k].node);
	return 0;
}

/* Does a placement for offline or dev work keep off bound and claimed
 * nodes, and leave every reserved model its count of free whole cards? */
static bool offline_ok(const struct tiered *t, const struct cluster *cl, const struct alloc_part *p, int n)
{
	int32_t take[TIERED_MAX_RESERVE] = { 0 };
	for (int k = 0; k < n; k++) {
		int32_t i = p[k].node;
		if (t->bound[i] || t->owner[i] >= 0)
			return false;
		int r = rsv_of(t, cl, i);
		if (r >= 0)
			take[r] += hl_popcount64(p[k].gpus & cl->free[i].gpu_free);
	}
	for (int r = 0; r < t->nres; r++)
		if (take[r] > 0 && t->freecnt[r] - take[r] < t->keep[r])
			return false;
	return true;
}

static int place_offline(struct tiered *t, const struct view *v, const struct job *j, const struct nodefree *f)
{
	int k = f == t->extra;
	for (int i = 0; i < t->nmemo[k]; i++)
		if (memcmp(&t->memo[k][i], &j->req, sizeof j->req) == 0)
			return 0;
	int n = placer_place(&t->pl, v->cl, f, j, t->parts);
	if (n && offline_ok(t, v->cl, t->parts, n))
		return n;
	t->memo[k][t->next_memo[k]] = j->req;
	t->next_memo[k] = (t->next_memo[k] + 1) % TIERED_MEMO;
	if (t->nmemo[k] < TIERED_MEMO)
		t->nmemo[k]++;
	return 0;
}

/* ---- preemption ---- */

/* Recomputes the open plans: drops those whose job started or left the
 * queue, marks done those whose victims all stopped, and lets each claim
 * the nodes its job would start on once its victims are gone. */
static void plans_refresh(struct tiered *t, const struct view *v)
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
static void plan_drop(struct tiered *t, const struct cluster *cl, int32_t k)
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
static int wake_at_exemption(struct tiered *t, const struct view *v, struct decide *out)
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
static int preempt_for(struct tiered *t, const struct view *v, struct decide *out, const struct job *j)
{
	const struct cluster *cl = v->cl;
	if (t->nplans >= t->cap_plans)
		return 0;
	for (int32_t i = 0; i < cl->nnodes; i++)
		t->suit[i] = t->owner[i] < 0 && cluster_node_suits(cl, i, &j->req, t->pl.how);
	int32_t nc = 0;
	for (int32_t k = 0; k < v->nrunning; k++) {
		const struct job *r = &v->jobs[v->running[k]];
		if (r->state != JOB_RUNNING || r->signalled_us >= 0 || t->vrank[r->cls] < 0 ||
		    v->now - r->start_us < t->exempt_us)
			continue;
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
	if (nc == 0)
		return 0;
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
	snprintf(why, sizeof why, "for inference job %d", j->id);
	for (int32_t i = 0; i < nv; i++) {
		int32_t id = t->cand[t->chosen[i]].id;
		t->pv[t->npv++] = id;
		if (decide_preempt(out, id, why))
			return -1;
	}
	return 0;
}

/* ---- the tiers ---- */

static int inference_pass(struct tiered *t, const struct view *v, struct decide *out)
{
	const struct cluster *cl = v->cl;
	for (int32_t k = 0; k < t->ninf; k++) {
		const struct job *j = &v->jobs[t->inf[k]];
		if (j->state != JOB_PENDING)
			continue;
		int held = quota_hold(t, v, out, j);
		if (held < 0)
			return -1;
		if (held)
			continue;
		int32_t pk = t->plan_of[j->id];
		int n = 0;
		if (pk >= 0) {
			masked_copy(t, cl, t->scr, pk);
			n = placer_place(&t->pl, cl, t->scr, j, t->parts);
		} else {
			if (t->nbound > 0)
				n = placer_place(&t->pl, cl, t->bst, j, t->parts);
			for (int i = 0; i < n; i++)
				if (!t->bound[t->parts[i].node] || t->owner[t->parts[i].node] >= 0)
					n = 0;   /* a share judged on the live cards went elsewhere */
			if (!n)
				n = placer_place(&t->pl, cl, t->owned_any ? t->avail : cl->free, j, t->parts);
		}
		for (int i = 0; i < n; i++)
			if (t->owner[t->parts[i].node] >= 0 && t->owner[t->parts[i].node] != pk)
				n = 0;
		if (n) {
			if (start_job(t, v, out, j, n))
				return -1;
			if (pk >= 0)
				plan_drop(t, cl, pk);
			continue;
		}
		quota_wait(t, v, j);
		if (pk >= 0 && !t->plans[pk].done)
			continue;   /* its victims are still stopping */
		if (pk >= 0)
			plan_drop(t, cl, pk);
		int32_t plans = t->nplans;
		if (t->preempt && preempt_for(t, v, out, j))
			return -1;
		if (t->preempt && t->nplans == plans && wake_at_exemption(t, v, out))
			return -1;
	}
	return 0;
}

static void extra_node(struct tiered *t, int32_t i)
{
	struct nodefree *x = &t->extra[i];
	t->extra_cores -= x->cores;
	t->extra_gpus -= x->gpus;
	nodefree_extra(&t->F[i], &t->shadow[i], &t->need[i], x);
	t->extra_cores += x->cores;
	t->extra_gpus += x->gpus;
}

/* Earliest time, by the running jobs' estimates, at which the head fits
 * the offline state of then (bound and claimed nodes masked, reserved
 * cards hidden by the inference use of then); fills t->shadow and t->head. */
static int find_shadow(struct tiered *t, const struct view *v, const struct job *head, simtime *when)
{
	const struct cluster *cl = v->cl;
	int64_t cores = 0, gpus = 0;
	for (int32_t i = 0; i < cl->nnodes; i++) {
		t->sraw[i] = t->bound[i] || t->owner[i] >= 0 ? nf_zero : cl->free[i];
		cores += t->sraw[i].cores;
		gpus += t->sraw[i].gpus;
	}
	int32_t fut[TIERED_MAX_RESERVE], keep[TIERED_MAX_RESERVE];
	memcpy(fut, t->inf_used, sizeof fut);
	int32_t n = 0;
	for (int32_t k = 0; k < v->nrunning; k++)
		if (v->jobs[v->running[k]].signalled_us < 0)   /* a victim's resources are promised */
			t->ids[n++] = v->running[k];
	sort_by_expected_end(v->jobs, t->ids, n);
	for (int32_t k = 0; k < n; k++) {
		const struct job *r = &v->jobs[t->ids[k]];
		const struct alloc_part *rp = &v->parts[r->parts];
		for (int i = 0; i < r->nparts; i++) {
			int32_t nd = rp[i].node;
			int rs = rsv_of(t, cl, nd);
			if (r->cls == JOB_INFERENCE && rs >= 0 && rp[i].milli == 0 && rp[i].mig_profile < 0)
				fut[rs] -= hl_popcount64(rp[i].gpus);   /* a shared card may still hold others */
			if (t->bound[nd] || t->owner[nd] >= 0)
				continue;
			cores -= t->sraw[nd].cores;
			gpus -= t->sraw[nd].gpus;
			nodefree_give(t->sraw, &rp[i], 1);
			cores += t->sraw[nd].cores;
			gpus += t->sraw[nd].gpus;
		}
		simtime end = view_expected_end(r);
		if (k + 1 < n && view_expected_end(&v->jobs[t->ids[k + 1]]) == end)
			continue;
		bool hidden = false;
		for (int rs = 0; rs < t->nres; rs++)
			hidden |= (keep[rs] = t->rgpus[rs] - fut[rs]) > 0;
		if (!place_aggregate_ok(cl, cores, gpus, &head->req))
			continue;
		memcpy(t->shadow, t->sraw, (size_t)cl->nnodes * sizeof *t->shadow);
		if (hidden)
			hide(t, cl, t->shadow, keep, NULL);
		int np = place_first_fit(cl, t->shadow, &head->req, t->head);
		if (np) {
			*when = end > v->now ? end : v->now + 1;
			return np;
		}
	}
	memcpy(t->shadow, t->F, (size_t)cl->nnodes * sizeof *t->shadow);
	return 0;
}

/* The head's reservation and the extra state around it. */
static int reserve(struct tiered *t, const struct view *v, const struct job *head)
{
	const struct cluster *cl = v->cl;
	int np;
	if (!t->owned_any && t->cached && t->cached_head == head->id && t->cached_epoch == v->alloc_epoch) {
		t->shadow_t = t->cached_shadow;
		np = t->cached_np;
	} else {
		t->shadow_t = SIMTIME_INF;
		np = find_shadow(t, v, head, &t->shadow_t);
		t->cached = !t->owned_any;
		t->cached_head = head->id;
		t->cached_epoch = v->alloc_epoch;
		t->cached_shadow = t->shadow_t;
		t->cached_np = np;
	}
	memset(t->need, 0, (size_t)cl->nnodes * sizeof *t->need);
	for (int k = 0; k < np; k++)
		t->need[t->head[k].node] = t->head[k];
	memcpy(t->extra, t->F, (size_t)cl->nnodes * sizeof *t->extra);
	t->extra_cores = t->extra_gpus = 0;
	for (int32_t i = 0; i < cl->nnodes; i++) {
		t->extra_cores += t->extra[i].cores;
		t->extra_gpus += t->extra[i].gpus;
	}
	for (int k = 0; k < np; k++)
		extra_node(t, t->head[k].node);
	t->have_head = true;
	return np;
}

/* A backfill candidate (offline behind the head, or dev): 1 started, 0 not, -1 error. */
static int backfill_one(struct tiered *t, const struct view *v, struct decide *out, const struct job *j)
{
	const struct cluster *cl = v->cl;
	if (!place_aggregate_ok(cl, cl->free_cores, cl->free_gpus, &j->req)) {
		quota_wait(t, v, j);
		return 0;
	}
	bool before = !t->have_head || (j->walltime_us != SIMTIME_INF && v->now + j->walltime_us <= t->shadow_t);
	int n = 0;
	if (before)
		n = place_offline(t, v, j, t->F);
	else
		n = place_aggregate_ok(cl, t->extra_cores, t->extra_gpus, &j->req)
		    ? place_offline(t, v, j, t->extra) : 0;
	if (!n) {
		quota_wait(t, v, j);
		return 0;
	}
	if (start_job(t, v, out, j, n))
		return -1;
	if (t->have_head) {
		if (!before)
			nodefree_take(t->shadow, t->parts, n);
		for (int k = 0; k < n; k++)
			extra_node(t, t->parts[k].node);
	}
	return 1;
}

/* The offline state O for this pass: reserved counts less inference use. */
static void build_offline(struct tiered *t, const struct view *v)
{
	const struct cluster *cl = v->cl;
	bool keep_any = false;
	for (int r = 0; r < t->nres; r++) {
		t->keep[r] = t->rgpus[r] - t->inf_used[r];
		keep_any |= t->keep[r] > 0;
		t->freecnt[r] = 0;
	}
	for (int32_t i = 0; i < cl->nnodes && t->nres > 0; i++) {
		int r = rsv_of(t, cl, i);
		if (r >= 0 && t->owner[i] < 0)
			t->freecnt[r] += cl->free[i].gpus;
	}
	t->masked = t->nbound > 0 || keep_any || t->owned_any;
	t->F = cl->free;
	if (!t->masked)
		return;
	memset(t->hid, 0, (size_t)cl->nnodes * sizeof *t->hid);
	for (int32_t i = 0; i < cl->nnodes; i++)
		t->off[i] = t->bound[i] || t->owner[i] >= 0 ? nf_zero : cl->free[i];
	if (keep_any)
		hide(t, cl, t->off, t->keep, t->hid);
	t->F = t->off;
}

static int offline_pass(struct tiered *t, const struct view *v, struct decide *out)
{
	const struct cluster *cl = v->cl;
	build_offline(t, v);
	t->have_head = false;
	t->nmemo[0] = t->nmemo[1] = t->next_memo[0] = t->next_memo[1] = 0;
	int32_t tested = 0;
	bool truncated = false;
	/* A heap order: a pass keys every offline job but sorts only those it
	 * looks at (multifactor does the same). */
	prio_order_start(t->pr, v, t->offl, t->noff);
	for (int32_t id; !truncated && (id = prio_order_next(t->pr)) >= 0;) {
		const struct job *j = &v->jobs[id];
		if (j->state != JOB_PENDING)
			continue;
		int held = quota_hold(t, v, out, j);
		if (held < 0)
			return -1;
		if (held)
			continue;
		if (!t->have_head) {
			int n = place_aggregate_ok(cl, cl->free_cores, cl->free_gpus, &j->req)
			        ? place_offline(t, v, j, t->F) : 0;
			if (n && start_job(t, v, out, j, n))
				return -1;
			if (n || reserve(t, v, j) > 0 || !t->empty ||
			    place_first_fit(cl, t->empty, &j->req, t->parts) > 0) {
				if (!n)
					quota_wait(t, v, j);
				continue;
			}
			/* It never fits: not even the empty cluster less the bound
			 * nodes and the reserved GPUs would take it. */
			t->have_head = false;
			if (decide_hold(out, j->id, "reserve"))
				return -1;
			continue;
		}
		if (tested >= t->max_test) {
			truncated = true;
			break;
		}
		tested++;
		if (backfill_one(t, v, out, j) < 0)
			return -1;
	}
	if (truncated)
		return 0;   /* an offline job not tried might fit: no idle fill */
	prio_sort(t->pr, v, t->dev, t->ndev);
	for (int32_t k = 0; k < t->ndev && tested < t->max_test; k++) {
		const struct job *j = &v->jobs[t->dev[k]];
		if (j->state != JOB_PENDING)
			continue;
		int held = quota_hold(t, v, out, j);
		if (held < 0)
			return -1;
		if (held)
			continue;
		if (t->dev_max_milli >= 0 && dev_used(t, j->tenant) + job_milli(&j->req) > t->dev_max_milli) {
			quota_wait(t, v, j);
			continue;
		}
		tested++;
		if (backfill_one(t, v, out, j) < 0)
			return -1;
	}
	return 0;
}

/* Sorts the pending jobs into the tiers; holds the dev jobs that can never
 * run under the dev limits. */
static int classify(struct tiered *t, const struct view *v, struct decide *out)
{
	t->ninf = t->noff = t->ndev = 0;
	for (int32_t k = 0; k < v->npending; k++) {
		const struct job *j = &v->jobs[v->pending[k]];
		if (j->state != JOB_PENDING)
			continue;
		if (j->cls == JOB_INFERENCE) {
			t->inf[t->ninf++] = j->id;
		} else if (j->cls != JOB_DEV) {
			t->offl[t->noff++] = j->id;
		} else if (t->dev_max_runtime_us != SIMTIME_INF &&
		           (j->walltime_us == SIMTIME_INF || j->walltime_us > t->dev_max_runtime_us)) {
			if (decide_hold(out, j->id, "dev-runtime"))
				return -1;
		} else if (t->dev_max_milli >= 0 && job_milli(&j->req) > t->dev_max_milli) {
			if (decide_hold(out, j->id, "dev-gpus"))
				return -1;
		} else {
			t->dev[t->ndev++] = j->id;
		}
	}
	prio_sort(t->pr, v, t->inf, t->ninf);
	return 0;
}

static void tiered_schedule(void *state, const struct view *v, struct decide *out)
{
	struct tiered *t = state;
	const struct cluster *cl = v->cl;
	t->pass++;
	t->masked = false;
	prio_update(t->pr, v);
	placer_sync(&t->pl, v);
	if (t->quotas) {
		quota_refresh(t, v);
		if (quota_release(t, v, out))
			return;
	}
	plans_refresh(t, v);
	for (int32_t k = 0; k < t->nbound; k++)
		node_states(t, cl, t->bound_list[k]);
	/* Cards of reserved models that inference uses (a shared card once). */
	for (int r = 0; r < t->nres; r++)
		t->inf_used[r] = 0;
	if (t->nres > 0) {
		memset(t->infmask, 0, (size_t)cl->nnodes * sizeof *t->infmask);
		for (int32_t k = 0; k < v->nrunning; k++) {
			const struct job *j = &v->jobs[v->running[k]];
			for (int i = 0; j->cls == JOB_INFERENCE && i < j->nparts; i++) {
				const struct alloc_part *p = &v->parts[j->parts + (uint32_t)i];
				t->infmask[p->node] |= p->gpus;
			}
		}
		for (int32_t i = 0; i < cl->nnodes; i++) {
			int r = rsv_of(t, cl, i);
			if (r >= 0)
				t->inf_used[r] += hl_popcount64(t->infmask[i]);
		}
	}
	dev_prepare(t, v);
	if (classify(t, v, out) || inference_pass(t, v, out))
		return;
	offline_pass(t, v, out);
}

/* ---- set-up ---- */

static void tiered_fini(void *state);

static int tiered_init(void **state, const struct policy_env *env, const struct policy_cfg *cfg,
                       char *err, size_t errlen)
{
	const struct cluster *cl = env->cl;
	const struct tiered_cfg *tc = env->tiered;
	struct tiered_cfg dflt = { .victim_order = { JOB_DEV, JOB_BATCH, JOB_TRAINING }, .nvictim = 3,
	                           .dev_max_gpus = -1, .dev_max_runtime_us = SIMTIME_INF };
	if (!tc)
		tc = &dflt;
	if (tc->nnames > 0 && tc->nnodes == 0) {
		snprintf(err, errlen, "tiered: the bound node names were not resolved (tiered_bind)");
		return -1;
	}
	struct tiered *t = calloc(1, sizeof *t);
	if (!t)
		goto nomem;
	size_t nn = (size_t)cl->nnodes + 1, nj = (size_t)env->njobs + 1;
	if (placer_init(&t->pl, env->placement, env->label_blind, env->seed, cl, env->njobs, err, errlen)) {
		tiered_fini(t);
		return -1;
	}
	struct prio_weights w = {
		.age = cfg->v[P_W_AGE], .fairshare = cfg->v[P_W_FAIRSHARE], .jobsize = cfg->v[P_W_JOBSIZE],
		.qos = cfg->v[P_W_QOS], .max_age_us = simtime_from_s(cfg->v[P_MAX_AGE_DAYS] * 86400.0),
		.fair_tree = cfg->v[P_FAIR_TREE] != 0, .favor_small = cfg->v[P_FAVOR_SMALL] != 0,
		.qos_by_class = { [JOB_TRAINING] = cfg->v[P_QOS_TRAINING], [JOB_INFERENCE] = cfg->v[P_QOS_INFERENCE],
		                  [JOB_BATCH] = cfg->v[P_QOS_BATCH], [JOB_DEV] = cfg->v[P_QOS_DEV] },
	};
	if (prio_init(&t->pr, env, &w, err, errlen)) {
		tiered_fini(t);
		return -1;
	}
	t->org = env->org;
	t->nnodes = cl->nnodes;
	t->njobs = env->njobs;
	t->max_test = (int32_t)cfg->v[P_BF_MAX_JOB_TEST];
	t->exempt_us = simtime_from_s(cfg->v[P_PREEMPT_EXEMPT_S]);
	t->preempt = cfg->v[P_PREEMPT] != 0;
	memset(t->vrank, -1, sizeof t->vrank);
	for (int k = 0; k < tc->nvictim; k++)
		if (tc->victim_order[k] < JOB_NCLASS && tc->victim_order[k] != JOB_INFERENCE)
			t->vrank[tc->victim_order[k]] = (int8_t)k;
	t->dev_max_milli = tc->dev_max_gpus < 0 ? -1 : tc->dev_max_gpus * HL_MILLI;
	t->dev_max_runtime_us = tc->dev_max_runtime_us;
	memset(t->rof, -1, sizeof t->rof);
	for (int r = 0; r < tc->nreserve && r < TIERED_MAX_RESERVE; r++) {
		int32_t m = tc->reserve[r].gpu_model;
		if (m < 0 || m >= MAX_MODELS || t->rof[m] >= 0)
			continue;
		t->rof[m] = (int8_t)t->nres;
		t->rmodel[t->nres] = m;
		t->rgpus[t->nres++] = tc->reserve[r].gpus;
	}
	for (int32_t i = 0; i < cl->nnodes; i++)
		if (cl->nodes[i].gpu_model >= 0 && cl->nodes[i].gpu_model < MAX_MODELS)
			t->models_present |= 1ull << cl->nodes[i].gpu_model;
	for (int m = 0; m < MAX_MODELS; m++) {
		t->wmodel[m] = model_weight(env->org, m);
		if (((t->models_present >> m) & 1u) && (t->wmin_any == 0 || t->wmodel[m] < t->wmin_any))
			t->wmin_any = t->wmodel[m];
	}
	if (t->wmin_any == 0)
		t->wmin_any = 1.0;
	t->cap_plans = 1024;
	t->bound = calloc(nn, 1);
	t->bound_list = calloc(nn, sizeof *t->bound_list);
	t->parts = calloc(nn, sizeof *t->parts);
	t->head = calloc(nn, sizeof *t->head);
	t->need = calloc(nn, sizeof *t->need);
	t->avail = calloc(nn, sizeof *t->avail);
	t->bst = calloc(nn, sizeof *t->bst);
	t->off = calloc(nn, sizeof *t->off);
	t->sraw = calloc(nn, sizeof *t->sraw);
	t->shadow = calloc(nn, sizeof *t->shadow);
	t->extra = calloc(nn, sizeof *t->extra);
	t->scr = calloc(nn, sizeof *t->scr);
	t->hid = calloc(nn, sizeof *t->hid);
	t->infmask = calloc(nn, sizeof *t->infmask);
	t->owner = malloc(nn * sizeof *t->owner);
	t->suit = calloc(nn, 1);
	t->inf = calloc(nj, sizeof *t->inf);
	t->offl = calloc(nj, sizeof *t->offl);
	t->dev = calloc(nj, sizeof *t->dev);
	t->ids = calloc(nj, sizeof *t->ids);
	t->chosen = calloc(nj, sizeof *t->chosen);
	t->cand = calloc(nj, sizeof *t->cand);
	t->plans = calloc((size_t)t->cap_plans, sizeof *t->plans);
	t->pv = calloc(nj, sizeof *t->pv);
	t->plan_of = malloc(nj * sizeof *t->plan_of);
	t->wt = malloc(nj * sizeof *t->wt);
	t->held = calloc(nj, sizeof *t->held);
	t->devrun = calloc(nj, sizeof *t->devrun);
	t->devnew = calloc(nj, sizeof *t->devnew);
	if (!t->bound || !t->bound_list || !t->parts || !t->head || !t->need || !t->avail || !t->bst ||
	    !t->off || !t->sraw || !t->shadow || !t->extra || !t->scr || !t->hid || !t->infmask || !t->owner || !t->suit ||
	    !t->inf || !t->offl || !t->dev || !t->ids || !t->chosen || !t->cand || !t->plans || !t->pv ||
	    !t->plan_of || !t->wt || !t->held || !t->devrun || !t->devnew)
		goto nomem_t;
	for (int32_t i = 0; i < cl->nnodes; i++)
		t->owner[i] = -1;
	for (size_t i = 0; i < nj; i++) {
		t->plan_of[i] = -1;
		t->wt[i] = 1.0;
	}
	for (int32_t k = 0; k < tc->nnodes; k++) {
		int32_t i = tc->nodes[k];
		if (i < 0 || i >= cl->nnodes) {
			snprintf(err, errlen, "tiered: bound node %d is not in the cluster", (int)i);
			tiered_fini(t);
			return -1;
		}
		if (!t->bound[i])
			t->bound_list[t->nbound++] = i;
		t->bound[i] = 1;
	}
	if (t->nbound > 0 || t->nres > 0) {
		/* At init nothing runs: the free state is the whole cluster. */
		if (!(t->empty = malloc(nn * sizeof *t->empty)))
			goto nomem_t;
		for (int32_t i = 0; i < cl->nnodes; i++)
			t->empty[i] = t->bound[i] ? nf_zero : cl->free[i];
		hide(t, cl, t->empty, t->rgpus, NULL);
	}
	const struct org *o = env->org;
	for (int32_t i = 0; o && i < o->nt; i++)
		t->quotas |= o->t[i].quota.gpu_hours > 0 || o->t[i].quota.core_hours > 0 ||
		             o->t[i].quota.storage_gib > 0 || o->t[i].quota.bw_mbps > 0;
	for (int32_t i = 0; o && i < o->np; i++)
		t->quotas |= o->p[i].quota.gpu_hours > 0 || o->p[i].quota.core_hours > 0 ||
		             o->p[i].quota.storage_gib > 0 || o->p[i].quota.bw_mbps > 0;
	if (t->quotas) {
		t->nqe = o->nt + o->np;
		t->qe = calloc((size_t)t->nqe, sizeof *t->qe);
		t->log = calloc(nj, sizeof *t->log);
		if (!t->qe || !t->log)
			goto nomem_t;
		for (int32_t e = 0; e < t->nqe; e++) {
			t->qe[e].q = e < o->nt ? &o->t[e].quota : &o->p[e - o->nt].quota;
			t->qe[e].head = t->qe[e].tail = -1;
		}
	}
	*state = t;
	return 0;
nomem_t:
	tiered_fini(t);
nomem:
	snprintf(err, errlen, "tiered: out of memory");
	return -1;
}

static void tiered_fini(void *state)
{
	struct tiered *t = state;
	placer_fini(&t->pl);
	if (t->pr)
		prio_fini(t->pr);
	void *arrays[] = { t->bound, t->bound_list, t->parts, t->head, t->need, t->avail, t->bst, t->off,
	                   t->sraw, t->shadow, t->extra, t->scr, t->hid, t->infmask, t->owner, t->suit, t->inf, t->offl,
	                   t->dev, t->ids, t->chosen, t->cand, t->plans, t->pv, t->plan_of, t->wt, t->held,
	                   t->devrun, t->devnew, t->qe, t->log, t->empty };
	for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
		free(arrays[k]);
	free(t);
}

static void tiered_submit(void *state, const struct view *v, int32_t job)
{
	struct tiered *t = state;
	placer_submit(&t->pl, &v->jobs[job]);
}

const struct policy_ops policy_tiered = {
	.name = "tiered",
	.summary = "inference first with reserved capacity and preemption, offline fair-share with backfill, dev idle fill, quotas",
	.params = tiered_params,
	.init = tiered_init,
	.fini = tiered_fini,
	.submit = tiered_submit,
	.finish = tiered_finish,
	.schedule = tiered_schedule,
};
