/* fcfs / easy / conservative on hand-built queues whose schedules are
 * worked out by hand (docs/policies.md shows the same example), plus the
 * engine's validation of policy decisions. */
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

struct tj { double submit_s, cores, wall_s, run_s; };

/* A cluster of n one-core CPU nodes in one rack. */
static void small_cluster(struct cluster *cl, int n, int cores)
{
	struct node_type t = { .name = "cpu", .gpu_model = -1, .cpu_model = -1, .sockets = 1,
	                       .cores = cores, .mem_mib = 1024 };
	cluster_init(cl);
	assert_int_equal(cluster_add_type(cl, &t), 0);
	assert_int_equal(cluster_add_rack(cl, "r", 15000, COOL_AIR), 0);
	assert_int_equal(cluster_add_nodes(cl, 0, 0, n), 0);
	char err[256];
	assert_int_equal(cluster_finish(cl, err, sizeof err), 0);
}

/* Runs the jobs under `policy` and fills start[] (seconds). Returns sim_run's status. */
/* Jobs ask for this much memory per core: 0 keeps them plain core
 * requests (EASY and conservative then work on counts), 1 MiB makes them
 * node-level requests, so both ways are checked against the same schedule. */
static int64_t mem_per_core;
static const int64_t *job_mem;   /* extra memory per core of each job, or NULL */

static int run_jobs(const char *policy, int nodes, const struct tj *tj, int n, double *start,
                    char *err, size_t errlen, const struct policy_ops *ops)
{
	struct cluster cl;
	struct sim s;
	small_cluster(&cl, nodes, 1);
	struct job *jobs = calloc((size_t)n, sizeof *jobs);
	struct job_truth *truth = calloc((size_t)n, sizeof *truth);
	for (int i = 0; i < n; i++) {
		job_init(&jobs[i], i, simtime_from_s(tj[i].submit_s));
		jobs[i].req.cores = (int32_t)tj[i].cores;
		jobs[i].req.mem_mib = mem_per_core + (job_mem ? job_mem[i] : 0);
		jobs[i].walltime_us = simtime_from_s(tj[i].wall_s);
		truth[i].run_us = simtime_from_s(tj[i].run_s);
	}
	const struct policy_ops *pol = ops ? ops : policy_find(policy);
	assert_non_null(pol);
	struct policy_cfg cfg;
	policy_cfg_defaults(pol, &cfg);
	void *ps = NULL;
	struct policy_env env = { .cl = &cl, .njobs = n };
	if (pol->init)
		assert_int_equal(pol->init(&ps, &env, &cfg, err, errlen), 0);
	struct sim_cfg sc = { .horizon_us = SIMTIME_INF };
	assert_int_equal(sim_init(&s, &sc, &cl, jobs, truth, n), 0);
	struct sim_sched sched;
	policy_to_sched(pol, ps, &sched);
	sim_set_sched(&s, &sched);
	int rc = sim_run(&s);
	if (rc)
		snprintf(err, errlen, "%s", s.err);
	for (int i = 0; i < n; i++)
		start[i] = s.jobs[i].start_us < 0 ? -1 : simtime_to_s(s.jobs[i].start_us);
	if (pol->fini && ps)
		pol->fini(ps);
	sim_fini(&s);
	return rc;
}

/* Four one-core nodes.
 *   A t=0 3 cores 10 s   B t=1 2 cores 10 s   C t=2 4 cores 10 s   D t=3 1 core 100 s
 * fcfs:         A 0, B 10, C 20, D 30
 * easy:         D backfills at 3 on the node B's reservation leaves over
 *               (node 3), so C waits for it: A 0, B 10, D 3, C 103
 * conservative: D may not delay C's reservation at 20: A 0, B 10, C 20, D 30 */
static const struct tj queue1[] = {
	{ 0, 3, 10, 10 }, { 1, 2, 10, 10 }, { 2, 4, 10, 10 }, { 3, 1, 100, 100 },
};

static void check(const char *policy, const struct tj *q, int n, int nodes, const double *want)
{
	double start[16];
	char err[512] = "";
	for (mem_per_core = 0; mem_per_core <= 1; mem_per_core++) {
		assert_int_equal(run_jobs(policy, nodes, q, n, start, err, sizeof err, NULL), 0);
		for (int i = 0; i < n; i++)
			if (start[i] != want[i])
				fail_msg("%s (%s): job %c started at %g, expected %g", policy,
				         mem_per_core ? "node level" : "counting", 'A' + i, start[i], want[i]);
	}
	mem_per_core = 0;
}

static void test_fcfs(void **state)
{
	(void)state;
	check("fcfs", queue1, 4, 4, (const double[]){ 0, 10, 20, 30 });
}

static void test_easy(void **state)
{
	(void)state;
	check("easy", queue1, 4, 4, (const double[]){ 0, 10, 103, 3 });
}

static void test_conservative(void **state)
{
	(void)state;
	check("conservative", queue1, 4, 4, (const double[]){ 0, 10, 20, 30 });
	/* D asks for memory: a counting pass meets it and starts over at the
	 * node level, with the same result. */
	job_mem = (const int64_t[]){ 0, 0, 0, 512 };
	check("conservative", queue1, 4, 4, (const double[]){ 0, 10, 20, 30 });
	check("easy", queue1, 4, 4, (const double[]){ 0, 10, 103, 3 });
	job_mem = NULL;
}

/* EASY backfills a job that ends before the shadow time even on the
 * reserved nodes, and never delays the head.
 *   A t=0 2 cores 10 s; B t=1 4 cores 10 s (head, shadow 10);
 *   C t=2 2 cores 5 s (ends 7 <= 10: backfills at 2);
 *   D t=3 2 cores 20 s (would end 23 > 10 on B's nodes: waits until B ends at 20). */
static void test_easy_before_shadow(void **state)
{
	(void)state;
	static const struct tj q[] = { { 0, 2, 10, 10 }, { 1, 4, 10, 10 }, { 2, 2, 5, 5 }, { 3, 2, 20, 20 } };
	check("easy", q, 4, 4, (const double[]){ 0, 10, 2, 20 });
	check("fcfs", q, 4, 4, (const double[]){ 0, 10, 20, 20 });
	check("conservative", q, 4, 4, (const double[]){ 0, 10, 2, 20 });
}

/* Jobs started earlier in the same pass count in the head's reservation:
 *   A, B, C all at t=0: A 2 cores 10 s starts; B 4 cores is the head,
 *   shadow 10 (when A ends); C 2 cores 100 s would delay B, so it waits.
 * (A view frozen at the start of the pass would miss A and start C.) */
static void test_same_pass_starts_count(void **state)
{
	(void)state;
	static const struct tj q[] = { { 0, 2, 10, 10 }, { 0, 4, 10, 10 }, { 0, 2, 100, 100 } };
	check("easy", q, 3, 4, (const double[]){ 0, 10, 20 });
	check("conservative", q, 3, 4, (const double[]){ 0, 10, 20 });
}

/* A pass that follows a submission alone goes on from the last pass's
 * profile, unless its window, reaching further, takes in a start the last
 * pass's did not (bf_window 24 h). Four nodes:
 *   A t=0 3 cores 30 h; B t=1 4 cores 10 s: its start at 30 h (A's end) is
 *   beyond the window at t=1, so it gets no reservation then;
 *   C t=30000 1 core 100000 s: within the window now, B holds 30 h, and C,
 *   which would run past it, waits until B ends (a pass going on from t=1's
 *   profile would start C at once and hold B back until C ends). */
static void test_kept_profile_window(void **state)
{
	(void)state;
	static const struct tj q[] = { { 0, 3, 108000, 108000 }, { 1, 4, 10, 10 }, { 30000, 1, 100000, 100000 } };
	check("conservative", q, 3, 4, (const double[]){ 0, 108000, 108010 });
}

/* A job that ends before its estimate frees its node early; a job that
 * runs past its estimate is killed at it. */
static void test_estimates(void **state)
{
	(void)state;
	static const struct tj q[] = { { 0, 4, 100, 30 }, { 1, 4, 10, 50 }, { 2, 4, 10, 10 } };
	check("easy", q, 3, 4, (const double[]){ 0, 30, 40 });
}

/* A request larger than the cluster is rejected at submit, not left to
 * block the queue. */
static void test_too_big(void **state)
{
	(void)state;
	static const struct tj q[] = { { 0, 5, 10, 10 }, { 1, 1, 10, 10 } };
	check("fcfs", q, 2, 4, (const double[]){ -1, 1 });
}

/* At a horizon the run stops; jobs running or pending then are reported as
 * they are, jobs not yet submitted are not part of the run at all. */
static void count_end(void *ctx, const struct sim *s, const struct job *j)
{
	(void)s;
	int *seen = ctx;
	seen[j->id]++;
}

static void test_horizon(void **state)
{
	(void)state;
	struct cluster cl;
	struct sim s;
	small_cluster(&cl, 4, 1);
	static const struct tj q[] = { { 0, 2, 100, 100 }, { 10, 4, 10, 10 }, { 200, 1, 10, 10 }, { 20, 1, 5, 5 } };
	struct job *jobs = calloc(4, sizeof *jobs);
	struct job_truth *truth = calloc(4, sizeof *truth);
	double sub[4] = { 0, 10, 20, 200 };
	int order[4] = { 0, 1, 3, 2 };   /* sorted by submit */
	for (int k = 0; k < 4; k++) {
		const struct tj *t = &q[order[k]];
		job_init(&jobs[k], k, simtime_from_s(sub[k]));
		jobs[k].req.cores = (int32_t)t->cores;
		jobs[k].walltime_us = simtime_from_s(t->wall_s);
		truth[k].run_us = simtime_from_s(t->run_s);
	}
	const struct policy_ops *pol = policy_find("easy");
	struct policy_cfg cfg;
	policy_cfg_defaults(pol, &cfg);
	void *ps = NULL;
	struct policy_env env = { .cl = &cl, .njobs = 4 };
	assert_int_equal(pol->init(&ps, &env, &cfg, NULL, 0), 0);
	struct sim_cfg sc = { .horizon_us = simtime_from_s(50), .sample_every_us = SIMTIME_SEC };
	assert_int_equal(sim_init(&s, &sc, &cl, jobs, truth, 4), 0);
	struct sim_sched sched;
	policy_to_sched(pol, ps, &sched);
	sim_set_sched(&s, &sched);
	int seen[4] = { 0 };
	struct sim_recorder rec = { .ctx = seen, .job_end = count_end };
	sim_set_recorder(&s, &rec);
	assert_int_equal(sim_run(&s), 0);
	/* job 0 runs, 1 waits, 2 (t=20, 5 s) ran and ended, 3 (t=200) never came */
	assert_int_equal(seen[0], 1);
	assert_int_equal(seen[1], 1);
	assert_int_equal(seen[2], 1);
	assert_int_equal(seen[3], 0);
	assert_int_equal(s.jobs[0].state, JOB_RUNNING);
	assert_int_equal(s.jobs[1].state, JOB_PENDING);
	assert_int_equal(s.jobs[2].state, JOB_DONE);
	assert_true(s.now <= simtime_from_s(50));
	pol->fini(ps);
	sim_fini(&s);
}

/* A run whose remaining jobs are all held ends (nothing can change them),
 * with sampling on and no horizon. */
static void hold_schedule(void *st, const struct view *v, struct decide *out)
{
	(void)st;
	for (int i = 0; i < v->npending; i++)
		if (v->jobs[v->pending[i]].state == JOB_PENDING && decide_hold(out, v->pending[i], "test"))
			return;
}

static const struct policy_ops hold_policy = { .name = "hold-all", .schedule = hold_schedule };

static void test_held_jobs_end_the_run(void **state)
{
	(void)state;
	struct cluster cl;
	struct sim s;
	small_cluster(&cl, 2, 1);
	struct job *jobs = calloc(2, sizeof *jobs);
	struct job_truth *truth = calloc(2, sizeof *truth);
	for (int k = 0; k < 2; k++) {
		job_init(&jobs[k], k, simtime_from_s(k));
		jobs[k].req.cores = 1;
		truth[k].run_us = SIMTIME_SEC;
	}
	struct sim_cfg sc = { .horizon_us = SIMTIME_INF, .sample_every_us = SIMTIME_SEC };
	assert_int_equal(sim_init(&s, &sc, &cl, jobs, truth, 2), 0);
	struct sim_sched sched;
	policy_to_sched(&hold_policy, NULL, &sched);
	sim_set_sched(&s, &sched);
	assert_int_equal(sim_run(&s), 0);
	assert_int_equal(s.jobs[0].state, JOB_HELD);
	assert_int_equal(s.jobs[1].state, JOB_HELD);
	assert_true(s.now < simtime_from_s(10));
	sim_fini(&s);
}

/* A policy that over-allocates is stopped with an error naming it. */
static void bad_schedule(void *st, const struct view *v, struct decide *out)
{
	(void)st;
	for (int i = 0; i < v->npending; i++) {
		struct alloc_part p = { .node = 0, .cores = 1, .numa_cores = { 1 }, .mig_profile = -1, .mig_start = -1 };
		if (decide_start(out, v->pending[i], &p, 1))
			return;
	}
}

static const struct policy_ops bad_policy = { .name = "greedy-bug", .schedule = bad_schedule };

static void test_invalid_decision_is_fatal(void **state)
{
	(void)state;
	static const struct tj q[] = { { 0, 1, 10, 10 }, { 0, 1, 10, 10 } };
	double start[2];
	char err[512] = "";
	assert_int_equal(run_jobs(NULL, 2, q, 2, start, err, sizeof err, &bad_policy), -1);
	assert_non_null(strstr(err, "greedy-bug"));
	assert_non_null(strstr(err, "over-allocated"));
}

/* Starting a job that is not pending (twice) is refused. */
static void twice_schedule(void *st, const struct view *v, struct decide *out)
{
	(void)st;
	if (v->npending == 0)
		return;
	struct alloc_part p = { .node = 0, .cores = 1, .numa_cores = { 1 }, .mig_profile = -1, .mig_start = -1 };
	if (decide_start(out, v->pending[0], &p, 1))
		return;
	p.node = 1;
	decide_start(out, v->pending[0], &p, 1);
}

static const struct policy_ops twice_policy = { .name = "twice-bug", .schedule = twice_schedule };

static void test_start_twice_is_fatal(void **state)
{
	(void)state;
	static const struct tj q[] = { { 0, 1, 10, 10 } };
	double start[1];
	char err[512] = "";
	assert_int_equal(run_jobs(NULL, 2, q, 1, start, err, sizeof err, &twice_policy), -1);
	assert_non_null(strstr(err, "twice-bug"));
	assert_non_null(strstr(err, "not pending"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fcfs),
		cmocka_unit_test(test_easy),
		cmocka_unit_test(test_conservative),
		cmocka_unit_test(test_easy_before_shadow),
		cmocka_unit_test(test_estimates),
		cmocka_unit_test(test_same_pass_starts_count),
		cmocka_unit_test(test_kept_profile_window),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_horizon),
		cmocka_unit_test(test_held_jobs_end_the_run),
		cmocka_unit_test(test_invalid_decision_is_fatal),
		cmocka_unit_test(test_start_twice_is_fatal),
	};
	return cmocka_run_group_tests_name("backfill", tests, NULL, NULL);
}
