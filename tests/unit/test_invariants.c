/* Invariants of the heterogeneous resource model over random workloads:
 * every queue discipline × every placement strategy runs a random mix of
 * whole-card gangs, time-sliced shares, MIG instances, NUMA-local and
 * spread CPU jobs and pool reservations on a mixed cluster, and after every
 * start and end the live state is recounted from the running jobs'
 * allocations and checked:
 *   - never more cores (per node and per NUMA domain), node memory, whole
 *     GPUs, milli-GPUs, sharers, MIG slices or compute slices, pool
 *     capacity or bandwidth in use than exist (or are admitted);
 *   - under label-aware placement, never more GPU memory needed on a card
 *     than it has (so no job fails with OOM);
 *   - a GPU gang is all on one GPU model and one network plane. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policies/policy.h"
#include "sim/engine.h"
#include "sim/mig.h"
#include "tests/testutil.h"
#include "config/scenario.h"

static const char scenario_text[] =
	"{ \"name\": \"inv\", \"sample_interval_s\": 0,\n"
	"  \"storage_pools\": [\n"
	"    { \"name\": \"nvme\", \"kind\": \"nvme\", \"capacity_tib\": 2, \"bandwidth_gbps\": 20, \"exclusive_class\": \"training\" },\n"
	"    { \"name\": \"hdd\", \"kind\": \"hdd\", \"capacity_tib\": 50, \"bandwidth_gbps\": 4, \"admit\": 2 } ],\n"
	"  \"gpu_sharing\": { \"limit\": 4, \"admit\": 1.5 },\n"
	"  \"node_types\": [\n"
	"    { \"name\": \"h100\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 8, \"cpu\": \"Xeon-8480+\", \"sockets\": 2, \"mem_gib\": 2048, \"plane\": \"ib400\", \"storage\": [\"nvme\", \"hdd\"] },\n"
	"    { \"name\": \"a100mig\", \"gpu\": \"A100-SXM-80GB\", \"gpus\": 8, \"cpu\": \"Xeon-8380\", \"sockets\": 2, \"mem_gib\": 1024, \"plane\": \"ib200\",\n"
	"      \"mig\": { \"cards\": 4, \"layout\": [\"3g.40gb\", \"2g.20gb\", \"1g.10gb\"] }, \"storage\": [\"hdd\"] },\n"
	"    { \"name\": \"l40s\", \"gpu\": \"L40S-48GB\", \"gpus\": 4, \"cpu\": \"Xeon-6348\", \"sockets\": 2, \"mem_gib\": 512, \"plane\": \"roce100\", \"storage\": [\"hdd\"] },\n"
	"    { \"name\": \"rtx\", \"gpu\": \"RTX4090-24GB\", \"gpus\": 8, \"cpu\": \"Xeon-6348\", \"sockets\": 2, \"mem_gib\": 512, \"plane\": \"eth10\" },\n"
	"    { \"name\": \"cpu\", \"cpu\": \"Xeon-8480+\", \"sockets\": 2, \"numa\": 4, \"mem_gib\": 1024, \"plane\": \"eth10\", \"storage\": [\"hdd\"] } ],\n"
	"  \"racks\": [\n"
	"    { \"name\": \"a\", \"count\": 2, \"power_kw\": 40, \"cooling\": \"liquid\", \"leaf\": \"leaf-a\", \"nodes\": [ { \"type\": \"h100\", \"count\": 2 } ] },\n"
	"    { \"name\": \"b\", \"power_kw\": 40, \"nodes\": [ { \"type\": \"h100\", \"count\": 2 }, { \"type\": \"a100mig\", \"count\": 2 } ] },\n"
	"    { \"name\": \"c\", \"power_kw\": 20, \"nodes\": [ { \"type\": \"l40s\", \"count\": 3 }, { \"type\": \"rtx\", \"count\": 2 } ] },\n"
	"    { \"name\": \"d\", \"power_kw\": 15, \"nodes\": [ { \"type\": \"cpu\", \"count\": 4 } ] } ],\n"
	"  \"workload\": { \"trace\": \"none.jsonl\" } }\n";

struct inv {
	struct sim *s;
	bool aware;
	long checks, starts, ooms;
};

static uint64_t rng_state;
static uint32_t rnd(uint32_t n)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)((rng_state >> 33) % n);
}

/* Recounts the live state from the running jobs and compares. */
static void check_state(struct inv *iv)
{
	const struct sim *s = iv->s;
	const struct cluster *cl = &s->cl;
	int32_t *cores = calloc((size_t)cl->nnodes, sizeof *cores);
	int64_t *mem = calloc((size_t)cl->nnodes, sizeof *mem);
	int32_t *numa = calloc((size_t)cl->nnodes * HL_NUMA_MAX, sizeof *numa);
	int32_t *milli = calloc((size_t)cl->ngpu_all, sizeof *milli);
	int32_t *share = calloc((size_t)cl->ngpu_all, sizeof *share);
	int32_t *whole = calloc((size_t)cl->ngpu_all, sizeof *whole);
	int64_t *need = calloc((size_t)cl->ngpu_all, sizeof *need);
	double resv[HL_POOLS_MAX] = { 0 };
	int64_t used[HL_POOLS_MAX] = { 0 };
	assert_true(cores && mem && numa && milli && share && whole && need);
	for (int32_t k = 0; k < s->nrunning; k++) {
		const struct job *j = &s->jobs[s->running[k]];
		const struct alloc_part *p = &cl->pool.p[j->parts];
		int model = -1, plane = -2;
		for (int i = 0; i < j->nparts; i++) {
			const struct node *n = &cl->nodes[p[i].node];
			cores[p[i].node] += p[i].cores;
			mem[p[i].node] += p[i].mem_mib;
			for (int d = 0; d < HL_NUMA_MAX; d++)
				numa[p[i].node * HL_NUMA_MAX + d] += p[i].numa_cores[d];
			for (int g = 0; g < n->ngpus; g++) {
				if (!((p[i].gpus >> g) & 1u))
					continue;
				int gi = n->gpu0 + g;
				if (p[i].milli > 0 || p[i].mig_profile >= 0) {
					share[gi]++;
					milli[gi] += p[i].milli;
				} else {
					whole[gi]++;
				}
				need[gi] += j->req.gpu_mem_mib;
			}
			if (j->req.gpus > 0 && j->nparts > 1) {
				assert_true(model < 0 || model == n->gpu_model);
				assert_true(plane == -2 || plane == n->plane);
				model = n->gpu_model;
				plane = n->plane;
			}
		}
		if (j->req.pool > 0) {
			resv[j->req.pool - 1] += j->req.io_mbps;
			used[j->req.pool - 1] += j->req.storage_gib;
		}
	}
	for (int32_t i = 0; i < cl->nnodes; i++) {
		const struct node *n = &cl->nodes[i];
		const struct nodefree *f = &cl->free[i];
		assert_true(cores[i] <= n->cores);
		assert_int_equal(f->cores, n->cores - cores[i]);
		assert_true(mem[i] <= n->mem_mib);
		assert_int_equal(f->mem_mib, n->mem_mib - mem[i]);
		int32_t dom_total = 0;
		for (int d = 0; d < n->numa; d++) {
			int32_t cap = n->cores / n->numa + (d < n->cores % n->numa);
			assert_true(numa[i * HL_NUMA_MAX + d] <= cap);
			assert_int_equal(f->numa_free[d], cap - numa[i * HL_NUMA_MAX + d]);
			dom_total += f->numa_free[d];
		}
		assert_int_equal(dom_total, f->cores);
		for (int g = 0; g < n->ngpus; g++) {
			int gi = n->gpu0 + g;
			const struct gpustate *gs = &cl->gpu[gi];
			assert_true(whole[gi] <= 1);
			assert_true(whole[gi] == 0 || share[gi] == 0);
			assert_int_equal(gs->nshare, share[gi]);
			assert_int_equal(gs->milli_used, milli[gi]);
			assert_true(milli[gi] <= (int32_t)(cl->share.admit * HL_MILLI + 0.5));
			assert_true(share[gi] <= (gs->mig ? MIG_SLICES_MAX : cl->share.limit));
			bool idle = whole[gi] == 0 && share[gi] == 0 && !gs->mig;
			assert_int_equal(((f->gpu_free >> g) & 1u) != 0, idle);
			if (gs->mig) {
				/* busy instances = MIG jobs; slices and compute within the card */
				int busy = 0, comp = 0, slices = 0;
				for (int k = 0; k < MIG_SLICES_MAX; k++)
					if (gs->mig->inst[k].profile >= 0) {
						const struct mig_profile *mp = &gs->mig->card->profiles[gs->mig->inst[k].profile];
						busy += gs->mig->inst[k].busy;
						comp += mp->compute_slices;
						slices += mp->memory_slices;
					}
				assert_int_equal(busy, share[gi]);
				assert_true(comp <= gs->mig->card->compute_slices);
				assert_true(slices <= gs->mig->card->memory_slices);
				assert_int_equal(whole[gi], 0);
			}
			if (iv->aware && !gs->mig)
				assert_true(need[gi] <= n->gpu_mem_mib);
		}
	}
	for (int p = 0; p < cl->npools; p++) {
		const struct storage_pool *po = &cl->pools[p];
		assert_true(used[p] <= po->cap_gib);
		assert_true(resv[p] <= po->admit * po->bw_mbps + 1e-6);
		assert_true(po->resv_mbps > resv[p] - 1e-6 && po->resv_mbps < resv[p] + 1e-6);
	}
	free(cores);
	free(mem);
	free(numa);
	free(milli);
	free(share);
	free(whole);
	free(need);
	iv->checks++;
}

static void on_event(void *ctx, simtime t, enum rec_kind kind, int32_t job, int32_t node, int state,
                     const char *detail)
{
	(void)t;
	(void)job;
	(void)node;
	(void)state;
	struct inv *iv = ctx;
	if (kind == REC_START)
		iv->starts++;
	if (kind == REC_END && detail && strcmp(detail, "oom") == 0)
		iv->ooms++;
	if (kind == REC_START || kind == REC_END)
		check_state(iv);
}

/* A random request: whole-card gangs, shares, MIG, CPU jobs, pools. */
static void random_job(struct job *j, struct job_truth *t, int i, int nstr_pool)
{
	(void)nstr_pool;
	job_init(j, i, simtime_from_s(i * 37.0));
	j->cls = (uint8_t)rnd(JOB_NCLASS);
	j->walltime_us = SIMTIME_INF;
	t->run_us = simtime_from_s(600 + rnd(20000));
	struct job_req *r = &j->req;
	switch (rnd(6)) {
	case 0: /* gang of whole cards */
		r->nodes = 1 + (int32_t)rnd(3);
		r->gpus = 1 << rnd(4);
		r->cores = r->gpus * 4;
		r->mem_mib = (int64_t)r->gpus * 32 * 1024;
		r->gpu_mem_mib = (int64_t)(rnd(3) == 0 ? 70 : 20) * 1024;
		break;
	case 1: /* time-sliced share */
		r->nodes = 1;
		r->gpus = 1;
		r->gpu_milli = 100 * (1 + (int32_t)rnd(9));
		r->cores = 2;
		r->mem_mib = 8 * 1024;
		r->gpu_mem_mib = (int64_t)(4 + rnd(20)) * 1024;
		break;
	case 2: /* MIG */
		r->nodes = 1;
		r->gpus = 1;
		r->mig_g = (int8_t)(rnd(2) ? 1 : 2 + rnd(2));
		r->cores = 2;
		r->mem_mib = 8 * 1024;
		r->gpu_mem_mib = (int64_t)(5 + rnd(30)) * 1024;
		break;
	case 3: /* NUMA-local CPU job */
		r->nodes = 1;
		r->cores = 4 + (int32_t)rnd(24);
		r->mem_mib = 16 * 1024;
		r->flags = REQ_NUMA_LOCAL | (rnd(2) ? REQ_AMX : 0);
		break;
	case 4: /* spread CPU job */
		r->nodes = 0;
		r->cores = 8 + (int32_t)rnd(200);
		break;
	default: /* single-node GPU job with I/O */
		r->nodes = 1;
		r->gpus = 1 + (int32_t)rnd(2);
		r->cores = 8;
		r->mem_mib = 64 * 1024;
		r->gpu_mem_mib = 16 * 1024;
		r->pool = (int16_t)(1 + rnd(2));
		r->io_mbps = 500 + (int32_t)rnd(3000);
		r->storage_gib = 64;
		if (r->pool == 1)
			j->cls = JOB_TRAINING;
		break;
	}
}

static void run_one(const char *policy, const char *placement, bool blind, uint64_t seed)
{
	char err[1024];
	char *path = tu_write_tmp(".json", scenario_text);
	struct scenario sc;
	assert_int_equal(scenario_load(path, &sc, err, sizeof err), 0);
	unlink(path);
	free(path);
	int n = 300;
	struct job *jobs = calloc((size_t)n, sizeof *jobs);
	struct job_truth *truth = calloc((size_t)n, sizeof *truth);
	rng_state = seed;
	for (int i = 0; i < n; i++)
		random_job(&jobs[i], &truth[i], i, 2);
	/* Pools are named in the workload's string table: nvme = 1, hdd = 2. */
	char nvme[] = "nvme", hdd[] = "hdd";
	char *strs[2] = { nvme, hdd };
	if (cluster_bind_workload(&sc.cl, strs, 2, jobs, n, err, sizeof err))
		fail_msg("%s", err);
	const struct policy_ops *pol = policy_find(policy);
	assert_non_null(pol);
	struct policy_cfg cfg;
	policy_cfg_defaults(pol, &cfg);
	void *ps = NULL;
	struct policy_env env = { .cl = &sc.cl, .njobs = n, .placement = placement, .label_blind = blind,
	                          .seed = seed };
	if (pol->init && pol->init(&ps, &env, &cfg, err, sizeof err))
		fail_msg("%s/%s init: %s", policy, placement, err);
	struct sim s;
	struct sim_cfg scfg = { .horizon_us = SIMTIME_INF, .speed_model = true };
	assert_int_equal(sim_init(&s, &scfg, &sc.cl, jobs, truth, n), 0);
	struct inv iv = { .s = &s, .aware = !blind };
	struct sim_recorder rec = { .ctx = &iv, .event = on_event };
	sim_set_recorder(&s, &rec);
	struct sim_sched sched;
	policy_to_sched(pol, ps, &sched);
	sim_set_sched(&s, &sched);
	if (sim_run(&s))
		fail_msg("%s/%s%s: %s", policy, placement, blind ? " blind" : "", s.err);
	assert_true(iv.starts > 100);
	assert_int_equal(s.nfinished, n);
	if (!blind)
		assert_int_equal(iv.ooms, 0);
	if (pol->fini)
		pol->fini(ps);
	sim_fini(&s);
	scenario_free(&sc);
}

static const char *const placements[] = { "first-fit", "best-fit", "worst-fit", "random", "dot-product",
	"gpu-packing", "gpu-clustering", "fgd", "topology", "power", NULL };

static void test_invariants_all(void **state)
{
	(void)state;
	static const char *const pols[] = { "fcfs", "easy", "conservative", "slurm", "fairshare", "tiered", NULL };
	for (int p = 0; pols[p]; p++)
		for (int k = 0; placements[k]; k++)
			run_one(pols[p], placements[k], false, 42 + (uint64_t)k);
}

static void test_invariants_blind(void **state)
{
	(void)state;
	for (int k = 0; placements[k]; k++)
		run_one("easy", placements[k], true, 7 + (uint64_t)k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invariants_all),
		cmocka_unit_test(test_invariants_blind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
