/* plancfg — reading a plan file (see plancfg.h). */
#include "config/plancfg.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "analysis/compare.h"
#include "analysis/sweep.h"
#include "config/costcfg.h"
#include "config/jv.h"
#include "config/scenario.h"
#include "config/scnlabels.h"
#include "config/sweepcfg.h"

static const char *const plan_keys[] = { "description", "scenario", "seeds", "out", "vars",
	"fixed", "energy_price_per_kwh", "targets", "cost", "confident", NULL };
static const char *const var_keys[] = { "path", "min", "max", "cost", "owned", NULL };
static const char *const target_keys[] = { "metric", "max", "min", NULL };

/* Sets *text = doc with jpath = value (JSON text), replacing *text. */
static int apply(struct jv *v, const char *where, char **text, const char *jpath,
                 const char *value)
{
	char *next, label[512];
	snprintf(label, sizeof label, "%s: %s", v->file, where);
	if (sweep_apply(label, *text, jpath, value, &next, v->err, v->errlen) < 0) {
		v->failed = true;
		return -1;
	}
	free(*text);
	*text = next;
	return 0;
}

/* The integer at jpath ("$.racks[0].count") in the JSON text doc; 0 when
 * the path does not lead to one (an absent count: nothing owned). */
static long scenario_int_at(const char *doc, const char *jpath)
{
	json_t *root = json_loads(doc, 0, NULL), *cur = root;
	const char *p = jpath + 1;
	while (cur && *p) {
		if (*p == '.') {
			size_t n = strcspn(p + 1, ".[");
			char key[256];
			if (n == 0 || n >= sizeof key) {
				cur = NULL;
				break;
			}
			memcpy(key, p + 1, n);
			key[n] = '\0';
			cur = json_is_object(cur) ? json_object_get(cur, key) : NULL;
			p += 1 + n;
		} else if (*p == '[') {
			char *e;
			unsigned long idx = strtoul(p + 1, &e, 10);
			cur = *e == ']' && e != p + 1 && json_is_array(cur) ? json_array_get(cur, idx) : NULL;
			p = *e == ']' ? e + 1 : "";
		} else {
			cur = NULL;
		}
	}
	long v = 0;
	if (json_is_integer(cur) && json_integer_value(cur) > 0)
		v = (long)json_integer_value(cur);
	json_decref(root);
	return v;
}

/* Loads text as a scenario through a temporary file; its label values go
 * into L (the targets' labels are checked against them). */
static int check_scenario(struct jv *v, const char *where, const char *text,
                          struct metric_labels *L)
{
	const char *td = getenv("TMPDIR");
	char path[PATH_MAX], why[1024];
	snprintf(path, sizeof path, "%s/hetlab-plan-XXXXXX", td && *td ? td : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0)
		return jv_fail(v, where, "cannot create a temporary file: %s", strerror(errno));
	size_t n = strlen(text);
	int bad = write(fd, text, n) != (ssize_t)n;
	bad |= close(fd) != 0;
	struct scenario sc;
	int r = bad ? -1 : scenario_load(path, &sc, why, sizeof why);
	if (!bad && r == 0)
		scn_labels_add(L, &sc);
	if (!bad)
		scenario_free(&sc);
	unlink(path);
	if (bad)
		return jv_fail(v, where, "cannot write a temporary file");
	if (r < 0)
		return jv_fail(v, where, "the scenario rejects it: %s", why);
	return 0;
}

static int load_vars(struct jv *v, json_t *arr, struct plan_spec *s)
{
	if (!arr)
		return -1;
	if (json_array_size(arr) == 0)
		return jv_fail(v, "$.vars", "expected at least one variable");
	size_t n = json_array_size(arr);
	if (!(s->var = calloc(n, sizeof *s->var)))
		return jv_fail(v, "$.vars", "out of memory");
	for (size_t i = 0; i < n; i++) {
		char p[64], path[512];
		json_t *o = json_array_get(arr, i);
		long long mn = 0, mx = 0, owned = -1;
		double cost = 0;
		jv_idxpath(p, sizeof p, "$.vars", i);
		if (jv_object(v, o, p, var_keys) || jv_str(v, o, p, "path", true, path, sizeof path) ||
		    jv_int(v, o, p, "min", true, 0, 1000000, &mn) ||
		    jv_int(v, o, p, "max", true, 0, 1000000, &mx) ||
		    jv_num(v, o, p, "cost", true, 0, 1e15, &cost) ||
		    jv_int(v, o, p, "owned", false, 0, 1000000, &owned))
			return -1;
		if (path[0] != '$')
			return jv_fail(v, p, "\"path\": expected a JSON path starting with $, got \"%s\"",
			               path);
		if (mx < mn)
			return jv_fail(v, p, "\"max\" %lld is below \"min\" %lld", mx, mn);
		for (size_t k = 0; k < s->nvar; k++)
			if (strcmp(s->var[k].path, path) == 0)
				return jv_fail(v, p, "the path %s is also $.vars[%zu]", path, k);
		if (!(s->var[s->nvar].path = strdup(path)))
			return jv_fail(v, p, "out of memory");
		s->var[s->nvar].min = (long)mn;
		s->var[s->nvar].max = (long)mx;
		s->var[s->nvar].cost = cost;
		s->var[s->nvar].owned = (long)owned;   /* -1: the scenario's, once it is known */
		s->nvar++;
	}
	return 0;
}

/* No targets (absent or []): a what-if costing of the box. */
static int load_targets(struct jv *v, json_t *arr, struct plan_spec *s)
{
	if (!arr)
		return v->failed ? -1 : 0;
	if (json_array_size(arr) == 0)
		return 0;
	size_t n = json_array_size(arr);
	if (!(s->target = calloc(n, sizeof *s->target)))
		return jv_fail(v, "$.targets", "out of memory");
	for (size_t i = 0; i < n; i++) {
		char p[64], name[METRIC_NAME_MAX], why[256];
		json_t *o = json_array_get(arr, i);
		jv_idxpath(p, sizeof p, "$.targets", i);
		if (jv_object(v, o, p, target_keys) || jv_str(v, o, p, "metric", true, name, sizeof name))
			return -1;
		struct plan_target *t = &s->target[s->ntarget];
		if (!metric_parse(name, t->metric, sizeof t->metric, why, sizeof why))
			return jv_fail(v, p, "\"metric\": %s", why);
		bool hmax = json_object_get(o, "max") != NULL, hmin = json_object_get(o, "min") != NULL;
		if (hmax == hmin)
			return jv_fail(v, p, "expected exactly one of \"max\" and \"min\"");
		t->is_max = hmax;
		if (jv_num(v, o, p, hmax ? "max" : "min", true, -1e300, 1e300, &t->bound))
			return -1;
		s->ntarget++;
	}
	return 0;
}

/* "cost": the cost of ownership per year (docs/planning.md, "Cost"); the
 * top-level "energy_price_per_kwh" of older plan files is its tariff. */
static int load_cost(struct jv *v, json_t *root, struct plan_spec *s)
{
	s->life_years = 5;
	s->energy_price_per_kwh = NAN;
	s->pue = NAN;
	json_t *c = json_object_get(root, "cost");
	if (json_object_get(root, "energy_price_per_kwh")) {
		if (c && json_object_get(c, "energy_price_per_kwh"))
			return jv_fail(v, "$.energy_price_per_kwh", "also given as $.cost.energy_price_per_kwh: "
			               "give it once");
		if (jv_num(v, root, "$", "energy_price_per_kwh", false, 0, 1e9, &s->energy_price_per_kwh))
			return -1;
	}
	return costcfg_read(v, c, "$.cost", true, s);
}

static int load_seeds(struct jv *v, json_t *seeds, struct plan_spec *s)
{
	char msg[256];
	if (!seeds)
		return jv_fail(v, "$", "\"seeds\" is required (\"1-3\"; at least 2 seeds give an "
		               "interval)");
	if (!json_is_string(seeds))
		return jv_fail(v, "$.seeds", "expected a string such as \"1-3\", got %s", jv_type(seeds));
	if (sweep_parse_seeds(json_string_value(seeds), &s->seed, &s->nseed, msg, sizeof msg))
		return jv_fail(v, "$.seeds", "%s", msg);
	return 0;
}

int plan_load(const char *path, const char *out, struct plan_spec *s, char *err, size_t errlen)
{
	struct jv v = { .file = path, .err = err, .errlen = errlen };
	json_error_t je;
	json_t *root = NULL, *scn = NULL;
	char *dir = NULL, *base = NULL, *scnfile = NULL;
	int ret = -1;
	struct metric_labels labels;
	metric_labels_init(&labels);
	memset(s, 0, sizeof *s);

	const char *slash = strrchr(path, '/');
	dir = slash ? strndup(path, (size_t)(slash - path + (slash == path))) : strdup(".");
	if (!dir || !(s->file = strdup(path)))
		goto nomem;
	if (!(root = jsonfile_load(path, err, errlen)))
		goto out;
	if (jv_object(&v, root, "$", plan_keys))
		goto out;
	json_t *d = json_object_get(root, "description");
	if (d && !json_is_string(d)) {
		jv_fail(&v, "$.description", "expected a string, got %s", jv_type(d));
		goto out;
	}
	char sbuf[PATH_MAX], obuf[PATH_MAX];
	bool conf = false;
	if (jv_str(&v, root, "$", "scenario", false, sbuf, sizeof sbuf) ||
	    jv_str(&v, root, "$", "out", false, obuf, sizeof obuf) ||
	    load_cost(&v, root, s) || jv_bool(&v, root, "$", "confident", &conf) ||
	    load_seeds(&v, json_object_get(root, "seeds"), s) ||
	    load_vars(&v, jv_array(&v, root, "$", "vars", true), s) ||
	    load_targets(&v, jv_array(&v, root, "$", "targets", false), s))
		goto out;
	s->confident = conf;
	if (!json_object_get(root, "out"))
		snprintf(obuf, sizeof obuf, "plan-out");
	if (!(s->out = out ? strdup(out) : sweep_join(dir, obuf)))
		goto nomem;

	/* The scenario and the directory its relative paths hang from. */
	if (json_object_get(root, "scenario")) {
		if (!sbuf[0]) {
			jv_fail(&v, "$.scenario", "expected a file name, got \"\"");
			goto out;
		}
		if (!(scnfile = sweep_join(dir, sbuf)))
			goto nomem;
		scn = json_load_file(scnfile, JSON_REJECT_DUPLICATES, &je);
		if (!scn) {
			jv_fail(&v, "$.scenario", "%s: %s", scnfile, je.text);
			goto out;
		}
		const char *ss = strrchr(scnfile, '/');
		char *sdir = ss ? strndup(scnfile, (size_t)(ss - scnfile + (ss == scnfile)))
		                : strdup(".");
		if (!sdir)
			goto nomem;
		base = realpath(sdir, NULL);
		free(sdir);
		if (!base) {
			jv_fail(&v, "$.scenario", "%s: %s", scnfile, strerror(errno));
			goto out;
		}
	} else {
		scn = json_loads(scenario_guian_text(), JSON_REJECT_DUPLICATES, &je);
		if (!scn) {
			snprintf(err, errlen, "the embedded scenario: %s", je.text);
			goto out;
		}
		if (!(base = realpath(".", NULL)))
			goto nomem;
	}
	if (!json_is_object(scn)) {
		jv_fail(&v, "$.scenario", "not a JSON object");
		goto out;
	}
	if (sweep_absolutize(scn, "workload", "trace", base) ||
	    sweep_absolutize(scn, "from_inventory", "file", base) ||
	    !(s->scenario = json_dumps(scn, JSON_SORT_KEYS | JSON_INDENT(1) | JSON_REAL_PRECISION(15))))
		goto nomem;

	/* Fixed settings, applied in file order. */
	json_t *fixed = json_object_get(root, "fixed");
	if (fixed && !json_is_object(fixed)) {
		jv_fail(&v, "$.fixed", "expected an object of \"$.path\": value, got %s", jv_type(fixed));
		goto out;
	}
	const char *k;
	json_t *val;
	json_object_foreach(fixed, k, val) {
		char where[300];
		snprintf(where, sizeof where, "$.fixed[\"%s\"]", k);
		char *vt = json_dumps(val, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(15));
		if (!vt)
			goto nomem;
		int r = apply(&v, where, &s->scenario, k, vt);
		free(vt);
		if (r)
			goto out;
	}
	if (check_scenario(&v, json_object_get(root, "scenario") ? "$.scenario" : "$", s->scenario, &labels))
		goto out;
	/* What the site owns: each variable's value in the scenario (fixed
	 * settings applied), unless the file says "owned". */
	for (size_t i = 0; i < s->nvar; i++)
		if (s->var[i].owned < 0)
			s->var[i].owned = scenario_int_at(s->scenario, s->var[i].path);
	/* Each variable at its min and its max must give a valid scenario. */
	long *x = calloc(s->nvar, sizeof *x);
	if (!x)
		goto nomem;
	for (size_t i = 0; i < s->nvar; i++)
		x[i] = s->var[i].min;
	for (int end = 0; end < 2; end++) {
		for (size_t i = 0; i < s->nvar; i++)
			x[i] = end ? s->var[i].max : s->var[i].min;
		char *t, why[1024], where[64];
		snprintf(where, sizeof where, "$.vars (every variable at its %s)", end ? "max" : "min");
		if (plan_scenario_text(s, x, &t, why, sizeof why) < 0) {
			snprintf(err, errlen, "%s: %s", path, why);
			free(x);
			goto out;
		}
		int r = check_scenario(&v, where, t, &labels);
		free(t);
		if (r) {
			free(x);
			goto out;
		}
	}
	free(x);
	/* Each target's label value must be one the scenario has (a typo
	 * would answer NaN after every run). */
	for (size_t i = 0; i < s->ntarget; i++) {
		char p[64], why[1200];
		jv_idxpath(p, sizeof p, "$.targets", i);
		if (metric_labels_check(&labels, s->target[i].metric, why, sizeof why) < 0) {
			jv_fail(&v, p, "\"metric\": %s", why);
			goto out;
		}
	}
	ret = 0;
	goto out;
nomem:
	snprintf(err, errlen, "%s: out of memory", path);
out:
	metric_labels_fini(&labels);
	free(dir);
	free(base);
	free(scnfile);
	json_decref(scn);
	json_decref(root);
	if (ret)
		plan_spec_fini(s);
	return ret;
}

int plan_scenario_text(const struct plan_spec *s, const long *x, char **text, char *err,
                       size_t errlen)
{
	char *cur = strdup(s->scenario);
	*text = NULL;
	if (!cur) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < s->nvar; i++) {
		char val[32], where[64], *next;
		snprintf(val, sizeof val, "%ld", x[i]);
		snprintf(where, sizeof where, "$.vars[%zu]", i);
		if (sweep_apply(where, cur, s->var[i].path, val, &next, err, errlen) < 0) {
			free(cur);
			return -1;
		}
		free(cur);
		cur = next;
	}
	*text = cur;
	return 0;
}
