/* gpushare: each score on hand-built nodes, values worked out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "policies/gpushare.h"

/* Typical pods: a 500-milli share pod and a 1-GPU pod, half each. */
static struct gs_req tp[2] = { { 1000, 0, 1, 500, 0, 0 }, { 1000, 0, 1, 1000, 0, 0 } };
static double tpp[2] = { 0.5, 0.5 };
static const struct gs_typical typ = { 2, tp, tpp };

static struct gs_node mk(int32_t g0, int32_t g1)
{
	struct gs_node n;
	memset(&n, 0, sizeof n);
	n.ngpu = 2;
	n.gpu_free[0] = g0;
	n.gpu_free[1] = g1;
	n.cpu_free = n.cpu_cap = 64000;
	n.mem_free = 262144;
	n.frag = gs_frag(&n, &typ);
	return n;
}

static const struct gs_req share = { 1000, 1024, 1, 500, 0, 0 };

static void test_frag_values(void **st)
{
	(void)st;
	struct gs_node a = mk(1000, 1000), b = mk(500, 1000), c = mk(300, 0);
	assert_true(fabs(gs_frag(&a, &typ) - 0) < 1e-9);
	/* b: the share pod fits, no GPU below 500; the 1-GPU pod fits on GPU1
	 * but GPU0's 500 is too small for it: 0.5 × 500. */
	assert_true(fabs(gs_frag(&b, &typ) - 250) < 1e-9);
	/* c: neither fits: all 300 idle milli count, 0.5 × 300 twice. */
	assert_true(fabs(gs_frag(&c, &typ) - 300) < 1e-9);
	/* A CPU-only typical pod counts every idle milli. */
	struct gs_req t2[1] = { { 1000, 0, 0, 0, 0, 0 } };
	double p2[1] = { 1 };
	struct gs_typical cpu = { 1, t2, p2 };
	assert_true(fabs(gs_frag(&b, &cpu) - 1500) < 1e-9);
	/* Lacking CPU makes the fitting shapes count in full. */
	b.cpu_free = 500;
	assert_true(fabs(gs_frag(&b, &typ) - 1500) < 1e-9);
}

static int score(const char *name, const struct gs_node *n, const struct gs_req *r, double u,
                 uint32_t *g)
{
	const struct gpu_placement *p = gpushare_find(name);
	assert_non_null(p);
	struct gs_ctx c = { .typ = &typ, .memo = NULL, .u = u };
	return p->score(n, r, &c, g);
}

static void test_fgd(void **st)
{
	(void)st;
	struct gs_node a = mk(1000, 1000), b = mk(500, 1000);
	uint32_t g;
	/* a: frag 0 -> 250, 100 × sigmoid(-0.25) = 43.78 -> 43 */
	assert_int_equal(score("fgd", &a, &share, 0, &g), 43);
	/* b: GPU0 gives [0,1000], frag 250 -> 0: sigmoid(0.25) -> 56; GPU1
	 * gives [500,500], frag 500: 43. GPU0 wins. */
	assert_int_equal(score("fgd", &b, &share, 0, &g), 56);
	assert_int_equal(g, 1u);
	/* The memo gives the same answers. */
	struct gs_memo *m = gs_memo_new(&typ);
	struct gs_ctx c = { .typ = &typ, .memo = m };
	assert_int_equal(gpushare_find("fgd")->score(&b, &share, &c, &g), 56);
	assert_int_equal(gpushare_find("fgd")->score(&b, &share, &c, &g), 56);
	gs_memo_free(m);
}

static void test_others(void **st)
{
	(void)st;
	struct gs_node a = mk(1000, 1000), b = mk(500, 1000);
	uint32_t g;
	/* bestfit: 100 × (1 − (63000/128000 + 1500/8000)/2) = 66.02 */
	assert_int_equal(score("bestfit", &a, &share, 0, &g), 66);
	assert_int_equal(score("bestfit", &b, &share, 0, &g), 69);
	assert_int_equal(g, 1u);        /* the fuller GPU */
	/* dotprod: 100 × (1 − (0.5 × 1000/128000 + 0.25 × 500/8000)/2) = 99.02 */
	assert_int_equal(score("dotprod", &a, &share, 0, &g), 99);
	/* packing: idle node 33 − 2 = 31; shared GPU at 50 % free: 100 − 5 */
	assert_int_equal(score("packing", &a, &share, 0, &g), 31);
	assert_int_equal(score("packing", &b, &share, 0, &g), 95);
	/* clustering: idle node 25 × 6000/8000 = 18 + 25; a node holding only
	 * share pods: 25 × 6500/8000 = 20 + 75. */
	assert_int_equal(score("clustering", &a, &share, 0, &g), 43);
	gs_apply(&b, &share, 0);        /* counts the tag; frees nothing here */
	b.gpu_free[0] = 500;
	assert_int_equal(score("clustering", &b, &share, 0, &g), 95);
	/* random: u = 0.99 takes the second of the two fitting GPUs */
	b = mk(500, 1000);
	score("random", &b, &share, 0.99, &g);
	assert_int_equal(g, 2u);
	score("random", &b, &share, 0.0, &g);
	assert_int_equal(g, 1u);
	assert_true(gpushare_find("random")->random_node);
}

static void test_fit_apply(void **st)
{
	(void)st;
	struct gs_node b = mk(500, 1000);
	struct gs_req two = { 1000, 1, 2, 1000, 0, 0 }, one = { 1000, 1, 1, 1000, 0, 0 };
	assert_false(gs_fits(&b, &two));
	assert_true(gs_fits(&b, &one));
	uint32_t g;
	score("bestfit", &b, &one, 0, &g);
	assert_int_equal(g, 2u);
	gs_apply(&b, &one, g);
	assert_int_equal(b.gpu_free[1], 0);
	assert_int_equal(b.cpu_free, 63000);
	struct gs_req big = { 64000, 1, 0, 0, 0, 0 };
	assert_false(gs_fits(&b, &big));
}

static void test_typical(void **st)
{
	(void)st;
	struct gs_req p[10];
	for (int i = 0; i < 10; i++)
		p[i] = (struct gs_req){ 1000, 5, 1, i < 6 ? 500 : (i < 9 ? 1000 : 200), 0, 0 };
	struct gs_typical t;
	assert_int_equal(gs_typical_build(p, 10, 80, &t), 0);
	assert_int_equal(t.n, 2);       /* 60 % + 30 % reach 80 % */
	assert_int_equal(t.pod[0].gpu_milli, 500);
	assert_true(fabs(t.p[0] - 6.0 / 9) < 1e-12);
	gs_typical_free(&t);
}

/* The node-state interface frag uses: gs_fits_sum agrees with gs_fits on
 * states a run can reach, gs_node_cmp is 0 exactly for equal states, and
 * gs_node_valid catches an over-take. */
static void test_node_state(void **st)
{
	(void)st;
	struct gs_node a, b;
	gs_node_init(&a, 4, 32000, 65536, 2u);
	assert_int_equal(a.ngpu, 4);
	assert_int_equal(a.gpu_free[3], GS_MILLI);
	assert_int_equal(a.cpu_cap, 32000);
	assert_true(gs_node_valid(&a));
	b = a;
	assert_int_equal(gs_node_cmp(&a, &b), 0);
	unsigned x = 12345;
	for (int step = 0; step < 2000; step++) {
		x = x * 1103515245u + 12345u;
		int32_t milli = (int32_t[]){ 100, 250, 500, 1000 }[(x >> 8) % 4];
		int32_t ngpu = milli < GS_MILLI ? 1 : 1 + (int32_t)((x >> 12) % 3);
		struct gs_req r = { 500 + (int64_t)((x >> 16) % 4) * 1000, 1024, (x >> 20) % 5 ? ngpu : 0, milli,
		                    (x >> 24) % 3 == 0 ? 1u : (x >> 24) % 3 == 1 ? 2u : 0u, 0 };
		struct gs_fitsum f = gs_fitsum_of(&a);
		bool fits = gs_fits(&a, &r);
		assert_int_equal(gs_fits_sum(&a, f, &r), fits);
		if (fits) {
			uint32_t g;
			gpushare_find("bestfit")->score(&a, &r, NULL, &g);
			gs_apply(&a, &r, g);
			assert_true(gs_node_valid(&a));
			assert_int_not_equal(gs_node_cmp(&a, &b), 0);
			b = a;
		}
		if (a.cpu_free < 4000)
			gs_node_init(&a, 4, 32000, 65536, 2u), b = a;
	}
	b.gpu_free[0] = GS_MILLI + 1;
	assert_false(gs_node_valid(&b));
	assert_true(gs_node_cmp(&a, &b) != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frag_values), cmocka_unit_test(test_fgd),
		cmocka_unit_test(test_others), cmocka_unit_test(test_fit_apply),
		cmocka_unit_test(test_typical), cmocka_unit_test(test_node_state),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
