/* prio — decayed usage, fair-share factors (classic and Fair Tree) and
 * the multifactor priority. See prio.h and docs/policies.md "Priority".
 *
 * Who is charged. Each tenant (job.tenant) is a slot; each of its
 * projects a leaf ("user" in Slurm's terms). A tenant of the org has a leaf
 * per project (one when it lists none); any other tenant id — beyond the
 * org's list, or every tenant when there is no org — gets a slot of one
 * share with one leaf the first time prio_update sees one of its jobs (a
 * hash from tenant id to slot). Slots and leaves are numbered in the order
 * they were first seen, so every sum runs in the same order on every run.
 *
 * What is charged. A running job is charged rate × time, its rate (billing
 * units a second) fixed from its parts when it is first seen running. The
 * runs being charged are kept in a list (its jobs and where they were
 * charged up to); at each update every run in the list is charged up to
 * now, or, when it stopped since, up to its end (a requeued job: to when
 * its core-seconds say it stopped). prio_started adds a run at its start,
 * so that a job that starts and ends between two updates is charged too.
 * Charges are added after the decay, as U ← U·2^(−dt/h) + accrued says.
 *
 * Nothing is allocated after prio_init: every array is sized by the
 * cluster, the org and env->njobs there. */
#include "policies/prio.h"
#include "sim/mig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRIO_MIG_SLICES 7.0           /* compute slices of a MIG card (all of the catalog's) */
#define PRIO_HALFLIFE_S (7 * 86400.0) /* without an org */

struct pten {
	int32_t id;            /* job.tenant */
	int32_t first, n;      /* its leaves: leaf[first .. first + n) */
	double shares;
	double usage;          /* Σ of its leaves' usage, at the last update */
	double lf;             /* Fair Tree level fair-share */
	bool jobs;             /* has pending or running jobs (last update) */
};

struct pleaf {
	int32_t tenant;        /* slot */
	int32_t proj;          /* project index within the tenant */
	double shares;
	double usage;          /* decayed usage, at the last update */
	double accr;           /* charged since the last update */
	double fs;             /* fair-share factor of its jobs */
	double lf;             /* Fair Tree level fair-share within its tenant */
	bool jobs;
};

struct prun {
	int32_t job;
	int32_t leaf;
	double rate;           /* billing units a second */
	simtime start_us;      /* the start of the run being charged */
	simtime charged_us;    /* charged up to here */
	double per_s;          /* cores (else card equivalents) it holds */
	double acct0;          /* its core_s (else gpu_s) when first charged */
	bool by_cores;
	simtime gone_stop;     /* job -1 (it left the table, sim_compact): when its run stopped,
	                          -1 at the next update */
};

struct pkey {
	double pri;
	simtime submit;
	int32_t id;
	int32_t pad_;
};

struct psort {             /* Fair Tree sort entries */
	double lf;
	int32_t a, b;          /* tenant id (or slot) and project, for ties */
	int32_t idx;
	int32_t pad_;
};

struct prio {
	struct prio_weights w;
	const struct org *org;
	int32_t njobs;
	double halflife_s;
	double core_w;
	double *gpu_w;         /* per catalog GPU model */
	int32_t ngpu_w;
	/* tenants and leaves */
	struct pten *ten;
	int32_t nten, cap_ten;
	struct pleaf *leaf;
	int32_t nleaf, cap_leaf;
	int32_t *hkey, *hval;  /* tenant id → slot for ids outside the org; hval -1 empty */
	uint32_t hmask;
	int32_t *leaf_of;      /* per job: its leaf, -1 not yet known */
	/* charging */
	struct prun *run;
	int32_t nrun;
	int32_t *rpos;         /* per job: its index in run, -1 none */
	simtime last_us;
	bool started;
	/* scratch */
	struct pkey *key;      /* njobs + 1: sort keys, and the order heap */
	int32_t nheap;
	struct psort *fs_ten, *fs_leaf;
};

/* ---- tenants and leaves ---- */

static uint32_t hash_id(int32_t id)
{
	uint32_t x = (uint32_t)id;
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

static bool org_tenant_id(const struct prio *p, int32_t id)
{
	return p->org && id >= 0 && id < p->org->nt;
}

/* The slot of tenant id, or -1 when not seen yet. */
static int32_t find_tenant(const struct prio *p, int32_t id)
{
	if (org_tenant_id(p, id))
		return id;
	for (uint32_t h = hash_id(id) & p->hmask;; h = (h + 1) & p->hmask) {
		if (p->hval[h] < 0)
			return -1;
		if (p->hkey[h] == id)
			return p->hval[h];
	}
}

static int32_t add_slot(struct prio *p, int32_t id, double shares, int32_t nleaf)
{
	if (p->nten >= p->cap_ten || p->nleaf + nleaf > p->cap_leaf)
		return -1;
	int32_t s = p->nten++;
	p->ten[s] = (struct pten){ .id = id, .first = p->nleaf, .n = nleaf, .shares = shares };
	for (int32_t k = 0; k < nleaf; k++) {
		double sh = 1;
		if (org_tenant_id(p, id) && p->org->t[id].nprojects > 0)
			sh = p->org->p[p->org->t[id].first_project + k].shares;
		p->leaf[p->nleaf++] = (struct pleaf){ .tenant = s, .proj = k, .shares = sh > 0 ? sh : 1, .fs = 1 };
	}
	return s;
}

/* The slot of tenant id, made on first sight. Beyond the sizing (more
 * distinct tenants than env->njobs), the last slot made takes them all. */
static int32_t get_tenant(struct prio *p, int32_t id)
{
	int32_t s = find_tenant(p, id);
	if (s >= 0)
		return s;
	uint32_t h = hash_id(id) & p->hmask;
	while (p->hval[h] >= 0)
		h = (h + 1) & p->hmask;
	s = add_slot(p, id, 1, 1);
	if (s < 0)
		return p->nten - 1;
	p->hkey[h] = id;
	p->hval[h] = s;
	return s;
}

static int32_t leaf_in(const struct prio *p, int32_t slot, int32_t group)
{
	const struct pten *t = &p->ten[slot];
	return t->first + (group >= 0 && group < t->n ? group : 0);
}

/* The leaf of job j, made on first sight. */
static int32_t job_leaf(struct prio *p, const struct job *j)
{
	if (j->id >= 0 && j->id < p->njobs && p->leaf_of[j->id] >= 0)
		return p->leaf_of[j->id];
	int32_t s = get_tenant(p, j->tenant);
	if (s < 0)
		return -1;
	int32_t l = leaf_in(p, s, j->group);
	if (j->id >= 0 && j->id < p->njobs)
		p->leaf_of[j->id] = l;
	return l;
}

static int32_t job_leaf_const(const struct prio *p, const struct job *j)
{
	if (j->id >= 0 && j->id < p->njobs && p->leaf_of[j->id] >= 0)
		return p->leaf_of[j->id];
	int32_t s = find_tenant(p, j->tenant);
	return s < 0 ? -1 : leaf_in(p, s, j->group);
}

/* ---- init ---- */

int prio_init(struct prio **pp, const struct policy_env *env, const struct prio_weights *w,
              char *err, size_t errlen)
{
	const struct org *o = env->org;
	const struct cluster *cl = env->cl;
	struct prio *p = calloc(1, sizeof *p);
	*pp = NULL;
	if (!p)
		goto nomem;
	p->w = *w;
	p->org = o;
	p->njobs = env->njobs > 0 ? env->njobs : 0;
	p->halflife_s = o && o->halflife_s > 0 ? o->halflife_s : PRIO_HALFLIFE_S;
	p->core_w = o && o->core_weight > 0 ? o->core_weight : (cl->total_gpus == 0 ? 1.0 : 0.0);
	p->ngpu_w = cl->cat.ngpus;
	int32_t org_leaves = 0;
	if (o)
		for (int32_t i = 0; i < o->nt; i++) {
			if (o->t[i].nprojects < 0 || o->t[i].first_project < 0 ||
			    o->t[i].first_project + o->t[i].nprojects > o->np) {
				snprintf(err, errlen, "org tenant %d (\"%s\"): projects %d..%d beyond the %d listed",
				         (int)i, o->t[i].name, (int)o->t[i].first_project,
				         (int)(o->t[i].first_project + o->t[i].nprojects), (int)o->np);
				free(p);
				return -1;
			}
			org_leaves += o->t[i].nprojects > 0 ? o->t[i].nprojects : 1;
		}
	p->cap_ten = (o ? o->nt : 0) + p->njobs + 1;
	p->cap_leaf = org_leaves + p->njobs + 1;
	uint32_t hcap = 16;
	while (hcap < 2u * (uint32_t)(p->njobs + 1))
		hcap *= 2;
	p->hmask = hcap - 1;
	size_t nj = (size_t)p->njobs + 1;
	p->gpu_w = calloc((size_t)p->ngpu_w + 1, sizeof *p->gpu_w);
	p->ten = calloc((size_t)p->cap_ten, sizeof *p->ten);
	p->leaf = calloc((size_t)p->cap_leaf, sizeof *p->leaf);
	p->hkey = calloc(hcap, sizeof *p->hkey);
	p->hval = malloc(hcap * sizeof *p->hval);
	p->leaf_of = malloc(nj * sizeof *p->leaf_of);
	p->run = calloc(nj, sizeof *p->run);
	p->rpos = malloc(nj * sizeof *p->rpos);
	p->key = calloc(nj, sizeof *p->key);
	p->fs_ten = calloc((size_t)p->cap_ten, sizeof *p->fs_ten);
	p->fs_leaf = calloc((size_t)p->cap_leaf, sizeof *p->fs_leaf);
	if (!p->gpu_w || !p->ten || !p->leaf || !p->hkey || !p->hval || !p->leaf_of || !p->run ||
	    !p->rpos || !p->key || !p->fs_ten || !p->fs_leaf)
		goto nomem;
	memset(p->hval, 0xff, hcap * sizeof *p->hval);
	memset(p->leaf_of, 0xff, nj * sizeof *p->leaf_of);
	memset(p->rpos, 0xff, nj * sizeof *p->rpos);
	for (int32_t m = 0; m < p->ngpu_w; m++) {
		double g = o && o->gpu_weight && m < o->ngpu_weight ? o->gpu_weight[m] : 0;
		p->gpu_w[m] = g > 0 ? g : 1.0;
	}
	if (o)
		for (int32_t i = 0; i < o->nt; i++)
			add_slot(p, i, o->t[i].shares > 0 ? o->t[i].shares : 1,
			         o->t[i].nprojects > 0 ? o->t[i].nprojects : 1);
	*pp = p;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory sizing the priority state for %d jobs", (int)env->njobs);
	prio_fini(p);
	return -1;
}

void prio_fini(struct prio *p)
{
	if (!p)
		return;
	free(p->gpu_w);
	free(p->ten);
	free(p->leaf);
	free(p->hkey);
	free(p->hval);
	free(p->leaf_of);
	free(p->run);
	free(p->rpos);
	free(p->key);
	free(p->fs_ten);
	free(p->fs_leaf);
	free(p);
}

/* ---- billing ---- */

static bool is_running(const struct job *j)
{
	return j->state == JOB_RUNNING || j->state == JOB_CHECKPOINTING;
}

/* Card equivalents part pp holds: whole cards, a share's milli / 1000, a
 * MIG instance's compute slices over the card's. */
static double part_cards(const struct cluster *cl, const struct job *j, const struct alloc_part *pp)
{
	if (!pp->gpus)
		return 0;
	if (pp->milli > 0)
		return pp->milli / (double)HL_MILLI;
	if (pp->mig_profile >= 0) {
		const struct node *n = &cl->nodes[pp->node];
		int g = __builtin_ctzll(pp->gpus);
		const struct gpustate *gs = cl->gpu ? &cl->gpu[n->gpu0 + g] : NULL;
		if (gs && gs->mig && gs->mig->card && pp->mig_profile < gs->mig->card->nprofiles)
			return (double)gs->mig->card->profiles[pp->mig_profile].compute_slices /
			       gs->mig->card->compute_slices;
		return j->req.mig_g / PRIO_MIG_SLICES;
	}
	return hl_popcount64(pp->gpus);
}

double prio_job_rate(const struct prio *p, const struct view *v, const struct job *j)
{
	if (!is_running(j))
		return 0;
	const struct cluster *cl = v->cl;
	double rate = 0;
	for (int32_t k = 0; k < j->nparts; k++) {
		const struct alloc_part *pp = &v->parts[j->parts + (uint32_t)k];
		int32_t m = cl->nodes[pp->node].gpu_model;
		double gw = m >= 0 && m < p->ngpu_w ? p->gpu_w[m] : 1.0;
		rate += part_cards(cl, j, pp) * gw + pp->cores * p->core_w;
	}
	return rate;
}

static void track(struct prio *p, const struct view *v, const struct job *j, simtime from)
{
	if (j->id < 0 || j->id >= p->njobs)
		return;
	int32_t l = job_leaf(p, j);
	if (l < 0)
		return;
	int32_t k = p->rpos[j->id];
	if (k < 0) {
		k = p->nrun++;
		p->rpos[j->id] = k;
	}
	struct prun *r = &p->run[k];
	double cores = 0, cards = 0;
	for (int32_t i = 0; i < j->nparts; i++) {
		const struct alloc_part *pp = &v->parts[j->parts + (uint32_t)i];
		cores += pp->cores;
		cards += part_cards(v->cl, j, pp);
	}
	*r = (struct prun){
		.job = j->id, .leaf = l, .rate = prio_job_rate(p, v, j), .start_us = j->start_us,
		.charged_us = from, .by_cores = cores > 0,
	};
	r->per_s = cores > 0 ? cores : cards;
	r->acct0 = cores > 0 ? j->core_s : j->gpu_s;
}

static void untrack(struct prio *p, int32_t k)
{
	int32_t job = p->run[k].job;
	if (job >= 0)
		p->rpos[job] = -1;
	p->nrun--;
	if (k != p->nrun) {
		p->run[k] = p->run[p->nrun];
		if (p->run[k].job >= 0)
			p->rpos[p->run[k].job] = k;
	}
}

void prio_started(struct prio *p, const struct view *v, int32_t job)
{
	const struct job *j = &v->jobs[job];
	if (is_running(j))
		track(p, v, j, v->now);
}

/* When a run that is no longer running stopped (at most now; now is -1:
 * -1 when it would be now). */
static simtime stopped_at(const struct prun *r, const struct job *j, simtime now)
{
	if (job_state_final((enum job_state)j->state) && j->end_us >= 0 && j->start_us == r->start_us)
		return j->end_us;
	/* Requeued (or restarted since): the engine added the run's core-
	 * (or card-) seconds when it stopped. */
	double acct = r->by_cores ? j->core_s : j->gpu_s;
	if (r->per_s > 0 && acct > r->acct0)
		return r->start_us + simtime_from_s((acct - r->acct0) / r->per_s);
	return now;
}

/* ---- update ---- */

static void charge(struct prio *p, struct prun *r, simtime to)
{
	if (to > r->charged_us) {
		p->leaf[r->leaf].accr += r->rate * simtime_to_s(to - r->charged_us);
		r->charged_us = to;
	}
}

static int cmp_psort(const void *x, const void *y)
{
	const struct psort *a = x, *b = y;
	if (a->lf != b->lf)
		return a->lf > b->lf ? -1 : 1;   /* higher level fair-share first */
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return (a->b > b->b) - (a->b < b->b);
}

/* Level fair-share S / U among siblings (S, U normalised over them);
 * infinite without usage. */
static double level_fs(double shares, double shares_sum, double usage, double usage_sum)
{
	if (usage <= 0 || usage_sum <= 0)
		return INFINITY;
	return (shares / shares_sum) / (usage / usage_sum);
}

static void classic(struct prio *p)
{
	double ssum = 0, usum = 0;
	for (int32_t s = 0; s < p->nten; s++) {
		const struct pten *t = &p->ten[s];
		usum += t->usage;
		if (t->jobs || t->usage > 0)
			ssum += t->shares;
	}
	for (int32_t s = 0; s < p->nten; s++) {
		const struct pten *t = &p->ten[s];
		if (!t->jobs)
			continue;
		double ft = usum > 0 ? exp2(-(t->usage / usum) / (t->shares / ssum)) : 1.0;
		double ps = 0;
		for (int32_t l = t->first; l < t->first + t->n; l++)
			if (p->leaf[l].jobs || p->leaf[l].usage > 0)
				ps += p->leaf[l].shares;
		for (int32_t l = t->first; l < t->first + t->n; l++) {
			struct pleaf *lf = &p->leaf[l];
			double fp = 1.0;
			if (t->n > 1 && t->usage > 0)
				fp = exp2(-(lf->usage / t->usage) / (lf->shares / ps));
			lf->fs = ft * fp;
		}
	}
}

/* Slurm's Fair Tree over tenant → project: siblings sorted by level
 * fair-share (ties between tenants merge their projects), leaves ranked
 * depth first from n down, tied leaves sharing a rank; factor rank / n. */
static void fair_tree(struct prio *p)
{
	double ssum = 0, usum = 0;
	int32_t nt = 0, nusers = 0;
	for (int32_t s = 0; s < p->nten; s++) {
		const struct pten *t = &p->ten[s];
		usum += t->usage;
		if (t->jobs || t->usage > 0)
			ssum += t->shares;
	}
	for (int32_t s = 0; s < p->nten; s++) {
		struct pten *t = &p->ten[s];
		if (!t->jobs)
			continue;
		t->lf = level_fs(t->shares, ssum, t->usage, usum);
		p->fs_ten[nt++] = (struct psort){ .lf = t->lf, .a = t->id, .b = 0, .idx = s };
		double ps = 0, pu = 0;
		for (int32_t l = t->first; l < t->first + t->n; l++)
			if (p->leaf[l].jobs || p->leaf[l].usage > 0) {
				ps += p->leaf[l].shares;
				pu += p->leaf[l].usage;
			}
		for (int32_t l = t->first; l < t->first + t->n; l++)
			if (p->leaf[l].jobs) {
				p->leaf[l].lf = level_fs(p->leaf[l].shares, ps, p->leaf[l].usage, pu);
				nusers++;
			}
	}
	qsort(p->fs_ten, (size_t)nt, sizeof *p->fs_ten, cmp_psort);
	int32_t rank = nusers, next = nusers;
	for (int32_t a = 0; a < nt;) {
		int32_t b = a + 1;
		while (b < nt && p->fs_ten[b].lf == p->fs_ten[a].lf)
			b++;
		int32_t nl = 0;
		for (int32_t k = a; k < b; k++) {
			const struct pten *t = &p->ten[p->fs_ten[k].idx];
			for (int32_t l = t->first; l < t->first + t->n; l++)
				if (p->leaf[l].jobs)
					p->fs_leaf[nl++] = (struct psort){ .lf = p->leaf[l].lf, .a = t->id,
					                                   .b = p->leaf[l].proj, .idx = l };
		}
		qsort(p->fs_leaf, (size_t)nl, sizeof *p->fs_leaf, cmp_psort);
		for (int32_t k = 0; k < nl; k++) {
			if (k == 0 || p->fs_leaf[k].lf != p->fs_leaf[k - 1].lf)
				rank = next;
			p->leaf[p->fs_leaf[k].idx].fs = (double)rank / nusers;
			next--;
		}
		a = b;
	}
}

void prio_update(struct prio *p, const struct view *v)
{
	simtime now = v->now;
	if (!p->started) {
		p->started = true;
		p->last_us = now;
	}
	/* Charge the runs being charged, up to now or to their stop. */
	for (int32_t k = p->nrun - 1; k >= 0; k--) {
		struct prun *r = &p->run[k];
		if (r->job < 0) {   /* its job left the table: as it would have been */
			simtime stop = r->gone_stop >= 0 ? r->gone_stop : now;
			charge(p, r, stop < now ? stop : now);
			untrack(p, k);
			continue;
		}
		const struct job *j = &v->jobs[r->job];
		if (is_running(j) && j->start_us == r->start_us) {
			charge(p, r, now);
			continue;
		}
		simtime stop = stopped_at(r, j, now);
		charge(p, r, stop < now ? stop : now);
		untrack(p, k);
	}
	/* Runs not seen yet (started by someone who did not call prio_started). */
	for (int32_t i = 0; i < v->nrunning; i++) {
		const struct job *j = &v->jobs[v->running[i]];
		if (!is_running(j) || j->id < 0 || j->id >= p->njobs)
			continue;
		int32_t k = p->rpos[j->id];
		if (k >= 0 && p->run[k].start_us == j->start_us)
			continue;
		track(p, v, j, j->start_us > p->last_us ? j->start_us : p->last_us);
		k = p->rpos[j->id];
		if (k >= 0)
			charge(p, &p->run[k], now);
	}
	/* Decay, then add what was charged. */
	double dt = simtime_to_s(now - p->last_us);
	double decay = dt > 0 ? exp2(-dt / p->halflife_s) : 1.0;
	for (int32_t l = 0; l < p->nleaf; l++) {
		struct pleaf *lf = &p->leaf[l];
		lf->usage = lf->usage * decay + lf->accr;
		lf->accr = 0;
		lf->jobs = false;
	}
	for (int32_t s = 0; s < p->nten; s++) {
		struct pten *t = &p->ten[s];
		t->usage = 0;
		for (int32_t l = t->first; l < t->first + t->n; l++)
			t->usage += p->leaf[l].usage;
		t->jobs = false;
	}
	p->last_us = now;
	/* Who has jobs. */
	for (int32_t i = 0; i < v->npending; i++) {
		const struct job *j = &v->jobs[v->pending[i]];
		if (j->state != JOB_PENDING)
			continue;
		int32_t l = job_leaf(p, j);
		if (l >= 0) {
			p->leaf[l].jobs = true;
			p->ten[p->leaf[l].tenant].jobs = true;
		}
	}
	for (int32_t i = 0; i < v->nrunning; i++) {
		const struct job *j = &v->jobs[v->running[i]];
		int32_t l = job_leaf(p, j);
		if (l >= 0) {
			p->leaf[l].jobs = true;
			p->ten[p->leaf[l].tenant].jobs = true;
		}
	}
	if (p->w.fair_tree)
		fair_tree(p);
	else
		classic(p);
}

double prio_usage_tenant(const struct prio *p, int32_t tenant)
{
	int32_t s = find_tenant(p, tenant);
	return s < 0 ? 0 : p->ten[s].usage;
}

double prio_usage_project(const struct prio *p, int32_t tenant, int32_t project)
{
	int32_t s = find_tenant(p, tenant);
	if (s < 0 || project < 0 || project >= p->ten[s].n)
		return 0;
	return p->leaf[p->ten[s].first + project].usage;
}

/* ---- factors ---- */

double prio_fairshare(const struct prio *p, const struct view *v, const struct job *j)
{
	(void)v;
	int32_t l = job_leaf_const(p, j);
	return l < 0 ? 1.0 : p->leaf[l].fs;
}

/* Card equivalents (or cores, for a CPU job) job j asks for, over the cluster's. */
static double size_fraction(const struct cluster *cl, const struct job *j)
{
	const struct job_req *r = &j->req;
	double want, total;
	if (r->gpus > 0 || job_req_shared(r)) {
		if (r->gpu_milli > 0)
			want = r->gpu_milli / (double)HL_MILLI;
		else if (r->mig_g > 0)
			want = r->mig_g / PRIO_MIG_SLICES;
		else
			want = (double)job_req_gpus(r);
		total = (double)cl->total_gpus;
	} else {
		want = (double)job_req_cores(r);
		total = (double)cl->total_cores;
	}
	if (total <= 0)
		return 0;
	double f = want / total;
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

double prio_priority(const struct prio *p, const struct view *v, const struct job *j)
{
	const struct prio_weights *w = &p->w;
	double age = 1.0;
	if (w->max_age_us > 0) {
		double waited = (double)(v->now - j->submit_us);
		age = waited <= 0 ? 0 : waited >= (double)w->max_age_us ? 1.0 : waited / (double)w->max_age_us;
	}
	double size = size_fraction(v->cl, j);
	if (w->favor_small)
		size = 1.0 - size;
	int c = j->cls < JOB_NCLASS ? j->cls : JOB_BATCH;
	const double nice = 0;   /* no nice values in the model */
	return w->age * age + w->fairshare * prio_fairshare(p, v, j) + w->jobsize * size +
	       w->qos * w->qos_by_class[c] + w->partition * w->partition_by_class[c] - w->nice * nice;
}

/* ---- ordering ---- */

/* Does a go before b: priority, then submit time, then id. */
static inline bool key_before(const struct pkey *a, const struct pkey *b)
{
	if (a->pri != b->pri)
		return a->pri > b->pri;
	if (a->submit != b->submit)
		return a->submit < b->submit;
	return a->id < b->id;
}

static int cmp_key(const void *x, const void *y)
{
	const struct pkey *a = x, *b = y;
	return key_before(a, b) ? -1 : key_before(b, a) ? 1 : 0;
}

static int32_t fill_keys(struct prio *p, const struct view *v, const int32_t *ids, int32_t n)
{
	if (n > p->njobs + 1)
		n = p->njobs + 1;
	for (int32_t i = 0; i < n; i++) {
		const struct job *j = &v->jobs[ids[i]];
		p->key[i] = (struct pkey){ .pri = prio_priority(p, v, j), .submit = j->submit_us, .id = ids[i] };
	}
	return n;
}

void prio_sort(struct prio *p, const struct view *v, int32_t *ids, int32_t n)
{
	n = fill_keys(p, v, ids, n);
	qsort(p->key, (size_t)n, sizeof *p->key, cmp_key);
	for (int32_t i = 0; i < n; i++)
		ids[i] = p->key[i].id;
	p->nheap = 0;
}

static void sift_down(struct pkey *h, int32_t n, int32_t i)
{
	struct pkey x = h[i];
	for (;;) {
		int32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && key_before(&h[c + 1], &h[c]))
			c++;
		if (!key_before(&h[c], &x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

void prio_order_start(struct prio *p, const struct view *v, const int32_t *ids, int32_t n)
{
	n = fill_keys(p, v, ids, n);
	for (int32_t i = n / 2 - 1; i >= 0; i--)
		sift_down(p->key, n, i);
	p->nheap = n;
}

int32_t prio_order_next(struct prio *p)
{
	if (p->nheap <= 0)
		return -1;
	int32_t id = p->key[0].id;
	p->key[0] = p->key[--p->nheap];
	if (p->nheap > 0)
		sift_down(p->key, p->nheap, 0);
	return id;
}

/* ---- renumbering (sim_compact) ---- */

int prio_renumber(struct prio *p, const struct view *v, const int32_t *map, int32_t nold, int32_t nnew)
{
	/* A run whose job leaves is charged at the next update up to when it
	 * stopped, which is known now: the job has ended. Runs keep their
	 * places, so the update charges in the same order. */
	for (int32_t k = 0; k < p->nrun; k++) {
		struct prun *r = &p->run[k];
		if (r->job < 0)
			continue;
		int32_t to = r->job < nold ? map[r->job] : -1;
		if (to < 0)
			r->gone_stop = stopped_at(r, &v->jobs[r->job], -1);
		r->job = to;
	}
	int32_t lim = nold < p->njobs ? nold : p->njobs;
	for (int32_t old = 0; old < lim; old++) {
		int32_t to = map[old];
		if (to >= 0 && to != old) {
			p->leaf_of[to] = p->leaf_of[old];
			p->rpos[to] = p->rpos[old];
		}
	}
	for (int32_t i = nnew; i < lim; i++)
		p->leaf_of[i] = p->rpos[i] = -1;
	return 0;
}

/* ---- snapshots (policy_ops.save / load) ---- */

void prio_save(const struct prio *p, const struct view *v, struct snapw *w)
{
	int32_t nj = v->njobs < p->njobs + 1 ? v->njobs : p->njobs + 1;   /* the rest are -1 */
	snap_put_tag(w, "prio");
	snap_put_n(w, p->nten);
	snap_put_n(w, p->nleaf);
	snap_put_n(w, (int64_t)p->hmask);
	snap_put_n(w, p->nrun);
	snap_put_n(w, nj);
	snap_put(w, p->ten, (size_t)p->nten * sizeof *p->ten);
	snap_put(w, p->leaf, (size_t)p->nleaf * sizeof *p->leaf);
	snap_put(w, p->hkey, ((size_t)p->hmask + 1) * sizeof *p->hkey);
	snap_put(w, p->hval, ((size_t)p->hmask + 1) * sizeof *p->hval);
	snap_put(w, p->run, (size_t)p->nrun * sizeof *p->run);
	snap_put(w, p->leaf_of, (size_t)nj * sizeof *p->leaf_of);
	snap_put(w, p->rpos, (size_t)nj * sizeof *p->rpos);
	snap_put(w, &p->last_us, sizeof p->last_us);
	snap_put(w, &p->started, sizeof p->started);
}

int prio_load(struct prio *p, const struct view *v, struct snapr *r)
{
	(void)v;
	if (snap_get_tag(r, "prio"))
		return -1;
	int64_t nten = snap_get_n(r, p->cap_ten, "the priority's tenants");
	int64_t nleaf = snap_get_n(r, p->cap_leaf, "the priority's leaves");
	int64_t hmask = snap_get_n(r, INT32_MAX, "the priority's tenant table");
	int64_t nrun = snap_get_n(r, p->njobs + 1, "the runs charged");
	int64_t nj = snap_get_n(r, p->njobs + 1, "the priority's jobs");
	if (r->bad)
		return -1;
	if ((uint32_t)hmask != p->hmask)
		return snap_bad(r, "the priority's tenant table has %lld slots, this run's %lu", (long long)hmask + 1,
		                (unsigned long)p->hmask + 1);
	p->nten = (int32_t)nten;
	p->nleaf = (int32_t)nleaf;
	p->nrun = (int32_t)nrun;
	snap_get(r, p->ten, (size_t)nten * sizeof *p->ten);
	snap_get(r, p->leaf, (size_t)nleaf * sizeof *p->leaf);
	snap_get(r, p->hkey, ((size_t)p->hmask + 1) * sizeof *p->hkey);
	snap_get(r, p->hval, ((size_t)p->hmask + 1) * sizeof *p->hval);
	snap_get(r, p->run, (size_t)nrun * sizeof *p->run);
	memset(p->leaf_of, 0xff, ((size_t)p->njobs + 1) * sizeof *p->leaf_of);
	memset(p->rpos, 0xff, ((size_t)p->njobs + 1) * sizeof *p->rpos);
	snap_get(r, p->leaf_of, (size_t)nj * sizeof *p->leaf_of);
	snap_get(r, p->rpos, (size_t)nj * sizeof *p->rpos);
	snap_get(r, &p->last_us, sizeof p->last_us);
	snap_get(r, &p->started, sizeof p->started);
	p->nheap = 0;
	return r->bad ? -1 : 0;
}
