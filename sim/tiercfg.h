/* tiercfg — the scenario's "tiered" block as plain data (docs/scenario.md
 * "tiered"): config/tieredcfg.c fills it (and owns its arrays: see
 * tiered_cfg_fini there); the tiered policy (policies/tiered.h) reads it
 * through policy_env.tiered. Kept in sim/ so that traces/ need not include
 * policies/. */
#ifndef HL_TIERCFG_H
#define HL_TIERCFG_H

#include <stdbool.h>
#include <stdint.h>
#include "sim/cluster.h"
#include "sim/job.h"
#include "sim/simtime.h"

#define TIERED_MAX_RESERVE 32   /* "gpu" reservations (one per GPU model at most) */

/* A count of whole GPUs of one catalog model kept for inference. */
struct tiered_reserve {
	int32_t gpu_model;          /* catalog index */
	int32_t gpus;
};

struct tiered_cfg {
	bool present;               /* the scenario has a "tiered" block */
	struct tiered_reserve reserve[TIERED_MAX_RESERVE];
	int32_t nreserve;
	/* Nodes bound to inference: names as written (owned, nnames entries),
	 * resolved by tiered_bind to node indexes (owned, nnodes entries,
	 * increasing, no duplicates). */
	char (*names)[HL_NAME_MAX];
	uint32_t *name_at;          /* per name: reserve entry << 16 | index in its list (messages) */
	int32_t nnames;
	int32_t *nodes;
	int32_t nnodes;
	/* Classes that may be preempted, first preempted first; a class not
	 * listed is never preempted. Inference is never listed. */
	uint8_t victim_order[JOB_NCLASS];
	int32_t nvictim;
	int32_t dev_max_gpus;       /* most GPUs a tenant's dev jobs hold at once; -1 unlimited */
	simtime dev_max_runtime_us; /* a dev job with a longer (or no) walltime is held; SIMTIME_INF none */
};

#endif
