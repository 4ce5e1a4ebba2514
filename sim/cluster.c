/* cluster — the cluster model and its building: the catalog lookups,
 * node types, racks, leaves, planes and storage pools, the node arrays
 * (cluster_add_nodes), and cluster_finish, which sizes the free state, the
 * GPU cards (with their MIG layouts) and the free-state index; and the
 * tear-down of it all. Binding a workload's names is cluster_bind.c,
 * fitting and checking cluster_fit.c, taking and giving back and the
 * free-state index cluster_free.c. See cluster.h. */
#include "sim/cluster.h"
#include "sim/label.h"
#include "sim/mig.h"
#include "sim/power.h"
#include "sim/fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(void **p, int32_t *cap, int32_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	int32_t ncap = *cap ? *cap : 8;
	while (ncap < need)
		ncap *= 2;
	void *np = realloc(*p, (size_t)ncap * elem);
	if (!np)
		return -1;
	memset((char *)np + (size_t)*cap * elem, 0, (size_t)(ncap - *cap) * elem);
	*p = np;
	*cap = ncap;
	return 0;
}

/* Capacities are kept implicit: arrays grow to a power of two ≥ count. */
static int32_t cap_of(int32_t n)
{
	int32_t c = 0;
	if (n == 0)
		return 0;
	c = 8;
	while (c < n)
		c *= 2;
	return c;
}

void cluster_init(struct cluster *cl)
{
	memset(cl, 0, sizeof *cl);
	cl->share = (struct share_cfg){
		.limit = 10, .admit = 1.0, .switch_cost = 0.02,
		.mig_create_us = 5 * SIMTIME_SEC, .mig_reslice_us = 60 * SIMTIME_SEC,
	};
	cl->net = (struct net_cfg){ .spine = { [PLANE_IB] = 0.05, [PLANE_ROCE] = 0.10, [PLANE_ETH] = 0.30 },
	                            .mixed = 0.50 };
	cl->oom_after_us = 60 * SIMTIME_SEC;
}

void catalog_fini(struct catalog *cat)
{
	free(cat->gpus);
	free(cat->cpus);
	memset(cat, 0, sizeof *cat);
}

static void free_labels_buf(char **b)
{
	free(*b);
	*b = NULL;
}

static void free_dynamic(struct cluster *cl)
{
	if (cl->gpu)
		for (int32_t i = 0; i < cl->ngpu_all; i++)
			free(cl->gpu[i].mig);
	free(cl->gpu);
	free(cl->free);
	free(cl->fx);
	free(cl->fxs);
	free(cl->fx_lev);
	free(cl->svc);
	cl->gpu = NULL;
	cl->free = NULL;
	cl->fx = NULL;
	cl->fxs = NULL;
	cl->fx_lev = NULL;
	cl->svc = NULL;
}

void cluster_unbind_workload(struct cluster *cl)
{
	for (int32_t i = 0; i < cl->nsel; i++)
		sel_free(cl->sel[i]);
	free(cl->sel);
	for (int32_t i = 0; cl->selsrc && i < cl->nsel; i++)
		free(cl->selsrc[i]);
	free(cl->selsrc);
	cl->selsrc = NULL;
	free(cl->selmask);
	free(cl->selscore);
	cl->sel = NULL;
	cl->selmask = NULL;
	cl->selscore = NULL;
	cl->nsel = 0;
}

void cluster_fini(struct cluster *cl)
{
	catalog_fini(&cl->cat);
	for (int32_t i = 0; i < cl->ntypes; i++)
		free_labels_buf(&cl->types[i].labels);
	for (int32_t i = 0; i < cl->nracks; i++)
		free_labels_buf(&cl->racks[i].labels);
	free(cl->types);
	free(cl->racks);
	free(cl->nodes);
	free(cl->planes);
	free(cl->leaves);
	strset_fini(&cl->leafset);
	strset_fini(&cl->rackset);
	strset_fini(&cl->typeset);
	free(cl->pools);
	free(cl->mig);
	free_dynamic(cl);
	cluster_unbind_workload(cl);
	labels_free(cl->labels);
	power_fini(cl);
	free(cl->health);
	free(cl->hlog);
	free(cl->hlogged);
	free(cl->pool.p);
	memset(cl, 0, sizeof *cl);
}

int catalog_find_gpu(const struct catalog *cat, const char *name)
{
	for (int i = 0; i < cat->ngpus; i++)
		if (strcmp(cat->gpus[i].name, name) == 0)
			return i;
	return -1;
}

int catalog_find_cpu(const struct catalog *cat, const char *name)
{
	for (int i = 0; i < cat->ncpus; i++)
		if (strcmp(cat->cpus[i].name, name) == 0)
			return i;
	return -1;
}

int cluster_plane_index(const struct cluster *cl, const char *name)
{
	for (int i = 0; i < cl->nplanes; i++)
		if (strcmp(cl->planes[i].name, name) == 0)
			return i;
	return -1;
}

int cluster_pool_index(const struct cluster *cl, const char *name)
{
	for (int i = 0; i < cl->npools; i++)
		if (strcmp(cl->pools[i].name, name) == 0)
			return i;
	return -1;
}

/* A plane's kind and speed from its name: "ib400", "roce25", "eth10";
 * anything else counts as Ethernet of unknown speed. */
static void plane_from_name(struct plane *pl, const char *name)
{
	snprintf(pl->name, sizeof pl->name, "%s", name);
	const char *d = name;
	if (strncmp(name, "ib", 2) == 0) {
		pl->kind = PLANE_IB;
		d += 2;
	} else if (strncmp(name, "roce", 4) == 0) {
		pl->kind = PLANE_ROCE;
		d += 4;
	} else {
		pl->kind = PLANE_ETH;
		d += strncmp(name, "eth", 3) == 0 ? 3 : strlen(name);
	}
	pl->gbps = atof(d);
}

static const char *rack_key(const void *ctx, int32_t i)
{
	return ((const struct cluster *)ctx)->racks[i].name;
}

static const char *type_key(const void *ctx, int32_t i)
{
	return ((const struct cluster *)ctx)->types[i].name;
}

/* Rebuilds set from the first n names when entries were taken back
 * (a failed "events" load shortens the arrays). 0 or -1 on ENOMEM. */
static int sync_set(struct strset *set, int32_t n, strset_key_fn key, const void *ctx)
{
	if (set->n <= n)
		return 0;
	strset_fini(set);
	for (int32_t i = 0; i < n; i++)
		if (strset_add(set, key(ctx, i), i))
			return -1;
	return 0;
}

/* name's index in set (its owner holds n entries), or -1; a linear scan
 * while set holds entries taken back. */
static int find_in(const struct strset *set, int32_t n, const char *name, strset_key_fn key,
                   const void *ctx)
{
	if (set->n > n) {
		for (int32_t i = 0; i < n; i++)
			if (strcmp(key(ctx, i), name) == 0)
				return i;
		return -1;
	}
	return strset_find(set, name, key, ctx);
}

int cluster_find_rack(const struct cluster *cl, const char *name)
{
	return find_in(&cl->rackset, cl->nracks, name, rack_key, cl);
}

int cluster_find_type(const struct cluster *cl, const char *name)
{
	return find_in(&cl->typeset, cl->ntypes, name, type_key, cl);
}

int cluster_add_type(struct cluster *cl, const struct node_type *t)
{
	int32_t cap = cap_of(cl->ntypes);
	if (grow((void **)&cl->types, &cap, cl->ntypes + 1, sizeof *cl->types) ||
	    sync_set(&cl->typeset, cl->ntypes, type_key, cl))
		return -1;
	cl->types[cl->ntypes] = *t;
	if (strset_add(&cl->typeset, cl->types[cl->ntypes].name, cl->ntypes))
		return -1;
	if (t->plane[0] && cluster_plane_index(cl, t->plane) < 0) {
		int32_t pcap = cap_of(cl->nplanes);
		if (grow((void **)&cl->planes, &pcap, cl->nplanes + 1, sizeof *cl->planes))
			return -1;
		plane_from_name(&cl->planes[cl->nplanes++], t->plane);
	}
	return cl->ntypes++;
}

static const char *leaf_key(const void *ctx, int32_t i)
{
	return ((const struct cluster *)ctx)->leaves[i];
}

/* The index of leaf switch `name`, added when new; hashed, since every
 * rack is a leaf of its own by default. -1 on ENOMEM. */
static int leaf_index(struct cluster *cl, const char *name)
{
	if (sync_set(&cl->leafset, cl->nleaves, leaf_key, cl))
		return -1;
	int32_t k = strset_find(&cl->leafset, name, leaf_key, cl);
	if (k >= 0)
		return k;
	int32_t cap = cap_of(cl->nleaves);
	if (grow((void **)&cl->leaves, &cap, cl->nleaves + 1, sizeof *cl->leaves))
		return -1;
	snprintf(cl->leaves[cl->nleaves], HL_NAME_MAX, "%s", name);
	if (strset_add(&cl->leafset, cl->leaves[cl->nleaves], cl->nleaves))
		return -1;
	return cl->nleaves++;
}

int cluster_add_rack(struct cluster *cl, const char *name, double cap_w, int cooling)
{
	int32_t cap = cap_of(cl->nracks);
	if (grow((void **)&cl->racks, &cap, cl->nracks + 1, sizeof *cl->racks) ||
	    sync_set(&cl->rackset, cl->nracks, rack_key, cl))
		return -1;
	struct rack *r = &cl->racks[cl->nracks];
	memset(r, 0, sizeof *r);
	snprintf(r->name, sizeof r->name, "%s", name);
	if (strset_add(&cl->rackset, r->name, cl->nracks))
		return -1;
	r->cap_w = cap_w;
	r->cooling = cooling;
	r->first_node = cl->nnodes;
	r->nnodes = 0;
	if ((r->leaf = leaf_index(cl, name)) < 0)
		return -1;
	return cl->nracks++;
}

int cluster_set_leaf(struct cluster *cl, int rack, const char *leaf)
{
	int k = leaf_index(cl, leaf);
	if (k < 0)
		return -1;
	cl->racks[rack].leaf = k;
	for (int32_t i = 0; i < cl->racks[rack].nnodes; i++)
		cl->nodes[cl->racks[rack].first_node + i].leaf = k;
	return k;
}

int cluster_add_pool(struct cluster *cl, const struct storage_pool *p)
{
	if (cl->npools >= HL_POOLS_MAX)
		return -1;
	int32_t cap = cap_of(cl->npools);
	if (grow((void **)&cl->pools, &cap, cl->npools + 1, sizeof *cl->pools))
		return -1;
	cl->pools[cl->npools] = *p;
	return cl->npools++;
}

int cluster_add_nodes(struct cluster *cl, int rack, int type, int count)
{
	struct rack *r = &cl->racks[rack];
	const struct node_type *t = &cl->types[type];
	if (r->first_node + r->nnodes != cl->nnodes)
		return -1;   /* racks are filled in order */
	int32_t cap = cap_of(cl->nnodes);
	if (grow((void **)&cl->nodes, &cap, cl->nnodes + count, sizeof *cl->nodes))
		return -1;
	int32_t plane = t->plane[0] ? cluster_plane_index(cl, t->plane) : -1;
	for (int k = 0; k < count; k++) {
		struct node *n = &cl->nodes[cl->nnodes];
		memset(n, 0, sizeof *n);
		snprintf(n->name, sizeof n->name, "%.40s-n%d", r->name, r->nnodes + 1);
		n->id = cl->nnodes;
		n->type = type;
		n->rack = rack;
		n->gpu_model = t->gpu_model;
		n->ngpus = t->gpus;
		n->gpu_mem_mib = t->gpu_model >= 0 ? cl->cat.gpus[t->gpu_model].mem_mib : 0;
		n->cpu_model = t->cpu_model;
		n->cores = t->cores;
		n->mem_mib = t->mem_mib;
		n->plane = plane;
		n->cooling = r->cooling;
		n->numa = t->numa > 0 ? t->numa : (t->sockets > 0 ? t->sockets : 1);
		while (n->numa < HL_NUMA_MAX && (n->cores + n->numa - 1) / n->numa > HL_NUMA_CORES_MAX)
			n->numa++;   /* a domain's cores must fit alloc_part.numa_cores */
		if (n->numa > HL_NUMA_MAX)
			n->numa = HL_NUMA_MAX;
		if (n->numa > n->cores && n->cores > 0)
			n->numa = n->cores;
		if (n->numa < 1)
			n->numa = 1;
		n->leaf = r->leaf;
		n->pools = t->pools;
		n->mig_cards = t->mig_cards < t->gpus ? t->mig_cards : t->gpus;
		if (t->cpu_model >= 0) {
			n->avx512 = cl->cat.cpus[t->cpu_model].avx512;
			n->amx = cl->cat.cpus[t->cpu_model].amx;
		}
		cl->nnodes++;
		r->nnodes++;
	}
	return 0;
}

static void numa_init(const struct node *n, struct nodefree *f)
{
	memset(f->numa_free, 0, sizeof f->numa_free);
	for (int d = 0; d < n->numa; d++)
		f->numa_free[d] = n->cores / n->numa + (d < n->cores % n->numa);
}

static int setup_mig(struct cluster *cl, int32_t node, char *err, size_t errlen)
{
	struct node *n = &cl->nodes[node];
	const struct node_type *t = &cl->types[n->type];
	if (n->mig_cards == 0)
		return 0;
	const char *gname = cl->cat.gpus[n->gpu_model].name;
	const struct mig_card *card = cl->mig ? mig_find_card(cl->mig, gname) : NULL;
	if (!cl->cat.gpus[n->gpu_model].mig || !card) {
		snprintf(err, errlen, "node type \"%s\": GPU %s has no MIG geometry (see docs/catalog.md)",
		         t->name, gname);
		return -1;
	}
	for (int g = 0; g < n->mig_cards; g++) {
		struct mig_layout *l = malloc(sizeof *l);
		if (!l) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		mig_layout_init(l, card, cl->share.mig_reslice_us);
		cl->gpu[n->gpu0 + g].mig = l;
		for (int k = 0; k < t->mig_nlayout; k++) {
			int prof = t->mig_layout[k];
			int st = mig_first_fit(l, prof);
			if (st < 0 || mig_place(l, prof, st) < 0) {
				snprintf(err, errlen, "node type \"%s\": MIG layout does not fit a %s card at %s",
				         t->name, gname, card->profiles[prof].name);
				return -1;
			}
		}
	}
	return 0;
}

int cluster_finish(struct cluster *cl, char *err, size_t errlen)
{
	free_dynamic(cl);
	if (cl->share.limit <= 0)
		cl->share.limit = 10;
	if (cl->share.limit > HL_SHARE_MAX)
		cl->share.limit = HL_SHARE_MAX;
	if (cl->share.admit <= 0)
		cl->share.admit = 1;
	cl->ngpu_all = 0;
	for (int i = 0; i < cl->nnodes; i++) {
		cl->nodes[i].gpu0 = cl->ngpu_all;
		cl->ngpu_all += cl->nodes[i].ngpus;
	}
	cl->free = calloc((size_t)cl->nnodes + 1, sizeof *cl->free);
	cl->svc = calloc((size_t)cl->nnodes + 1, 1);
	cl->gpu = calloc((size_t)cl->ngpu_all + 1, sizeof *cl->gpu);
	cl->fx_words = (cl->nnodes + 63) / 64;
	cl->fxs_words = (cl->fx_words + 63) / 64;
	cl->fx = calloc((size_t)(CLUSTER_FX_GPUS + CLUSTER_FX_CORES) * (size_t)cl->fx_words + 1, sizeof *cl->fx);
	cl->fxs = calloc((size_t)(CLUSTER_FX_GPUS + CLUSTER_FX_CORES) * (size_t)cl->fxs_words + 1, sizeof *cl->fxs);
	cl->fx_lev = calloc((size_t)cl->nnodes + 1, 1);
	if (!cl->free || !cl->svc || !cl->gpu || !cl->fx || !cl->fxs || !cl->fx_lev) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	cl->total_cores = cl->total_gpus = 0;
	cl->free_gpus = cl->gpus_busy = cl->milli_used = 0;
	for (int i = 0; i < cl->nnodes; i++) {
		const struct node *n = &cl->nodes[i];
		struct nodefree *f = &cl->free[i];
		f->cores = n->cores;
		f->mem_mib = n->mem_mib;
		f->gpu_free = n->ngpus >= 64 ? ~0ull : ((1ull << n->ngpus) - 1);
		f->gpu_free &= ~(n->mig_cards >= 64 ? ~0ull : ((1ull << n->mig_cards) - 1));
		f->gpus = hl_popcount64(f->gpu_free);
		numa_init(n, f);
		cl->svc[i] = NODE_UP;
		cl->total_cores += n->cores;
		cl->total_gpus += n->ngpus;
		cl->free_gpus += f->gpus;
		if (setup_mig(cl, i, err, errlen))
			return -1;
		cluster_free_changed(cl, i);
	}
	for (int p = 0; p < cl->npools; p++) {
		cl->pools[p].used_gib = 0;
		cl->pools[p].resv_mbps = 0;
		cl->pools[p].njobs = 0;
	}
	cl->free_cores = cl->total_cores;
	return cluster_label_nodes(cl, err, errlen);
}
