/* gpushare — node scores for GPU-sharing placement (the six strategies of the
 * FGD paper, Weng et al., ATC'23: random, dotprod, clustering, packing,
 * bestfit, fgd), as pure functions of one node's free state and one request.
 *
 * Used today by `hetlab frag` (experiments/frag.c), which keeps its nodes
 * through the node-state functions at the end of this header and never
 * reads gs_node's arrays itself; written against plain
 * structs, not the engine's view, so that the engine can reuse the same
 * tables once milli-GPUs come to the job model. Each strategy is a const
 * struct gpu_placement registered in gpushare_table (ending in a NULL name):
 * .score rates a node that can host the request (the caller checks
 * gs_fits first) with an integer in 0..100, higher better, and says which
 * GPUs it would use. The caller takes the node with the highest score and
 * breaks ties by the lowest node index (the paper's simulator patches the
 * Kubernetes scheduler to take the lexicographically smallest node name,
 * which for the openb names is file order). The policy itself draws
 * nothing: randomness comes in through gs_ctx.u.
 *
 * Semantics follow the paper's simulator (hkust-adsl/kubernetes-scheduler-
 * simulator) rule for rule, integer truncations included, because the goal
 * is to reproduce its numbers; docs/policies.md describes each score.
 *
 * Ownership: everything is borrowed; nothing is kept between calls; no
 * function allocates except gs_typical_build (freed by gs_typical_free). */
#ifndef HL_GPUSHARE_H
#define HL_GPUSHARE_H

#include <stdbool.h>
#include <stdint.h>

#define GS_MILLI 1000           /* milli-GPUs of one GPU */
#define GS_MAX_GPUS 16          /* most GPUs on one node */
#define GS_MAX_SPEC_CPU 128000  /* the reference's normalisers: largest node */
#define GS_MAX_SPEC_GPU 8000
#define GS_NAFF (GS_MAX_GPUS + 1) /* affinity tags: 0 share-gpu, k k-gpu */

/* One node's free state. */
struct gs_node {
	int32_t ngpu;
	int32_t gpu_free[GS_MAX_GPUS];  /* free milli-GPU per GPU, by device index */
	int64_t cpu_free, cpu_cap;      /* milli-cores */
	int64_t mem_free;               /* MiB */
	uint32_t model_bit;             /* this node's GPU model as one bit of the caller's model
	                                 * table (0: no model known, only unconstrained pods fit) */
	int32_t aff[GS_NAFF];           /* GPU pods placed here per affinity tag (clustering) */
	double frag;                    /* derived, kept by the owner: gs_frag() of this state
	                                 * for the typical pods in use (fgd reads it) */
};

/* A pod's request: num_gpu GPUs of gpu_milli each (gpu_milli < 1000 only
 * with num_gpu == 1: a shared GPU). models: the GPU models it may run on,
 * as a mask over the caller's model table (openb's gpu_spec), 0 = any; a
 * node whose model_bit is not in it does not fit a GPU request, and for a
 * typical pod such a node counts all its idle GPU as fragmented (the
 * reference's NoAccess). spec: the identity of the gpu_spec as written
 * (two specs with the same models but written differently are different
 * typical-pod shapes, as in the reference), numbered in ascending string
 * order so that comparing numbers compares the strings; 0 = none. */
struct gs_req {
	int64_t cpu_milli;
	int64_t mem_mib;
	int32_t num_gpu;
	int32_t gpu_milli;
	uint32_t models;
	int32_t spec;
};

/* The typical pods FGD measures fragmentation against: the most popular
 * request shapes of the workload with their frequencies (summing to 1). */
struct gs_typical {
	int32_t n;
	struct gs_req *pod;     /* mem_mib unused */
	double *p;
};

/* Memo for gs_frag of hypothetical states (may be NULL: compute directly).
 * A pure function's cache: same answer with or without it. */
struct gs_memo;

struct gs_ctx {
	const struct gs_typical *typ;   /* fgd: required */
	struct gs_memo *memo;           /* optional */
	double u;                       /* random: a uniform draw in [0,1), one per pod */
};

struct gpu_placement {
	const char *name;       /* command-line name: "fgd" */
	const char *paper;      /* the paper's name: "FGD" */
	const char *summary;    /* one line for `hetlab policies` */
	/* Called for each node that gs_fits the request. Returns 0..100 and
	 * sets *gpus to the bit mask of the GPUs it would use (0 for a CPU-only
	 * request). Reads n and r only; never NULL. */
	int (*score)(const struct gs_node *n, const struct gs_req *r, const struct gs_ctx *c,
	             uint32_t *gpus);
	/* true: the caller draws the node uniformly among those that fit (with
	 * its own RNG) instead of maximising the score; .score then only picks
	 * the GPUs (Random). */
	bool random_node;
};

extern const struct gpu_placement *const gpushare_table[];  /* NULL-terminated */
const struct gpu_placement *gpushare_find(const char *name);

/* True when n has the CPU, memory and GPUs for r, and (for a GPU request)
 * is of one of r's models. */
bool gs_fits(const struct gs_node *n, const struct gs_req *r);
/* Takes r from n on the GPUs in mask gpus (as returned by a score) and
 * counts its affinity tag; n->frag is left for the caller to refresh. */
void gs_apply(struct gs_node *n, const struct gs_req *r, uint32_t gpus);
int64_t gs_gpu_free_total(const struct gs_node *n);

/* The node's GPU fragmentation in milli-GPUs against the typical pods (the
 * paper's F_n(M)): for each typical pod m with frequency p, all the idle
 * milli-GPUs when m cannot run here (or asks no GPU), else those of the
 * GPUs too small for m; summed with weights p. */
double gs_frag(const struct gs_node *n, const struct gs_typical *t);

/* The typical pods of a workload, as the reference builds them: request
 * shapes (cpu, gpu_milli, num_gpu, gpu_spec) counted, most popular first
 * (ties: the larger shape first, then the larger spec), taken until they cover threshold_pct % of the pods,
 * frequencies renormalised. 0, or -1 when out of memory. */
int gs_typical_build(const struct gs_req *pods, int32_t n, double threshold_pct,
                     struct gs_typical *out);
void gs_typical_free(struct gs_typical *t);

struct gs_memo *gs_memo_new(const struct gs_typical *t);
void gs_memo_free(struct gs_memo *m);

/* ---- the node state, for callers that keep many nodes (hetlab frag) ----
 * They build, compare, check and summarise nodes through these, never
 * through gs_node's arrays. */

/* n with ngpu whole free GPUs, cpu_milli milli-cores and mem_mib MiB, all
 * free, of the model model_bit (0: none known); frag 0, no pods placed. */
void gs_node_init(struct gs_node *n, int32_t ngpu, int64_t cpu_milli, int64_t mem_mib, uint32_t model_bit);
/* A total order of node states (everything a score or gs_fits reads, frag
 * aside): 0 when two nodes would score and fit alike. */
int gs_node_cmp(const struct gs_node *a, const struct gs_node *b);
/* No resource below 0 and no GPU above GS_MILLI free (after gs_apply). */
bool gs_node_valid(const struct gs_node *n);

/* What gs_fits reads of a node's GPUs, for a caller that keeps it beside
 * the node and refreshes it after each gs_apply there (gs_fitsum_of). */
struct gs_fitsum {
	int32_t maxfree;        /* most free milli-GPU on one GPU */
	int32_t nfull;          /* wholly free GPUs */
};
struct gs_fitsum gs_fitsum_of(const struct gs_node *n);

/* gs_fits(n, r), from f = gs_fitsum_of(n) (a request below GS_MILLI asks
 * for one GPU). */
static inline bool gs_fits_sum(const struct gs_node *n, struct gs_fitsum f, const struct gs_req *r)
{
	if (n->cpu_free < r->cpu_milli || n->mem_free < r->mem_mib)
		return false;
	if (r->num_gpu == 0 || r->gpu_milli == 0)
		return true;
	if (r->models && !(r->models & n->model_bit))
		return false;
	return r->gpu_milli >= GS_MILLI ? f.nfull >= r->num_gpu : f.maxfree >= r->gpu_milli;
}

#endif
