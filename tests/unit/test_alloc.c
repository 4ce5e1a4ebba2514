/* After warm-up the event loop allocates nothing: the KTH log (carried in
 * the repository) replayed under easy, conservative and fcfs with malloc,
 * calloc and realloc counted through the linker's --wrap (see Makefile). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "policies/policy.h"
#include "sim/engine.h"
#include "config/scenario.h"
#include "tests/testutil.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);

static bool counting;
static long nallocs;

void *__wrap_malloc(size_t n) { if (counting) nallocs++; return __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t m) { if (counting) nallocs++; return __real_calloc(n, m); }
void *__wrap_realloc(void *p, size_t n) { if (counting) nallocs++; return __real_realloc(p, n); }

static void replay(const char *policy)
{
	char err[1024], path[PATH_MAX + 64];
	struct scenario sc;
	struct workload w;
	struct sim s;
	snprintf(path, sizeof path, "%s/scenarios/kth-sp2.json", tu_root());
	if (scenario_load(path, &sc, err, sizeof err))
		fail_msg("%s", err);
	workload_init(&w);
	scenario_trace_path(&sc, tu_traces(), path, sizeof path);
	struct swf_opts o = { .lenient = false };
	if (trace_swf_read(path, &o, &w, err, sizeof err) || scenario_size_from_trace(&sc, &w, err, sizeof err))
		fail_msg("%s", err);
	const struct policy_ops *pol = policy_find(policy);
	struct policy_cfg cfg;
	policy_cfg_defaults(pol, &cfg);
	void *ps = NULL;
	struct policy_env env = { .cl = &sc.cl, .njobs = w.n };
	assert_int_equal(pol->init(&ps, &env, &cfg, err, sizeof err), 0);
	struct sim_cfg c = { .sample_every_us = SIMTIME_HOUR, .horizon_us = SIMTIME_INF };
	int32_t n = w.n;
	assert_int_equal(sim_init(&s, &c, &sc.cl, w.jobs, w.truth, n), 0);
	w.jobs = NULL;
	w.truth = NULL;
	struct sim_sched sched;
	policy_to_sched(pol, ps, &sched);
	sim_set_sched(&s, &sched);
	int r;
	/* Warm-up: the first fifth of the jobs. */
	while ((r = sim_step(&s)) > 0 && s.nfinished < n / 5)
		;
	assert_true(r > 0);
	nallocs = 0;
	counting = true;
	while ((r = sim_step(&s)) > 0)
		;
	counting = false;
	assert_int_equal(r, 0);
	assert_int_equal(s.nfinished, n);
	if (nallocs)
		fail_msg("%s: %ld allocations in the event loop after warm-up", policy, nallocs);
	pol->fini(ps);
	sim_fini(&s);
	workload_free(&w);
	scenario_free(&sc);
}

static void test_easy(void **state) { (void)state; replay("easy"); }
static void test_fcfs(void **state) { (void)state; replay("fcfs"); }
static void test_conservative(void **state) { (void)state; replay("conservative"); }
static void test_slurm(void **state) { (void)state; replay("slurm"); }
static void test_tiered(void **state) { (void)state; replay("tiered"); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_easy),
		cmocka_unit_test(test_fcfs),
		cmocka_unit_test(test_conservative),
		cmocka_unit_test(test_slurm),
		cmocka_unit_test(test_tiered),
	};
	return cmocka_run_group_tests_name("alloc", tests, NULL, NULL);
}
