/* runasm: the composition root (config/runasm.h). A run assembled by
 * run_assemble is the run `hetlab run` assembled by hand before it (the
 * same jobs end at the same times), with the health monitor installed when
 * the scenario has health checks: tests/scenario/data/health-stress.json,
 * whose monitor drains nodes all week, so a run without it differs. The
 * live daemon's assembly (no workload, tuned settings) installs it too;
 * bad parameters and an output over the scenario are refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/runasm.h"
#include "config/tieredcfg.h"
#include "policies/health.h"
#include "sim/power.h"
#include "tests/testutil.h"

static const char *scenario_path(void)
{
	static char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/tests/scenario/data/health-stress.json", tu_root());
	return path;
}

static void load(struct scenario *sc)
{
	char err[1024] = "";
	if (scenario_load(scenario_path(), sc, err, sizeof err))
		fail_msg("%s", err);
	assert_true(sc->faults && sc->fault.health.enabled);
}

/* Every job's state, start and end, folded (FNV-1a). */
static uint64_t fingerprint(const struct sim *s)
{
	uint64_t h = 1469598103934665603ull;
	for (int32_t i = 0; i < s->njobs; i++) {
		int64_t v[3] = { s->jobs[i].state, s->jobs[i].start_us, s->jobs[i].end_us };
		const unsigned char *b = (const unsigned char *)v;
		for (size_t k = 0; k < sizeof v; k++)
			h = (h ^ b[k]) * 1099511628211ull;
	}
	return h;
}

/* The run as cli/cmd_run.c assembled it by hand before the composition
 * root, with or without the health monitor: its fingerprint. */
static uint64_t by_hand(bool health, uint64_t *nevents)
{
	struct scenario sc;
	struct workload w;
	char err[1024] = "";
	load(&sc);
	workload_init(&w);
	const struct policy_ops *pol = policy_find(sc.policy);
	assert_non_null(pol);
	struct policy_cfg cfg;
	policy_cfg_defaults(pol, &cfg);
	if (trace_synth(&sc.synth, sc.seed, &w, err, sizeof err) ||
	    cluster_bind_workload(&sc.cl, w.str, w.nstr, w.jobs, w.n, err, sizeof err) ||
	    (sc.tiered && tiered_bind(sc.tiered, &sc.cl, err, sizeof err)))
		fail_msg("%s", err);
	if (sc.power.enabled)
		assert_int_equal(power_init(&sc.cl, &sc.power), 0);
	struct sim_cfg scfg = {
		.sample_every_us = sc.sample_every_us, .horizon_us = sc.horizon_us,
		.keep_overruns = !sc.enforce_walltime, .speed_model = sc.speed_model, .org = &sc.org,
		.env = sc.env, .nenv = sc.nenv, .fault = &sc.fault, .seed = sc.seed,
	};
	memcpy(scfg.ckpt, sc.ckpt, sizeof scfg.ckpt);
	struct policy_env env = { .cl = &sc.cl, .njobs = w.n, .placement = sc.place.strategy,
	                          .label_blind = sc.place.label_blind, .seed = sc.seed, .org = &sc.org,
	                          .sim = &scfg, .tiered = sc.tiered, .slurm = sc.slurm };
	void *ps = NULL;
	if (pol->init && pol->init(&ps, &env, &cfg, err, sizeof err))
		fail_msg("%s", err);
	struct sim s;
	assert_int_equal(sim_init(&s, &scfg, &sc.cl, w.jobs, w.truth, w.n), 0);
	w.jobs = NULL;
	w.truth = NULL;
	struct sim_sched sched;
	policy_to_sched(pol, ps, &sched);
	sim_set_sched(&s, &sched);
	struct sim_health hmon = { 0 };
	if (health) {
		assert_int_equal(health_init(&hmon, &sc.fault.health), 0);
		sim_set_health(&s, &hmon);
	}
	if (sim_run(&s))
		fail_msg("%s", s.err);
	uint64_t h = fingerprint(&s);
	*nevents = s.nevents;
	if (pol->fini)
		pol->fini(ps);
	health_fini(&hmon);
	sim_fini(&s);
	workload_free(&w);
	scenario_free(&sc);
	return h;
}

static void test_same_run_as_by_hand(void **state)
{
	(void)state;
	struct scenario sc;
	struct run r;
	char err[1024] = "";
	load(&sc);
	struct run_opts o = { .version = "test" };
	if (run_assemble(&r, &sc, &o, err, sizeof err))
		fail_msg("%s", err);
	assert_non_null(r.s->health.check);
	assert_true(r.s->health.state == r.hmon.state);
	assert_null(r.rec);
	if (run_go(&r, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(run_finish(&r, err, sizeof err), 0);
	uint64_t h = fingerprint(r.s), ev = r.s->nevents, ev_hand = 0, ev_blind = 0;
	assert_true(r.njobs > 1000 && r.s->nfinished == r.njobs);
	run_free(&r);
	scenario_free(&sc);

	uint64_t hand = by_hand(true, &ev_hand), blind = by_hand(false, &ev_blind);
	assert_true(h == hand);
	assert_true(ev == ev_hand);
	/* The monitor matters here: without it the week goes otherwise. */
	assert_true(hand != blind);
}

/* The daemon's assembly: no workload, the engine in the caller's storage,
 * its settings tuned; the monitor is installed on them. */
static void no_faults_drawn(void *ctx, struct sim_cfg *c)
{
	struct scenario *sc = ctx;
	c->horizon_us = SIMTIME_INF;
	c->fault = &sc->fault;
}

static void test_no_workload(void **state)
{
	(void)state;
	struct scenario sc;
	struct sim s;
	struct run r;
	char err[1024] = "";
	load(&sc);
	sc.faults = false;   /* only the tune hook gives the engine the fault model */
	struct run_opts o = { .max_jobs = 64, .sim = &s, .tune = no_faults_drawn, .tune_ctx = &sc };
	if (run_assemble(&r, &sc, &o, err, sizeof err))
		fail_msg("%s", err);
	assert_ptr_equal(r.s, &s);
	assert_int_equal(s.njobs, 0);
	assert_true(s.cfg.horizon_us == SIMTIME_INF);
	assert_non_null(s.health.check);
	assert_string_equal(r.pol.ops->name, "easy");
	run_free(&r);
	scenario_free(&sc);
}

static void test_refusals(void **state)
{
	(void)state;
	struct scenario sc;
	struct run r;
	char err[1024] = "";
	char *bad[] = { (char *)"bf_max_job_test=-5" }, *nope[] = { (char *)"nope=1" };
	load(&sc);
	/* A --param flag's error is a usage error: -2. */
	struct run_opts o = { .params = bad, .nparams = 1 };
	assert_int_equal(run_assemble(&r, &sc, &o, err, sizeof err), -2);
	assert_non_null(strstr(err, "--param bf_max_job_test=-5: bf_max_job_test must be in"));
	run_free(&r);
	o.params = nope;
	assert_int_equal(run_assemble(&r, &sc, &o, err, sizeof err), -2);
	assert_non_null(strstr(err, "policy 'easy' has no parameter 'nope' (it has: bf_max_job_test)"));
	run_free(&r);
	/* The results file over the scenario it reads: -2, nothing written. */
	struct run_opts over = { .out = scenario_path() };
	assert_int_equal(run_assemble(&r, &sc, &over, err, sizeof err), -2);
	assert_non_null(strstr(err, "is the scenario this run reads"));
	assert_null(r.rec);
	run_free(&r);
	scenario_free(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_run_as_by_hand),
		cmocka_unit_test(test_no_workload),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
