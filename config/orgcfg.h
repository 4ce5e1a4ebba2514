/* orgcfg — reading a scenario's optional "org" and "events" keys into a
 * struct org (sim/org.h): tenants with their shares, quotas and projects,
 * the billing weights of usage, the fair-share half-life, and the events
 * that approve held jobs (docs/scenario.md "org"). An internal header of
 * traces/: json_t stays in this layer.
 *
 *   "org": {"halflife_days": 7, "gpu_weights": {"H100-SXM-80GB": 2.0},
 *           "core_weight": 0.01,
 *           "tenants": [{"name": "t0", "shares": 3, "auto_approve": false,
 *                        "quota": {"gpu_hours": 500, "core_hours": 0, "storage_gib": 0,
 *                                  "bw_mbps": 0, "window_days": 30},
 *                        "projects": [{"name": "p0", "shares": 1, "quota": {...}}]}]},
 *   "events": [{"at": "2d", "approve": "t0"}]
 *
 * Every key is optional. Tenants are numbered in list order (job.tenant),
 * projects from 0 within their tenant (job.group). A quota value of 0
 * means unlimited; a quota's window defaults to 30 days. Approvals are
 * kept sorted by time (ties in file order).
 *
 * Errors name the JSON path ($.org.tenants[1].projects[0].shares) and what
 * was expected: unknown keys list the known ones, an unknown GPU model
 * lists the catalog's, an approval of an unknown tenant lists the org's. */
#ifndef HL_ORGLOAD_H
#define HL_ORGLOAD_H

#include <jansson.h>
#include "sim/cluster.h"
#include "sim/org.h"
#include "config/jv.h"

#define ORG_TENANTS_MAX 100000      /* tenants in one org */
#define ORG_PROJECTS_MAX 1000       /* projects of one tenant */
#define ORG_EVENTS_MAX 100000       /* entries of "events" */

/* Reads root.org and root.events (root is the scenario object) into *o,
 * which it initialises (org_init) first: without either key *o is the
 * empty org with the defaults. cat names the GPU models "gpu_weights" may
 * use. 0, or -1 with v failed and *o empty again (nothing half-written);
 * org_fini(o) after either. */
int org_load(struct jv *v, const struct catalog *cat, const json_t *root, struct org *o);

/* Parses an event time: a number of seconds (≥ 0), or a string of a
 * number with a unit: "2d", "36h", "90m", "3600s". 0, or -1 when it is
 * neither (what is wrong goes to v at `path`). */
int org_parse_at(struct jv *v, const json_t *x, const char *path, simtime *out);

#endif
