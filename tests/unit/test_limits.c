/* Limits that keep every in-bounds input finite (docs/scenario.md and
 * docs/traces.md, "Limits"): the sample rows a run records, the label
 * expressions × nodes evaluated up front, and the hashed name lookups of a
 * cluster. Each case is a run or a load that fails at once with a message
 * naming what to change, where it used to run for hours or exhaust memory. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy.h"
#include "sim/engine.h"
#include "sim/strset.h"
#include "config/scenario.h"

static const char scenario_text[] =
	"{ \"name\": \"limits\", \"sample_interval_s\": 1,\n"
	"  \"node_types\": [ { \"name\": \"c\", \"cores\": 8, \"mem_gib\": 64 } ],\n"
	"  \"racks\": [ { \"name\": \"r\", \"count\": 3, \"power_kw\": 20, \"nodes\": [ { \"type\": \"c\", \"count\": 2 } ] } ],\n"
	"  \"workload\": { \"trace\": \"none.jsonl\" } }\n";

struct counter {
	long samples;
};

static void on_sample(void *ctx, const struct sim_sample *smp)
{
	(void)smp;
	((struct counter *)ctx)->samples++;
}

/* Runs one job submitted at submit_s that runs run_s, sampled every second,
 * with at most max_rows sample rows; returns sim_run's result and s.err. */
static int run_one(double submit_s, double run_s, int64_t max_rows, struct counter *c, char *err,
                   size_t errlen)
{
	char msg[1024];
	struct scenario sc;
	assert_int_equal(scenario_load_text(scenario_text, "limits.json", ".", &sc, msg, sizeof msg), 0);
	struct job *jobs = calloc(1, sizeof *jobs);
	struct job_truth *truth = calloc(1, sizeof *truth);
	assert_true(jobs && truth);
	job_init(&jobs[0], 0, simtime_from_s(submit_s));
	jobs[0].req.cores = 1;
	truth[0].run_us = simtime_from_s(run_s);
	const struct policy_ops *pol = policy_find("fcfs");
	assert_non_null(pol);
	struct policy_cfg cfg;
	policy_cfg_defaults(pol, &cfg);
	void *ps = NULL;
	struct policy_env env = { .cl = &sc.cl, .njobs = 1, .seed = 1 };
	assert_int_equal(pol->init ? pol->init(&ps, &env, &cfg, msg, sizeof msg) : 0, 0);
	struct sim s;
	struct sim_cfg scfg = { .horizon_us = SIMTIME_INF, .sample_every_us = sc.sample_every_us,
	                        .max_sample_rows = max_rows };
	assert_int_equal(sim_init(&s, &scfg, &sc.cl, jobs, truth, 1), 0);
	struct sim_recorder rec = { .ctx = c, .sample = on_sample };
	sim_set_recorder(&s, &rec);
	struct sim_sched sched;
	policy_to_sched(pol, ps, &sched);
	sim_set_sched(&s, &sched);
	int rc = sim_run(&s);
	snprintf(err, errlen, "%s", s.err);
	if (pol->fini)
		pol->fini(ps);
	sim_fini(&s);
	scenario_free(&sc);
	return rc;
}

/* A job that arrives after 10^9 s sampled every second: refused before
 * the first event (4 rows a sample: the run row and 3 racks). */
static void test_sample_rows_up_front(void **state)
{
	(void)state;
	char err[512];
	struct counter c = { 0 };
	assert_int_equal(run_one(1e9, 1, 0, &c, err, sizeof err), -1);
	assert_int_equal(c.samples, 0);
	if (!strstr(err, "sampling every 1 s until the last job arrives (day 11574.1) takes 4e+09 rows "
	                 "(sample and rack_sample), more than a run records (50000000): raise "
	                 "$.sample_interval_s or set $.horizon_days"))
		fail_msg("%s", err);
}

/* A job that runs long: the run stops when its samples pass the limit.
 * (It arrives after the first sample: a sample at its arrival instant,
 * before the pass that starts it, would see nothing left to sample.) */
static void test_sample_rows_at_run_time(void **state)
{
	(void)state;
	char err[512];
	struct counter c = { 0 };
	assert_int_equal(run_one(0.5, 1e6, 4000, &c, err, sizeof err), -1);
	assert_int_equal(c.samples, 1000);
	if (!strstr(err, "the run's samples pass 4000 rows (sample and rack_sample), the most a run "
	                 "records: raise $.sample_interval_s"))
		fail_msg("%s", err);
	/* Under the limit the same run ends normally. */
	c.samples = 0;
	assert_int_equal(run_one(0.5, 100, 4000, &c, err, sizeof err), 0);
	assert_int_equal(c.samples, 102);   /* t = 0 .. 101 s: the job ends at 100.5 s */
}

/* 32000 distinct label expressions over 10^4 nodes would take 320 MB and
 * 3.2·10^8 matches: refused when the workload is bound. */
static void test_selector_cells(void **state)
{
	(void)state;
	char err[512];
	struct scenario sc;
	static const char text[] =
		"{ \"name\": \"sel\", \"node_types\": [ { \"name\": \"c\", \"cores\": 8, \"mem_gib\": 64 } ],\n"
		"  \"racks\": [ { \"name\": \"r\", \"count\": 100, \"power_kw\": 20, \"nodes\": [ { \"type\": \"c\", \"count\": 100 } ] } ],\n"
		"  \"workload\": { \"trace\": \"none.jsonl\" } }\n";
	assert_int_equal(scenario_load_text(text, "sel.json", ".", &sc, err, sizeof err), 0);
	int n = 14000;
	struct job *jobs = calloc((size_t)n, sizeof *jobs);
	char **strs = calloc((size_t)n, sizeof *strs);
	assert_true(jobs && strs);
	for (int i = 0; i < n; i++) {
		job_init(&jobs[i], i, 0);
		jobs[i].req.cores = 1;
		jobs[i].req.nodes = 1;
		jobs[i].req.sel_req = (int16_t)(i + 1);
		strs[i] = malloc(32);
		snprintf(strs[i], 32, "site.k%d", i);
	}
	assert_int_equal(cluster_bind_workload(&sc.cl, strs, n, jobs, n, err, sizeof err), -1);
	if (!strstr(err, "14000 distinct label expressions over 10000 nodes: more than hetlab evaluates "
	                 "(at most 134217728 expression-node pairs"))
		fail_msg("%s", err);
	for (int i = 0; i < n; i++)
		free(strs[i]);
	free(strs);
	free(jobs);
	scenario_free(&sc);
}

static const char *name_of(const void *ctx, int32_t i)
{
	return ((const char (*)[16])ctx)[i];
}

/* The set finds every name it holds and no other, across growth. */
static void test_strset(void **state)
{
	(void)state;
	enum { N = 5000 };
	static char names[N][16];
	struct strset s = { 0 };
	assert_int_equal(strset_find(&s, "a", name_of, names), -1);
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "n%d", i * 7);
		assert_int_equal(strset_find(&s, names[i], name_of, names), -1);
		assert_int_equal(strset_add(&s, names[i], i), 0);
	}
	assert_int_equal(s.n, N);
	for (int i = 0; i < N; i++)
		assert_int_equal(strset_find(&s, names[i], name_of, names), i);
	assert_int_equal(strset_find(&s, "n1", name_of, names), -1);
	assert_int_equal(strset_find(&s, "", name_of, names), -1);
	strset_fini(&s);
	assert_int_equal(strset_find(&s, "n0", name_of, names), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_rows_up_front),
		cmocka_unit_test(test_sample_rows_at_run_time),
		cmocka_unit_test(test_selector_cells),
		cmocka_unit_test(test_strset),
	};
	return cmocka_run_group_tests_name("limits", tests, NULL, NULL);
}
