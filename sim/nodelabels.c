/* nodelabels — derives every node's labels from the modelled hardware
 * (docs/labels.md has the list of keys). See cluster_label_nodes in
 * cluster.h.
 *
 * Derived labels come first, then the free-form labels of the node's type
 * and then of its rack, so a site can override any derived key (a rack
 * label wins over a type label, which wins over a derived one). Free-form
 * buffers are checked once, before any node is labelled, so that a bad key
 * is reported against its type or rack even when no node uses it. */
#include "sim/cluster.h"
#include "sim/label.h"
#include "sim/mig.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

enum { SET_OK = 0, SET_NOMEM = -1, SET_BADKEY = -2 };

static const char *const cooling_name[COOL_N] = { "air", "liquid" };
static const char *const plane_kind_name[PLANE_NKIND] = { "ib", "roce", "eth" };
static const char *const pool_kind_name[POOL_NKIND] = { "nvme", "hdd", "backup" };

/* Every derived key is a literal or built from a pool name, so a failure
 * is ENOMEM unless the key itself is bad; telling them apart here keeps
 * each caller to one line. */
static int set_str(struct labels *L, int32_t node, const char *key, const char *val)
{
	if (labels_set(L, node, key, val) == 0)
		return SET_OK;
	return labels_key_valid(key) ? SET_NOMEM : SET_BADKEY;
}

static int set_num(struct labels *L, int32_t node, const char *key, double x)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%g", x);
	return set_str(L, node, key, buf);
}

/* Integers in full: %g would write a 2^20-core node as 1.04858e+06. */
static int set_int(struct labels *L, int32_t node, const char *key, long long x)
{
	char buf[32];
	snprintf(buf, sizeof buf, "%lld", x);
	return set_str(L, node, key, buf);
}

static int set_bool(struct labels *L, int32_t node, const char *key, bool b)
{
	return set_str(L, node, key, b ? "true" : "false");
}

/* Appends ",name" (or "name" first) to a list being built in buf. */
static void list_add(char *buf, size_t len, const char *name)
{
	size_t n = strlen(buf);
	snprintf(buf + n, len - n, "%s%s", n ? "," : "", name);
}

static int label_gpu(const struct cluster *cl, struct labels *L, const struct node *n)
{
	int rc = set_int(L, n->id, "gpu.count", n->ngpus);
	if (rc || n->ngpus <= 0 || n->gpu_model < 0 || n->gpu_model >= cl->cat.ngpus)
		return rc;
	const struct gpu_model *g = &cl->cat.gpus[n->gpu_model];
	int64_t mem_mib = n->gpu_mem_mib > 0 ? n->gpu_mem_mib : g->mem_mib;
	if ((rc = set_str(L, n->id, "gpu.model", g->name)) ||
	    (rc = set_num(L, n->id, "gpu.mem_gib", (double)mem_mib / 1024)) ||
	    (rc = set_num(L, n->id, "gpu.tdp_w", g->tdp_w)) ||
	    (rc = set_num(L, n->id, "gpu.fp16_tflops", g->fp16_tflops)) ||
	    (rc = set_num(L, n->id, "gpu.fp8_tflops", g->fp8_tflops)) ||
	    (rc = set_bool(L, n->id, "gpu.fp8", g->fp8_tflops > 0)) ||
	    (rc = set_bool(L, n->id, "gpu.mig", g->mig)) ||
	    (rc = set_int(L, n->id, "gpu.mig_cards", n->mig_cards)))
		return rc;
	const struct mig_card *card = cl->mig ? mig_find_card(cl->mig, g->name) : NULL;
	if (!card || card->nprofiles <= 0)
		return SET_OK;
	char list[MIG_PROFILES_MAX * (MIG_NAME_MAX + 1)] = "";
	for (int p = 0; p < card->nprofiles; p++)
		list_add(list, sizeof list, card->profiles[p].name);
	return set_str(L, n->id, "gpu.mig_profiles", list);
}

static int label_cpu(const struct cluster *cl, struct labels *L, const struct node *n)
{
	const struct node_type *t = &cl->types[n->type];
	const struct cpu_model *c = n->cpu_model >= 0 && n->cpu_model < cl->cat.ncpus
	                            ? &cl->cat.cpus[n->cpu_model] : NULL;
	int32_t numa = n->numa > 0 ? n->numa : t->numa > 0 ? t->numa : t->sockets;
	int64_t threads = c && c->threads > 0 ? (int64_t)t->sockets * c->threads : n->cores;
	int rc;
	if (c && (rc = set_str(L, n->id, "cpu.model", c->name)))
		return rc;
	if ((rc = set_int(L, n->id, "cpu.sockets", t->sockets)) ||
	    (rc = set_int(L, n->id, "cpu.cores", n->cores)) ||
	    (rc = set_int(L, n->id, "cpu.threads", threads)) ||
	    (rc = set_int(L, n->id, "cpu.numa", numa)) ||
	    (rc = set_bool(L, n->id, "cpu.avx512", n->avx512)) ||
	    (rc = set_bool(L, n->id, "cpu.amx", n->amx)))
		return rc;
	if (c && c->base_ghz > 0)
		return set_num(L, n->id, "cpu.ghz", c->base_ghz);
	return SET_OK;
}

static int label_net(const struct cluster *cl, struct labels *L, const struct node *n)
{
	int rc = SET_OK;
	if (n->leaf >= 0 && n->leaf < cl->nleaves && (rc = set_str(L, n->id, "net.leaf", cl->leaves[n->leaf])))
		return rc;
	if (n->plane < 0 || n->plane >= cl->nplanes)
		return SET_OK;
	const struct plane *p = &cl->planes[n->plane];
	if ((rc = set_str(L, n->id, "net.plane", p->name)))
		return rc;
	if (p->kind >= 0 && p->kind < PLANE_NKIND && (rc = set_str(L, n->id, "net.kind", plane_kind_name[p->kind])))
		return rc;
	/* 0 means the plane's name carries no speed: better absent than a
	 * "0" that every "net.gbps >= x" would read as a slow network. */
	if (p->gbps > 0)
		return set_num(L, n->id, "net.gbps", p->gbps);
	return SET_OK;
}

/* The lists first, then two keys per pool. On a bad key (a pool name
 * that cannot be part of one), *bad is the pool. */
static int label_storage(const struct cluster *cl, struct labels *L, const struct node *n, int *bad)
{
	char names[HL_POOLS_MAX * HL_NAME_MAX] = "", kinds[64] = "", key[HL_NAME_MAX + 32];
	bool kind_seen[POOL_NKIND] = { false };
	int npools = cl->npools < HL_POOLS_MAX ? cl->npools : HL_POOLS_MAX;
	int rc;
	for (int p = 0; p < npools; p++) {
		if (!(n->pools >> p & 1u))
			continue;
		list_add(names, sizeof names, cl->pools[p].name);
		if (cl->pools[p].kind >= 0 && cl->pools[p].kind < POOL_NKIND)
			kind_seen[cl->pools[p].kind] = true;
	}
	if (!names[0])
		return SET_OK;
	for (int k = 0; k < POOL_NKIND; k++)
		if (kind_seen[k])
			list_add(kinds, sizeof kinds, pool_kind_name[k]);
	if ((rc = set_str(L, n->id, "storage", names)) ||
	    (kinds[0] && (rc = set_str(L, n->id, "storage.kinds", kinds))))
		return rc;
	for (int p = 0; p < npools; p++) {
		if (!(n->pools >> p & 1u))
			continue;
		const struct storage_pool *sp = &cl->pools[p];
		*bad = p;
		snprintf(key, sizeof key, "storage.%s.capacity_tib", sp->name);
		if ((rc = set_num(L, n->id, key, (double)sp->cap_gib / 1024)))
			return rc;
		snprintf(key, sizeof key, "storage.%s.gbps", sp->name);
		if ((rc = set_num(L, n->id, key, sp->bw_mbps / 1000)))
			return rc;
	}
	return SET_OK;
}

/* ---- the label names GPU operators put on Kubernetes nodes -------------
 *
 * NVIDIA GPU Feature Discovery (GFD) and Node Feature Discovery (NFD) label
 * every GPU node of a Kubernetes cluster; the same names here let a
 * Kubernetes user's nodeSelector or affinity run unchanged against a
 * simulated cluster. docs/labels.md ("Kubernetes label names") lists them
 * with the hetlab label each mirrors. What GFD says of a card (its product
 * name, family, compute capability, PCI class) is the catalog's ("gfd" of
 * the GPU entry, docs/catalog.md). */

#define NFD "feature.node.kubernetes.io/"

static int label_k8s(const struct cluster *cl, struct labels *L, const struct node *n)
{
	const struct node_type *t = &cl->types[n->type];
	const struct rack *r = &cl->racks[n->rack];
	const struct cpu_model *c = n->cpu_model >= 0 && n->cpu_model < cl->cat.ncpus
	                            ? &cl->cat.cpus[n->cpu_model] : NULL;
	int32_t numa = n->numa > 0 ? n->numa : t->numa > 0 ? t->numa : t->sockets;
	int rc;
	/* Kubernetes' well-known labels */
	if ((rc = set_str(L, n->id, "kubernetes.io/hostname", n->name)) ||
	    (rc = set_str(L, n->id, "kubernetes.io/os", "linux")) ||
	    (rc = set_str(L, n->id, "kubernetes.io/arch", "amd64")) ||
	    (rc = set_str(L, n->id, "node.kubernetes.io/instance-type", t->name)) ||
	    (rc = set_str(L, n->id, "topology.kubernetes.io/zone", r->name)))
		return rc;
	/* NFD: CPU, memory, network */
	if (c && (rc = set_str(L, n->id, NFD "cpu-model.vendor_id",
	                       strstr(c->name, "EPYC") || strstr(c->vendor_name, "AMD") ? "AMD" : "Intel")))
		return rc;
	if ((n->avx512 && (rc = set_bool(L, n->id, NFD "cpu-cpuid.AVX512F", true))) ||
	    (n->amx && ((rc = set_bool(L, n->id, NFD "cpu-cpuid.AMXTILE", true)) ||
	                (rc = set_bool(L, n->id, NFD "cpu-cpuid.AMXBF16", true)) ||
	                (rc = set_bool(L, n->id, NFD "cpu-cpuid.AMXINT8", true)))) ||
	    (numa > 1 && (rc = set_bool(L, n->id, NFD "memory-numa", true))))
		return rc;
	if (n->plane >= 0 && n->plane < cl->nplanes) {
		int kind = cl->planes[n->plane].kind;
		if ((kind == PLANE_IB || kind == PLANE_ROCE) &&
		    ((rc = set_bool(L, n->id, NFD "rdma.capable", true)) ||
		     (rc = set_bool(L, n->id, NFD "rdma.available", true))))
			return rc;
	}
	if (n->ngpus <= 0 || n->gpu_model < 0)
		return SET_OK;
	/* GFD, for NVIDIA cards */
	const struct gpu_model *g = &cl->cat.gpus[n->gpu_model];
	bool row = g->product[0] != 0;
	bool nvidia = row || strncmp(g->vendor_name, "NVIDIA", 6) == 0;
	if (!nvidia)
		return SET_OK;
	char product[128];
	if (row) {
		snprintf(product, sizeof product, "%s", g->product);
	} else {
		snprintf(product, sizeof product, "%s", g->vendor_name);
		for (char *p = product; *p; p++)
			if (*p == ' ')
				*p = '-';
	}
	int64_t mem_mib = n->gpu_mem_mib > 0 ? n->gpu_mem_mib : g->mem_mib;
	if ((rc = set_bool(L, n->id, "nvidia.com/gpu.present", true)) ||
	    (rc = set_int(L, n->id, "nvidia.com/gpu.count", n->ngpus)) ||
	    (rc = set_str(L, n->id, "nvidia.com/gpu.product", product)) ||
	    (rc = set_int(L, n->id, "nvidia.com/gpu.memory", mem_mib)) ||
	    (rc = set_bool(L, n->id, "nvidia.com/mig.capable", g->mig)) ||
	    (rc = set_str(L, n->id, "nvidia.com/mig.strategy", n->mig_cards > 0 ? "mixed" : "none")))
		return rc;
	if (row && ((rc = set_str(L, n->id, "nvidia.com/gpu.family", g->family)) ||
	            (rc = set_int(L, n->id, "nvidia.com/gpu.compute.major", g->cc_major)) ||
	            (rc = set_int(L, n->id, "nvidia.com/gpu.compute.minor", g->cc_minor))))
		return rc;
	char key[64];
	snprintf(key, sizeof key, NFD "pci-%s_10de.present", row ? g->pci_class : "0302");
	return set_bool(L, n->id, key, true);
}

static int label_derived(const struct cluster *cl, struct labels *L, const struct node *n, int *bad_pool)
{
	const struct node_type *t = &cl->types[n->type];
	const struct rack *r = &cl->racks[n->rack];
	int rc;
	if ((rc = set_str(L, n->id, "node.name", n->name)) ||
	    (rc = set_str(L, n->id, "node.type", t->name)) ||
	    (rc = set_str(L, n->id, "rack", r->name)) ||
	    (rc = set_num(L, n->id, "rack.power_kw", r->cap_w / 1000)))
		return rc;
	if (n->cooling >= 0 && n->cooling < COOL_N && (rc = set_str(L, n->id, "cooling", cooling_name[n->cooling])))
		return rc;
	if ((rc = label_net(cl, L, n)) ||
	    (rc = label_gpu(cl, L, n)) ||
	    (rc = label_cpu(cl, L, n)) ||
	    (rc = set_num(L, n->id, "mem_gib", (double)n->mem_mib / 1024)))
		return rc;
	if ((rc = label_storage(cl, L, n, bad_pool)))
		return rc;
	return label_k8s(cl, L, n);
}

/* Checks a "k=v\0k=v\0\0" buffer: every entry has a '=' after a valid key.
 * 0, or -1 with a message naming what (e.g. "node type \"gpu-a\""). */
static int check_free_form(const char *buf, const char *what, char *err, size_t errlen)
{
	char key[LABEL_KEY_MAX + 1];
	for (const char *s = buf; buf && *s; s += strlen(s) + 1) {
		const char *eq = strchr(s, '=');
		size_t n = eq ? (size_t)(eq - s) : strlen(s);
		if (!eq) {
			snprintf(err, errlen, "%s: label \"%.*s\" has no value (expected key=value)", what,
			         n > 64 ? 64 : (int)n, s);
			return -1;
		}
		if (n < sizeof key) {
			memcpy(key, s, n);
			key[n] = 0;
		}
		if (n >= sizeof key || !labels_key_valid(key)) {
			snprintf(err, errlen, "%s: label key \"%.*s%s\" is not valid (1 to %d characters of "
			         "A-Z a-z 0-9 _ . - /)", what, n > 64 ? 64 : (int)n, s, n > 64 ? "..." : "",
			         LABEL_KEY_MAX);
			return -1;
		}
	}
	return 0;
}

/* Applies a checked free-form buffer to node; 0 or -1 (ENOMEM). */
static int apply_free_form(struct labels *L, int32_t node, const char *buf)
{
	char key[LABEL_KEY_MAX + 1];
	for (const char *s = buf; buf && *s; s += strlen(s) + 1) {
		const char *eq = strchr(s, '=');
		size_t n = (size_t)(eq - s);
		memcpy(key, s, n);
		key[n] = 0;
		if (labels_set(L, node, key, eq + 1))
			return -1;
	}
	return 0;
}

int cluster_label_nodes(struct cluster *cl, char *err, size_t errlen)
{
	char what[HL_NAME_MAX + 16];
	struct labels *L;
	int bad_pool = -1;

	labels_free(cl->labels);
	cl->labels = NULL;
	for (int32_t i = 0; i < cl->ntypes; i++) {
		snprintf(what, sizeof what, "node type \"%s\"", cl->types[i].name);
		if (check_free_form(cl->types[i].labels, what, err, errlen))
			return -1;
	}
	for (int32_t i = 0; i < cl->nracks; i++) {
		snprintf(what, sizeof what, "rack \"%s\"", cl->racks[i].name);
		if (check_free_form(cl->racks[i].labels, what, err, errlen))
			return -1;
	}
	if (!(L = labels_new(cl->nnodes)))
		goto oom;
	for (int32_t i = 0; i < cl->nnodes; i++) {
		const struct node *n = &cl->nodes[i];
		assert(n->id == i);   /* labels are stored by node index */
		int rc = label_derived(cl, L, n, &bad_pool);
		if (rc == SET_BADKEY) {
			snprintf(err, errlen, "storage pool \"%s\": its name cannot be part of a label key "
			         "(use A-Z a-z 0-9 _ . - /)", cl->pools[bad_pool].name);
			goto fail;
		}
		if (rc ||
		    apply_free_form(L, i, cl->types[n->type].labels) ||
		    apply_free_form(L, i, cl->racks[n->rack].labels))
			goto oom;
		/* Taints: the node's "node.taints" label, from its type or rack. */
		const char *taints = labels_get(L, i, "node.taints");
		char why[400];
		if (taints && labels_set_taints(L, i, taints, why, sizeof why)) {
			snprintf(err, errlen, "node %s (type \"%s\", rack \"%s\"): label node.taints: %s", n->name,
			         cl->types[n->type].name, cl->racks[n->rack].name, why);
			goto fail;
		}
	}
	cl->labels = L;
	return 0;
oom:
	snprintf(err, errlen, "labelling nodes: out of memory");
fail:
	labels_free(L);
	return -1;
}
