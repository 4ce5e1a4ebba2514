/* Tests of the Alibaba openb readers: pod lists (hand-made CSVs read back
 * exactly, every malformed field, lenient counts, Pending pods), node lists
 * and their per-model summary, the choice of reader by header in anytrace,
 * and the counts of the lists the repository carries (SOURCE.md). */
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
#include "traces/anytrace.h"
#include "traces/openb.h"
#include "config/scenario.h"

#define HDR "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase," \
	"creation_time,deletion_time,scheduled_time\n"
#define NODE_HDR "sn,cpu_milli,memory_mib,gpu,model\n"
#define OPENB_DIR "traces/data/alibaba-gpu-v2023-openb"

/* A good row to build bad ones from: fields are replaced one at a time. */
#define GOOD "openb-pod-9,4000,8192,1,500,,BE,Succeeded,100,200,150"
#define NCOLS 11

static const char small_csv[] =
	HDR
	/* line 2, row 0: LS sharing 460 milli-GPU */
	"openb-pod-0,6000,12288,1,460,,LS,Running,100,500,100\n"
	/* line 3, row 1: two whole GPUs, failed; 2.5 cores round up */
	"openb-pod-1,2500,4096,2,1000,,BE,Failed,50,80,55\r\n"
	/* line 4, row 2: CPU-only, not LS: batch; a decimal time */
	"openb-pod-2,1000,1024,0,0,,Burstable,Succeeded,50,60.5,50\n"
	/* line 5, row 3: never scheduled: unusable */
	"openb-pod-3,4000,8192,1,1000,V100M16|V100M32,BE,Pending,70,90,\n"
	"\n"
	/* line 7, row 4: LS CPU-only, no deletion time: runs to the end */
	"openb-pod-4,500,2048,0,0,,LS,Running,200,,210\n"
	/* line 8, row 5: eight GPUs of one model, deleted at the trace end */
	"openb-pod-5,64000,262144,8,1000,T4,Guaranteed,Running,0,1000,5\n"
	/* line 9, row 6: asks for nothing: unusable */
	"openb-pod-6,0,0,0,0,,BE,Succeeded,10,20,10\n"
	/* line 10, row 7: a quarter of a GPU, no CPU, runtime 0 */
	"openb-pod-7,0,0,1,250,V100M16|V100M32,BE,Succeeded,50,50,50";

static char *write_gz(const char *text)
{
	char *p = tu_tmpath(".csv.gz");
	gzFile gz = gzopen(p, "wb");
	assert_non_null(gz);
	assert_int_equal(gzputs(gz, text), (int)strlen(text));
	assert_int_equal(gzclose(gz), Z_OK);
	return p;
}

static void check_small(const struct workload *w, const struct openb_pods *x)
{
	assert_int_equal(w->n, 6);
	assert_int_equal(w->lines, 10);
	assert_int_equal(w->skipped_malformed, 0);
	assert_int_equal(w->skipped_unusable, 2);
	/* File-wide counts: all eight pods. */
	assert_int_equal(x->pods, 8);
	assert_int_equal(x->by_gpus[0], 3);
	assert_int_equal(x->by_gpus[1], 3);
	assert_int_equal(x->by_gpus[2], 1);
	assert_int_equal(x->by_gpus[8], 1);
	assert_int_equal(x->sharing, 2);
	assert_int_equal(x->nphase[OPENB_RUNNING], 3);
	assert_int_equal(x->nphase[OPENB_SUCCEEDED], 3);
	assert_int_equal(x->nphase[OPENB_FAILED], 1);
	assert_int_equal(x->nphase[OPENB_PENDING], 1);
	assert_int_equal(x->nqos[OPENB_LS], 2);
	assert_int_equal(x->nqos[OPENB_BE], 4);
	assert_int_equal(x->nqos[OPENB_BURSTABLE], 1);
	assert_int_equal(x->nqos[OPENB_GUARANTEED], 1);
	assert_int_equal(x->gpu_milli_sum, 460 + 2000 + 1000 + 8000 + 250);
	assert_int_equal(x->at_end, 2);
	assert_int_equal(x->end_us, 1000 * SIMTIME_SEC);
	/* Specs of the usable pods, in file order (the Pending pod's is not kept). */
	assert_int_equal(x->nspecs, 2);
	assert_string_equal(x->specs[0], "T4");
	assert_string_equal(x->specs[1], "V100M16|V100M32");
	assert_int_equal(x->n, 6);
	/* Sorted by submit, stable: rows 5 (t=0), 1, 2, 7 (50), 0 (100), 4 (200). */
	static const struct {
		int64_t trace_id;
		uint8_t cls;
		int32_t queue, cores, gpus;
		int64_t mem_mib;
		simtime submit_us, run_us, sched_us;
		uint8_t fails;
		int32_t milli, spec;
		uint8_t phase, flags;
	} want[] = {
		{ 5, JOB_TRAINING, OPENB_GUARANTEED, 64, 8, 262144, 0, 1000 * SIMTIME_SEC,
		  5 * SIMTIME_SEC, 0, 1000, 0, OPENB_RUNNING, OPENB_AT_END },
		{ 1, JOB_TRAINING, OPENB_BE, 3, 2, 4096, 50 * SIMTIME_SEC, 30 * SIMTIME_SEC,
		  55 * SIMTIME_SEC, 1, 1000, -1, OPENB_FAILED, 0 },
		{ 2, JOB_BATCH, OPENB_BURSTABLE, 1, 0, 1024, 50 * SIMTIME_SEC, 10500 * SIMTIME_MS,
		  50 * SIMTIME_SEC, 0, 0, -1, OPENB_SUCCEEDED, 0 },
		{ 7, JOB_TRAINING, OPENB_BE, 0, 1, 0, 50 * SIMTIME_SEC, 0, 50 * SIMTIME_SEC, 0, 250,
		  1, OPENB_SUCCEEDED, 0 },
		{ 0, JOB_INFERENCE, OPENB_LS, 6, 1, 12288, 100 * SIMTIME_SEC, 400 * SIMTIME_SEC,
		  100 * SIMTIME_SEC, 0, 460, -1, OPENB_RUNNING, 0 },
		{ 4, JOB_INFERENCE, OPENB_LS, 1, 0, 2048, 200 * SIMTIME_SEC, 800 * SIMTIME_SEC,
		  210 * SIMTIME_SEC, 0, 0, -1, OPENB_RUNNING, OPENB_NO_DELETION | OPENB_AT_END },
	};
	for (int i = 0; i < 6; i++) {
		const struct job *j = &w->jobs[i];
		const struct openb_pod *p = &x->pod[i];
		assert_int_equal(j->id, i);
		assert_int_equal(j->trace_id, want[i].trace_id);
		assert_int_equal(j->cls, want[i].cls);
		assert_int_equal(j->state, JOB_PENDING);
		assert_int_equal(j->tenant, -1);
		assert_int_equal(j->group, -1);
		assert_int_equal(j->queue, want[i].queue);
		assert_int_equal(j->req.nodes, 1);
		assert_int_equal(j->req.cores, want[i].cores);
		assert_int_equal(j->req.gpus, want[i].gpus);
		assert_int_equal(j->req.mem_mib, want[i].mem_mib);
		assert_int_equal(j->req.gpu_mem_mib, 0);
		assert_int_equal(j->req.gpu_models, 0);
		/* A pod sharing its one GPU asks for that share, time-sliced. */
		assert_int_equal(j->req.gpu_milli,
		                 want[i].milli > 0 && want[i].milli < OPENB_MILLI ? want[i].milli : 0);
		assert_int_equal(j->req.mig_g, 0);
		assert_int_equal(job_req_shared(&j->req), want[i].milli > 0 && want[i].milli < OPENB_MILLI);
		assert_int_equal(j->submit_us, want[i].submit_us);
		assert_true(j->walltime_us == SIMTIME_INF);
		assert_int_equal(j->ckpt_every_us, 0);
		assert_int_equal(w->truth[i].run_us, want[i].run_us);
		assert_int_equal(w->truth[i].fails, want[i].fails);
		assert_int_equal(p->sched_us, want[i].sched_us);
		assert_int_equal(p->gpu_milli, want[i].milli);
		assert_int_equal(p->spec, want[i].spec);
		assert_int_equal(p->qos, want[i].queue);
		assert_int_equal(p->phase, want[i].phase);
		assert_int_equal(p->flags, want[i].flags);
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
		struct openb_pods x;
		char err[512] = "";
		if (trace_openb_pods_read(paths[k], NULL, &w, &x, err, sizeof err) != 0)
			fail_msg("%s", err);
		check_small(&w, &x);
		openb_pods_free(&x);
		workload_free(&w);
		assert_null(x.pod);
		assert_int_equal(x.pods, 0);
	}
	/* Without the extras: the same jobs. */
	struct workload w;
	char err[512] = "";
	assert_int_equal(trace_openb_pods_read(p, NULL, &w, NULL, err, sizeof err), 0);
	assert_int_equal(w.n, 6);
	assert_int_equal(w.truth[5].run_us, 800 * SIMTIME_SEC);
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
	char *fields[NCOLS];
	int n = 0;
	for (char *s = tmp, *e; n < NCOLS; s = e + 1) {
		fields[n++] = s;
		if (!(e = strchr(s, ',')))
			break;
		*e = '\0';
	}
	assert_int_equal(n, NCOLS);
	out[0] = '\0';
	for (int i = 0; i < NCOLS; i++) {
		strncat(out, i + 1 == f ? v : fields[i], len - strlen(out) - 1);
		if (i + 1 < NCOLS)
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
	struct openb_pods x;
	char err[1024] = "", want[1024];
	assert_int_equal(trace_openb_pods_read(p, NULL, &w, &x, err, sizeof err), -1);
	snprintf(want, sizeof want, "%s:4: %s", p, msg);
	if (strcmp(err, want) != 0)
		fail_msg("row '%s':\n got  '%s'\n want '%s'", bad, err, want);
	assert_int_equal(w.n, 0);
	assert_null(w.jobs);
	assert_int_equal(x.n, 0);
	assert_int_equal(x.pods, 0);
	assert_null(x.pod);
	assert_null(x.specs);
	/* Lenient: the bad row is skipped and counted, the two good ones kept. */
	struct openb_opts o = { .lenient = true };
	if (trace_openb_pods_read(p, &o, &w, &x, err, sizeof err) != 0)
		fail_msg("lenient: %s", err);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.skipped_malformed, 1);
	assert_int_equal(w.skipped_unusable, 0);
	assert_int_equal(x.n, 2);
	assert_int_equal(x.pods, 2);
	/* The rows after the skipped one keep their row index. */
	assert_int_equal(w.jobs[1].trace_id, 2);
	openb_pods_free(&x);
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
	expect_bad_row("openb-pod-9,4000,8192,1,500,,BE,Succeeded,100,200",
	               "expected 11 comma-separated fields, got 10 (field 11 (scheduled_time) "
	               "is missing)");
	expect_bad_row(GOOD ",7", "expected 11 comma-separated fields, got 12");
	expect_bad_row("x", "expected 11 comma-separated fields, got 1 (field 2 (cpu_milli) "
	               "is missing)");
	expect_bad_field(1, "", "field 1 (name): expected a name of 1 to 63 letters, digits, "
	                 "'_', '-', '.' or ':', got ''");
	expect_bad_field(1, "\"pod\"", "field 1 (name): expected a name of 1 to 63 letters, "
	                 "digits, '_', '-', '.' or ':', got '\"pod\"'");
	expect_bad_field(2, "abc", "field 2 (cpu_milli): expected a non-negative integer "
	                 "(milli-cores, at most 10^12), got 'abc'");
	expect_bad_field(2, "-1", "field 2 (cpu_milli): expected a non-negative integer "
	                 "(milli-cores, at most 10^12), got '-1'");
	expect_bad_field(2, "1.5", "field 2 (cpu_milli): expected a non-negative integer "
	                 "(milli-cores, at most 10^12), got '1.5'");
	expect_bad_field(2, "", "field 2 (cpu_milli): expected a non-negative integer "
	                 "(milli-cores, at most 10^12), got ''");
	expect_bad_field(2, "1000000000001", "field 2 (cpu_milli): expected a non-negative "
	                 "integer (milli-cores, at most 10^12), got '1000000000001'");
	expect_bad_field(2, "99999999999999999999", "field 2 (cpu_milli): expected a "
	                 "non-negative integer (milli-cores, at most 10^12), got "
	                 "'99999999999999999999'");
	expect_bad_field(3, "12abc", "field 3 (memory_mib): expected a non-negative integer "
	                 "(MiB, at most 10^12), got '12abc'");
	expect_bad_field(4, "65", "field 4 (num_gpu): expected an integer in 0..64, got '65'");
	expect_bad_field(4, "-1", "field 4 (num_gpu): expected an integer in 0..64, got '-1'");
	expect_bad_field(5, "1001", "field 5 (gpu_milli): expected an integer in 0..1000, "
	                 "got '1001'");
	expect_bad_field(5, "0", "field 5 (gpu_milli): expected 1..1000 for a pod with GPUs, "
	                 "got '0'");
	expect_bad_row("openb-pod-9,4000,8192,0,500,,BE,Succeeded,100,200,150",
	               "field 5 (gpu_milli): expected 0 for a pod without GPUs (num_gpu 0), "
	               "got '500'");
	expect_bad_row("openb-pod-9,4000,8192,2,500,,BE,Succeeded,100,200,150",
	               "field 5 (gpu_milli): expected 1000 (only a one-GPU pod shares a GPU), "
	               "got '500'");
	static const char spec_want[] = "field 6 (gpu_spec): expected empty or GPU model names "
	                                "(1 to 31 letters, digits, '_', '-' or '.') separated "
	                                "by '|', got ";
	char m[512];
	snprintf(m, sizeof m, "%s'V100M16|'", spec_want);
	expect_bad_field(6, "V100M16|", m);
	snprintf(m, sizeof m, "%s'V100M16||T4'", spec_want);
	expect_bad_field(6, "V100M16||T4", m);
	snprintf(m, sizeof m, "%s'T4 A10'", spec_want);
	expect_bad_field(6, "T4 A10", m);
	snprintf(m, sizeof m, "%s'%s'", spec_want, "A1234567890123456789012345678901");
	expect_bad_field(6, "A1234567890123456789012345678901", m);
	expect_bad_field(7, "ls", "field 7 (qos): expected LS, BE, Burstable or Guaranteed, "
	                 "got 'ls'");
	expect_bad_field(7, "", "field 7 (qos): expected LS, BE, Burstable or Guaranteed, "
	                 "got ''");
	expect_bad_field(8, "Done", "field 8 (pod_phase): expected Running, Succeeded, Failed "
	                 "or Pending, got 'Done'");
	expect_bad_field(9, "", "field 9 (creation_time): expected a time in seconds (>= 0, "
	                 "at most 10^9), got ''");
	expect_bad_field(9, "-5", "field 9 (creation_time): expected a time in seconds (>= 0, "
	                 "at most 10^9), got '-5'");
	expect_bad_field(9, "1e3", "field 9 (creation_time): expected a time in seconds (>= 0, "
	                 "at most 10^9), got '1e3'");
	expect_bad_field(9, ".5", "field 9 (creation_time): expected a time in seconds (>= 0, "
	                 "at most 10^9), got '.5'");
	expect_bad_field(9, "1000000001", "field 9 (creation_time): expected a time in "
	                 "seconds (>= 0, at most 10^9), got '1000000001'");
	expect_bad_field(10, "", "field 10 (deletion_time): expected a time (a Succeeded pod "
	                 "has ended), got ''");
	expect_bad_row("openb-pod-9,4000,8192,1,500,,BE,Failed,100,,150",
	               "field 10 (deletion_time): expected a time (a Failed pod has ended), got ''");
	expect_bad_field(10, "x", "field 10 (deletion_time): expected empty or a time in "
	                 "seconds (>= 0, at most 10^9), got 'x'");
	expect_bad_field(11, "", "field 11 (scheduled_time): expected a time in seconds (>= 0, "
	                 "at most 10^9; only a Pending pod has none), got ''");
	expect_bad_row("openb-pod-9,4000,8192,1,500,,BE,Pending,100,200,150",
	               "field 11 (scheduled_time): expected empty (a Pending pod was never "
	               "scheduled), got '150'");
	/* Times out of order. */
	expect_bad_field(10, "50", "field 10 (deletion_time): expected a time >= creation_time "
	                 "(100), got '50'");
	expect_bad_field(11, "99.5", "field 11 (scheduled_time): expected a time >= "
	                 "creation_time (100), got '99.5'");
	expect_bad_row("openb-pod-9,4000,8192,1,500,,BE,Succeeded,100,120,150",
	               "field 10 (deletion_time): expected a time >= scheduled_time (150), "
	               "got '120'");
	/* A long bad value is cut. */
	expect_bad_field(3, "1234567890123456789012345678901234567890123456789",
	                 "field 3 (memory_mib): expected a non-negative integer (MiB, at most "
	                 "10^12), got '1234567890123456789012345678901234567890...'");
}

static void expect_bad_file(const char *text, bool lenient, const char *msg)
{
	char *p = tu_write_tmp(".csv", text);
	struct workload w;
	struct openb_pods x;
	struct openb_opts o = { .lenient = lenient };
	char err[1024] = "", want[1024];
	assert_int_equal(trace_openb_pods_read(p, &o, &w, &x, err, sizeof err), -1);
	snprintf(want, sizeof want, "%s%s", p, msg);
	if (strncmp(err, want, strlen(want)) != 0)
		fail_msg("got  '%s'\nwant '%s...'", err, want);
	assert_int_equal(w.n, 0);
	assert_null(x.pod);
	unlink(p);
	free(p);
}

static void test_header(void **state)
{
	(void)state;
	/* The header is checked even in lenient mode. */
	for (int lenient = 0; lenient < 2; lenient++) {
		expect_bad_file("", lenient, ": empty file, expected the openb pod list header "
		                "name,cpu_milli,");
		expect_bad_file("name,cpu_milli,mem_mib\n" GOOD "\n", lenient,
		                ":1: not the openb pod list header: column 3 is 'mem_mib', "
		                "expected 'memory_mib' (the header is name,");
		expect_bad_file(GOOD "\n", lenient, ":1: not the openb pod list header: column 1 "
		                "is 'openb-pod-9', expected 'name'");
		expect_bad_file("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
		                "creation_time,deletion_time,scheduled_time,x\n", lenient,
		                ":1: not the openb pod list header: more than 11 columns");
		expect_bad_file("name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
		                "openb-pod-0000,12000,16384,1,1000\n", lenient,
		                ":1: an openb pod list without times (name,cpu_milli,memory_mib,"
		                "num_gpu,gpu_milli): it has no creation, deletion or scheduling "
		                "times to replay");
		expect_bad_file(NODE_HDR "n0,1000,1024,1,T4\n", lenient,
		                ":1: an openb node list, not a list of jobs");
	}
	/* A byte-order mark before the header is allowed; a header alone is an
	 * empty trace. */
	char *p = tu_write_tmp(".csv", "\xEF\xBB\xBF" HDR);
	struct workload w;
	struct openb_pods x;
	char err[512] = "";
	if (trace_openb_pods_read(p, NULL, &w, &x, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 0);
	assert_int_equal(x.pods, 0);
	assert_int_equal(x.end_us, 0);
	openb_pods_free(&x);
	workload_free(&w);
	unlink(p);
	free(p);
	/* Missing file. */
	assert_int_equal(trace_openb_pods_read("/nonexistent/x.csv", NULL, &w, &x, err,
	                                       sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent/x.csv"));
	assert_null(x.pod);
}

static void test_lenient_counts(void **state)
{
	(void)state;
	char *p = tu_write_tmp(".csv", HDR GOOD "\n"
	                       "openb-pod-1,4000,8192,1,500,,XX,Succeeded,100,200,150\n"
	                       "openb-pod-2,4000,8192,1,500,,BE,Succeeded,100,200\n"
	                       "openb-pod-3,4000,8192,0,500,,BE,Succeeded,100,200,150\n"
	                       "openb-pod-4,4000,8192,1,500,,BE,Pending,300,400,\n"
	                       "openb-pod-5,0,0,0,0,,BE,Failed,100,200,150\n"
	                       "openb-pod-6,4000,8192,1,1000,,LS,Running,0,,0\n"
	                       "openb-pod-7,4000,8192,1,500,,BE,Pending,350,,\n");
	struct workload w;
	struct openb_pods x;
	struct openb_opts o = { .lenient = true };
	char err[512] = "";
	if (trace_openb_pods_read(p, &o, &w, &x, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.skipped_malformed, 3);
	assert_int_equal(w.skipped_unusable, 3);    /* two Pending, one asking for nothing */
	assert_int_equal(w.lines, 9);
	/* Only valid rows count, Pending ones included. */
	assert_int_equal(x.pods, 5);
	assert_int_equal(x.nphase[OPENB_PENDING], 2);
	assert_int_equal(x.nphase[OPENB_RUNNING], 1);
	/* The end is the largest time of a valid row: a Pending pod's deletion. */
	assert_int_equal(x.end_us, 400 * SIMTIME_SEC);
	assert_int_equal(w.jobs[0].trace_id, 6); /* submit 0 */
	assert_int_equal(w.truth[0].run_us, 400 * SIMTIME_SEC);
	assert_int_equal(x.pod[0].flags, OPENB_NO_DELETION | OPENB_AT_END);
	assert_int_equal(x.at_end, 1);
	assert_int_equal(w.jobs[1].trace_id, 0);
	openb_pods_free(&x);
	workload_free(&w);
	unlink(p);
	free(p);
}

/* ---- the lists in the repository (SOURCE.md) ----------------------------- */

static char *repo_path(const char *name)
{
	size_t n = strlen(tu_root()) + strlen(OPENB_DIR) + strlen(name) + 3;
	char *p = malloc(n);
	assert_non_null(p);
	snprintf(p, n, "%s/%s/%s", tu_root(), OPENB_DIR, name);
	return p;
}

static void test_default_list(void **state)
{
	(void)state;
	char *p = repo_path("openb_pod_list_default.csv");
	struct workload w;
	struct openb_pods x;
	char err[512] = "";
	if (trace_openb_pods_read(p, NULL, &w, &x, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(x.pods, 8152);
	assert_int_equal(w.lines, 8153);
	assert_int_equal(x.by_gpus[0], 1088);
	assert_int_equal(x.by_gpus[1], 6989);
	assert_int_equal(x.by_gpus[2], 16);
	assert_int_equal(x.by_gpus[4], 15);
	assert_int_equal(x.by_gpus[8], 44);
	int64_t other = 0;
	for (int g = 0; g <= OPENB_MAX_GPUS; g++)
		other += (g != 0 && g != 1 && g != 2 && g != 4 && g != 8) ? x.by_gpus[g] : 0;
	assert_int_equal(other, 0);
	assert_int_equal(x.sharing, 3078);
	assert_int_equal(x.nphase[OPENB_RUNNING], 5193);
	assert_int_equal(x.nphase[OPENB_FAILED], 1870);
	assert_int_equal(x.nphase[OPENB_PENDING], 897);
	assert_int_equal(x.nphase[OPENB_SUCCEEDED], 192);
	assert_int_equal(x.nqos[OPENB_LS], 4647);
	assert_int_equal(x.nqos[OPENB_BE], 3398);
	assert_int_equal(x.nqos[OPENB_BURSTABLE], 100);
	assert_int_equal(x.nqos[OPENB_GUARANTEED], 7);
	assert_int_equal(x.gpu_milli_sum, 6086800);      /* "6086.8 GPUs" */
	assert_int_equal(x.nspecs, 0);                   /* gpu_spec is empty everywhere */
	/* Pending pods are skipped; every other row is a job. */
	assert_int_equal(w.skipped_unusable, 897);
	assert_int_equal(w.skipped_malformed, 0);
	assert_int_equal(w.n, 8152 - 897);
	assert_int_equal(x.n, w.n);
	assert_int_equal(x.end_us, 12902960 * SIMTIME_SEC);
	assert_int_equal(x.at_end, 34);
	int64_t cls[JOB_NCLASS] = { 0 }, fails = 0, shared = 0, milli = 0, req_shared = 0, req_milli = 0;
	for (int32_t i = 0; i < w.n; i++) {
		cls[w.jobs[i].cls]++;
		fails += w.truth[i].fails;
		shared += x.pod[i].gpu_milli > 0 && x.pod[i].gpu_milli < OPENB_MILLI;
		milli += (int64_t)w.jobs[i].req.gpus * x.pod[i].gpu_milli;
		assert_true(x.pod[i].phase != OPENB_PENDING);
		assert_true(w.truth[i].run_us >= 0);
		assert_true(w.jobs[i].submit_us + w.truth[i].run_us <= x.end_us);
		assert_true(x.pod[i].gpu_milli == 0 || w.jobs[i].req.gpus >= 1);
		/* The share is on the request itself, and only a one-GPU pod's. */
		const struct job_req *r = &w.jobs[i].req;
		req_shared += r->gpu_milli > 0;
		req_milli += r->gpu_milli > 0 ? r->gpu_milli : (int64_t)r->gpus * OPENB_MILLI;
		assert_true(r->gpu_milli == 0 || (r->gpus == 1 && r->nodes == 1 &&
		                                  r->gpu_milli == x.pod[i].gpu_milli));
		if (i > 0)
			assert_true(w.jobs[i].submit_us >= w.jobs[i - 1].submit_us);
	}
	assert_int_equal(cls[JOB_INFERENCE], 4193);     /* LS */
	assert_int_equal(cls[JOB_TRAINING], 2613);      /* BE, Burstable, Guaranteed with GPUs */
	assert_int_equal(cls[JOB_BATCH], 449);          /* the same without GPUs */
	assert_int_equal(fails, 1870);
	assert_int_equal(milli, 5484930);
	assert_int_equal(shared, 2573);                 /* of the 3078, the rest Pending */
	assert_int_equal(req_shared, 2573);
	assert_int_equal(req_milli, milli);             /* the requests ask for what the pods did */
	/* trace_id is the N of openb-pod-N; the first row is openb-pod-0000. */
	assert_int_equal(w.jobs[0].trace_id, 0);
	assert_int_equal(w.jobs[0].submit_us, 0);
	assert_int_equal(w.truth[0].run_us, 12537496 * SIMTIME_SEC);
	openb_pods_free(&x);
	workload_free(&w);
	free(p);
}

/* ---- node lists ------------------------------------------------------------ */

static void test_nodes_small(void **state)
{
	(void)state;
	char *p = tu_write_tmp(".csv", NODE_HDR
	                       "n-0,64000,262144,2,P100\n"
	                       "n-1,32000,131072,0,\n"
	                       "\n"
	                       "n-2,96000,393216,8,G2\r\n"
	                       "n-3,64000,262144,2,P100\n"
	                       "n-4,8000,61440,1,P100\n"
	                       "n-5,96000,393216,8,G2");
	struct openb_nodes l;
	struct openb_node_summary s;
	char err[512] = "";
	if (trace_openb_nodes_read(p, &l, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(l.n, 6);
	assert_int_equal(l.lines, 8);
	assert_string_equal(l.node[0].name, "n-0");
	assert_string_equal(l.node[0].model, "P100");
	assert_int_equal(l.node[0].cpu_milli, 64000);
	assert_int_equal(l.node[0].memory_mib, 262144);
	assert_int_equal(l.node[0].gpus, 2);
	assert_string_equal(l.node[1].model, "");
	assert_int_equal(l.node[1].gpus, 0);
	assert_string_equal(l.node[2].name, "n-2");
	assert_string_equal(l.node[2].model, "G2");
	if (openb_node_summary(&l, &s, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(s.nmodels, 3);
	assert_int_equal(s.cpu_only, 1);
	/* Most nodes first, ties by name: P100 3, G2 2, "" 1. */
	assert_string_equal(s.m[0].model, "P100");
	assert_int_equal(s.m[0].nodes, 3);
	assert_int_equal(s.m[0].gpus, 5);
	assert_int_equal(s.m[0].shapes, 2);
	assert_int_equal(s.m[0].cpu_milli, 136000);
	assert_int_equal(s.m[0].memory_mib, 585728);
	assert_string_equal(s.m[1].model, "G2");
	assert_int_equal(s.m[1].nodes, 2);
	assert_int_equal(s.m[1].gpus, 16);
	assert_int_equal(s.m[1].shapes, 1);
	assert_string_equal(s.m[2].model, "");
	assert_int_equal(s.m[2].nodes, 1);
	assert_int_equal(s.all.nodes, 6);
	assert_int_equal(s.all.gpus, 21);
	assert_int_equal(s.all.shapes, 4);
	assert_int_equal(s.all.cpu_milli, 360000);
	openb_node_summary_free(&s);
	openb_nodes_free(&l);
	assert_null(l.node);
	/* An empty list has an empty summary. */
	unlink(p);
	free(p);
	p = tu_write_tmp(".csv", NODE_HDR);
	assert_int_equal(trace_openb_nodes_read(p, &l, err, sizeof err), 0);
	assert_int_equal(l.n, 0);
	assert_int_equal(openb_node_summary(&l, &s, err, sizeof err), 0);
	assert_int_equal(s.nmodels, 0);
	assert_int_equal(s.all.nodes, 0);
	openb_node_summary_free(&s);
	openb_nodes_free(&l);
	unlink(p);
	free(p);
}

/* A node list with `bad` on line 3 (a good node before and after). */
static void expect_bad_node(const char *bad, const char *msg)
{
	char text[1024];
	snprintf(text, sizeof text, NODE_HDR "n-0,64000,262144,2,P100\n%s\nn-2,1000,1024,1,T4\n",
	         bad);
	char *p = tu_write_tmp(".csv", text);
	struct openb_nodes l;
	char err[1024] = "", want[1024];
	assert_int_equal(trace_openb_nodes_read(p, &l, err, sizeof err), -1);
	snprintf(want, sizeof want, "%s:3: %s", p, msg);
	if (strcmp(err, want) != 0)
		fail_msg("row '%s':\n got  '%s'\n want '%s'", bad, err, want);
	assert_int_equal(l.n, 0);
	assert_null(l.node);
	unlink(p);
	free(p);
}

static void test_nodes_malformed(void **state)
{
	(void)state;
	expect_bad_node("n-1,1000,1024,1", "expected 5 comma-separated fields, got 4 (field 5 "
	                "(model) is missing)");
	expect_bad_node("n-1,1000,1024,1,T4,x", "expected 5 comma-separated fields, got 6");
	expect_bad_node(",1000,1024,1,T4", "field 1 (sn): expected a name of 1 to 63 letters, "
	                "digits, '_', '-', '.' or ':', got ''");
	expect_bad_node("n-1,1.5,1024,1,T4", "field 2 (cpu_milli): expected a non-negative "
	                "integer (milli-cores, at most 10^12), got '1.5'");
	expect_bad_node("n-1,1000,-1,1,T4", "field 3 (memory_mib): expected a non-negative "
	                "integer (MiB, at most 10^12), got '-1'");
	expect_bad_node("n-1,1000,1024,65,T4", "field 4 (gpu): expected an integer in 0..64, "
	                "got '65'");
	expect_bad_node("n-1,1000,1024,2,", "field 5 (model): expected a GPU model name (1 to "
	                "31 letters, digits, '_', '-' or '.'), got ''");
	expect_bad_node("n-1,1000,1024,2,T4|A10", "field 5 (model): expected a GPU model name "
	                "(1 to 31 letters, digits, '_', '-' or '.'), got 'T4|A10'");
	expect_bad_node("n-1,1000,1024,0,T4", "field 5 (model): expected empty (a node without "
	                "GPUs has no model), got 'T4'");
	/* Headers. */
	char *p = tu_write_tmp(".csv", HDR GOOD "\n");
	struct openb_nodes l;
	char err[1024] = "";
	assert_int_equal(trace_openb_nodes_read(p, &l, err, sizeof err), -1);
	assert_non_null(strstr(err, ":1: an openb pod list, not a node list"));
	unlink(p);
	free(p);
	p = tu_write_tmp(".csv", "sn,cpu,memory_mib,gpu,model\n");
	assert_int_equal(trace_openb_nodes_read(p, &l, err, sizeof err), -1);
	assert_non_null(strstr(err, ":1: not the openb node list header: column 2 is 'cpu', "
	                        "expected 'cpu_milli'"));
	unlink(p);
	free(p);
	p = tu_write_tmp(".csv", "");
	assert_int_equal(trace_openb_nodes_read(p, &l, err, sizeof err), -1);
	assert_non_null(strstr(err, ": empty file, expected the openb node list header"));
	unlink(p);
	free(p);
	assert_int_equal(trace_openb_nodes_read("/nonexistent/n.csv", &l, err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent/n.csv"));
	assert_null(l.node);
}

static void test_nodes_repo(void **state)
{
	(void)state;
	static const struct { const char *model; int32_t nodes; } gpu_nodes[] = {
		{ "G2", 549 }, { "T4", 404 }, { "P100", 134 }, { "V100M16", 55 }, { "G3", 39 },
		{ "V100M32", 30 }, { "A10", 2 },
	};
	char *p = repo_path("openb_node_list_gpu_node.csv");
	struct openb_nodes l;
	struct openb_node_summary s;
	char err[512] = "";
	if (trace_openb_nodes_read(p, &l, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(l.n, 1213);
	assert_int_equal(openb_node_summary(&l, &s, err, sizeof err), 0);
	assert_int_equal(s.all.nodes, 1213);
	assert_int_equal(s.all.gpus, 6212);
	assert_int_equal(s.all.cpu_milli, 107018000);
	assert_int_equal(s.all.shapes, 15);
	assert_int_equal(s.cpu_only, 0);
	assert_int_equal(s.nmodels, 7);
	for (int k = 0; k < 7; k++) {
		assert_string_equal(s.m[k].model, gpu_nodes[k].model);
		assert_int_equal(s.m[k].nodes, gpu_nodes[k].nodes);
	}
	openb_node_summary_free(&s);
	openb_nodes_free(&l);
	free(p);
	p = repo_path("openb_node_list_all_node.csv");
	if (trace_openb_nodes_read(p, &l, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(openb_node_summary(&l, &s, err, sizeof err), 0);
	assert_int_equal(s.all.nodes, 1523);
	assert_int_equal(s.all.gpus, 6212);
	assert_int_equal(s.all.cpu_milli, 125514000);
	assert_int_equal(s.cpu_only, 310);
	openb_node_summary_free(&s);
	openb_nodes_free(&l);
	free(p);
}

/* ---- the choice of reader ------------------------------------------------- */

static void test_anytrace(void **state)
{
	(void)state;
	char err[1024] = "";
	struct workload w;
	char *pods = tu_write_tmp(".csv", small_csv);
	char *gz = write_gz(small_csv);
	char *nodes = tu_write_tmp(".csv", NODE_HDR "n0,1000,1024,1,T4\n");
	char *untimed = tu_write_tmp(".csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n");
	char *dlrm = tu_write_tmp(".csv", "instance_sn,role,app_name,cpu_request,cpu_limit,"
	                          "gpu_request,gpu_limit,rdma_request,rdma_limit,memory_request,"
	                          "memory_limit,disk_request,disk_limit,max_instance_per_node,"
	                          "creation_time,scheduled_time,deletion_time\n"
	                          "instance_0,CN,app_0,4,4,0,0,1,1,8,8,10,10,4,100,100,200\n");
	/* A pod header in a file not named .csv is not looked at. */
	char *other = tu_write_tmp(".txt", small_csv);
	assert_int_equal(openb_sniff(pods), OPENB_PODS);
	assert_int_equal(openb_sniff(gz), OPENB_PODS);
	assert_int_equal(openb_sniff(nodes), OPENB_NODES);
	assert_int_equal(openb_sniff(untimed), OPENB_PODS_UNTIMED);
	assert_int_equal(openb_sniff(dlrm), OPENB_NONE);
	assert_int_equal(openb_sniff("/nonexistent/x.csv"), OPENB_NONE);
	assert_int_equal(trace_format_of(pods), TRACE_OPENB);
	assert_int_equal(trace_format_of(gz), TRACE_OPENB);
	assert_int_equal(trace_format_of(nodes), TRACE_OPENB);
	assert_int_equal(trace_format_of(dlrm), TRACE_DLRM);
	assert_int_equal(trace_format_of("/nonexistent/x.csv"), TRACE_DLRM);
	assert_int_equal(trace_format_of(other), TRACE_SWF);
	assert_string_equal(trace_format_name(TRACE_OPENB), "openb pods");
	assert_string_equal(trace_format_name(TRACE_DLRM), "DLRM CSV");
	/* Pods read as openb, DLRM still as DLRM. */
	if (trace_read_any(pods, false, &w, NULL, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 6);
	assert_int_equal(w.skipped_unusable, 2);
	workload_free(&w);
	if (trace_read_any(gz, false, &w, NULL, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 6);
	workload_free(&w);
	struct dlrm_services svc;
	if (trace_read_any(dlrm, false, &w, &svc, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 1);
	assert_int_equal(svc.napps, 1);
	dlrm_services_free(&svc);
	workload_free(&w);
	/* Node lists and pod lists without times are no traces of jobs. */
	assert_int_equal(trace_read_any(nodes, false, &w, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, ":1: an openb node list, not a list of jobs"));
	assert_int_equal(trace_read_any(untimed, true, &w, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, ":1: an openb pod list without times"));
	assert_int_equal(w.n, 0);
	char *files[] = { pods, gz, nodes, untimed, dlrm, other };
	for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
		unlink(files[k]);
		free(files[k]);
	}
}

/* Replays honour gpu_spec: the names map through the scenario's inventory
 * map to catalog models (req.gpu_models); a pod none of whose models the
 * cluster has is an error naming it (the issue: "placed on any card"). */
static void test_spec_models(void **state)
{
	(void)state;
	char sp[4096], err[512] = "";
	snprintf(sp, sizeof sp, "%s/scenarios/openb.json", tu_root());
	struct scenario sc;
	if (scenario_load(sp, &sc, err, sizeof err) != 0)
		fail_msg("%s", err);
	struct swf_shape sh = { .inv = &sc.inv_map, .cat = &sc.cl.cat };
	char *p = tu_write_tmp(".csv", small_csv);
	struct workload w;
	assert_int_equal(trace_read_shaped(p, false, &sh, &w, NULL, err, sizeof err), 0);
	int t4 = catalog_find_gpu(&sc.cl.cat, "T4-16GB");
	int v16 = catalog_find_gpu(&sc.cl.cat, "V100-SXM2-16GB");
	int v32 = catalog_find_gpu(&sc.cl.cat, "V100-SXM2-32GB");
	assert_true(t4 >= 0 && v16 >= 0 && v32 >= 0);
	int seen = 0;
	for (int32_t i = 0; i < w.n; i++) {
		const struct job *j = &w.jobs[i];
		if (j->trace_id == 5) {
			assert_true(j->req.gpu_models == UINT64_C(1) << t4);
			seen++;
		} else if (j->trace_id == 7) {
			assert_true(j->req.gpu_models == ((UINT64_C(1) << v16) | (UINT64_C(1) << v32)));
			seen++;
		} else {
			assert_true(j->req.gpu_models == 0);
		}
	}
	assert_int_equal(seen, 2);
	workload_free(&w);
	/* Without the map the text stays text: no constraint. */
	assert_int_equal(trace_read_any(p, false, &w, NULL, err, sizeof err), 0);
	for (int32_t i = 0; i < w.n; i++)
		assert_true(w.jobs[i].req.gpu_models == 0);
	workload_free(&w);
	unlink(p);
	free(p);
	/* A model the cluster lacks. */
	p = tu_write_tmp(".csv", HDR "openb-pod-0,6000,12288,1,1000,H100|B200,LS,Running,100,500,100\n");
	assert_int_equal(trace_read_shaped(p, false, &sh, &w, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, ":2: pod 0 asks for GPU model H100|B200, which the cluster does not have"));
	unlink(p);
	free(p);
	scenario_free(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_lenient_counts),
		cmocka_unit_test(test_default_list),
		cmocka_unit_test(test_nodes_small),
		cmocka_unit_test(test_nodes_malformed),
		cmocka_unit_test(test_nodes_repo),
		cmocka_unit_test(test_anytrace),
		cmocka_unit_test(test_spec_models),
	};
	return cmocka_run_group_tests_name("openb", tests, NULL, NULL);
}
