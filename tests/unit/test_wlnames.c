/* wlnames: the names a trace gives (struct workload's names, trace.h) —
 * tables by kind, added once and found again; each job's GPU type and job
 * name kept beside it by workload_add, workload_sort, workload_pick and
 * the demand scaling of a replay; workload_free frees them (the ASan and
 * valgrind runs of make test see a leak). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "traces/trace.h"
#include "traces/tscale.h"

static void test_tables(void **state)
{
	(void)state;
	struct workload w;
	workload_init(&w);
	assert_false(workload_has_names(&w));
	assert_null(workload_name(&w, WL_USER, 0));
	assert_int_equal(workload_name_add(&w, WL_USER, "alice"), 0);
	assert_int_equal(workload_name_add(&w, WL_USER, "bob"), 1);
	assert_int_equal(workload_name_add(&w, WL_USER, "alice"), 0);
	/* The same text in another kind is another table. */
	assert_int_equal(workload_name_add(&w, WL_ACCOUNT, "bob"), 0);
	assert_true(workload_has_names(&w));
	assert_string_equal(workload_name(&w, WL_USER, 1), "bob");
	assert_null(workload_name(&w, WL_USER, 2));
	assert_null(workload_name(&w, WL_USER, -1));
	assert_null(workload_name(&w, WL_QOS, 0));
	/* Many names: found again after the set has grown. */
	char s[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(s, sizeof s, "p%d", i);
		assert_int_equal(workload_name_add(&w, WL_PARTITION, s), i);
	}
	for (int i = 0; i < 5000; i += 7) {
		snprintf(s, sizeof s, "p%d", i);
		assert_int_equal(workload_name_add(&w, WL_PARTITION, s), i);
	}
	assert_int_equal(w.names[WL_PARTITION].n, 5000);
	static const char *const kinds[WL_NKIND] = { "user", "account", "partition", "qos", "gpu_type",
	                                             "job_name" };
	for (int k = 0; k < WL_NKIND; k++)
		assert_string_equal(wl_name_kind_str((enum wl_name_kind)k), kinds[k]);
	workload_free(&w);
	assert_int_equal(w.names[WL_PARTITION].n, 0);
	assert_null(w.names[WL_PARTITION].v);
}

/* n jobs submitted in reverse order (job i at (n - i) s), trace_id i, job
 * name "job-i" on every third and GPU type "a100" / "h100" on the odd. */
static void make(struct workload *w, int n)
{
	workload_init(w);
	for (int i = 0; i < n; i++) {
		struct job j;
		struct job_truth t = { .run_us = SIMTIME_SEC };
		job_init(&j, 0, (simtime)(n - i) * SIMTIME_SEC);
		j.trace_id = i;
		j.req.cores = 1;
		assert_int_equal(workload_add(w, &j, &t), 0);
		char name[32];
		snprintf(name, sizeof name, "job-%d", i);
		assert_int_equal(workload_job_set(w, WL_JOB_NAME, i, i % 3 == 0 ? name : NULL), 0);
		assert_int_equal(workload_job_set(w, WL_GPU_TYPE, i, i % 2 ? (i % 4 == 1 ? "a100" : "h100") : ""), 0);
	}
}

/* Every job's name and GPU type are those of its trace_id. */
static void check_parallel(const struct workload *w)
{
	for (int32_t k = 0; k < w->n; k++) {
		int64_t i = w->jobs[k].trace_id;
		char name[32];
		snprintf(name, sizeof name, "job-%lld", (long long)i);
		if (i % 3 == 0)
			assert_string_equal(workload_job_name(w, k), name);
		else
			assert_null(workload_job_name(w, k));
		if (i % 2)
			assert_string_equal(workload_job_gpu_type(w, k), i % 4 == 1 ? "a100" : "h100");
		else
			assert_null(workload_job_gpu_type(w, k));
	}
}

static void test_per_job(void **state)
{
	(void)state;
	struct workload w;
	workload_init(&w);
	struct job j;
	struct job_truth t = { .run_us = 1 };
	job_init(&j, 0, 0);
	assert_int_equal(workload_add(&w, &j, &t), 0);
	/* None yet: no table is made for a job without a name. */
	assert_int_equal(workload_job_set(&w, WL_JOB_NAME, 0, NULL), 0);
	assert_int_equal(workload_job_set(&w, WL_JOB_NAME, 0, ""), 0);
	assert_null(w.job_name);
	assert_null(workload_job_name(&w, 0));
	assert_null(workload_job_name(&w, 5));
	workload_free(&w);
	/* Jobs added after the tables exist get none; the tables grow with the jobs
	 * (2,000 jobs: past the first capacity of 1,024). */
	make(&w, 2000);
	assert_int_equal(w.names[WL_GPU_TYPE].n, 2);
	check_parallel(&w);
	assert_int_equal(workload_job_set(&w, WL_GPU_TYPE, 1, NULL), 0);
	assert_null(workload_job_gpu_type(&w, 1));
	assert_int_equal(workload_job_set(&w, WL_GPU_TYPE, 1, "a100"), 0);
	workload_free(&w);
}

static void test_sort_and_pick(void **state)
{
	(void)state;
	struct workload w;
	make(&w, 3000);
	workload_sort(&w);   /* reverse order: every job moves */
	assert_int_equal(w.jobs[0].trace_id, 2999);
	check_parallel(&w);
	/* Picks: job 5 three times, none of the others but 0 and 7. */
	int32_t from[] = { 5, 0, 5, 7, 5 };
	int64_t want[] = { w.jobs[5].trace_id, w.jobs[0].trace_id, w.jobs[5].trace_id, w.jobs[7].trace_id,
	                   w.jobs[5].trace_id };
	assert_int_equal(workload_pick(&w, from, 5), 0);
	assert_int_equal(w.n, 5);
	for (int k = 0; k < 5; k++)
		assert_int_equal(w.jobs[k].trace_id, want[k]);
	check_parallel(&w);
	workload_free(&w);
}

/* --scale-rate: the copies of a job carry its name and GPU type. */
static void test_scale_rate(void **state)
{
	(void)state;
	struct workload w;
	char err[256];
	make(&w, 1000);
	assert_int_equal(workload_scale_rate(&w, 2.5, 3, err, sizeof err), 0);
	assert_true(w.n > 2000);
	check_parallel(&w);
	for (int32_t k = 1; k < w.n; k++)
		assert_true(w.jobs[k].submit_us >= w.jobs[k - 1].submit_us);
	assert_int_equal(workload_scale_rate(&w, 0.3, 3, err, sizeof err), 0);
	check_parallel(&w);
	workload_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_per_job),
		cmocka_unit_test(test_sort_and_pick),
		cmocka_unit_test(test_scale_rate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
