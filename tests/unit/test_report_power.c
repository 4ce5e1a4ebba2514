/* report_doc and runplot: the report's power section (energy, PUE, cost,
 * carbon, racks against their caps, energy per tenant and class) and its
 * operations section (faults, drains, availability, migrations), in text,
 * JSON, Markdown, HTML and the figures, from run databases built by hand
 * whose figures are worked out in the comments (report_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>

#include "analysis/plot.h"
#include "analysis/report.h"
#include "analysis/runplot.h"
#include "tests/testutil.h"
#include "tests/unit/report_fixture.h"

/* make_db's run with the power model's columns (recorder.c's schema: the
 * new columns at the end of run, job, sample; tables rack, rack_sample).
 *
 * run: IT 200 kWh, facility 260 kWh (PUE 1.300), idle 50 kWh (25.00 %),
 * cost 120, carbon 100 kg.
 * racks (rack.cap_w the scenario's cap; warn_s / over_s in s):
 *   r1  cap 40 kW  peak 38 kW (95.00 %)   warn 1800 s = 30.0 min  over 90 s = 1.5 min
 *       throttled 2.5 GPU-h  120 kWh  (facility 160, cost 70)
 *   r2  cap 20 kW  peak 25 kW (125.00 %)  warn 0  over 600 s = 10.0 min
 *       0 GPU-h  80 kWh  (facility 100, cost 50)
 * rack samples at 0, 100, 200 s: r1 38, 30, 24 kW against caps 40, 40,
 * 30 kW (a feed lost at 200 s), hottest node 70, 85.5, 80 °C; r2 10, 25,
 * 12 kW under 20 kW, 60, 65, 62 °C: the hottest 85.5 and 65.0.
 * jobs (energy_j / 3.6e6 = kWh):
 *   1 training tenant 1  180e6 J = 50 kWh, cost 30
 *   2 batch    tenant 2  144e6 J = 40 kWh, cost 25
 *   3 batch    tenant 2  killed pending: NULL (counts 0)
 *   4 training tenant 1  216e6 J = 60 kWh, cost 35
 * per tenant: 1 110 kWh 65, 2 40 kWh 25; per class: training 110 / 65,
 * batch 40 / 25; jobs 150 kWh + idle 50 = IT 200; idle's cost 120 − 90 = 30. */
static char *make_power_db(void)
{
	char *path = make_db();
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec(db, "ALTER TABLE run ADD COLUMN placement TEXT;"
	         "ALTER TABLE run ADD COLUMN it_energy_kwh REAL;"
	         "ALTER TABLE run ADD COLUMN facility_energy_kwh REAL;"
	         "ALTER TABLE run ADD COLUMN idle_energy_kwh REAL;"
	         "ALTER TABLE run ADD COLUMN energy_cost REAL;"
	         "ALTER TABLE run ADD COLUMN carbon_kg REAL;"
	         "UPDATE run SET it_energy_kwh = 200, facility_energy_kwh = 260, idle_energy_kwh = 50,"
	         " energy_cost = 120, carbon_kg = 100;"
	         "ALTER TABLE job ADD COLUMN energy_j REAL;"
	         "ALTER TABLE job ADD COLUMN energy_cost REAL;"
	         "UPDATE job SET energy_j = 180e6, energy_cost = 30 WHERE id = 1;"
	         "UPDATE job SET energy_j = 144e6, energy_cost = 25 WHERE id = 2;"
	         "UPDATE job SET energy_j = 216e6, energy_cost = 35 WHERE id = 4;"
	         "ALTER TABLE sample ADD COLUMN facility_w REAL;"
	         "ALTER TABLE sample ADD COLUMN outside_c REAL;"
	         "UPDATE sample SET facility_w = power_w * 1.3, outside_c = 15;"
	         "CREATE TABLE rack(id INTEGER PRIMARY KEY, name TEXT NOT NULL, cap_w REAL,"
	         " cooling TEXT, nodes INTEGER, peak_w REAL, warn_s REAL, over_s REAL,"
	         " throttled_gpu_h REAL, energy_kwh REAL, facility_kwh REAL, cost REAL);"
	         "CREATE TABLE rack_sample(t_us INTEGER NOT NULL, rack INTEGER NOT NULL, power_w REAL,"
	         " cap_w REAL, warn INTEGER, throttle REAL, temp_p50 REAL, temp_p95 REAL,"
	         " temp_max REAL);"
	         "INSERT INTO rack VALUES (0, 'r1', 40000, 'air', 1, 38000, 1800, 90, 2.5, 120, 160, 70),"
	         " (1, 'r2', 20000, 'liquid', 1, 25000, 0, 600, 0, 80, 100, 50);"
	         "INSERT INTO rack_sample VALUES"
	         " (0, 0, 38000, 40000, 1, 1, 60, 69, 70), (0, 1, 10000, 20000, 0, 1, 50, 59, 60),"
	         " (100000000, 0, 30000, 40000, 1, 1, 70, 85, 85.5),"
	         " (100000000, 1, 25000, 20000, 1, 0.8, 55, 64, 65),"
	         " (200000000, 0, 24000, 30000, 0, 0.75, 70, 79, 80),"
	         " (200000000, 1, 12000, 20000, 0, 1, 52, 61, 62);");
	sqlite3_close(db);
	return path;
}

static void test_power_markdown(void **state)
{
	(void)state;
	char *db = make_power_db();
	char *md = report_string(db, REPORT_MARKDOWN, NULL, 0);
	assert_non_null(strstr(md, "## Power and energy\n"));
	assert_non_null(strstr(md, "| IT energy (kWh) | facility energy (kWh) | PUE | idle energy share"
	                           " | energy cost | carbon (kg) |\n"));
	assert_non_null(strstr(md, "| 200.00 | 260.00 | 1.300 | 25.00 % | 120.00 | 100.0 |\n"));
	assert_non_null(strstr(md, "| r1 | 40.00 | 38.00 | 95.00 % | 30.0 | 1.5 | 2.50 | 120.00 | 85.5 |\n"));
	assert_non_null(strstr(md, "| r2 | 20.00 | 25.00 | 125.00 % | 0.0 | 10.0 | 0.00 | 80.00 | 65.0 |\n"));
	const char *t = strstr(md, "### Energy per tenant\n");
	const char *c = strstr(md, "### Energy per class\n");
	assert_true(t && c && t < c);
	assert_non_null(strstr(t, "| 1 | 2 | 110.00 | 65.00 |\n| 2 | 2 | 40.00 | 25.00 |\n"
	                          "| no job (idle) |  | 50.00 | 30.00 |\n"));
	assert_non_null(strstr(c, "| training | 2 | 110.00 | 65.00 |\n| batch | 2 | 40.00 | 25.00 |\n"));
	/* The other sections are as they were. */
	assert_non_null(strstr(md, "| 250.0 s (00:04:10) | 56.40 % | 60.00 % |"));
	free(md);

	char *txt = report_string(db, REPORT_TEXT, NULL, 0);
	assert_non_null(strstr(txt, "  power         IT energy 200.00 kWh, facility 260.00 kWh (PUE 1.300),"
	                            " idle 25.00 % of IT\n                energy cost 120.00, carbon 100.0 kg\n"));
	assert_non_null(strstr(txt, "  r2                 20.00     25.00  125.00 %       0.0      10.0"
	                            "       0.00       80.00       65.0\n"));
	assert_non_null(strstr(txt, "  no job (idle)                  50.00        30.00\n"));
	assert_non_null(strstr(txt, "  training              2       110.00        65.00\n"));
	free(txt);
	unlink(db);
	free(db);
}

static void test_power_json(void **state)
{
	(void)state;
	char *db = make_power_db();
	json_t *root = report_json(db);
	assert_jnear(root, "power.it_energy_kwh", 200);
	assert_jnear(root, "power.facility_energy_kwh", 260);
	assert_jnear(root, "power.pue", 1.3);
	assert_jnear(root, "power.idle_energy_kwh", 50);
	assert_jnear(root, "power.idle_energy_share", 0.25);
	assert_jnear(root, "power.energy_cost", 120);
	assert_jnear(root, "power.carbon_kg", 100);
	assert_jnear(root, "power.racks.r1.cap_kw", 40);
	assert_jnear(root, "power.racks.r1.peak_kw", 38);
	assert_jnear(root, "power.racks.r1.peak_cap_share", 0.95);
	assert_jnear(root, "power.racks.r1.warn_minutes", 30);
	assert_jnear(root, "power.racks.r1.over_minutes", 1.5);
	assert_jnear(root, "power.racks.r1.throttled_gpu_hours", 2.5);
	assert_jnear(root, "power.racks.r1.energy_kwh", 120);
	assert_jnear(root, "power.racks.r1.facility_kwh", 160);
	assert_jnear(root, "power.racks.r1.cost", 70);
	assert_jnear(root, "power.racks.r1.temp_max_c", 85.5);
	assert_jnear(root, "power.racks.r2.peak_cap_share", 1.25);
	assert_jnear(root, "power.racks.r2.over_minutes", 10);
	assert_jnear(root, "power.by_tenant.1.jobs", 2);
	assert_jnear(root, "power.by_tenant.1.energy_kwh", 110);
	assert_jnear(root, "power.by_tenant.1.energy_cost", 65);
	assert_jnear(root, "power.by_tenant.2.energy_kwh", 40);
	assert_jnear(root, "power.by_tenant.2.energy_cost", 25);
	assert_jnear(root, "power.by_class.training.energy_cost", 65);
	assert_jnear(root, "power.by_class.batch.energy_kwh", 40);
	assert_jnear(root, "power.idle.energy_kwh", 50);
	assert_jnear(root, "power.idle.energy_cost", 30);
	json_decref(root);
	/* A site that tracks no carbon: null, and "not tracked" in the text. */
	sqlite3 *h;
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	exec(h, "UPDATE run SET carbon_kg = NULL");
	sqlite3_close(h);
	root = report_json(db);
	assert_true(json_is_null(jget(root, "power.carbon_kg")));
	assert_jnear(root, "power.pue", 1.3);
	json_decref(root);
	char *txt = report_string(db, REPORT_TEXT, NULL, 0);
	assert_non_null(strstr(txt, "energy cost 120.00, carbon not tracked\n"));
	free(txt);
	unlink(db);
	free(db);
}

/* A file from before the power columns, and one from a run without the
 * model (the columns there, NULL): no power section, the rest as before. */
static void test_power_old_file(void **state)
{
	(void)state;
	for (int k = 0; k < 2; k++) {
		char *db = make_db();
		if (k == 1) {
			sqlite3 *h;
			assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
			exec(h, "ALTER TABLE run ADD COLUMN it_energy_kwh REAL;"
			        "ALTER TABLE job ADD COLUMN energy_j REAL;"
			        "ALTER TABLE job ADD COLUMN energy_cost REAL;"
			        "CREATE TABLE rack(id INTEGER PRIMARY KEY, name TEXT, cap_w REAL, cooling TEXT,"
			        " nodes INTEGER, peak_w REAL);"
			        "CREATE TABLE rack_sample(t_us INTEGER, rack INTEGER, power_w REAL, cap_w REAL,"
			        " temp_max REAL);"
			        "INSERT INTO rack VALUES (0, 'r1', 40000, 'air', 2, NULL);"
			        "INSERT INTO rack_sample VALUES (0, 0, 1000, NULL, NULL),"
			        " (100000000, 0, 2000, NULL, NULL), (200000000, 0, 3000, NULL, NULL);");
			sqlite3_close(h);
		}
		char *md = report_string(db, REPORT_MARKDOWN, NULL, 0);
		assert_null(strstr(md, "Power and energy"));
		assert_null(strstr(md, "Energy per"));
		assert_non_null(strstr(md, "| 250.0 s (00:04:10) | 56.40 % | 60.00 % |"));
		free(md);
		char *txt = report_string(db, REPORT_TEXT, NULL, 0);
		assert_null(strstr(txt, "IT energy"));
		free(txt);
		json_t *root = report_json(db);
		assert_null(json_object_get(root, "power"));
		assert_jnear(root, "all.gpu_utilisation", 0.6);
		json_decref(root);
		/* The figures: no cap lines, no heat map (with a note). */
		char *dir = tu_tmpath(".plots");
		struct runplot_set set;
		char err[1024];
		assert_int_equal(runplot_write(db, dir, &set, err, sizeof err), 0);
		for (int i = 0; i < set.n; i++)
			assert_string_not_equal(set.fig[i].name, "node_temp");
		assert_non_null(strstr(set.note, "No temperature heat map"));
		if (k == 1) {
			assert_int_equal(set.n, 6);
			assert_string_equal(set.fig[3].name, "rack_power");
			assert_false(file_has(dir, "rack_power.gp", "dt 2 notitle"));
		}
		runplot_remove(dir, &set);
		assert_int_equal(rmdir(dir), 0);
		free(dir);
		unlink(db);
		free(db);
	}
}

/* rack_power with each rack's cap dashed, and the node_temp heat map. */
static void test_power_plots(void **state)
{
	(void)state;
	char *db = make_power_db();
	char *dir = tu_tmpath(".plots");
	struct runplot_set set;
	char err[1024];
	int rc = runplot_draw(db, dir, NULL, &set, err, sizeof err);
	if (rc != 0 && rc != PLOT_NOPROG)
		fail_msg("%s", err);
	static const char *const want[] = { "utilisation", "queue", "power", "energy", "rack_power",
	                                    "node_temp", "wait_cdf", "tenants" };
	assert_int_equal(set.n, 8);
	for (int i = 0; i < 8; i++)
		assert_string_equal(set.fig[i].name, want[i]);
	assert_null(strstr(set.note, "temperature"));
	/* Racks by peak share of their cap: r2 (125 %) then r1 (95 %), each in
	 * its own colour of the palette (gnuplot's cycle repeats after 8: two
	 * of the default scenario's 9 racks shared one). Series 2 and 3 are
	 * their caps, in their colours, dashed: r2's 100 % throughout, r1's
	 * 100, 100, then 30 / 40 = 75 %. */
	assert_true(file_has(dir, "rack_power.gp", "'rack_power.dat' index 2 using 1:2 with steps"
	                                           " lw 1 dt 2 lc rgb '#1f77b4' notitle"));
	assert_true(file_has(dir, "rack_power.gp", "'rack_power.dat' index 3 using 1:2 with steps"
	                                           " lw 1 dt 2 lc rgb '#ff7f0e' notitle"));
	assert_true(file_has(dir, "rack_power.gp", "index 0 using 1:2 with steps lw 2 lc rgb '#1f77b4'"
	                                           " title 'r2'"));
	assert_true(file_has(dir, "rack_power.gp", "index 1 using 1:2 with steps lw 2 lc rgb '#ff7f0e'"
	                                           " title 'r1'"));
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < i; j++)
			assert_string_not_equal(plot_palette[i], plot_palette[j]);
	/* The queue's axis counts jobs: whole ticks only. */
	assert_true(file_has(dir, "queue.gp", "set ytics 1\nset format y '%.0f'\n"));
	/* The wait CDF: a log time axis in readable units with a '0' tick; each
	 * curve rises at 0 to the share of jobs that did not wait (in the
	 * legend too) and runs on to the longest wait. */
	assert_true(file_has(dir, "wait_cdf.gp", "set xtics ('0' 0.5, '1 s' 1, '10 s' 10, '1 min' 60"));
	assert_true(file_has(dir, "wait_cdf.gp", "set logscale x"));
	assert_true(file_has(dir, "wait_cdf.gp", " without a wait)'"));
	assert_true(file_has(dir, "wait_cdf.dat", ")\n0.5 0\n0.5 "));
	assert_true(file_has(dir, "rack_power.dat", "# series 3: \n0 100\n0.02777777778 100\n"
	                                            "0.05555555556 75\n"));
	/* The heat map: racks r1, r2 as rows, the three samples as columns
	 * 100 s apart (in hours), centred on the sample times. */
	assert_true(file_has(dir, "node_temp.dat", "\n70.000 85.500 80.000\n60.000 65.000 62.000\n"));
	assert_true(file_has(dir, "node_temp.gp", "matrix using (0 + $1 * 0.02777777778):($2 * 1 + 0):3"
	                                          " with image"));
	assert_true(file_has(dir, "node_temp.gp", "set ytics ('r1' 0, 'r2' 1)"));
	assert_true(file_has(dir, "node_temp.gp", "set yrange [1.5:-0.5]"));
	if (rc == 0) {
		assert_true(file_starts(dir, "node_temp.png", "\x89PNG\r\n\x1a\n", 8));
		assert_true(file_has(dir, "node_temp.svg", "<svg"));
		assert_true(file_starts(dir, "rack_power.png", "\x89PNG\r\n\x1a\n", 8));
	} else {
		fprintf(stderr, "test_power_plots: %s; skipping the drawing\n", err);
	}
	runplot_remove(dir, &set);
	assert_int_equal(rmdir(dir), 0);
	free(dir);
	/* The HTML page: the power tables and all seven figures. */
	if (gnuplot_present()) {
		char warn[512];
		char *html = report_string(db, REPORT_HTML, warn, sizeof warn);
		assert_string_equal(warn, "");
		check_html(html, 8);
		assert_non_null(strstr(html, "<h2>Power and energy</h2>"));
		assert_non_null(strstr(html, "<td class=\"num\">125.00 %</td>"));
		assert_null(strstr(html, "No temperature heat map"));
		free(html);
	}
	unlink(db);
	free(db);
}

/* One rack: its row is written twice, each half as tall. */
static void test_power_one_rack(void **state)
{
	(void)state;
	char *db = make_power_db();
	sqlite3 *h;
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	exec(h, "DELETE FROM rack_sample WHERE rack = 1; DELETE FROM rack WHERE id = 1;");
	sqlite3_close(h);
	char *dir = tu_tmpath(".plots");
	struct runplot_set set;
	char err[1024];
	assert_int_equal(runplot_write(db, dir, &set, err, sizeof err), 0);
	assert_true(file_has(dir, "node_temp.dat", "\n70.000 85.500 80.000\n70.000 85.500 80.000\n"));
	assert_true(file_has(dir, "node_temp.gp", "($2 * 0.5 + -0.25):3 with image"));
	assert_true(file_has(dir, "node_temp.gp", "set yrange [0.5:-0.5]"));
	runplot_remove(dir, &set);
	assert_int_equal(rmdir(dir), 0);
	free(dir);
	unlink(db);
	free(db);
}

/* make_db's run with operations events (times in hours; the run ends at
 * 10 h, its last event). Nodes 0, 1, 2 in table node, 3 only in events.
 *   1    fault node 0 node_crash; requeue of job 1 "node crash: lost 1800.0 s"
 *   2    fault node 1 "gpu_xid gpu 1"; requeue of job 4 "GPU fell off the bus:
 *        lost 900.0 s"; requeue of job 2 "priority: lost 100.0 s" (not a fault's)
 *   3    repair node 0 node_crash (down 1–3: 2 h); repair node 1 gpu_xid
 *   4    join node 3 (absent before: present 4–10, 6 h)
 *   5    drain node 1 "xid storm"
 *   5.5  fault node 1 node_crash (down while drained)
 *   6    fault node 2 "gpu_degrade gpu 2"
 *   6.5  repair node 1 node_crash (down 1 h)
 *   7    resume node 1 (drained 5–7: 2 h); drain node 2 "leave (decommission)"
 *   8    leave node 2 (drained 7–8: 1 h; present 0–8, 8 h)
 *   9    drain node 3 "xid storm" (never resumed: 9–10, 1 h)
 *   10   end of job 4
 * Failures gpu_degrade 1, gpu_xid 1, node_crash 2. Present 10 + 10 + 8 + 6
 * = 34 node-h; down 3, drained 4 (xid storm 2 drains 3 h, leave 1 drain
 * 1 h); unavailable, their union: node 0 2, node 1 [5,7] ∪ [5.5,6.5] = 2,
 * node 2 1, node 3 1 = 6, so availability 1 − 6/34 = 82.35 %. Migrations
 * 2, lost (1800 + 900) / 3600 = 0.75 h; node_fail jobs 1 (job 4); joined
 * 1, left 1. */
static char *make_ops_db(bool billing)
{
	char *path = make_db();
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec(db, "DROP TABLE event;"
	         "CREATE TABLE event(seq INTEGER PRIMARY KEY, t_us INTEGER NOT NULL, kind TEXT NOT NULL,"
	         " job INTEGER, node INTEGER, state TEXT, detail TEXT);"
	         "INSERT INTO node VALUES (2, 'r1-n2', 'r1');"
	         "ALTER TABLE job ADD COLUMN reason TEXT;"
	         "UPDATE job SET reason = 'node_fail' WHERE id = 4;"
	         "UPDATE job SET reason = 'user' WHERE id = 3;"
	         "INSERT INTO event(t_us, kind, job, node, detail) VALUES"
	         " (3600e6, 'fault', NULL, 0, 'node_crash'),"
	         " (3600e6, 'requeue', 1, 0, 'node crash: lost 1800.0 s of work, resumes at 0.0 of 3600.0 s'),"
	         " (7200e6, 'fault', NULL, 1, 'gpu_xid gpu 1'),"
	         " (7200e6, 'requeue', 4, 1, 'GPU fell off the bus: lost 900.0 s of work, resumes at 60.0 of 100.0 s'),"
	         " (7200e6, 'requeue', 2, 1, 'priority: lost 100.0 s of work, resumes at 0.0 of 5.0 s'),"
	         " (10800e6, 'repair', NULL, 0, 'node_crash'),"
	         " (10800e6, 'repair', NULL, 1, 'gpu_xid'),"
	         " (14400e6, 'join', NULL, 3, 'a100'),"
	         " (18000e6, 'drain', NULL, 1, 'xid storm'),"
	         " (19800e6, 'fault', NULL, 1, 'node_crash'),"
	         " (21600e6, 'fault', NULL, 2, 'gpu_degrade gpu 2'),"
	         " (23400e6, 'repair', NULL, 1, 'node_crash'),"
	         " (25200e6, 'resume', NULL, 1, NULL),"
	         " (25200e6, 'drain', NULL, 2, 'leave (decommission)'),"
	         " (28800e6, 'leave', NULL, 2, NULL),"
	         " (32400e6, 'drain', NULL, 3, 'xid storm'),"
	         " (36000e6, 'end', 4, 1, NULL);");
	if (billing)
		exec(db, "CREATE TABLE billing(config TEXT);");
	sqlite3_close(db);
	return path;
}

static void test_ops_json(void **state)
{
	(void)state;
	char *db = make_ops_db(false);
	json_t *root = report_json(db);
	assert_jnear(root, "operations.failures.node_crash", 2);
	assert_jnear(root, "operations.failures.gpu_xid", 1);
	assert_jnear(root, "operations.failures.gpu_degrade", 1);
	assert_int_equal(json_object_size(jget(root, "operations.failures")), 3);
	assert_jnear(root, "operations.nodes", 4);
	assert_jnear(root, "operations.node_hours_present", 34);
	assert_jnear(root, "operations.node_hours_down", 3);
	assert_jnear(root, "operations.node_hours_drained", 4);
	assert_jnear(root, "operations.node_hours_unavailable", 6);
	assert_jnear(root, "operations.node_availability", 1 - 6.0 / 34);
	assert_jnear(root, "operations.drained_by_reason.xid storm.drains", 2);
	assert_jnear(root, "operations.drained_by_reason.xid storm.node_hours", 3);
	assert_jnear(root, "operations.drained_by_reason.leave (decommission).node_hours", 1);
	assert_jnear(root, "operations.fault_migrations", 2);
	assert_jnear(root, "operations.fault_lost_work_hours", 0.75);
	assert_jnear(root, "operations.node_fail_jobs", 1);
	assert_jnear(root, "operations.nodes_joined", 1);
	assert_jnear(root, "operations.nodes_left", 1);
	assert_null(json_object_get(jget(root, "operations"), "note"));
	/* The other figures are as they were. */
	assert_jnear(root, "all.gpu_utilisation", 0.6);
	json_decref(root);
	unlink(db);
	free(db);
}

static void test_ops_text_markdown(void **state)
{
	(void)state;
	char *db = make_ops_db(true);
	char *md = report_string(db, REPORT_MARKDOWN, NULL, 0);
	assert_non_null(strstr(md, "## Operations\n"));
	assert_non_null(strstr(md, "| gpu_degrade | 1 |\n| gpu_xid | 1 |\n| node_crash | 2 |\n"));
	assert_non_null(strstr(md, "| 4 | 34.00 | 3.00 | 4.00 | 82.35 % |\n"));
	assert_non_null(strstr(md, "| leave (decommission) | 1 | 1.00 |\n| xid storm | 2 | 3.00 |\n"));
	assert_non_null(strstr(md, "| 2 | 0.75 | 1 | 1 | 1 |\n"));
	assert_non_null(strstr(md, "invoices: hetlab bill\n"));
	assert_non_null(strstr(md, "| 250.0 s (00:04:10) | 56.40 % | 60.00 % |"));
	free(md);

	char *txt = report_string(db, REPORT_TEXT, NULL, 0);
	assert_non_null(strstr(txt, "  operations    failures: gpu_degrade 1, gpu_xid 1, node_crash 2\n"
	                            "                node availability 82.35 % of 34.00 node-hours present"
	                            " (4 nodes; down 3.00, drained 4.00)\n"
	                            "                2 jobs migrated by faults, 0.75 hours of work lost;"
	                            " 1 jobs failed (node_fail)\n"
	                            "                nodes joined 1, left 1\n"));
	assert_non_null(strstr(txt, "  xid storm                           2         3.00\n"));
	assert_non_null(strstr(txt, "  (invoices: hetlab bill)\n"));
	free(txt);

	json_t *root = report_json(db);
	json_t *note = jget(root, "operations.note");
	assert_string_equal(json_string_value(note), "invoices: hetlab bill");
	json_decref(root);
	char *html = report_string(db, REPORT_HTML, NULL, 0);
	assert_non_null(strstr(html, "<h2>Operations</h2>"));
	assert_int_equal(count(html, "<table>"), count(html, "</table>"));
	free(html);
	unlink(db);
	free(db);
}

/* Files without operations events: an event table of one column
 * (make_db), and one with only a preemption's requeue (make_org_db). */
static void test_ops_none(void **state)
{
	(void)state;
	char *dbs[2] = { make_db(), make_org_db() };
	for (int k = 0; k < 2; k++) {
		char *md = report_string(dbs[k], REPORT_MARKDOWN, NULL, 0);
		assert_null(strstr(md, "Operations"));
		free(md);
		char *txt = report_string(dbs[k], REPORT_TEXT, NULL, 0);
		assert_null(strstr(txt, "operations"));
		assert_null(strstr(txt, "failures:"));
		free(txt);
		json_t *root = report_json(dbs[k]);
		assert_null(json_object_get(root, "operations"));
		json_decref(root);
		unlink(dbs[k]);
		free(dbs[k]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_power_markdown),
		cmocka_unit_test(test_power_json),
		cmocka_unit_test(test_power_old_file),
		cmocka_unit_test(test_power_plots),
		cmocka_unit_test(test_power_one_rack),
		cmocka_unit_test(test_ops_json),
		cmocka_unit_test(test_ops_text_markdown),
		cmocka_unit_test(test_ops_none),
	};
	return cmocka_run_group_tests_name("report_power", tests, NULL, NULL);
}
