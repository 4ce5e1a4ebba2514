/* powercfg — the scenario's "power" block and environment events. See
 * powercfg.h; docs/scenario.md "power" documents every key. */
#include "config/powercfg.h"
#include "config/orgcfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEMP_MIN_C (-60.0)        /* any temperature key */
#define TEMP_MAX_C 200.0
#define RISE_MAX_C 200.0         /* a node's rise above the inlet at full power */
#define TAU_MAX_S 1e6             /* thermal time constant */
#define PUE_MAX 10.0
#define PRICE_MAX 1e4             /* per kWh */
#define CARBON_MAX 1e5            /* g CO2 per kWh */
#define REACT_MAX_S 86400.0
#define SPEED_EXP_MAX 4.0
#define RACK_KW_MAX 1e4           /* as a rack's power_kw */
#define R_FACTOR_MAX 100.0

static const char *const power_keys[] = { "warn_frac", "resume_frac", "react_s", "min_throttle",
	"speed_exp", "thermal_throttle", "cooling", "site", NULL };
static const char *const cooling_keys[] = { "air", "liquid", NULL };
static const char *const cool_keys[] = { "inlet_c", "rise_c", "tau_s", "warn_c", "throttle_c",
	"resume_c", "pue_base", "pue_slope", "pue_knee_c", NULL };
static const char *const site_keys[] = { "mean_c", "amplitude_c", "peak_hour", "tariff", "carbon_g_kwh",
	NULL };
static const char *const tariff_keys[] = { "from_hour", "to_hour", "price_kwh", NULL };
static const char *const cooling_names[COOL_N] = { "air", "liquid" };

/* Event kinds of "events": the ones read here, orgcfg's and faultcfg's. */
enum { EK_APPROVE, EK_RACK_CAP, EK_INLET, EK_R_FACTOR, EK_FAIL, EK_JOIN, EK_LEAVE, EK_DRAIN, EK_N };
static const char *const kind_keys[EK_N] = { "approve", "rack_cap_kw", "inlet_c", "cooling_r_factor", "fail",
	"node_join", "node_leave", "node_drain" };
static const char *const ev_rack_keys[] = { "at", "rack", "rack_cap_kw", NULL };
static const char *const ev_inlet_keys[] = { "at", "cooling", "inlet_c", NULL };
static const char *const ev_r_keys[] = { "at", "cooling", "cooling_r_factor", NULL };

/* o.key, when present, must be a number in (0, max]. */
static int pos_num(struct jv *v, const json_t *o, const char *path, const char *key, double max,
                   double *out)
{
	char p[256];
	json_t *x = json_object_get(o, key);
	if (!x)
		return 0;
	jv_subpath(p, sizeof p, path, key);
	if (!json_is_number(x))
		return jv_fail(v, p, "expected a number in (0, %g], got %s", max, jv_type(x));
	double d = json_number_value(x);
	if (!(d > 0 && d <= max))
		return jv_fail(v, p, "expected a number in (0, %g], got %g", max, d);
	*out = d;
	return 0;
}

/* `lo` must be below `hi` (both keys of the object at path; the message
 * points at whichever of them the file gives, hi_key first). */
static int below(struct jv *v, const json_t *o, const char *path, const char *lo_key, double lo,
                 const char *hi_key, double hi)
{
	if (lo < hi)
		return 0;
	char p[256];
	jv_subpath(p, sizeof p, path, json_object_get(o, lo_key) || !json_object_get(o, hi_key) ? lo_key : hi_key);
	return jv_fail(v, p, "%s (%g) must be below %s (%g)%s", lo_key, lo, hi_key, hi,
	               json_object_get(o, lo_key) && json_object_get(o, hi_key) ? "" : " (the other is the default)");
}

static int load_cool(struct jv *v, const json_t *o, const char *p, struct cooling_cfg *c)
{
	if (!json_is_object(o))
		return jv_fail(v, p, "expected an object (inlet_c, rise_c, tau_s, warn_c, throttle_c, "
		               "resume_c, pue_base, pue_slope, pue_knee_c), got %s", jv_type(o));
	if (jv_object(v, o, p, cool_keys) ||
	    jv_num(v, o, p, "inlet_c", false, TEMP_MIN_C, TEMP_MAX_C, &c->inlet_c) ||
	    pos_num(v, o, p, "rise_c", RISE_MAX_C, &c->rise_c) ||
	    pos_num(v, o, p, "tau_s", TAU_MAX_S, &c->tau_s) ||
	    jv_num(v, o, p, "warn_c", false, TEMP_MIN_C, TEMP_MAX_C, &c->warn_c) ||
	    jv_num(v, o, p, "throttle_c", false, TEMP_MIN_C, TEMP_MAX_C, &c->throttle_c) ||
	    jv_num(v, o, p, "resume_c", false, TEMP_MIN_C, TEMP_MAX_C, &c->resume_c) ||
	    jv_num(v, o, p, "pue_base", false, 1, PUE_MAX, &c->pue_base) ||
	    jv_num(v, o, p, "pue_slope", false, 0, 1, &c->pue_slope) ||
	    jv_num(v, o, p, "pue_knee_c", false, TEMP_MIN_C, TEMP_MAX_C, &c->pue_knee_c))
		return -1;
	/* A node must be able to cool below resume_c at idle, and the
	 * thresholds must come in order: inlet < resume < warn < throttle. */
	if (below(v, o, p, "inlet_c", c->inlet_c, "resume_c", c->resume_c) ||
	    below(v, o, p, "resume_c", c->resume_c, "warn_c", c->warn_c) ||
	    below(v, o, p, "warn_c", c->warn_c, "throttle_c", c->throttle_c))
		return -1;
	return 0;
}

static int load_cooling(struct jv *v, const json_t *o, struct power_cfg *c)
{
	const char *p = "$.power.cooling";
	if (!json_is_object(o))
		return jv_fail(v, p, "expected an object with \"air\" and/or \"liquid\", got %s", jv_type(o));
	if (jv_object(v, o, p, cooling_keys))
		return -1;
	for (int k = 0; k < COOL_N; k++) {
		json_t *x = json_object_get(o, cooling_names[k]);
		char q[64];
		jv_subpath(q, sizeof q, p, cooling_names[k]);
		if (x && load_cool(v, x, q, &c->cool[k]))
			return -1;
	}
	return 0;
}

/* The tariff: one price, or entries pricing the hours [from_hour, to_hour)
 * (past midnight when from_hour > to_hour) that cover the day once. */
static int load_tariff(struct jv *v, const json_t *x, struct site_cfg *s)
{
	const char *p = "$.power.site.tariff";
	if (json_is_number(x)) {
		double d = json_number_value(x);
		if (!(d >= 0 && d <= PRICE_MAX))
			return jv_fail(v, p, "expected a price per kWh in [0, %g], got %g", PRICE_MAX, d);
		for (int h = 0; h < 24; h++)
			s->price_kwh[h] = d;
		return 0;
	}
	if (!json_is_array(x))
		return jv_fail(v, p, "expected an array of {from_hour, to_hour, price_kwh} or one price, got %s",
		               jv_type(x));
	size_t n = json_array_size(x), i;
	if (n == 0 || n > 24)
		return jv_fail(v, p, "expected 1 to 24 entries covering the hours 0-24, got %zu", n);
	int owner[24];
	double price[24];
	for (int h = 0; h < 24; h++)
		owner[h] = -1;
	json_t *e;
	json_array_foreach(x, i, e) {
		char q[64], r[96];
		long long from = -1, to = -1;
		double pr = 0;
		jv_idxpath(q, sizeof q, p, i);
		if (!json_is_object(e))
			return jv_fail(v, q, "expected an object (from_hour, to_hour, price_kwh), got %s", jv_type(e));
		if (jv_object(v, e, q, tariff_keys) || jv_int(v, e, q, "from_hour", true, 0, 23, &from) ||
		    jv_int(v, e, q, "to_hour", true, 0, 24, &to) ||
		    jv_num(v, e, q, "price_kwh", true, 0, PRICE_MAX, &pr))
			return -1;
		if (to == from) {
			jv_subpath(r, sizeof r, q, "to_hour");
			return jv_fail(v, r, "expected an hour other than from_hour (%lld): an entry covers at least one hour",
			               from);
		}
		int hours = (int)(to > from ? to - from : to + 24 - from);
		for (int k = 0; k < hours; k++) {
			int hh = (int)((from + k) % 24);
			if (owner[hh] >= 0)
				return jv_fail(v, q, "hour %d is already priced by %s[%d]: entries must not overlap", hh, p,
				               owner[hh]);
			owner[hh] = (int)i;
			price[hh] = pr;
		}
	}
	for (int h = 0; h < 24; h++)
		if (owner[h] < 0) {
			int e2 = h;
			while (e2 < 24 && owner[e2] < 0)
				e2++;
			return jv_fail(v, p, "hours %d-%d have no price: entries must cover every hour 0-24 once", h, e2);
		}
	memcpy(s->price_kwh, price, sizeof price);
	return 0;
}

static int load_carbon(struct jv *v, const json_t *x, struct site_cfg *s)
{
	const char *p = "$.power.site.carbon_g_kwh";
	if (json_is_number(x)) {
		double d = json_number_value(x);
		if (!(d >= 0 && d <= CARBON_MAX))
			return jv_fail(v, p, "expected g CO2 per kWh in [0, %g], got %g", CARBON_MAX, d);
		for (int h = 0; h < 24; h++)
			s->carbon_g_kwh[h] = d;
		return 0;
	}
	if (!json_is_array(x))
		return jv_fail(v, p, "expected one number or an array of 24 (hours 0-23), got %s", jv_type(x));
	if (json_array_size(x) != 24)
		return jv_fail(v, p, "expected one number or an array of 24 (hours 0-23), got an array of %zu",
		               json_array_size(x));
	double g[24];
	for (size_t h = 0; h < 24; h++) {
		json_t *e = json_array_get(x, h);
		char q[64];
		jv_idxpath(q, sizeof q, p, h);
		if (!json_is_number(e))
			return jv_fail(v, q, "expected g CO2 per kWh in [0, %g], got %s", CARBON_MAX, jv_type(e));
		g[h] = json_number_value(e);
		if (!(g[h] >= 0 && g[h] <= CARBON_MAX))
			return jv_fail(v, q, "expected g CO2 per kWh in [0, %g], got %g", CARBON_MAX, g[h]);
	}
	memcpy(s->carbon_g_kwh, g, sizeof g);
	return 0;
}

static int load_site(struct jv *v, const json_t *o, struct site_cfg *s)
{
	const char *p = "$.power.site";
	if (!json_is_object(o))
		return jv_fail(v, p, "expected an object (mean_c, amplitude_c, peak_hour, tariff, carbon_g_kwh), got %s",
		               jv_type(o));
	if (jv_object(v, o, p, site_keys) ||
	    jv_num(v, o, p, "mean_c", false, TEMP_MIN_C, TEMP_MAX_C, &s->mean_c) ||
	    jv_num(v, o, p, "amplitude_c", false, 0, 100, &s->amplitude_c) ||
	    jv_num(v, o, p, "peak_hour", false, 0, 24, &s->peak_hour))
		return -1;
	json_t *x = json_object_get(o, "tariff");
	if (x && load_tariff(v, x, s))
		return -1;
	x = json_object_get(o, "carbon_g_kwh");
	if (x && load_carbon(v, x, s))
		return -1;
	return 0;
}

static int load_power(struct jv *v, const json_t *o, struct power_cfg *c)
{
	const char *p = "$.power";
	double react_s = simtime_to_s(c->react_us);
	if (!json_is_object(o))
		return jv_fail(v, p, "expected an object (warn_frac, resume_frac, react_s, min_throttle, speed_exp, "
		               "thermal_throttle, cooling, site), got %s", jv_type(o));
	if (jv_object(v, o, p, power_keys) || pos_num(v, o, p, "warn_frac", 1, &c->warn_frac) ||
	    pos_num(v, o, p, "resume_frac", 1, &c->resume_frac) ||
	    jv_num(v, o, p, "react_s", false, 0, REACT_MAX_S, &react_s) ||
	    pos_num(v, o, p, "min_throttle", 1, &c->min_throttle) ||
	    jv_num(v, o, p, "speed_exp", false, 0, SPEED_EXP_MAX, &c->speed_exp) ||
	    pos_num(v, o, p, "thermal_throttle", 1, &c->thermal_throttle) ||
	    below(v, o, p, "resume_frac", c->resume_frac, "warn_frac", c->warn_frac))
		return -1;
	c->react_us = simtime_from_s(react_s);
	json_t *x = json_object_get(o, "cooling");
	if (x && load_cooling(v, x, c))
		return -1;
	x = json_object_get(o, "site");
	if (x && load_site(v, x, &c->site))
		return -1;
	c->enabled = true;
	return 0;
}

int power_load(struct jv *v, const json_t *root, struct power_cfg *cfg)
{
	power_cfg_defaults(cfg);
	if (v->failed)
		return -1;
	json_t *x = json_object_get(root, "power");
	if (!x)
		return 0;
	struct power_cfg c = *cfg;
	if (load_power(v, x, &c))
		return -1;   /* *cfg is still the defaults */
	*cfg = c;
	return 0;
}

/* ---- environment events ---------------------------------------------------------- */

struct tmp_event {
	struct env_event e;
	size_t idx;
};

static int cmp_event(const void *x, const void *y)
{
	const struct tmp_event *a = x, *b = y;
	if (a->e.at_us != b->e.at_us)
		return a->e.at_us < b->e.at_us ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int find_rack(struct jv *v, const struct cluster *cl, const json_t *e, const char *p)
{
	char name[HL_NAME_MAX] = "", q[128];
	if (jv_str(v, e, p, "rack", true, name, sizeof name))
		return -1;
	int32_t rk = cluster_find_rack(cl, name);
	if (rk >= 0)
		return rk;
	char known[512] = "";
	size_t off = 0;
	for (int32_t k = 0; k < cl->nracks && off < sizeof known; k++)
		off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", k ? ", " : "", cl->racks[k].name);
	jv_subpath(q, sizeof q, p, "rack");
	if (cl->nracks == 0)
		return jv_fail(v, q, "unknown rack \"%s\" (the cluster has no racks)", name);
	return jv_fail(v, q, "unknown rack \"%s\" (the cluster has: %s)", name, known);
}

static int find_cooling(struct jv *v, const json_t *e, const char *p)
{
	char name[16] = "", q[128];
	jv_subpath(q, sizeof q, p, "cooling");
	json_t *x = json_object_get(e, "cooling");
	if (x && json_is_string(x) && strlen(json_string_value(x)) >= sizeof name)
		return jv_fail(v, q, "expected \"air\" or \"liquid\", got \"%s\"", json_string_value(x));
	if (jv_str(v, e, p, "cooling", true, name, sizeof name))
		return -1;
	for (int k = 0; k < COOL_N; k++)
		if (strcmp(cooling_names[k], name) == 0)
			return k;
	return jv_fail(v, q, "expected \"air\" or \"liquid\", got \"%s\"", name);
}

/* Reads entry e (at path p) of kind `kind` into *ev. */
static int load_event(struct jv *v, const struct cluster *cl, const json_t *e, const char *p, int kind,
                      struct env_event *ev)
{
	char q[128];
	static const char *const *const keys[EK_N] = { NULL, ev_rack_keys, ev_inlet_keys, ev_r_keys };
	if (jv_object(v, e, p, keys[kind]))
		return -1;
	json_t *at = json_object_get(e, "at");
	jv_subpath(q, sizeof q, p, "at");
	if (!at)
		return jv_fail(v, q, "missing (expected a time: seconds, or a string such as \"2d\", \"36h\")");
	if (org_parse_at(v, at, q, &ev->at_us))
		return -1;
	double x = 0;
	switch (kind) {
	case EK_RACK_CAP:
		ev->kind = ENV_RACK_CAP;
		if ((ev->target = find_rack(v, cl, e, p)) < 0 ||
		    jv_num(v, e, p, "rack_cap_kw", true, 0.001, RACK_KW_MAX, &x))
			return -1;
		ev->value = x * 1000;
		break;
	case EK_INLET:
		ev->kind = ENV_INLET;
		if ((ev->target = find_cooling(v, e, p)) < 0 ||
		    jv_num(v, e, p, "inlet_c", true, TEMP_MIN_C, TEMP_MAX_C, &x))
			return -1;
		ev->value = x;
		break;
	default:
		ev->kind = ENV_COOLING_RISE;
		if ((ev->target = find_cooling(v, e, p)) < 0 || pos_num(v, e, p, "cooling_r_factor", R_FACTOR_MAX, &x))
			return -1;
		ev->value = x;
		break;
	}
	return 0;
}

/* The kind of entry e: EK_*, or -1 when it has none or several (v failed). */
static int event_kind(struct jv *v, const json_t *e, const char *p)
{
	int kind = -1;
	if (!json_is_object(e))
		return jv_fail(v, p, "expected an object, got %s", jv_type(e));
	for (int k = 0; k < EK_N; k++) {
		if (!json_object_get(e, kind_keys[k]))
			continue;
		if (kind >= 0)
			return jv_fail(v, p, "expected one event kind, got both \"%s\" and \"%s\"", kind_keys[kind],
			               kind_keys[k]);
		kind = k;
	}
	if (kind < 0)
		return jv_fail(v, p, "expected an event kind besides \"at\" (one of: approve, rack_cap_kw, inlet_c, "
		               "cooling_r_factor, fail, node_join, node_leave, node_drain)");
	return kind;
}

int power_events_load(struct jv *v, const struct cluster *cl, const json_t *root,
                      struct env_event **out, int32_t *n)
{
	*out = NULL;
	*n = 0;
	if (v->failed)
		return -1;
	json_t *ev = jv_array(v, root, "$", "events", false), *e;
	if (v->failed)
		return -1;
	size_t total = json_array_size(ev), i;
	if (total == 0)
		return 0;
	if (total > POWER_EVENTS_MAX)
		return jv_fail(v, "$.events", "too many events (at most %d)", POWER_EVENTS_MAX);
	struct tmp_event *tmp = calloc(total, sizeof *tmp);
	if (!tmp)
		return jv_fail(v, "$.events", "out of memory");
	bool powered = json_object_get(root, "power") != NULL;
	size_t ne = 0;
	json_array_foreach(ev, i, e) {
		char p[64];
		jv_idxpath(p, sizeof p, "$.events", i);
		int kind = event_kind(v, e, p);
		if (kind < 0)
			goto fail;
		if (kind == EK_APPROVE || kind == EK_FAIL || kind == EK_JOIN || kind == EK_LEAVE || kind == EK_DRAIN)
			continue;   /* config/orgcfg.c or config/faultcfg.c reads it */
		if (!powered) {
			jv_fail(v, p, "a \"%s\" event needs the top-level \"power\" block (the power model is off "
			        "without it)", kind_keys[kind]);
			goto fail;
		}
		if (load_event(v, cl, e, p, kind, &tmp[ne].e))
			goto fail;
		tmp[ne].idx = i;
		ne++;
	}
	if (ne == 0) {
		free(tmp);
		return 0;
	}
	qsort(tmp, ne, sizeof *tmp, cmp_event);
	if (!(*out = malloc(ne * sizeof **out))) {
		jv_fail(v, "$.events", "out of memory");
		goto fail;
	}
	for (size_t k = 0; k < ne; k++)
		(*out)[k] = tmp[k].e;
	*n = (int32_t)ne;
	free(tmp);
	return 0;
fail:
	free(tmp);
	return -1;
}
