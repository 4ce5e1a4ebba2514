/* fuzz_inv — the body of the inventory targets (fuzz_pai, fuzz_spot): one
 * read of a node list, its shapes, and a cluster built from it. */
#ifndef HL_FUZZ_INV_H
#define HL_FUZZ_INV_H

#include "sim/cluster.h"
#include "traces/invcluster.h"
#include "traces/nodelist.h"
#include "config/scenario.h"

static void fz_inventory(const uint8_t *data, size_t size, enum inv_format fmt)
{
	const char *p = fz_file(0, data, size, ".csv");
	char err[1024] = "";
	struct inv_nodes l;
	inv_nodes_init(&l);
	if (inv_nodes_read(p, fmt, &l, err, sizeof err) != 0) {
		fz_names(err, p);
		return;
	}
	struct inv_shapes sh = { 0 };
	if (inv_group(&l, &sh, err, sizeof err) == 0) {
		int64_t sum = 0;
		for (int32_t k = 0; k < sh.n; k++)
			sum += sh.s[k].nodes;
		if (sum != l.n)
			fz_fail("shapes hold %lld nodes of %d", (long long)sum, l.n);
	}
	/* Every model the file names maps to one catalog GPU. */
	struct inv_map map;
	inv_map_init(&map);
	map.mem_mib = 1024;
	for (int32_t k = 0; k < sh.n; k++)
		if (sh.s[k].model[0] && !inv_map_find(&map, sh.s[k].model) && map.n < INV_MAP_MAX)
			inv_map_add(&map, sh.s[k].model, "A100-SXM-80GB", err, sizeof err);
	inv_shapes_free(&sh);
	static struct catalog cat;   /* parsed once: a copy per run */
	if (!cat.gpus && catalog_load_builtin(&cat, err, sizeof err) != 0)
		fz_fail("the built-in catalog does not load: %s", err);
	struct cluster cl;
	cluster_init(&cl);
	cl.cat = cat;
	cl.cat.gpus = malloc((size_t)cat.ngpus * sizeof *cat.gpus);
	cl.cat.cpus = malloc((size_t)cat.ncpus * sizeof *cat.cpus);
	if (!cl.cat.gpus || !cl.cat.cpus)
		abort();
	memcpy(cl.cat.gpus, cat.gpus, (size_t)cat.ngpus * sizeof *cat.gpus);
	memcpy(cl.cat.cpus, cat.cpus, (size_t)cat.ncpus * sizeof *cat.cpus);
	if (inventory_cluster_add(&l, p, &map, 32, 15, &cl, err, sizeof err) == 0 && cl.nnodes != l.n)
		fz_fail("the cluster has %d nodes of %d", cl.nnodes, l.n);
	cluster_fini(&cl);
	inv_nodes_free(&l);
}

#endif
