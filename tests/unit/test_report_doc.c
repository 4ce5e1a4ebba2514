/* report_doc and runplot: the Markdown and HTML reports and `hetlab plot`'s
 * figures, from a run database built by hand whose figures are worked out
 * in the comments. */
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

static void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

/* Four jobs on 10 cores, 2 GPUs (times in s):
 *   training done   tenant 1  submit 0   start 0    end 100  4 cores 1 GPU
 *   batch    done   tenant 2  submit 10  start 40   end 45   2 cores
 *   batch    killed tenant 2  submit 20  (pending)  end 20
 *   training done   tenant 1  submit 50  start 150  end 250  10 cores 2 GPUs
 * waits 0 30 100: mean 43.3, p50 30, max 100; JCT mean 83.75; makespan
 * 250 s; core-s 1410 / (10 x 250) = 56.40 %; GPU-s 300 / (2 x 250) =
 * 60.00 %. Samples at 0, 100, 200 s: cores 4, 0, 10 of 10 (mean share
 * 46.67 %), power 1000, 2000, 3000 W (mean 2000.0). */
static char *make_db(void)
{
	char *path = tu_tmpath(".db");
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec(db, "CREATE TABLE meta(key TEXT, value TEXT);"
	         "CREATE TABLE run(scenario TEXT, policy TEXT, seed, version TEXT, trace TEXT,"
	         " wall_s REAL, events INTEGER, passes INTEGER, jobs INTEGER, nodes INTEGER,"
	         " total_cores INTEGER, total_gpus INTEGER, skipped_malformed INTEGER,"
	         " skipped_unusable INTEGER, created TEXT, policy_params TEXT, rejected INTEGER);"
	         "CREATE TABLE job(id INTEGER PRIMARY KEY, class TEXT, tenant INTEGER, state TEXT,"
	         " submit_us INTEGER, start_us INTEGER, end_us INTEGER, cores INTEGER,"
	         " gpus INTEGER);"
	         "CREATE TABLE event(seq INTEGER PRIMARY KEY);"
	         "CREATE TABLE node(id INTEGER PRIMARY KEY, name TEXT, rack TEXT);"
	         "CREATE TABLE sample(t_us INTEGER, cores_alloc INTEGER, cores_total INTEGER,"
	         " gpus_alloc INTEGER, gpus_total INTEGER, pending INTEGER, running INTEGER,"
	         " power_w REAL);"
	         "INSERT INTO meta VALUES ('schema_version', '1');"
	         "INSERT INTO run VALUES ('tiny|<scn>', 'fcfs', 7, '0.1.0', 'synthetic', 0.5, 10,"
	         " 5, 4, 2, 10, 2, 0, 0, '2025-01-01T00:00:00Z', '', 0);"
	         "INSERT INTO job(class, tenant, state, submit_us, start_us, end_us, cores, gpus)"
	         " VALUES ('training', 1, 'done', 0, 0, 100000000, 4, 1),"
	         " ('batch', 2, 'done', 10000000, 40000000, 45000000, 2, 0),"
	         " ('batch', 2, 'killed', 20000000, NULL, 20000000, 0, 0),"
	         " ('training', 1, 'done', 50000000, 150000000, 250000000, 10, 2);"
	         "INSERT INTO node VALUES (0, 'r1-n0', 'r1'), (1, 'r1-n1', 'r1');"
	         "INSERT INTO sample VALUES (0, 4, 10, 1, 2, 0, 1, 1000),"
	         " (100000000, 0, 10, 0, 2, 0, 0, 2000), (200000000, 10, 10, 2, 2, 0, 1, 3000);");
	sqlite3_close(db);
	return path;
}

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

static char *report_string(const char *db, enum report_format fmt, char *warn, size_t warnlen)
{
	char *buf = NULL, err[1024] = "";
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	if (report_write(db, fmt, f, warn, warnlen, err, sizeof err) != 0)
		fail_msg("report_write: %s", err);
	fclose(f);
	return buf;
}

/* The later job columns: preemption, checkpoints, quota holds and
 * inference services. Nine jobs on 8 GPUs (times in s; gpu_s counts every
 * run, lost and ckpt are GPU-seconds and seconds):
 *
 *   id class     tenant grp state  submit start  end    gpus gpu_s  preempt lost ckpt held hold_why
 *   1  training  1      -1  done   0      3600   10800  2    21600  2       3600 1800 0    -
 *   2  batch     1      -1  done   1000   1000   2000   0    0      0       0    0    0    -
 *   3  dev       2      -1  done   0      7200   9000   1    1800   0       0    0    5400 quota
 *   4  batch     2      -1  killed 2000   -      2500   0    0      0       0    0    500  quota
 *   5  inference 3      0   done   0      10     14400  1    14390  0
 *   6  inference 3      0   done   5      20     14400  1    14380  0
 *   7  inference 3      0   done   100    130    7300   1    7170   0
 *   8  inference 3      1   killed 1000   -      1600   0    0      0
 *   9  inference 10     -1  done   0      0      3600   1    3600   0
 *
 * Makespan 14400 s. Tenants in index order 1, 2, 3, 10 (10 after 3):
 *   1: waits 3600, 0: mean 1800, p50 1800, p95 3420, p99 3564; JCTs
 *      10800, 1000: mean 5900; bsld (1.5 + 1) / 2 = 1.25; 2 preemptions,
 *      1.00 lost GPU-h, 0.50 checkpoint h, no hold.
 *   2: waits 7200 (job 4 never started); JCTs 9000, 500: mean 4750; bsld
 *      9000 / 1800 = 5; 2 quota holds, (5400 + 500) / 3600 = 1.64 h held.
 *   3: waits 10, 15, 30: mean 18.3, p50 15, p95 28.5, p99 29.7; JCTs
 *      14400, 14395, 7200, 600: mean 9148.75.
 * Services: 0 has replicas waiting over [0,10), [5,20) and [100,130):
 * the union is [0,20) and [100,130), 50 s; delays 10, 15, 30: mean
 * 18.33, max 30. Service 1's one replica never started and was killed
 * at 1600: it waited [1000,1600), 600 s, and has no delay. Job 9 is an
 * inference job but no service's replica (grp -1).
 * GPU use over 8 x 14400 = 115200 GPU-s: inference 14390 + 14380 + 7170
 * + 3600 = 39540 (10.98 h, 34.32 %); the others 21600 + 1800 = 23400
 * (6.50 h, 20.31 %). The last-run GPU utilisation stays as it was:
 * (2 x 7200 + 1800 + 14390 + 14380 + 7170 + 3600) / 115200 = 48.39 %. */
static char *make_org_db(void)
{
	char *path = tu_tmpath(".db");
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec(db, "CREATE TABLE meta(key TEXT, value TEXT);"
	         "CREATE TABLE run(scenario TEXT, policy TEXT, seed, version TEXT, trace TEXT,"
	         " wall_s REAL, events INTEGER, passes INTEGER, jobs INTEGER, nodes INTEGER,"
	         " total_cores INTEGER, total_gpus INTEGER, skipped_malformed INTEGER,"
	         " skipped_unusable INTEGER, created TEXT, policy_params TEXT, rejected INTEGER);"
	         "CREATE TABLE job(id INTEGER PRIMARY KEY, class TEXT, tenant INTEGER, grp INTEGER,"
	         " state TEXT, submit_us INTEGER, start_us INTEGER, end_us INTEGER, cores INTEGER,"
	         " gpus INTEGER, preemptions INTEGER, gpu_s REAL, core_s REAL, lost_gpu_s REAL,"
	         " ckpt_s REAL, held_s REAL, hold_why TEXT, restarts INTEGER);"
	         "CREATE TABLE event(seq INTEGER PRIMARY KEY, t_us INTEGER, kind TEXT, job INTEGER,"
	         " node INTEGER, state TEXT, detail TEXT);"
	         "CREATE TABLE sample(t_us INTEGER, cores_alloc INTEGER, cores_total INTEGER,"
	         " gpus_alloc INTEGER, gpus_total INTEGER, pending INTEGER, running INTEGER,"
	         " power_w REAL);"
	         "INSERT INTO meta VALUES ('schema_version', '1');"
	         "INSERT INTO run VALUES ('org', 'easy', 1, '0.1.0', 'synthetic', 0.5, 10,"
	         " 5, 9, 2, 16, 8, 0, 0, '2025-01-01T00:00:00Z', '', 0);"
	         "INSERT INTO job(id, class, tenant, grp, state, submit_us, start_us, end_us, cores,"
	         " gpus, preemptions, gpu_s, core_s, lost_gpu_s, ckpt_s, held_s, hold_why, restarts)"
	         " VALUES (1, 'training', 1, -1, 'done', 0, 3600e6, 10800e6, 4, 2, 2, 21600, 43200,"
	         "  3600, 1800, 0, NULL, 2),"
	         " (2, 'batch', 1, -1, 'done', 1000e6, 1000e6, 2000e6, 2, 0, 0, 0, 2000, 0, 0, 0,"
	         "  NULL, 0),"
	         " (3, 'dev', 2, -1, 'done', 0, 7200e6, 9000e6, 1, 1, 0, 1800, 1800, 0, 0, 5400,"
	         "  'quota', 0),"
	         " (4, 'batch', 2, -1, 'killed', 2000e6, NULL, 2500e6, 0, 0, 0, 0, 0, 0, 0, 500,"
	         "  'quota', 0),"
	         " (5, 'inference', 3, 0, 'done', 0, 10e6, 14400e6, 1, 1, 0, 14390, 14390, 0, 0, 0,"
	         "  NULL, 0),"
	         " (6, 'inference', 3, 0, 'done', 5e6, 20e6, 14400e6, 1, 1, 0, 14380, 14380, 0, 0,"
	         "  0, NULL, 0),"
	         " (7, 'inference', 3, 0, 'done', 100e6, 130e6, 7300e6, 1, 1, 0, 7170, 7170, 0, 0,"
	         "  0, NULL, 0),"
	         " (8, 'inference', 3, 1, 'killed', 1000e6, NULL, 1600e6, 0, 0, 0, 0, 0, 0, 0, 0,"
	         "  NULL, 0),"
	         " (9, 'inference', 10, -1, 'done', 0, 0, 3600e6, 1, 1, 0, 3600, 3600, 0, 0, 0,"
	         "  NULL, 0);"
	         "INSERT INTO event(t_us, kind, job, detail) VALUES (1800e6, 'preempt', 1, 'priority'),"
	         " (1800e6, 'requeue', 1, '3600 GPU-s');");
	sqlite3_close(db);
	return path;
}

/* The number at a path of object keys ("by_tenant.1.wait_s.p95"). */
static json_t *jget(json_t *root, const char *dotted)
{
	char key[128];
	snprintf(key, sizeof key, "%s", dotted);
	json_t *v = root;
	for (char *save = NULL, *k = strtok_r(key, ".", &save); k; k = strtok_r(NULL, ".", &save)) {
		v = json_object_get(v, k);
		if (!v)
			fail_msg("no %s in the report", dotted);
	}
	return v;
}

static void assert_jnear(json_t *root, const char *dotted, double want)
{
	json_t *v = jget(root, dotted);
	if (!json_is_number(v))
		fail_msg("%s is not a number", dotted);
	double got = json_number_value(v);
	if (fabs(got - want) > 1e-9 * fmax(1.0, fabs(want)))
		fail_msg("%s: got %.12g, want %.12g", dotted, got, want);
}

static int count(const char *s, const char *what)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static bool gnuplot_present(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

static void test_markdown(void **state)
{
	(void)state;
	char *db = make_db();
	char warn[256];
	char *md = report_string(db, REPORT_MARKDOWN, warn, sizeof warn);
	assert_string_equal(warn, "");
	assert_non_null(strstr(md, "# hetlab report: "));
	assert_non_null(strstr(md, "| scenario | tiny\\|<scn> |"));   /* '|' escaped */
	assert_non_null(strstr(md, "| cluster | 2 nodes, 10 cores, 2 GPUs |"));
	assert_non_null(strstr(md, "| done | 3 |"));
	assert_non_null(strstr(md, "| killed | 1 |"));
	assert_non_null(strstr(md, "| all | 4 |"));
	assert_non_null(strstr(md, "| training | 2 |"));
	assert_non_null(strstr(md, "| 250.0 s (00:04:10) | 56.40 % | 60.00 % |"));
	assert_non_null(strstr(md, "| all | 4 | 3 | 43.3 | 30.0 |"));
	assert_non_null(strstr(md, "| 100.0 |\n"));                    /* max wait */
	assert_non_null(strstr(md, "| all | 4 | 83.8 |"));             /* JCT mean 83.75 */
	assert_non_null(strstr(md, "| 3 | 0.0 | 0.7 | 46.67 % | 50.00 % | 2000.0 |"));
	assert_non_null(strstr(md, "| --- | ---: |"));
	free(md);
	unlink(db);
	free(db);
}

/* The main tags in order, once each; tables and figures closed. */
static void check_html(const char *html, int nsvg)
{
	const char *order[] = { "<!DOCTYPE html>", "<html", "<head>", "<style>", "</style>",
	                        "</head>", "<body>", "</body>", "</html>" };
	const char *p = html;
	for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
		assert_int_equal(count(html, order[i]), 1);
		const char *q = strstr(p, order[i]);
		if (!q)
			fail_msg("'%s' missing or out of order", order[i]);
		p = q;
	}
	assert_int_equal(count(html, "<table>"), count(html, "</table>"));
	assert_int_equal(count(html, "<figure"), count(html, "</figure>"));
	assert_int_equal(count(html, "<svg"), nsvg);
	assert_int_equal(count(html, "</svg>"), nsvg);
	assert_null(strstr(html, "http://"));
	assert_null(strstr(html, "https://"));
	assert_null(strstr(html, "src="));
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "<?xml"));
	assert_non_null(strstr(html, "tiny|&lt;scn&gt;"));              /* escaped */
	assert_non_null(strstr(html, "<td class=\"num\">56.40 %</td>"));
}

static void test_html(void **state)
{
	(void)state;
	if (!gnuplot_present()) {
		fprintf(stderr, "test_html: gnuplot not installed; skipping the figures\n");
		return;
	}
	char *db = make_db();
	char warn[512];
	char *html = report_string(db, REPORT_HTML, warn, sizeof warn);
	assert_string_equal(warn, "");
	/* utilisation, queue, wait_cdf, power, tenants */
	check_html(html, 5);
	assert_int_equal(count(html, "<figure"), 5);
	assert_non_null(strstr(html, "id='wait_cdf-gpPt0'"));           /* ids prefixed */
	assert_non_null(strstr(html, "No temperature heat map"));
	free(html);
	unlink(db);
	free(db);
}

static void test_html_no_gnuplot(void **state)
{
	(void)state;
	char *db = make_db();
	char *empty = tu_tmpath(".path");
	assert_int_equal(mkdir(empty, 0700), 0);
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", empty, 1);
	char warn[512];
	char *html = report_string(db, REPORT_HTML, warn, sizeof warn);
	/* runplot_draw alone says the program is missing. */
	char *dir = tu_tmpath(".plots");
	struct runplot_set set;
	char err[1024];
	int rc = runplot_draw(db, dir, NULL, &set, err, sizeof err);
	if (old)
		setenv("PATH", old, 1);
	free(old);
	assert_int_equal(rc, PLOT_NOPROG);
	assert_non_null(strstr(err, "gnuplot-nox"));
	assert_int_equal(set.n, 5);                  /* the data and scripts are there */
	runplot_remove(dir, &set);
	assert_int_equal(rmdir(dir), 0);
	free(dir);
	assert_non_null(strstr(warn, "figures could not be drawn"));
	assert_non_null(strstr(warn, "gnuplot"));
	check_html(html, 0);
	assert_non_null(strstr(html, "figures could not be drawn"));
	assert_non_null(strstr(html, "<td class=\"num\">60.00 %</td>"));
	free(html);
	rmdir(empty);
	free(empty);
	unlink(db);
	free(db);
}

static bool file_starts(const char *dir, const char *file, const char *magic, size_t n)
{
	char p[1024], buf[16] = { 0 };
	snprintf(p, sizeof p, "%s/%s", dir, file);
	FILE *f = fopen(p, "rb");
	if (!f)
		return false;
	size_t got = fread(buf, 1, n, f);
	fclose(f);
	return got == n && memcmp(buf, magic, n) == 0;
}

static bool file_has(const char *dir, const char *file, const char *what)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", dir, file);
	FILE *f = fopen(p, "rb");
	if (!f)
		return false;
	char *buf = calloc(1, 1 << 20);
	size_t got = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	bool ok = got > 0 && strstr(buf, what) != NULL;
	free(buf);
	return ok;
}

static void test_plot_files(void **state)
{
	(void)state;
	char *db = make_db();
	char *dir = tu_tmpath(".plots");
	struct runplot_set set;
	char err[1024];
	int rc = runplot_draw(db, dir, NULL, &set, err, sizeof err);
	if (rc == PLOT_NOPROG) {
		fprintf(stderr, "test_plot_files: %s; skipping the drawing\n", err);
	} else {
		if (rc != 0)
			fail_msg("%s", err);
		static const char *const want[] = { "utilisation", "queue", "power", "wait_cdf",
		                                    "tenants" };
		assert_int_equal(set.n, 5);
		for (int i = 0; i < 5; i++) {
			assert_string_equal(set.fig[i].name, want[i]);
			char f[64];
			snprintf(f, sizeof f, "%s.png", want[i]);
			assert_true(file_starts(dir, f, "\x89PNG\r\n\x1a\n", 8));
			snprintf(f, sizeof f, "%s.svg", want[i]);
			assert_true(file_has(dir, f, "<svg"));
			snprintf(f, sizeof f, "%s.gp", want[i]);
			assert_true(file_has(dir, f, "gnuplot"));
			snprintf(f, sizeof f, "%s.dat", want[i]);
			assert_true(file_starts(dir, f, "#", 1));
		}
		/* The tenants' GPU-hours per hour (the cluster has GPUs): tenant 1
		 * (1 x 100 + 2 x 100 GPU-s = 0.0833 h) over tenant 2 (none). */
		assert_true(file_has(dir, "tenants.dat", "\"0\" 0.08333333333 0"));
		assert_true(file_has(dir, "tenants.gp", "Allocated GPU-hours per tenant per hour"));
		assert_non_null(strstr(set.note, "temperature"));
	}
	runplot_remove(dir, &set);
	assert_int_equal(rmdir(dir), 0);
	free(dir);
	/* Not a results file: an error naming it. */
	char *bad = tu_write_tmp(".db", "not sqlite\n");
	dir = tu_tmpath(".plots");
	assert_int_equal(runplot_draw(bad, dir, NULL, &set, err, sizeof err), -1);
	assert_non_null(strstr(err, bad));
	rmdir(dir);
	free(dir);
	unlink(bad);
	free(bad);
	unlink(db);
	free(db);
}

static json_t *report_json(const char *db)
{
	char *buf = report_string(db, REPORT_JSON, NULL, 0);
	json_error_t je;
	json_t *root = json_loads(buf, 0, &je);
	if (!root)
		fail_msg("report JSON: %s at line %d", je.text, je.line);
	free(buf);
	return root;
}

static void test_org_markdown(void **state)
{
	(void)state;
	char *db = make_org_db();
	char *md = report_string(db, REPORT_MARKDOWN, NULL, 0);
	/* The existing figures are as they were: last runs only. */
	assert_non_null(strstr(md, "| 14400.0 s (04:00:00) | 31.31 % | 48.39 % |\n"));
	/* Lost work and holds per class. */
	assert_non_null(strstr(md, "## Lost work and holds\n"));
	assert_non_null(strstr(md, "| jobs of | jobs | preemptions | lost GPU-hours | checkpoint hours"
	                           " | quota holds | held hours |"));
	assert_non_null(strstr(md, "| all | 9 | 2 | 1.00 | 0.50 | 2 | 1.64 |"));
	assert_non_null(strstr(md, "| training | 1 | 2 | 1.00 | 0.50 | 0 | 0.00 |"));
	assert_non_null(strstr(md, "| batch | 2 | 0 | 0.00 | 0.00 | 1 | 0.14 |"));
	/* Tenants by index: 10 after 3. */
	const char *t1 = strstr(md, "| 1 | 2 | 1800.0 | 1800.0 | 3420.0 | 3564.0 | 5900.0 | 1.25 |"
	                            " 2 | 1.00 | 0.50 | 0 | 0.00 |");
	const char *t2 = strstr(md, "| 2 | 2 | 7200.0 | 7200.0 | 7200.0 | 7200.0 | 4750.0 | 5.00 |"
	                            " 0 | 0.00 | 0.00 | 2 | 1.64 |");
	const char *t3 = strstr(md, "| 3 | 4 | 18.3 | 15.0 | 28.5 | 29.7 | 9148.8 |");
	const char *t10 = strstr(md, "| 10 | 1 | 0.0 | 0.0 | 0.0 | 0.0 | 3600.0 | 1.00 |");
	assert_true(t1 && t2 && t3 && t10);
	assert_true(t1 < t2 && t2 < t3 && t3 < t10);
	/* Services. */
	assert_non_null(strstr(md, "| 0 | 3 | 3 | 50.0 | 18.3 | 30.0 |"));
	assert_non_null(strstr(md, "| 1 | 1 | 0 | 600.0 | - | - |"));
	/* Reserved and shared GPU use, every run counted. */
	assert_non_null(strstr(md, "| inference (reserved) | 10.98 | 34.32 % |"));
	assert_non_null(strstr(md, "| offline + dev (shared) | 6.50 | 20.31 % |"));
	assert_null(strstr(md, "records no gpu_s"));
	free(md);

	char *txt = report_string(db, REPORT_TEXT, NULL, 0);
	assert_non_null(strstr(txt, "  utilisation   cores "));
	assert_non_null(strstr(txt, "by tenant (s)"));
	assert_non_null(strstr(txt, "  2                     2     7200.0    7200.0    7200.0    7200.0"
	                            "     4750.0    5.00        0        0.00     0.00           2     1.64\n"));
	assert_non_null(strstr(txt, "  1                     1        0          600.0              -"
	                            "              -\n"));
	assert_non_null(strstr(txt, "  inference (reserved)          10.98      34.32 %\n"));
	free(txt);
	unlink(db);
	free(db);
}

static void test_org_json(void **state)
{
	(void)state;
	char *db = make_org_db();
	json_t *root = report_json(db);
	assert_jnear(root, "all.preemptions", 2);
	assert_jnear(root, "all.lost_gpu_hours", 1);
	assert_jnear(root, "all.checkpoint_hours", 0.5);
	assert_jnear(root, "all.quota_holds", 2);
	assert_jnear(root, "all.held_hours", 5900.0 / 3600);
	assert_jnear(root, "per_class.dev.held_hours", 1.5);
	/* by_tenant: keys in index order. */
	json_t *bt = jget(root, "by_tenant");
	const char *want[] = { "1", "2", "3", "10" };
	void *it = json_object_iter(bt);
	for (int i = 0; i < 4; i++, it = json_object_iter_next(bt, it)) {
		assert_non_null(it);
		assert_string_equal(json_object_iter_key(it), want[i]);
	}
	assert_null(it);
	assert_jnear(root, "by_tenant.1.jobs", 2);
	assert_jnear(root, "by_tenant.1.wait_s.mean", 1800);
	assert_jnear(root, "by_tenant.1.wait_s.p95", 3420);
	assert_jnear(root, "by_tenant.1.wait_s.p99", 3564);
	assert_jnear(root, "by_tenant.1.jct_s.mean", 5900);
	assert_jnear(root, "by_tenant.1.bounded_slowdown", 1.25);
	assert_jnear(root, "by_tenant.1.preemptions", 2);
	assert_jnear(root, "by_tenant.1.lost_gpu_hours", 1);
	assert_jnear(root, "by_tenant.2.wait_s.n", 1);
	assert_jnear(root, "by_tenant.2.jct_s.mean", 4750);
	assert_jnear(root, "by_tenant.2.bounded_slowdown", 5);
	assert_jnear(root, "by_tenant.2.quota_holds", 2);
	assert_jnear(root, "by_tenant.3.wait_s.mean", 55.0 / 3);
	assert_jnear(root, "by_tenant.3.wait_s.p50", 15);
	assert_jnear(root, "by_tenant.3.wait_s.p95", 28.5);
	assert_jnear(root, "by_tenant.3.jct_s.mean", 9148.75);
	assert_jnear(root, "by_tenant.3.bounded_slowdown",
	             (14400.0 / 14390 + 14395.0 / 14380 + 7200.0 / 7170) / 3);
	/* services */
	assert_jnear(root, "services.0.replicas", 3);
	assert_jnear(root, "services.0.started", 3);
	assert_jnear(root, "services.0.slo_violation_s", 50);
	assert_jnear(root, "services.0.scale_up_delay_mean_s", 55.0 / 3);
	assert_jnear(root, "services.0.scale_up_delay_max_s", 30);
	assert_jnear(root, "services.1.replicas", 1);
	assert_jnear(root, "services.1.started", 0);
	assert_jnear(root, "services.1.slo_violation_s", 600);
	assert_true(json_is_null(jget(root, "services.1.scale_up_delay_mean_s")));
	assert_int_equal(json_object_size(jget(root, "services")), 2);
	/* reserved and shared GPU use */
	assert_jnear(root, "gpu_util_split.inference_reserved.gpu_seconds", 39540);
	assert_jnear(root, "gpu_util_split.inference_reserved.utilisation", 39540.0 / 115200);
	assert_jnear(root, "gpu_util_split.offline_dev_shared.gpu_seconds", 23400);
	assert_jnear(root, "gpu_util_split.offline_dev_shared.utilisation", 23400.0 / 115200);
	assert_true(json_is_true(jget(root, "gpu_util_split.all_runs")));
	assert_jnear(root, "all.gpu_utilisation", 55740.0 / 115200);   /* unchanged */
	json_decref(root);
	unlink(db);
	free(db);
}

/* The sweep over the replicas' waits: overlapping, nested, touching and
 * disjoint intervals, and a replica still pending when the file ends. */
static void test_slo_sweep(void **state)
{
	(void)state;
	char *db = make_org_db();
	sqlite3 *h;
	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	/* Service 2: [0,100) [10,20) nested, [100,150) touching, [300,310)
	 * disjoint, [400, 14400) pending to the file's last time (the
	 * 14400 s end of jobs 5 and 6): 150 + 10 + 14000 = 14160 s. */
	exec(h, "INSERT INTO job(id, class, tenant, grp, state, submit_us, start_us, end_us,"
	        " cores, gpus) VALUES"
	        " (20, 'inference', 4, 2, 'done', 0, 100e6, 200e6, 1, 1),"
	        " (21, 'inference', 4, 2, 'done', 10e6, 20e6, 200e6, 1, 1),"
	        " (22, 'inference', 4, 2, 'done', 100e6, 150e6, 200e6, 1, 1),"
	        " (23, 'inference', 4, 2, 'done', 300e6, 310e6, 400e6, 1, 1),"
	        " (24, 'inference', 4, 2, 'pending', 400e6, NULL, NULL, 0, 0);");
	sqlite3_close(h);
	json_t *root = report_json(db);
	assert_jnear(root, "services.2.replicas", 5);
	assert_jnear(root, "services.2.started", 4);
	assert_jnear(root, "services.2.slo_violation_s", 14160);
	assert_jnear(root, "services.2.scale_up_delay_mean_s", (100 + 10 + 50 + 10) / 4.0);
	assert_jnear(root, "services.2.scale_up_delay_max_s", 100);
	assert_jnear(root, "services.0.slo_violation_s", 50);        /* the others unchanged */
	json_decref(root);
	unlink(db);
	free(db);
}

/* A file from before the later columns (make_db: no grp, preemptions,
 * gpu_s, …) still reports: tenants from `tenant`, no lost-work or hold
 * columns, no services, and the GPU split from the last runs. */
static void test_org_old_file(void **state)
{
	(void)state;
	char *db = make_db();
	char *md = report_string(db, REPORT_MARKDOWN, NULL, 0);
	assert_null(strstr(md, "Lost work"));
	assert_null(strstr(md, "preemptions"));
	assert_null(strstr(md, "Inference services"));
	assert_non_null(strstr(md, "| tenant | jobs | wait mean (s) | p50 | p95 | p99 | JCT mean (s) |"
	                           " bounded slowdown |\n"));
	/* tenant 1: waits 0, 100; JCTs 100, 200; bsld (1 + 200 / 100) / 2 */
	assert_non_null(strstr(md, "| 1 | 2 | 50.0 | 50.0 | 95.0 | 99.0 | 150.0 | 1.50 |\n"));
	/* tenant 2: wait 30; JCTs 35, 0; bsld 35 / 10 */
	assert_non_null(strstr(md, "| 2 | 2 | 30.0 | 30.0 | 30.0 | 30.0 | 17.5 | 3.50 |\n"));
	/* 300 GPU-s of training over 2 GPUs x 250 s */
	assert_non_null(strstr(md, "| inference (reserved) | 0.00 | 0.00 % |"));
	assert_non_null(strstr(md, "| offline + dev (shared) | 0.08 | 60.00 % |"));
	assert_non_null(strstr(md, "records no gpu_s"));
	free(md);
	json_t *root = report_json(db);
	assert_jnear(root, "by_tenant.2.wait_s.mean", 30);
	assert_true(json_is_null(jget(root, "by_tenant.2.preemptions")));
	assert_true(json_is_null(jget(root, "all.lost_gpu_hours")));
	assert_int_equal(json_object_size(jget(root, "services")), 0);
	assert_true(json_is_false(jget(root, "gpu_util_split.all_runs")));
	assert_jnear(root, "gpu_util_split.offline_dev_shared.utilisation", 0.6);
	json_decref(root);
	unlink(db);
	free(db);
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
	/* Racks by peak share of their cap: r2 (125 %) then r1 (95 %). Series
	 * 2 and 3 are their caps, in their colours (linetypes 1 and 2), dashed:
	 * r2's 100 % throughout, r1's 100, 100, then 30 / 40 = 75 %. */
	assert_true(file_has(dir, "rack_power.gp", "'rack_power.dat' index 2 using 1:2 with steps"
	                                           " lt 1 lw 1 dt 2 notitle"));
	assert_true(file_has(dir, "rack_power.gp", "'rack_power.dat' index 3 using 1:2 with steps"
	                                           " lt 2 lw 1 dt 2 notitle"));
	assert_true(file_has(dir, "rack_power.gp", "index 0 using 1:2 with steps lw 2 title 'r2'"));
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
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_html_no_gnuplot),
		cmocka_unit_test(test_plot_files),
		cmocka_unit_test(test_org_markdown),
		cmocka_unit_test(test_org_json),
		cmocka_unit_test(test_slo_sweep),
		cmocka_unit_test(test_org_old_file),
		cmocka_unit_test(test_power_markdown),
		cmocka_unit_test(test_power_json),
		cmocka_unit_test(test_power_old_file),
		cmocka_unit_test(test_power_plots),
		cmocka_unit_test(test_power_one_rack),
		cmocka_unit_test(test_ops_json),
		cmocka_unit_test(test_ops_text_markdown),
		cmocka_unit_test(test_ops_none),
	};
	return cmocka_run_group_tests_name("report_doc", tests, NULL, NULL);
}
