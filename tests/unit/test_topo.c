/* topo: the hwloc topology probe on the XML fixtures of tests/data/topo/
 * (gen-fixtures.py says what each holds; vm-lstopo.xml is a real `lstopo
 * --of xml` export) with every count, CPU list, memory size and GPU checked;
 * topo_pick_cpus packing in a node, spilling, best fit and failing; bad
 * files; the CPU-list formatter; and this host. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/topo.h"
#include "tests/testutil.h"

#define GIB (1ULL << 30)

static char *fixture(const char *name)
{
	static char buf[4][PATH_MAX];
	static int k;
	char *p = buf[k++ % 4];
	snprintf(p, PATH_MAX, "%s/tests/data/topo/%s", tu_root(), name);
	return p;
}

static struct topo *load(const char *name)
{
	struct topo *t = calloc(1, sizeof *t);
	assert_non_null(t);
	if (topo_read_xml(fixture(name), t) != 0)
		fail_msg("%s: %s", name, t->err);
	return t;
}

static const char *cpus_of(const struct topo *t, int numa)
{
	static char buf[256];
	return topo_cpulist(t->numa[numa].cpus, buf, sizeof buf);
}

/* The picked PUs as "a,b,c" for a compact comparison. */
static const char *picked(const int *out, int n)
{
	static char buf[512];
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%d", i ? "," : "", out[i]);
	return buf;
}

/* ---- reading ------------------------------------------------------------------ */

static void test_xeon_2s_smt(void **state)
{
	(void)state;
	struct topo *t = load("xeon-2s-smt.xml");
	assert_int_equal(t->npackages, 2);
	assert_int_equal(t->nnuma, 2);
	assert_int_equal(t->ncores, 8);
	assert_int_equal(t->npus, 16);
	assert_true(t->smt);
	assert_string_equal(t->cpu_model, "Intel(R) Xeon(R) Platinum 8480+");
	assert_true(t->mem_bytes == 96 * GIB);
	static const struct { int os, pkg, ncores, npus, ngpus; const char *cpus; uint64_t mem; } want[] = {
		{ 0, 0, 4, 8, 1, "0-3,8-11", 64 * GIB },
		{ 1, 1, 4, 8, 1, "4-7,12-15", 32 * GIB },
	};
	for (int i = 0; i < 2; i++) {
		const struct topo_numa *n = &t->numa[i];
		assert_int_equal(n->os_index, want[i].os);
		assert_int_equal(n->package, want[i].pkg);
		assert_int_equal(n->ncores, want[i].ncores);
		assert_int_equal(n->npus, want[i].npus);
		assert_int_equal(n->ngpus, want[i].ngpus);
		assert_string_equal(cpus_of(t, i), want[i].cpus);
		assert_true(n->mem_bytes == want[i].mem);
	}
	/* core k: CPUs k and k + 8, Linux's numbering */
	for (int k = 0; k < 8; k++) {
		const struct topo_core *c = &t->core[k];
		assert_int_equal(c->os_index, k);
		assert_int_equal(c->npus, 2);
		assert_int_equal(c->pus[0], k);
		assert_int_equal(c->pus[1], k + 8);
		assert_int_equal(c->numa, k / 4);
		assert_int_equal(c->package, k / 4);
	}
	/* the two NVIDIA 3D controllers; not the ASPEED VGA nor the HCA */
	assert_int_equal(t->ngpus, 2);
	for (int i = 0; i < 2; i++) {
		const struct topo_gpu *g = &t->gpus[i];
		assert_int_equal(g->domain, 0);
		assert_int_equal(g->dev, 0);
		assert_int_equal(g->func, 0);
		assert_int_equal(g->numa, g->bus == 0x1b ? 0 : 1);
		assert_int_equal(g->device_id, g->bus == 0x1b ? 0x2330 : 0x2335);
	}
	assert_true(t->gpus[0].bus != t->gpus[1].bus);
	assert_int_equal(topo_gpu_numa(t, "00000000:1B:00.0"), 0);   /* as NVML writes it */
	assert_int_equal(topo_gpu_numa(t, "0000:ca:00.0"), 1);
	assert_int_equal(topo_gpu_numa(t, "0000:03:00.0"), -1);      /* the VGA: not a GPU here */
	assert_int_equal(topo_gpu_numa(t, "0000:ca:00.1"), -1);      /* the HCA */
	assert_int_equal(topo_gpu_numa(t, "0000:ca:00.0 "), -1);
	assert_int_equal(topo_gpu_numa(t, "ca:00.0"), -1);
	assert_int_equal(topo_gpu_numa(t, ""), -1);
	assert_int_equal(topo_gpu_numa(t, NULL), -1);
	free(t);
}

static void test_epyc_1numa(void **state)
{
	(void)state;
	struct topo *t = load("epyc-1numa.xml");
	assert_int_equal(t->npackages, 1);
	assert_int_equal(t->nnuma, 1);
	assert_int_equal(t->ncores, 6);
	assert_int_equal(t->npus, 6);
	assert_false(t->smt);
	assert_string_equal(t->cpu_model, "AMD EPYC 9254 24-Core Processor");
	assert_string_equal(cpus_of(t, 0), "0-5");
	assert_int_equal(t->numa[0].ncores, 6);
	assert_true(t->numa[0].mem_bytes == 32 * GIB);
	assert_int_equal(t->ngpus, 0);
	assert_int_equal(t->numa[0].ngpus, 0);
	free(t);
}

/* Sub-NUMA clustering and a CPU-less node: the CPU-less node owns no core
 * (each core goes to the smallest node holding it); a GPU in an SNC domain
 * is near that domain's node, one hanging off the whole package near the
 * package's own (CPU-less) node. */
static void test_snc_cpuless(void **state)
{
	(void)state;
	struct topo *t = load("snc2-gpus.xml");
	assert_int_equal(t->npackages, 1);
	assert_int_equal(t->nnuma, 3);
	assert_int_equal(t->ncores, 8);
	assert_int_equal(t->npus, 16);
	assert_true(t->smt);
	assert_true(t->mem_bytes == 512 * GIB);
	int snc0 = -1, snc1 = -1, cxl = -1;
	for (int i = 0; i < 3; i++) {
		int os = t->numa[i].os_index;
		*(os == 0 ? &snc0 : os == 1 ? &snc1 : &cxl) = i;
		assert_int_equal(t->numa[i].package, 0);
	}
	assert_true(snc0 >= 0 && snc1 >= 0 && cxl >= 0);
	assert_string_equal(cpus_of(t, snc0), "0-3,8-11");
	assert_string_equal(cpus_of(t, snc1), "4-7,12-15");
	assert_string_equal(cpus_of(t, cxl), "");
	assert_int_equal(t->numa[snc0].ncores, 4);
	assert_int_equal(t->numa[snc1].npus, 8);
	assert_int_equal(t->numa[cxl].ncores, 0);
	assert_int_equal(t->numa[cxl].npus, 0);
	assert_true(t->numa[cxl].mem_bytes == 256 * GIB);
	assert_true(t->numa[snc1].mem_bytes == 128 * GIB);
	assert_int_equal(t->ngpus, 2);
	assert_int_equal(topo_gpu_numa(t, "00000000:CA:00.0"), snc1);
	assert_int_equal(topo_gpu_numa(t, "00000000:1B:00.0"), cxl);
	assert_int_equal(t->numa[snc1].ngpus, 1);
	assert_int_equal(t->numa[cxl].ngpus, 1);
	assert_int_equal(t->numa[snc0].ngpus, 0);

	/* asked for the CPU-less node: its package's nodes, most free first, ties by index */
	int out[64];
	assert_int_equal(topo_pick_cpus(t, cxl, 2, NULL, out, 64, 0), 4);
	assert_string_equal(picked(out, 4), "0,8,1,9");
	/* SNC1 with three cores busy: its last core, then SNC0 */
	uint64_t busy[TOPO_PU_WORDS] = { 0 };
	topo_pu_set(busy, 4);
	topo_pu_set(busy, 13);
	topo_pu_set(busy, 6);
	assert_int_equal(topo_pick_cpus(t, snc1, 3, busy, out, 64, 0), 6);
	assert_string_equal(picked(out, 6), "7,15,0,8,1,9");
	free(t);
}

/* A real export (this build machine's, lstopo 2.9): caches between the
 * package and the cores, I/O that is not a GPU. */
static void test_lstopo_export(void **state)
{
	(void)state;
	struct topo *t = load("vm-lstopo.xml");
	assert_int_equal(t->npackages, 1);
	assert_int_equal(t->nnuma, 1);
	assert_int_equal(t->ncores, 2);
	assert_int_equal(t->npus, 2);
	assert_false(t->smt);
	assert_string_equal(t->cpu_model, "AMD EPYC");
	assert_string_equal(cpus_of(t, 0), "0-1");
	assert_true(t->numa[0].mem_bytes == 25276510208ULL);
	assert_int_equal(t->ngpus, 0);
	free(t);
}

static void test_bad_files(void **state)
{
	(void)state;
	struct topo *t = calloc(1, sizeof *t);
	assert_non_null(t);
	char *path = fixture("garbage.xml");
	assert_int_equal(topo_read_xml(path, t), -1);
	assert_non_null(strstr(t->err, path));
	assert_non_null(strstr(t->err, "not an hwloc XML topology"));
	assert_int_equal(t->npus, 0);

	assert_int_equal(topo_read_xml("/nonexistent/topo.xml", t), -1);
	assert_string_equal(t->err, "/nonexistent/topo.xml: No such file or directory");

	static const char *const bad[] = { "", "not xml at all\n", "<topology version=\"2.0\"></topology>\n",
	                                   "<?xml version=\"1.0\"?>\n<html><body/></html>\n" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *p = tu_write_tmp(".xml", bad[i]);
		if (topo_read_xml(p, t) != -1)
			fail_msg("case %zu was read", i);
		assert_non_null(strstr(t->err, p));
		unlink(p);
		free(p);
	}
	free(t);
}

/* ---- picking ------------------------------------------------------------------ */

static void test_pick(void **state)
{
	(void)state;
	struct topo *t = load("xeon-2s-smt.xml");
	uint64_t busy[TOPO_PU_WORDS] = { 0 };
	int out[64];

	/* packed into the asked node, whole cores */
	assert_int_equal(topo_pick_cpus(t, 0, 2, NULL, out, 64, 0), 4);
	assert_string_equal(picked(out, 4), "0,8,1,9");
	assert_int_equal(topo_pick_cpus(t, 1, 3, busy, out, 64, TOPO_PICK_FIRST_PU), 3);
	assert_string_equal(picked(out, 3), "4,5,6");
	/* a core with one busy thread is busy */
	topo_pu_set(busy, 1);
	topo_pu_set(busy, 10);
	assert_int_equal(topo_pick_cpus(t, 0, 2, busy, out, 64, 0), 4);
	assert_string_equal(picked(out, 4), "0,8,3,11");
	/* node 0 with one free core left: spills into node 1 */
	topo_pu_set(busy, 0);
	assert_int_equal(topo_pick_cpus(t, 0, 3, busy, out, 64, 0), 6);
	assert_string_equal(picked(out, 6), "3,11,4,12,5,13");
	/* any node: the best fit (node 0's single core), else the roomiest first */
	assert_int_equal(topo_pick_cpus(t, -1, 1, busy, out, 64, 0), 2);
	assert_string_equal(picked(out, 2), "3,11");
	assert_int_equal(topo_pick_cpus(t, -1, 2, busy, out, 64, 0), 4);
	assert_string_equal(picked(out, 4), "4,12,5,13");
	assert_int_equal(topo_pick_cpus(t, -1, 5, busy, out, 64, TOPO_PICK_FIRST_PU), 5);
	assert_string_equal(picked(out, 5), "4,5,6,7,3");
	/* not enough: 5 free cores */
	assert_int_equal(topo_pick_cpus(t, -1, 6, busy, out, 64, 0), -1);
	assert_int_equal(topo_pick_cpus(t, 1, 6, busy, out, 64, 0), -1);
	assert_int_equal(topo_pick_cpus(t, -1, 9, NULL, out, 64, 0), -1);
	assert_int_equal(topo_pick_cpus(t, -1, 8, NULL, out, 64, 0), 16);
	/* out[] too small: 2 cores are 4 PUs */
	assert_int_equal(topo_pick_cpus(t, 0, 2, NULL, out, 3, 0), -1);
	assert_int_equal(topo_pick_cpus(t, 0, 2, NULL, out, 4, 0), 4);
	assert_int_equal(topo_pick_cpus(t, 0, 2, NULL, out, 2, TOPO_PICK_FIRST_PU), 2);
	/* arguments out of range */
	assert_int_equal(topo_pick_cpus(t, 2, 1, NULL, out, 64, 0), -1);
	assert_int_equal(topo_pick_cpus(t, -2, 1, NULL, out, 64, 0), -1);
	assert_int_equal(topo_pick_cpus(t, 0, 0, NULL, out, 64, 0), -1);
	assert_int_equal(topo_pick_cpus(t, 0, 1, NULL, NULL, 64, 0), -1);
	/* NULL busy is an empty bitmap */
	memset(busy, 0, sizeof busy);
	int out2[64];
	assert_int_equal(topo_pick_cpus(t, 1, 4, busy, out, 64, 0), 8);
	assert_int_equal(topo_pick_cpus(t, 1, 4, NULL, out2, 64, 0), 8);
	assert_memory_equal(out, out2, 8 * sizeof out[0]);
	/* everything busy */
	memset(busy, 0xff, sizeof busy);
	assert_int_equal(topo_pick_cpus(t, -1, 1, busy, out, 64, 0), -1);
	free(t);
}

/* ---- helpers and the host --------------------------------------------------------- */

static void test_cpulist(void **state)
{
	(void)state;
	uint64_t b[TOPO_PU_WORDS] = { 0 };
	char buf[64];
	assert_string_equal(topo_cpulist(b, buf, sizeof buf), "");
	topo_pu_set(b, 0);
	assert_string_equal(topo_cpulist(b, buf, sizeof buf), "0");
	static const int more[] = { 1, 2, 5, 7, 8, 63, 64, 65, TOPO_MAX_PUS - 1 };
	for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
		topo_pu_set(b, more[i]);
	topo_pu_set(b, TOPO_MAX_PUS);   /* out of range: ignored */
	topo_pu_set(b, -1);
	assert_string_equal(topo_cpulist(b, buf, sizeof buf), "0-2,5,7-8,63-65,2047");
	assert_false(topo_pu_isset(b, TOPO_MAX_PUS));
	assert_false(topo_pu_isset(b, -1));
	assert_true(topo_pu_isset(b, 64));
	/* truncated at a whole entry */
	assert_string_equal(topo_cpulist(b, buf, 10), "0-2,5,7-8");
	assert_string_equal(topo_cpulist(b, buf, 14), "0-2,5,7-8");   /* not ",63-" */
	assert_string_equal(topo_cpulist(b, buf, 16), "0-2,5,7-8,63-65");
	assert_string_equal(topo_cpulist(b, buf, 1), "");
}

static void test_host(void **state)
{
	(void)state;
	struct topo *t = calloc(1, sizeof *t);
	assert_non_null(t);
	if (topo_read_host(t) != 0)
		fail_msg("this host: %s", t->err);
	print_message("  this host: %d packages, %d NUMA, %d cores, %d PUs, smt %d, %d GPUs, \"%s\"\n",
	              t->npackages, t->nnuma, t->ncores, t->npus, t->smt, t->ngpus, t->cpu_model);
	assert_true(t->npus >= 1 && t->ncores >= 1 && t->ncores <= t->npus);
	assert_true(t->nnuma >= 1);
	int npus = 0, ncores = 0;
	for (int i = 0; i < t->nnuma; i++) {
		npus += t->numa[i].npus;
		ncores += t->numa[i].ncores;
	}
	assert_int_equal(npus, t->npus);
	assert_int_equal(ncores, t->ncores);
	int *out = calloc(TOPO_MAX_PUS, sizeof *out);
	assert_non_null(out);
	assert_true(topo_pick_cpus(t, -1, 1, NULL, out, TOPO_MAX_PUS, 0) >= 1);
	assert_int_equal(topo_pick_cpus(t, -1, t->ncores, NULL, out, TOPO_MAX_PUS, 0), t->npus);
	free(out);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xeon_2s_smt),
		cmocka_unit_test(test_epyc_1numa),
		cmocka_unit_test(test_snc_cpuless),
		cmocka_unit_test(test_lstopo_export),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_host),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
