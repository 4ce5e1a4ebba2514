/* The tiered policy (docs/policies.md "tiered") through the engine, on
 * small clusters whose schedules are worked out by hand: the victim order
 * (class, then priority, then least work lost), gangs taken whole, the
 * exempt time, no second preemption while victims checkpoint and their
 * freed resources kept for the job they were preempted for, reserved
 * GPUs and bound nodes, dev idle fill, the dev limits, quota holds; and
 * the "tiered" block's loader errors. Every run checks that each job ends
 * exactly once, done, unless the test expects it held. */
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
#include "policies/tiered.h"
#include "sim/engine.h"
#include "tests/testutil.h"
#include "config/scenario.h"
#include "config/tieredcfg.h"

#define MAXJ 16

/* Two-GPU nodes; `extra` adds top-level keys (a "tiered" block). */
static const char scenario_fmt[] =
	"{ \"name\": \"tiered\", \"sample_interval_s\": 0,\n"
	"  \"checkpoint\": { \"training\": { \"grace_s\": 30 }, \"batch\": { \"grace_s\": 30 },\n"
	"                    \"dev\": { \"grace_s\": 10 } },\n"
	"  \"node_types\": [\n"
	"    { \"name\": \"a\", \"gpu\": \"A100-SXM-80GB\", \"gpus\": 2, \"cores\": 8, \"mem_gib\": 64 },\n"
	"    { \"name\": \"h\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 2, \"cores\": 8, \"mem_gib\": 64 } ],\n"
	"  \"racks\": [ { \"name\": \"r\", \"power_kw\": 40, \"nodes\": [ { \"type\": \"%s\", \"count\": %d } ] } ]%s%s,\n"
	"  \"workload\": { \"trace\": \"none.jsonl\" } }\n";

struct tj {
	int cls;
	double submit_s, run_s, wall_s;
	int nodes, gpus, tenant;
	double ckpt_s;
};
static const int *job_group;   /* job.group of each job, or NULL: 0 */

/* What the recorder saw. */
struct seen {
	int starts[MAXJ];
	double first_start_s[MAXJ];
	int first_node[MAXJ];
	int preempted_for[MAXJ];   /* the inference job named in the last preemption reason, -1 none */
	int ends[MAXJ];
	char hold[MAXJ][32];
};

static struct sim s;
static struct scenario sc;
static struct seen seen;

static void rec_event(void *ctx, simtime t, enum rec_kind kind, int32_t job, int32_t node, int state,
                      const char *detail)
{
	struct seen *w = ctx;
	(void)state;
	if (job < 0 || job >= MAXJ)
		return;
	if (kind == REC_START) {
		if (w->starts[job]++ == 0) {
			w->first_start_s[job] = simtime_to_s(t);
			w->first_node[job] = node;
		}
	} else if (kind == REC_END) {
		w->ends[job]++;
	} else if (kind == REC_PREEMPT) {
		assert_non_null(detail);
		assert_int_equal(sscanf(detail, "for inference job %d", &w->preempted_for[job]), 1);
	} else if (kind == REC_HOLD) {
		snprintf(w->hold[job], sizeof w->hold[job], "%s", detail ? detail : "");
	}
}

/* Runs the jobs under tiered on `count` nodes of type `type` with the
 * given extra scenario keys, org and parameter overrides ("name=value"). */
static void run(const char *type, int count, const char *tiered, const struct tj *tj, int n,
                const struct org *org, const char *const *params)
{
	char text[4096], err[1024];
	snprintf(text, sizeof text, scenario_fmt, type, count, tiered ? ",\n  " : "", tiered ? tiered : "");
	char *path = tu_write_tmp(".json", text);
	if (scenario_load(path, &sc, err, sizeof err))
		fail_msg("%s", err);
	unlink(path);
	free(path);
	if (sc.tiered && tiered_bind(sc.tiered, &sc.cl, err, sizeof err))
		fail_msg("%s", err);
	assert_true(n <= MAXJ);
	struct job *jobs = calloc((size_t)n, sizeof *jobs);
	struct job_truth *truth = calloc((size_t)n, sizeof *truth);
	for (int i = 0; i < n; i++) {
		job_init(&jobs[i], i, simtime_from_s(tj[i].submit_s));
		jobs[i].cls = (uint8_t)tj[i].cls;
		jobs[i].tenant = tj[i].tenant;
		jobs[i].group = job_group ? job_group[i] : 0;
		jobs[i].req = (struct job_req){ .nodes = tj[i].nodes ? tj[i].nodes : 1, .gpus = tj[i].gpus, .cores = 1 };
		jobs[i].walltime_us = tj[i].wall_s > 0 ? simtime_from_s(tj[i].wall_s) : SIMTIME_INF;
		jobs[i].ckpt_every_us = simtime_from_s(tj[i].ckpt_s);
		truth[i].run_us = simtime_from_s(tj[i].run_s);
	}
	const struct policy_ops *pol = policy_find("tiered");
	assert_non_null(pol);
	struct policy_cfg cfg;
	policy_cfg_defaults(pol, &cfg);
	for (int k = 0; params && params[k]; k++) {
		char name[64];
		double val;
		assert_int_equal(sscanf(params[k], "%63[^=]=%lf", name, &val), 2);
		int i = policy_param_index(pol, name);
		assert_true(i >= 0);
		cfg.v[i] = val;
	}
	struct sim_cfg scfg = { .horizon_us = SIMTIME_INF, .org = org, .env = sc.env, .nenv = sc.nenv,
	                        .fault = sc.faults ? &sc.fault : NULL };
	memcpy(scfg.ckpt, sc.ckpt, sizeof scfg.ckpt);
	void *ps = NULL;
	struct policy_env env = { .cl = &sc.cl, .njobs = n, .placement = "first-fit", .org = org,
	                          .sim = &scfg, .tiered = sc.tiered };
	if (pol->init(&ps, &env, &cfg, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(sim_init(&s, &scfg, &sc.cl, jobs, truth, n), 0);
	struct sim_sched sched;
	policy_to_sched(pol, ps, &sched);
	sim_set_sched(&s, &sched);
	memset(&seen, 0, sizeof seen);
	for (int i = 0; i < MAXJ; i++)
		seen.preempted_for[i] = -1;
	struct sim_recorder rec = { .ctx = &seen, .event = rec_event };
	sim_set_recorder(&s, &rec);
	if (sim_run(&s))
		fail_msg("%s", s.err);
	pol->fini(ps);
	/* every job ended once, or is still held */
	for (int i = 0; i < n; i++)
		if (s.jobs[i].state != JOB_HELD) {
			if (s.jobs[i].state != JOB_DONE)
				fail_msg("job %d ended %s", i, job_state_name((enum job_state)s.jobs[i].state));
			assert_int_equal(seen.ends[i], 1);
			assert_int_equal(seen.starts[i], s.jobs[i].restarts + 1);
		}
}

static void done(void)
{
	sim_fini(&s);
	scenario_free(&sc);
}

#define NEAR(a, b) do { double a_ = (a), b_ = (b); if (fabs(a_ - b_) > 1e-3) \
	fail_msg("%s = %.6f, expected %.6f", #a, a_, b_); } while (0)

enum { T = JOB_TRAINING, I = JOB_INFERENCE, B = JOB_BATCH, D = JOB_DEV };

/* Four GPUs full of training, batch, dev and training; three inference
 * jobs arrive at 1000, 2000 and 3000 s. The first takes the dev job's
 * place, the second the batch job's, the third the training job that
 * loses least: job 3 (a checkpoint every 700 s: 200 s lost at 3000 s)
 * rather than job 0 (no checkpoint: 3000 s lost), though job 0 has the
 * lower id. Job 3 checkpoints on the signal (no cost) and stops at once. */
static void test_victim_class_then_lost(void **state)
{
	(void)state;
	struct tj tj[] = {
		{ T, 0, 10000, 20000, 1, 1, 0, 0 },
		{ B, 0, 10000, 20000, 1, 1, 0, 0 },
		{ D, 0, 10000, 20000, 1, 1, 0, 0 },
		{ T, 0, 10000, 20000, 1, 1, 0, 700 },
		{ I, 1000, 5000, 6000, 1, 1, 0, 0 },
		{ I, 2000, 5000, 6000, 1, 1, 0, 0 },
		{ I, 3000, 5000, 6000, 1, 1, 0, 0 },
	};
	run("a", 2, NULL, tj, 7, NULL, NULL);
	assert_int_equal(s.jobs[2].preemptions, 1);
	assert_int_equal(seen.preempted_for[2], 4);
	assert_int_equal(s.jobs[1].preemptions, 1);
	assert_int_equal(seen.preempted_for[1], 5);
	assert_int_equal(s.jobs[3].preemptions, 1);
	assert_int_equal(seen.preempted_for[3], 6);
	assert_int_equal(s.jobs[0].preemptions, 0);
	/* the dev job stops after its 10 s grace, the others after 30 s */
	NEAR(seen.first_start_s[4], 1010);
	NEAR(seen.first_start_s[5], 2030);
	NEAR(seen.first_start_s[6], 3000);
	done();
}

/* A configured victim order: only training may be preempted, so the
 * inference job takes the training job's GPU although a dev and a batch
 * job run; with preempt=0 it waits for the first end (the dev job's). */
static void test_victim_order_config(void **state)
{
	(void)state;
	struct tj tj[] = {
		{ D, 0, 1000, 2000, 1, 1, 0, 0 },
		{ B, 0, 10000, 20000, 1, 1, 0, 0 },
		{ T, 0, 10000, 20000, 1, 2, 0, 0 },
		{ I, 700, 100, 200, 1, 1, 0, 0 },
	};
	run("a", 2, "\"tiered\": { \"victim_order\": [\"training\"] }", tj, 4, NULL, NULL);
	assert_int_equal(s.jobs[0].preemptions, 0);
	assert_int_equal(s.jobs[1].preemptions, 0);
	assert_int_equal(s.jobs[2].preemptions, 1);
	NEAR(seen.first_start_s[3], 730);
	done();

	const char *const p[] = { "preempt=0", NULL };
	run("a", 2, NULL, tj, 4, NULL, p);
	for (int i = 0; i < 4; i++)
		assert_int_equal(s.jobs[i].preemptions, 0);
	NEAR(seen.first_start_s[3], 1000);
	done();
}

/* Priority before lost work: two batch jobs start at 2100 s, job 1 of a
 * fresh tenant with a checkpoint every 1000 s (900 s lost at 4000 s), job
 * 2 of tenant 1, which used two GPUs for 2000 s before (lower fair share,
 * so lower priority), without checkpoints (1900 s lost). The inference
 * job at 4000 s preempts job 2. */
static void test_victim_priority(void **state)
{
	(void)state;
	struct tj tj[] = {
		{ B, 0, 2000, 3000, 1, 2, 1, 0 },
		{ B, 2100, 10000, 20000, 1, 1, 2, 1000 },
		{ B, 2100, 10000, 20000, 1, 1, 1, 0 },
		{ T, 0, 10000, 20000, 1, 2, 3, 0 },
		{ I, 4000, 100, 200, 1, 1, 4, 0 },
	};
	run("a", 2, NULL, tj, 5, NULL, NULL);
	assert_int_equal(s.jobs[2].preemptions, 1);
	assert_int_equal(s.jobs[1].preemptions, 0);
	assert_int_equal(s.jobs[3].preemptions, 0);
	NEAR(seen.first_start_s[4], 4030);
	done();
}

/* A gang is taken whole: job 0 is a two-node gang of one GPU per node,
 * jobs 1 and 2 batch jobs on the other GPUs. The inference job wants both
 * GPUs of one node: batch goes first, but no batch job alone makes room,
 * so the gang goes too (all of it: both nodes) with the fewest batch jobs
 * that complete a node — job 1 — and job 2 keeps running. */
static void test_gang_whole(void **state)
{
	(void)state;
	struct tj tj[] = {
		{ T, 0, 10000, 20000, 2, 1, 0, 0 },
		{ B, 0, 10000, 20000, 1, 1, 0, 0 },
		{ B, 0, 10000, 20000, 1, 1, 0, 0 },
		{ I, 1000, 500, 1000, 1, 2, 0, 0 },
	};
	run("a", 2, NULL, tj, 4, NULL, NULL);
	assert_int_equal(s.jobs[0].preemptions, 1);
	assert_int_equal(s.jobs[1].preemptions, 1);
	assert_int_equal(s.jobs[2].preemptions, 0);
	NEAR(seen.first_start_s[3], 1030);
	assert_int_equal(seen.first_node[3], 0);
	/* the gang waits for two nodes with a free GPU each: job 2's node has
	 * one from 1030 s, node 0 from 1530 s when the inference job ends */
	assert_true(s.jobs[0].start_us >= simtime_from_s(1530));
	done();
}

/* The exempt time: job 1 (batch) started 200 s before the inference job
 * arrives, so job 0 (training, 700 s old) is preempted instead, although
 * batch goes before training. With preempt_exempt_s = 800 neither may go
 * at 700 s: the inference job waits for the first exemption to run out. */
static void test_exempt(void **state)
{
	(void)state;
	struct tj tj[] = {
		{ T, 0, 5000, 10000, 1, 1, 0, 0 },
		{ B, 500, 3000, 10000, 1, 1, 0, 0 },
		{ I, 700, 100, 200, 1, 1, 0, 0 },
	};
	run("a", 1, NULL, tj, 3, NULL, NULL);
	assert_int_equal(s.jobs[0].preemptions, 1);
	assert_int_equal(s.jobs[1].preemptions, 0);
	NEAR(seen.first_start_s[2], 730);
	done();

	/* Both protected at 700 s: the policy asks for a pass when the first
	 * exemption runs out (job 0's, at 800 s), preempts it then, and the
	 * inference job starts after its 30 s grace. */
	const char *const p[] = { "preempt_exempt_s=800", NULL };
	run("a", 1, NULL, tj, 3, NULL, p);
	assert_int_equal(s.jobs[0].preemptions, 1);
	assert_int_equal(s.jobs[1].preemptions, 0);
	NEAR(seen.first_start_s[2], 830);
	done();
}

/* No second preemption while the first victim checkpoints: a dev job
 * arriving at 1010 s makes a pass while job 0 (preempted at 1000 s, 30 s
 * grace) still runs; job 1 must not be preempted too. */
static void test_no_double_preemption(void **state)
{
	(void)state;
	struct tj tj[] = {
		{ B, 0, 10000, 20000, 1, 1, 0, 0 },
		{ B, 0, 10000, 20000, 1, 1, 0, 0 },
		{ I, 1000, 100, 200, 1, 1, 0, 0 },
		{ D, 1010, 10, 100, 1, 1, 0, 0 },
	};
	run("a", 1, NULL, tj, 4, NULL, NULL);
	assert_int_equal(s.jobs[0].preemptions, 1);
	assert_int_equal(s.jobs[1].preemptions, 0);
	NEAR(seen.first_start_s[2], 1030);
	done();
}

/* What the first victim frees is kept for the inference job while the
 * second still stops: it needs both GPUs of the node; the dev victim stops
 * after 10 s, the batch victim after 30 s. Batch job 2, pending since
 * 900 s, must not take the GPU freed at 1010 s. */
static void test_freed_kept(void **state)
{
	(void)state;
	struct tj tj[] = {
		{ D, 0, 10000, 20000, 1, 1, 0, 0 },
		{ B, 0, 10000, 20000, 1, 1, 0, 0 },
		{ B, 900, 100, 200, 1, 1, 0, 0 },
		{ I, 1000, 500, 1000, 1, 2, 0, 0 },
	};
	run("a", 1, NULL, tj, 4, NULL, NULL);
	assert_int_equal(s.jobs[0].preemptions, 1);
	assert_int_equal(s.jobs[1].preemptions, 1);
	assert_int_equal(s.jobs[2].preemptions, 0);
	NEAR(seen.first_start_s[3], 1030);
	NEAR(seen.first_start_s[2], 1530);
	done();
}

/* Two of four H100s reserved: batch jobs 0 and 1 start, job 2 waits
 * although two H100s are free; the inference job at 100 s starts at once
 * on one of them. Then only one is free and one is still reserved (two
 * less the inference job's): job 2 starts when job 0 ends. With preempt=0
 * nothing is preempted either way. */
static void test_reservation(void **state)
{
	(void)state;
	struct tj tj[] = {
		{ B, 0, 1000, 2000, 1, 1, 0, 0 },
		{ B, 0, 2000, 3000, 1, 1, 0, 0 },
		{ B, 0, 1000, 2000, 1, 1, 0, 0 },
		{ I, 100, 5000, 6000, 1, 1, 0, 0 },
	};
	run("h", 2, "\"tiered\": { \"reserve\": [ { \"gpu\": \"H100-SXM-80GB\", \"gpus\": 2 } ] }", tj, 4, NULL, NULL);
	NEAR(seen.first_start_s[0], 0);
	NEAR(seen.first_start_s[1], 0);
	NEAR(seen.first_start_s[3], 100);
	NEAR(seen.first_start_s[2], 1000);
	for (int i = 0; i < 4; i++)
		assert_int_equal(s.jobs[i].preemptions, 0);
	done();
}

/* A gang that a drained node leaves no room for waits for it, and is not
 * held for ever: three H100 nodes, r-n3's two cards reserved, r-n2
 * drained from 10 s for half an hour. Job 0, a three-node gang (5 s), can
 * never fit beside the reserve: held, reason "reserve" (the event's detail
 * and job.hold_why). Job 1, a two-node gang (20 s), fits only r-n1 and
 * r-n2: it holds no reservation while r-n2 is out and starts when r-n2 is
 * back, at 1810 s. (Judged on the nodes' state of 20 s it was held
 * "reserve" too, and nothing released it.) */
static void test_reserve_hold_state(void **state)
{
	(void)state;
	struct tj tj[] = {
		{ T, 5, 100, 200, 3, 2, 0, 0 },
		{ T, 20, 100, 200, 2, 2, 0, 0 },
	};
	run("h", 3,
	    "\"tiered\": { \"reserve\": [ { \"gpu\": \"H100-SXM-80GB\", \"gpus\": 2 } ] },\n"
	    "  \"events\": [ { \"at\": \"10s\", \"node_drain\": \"r-n2\", \"hours\": 0.5 } ]",
	    tj, 2, NULL, NULL);
	assert_int_equal(s.jobs[0].state, JOB_HELD);
	assert_string_equal(seen.hold[0], "reserve");
	assert_int_equal(s.jobs[0].hold_why, HOLD_RESERVE);
	assert_string_equal(job_hold_name((enum hold_reason)s.jobs[0].hold_why), "reserve");
	assert_string_equal(seen.hold[1], "");
	assert_int_equal(s.jobs[1].state, JOB_DONE);
	NEAR(seen.first_start_s[1], 1810);
	done();
}

/* A node bound to inference stays idle for offline work: three nodes,
 * r-n3 bound; three batch jobs of a whole node each start on r-n1, r-n2
 * and then (when the first ends) r-n1 again; the inference job goes to
 * r-n3. */
static void test_bound_node(void **state)
{
	(void)state;
	struct tj tj[] = {
		{ B, 0, 1000, 2000, 1, 2, 0, 0 },
		{ B, 0, 2000, 3000, 1, 2, 0, 0 },
		{ B, 0, 1000, 2000, 1, 2, 0, 0 },
		{ I, 100, 500, 1000, 1, 1, 0, 0 },
	};
	run("a", 3, "\"tiered\": { \"reserve\": [ { \"nodes\": [\"r-n3\"] } ] }", tj, 4, NULL, NULL);
	assert_int_equal(seen.first_node[0], 0);
	assert_int_equal(seen.first_node[1], 1);
	NEAR(seen.first_start_s[2], 1000);
	assert_int_equal(seen.first_node[2], 0);
	assert_int_equal(seen.first_node[3], 2);
	done();
}

/* Dev fills what offline leaves: at 1000 s a GPU node frees; dev job 1
 * (waiting since 0) and batch job 3 (since 500) both want it: batch goes
 * first. The dev job gets the node when job 2 ends. */
static void test_dev_idle_fill(void **state)
{
	(void)state;
	struct tj tj[] = {
		{ B, 0, 1000, 2000, 1, 2, 0, 0 },
		{ D, 0, 100, 200, 1, 1, 0, 0 },
		{ B, 0, 3000, 4000, 1, 2, 0, 0 },
		{ B, 500, 5000, 6000, 1, 2, 0, 0 },
	};
	run("a", 2, NULL, tj, 4, NULL, NULL);
	NEAR(seen.first_start_s[3], 1000);
	NEAR(seen.first_start_s[1], 3000);
	done();
}

/* Dev limits: two GPUs per tenant, 1 h at most. Tenant 0's three
 * one-GPU dev jobs run two at a time although four GPUs are free; tenant
 * 1's job runs beside them; a three-GPU dev job and one asking for 2 h
 * are held. */
static void test_dev_limits(void **state)
{
	(void)state;
	struct tj tj[] = {
		{ D, 0, 1000, 2000, 1, 1, 0, 0 },
		{ D, 0, 1000, 2000, 1, 1, 0, 0 },
		{ D, 0, 1000, 2000, 1, 1, 0, 0 },
		{ D, 0, 1000, 2000, 1, 1, 1, 0 },
		{ D, 0, 1000, 2000, 2, 2, 1, 0 },
		{ D, 0, 1000, 7200, 1, 1, 2, 0 },
	};
	run("a", 3, "\"tiered\": { \"dev\": { \"max_gpus_per_tenant\": 2, \"max_runtime_s\": 3600 } }",
	    tj, 6, NULL, NULL);
	NEAR(seen.first_start_s[0], 0);
	NEAR(seen.first_start_s[1], 0);
	NEAR(seen.first_start_s[2], 1000);
	NEAR(seen.first_start_s[3], 0);
	assert_int_equal(s.jobs[4].state, JOB_HELD);
	assert_string_equal(seen.hold[4], "dev-gpus");
	assert_int_equal(s.jobs[5].state, JOB_HELD);
	assert_string_equal(seen.hold[5], "dev-runtime");
	done();
}

/* Quotas: tenant 0 may use 1 GPU-hour over 30 days. Job 0 (estimate
 * 0.5 h) starts; job 1 (0.75 h) would make 1.25 h with what job 0 is
 * expected to use (0.5 h, not the 10 s it used so far) and is held for quota, as
 * is job 2 of project 1 whose own quota is 0.25 GPU-hours; tenant 1's job
 * 3 has no quota. An approval of tenant 0 at 5000 s releases jobs 1 and
 * 2, marked approved; they then run. */
static void test_quota_hold(void **state)
{
	(void)state;
	struct org org;
	org_init(&org);
	struct org_project pr[2] = { { .name = "p0", .shares = 1 },
	                             { .name = "p1", .shares = 1, .quota = { .gpu_hours = 0.25, .window_us = 30 * SIMTIME_DAY } } };
	struct org_tenant tn[2] = {
		{ .name = "t0", .shares = 1, .quota = { .gpu_hours = 1, .window_us = 30 * SIMTIME_DAY },
		  .first_project = 0, .nprojects = 2 },
		{ .name = "t1", .shares = 1, .first_project = 2, .nprojects = 0 },
	};
	struct org_approval ap = { .at_us = simtime_from_s(5000), .tenant = 0 };
	org.t = tn;
	org.nt = 2;
	org.p = pr;
	org.np = 2;
	org.approve = &ap;
	org.napprove = 1;
	struct tj tj[] = {
		{ B, 0, 1800, 1800, 1, 1, 0, 0 },
		{ B, 10, 100, 2700, 1, 1, 0, 0 },
		{ B, 10, 100, 1800, 1, 1, 0, 0 },
		{ B, 10, 100, 36000, 1, 1, 1, 0 },
	};
	static const int group[] = { 0, 0, 1, 0 };
	job_group = group;
	run("a", 2, NULL, tj, 4, &org, NULL);
	job_group = NULL;
	assert_string_equal(seen.hold[1], "quota");
	assert_string_equal(seen.hold[2], "quota");
	assert_string_equal(seen.hold[3], "");
	NEAR(seen.first_start_s[0], 0);
	NEAR(seen.first_start_s[3], 10);
	NEAR(seen.first_start_s[1], 5000);
	NEAR(seen.first_start_s[2], 5000);
	assert_int_equal(s.jobs[1].approved, 1);
	assert_int_equal(s.jobs[2].approved, 1);
	done();
}

/* A quota window slides: 1 GPU-hour over one hour. Job 1 (1 h) is held
 * while job 0's half hour, ended at 1800 s, is inside the window; the
 * first pass after 5400 s (job 2's arrival at 6000 s) finds it outside and
 * releases job 1, not approved. */
static void test_quota_window(void **state)
{
	(void)state;
	struct org org;
	org_init(&org);
	struct org_tenant tn[1] = { { .name = "t0", .shares = 1,
	                              .quota = { .gpu_hours = 1, .window_us = SIMTIME_HOUR } } };
	org.t = tn;
	org.nt = 1;
	struct tj tj[] = {
		{ B, 0, 1800, 1800, 1, 1, 0, 0 },
		{ B, 10, 100, 3600, 1, 1, 0, 0 },
		{ B, 6000, 100, 200, 1, 1, 1, 0 },
	};
	run("a", 1, NULL, tj, 3, &org, NULL);
	assert_string_equal(seen.hold[1], "quota");
	NEAR(seen.first_start_s[1], 6000);
	assert_int_equal(s.jobs[1].approved, 0);
	done();
}

/* A random mix of every class on A100 and H100 nodes (one H100 node bound
 * to inference, four H100s reserved), with gangs, time-sliced shares,
 * checkpoints, dev limits and quotas. At every start the recorder checks
 * that no offline or dev job starts on the bound node and that one that
 * takes whole H100s elsewhere leaves at least the reserve less what
 * inference uses (cards holding inference jobs) free; at the end every
 * job is done exactly once (a preempted one too) or held. The engine
 * checks each allocation. */
static const char mix_text[] =
	"{ \"name\": \"mix\", \"sample_interval_s\": 0,\n"
	"  \"checkpoint\": { \"training\": { \"cost_s\": 20, \"grace_s\": 60, \"restart_s\": 30 },\n"
	"                    \"batch\": { \"grace_s\": 30 }, \"dev\": { \"grace_s\": 10 } },\n"
	"  \"node_types\": [\n"
	"    { \"name\": \"a\", \"gpu\": \"A100-SXM-80GB\", \"gpus\": 2, \"cores\": 16, \"mem_gib\": 64 },\n"
	"    { \"name\": \"h\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 2, \"cores\": 16, \"mem_gib\": 64 },\n"
	"    { \"name\": \"c\", \"cores\": 32, \"mem_gib\": 64 } ],\n"
	"  \"racks\": [ { \"name\": \"ra\", \"power_kw\": 40, \"nodes\": [ { \"type\": \"a\", \"count\": 4 } ] },\n"
	"             { \"name\": \"rh\", \"power_kw\": 40, \"nodes\": [ { \"type\": \"h\", \"count\": 4 } ] },\n"
	"             { \"name\": \"rc\", \"power_kw\": 40, \"nodes\": [ { \"type\": \"c\", \"count\": 2 } ] } ],\n"
	"  \"tiered\": { \"reserve\": [ { \"gpu\": \"H100-SXM-80GB\", \"gpus\": 4 }, { \"nodes\": [\"rh-n4\"] } ],\n"
	"              \"dev\": { \"max_gpus_per_tenant\": 2, \"max_runtime_s\": 3600 } },\n"
	"  \"workload\": { \"trace\": \"none.jsonl\" } }\n";

struct mixchk {
	long starts, checks;
	int32_t bound, h100;
};

static void mix_event(void *ctx, simtime t, enum rec_kind kind, int32_t job, int32_t node, int state,
                      const char *detail)
{
	struct mixchk *m = ctx;
	(void)t, (void)node, (void)state, (void)detail;
	if (kind != REC_START)
		return;
	m->starts++;
	const struct job *j = &s.jobs[job];
	if (j->cls == JOB_INFERENCE)
		return;
	const struct cluster *cl = &s.cl;
	bool whole_h100 = false;
	for (int i = 0; i < j->nparts; i++) {
		const struct alloc_part *p = &cl->pool.p[j->parts + (uint32_t)i];
		if (p->node == m->bound)
			fail_msg("%s job %d started on the bound node", job_class_name((enum job_class)j->cls), job);
		whole_h100 |= cl->nodes[p->node].gpu_model == m->h100 && p->milli == 0 && p->mig_profile < 0 && p->gpus;
	}
	if (!whole_h100)
		return;
	int64_t free_h = 0, inf_h = 0;
	uint64_t inf_cards[16] = { 0 };
	assert_true(cl->nnodes <= 16);
	for (int32_t i = 0; i < cl->nnodes; i++)
		if (i != m->bound && cl->nodes[i].gpu_model == m->h100)
			free_h += cl->free[i].gpus;
	for (int32_t k = 0; k < s.nrunning; k++) {
		const struct job *r = &s.jobs[s.running[k]];
		for (int i = 0; r->cls == JOB_INFERENCE && i < r->nparts; i++) {
			const struct alloc_part *p = &cl->pool.p[r->parts + (uint32_t)i];
			inf_cards[p->node] |= p->gpus;
		}
	}
	for (int32_t i = 0; i < cl->nnodes; i++)
		if (i != m->bound && cl->nodes[i].gpu_model == m->h100)
			inf_h += hl_popcount64(inf_cards[i]);
	if (free_h < 4 - inf_h)
		fail_msg("t=%.1f s: job %d (%s) leaves %lld free H100s, %lld reserved", simtime_to_s(t), job,
		         job_class_name((enum job_class)j->cls), (long long)free_h, (long long)(4 - inf_h));
	m->checks++;
}

static uint64_t rng;
static uint32_t rnd(uint32_t n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)((rng >> 33) % n);
}

static void mix_run(const char *placement, uint64_t seed)
{
	char err[1024];
	char *path = tu_write_tmp(".json", mix_text);
	if (scenario_load(path, &sc, err, sizeof err))
		fail_msg("%s", err);
	unlink(path);
	free(path);
	if (tiered_bind(sc.tiered, &sc.cl, err, sizeof err))
		fail_msg("%s", err);
	int a100 = catalog_find_gpu(&sc.cl.cat, "A100-SXM-80GB"), h100 = catalog_find_gpu(&sc.cl.cat, "H100-SXM-80GB");
	struct mixchk m = { .bound = sc.tiered->nodes[0], .h100 = h100 };
	enum { N = 400 };
	struct job *jobs = calloc(N, sizeof *jobs);
	struct job_truth *truth = calloc(N, sizeof *truth);
	rng = seed;
	double at = 0;
	for (int i = 0; i < N; i++) {
		at += rnd(600);
		job_init(&jobs[i], i, simtime_from_s(at));
		struct job *j = &jobs[i];
		j->cls = (uint8_t)rnd(JOB_NCLASS);
		j->tenant = (int32_t)rnd(4);
		j->group = (int32_t)rnd(2);
		double run_s = 300 + rnd(3000);
		struct job_req *r = &j->req;
		*r = (struct job_req){ .nodes = 1, .gpus = 1, .cores = 2 };
		switch (j->cls) {
		case JOB_INFERENCE:
			if (rnd(4) == 0)
				r->gpu_milli = 250 * (1 + (int32_t)rnd(3));
			run_s = 600 + rnd(7200);
			break;
		case JOB_TRAINING:
			r->nodes = 1 + (int32_t)rnd(2);
			r->gpus = 1 + (int32_t)rnd(2);
			run_s = 1800 + rnd(20000);
			if (rnd(2))
				j->ckpt_every_us = simtime_from_s(600 + rnd(3000));
			break;
		case JOB_BATCH:
			if (rnd(3) == 0)
				*r = (struct job_req){ .nodes = 0, .cores = 4 + (int32_t)rnd(40) };
			break;
		default:
			break;
		}
		if (r->gpus > 0 && rnd(3) == 0)
			r->gpu_models = 1ull << (rnd(2) ? a100 : h100);
		truth[i].run_us = simtime_from_s(run_s);
		j->walltime_us = simtime_from_s(run_s * (1.2 + rnd(3)));
	}
	struct org org;
	org_init(&org);
	struct org_project pr[2] = { { .name = "p0", .shares = 1 },
	                             { .name = "p1", .shares = 1, .quota = { .gpu_hours = 30, .window_us = SIMTIME_DAY } } };
	struct org_tenant tn[3] = {
		{ .name = "t0", .shares = 2, .quota = { .gpu_hours = 60, .window_us = SIMTIME_DAY }, .nprojects = 0,
		  .first_project = 0 },
		{ .name = "t1", .shares = 1, .auto_approve = true, .quota = { .gpu_hours = 10, .window_us = SIMTIME_DAY },
		  .first_project = 0, .nprojects = 0 },
		{ .name = "t2", .shares = 1, .first_project = 0, .nprojects = 2 },
	};
	struct org_approval ap = { .at_us = simtime_from_s(at / 2), .tenant = 0 };
	org.t = tn;
	org.nt = 3;
	org.p = pr;
	org.np = 2;
	org.approve = &ap;
	org.napprove = 1;
	const struct policy_ops *pol = policy_find("tiered");
	struct policy_cfg cfg;
	policy_cfg_defaults(pol, &cfg);
	cfg.v[policy_param_index(pol, "preempt_exempt_s")] = 300;
	struct sim_cfg scfg = { .horizon_us = SIMTIME_INF, .org = &org, .speed_model = true };
	memcpy(scfg.ckpt, sc.ckpt, sizeof scfg.ckpt);
	void *ps = NULL;
	struct policy_env env = { .cl = &sc.cl, .njobs = N, .placement = placement, .org = &org,
	                          .sim = &scfg, .tiered = sc.tiered, .seed = seed };
	if (pol->init(&ps, &env, &cfg, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(sim_init(&s, &scfg, &sc.cl, jobs, truth, N), 0);
	struct sim_sched sched;
	policy_to_sched(pol, ps, &sched);
	sim_set_sched(&s, &sched);
	struct sim_recorder rec = { .ctx = &m, .event = mix_event };
	sim_set_recorder(&s, &rec);
	if (sim_run(&s))
		fail_msg("%s: %s", placement, s.err);
	pol->fini(ps);
	int preempted = 0, held = 0;
	for (int i = 0; i < N; i++) {
		const struct job *j = &s.jobs[i];
		if (j->state == JOB_HELD) {
			held++;
			continue;
		}
		if (j->state != JOB_DONE)
			fail_msg("%s: job %d (%s) ended %s", placement, i, job_class_name((enum job_class)j->cls),
			         job_state_name((enum job_state)j->state));
		preempted += j->preemptions > 0;
		assert_true(j->cls != JOB_INFERENCE || j->preemptions == 0);
	}
	assert_true(m.checks > 0);
	assert_true(preempted > 0);
	assert_true(held < N / 4);
	done();
}

static void test_random_mix(void **state)
{
	(void)state;
	static const char *const placements[] = { "first-fit", "best-fit", "worst-fit", "fgd", "topology", NULL };
	for (int k = 0; placements[k]; k++)
		mix_run(placements[k], 11 + (uint64_t)k);
}

/* The "tiered" block's errors name the JSON path. */
static void load_err(const char *tiered, const char *want)
{
	char text[4096], err[1024];
	snprintf(text, sizeof text, scenario_fmt, "a", 2, ",\n  ", tiered);
	char *path = tu_write_tmp(".json", text);
	int rc = scenario_load(path, &sc, err, sizeof err);
	unlink(path);
	free(path);
	if (rc == 0) {
		rc = sc.tiered ? tiered_bind(sc.tiered, &sc.cl, err, sizeof err) : 0;
		scenario_free(&sc);
	}
	if (rc == 0)
		fail_msg("accepted: %s", tiered);
	if (!strstr(err, want))
		fail_msg("error \"%s\" lacks \"%s\"", err, want);
}

static void test_load_errors(void **state)
{
	(void)state;
	load_err("\"tiered\": { \"reserve\": [ { \"gpu\": \"H999\", \"gpus\": 2 } ] }",
	         "$.tiered.reserve[0].gpu: unknown GPU model \"H999\"");
	load_err("\"tiered\": { \"reserve\": [ { \"gpu\": \"A100-SXM-80GB\", \"gpus\": 2, \"nodes\": [\"r-n1\"] } ] }",
	         "$.tiered.reserve[0]: expected either");
	load_err("\"tiered\": { \"reserve\": [ { \"gpu\": \"A100-SXM-80GB\", \"gpus\": 0 } ] }",
	         "$.tiered.reserve[0].gpus");
	load_err("\"tiered\": { \"victim_order\": [\"dev\", \"inference\"] }",
	         "$.tiered.victim_order[1]: inference jobs are never preempted");
	load_err("\"tiered\": { \"victim_order\": [\"dev\", \"dev\"] }", "$.tiered.victim_order[1]: class \"dev\" listed twice");
	load_err("\"tiered\": { \"dev\": { \"max_runtime_s\": -1 } }", "$.tiered.dev");
	load_err("\"tiered\": { \"colour\": 1 }", "$.tiered");
	load_err("\"tiered\": { \"reserve\": [ { \"nodes\": [\"r-n1\", \"r-n7\"] } ] }",
	         "$.tiered.reserve[0].nodes[1]: node \"r-n7\" is not in the cluster");
	load_err("\"tiered\": { \"reserve\": [ { \"nodes\": [\"r-n1\"] }, { \"nodes\": [\"r-n1\"] } ] }",
	         "$.tiered.reserve[1].nodes[0]: node \"r-n1\" is bound twice");
	load_err("\"tiered\": { \"reserve\": [ { \"nodes\": [\"r-n1\"] }, { \"gpu\": \"A100-SXM-80GB\", \"gpus\": 3 } ] }",
	         "3 A100-SXM-80GB GPUs reserved, but the cluster has 2");
}

/* The defaults when the block is absent, and what a full block reads. */
static void test_load_values(void **state)
{
	(void)state;
	struct tiered_cfg t;
	tiered_cfg_init(&t);
	assert_false(t.present);
	assert_int_equal(t.nvictim, 3);
	assert_int_equal(t.victim_order[0], JOB_DEV);
	assert_int_equal(t.dev_max_gpus, -1);
	assert_true(t.dev_max_runtime_us == SIMTIME_INF);
	tiered_cfg_fini(&t);

	char text[4096], err[1024];
	snprintf(text, sizeof text, scenario_fmt, "h", 3, ",\n  ",
	         "\"tiered\": { \"reserve\": [ { \"gpu\": \"H100-SXM-80GB\", \"gpus\": 2 }, { \"nodes\": [\"r-n3\", \"r-n1\"] } ],\n"
	         "  \"victim_order\": [\"batch\", \"dev\"], \"dev\": { \"max_gpus_per_tenant\": 1, \"max_runtime_s\": 60 } }");
	char *path = tu_write_tmp(".json", text);
	if (scenario_load(path, &sc, err, sizeof err))
		fail_msg("%s", err);
	unlink(path);
	free(path);
	assert_non_null(sc.tiered);
	assert_true(sc.tiered->present);
	assert_int_equal(sc.tiered->nreserve, 1);
	assert_int_equal(sc.tiered->reserve[0].gpus, 2);
	assert_int_equal(sc.tiered->reserve[0].gpu_model, catalog_find_gpu(&sc.cl.cat, "H100-SXM-80GB"));
	assert_int_equal(sc.tiered->nvictim, 2);
	assert_int_equal(sc.tiered->victim_order[0], JOB_BATCH);
	assert_int_equal(sc.tiered->victim_order[1], JOB_DEV);
	assert_int_equal(sc.tiered->dev_max_gpus, 1);
	assert_true(sc.tiered->dev_max_runtime_us == 60 * SIMTIME_SEC);
	assert_int_equal(tiered_bind(sc.tiered, &sc.cl, err, sizeof err), 0);
	assert_int_equal(sc.tiered->nnodes, 2);
	assert_int_equal(sc.tiered->nodes[0], 0);
	assert_int_equal(sc.tiered->nodes[1], 2);
	scenario_free(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_victim_class_then_lost),
		cmocka_unit_test(test_victim_order_config),
		cmocka_unit_test(test_victim_priority),
		cmocka_unit_test(test_gang_whole),
		cmocka_unit_test(test_exempt),
		cmocka_unit_test(test_no_double_preemption),
		cmocka_unit_test(test_freed_kept),
		cmocka_unit_test(test_reservation),
		cmocka_unit_test(test_reserve_hold_state),
		cmocka_unit_test(test_bound_node),
		cmocka_unit_test(test_dev_idle_fill),
		cmocka_unit_test(test_dev_limits),
		cmocka_unit_test(test_quota_hold),
		cmocka_unit_test(test_quota_window),
		cmocka_unit_test(test_random_mix),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_load_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
