/* jobline — what a live job line carries beyond a trace line: "argv",
 * "env", "cwd", "name" (checked by `hetlab submit`, kept per job by the
 * daemon). See live_int.h and docs/live.md "Jobs". */
#include "live/live_int.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const live_spec_extra[] = { "argv", "env", "cwd", "name", NULL };

/* ---- the job line's extras: argv, env, cwd, name ---- */

static char **strv_from_json(json_t *a, bool env)
{
	size_t n = json_is_array(a) ? json_array_size(a) : json_is_object(a) ? json_object_size(a) : 0;
	char **v = calloc(n + 1, sizeof *v);
	if (!v)
		return NULL;
	size_t k = 0;
	if (env && json_is_object(a)) {
		const char *key;
		json_t *x;
		json_object_foreach(a, key, x)
			if (json_is_string(x) && asprintf(&v[k], "%s=%s", key, json_string_value(x)) >= 0)
				k++;
	} else {
		for (size_t i = 0; i < n; i++)
			if (json_is_string(json_array_get(a, i)))
				v[k++] = strdup(json_string_value(json_array_get(a, i)));
	}
	return v;
}

void jobx_free(struct jobx *x)
{
	for (int k = 0; x->argv && x->argv[k]; k++)
		free(x->argv[k]);
	for (int k = 0; x->env && x->env[k]; k++)
		free(x->env[k]);
	free(x->argv);
	free(x->env);
	free(x->cwd);
	free(x->name);
	free(x->cpus);
	memset(x, 0, sizeof *x);
}

/* Checks the extras of a job line: "argv" a non-empty array of strings,
 * "env" an object of strings, "cwd" and "name" strings. */
int live_spec_check(const char *src, const char *text, char *err, size_t errlen)
{
	json_error_t je;
	json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!o) {
		snprintf(err, errlen, "%s:%d:%d: %s", src, je.line, je.column, je.text);
		return -1;
	}
	int rc = -1;
	json_t *a = json_object_get(o, "argv"), *e = json_object_get(o, "env");
	if (!json_is_object(o)) {
		snprintf(err, errlen, "%s: $: expected a job object", src);
		goto out;
	}
	if (!json_is_array(a) || json_array_size(a) == 0) {
		snprintf(err, errlen, "%s: $.argv: expected a non-empty array of strings (the program and its arguments)", src);
		goto out;
	}
	for (size_t i = 0; i < json_array_size(a); i++)
		if (!json_is_string(json_array_get(a, i)) || (i == 0 && !json_string_length(json_array_get(a, 0)))) {
			snprintf(err, errlen, "%s: $.argv[%zu]: expected a%s string", src, i, i == 0 ? " non-empty" : "");
			goto out;
		}
	if (e) {
		const char *k;
		json_t *x;
		if (!json_is_object(e)) {
			snprintf(err, errlen, "%s: $.env: expected an object of NAME: \"value\"", src);
			goto out;
		}
		json_object_foreach(e, k, x)
			if (!json_is_string(x) || !k[0] || strchr(k, '=')) {
				snprintf(err, errlen, "%s: $.env.%.60s: expected a string value under a name without '='", src, k);
				goto out;
			}
	}
	for (int i = 2; live_spec_extra[i]; i++) {
		json_t *x = json_object_get(o, live_spec_extra[i]);
		if (x && !json_is_string(x)) {
			snprintf(err, errlen, "%s: $.%s: expected a string", src, live_spec_extra[i]);
			goto out;
		}
	}
	rc = 0;
out:
	json_decref(o);
	return rc;
}

void jobx_fill(struct jobx *x, const char *text)
{
	x->uid = x->gid = -1;
	json_t *o = json_loads(text, 0, NULL);
	if (!o)
		return;
	json_t *a = json_object_get(o, "argv"), *e = json_object_get(o, "env");
	if (json_is_array(a) && json_array_size(a) > 0)
		x->argv = strv_from_json(a, false);
	if (json_is_object(e))
		x->env = strv_from_json(e, true);
	json_t *c = json_object_get(o, "cwd"), *n = json_object_get(o, "name");
	if (json_is_string(c))
		x->cwd = strdup(json_string_value(c));
	if (json_is_string(n))
		x->name = strdup(json_string_value(n));
	json_decref(o);
}

