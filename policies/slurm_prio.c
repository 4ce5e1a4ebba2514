/* slurm_prio — priority/multifactor of Slurm 22.05 (priority_multifactor.c,
 * fair_tree.c, assoc_mgr.c; docs/slurm-twin.md "Priority"):
 *
 *   priority = w_age·age + w_assoc·assoc + w_fs·fs + w_size·size
 *              + w_part·part + w_qos·qos          (in this order, as doubles)
 *   floored at 1, capped at 2^32 − 1, truncated to an integer.
 *
 * Priorities change only at submit (age 0: the job has not accrued yet)
 * and at the decay ticks, every PriorityCalcPeriod from slurmctld's start:
 * usage decays by (1 − 0.693 / half-life)^Δt, each running job is charged
 * Δ·(1 − 0.693/hl)^Δ·CPUs·UsageFactor for the time since the last tick,
 * up its association's chain to root, then the fair-share factors are
 * recomputed (Fair Tree by default, else classic 2^(−UE/S)) and every
 * pending job gets its priority at the tick's time. A job's last partial
 * period is charged at its end only when limits are enforced.
 *
 * The association tree is the site's (slurm_cfg.assoc); without one each
 * tenant gets an account and a user of its own under root, added when its
 * first job arrives. */
#include "policies/slurm_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct sl_anode {
	int32_t parent;            /* -1 root */
	int32_t fs_parent;         /* the first ancestor that is not Fairshare=parent */
	int32_t first_child, next; /* children_list: the associations whose fs_parent it is */
	uint32_t shares;           /* shares_raw, SLURM_FS_PARENT */
	uint32_t priority;
	bool user;
	uint32_t level_shares;
	double shares_norm;        /* Fair Tree: among siblings; classic: of the machine */
	long double usage_raw, usage_efctv, level_fs;
	double fs_factor;
};

/* (user, account) -> user association, sorted by key. */
struct sl_akey {
	int64_t key;
	int32_t assoc;
};

struct sl_prio {
	struct sl_anode *a;
	int32_t n, cap;
	int32_t nuser_assoc;
	struct sl_akey *keys;
	int32_t nkeys;
	int32_t *tenant_assoc;     /* no site tree: tenant -> its user association */
	int32_t ntenant;
	int32_t **sib;             /* scratch per depth for sorting siblings */
	int32_t *sibbuf, *sibtmp;
	uint32_t max_assoc_prio, max_qos_prio, max_pjf;
	double decay;              /* per second */
	simtime last_ran;          /* g_last_ran; -1 never */
	const double *qos_factor;
};

static int key_cmp(const void *x, const void *y)
{
	const struct sl_akey *a = x, *b = y;
	return (a->key > b->key) - (a->key < b->key);
}

static int64_t akey(int32_t user, int32_t acct)
{
	return (int64_t)user << 32 | (uint32_t)acct;
}

int32_t sl_assoc_of(const struct sl *st, int32_t user, int32_t acct)
{
	const struct sl_prio *pr = st->prio;
	if (!pr)
		return -1;
	if (user < 0 || acct < 0)
		return -1;
	struct sl_akey k = { .key = akey(user, acct) };
	const struct sl_akey *f = bsearch(&k, pr->keys, (size_t)pr->nkeys, sizeof k, key_cmp);
	return f ? f->assoc : -1;
}

/* Children lists by fs_parent, in the configuration's order (the
 * database's lft order, which slurmctld loads), and each child's
 * level_shares and shares_norm. */
static void link_tree(struct sl_prio *pr, bool fair_tree)
{
	for (int32_t i = 0; i < pr->n; i++)
		pr->a[i].first_child = pr->a[i].next = -1;
	for (int32_t i = 0; i < pr->n; i++) {
		struct sl_anode *x = &pr->a[i];
		int32_t f = x->parent;
		while (f >= 0 && pr->a[f].shares == SLURM_FS_PARENT && pr->a[f].parent >= 0)
			f = pr->a[f].parent;
		x->fs_parent = f;
	}
	for (int32_t i = pr->n - 1; i >= 1; i--) {
		int32_t f = pr->a[i].fs_parent;
		if (f < 0)
			continue;
		pr->a[i].next = pr->a[f].first_child;
		pr->a[f].first_child = i;
	}
	for (int32_t i = 0; i < pr->n; i++) {
		uint32_t sum = 0;
		for (int32_t c = pr->a[i].first_child; c >= 0; c = pr->a[c].next)
			if (pr->a[c].shares != SLURM_FS_PARENT)
				sum += pr->a[c].shares;
		for (int32_t c = pr->a[i].first_child; c >= 0; c = pr->a[c].next)
			pr->a[c].level_shares = sum;
	}
	for (int32_t i = 1; i < pr->n; i++) {
		struct sl_anode *x = &pr->a[i];
		if (fair_tree) {
			const struct sl_anode *fx = x->shares == SLURM_FS_PARENT && x->fs_parent >= 0 ? &pr->a[x->fs_parent] : x;
			x->shares_norm = fx->level_shares ? (double)fx->shares / (double)fx->level_shares : 0;
			continue;
		}
		if (x->shares == SLURM_FS_PARENT && x->fs_parent >= 0) {
			x->shares_norm = pr->a[x->fs_parent].shares_norm;   /* parents come first */
			continue;
		}
		double s = 1.0;
		for (int32_t k = i; pr->a[k].parent >= 0; k = pr->a[k].parent)
			if (pr->a[k].shares != SLURM_FS_PARENT)
				s = pr->a[k].level_shares ? s * (double)pr->a[k].shares / (double)pr->a[k].level_shares : 0;
		x->shares_norm = s;
	}
}

/* Room for `need` associations. */
static int grow_assoc(struct sl_prio *pr, int32_t need)
{
	if (need <= pr->cap)
		return 0;
	int32_t ncap = pr->cap ? pr->cap : 64;
	while (ncap < need)
		ncap *= 2;
	struct sl_anode *na = realloc(pr->a, (size_t)ncap * sizeof *na);
	if (!na)
		return -1;
	pr->a = na;
	int32_t *nb = realloc(pr->sibbuf, (size_t)ncap * sizeof *nb), *nt;
	if (!nb)
		return -1;
	pr->sibbuf = nb;
	if (!(nt = realloc(pr->sibtmp, (size_t)ncap * sizeof *nt)))
		return -1;
	pr->sibtmp = nt;
	pr->cap = ncap;
	return 0;
}

int sl_prio_init(struct sl *st, char *err, size_t errlen)
{
	struct sl_prio *pr = calloc(1, sizeof *pr);
	if (!(st->prio = pr))
		return -1;
	const struct slurm_cfg *c = st->cfg;
	pr->last_ran = -1;
	double hl = st->p[SP_HALFLIFE];
	pr->decay = hl > 0 ? 1.0 - 0.693 / hl : 1.0;
	int32_t n = c->nassoc > 0 ? c->nassoc : 1;
	if (grow_assoc(pr, n))
		goto oom;
	pr->n = n;
	memset(pr->a, 0, (size_t)n * sizeof *pr->a);
	pr->a[0].parent = -1;
	pr->a[0].shares = 1;
	for (int32_t i = 0; i < c->nassoc; i++) {
		const struct slurm_assoc *sa = &c->assoc[i];
		struct sl_anode *x = &pr->a[i];
		x->parent = i == 0 ? -1 : sa->parent;
		x->shares = sa->shares;
		x->priority = sa->priority;
		x->user = sa->user >= 0;
		if (x->user)
			pr->nuser_assoc++;
		if (x->priority > pr->max_assoc_prio)
			pr->max_assoc_prio = x->priority;
	}
	if (pr->nuser_assoc > 0) {
		if (!(pr->keys = calloc((size_t)pr->nuser_assoc, sizeof *pr->keys)))
			goto oom;
		for (int32_t i = 0; i < c->nassoc; i++)
			if (c->assoc[i].user >= 0)
				pr->keys[pr->nkeys++] = (struct sl_akey){ akey(c->assoc[i].user, c->assoc[i].account), i };
		qsort(pr->keys, (size_t)pr->nkeys, sizeof *pr->keys, key_cmp);
	}
	for (int32_t q = 0; q < c->nqos; q++)
		if (c->qos[q].priority > pr->max_qos_prio)
			pr->max_qos_prio = c->qos[q].priority;
	pr->max_pjf = 1;
	for (int32_t p = 0; p < c->npart; p++)
		if (c->part[p].prio_job_factor > pr->max_pjf)
			pr->max_pjf = c->part[p].prio_job_factor;
	link_tree(pr, st->p[SP_FAIR_TREE] >= 0.5);
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

void sl_prio_fini(struct sl *st)
{
	struct sl_prio *pr = st->prio;
	if (!pr)
		return;
	free(pr->a);
	free(pr->keys);
	free(pr->tenant_assoc);
	free(pr->sibbuf);
	free(pr->sibtmp);
	free(pr);
	st->prio = NULL;
}

/* No site tree: tenant t's user association (root -> account t -> user t),
 * added on its first job. -1 on ENOMEM. */
static int32_t tenant_assoc(struct sl *st, int32_t t)
{
	struct sl_prio *pr = st->prio;
	if (t < 0)
		t = 0;
	if (t >= pr->ntenant) {
		int32_t ncap = pr->ntenant ? pr->ntenant : 16;
		while (ncap <= t)
			ncap *= 2;
		int32_t *nt = realloc(pr->tenant_assoc, (size_t)ncap * sizeof *nt);
		if (!nt)
			return -1;
		for (int32_t k = pr->ntenant; k < ncap; k++)
			nt[k] = -1;
		pr->tenant_assoc = nt;
		pr->ntenant = ncap;
	}
	if (pr->tenant_assoc[t] >= 0)
		return pr->tenant_assoc[t];
	if (grow_assoc(pr, pr->n + 2))
		return -1;
	const struct org_tenant *ot = st->org ? org_tenant(st->org, t) : NULL;
	struct sl_anode *acc = &pr->a[pr->n], *usr = &pr->a[pr->n + 1];
	memset(acc, 0, 2 * sizeof *acc);
	acc->parent = 0;
	acc->shares = ot && ot->shares > 0 ? (uint32_t)ot->shares : 1;
	usr->parent = pr->n;
	usr->shares = 1;
	usr->user = true;
	pr->tenant_assoc[t] = pr->n + 1;
	pr->n += 2;
	pr->nuser_assoc++;
	link_tree(pr, st->p[SP_FAIR_TREE] >= 0.5);
	return pr->tenant_assoc[t];
}

int32_t sl_job_assoc(struct sl *st, int32_t id)
{
	const struct sl_job *sj = &st->job[id];
	if (sj->assoc >= 0)
		return sj->assoc;
	if (st->cfg->nassoc > 0)
		return 0;   /* a site tree without this user: root */
	return tenant_assoc(st, st->v->jobs[id].tenant);
}

/* ---- usage ---- */

static void charge(struct sl *st, int32_t id, int64_t from_s, int64_t to_s)
{
	struct sl_prio *pr = st->prio;
	const struct sl_job *sj = &st->job[id];
	int64_t d = to_s - from_s;
	if (d <= 0 || sj->assoc < 0)
		return;
	double run_decay = (double)d * pow(pr->decay, (double)d);
	double uf = st->cfg->qos[sj->qos].usage_factor;
	long double c = (long double)(run_decay * (double)sj->cpus * (uf >= 0 ? uf : 1.0));
	for (int32_t a = sj->assoc; a >= 0; a = pr->a[a].parent)
		pr->a[a].usage_raw += c;
}

static int64_t secs(simtime t)
{
	return t >= 0 ? t / SL_SEC : -((-t + SL_SEC - 1) / SL_SEC);
}

void sl_prio_job_end(struct sl *st, int32_t id)
{
	struct sl_prio *pr = st->prio;
	const struct job *j = &st->v->jobs[id];
	if (st->p[SP_MULTIFACTOR] < 0.5 || st->p[SP_ENFORCE] < 0.5 || j->start_us < 0)
		return;
	int64_t from = secs(j->start_us);
	if (pr->last_ran >= 0 && secs(pr->last_ran) > from)
		from = secs(pr->last_ran);
	charge(st, id, from, secs(st->v->now));
}

/* ---- fair share ---- */

static int lfs_cmp(const struct sl_prio *pr, int32_t x, int32_t y)
{
	const struct sl_anode *a = &pr->a[x], *b = &pr->a[y];
	if (a->level_fs != b->level_fs)
		return a->level_fs < b->level_fs ? 1 : -1;
	if (a->user == b->user)
		return 0;
	return a->user ? -1 : 1;
}

/* glibc's merge sort (stable): ties keep children_list order. */
static void sort_sibs(const struct sl_prio *pr, int32_t *b, int32_t n, int32_t *tmp)
{
	if (n <= 1)
		return;
	int32_t n1 = n / 2, n2 = n - n1, *b1 = b, *b2 = b + n1, *t = tmp;
	sort_sibs(pr, b1, n1, tmp);
	sort_sibs(pr, b2, n2, tmp);
	while (n1 > 0 && n2 > 0) {
		if (lfs_cmp(pr, *b1, *b2) <= 0) {
			*t++ = *b1++;
			n1--;
		} else {
			*t++ = *b2++;
			n2--;
		}
	}
	if (n1 > 0)
		memcpy(t, b1, (size_t)n1 * sizeof *t);
	memcpy(b, tmp, (size_t)(n - n2) * sizeof *b);
}

static void calc_assoc_fs(struct sl_prio *pr, int32_t i)
{
	struct sl_anode *x = &pr->a[i];
	const struct sl_anode *p = x->fs_parent >= 0 ? &pr->a[x->fs_parent] : NULL;
	x->usage_efctv = p && p->usage_raw != 0 ? x->usage_raw / p->usage_raw : 0;
	if (x->shares == SLURM_FS_PARENT) {
		x->level_fs = x->user ? (long double)INFINITY : (long double)4294967294u;
		return;
	}
	long double s = (long double)x->shares_norm;
	x->level_fs = s == 0 ? 0 : s / x->usage_efctv;
}

/* _calc_tree_fs: siblings from sibbuf[off .. off+n). */
static void calc_tree_fs(struct sl_prio *pr, int32_t off, int32_t n, uint32_t *rank, uint32_t *rnt,
                         bool account_tied)
{
	int32_t *sib = pr->sibbuf + off;
	for (int32_t i = 0; i < n; i++)
		calc_assoc_fs(pr, sib[i]);
	sort_sibs(pr, sib, n, pr->sibtmp);
	long double prev = (long double)4294967294u;
	for (int32_t i = 0; i < n; i++) {
		struct sl_anode *x = &pr->a[sib[i]];
		bool tied = i == 0 && account_tied ? true : prev == x->level_fs;
		if (x->user) {
			if (!tied)
				*rank = *rnt;
			x->fs_factor = *rank / (double)pr->nuser_assoc;
			(*rnt)--;
		} else {
			int32_t m = 0;
			for (int32_t c = x->first_child; c >= 0; c = pr->a[c].next)
				pr->sibbuf[off + n + m++] = c;
			if (m)
				calc_tree_fs(pr, off + n, m, rank, rnt, tied);
		}
		prev = x->level_fs;
	}
}

static void fair_tree(struct sl_prio *pr)
{
	uint32_t rank = (uint32_t)pr->nuser_assoc, rnt = rank;
	int32_t m = 0;
	for (int32_t c = pr->a[0].first_child; c >= 0; c = pr->a[c].next)
		pr->sibbuf[m++] = c;
	if (m)
		calc_tree_fs(pr, 0, m, &rank, &rnt, false);
}

/* Classic fair share: each association's effective usage, top-down. */
static void classic(struct sl_prio *pr, double damp)
{
	long double root = pr->a[0].usage_raw;
	for (int32_t i = 1; i < pr->n; i++) {
		struct sl_anode *x = &pr->a[i];
		long double ua = root > 0 ? x->usage_raw / root : 0;
		if (ua > 1)
			ua = 1;
		if (x->fs_parent <= 0)
			x->usage_efctv = ua;
		else if (x->shares == SLURM_FS_PARENT)
			x->usage_efctv = pr->a[x->fs_parent].usage_efctv;
		else if (!x->level_shares)
			x->usage_efctv = pr->a[x->fs_parent].usage_efctv;
		else
			x->usage_efctv = ua + (pr->a[x->fs_parent].usage_efctv - ua) * (long double)x->shares /
			                      (long double)x->level_shares;
		x->fs_factor = x->shares_norm > 0
		                   ? pow(2.0, -((double)x->usage_efctv / x->shares_norm) / damp) : 0;
	}
}

/* ---- the priority ---- */

uint32_t sl_prio_job(struct sl *st, int32_t id, simtime now)
{
	struct sl_prio *pr = st->prio;
	const struct job *j = &st->v->jobs[id];
	struct sl_job *sj = &st->job[id];
	const double *p = st->p;
	double age = 0, assoc = 0, fs = 0, js = 0, part = 0, qos = 0;
	if (sj->assoc < 0)
		sj->assoc = sl_job_assoc(st, id);
	if (p[SP_W_AGE] > 0 && sj->accrue_us >= 0) {
		int64_t diff = secs(now) - secs(sj->accrue_us);
		if (diff < 0)
			diff = 0;
		age = (double)diff < p[SP_MAX_AGE] ? (double)diff / p[SP_MAX_AGE] : 1.0;
	}
	if (p[SP_W_ASSOC] > 0 && sj->assoc >= 0 && pr->max_assoc_prio)
		assoc = (double)pr->a[sj->assoc].priority / (double)pr->max_assoc_prio;
	if (p[SP_W_FS] > 0 && sj->assoc >= 0)
		fs = pr->a[sj->assoc].fs_factor;
	if (p[SP_W_SIZE] > 0) {
		double nn = (double)st->n, cc = (double)st->total_cpus;
		double cpus = (double)(sj->cpus > 0 ? sj->cpus : job_req_cores(&j->req));
		double minn = j->req.nodes > 0 ? j->req.nodes : 1;
		if (p[SP_FAVOR_SMALL] >= 0.5) {
			js = (nn - minn) / nn;
			if (cpus > 0)
				js = (js + (cc - cpus) / cc) / 2;
		} else {
			js = minn / nn;
			if (cpus > 0)
				js = (js + cpus / cc) / 2;
		}
		js = js < 0 ? 0 : js > 1 ? 1 : js;
	}
	const struct slurm_part *pp = &st->cfg->part[sj->part];
	if (p[SP_W_PART] > 0 && pp->prio_job_factor)
		part = (double)pp->prio_job_factor / (double)pr->max_pjf;
	const struct slurm_qos *q = &st->cfg->qos[sj->qos];
	if (p[SP_W_QOS] > 0 && q->priority && pr->max_qos_prio)
		qos = (double)q->priority / (double)pr->max_qos_prio;
	double prio = age * (double)(uint32_t)p[SP_W_AGE] + assoc * (double)(uint32_t)p[SP_W_ASSOC] +
	              fs * (double)(uint32_t)p[SP_W_FS] + js * (double)(uint32_t)p[SP_W_SIZE] +
	              part * (double)(uint32_t)p[SP_W_PART] + qos * (double)(uint32_t)p[SP_W_QOS];
	if (prio < 1)
		prio = 1;
	uint64_t v = (uint64_t)prio;
	return v > 0xffffffffull ? 0xffffffffu : (uint32_t)v;
}

void sl_prio_tick(struct sl *st)
{
	struct sl_prio *pr = st->prio;
	const struct view *v = st->v;
	simtime period = simtime_from_s(st->p[SP_CALC_PERIOD]);
	/* the tick this call stands for: the last grid point at or before now */
	simtime t = v->now;
	if (period > 0 && t >= st->ctld_us)
		t = st->ctld_us + (t - st->ctld_us) / period * period;
	int64_t ts = secs(t);
	if (pr->last_ran >= 0) {
		int64_t dt = ts - secs(pr->last_ran);
		if (dt > 0) {
			long double f = (long double)pow(pr->decay, (double)dt);
			for (int32_t i = 0; i < pr->n; i++)
				pr->a[i].usage_raw *= f;
		}
	}
	for (int32_t k = 0; k < v->nrunning; k++) {
		int32_t id = v->running[k];
		if (id >= st->cap_job || !st->job[id].known)
			continue;
		int64_t from = secs(v->jobs[id].start_us);
		if (pr->last_ran >= 0 && secs(pr->last_ran) > from)
			from = secs(pr->last_ran);
		charge(st, id, from, ts);
	}
	if (st->p[SP_FAIR_TREE] >= 0.5)
		fair_tree(pr);
	else
		classic(pr, st->p[SP_DAMPENING]);
	for (int32_t k = 0; k < v->npending; k++) {
		int32_t id = v->pending[k];
		if (id < st->cap_job && st->job[id].known && !st->job[id].never)
			st->job[id].prio = sl_prio_job(st, id, t);
	}
	pr->last_ran = t;
}

/* ---- snapshots ---- */

void sl_prio_save(const struct sl *st, struct snapw *w)
{
	const struct sl_prio *pr = st->prio;
	snap_put_tag(w, "slprio");
	uint8_t have = pr != NULL;
	snap_put(w, &have, 1);
	if (!pr)
		return;
	snap_put_n(w, pr->n);
	snap_put_n(w, pr->ntenant);
	snap_put(w, &pr->nuser_assoc, sizeof pr->nuser_assoc);
	snap_put(w, pr->a, (size_t)pr->n * sizeof *pr->a);
	snap_put(w, pr->tenant_assoc, (size_t)pr->ntenant * sizeof *pr->tenant_assoc);
	snap_put(w, &pr->max_assoc_prio, sizeof pr->max_assoc_prio);
	snap_put(w, &pr->max_qos_prio, sizeof pr->max_qos_prio);
	snap_put(w, &pr->max_pjf, sizeof pr->max_pjf);
	snap_put(w, &pr->last_ran, sizeof pr->last_ran);
}

int sl_prio_load(struct sl *st, struct snapr *r)
{
	struct sl_prio *pr = st->prio;
	if (snap_get_tag(r, "slprio"))
		return -1;
	uint8_t have = 0;
	snap_get(r, &have, 1);
	if ((have != 0) != (pr != NULL))
		return snap_bad(r, "priority/multifactor is on in one run and not in the other");
	if (!pr)
		return r->bad ? -1 : 0;
	int64_t n = snap_get_n(r, INT32_MAX / 4, "the associations");
	int64_t nt = snap_get_n(r, INT32_MAX / 4, "the tenants' associations");
	if (n < 1 || nt < 0)
		return r->bad ? -1 : snap_bad(r, "no root association");
	if (grow_assoc(pr, (int32_t)n + 2))
		return snap_bad(r, "out of memory");
	if (nt > pr->ntenant) {
		int32_t *t = realloc(pr->tenant_assoc, (size_t)nt * sizeof *t);
		if (!t)
			return snap_bad(r, "out of memory");
		pr->tenant_assoc = t;
	}
	pr->n = (int32_t)n;
	pr->ntenant = (int32_t)nt;
	snap_get(r, &pr->nuser_assoc, sizeof pr->nuser_assoc);
	snap_get(r, pr->a, (size_t)n * sizeof *pr->a);
	snap_get(r, pr->tenant_assoc, (size_t)nt * sizeof *pr->tenant_assoc);
	snap_get(r, &pr->max_assoc_prio, sizeof pr->max_assoc_prio);
	snap_get(r, &pr->max_qos_prio, sizeof pr->max_qos_prio);
	snap_get(r, &pr->max_pjf, sizeof pr->max_pjf);
	snap_get(r, &pr->last_ran, sizeof pr->last_ran);
	if (r->bad)
		return -1;
	link_tree(pr, st->p[SP_FAIR_TREE] >= 0.5);
	return 0;
}
