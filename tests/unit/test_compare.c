/* compare: the statistics against hand computations, the verdicts, the
 * metrics of small run databases built with sqlite3 directly, and pairing
 * by seed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "analysis/compare.h"
#include "analysis/recorder.h"
#include "tests/testutil.h"

#define near(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

/* ---- statistics ------------------------------------------------------------ */

static void test_t_interval_by_hand(void **st)
{
	(void)st;
	/* d = 1 2 3 4 5: mean 3, s^2 = (4+1+0+1+4)/4 = 2.5, s = 1.5811388,
	 * s/sqrt(5) = 0.7071068; t_{0.975,4} = 2.7764451 (tables), so the
	 * half-width is 1.9632432 and the 95 % interval [1.0367568, 4.9632432].
	 * At 90 %: t_{0.95,4} = 2.1318468, half 1.5074433, [1.4925567, 4.5074433]. */
	const double d[] = { 1, 2, 3, 4, 5 };
	double lo, hi, mean, sd;
	compare_mean_sd(d, 5, &mean, &sd);
	near(mean, 3, 1e-12);
	near(sd, 1.5811388300841898, 1e-12);
	assert_int_equal(compare_t_interval(d, 5, 0.95, &lo, &hi), 0);
	near(lo, 1.0367568385, 1e-8);
	near(hi, 4.9632431615, 1e-8);
	assert_int_equal(compare_t_interval(d, 5, 0.90, &lo, &hi), 0);
	near(lo, 1.4925567, 1e-6);
	near(hi, 4.5074433, 1e-6);
	/* Two values -1, 3: mean 1, s = 2.8284271, se = 2; t_{0.975,1} = 12.706205:
	 * [-24.41241, 26.41241]. One value: no interval. */
	const double two[] = { -1, 3 };
	assert_int_equal(compare_t_interval(two, 2, 0.95, &lo, &hi), 0);
	near(lo, 1 - 2 * 12.706204736, 1e-6);
	near(hi, 1 + 2 * 12.706204736, 1e-6);
	assert_int_equal(compare_t_interval(two, 1, 0.95, &lo, &hi), -1);
	assert_true(isnan(lo) && isnan(hi));
}

static void test_skewness(void **st)
{
	(void)st;
	/* 0 x 9 and 10: mean 1, s = sqrt(90/9) = sqrt(10); sum (x - 1)^3 = -9 + 729
	 * = 720; skew = 720 / 10 / 10^1.5 = 2.2768399. */
	double d[10] = { 0 };
	d[9] = 10;
	near(compare_skewness(d, 10), 72 / sqrt(1000), 1e-12);
	const double sym[] = { -2, -1, 0, 1, 2 };
	near(compare_skewness(sym, 5), 0, 1e-12);
	const double flat[] = { 3, 3, 3 };
	near(compare_skewness(flat, 3), 0, 0);
}

static void test_bootstrap(void **st)
{
	(void)st;
	const double d[] = { -3.5, 1.25, 2, 4, 7.5, 9, 12, 0.5 };
	double mean, sd, lo, hi, lo2, hi2;
	compare_mean_sd(d, 8, &mean, &sd);
	assert_int_equal(compare_bootstrap_interval(d, 8, 0.95, COMPARE_BOOT_N, COMPARE_BOOT_SEED,
	                                            &lo, &hi), 0);
	assert_true(lo < mean && mean < hi);
	/* Inside the range of the data, and near the t interval for this
	 * roughly symmetric sample. */
	assert_true(lo > -3.5 && hi < 12);
	double tlo, thi;
	compare_t_interval(d, 8, 0.95, &tlo, &thi);
	near(lo, tlo, 2.0);
	near(hi, thi, 2.0);
	/* The same seed gives the same interval, bit for bit. */
	assert_int_equal(compare_bootstrap_interval(d, 8, 0.95, COMPARE_BOOT_N, COMPARE_BOOT_SEED,
	                                            &lo2, &hi2), 0);
	assert_true(lo2 == lo && hi2 == hi);
	/* Another seed gives another one; a narrower level a narrower one. */
	assert_int_equal(compare_bootstrap_interval(d, 8, 0.95, COMPARE_BOOT_N, 7, &lo2, &hi2), 0);
	assert_true(lo2 != lo || hi2 != hi);
	assert_int_equal(compare_bootstrap_interval(d, 8, 0.80, COMPARE_BOOT_N, COMPARE_BOOT_SEED,
	                                            &lo2, &hi2), 0);
	assert_true(lo2 > lo && hi2 < hi);
	/* A constant sample has the degenerate interval. */
	const double c[] = { 2, 2, 2, 2 };
	assert_int_equal(compare_bootstrap_interval(c, 4, 0.95, 100, 1, &lo, &hi), 0);
	assert_true(lo == 2 && hi == 2);
	assert_int_equal(compare_bootstrap_interval(c, 0, 0.95, 100, 1, &lo, &hi), -1);
}

static void test_wilcoxon_exact(void **st)
{
	(void)st;
	double w;
	size_t nz;
	int exact;
	/* n = 5 all positive: W+ = 15 is the largest of 2^5 = 32 equally likely
	 * sign patterns, so P(W+ >= 15) = 1/32 and p = 2/32 = 0.0625. */
	const double pos[] = { 0.5, 1, 2, 3, 8 };
	near(compare_wilcoxon(pos, 5, &w, &nz, &exact), 0.0625, 1e-15);
	near(w, 15, 0);
	assert_int_equal(nz, 5);
	assert_int_equal(exact, 1);
	/* The same with the signs flipped: W+ = 0, P(W+ <= 0) = 1/32. */
	const double neg[] = { -0.5, -1, -2, -3, -8 };
	near(compare_wilcoxon(neg, 5, &w, NULL, NULL), 0.0625, 1e-15);
	near(w, 0, 0);
	/* -1 2 3 4 5 6: W- = 1; the patterns with W- <= 1 are {} and {1}: 2/64,
	 * p = 4/64 = 0.0625. */
	const double one_neg[] = { -1, 2, 3, 4, 5, 6 };
	near(compare_wilcoxon(one_neg, 6, &w, NULL, NULL), 0.0625, 1e-15);
	near(w, 20, 0);
	/* Ties: 1 1 -2 3 3. |d| ranks 1.5 1.5 3 4.5 4.5; W+ = 12, W- = 3. Subsets
	 * of the ranks with sum <= 3: {}, {1.5a}, {1.5b}, {1.5a,1.5b}, {3}: 5 of
	 * 32, so p = 2 x 5/32 = 0.3125. */
	const double ties[] = { 1, 1, -2, 3, 3 };
	near(compare_wilcoxon(ties, 5, &w, NULL, NULL), 0.3125, 1e-15);
	near(w, 12, 0);
	/* Zeros are dropped (Wilcoxon): 0 1 2 3 4 5 is the n = 5 case. */
	const double zero[] = { 0, 1, 2, 3, 4, 5 };
	near(compare_wilcoxon(zero, 6, &w, &nz, NULL), 0.0625, 1e-15);
	assert_int_equal(nz, 5);
	/* 1 -1: W+ is 0, 1.5, 1.5 or 3; W+ = 1.5 has both tails 3/4: p = 1. */
	const double pm[] = { 1, -1 };
	near(compare_wilcoxon(pm, 2, NULL, NULL, NULL), 1, 0);
	/* Every difference 0: nothing to test, p = 1; no data: NaN. */
	const double zz[] = { 0, 0, 0 };
	near(compare_wilcoxon(zz, 3, NULL, &nz, NULL), 1, 0);
	assert_int_equal(nz, 0);
	assert_true(isnan(compare_wilcoxon(zz, 0, NULL, NULL, NULL)));
	/* n = 10 all positive: 2/1024. n = 20: 2/2^20, still exact. */
	double ten[20];
	for (int i = 0; i < 20; i++)
		ten[i] = i + 1;
	near(compare_wilcoxon(ten, 10, NULL, NULL, NULL), 2.0 / 1024, 1e-15);
	near(compare_wilcoxon(ten, 20, NULL, NULL, &exact), 2.0 / 1048576, 1e-18);
	assert_int_equal(exact, 1);
}

static void test_wilcoxon_normal(void **st)
{
	(void)st;
	double w;
	size_t nz;
	int exact;
	/* n = 25: -1 .. -5 and 6 .. 25. W+ = 325 - 15 = 310; mean n(n+1)/4 =
	 * 162.5; var n(n+1)(2n+1)/24 = 1381.25; z = (310 - 162.5 - 0.5) /
	 * sqrt(1381.25) = 147 / 37.165172 = 3.9553160; p = 2 Q(z) = 7.6433547e-5
	 * (erfc(z / sqrt 2)). */
	double d[25];
	for (int i = 0; i < 25; i++)
		d[i] = i < 5 ? -(i + 1) : i + 1;
	double p = compare_wilcoxon(d, 25, &w, &nz, &exact);
	assert_int_equal(exact, 0);
	assert_int_equal(nz, 25);
	near(w, 310, 0);
	near(p, 7.643354677e-5, 1e-12);
	/* With ties and zeros: five each of 1, 2, -3, 4, 5 and three zeros
	 * (dropped, n = 25). Midranks 3, 8, 13, 18, 23; W+ = 5 (3 + 8 + 18 + 23)
	 * = 260. Five groups of 5 ties: sum (t^3 - t) = 600, var = 1381.25 -
	 * 600/48 = 1368.75; z = (260 - 162.5 - 0.5) / sqrt(1368.75) = 2.6218610;
	 * p = 0.0087451083. */
	double t[28];
	const double v[5] = { 1, 2, -3, 4, 5 };
	for (int i = 0; i < 25; i++)
		t[i] = v[i / 5];
	t[25] = t[26] = t[27] = 0;
	p = compare_wilcoxon(t, 28, &w, &nz, &exact);
	assert_int_equal(exact, 0);
	assert_int_equal(nz, 25);
	near(w, 260, 0);
	near(p, 0.008745108299, 1e-11);
	double s[21];
	for (int i = 0; i < 21; i++)
		s[i] = i + 1;
	/* 1..21 (n = 21, normal): negate 1..14 (sum 105) and 21: W- = 126,
	 * W+ = 231 - 126 = 105, mean 115.5. */
	for (int i = 0; i < 14; i++)
		s[i] = -s[i];
	s[20] = -s[20];
	p = compare_wilcoxon(s, 21, &w, NULL, &exact);
	near(w, 105, 0);
	/* z = (10.5 - 0.5) / sqrt(21 22 43 / 24 = 827.75) = 0.3475761; p = 0.7281617. */
	near(p, 2 * 0.5 * erfc(10 / sqrt(827.75) / sqrt(2)), 1e-12);
	near(p, 0.72816, 1e-4);
}

static void test_verdicts(void **st)
{
	(void)st;
	/* Lower is better: an interval below 0 is better, above 0 worse. */
	assert_int_equal(compare_verdict_of(-3, -1, 0), COMPARE_BETTER);
	assert_int_equal(compare_verdict_of(1, 3, 0), COMPARE_WORSE);
	assert_int_equal(compare_verdict_of(-1, 3, 0), COMPARE_NO_DIFF);
	assert_int_equal(compare_verdict_of(0, 3, 0), COMPARE_NO_DIFF);   /* 0 inside */
	/* Higher is better (utilisations): the other way round. */
	assert_int_equal(compare_verdict_of(0.01, 0.03, 1), COMPARE_BETTER);
	assert_int_equal(compare_verdict_of(-0.03, -0.01, 1), COMPARE_WORSE);
	assert_int_equal(compare_verdict_of(NAN, NAN, 1), COMPARE_NA);
	assert_true(compare_metric_higher_better("core_util"));
	assert_true(compare_metric_higher_better("gpu_util{gpu=H100-SXM-80GB}"));
	assert_false(compare_metric_higher_better("mean_wait"));
	assert_false(compare_metric_higher_better("killed"));
	assert_string_equal(compare_verdict_name(COMPARE_NO_DIFF), "no significant difference");

	/* Through compare_stat_compute: B waits 1..5 s less than A, t interval. */
	const double a[] = { 10, 20, 30, 40, 50 }, b[] = { 9, 18, 27, 36, 45 };
	struct compare_stat s;
	assert_int_equal(compare_stat_compute(&s, "mean_wait", a, b, 5, 0.95), 0);
	assert_int_equal(s.n, 5);
	near(s.mean_diff, -3, 1e-12);
	near(s.rel_change, 27.0 / 30 - 1, 1e-12);
	assert_int_equal(s.method, COMPARE_CI_T);
	near(s.lo, -4.9632431615, 1e-8);
	near(s.hi, -1.0367568385, 1e-8);
	near(s.p, 0.0625, 1e-15);
	assert_int_equal(s.verdict, COMPARE_BETTER);
	/* The same as utilisations: higher is better, so B is worse. */
	assert_int_equal(compare_stat_compute(&s, "core_util", a, b, 5, 0.95), 0);
	assert_int_equal(s.verdict, COMPARE_WORSE);
	/* Skewed differences (0 x 9 and 10, skew 2.28) use the bootstrap; a NaN
	 * pair is left out. */
	double a2[11] = { 0 }, b2[11] = { 0 };
	b2[9] = 10;
	a2[10] = NAN;
	assert_int_equal(compare_stat_compute(&s, "makespan", a2, b2, 11, 0.95), 0);
	assert_int_equal(s.n, 10);
	assert_int_equal(s.method, COMPARE_CI_BOOTSTRAP);
	assert_true(s.lo == s.boot_lo && s.hi == s.boot_hi);
	assert_true(s.lo >= 0 && s.hi <= 10);
	/* Fewer than 2 pairs: no interval, no verdict. */
	assert_int_equal(compare_stat_compute(&s, "makespan", a, b, 1, 0.95), 0);
	assert_int_equal(s.method, COMPARE_CI_NONE);
	assert_int_equal(s.verdict, COMPARE_NA);
}

static void test_metric_names(void **st)
{
	(void)st;
	char canon[METRIC_NAME_MAX], err[256];
	/* The old per-class names are aliases of the labelled mean wait. */
	for (int c = 0; c < JOB_NCLASS; c++) {
		char old[64], want[64];
		snprintf(old, sizeof old, "wait_%s", job_class_name((enum job_class)c));
		snprintf(want, sizeof want, "mean_wait{class=%s}", job_class_name((enum job_class)c));
		assert_non_null(metric_parse(old, canon, sizeof canon, err, sizeof err));
		assert_string_equal(canon, want);
	}
	/* Every base parses, with its unit and direction. */
	for (int k = 0; metric_kinds[k].base; k++) {
		assert_ptr_equal(metric_parse(metric_kinds[k].base, canon, sizeof canon, err, sizeof err),
		                 &metric_kinds[k]);
		assert_true(metric_kinds[k].unit[0] != '\0');
	}
	assert_non_null(metric_parse("p95_wait{class=training}", canon, sizeof canon, err, sizeof err));
	assert_int_equal(metric_direction("p95_wait{class=training}"), METRIC_LOWER);
	assert_int_equal(metric_direction("gpu_util{gpu=H100-SXM-80GB}"), METRIC_HIGHER);
	assert_string_equal(metric_unit("it_energy_kwh"), "kWh");
	assert_null(metric_parse("nope", canon, sizeof canon, err, sizeof err));
	assert_non_null(strstr(err, "unknown metric 'nope'"));
	assert_null(metric_parse("makespan{class=dev}", canon, sizeof canon, err, sizeof err));
	assert_non_null(strstr(err, "makespan takes no label"));
	assert_null(metric_parse("p95_wait{gpu=x}", canon, sizeof canon, err, sizeof err));
	assert_non_null(strstr(err, "takes the labels class, tenant"));
	assert_null(metric_parse("p95_wait{class}", canon, sizeof canon, err, sizeof err));
	assert_int_equal(compare_format_parse("html"), COMPARE_HTML);
	assert_int_equal(compare_format_parse("xml"), -1);
}

/* ---- run databases ------------------------------------------------------------ */

static void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "sql: %s: %s\n", sql, msg);
		sqlite3_free(msg);
		fail();
	}
}

/* A results file with the tables and columns compare reads. `jobs` is
 * VALUES rows (class, state, submit_us, start_us, end_us, cores, gpus). */
static void make_db(const char *path, const char *seed, const char *policy, const char *jobs,
                    int schema)
{
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	char sql[2048];
	exec(db, "CREATE TABLE meta(key TEXT, value TEXT);"
	         "CREATE TABLE run(scenario TEXT, policy TEXT, seed, total_cores INTEGER,"
	         " total_gpus INTEGER);"
	         "CREATE TABLE job(id INTEGER PRIMARY KEY, class TEXT, state TEXT, submit_us INTEGER,"
	         " start_us INTEGER, end_us INTEGER, cores INTEGER, gpus INTEGER);"
	         "CREATE TABLE event(seq INTEGER PRIMARY KEY);"
	         "CREATE TABLE sample(t_us INTEGER);");
	snprintf(sql, sizeof sql, "INSERT INTO meta VALUES ('schema_version', '%d');"
	         "INSERT INTO run VALUES ('tiny', '%s', %s, 10, 2);", schema, policy, seed);
	exec(db, sql);
	snprintf(sql, sizeof sql, "INSERT INTO job(class, state, submit_us, start_us, end_us, cores,"
	         " gpus) VALUES %s;", jobs);
	exec(db, sql);
	sqlite3_close(db);
}

/* Four jobs on 10 cores, 2 GPUs (times in s):
 *   training done   submit 0   start 0    end 100  4 cores 1 GPU
 *   batch    done   submit 10  start 40   end 45   2 cores
 *   batch    killed submit 20  (pending)  end 20
 *   training done   submit 50  start 150  end 250  10 cores 2 GPUs
 * waits 0 30 100: mean 43.333, p95 = 30 + 0.9 (100 - 30) = 93 (h = 1.9);
 * JCT 100 35 0 200: mean 83.75; bounded slowdown 100/100 = 1, 35/10 = 3.5,
 * 200/100 = 2: mean 2.1667; makespan 250 - 0 = 250; core-s 400 + 10 + 1000
 * = 1410, 1410 / (10 x 250) = 0.564; GPU-s 100 + 200 = 300, 300 / (2 x 250)
 * = 0.6; killed 1; wait_training (0 + 100) / 2 = 50, wait_batch 30, no
 * inference or dev jobs. */
static const char tiny_jobs[] =
	"('training', 'done', 0, 0, 100000000, 4, 1),"
	"('batch', 'done', 10000000, 40000000, 45000000, 2, 0),"
	"('batch', 'killed', 20000000, NULL, 20000000, 0, 0),"
	"('training', 'done', 50000000, 150000000, 250000000, 10, 2)";

static void test_run_metrics(void **st)
{
	(void)st;
	char *path = tu_tmpath(".db"), err[512];
	make_db(path, "7", "fcfs", tiny_jobs, 1);
	struct compare_run r;
	if (compare_run_load(path, NULL, &r, err, sizeof err))
		fail_msg("%s", err);
	assert_string_equal(r.seed, "7");
	assert_string_equal(r.policy, "fcfs");
	near(metric_get(&r.m, "mean_wait"), 130.0 / 3, 1e-9);
	near(metric_get(&r.m, "p95_wait"), 93, 1e-9);
	near(metric_get(&r.m, "mean_jct"), 83.75, 1e-9);
	near(metric_get(&r.m, "mean_bsld"), 6.5 / 3, 1e-12);
	near(metric_get(&r.m, "core_util"), 0.564, 1e-12);
	near(metric_get(&r.m, "gpu_util"), 0.6, 1e-12);
	near(metric_get(&r.m, "makespan"), 250, 1e-9);
	near(metric_get(&r.m, "killed"), 1, 0);
	near(metric_get(&r.m, "wait_training"), 50, 1e-9);
	near(metric_get(&r.m, "mean_wait{class=batch}"), 30, 1e-9);
	assert_true(isnan(metric_get(&r.m, "mean_wait{class=inference}")));
	assert_true(isnan(metric_get(&r.m, "wait_dev")));
	compare_run_fini(&r);
	unlink(path);

	/* A window: until the last arrival (50 s), the job metrics count the
	 * jobs submitted in [0, 50], the GPU-seconds those in [0, 50]:
	 * training 1 GPU x 50 s over 2 GPUs x 50 s = 0.5. A warm-up of 15 s
	 * leaves the killed batch job and the second training job (2 jobs). */
	make_db(path, "7", "fcfs", tiny_jobs, 1);
	struct metric_window w = { .until = METRIC_UNTIL_ARRIVALS, .given = true };
	if (compare_run_load(path, &w, &r, err, sizeof err))
		fail_msg("%s", err);
	near(metric_get(&r.m, "gpu_util"), 0.5, 1e-12);
	near(metric_get(&r.m, "jobs"), 4, 0);
	assert_true(r.m.t1_us == 50000000);
	compare_run_fini(&r);
	w = (struct metric_window){ .warmup_s = 15, .given = true };
	if (compare_run_load(path, &w, &r, err, sizeof err))
		fail_msg("%s", err);
	near(metric_get(&r.m, "jobs"), 2, 0);
	near(metric_get(&r.m, "killed"), 1, 0);
	near(metric_get(&r.m, "mean_wait"), 100, 1e-9);
	compare_run_fini(&r);
	unlink(path);

	/* A newer schema is refused with the file's name. */
	make_db(path, "7", "fcfs", tiny_jobs, RECORDER_SCHEMA_VERSION + 1);
	assert_int_equal(compare_run_load(path, NULL, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, path));
	char newer[32];
	snprintf(newer, sizeof newer, "schema version %d", RECORDER_SCHEMA_VERSION + 1);
	assert_non_null(strstr(err, newer));
	unlink(path);
	/* Not a database. */
	FILE *f = fopen(path, "w");
	fputs("hello\n", f);
	fclose(f);
	assert_int_equal(compare_run_load(path, NULL, &r, err, sizeof err), -1);
	assert_non_null(strstr(err, path));
	unlink(path);
	free(path);
}

/* A directory of runs: seed s shifts every time by s seconds, and policy
 * "slow" adds 10 s to each start and end. */
static char *make_dir(const char *policy, const int *seeds, int n)
{
	char *dir = tu_tmpath("");
	assert_int_equal(mkdir(dir, 0700), 0);
	for (int i = 0; i < n; i++) {
		char path[512], seed[32], jobs[1024];
		long long s = seeds[i] * 1000000LL, late = strcmp(policy, "slow") == 0 ? 10000000 : 0;
		snprintf(path, sizeof path, "%s/seed-%d.db", dir, seeds[i]);
		snprintf(seed, sizeof seed, "%d", seeds[i]);
		snprintf(jobs, sizeof jobs,
		         "('batch', 'done', %lld, %lld, %lld, 4, 0),"
		         "('dev', 'done', %lld, %lld, %lld, 2, 1)",
		         s, s + late + s, s + late + s + 50000000,
		         2 * s, 2 * s + late, 2 * s + late + 20000000);
		make_db(path, seed, policy, jobs, 1);
	}
	/* Files that are not *.db are ignored. */
	char note[512];
	snprintf(note, sizeof note, "%s/notes.txt", dir);
	FILE *f = fopen(note, "w");
	fputs("not a run\n", f);
	fclose(f);
	return dir;
}

static void remove_dir(char *dir)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(dir);
}

static char *print_to_string(const struct compare_result *res, enum compare_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(compare_print(res, fmt, f), 0);
	fclose(f);
	return buf;
}

static void test_pairing(void **st)
{
	(void)st;
	const int sa[] = { 10, 1, 2, 3 }, sb[] = { 2, 3, 4, 10 };
	char *da = make_dir("fast", sa, 4), *db = make_dir("slow", sb, 4), err[512];
	struct compare_side a, b;
	assert_int_equal(compare_side_load(da, NULL, &a, err, sizeof err), 0);
	assert_int_equal(compare_side_load(db, NULL, &b, err, sizeof err), 0);
	assert_int_equal(a.nrun, 4);
	/* Sorted numerically: 1 2 3 10. */
	assert_string_equal(a.run[0].seed, "1");
	assert_string_equal(a.run[3].seed, "10");

	struct compare_result res;
	const char *m[] = { "mean_wait", "core_util" };
	assert_int_equal(compare_build(&a, &b, m, 2, 0.95, &res, err, sizeof err), 0);
	assert_int_equal(res.npair, 3);
	assert_string_equal(res.pair_seed[0], "2");
	assert_string_equal(res.pair_seed[1], "3");
	assert_string_equal(res.pair_seed[2], "10");
	assert_int_equal(res.nonly_a, 1);
	assert_string_equal(res.only_a[0], "1");
	assert_int_equal(res.nonly_b, 1);
	assert_string_equal(res.only_b[0], "4");
	assert_int_equal(res.nstat, 2);
	/* Seed s: A waits (s + 0) / 2 s, B waits (s + 10 + 10) / 2 s, so
	 * d = 10 s whatever s: the interval is [10, 10] and B is worse. */
	const struct compare_stat *w = &res.stat[0];
	assert_string_equal(w->metric, "mean_wait");
	assert_int_equal(w->n, 3);
	near(w->mean_diff, 10, 1e-9);
	near(w->lo, 10, 1e-9);
	near(w->hi, 10, 1e-9);
	near(w->p, 0.25, 1e-15);   /* n = 3 all positive: 2/8 */
	assert_int_equal(w->verdict, COMPARE_WORSE);
	/* Warnings: the left-out seeds, few pairs, and a Wilcoxon test that
	 * cannot reach 0.05 with 3 pairs (min p = 0.25). */
	int only_a = 0, only_b = 0, few = 0, wil = 0;
	for (size_t i = 0; i < res.nwarning; i++) {
		only_a |= strstr(res.warning[i], "only in A (left out): 1") != NULL;
		only_b |= strstr(res.warning[i], "only in B (left out): 4") != NULL;
		few |= strstr(res.warning[i], "only 3 pairs") != NULL;
		wil |= strstr(res.warning[i], "cannot go below p = 0.25") != NULL;
	}
	assert_true(only_a && only_b && few && wil);

	/* The three outputs. */
	char *text = print_to_string(&res, COMPARE_TEXT);
	assert_non_null(strstr(text, "mean_wait"));
	assert_non_null(strstr(text, "worse"));
	assert_non_null(strstr(text, "(2-3,10)"));
	/* Readable units: the waits in s with their unit, the interval in one. */
	assert_non_null(strstr(text, "   2.50 s       12.5 s       10.0 s   +400.0 %"));
	assert_non_null(strstr(text, "[10.0, 10.0] s"));
	free(text);
	char *js = print_to_string(&res, COMPARE_JSON);
	json_error_t jerr;
	json_t *root = json_loads(js, 0, &jerr);
	assert_non_null(root);
	assert_int_equal(json_integer_value(json_object_get(root, "pairs")), 3);
	json_t *m0 = json_array_get(json_object_get(root, "metrics"), 0);
	assert_string_equal(json_string_value(json_object_get(m0, "verdict")), "worse");
	assert_int_equal(json_integer_value(json_array_get(json_object_get(root, "only_b"), 0)), 4);
	json_decref(root);
	free(js);
	char *html = print_to_string(&res, COMPARE_HTML);
	assert_non_null(strstr(html, "<table>"));
	assert_non_null(strstr(html, "<tr class=\"worse\">"));
	assert_non_null(strstr(html, "<td class=\"num\">10.0 s</td><td class=\"num\">+"));
	assert_non_null(strstr(html, "<td class=\"num\">[10.0, 10.0] s</td>"));
	assert_null(strstr(html, "http"));     /* self-contained */
	assert_null(strstr(html, "<script"));
	free(html);
	compare_result_fini(&res);

	/* Every metric some run defines: no inference/training waits here. */
	assert_int_equal(compare_build(&a, &b, NULL, 0, 0.95, &res, err, sizeof err), 0);
	int seen_dev = 0, seen_train = 0;
	for (size_t i = 0; i < res.nstat; i++) {
		seen_dev |= strcmp(res.stat[i].metric, "mean_wait{class=dev}") == 0;
		seen_train |= strcmp(res.stat[i].metric, "mean_wait{class=training}") == 0;
	}
	assert_true(seen_dev && !seen_train);
	compare_result_fini(&res);
	compare_side_fini(&b);

	/* One seed in common is too few. */
	const int one[] = { 3, 7 };
	char *dc = make_dir("slow", one, 2);
	assert_int_equal(compare_side_load(dc, NULL, &b, err, sizeof err), 0);
	assert_int_equal(compare_build(&a, &b, NULL, 0, 0.95, &res, err, sizeof err), -1);
	assert_non_null(strstr(err, "1 seed in common"));
	compare_side_fini(&b);
	remove_dir(dc);

	/* Two files with the same seed in one directory. */
	char dup[600];
	snprintf(dup, sizeof dup, "%s/again.db", db);
	make_db(dup, "3", "slow", tiny_jobs, 1);
	assert_int_equal(compare_side_load(db, NULL, &b, err, sizeof err), -1);
	assert_non_null(strstr(err, "both hold seed 3"));

	compare_side_fini(&a);
	remove_dir(da);
	remove_dir(db);
	/* A directory without runs. */
	char *empty = tu_tmpath("");
	assert_int_equal(mkdir(empty, 0700), 0);
	assert_int_equal(compare_side_load(empty, NULL, &a, err, sizeof err), -1);
	assert_non_null(strstr(err, "no run databases"));
	remove_dir(empty);
}

/* The same jobs under another scenario name pair without a warning; other
 * jobs (another workload) warn, naming the seed; the labels say what differs. */
static void test_workload_check(void **st)
{
	(void)st;
	const int seeds[] = { 1, 2 };
	char *da = make_dir("fast", seeds, 2), *db = make_dir("fast", seeds, 2), err[512];
	char path[600];
	/* B: seed 1 renamed (same jobs); seed 2 with one more job. */
	snprintf(path, sizeof path, "%s/seed-1.db", db);
	sqlite3 *h;
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	exec(h, "UPDATE run SET scenario = 'renamed'");
	sqlite3_close(h);
	struct compare_side a, b;
	struct compare_result res;
	const char *m[] = { "mean_wait" };
	assert_int_equal(compare_side_load(da, NULL, &a, err, sizeof err), 0);
	assert_int_equal(compare_side_load(db, NULL, &b, err, sizeof err), 0);
	assert_int_equal(compare_build(&a, &b, m, 1, 0.95, &res, err, sizeof err), 0);
	for (size_t i = 0; i < res.nwarning; i++)
		assert_null(strstr(res.warning[i], "do not share"));
	compare_result_fini(&res);
	compare_side_fini(&b);
	snprintf(path, sizeof path, "%s/seed-2.db", db);
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	exec(h, "INSERT INTO job(class, state, submit_us, start_us, end_us, cores, gpus) VALUES ('dev', 'done', 1, 1, 2, 1, 0)");
	sqlite3_close(h);
	assert_int_equal(compare_side_load(db, NULL, &b, err, sizeof err), 0);
	assert_int_equal(compare_build(&a, &b, m, 1, 0.95, &res, err, sizeof err), 0);
	int warned = 0, differs = 0;
	for (size_t i = 0; i < res.nwarning; i++)
		warned |= strstr(res.warning[i], "seed 2: the job tables of A and B differ") != NULL;
	for (size_t i = 0; i < res.ndiffers; i++)
		differs |= strstr(res.differs[i], "scenario: tiny -> mixed") != NULL;
	assert_true(warned && differs);
	compare_result_fini(&res);
	compare_side_fini(&a);
	compare_side_fini(&b);
	remove_dir(da);
	remove_dir(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t_interval_by_hand),
		cmocka_unit_test(test_skewness),
		cmocka_unit_test(test_bootstrap),
		cmocka_unit_test(test_wilcoxon_exact),
		cmocka_unit_test(test_wilcoxon_normal),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_metric_names),
		cmocka_unit_test(test_workload_check),
		cmocka_unit_test(test_run_metrics),
		cmocka_unit_test(test_pairing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
