/* The run-time predictor of forecasts (live/predict.c): the level it
 * draws from, the time limit as its fallback, draws within [elapsed,
 * limit], conditioning on a job still running, determinism. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "live/predict.h"

static void test_fallback_limit(void **state)
{
	(void)state;
	struct pred p;
	pred_init(&p, 3);
	uint64_t rng = 1;
	enum pred_level l;
	assert_true(pred_draw(&p, 0, 0, 600, 0, &rng, &l) == 600);
	assert_int_equal(l, PRED_LIMIT);
	/* Two samples are too few: still the limit. */
	assert_int_equal(pred_add(&p, 0, 0, 60, 600), 0);
	assert_int_equal(pred_add(&p, 0, 0, 60, 600), 0);
	assert_true(pred_draw(&p, 0, 0, 600, 0, &rng, &l) == 600);
	/* No limit and no history: the default. */
	assert_true(pred_draw(&p, 0, 0, INFINITY, 0, &rng, &l) == PRED_NO_LIMIT_S);
	pred_fini(&p);
}

static void test_levels(void **state)
{
	(void)state;
	struct pred p;
	pred_init(&p, 3);
	for (int k = 0; k < 3; k++)
		assert_int_equal(pred_add(&p, 1, 2, 30, 300), 0);   /* tenant 1, class 2: ratio 0.1 */
	for (int k = 0; k < 3; k++)
		assert_int_equal(pred_add(&p, 5, 0, 150, 300), 0);  /* tenant 5, class 0: ratio 0.5 */
	uint64_t rng = 7;
	enum pred_level l;
	assert_true(fabs(pred_draw(&p, 1, 2, 1000, 0, &rng, &l) - 100) < 1e-9);
	assert_int_equal(l, PRED_TENANT_CLASS);
	assert_true(fabs(pred_draw(&p, 1, 0, 1000, 0, &rng, &l) - 100) < 1e-9);
	assert_int_equal(l, PRED_TENANT);
	assert_true(fabs(pred_draw(&p, 9, 2, 1000, 0, &rng, &l) - 100) < 1e-9);
	assert_int_equal(l, PRED_CLASS);
	double d = pred_draw(&p, 9, 3, 1000, 0, &rng, &l);
	assert_int_equal(l, PRED_ALL);
	assert_true(fabs(d - 100) < 1e-9 || fabs(d - 500) < 1e-9);
	int32_t n;
	double mean, sd;
	assert_int_equal(pred_level_of(&p, 9, 3, true, &n, &mean, &sd), PRED_ALL);
	assert_int_equal(n, 6);
	assert_true(fabs(mean - 0.3) < 1e-9);
	assert_true(sd > 0.2 && sd < 0.23);
	pred_fini(&p);
}

static void test_conditioned(void **state)
{
	(void)state;
	struct pred p;
	pred_init(&p, 3);
	for (int k = 1; k <= 9; k++)
		assert_int_equal(pred_add(&p, 0, 0, 10.0 * k, 100), 0);   /* ratios 0.1 .. 0.9 */
	uint64_t rng = 3;
	for (int k = 0; k < 200; k++) {
		double d = pred_draw(&p, 0, 0, 100, 55, &rng, NULL);
		assert_true(d > 55 && d <= 100);
	}
	/* Past every sample: as long again, give or take, within the limit. */
	assert_true(pred_draw(&p, 0, 0, 100, 95, &rng, NULL) == 100);
	double lo = 1e9, hi = 0;
	for (int k = 0; k < 3; k++)
		assert_int_equal(pred_add(&p, 0, 0, 10, 0), 0);   /* jobs without a limit: 10 s */
	for (int k = 0; k < 200; k++) {
		double d = pred_draw(&p, 0, 0, INFINITY, 2000, &rng, NULL);
		assert_true(d >= 2001 && d < 6001);
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	assert_true(lo < 3000 && hi > 5000);
	/* An actual time over the limit counts as the limit. */
	pred_fini(&p);
	pred_init(&p, 1);
	assert_int_equal(pred_add(&p, 0, 0, 500, 100), 0);
	assert_true(pred_draw(&p, 0, 0, 100, 0, &rng, NULL) == 100);
	pred_fini(&p);
}

static void test_deterministic(void **state)
{
	(void)state;
	struct pred p;
	pred_init(&p, 2);
	for (int k = 1; k <= 40; k++)
		assert_int_equal(pred_add(&p, k % 3, 0, k, 50), 0);
	uint64_t a = 42, b = 42;
	for (int k = 0; k < 100; k++)
		assert_true(pred_draw(&p, 1, 0, 50, 0, &a, NULL) == pred_draw(&p, 1, 0, 50, 0, &b, NULL));
	/* The ring keeps the last PRED_RING samples. */
	for (int k = 0; k < 3 * PRED_RING; k++)
		assert_int_equal(pred_add(&p, 0, 1, 10, 100), 0);
	int32_t n;
	double mean, sd;
	pred_level_of(&p, 0, 1, true, &n, &mean, &sd);
	assert_int_equal(n, PRED_RING);
	assert_true(fabs(mean - 0.1) < 1e-9 && sd < 1e-9);
	pred_fini(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fallback_limit),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_conditioned),
		cmocka_unit_test(test_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
