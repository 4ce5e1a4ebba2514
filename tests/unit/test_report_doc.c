/* report_doc and runplot: the Markdown and HTML reports and `hetlab plot`'s
 * figures, and the report's organisation sections (tenants, services,
 * preemption and quota holds), from run databases built by hand whose
 * figures are worked out in the comments (report_fixture.h). The power
 * and operations sections are test_report_power.c's. */
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
	};
	return cmocka_run_group_tests_name("report_doc", tests, NULL, NULL);
}
