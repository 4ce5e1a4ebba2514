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
#include "traces/anytrace.h"
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
		assert_int_equal(x->req.gpu_milli, y->req.gpu_milli);
		assert_int_equal(x->req.mig_g, y->req.mig_g);
		assert_int_equal(x->req.precision, y->req.precision);
		assert_int_equal(x->req.flags, y->req.flags);
		assert_int_equal(x->req.io_mbps, y->req.io_mbps);
		assert_int_equal(x->req.storage_gib, y->req.storage_gib);
		/* Names and expressions compare by text: the tables may differ in order. */
		const int16_t rx[] = { x->req.sel_req, x->req.sel_pref, x->req.plane, x->req.pool };
		const int16_t ry[] = { y->req.sel_req, y->req.sel_pref, y->req.plane, y->req.pool };
		for (int k = 0; k < 4; k++) {
			assert_int_equal(rx[k] == 0, ry[k] == 0);
			if (rx[k]) {
				assert_true(rx[k] <= a->nstr && ry[k] <= b->nstr);
				assert_string_equal(a->str[rx[k] - 1], b->str[ry[k] - 1]);
			}
		}
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

/* The whole file as a string (caller frees). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	char *buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Every request field beyond counts, one job per shape. */
static const char ext_jsonl[] =
	/* line 1: a time-sliced share, bf16 (read as fp16), a required and a preferred expression */
	"{\"submit_us\":10,\"req\":{\"nodes\":1,\"cores\":2,\"gpus\":1,\"gpu_mem_mib\":8192,"
	"\"gpu_milli\":250,\"precision\":\"bf16\",\"require\":\"gpu.vendor=nvidia, gpu.mem_gib>=16\","
	"\"prefer\":\"rack in (r1, r2)\"},\"run_us\":100}\n"
	/* line 2: a MIG instance by profile name, FP8, a plane */
	"{\"submit_us\":20,\"req\":{\"nodes\":1,\"cores\":4,\"gpus\":1,\"mig\":\"3g.40gb\","
	"\"precision\":\"fp8\",\"fp8\":true,\"plane\":\"ib400\"},\"run_us\":200}\n"
	/* line 3: a MIG instance by number; a gang with NUMA, ISA, pool and storage */
	"{\"submit_us\":30,\"req\":{\"nodes\":1,\"cores\":1,\"gpus\":1,\"mig\":7},\"run_us\":1}\n"
	"{\"submit_us\":40,\"req\":{\"nodes\":2,\"cores\":32,\"gpus\":8,\"precision\":\"fp32\","
	"\"numa_local\":true,\"isa\":[\"amx\",\"avx512\"],\"plane\":\"ib400\",\"pool\":\"nvme\","
	"\"io_mbps\":1500,\"storage_gib\":2.5,\"require\":\"gpu.vendor=nvidia, gpu.mem_gib>=16\"},"
	"\"run_us\":400}\n"
	/* line 5: a CPU job: false flags, an empty ISA list, a pool with only bandwidth */
	"{\"submit_us\":50,\"req\":{\"cores\":8,\"numa_local\":false,\"fp8\":false,\"isa\":[],"
	"\"pool\":\"hdd\",\"io_mbps\":0.2},\"run_us\":500}\n";

static void test_request_fields(void **state)
{
	(void)state;
	char *p = tu_write_tmp(".jsonl", ext_jsonl);
	struct workload w;
	char err[512] = "";
	if (trace_jsonl_read(p, &w, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 5);
	/* Five distinct strings, interned once each, in order of appearance. */
	assert_int_equal(w.nstr, 5);
	assert_string_equal(w.str[0], "gpu.vendor=nvidia, gpu.mem_gib>=16");
	assert_string_equal(w.str[1], "rack in (r1, r2)");
	assert_string_equal(w.str[2], "ib400");
	assert_string_equal(w.str[3], "nvme");
	assert_string_equal(w.str[4], "hdd");
	const struct job_req *r = &w.jobs[0].req;
	assert_int_equal(r->gpu_milli, 250);
	assert_int_equal(r->mig_g, 0);
	assert_int_equal(r->gpu_mem_mib, 8192);
	assert_int_equal(r->precision, PREC_FP16);
	assert_int_equal(r->flags, 0);
	assert_int_equal(r->sel_req, 1);
	assert_int_equal(r->sel_pref, 2);
	assert_int_equal(r->plane, 0);
	assert_int_equal(r->pool, 0);
	assert_true(job_req_shared(r));
	r = &w.jobs[1].req;
	assert_int_equal(r->mig_g, 3);
	assert_int_equal(r->gpu_milli, 0);
	assert_int_equal(r->precision, PREC_FP8);
	assert_int_equal(r->flags, REQ_FP8);
	assert_int_equal(r->plane, 3);
	assert_int_equal(r->sel_req, 0);
	r = &w.jobs[2].req;
	assert_int_equal(r->mig_g, 7);
	r = &w.jobs[3].req;
	assert_int_equal(r->nodes, 2);
	assert_int_equal(r->precision, PREC_FP32);
	assert_int_equal(r->flags, REQ_NUMA_LOCAL | REQ_AVX512 | REQ_AMX);
	assert_int_equal(r->plane, 3);
	assert_int_equal(r->pool, 4);
	assert_int_equal(r->io_mbps, 1500);
	assert_int_equal(r->storage_gib, 3);   /* rounded up */
	assert_int_equal(r->sel_req, 1);
	assert_int_equal(r->sel_pref, 0);
	assert_false(job_req_shared(r));
	r = &w.jobs[4].req;
	assert_int_equal(r->nodes, 0);
	assert_int_equal(r->flags, 0);
	assert_int_equal(r->pool, 5);
	assert_int_equal(r->io_mbps, 1);       /* rounded up */
	assert_int_equal(r->storage_gib, 0);

	/* Written, read back: the same jobs and strings. */
	round_trip(&w);

	/* The writer emits each field only when set, in a fixed order; a second
	 * round is byte-identical to the first. */
	char *out1 = tu_tmpath(".jsonl"), *out2 = tu_tmpath(".jsonl");
	assert_int_equal(trace_jsonl_write(out1, &w, err, sizeof err), 0);
	char *t1 = slurp(out1);
	assert_non_null(strstr(t1, "\"gpu_models_mask\":0,\"gpu_milli\":250,\"require\":"
	                           "\"gpu.vendor=nvidia, gpu.mem_gib>=16\",\"prefer\":\"rack in (r1, r2)\"}"));
	assert_non_null(strstr(t1, "\"gpu_models_mask\":0,\"mig\":3,\"precision\":\"fp8\",\"fp8\":true,"
	                           "\"plane\":\"ib400\"}"));
	assert_non_null(strstr(t1, "\"precision\":\"fp32\",\"numa_local\":true,\"isa\":[\"avx512\",\"amx\"],"
	                           "\"plane\":\"ib400\",\"pool\":\"nvme\",\"io_mbps\":1500,\"storage_gib\":3,"));
	assert_non_null(strstr(t1, "\"gpu_models_mask\":0,\"pool\":\"hdd\",\"io_mbps\":1}"));
	struct workload r2;
	assert_int_equal(trace_jsonl_read(out1, &r2, err, sizeof err), 0);
	assert_int_equal(trace_jsonl_write(out2, &r2, err, sizeof err), 0);
	char *t2 = slurp(out2);
	assert_string_equal(t1, t2);
	workload_free(&r2);
	free(t1);
	free(t2);

	/* A string index the table does not have is refused, and nothing is written. */
	unlink(out2);
	w.jobs[1].req.plane = (int16_t)(w.nstr + 1);
	assert_int_equal(trace_jsonl_write(out2, &w, err, sizeof err), -1);
	assert_non_null(strstr(err, "job 1: req.plane refers to string 5, but the workload has 5"));
	assert_int_not_equal(access(out2, F_OK), 0);
	workload_free(&w);

	/* A bad field on line 5 of the same file: the whole message, and nothing kept. */
	char text[4096];
	snprintf(text, sizeof text, "%s", ext_jsonl);
	char *end = strstr(text, "\"io_mbps\":0.2}");
	assert_non_null(end);
	snprintf(end, sizeof text - (size_t)(end - text), "\"io_mbps\":0.2,\"mig\":\"1g\"},\"run_us\":5}\n");
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(trace_jsonl_read(p, &w, err, sizeof err), -1);
	char want[600];
	snprintf(want, sizeof want, "%s:5: $.req.mig: a share of one GPU needs nodes 1 and gpus 1, "
	         "got nodes 0 and gpus 0", p);
	assert_string_equal(err, want);
	assert_int_equal(w.n, 0);
	assert_int_equal(w.nstr, 0);
	assert_null(w.str);
	unlink(p);
	unlink(out1);
	free(p);
	free(out1);
	free(out2);
}

/* `hetlab trace convert` is trace_read_any then trace_jsonl_write: once
 * converted, a trace with the new fields converts to itself byte for byte,
 * and a trace without them (the KTH log) gets none of them. */
static void test_convert_round_trip(void **state)
{
	(void)state;
	char err[512] = "";
	struct workload w;
	char *p = tu_write_tmp(".jsonl", ext_jsonl), *a = tu_tmpath(".jsonl"), *b = tu_tmpath(".jsonl");
	const char *ins[2] = { p, NULL };
	char kth[1024];
	snprintf(kth, sizeof kth, "%s/%s", tu_root(), KTH_REL);
	ins[1] = kth;
	for (int k = 0; k < 2; k++) {
		if (trace_read_any(ins[k], false, &w, NULL, err, sizeof err) != 0)
			fail_msg("%s", err);
		assert_int_equal(trace_jsonl_write(a, &w, err, sizeof err), 0);
		workload_free(&w);
		assert_int_equal(trace_read_any(a, false, &w, NULL, err, sizeof err), 0);
		assert_int_equal(trace_jsonl_write(b, &w, err, sizeof err), 0);
		workload_free(&w);
		char *ta = slurp(a), *tb = slurp(b);
		assert_string_equal(ta, tb);
		if (k == 1) {
			/* No field that the log does not set. */
			static const char *const absent[] = { "gpu_milli", "\"mig\"", "precision", "fp8",
				"numa_local", "isa", "plane", "pool", "io_mbps", "storage_gib", "require",
				"prefer" };
			for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++)
				if (strstr(ta, absent[i]))
					fail_msg("the KTH conversion carries %s", absent[i]);
		}
		free(ta);
		free(tb);
	}
	unlink(p);
	unlink(a);
	unlink(b);
	free(p);
	free(a);
	free(b);
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
	  ": $.submit_us: expected a non-negative integer (microseconds), got a string" },
	{ "{\"submit_us\":0.5,\"req\":{\"cores\":1},\"run_us\":5}",
	  ": $.submit_us: expected a non-negative integer (microseconds), got a number with a fraction" },
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
	  ": $.walltime_us: expected a positive integer (microseconds) or null, got 0" },
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
	  ": $.submit_us: expected a non-negative integer (microseconds), got -5" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1},\"run_us\":-1}",
	  ": $.run_us: expected a non-negative integer (microseconds), got -1" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1,\"gpu_mem_mib\":-1},\"run_us\":5}",
	  ": $.req.gpu_mem_mib: expected a non-negative integer, got -1" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1},\"run_us\":5,\"tenant\":-2}",
	  ": $.tenant: expected an integer >= -1, got -2" },
	{ "{\"header\":{\"max_procs\":4}}",
	  ": $.header: a header line must come before the jobs" },
	/* times past TRACE_MAX_TIME_US: a replay of them would never end */
	{ "{\"submit_us\":0,\"req\":{\"cores\":1},\"run_us\":9223372036854775807}",
	  ": $.run_us: expected a non-negative integer (microseconds) of at most 1000000000000000 "
	  "(1000000000 s, about 31.7 years), got 9223372036854775807" },
	{ "{\"submit_us\":1000000000000001,\"req\":{\"cores\":1},\"run_us\":5}",
	  ": $.submit_us: expected a non-negative integer (microseconds) of at most 1000000000000000" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1},\"run_us\":5,\"walltime_us\":2000000000000000}",
	  ": $.walltime_us: expected a positive integer (microseconds) or null of at most" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":1},\"run_us\":5,\"ckpt_every_us\":9000000000000000000}",
	  ": $.ckpt_every_us: expected a non-negative integer (microseconds) of at most" },
	{ "{\"submit_us\":0,\"req\":{\"cores\":3000000000},\"run_us\":5}",
	  ": $.req.cores: expected a non-negative integer, got 3000000000 (too large)" },
	/* the request fields beyond counts */
#define G1 "{\"submit_us\":0,\"run_us\":5,\"req\":{\"nodes\":1,\"gpus\":1,"
	{ G1 "\"gpu_milli\":0}}",
	  ": $.req.gpu_milli: expected an integer in 1..1000 (thousandths of one GPU), got 0" },
	{ G1 "\"gpu_milli\":1001}}",
	  ": $.req.gpu_milli: expected an integer in 1..1000 (thousandths of one GPU), got 1001" },
	{ G1 "\"gpu_milli\":0.5}}",
	  ": $.req.gpu_milli: expected an integer in 1..1000 (thousandths of one GPU), got a number with a fraction" },
	{ "{\"submit_us\":0,\"run_us\":5,\"req\":{\"nodes\":1,\"gpus\":2,\"gpu_milli\":500}}",
	  ": $.req.gpu_milli: a share of one GPU needs nodes 1 and gpus 1, got nodes 1 and gpus 2" },
	{ "{\"submit_us\":0,\"run_us\":5,\"req\":{\"nodes\":2,\"gpus\":1,\"mig\":2}}",
	  ": $.req.mig: a share of one GPU needs nodes 1 and gpus 1, got nodes 2 and gpus 1" },
	{ "{\"submit_us\":0,\"run_us\":5,\"req\":{\"nodes\":1,\"cores\":4,\"mig\":2}}",
	  ": $.req.mig: a share of one GPU needs nodes 1 and gpus 1, got nodes 1 and gpus 0" },
	{ G1 "\"mig\":8}}",
	  ": $.req.mig: expected compute slices 1..7 as a number, or a MIG profile such as \"3g\" or \"3g.40gb\", got 8" },
	{ G1 "\"mig\":\"g3\"}}",
	  ": $.req.mig: expected compute slices 1..7 as a number, or a MIG profile such as \"3g\" or \"3g.40gb\", got 'g3'" },
	{ G1 "\"mig\":\"3\"}}", ": $.req.mig: expected compute slices 1..7" },
	{ G1 "\"mig\":\"3gb\"}}", ": $.req.mig: expected compute slices 1..7" },
	{ G1 "\"mig\":\"0g.5gb\"}}", ": $.req.mig: expected compute slices 1..7" },
	{ G1 "\"mig\":true}}", ": $.req.mig: expected compute slices 1..7 as a number, or a MIG "
	  "profile such as \"3g\" or \"3g.40gb\", got a boolean" },
	{ G1 "\"mig\":1,\"gpu_milli\":100}}",
	  ": $.req.mig: a MIG instance and a time-sliced share (gpu_milli) exclude each other" },
	{ G1 "\"precision\":\"int8\"}}",
	  ": $.req.precision: expected fp16, bf16, fp8 or fp32, got 'int8'" },
	{ G1 "\"precision\":16}}", ": $.req.precision: expected a string, got an integer" },
	{ G1 "\"fp8\":1}}", ": $.req.fp8: expected true or false, got an integer" },
	{ "{\"submit_us\":0,\"run_us\":5,\"req\":{\"cores\":1,\"fp8\":true}}",
	  ": $.req.fp8: requiring FP8 GPUs needs a GPU request (gpus > 0)" },
	{ G1 "\"numa_local\":\"yes\"}}", ": $.req.numa_local: expected true or false, got a string" },
	{ G1 "\"isa\":\"avx512\"}}",
	  ": $.req.isa: expected an array of \"avx512\" and \"amx\", got a string" },
	{ G1 "\"isa\":[\"avx512\",\"sse\"]}}",
	  ": $.req.isa[1]: expected \"avx512\" or \"amx\", got 'sse'" },
	{ G1 "\"isa\":[1]}}", ": $.req.isa[0]: expected \"avx512\" or \"amx\", got an integer" },
	{ G1 "\"plane\":\"\"}}", ": $.req.plane: expected a non-empty name" },
	{ G1 "\"pool\":7}}", ": $.req.pool: expected a name string, got an integer" },
	{ G1 "\"pool\":\"nvme\",\"io_mbps\":-1}}",
	  ": $.req.io_mbps: expected a number in [0, 2147483647], got -1" },
	{ G1 "\"pool\":\"nvme\",\"storage_gib\":\"10\"}}",
	  ": $.req.storage_gib: expected a number >= 0, got a string" },
	{ G1 "\"io_mbps\":100}}",
	  ": $.req.io_mbps: storage bandwidth and capacity are taken on a pool: give \"pool\" too" },
	{ G1 "\"storage_gib\":1}}",
	  ": $.req.storage_gib: storage bandwidth and capacity are taken on a pool: give \"pool\" too" },
	{ G1 "\"require\":\"gpu.mem_gib >=\"}}", ": $.req.require: bad label expression 'gpu.mem_gib >=': " },
	{ G1 "\"prefer\":\"rack in (a, b\"}}", ": $.req.prefer: bad label expression 'rack in (a, b': " },
	{ G1 "\"require\":[\"a\"]}}", ": $.req.require: expected a label expression string, got an array" },
	/* a text first met as a plane name is still checked as an expression */
	{ G1 "\"plane\":\"x y\",\"require\":\"x y\"}}", ": $.req.require: bad label expression 'x y': " },
	{ G1 "\"gpu_model\":\"H100\"}}", ": $.req.gpu_model: unknown key" },
#undef G1
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
		cmocka_unit_test(test_request_fields),
		cmocka_unit_test(test_convert_round_trip),
	};
	return cmocka_run_group_tests_name("jsonl", tests, NULL, NULL);
}
