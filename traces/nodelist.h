/* nodelist — node inventories of real GPU clusters, read into one plain
 * struct whatever the file, and grouped into node shapes.
 *
 * Four formats (docs/traces.md, "Node inventories"):
 *   INV_OPENB  the Alibaba v2023 "openb" node lists
 *              (sn,cpu_milli,memory_mib,gpu,model), read by traces/openb.c;
 *              milli-cores become whole cores.
 *   INV_PAI    the Alibaba PAI v2020 machine spec, headerless CSV
 *              machine,gpu_type,cap_cpu,cap_mem,cap_gpu (the header is in a
 *              .header file beside it); gpu_type CPU is a CPU-only node,
 *              cap_mem is in GB and read as GiB.
 *   INV_SPOT   the Alibaba spot-GPU v2026 node list
 *              gpu_model,gpu_capacity_num,cpu_num,node_name (with header);
 *              vCPUs count as cores; it has no memory column.
 *   INV_K8S    `kubectl get nodes -o json` (traces/k8snodes.c): allocatable
 *              cores and memory, the GPUs and their GPU Feature Discovery
 *              product (the model), the cards in MIG mode.
 * Every row is checked; none is skipped (a cluster with a node missing is
 * a different cluster). Node names must be unique within a file.
 *
 * inv_group sorts the nodes into shapes — identical (model, GPUs, cores,
 * memory, MIG cards, taints) — in order of first appearance; invcluster.c makes one node type
 * of each.
 *
 * Ownership: the caller owns every struct; inv_nodes_free and
 * inv_shapes_free release them (both accept a zeroed or freed struct).
 *
 * Errors: 0 on success, -1 with a message in err naming the file and line
 * (and the field) and what was expected; a failed call leaves its output
 * empty. */
#ifndef HL_NODELIST_H
#define HL_NODELIST_H

#include <stddef.h>
#include <stdint.h>

#define INV_NAME_MAX 64         /* longest node name + 1 */
#define INV_MODEL_MAX 32        /* longest GPU model name + 1 */
#define INV_MAX_GPUS 64         /* most GPUs on one node */
#define INV_MAX_CORES (1 << 20) /* most cores on one node (as a scenario's node_types) */
#define INV_MAX_NODES 1000000   /* most nodes in one inventory */
#define INV_MAX_MEM_MIB (1000000000LL * 1024)  /* 10^9 GiB */
#define INV_MEM_UNKNOWN (-1)    /* mem_mib of a node whose file gives no memory */

enum inv_format { INV_OPENB, INV_PAI, INV_SPOT, INV_K8S, INV_NFORMATS };

/* The header lines, exactly (a UTF-8 byte-order mark before them is allowed). */
extern const char INV_PAI_HEADER[];    /* in the .header file; the CSV has none */
extern const char INV_SPOT_HEADER[];

/* "openb", "pai", "spot", "k8s"; "?" out of range. */
const char *inv_format_name(enum inv_format f);
/* The inverse; 0, or -1 when s is none of them. */
int inv_format_parse(const char *s, enum inv_format *out);

struct inv_node {
	char name[INV_NAME_MAX];    /* sn / machine / node_name */
	char model[INV_MODEL_MAX];  /* the file's GPU model; "" for a CPU-only node */
	int32_t gpus;               /* 0 .. INV_MAX_GPUS; 0 iff model is "" */
	int32_t cpu_cores;          /* 1 .. INV_MAX_CORES */
	int64_t mem_mib;            /* INV_MEM_UNKNOWN when the file has no memory (spot) */
	int64_t line;               /* line in the file; 0 when the reader cannot tell (openb, k8s) */
	int32_t mig_cards;          /* cards in MIG mode (k8s); 0 for the other formats */
	int64_t gpu_mem_mib;        /* the GPU memory the file says (k8s), 0 when it does not */
	int32_t item;               /* k8s: the node's index in the List's items */
	char *taints;               /* k8s: its taints as sim/taint.h text ("k=v:NoSchedule, ..."),
	                             * owned (inv_nodes_free); NULL none */
};

struct inv_nodes {
	int32_t n;
	struct inv_node *node;      /* in file order */
	int64_t lines;              /* lines in the file, header included */
	enum inv_format fmt;
};

void inv_nodes_init(struct inv_nodes *l);
void inv_nodes_free(struct inv_nodes *l);

/* Reads an inventory of format fmt (plain or gzip). For INV_PAI a first line
 * equal to INV_PAI_HEADER is taken as a header (a re-export may add one),
 * and when PATH ends in .csv (or .csv.gz) and PATH-without-it.header exists,
 * that file's first line must be INV_PAI_HEADER. */
int inv_nodes_read(const char *path, enum inv_format fmt, struct inv_nodes *out,
                   char *err, size_t errlen);

/* ---- shapes ------------------------------------------------------------------ */

struct inv_shape {
	char model[INV_MODEL_MAX];
	int32_t gpus;
	int32_t cpu_cores;
	int64_t mem_mib;
	int32_t mig_cards;          /* cards in MIG mode */
	const char *taints;         /* its nodes' taints (borrowed from the node list), NULL none */
	int32_t nodes;              /* how many nodes have it */
	int32_t first;              /* index of its first node in the list */
};

struct inv_shapes {
	int32_t n;
	struct inv_shape *s;        /* in order of first appearance */
	int32_t *of;                /* of[i]: the shape of node i (l->n entries) */
};

void inv_shapes_free(struct inv_shapes *s);
/* Groups l's nodes into shapes; -1 only when out of memory. */
int inv_group(const struct inv_nodes *l, struct inv_shapes *out, char *err, size_t errlen);

#endif
