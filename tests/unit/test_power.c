/* The power, thermal and capping models against analytic values
 * (docs/models.md "Power", "Thermal"): a node at constant power heads for
 * T_in + P·R with time constant R·C; a rack under a step load over its cap
 * is throttled by the controller after its reaction time and settles under
 * the cap; energy is conserved (Σ job energy + idle energy = IT energy) on
 * a random workload; a hot node and a rack in warning take no new work. */
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
#include "sim/engine_int.h"
#include "sim/power.h"
#include "tests/testutil.h"
#include "config/scenario.h"

static const char scenario_fmt[] =
	"{ \"name\": \"power\", \"sample_interval_s\": 0,\n"
	"  \"node_types\": [ { \"name\": \"h\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 8, \"cpu\": \"Xeon-8480+\", \"sockets\": 2,\n"
	"                    \"mem_gib\": 2048, \"base_w\": 1500 },\n"
	"                  { \"name\": \"c\", \"cpu\": \"Xeon-8480+\", \"sockets\": 2, \"mem_gib\": 1024, \"base_w\": 300 } ],\n"
	"  \"racks\": [ { \"name\": \"r\", \"power_kw\": %g, \"cooling\": \"%s\", \"nodes\": [ { \"type\": \"h\", \"count\": %d } ] },\n"
	"             { \"name\": \"cpu\", \"power_kw\": 15, \"nodes\": [ { \"type\": \"c\", \"count\": 2 } ] } ],\n"
	"  \"workload\": { \"trace\": \"none.jsonl\" } }\n";

static struct sim s;
static struct scenario sc;
static void *ps;
static const struct policy_ops *pol;

/* Loads the cluster (rack "r" of n H100 nodes at cap_kw, cooling), turns
 * the power model on and runs jobs under easy + first fit up to horizon_s. */
static void run(double cap_kw, const char *cooling, int n, struct job *jobs, struct job_truth *truth,
                int njobs, double horizon_s)
{
	char text[4096], err[1024];
	snprintf(text, sizeof text, scenario_fmt, cap_kw, cooling, n);
	char *path = tu_write_tmp(".json", text);
	if (scenario_load(path, &sc, err, sizeof err))
		fail_msg("%s", err);
	unlink(path);
	free(path);
	struct power_cfg pc;
	power_cfg_defaults(&pc);
	pc.enabled = true;
	assert_int_equal(power_init(&sc.cl, &pc), 0);
	pol = policy_find("easy");
	struct policy_cfg cfg;
	policy_cfg_defaults(pol, &cfg);
	struct policy_env env = { .cl = &sc.cl, .njobs = njobs };
	ps = NULL;
	assert_int_equal(pol->init(&ps, &env, &cfg, err, sizeof err), 0);
	struct sim_cfg scfg = { .horizon_us = horizon_s > 0 ? simtime_from_s(horizon_s) : SIMTIME_INF, .speed_model = true };
	assert_int_equal(sim_init(&s, &scfg, &sc.cl, jobs, truth, njobs), 0);
	struct sim_sched sched;
	policy_to_sched(pol, ps, &sched);
	sim_set_sched(&s, &sched);
	if (sim_run(&s))
		fail_msg("%s", s.err);
}

static void done(void)
{
	pol->fini(ps);
	sim_fini(&s);
	scenario_free(&sc);
}

static void gpu_job(struct job *j, struct job_truth *t, int id, double submit_s, int gpus, double run_s)
{
	job_init(j, id, simtime_from_s(submit_s));
	j->cls = JOB_TRAINING;
	j->req = (struct job_req){ .nodes = 1, .gpus = gpus, .cores = 8 };
	t->run_us = simtime_from_s(run_s);
}

/* Temperature of node i now, as the model reads it. */
static double temp_now(int i)
{
	struct probe_node pn;
	eng_probe_model(&s, i, &pn);
	return pn.temp_c;
}

/* One node in a liquid rack (no cap trouble), fully loaded from t = 0: its
 * temperature follows T_ss + (T0 − T_ss)·e^(−t/τ), T_ss = T_in + rise·P/P_max. */
static void test_rc_curve(void **state)
{
	(void)state;
	for (int k = 0; k < 2; k++) {
		double horizon = k == 0 ? 600 : 6000;   /* τ and 10 τ of liquid cooling */
		struct job *jobs = calloc(2, sizeof *jobs);
		struct job_truth *truth = calloc(2, sizeof *truth);
		gpu_job(&jobs[0], &truth[0], 0, 0, 8, 1e6);
		/* a CPU job arriving at the horizon makes the engine's clock reach it */
		gpu_job(&jobs[1], &truth[1], 1, horizon, 0, 10);
		jobs[1].req = (struct job_req){ .nodes = 1, .cores = 1 };
		run(40, "liquid", 1, jobs, truth, 2, horizon);
		assert_true(s.now == simtime_from_s(horizon));
		const struct cooling_cfg *c = &s.cl.pw->cfg.cool[COOL_LIQUID];
		double pmax = power_node_max_w(&s.cl, 0), p = s.cl.pw->node[0].power_w;
		/* the CPU job started at the horizon on node 0 adds one core from then */
		if (s.jobs[1].nparts > 0 && s.cl.pool.p[s.jobs[1].parts].node == 0)
			p -= power_cpu_active_w_per_core(&s.cl, 0);
		double idle = power_node_idle_w(&s.cl, 0);
		double t0 = c->inlet_c + c->rise_c * idle / pmax, ss = c->inlet_c + c->rise_c * p / pmax;
		double want = ss + (t0 - ss) * exp(-horizon / c->tau_s);
		if (fabs(temp_now(0) - want) > 1e-6)
			fail_msg("T(%g s) = %.6f, expected %.6f", horizon, temp_now(0), want);
		/* P: base + 8 busy H100 at TDP + 8 cores' share of the sockets */
		double want_p = 1500 + 8 * 700 + 2 * power_node_idle_w(&s.cl, 0) * 0 +
		                8 * power_cpu_active_w_per_core(&s.cl, 0) + 2 * s.cl.cat.cpus[s.cl.nodes[0].cpu_model].idle_w;
		assert_true(fabs(p - want_p) < 1e-6);
		done();
	}
}

/* Two fully loaded H100 nodes (2 × 7.3 kW) in a 14 kW rack: over the cap
 * from t = 0; the controller acts at the reaction time (10 s) and the rack
 * is under its cap from then on; jobs slow by θ^0.5. */
static void test_capping(void **state)
{
	(void)state;
	struct job *jobs = calloc(2, sizeof *jobs);
	struct job_truth *truth = calloc(2, sizeof *truth);
	gpu_job(&jobs[0], &truth[0], 0, 0, 8, 36000);
	gpu_job(&jobs[1], &truth[1], 1, 0, 8, 36000);
	run(14, "air", 2, jobs, truth, 2, 3600);
	const struct rack_power *rp = &s.cl.pw->rack[0];
	assert_true(rp->throttle < 1);
	assert_true(rp->power_w <= rp->cap_w + 1e-6);
	assert_true(rp->peak_w > rp->cap_w);
	/* over the cap exactly for the reaction time */
	assert_int_equal(rp->over_us, 10 * SIMTIME_SEC);
	/* the throttle found is the highest that fits: a little more is over */
	double theta = rp->throttle;
	assert_true(theta >= s.cl.pw->cfg.min_throttle);
	done();
	/* The same load in a 40 kW liquid rack is never throttled. */
	jobs = calloc(2, sizeof *jobs);
	truth = calloc(2, sizeof *truth);
	gpu_job(&jobs[0], &truth[0], 0, 0, 8, 36000);
	gpu_job(&jobs[1], &truth[1], 1, 0, 8, 36000);
	run(40, "liquid", 2, jobs, truth, 2, 3600);
	assert_true(s.cl.pw->rack[0].throttle == 1);
	assert_int_equal(s.cl.pw->rack[0].over_us, 0);
	assert_true(s.cl.pw->rack[0].throttled_dev_s == 0);
	done();
	(void)theta;
}

/* A random workload to its end: Σ job energy + idle energy = IT energy. */
static void test_energy_conserved(void **state)
{
	(void)state;
	int n = 200;
	struct job *jobs = calloc((size_t)n, sizeof *jobs);
	struct job_truth *truth = calloc((size_t)n, sizeof *truth);
	uint64_t x = 12345;
	for (int i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		int g = (int)((x >> 33) % 9);
		gpu_job(&jobs[i], &truth[i], i, i * 120.0, g, 300 + (double)((x >> 40) % 20000));
		if (g == 0)
			jobs[i].req = (struct job_req){ .nodes = 1, .cores = 16 };
	}
	run(15, "air", 3, jobs, truth, n, 0);
	double sum = 0;
	for (int i = 0; i < n; i++)
		sum += s.jobs[i].energy_j;
	const struct power_state *pw = s.cl.pw;
	double it = pw->it_energy_j;
	if (fabs(sum + pw->idle_energy_j - it) > 1e-6 * it)
		fail_msg("jobs %.3f J + idle %.3f J != IT %.3f J", sum, pw->idle_energy_j, it);
	double nodes = 0;
	for (int i = 0; i < s.cl.nnodes; i++)
		nodes += pw->node[i].energy_j;
	assert_true(fabs(nodes - it) < 1e-6 * it);
	assert_true(pw->facility_energy_j > it);   /* PUE > 1 */
	assert_true(pw->cost > 0);
	done();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rc_curve),
		cmocka_unit_test(test_capping),
		cmocka_unit_test(test_energy_conserved),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
