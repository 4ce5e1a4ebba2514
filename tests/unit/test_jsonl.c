/* Tests of the native JSON Lines trace format. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/testutil.h"
#include "traces/trace.h"

#define KTH_REL "traces/data/swf-kth-sp2-1996/KTH-SP2-1996-2.1-cln.swf.gz"

static void assert_same_workload(const struct workload *a, const struct workload *b)
{
	assert_int_equal(a->n, b->n);
	for (int32_t i = 0; i < a->n; i++) {
		const struct job *x = &a->jobs[i], *y = &b->jobs[i];
		assert_int_equal(x->id, y->id);
		assert_int_equal(x->trace_id, y->trace_id);
		assert_int_equal(x->tenant, y->tenant);
		assert_int_equal(x->group, y->group);
		assert_int_equal(x->queue, y->queue);
		assert_int_equal(x->cls, y->cls);
		assert_int_equal(x->state, y->state);
		assert_int_equal(x->submit_us, y->submit_us);
		assert_true(x->walltime_us == y->walltime_us);
		assert_int_equal(x->start_us, y->start_us);
		assert_int_equal(x->end_us, y->end_us);
		assert_int_equal(x->req.nodes, y->req.nodes);
		assert_int_equal(x->req.cores, y->req.cores);
		assert_int_equal(x->req.gpus, y->req.gpus);
		assert_int_equal(x->req.mem_mib, y->req.mem_mib);
		assert_int_equal(x->req.gpu_mem_mib, y->req.gpu_mem_mib);
		assert_int_equal(x->req.gpu_models, y->req.gpu_models);
		assert_int_equal(x->ckpt_every_us, y->ckpt_every_us);
		assert_int_equal(a->truth[i].run_us, b->truth[i].run_us);
		assert_int_equal(a->truth[i].fails, b->truth[i].fails);
	}
}

/* Writes w, reads it back, compares; returns nothing, fails the test on a difference. */
static void round_trip(const struct workload *w)
{
	char *p = tu_tmpath(".jsonl");
	char err[512] = "";
	if (trace_jsonl_write(p, w, err, sizeof err) != 0)
		fail_msg("%s", err);
	struct workload r;
	if (trace_jsonl_read(p, &r, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_same_workload(w, &r);
	/* The SWF header's sizing survives in the optional header line. */
	bool header = w->max_procs > 0 || w->max_nodes > 0 || w->unix_start > 0;
	assert_int_equal(r.lines, w->n + header);
	assert_int_equal(r.max_procs, w->max_procs);
	assert_int_equal(r.max_nodes, w->max_nodes);
	assert_int_equal(r.unix_start, w->unix_start);
	workload_free(&r);
	unlink(p);
	free(p);
}

static void test_round_trip_swf(void **state)
{
	(void)state;
	char *swf = tu_write_tmp(".swf",
		"; MaxProcs: 16\n"
		"7 30 0 100 4 -1 -1 4 600 -1 1 3 2 -1 1 -1 -1 -1\n"
		"8 10 0 50 -1 -1 -1 2 -1 -1 0 4 2 -1 -1 -1 -1 -1\n"
		"9 10 0 0 1 -1 -1 1 60 -1 5 5 -1 -1 2 -1 -1 -1\n");
	struct workload w;
	char err[512] = "";
	assert_int_equal(trace_swf_read(swf, NULL, &w, err, sizeof err), 0);
	assert_int_equal(w.n, 3);
	round_trip(&w);
	workload_free(&w);
	unlink(swf);
	free(swf);

	/* The whole KTH log. */
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", tu_root(), KTH_REL);
	if (access(p, R_OK) != 0)
		fail_msg("missing %s: the repository carries the KTH log in traces/data", p);
	assert_int_equal(trace_swf_read(p, NULL, &w, err, sizeof err), 0);
	round_trip(&w);
	workload_free(&w);
}

static void test_round_trip_gpu(void **state)
{
	(void)state;
	struct synth_cfg c;
	synth_cfg_init(&c);
	c.days = 2;
	c.cls[JOB_TRAINING] = (struct synth_class){
		.rate_per_h = 5, .dur_median_s = 3600, .dur_sigma = 1, .walltime_factor = 1.5,
		.nmix = 3, .mix_gpus = { 1, 8, 32 }, .mix_p = { 0.5, 0.3, 0.2 },
		.cores_per_gpu = 12, .mem_per_gpu_mib = 120000, .gpu_mem_mib = 80000,
		.fail_p = 0.1, .ntenants = 4,
	};
	c.cls[JOB_DEV] = (struct synth_class){
		.rate_per_h = 2, .dur_median_s = 600, .dur_sigma = 0.5, .walltime_factor = 1,
		.nmix = 1, .mix_gpus = { 0 }, .mix_p = { 1 }, .cpu_cores = 4,
		.mem_per_gpu_mib = 8192, .ntenants = 2,
	};
	struct workload w;
	char err[512] = "";
	assert_int_equal(trace_synth(&c, 42, &w, err, sizeof err), 0);
	assert_true(w.n > 100);
	w.jobs[0].req.gpu_models = 0x5;
	w.jobs[1].req.gpu_models = (uint64_t)INT64_MAX;
	round_trip(&w);

	/* Bit 63 cannot be written: an error, and no file left behind. */
	w.jobs[2].req.gpu_models = 1ULL << 63;
	char *p = tu_tmpath(".jsonl");
	assert_int_equal(trace_jsonl_write(p, &w, err, sizeof err), -1);
	assert_non_null(strstr(err, "gpu_models_mask"));
	assert_int_not_equal(access(p, F_OK), 0);
	workload_free(&w);
	free(p);
}

static void test_defaults_and_sort(void **state)
{
	(void)state;
	char *p = tu_write_tmp(".jsonl",
		"{\"submit_us\": 500, \"req\": {\"cores\": 2}, \"run_us\": 10}\n"
		"\n"
		"  {\"submit_us\": 100, \"req\": {\"nodes\": 2, \"gpus\": 4}, \"run_us\": 7,"
		" \"walltime_us\": null, \"class\": \"training\", \"fails\": true, \"tenant\": 3}\r\n"
		"{\"submit_us\": 100, \"req\": {\"cores\": 1}, \"run_us\": 1, \"walltime_us\": 60000000,"
		" \"state\": \"pending\", \"id\": 99, \"trace_id\": 1234}");
	struct workload w;
	char err[512] = "";
	if (trace_jsonl_read(p, &w, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 3);
	assert_int_equal(w.lines, 4);
	/* Sorted by submit, stable; ids renumbered; trace_id defaults to the file position. */
	assert_int_equal(w.jobs[0].id, 0);
	assert_int_equal(w.jobs[0].trace_id, 1);
	assert_int_equal(w.jobs[0].cls, JOB_TRAINING);
	assert_int_equal(w.jobs[0].req.nodes, 2);
	assert_int_equal(w.jobs[0].req.gpus, 4);
	assert_int_equal(w.jobs[0].req.cores, 0);
	assert_int_equal(w.jobs[0].tenant, 3);
	assert_true(w.jobs[0].walltime_us == SIMTIME_INF);
	assert_int_equal(w.truth[0].fails, 1);
	assert_int_equal(w.truth[0].run_us, 7);
	assert_int_equal(w.jobs[1].id, 1);
	assert_int_equal(w.jobs[1].trace_id, 1234);
	assert_int_equal(w.jobs[1].walltime_us, 60000000);
	assert_int_equal(w.jobs[2].trace_id, 0);
	assert_int_equal(w.jobs[2].submit_us, 500);
	assert_int_equal(w.jobs[2].cls, JOB_BATCH);
	assert_int_equal(w.jobs[2].tenant, -1);
	assert_int_equal(w.jobs[2].group, -1);
	assert_int_equal(w.jobs[2].queue, -1);
	assert_int_equal(w.jobs[2].state, JOB_PENDING);
	assert_true(w.jobs[2].walltime_us == SIMTIME_INF);
	assert_int_equal(w.truth[2].fails, 0);
	workload_free(&w);
	unlink(p);
	free(p);
}

#define OK_LINE "{\"submit_us\":0,\"req\":{\"cores\":1},\"run_us\":5}\n"

struct bad_case {
	const char *line;   /* written as line 3, after two good lines */
	const char *want;   /* expected after "path:3" */
};

static const struct bad_case bad_cases[] = {
	/* syntax: line and column */
	{ "{\"submit_us\": 1,,}", ":17: string or '}' expected near ','" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1},\"run_us\":5", ":43: '}' expected" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1},\"run_us\":5} x", ":46: end of file expected near 'x'" },
	{ "{\"submit_us\":0,\"submit_us\":1,\"req\":{\"cores\":1},\"run_us\":5}",
	  ":26: duplicate object key" },
	/* unknown keys, with their path */
	{ "{\"submit_us\":0,\"req\":{\"cores\":1,\"gpuz\":2},\"run_us\":5}",
	  ": $.req.gpuz: unknown key" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1},\"run_us\":5,\"colour\":\"red\"}",
	  ": $.colour: unknown key" },
	/* wrong types */
	{ "{\"submit_us\":\"0\",\"req\":{\"cores\":1},\"run_us\":5}",
	  ": $.submit_us: expected a non-negative integer, got a string" },
	{ "{\"submit_us\":0.5,\"req\":{\"cores\":1},\"run_us\":5}",
	  ": $.submit_us: expected a non-negative integer, got a number with a fraction" },
	{ "{\"submit_us\":0,\"req\":[1],\"run_us\":5}", ": $.req: expected an object, got an array" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":true},\"run_us\":5}",
	  ": $.req.cores: expected a non-negative integer, got a boolean" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1},\"run_us\":5,\"fails\":1}",
	  ": $.fails: expected true or false, got an integer" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1},\"run_us\":5,\"class\":\"gaming\"}",
	  ": $.class: expected training, inference, batch or dev, got 'gaming'" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1},\"run_us\":5,\"class\":3}",
	  ": $.class: expected a string, got an integer" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1},\"run_us\":5,\"state\":\"done\"}",
	  ": $.state: expected \"pending\"" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1},\"run_us\":5,\"walltime_us\":0}",
	  ": $.walltime_us: expected a positive integer or null, got 0" },
	{ "[1, 2]", ": $: expected a job object, got an array" },
	{ "42", ": $: expected a job object, got an integer" },
	/* missing required fields */
	{ "{\"req\":{\"cores\":1},\"run_us\":5}", ": $.submit_us: missing (required)" },
	{ "{\"submit_us\":0,\"run_us\":5}", ": $.req: missing (required)" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1}}", ": $.run_us: missing (required)" },
	{ "{\"submit_us\":0,\"req\":{\"mem_mib\":1},\"run_us\":5}",
	  ": $.req: expected cores > 0 or gpus > 0" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1,\"gpus\":1},\"run_us\":5}",
	  ": $.req.gpus: a spread request (nodes 0) cannot ask for GPUs" },
	/* negative counts and out of range */
	{ "{\"submit_us\":0,\"req\":{\"cores\":-1},\"run_us\":5}",
	  ": $.req.cores: expected a non-negative integer, got -1" },
	{ "{\"submit_us\":0,\"req\":{\"nodes\":-2,\"cores\":1},\"run_us\":5}",
	  ": $.req.nodes: expected a non-negative integer, got -2" },
	{ "{\"submit_us\":-5,\"req\":{\"cores\":1},\"run_us\":5}",
	  ": $.submit_us: expected a non-negative integer, got -5" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1},\"run_us\":-1}",
	  ": $.run_us: expected a non-negative integer, got -1" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1,\"gpu_mem_mib\":-1},\"run_us\":5}",
	  ": $.req.gpu_mem_mib: expected a non-negative integer, got -1" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1},\"run_us\":5,\"tenant\":-2}",
	  ": $.tenant: expected an integer >= -1, got -2" },
	{ "{\"header\":{\"max_procs\":4}}",
	  ": $.header: a header line must come before the jobs" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":3000000000},\"run_us\":5}",
	  ": $.req.cores: expected a non-negative integer, got 3000000000 (too large)" },
};

static void test_bad_input(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		char text[1024];
		snprintf(text, sizeof text, OK_LINE OK_LINE "%s\n" OK_LINE, bad_cases[i].line);
		char *p = tu_write_tmp(".jsonl", text);
		char want[1024], err[512] = "";
		snprintf(want, sizeof want, "%s:3%s", p, bad_cases[i].want);
		struct workload w;
		int rc = trace_jsonl_read(p, &w, err, sizeof err);
		if (rc != -1 || !strstr(err, want))
			fail_msg("case %zu: rc %d, message\n  %s\nexpected it to contain\n  %s", i, rc,
			         err, want);
		assert_int_equal(w.n, 0);
		assert_null(w.jobs);
		unlink(p);
		free(p);
	}
}

/* No "PATH.tmp.*" file is left beside PATH. */
static void assert_no_temp(const char *path)
{
	const char *slash = strrchr(path, '/');
	assert_non_null(slash);
	char dir[512];
	snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	char prefix[512];
	snprintf(prefix, sizeof prefix, "%s.tmp.", slash + 1);
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d)))
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
			fail_msg("temp file left behind: %s/%s", dir, e->d_name);
	closedir(d);
}

static void test_atomic_write(void **state)
{
	(void)state;
	struct workload w;
	workload_init(&w);
	struct job j;
	struct job_truth t = { .run_us = 5 };
	job_init(&j, 0, 0);
	j.req.cores = 1;
	assert_int_equal(workload_add(&w, &j, &t), 0);

	/* Replaces an existing file in one step. */
	char *p = tu_write_tmp(".jsonl", "old contents\n");
	char err[512] = "";
	assert_int_equal(trace_jsonl_write(p, &w, err, sizeof err), 0);
	assert_no_temp(p);
	struct workload r;
	assert_int_equal(trace_jsonl_read(p, &r, err, sizeof err), 0);
	assert_int_equal(r.n, 1);
	workload_free(&r);

	/* An unwritable place: an error naming it. */
	assert_int_equal(trace_jsonl_write("/nonexistent/dir/x.jsonl", &w, err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent/dir/x.jsonl"));

	/* The empty workload writes an empty file that reads back empty. */
	workload_free(&w);
	assert_int_equal(trace_jsonl_write(p, &w, err, sizeof err), 0);
	assert_int_equal(trace_jsonl_read(p, &r, err, sizeof err), 0);
	assert_int_equal(r.n, 0);
	workload_free(&r);
	unlink(p);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_swf),
		cmocka_unit_test(test_round_trip_gpu),
		cmocka_unit_test(test_defaults_and_sort),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_atomic_write),
	};
	return cmocka_run_group_tests_name("jsonl", tests, NULL, NULL);
}
