/* The PAI v2020 machine spec and the spot-GPU v2026 node list from the
 * shared trace directory ($HETLAB_TRACES, else ../shared/traces): read,
 * grouped and built into clusters, with the counts their SOURCE.md files
 * state. `make test-shared` runs it; a missing file fails the test with a
 * message saying where to get it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/testutil.h"
#include "traces/invcluster.h"
#include "traces/nodelist.h"
#include "config/scenario.h"

#define PAI_REL "alibaba-pai-v2020-machine-spec/pai_machine_spec.csv"
#define SPOT_REL "alibaba-spot-gpu-v2026-nodes/node_info_df.csv"

static char *shared_path(const char *rel, const char *origin)
{
	size_t n = strlen(tu_traces()) + strlen(rel) + 2;
	char *p = malloc(n);
	assert_non_null(p);
	snprintf(p, n, "%s/%s", tu_traces(), rel);
	if (access(p, R_OK) != 0)
		fail_msg("missing shared trace %s: get the shared traces folder (../shared/traces "
		         "beside the repository, or point HETLAB_TRACES at a copy); the file is %s",
		         p, origin);
	return p;
}

static void add(struct inv_map *m, const char *model, const char *gpu)
{
	char err[256] = "";
	if (inv_map_add(m, model, gpu, err, sizeof err) != 0)
		fail_msg("%s", err);
}

/* Nodes and GPUs of catalog model `gpu` in cl. */
static void count_gpu(const struct cluster *cl, const char *gpu, int *nodes, int *gpus)
{
	int g = catalog_find_gpu(&cl->cat, gpu);
	assert_true(g >= 0);
	*nodes = *gpus = 0;
	for (int i = 0; i < cl->nnodes; i++)
		if (cl->nodes[i].gpu_model == g) {
			(*nodes)++;
			*gpus += cl->nodes[i].ngpus;
		}
}

static void test_pai(void **state)
{
	(void)state;
	char *p = shared_path(PAI_REL, "pai_machine_spec.csv from pai_machine_spec.tar.gz of "
	                      "https://github.com/qzweng/clusterdata-cluster-trace-gpu-v2020-data "
	                      "(alibaba/clusterdata cluster-trace-gpu-v2020), with "
	                      "pai_machine_spec.header beside it");
	char err[1024] = "";
	struct inv_nodes l;
	if (inv_nodes_read(p, INV_PAI, &l, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(l.n, 1897);
	int64_t gpus = 0;
	for (int32_t i = 0; i < l.n; i++)
		gpus += l.node[i].gpus;
	assert_int_equal(gpus, 6742);
	/* SOURCE.md: grouped by (gpu_type, cap_cpu, cap_mem, cap_gpu). */
	static const struct { const char *model; int cpu, mem_gb, gpus, count; } want[] = {
		{ "P100", 64, 512, 2, 798 }, { "T4", 96, 512, 2, 497 },
		{ "MISC", 96, 512, 8, 280 }, { "V100M32", 96, 384, 8, 135 },
		{ "", 96, 512, 0, 83 }, { "V100", 96, 512, 8, 59 }, { "V100", 96, 384, 8, 45 },
	};
	struct inv_shapes sh;
	if (inv_group(&l, &sh, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(sh.n, 7);
	for (size_t k = 0; k < 7; k++) {
		int found = 0;
		for (int32_t s = 0; s < sh.n; s++)
			if (strcmp(sh.s[s].model, want[k].model) == 0 && sh.s[s].cpu_cores == want[k].cpu &&
			    sh.s[s].mem_mib == want[k].mem_gb * 1024LL && sh.s[s].gpus == want[k].gpus) {
				assert_int_equal(sh.s[s].nodes, want[k].count);
				found++;
			}
		if (found != 1)
			fail_msg("shape %s/%d/%d/%d found %d times", want[k].model, want[k].cpu,
			         want[k].mem_gb, want[k].gpus, found);
	}
	inv_shapes_free(&sh);
	inv_nodes_free(&l);

	struct inv_map m;
	struct cluster cl;
	inv_map_init(&m);
	add(&m, "P100", "P100-PCIE-16GB");
	add(&m, "T4", "T4-16GB");
	add(&m, "V100", "V100-SXM2-32GB");
	add(&m, "V100M32", "V100-SXM2-32GB");
	cluster_init(&cl);
	if (catalog_load_builtin(&cl.cat, err, sizeof err) != 0)
		fail_msg("%s", err);
	/* MISC is not mapped yet: the error says so. */
	assert_int_equal(inventory_cluster_build(p, INV_PAI, &m, 32, 15, &cl, err, sizeof err), -1);
	assert_non_null(strstr(err, "GPU model 'MISC' (280 nodes, the first at line "));
	add(&m, "MISC", "A10-24GB");
	if (inventory_cluster_build(p, INV_PAI, &m, 32, 15, &cl, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(cl.nnodes, 1897);
	assert_int_equal(cl.total_gpus, 6742);
	assert_int_equal(cl.ntypes, 7);
	assert_int_equal(cl.nracks, 60);        /* 59 of 32 and one of 9 */
	int nodes, ng;
	count_gpu(&cl, "V100-SXM2-32GB", &nodes, &ng);
	assert_int_equal(nodes, 135 + 59 + 45);
	assert_int_equal(ng, 8 * (135 + 59 + 45));
	count_gpu(&cl, "P100-PCIE-16GB", &nodes, &ng);
	assert_int_equal(nodes, 798);
	assert_int_equal(ng, 1596);
	assert_int_equal(cl.total_cores, 798 * 64 + (1897 - 798) * 96);
	cluster_fini(&cl);
	free(p);
}

static void test_spot(void **state)
{
	(void)state;
	char *p = shared_path(SPOT_REL, "cluster-trace-v2026-spot-gpu/node_info_df.csv from "
	                      "https://github.com/alibaba/clusterdata");
	char err[1024] = "";
	struct inv_nodes l;
	if (inv_nodes_read(p, INV_SPOT, &l, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(l.n, 4278);
	assert_int_equal(l.lines, 4279);
	int64_t gpus = 0;
	for (int32_t i = 0; i < l.n; i++)
		gpus += l.node[i].gpus;
	assert_int_equal(gpus, 10412);
	struct inv_shapes sh;
	if (inv_group(&l, &sh, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(sh.n, 10);     /* distinct (model, GPUs, vCPUs) */
	inv_shapes_free(&sh);
	inv_nodes_free(&l);

	struct inv_map m;
	struct cluster cl;
	inv_map_init(&m);
	add(&m, "A10", "A10-24GB");
	add(&m, "A100-SXM4-80GB", "A100-SXM-80GB");
	add(&m, "A800-SXM4-80GB", "A800-SXM-80GB");
	add(&m, "H800", "H100-SXM-80GB");
	add(&m, "GPU-series-1", "L40S-48GB");     /* stand-ins: the test only counts */
	add(&m, "GPU-series-2", "H20-96GB");
	cluster_init(&cl);
	if (catalog_load_builtin(&cl.cat, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(inventory_cluster_build(p, INV_SPOT, &m, 16, 30, &cl, err, sizeof err), -1);
	assert_non_null(strstr(err, "gives no node memory"));
	m.mem_mib = 1024 * 1024;
	if (inventory_cluster_build(p, INV_SPOT, &m, 16, 30, &cl, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(cl.nnodes, 4278);
	assert_int_equal(cl.total_gpus, 10412);
	assert_int_equal(cl.nracks, (4278 + 15) / 16);
	/* SOURCE.md: nodes per model. */
	static const struct { const char *gpu; int nodes; } want[] = {
		{ "A10-24GB", 2494 }, { "L40S-48GB", 989 }, { "A100-SXM-80GB", 432 },
		{ "H100-SXM-80GB", 219 }, { "H20-96GB", 122 }, { "A800-SXM-80GB", 22 },
	};
	int sum = 0;
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		int nodes, ng;
		count_gpu(&cl, want[k].gpu, &nodes, &ng);
		if (nodes != want[k].nodes)
			fail_msg("%s: %d nodes, expected %d", want[k].gpu, nodes, want[k].nodes);
		sum += ng;
	}
	assert_int_equal(sum, 10412);
	cluster_fini(&cl);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pai),
		cmocka_unit_test(test_spot),
	};
	return cmocka_run_group_tests_name("inventory (shared)", tests, NULL, NULL);
}
