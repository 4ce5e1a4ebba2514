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
	assert_int_equal(count(html, "<figure>"), count(html, "</figure>"));
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
	assert_int_equal(count(html, "<figure>"), 5);
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
		/* The tenants' core-hours per hour: tenant 1 (4 x 100 + 10 x 100
		 * core-s = 0.3889 h) over tenant 2 (10 core-s). */
		assert_true(file_has(dir, "tenants.dat", "\"0\" 0.3888888889 0.002777777778"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_html_no_gnuplot),
		cmocka_unit_test(test_plot_files),
	};
	return cmocka_run_group_tests_name("report_doc", tests, NULL, NULL);
}
