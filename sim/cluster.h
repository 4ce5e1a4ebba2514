/* cluster — the modelled hardware: catalog → node types → racks → nodes.
 *
 * The catalog lists device models with their published figures; a node type
 * names how many of which devices a node carries; racks hold nodes and have
 * a power capacity and a cooling kind. A node's static labels are copied
 * from its type when the cluster is built, so a policy reads one struct.
 *
 * Dynamic state is kept apart, in arrays parallel to the node array:
 * free capacity (struct nodefree) and the node's service state. The cluster
 * also owns the pool that running jobs' allocations live in (struct
 * partpool), so that starting and ending jobs allocates nothing once the
 * pool has grown to the run's peak.
 *
 * Ownership: the cluster owns every array it points to; cluster_fini()
 * frees them. Strings are fixed-size arrays, never borrowed pointers. */
#ifndef HL_CLUSTER_H
#define HL_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sim/job.h"
#include "sim/strset.h"

#define HL_NAME_MAX 48
#define HL_MAX_GPUS_PER_NODE 64   /* one bit each in nodefree.gpu_free */
#define HL_NUMA_MAX 8             /* NUMA domains per node */
#define HL_NUMA_CORES_MAX 32767   /* cores per NUMA domain (alloc_part.numa_cores is int16_t) */
#define HL_POOLS_MAX 32           /* storage pools (one bit each in node.pools) */
#define HL_SHARE_MAX 32           /* most jobs time-sharing one GPU */
#define HL_MILLI 1000             /* milli-GPUs of one GPU */
/* The largest cluster one scenario may describe (docs/scenario.md "Limits"):
 * every loader checks these before it builds anything. */
#define HL_MAX_NODES 1000000
#define HL_MAX_RACKS 100000
#define HL_MAX_TYPES 10000
#define HL_MAX_PLANES 256
/* Label expressions × nodes evaluated up front (one byte each). */
#define HL_MAX_SEL_CELLS (1LL << 27)

struct labels;                    /* sim/label.h */
struct power_state;               /* sim/power.h */
struct node_health;               /* sim/fault.h */
struct selector;
struct mig_geometry;              /* sim/mig.h */
struct mig_layout;

struct gpu_model {
	char name[HL_NAME_MAX];     /* catalog key, e.g. "H100-SXM-80GB" */
	char vendor_name[96];
	int64_t mem_mib;
	double tdp_w, idle_w;
	double fp16_tflops;         /* dense FP16 tensor */
	double fp8_tflops;          /* dense FP8 tensor; 0 = no FP8 */
	double rel_speed;           /* throughput relative to the reference device (A100-80GB = 1) */
	/* Relative throughput by job class and precision (reference device = 1);
	 * 0 where the catalog gives none: rel_speed is used then. */
	double speed[JOB_NCLASS][PREC_N];
	bool mig;
	/* What NVIDIA's GPU Feature Discovery says of the card (catalog "gfd";
	 * product "" when the catalog gives none): NVML's product name with
	 * blanks made '-', the architecture, the CUDA compute capability and
	 * the PCI class NFD labels it with. */
	char product[96];
	char family[32];
	int32_t cc_major, cc_minor;
	char pci_class[8];
	char source[160];
};

struct cpu_model {
	char name[HL_NAME_MAX];     /* catalog key, e.g. "Xeon-8480+" */
	char vendor_name[96];
	int32_t cores, threads;     /* per socket */
	double base_ghz;
	double tdp_w, idle_w;       /* per socket */
	bool avx512, amx;
	char source[160];
};

struct catalog {
	struct gpu_model *gpus;
	int32_t ngpus;
	struct cpu_model *cpus;
	int32_t ncpus;
};

enum cooling { COOL_AIR, COOL_LIQUID, COOL_N };

enum node_svc { NODE_UP, NODE_DRAINING, NODE_DRAINED, NODE_DOWN, NODE_ABSENT };

struct node_type {
	char name[HL_NAME_MAX];
	int32_t gpu_model;      /* catalog index, -1 for none */
	int32_t gpus;
	int32_t cpu_model;      /* catalog index, -1 for a generic core */
	int32_t sockets;
	int32_t cores;          /* total usable (physical) cores */
	int32_t numa;           /* NUMA domains (default: sockets); cores split evenly */
	int64_t mem_mib;
	char plane[HL_NAME_MAX];   /* network plane, e.g. "ib400"; "" none */
	double base_w;          /* fans, memory, NICs, disks */
	uint32_t pools;         /* bit p: storage pool p is reachable */
	int32_t mig_cards;      /* the first mig_cards GPUs run in MIG mode */
	int32_t mig_nlayout;    /* their initial layout: profile indices on the card */
	int8_t mig_layout[8];
	char *labels;           /* free-form "k=v\0k=v\0\0" (owned), or NULL */
};

enum plane_kind { PLANE_IB, PLANE_ROCE, PLANE_ETH, PLANE_NKIND };

struct plane {
	char name[HL_NAME_MAX];   /* "ib400" */
	int32_t kind;             /* enum plane_kind, from the name's prefix */
	double gbps;              /* from the name's digits (0 unknown) */
};

enum pool_kind { POOL_NVME, POOL_HDD, POOL_BACKUP, POOL_NKIND };

/* A storage pool: capacity and bandwidth shared by the jobs that use it. */
struct storage_pool {
	char name[HL_NAME_MAX];
	int32_t kind;             /* enum pool_kind */
	int32_t exclusive_class;  /* only jobs of this class may use it; -1 any */
	int64_t cap_gib;
	double bw_mbps;           /* aggregate bandwidth, MB/s */
	double admit;             /* reservations admitted up to admit × bw (≥ 1: oversubscription) */
	double io_fraction;       /* share of a job's time that is I/O bound (slowdown model) */
	/* dynamic */
	int64_t used_gib;
	double resv_mbps;
	int32_t njobs;
};

struct rack {
	char name[HL_NAME_MAX];
	double cap_w;
	int32_t cooling;        /* enum cooling */
	int32_t first_node, nnodes;
	int32_t leaf;           /* leaf switch index (cluster.leaves) */
	char *labels;           /* free-form, as node_type.labels */
};

/* Static labels of one node, copied from its type. */
struct node {
	char name[HL_NAME_MAX];
	int32_t id, type, rack;
	int32_t gpu_model, ngpus;
	int64_t gpu_mem_mib;
	int32_t cpu_model, cores;
	int64_t mem_mib;
	int32_t plane;          /* index in cluster.planes, -1 none */
	int32_t cooling;
	int32_t numa;           /* NUMA domains */
	int32_t leaf;           /* leaf switch (the rack's) */
	uint32_t pools;         /* reachable storage pools */
	int32_t gpu0;           /* its first GPU in cluster.gpu */
	int32_t mig_cards;      /* GPUs 0 .. mig_cards-1 run in MIG mode */
	bool avx512, amx;
};

/* Free capacity of one node. gpu_free holds the GPUs that are wholly idle
 * and not in MIG mode; shared and MIG cards are tracked per GPU in the
 * cluster's gpu array. */
struct nodefree {
	int32_t cores;
	int32_t gpus;           /* popcount of gpu_free */
	int64_t mem_mib;
	uint64_t gpu_free;      /* bit g set: GPU g of the node is whole and idle */
	int16_t numa_free[HL_NUMA_MAX];   /* free cores per NUMA domain (≤ HL_NUMA_CORES_MAX) */
};

/* One node's share of an allocation. For a shared request (gpu_milli or
 * mig_g), gpus has the one card and milli / mig_profile+mig_start say which
 * share of it. numa_cores says which NUMA domains the cores come from
 * (sums to cores; policies fill it with cluster_numa_split). */
struct alloc_part {
	int32_t node;
	int32_t cores;
	int64_t mem_mib;
	uint64_t gpus;          /* bit g: GPU g of the node */
	int32_t milli;          /* time-sliced share of the card, 0 for whole cards / MIG */
	int8_t mig_profile;     /* profile index on the card, -1 when not MIG */
	int8_t mig_start;       /* memory slice it starts at */
	int16_t pad_;
	int16_t numa_cores[HL_NUMA_MAX];   /* ≤ HL_NUMA_CORES_MAX each */
};

/* Dynamic state of one GPU (cluster.gpu, indexed by node.gpu0 + g). */
struct gpustate {
	int32_t milli_used;     /* time-sliced: summed shares */
	int32_t nshare;         /* jobs on it (shared or MIG) */
	int64_t mem_need_mib;   /* summed memory needs of its jobs */
	int32_t sharer[HL_SHARE_MAX];   /* job ids time-sharing it */
	struct mig_layout *mig; /* MIG mode: its layout (owned by the cluster); NULL otherwise */
};

/* Limits of GPU sharing (scenario "gpu_sharing"). */
struct share_cfg {
	int32_t limit;          /* most jobs on one time-sliced card (default 10) */
	double admit;           /* summed milli admitted up to admit × 1000 (default 1) */
	double switch_cost;     /* speed lost per extra sharer (default 0.02) */
	simtime mig_create_us;  /* creating a MIG instance in free slices */
	simtime mig_reslice_us; /* re-slicing an idle card */
};

/* Communication penalty of a gang (scenario "network"): a gang whose nodes
 * span leaf switches runs at 1 / (1 + spine[kind]) of its speed, one that
 * mixes planes at 1 / (1 + mixed). docs/models.md has the sources. */
struct net_cfg {
	double spine[PLANE_NKIND];
	double mixed;
};

/* Blocks of 2^k parts, addressed by offset so the pool can grow. */
struct partpool {
	struct alloc_part *p;
	uint32_t n, cap;
	uint32_t freelist[32];  /* head offset + 1 of each size class; 0 = empty */
};

struct cluster {
	struct catalog cat;
	struct node_type *types;
	int32_t ntypes;
	struct rack *racks;
	int32_t nracks;
	struct node *nodes;
	int32_t nnodes;
	struct plane *planes;
	int32_t nplanes;
	char (*leaves)[HL_NAME_MAX];
	int32_t nleaves;
	struct strset leafset;         /* leaves by name */
	struct strset rackset, typeset;   /* racks and node types by name */
	struct storage_pool *pools;
	int32_t npools;
	struct mig_geometry *mig;      /* owned; NULL when no node runs MIG */
	struct share_cfg share;
	struct net_cfg net;
	simtime oom_after_us;          /* a job without the GPU memory it needs fails this long after start */
	struct labels *labels;         /* every node's labels (cluster_label_nodes) */
	struct power_state *pw;        /* power, thermal, facility (sim/power.h); NULL when off */
	struct node_health *health;    /* per node (sim/fault.h); NULL when faults are off */
	/* The nodes whose health record or service state changed since the
	 * last scheduling pass, each once (hlogged marks them), for the health
	 * monitor to look at only those; hlog_all: look at every node. Kept by
	 * the engine (sim/engine_core.c, eng_health_mark) and cleared after each
	 * pass (sim/engine.c). */
	int32_t *hlog, nhlog, caphlog;
	uint8_t *hlogged;
	bool hlog_all;
	struct selector **sel;         /* bound label expressions (cluster_bind_selectors) */
	char **selsrc;                 /* per selector, what it was compiled from (cluster_sel_save) */
	int32_t nsel;
	uint64_t *selmask;             /* nsel × ceil(nnodes/64): node matches sel[k] */
	uint8_t *selscore;             /* nsel × nnodes: terms of sel[k] the node meets */
	int32_t ngpu_all;              /* GPUs in the cluster (gpu array length) */
	/* dynamic */
	struct gpustate *gpu;
	struct nodefree *free;
	/* An index of free, for placement to skip nodes that cannot fit
	 * (cluster_next_fit): bitmap t - 1 of fx has node i's bit when it has
	 * at least t whole idle cards (t = 1 .. CLUSTER_FX_GPUS), bitmap
	 * CLUSTER_FX_GPUS + b when at least 2^b free cores. Kept by
	 * cluster_take, cluster_give and cluster_free_changed. */
	uint64_t *fx;
	uint64_t *fxs;          /* per bitmap of fx: bit w set when its word w is not zero */
	int32_t fx_words, fxs_words;
	uint8_t *fx_lev;        /* per node: its GPU level (low nibble) and core level (high) */
	/* Per node, set by cluster_free_changed: the engine's cached sample
	 * power of the node is stale. The engine's (it allocates and frees it);
	 * NULL when it keeps no cache. */
	uint8_t *w_stale;
	uint8_t *svc;           /* enum node_svc per node */
	int64_t total_cores, total_gpus;
	int64_t free_cores, free_gpus;   /* free_gpus: whole idle non-MIG cards */
	int64_t gpus_busy;               /* cards holding any job (whole, shared or MIG) */
	int64_t milli_used;              /* milli-GPUs held by time-sliced shares */
	struct partpool pool;
};

void cluster_init(struct cluster *cl);
void cluster_fini(struct cluster *cl);
void catalog_fini(struct catalog *cat);
int catalog_find_gpu(const struct catalog *cat, const char *name);
int catalog_find_cpu(const struct catalog *cat, const char *name);
/* A rack or node type by name (hashed), or -1. */
int cluster_find_rack(const struct cluster *cl, const char *name);
int cluster_find_type(const struct cluster *cl, const char *name);

/* Building (scenario loader). Each returns the new index or -1 on ENOMEM. */
int cluster_add_type(struct cluster *cl, const struct node_type *t);
/* A rack is its own leaf switch (named after it) until cluster_set_leaf. */
int cluster_add_rack(struct cluster *cl, const char *name, double cap_w, int cooling);
int cluster_set_leaf(struct cluster *cl, int rack, const char *leaf);
int cluster_add_pool(struct cluster *cl, const struct storage_pool *p);
int cluster_pool_index(const struct cluster *cl, const char *name);
/* Appends `count` nodes of `type` to `rack` (racks are filled in order:
 * nodes of one rack are contiguous). Names are "<rack>-n<k>". */
int cluster_add_nodes(struct cluster *cl, int rack, int type, int count);
/* Sizes free-capacity arrays once all nodes are added, sets up MIG
 * layouts (cl->mig must be set when a type has mig_cards) and derives
 * every node's labels. 0, or -1 with a message in err. */
int cluster_finish(struct cluster *cl, char *err, size_t errlen);
int cluster_plane_index(const struct cluster *cl, const char *name);
/* Derives each node's labels (docs/labels.md) into cl->labels:
 * from the catalog, its type, its rack, pools, and the free-form labels of
 * type and rack. Called by cluster_finish. (sim/nodelabels.c) */
int cluster_label_nodes(struct cluster *cl, char *err, size_t errlen);

/* Binds a workload's string table to the cluster: each request's sel_req /
 * sel_pref (label expressions), plane and pool refer to strs[] (index + 1)
 * and are rewritten to the cluster's selector, plane and pool indexes
 * (index + 1). An expression that does not parse, or a pool the cluster does
 * not have, is an error naming the job's trace id. A plane the cluster does
 * not have leaves the job unable to run (it is rejected at submit). */
int cluster_bind_workload(struct cluster *cl, char *const *strs, int32_t nstrs,
                          struct job *jobs, int32_t njobs, char *err, size_t errlen);
/* The same for jobs that arrive later (live mode), keeping the selectors
 * bound so far: selmap[k] is the selector compiled for strs[k] (-1 none
 * yet; nstrs entries, updated). */
int cluster_bind_more(struct cluster *cl, char *const *strs, int32_t nstrs, int32_t *selmap,
                      struct job *jobs, int32_t njobs, char *err, size_t errlen);
/* Snapshots (sim/engine_snap.c): the selectors bound so far, by what each
 * was compiled from, in order; load compiles those the cluster lacks (a
 * live run's, bound as jobs arrived) after checking those it has. 0, or
 * -1 with r marked bad. */
struct snapw;
struct snapr;
void cluster_sel_save(const struct cluster *cl, struct snapw *w);
int cluster_sel_load(struct cluster *cl, struct snapr *r);
/* Frees the selectors bound so far (cluster_fini and a new binding call it). */
void cluster_unbind_workload(struct cluster *cl);

static inline bool cluster_sel_match(const struct cluster *cl, int sel1, int node)
{
	if (sel1 <= 0)
		return true;
	size_t words = ((size_t)cl->nnodes + 63) / 64;
	return (cl->selmask[(size_t)(sel1 - 1) * words + (size_t)node / 64] >> (node % 64)) & 1u;
}
static inline int cluster_sel_score(const struct cluster *cl, int sel1, int node)
{
	return sel1 <= 0 ? 0 : cl->selscore[(size_t)(sel1 - 1) * (size_t)cl->nnodes + (size_t)node];
}

/* Does r ask for nothing beyond counts of cores and memory (every SWF job)? */
static inline bool cluster_req_plain(const struct job_req *r)
{
	return r->gpus == 0 && r->sel_req == 0 && r->plane == 0 && r->flags == 0 && r->pool == 0;
}

/* What cluster_node_fits_ex may leave out: the GPU memory a job needs (a
 * label-blind placement); the node's service state and power block (could
 * it fit once the node is back: a policy judging whether a job can ever
 * run on a state of its own). */
enum { FIT_IGNORE_GPU_MEM = 1u << 0, FIT_ANY_STATE = 1u << 1 };

/* Can `node` with free state `f` give one node's share of a gang request?
 * Checks every hard constraint (labels, models, FP8, ISA, plane, pool,
 * NUMA) and the GPU memory the job needs; for a shared request it reads
 * the live per-GPU state (cl->gpu) whatever f is. */
bool cluster_node_fits(const struct cluster *cl, const struct nodefree *f, int node,
                       const struct job_req *r);
bool cluster_node_fits_ex(const struct cluster *cl, const struct nodefree *f, int node,
                          const struct job_req *r, unsigned how);
/* The node's static suitability for r, ignoring what is free: labels,
 * models, FP8, ISA, plane, pool reach and class, sizes. */
bool cluster_node_suits(const struct cluster *cl, int node, const struct job_req *r, unsigned how);
/* Does a request fit the empty cluster at all (so it can ever run)? */
bool cluster_can_ever_fit(const struct cluster *cl, const struct job_req *r);
/* sim/cluster_why.c: request r in words ("2 GPUs of model H100 with 40
 * GiB, 8 cores"), and why it does not fit free state f now, naming the
 * first check that leaves too few nodes (constraints, service, rack power,
 * cores and memory, GPUs). cluster_why returns 1 when it fits, else 0. */
void cluster_req_text(const struct cluster *cl, const struct job_req *r, char *buf, size_t len);
int cluster_why(const struct cluster *cl, const struct nodefree *f, const struct job_req *r, char *buf, size_t len);

/* Splits `cores` of node over its NUMA domains in free state f: all in one
 * domain (the one with the fewest free cores that still fits, ties lowest)
 * when local, else lowest
 * domains first. Fills out[HL_NUMA_MAX]; 0, or -1 when they do not fit. */
int cluster_numa_split(const struct cluster *cl, const struct nodefree *f, int node,
                       int32_t cores, bool local, int16_t *out);
/* Can GPU g of node (live state) take a time-sliced share for r?
 * mem_aware: also require the summed memory needs to fit the card. */
bool cluster_share_fits(const struct cluster *cl, int node, int g, const struct job_req *r,
                        bool mem_aware);
/* A MIG instance for r on GPU g of node (live state): sets *profile and
 * *start and returns what it costs — 0 a free instance exists, 1 an
 * instance is created in free slices, 2 the idle card is re-sliced — or -1
 * when the card cannot host it. mem_aware: only profiles with the memory
 * the job needs (else the smallest with mig_g compute slices). */
int cluster_mig_pick(const struct cluster *cl, int node, int g, const struct job_req *r,
                     bool mem_aware, int *profile, int *start);
/* Memory (MiB) a part gives the job on each of its GPUs: the card's, or
 * the MIG instance's. */
int64_t cluster_part_gpu_mem(const struct cluster *cl, const struct alloc_part *p);

/* Relative speed of a job of class cls in precision prec on a node's GPU
 * (1 for CPU-only nodes): the catalog's speed table, else rel_speed. */
double cluster_gpu_speed(const struct cluster *cl, int node, int cls, int prec);

/* Checks that `parts` satisfy request `r` and fit the free state `f` (and,
 * for shares, MIG and pools, the live state). Parts must be in strictly
 * increasing node order (which also rules out a node given twice in O(n)).
 * 0 if so; else -1 with the reason in err. */
int cluster_check_alloc(const struct cluster *cl, const struct nodefree *f,
                        const struct job_req *r, const struct alloc_part *parts,
                        int nparts, char *err, size_t errlen);
/* Takes / gives back an allocation in a free state `f` that is a policy's
 * scratch copy: whole cards and cores. A shared part takes its card out of
 * gpu_free and gives nothing back (an estimate that errs late). */
void nodefree_take(struct nodefree *f, const struct alloc_part *parts, int nparts);
void nodefree_give(struct nodefree *f, const struct alloc_part *parts, int nparts);

/* Population count, inline: the portable x86-64 build has no POPCNT
 * instruction and __builtin_popcountll becomes a libgcc call. */
static inline int hl_popcount64(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (int)((x * 0x0101010101010101ull) >> 56);
}

/* Takes / gives back job `job`'s allocation in the cluster's own (live)
 * state: free capacity and totals, shared cards, MIG instances, pools.
 * cluster_take returns the set-up delay before the job computes (MIG
 * instance creation or re-slice), 0 otherwise. */
#define CLUSTER_FX_GPUS 8
#define CLUSTER_FX_CORES 15
/* Re-indexes node's free state (after a change made outside cluster_take
 * and cluster_give, such as a card falling off the bus). */
void cluster_free_changed(struct cluster *cl, int32_t node);
/* Sets node's service state (enum node_svc): every change goes through
 * here, as the index holds only nodes in service. */
void cluster_set_svc(struct cluster *cl, int32_t node, enum node_svc st);
/* The first node at or after `from` in service (NODE_UP) whose live free
 * state may have `gpus` whole idle cards and `cores` free cores (a
 * superset: the nodes it skips have fewer, or are not in service);
 * cl->nnodes when none. For placement on cl->free. */
int32_t cluster_next_fit(const struct cluster *cl, int32_t from, int32_t gpus, int32_t cores);
/* The same walk as repeated cluster_next_fit, a word of the index at a
 * time: cluster_fit_begin, then cluster_fit_next until it returns
 * cl->nnodes. The live free state must not change during the walk. */
struct fit_iter {
	const struct cluster *cl;
	int32_t gpus, cores;
	int32_t base;           /* the node of bit 0 of bits */
	uint64_t bits;          /* the candidates of that word not yet returned */
};
void cluster_fit_begin(struct fit_iter *it, const struct cluster *cl, int32_t from, int32_t gpus, int32_t cores);
int32_t cluster_fit_refill(struct fit_iter *it);
static inline int32_t cluster_fit_next(struct fit_iter *it)
{
	if (!it->bits)
		return cluster_fit_refill(it);
	int b = __builtin_ctzll(it->bits);
	it->bits &= it->bits - 1;
	return it->base + b;
}
simtime cluster_take(struct cluster *cl, int32_t job, const struct job_req *r,
                     const struct alloc_part *parts, int nparts);
void cluster_give(struct cluster *cl, int32_t job, const struct job_req *r,
                  const struct alloc_part *parts, int nparts);

/* Part pool: a block able to hold n parts; returns its offset or UINT32_MAX. */
uint32_t partpool_get(struct partpool *pp, int n);
void partpool_put(struct partpool *pp, uint32_t off, int n);

#endif
