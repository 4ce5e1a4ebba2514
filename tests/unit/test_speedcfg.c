/* Speed table loader (config/speedcfg.c): good tables fill gpu_model.speed,
 * and every bad one gets an error naming the JSON path and what was
 * expected. Also checks the built-in catalog's table and a scenario's
 * "catalog" override carrying "speed". */
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

#include "sim/job.h"
#include "config/jv.h"
#include "config/scenario.h"
#include "config/speedcfg.h"
#include "tests/testutil.h"

/* Loads the GPU object `text` (its "speed" and "speed_source") at path
 * $.gpus[0] into *g, with fp8_tflops set first as load_gpu does. Returns
 * the loader's result; err gets the message. */
static int load(const char *text, double fp8_tflops, struct gpu_model *g, char *err, size_t len)
{
	json_error_t je;
	json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!o)
		fail_msg("test JSON does not parse: %s (%s)", je.text, text);
	struct jv v = { .file = "gpus.json", .err = err, .errlen = len };
	err[0] = '\0';
	memset(g, 0, sizeof *g);
	g->fp8_tflops = fp8_tflops;
	int rc = catalog_speed_load(&v, o, "$.gpus[0]", g);
	json_decref(o);
	if (rc == 0)
		assert_false(v.failed);
	else
		assert_non_null(strstr(err, "gpus.json: "));   /* every error names the file */
	return rc;
}

/* `text` must fail with a message holding want1 (and want2). */
static void expect(const char *text, const char *want1, const char *want2)
{
	struct gpu_model g;
	char err[1024];
	if (load(text, 1000, &g, err, sizeof err) == 0)
		fail_msg("\"%s\" loaded, expected an error with \"%s\"", text, want1);
	if (!strstr(err, want1) || (want2 && !strstr(err, want2)))
		fail_msg("error \"%s\" lacks \"%s\"%s%s", err, want1, want2 ? " / " : "", want2 ? want2 : "");
}

static void test_full_table(void **state)
{
	(void)state;
	struct gpu_model g;
	char err[512];
	assert_int_equal(load("{\"speed\": {"
	                      "\"training\": {\"fp16\": 2.2, \"fp8\": 3, \"fp32\": 2.1},"
	                      "\"inference\": {\"fp16\": 1.64, \"fp8\": 2.7, \"fp32\": 1.6},"
	                      "\"batch\": {\"fp16\": 2.0, \"fp8\": 2.9, \"fp32\": 1.9},"
	                      "\"dev\": {\"fp16\": 1000, \"fp8\": 0.001, \"fp32\": 1}},"
	                      "\"speed_source\": \"made up for the test\"}", 1978.9, &g, err, sizeof err), 0);
	assert_float_equal(g.speed[JOB_TRAINING][PREC_FP16], 2.2, 1e-12);
	assert_float_equal(g.speed[JOB_TRAINING][PREC_FP8], 3.0, 1e-12);
	assert_float_equal(g.speed[JOB_TRAINING][PREC_FP32], 2.1, 1e-12);
	assert_float_equal(g.speed[JOB_INFERENCE][PREC_FP16], 1.64, 1e-12);
	assert_float_equal(g.speed[JOB_INFERENCE][PREC_FP8], 2.7, 1e-12);
	assert_float_equal(g.speed[JOB_BATCH][PREC_FP32], 1.9, 1e-12);
	assert_float_equal(g.speed[JOB_DEV][PREC_FP16], 1000, 1e-12);   /* the upper bound is allowed */
	assert_float_equal(g.speed[JOB_DEV][PREC_FP8], 0.001, 1e-12);
}

/* Classes and precisions are optional; a class may be one number. */
static void test_partial_and_compact(void **state)
{
	(void)state;
	struct gpu_model g;
	char err[512];
	assert_int_equal(load("{\"speed\": {\"dev\": 1.5, \"training\": {\"fp32\": 0.5}}}", 1978.9, &g, err, sizeof err), 0);
	for (int p = 0; p < PREC_N; p++) {
		assert_float_equal(g.speed[JOB_DEV][p], 1.5, 1e-12);
		assert_float_equal(g.speed[JOB_INFERENCE][p], 0, 0);   /* not given: rel_speed applies */
		assert_float_equal(g.speed[JOB_BATCH][p], 0, 0);
	}
	assert_float_equal(g.speed[JOB_TRAINING][PREC_FP32], 0.5, 1e-12);
	assert_float_equal(g.speed[JOB_TRAINING][PREC_FP16], 0, 0);
	assert_float_equal(g.speed[JOB_TRAINING][PREC_FP8], 0, 0);

	/* No "speed": the table stays empty, and that is not an error. */
	assert_int_equal(load("{\"name\": \"x\"}", 0, &g, err, sizeof err), 0);
	for (int c = 0; c < JOB_NCLASS; c++)
		for (int p = 0; p < PREC_N; p++)
			assert_float_equal(g.speed[c][p], 0, 0);
}

/* On a card without FP8 an omitted fp8 cell takes the fp16 one; on a card
 * with FP8 it stays "not given". */
static void test_fp8_fill(void **state)
{
	(void)state;
	struct gpu_model g;
	char err[512];
	const char *t = "{\"speed\": {\"training\": {\"fp16\": 0.4, \"fp32\": 0.35}, \"inference\": {\"fp16\": 0.43, \"fp8\": 0.5}}}";
	assert_int_equal(load(t, 0, &g, err, sizeof err), 0);
	assert_float_equal(g.speed[JOB_TRAINING][PREC_FP8], 0.4, 1e-12);
	assert_float_equal(g.speed[JOB_INFERENCE][PREC_FP8], 0.5, 1e-12);   /* given: kept */
	assert_int_equal(load(t, 296, &g, err, sizeof err), 0);
	assert_float_equal(g.speed[JOB_TRAINING][PREC_FP8], 0, 0);
}

static void test_bad_shape(void **state)
{
	(void)state;
	expect("{\"speed\": 2.2}", "gpus.json: $.gpus[0].speed: expected an object of job class", "got a number");
	expect("{\"speed\": [1, 2]}", "$.gpus[0].speed:", "got an array");
	expect("{\"speed\": {\"training\": [2.2]}}", "$.gpus[0].speed.training:", "got an array");
	expect("{\"speed\": {\"training\": \"fast\"}}", "$.gpus[0].speed.training:", "got a string");
	expect("{\"speed\": {\"training\": {\"fp16\": \"2.2\"}}}", "$.gpus[0].speed.training.fp16:",
	       "expected a number in (0, 1000], got a string");
	expect("{\"speed\": {\"inference\": {\"fp8\": null}}}", "$.gpus[0].speed.inference.fp8:", "got null");
	expect("{\"speed\": {}, \"speed_source\": 7}", "$.gpus[0].speed_source:", "expected a string, got an integer");
}

static void test_bad_names(void **state)
{
	(void)state;
	expect("{\"speed\": {\"trainng\": {\"fp16\": 1}}}", "$.gpus[0].speed: unknown job class \"trainng\"",
	       "(expected one of: training, inference, batch, dev)");
	expect("{\"speed\": {\"batch\": {\"fp16\": 1, \"bf16\": 1}}}",
	       "$.gpus[0].speed.batch: unknown precision \"bf16\"", "(expected one of: fp16, fp8, fp32)");
	expect("{\"speed\": {\"dev\": {\"int8\": 1}}}", "$.gpus[0].speed.dev:", "unknown precision \"int8\"");
}

static void test_bad_values(void **state)
{
	(void)state;
	expect("{\"speed\": {\"training\": {\"fp16\": 0}}}", "$.gpus[0].speed.training.fp16:", "(0, 1000], got 0");
	expect("{\"speed\": {\"training\": {\"fp8\": -1.5}}}", "$.gpus[0].speed.training.fp8:", "got -1.5");
	expect("{\"speed\": {\"inference\": {\"fp32\": 1000.5}}}", "$.gpus[0].speed.inference.fp32:", "got 1000.5");
	expect("{\"speed\": {\"dev\": 0}}", "$.gpus[0].speed.dev:", "(0, 1000], got 0");
	char *long_src = malloc(SPEED_SOURCE_MAX + 64);
	assert_non_null(long_src);
	int n = snprintf(long_src, 32, "{\"speed_source\": \"");
	memset(long_src + n, 'x', SPEED_SOURCE_MAX + 1);
	strcpy(long_src + n + SPEED_SOURCE_MAX + 1, "\"}");
	expect(long_src, "$.gpus[0].speed_source:", "too long");
	free(long_src);
}

/* The built-in catalog: every GPU has all twelve cells, the reference
 * device is 1 everywhere, and a card without FP8 has fp8 == fp16. */
static void test_builtin_table(void **state)
{
	(void)state;
	struct catalog cat;
	char err[512];
	if (catalog_load_builtin(&cat, err, sizeof err))
		fail_msg("%s", err);
	int ref = catalog_find_gpu(&cat, "A100-SXM-80GB");
	assert_true(ref >= 0);
	for (int i = 0; i < cat.ngpus; i++) {
		const struct gpu_model *g = &cat.gpus[i];
		for (int c = 0; c < JOB_NCLASS; c++) {
			for (int p = 0; p < PREC_N; p++) {
				if (!(g->speed[c][p] > 0 && g->speed[c][p] <= SPEED_MAX))
					fail_msg("%s: speed[%s][%s] = %g", g->name, job_class_name((enum job_class)c),
					         precision_name((enum precision)p), g->speed[c][p]);
				if (i == ref)
					assert_float_equal(g->speed[c][p], 1.0, 0);
			}
			if (g->fp8_tflops == 0 && g->speed[c][PREC_FP8] != g->speed[c][PREC_FP16])
				fail_msg("%s (no FP8): %s fp8 %g != fp16 %g", g->name, job_class_name((enum job_class)c),
				         g->speed[c][PREC_FP8], g->speed[c][PREC_FP16]);
		}
	}
	/* Spot checks of sourced figures (docs/catalog.md, Speed table). */
	int h100 = catalog_find_gpu(&cat, "H100-SXM-80GB"), h20 = catalog_find_gpu(&cat, "H20-96GB");
	assert_true(h100 >= 0 && h20 >= 0);
	assert_float_equal(cat.gpus[h100].speed[JOB_TRAINING][PREC_FP8], 3.0, 1e-12);
	assert_float_equal(cat.gpus[h100].speed[JOB_INFERENCE][PREC_FP16], 1.64, 1e-12);
	assert_float_equal(cat.gpus[h20].speed[JOB_INFERENCE][PREC_FP16], 1.8, 1e-12);
	/* Decode is bandwidth bound: the H20 out-serves the H100 but trains far slower. */
	assert_true(cat.gpus[h20].speed[JOB_INFERENCE][PREC_FP16] > cat.gpus[h100].speed[JOB_INFERENCE][PREC_FP16]);
	assert_true(cat.gpus[h20].speed[JOB_TRAINING][PREC_FP16] < cat.gpus[h100].speed[JOB_TRAINING][PREC_FP16]);
	catalog_fini(&cat);
}

#define TYPES "\"node_types\": [{\"name\": \"g\", \"gpu\": \"A100-SXM-80GB\", \"gpus\": 8, \"cpu\": \"Xeon-8380\", \"sockets\": 2, \"mem_gib\": 1024}]"
#define RACKS "\"racks\": [{\"name\": \"r\", \"power_kw\": 20, \"cooling\": \"air\", \"nodes\": [{\"type\": \"g\", \"count\": 2}]}]"
#define WL "\"workload\": {\"synthetic\": {\"days\": 1, \"classes\": {\"training\": {\"rate_per_h\": 1, \"dur_median_s\": 60, \"dur_sigma\": 1, \"mix\": [[1, 1]]}}}}"
#define XGPU(speed) "{\"name\": \"X-1\", \"vendor_name\": \"test card\", \"mem_gib\": 16, \"tdp_w\": 100, " \
	"\"idle_w\": 10, \"fp16_tflops\": 100, \"fp8_tflops\": 0, \"rel_speed\": 0.3, \"mig\": false, " \
	"\"source\": \"test\"" speed "}"

/* Loads a scenario whose "catalog" adds GPU X-1; returns the error or "". */
static const char *scenario_with(const char *speed, struct scenario *sc, bool *loaded, char *err, size_t len)
{
	char text[4096];
	snprintf(text, sizeof text, "{\"name\": \"t\", \"catalog\": {\"gpus\": [" XGPU("%s") "]}, " TYPES ", " RACKS ", " WL "}",
	         speed);
	char *path = tu_write_tmp(".json", text);
	err[0] = '\0';
	*loaded = scenario_load(path, sc, err, len) == 0;
	if (!*loaded)
		assert_non_null(strstr(err, path));
	unlink(path);
	free(path);
	return err;
}

static void test_scenario_override(void **state)
{
	(void)state;
	struct scenario sc;
	bool loaded;
	char err[1024];
	scenario_with(", \"speed\": {\"inference\": {\"fp16\": 0.9}, \"training\": 0.25}, \"speed_source\": \"our own runs\"",
	              &sc, &loaded, err, sizeof err);
	if (!loaded)
		fail_msg("%s", err);
	int k = catalog_find_gpu(&sc.cl.cat, "X-1");
	assert_true(k >= 0);
	assert_float_equal(sc.cl.cat.gpus[k].speed[JOB_INFERENCE][PREC_FP16], 0.9, 1e-12);
	assert_float_equal(sc.cl.cat.gpus[k].speed[JOB_INFERENCE][PREC_FP8], 0.9, 1e-12);   /* no FP8 */
	assert_float_equal(sc.cl.cat.gpus[k].speed[JOB_TRAINING][PREC_FP32], 0.25, 1e-12);
	assert_float_equal(sc.cl.cat.gpus[k].speed[JOB_DEV][PREC_FP16], 0, 0);
	scenario_free(&sc);

	scenario_with(", \"speed\": {\"inference\": {\"fp8\": 0}}", &sc, &loaded, err, sizeof err);
	assert_false(loaded);
	if (!strstr(err, "$.catalog.gpus[0].speed.inference.fp8") || !strstr(err, "(0, 1000], got 0"))
		fail_msg("error \"%s\" lacks the path or the range", err);
	scenario_with(", \"sped\": {}", &sc, &loaded, err, sizeof err);
	assert_false(loaded);
	if (!strstr(err, "$.catalog.gpus[0]: unknown key \"sped\"") || !strstr(err, "speed, speed_source"))
		fail_msg("error \"%s\" lacks the key list", err);
}

/* A GPU entry's "gfd" (what GPU Feature Discovery labels its node with):
 * read into the model, every built-in NVIDIA data-centre card has one,
 * and a malformed one is refused with its JSON path. */
static void test_gfd(void **state)
{
	(void)state;
	struct scenario sc;
	bool loaded;
	char err[1024];
	scenario_with(", \"gfd\": {\"product\": \"NVIDIA-X-1\", \"family\": \"hopper\", \"compute_capability\": \"9.0\", "
	              "\"pci_class\": \"0302\"}", &sc, &loaded, err, sizeof err);
	if (!loaded)
		fail_msg("%s", err);
	const struct gpu_model *g = &sc.cl.cat.gpus[catalog_find_gpu(&sc.cl.cat, "X-1")];
	assert_string_equal(g->product, "NVIDIA-X-1");
	assert_string_equal(g->family, "hopper");
	assert_int_equal(g->cc_major, 9);
	assert_int_equal(g->cc_minor, 0);
	assert_string_equal(g->pci_class, "0302");
	const struct gpu_model *h = &sc.cl.cat.gpus[catalog_find_gpu(&sc.cl.cat, "H100-SXM-80GB")];
	assert_string_equal(h->product, "NVIDIA-H100-80GB-HBM3");
	const struct gpu_model *m = &sc.cl.cat.gpus[catalog_find_gpu(&sc.cl.cat, "MI300X-192GB")];
	assert_string_equal(m->product, "");   /* not NVIDIA's */
	scenario_free(&sc);
	static const struct { const char *gfd, *want; } bad[] = {
		{ "{\"product\": \"X\", \"family\": \"f\", \"compute_capability\": \"nine\", \"pci_class\": \"0302\"}",
		  "$.catalog.gpus[0].gfd.compute_capability: expected MAJOR.MINOR" },
		{ "{\"product\": \"X\", \"family\": \"f\", \"compute_capability\": \"9.0\", \"pci_class\": \"3D\"}",
		  "$.catalog.gpus[0].gfd.pci_class: expected 4 hex digits" },
		{ "{\"product\": \"NVIDIA X\", \"family\": \"f\", \"compute_capability\": \"9.0\", \"pci_class\": \"0302\"}",
		  "$.catalog.gpus[0].gfd.product: expected NVML's name with blanks made '-'" },
		{ "{\"product\": \"X\"}", "$.catalog.gpus[0].gfd.family: missing (expected a string)" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char extra[512];
		snprintf(extra, sizeof extra, ", \"gfd\": %s", bad[i].gfd);
		scenario_with(extra, &sc, &loaded, err, sizeof err);
		assert_false(loaded);
		if (!strstr(err, bad[i].want))
			fail_msg("error \"%s\" lacks \"%s\"", err, bad[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_table),
		cmocka_unit_test(test_partial_and_compact),
		cmocka_unit_test(test_fp8_fill),
		cmocka_unit_test(test_bad_shape),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_builtin_table),
		cmocka_unit_test(test_scenario_override),
		cmocka_unit_test(test_gfd),
	};
	return cmocka_run_group_tests_name("speedcfg", tests, NULL, NULL);
}
