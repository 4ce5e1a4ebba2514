/* billcfg — the scenario's "billing" block and its stored form. See
 * billcfg.h; the format is in docs/billing.md. */
#include "config/billcfg.h"
#include "config/migcfg.h"
#include "sim/mig.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRICE_MAX 1e9
#define WEIGHT_MAX 1e6
#define SHARE_MAX 1e3
#define BASELINE_MAX 1e15

static const char *const block_keys[] = { "currency", "period", "prices", "weights", "plans", NULL };
/* The stored form adds the org's tenants and the MIG table of its cards. */
static const char *const stored_keys[] = { "currency", "period", "prices", "weights", "plans",
	"tenants", "mig_slices", NULL };
static const char *const price_keys[] = { "gpu_hour", "mig_hour", "share", "core_hour",
	"mem_gib_hour", "storage_gib_month", "bandwidth_gbps_month", "energy", NULL };
static const char *const plan_keys[] = { "tenant", "plan", "commit", "baseline", "overage", NULL };
static const char *const stored_plan_keys[] = { "tenant", "plan", "commit", "baseline", "overage",
	"tenant_index", NULL };
static const char *const tenant_keys[] = { "name", "projects", NULL };

/* What one parse knows besides the JSON. */
struct bctx {
	struct jv *v;
	bool stored;                 /* the normalised text, not a scenario */
	const struct cluster *cl;    /* scenario only */
	const struct org *org;       /* scenario only */
};

/* o.key, when present, must be one of the NULL-terminated words; *out is
 * its index. */
static int load_word(struct jv *v, const json_t *o, const char *path, const char *key,
                     const char *const *words, int *out)
{
	json_t *x = json_object_get(o, key);
	if (!x || v->failed)
		return v->failed ? -1 : 0;
	for (int i = 0; words[i] && json_is_string(x); i++)
		if (strcmp(words[i], json_string_value(x)) == 0) {
			*out = i;
			return 0;
		}
	char all[160] = "", p[256], got[80];
	size_t off = 0;
	for (int i = 0; words[i] && off < sizeof all; i++)
		off += (size_t)snprintf(all + off, sizeof all - off, "%s\"%s\"", i ? " or " : "", words[i]);
	if (json_is_string(x))
		snprintf(got, sizeof got, "\"%.60s\"", json_string_value(x));
	else
		snprintf(got, sizeof got, "%s", jv_type(x));
	jv_subpath(p, sizeof p, path, key);
	return jv_fail(v, p, "expected %s, got %s", all, got);
}

static void catalog_names(const struct catalog *cat, char *out, size_t len)
{
	size_t off = 0;
	out[0] = '\0';
	for (int i = 0; i < cat->ngpus && off < len; i++)
		off += (size_t)snprintf(out + off, len - off, "%s%s", i ? ", " : "", cat->gpus[i].name);
}

static int unknown_model(struct bctx *b, const char *path, const char *name)
{
	char known[1024];
	catalog_names(&b->cl->cat, known, sizeof known);
	return jv_fail(b->v, path, "unknown GPU model \"%s\" (the catalog has: %s)", name, known);
}

/* "3g.40gb", "1g.10gb+me": compute slices, 'g.', memory, 'gb'. */
static bool mig_name_ok(const char *s)
{
	if (s[0] < '1' || s[0] > '7' || s[1] != 'g' || s[2] != '.' || !isdigit((unsigned char)s[3]))
		return false;
	const char *p = s + 3;
	while (isdigit((unsigned char)*p))
		p++;
	return strcmp(p, "gb") == 0 || strcmp(p, "gb+me") == 0;
}

/* An object of name: number in [0, max] into a fresh array. kind 'g': GPU
 * models ("*" allowed), 'm': MIG profiles, 's': compute slices of a MIG
 * card ("CARD") or profile ("CARD/PROFILE"), whole numbers. */
static int load_rates(struct bctx *b, const json_t *o, const char *path, const char *key, int kind,
                      struct bill_rate **out, int32_t *n)
{
	char p[256], q[320];
	json_t *x = json_object_get(o, key), *e;
	if (!x)
		return 0;
	jv_subpath(p, sizeof p, path, key);
	const char *what = kind == 'g' ? "GPU model" : kind == 'm' ? "MIG profile" : "MIG card or CARD/PROFILE";
	if (!json_is_object(x))
		return jv_fail(b->v, p, "expected an object of %s: %s, got %s", what,
		               kind == 's' ? "compute slices" : "price per hour", jv_type(x));
	size_t cnt = json_object_size(x);
	if (cnt > BILL_PRICES_MAX)
		return jv_fail(b->v, p, "too many entries (at most %d)", BILL_PRICES_MAX);
	if (cnt && !(*out = calloc(cnt, sizeof **out)))
		return jv_fail(b->v, p, "out of memory");
	const char *k;
	json_object_foreach(x, k, e) {
		snprintf(q, sizeof q, "%s.%s", p, k);
		if (strlen(k) >= BILL_NAME_MAX || !k[0])
			return jv_fail(b->v, q, "expected a %s name of 1 to %d characters", what, BILL_NAME_MAX - 1);
		if (kind == 'g' && !b->stored && strcmp(k, "*") != 0 && catalog_find_gpu(&b->cl->cat, k) < 0)
			return unknown_model(b, q, k);
		if (kind == 'm' && !mig_name_ok(k))
			return jv_fail(b->v, q, "expected a MIG profile name such as \"1g.10gb\" or \"3g.40gb\" "
			               "(see `hetlab catalog --mig`), got \"%s\"", k);
		if (kind == 's' && (!json_is_integer(e) || json_integer_value(e) < 1 || json_integer_value(e) > MIG_SLICES_MAX))
			return jv_fail(b->v, q, "expected a whole number of compute slices in [1, %d]", MIG_SLICES_MAX);
		if (!json_is_number(e))
			return jv_fail(b->v, q, "expected a price per hour in [0, %g], got %s", PRICE_MAX, jv_type(e));
		double d = json_number_value(e);
		if (!(d >= 0 && d <= PRICE_MAX))
			return jv_fail(b->v, q, "expected a price per hour in [0, %g], got %g", PRICE_MAX, d);
		snprintf((*out)[*n].name, BILL_NAME_MAX, "%s", k);
		(*out)[(*n)++].value = d;
	}
	return 0;
}

static int load_prices(struct bctx *b, const json_t *x, const char *path, struct bill_config *c)
{
	static const char *const energy_words[] = { "pass-through", "included", NULL };
	char p[256];
	jv_subpath(p, sizeof p, path, "prices");
	if (!x)
		return jv_fail(b->v, p, "missing (expected an object of gpu_hour, mig_hour, share, core_hour, "
		               "mem_gib_hour, storage_gib_month, bandwidth_gbps_month, energy)");
	int energy = (int)c->energy;
	if (jv_object(b->v, x, p, price_keys) ||
	    load_rates(b, x, p, "gpu_hour", 'g', &c->gpu_hour, &c->ngpu_hour) ||
	    load_rates(b, x, p, "mig_hour", 'm', &c->mig_hour, &c->nmig_hour) ||
	    jv_num(b->v, x, p, "share", false, 0, SHARE_MAX, &c->share) ||
	    jv_num(b->v, x, p, "core_hour", false, 0, PRICE_MAX, &c->core_hour) ||
	    jv_num(b->v, x, p, "mem_gib_hour", false, 0, PRICE_MAX, &c->mem_gib_hour) ||
	    jv_num(b->v, x, p, "storage_gib_month", false, 0, PRICE_MAX, &c->storage_gib_month) ||
	    jv_num(b->v, x, p, "bandwidth_gbps_month", false, 0, PRICE_MAX, &c->bandwidth_gbps_month) ||
	    load_word(b->v, x, p, "energy", energy_words, &energy))
		return -1;
	c->energy = (enum bill_energy)energy;
	return 0;
}

static int load_weights(struct bctx *b, const json_t *x, const char *path, struct bill_config *c)
{
	static const char *const names[] = { "gpu", "core", "mem", "storage", "bandwidth", NULL };
	double *slot[] = { &c->w_gpu, &c->w_core, &c->w_mem, &c->w_storage, &c->w_bandwidth };
	char p[256], q[320];
	if (!x)
		return 0;
	jv_subpath(p, sizeof p, path, "weights");
	if (!json_is_object(x))
		return jv_fail(b->v, p, "expected an object of gpu, gpu:MODEL, core, mem, storage, bandwidth: "
		               "weight, got %s", jv_type(x));
	size_t cnt = json_object_size(x);
	if (cnt > BILL_PRICES_MAX)
		return jv_fail(b->v, p, "too many entries (at most %d)", BILL_PRICES_MAX);
	if (cnt && !(c->w_model = calloc(cnt, sizeof *c->w_model)))
		return jv_fail(b->v, p, "out of memory");
	const char *k;
	json_t *e;
	json_object_foreach((json_t *)x, k, e) {
		snprintf(q, sizeof q, "%s.%s", p, k);
		int idx = -1;
		for (int i = 0; names[i] && idx < 0; i++)
			if (strcmp(names[i], k) == 0)
				idx = i;
		bool model = strncmp(k, "gpu:", 4) == 0;
		if (idx < 0 && !model)
			return jv_fail(b->v, q, "unknown weight (expected gpu, gpu:MODEL, core, mem, storage or bandwidth)");
		if (model && (!k[4] || strlen(k + 4) >= BILL_NAME_MAX))
			return jv_fail(b->v, q, "expected \"gpu:\" and a GPU model name");
		if (model && !b->stored && catalog_find_gpu(&b->cl->cat, k + 4) < 0)
			return unknown_model(b, q, k + 4);
		if (!json_is_number(e))
			return jv_fail(b->v, q, "expected a weight in [0, %g], got %s", WEIGHT_MAX, jv_type(e));
		double d = json_number_value(e);
		if (!(d >= 0 && d <= WEIGHT_MAX))
			return jv_fail(b->v, q, "expected a weight in [0, %g], got %g", WEIGHT_MAX, d);
		if (idx >= 0) {
			*slot[idx] = d;
		} else {
			snprintf(c->w_model[c->nw_model].name, BILL_NAME_MAX, "%s", k + 4);
			c->w_model[c->nw_model++].value = d;
		}
	}
	return 0;
}

/* A scenario plan's tenant: an org tenant's name, or "t<index>" for a
 * tenant beyond the org's list. -1 when it is neither. */
static int64_t tenant_of(const struct org *o, const char *name)
{
	for (int32_t k = 0; k < o->nt; k++)
		if (strcmp(o->t[k].name, name) == 0)
			return k;
	if (name[0] != 't' || !isdigit((unsigned char)name[1]) || (name[1] == '0' && name[2]))
		return -1;
	char *end;
	long long n = strtoll(name + 1, &end, 10);
	if (*end || n < o->nt || n > INT32_MAX)
		return -1;
	return n;
}

static int unknown_tenant(struct bctx *b, const char *path, const char *name)
{
	const struct org *o = b->org;
	if (o->nt == 0)
		return jv_fail(b->v, path, "unknown tenant \"%s\" (there is no $.org.tenants: tenants are "
		               "named t<index>, as t0, t1, ...)", name);
	char known[512] = "";
	size_t off = 0;
	for (int32_t k = 0; k < o->nt && off < sizeof known; k++)
		off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", k ? ", " : "", o->t[k].name);
	return jv_fail(b->v, path, "unknown tenant \"%s\" ($.org.tenants has: %s; tenants beyond the "
	               "list are named t<index>, from t%d)", name, known, (int)o->nt);
}

static int load_plan(struct bctx *b, const json_t *x, const char *path, struct bill_config *c)
{
	static const char *const kinds[] = { "elastic", "reserved", NULL };
	static const char *const commits[] = { "monthly", "yearly", NULL };
	static const char *const overages[] = { "elastic", "refuse", NULL };
	struct bill_plan *pl = &c->plans[c->nplans];
	char p[320];
	memset(pl, 0, sizeof *pl);
	int kind = -1, commit = BILL_COMMIT_MONTHLY, overage = BILL_OVERAGE_ELASTIC;
	long long idx = -1;
	if (jv_object(b->v, x, path, b->stored ? stored_plan_keys : plan_keys) ||
	    jv_str(b->v, x, path, "tenant", true, pl->tenant, sizeof pl->tenant) ||
	    load_word(b->v, x, path, "plan", kinds, &kind) ||
	    load_word(b->v, x, path, "commit", commits, &commit) ||
	    jv_num(b->v, x, path, "baseline", false, 0, BASELINE_MAX, &pl->baseline) ||
	    load_word(b->v, x, path, "overage", overages, &overage) ||
	    (b->stored && jv_int(b->v, x, path, "tenant_index", true, -1, INT32_MAX, &idx)))
		return -1;
	if (kind < 0) {
		jv_subpath(p, sizeof p, path, "plan");
		return jv_fail(b->v, p, "missing (expected \"reserved\" or \"elastic\")");
	}
	if (kind == BILL_PLAN_RESERVED && !json_object_get(x, "baseline")) {
		jv_subpath(p, sizeof p, path, "baseline");
		return jv_fail(b->v, p, "missing (a reserved plan needs its baseline: currency per period)");
	}
	if (kind == BILL_PLAN_ELASTIC) {
		static const char *const reserved_only[] = { "commit", "baseline", "overage", NULL };
		for (int i = 0; reserved_only[i]; i++)
			if (json_object_get(x, reserved_only[i])) {
				jv_subpath(p, sizeof p, path, reserved_only[i]);
				return jv_fail(b->v, p, "only a reserved plan has a %s", reserved_only[i]);
			}
	}
	if (!b->stored) {
		jv_subpath(p, sizeof p, path, "tenant");
		if ((idx = tenant_of(b->org, pl->tenant)) < 0)
			return unknown_tenant(b, p, pl->tenant);
	}
	for (int32_t k = 0; k < c->nplans; k++)
		if (c->plans[k].tenant_index == idx)
			return jv_fail(b->v, path, "tenant \"%s\" has two plans (also at index %d)", pl->tenant, (int)k);
	pl->tenant_index = idx;
	pl->kind = (enum bill_plan_kind)kind;
	pl->commit = (enum bill_commit)commit;
	pl->overage = (enum bill_overage)overage;
	c->nplans++;
	return 0;
}

static int load_plans(struct bctx *b, const json_t *x, const char *path, struct bill_config *c)
{
	char p[256], q[320];
	jv_subpath(p, sizeof p, path, "plans");
	json_t *arr = jv_array(b->v, x, path, "plans", false), *e;
	if (b->v->failed)
		return -1;
	size_t n = json_array_size(arr), i;
	if (n > BILL_PLANS_MAX)
		return jv_fail(b->v, p, "too many plans (at most %d)", BILL_PLANS_MAX);
	if (n && !(c->plans = calloc(n, sizeof *c->plans)))
		return jv_fail(b->v, p, "out of memory");
	json_array_foreach(arr, i, e) {
		jv_idxpath(q, sizeof q, p, i);
		if (load_plan(b, e, q, c))
			return -1;
	}
	return 0;
}

/* Appends a tenant (and its projects) to c->tenant. */
static int add_tenant(struct bill_config *c, const char *name, int32_t nprojects)
{
	struct bill_tenant *nt = realloc(c->tenant, (size_t)(c->ntenants + 1) * sizeof *nt);
	if (!nt)
		return -1;
	c->tenant = nt;
	if (nprojects > 0) {
		char (*np)[BILL_NAME_MAX] = realloc(c->project, (size_t)(c->nprojects + nprojects) * sizeof *np);
		if (!np)
			return -1;
		c->project = np;
	}
	struct bill_tenant *t = &c->tenant[c->ntenants++];
	snprintf(t->name, sizeof t->name, "%s", name);
	t->first_project = c->nprojects;
	t->nprojects = nprojects;
	return 0;
}

/* The stored form's "tenants". */
static int load_tenants(struct bctx *b, const json_t *x, struct bill_config *c)
{
	json_t *arr = jv_array(b->v, x, "$", "tenants", false), *e, *pe;
	if (b->v->failed)
		return -1;
	size_t i, k;
	json_array_foreach(arr, i, e) {
		char p[64], q[96], name[BILL_NAME_MAX];
		jv_idxpath(p, sizeof p, "$.tenants", i);
		if (jv_object(b->v, e, p, tenant_keys) || jv_str(b->v, e, p, "name", true, name, sizeof name))
			return -1;
		json_t *ps = jv_array(b->v, e, p, "projects", false);
		if (b->v->failed)
			return -1;
		if (add_tenant(c, name, (int32_t)json_array_size(ps)))
			return jv_fail(b->v, p, "out of memory");
		json_array_foreach(ps, k, pe) {
			snprintf(q, sizeof q, "%s.projects[%zu]", p, k);
			if (!json_is_string(pe) || strlen(json_string_value(pe)) >= BILL_NAME_MAX)
				return jv_fail(b->v, q, "expected a project name (a string of at most %d characters)",
				               BILL_NAME_MAX - 1);
			snprintf(c->project[c->nprojects++], BILL_NAME_MAX, "%s", json_string_value(pe));
		}
	}
	return 0;
}

static int load_block(struct bctx *b, const json_t *x, const char *path, struct bill_config *c)
{
	static const char *const periods[] = { "day", "week", "month", NULL };
	char p[256];
	int period = (int)c->period;
	if (jv_object(b->v, x, path, b->stored ? stored_keys : block_keys) ||
	    jv_str(b->v, x, path, "currency", false, c->currency, sizeof c->currency) ||
	    load_word(b->v, x, path, "period", periods, &period) ||
	    load_prices(b, json_object_get(x, "prices"), path, c) ||
	    load_weights(b, json_object_get(x, "weights"), path, c) ||
	    load_plans(b, x, path, c) ||
	    (b->stored && load_tenants(b, x, c)) ||
	    (b->stored && load_rates(b, x, path, "mig_slices", 's', &c->mig_slices, &c->nmig_slices)))
		return -1;
	if (!c->currency[0]) {
		jv_subpath(p, sizeof p, path, "currency");
		return jv_fail(b->v, p, "expected a non-empty string");
	}
	c->period = (enum bill_period)period;
	return 0;
}

/* The compute slices of every card of g and of each of its profiles, as
 * bill_config.mig_slices has them (names too long for it are left out: a
 * job on such a card is refused by name). -1 on ENOMEM. */
static int mig_fill(struct bill_config *c, const struct mig_geometry *g)
{
	int32_t n = 0;
	for (int32_t i = 0; i < g->ncards; i++)
		n += 1 + g->cards[i].nprofiles;
	free(c->mig_slices);
	c->nmig_slices = 0;
	if (!(c->mig_slices = calloc((size_t)n + 1, sizeof *c->mig_slices)))
		return -1;
	for (int32_t i = 0; i < g->ncards; i++) {
		const struct mig_card *k = &g->cards[i];
		struct bill_rate *r = &c->mig_slices[c->nmig_slices];
		if (snprintf(r->name, BILL_NAME_MAX, "%s", k->gpu) >= BILL_NAME_MAX)
			continue;
		r->value = k->compute_slices;
		c->nmig_slices++;
		for (int32_t p = 0; p < k->nprofiles; p++) {
			r = &c->mig_slices[c->nmig_slices];
			if (snprintf(r->name, BILL_NAME_MAX, "%s/%s", k->gpu, k->profiles[p].name) >= BILL_NAME_MAX)
				continue;
			r->value = k->profiles[p].compute_slices;
			c->nmig_slices++;
		}
	}
	return 0;
}

/* ---- the normalised text --------------------------------------------------- */

static json_t *rates_json(const struct bill_rate *r, int32_t n)
{
	json_t *o = json_object();
	for (int32_t i = 0; i < n; i++)
		json_object_set_new(o, r[i].name, json_real(r[i].value));
	return o;
}

static json_t *config_json(const struct bill_config *c)
{
	static const char *const periods[] = { "day", "week", "month" };
	json_t *root = json_object(), *pr = json_object(), *w = json_object(), *plans = json_array(),
	       *ts = json_array();
	json_object_set_new(root, "currency", json_string(c->currency));
	json_object_set_new(root, "period", json_string(periods[c->period]));
	json_object_set_new(pr, "gpu_hour", rates_json(c->gpu_hour, c->ngpu_hour));
	json_object_set_new(pr, "mig_hour", rates_json(c->mig_hour, c->nmig_hour));
	json_object_set_new(pr, "share", json_real(c->share));
	json_object_set_new(pr, "core_hour", json_real(c->core_hour));
	json_object_set_new(pr, "mem_gib_hour", json_real(c->mem_gib_hour));
	json_object_set_new(pr, "storage_gib_month", json_real(c->storage_gib_month));
	json_object_set_new(pr, "bandwidth_gbps_month", json_real(c->bandwidth_gbps_month));
	json_object_set_new(pr, "energy", json_string(c->energy == BILL_ENERGY_INCLUDED ? "included" : "pass-through"));
	json_object_set_new(root, "prices", pr);
	json_object_set_new(w, "gpu", json_real(c->w_gpu));
	for (int32_t i = 0; i < c->nw_model; i++) {
		char k[BILL_NAME_MAX + 8];
		snprintf(k, sizeof k, "gpu:%s", c->w_model[i].name);
		json_object_set_new(w, k, json_real(c->w_model[i].value));
	}
	json_object_set_new(w, "core", json_real(c->w_core));
	json_object_set_new(w, "mem", json_real(c->w_mem));
	json_object_set_new(w, "storage", json_real(c->w_storage));
	json_object_set_new(w, "bandwidth", json_real(c->w_bandwidth));
	json_object_set_new(root, "weights", w);
	for (int32_t i = 0; i < c->nplans; i++) {
		const struct bill_plan *pl = &c->plans[i];
		json_t *o = json_object();
		json_object_set_new(o, "tenant", json_string(pl->tenant));
		json_object_set_new(o, "tenant_index", json_integer(pl->tenant_index));
		json_object_set_new(o, "plan", json_string(pl->kind == BILL_PLAN_RESERVED ? "reserved" : "elastic"));
		if (pl->kind == BILL_PLAN_RESERVED) {
			json_object_set_new(o, "commit", json_string(pl->commit == BILL_COMMIT_YEARLY ? "yearly" : "monthly"));
			json_object_set_new(o, "baseline", json_real(pl->baseline));
			json_object_set_new(o, "overage", json_string(pl->overage == BILL_OVERAGE_REFUSE ? "refuse" : "elastic"));
		}
		json_array_append_new(plans, o);
	}
	json_object_set_new(root, "plans", plans);
	for (int32_t i = 0; i < c->ntenants; i++) {
		json_t *o = json_object(), *ps = json_array();
		json_object_set_new(o, "name", json_string(c->tenant[i].name));
		for (int32_t k = 0; k < c->tenant[i].nprojects; k++)
			json_array_append_new(ps, json_string(c->project[c->tenant[i].first_project + k]));
		json_object_set_new(o, "projects", ps);
		json_array_append_new(ts, o);
	}
	json_object_set_new(root, "tenants", ts);
	if (c->nmig_slices > 0) {
		json_t *m = json_object();
		for (int32_t i = 0; i < c->nmig_slices; i++)
			json_object_set_new(m, c->mig_slices[i].name, json_integer((json_int_t)c->mig_slices[i].value));
		json_object_set_new(root, "mig_slices", m);
	}
	return root;
}

/* Every GPU model of the cluster's node types has a price, or there is "*". */
static int check_coverage(struct bctx *b, const struct bill_config *c)
{
	for (int32_t i = 0; i < c->ngpu_hour; i++)
		if (strcmp(c->gpu_hour[i].name, "*") == 0)
			return 0;
	const struct cluster *cl = b->cl;
	for (int t = 0; t < cl->ntypes; t++) {
		int m = cl->types[t].gpu_model;
		if (m < 0 || m >= cl->cat.ngpus)
			continue;
		bool priced = false;
		for (int32_t i = 0; i < c->ngpu_hour && !priced; i++)
			priced = strcmp(c->gpu_hour[i].name, cl->cat.gpus[m].name) == 0;
		if (!priced)
			return jv_fail(b->v, "$.billing.prices.gpu_hour", "no price for \"%s\", the GPU of node type "
			               "\"%s\" (add it, or \"*\" for every model without its own price)",
			               cl->cat.gpus[m].name, cl->types[t].name);
	}
	return 0;
}

int bill_load(struct jv *v, const struct cluster *cl, const struct org *o, const json_t *root,
              char **text)
{
	*text = NULL;
	if (v->failed)
		return -1;
	json_t *x = json_object_get(root, "billing");
	if (!x)
		return 0;
	struct bctx b = { .v = v, .stored = false, .cl = cl, .org = o };
	struct bill_config c;
	bill_config_init(&c);
	int rc = -1;
	if (!json_is_object(x)) {
		jv_fail(v, "$.billing", "expected an object (currency, period, prices, weights, plans), got %s",
		        jv_type(x));
		goto out;
	}
	if (load_block(&b, x, "$.billing", &c) || check_coverage(&b, &c))
		goto out;
	/* The MIG table of the cluster's cards, for a MIG job's share of its card. */
	if (cl->mig && mig_fill(&c, cl->mig)) {
		jv_fail(v, "$.billing", "out of memory");
		goto out;
	}
	/* The org's tenants and projects, for names on the invoices. */
	for (int32_t k = 0; k < o->nt; k++) {
		if (add_tenant(&c, o->t[k].name, o->t[k].nprojects)) {
			jv_fail(v, "$.billing", "out of memory");
			goto out;
		}
		for (int32_t i = 0; i < o->t[k].nprojects; i++)
			snprintf(c.project[c.nprojects++], BILL_NAME_MAX, "%s", o->p[o->t[k].first_project + i].name);
	}
	json_t *j = config_json(&c);
	*text = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) : NULL;
	json_decref(j);
	if (!*text) {
		jv_fail(v, "$.billing", "out of memory");
		goto out;
	}
	rc = 0;
out:
	bill_config_fini(&c);
	return rc;
}

int bill_config_parse(const char *text, const char *what, struct bill_config *cfg, char *err,
                      size_t errlen)
{
	bill_config_init(cfg);
	json_error_t je;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		snprintf(err, errlen, "%s:%d:%d: %s", what, je.line, je.column, je.text);
		return -1;
	}
	struct jv v = { .file = what, .err = err, .errlen = errlen };
	struct bctx b = { .v = &v, .stored = true };
	int rc = load_block(&b, root, "$", cfg);
	json_decref(root);
	if (rc == 0 && cfg->nmig_slices == 0) {
		/* Stored without one (no MIG card in its cluster, or an older
		 * results file): the built-in catalog's MIG table. */
		struct mig_geometry *g = malloc(sizeof *g);
		if (!g || (rc = mig_load_builtin(g, err, errlen)) == 0) {
			rc = g && mig_fill(cfg, g) == 0 ? 0 : -1;
			if (rc)
				snprintf(err, errlen, "%s: out of memory", what);
		}
		free(g);
	}
	if (rc) {
		bill_config_fini(cfg);
		bill_config_init(cfg);
	}
	return rc;
}
