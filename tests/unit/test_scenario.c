/* Scenario loader: every kind of bad input gets an error naming the file
 * and the line:column or JSON path, and what was expected. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/scenario.h"
#include "tests/testutil.h"

#define TYPES "\"node_types\": [{\"name\": \"g\", \"gpu\": \"A100-SXM-80GB\", \"gpus\": 8, \"cpu\": \"Xeon-8380\", \"sockets\": 2, \"mem_gib\": 1024}]"
#define RACKS "\"racks\": [{\"name\": \"r\", \"power_kw\": 20, \"cooling\": \"air\", \"nodes\": [{\"type\": \"g\", \"count\": 2}]}]"
#define WL "\"workload\": {\"synthetic\": {\"days\": 1, \"classes\": {\"training\": {\"rate_per_h\": 1, \"dur_median_s\": 60, \"dur_sigma\": 1, \"mix\": [[1, 1]]}}}}"

/* Loads `text` as a scenario file; returns the error ("" on success). */
static char *load(const char *text, char *err, size_t len)
{
	char *path = tu_write_tmp(".json", text);
	struct scenario sc;
	err[0] = 0;
	if (scenario_load(path, &sc, err, len) == 0)
		scenario_free(&sc);
	else
		assert_non_null(strstr(err, path));   /* every error names the file */
	unlink(path);
	free(path);
	return err;
}

static void expect(const char *text, const char *want1, const char *want2)
{
	char err[1024];
	load(text, err, sizeof err);
	if (!strstr(err, want1) || (want2 && !strstr(err, want2)))
		fail_msg("error \"%s\" lacks \"%s\"%s%s", err, want1, want2 ? " / " : "", want2 ? want2 : "");
}

static void test_valid(void **state)
{
	(void)state;
	char err[1024];
	char *path = tu_write_tmp(".json", "{\"name\": \"t\", " TYPES ", " RACKS ", " WL "}");
	struct scenario sc;
	assert_int_equal(scenario_load(path, &sc, err, sizeof err), 0);
	assert_int_equal(sc.cl.nnodes, 2);
	assert_int_equal(sc.cl.total_gpus, 16);
	assert_int_equal(sc.cl.total_cores, 160);   /* 2 nodes × 2 sockets × 40 cores (Xeon 8380) */
	scenario_free(&sc);
	unlink(path);
	free(path);
}

static void test_syntax_error_line_col(void **state)
{
	(void)state;
	expect("{\n  \"name\": \"t\",\n  \"seed\": 1,,\n}", ":3:", NULL);
}

static void test_unknown_key(void **state)
{
	(void)state;
	expect("{\"name\": \"t\", \"nodez\": 1, " TYPES ", " RACKS ", " WL "}", "$: unknown key \"nodez\"", NULL);
	expect("{\"name\": \"t\", " TYPES ", \"racks\": [{\"name\": \"r\", \"power_kw\": 20, \"nodes\": [{\"type\": \"g\", \"count\": 1, \"gpus\": 2}]}], " WL "}",
	       "$.racks[0].nodes[0]", "unknown key \"gpus\"");
}

static void test_wrong_type(void **state)
{
	(void)state;
	expect("{\"name\": \"t\", \"seed\": \"one\", " TYPES ", " RACKS ", " WL "}", "$.seed", "expected an integer");
	expect("{\"name\": 5, " TYPES ", " RACKS ", " WL "}", "$.name", "expected a string");
}

static void test_missing_field(void **state)
{
	(void)state;
	expect("{" TYPES ", " RACKS ", " WL "}", "$.name", "missing");
	/* Without "workload" a scenario loads (live mode's cluster) and says so. */
	char err[1024];
	char *path = tu_write_tmp(".json", "{\"name\": \"t\", " TYPES ", " RACKS "}");
	struct scenario sc;
	assert_int_equal(scenario_load(path, &sc, err, sizeof err), 0);
	assert_false(sc.has_workload);
	scenario_free(&sc);
	unlink(path);
	free(path);
	/* Names for the nodes: one per node, each used once. */
	expect("{\"name\": \"t\", " TYPES ", \"racks\": [{\"name\": \"r\", \"power_kw\": 20, \"nodes\": [{\"type\": \"g\", \"count\": 2, \"names\": [\"a\"]}]}]}",
	       "$.racks[0].nodes[0].names", "expected an array of 2 node names");
	expect("{\"name\": \"t\", " TYPES ", \"racks\": [{\"name\": \"r\", \"power_kw\": 20, \"nodes\": [{\"type\": \"g\", \"count\": 2, \"names\": [\"a\", \"a\"]}]}]}",
	       "$.racks[0].nodes[0].names[1]", "used twice");
	expect("{\"name\": \"t\", " TYPES ", \"racks\": [{\"name\": \"r\", \"nodes\": []}], " WL "}", "$.racks[0].power_kw", "missing");
}

static void test_negative_count(void **state)
{
	(void)state;
	expect("{\"name\": \"t\", " TYPES ", \"racks\": [{\"name\": \"r\", \"power_kw\": 20, \"nodes\": [{\"type\": \"g\", \"count\": -3}]}], " WL "}",
	       "$.racks[0].nodes[0].count", "got -3");
}

static void test_unknown_models(void **state)
{
	(void)state;
	expect("{\"name\": \"t\", \"node_types\": [{\"name\": \"g\", \"gpu\": \"B300\", \"gpus\": 8, \"cpu\": \"Xeon-8380\", \"mem_gib\": 1}], " RACKS ", " WL "}",
	       "$.node_types[0]", "unknown GPU model \"B300\"");
	expect("{\"name\": \"t\", \"node_types\": [{\"name\": \"g\", \"cpu\": \"i486\", \"mem_gib\": 1}], " RACKS ", " WL "}",
	       "$.node_types[0]", "unknown CPU model");
	expect("{\"name\": \"t\", " TYPES ", \"racks\": [{\"name\": \"r\", \"power_kw\": 20, \"nodes\": [{\"type\": \"zz\", \"count\": 1}]}], " WL "}",
	       "$.racks[0].nodes[0]", "unknown node type");
}

static void test_bad_workload(void **state)
{
	(void)state;
	expect("{\"name\": \"t\", " TYPES ", " RACKS ", \"workload\": {\"synthetic\": {\"classes\": {\"training\": {\"rate_per_h\": 1, \"dur_median_s\": 60, \"dur_sigma\": 1, \"mix\": [[1, 0.5]]}}}}}",
	       "$.workload.synthetic.classes.training.mix", "sum to 0.5");
	expect("{\"name\": \"t\", " TYPES ", " RACKS ", \"workload\": {\"synthetic\": {\"classes\": {\"gaming\": {}}}}}",
	       "$.workload.synthetic.classes.gaming", "unknown class");
	expect("{\"name\": \"t\", " TYPES ", " RACKS ", \"workload\": {}}", "$.workload", "exactly one");
}

/* The generator's keys: distributions and their parameters, profiles,
 * mixes, GPU models, knobs. */
#define CLS(body) "{\"name\": \"t\", " TYPES ", " RACKS ", \"workload\": {\"synthetic\": {" body "}}}"
static void test_generator_keys(void **state)
{
	(void)state;
	char err[1024];
	char *path = tu_write_tmp(".json", CLS("\"scale\": {\"rate\": 1.4, \"classes\": {\"batch\": 0.5}}, "
	    "\"classes\": {\"batch\": {\"rate_per_h\": 2, \"dur_dist\": \"weibull\", \"dur_shape\": 0.6, "
	    "\"dur_scale_s\": 900, \"profile_daily\": [1,1,1,1,1,1,1,1,1,3,3,3,3,3,3,3,3,3,1,1,1,1,1,1], "
	    "\"profile_weekly\": [1,1,1,1,1,0.5,0.5], \"mix\": [[0, 0.5], [2, 0.5]], \"cpu_mix\": [[4, 1]], "
	    "\"gpu_models\": [\"A100-SXM-80GB\"], \"tenants\": 2, \"tenant_weights\": [1, 3], \"ckpt_every_s\": 600}}"));
	struct scenario sc;
	if (scenario_load(path, &sc, err, sizeof err))
		fail_msg("%s", err);
	const struct synth_class *k = &sc.synth.cls[JOB_BATCH];
	assert_int_equal(k->dur_dist, SYNTH_WEIBULL);
	assert_true(k->profile[9] == 3 && k->profile[5 * 24 + 9] == 1.5 && k->profile[0] == 1);
	assert_int_equal(k->ncpu_mix, 1);
	assert_true(k->gpu_models == 1ull << catalog_find_gpu(&sc.cl.cat, "A100-SXM-80GB"));
	assert_true(sc.synth.scale_rate == 1.4 && sc.synth.class_scale[JOB_BATCH] == 0.5);
	assert_true(sc.synth.scale_size == 1 && sc.synth.class_scale[JOB_DEV] == 1);
	scenario_free(&sc);
	unlink(path);
	free(path);

	expect(CLS("\"classes\": {\"batch\": {\"rate_per_h\": 2, \"dur_dist\": \"pareto\", \"mix\": [[0, 1]]}}"),
	       "$.workload.synthetic.classes.batch.dur_dist", "expected lognormal, weibull, gamma or empirical");
	expect(CLS("\"classes\": {\"batch\": {\"rate_per_h\": 2, \"dur_dist\": \"gamma\", \"dur_median_s\": 5, \"mix\": [[0, 1]]}}"),
	       "$.workload.synthetic.classes.batch.dur_median_s", "not a parameter of the gamma distribution");
	expect(CLS("\"classes\": {\"batch\": {\"rate_per_h\": 2, \"dur_dist\": \"gamma\", \"dur_shape\": 2, \"mix\": [[0, 1]]}}"),
	       "$.workload.synthetic.classes.batch.dur_scale_s", "missing");
	expect(CLS("\"classes\": {\"batch\": {\"rate_per_h\": 2, \"dur_dist\": \"empirical\", \"dur_quantiles_s\": [5, 3], \"mix\": [[0, 1]]}}"),
	       "$.workload.synthetic.classes.batch.dur_quantiles_s", "must not decrease");
	expect(CLS("\"classes\": {\"batch\": {\"rate_per_h\": 2, \"dur_median_s\": 5, \"dur_sigma\": 1, \"profile\": [1, 2], \"mix\": [[0, 1]]}}"),
	       "$.workload.synthetic.classes.batch.profile", "an array of 168 numbers");
	expect(CLS("\"classes\": {\"batch\": {\"rate_per_h\": 2, \"dur_median_s\": 5, \"dur_sigma\": 1, \"gpu_models\": [\"B300\"], \"mix\": [[1, 1]]}}"),
	       "$.workload.synthetic.classes.batch.gpu_models[0]", "catalog GPU model name");
	expect(CLS("\"classes\": {\"batch\": {\"rate_per_h\": 2, \"dur_median_s\": 5, \"dur_sigma\": 1, \"tenants\": 3, \"tenant_weights\": [1], \"mix\": [[0, 1]]}}"),
	       "$.workload.synthetic.classes.batch.tenant_weights", "1 weights for 3 tenants");
	expect(CLS("\"scale\": {\"classes\": {\"gpu\": 2}}, \"classes\": {}"), "$.workload.synthetic.scale.classes.gpu", "unknown class");
}

static void test_embedded_default_loads(void **state)
{
	(void)state;
	char err[1024];
	struct scenario sc;
	if (scenario_load(NULL, &sc, err, sizeof err))
		fail_msg("%s", err);
	assert_true(sc.cl.total_gpus > 0);
	assert_int_equal(sc.workload, SCN_SYNTH);
	scenario_free(&sc);
}

/* Sizing a cluster from an SWF header: every combination of MaxProcs and
 * MaxNodes, and the headers that cannot size one. */
static void size_from(long procs, long nodes, int type_cores, int want_nodes, int want_cores,
                      const char *want_err)
{
	char text[1024], err[1024] = "";
	snprintf(text, sizeof text, "{\"name\": \"t\", \"node_types\": [{\"name\": \"n\", \"cpu\": \"generic-core\", "
	         "\"cores\": %d, \"mem_gib\": 1}], \"from_trace\": {\"type\": \"n\"}, \"workload\": {\"trace\": \"x.swf\"}}",
	         type_cores);
	char *path = tu_write_tmp(".json", text);
	struct scenario sc;
	if (scenario_load(path, &sc, err, sizeof err))
		fail_msg("%s", err);
	struct workload w;
	workload_init(&w);
	w.max_procs = (int32_t)procs;
	w.max_nodes = (int32_t)nodes;
	int rc = scenario_size_from_trace(&sc, &w, err, sizeof err);
	if (want_err) {
		assert_int_equal(rc, -1);
		if (!strstr(err, want_err))
			fail_msg("error \"%s\" lacks \"%s\"", err, want_err);
	} else {
		if (rc)
			fail_msg("%s", err);
		assert_int_equal(sc.cl.nnodes, want_nodes);
		assert_int_equal(sc.cl.total_cores, (int64_t)want_nodes * want_cores);
	}
	scenario_free(&sc);
	unlink(path);
	free(path);
}

static void test_size_from_trace(void **state)
{
	(void)state;
	size_from(100, 100, 1, 100, 1, NULL);
	size_from(240, 120, 1, 120, 2, NULL);     /* the header decides cores per node */
	size_from(128, -1, 4, 32, 4, NULL);       /* MaxProcs only: nodes of the type's cores */
	size_from(-1, 16, 8, 16, 8, NULL);        /* MaxNodes only */
	size_from(10, -1, 4, 0, 0, "not a multiple of node type");
	size_from(2, -1, 4, 0, 0, "not a multiple of node type");
	size_from(102, 25, 1, 0, 0, "not a multiple of its MaxNodes 25");
	size_from(-1, -1, 1, 0, 0, "neither MaxProcs nor MaxNodes");
}

/* Node names stay unique with the longest rack names and a count. */
static void test_long_rack_names(void **state)
{
	(void)state;
	char err[1024];
	char *path = tu_write_tmp(".json", "{\"name\": \"t\", " TYPES ", \"racks\": [{\"name\": "
	    "\"abcdefghijklmnopqrstuvwxyz01234\", \"count\": 12, \"power_kw\": 20, \"nodes\": [{\"type\": \"g\", \"count\": 11}]}], " WL "}");
	struct scenario sc;
	if (scenario_load(path, &sc, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(sc.cl.nnodes, 132);
	for (int i = 0; i < sc.cl.nnodes; i++)
		for (int k = 0; k < i; k++)
			if (strcmp(sc.cl.nodes[i].name, sc.cl.nodes[k].name) == 0)
				fail_msg("nodes %d and %d are both named %s", k, i, sc.cl.nodes[i].name);
	scenario_free(&sc);
	unlink(path);
	free(path);
}

/* 10^5 racks (the most) load in linear time: rack, leaf and node names are hashed
 * (this took minutes with the quadratic checks). */
static void test_many_racks(void **state)
{
	(void)state;
	char err[1024];
	char *path = tu_write_tmp(".json", "{\"name\": \"t\", \"sample_interval_s\": 0, " TYPES ", "
	    "\"racks\": [{\"name\": \"r\", \"count\": 99999, \"power_kw\": 20, "
	    "\"nodes\": [{\"type\": \"g\", \"count\": 1}]}, "
	    "{\"name\": \"x\", \"power_kw\": 20, \"nodes\": [{\"type\": \"g\", \"count\": 2, "
	    "\"names\": [\"h1\", \"h2\"]}]}], " WL "}");
	struct scenario sc;
	if (scenario_load(path, &sc, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(sc.cl.nracks, 100000);
	assert_int_equal(sc.cl.nleaves, 100000);
	assert_int_equal(sc.cl.nnodes, 100001);
	assert_string_equal(sc.cl.racks[99998].name, "r99999");
	assert_int_equal(cluster_find_rack(&sc.cl, "r54321"), 54320);
	assert_int_equal(cluster_find_rack(&sc.cl, "x"), 99999);
	assert_int_equal(cluster_find_rack(&sc.cl, "r0"), -1);
	assert_int_equal(cluster_find_type(&sc.cl, "g"), 0);
	assert_string_equal(sc.cl.nodes[100000].name, "h2");
	scenario_free(&sc);
	unlink(path);
	free(path);
}

/* Sizes past the limits fail at once, naming the rack entry; names used
 * twice are still found with the hashed checks. */
static void test_limits(void **state)
{
	(void)state;
	expect("{\"name\": \"t\", " TYPES ", \"racks\": [{\"name\": \"r\", \"count\": 100000, "
	       "\"power_kw\": 20, \"nodes\": [{\"type\": \"g\", \"count\": 100000}]}], " WL "}",
	       "$.racks[0]: the racks up to here hold 10000000000 nodes: more than one scenario may "
	       "hold (at most 1000000 nodes)", NULL);
	expect("{\"name\": \"t\", " TYPES ", \"racks\": [{\"name\": \"a\", \"count\": 60000, "
	       "\"power_kw\": 20, \"nodes\": [{\"type\": \"g\", \"count\": 1}]}, {\"name\": \"b\", "
	       "\"count\": 60000, \"power_kw\": 20, \"nodes\": [{\"type\": \"g\", \"count\": 1}]}], " WL "}",
	       "$.racks[1]: the racks up to here number 120000", "(at most 100000 racks)");
	expect("{\"name\": \"t\", " TYPES ", \"racks\": [{\"name\": \"a\", \"count\": 100001, "
	       "\"power_kw\": 20, \"nodes\": [{\"type\": \"g\", \"count\": 1}]}], " WL "}",
	       "$.racks[0].count: expected an integer in [0, 100000], got 100001", NULL);
	expect("{\"name\": \"t\", " TYPES ", \"racks\": [{\"name\": \"a\", \"count\": 1000000000000000000, "
	       "\"power_kw\": 20, \"nodes\": [{\"type\": \"g\", \"count\": 100000}]}], " WL "}",
	       "$.racks[0].count: expected an integer in [0, 100000], got 1000000000000000000", NULL);
	expect("{\"name\": \"t\", " TYPES ", \"racks\": [{\"name\": \"a\", \"count\": 3, "
	       "\"power_kw\": 20, \"nodes\": [{\"type\": \"g\", \"count\": 1}]}, {\"name\": \"a02\", "
	       "\"power_kw\": 20, \"nodes\": [{\"type\": \"g\", \"count\": 1}]}], " WL "}",
	       "$.racks[1]: rack name \"a02\" used twice", NULL);
	expect("{\"name\": \"t\", " TYPES ", \"racks\": [{\"name\": \"a\", \"count\": 2, "
	       "\"power_kw\": 20, \"nodes\": [{\"type\": \"g\", \"count\": 1}]}, {\"name\": \"b\", "
	       "\"power_kw\": 20, \"nodes\": [{\"type\": \"g\", \"count\": 2, \"names\": [\"h\", \"a02-n1\"]}]}], "
	       WL "}", "$.racks[1].nodes[0].names[1]: node name \"a02-n1\" is used twice", NULL);
	expect("{\"name\": \"t\", " TYPES ", \"racks\": [{\"name\": \"b\", "
	       "\"power_kw\": 20, \"nodes\": [{\"type\": \"g\", \"count\": 3, \"names\": [\"h\", \"i\", \"h\"]}]}], "
	       WL "}", "$.racks[0].nodes[0].names[2]: node name \"h\" is used twice", NULL);
	expect("{\"name\": \"t\", \"node_types\": [{\"name\": \"g\", \"cores\": 4, \"mem_gib\": 1}, "
	       "{\"name\": \"g\", \"cores\": 4, \"mem_gib\": 1}], " RACKS ", " WL "}",
	       "$.node_types[1]: node type \"g\" defined twice", NULL);
}

/* sample_interval_s: 0 (off) or at least 1 s; a microsecond wrote 542 MB a minute. */
static void test_sample_floor(void **state)
{
	(void)state;
	expect("{\"name\": \"t\", \"sample_interval_s\": 0.000001, " TYPES ", " RACKS ", " WL "}",
	       "$.sample_interval_s: expected 0 (no samples) or at least 1 s, got 1e-06", NULL);
	expect("{\"name\": \"t\", \"sample_interval_s\": 0.5, " TYPES ", " RACKS ", " WL "}",
	       "$.sample_interval_s: expected 0 (no samples) or at least 1 s, got 0.5", NULL);
	char err[1024];
	assert_string_equal(load("{\"name\": \"t\", \"sample_interval_s\": 0, " TYPES ", " RACKS ", " WL "}",
	                         err, sizeof err), "");
	assert_string_equal(load("{\"name\": \"t\", \"sample_interval_s\": 1, " TYPES ", " RACKS ", " WL "}",
	                         err, sizeof err), "");
}

/* A UTF-8 byte-order mark is skipped (as the CSV readers do); a directory
 * says so instead of a JSON error. */
static void test_bom_and_directory(void **state)
{
	(void)state;
	char err[1024];
	assert_string_equal(load("\xEF\xBB\xBF{\"name\": \"t\", " TYPES ", " RACKS ", " WL "}", err,
	                         sizeof err), "");
	load("\xEF\xBB\xBF{\"name\": 1, " TYPES ", " RACKS ", " WL "}", err, sizeof err);
	assert_non_null(strstr(err, "$.name: expected a string, got an integer"));
	struct scenario sc;
	assert_int_equal(scenario_load("/tmp", &sc, err, sizeof err), -1);
	assert_string_equal(err, "/tmp: is a directory (expected a JSON file)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_syntax_error_line_col),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_wrong_type),
		cmocka_unit_test(test_missing_field),
		cmocka_unit_test(test_negative_count),
		cmocka_unit_test(test_unknown_models),
		cmocka_unit_test(test_bad_workload),
		cmocka_unit_test(test_embedded_default_loads),
		cmocka_unit_test(test_generator_keys),
		cmocka_unit_test(test_size_from_trace),
		cmocka_unit_test(test_long_rack_names),
		cmocka_unit_test(test_many_racks),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_sample_floor),
		cmocka_unit_test(test_bom_and_directory),
	};
	return cmocka_run_group_tests_name("scenario", tests, NULL, NULL);
}
