/* The slurm policy (policies/slurm.h) on small hand-made sites, each test
 * one rule of Slurm 22.05 worked out by hand from its source
 * (docs/slurm-twin.md): the background tick and batch_sched_delay, the
 * epilog-complete pass, the partition stop rule and backfill behind it,
 * the backfill plan that a later job may not delay, cons_tres's best fit
 * and node weights, a QOS limit that blocks nothing, Fair Tree, and QOS
 * preemption with its requeue delay. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/catalog.h"
#include "policies/policy.h"
#include "policies/slurm.h"
#include "sim/engine.h"
#include "tests/testutil.h"

#define MAXJ 32

struct tj {
	double submit, run, limit;   /* seconds; limit 0: none */
	int nodes, cores, gpus;
	int64_t mem;
	int user, acct, part, qos;   /* indexes of the site below */
};

struct site {
	struct slurm_cfg c;
	struct slurm_part part[2];
	struct slurm_qos qos[3];
	struct slurm_assoc assoc[8];
	char users[3][SLURM_NAME_MAX];
	char accounts[3][SLURM_NAME_MAX];
	int32_t nodes[2][8];
	int32_t part_of[2], qos_of[3], user_of[3], acct_of[3];
	int64_t weight[8];
	int32_t preempt[1];
};

static void unlimited(struct slurm_limits *l)
{
	for (int k = 0; k < STRES_N; k++)
		l->max_tres_pu[k] = l->max_tres_pj[k] = l->grp_tres[k] = SLURM_UNLIMITED;
	l->max_jobs_pu = l->grp_jobs = l->max_submit_pu = SLURM_UNLIMITED;
	l->max_wall_s = SLURM_UNLIMITED;
}

/* One partition "batch" of all n nodes (a second, "hi", tier 2, of the
 * last two when two_parts), QOS normal, hi (preempts normal when
 * preempt) and low; accounts a and b under root with users u0 (a), u1
 * (b), u2 (a). */
static void site_init(struct site *s, int n, bool two_parts, bool preempt)
{
	memset(s, 0, sizeof *s);
	struct slurm_cfg *c = &s->c;
	c->part = s->part;
	c->npart = two_parts ? 2 : 1;
	for (int p = 0; p < 2; p++) {
		struct slurm_part *sp = &s->part[p];
		snprintf(sp->name, sizeof sp->name, p ? "hi" : "batch");
		sp->nodes = s->nodes[p];
		sp->prio_tier = (uint16_t)(p ? 2 : 1);
		sp->prio_job_factor = 1;
		sp->max_time_s = sp->default_time_s = SLURM_UNLIMITED;
		sp->max_nodes = sp->over_time_limit_min = SLURM_UNLIMITED;
		sp->qos = -1;
		sp->up = true;
		s->part_of[p] = p;
	}
	for (int i = 0; i < n; i++)
		s->nodes[0][i] = i;
	s->part[0].nnodes = n;
	s->nodes[1][0] = n - 2;
	s->nodes[1][1] = n - 1;
	s->part[1].nnodes = 2;
	s->part[0].is_default = true;
	c->qos = s->qos;
	c->nqos = 3;
	static const char *const qn[] = { "normal", "hi", "low" };
	for (int q = 0; q < 3; q++) {
		snprintf(s->qos[q].name, sizeof s->qos[q].name, "%s", qn[q]);
		s->qos[q].usage_factor = 1;
		s->qos[q].preempt_exempt_s = SLURM_UNLIMITED;
		unlimited(&s->qos[q].lim);
		s->qos_of[q] = q;
	}
	s->qos[1].priority = 100;
	if (preempt) {
		s->preempt[0] = 0;
		s->qos[1].preempt = s->preempt;
		s->qos[1].npreempt = 1;
	}
	for (int u = 0; u < 3; u++) {
		snprintf(s->users[u], SLURM_NAME_MAX, "u%d", u);
		snprintf(s->accounts[u], SLURM_NAME_MAX, "%c", 'a' + u);
		s->user_of[u] = s->acct_of[u] = u;
	}
	c->users = s->users;
	c->nusers = 3;
	c->accounts = s->accounts;
	c->naccounts = 3;
	/* root; a; b; u0@a; u1@b; u2@a */
	static const struct { int parent, account, user; } tree[] = {
		{ -1, 0, -1 }, { 0, 0, -1 }, { 0, 1, -1 }, { 1, 0, 0 }, { 2, 1, 1 }, { 1, 0, 2 },
	};
	c->assoc = s->assoc;
	c->nassoc = 6;
	for (int a = 0; a < 6; a++) {
		s->assoc[a] = (struct slurm_assoc){ .parent = tree[a].parent, .account = tree[a].account,
		                                    .user = tree[a].user, .shares = 1, .def_qos = -1 };
		unlimited(&s->assoc[a].lim);
	}
	for (int i = 0; i < 8; i++)
		s->weight[i] = 1;
	c->node_weight = s->weight;
	c->nnodes = n;
	c->cr_memory = true;
	c->part_of = s->part_of;
	c->npart_of = 2;
	c->qos_of = s->qos_of;
	c->nqos_of = 3;
	c->user_of = s->user_of;
	c->nuser_of = 3;
	c->acct_of = s->acct_of;
	c->nacct_of = 3;
}

/* n nodes of 4 cores, 4000 MiB and gpus A100s each. */
static void build_cluster(struct cluster *cl, int n, int gpus)
{
	char err[512];
	cluster_init(cl);
	assert_int_equal(catalog_load_builtin(&cl->cat, err, sizeof err), 0);
	struct node_type t = { .gpu_model = gpus ? catalog_find_gpu(&cl->cat, "A100-SXM-80GB") : -1, .gpus = gpus,
	                       .cpu_model = -1, .sockets = 1, .cores = 4, .numa = 1, .mem_mib = 4000 };
	snprintf(t.name, sizeof t.name, "n");
	int k = cluster_add_type(cl, &t);
	int r = cluster_add_rack(cl, "r", 100000, COOL_AIR);
	assert_true(k >= 0 && r >= 0);
	assert_int_equal(cluster_add_nodes(cl, r, k, n), 0);
	if (cluster_finish(cl, err, sizeof err))
		fail_msg("%s", err);
}

struct param {
	const char *name;
	double v;
};

static uint64_t run_seed;   /* the run's seed (arrival_draw) */

/* Runs jobs tj[0..n) on the site; start[i] and end[i] in seconds (-1
 * never); preempt[i] the job's preemptions. */
static void run(struct site *s, int nnodes, int gpus, const struct tj *tj, int n, const struct param *ps,
                double *start, double *end, int *preempt)
{
	struct cluster cl;
	build_cluster(&cl, nnodes, gpus);
	struct job *jobs = calloc((size_t)n, sizeof *jobs);
	struct job_truth *truth = calloc((size_t)n, sizeof *truth);
	assert_non_null(jobs);
	assert_non_null(truth);
	for (int i = 0; i < n; i++) {
		job_init(&jobs[i], i, simtime_from_s(tj[i].submit));
		jobs[i].trace_id = 100 + i;
		jobs[i].req.nodes = tj[i].nodes ? tj[i].nodes : 1;
		jobs[i].req.cores = tj[i].cores ? tj[i].cores : 1;
		jobs[i].req.gpus = tj[i].gpus;
		jobs[i].req.mem_mib = tj[i].mem;
		jobs[i].tenant = tj[i].user;
		jobs[i].group = tj[i].acct;
		jobs[i].queue = (int32_t)tj[i].part;
		jobs[i].qos = (int16_t)tj[i].qos;
		if (tj[i].limit > 0)
			jobs[i].walltime_us = simtime_from_s(tj[i].limit);
		truth[i].run_us = simtime_from_s(tj[i].run);
	}
	extern const struct policy_ops policy_slurm;
	const struct policy_ops *pol = &policy_slurm;
	struct policy_cfg cfg;
	policy_cfg_defaults(pol, &cfg);
	/* clocks on whole seconds from 0: ticks every second, cycles instant,
	 * jobs arriving half a second after their (whole-second) submit */
	static const struct param clocks[] = { { "tick_s", 1 }, { "submit_offset_s", 0.5 }, { "threads_start_s", 0 },
	                                       { "bf_cycle_s", 0 }, { NULL, 0 } };
	for (const struct param *p = clocks; p->name; p++)
		cfg.v[policy_param_index(pol, p->name)] = p->v;
	for (const struct param *p = ps; p && p->name; p++) {
		int k = policy_param_index(pol, p->name);
		assert_true(k >= 0);
		cfg.v[k] = p->v;
	}
	void *st = NULL;
	char err[256];
	struct policy_env env = { .cl = &cl, .njobs = n, .slurm = &s->c, .seed = run_seed };
	assert_int_equal(pol->init(&st, &env, &cfg, err, sizeof err), 0);
	struct sim sim;
	struct sim_cfg sc = { .horizon_us = SIMTIME_INF, .keep_overruns = true };
	assert_int_equal(sim_init(&sim, &sc, &cl, jobs, truth, n), 0);
	struct sim_sched sched;
	policy_to_sched(pol, st, &sched);
	sim_set_sched(&sim, &sched);
	if (sim_run(&sim))
		fail_msg("%s", sim.err);
	for (int i = 0; i < n; i++) {
		start[i] = sim.jobs[i].start_us < 0 ? -1 : simtime_to_s(sim.jobs[i].start_us);
		end[i] = sim.jobs[i].end_us < 0 ? -1 : simtime_to_s(sim.jobs[i].end_us);
		if (preempt)
			preempt[i] = sim.jobs[i].preemptions;
	}
	pol->fini(st);
	sim_fini(&sim);
}

#define S(i) start[i]

/* A submit (arriving half a second after its whole-second time) is
 * passed at the background thread's next tick once batch_sched_delay
 * whole seconds have passed since its last pass. */
static void test_tick_and_delay(void **state)
{
	(void)state;
	struct site s;
	site_init(&s, 2, false, false);
	const struct tj tj[] = {
		{ .submit = 10, .run = 100, .cores = 1 },
		{ .submit = 12, .run = 100, .cores = 1 },
		{ .submit = 30, .run = 100, .cores = 1 },
	};
	double start[3], end[3];
	const struct param ps[] = { { "backfill", 0 }, { NULL, 0 } };
	run(&s, 2, 0, tj, 3, ps, start, end, NULL);
	assert_true(S(0) == 11);   /* tick at 11: 11 - 0 >= 3 */
	assert_true(S(1) == 14);   /* 13 is within 3 s of the pass at 11 */
	assert_true(S(2) == 31);
	/* batch_sched_delay=0: every tick */
	const struct param p0[] = { { "backfill", 0 }, { "batch_sched_delay_s", 0 }, { NULL, 0 } };
	run(&s, 2, 0, tj, 3, p0, start, end, NULL);
	assert_true(S(0) == 11 && S(1) == 13 && S(2) == 31);
}

/* A job's end runs a pass at once (epilog complete): the next job starts
 * at its end; with epilog_pass=0 at the next tick. */
static void test_epilog_pass(void **state)
{
	(void)state;
	struct site s;
	site_init(&s, 1, false, false);
	const struct tj tj[] = {
		{ .submit = 0, .run = 50, .cores = 4 },
		{ .submit = 5, .run = 10, .cores = 4 },
	};
	double start[2], end[2];
	/* ticks every 1.003 s from 0.25 s: a job's end falls between two */
	const struct param ps[] = { { "backfill", 0 }, { "epilog_pass", 1 }, { "ctld_start_s", 0.25 }, { "tick_s", 1.003 },
		                    { NULL, 0 } };
	run(&s, 1, 0, tj, 2, ps, start, end, NULL);
	assert_true(end[0] == S(0) + 50 && S(1) == end[0]);   /* an Epilog: passed at once */
	/* none: the end is passed at the next tick */
	const struct param pq[] = { { "backfill", 0 }, { "epilog_pass", 0 }, { "ctld_start_s", 0.25 }, { "tick_s", 1.003 },
		                    { NULL, 0 } };
	run(&s, 1, 0, tj, 2, pq, start, end, NULL);
	double k = ceil((end[0] - 0.25) / 1.003);
	assert_true(S(1) > end[0] && fabs(S(1) - (0.25 + k * 1.003)) < 1e-6);
}

/* The first job that cannot start blocks its partition for the rest of
 * the main pass: a smaller job behind it waits for the backfill cycle,
 * which starts it only where it delays the plan of the blocked job. */
static void test_partition_stop_and_backfill(void **state)
{
	(void)state;
	struct site s;
	site_init(&s, 2, false, false);
	const struct tj tj[] = {
		{ .submit = 0, .run = 1000, .limit = 1200, .cores = 4 },            /* node 1, to 1200 by its limit */
		{ .submit = 5, .run = 100, .limit = 600, .nodes = 2, .cores = 4 },  /* both nodes: blocked */
		{ .submit = 6, .run = 100, .limit = 600, .cores = 4 },              /* fits node 2, ends before 1200 */
		{ .submit = 7, .run = 100, .limit = 2400, .cores = 4 },             /* would delay job 1: waits */
	};
	double start[4], end[4];
	const struct param ps[] = { { "bf_interval_s", 30 }, { NULL, 0 } };
	run(&s, 2, 0, tj, 4, ps, start, end, NULL);
	assert_true(S(0) == 3);
	/* backfill cycles at 30, 60, ... from slurmctld's start (0) */
	assert_true(S(2) == 30);
	/* job 1 starts when job 0 ends (1003), before job 3 */
	assert_true(S(1) == end[0] && S(1) == 1003);
	assert_true(S(3) >= end[1]);
	/* without the stop rule in effect (the small job first in the queue:
	 * submitted first), the main pass starts it at its tick */
	const struct tj t2[] = {
		{ .submit = 0, .run = 1000, .limit = 1200, .cores = 4 },
		{ .submit = 5, .run = 100, .limit = 600, .cores = 4 },
		{ .submit = 6, .run = 100, .limit = 600, .nodes = 2, .cores = 4 },
	};
	run(&s, 2, 0, t2, 3, ps, start, end, NULL);
	assert_true(S(1) == 6);
}

/* Lower Weight first; then the node of the run with the fewest free CPUs
 * that still holds the job (best fit). */
static void test_select(void **state)
{
	(void)state;
	struct site s;
	site_init(&s, 3, false, false);
	const struct tj tj[] = {
		{ .submit = 0, .run = 1000, .cores = 2 },   /* node 1 (first set, best fit: all equal) */
		{ .submit = 0, .run = 1000, .cores = 1 },   /* node 1 (2 free: the fewest that hold 1) */
		{ .submit = 10, .run = 100, .cores = 1 },   /* node 1 (1 free) */
		{ .submit = 20, .run = 100, .cores = 3 },   /* node 2 */
	};
	double start[4], end[4];
	const struct param ps[] = { { "backfill", 0 }, { "batch_sched_delay_s", 0 }, { NULL, 0 } };
	run(&s, 3, 0, tj, 4, ps, start, end, NULL);
	assert_true(S(0) == 1 && S(1) == 1 && S(2) == 11 && S(3) == 21);
	/* weights: node 3 lightest takes the first job */
	s.weight[2] = 0;
	run(&s, 3, 0, tj, 4, ps, start, end, NULL);
	assert_true(S(0) == 1);
}

/* A QOS MaxJobsPerUser: the user's second job waits, and blocks nobody. */
static void test_qos_limit(void **state)
{
	(void)state;
	struct site s;
	site_init(&s, 2, false, false);
	s.qos[0].lim.max_jobs_pu = 1;
	const struct tj tj[] = {
		{ .submit = 0, .run = 100, .cores = 1, .user = 0 },
		{ .submit = 1, .run = 100, .cores = 1, .user = 0 },
		{ .submit = 2, .run = 100, .cores = 1, .user = 1, .acct = 1 },
	};
	double start[3], end[3];
	const struct param ps[] = { { "backfill", 0 }, { "enforce_limits", 1 }, { "batch_sched_delay_s", 0 }, { NULL, 0 } };
	run(&s, 2, 0, tj, 3, ps, start, end, NULL);
	assert_true(S(0) == 1 && S(2) == 3);
	assert_true(S(1) == end[0]);
	/* not enforced: at the tick after it arrives */
	const struct param pn[] = { { "backfill", 0 }, { "batch_sched_delay_s", 0 }, { NULL, 0 } };
	run(&s, 2, 0, tj, 3, pn, start, end, NULL);
	assert_true(S(1) == 2);
}

/* assoc_limit_stop: the job over its limit still waits for it, and now
 * fails its partition in the main pass, so the other user's later job
 * waits with it (before, the limits were not checked at all and the
 * second job started at once). */
static void test_assoc_limit_stop(void **state)
{
	(void)state;
	struct site s;
	site_init(&s, 2, false, false);
	s.qos[0].lim.max_jobs_pu = 1;
	const struct tj tj[] = {
		{ .submit = 0, .run = 100, .cores = 1, .user = 0 },
		{ .submit = 1, .run = 100, .cores = 1, .user = 0 },
		{ .submit = 2, .run = 100, .cores = 1, .user = 1, .acct = 1 },
	};
	double start[3], end[3];
	const struct param ps[] = { { "backfill", 0 }, { "enforce_limits", 1 }, { "assoc_limit_stop", 1 },
	                            { "batch_sched_delay_s", 0 }, { NULL, 0 } };
	run(&s, 2, 0, tj, 3, ps, start, end, NULL);
	assert_true(S(0) == 1);
	assert_true(S(1) == end[0]);
	assert_true(S(2) == end[0]);
	/* with backfill, a start still meets the limit */
	const struct param pb[] = { { "enforce_limits", 1 }, { "assoc_limit_stop", 1 }, { "batch_sched_delay_s", 0 },
	                            { NULL, 0 } };
	run(&s, 2, 0, tj, 3, pb, start, end, NULL);
	assert_true(S(1) >= end[0]);
}

/* Fair Tree: after account a used the machine, b's user ranks first at
 * the next decay tick and its job goes before a's older one. */
static void test_fair_tree(void **state)
{
	(void)state;
	struct site s;
	site_init(&s, 1, false, false);
	const struct tj tj[] = {
		{ .submit = 0, .run = 200, .cores = 4, .user = 0 },              /* a uses the node */
		{ .submit = 10, .run = 100, .cores = 4, .user = 2 },             /* a again, first in time */
		{ .submit = 20, .run = 100, .cores = 4, .user = 1, .acct = 1 },  /* b */
	};
	double start[3], end[3];
	const struct param ps[] = { { "priority_multifactor", 1 }, { "weight_fairshare", 1000 },
	                            { "calc_period_s", 60 }, { "backfill", 0 }, { NULL, 0 } };
	run(&s, 1, 0, tj, 3, ps, start, end, NULL);
	assert_true(S(0) == 3);
	assert_true(S(2) == end[0]);    /* b first: a's usage */
	assert_true(S(1) == end[2]);
	/* without fair share: first submitted first */
	const struct param pb[] = { { "backfill", 0 }, { NULL, 0 } };
	run(&s, 1, 0, tj, 3, pb, start, end, NULL);
	assert_true(S(1) == end[0] && S(2) == end[1]);
}

/* Where in its second a job arrives: the m jobs of a whole-second submit
 * time at (k+1)/(m+1) of it, or (arrival_draw) at fractions drawn from
 * the run's seed, in their submit order; a submit time with a fraction
 * (slurmctld's log) is the arrival itself. Passes every 0.1 s tick. */
static void test_arrivals(void **state)
{
	(void)state;
	struct site s;
	site_init(&s, 2, false, false);
	const struct tj tj[] = {
		{ .submit = 10, .run = 100, .cores = 1 },
		{ .submit = 10, .run = 100, .cores = 1 },
		{ .submit = 10, .run = 100, .cores = 1 },
		{ .submit = 20.37, .run = 100, .cores = 1 },
	};
	double start[4], end[4], a[4], b[4];
	const struct param even[] = { { "backfill", 0 }, { "batch_sched_delay_s", 0 }, { "tick_s", 0.1 }, { NULL, 0 } };
	run_seed = 1;
	run(&s, 2, 0, tj, 4, even, start, end, NULL);
	for (int k = 0; k < 3; k++)
		assert_true(S(k) >= 10 + (k + 1) / 4.0 - 1e-9 && S(k) <= 10 + (k + 1) / 4.0 + 0.1 + 1e-9);
	assert_true(S(3) >= 20.37 - 1e-9 && S(3) <= 20.47 + 1e-9);
	const struct param draw[] = { { "backfill", 0 }, { "batch_sched_delay_s", 0 }, { "tick_s", 0.1 },
		                      { "arrival_draw", 1 }, { NULL, 0 } };
	bool differ = false;
	for (uint64_t seed = 1; seed <= 8; seed++) {
		run_seed = seed;
		run(&s, 2, 0, tj, 4, draw, a, end, NULL);
		run(&s, 2, 0, tj, 4, draw, b, end, NULL);
		for (int k = 0; k < 4; k++)
			assert_true(a[k] == b[k]);   /* the same seed, the same run */
		assert_true(a[0] >= 10 && a[0] <= a[1] && a[1] <= a[2] && a[2] <= 11.1 + 1e-9);
		assert_true(a[3] >= 20.37 - 1e-9 && a[3] <= 20.47 + 1e-9);
		for (int k = 0; k < 3; k++)
			differ |= fabs(a[k] - S(k)) > 0.15;
	}
	assert_true(differ);
	run_seed = 0;
}

/* QOS hi preempts normal (REQUEUE, no grace): the victim stops at the
 * pass, the preemptor starts when it is requeued, and the victim may run
 * again requeue_delay_s later. */
static void test_preempt_requeue(void **state)
{
	(void)state;
	struct site s;
	site_init(&s, 1, false, true);
	const struct tj tj[] = {
		{ .submit = 0, .run = 500, .cores = 4, .qos = 0 },
		{ .submit = 100, .run = 50, .cores = 4, .qos = 1 },
	};
	double start[2], end[2];
	int pre[2];
	const struct param ps[] = { { "backfill", 0 }, { "preempt_qos", 1 }, { "preempt_mode", 2 },
	                            { "requeue_delay_s", 11 }, { NULL, 0 } };
	run(&s, 1, 0, tj, 2, ps, start, end, pre);
	assert_int_equal(pre[0], 1);
	assert_true(S(1) >= 101 && S(1) < 102);   /* the pass at 101 preempts; the requeue frees it */
	assert_true(end[1] == S(1) + 50);
	assert_true(S(0) >= end[1]);              /* back after hi, not before its delay */
	assert_true(end[0] == S(0) + 500);        /* it ran again from the start */
	/* CANCEL: the victim ends, preempted */
	s.qos[0].preempt_mode = SLURM_PM_CANCEL;
	run(&s, 1, 0, tj, 2, ps, start, end, pre);
	assert_true(end[0] >= 101 && end[0] < 102);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tick_and_delay),
		cmocka_unit_test(test_epilog_pass),
		cmocka_unit_test(test_partition_stop_and_backfill),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_qos_limit),
		cmocka_unit_test(test_assoc_limit_stop),
		cmocka_unit_test(test_fair_tree),
		cmocka_unit_test(test_arrivals),
		cmocka_unit_test(test_preempt_requeue),
	};
	return cmocka_run_group_tests_name("slurm", tests, NULL, NULL);
}
