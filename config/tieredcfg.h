/* tieredcfg — reading a scenario's optional top-level "tiered" block into
 * struct tiered_cfg (sim/tiercfg.h), the settings of the tiered
 * policy (docs/scenario.md "tiered"). An internal header of traces/:
 * json_t stays in this layer.
 *
 * Shape:
 *   "tiered": {
 *     "reserve": [ {"gpu": "H100-SXM-80GB", "gpus": 8},
 *                  {"nodes": ["lq-h100-01-n1", ...]} ],
 *     "victim_order": ["dev", "batch", "training"],
 *     "dev": {"max_gpus_per_tenant": 2, "max_runtime_s": 14400}
 *   }
 * Every key is optional. A "reserve" entry is either a GPU count of one
 * catalog model or a list of node names, never both; a model is reserved
 * once. Node names are checked against the cluster later, by tiered_bind,
 * once the cluster is built (it may come from a trace or an inventory).
 *
 * Ownership: the loader allocates t->names (and tiered_bind t->nodes);
 * tiered_cfg_fini frees them, after success or failure alike. */
#ifndef HL_TIEREDLOAD_H
#define HL_TIEREDLOAD_H

#include <stddef.h>
#include "sim/tiercfg.h"
#include "sim/cluster.h"
#include "config/jv.h"

#define TIERED_MAX_NODES 65536   /* bound node names accepted */

/* The defaults: nothing reserved, victims dev, batch, training, no dev
 * limits, present = false. */
void tiered_cfg_init(struct tiered_cfg *t);
void tiered_cfg_fini(struct tiered_cfg *t);

/* Reads root.tiered (root: the scenario's top-level object) into t, which
 * it initialises first (a previous content is overwritten, not freed).
 * GPU models are looked up in cat. An absent block leaves the defaults.
 * 0, or -1 with v failed ("$.tiered.reserve[1].gpus: ..."). */
int tiered_load(struct jv *v, const struct catalog *cat, const json_t *root, struct tiered_cfg *t);

/* Resolves t's node names against cl into t->nodes and checks that every
 * reserved GPU count exists on the nodes that are not bound. 0, or -1
 * with a message naming the "tiered" JSON path. */
int tiered_bind(struct tiered_cfg *t, const struct cluster *cl, char *err, size_t errlen);

#endif
