/* k8snodes — `kubectl get nodes -o json` as a node inventory (k8s.h,
 * nodelist.h format INV_K8S; docs/traces.md, "Kubernetes").
 *
 * Per Node: status.allocatable (what pods may take; status.capacity for
 * what it lacks) gives the cores (whole cores: "7910m" is 7) and the
 * memory (MiB, rounded down); the GPU Feature Discovery labels give the
 * GPUs: nvidia.com/gpu.product the model (the suffixes GFD adds for MIG
 * and shared cards dropped), nvidia.com/gpu.count the physical cards
 * (else the nvidia.com/gpu resource, divided by nvidia.com/gpu.replicas
 * under time-slicing), nvidia.com/gpu.memory the card's memory, and
 * nvidia.com/mig.strategy which cards run MIG: all of them (single), or
 * those the device plugin does not offer whole (mixed). Control-plane
 * nodes (tainted NoSchedule as such) take no pods and are left out; the
 * others' taints (spec.taints) are kept as sim/taint.h text, for the
 * node label node.taints. */
#include "traces/k8s.h"
#include "traces/k8sutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/taint.h"

static bool control_plane(const json_t *node)
{
	json_t *spec = json_object_get(node, "spec");
	json_t *taints = json_is_object(spec) ? json_object_get(spec, "taints") : NULL, *t;
	size_t i;
	json_array_foreach(taints, i, t) {
		json_t *k = json_object_get(t, "key"), *e = json_object_get(t, "effect");
		const char *ks = json_is_string(k) ? json_string_value(k) : "";
		if ((strcmp(ks, "node-role.kubernetes.io/control-plane") == 0 ||
		     strcmp(ks, "node-role.kubernetes.io/master") == 0) &&
		    json_is_string(e) && strcmp(json_string_value(e), "NoSchedule") == 0)
			return true;
	}
	return false;
}

/* A resource of allocatable, else of capacity; *v -1 when neither has it. */
static int resource(struct kpath *k, const json_t *alloc, const json_t *cap, const char *key,
                    bool milli, const char *want, int64_t *v)
{
	*v = -1;
	const json_t *o = alloc && json_object_get(alloc, key) ? alloc : cap;
	if (!o || !json_object_get(o, key))
		return 0;
	size_t at = kp_key(k, o == alloc ? "allocatable" : "capacity");
	int rc = kp_quantity(k, o, key, milli, want, v);
	kp_pop(k, at);
	return rc;
}

/* An integer label; *v -1 when absent. */
static int int_label(struct kpath *k, const json_t *labels, const char *key, int64_t max, int64_t *v)
{
	const char *s;
	*v = -1;
	if (kp_str(k, labels, key, false, &s))
		return -1;
	if (!s)
		return 0;
	char *end;
	long long x = strtoll(s, &end, 10);
	if (!*s || *end || x < 0 || x > max)
		return kp_fail(k, key, "expected an integer in 0..%lld, got \"%.40s\"", (long long)max, s);
	*v = x;
	return 0;
}

/* spec.taints as sim/taint.h text into nd->taints (NULL when none). */
static int node_taints(struct kpath *k, const json_t *node, struct inv_node *nd)
{
	json_t *spec = json_object_get(node, "spec"), *ts, *t;
	size_t i, at;
	if (!json_is_object(spec))
		return 0;
	at = kp_key(k, "spec");
	if (kp_arr(k, spec, "taints", false, &ts))
		return -1;
	char text[4096] = "";
	size_t off = 0;
	size_t at2 = kp_key(k, "taints");
	json_array_foreach(ts, i, t) {
		const char *key, *value, *effect;
		kp_idx(k, i);
		if (!json_is_object(t))
			return kp_fail(k, NULL, "expected a taint object, got %s", kp_type(t));
		if (kp_str(k, t, "key", true, &key) || kp_str(k, t, "value", false, &value) ||
		    kp_str(k, t, "effect", true, &effect))
			return -1;
		int m = snprintf(text + off, sizeof text - off, "%s%s%s%s:%s", off ? ", " : "", key,
		                 value && *value ? "=" : "", value ? value : "", effect);
		if (m < 0 || (size_t)m >= sizeof text - off)
			return kp_fail(k, NULL, "more taints than a node may keep (%zu bytes)", sizeof text);
		off += (size_t)m;
		struct taint *one;
		int32_t n1;
		char msg[256];
		if (taint_parse(text, &one, &n1, msg, sizeof msg))
			return kp_fail(k, NULL, "%s", msg);
		taint_free(one, n1);
		kp_pop(k, at2);
	}
	kp_pop(k, at);
	if (off && !(nd->taints = strdup(text)))
		return kp_fail(k, NULL, "out of memory");
	return 0;
}

static int one_node(struct kpath *k, const json_t *node, struct inv_node *nd)
{
	json_t *md, *labels = NULL, *st, *alloc = NULL, *cap = NULL;
	const char *kind, *name, *product = NULL, *strategy = NULL;
	if (!json_is_object(node))
		return kp_fail(k, NULL, "expected a Node object, got %s", kp_type(node));
	if (kp_str(k, node, "kind", false, &kind))
		return -1;
	if (kind && strcmp(kind, "Node") != 0)
		return kp_fail(k, "kind", "expected \"Node\", got \"%.40s\"", kind);
	if (kp_obj(k, node, "metadata", true, &md) || kp_obj(k, node, "status", true, &st))
		return -1;
	size_t at = kp_key(k, "metadata");
	if (kp_str(k, md, "name", true, &name) || kp_obj(k, md, "labels", false, &labels))
		return -1;
	if (!*name || strlen(name) >= INV_NAME_MAX)
		return kp_fail(k, "name", "expected a node name of 1 to %d characters, got \"%.80s\"",
		               INV_NAME_MAX - 1, name);
	snprintf(nd->name, sizeof nd->name, "%s", name);
	int64_t count = -1, mem = -1, replicas = -1;
	if (labels) {
		kp_key(k, "labels");
		if (kp_str(k, labels, "nvidia.com/gpu.product", false, &product) ||
		    kp_str(k, labels, "nvidia.com/mig.strategy", false, &strategy) ||
		    int_label(k, labels, "nvidia.com/gpu.count", INV_MAX_GPUS, &count) ||
		    int_label(k, labels, "nvidia.com/gpu.memory", INT64_C(1) << 40, &mem) ||
		    int_label(k, labels, "nvidia.com/gpu.replicas", 1 << 20, &replicas))
			return -1;
		if (strategy && strcmp(strategy, "none") != 0 && strcmp(strategy, "single") != 0 &&
		    strcmp(strategy, "mixed") != 0)
			return kp_fail(k, "nvidia.com/mig.strategy", "expected none, single or mixed, got "
			               "\"%.40s\"", strategy);
		if (strategy && strcmp(strategy, "none") != 0 && count < 0)
			return kp_fail(k, "nvidia.com/mig.strategy", "%s without the label "
			               "nvidia.com/gpu.count: the node's cards cannot be told from its MIG "
			               "devices", strategy);
	}
	kp_pop(k, at);
	at = kp_key(k, "status");
	if (kp_obj(k, st, "allocatable", false, &alloc) || kp_obj(k, st, "capacity", false, &cap))
		return -1;
	int64_t cpu, bytes, devs;
	if (resource(k, alloc, cap, "cpu", true, "a CPU quantity such as \"96\" or \"95500m\"", &cpu) ||
	    resource(k, alloc, cap, "memory", false, "a memory quantity such as \"1056Gi\"", &bytes) ||
	    resource(k, alloc, cap, "nvidia.com/gpu", false, "a GPU count such as \"8\"", &devs))
		return -1;
	if (cpu < 1000 || cpu / 1000 > INV_MAX_CORES)
		return kp_fail(k, "allocatable", "cpu: expected at least one whole core (and at most %d), "
		               "got %s", INV_MAX_CORES, cpu < 0 ? "none" : "less");
	if (bytes < 0)
		return kp_fail(k, "allocatable", "memory: missing (expected a quantity such as \"512Gi\")");
	nd->cpu_cores = (int32_t)(cpu / 1000);
	nd->mem_mib = bytes >> 20;
	if (nd->mem_mib > INV_MAX_MEM_MIB)
		return kp_fail(k, "allocatable", "memory: more than %lld MiB", (long long)INV_MAX_MEM_MIB);
	bool mig = strategy && strcmp(strategy, "none") != 0;
	int64_t gpus = count >= 0 ? count : devs < 0 ? 0 : replicas > 1 ? devs / replicas : devs;
	if (gpus > INV_MAX_GPUS)
		return kp_fail(k, "allocatable", "nvidia.com/gpu: %lld GPUs on one node, more than %d "
		               "(give nvidia.com/gpu.count)", (long long)gpus, INV_MAX_GPUS);
	kp_pop(k, at);
	if (node_taints(k, node, nd))
		return -1;
	if (gpus > 0 && !product)
		return kp_fail(k, "metadata", "labels: a node with %lld GPUs needs the GPU Feature "
		               "Discovery label nvidia.com/gpu.product (its GPU model)", (long long)gpus);
	nd->gpus = (int32_t)gpus;
	if (gpus > 0) {
		/* GFD's product with -MIG-<profile> (single strategy) or -SHARED
		 * (time-slicing, renamed) after the card's own name. */
		char model[128];
		snprintf(model, sizeof model, "%s", product);
		char *cut = strstr(model, "-MIG-");
		if (!cut)
			cut = strstr(model, "-SHARED");
		if (cut)
			*cut = '\0';
		if (!*model || strlen(model) >= INV_MODEL_MAX)
			return kp_fail(k, "metadata", "labels.nvidia.com/gpu.product: expected a product name "
			               "of 1 to %d characters, got \"%.80s\"", INV_MODEL_MAX - 1, product);
		snprintf(nd->model, sizeof nd->model, "%s", model);
		if (mig && strcmp(strategy, "single") == 0)
			nd->mig_cards = nd->gpus;
		else if (mig)   /* mixed: the whole cards are offered as nvidia.com/gpu */
			nd->mig_cards = nd->gpus - (int32_t)(devs > 0 ? (devs < gpus ? devs : gpus) : 0);
		nd->gpu_mem_mib = mig ? 0 : mem > 0 ? mem : 0;
	}
	return 0;
}

int k8s_nodes_read(const char *path, struct inv_nodes *out, char *err, size_t errlen)
{
	struct kpath k = { .file = path, .err = err, .errlen = errlen };
	json_t *one = NULL, *items = NULL, *node;
	size_t i, n = 0;
	int rc = -1;
	/* (filled here, not through nodelist.c, which calls this reader) */
	memset(out, 0, sizeof *out);
	out->fmt = INV_K8S;
	json_t *root = k8s_load(path, err, errlen);
	if (!root)
		return -1;
	if (!(items = k8s_items(path, root, K8S_LIST_NODES, &one, err, errlen)))
		goto out;
	n = json_array_size(items);
	if (n > INV_MAX_NODES) {
		snprintf(err, errlen, "%s: %zu nodes, more than %d", path, n, INV_MAX_NODES);
		goto out;
	}
	if (!(out->node = calloc(n ? n : 1, sizeof *out->node))) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	json_array_foreach(items, i, node) {
		kp_pop(&k, 0);
		if (!one) {
			kp_key(&k, "items");
			kp_idx(&k, i);
		}
		if (control_plane(node))
			continue;
		struct inv_node *nd = &out->node[out->n];
		nd->item = (int32_t)i;
		if (one_node(&k, node, nd))
			goto out;
		out->n++;
	}
	if (out->n == 0) {
		snprintf(err, errlen, "%s: no nodes that take pods (control-plane nodes are left out)", path);
		goto out;
	}
	out->lines = (int64_t)n;
	rc = 0;
out:
	json_decref(one);
	json_decref(root);
	if (rc) {
		/* the nodes read, and the one that failed (calloc'd: NULL when it has none) */
		for (size_t j = 0; out->node && j <= (size_t)out->n && j < n; j++)
			free(out->node[j].taints);
		free(out->node);
		memset(out, 0, sizeof *out);
	}
	return rc;
}
