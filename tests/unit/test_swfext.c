/* Tests of the extended-SWF parsers (traces/swfext.h): the header notes
 * that give a memory unit, and field 21, the site's request. The reader
 * that uses them is tested in test_swf.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "traces/swfext.h"

/* "memory" (or RAM), then "in UNIT", optionally "per job|node|processor";
 * "requested" or "used" narrows the note to field 10 or 7. */
static void test_mem_note(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		int found, scale, per, req, used;
	} c[] = {
		{ "Note: requested memory (field 10) is in bytes per job", 1, SWF_MEM_BYTES, SWF_MEM_PER_JOB, 1, 0 },
		{ "Note: Memory used is in MB per node", 1, SWF_MEM_MB, SWF_MEM_PER_NODE, 0, 1 },
		{ "Note: memory fields in KB", 1, SWF_MEM_KB, SWF_MEM_PER_PROC, 1, 1 },
		{ "Note: RAM in GiB per core", 1, SWF_MEM_GB, SWF_MEM_PER_PROC, 1, 1 },
		{ "Note: jobs were killed over a memory limit of 2 GB", 0, 0, 0, 0, 0 },
		{ "Note: uses the EASY scheduler", 0, 0, 0, 0, 0 },
		{ "Note: in bytes, the memory", 0, 0, 0, 0, 0 },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct swf_mem_unit u = { 0 };
		bool req = false, used = false;
		int f = swfext_mem_note(c[i].text, &u, &req, &used);
		if (f != c[i].found || (f && (u.scale != c[i].scale || u.per != c[i].per ||
		                              req != c[i].req || used != c[i].used)))
			fail_msg("case %zu '%s': found %d scale %d per %d req %d used %d", i, c[i].text, f,
			         u.scale, u.per, req, used);
	}
}

/* A PBS resource list or a bare node specification, as the MetaCentrum and
 * CERIT-SC logs and qsub -l write them. */
static void test_sitereq(void **state)
{
	(void)state;
	static const struct {
		const char *f;
		int64_t nodes, ppn, procs, wall, mem;
		bool per_node, excl;
		const char *err;
	} c[] = {
		{ "-1", 0, 0, 0, -1, -1, false, false, NULL },
		{ "1:ppn=64:x86_64:cl_zewura#excl", 1, 64, 64, -1, -1, false, true, NULL },
		{ "8:ppn=8:x86_64:cl_zegox", 8, 8, 64, -1, -1, false, false, NULL },
		{ "1:ppn=2+3:ppn=4", 4, 0, 14, -1, -1, false, false, NULL },
		{ "nodes=2:ppn=8:mem=4gb,walltime=24:00:00", 2, 8, 16, 86400, 4LL << 30, true, false, NULL },
		{ "nodes=1:ppn=1:brno:x86_64,mem=8gb,walltime=1:16:00:00,scratch=2gb", 1, 1, 1, 144000,
		  8LL << 30, false, false, NULL },
		{ "select=2:ncpus=4:mem=512mb", 2, 4, 8, -1, 512LL << 20, true, false, NULL },
		{ "ncpus=6,walltime=90", 0, 0, 6, 90, -1, false, false, NULL },
		{ "mem=1024", 0, 0, 0, -1, 1024, false, false, NULL },
		{ "q_1d", 0, 0, 0, -1, -1, false, false, NULL },
		{ "nodes=2:ppn=x", 0, 0, 0, 0, 0, false, false, "ppn: expected a positive integer, got 'x'" },
		{ "nodes=0:ppn=2", 0, 0, 0, 0, 0, false, false, "nodes: expected a node count of at least 1, got '0'" },
		{ "walltime=1:2:3:4:5", 0, 0, 0, 0, 0, false, false, "walltime: expected [[[D:]H:]M:]S of at most 10^9 s, got '1:2:3:4:5'" },
		{ "mem=4xb", 0, 0, 0, 0, 0, false, false, "mem: expected a size such as 4gb, 512mb or 1024kb, got '4xb'" },
		{ "nodes=", 0, 0, 0, 0, 0, false, false, "nodes: expected a node specification" },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct swf_sitereq r;
		char msg[256] = "";
		int rc = swfext_sitereq(c[i].f, c[i].f + strlen(c[i].f), &r, msg, sizeof msg);
		if (c[i].err) {
			if (rc != -1 || !strstr(msg, c[i].err))
				fail_msg("case %zu '%s': rc %d, message '%s'", i, c[i].f, rc, msg);
			continue;
		}
		if (rc != 0 || r.nodes != c[i].nodes || r.ppn != c[i].ppn || r.procs != c[i].procs ||
		    r.walltime_s != c[i].wall || r.mem_b != c[i].mem || r.mem_per_node != c[i].per_node ||
		    r.excl != c[i].excl)
			fail_msg("case %zu '%s': rc %d nodes %lld ppn %d procs %lld wall %lld mem %lld per_node %d "
			         "excl %d (%s)", i, c[i].f, rc, (long long)r.nodes, r.ppn, (long long)r.procs,
			         (long long)r.walltime_s, (long long)r.mem_b, r.mem_per_node, r.excl, msg);
	}
}

/* workload.swf.memory_unit's values. */
static void test_mem_unit_parse(void **state)
{
	(void)state;
	struct swf_mem_unit u;
	assert_int_equal(swfext_mem_unit_parse("bytes/job", &u), 0);
	assert_int_equal(u.scale, SWF_MEM_BYTES);
	assert_int_equal(u.per, SWF_MEM_PER_JOB);
	assert_int_equal(swfext_mem_unit_parse("kb/PROC", &u), 0);
	assert_int_equal(u.scale, SWF_MEM_KB);
	assert_int_equal(u.per, SWF_MEM_PER_PROC);
	assert_int_equal(swfext_mem_unit_parse("MB/node", &u), 0);
	assert_int_equal(u.per, SWF_MEM_PER_NODE);
	assert_int_equal(swfext_mem_unit_parse("bytes", &u), -1);
	assert_int_equal(swfext_mem_unit_parse("TB/job", &u), -1);
	assert_int_equal(swfext_mem_unit_parse("KB/core", &u), -1);
	char b[32];
	assert_string_equal(swfext_mem_unit_name(&u, b, sizeof b), "MB per node");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mem_note),
		cmocka_unit_test(test_sitereq),
		cmocka_unit_test(test_mem_unit_parse),
	};
	return cmocka_run_group_tests_name("swfext", tests, NULL, NULL);
}
