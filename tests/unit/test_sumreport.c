/* sumreport: the figures and the HTML pages of what a sweep or a plan
 * leaves (a summary database, a plan.json), on hand-made fixtures: the
 * gnuplot scripts and data are checked, not the pixels. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis/plot.h"
#include "analysis/sumreport.h"
#include "analysis/units.h"
#include "tests/testutil.h"
#include "tests/unit/report_fixture.h"

/* A plan of one variable and one target (p95_wait <= 3600 s) whose answer
 * (candidate 2) waits 0 s: a log axis cannot show it as it is. */
static const char plan_zero[] =
	"{\"search\": \"greedy\", \"level\": 0.95, \"vars\": [\"$.racks[0].count\"], \"owned\": [2],"
	" \"unit_cost\": [1600000], \"targets\": [{\"metric\": \"p95_wait\", \"max\": 3600}],"
	" \"confident_required\": false, \"candidates\": ["
	"{\"x\": [1], \"cost_per_year\": 900000, \"capex_per_year\": 0, \"energy_per_year\": 100000,"
	" \"maintenance_per_year\": 600000, \"space_per_year\": 200000,"
	" \"targets\": [{\"metric\": \"p95_wait\", \"mean\": 400000, \"bound\": 500000, \"ok\": false}],"
	" \"feasible\": false, \"confident\": false},"
	"{\"x\": [2], \"cost_per_year\": 1000000, \"capex_per_year\": 0, \"energy_per_year\": 110000,"
	" \"maintenance_per_year\": 690000, \"space_per_year\": 200000,"
	" \"targets\": [{\"metric\": \"p95_wait\", \"mean\": 70000, \"bound\": 90000, \"ok\": false}],"
	" \"feasible\": false, \"confident\": false},"
	"{\"x\": [3], \"cost_per_year\": 1400000, \"capex_per_year\": 320000, \"energy_per_year\": 120000,"
	" \"maintenance_per_year\": 760000, \"space_per_year\": 200000,"
	" \"targets\": [{\"metric\": \"p95_wait\", \"mean\": 0, \"bound\": 0, \"ok\": true}],"
	" \"feasible\": true, \"confident\": true}"
	"], \"answer\": 2}\n";

static char *write_file(const char *dir, const char *name, const char *text)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);
	sprintf(p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

static char *html_of(int (*fn)(const char *, FILE *, char *, size_t, char *, size_t), const char *path)
{
	char *buf = NULL, warn[512] = "", err[512];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	if (fn(path, f, warn, sizeof warn, err, sizeof err) != 0)
		fail_msg("%s", err);
	fclose(f);
	if (gnuplot_present())
		assert_string_equal(warn, "");
	else
		assert_non_null(strstr(warn, "gnuplot"));
	return buf;
}

/* The answer and the target line are drawn on every scale: a value of 0
 * on the log axis stands on a floor with a '0' tick; the axis is in
 * readable time units. */
static void test_plan_plot_zero(void **state)
{
	(void)state;
	char *dir = tu_tmpdir_new("sumplan");
	char *pj = write_file(dir, "plan.json", plan_zero);
	char figs[4200], err[1024];
	snprintf(figs, sizeof figs, "%s/figs", dir);
	struct sumreport_figs f;
	int rc = sumreport_plan_plot(pj, figs, &f, err, sizeof err);
	if (rc != 0 && rc != PLOT_NOPROG)
		fail_msg("%s", err);
	assert_int_equal(f.n, 2);
	assert_string_equal(f.name[0], "plan_t0");
	/* Each candidate's cost, term by term (millions): candidate 2 adds
	 * 0.32 of capex to 0.12 of energy, 0.76 of maintenance, 0.2 of space. */
	assert_string_equal(f.name[1], "plan_cost");
	assert_true(file_has(figs, "plan_cost.dat", "\n\"2: 3\" 0.32 0.12 0.76 0.2\n"));
	/* Positive values from 3600 s (the target) to 400000 s: a log axis;
	 * the floor a decade below the decade of the smallest, 3600 s: 100 s. */
	assert_true(file_has(figs, "plan_t0.gp", "set logscale y\n"));
	/* The ticks: '0' on the floor, then the named times above it (none
	 * below it: '1 min' would stand under '0'). */
	assert_true(file_has(figs, "plan_t0.gp", "set yrange [50:800000]\nset ytics ('0' 100, "
	                                         "'10 min' 600, '1 h' 3600, '6 h' 21600, '1 d' 86400, "
	                                         "'1 w' 604800)\n"));
	assert_true(file_has(figs, "plan_t0.gp", "set arrow from graph 0, first 3600 to graph 1, "
	                                         "first 3600 nohead dt 2"));
	assert_true(file_has(figs, "plan_t0.gp", "set label 'target <= 1.00 h'"));
	assert_true(file_has(figs, "plan_t0.gp", "set label 'answer: 1,400,000 a year, 0 s' at first "
	                                         "1.4, first 100 "));
	/* The answer's point, on the floor. */
	assert_true(file_has(figs, "plan_t0.dat", "# series 1: the answer\n1.4 100\n"));
	assert_true(file_has(figs, "plan_t0.gp", "title 'the answer'"));
	/* Within two decades: a linear axis from 0, the target at its value. */
	char *lin = strdup(plan_zero);
	char *p = strstr(lin, "\"mean\": 400000");
	memcpy(p, "\"mean\": 4000.0", 14);
	p = strstr(lin, "\"mean\": 70000");
	memcpy(p, "\"mean\": 7000 ", 13);
	unlink(pj);
	free(pj);
	pj = write_file(dir, "plan.json", lin);
	free(lin);
	rc = sumreport_plan_plot(pj, figs, &f, err, sizeof err);
	if (rc != 0 && rc != PLOT_NOPROG)
		fail_msg("%s", err);
	assert_false(file_has(figs, "plan_t0.gp", "logscale"));
	assert_true(file_has(figs, "plan_t0.gp", "set yrange [0:*]"));
	assert_true(file_has(figs, "plan_t0.gp", "p95_wait (min), mean over seeds"));
	assert_true(file_has(figs, "plan_t0.gp", "first 60 to graph 1, first 60 nohead"));   /* 1 h */
	assert_true(file_has(figs, "plan_t0.dat", "# series 1: the answer\n1.4 0\n"));
	free(pj);
	tu_tmpdir_free(dir);
}

/* The plan's HTML page: the answer and its cost first, the table with the
 * answer's row marked, the figure inlined. */
static void test_plan_html(void **state)
{
	(void)state;
	char *dir = tu_tmpdir_new("sumplanh");
	char *pj = write_file(dir, "plan.json", plan_zero);
	char *h = html_of(sumreport_plan_html, pj);
	assert_non_null(strstr(h, "<!DOCTYPE html>"));
	assert_non_null(strstr(h, "<p class=\"summary\">Answer: <b>$.racks[0].count = 3</b>, 1,400,000 "
	                          "a year (capex 320,000 a year for what it adds to the site"));
	assert_non_null(strstr(h, "p95_wait 0 s (bound 0 s) against &le; 1.00 h; confident"));
	assert_non_null(strstr(h, "<tr class=\"answer\"><td class=\"num\">2</td><td class=\"num\">3"
	                          "</td><td class=\"num\">1,400,000</td>"));
	assert_non_null(strstr(h, "<td class=\"num\">4.63 d [5.79 d] FAIL</td>"));
	if (gnuplot_present()) {
		assert_non_null(strstr(h, "<figure id=\"fig-plan_t0\">\n<svg"));
		assert_non_null(strstr(h, "<figure id=\"fig-plan_cost\">\n<svg"));
	}
	assert_non_null(strstr(h, "</html>\n"));
	free(h);
	free(pj);
	tu_tmpdir_free(dir);
}

/* A sweep of a rack count (0, 1, 2) against a rate (1.0, 1.4), two
 * metrics: gpu_util (a share: its interval is cut at 0 % and 100 %) and
 * preemptions (a count: whole ticks). */
static char *make_summary(const char *dir)
{
	char *path = malloc(strlen(dir) + 16);
	sprintf(path, "%s/summary.db", dir);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	char *e = NULL;
	int rc = sqlite3_exec(db,
		"CREATE TABLE sweep(params TEXT, npoint INTEGER);"
		"INSERT INTO sweep VALUES ('[\"$.racks[4].count\", \"$.rate\"]', 6);"
		"CREATE TABLE point(id INTEGER, p0 TEXT, p1 TEXT);"
		"INSERT INTO point VALUES (0, '0', '1.0'), (1, '0', '1.4'), (2, '1', '1.0'),"
		" (3, '1', '1.4'), (4, '2', '1.0'), (5, '2', '1.4');"
		"CREATE TABLE result(point INTEGER, seed INTEGER, status TEXT);"
		"CREATE TABLE metric(point INTEGER, seed INTEGER, name TEXT, value REAL);", NULL, NULL, &e);
	if (rc != SQLITE_OK)
		fail_msg("%s", e);
	/* Three seeds a point: gpu_util 0.02 +- 0.03 at point 0 (its interval
	 * would reach below 0), 0.97 +- 0.04 at point 5 (above 1);
	 * preemptions 0, 1 or 2. */
	for (int p = 0; p < 6; p++)
		for (int q = 0; q < 3; q++) {
			double u = p == 0 ? (q == 0 ? 0.0 : q == 1 ? 0.01 : 0.05)
			           : p == 5 ? (q == 0 ? 0.93 : q == 1 ? 0.99 : 1.0) : 0.3 + 0.1 * p + 0.01 * q;
			char sql[512];
			snprintf(sql, sizeof sql, "INSERT INTO result VALUES (%d, %d, 'ok');"
			         "INSERT INTO metric VALUES (%d, %d, 'gpu_util', %.17g), (%d, %d, 'preemptions', %d);",
			         p, q, p, q, u, p, q, (p + q) % 3);
			assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
		}
	sqlite3_close(db);
	return path;
}

static void test_sweep_plot_bounds(void **state)
{
	(void)state;
	char *dir = tu_tmpdir_new("sumsweep");
	char *db = make_summary(dir);
	char figs[4200], err[1024];
	snprintf(figs, sizeof figs, "%s/figs", dir);
	const char *want[] = { "gpu_util", "preemptions" };
	struct sumreport_figs f;
	int rc = sumreport_sweep_plot(db, want, 2, figs, &f, err, sizeof err);
	if (rc != 0 && rc != PLOT_NOPROG)
		fail_msg("%s", err);
	assert_int_equal(f.n, 4);
	/* The rack count: whole ticks from 0 to 2, never -1 or 0.5 of a rack. */
	assert_true(file_has(figs, "sweep_p0_m0.gp", "set xtics 0, 1, 2\nset format x '%.0f'\n"
	                                             "set xrange [-0.3:2.3]"));
	/* The rate is not a count: no whole ticks. */
	assert_false(file_has(figs, "sweep_p1_m0.gp", "set xtics"));
	/* The bars' ends are data columns 3 and 4, cut to [0, 100] %: point 0
	 * (2 % +- 6.6 %) ends at 0, point 5 (97.3 % +- 9.5 %) at 100. */
	assert_true(file_has(figs, "sweep_p0_m0.gp", "using 1:2:3:4 with yerrorlines"));
	assert_true(file_has(figs, "sweep_p0_m0.dat", "# series 0: $.rate=1.0\n0 2 0 "));
	assert_true(file_has(figs, "sweep_p0_m0.dat", "\n2 97.33333333 "));
	assert_true(file_has(figs, "sweep_p0_m0.dat", " 100\n"));
	assert_true(file_has(figs, "sweep_p0_m0.gp", "gpu_util (%; mean over seeds"));
	/* A count below 10: whole ticks on its axis, its bars from 0. */
	assert_true(file_has(figs, "sweep_p0_m1.gp", "set ytics 1\nset format y '%.0f'\n"));
	assert_false(file_has(figs, "sweep_p0_m1.dat", " -"));
	free(db);
	tu_tmpdir_free(dir);
}

static int sweep_html(const char *path, FILE *out, char *warn, size_t warnlen, char *err, size_t errlen)
{
	const char *want[] = { "gpu_util", "preemptions" };
	return sumreport_sweep_html(path, want, 2, out, warn, warnlen, err, errlen);
}

static void test_sweep_html(void **state)
{
	(void)state;
	char *dir = tu_tmpdir_new("sumsweeph");
	char *db = make_summary(dir);
	char *h = html_of(sweep_html, db);
	assert_non_null(strstr(h, "<h1>hetlab report: sweep "));
	assert_non_null(strstr(h, "gpu_util has its highest mean at point 5 ($.racks[4].count = 2, "
	                          "$.rate = 1.4): 97.33 %"));
	assert_non_null(strstr(h, "preemptions has its lowest mean at point"));
	/* Each mean with its interval cut to [0, 100] %: 2 % +- 6.57 % from 0. */
	assert_non_null(strstr(h, "<td class=\"num\">2.00 [0.00, 8.57] %</td>"));
	/* The text report speaks the same units. */
	char *t = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&t, &len);
	const char *want[] = { "gpu_util", "preemptions" };
	assert_int_equal(sumreport_sweep(db, want, 2, f, err, sizeof err), 0);
	fclose(f);
	assert_non_null(strstr(t, "  2.00 [0.00, 8.57] %"));
	assert_null(strstr(t, "±"));
	assert_null(strstr(t, "[-"));
	free(t);
	if (gnuplot_present()) {
		size_t n = 0;
		for (const char *p = h; (p = strstr(p, "<figure")); p++)
			n++;
		assert_int_equal(n, 4);
	}
	free(h);
	free(db);
	tu_tmpdir_free(dir);
}

/* Readable numbers. */
static void test_units(void **state)
{
	(void)state;
	char b[64];
	assert_string_equal(units_duration(b, sizeof b, 110800), "1.28 d");
	assert_string_equal(units_duration(b, sizeof b, 3600), "1.00 h");
	assert_string_equal(units_duration(b, sizeof b, 645), "10.8 min");
	assert_string_equal(units_duration(b, sizeof b, 0), "0 s");
	assert_string_equal(units_money(b, sizeof b, 2742322.4), "2,742,322");
	assert_string_equal(units_money(b, sizeof b, -1000), "-1,000");
	assert_string_equal(units_money(b, sizeof b, 999), "999");
	assert_string_equal(units_value(b, sizeof b, "fraction", 0.4390), "43.90 %");
	assert_string_equal(units_value(b, sizeof b, "kWh", 22272.2), "22.3 MWh");
	assert_string_equal(units_value(b, sizeof b, "W", 40000), "40.00 kW");
	assert_string_equal(units_value(b, sizeof b, "jobs", 3), "3 jobs");
	/* A mean and its interval (cut by the caller) in the mean's unit. */
	assert_string_equal(units_interval(b, sizeof b, "kWh", 22272.2, 19850.1, 24694.3),
	                    "22.3 [19.9, 24.7] MWh");
	assert_string_equal(units_interval(b, sizeof b, "s", 6905.7, 0, 19837.2), "1.92 [0, 5.51] h");
	assert_string_equal(units_interval(b, sizeof b, "s", 124.2, 0, 469), "2.07 [0, 7.82] min");
	assert_string_equal(units_interval(b, sizeof b, "s", 0, 0, 0), "0 [0, 0] s");
	assert_string_equal(units_interval(b, sizeof b, "s", 0, 0, 600), "0 [0, 10.0] min");
	assert_string_equal(units_interval(b, sizeof b, "fraction", 0.973, 0.878, 1), "97.30 [87.80, 100.00] %");
	assert_string_equal(units_interval(b, sizeof b, "s", 30, NAN, NAN), "30.0 s");
	/* Differences (hetlab compare): shares in pp, an interval in its mean's unit. */
	assert_string_equal(units_delta(b, sizeof b, "fraction", 0.0311), "3.11 pp");
	assert_string_equal(units_delta(b, sizeof b, "s", -3367.7), "-56.1 min");
	assert_string_equal(units_range(b, sizeof b, "s", -3367.7, -4907.6, -2080.2), "[-81.8, -34.7] min");
	assert_string_equal(units_range(b, sizeof b, "fraction", 0.0311, 0.024, 0.0385), "[2.40, 3.85] pp");
	assert_string_equal(units_range(b, sizeof b, "s", 0, -7200, 3600), "[-2.00, 1.00] h");
	assert_string_equal(units_range(b, sizeof b, "ratio", -18.6, -28.574, -10.39), "[-28.6, -10.4]");
	assert_string_equal(units_range(b, sizeof b, "s", 1, NAN, NAN), "-");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_plot_zero),
		cmocka_unit_test(test_plan_html),
		cmocka_unit_test(test_sweep_plot_bounds),
		cmocka_unit_test(test_sweep_html),
		cmocka_unit_test(test_units),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
