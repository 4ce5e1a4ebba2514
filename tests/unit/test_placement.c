/* placement strategies (policies/placement.h) on a hand-built heterogeneous
 * cluster: every strategy's allocations pass the engine's check on varied
 * states, and each rule the strategies share or differ by is pinned on a
 * case worked out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/placement.h"
#include "policies/policy.h"
#include "sim/mig.h"
#include "sim/power.h"
#include "config/migcfg.h"
#include "config/scenario.h"

/* Node indexes of the test cluster (racks fill in order):
 *   0-1   H100 ×8, plane ib400, leaf L1
 *   2-4   H100 ×8, plane ib400, leaf L2
 *   5-6   H100 ×8, plane roce100, leaf L3
 *   7-8   A100 ×8, cards 0-1 in MIG mode (3g.40gb@0 each), plane ib200
 *   9-10  L40S ×4, plane roce100      11-12 RTX4090 ×4, plane eth10
 *   13-15 CPU nodes, 64 cores in 4 NUMA domains
 * GPU nodes: 64 cores in 2 NUMA domains, 1 TiB. */
enum { N_H100_IB = 0, N_H100_IB2 = 2, N_H100_ROCE = 5, N_A100 = 7, N_L40S = 9, N_RTX = 11, N_CPU = 13, NNODES = 16 };

static int gpu_index(const struct cluster *cl, const char *name)
{
	int g = catalog_find_gpu(&cl->cat, name);
	assert_true(g >= 0);
	return g;
}

static int add_type(struct cluster *cl, const char *name, const char *gpu, int gpus, const char *plane,
                    int numa, int mig_cards)
{
	struct node_type t = { .gpu_model = gpu ? gpu_index(cl, gpu) : -1, .gpus = gpus, .cpu_model = -1,
	                       .sockets = 2, .cores = 64, .numa = numa, .mem_mib = 1024 * 1024,
	                       .mig_cards = mig_cards };
	snprintf(t.name, sizeof t.name, "%s", name);
	snprintf(t.plane, sizeof t.plane, "%s", plane);
	if (mig_cards) {
		struct mig_geometry *geo = cl->mig;
		const struct mig_card *c = mig_find_card(geo, gpu);
		assert_non_null(c);
		t.mig_nlayout = 1;
		t.mig_layout[0] = (int8_t)mig_find_profile(c, "3g.40gb");
	}
	int k = cluster_add_type(cl, &t);
	assert_true(k >= 0);
	return k;
}

static void rack(struct cluster *cl, const char *name, const char *leaf, int type, int count)
{
	int r = cluster_add_rack(cl, name, 40000, COOL_AIR);
	assert_true(r >= 0);
	if (leaf)
		assert_true(cluster_set_leaf(cl, r, leaf) >= 0);
	assert_int_equal(cluster_add_nodes(cl, r, type, count), 0);
}

static void build(struct cluster *cl)
{
	char err[512];
	cluster_init(cl);
	assert_int_equal(catalog_load_builtin(&cl->cat, err, sizeof err), 0);
	cl->mig = calloc(1, sizeof *cl->mig);
	assert_non_null(cl->mig);
	assert_int_equal(mig_load_builtin(cl->mig, err, sizeof err), 0);
	int h100 = add_type(cl, "h100", "H100-SXM-80GB", 8, "ib400", 2, 0);
	int h100e = add_type(cl, "h100e", "H100-SXM-80GB", 8, "roce100", 2, 0);
	int a100 = add_type(cl, "a100mig", "A100-SXM-80GB", 8, "ib200", 2, 2);
	int l40s = add_type(cl, "l40s", "L40S-48GB", 4, "roce100", 2, 0);
	int rtx = add_type(cl, "rtx", "RTX4090-24GB", 4, "eth10", 2, 0);
	int cpu = add_type(cl, "cpu", NULL, 0, "eth10", 4, 0);
	rack(cl, "r0", "L1", h100, 2);
	rack(cl, "r1", "L2", h100, 3);
	rack(cl, "r2", "L3", h100e, 2);
	rack(cl, "r3", NULL, a100, 2);
	int r4 = cluster_add_rack(cl, "r4", 40000, COOL_AIR);
	assert_int_equal(cluster_add_nodes(cl, r4, l40s, 2), 0);
	assert_int_equal(cluster_add_nodes(cl, r4, rtx, 2), 0);
	rack(cl, "r5", NULL, cpu, 3);
	if (cluster_finish(cl, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(cl->nnodes, NNODES);
}

/* Binds label expressions (strs[k] is referred to as k + 1 by the jobs). */
static void bind(struct cluster *cl, char **strs, int n, struct job *jobs, int njobs)
{
	char err[512];
	if (cluster_bind_workload(cl, strs, n, jobs, njobs, err, sizeof err))
		fail_msg("%s", err);
}

static struct job job(int id, int nodes, int cores, int gpus)
{
	struct job j;
	job_init(&j, id, 0);
	j.req.nodes = nodes;
	j.req.cores = cores;
	j.req.gpus = gpus;
	j.req.mem_mib = nodes > 0 ? 4096 : 0;
	return j;
}

static struct job share(int id, int milli)
{
	struct job j = job(id, 1, 2, 1);
	j.req.gpu_milli = milli;
	return j;
}

static struct job mig(int id, int g)
{
	struct job j = job(id, 1, 2, 1);
	j.req.mig_g = (int8_t)g;
	return j;
}

struct fixture {
	struct cluster cl;
	struct placer pl;
	struct alloc_part parts[NNODES];
	int np;
};

static void setup_placer(struct fixture *fx, const char *name, bool blind, uint64_t seed)
{
	char err[256];
	if (placer_init(&fx->pl, name, blind, seed, &fx->cl, 1000, err, sizeof err))
		fail_msg("%s", err);
}

/* Places j on the live state, checks the allocation as the engine does,
 * and (take) applies it. Returns the part count. */
static int place(struct fixture *fx, const struct job *j, bool take)
{
	char err[512];
	memset(fx->parts, 0xa5, sizeof fx->parts);   /* stale bytes must not leak into a part */
	fx->np = placer_place(&fx->pl, &fx->cl, fx->cl.free, j, fx->parts);
	if (fx->np == 0)
		return 0;
	if (cluster_check_alloc(&fx->cl, fx->cl.free, &j->req, fx->parts, fx->np, err, sizeof err))
		fail_msg("%s: job %d: %s", fx->pl.ops->name, j->id, err);
	if (take)
		cluster_take(&fx->cl, j->id, &j->req, fx->parts, fx->np);
	return fx->np;
}

static void fx_open(struct fixture *fx, const char *name)
{
	memset(fx, 0, sizeof *fx);
	build(&fx->cl);
	setup_placer(fx, name, false, 1);
}

static void fx_close(struct fixture *fx)
{
	placer_fini(&fx->pl);
	cluster_fini(&fx->cl);
}

/* ---- every strategy, varied states ---- */

static void test_every_strategy_valid(void **st)
{
	(void)st;
	const struct placement_ops *const *all = placement_all();
	for (int s = 0; all[s]; s++) {
		for (int blind = 0; blind < 2; blind++) {
			struct fixture fx;
			memset(&fx, 0, sizeof fx);
			build(&fx.cl);
			setup_placer(&fx, all[s]->name, blind, 7);
			int id = 0, placed = 0;
			/* fgd learns typical pods from what was submitted */
			struct job seen[4] = { job(900, 1, 8, 1), share(901, 500), job(902, 2, 16, 8), job(903, 0, 20, 0) };
			for (int k = 0; k < 4; k++)
				placer_submit(&fx.pl, &seen[k]);
			/* Rounds of a mix until the cluster fills: shares, MIG,
			 * NUMA-local, gangs of one model and plane, spread cores,
			 * label-blind memory needs. */
			for (int round = 0; round < 12; round++) {
				struct job js[9] = {
					share(id++, 100 + 100 * (round % 9)),
					mig(id++, 1 + round % 3),
					job(id++, 1, 12, 0),
					job(id++, 2, 8, 2),
					job(id++, 0, 37, 0),
					job(id++, 3, 4, 4),
					job(id++, 1, 30, 1),
					share(id++, 700),
					job(id++, 1, 4, 3),
				};
				js[2].req.flags = REQ_NUMA_LOCAL;
				js[4].req.mem_mib = 1024;
				js[6].req.flags = REQ_NUMA_LOCAL;
				js[7].req.gpu_mem_mib = 30 * 1024;
				js[8].req.gpu_mem_mib = 40 * 1024;
				for (int k = 0; k < 9; k++) {
					int n = place(&fx, &js[k], true);
					placed += n > 0;
					if (n && js[k].req.nodes > 1 && js[k].req.gpus > 0) {
						/* one model and one plane */
						const struct node *a = &fx.cl.nodes[fx.parts[0].node];
						for (int q = 1; q < n; q++) {
							const struct node *b = &fx.cl.nodes[fx.parts[q].node];
							assert_int_equal(a->gpu_model, b->gpu_model);
							assert_int_equal(a->plane, b->plane);
						}
					}
					if (n && !blind && js[k].req.gpu_mem_mib > 0 && js[k].req.mig_g == 0)
						for (int q = 0; q < n; q++)
							assert_true(fx.cl.nodes[fx.parts[q].node].gpu_mem_mib >= js[k].req.gpu_mem_mib);
				}
			}
			assert_true(placed > 20);
			/* A scratch copy of the free state (a policy's estimate):
			 * what is placed there passes the check against it. */
			struct nodefree *copy = calloc(NNODES, sizeof *copy);
			memcpy(copy, fx.cl.free, NNODES * sizeof *copy);
			struct job more[4] = { job(500, 1, 2, 0), share(501, 200), job(502, 0, 3, 0), mig(503, 1) };
			for (int k = 0; k < 4; k++) {
				char err[512];
				int n = placer_place(&fx.pl, &fx.cl, copy, &more[k], fx.parts);
				if (n && cluster_check_alloc(&fx.cl, copy, &more[k].req, fx.parts, n, err, sizeof err))
					fail_msg("%s scratch: %s", all[s]->name, err);
				if (n)
					nodefree_take(copy, fx.parts, n);
			}
			free(copy);
			fx_close(&fx);
		}
	}
}

/* place_first_fit (reservations) fills the new fields too. */
static void test_first_fit_fields(void **st)
{
	(void)st;
	struct fixture fx;
	fx_open(&fx, NULL);
	char err[512];
	struct job js[5] = { job(0, 1, 20, 2), share(1, 300), mig(2, 1), job(3, 0, 70, 0), job(4, 2, 8, 8) };
	js[0].req.flags = REQ_NUMA_LOCAL;
	for (int k = 0; k < 5; k++) {
		int n = place_first_fit(&fx.cl, fx.cl.free, &js[k].req, fx.parts);
		assert_true(n > 0);
		if (cluster_check_alloc(&fx.cl, fx.cl.free, &js[k].req, fx.parts, n, err, sizeof err))
			fail_msg("job %d: %s", k, err);
		for (int q = 0; q < n; q++)
			assert_true(js[k].req.mig_g > 0 ? fx.parts[q].mig_profile >= 0 : fx.parts[q].mig_profile == -1);
		cluster_take(&fx.cl, k, &js[k].req, fx.parts, n);
	}
	/* On a scratch state a share takes an idle card of its gpu_free. */
	struct nodefree *copy = calloc(NNODES, sizeof *copy);
	memcpy(copy, fx.cl.free, NNODES * sizeof *copy);
	struct job s = share(9, 500);
	int n = place_first_fit(&fx.cl, copy, &s.req, fx.parts);
	assert_int_equal(n, 1);
	assert_true((copy[fx.parts[0].node].gpu_free & fx.parts[0].gpus) != 0);
	assert_int_equal(fx.parts[0].milli, 500);
	free(copy);
	fx_close(&fx);
}

/* ---- best fit against worst fit ---- */

static void test_best_vs_worst(void **st)
{
	(void)st;
	static const char *const names[2] = { "best-fit", "worst-fit" };
	int got[2][2];
	for (int s = 0; s < 2; s++) {
		struct fixture fx;
		fx_open(&fx, names[s]);
		/* CPU node 13 is 40 cores busy. */
		struct job busy = job(0, 1, 40, 0);
		struct alloc_part p;
		assert_int_equal(place_part(&fx.cl, &fx.cl.free[N_CPU], N_CPU, &busy.req, 40, 0, -1, -1, &p), 0);
		cluster_take(&fx.cl, 0, &busy.req, &p, 1);
		struct job c = job(1, 1, 8, 0);
		assert_int_equal(place(&fx, &c, false), 1);
		got[s][0] = fx.parts[0].node;
		/* A 300-milli share after one of 300 on node 9 card 0. */
		struct job s1 = share(2, 300), s2 = share(3, 300);
		s1.req.gpu_models = 1ull << gpu_index(&fx.cl, "L40S-48GB");
		s2.req.gpu_models = s1.req.gpu_models;
		assert_int_equal(place(&fx, &s1, true), 1);
		assert_int_equal(place(&fx, &s2, false), 1);
		got[s][1] = fx.parts[0].node * 64 + __builtin_ctzll(fx.parts[0].gpus);
		fx_close(&fx);
	}
	assert_int_equal(got[0][0], N_CPU);                /* the fullest node that fits */
	assert_int_not_equal(got[1][0], N_CPU);            /* the emptiest */
	assert_int_equal(got[0][1], N_L40S * 64 + 0);      /* the shared card (300 left) */
	assert_int_equal(got[1][1], (N_L40S + 1) * 64 + 0); /* an idle card on the idlest node */
}

/* ---- topology ---- */

static void test_topology_leaves(void **st)
{
	(void)st;
	struct fixture fx;
	fx_open(&fx, "topology");
	/* 3 nodes of 8 H100: leaf L2 (nodes 2-4) holds them all; first fit
	 * would take 0, 1, 2 across two leaves. */
	struct job g3 = job(1, 3, 8, 8);
	assert_int_equal(place(&fx, &g3, false), 3);
	for (int q = 0; q < 3; q++)
		assert_int_equal(fx.parts[q].node, N_H100_IB2 + q);
	assert_int_equal(place_first_fit(&fx.cl, fx.cl.free, &g3.req, fx.parts), 3);
	assert_int_equal(fx.parts[2].node, 2);
	/* 2 nodes: leaf L1 fits exactly (best fit on leaves). */
	struct job g2 = job(2, 2, 8, 8);
	assert_int_equal(place(&fx, &g2, false), 2);
	assert_int_equal(fx.parts[0].node, 0);
	assert_int_equal(fx.parts[1].node, 1);
	/* Node 2 busy: 3 nodes need two leaves of the ib400 group, never the
	 * roce100 H100s (5-6) although 0, 1, 5 or 3, 4, 5 would be as few. */
	struct job busy = job(3, 1, 8, 8);
	struct alloc_part p;
	assert_int_equal(place_part(&fx.cl, &fx.cl.free[2], 2, &busy.req, 8, 0xff, -1, -1, &p), 0);
	cluster_take(&fx.cl, 3, &busy.req, &p, 1);
	assert_int_equal(place(&fx, &g3, false), 3);
	for (int q = 0; q < 3; q++)
		assert_true(fx.parts[q].node < N_H100_ROCE);
	/* Nodes 0 and 1 busy too: 4 nodes would have to mix planes, but the
	 * ib400 group can hold 4 when free, so nothing is placed — by every
	 * strategy and by first fit. */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(place_part(&fx.cl, &fx.cl.free[i], i, &busy.req, 8, 0xff, -1, -1, &p), 0);
		cluster_take(&fx.cl, 4 + i, &busy.req, &p, 1);
	}
	struct job g4 = job(6, 4, 8, 8);
	const struct placement_ops *const *all = placement_all();
	for (int s = 0; all[s]; s++) {
		struct placer pl;
		assert_int_equal(placer_init(&pl, all[s]->name, false, 3, &fx.cl, 10, NULL, 0), 0);
		assert_int_equal(placer_place(&pl, &fx.cl, fx.cl.free, &g4, fx.parts), 0);
		placer_fini(&pl);
	}
	assert_int_equal(place_first_fit(&fx.cl, fx.cl.free, &g4.req, fx.parts), 0);
	fx_close(&fx);

	/* A gang no one plane can ever hold (7 H100 nodes: 5 ib400 + 2
	 * roce100) mixes planes within the model rather than never running. */
	fx_open(&fx, "topology");
	struct job g7 = job(7, 7, 8, 8);
	assert_int_equal(place(&fx, &g7, false), 7);
	assert_int_equal(place_first_fit(&fx.cl, fx.cl.free, &g7.req, fx.parts), 7);
	fx_close(&fx);
}

/* ---- MIG ---- */

static void test_mig_order(void **st)
{
	(void)st;
	struct fixture fx;
	fx_open(&fx, "first-fit");
	const struct mig_card *c = fx.cl.gpu[fx.cl.nodes[N_A100].gpu0].mig->card;
	int g3 = mig_find_profile(c, "3g.40gb"), g1 = mig_find_profile(c, "1g.10gb");
	/* A 3g job reuses the free 3g.40gb@0 of node 7 card 0. */
	struct job a = mig(1, 3);
	assert_int_equal(place(&fx, &a, true), 1);
	assert_int_equal(fx.parts[0].node, N_A100);
	assert_int_equal(fx.parts[0].gpus, 1);
	assert_int_equal(fx.parts[0].mig_profile, g3);
	assert_int_equal(fx.parts[0].mig_start, 0);
	/* The next reuses card 1's free instance rather than creating a
	 * second 3g at slice 4 of card 0. */
	struct job b = mig(2, 3);
	assert_int_equal(place(&fx, &b, true), 1);
	assert_int_equal(fx.parts[0].node, N_A100);
	assert_int_equal(fx.parts[0].gpus, 2);
	assert_int_equal(fx.parts[0].mig_start, 0);
	fx_close(&fx);

	/* Node 7 card 0 made full and idle (3g@0 + 3g@4): a 1g job there
	 * needs a re-slice; card 1 can create one in its free slices, so it
	 * goes there although card 0 comes first. */
	fx_open(&fx, "first-fit");
	c = fx.cl.gpu[fx.cl.nodes[N_A100].gpu0].mig->card;   /* the new cluster's geometry */
	struct mig_layout *l = fx.cl.gpu[fx.cl.nodes[N_A100].gpu0].mig;
	assert_true(mig_place(l, g3, 4) >= 0);
	struct job d = mig(3, 1);
	int prof, start;
	assert_int_equal(cluster_mig_pick(&fx.cl, N_A100, 0, &d.req, true, &prof, &start), 2);
	assert_int_equal(cluster_mig_pick(&fx.cl, N_A100, 1, &d.req, true, &prof, &start), 1);
	assert_int_equal(place(&fx, &d, true), 1);
	assert_int_equal(fx.parts[0].node, N_A100);
	assert_int_equal(fx.parts[0].gpus, 2);
	assert_int_equal(fx.parts[0].mig_profile, g1);
	assert_true(fx.parts[0].mig_start >= 4);
	/* A 7g job can only re-slice an idle card: the first is node 7 card 0. */
	struct job e = mig(4, 7);
	assert_int_equal(place(&fx, &e, true), 1);
	assert_int_equal(fx.parts[0].node, N_A100);
	assert_int_equal(fx.parts[0].gpus, 1);
	assert_int_equal(c->profiles[fx.parts[0].mig_profile].compute_slices, 7);
	fx_close(&fx);
}

/* ---- time-sliced packing ---- */

static void test_share_packing(void **st)
{
	(void)st;
	struct fixture fx;
	fx_open(&fx, "gpu-packing");
	struct job s1 = share(1, 400), s2 = share(2, 400), s3 = share(3, 400);
	assert_int_equal(place(&fx, &s1, true), 1);
	int node = fx.parts[0].node;
	uint64_t card = fx.parts[0].gpus;
	assert_int_equal(place(&fx, &s2, true), 1);
	assert_int_equal(fx.parts[0].node, node);       /* fills the shared card */
	assert_int_equal(fx.parts[0].gpus, card);
	assert_int_equal(place(&fx, &s3, true), 1);     /* 800 used: a new card, on the busy node */
	assert_int_equal(fx.parts[0].node, node);
	assert_int_not_equal(fx.parts[0].gpus, card);
	fx_close(&fx);

	/* fgd: against typical whole-card pods, a share goes to a card already
	 * fragmented (node 10, 500 used) rather than breaking an idle one. */
	fx_open(&fx, "fgd");
	struct job typ = job(10, 1, 4, 1);
	for (int k = 0; k < 5; k++)
		placer_submit(&fx.pl, &typ);
	struct job s0 = share(11, 500);
	struct alloc_part p;
	assert_int_equal(place_part(&fx.cl, &fx.cl.free[N_L40S + 1], N_L40S + 1, &s0.req, 2, 1, -1, -1, &p), 0);
	cluster_take(&fx.cl, 11, &s0.req, &p, 1);
	struct job s4 = share(12, 300);
	assert_int_equal(place(&fx, &s4, false), 1);
	assert_int_equal(fx.parts[0].node, N_L40S + 1);
	assert_int_equal(fx.parts[0].gpus, 1);
	fx_close(&fx);
}

/* ---- label-blind placement ---- */

static void test_label_blind(void **st)
{
	(void)st;
	for (int blind = 0; blind < 2; blind++) {
		struct fixture fx;
		memset(&fx, 0, sizeof fx);
		build(&fx.cl);
		setup_placer(&fx, "best-fit", blind, 1);
		/* Needs 40 GiB on its card; only RTX 4090s (24 GiB) allowed. */
		struct job w = job(1, 1, 4, 1), s = share(2, 500);
		w.req.gpu_mem_mib = s.req.gpu_mem_mib = 40 * 1024;
		w.req.gpu_models = s.req.gpu_models = 1ull << gpu_index(&fx.cl, "RTX4090-24GB");
		if (blind) {
			assert_int_equal(place(&fx, &w, false), 1);
			assert_int_equal(fx.cl.nodes[fx.parts[0].node].gpu_mem_mib, 24 * 1024);
			assert_int_equal(place(&fx, &s, false), 1);
			assert_true(fx.parts[0].node >= N_RTX && fx.parts[0].node < N_CPU);
		} else {
			assert_int_equal(place(&fx, &w, false), 0);
			assert_int_equal(place(&fx, &s, false), 0);
			/* Any model: it goes to a card with the memory. */
			w.req.gpu_models = 0;
			assert_int_equal(place(&fx, &w, false), 1);
			assert_true(fx.cl.nodes[fx.parts[0].node].gpu_mem_mib >= 40 * 1024);
		}
		fx_close(&fx);
	}
}

/* ---- preferred labels ---- */

static void test_preferred_labels(void **st)
{
	(void)st;
	struct fixture fx;
	memset(&fx, 0, sizeof fx);
	build(&fx.cl);
	struct job js[3] = { job(0, 1, 4, 0), job(1, 0, 100, 0), job(2, 1, 4, 1) };
	static char e1[] = "node.type = cpu", e2[] = "node.type = cpu, rack = r5", e3[] = "net.plane = roce100";
	char *strs[3] = { e1, e2, e3 };
	js[0].req.sel_pref = 1;
	js[1].req.sel_pref = 2;
	js[2].req.sel_pref = 3;
	bind(&fx.cl, strs, 3, js, 3);
	const struct placement_ops *const *all = placement_all();
	for (int s = 0; all[s]; s++) {
		setup_placer(&fx, all[s]->name, false, 5);
		/* A CPU job prefers the CPU nodes, whatever the strategy. */
		assert_int_equal(place(&fx, &js[0], false), 1);
		assert_true(fx.parts[0].node >= N_CPU);
		/* Spread: CPU nodes first (64 × 3 > 100), nothing elsewhere. */
		int n = place(&fx, &js[1], false);
		assert_int_equal(n, 2);
		for (int q = 0; q < n; q++)
			assert_true(fx.parts[q].node >= N_CPU);
		/* A GPU job preferring roce100: an H100 of rack r2 or an L40S. */
		assert_int_equal(place(&fx, &js[2], false), 1);
		assert_int_equal(fx.cl.nodes[fx.parts[0].node].plane, cluster_plane_index(&fx.cl, "roce100"));
		placer_fini(&fx.pl);
	}
	cluster_fini(&fx.cl);
}

/* ---- random ---- */

static void test_random_deterministic(void **st)
{
	(void)st;
	struct fixture fx;
	fx_open(&fx, "random");
	int a[20], b[20], c[20];
	for (int k = 0; k < 20; k++) {
		struct job j = job(k, 1, 4, k % 2);
		assert_int_equal(place(&fx, &j, false), 1);
		a[k] = fx.parts[0].node;
		assert_int_equal(place(&fx, &j, false), 1);
		b[k] = fx.parts[0].node;
	}
	placer_fini(&fx.pl);
	setup_placer(&fx, "random", false, 1);   /* same seed, a fresh placer */
	for (int k = 0; k < 20; k++) {
		struct job j = job(k, 1, 4, k % 2);
		assert_int_equal(place(&fx, &j, false), 1);
		assert_int_equal(fx.parts[0].node, a[k]);
	}
	placer_fini(&fx.pl);
	setup_placer(&fx, "random", false, 2);
	int same = 0, spread = 0;
	for (int k = 0; k < 20; k++) {
		struct job j = job(k, 1, 4, k % 2);
		assert_int_equal(place(&fx, &j, false), 1);
		c[k] = fx.parts[0].node;
		same += c[k] == a[k];
		spread += a[k] != a[0];
		assert_int_equal(a[k], b[k]);
	}
	assert_true(same < 20);     /* another seed, other nodes */
	assert_true(spread > 0);    /* not one node for every job */
	fx_close(&fx);
}

/* ---- gpu-clustering reads the running jobs through placer_sync ---- */

static void test_clustering_sync(void **st)
{
	(void)st;
	struct fixture fx;
	fx_open(&fx, "gpu-clustering");
	struct job jobs[2] = { job(0, 1, 4, 2), job(1, 1, 4, 2) };
	struct alloc_part run;
	assert_int_equal(place_part(&fx.cl, &fx.cl.free[3], 3, &jobs[0].req, 4, 3, -1, -1, &run), 0);
	cluster_take(&fx.cl, 0, &jobs[0].req, &run, 1);
	jobs[0].state = JOB_RUNNING;
	jobs[0].parts = 0;
	jobs[0].nparts = 1;
	int32_t running[1] = { 0 };
	struct view v = { .cl = &fx.cl, .jobs = jobs, .running = running, .nrunning = 1,
	                  .parts = &run, .alloc_epoch = 1 };
	placer_sync(&fx.pl, &v);
	/* A 2-GPU job joins the node already running a 2-GPU job. */
	assert_int_equal(place(&fx, &jobs[1], true), 1);
	assert_int_equal(fx.parts[0].node, 3);
	v.alloc_epoch = 2;
	placer_started(&fx.pl, &v, &jobs[1], fx.parts, 1);
	assert_int_equal(fx.pl.aff[3 * GS_NAFF + 2], 2);
	fx_close(&fx);
}

/* ---- power ---- */

/* Nodes of the power cluster, all H100 ×8 on ib400 (so any node fits any
 * job and only the strategy chooses):
 *   0-1 rack "air"  (air, 30 kW)    2-3 rack "liq" (liquid, 40 kW)
 *   4-5 rack "liq2" (liquid, 60 kW) */
enum { P_AIR = 0, P_LIQ = 2, P_LIQ2 = 4, P_NNODES = 6 };

static void build_power(struct cluster *cl)
{
	char err[512];
	cluster_init(cl);
	assert_int_equal(catalog_load_builtin(&cl->cat, err, sizeof err), 0);
	int h100 = add_type(cl, "h100", "H100-SXM-80GB", 8, "ib400", 2, 0);
	static const struct { const char *name; double cap_w; int cooling; } racks[3] = {
		{ "air", 30000, COOL_AIR }, { "liq", 40000, COOL_LIQUID }, { "liq2", 60000, COOL_LIQUID },
	};
	for (int k = 0; k < 3; k++) {
		int r = cluster_add_rack(cl, racks[k].name, racks[k].cap_w, racks[k].cooling);
		assert_true(r >= 0);
		assert_int_equal(cluster_add_nodes(cl, r, h100, 2), 0);
	}
	if (cluster_finish(cl, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(cl->nnodes, P_NNODES);
}

static struct job pjob(int id, int cls, int nodes, int cores, int gpus, double walltime_h)
{
	struct job j = job(id, nodes, cores, gpus);
	j.cls = (uint8_t)cls;
	j.walltime_us = walltime_h > 0 ? simtime_from_s(walltime_h * 3600) : SIMTIME_INF;
	return j;
}

/* The node the power strategy gives a one-node job (checked as the engine does). */
static int ppl(struct fixture *fx, const struct job *j)
{
	assert_int_equal(place(fx, j, false), 1);
	return fx->parts[0].node;
}

/* Takes `gpus` cards and `cores` cores of node i as job `id`. */
static void busy_node(struct fixture *fx, int id, int i, int cores, int gpus)
{
	struct job b = job(id, 1, cores, gpus);
	struct alloc_part p;
	assert_int_equal(place_part(&fx->cl, &fx->cl.free[i], i, &b.req, cores,
	                            place_pick_gpus(fx->cl.free[i].gpu_free, gpus), -1, -1, &p), 0);
	cluster_take(&fx->cl, id, &b.req, &p, 1);
}

/* Without the power model: by cooling, then rack cap, then best fit. */
static void test_power_no_model(void **st)
{
	(void)st;
	struct fixture fx;
	memset(&fx, 0, sizeof fx);
	build_power(&fx.cl);
	setup_placer(&fx, "power", false, 1);
	assert_null(fx.cl.pw);
	/* Long or large training: liquid, the highest cap first. */
	struct job big = pjob(0, JOB_TRAINING, 1, 8, 8, 1);
	struct job longer = pjob(1, JOB_TRAINING, 1, 8, 2, 5);
	struct job nowall = pjob(2, JOB_TRAINING, 1, 8, 1, 0);
	assert_int_equal(ppl(&fx, &big), P_LIQ2);
	assert_int_equal(ppl(&fx, &longer), P_LIQ2);
	assert_int_equal(ppl(&fx, &nowall), P_LIQ2);
	/* Light inference and CPU-only jobs: air. */
	struct job inf1 = pjob(3, JOB_INFERENCE, 1, 4, 1, 1), inf_share = pjob(4, JOB_INFERENCE, 1, 2, 1, 1);
	inf_share.req.gpu_milli = 300;
	struct job cpu = pjob(5, JOB_BATCH, 1, 8, 0, 1), spread = pjob(6, JOB_BATCH, 0, 100, 0, 1);
	spread.req.mem_mib = 1024;
	assert_int_equal(ppl(&fx, &inf1), P_AIR);
	assert_int_equal(ppl(&fx, &inf_share), P_AIR);
	assert_int_equal(ppl(&fx, &cpu), P_AIR);
	assert_int_equal(place(&fx, &spread, false), 2);   /* 64 + 36 cores on the two air nodes */
	assert_int_equal(fx.parts[0].node, P_AIR);
	assert_int_equal(fx.parts[1].node, P_AIR + 1);
	/* Neither: short training of a few GPUs, inference of several GPUs
	 * (a short training share too): no cooling preference, the highest cap. */
	struct job short2 = pjob(7, JOB_TRAINING, 1, 8, 2, 1), inf4 = pjob(8, JOB_INFERENCE, 1, 8, 4, 1);
	struct job tshare = pjob(9, JOB_TRAINING, 1, 2, 1, 10);
	tshare.req.gpu_milli = 500;
	assert_int_equal(ppl(&fx, &short2), P_LIQ2);
	assert_int_equal(ppl(&fx, &inf4), P_LIQ2);
	assert_int_equal(ppl(&fx, &tshare), P_LIQ2);
	/* Within a rack: best fit. */
	busy_node(&fx, 100, P_AIR + 1, 8, 4);
	busy_node(&fx, 101, P_LIQ2 + 1, 8, 4);
	assert_int_equal(ppl(&fx, &inf1), P_AIR + 1);
	assert_int_equal(ppl(&fx, &longer), P_LIQ2 + 1);
	/* A share packs onto a card already shared in its rack. */
	assert_int_equal(place(&fx, &inf_share, true), 1);
	int n0 = fx.parts[0].node;
	uint64_t g0 = fx.parts[0].gpus;
	assert_int_equal(ppl(&fx, &inf_share), n0);
	assert_true(fx.parts[0].gpus == g0);
	fx_close(&fx);
}

/* With the power model: blocked nodes and racks skipped, then headroom,
 * then the coolest node, then best fit. */
static void test_power_model(void **st)
{
	(void)st;
	struct fixture fx;
	memset(&fx, 0, sizeof fx);
	build_power(&fx.cl);
	struct power_cfg cfg;
	power_cfg_defaults(&cfg);
	cfg.enabled = true;
	assert_int_equal(power_init(&fx.cl, &cfg), 0);
	setup_placer(&fx, "power", false, 1);
	struct power_state *pw = fx.cl.pw;
	struct job big = pjob(0, JOB_TRAINING, 1, 8, 8, 0), inf1 = pjob(1, JOB_INFERENCE, 1, 4, 1, 1);
	struct job cpu = pjob(2, JOB_DEV, 0, 80, 0, 1);
	cpu.req.mem_mib = 1024;
	/* Idle: the liquid rack with the most headroom (60 kW), air for inference. */
	assert_int_equal(ppl(&fx, &big), P_LIQ2);
	assert_int_equal(ppl(&fx, &inf1), P_AIR);
	/* liq2 drawing 50 kW has 4 kW of headroom before its warning: liq. */
	pw->rack[2].power_w = 50000;
	assert_int_equal(ppl(&fx, &big), P_LIQ);
	/* The cooler node of liq, whatever the fit ... */
	pw->node[P_LIQ].temp_c = 50;
	pw->node[P_LIQ + 1].temp_c = 40;
	busy_node(&fx, 100, P_LIQ, 8, 0);
	assert_int_equal(ppl(&fx, &big), P_LIQ + 1);
	/* ... but within 0.1 °C the better fit. */
	pw->node[P_LIQ].temp_c = 40.02;
	assert_int_equal(ppl(&fx, &big), P_LIQ);
	/* A hot node is skipped (cluster_node_fits), so is a rack in warning. */
	pw->node[P_LIQ].flags = PW_NODE_HOT;
	assert_int_equal(ppl(&fx, &big), P_LIQ + 1);
	pw->rack[1].flags = PW_RACK_WARN;
	assert_int_equal(ppl(&fx, &big), P_LIQ2);
	pw->rack[2].flags = PW_RACK_WARN | PW_RACK_OVER;
	assert_int_equal(ppl(&fx, &big), P_AIR);   /* no liquid rack takes work: air */
	/* A throttled rack (not in warning) comes after every other. */
	pw->rack[1].flags = pw->rack[2].flags = 0;
	pw->node[P_LIQ].flags = 0;
	pw->rack[1].throttle = 0.7;
	assert_int_equal(ppl(&fx, &big), P_LIQ2);
	pw->rack[1].throttle = 1;
	/* Inference avoids a throttled node of the air rack. */
	pw->node[P_AIR].flags = PW_NODE_THROTTLED;
	pw->node[P_AIR].limit = 0.6;
	assert_int_equal(ppl(&fx, &inf1), P_AIR + 1);
	pw->node[P_AIR].flags = 0;
	pw->node[P_AIR].limit = 1;
	/* Spread CPU work: never a hot node (the engine would refuse it). */
	pw->node[P_AIR].flags = PW_NODE_HOT;
	int n = place(&fx, &cpu, false);
	assert_int_equal(n, 2);
	for (int q = 0; q < n; q++)
		assert_int_not_equal(fx.parts[q].node, P_AIR);
	assert_int_equal(fx.parts[0].node, P_AIR + 1);   /* air first */
	/* Every strategy keeps off blocked nodes on spread requests. */
	const struct placement_ops *const *all = placement_all();
	for (int s = 0; all[s]; s++) {
		struct placer pl;
		assert_int_equal(placer_init(&pl, all[s]->name, false, 3, &fx.cl, 10, NULL, 0), 0);
		n = placer_place(&pl, &fx.cl, fx.cl.free, &cpu, fx.parts);
		assert_true(n > 0);
		for (int q = 0; q < n; q++)
			assert_int_not_equal(fx.parts[q].node, P_AIR);
		placer_fini(&pl);
	}
	fx_close(&fx);   /* cluster_fini frees cl->pw */
}

static void test_unknown_name(void **st)
{
	(void)st;
	struct cluster cl;
	build(&cl);
	struct placer pl;
	char err[256];
	assert_int_equal(placer_init(&pl, "tetris", false, 0, &cl, 10, err, sizeof err), -1);
	assert_non_null(strstr(err, "tetris"));
	assert_non_null(strstr(err, "best-fit"));
	placer_fini(&pl);
	assert_ptr_equal(placement_find(NULL), placement_find("first-fit"));
	assert_ptr_equal(placement_find(""), placement_find("first-fit"));
	cluster_fini(&cl);
}

/* ---- the live free-state index (cluster_next_fit) ---- */

static int fx_level(int32_t cores)
{
	int b = 0;
	while (b < CLUSTER_FX_CORES && cores >= (1 << b))
		b++;
	return b;
}

/* What cluster_next_fit must return: the first node at or after `from`
 * in service with at least min(gpus, CLUSTER_FX_GPUS) whole idle cards and
 * at least the power of two at or below `cores` free cores (a node not in
 * service is skipped even when its cards and cores are free). */
static int32_t next_fit_ref(const struct cluster *cl, int32_t from, int32_t gpus, int32_t cores)
{
	int32_t g = gpus > CLUSTER_FX_GPUS ? CLUSTER_FX_GPUS : gpus;
	if (gpus <= 0 && cores <= 0)
		return from < cl->nnodes ? from : cl->nnodes;   /* nothing asked: no index */
	for (int32_t i = from < 0 ? 0 : from; i < cl->nnodes; i++)
		if (cl->svc[i] == NODE_UP && (gpus <= 0 || cl->free[i].gpus >= g) &&
		    (cores <= 0 || fx_level(cl->free[i].cores) >= fx_level(cores)))
			return i;
	return cl->nnodes;
}

/* Random takes and gives of runs of neighbouring nodes (up to 70, so an
 * allocation spans index words and changes many nodes' levels alike), and
 * nodes going down, draining and coming back, on a cluster large enough
 * for the index's summary words to matter (9,000 nodes): every answer of
 * cluster_next_fit, and every node of a cluster_fit_begin/next walk,
 * equals the scan's. */
enum { RUN_MAX = 70 };

static void test_next_fit_index(void **st)
{
	(void)st;
	struct cluster cl;
	char err[512];
	cluster_init(&cl);
	assert_int_equal(catalog_load_builtin(&cl.cat, err, sizeof err), 0);
	cl.mig = calloc(1, sizeof *cl.mig);
	assert_non_null(cl.mig);
	assert_int_equal(mig_load_builtin(cl.mig, err, sizeof err), 0);
	int h100 = add_type(&cl, "h100", "H100-SXM-80GB", 8, "ib400", 2, 0);
	int cpu = add_type(&cl, "cpu", NULL, 0, "eth10", 4, 0);
	rack(&cl, "g0", NULL, h100, 5000);
	rack(&cl, "c0", NULL, cpu, 4000);
	if (cluster_finish(&cl, err, sizeof err))
		fail_msg("%s", err);
	enum { NJ = 3000 };
	struct { struct alloc_part p[RUN_MAX]; int n; struct job j; bool on; } *held = calloc(NJ, sizeof *held);
	assert_non_null(held);
	uint64_t x = 12345;
	int walks = 0;
	for (int step = 0; step < 40000; step++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int k = (int)(x % NJ);
		if (step % 7 == 3) {
			/* A node's service changes with its cards and cores as they are. */
			int32_t node = (int32_t)((x >> 20) % (uint64_t)cl.nnodes);
			static const enum node_svc to[] = { NODE_UP, NODE_DOWN, NODE_DRAINING, NODE_DRAINED, NODE_ABSENT, NODE_UP };
			cluster_set_svc(&cl, node, to[(x >> 44) % 6]);
		} else if (held[k].on) {
			cluster_give(&cl, k, &held[k].j.req, held[k].p, held[k].n);
			held[k].on = false;
		} else {
			/* The same share of every node of a run: most change level alike. */
			int32_t first = (int32_t)((x >> 20) % (uint64_t)cl.nnodes);
			int len = step % 3 ? 1 + (int)((x >> 36) % RUN_MAX) : 1;
			int32_t want_cores = (int32_t)((x >> 40) % 64) + 1;
			int want_gpus = (int)((x >> 50) % 9);
			held[k].n = 0;
			held[k].j = job(k, 1, want_cores, want_gpus);
			held[k].j.req.mem_mib = 0;
			for (int32_t node = first; node < cl.nnodes && node < first + len; node++) {
				const struct nodefree *f = &cl.free[node];
				int32_t cores = f->cores < want_cores ? f->cores : want_cores;
				int gpus = f->gpus < want_gpus ? f->gpus : want_gpus;
				if (cores <= 0)
					continue;
				struct alloc_part *p = &held[k].p[held[k].n];
				if (place_part(&cl, f, node, &held[k].j.req, cores, place_pick_gpus(f->gpu_free, gpus), -1, -1, p))
					continue;
				held[k].n++;
			}
			if (held[k].n == 0)
				continue;
			cluster_take(&cl, k, &held[k].j.req, held[k].p, held[k].n);
			held[k].on = true;
		}
		for (int q = 0; q < 4; q++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			int32_t from = (int32_t)(x % (uint64_t)(cl.nnodes + 10));
			int32_t g = (int32_t)((x >> 24) % 11), c = (int32_t)((x >> 32) % 80);
			int32_t want = next_fit_ref(&cl, from, g, c), got = cluster_next_fit(&cl, from, g, c);
			if (want != got)
				fail_msg("step %d: next_fit(from %d, %d cards, %d cores) = %d, expected %d", step, from, g, c,
				         got, want);
			if (q > 0 || step % 16)
				continue;
			/* The walk from `from` to the end, node by node. */
			struct fit_iter it;
			cluster_fit_begin(&it, &cl, from, g, c);
			int32_t i = cluster_fit_next(&it), ref = want;
			for (;;) {
				if (i != ref)
					fail_msg("step %d: walk (%d cards, %d cores) from %d gave %d where the scan has %d", step, g, c,
					         from, i, ref);
				if (i >= cl.nnodes)
					break;
				i = cluster_fit_next(&it);
				ref = next_fit_ref(&cl, ref + 1, g, c);
			}
			walks++;
		}
	}
	assert_true(walks > 2000);
	free(held);
	cluster_fini(&cl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_strategy_valid),
		cmocka_unit_test(test_first_fit_fields),
		cmocka_unit_test(test_best_vs_worst),
		cmocka_unit_test(test_topology_leaves),
		cmocka_unit_test(test_mig_order),
		cmocka_unit_test(test_next_fit_index),
		cmocka_unit_test(test_share_packing),
		cmocka_unit_test(test_label_blind),
		cmocka_unit_test(test_preferred_labels),
		cmocka_unit_test(test_random_deterministic),
		cmocka_unit_test(test_clustering_sync),
		cmocka_unit_test(test_unknown_name),
		cmocka_unit_test(test_power_no_model),
		cmocka_unit_test(test_power_model),
	};
	return cmocka_run_group_tests_name("placement", tests, NULL, NULL);
}
