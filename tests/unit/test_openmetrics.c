/* openmetrics and sacct: the wait histogram of a simulated run's export
 * has the live daemon's bounds (the dashboards read both); the time
 * arguments of `hetlab jobs` and `--origin`; the live histograms and the
 * per-tenant families render in the exposition format. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "analysis/openmetrics.h"
#include "analysis/joblist.h"
#include "live/metrics.h"

static void test_same_bounds(void **state)
{
	(void)state;
	assert_int_equal(openmetrics_nwait_buckets, metrics_nwait_buckets);
	for (int k = 0; k < metrics_nwait_buckets; k++)
		assert_true(openmetrics_wait_buckets_s[k] == metrics_wait_buckets_s[k]);
	for (int k = 1; k < metrics_npass_buckets; k++)
		assert_true(metrics_pass_buckets_s[k - 1] < metrics_pass_buckets_s[k]);
}

static void test_times(void **state)
{
	(void)state;
	int64_t t;
	assert_int_equal(joblist_parse_time("2026-01-05", 0, &t), 0);
	assert_int_equal(t, 1767571200);
	assert_int_equal(joblist_parse_time("2026-01-05T01:02:03", 0, &t), 0);
	assert_int_equal(t, 1767571200 + 3723);
	assert_int_equal(joblist_parse_time("2026-01-05T01:02Z", 0, &t), 0);
	assert_int_equal(t, 1767571200 + 3720);
	assert_int_equal(joblist_parse_time("+90", 1000, &t), 0);
	assert_int_equal(t, 1090);
	static const char *const bad[] = { "yesterday", "2026-13-01", "2026-01-05T25:00", "+", "+-3", "2026-01-05x", "1969-12-31" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(joblist_parse_time(bad[i], 0, &t), -1);
	struct joblist_opts o = { .format = "JobID,State%-12,AllocTRES%40" };
	char err[256];
	assert_int_equal(joblist_check(&o, err, sizeof err), 0);
	o.format = "JobID,Nope";
	assert_int_equal(joblist_check(&o, err, sizeof err), -1);
	assert_non_null(strstr(err, "unknown field 'Nope'"));
	o.format = "JobID%0";
	assert_int_equal(joblist_check(&o, err, sizeof err), -1);
	o.format = NULL;
	o.states = "CD,FAILED,oom";
	assert_int_equal(joblist_check(&o, err, sizeof err), 0);
	o.states = "DONE";
	assert_int_equal(joblist_check(&o, err, sizeof err), -1);
}

static void test_pass_histogram(void **state)
{
	(void)state;
	struct metrics_counters c;
	memset(&c, 0, sizeof c);
	metrics_observe_pass(&c, 5e-6);
	metrics_observe_pass(&c, 0.002);
	metrics_observe_pass(&c, 100);
	assert_int_equal(c.passes, 3);
	assert_true(c.last_pass_s == 100);
	assert_int_equal(c.pass_hist.count, 3);
	assert_int_equal(c.pass_hist.bucket[0], 1);                       /* <= 1e-5 */
	assert_int_equal(c.pass_hist.bucket[3], 1);                       /* <= 0.01 */
	assert_int_equal(c.pass_hist.bucket[metrics_npass_buckets], 1);   /* +Inf */
	assert_true(c.pass_hist.sum > 100.002005 - 1e-9 && c.pass_hist.sum < 100.002005 + 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_bounds),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_pass_histogram),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
