/* prioeasy — jobs in the order of the multifactor priority (prio.h) with
 * EASY backfill: the engine of the fairshare policy (policies/fairshare.c),
 * not a policy of its own. Slurm's scheduler itself is the slurm policy
 * (policies/slurm.h).
 *
 * Each pass brings the fair-share usage up to now (prio_update) and takes
 * the pending jobs in priority order (prio.h: weighted age, fair share,
 * job size, QOS and partition factors; ties by submit time, then id). The
 * order is a heap, so a pass keys every pending job but sorts only the
 * jobs it looks at.
 *
 * In order, jobs start while they fit now (placed by the placer). The
 * first that does not fit is the head candidate: it gets a reservation at
 * the earliest time, by the running jobs' estimates, at which a first-fit
 * placement exists (the shadow time) — unless that time lies beyond
 * bf_window, or it never fits: then it gets none, does not block, and the
 * next job that does not fit is the next candidate (at most
 * MF_RESV_TRIES a pass). Once a head holds a reservation, up to
 * bf_max_job_test jobs (counted from the first that did not fit) are
 * tried for backfill as in EASY (policies/easy.c, node level): a job
 * may use anything free when it ends by the shadow time, else only the
 * extra state X = min(F, S − R) that the head's reservation leaves.
 *
 * Reservations per device pool: the shadow time is found on the nodes
 * that suit the head (cluster_node_suits), only those nodes are checked
 * as running jobs are released, and the reservation withholds resources
 * only there — jobs for other GPU models or pools backfill freely.
 *
 * Shortcuts that never change which jobs start: a request no smaller, in
 * every dimension and with the same constraints, than one that already
 * failed on the same free state in this pass (live, or extra) is not
 * placed again — the free states only shrink during a pass; the running
 * jobs' order by expected end is kept while the allocation epoch is
 * unchanged, jobs started since merged into it. */
#include "policies/placement.h"
#include "policies/policy.h"
#include "policies/prio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MF_MEMO 16          /* failed requests remembered per free state */
#define MF_RESV_TRIES 16    /* reservations computed per pass at most */
#define PLACE_GROUPS_MAX 4096   /* as place_first_fit (policies/place.c) */

enum {
	P_W_AGE, P_W_FS, P_W_SIZE, P_W_QOS, P_W_PART, P_MAX_AGE, P_FAIR_TREE, P_FAVOR_SMALL,
	P_MAX_JOB_TEST, P_WINDOW, P_QOS_TRAIN, P_QOS_INFER, P_QOS_BATCH, P_QOS_DEV,
};

static const struct policy_param mf_params[] = {
	[P_W_AGE] = { "weight_age", 1000, 0, 1e9, "weight of the age factor (Slurm PriorityWeightAge)" },
	[P_W_FS] = { "weight_fairshare", 10000, 0, 1e9,
	             "weight of the fair-share factor (Slurm PriorityWeightFairshare)" },
	[P_W_SIZE] = { "weight_jobsize", 0, 0, 1e9, "weight of the job size factor (Slurm PriorityWeightJobSize)" },
	[P_W_QOS] = { "weight_qos", 0, 0, 1e9, "weight of the QOS factor, by class (Slurm PriorityWeightQOS)" },
	[P_W_PART] = { "weight_partition", 0, 0, 1e9,
	               "weight of the partition factor, 1 here: one partition (Slurm PriorityWeightPartition)" },
	[P_MAX_AGE] = { "max_age_days", 7, 1e-6, 1e5, "age at which the age factor reaches 1 (Slurm PriorityMaxAge)" },
	[P_FAIR_TREE] = { "fair_tree", 0, 0, 1, "1: fair-share factor by Slurm's Fair Tree rank; 0: classic 2^(-U/S)" },
	[P_FAVOR_SMALL] = { "favor_small", 0, 0, 1, "1: small jobs get the high job size factor (Slurm PriorityFavorSmall)" },
	[P_MAX_JOB_TEST] = { "bf_max_job_test", 500, 1, 1e9,
	                     "jobs, from the first that does not fit, tried per pass (Slurm bf_max_job_test)" },
	[P_WINDOW] = { "bf_window", 1440, 1, 1e9,
	               "minutes ahead a reservation may start; a head beyond gets none (Slurm bf_window)" },
	[P_QOS_TRAIN] = { "qos_training", 0.5, 0, 1, "QOS factor of training jobs" },
	[P_QOS_INFER] = { "qos_inference", 1, 0, 1, "QOS factor of inference jobs" },
	[P_QOS_BATCH] = { "qos_batch", 0.5, 0, 1, "QOS factor of batch jobs" },
	[P_QOS_DEV] = { "qos_dev", 0, 0, 1, "QOS factor of dev jobs" },
	{ NULL, 0, 0, 0, NULL },
};

/* Requests that failed on one free state in this pass. */
struct memo {
	struct job_req r[MF_MEMO];
	int n, next;
};

struct mf {
	struct prio *prio;
	struct placer pl;
	int32_t max_test;
	simtime window_us;
	int32_t nnodes, njobs;
	struct alloc_part *parts, *head;
	int nhead;
	struct nodefree *shadow, *extra;
	struct alloc_part *need;    /* per node: the head's reserved part (zero elsewhere) */
	uint8_t *suit, *fit;        /* per node: suits the head; fits it in the shadow state */
	int32_t *gcnt;              /* per (GPU model, plane) group: nodes that fit the head */
	int32_t ngroups;
	int64_t extra_cores, extra_gpus;
	/* running jobs by expected end, kept while the allocation epoch is
	 * unchanged; late: jobs started since, merged in when used */
	int32_t *ord, nord;
	int32_t *late, nlate;
	uint64_t ord_epoch;
	bool ord_valid;
	struct memo fail_now, fail_extra, no_resv;
};

static void mf_fini(void *state);

static int mf_init(void **state, const struct policy_env *env, const struct policy_cfg *cfg,
                   char *err, size_t errlen)
{
	const struct cluster *cl = env->cl;
	size_t n = (size_t)cl->nnodes + 1, nj = (size_t)(env->njobs > 0 ? env->njobs : 0) + 1;
	struct mf *p = calloc(1, sizeof *p);
	if (!p)
		return -1;
	struct prio_weights w = {
		.age = cfg->v[P_W_AGE], .fairshare = cfg->v[P_W_FS], .jobsize = cfg->v[P_W_SIZE],
		.qos = cfg->v[P_W_QOS], .partition = cfg->v[P_W_PART], .nice = 0,
		.max_age_us = simtime_from_s(cfg->v[P_MAX_AGE] * 86400),
		.fair_tree = cfg->v[P_FAIR_TREE] >= 0.5, .favor_small = cfg->v[P_FAVOR_SMALL] >= 0.5,
		.qos_by_class = { [JOB_TRAINING] = cfg->v[P_QOS_TRAIN], [JOB_INFERENCE] = cfg->v[P_QOS_INFER],
		                  [JOB_BATCH] = cfg->v[P_QOS_BATCH], [JOB_DEV] = cfg->v[P_QOS_DEV] },
		.partition_by_class = { 1, 1, 1, 1 },
	};
	if (prio_init(&p->prio, env, &w, err, errlen) ||
	    placer_init(&p->pl, env->placement, env->label_blind, env->seed, cl, env->njobs, err, errlen)) {
		mf_fini(p);
		return -1;
	}
	p->max_test = (int32_t)cfg->v[P_MAX_JOB_TEST];
	p->window_us = simtime_from_s(cfg->v[P_WINDOW] * 60);
	p->nnodes = cl->nnodes;
	p->njobs = (int32_t)nj;
	p->ngroups = (cl->cat.ngpus + 1) * (cl->nplanes + 1);
	if (p->ngroups < cl->cat.ngpus + 2)
		p->ngroups = cl->cat.ngpus + 2;
	p->parts = calloc(n, sizeof *p->parts);
	p->head = calloc(n, sizeof *p->head);
	p->shadow = calloc(n, sizeof *p->shadow);
	p->extra = calloc(n, sizeof *p->extra);
	p->need = calloc(n, sizeof *p->need);
	p->suit = calloc(n, 1);
	p->fit = calloc(n, 1);
	p->gcnt = calloc((size_t)p->ngroups, sizeof *p->gcnt);
	p->ord = calloc(nj, sizeof *p->ord);
	p->late = calloc(nj, sizeof *p->late);
	if (!p->parts || !p->head || !p->shadow || !p->extra || !p->need || !p->suit || !p->fit ||
	    !p->gcnt || !p->ord || !p->late) {
		mf_fini(p);
		return -1;
	}
	*state = p;
	return 0;
}

static void mf_fini(void *state)
{
	struct mf *p = state;
	prio_fini(p->prio);
	placer_fini(&p->pl);
	free(p->parts);
	free(p->head);
	free(p->shadow);
	free(p->extra);
	free(p->need);
	free(p->suit);
	free(p->fit);
	free(p->gcnt);
	free(p->ord);
	free(p->late);
	free(p);
}

static void mf_submit(void *state, const struct view *v, int32_t job)
{
	struct mf *p = state;
	placer_submit(&p->pl, &v->jobs[job]);
}

/* ---- failed requests ---- */

/* Is r at least as hard to place as f: the same constraints, and no
 * smaller in any amount? (Then r fails wherever f failed.) */
static bool no_smaller(const struct job_req *r, const struct job_req *f)
{
	if ((r->nodes == 0) != (f->nodes == 0) || r->gpu_models != f->gpu_models ||
	    r->sel_req != f->sel_req || r->plane != f->plane || r->pool != f->pool ||
	    r->flags != f->flags || r->cls != f->cls || r->mig_g != f->mig_g ||
	    (r->gpu_milli > 0) != (f->gpu_milli > 0))
		return false;
	return r->nodes >= f->nodes && r->cores >= f->cores && r->gpus >= f->gpus &&
	       r->gpu_milli >= f->gpu_milli && r->mem_mib >= f->mem_mib &&
	       r->gpu_mem_mib >= f->gpu_mem_mib && r->io_mbps >= f->io_mbps &&
	       r->storage_gib >= f->storage_gib;
}

static bool memo_hit(const struct memo *m, const struct job_req *r)
{
	for (int k = 0; k < m->n; k++)
		if (no_smaller(r, &m->r[k]))
			return true;
	return false;
}

static void memo_add(struct memo *m, const struct job_req *r)
{
	m->r[m->next] = *r;
	m->next = (m->next + 1) % MF_MEMO;
	if (m->n < MF_MEMO)
		m->n++;
}

/* ---- running jobs by expected end ---- */

static void order_running(struct mf *p, const struct view *v)
{
	if (p->ord_valid && p->ord_epoch == v->alloc_epoch) {
		sort_by_expected_end(v->jobs, p->late, p->nlate);
		return;
	}
	p->nord = v->nrunning < p->njobs ? v->nrunning : p->njobs;
	memcpy(p->ord, v->running, (size_t)p->nord * sizeof *p->ord);
	sort_by_expected_end(v->jobs, p->ord, p->nord);
	p->nlate = 0;
	p->ord_epoch = v->alloc_epoch;
	p->ord_valid = true;
}

static bool end_before(const struct job *jobs, int32_t a, int32_t b)
{
	simtime ea = view_expected_end(&jobs[a]), eb = view_expected_end(&jobs[b]);
	return ea != eb ? ea < eb : a < b;
}

/* The next running job of the merged order (ord, then late), or -1. */
static int32_t merged_peek(const struct mf *p, const struct view *v, int32_t io, int32_t il)
{
	if (io < p->nord && (il >= p->nlate || end_before(v->jobs, p->ord[io], p->late[il])))
		return p->ord[io];
	return il < p->nlate ? p->late[il] : -1;
}

/* ---- the reservation ---- */

/* Group of node i for the head's gang: (GPU model, plane), or the model
 * alone, or one group for a gang that takes any nodes. */
static int32_t gang_group(const struct cluster *cl, int i, int kind)
{
	return kind == 0 ? 0 : kind == 1 ? place_group(cl, i) : cl->nodes[i].gpu_model + 1;
}

/* Earliest time within the window at which the head fits by the running
 * jobs' estimates; fills p->shadow with the free state then and p->head
 * with the first-fit placement. Returns the part count, 0 when it does
 * not fit within the window. */
static int find_shadow(struct mf *p, const struct view *v, const struct job *head, simtime *when)
{
	const struct cluster *cl = v->cl;
	const struct job_req *r = &head->req;
	simtime now = v->now;
	simtime limit = p->window_us > SIMTIME_INF - now ? SIMTIME_INF : now + p->window_us;
	memcpy(p->shadow, cl->free, (size_t)cl->nnodes * sizeof *p->shadow);
	bool gang = r->nodes > 0 && !job_req_shared(r);
	int kind = 0;
	for (int i = 0; i < cl->nnodes; i++)
		p->suit[i] = cluster_node_suits(cl, i, r, 0);
	bool ready = !gang;
	if (gang) {
		if (r->gpus > 0 && r->nodes > 1) {
			/* place_first_fit's rule: one (model, plane) group when one
			 * could ever hold the gang, else planes mix within a model. */
			kind = p->ngroups <= PLACE_GROUPS_MAX ? 1 : 2;
			if (kind == 1) {
				memset(p->gcnt, 0, (size_t)p->ngroups * sizeof *p->gcnt);
				bool one = false;
				for (int i = 0; i < cl->nnodes && !one; i++)
					one = p->suit[i] && ++p->gcnt[place_group(cl, i)] >= r->nodes;
				if (!one)
					kind = 2;
			}
		}
		memset(p->gcnt, 0, (size_t)p->ngroups * sizeof *p->gcnt);
		for (int i = 0; i < cl->nnodes; i++) {
			p->fit[i] = p->suit[i] && cluster_node_fits(cl, &p->shadow[i], i, r);
			if (p->fit[i] && ++p->gcnt[gang_group(cl, i, kind)] >= r->nodes)
				ready = true;
		}
	}
	int64_t cores = cl->free_cores, gpus = cl->free_gpus;
	bool changed = false;
	int32_t io = 0, il = 0, id;
	while ((id = merged_peek(p, v, io, il)) >= 0) {
		if (io < p->nord && p->ord[io] == id)
			io++;
		else
			il++;
		const struct job *rj = &v->jobs[id];
		simtime end = view_expected_end(rj);
		if (end <= now)
			end = now + 1;   /* a job past its estimate is assumed to end next */
		if (end > limit)
			return 0;
		const struct alloc_part *rp = &v->parts[rj->parts];
		nodefree_give(p->shadow, rp, rj->nparts);
		for (int k = 0; k < rj->nparts; k++) {
			int i = rp[k].node;
			cores += rp[k].cores;
			gpus += hl_popcount64(rp[k].gpus);
			if (!p->suit[i])
				continue;
			changed = true;
			if (gang && !p->fit[i] && cluster_node_fits(cl, &p->shadow[i], i, r)) {
				p->fit[i] = 1;
				if (++p->gcnt[gang_group(cl, i, kind)] >= r->nodes)
					ready = true;
			}
		}
		int32_t nx = merged_peek(p, v, io, il);
		if (nx >= 0 && view_expected_end(&v->jobs[nx]) == view_expected_end(rj))
			continue;   /* release everything that ends at the same time first */
		if (!changed || !ready || !place_aggregate_ok(cl, cores, gpus, r))
			continue;
		changed = false;
		int np = place_first_fit(cl, p->shadow, r, p->head);
		if (np) {
			*when = end;
			return np;
		}
	}
	return 0;
}

static void extra_node(struct mf *p, const struct cluster *cl, int i)
{
	struct nodefree *x = &p->extra[i];
	p->extra_cores -= x->cores;
	p->extra_gpus -= x->gpus;
	nodefree_extra(&cl->free[i], &p->shadow[i], &p->need[i], x);
	p->extra_cores += x->cores;
	p->extra_gpus += x->gpus;
}

/* Computes the head's reservation and the extra state around it; false
 * when it gets none (beyond the window, or never). */
static bool reserve(struct mf *p, const struct view *v, const struct job *head, simtime *shadow)
{
	const struct cluster *cl = v->cl;
	for (int k = 0; k < p->nhead; k++)
		memset(&p->need[p->head[k].node], 0, sizeof *p->need);
	p->nhead = 0;
	order_running(p, v);
	int nh = find_shadow(p, v, head, shadow);
	if (nh == 0)
		return false;
	p->nhead = nh;
	for (int k = 0; k < nh; k++)
		p->need[p->head[k].node] = p->head[k];
	memcpy(p->extra, cl->free, (size_t)cl->nnodes * sizeof *p->extra);
	p->extra_cores = cl->free_cores;
	p->extra_gpus = cl->free_gpus;
	for (int k = 0; k < nh; k++)
		extra_node(p, cl, p->head[k].node);
	return true;
}

/* ---- the pass ---- */

static int start(struct mf *p, const struct view *v, struct decide *out, const struct job *j, int n)
{
	uint64_t e0 = v->alloc_epoch;
	if (decide_start(out, j->id, p->parts, n))
		return -1;
	placer_started(&p->pl, v, j, p->parts, n);
	prio_started(p->prio, v, j->id);
	if (p->ord_valid && p->ord_epoch == e0 && p->nlate < p->njobs) {
		p->late[p->nlate++] = j->id;
		p->ord_epoch = v->alloc_epoch;
	} else {
		p->ord_valid = false;
	}
	return 0;
}

/* What a pass did with each job it looked at, for its notes (decide_note;
 * only when someone listens: NULL otherwise). */
enum { H_NONE, H_NOFIT, H_NORESV, H_HEAD, H_BEHIND, H_DELAY };
struct mf_seen {
	uint8_t *how;               /* per job */
	int32_t *ids, n;            /* the jobs looked at, in priority order */
	bool truncated;             /* bf_max_job_test cut the pass short */
};

static void seen(struct mf_seen *s, int32_t id, int how)
{
	if (!s)
		return;
	if (s->how[id] == H_NONE)
		s->ids[s->n++] = id;
	s->how[id] = (uint8_t)how;
}

static void mf_pass(struct mf *p, const struct view *v, struct decide *out, struct mf_seen *ns,
                    const struct job **headp, simtime *shadowp)
{
	const struct cluster *cl = v->cl;
	prio_order_start(p->prio, v, v->pending, v->npending);
	p->fail_now.n = p->fail_extra.n = p->no_resv.n = 0;
	p->fail_now.next = p->fail_extra.next = p->no_resv.next = 0;

	/* In order while jobs fit; the first that does not is a head
	 * candidate, and one without a reservation does not block. */
	const struct job *head = NULL;
	simtime shadow = SIMTIME_INF;
	int32_t tested = 0, tries = 0, id;
	bool failed = false;
	while ((id = prio_order_next(p->prio)) >= 0) {
		const struct job *j = &v->jobs[id];
		if (j->state != JOB_PENDING)
			continue;
		if (failed && tested++ >= p->max_test) {
			if (ns) {
				ns->truncated = true;
				seen(ns, id, H_NONE);   /* the first not tried: the order goes on from it */
			}
			return;
		}
		int n = 0;
		if (place_aggregate_ok(cl, cl->free_cores, cl->free_gpus, &j->req) &&
		    !memo_hit(&p->fail_now, &j->req)) {
			n = placer_place(&p->pl, cl, cl->free, j, p->parts);
			if (!n)
				memo_add(&p->fail_now, &j->req);
		}
		if (n) {
			if (start(p, v, out, j, n))
				return;
			if (cl->free_cores == 0 && cl->free_gpus == 0)
				return;
			continue;
		}
		failed = true;
		seen(ns, id, H_NOFIT);
		if (cl->free_cores == 0 && cl->free_gpus == 0)
			return;   /* nothing to backfill with */
		if (tries >= MF_RESV_TRIES || memo_hit(&p->no_resv, &j->req))
			continue;
		tries++;
		if (reserve(p, v, j, &shadow)) {
			head = j;
			*headp = head;
			*shadowp = shadow;
			seen(ns, id, H_HEAD);
			break;
		}
		seen(ns, id, H_NORESV);
		memo_add(&p->no_resv, &j->req);
	}
	if (!head)
		return;

	/* Backfill around the head's reservation. */
	while ((ns || tested < p->max_test) && (id = prio_order_next(p->prio)) >= 0) {
		const struct job *j = &v->jobs[id];
		if (j->state != JOB_PENDING)
			continue;
		if (tested >= p->max_test) {   /* only with notes: the loop stops before otherwise */
			if (ns) {
				ns->truncated = true;
				seen(ns, id, H_NONE);   /* the first not tried: the order goes on from it */
			}
			return;
		}
		tested++;
		seen(ns, id, H_BEHIND);
		if (!place_aggregate_ok(cl, cl->free_cores, cl->free_gpus, &j->req))
			continue;
		bool before = j->walltime_us != SIMTIME_INF && v->now + j->walltime_us <= shadow;
		int n = 0;
		if (before) {
			if (memo_hit(&p->fail_now, &j->req))
				continue;
			if (!(n = placer_place(&p->pl, cl, cl->free, j, p->parts)))
				memo_add(&p->fail_now, &j->req);
		} else {
			seen(ns, id, H_DELAY);
			if (memo_hit(&p->fail_extra, &j->req) ||
			    !place_aggregate_ok(cl, p->extra_cores, p->extra_gpus, &j->req))
				continue;
			if (!(n = placer_place(&p->pl, cl, p->extra, j, p->parts)))
				memo_add(&p->fail_extra, &j->req);
		}
		if (!n)
			continue;
		if (start(p, v, out, j, n))
			return;
		if (!before)
			nodefree_take(p->shadow, p->parts, n);
		for (int k = 0; k < n; k++)
			extra_node(p, cl, p->parts[k].node);
		if (cl->free_cores == 0 && cl->free_gpus == 0)
			return;
	}
}

/* Why each job left pending waits, in priority order: the jobs the pass
 * looked at, then the rest of its order (not looked at). */
static void mf_notes(struct mf *p, const struct view *v, struct decide *out, struct mf_seen *ns,
                     const struct job *head, simtime shadow)
{
	const struct cluster *cl = v->cl;
	char why[400], ahead[64], when[64] = "reserved";
	if (head && shadow != SIMTIME_INF)
		snprintf(when, sizeof when, "reserved from t=%.0f s", simtime_to_s(shadow));
	int32_t nahead = 0, k = 0, id;
	for (;;) {
		if (k < ns->n)
			id = ns->ids[k++];
		else if ((id = prio_order_next(p->prio)) < 0)
			break;
		else if (ns->how[id] != H_NONE)
			continue;
		const struct job *j = &v->jobs[id];
		if (j->state != JOB_PENDING)
			continue;
		if (nahead == 0)
			snprintf(ahead, sizeof ahead, "first by priority");
		else
			snprintf(ahead, sizeof ahead, "%d job%s of higher priority ahead", nahead, nahead == 1 ? "" : "s");
		nahead++;
		if (cluster_why(cl, cl->free, &j->req, why, sizeof why))
			snprintf(why, sizeof why, "no placement the strategy accepts now");
		switch (ns->how[id]) {
		case H_HEAD:
			decide_note(out, id, "%s; %s; %s", ahead, why, when);
			break;
		case H_NORESV:
			decide_note(out, id, "%s; %s; no reservation: no start within bf_window (%.0f min)", ahead, why,
			            simtime_to_s(p->window_us) / 60);
			break;
		case H_DELAY:
			decide_note(out, id, "%s; would delay the reservation of job %lld (%s)", ahead, (long long)head->num,
			            when);
			break;
		case H_NONE:
			if (ns->truncated) {
				decide_note(out, id, "%s; not tried this pass (bf_max_job_test=%d reached)", ahead, p->max_test);
				break;
			}
			/* fall through */
		default:
			if (head)
				decide_note(out, id, "%s; %s; behind the reservation of job %lld", ahead, why,
				            (long long)head->num);
			else
				decide_note(out, id, "%s; %s", ahead, why);
		}
	}
}

static void mf_schedule(void *state, const struct view *v, struct decide *out)
{
	struct mf *p = state;
	placer_sync(&p->pl, v);
	prio_update(p->prio, v);
	if (v->npending == 0)
		return;
	const struct job *head = NULL;
	simtime shadow = SIMTIME_INF;
	if (!decide_noting(out)) {
		mf_pass(p, v, out, NULL, &head, &shadow);
		return;
	}
	struct mf_seen ns = { .how = calloc((size_t)v->njobs + 1, 1),
	                      .ids = calloc((size_t)v->npending + 1, sizeof *ns.ids) };
	if (ns.how && ns.ids) {
		mf_pass(p, v, out, &ns, &head, &shadow);
		mf_notes(p, v, out, &ns, head, shadow);
	} else {
		mf_pass(p, v, out, NULL, &head, &shadow);
	}
	free(ns.how);
	free(ns.ids);
}

/* The running order (running jobs only: none leaves) and the priorities'
 * own state are renumbered. */
static int mf_renumber(void *state, const struct view *v, const int32_t *map, int32_t nold, int32_t nnew)
{
	struct mf *p = state;
	for (int32_t k = 0; k < p->nord; k++)
		p->ord[k] = p->ord[k] >= 0 && p->ord[k] < nold ? map[p->ord[k]] : -1;
	for (int32_t k = 0; k < p->nlate; k++)
		p->late[k] = p->late[k] >= 0 && p->late[k] < nold ? map[p->late[k]] : -1;
	return prio_renumber(p->prio, v, map, nold, nnew);
}

/* Snapshots: the running order kept by allocation epoch, the placer and
 * the priorities' state. */
static int mf_save(void *state, const struct view *v, struct snapw *w)
{
	const struct mf *p = state;
	snap_put_tag(w, "mf");
	snap_put_n(w, p->nord);
	snap_put_n(w, p->nlate);
	snap_put(w, p->ord, (size_t)p->nord * sizeof *p->ord);
	snap_put(w, p->late, (size_t)p->nlate * sizeof *p->late);
	snap_put(w, &p->ord_epoch, sizeof p->ord_epoch);
	snap_put(w, &p->ord_valid, sizeof p->ord_valid);
	placer_save(&p->pl, w);
	prio_save(p->prio, v, w);
	return 0;
}

static int mf_load(void *state, const struct view *v, struct snapr *r)
{
	struct mf *p = state;
	if (snap_get_tag(r, "mf"))
		return -1;
	int64_t nord = snap_get_n(r, p->njobs, "the running order");
	int64_t nlate = snap_get_n(r, p->njobs, "the jobs started since");
	if (nord < 0 || nlate < 0)
		return -1;
	p->nord = (int32_t)nord;
	p->nlate = (int32_t)nlate;
	snap_get(r, p->ord, (size_t)nord * sizeof *p->ord);
	snap_get(r, p->late, (size_t)nlate * sizeof *p->late);
	snap_get(r, &p->ord_epoch, sizeof p->ord_epoch);
	snap_get(r, &p->ord_valid, sizeof p->ord_valid);
	if (r->bad || placer_load(&p->pl, r))
		return -1;
	return prio_load(p->prio, v, r);
}

const struct policy_ops policy_prioeasy = {
	.name = "prioeasy",
	.summary = "multifactor priority order with EASY backfill (fairshare's engine)",
	.params = mf_params,
	.init = mf_init,
	.fini = mf_fini,
	.submit = mf_submit,
	.schedule = mf_schedule,
	.renumber = mf_renumber,
	.save = mf_save,
	.load = mf_load,
};
