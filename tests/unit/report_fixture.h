/* report_fixture — what test_report_doc.c and test_report_power.c share:
 * the run databases built by hand whose figures are worked out in the
 * comments (make_db, make_org_db), reading a report into a string or a
 * JSON tree, and small assertions on JSON paths, HTML pages and files.
 * Static and marked unused, so that each test file takes what it uses;
 * not inline, which lets GCC inline report_string's open_memstream buffer
 * into its callers and warn of a dangling pointer where there is none. */
#ifndef HL_REPORT_FIXTURE_H
#define HL_REPORT_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>

#include "analysis/report.h"
#include "tests/testutil.h"

#define FIXTURE __attribute__((unused))

FIXTURE static void exec(sqlite3 *db, const char *sql)
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
FIXTURE static char *make_db(void)
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
FIXTURE static char *make_org_db(void)
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

FIXTURE static char *report_string(const char *db, enum report_format fmt, char *warn, size_t warnlen)
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

FIXTURE static json_t *report_json(const char *db)
{
	char *buf = report_string(db, REPORT_JSON, NULL, 0);
	json_error_t je;
	json_t *root = json_loads(buf, 0, &je);
	if (!root)
		fail_msg("report JSON: %s at line %d", je.text, je.line);
	free(buf);
	return root;
}

/* The number at a path of object keys ("by_tenant.1.wait_s.p95"). */
FIXTURE static json_t *jget(json_t *root, const char *dotted)
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

FIXTURE static void assert_jnear(json_t *root, const char *dotted, double want)
{
	json_t *v = jget(root, dotted);
	if (!json_is_number(v))
		fail_msg("%s is not a number", dotted);
	double got = json_number_value(v);
	if (fabs(got - want) > 1e-9 * fmax(1.0, fabs(want)))
		fail_msg("%s: got %.12g, want %.12g", dotted, got, want);
}

FIXTURE static int count(const char *s, const char *what)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

FIXTURE static bool gnuplot_present(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* The main tags in order, once each; tables and figures closed. */
FIXTURE static void check_html(const char *html, int nsvg)
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

FIXTURE static bool file_starts(const char *dir, const char *file, const char *magic, size_t n)
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

FIXTURE static bool file_has(const char *dir, const char *file, const char *what)
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

#endif
