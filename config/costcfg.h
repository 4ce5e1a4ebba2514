/* costcfg — the cost terms of a plan file's "cost" block and of a
 * scenario's: one reader for both (docs/planning.md, "Cost").
 *
 *   "cost": {"life_years": 5, "energy_price_per_kwh": 0.62, "pue": 1.3,
 *            "maintenance_per_node_year": 5000, "space_per_rack_year": 12000}
 *
 * A scenario's block prices a plain run (`hetlab report RUN`: the energy,
 * maintenance and rack space a year at the run's rate; no capex, since a
 * run adds nothing to the site), so it takes every key but "life_years".
 * Errors name the JSON path and what was expected. */
#ifndef HL_COSTCFG_H
#define HL_COSTCFG_H

#include <jansson.h>
#include <stdbool.h>

#include "analysis/plan.h"
#include "config/jv.h"

/* Reads the object c at path (NULL: nothing) into s's cost terms, which
 * the caller has set to their defaults; "life_years" only with capex. 0,
 * or -1 with v failed. */
int costcfg_read(struct jv *v, const json_t *c, const char *path, bool capex, struct plan_spec *s);

/* Validates root.cost of a scenario. Without the key, 0 with *text NULL;
 * otherwise 0 with *text the block as compact JSON (owned by the caller,
 * for the results' meta row "cost", which plan_cost_terms reads back), or
 * -1 with v failed. */
int costcfg_scenario(struct jv *v, const json_t *root, char **text);

#endif
