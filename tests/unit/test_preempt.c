/* Preemption, checkpoints and requeue in the engine (docs/models.md
 * "Preemption and checkpoints"), on hand-worked cases: a grace long enough
 * to checkpoint on the signal loses nothing; a short grace loses the work
 * since the last periodic checkpoint; a job without checkpoints restarts
 * from zero; restart overhead; quota holds and their approval events. A
 * small test policy starts what fits (first fit) and preempts job 0 at a
 * given time. */
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
#include "tests/testutil.h"
#include "config/scenario.h"

struct tp {
	simtime preempt_at;       /* preempt job 0 at the first pass at or after this; -1 never */
	bool done;
	int32_t hold_job;         /* hold this job for quota at its first pass; -1 none */
	bool twice;               /* also preempt job 0 again while it checkpoints (invalid) */
	struct alloc_part parts[16];
};

static void tp_schedule(void *state, const struct view *v, struct decide *out)
{
	struct tp *p = state;
	if (p->twice && p->done && v->jobs[0].state == JOB_CHECKPOINTING) {
		decide_preempt(out, 0, "again");
		return;
	}
	if (p->preempt_at >= 0 && !p->done && v->now >= p->preempt_at && v->jobs[0].state == JOB_RUNNING) {
		p->done = true;
		if (decide_preempt(out, 0, "test"))
			return;
	}
	for (int32_t i = 0; i < v->npending; i++) {
		const struct job *j = &v->jobs[v->pending[i]];
		if (j->state != JOB_PENDING)
			continue;
		if (j->id == p->hold_job && !j->approved) {
			if (decide_hold(out, j->id, "quota"))
				return;
			continue;
		}
		int n = place_first_fit(v->cl, v->cl->free, &j->req, p->parts);
		if (n > 0 && decide_start(out, j->id, p->parts, n))
			return;
	}
}

static const struct policy_ops tp_ops = { .name = "test-preempt", .schedule = tp_schedule };

struct tjob {
	double submit_s, run_s, ckpt_every_s;
	int tenant;
};

static const char scenario_fmt[] =
	"{ \"name\": \"preempt\", \"sample_interval_s\": 0,\n"
	"  \"checkpoint\": { \"training\": { \"cost_s\": %g, \"restart_s\": %g, \"grace_s\": %g } },\n"
	"  \"node_types\": [ { \"name\": \"g\", \"gpu\": \"A100-SXM-80GB\", \"gpus\": 1, \"cores\": 4, \"mem_gib\": 64 } ],\n"
	"  \"racks\": [ { \"name\": \"r\", \"power_kw\": 20, \"nodes\": [ { \"type\": \"g\", \"count\": 1 } ] } ],\n"
	"  \"workload\": { \"trace\": \"none.jsonl\" } }\n";

static struct sim s;
static struct scenario sc;

/* Runs jobs (training, 1 GPU each) with the given checkpoint settings. */
static void run(double cost_s, double restart_s, double grace_s, const struct tjob *tj, int n,
                struct tp *p, const struct org *org)
{
	char text[2048], err[1024];
	snprintf(text, sizeof text, scenario_fmt, cost_s, restart_s, grace_s);
	char *path = tu_write_tmp(".json", text);
	if (scenario_load(path, &sc, err, sizeof err))
		fail_msg("%s", err);
	unlink(path);
	free(path);
	struct job *jobs = calloc((size_t)n, sizeof *jobs);
	struct job_truth *truth = calloc((size_t)n, sizeof *truth);
	for (int i = 0; i < n; i++) {
		job_init(&jobs[i], i, simtime_from_s(tj[i].submit_s));
		jobs[i].cls = JOB_TRAINING;
		jobs[i].tenant = tj[i].tenant;
		jobs[i].req = (struct job_req){ .nodes = 1, .gpus = 1, .cores = 1 };
		jobs[i].ckpt_every_us = simtime_from_s(tj[i].ckpt_every_s);
		truth[i].run_us = simtime_from_s(tj[i].run_s);
	}
	struct sim_cfg cfg = { .horizon_us = SIMTIME_INF, .speed_model = true, .org = org };
	memcpy(cfg.ckpt, sc.ckpt, sizeof cfg.ckpt);
	assert_int_equal(sim_init(&s, &cfg, &sc.cl, jobs, truth, n), 0);
	struct sim_sched sched = { .name = "test-preempt", .state = p, .schedule = tp_ops.schedule };
	sim_set_sched(&s, &sched);
	if (sim_run(&s) && !p->twice)
		fail_msg("%s", s.err);
}

static void done(void)
{
	sim_fini(&s);
	scenario_free(&sc);
}

#define NEAR(a, b) do { double a_ = (a), b_ = (b); if (fabs(a_ - b_) > 1e-3) fail_msg("%s = %.6f, expected %.6f", #a, a_, b_); } while (0)

/* Grace 30 s ≥ cost 10 s: it writes a checkpoint on the signal (10 s, no
 * progress), loses nothing, and after a 20 s restart finishes the rest.
 * Job 0: 1000 s of work, a checkpoint every 1000 s of work (none due before
 * the end), rate 1000/(1000+10) with the pauses spread; preempted at 300 s
 * when job 1 arrives. */
static void test_grace_checkpoint(void **state)
{
	(void)state;
	struct tjob tj[2] = { { 0, 1000, 1000, 0 }, { 300, 50, 0, 0 } };
	struct tp p = { .preempt_at = simtime_from_s(300), .hold_job = -1 };
	run(10, 20, 30, tj, 2, &p, NULL);
	double rate = 1000.0 / 1010.0;
	double done0 = 300 * rate;
	/* stops at 310 and is requeued at its place by submit time, ahead of
	 * job 1: it restarts at once, loads for 20 s, then does the rest; job 1
	 * runs after it */
	NEAR(simtime_to_s(s.jobs[0].start_us), 310);
	NEAR(simtime_to_s(s.jobs[0].end_us), 330 + (1000 - done0) / rate);
	NEAR(simtime_to_s(s.jobs[1].start_us), simtime_to_s(s.jobs[0].end_us));
	assert_int_equal(s.jobs[0].state, JOB_DONE);
	assert_int_equal(s.jobs[0].preemptions, 1);
	assert_int_equal(s.jobs[0].restarts, 1);
	NEAR(s.jobs[0].lost_gpu_s, 0);
	/* GPU held 0..310 and 310..end */
	NEAR(s.jobs[0].gpu_s, simtime_to_s(s.jobs[0].end_us));
	done();
}

/* Grace 10 s < cost 50 s: it runs on until the kill at 310 s and loses the
 * work since its last periodic checkpoint. Checkpoint every 100 s of work
 * at cost 50: rate 100/150. At 310 s it has done 206.67 s of work, saved
 * 200: 6.67 s of work lost, at device rate 1 that is 6.67 GPU-seconds. */
static void test_short_grace_loses(void **state)
{
	(void)state;
	struct tjob tj[2] = { { 0, 1000, 100, 0 }, { 300, 50, 0, 0 } };
	struct tp p = { .preempt_at = simtime_from_s(300), .hold_job = -1 };
	run(50, 0, 10, tj, 2, &p, NULL);
	double rate = 100.0 / 150.0;
	NEAR(s.jobs[0].lost_gpu_s, 310 * rate - 200);
	/* restarts at 310 (ahead of job 1) with 800 s of work left */
	NEAR(simtime_to_s(s.jobs[0].end_us), 310 + 800 / rate);
	/* checkpoint time: a third of its running time */
	NEAR(s.jobs[0].ckpt_s, (310 + 800 / rate) / 3);
	done();
}

/* No checkpoints: everything done before the kill is lost; it restarts
 * from zero. */
static void test_no_checkpoint_restarts(void **state)
{
	(void)state;
	struct tjob tj[2] = { { 0, 1000, 0, 0 }, { 300, 50, 0, 0 } };
	struct tp p = { .preempt_at = simtime_from_s(300), .hold_job = -1 };
	run(0, 0, 30, tj, 2, &p, NULL);
	NEAR(s.jobs[0].lost_gpu_s, 330);
	NEAR(simtime_to_s(s.jobs[0].end_us), 330 + 1000);
	assert_int_equal(s.jobs[0].state, JOB_DONE);
	done();
}

/* A quota hold waits for the org's approval event at 500 s. */
static void test_quota_approval(void **state)
{
	(void)state;
	struct org org;
	org_init(&org);
	struct org_tenant t[2] = { { .name = "a", .shares = 1 }, { .name = "b", .shares = 1, .auto_approve = true } };
	struct org_approval ap = { .at_us = simtime_from_s(500), .tenant = 0 };
	org.t = t;
	org.nt = 2;
	org.approve = &ap;
	org.napprove = 1;
	struct tjob tj[1] = { { 10, 100, 0, 0 } };
	struct tp p = { .preempt_at = -1, .hold_job = 0 };
	run(0, 0, 30, tj, 1, &p, &org);
	NEAR(simtime_to_s(s.jobs[0].held_us), 490);
	NEAR(simtime_to_s(s.jobs[0].start_us), 500);
	assert_int_equal(s.jobs[0].approved, 1);
	assert_int_equal(s.jobs[0].hold_why, HOLD_QUOTA);
	done();
	/* tenant b auto-approves: held and released at once */
	struct tjob tb[1] = { { 10, 100, 0, 1 } };
	struct tp pb = { .preempt_at = -1, .hold_job = 0 };
	run(0, 0, 30, tb, 1, &pb, &org);
	assert_true(simtime_to_s(s.jobs[0].start_us) < 10.001);
	assert_int_equal(s.jobs[0].approved, 1);
	done();
}

/* A preempted job cannot be preempted again while it checkpoints. */
static void test_double_preempt_refused(void **state)
{
	(void)state;
	struct tjob tj[2] = { { 0, 1000, 0, 0 }, { 300, 50, 0, 0 }, };
	struct tp p = { .preempt_at = simtime_from_s(300), .hold_job = -1, .twice = true };
	/* a second job arriving during the grace makes the pass that tries */
	struct tjob tj3[3] = { tj[0], tj[1], { 310, 50, 0, 0 } };
	run(0, 0, 30, tj3, 3, &p, NULL);
	assert_true(s.failed);
	assert_non_null(strstr(s.err, "already signalled"));
	done();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grace_checkpoint),
		cmocka_unit_test(test_short_grace_loses),
		cmocka_unit_test(test_no_checkpoint_restarts),
		cmocka_unit_test(test_quota_approval),
		cmocka_unit_test(test_double_preempt_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
