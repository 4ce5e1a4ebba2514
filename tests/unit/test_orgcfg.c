/* The scenario's "org" and "events" keys (config/orgcfg.c): good blocks
 * fill struct org with what they say and the defaults for what they leave
 * out; every bad one is refused with a message that names the JSON path
 * and what was expected, and leaves the org empty. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cluster.h"
#include "sim/org.h"
#include "config/jv.h"
#include "config/orgcfg.h"
#include "config/scenario.h"

static struct catalog cat;

static int setup(void **state)
{
	(void)state;
	char err[512];
	memset(&cat, 0, sizeof cat);
	if (catalog_load_builtin(&cat, err, sizeof err))
		fail_msg("%s", err);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	catalog_fini(&cat);
	return 0;
}

/* Loads scenario text (its "org" and "events") into *o. */
static int load(const char *text, struct org *o, char *err, size_t len)
{
	json_error_t je;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		fail_msg("test JSON does not parse: %s (%s)", je.text, text);
	struct jv v = { .file = "s.json", .err = err, .errlen = len };
	err[0] = '\0';
	int rc = org_load(&v, &cat, root, o);
	json_decref(root);
	if (rc == 0) {
		assert_false(v.failed);
	} else {
		assert_non_null(strstr(err, "s.json: $"));   /* the file and a JSON path */
		/* nothing half-written */
		assert_int_equal(o->nt, 0);
		assert_int_equal(o->np, 0);
		assert_int_equal(o->napprove, 0);
		assert_null(o->t);
		assert_null(o->gpu_weight);
	}
	return rc;
}

/* `text` must fail with a message holding want1 (and want2). */
static void expect(const char *text, const char *want1, const char *want2)
{
	struct org o;
	char err[1024];
	if (load(text, &o, err, sizeof err) == 0) {
		org_fini(&o);
		fail_msg("%s loaded, expected an error with \"%s\"", text, want1);
	}
	if (!strstr(err, want1) || (want2 && !strstr(err, want2)))
		fail_msg("error \"%s\" lacks \"%s\"%s%s", err, want1, want2 ? " / " : "", want2 ? want2 : "");
	org_fini(&o);
}

static void test_defaults(void **state)
{
	(void)state;
	struct org o;
	char err[512];
	assert_int_equal(load("{\"name\": \"x\"}", &o, err, sizeof err), 0);
	assert_int_equal(o.nt, 0);
	assert_int_equal(o.napprove, 0);
	assert_float_equal(o.halflife_s, 7 * 86400.0, 1e-9);
	assert_float_equal(o.core_weight, 0, 1e-12);
	assert_null(o.gpu_weight);
	org_fini(&o);
	org_init(&o);
	assert_float_equal(o.halflife_s, 7 * 86400.0, 1e-9);
	org_fini(&o);
}

static void test_full(void **state)
{
	(void)state;
	struct org o;
	char err[512];
	const char *text =
		"{\"org\": {\"halflife_days\": 2.5, \"gpu_weights\": {\"H100-SXM-80GB\": 2.0, \"T4-16GB\": 0.25},"
		"  \"core_weight\": 0.01,"
		"  \"tenants\": ["
		"    {\"name\": \"t0\", \"shares\": 3, \"auto_approve\": true,"
		"     \"quota\": {\"gpu_hours\": 500, \"core_hours\": 100, \"storage_gib\": 20, \"bw_mbps\": 800,"
		"                \"window_days\": 7},"
		"     \"projects\": [{\"name\": \"p0\", \"shares\": 1, \"quota\": {\"gpu_hours\": 50}},"
		"                   {\"name\": \"p1\", \"shares\": 4}]},"
		"    {\"name\": \"t1\"}]},"
		" \"events\": [{\"at\": \"2d\", \"approve\": \"t1\"}, {\"at\": 3600, \"approve\": \"t0\"},"
		"             {\"at\": \"36h\", \"approve\": \"t0\"}, {\"at\": \"90m\", \"approve\": \"t1\"},"
		"             {\"at\": \"3600s\", \"approve\": \"t1\"}]}";
	assert_int_equal(load(text, &o, err, sizeof err), 0);
	assert_float_equal(o.halflife_s, 2.5 * 86400, 1e-6);
	assert_float_equal(o.core_weight, 0.01, 1e-12);
	assert_int_equal(o.ngpu_weight, cat.ngpus);
	for (int m = 0; m < cat.ngpus; m++) {
		double want = strcmp(cat.gpus[m].name, "H100-SXM-80GB") == 0 ? 2.0
		            : strcmp(cat.gpus[m].name, "T4-16GB") == 0 ? 0.25 : 1.0;
		assert_float_equal(o.gpu_weight[m], want, 1e-12);
	}
	assert_int_equal(o.nt, 2);
	assert_string_equal(o.t[0].name, "t0");
	assert_float_equal(o.t[0].shares, 3, 1e-12);
	assert_true(o.t[0].auto_approve);
	assert_float_equal(o.t[0].quota.gpu_hours, 500, 1e-12);
	assert_float_equal(o.t[0].quota.core_hours, 100, 1e-12);
	assert_float_equal(o.t[0].quota.storage_gib, 20, 1e-12);
	assert_float_equal(o.t[0].quota.bw_mbps, 800, 1e-12);
	assert_true(o.t[0].quota.window_us == 7 * SIMTIME_DAY);
	assert_int_equal(o.t[0].first_project, 0);
	assert_int_equal(o.t[0].nprojects, 2);
	assert_int_equal(o.np, 2);
	assert_string_equal(o.p[0].name, "p0");
	assert_float_equal(o.p[0].quota.gpu_hours, 50, 1e-12);
	assert_true(o.p[0].quota.window_us == 30 * SIMTIME_DAY);
	assert_float_equal(o.p[1].shares, 4, 1e-12);
	assert_float_equal(o.p[1].quota.gpu_hours, 0, 1e-12);   /* unlimited */
	/* t1: every default */
	assert_string_equal(o.t[1].name, "t1");
	assert_float_equal(o.t[1].shares, 1, 1e-12);
	assert_false(o.t[1].auto_approve);
	assert_true(o.t[1].quota.window_us == 30 * SIMTIME_DAY);
	assert_int_equal(o.t[1].nprojects, 0);
	assert_int_equal(o.t[1].first_project, 2);
	/* events sorted by time, ties in file order */
	assert_int_equal(o.napprove, 5);
	static const struct { simtime at; int t; } want[] = {
		{ 3600 * SIMTIME_SEC, 0 }, { 3600 * SIMTIME_SEC, 1 }, { 5400 * SIMTIME_SEC, 1 },
		{ 36 * SIMTIME_HOUR, 0 }, { 2 * SIMTIME_DAY, 1 },
	};
	for (int k = 0; k < 5; k++) {
		assert_true(o.approve[k].at_us == want[k].at);
		assert_int_equal(o.approve[k].tenant, want[k].t);
	}
	const struct org_tenant *t = org_tenant(&o, 1);
	assert_non_null(t);
	assert_null(org_tenant(&o, 2));
	org_fini(&o);
	assert_null(o.t);
}

static void test_times(void **state)
{
	(void)state;
	static const struct { const char *at; simtime us; } ok[] = {
		{ "0", 0 }, { "1.5", 1500000 }, { "\"0.5d\"", 43200 * SIMTIME_SEC }, { "\"1e2s\"", 100 * SIMTIME_SEC },
		{ "\"2m\"", 120 * SIMTIME_SEC },
	};
	for (size_t k = 0; k < sizeof ok / sizeof *ok; k++) {
		char text[256], err[512];
		struct org o;
		snprintf(text, sizeof text, "{\"org\": {\"tenants\": [{\"name\": \"a\"}]},"
		         " \"events\": [{\"at\": %s, \"approve\": \"a\"}]}", ok[k].at);
		assert_int_equal(load(text, &o, err, sizeof err), 0);
		assert_true(o.approve[0].at_us == ok[k].us);
		org_fini(&o);
	}
	static const char *const bad[] = { "\"2x\"", "\"2\"", "\"d\"", "\"-1h\"", "\" 2h\"", "\"2h \"", "-3",
	                                   "true", "\"infd\"", "\"nanh\"", "\"2dd\"" };
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		char text[256];
		snprintf(text, sizeof text, "{\"org\": {\"tenants\": [{\"name\": \"a\"}]},"
		         " \"events\": [{\"at\": %s, \"approve\": \"a\"}]}", bad[k]);
		expect(text, "$.events[0].at: expected a time: seconds", "\"36h\"");
	}
}

static void test_errors(void **state)
{
	(void)state;
	expect("{\"org\": []}", "$.org: expected an object", NULL);
	expect("{\"org\": {\"tenant\": []}}", "$.org: unknown key \"tenant\"",
	       "expected one of: halflife_days, gpu_weights, core_weight, tenants");
	expect("{\"org\": {\"halflife_days\": 0}}", "$.org.halflife_days: expected a number in (0, 100000], got 0", NULL);
	expect("{\"org\": {\"core_weight\": -1}}", "$.org.core_weight: expected a number in [0, 1e+06], got -1", NULL);
	expect("{\"org\": {\"gpu_weights\": {\"H100\": 2}}}", "$.org.gpu_weights.H100: unknown GPU model \"H100\"",
	       "(the catalog has: H100-SXM-80GB, ");
	expect("{\"org\": {\"gpu_weights\": {\"T4-16GB\": 0}}}", "$.org.gpu_weights.T4-16GB: expected a number in (0, 1e+06], got 0", NULL);
	expect("{\"org\": {\"gpu_weights\": {\"T4-16GB\": \"2\"}}}", "$.org.gpu_weights.T4-16GB: expected a number", "got a string");
	expect("{\"org\": {\"gpu_weights\": [1]}}", "$.org.gpu_weights: expected an object of catalog GPU model", NULL);
	expect("{\"org\": {\"tenants\": {}}}", "$.org.tenants: expected an array, got an object", NULL);
	expect("{\"org\": {\"tenants\": [{\"shares\": 1}]}}", "$.org.tenants[0].name: missing (expected a string)", NULL);
	expect("{\"org\": {\"tenants\": [{\"name\": \"\"}]}}", "$.org.tenants[0].name: expected a non-empty string", NULL);
	expect("{\"org\": {\"tenants\": [{\"name\": \"a\", \"share\": 1}]}}", "$.org.tenants[0]: unknown key \"share\"",
	       "expected one of: name, shares, auto_approve, quota, projects");
	expect("{\"org\": {\"tenants\": [{\"name\": \"a\", \"shares\": 0}]}}",
	       "$.org.tenants[0].shares: expected a number in (0, 1e+09], got 0", NULL);
	expect("{\"org\": {\"tenants\": [{\"name\": \"a\"}, {\"name\": \"a\"}]}}",
	       "$.org.tenants[1]: tenant \"a\" defined twice (also at index 0)", NULL);
	expect("{\"org\": {\"tenants\": [{\"name\": \"a\", \"auto_approve\": 1}]}}",
	       "$.org.tenants[0].auto_approve: expected true or false, got an integer", NULL);
	expect("{\"org\": {\"tenants\": [{\"name\": \"a\", \"quota\": 5}]}}",
	       "$.org.tenants[0].quota: expected an object of gpu_hours", NULL);
	expect("{\"org\": {\"tenants\": [{\"name\": \"a\", \"quota\": {\"gpu_hours\": -1}}]}}",
	       "$.org.tenants[0].quota.gpu_hours: expected a number in [0, 1e+12], got -1", NULL);
	expect("{\"org\": {\"tenants\": [{\"name\": \"a\", \"quota\": {\"gpu_h\": 1}}]}}",
	       "$.org.tenants[0].quota: unknown key \"gpu_h\"",
	       "gpu_hours, core_hours, storage_gib, bw_mbps, window_days");
	expect("{\"org\": {\"tenants\": [{\"name\": \"a\", \"quota\": {\"window_days\": 0}}]}}",
	       "$.org.tenants[0].quota.window_days: expected a number in (0, 100000], got 0", NULL);
	expect("{\"org\": {\"tenants\": [{\"name\": \"a\", \"projects\": [{\"name\": \"p\"}, {\"name\": \"p\"}]}]}}",
	       "$.org.tenants[0].projects[1]: project \"p\" of tenant \"a\" defined twice", NULL);
	expect("{\"org\": {\"tenants\": [{\"name\": \"a\", \"projects\": [{\"name\": \"p\", \"auto_approve\": true}]}]}}",
	       "$.org.tenants[0].projects[0]: unknown key \"auto_approve\"", "expected one of: name, shares, quota");
	expect("{\"org\": {\"tenants\": [{\"name\": \"a\", \"projects\": [{\"name\": \"p\", \"quota\": {\"core_hours\": \"x\"}}]}]}}",
	       "$.org.tenants[0].projects[0].quota.core_hours: expected a number", "got a string");
	/* a project name may repeat under another tenant */
	struct org o;
	char err[512];
	assert_int_equal(load("{\"org\": {\"tenants\": [{\"name\": \"a\", \"projects\": [{\"name\": \"p\"}]},"
	                      " {\"name\": \"b\", \"projects\": [{\"name\": \"p\"}]}]}}", &o, err, sizeof err), 0);
	assert_int_equal(o.np, 2);
	assert_int_equal(o.t[1].first_project, 1);
	org_fini(&o);
}

static void test_event_errors(void **state)
{
	(void)state;
	const char *org = "\"org\": {\"tenants\": [{\"name\": \"t0\"}, {\"name\": \"t1\"}]}";
	char text[512];
	snprintf(text, sizeof text, "{%s, \"events\": {}}", org);
	expect(text, "$.events: expected an array, got an object", NULL);
	snprintf(text, sizeof text, "{%s, \"events\": [5]}", org);
	expect(text, "$.events[0]: expected an object, got an integer", NULL);
	snprintf(text, sizeof text, "{%s, \"events\": [{\"at\": \"1h\", \"aprove\": \"t0\"}]}", org);
	expect(text, "$.events[0]: unknown key \"aprove\"", "(expected one of: at, approve)");
	snprintf(text, sizeof text, "{%s, \"events\": [{\"approve\": \"t0\"}]}", org);
	expect(text, "$.events[0].at: missing", NULL);
	snprintf(text, sizeof text, "{%s, \"events\": [{\"at\": \"1h\"}]}", org);
	expect(text, "$.events[0]: expected an event kind besides \"at\" (one of: approve, rack_cap_kw, inlet_c, cooling_r_factor)", NULL);
	snprintf(text, sizeof text, "{%s, \"events\": [{\"at\": \"1h\", \"approve\": 0}]}", org);
	expect(text, "$.events[0].approve: expected a tenant name (a string), got an integer", NULL);
	snprintf(text, sizeof text, "{%s, \"events\": [{\"at\": 1, \"approve\": \"t0\"}, {\"at\": \"1h\", \"approve\": \"t2\"}]}", org);
	expect(text, "$.events[1].approve: unknown tenant \"t2\" ($.org.tenants has: t0, t1)", NULL);
	expect("{\"events\": [{\"at\": \"1h\", \"approve\": \"t0\"}]}",
	       "$.events[0].approve: unknown tenant \"t0\" ($.org.tenants lists none)", NULL);
	/* an empty list is fine */
	struct org o;
	char err[512];
	assert_int_equal(load("{\"events\": []}", &o, err, sizeof err), 0);
	assert_int_equal(o.napprove, 0);
	org_fini(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_event_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
