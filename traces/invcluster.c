/* invcluster — node inventory → struct cluster. See invcluster.h.
 *
 * Everything the user can get wrong is checked first, over the shapes,
 * so that a bad scenario leaves the cluster as it was; then the types,
 * racks and nodes are added. */
#include "traces/invcluster.h"

#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_WHERE "$.from_inventory"
#define GENERIC_CPU "generic-core"

void inv_map_init(struct inv_map *m)
{
	memset(m, 0, sizeof *m);
}

const char *inv_map_find(const struct inv_map *m, const char *model)
{
	for (int32_t i = 0; i < m->n; i++)
		if (strcmp(m->e[i].model, model) == 0)
			return m->e[i].gpu;
	return NULL;
}

static const char *where_of(const struct inv_map *m)
{
	return m->where[0] ? m->where : DEFAULT_WHERE;
}

int inv_map_add(struct inv_map *m, const char *model, const char *gpu, char *err, size_t errlen)
{
	const char *w = where_of(m);
	if (m->n == INV_MAP_MAX) {
		snprintf(err, errlen, "%s.gpu_models: more than %d models", w, INV_MAP_MAX);
		return -1;
	}
	if (!model[0] || strlen(model) >= INV_MODEL_MAX) {
		snprintf(err, errlen, "%s.gpu_models: model name '%.40s' is empty or longer than %d "
		         "bytes", w, model, INV_MODEL_MAX - 1);
		return -1;
	}
	if (!gpu[0] || strlen(gpu) >= HL_NAME_MAX) {
		snprintf(err, errlen, "%s.gpu_models.%s: catalog GPU name '%.60s' is empty or longer "
		         "than %d bytes", w, model, gpu, HL_NAME_MAX - 1);
		return -1;
	}
	if (inv_map_find(m, model)) {
		snprintf(err, errlen, "%s.gpu_models.%s: mapped twice", w, model);
		return -1;
	}
	snprintf(m->e[m->n].model, sizeof m->e[m->n].model, "%s", model);
	snprintf(m->e[m->n].gpu, sizeof m->e[m->n].gpu, "%s", gpu);
	m->n++;
	return 0;
}

/* "the first at line 12" or "the first is node 'x'". */
static void first_node(const struct inv_nodes *l, int32_t i, char *out, size_t len)
{
	const struct inv_node *nd = &l->node[i];
	if (nd->line > 0)
		snprintf(out, len, "the first at line %lld", (long long)nd->line);
	else
		snprintf(out, len, "the first is node '%s'", nd->name);
}

static void catalog_gpu_names(const struct catalog *cat, char *out, size_t len)
{
	size_t at = 0;
	out[0] = '\0';
	for (int32_t i = 0; i < cat->ngpus && at < len; i++) {
		int k = snprintf(out + at, len - at, "%s%s", i ? ", " : "", cat->gpus[i].name);
		if (k < 0)
			break;
		at += (size_t)k;
	}
}

/* Every GPU model of the shapes has a mapping to a catalog GPU. */
static int check_models(const struct inv_nodes *l, const struct inv_shapes *sh, const char *path,
                        const struct inv_map *map, const struct catalog *cat,
                        char *err, size_t errlen)
{
	const char *w = where_of(map);
	int32_t bad = -1;
	char unmapped[512] = "";
	size_t at = 0;
	for (int32_t k = 0; k < sh->n; k++) {
		const struct inv_shape *s = &sh->s[k];
		if (!s->gpus || inv_map_find(map, s->model))
			continue;
		bool seen = false;  /* listed already, for another shape of the model */
		for (int32_t j = 0; j < k; j++)
			seen |= strcmp(sh->s[j].model, s->model) == 0;
		if (seen)
			continue;
		if (bad < 0)
			bad = k;
		if (at < sizeof unmapped) {
			int c = snprintf(unmapped + at, sizeof unmapped - at, "%s%s", at ? ", " : "",
			                 s->model);
			at += c > 0 ? (size_t)c : 0;
		}
	}
	if (bad >= 0) {
		const struct inv_shape *s = &sh->s[bad];
		int32_t nodes = 0;
		for (int32_t k = 0; k < sh->n; k++)
			nodes += strcmp(sh->s[k].model, s->model) == 0 ? sh->s[k].nodes : 0;
		char first[96];
		first_node(l, s->first, first, sizeof first);
		snprintf(err, errlen, "%s: GPU model '%s' (%d nodes, %s) has no catalog mapping: add "
		         "\"%s\": \"<a catalog GPU>\" to %s.gpu_models, and define that GPU under "
		         "$.catalog.gpus if the catalog lacks it (models without a mapping: %s)", path,
		         s->model, nodes, first, s->model, w, unmapped);
		return -1;
	}
	for (int32_t k = 0; k < sh->n; k++) {
		const struct inv_shape *s = &sh->s[k];
		const char *gpu = s->gpus ? inv_map_find(map, s->model) : NULL;
		if (gpu && catalog_find_gpu(cat, gpu) < 0) {
			char known[1024];
			catalog_gpu_names(cat, known, sizeof known);
			snprintf(err, errlen, "%s.gpu_models.%s: unknown catalog GPU \"%s\" (the catalog "
			         "has: %s); define it under $.catalog.gpus", w, s->model, gpu, known);
			return -1;
		}
	}
	return 0;
}

static bool type_taken(const struct cluster *cl, const char *name)
{
	return cluster_find_type(cl, name) >= 0;
}

/* A descriptive, unique type name: "G2-8x-96c-384g", "cpu-96c-512g";
 * "inv-<k>" when that is too long or taken. */
static void type_name(const struct cluster *cl, const struct inv_shape *s, int64_t mem_mib,
                      int32_t k, char *out, size_t len)
{
	char mem[32], buf[128];
	if (mem_mib % 1024 == 0)
		snprintf(mem, sizeof mem, "%lldg", (long long)(mem_mib / 1024));
	else
		snprintf(mem, sizeof mem, "%lldm", (long long)mem_mib);
	if (s->gpus && s->mig_cards)
		snprintf(buf, sizeof buf, "%s-%dx-%dmig-%dc-%s", s->model, s->gpus, s->mig_cards,
		         s->cpu_cores, mem);
	else if (s->gpus)
		snprintf(buf, sizeof buf, "%s-%dx-%dc-%s", s->model, s->gpus, s->cpu_cores, mem);
	else
		snprintf(buf, sizeof buf, "cpu-%dc-%s", s->cpu_cores, mem);
	if (strlen(buf) >= len || type_taken(cl, buf))
		for (int n = k + 1;; n++) {
			snprintf(buf, sizeof buf, "inv-%d", n);
			if (!type_taken(cl, buf))
				break;
		}
	snprintf(out, len, "%s", buf);
}

int inventory_cluster_add(const struct inv_nodes *l, const char *path, const struct inv_map *map,
                          int nodes_per_rack, double rack_kw, struct cluster *cl,
                          char *err, size_t errlen)
{
	const char *w = where_of(map);
	struct inv_shapes sh;
	assert(cl->nracks == 0 && cl->nnodes == 0);
	memset(&sh, 0, sizeof sh);
	if (nodes_per_rack < 1 || nodes_per_rack > INV_RACK_NODES_MAX) {
		snprintf(err, errlen, "%s.nodes_per_rack: expected an integer in [1, %d], got %d", w,
		         INV_RACK_NODES_MAX, nodes_per_rack);
		return -1;
	}
	if (!(rack_kw >= 0.001 && rack_kw <= INV_RACK_KW_MAX)) {
		snprintf(err, errlen, "%s.rack_kw: expected a number in [0.001, %g], got %g", w,
		         INV_RACK_KW_MAX, rack_kw);
		return -1;
	}
	if (l->n == 0) {
		snprintf(err, errlen, "%s: no nodes", path);
		return -1;
	}
	if (map->mem_mib < 0 || map->mem_mib > INV_MAX_MEM_MIB) {
		snprintf(err, errlen, "%s.mem_gib: out of range", w);
		return -1;
	}
	if (inv_group(l, &sh, err, errlen))
		return -1;
	if (check_models(l, &sh, path, map, &cl->cat, err, errlen))
		goto fail;
	for (int32_t k = 0; k < sh.n; k++)
		if (sh.s[k].mem_mib == INV_MEM_UNKNOWN && map->mem_mib == 0) {
			snprintf(err, errlen, "%s: this %s node list gives no node memory: set each node's "
			         "memory with %s.mem_gib", path, inv_format_name(l->fmt), w);
			goto fail;
		}

	int64_t nracks = ((int64_t)l->n + nodes_per_rack - 1) / nodes_per_rack;
	if (cl->ntypes + sh.n > HL_MAX_TYPES || nracks > HL_MAX_RACKS) {
		snprintf(err, errlen, "%s: %d node shapes in %lld racks of %d nodes: more than one scenario "
		         "may hold (at most %d node types and %d racks; raise %s.nodes_per_rack)", path,
		         (int)sh.n, (long long)nracks, nodes_per_rack, HL_MAX_TYPES, HL_MAX_RACKS, w);
		goto fail;
	}

	/* Types: one per shape, indices from base. */
	int32_t base = cl->ntypes;
	int cpu = catalog_find_cpu(&cl->cat, GENERIC_CPU);
	for (int32_t k = 0; k < sh.n; k++) {
		const struct inv_shape *s = &sh.s[k];
		struct node_type t;
		memset(&t, 0, sizeof t);
		t.mem_mib = s->mem_mib == INV_MEM_UNKNOWN ? map->mem_mib : s->mem_mib;
		type_name(cl, s, t.mem_mib, k, t.name, sizeof t.name);
		t.gpu_model = s->gpus ? catalog_find_gpu(&cl->cat, inv_map_find(map, s->model)) : -1;
		t.gpus = s->gpus;
		t.cpu_model = cpu;
		t.sockets = 1;
		t.cores = s->cpu_cores;
		t.mig_cards = s->gpus ? s->mig_cards : 0;
		if (s->taints) {   /* "node.taints=TEXT\0\0", the type's free-form labels */
			size_t n = strlen("node.taints=") + strlen(s->taints) + 2;
			if (!(t.labels = malloc(n)))
				goto nomem;
			snprintf(t.labels, n - 1, "node.taints=%s", s->taints);
			t.labels[n - 1] = '\0';
		}
		if (cluster_add_type(cl, &t) < 0) {
			free(t.labels);
			goto nomem;
		}
	}

	/* Racks in file order; runs of one type go in with one call. */
	for (int32_t i = 0, r = 0; i < l->n; r++) {
		char name[HL_NAME_MAX];
		snprintf(name, sizeof name, "r%02d", r + 1);
		int rk = cluster_add_rack(cl, name, rack_kw * 1000, COOL_AIR);
		if (rk < 0)
			goto nomem;
		int32_t end = l->n - i > nodes_per_rack ? i + nodes_per_rack : l->n;
		while (i < end) {
			int32_t j = i + 1;
			while (j < end && sh.of[j] == sh.of[i])
				j++;
			if (cluster_add_nodes(cl, rk, base + sh.of[i], j - i))
				goto nomem;
			i = j;
		}
	}
	char why[256];
	if (cluster_finish(cl, why, sizeof why)) {
		snprintf(err, errlen, "%s: %s", path, why);
		goto fail;
	}
	inv_shapes_free(&sh);
	return 0;

nomem:
	snprintf(err, errlen, "%s: out of memory building the cluster", path);
fail:
	inv_shapes_free(&sh);
	return -1;
}

/* The catalog GPU whose GPU Feature Discovery product (else whose name)
 * is `product`; -1 when none. */
static int catalog_by_product(const struct catalog *cat, const char *product)
{
	for (int32_t i = 0; i < cat->ngpus; i++)
		if (cat->gpus[i].product[0] && strcmp(cat->gpus[i].product, product) == 0)
			return i;
	return catalog_find_gpu(cat, product);
}

int inv_k8s_gpu(const struct catalog *cat, const struct inv_map *map, const char *product)
{
	const char *g = map ? inv_map_find(map, product) : NULL;
	return g ? catalog_find_gpu(cat, g) : catalog_by_product(cat, product);
}

void inv_k8s_products(const struct catalog *cat, char *out, size_t len)
{
	size_t at = 0;
	out[0] = '\0';
	for (int32_t i = 0; i < cat->ngpus && at < len; i++) {
		if (!cat->gpus[i].product[0])
			continue;
		int k = snprintf(out + at, len - at, "%s%s", at ? ", " : "", cat->gpus[i].product);
		if (k < 0)
			break;
		at += (size_t)k;
	}
}

/* A Kubernetes node list names its GPUs by GFD product: each product the
 * scenario's map does not name is mapped to the catalog GPU of that
 * product, whose memory must agree with the node's nvidia.com/gpu.memory
 * (within 10 %: GFD reports what the driver sees, the catalog the data
 * sheet). */
static int k8s_map(const struct inv_nodes *l, const char *path, const struct catalog *cat,
                   struct inv_map *map, char *err, size_t errlen)
{
	for (int32_t i = 0; i < l->n; i++) {
		const struct inv_node *nd = &l->node[i];
		if (!nd->gpus || inv_map_find(map, nd->model))
			continue;
		int g = catalog_by_product(cat, nd->model);
		if (g < 0) {
			char known[1024];
			inv_k8s_products(cat, known, sizeof known);
			snprintf(err, errlen, "%s: items[%d] (node '%s'): GPU product \"%s\" (label "
			         "nvidia.com/gpu.product) is not in the catalog, whose products are: %s; map "
			         "it to a catalog GPU with \"%s\": \"<a catalog GPU>\" in %s.gpu_models",
			         path, (int)nd->item, nd->name, nd->model, known, nd->model, where_of(map));
			return -1;
		}
		int64_t cm = cat->gpus[g].mem_mib;
		if (nd->gpu_mem_mib > 0 && (nd->gpu_mem_mib * 10 < cm * 9 || nd->gpu_mem_mib * 10 > cm * 11)) {
			snprintf(err, errlen, "%s: items[%d] (node '%s'): label nvidia.com/gpu.memory says "
			         "%lld MiB, but the catalog's %s (product %s) has %lld MiB: map the product "
			         "to the right GPU in %s.gpu_models", path, (int)nd->item, nd->name,
			         (long long)nd->gpu_mem_mib, cat->gpus[g].name, nd->model, (long long)cm,
			         where_of(map));
			return -1;
		}
		if (inv_map_add(map, nd->model, cat->gpus[g].name, err, errlen))
			return -1;
	}
	return 0;
}

int inventory_cluster_build(const char *path, enum inv_format fmt, const struct inv_map *map,
                            int nodes_per_rack, double rack_kw, struct cluster *cl,
                            char *err, size_t errlen)
{
	struct inv_nodes l;
	if (inv_nodes_read(path, fmt, &l, err, errlen))
		return -1;
	int rc = -1;
	struct inv_map *m = malloc(sizeof *m);
	if (!m) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	*m = *map;
	if (fmt == INV_K8S && k8s_map(&l, path, &cl->cat, m, err, errlen))
		goto out;
	rc = inventory_cluster_add(&l, path, m, nodes_per_rack, rack_kw, cl, err, errlen);
out:
	free(m);
	inv_nodes_free(&l);
	return rc;
}
