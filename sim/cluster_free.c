/* cluster_free — what is free, and changing it: cluster_take and
 * cluster_give (cores, NUMA domains, memory, whole cards, card shares with
 * their sharers, MIG instances created or re-sliced on the way, storage
 * pools), the same on a scratch copy of the free state (nodefree_take,
 * nodefree_give), the free-state index (per GPU count and core threshold,
 * a bitmap of nodes with a summary bit per word) kept current by
 * cluster_free_changed and searched by cluster_next_fit, and the pool the
 * allocations' parts live in (partpool). See cluster.h. */
#include "sim/cluster.h"
#include "sim/check.h"
#include "sim/mig.h"
#include "sim/fault.h"

#include <stdlib.h>
#include <string.h>

static void take_common(struct nodefree *nf, const struct alloc_part *p)
{
	nf->cores -= p->cores;
	nf->mem_mib -= p->mem_mib;
	for (int d = 0; d < HL_NUMA_MAX; d++)
		nf->numa_free[d] -= p->numa_cores[d];
}

static void give_common(struct nodefree *nf, const struct alloc_part *p)
{
	nf->cores += p->cores;
	nf->mem_mib += p->mem_mib;
	for (int d = 0; d < HL_NUMA_MAX; d++)
		nf->numa_free[d] += p->numa_cores[d];
}

void nodefree_take(struct nodefree *f, const struct alloc_part *parts, int nparts)
{
	for (int i = 0; i < nparts; i++) {
		struct nodefree *nf = &f[parts[i].node];
		take_common(nf, &parts[i]);
		uint64_t gone = nf->gpu_free & parts[i].gpus;
		nf->gpus -= hl_popcount64(gone);
		nf->gpu_free &= ~gone;
	}
}

void nodefree_give(struct nodefree *f, const struct alloc_part *parts, int nparts)
{
	for (int i = 0; i < nparts; i++) {
		struct nodefree *nf = &f[parts[i].node];
		give_common(nf, &parts[i]);
		if (parts[i].milli > 0 || parts[i].mig_profile >= 0)
			continue;   /* a share: the card may still hold others */
		nf->gpus += hl_popcount64(parts[i].gpus & ~nf->gpu_free);
		nf->gpu_free |= parts[i].gpus;
	}
}

static void sharer_add(struct gpustate *gs, int32_t job)
{
	if (gs->nshare < HL_SHARE_MAX)
		gs->sharer[gs->nshare] = job;
	gs->nshare++;
}

static void sharer_del(struct gpustate *gs, int32_t job)
{
	for (int k = 0; k < gs->nshare && k < HL_SHARE_MAX; k++)
		if (gs->sharer[k] == job) {
			gs->sharer[k] = gs->sharer[gs->nshare - 1];
			break;
		}
	gs->nshare--;
}

/* Makes the MIG instance of part p exist (creating or re-slicing) and
 * marks it busy; returns the set-up time. */
static simtime mig_take(struct cluster *cl, struct mig_layout *l, const struct alloc_part *p)
{
	int inst = l->owner[(int)p->mig_start];
	simtime cost = 0;
	if (!(inst >= 0 && l->inst[inst].profile == p->mig_profile && l->inst[inst].start == p->mig_start)) {
		if (mig_can_place(l, p->mig_profile, p->mig_start) == MIG_OK) {
			cost = cl->share.mig_create_us;
		} else {
			/* Re-slice the idle card: drop what is in the way, then all. */
			for (int i = 0; i < MIG_SLICES_MAX; i++)
				if (l->inst[i].profile >= 0) {
					int st = l->inst[i].start;
					int len = l->card->profiles[l->inst[i].profile].memory_slices;
					int len2 = l->card->profiles[p->mig_profile].memory_slices;
					if (st < p->mig_start + len2 && p->mig_start < st + len)
						mig_remove(l, i);
				}
			if (mig_can_place(l, p->mig_profile, p->mig_start) != MIG_OK)
				for (int i = 0; i < MIG_SLICES_MAX; i++)
					if (l->inst[i].profile >= 0)
						mig_remove(l, i);
			cost = l->reslice_us;
		}
		inst = mig_place(l, p->mig_profile, p->mig_start);
	}
	if (inst >= 0)
		mig_set_busy(l, inst, true);
	return cost;
}

static inline int fx_core_level(int32_t cores)
{
	if (cores <= 0)
		return 0;
	int b = 32 - __builtin_clz((unsigned)cores);
	return b < CLUSTER_FX_CORES ? b : CLUSTER_FX_CORES;   /* the thresholds 2^0 .. 2^(b-1) it reaches */
}

/* Applies one change of levels (fx_level's packing: old ol, new nl) to
 * the nodes of mask in word w of every bitmap it touches, and their
 * summary bits. */
static void fx_apply_word(struct cluster *cl, size_t w, uint64_t mask, unsigned ol, unsigned nl)
{
	size_t W = (size_t)cl->fx_words, S = (size_t)cl->fxs_words;
	for (int pass = 0; pass < 2; pass++) {
		int from = (int)(pass ? ol >> 4 : ol & 0xf), to = (int)(pass ? nl >> 4 : nl & 0xf);
		int k0 = pass ? CLUSTER_FX_GPUS : 0;
		for (int t = from < to ? from : to; t < (from < to ? to : from); t++) {
			uint64_t *word = &cl->fx[(size_t)(k0 + t) * W + w];
			uint64_t *sum = &cl->fxs[(size_t)(k0 + t) * S + (w >> 6)];
			*word = to > from ? *word | mask : *word & ~mask;
			if (*word)
				*sum |= 1ull << (w & 63);
			else
				*sum &= ~(1ull << (w & 63));
		}
	}
}

/* Node's levels in the index from its free state, GPU level in the low
 * nibble and core level in the high; none while it is not in service
 * (placement refuses it: a cluster of 100,000 nodes has hundreds down at
 * a time, and first fit walked past each of them). */
static inline unsigned fx_level(const struct cluster *cl, int32_t node)
{
	const struct nodefree *f = &cl->free[node];
	if (cl->svc[node] != NODE_UP)
		return 0;
	unsigned g = (unsigned)f->gpus;   /* a node without cards: one test */
	if (g > CLUSTER_FX_GPUS)
		g = f->gpus < 0 ? 0 : CLUSTER_FX_GPUS;
	return g | (unsigned)fx_core_level(f->cores) << 4;
}

static void fx_reindex(struct cluster *cl, int32_t node)
{
	unsigned ol = cl->fx_lev[node], nl = fx_level(cl, node);
	if (ol == nl)
		return;
	fx_apply_word(cl, (size_t)node >> 6, 1ull << (node & 63), ol, nl);
	cl->fx_lev[node] = (uint8_t)nl;
}

/* fx_reindex for every node of an allocation, noted by cluster_take and
 * cluster_give as each part's node reaches its new free state (in the
 * same walk over the parts), one update a run of nodes in one word with
 * the same change (an allocation is in node order, and on a machine of
 * small nodes mostly a run of neighbours). */
struct fx_batch {
	size_t pw;
	unsigned pkey;
	uint64_t mask;
};

static inline void fx_note(struct cluster *cl, struct fx_batch *b, int32_t node)
{
	uint8_t *lev = cl->fx_lev;
	if (cl->w_stale)
		cl->w_stale[node] = 1;
	unsigned nl = fx_level(cl, node);
	if (lev[node] == nl)
		return;
	unsigned key = (unsigned)lev[node] << 8 | nl;
	lev[node] = (uint8_t)nl;
	size_t w = (size_t)node >> 6;
	if (key != b->pkey || w != b->pw) {
		if (b->mask)
			fx_apply_word(cl, b->pw, b->mask, b->pkey >> 8, b->pkey & 0xff);
		b->pkey = key;
		b->pw = w;
		b->mask = 0;
	}
	b->mask |= 1ull << (node & 63);
}

static inline void fx_flush(struct cluster *cl, struct fx_batch *b)
{
	if (b->mask)
		fx_apply_word(cl, b->pw, b->mask, b->pkey >> 8, b->pkey & 0xff);
}

#ifdef HL_CHECKS
/* The invariants of one node's free state (HL_CHECKS): within the node's
 * capacity, the NUMA domains summing to the cores, the card count the
 * bitmap's, and the free-state index agreeing with it. */
static void check_node(const struct cluster *cl, int32_t node)
{
	const struct node *n = &cl->nodes[node];
	const struct nodefree *f = &cl->free[node];
	HL_CHECK(f->cores >= 0 && f->cores <= n->cores);
	HL_CHECK(f->mem_mib >= 0 && f->mem_mib <= n->mem_mib);
	int32_t sum = 0;
	for (int d = 0; d < HL_NUMA_MAX; d++) {
		HL_CHECK(f->numa_free[d] >= 0);
		HL_CHECK(d < n->numa || f->numa_free[d] == 0);
		sum += f->numa_free[d];
	}
	HL_CHECK(sum == f->cores);
	HL_CHECK(f->gpus == hl_popcount64(f->gpu_free));
	HL_CHECK(f->gpus >= 0 && f->gpus <= n->ngpus);
	HL_CHECK(n->ngpus >= 64 || (f->gpu_free >> n->ngpus) == 0);
	for (int g = 0; g < n->ngpus; g++) {
		const struct gpustate *gs = &cl->gpu[n->gpu0 + g];
		HL_CHECK(gs->nshare >= 0 && gs->milli_used >= 0 && gs->mem_need_mib >= 0);
		HL_CHECK(gs->nshare == 0 || !((f->gpu_free >> g) & 1u));   /* a shared card is not whole and idle */
	}
	if (!cl->fx || !cl->fx_lev)
		return;   /* no index yet */
	unsigned lev = fx_level(cl, node);
	HL_CHECK(cl->fx_lev[node] == lev);
	size_t W = (size_t)cl->fx_words, w = (size_t)node >> 6;
	uint64_t bit = 1ull << (node & 63);
	for (int t = 0; t < CLUSTER_FX_GPUS; t++)
		HL_CHECK(!!(cl->fx[(size_t)t * W + w] & bit) == (t < (int)(lev & 0xf)));
	for (int t = 0; t < CLUSTER_FX_CORES; t++)
		HL_CHECK(!!(cl->fx[(size_t)(CLUSTER_FX_GPUS + t) * W + w] & bit) == (t < (int)(lev >> 4)));
}

static void check_parts(const struct cluster *cl, const struct alloc_part *parts, int nparts)
{
	for (int i = 0; i < nparts; i++) {
		HL_CHECK(parts[i].node >= 0 && parts[i].node < cl->nnodes);
		check_node(cl, parts[i].node);
	}
	HL_CHECK(cl->free_gpus >= 0 && cl->gpus_busy >= 0 && cl->milli_used >= 0);
}
#else
#define check_node(cl, node) ((void)0)
#define check_parts(cl, parts, nparts) ((void)0)
#endif

void cluster_free_changed(struct cluster *cl, int32_t node)
{
	if (cl->w_stale)
		cl->w_stale[node] = 1;
	fx_reindex(cl, node);
	check_node(cl, node);
}

void cluster_set_svc(struct cluster *cl, int32_t node, enum node_svc st)
{
	cl->svc[node] = (uint8_t)st;
	fx_reindex(cl, node);
	check_node(cl, node);
}

/* The bitmaps a request for gpus cards and cores cores looks in: *ka for
 * the cards, *kb for the cores, -1 when it asks for none. */
static void fx_keys(int32_t gpus, int32_t cores, int *ka, int *kb)
{
	*ka = gpus > 0 ? (gpus > CLUSTER_FX_GPUS ? CLUSTER_FX_GPUS : gpus) - 1 : -1;
	*kb = cores > 0 ? CLUSTER_FX_GPUS + fx_core_level(cores) - 1 : -1;
}

int32_t cluster_next_fit(const struct cluster *cl, int32_t from, int32_t gpus, int32_t cores)
{
	if (from >= cl->nnodes)
		return cl->nnodes;
	size_t W = (size_t)cl->fx_words, S = (size_t)cl->fxs_words;
	int ka, kb;
	fx_keys(gpus, cores, &ka, &kb);
	if (ka < 0 && kb < 0)
		return from;
	const uint64_t *a = ka >= 0 ? &cl->fx[(size_t)ka * W] : NULL, *b = kb >= 0 ? &cl->fx[(size_t)kb * W] : NULL;
	const uint64_t *sa = ka >= 0 ? &cl->fxs[(size_t)ka * S] : NULL, *sb = kb >= 0 ? &cl->fxs[(size_t)kb * S] : NULL;
	size_t w = (size_t)from >> 6;
	uint64_t m = ~0ull << (from & 63);
	while (w < W) {
		/* Words that may hold a candidate, from the summaries. */
		size_t v = w >> 6;
		uint64_t sm = (sa ? sa[v] : ~0ull) & (sb ? sb[v] : ~0ull) & (~0ull << (w & 63));
		if (!sm) {
			w = (v + 1) << 6;
			m = ~0ull;
			continue;
		}
		size_t nw = (v << 6) + (size_t)__builtin_ctzll(sm);
		if (nw != w)
			m = ~0ull;
		w = nw;
		if (w >= W)
			break;
		uint64_t x = (a ? a[w] : ~0ull) & (b ? b[w] : ~0ull) & m;
		if (x) {
			int32_t i = (int32_t)(w * 64 + (size_t)__builtin_ctzll(x));
			return i < cl->nnodes ? i : cl->nnodes;
		}
		w++;
		m = ~0ull;
	}
	return cl->nnodes;
}

/* Loads the candidates of the word that holds the first candidate at or
 * after `from`. */
static void fit_load(struct fit_iter *it, int32_t from)
{
	const struct cluster *cl = it->cl;
	int32_t i = cluster_next_fit(cl, from, it->gpus, it->cores);
	it->bits = 0;
	if (i >= cl->nnodes) {
		it->base = cl->nnodes;
		return;
	}
	it->base = i & ~63;
	size_t W = (size_t)cl->fx_words, w = (size_t)i >> 6;
	int ka, kb;
	fx_keys(it->gpus, it->cores, &ka, &kb);
	uint64_t x = ~0ull << (i & 63);   /* nothing asked: every node from i on */
	if (ka >= 0)
		x &= cl->fx[(size_t)ka * W + w];
	if (kb >= 0)
		x &= cl->fx[(size_t)kb * W + w];
	int32_t left = cl->nnodes - it->base;
	if (left < 64)
		x &= (1ull << left) - 1;
	it->bits = x;
}

void cluster_fit_begin(struct fit_iter *it, const struct cluster *cl, int32_t from, int32_t gpus, int32_t cores)
{
	*it = (struct fit_iter){ .cl = cl, .gpus = gpus, .cores = cores };
	fit_load(it, from < 0 ? 0 : from);
}

int32_t cluster_fit_refill(struct fit_iter *it)
{
	const struct cluster *cl = it->cl;
	if (it->base >= cl->nnodes)
		return cl->nnodes;
	fit_load(it, it->base + 64);
	if (!it->bits) {
		it->base = cl->nnodes;
		return cl->nnodes;
	}
	return cluster_fit_next(it);
}

simtime cluster_take(struct cluster *cl, int32_t job, const struct job_req *r,
                     const struct alloc_part *parts, int nparts)
{
	simtime delay = 0;
	struct fx_batch fb = { .pw = SIZE_MAX };
	for (int i = 0; i < nparts; i++) {
		const struct alloc_part *p = &parts[i];
		const struct node *n = &cl->nodes[p->node];
		struct nodefree *nf = &cl->free[p->node];
		nf->cores -= p->cores;
		nf->mem_mib -= p->mem_mib;
		if (n->numa == 1)   /* validated: nothing beyond n->numa */
			nf->numa_free[0] -= p->numa_cores[0];
		else
			for (int d = 0; d < n->numa; d++)
				nf->numa_free[d] -= p->numa_cores[d];
		cl->free_cores -= p->cores;
		if (p->gpus == 0) {
			fx_note(cl, &fb, p->node);
			continue;
		}
		if (p->milli > 0 || p->mig_profile >= 0) {
			int g = __builtin_ctzll(p->gpus);
			struct gpustate *gs = &cl->gpu[n->gpu0 + g];
			if (gs->nshare == 0)
				cl->gpus_busy++;
			if ((nf->gpu_free >> g) & 1u) {
				nf->gpu_free &= ~(1ull << g);
				nf->gpus--;
				cl->free_gpus--;
			}
			sharer_add(gs, job);
			gs->milli_used += p->milli;
			cl->milli_used += p->milli;
			gs->mem_need_mib += r->gpu_mem_mib;
			if (p->mig_profile >= 0 && gs->mig) {
				simtime c = mig_take(cl, gs->mig, p);
				delay = c > delay ? c : delay;
			}
		} else {
			int k = hl_popcount64(p->gpus);
			nf->gpu_free &= ~p->gpus;
			nf->gpus -= k;
			cl->free_gpus -= k;
			cl->gpus_busy += k;
		}
		fx_note(cl, &fb, p->node);
	}
	fx_flush(cl, &fb);
	check_parts(cl, parts, nparts);
	if (r->pool > 0) {
		struct storage_pool *po = &cl->pools[r->pool - 1];
		po->used_gib += r->storage_gib;
		po->resv_mbps += r->io_mbps;
		po->njobs++;
	}
	return delay;
}

void cluster_give(struct cluster *cl, int32_t job, const struct job_req *r,
                  const struct alloc_part *parts, int nparts)
{
	struct fx_batch fb = { .pw = SIZE_MAX };
	for (int i = 0; i < nparts; i++) {
		const struct alloc_part *p = &parts[i];
		const struct node *n = &cl->nodes[p->node];
		struct nodefree *nf = &cl->free[p->node];
		nf->cores += p->cores;
		nf->mem_mib += p->mem_mib;
		if (n->numa == 1)
			nf->numa_free[0] += p->numa_cores[0];
		else
			for (int d = 0; d < n->numa; d++)
				nf->numa_free[d] += p->numa_cores[d];
		cl->free_cores += p->cores;
		if (p->gpus == 0) {
			fx_note(cl, &fb, p->node);
			continue;
		}
		if (p->milli > 0 || p->mig_profile >= 0) {
			int g = __builtin_ctzll(p->gpus);
			struct gpustate *gs = &cl->gpu[n->gpu0 + g];
			sharer_del(gs, job);
			gs->milli_used -= p->milli;
			cl->milli_used -= p->milli;
			gs->mem_need_mib -= r->gpu_mem_mib;
			if (gs->mig) {
				int inst = gs->mig->owner[(int)p->mig_start];
				if (inst >= 0)
					mig_set_busy(gs->mig, inst, false);
			}
			if (gs->nshare == 0) {
				cl->gpus_busy--;
				if (!gs->mig) {
					nf->gpu_free |= 1ull << g;
					nf->gpus++;
					cl->free_gpus++;
				}
			}
		} else {
			uint64_t back = p->gpus;
			if (cl->health)   /* a card that fell off the bus stays out until repaired */
				for (uint64_t m = back; m; m &= m - 1)
					if (cl->health[p->node].gpu_speed[__builtin_ctzll(m)] <= 0)
						back &= ~(1ull << __builtin_ctzll(m));
			int k = hl_popcount64(back);
			nf->gpu_free |= back;
			nf->gpus += k;
			cl->free_gpus += k;
			cl->gpus_busy -= hl_popcount64(p->gpus);
		}
		fx_note(cl, &fb, p->node);
	}
	fx_flush(cl, &fb);
	check_parts(cl, parts, nparts);
	if (r->pool > 0) {
		struct storage_pool *po = &cl->pools[r->pool - 1];
		po->used_gib -= r->storage_gib;
		po->resv_mbps -= r->io_mbps;
		po->njobs--;
		HL_CHECK(po->njobs >= 0);
	}
}

static int size_class(int n)
{
	int k = 0;
	while ((1 << k) < n)
		k++;
	return k;
}

uint32_t partpool_get(struct partpool *pp, int n)
{
	int k = size_class(n < 1 ? 1 : n);
	uint32_t len = 1u << k;
	if (pp->freelist[k]) {
		uint32_t off = pp->freelist[k] - 1;
		/* The link to the next free block is kept in the block's first part. */
		pp->freelist[k] = (uint32_t)pp->p[off].node;
		return off;
	}
	if (pp->n + len > pp->cap) {
		uint32_t cap = pp->cap ? pp->cap : 1024;
		while (cap < pp->n + len)
			cap *= 2;
		struct alloc_part *np = realloc(pp->p, (size_t)cap * sizeof *np);
		if (!np)
			return UINT32_MAX;
		pp->p = np;
		pp->cap = cap;
	}
	uint32_t off = pp->n;
	pp->n += len;
	return off;
}

void partpool_put(struct partpool *pp, uint32_t off, int n)
{
	int k = size_class(n < 1 ? 1 : n);
	pp->p[off].node = (int32_t)pp->freelist[k];
	pp->freelist[k] = off + 1;
}
