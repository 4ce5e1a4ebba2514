/* jobline — what a live job line carries beyond a trace line: "argv",
 * "env", "cwd", "name" (checked by `hetlab submit`, kept per job by the
 * daemon). See live_int.h and docs/live.md "Jobs". */
#include "live/live_int.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a recorded job line carries beyond a trace line; "submitter" is
 * the daemon's (who submitted it, from the kernel), never a client's. */
const char *const live_spec_extra[] = { "argv", "env", "cwd", "name", "submitter", NULL };

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
	x->uid = x->gid = -1;
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
	for (int i = 2; i < 4; i++) {
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
	x->user[0] = 0;
	json_t *o = json_loads(text, 0, NULL);
	if (!o)
		return;
	json_t *who = json_object_get(o, "submitter");
	json_t *u = json_object_get(who, "uid"), *g = json_object_get(who, "gid"), *un = json_object_get(who, "user");
	if (json_is_integer(u) && json_is_integer(g) && json_integer_value(u) >= 0 && json_integer_value(u) <= INT32_MAX &&
	    json_integer_value(g) >= 0 && json_integer_value(g) <= INT32_MAX) {
		x->uid = (int)json_integer_value(u);
		x->gid = (int)json_integer_value(g);
		if (json_is_string(un))
			snprintf(x->user, sizeof x->user, "%s", json_string_value(un));
	}
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


char *live_job_norm(const char *src, int64_t line, const char *text, size_t len, struct cluster *cl,
                    char *err, size_t errlen)
{
	if (len > LIVE_JOB_LINE_MAX) {
		snprintf(err, errlen, "%s:%lld: a job line of %zu bytes: at most %d bytes are accepted", src, (long long)line,
		         len, LIVE_JOB_LINE_MAX);
		return NULL;
	}
	json_error_t je;
	json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!o) {
		snprintf(err, errlen, "%s:%lld:%d: %s", src, (long long)line, je.column, je.text);
		return NULL;
	}
	if (!json_is_object(o)) {
		snprintf(err, errlen, "%s:%lld: $: expected a job object", src, (long long)line);
		json_decref(o);
		return NULL;
	}
	json_object_del(o, "submitter");
	if (!json_object_get(o, "submit_us"))
		json_object_set_new(o, "submit_us", json_integer(0));
	if (!json_object_get(o, "run_us"))
		json_object_set_new(o, "run_us", json_integer(0));
	char *norm = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!norm) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	char where[600];
	snprintf(where, sizeof where, "%s:%lld", src, (long long)line);
	struct workload w;
	workload_init(&w);
	if (live_spec_check(where, norm, err, errlen) ||
	    trace_jsonl_parse_job(src, line, norm, strlen(norm), live_spec_extra, &w, err, errlen))
		goto bad;
	if (cl && cluster_bind_workload(cl, w.str, w.nstr, w.jobs, w.n, err, errlen)) {
		char msg[1024];
		snprintf(msg, sizeof msg, "%s: %s", where, err);
		snprintf(err, errlen, "%s", msg);
		goto bad;
	}
	if (cl && !cluster_can_ever_fit(cl, &w.jobs[0].req)) {
		snprintf(err, errlen, "%s: the request exceeds every node of the cluster: it could never run", where);
		goto bad;
	}
	workload_free(&w);
	return norm;
bad:
	workload_free(&w);
	free(norm);
	return NULL;
}

/* "n1:4c:gpus=0x3,n2:4c" — where a start put a job. */
void live_placement_text(const struct live *L, int32_t id, char *buf, size_t len)
{
	const struct job *j = &L->s.jobs[id];
	size_t off = 0;
	buf[0] = 0;
	for (int i = 0; i < j->nparts && off < len; i++) {
		const struct alloc_part *p = &L->s.cl.pool.p[j->parts + (uint32_t)i];
		off += (size_t)snprintf(buf + off, len - off, "%s%s:%dc", i ? "," : "", L->s.cl.nodes[p->node].name, p->cores);
		if (p->gpus && off < len)
			off += (size_t)snprintf(buf + off, len - off, ":gpus=0x%llx", (unsigned long long)p->gpus);
		if (p->milli && off < len)
			off += (size_t)snprintf(buf + off, len - off, ":milli=%d", p->milli);
		if (p->mig_profile >= 0 && off < len)
			off += (size_t)snprintf(buf + off, len - off, ":mig=%d@%d", p->mig_profile, p->mig_start);
	}
}
