/* scnres — the scenario's heterogeneous-resource blocks: storage pools,
 * GPU sharing and MIG settings, network penalties, the placement choice,
 * and the resource keys of node types (NUMA, storage, MIG, labels) and
 * racks (leaf switch, labels). Kept apart from scenario.c so that the core
 * loader stays readable; docs/scenario.md documents every key.
 *
 * Each function checks its JSON with the jv helpers (errors name the JSON
 * path and what was expected) and fills the cluster or scenario. */
#ifndef HL_SCNRES_H
#define HL_SCNRES_H

#include <jansson.h>
#include "sim/cluster.h"
#include "config/jv.h"

struct scn_notify {
	bool log;                     /* a line on stderr per preemption */
	char **argv;                  /* command run per preemption, NULL-terminated (owned); NULL none */
};

/* "notify": {"log": true, "command": ["prog", "arg", ...]}. Frees with scnres_notify_free. */
int scnres_load_notify(struct jv *v, const json_t *root, struct scn_notify *n);
void scnres_notify_free(struct scn_notify *n);

struct scn_place {
	char strategy[HL_NAME_MAX];   /* "" = first-fit */
	bool label_blind;             /* ignore the GPU memory jobs need */
};

/* Top-level blocks, each optional: "storage_pools", "gpu_sharing",
 * "network", "oom_after_s", "placement". */
int scnres_load_top(struct jv *v, struct cluster *cl, const json_t *root, struct scn_place *pl);
/* The optional top-level "checkpoint" block: per job class, the interval
 * (every_s, reference work), the cost of one checkpoint (cost_s, or
 * size_gib written to pool at its bandwidth), restart_s and grace_s.
 * Call after the pools are loaded. */
struct ckpt_cfg;
int scnres_load_ckpt(struct jv *v, const struct cluster *cl, const json_t *root, struct ckpt_cfg *out);
/* Keys of one node type beyond the basics: "numa", "storage", "mig",
 * "labels". Loads the MIG geometry into cl->mig when first needed. */
int scnres_load_type(struct jv *v, struct cluster *cl, const json_t *o, const char *path,
                     struct node_type *t);
/* Keys of one rack (already added as index rk): "leaf", "labels". */
int scnres_load_rack(struct jv *v, struct cluster *cl, const json_t *o, const char *path, int rk);

#endif
