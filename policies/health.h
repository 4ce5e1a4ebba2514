/* health — the health monitor (see policies/health.c): a policy-side
 * component installed beside the scheduler with sim_set_health. */
#ifndef HL_HEALTH_H
#define HL_HEALTH_H

#include "sim/engine.h"
#include "sim/view.h"

struct health_cfg;

/* Fills *out (state and hook) for the thresholds in cfg. 0 or -1 (ENOMEM). */
int health_init(struct sim_health *out, const struct health_cfg *cfg);
void health_fini(struct sim_health *h);

#endif
