/* openb — readers for the Alibaba cluster-trace-gpu-v2023 "openb" lists
 * (the GPU-sharing cluster trace of the FGD paper, Weng et al., ATC'23):
 * the pod lists, which become a workload, and the node lists, which
 * describe the heterogeneous GPU cluster they ran on.
 *
 * A pod row asks for CPU (milli-cores), memory, whole GPUs or a share of
 * one GPU (gpu_milli < 1000, the GPU-sharing pods), optionally restricted
 * to some GPU models, and says when it was created, scheduled and deleted
 * and in which phase it was last seen. trace_openb_pods_read makes one job
 * per pod that a replay can use (a one-node gang; a share of one GPU is
 * job_req.gpu_milli) and keeps what the job model has no field for — the
 * gpu_spec text, QoS, phase, scheduling time — in a struct openb_pods
 * beside it, one entry per
 * job in job order. Pending pods were never scheduled: they are counted
 * and skipped. docs/traces.md gives the whole mapping.
 *
 * The node lists are read into plain structs (trace_openb_nodes_read) and
 * summarised per GPU model (openb_node_summary); building a cluster from
 * them is left to the cluster module.
 *
 * Ownership: the caller owns every struct; openb_pods_free,
 * openb_nodes_free and openb_node_summary_free release them (all three
 * accept a zeroed or freed struct). extra->pod[i] describes w->jobs[i] only
 * as long as the workload is not re-sorted.
 *
 * Errors: 0 on success, -1 with a message in err naming the file and line
 * (and the field) and what was expected; a failed read leaves the structs
 * empty. */
#ifndef HL_OPENB_H
#define HL_OPENB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "traces/trace.h"

#define OPENB_NAME_MAX 64       /* longest pod or node name + 1 */
#define OPENB_MODEL_MAX 32      /* longest GPU model name + 1 */
#define OPENB_SPEC_MAX 128      /* longest gpu_spec + 1 */
#define OPENB_MAX_GPUS 64       /* most GPUs a pod or a node may have */
#define OPENB_MILLI 1000        /* gpu_milli of a whole GPU */

/* The header lines, exactly (a UTF-8 byte-order mark before them is allowed). */
extern const char OPENB_POD_HEADER[];
extern const char OPENB_POD_HEADER_UNTIMED[];  /* the multigpu* lists: no times */
extern const char OPENB_NODE_HEADER[];

enum openb_kind {
	OPENB_NONE,             /* not an openb list, or not readable */
	OPENB_PODS,             /* a pod list with times (OPENB_POD_HEADER) */
	OPENB_PODS_UNTIMED,     /* a pod list without times: cannot be replayed */
	OPENB_NODES,            /* a node list */
};
/* What the first line of the file (plain or gzip) says it is. */
enum openb_kind openb_sniff(const char *path);

enum openb_qos { OPENB_LS, OPENB_BE, OPENB_BURSTABLE, OPENB_GUARANTEED, OPENB_NQOS };
enum openb_phase { OPENB_RUNNING, OPENB_SUCCEEDED, OPENB_FAILED, OPENB_PENDING, OPENB_NPHASE };

/* Per job, what the job model has no field for. */
enum {
	OPENB_NO_DELETION = 1,  /* Running with an empty deletion_time: runs to end_us */
	OPENB_AT_END = 2,       /* Running and still alive at the trace end */
};
struct openb_pod {
	simtime sched_us;       /* scheduled_time */
	int32_t gpu_milli;      /* per GPU: 0 (no GPU), 1..999 (shares one GPU), 1000 */
	int32_t spec;           /* gpu_spec: an index into specs, -1 when empty */
	uint8_t qos;            /* enum openb_qos */
	uint8_t phase;          /* enum openb_phase (never OPENB_PENDING: those are skipped) */
	uint8_t flags;          /* OPENB_NO_DELETION | OPENB_AT_END */
};

struct openb_pods {
	int32_t n;
	struct openb_pod *pod;          /* pod[i] belongs to w->jobs[i] */
	int32_t nspecs;
	char (*specs)[OPENB_SPEC_MAX];  /* the distinct gpu_spec texts, in order of appearance */
	/* Over every valid row of the file, Pending pods included (they are
	 * what the file holds; w->n counts what a replay gets). */
	int64_t pods;
	int64_t by_gpus[OPENB_MAX_GPUS + 1];   /* pods per num_gpu */
	int64_t sharing;                /* pods with 0 < gpu_milli < 1000 */
	int64_t nphase[OPENB_NPHASE];
	int64_t nqos[OPENB_NQOS];
	int64_t gpu_milli_sum;          /* Σ num_gpu × gpu_milli: the requested GPUs × 1000 */
	/* Over the jobs. */
	int64_t at_end;                 /* Running pods alive at the trace end (OPENB_AT_END) */
	simtime end_us;                 /* trace end: the largest time of a valid row */
};

void openb_pods_init(struct openb_pods *p);
void openb_pods_free(struct openb_pods *p);

struct openb_opts {
	bool lenient;           /* skip and count malformed rows (w->skipped_malformed) */
	/* Non-NULL: a GPU pod's gpu_spec becomes req.gpu_models, each name
	 * mapped by gpu_model (the catalog index of the model, or -1 when the
	 * cluster has none), and a pod none of whose names map is an error
	 * naming it. NULL: req.gpu_models stays 0 (the text is in extra). */
	int (*gpu_model)(void *ctx, const char *name);
	void *gpu_model_ctx;
};
/* Reads a pod list (plain or gzip). o and extra may be NULL (extra NULL:
 * the per-pod data are dropped). Pending pods, and pods that ask for
 * nothing (no CPU, no GPU), are skipped and counted in w->skipped_unusable. */
int trace_openb_pods_read(const char *path, const struct openb_opts *o, struct workload *w,
                          struct openb_pods *extra, char *err, size_t errlen);

/* ---- node lists ------------------------------------------------------------ */

struct openb_node {
	char name[OPENB_NAME_MAX];      /* sn */
	char model[OPENB_MODEL_MAX];    /* GPU model; "" for a CPU-only node */
	int64_t cpu_milli;
	int64_t memory_mib;
	int32_t gpus;
};
struct openb_nodes {
	int32_t n;
	struct openb_node *node;        /* in file order */
	int64_t lines;
};
void openb_nodes_init(struct openb_nodes *l);
void openb_nodes_free(struct openb_nodes *l);
/* Reads a node list (plain or gzip); every row is checked, none skipped. */
int trace_openb_nodes_read(const char *path, struct openb_nodes *out, char *err, size_t errlen);

/* Nodes, GPUs, CPU and memory per GPU model (CPU-only nodes: model ""). */
struct openb_model_sum {
	char model[OPENB_MODEL_MAX];
	int32_t nodes;
	int32_t shapes;                 /* distinct (gpus, cpu_milli, memory_mib) among them */
	int64_t gpus;
	int64_t cpu_milli;
	int64_t memory_mib;
};
struct openb_node_summary {
	int32_t nmodels;
	struct openb_model_sum *m;      /* most nodes first; ties by name */
	struct openb_model_sum all;     /* the totals (model "") */
	int32_t cpu_only;               /* nodes without GPUs */
};
int openb_node_summary(const struct openb_nodes *l, struct openb_node_summary *s,
                       char *err, size_t errlen);
void openb_node_summary_free(struct openb_node_summary *s);

#endif
