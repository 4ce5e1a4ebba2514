/* The speed model (docs/models.md "Job runtime and speed") on hand-built
 * cases whose end times are worked out by hand: time-sliced sharing with
 * re-timing when a sharer leaves, a gang across leaf switches, an
 * oversubscribed storage pool, MIG instance creation, OOM, and runtimes
 * replayed as recorded. */
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

static const char scenario_text[] =
	"{ \"name\": \"speed\", \"sample_interval_s\": 0,\n"
	"  \"storage_pools\": [ { \"name\": \"hdd\", \"kind\": \"hdd\", \"capacity_tib\": 100, \"bandwidth_gbps\": 1,\n"
	"                       \"admit\": 3, \"io_fraction\": 0.5 } ],\n"
	"  \"gpu_sharing\": { \"admit\": 2, \"switch_cost\": 0, \"mig_create_s\": 10, \"mig_reslice_s\": 60 },\n"
	"  \"network\": { \"spine_penalty\": { \"roce\": 0.1 } },\n"
	"  \"node_types\": [\n"
	"    { \"name\": \"l40\", \"gpu\": \"L40S-48GB\", \"gpus\": 2, \"cpu\": \"Xeon-6348\", \"sockets\": 2, \"mem_gib\": 512,\n"
	"      \"plane\": \"roce100\", \"storage\": [\"hdd\"] },\n"
	"    { \"name\": \"a100m\", \"gpu\": \"A100-SXM-80GB\", \"gpus\": 1, \"cpu\": \"Xeon-8380\", \"sockets\": 2, \"mem_gib\": 512,\n"
	"      \"plane\": \"ib200\", \"mig\": { \"cards\": 1 } } ],\n"
	"  \"racks\": [\n"
	"    { \"name\": \"ra\", \"power_kw\": 20, \"leaf\": \"leaf-a\", \"nodes\": [ { \"type\": \"l40\", \"count\": 2 } ] },\n"
	"    { \"name\": \"rb\", \"power_kw\": 20, \"leaf\": \"leaf-b\", \"nodes\": [ { \"type\": \"l40\", \"count\": 1 } ] },\n"
	"    { \"name\": \"rc\", \"power_kw\": 20, \"nodes\": [ { \"type\": \"a100m\", \"count\": 1 } ] } ],\n"
	"  \"workload\": { \"trace\": \"none.jsonl\" } }\n";

struct tjob {
	int cls;
	struct job_req req;
	double run_s;
};

struct result {
	double end_s[8];
	int state[8], reason[8];
};

/* Runs the jobs (all submitted at 0, in order) under fcfs + first fit. */
static void run(const struct tjob *tj, int n, bool speed_model, bool blind, struct result *res)
{
	char err[1024];
	char *path = tu_write_tmp(".json", scenario_text);
	struct scenario sc;
	if (scenario_load(path, &sc, err, sizeof err))
		fail_msg("%s", err);
	unlink(path);
	free(path);
	struct job *jobs = calloc((size_t)n, sizeof *jobs);
	struct job_truth *truth = calloc((size_t)n, sizeof *truth);
	for (int i = 0; i < n; i++) {
		job_init(&jobs[i], i, 0);
		jobs[i].cls = (uint8_t)tj[i].cls;
		jobs[i].req = tj[i].req;
		truth[i].run_us = simtime_from_s(tj[i].run_s);
	}
	char hdd[] = "hdd";
	char *strs[1] = { hdd };
	if (cluster_bind_workload(&sc.cl, strs, 1, jobs, n, err, sizeof err))
		fail_msg("%s", err);
	const struct policy_ops *pol = policy_find("fcfs");
	struct policy_cfg cfg;
	policy_cfg_defaults(pol, &cfg);
	void *ps = NULL;
	struct policy_env env = { .cl = &sc.cl, .njobs = n, .placement = "first-fit", .label_blind = blind };
	assert_int_equal(pol->init(&ps, &env, &cfg, err, sizeof err), 0);
	struct sim s;
	struct sim_cfg scfg = { .horizon_us = SIMTIME_INF, .speed_model = speed_model };
	assert_int_equal(sim_init(&s, &scfg, &sc.cl, jobs, truth, n), 0);
	struct sim_sched sched;
	policy_to_sched(pol, ps, &sched);
	sim_set_sched(&s, &sched);
	if (sim_run(&s))
		fail_msg("%s", s.err);
	for (int i = 0; i < n; i++) {
		res->end_s[i] = simtime_to_s(s.jobs[i].end_us);
		res->state[i] = s.jobs[i].state;
		res->reason[i] = s.jobs[i].reason;
	}
	pol->fini(ps);
	sim_fini(&s);
	scenario_free(&sc);
}

/* The catalog speed of a GPU model for a class (fp16). */
static double speed_of(const char *gpu, int cls)
{
	struct catalog cat = { 0 };
	char err[256];
	assert_int_equal(catalog_load_builtin(&cat, err, sizeof err), 0);
	int g = catalog_find_gpu(&cat, gpu);
	assert_true(g >= 0);
	double v = cat.gpus[g].speed[cls][PREC_FP16] > 0 ? cat.gpus[g].speed[cls][PREC_FP16] : cat.gpus[g].rel_speed;
	catalog_fini(&cat);
	return v;
}

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-3)

static const struct job_req share1000 = { .nodes = 1, .gpus = 1, .cores = 1, .gpu_milli = 1000 };

/* Two full-card shares on one card (admitted up to 2000 milli): each at
 * half speed; when the shorter ends, the other speeds up. */
static void test_share_retime(void **state)
{
	(void)state;
	double s = speed_of("L40S-48GB", JOB_BATCH);
	struct tjob tj[2] = { { JOB_BATCH, share1000, 1000 }, { JOB_BATCH, share1000, 500 } };
	struct result r;
	run(tj, 2, true, false, &r);
	/* B: 500 s of work at s/2 → ends at 1000/s; A has 500 left, at s. */
	NEAR(r.end_s[1], 1000 / s);
	NEAR(r.end_s[0], 1000 / s + 500 / s);
	assert_int_equal(r.state[0], JOB_DONE);
}

/* A gang of three nodes spans leaf-a and leaf-b: roce spine penalty 0.1. */
static void test_gang_spine(void **state)
{
	(void)state;
	double s = speed_of("L40S-48GB", JOB_TRAINING);
	struct tjob tj[2] = {
		{ JOB_TRAINING, { .nodes = 3, .gpus = 1, .cores = 4 }, 3600 },
		{ JOB_TRAINING, { .nodes = 2, .gpus = 1, .cores = 4 }, 3600 },
	};
	struct result r;
	run(tj, 2, true, false, &r);
	NEAR(r.end_s[0], 3600 * 1.1 / s);
	/* the 2-node gang takes the second GPUs of leaf-a's nodes: no penalty */
	NEAR(r.end_s[1], 3600 / s);
}

/* Three jobs reserve 1000 MB/s each on a 1000 MB/s pool admitted to 3×:
 * f = 1 / (0.5 + 0.5 × 3) = 0.5 while all three run. */
static void test_pool_oversubscribed(void **state)
{
	(void)state;
	struct job_req io = { .nodes = 1, .cores = 1, .pool = 1, .io_mbps = 1000, .storage_gib = 10 };
	struct tjob tj[3] = { { JOB_BATCH, io, 100 }, { JOB_BATCH, io, 100 }, { JOB_BATCH, io, 100 } };
	struct result r;
	run(tj, 3, true, false, &r);
	for (int i = 0; i < 3; i++)
		NEAR(r.end_s[i], 200);
}

/* A MIG request on an empty MIG card: the instance is created first. */
static void test_mig_create(void **state)
{
	(void)state;
	double s = speed_of("A100-SXM-80GB", JOB_INFERENCE);
	struct tjob tj[2] = {
		{ JOB_INFERENCE, { .nodes = 1, .gpus = 1, .cores = 1, .mig_g = 1, .gpu_mem_mib = 8 * 1024 }, 100 },
		{ JOB_INFERENCE, { .nodes = 1, .gpus = 1, .cores = 1, .mig_g = 1, .gpu_mem_mib = 8 * 1024 }, 100 },
	};
	struct result r;
	run(tj, 2, true, false, &r);
	NEAR(r.end_s[0], 10 + 100 / s);
	NEAR(r.end_s[1], 10 + 100 / s);   /* created beside it, while it runs */
}

/* Two half-card shares needing 30 GB each: a blind first fit stacks them on
 * one 48 GB card and the second fails with OOM 60 s after its start; an
 * aware one puts the second on the next card. */
static void test_oom(void **state)
{
	(void)state;
	struct job_req half = { .nodes = 1, .gpus = 1, .cores = 1, .gpu_milli = 500, .gpu_mem_mib = 30 * 1024 };
	struct tjob tj[2] = { { JOB_INFERENCE, half, 1000 }, { JOB_INFERENCE, half, 1000 } };
	struct result r;
	run(tj, 2, true, true, &r);
	assert_int_equal(r.state[0], JOB_DONE);
	assert_int_equal(r.state[1], JOB_FAILED);
	assert_int_equal(r.reason[1], END_OOM);
	NEAR(r.end_s[1], 60);
	run(tj, 2, true, false, &r);
	assert_int_equal(r.state[0], JOB_DONE);
	assert_int_equal(r.state[1], JOB_DONE);
	/* A need no card of the cluster has is rejected at submit. */
	struct tjob big[1] = { { JOB_TRAINING, { .nodes = 1, .gpus = 1, .cores = 1, .gpu_mem_mib = 60 * 1024 }, 1000 } };
	run(big, 1, true, true, &r);
	assert_int_equal(r.state[0], JOB_KILLED);
	assert_int_equal(r.reason[0], END_REJECTED);
}

/* Runtimes replayed as recorded: every factor is 1. */
static void test_recorded(void **state)
{
	(void)state;
	struct tjob tj[2] = { { JOB_BATCH, share1000, 1000 }, { JOB_BATCH, share1000, 500 } };
	struct result r;
	run(tj, 2, false, false, &r);
	NEAR(r.end_s[0], 1000);
	NEAR(r.end_s[1], 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_share_retime),
		cmocka_unit_test(test_gang_spine),
		cmocka_unit_test(test_pool_oversubscribed),
		cmocka_unit_test(test_mig_create),
		cmocka_unit_test(test_oom),
		cmocka_unit_test(test_recorded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
