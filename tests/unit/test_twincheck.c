/* twincheck: Kendall's tau-b against the O(n^2) definition on random data
 * with ties, and the matched figures of two small schedules worked out by
 * hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/twincheck.h"

/* tau-b by its definition: every pair once. */
static double tau_b_naive(const double *x, const double *y, int64_t n)
{
	double con = 0, dis = 0, tx = 0, ty = 0;
	for (int64_t i = 0; i < n; i++)
		for (int64_t j = i + 1; j < n; j++) {
			double dx = x[i] - x[j], dy = y[i] - y[j];
			if (dx == 0 && dy == 0)
				continue;
			if (dx == 0)
				tx++;
			else if (dy == 0)
				ty++;
			else if ((dx > 0) == (dy > 0))
				con++;
			else
				dis++;
		}
	double d = sqrt((con + dis + tx) * (con + dis + ty));
	return d > 0 ? (con - dis) / d : NAN;
}

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_tau_random(void **st)
{
	(void)st;
	uint64_t s = 88172645463325252ull;
	double x[400], y[400];
	for (int round = 0; round < 200; round++) {
		int64_t n = 2 + (int64_t)(next(&s) % 399);
		int range = 1 + (int)(next(&s) % 60);     /* few values: many ties */
		for (int64_t i = 0; i < n; i++) {
			x[i] = (double)(next(&s) % (uint64_t)range);
			/* y follows x more or less, so that tau spans (-1, 1) */
			int mode = round % 3;
			y[i] = mode == 0 ? x[i] + (double)(next(&s) % 7)
			     : mode == 1 ? -x[i] + (double)(next(&s) % 5) : (double)(next(&s) % (uint64_t)range);
		}
		double want = tau_b_naive(x, y, n), got = twincheck_tau_b(x, y, n);
		if (isnan(want)) {
			assert_true(isnan(got));
		} else if (fabs(want - got) > 1e-12) {
			fail_msg("round %d n %lld: tau-b %.15f, the definition %.15f", round, (long long)n, got,
			         want);
		}
	}
}

static void test_tau_edges(void **st)
{
	(void)st;
	double up[] = { 1, 2, 3, 4, 5 }, down[] = { 5, 4, 3, 2, 1 }, flat[] = { 7, 7, 7, 7, 7 };
	assert_true(fabs(twincheck_tau_b(up, up, 5) - 1) < 1e-12);
	assert_true(fabs(twincheck_tau_b(up, down, 5) + 1) < 1e-12);
	assert_true(isnan(twincheck_tau_b(up, flat, 5)));
	assert_true(isnan(twincheck_tau_b(up, up, 1)));
	assert_true(isnan(twincheck_tau_b(up, up, 0)));
	/* Ties in both: x 1 1 2 2, y 1 2 1 2 -> concordant 1, discordant 1: 0. */
	double tx[] = { 1, 1, 2, 2 }, ty[] = { 1, 2, 1, 2 };
	assert_true(fabs(twincheck_tau_b(tx, ty, 4)) < 1e-12);
}

static struct twincheck_job J(const char *key, double submit, double start, int32_t pre)
{
	struct twincheck_job j = { .submit_s = submit, .start_s = start, .preemptions = pre };
	snprintf(j.key, sizeof j.key, "%s", key);
	return j;
}

/* A on its own clock (submits at 1000 + t), B counted from the first submit
 * (offset -1000): 4 jobs match, dstart 0, 2, -6, 10. */
static void test_compare(void **st)
{
	(void)st;
	struct twincheck_job a[] = {
		J("1", 1000, 1000, 0), J("2", 1001, 1011, 1), J("3", 1002, 1032, 0), J("4", 1003, 1043, 2),
		J("5", 1004, NAN, 0),                        /* never started here */
		J("6", 1005, 1010, 0),                       /* only here */
		J("7", 1006, 1010, 0), J("7", 1007, 1010, 0),    /* twice: left out */
		J("", 1008, 1010, 0),                        /* no key */
	};
	struct twincheck_job b[] = {
		J("4", 3, 53, 1), J("3", 2, 26, 0), J("2", 1, 13, 0), J("1", 0, 0, 0),
		J("5", 4, 9, 0), J("7", 6, 10, 0), J("8", 7, 12, 0),
	};
	struct twincheck r;
	assert_int_equal(twincheck_compare(a, 9, b, 7, 5, &r), 0);
	assert_int_equal(r.jobs_a, 9);
	assert_int_equal(r.jobs_b, 7);
	assert_int_equal(r.matched, 4);
	assert_int_equal(r.unstarted, 1);
	assert_int_equal(r.only_a, 1);          /* 6 */
	assert_int_equal(r.only_b, 2);          /* 7 (twice in A), 8 */
	assert_int_equal(r.dup_a, 3);           /* 7, 7 and the empty key */
	assert_int_equal(r.dup_b, 0);
	assert_true(r.offset_s == -1000);
	/* waits A 0 10 30 40 (mean 20), B 0 12 24 50 (mean 21.5): +7.5 % */
	assert_true(fabs(r.wait_mean_a_s - 20) < 1e-9);
	assert_true(fabs(r.wait_mean_b_s - 21.5) < 1e-9);
	assert_true(fabs(r.wait_err_pct - 7.5) < 1e-9);
	/* |dstart| 0 2 6 10: median 4, p90 8.8 (interpolated), mean 4.5; within 5 s: 2 of 4 */
	assert_true(fabs(r.dstart_p50_s - 4) < 1e-9);
	assert_true(fabs(r.dstart_p90_s - 8.8) < 1e-9);
	assert_true(fabs(r.dstart_mean_s - 4.5) < 1e-9);
	assert_true(fabs(r.within_bf - 0.5) < 1e-9);
	assert_true(fabs(r.tau_b - 1) < 1e-12);
	assert_int_equal(r.preempt_a, 3);
	assert_int_equal(r.preempt_b, 1);
	/* pairs in A's order, signed */
	assert_int_equal(r.pair[0].a, 0);
	assert_int_equal(r.pair[3].b, 0);
	assert_true(r.pair[2].dstart_s == -6);
	assert_true(r.pair[3].dstart_s == 10);
	twincheck_fini(&r);
}

static void test_compare_empty(void **st)
{
	(void)st;
	struct twincheck_job a[] = { J("1", 0, 1, 0) }, b[] = { J("2", 0, 1, 0) };
	struct twincheck r;
	assert_int_equal(twincheck_compare(a, 1, b, 1, 30, &r), 0);
	assert_int_equal(r.matched, 0);
	assert_int_equal(r.only_a, 1);
	assert_int_equal(r.only_b, 1);
	assert_true(isnan(r.wait_err_pct) && isnan(r.dstart_p50_s) && isnan(r.tau_b));
	twincheck_fini(&r);
	assert_int_equal(twincheck_compare(NULL, 0, NULL, 0, 30, &r), 0);
	assert_int_equal(r.matched, 0);
	twincheck_fini(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tau_random),
		cmocka_unit_test(test_tau_edges),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_compare_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
