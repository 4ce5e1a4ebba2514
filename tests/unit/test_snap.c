/* snap: a run saved between steps (sim_snap_save) and loaded into a run
 * set up afresh from the same scenario (sim_snap_load, the policy freshly
 * initialised) goes on exactly as the run never interrupted. Every policy
 * on scenarios that exercise its state (the embedded default with its four
 * classes, quotas, preemption and power; hetero with shared GPUs, MIG and
 * storage; health-stress with faults and the health monitor; guian at 1.4
 * times its load with ten tenants' fair-share; tiered with quotas over a
 * day), compacted as a live daemon compacts (sim_compact) or not, is run
 * once as is and once moved to a fresh run at several steps: every
 * recorded event (its job by number) and every ended job's record must be
 * byte-identical. An engine table, a policy field or an event left out of
 * the snapshot makes them differ. A snapshot of another scenario, policy
 * or seed, one cut short and one with a byte changed are refused with the
 * reason, the run left as it was. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/runasm.h"
#include "sim/snap.h"
#include "tests/testutil.h"
#include "tests/unit/tape.h"

static void on_end(void *ctx, const struct sim *s, const struct job *j)
{
	(void)s;
	put(ctx, "end %lld %d %d %lld %lld %lld %.6f %.6f %.6f %u %u\n", (long long)j->num, j->state, j->reason,
	    (long long)j->submit_us, (long long)j->start_us, (long long)j->end_us, j->gpu_s, j->core_s,
	    j->energy_j, j->restarts, j->preemptions);
}

static void on_sample(void *ctx, const struct sim_sample *m)
{
	put(ctx, "sample %lld %lld %lld %lld %lld %d %d %.17g", (long long)m->t, (long long)m->cores_alloc,
	    (long long)m->cores_total, (long long)m->gpus_alloc, (long long)m->gpus_total, m->pending, m->running,
	    m->power_w);
	for (int32_t k = 0; k < m->nracks; k++)
		put(ctx, " %.17g", m->rack_power_w[k]);
	put(ctx, "\n");
}

static double scale;   /* > 0: arrivals scaled by it (--scale-rate) */
static bool quotas;    /* every tenant gets GPU- and core-hour quotas over a day */

struct setup {
	struct scenario sc;
	struct run r;
};

static void setup_run(struct setup *u, const char *path, const char *policy, struct tape *tp)
{
	char err[1024] = "";
	memset(u, 0, sizeof *u);
	if (scenario_load(path, &u->sc, err, sizeof err))
		fail_msg("%s", err);
	for (int32_t i = 0; quotas && i < u->sc.org.nt; i++)
		u->sc.org.t[i].quota = (struct quota){ .gpu_hours = 400, .core_hours = 8000, .window_us = 86400 * SIMTIME_SEC };
	struct run_opts o = { .policy = policy, .traces_dir = tu_traces(), .scale_rate = scale > 0 ? &scale : NULL };
	if (run_assemble(&u->r, &u->sc, &o, err, sizeof err))
		fail_msg("%s", err);
	tp->s = u->r.s;
	struct sim_recorder rec = { .ctx = tp, .event = on_event, .job_end = on_end, .sample = on_sample };
	sim_set_recorder(u->r.s, &rec);
}

static void free_run(struct setup *u)
{
	run_free(&u->r);
	scenario_free(&u->sc);
}

#define FP 0x5eed5eedull

/* The run of scenario `path` (NULL: the embedded default) under `policy`,
 * compacted after every `every` steps (0 never), moved to a fresh run
 * through a snapshot at each of the steps in at[] (0-terminated): its
 * tape. */
static char *tape_of(const char *path, const char *policy, int every, const int *at, int *moved)
{
	struct setup u[2];
	int cur = 0;
	struct tape tp = { 0 };
	setup_run(&u[cur], path, policy, &tp);
	int32_t *map = NULL;
	int rc;
	long steps = 0;
	*moved = 0;
	while ((rc = sim_step(u[cur].r.s)) > 0) {
		struct sim *s = u[cur].r.s;
		if (++steps > 2000000)
			fail_msg("%s %s: over %ld steps", path ? path : "default", policy, steps - 1);
		if (every > 0 && steps % every == 0) {
			map = realloc(map, ((size_t)s->njobs + 1) * sizeof *map);
			assert_non_null(map);
			if (sim_compact(s, map, NULL, NULL) < 0)
				fail_msg("%s %s: %s", path ? path : "default", policy, s->err);
		}
		if (at && *at && steps == *at) {
			at++;
			struct snapw w = { 0 };
			if (sim_snap_save(s, FP, &w))
				fail_msg("%s %s: saving: %s", path ? path : "default", policy, s->err);
			struct tape dummy = { 0 };
			setup_run(&u[!cur], path, policy, &dummy);
			free(dummy.buf);
			struct sim *t = u[!cur].r.s;
			if (sim_snap_load(t, FP, w.buf, w.n))
				fail_msg("%s %s: loading at step %ld: %s", path ? path : "default", policy, steps, t->err);
			free(w.buf);
			free_run(&u[cur]);
			cur = !cur;
			tp.s = t;
			struct sim_recorder rec = { .ctx = &tp, .event = on_event, .job_end = on_end, .sample = on_sample };
			sim_set_recorder(t, &rec);
			++*moved;
		}
	}
	struct sim *s = u[cur].r.s;
	if (rc < 0)
		fail_msg("%s %s: %s", path ? path : "default", policy, s->err);
	for (int32_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		if (!job_state_final((enum job_state)j->state))
			put(&tp, "left %lld %d %lld %lld\n", (long long)j->num, j->state, (long long)j->start_us,
			    (long long)j->end_us);
	}
	put(&tp, "counters %llu %llu %llu %d %lld\n", (unsigned long long)s->nevents, (unsigned long long)s->npasses,
	    (unsigned long long)s->ndecisions, s->nrejected, (long long)(s->ngone + s->njobs));
	free(map);
	free_run(&u[cur]);
	return tp.buf ? tp.buf : strdup("");
}

static void differ(const char *what, const char *a, const char *b)
{
	if (strcmp(a, b) == 0)
		return;
	size_t i = 0;
	while (a[i] && a[i] == b[i])
		i++;
	size_t l = i;
	while (l > 0 && a[l - 1] != '\n')
		l--;
	fail_msg("%s: differs at byte %zu:\n  as is:    %.160s\n  restored: %.160s", what, i, a + l, b + l);
}

static void same(const char *path, const char *policy)
{
	static const int at1[] = { 1, 7, 40, 150, 600, 2500, 9000, 0 };
	static const int at2[] = { 3, 333, 3333, 0 };
	char what[512];
	for (int every = 0; every <= 13; every += 13) {
		int m0, m1, m2;
		char *a = tape_of(path, policy, every, NULL, &m0);
		char *b = tape_of(path, policy, every, at1, &m1);
		char *c = tape_of(path, policy, every, at2, &m2);
		assert_true(m1 >= 4 && m2 >= 2);
		assert_true(strlen(a) > 10000);
		snprintf(what, sizeof what, "%s, %s%s, moved at 7 steps", path ? path : "the default scenario", policy,
		         every ? ", compacted" : "");
		differ(what, a, b);
		snprintf(what, sizeof what, "%s, %s%s, moved at 3 steps", path ? path : "the default scenario", policy,
		         every ? ", compacted" : "");
		differ(what, a, c);
		free(a);
		free(b);
		free(c);
	}
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
#define NPOL (sizeof policies / sizeof *policies)

static void test_default(void **state)
{
	(void)state;
	for (size_t k = 0; k < NPOL; k++)
		same(NULL, policies[k]);
}

static void test_hetero(void **state)
{
	(void)state;
	for (size_t k = 0; k < NPOL; k++)
		same(scn("scenarios/hetero.json"), policies[k]);
}

static void test_faults(void **state)
{
	(void)state;
	for (size_t k = 0; k < NPOL; k++)
		same(scn("tests/scenario/data/health-stress.json"), policies[k]);
}

static void test_pressure(void **state)
{
	(void)state;
	scale = 1.4;
	for (size_t k = 0; k < NPOL; k++)
		same(scn("scenarios/guian.json"), policies[k]);
	scale = 0;
}

static void test_quotas(void **state)
{
	(void)state;
	scale = 1.4;
	quotas = true;
	same(scn("scenarios/guian.json"), "tiered");
	quotas = false;
	scale = 0;
}

/* What is refused, and that a refused load leaves the run as it was. */
static void test_refused(void **state)
{
	(void)state;
	struct setup u, v, x;
	struct tape t0 = { 0 }, t1 = { 0 }, t2 = { 0 };
	setup_run(&u, NULL, "easy", &t0);
	for (int k = 0; k < 500; k++)
		assert_true(sim_step(u.r.s) > 0);
	struct snapw w = { 0 };
	assert_int_equal(sim_snap_save(u.r.s, FP, &w), 0);
	setup_run(&v, NULL, "easy", &t1);
	setup_run(&x, NULL, "fcfs", &t2);
	assert_int_equal(sim_snap_load(v.r.s, FP + 1, w.buf, w.n), -1);
	assert_non_null(strstr(v.r.s->err, "another scenario"));
	assert_int_equal(sim_snap_load(x.r.s, FP, w.buf, w.n), -1);
	assert_non_null(strstr(x.r.s->err, "another cluster, policy or seed"));
	assert_int_equal(sim_snap_load(v.r.s, FP, w.buf, w.n / 2), -1);
	assert_non_null(strstr(v.r.s->err, "checksum"));
	assert_int_equal(sim_snap_load(v.r.s, FP, w.buf, 10), -1);
	assert_non_null(strstr(v.r.s->err, "not a hetlab snapshot"));
	for (size_t at = 50; at < w.n; at += w.n / 7) {
		w.buf[at] ^= 0x10;
		assert_int_equal(sim_snap_load(v.r.s, FP, w.buf, w.n), -1);
		assert_non_null(strstr(v.r.s->err, "checksum"));
		w.buf[at] ^= 0x10;
	}
	assert_false(v.r.s->failed);
	assert_int_equal(v.r.s->now, 0);
	/* the refused run still runs, and the snapshot still loads */
	assert_int_equal(sim_snap_load(v.r.s, FP, w.buf, w.n), 0);
	assert_int_equal(v.r.s->now, u.r.s->now);
	free(w.buf);
	free_run(&u);
	free_run(&v);
	free_run(&x);
	free(t0.buf);
	free(t1.buf);
	free(t2.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_hetero),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_pressure),
		cmocka_unit_test(test_quotas),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
