/* sweep: column names, seed lists, grid order and ids, applying values to a
 * scenario (and the errors for paths that do not exist), loading a sweep
 * file, the summary's independence of the order runs finished in, and a
 * whole sweep through the hetlab binary: straight vs interrupted and
 * resumed, a failing run recorded as failed, -j 1 against -j 2 with
 * runs of uneven length (started longest first), and the same summary
 * whether the metrics come from the runs' run_metric tables or from the
 * whole databases. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis/sweep.h"
#include "tests/testutil.h"
#include "config/sweepcfg.h"

/* ---- helpers ----------------------------------------------------------------- */

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char *make_tmpdir(void)
{
	char *p = tu_tmpath("-sweep");
	assert_int_equal(mkdir(p, 0777), 0);
	return p;
}

static char *write_file(const char *dir, const char *name, const char *text)
{
	char *p;
	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

/* Every row of a query as text, columns separated by '|', NULL as "<null>",
 * each value tagged with its storage type. */
static char *dump_query(const char *dbpath, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	assert_non_null(m);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			int t = sqlite3_column_type(st, c);
			if (t == SQLITE_NULL)
				fprintf(m, "<null>|");
			else
				fprintf(m, "%d:%s|", t, (const char *)sqlite3_column_text(st, c));
		}
		fputc('\n', m);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	fclose(m);
	return out;
}

/* ---- pure parts -------------------------------------------------------------- */

static void test_column_name(void **st)
{
	(void)st;
	const char *in[] = { "$.racks[0].count", "$.workload.synthetic.scale.rate", "$.policy",
		"$.policy_params.bf_max_job_test", "$.a-b..c[12]" };
	const char *want[] = { "p_racks_0_count", "p_workload_synthetic_scale_rate", "p_policy",
		"p_policy_params_bf_max_job_test", "p_a_b_c_12" };
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		char *c = sweep_column_name(in[i]);
		assert_string_equal(c, want[i]);
		free(c);
	}
}

static void test_seeds(void **st)
{
	(void)st;
	uint64_t *s;
	size_t n;
	char err[256];
	assert_int_equal(sweep_parse_seeds("1-3,7,5-5", &s, &n, err, sizeof err), 0);
	assert_int_equal(n, 5);
	const uint64_t want[] = { 1, 2, 3, 7, 5 };
	for (size_t i = 0; i < n; i++)
		assert_int_equal(s[i], want[i]);
	free(s);
	assert_int_equal(sweep_parse_seeds("3-1", &s, &n, err, sizeof err), -1);
	assert_non_null(strstr(err, "3-1"));
	assert_int_equal(sweep_parse_seeds("1,2-4,3", &s, &n, err, sizeof err), -1);
	assert_non_null(strstr(err, "seed 3 given twice"));
	assert_int_equal(sweep_parse_seeds("x", &s, &n, err, sizeof err), -1);
	assert_int_equal(sweep_parse_seeds("", &s, &n, err, sizeof err), -1);
	assert_int_equal(sweep_parse_seeds("-1", &s, &n, err, sizeof err), -1);
}

static void test_grid_order(void **st)
{
	(void)st;
	struct sweep_grid g = { 0 };
	const char *a[] = { "1", "2" }, *b[] = { "\"x\"", "\"y\"", "\"z\"" };
	assert_int_equal(sweep_grid_add_param(&g, "$.a", a, 2), 0);
	assert_int_equal(sweep_grid_add_param(&g, "$.b", b, 3), 0);
	assert_int_equal(sweep_grid_expand(&g), 0);
	assert_int_equal(g.npoint, 6);
	/* The last parameter varies fastest: (1,x) (1,y) (1,z) (2,x) (2,y) (2,z). */
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(g.point[i].id, i);
		assert_int_equal(g.point[i].vidx[0], i / 3);
		assert_int_equal(g.point[i].vidx[1], i % 3);
	}
	assert_string_equal(g.param[1].column, "p_b");
	sweep_grid_fini(&g);
	/* No parameters: one point. */
	assert_int_equal(sweep_grid_expand(&g), 0);
	assert_int_equal(g.npoint, 1);
	sweep_grid_fini(&g);
}

static void test_apply(void **st)
{
	(void)st;
	const char *doc = "{\"name\": \"x\", \"racks\": [{\"count\": 2, \"cooling\": \"air\"}, "
	                  "{\"count\": 1}], \"workload\": {\"synthetic\": {\"days\": 7}}}";
	char *out, err[512];
	assert_int_equal(sweep_apply("t", doc, "$.racks[1].count", "5", &out, err, sizeof err), 0);
	assert_string_equal(out, "{\"name\":\"x\",\"racks\":[{\"count\":2,\"cooling\":\"air\"},"
	                    "{\"count\":5}],\"workload\":{\"synthetic\":{\"days\":7}}}");
	free(out);
	assert_int_equal(sweep_apply("t", doc, "$.racks[0].cooling", "\"liquid\"", &out, err,
	                             sizeof err), 0);
	assert_non_null(strstr(out, "\"cooling\":\"liquid\""));
	free(out);
	/* A new last key, and a new object on the way; reals keep their short form. */
	assert_int_equal(sweep_apply("t", doc, "$.workload.synthetic.scale.rate", "1.4", &out, err,
	                             sizeof err), 0);
	assert_non_null(strstr(out, "\"synthetic\":{\"days\":7,\"scale\":{\"rate\":1.4}}"));
	free(out);
	/* Any JSON value. */
	assert_int_equal(sweep_apply("t", doc, "$.racks[0]", "{\"count\": 3}", &out, err,
	                             sizeof err), 0);
	assert_non_null(strstr(out, "[{\"count\":3},"));
	free(out);
	/* Errors name the label, the path and what is wrong. */
	assert_int_equal(sweep_apply("t.json", doc, "$.racks[9].count", "1", &out, err, sizeof err), -1);
	assert_null(out);
	assert_non_null(strstr(err, "t.json: $.racks[9].count: $.racks has 2 elements"));
	assert_int_equal(sweep_apply("t", doc, "$.name.first", "1", &out, err, sizeof err), -1);
	assert_non_null(strstr(err, "$.name is a scalar, not an object"));
	assert_int_equal(sweep_apply("t", doc, "$.racks.count", "1", &out, err, sizeof err), -1);
	assert_non_null(strstr(err, "$.racks is an array, not an object"));
	assert_int_equal(sweep_apply("t", doc, "$.nope[0]", "1", &out, err, sizeof err), -1);
	assert_non_null(strstr(err, "$.nope does not exist"));
	assert_int_equal(sweep_apply("t", doc, "racks", "1", &out, err, sizeof err), -1);
	assert_int_equal(sweep_apply("t", doc, "$.racks[x]", "1", &out, err, sizeof err), -1);
	assert_int_equal(sweep_apply("t", doc, "$", "1", &out, err, sizeof err), -1);
	/* [+] appends to an array; null removes an element or a key. */
	assert_int_equal(sweep_apply("t", doc, "$.racks[+]", "{\"count\": 0}", &out, err, sizeof err), 0);
	assert_non_null(strstr(out, "\"racks\":[{\"count\":2,\"cooling\":\"air\"},{\"count\":1},{\"count\":0}]"));
	free(out);
	assert_int_equal(sweep_apply("t", doc, "$.racks[0]", "null", &out, err, sizeof err), 0);
	assert_non_null(strstr(out, "\"racks\":[{\"count\":1}]"));
	free(out);
	assert_int_equal(sweep_apply("t", doc, "$.racks[0].cooling", "null", &out, err, sizeof err), 0);
	assert_non_null(strstr(out, "\"racks\":[{\"count\":2},"));
	free(out);
	assert_int_equal(sweep_apply("t", doc, "$.name[+]", "1", &out, err, sizeof err), -1);
	assert_non_null(strstr(err, "$.name is a scalar, not an array to append to"));
	assert_int_equal(sweep_apply("t", doc, "$.racks[+]", "null", &out, err, sizeof err), -1);
	assert_int_equal(sweep_apply("t", doc, "$.nope", "null", &out, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot be removed"));
}

/* A sweep file's fixed settings come first: a rack appended there, its
 * count a parameter (0 = no rack), checked with the earlier parameters at
 * their first values; "metrics" names the table's columns. */
static void test_fixed_append(void **st)
{
	(void)st;
	char *dir = make_tmpdir(), path[600], err[1024];
	snprintf(path, sizeof path, "%s/s.json", dir);
	FILE *f = fopen(path, "w");
	fputs("{\"seeds\": \"1\", \"out\": \"o\", \"fixed\": {\"$.racks[+]\": {\"name\": \"new-\","
	      " \"count\": 0, \"power_kw\": 40, \"cooling\": \"liquid\", \"nodes\": [{\"type\":"
	      " \"h100-8x\", \"count\": 2}]}}, \"params\": {\"$.racks[4].count\": [0, 2]},"
	      " \"metrics\": [\"wait_training\", \"gpu_util{gpu=H100-SXM-80GB}\"]}", f);
	fclose(f);
	struct sweep_grid g;
	if (sweep_load(path, NULL, &g, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(g.npoint, 2);
	assert_non_null(strstr(g.point[1].scenario, "\"name\": \"new-\""));
	assert_int_equal(g.nmetric, 2);
	assert_string_equal(g.metric[0], "mean_wait{class=training}");
	sweep_grid_fini(&g);
	f = fopen(path, "w");
	fputs("{\"seeds\": \"1\", \"metrics\": [\"p95_wait{gpu=x}\"]}", f);
	fclose(f);
	assert_int_equal(sweep_load(path, NULL, &g, err, sizeof err), -1);
	assert_non_null(strstr(err, "$.metrics[0]"));
	unlink(path);
	rmdir(dir);
	free(dir);
}

static void test_load(void **st)
{
	(void)st;
	char *dir = make_tmpdir(), err[1024];
	char *f = write_file(dir, "s.json",
	                     "{\"seeds\": [3, 1], \"out\": \"o\", \"params\": {"
	                     "\"$.racks[3].count\": [1, 2], \"$.policy\": [\"fcfs\", \"easy\", \"conservative\"],"
	                     "\"$.workload.synthetic.scale.rate\": [1.4]}}");
	struct sweep_grid g;
	assert_int_equal(sweep_load(f, NULL, &g, err, sizeof err), 0);
	assert_null(g.scenario);
	assert_int_equal(g.nseed, 2);
	assert_int_equal(g.seed[0], 3);
	assert_int_equal(g.seed[1], 1);
	assert_int_equal(g.nparam, 3);
	assert_int_equal(g.npoint, 6);
	char want_out[PATH_MAX];
	snprintf(want_out, sizeof want_out, "%s/o", dir);
	assert_string_equal(g.out, want_out);
	assert_string_equal(g.param[2].value[0], "1.4");
	assert_string_equal(g.param[1].value[2], "\"conservative\"");
	/* Point 4 = racks[3].count 2, policy easy. */
	assert_non_null(strstr(g.point[4].scenario, "\"policy\": \"easy\""));
	assert_non_null(strstr(g.point[4].scenario, "\"rate\": 1.4"));
	sweep_grid_fini(&g);
	assert_int_equal(sweep_load(f, "/elsewhere", &g, err, sizeof err), 0);
	assert_string_equal(g.out, "/elsewhere");
	sweep_grid_fini(&g);
	free(f);

	/* Errors name the file and the parameter. */
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "{\"seeds\": \"1\", \"params\": {\"$.racks[7].count\": [1]}}",
		  "$.params[\"$.racks[7].count\"][0]: $.racks has 4 elements, so [7] does not exist" },
		{ "{\"seeds\": \"1\", \"params\": {\"$.policy\": []}}",
		  "$.params[\"$.policy\"]: expected a non-empty array of values, got an empty array" },
		{ "{\"seeds\": \"1\", \"params\": {\"$.policy\": [\"easy\", \"easy\"]}}",
		  "$.params[\"$.policy\"][1]: the value \"easy\" is also [0]" },
		{ "{\"seeds\": \"1\", \"params\": {\"$.foo_bar\": [1], \"$.foo.bar\": [2]}}",
		  "$.params[\"$.foo.bar\"]: names the same column p_foo_bar as \"$.foo_bar\"" },
		{ "{\"params\": {}}", "\"seeds\" is required" },
		{ "{\"seeds\": \"1\", \"sedes\": 1}", "$: unknown key \"sedes\"" },
		{ "{\"seeds\": [1, -2]}", "$.seeds[1]: expected an integer" },
		{ "{\"seeds\": \"1\", \"scenario\": \"nope.json\"}", "$.scenario:" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		f = write_file(dir, "bad.json", bad[i].text);
		err[0] = '\0';
		assert_int_equal(sweep_load(f, NULL, &g, err, sizeof err), -1);
		if (!strstr(err, bad[i].want) || strncmp(err, f, strlen(f)) != 0)
			fail_msg("case %zu: got '%s', expected '%s' after the file name", i, err, bad[i].want);
		free(f);
	}
	rm_tree(dir);
	free(dir);
}

/* ---- the summary ------------------------------------------------------------- */

static void fake_ok(struct sweep_result *r, size_t point, uint64_t seed, double x)
{
	memset(r, 0, sizeof *r);
	r->point = point;
	r->seed = seed;
	r->status = SWEEP_OK;
	r->run.path = strdup("p");
	r->run.seed = strdup("s");
	r->run.policy = strdup("easy");
	r->run.scenario = strdup("guian");
	/* mean_wait x, gpu_util undefined, makespan x + 6 */
	metric_set_put(&r->run.m, "mean_wait", x);
	metric_set_put(&r->run.m, "gpu_util", NAN);
	metric_set_put(&r->run.m, "makespan", x + 6);
}

static void test_summary_order(void **st)
{
	(void)st;
	char *dir = make_tmpdir(), err[512];
	struct sweep_grid g = { 0 };
	const char *a[] = { "1.0", "1.4" }, *b[] = { "\"easy\"", "\"fcfs\"" };
	assert_int_equal(sweep_grid_add_param(&g, "$.workload.synthetic.scale.rate", a, 2), 0);
	assert_int_equal(sweep_grid_add_param(&g, "$.policy", b, 2), 0);
	assert_int_equal(sweep_grid_expand(&g), 0);
	g.seed = calloc(2, sizeof *g.seed);
	g.seed[0] = 1;
	g.seed[1] = 2;
	g.nseed = 2;
	g.out = strdup(dir);
	g.file = strdup("s.json");
	struct sweep_result r1[8], r2[8];
	for (size_t k = 0; k < 8; k++) {
		size_t p = k / 2;
		uint64_t s = 1 + k % 2;
		if (k == 5) {
			assert_int_equal(sweep_result_failed(&r1[k], p, s, 3, "exit status 3"), 0);
			/* The other order: reversed. */
			assert_int_equal(sweep_result_failed(&r2[7 - k], p, s, 3, "exit status 3"), 0);
		} else {
			fake_ok(&r1[k], p, s, 10.0 * (double)k);
			fake_ok(&r2[7 - k], p, s, 10.0 * (double)k);
		}
	}
	char *s1, *s2;
	assert_true(asprintf(&s1, "%s/one.db", dir) > 0);
	assert_true(asprintf(&s2, "%s/two.db", dir) > 0);
	assert_int_equal(sweep_summary_write(&g, r1, 8, s1, "2026-01-01T00:00:00Z", err, sizeof err), 0);
	assert_int_equal(sweep_summary_write(&g, r2, 8, s2, "2026-01-02T00:00:00Z", err, sizeof err), 0);
	const char *q[] = { "SELECT * FROM point", "SELECT * FROM result",
		"SELECT * FROM result ORDER BY point, seed" };
	for (size_t i = 0; i < 3; i++) {
		char *d1 = dump_query(s1, q[i]), *d2 = dump_query(s2, q[i]);
		assert_string_equal(d1, d2);
		free(d1);
		free(d2);
	}
	char *pt = dump_query(s1, "SELECT id, p_workload_synthetic_scale_rate, p_policy FROM point");
	assert_string_equal(pt, "1:0|3:1.0|3:\"easy\"|\n1:1|3:1.0|3:\"fcfs\"|\n"
	                    "1:2|3:1.4|3:\"easy\"|\n1:3|3:1.4|3:\"fcfs\"|\n");
	free(pt);
	char *rs = dump_query(s1, "SELECT point, seed, status, exit_status, note, db, mean_wait, "
	                          "gpu_util FROM result WHERE point = 2");
	char *ms = dump_query(s1, "SELECT point, seed, name, value FROM metric WHERE point = 2 ORDER BY name");
	assert_string_equal(ms, "1:2|1:1|3:gpu_util|<null>|\n1:2|1:1|3:makespan|2:46.0|\n"
	                    "1:2|1:1|3:mean_wait|2:40.0|\n");
	free(ms);
	assert_string_equal(rs, "1:2|1:1|3:ok|1:0|<null>|3:point-2/seed-1.db|2:40.0|<null>|\n"
	                    "1:2|1:2|3:failed|1:3|3:exit status 3|3:point-2/seed-2.db|<null>|<null>|\n");
	free(rs);
	char *sw = dump_query(s1, "SELECT params, seeds, npoint, nrun, created FROM sweep");
	assert_string_equal(sw, "3:[\"$.workload.synthetic.scale.rate\", \"$.policy\"]|3:[1, 2]|"
	                    "1:4|1:8|3:2026-01-01T00:00:00Z|\n");
	free(sw);
	/* A duplicate (point, seed) is refused and leaves no file. */
	sweep_result_fini(&r2[0]);
	fake_ok(&r2[0], 0, 1, 0);
	char *s3;
	assert_true(asprintf(&s3, "%s/three.db", dir) > 0);
	assert_int_equal(sweep_summary_write(&g, r2, 8, s3, "", err, sizeof err), -1);
	assert_non_null(strstr(err, "point 0 seed 1 given twice"));
	assert_int_equal(access(s3, F_OK), -1);
	/* The table: each mean in a readable unit (40 s of mean wait at point 2). */
	char *tab = NULL;
	size_t tlen = 0;
	FILE *tf = open_memstream(&tab, &tlen);
	assert_int_equal(sweep_print_table(&g, r1, 8, tf), 0);
	fclose(tf);
	if (!strstr(tab, "\n    2  1.4 ") || !strstr(strstr(tab, "\n    2  1.4 "), "  40.0 s  "))
		fail_msg("no '40.0 s' on point 2's line:\n%s", tab);
	free(tab);
	for (size_t k = 0; k < 8; k++) {
		sweep_result_fini(&r1[k]);
		sweep_result_fini(&r2[k]);
	}
	sweep_grid_fini(&g);
	free(s1);
	free(s2);
	free(s3);
	rm_tree(dir);
	free(dir);
}

/* ---- whole sweeps through the binary ----------------------------------------- */

/* The hetlab binary beside this test binary's tests/ directory (build or build-asan). */
static void hetlab_path(char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	assert_true(n > 0);
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	assert_non_null(slash);
	*slash = '\0';
	snprintf(out, len, "%s/../hetlab", self);
}

/* Runs `hetlab sweep FILE -j J --out OUT [MORE...]` (more: NULL-ended,
 * may be NULL), its stderr into errfile (NULL: /dev/null); returns its exit
 * status. */
static int run_sweep_more(const char *file, const char *jobs, const char *out,
                          const char *const *more, const char *errfile)
{
	char exe[PATH_MAX + 16];
	hetlab_path(exe, sizeof exe);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		int efd = errfile ? open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0666) : fd;
		dup2(fd, 1);
		dup2(efd, 2);
		const char *av[16] = { "hetlab", "sweep", file, "-j", jobs, "--out", out };
		for (size_t i = 0; more && more[i] && i < 8; i++)
			av[7 + i] = more[i];
		execv(exe, (char *const *)av);
		_exit(127);
	}
	int stt;
	assert_int_equal(waitpid(pid, &stt, 0), pid);
	assert_true(WIFEXITED(stt));
	return WEXITSTATUS(stt);
}

static int run_sweep(const char *file, const char *jobs, const char *out)
{
	return run_sweep_more(file, jobs, out, NULL, NULL);
}

static void test_resume_same_summary(void **st)
{
	(void)st;
	char *dir = make_tmpdir();
	/* Two days of the default workload; 2 x 2 points x 2 seeds. */
	const char *grid = "\"params\": {\"$.workload.synthetic.days\": [2], "
	                   "\"$.racks[3].count\": [1, 2], \"$.policy\": [\"fcfs\", \"easy\"]}}";
	char text[512];
	snprintf(text, sizeof text, "{\"seeds\": \"1-2\", %s", grid);
	char *full = write_file(dir, "full.json", text);
	snprintf(text, sizeof text, "{\"seeds\": [2], %s", grid);
	char *part = write_file(dir, "part.json", text);
	char *a, *b, *sa, *sb, *gone;
	assert_true(asprintf(&a, "%s/a", dir) > 0 && asprintf(&b, "%s/b", dir) > 0);
	assert_true(asprintf(&sa, "%s/summary.db", a) > 0 && asprintf(&sb, "%s/summary.db", b) > 0);
	assert_true(asprintf(&gone, "%s/point-3/seed-2.db", b) > 0);

	assert_int_equal(run_sweep(full, "3", a), 0);
	/* Interrupted: only seed 2 of every point ran, and one of those is lost. */
	assert_int_equal(run_sweep(part, "2", b), 0);
	assert_int_equal(unlink(gone), 0);
	assert_int_equal(unlink(sb), 0);
	assert_int_equal(run_sweep(full, "1", b), 0);
	const char *q[] = { "SELECT * FROM point", "SELECT * FROM result ORDER BY point, seed" };
	for (size_t i = 0; i < 2; i++) {
		char *d1 = dump_query(sa, q[i]), *d2 = dump_query(sb, q[i]);
		assert_string_equal(d1, d2);
		free(d1);
		free(d2);
	}
	char *n = dump_query(sa, "SELECT count(*), sum(status = 'ok'), "
	                         "sum(policy = 'fcfs'), count(mean_wait) FROM result");
	assert_string_equal(n, "1:8|1:8|1:4|1:8|\n");
	free(n);
	/* A changed sweep over the same directory is refused. */
	char *chg = write_file(dir, "chg.json", "{\"seeds\": \"1\", \"params\": {\"$.policy\": [\"easy\"]}}");
	assert_int_equal(run_sweep(chg, "1", a), 1);
	free(chg);
	free(full);
	free(part);
	free(a);
	free(b);
	free(sa);
	free(sb);
	free(gone);
	rm_tree(dir);
	free(dir);
}

/* Runs of uneven length (one and three days, FCFS and EASY) started
 * longest first: -j 1 and -j 2 give the same tables, metrics included. */
static void test_jobs_same_summary(void **st)
{
	(void)st;
	char *dir = make_tmpdir();
	char *f = write_file(dir, "u.json", "{\"seeds\": \"1-3\", \"params\": {"
	                     "\"$.workload.synthetic.days\": [1, 3], \"$.policy\": [\"fcfs\", \"easy\"]}}");
	char *a, *b, *sa, *sb;
	assert_true(asprintf(&a, "%s/a", dir) > 0 && asprintf(&b, "%s/b", dir) > 0);
	assert_true(asprintf(&sa, "%s/summary.db", a) > 0 && asprintf(&sb, "%s/summary.db", b) > 0);
	assert_int_equal(run_sweep(f, "1", a), 0);
	assert_int_equal(run_sweep(f, "2", b), 0);
	const char *q[] = { "SELECT * FROM point", "SELECT * FROM result ORDER BY point, seed",
		"SELECT * FROM metric ORDER BY point, seed, name", "SELECT npoint, nrun FROM sweep" };
	for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
		char *d1 = dump_query(sa, q[i]), *d2 = dump_query(sb, q[i]);
		assert_true(strlen(d1) > 0);
		assert_string_equal(d1, d2);
		free(d1);
		free(d2);
	}
	char *n = dump_query(sa, "SELECT count(*), sum(status = 'ok') FROM result");
	assert_string_equal(n, "1:12|1:12|\n");
	free(n);
	free(f);
	free(a);
	free(b);
	free(sa);
	free(sb);
	rm_tree(dir);
	free(dir);
}

static void test_failed_run_recorded(void **st)
{
	(void)st;
	char *dir = make_tmpdir();
	/* fcfs has no bf_max_job_test, so its run fails (exit 1); easy runs. */
	char *f = write_file(dir, "f.json",
	                     "{\"seeds\": [1], \"params\": {\"$.workload.synthetic.days\": [1], "
	                     "\"$.policy_params.bf_max_job_test\": [100], "
	                     "\"$.policy\": [\"fcfs\", \"easy\"]}}");
	char *out, *sum;
	assert_true(asprintf(&out, "%s/o", dir) > 0 && asprintf(&sum, "%s/summary.db", out) > 0);
	assert_int_equal(run_sweep(f, "2", out), 1);
	char *r = dump_query(sum, "SELECT point, seed, status, exit_status, note IS NULL, "
	                          "mean_wait IS NULL FROM result");
	assert_string_equal(r, "1:0|1:1|3:failed|1:1|1:0|1:1|\n1:1|1:1|3:ok|1:0|1:1|1:0|\n");
	free(r);
	free(f);
	free(out);
	free(sum);
	rm_tree(dir);
	free(dir);
}

/* ---- metrics the runs stored themselves ------------------------------------- */

static bool file_has(const char *path, const char *text)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char buf[8192];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (!strstr(buf, text))
		fprintf(stderr, "expected \"%s\" in:\n%s", text, buf);
	return strstr(buf, text) != NULL;
}

static int drop_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	const char *base = p + ftw->base;
	size_t n = strlen(base);
	if (flag != FTW_F || strncmp(base, "seed-", 5) != 0 || n < 4 || strcmp(base + n - 3, ".db") != 0)
		return 0;
	sqlite3 *db;
	assert_int_equal(sqlite3_open(p, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP TABLE run_metric", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	return 0;
}

/* Rows of table t in a and not in b, plus those in b and not in a (values
 * compared exactly, NULLs alike); -1 when t is empty in a. */
static long summary_diff(const char *a, const char *b, const char *t)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char *sql;
	assert_int_equal(sqlite3_open_v2(a, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_true(asprintf(&sql, "ATTACH '%s' AS b", b) > 0);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	free(sql);
	assert_true(asprintf(&sql, "SELECT (SELECT count(*) FROM main.%s), (SELECT count(*) FROM "
	                     "(SELECT * FROM main.%s EXCEPT SELECT * FROM b.%s)) + (SELECT count(*) "
	                     "FROM (SELECT * FROM b.%s EXCEPT SELECT * FROM main.%s))", t, t, t, t, t) > 0);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	long rows = (long)sqlite3_column_int64(st, 0), diff = (long)sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(sql);
	return rows > 0 ? diff : -1;
}

static void assert_same_summary(const char *a, const char *b)
{
	const char *t[] = { "point", "result", "metric" };
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		assert_int_equal(summary_diff(a, b, t[i]), 0);
}

/* The runs store their metrics (table run_metric) for the sweep's window;
 * the summary is the same, value for value, whether it reads them there or
 * computes them from the whole database (tables dropped, as in a run of an
 * older hetlab), and a merge with another window computes them again. */
static void test_stored_same_summary(void **st)
{
	(void)st;
	char *dir = make_tmpdir();
	char *f = write_file(dir, "s.json", "{\"seeds\": \"1-2\", \"params\": {"
	                     "\"$.workload.synthetic.days\": [1], \"$.policy\": [\"fcfs\", \"easy\"]}}");
	char *a, *b, *sa, *sb, *err, *keep, *warm;
	assert_true(asprintf(&a, "%s/a", dir) > 0 && asprintf(&b, "%s/b", dir) > 0);
	assert_true(asprintf(&sa, "%s/summary.db", a) > 0 && asprintf(&sb, "%s/summary.db", b) > 0);
	assert_true(asprintf(&err, "%s/err", dir) > 0 && asprintf(&keep, "%s/stored.db", dir) > 0 &&
	            asprintf(&warm, "%s/warm.db", dir) > 0);
	const char *stored = "[load] metrics of 4 runs: 4 from their run_metric table, 0 computed";
	const char *computed = "[load] metrics of 4 runs: 0 from their run_metric table, 4 computed";

	assert_int_equal(run_sweep_more(f, "2", a, NULL, err), 0);
	assert_true(file_has(err, stored));
	assert_int_equal(rename(sa, keep), 0);
	assert_int_equal(nftw(a, drop_one, 16, FTW_PHYS), 0);
	assert_int_equal(run_sweep_more(f, "1", a, NULL, err), 0);   /* all done: the summary only */
	assert_true(file_has(err, computed));
	assert_same_summary(keep, sa);

	const char *w6[] = { "--warmup", "6h", NULL }, *mg[] = { "--merge", NULL },
	           *mg6[] = { "--merge", "--warmup", "6h", NULL };
	assert_int_equal(run_sweep_more(f, "2", b, w6, err), 0);
	assert_true(file_has(err, stored));
	assert_int_equal(rename(sb, warm), 0);
	assert_true(summary_diff(keep, warm, "metric") > 0);   /* the window matters */
	assert_int_equal(run_sweep_more(f, "1", b, mg, err), 0);   /* stored for 6h, wanted whole */
	assert_true(file_has(err, computed));
	assert_same_summary(keep, sb);
	assert_int_equal(run_sweep_more(f, "1", b, mg6, err), 0);
	assert_true(file_has(err, stored));
	assert_same_summary(warm, sb);

	free(f);
	free(a);
	free(b);
	free(sa);
	free(sb);
	free(err);
	free(keep);
	free(warm);
	rm_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_column_name),
		cmocka_unit_test(test_seeds),
		cmocka_unit_test(test_grid_order),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_fixed_append),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_summary_order),
		cmocka_unit_test(test_resume_same_summary),
		cmocka_unit_test(test_failed_run_recorded),
		cmocka_unit_test(test_jobs_same_summary),
		cmocka_unit_test(test_stored_same_summary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
