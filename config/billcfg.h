/* billcfg — the scenario's optional "billing" block: validated into a
 * struct bill_config (analysis/bill.h) and kept as normalised JSON text
 * for the results file, so that `hetlab bill` needs only the database
 * (docs/billing.md). An internal header of traces/: json_t stays here.
 *
 *   "billing": {"currency": "CNY", "period": "month",
 *               "prices": {"gpu_hour": {"H100-SXM-80GB": 18.0, "*": 5.0},
 *                          "mig_hour": {"1g.10gb": 1.5}, "share": 1.0,
 *                          "core_hour": 0.05, "mem_gib_hour": 0.002,
 *                          "storage_gib_month": 0.1, "bandwidth_gbps_month": 50,
 *                          "energy": "pass-through"},
 *               "weights": {"gpu": 1, "gpu:H100-SXM-80GB": 1.2, "core": 1, "mem": 1},
 *               "plans": [{"tenant": "t0", "plan": "reserved", "commit": "monthly",
 *                          "baseline": 50000, "overage": "elastic"},
 *                         {"tenant": "t1", "plan": "elastic"}]}
 *
 * Errors name the JSON path ($.billing.plans[1].tenant) and what was
 * expected: an unknown GPU model lists the catalog's, a GPU model of the
 * cluster without a price (and no "*") is named, an unknown tenant lists
 * the org's.
 *
 * The normalised text (every default written out) adds "tenant_index" to
 * each plan and "tenants": [{"name", "projects": [...]}, ...] (the org's,
 * by index); bill_config_parse reads it back. */
#ifndef HL_BILLLOAD_H
#define HL_BILLLOAD_H

#include <jansson.h>
#include <stddef.h>
#include "analysis/bill.h"
#include "sim/cluster.h"
#include "sim/org.h"
#include "config/jv.h"

#define BILL_PLANS_MAX 100000
#define BILL_PRICES_MAX 1000      /* entries of gpu_hour, mig_hour, weights */

/* Validates root.billing (root is the scenario object). Without the key,
 * 0 with *text NULL. Otherwise 0 with *text the normalised JSON (owned by
 * the caller), or -1 with v failed and *text NULL. cl gives the catalog
 * (GPU names) and the node types (whose GPU models need a price), o the
 * tenants plans may name (org tenant names, and "t<index>" for tenants
 * beyond the org's list). */
int bill_load(struct jv *v, const struct cluster *cl, const struct org *o, const json_t *root,
              char **text);

/* Parses normalised text (from a results file's billing table, or
 * bill_default_config_text()) into *cfg, which it initialises. `what`
 * names the source in messages. 0, or -1 with "WHAT: $.path: ..." in err
 * and *cfg empty again; bill_config_fini(cfg) after either. */
int bill_config_parse(const char *text, const char *what, struct bill_config *cfg, char *err,
                      size_t errlen);

#endif
