/* prio (policies/prio.h) against values worked out by hand — the decay,
 * the billing rate of whole cards, shares and MIG instances, the classic
 * factor, projects within a tenant, a Fair Tree ranking with ties, each
 * multifactor factor — on hand-made views; then the prioeasy (fairshare's
 * engine) and
 * fairshare policies through the engine on small queues whose schedules
 * are worked out by hand, and their determinism. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy.h"
#include "policies/prio.h"
#include "sim/engine.h"
#include "sim/mig.h"
#include "config/migcfg.h"
#include "config/scenario.h"

#define MAXJ 32
#define EPS 1e-9

/* Nodes 0-3: H100 ×8, 64 cores; nodes 4-5: A100 ×8 with cards 0-1 in MIG
 * mode (3g.40gb@0). */
struct world {
	struct cluster cl;
	struct org org;
	struct job jobs[MAXJ];
	int32_t running[MAXJ], nrunning;
	int32_t pending[MAXJ], npending;
	struct alloc_part parts[64];
	uint32_t nparts;
	struct prio *p;
};

static int add_type(struct cluster *cl, const char *name, const char *gpu, int mig_cards)
{
	struct node_type t = { .gpu_model = catalog_find_gpu(&cl->cat, gpu), .gpus = 8, .cpu_model = -1,
	                       .sockets = 2, .cores = 64, .numa = 2, .mem_mib = 1024 * 1024,
	                       .mig_cards = mig_cards };
	assert_true(t.gpu_model >= 0);
	snprintf(t.name, sizeof t.name, "%s", name);
	snprintf(t.plane, sizeof t.plane, "ib400");
	if (mig_cards) {
		const struct mig_card *c = mig_find_card(cl->mig, gpu);
		assert_non_null(c);
		t.mig_nlayout = 1;
		t.mig_layout[0] = (int8_t)mig_find_profile(c, "3g.40gb");
	}
	int k = cluster_add_type(cl, &t);
	assert_true(k >= 0);
	return k;
}

static void build_cluster(struct cluster *cl, int h100_nodes, int a100_nodes)
{
	char err[512];
	cluster_init(cl);
	assert_int_equal(catalog_load_builtin(&cl->cat, err, sizeof err), 0);
	cl->mig = calloc(1, sizeof *cl->mig);
	assert_non_null(cl->mig);
	assert_int_equal(mig_load_builtin(cl->mig, err, sizeof err), 0);
	int h = add_type(cl, "h100", "H100-SXM-80GB", 0);
	int a = add_type(cl, "a100", "A100-SXM-80GB", 2);
	int r = cluster_add_rack(cl, "r", 400000, COOL_AIR);
	assert_true(r >= 0);
	if (h100_nodes)
		assert_int_equal(cluster_add_nodes(cl, r, h, h100_nodes), 0);
	if (a100_nodes)
		assert_int_equal(cluster_add_nodes(cl, r, a, a100_nodes), 0);
	if (cluster_finish(cl, err, sizeof err))
		fail_msg("%s", err);
}

static struct world *world_new(void)
{
	struct world *w = calloc(1, sizeof *w);
	assert_non_null(w);
	build_cluster(&w->cl, 4, 2);
	org_init(&w->org);
	for (int i = 0; i < MAXJ; i++)
		job_init(&w->jobs[i], i, 0);
	return w;
}

/* Tenants with these shares (no projects unless added by the test). */
static void org_tenants(struct org *o, int n, const double *shares)
{
	o->t = calloc((size_t)n, sizeof *o->t);
	assert_non_null(o->t);
	o->nt = n;
	for (int i = 0; i < n; i++) {
		snprintf(o->t[i].name, sizeof o->t[i].name, "t%d", i);
		o->t[i].shares = shares[i];
	}
}

/* Gives tenant t projects with these shares. Call in tenant order. */
static void org_projects(struct org *o, int t, int n, const double *shares)
{
	o->p = realloc(o->p, (size_t)(o->np + n) * sizeof *o->p);
	assert_non_null(o->p);
	o->t[t].first_project = o->np;
	o->t[t].nprojects = n;
	for (int k = 0; k < n; k++) {
		memset(&o->p[o->np], 0, sizeof *o->p);
		snprintf(o->p[o->np].name, sizeof o->p->name, "p%d", k);
		o->p[o->np++].shares = shares[k];
	}
}

static void prio_up(struct world *w, const struct prio_weights *pw, bool with_org)
{
	char err[256];
	struct policy_env env = { .cl = &w->cl, .njobs = MAXJ, .org = with_org ? &w->org : NULL };
	struct prio_weights def = { .fairshare = 1 };
	if (prio_init(&w->p, &env, pw ? pw : &def, err, sizeof err))
		fail_msg("%s", err);
}

static void world_free(struct world *w)
{
	prio_fini(w->p);
	org_fini(&w->org);
	cluster_fini(&w->cl);
	free(w);
}

static struct job *wjob(struct world *w, int id, int tenant, int group)
{
	struct job *j = &w->jobs[id];
	j->tenant = tenant;
	j->group = group;
	return j;
}

/* Job id runs from start_s on one part. */
static void wrun(struct world *w, int id, double start_s, struct alloc_part part)
{
	struct job *j = &w->jobs[id];
	j->state = JOB_RUNNING;
	j->start_us = simtime_from_s(start_s);
	j->parts = w->nparts;
	j->nparts = 1;
	w->parts[w->nparts++] = part;
	w->running[w->nrunning++] = id;
}

static void wend(struct world *w, int id, double end_s)
{
	struct job *j = &w->jobs[id];
	j->state = JOB_DONE;
	j->end_us = simtime_from_s(end_s);
	for (int i = 0; i < w->nrunning; i++)
		if (w->running[i] == id)
			w->running[i] = w->running[--w->nrunning];
}

static void wpend(struct world *w, int id)
{
	w->jobs[id].state = JOB_PENDING;
	w->pending[w->npending++] = id;
}

static struct view wview(struct world *w, double now_s)
{
	return (struct view){ .now = simtime_from_s(now_s), .cl = &w->cl, .jobs = w->jobs,
	                      .pending = w->pending, .npending = w->npending, .running = w->running,
	                      .nrunning = w->nrunning, .parts = w->parts };
}

static void update(struct world *w, double now_s)
{
	struct view v = wview(w, now_s);
	prio_update(w->p, &v);
}

static double fs_of(struct world *w, int id, double now_s)
{
	struct view v = wview(w, now_s);
	return prio_fairshare(w->p, &v, &w->jobs[id]);
}

static struct alloc_part cards(int node, int n)
{
	return (struct alloc_part){ .node = node, .gpus = (1ull << n) - 1, .mig_profile = -1 };
}

/* Usage 100 with a half-life of 1 h is 25 two hours later; charges come
 * after the decay: 3600 s at one unit, then half of it plus 3600 more. */
static void test_decay(void **state)
{
	(void)state;
	struct world *w = world_new();
	w->org.halflife_s = 3600;
	org_tenants(&w->org, 1, (double[]){ 1 });
	prio_up(w, NULL, true);
	wjob(w, 0, 0, 0);
	wrun(w, 0, 0, cards(0, 1));
	update(w, 0);
	update(w, 100);
	assert_float_equal(prio_usage_tenant(w->p, 0), 100, EPS);
	wend(w, 0, 100);
	update(w, 100 + 7200);
	assert_float_equal(prio_usage_tenant(w->p, 0), 25, EPS);
	assert_float_equal(prio_usage_project(w->p, 0, 0), 25, EPS);

	wjob(w, 1, 0, 0);
	wrun(w, 1, 7300, cards(1, 1));
	update(w, 7300 + 3600);
	assert_float_equal(prio_usage_tenant(w->p, 0), 25 * 0.5 + 3600, 1e-6);
	update(w, 7300 + 7200);
	assert_float_equal(prio_usage_tenant(w->p, 0), (25 * 0.5 + 3600) * 0.5 + 3600, 1e-6);
	world_free(w);
}

/* Billing units a second: cards × the model's weight, a share its milli,
 * a MIG instance its compute slices over 7, cores × core_weight. */
static void test_rate(void **state)
{
	(void)state;
	struct world *w = world_new();
	int h100 = catalog_find_gpu(&w->cl.cat, "H100-SXM-80GB");
	w->org.ngpu_weight = w->cl.cat.ngpus;
	w->org.gpu_weight = calloc((size_t)w->org.ngpu_weight, sizeof(double));
	w->org.gpu_weight[h100] = 2.0;   /* A100 left 0: counts 1 */
	w->org.core_weight = 0.01;
	org_tenants(&w->org, 1, (double[]){ 1 });
	prio_up(w, NULL, true);
	wjob(w, 0, 0, 0);
	wrun(w, 0, 0, (struct alloc_part){ .node = 0, .gpus = 0x3, .cores = 10, .mig_profile = -1 });
	wjob(w, 1, 0, 0);
	wrun(w, 1, 0, (struct alloc_part){ .node = 1, .gpus = 0x4, .milli = 250, .mig_profile = -1 });
	const struct mig_card *c = mig_find_card(w->cl.mig, "A100-SXM-80GB");
	wjob(w, 2, 0, 0)->req.mig_g = 3;
	wrun(w, 2, 0, (struct alloc_part){ .node = 4, .gpus = 0x1,
	                                   .mig_profile = (int8_t)mig_find_profile(c, "3g.40gb") });
	wjob(w, 3, 0, 0);
	wrun(w, 3, 0, cards(5, 4));
	struct view v = wview(w, 0);
	assert_float_equal(prio_job_rate(w->p, &v, &w->jobs[0]), 2 * 2.0 + 10 * 0.01, EPS);
	assert_float_equal(prio_job_rate(w->p, &v, &w->jobs[1]), 0.25 * 2.0, EPS);
	assert_float_equal(prio_job_rate(w->p, &v, &w->jobs[2]), 3.0 / 7.0, EPS);
	assert_float_equal(prio_job_rate(w->p, &v, &w->jobs[3]), 4.0, EPS);
	update(w, 0);
	update(w, 10);
	assert_float_equal(prio_usage_tenant(w->p, 0),
	                   10 * (4.1 + 0.5 + 3.0 / 7.0 + 4.0) * exp2(0), 1e-6);
	world_free(w);
}

/* A CPU-only cluster bills cores (core_weight 0 means "GPUs only when
 * there are any"); without an org every tenant id is its own tenant. */
static void test_cpu_cluster_no_org(void **state)
{
	(void)state;
	struct world *w = calloc(1, sizeof *w);
	struct node_type t = { .name = "cpu", .gpu_model = -1, .cpu_model = -1, .sockets = 1,
	                       .cores = 32, .mem_mib = 1024 };
	char err[256];
	cluster_init(&w->cl);
	assert_int_equal(cluster_add_type(&w->cl, &t), 0);
	assert_int_equal(cluster_add_rack(&w->cl, "r", 15000, COOL_AIR), 0);
	assert_int_equal(cluster_add_nodes(&w->cl, 0, 0, 2), 0);
	assert_int_equal(cluster_finish(&w->cl, err, sizeof err), 0);
	org_init(&w->org);
	for (int i = 0; i < MAXJ; i++)
		job_init(&w->jobs[i], i, 0);
	prio_up(w, NULL, false);
	wjob(w, 0, 117, 0);
	wrun(w, 0, 0, (struct alloc_part){ .node = 0, .cores = 8, .mig_profile = -1 });
	wjob(w, 1, -1, 0);
	wpend(w, 1);
	update(w, 0);
	update(w, 5);
	assert_float_equal(prio_usage_tenant(w->p, 117), 40, EPS);
	assert_float_equal(prio_usage_tenant(w->p, -1), 0, EPS);
	assert_float_equal(prio_usage_tenant(w->p, 5), 0, EPS);   /* never seen */
	/* two tenants of one share each, usage 40:0 → 2^(−1/0.5), 1 */
	assert_float_equal(fs_of(w, 0, 5), exp2(-2.0), EPS);
	assert_float_equal(fs_of(w, 1, 5), 1.0, EPS);
	world_free(w);
}

/* A job that starts and ends between two updates is charged from its
 * start (prio_started) to its end; a requeued one to the stop its
 * core-seconds give. */
static void test_between_updates(void **state)
{
	(void)state;
	struct world *w = world_new();
	w->org.halflife_s = 1e15;
	org_tenants(&w->org, 2, (double[]){ 1, 1 });
	prio_up(w, NULL, true);
	update(w, 0);
	/* job 1 (one card, 10 cores) runs from 0; nobody announced it */
	wjob(w, 1, 1, 0);
	wrun(w, 1, 0, (struct alloc_part){ .node = 1, .gpus = 0x1, .cores = 10, .mig_profile = -1 });
	update(w, 1);
	/* job 0 (two cards) starts at 5 and ends at 30, between updates */
	wjob(w, 0, 0, 0);
	wrun(w, 0, 5, cards(0, 2));
	struct view v = wview(w, 5);
	prio_started(w->p, &v, 0);
	wend(w, 0, 30);
	/* job 1 is requeued after 40 s: the engine added 10 cores × 40 s */
	w->jobs[1].core_s = 400;
	w->jobs[1].gpu_s = 40;
	w->nrunning = 0;
	wpend(w, 1);
	update(w, 100);
	assert_float_equal(prio_usage_tenant(w->p, 0), 2 * 25, 1e-6);
	assert_float_equal(prio_usage_tenant(w->p, 1), 1 * 40, 1e-6);
	world_free(w);
}

/* Shares 3:1, usage 50:50: F = 2^(−0.5/0.75) and 2^(−0.5/0.25). */
static void test_classic_two_tenants(void **state)
{
	(void)state;
	struct world *w = world_new();
	org_tenants(&w->org, 2, (double[]){ 3, 1 });
	prio_up(w, NULL, true);
	wjob(w, 0, 0, 0);
	wrun(w, 0, 0, cards(0, 1));
	wjob(w, 1, 1, 0);
	wrun(w, 1, 0, cards(1, 1));
	wjob(w, 2, 0, 0);
	wpend(w, 2);
	wjob(w, 3, 1, 0);
	wpend(w, 3);
	update(w, 0);
	update(w, 50);
	assert_float_equal(prio_usage_tenant(w->p, 0), prio_usage_tenant(w->p, 1), 1e-6);
	assert_float_equal(fs_of(w, 2, 50), exp2(-0.5 / 0.75), EPS);
	assert_float_equal(fs_of(w, 3, 50), exp2(-0.5 / 0.25), EPS);
	/* no usage at all: every factor 1 */
	struct world *w2 = world_new();
	org_tenants(&w2->org, 2, (double[]){ 3, 1 });
	prio_up(w2, NULL, true);
	wjob(w2, 0, 0, 0);
	wpend(w2, 0);
	wjob(w2, 1, 1, 0);
	wpend(w2, 1);
	update(w2, 10);
	assert_float_equal(fs_of(w2, 0, 10), 1.0, EPS);
	assert_float_equal(fs_of(w2, 1, 10), 1.0, EPS);
	world_free(w);
	world_free(w2);
}

/* One tenant, projects 1:1 with usage 30:10: tenant F = 2^(−1/1); project
 * factors 2^(−0.75/0.5) and 2^(−0.25/0.5), multiplied. A job whose group
 * names no project is charged to project 0. */
static void test_projects(void **state)
{
	(void)state;
	struct world *w = world_new();
	w->org.halflife_s = 1e15;
	org_tenants(&w->org, 1, (double[]){ 1 });
	org_projects(&w->org, 0, 2, (double[]){ 1, 1 });
	prio_up(w, NULL, true);
	wjob(w, 0, 0, 0);
	wrun(w, 0, 0, cards(0, 2));
	wjob(w, 1, 0, 7);     /* no project 7: the default, project 0 */
	wrun(w, 1, 0, cards(1, 1));
	wjob(w, 2, 0, 1);
	wrun(w, 2, 0, cards(2, 1));
	wjob(w, 3, 0, 0);
	wpend(w, 3);
	wjob(w, 4, 0, 1);
	wpend(w, 4);
	update(w, 0);
	update(w, 10);
	assert_float_equal(prio_usage_project(w->p, 0, 0), 30, 1e-6);
	assert_float_equal(prio_usage_project(w->p, 0, 1), 10, 1e-6);
	assert_float_equal(prio_usage_tenant(w->p, 0), 40, 1e-6);
	assert_float_equal(fs_of(w, 3, 10), 0.5 * exp2(-0.75 / 0.5), EPS);
	assert_float_equal(fs_of(w, 4, 10), 0.5 * exp2(-0.25 / 0.5), EPS);
	world_free(w);
}

/* Fair Tree on this tree (usage in core-seconds, core_weight 1):
 *   A shares 1: a0 (1) usage 10, a1 (1) usage 30      LF_A = (1/4)/(40/100) = 0.625
 *   B shares 1: b0 (1) usage 10, b1 (1) usage 10      LF_B = (1/4)/(20/100) = 1.25
 *   C shares 2: c0 (1) usage 0,  c1 (3) usage 40      LF_C = (2/4)/(40/100) = 1.25
 * B and C tie, so their projects are sorted together by their own level
 * fair-share: c0 ∞, b0 = b1 = (1/2)/(10/20) = 1, c1 = (3/4)/(40/40) = 0.75;
 * then A's: a0 = (1/2)/(10/40) = 2, a1 = (1/2)/(30/40) = 0.667.
 * Six users ranked from 6 down, b0 and b1 tied: c0 6, b0 5, b1 5, c1 3,
 * a0 2, a1 1; factor rank / 6. */
static void test_fair_tree(void **state)
{
	(void)state;
	struct world *w = world_new();
	w->org.halflife_s = 1e15;
	w->org.core_weight = 1;
	org_tenants(&w->org, 3, (double[]){ 1, 1, 2 });
	org_projects(&w->org, 0, 2, (double[]){ 1, 1 });
	org_projects(&w->org, 1, 2, (double[]){ 1, 1 });
	org_projects(&w->org, 2, 2, (double[]){ 1, 3 });
	struct prio_weights pw = { .fairshare = 1, .fair_tree = true };
	prio_up(w, &pw, true);
	static const struct { int t, p, cores; } use[] = {
		{ 0, 0, 10 }, { 0, 1, 30 }, { 1, 0, 10 }, { 1, 1, 10 }, { 2, 1, 40 },
	};
	int id = 0;
	for (int k = 0; k < 5; k++, id++) {
		wjob(w, id, use[k].t, use[k].p);
		wrun(w, id, 0, (struct alloc_part){ .node = k % 4, .cores = use[k].cores, .mig_profile = -1 });
	}
	/* one pending job per project (c0 has only this one) */
	int first = id;
	static const int tp[6][2] = { { 0, 0 }, { 0, 1 }, { 1, 0 }, { 1, 1 }, { 2, 0 }, { 2, 1 } };
	for (int k = 0; k < 6; k++, id++) {
		wjob(w, id, tp[k][0], tp[k][1]);
		wpend(w, id);
	}
	update(w, 0);
	update(w, 1);
	double want[6] = { 2 / 6.0, 1 / 6.0, 5 / 6.0, 5 / 6.0, 6 / 6.0, 3 / 6.0 };
	for (int k = 0; k < 6; k++)
		if (fabs(fs_of(w, first + k, 1) - want[k]) > EPS)
			fail_msg("tenant %d project %d: factor %g, expected %g", tp[k][0], tp[k][1],
			         fs_of(w, first + k, 1), want[k]);
	world_free(w);
}

/* Each factor alone: age saturates at max_age; job size is GPUs (or
 * cores) over the cluster's, or 1 minus that; QOS and partition come from
 * the class tables; the sum is weighted. */
static void test_factors(void **state)
{
	(void)state;
	struct world *w = world_new();   /* 48 GPUs, 384 cores */
	struct prio_weights pw = { .age = 1, .max_age_us = 7 * SIMTIME_DAY };
	prio_up(w, &pw, false);
	struct job *j = wjob(w, 0, 0, 0);
	wpend(w, 0);
	struct view v = wview(w, 3.5 * 86400);
	assert_float_equal(prio_priority(w->p, &v, j), 0.5, EPS);
	v = wview(w, 10 * 86400);
	assert_float_equal(prio_priority(w->p, &v, j), 1.0, EPS);
	v = wview(w, 0);
	assert_float_equal(prio_priority(w->p, &v, j), 0.0, EPS);
	prio_fini(w->p);

	pw = (struct prio_weights){ .jobsize = 1 };
	prio_up(w, &pw, false);
	j->req = (struct job_req){ .nodes = 2, .cores = 4, .gpus = 6 };
	assert_float_equal(prio_priority(w->p, &v, j), 12.0 / 48, EPS);
	j->req = (struct job_req){ .nodes = 1, .cores = 4, .gpus = 1, .gpu_milli = 500 };
	assert_float_equal(prio_priority(w->p, &v, j), 0.5 / 48, EPS);
	j->req = (struct job_req){ .nodes = 0, .cores = 96 };
	assert_float_equal(prio_priority(w->p, &v, j), 96.0 / 384, EPS);
	prio_fini(w->p);
	pw.favor_small = true;
	prio_up(w, &pw, false);
	assert_float_equal(prio_priority(w->p, &v, j), 1 - 96.0 / 384, EPS);
	prio_fini(w->p);

	pw = (struct prio_weights){ .qos = 100, .partition = 10,
	                            .qos_by_class = { [JOB_TRAINING] = 0.5, [JOB_INFERENCE] = 1 },
	                            .partition_by_class = { [JOB_DEV] = 0.3 } };
	prio_up(w, &pw, false);
	j->cls = JOB_INFERENCE;
	assert_float_equal(prio_priority(w->p, &v, j), 100, EPS);
	j->cls = JOB_TRAINING;
	assert_float_equal(prio_priority(w->p, &v, j), 50, EPS);
	j->cls = JOB_DEV;
	assert_float_equal(prio_priority(w->p, &v, j), 3, EPS);
	prio_fini(w->p);

	/* all together: 1000·age + 10000·fs + 0 size */
	pw = (struct prio_weights){ .age = 1000, .fairshare = 10000, .max_age_us = 7 * SIMTIME_DAY };
	prio_up(w, &pw, false);
	update(w, 7 * 86400);
	v = wview(w, 7 * 86400);
	assert_float_equal(prio_priority(w->p, &v, j), 1000 + 10000, 1e-6);
	world_free(w);
}

/* prio_sort and the incremental order agree: priority, then submit time,
 * then id. */
static void test_sort_order(void **state)
{
	(void)state;
	struct world *w = world_new();
	struct prio_weights pw = { .jobsize = 1 };
	prio_up(w, &pw, false);
	static const struct { int gpus; double submit; } q[] = {
		{ 1, 5 }, { 4, 9 }, { 1, 2 }, { 4, 9 }, { 2, 0 }, { 1, 2 },
	};
	for (int i = 0; i < 6; i++) {
		struct job *j = wjob(w, i, 0, 0);
		j->submit_us = simtime_from_s(q[i].submit);
		j->req = (struct job_req){ .nodes = 1, .cores = 1, .gpus = q[i].gpus };
		wpend(w, i);
	}
	int32_t ids[6];
	memcpy(ids, w->pending, sizeof ids);
	struct view v = wview(w, 10);
	prio_sort(w->p, &v, ids, 6);
	static const int32_t want[6] = { 1, 3, 4, 2, 5, 0 };
	for (int i = 0; i < 6; i++)
		assert_int_equal(ids[i], want[i]);
	prio_order_start(w->p, &v, w->pending, 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(prio_order_next(w->p), want[i]);
	assert_int_equal(prio_order_next(w->p), -1);
	world_free(w);
}

/* ---- the policies through the engine ---- */

struct tj {
	int tenant;
	double submit_s;
	int nodes, gpus;
	double wall_s, run_s;
};

/* Further parameters for run_policy, NULL-name terminated (or NULL). */
struct pset { const char *name; double val; };
static const struct pset *more_params;

/* prioeasy is not in the registry (it is fairshare's engine). */
extern const struct policy_ops policy_prioeasy;
static const struct policy_ops *find_pol(const char *name)
{
	return strcmp(name, "prioeasy") == 0 ? &policy_prioeasy : policy_find(name);
}

static int run_policy(const char *policy, const struct org *org, int h100_nodes, const struct tj *tj,
                      int n, const char *pname, double pval, double *start)
{
	struct cluster cl;
	struct sim s;
	char err[512];
	build_cluster(&cl, h100_nodes, 0);
	struct job *jobs = calloc((size_t)n, sizeof *jobs);
	struct job_truth *truth = calloc((size_t)n, sizeof *truth);
	for (int i = 0; i < n; i++) {
		job_init(&jobs[i], i, simtime_from_s(tj[i].submit_s));
		jobs[i].tenant = tj[i].tenant;
		jobs[i].req.nodes = tj[i].nodes;
		jobs[i].req.cores = 1;
		jobs[i].req.gpus = tj[i].gpus;
		jobs[i].walltime_us = simtime_from_s(tj[i].wall_s);
		truth[i].run_us = simtime_from_s(tj[i].run_s);
	}
	const struct policy_ops *pol = find_pol(policy);
	assert_non_null(pol);
	struct policy_cfg cfg;
	policy_cfg_defaults(pol, &cfg);
	if (pname) {
		int k = policy_param_index(pol, pname);
		assert_true(k >= 0);
		cfg.v[k] = pval;
	}
	for (const struct pset *ps = more_params; ps && ps->name; ps++) {
		int k = policy_param_index(pol, ps->name);
		assert_true(k >= 0);
		cfg.v[k] = ps->val;
	}
	void *ps = NULL;
	struct policy_env env = { .cl = &cl, .njobs = n, .org = org };
	if (pol->init(&ps, &env, &cfg, err, sizeof err))
		fail_msg("%s", err);
	struct sim_cfg sc = { .horizon_us = SIMTIME_INF, .org = org };
	assert_int_equal(sim_init(&s, &sc, &cl, jobs, truth, n), 0);
	struct sim_sched sched;
	policy_to_sched(pol, ps, &sched);
	sim_set_sched(&s, &sched);
	int rc = sim_run(&s);
	if (rc)
		fail_msg("%s", s.err);
	for (int i = 0; i < n; i++)
		start[i] = s.jobs[i].start_us < 0 ? -1 : simtime_to_s(s.jobs[i].start_us);
	pol->fini(ps);
	sim_fini(&s);
	return rc;
}

static void expect_starts(const char *what, const double *got, const double *want, int n)
{
	for (int i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("%s: job %d started at %g, expected %g", what, i, got[i], want[i]);
}

/* One 8-GPU node. Tenant 0 runs J0 (8 GPUs, 0-1000 s) and has J1 queued
 * at 10 s; tenant 1's J2 arrives at 20 s. At 1000 s tenant 0 has used
 * 8000 GPU-s and tenant 1 nothing: J2 goes first under multifactor and
 * fairshare; by submit time (easy, or multifactor without the fair-share
 * weight) J1 does. */
static void test_multifactor_order(void **state)
{
	(void)state;
	static const struct tj q[] = {
		{ 0, 0, 1, 8, 1000, 1000 }, { 0, 10, 1, 8, 100, 100 }, { 1, 20, 1, 8, 100, 100 },
	};
	struct org o;
	org_init(&o);
	org_tenants(&o, 2, (double[]){ 1, 1 });
	double st[3];
	run_policy("prioeasy", &o, 1, q, 3, NULL, 0, st);
	expect_starts("prioeasy", st, (const double[]){ 0, 1100, 1000 }, 3);
	run_policy("fairshare", &o, 1, q, 3, NULL, 0, st);
	expect_starts("fairshare", st, (const double[]){ 0, 1100, 1000 }, 3);
	run_policy("fairshare", &o, 1, q, 3, "fair_tree", 1, st);
	expect_starts("fairshare fair_tree", st, (const double[]){ 0, 1100, 1000 }, 3);
	run_policy("prioeasy", &o, 1, q, 3, "weight_fairshare", 0, st);
	expect_starts("multifactor, age only", st, (const double[]){ 0, 1000, 1100 }, 3);
	run_policy("easy", &o, 1, q, 3, NULL, 0, st);
	expect_starts("easy", st, (const double[]){ 0, 1000, 1100 }, 3);
	run_policy("prioeasy", NULL, 1, q, 3, NULL, 0, st);   /* no org: tenants by id */
	expect_starts("multifactor without org", st, (const double[]){ 0, 1100, 1000 }, 3);
	org_fini(&o);
}

/* Two 8-GPU nodes. J0 holds node 0 for 2 days (estimate 2 days). J1
 * (both nodes, 1 h, submitted at 10 s) is the head: its shadow time is
 * 2 days. J2 (one node, 3 days, at 20 s) would delay it. With bf_window
 * 1 day (the default) J1 gets no reservation and does not block: J2
 * starts at 20 s on node 1, and J1 waits for it (3 days + 20 s). With a
 * 3-day window J1 holds node 1: J2 waits for J1 (2 days + 1 h). */
static void test_window(void **state)
{
	(void)state;
	const double d = 86400;
	const struct tj q[] = {
		{ 0, 0, 1, 8, 2 * d, 2 * d }, { 0, 10, 2, 8, 3600, 3600 }, { 0, 20, 1, 8, 3 * d, 3 * d },
	};
	double st[3];
	run_policy("prioeasy", NULL, 2, q, 3, NULL, 0, st);
	expect_starts("window 1 day", st, (const double[]){ 0, 3 * d + 20, 20 }, 3);
	run_policy("prioeasy", NULL, 2, q, 3, "bf_window", 3 * 1440, st);
	expect_starts("window 3 days", st, (const double[]){ 0, 2 * d, 2 * d + 3600 }, 3);
}

/* Jobs for another GPU model backfill freely next to a head that waits
 * for its own: two H100 nodes and two A100 nodes (A100: 6 whole cards each
 * outside MIG). */
static void test_pools(void **state)
{
	(void)state;
	struct cluster cl;
	build_cluster(&cl, 2, 2);
	int h100 = catalog_find_gpu(&cl.cat, "H100-SXM-80GB"), a100 = catalog_find_gpu(&cl.cat, "A100-SXM-80GB");
	int n = 4;
	struct job *jobs = calloc((size_t)n, sizeof *jobs);
	struct job_truth *truth = calloc((size_t)n, sizeof *truth);
	static const struct { double sub; int nodes, gpus, model; double run; } q[] = {
		{ 0, 1, 8, 0, 1000 },      /* H100 node 0 busy until 1000 */
		{ 1, 2, 8, 0, 100 },       /* head: both H100 nodes, shadow 1000 */
		{ 2, 2, 6, 1, 5000 },      /* A100 gang, long: other pool, starts at 2 */
		{ 3, 1, 8, 0, 5000 },      /* H100, long: would delay the head, waits */
	};
	for (int i = 0; i < n; i++) {
		job_init(&jobs[i], i, simtime_from_s(q[i].sub));
		jobs[i].req.nodes = q[i].nodes;
		jobs[i].req.cores = 1;
		jobs[i].req.gpus = q[i].gpus;
		jobs[i].req.gpu_models = 1ull << (q[i].model ? a100 : h100);
		jobs[i].walltime_us = simtime_from_s(q[i].run);
		truth[i].run_us = simtime_from_s(q[i].run);
	}
	const struct policy_ops *pol = find_pol("prioeasy");
	struct policy_cfg cfg;
	policy_cfg_defaults(pol, &cfg);
	void *ps = NULL;
	char err[256];
	struct policy_env env = { .cl = &cl, .njobs = n };
	assert_int_equal(pol->init(&ps, &env, &cfg, err, sizeof err), 0);
	struct sim s;
	struct sim_cfg sc = { .horizon_us = SIMTIME_INF };
	assert_int_equal(sim_init(&s, &sc, &cl, jobs, truth, n), 0);
	struct sim_sched sched;
	policy_to_sched(pol, ps, &sched);
	sim_set_sched(&s, &sched);
	if (sim_run(&s))
		fail_msg("%s", s.err);
	double want[4] = { 0, 1000, 2, 1100 };
	for (int i = 0; i < n; i++)
		if (simtime_to_s(s.jobs[i].start_us) != want[i])
			fail_msg("job %d started at %g, expected %g", i, simtime_to_s(s.jobs[i].start_us), want[i]);
	pol->fini(ps);
	sim_fini(&s);
}

/* The same queue twice gives the same schedule, bit for bit (classic and
 * Fair Tree), on a mixed workload drawn from a fixed LCG. */
static void test_determinism(void **state)
{
	(void)state;
	enum { N = 200 };
	static struct tj q[N];
	uint64_t x = 12345;
	double t = 0;
	for (int i = 0; i < N; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		t += (double)(x >> 54) / 8.0;
		int g = 1 << (int)((x >> 20) % 4);
		q[i] = (struct tj){ .tenant = (int)((x >> 30) % 5), .submit_s = t, .nodes = (x >> 40) % 7 == 0 ? 2 : 1,
		                    .gpus = g, .run_s = 50 + (double)((x >> 8) % 2000) };
		q[i].wall_s = q[i].run_s * 1.5;
		if (q[i].nodes == 2)
			q[i].gpus = 8;
	}
	struct org o;
	org_init(&o);
	org_tenants(&o, 3, (double[]){ 1, 2, 3 });   /* tenants 3, 4: beyond the list */
	org_projects(&o, 0, 2, (double[]){ 1, 1 });
	static double a[N], b[N];
	for (int ft = 0; ft <= 1; ft++) {
		run_policy("prioeasy", &o, 4, q, N, "fair_tree", ft, a);
		run_policy("prioeasy", &o, 4, q, N, "fair_tree", ft, b);
		for (int i = 0; i < N; i++) {
			assert_true(a[i] >= q[i].submit_s);
			if (a[i] != b[i])
				fail_msg("fair_tree %d: job %d started at %.6f, then at %.6f", ft, i, a[i], b[i]);
		}
	}
	org_fini(&o);
}

/* With the age weight alone, an age that never saturates and an endless
 * window, multifactor is EASY in submit order: the same schedule as easy
 * on a mixed GPU workload (gangs, whole nodes, single cards; node level),
 * whatever the failure memo and the per-pool reservation skip. */
static void test_fifo_is_easy(void **state)
{
	(void)state;
	enum { N = 300 };
	static struct tj q[N];
	uint64_t x = 987654321;
	double t = 0;
	for (int i = 0; i < N; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		t += (double)(x >> 55) / 4.0;
		int kind = (int)((x >> 20) % 10);
		q[i] = (struct tj){ .tenant = (int)((x >> 30) % 4), .submit_s = t, .nodes = 1,
		                    .gpus = kind < 4 ? 1 : kind < 6 ? 2 : kind < 8 ? 4 : 8,
		                    .run_s = 30 + (double)((x >> 8) % 3000) };
		if (kind == 9)
			q[i].nodes = 2 + (int)((x >> 40) % 3);
		q[i].wall_s = q[i].run_s * (1 + (double)((x >> 44) % 3));
	}
	static const struct pset fifo[] = {
		{ "weight_fairshare", 0 }, { "weight_age", 1 }, { "max_age_days", 1e5 }, { "bf_window", 1e9 },
		{ NULL, 0 },
	};
	static double a[N], b[N];
	run_policy("easy", NULL, 6, q, N, NULL, 0, a);
	more_params = fifo;
	run_policy("prioeasy", NULL, 6, q, N, NULL, 0, b);
	more_params = NULL;
	int differ = 0;
	for (int i = 0; i < N; i++)
		differ += a[i] != b[i];
	if (differ)
		fail_msg("%d of %d jobs started at other times than under easy", differ, N);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decay),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_cpu_cluster_no_org),
		cmocka_unit_test(test_between_updates),
		cmocka_unit_test(test_classic_two_tenants),
		cmocka_unit_test(test_projects),
		cmocka_unit_test(test_fair_tree),
		cmocka_unit_test(test_factors),
		cmocka_unit_test(test_sort_order),
		cmocka_unit_test(test_multifactor_order),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_pools),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_fifo_is_easy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
