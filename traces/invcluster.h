/* invcluster — a cluster built from a real node inventory (nodelist.h).
 *
 * Each shape of identical nodes (GPU model, GPUs, cores, memory) becomes a
 * node type, in order of first appearance; its GPU is the catalog model
 * that the caller's mapping gives for the inventory's model name (the
 * inventories say "V100M16", "G2", "A100-SXM4-80GB"; the catalog
 * "V100-SXM2-32GB"...). Every node type has generic cores (catalog CPU
 * "generic-core" when the catalog has it) and no base power. The nodes fill
 * air-cooled racks r01, r02, ... in file order, nodes_per_rack to a rack
 * (the last may hold fewer), each of rack_kw kW; node i of the cluster is
 * the file's i-th node, named "<rack>-n<k>" as every other cluster.
 *
 * A scenario's "from_inventory" block fills a struct inv_map and calls
 * inventory_cluster_build (docs/traces.md, "Node inventories").
 *
 * Ownership: the map is plain data, copied by the caller as it likes. The
 * cluster is the caller's: it must hold its catalog (built-in plus the
 * scenario's) and may hold node types already, but no racks or nodes. The
 * build appends types, racks and nodes and calls cluster_finish.
 *
 * Errors: 0, or -1 with a message in err. Bad input — the file, a model
 * without a mapping, a mapping to a GPU the catalog lacks, no memory for a
 * spot list — is found before the cluster is touched; only running out of
 * memory can leave types or racks added (cluster_fini frees them). */
#ifndef HL_INVCLUSTER_H
#define HL_INVCLUSTER_H

#include <stddef.h>
#include <stdint.h>
#include "sim/cluster.h"
#include "traces/nodelist.h"

#define INV_MAP_MAX 64          /* most GPU models a mapping names */
#define INV_RACK_NODES_MAX 100000
#define INV_RACK_KW_MAX 1e4

struct inv_map_entry {
	char model[INV_MODEL_MAX];  /* as the inventory names it: "V100M16" */
	char gpu[HL_NAME_MAX];      /* a catalog GPU: "V100-SXM2-32GB" */
};

struct inv_map {
	int32_t n;
	struct inv_map_entry e[INV_MAP_MAX];
	int64_t mem_mib;            /* node memory for a file without any (spot); 0: none given */
	char where[64];             /* JSON path of the block, for messages;
	                             * "" means "$.from_inventory" */
};

void inv_map_init(struct inv_map *m);
/* Maps inventory model `model` to catalog GPU `gpu`. -1 with err when the
 * map is full, a name is empty or too long, or the model is mapped already. */
int inv_map_add(struct inv_map *m, const char *model, const char *gpu, char *err, size_t errlen);
/* The catalog GPU for `model`, or NULL. */
const char *inv_map_find(const struct inv_map *m, const char *model);

/* Reads the inventory at path in format fmt and builds it into cl. A
 * Kubernetes node list (INV_K8S) needs no mapping for a GPU product the
 * catalog knows (its "gfd" product, or a catalog name); a MIG-mode card
 * needs cl->mig (the MIG geometry) loaded. */
int inventory_cluster_build(const char *path, enum inv_format fmt, const struct inv_map *map,
                            int nodes_per_rack, double rack_kw, struct cluster *cl,
                            char *err, size_t errlen);
/* The catalog index of the GPU of GFD product `product`: map's (may be
 * NULL), else the catalog's of that product or name; -1 when none. */
int inv_k8s_gpu(const struct catalog *cat, const struct inv_map *map, const char *product);
/* The catalog's GPU Feature Discovery products, ", "-separated, into out. */
void inv_k8s_products(const struct catalog *cat, char *out, size_t len);
/* The same from nodes already read; path is only for messages. */
int inventory_cluster_add(const struct inv_nodes *l, const char *path, const struct inv_map *map,
                          int nodes_per_rack, double rack_kw, struct cluster *cl,
                          char *err, size_t errlen);

#endif
