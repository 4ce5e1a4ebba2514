/* migcfg — strict loader for the MIG geometry table. See migcfg.h. */
#include "config/migcfg.h"
#include "config/jv.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

extern const char hl_embed_mig[];

/* o must be an object whose keys are all in keys[] (NULL-terminated) and
 * which has every key in required[] (NULL-terminated). */
static int check_object(struct jv *v, const json_t *o, const char *path, const char *const *keys,
                        const char *const *required)
{
	if (jv_object(v, o, path, keys))
		return -1;
	for (int i = 0; required[i]; i++)
		if (!json_object_get(o, required[i]))
			return jv_fail(v, path, "missing key \"%s\"", required[i]);
	return 0;
}

static int get_int(struct jv *v, const json_t *o, const char *path, const char *key, long long min,
                   long long max, int32_t *out)
{
	char p[256];
	snprintf(p, sizeof p, "%s.%s", path, key);
	json_t *x = json_object_get(o, key);
	if (!json_is_integer(x))
		return jv_fail(v, p, "expected an integer in [%lld, %lld], got %s", min, max, jv_type(x));
	long long d = json_integer_value(x);
	if (d < min || d > max)
		return jv_fail(v, p, "expected an integer in [%lld, %lld], got %lld", min, max, d);
	*out = (int32_t)d;
	return 0;
}

static int get_str(struct jv *v, const json_t *o, const char *path, const char *key, char *out, size_t len)
{
	char p[256];
	snprintf(p, sizeof p, "%s.%s", path, key);
	json_t *x = json_object_get(o, key);
	if (!json_is_string(x))
		return jv_fail(v, p, "expected a string, got %s", jv_type(x));
	if (json_string_length(x) == 0 || json_string_length(x) >= len)
		return jv_fail(v, p, "expected 1 to %zu characters, got %zu", len - 1, json_string_length(x));
	snprintf(out, len, "%s", json_string_value(x));
	return 0;
}

static int load_profile(struct jv *v, const json_t *o, const char *path, const struct mig_card *c,
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
		return jv_fail(v, p, "expected a number > 0 (GiB), got %s", json_is_number(mem) ? "a number <= 0" : jv_type(mem));
	pr->mem_gib = json_number_value(mem);
	json_t *me = json_object_get(o, "media_ext");
	snprintf(p, sizeof p, "%s.media_ext", path);
	if (me && !json_is_boolean(me))
		return jv_fail(v, p, "expected true or false, got %s", jv_type(me));
	pr->media_ext = me && json_is_true(me);

	json_t *st = json_object_get(o, "starts");
	snprintf(p, sizeof p, "%s.starts", path);
	int last = pr->memory_slices > 0 ? c->memory_slices - pr->memory_slices : 0;
	if (!json_is_array(st) || json_array_size(st) == 0)
		return jv_fail(v, p, "expected a non-empty array of memory-slice positions, got %s",
		            json_is_array(st) ? "an empty array" : jv_type(st));
	size_t i;
	json_t *e;
	long long prev = -1;
	json_array_foreach(st, i, e) {
		char q[280];
		snprintf(q, sizeof q, "%s[%zu]", p, i);
		if (!json_is_integer(e))
			return jv_fail(v, q, "expected an integer in [0, %d], got %s", last, jv_type(e));
		long long s = json_integer_value(e);
		if (s < 0 || s > last)
			return jv_fail(v, q, "expected an integer in [0, %d] (a %d-slice profile on %d memory slices), got %lld",
			            last, pr->memory_slices, c->memory_slices, s);
		if (s <= prev)
			return jv_fail(v, q, "starts must increase (%lld after %lld)", s, prev);
		prev = s;
		pr->start_mask |= (uint8_t)(1u << s);
	}
	if (get_int(v, o, path, "max_instances", 1, (long long)json_array_size(st), &pr->max_instances))
		return -1;
	return 0;
}

static int load_card(struct jv *v, const json_t *o, const char *path, struct mig_card *c)
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
		return jv_fail(v, p, "expected an array of 1 to %d profiles, got %s", MIG_PROFILES_MAX,
		            json_is_array(pa) ? "another count" : jv_type(pa));
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
				return jv_fail(v, q, "profile \"%s\" listed twice (also at index %zu)", pr->name, d);
		c->nprofiles++;
	}
	return 0;
}

int mig_load_text(struct mig_geometry *g, const char *text, const char *file, char *err, size_t errlen)
{
	static const char *const keys[] = { "about", "cards", NULL };
	static const char *const req[] = { "cards", NULL };
	struct jv v = { .file = file, .err = err, .errlen = errlen };
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
		jv_fail(&v, "$.about", "expected a string, got %s", jv_type(about));
		goto out;
	}
	json_t *cards = json_object_get(root, "cards");
	if (!json_is_array(cards) || json_array_size(cards) > MIG_CARDS_MAX) {
		jv_fail(&v, "$.cards", "expected an array of at most %d cards, got %s", MIG_CARDS_MAX,
		     json_is_array(cards) ? "more" : jv_type(cards));
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
				jv_fail(&v, p, "card \"%s\" listed twice (also at index %zu)", c->gpu, d);
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
