/* tieredcfg — the scenario's "tiered" block. See tieredcfg.h and
 * docs/scenario.md "tiered". */
#include "config/tieredcfg.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const tiered_keys[] = { "reserve", "victim_order", "dev", NULL };
static const char *const reserve_keys[] = { "gpu", "gpus", "nodes", NULL };
static const char *const dev_keys[] = { "max_gpus_per_tenant", "max_runtime_s", NULL };

void tiered_cfg_init(struct tiered_cfg *t)
{
	memset(t, 0, sizeof *t);
	t->victim_order[0] = JOB_DEV;
	t->victim_order[1] = JOB_BATCH;
	t->victim_order[2] = JOB_TRAINING;
	t->nvictim = 3;
	t->dev_max_gpus = -1;
	t->dev_max_runtime_us = SIMTIME_INF;
}

void tiered_cfg_fini(struct tiered_cfg *t)
{
	free(t->names);
	free(t->name_at);
	free(t->nodes);
	t->names = NULL;
	t->name_at = NULL;
	t->nodes = NULL;
	t->nnames = t->nnodes = 0;
}

static void gpu_list(const struct catalog *cat, char *out, size_t len)
{
	size_t off = 0;
	out[0] = '\0';
	for (int i = 0; i < cat->ngpus && off < len; i++)
		off += (size_t)snprintf(out + off, len - off, "%s%s", i ? ", " : "", cat->gpus[i].name);
}

/* {"nodes": [names]} at path p (entry k of "reserve"). */
static int load_nodes(struct jv *v, const json_t *arr, const char *p, int k, struct tiered_cfg *t)
{
	char q[320];
	size_t n = json_array_size(arr);
	if (n == 0)
		return jv_fail(v, p, "expected a non-empty array of node names");
	if ((size_t)t->nnames + n > TIERED_MAX_NODES)
		return jv_fail(v, p, "too many bound nodes (at most %d in all)", TIERED_MAX_NODES);
	void *nn = realloc(t->names, ((size_t)t->nnames + n) * sizeof *t->names);
	if (!nn)
		return jv_fail(v, p, "out of memory");
	t->names = nn;
	void *na = realloc(t->name_at, ((size_t)t->nnames + n) * sizeof *t->name_at);
	if (!na)
		return jv_fail(v, p, "out of memory");
	t->name_at = na;
	for (size_t i = 0; i < n; i++) {
		const json_t *e = json_array_get(arr, i);
		jv_idxpath(q, sizeof q, p, i);
		if (!json_is_string(e))
			return jv_fail(v, q, "expected a node name (a string), got %s", jv_type(e));
		const char *s = json_string_value(e);
		if (!s[0] || strlen(s) >= HL_NAME_MAX)
			return jv_fail(v, q, "expected a node name of 1 to %d bytes, got \"%s\"", HL_NAME_MAX - 1, s);
		snprintf(t->names[t->nnames], HL_NAME_MAX, "%s", s);
		t->name_at[t->nnames] = (uint32_t)k << 16 | (uint32_t)i;
		t->nnames++;
	}
	return 0;
}

static int load_reserve(struct jv *v, const struct catalog *cat, const json_t *arr, struct tiered_cfg *t)
{
	char p[128], q[160], names[1024];
	for (size_t k = 0; k < json_array_size(arr); k++) {
		const json_t *e = json_array_get(arr, k);
		jv_idxpath(p, sizeof p, "$.tiered.reserve", k);
		if (k >= 0xffff)
			return jv_fail(v, p, "too many reserve entries");
		if (jv_object(v, e, p, reserve_keys))
			return -1;
		const json_t *nodes = json_object_get(e, "nodes");
		bool gpu = json_object_get(e, "gpu") || json_object_get(e, "gpus");
		if (nodes && gpu)
			return jv_fail(v, p, "expected either {\"gpu\", \"gpus\"} or {\"nodes\"}, not both");
		if (nodes) {
			jv_subpath(q, sizeof q, p, "nodes");
			if (!json_is_array(nodes))
				return jv_fail(v, q, "expected an array of node names, got %s", jv_type(nodes));
			if (load_nodes(v, nodes, q, (int)k, t))
				return -1;
			continue;
		}
		char model[HL_NAME_MAX] = "";
		long long gpus = 0;
		if (jv_str(v, e, p, "gpu", true, model, sizeof model) ||
		    jv_int(v, e, p, "gpus", true, 1, 1000000, &gpus))
			return -1;
		int m = catalog_find_gpu(cat, model);
		jv_subpath(q, sizeof q, p, "gpu");
		if (m < 0) {
			gpu_list(cat, names, sizeof names);
			return jv_fail(v, q, "unknown GPU model \"%s\" (the catalog has: %s)", model, names);
		}
		for (int i = 0; i < t->nreserve; i++)
			if (t->reserve[i].gpu_model == m)
				return jv_fail(v, q, "\"%s\" is reserved twice", model);
		if (t->nreserve >= TIERED_MAX_RESERVE)
			return jv_fail(v, p, "too many GPU reservations (at most %d)", TIERED_MAX_RESERVE);
		t->reserve[t->nreserve++] = (struct tiered_reserve){ .gpu_model = m, .gpus = (int32_t)gpus };
	}
	return 0;
}

static int load_victims(struct jv *v, const json_t *arr, struct tiered_cfg *t)
{
	char q[128];
	bool seen[JOB_NCLASS] = { false };
	if (json_array_size(arr) > JOB_NCLASS - 1)
		return jv_fail(v, "$.tiered.victim_order", "expected at most %d classes, got %zu",
		               JOB_NCLASS - 1, json_array_size(arr));
	t->nvictim = 0;
	for (size_t i = 0; i < json_array_size(arr); i++) {
		const json_t *e = json_array_get(arr, i);
		jv_idxpath(q, sizeof q, "$.tiered.victim_order", i);
		if (!json_is_string(e))
			return jv_fail(v, q, "expected a job class (a string), got %s", jv_type(e));
		int c = job_class_parse(json_string_value(e));
		if (c < 0)
			return jv_fail(v, q, "unknown job class \"%s\" (expected one of: dev, batch, training)",
			               json_string_value(e));
		if (c == JOB_INFERENCE)
			return jv_fail(v, q, "inference jobs are never preempted (expected dev, batch or training)");
		if (seen[c])
			return jv_fail(v, q, "class \"%s\" listed twice", json_string_value(e));
		seen[c] = true;
		t->victim_order[t->nvictim++] = (uint8_t)c;
	}
	return 0;
}

int tiered_load(struct jv *v, const struct catalog *cat, const json_t *root, struct tiered_cfg *t)
{
	tiered_cfg_init(t);
	if (v->failed)
		return -1;
	const json_t *o = json_object_get(root, "tiered");
	if (!o)
		return 0;
	if (jv_object(v, o, "$.tiered", tiered_keys))
		return -1;
	t->present = true;
	const json_t *res = jv_array(v, o, "$.tiered", "reserve", false);
	if (v->failed || (res && load_reserve(v, cat, res, t)))
		return -1;
	const json_t *vo = jv_array(v, o, "$.tiered", "victim_order", false);
	if (v->failed || (vo && load_victims(v, vo, t)))
		return -1;
	const json_t *dev = json_object_get(o, "dev");
	if (dev) {
		long long gpus = -1;
		double run_s = 0;
		if (jv_object(v, dev, "$.tiered.dev", dev_keys) ||
		    jv_int(v, dev, "$.tiered.dev", "max_gpus_per_tenant", false, 0, 1000000, &gpus) ||
		    jv_num(v, dev, "$.tiered.dev", "max_runtime_s", false, 1, 1e9, &run_s))
			return -1;
		t->dev_max_gpus = (int32_t)gpus;
		if (run_s > 0)
			t->dev_max_runtime_us = simtime_from_s(run_s);
	}
	return 0;
}

static int bind_fail(char *err, size_t errlen, const struct tiered_cfg *t, int i, const char *what)
{
	snprintf(err, errlen, "$.tiered.reserve[%u].nodes[%u]: node \"%s\" %s", t->name_at[i] >> 16,
	         t->name_at[i] & 0xffffu, t->names[i], what);
	return -1;
}

struct byname {
	const char *name;
	int32_t node;
};

static int byname_cmp(const void *a, const void *b)
{
	return strcmp(((const struct byname *)a)->name, ((const struct byname *)b)->name);
}

/* t->names → t->nodes (increasing), through a name-sorted index. */
static int bind_names(struct tiered_cfg *t, const struct cluster *cl, char *err, size_t errlen)
{
	struct byname *idx = malloc((size_t)cl->nnodes * sizeof *idx + 1);
	uint8_t *seen = calloc((size_t)cl->nnodes + 1, 1);
	t->nodes = malloc((size_t)t->nnames * sizeof *t->nodes);
	if (!idx || !seen || !t->nodes) {
		free(idx);
		free(seen);
		snprintf(err, errlen, "$.tiered: out of memory");
		return -1;
	}
	for (int32_t k = 0; k < cl->nnodes; k++)
		idx[k] = (struct byname){ cl->nodes[k].name, k };
	qsort(idx, (size_t)cl->nnodes, sizeof *idx, byname_cmp);
	int rc = 0;
	for (int32_t i = 0; i < t->nnames && rc == 0; i++) {
		struct byname key = { t->names[i], -1 };
		const struct byname *hit = cl->nnodes > 0
		        ? bsearch(&key, idx, (size_t)cl->nnodes, sizeof *idx, byname_cmp) : NULL;
		if (!hit)
			rc = bind_fail(err, errlen, t, i, "is not in the cluster (nodes are named <rack>-n<k>)");
		else if (seen[hit->node]++)
			rc = bind_fail(err, errlen, t, i, "is bound twice");
	}
	free(idx);
	if (rc == 0)
		for (int32_t k = 0; k < cl->nnodes; k++)
			if (seen[k])
				t->nodes[t->nnodes++] = k;
	free(seen);
	return rc;
}

int tiered_bind(struct tiered_cfg *t, const struct cluster *cl, char *err, size_t errlen)
{
	free(t->nodes);
	t->nodes = NULL;
	t->nnodes = 0;
	if (t->nnames > 0 && bind_names(t, cl, err, errlen))
		return -1;
	for (int r = 0; r < t->nreserve; r++) {
		int64_t have = 0;
		int32_t m = t->reserve[r].gpu_model;
		for (int32_t k = 0, b = 0; k < cl->nnodes; k++) {
			while (b < t->nnodes && t->nodes[b] < k)
				b++;
			if (b < t->nnodes && t->nodes[b] == k)
				continue;
			if (cl->nodes[k].gpu_model == m)
				have += cl->nodes[k].ngpus - cl->nodes[k].mig_cards;
		}
		if (have < t->reserve[r].gpus) {
			snprintf(err, errlen, "$.tiered.reserve: %d %s GPUs reserved, but the cluster has %lld "
			         "(whole, not MIG, on nodes not bound to inference)", t->reserve[r].gpus,
			         m < cl->cat.ngpus ? cl->cat.gpus[m].name : "?", (long long)have);
			return -1;
		}
	}
	return 0;
}
