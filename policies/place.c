/* place — first-fit placement and helpers shared by the queue disciplines
 * and the placer (policies/placement.c). First fit in node order is what
 * the classic backfill papers and Slurm's linear select do;
 * easy and conservative keep it for their reservations, which are
 * estimates on scratch free states. */
#include "policies/policy.h"
#include "sim/power.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Most (GPU model, plane) groups place_first_fit counts on the stack;
 * beyond that it groups by model only. */
#define PLACE_GROUPS_MAX 4096

uint64_t place_pick_gpus(uint64_t free_mask, int n)
{
	uint64_t m = 0;
	for (int g = 0; g < 64 && n > 0; g++)
		if ((free_mask >> g) & 1u) {
			m |= 1ull << g;
			n--;
		}
	return m;
}

int place_part(const struct cluster *cl, const struct nodefree *nf, int node,
               const struct job_req *r, int32_t cores, uint64_t gpus, int mig_prof,
               int mig_start, struct alloc_part *out)
{
	if (cl->nodes[node].numa == 1 && nf->numa_free[0] >= cores) {
		/* One NUMA domain (every trace-sized node): no split to compute. */
		*out = (struct alloc_part){
			.node = node, .cores = cores,
			.mem_mib = r->nodes > 0 ? r->mem_mib : (int64_t)cores * r->mem_mib,
			.gpus = gpus, .numa_cores = { (int16_t)cores },
			.milli = r->gpu_milli > 0 ? r->gpu_milli : 0,
			.mig_profile = (int8_t)(mig_prof >= 0 ? mig_prof : -1),
			.mig_start = (int8_t)(mig_prof >= 0 ? mig_start : -1),
		};
		return 0;
	}
	*out = (struct alloc_part){
		.node = node, .cores = cores,
		.mem_mib = r->nodes > 0 ? r->mem_mib : (int64_t)cores * r->mem_mib,
		.gpus = gpus,
		.milli = r->gpu_milli > 0 ? r->gpu_milli : 0,
		.mig_profile = (int8_t)(mig_prof >= 0 ? mig_prof : -1),
		.mig_start = (int8_t)(mig_prof >= 0 ? mig_start : -1),
	};
	return cluster_numa_split(cl, nf, node, cores, (r->flags & REQ_NUMA_LOCAL) != 0, out->numa_cores);
}

int32_t place_spread_cores(const struct cluster *cl, const struct nodefree *nf, int node,
                           const struct job_req *r, int32_t want)
{
	const struct node *n = &cl->nodes[node];
	int32_t c = nf->cores < want ? nf->cores : want;
	if (r->mem_mib > 0 && nf->mem_mib / r->mem_mib < c)
		c = (int32_t)(nf->mem_mib / r->mem_mib);
	int32_t dmax = 0, dsum = 0;
	if (n->numa == 1)
		return c < nf->numa_free[0] ? (c > 0 ? c : 0) : nf->numa_free[0];
	for (int d = 0; d < n->numa && d < HL_NUMA_MAX; d++) {
		dsum += nf->numa_free[d];
		dmax = nf->numa_free[d] > dmax ? nf->numa_free[d] : dmax;
	}
	int32_t lim = (r->flags & REQ_NUMA_LOCAL) ? dmax : dsum;
	if (lim < c)
		c = lim;
	return c > 0 ? c : 0;
}

/* The card of node i a share of r takes in first-fit order: on a scratch
 * state an idle card of its gpu_free first, then a live card with room. */
static int share_card(const struct cluster *cl, const struct nodefree *f, int i,
                      const struct job_req *r)
{
	const struct node *n = &cl->nodes[i];
	if (f != cl->free)
		for (int g = n->mig_cards; g < n->ngpus; g++)
			if ((f[i].gpu_free >> g) & 1u)
				return g;
	for (int g = n->mig_cards; g < n->ngpus; g++)
		if (cluster_share_fits(cl, i, g, r, true))
			return g;
	return -1;
}

/* A share or MIG request: the first node and card that can take it. */
static int first_fit_share(const struct cluster *cl, const struct nodefree *f,
                           const struct job_req *r, struct alloc_part *out, unsigned how)
{
	for (int i = 0; i < cl->nnodes; i++) {
		if (!cluster_node_fits_ex(cl, &f[i], i, r, how))
			continue;
		int g = -1, prof = -1, st = -1;
		if (r->mig_g > 0) {
			for (int k = 0; k < cl->nodes[i].mig_cards && g < 0; k++)
				if (cluster_mig_pick(cl, i, k, r, true, &prof, &st) >= 0)
					g = k;
		} else {
			g = share_card(cl, f, i, r);
		}
		if (g >= 0 && place_part(cl, &f[i], i, r, r->cores, 1ull << g, prof, st, out) == 0)
			return 1;
	}
	return 0;
}

static int32_t group_of(const struct cluster *cl, int i, bool by_model)
{
	return by_model ? cl->nodes[i].gpu_model + 1 : place_group(cl, i);
}

/* A GPU gang: the group of the lowest-numbered fitting node whose group
 * has enough fitting nodes, its first r->nodes. When no group can ever
 * hold the gang on one plane (too few nodes suit in any), planes mix
 * within one model, the engine's rule. */
static int first_fit_gang(const struct cluster *cl, const struct nodefree *f,
                          const struct job_req *r, struct alloc_part *out, unsigned how)
{
	int32_t cnt[PLACE_GROUPS_MAX];
	int32_t ng = (cl->cat.ngpus + 1) * (cl->nplanes + 1);
	bool by_model = ng > PLACE_GROUPS_MAX;
	for (int pass = 0; pass < 2; pass++) {
		int32_t ngr = by_model ? cl->cat.ngpus + 1 : ng;
		if (ngr > PLACE_GROUPS_MAX)
			return 0;
		memset(cnt, 0, (size_t)ngr * sizeof *cnt);
		for (int i = 0; i < cl->nnodes; i++)
			if (cluster_node_fits_ex(cl, &f[i], i, r, how))
				cnt[group_of(cl, i, by_model)]++;
		int32_t want = -1;
		for (int i = 0; i < cl->nnodes && want < 0; i++)
			if (cnt[group_of(cl, i, by_model)] >= r->nodes && cluster_node_fits_ex(cl, &f[i], i, r, how))
				want = group_of(cl, i, by_model);
		if (want >= 0) {
			int n = 0;
			for (int i = 0; i < cl->nnodes && n < r->nodes; i++) {
				if (group_of(cl, i, by_model) != want || !cluster_node_fits_ex(cl, &f[i], i, r, how))
					continue;
				if (place_part(cl, &f[i], i, r, r->cores, place_pick_gpus(f[i].gpu_free, r->gpus), -1, -1, &out[n]))
					continue;
				n++;
			}
			return n == r->nodes ? n : 0;
		}
		if (by_model)
			return 0;
		/* Could one plane ever hold it? Then wait for it. */
		memset(cnt, 0, (size_t)ngr * sizeof *cnt);
		for (int i = 0; i < cl->nnodes; i++)
			if (cluster_node_suits(cl, i, r, 0) && ++cnt[group_of(cl, i, false)] >= r->nodes)
				return 0;
		by_model = true;
	}
	return 0;
}

/* A gang of whole-node parts, first fit; node i's state is f[of[i]] (of
 * NULL: f[i]). */
static int first_fit_parts(const struct cluster *cl, const struct nodefree *f, const int32_t *of,
                           const struct job_req *r, struct alloc_part *out, unsigned how)
{
	int n = 0;
	for (int i = 0; i < cl->nnodes && n < r->nodes; i++) {
		const struct nodefree *nf = of ? &f[of[i]] : &f[i];
		if (!cluster_node_fits_ex(cl, nf, i, r, how))
			continue;
		if (place_part(cl, nf, i, r, r->cores, place_pick_gpus(nf->gpu_free, r->gpus), -1, -1, &out[n]))
			continue;
		n++;
	}
	return n == r->nodes ? n : 0;
}

int place_first_fit_of(const struct cluster *cl, const struct nodefree *f, const int32_t *of,
                       const struct job_req *r, struct alloc_part *out)
{
	assert(r->nodes > 0 && !job_req_shared(r) && (r->gpus == 0 || r->nodes == 1));
	return first_fit_parts(cl, f, of, r, out, 0);
}

int place_first_fit(const struct cluster *cl, const struct nodefree *f,
                    const struct job_req *r, struct alloc_part *out)
{
	return place_first_fit_ex(cl, f, r, out, 0);
}

int place_first_fit_ex(const struct cluster *cl, const struct nodefree *f,
                       const struct job_req *r, struct alloc_part *out, unsigned how)
{
	int n = 0;
	if (r->nodes > 0) {
		if (job_req_shared(r))
			return first_fit_share(cl, f, r, out, how);
		if (r->gpus > 0 && r->nodes > 1)
			return first_fit_gang(cl, f, r, out, how);
		return first_fit_parts(cl, f, NULL, r, out, how);
	}
	int32_t left = r->cores;
	bool plain = cluster_req_plain(r);
	/* On the live state the index skips the nodes without a free core or
	 * not in service (refused below anyway), in the same order: on a busy
	 * machine of small nodes most of them. */
	bool live = f == cl->free && !(how & FIT_ANY_STATE);
	bool any = (how & FIT_ANY_STATE) != 0;
	struct fit_iter it;
	if (live)
		cluster_fit_begin(&it, cl, 0, 0, 1);
	for (int i = live ? cluster_fit_next(&it) : 0; i < cl->nnodes && left > 0;
	     i = live ? cluster_fit_next(&it) : i + 1) {
		if (f[i].cores <= 0 || (!any && cl->svc[i] != NODE_UP) || (!plain && !cluster_node_suits(cl, i, r, 0)) ||
		    (!any && cl->pw && power_node_blocked(cl, i)))
			continue;
		if (plain && cl->nodes[i].numa == 1) {
			/* Every SWF job on a trace-sized cluster: cores and memory, one domain. */
			int32_t c = f[i].cores < left ? f[i].cores : left;
			if (c > f[i].numa_free[0])
				c = f[i].numa_free[0];
			if (r->mem_mib > 0 && f[i].mem_mib / r->mem_mib < c)
				c = (int32_t)(f[i].mem_mib / r->mem_mib);
			if (c <= 0)
				continue;
			struct alloc_part *o = &out[n++];
			memset(o, 0, sizeof *o);
			o->node = i;
			o->cores = c;
			o->mem_mib = (int64_t)c * r->mem_mib;
			o->mig_profile = o->mig_start = -1;
			o->numa_cores[0] = (int16_t)c;
			left -= c;
			continue;
		}
		int32_t c = place_spread_cores(cl, &f[i], i, r, left);
		if (c <= 0 || place_part(cl, &f[i], i, r, c, 0, -1, -1, &out[n]))
			continue;
		n++;
		left -= c;
	}
	return left == 0 ? n : 0;
}

static int cmp_end(const void *a, const void *b, void *ctx)
{
	const struct job *jobs = ctx;
	const struct job *x = &jobs[*(const int32_t *)a], *y = &jobs[*(const int32_t *)b];
	simtime ex = view_expected_end(x), ey = view_expected_end(y);
	if (ex != ey)
		return ex < ey ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

void sort_by_expected_end(const struct job *jobs, int32_t *ids, int32_t n)
{
	qsort_r(ids, (size_t)n, sizeof *ids, cmp_end, (void *)jobs);
}

void nodefree_extra(const struct nodefree *f, const struct nodefree *s, const struct alloc_part *r,
                    struct nodefree *x)
{
	int32_t dsum = 0;
	for (int d = 0; d < HL_NUMA_MAX; d++) {
		int32_t a = f->numa_free[d], b = s->numa_free[d] - r->numa_cores[d];
		x->numa_free[d] = (int16_t)(a < b ? (a > 0 ? a : 0) : (b > 0 ? b : 0));
		dsum += x->numa_free[d];
	}
	int32_t c = f->cores < s->cores - r->cores ? f->cores : s->cores - r->cores;
	x->cores = c < 0 ? 0 : c > dsum ? dsum : c;
	int64_t mem = f->mem_mib < s->mem_mib - r->mem_mib ? f->mem_mib : s->mem_mib - r->mem_mib;
	x->mem_mib = mem < 0 ? 0 : mem;
	x->gpu_free = f->gpu_free & ~r->gpus;
	x->gpus = hl_popcount64(x->gpu_free);
}
