/* tiered_int — what the files of the tiered policy share (tiered.c: the
 * pass, the tiers and set-up; tiered_quota.c: quotas; tiered_preempt.c:
 * preemption plans): the policy's state, struct tiered, the small helpers
 * they all read (static inline, so that the pass keeps them inlined), and
 * the entry points of the quota and preemption files. Internal to
 * policies/tiered*.c: nothing else includes it (the policy's interface is
 * policies/tiered.h and policies/policy.h).
 *
 * The calls go one way: tiered.c calls into tiered_quota.c and
 * tiered_preempt.c, which call only these helpers and the layers below
 * (placement, prio, the view). */
#ifndef HL_TIERED_INT_H
#define HL_TIERED_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "policies/placement.h"
#include "policies/policy.h"
#include "policies/prio.h"
#include "policies/tiered.h"
#include "sim/org.h"

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
	bool cached;                     /* the reservation, reused while head and key hold */
	int32_t cached_head, cached_np;
	uint64_t cached_key;             /* reserve_key: epoch and nodes out of service or blocked */
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
	/* notes (decide_note; set and read only while someone listens) */
	int32_t nahead;                  /* offline jobs passed over so far in the pass */
	const char *nopre;               /* why tiered_preempt_for found no victims */
};

static const struct nodefree nf_zero;

static inline int64_t job_milli(const struct job_req *r)
{
	if (r->gpu_milli > 0)
		return r->gpu_milli;
	if (r->mig_g > 0)
		return (r->mig_g * HL_MILLI + 6) / 7;
	return job_req_gpus(r) * HL_MILLI;
}

static inline double model_weight(const struct org *o, int32_t m)
{
	if (o && o->gpu_weight && m >= 0 && m < o->ngpu_weight && o->gpu_weight[m] > 0)
		return o->gpu_weight[m];
	return 1.0;
}

/* The least billing weight among the GPU models the job may run on. */
static inline double job_wmin(const struct tiered *t, const struct job *j)
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
static inline simtime lost_us(const struct job *j, simtime now)
{
	simtime ran = now > j->start_us ? now - j->start_us : 0;
	return j->ckpt_every_us > 0 ? ran % j->ckpt_every_us : ran;
}

static inline simtime estimate_us(const struct job *j)
{
	return j->walltime_us == SIMTIME_INF ? SIMTIME_HOUR : j->walltime_us;
}

static inline int rsv_of(const struct tiered *t, const struct cluster *cl, int32_t node)
{
	int32_t m = cl->nodes[node].gpu_model;
	return m >= 0 && m < MAX_MODELS && !t->bound[node] ? t->rof[m] : -1;
}

/* Refreshes node i's derived states from the live free state. */
static inline void node_states(struct tiered *t, const struct cluster *cl, int32_t i)
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
static inline void masked_copy(const struct tiered *t, const struct cluster *cl, struct nodefree *f, int32_t keep)
{
	memcpy(f, cl->free, (size_t)cl->nnodes * sizeof *f);
	if (t->owned_any)
		for (int32_t i = 0; i < cl->nnodes; i++)
			if (t->owner[i] >= 0 && t->owner[i] != keep)
				f[i] = nf_zero;
}

/* ---- quotas (tiered_quota.c) ---- */

/* At init: quotas on when a tenant or project of o has one, and then their
 * sums and the log of ended jobs (room for nj). 0, or -1 out of memory. */
int tiered_quota_init(struct tiered *t, const struct org *o, size_t nj);
/* At the pass start: what runs and what requeued jobs ran, per tenant and
 * project (and, while jobs are held for quota, what waits). */
void tiered_quota_refresh(struct tiered *t, const struct view *v);
/* Quota-held jobs back under their quotas go back to the queue. 0, or -1
 * on a rejected decision. */
int tiered_quota_release(struct tiered *t, const struct view *v, struct decide *out);
/* Holds pending job j for quota when it is over: 1 held, 0 not, -1 error. */
int tiered_quota_hold(struct tiered *t, const struct view *v, struct decide *out, const struct job *j);
/* Pending job j had its turn and did not start: later jobs of its tenant
 * and project count its estimate. */
void tiered_quota_wait(struct tiered *t, const struct view *v, const struct job *j);
/* A job started in this pass: its estimate counts against its quotas. */
/* tiered_snap.c: policy_ops.save / load. */
int tiered_snap_save(void *state, const struct view *v, struct snapw *w);
int tiered_snap_load(void *state, const struct view *v, struct snapr *r);
void tiered_commit_start(struct tiered *t, const struct job *j, simtime now);
/* The policy's finish hook: an ended job's usage goes into the log. */
void tiered_quota_finish(void *state, const struct view *v, int32_t id);

/* ---- preemption (tiered_preempt.c) ---- */

/* Recomputes the open plans and lets each claim the nodes its job would
 * start on once its victims are gone (owner[], avail). */
void tiered_plans_refresh(struct tiered *t, const struct view *v);
/* sim_compact's renumbering of the plans and their victims, and of the
 * quota log (entries no window holds are dropped). */
void tiered_plans_renumber(struct tiered *t, const int32_t *map, int32_t nold);
void tiered_quota_compact(struct tiered *t);
/* Drops plan k (its job started, or it gives up): its claims go back. */
void tiered_plan_drop(struct tiered *t, const struct cluster *cl, int32_t k);
/* Inference job j does not fit: signals the fewest victims that let it
 * fit and opens a plan. 0 (also when none would do), -1 on a rejected
 * decision. */
int tiered_preempt_for(struct tiered *t, const struct view *v, struct decide *out, const struct job *j);
/* No victim could be taken: a pass when the first exemption runs out.
 * 0, or -1 on a rejected decision. */
int tiered_wake_at_exemption(struct tiered *t, const struct view *v, struct decide *out);

/* ---- why a job waits (tiered_why.c, tiered_quota.c; only while
 * decide_noting(out)) ---- */

/* Over which quota job j is (held with `release`: after every waiting job
 * of its tenant), in words: "held for the GPU-hour quota of tenant T: ...". */
void tiered_quota_note(struct tiered *t, const struct view *v, struct decide *out, const struct job *j, bool release);
/* What the offline state (or, for inference, the live one) lacks for j;
 * 1 when it fits there (the placer or the rules said no). */
int tiered_why_fit(const struct tiered *t, const struct view *v, const struct job *j, bool offline, char *buf,
                   size_t len);
/* An inference job that did not start: its plan's victims still stopping
 * (plan >= 0), a plan just opened (opened), else why no preemption. */
void tiered_note_inference(struct tiered *t, const struct view *v, struct decide *out, const struct job *j,
                           int32_t plan, bool opened);
/* An offline or dev job that did not start: head (the first offline job
 * that does not fit; resv: it got a reservation), or a backfill candidate
 * behind the head's reservation, or a dev job without one. */
void tiered_note_offline(struct tiered *t, const struct view *v, struct decide *out, const struct job *j, bool head,
                         bool resv);
/* A dev job over its tenant's dev GPU cap (its dev jobs hold `used` milli-GPUs). */
void tiered_note_devcap(const struct tiered *t, struct decide *out, const struct job *j, int64_t used);
/* Jobs the pass did not get to: offline ones from `first` on in the
 * priority order (bf_max_job_test; -1 none), and dev ones from t->dev[dev_from]
 * (no idle fill when the offline queue was cut short). */
void tiered_note_untried(struct tiered *t, const struct view *v, struct decide *out, int32_t first, int32_t dev_from);

#endif
