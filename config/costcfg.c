/* costcfg — the cost terms of a plan or a scenario (see costcfg.h). */
#include "config/costcfg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const plan_cost_keys[] = { "life_years", "energy_price_per_kwh", "pue",
	"maintenance_per_node_year", "space_per_rack_year", NULL };
static const char *const run_cost_keys[] = { "energy_price_per_kwh", "pue",
	"maintenance_per_node_year", "space_per_rack_year", NULL };

int costcfg_read(struct jv *v, const json_t *c, const char *path, bool capex, struct plan_spec *s)
{
	if (!c)
		return 0;
	if (!capex && json_is_object(c) && json_object_get(c, "life_years")) {
		char p[256];
		jv_subpath(p, sizeof p, path, "life_years");
		return jv_fail(v, p, "a scenario's cost has no capex to spread over a life (a run adds "
		               "nothing to the site): give \"life_years\" in a plan file's \"cost\"");
	}
	if (jv_object(v, c, path, capex ? plan_cost_keys : run_cost_keys) ||
	    (capex && jv_num(v, c, path, "life_years", false, 0.1, 100, &s->life_years)) ||
	    jv_num(v, c, path, "energy_price_per_kwh", false, 0, 1e9, &s->energy_price_per_kwh) ||
	    jv_num(v, c, path, "pue", false, 1, 10, &s->pue) ||
	    jv_num(v, c, path, "maintenance_per_node_year", false, 0, 1e12, &s->maint_per_node_year) ||
	    jv_num(v, c, path, "space_per_rack_year", false, 0, 1e12, &s->space_per_rack_year))
		return -1;
	return 0;
}

static void cost_defaults(struct plan_spec *s)
{
	memset(s, 0, sizeof *s);
	s->life_years = 5;
	s->energy_price_per_kwh = NAN;
	s->pue = NAN;
}

int costcfg_scenario(struct jv *v, const json_t *root, char **text)
{
	*text = NULL;
	const json_t *c = json_object_get(root, "cost");
	if (!c)
		return 0;
	struct plan_spec s;
	cost_defaults(&s);
	if (costcfg_read(v, c, "$.cost", false, &s))
		return -1;
	*text = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS);
	if (!*text)
		return jv_fail(v, "$.cost", "out of memory");
	return 0;
}
