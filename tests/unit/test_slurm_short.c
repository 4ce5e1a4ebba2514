/* The slurm policy's shortcuts decide as its plain algorithm does
 * (policies/slurm_willrun.c, slurm_bf.c, slurm.c): on random workloads over
 * a mixed site, the shortcuts (shortcuts 1: the will-run test's short way
 * and floor, limits checked before a selection that cannot change them)
 * against the plain algorithm (shortcuts 0: every release simulated,
 * every try tested), and the cycle that stops behind the last job that
 * could start (bf_full_plan 0) against the one that plans every job
 * (bf_full_plan 1) give every job the same start and end. The site has CPU
 * nodes and GPU nodes of two models (GPU gangs stay on one), overlapping
 * partitions of two tiers, Slurm's node order unlike the cluster's (racks
 * named so), node weights, QOS and association limits, gangs, single-node
 * jobs, GPU jobs and spread requests (-n), with and without QOS
 * preemption.
 *
 * The same runs compacted (sim_compact after every step, and after every
 * 13: finished jobs leave the table and the policy renumbers what it keeps,
 * policies/slurm_renum.c) decide as the run never compacted: the same
 * start, end and preemptions for every job, the same recorded events, also
 * with arrivals spread within their second (submit_offset_s, arrival_draw).
 * So do the runs moved to a fresh engine through a snapshot every 7 and
 * every 50 steps (sim_snap_save / load, the policy's save and load hooks,
 * policies/slurm_snap.c), compacted or not. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/catalog.h"
#include "policies/policy.h"
#include "policies/slurm.h"
#include "sim/engine.h"
#include "sim/snap.h"
#include "tests/testutil.h"

#define NN 48      /* nodes: 24 CPU (rack "rb"), 12 A100 and 12 H100 (rack "ra") */
#define NJ 400

struct site {
	struct slurm_cfg c;
	struct slurm_part part[3];
	struct slurm_qos qos[3];
	struct slurm_assoc assoc[8];
	char users[4][SLURM_NAME_MAX];
	char accounts[2][SLURM_NAME_MAX];
	int32_t nodes[3][NN];
	int32_t part_of[3], qos_of[3], user_of[4], acct_of[2];
	int64_t weight[NN];
	int32_t preempt[1];
};

static void unlimited(struct slurm_limits *l)
{
	for (int k = 0; k < STRES_N; k++)
		l->max_tres_pu[k] = l->max_tres_pj[k] = l->grp_tres[k] = SLURM_UNLIMITED;
	l->max_jobs_pu = l->grp_jobs = l->max_submit_pu = SLURM_UNLIMITED;
	l->max_wall_s = SLURM_UNLIMITED;
}

static void build_cluster(struct cluster *cl)
{
	char err[512];
	cluster_init(cl);
	assert_int_equal(catalog_load_builtin(&cl->cat, err, sizeof err), 0);
	struct node_type cpu = { .gpu_model = -1, .cpu_model = -1, .sockets = 2, .cores = 16, .numa = 2, .mem_mib = 64000 };
	struct node_type a100 = { .gpu_model = catalog_find_gpu(&cl->cat, "A100-SXM-80GB"), .gpus = 4, .cpu_model = -1,
	                          .sockets = 1, .cores = 16, .numa = 1, .mem_mib = 128000 };
	struct node_type h100 = a100;
	h100.gpu_model = catalog_find_gpu(&cl->cat, "H100-SXM-80GB");
	assert_true(a100.gpu_model >= 0 && h100.gpu_model >= 0);
	snprintf(cpu.name, sizeof cpu.name, "cpu");
	snprintf(a100.name, sizeof a100.name, "a100");
	snprintf(h100.name, sizeof h100.name, "h100");
	int tc = cluster_add_type(cl, &cpu), ta = cluster_add_type(cl, &a100), th = cluster_add_type(cl, &h100);
	/* cluster order: rb's nodes first; Slurm's (names, naturally): ra's */
	int rb = cluster_add_rack(cl, "rb", 1e6, COOL_AIR);
	assert_int_equal(cluster_add_nodes(cl, rb, tc, 24), 0);
	int ra = cluster_add_rack(cl, "ra", 1e6, COOL_AIR);
	assert_int_equal(cluster_add_nodes(cl, ra, ta, 12), 0);
	assert_int_equal(cluster_add_nodes(cl, ra, th, 12), 0);
	if (cluster_finish(cl, err, sizeof err))
		fail_msg("%s", err);
}

/* Partitions all (every node), gpu (the GPU nodes) and short (tier 2,
 * eight CPU and four GPU nodes, 30 minutes); QOS normal, hi (preempts low
 * when preempt), low; accounts a and b, two users each. */
static void site_init(struct site *s, bool preempt)
{
	memset(s, 0, sizeof *s);
	struct slurm_cfg *c = &s->c;
	static const char *const pn[] = { "all", "gpu", "short" };
	int cnt[3] = { 0 };
	for (int i = 0; i < NN; i++) {
		s->nodes[0][cnt[0]++] = i;
		if (i >= 24)
			s->nodes[1][cnt[1]++] = i;
		if ((i >= 16 && i < 24) || (i >= 24 && i < 28))
			s->nodes[2][cnt[2]++] = i;
		s->weight[i] = 1 + (i % 5 == 0);   /* every fifth node heavier */
	}
	for (int p = 0; p < 3; p++) {
		struct slurm_part *sp = &s->part[p];
		snprintf(sp->name, sizeof sp->name, "%s", pn[p]);
		sp->nodes = s->nodes[p];
		sp->nnodes = cnt[p];
		sp->prio_tier = (uint16_t)(p == 2 ? 2 : 1);
		sp->prio_job_factor = 1;
		sp->max_time_s = p == 2 ? 1800 : SLURM_UNLIMITED;
		sp->default_time_s = SLURM_UNLIMITED;
		sp->max_nodes = sp->over_time_limit_min = SLURM_UNLIMITED;
		sp->qos = -1;
		sp->up = true;
		s->part_of[p] = p;
	}
	s->part[0].is_default = true;
	c->part = s->part;
	c->npart = 3;
	static const char *const qn[] = { "normal", "hi", "low" };
	for (int q = 0; q < 3; q++) {
		snprintf(s->qos[q].name, sizeof s->qos[q].name, "%s", qn[q]);
		s->qos[q].usage_factor = 1;
		s->qos[q].preempt_exempt_s = SLURM_UNLIMITED;
		unlimited(&s->qos[q].lim);
		s->qos_of[q] = q;
	}
	s->qos[1].priority = 100;
	s->qos[1].lim.max_tres_pu[STRES_CPU] = 128;  /* hi: 128 CPUs a user */
	s->qos[2].lim.max_jobs_pu = 3;               /* low: three jobs a user */
	if (preempt) {
		s->preempt[0] = 2;
		s->qos[1].preempt = s->preempt;
		s->qos[1].npreempt = 1;
	}
	c->qos = s->qos;
	c->nqos = 3;
	for (int u = 0; u < 4; u++) {
		snprintf(s->users[u], SLURM_NAME_MAX, "u%d", u);
		s->user_of[u] = u;
	}
	for (int a = 0; a < 2; a++) {
		snprintf(s->accounts[a], SLURM_NAME_MAX, "%c", 'a' + a);
		s->acct_of[a] = a;
	}
	c->users = s->users;
	c->nusers = 4;
	c->accounts = s->accounts;
	c->naccounts = 2;
	/* root; a; b; u0@a; u1@a; u2@b; u3@b */
	static const struct { int parent, account, user, shares; } tree[] = {
		{ -1, 0, -1, 1 }, { 0, 0, -1, 3 }, { 0, 1, -1, 1 }, { 1, 0, 0, 1 }, { 1, 0, 1, 1 }, { 2, 1, 2, 1 }, { 2, 1, 3, 2 },
	};
	c->assoc = s->assoc;
	c->nassoc = 7;
	for (int a = 0; a < 7; a++) {
		s->assoc[a] = (struct slurm_assoc){ .parent = tree[a].parent, .account = tree[a].account,
		                                    .user = tree[a].user, .shares = tree[a].shares, .def_qos = -1 };
		unlimited(&s->assoc[a].lim);
	}
	s->assoc[2].lim.grp_tres[STRES_CPU] = 160;      /* account b: 160 CPUs, 10 nodes */
	s->assoc[2].lim.grp_tres[STRES_NODE] = 10;
	c->node_weight = s->weight;
	c->nnodes = NN;
	c->cr_memory = true;
	c->part_of = s->part_of;
	c->npart_of = 3;
	c->qos_of = s->qos_of;
	c->nqos_of = 3;
	c->user_of = s->user_of;
	c->nuser_of = 4;
	c->acct_of = s->acct_of;
	c->nacct_of = 2;
}

/* A random workload of NJ jobs (seed): bursts, every kind of request. */
static void workload(struct job *jobs, struct job_truth *truth, unsigned seed)
{
	srand(seed);
	double t = 0;
	for (int i = 0; i < NJ; i++) {
		t += rand() % 4 == 0 ? rand() % 300 : rand() % 20;
		struct job *j = &jobs[i];
		job_init(j, i, simtime_from_s((double)(int64_t)t));
		j->trace_id = 1000 + i;
		int kind = rand() % 10, part = 0;
		if (kind < 4) {                /* one node, some cores */
			j->req.nodes = 1;
			j->req.cores = 1 + rand() % 16;
		} else if (kind < 6) {         /* a CPU gang */
			j->req.nodes = 2 + rand() % 6;
			j->req.cores = rand() % 2 ? 16 : 8;
		} else if (kind < 8) {         /* GPUs on one node */
			j->req.nodes = 1;
			j->req.gpus = 1 + rand() % 4;
			j->req.cores = 4 * j->req.gpus;
			part = 1;
		} else if (kind < 9) {         /* a GPU gang: one model */
			j->req.nodes = 2 + rand() % 4;
			j->req.gpus = 4;
			j->req.cores = 16;
			part = 1;
		} else {                       /* -n: cores anywhere */
			j->req.nodes = 0;
			j->req.cores = 8 + rand() % 40;
		}
		j->req.mem_mib = j->req.nodes == 0 ? 1000 : 2000 * j->req.cores;
		double run = 30 + rand() % 3000;
		if (rand() % 5 == 0 && j->req.nodes <= 4 && j->req.gpus == 0) {
			part = 2;
			run = 30 + rand() % 1200;
		}
		j->queue = part;
		j->tenant = rand() % 4;
		j->group = j->tenant / 2;
		j->qos = (int16_t)(rand() % 6 == 0 ? 1 : rand() % 4 == 0 ? 2 : 0);
		j->walltime_us = simtime_from_s(run * (1.5 + (rand() % 100) / 20.0));
		if (part == 2 && j->walltime_us > simtime_from_s(1800))
			j->walltime_us = simtime_from_s(1800);
		truth[i].run_us = simtime_from_s(run);
	}
}

struct outcome {
	int64_t start_us[NJ], end_us[NJ];
	int preempt[NJ], started;
	uint64_t events, tape;     /* recorded events: how many, a hash of them (jobs by number) */
	const struct sim *sim;
};

static void tape_add(struct outcome *o, const char *text)
{
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		o->tape = (o->tape ^ *c) * 1099511628211ull;
}

static void on_event(void *ctx, simtime t, enum rec_kind kind, int32_t job, int32_t node, int state,
                     const char *detail)
{
	struct outcome *o = ctx;
	char line[512];
	long long num = job >= 0 ? (long long)o->sim->jobs[job].num : -1;
	snprintf(line, sizeof line, "%lld %d %lld %d %d %s\n", (long long)t, (int)kind, num, node, state,
	         detail ? detail : "");
	tape_add(o, line);
	o->events++;
}

static void on_end(void *ctx, const struct sim *s, const struct job *j)
{
	(void)s;
	struct outcome *o = ctx;
	assert_true(j->num >= 0 && j->num < NJ);
	o->start_us[j->num] = j->start_us;
	o->end_us[j->num] = j->end_us;
	o->preempt[j->num] = j->preemptions;
}

/* An engine for the site under the slurm policy, its jobs and policy
 * state fresh (offset: submit_offset_s, draw: arrival_draw). */
static void *engine(const struct site *s, unsigned seed, double shortcuts, double full_plan, double offset,
                    bool draw, struct sim *sim)
{
	struct cluster cl;
	build_cluster(&cl);
	struct job *jobs = calloc(NJ, sizeof *jobs);
	struct job_truth *truth = calloc(NJ, sizeof *truth);
	assert_non_null(jobs);
	assert_non_null(truth);
	workload(jobs, truth, seed);
	extern const struct policy_ops policy_slurm;
	const struct policy_ops *pol = &policy_slurm;
	struct policy_cfg cfg;
	policy_cfg_defaults(pol, &cfg);
	static const struct { const char *name; double v; } ps[] = {
		{ "priority_multifactor", 1 }, { "weight_age", 1000 }, { "weight_fairshare", 5000 },
		{ "weight_jobsize", 500 }, { "weight_qos", 2000 }, { "bf_interval_s", 30 }, { "bf_resolution_s", 60 },
		{ "preempt_mode", 2 }, { "calc_period_s", 60 }, { "decay_halflife_s", 3600 }, { "enforce_limits", 1 },
	};
	for (size_t k = 0; k < sizeof ps / sizeof *ps; k++)
		cfg.v[policy_param_index(pol, ps[k].name)] = ps[k].v;
	cfg.v[policy_param_index(pol, "preempt_qos")] = s->qos[1].npreempt > 0;
	cfg.v[policy_param_index(pol, "shortcuts")] = shortcuts;
	cfg.v[policy_param_index(pol, "bf_full_plan")] = full_plan;
	cfg.v[policy_param_index(pol, "submit_offset_s")] = offset;
	cfg.v[policy_param_index(pol, "arrival_draw")] = draw;
	void *st = NULL;
	char err[256];
	struct policy_env env = { .cl = &cl, .njobs = NJ, .slurm = &s->c, .seed = seed };
	assert_int_equal(pol->init(&st, &env, &cfg, err, sizeof err), 0);
	struct sim_cfg sc = { .horizon_us = SIMTIME_INF, .keep_overruns = true };
	assert_int_equal(sim_init(sim, &sc, &cl, jobs, truth, NJ), 0);
	struct sim_sched sched;
	policy_to_sched(pol, st, &sched);
	sim_set_sched(sim, &sched);
	return st;
}

static int snap_every;   /* > 0: the run moves to a fresh engine through a snapshot every so many steps */

/* One run; every > 0: compacted after every `every` steps; offset:
 * submit_offset_s (draw: arrival_draw). */
static void run_ex(const struct site *s, unsigned seed, double shortcuts, double full_plan, int every, double offset,
                   bool draw, struct outcome *o)
{
	extern const struct policy_ops policy_slurm;
	static struct sim sims[2];
	int cur = 0;
	struct sim *sim = &sims[cur];
	void *st = engine(s, seed, shortcuts, full_plan, offset, draw, sim);
	memset(o, 0, sizeof *o);
	for (int i = 0; i < NJ; i++)
		o->start_us[i] = o->end_us[i] = -2;   /* never ended */
	o->sim = sim;
	struct sim_recorder rec = { .ctx = o, .event = on_event, .job_end = on_end };
	sim_set_recorder(sim, &rec);
	int32_t map[NJ + 1];
	int rc, moved = 0;
	long steps = 0;
	while ((rc = sim_step(sim)) > 0) {
		++steps;
		if (every > 0 && steps % every == 0 && sim_compact(sim, map, NULL, NULL) < 0)
			fail_msg("compacting: %s", sim->err);
		if (snap_every > 0 && steps % snap_every == 0) {
			struct snapw w = { 0 };
			if (sim_snap_save(sim, 7, &w))
				fail_msg("saving: %s", sim->err);
			struct sim *to = &sims[!cur];
			void *st2 = engine(s, seed, shortcuts, full_plan, offset, draw, to);
			if (sim_snap_load(to, 7, w.buf, w.n))
				fail_msg("loading at step %ld: %s", steps, to->err);
			free(w.buf);
			policy_slurm.fini(st);
			sim_fini(sim);
			st = st2;
			cur = !cur;
			sim = to;
			o->sim = sim;
			sim_set_recorder(sim, &rec);
			moved++;
		}
	}
	if (rc < 0)
		fail_msg("%s", sim->err);
	if (every > 0)
		assert_true(sim->ngone > NJ / 2);
	if (snap_every > 0)
		assert_true(moved > 10);
	for (int i = 0; i < NJ; i++)
		o->started += o->start_us[i] >= 0;
	o->sim = NULL;
	policy_slurm.fini(st);
	sim_fini(sim);
}

static void run(const struct site *s, unsigned seed, double shortcuts, double full_plan, struct outcome *o)
{
	run_ex(s, seed, shortcuts, full_plan, 0, 0, false, o);
}

static void same(const struct outcome *a, const struct outcome *b, const char *what, unsigned seed)
{
	if (a->events != b->events || a->tape != b->tape)
		fail_msg("seed %u, %s: %llu / %llu events recorded, %s", seed, what, (unsigned long long)a->events,
		         (unsigned long long)b->events, a->tape != b->tape ? "different" : "the same");
	for (int i = 0; i < NJ; i++)
		if (a->start_us[i] != b->start_us[i] || a->end_us[i] != b->end_us[i] || a->preempt[i] != b->preempt[i])
			fail_msg("seed %u, %s: job %d starts %.3f / %.3f, ends %.3f / %.3f, preempted %d / %d", seed, what, i,
			         simtime_to_s(a->start_us[i]), simtime_to_s(b->start_us[i]), simtime_to_s(a->end_us[i]),
			         simtime_to_s(b->end_us[i]), a->preempt[i], b->preempt[i]);
}

static void check(bool preempt)
{
	static struct outcome fast, plain, full, neither;
	struct site s;
	site_init(&s, preempt);
	for (unsigned seed = 1; seed <= 4; seed++) {
		run(&s, seed, 1, 0, &fast);
		run(&s, seed, 0, 0, &plain);
		run(&s, seed, 1, 1, &full);
		run(&s, seed, 0, 1, &neither);
		assert_int_equal(fast.started, NJ);   /* every job ran: the check saw them all */
		same(&fast, &plain, "shortcuts against the plain algorithm", seed);
		same(&fast, &full, "stopping behind the last startable job against planning all", seed);
		same(&fast, &neither, "all shortcuts against none", seed);
	}
}

static void test_no_preemption(void **state)
{
	(void)state;
	check(false);
}

static void test_preemption(void **state)
{
	(void)state;
	check(true);
}

/* Compacted runs against the run never compacted. */
static void check_compact(bool preempt, double offset, bool draw)
{
	static struct outcome as_is, every1, every13;
	struct site s;
	site_init(&s, preempt);
	for (unsigned seed = 1; seed <= 2; seed++) {
		run_ex(&s, seed, 1, 0, 0, offset, draw, &as_is);
		run_ex(&s, seed, 1, 0, 1, offset, draw, &every1);
		run_ex(&s, seed, 1, 0, 13, offset, draw, &every13);
		assert_int_equal(as_is.started, NJ);
		same(&as_is, &every1, "compacted after every step", seed);
		same(&as_is, &every13, "compacted after every 13 steps", seed);
	}
}

static void test_compact_no_preemption(void **state)
{
	(void)state;
	check_compact(false, 0, false);
}

static void test_compact_preemption(void **state)
{
	(void)state;
	check_compact(true, 0, false);
}

static void test_compact_arrivals(void **state)
{
	(void)state;
	check_compact(true, 0.5, false);
	check_compact(false, 0.5, true);
}

/* Runs moved to a fresh engine through a snapshot (sim_snap_save /
 * load, the policy's save and load hooks) every 7 and every 50 steps,
 * compacted or not, against the run never interrupted. */
static void check_snap(bool preempt, double offset, bool draw)
{
	static struct outcome as_is, moved;
	struct site s;
	site_init(&s, preempt);
	for (unsigned seed = 1; seed <= 2; seed++) {
		run_ex(&s, seed, 1, 0, 0, offset, draw, &as_is);
		assert_int_equal(as_is.started, NJ);
		static const int each[] = { 7, 50 };
		for (int k = 0; k < 2; k++)
			for (int every = 0; every <= 13; every += 13) {
				snap_every = each[k];
				run_ex(&s, seed, 1, 0, every, offset, draw, &moved);
				snap_every = 0;
				char what[96];
				snprintf(what, sizeof what, "moved through a snapshot every %d steps%s", each[k],
				         every ? ", compacted" : "");
				same(&as_is, &moved, what, seed);
			}
	}
}

static void test_snap(void **state)
{
	(void)state;
	check_snap(false, 0, false);
	check_snap(true, 0, false);
	check_snap(true, 0.5, false);
	check_snap(false, 0.5, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_preemption),
		cmocka_unit_test(test_preemption),
		cmocka_unit_test(test_compact_no_preemption),
		cmocka_unit_test(test_compact_preemption),
		cmocka_unit_test(test_compact_arrivals),
		cmocka_unit_test(test_snap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
