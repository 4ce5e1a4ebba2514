/* sweepq: the order a sweep starts its runs in. Each point's first run
 * first (grid order), then points still unmeasured, then the measured ones
 * by mean time, longest first; seeds in order within a point; every run
 * exactly once; a fork failure puts the run back. Times are given, never
 * measured. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/sweepq.h"

static void test_longest_first(void **st)
{
	(void)st;
	/* 3 points x 3 seeds, all to run. */
	size_t k[9] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
	struct sweepq q;
	assert_int_equal(sweepq_init(&q, 3, 3, k, 9), 0);
	/* The probes, in grid order. */
	assert_int_equal(sweepq_next(&q), 0);
	assert_int_equal(sweepq_next(&q), 3);
	assert_int_equal(sweepq_next(&q), 6);
	/* Point 1 measured short; 0 and 2 still running (unknown) go first. */
	sweepq_done(&q, 3, 1.0);
	assert_int_equal(sweepq_next(&q), 1);
	sweepq_done(&q, 0, 2.0);
	sweepq_done(&q, 6, 9.0);
	/* Means: point 0 2.0 (one left), 1 1.0 (two left), 2 9.0 (two left). */
	assert_int_equal(sweepq_next(&q), 7);
	assert_int_equal(sweepq_next(&q), 8);
	sweepq_done(&q, 1, 4.0);   /* point 0's mean is now 3.0 */
	assert_int_equal(sweepq_next(&q), 2);
	assert_int_equal(sweepq_next(&q), 4);
	/* A fork failed: the same run again. */
	sweepq_undo(&q, 4);
	assert_int_equal(q.left, 2);
	assert_int_equal(sweepq_next(&q), 4);
	assert_int_equal(sweepq_next(&q), 5);
	assert_int_equal(q.left, 0);
	assert_int_equal(sweepq_next(&q), SIZE_MAX);
	sweepq_fini(&q);
}

static void test_partial(void **st)
{
	(void)st;
	/* A resumed sweep: point 0 done, point 1 has its last seed left, point
	 * 2 its first two; the runs of point 3 (the last id) all left. */
	size_t k[6] = { 5, 6, 7, 9, 10, 11 };
	struct sweepq q;
	assert_int_equal(sweepq_init(&q, 4, 3, k, 6), 0);
	assert_int_equal(sweepq_next(&q), 5);
	assert_int_equal(sweepq_next(&q), 6);
	assert_int_equal(sweepq_next(&q), 9);
	sweepq_done(&q, 9, 0.5);
	sweepq_done(&q, 6, 2.0);
	sweepq_done(&q, 5, 7.0);
	assert_int_equal(sweepq_next(&q), 7);
	assert_int_equal(sweepq_next(&q), 10);
	assert_int_equal(sweepq_next(&q), 11);
	assert_int_equal(sweepq_next(&q), SIZE_MAX);
	sweepq_fini(&q);
	/* Nothing to run. */
	assert_int_equal(sweepq_init(&q, 2, 2, NULL, 0), 0);
	assert_int_equal(sweepq_next(&q), SIZE_MAX);
	sweepq_fini(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_longest_first),
		cmocka_unit_test(test_partial),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
