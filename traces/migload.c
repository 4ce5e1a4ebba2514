/* migload — strict loader for the MIG geometry table. See migload.h. */
#include "traces/migload.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

extern const char hl_embed_mig[];

/* Validation context: the file and the first error. */
struct mv {
	const char *file;
	char *err;
	size_t errlen;
	bool failed;
};

static int fail(struct mv *v, const char *path, const char *fmt, ...)
{
	if (!v->failed) {
		char msg[384];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		snprintf(v->err, v->errlen, "%s: %s: %s", v->file, path, msg);
		v->failed = true;
	}
	return -1;
}

static const char *jtype(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* o must be an object whose keys are all in keys[] (NULL-terminated) and
 * which has every key in required[] (NULL-terminated). */
static int check_object(struct mv *v, const json_t *o, const char *path, const char *const *keys,
                        const char *const *required)
{
	if (!json_is_object(o))
		return fail(v, path, "expected an object, got %s", jtype(o));
	const char *k;
	json_t *val;
	json_object_foreach((json_t *)o, k, val) {
		bool known = false;
		for (int i = 0; keys[i] && !known; i++)
			known = strcmp(keys[i], k) == 0;
		if (!known) {
			char all[256] = "";
			size_t off = 0;
			for (int i = 0; keys[i] && off < sizeof all; i++)
				off += (size_t)snprintf(all + off, sizeof all - off, "%s%s", i ? ", " : "", keys[i]);
			return fail(v, path, "unknown key \"%s\" (expected one of: %s)", k, all);
		}
	}
	for (int i = 0; required[i]; i++)
		if (!json_object_get(o, required[i]))
			return fail(v, path, "missing key \"%s\"", required[i]);
	return 0;
}

static int get_int(struct mv *v, const json_t *o, const char *path, const char *key, long long min,
                   long long max, int32_t *out)
{
	char p[256];
	snprintf(p, sizeof p, "%s.%s", path, key);
	json_t *x = json_object_get(o, key);
	if (!json_is_integer(x))
		return fail(v, p, "expected an integer in [%lld, %lld], got %s", min, max, jtype(x));
	long long d = json_integer_value(x);
	if (d < min || d > max)
		return fail(v, p, "expected an integer in [%lld, %lld], got %lld", min, max, d);
	*out = (int32_t)d;
	return 0;
}

static int get_str(struct mv *v, const json_t *o, const char *path, const char *key, char *out, size_t len)
{
	char p[256];
	snprintf(p, sizeof p, "%s.%s", path, key);
	json_t *x = json_object_get(o, key);
	if (!json_is_string(x))
		return fail(v, p, "expected a string, got %s", jtype(x));
	if (json_string_length(x) == 0 || json_string_length(x) >= len)
		return fail(v, p, "expected 1 to %zu characters, got %zu", len - 1, json_string_length(x));
	snprintf(out, len, "%s", json_string_value(x));
	return 0;
}

static int load_profile(struct mv *v, const json_t *o, const char *path, const struct mig_card *c,
                        struct mig_profile *pr)
{
	static const char *const keys[] = { "name", "compute_slices", "memory_slices", "mem_gib",
		"max_instances", "starts", "media_ext", NULL };
	static const char *const req[] = { "name", "compute_slices", "memory_slices", "mem_gib",
		"max_instances", "starts", NULL };
	char p[256];
	memset(pr, 0, sizeof *pr);
	if (check_object(v, o, path, keys, req) ||
	    get_str(v, o, path, "name", pr->name, sizeof pr->name) ||
	    get_int(v, o, path, "compute_slices", 1, c->compute_slices, &pr->compute_slices) ||
	    get_int(v, o, path, "memory_slices", 1, c->memory_slices, &pr->memory_slices))
		return -1;
	json_t *mem = json_object_get(o, "mem_gib");
	snprintf(p, sizeof p, "%s.mem_gib", path);
	if (!json_is_number(mem) || !(json_number_value(mem) > 0) || json_number_value(mem) > 1e6)
		return fail(v, p, "expected a number > 0 (GiB), got %s", json_is_number(mem) ? "a number <= 0" : jtype(mem));
	pr->mem_gib = json_number_value(mem);
	json_t *me = json_object_get(o, "media_ext");
	snprintf(p, sizeof p, "%s.media_ext", path);
	if (me && !json_is_boolean(me))
		return fail(v, p, "expected true or false, got %s", jtype(me));
	pr->media_ext = me && json_is_true(me);

	json_t *st = json_object_get(o, "starts");
	snprintf(p, sizeof p, "%s.starts", path);
	int last = pr->memory_slices > 0 ? c->memory_slices - pr->memory_slices : 0;
	if (!json_is_array(st) || json_array_size(st) == 0)
		return fail(v, p, "expected a non-empty array of memory-slice positions, got %s",
		            json_is_array(st) ? "an empty array" : jtype(st));
	size_t i;
	json_t *e;
	long long prev = -1;
	json_array_foreach(st, i, e) {
		char q[280];
		snprintf(q, sizeof q, "%s[%zu]", p, i);
		if (!json_is_integer(e))
			return fail(v, q, "expected an integer in [0, %d], got %s", last, jtype(e));
		long long s = json_integer_value(e);
		if (s < 0 || s > last)
			return fail(v, q, "expected an integer in [0, %d] (a %d-slice profile on %d memory slices), got %lld",
			            last, pr->memory_slices, c->memory_slices, s);
		if (s <= prev)
			return fail(v, q, "starts must increase (%lld after %lld)", s, prev);
		prev = s;
		pr->start_mask |= (uint8_t)(1u << s);
	}
	if (get_int(v, o, path, "max_instances", 1, (long long)json_array_size(st), &pr->max_instances))
		return -1;
	return 0;
}

static int load_card(struct mv *v, const json_t *o, const char *path, struct mig_card *c)
{
	static const char *const keys[] = { "gpu", "compute_slices", "memory_slices", "source", "profiles", NULL };
	char p[256];
	memset(c, 0, sizeof *c);
	if (check_object(v, o, path, keys, keys) ||
	    get_str(v, o, path, "gpu", c->gpu, sizeof c->gpu) ||
	    get_int(v, o, path, "compute_slices", 1, MIG_SLICES_MAX, &c->compute_slices) ||
	    get_int(v, o, path, "memory_slices", 1, MIG_SLICES_MAX, &c->memory_slices) ||
	    get_str(v, o, path, "source", c->source, sizeof c->source))
		return -1;
	json_t *pa = json_object_get(o, "profiles");
	snprintf(p, sizeof p, "%s.profiles", path);
	if (!json_is_array(pa) || json_array_size(pa) == 0 || json_array_size(pa) > MIG_PROFILES_MAX)
		return fail(v, p, "expected an array of 1 to %d profiles, got %s", MIG_PROFILES_MAX,
		            json_is_array(pa) ? "another count" : jtype(pa));
	size_t i;
	json_t *e;
	json_array_foreach(pa, i, e) {
		char q[280];
		snprintf(q, sizeof q, "%s[%zu]", p, i);
		struct mig_profile *pr = &c->profiles[i];
		if (load_profile(v, e, q, c, pr))
			return -1;
		for (size_t d = 0; d < i; d++)
			if (strcmp(c->profiles[d].name, pr->name) == 0)
				return fail(v, q, "profile \"%s\" listed twice (also at index %zu)", pr->name, d);
		c->nprofiles++;
	}
	return 0;
}

int mig_load_text(struct mig_geometry *g, const char *text, const char *file, char *err, size_t errlen)
{
	static const char *const keys[] = { "about", "cards", NULL };
	static const char *const req[] = { "cards", NULL };
	struct mv v = { .file = file, .err = err, .errlen = errlen };
	json_error_t je;
	int rc = -1;
	memset(g, 0, sizeof *g);
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		snprintf(err, errlen, "%s:%d:%d: %s", file, je.line, je.column, je.text);
		return -1;
	}
	if (check_object(&v, root, "$", keys, req))
		goto out;
	json_t *about = json_object_get(root, "about");
	if (about && !json_is_string(about)) {
		fail(&v, "$.about", "expected a string, got %s", jtype(about));
		goto out;
	}
	json_t *cards = json_object_get(root, "cards");
	if (!json_is_array(cards) || json_array_size(cards) > MIG_CARDS_MAX) {
		fail(&v, "$.cards", "expected an array of at most %d cards, got %s", MIG_CARDS_MAX,
		     json_is_array(cards) ? "more" : jtype(cards));
		goto out;
	}
	size_t i;
	json_t *e;
	json_array_foreach(cards, i, e) {
		char p[64];
		snprintf(p, sizeof p, "$.cards[%zu]", i);
		struct mig_card *c = &g->cards[i];
		if (load_card(&v, e, p, c))
			goto out;
		for (size_t d = 0; d < i; d++)
			if (strcmp(g->cards[d].gpu, c->gpu) == 0) {
				fail(&v, p, "card \"%s\" listed twice (also at index %zu)", c->gpu, d);
				goto out;
			}
		g->ncards++;
	}
	rc = 0;
out:
	json_decref(root);
	if (rc)
		memset(g, 0, sizeof *g);
	return rc;
}

int mig_load_builtin(struct mig_geometry *g, char *err, size_t errlen)
{
	return mig_load_text(g, hl_embed_mig, "catalog/mig.json", err, errlen);
}
