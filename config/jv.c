/* jv — checking JSON against what a loader expects, with errors that name
 * the file and the JSON path (see jv.h). */
#include "config/jv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int jv_fail(struct jv *v, const char *path, const char *fmt, ...)
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

const char *jv_type(const json_t *j)
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

/* Checks that o is an object whose keys are all in the NULL-terminated list. */
int jv_object(struct jv *v, const json_t *o, const char *path, const char *const *keys)
{
	if (!json_is_object(o))
		return jv_fail(v, path, "expected an object, got %s", jv_type(o));
	const char *k;
	json_t *val;
	json_object_foreach((json_t *)o, k, val) {
		bool known = false;
		for (int i = 0; keys[i] && !known; i++)
			known = strcmp(keys[i], k) == 0;
		if (!known) {
			char all[512] = "";
			size_t off = 0;
			for (int i = 0; keys[i] && off < sizeof all; i++)
				off += (size_t)snprintf(all + off, sizeof all - off, "%s%s", i ? ", " : "", keys[i]);
			return jv_fail(v, path, "unknown key \"%s\" (expected one of: %s)", k, all);
		}
	}
	return 0;
}

void jv_subpath(char *out, size_t len, const char *path, const char *key)
{
	snprintf(out, len, "%s.%s", path, key);
}

void jv_idxpath(char *out, size_t len, const char *path, size_t i)
{
	snprintf(out, len, "%s[%zu]", path, i);
}

int jv_num(struct jv *v, const json_t *o, const char *path, const char *key, bool required,
                  double min, double max, double *out)
{
	char p[256];
	jv_subpath(p, sizeof p, path, key);
	json_t *x = json_object_get(o, key);
	if (!x) {
		if (required)
			return jv_fail(v, p, "missing (expected a number in [%g, %g])", min, max);
		return 0;
	}
	if (!json_is_number(x))
		return jv_fail(v, p, "expected a number in [%g, %g], got %s", min, max, jv_type(x));
	double d = json_number_value(x);
	if (!(d >= min && d <= max))
		return jv_fail(v, p, "expected a number in [%g, %g], got %g", min, max, d);
	*out = d;
	return 0;
}

int jv_int(struct jv *v, const json_t *o, const char *path, const char *key, bool required,
                  long long min, long long max, long long *out)
{
	char p[256];
	jv_subpath(p, sizeof p, path, key);
	json_t *x = json_object_get(o, key);
	if (!x) {
		if (required)
			return jv_fail(v, p, "missing (expected an integer in [%lld, %lld])", min, max);
		return 0;
	}
	if (!json_is_integer(x))
		return jv_fail(v, p, "expected an integer in [%lld, %lld], got %s", min, max, jv_type(x));
	long long d = json_integer_value(x);
	if (d < min || d > max)
		return jv_fail(v, p, "expected an integer in [%lld, %lld], got %lld", min, max, d);
	*out = d;
	return 0;
}

int jv_str(struct jv *v, const json_t *o, const char *path, const char *key, bool required,
                  char *out, size_t len)
{
	char p[256];
	jv_subpath(p, sizeof p, path, key);
	json_t *x = json_object_get(o, key);
	if (!x) {
		if (required)
			return jv_fail(v, p, "missing (expected a string)");
		return 0;
	}
	if (!json_is_string(x))
		return jv_fail(v, p, "expected a string, got %s", jv_type(x));
	if (strlen(json_string_value(x)) >= len)
		return jv_fail(v, p, "too long (at most %zu characters)", len - 1);
	snprintf(out, len, "%s", json_string_value(x));
	return 0;
}

int jv_bool(struct jv *v, const json_t *o, const char *path, const char *key, bool *out)
{
	char p[256];
	jv_subpath(p, sizeof p, path, key);
	json_t *x = json_object_get(o, key);
	if (!x)
		return 0;
	if (!json_is_boolean(x))
		return jv_fail(v, p, "expected true or false, got %s", jv_type(x));
	*out = json_is_true(x);
	return 0;
}

json_t *jv_array(struct jv *v, const json_t *o, const char *path, const char *key, bool required)
{
	char p[256];
	jv_subpath(p, sizeof p, path, key);
	json_t *x = json_object_get(o, key);
	if (!x) {
		if (required)
			jv_fail(v, p, "missing (expected an array)");
		return NULL;
	}
	if (!json_is_array(x)) {
		jv_fail(v, p, "expected an array, got %s", jv_type(x));
		return NULL;
	}
	return x;
}

