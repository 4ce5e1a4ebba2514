/* slurm_willrun — sched/backfill's will-run test (cons_common/job_test.c
 * _will_run_test; docs/slurm-twin.md "Backfill"): when job id can start on
 * the nodes a cycle allows it. It releases the running jobs at their
 * expected ends (start + time limit, in the order of the list that
 * sl_ends_build sorts) in batches anchored on a 30-second boundary, the
 * window doubling after each, and tries the selection after each batch;
 * the start is the end of the last job released.
 *
 * Two ways to one answer. The simulation releases the jobs into a future
 * free state and selects after each batch where a fit is possible. The
 * short way serves a request of equal parts on whole nodes (one node or
 * a gang; no share, no preemption): a node's free state after the first p
 * releases depends only on its own jobs among them, so the first release
 * after which each node takes the request is kept per request (struct
 * sl_tau), from cycle to cycle, and found again only for the nodes whose
 * free state, jobs, service or power state changed (node_sig); the job
 * fits after release p exactly when enough allowed nodes take it by then
 * (of one GPU model for a GPU gang). Only the batches' boundaries are
 * walked, and the nodes are selected once, on the free states of the batch
 * that fits. Where the short way cannot decide (enough nodes take the part
 * but their cores do not split over NUMA domains) the simulation runs.
 * The parameter shortcuts 0 always simulates; tests/unit/test_slurm_short.c
 * and tests/scenario/run.sh check that both decide alike. */
#include "policies/slurm_int.h"
#include "sim/power.h"

#include <stdlib.h>


/* ---- running jobs by expected end ---- */


static int end_cmp(const void *x, const void *y)
{
	const struct sl_end *a = x, *b = y;
	if (a->end_s != b->end_s)
		return a->end_s < b->end_s ? -1 : 1;
	return (a->job > b->job) - (a->job < b->job);
}

/* Job id's entry in the list: its nodes (Slurm indexes). */
static struct sl_end end_new(struct sl *st, int32_t id)
{
	const struct job *j = &st->v->jobs[id];
	const struct alloc_part *p = &st->v->parts[j->parts];
	struct sl_end e = { .job = id, .k1 = j->nparts > 0 ? st->pos[p[0].node] : -1, .nk = j->nparts };
	if (j->nparts > 1) {
		if (st->nend_k + j->nparts > st->cap_end_k) {
			int32_t ncap = st->cap_end_k ? st->cap_end_k : 1024;
			while (ncap < st->nend_k + j->nparts)
				ncap *= 2;
			int32_t *k = realloc(st->end_k, (size_t)ncap * sizeof *k);
			if (!k) {
				e.nk = 1;   /* ENOMEM: seen on its first node only */
				return e;
			}
			st->end_k = k;
			st->cap_end_k = ncap;
		}
		e.koff = st->nend_k;
		for (int32_t m = 0; m < j->nparts; m++)
			st->end_k[st->nend_k++] = st->pos[p[m].node];
	}
	return e;
}

static int64_t end_of(const struct sl *st, int32_t id)
{
	const struct sl_job *sj = &st->job[id];
	int64_t lim = sj->limit_s < 0 ? 365 * 86400LL : sj->limit_s;
	return sl_epoch(st, st->v->jobs[id].start_us) + lim;
}

static int ends_room(struct sl *st, int32_t n)
{
	if (n <= st->cap_ends)
		return 0;
	int32_t ncap = st->cap_ends ? st->cap_ends : 256;
	while (ncap < n)
		ncap *= 2;
	struct sl_end *e = realloc(st->ends, (size_t)ncap * sizeof *e);
	if (!e)
		return -1;
	st->ends = e;
	st->cap_ends = ncap;
	return 0;
}

int sl_room(struct sl *st, int32_t nrun)
{
	return ends_room(st, nrun + 1) || sl_cands_room(st, nrun) ? -1 : 0;
}

void sl_ends_build(struct sl *st)
{
	const struct view *v = st->v;
	st->nends = 0;
	if (ends_room(st, v->nrunning + 1))
		return;
	st->nend_k = 0;
	for (int32_t k = 0; k < v->nrunning; k++) {
		int32_t id = v->running[k];
		if (id >= st->cap_job || !st->job[id].known)
			continue;
		struct sl_end e = end_new(st, id);
		e.end_s = end_of(st, id);
		st->ends[st->nends++] = e;
	}
	qsort(st->ends, (size_t)st->nends, sizeof *st->ends, end_cmp);
	st->at_dirty = true;   /* nodes_jobs finds the nodes that changed */
	st->list_ver++;
}

/* A job started in the cycle joins the list in order. */
void sl_ends_add(struct sl *st, int32_t id)
{
	if (ends_room(st, st->nends + 1))
		return;
	st->at_dirty = true;   /* its nodes changed: nodes_jobs sees it */
	st->list_ver++;
	struct sl_end e = end_new(st, id);
	e.end_s = end_of(st, id);
	int32_t k = st->nends;
	while (k > 0 && end_cmp(&st->ends[k - 1], &e) > 0) {
		st->ends[k] = st->ends[k - 1];
		k--;
	}
	st->ends[k] = e;
	st->nends++;
}

/* ---- the will-run test ---- */

static bool end_on(const struct sl *st, const struct sl_end *e, const uint64_t *nodes)
{
	if (e->k1 < 0)
		return false;
	if (sl_bit(nodes, e->k1))
		return true;
	for (int32_t m = 1; m < e->nk; m++)
		if (sl_bit(nodes, st->end_k[e->koff + m]))
			return true;
	return false;
}

/* What the nodes of `avail` offer the tested job (a necessary condition
 * of a fit, kept up to date as jobs are released, so that the full
 * selection runs only where it may succeed): nodes that can take a gang's
 * part, or CPUs for a spread request. */
struct fz {
	const struct job_req *r;
	const uint64_t *avail;
	int64_t have, need;
	bool on;
};

static void fz_init(struct sl *st, struct fz *z, const struct job_req *r, const uint64_t *avail,
                    const struct nodefree *f)
{
	*z = (struct fz){ .r = r, .avail = avail, .on = !job_req_shared(r),
	                  .need = r->nodes > 0 ? r->nodes : job_req_cores(r) };
	if (!z->on)
		return;
	for (int32_t k = 0; k < st->n; k++) {
		if (!sl_bit(avail, k)) {
			st->okc[k] = 0;
			continue;
		}
		int32_t c = sl_node_cpus(st, f, st->ord[k], r);
		st->okc[k] = c;
		z->have += r->nodes > 0 ? c > 0 : c;
	}
}

static bool fz_may(const struct fz *z)
{
	return !z->on || z->have >= z->need;
}

/* Job id's resources go back to st->fut. */
static void release(struct sl *st, struct fz *z, int32_t id)
{
	const struct job *j = &st->v->jobs[id];
	const struct alloc_part *p = &st->v->parts[j->parts];
	nodefree_give(st->fut, p, j->nparts);
	if (!z || !z->on)
		return;
	for (int32_t m = 0; m < j->nparts; m++) {
		int32_t k = st->pos[p[m].node];
		if (!sl_bit(z->avail, k))
			continue;
		int32_t c = sl_node_cpus(st, st->fut, p[m].node, z->r);
		z->have += z->r->nodes > 0 ? (c > 0) - (st->okc[k] > 0) : c - st->okc[k];
		st->okc[k] = c;
	}
}

static bool is_cand(const struct sl *st, int32_t id)
{
	return st->job[id].mark == st->stamp;
}

/* _guess_job_end: a job past its expected end. */
static int64_t guess_end(const struct sl *st, const struct sl_end *e, int64_t now)
{
	const struct sl_job *sj = &st->job[e->job];
	int32_t over = st->cfg->part[sj->part].over_time_limit_min;
	if (over < 0)
		over = (int32_t)st->p[SP_OVERTIME];
	int64_t end = e->end_s + (int64_t)st->p[SP_KILL_WAIT] + (int64_t)over * 60;
	return end <= now ? now + 1 : end;
}

/* When job id can start on the nodes `avail` (Slurm order), the nodes it
 * would take in st->parts; -1 when never (within what the test sees).
 * now_only: TEST_NOW_ONLY (no reservation wanted). preempt: the job may
 * preempt (its candidates are in st->cands). */
static int64_t will_run_sim(struct sl *st, int32_t id, const uint64_t *avail, bool now_only, bool preempt, int *np,
                            int64_t now)
{
	const struct cluster *cl = st->cl;
	const struct job_req *r = &st->v->jobs[id].req;
	struct fz z;
	fz_init(st, &z, r, avail, cl->free);
	*np = fz_may(&z) ? sl_select(st, id, cl->free, avail, true) : 0;
	if (*np > 0)
		return now;
	if (now_only && !preempt)
		return -1;
	memcpy(st->fut, cl->free, (size_t)st->n * sizeof *st->fut);
	st->stamp++;   /* the candidates of this test, if any, are marked with it */
	if (preempt && st->ncands > 0) {
		for (int32_t k = 0; k < st->ncands; k++)
			st->job[st->cands[k]].mark = st->stamp;
		for (int32_t k = 0; k < st->ncands; k++)
			if (sl_job_on(st, st->cands[k], avail))
				release(st, &z, st->cands[k]);
		if (fz_may(&z) && (*np = sl_select(st, id, st->fut, avail, true)) > 0)
			return now;
	}
	if (now_only)
		return -1;
	int64_t window = 30, anchor = 0;
	int32_t it = 0;
	bool more = true;
	while (more) {
		const struct sl_end *last = NULL;
		int cnt = 0;
		bool skip_test = false;
		for (;;) {
			if (it >= st->nends) {
				more = false;
				break;
			}
			const struct sl_end *e = &st->ends[it++];
			if ((preempt && is_cand(st, e->job)) || !end_on(st, e, avail))
				continue;
			if (!anchor)
				anchor = e->end_s + (window - e->end_s % window);
			last = e;
			release(st, &z, e->job);
			if (it >= st->nends) {
				more = false;
				break;
			}
			if (st->ends[it].end_s > anchor + window)
				break;
			if (cnt++ > 200) {
				skip_test = true;
				break;
			}
		}
		if (!last)
			break;
		if (skip_test)
			continue;
		const struct sl_end *nx = it < st->nends ? &st->ends[it] : NULL;
		do
			window *= 2;
		while (nx && nx->end_s > anchor + window);
		if (fz_may(&z) && (*np = sl_select(st, id, st->fut, avail, true)) > 0)
			return last->end_s <= now ? guess_end(st, last, now) : last->end_s;
	}
	return -1;
}


/* ---- the short way ---- */

/* An entry's place in the list as one number: (expected end, job), the
 * list's order, which a start in the cycle does not change for the rest. */
static inline int64_t key_of(const struct sl_end *e)
{
	return e->end_s * ((int64_t)1 << 32) + e->job;
}

#define KEY_NOW ((int64_t)-1)
#define KEY_NEVER INT64_MAX

/* One request on one partition: each node's first release that fits it
 * (t by Slurm index: KEY_NOW it takes the request now, KEY_NEVER not
 * before all its jobs ended, else the key of the release after which it
 * does), and the partition's nodes in service in that order (ties by
 * index). Kept from cycle to cycle: the nodes whose free state or jobs
 * changed (st->touch, found by nodes_jobs) are brought up to date before
 * it is used; a change of the nodes in service, or victims signalled,
 * drops every slot (short_stale). */
struct sl_tau {
	struct job_req r;
	int32_t part;
	uint64_t cycle;            /* == st->tau_cycle: alive */
	uint64_t serial;           /* this making's, unique */
	int32_t seen;              /* st->touch[0 .. seen) applied */
	int64_t *t;
	int32_t *sk, nsk;
};

#define SL_TAUS 32

/* The batches of releases for one set of allowed nodes: the positions
 * after which the selection is tried (a batch's last release; batches of
 * more than 201 releases are not tested), found as far as a test has
 * needed them and kept for the list (walk_of, per st->list_ver): jobs
 * tested on the same nodes share them. */
struct sl_walk {
	uint64_t ver;                  /* st->list_ver when made; 0 free */
	uint64_t *avail;               /* the allowed nodes */
	int32_t it;                    /* the next position to look at */
	int64_t window, anchor;
	bool more;
	int32_t *tp, ntp, cap;         /* test points found */
};

#define SL_WALKS 64

/* Nothing known any more. */
static void short_stale(struct sl *st)
{
	st->tau_cycle++;
	st->at_dirty = true;
	st->ntouch = 0;
}

void sl_will_run_stale(struct sl *st)
{
	short_stale(st);
}

void sl_will_run_forget(struct sl *st)
{
	st->nends = st->nend_k = 0;
	st->list_ver++;      /* the walks name positions in the list */
	st->sig_ok = false;  /* the digests hold the keys: recomputed, every slot dropped */
	short_stale(st);     /* the slots hold keys */
}

int sl_will_run_init(struct sl *st)
{
	size_t n = (size_t)st->n + 1;
	st->tau = calloc(SL_TAUS, sizeof *st->tau);
	st->at_off = calloc(n, sizeof *st->at_off);
	st->tv = calloc(n, sizeof *st->tv);
	st->touch = calloc(4 * n, sizeof *st->touch);
	st->sig = calloc(n, sizeof *st->sig);
	st->sig_up = calloc((size_t)st->nw + 1, 8);
	st->tbits = calloc((size_t)st->nw + 1, 8);
	st->tt = calloc(n, sizeof *st->tt);
	st->nmodel = calloc((size_t)st->cl->cat.ngpus + 1, sizeof *st->nmodel);
	if (!st->tau || !st->at_off || !st->tv || !st->touch || !st->nmodel || !st->sig || !st->sig_up || !st->tbits || !st->tt)
		return -1;
	for (int s = 0; s < SL_TAUS; s++) {
		st->tau[s].t = calloc(n, sizeof *st->tau[s].t);
		st->tau[s].sk = calloc(n, sizeof *st->tau[s].sk);
		if (!st->tau[s].t || !st->tau[s].sk)
			return -1;
	}
	st->walks = calloc(SL_WALKS, sizeof *st->walks);
	if (!st->walks)
		return -1;
	for (int w = 0; w < SL_WALKS; w++)
		if (!(st->walks[w].avail = calloc((size_t)st->nw + 1, 8)))
			return -1;
	st->tau_cycle = 1;
	st->list_ver = 1;
	return 0;
}

void sl_will_run_fini(struct sl *st)
{
	free(st->ends);
	free(st->endtmp);
	free(st->end_k);
	free(st->cands);
	if (st->tau)
		for (int s = 0; s < SL_TAUS; s++) {
			free(st->tau[s].t);
			free(st->tau[s].sk);
		}
	free(st->tau);
	if (st->walks)
		for (int w = 0; w < SL_WALKS; w++) {
			free(st->walks[w].avail);
			free(st->walks[w].tp);
		}
	free(st->walks);
	free(st->at_off);
	free(st->at_key);
	free(st->at_part);
	free(st->tv);
	free(st->touch);
	free(st->nmodel);
	free(st->sig);
	free(st->sig_up);
	free(st->tbits);
	free(st->tt);
}

static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

/* What a node's answers depend on, as a 64-bit digest: its free state,
 * whether it may take work (service, power), its jobs' keys. (Two states
 * with one digest would keep a stale answer: about one chance in 2^64 a
 * comparison.) */
static uint64_t node_sig(const struct sl *st, int32_t k)
{
	const struct cluster *cl = st->cl;
	int32_t i = st->ord[k];
	const struct nodefree *f = &cl->free[i];
	uint64_t h = mix(mix(mix(0, (uint64_t)(uint32_t)f->cores), (uint64_t)f->mem_mib), f->gpu_free);
	for (int d = 0; d < HL_NUMA_MAX; d++)
		h = mix(h, (uint64_t)(uint16_t)f->numa_free[d]);
	h = mix(h, (uint64_t)cl->svc[i] + 2 * (uint64_t)(cl->pw && power_node_blocked(cl, i)));
	for (int32_t a = st->at_off[k]; a < st->at_off[k + 1]; a++)
		h = mix(h, (uint64_t)st->at_key[a]);
	return h;
}

/* The nodes that changed since the lists were last made join st->touch;
 * a change of the nodes in service drops every slot. */
static void node_changes(struct sl *st)
{
	if (!st->sig_ok || memcmp(st->sig_up, st->up, (size_t)st->nw * 8)) {
		short_stale(st);
		st->at_dirty = false;
		memcpy(st->sig_up, st->up, (size_t)st->nw * 8);
		for (int32_t k = 0; k < st->n; k++)
			st->sig[k] = node_sig(st, k);
		st->sig_ok = true;
		return;
	}
	for (int32_t k = 0; k < st->n; k++) {
		uint64_t h = node_sig(st, k);
		if (h == st->sig[k])
			continue;
		st->sig[k] = h;
		if (st->ntouch >= 4 * st->n) {   /* slots that far behind start over */
			short_stale(st);
			st->at_dirty = false;
			continue;
		}
		st->touch[st->ntouch++] = k;
	}
}

/* Per node, the keys of its jobs in st->ends, ascending, and their parts
 * there (indexes in the view's parts). */
static int nodes_jobs(struct sl *st)
{
	const struct view *v = st->v;
	int32_t n = st->n, total = 0;
	memset(st->at_off, 0, ((size_t)n + 1) * sizeof *st->at_off);
	for (int32_t e = 0; e < st->nends; e++) {
		const struct job *j = &v->jobs[st->ends[e].job];
		for (int32_t m = 0; m < j->nparts; m++)
			st->at_off[st->pos[v->parts[j->parts + m].node] + 1]++;
		total += j->nparts;
	}
	if (total > st->cap_at) {
		int64_t *p = realloc(st->at_key, (size_t)total * sizeof *p);
		if (p)
			st->at_key = p;
		int32_t *c = realloc(st->at_part, (size_t)total * sizeof *c);
		if (c)
			st->at_part = c;
		if (!p || !c)
			return -1;
		st->cap_at = total;
	}
	for (int32_t k = 0; k < n; k++)
		st->at_off[k + 1] += st->at_off[k];
	int32_t *fill = st->tv;   /* scratch: the next free slot per node */
	memcpy(fill, st->at_off, (size_t)n * sizeof *fill);
	for (int32_t e = 0; e < st->nends; e++) {
		const struct job *j = &v->jobs[st->ends[e].job];
		for (int32_t m = 0; m < j->nparts; m++) {
			const struct alloc_part *p = &v->parts[j->parts + m];
			int32_t a = fill[st->pos[p->node]]++;
			st->at_key[a] = key_of(&st->ends[e]);
			st->at_part[a] = j->parts + m;
		}
	}
	st->at_dirty = false;
	node_changes(st);
	return 0;
}

/* The part of node list entry a back to st->fut. */
static void give_at(struct sl *st, int32_t a)
{
	nodefree_give(st->fut, &st->v->parts[st->at_part[a]], 1);
}

static int64_t tau_node(struct sl *st, const struct job_req *r, int32_t k)
{
	int32_t i = st->ord[k];
	if (sl_node_cpus(st, st->cl->free, i, r) > 0)
		return KEY_NOW;
	st->fut[i] = st->cl->free[i];
	for (int32_t a = st->at_off[k]; a < st->at_off[k + 1]; a++) {
		give_at(st, a);
		if (sl_node_cpus(st, st->fut, i, r) > 0)
			return st->at_key[a];
	}
	return KEY_NEVER;
}

static bool sk_before(const struct sl_tau *s, int32_t a, int32_t b)
{
	return s->t[a] < s->t[b] || (s->t[a] == s->t[b] && a < b);
}

/* a[0..n) by (t, index), with tmp[0..n) as scratch: a bottom-up merge
 * sort. */
static void sort_by_t(const struct sl_tau *s, int32_t *a, int32_t n, int32_t *tmp)
{
	int32_t *src = a, *dst = tmp;
	for (int32_t width = 1; width < n; width *= 2) {
		for (int32_t lo = 0; lo < n; lo += 2 * width) {
			int32_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
			int32_t x = lo, y = mid, o = lo;
			while (x < mid && y < hi)
				dst[o++] = sk_before(s, src[y], src[x]) ? src[y++] : src[x++];
			while (x < mid)
				dst[o++] = src[x++];
			while (y < hi)
				dst[o++] = src[y++];
		}
		int32_t *z = src;
		src = dst;
		dst = z;
	}
	if (src != a)
		memcpy(a, src, (size_t)n * sizeof *a);
}

/* Brings slot s up to date with the nodes that changed: their answers
 * again, out of the order and merged back in. */
static void tau_update(struct sl *st, struct sl_tau *s)
{
	if (s->seen == st->ntouch)
		return;
	const uint64_t *pb = st->part_bits + (size_t)s->part * (size_t)st->nw;
	int32_t nt = 0;
	for (; s->seen < st->ntouch; s->seen++) {
		int32_t k = st->touch[s->seen];
		if (!sl_bit(pb, k) || !sl_bit(st->up, k) || sl_bit(st->tbits, k))
			continue;
		sl_set(st->tbits, k);
		s->t[k] = tau_node(st, &s->r, k);
		st->tt[nt++] = k;
	}
	if (nt == 0)
		return;
	/* the others keep their order */
	int32_t *keep = st->tv, nkeep = 0;
	for (int32_t j = 0; j < s->nsk; j++)
		if (!sl_bit(st->tbits, s->sk[j]))
			keep[nkeep++] = s->sk[j];
	for (int32_t x = 0; x < nt; x++)
		sl_clr(st->tbits, st->tt[x]);
	int32_t *ch = st->tt;
	sort_by_t(s, ch, nt, s->sk);   /* sk is free: its order is in keep */
	int32_t a = 0, b = 0, o = 0;
	while (a < nkeep && b < nt)
		s->sk[o++] = sk_before(s, ch[b], keep[a]) ? ch[b++] : keep[a++];
	while (a < nkeep)
		s->sk[o++] = keep[a++];
	while (b < nt)
		s->sk[o++] = ch[b++];
}

static struct sl_tau *tau_make(struct sl *st, const struct job_req *r, int32_t part)
{
	uint32_t h = sl_req_hash(r, part) % SL_TAUS;
	struct sl_tau *s = NULL;
	for (uint32_t probe = 0; probe < 4; probe++) {
		struct sl_tau *x = &st->tau[(h + probe) % SL_TAUS];
		if (x->cycle != st->tau_cycle) {
			if (!s)
				s = x;
			continue;
		}
		if (x->part == part && !memcmp(&x->r, r, sizeof *r))
			return x;
	}
	if (!s)
		s = &st->tau[h];   /* all taken: the first gives way */
	s->r = *r;
	s->part = part;
	s->cycle = st->tau_cycle;
	s->serial = ++st->tau_serial;
	s->seen = st->ntouch;
	s->nsk = 0;
	const uint64_t *pb = st->part_bits + (size_t)part * (size_t)st->nw;
	for (int32_t w = 0; w < st->nw; w++)
		for (uint64_t b = pb[w] & st->up[w]; b; b &= b - 1) {
			int32_t k = w * 64 + __builtin_ctzll(b);
			s->t[k] = tau_node(st, &s->r, k);
			s->sk[s->nsk++] = k;
		}
	sort_by_t(s, s->sk, s->nsk, st->tv);
	return s;
}

/* Job id's slot, made or brought up to date for this cycle. */
static const struct sl_tau *tau_slot(struct sl *st, int32_t id)
{
	if (st->at_dirty && nodes_jobs(st))
		return NULL;
	struct sl_job *sj = &st->job[id];
	struct sl_tau *s = &st->tau[sj->tau_ix];
	if (!sj->tau_ser || s->serial != sj->tau_ser || s->cycle != st->tau_cycle) {
		s = tau_make(st, &st->v->jobs[id].req, sj->part);
		sj->tau_ix = (int32_t)(s - st->tau);
		sj->tau_ser = s->serial;
	}
	tau_update(st, s);
	return s;
}

/* The key of the release after which `need` nodes of avail take the
 * request (of one GPU model when by_model): KEY_NOW now, KEY_NEVER never. */
static int64_t fit_at(struct sl *st, const struct sl_tau *s, const uint64_t *avail, int32_t need, bool by_model)
{
	const struct cluster *cl = st->cl;
	int32_t cnt = 0;
	if (by_model)
		memset(st->nmodel, 0, (size_t)cl->cat.ngpus * sizeof *st->nmodel);
	for (int32_t j = 0; j < s->nsk; j++) {
		int32_t k = s->sk[j];
		int64_t t = s->t[k];
		if (t == KEY_NEVER)
			break;
		if (!sl_bit(avail, k))
			continue;
		int32_t m = cl->nodes[st->ord[k]].gpu_model;
		if (by_model ? m >= 0 && ++st->nmodel[m] == need : ++cnt == need)
			return t;
	}
	return KEY_NEVER;
}

/* The selection after the release of key `last`: each allowed node that
 * takes the request by then (of GPU model `model` when >= 0) offers what
 * its free state then holds. */
static int select_at(struct sl *st, int32_t id, const struct sl_tau *s, const uint64_t *avail, int64_t last,
                     int32_t model)
{
	const struct job_req *r = &s->r;
	memset(st->ubits, 0, (size_t)st->nw * 8);
	for (int32_t j = 0; j < s->nsk; j++) {
		int32_t k = s->sk[j];
		if (s->t[k] > last)
			break;
		if (!sl_bit(avail, k) || (model >= 0 && st->cl->nodes[st->ord[k]].gpu_model != model))
			continue;
		sl_set(st->ubits, k);
		int32_t c = st->cl->free[st->ord[k]].cores;
		for (int32_t a = st->at_off[k]; a < st->at_off[k + 1] && st->at_key[a] <= last; a++)
			c += st->v->parts[st->at_part[a]].cores;
		/* sl_node_cpus of a node that takes the part */
		st->cpu[k] = r->gpus > 0 ? r->cores : c;
	}
	int32_t nuse = 0;
	for (int32_t w = 0; w < st->nw; w++)
		for (uint64_t b = st->ubits[w]; b; b &= b - 1)
			st->use[nuse++] = w * 64 + __builtin_ctzll(b);
	if (nuse == 0)
		return -1;
	int32_t n = sl_eval(st, id, st->use, nuse);
	if (n <= 0)
		return -1;
	/* the free states of the nodes chosen, for their parts */
	for (int32_t m = 0; m < n; m++) {
		int32_t k = st->pick[m], i = st->ord[k];
		st->fut[i] = st->cl->free[i];
		for (int32_t a = st->at_off[k]; a < st->at_off[k + 1] && st->at_key[a] <= last; a++)
			give_at(st, a);
	}
	return sl_build(st, id, st->fut, n);
}

static bool short_way(const struct sl *st, const struct job_req *r)
{
	return r->nodes >= 1 && !job_req_shared(r) && st->p[SP_SHORTCUTS] >= 0.5;
}

int64_t sl_will_run_floor(struct sl *st, int32_t id, const uint64_t *avail, int64_t now)
{
	const struct job_req *r = &st->v->jobs[id].req;
	const struct sl_tau *s;
	if (!short_way(st, r) || !(s = tau_slot(st, id)))
		return now;
	int64_t kstar = fit_at(st, s, avail, r->nodes, r->nodes > 1 && r->gpus > 0);
	return kstar == KEY_NEVER ? -1 : kstar == KEY_NOW ? now : kstar >> 32;
}

/* The next test point of w (appended to w->tp), -1 when the list ends
 * before one: _will_run_test's loop. */
static int32_t walk_next(struct sl *st, struct sl_walk *w, const uint64_t *avail)
{
	int32_t nends = st->nends;
	while (w->more) {
		int32_t last = -1, cnt200 = 0;
		bool skip_test = false;
		for (;;) {
			if (w->it >= nends) {
				w->more = false;
				break;
			}
			const struct sl_end *e = &st->ends[w->it++];
			if (!end_on(st, e, avail))
				continue;
			if (!w->anchor)
				w->anchor = e->end_s + (w->window - e->end_s % w->window);
			last = w->it - 1;
			if (w->it >= nends) {
				w->more = false;
				break;
			}
			if (st->ends[w->it].end_s > w->anchor + w->window)
				break;
			if (cnt200++ > 200) {
				skip_test = true;
				break;
			}
		}
		if (last < 0) {
			w->more = false;
			break;
		}
		if (skip_test)
			continue;
		const struct sl_end *nx = w->it < nends ? &st->ends[w->it] : NULL;
		do
			w->window *= 2;
		while (nx && nx->end_s > w->anchor + w->window);
		if (w->ntp == w->cap) {
			int32_t nc = w->cap ? 2 * w->cap : 16;
			int32_t *t = realloc(w->tp, (size_t)nc * sizeof *t);
			if (!t) {
				w->more = false;   /* ENOMEM: seen as the list's end (never) */
				return -1;
			}
			w->tp = t;
			w->cap = nc;
		}
		w->tp[w->ntp++] = last;
		return last;
	}
	return -1;
}

/* The walk of the allowed nodes avail for this list, new if need be. */
static struct sl_walk *walk_of(struct sl *st, const uint64_t *avail)
{
	uint64_t h = 1469598103934665603ull;
	for (int32_t x = 0; x < st->nw; x++)
		h = (h ^ avail[x]) * 1099511628211ull;
	struct sl_walk *fresh = NULL;
	for (int32_t probe = 0; probe < 4; probe++) {
		struct sl_walk *w = &st->walks[(h + (uint64_t)probe) % SL_WALKS];
		if (w->ver != st->list_ver) {
			if (!fresh)
				fresh = w;
			continue;
		}
		if (!memcmp(w->avail, avail, (size_t)st->nw * 8))
			return w;
	}
	if (!fresh)
		fresh = &st->walks[h % SL_WALKS];   /* all taken: the first gives way */
	fresh->ver = st->list_ver;
	memcpy(fresh->avail, avail, (size_t)st->nw * 8);
	fresh->it = 0;
	fresh->window = 30;
	fresh->anchor = 0;
	fresh->more = true;
	fresh->ntp = 0;
	return fresh;
}

/* The will-run test the short way: 1 with *start (-1 never) and *np, 0
 * when it cannot decide. */
static int will_run_short(struct sl *st, int32_t id, const uint64_t *avail, bool now_only, int *np, int64_t now,
                          int64_t *start)
{
	const struct cluster *cl = st->cl;
	const struct job_req *r = &st->v->jobs[id].req;
	const struct sl_tau *s;
	if (!short_way(st, r) || !(s = tau_slot(st, id)))
		return 0;
	/* a GPU gang stays on one GPU model (sl_select) */
	bool by_model = r->nodes > 1 && r->gpus > 0;
	int64_t kstar = fit_at(st, s, avail, r->nodes, by_model);
	*np = 0;
	*start = -1;
	if (kstar == KEY_NOW) {
		int n = sl_select(st, id, cl->free, avail, true);
		if (n <= 0)
			return 0;
		*np = n;
		*start = now;
		return 1;
	}
	if (now_only || kstar == KEY_NEVER)
		return 1;
	struct sl_walk *w = walk_of(st, avail);
	for (int32_t x = 0;; x++) {
		if (x == w->ntp && walk_next(st, w, avail) < 0)
			return 1;   /* every release made: never */
		const struct sl_end *le = &st->ends[w->tp[x]];
		if (key_of(le) < kstar)
			continue;
		int n = -1;
		if (!by_model)
			n = select_at(st, id, s, avail, key_of(le), -1);
		else
			for (int32_t m = 0; m < cl->cat.ngpus && n < 0; m++)
				n = select_at(st, id, s, avail, key_of(le), m);
		if (n <= 0)
			return 0;
		*np = n;
		*start = le->end_s <= now ? guess_end(st, le, now) : le->end_s;
		return 1;
	}
}

int64_t sl_will_run(struct sl *st, int32_t id, const uint64_t *avail, bool now_only, bool preempt, int *np, int64_t now)
{
	int64_t start;
	if (!(preempt && st->ncands > 0) && will_run_short(st, id, avail, now_only, np, now, &start))
		return start;
	return will_run_sim(st, id, avail, now_only, preempt, np, now);
}
