/* orgcfg — the scenario's "org" and "events" keys. See orgcfg.h. */
#include "config/orgcfg.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUOTA_WINDOW_DAYS 30.0
#define QUOTA_MAX 1e12
#define SHARES_MAX 1e9
#define WEIGHT_MAX 1e6
#define DAYS_MAX 1e5

static const char *const org_keys[] = { "halflife_days", "gpu_weights", "core_weight", "tenants", NULL };
static const char *const tenant_keys[] = { "name", "shares", "auto_approve", "quota", "projects", NULL };
static const char *const project_keys[] = { "name", "shares", "quota", NULL };
static const char *const quota_keys[] = { "gpu_hours", "core_hours", "storage_gib", "bw_mbps",
	"window_days", NULL };
/* "at" and one event kind; other kinds are added here. */
static const char *const event_keys[] = { "at", "approve", NULL };
/* Kinds other loaders read, skipped here: environment events
 * (config/powercfg.c) and faults, joins and leaves (config/faultcfg.c). */
static const char *const other_kinds[] = { "rack_cap_kw", "inlet_c", "cooling_r_factor", "fail", "node_join",
	"node_leave", "node_drain", NULL };
static const char *const event_kinds = "approve, rack_cap_kw, inlet_c, cooling_r_factor";

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

/* A name: a non-empty string of at most ORG_NAME_MAX - 1 bytes. */
static int load_name(struct jv *v, const json_t *o, const char *path, char *out)
{
	char p[256];
	if (jv_str(v, o, path, "name", true, out, ORG_NAME_MAX))
		return -1;
	if (!out[0]) {
		jv_subpath(p, sizeof p, path, "name");
		return jv_fail(v, p, "expected a non-empty string");
	}
	return 0;
}

static int load_quota(struct jv *v, const json_t *o, const char *path, struct quota *q)
{
	double days = QUOTA_WINDOW_DAYS;
	memset(q, 0, sizeof *q);
	json_t *x = json_object_get(o, "quota");
	char p[256];
	if (!x) {
		q->window_us = simtime_from_s(days * 86400);
		return 0;
	}
	jv_subpath(p, sizeof p, path, "quota");
	if (!json_is_object(x))
		return jv_fail(v, p, "expected an object of gpu_hours, core_hours, storage_gib, bw_mbps, "
		               "window_days, got %s", jv_type(x));
	if (jv_object(v, x, p, quota_keys) ||
	    jv_num(v, x, p, "gpu_hours", false, 0, QUOTA_MAX, &q->gpu_hours) ||
	    jv_num(v, x, p, "core_hours", false, 0, QUOTA_MAX, &q->core_hours) ||
	    jv_num(v, x, p, "storage_gib", false, 0, QUOTA_MAX, &q->storage_gib) ||
	    jv_num(v, x, p, "bw_mbps", false, 0, QUOTA_MAX, &q->bw_mbps) ||
	    pos_num(v, x, p, "window_days", DAYS_MAX, &days))
		return -1;
	q->window_us = simtime_from_s(days * 86400);
	return 0;
}

static int load_gpu_weights(struct jv *v, const struct catalog *cat, const json_t *x, struct org *o)
{
	const char *p = "$.org.gpu_weights";
	if (!json_is_object(x))
		return jv_fail(v, p, "expected an object of catalog GPU model: billing weight, got %s",
		               jv_type(x));
	if (cat->ngpus > 0 && !(o->gpu_weight = malloc((size_t)cat->ngpus * sizeof *o->gpu_weight)))
		return jv_fail(v, p, "out of memory");
	o->ngpu_weight = cat->ngpus;
	for (int32_t i = 0; i < cat->ngpus; i++)
		o->gpu_weight[i] = 1.0;
	const char *k;
	json_t *e;
	json_object_foreach((json_t *)x, k, e) {
		char q[256];
		snprintf(q, sizeof q, "%s.%s", p, k);
		int m = catalog_find_gpu(cat, k);
		if (m < 0) {
			char known[1024] = "";
			size_t off = 0;
			for (int i = 0; i < cat->ngpus && off < sizeof known; i++)
				off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", i ? ", " : "",
				                        cat->gpus[i].name);
			return jv_fail(v, q, "unknown GPU model \"%s\" (the catalog has: %s)", k, known);
		}
		if (!json_is_number(e))
			return jv_fail(v, q, "expected a number in (0, %g], got %s", WEIGHT_MAX, jv_type(e));
		double w = json_number_value(e);
		if (!(w > 0 && w <= WEIGHT_MAX))
			return jv_fail(v, q, "expected a number in (0, %g], got %g", WEIGHT_MAX, w);
		o->gpu_weight[m] = w;
	}
	return 0;
}

static int load_project(struct jv *v, const json_t *x, const char *path, const struct org *o,
                        const struct org_tenant *t, struct org_project *pr)
{
	memset(pr, 0, sizeof *pr);
	pr->shares = 1;
	if (jv_object(v, x, path, project_keys) || load_name(v, x, path, pr->name) ||
	    pos_num(v, x, path, "shares", SHARES_MAX, &pr->shares) || load_quota(v, x, path, &pr->quota))
		return -1;
	for (int32_t k = t->first_project; k < o->np; k++)
		if (strcmp(o->p[k].name, pr->name) == 0)
			return jv_fail(v, path, "project \"%s\" of tenant \"%s\" defined twice", pr->name, t->name);
	return 0;
}

static int load_tenant(struct jv *v, const json_t *x, const char *path, struct org *o,
                       int32_t *cap_p)
{
	struct org_tenant *t = &o->t[o->nt];
	memset(t, 0, sizeof *t);
	t->shares = 1;
	if (jv_object(v, x, path, tenant_keys) || load_name(v, x, path, t->name) ||
	    pos_num(v, x, path, "shares", SHARES_MAX, &t->shares) ||
	    jv_bool(v, x, path, "auto_approve", &t->auto_approve) || load_quota(v, x, path, &t->quota))
		return -1;
	for (int32_t k = 0; k < o->nt; k++)
		if (strcmp(o->t[k].name, t->name) == 0)
			return jv_fail(v, path, "tenant \"%s\" defined twice (also at index %d)", t->name, (int)k);
	t->first_project = o->np;
	json_t *ps = jv_array(v, x, path, "projects", false), *e;
	if (v->failed)
		return -1;
	char pp[256];
	jv_subpath(pp, sizeof pp, path, "projects");
	if (json_array_size(ps) > ORG_PROJECTS_MAX)
		return jv_fail(v, pp, "too many projects (at most %d)", ORG_PROJECTS_MAX);
	size_t i;
	json_array_foreach(ps, i, e) {
		char q[300];
		jv_idxpath(q, sizeof q, pp, i);
		if (o->np == *cap_p) {
			int32_t cap = *cap_p ? 2 * *cap_p : 16;
			struct org_project *np = realloc(o->p, (size_t)cap * sizeof *np);
			if (!np)
				return jv_fail(v, q, "out of memory");
			o->p = np;
			*cap_p = cap;
		}
		if (load_project(v, e, q, o, t, &o->p[o->np]))
			return -1;
		o->np++;
	}
	t->nprojects = o->np - t->first_project;
	o->nt++;
	return 0;
}

static int load_org(struct jv *v, const struct catalog *cat, const json_t *x, struct org *o)
{
	const char *p = "$.org";
	double days = o->halflife_s / 86400;
	if (!json_is_object(x))
		return jv_fail(v, p, "expected an object (halflife_days, gpu_weights, core_weight, tenants), got %s",
		               jv_type(x));
	if (jv_object(v, x, p, org_keys) || pos_num(v, x, p, "halflife_days", DAYS_MAX, &days) ||
	    jv_num(v, x, p, "core_weight", false, 0, WEIGHT_MAX, &o->core_weight))
		return -1;
	o->halflife_s = days * 86400;
	json_t *gw = json_object_get(x, "gpu_weights");
	if (gw && load_gpu_weights(v, cat, gw, o))
		return -1;
	json_t *ts = jv_array(v, x, p, "tenants", false), *e;
	if (v->failed)
		return -1;
	size_t n = json_array_size(ts), i;
	if (n > ORG_TENANTS_MAX)
		return jv_fail(v, "$.org.tenants", "too many tenants (at most %d)", ORG_TENANTS_MAX);
	if (n && !(o->t = calloc(n, sizeof *o->t)))
		return jv_fail(v, "$.org.tenants", "out of memory");
	int32_t cap_p = 0;
	json_array_foreach(ts, i, e) {
		char q[64];
		jv_idxpath(q, sizeof q, "$.org.tenants", i);
		if (load_tenant(v, e, q, o, &cap_p))
			return -1;
	}
	return 0;
}

int org_parse_at(struct jv *v, const json_t *x, const char *path, simtime *out)
{
	static const char *const want = "expected a time: seconds (a number >= 0) or a string such as "
	                                "\"2d\", \"36h\", \"90m\", \"3600s\"";
	double sec;
	if (json_is_number(x)) {
		sec = json_number_value(x);
		if (!(sec >= 0 && sec <= DAYS_MAX * 86400))
			return jv_fail(v, path, "%s, got %g", want, sec);
	} else if (json_is_string(x)) {
		const char *s = json_string_value(x);
		char *end;
		double d = strtod(s, &end);
		double unit = 0;
		if (end != s && end[0] && !end[1]) {
			switch (end[0]) {
			case 'd': unit = 86400; break;
			case 'h': unit = 3600; break;
			case 'm': unit = 60; break;
			case 's': unit = 1; break;
			default: break;
			}
		}
		/* strtod also reads "inf", "nan" and hex: the range check refuses them. */
		if (!unit || !(d >= 0 && d * unit <= DAYS_MAX * 86400) || isspace((unsigned char)s[0]) || s[0] == '+')
			return jv_fail(v, path, "%s, got \"%s\"", want, s);
		sec = d * unit;
	} else {
		return jv_fail(v, path, "%s, got %s", want, jv_type(x));
	}
	*out = simtime_from_s(sec);
	return 0;
}

struct tmp_approval {
	struct org_approval a;
	size_t idx;
};

static int cmp_approval(const void *x, const void *y)
{
	const struct tmp_approval *a = x, *b = y;
	if (a->a.at_us != b->a.at_us)
		return a->a.at_us < b->a.at_us ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int load_events(struct jv *v, const json_t *root, struct org *o)
{
	json_t *ev = jv_array(v, root, "$", "events", false), *e;
	if (v->failed)
		return -1;
	size_t n = json_array_size(ev), i;
	if (n == 0)
		return 0;
	if (n > ORG_EVENTS_MAX)
		return jv_fail(v, "$.events", "too many events (at most %d)", ORG_EVENTS_MAX);
	struct tmp_approval *tmp = calloc(n, sizeof *tmp);
	if (!tmp)
		return jv_fail(v, "$.events", "out of memory");
	size_t na = 0;
	json_array_foreach(ev, i, e) {
		char p[64], q[96];
		jv_idxpath(p, sizeof p, "$.events", i);
		bool other = false;
		for (int k = 0; other_kinds[k] && !other; k++)
			other = json_object_get(e, other_kinds[k]) != NULL;   /* NULL for a non-object */
		if (other)
			continue;   /* another loader's event (config/powercfg.c, config/faultcfg.c) */
		if (jv_object(v, e, p, event_keys))
			goto fail;
		json_t *at = json_object_get(e, "at");
		if (!at) {
			jv_subpath(q, sizeof q, p, "at");
			jv_fail(v, q, "missing (expected a time: seconds, or a string such as \"2d\", \"36h\")");
			goto fail;
		}
		simtime at_us;
		jv_subpath(q, sizeof q, p, "at");
		if (org_parse_at(v, at, q, &at_us))
			goto fail;
		json_t *ap = json_object_get(e, "approve");
		if (!ap) {
			jv_fail(v, p, "expected an event kind besides \"at\" (one of: %s)", event_kinds);
			goto fail;
		}
		jv_subpath(q, sizeof q, p, "approve");
		if (!json_is_string(ap)) {
			jv_fail(v, q, "expected a tenant name (a string), got %s", jv_type(ap));
			goto fail;
		}
		const char *name = json_string_value(ap);
		int32_t t = -1;
		for (int32_t k = 0; k < o->nt && t < 0; k++)
			if (strcmp(o->t[k].name, name) == 0)
				t = k;
		if (t < 0) {
			char known[512] = "";
			size_t off = 0;
			for (int32_t k = 0; k < o->nt && off < sizeof known; k++)
				off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", k ? ", " : "", o->t[k].name);
			if (o->nt == 0)
				jv_fail(v, q, "unknown tenant \"%s\" ($.org.tenants lists none)", name);
			else
				jv_fail(v, q, "unknown tenant \"%s\" ($.org.tenants has: %s)", name, known);
			goto fail;
		}
		tmp[na].a = (struct org_approval){ .at_us = at_us, .tenant = t };
		tmp[na].idx = i;
		na++;
	}
	qsort(tmp, na, sizeof *tmp, cmp_approval);
	if (!(o->approve = malloc(na * sizeof *o->approve))) {
		jv_fail(v, "$.events", "out of memory");
		goto fail;
	}
	for (size_t k = 0; k < na; k++)
		o->approve[k] = tmp[k].a;
	o->napprove = (int32_t)na;
	free(tmp);
	return 0;
fail:
	free(tmp);
	return -1;
}

int org_load(struct jv *v, const struct catalog *cat, const json_t *root, struct org *o)
{
	org_init(o);
	if (v->failed)
		return -1;
	json_t *x = json_object_get(root, "org");
	if ((x && load_org(v, cat, x, o)) || load_events(v, root, o)) {
		org_fini(o);
		return -1;
	}
	return 0;
}
