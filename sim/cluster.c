/* cluster — building the node arrays, free-capacity bookkeeping, allocation
 * checks and the part pool. See cluster.h. */
#include "sim/cluster.h"

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
}

void catalog_fini(struct catalog *cat)
{
	free(cat->gpus);
	free(cat->cpus);
	memset(cat, 0, sizeof *cat);
}

void cluster_fini(struct cluster *cl)
{
	catalog_fini(&cl->cat);
	free(cl->types);
	free(cl->racks);
	free(cl->nodes);
	free(cl->planes);
	free(cl->free);
	free(cl->svc);
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
		if (strcmp(cl->planes[i], name) == 0)
			return i;
	return -1;
}

int cluster_add_type(struct cluster *cl, const struct node_type *t)
{
	int32_t cap = cap_of(cl->ntypes);
	if (grow((void **)&cl->types, &cap, cl->ntypes + 1, sizeof *cl->types))
		return -1;
	cl->types[cl->ntypes] = *t;
	if (t->plane[0] && cluster_plane_index(cl, t->plane) < 0) {
		int32_t pcap = cap_of(cl->nplanes);
		if (grow((void **)&cl->planes, &pcap, cl->nplanes + 1, sizeof *cl->planes))
			return -1;
		snprintf(cl->planes[cl->nplanes++], HL_NAME_MAX, "%s", t->plane);
	}
	return cl->ntypes++;
}

int cluster_add_rack(struct cluster *cl, const char *name, double cap_w, int cooling)
{
	int32_t cap = cap_of(cl->nracks);
	if (grow((void **)&cl->racks, &cap, cl->nracks + 1, sizeof *cl->racks))
		return -1;
	struct rack *r = &cl->racks[cl->nracks];
	snprintf(r->name, sizeof r->name, "%s", name);
	r->cap_w = cap_w;
	r->cooling = cooling;
	r->first_node = cl->nnodes;
	r->nnodes = 0;
	return cl->nracks++;
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
		n->plane = t->plane[0] ? cluster_plane_index(cl, t->plane) : -1;
		n->cooling = r->cooling;
		cl->nnodes++;
		r->nnodes++;
	}
	return 0;
}

int cluster_finish(struct cluster *cl)
{
	free(cl->free);
	free(cl->svc);
	cl->free = calloc((size_t)cl->nnodes + 1, sizeof *cl->free);
	cl->svc = calloc((size_t)cl->nnodes + 1, 1);
	if (!cl->free || !cl->svc)
		return -1;
	cl->total_cores = cl->total_gpus = 0;
	for (int i = 0; i < cl->nnodes; i++) {
		const struct node *n = &cl->nodes[i];
		struct nodefree *f = &cl->free[i];
		f->cores = n->cores;
		f->gpus = n->ngpus;
		f->mem_mib = n->mem_mib;
		f->gpu_free = n->ngpus >= 64 ? ~0ull : ((1ull << n->ngpus) - 1);
		cl->svc[i] = NODE_UP;
		cl->total_cores += n->cores;
		cl->total_gpus += n->ngpus;
	}
	cl->free_cores = cl->total_cores;
	cl->free_gpus = cl->total_gpus;
	return 0;
}

static bool gpu_model_ok(const struct cluster *cl, const struct node *n, const struct job_req *r)
{
	if (r->gpus == 0)
		return true;
	if (n->gpu_model < 0 || n->ngpus < r->gpus)
		return false;
	if (r->gpu_models && !((r->gpu_models >> n->gpu_model) & 1u))
		return false;
	if (r->gpu_mem_mib > cl->cat.gpus[n->gpu_model].mem_mib)
		return false;
	return true;
}

bool cluster_node_fits(const struct cluster *cl, const struct nodefree *f, int node,
                       const struct job_req *r)
{
	const struct node *n = &cl->nodes[node];
	if (cl->svc[node] != NODE_UP)
		return false;
	if (f->cores < r->cores || f->gpus < r->gpus || f->mem_mib < r->mem_mib)
		return false;
	return gpu_model_ok(cl, n, r);
}

bool cluster_can_ever_fit(const struct cluster *cl, const struct job_req *r)
{
	if (r->nodes == 0) {
		if (r->gpus)
			return false;
		if (r->mem_mib == 0)
			return r->cores <= cl->total_cores;
		int64_t cores = 0;
		for (int i = 0; i < cl->nnodes; i++) {
			const struct node *n = &cl->nodes[i];
			int64_t c = n->cores;
			if (r->mem_mib > 0 && n->mem_mib / r->mem_mib < c)
				c = n->mem_mib / r->mem_mib;
			cores += c;
		}
		return cores >= r->cores;
	}
	int ok = 0;
	for (int i = 0; i < cl->nnodes && ok < r->nodes; i++) {
		const struct node *n = &cl->nodes[i];
		if (n->cores >= r->cores && n->mem_mib >= r->mem_mib && gpu_model_ok(cl, n, r))
			ok++;
	}
	return ok >= r->nodes;
}

int cluster_check_alloc(const struct cluster *cl, const struct nodefree *f,
                        const struct job_req *r, const struct alloc_part *parts,
                        int nparts, char *err, size_t errlen)
{
	int64_t cores = 0;
	if (nparts <= 0) {
		snprintf(err, errlen, "empty allocation");
		return -1;
	}
	if (r->nodes > 0 && nparts != r->nodes) {
		snprintf(err, errlen, "gang of %d nodes given %d nodes", r->nodes, nparts);
		return -1;
	}
	for (int i = 0; i < nparts; i++) {
		const struct alloc_part *p = &parts[i];
		if (p->node < 0 || p->node >= cl->nnodes) {
			snprintf(err, errlen, "no node %d", p->node);
			return -1;
		}
		const struct node *n = &cl->nodes[p->node];
		const struct nodefree *nf = &f[p->node];
		if (i > 0 && parts[i - 1].node >= p->node) {
			snprintf(err, errlen, parts[i - 1].node == p->node ? "node %s given twice"
			         : "parts not in increasing node order at node %s", n->name);
			return -1;
		}
		if (cl->svc[p->node] != NODE_UP) {
			snprintf(err, errlen, "node %s is not up", n->name);
			return -1;
		}
		if (p->cores <= 0 && p->gpus == 0) {
			snprintf(err, errlen, "node %s given nothing", n->name);
			return -1;
		}
		if (p->cores < 0 || p->mem_mib < 0) {
			snprintf(err, errlen, "node %s given a negative amount", n->name);
			return -1;
		}
		if (p->cores > nf->cores || p->mem_mib > nf->mem_mib) {
			snprintf(err, errlen, "node %s over-allocated: %d cores / %lld MiB asked, %d / %lld free",
			         n->name, p->cores, (long long)p->mem_mib, nf->cores, (long long)nf->mem_mib);
			return -1;
		}
		if ((p->gpus & ~nf->gpu_free) != 0) {
			snprintf(err, errlen, "node %s: GPUs %#llx asked, only %#llx free", n->name,
			         (unsigned long long)p->gpus, (unsigned long long)nf->gpu_free);
			return -1;
		}
		if (r->nodes > 0) {
			if (p->cores != r->cores || hl_popcount64(p->gpus) != r->gpus || p->mem_mib != r->mem_mib) {
				snprintf(err, errlen, "node %s given %d cores, %d GPUs, %lld MiB; the request is %d, %d, %lld per node",
				         n->name, p->cores, hl_popcount64(p->gpus), (long long)p->mem_mib,
				         r->cores, r->gpus, (long long)r->mem_mib);
				return -1;
			}
			if (!gpu_model_ok(cl, n, r)) {
				snprintf(err, errlen, "node %s does not have the GPU model or memory the job requires", n->name);
				return -1;
			}
		} else {
			if (p->gpus) {
				snprintf(err, errlen, "node %s given GPUs for a CPU-only request", n->name);
				return -1;
			}
			if (p->mem_mib != (int64_t)p->cores * r->mem_mib) {
				snprintf(err, errlen, "node %s given %lld MiB for %d cores at %lld MiB per core",
				         n->name, (long long)p->mem_mib, p->cores, (long long)r->mem_mib);
				return -1;
			}
		}
		cores += p->cores;
	}
	if (r->nodes == 0 && cores != r->cores) {
		snprintf(err, errlen, "%lld cores given, %d requested", (long long)cores, r->cores);
		return -1;
	}
	return 0;
}

void nodefree_take(struct nodefree *f, const struct alloc_part *parts, int nparts)
{
	for (int i = 0; i < nparts; i++) {
		struct nodefree *nf = &f[parts[i].node];
		nf->cores -= parts[i].cores;
		nf->mem_mib -= parts[i].mem_mib;
		nf->gpus -= hl_popcount64(parts[i].gpus);
		nf->gpu_free &= ~parts[i].gpus;
	}
}

void nodefree_give(struct nodefree *f, const struct alloc_part *parts, int nparts)
{
	for (int i = 0; i < nparts; i++) {
		struct nodefree *nf = &f[parts[i].node];
		nf->cores += parts[i].cores;
		nf->mem_mib += parts[i].mem_mib;
		nf->gpus += hl_popcount64(parts[i].gpus);
		nf->gpu_free |= parts[i].gpus;
	}
}

void cluster_take(struct cluster *cl, const struct alloc_part *parts, int nparts)
{
	nodefree_take(cl->free, parts, nparts);
	for (int i = 0; i < nparts; i++) {
		cl->free_cores -= parts[i].cores;
		cl->free_gpus -= hl_popcount64(parts[i].gpus);
	}
}

void cluster_give(struct cluster *cl, const struct alloc_part *parts, int nparts)
{
	nodefree_give(cl->free, parts, nparts);
	for (int i = 0; i < nparts; i++) {
		cl->free_cores += parts[i].cores;
		cl->free_gpus += hl_popcount64(parts[i].gpus);
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
