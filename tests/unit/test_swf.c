/* Tests of the SWF reader, the line reader and the workload table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "tests/testutil.h"
#include "traces/swfext.h"
#include "traces/trace.h"

#define KTH_REL "traces/data/swf-kth-sp2-1996/KTH-SP2-1996-2.1-cln.swf.gz"

static const char small_swf[] =
	"; Version: 2.2\n"
	"; Computer: test\n"
	"; MaxJobs: 5\n"
	"; UnixStartTime: 843480031\n"
	";   MaxNodes: 32\n"
	"; MaxProcs: 64\n"
	"\n"
	/* id submit wait run alloc cpu mem req_p req_t req_m st user grp exe q part prec think */
	"   1   100  5  3600  4  -1 -1  4  7200 -1  1  12 3 -1  2 -1 -1 -1\n"
	"   2    50  0    60 -1  12.5 2048.75 8  -1 -1  0  13 3  7 -1 -1 -1 -1\r\n"
	"\t3\t100\t0\t10\t0\t-1\t-1\t2\t0\t-1\t5\t14\t4\t-1\t1\t1\t1\t30\n"
	"   \n"
	"   4   200  0     0  1  -1 -1 -1    60 -1 -1  12 3 -1  2 -1 -1 -1"; /* no final newline */

static char *write_gz(const char *text)
{
	char *p = tu_tmpath(".swf.gz");
	gzFile gz = gzopen(p, "wb");
	assert_non_null(gz);
	assert_int_equal(gzputs(gz, text), (int)strlen(text));
	assert_int_equal(gzclose(gz), Z_OK);
	return p;
}

static void check_small(const struct workload *w)
{
	assert_int_equal(w->n, 4);
	assert_int_equal(w->max_procs, 64);
	assert_int_equal(w->max_nodes, 32);
	assert_int_equal(w->unix_start, 843480031);
	assert_int_equal(w->skipped_malformed, 0);
	assert_int_equal(w->skipped_unusable, 0);
	assert_int_equal(w->lines, 12);
	/* Sorted by submit, stable: job 2 (t=50), 1 and 3 (t=100, file order), 4. */
	const int64_t trace_ids[] = { 2, 1, 3, 4 };
	for (int i = 0; i < 4; i++) {
		assert_int_equal(w->jobs[i].id, i);
		assert_int_equal(w->jobs[i].trace_id, trace_ids[i]);
		assert_int_equal(w->jobs[i].cls, JOB_BATCH);
		assert_int_equal(w->jobs[i].state, JOB_PENDING);
		assert_int_equal(w->jobs[i].req.nodes, 0);
		assert_int_equal(w->jobs[i].req.gpus, 0);
		assert_int_equal(w->jobs[i].req.mem_mib, 0);
		assert_int_equal(w->jobs[i].start_us, -1);
	}
	const struct job *j = &w->jobs[0]; /* SWF job 2 */
	assert_int_equal(j->submit_us, 50 * SIMTIME_SEC);
	assert_int_equal(j->req.cores, 8);               /* allocated -1: requested */
	assert_true(j->walltime_us == SIMTIME_INF);      /* requested time -1 */
	assert_int_equal(j->tenant, 13);
	assert_int_equal(j->group, 3);
	assert_int_equal(j->queue, -1);
	assert_int_equal(w->truth[0].run_us, 60 * SIMTIME_SEC);
	assert_int_equal(w->truth[0].fails, 1);          /* status 0 */

	j = &w->jobs[1]; /* SWF job 1 */
	assert_int_equal(j->submit_us, 100 * SIMTIME_SEC);
	assert_int_equal(j->req.cores, 4);
	assert_int_equal(j->walltime_us, 7200 * SIMTIME_SEC);
	assert_int_equal(j->tenant, 12);
	assert_int_equal(j->queue, 2);
	assert_int_equal(w->truth[1].run_us, 3600 * SIMTIME_SEC);
	assert_int_equal(w->truth[1].fails, 0);          /* status 1 */

	j = &w->jobs[2]; /* SWF job 3: tabs, allocated 0 */
	assert_int_equal(j->req.cores, 2);
	assert_true(j->walltime_us == SIMTIME_INF);      /* requested time 0 */
	assert_int_equal(j->tenant, 14);
	assert_int_equal(j->group, 4);
	assert_int_equal(j->queue, 1);
	assert_int_equal(w->truth[2].fails, 1);          /* status 5: cancelled */

	j = &w->jobs[3]; /* SWF job 4: run time 0, status -1 */
	assert_int_equal(j->submit_us, 200 * SIMTIME_SEC);
	assert_int_equal(j->req.cores, 1);
	assert_int_equal(w->truth[3].run_us, 0);
	assert_int_equal(w->truth[3].fails, 0);
}

static void test_small_file(void **state)
{
	(void)state;
	char *p = tu_write_tmp(".swf", small_swf);
	struct workload w;
	char err[512] = "";
	assert_int_equal(trace_swf_read(p, NULL, &w, err, sizeof err), 0);
	check_small(&w);
	workload_free(&w);
	assert_int_equal(w.n, 0);
	workload_free(&w); /* freeing twice is harmless */
	unlink(p);
	free(p);
}

static void test_gzip(void **state)
{
	(void)state;
	char *p = write_gz(small_swf);
	struct workload w;
	char err[512] = "";
	struct swf_opts o = { .lenient = false };
	assert_int_equal(trace_swf_read(p, &o, &w, err, sizeof err), 0);
	check_small(&w);
	workload_free(&w);
	unlink(p);
	free(p);
}

static const char good2[] =
	"; MaxProcs: 8\n"
	"1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"2 5 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n";

struct bad_case {
	const char *line;
	const char *want; /* substring of the message after "path:4: " */
};

static const struct bad_case bad_cases[] = {
	{ "3 9 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1",
	  "expected 18 fields, got 17 (field 18 (think time) is missing)" },
	{ "3 9 0 abc 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1",
	  "field 4 (run time): expected -1 or a non-negative integer (seconds, at most 10^9), got 'abc'" },
	{ "3 9 0 10 12abc -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1",
	  "field 5 (allocated processors): expected -1 or a non-negative integer below 2^31, got '12abc'" },
	{ "3 9 0 10 1 12.5x -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1",
	  "field 6 (average CPU time): expected a number (-1 or >= 0), got '12.5x'" },
	{ "3 -1 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1",
	  "field 2 (submit time): expected a non-negative integer" },
	{ "3 9 -5 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1",
	  "field 3 (wait time): expected -1 or a non-negative integer (seconds, at most 10^9), got '-5'" },
	{ "3 9 0 10.5 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1",
	  "field 4 (run time):" },
	{ "3 9 0 10 1 -1 -1 1 60 -1 7 1 1 -1 -1 -1 -1 -1",
	  "field 11 (status): expected a status in -1..5" },
	{ "3 9 0 10 1 -1 -1 1 60 -1 1 99999999999 1 -1 -1 -1 -1 -1",
	  "field 12 (user id):" },
	{ "3 9 0 10 1 -1 -1 1 99999999999999999999 -1 1 1 1 -1 -1 -1 -1 -1",
	  "field 9 (requested time): expected -1 or a non-negative integer (seconds, at most 10^9), got '99999999999999999999' (out of range)" },
	/* Times past TRACE_MAX_TIME_S: the replay would never end. */
	{ "3 9 0 9223372036854 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1",
	  "field 4 (run time): expected -1 or a non-negative integer (seconds, at most 10^9), got '9223372036854'" },
	{ "3 1000000001 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1",
	  "field 2 (submit time): expected a non-negative integer (seconds, at most 10^9;" },
	{ "3 9 0 10 1 -1 -1 1 1000000001 -1 1 1 1 -1 -1 -1 -1 -1",
	  "field 9 (requested time): expected -1 or a non-negative integer (seconds, at most 10^9), got '1000000001'" },
	{ "3 9 0 10 1 -1 -1 1 60 -1 1 1 1 - -1 -1 -1 -1",
	  "field 14 (executable id):" },
	{ "; MaxProcs: lots", "header MaxProcs: expected a non-negative integer (or -1, unknown), got 'lots'" },
};

static void test_malformed(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		char text[1024];
		snprintf(text, sizeof text, "%s%s\n1 99 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n",
		         good2, bad_cases[i].line);
		char *p = tu_write_tmp(".swf", text);
		struct workload w;
		char err[512] = "";
		char want[768];
		snprintf(want, sizeof want, "%s:4: %s", p, bad_cases[i].want);
		int rc = trace_swf_read(p, NULL, &w, err, sizeof err);
		if (rc != -1 || !strstr(err, want))
			fail_msg("case %zu: rc %d, message\n  %s\nexpected it to contain\n  %s", i, rc,
			         err, want);
		assert_int_equal(w.n, 0);
		assert_null(w.jobs);

		/* Lenient: the same line is skipped and counted. */
		struct swf_opts o = { .lenient = true };
		assert_int_equal(trace_swf_read(p, &o, &w, err, sizeof err), 0);
		assert_int_equal(w.n, 3);
		assert_int_equal(w.skipped_malformed, 1);
		assert_int_equal(w.skipped_unusable, 0);
		workload_free(&w);
		unlink(p);
		free(p);
	}
}

/* Extended SWF (the production log with 21 fields failed with
 * "expected 18 fields, got 21"): the extra fields are counted; 19 and 20
 * are ignored, 21 is read (and here gives nothing fields 5-10 lack). */
static void test_extended_fields(void **state)
{
	(void)state;
	char *p = tu_write_tmp(".swf",
		"; MaxProcs: 64\n"
		"1 0 0 10 4 -1 -1 4 60 2048 1 1 1 -1 2 1 -1 -1 node01,node02 q_short nodes=1:ppn=4\n"
		"2 5 0 10 1 -1 -1 1 60 -1 1 1 1 -1 1 2 -1 -1 x\n"
		"3 6 0 10 1 -1 -1 1 60 -1 1 1 1 -1 1 2 -1 -1\n");
	struct workload w;
	char err[512] = "";
	assert_int_equal(trace_swf_read(p, NULL, &w, err, sizeof err), 0);
	assert_int_equal(w.n, 3);
	assert_int_equal(w.extra_field_lines, 2);
	assert_int_equal(w.extra_fields_max, 3);
	assert_int_equal(w.site_req_lines, 1);
	assert_int_equal(w.site_req_used[SWF_SITE_PROCS] + w.site_req_used[SWF_SITE_TIME], 0);
	assert_int_equal(w.jobs[0].req.cores, 4);
	assert_int_equal(w.jobs[0].req.nodes, 0);       /* default shape: cores anywhere */
	assert_int_equal(w.jobs[0].req.mem_mib, 0);
	workload_free(&w);
	unlink(p);
	free(p);
}

/* Request shapes: node gangs of ppn, exclusive or not, memory per node from
 * field 10 (KB per processor), partition -> label expression. */
static void test_shapes(void **state)
{
	(void)state;
	char *p = tu_write_tmp(".swf",
		"1 0 0 10 10 -1 512 10 60 2048 1 1 1 -1 -1 1 -1 -1\n"
		"2 1 0 10 3 -1 -1 3 60 -1 1 1 1 -1 -1 2 -1 -1\n"
		"3 2 0 10 8 -1 -1 8 60 1024 1 1 1 -1 -1 -1 -1 -1\n");
	struct workload w;
	char err[512] = "";
	struct swf_shape sh = { .kind = SWF_SHAPE_NODES, .ppn = 4, .mem = SWF_MEM_REQUESTED,
	                        .npart = 2 };
	sh.part[0].partition = 1;
	snprintf(sh.part[0].expr, sizeof sh.part[0].expr, "partition = a");
	sh.part[1].partition = 2;
	snprintf(sh.part[1].expr, sizeof sh.part[1].expr, "partition = b");
	struct swf_opts o = { .shape = &sh };
	assert_int_equal(trace_swf_read(p, &o, &w, err, sizeof err), 0);
	/* 10 procs on 4-processor nodes: 3 nodes of ceil(10/3) = 4 cores. */
	assert_int_equal(w.jobs[0].req.nodes, 3);
	assert_int_equal(w.jobs[0].req.cores, 4);
	assert_int_equal(w.jobs[0].req.mem_mib, 8);     /* 2048 KB x 4 per node */
	assert_string_equal(w.str[w.jobs[0].req.sel_req - 1], "partition = a");
	assert_int_equal(w.jobs[1].req.nodes, 1);
	assert_int_equal(w.jobs[1].req.cores, 3);
	assert_int_equal(w.jobs[1].req.mem_mib, 0);     /* -1: no memory request */
	assert_string_equal(w.str[w.jobs[1].req.sel_req - 1], "partition = b");
	assert_int_equal(w.jobs[2].req.sel_req, 0);     /* partition -1: anywhere */
	workload_free(&w);
	/* Exclusive: every node's ppn cores, however few processors. */
	sh.exclusive = true;
	sh.mem = SWF_MEM_USED;
	assert_int_equal(trace_swf_read(p, &o, &w, err, sizeof err), 0);
	assert_int_equal(w.jobs[1].req.nodes, 1);
	assert_int_equal(w.jobs[1].req.cores, 4);
	assert_int_equal(w.jobs[0].req.mem_mib, 2);     /* field 7: 512 KB x 4 */
	workload_free(&w);
	/* A partition the scenario does not map is an error naming the line. */
	sh.npart = 1;
	assert_int_equal(trace_swf_read(p, &o, &w, err, sizeof err), -1);
	assert_non_null(strstr(err, ":2: field 16 (partition): 2 is not in the scenario's partitions"));
	/* Cores anywhere with memory: per core. */
	struct swf_shape c = { .kind = SWF_SHAPE_CORES, .mem = SWF_MEM_REQUESTED };
	o.shape = &c;
	assert_int_equal(trace_swf_read(p, &o, &w, err, sizeof err), 0);
	assert_int_equal(w.jobs[0].req.nodes, 0);
	assert_int_equal(w.jobs[0].req.cores, 10);
	assert_int_equal(w.jobs[0].req.mem_mib, 2);
	workload_free(&w);
	unlink(p);
	free(p);
}

/* Submit times that are Unix times (the first job's >= 10^8 s) are rebased
 * to the first submit, which becomes unix_start (the issue: the MetaCentrum
 * logs' field 2 was refused as over 10^9 s on every line). */
static void test_unix_times(void **state)
{
	(void)state;
	char *p = tu_write_tmp(".swf",
		"; UnixStartTime: 1356994800\n"
		"1 1356998520 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"2 1356998400 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n"   /* earlier: the origin */
		"3 1357084800 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n");
	struct workload w;
	char err[512] = "";
	assert_int_equal(trace_swf_read(p, NULL, &w, err, sizeof err), 0);
	assert_int_equal(w.n, 3);
	assert_int_equal(w.rebased_from, 1356998400);
	assert_int_equal(w.unix_start, 1356998400);
	assert_int_equal(w.header_unix_start, 1356994800);
	assert_int_equal(w.jobs[0].trace_id, 2);
	assert_int_equal(w.jobs[0].submit_us, 0);
	assert_int_equal(w.jobs[1].submit_us, 120 * SIMTIME_SEC);
	assert_int_equal(w.jobs[2].submit_us, 86400 * SIMTIME_SEC);
	char notes[1024];
	swfext_notes(&w, notes, sizeof notes);
	assert_non_null(strstr(notes, "rebased to the first submit, 1356998400 (2013-01-01 00:00:00 UTC)"));
	assert_non_null(strstr(notes, "(the header said 1356994800)"));
	workload_free(&w);
	unlink(p);
	free(p);

	/* The boundary: 10^8 - 1 is a relative time, 10^8 a Unix time. */
	static const struct { const char *first; int64_t rebased; } b[] = {
		{ "99999999", 0 }, { "100000000", 100000000 } };
	for (int i = 0; i < 2; i++) {
		char text[256];
		snprintf(text, sizeof text, "1 %s 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n", b[i].first);
		p = tu_write_tmp(".swf", text);
		assert_int_equal(trace_swf_read(p, NULL, &w, err, sizeof err), 0);
		assert_int_equal(w.rebased_from, b[i].rebased);
		assert_int_equal(w.jobs[0].submit_us, b[i].rebased ? 0 : 99999999 * SIMTIME_SEC);
		swfext_notes(&w, notes, sizeof notes);
		assert_int_equal(notes[0] != '\0', b[i].rebased != 0);
		workload_free(&w);
		unlink(p);
		free(p);
	}

	/* More than 10^9 s from the first job: malformed (skipped when lenient);
	 * lines on both sides that span more than 10^9 s: an error at the end. */
	p = tu_write_tmp(".swf",
		"1 1356998400 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"2 2400000000 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n");
	assert_int_equal(trace_swf_read(p, NULL, &w, err, sizeof err), -1);
	assert_non_null(strstr(err, ":2: field 2 (submit time): 2400000000 is more than 10^9 s from "
	                       "the first job's 1356998400 (the log's submit times are Unix times)"));
	struct swf_opts o = { .lenient = true };
	assert_int_equal(trace_swf_read(p, &o, &w, err, sizeof err), 0);
	assert_int_equal(w.n, 1);
	assert_int_equal(w.skipped_malformed, 1);
	workload_free(&w);
	unlink(p);
	free(p);
	p = tu_write_tmp(".swf",
		"1 1356998400 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"2 756998400 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"3 1956998400 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n");
	assert_int_equal(trace_swf_read(p, NULL, &w, err, sizeof err), -1);
	assert_non_null(strstr(err, ":3: field 2 (submit time): 1956998400 is more than 10^9 s after "
	                       "the log's first submit 756998400"));
	assert_int_equal(w.n, 0);
	unlink(p);
	free(p);
}

/* Memory units from header notes, through the reader (the notes' wording:
 * test_swfext.c). Without one: the spec's KB per processor. */
static void test_mem_units(void **state)
{
	(void)state;
	/* Through the reader: the request in MiB per node of a gang. */
	char *p = tu_write_tmp(".swf",
		"; Note: requested memory is in MB per node\n"
		"; Note: used memory is in bytes per job\n"
		"1 0 0 10 8 -1 4194304 8 60 1500 1 1 1 -1 -1 -1 -1 -1\n");
	struct workload w;
	char err[512] = "";
	struct swf_shape sh = { .kind = SWF_SHAPE_NODES, .ppn = 4, .mem = SWF_MEM_REQUESTED };
	struct swf_opts o = { .shape = &sh };
	assert_int_equal(trace_swf_read(p, &o, &w, err, sizeof err), 0);
	assert_int_equal(w.mem_req_unit.line, 1);
	assert_int_equal(w.mem_used_unit.line, 2);
	assert_int_equal(w.jobs[0].req.nodes, 2);
	assert_int_equal(w.jobs[0].req.mem_mib, 1500);      /* MB per node */
	workload_free(&w);
	sh.mem = SWF_MEM_USED;
	assert_int_equal(trace_swf_read(p, &o, &w, err, sizeof err), 0);
	assert_int_equal(w.jobs[0].req.mem_mib, 2);         /* 4 MiB a job on 2 nodes */
	workload_free(&w);
	struct swf_shape spread = { .kind = SWF_SHAPE_CORES, .mem = SWF_MEM_USED };
	o.shape = &spread;
	assert_int_equal(trace_swf_read(p, &o, &w, err, sizeof err), 0);
	assert_int_equal(w.jobs[0].req.mem_mib, 1);         /* 4 MiB / 8 cores, rounded up */
	workload_free(&w);
	/* The scenario's memory_unit wins over the notes, and says so. */
	sh.mem = SWF_MEM_REQUESTED;
	sh.mem_unit_given = true;
	sh.mem_unit = (struct swf_mem_unit){ .scale = SWF_MEM_GB, .per = SWF_MEM_PER_JOB };
	o.shape = &sh;
	assert_int_equal(trace_swf_read(p, &o, &w, err, sizeof err), 0);
	assert_int_equal(w.jobs[0].req.mem_mib, 1500 * 1024 / 2);   /* 1500 GB on 2 nodes */
	char notes[512];
	swfext_notes(&w, notes, sizeof notes);
	assert_non_null(strstr(notes, "requested memory (field 10) in GB per job (the scenario's "
	                       "workload.swf.memory_unit)"));
	workload_free(&w);
	sh.mem_unit_given = false;
	unlink(p);
	free(p);
	/* Two notes that disagree: an error naming both lines. */
	p = tu_write_tmp(".swf",
		"; Note: memory is in bytes per job\n"
		"; Note: requested memory is in KB per processor\n");
	assert_int_equal(trace_swf_read(p, NULL, &w, err, sizeof err), -1);
	assert_non_null(strstr(err, ":2: header: the memory unit KB per processor contradicts "
	                       "bytes per job (line 1)"));
	unlink(p);
	free(p);
	/* A request too large for any node: an error, not an overflow. */
	p = tu_write_tmp(".swf", "1 0 0 10 8 -1 -1 8 60 8000000000000000000 1 1 1 -1 -1 -1 -1 -1\n");
	sh.mem = SWF_MEM_REQUESTED;
	o.shape = &sh;
	assert_int_equal(trace_swf_read(p, &o, &w, err, sizeof err), -1);
	assert_non_null(strstr(err, ":1: field 10 (requested memory): 8000000000000000000 KB per "
	                       "processor is more than 2^40 MiB a node"));
	unlink(p);
	free(p);
}

/* A bad field 21 (the parser: test_swfext.c). */
static void test_site_request(void **state)
{
	(void)state;
	/* A bad field 21 names the file, the line and the field. */
	char *p = tu_write_tmp(".swf",
		"1 0 0 10 8 -1 -1 8 60 -1 1 1 1 -1 -1 -1 -1 -1 {1} q 1:ppn=8\n"
		"2 0 0 10 8 -1 -1 8 60 -1 1 1 1 -1 -1 -1 -1 -1 {1} q nodes=1:ppn=eight\n");
	struct workload w;
	char err[512] = "";
	assert_int_equal(trace_swf_read(p, NULL, &w, err, sizeof err), -1);
	assert_non_null(strstr(err, ":2: field 21 (site request): ppn: expected a positive integer, "
	                       "got 'eight'"));
	unlink(p);
	free(p);
}

/* The hand-made excerpt in the MetaCentrum log's format (tests/data/
 * swf-metacentrum/SOURCE.md): Unix times, memory in bytes per job, field
 * 21 filling processors, requested time, memory and the gang shape. */
static void test_metacentrum(void **state)
{
	(void)state;
	char p[1024];
	snprintf(p, sizeof p, "%s/tests/data/swf-metacentrum/metacentrum-excerpt.swf", tu_root());
	struct workload w;
	char err[512] = "";
	assert_int_equal(trace_swf_read(p, NULL, &w, err, sizeof err), 0);
	assert_int_equal(w.n, 7);
	assert_int_equal(w.skipped_unusable, 1);               /* job 7: run time -1 */
	assert_int_equal(w.rebased_from, 1356998520);
	assert_int_equal(w.unix_start, 1356998520);
	assert_int_equal(w.mem_req_unit.scale, SWF_MEM_BYTES);
	assert_int_equal(w.mem_req_unit.per, SWF_MEM_PER_JOB);
	assert_int_equal(w.mem_req_unit.line, 12);
	assert_int_equal(w.mem_used_unit.line, 0);             /* the spec's KB per processor */
	assert_int_equal(w.extra_field_lines, 8);
	assert_int_equal(w.site_req_lines, 8);
	assert_int_equal(w.site_req_used[SWF_SITE_PROCS], 1);
	assert_int_equal(w.site_req_used[SWF_SITE_TIME], 1);
	assert_int_equal(w.jobs[2].trace_id, 3);
	assert_int_equal(w.jobs[2].req.cores, 4);              /* fields 5 and 8 -1: nodes=1:ppn=4 */
	assert_int_equal(w.jobs[2].submit_us, 480 * SIMTIME_SEC);
	assert_int_equal(w.jobs[3].walltime_us, 4 * 3600 * SIMTIME_SEC);   /* field 9 -1: 0:04:00:00 */
	workload_free(&w);
	/* Gangs of 16-core nodes, memory requested. */
	struct swf_shape sh = { .kind = SWF_SHAPE_NODES, .ppn = 16, .mem = SWF_MEM_REQUESTED };
	struct swf_opts o = { .shape = &sh };
	assert_int_equal(trace_swf_read(p, &o, &w, err, sizeof err), 0);
	static const struct { int64_t id; int32_t nodes, cores; int64_t mib; } want[] = {
		{ 1, 1, 8, 8192 },     /* 1:ppn=8, 8 GiB a job */
		{ 2, 2, 16, 16384 },   /* 2:ppn=8 #excl: whole nodes; 32 GiB on 2 nodes */
		{ 3, 1, 4, 2048 },
		{ 4, 1, 1, 2048 },     /* field 10 -1: mem=2gb of field 21, the job's */
		{ 5, 1, 12, 12288 },   /* two parts: ceil(12 / 16) nodes */
		{ 6, 1, 2, 0 },        /* field 10 -1, field 21 -1: no request */
		{ 8, 4, 16, 16384 },   /* ppn=64 > 16: 4 nodes, #excl; 64 GiB on 4 */
	};
	for (int i = 0; i < 7; i++) {
		const struct job *j = &w.jobs[i];
		if (j->trace_id != want[i].id || j->req.nodes != want[i].nodes ||
		    j->req.cores != want[i].cores || j->req.mem_mib != want[i].mib)
			fail_msg("job %lld: %d nodes of %d cores, %lld MiB; expected job %lld: %d of %d, %lld",
			         (long long)j->trace_id, j->req.nodes, j->req.cores, (long long)j->req.mem_mib,
			         (long long)want[i].id, want[i].nodes, want[i].cores, (long long)want[i].mib);
	}
	assert_int_equal(w.site_req_used[SWF_SITE_MEM], 1);
	assert_int_equal(w.site_req_used[SWF_SITE_SHAPE], 4);
	char notes[1024];
	swfext_notes(&w, notes, sizeof notes);
	assert_non_null(strstr(notes, "requested memory (field 10) in bytes per job (header line 12)"));
	assert_non_null(strstr(notes, "field 21 (the site's request) read on 8 job lines; it gave "
	                       "processors to 1 job, the requested time to 1 job, memory to 1 job, "
	                       "the gang shape to 4 jobs"));
	workload_free(&w);
}

static void test_lenient_counts(void **state)
{
	(void)state;
	char *p = tu_write_tmp(".swf",
		"1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"garbage\n"
		"2 1 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1\n"
		"3 2 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n"
		"4 3 0 -1 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n"   /* unusable */
		"5 x 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n");
	struct workload w;
	char err[512] = "";
	assert_int_equal(trace_swf_read(p, NULL, &w, err, sizeof err), -1);
	assert_non_null(strstr(err, ":2: expected 18 fields, got 1"));
	struct swf_opts o = { .lenient = true };
	assert_int_equal(trace_swf_read(p, &o, &w, err, sizeof err), 0);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.skipped_malformed, 3);
	assert_int_equal(w.skipped_unusable, 1);
	assert_int_equal(w.lines, 6);
	workload_free(&w);
	unlink(p);
	free(p);
}

static void test_unusable(void **state)
{
	(void)state;
	char *p = tu_write_tmp(".swf",
		"1 0 0 -1 4 -1 -1 4 60 -1 1 1 1 -1 -1 -1 -1 -1\n"   /* run time unknown */
		"2 0 0 10 -1 -1 -1 -1 60 -1 1 1 1 -1 -1 -1 -1 -1\n" /* no processors */
		"3 0 0 10 0 -1 -1 0 60 -1 1 1 1 -1 -1 -1 -1 -1\n"   /* zero processors */
		"4 0 0 10 0 -1 -1 3 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"); /* requested: usable */
	struct workload w;
	char err[512] = "";
	assert_int_equal(trace_swf_read(p, NULL, &w, err, sizeof err), 0);
	assert_int_equal(w.n, 1);
	assert_int_equal(w.skipped_unusable, 3);
	assert_int_equal(w.skipped_malformed, 0);
	assert_int_equal(w.jobs[0].trace_id, 4);
	assert_int_equal(w.jobs[0].req.cores, 3);
	assert_true(w.jobs[0].walltime_us == SIMTIME_INF);
	assert_int_equal(w.max_procs, -1);
	assert_int_equal(w.max_nodes, -1);
	assert_int_equal(w.unix_start, -1);
	workload_free(&w);
	unlink(p);
	free(p);
}

static void test_missing_and_truncated(void **state)
{
	(void)state;
	struct workload w;
	char err[512] = "";
	assert_int_equal(trace_swf_read("/nonexistent/x.swf", NULL, &w, err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent/x.swf"));
	assert_int_equal(w.n, 0);

	/* A gzip file cut in half is a read error, not a short trace. */
	char big[64 * 1024];
	size_t off = 0;
	for (int i = 1; off + 80 < sizeof big; i++)
		off += (size_t)snprintf(big + off, sizeof big - off,
		                        "%d %d 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n", i, i);
	char *gz = write_gz(big);
	FILE *f = fopen(gz, "r+");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	assert_int_equal(ftruncate(fileno(f), size / 2), 0);
	fclose(f);
	assert_int_equal(trace_swf_read(gz, NULL, &w, err, sizeof err), -1);
	assert_non_null(strstr(err, gz));
	assert_non_null(strstr(err, "read error"));
	assert_int_equal(w.n, 0);
	unlink(gz);
	free(gz);
}

static void test_linereader(void **state)
{
	(void)state;
	/* A line far longer than the initial buffer, CRLF, an empty line, no final newline. */
	size_t longn = 100000;
	char *text = malloc(longn + 64);
	assert_non_null(text);
	strcpy(text, "first\r\n");
	size_t o = strlen(text);
	memset(text + o, 'x', longn);
	o += longn;
	strcpy(text + o, "\n\nlast");
	char *p = tu_write_tmp(".txt", text);
	char err[256] = "";
	struct linereader *lr = linereader_open(p, err, sizeof err);
	assert_non_null(lr);
	size_t len;
	const char *l = linereader_next(lr, &len);
	assert_string_equal(l, "first");
	assert_int_equal(len, 5);
	assert_int_equal(linereader_lineno(lr), 1);
	l = linereader_next(lr, &len);
	assert_non_null(l);
	assert_int_equal(len, longn);
	assert_int_equal(strlen(l), longn);
	assert_int_equal(l[longn - 1], 'x');
	l = linereader_next(lr, &len);
	assert_string_equal(l, "");
	l = linereader_next(lr, &len);
	assert_string_equal(l, "last");
	assert_int_equal(linereader_lineno(lr), 4);
	assert_null(linereader_next(lr, &len));
	assert_int_equal(linereader_error(lr), 0);
	linereader_close(lr);
	unlink(p);
	free(p);
	free(text);

	/* A long SWF line (padding) still parses. */
	char *swf = malloc(20000);
	assert_non_null(swf);
	memset(swf, ' ', 10000);
	strcpy(swf + 10000, "1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n");
	p = tu_write_tmp(".swf", swf);
	struct workload w;
	assert_int_equal(trace_swf_read(p, NULL, &w, err, sizeof err), 0);
	assert_int_equal(w.n, 1);
	workload_free(&w);
	unlink(p);
	free(p);
	free(swf);
}

/* A line of one byte more than TRACE_LINE_MAX is an error naming the line
 * in every reader (here SWF and JSON Lines), which stops there instead of
 * buffering the rest (the reader itself, plain and gzip: test_linereader). */
static void test_line_cap(void **state)
{
	(void)state;
	size_t n = TRACE_LINE_MAX;
	char *text = malloc(2 * n + 64);
	assert_non_null(text);
	char *p, err[256] = "", want[256];
	/* Through the readers: a JSON Lines job line of 1 MiB + 1 byte. */
	strcpy(text, "{\"submit_us\":0,\"run_us\":1,\"req\":{\"cores\":1},\"trace_id\":1");
	size_t o = strlen(text);
	memset(text + o, ' ', n);
	strcpy(text + n, "}\n");
	p = tu_write_tmp(".jsonl", text);
	struct workload w;
	assert_int_equal(trace_jsonl_read(p, &w, err, sizeof err), -1);
	snprintf(want, sizeof want, "%s:1: line longer than", p);
	assert_non_null(strstr(err, want));
	assert_int_equal(w.n, 0);
	unlink(p);
	free(p);
	memset(text, ' ', n + 1);
	strcpy(text + n + 1, "1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 -1 -1 -1\n");
	p = tu_write_tmp(".swf", text);
	assert_int_equal(trace_swf_read(p, NULL, &w, err, sizeof err), -1);
	snprintf(want, sizeof want, "%s:1: line longer than", p);
	assert_non_null(strstr(err, want));
	unlink(p);
	free(p);
	free(text);
}

/* w in submit order, ids its indexes, each job with its own truth (run_us
 * = its trace_id), and jobs of the same submit time in file order. */
static void check_sorted(const struct workload *w)
{
	for (int i = 0; i < w->n; i++) {
		assert_int_equal(w->jobs[i].id, i);
		assert_int_equal(w->truth[i].run_us, w->jobs[i].trace_id);
		if (i > 0) {
			assert_true(w->jobs[i - 1].submit_us <= w->jobs[i].submit_us);
			if (w->jobs[i - 1].submit_us == w->jobs[i].submit_us)
				assert_true(w->jobs[i - 1].trace_id < w->jobs[i].trace_id);
		}
	}
}

static void test_workload_sort(void **state)
{
	(void)state;
	struct workload w;
	workload_init(&w);
	/* Many jobs in reverse blocks of equal submit times: stable order kept. */
	for (int i = 0; i < 5000; i++) {
		struct job j;
		struct job_truth t = { .run_us = i };
		job_init(&j, 0, (simtime)(4999 - i) / 10 * SIMTIME_SEC);
		j.trace_id = i;
		assert_int_equal(workload_add(&w, &j, &t), 0);
		assert_int_equal(w.jobs[i].id, i);
	}
	workload_sort(&w);
	check_sorted(&w);
	workload_free(&w);
	/* Submit times a multiplicative shuffle of 0..4999 (long cycles of the
	 * permutation the sort applies in place), every tenth one repeated. */
	workload_init(&w);
	for (int i = 0; i < 5000; i++) {
		struct job j;
		struct job_truth t = { .run_us = i, .fails = (uint8_t)(i % 7) };
		int64_t at = (int64_t)i * 7919 % 5000;
		job_init(&j, 0, (simtime)(at - at % 10 * (at % 10 == 9)) * SIMTIME_SEC);
		j.trace_id = i;
		j.tenant = i % 13;
		assert_int_equal(workload_add(&w, &j, &t), 0);
	}
	workload_sort(&w);
	for (int i = 0; i < w.n; i++) {
		assert_int_equal(w.truth[i].fails, w.jobs[i].trace_id % 7);
		assert_int_equal(w.jobs[i].tenant, w.jobs[i].trace_id % 13);
		assert_int_equal(w.jobs[i].submit_us / SIMTIME_SEC, (w.jobs[i].trace_id * 7919 % 5000) -
		                 (w.jobs[i].trace_id * 7919 % 5000) % 10 * ((w.jobs[i].trace_id * 7919 % 5000) % 10 == 9));
	}
	check_sorted(&w);
	workload_free(&w);
	/* Five runs already in order, of different lengths (a synthetic
	 * workload: a run a class), with times shared across runs: merged
	 * run by run, ties in file order. */
	static const int runlen[] = { 1200, 7, 3000, 1, 800 };
	int id = 0;
	workload_init(&w);
	for (int r = 0; r < 5; r++)
		for (int i = 0; i < runlen[r]; i++, id++) {
			struct job j;
			struct job_truth t = { .run_us = id };
			job_init(&j, 0, (simtime)(i / (r + 1)) * SIMTIME_SEC);
			j.trace_id = id;
			assert_int_equal(workload_add(&w, &j, &t), 0);
		}
	workload_sort(&w);
	assert_int_equal(w.n, id);
	check_sorted(&w);
	workload_free(&w);
}

static double mean_run_s(const struct workload *w)
{
	double s = 0;
	for (int i = 0; i < w->n; i++)
		s += simtime_to_s(w->truth[i].run_us);
	return s / w->n;
}

static void test_kth(void **state)
{
	(void)state;
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", tu_root(), KTH_REL);
	if (access(p, R_OK) != 0)
		fail_msg("missing %s: the repository carries the KTH log in traces/data; "
		         "copy it from ../shared/traces/swf-kth-sp2-1996", p);
	struct workload w;
	char err[512] = "";
	assert_int_equal(trace_swf_read(p, NULL, &w, err, sizeof err), 0);
	/* 28,476 job lines, one without processors (allocated 0, requested -1). */
	assert_int_equal(w.n, 28476 - 1);
	assert_int_equal(w.skipped_unusable, 1);
	assert_int_equal(w.skipped_malformed, 0);
	assert_int_equal(w.max_procs, 100);
	assert_int_equal(w.max_nodes, 100);
	assert_int_equal(w.unix_start, 843480031);
	assert_int_equal(w.rebased_from, 0);             /* relative times, as the spec says */
	assert_true(fabs(mean_run_s(&w) - 8872.2) < 0.05);
	int64_t failed = 0;
	for (int i = 0; i < w.n; i++) {
		failed += w.truth[i].fails;
		assert_true(w.jobs[i].walltime_us != SIMTIME_INF); /* every job has an estimate */
		assert_true(w.jobs[i].req.cores >= 1 && w.jobs[i].req.cores <= 100);
	}
	assert_int_equal(failed, 7946);
	/* The first job of the cleaned log: "15 599850 192180 3477 4 ... 53940 ... 1 12 12". */
	assert_int_equal(w.jobs[0].trace_id, 15);
	assert_int_equal(w.jobs[0].submit_us, 599850 * SIMTIME_SEC);
	assert_int_equal(w.jobs[0].walltime_us, 53940 * SIMTIME_SEC);
	assert_int_equal(w.truth[0].run_us, 3477 * SIMTIME_SEC);
	workload_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_file),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_lenient_counts),
		cmocka_unit_test(test_extended_fields),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_unix_times),
		cmocka_unit_test(test_mem_units),
		cmocka_unit_test(test_site_request),
		cmocka_unit_test(test_metacentrum),
		cmocka_unit_test(test_unusable),
		cmocka_unit_test(test_missing_and_truncated),
		cmocka_unit_test(test_linereader),
		cmocka_unit_test(test_line_cap),
		cmocka_unit_test(test_workload_sort),
		cmocka_unit_test(test_kth),
	};
	return cmocka_run_group_tests_name("swf", tests, NULL, NULL);
}
