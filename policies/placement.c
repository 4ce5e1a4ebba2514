/* placement — the placement strategies and the rules they share; see
 * placement.h. The scores are defined in docs/policies.md "Placement
 * strategies"; the gpushare scores (dot-product and gpu-clustering for
 * shares, fgd's fragmentation) are called, not copied. */
#include "policies/placement.h"
#include "sim/power.h"
#include "policies/policy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPICAL_PCT 95.0      /* fgd: typical pods cover this share of the requests (the paper's) */
#define MIG_COMPUTE 7         /* compute slices of a MIG card: a slice's milli-GPU for the gs scores */

/* ---- ordering ---------------------------------------------------------------------- */

/* Negative when a ranks before b: more preferred-label terms, higher keys,
 * lower node. */
static int cand_rank(const struct place_cand *a, const struct place_cand *b)
{
	if (a->pref != b->pref)
		return a->pref > b->pref ? -1 : 1;
	for (int k = 0; k < 2; k++)
		if (a->key[k] != b->key[k])
			return a->key[k] > b->key[k] ? -1 : 1;
	return (a->node > b->node) - (a->node < b->node);
}

typedef int (*idx_cmp)(const struct placer *pl, int32_t a, int32_t b);

static void sift(const struct placer *pl, int32_t *a, int32_t n, int32_t i, idx_cmp cmp)
{
	for (;;) {
		int32_t l = 2 * i + 1, m = i;
		if (l < n && cmp(pl, a[l], a[m]) > 0)
			m = l;
		if (l + 1 < n && cmp(pl, a[l + 1], a[m]) > 0)
			m = l + 1;
		if (m == i)
			return;
		int32_t t = a[i];
		a[i] = a[m];
		a[m] = t;
		i = m;
	}
}

/* Heap sort (in place, no allocation: glibc's qsort may malloc). */
static void sort_idx(const struct placer *pl, int32_t *a, int32_t n, idx_cmp cmp)
{
	for (int32_t i = n / 2 - 1; i >= 0; i--)
		sift(pl, a, n, i, cmp);
	for (int32_t e = n - 1; e > 0; e--) {
		int32_t t = a[0];
		a[0] = a[e];
		a[e] = t;
		sift(pl, a, e, 0, cmp);
	}
}

static int by_rank(const struct placer *pl, int32_t a, int32_t b)
{
	return cand_rank(&pl->cand[a], &pl->cand[b]);
}

static int by_node(const struct placer *pl, int32_t a, int32_t b)
{
	return (pl->cand[a].node > pl->cand[b].node) - (pl->cand[a].node < pl->cand[b].node);
}

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

static struct gs_req gs_req_of(const struct job *j, const struct place_take *t)
{
	struct gs_req q = { .cpu_milli = (int64_t)t->cores * 1000, .mem_mib = t->mem_mib };
	if (t->milli > 0) {
		q.num_gpu = 1;
		q.gpu_milli = t->milli;
	} else if (t->mig) {
		q.num_gpu = 1;
		q.gpu_milli = j->req.mig_g * HL_MILLI / MIG_COMPUTE;
	} else if (t->gpus > 0) {
		q.num_gpu = t->gpus;
		q.gpu_milli = HL_MILLI;
	}
	return q;
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

/* The whole-card / core take of a share on card g: the card, if idle. */
static struct place_take share_take(const struct cluster *cl, const struct nodefree *nf, int node, int g,
                                    const struct job *j)
{
	(void)cl;
	(void)node;
	return (struct place_take){ .cores = j->req.cores, .mem_mib = j->req.mem_mib,
	                            .gpus = (int32_t)((nf->gpu_free >> g) & 1u), .milli = j->req.gpu_milli };
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
	key[0] = hash01(pl->seed, j->id, node, -1);
	key[1] = 0;
}

static void random_card(const struct placer *pl, const struct cluster *cl, const struct nodefree *nf,
                        int node, int g, const struct job *j, double key[2])
{
	(void)cl;
	(void)nf;
	key[0] = hash01(pl->seed, j->id, node, g);
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

static int topo_gang(struct placer *pl, const struct cluster *cl, const struct job *j, int32_t *pick);

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

/* Can the job's storage pool admit it now (capacity and bandwidth, as
 * cluster_check_alloc has it)? Pools are live state whatever f is. */
static bool pool_ok(const struct cluster *cl, const struct job_req *r)
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
	if (!pool_ok(cl, r))
		return 0;
	if (r->nodes == 0)
		return r->gpus == 0 ? place_spread(pl, cl, f, j, out) : 0;
	if (r->mig_g > 0)
		return place_mig(pl, cl, f, j, out);
	if (r->gpu_milli > 0)
		return place_share(pl, cl, f, j, out);
	return place_gang(pl, cl, f, j, out);
}
