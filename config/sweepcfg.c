/* sweepcfg — reading a sweep file (see sweepcfg.h). */
#include "config/sweepcfg.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "config/jv.h"
#include "config/scenario.h"

static void failf(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void failf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- JSON text out: shortest round-trip reals, stable layout --------------------- */

struct buf {
	char *s;
	size_t n, cap;
	bool oom;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 1024;
		while (nc < b->n + n + 1)
			nc *= 2;
		char *ns = realloc(b->s, nc);
		if (!ns) {
			b->oom = true;
			return;
		}
		b->s = ns;
		b->cap = nc;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

static void puts_(struct buf *b, const char *s) { put(b, s, strlen(s)); }

/* The shortest %g form that reads back as the same double, kept a real
 * (jansson writes 17 digits: 1.4 would become 1.3999999999999999). */
static void put_real(struct buf *b, double x)
{
	char t[40];
	for (int p = 1; p <= 17; p++) {
		snprintf(t, sizeof t, "%.*g", p, x);
		if (strtod(t, NULL) == x)
			break;
	}
	if (!strpbrk(t, ".eE"))
		strcat(t, ".0");
	puts_(b, t);
}

static bool scalar(const json_t *j)
{
	return !json_is_object(j) && !json_is_array(j);
}

/* Compact when indent < 0; else objects one key a line, arrays of scalars
 * on one line. */
static void dump(struct buf *b, const json_t *j, int indent)
{
	char t[32];
	switch (json_typeof(j)) {
	case JSON_OBJECT: {
		if (json_object_size(j) == 0) {
			puts_(b, "{}");
			break;
		}
		const char *k;
		json_t *v;
		bool first = true;
		puts_(b, "{");
		json_object_foreach((json_t *)j, k, v) {
			puts_(b, first ? "" : ",");
			first = false;
			if (indent >= 0) {
				puts_(b, "\n");
				for (int i = 0; i < indent + 2; i++)
					puts_(b, " ");
			}
			json_t *key = json_string(k);
			char *ks = key ? json_dumps(key, JSON_ENCODE_ANY) : NULL;
			if (!ks)
				b->oom = true;
			else
				puts_(b, ks);
			free(ks);
			json_decref(key);
			puts_(b, indent >= 0 ? ": " : ":");
			dump(b, v, indent >= 0 ? indent + 2 : -1);
		}
		if (indent >= 0) {
			puts_(b, "\n");
			for (int i = 0; i < indent; i++)
				puts_(b, " ");
		}
		puts_(b, "}");
		break;
	}
	case JSON_ARRAY: {
		bool flat = indent < 0;
		for (size_t i = 0; i < json_array_size(j) && !flat; i++)
			flat = !scalar(json_array_get(j, i)) ? false : (i + 1 == json_array_size(j));
		if (json_array_size(j) == 0)
			flat = true;
		puts_(b, "[");
		for (size_t i = 0; i < json_array_size(j); i++) {
			puts_(b, i ? (flat && indent >= 0 ? ", " : ",") : "");
			if (!flat) {
				puts_(b, "\n");
				for (int s = 0; s < indent + 2; s++)
					puts_(b, " ");
			}
			dump(b, json_array_get(j, i), flat ? -1 : indent + 2);
		}
		if (!flat) {
			puts_(b, "\n");
			for (int i = 0; i < indent; i++)
				puts_(b, " ");
		}
		puts_(b, "]");
		break;
	}
	case JSON_STRING: {
		char *s = json_dumps(j, JSON_ENCODE_ANY);
		if (!s)
			b->oom = true;
		else
			puts_(b, s);
		free(s);
		break;
	}
	case JSON_INTEGER:
		snprintf(t, sizeof t, "%" JSON_INTEGER_FORMAT, json_integer_value(j));
		puts_(b, t);
		break;
	case JSON_REAL:
		put_real(b, json_real_value(j));
		break;
	case JSON_TRUE:
		puts_(b, "true");
		break;
	case JSON_FALSE:
		puts_(b, "false");
		break;
	case JSON_NULL:
		puts_(b, "null");
		break;
	}
}

/* The text of j (compact, or indented with a final newline); NULL on ENOMEM. */
static char *dump_text(const json_t *j, bool pretty)
{
	struct buf b = { 0 };
	dump(&b, j, pretty ? 0 : -1);
	if (pretty)
		puts_(&b, "\n");
	if (b.oom) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/* ---- JSON paths ------------------------------------------------------------------ */

/* Sets `value` (borrowed; a copy is stored) at jpath in root. On error,
 * writes "what is wrong" into why. */
static int path_set(json_t *root, const char *jpath, json_t *value, char *why, size_t whylen)
{
	if (jpath[0] != '$') {
		failf(why, whylen, "a path starts with \"$\", as in $.racks[0].count");
		return -1;
	}
	json_t *cur = root;
	const char *p = jpath + 1;
	if (!*p) {
		failf(why, whylen, "the path names the whole scenario; name a key in it");
		return -1;
	}
	while (*p) {
		char key[256];
		size_t idx = 0;
		bool is_idx;
		size_t done = (size_t)(p - jpath);   /* the path up to this step */
		if (*p == '.') {
			const char *e = p + 1;
			while (*e && *e != '.' && *e != '[')
				e++;
			if (e == p + 1 || (size_t)(e - p - 1) >= sizeof key) {
				failf(why, whylen, "bad key at character %zu (expected .KEY or [INDEX])", done + 1);
				return -1;
			}
			memcpy(key, p + 1, (size_t)(e - p - 1));
			key[e - p - 1] = '\0';
			is_idx = false;
			p = e;
		} else if (strcmp(p, "[+]") == 0) {
			/* The last step "[+]": append the value to the array. */
			if (!json_is_array(cur)) {
				failf(why, whylen, "%.*s is %s, not an array to append to", (int)done, jpath,
				      cur ? (json_is_object(cur) ? "an object" : "a scalar") : "absent");
				return -1;
			}
			if (json_is_null(value)) {
				failf(why, whylen, "[+] appends a value; null removes, at an index");
				return -1;
			}
			return json_array_append_new(cur, json_deep_copy(value)) ? -1 : 0;
		} else if (*p == '[') {
			const char *e = p + 1;
			if (!isdigit((unsigned char)*e)) {
				failf(why, whylen, "bad index at character %zu (expected [0], [1], ...)", done + 1);
				return -1;
			}
			while (isdigit((unsigned char)*e)) {
				if (idx > 1000000) {
					failf(why, whylen, "index too large at character %zu", done + 1);
					return -1;
				}
				idx = idx * 10 + (size_t)(*e - '0');
				e++;
			}
			if (*e != ']') {
				failf(why, whylen, "bad index at character %zu (expected [0], [1], ...)", done + 1);
				return -1;
			}
			is_idx = true;
			p = e + 1;
		} else {
			failf(why, whylen, "expected \".\" or \"[\" at character %zu", done + 1);
			return -1;
		}
		bool last = *p == '\0';
		if (is_idx) {
			if (!json_is_array(cur)) {
				failf(why, whylen, "%.*s is %s, not an array", (int)done, jpath,
				      cur ? (json_is_object(cur) ? "an object" : "a scalar") : "absent");
				return -1;
			}
			if (idx >= json_array_size(cur)) {
				failf(why, whylen, "%.*s has %zu elements, so [%zu] does not exist", (int)done,
				      jpath, json_array_size(cur), idx);
				return -1;
			}
			if (last && json_is_null(value))   /* null removes the element */
				return json_array_remove(cur, idx) ? -1 : 0;
			if (last)
				return json_array_set_new(cur, idx, json_deep_copy(value)) ? -1 : 0;
			cur = json_array_get(cur, idx);
		} else {
			if (!json_is_object(cur)) {
				failf(why, whylen, "%.*s is %s, not an object", (int)done, jpath,
				      json_is_array(cur) ? "an array" : "a scalar");
				return -1;
			}
			json_t *next = json_object_get(cur, key);
			if (last && json_is_null(value)) {   /* null removes the key */
				if (!next) {
					failf(why, whylen, "%s does not exist in the scenario, so it cannot be removed",
					      jpath);
					return -1;
				}
				return json_object_del(cur, key) ? -1 : 0;
			}
			if (last)
				return json_object_set_new(cur, key, json_deep_copy(value)) ? -1 : 0;
			if (!next && *p == '.') {
				/* A missing object on the way is made ("scale" in
				 * $.workload.synthetic.scale.rate); the scenario loader's
				 * strict keys catch a misspelt one before anything runs. */
				if (json_object_set_new(cur, key, json_object()))
					return -1;
				next = json_object_get(cur, key);
			}
			if (!next) {
				failf(why, whylen, "%.*s does not exist in the scenario (only object keys "
				      "may be new, not array elements)", (int)(p - jpath), jpath);
				return -1;
			}
			cur = next;
		}
	}
	return 0;
}

int sweep_apply(const char *label, const char *doc, const char *jpath, const char *value,
                char **out, char *err, size_t errlen)
{
	json_error_t je;
	char why[512];
	int ret = -1;
	*out = NULL;
	json_t *root = json_loads(doc, JSON_REJECT_DUPLICATES, &je);
	json_t *v = json_loads(value, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
	if (!root || !v) {
		failf(err, errlen, "%s: %s: %s", label, root ? "value" : "document", je.text);
		goto out;
	}
	if (path_set(root, jpath, v, why, sizeof why)) {
		failf(err, errlen, "%s: %s: %s", label, jpath, why);
		goto out;
	}
	if (!(*out = dump_text(root, false))) {
		failf(err, errlen, "%s: out of memory", label);
		goto out;
	}
	ret = 0;
out:
	json_decref(root);
	json_decref(v);
	return ret;
}

/* ---- the sweep file -------------------------------------------------------------- */

static const char *const sweep_keys[] = { "description", "scenario", "seeds", "out", "params",
	"metrics", "fixed", NULL };

/* "metrics": the metrics the sweep's table shows (names of analysis/metric.h). */
static int load_metrics(struct jv *v, json_t *arr, struct sweep_grid *g)
{
	if (!arr)
		return 0;
	if (!json_is_array(arr) || json_array_size(arr) == 0)
		return jv_fail(v, "$.metrics", "expected a non-empty array of metric names, got %s",
		               jv_type(arr));
	if (!(g->metric = calloc(json_array_size(arr), sizeof *g->metric)))
		return jv_fail(v, "$.metrics", "out of memory");
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e) {
		char p[64], canon[METRIC_NAME_MAX], why[256];
		jv_idxpath(p, sizeof p, "$.metrics", i);
		if (!json_is_string(e))
			return jv_fail(v, p, "expected a metric name, got %s", jv_type(e));
		if (!metric_parse(json_string_value(e), canon, sizeof canon, why, sizeof why))
			return jv_fail(v, p, "%s", why);
		if (!(g->metric[g->nmetric++] = strdup(canon)))
			return jv_fail(v, p, "out of memory");
	}
	return 0;
}

/* dir/rel, or rel when it is absolute. */
char *sweep_join(const char *dir, const char *rel)
{
	char *s;
	if (rel[0] == '/' || !dir[0] || strcmp(dir, ".") == 0)
		s = strdup(rel);
	else if (asprintf(&s, "%s/%s", dir, rel) < 0)
		s = NULL;
	return s;
}

/* Makes a relative file path at obj.key absolute against base. */
int sweep_absolutize(json_t *root, const char *obj, const char *key, const char *base)
{
	json_t *o = json_object_get(root, obj);
	json_t *s = json_is_object(o) ? json_object_get(o, key) : NULL;
	if (!json_is_string(s))
		return 0;
	const char *v = json_string_value(s);
	if (v[0] == '/' || strncmp(v, "$TRACES/", 8) == 0 || !v[0])
		return 0;
	char *abs;
	if (asprintf(&abs, "%s/%s", base, v) < 0)
		return -1;
	int r = json_object_set_new(o, key, json_string(abs));
	free(abs);
	return r;
}

static int load_seeds(struct jv *v, json_t *seeds, struct sweep_grid *g)
{
	char msg[256];
	if (json_is_string(seeds)) {
		if (sweep_parse_seeds(json_string_value(seeds), &g->seed, &g->nseed, msg, sizeof msg))
			return jv_fail(v, "$.seeds", "%s", msg);
		return 0;
	}
	if (!json_is_array(seeds) || json_array_size(seeds) == 0)
		return jv_fail(v, "$.seeds", "expected a string such as \"1-5\" or a non-empty array of "
		               "integers, got %s", json_is_array(seeds) ? "an empty array" : jv_type(seeds));
	if (!(g->seed = calloc(json_array_size(seeds), sizeof *g->seed)))
		return jv_fail(v, "$.seeds", "out of memory");
	size_t i;
	json_t *e;
	json_array_foreach(seeds, i, e) {
		char p[64];
		jv_idxpath(p, sizeof p, "$.seeds", i);
		if (!json_is_integer(e) || json_integer_value(e) < 0)
			return jv_fail(v, p, "expected an integer in [0, 2^63-1], got %s",
			               json_is_integer(e) ? "a negative integer" : jv_type(e));
		uint64_t s = (uint64_t)json_integer_value(e);
		for (size_t k = 0; k < g->nseed; k++)
			if (g->seed[k] == s)
				return jv_fail(v, p, "seed %" PRIu64 " given twice", s);
		g->seed[g->nseed++] = s;
	}
	return 0;
}

int sweep_load(const char *path, const char *out, struct sweep_grid *g, char *err, size_t errlen)
{
	struct jv v = { .file = path, .err = err, .errlen = errlen };
	json_error_t je;
	json_t *root = NULL, *scn = NULL, *acc = NULL;
	char *dir = NULL, *base = NULL, *cwd = NULL;
	int ret = -1;
	memset(g, 0, sizeof *g);

	const char *slash = strrchr(path, '/');
	dir = slash ? strndup(path, (size_t)(slash - path + (slash == path))) : strdup(".");
	if (!dir || !(g->file = strdup(path)))
		goto nomem;
	if (!(root = jsonfile_load(path, err, errlen)))
		goto out;
	if (jv_object(&v, root, "$", sweep_keys))
		goto out;
	json_t *d = json_object_get(root, "description");
	if (d && !json_is_string(d)) {
		jv_fail(&v, "$.description", "expected a string, got %s", jv_type(d));
		goto out;
	}

	/* The scenario, and the directory its relative paths hang from. */
	char sbuf[PATH_MAX], obuf[PATH_MAX];
	if (jv_str(&v, root, "$", "scenario", false, sbuf, sizeof sbuf) ||
	    jv_str(&v, root, "$", "out", false, obuf, sizeof obuf))
		goto out;
	if (!json_object_get(root, "out"))
		snprintf(obuf, sizeof obuf, "sweep-out");
	if (!json_object_get(root, "seeds")) {
		jv_fail(&v, "$", "\"seeds\" is required (\"1-5\" or [1, 2, 3])");
		goto out;
	}
	if (load_seeds(&v, json_object_get(root, "seeds"), g) ||
	    load_metrics(&v, json_object_get(root, "metrics"), g))
		goto out;
	if (json_object_get(root, "scenario")) {
		if (!sbuf[0]) {
			jv_fail(&v, "$.scenario", "expected a file name, got \"\"");
			goto out;
		}
		if (!(g->scenario = sweep_join(dir, sbuf)))
			goto nomem;
		scn = json_load_file(g->scenario, JSON_REJECT_DUPLICATES, &je);
		if (!scn) {
			if (je.line <= 0)
				failf(err, errlen, "%s: $.scenario: %s", path, je.text);
			else
				failf(err, errlen, "%s: $.scenario: %s:%d:%d: %s", path, g->scenario, je.line,
				      je.column, je.text);
			goto out;
		}
		const char *ss = strrchr(g->scenario, '/');
		char *sdir = ss ? strndup(g->scenario, (size_t)(ss - g->scenario + (ss == g->scenario)))
		                : strdup(".");
		if (!sdir)
			goto nomem;
		base = realpath(sdir, NULL);
		if (!base)
			failf(err, errlen, "%s: $.scenario: %s: %s", path, sdir, strerror(errno));
		free(sdir);
		if (!base)
			goto out;
	} else {
		scn = json_loads(scenario_guian_text(), JSON_REJECT_DUPLICATES, &je);
		if (!scn) {
			failf(err, errlen, "the embedded scenario: %s", je.text);
			goto out;
		}
		if (!(cwd = realpath(".", NULL)) || !(base = strdup(cwd)))
			goto nomem;
	}
	if (!json_is_object(scn)) {
		failf(err, errlen, "%s: $.scenario: %s is not a JSON object", path,
		      g->scenario ? g->scenario : "the scenario");
		goto out;
	}
	if (!(g->out = out ? strdup(out) : sweep_join(dir, obuf)))
		goto nomem;

	/* Fixed settings, applied to every point in file order before the
	 * parameters (an appended rack whose count a parameter varies). */
	json_t *fixed = json_object_get(root, "fixed");
	if (fixed && !json_is_object(fixed)) {
		jv_fail(&v, "$.fixed", "expected an object of \"$.path\": value, got %s", jv_type(fixed));
		goto out;
	}
	const char *fk;
	json_t *fv;
	json_object_foreach(fixed, fk, fv) {
		char why[512], where[300];
		snprintf(where, sizeof where, "$.fixed[\"%s\"]", fk);
		if (path_set(scn, fk, fv, why, sizeof why)) {
			jv_fail(&v, where, "%s", why);
			goto out;
		}
	}

	/* Parameters: check every path with every value against the scenario. */
	json_t *params = json_object_get(root, "params");
	if (params && !json_is_object(params)) {
		jv_fail(&v, "$.params", "expected an object of \"$.path\": [values...], got %s",
		        jv_type(params));
		goto out;
	}
	const char *k;
	json_t *arr;
	/* Each parameter is checked on the scenario with the earlier ones at
	 * their first values, so that "$.racks[+]" can precede "$.racks[4].count". */
	acc = json_deep_copy(scn);
	if (!acc)
		goto nomem;
	json_object_foreach(params, k, arr) {
		char where[300], why[512];
		snprintf(where, sizeof where, "$.params[\"%s\"]", k);
		if (!json_is_array(arr) || json_array_size(arr) == 0) {
			jv_fail(&v, where, "expected a non-empty array of values, got %s",
			        json_is_array(arr) ? "an empty array" : jv_type(arr));
			goto out;
		}
		size_t n = json_array_size(arr);
		char **txt = calloc(n, sizeof *txt);
		if (!txt)
			goto nomem;
		bool bad = false, oom = false;
		for (size_t i = 0; i < n && !bad && !oom; i++) {
			json_t *probe = json_deep_copy(acc);
			if (!probe || !(txt[i] = dump_text(json_array_get(arr, i), false)))
				oom = true;
			else if (path_set(probe, k, json_array_get(arr, i), why, sizeof why)) {
				char vp[320];
				snprintf(vp, sizeof vp, "%s[%zu]", where, i);
				jv_fail(&v, vp, "%s", why);
				bad = true;
			}
			json_decref(probe);
		}
		for (size_t i = 0; i < n && !bad && !oom; i++)
			for (size_t j = 0; j < i; j++)
				if (strcmp(txt[i], txt[j]) == 0) {
					char vp[320];
					snprintf(vp, sizeof vp, "%s[%zu]", where, i);
					jv_fail(&v, vp, "the value %s is also [%zu]", txt[i], j);
					bad = true;
					break;
				}
		if (!bad && !oom && path_set(acc, k, json_array_get(arr, 0), why, sizeof why))
			oom = true;
		int r = bad || oom ? -1 : sweep_grid_add_param(g, k, (const char *const *)txt, n);
		for (size_t i = 0; i < n; i++)
			free(txt[i]);
		free(txt);
		if (bad)
			goto out;
		if (oom || r)
			goto nomem;
		for (size_t j = 0; j + 1 < g->nparam; j++)
			if (strcmp(g->param[j].column, g->param[g->nparam - 1].column) == 0) {
				jv_fail(&v, where, "names the same column %s as \"%s\"; give each "
				        "setting once", g->param[j].column, g->param[j].path);
				goto out;
			}
	}

	/* The points, each with its scenario text. */
	if (sweep_grid_expand(g))
		goto nomem;
	for (size_t i = 0; i < g->npoint; i++) {
		char why[512];
		json_t *doc = json_deep_copy(scn);
		if (!doc)
			goto nomem;
		for (size_t p = 0; p < g->nparam; p++) {
			json_t *vals = json_object_get(params, g->param[p].path);
			if (path_set(doc, g->param[p].path, json_array_get(vals, g->point[i].vidx[p]), why,
			             sizeof why)) {
				json_decref(doc);
				failf(err, errlen, "%s: point %zu: %s: %s", path, i, g->param[p].path, why);
				goto out;
			}
		}
		if (sweep_absolutize(doc, "workload", "trace", base) ||
		    sweep_absolutize(doc, "from_inventory", "file", base) ||
		    !(g->point[i].scenario = dump_text(doc, true))) {
			json_decref(doc);
			goto nomem;
		}
		json_decref(doc);
	}
	ret = 0;
	goto out;
nomem:
	failf(err, errlen, "%s: out of memory", path);
out:
	free(dir);
	free(base);
	free(cwd);
	json_decref(acc);
	json_decref(scn);
	json_decref(root);
	if (ret)
		sweep_grid_fini(g);
	return ret;
}
