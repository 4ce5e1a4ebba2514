/* compact: finished jobs leave the engine's tables (sim_compact, for a
 * live daemon that runs for months) and the run decides exactly as if they
 * had stayed. Every policy, on scenarios that exercise its state (the
 * embedded default with its four classes, quotas, preemption and power;
 * hetero with shared GPUs and storage; health-stress with faults and the
 * health monitor), is run twice: once as is, once compacted after every
 * few steps. Every recorded event (its job by number, not by index) and
 * every ended job's record must be byte-identical, and compaction must
 * have dropped jobs. A policy that keeps a job id it does not renumber, an
 * engine table left out, or a placement drawn by index rather than by
 * number makes them differ. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis/recorder.h"
#include "config/runasm.h"
#include "tests/testutil.h"
#include "tests/unit/tape.h"

static void on_end(void *ctx, const struct sim *s, const struct job *j)
{
	(void)s;
	put(ctx, "end %lld %d %d %lld %lld %lld %.6f %.6f %u %u\n", (long long)j->num, j->state, j->reason,
	    (long long)j->submit_us, (long long)j->start_us, (long long)j->end_us, j->gpu_s, j->core_s,
	    j->restarts, j->preemptions);
}

/* The run of scenario `path` (NULL: the embedded default) under `policy`
 * (placement: NULL the scenario's), compacted after every `every` steps (0
 * never): its tape; *gone the jobs that left. */
static double scale;   /* > 0: arrivals scaled by it (--scale-rate) */
static bool quotas;    /* every tenant gets GPU- and core-hour quotas over a day */

static char *tape_of(const char *path, const char *policy, const char *placement, int every, int64_t *gone)
{
	struct scenario sc;
	struct run r;
	char err[1024] = "";
	if (scenario_load(path, &sc, err, sizeof err))
		fail_msg("%s", err);
	for (int32_t i = 0; quotas && i < sc.org.nt; i++)
		sc.org.t[i].quota = (struct quota){ .gpu_hours = 400, .core_hours = 8000, .window_us = 86400 * SIMTIME_SEC };
	if (placement)
		snprintf(sc.place.strategy, sizeof sc.place.strategy, "%s", placement);
	struct run_opts o = { .policy = policy, .traces_dir = tu_traces(), .scale_rate = scale > 0 ? &scale : NULL };
	if (run_assemble(&r, &sc, &o, err, sizeof err))
		fail_msg("%s", err);
	struct tape tp = { .s = r.s };
	struct sim_recorder rec = { .ctx = &tp, .event = on_event, .job_end = on_end };
	sim_set_recorder(r.s, &rec);
	int32_t *map = NULL;
	int rc;
	long steps = 0;
	while ((rc = sim_step(r.s)) > 0) {
		if (++steps > 2000000)   /* a broken renumbering may loop: fail, do not hang */
			fail_msg("%s %s: over %ld steps", path ? path : "default", policy, steps - 1);
		if (every > 0 && steps % every == 0) {
			map = realloc(map, ((size_t)r.s->njobs + 1) * sizeof *map);
			assert_non_null(map);
			if (sim_compact(r.s, map, NULL, NULL) < 0)
				fail_msg("%s %s: %s", path ? path : "default", policy, r.s->err);
		}
	}
	if (rc < 0)
		fail_msg("%s %s: %s", path ? path : "default", policy, r.s->err);
	for (int32_t i = 0; i < r.s->njobs; i++) {
		const struct job *j = &r.s->jobs[i];
		if (j->state != JOB_DONE && j->state != JOB_FAILED && j->state != JOB_KILLED)
			put(&tp, "left %lld %d %lld %lld\n", (long long)j->num, j->state, (long long)j->start_us,
			    (long long)j->end_us);
	}
	*gone = r.s->ngone;
	free(map);
	run_free(&r);
	scenario_free(&sc);
	return tp.buf ? tp.buf : strdup("");
}

static void same(const char *path, const char *policy, const char *placement)
{
	int64_t g0 = 0, g1 = 0, g2 = 0;
	char *a = tape_of(path, policy, placement, 0, &g0);
	char *b = tape_of(path, policy, placement, 1, &g1);
	char *c = tape_of(path, policy, placement, 13, &g2);
	assert_true(g0 == 0);
	assert_true(g1 > 100 && g2 > 100);
	const char *x[2] = { b, c };
	for (int k = 0; k < 2; k++) {
		if (strcmp(a, x[k]) == 0)
			continue;
		size_t i = 0;
		while (a[i] && a[i] == x[k][i])
			i++;
		size_t l = i;
		while (l > 0 && a[l - 1] != '\n')
			l--;
		fail_msg("%s, %s%s%s: compacted (every %d steps) differs at byte %zu:\n  as is:     %.160s\n  compacted: %.160s",
		         path ? path : "the default scenario", policy, placement ? " with " : "",
		         placement ? placement : "", k ? 13 : 1, i, a + l, x[k] + l);
	}
	assert_true(strlen(a) > 10000);
	free(a);
	free(b);
	free(c);
}

static char *scn(const char *rel)
{
	static char path[4][PATH_MAX];
	static int k;
	char *p = path[k++ & 3];
	snprintf(p, PATH_MAX, "%s/%s", tu_root(), rel);
	return p;
}

static const char *const policies[] = { "fcfs", "easy", "conservative", "fairshare", "tiered", "slurm" };

static void test_default(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof policies / sizeof *policies; k++)
		same(NULL, policies[k], NULL);
}

static void test_hetero(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof policies / sizeof *policies; k++)
		same(scn("scenarios/hetero.json"), policies[k], NULL);
}

static void test_faults(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof policies / sizeof *policies; k++)
		same(scn("tests/scenario/data/health-stress.json"), policies[k], NULL);
}

/* Under pressure (guian at 1.4 times its load: ten tenants with shares,
 * queues hours long), where the order of the queue and the fair-share
 * usage of every run decide who starts. */
static void test_pressure(void **state)
{
	(void)state;
	scale = 1.4;
	for (size_t k = 0; k < sizeof policies / sizeof *policies; k++)
		same(scn("scenarios/guian.json"), policies[k], NULL);
	scale = 0;
}

/* Quotas over a day (tiered): jobs held and released as ended jobs leave
 * the window, the quota log compacted with the table. */
static void test_quotas(void **state)
{
	(void)state;
	scale = 1.4;
	quotas = true;
	same(scn("scenarios/guian.json"), "tiered", NULL);
	int64_t gone;
	char *tp = tape_of(scn("scenarios/guian.json"), "tiered", NULL, 0, &gone);
	assert_non_null(strstr(tp, " hold "));
	assert_non_null(strstr(tp, " release "));
	free(tp);
	quotas = false;
	scale = 0;
}

/* The results file of a compacted run: its rows name jobs by number and
 * a row held back keeps a copy of its job (recorder_copy_held), so every
 * table of the run's results is the same, row for row, as the run's never
 * compacted (the daemon's results.db is written this way). */
static char *table_text(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	sqlite3_stmt *q = NULL;
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
	struct tape t = { 0 };
	while (sqlite3_step(q) == SQLITE_ROW) {
		for (int c = 0; c < sqlite3_column_count(q); c++) {
			const unsigned char *v = sqlite3_column_text(q, c);
			put(&t, "%s|", v ? (const char *)v : "NULL");
		}
		put(&t, "\n");
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	return t.buf ? t.buf : strdup("");
}

static void results_of(const char *path, const char *policy, int every, const char *out)
{
	struct scenario sc;
	struct run r;
	char err[1024] = "";
	if (scenario_load(path, &sc, err, sizeof err))
		fail_msg("%s", err);
	struct run_opts o = { .policy = policy, .traces_dir = tu_traces(), .out = out, .version = "test",
	                      .scale_rate = scale > 0 ? &scale : NULL };
	if (run_assemble(&r, &sc, &o, err, sizeof err))
		fail_msg("%s", err);
	if (every > 0)
		recorder_copy_held(r.rec);
	int32_t *map = NULL;
	long steps = 0;
	int rc;
	while ((rc = sim_step(r.s)) > 0)
		if (every > 0 && ++steps % every == 0) {
			map = realloc(map, ((size_t)r.s->njobs + 1) * sizeof *map);
			assert_non_null(map);
			assert_true(sim_compact(r.s, map, NULL, NULL) >= 0);
		}
	assert_int_equal(rc, 0);
	/* as sim_run ends a run: the jobs not ended are reported as they are */
	for (int32_t i = 0; i < r.s->next_submit; i++)
		if (!job_state_final((enum job_state)r.s->jobs[i].state))
			r.s->rec.job_end(r.s->rec.ctx, r.s, &r.s->jobs[i]);
	if (every > 0)
		assert_true(r.s->ngone > 100);
	if (run_finish(&r, err, sizeof err))
		fail_msg("%s", err);
	free(map);
	run_free(&r);
	scenario_free(&sc);
}

static void test_results(void **state)
{
	(void)state;
	char *a = tu_tmpath(".db"), *b = tu_tmpath(".db");
	scale = 1.4;
	results_of(scn("scenarios/guian.json"), "tiered", 0, a);
	results_of(scn("scenarios/guian.json"), "tiered", 3, b);
	scale = 0;
	static const char *const sql[] = { "SELECT * FROM job ORDER BY rowid", "SELECT * FROM event ORDER BY rowid",
	                                   "SELECT * FROM sample ORDER BY rowid" };
	for (size_t k = 0; k < sizeof sql / sizeof *sql; k++) {
		char *x = table_text(a, sql[k]), *y = table_text(b, sql[k]);
		assert_true(strlen(x) > 1000);
		if (strcmp(x, y) != 0) {
			size_t i = 0;
			while (x[i] && x[i] == y[i])
				i++;
			fail_msg("%s: compacted differs at byte %zu: %.120s | %.120s", sql[k], i, x + i, y + i);
		}
		free(x);
		free(y);
	}
	unlink(a);
	unlink(b);
	free(a);
	free(b);
}

/* Placements that keep state or draw by job: random, FGD, topology, power. */
static void test_placements(void **state)
{
	(void)state;
	static const char *const pl[] = { "random", "fgd", "topology", "power", "best-fit", "gpu-clustering" };
	for (size_t k = 0; k < sizeof pl / sizeof *pl; k++)
		same(scn("scenarios/hetero.json"), "easy", pl[k]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_hetero),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_pressure),
		cmocka_unit_test(test_quotas),
		cmocka_unit_test(test_results),
		cmocka_unit_test(test_placements),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
