/* gpushare — the six GPU-sharing placement scores; see gpushare.h. */
#include "policies/gpushare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- node state helpers ---------------------------------------------------- */

int64_t gs_gpu_free_total(const struct gs_node *n)
{
	int64_t s = 0;
	for (int i = 0; i < n->ngpu; i++)
		s += n->gpu_free[i];
	return s;
}

static int full_free_count(const struct gs_node *n)
{
	int k = 0;
	for (int i = 0; i < n->ngpu; i++)
		k += n->gpu_free[i] == GS_MILLI;
	return k;
}

/* GPUs with at least milli free. */
static int gpus_with(const int32_t *free, int ngpu, int32_t milli)
{
	int k = 0;
	for (int i = 0; i < ngpu; i++)
		k += free[i] >= milli;
	return k;
}

/* The reference's IsNodeAccessibleToPodByType (pkg/utils/utils.go:956). */
static bool model_ok(uint32_t node_bit, const struct gs_req *r)
{
	return r->models == 0 || (r->models & node_bit) != 0;
}

bool gs_fits(const struct gs_node *n, const struct gs_req *r)
{
	if (n->cpu_free < r->cpu_milli || n->mem_free < r->mem_mib)
		return false;
	if (r->num_gpu == 0 || r->gpu_milli == 0)
		return true;
	if (!model_ok(n->model_bit, r))
		return false;
	return gpus_with(n->gpu_free, n->ngpu, r->gpu_milli) >= r->num_gpu;
}

/* The first num_gpu fully free GPUs in index order (whole-GPU requests). */
static uint32_t exclusive_gpus(const struct gs_node *n, const struct gs_req *r)
{
	uint32_t m = 0;
	int need = r->num_gpu;
	for (int i = 0; i < n->ngpu && need > 0; i++)
		if (n->gpu_free[i] == GS_MILLI) {
			m |= 1u << i;
			need--;
		}
	return m;
}

/* Shared request: the GPU with the least free milli that still fits (the
 * lowest index among equals); whole GPUs: exclusive_gpus. */
static uint32_t bestfit_gpus(const struct gs_node *n, const struct gs_req *r)
{
	if (r->num_gpu == 0 || r->gpu_milli == 0)
		return 0;
	if (r->gpu_milli >= GS_MILLI)
		return exclusive_gpus(n, r);
	int best = -1;
	for (int i = 0; i < n->ngpu; i++)
		if (n->gpu_free[i] >= r->gpu_milli && (best < 0 || n->gpu_free[i] < n->gpu_free[best]))
			best = i;
	return best < 0 ? 0 : 1u << best;
}

static int aff_tag(const struct gs_req *r)
{
	if (r->num_gpu == 0 || r->gpu_milli == 0)
		return -1;
	if (r->gpu_milli < GS_MILLI)
		return 0;
	return r->num_gpu < GS_NAFF ? r->num_gpu : GS_NAFF - 1;
}

void gs_apply(struct gs_node *n, const struct gs_req *r, uint32_t gpus)
{
	n->cpu_free -= r->cpu_milli;
	n->mem_free -= r->mem_mib;
	for (int i = 0; i < n->ngpu; i++)
		if (gpus & (1u << i))
			n->gpu_free[i] -= r->gpu_milli;
	int t = aff_tag(r);
	if (t >= 0)
		n->aff[t]++;
}

/* ---- fragmentation ----------------------------------------------------------- */

static double frag_raw(const int32_t *free, int ngpu, int64_t cpu_free, uint32_t model_bit,
                       const struct gs_typical *t)
{
	int64_t total = 0;
	for (int i = 0; i < ngpu; i++)
		total += free[i];
	if (total == 0)
		return 0;
	double f = 0;
	for (int k = 0; k < t->n; k++) {
		const struct gs_req *m = &t->pod[k];
		double p = t->p[k];
		if (m->gpu_milli == 0 || m->num_gpu == 0) {
			f += p * (double)total;         /* asks no GPU: every idle GPU is lost to it */
			continue;
		}
		if (!model_ok(model_bit, m)) {
			f += p * (double)total;         /* may not run on this model (NoAccess) */
			continue;
		}
		if (cpu_free >= m->cpu_milli && gpus_with(free, ngpu, m->gpu_milli) >= m->num_gpu) {
			int64_t small = 0;              /* fits: only GPUs too small for it count */
			for (int i = 0; i < ngpu; i++)
				if (free[i] < m->gpu_milli)
					small += free[i];
			f += p * (double)small;
		} else {
			f += p * (double)total;
		}
	}
	return f;
}

double gs_frag(const struct gs_node *n, const struct gs_typical *t)
{
	return frag_raw(n->gpu_free, n->ngpu, n->cpu_free, n->model_bit, t);
}

/* The memo: open addressing on (cpu_free, model, ngpu, sorted free list).
 * Frag depends on nothing else. Grows by doubling at half load. */
struct gs_memo_ent {
	int64_t cpu;
	uint32_t model;
	int32_t ngpu;
	int32_t used;
	int32_t free[GS_MAX_GPUS];
	double frag;
};
struct gs_memo {
	const struct gs_typical *t;
	size_t cap, n;
	struct gs_memo_ent *e;
};

struct gs_memo *gs_memo_new(const struct gs_typical *t)
{
	struct gs_memo *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->t = t;
	m->cap = 1u << 14;
	m->e = calloc(m->cap, sizeof *m->e);
	if (!m->e) {
		free(m);
		return NULL;
	}
	return m;
}

void gs_memo_free(struct gs_memo *m)
{
	if (!m)
		return;
	free(m->e);
	free(m);
}

static uint64_t memo_hash(int64_t cpu, uint32_t model, int ngpu, const int32_t *s)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)cpu;
	h *= 1099511628211ull;
	h ^= (uint64_t)ngpu | (uint64_t)model << 8;
	for (int i = 0; i < ngpu; i++) {
		h *= 1099511628211ull;
		h ^= (uint64_t)(uint32_t)s[i];
	}
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

static void sort_desc(int32_t *a, int n)
{
	for (int i = 1; i < n; i++) {
		int32_t v = a[i];
		int j = i - 1;
		while (j >= 0 && a[j] < v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
}

static struct gs_memo_ent *memo_slot(struct gs_memo_ent *e, size_t cap, int64_t cpu,
                                     uint32_t model, int ngpu, const int32_t *s)
{
	size_t i = (size_t)memo_hash(cpu, model, ngpu, s) & (cap - 1);
	for (;; i = (i + 1) & (cap - 1)) {
		struct gs_memo_ent *x = &e[i];
		if (!x->used)
			return x;
		if (x->cpu == cpu && x->model == model && x->ngpu == ngpu && memcmp(x->free, s, (size_t)ngpu * sizeof *s) == 0)
			return x;
	}
}

static int memo_grow(struct gs_memo *m)
{
	size_t cap = m->cap * 2;
	struct gs_memo_ent *e = calloc(cap, sizeof *e);
	if (!e)
		return -1;
	for (size_t i = 0; i < m->cap; i++)
		if (m->e[i].used)
			*memo_slot(e, cap, m->e[i].cpu, m->e[i].model, m->e[i].ngpu, m->e[i].free) = m->e[i];
	free(m->e);
	m->e = e;
	m->cap = cap;
	return 0;
}

static double frag_of(const struct gs_ctx *c, const int32_t *free, int ngpu, int64_t cpu,
                      uint32_t model)
{
	struct gs_memo *m = c->memo;
	if (!m)
		return frag_raw(free, ngpu, cpu, model, c->typ);
	int32_t s[GS_MAX_GPUS] = { 0 };
	memcpy(s, free, (size_t)ngpu * sizeof *s);
	sort_desc(s, ngpu);
	struct gs_memo_ent *x = memo_slot(m->e, m->cap, cpu, model, ngpu, s);
	if (x->used)
		return x->frag;
	double f = frag_raw(s, ngpu, cpu, model, c->typ);
	if (2 * (m->n + 1) > m->cap) {
		if (memo_grow(m) < 0)
			return f;       /* no memory: answer without caching */
		x = memo_slot(m->e, m->cap, cpu, model, ngpu, s);
	}
	x->used = 1;
	x->cpu = cpu;
	x->model = model;
	x->ngpu = ngpu;
	memcpy(x->free, s, sizeof x->free);
	x->frag = f;
	m->n++;
	return f;
}

/* ---- the scores ---------------------------------------------------------------- */

/* Random: the caller draws the node (random_node); 
 * a shared request goes to a uniformly drawn fitting GPU. */
static int random_score(const struct gs_node *n, const struct gs_req *r, const struct gs_ctx *c,
                        uint32_t *gpus)
{
	*gpus = 0;
	if (r->num_gpu == 0 || r->gpu_milli == 0)
		return 0;
	if (r->gpu_milli >= GS_MILLI) {
		*gpus = exclusive_gpus(n, r);
		return 0;
	}
	int k = gpus_with(n->gpu_free, n->ngpu, r->gpu_milli);
	int want = k > 0 ? (int)(c->u * k) : 0;
	if (want >= k)
		want = k - 1;
	for (int i = 0; i < n->ngpu; i++)
		if (n->gpu_free[i] >= r->gpu_milli && want-- == 0) {
			*gpus = 1u << i;
			break;
		}
	return 0;
}

/* DotProd (Tetris): 100 × (1 − (free·req)/2) with both vectors [cpu, gpu]
 * over the largest node spec; GPUs by best fit. */
static int dotprod_score(const struct gs_node *n, const struct gs_req *r, const struct gs_ctx *c,
                         uint32_t *gpus)
{
	(void)c;
	*gpus = bestfit_gpus(n, r);
	double fc = (double)n->cpu_free / GS_MAX_SPEC_CPU;
	double fg = (double)gs_gpu_free_total(n) / GS_MAX_SPEC_GPU;
	double rc = (double)r->cpu_milli / GS_MAX_SPEC_CPU;
	double rg = (double)((int64_t)r->num_gpu * r->gpu_milli) / GS_MAX_SPEC_GPU;
	double s = 1.0 - (fc * rc + fg * rg) / 2.0;
	return (int)(100.0 * s);
}

/* GpuClustering: nodes already holding only this request's kind of GPU pod
 * first, then mixed ones with it, then empty ones, then others; within a
 * band, the fuller node. CPU-only requests: 0 everywhere. */
static int clustering_score(const struct gs_node *n, const struct gs_req *r,
                            const struct gs_ctx *c, uint32_t *gpus)
{
	(void)c;
	*gpus = bestfit_gpus(n, r);
	int tag = aff_tag(r);
	if (tag < 0)
		return 0;
	int kinds = 0;
	for (int i = 0; i < GS_NAFF; i++)
		kinds += n->aff[i] > 0;
	int64_t fill = 25 * (GS_MAX_SPEC_GPU - gs_gpu_free_total(n)) / GS_MAX_SPEC_GPU;
	int band;
	if (n->aff[tag] > 0)
		band = kinds == 1 ? 75 : 50;
	else
		band = kinds == 0 ? 25 : 0;
	return (int)(fill + band);
}

/* GpuPacking: shared GPUs first (the fuller the better), then free GPUs on
 * a used node, then an idle node (fewer GPUs first). CPU-only: 0. */
static int packing_score(const struct gs_node *n, const struct gs_req *r, const struct gs_ctx *c,
                         uint32_t *gpus)
{
	(void)c;
	*gpus = bestfit_gpus(n, r);
	if (r->num_gpu == 0 || r->gpu_milli == 0)
		return 0;
	int full = full_free_count(n);
	if (full == n->ngpu) {
		int s = 100 / 3 - full;
		return s > full ? s : full;
	}
	/* GPUs in ascending order of free milli (stable), the first that fit. */
	int idx[GS_MAX_GPUS];
	for (int i = 0; i < n->ngpu; i++) {
		int j = i - 1;
		while (j >= 0 && n->gpu_free[idx[j]] > n->gpu_free[i]) {
			idx[j + 1] = idx[j];
			j--;
		}
		idx[j + 1] = i;
	}
	int need = r->num_gpu, use_full = 0;
	int64_t ratio = 0;
	for (int k = 0; k < n->ngpu && need > 0; k++) {
		int32_t f = n->gpu_free[idx[k]];
		if (r->gpu_milli <= f) {
			need--;
			ratio += (int64_t)f * 100 / GS_MILLI;
			use_full += f == GS_MILLI;
		}
	}
	if (need > 0)
		return 0;
	if (use_full > 0) {
		int s = 100 / 2 - use_full;
		return s > 100 / 3 ? s : 100 / 3;
	}
	int64_t s = 100 - ratio / 10;
	return (int)(s > 50 ? s : 50);
}

/* BestFit: 100 × (1 − Σ ½ (free − req)/maxspec) over [cpu, gpu]. */
static int bestfit_score(const struct gs_node *n, const struct gs_req *r, const struct gs_ctx *c,
                         uint32_t *gpus)
{
	(void)c;
	*gpus = bestfit_gpus(n, r);
	double s = (double)(n->cpu_free - r->cpu_milli) / GS_MAX_SPEC_CPU * 0.5 +
	           (double)(gs_gpu_free_total(n) - (int64_t)r->num_gpu * r->gpu_milli) /
	           GS_MAX_SPEC_GPU * 0.5;
	return (int)((1.0 - s) * 100.0);
}

static int sigmoid100(double delta)
{
	return (int)(1.0 / (1.0 + exp(-delta / 1000.0)) * 100.0);
}

/* FGD: 100 × sigmoid((F_before − F_after)/1000); a shared request tries each
 * GPU that fits and keeps the best (the lowest index among equals); whole
 * GPUs go to the first free ones. */
static int fgd_score(const struct gs_node *n, const struct gs_req *r, const struct gs_ctx *c,
                     uint32_t *gpus)
{
	double before = n->frag;
	int32_t f[GS_MAX_GPUS];
	memcpy(f, n->gpu_free, sizeof f);
	int64_t cpu = n->cpu_free - r->cpu_milli;
	if (r->num_gpu == 1 && r->gpu_milli > 0 && r->gpu_milli < GS_MILLI) {
		int best = -1, bs = 0;
		double seen[GS_MAX_GPUS];
		int seen_s[GS_MAX_GPUS], nseen = 0;
		for (int i = 0; i < n->ngpu; i++) {
			if (n->gpu_free[i] < r->gpu_milli)
				continue;
			int s = -1;
			for (int k = 0; k < nseen; k++)
				if (seen[k] == (double)n->gpu_free[i])
					s = seen_s[k];
			if (s < 0) {
				f[i] -= r->gpu_milli;
				s = sigmoid100(before - frag_of(c, f, n->ngpu, cpu, n->model_bit));
				f[i] += r->gpu_milli;
				seen[nseen] = (double)n->gpu_free[i];
				seen_s[nseen++] = s;
			}
			if (best < 0 || s > bs) {
				best = i;
				bs = s;
			}
		}
		*gpus = best < 0 ? 0 : 1u << best;
		return bs;
	}
	uint32_t m = (r->num_gpu == 0 || r->gpu_milli == 0) ? 0 : exclusive_gpus(n, r);
	for (int i = 0; i < n->ngpu; i++)
		if (m & (1u << i))
			f[i] -= r->gpu_milli;
	*gpus = m;
	return sigmoid100(before - frag_of(c, f, n->ngpu, cpu, n->model_bit));
}

static const struct gpu_placement gp_random = { .name = "random", .summary = "a uniformly random node that fits, a random fitting GPU on it", .paper = "Random",
                                                .score = random_score, .random_node = true };
static const struct gpu_placement gp_dotprod = { .name = "dotprod", .summary = "Tetris dot product: the node with least left of what the pod asks", .paper = "DotProd",
                                                 .score = dotprod_score };
static const struct gpu_placement gp_clustering = { .name = "clustering", .summary = "nodes already holding pods of the same GPU kind first",
                                                    .paper = "GpuClustering",
                                                    .score = clustering_score };
static const struct gpu_placement gp_packing = { .name = "packing", .summary = "shared GPUs first, then free GPUs on used nodes, then idle nodes", .paper = "GpuPacking",
                                                 .score = packing_score };
static const struct gpu_placement gp_bestfit = { .name = "bestfit", .summary = "the node left with the least free resources after placing", .paper = "BestFit",
                                                 .score = bestfit_score };
static const struct gpu_placement gp_fgd = { .name = "fgd", .summary = "fragmentation gradient descent: the node and GPUs that least increase expected fragmentation", .paper = "FGD", .score = fgd_score };

const struct gpu_placement *const gpushare_table[] = {
	&gp_random, &gp_dotprod, &gp_clustering, &gp_packing, &gp_bestfit, &gp_fgd, NULL,
};

const struct gpu_placement *gpushare_find(const char *name)
{
	for (int i = 0; gpushare_table[i]; i++)
		if (strcmp(gpushare_table[i]->name, name) == 0)
			return gpushare_table[i];
	return NULL;
}

/* ---- typical pods ---------------------------------------------------------------- */

struct shape {
	struct gs_req r;
	double cnt;
};

/* Most popular first; equal counts: the larger shape (cpu, milli, num) first. */
static int shape_cmp(const void *a, const void *b)
{
	const struct shape *x = a, *y = b;
	if (x->cnt != y->cnt)
		return x->cnt < y->cnt ? 1 : -1;
	if (x->r.cpu_milli != y->r.cpu_milli)
		return x->r.cpu_milli < y->r.cpu_milli ? 1 : -1;
	if (x->r.gpu_milli != y->r.gpu_milli)
		return x->r.gpu_milli < y->r.gpu_milli ? 1 : -1;
	if (x->r.num_gpu != y->r.num_gpu)
		return x->r.num_gpu < y->r.num_gpu ? 1 : -1;
	if (x->r.spec != y->r.spec)
		return x->r.spec < y->r.spec ? 1 : -1;
	return 0;
}

int gs_typical_build(const struct gs_req *pods, int32_t n, double threshold_pct,
                     struct gs_typical *out)
{
	memset(out, 0, sizeof *out);
	struct shape *s = calloc(n > 0 ? (size_t)n : 1, sizeof *s);
	if (!s)
		return -1;
	int32_t ns = 0;
	for (int32_t i = 0; i < n; i++) {
		struct gs_req k = pods[i];
		k.mem_mib = 0;
		int32_t j;
		for (j = 0; j < ns; j++)
			if (s[j].r.cpu_milli == k.cpu_milli && s[j].r.gpu_milli == k.gpu_milli &&
			    s[j].r.num_gpu == k.num_gpu && s[j].r.spec == k.spec)
				break;
		if (j == ns)
			s[ns++].r = k;
		s[j].cnt += 1;
	}
	qsort(s, (size_t)ns, sizeof *s, shape_cmp);
	double want = threshold_pct * (double)n / 100.0, cum = 0;
	int32_t take = 0;
	while (take < ns && cum < want)
		cum += s[take++].cnt;
	out->pod = calloc(take > 0 ? (size_t)take : 1, sizeof *out->pod);
	out->p = calloc(take > 0 ? (size_t)take : 1, sizeof *out->p);
	if (!out->pod || !out->p) {
		free(s);
		gs_typical_free(out);
		return -1;
	}
	for (int32_t i = 0; i < take; i++) {
		out->pod[i] = s[i].r;
		out->p[i] = s[i].cnt / cum;
	}
	out->n = take;
	free(s);
	return 0;
}

void gs_typical_free(struct gs_typical *t)
{
	free(t->pod);
	free(t->p);
	memset(t, 0, sizeof *t);
}

void gs_node_init(struct gs_node *n, int32_t ngpu, int64_t cpu_milli, int64_t mem_mib, uint32_t model_bit)
{
	memset(n, 0, sizeof *n);
	n->ngpu = ngpu;
	for (int i = 0; i < ngpu; i++)
		n->gpu_free[i] = GS_MILLI;
	n->cpu_free = n->cpu_cap = cpu_milli;
	n->mem_free = mem_mib;
	n->model_bit = model_bit;
}

int gs_node_cmp(const struct gs_node *a, const struct gs_node *b)
{
	if (a->ngpu != b->ngpu)
		return a->ngpu < b->ngpu ? -1 : 1;
	if (a->cpu_free != b->cpu_free)
		return a->cpu_free < b->cpu_free ? -1 : 1;
	if (a->cpu_cap != b->cpu_cap)
		return a->cpu_cap < b->cpu_cap ? -1 : 1;
	if (a->mem_free != b->mem_free)
		return a->mem_free < b->mem_free ? -1 : 1;
	if (a->model_bit != b->model_bit)
		return a->model_bit < b->model_bit ? -1 : 1;
	int c = memcmp(a->gpu_free, b->gpu_free, (size_t)a->ngpu * sizeof a->gpu_free[0]);
	if (c)
		return c;
	return memcmp(a->aff, b->aff, sizeof a->aff);
}

bool gs_node_valid(const struct gs_node *n)
{
	if (n->cpu_free < 0 || n->mem_free < 0)
		return false;
	for (int i = 0; i < n->ngpu; i++)
		if (n->gpu_free[i] < 0 || n->gpu_free[i] > GS_MILLI)
			return false;
	return true;
}

struct gs_fitsum gs_fitsum_of(const struct gs_node *n)
{
	struct gs_fitsum f = { 0, 0 };
	for (int i = 0; i < n->ngpu; i++) {
		if (n->gpu_free[i] > f.maxfree)
			f.maxfree = n->gpu_free[i];
		f.nfull += n->gpu_free[i] == GS_MILLI;
	}
	return f;
}
