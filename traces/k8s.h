/* k8s — a Kubernetes cluster's history: `kubectl get pods -A -o json` read
 * as a trace, `kubectl get nodes -o json` as a node inventory.
 *
 * Both files are one JSON object, a v1 List (kind "List", or "PodList" /
 * "NodeList" as the API server names it) whose items are Pod or Node
 * objects; a single Pod or Node object is taken as a list of one. They
 * are read whole (plain or gzip, at most JSONFILE_MAX bytes) with
 * jansson, and nothing of the JSON outlives the reader.
 *
 * The pod reader (traces/k8spods.c) makes one job per pod that ran, or one
 * gang job per Volcano / coscheduling PodGroup; the namespace is the
 * tenant (workload names "user" and "account") and "namespace/name" the
 * job name. The node reader (traces/k8snodes.c) fills a struct inv_nodes
 * (format INV_K8S) for invcluster.c: allocatable cores and memory, the
 * GPU count and GPU Feature Discovery product, and the cards in MIG mode.
 * docs/traces.md ("Kubernetes") gives the whole mapping and what is
 * ignored.
 *
 * Errors: 0, or -1 with "FILE: JSON.PATH: what was expected, got what"
 * in err, e.g. "pods.json: items[3].spec.containers[0].resources.requests
 * .cpu: expected a CPU quantity such as "500m" or "2", got "abc"". A
 * failed read leaves its output empty. Nothing here allocates anything
 * the caller must free except the outputs. */
#ifndef HL_K8S_H
#define HL_K8S_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "traces/nodelist.h"
#include "traces/trace.h"

/* Whether the file (plain or gzip) starts with a JSON object: the first
 * byte that is not blank (nor a UTF-8 byte-order mark) is '{'. Every
 * Kubernetes List is; SWF, CSV and sacct dumps never are. */
bool k8s_sniff(const char *path);

struct k8s_opts {
	bool lenient;       /* skip and count malformed pods instead of failing */
	/* Non-NULL: a GPU product that a pod's node selector or required
	 * affinity asks for (label nvidia.com/gpu.product) becomes
	 * req.gpu_models, mapped by gpu_model (the catalog index, or -1 when
	 * unknown: an error naming the product and `known`). NULL: the
	 * product stays a label term of req.sel_req. */
	int (*gpu_model)(void *ctx, const char *product);
	void *gpu_model_ctx;
	const char *known;  /* the products gpu_model knows, for messages; may be NULL */
};
/* Reads a pod list into w (sorted by submit; times from the earliest
 * creationTimestamp, which is w->unix_start). o may be NULL. Pods that
 * never started (Pending), and pods whose run cannot be told, are counted
 * in w->skipped_unusable. */
int trace_k8s_pods_read(const char *path, const struct k8s_opts *o, struct workload *w,
                        char *err, size_t errlen);

/* What the pod reader did that a user should know (w's k8s_ counts), one
 * note a line, into buf ("" none). */
void k8s_notes(const struct workload *w, char *buf, size_t len);

/* Reads a node list into out (format INV_K8S): see k8snodes.c. */
int k8s_nodes_read(const char *path, struct inv_nodes *out, char *err, size_t errlen);

/* ---- the pieces both readers share (traces/k8squant.c) ------------------- */

/* A Kubernetes resource quantity (resource.Quantity): a decimal number,
 * optionally with an exponent (1e3) or one suffix — binary Ki Mi Gi Ti Pi
 * Ei, decimal n u m k M G T P E. 0, or -1 when s is not one or is
 * negative or above 2^62 of the unit asked for. */
int k8s_quantity_milli(const char *s, int64_t *milli);    /* cpu: 0.5, "500m" → 500 */
int k8s_quantity_int(const char *s, int64_t *v);          /* rounded up: "1Ki" → 1024 */
/* An RFC 3339 time as the API server writes it (2024-05-01T10:00:00Z,
 * optionally with a fraction and a +hh:mm offset) in Unix microseconds;
 * 0, or -1 when malformed or before 1970. */
int k8s_time_us(const char *s, int64_t *unix_us);

#endif
