/* frag — the FGD paper's fragmentation experiment: input, protocol and worker
 * processes; the database side is fragdb.c. See frag.h. */
#include "experiments/frag.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/wait.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>


#define FRAG_POPULARITY_PCT 95.0        /* the reference's typical-pod threshold */
#define FRAG_NONZERO_CPU 100            /* Kubernetes' default for a 0 CPU request */

/* ---- input -------------------------------------------------------------------- */

void frag_input_free(struct frag_input *in)
{
	for (int32_t i = 0; i < in->nspec; i++)
		free(in->spec[i]);
	free(in->spec);
	free(in->node);
	free(in->pod);
	gs_typical_free(&in->typ);
	memset(in, 0, sizeof *in);
}

static int finish_input(struct frag_input *in)
{
	in->gpu_milli_cap = 0;
	for (int32_t i = 0; i < in->nnodes; i++) {
		struct gs_node *n = &in->node[i];
		in->gpu_milli_cap += (int64_t)n->ngpu * GS_MILLI;
	}
	if (gs_typical_build(in->pod, in->npods, FRAG_POPULARITY_PCT, &in->typ) < 0)
		return -1;
	for (int32_t i = 0; i < in->nnodes; i++)
		in->node[i].frag = gs_frag(&in->node[i], &in->typ);
	return 0;
}

int frag_input_make(const struct gs_node *nodes, int32_t nnodes, const struct gs_req *pods,
                    int32_t npods, struct frag_input *in)
{
	memset(in, 0, sizeof *in);
	in->node = calloc(nnodes > 0 ? (size_t)nnodes : 1, sizeof *in->node);
	in->pod = calloc(npods > 0 ? (size_t)npods : 1, sizeof *in->pod);
	if (!in->node || !in->pod) {
		frag_input_free(in);
		return -1;
	}
	memcpy(in->node, nodes, (size_t)nnodes * sizeof *nodes);
	memcpy(in->pod, pods, (size_t)npods * sizeof *pods);
	in->nnodes = nnodes;
	in->npods = npods;
	for (int32_t i = 0; i < nnodes; i++)
		if (in->node[i].cpu_cap == 0)
			in->node[i].cpu_cap = in->node[i].cpu_free;
	if (finish_input(in) < 0) {
		frag_input_free(in);
		return -1;
	}
	return 0;
}

/* Splits a CSV line (no quoting in these files) into at most max fields. */
static int split(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;
	line[strcspn(line, "\r\n")] = '\0';
	while (n < max) {
		f[n++] = p;
		char *c = strchr(p, ',');
		if (!c)
			break;
		*c = '\0';
		p = c + 1;
	}
	return n;
}

static int parse_i64(const char *s, int64_t *v)
{
	char *end;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || end == s || *end != '\0' || x < 0)
		return -1;
	*v = x;
	return 0;
}

static int grow(void **p, int32_t *cap, int32_t n, size_t sz)
{
	if (n < *cap)
		return 0;
	int32_t c = *cap ? *cap * 2 : 1024;
	void *q = realloc(*p, (size_t)c * sz);
	if (!q)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

static int read_nodes(const char *path, struct frag_input *in, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char line[1024], *fld[8];
	int32_t cap = 0;
	long ln = 0;
	int rc = -1;
	while (fgets(line, sizeof line, f)) {
		ln++;
		if (ln == 1) {
			if (!strstr(line, "sn,cpu_milli,memory_mib,gpu")) {
				snprintf(err, errlen, "%s:1: not an openb node list (header %s)", path,
				         "sn,cpu_milli,memory_mib,gpu,model expected");
				goto out;
			}
			continue;
		}
		if (line[0] == '\n' || line[0] == '\0')
			continue;
		int64_t cpu, mem, gpu;
		if (split(line, fld, 8) < 5 || parse_i64(fld[1], &cpu) || parse_i64(fld[2], &mem) ||
		    parse_i64(fld[3], &gpu) || gpu > GS_MAX_GPUS) {
			snprintf(err, errlen, "%s:%ld: expected sn,cpu_milli,memory_mib,gpu(0..%d),model",
			         path, ln, GS_MAX_GPUS);
			goto out;
		}
		if (grow((void **)&in->node, &cap, in->nnodes, sizeof *in->node) < 0) {
			snprintf(err, errlen, "%s: out of memory", path);
			goto out;
		}
		struct gs_node *n = &in->node[in->nnodes++];
		uint32_t model_bit = 0;
		const char *model = fld[4];
		if (*model) {
			int32_t k = 0;
			while (k < in->nmodels && strcmp(in->model[k], model) != 0)
				k++;
			if (k == in->nmodels) {
				if (k == FRAG_MAX_MODELS || strlen(model) >= sizeof in->model[0]) {
					snprintf(err, errlen, "%s:%ld: GPU model '%s': at most %d models of "
					         "at most %zu characters", path, ln, model, FRAG_MAX_MODELS,
					         sizeof in->model[0] - 1);
					goto out;
				}
				snprintf(in->model[k], sizeof in->model[k], "%s", model);
				in->nmodels++;
			}
			model_bit = 1u << k;
		}
		gs_node_init(n, (int32_t)gpu, cpu, mem, model_bit);
	}
	if (in->nnodes == 0)
		snprintf(err, errlen, "%s: no nodes", path);
	else
		rc = 0;
out:
	fclose(f);
	return rc;
}

/* The pod's gpu_spec: its models as a mask of in->model (unknown names
 * add nothing) and the spec as the reference keeps it (the non-empty
 * names joined by '|') in spec. */
static uint32_t spec_mask(const struct frag_input *in, const char *raw, char *spec, size_t n)
{
	uint32_t m = 0;
	size_t len = 0;
	spec[0] = '\0';
	for (const char *p = raw; *p;) {
		size_t w = strcspn(p, "|");
		if (w > 0) {
			for (int32_t k = 0; k < in->nmodels; k++)
				if (strlen(in->model[k]) == w && strncmp(in->model[k], p, w) == 0)
					m |= 1u << k;
			if (len + w + 2 < n)
				len += (size_t)snprintf(spec + len, n - len, "%s%.*s", len ? "|" : "",
				                        (int)w, p);
		}
		p += w;
		if (*p == '|')
			p++;
	}
	return m;
}

/* Moves the distinct specs u[0..nu) into in->spec in ascending string
 * order after "" (spec 0 = none); u's entries become NULL. */
static int number_specs(struct frag_input *in, char **u, int32_t nu)
{
	in->spec = calloc((size_t)nu + 1, sizeof *in->spec);
	if (!in->spec || !(in->spec[0] = strdup("")))
		return -1;
	in->nspec = 1;
	for (int32_t i = 0; i < nu; i++) {      /* insertion into the sorted table */
		int32_t j = in->nspec;
		while (j > 1 && strcmp(in->spec[j - 1], u[i]) > 0) {
			in->spec[j] = in->spec[j - 1];
			j--;
		}
		in->spec[j] = u[i];
		u[i] = NULL;
		in->nspec++;
	}
	return 0;
}

static int32_t spec_index(const struct frag_input *in, const char *spec)
{
	int32_t lo = 0, hi = in->nspec - 1;
	while (lo <= hi) {
		int32_t mid = (lo + hi) / 2;
		int c = strcmp(in->spec[mid], spec);
		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

static int read_pods(const char *path, const char *nodes_path, struct frag_input *in, char *err,
                     size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char line[2048], *fld[16], spec[512];
	char **u = NULL;        /* distinct specs as met */
	char **podspec = NULL;  /* per pod: its spec in u (borrowed), or NULL */
	int32_t cap = 0, nu = 0, ucap = 0, pscap = 0;
	long ln = 0;
	int rc = -1;
	while (fgets(line, sizeof line, f)) {
		ln++;
		if (ln == 1) {
			if (!strstr(line, "name,cpu_milli,memory_mib,num_gpu,gpu_milli")) {
				snprintf(err, errlen, "%s:1: not an openb pod list (header "
				         "name,cpu_milli,memory_mib,num_gpu,gpu_milli,... expected)", path);
				goto out;
			}
			continue;
		}
		if (line[0] == '\n' || line[0] == '\0')
			continue;
		int64_t cpu, mem, ng, gm;
		int nf = split(line, fld, 16);
		if (nf < 5 || parse_i64(fld[1], &cpu) || parse_i64(fld[2], &mem) ||
		    parse_i64(fld[3], &ng) || parse_i64(fld[4], &gm) || ng > GS_MAX_GPUS ||
		    gm > GS_MILLI || (gm < GS_MILLI && ng > 1)) {
			snprintf(err, errlen, "%s:%ld: expected name,cpu_milli,memory_mib,num_gpu(0..%d),"
			         "gpu_milli(0..1000, < 1000 only with num_gpu 1)", path, ln, GS_MAX_GPUS);
			goto out;
		}
		if (grow((void **)&in->pod, &cap, in->npods, sizeof *in->pod) < 0 ||
		    grow((void **)&podspec, &pscap, in->npods, sizeof *podspec) < 0)
			goto oom;
		struct gs_req *r = &in->pod[in->npods];
		memset(r, 0, sizeof *r);
		podspec[in->npods] = NULL;
		in->npods++;
		r->cpu_milli = cpu > 0 ? cpu : FRAG_NONZERO_CPU;
		r->mem_mib = mem;
		r->num_gpu = (int32_t)(gm > 0 ? ng : 0);
		r->gpu_milli = (int32_t)(ng > 0 ? gm : 0);
		/* gpu_spec binds GPU pods only (the reference writes it only for
		 * num_gpu > 0 and its filter passes pods asking no GPU). */
		if (nf >= 6 && r->num_gpu > 0) {
			r->models = spec_mask(in, fld[5], spec, sizeof spec);
			if (spec[0] && r->models == 0) {
				snprintf(err, errlen, "%s:%ld: pod %s asks for GPU model %s, which no node "
				         "of %s has", path, ln, fld[0], spec, nodes_path);
				goto out;
			}
			if (spec[0]) {
				int32_t k = 0;
				while (k < nu && strcmp(u[k], spec) != 0)
					k++;
				if (k == nu) {
					if (grow((void **)&u, &ucap, nu, sizeof *u) < 0 || !(u[nu] = strdup(spec)))
						goto oom;
					nu++;
				}
				podspec[in->npods - 1] = u[k];
				in->constrained++;
			}
		}
	}
	if (in->npods == 0) {
		snprintf(err, errlen, "%s: no pods", path);
		goto out;
	}
	/* Number the specs in string order; podspec still points at the strings. */
	if (number_specs(in, u, nu) < 0)
		goto oom;
	for (int32_t i = 0; i < in->npods; i++)
		in->pod[i].spec = podspec[i] ? spec_index(in, podspec[i]) : 0;
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "%s: out of memory", path);
out:
	for (int32_t i = 0; i < nu; i++)
		free(u[i]);     /* NULL once moved into in->spec */
	free(u);
	free(podspec);
	fclose(f);
	return rc;
}

int frag_input_load(const char *nodes_csv, const char *pods_csv, struct frag_input *in,
                    char *err, size_t errlen)
{
	memset(in, 0, sizeof *in);
	if (read_nodes(nodes_csv, in, err, errlen) < 0 ||
	    read_pods(pods_csv, nodes_csv, in, err, errlen) < 0)
		goto fail;
	if (finish_input(in) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (in->gpu_milli_cap == 0) {
		snprintf(err, errlen, "%s: the cluster has no GPUs", nodes_csv);
		goto fail;
	}
	return 0;
fail:
	frag_input_free(in);
	return -1;
}

/* ---- the protocol ------------------------------------------------------------------ */

static int64_t req_milli(const struct gs_req *r)
{
	return (int64_t)r->num_gpu * r->gpu_milli;
}

int frag_sequence(const struct frag_input *in, double inflate, void *rng_state, int32_t **seq,
                  int32_t *n)
{
	gsl_rng *rng = rng_state;
	int32_t cap = in->npods + 64, k = 0;
	int32_t *s = malloc((size_t)cap * sizeof *s);
	if (!s)
		return -1;
	int64_t total = 0;
	for (int32_t i = 0; i < in->npods; i++) {
		s[k++] = i;
		total += req_milli(&in->pod[i]);
	}
	/* The reference shuffles the whole list first (SortClusterPods,
	 * pkg/simulator/simulator.go:843) and tunes it after (core.go:115-121),
	 * so the drawn pods come after every listed one. */
	gsl_ran_shuffle(rng, s, (size_t)k, sizeof *s);
	double target = inflate * (double)in->gpu_milli_cap;
	if ((double)total > target) {
		/* Tune down: drop random pods until at or under the target. */
		while (k > 0 && (double)total > target) {
			int32_t j = (int32_t)gsl_rng_uniform_int(rng, (unsigned long)k);
			total -= req_milli(&in->pod[s[j]]);
			memmove(&s[j], &s[j + 1], (size_t)(k - j - 1) * sizeof *s);
			k--;
		}
	} else if ((double)total < target && in->npods > 0) {
		/* Tune up. As the reference does (tuneUpPods, simulator.go:1121), the
		 * stop test adds the candidate's per-GPU milli (not num_gpu × milli),
		 * so the total may end slightly above the target when a multi-GPU
		 * pod is the last one taken. */
		for (;;) {
			int32_t j = (int32_t)gsl_rng_uniform_int(rng, (unsigned long)in->npods);
			const struct gs_req *r = &in->pod[j];
			if ((double)(total + r->gpu_milli) > target)
				break;
			if (grow((void **)&s, &cap, k, sizeof *s) < 0) {
				free(s);
				return -1;
			}
			s[k++] = j;
			total += req_milli(r);
		}
	}
	*seq = s;
	*n = k;
	return 0;
}

/* Per-percent sums of the events (the reference's analysis rounds each
 * event's arrived % and averages per value: merge_alloc_discrete.py). */
struct bins {
	int32_t cnt[FRAG_MAX_STEPS];
	double alloc[FRAG_MAX_STEPS], frag[FRAG_MAX_STEPS], fratio[FRAG_MAX_STEPS];
	struct frag_step last[FRAG_MAX_STEPS];
};

static void event(struct bins *b, int64_t cap, int64_t arrived, int64_t alloc, double frag,
                  int32_t placed, int32_t failed)
{
	/* Python's round() on arrived / total_gpus / 10: half to even, as rint. */
	double pct = rint((double)arrived / ((double)cap / GS_MILLI) / 10.0);
	if (!(pct >= 0 && pct < FRAG_MAX_STEPS))
		return;
	int k = (int)pct;
	double idle = (double)(cap - alloc);
	b->cnt[k]++;
	b->alloc[k] += (double)alloc / (double)cap;
	b->frag[k] += frag;
	b->fratio[k] += idle > 0 ? frag / idle : 0.0;
	b->last[k] = (struct frag_step){ .arrived_milli = arrived, .alloc_milli = alloc,
	                                 .placed = placed, .failed = failed };
}

static void bins_to_steps(const struct bins *b, double inflate, struct frag_result *o)
{
	int kmax = (int)rint(inflate * 100);
	if (kmax > FRAG_MAX_STEPS - 1)
		kmax = FRAG_MAX_STEPS - 1;
	for (int k = 0; k <= kmax; k++) {
		int lo = k, hi = k;
		if (b->cnt[k] == 0) {   /* the reference's fallback: the events of k±1 */
			lo = k > 0 ? k - 1 : 0;
			hi = k + 1 < FRAG_MAX_STEPS ? k + 1 : k;
		}
		int32_t n = 0;
		double a = 0, f = 0, fr = 0;
		int lastk = -1;
		for (int j = lo; j <= hi; j++) {
			n += b->cnt[j];
			a += b->alloc[j];
			f += b->frag[j];
			fr += b->fratio[j];
			if (b->cnt[j])
				lastk = j;
		}
		if (n == 0)
			continue;
		struct frag_step *s = &o->step[o->nsteps++];
		*s = b->last[lastk];
		s->pct = k;
		s->events = n;
		s->alloc_ratio = a / n;
		s->frag_milli = f / n;
		s->frag_ratio = fr / n;
	}
}

/* A per-node cache of scores: a score is a pure function of the node's
 * state and the request's shape (cpu, GPUs, milli, models; memory enters
 * only gs_fits), and a node's state changes only when a pod lands on it,
 * so most (node, shape) pairs are scored once between two placements
 * there. FRAG_CACHE_WAYS entries per node, direct-mapped by shape; a
 * placement clears the node's entries. Not for Random (its score draws). */
#define FRAG_CACHE_WAYS 8
struct score_ent {
	int64_t cpu;            /* -1: empty */
	int32_t num_milli;      /* num_gpu << 11 | gpu_milli */
	uint32_t models;
	int32_t score;
	uint32_t gpus;
};

static unsigned shape_way(const struct gs_req *r)
{
	uint64_t h = (uint64_t)r->cpu_milli * 0x9e3779b97f4a7c15ull ^
	             ((uint64_t)r->gpu_milli << 20) ^ ((uint64_t)r->num_gpu << 40) ^ r->models;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (unsigned)(h >> 59) % FRAG_CACHE_WAYS;
}

/* Nodes still in their initial state score alike when their states are
 * alike, and among equals the lowest rank wins: so of each group of
 * identical untouched nodes only the lowest-ranked one need be scored,
 * and since ties pick it, the group's nodes leave it in rank order. The
 * groups are runs of `order` (nodes sorted by state, then rank); a node
 * joins `active` once a pod lands on it. Same answers as scoring all. */
struct groups {
	int32_t *order;         /* node indices, grouped, by rank within a group */
	int32_t *start, *cur, *end;
	int32_t ngroups;
	int32_t *active, nactive;
	int32_t *group_of;      /* node -> group while untouched, -1 after */
};

struct group_sort {
	const int32_t *rank;
	const struct gs_node *node;
};

static int cmp_group(const void *x, const void *y, void *ctx)
{
	const struct group_sort *gs = ctx;
	int32_t i = *(const int32_t *)x, j = *(const int32_t *)y;
	int c = gs_node_cmp(&gs->node[i], &gs->node[j]);
	if (c)
		return c;
	return (gs->rank[i] > gs->rank[j]) - (gs->rank[i] < gs->rank[j]);
}

static void groups_free(struct groups *g)
{
	free(g->order);
	free(g->start);
	free(g->active);
	free(g->group_of);
	memset(g, 0, sizeof *g);
}

static int groups_build(struct groups *g, const struct gs_node *node, const int32_t *rank,
                        int32_t n)
{
	memset(g, 0, sizeof *g);
	g->order = malloc((size_t)n * sizeof *g->order);
	g->start = malloc(3 * (size_t)n * sizeof *g->start);
	g->active = malloc((size_t)n * sizeof *g->active);
	g->group_of = malloc((size_t)n * sizeof *g->group_of);
	if (!g->order || !g->start || !g->active || !g->group_of) {
		groups_free(g);
		return -1;
	}
	g->cur = g->start + n;
	g->end = g->start + 2 * n;
	for (int32_t i = 0; i < n; i++)
		g->order[i] = i;
	struct group_sort gs = { rank, node };
	qsort_r(g->order, (size_t)n, sizeof *g->order, cmp_group, &gs);
	for (int32_t k = 0; k < n; k++) {
		if (k == 0 || gs_node_cmp(&node[g->order[k]], &node[g->order[k - 1]]) != 0) {
			if (g->ngroups)
				g->end[g->ngroups - 1] = k;
			g->start[g->ngroups] = g->cur[g->ngroups] = k;
			g->ngroups++;
		}
		g->group_of[g->order[k]] = g->ngroups - 1;
	}
	if (g->ngroups)
		g->end[g->ngroups - 1] = n;
	return 0;
}

/* The k-th node to score: the active ones, then each group's first. -1 past the end. */
static inline int32_t groups_at(const struct groups *g, int32_t k)
{
	if (k < g->nactive)
		return g->active[k];
	k -= g->nactive;
	return k < g->ngroups ? (g->cur[k] < g->end[k] ? g->order[g->cur[k]] : -2) : -1;
}

static void groups_touch(struct groups *g, int32_t i)
{
	int32_t k = g->group_of[i];
	if (k < 0)
		return;
	assert(g->order[g->cur[k]] == i);       /* ties pick a group's lowest rank */
	g->cur[k]++;
	g->group_of[i] = -1;
	g->active[g->nactive++] = i;
}

static void cache_clear(struct score_ent *c)
{
	for (int k = 0; k < FRAG_CACHE_WAYS; k++)
		c[k].cpu = -1;
}

int frag_run(const struct frag_input *in, const struct gpu_placement *gp, double inflate,
             uint64_t seed, struct frag_result *out, char *err, size_t errlen)
{
	double t0 = (double)clock() / CLOCKS_PER_SEC;
	memset(out, 0, sizeof *out);
	out->policy = gp->name;
	out->seed = seed;
	int rc = -1;
	int32_t *seq = NULL, nseq = 0, *rank = NULL;
	struct gs_node *node = NULL;
	struct gs_memo *memo = NULL;
	struct score_ent *cache = NULL;
	struct gs_fitsum *fs = NULL;
	struct groups grp = { 0 };
	bool grouped = false;
	struct bins *bins = calloc(1, sizeof *bins);
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng || !bins)
		goto oom;
	gsl_rng_set(rng, (unsigned long)seed);
	if (frag_sequence(in, inflate, rng, &seq, &nseq) < 0)
		goto oom;
	node = malloc((size_t)in->nnodes * sizeof *node);
	rank = malloc((size_t)in->nnodes * sizeof *rank);
	memo = gs_memo_new(&in->typ);
	if (!gp->random_node)
		cache = malloc((size_t)in->nnodes * FRAG_CACHE_WAYS * sizeof *cache);
	fs = malloc((size_t)in->nnodes * sizeof *fs);
	if (!node || !rank || !memo || !fs || (!gp->random_node && !cache))
		goto oom;
	memcpy(node, in->node, (size_t)in->nnodes * sizeof *node);
	for (int32_t i = 0; i < in->nnodes; i++)
		fs[i] = gs_fitsum_of(&node[i]);
	for (int32_t i = 0; cache && i < in->nnodes; i++)
		cache_clear(&cache[(size_t)i * FRAG_CACHE_WAYS]);
	/* The tie order: node i is named "<rank[i]>-<name>" by the reference
	 * (syncClusterResourceList, simulator.go:478-485: rand.Perm over the
	 * nodes sorted by name), and selectHost takes the smallest name among
	 * equal scores (its vendored generic_scheduler.go:187). */
	for (int32_t i = 0; i < in->nnodes; i++)
		rank[i] = i;
	gsl_ran_shuffle(rng, rank, (size_t)in->nnodes, sizeof *rank);
	if (!gp->random_node) {
		if (groups_build(&grp, node, rank, in->nnodes) < 0)
			goto oom;
		grouped = true;
	}
	double frag = 0;
	for (int32_t i = 0; i < in->nnodes; i++)
		frag += node[i].frag;
	struct gs_ctx ctx = { .typ = &in->typ, .memo = memo, .u = 0 };
	int64_t arrived = 0, alloc = 0, cap = in->gpu_milli_cap;
	out->npods = nseq;
	event(bins, cap, 0, 0, frag, 0, 0);     /* the report before the first pod */
	for (int32_t q = 0; q < nseq; q++) {
		const struct gs_req *r = &in->pod[seq[q]];
		ctx.u = gsl_rng_uniform(rng);
		int best = -1, bs = 0;
		unsigned long fit = 0;
		uint32_t bg = 0;
		unsigned way = shape_way(r);
		int32_t num_milli = r->num_gpu << 11 | r->gpu_milli;
		for (int32_t k = 0;; k++) {
			int32_t i = grouped ? groups_at(&grp, k) : (k < in->nnodes ? k : -1);
			if (i == -1)
				break;
			if (i < 0 || !gs_fits_sum(&node[i], fs[i], r))
				continue;
			uint32_t g;
			int s;
			if (gp->random_node) {
				/* A uniform draw among the fitting nodes, by reservoir. */
				fit++;
				if (gsl_rng_uniform_int(rng, fit) != 0)
					continue;
				s = gp->score(&node[i], r, &ctx, &g);
				best = i;
				bg = g;
				continue;
			}
			struct score_ent *e = &cache[(size_t)i * FRAG_CACHE_WAYS + way];
			if (e->cpu == r->cpu_milli && e->num_milli == num_milli && e->models == r->models) {
				s = e->score;
				g = e->gpus;
			} else {
				s = gp->score(&node[i], r, &ctx, &g);
				*e = (struct score_ent){ .cpu = r->cpu_milli, .num_milli = num_milli,
				                         .models = r->models, .score = s, .gpus = g };
			}
			if (best < 0 || s > bs || (s == bs && rank[i] < rank[best])) {
				best = i;
				bs = s;
				bg = g;
			}
		}
		if (best >= 0) {
			struct gs_node *n = &node[best];
			gs_apply(n, r, bg);
			assert(gs_node_valid(n));
			frag -= n->frag;
			n->frag = gs_frag(n, &in->typ);
			frag += n->frag;
			if (cache)
				cache_clear(&cache[(size_t)best * FRAG_CACHE_WAYS]);
			fs[best] = gs_fitsum_of(n);
			if (grouped)
				groups_touch(&grp, best);
			alloc += req_milli(r);
			out->cpu_alloc += r->cpu_milli;
			out->mem_alloc += r->mem_mib;
			out->placed++;
		} else {
			out->failed++;
		}
		arrived += req_milli(r);
		event(bins, cap, arrived, alloc, frag, out->placed, out->failed);
	}
	bins_to_steps(bins, inflate, out);
	out->arrived_milli = arrived;
	out->alloc_milli = alloc;
	rc = 0;
	goto done;
oom:
	snprintf(err, errlen, "%s seed %llu: out of memory", gp->name, (unsigned long long)seed);
done:
	gs_memo_free(memo);
	groups_free(&grp);
	free(fs);
	free(cache);
	free(rank);
	free(node);
	free(seq);
	free(bins);
	if (rng)
		gsl_rng_free(rng);
	out->wall_s = (double)clock() / CLOCKS_PER_SEC - t0;
	return rc;
}

/* ---- many runs ------------------------------------------------------------------------ */

/* Reads exactly n bytes (a worker's results). */
static int read_all(int fd, void *buf, size_t n)
{
	char *p = buf;
	while (n > 0) {
		ssize_t k = read(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n > 0) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int frag_run_all(const struct frag_input *in, const struct gpu_placement *const *gp, int ngp,
                 const uint64_t *seeds, int nseeds, double inflate, int jobs,
                 struct frag_result *res, char *err, size_t errlen)
{
	int total = ngp * nseeds;
	if (jobs > total)
		jobs = total;
	if (jobs <= 1) {
		for (int i = 0; i < total; i++)
			if (frag_run(in, gp[i / nseeds], inflate, seeds[i % nseeds], &res[i], err,
			             errlen) < 0)
				return -1;
		return 0;
	}
	/* Worker w runs i = w, w + jobs, ... and sends each result back whole
	 * (a flat struct; its policy name points into the static table, valid
	 * in both processes); then a status byte. */
	enum { MAXJ = 64 };
	if (jobs > MAXJ)
		jobs = MAXJ;
	int fd[MAXJ];
	pid_t pid[MAXJ];
	int started = 0, rc = 0;
	fflush(NULL);
	for (int w = 0; w < jobs; w++) {
		int p[2];
		if (pipe(p) < 0) {
			snprintf(err, errlen, "pipe: %s", strerror(errno));
			rc = -1;
			break;
		}
		pid_t c = fork();
		if (c < 0) {
			snprintf(err, errlen, "fork: %s", strerror(errno));
			close(p[0]);
			close(p[1]);
			rc = -1;
			break;
		}
		if (c == 0) {
			close(p[0]);
			static struct frag_result r;
			char e[512];
			int ok = 1;
			for (int i = w; i < total && ok; i += jobs) {
				if (frag_run(in, gp[i / nseeds], inflate, seeds[i % nseeds], &r, e,
				             sizeof e) < 0) {
					char z = 1;
					(void)write_all(p[1], &z, 1);
					(void)write_all(p[1], e, sizeof e);
					_exit(1);
				}
				char z = 0;
				ok = write_all(p[1], &z, 1) == 0 && write_all(p[1], &r, sizeof r) == 0;
			}
			_exit(ok ? 0 : 1);
		}
		close(p[1]);
		fd[w] = p[0];
		pid[w] = c;
		started++;
	}
	/* Collect in run order (each worker's stream is in its own order). */
	for (int i = 0; rc == 0 && i < total; i++) {
		int w = i % jobs;
		char z;
		if (w >= started || read_all(fd[w], &z, 1) < 0) {
			snprintf(err, errlen, "frag worker %d ended early", w);
			rc = -1;
		} else if (z != 0) {
			char e[512];
			if (read_all(fd[w], e, sizeof e) == 0)
				snprintf(err, errlen, "%.*s", (int)sizeof e - 1, e);
			else
				snprintf(err, errlen, "frag worker %d failed", w);
			rc = -1;
		} else if (read_all(fd[w], &res[i], sizeof res[i]) < 0) {
			snprintf(err, errlen, "frag worker %d ended early", w);
			rc = -1;
		}
	}
	for (int w = 0; w < started; w++) {
		close(fd[w]);
		int st;
		while (waitpid(pid[w], &st, 0) < 0 && errno == EINTR)
			;
		if (rc == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
			snprintf(err, errlen, "frag worker %d failed", w);
			rc = -1;
		}
	}
	return rc;
}
