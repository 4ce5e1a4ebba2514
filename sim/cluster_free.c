/* cluster_free — what is free, and changing it: cluster_take and
 * cluster_give (cores, NUMA domains, memory, whole cards, card shares with
 * their sharers, MIG instances created or re-sliced on the way, storage
 * pools), the same on a scratch copy of the free state (nodefree_take,
 * nodefree_give), the free-state index (per GPU count and core threshold,
 * a bitmap of nodes with a summary bit per word) kept current by
 * cluster_free_changed and searched by cluster_next_fit, and the pool the
 * allocations' parts live in (partpool). See cluster.h. */
#include "sim/cluster.h"
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
	int b = 0;
	while (b < CLUSTER_FX_CORES && cores >= (1 << b))
		b++;
	return b;   /* the number of thresholds 2^0 .. 2^(b-1) it reaches */
}

/* Sets or clears node's bit in bitmap k of the index, and its word's bit
 * in the summary. */
static inline void fx_put(struct cluster *cl, int k, int32_t node, bool on)
{
	size_t w = (size_t)node >> 6;
	uint64_t *word = &cl->fx[(size_t)k * (size_t)cl->fx_words + w];
	uint64_t *sum = &cl->fxs[(size_t)k * (size_t)cl->fxs_words + (w >> 6)];
	if (on)
		*word |= 1ull << (node & 63);
	else
		*word &= ~(1ull << (node & 63));
	if (*word)
		*sum |= 1ull << (w & 63);
	else
		*sum &= ~(1ull << (w & 63));
}

/* Node's levels in the index from its free state; none while it is not
 * in service (placement refuses it: a cluster of 100,000 nodes has
 * hundreds down at a time, and first fit walked past each of them). */
static void fx_reindex(struct cluster *cl, int32_t node)
{
	const struct nodefree *f = &cl->free[node];
	bool up = cl->svc[node] == NODE_UP;
	int g = !up || f->gpus < 0 ? 0 : f->gpus > CLUSTER_FX_GPUS ? CLUSTER_FX_GPUS : f->gpus;
	int c = up ? fx_core_level(f->cores) : 0;
	int og = cl->fx_lev[node] & 0xf, oc = cl->fx_lev[node] >> 4;
	if (g == og && c == oc)
		return;
	for (int t = og; t < g; t++)           /* levels t + 1 gained */
		fx_put(cl, t, node, true);
	for (int t = g; t < og; t++)
		fx_put(cl, t, node, false);
	for (int b = oc; b < c; b++)
		fx_put(cl, CLUSTER_FX_GPUS + b, node, true);
	for (int b = c; b < oc; b++)
		fx_put(cl, CLUSTER_FX_GPUS + b, node, false);
	cl->fx_lev[node] = (uint8_t)(g | c << 4);
}

void cluster_free_changed(struct cluster *cl, int32_t node)
{
	if (cl->w_stale)
		cl->w_stale[node] = 1;
	fx_reindex(cl, node);
}

void cluster_set_svc(struct cluster *cl, int32_t node, enum node_svc st)
{
	cl->svc[node] = (uint8_t)st;
	fx_reindex(cl, node);
}

int32_t cluster_next_fit(const struct cluster *cl, int32_t from, int32_t gpus, int32_t cores)
{
	if (from >= cl->nnodes)
		return cl->nnodes;
	size_t W = (size_t)cl->fx_words, S = (size_t)cl->fxs_words;
	int ka = gpus > 0 ? (gpus > CLUSTER_FX_GPUS ? CLUSTER_FX_GPUS : gpus) - 1 : -1;
	int kb = cores > 0 ? CLUSTER_FX_GPUS + fx_core_level(cores) - 1 : -1;
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

simtime cluster_take(struct cluster *cl, int32_t job, const struct job_req *r,
                     const struct alloc_part *parts, int nparts)
{
	simtime delay = 0;
	for (int i = 0; i < nparts; i++) {
		const struct alloc_part *p = &parts[i];
		const struct node *n = &cl->nodes[p->node];
		struct nodefree *nf = &cl->free[p->node];
		nf->cores -= p->cores;
		nf->mem_mib -= p->mem_mib;
		for (int d = 0; d < n->numa; d++)   /* validated: nothing beyond n->numa */
			nf->numa_free[d] -= p->numa_cores[d];
		cl->free_cores -= p->cores;
		if (p->gpus == 0)
			continue;
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
	}
	for (int i = 0; i < nparts; i++)
		cluster_free_changed(cl, parts[i].node);
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
	for (int i = 0; i < nparts; i++) {
		const struct alloc_part *p = &parts[i];
		const struct node *n = &cl->nodes[p->node];
		struct nodefree *nf = &cl->free[p->node];
		nf->cores += p->cores;
		nf->mem_mib += p->mem_mib;
		for (int d = 0; d < n->numa; d++)
			nf->numa_free[d] += p->numa_cores[d];
		cl->free_cores += p->cores;
		if (p->gpus == 0)
			continue;
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
	}
	for (int i = 0; i < nparts; i++)
		cluster_free_changed(cl, parts[i].node);
	if (r->pool > 0) {
		struct storage_pool *po = &cl->pools[r->pool - 1];
		po->used_gib -= r->storage_gib;
		po->resv_mbps -= r->io_mbps;
		po->njobs--;
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
