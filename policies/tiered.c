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
 *     claimed; when it does not fit, a preemption (tiered_preempt_for);
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
 * its reserved count of free whole cards.
 *
 * This file owns the pass, the tiers (inference, offline with its
 * reservation and backfill, dev with its cap) and set-up; quotas are
 * policies/tiered_quota.c, preemption plans policies/tiered_preempt.c,
 * and the state they share is policies/tiered_int.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/tiered_int.h"
#include "sim/power.h"

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
		tiered_commit_start(t, j, v->now);
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

/* ---- the tiers ---- */

static int inference_pass(struct tiered *t, const struct view *v, struct decide *out)
{
	const struct cluster *cl = v->cl;
	for (int32_t k = 0; k < t->ninf; k++) {
		const struct job *j = &v->jobs[t->inf[k]];
		if (j->state != JOB_PENDING)
			continue;
		int held = tiered_quota_hold(t, v, out, j);
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
				tiered_plan_drop(t, cl, pk);
			continue;
		}
		tiered_quota_wait(t, v, j);
		if (pk >= 0 && !t->plans[pk].done) {
			if (decide_noting(out))
				tiered_note_inference(t, v, out, j, pk, false);
			continue;   /* its victims are still stopping */
		}
		if (pk >= 0)
			tiered_plan_drop(t, cl, pk);
		int32_t plans = t->nplans;
		if (t->preempt && tiered_preempt_for(t, v, out, j))
			return -1;
		if (decide_noting(out))
			tiered_note_inference(t, v, out, j, t->nplans > plans ? t->nplans - 1 : -1, true);
		if (t->preempt && t->nplans == plans && tiered_wake_at_exemption(t, v, out))
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

/* What a reservation was computed from: the allocation epoch (no job
 * started or ended since) mixed with the nodes out of service or blocked
 * by power (a hot node, a rack in warning), which placement skips. A
 * reservation made while a node was down or its rack in warning (none at
 * all, or one on other nodes) is made again when that changes. */
static uint64_t reserve_key(const struct view *v)
{
	const struct cluster *cl = v->cl;
	uint64_t h = v->alloc_epoch * 0x9e3779b97f4a7c15ull;
	for (int32_t i = 0; i < cl->nnodes; i++)
		if (cl->svc[i] != NODE_UP || (cl->pw && power_node_blocked(cl, i)))
			h = (h ^ (uint64_t)(i + 1) ^ ((uint64_t)cl->svc[i] << 32)) * 0x100000001b3ull;
	return h;
}

/* The head's reservation and the extra state around it. */
static int reserve(struct tiered *t, const struct view *v, const struct job *head)
{
	const struct cluster *cl = v->cl;
	int np;
	uint64_t key = reserve_key(v);
	if (!t->owned_any && t->cached && t->cached_head == head->id && t->cached_key == key) {
		t->shadow_t = t->cached_shadow;
		np = t->cached_np;
	} else {
		t->shadow_t = SIMTIME_INF;
		np = find_shadow(t, v, head, &t->shadow_t);
		t->cached = !t->owned_any;
		t->cached_head = head->id;
		t->cached_key = key;
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
		tiered_quota_wait(t, v, j);
		if (decide_noting(out))
			tiered_note_offline(t, v, out, j, false, false);
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
		tiered_quota_wait(t, v, j);
		if (decide_noting(out))
			tiered_note_offline(t, v, out, j, false, false);
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
	int32_t tested = 0, first_untried = -1;
	bool truncated = false;
	t->nahead = 0;
	/* A heap order: a pass keys every offline job but sorts only those it
	 * looks at (multifactor does the same). */
	prio_order_start(t->pr, v, t->offl, t->noff);
	for (int32_t id; !truncated && (id = prio_order_next(t->pr)) >= 0;) {
		const struct job *j = &v->jobs[id];
		if (j->state != JOB_PENDING)
			continue;
		int held = tiered_quota_hold(t, v, out, j);
		if (held < 0)
			return -1;
		if (held)
			continue;
		if (!t->have_head) {
			int n = place_aggregate_ok(cl, cl->free_cores, cl->free_gpus, &j->req)
			        ? place_offline(t, v, j, t->F) : 0;
			if (n && start_job(t, v, out, j, n))
				return -1;
			int np = 0;
			if (n || (np = reserve(t, v, j)) > 0 || !t->empty ||
			    place_first_fit_ex(cl, t->empty, &j->req, t->parts, FIT_ANY_STATE) > 0) {
				if (!n)
					tiered_quota_wait(t, v, j);
				if (!n && decide_noting(out)) {
					tiered_note_offline(t, v, out, j, true, np > 0);
					t->nahead++;
				}
				continue;
			}
			/* It never fits: not even the empty cluster less the bound
			 * nodes and the reserved GPUs would take it, with every node
			 * in service and unblocked. (Judged on the nodes' state of
			 * now, a gang that a drained node or a rack in warning leaves
			 * no room for would be held for ever: nothing releases a
			 * reserve hold. It waits instead, holding no reservation,
			 * and is tried again at every pass.) */
			t->have_head = false;
			if (decide_noting(out)) {
				char req[256];
				cluster_req_text(cl, &j->req, req, sizeof req);
				decide_note(out, j->id, "held: %s never fits, not even on the empty cluster less the nodes "
				            "bound to inference and the GPUs reserved for it", req);
			}
			if (decide_hold(out, j->id, "reserve"))
				return -1;
			continue;
		}
		if (tested >= t->max_test) {
			truncated = true;
			first_untried = id;
			break;
		}
		tested++;
		int b = backfill_one(t, v, out, j);
		if (b < 0)
			return -1;
		t->nahead += b == 0;
	}
	if (truncated) {
		if (decide_noting(out))
			tiered_note_untried(t, v, out, first_untried, 0);
		return 0;   /* an offline job not tried might fit: no idle fill */
	}
	prio_sort(t->pr, v, t->dev, t->ndev);
	int32_t k = 0;
	for (; k < t->ndev && tested < t->max_test; k++) {
		const struct job *j = &v->jobs[t->dev[k]];
		if (j->state != JOB_PENDING)
			continue;
		int held = tiered_quota_hold(t, v, out, j);
		if (held < 0)
			return -1;
		if (held)
			continue;
		if (t->dev_max_milli >= 0 && dev_used(t, j->tenant) + job_milli(&j->req) > t->dev_max_milli) {
			tiered_quota_wait(t, v, j);
			if (decide_noting(out))
				tiered_note_devcap(t, out, j, dev_used(t, j->tenant));
			continue;
		}
		tested++;
		if (backfill_one(t, v, out, j) < 0)
			return -1;
	}
	if (k < t->ndev && decide_noting(out))
		tiered_note_untried(t, v, out, -1, k);
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
			if (decide_noting(out))
				decide_note(out, j->id, "held: a dev job's time limit may be at most %.0f s (dev max runtime); "
				            "it asks %.0f s%s", simtime_to_s(t->dev_max_runtime_us),
				            j->walltime_us == SIMTIME_INF ? 0.0 : simtime_to_s(j->walltime_us),
				            j->walltime_us == SIMTIME_INF ? " (none given)" : "");
			if (decide_hold(out, j->id, "dev-runtime"))
				return -1;
		} else if (t->dev_max_milli >= 0 && job_milli(&j->req) > t->dev_max_milli) {
			if (decide_noting(out))
				decide_note(out, j->id, "held: it asks %.2f GPUs, over the dev GPU cap of %.2f a tenant",
				            job_milli(&j->req) / (double)HL_MILLI, t->dev_max_milli / (double)HL_MILLI);
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
		tiered_quota_refresh(t, v);
		if (tiered_quota_release(t, v, out))
			return;
	}
	tiered_plans_refresh(t, v);
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
	if (tiered_quota_init(t, env->org, nj))
		goto nomem_t;
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

/* Finished jobs leave the engine's table (sim_compact): what the policy
 * keeps by job id moves with them (per-job weights and plans, the quota
 * holds, the preemption plans, the priorities, the cached reservation's
 * head), and the quota log drops what no window holds. */
static int tiered_renumber(void *state, const struct view *v, const int32_t *map, int32_t nold, int32_t nnew)
{
	struct tiered *t = state;
	int32_t lim = nold < t->njobs ? nold : t->njobs;
	for (int32_t old = 0; old < lim; old++) {
		int32_t to = map[old];
		if (to >= 0 && to != old) {
			t->wt[to] = t->wt[old];
			t->plan_of[to] = t->plan_of[old];
		}
	}
	for (int32_t i = nnew; i < lim; i++) {
		t->wt[i] = 1.0;
		t->plan_of[i] = -1;
	}
	int32_t w = 0;
	for (int32_t k = 0; k < t->nheld; k++)
		if (t->held[k] < nold && map[t->held[k]] >= 0)
			t->held[w++] = map[t->held[k]];
	t->nheld = w;
	t->cached_head = t->cached_head >= 0 && t->cached_head < nold ? map[t->cached_head] : -1;
	t->cached = t->cached && t->cached_head >= 0;
	tiered_plans_renumber(t, map, nold);
	tiered_quota_compact(t);
	return prio_renumber(t->pr, v, map, nold, nnew);
}

const struct policy_ops policy_tiered = {
	.name = "tiered",
	.summary = "inference first with reserved capacity and preemption, offline fair-share with backfill, dev idle fill, quotas",
	.params = tiered_params,
	.init = tiered_init,
	.fini = tiered_fini,
	.submit = tiered_submit,
	.finish = tiered_quota_finish,
	.schedule = tiered_schedule,
	.renumber = tiered_renumber,
	.save = tiered_snap_save,
	.load = tiered_snap_load,
};
