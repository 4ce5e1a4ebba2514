/* Tests of the node-inventory readers (traces/nodelist.c) and the cluster
 * built from them (traces/invcluster.c): hand-made PAI, spot and openb
 * lists read back exactly, malformed rows named by path:LINE, grouping into
 * shapes, the cluster's nodes, racks, GPUs per model, cores and memory, the
 * errors for a model without a mapping or a mapping to no catalog GPU, and
 * the openb GPU node list the repository carries (1,213 nodes, 6,212 GPUs)
 * built with the mapping of scenarios/openb.json. The PAI and spot files
 * are checked in tests/shared/test_inventory_shared.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/testutil.h"
#include "traces/invcluster.h"
#include "traces/nodelist.h"
#include "config/scenario.h"

#define OPENB_GPU_NODES "traces/data/alibaba-gpu-v2023-openb/openb_node_list_gpu_node.csv"

static char *repo_path(const char *rel)
{
	size_t n = strlen(tu_root()) + strlen(rel) + 2;
	char *p = malloc(n);
	assert_non_null(p);
	snprintf(p, n, "%s/%s", tu_root(), rel);
	return p;
}

static void cluster_with_catalog(struct cluster *cl)
{
	char err[512] = "";
	cluster_init(cl);
	if (catalog_load_builtin(&cl->cat, err, sizeof err) != 0)
		fail_msg("%s", err);
}

static void assert_node(const struct inv_node *nd, const char *name, const char *model, int gpus,
                        int cores, int64_t mem_mib, int64_t line)
{
	assert_string_equal(nd->name, name);
	assert_string_equal(nd->model, model);
	assert_int_equal(nd->gpus, gpus);
	assert_int_equal(nd->cpu_cores, cores);
	assert_int_equal(nd->mem_mib, mem_mib);
	assert_int_equal(nd->line, line);
}

/* Reading `text` as fmt must fail with a message that starts with
 * "PATH:LINE: " (line > 0) or "PATH: " (line 0) and contains `want`. */
static void expect_error(enum inv_format fmt, const char *text, int line, const char *want)
{
	char *p = tu_write_tmp(".txt", text);
	struct inv_nodes l;
	char err[1024] = "", prefix[600];
	if (inv_nodes_read(p, fmt, &l, err, sizeof err) == 0)
		fail_msg("%s read without error: %s", inv_format_name(fmt), text);
	assert_int_equal(l.n, 0);
	assert_null(l.node);
	if (line > 0)
		snprintf(prefix, sizeof prefix, "%s:%d: ", p, line);
	else
		snprintf(prefix, sizeof prefix, "%s: ", p);
	if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, want))
		fail_msg("error '%s', expected '%s...%s'", err, prefix, want);
	unlink(p);
	free(p);
}

/* ---- formats ------------------------------------------------------------------- */

static void test_formats(void **state)
{
	(void)state;
	enum inv_format f;
	for (int i = 0; i < INV_NFORMATS; i++) {
		assert_int_equal(inv_format_parse(inv_format_name((enum inv_format)i), &f), 0);
		assert_int_equal(f, i);
	}
	assert_string_equal(inv_format_name(INV_SPOT), "spot");
	assert_int_equal(inv_format_parse("swf", &f), -1);
	assert_string_equal(inv_format_name(INV_NFORMATS), "?");
}

/* ---- PAI ------------------------------------------------------------------------- */

static const char pai_small[] =
	"7399a758eb02bae1a3621236,CPU,96,512,0\n"       /* line 1: CPU-only */
	"m-p100-a,P100,64,512,2\r\n"                    /* line 2 */
	"\n"
	"m-v100-b,V100M32,96,384,8\n"                   /* line 4 */
	"m-misc-c,MISC,96,512,8\n"                      /* line 5 */
	"m-p100-d,P100,64,512,2";                       /* line 6, no final newline */

static void check_pai_small(const struct inv_nodes *l)
{
	assert_int_equal(l->n, 5);
	assert_int_equal(l->lines, 6);
	assert_int_equal(l->fmt, INV_PAI);
	assert_node(&l->node[0], "7399a758eb02bae1a3621236", "", 0, 96, 512 * 1024, 1);
	assert_node(&l->node[1], "m-p100-a", "P100", 2, 64, 512 * 1024, 2);
	assert_node(&l->node[2], "m-v100-b", "V100M32", 8, 96, 384 * 1024, 4);
	assert_node(&l->node[3], "m-misc-c", "MISC", 8, 96, 512 * 1024, 5);
	assert_node(&l->node[4], "m-p100-d", "P100", 2, 64, 512 * 1024, 6);
}

static void test_pai_small(void **state)
{
	(void)state;
	char err[512] = "";
	struct inv_nodes l;
	char *p = tu_write_tmp(".csv", pai_small);
	if (inv_nodes_read(p, INV_PAI, &l, err, sizeof err) != 0)
		fail_msg("%s", err);
	check_pai_small(&l);
	inv_nodes_free(&l);
	assert_int_equal(l.n, 0);
	inv_nodes_free(&l);     /* twice is fine */

	/* A .header file beside it is checked: the right one passes... */
	size_t n = strlen(p);
	char *hp = malloc(n + 8);
	assert_non_null(hp);
	snprintf(hp, n + 8, "%.*s.header", (int)(n - 4), p);
	FILE *f = fopen(hp, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", INV_PAI_HEADER);
	fclose(f);
	if (inv_nodes_read(p, INV_PAI, &l, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(l.n, 5);
	inv_nodes_free(&l);
	/* ...a wrong one names itself. */
	f = fopen(hp, "w");
	assert_non_null(f);
	fprintf(f, "machine,gpu_type,cap_mem,cap_cpu,cap_gpu\n");
	fclose(f);
	assert_int_equal(inv_nodes_read(p, INV_PAI, &l, err, sizeof err), -1);
	assert_non_null(strstr(err, hp));
	assert_non_null(strstr(err, ":1: expected the PAI machine spec header"));
	assert_int_equal(l.n, 0);
	unlink(hp);
	free(hp);
	unlink(p);
	free(p);

	/* A re-export with the header line reads the same, one line later. */
	char *text = malloc(sizeof pai_small + 64);
	assert_non_null(text);
	sprintf(text, "%s\n%s", INV_PAI_HEADER, pai_small);
	p = tu_write_tmp(".csv", text);
	if (inv_nodes_read(p, INV_PAI, &l, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(l.n, 5);
	assert_int_equal(l.node[0].line, 2);
	assert_int_equal(l.node[4].line, 7);
	inv_nodes_free(&l);
	unlink(p);
	free(p);
	free(text);
}

static void test_pai_malformed(void **state)
{
	(void)state;
	expect_error(INV_PAI, "a,P100,64,512,2\nb,P100,64,512\n", 2,
	             "expected 5 comma-separated fields, got 4 (field 5 (cap_gpu) is missing)");
	expect_error(INV_PAI, "a,P100,64,512,2,x\n", 1, "expected 5 comma-separated fields, got 6");
	expect_error(INV_PAI, "a,P100,64,512,2\n\nb b,P100,64,512,2\n", 3,
	             "field 1 (machine): expected a name");
	expect_error(INV_PAI, ",P100,64,512,2\n", 1, "field 1 (machine)");
	expect_error(INV_PAI, "a,P1 00,64,512,2\n", 1, "field 2 (gpu_type): expected a GPU model name");
	expect_error(INV_PAI, "a,,64,512,2\n", 1, "field 2 (gpu_type)");
	expect_error(INV_PAI, "a,P100,0,512,2\n", 1, "field 3 (cap_cpu): expected an integer in 1..1048576");
	expect_error(INV_PAI, "a,P100,6.5,512,2\n", 1, "field 3 (cap_cpu)");
	expect_error(INV_PAI, "a,P100,64,-1,2\n", 1, "field 4 (cap_mem): expected an integer in 0..10^9 (GB)");
	expect_error(INV_PAI, "a,P100,64,512,0\n", 1, "field 5 (cap_gpu): expected an integer in 1..64");
	expect_error(INV_PAI, "a,P100,64,512,65\n", 1, "field 5 (cap_gpu)");
	expect_error(INV_PAI, "a,CPU,64,512,2\n", 1, "field 5 (cap_gpu): expected 0 (gpu_type is CPU), got '2'");
	expect_error(INV_PAI, "a,P100,64,512,2\nb,T4,96,512,2\na,T4,96,512,2\n", 3,
	             "node name 'a' is already used at line 1");
	expect_error(INV_PAI, "sn,cpu_milli,memory_mib,gpu,model\n", 1,
	             "header of an openb node list, not of a pai one (give format \"openb\")");
	expect_error(INV_PAI, "", 0, "empty file");
	expect_error(INV_PAI, "machine,gpu_type,cap_cpu,cap_mem,cap_gpu\n\n", 0, "no nodes");
	/* Not there at all. */
	struct inv_nodes l;
	char err[512] = "";
	assert_int_equal(inv_nodes_read("/nonexistent/pai.csv", INV_PAI, &l, err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent/pai.csv"));
}

/* ---- spot ------------------------------------------------------------------------ */

static const char spot_small[] =
	"\xEF\xBB\xBFgpu_model,gpu_capacity_num,cpu_num,node_name\n"  /* BOM allowed */
	"GPU-series-1,4,192,0\n"
	"A10,1,128,2\r\n"
	"A100-SXM4-80GB,8,128,3\n"
	"\n"
	"H800,8,192,node:7\n"
	",0,64,cpu-1\n";

static void test_spot_small(void **state)
{
	(void)state;
	char err[512] = "";
	struct inv_nodes l;
	char *p = tu_write_tmp(".csv", spot_small);
	if (inv_nodes_read(p, INV_SPOT, &l, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(l.n, 5);
	assert_int_equal(l.lines, 7);
	assert_node(&l.node[0], "0", "GPU-series-1", 4, 192, INV_MEM_UNKNOWN, 2);
	assert_node(&l.node[1], "2", "A10", 1, 128, INV_MEM_UNKNOWN, 3);
	assert_node(&l.node[2], "3", "A100-SXM4-80GB", 8, 128, INV_MEM_UNKNOWN, 4);
	assert_node(&l.node[3], "node:7", "H800", 8, 192, INV_MEM_UNKNOWN, 6);
	assert_node(&l.node[4], "cpu-1", "", 0, 64, INV_MEM_UNKNOWN, 7);
	inv_nodes_free(&l);
	unlink(p);
	free(p);
}

#define SPOT_HDR "gpu_model,gpu_capacity_num,cpu_num,node_name\n"

static void test_spot_malformed(void **state)
{
	(void)state;
	expect_error(INV_SPOT, "gpu_model,gpu_num,cpu_num,node_name\n", 1,
	             "not the spot node list header: column 2 is 'gpu_num', expected 'gpu_capacity_num'");
	expect_error(INV_SPOT, "gpu_model,gpu_capacity_num,cpu_num,node_name,x\n", 1,
	             "more than 4 columns");
	expect_error(INV_SPOT, "machine,gpu_type,cap_cpu,cap_mem,cap_gpu\nA10,1,128,2\n", 1,
	             "header of a pai node list, not of a spot one (give format \"pai\")");
	expect_error(INV_SPOT, "A10,1,128,2\n", 1, "column 1 is 'A10'");
	expect_error(INV_SPOT, SPOT_HDR "A10,1,128\n", 2, "got 3 (field 4 (node_name) is missing)");
	expect_error(INV_SPOT, SPOT_HDR "A10,1,128,2\nA 10,1,128,3\n", 3,
	             "field 1 (gpu_model): expected a GPU model name");
	expect_error(INV_SPOT, SPOT_HDR "A10,0,128,2\n", 2,
	             "field 2 (gpu_capacity_num): expected 1..64 (the node has a GPU model), got '0'");
	expect_error(INV_SPOT, SPOT_HDR ",2,128,2\n", 2,
	             "field 2 (gpu_capacity_num): expected 0 (the node has no GPU model), got '2'");
	expect_error(INV_SPOT, SPOT_HDR "A10,x,128,2\n", 2, "field 2 (gpu_capacity_num): expected an integer in 0..64");
	expect_error(INV_SPOT, SPOT_HDR "A10,1,0,2\n", 2, "field 3 (cpu_num): expected an integer in 1..1048576 (vCPUs)");
	expect_error(INV_SPOT, SPOT_HDR "A10,1,128,\n", 2, "field 4 (node_name)");
	expect_error(INV_SPOT, SPOT_HDR "A10,1,128,7\nA10,1,128,7\n", 3,
	             "node name '7' is already used at line 2");
	expect_error(INV_SPOT, SPOT_HDR, 0, "no nodes");
	expect_error(INV_SPOT, "", 0, "empty file, expected the spot node list header");
}

/* ---- openb ----------------------------------------------------------------------- */

#define NODE_HDR "sn,cpu_milli,memory_mib,gpu,model\n"

static const char openb_small[] =
	NODE_HDR
	"n0,64000,262144,2,P100\n"      /* shape A */
	"n1,96000,393216,8,G2\n"        /* shape B */
	"n2,64000,262144,2,P100\n"      /* A */
	"n3,8000,32768,1,V100M16\n"     /* C */
	"n4,96000,393216,8,G2\n"        /* B */
	"n5,96000,393216,8,G2\n"        /* B */
	"n6,32000,131072,0,\n"          /* D: CPU-only */
	"n7,64000,262144,2,P100\n"      /* A */
	"n8,96000,524288,8,G2\n";       /* E: G2 with more memory */

static void test_openb_small(void **state)
{
	(void)state;
	char err[512] = "";
	struct inv_nodes l;
	char *p = tu_write_tmp(".csv", openb_small);
	if (inv_nodes_read(p, INV_OPENB, &l, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(l.n, 9);
	assert_int_equal(l.lines, 10);
	assert_int_equal(l.fmt, INV_OPENB);
	assert_node(&l.node[0], "n0", "P100", 2, 64, 262144, 0);
	assert_node(&l.node[3], "n3", "V100M16", 1, 8, 32768, 0);
	assert_node(&l.node[6], "n6", "", 0, 32, 131072, 0);
	assert_node(&l.node[8], "n8", "G2", 8, 96, 524288, 0);

	struct inv_shapes sh;
	if (inv_group(&l, &sh, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(sh.n, 5);
	static const struct { const char *model; int gpus, cores; int64_t mem; int nodes, first; } want[] = {
		{ "P100", 2, 64, 262144, 3, 0 },
		{ "G2", 8, 96, 393216, 3, 1 },
		{ "V100M16", 1, 8, 32768, 1, 3 },
		{ "", 0, 32, 131072, 1, 6 },
		{ "G2", 8, 96, 524288, 1, 8 },
	};
	for (int k = 0; k < 5; k++) {
		assert_string_equal(sh.s[k].model, want[k].model);
		assert_int_equal(sh.s[k].gpus, want[k].gpus);
		assert_int_equal(sh.s[k].cpu_cores, want[k].cores);
		assert_int_equal(sh.s[k].mem_mib, want[k].mem);
		assert_int_equal(sh.s[k].nodes, want[k].nodes);
		assert_int_equal(sh.s[k].first, want[k].first);
	}
	static const int32_t of[] = { 0, 1, 0, 2, 1, 1, 3, 0, 4 };
	for (int i = 0; i < 9; i++)
		assert_int_equal(sh.of[i], of[i]);
	inv_shapes_free(&sh);
	inv_shapes_free(&sh);
	inv_nodes_free(&l);
	unlink(p);
	free(p);
}

static void test_openb_malformed(void **state)
{
	(void)state;
	/* The openb reader's own errors come through as they are. */
	expect_error(INV_OPENB, NODE_HDR "n0,64000,262144,2,\n", 2,
	             "field 5 (model): expected a GPU model name");
	expect_error(INV_OPENB, "gpu_model,gpu_capacity_num,cpu_num,node_name\n", 1, "not the openb node list header");
	/* Ours: whole cores, at least one; unique names; some nodes. */
	expect_error(INV_OPENB, NODE_HDR "n0,64000,262144,2,P100\nn1,1500,1024,1,T4\n", 0,
	             "node 'n1': cpu_milli 1500 is not a whole number of cores");
	expect_error(INV_OPENB, NODE_HDR "n0,0,1024,1,T4\n", 0, "node 'n0': cpu_milli 0");
	expect_error(INV_OPENB, NODE_HDR "n0,1000,1024,1,T4\nn1,1000,1024,1,T4\nn0,1000,1024,1,T4\n", 0,
	             "node name 'n0' is used by nodes 1 and 3");
	expect_error(INV_OPENB, NODE_HDR, 0, "no nodes");
}

/* ---- the cluster ----------------------------------------------------------------- */

static void openb_map(struct inv_map *m)
{
	char err[256] = "";
	inv_map_init(m);
	assert_int_equal(inv_map_add(m, "P100", "P100-PCIE-16GB", err, sizeof err), 0);
	assert_int_equal(inv_map_add(m, "G2", "A10-24GB", err, sizeof err), 0);
	assert_int_equal(inv_map_add(m, "V100M16", "V100-SXM2-32GB", err, sizeof err), 0);
	assert_int_equal(inv_map_add(m, "V100M32", "V100-SXM2-32GB", err, sizeof err), 0); /* unused */
}

static void test_map(void **state)
{
	(void)state;
	struct inv_map m;
	char err[256] = "";
	openb_map(&m);
	assert_string_equal(inv_map_find(&m, "G2"), "A10-24GB");
	assert_null(inv_map_find(&m, "G3"));
	assert_int_equal(inv_map_add(&m, "G2", "T4-16GB", err, sizeof err), -1);
	assert_string_equal(err, "$.from_inventory.gpu_models.G2: mapped twice");
	assert_int_equal(inv_map_add(&m, "", "T4-16GB", err, sizeof err), -1);
	assert_int_equal(inv_map_add(&m, "T4", "", err, sizeof err), -1);
	assert_int_equal(inv_map_add(&m, "0123456789012345678901234567890123", "T4-16GB", err,
	                             sizeof err), -1);
	snprintf(m.where, sizeof m.where, "$.x");
	assert_int_equal(inv_map_add(&m, "G2", "T4-16GB", err, sizeof err), -1);
	assert_string_equal(err, "$.x.gpu_models.G2: mapped twice");
	inv_map_init(&m);
	for (int i = 0; i < INV_MAP_MAX; i++) {
		char name[16];
		snprintf(name, sizeof name, "M%d", i);
		assert_int_equal(inv_map_add(&m, name, "T4-16GB", err, sizeof err), 0);
	}
	assert_int_equal(inv_map_add(&m, "one-more", "T4-16GB", err, sizeof err), -1);
}

static void test_cluster_small(void **state)
{
	(void)state;
	char err[1024] = "";
	struct inv_map m;
	struct cluster cl;
	openb_map(&m);
	cluster_with_catalog(&cl);
	/* A scenario type that takes the descriptive name of shape 1. */
	struct node_type pre = { .name = "P100-2x-64c-256g", .gpu_model = -1, .cpu_model = -1,
	                         .sockets = 1, .cores = 4, .mem_mib = 1024 };
	assert_int_equal(cluster_add_type(&cl, &pre), 0);
	char *p = tu_write_tmp(".csv", openb_small);
	if (inventory_cluster_build(p, INV_OPENB, &m, 4, 20, &cl, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(cl.ntypes, 6);
	assert_string_equal(cl.types[1].name, "inv-1");           /* taken: falls back */
	assert_string_equal(cl.types[2].name, "G2-8x-96c-384g");
	assert_string_equal(cl.types[3].name, "V100M16-1x-8c-32g");
	assert_string_equal(cl.types[4].name, "cpu-32c-128g");
	assert_string_equal(cl.types[5].name, "G2-8x-96c-512g");
	int p100 = catalog_find_gpu(&cl.cat, "P100-PCIE-16GB");
	int a10 = catalog_find_gpu(&cl.cat, "A10-24GB");
	int v100 = catalog_find_gpu(&cl.cat, "V100-SXM2-32GB");
	int generic = catalog_find_cpu(&cl.cat, "generic-core");
	assert_true(generic >= 0);
	assert_int_equal(cl.types[1].gpu_model, p100);
	assert_int_equal(cl.types[2].gpu_model, a10);
	assert_int_equal(cl.types[3].gpu_model, v100);
	assert_int_equal(cl.types[4].gpu_model, -1);
	assert_int_equal(cl.types[4].gpus, 0);
	for (int t = 1; t < 6; t++) {
		assert_int_equal(cl.types[t].cpu_model, generic);
		assert_int_equal(cl.types[t].sockets, 1);
	}
	/* Racks of 4, in file order, 20 kW, air. */
	assert_int_equal(cl.nnodes, 9);
	assert_int_equal(cl.nracks, 3);
	static const int first[] = { 0, 4, 8 }, count[] = { 4, 4, 1 };
	for (int r = 0; r < 3; r++) {
		char name[8];
		snprintf(name, sizeof name, "r%02d", r + 1);
		assert_string_equal(cl.racks[r].name, name);
		assert_int_equal(cl.racks[r].first_node, first[r]);
		assert_int_equal(cl.racks[r].nnodes, count[r]);
		assert_true(cl.racks[r].cap_w == 20000);
		assert_int_equal(cl.racks[r].cooling, COOL_AIR);
	}
	static const int type_of[] = { 1, 2, 1, 3, 2, 2, 4, 1, 5 };
	static const int cores[] = { 64, 96, 64, 8, 96, 96, 32, 64, 96 };
	static const int gpus[] = { 2, 8, 2, 1, 8, 8, 0, 2, 8 };
	static const int64_t mem[] = { 262144, 393216, 262144, 32768, 393216, 393216, 131072,
	                               262144, 524288 };
	for (int i = 0; i < 9; i++) {
		assert_int_equal(cl.nodes[i].type, type_of[i]);
		assert_int_equal(cl.nodes[i].cores, cores[i]);
		assert_int_equal(cl.nodes[i].ngpus, gpus[i]);
		assert_int_equal(cl.nodes[i].mem_mib, mem[i]);
		assert_int_equal(cl.nodes[i].rack, i / 4);
		assert_int_equal(cl.free[i].cores, cores[i]);
	}
	assert_string_equal(cl.nodes[0].name, "r01-n1");
	assert_string_equal(cl.nodes[8].name, "r03-n1");
	assert_int_equal(cl.nodes[1].gpu_mem_mib, 24 * 1024);
	assert_int_equal(cl.total_gpus, 2 + 8 + 2 + 1 + 8 + 8 + 0 + 2 + 8);
	assert_int_equal(cl.total_cores, 64 * 3 + 96 * 4 + 8 + 32);
	cluster_fini(&cl);
	unlink(p);
	free(p);
}

static void test_cluster_errors(void **state)
{
	(void)state;
	char err[1024] = "";
	struct inv_map m;
	struct cluster cl;
	char *p = tu_write_tmp(".csv", openb_small);

	/* No mapping for V100M16: the error names the model, its nodes, the
	 * JSON path to put it, and the cluster is left as it was. */
	inv_map_init(&m);
	char e2[256];
	assert_int_equal(inv_map_add(&m, "P100", "P100-PCIE-16GB", e2, sizeof e2), 0);
	cluster_with_catalog(&cl);
	assert_int_equal(inventory_cluster_build(p, INV_OPENB, &m, 4, 20, &cl, err, sizeof err), -1);
	char want[1024];
	snprintf(want, sizeof want, "%s: GPU model 'G2' (4 nodes, the first is node 'n1') has no "
	         "catalog mapping: add \"G2\": \"<a catalog GPU>\" to $.from_inventory.gpu_models, "
	         "and define that GPU under $.catalog.gpus if the catalog lacks it (models without "
	         "a mapping: G2, V100M16)", p);
	assert_string_equal(err, want);
	assert_int_equal(cl.ntypes, 0);
	assert_int_equal(cl.nracks, 0);
	assert_int_equal(cl.nnodes, 0);

	/* A mapping to a GPU the catalog lacks. */
	assert_int_equal(inv_map_add(&m, "G2", "G2-PLACEHOLDER", e2, sizeof e2), 0);
	assert_int_equal(inv_map_add(&m, "V100M16", "V100-SXM2-16GB", e2, sizeof e2), 0);
	snprintf(m.where, sizeof m.where, "$.cluster");
	assert_int_equal(inventory_cluster_build(p, INV_OPENB, &m, 4, 20, &cl, err, sizeof err), -1);
	assert_non_null(strstr(err, "$.cluster.gpu_models.G2: unknown catalog GPU \"G2-PLACEHOLDER\" "
	                            "(the catalog has: H100-SXM-80GB,"));
	assert_non_null(strstr(err, "define it under $.catalog.gpus"));
	assert_int_equal(cl.ntypes, 0);

	/* Rack settings out of range. */
	openb_map(&m);
	assert_int_equal(inventory_cluster_build(p, INV_OPENB, &m, 0, 20, &cl, err, sizeof err), -1);
	assert_string_equal(err, "$.from_inventory.nodes_per_rack: expected an integer in [1, 100000], got 0");
	assert_int_equal(inventory_cluster_build(p, INV_OPENB, &m, 4, 0, &cl, err, sizeof err), -1);
	assert_non_null(strstr(err, "$.from_inventory.rack_kw: expected a number in [0.001, 10000]"));
	/* A read error comes through. */
	assert_int_equal(inventory_cluster_build(p, INV_SPOT, &m, 4, 20, &cl, err, sizeof err), -1);
	assert_non_null(strstr(err, "(give format \"openb\")"));
	assert_int_equal(cl.ntypes, 0);
	cluster_fini(&cl);
	unlink(p);
	free(p);

	/* A spot list has no memory: it must come from the map. */
	p = tu_write_tmp(".csv", SPOT_HDR "A10,1,128,a\nA10,1,128,b\nA10,2,128,c\n");
	inv_map_init(&m);
	assert_int_equal(inv_map_add(&m, "A10", "A10-24GB", e2, sizeof e2), 0);
	cluster_with_catalog(&cl);
	assert_int_equal(inventory_cluster_build(p, INV_SPOT, &m, 2, 10, &cl, err, sizeof err), -1);
	snprintf(want, sizeof want, "%s: this spot node list gives no node memory: set each node's "
	         "memory with $.from_inventory.mem_gib", p);
	assert_string_equal(err, want);
	m.mem_mib = 1024 * 1024;
	if (inventory_cluster_build(p, INV_SPOT, &m, 2, 10, &cl, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(cl.ntypes, 2);
	assert_string_equal(cl.types[0].name, "A10-1x-128c-1024g");
	assert_string_equal(cl.types[1].name, "A10-2x-128c-1024g");
	assert_int_equal(cl.nnodes, 3);
	assert_int_equal(cl.nracks, 2);
	assert_int_equal(cl.total_gpus, 4);
	assert_int_equal(cl.nodes[2].mem_mib, 1024 * 1024);
	cluster_fini(&cl);
	unlink(p);
	free(p);
}

/* PAI: CPU-only nodes become a GPU-less type; memory GB → MiB. */
static void test_cluster_pai(void **state)
{
	(void)state;
	char err[1024] = "", e2[256];
	struct inv_map m;
	struct cluster cl;
	inv_map_init(&m);
	assert_int_equal(inv_map_add(&m, "P100", "P100-PCIE-16GB", e2, sizeof e2), 0);
	assert_int_equal(inv_map_add(&m, "V100M32", "V100-SXM2-32GB", e2, sizeof e2), 0);
	assert_int_equal(inv_map_add(&m, "MISC", "T4-16GB", e2, sizeof e2), 0);
	cluster_with_catalog(&cl);
	char *p = tu_write_tmp(".csv", pai_small);
	if (inventory_cluster_build(p, INV_PAI, &m, 32, 15, &cl, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(cl.ntypes, 4);
	assert_string_equal(cl.types[0].name, "cpu-96c-512g");
	assert_string_equal(cl.types[1].name, "P100-2x-64c-512g");
	assert_int_equal(cl.nnodes, 5);
	assert_int_equal(cl.nracks, 1);
	assert_int_equal(cl.total_gpus, 2 + 8 + 8 + 2);
	assert_int_equal(cl.total_cores, 96 * 3 + 64 * 2);
	assert_int_equal(cl.nodes[4].type, 1);
	cluster_fini(&cl);
	unlink(p);
	free(p);
}

/* ---- the openb GPU node list the repository carries ------------------------------ */

/* The scenario's mapping and catalog entries, read from scenarios/openb.json
 * by hand (the loader does not know "from_inventory" yet). */
static void scenario_map(struct cluster *cl, struct inv_map *m, int *npr, double *kw)
{
	char *sp = repo_path("scenarios/openb.json");
	json_error_t je;
	json_t *root = json_load_file(sp, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		fail_msg("%s:%d: %s", sp, je.line, je.text);
	json_t *fi = json_object_get(root, "from_inventory");
	assert_non_null(fi);
	assert_string_equal(json_string_value(json_object_get(fi, "format")), "openb");
	assert_string_equal(json_string_value(json_object_get(fi, "file")),
	                    "../" OPENB_GPU_NODES);
	*npr = (int)json_integer_value(json_object_get(fi, "nodes_per_rack"));
	*kw = json_number_value(json_object_get(fi, "rack_kw"));
	inv_map_init(m);
	const char *k;
	json_t *v;
	char err[256] = "";
	json_object_foreach(json_object_get(fi, "gpu_models"), k, v)
		if (inv_map_add(m, k, json_string_value(v), err, sizeof err) != 0)
			fail_msg("%s", err);
	/* Catalog entries the scenario adds: name and memory are enough here. */
	size_t i;
	json_t *g;
	json_array_foreach(json_object_get(json_object_get(root, "catalog"), "gpus"), i, g) {
		struct gpu_model *ng = realloc(cl->cat.gpus, (size_t)(cl->cat.ngpus + 1) * sizeof *ng);
		assert_non_null(ng);
		cl->cat.gpus = ng;
		struct gpu_model *gm = &ng[cl->cat.ngpus++];
		memset(gm, 0, sizeof *gm);
		snprintf(gm->name, sizeof gm->name, "%s", json_string_value(json_object_get(g, "name")));
		gm->mem_mib = (int64_t)(json_number_value(json_object_get(g, "mem_gib")) * 1024);
		/* A placeholder says so in every text a report may show. */
		if (strstr(gm->name, "PLACEHOLDER")) {
			assert_non_null(strstr(json_string_value(json_object_get(g, "vendor_name")),
			                       "PLACEHOLDER"));
			assert_non_null(strstr(json_string_value(json_object_get(g, "source")),
			                       "PLACEHOLDER"));
		}
	}
	json_decref(root);
	free(sp);
}

static void test_openb_repo(void **state)
{
	(void)state;
	char err[1024] = "";
	struct inv_map m;
	struct cluster cl;
	int npr = 0;
	double kw = 0;
	cluster_with_catalog(&cl);
	scenario_map(&cl, &m, &npr, &kw);
	assert_int_equal(npr, 16);
	assert_true(kw == 20);
	char *p = repo_path(OPENB_GPU_NODES);

	struct inv_nodes l;
	if (inv_nodes_read(p, INV_OPENB, &l, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(l.n, 1213);
	assert_int_equal(l.lines, 1214);
	struct inv_shapes sh;
	if (inv_group(&l, &sh, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(sh.n, 15);    /* the 15 node shapes of SOURCE.md */
	inv_shapes_free(&sh);
	inv_nodes_free(&l);

	if (inventory_cluster_build(p, INV_OPENB, &m, npr, kw, &cl, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(cl.nnodes, 1213);
	assert_int_equal(cl.total_gpus, 6212);
	assert_int_equal(cl.total_cores, 107018);
	assert_int_equal(cl.ntypes, 15);
	assert_int_equal(cl.nracks, 76);        /* 75 of 16 and one of 13 */
	assert_int_equal(cl.racks[75].nnodes, 13);
	int64_t mem = 0;
	for (int i = 0; i < cl.nnodes; i++)
		mem += cl.nodes[i].mem_mib;
	assert_int_equal(mem, 492020LL * 1024);
	/* GPUs and nodes per catalog model (docs/traces.md, openb node lists). */
	static const struct { const char *gpu; int nodes; int gpus; } per[] = {
		{ "G2-PLACEHOLDER", 549, 4392 }, { "T4-16GB", 404, 842 },
		{ "P100-PCIE-16GB", 134, 265 }, { "V100-SXM2-16GB", 55, 195 },
		{ "G3-PLACEHOLDER", 39, 312 }, { "V100-SXM2-32GB", 30, 204 },
		{ "A10-24GB", 2, 2 },
	};
	for (size_t k = 0; k < sizeof per / sizeof per[0]; k++) {
		int g = catalog_find_gpu(&cl.cat, per[k].gpu);
		assert_true(g >= 0);
		int nodes = 0, gpus = 0;
		for (int i = 0; i < cl.nnodes; i++)
			if (cl.nodes[i].gpu_model == g) {
				nodes++;
				gpus += cl.nodes[i].ngpus;
			}
		if (nodes != per[k].nodes || gpus != per[k].gpus)
			fail_msg("%s: %d nodes, %d GPUs; expected %d, %d", per[k].gpu, nodes, gpus,
			         per[k].nodes, per[k].gpus);
	}
	assert_int_equal(cl.nodes[0].gpu_mem_mib, 16 * 1024);     /* openb-node-0000: P100 */
	cluster_fini(&cl);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_pai_small),
		cmocka_unit_test(test_pai_malformed),
		cmocka_unit_test(test_spot_small),
		cmocka_unit_test(test_spot_malformed),
		cmocka_unit_test(test_openb_small),
		cmocka_unit_test(test_openb_malformed),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_cluster_small),
		cmocka_unit_test(test_cluster_errors),
		cmocka_unit_test(test_cluster_pai),
		cmocka_unit_test(test_openb_repo),
	};
	return cmocka_run_group_tests_name("inventory", tests, NULL, NULL);
}
