/* livecfg — the live daemon's configuration file (LIVE.json), read into
 * struct live_cfg (live/live_cfg.h). docs/live.md documents every key;
 * errors name the file and the JSON path and say what was expected.
 *
 * The cluster, the organisation, the policy and its parameters come from
 * a scenario file (its "workload" is ignored: jobs arrive live); this file
 * says how to drive the real world: executor, probes, state directory,
 * timing and the metrics endpoint. */
#ifndef HL_LIVECFG_H
#define HL_LIVECFG_H

#include "live/live_cfg.h"

/* Reads path. 0, or -1 with "FILE: $.path: what" in err. */
int livecfg_load(const char *path, struct live_cfg *c, char *err, size_t errlen);

#endif
