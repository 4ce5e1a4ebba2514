/* cluster — building the node arrays, free-capacity bookkeeping, allocation
 * checks and the part pool. See cluster.h. */
#include "sim/cluster.h"
#include "sim/label.h"
#include "sim/mig.h"
#include "sim/power.h"
#include "sim/fault.h"

#include <math.h>

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

static void free_selectors(struct cluster *cl)
{
	for (int32_t i = 0; i < cl->nsel; i++)
		sel_free(cl->sel[i]);
	free(cl->sel);
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
	free_selectors(cl);
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

/* ---- binding a workload's names ---- */

/* Appends a compiled selector (taking it; NULL: the compile failed with
 * why). Its index in cl->sel, or -1 with a message. */
static int push_selector(struct cluster *cl, struct selector *S, const char *why, char *err, size_t errlen)
{
	if (!S) {
		snprintf(err, errlen, "%s", why);
		return -1;
	}
	struct selector **ns = realloc(cl->sel, (size_t)(cl->nsel + 1) * sizeof *ns);
	if (!ns) {
		sel_free(S);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	cl->sel = ns;
	cl->sel[cl->nsel] = S;
	return cl->nsel++;
}

static int add_selector(struct cluster *cl, const char *text, char *err, size_t errlen)
{
	char why[256];
	struct selector *S = sel_compile(text, why, sizeof why);
	return push_selector(cl, S, why, err, errlen);
}

/* A selector with a job's tolerations (a cluster with taints: sim/taint.h),
 * shared by the jobs with the same expression and tolerations. The index
 * in cl->sel, or -1 with a message. */
static int tol_selector(struct cluster *cl, bool prefer, const char *expr, const char *tol, char *err,
                        size_t errlen)
{
	size_t len = strlen(expr) + (tol ? strlen(tol) : 0) + 4;
	char *key = malloc(len);
	if (!key) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(key, len, "%c\x1f%s\x1f%s", prefer ? 'P' : 'R', expr, tol ? tol : "");
	for (int32_t k = 0; k < cl->nsel; k++) {
		const char *sk = sel_key(cl->sel[k]);
		if (sk && strcmp(sk, key) == 0) {
			free(key);
			return k;
		}
	}
	char why[300];
	struct selector *S = sel_compile_tol(expr, tol, prefer, key, why, sizeof why);
	free(key);
	return push_selector(cl, S, why, err, errlen);
}

/* Folds a job's tolerations into its selectors on a cluster with taints:
 * with NoSchedule/NoExecute taints every job gets a required selector (its
 * own expression, or none, with its tolerations), so that a job without a
 * toleration never lands on a tainted node; with PreferNoSchedule taints
 * every job gets a preferred one. 0, or -1 with a message. */
static int bind_tolerations(struct cluster *cl, char *const *strs, int32_t nstrs, struct job *jb, char *err,
                            size_t errlen)
{
	struct job_req *r = &jb->req;
	bool hard = labels_tainted(cl->labels, false) > 0, soft = labels_tainted(cl->labels, true) > 0;
	if (!hard && !soft)
		return 0;
	if (jb->tolerate > nstrs || r->sel_req > nstrs || r->sel_pref > nstrs) {
		snprintf(err, errlen, "job %lld: a label expression or toleration out of range", (long long)jb->trace_id);
		return -1;
	}
	const char *tol = jb->tolerate > 0 ? strs[jb->tolerate - 1] : NULL;
	int16_t *sels[2] = { &r->sel_req, &r->sel_pref };
	for (int k = 0; k < 2; k++) {
		if (!(k ? soft : hard))
			continue;
		const char *expr = *sels[k] > 0 ? strs[*sels[k] - 1] : "";
		int ix = tol_selector(cl, k == 1, expr, tol, err, errlen);
		if (ix < 0) {
			char msg[400];
			snprintf(msg, sizeof msg, "job %lld: label expression \"%s\" with tolerations \"%s\": %s",
			         (long long)jb->trace_id, expr, tol ? tol : "", err);
			snprintf(err, errlen, "%s", msg);
			return -1;
		}
		*sels[k] = (int16_t)-(ix + 1);   /* bound: marked negative until the loop below */
	}
	return 0;
}

static int eval_selectors(struct cluster *cl)
{
	size_t words = ((size_t)cl->nnodes + 63) / 64;
	free(cl->selmask);
	free(cl->selscore);
	cl->selmask = calloc((size_t)cl->nsel * words + 1, sizeof *cl->selmask);
	cl->selscore = calloc((size_t)cl->nsel * (size_t)cl->nnodes + 1, 1);
	if (!cl->selmask || !cl->selscore)
		return -1;
	for (int32_t k = 0; k < cl->nsel; k++)
		for (int32_t i = 0; i < cl->nnodes; i++) {
			if (sel_match(cl->sel[k], cl->labels, i))
				cl->selmask[(size_t)k * words + (size_t)i / 64] |= 1ull << (i % 64);
			int sc = sel_score(cl->sel[k], cl->labels, i);
			cl->selscore[(size_t)k * (size_t)cl->nnodes + (size_t)i] = (uint8_t)(sc > 255 ? 255 : sc);
		}
	return 0;
}

int cluster_bind_more(struct cluster *cl, char *const *strs, int32_t nstrs, int32_t *selmap,
                      struct job *jobs, int32_t njobs, char *err, size_t errlen)
{
	for (int32_t j = 0; j < njobs; j++) {
		struct job_req *r = &jobs[j].req;
		int16_t *sels[2] = { &r->sel_req, &r->sel_pref };
		if (cl->labels && bind_tolerations(cl, strs, nstrs, &jobs[j], err, errlen))
			return -1;
		for (int k = 0; k < 2; k++) {
			int s1 = *sels[k];
			if (s1 < 0) {   /* bound with its tolerations */
				*sels[k] = (int16_t)-s1;
				continue;
			}
			if (s1 == 0)
				continue;
			if (s1 > nstrs) {
				snprintf(err, errlen, "job %lld: label expression %d out of range", (long long)jobs[j].trace_id, s1);
				return -1;
			}
			if (selmap[s1 - 1] < 0) {
				char why[300];
				if ((selmap[s1 - 1] = add_selector(cl, strs[s1 - 1], why, sizeof why)) < 0) {
					snprintf(err, errlen, "job %lld: label expression \"%s\": %s",
					         (long long)jobs[j].trace_id, strs[s1 - 1], why);
					return -1;
				}
			}
			*sels[k] = (int16_t)(selmap[s1 - 1] + 1);
		}
		if (r->plane > 0) {
			if (r->plane > nstrs) {
				snprintf(err, errlen, "job %lld: plane name out of range", (long long)jobs[j].trace_id);
				return -1;
			}
			int pl = cluster_plane_index(cl, strs[r->plane - 1]);
			r->plane = (int16_t)(pl >= 0 ? pl + 1 : INT16_MAX);   /* unknown: never fits */
		}
		if (r->pool > 0) {
			int po = r->pool <= nstrs ? cluster_pool_index(cl, strs[r->pool - 1]) : -1;
			if (po < 0) {
				char known[512] = "";
				size_t off = 0;
				for (int i = 0; i < cl->npools && off < sizeof known; i++)
					off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", i ? ", " : "", cl->pools[i].name);
				snprintf(err, errlen, "job %lld: storage pool \"%s\" is not in the scenario (it has: %s)",
				         (long long)jobs[j].trace_id, r->pool <= nstrs ? strs[r->pool - 1] : "?",
				         known[0] ? known : "none");
				return -1;
			}
			r->pool = (int16_t)(po + 1);
		}
	}
	if ((int64_t)cl->nsel * cl->nnodes > HL_MAX_SEL_CELLS) {
		snprintf(err, errlen, "%d distinct label expressions over %d nodes: more than hetlab "
		         "evaluates (at most %lld expression-node pairs; docs/scenario.md \"Limits\")",
		         (int)cl->nsel, (int)cl->nnodes, (long long)HL_MAX_SEL_CELLS);
		return -1;
	}
	if (eval_selectors(cl)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int cluster_bind_workload(struct cluster *cl, char *const *strs, int32_t nstrs,
                          struct job *jobs, int32_t njobs, char *err, size_t errlen)
{
	int32_t *selmap = NULL;
	free_selectors(cl);
	if (nstrs > 0 && !(selmap = malloc((size_t)nstrs * sizeof *selmap))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int32_t i = 0; i < nstrs; i++)
		selmap[i] = -1;
	int rc = cluster_bind_more(cl, strs, nstrs, selmap, jobs, njobs, err, errlen);
	free(selmap);
	return rc;
}

/* ---- fitting ---- */

static const struct gpu_model *node_gpu(const struct cluster *cl, const struct node *n)
{
	return n->gpu_model >= 0 ? &cl->cat.gpus[n->gpu_model] : NULL;
}

bool cluster_node_suits(const struct cluster *cl, int node, const struct job_req *r, unsigned how)
{
	const struct node *n = &cl->nodes[node];
	if (cluster_req_plain(r))   /* the common case of CPU traces: sizes only */
		return r->nodes == 0 || (n->cores >= r->cores && n->mem_mib >= r->mem_mib);
	if (r->sel_req > 0 && !cluster_sel_match(cl, r->sel_req, node))
		return false;
	if (r->plane > 0 && n->plane != r->plane - 1)
		return false;
	if (((r->flags & REQ_AVX512) && !n->avx512) || ((r->flags & REQ_AMX) && !n->amx))
		return false;
	if (r->pool > 0) {
		const struct storage_pool *p = &cl->pools[r->pool - 1];
		if (!((n->pools >> (r->pool - 1)) & 1u))
			return false;
		if (p->exclusive_class >= 0 && p->exclusive_class != r->cls)
			return false;
	}
	if (r->nodes > 0 && (n->cores < r->cores || n->mem_mib < r->mem_mib))
		return false;   /* a spread request's sizes are totals */
	if (r->gpus == 0)
		return true;
	const struct gpu_model *g = node_gpu(cl, n);
	if (!g || n->ngpus < r->gpus)
		return false;
	if (r->gpu_models && !((r->gpu_models >> n->gpu_model) & 1u))
		return false;
	if ((r->flags & REQ_FP8) && !(g->fp8_tflops > 0))
		return false;
	if (r->mig_g > 0) {
		if (n->mig_cards == 0)
			return false;
	} else if (n->ngpus - n->mig_cards < r->gpus)
		return false;
	if (!(how & FIT_IGNORE_GPU_MEM) && r->gpu_mem_mib > 0 && r->mig_g == 0 && r->gpu_mem_mib > g->mem_mib)
		return false;
	return true;
}

static bool numa_fits(const struct node *n, const struct nodefree *f, int32_t cores)
{
	for (int d = 0; d < n->numa; d++)
		if (f->numa_free[d] >= cores)
			return true;
	return false;
}

bool cluster_share_fits(const struct cluster *cl, int node, int g, const struct job_req *r,
                        bool mem_aware)
{
	const struct node *n = &cl->nodes[node];
	if (g < n->mig_cards || g >= n->ngpus)
		return false;
	const struct gpustate *gs = &cl->gpu[n->gpu0 + g];
	bool idle = (cl->free[node].gpu_free >> g) & 1u;
	if (!idle && gs->nshare == 0)
		return false;   /* a whole-card job has it */
	if (gs->nshare >= cl->share.limit)
		return false;
	if (gs->milli_used + r->gpu_milli > (int64_t)llround(cl->share.admit * HL_MILLI))
		return false;
	if (mem_aware && r->gpu_mem_mib > 0 && gs->mem_need_mib + r->gpu_mem_mib > n->gpu_mem_mib)
		return false;
	return true;
}

/* Can profile prof start at st on card l if the idle card were emptied? */
static bool mig_fits_empty(const struct mig_card *c, int prof, int st)
{
	const struct mig_profile *p = &c->profiles[prof];
	return st >= 0 && st < MIG_SLICES_MAX && ((p->start_mask >> st) & 1u) &&
	       st + p->memory_slices <= c->memory_slices && p->compute_slices <= c->compute_slices;
}

static int mig_lowest_start(const struct mig_card *c, int prof)
{
	for (int st = 0; st < c->memory_slices; st++)
		if (mig_fits_empty(c, prof, st))
			return st;
	return -1;
}

static int mig_free_instance(const struct mig_layout *l, int prof)
{
	for (int i = 0; i < MIG_SLICES_MAX; i++)
		if (l->inst[i].profile == prof && !l->inst[i].busy)
			return i;
	return -1;
}

int cluster_mig_pick(const struct cluster *cl, int node, int g, const struct job_req *r,
                     bool mem_aware, int *profile, int *start)
{
	const struct node *n = &cl->nodes[node];
	if (g >= n->mig_cards || r->mig_g <= 0)
		return -1;
	if (cl->health && cl->health[node].gpu_speed[g] <= 0)
		return -1;   /* fallen off the bus */
	const struct mig_layout *l = cl->gpu[n->gpu0 + g].mig;
	const struct mig_card *c = l->card;
	int cand[MIG_PROFILES_MAX], nc = 0;
	/* Profiles with the compute slices asked, by memory: all of them when
	 * blind (it takes the smallest), those with enough memory when aware. */
	for (int p = 0; p < c->nprofiles; p++) {
		const struct mig_profile *mp = &c->profiles[p];
		if (mp->compute_slices != r->mig_g || mp->media_ext)
			continue;
		if (mem_aware && r->gpu_mem_mib > 0 && (int64_t)(mp->mem_gib * 1024) < r->gpu_mem_mib)
			continue;
		int k = nc++;
		while (k > 0 && c->profiles[cand[k - 1]].mem_gib > mp->mem_gib) {
			cand[k] = cand[k - 1];
			k--;
		}
		cand[k] = p;
	}
	if (nc == 0)
		return -1;
	if (!mem_aware)
		nc = 1;
	for (int k = 0; k < nc; k++) {
		int i = mig_free_instance(l, cand[k]);
		if (i >= 0) {
			*profile = cand[k];
			*start = l->inst[i].start;
			return 0;
		}
	}
	for (int k = 0; k < nc; k++) {
		int st = mig_first_fit(l, cand[k]);
		if (st >= 0) {
			*profile = cand[k];
			*start = st;
			return 1;
		}
	}
	if (!mig_idle(l))
		return -1;
	for (int k = 0; k < nc; k++) {
		int st = mig_lowest_start(c, cand[k]);
		if (st >= 0) {
			*profile = cand[k];
			*start = st;
			return 2;
		}
	}
	return -1;
}

bool cluster_node_fits_ex(const struct cluster *cl, const struct nodefree *f, int node,
                          const struct job_req *r, unsigned how)
{
	const struct node *n = &cl->nodes[node];
	if (cl->svc[node] != NODE_UP)
		return false;
	if (cl->pw && power_node_blocked(cl, node))
		return false;   /* hot, or its rack at its power warning */
	if (f->cores < r->cores || f->mem_mib < r->mem_mib)
		return false;
	if ((r->flags & REQ_NUMA_LOCAL) && r->cores > 0 && !numa_fits(n, f, r->cores))
		return false;
	if (!cluster_node_suits(cl, node, r, how))
		return false;
	if (r->gpus == 0)
		return true;
	bool aware = !(how & FIT_IGNORE_GPU_MEM);
	if (r->mig_g > 0) {
		int prof, st;
		for (int g = 0; g < n->mig_cards; g++)
			if (cluster_mig_pick(cl, node, g, r, aware, &prof, &st) >= 0)
				return true;
		return false;
	}
	if (r->gpu_milli > 0) {
		/* Sharing is judged on the live cards; a scratch state (a
		 * policy's estimate of the future) also offers its idle ones. */
		for (int g = n->mig_cards; g < n->ngpus; g++)
			if (cluster_share_fits(cl, node, g, r, aware) ||
			    (f != &cl->free[node] && ((f->gpu_free >> g) & 1u)))
				return true;
		return false;
	}
	return f->gpus >= r->gpus;
}

bool cluster_node_fits(const struct cluster *cl, const struct nodefree *f, int node,
                       const struct job_req *r)
{
	return cluster_node_fits_ex(cl, f, node, r, 0);
}

bool cluster_can_ever_fit(const struct cluster *cl, const struct job_req *r)
{
	if (r->nodes == 0) {
		if (r->gpus)
			return false;
		if (r->mem_mib == 0 && cluster_req_plain(r))
			return r->cores <= cl->total_cores;
		int64_t cores = 0;
		for (int i = 0; i < cl->nnodes; i++) {
			const struct node *n = &cl->nodes[i];
			if (!cluster_node_suits(cl, i, r, 0))
				continue;
			int64_t c = n->cores;
			if (r->mem_mib > 0 && n->mem_mib / r->mem_mib < c)
				c = n->mem_mib / r->mem_mib;
			cores += c;
		}
		return cores >= r->cores;
	}
	if (r->gpu_milli > 0 && (r->gpus != 1 || r->nodes != 1 || r->gpu_milli > HL_MILLI * cl->share.admit))
		return false;
	if (r->mig_g > 0 && (r->gpus != 1 || r->nodes != 1))
		return false;
	int ok = 0;
	for (int i = 0; i < cl->nnodes && ok < r->nodes; i++) {
		const struct node *n = &cl->nodes[i];
		if (!cluster_node_suits(cl, i, r, 0))
			continue;
		if ((r->flags & REQ_NUMA_LOCAL) && r->cores > (n->cores + n->numa - 1) / n->numa)
			continue;
		if (r->mig_g > 0) {
			/* some profile of that size on this card with the memory */
			const struct mig_layout *l = cl->gpu[n->gpu0].mig;
			bool any = false;
			for (int p = 0; l && p < l->card->nprofiles && !any; p++) {
				const struct mig_profile *mp = &l->card->profiles[p];
				any = mp->compute_slices == r->mig_g && !mp->media_ext &&
				      (int64_t)(mp->mem_gib * 1024) >= r->gpu_mem_mib;
			}
			if (!any)
				continue;
		}
		ok++;
	}
	return ok >= r->nodes;
}

int cluster_numa_split(const struct cluster *cl, const struct nodefree *f, int node,
                       int32_t cores, bool local, int16_t *out)
{
	const struct node *n = &cl->nodes[node];
	memset(out, 0, HL_NUMA_MAX * sizeof *out);
	if (cores <= 0)
		return 0;
	if (local) {
		int best = -1;
		for (int d = 0; d < n->numa; d++)
			if (f->numa_free[d] >= cores && (best < 0 || f->numa_free[d] < f->numa_free[best]))
				best = d;
		if (best < 0)
			return -1;
		out[best] = (int16_t)cores;
		return 0;
	}
	int32_t left = cores;
	for (int d = 0; d < n->numa && left > 0; d++) {
		int32_t c = f->numa_free[d] < left ? f->numa_free[d] : left;
		out[d] = (int16_t)c;
		left -= c;
	}
	return left == 0 ? 0 : -1;
}

int64_t cluster_part_gpu_mem(const struct cluster *cl, const struct alloc_part *p)
{
	const struct node *n = &cl->nodes[p->node];
	if (p->mig_profile >= 0 && n->mig_cards > 0) {
		const struct mig_card *c = cl->gpu[n->gpu0].mig->card;
		return (int64_t)(c->profiles[p->mig_profile].mem_gib * 1024);
	}
	return n->gpu_mem_mib;
}

double cluster_gpu_speed(const struct cluster *cl, int node, int cls, int prec)
{
	const struct node *n = &cl->nodes[node];
	if (n->gpu_model < 0)
		return 1.0;
	const struct gpu_model *g = &cl->cat.gpus[n->gpu_model];
	if ((unsigned)cls < JOB_NCLASS && (unsigned)prec < PREC_N && g->speed[cls][prec] > 0)
		return g->speed[cls][prec];
	return g->rel_speed > 0 ? g->rel_speed : 1.0;
}

/* ---- checking and taking ---- */

#define CHECK(cond, ...) do { if (!(cond)) { snprintf(err, errlen, __VA_ARGS__); return -1; } } while (0)

static int check_numa(const struct node *n, const struct nodefree *nf, const struct job_req *r,
                      const struct alloc_part *p, char *err, size_t errlen)
{
	int64_t sum = 0;
	int used = 0;
	if (n->numa == 1 && p->numa_cores[0] == p->cores && p->cores <= nf->numa_free[0]) {
		/* The common single-domain part: the rest must be empty. */
		int32_t rest = 0;
		for (int d = 1; d < HL_NUMA_MAX; d++)
			rest |= p->numa_cores[d];
		if (rest == 0)
			return 0;
	}
	for (int d = 0; d < HL_NUMA_MAX; d++) {
		CHECK(p->numa_cores[d] >= 0, "node %s: negative cores on NUMA domain %d", n->name, d);
		if (p->numa_cores[d] == 0)
			continue;
		CHECK(d < n->numa, "node %s has no NUMA domain %d", n->name, d);
		CHECK(p->numa_cores[d] <= nf->numa_free[d], "node %s NUMA domain %d over-allocated: %d cores asked, %d free",
		      n->name, d, p->numa_cores[d], nf->numa_free[d]);
		sum += p->numa_cores[d];
		used++;
	}
	CHECK(sum == p->cores, "node %s: NUMA split of %lld cores for a part of %d cores", n->name, (long long)sum, p->cores);
	CHECK(!(r->flags & REQ_NUMA_LOCAL) || used <= 1, "node %s: cores from %d NUMA domains for a NUMA-local request",
	      n->name, used);
	return 0;
}

static int check_mig(const struct cluster *cl, const struct node *n, const struct job_req *r,
                     const struct alloc_part *p, int g, char *err, size_t errlen)
{
	CHECK(g < n->mig_cards, "node %s GPU %d is not in MIG mode", n->name, g);
	const struct mig_layout *l = cl->gpu[n->gpu0 + g].mig;
	const struct mig_card *c = l->card;
	CHECK(p->mig_profile >= 0 && p->mig_profile < c->nprofiles, "node %s GPU %d: no MIG profile %d",
	      n->name, g, p->mig_profile);
	const struct mig_profile *mp = &c->profiles[p->mig_profile];
	CHECK(mp->compute_slices == r->mig_g, "node %s GPU %d: profile %s has %d compute slices, the job asks %d",
	      n->name, g, mp->name, mp->compute_slices, r->mig_g);
	int inst = l->owner[(int)p->mig_start >= 0 && p->mig_start < MIG_SLICES_MAX ? p->mig_start : 0];
	if (p->mig_start >= 0 && p->mig_start < MIG_SLICES_MAX && inst >= 0 &&
	    l->inst[inst].profile == p->mig_profile && l->inst[inst].start == p->mig_start) {
		CHECK(!l->inst[inst].busy, "node %s GPU %d: MIG instance %s@%d is busy", n->name, g, mp->name, p->mig_start);
		return 0;
	}
	int why = mig_can_place(l, p->mig_profile, p->mig_start);
	if (why == MIG_OK)
		return 0;
	CHECK(mig_idle(l), "node %s GPU %d: cannot place %s@%d (%s) and the card is busy, so it cannot be re-sliced",
	      n->name, g, mp->name, p->mig_start, mig_strerror(why));
	CHECK(mig_fits_empty(c, p->mig_profile, p->mig_start), "node %s GPU %d: %s cannot start at slice %d",
	      n->name, g, mp->name, p->mig_start);
	return 0;
}

/* Do domains 1.. of a part hold no cores? (two loads instead of a loop) */
static inline bool numa_rest_empty(const struct alloc_part *p)
{
	int16_t d[HL_NUMA_MAX];
	uint64_t w[2];
	_Static_assert(sizeof d == sizeof w, "numa_cores is 16 bytes");
	memcpy(d, p->numa_cores, sizeof d);
	d[0] = 0;
	memcpy(w, d, sizeof w);
	return (w[0] | w[1]) == 0;
}

/* The whole check for a plain spread request (every SWF job), in one lean
 * loop; false sends the caller to the full check, which says what is wrong. */
static bool spread_plain_ok(const struct cluster *cl, const struct nodefree *f, const struct job_req *r,
                            const struct alloc_part *parts, int nparts)
{
	int64_t cores = 0;
	int32_t prev = -1;
	for (int i = 0; i < nparts; i++) {
		const struct alloc_part *p = &parts[i];
		if (p->node <= prev || p->node >= cl->nnodes || (cl->pw && power_node_blocked(cl, p->node)))
			return false;
		prev = p->node;
		const struct node *n = &cl->nodes[p->node];
		const struct nodefree *nf = &f[p->node];
		if (cl->svc[p->node] != NODE_UP || p->cores <= 0 || p->cores > nf->cores || p->gpus || p->milli ||
		    p->mig_profile >= 0 || p->mem_mib != (int64_t)p->cores * r->mem_mib || p->mem_mib > nf->mem_mib)
			return false;
		if (n->numa != 1 || p->numa_cores[0] != p->cores || p->cores > nf->numa_free[0] ||
		    !numa_rest_empty(p))
			return false;
		cores += p->cores;
	}
	return cores == r->cores;
}

int cluster_check_alloc(const struct cluster *cl, const struct nodefree *f,
                        const struct job_req *r, const struct alloc_part *parts,
                        int nparts, char *err, size_t errlen)
{
	if (r->nodes == 0 && cluster_req_plain(r) && nparts > 0 && spread_plain_ok(cl, f, r, parts, nparts))
		return 0;
	int64_t cores = 0, io_need = 0;
	int model = -1;
	CHECK(nparts > 0, "empty allocation");
	CHECK(r->nodes <= 0 || nparts == r->nodes, "gang of %d nodes given %d nodes", r->nodes, nparts);
	bool shared = job_req_shared(r);
	CHECK(!shared || (r->nodes == 1 && r->gpus == 1), "a GPU share is asked with %d nodes of %d GPUs (expected 1 and 1)",
	      r->nodes, r->gpus);
	for (int i = 0; i < nparts; i++) {
		const struct alloc_part *p = &parts[i];
		CHECK(p->node >= 0 && p->node < cl->nnodes, "no node %d", p->node);
		const struct node *n = &cl->nodes[p->node];
		const struct nodefree *nf = &f[p->node];
		if (i > 0 && parts[i - 1].node >= p->node) {
			snprintf(err, errlen, parts[i - 1].node == p->node ? "node %s given twice"
			         : "parts not in increasing node order at node %s", n->name);
			return -1;
		}
		CHECK(cl->svc[p->node] == NODE_UP, "node %s is not up", n->name);
		CHECK(!cl->pw || !power_node_blocked(cl, p->node), "node %s takes no new work (%s)", n->name,
		      cl->pw && (cl->pw->node[p->node].flags & PW_NODE_HOT) ? "above its warning temperature"
		                                                             : "its rack is at its power warning");
		CHECK(p->cores > 0 || p->gpus != 0, "node %s given nothing", n->name);
		CHECK(p->cores >= 0 && p->mem_mib >= 0, "node %s given a negative amount", n->name);
		CHECK(p->cores <= nf->cores && p->mem_mib <= nf->mem_mib,
		      "node %s over-allocated: %d cores / %lld MiB asked, %d / %lld free",
		      n->name, p->cores, (long long)p->mem_mib, nf->cores, (long long)nf->mem_mib);
		CHECK(n->ngpus >= 64 || (p->gpus >> n->ngpus) == 0, "node %s has no GPU %#llx", n->name,
		      (unsigned long long)p->gpus);
		if (check_numa(n, nf, r, p, err, errlen))
			return -1;
		CHECK(cluster_node_suits(cl, p->node, r, FIT_IGNORE_GPU_MEM),
		      "node %s does not meet the job's requirements (labels, GPU model, FP8, ISA, plane or pool)", n->name);
		if (r->nodes > 0) {
			CHECK(p->cores == r->cores && hl_popcount64(p->gpus) == r->gpus && p->mem_mib == r->mem_mib,
			      "node %s given %d cores, %d GPUs, %lld MiB; the request is %d, %d, %lld per node",
			      n->name, p->cores, hl_popcount64(p->gpus), (long long)p->mem_mib,
			      r->cores, r->gpus, (long long)r->mem_mib);
			if (r->gpus > 0) {
				CHECK(model < 0 || model == n->gpu_model, "gang mixes GPU models (%s and %s)",
				      cl->cat.gpus[model].name, cl->cat.gpus[n->gpu_model].name);
				model = n->gpu_model;
			}
		} else {
			CHECK(p->gpus == 0, "node %s given GPUs for a CPU-only request", n->name);
			CHECK(p->mem_mib == (int64_t)p->cores * r->mem_mib, "node %s given %lld MiB for %d cores at %lld MiB per core",
			      n->name, (long long)p->mem_mib, p->cores, (long long)r->mem_mib);
		}
		if (r->gpu_milli > 0) {
			int g = __builtin_ctzll(p->gpus);
			CHECK(p->milli == r->gpu_milli, "node %s: share of %d milli-GPU given for a request of %d",
			      n->name, p->milli, r->gpu_milli);
			CHECK(cluster_share_fits(cl, p->node, g, r, false),
			      "node %s GPU %d cannot take a %d milli-GPU share (MIG mode, a whole-card job, %d sharers or %d milli in use)",
			      n->name, g, r->gpu_milli, cl->gpu[n->gpu0 + g].nshare, cl->gpu[n->gpu0 + g].milli_used);
		} else if (r->mig_g > 0) {
			if (check_mig(cl, n, r, p, __builtin_ctzll(p->gpus), err, errlen))
				return -1;
		} else {
			CHECK(p->milli == 0 && p->mig_profile < 0, "node %s: a share given for a whole-card request", n->name);
			CHECK((p->gpus & ~nf->gpu_free) == 0, "node %s: GPUs %#llx asked, only %#llx free", n->name,
			      (unsigned long long)p->gpus, (unsigned long long)nf->gpu_free);
		}
		cores += p->cores;
	}
	CHECK(r->nodes != 0 || cores == r->cores, "%lld cores given, %d requested", (long long)cores, r->cores);
	if (r->pool > 0) {
		const struct storage_pool *po = &cl->pools[r->pool - 1];
		io_need = r->io_mbps;
		CHECK(po->used_gib + r->storage_gib <= po->cap_gib, "pool %s full: %lld GiB asked, %lld free", po->name,
		      (long long)r->storage_gib, (long long)(po->cap_gib - po->used_gib));
		CHECK(po->resv_mbps + (double)io_need <= po->admit * po->bw_mbps + 1e-9,
		      "pool %s: %lld MB/s asked, %.0f of %.0f admitted in use", po->name, (long long)io_need,
		      po->resv_mbps, po->admit * po->bw_mbps);
	}
	return 0;
}
#undef CHECK

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

void cluster_free_changed(struct cluster *cl, int32_t node)
{
	const struct nodefree *f = &cl->free[node];
	int g = f->gpus < 0 ? 0 : f->gpus > CLUSTER_FX_GPUS ? CLUSTER_FX_GPUS : f->gpus;
	int c = fx_core_level(f->cores);
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
