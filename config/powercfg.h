/* powercfg — reading a scenario's optional "power" block into a struct
 * power_cfg (sim/power.h), and the environment events of its "events"
 * array into struct env_event (docs/scenario.md "power" and "events").
 * An internal header of traces/: json_t stays in this layer.
 *
 *   "power": {"warn_frac": 0.9, "resume_frac": 0.85, "react_s": 10,
 *             "min_throttle": 0.4, "speed_exp": 0.5, "thermal_throttle": 0.6,
 *             "cooling": {"air": {"inlet_c": 25, "rise_c": ..., "tau_s": ...,
 *                                 "warn_c": ..., "throttle_c": ..., "resume_c": ...,
 *                                 "pue_base": ..., "pue_slope": ..., "pue_knee_c": ...},
 *                         "liquid": {...}},
 *             "site": {"mean_c": 15, "amplitude_c": 5, "peak_hour": 15,
 *                      "tariff": [{"from_hour": 0, "to_hour": 8, "price_kwh": 0.35}, ...],
 *                      "carbon_g_kwh": [24 numbers] or one number}}
 *
 *   "events": [{"at": "2h", "rack": "r1", "rack_cap_kw": 20},
 *              {"at": "3h", "cooling": "air", "inlet_c": 32},
 *              {"at": "4h", "cooling": "liquid", "cooling_r_factor": 1.5}]
 *
 * Every key of "power" is optional and overrides power_cfg_defaults(); the
 * block's presence alone turns the power model on (cfg->enabled). Events
 * whose kind is "approve" belong to config/orgcfg.c and are skipped here.
 *
 * Errors name the JSON path ($.power.cooling.air.warn_c,
 * $.events[3].rack) and what was expected; an unknown rack lists the
 * cluster's. Nothing is half-written: on error *cfg is the defaults again
 * and no event array is returned. */
#ifndef HL_POWERLOAD_H
#define HL_POWERLOAD_H

#include <jansson.h>
#include <stdint.h>
#include "sim/cluster.h"
#include "sim/power.h"
#include "config/jv.h"

#define POWER_EVENTS_MAX 100000     /* entries of "events" (as ORG_EVENTS_MAX) */

/* Reads root.power (root is the scenario object) into *cfg, which it sets
 * to power_cfg_defaults() first: without the key the power model stays
 * off. 0, or -1 with v failed (and *cfg the defaults). */
int power_load(struct jv *v, const json_t *root, struct power_cfg *cfg);

/* Reads the environment events of root.events — kinds "rack_cap_kw",
 * "inlet_c" and "cooling_r_factor" — resolving rack names against cl, so
 * call it once the cluster's racks exist (after "racks", or after the
 * from_trace / from_inventory cluster is built). Events come out sorted
 * by time, ties in file order: *out is malloc'ed (NULL when *n is 0) and
 * the caller frees it. Entries of kind "approve" are skipped; an entry of
 * no known kind or of two kinds is an error, and so are environment
 * events without a "power" block (the model that would act on them is
 * off). 0, or -1 with v failed, *out NULL and *n 0. */
int power_events_load(struct jv *v, const struct cluster *cl, const json_t *root,
                      struct env_event **out, int32_t *n);

#endif
