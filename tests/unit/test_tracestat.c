/* Tests of the trace statistics (traces/tracestat.c) on hand-made workloads
 * whose figures are worked out by hand in the comments, and of the gnuplot
 * figures that `trace inspect --plot` draws from them (analysis/plot.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/plot.h"
#include "tests/testutil.h"
#include "config/scenario.h"
#include "traces/tracestat.h"

#define H (3600.0)

static void add(struct workload *w, double submit_s, int nodes, int cores, int gpus,
                double run_s, enum job_class cls, int queue, uint64_t models)
{
	struct job j;
	struct job_truth t = { .run_us = simtime_from_s(run_s) };
	job_init(&j, 0, simtime_from_s(submit_s));
	j.req.nodes = nodes;
	j.req.cores = cores;
	j.req.gpus = gpus;
	j.req.gpu_models = models;
	j.cls = (uint8_t)cls;
	j.queue = queue;
	j.walltime_us = SIMTIME_INF;
	assert_int_equal(workload_add(w, &j, &t), 0);
}

/* Five jobs over two days and a bit:
 *   J0  t=0       spread 1 core            60 s   batch      queue 2
 *   J1  t=0.5 h   1 node  8 cores 2 GPUs   1 h    training   queue 1  H100 (bit 0)
 *   J2  t=25 h    2 nodes 4 cores 4 GPUs   0.5 h  training   queue 1  any model
 *   J3  t=49h10m  spread 2 cores           2 h    dev        no queue
 *   J4  t=49.5 h  1 node 16 cores 1 GPU    1 h    inference  queue 2  bits 0 and 1 */
static void five_jobs(struct workload *w, int64_t unix_start)
{
	workload_init(w);
	add(w, 0, 0, 1, 0, 60, JOB_BATCH, 2, 0);
	add(w, 0.5 * H, 1, 8, 2, H, JOB_TRAINING, 1, 1);
	add(w, 25 * H, 2, 4, 4, 0.5 * H, JOB_TRAINING, 1, 0);
	add(w, 49 * H + 600, 0, 2, 0, 2 * H, JOB_DEV, -1, 0);
	add(w, 49.5 * H, 1, 16, 1, H, JOB_INFERENCE, 2, 3);
	w->unix_start = unix_start;
}

static void test_profile_relative(void **state)
{
	(void)state;
	struct workload w;
	five_jobs(&w, -1);
	struct tracestat s;
	char err[256];
	assert_int_equal(tracestat_compute(&w, NULL, &s, err, sizeof err), 0);
	assert_false(s.utc);
	assert_int_equal(s.arrivals, 5);
	assert_float_equal(s.arrivals_per_h, 5 / 49.5, 1e-12);
	assert_float_equal(s.span_days, 49.5 / 24, 1e-12);
	/* Hour slots 0..49 (the window from 0 to 49.5 h): hours 0 and 1 of the
	 * day occur 3 times (slots 0/24/48, 1/25/49), the others twice. Hour 0
	 * has J0 and J1, hour 1 has J2, J3 and J4. */
	for (int h = 0; h < 24; h++) {
		assert_int_equal(s.hour_slots[h], h < 2 ? 3 : 2);
		assert_int_equal(s.hour_n[h], h == 0 ? 2 : h == 1 ? 3 : 0);
	}
	assert_float_equal(s.hour_rate[0], 2.0 / 3.0, 1e-12);
	assert_float_equal(s.hour_rate[1], 1.0, 1e-12);
	assert_float_equal(s.hour_rate[2], 0, 0);
	/* Days 0, 1, 2 once each: 2, 1 and 2 arrivals per day. */
	static const double dow[7] = { 2, 1, 2, 0, 0, 0, 0 };
	for (int d = 0; d < 7; d++) {
		assert_int_equal(s.dow_slots[d], d < 3);
		assert_float_equal(s.dow_rate[d], dow[d], 1e-12);
	}
	assert_string_equal(tracestat_dow_name(false, 2), "day 2");
	tracestat_free(&s);
	workload_free(&w);
}

static void test_profile_utc(void **state)
{
	(void)state;
	struct workload w;
	/* 2024-01-01 was a Monday; start at 23:00 UTC that day. Arrivals: J0,
	 * J1 Mon 23:xx; J2 at 48 h = Wed 00:00; J3, J4 Thu 00:10 and 00:30. */
	five_jobs(&w, 1704067200 + 23 * 3600);
	struct tracestat s;
	char err[256];
	assert_int_equal(tracestat_compute(&w, NULL, &s, err, sizeof err), 0);
	assert_true(s.utc);
	/* 50 hour slots from Mon 23:00: hour 23 three times (Mon, Tue, Wed),
	 * hour 0 three times (Tue, Wed, Thu), the rest twice. */
	for (int h = 0; h < 24; h++) {
		assert_int_equal(s.hour_slots[h], h == 0 || h == 23 ? 3 : 2);
		assert_int_equal(s.hour_n[h], h == 23 ? 2 : h == 0 ? 3 : 0);
	}
	assert_float_equal(s.hour_rate[23], 2.0 / 3.0, 1e-12);
	assert_float_equal(s.hour_rate[0], 1.0, 1e-12);
	/* Mon to Thu once each. */
	static const int64_t n[7] = { 2, 0, 1, 2, 0, 0, 0 };
	for (int d = 0; d < 7; d++) {
		assert_int_equal(s.dow_slots[d], d < 4);
		assert_int_equal(s.dow_n[d], n[d]);
		assert_float_equal(s.dow_rate[d], (double)n[d], 1e-12);
	}
	assert_string_equal(tracestat_dow_name(true, 0), "Mon");
	assert_string_equal(tracestat_dow_name(true, 6), "Sun");
	tracestat_free(&s);
	workload_free(&w);
}

static void test_not_arrival(void **state)
{
	(void)state;
	struct workload w;
	five_jobs(&w, -1);
	const uint8_t skip[5] = { 1, 0, 0, 0, 0 };
	struct tracestat_opts o = { .not_arrival = skip };
	struct tracestat s;
	char err[256];
	assert_int_equal(tracestat_compute(&w, &o, &s, err, sizeof err), 0);
	/* J0 was there before: 4 arrivals from 0.5 h to 49.5 h. Slots 0..49
	 * as before; hour 0 now has J1 only. */
	assert_int_equal(s.arrivals, 4);
	assert_int_equal(s.afirst_us, simtime_from_s(0.5 * H));
	assert_float_equal(s.arrivals_per_h, 4 / 49.0, 1e-12);
	assert_int_equal(s.hour_n[0], 1);
	assert_int_equal(s.hour_slots[0], 3);
	assert_float_equal(s.span_days, 49.5 / 24, 1e-12); /* the span is every job's */
	assert_int_equal(s.n, 5);
	tracestat_free(&s);
	workload_free(&w);
}

static void test_sizes_durations(void **state)
{
	(void)state;
	struct workload w;
	five_jobs(&w, -1);
	struct tracestat s;
	char err[256];
	assert_int_equal(tracestat_compute(&w, NULL, &s, err, sizeof err), 0);
	/* Cores per job 1, 8, 8, 2, 16 -> sorted 1 2 8 8 16: nearest rank
	 * p50 = rank 3 = 8, p90 = rank 5 = 16. */
	assert_int_equal(s.cores.njobs, 5);
	assert_float_equal(s.cores.pct.mean, 7, 1e-12);
	assert_float_equal(s.cores.pct.p50, 8, 0);
	assert_float_equal(s.cores.pct.p90, 16, 0);
	assert_float_equal(s.cores.pct.p99, 16, 0);
	assert_float_equal(s.cores.pct.max, 16, 0);
	/* Powers of two: 1, 8, 8, 2, 16 all; size classes 1, 2, 5-8 (twice), 9-16. */
	assert_int_equal(s.cores.pow2, 5);
	assert_int_equal(s.cores.bucket[0], 1);
	assert_int_equal(s.cores.bucket[1], 1);
	assert_int_equal(s.cores.bucket[3], 2);
	assert_int_equal(s.cores.bucket[4], 1);
	/* GPUs per GPU job: 2, 8, 1 -> sorted 1 2 8: p50 = rank 2 = 2, p90 = rank 3 = 8. */
	assert_int_equal(s.gpus.njobs, 3);
	assert_float_equal(s.gpus.pct.mean, 11.0 / 3.0, 1e-12);
	assert_float_equal(s.gpus.pct.p50, 2, 0);
	assert_float_equal(s.gpus.pct.p90, 8, 0);
	assert_float_equal(s.gpus.pct.max, 8, 0);
	/* Durations 60, 3600, 1800, 7200, 3600 s -> sorted 60 1800 3600 3600 7200. */
	assert_float_equal(s.run_s.mean, 16260.0 / 5, 1e-9);
	assert_float_equal(s.run_s.p50, 3600, 0);
	assert_float_equal(s.run_s.p90, 7200, 0);
	assert_float_equal(s.run_s.p99, 7200, 0);
	assert_float_equal(s.run_s.max, 7200, 0);
	assert_int_equal(s.run_sorted_us[0], 60 * SIMTIME_SEC);
	assert_int_equal(s.run_sorted_us[4], 7200 * SIMTIME_SEC);
	assert_int_equal(s.with_estimate, 0);
	assert_true(s.load < 0); /* no MaxProcs */
	tracestat_free(&s);
	workload_free(&w);

	/* 100 jobs of 1..100 s, given in reverse: p50 50, p90 90, p95 95, p99 99. */
	workload_init(&w);
	for (int i = 100; i >= 1; i--)
		add(&w, 0, 0, 1, 0, i, JOB_BATCH, -1, 0);
	assert_int_equal(tracestat_compute(&w, NULL, &s, err, sizeof err), 0);
	assert_float_equal(s.run_s.p50, 50, 0);
	assert_float_equal(s.run_s.p90, 90, 0);
	assert_float_equal(s.run_s.p95, 95, 0);
	assert_float_equal(s.run_s.p99, 99, 0);
	assert_float_equal(s.run_s.max, 100, 0);
	assert_float_equal(s.run_s.mean, 50.5, 1e-12);
	assert_int_equal(s.arrivals, 100);
	assert_float_equal(s.arrivals_per_h, 0, 0); /* no span */
	assert_int_equal(s.hour_n[0], 100);
	assert_int_equal(s.hour_slots[0], 1);
	tracestat_free(&s);
	workload_free(&w);
}

static void test_gpu_hours(void **state)
{
	(void)state;
	struct workload w;
	five_jobs(&w, -1);
	struct catalog cat;
	char err[512];
	if (catalog_load_builtin(&cat, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_true(cat.ngpus >= 2);
	struct tracestat_opts o = { .by = TRACESTAT_BY_CLASS, .cat = &cat };
	struct tracestat s;
	assert_int_equal(tracestat_compute(&w, &o, &s, err, sizeof err), 0);
	/* GPU-hours: J1 2 x 1 h on model 0; J2 (2 nodes x 4) x 0.5 h any; J4
	 * 1 x 1 h on two models. Core-hours: 1/60 + 8 + 4 + 4 + 16. */
	assert_int_equal(s.nmodels, cat.ngpus);
	assert_float_equal(s.model_gpu_h[0], 2, 1e-12);
	for (int m = 1; m < s.nmodels; m++)
		assert_float_equal(s.model_gpu_h[m], 0, 0);
	assert_float_equal(s.any_gpu_h, 4, 1e-12);
	assert_float_equal(s.several_gpu_h, 1, 1e-12);
	assert_float_equal(s.gpu_h, 7, 1e-12);
	assert_float_equal(s.core_h, 32 + 1.0 / 60, 1e-12);
	/* By class: every class present, in enum order. */
	assert_int_equal(s.ngroups, JOB_NCLASS);
	static const struct { int64_t jobs; double core_h, gpu_h; } cls[JOB_NCLASS] = {
		[JOB_TRAINING] = { 2, 12, 6 }, [JOB_INFERENCE] = { 1, 16, 1 },
		[JOB_BATCH] = { 1, 1.0 / 60, 0 }, [JOB_DEV] = { 1, 4, 0 },
	};
	for (int c = 0; c < JOB_NCLASS; c++) {
		assert_int_equal(s.groups[c].key, c);
		assert_int_equal(s.groups[c].jobs, cls[c].jobs);
		assert_float_equal(s.groups[c].core_h, cls[c].core_h, 1e-12);
		assert_float_equal(s.groups[c].gpu_h, cls[c].gpu_h, 1e-12);
	}
	tracestat_free(&s);

	/* By queue: -1 (J3), 1 (J1, J2), 2 (J0, J4). */
	o.by = TRACESTAT_BY_QUEUE;
	assert_int_equal(tracestat_compute(&w, &o, &s, err, sizeof err), 0);
	assert_int_equal(s.ngroups, 3);
	static const struct { int32_t key; int64_t jobs; double core_h, gpu_h; } q[3] = {
		{ -1, 1, 4, 0 }, { 1, 2, 12, 6 }, { 2, 2, 16 + 1.0 / 60, 1 },
	};
	for (int g = 0; g < 3; g++) {
		assert_int_equal(s.groups[g].key, q[g].key);
		assert_int_equal(s.groups[g].jobs, q[g].jobs);
		assert_float_equal(s.groups[g].core_h, q[g].core_h, 1e-12);
		assert_float_equal(s.groups[g].gpu_h, q[g].gpu_h, 1e-12);
	}
	tracestat_free(&s);

	/* Without a catalog, every GPU-hour is "any". */
	o.cat = NULL;
	assert_int_equal(tracestat_compute(&w, &o, &s, err, sizeof err), 0);
	assert_int_equal(s.nmodels, 0);
	assert_float_equal(s.any_gpu_h, 7, 1e-12);
	assert_float_equal(s.several_gpu_h, 0, 0);
	tracestat_free(&s);
	catalog_fini(&cat);
	workload_free(&w);
}

static void test_empty(void **state)
{
	(void)state;
	struct workload w;
	workload_init(&w);
	struct tracestat s;
	char err[256];
	struct tracestat_opts o = { .by = TRACESTAT_BY_QUEUE };
	assert_int_equal(tracestat_compute(&w, &o, &s, err, sizeof err), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.arrivals, 0);
	assert_int_equal(s.ngroups, 0);
	assert_float_equal(s.run_s.max, 0, 0);
	tracestat_free(&s);
	char b[16];
	tracestat_bucket_label(0, b, sizeof b);
	assert_string_equal(b, "1");
	tracestat_bucket_label(3, b, sizeof b);
	assert_string_equal(b, "5-8");
}

/* ---- the figures ------------------------------------------------------------ */

static bool exists(const char *dir, const char *file)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", dir, file);
	struct stat st;
	return stat(p, &st) == 0 && st.st_size > 0;
}

static void test_plot(void **state)
{
	(void)state;
	char *dir = tu_tmpath(".plot");
	char err[1024] = "";
	assert_int_equal(plot_mkdir(dir, err, sizeof err), 0);
	assert_int_equal(plot_mkdir(dir, err, sizeof err), 0); /* exists: fine */
	const char *labels[] = { "Mon", "Tue", "it's \"quoted\"" };
	const double y[] = { 1, 2.5, 0 };
	struct plot_series bs = { .title = "jobs 'per' day", .y = y };
	struct plot_fig fb = { .name = "bars", .title = "A title with 'quotes' and_underscores",
	                       .xlabel = "day", .ylabel = "jobs/day" };
	if (plot_bars(dir, &fb, 3, labels, 1, &bs, err, sizeof err) != 0)
		fail_msg("%s", err);
	const double x[] = { 0, 1, 2 };
	struct plot_series ls[2] = { { .title = "a", .n = 3, .x = x, .y = y },
	                             { .title = NULL, .n = 2, .x = x, .y = y } };
	struct plot_fig fl = { .name = "lines", .title = "t", .xlabel = "x", .ylabel = "y",
	                       .logy = false, .extra = "set xrange [0:2]" };
	if (plot_xy(dir, &fl, PLOT_STEPS, 2, ls, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_true(exists(dir, "bars.dat") && exists(dir, "bars.gp"));
	assert_true(exists(dir, "lines.dat") && exists(dir, "lines.gp"));
	struct plot_fig bad = { .name = "../x", .title = "t" };
	assert_int_equal(plot_bars(dir, &bad, 3, labels, 1, &bs, err, sizeof err), -1);
	/* A program that is not there. */
	const char *names[] = { "bars", "lines" };
	assert_int_equal(plot_render("/nonexistent/gnuplot", dir, 2, names, err, sizeof err),
	                 PLOT_NOPROG);
	assert_non_null(strstr(err, "not found"));
	assert_non_null(strstr(err, "gnuplot-nox"));
	/* gnuplot itself, when installed (scripts/deps.sh installs it). */
	int rc = plot_render(NULL, dir, 2, names, err, sizeof err);
	if (rc == PLOT_NOPROG) {
		fprintf(stderr, "test_plot: %s; skipping the drawing\n", err);
	} else {
		if (rc != 0)
			fail_msg("%s", err);
		assert_true(exists(dir, "bars.png") && exists(dir, "bars.svg"));
		assert_true(exists(dir, "lines.png") && exists(dir, "lines.svg"));
		char p[1024];
		snprintf(p, sizeof p, "%s/bars.png", dir);
		FILE *f = fopen(p, "rb");
		unsigned char magic[4] = { 0 };
		assert_non_null(f);
		assert_int_equal(fread(magic, 1, 4, f), 4);
		fclose(f);
		assert_memory_equal(magic, "\x89PNG", 4);
	}
	/* A script gnuplot rejects fails with its exit status. */
	char p[1024];
	snprintf(p, sizeof p, "%s/broken.gp", dir);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs("this is not gnuplot\n", f);
	fclose(f);
	const char *broken[] = { "broken" };
	rc = plot_render(NULL, dir, 1, broken, err, sizeof err);
	if (rc != PLOT_NOPROG) {
		assert_int_equal(rc, -1);
		assert_non_null(strstr(err, "failed"));
	}
	static const char *const files[] = { "bars", "lines", "broken" };
	static const char *const ext[] = { ".dat", ".gp", ".png", ".svg" };
	for (int i = 0; i < 3; i++)
		for (int e = 0; e < 4; e++) {
			snprintf(p, sizeof p, "%s/%s%s", dir, files[i], ext[e]);
			unlink(p);
		}
	assert_int_equal(rmdir(dir), 0);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_relative),
		cmocka_unit_test(test_profile_utc),
		cmocka_unit_test(test_not_arrival),
		cmocka_unit_test(test_sizes_durations),
		cmocka_unit_test(test_gpu_hours),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_plot),
	};
	return cmocka_run_group_tests_name("tracestat", tests, NULL, NULL);
}
