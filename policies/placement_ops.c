/* placement_ops — the placement strategies themselves: what each rates a
 * node or a card by (best fit, worst fit, random, dot product, GPU packing,
 * GPU clustering, FGD, power; the scores of docs/policies.md "Placement
 * strategies"; the gpushare scores are called, not copied), topology's
 * choice of nodes for a multi-node gang, and the table placement_find and
 * placement_names read. The rules every strategy keeps, and the placer
 * that calls these hooks, are policies/placement.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "policies/placement_int.h"
#include "sim/power.h"

/* ---- topology's orders ------------------------------------------------------------ */

/* Topology: by group, then leaf, then rank. */
static int by_group_leaf(const struct placer *pl, int32_t a, int32_t b)
{
	const struct place_cand *x = &pl->cand[a], *y = &pl->cand[b];
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->leaf != y->leaf)
		return x->leaf < y->leaf ? -1 : 1;
	return cand_rank(x, y);
}

/* Leaf runs (pl->runs: start, count, leaf): larger first, then lower leaf. */
static int by_run_size(const struct placer *pl, int32_t a, int32_t b)
{
	const int32_t *x = &pl->runs[3 * a], *y = &pl->runs[3 * b];
	if (x[1] != y[1])
		return x[1] > y[1] ? -1 : 1;
	return (x[2] > y[2]) - (x[2] < y[2]);
}

/* ---- what the scores read ---------------------------------------------------------- */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* A uniform number in [0, 1) from (seed, job, node, card): the random
 * strategy's draw, a pure function. */
static double hash01(uint64_t seed, int64_t job, int64_t node, int64_t card)
{
	uint64_t h = mix64(seed);
	h = mix64(h ^ (uint64_t)job);
	h = mix64(h ^ (uint64_t)node);
	h = mix64(h ^ (uint64_t)(card + 1));
	return (double)(h >> 11) * 0x1p-53;
}

/* Free capacity left on a node after giving t, each of cores, whole GPUs
 * and memory as a fraction of the node's capacity, summed (0 .. 3). */
static double leftover(const struct cluster *cl, const struct nodefree *nf, int node,
                       const struct place_take *t)
{
	const struct node *n = &cl->nodes[node];
	double s = 0;
	if (n->cores > 0)
		s += (double)(nf->cores - t->cores) / n->cores;
	if (n->ngpus - n->mig_cards > 0)
		s += (double)(nf->gpus - t->gpus) / (n->ngpus - n->mig_cards);
	if (n->mem_mib > 0)
		s += (double)(nf->mem_mib - t->mem_mib) / (double)n->mem_mib;
	return s;
}

/* Free milli-GPU of card g of node: 1000 idle (in nf), 1000 − used when
 * time-shared (live), 0 taken whole or in MIG mode. */
static int32_t card_free(const struct cluster *cl, const struct nodefree *nf, int node, int g)
{
	const struct node *n = &cl->nodes[node];
	if (g < n->mig_cards)
		return 0;
	if ((nf->gpu_free >> g) & 1u)
		return HL_MILLI;
	const struct gpustate *gs = &cl->gpu[n->gpu0 + g];
	if (gs->nshare > 0)
		return gs->milli_used < HL_MILLI ? HL_MILLI - gs->milli_used : 0;
	return 0;
}

/* The node as gpushare sees it (its first GS_MAX_GPUS cards). */
static void gs_build(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                     int node, struct gs_node *gn)
{
	const struct node *n = &cl->nodes[node];
	memset(gn, 0, sizeof *gn);
	gn->ngpu = n->ngpus < GS_MAX_GPUS ? n->ngpus : GS_MAX_GPUS;
	for (int g = 0; g < gn->ngpu; g++)
		gn->gpu_free[g] = card_free(cl, nf, node, g);
	gn->cpu_free = (int64_t)nf->cores * 1000;
	gn->cpu_cap = (int64_t)n->cores * 1000;
	gn->mem_free = nf->mem_mib;
	if (pl->aff)
		memcpy(gn->aff, &pl->aff[(size_t)node * GS_NAFF], sizeof gn->aff);
}

/* The first n idle cards of a gs node. */
static uint32_t gs_idle_cards(const struct gs_node *gn, int n)
{
	uint32_t m = 0;
	for (int g = 0; g < gn->ngpu && n > 0; g++)
		if (gn->gpu_free[g] == GS_MILLI) {
			m |= 1u << g;
			n--;
		}
	return m;
}

/* ---- the strategies' scores ------------------------------------------------------- */

static void bestfit_node(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                         int node, const struct job *j, const struct place_take *t, double key[2])
{
	(void)pl;
	(void)j;
	key[0] = -leftover(cl, nf, node, t);
	key[1] = 0;
}

static void bestfit_card(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                         int node, int g, const struct job *j, double key[2])
{
	(void)pl;
	struct place_take t = share_take(cl, nf, node, g, j);
	key[0] = -(double)(card_free(cl, nf, node, g) - j->req.gpu_milli) / HL_MILLI;
	key[1] = -leftover(cl, nf, node, &t);
}

static void worstfit_node(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                          int node, const struct job *j, const struct place_take *t, double key[2])
{
	bestfit_node(pl, cl, nf, node, j, t, key);
	key[0] = -key[0];
}

static void worstfit_card(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                          int node, int g, const struct job *j, double key[2])
{
	bestfit_card(pl, cl, nf, node, g, j, key);
	key[0] = -key[0];
	key[1] = -key[1];
}

static void random_node(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                        int node, const struct job *j, const struct place_take *t, double key[2])
{
	(void)cl;
	(void)nf;
	(void)t;
	key[0] = hash01(pl->seed, j->num, node, -1);
	key[1] = 0;
}

static void random_card(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                        int node, int g, const struct job *j, double key[2])
{
	(void)cl;
	(void)nf;
	key[0] = hash01(pl->seed, j->num, node, g);
	key[1] = 0;
}

/* Tetris (Grandl et al. 2014): the request's and the node's free vectors,
 * each dimension over the node's capacity, dotted: the best aligned node. */
static void dot_node(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                     int node, const struct job *j, const struct place_take *t, double key[2])
{
	(void)pl;
	(void)j;
	const struct node *n = &cl->nodes[node];
	double a = 0;
	int32_t whole = n->ngpus - n->mig_cards;
	if (n->cores > 0)
		a += ((double)t->cores / n->cores) * ((double)nf->cores / n->cores);
	if (whole > 0)
		a += ((double)t->gpus / whole) * ((double)nf->gpus / whole);
	if (n->mem_mib > 0)
		a += ((double)t->mem_mib / (double)n->mem_mib) * ((double)nf->mem_mib / (double)n->mem_mib);
	key[0] = a;
	key[1] = -leftover(cl, nf, node, t);
}

/* A gpushare node score for a share on card g, the card by best fit. */
static void gs_card(const struct placer *pl, const struct gpu_placement *gp, const struct cluster *cl,
                    const struct nodefree *nf, int node, int g, const struct job *j, double key[2])
{
	struct gs_node gn;
	gs_build(pl, cl, nf, node, &gn);
	struct place_take t = share_take(cl, nf, node, g, j);
	struct gs_req q = gs_req_of(j, &t);
	struct gs_ctx c = { .typ = NULL };
	uint32_t m;
	key[0] = gp->score(&gn, &q, &c, &m);
	key[1] = -(double)(card_free(cl, nf, node, g) - j->req.gpu_milli) / HL_MILLI;
}

static void dot_card(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                     int node, int g, const struct job *j, double key[2])
{
	gs_card(pl, pl->gs_dot, cl, nf, node, g, j, key);
}

/* Fewest free whole GPUs that still fit; best fit among equals. */
static void packing_node(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                         int node, const struct job *j, const struct place_take *t, double key[2])
{
	(void)pl;
	(void)j;
	key[0] = -(double)nf->gpus;
	key[1] = -leftover(cl, nf, node, t);
}

/* Shared cards first (the fuller first), then idle cards on busy nodes
 * (fewer free GPUs first), then idle nodes (fewer GPUs first). */
static void packing_card(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                         int node, int g, const struct job *j, double key[2])
{
	(void)pl;
	const struct node *n = &cl->nodes[node];
	bool idle = (nf->gpu_free >> g) & 1u;
	if (!idle) {
		key[0] = 2;
		key[1] = -(double)(card_free(cl, nf, node, g) - j->req.gpu_milli) / HL_MILLI;
		return;
	}
	bool busy = nf->cores < n->cores || nf->mem_mib < n->mem_mib || nf->gpus < n->ngpus - n->mig_cards;
	for (int k = 0; k < n->mig_cards && !busy; k++)
		busy = cl->gpu[n->gpu0 + k].nshare > 0;
	key[0] = busy ? 1 : 0;
	key[1] = busy ? -(double)nf->gpus : -(double)n->ngpus;
}

static void clustering_node(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                            int node, const struct job *j, const struct place_take *t, double key[2])
{
	struct gs_node gn;
	gs_build(pl, cl, nf, node, &gn);
	struct gs_req q = gs_req_of(j, t);
	struct gs_ctx c = { .typ = NULL };
	uint32_t m;
	key[0] = pl->gs_clu->score(&gn, &q, &c, &m);
	key[1] = 0;
}

static void clustering_card(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                            int node, int g, const struct job *j, double key[2])
{
	gs_card(pl, pl->gs_clu, cl, nf, node, g, j, key);
}

/* FGD: the decrease of the node's fragmentation (gs_frag against the
 * typical pods so far) when it gives t; best fit among equals. */
static void fgd_node(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                     int node, const struct job *j, const struct place_take *t, double key[2])
{
	key[0] = 0;
	key[1] = -leftover(cl, nf, node, t);
	if (pl->typ.n == 0)
		return;
	struct gs_node gn;
	gs_build(pl, cl, nf, node, &gn);
	double before = gs_frag(&gn, &pl->typ);
	struct gs_req q = gs_req_of(j, t);
	uint32_t m = 0;
	if (t->gpus > 0)
		m = gs_idle_cards(&gn, t->gpus);
	else
		q.num_gpu = q.gpu_milli = 0;   /* a MIG instance takes no whole card */
	gs_apply(&gn, &q, m);
	key[0] = before - gs_frag(&gn, &pl->typ);
}

static void fgd_card(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                     int node, int g, const struct job *j, double key[2])
{
	key[1] = -(double)(card_free(cl, nf, node, g) - j->req.gpu_milli) / HL_MILLI;
	key[0] = 0;
	if (pl->typ.n == 0)
		return;
	struct gs_node gn;
	gs_build(pl, cl, nf, node, &gn);
	double before = gs_frag(&gn, &pl->typ);
	struct gs_req q = { .cpu_milli = (int64_t)j->req.cores * 1000, .mem_mib = j->req.mem_mib,
	                    .num_gpu = 1, .gpu_milli = j->req.gpu_milli };
	gs_apply(&gn, &q, g < gn.ngpu ? 1u << g : 0);
	key[0] = before - gs_frag(&gn, &pl->typ);
}

/* Power: where a job's heat is best taken away. Long full-load training
 * goes to liquid-cooled racks, light inference and CPU-only work to
 * air-cooled ones; then the rack with the most power headroom, the coolest
 * node, best fit (docs/policies.md "power"). key[0] = tier × POWER_TIER +
 * headroom (W); key[1] = −(temperature in 0.1 °C steps, then what is left). */
#define POWER_TIER 1e10           /* a tier outweighs any headroom */
#define POWER_ROOM_MAX 1e9        /* headroom is clamped to ± this many W */
#define POWER_LONG_US (4 * SIMTIME_HOUR)
#define POWER_BIG_GPUS 8

/* The cooling a job belongs on: COOL_LIQUID for long or large training,
 * COOL_AIR for light inference and CPU-only work, -1 for no preference. */
static int power_wants(const struct job *j)
{
	const struct job_req *r = &j->req;
	bool shared = job_req_shared(r);
	if (j->cls == JOB_TRAINING && !shared && r->gpus > 0 &&
	    (j->walltime_us >= POWER_LONG_US || job_req_gpus(r) >= POWER_BIG_GPUS))
		return COOL_LIQUID;   /* no walltime (SIMTIME_INF) counts as long */
	if (r->gpus == 0 || (j->cls == JOB_INFERENCE && (shared || job_req_gpus(r) <= 1)))
		return COOL_AIR;
	return -1;
}

static double power_key0(const struct cluster *cl, int node, const struct job *j)
{
	const struct node *n = &cl->nodes[node];
	const struct rack *rk = &cl->racks[n->rack];
	int want = power_wants(j);
	double tier = want < 0 || rk->cooling == want ? 2 : 1, room = rk->cap_w;
	const struct power_state *pw = cl->pw;
	if (pw) {
		const struct rack_power *rp = &pw->rack[n->rack];
		const struct node_power *np = &pw->node[node];
		/* cluster_node_fits refuses hot nodes and racks in warning; a
		 * rack over its cap or throttled, or a node below its full
		 * power limit, would slow the job: last. */
		if ((rp->flags & (PW_RACK_WARN | PW_RACK_OVER)) || (np->flags & (PW_NODE_HOT | PW_NODE_THROTTLED)) ||
		    rp->throttle < 1 || np->limit < 1)
			tier = 0;
		room = pw->cfg.warn_frac * rp->cap_w - rp->power_w;
	}
	if (room > POWER_ROOM_MAX)
		room = POWER_ROOM_MAX;
	if (room < -POWER_ROOM_MAX)
		room = -POWER_ROOM_MAX;
	return tier * POWER_TIER + room;
}

/* The node's last modelled temperature in 0.1 °C steps (0 without the
 * power model). */
static double power_temp_q(const struct cluster *cl, int node)
{
	return cl->pw ? round(cl->pw->node[node].temp_c * 10) : 0;
}

static void power_node(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                       int node, const struct job *j, const struct place_take *t, double key[2])
{
	(void)pl;
	key[0] = power_key0(cl, node, j);
	key[1] = -(power_temp_q(cl, node) * 4 + leftover(cl, nf, node, t));   /* L < 4 */
}

static void power_card(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                       int node, int g, const struct job *j, double key[2])
{
	(void)pl;
	struct place_take t = share_take(cl, nf, node, g, j);
	double milli_left = card_free(cl, nf, node, g) - j->req.gpu_milli;   /* 0 .. 1000 */
	key[0] = power_key0(cl, node, j);
	key[1] = -((power_temp_q(cl, node) * (HL_MILLI + 1) + milli_left) * 4 + leftover(cl, nf, node, &t));
}

/* ---- topology's gangs ------------------------------------------------------------- */

/* Topology: one group, as few leaf switches as possible. Candidates with
 * the most preferred-label terms are tried alone first, then with the
 * next tier, and so on. Within a tier: the group that needs the fewest
 * leaves, then the least slack on its last leaf (best fit), then the
 * group of the better-ranked node. Within the group: the largest leaves
 * whole, the last one by best fit, its best-ranked nodes. */
static int topo_tier(struct placer *pl, const struct job *j, int32_t tier, int32_t *pick)
{
	int32_t need = j->req.nodes, ne = 0;
	for (int32_t k = 0; k < pl->ncand; k++)
		if (pl->cand[k].pref >= tier)
			pl->ord2[ne++] = k;
	sort_idx(pl, pl->ord2, ne, by_group_leaf);
	int32_t best_a = -1, best_b = -1, best_L = 0, best_slack = 0, best_top = -1;
	for (int32_t a = 0; a < ne;) {
		int32_t b = a, top = pl->ord2[a];
		while (b < ne && pl->cand[pl->ord2[b]].group == pl->cand[pl->ord2[a]].group) {
			if (cand_rank(&pl->cand[pl->ord2[b]], &pl->cand[top]) < 0)
				top = pl->ord2[b];
			b++;
		}
		if (b - a >= need) {
			/* Leaf runs of this group, largest first. */
			int32_t nr = 0;
			for (int32_t s = a; s < b;) {
				int32_t e = s;
				while (e < b && pl->cand[pl->ord2[e]].leaf == pl->cand[pl->ord2[s]].leaf)
					e++;
				pl->runs[3 * nr] = s;
				pl->runs[3 * nr + 1] = e - s;
				pl->runs[3 * nr + 2] = pl->cand[pl->ord2[s]].leaf;
				pl->ord[nr] = nr;
				nr++;
				s = e;
			}
			sort_idx(pl, pl->ord, nr, by_run_size);
			int32_t L = 0, got = 0;
			while (got + pl->runs[3 * pl->ord[L] + 1] < need)
				got += pl->runs[3 * pl->ord[L++] + 1];
			int32_t rem = need - got, slack = INT32_MAX;
			for (int32_t q = L; q < nr; q++)
				if (pl->runs[3 * pl->ord[q] + 1] >= rem && pl->runs[3 * pl->ord[q] + 1] - rem < slack)
					slack = pl->runs[3 * pl->ord[q] + 1] - rem;
			L++;
			bool better = best_a < 0 || L < best_L || (L == best_L && slack < best_slack) ||
			              (L == best_L && slack == best_slack && cand_rank(&pl->cand[top], &pl->cand[best_top]) < 0);
			if (better) {
				best_a = a;
				best_b = b;
				best_L = L;
				best_slack = slack;
				best_top = top;
			}
		}
		a = b;
	}
	if (best_a < 0)
		return 0;
	/* Rebuild the chosen group's runs and take them. */
	int32_t nr = 0;
	for (int32_t s = best_a; s < best_b;) {
		int32_t e = s;
		while (e < best_b && pl->cand[pl->ord2[e]].leaf == pl->cand[pl->ord2[s]].leaf)
			e++;
		pl->runs[3 * nr] = s;
		pl->runs[3 * nr + 1] = e - s;
		pl->runs[3 * nr + 2] = pl->cand[pl->ord2[s]].leaf;
		pl->ord[nr] = nr;
		nr++;
		s = e;
	}
	sort_idx(pl, pl->ord, nr, by_run_size);
	int32_t n = 0;
	for (int32_t q = 0; q < best_L - 1; q++) {
		const int32_t *run = &pl->runs[3 * pl->ord[q]];
		for (int32_t k = 0; k < run[1]; k++)
			pick[n++] = pl->ord2[run[0] + k];
	}
	int32_t rem = need - n, last = -1;
	for (int32_t q = best_L - 1; q < nr; q++) {
		const int32_t *run = &pl->runs[3 * pl->ord[q]];
		if (run[1] >= rem && (last < 0 || run[1] < pl->runs[3 * last + 1] ||
		                      (run[1] == pl->runs[3 * last + 1] && run[2] < pl->runs[3 * last + 2])))
			last = pl->ord[q];
	}
	for (int32_t k = 0; k < rem; k++)
		pick[n++] = pl->ord2[pl->runs[3 * last] + k];
	return 1;
}

static int topo_gang(struct placer *pl, const struct cluster *cl, const struct job *j, int32_t *pick)
{
	(void)cl;
	int32_t tier = INT32_MAX;
	for (;;) {
		int32_t next = -1;
		for (int32_t k = 0; k < pl->ncand; k++)
			if (pl->cand[k].pref < tier && pl->cand[k].pref > next)
				next = pl->cand[k].pref;
		if (next < 0)
			return 0;
		tier = next;
		if (topo_tier(pl, j, tier, pick))
			return 1;
	}
}

/* ---- the table ----------------------------------------------------------------------- */

static const struct placement_ops pl_first_fit = {
	.name = "first-fit",
	.summary = "the first nodes (and cards) in node order that fit",
};
static const struct placement_ops pl_best_fit = {
	.name = "best-fit",
	.summary = "the node left with the least free cores, GPUs and memory; shares: the fullest card",
	.node_score = bestfit_node, .card_score = bestfit_card,
};
static const struct placement_ops pl_worst_fit = {
	.name = "worst-fit",
	.summary = "spread: the node left with the most free; shares: the emptiest card",
	.node_score = worstfit_node, .card_score = worstfit_card,
};
static const struct placement_ops pl_random = {
	.name = "random",
	.summary = "a node (and card) drawn by a hash of the seed and the job: reproducible",
	.node_score = random_node, .card_score = random_card,
};
static const struct placement_ops pl_dot = {
	.name = "dot-product",
	.summary = "Tetris: the node whose free vector best aligns with the request; shares: FGD-paper DotProd",
	.node_score = dot_node, .card_score = dot_card,
};
static const struct placement_ops pl_packing = {
	.name = "gpu-packing",
	.summary = "nodes with the fewest free GPUs; shares: shared cards, then busy nodes, then idle ones",
	.node_score = packing_node, .card_score = packing_card,
};
static const struct placement_ops pl_clustering = {
	.name = "gpu-clustering",
	.summary = "nodes already running jobs of the same GPU count (FGD-paper GpuClustering)",
	.node_score = clustering_node, .card_score = clustering_card,
	.needs = PLACEMENT_NEEDS_AFFINITY,
};
static const struct placement_ops pl_fgd = {
	.name = "fgd",
	.summary = "least increase of GPU fragmentation against the typical requests so far (FGD)",
	.node_score = fgd_node, .card_score = fgd_card,
	.needs = PLACEMENT_NEEDS_TYPICAL,
};
static const struct placement_ops pl_topology = {
	.name = "topology",
	.summary = "gangs on one GPU model and plane, on as few leaf switches as possible; else best fit",
	.node_score = bestfit_node, .card_score = bestfit_card, .gang = topo_gang,
};
static const struct placement_ops pl_power = {
	.name = "power",
	.summary = "long training on liquid-cooled racks, light inference and CPU jobs on air; most rack "
	           "power headroom, coolest node, then best fit",
	.node_score = power_node, .card_score = power_card,
};

static const struct placement_ops *const placements[] = {
	&pl_first_fit, &pl_best_fit, &pl_worst_fit, &pl_random, &pl_dot,
	&pl_packing, &pl_clustering, &pl_fgd, &pl_topology, &pl_power, NULL,
};

const struct placement_ops *const *placement_all(void)
{
	return placements;
}

const struct placement_ops *placement_find(const char *name)
{
	if (!name || !name[0])
		return &pl_first_fit;
	for (int i = 0; placements[i]; i++)
		if (strcmp(placements[i]->name, name) == 0)
			return placements[i];
	return NULL;
}

void placement_names(char *buf, size_t len)
{
	size_t off = 0;
	if (len)
		buf[0] = 0;
	for (int i = 0; placements[i] && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", placements[i]->name);
}
