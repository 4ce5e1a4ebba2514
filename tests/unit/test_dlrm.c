/* Tests of the DLRM trace reader and the service load curves, on small
 * hand-made CSVs (the real file is tested in tests/shared/test_dlrm_shared.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "tests/testutil.h"
#include "traces/dlrm.h"

#define HDR "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit," \
	"rdma_request,rdma_limit,memory_request,memory_limit,disk_request,disk_limit," \
	"max_instance_per_node,creation_time,scheduled_time,deletion_time\n"

/* A good row to build bad ones from: fields are replaced one at a time. */
#define GOOD "instance_9,CN,app_9,4,4,0,0,1,1,8,8,10,10,4,100,100,200"

static const char small_csv[] =
	HDR
	/* line 2: existed at the start, alive at the end */
	"instance_0,HN,app_0,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,,\n"
	/* line 3: fractional CPUs round up; float noise in the times */
	"instance_1,CN,app_1,2.5,4,0,0,1,10,16.0,32.0,100.0,100.0,-1,100.0000000001,105,400\r\n"
	/* line 4: created at 50, alive at the end */
	"instance_2,HN,app_0,12,12,1,1,25,25,937.5,937.5,640.0,800.0,2,50,60,\n"
	/* line 5: existed at the start, deleted at 200 */
	"instance_3,CN,app_1,8,8,0,0,0,0,0,0,0,0,-1,,,200\n"
	/* line 6: asks for nothing: unusable */
	"instance_4,CN,app_2,0,0,0,0,0,0,1,1,1,1,-1,10,10,20\n"
	"\n"
	/* line 8: the largest time, 1000.5, ends the trace */
	"instance_5,CN,app_1,4,4,0,0,1,1,8,8,10,10,4,1000,1000.5,1000.5";

static char *write_gz(const char *text)
{
	char *p = tu_tmpath(".csv.gz");
	gzFile gz = gzopen(p, "wb");
	assert_non_null(gz);
	assert_int_equal(gzputs(gz, text), (int)strlen(text));
	assert_int_equal(gzclose(gz), Z_OK);
	return p;
}

static void check_small(const struct workload *w, const struct dlrm_services *s)
{
	assert_int_equal(w->n, 5);
	assert_int_equal(w->lines, 8);
	assert_int_equal(w->skipped_malformed, 0);
	assert_int_equal(w->skipped_unusable, 1);
	assert_int_equal(s->napps, 3);
	assert_string_equal(s->names[0], "app_0");
	assert_string_equal(s->names[1], "app_1");
	assert_string_equal(s->names[2], "app_2");
	assert_int_equal(dlrm_app_find(s, "app_1"), 1);
	assert_int_equal(dlrm_app_find(s, "app_7"), -1);
	assert_int_equal(s->ninst, 5);
	assert_int_equal(s->nrole[DLRM_CN], 3);
	assert_int_equal(s->nrole[DLRM_HN], 2);
	assert_int_equal(s->no_creation, 2);
	assert_int_equal(s->no_deletion, 2);
	assert_int_equal(s->end_us, 1000500000);
	/* Sorted by submit, stable: rows 0 and 3 (t=0), 2 (50), 1 (100), 5 (1000). */
	static const struct {
		int64_t trace_id;
		int32_t group, queue, cores, gpus;
		int64_t mem_mib;
		simtime submit_us, run_us, sched_us;
		double rdma_pct, disk_gib;
		int32_t max_per_node;
		uint8_t flags;
	} want[] = {
		{ 0, 0, DLRM_HN, 12, 1, 122880, 0, 1000500000, -1, 25, 640, 8,
		  DLRM_NO_CREATION | DLRM_NO_DELETION },
		{ 3, 1, DLRM_CN, 8, 0, 0, 0, 200000000, -1, 0, 0, -1, DLRM_NO_CREATION },
		{ 2, 0, DLRM_HN, 12, 1, 960000, 50000000, 950500000, 60000000, 25, 640, 2,
		  DLRM_NO_DELETION },
		{ 1, 1, DLRM_CN, 3, 0, 16384, 100000000, 300000000, 105000000, 1, 100, -1, 0 },
		{ 5, 1, DLRM_CN, 4, 0, 8192, 1000000000, 500000, 1000500000, 1, 10, 4, 0 },
	};
	for (int i = 0; i < 5; i++) {
		const struct job *j = &w->jobs[i];
		const struct dlrm_instance *in = &s->inst[i];
		assert_int_equal(j->id, i);
		assert_int_equal(j->trace_id, want[i].trace_id);
		assert_int_equal(j->cls, JOB_INFERENCE);
		assert_int_equal(j->state, JOB_PENDING);
		assert_int_equal(j->tenant, -1);
		assert_int_equal(j->group, want[i].group);
		assert_int_equal(j->queue, want[i].queue);
		assert_int_equal(j->req.nodes, 1);
		assert_int_equal(j->req.cores, want[i].cores);
		assert_int_equal(j->req.gpus, want[i].gpus);
		assert_int_equal(j->req.mem_mib, want[i].mem_mib);
		assert_int_equal(j->req.gpu_models, 0);
		assert_int_equal(j->submit_us, want[i].submit_us);
		assert_true(j->walltime_us == SIMTIME_INF);
		assert_int_equal(w->truth[i].run_us, want[i].run_us);
		assert_int_equal(w->truth[i].fails, 0);
		assert_int_equal(in->role, want[i].queue);
		assert_int_equal(in->sched_us, want[i].sched_us);
		assert_true(in->rdma_pct == want[i].rdma_pct);
		assert_true(in->disk_gib == want[i].disk_gib);
		assert_int_equal(in->max_per_node, want[i].max_per_node);
		assert_int_equal(in->flags, want[i].flags);
	}
}

static void test_small(void **state)
{
	(void)state;
	char *p = tu_write_tmp(".csv", small_csv);
	char *gz = write_gz(small_csv);
	const char *paths[] = { p, gz };
	for (int k = 0; k < 2; k++) {
		struct workload w;
		struct dlrm_services s;
		char err[512] = "";
		if (trace_dlrm_read(paths[k], NULL, &w, &s, err, sizeof err) != 0)
			fail_msg("%s", err);
		check_small(&w, &s);
		dlrm_services_free(&s);
		workload_free(&w);
	}
	/* Without the services: the same jobs. */
	struct workload w;
	char err[512] = "";
	assert_int_equal(trace_dlrm_read(p, NULL, &w, NULL, err, sizeof err), 0);
	assert_int_equal(w.n, 5);
	assert_int_equal(w.truth[0].run_us, 1000500000);
	workload_free(&w);
	unlink(p);
	unlink(gz);
	free(p);
	free(gz);
}

/* GOOD with field `f` (1-based) replaced by `v`. */
static void row_with(char *out, size_t len, int f, const char *v)
{
	char tmp[256];
	snprintf(tmp, sizeof tmp, "%s", GOOD);
	char *fields[DLRM_NCOLS];
	int n = 0;
	for (char *s = tmp, *e; n < DLRM_NCOLS; s = e + 1) {
		fields[n++] = s;
		if (!(e = strchr(s, ',')))
			break;
		*e = '\0';
	}
	assert_int_equal(n, DLRM_NCOLS);
	out[0] = '\0';
	for (int i = 0; i < DLRM_NCOLS; i++) {
		strncat(out, i + 1 == f ? v : fields[i], len - strlen(out) - 1);
		if (i + 1 < DLRM_NCOLS)
			strncat(out, ",", len - strlen(out) - 1);
	}
}

/* Reads the header (line 1), a good row (2), a blank line (3), `bad` (4) and
 * a good row (5); expects `path:4: msg`, and in lenient mode two jobs. */
static void expect_bad_row(const char *bad, const char *msg)
{
	char text[1024];
	snprintf(text, sizeof text, HDR GOOD "\n\n%s\n" GOOD "\n", bad);
	char *p = tu_write_tmp(".csv", text);
	struct workload w;
	struct dlrm_services s;
	char err[1024] = "", want[1024];
	assert_int_equal(trace_dlrm_read(p, NULL, &w, &s, err, sizeof err), -1);
	snprintf(want, sizeof want, "%s:4: %s", p, msg);
	if (strcmp(err, want) != 0)
		fail_msg("row '%s':\n got  '%s'\n want '%s'", bad, err, want);
	assert_int_equal(w.n, 0);
	assert_null(w.jobs);
	assert_int_equal(s.napps, 0);
	assert_null(s.inst);
	/* Lenient: the bad row is skipped and counted, the two good ones kept. */
	struct dlrm_opts o = { .lenient = true };
	if (trace_dlrm_read(p, &o, &w, &s, err, sizeof err) != 0)
		fail_msg("lenient: %s", err);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.skipped_malformed, 1);
	assert_int_equal(s.ninst, 2);
	/* The rows after the skipped one keep their row index. */
	assert_int_equal(w.jobs[1].trace_id, 2);
	dlrm_services_free(&s);
	workload_free(&w);
	unlink(p);
	free(p);
}

static void expect_bad_field(int f, const char *v, const char *msg)
{
	char row[512];
	row_with(row, sizeof row, f, v);
	expect_bad_row(row, msg);
}

static void test_malformed(void **state)
{
	(void)state;
	expect_bad_row("instance_9,CN,app_9,4,4,0,0,1,1,8,8,10,10,4,100,100",
	               "expected 17 comma-separated fields, got 16 (field 17 (deletion_time) is missing)");
	expect_bad_row(GOOD ",7", "expected 17 comma-separated fields, got 18");
	expect_bad_row("x", "expected 17 comma-separated fields, got 1 (field 2 (role) is missing)");
	expect_bad_field(4, "abc", "field 4 (cpu_request): expected a non-negative number "
	                 "(at most 1e9), got 'abc'");
	expect_bad_field(4, "12abc", "field 4 (cpu_request): expected a non-negative number "
	                 "(at most 1e9), got '12abc'");
	expect_bad_field(4, "", "field 4 (cpu_request): expected a non-negative number "
	                 "(at most 1e9), got ''");
	expect_bad_field(4, "nan", "field 4 (cpu_request): expected a non-negative number "
	                 "(at most 1e9), got 'nan'");
	expect_bad_field(10, "-1", "field 10 (memory_request): expected a non-negative number "
	                 "(at most 1e9), got '-1'");
	expect_bad_field(12, "-0.5", "field 12 (disk_request): expected a non-negative number "
	                 "(at most 1e9), got '-0.5'");
	expect_bad_field(2, "GN", "field 2 (role): expected CN or HN, got 'GN'");
	expect_bad_field(2, "cn", "field 2 (role): expected CN or HN, got 'cn'");
	expect_bad_field(1, "", "field 1 (instance_sn): expected a name of 1 to 63 letters, "
	                 "digits, '_', '-', '.' or ':', got ''");
	expect_bad_field(3, "\"app_9\"", "field 3 (app_name): expected a name of 1 to 63 "
	                 "letters, digits, '_', '-', '.' or ':', got '\"app_9\"'");
	expect_bad_field(5, "3", "field 5 (cpu_limit): expected a number >= cpu_request (4), "
	                 "got '3'");
	expect_bad_field(6, "0.5", "field 6 (gpu_request): expected a non-negative integer "
	                 "(whole GPUs, at most 1e9), got '0.5'");
	expect_bad_field(8, "101", "field 8 (rdma_request): expected a percentage in 0..100, "
	                 "got '101'");
	expect_bad_field(14, "0", "field 14 (max_instance_per_node): expected -1 (no limit) or "
	                 "a positive integer, got '0'");
	expect_bad_field(15, "-5", "field 15 (creation_time): expected empty or a time in "
	                 "seconds (>= 0, at most 1e9), got '-5'");
	expect_bad_field(15, "1000000001", "field 15 (creation_time): expected empty or a time in "
	                 "seconds (>= 0, at most 1e9), got '1000000001'");
	expect_bad_field(17, "50", "field 17 (deletion_time): expected a time >= creation_time "
	                 "(100), got '50'");
	expect_bad_field(16, "99.5", "field 16 (scheduled_time): expected a time >= "
	                 "creation_time (100), got '99.5'");
	/* Deleted before it was scheduled. */
	expect_bad_row("instance_9,CN,app_9,4,4,0,0,1,1,8,8,10,10,4,100,150,120",
	               "field 17 (deletion_time): expected a time >= scheduled_time (150), "
	               "got '120'");
	/* A long bad value is cut. */
	expect_bad_field(4, "1234567890123456789012345678901234567890123456789",
	                 "field 4 (cpu_request): expected a non-negative number (at most 1e9), "
	                 "got '1234567890123456789012345678901234567890...'");
}

static void expect_bad_file(const char *text, bool lenient, const char *msg)
{
	char *p = tu_write_tmp(".csv", text);
	struct workload w;
	struct dlrm_services s;
	struct dlrm_opts o = { .lenient = lenient };
	char err[1024] = "", want[1024];
	assert_int_equal(trace_dlrm_read(p, &o, &w, &s, err, sizeof err), -1);
	snprintf(want, sizeof want, "%s%s", p, msg);
	if (strncmp(err, want, strlen(want)) != 0)
		fail_msg("got  '%s'\nwant '%s...'", err, want);
	assert_int_equal(w.n, 0);
	unlink(p);
	free(p);
}

static void test_header(void **state)
{
	(void)state;
	/* The header is checked even in lenient mode. */
	for (int lenient = 0; lenient < 2; lenient++) {
		expect_bad_file("", lenient, ": empty file, expected the DLRM trace header");
		expect_bad_file("instance_sn,role,app,cpu_request\n" GOOD "\n", lenient,
		                ":1: not the DLRM trace header (a .csv trace is Alibaba's "
		                "disaggregated_DLRM_trace.csv or an openb pod list): column 3 is 'app', expected 'app_name'");
		expect_bad_file(GOOD "\n", lenient,
		                ":1: not the DLRM trace header (a .csv trace is Alibaba's "
		                "disaggregated_DLRM_trace.csv or an openb pod list): column 1 is 'instance_9', expected "
		                "'instance_sn'");
		expect_bad_file("instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,"
		                "gpu_limit,rdma_request,rdma_limit,memory_request,memory_limit,"
		                "disk_request,disk_limit,max_instance_per_node,creation_time,"
		                "scheduled_time,deletion_time,extra\n", lenient,
		                ":1: not the DLRM trace header: more than 17 columns");
	}
	/* A byte-order mark before the header is allowed; a header alone is an
	 * empty trace. */
	char *p = tu_write_tmp(".csv", "\xEF\xBB\xBF" HDR);
	struct workload w;
	struct dlrm_services s;
	char err[512] = "";
	if (trace_dlrm_read(p, NULL, &w, &s, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 0);
	assert_int_equal(s.napps, 0);
	assert_int_equal(s.end_us, 0);
	dlrm_services_free(&s);
	workload_free(&w);
	unlink(p);
	free(p);
	/* Missing file. */
	assert_int_equal(trace_dlrm_read("/nonexistent/x.csv", NULL, &w, &s, err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent/x.csv"));
}

static void test_lenient_counts(void **state)
{
	(void)state;
	char *p = tu_write_tmp(".csv", HDR GOOD "\n"
	                       "instance_1,XN,app_9,4,4,0,0,1,1,8,8,10,10,4,100,100,200\n"
	                       "instance_2,CN,app_9,4,4,0,0,1,1,8,8,10,10,4,100,100\n"
	                       "instance_3,CN,app_9,-4,4,0,0,1,1,8,8,10,10,4,100,100,200\n"
	                       "instance_4,CN,app_8,4,4,0,0,1,1,8,8,10,10,4,300,300,250\n"
	                       "instance_5,CN,app_7,0,0,0,0,1,1,8,8,10,10,4,100,100,200\n"
	                       "instance_6,HN,app_9,4,4,1,1,1,1,8,8,10,10,4,,,\n");
	struct workload w;
	struct dlrm_services s;
	struct dlrm_opts o = { .lenient = true };
	char err[512] = "";
	if (trace_dlrm_read(p, &o, &w, &s, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.skipped_malformed, 4);
	assert_int_equal(w.skipped_unusable, 1);
	assert_int_equal(w.lines, 8);
	/* Only rows that parse name apps: app_9 and app_7 (unusable, but valid). */
	assert_int_equal(s.napps, 2);
	assert_int_equal(s.end_us, 200 * SIMTIME_SEC);
	assert_int_equal(w.jobs[0].trace_id, 6); /* submit 0 */
	assert_int_equal(w.truth[0].run_us, 200 * SIMTIME_SEC);
	assert_int_equal(w.jobs[1].trace_id, 0);
	dlrm_services_free(&s);
	workload_free(&w);
	unlink(p);
	free(p);
}

/* ---- load curves ----------------------------------------------------------- */

static void add_job(struct workload *w, int32_t group, double submit_s, double run_s)
{
	struct job j;
	struct job_truth t = { .run_us = simtime_from_s(run_s) };
	job_init(&j, 0, simtime_from_s(submit_s));
	j.group = group;
	j.cls = JOB_INFERENCE;
	j.req.nodes = 1;
	j.req.cores = 1;
	assert_int_equal(workload_add(w, &j, &t), 0);
}

static void test_load_curve(void **state)
{
	(void)state;
	struct workload w;
	workload_init(&w);
	/* Service 0 over [0, 30 s): A [0,10), B [10,20) replaces A at 10, C [5,25),
	 * E [15,15) never live, D created at the end. Service 1: F [2, end). */
	add_job(&w, 0, 0, 10);
	add_job(&w, 0, 10, 10);
	add_job(&w, 0, 5, 20);
	add_job(&w, 0, 15, 0);
	add_job(&w, 0, 30, 5);
	add_job(&w, 1, 2, 28);
	workload_sort(&w);
	char names[2][DLRM_NAME_MAX] = { "svc_a", "svc_b" };
	struct dlrm_services s;
	dlrm_services_init(&s);
	s.napps = 2;
	s.names = names;
	s.end_us = 30 * SIMTIME_SEC;
	struct dlrm_curve c = { 0 };
	char err[256] = "";
	if (dlrm_load_curve(&w, &s, 0, &c, err, sizeof err) != 0)
		fail_msg("%s", err);
	static const simtime t[] = { 0, 5, 20, 25 };
	static const int32_t live[] = { 1, 2, 1, 0 };
	assert_int_equal(c.n, 4);
	for (int k = 0; k < 4; k++) {
		assert_int_equal(c.t_us[k], t[k] * SIMTIME_SEC);
		assert_int_equal(c.live[k], live[k]);
	}
	assert_int_equal(c.instances, 5);
	assert_int_equal(c.peak, 2);
	assert_int_equal(c.peak_us, 5 * SIMTIME_SEC);
	assert_float_equal(c.mean, 40.0 / 30.0, 1e-12);
	assert_int_equal(c.end_us, 30 * SIMTIME_SEC);
	assert_int_equal(dlrm_curve_at(&c, -1), 0);
	assert_int_equal(dlrm_curve_at(&c, 0), 1);
	assert_int_equal(dlrm_curve_at(&c, 5 * SIMTIME_SEC - 1), 1);
	assert_int_equal(dlrm_curve_at(&c, 5 * SIMTIME_SEC), 2);
	assert_int_equal(dlrm_curve_at(&c, 10 * SIMTIME_SEC), 2);
	assert_int_equal(dlrm_curve_at(&c, 29 * SIMTIME_SEC), 0);
	assert_int_equal(dlrm_curve_at(&c, 30 * SIMTIME_SEC), 0);
	int32_t out[8];
	assert_int_equal(dlrm_curve_sample(&c, 10 * SIMTIME_SEC, out, 8), 3);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 2);
	assert_int_equal(out[2], 1);
	assert_int_equal(dlrm_curve_sample(&c, 10 * SIMTIME_SEC, out, 2), 2);
	assert_int_equal(dlrm_curve_sample(&c, 0, out, 8), 0);
	/* Service 1: none at 0, one from 2 s to the end; the curve is reused. */
	if (dlrm_load_curve(&w, &s, 1, &c, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.t_us[1], 2 * SIMTIME_SEC);
	assert_int_equal(c.live[0], 0);
	assert_int_equal(c.live[1], 1);
	assert_int_equal(c.peak, 1);
	assert_float_equal(c.mean, 28.0 / 30.0, 1e-12);
	assert_int_equal(dlrm_load_curve(&w, &s, 2, &c, err, sizeof err), -1);
	assert_non_null(strstr(err, "no service 2"));
	assert_int_equal(c.n, 0);
	dlrm_curve_free(&c);
	workload_free(&w);
}

/* The curve of the small CSV, including instances that outlive the trace. */
static void test_load_curve_csv(void **state)
{
	(void)state;
	char *p = tu_write_tmp(".csv", small_csv);
	struct workload w;
	struct dlrm_services s;
	char err[512] = "";
	if (trace_dlrm_read(p, NULL, &w, &s, err, sizeof err) != 0)
		fail_msg("%s", err);
	struct dlrm_curve c = { 0 };
	assert_int_equal(dlrm_load_curve(&w, &s, 0, &c, err, sizeof err), 0);
	assert_int_equal(c.n, 2); /* app_0: 1 from 0, 2 from 50 s to the end */
	assert_int_equal(c.live[1], 2);
	assert_int_equal(c.t_us[1], 50 * SIMTIME_SEC);
	assert_int_equal(c.peak, 2);
	assert_float_equal(c.mean, (50.0 + 2 * 950.5) / 1000.5, 1e-12);
	assert_int_equal(dlrm_load_curve(&w, &s, 1, &c, err, sizeof err), 0);
	static const simtime t_ms[] = { 0, 100000, 200000, 400000, 1000000 };
	static const int32_t live[] = { 1, 2, 1, 0, 1 };
	assert_int_equal(c.n, 5);
	for (int k = 0; k < 5; k++) {
		assert_int_equal(c.t_us[k], t_ms[k] * SIMTIME_MS);
		assert_int_equal(c.live[k], live[k]);
	}
	assert_float_equal(c.mean, 500.5 / 1000.5, 1e-12);
	assert_int_equal(dlrm_load_curve(&w, &s, 2, &c, err, sizeof err), 0);
	assert_int_equal(c.n, 1); /* app_2 has no usable instance */
	assert_int_equal(c.instances, 0);
	assert_int_equal(c.peak, 0);
	dlrm_curve_free(&c);
	dlrm_services_free(&s);
	workload_free(&w);
	unlink(p);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_lenient_counts),
		cmocka_unit_test(test_load_curve),
		cmocka_unit_test(test_load_curve_csv),
	};
	return cmocka_run_group_tests_name("dlrm", tests, NULL, NULL);
}
