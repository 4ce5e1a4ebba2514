/* Nodes that join or leave draw power only while present: a CPU node that
 * joins at 1 h and a rack whose only node leaves (decommissioned) at 1 h,
 * in a 2 h run, each draw their idle power for exactly one hour; the IT
 * energy is the sum of the racks' (no energy for an absent node). The
 * default scenario's four nodes joining on day 1 used to be charged power
 * from t = 0. */
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

#include "policies/policy.h"
#include "sim/engine.h"
#include "sim/power.h"
#include "tests/testutil.h"
#include "config/scenario.h"

static const char scenario_text[] =
	"{ \"name\": \"join\", \"sample_interval_s\": 0,\n"
	"  \"node_types\": [ { \"name\": \"c\", \"cpu\": \"Xeon-8480+\", \"sockets\": 2, \"mem_gib\": 1024, \"base_w\": 300 } ],\n"
	"  \"racks\": [ { \"name\": \"base\", \"power_kw\": 15, \"nodes\": [ { \"type\": \"c\", \"count\": 1 } ] },\n"
	"             { \"name\": \"old\", \"power_kw\": 15, \"nodes\": [ { \"type\": \"c\", \"count\": 1 } ] } ],\n"
	"  \"events\": [ { \"at\": \"1h\", \"node_join\": { \"rack\": \"late\", \"power_kw\": 15, \"cooling\": \"air\", \"type\": \"c\", \"count\": 1 } },\n"
	"              { \"at\": \"1h\", \"node_leave\": \"old-n1\" } ],\n"
	"  \"workload\": { \"trace\": \"none.jsonl\" } }\n";

static void test_join_and_leave_power(void **state)
{
	(void)state;
	struct scenario sc;
	char err[1024];
	char *path = tu_write_tmp(".json", scenario_text);
	if (scenario_load(path, &sc, err, sizeof err))
		fail_msg("%s", err);
	unlink(path);
	free(path);
	struct power_cfg pc;
	power_cfg_defaults(&pc);
	pc.enabled = true;
	assert_int_equal(power_init(&sc.cl, &pc), 0);
	const struct policy_ops *pol = policy_find("easy");
	struct policy_cfg cfg;
	policy_cfg_defaults(pol, &cfg);
	/* One 1-core job on the base node from 0 to 2 h keeps the clock going. */
	/* sim_fini frees the job arrays: the engine owns them. */
	struct job *jobs = calloc(1, sizeof *jobs);
	struct job_truth *truth = calloc(1, sizeof *truth);
	assert_non_null(jobs);
	assert_non_null(truth);
	job_init(&jobs[0], 0, 0);
	jobs[0].cls = JOB_BATCH;
	jobs[0].req = (struct job_req){ .nodes = 1, .cores = 1 };
	truth[0].run_us = simtime_from_s(7200);
	struct policy_env env = { .cl = &sc.cl, .njobs = 1 };
	void *ps = NULL;
	assert_int_equal(pol->init(&ps, &env, &cfg, err, sizeof err), 0);
	struct sim_cfg scfg = { .horizon_us = SIMTIME_INF, .fault = sc.faults ? &sc.fault : NULL };
	struct sim s;
	assert_true(sc.faults);
	assert_int_equal(sim_init(&s, &scfg, &sc.cl, jobs, truth, 1), 0);
	struct sim_sched sched;
	policy_to_sched(pol, ps, &sched);
	sim_set_sched(&s, &sched);
	if (sim_run(&s))
		fail_msg("%s", s.err);
	for (int r = 0; r < s.cl.nracks; r++)
		power_advance_rack(&s.cl, r, s.now);
	assert_true(s.now == simtime_from_s(7200));
	int late = -1, old = -1, base = -1;
	for (int r = 0; r < s.cl.nracks; r++) {
		if (strcmp(s.cl.racks[r].name, "late") == 0)
			late = r;
		if (strcmp(s.cl.racks[r].name, "old") == 0)
			old = r;
		if (strcmp(s.cl.racks[r].name, "base") == 0)
			base = r;
	}
	assert_true(late >= 0 && old >= 0 && base >= 0);
	int ln = s.cl.racks[late].first_node, on = s.cl.racks[old].first_node;
	double idle_w = power_node_idle_w(&s.cl, ln);
	const struct power_state *pw = s.cl.pw;
	if (fabs(pw->rack[late].energy_j - idle_w * 3600) > 1e-6 * idle_w * 3600)
		fail_msg("the joined rack drew %.1f J, expected %.1f J (idle power for the hour present)",
		         pw->rack[late].energy_j, idle_w * 3600);
	if (fabs(pw->rack[old].energy_j - power_node_idle_w(&s.cl, on) * 3600) > 1e-3)
		fail_msg("the decommissioned rack drew %.1f J, expected %.1f J",
		         pw->rack[old].energy_j, power_node_idle_w(&s.cl, on) * 3600);
	assert_true(pw->node[ln].power_w > 0 && pw->node[on].power_w == 0);
	double sum = 0;
	for (int r = 0; r < s.cl.nracks; r++)
		sum += pw->rack[r].energy_j;
	assert_true(fabs(sum - pw->it_energy_j) < 1e-6 * sum);
	pol->fini(ps);
	sim_fini(&s);
	scenario_free(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join_and_leave_power),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
