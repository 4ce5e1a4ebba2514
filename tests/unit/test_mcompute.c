/* mcompute: the rack metrics of a window (warn_h, over_cap_h, peak_cap per
 * rack and in all), from rack samples of several racks interleaved in time
 * order as the recorder writes them, worked out by hand: a sample holds
 * until its rack's next one (the last one for its rack's previous
 * interval); racks without a row in `rack`, or past the last one, count
 * nowhere; a rack without samples has 0 h and no peak. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "analysis/metric.h"
#include "analysis/recorder_schema.h"
#include "tests/testutil.h"

/* Rows in the recorder's own tables (recorder_schema_sql). */
static const char fixture_sql[] =
	"INSERT INTO meta VALUES('schema_version', '2');"
	"INSERT INTO run(scenario, policy, seed, jobs, nodes, it_energy_kwh, facility_energy_kwh)"
	" VALUES('unit', 'fifo', 1, 1, 1, 1.0, 1.2);"
	"INSERT INTO job(id, class, state, submit_us, start_us, end_us) VALUES(0, 'batch', 'done', 0, 0,"
	" 10800000000);"
	"INSERT INTO rack(id, name, cap_w) VALUES(0, 'r0', 100), (2, 'r2', 200), (3, 'r3', 100);"
	/* time order, the racks interleaved; rack 1 has no row in `rack`, rack 9 is past the last */
	"INSERT INTO rack_sample(t_us, rack, power_w, cap_w, warn, throttle) VALUES"
	" (0, 0, 50, 100, 0, 1), (0, 1, 5, 100, 1, 1), (0, 2, 250, 200, 1, 1), (0, 9, 500, 100, 1, 1),"
	" (3600000000, 0, 120, 100, 1, 1), (3600000000, 2, 300, 200, 1, 1),"
	" (7200000000, 0, 150, 100, 1, 1);";

/* A metric that must be there (a NaN would pass assert_float_equal). */
static void near(const struct metric_set *m, const char *name, double want)
{
	double v = metric_get(m, name);
	if (isnan(v) || fabs(v - want) > 1e-9)
		fail_msg("%s = %g, expected %g", name, v, want);
}

static void test_rack_window(void **state)
{
	(void)state;
	char *path = tu_tmpath(".db");
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, recorder_schema_sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, fixture_sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	/* The window: from 1800 s (warm-up) to the last end, 10800 s. */
	struct metric_window w = { .warmup_s = 1800, .until = METRIC_UNTIL_END, .given = true };
	struct metric_set m = { 0 };
	char err[512];
	if (metric_run_load(path, &w, &m, err, sizeof err) < 0)
		fail_msg("%s", err);
	assert_false(m.whole);
	/* r0: [0, 3600) 50 W, [3600, 7200) 120 W, and its last sample's
	 * [7200, 10800) (as long as the interval before it) 150 W, both warned
	 * and over its 100 W: 2 h of each in the window; the peak of the
	 * samples in it 1.5 (at 7200) */
	near(&m, "warn_h{rack=r0}", 2.0);
	near(&m, "over_cap_h{rack=r0}", 2.0);
	near(&m, "peak_cap{rack=r0}", 1.5);
	/* r2: [0, 3600) 250 W and [3600, 7200) 300 W, warned and over its
	 * 200 W: 1800 s + 1 h in the window; the peak in it 1.5 */
	near(&m, "warn_h{rack=r2}", 1.5);
	near(&m, "over_cap_h{rack=r2}", 1.5);
	near(&m, "peak_cap{rack=r2}", 1.5);
	/* r3: no samples */
	near(&m, "warn_h{rack=r3}", 0);
	near(&m, "over_cap_h{rack=r3}", 0);
	assert_true(isnan(metric_get(&m, "peak_cap{rack=r3}")));
	/* all racks: racks 1 and 9 count nowhere */
	near(&m, "warn_h", 3.5);
	near(&m, "over_cap_h", 3.5);
	near(&m, "peak_cap", 1.5);
	metric_set_fini(&m);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rack_window),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
