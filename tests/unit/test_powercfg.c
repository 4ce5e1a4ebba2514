/* Power block and environment event loader (config/powercfg.c): good
 * blocks override power_cfg_defaults() key by key, every bad one fails
 * with the file and the JSON path in its message and leaves the defaults,
 * and environment events come out resolved and in time order. */
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
#include "sim/power.h"
#include "config/jv.h"
#include "config/powercfg.h"

static json_t *parse(const char *text)
{
	json_error_t je;
	json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!o)
		fail_msg("test JSON does not parse: %s (%s)", je.text, text);
	return o;
}

/* Loads the scenario object `text` into *cfg; err gets the message. */
static int load(const char *text, struct power_cfg *cfg, char *err, size_t len)
{
	json_t *o = parse(text);
	struct jv v = { .file = "scn.json", .err = err, .errlen = len };
	err[0] = '\0';
	memset(cfg, 0x5a, sizeof *cfg);
	int rc = power_load(&v, o, cfg);
	json_decref(o);
	assert_int_equal(rc != 0, v.failed);
	return rc;
}

/* Field by field: struct copies need not keep padding bytes. */
static bool cfg_equal(const struct power_cfg *a, const struct power_cfg *b)
{
	bool eq = a->enabled == b->enabled && a->warn_frac == b->warn_frac && a->resume_frac == b->resume_frac &&
	          a->react_us == b->react_us && a->min_throttle == b->min_throttle &&
	          a->speed_exp == b->speed_exp && a->thermal_throttle == b->thermal_throttle &&
	          a->site.mean_c == b->site.mean_c && a->site.amplitude_c == b->site.amplitude_c &&
	          a->site.peak_hour == b->site.peak_hour;
	for (int k = 0; k < COOL_N; k++)
		eq = eq && memcmp(&a->cool[k], &b->cool[k], sizeof a->cool[k]) == 0;   /* doubles only */
	for (int h = 0; h < 24; h++)
		eq = eq && a->site.price_kwh[h] == b->site.price_kwh[h] && a->site.carbon_g_kwh[h] == b->site.carbon_g_kwh[h];
	return eq;
}

/* `text` must fail with a message naming the file and holding want1 (and
 * want2); the configuration is the defaults afterwards. */
static void expect(const char *text, const char *want1, const char *want2)
{
	struct power_cfg cfg, def;
	char err[1024];
	power_cfg_defaults(&def);
	if (load(text, &cfg, err, sizeof err) == 0)
		fail_msg("%s loaded, expected an error with \"%s\"", text, want1);
	if (strncmp(err, "scn.json: $", 11) != 0 || !strstr(err, want1) || (want2 && !strstr(err, want2)))
		fail_msg("error \"%s\" lacks \"scn.json: $\", \"%s\"%s%s", err, want1, want2 ? " / " : "",
		         want2 ? want2 : "");
	assert_true(cfg_equal(&cfg, &def));
}

static void test_absent_and_empty(void **st)
{
	(void)st;
	struct power_cfg cfg, def;
	char err[512];
	power_cfg_defaults(&def);
	assert_int_equal(load("{\"name\": \"x\"}", &cfg, err, sizeof err), 0);
	assert_true(cfg_equal(&cfg, &def));
	assert_false(cfg.enabled);
	assert_int_equal(load("{\"power\": {}}", &cfg, err, sizeof err), 0);
	assert_true(cfg.enabled);
	def.enabled = true;
	assert_true(cfg_equal(&cfg, &def));
}

static void test_full_block(void **st)
{
	(void)st;
	struct power_cfg cfg, def;
	char err[512];
	power_cfg_defaults(&def);
	int rc = load("{\"power\": {\"warn_frac\": 0.8, \"resume_frac\": 0.7, \"react_s\": 2.5, "
	              "\"min_throttle\": 0.3, \"speed_exp\": 0.7, \"thermal_throttle\": 0.5, "
	              "\"cooling\": {\"air\": {\"inlet_c\": 22, \"rise_c\": 50, \"tau_s\": 200, \"warn_c\": 70, "
	              "\"throttle_c\": 85, \"resume_c\": 65, \"pue_base\": 1.4, \"pue_slope\": 0.03, "
	              "\"pue_knee_c\": 12},"
	              " \"liquid\": {\"inlet_c\": 40}},"
	              "\"site\": {\"mean_c\": 20, \"amplitude_c\": 6, \"peak_hour\": 14,"
	              " \"tariff\": [{\"from_hour\": 22, \"to_hour\": 6, \"price_kwh\": 0.1},"
	              "              {\"from_hour\": 6, \"to_hour\": 18, \"price_kwh\": 0.5},"
	              "              {\"from_hour\": 18, \"to_hour\": 22, \"price_kwh\": 0.9}],"
	              " \"carbon_g_kwh\": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24]}}}",
	              &cfg, err, sizeof err);
	if (rc)
		fail_msg("%s", err);
	assert_true(cfg.enabled);
	assert_true(cfg.warn_frac == 0.8 && cfg.resume_frac == 0.7);
	assert_true(cfg.react_us == 2500000);
	assert_true(cfg.min_throttle == 0.3 && cfg.speed_exp == 0.7 && cfg.thermal_throttle == 0.5);
	const struct cooling_cfg *a = &cfg.cool[COOL_AIR], *l = &cfg.cool[COOL_LIQUID];
	assert_true(a->inlet_c == 22 && a->rise_c == 50 && a->tau_s == 200 && a->warn_c == 70);
	assert_true(a->throttle_c == 85 && a->resume_c == 65 && a->pue_base == 1.4);
	assert_true(a->pue_slope == 0.03 && a->pue_knee_c == 12);
	/* liquid: only its inlet changes */
	struct cooling_cfg want = def.cool[COOL_LIQUID];
	want.inlet_c = 40;
	assert_memory_equal(l, &want, sizeof want);
	assert_true(cfg.site.mean_c == 20 && cfg.site.amplitude_c == 6 && cfg.site.peak_hour == 14);
	for (int h = 0; h < 24; h++) {
		double p = h < 6 || h >= 22 ? 0.1 : h < 18 ? 0.5 : 0.9;
		if (cfg.site.price_kwh[h] != p)
			fail_msg("hour %d: price %g, expected %g", h, cfg.site.price_kwh[h], p);
		assert_true(cfg.site.carbon_g_kwh[h] == h + 1);
	}
	/* One price and one carbon intensity for the whole day; one entry 0-24. */
	assert_int_equal(load("{\"power\": {\"site\": {\"tariff\": 0.25, \"carbon_g_kwh\": 0}}}", &cfg, err,
	                      sizeof err), 0);
	for (int h = 0; h < 24; h++)
		assert_true(cfg.site.price_kwh[h] == 0.25 && cfg.site.carbon_g_kwh[h] == 0);
	assert_int_equal(load("{\"power\": {\"site\": {\"tariff\": [{\"from_hour\": 0, \"to_hour\": 24, "
	                      "\"price_kwh\": 2}]}}}", &cfg, err, sizeof err), 0);
	for (int h = 0; h < 24; h++)
		assert_true(cfg.site.price_kwh[h] == 2);
	/* Only warn_frac given, still above the default resume. */
	assert_int_equal(load("{\"power\": {\"warn_frac\": 0.95}}", &cfg, err, sizeof err), 0);
	assert_true(cfg.warn_frac == 0.95 && cfg.resume_frac == def.resume_frac);
}

static void test_bad_blocks(void **st)
{
	(void)st;
	expect("{\"power\": 3}", "$.power: expected an object", "warn_frac");
	expect("{\"power\": {\"warn\": 1}}", "$.power: unknown key \"warn\"", "warn_frac, resume_frac");
	expect("{\"power\": {\"warn_frac\": 0}}", "$.power.warn_frac: expected a number in (0, 1], got 0", NULL);
	expect("{\"power\": {\"warn_frac\": 1.5}}", "$.power.warn_frac:", "got 1.5");
	expect("{\"power\": {\"resume_frac\": \"x\"}}", "$.power.resume_frac: expected a number", "a string");
	expect("{\"power\": {\"warn_frac\": 0.8, \"resume_frac\": 0.8}}",
	       "$.power.resume_frac: resume_frac (0.8) must be below warn_frac (0.8)", NULL);
	expect("{\"power\": {\"warn_frac\": 0.8}}", "$.power.warn_frac: resume_frac (0.85) must be below",
	       "the other is the default");
	expect("{\"power\": {\"react_s\": -1}}", "$.power.react_s: expected a number in [0, 86400]", NULL);
	expect("{\"power\": {\"min_throttle\": 0}}", "$.power.min_throttle:", "(0, 1]");
	expect("{\"power\": {\"speed_exp\": 5}}", "$.power.speed_exp:", "[0, 4]");
	expect("{\"power\": {\"thermal_throttle\": 2}}", "$.power.thermal_throttle:", NULL);
	expect("{\"power\": {\"cooling\": []}}", "$.power.cooling: expected an object", NULL);
	expect("{\"power\": {\"cooling\": {\"water\": {}}}}", "$.power.cooling: unknown key \"water\"", "air, liquid");
	expect("{\"power\": {\"cooling\": {\"air\": 1}}}", "$.power.cooling.air: expected an object", NULL);
	expect("{\"power\": {\"cooling\": {\"air\": {\"r_c_per_w\": 1}}}}", "$.power.cooling.air: unknown key",
	       "rise_c, tau_s");
	expect("{\"power\": {\"cooling\": {\"liquid\": {\"rise_c\": 0}}}}", "$.power.cooling.liquid.rise_c:",
	       "(0, 200]");
	expect("{\"power\": {\"cooling\": {\"air\": {\"tau_s\": -5}}}}", "$.power.cooling.air.tau_s:", NULL);
	expect("{\"power\": {\"cooling\": {\"air\": {\"pue_base\": 0.9}}}}", "$.power.cooling.air.pue_base:",
	       "[1, 10]");
	expect("{\"power\": {\"cooling\": {\"air\": {\"pue_slope\": -0.1}}}}", "$.power.cooling.air.pue_slope:", NULL);
	expect("{\"power\": {\"cooling\": {\"air\": {\"warn_c\": 95, \"throttle_c\": 90}}}}",
	       "$.power.cooling.air.warn_c: warn_c (95) must be below throttle_c (90)", NULL);
	expect("{\"power\": {\"cooling\": {\"air\": {\"warn_c\": 70}}}}",
	       "$.power.cooling.air.warn_c: resume_c (75) must be below warn_c (70)", "default");
	expect("{\"power\": {\"cooling\": {\"liquid\": {\"inlet_c\": 80}}}}",
	       "$.power.cooling.liquid.inlet_c: inlet_c (80) must be below resume_c (75)", NULL);
	expect("{\"power\": {\"cooling\": {\"air\": {\"inlet_c\": 300}}}}", "$.power.cooling.air.inlet_c:", "[-60, 200]");
	expect("{\"power\": {\"site\": 1}}", "$.power.site: expected an object", NULL);
	expect("{\"power\": {\"site\": {\"peak\": 1}}}", "$.power.site: unknown key \"peak\"", "peak_hour");
	expect("{\"power\": {\"site\": {\"peak_hour\": 25}}}", "$.power.site.peak_hour:", "[0, 24]");
	expect("{\"power\": {\"site\": {\"amplitude_c\": -1}}}", "$.power.site.amplitude_c:", NULL);
	expect("{\"power\": {\"site\": {\"tariff\": []}}}", "$.power.site.tariff: expected 1 to 24 entries", NULL);
	expect("{\"power\": {\"site\": {\"tariff\": \"cheap\"}}}", "$.power.site.tariff: expected an array", NULL);
	expect("{\"power\": {\"site\": {\"tariff\": -1}}}", "$.power.site.tariff: expected a price", NULL);
	expect("{\"power\": {\"site\": {\"tariff\": [3]}}}", "$.power.site.tariff[0]: expected an object", NULL);
	expect("{\"power\": {\"site\": {\"tariff\": [{\"from_hour\": 0, \"to_hour\": 8}]}}}",
	       "$.power.site.tariff[0].price_kwh: missing", NULL);
	expect("{\"power\": {\"site\": {\"tariff\": [{\"from_hour\": 0, \"to\": 8, \"price_kwh\": 1}]}}}",
	       "$.power.site.tariff[0]: unknown key \"to\"", NULL);
	expect("{\"power\": {\"site\": {\"tariff\": [{\"from_hour\": 24, \"to_hour\": 8, \"price_kwh\": 1}]}}}",
	       "$.power.site.tariff[0].from_hour: expected an integer in [0, 23]", NULL);
	expect("{\"power\": {\"site\": {\"tariff\": [{\"from_hour\": 0.5, \"to_hour\": 8, \"price_kwh\": 1}]}}}",
	       "$.power.site.tariff[0].from_hour: expected an integer", NULL);
	expect("{\"power\": {\"site\": {\"tariff\": [{\"from_hour\": 5, \"to_hour\": 5, \"price_kwh\": 1}]}}}",
	       "$.power.site.tariff[0].to_hour: expected an hour other than from_hour", NULL);
	expect("{\"power\": {\"site\": {\"tariff\": [{\"from_hour\": 0, \"to_hour\": 8, \"price_kwh\": 1}]}}}",
	       "$.power.site.tariff: hours 8-24 have no price", NULL);
	expect("{\"power\": {\"site\": {\"tariff\": [{\"from_hour\": 0, \"to_hour\": 8, \"price_kwh\": 1},"
	       "{\"from_hour\": 10, \"to_hour\": 0, \"price_kwh\": 2}]}}}",
	       "$.power.site.tariff: hours 8-10 have no price", NULL);
	expect("{\"power\": {\"site\": {\"tariff\": [{\"from_hour\": 0, \"to_hour\": 12, \"price_kwh\": 1},"
	       "{\"from_hour\": 20, \"to_hour\": 2, \"price_kwh\": 2}]}}}",
	       "$.power.site.tariff[1]: hour 0 is already priced by $.power.site.tariff[0]", NULL);
	expect("{\"power\": {\"site\": {\"carbon_g_kwh\": [1, 2]}}}", "$.power.site.carbon_g_kwh:",
	       "an array of 24 (hours 0-23), got an array of 2");
	expect("{\"power\": {\"site\": {\"carbon_g_kwh\": \"low\"}}}", "$.power.site.carbon_g_kwh:", "a string");
	expect("{\"power\": {\"site\": {\"carbon_g_kwh\": -3}}}", "$.power.site.carbon_g_kwh: expected g CO2", NULL);
	expect("{\"power\": {\"site\": {\"carbon_g_kwh\": [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-1]}}}",
	       "$.power.site.carbon_g_kwh[23]:", "got -1");
}

/* ---- environment events ---- */

static void build(struct cluster *cl)
{
	cluster_init(cl);
	assert_true(cluster_add_rack(cl, "r1", 40000, COOL_AIR) >= 0);
	assert_true(cluster_add_rack(cl, "lq", 80000, COOL_LIQUID) >= 0);
}

static int load_ev(const struct cluster *cl, const char *text, struct env_event **ev, int32_t *n, char *err,
                   size_t len)
{
	json_t *o = parse(text);
	struct jv v = { .file = "scn.json", .err = err, .errlen = len };
	err[0] = '\0';
	*ev = (struct env_event *)&v;   /* must be overwritten */
	*n = -7;
	int rc = power_events_load(&v, cl, o, ev, n);
	json_decref(o);
	assert_int_equal(rc != 0, v.failed);
	if (rc) {
		assert_null(*ev);
		assert_int_equal(*n, 0);
	}
	return rc;
}

static void expect_ev(const struct cluster *cl, const char *text, const char *want1, const char *want2)
{
	struct env_event *ev;
	int32_t n;
	char err[1024];
	if (load_ev(cl, text, &ev, &n, err, sizeof err) == 0) {
		free(ev);
		fail_msg("%s loaded, expected an error with \"%s\"", text, want1);
	}
	if (strncmp(err, "scn.json: $", 11) != 0 || !strstr(err, want1) || (want2 && !strstr(err, want2)))
		fail_msg("error \"%s\" lacks \"scn.json: $\", \"%s\"%s%s", err, want1, want2 ? " / " : "",
		         want2 ? want2 : "");
}

static void test_events_good(void **st)
{
	(void)st;
	struct cluster cl;
	build(&cl);
	struct env_event *ev;
	int32_t n;
	char err[512];
	assert_int_equal(load_ev(&cl, "{}", &ev, &n, err, sizeof err), 0);
	assert_null(ev);
	assert_int_equal(n, 0);
	/* Approvals are orgcfg's: skipped here, even without "power". */
	assert_int_equal(load_ev(&cl, "{\"events\": [{\"at\": 5, \"approve\": \"t0\"}]}", &ev, &n, err, sizeof err), 0);
	assert_null(ev);
	assert_int_equal(n, 0);
	int rc = load_ev(&cl, "{\"power\": {}, \"events\": ["
	                 "{\"at\": \"2h\", \"cooling\": \"liquid\", \"cooling_r_factor\": 1.5},"
	                 "{\"at\": \"1h\", \"rack\": \"lq\", \"rack_cap_kw\": 20},"
	                 "{\"at\": \"30m\", \"approve\": \"t0\"},"
	                 "{\"at\": 7200, \"cooling\": \"air\", \"inlet_c\": 35},"
	                 "{\"at\": \"0.5h\", \"rack\": \"r1\", \"rack_cap_kw\": 12.5}]}",
	                 &ev, &n, err, sizeof err);
	if (rc)
		fail_msg("%s", err);
	assert_int_equal(n, 4);
	/* by time, equal times (2 h) in file order */
	assert_true(ev[0].at_us == 30 * SIMTIME_MIN && ev[0].kind == ENV_RACK_CAP && ev[0].target == 0 &&
	            ev[0].value == 12500);
	assert_true(ev[1].at_us == SIMTIME_HOUR && ev[1].kind == ENV_RACK_CAP && ev[1].target == 1 &&
	            ev[1].value == 20000);
	assert_true(ev[2].at_us == 2 * SIMTIME_HOUR && ev[2].kind == ENV_COOLING_RISE &&
	            ev[2].target == COOL_LIQUID && ev[2].value == 1.5);
	assert_true(ev[3].at_us == 2 * SIMTIME_HOUR && ev[3].kind == ENV_INLET && ev[3].target == COOL_AIR &&
	            ev[3].value == 35);
	free(ev);
	cluster_fini(&cl);
}

static void test_events_bad(void **st)
{
	(void)st;
	struct cluster cl;
	build(&cl);
	expect_ev(&cl, "{\"power\": {}, \"events\": {}}", "$.events: expected an array", NULL);
	expect_ev(&cl, "{\"power\": {}, \"events\": [1]}", "$.events[0]: expected an object", NULL);
	expect_ev(&cl, "{\"power\": {}, \"events\": [{\"at\": 1}]}",
	          "$.events[0]: expected an event kind besides \"at\"", "approve, rack_cap_kw, inlet_c, cooling_r_factor");
	expect_ev(&cl, "{\"power\": {}, \"events\": [{\"at\": 1, \"approve\": \"a\", \"inlet_c\": 3, \"cooling\": \"air\"}]}",
	          "$.events[0]: expected one event kind, got both \"approve\" and \"inlet_c\"", NULL);
	expect_ev(&cl, "{\"events\": [{\"at\": 1, \"rack\": \"r1\", \"rack_cap_kw\": 3}]}",
	          "$.events[0]: a \"rack_cap_kw\" event needs the top-level \"power\" block", NULL);
	expect_ev(&cl, "{\"power\": {}, \"events\": [{\"at\": 1, \"approve\": \"t\"}, {\"rack\": \"r1\", \"rack_cap_kw\": 3}]}",
	          "$.events[1].at: missing", NULL);
	expect_ev(&cl, "{\"power\": {}, \"events\": [{\"at\": \"2 days\", \"rack\": \"r1\", \"rack_cap_kw\": 3}]}",
	          "$.events[0].at: expected a time", "\"2 days\"");
	expect_ev(&cl, "{\"power\": {}, \"events\": [{\"at\": 1, \"rack\": \"r9\", \"rack_cap_kw\": 3}]}",
	          "$.events[0].rack: unknown rack \"r9\" (the cluster has: r1, lq)", NULL);
	expect_ev(&cl, "{\"power\": {}, \"events\": [{\"at\": 1, \"rack_cap_kw\": 3}]}",
	          "$.events[0].rack: missing", NULL);
	expect_ev(&cl, "{\"power\": {}, \"events\": [{\"at\": 1, \"rack\": \"r1\", \"rack_cap_kw\": 0}]}",
	          "$.events[0].rack_cap_kw: expected a number in [0.001, 10000]", NULL);
	expect_ev(&cl, "{\"power\": {}, \"events\": [{\"at\": 1, \"rack\": \"r1\", \"cooling\": \"air\", \"rack_cap_kw\": 3}]}",
	          "$.events[0]: unknown key \"cooling\"", "at, rack, rack_cap_kw");
	expect_ev(&cl, "{\"power\": {}, \"events\": [{\"at\": 1, \"cooling\": \"water\", \"inlet_c\": 30}]}",
	          "$.events[0].cooling: expected \"air\" or \"liquid\", got \"water\"", NULL);
	expect_ev(&cl, "{\"power\": {}, \"events\": [{\"at\": 1, \"cooling\": \"a-very-long-cooling-name\", \"inlet_c\": 30}]}",
	          "$.events[0].cooling: expected \"air\" or \"liquid\"", NULL);
	expect_ev(&cl, "{\"power\": {}, \"events\": [{\"at\": 1, \"inlet_c\": 30}]}", "$.events[0].cooling: missing", NULL);
	expect_ev(&cl, "{\"power\": {}, \"events\": [{\"at\": 1, \"cooling\": \"air\", \"inlet_c\": \"hot\"}]}",
	          "$.events[0].inlet_c: expected a number", NULL);
	expect_ev(&cl, "{\"power\": {}, \"events\": [{\"at\": 1, \"cooling\": \"air\", \"cooling_r_factor\": 0}]}",
	          "$.events[0].cooling_r_factor: expected a number in (0, 100]", NULL);
	expect_ev(&cl, "{\"power\": {}, \"events\": [{\"at\": 1, \"cooling\": \"air\", \"rack\": \"r1\", \"cooling_r_factor\": 2}]}",
	          "$.events[0]: unknown key \"rack\"", "at, cooling, cooling_r_factor");
	cluster_fini(&cl);
	/* A cluster without racks (not built yet) says so. */
	struct cluster empty;
	cluster_init(&empty);
	expect_ev(&empty, "{\"power\": {}, \"events\": [{\"at\": 1, \"rack\": \"r1\", \"rack_cap_kw\": 3}]}",
	          "$.events[0].rack: unknown rack \"r1\" (the cluster has no racks)", NULL);
	cluster_fini(&empty);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_absent_and_empty),
		cmocka_unit_test(test_full_block),
		cmocka_unit_test(test_bad_blocks),
		cmocka_unit_test(test_events_good),
		cmocka_unit_test(test_events_bad),
	};
	return cmocka_run_group_tests_name("powercfg", tests, NULL, NULL);
}
