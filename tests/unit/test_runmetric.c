/* runmetric: `hetlab run --store-metrics` writes table run_metric, and
 * runmetric_load gives exactly what metric_run_load computes from the whole
 * database for the same window, only for the window stored and only to the
 * build that stored it; a run without the option has no such table; bad
 * values are usage errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis/metric.h"
#include "analysis/runmetric.h"
#include "tests/testutil.h"

/* Runs `hetlab run --seed 1 --out DB --quiet [MORE...]` on the embedded
 * default scenario (more: NULL-ended); its exit status. */
static int run_hetlab(const char *db, const char *const *more)
{
	char self[PATH_MAX], exe[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	assert_true(n > 0);
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(exe, sizeof exe, "%s/../hetlab", self);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		const char *av[16] = { "hetlab", "run", "--seed", "1", "--out", db, "--quiet" };
		for (size_t i = 0; more[i] && i < 8; i++)
			av[7 + i] = more[i];
		execv(exe, (char *const *)av);
		_exit(127);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void exec_sql(const char *path, const char *sql)
{
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* The stored rows made this build's, as if this test binary had run it. */
static void adopt(const char *path)
{
	char *sql;
	assert_true(asprintf(&sql, "UPDATE run_metric SET build = '%s'", runmetric_build_id()) > 0);
	exec_sql(path, sql);
	free(sql);
}

/* runmetric_load's answer for window w (NULL: the run's own). */
static int load(const char *path, const struct metric_window *w, struct metric_set *out)
{
	sqlite3 *db;
	char err[512];
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	int rc = runmetric_load(db, path, w, out, err, sizeof err);
	sqlite3_close(db);
	return rc;
}

/* The stored set equals the full load's, name for name and bit for bit. */
static void assert_same_as_full(const char *path, const struct metric_window *w)
{
	struct metric_set a, b;
	char err[512];
	assert_int_equal(load(path, w, &a), 1);
	assert_int_equal(metric_run_load(path, w, &b, err, sizeof err), 0);
	assert_true(b.n > 100);
	assert_int_equal(a.n, b.n);
	for (size_t k = 0; k < a.n; k++) {
		assert_string_equal(a.v[k].name, b.v[k].name);
		if (isnan(b.v[k].v))
			assert_true(isnan(a.v[k].v));
		else
			assert_memory_equal(&a.v[k].v, &b.v[k].v, sizeof(double));
	}
	assert_true(a.t0_us == b.t0_us && a.t1_us == b.t1_us && a.whole == b.whole);
	assert_true(a.window.warmup_s == b.window.warmup_s && a.window.until == b.window.until);
	metric_set_fini(&a);
	metric_set_fini(&b);
}

static void test_store_and_load(void **st)
{
	(void)st;
	char *dir = tu_tmpdir_new("runmetric");
	char *own, *warm, *plain;
	assert_true(asprintf(&own, "%s/own.db", dir) > 0 && asprintf(&warm, "%s/warm.db", dir) > 0 &&
	            asprintf(&plain, "%s/plain.db", dir) > 0);
	const char *a_own[] = { "--store-metrics", "own", NULL };
	const char *a_warm[] = { "--store-metrics", "{\"warmup\": \"6h\"}", NULL };
	const char *a_none[] = { NULL };
	const char *a_bad[] = { "--store-metrics", "{\"warmup\": 1", NULL };
	const char *a_sum[] = { "--record", "summary", "--store-metrics", "own", NULL };
	struct metric_window w6 = { .warmup_s = 21600, .given = true }, none = { 0 };
	struct metric_set s;

	assert_int_equal(run_hetlab(own, a_own), 0);
	assert_int_equal(load(own, NULL, &s), 0);   /* another build: the hetlab binary's */
	adopt(own);
	assert_same_as_full(own, NULL);
	assert_same_as_full(own, &none);   /* not given: the run's own window too */
	assert_int_equal(load(own, &w6, &s), 0);   /* another window */

	assert_int_equal(run_hetlab(warm, a_warm), 0);
	adopt(warm);
	assert_same_as_full(warm, &w6);
	assert_int_equal(load(warm, NULL, &s), 0);

	assert_int_equal(run_hetlab(plain, a_none), 0);
	sqlite3 *db;
	sqlite3_stmt *q;
	assert_int_equal(sqlite3_open_v2(plain, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE name = "
	                                    "'run_metric'", -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(q, 0), 0);   /* a plain run has no table */
	sqlite3_finalize(q);
	sqlite3_close(db);
	assert_int_equal(load(plain, NULL, &s), 0);
	assert_int_equal(run_hetlab(plain, a_bad), 2);
	assert_int_equal(run_hetlab(plain, a_sum), 2);

	free(own);
	free(warm);
	free(plain);
	tu_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_and_load),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
