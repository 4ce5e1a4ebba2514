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

#define HL_NAME_MAX 48
#define HL_MAX_GPUS_PER_NODE 64   /* one bit each in nodefree.gpu_free */

struct gpu_model {
	char name[HL_NAME_MAX];     /* catalog key, e.g. "H100-SXM-80GB" */
	char vendor_name[96];
	int64_t mem_mib;
	double tdp_w, idle_w;
	double fp16_tflops;         /* dense FP16 tensor */
	double fp8_tflops;          /* dense FP8 tensor; 0 = no FP8 */
	double rel_speed;           /* throughput relative to the reference device (A100-80GB = 1) */
	bool mig;
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

enum node_svc { NODE_UP, NODE_DRAINING, NODE_DRAINED, NODE_DOWN };

struct node_type {
	char name[HL_NAME_MAX];
	int32_t gpu_model;      /* catalog index, -1 for none */
	int32_t gpus;
	int32_t cpu_model;      /* catalog index, -1 for a generic core */
	int32_t sockets;
	int32_t cores;          /* total usable cores */
	int64_t mem_mib;
	char plane[HL_NAME_MAX];   /* network plane, e.g. "ib400"; "" none */
	double base_w;          /* fans, memory, NICs, disks */
};

struct rack {
	char name[HL_NAME_MAX];
	double cap_w;
	int32_t cooling;        /* enum cooling */
	int32_t first_node, nnodes;
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
};

/* Free capacity of one node. */
struct nodefree {
	int32_t cores;
	int32_t gpus;
	int64_t mem_mib;
	uint64_t gpu_free;      /* bit g set: GPU g of the node is free */
};

/* One node's share of an allocation. */
struct alloc_part {
	int32_t node;
	int32_t cores;
	int64_t mem_mib;
	uint64_t gpus;          /* bit g: GPU g of the node */
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
	char (*planes)[HL_NAME_MAX];
	int32_t nplanes;
	/* dynamic */
	struct nodefree *free;
	uint8_t *svc;           /* enum node_svc per node */
	int64_t total_cores, total_gpus;
	int64_t free_cores, free_gpus;
	struct partpool pool;
};

void cluster_init(struct cluster *cl);
void cluster_fini(struct cluster *cl);
void catalog_fini(struct catalog *cat);
int catalog_find_gpu(const struct catalog *cat, const char *name);
int catalog_find_cpu(const struct catalog *cat, const char *name);

/* Building (scenario loader). Each returns the new index or -1 on ENOMEM. */
int cluster_add_type(struct cluster *cl, const struct node_type *t);
int cluster_add_rack(struct cluster *cl, const char *name, double cap_w, int cooling);
/* Appends `count` nodes of `type` to `rack` (racks are filled in order:
 * nodes of one rack are contiguous). Names are "<rack>-n<k>". */
int cluster_add_nodes(struct cluster *cl, int rack, int type, int count);
/* Sizes free-capacity arrays once all nodes are added. */
int cluster_finish(struct cluster *cl);
int cluster_plane_index(const struct cluster *cl, const char *name);

/* Can `node` with free state `f` give one node's share of a gang request? */
bool cluster_node_fits(const struct cluster *cl, const struct nodefree *f, int node,
                       const struct job_req *r);
/* Does a request fit the empty cluster at all (so it can ever run)? */
bool cluster_can_ever_fit(const struct cluster *cl, const struct job_req *r);

/* Checks that `parts` satisfy request `r` and fit the free state `f`.
 * Parts must be in strictly increasing node order (which also rules out a
 * node given twice in O(n)).
 * 0 if so; else -1 with the reason in err. */
int cluster_check_alloc(const struct cluster *cl, const struct nodefree *f,
                        const struct job_req *r, const struct alloc_part *parts,
                        int nparts, char *err, size_t errlen);
/* Takes / gives back an allocation in free state `f` (which may be the
 * cluster's own `free` or a policy's scratch copy). */
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

/* Takes / gives back an allocation in the cluster's own free state,
 * keeping the free totals. */
void cluster_take(struct cluster *cl, const struct alloc_part *parts, int nparts);
void cluster_give(struct cluster *cl, const struct alloc_part *parts, int nparts);

/* Part pool: a block able to hold n parts; returns its offset or UINT32_MAX. */
uint32_t partpool_get(struct partpool *pp, int n);
void partpool_put(struct partpool *pp, uint32_t off, int n);

#endif
