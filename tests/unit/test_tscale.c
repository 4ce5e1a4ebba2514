/* tscale: demand scaling of a replayed trace — thinning keeps about X of
 * the jobs, replication by an integer makes exactly X copies, a fraction
 * adds the expected extra, copies stay inside the gap to the next
 * arrival, the same seed gives the same workload, 1 is the identity and a
 * bad factor is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "traces/trace.h"
#include "traces/tscale.h"

#define N 10000

/* N jobs, one every 10 s, each with a distinct trace_id and runtime. */
static void make(struct workload *w)
{
	workload_init(w);
	for (int i = 0; i < N; i++) {
		struct job j;
		struct job_truth t = { .run_us = (simtime)(i + 1) * SIMTIME_SEC, .fails = 0 };
		job_init(&j, 0, (simtime)i * 10 * SIMTIME_SEC);
		j.trace_id = i;
		j.req.cores = 1 + i % 7;
		assert_int_equal(workload_add(w, &j, &t), 0);
	}
}

static void test_identity(void **state)
{
	(void)state;
	struct workload w;
	char err[256];
	make(&w);
	assert_int_equal(workload_scale_rate(&w, 1.0, 7, err, sizeof err), 0);
	assert_int_equal(w.n, N);
	for (int i = 0; i < N; i++)
		assert_int_equal(w.jobs[i].trace_id, i);
	workload_free(&w);
}

static void test_thinning(void **state)
{
	(void)state;
	struct workload w;
	char err[256];
	make(&w);
	assert_int_equal(workload_scale_rate(&w, 0.3, 7, err, sizeof err), 0);
	/* binomial(N, 0.3): sd = 45.8; 6 sd either side */
	assert_true(w.n > 3000 - 275 && w.n < 3000 + 275);
	for (int i = 1; i < w.n; i++) {
		assert_true(w.jobs[i - 1].submit_us <= w.jobs[i].submit_us);
		assert_true(w.jobs[i - 1].trace_id < w.jobs[i].trace_id);   /* kept jobs, unshifted, in order */
		assert_int_equal(w.jobs[i].submit_us, w.jobs[i].trace_id * 10 * SIMTIME_SEC);
		assert_int_equal(w.truth[i].run_us, (w.jobs[i].trace_id + 1) * SIMTIME_SEC);
		assert_int_equal(w.jobs[i].id, i);
	}
	workload_free(&w);
	make(&w);
	assert_int_equal(workload_scale_rate(&w, 0, 7, err, sizeof err), 0);
	assert_int_equal(w.n, 0);
	workload_free(&w);
}

static void test_replication(void **state)
{
	(void)state;
	struct workload w;
	char err[256];
	make(&w);
	assert_int_equal(workload_scale_rate(&w, 3.0, 7, err, sizeof err), 0);
	assert_int_equal(w.n, 3 * N);
	int count[N] = { 0 };
	for (int i = 0; i < w.n; i++) {
		int64_t id = w.jobs[i].trace_id;
		count[id]++;
		/* a copy lies within the gap to the next original arrival */
		assert_true(w.jobs[i].submit_us >= id * 10 * SIMTIME_SEC);
		assert_true(w.jobs[i].submit_us <= (id + 1) * 10 * SIMTIME_SEC);
		assert_int_equal(w.truth[i].run_us, (id + 1) * SIMTIME_SEC);
		if (i)
			assert_true(w.jobs[i - 1].submit_us <= w.jobs[i].submit_us);
	}
	for (int k = 0; k < N; k++)
		assert_int_equal(count[k], 3);
	workload_free(&w);
	make(&w);
	assert_int_equal(workload_scale_rate(&w, 1.5, 7, err, sizeof err), 0);
	assert_true(w.n > 15000 - 300 && w.n < 15000 + 300);   /* N + binomial(N, 0.5) */
	workload_free(&w);
}

static void test_deterministic(void **state)
{
	(void)state;
	struct workload a, b, c;
	char err[256];
	make(&a);
	make(&b);
	make(&c);
	assert_int_equal(workload_scale_rate(&a, 1.7, 42, err, sizeof err), 0);
	assert_int_equal(workload_scale_rate(&b, 1.7, 42, err, sizeof err), 0);
	assert_int_equal(workload_scale_rate(&c, 1.7, 43, err, sizeof err), 0);
	assert_int_equal(a.n, b.n);
	for (int i = 0; i < a.n; i++) {
		assert_int_equal(a.jobs[i].submit_us, b.jobs[i].submit_us);
		assert_int_equal(a.jobs[i].trace_id, b.jobs[i].trace_id);
	}
	bool differ = a.n != c.n;
	for (int i = 0; !differ && i < a.n; i++)
		differ = a.jobs[i].submit_us != c.jobs[i].submit_us;
	assert_true(differ);
	workload_free(&a);
	workload_free(&b);
	workload_free(&c);
}

static void test_bad_factor(void **state)
{
	(void)state;
	struct workload w;
	char err[256];
	make(&w);
	assert_int_equal(workload_scale_rate(&w, -1, 7, err, sizeof err), -1);
	assert_non_null(strstr(err, "--scale-rate"));
	assert_int_equal(workload_scale_rate(&w, NAN, 7, err, sizeof err), -1);
	assert_int_equal(w.n, N);
	workload_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_thinning),
		cmocka_unit_test(test_replication),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_bad_factor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
