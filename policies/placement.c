/* placement — the placer: set-up for a strategy, what it keeps between
 * passes (fgd's typical pods, gpu-clustering's pods per node), and the
 * rules every strategy keeps when it places a job (see placement.h):
 * candidates that fit, preferred labels first, time-sliced shares and MIG
 * instances by the best (node, card), spread cores in rank order, GPU gangs
 * within one (GPU model, plane) group, parts in increasing node order, the
 * storage pool's admission. The strategies' scores, topology's gang choice
 * and the table of strategies are policies/placement_ops.c. */
#include "policies/placement_int.h"
#include "policies/policy.h"
#include "sim/power.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPICAL_PCT 95.0      /* fgd: typical pods cover this share of the requests (the paper's) */

/* ---- ordering ---------------------------------------------------------------------- */

static int by_rank(const struct placer *pl, int32_t a, int32_t b)
{
	return cand_rank(&pl->cand[a], &pl->cand[b]);
}

static int by_node(const struct placer *pl, int32_t a, int32_t b)
{
	return (pl->cand[a].node > pl->cand[b].node) - (pl->cand[a].node < pl->cand[b].node);
}

/* ---- the placer ---------------------------------------------------------------------- */

int placer_init(struct placer *pl, const char *name, bool label_blind, uint64_t seed,
                const struct cluster *cl, int32_t njobs, char *err, size_t errlen)
{
	memset(pl, 0, sizeof *pl);
	pl->ops = placement_find(name);
	if (!pl->ops) {
		char names[256];
		placement_names(names, sizeof names);
		if (err && errlen)
			snprintf(err, errlen, "unknown placement \"%s\" (known: %s)", name, names);
		return -1;
	}
	pl->how = label_blind ? FIT_IGNORE_GPU_MEM : 0;
	pl->seed = seed;
	pl->nnodes = cl->nnodes;
	pl->nplanes1 = cl->nplanes + 1;
	pl->ngroups = (cl->cat.ngpus + 1) * pl->nplanes1;
	size_t n = (size_t)cl->nnodes + 1;
	pl->cand = calloc(n, sizeof *pl->cand);
	pl->ord = calloc(n, sizeof *pl->ord);
	pl->ord2 = calloc(n, sizeof *pl->ord2);
	pl->pick = calloc(n, sizeof *pl->pick);
	pl->runs = calloc(3 * n, sizeof *pl->runs);
	pl->gcount = calloc((size_t)pl->ngroups + 1, sizeof *pl->gcount);
	pl->gstatic = calloc((size_t)pl->ngroups + 1, sizeof *pl->gstatic);
	pl->glast = malloc(((size_t)pl->ngroups + 1) * sizeof *pl->glast);
	pl->gseen = calloc((size_t)pl->ngroups + 1, sizeof *pl->gseen);
	bool ok = pl->cand && pl->ord && pl->ord2 && pl->pick && pl->runs && pl->gcount && pl->gstatic &&
	          pl->glast && pl->gseen;
	if (ok) {
		for (int32_t g = 0; g < pl->ngroups; g++)
			pl->glast[g] = -1;
		for (int i = 0; i < cl->nnodes; i++)
			pl->glast[place_group(cl, i)] = i;
	}
	if (ok && (pl->ops->needs & PLACEMENT_NEEDS_AFFINITY))
		ok = (pl->aff = calloc(n * GS_NAFF, sizeof *pl->aff)) != NULL;
	if (ok && (pl->ops->needs & PLACEMENT_NEEDS_TYPICAL)) {
		pl->cap_seen = njobs > 0 ? njobs : 1;
		ok = (pl->seen = calloc((size_t)pl->cap_seen, sizeof *pl->seen)) != NULL;
	}
	pl->gs_dot = gpushare_find("dotprod");
	pl->gs_clu = gpushare_find("clustering");
	if (!ok || !pl->gs_dot || !pl->gs_clu) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

void placer_fini(struct placer *pl)
{
	free(pl->cand);
	free(pl->ord);
	free(pl->ord2);
	free(pl->pick);
	free(pl->runs);
	free(pl->gcount);
	free(pl->gstatic);
	free(pl->glast);
	free(pl->gseen);
	free(pl->aff);
	free(pl->seen);
	gs_typical_free(&pl->typ);
	memset(pl, 0, sizeof *pl);
}

void placer_submit(struct placer *pl, const struct job *j)
{
	if (!pl->ops || !(pl->ops->needs & PLACEMENT_NEEDS_TYPICAL) || pl->nseen >= pl->cap_seen)
		return;
	const struct job_req *r = &j->req;
	if (r->mig_g > 0)
		return;   /* MIG cards are apart: their requests do not fragment whole cards */
	struct place_take t = { .cores = r->cores, .mem_mib = r->mem_mib,
	                        .gpus = r->nodes > 0 && r->gpu_milli == 0 ? r->gpus : 0,
	                        .milli = r->gpu_milli };
	pl->seen[pl->nseen++] = gs_req_of(j, &t);
	/* Rebuilt as the count grows by a quarter: O(log n) rebuilds a run. */
	if (pl->nseen < pl->built_at + pl->built_at / 4 + 1)
		return;
	gs_typical_free(&pl->typ);
	if (gs_typical_build(pl->seen, pl->nseen, TYPICAL_PCT, &pl->typ))
		memset(&pl->typ, 0, sizeof pl->typ);   /* no memory: fgd falls back to best fit */
	pl->built_at = pl->nseen;
}

/* Affinity tag of a running request, as gpushare counts them: 0 a share
 * (time-sliced or MIG), k a k-GPU job; -1 CPU only. */
static int aff_tag(const struct job_req *r)
{
	if (job_req_shared(r))
		return 0;
	if (r->gpus <= 0 || r->nodes <= 0)
		return -1;
	return r->gpus < GS_NAFF ? r->gpus : GS_NAFF - 1;
}

static void aff_add(struct placer *pl, const struct job *j, const struct alloc_part *parts, int n)
{
	int tag = aff_tag(&j->req);
	if (tag < 0)
		return;
	for (int k = 0; k < n; k++)
		if (parts[k].node >= 0 && parts[k].node < pl->nnodes)
			pl->aff[(size_t)parts[k].node * GS_NAFF + (size_t)tag]++;
}

void placer_sync(struct placer *pl, const struct view *v)
{
	if (!pl->aff || (pl->aff_valid && pl->aff_epoch == v->alloc_epoch))
		return;
	memset(pl->aff, 0, (size_t)pl->nnodes * GS_NAFF * sizeof *pl->aff);
	for (int32_t k = 0; k < v->nrunning; k++) {
		const struct job *j = &v->jobs[v->running[k]];
		aff_add(pl, j, &v->parts[j->parts], j->nparts);
	}
	pl->aff_valid = true;
	pl->aff_epoch = v->alloc_epoch;
}

void placer_started(struct placer *pl, const struct view *v, const struct job *j,
                    const struct alloc_part *parts, int nparts)
{
	if (!pl->aff || !pl->aff_valid)
		return;
	if (v->alloc_epoch != pl->aff_epoch + 1) {
		pl->aff_valid = false;   /* something else moved: recount at the next sync */
		return;
	}
	aff_add(pl, j, parts, nparts);
	pl->aff_epoch = v->alloc_epoch;
}

/* ---- placing ----------------------------------------------------------------------- */

static bool node_ok(const struct placer *pl, const struct cluster *cl, const struct nodefree *f, int i,
                    const struct job_req *r)
{
	if (!cluster_node_fits_ex(cl, &f[i], i, r, pl->how))
		return false;
	int16_t split[HL_NUMA_MAX];
	return cluster_numa_split(cl, &f[i], i, r->cores, (r->flags & REQ_NUMA_LOCAL) != 0, split) == 0;
}

static void rate_node(const struct placer *pl, const struct cluster *cl, const struct nodefree *f, int i,
                      const struct job *j, const struct place_take *t, struct place_cand *c)
{
	c->node = i;
	c->pref = cluster_sel_score(cl, j->req.sel_pref, i);
	c->key[0] = c->key[1] = 0;
	if (pl->ops->node_score)
		pl->ops->node_score(pl, cl, &f[i], i, j, t, c->key);
}

/* A time-sliced share: the best (node, card). */
static int place_share(struct placer *pl, const struct cluster *cl, const struct nodefree *f,
                       const struct job *j, struct alloc_part *out)
{
	const struct job_req *r = &j->req;
	bool aware = !(pl->how & FIT_IGNORE_GPU_MEM), scratch = f != cl->free;
	struct place_cand best = { .node = -1 }, c;
	int best_g = -1;
	for (int i = 0; i < cl->nnodes; i++) {
		if (!node_ok(pl, cl, f, i, r))
			continue;
		const struct node *n = &cl->nodes[i];
		bool rated = false;
		for (int g = n->mig_cards; g < n->ngpus; g++) {
			if (!cluster_share_fits(cl, i, g, r, aware) && !(scratch && ((f[i].gpu_free >> g) & 1u)))
				continue;
			if (pl->ops->card_score) {
				c.node = i;
				c.pref = cluster_sel_score(cl, r->sel_pref, i);
				pl->ops->card_score(pl, cl, &f[i], i, g, j, c.key);
			} else if (!rated) {
				struct place_take t = share_take(cl, &f[i], i, g, j);
				rate_node(pl, cl, f, i, j, &t, &c);
				rated = true;
			}
			/* Strictly better only: among equals the lower node, then
			 * the lower card, stays. */
			if (best.node < 0 || cand_rank(&c, &best) < 0) {
				best = c;
				best_g = g;
			}
		}
	}
	if (best.node < 0)
		return 0;
	return place_part(cl, &f[best.node], best.node, r, r->cores, 1ull << best_g, -1, -1, out) ? 0 : 1;
}

/* A MIG instance: the best (node, card) by preferred labels, then the cost
 * class of cluster_mig_pick (reuse, create, re-slice), then the node's
 * rating, then the lowest card. */
static int place_mig(struct placer *pl, const struct cluster *cl, const struct nodefree *f,
                     const struct job *j, struct alloc_part *out)
{
	const struct job_req *r = &j->req;
	bool aware = !(pl->how & FIT_IGNORE_GPU_MEM);
	struct place_cand best = { .node = -1 }, c;
	int best_g = -1, best_cls = 0, best_prof = -1, best_st = -1;
	struct place_take t = { .cores = r->cores, .mem_mib = r->mem_mib, .mig = true };
	for (int i = 0; i < cl->nnodes; i++) {
		if (!node_ok(pl, cl, f, i, r))
			continue;
		bool rated = false;
		for (int g = 0; g < cl->nodes[i].mig_cards; g++) {
			int prof, st;
			int cls = cluster_mig_pick(cl, i, g, r, aware, &prof, &st);
			if (cls < 0)
				continue;
			if (!rated) {
				rate_node(pl, cl, f, i, j, &t, &c);
				rated = true;
			}
			bool better = best.node < 0;
			if (!better && c.pref != best.pref)
				better = c.pref > best.pref;
			else if (!better && cls != best_cls)
				better = cls < best_cls;
			else if (!better)
				better = cand_rank(&c, &best) < 0;   /* same node: the lower card stays */
			if (better) {
				best = c;
				best_g = g;
				best_cls = cls;
				best_prof = prof;
				best_st = st;
			}
		}
	}
	if (best.node < 0)
		return 0;
	return place_part(cl, &f[best.node], best.node, r, r->cores, 1ull << best_g, best_prof, best_st, out)
	       ? 0 : 1;
}

/* Spread cores: nodes in rank order, each filled up to what it can give. */
static int place_spread(struct placer *pl, const struct cluster *cl, const struct nodefree *f,
                        const struct job *j, struct alloc_part *out)
{
	const struct job_req *r = &j->req;
	bool ranked = pl->ops->node_score || r->sel_pref > 0;   /* else node order is rank order */
	if (!ranked)
		return place_first_fit(cl, f, r, out);   /* the same result, without the bookkeeping */
	int32_t nc = 0;
	int64_t have = 0;
	for (int i = 0; i < cl->nnodes && (ranked || have < r->cores); i++) {
		if (f[i].cores <= 0 || cl->svc[i] != NODE_UP || !cluster_node_suits(cl, i, r, pl->how) ||
		    (cl->pw && power_node_blocked(cl, i)))
			continue;
		int32_t c = place_spread_cores(cl, &f[i], i, r, r->cores);
		if (c <= 0)
			continue;
		struct place_take t = { .cores = c, .mem_mib = (int64_t)c * r->mem_mib };
		struct place_cand *pc = &pl->cand[nc];
		rate_node(pl, cl, f, i, j, &t, pc);
		pc->cores = c;
		pl->ord[nc] = nc;
		nc++;
		have += c;
	}
	if (ranked)
		sort_idx(pl, pl->ord, nc, by_rank);
	int32_t left = r->cores, np = 0;
	for (int32_t k = 0; k < nc && left > 0; k++) {
		struct place_cand *pc = &pl->cand[pl->ord[k]];
		int32_t c = pc->cores < left ? pc->cores : left;
		pc->cores = c;
		pl->pick[np++] = pl->ord[k];
		left -= c;
	}
	if (left > 0)
		return 0;
	if (ranked)
		sort_idx(pl, pl->pick, np, by_node);   /* else already in node order */
	for (int32_t k = 0; k < np; k++) {
		const struct place_cand *pc = &pl->cand[pl->pick[k]];
		if (place_part(cl, &f[pc->node], pc->node, r, pc->cores, 0, -1, -1, &out[k]))
			return 0;
	}
	return np;
}

static int32_t group_of(const struct cluster *cl, int node, bool by_model)
{
	return by_model ? cl->nodes[node].gpu_model + 1 : place_group(cl, node);
}

/* Could some (model, plane) group ever hold the gang (enough nodes suit)? */
static bool one_plane_possible(struct placer *pl, const struct cluster *cl, const struct job_req *r)
{
	memset(pl->gstatic, 0, (size_t)pl->ngroups * sizeof *pl->gstatic);
	for (int i = 0; i < cl->nnodes; i++)
		if (cluster_node_suits(cl, i, r, pl->how) && ++pl->gstatic[place_group(cl, i)] >= r->nodes)
			return true;
	return false;
}

/* The group rule: the best-ranked candidate's group among those with
 * enough candidates; its best r->nodes. Candidates are in pl->ord, ranked. */
static int group_rule(struct placer *pl, const struct cluster *cl, const struct job *j, int32_t *pick)
{
	(void)cl;
	const struct job_req *r = &j->req;
	int32_t nc = pl->ncand, n = 0;
	if (r->gpus == 0) {
		if (nc < r->nodes)
			return 0;
		memcpy(pick, pl->ord, (size_t)r->nodes * sizeof *pick);
		return 1;
	}
	for (int32_t k = 0; k < nc; k++)
		pl->gcount[pl->cand[pl->ord[k]].group]++;
	int32_t want = -1;
	for (int32_t k = 0; k < nc && want < 0; k++)
		if (pl->gcount[pl->cand[pl->ord[k]].group] >= r->nodes)
			want = pl->cand[pl->ord[k]].group;
	for (int32_t k = 0; k < nc; k++)
		pl->gcount[pl->cand[pl->ord[k]].group] = 0;
	if (want < 0)
		return 0;
	for (int32_t k = 0; k < nc && n < r->nodes; k++)
		if (pl->cand[pl->ord[k]].group == want)
			pick[n++] = pl->ord[k];
	return 1;
}

/* Whole-card gangs of one node or more. */
static int place_gang(struct placer *pl, const struct cluster *cl, const struct nodefree *f,
                      const struct job *j, struct alloc_part *out)
{
	const struct job_req *r = &j->req;
	struct place_take t = { .cores = r->cores, .mem_mib = r->mem_mib, .gpus = r->gpus };
	/* In node order with no group to choose, the first fitting nodes are
	 * the answer: stop there. */
	bool early = !pl->ops->node_score && !pl->ops->gang && r->sel_pref <= 0 &&
	             (r->gpus == 0 || r->nodes == 1);
	/* A GPU gang in node order (first fit): the group rule's answer is
	 * known before the last node once the group of the earliest
	 * candidate not yet ruled out has enough candidates; a group is ruled
	 * out when the walk has passed its last node with too few. */
	bool by_group = !pl->ops->node_score && !pl->ops->gang && r->sel_pref <= 0 && r->gpus > 0 && r->nodes > 1;
	int32_t nc = 0, nseen = 0, head = 0, want = -1;
	/* On the live state the index skips the nodes without the cards or
	 * cores (node_ok would refuse them), in the same order. */
	bool live = f == cl->free;
	for (int i = live ? cluster_next_fit(cl, 0, r->gpus, r->cores) : 0; i < cl->nnodes && !(early && nc == r->nodes);
	     i = live ? cluster_next_fit(cl, i + 1, r->gpus, r->cores) : i + 1) {
		if (!node_ok(pl, cl, f, i, r))
			continue;
		struct place_cand *pc = &pl->cand[nc];
		rate_node(pl, cl, f, i, j, &t, pc);
		pc->group = (r->gpus > 0 || pl->ops->gang) ? place_group(cl, i) : -1;
		pc->leaf = cl->nodes[i].leaf;
		pc->cores = r->cores;
		pl->ord[nc] = nc;
		nc++;
		if (!by_group)
			continue;
		if (pl->gcount[pc->group]++ == 0)
			pl->gseen[nseen++] = pc->group;
		while (head < nseen && pl->gcount[pl->gseen[head]] < r->nodes && pl->glast[pl->gseen[head]] <= i)
			head++;
		if (head < nseen && pl->gcount[pl->gseen[head]] >= r->nodes) {
			want = pl->gseen[head];
			break;
		}
	}
	for (int32_t k = 0; k < nseen; k++)
		pl->gcount[pl->gseen[k]] = 0;
	pl->ncand = nc;
	if (want >= 0) {
		int32_t n = 0;
		for (int32_t k = 0; k < nc && n < r->nodes; k++)
			if (pl->cand[k].group == want)
				pl->pick[n++] = k;
		for (int32_t k = 0; k < r->nodes; k++) {
			int i = pl->cand[pl->pick[k]].node;
			if (place_part(cl, &f[i], i, r, r->cores, place_pick_gpus(f[i].gpu_free, r->gpus), -1, -1, &out[k]))
				return 0;
		}
		return r->nodes;
	}
	if (nc < r->nodes)
		return 0;
	if (r->nodes == 1) {
		int32_t b = 0;
		for (int32_t k = 1; k < nc; k++)
			if (cand_rank(&pl->cand[k], &pl->cand[b]) < 0)
				b = k;
		pl->pick[0] = b;
	} else {
		if (pl->ops->node_score || r->sel_pref > 0)
			sort_idx(pl, pl->ord, nc, by_rank);
		int (*rule)(struct placer *, const struct cluster *, const struct job *, int32_t *) =
			pl->ops->gang ? pl->ops->gang : group_rule;
		if (!rule(pl, cl, j, pl->pick)) {
			/* No group can take it now. If none ever could on one
			 * plane, planes mix within one model (the engine's rule). */
			if ((r->gpus == 0 && !pl->ops->gang) || one_plane_possible(pl, cl, r))
				return 0;
			for (int32_t k = 0; k < nc; k++)
				pl->cand[k].group = group_of(cl, pl->cand[k].node, true);
			if (!rule(pl, cl, j, pl->pick))
				return 0;
		}
		sort_idx(pl, pl->pick, r->nodes, by_node);
	}
	for (int32_t k = 0; k < r->nodes; k++) {
		int i = pl->cand[pl->pick[k]].node;
		if (place_part(cl, &f[i], i, r, r->cores, place_pick_gpus(f[i].gpu_free, r->gpus), -1, -1, &out[k]))
			return 0;
	}
	return r->nodes;
}

bool placer_pool_ok(const struct cluster *cl, const struct job_req *r)
{
	if (r->pool <= 0)
		return true;
	const struct storage_pool *po = &cl->pools[r->pool - 1];
	return po->used_gib + r->storage_gib <= po->cap_gib &&
	       po->resv_mbps + (double)r->io_mbps <= po->admit * po->bw_mbps + 1e-9;
}

int placer_place(struct placer *pl, const struct cluster *cl, const struct nodefree *f,
                 const struct job *j, struct alloc_part *out)
{
	const struct job_req *r = &j->req;
	if (!placer_pool_ok(cl, r))
		return 0;
	if (r->nodes == 0)
		return r->gpus == 0 ? place_spread(pl, cl, f, j, out) : 0;
	if (r->mig_g > 0)
		return place_mig(pl, cl, f, j, out);
	if (r->gpu_milli > 0)
		return place_share(pl, cl, f, j, out);
	return place_gang(pl, cl, f, j, out);
}

void placer_save(const struct placer *pl, struct snapw *w)
{
	snap_put_tag(w, "placer");
	snap_put_n(w, pl->nseen);
	snap_put_n(w, pl->built_at);
	snap_put(w, pl->seen, (size_t)pl->nseen * sizeof *pl->seen);
}

int placer_load(struct placer *pl, struct snapr *r)
{
	if (snap_get_tag(r, "placer"))
		return -1;
	int64_t n = snap_get_n(r, pl->cap_seen, "the requests fgd has seen");
	int64_t at = snap_get_n(r, n < 0 ? 0 : n, "the typical pods' count");
	if (n < 0 || at < 0)
		return -1;
	if (n > 0 && !pl->seen)
		return snap_bad(r, "the placement strategy keeps no requests");
	snap_get(r, pl->seen, (size_t)n * sizeof *pl->seen);
	pl->nseen = (int32_t)n;
	pl->built_at = (int32_t)at;
	gs_typical_free(&pl->typ);
	memset(&pl->typ, 0, sizeof pl->typ);
	if (at > 0 && gs_typical_build(pl->seen, (int32_t)at, TYPICAL_PCT, &pl->typ))
		memset(&pl->typ, 0, sizeof pl->typ);
	pl->aff_valid = false;
	return r->bad ? -1 : 0;
}
