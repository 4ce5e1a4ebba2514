/* slurm_json — the JSON parser of exec_slurm (see exec_slurm.h): `sinfo
 * --json` into sx_nodeinfo, for Slurm 22.05's data_parser v0.0.38 and, best
 * effort, 23.x's forms; and the names of the job states. Pure functions of
 * the text: no commands run here. (Jobs are read as squeue -O lines,
 * live/exec/slurm_text.c: squeue --json of 22.05 ignores -j.) */
#include "live/exec/slurm_cmd.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsing sinfo --json ---------------------------------------------- */

/* An integer: a JSON number, or 23.x's {"set": true, "infinite": false,
 * "number": N}. False when absent, unset, infinite or not a number. */
static bool jint(json_t *v, int64_t *out)
{
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return true;
	}
	if (json_is_real(v)) {
		double d = json_real_value(v);
		if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
			return false;   /* outside int64: no number (the cast would be undefined) */
		*out = (int64_t)d;
		return true;
	}
	if (json_is_object(v)) {
		json_t *set = json_object_get(v, "set"), *inf = json_object_get(v, "infinite");
		if ((set && !json_is_true(set)) || json_is_true(inf))
			return false;
		return jint(json_object_get(v, "number"), out);
	}
	return false;
}

static const char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/* Strings of a state: a string, or an array of strings (23.x), plus the
 * array `also` (22.05's node state_flags). Upper-cased into out. */
static int state_words(json_t *v, json_t *also, char out[][32], int max)
{
	int k = 0;
	json_t *srcs[2] = { v, also };
	for (int s = 0; s < 2; s++) {
		json_t *x = srcs[s];
		if (json_is_string(x) && k < max) {
			copy(out[k++], 32, json_string_value(x));
		} else if (json_is_array(x)) {
			size_t i;
			json_t *e;
			json_array_foreach(x, i, e)
				if (json_is_string(e) && k < max)
					copy(out[k++], 32, json_string_value(e));
		}
	}
	for (int i = 0; i < k; i++)
		for (char *p = out[i]; *p; p++)
			*p = (char)toupper((unsigned char)*p);
	return k;
}

static bool in_list(json_t *v, const char *name)
{
	if (json_is_array(v)) {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e)
			if (json_is_string(e) && strcmp(json_string_value(e), name) == 0)
				return true;
		return false;
	}
	const char *s = json_string_value(v);
	size_t k = strlen(name);
	while (s && *s) {
		size_t w = strcspn(s, ",");
		if (w == k && strncmp(s, name, k) == 0)
			return true;
		s += w + (s[w] == ',');
	}
	return false;
}

/* Parses text as a JSON object holding array `key`; also fails on a
 * non-empty "errors" array. */
static json_t *load(const char *text, const char *cmd, const char *key, json_t **arr, char *err, size_t n)
{
	json_error_t je;
	json_t *root = json_loads(text ? text : "", 0, &je);
	if (!root) {
		sx_seterr(err, n, "%s: expected JSON, line %d column %d: %s", cmd, je.line, je.column, je.text);
		return NULL;
	}
	json_t *errs = json_object_get(root, "errors");
	if (json_is_array(errs) && json_array_size(errs) > 0) {
		json_t *e0 = json_array_get(errs, 0);
		const char *d = jstr(e0, "description");
		sx_seterr(err, n, "%s: Slurm reported an error: %s", cmd, d[0] ? d : jstr(e0, "error"));
		json_decref(root);
		return NULL;
	}
	*arr = json_object_get(root, key);
	if (!json_is_object(root) || !json_is_array(*arr)) {
		sx_seterr(err, n, "%s: expected an object with a \"%s\" array", cmd, key);
		json_decref(root);
		return NULL;
	}
	return root;
}

/* The GPU count of a GRES string: "gpu:fake:2,gpu:1(S:0-1),mps:100" is 3.
 * -1 when a gpu entry has no readable count. */
static int gres_gpus(const char *s)
{
	int total = 0;
	while (s && *s) {
		/* One entry: up to a comma outside parentheses. */
		size_t w = 0;
		int depth = 0;
		while (s[w] && (s[w] != ',' || depth > 0)) {
			depth += (s[w] == '(') - (s[w] == ')');
			w++;
		}
		size_t body = strcspn(s, "(");
		if (body > w)
			body = w;
		if (body >= 3 && strncmp(s, "gpu", 3) == 0 && (body == 3 || s[3] == ':')) {
			if (body == 3) {
				total += 1;   /* "gpu" alone: one */
			} else {
				const char *c = s + body;
				while (c > s && isdigit((unsigned char)c[-1]))
					c--;
				if (c == s + body || c[-1] != ':')
					return -1;
				total += atoi(c);
			}
		}
		s += w + (s[w] == ',');
	}
	return total;
}

static const char *const node_bases[] = {
	"IDLE", "MIXED", "ALLOCATED", "DOWN", "ERROR", "FUTURE", "UNKNOWN", "COMPLETING", NULL,
};

int sx_parse_nodes(const char *text, const char *partition, struct sx_nodeinfo **out, int *nout,
                   char *err, size_t n)
{
	const char *cmd = "sinfo --json";
	json_t *arr, *root = load(text, cmd, "nodes", &arr, err, n);
	*out = NULL;
	*nout = 0;
	if (!root)
		return -1;
	size_t cnt = json_array_size(arr), i;
	struct sx_nodeinfo *v = cnt ? calloc(cnt, sizeof *v) : NULL;
	int m = 0;
	json_t *o;
	if (cnt && !v) {
		sx_seterr(err, n, "%s: out of memory", cmd);
		goto fail;
	}
	json_array_foreach(arr, i, o) {
		struct sx_nodeinfo *ni = &v[m];
		char words[16][32];
		memset(ni, 0, sizeof *ni);
		int64_t x;
		const char *name = jstr(o, "name");
		if (!json_is_object(o) || !name[0]) {
			sx_seterr(err, n, "%s: nodes[%zu]: expected an object with a name", cmd, i);
			goto fail;
		}
		int nw = state_words(json_object_get(o, "state"), json_object_get(o, "state_flags"), words, 16);
		if (nw == 0) {
			sx_seterr(err, n, "%s: nodes[%zu] (%s): expected state as a string or an array of "
			       "strings", cmd, i, name);
			goto fail;
		}
		if (partition && partition[0] && !in_list(json_object_get(o, "partitions"), partition))
			continue;
		copy(ni->name, sizeof ni->name, name);
		for (int b = 0; node_bases[b] && !ni->state[0]; b++)
			for (int k = 0; k < nw; k++)
				if (strcmp(words[k], node_bases[b]) == 0)
					copy(ni->state, sizeof ni->state, node_bases[b]);
		for (char *p = ni->state; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		ni->idle = strcmp(ni->state, "idle") == 0;
		ni->mixed = strcmp(ni->state, "mixed") == 0;
		ni->alloc = strcmp(ni->state, "allocated") == 0;
		ni->down = strcmp(ni->state, "down") == 0;
		for (int k = 0; k < nw; k++) {
			if (strncmp(words[k], "DRAIN", 5) == 0)
				ni->drain = true;
			if (strcmp(words[k], "NOT_RESPONDING") == 0)
				ni->not_responding = true;
			if (strcmp(words[k], "RESERVED") == 0 || strcmp(words[k], "MAINTENANCE") == 0)
				ni->reserved = true;
		}
		ni->cpus = jint(json_object_get(o, "cpus"), &x) ? (int)x : 0;
		ni->alloc_cpus = jint(json_object_get(o, "alloc_cpus"), &x) ? (int)x : 0;
		ni->mem_mib = jint(json_object_get(o, "real_memory"), &x) ? x : 0;
		ni->alloc_mem_mib = jint(json_object_get(o, "alloc_memory"), &x) ? x : 0;
		json_t *parts = json_object_get(o, "partitions");
		size_t pi, off = 0;
		json_t *pv;
		json_array_foreach(parts, pi, pv)
			if (json_is_string(pv) && off < sizeof ni->partitions)
				off += (size_t)snprintf(ni->partitions + off, sizeof ni->partitions - off, "%s%s",
				                        off ? "," : "", json_string_value(pv));
		copy(ni->reason, sizeof ni->reason, jstr(o, "reason"));
		json_t *sv = json_object_get(o, "slurmd_version");
		ni->unregistered = json_is_string(sv) && !json_string_value(sv)[0];
		ni->gpus = gres_gpus(jstr(o, "gres"));
		ni->gpus_used = gres_gpus(jstr(o, "gres_used"));
		if (ni->gpus < 0 || ni->gpus_used < 0) {
			sx_seterr(err, n, "%s: nodes[%zu] (%s): gres '%s' / gres_used '%s': expected "
			       "gpu[:type]:count entries", cmd, i, name, jstr(o, "gres"), jstr(o, "gres_used"));
			goto fail;
		}
		m++;
	}
	json_decref(root);
	if (m == 0) {
		free(v);
		v = NULL;
	}
	*out = v;
	*nout = m;
	return 0;
fail:
	free(v);
	json_decref(root);
	return -1;
}

/* ---- naming states ------------------------------------------------------ */

const char *sx_state_name(enum sx_state s)
{
	static const char *const names[] = {
		[SX_PENDING] = "PENDING", [SX_HELD] = "HELD", [SX_RUNNING] = "RUNNING",
		[SX_COMPLETING] = "COMPLETING", [SX_COMPLETED] = "COMPLETED", [SX_FAILED] = "FAILED",
		[SX_CANCELLED] = "CANCELLED", [SX_TIMEOUT] = "TIMEOUT", [SX_NODE_FAIL] = "NODE_FAIL",
		[SX_PREEMPTED] = "PREEMPTED", [SX_REQUEUED] = "REQUEUED", [SX_OOM] = "OUT_OF_MEMORY",
		[SX_UNKNOWN] = "UNKNOWN", [SX_GONE] = "GONE", [SX_SUSPENDED] = "SUSPENDED",
	};
	return (unsigned)s < sizeof names / sizeof names[0] && names[s] ? names[s] : "?";
}

bool sx_state_final(enum sx_state s)
{
	switch (s) {
	case SX_COMPLETED: case SX_FAILED: case SX_CANCELLED: case SX_TIMEOUT:
	case SX_NODE_FAIL: case SX_PREEMPTED: case SX_OOM: case SX_GONE:
		return true;
	default:
		return false;
	}
}
