/* Tests on the shared traces that the repository does not carry (the
 * LANL-CM5, NASA-iPSC, HPC2N and Lublin SWF logs). They read the trace
 * directory ($HETLAB_TRACES, else ../shared/traces) and fail with a message
 * saying where to get a missing log. `make test-shared` runs them; CI runs
 * them too. `make test` needs only what the repository carries. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/testutil.h"
#include "traces/trace.h"

/* A path under the shared trace directory; fails the test when it is missing. */
static char *shared_trace(const char *rel)
{
	size_t n = strlen(tu_traces()) + strlen(rel) + 2;
	char *p = malloc(n);
	assert_non_null(p);
	snprintf(p, n, "%s/%s", tu_traces(), rel);
	if (access(p, R_OK) != 0)
		fail_msg("missing shared trace %s: get the shared traces folder (../shared/traces "
		         "beside the repository; each log's SOURCE.md says where it comes from, the "
		         "Parallel Workloads Archive for the SWF logs) or point HETLAB_TRACES at a copy", p);
	return p;
}

static double mean_run_s(const struct workload *w)
{
	double s = 0;
	for (int i = 0; i < w->n; i++)
		s += simtime_to_s(w->truth[i].run_us);
	return s / w->n;
}

/* Job counts, header sizes and mean runtimes as each log's SOURCE.md states them. */
static void test_shared_logs(void **state)
{
	(void)state;
	static const struct {
		const char *rel;
		int32_t n, unusable, max_procs;
		double mean_run_s;
	} logs[] = {
		{ "swf-lanl-cm5-1994/LANL-CM5-1994-4.1-cln.swf.gz", 122060 - 3, 3, 1024, 2581.6 },
		{ "swf-nasa-ipsc-1993/NASA-iPSC-1993-3.1-cln.swf.gz", 18239, 0, 128, 764.9 },
		{ "swf-hpc2n-seth-excerpt/hpc2n.swf", 3170 - 25, 25, 240, 10128.3 },
		{ "swf-lublin256-synthetic/lublin_256.swf", 10000, 0, -1, 4862.8 },
		{ "swf-lublin256-synthetic/lublin_256_new2.swf", 10000, 0, -1, 1696.0 },
	};
	for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
		char *p = shared_trace(logs[i].rel);
		struct workload w;
		char err[512] = "";
		if (trace_swf_read(p, NULL, &w, err, sizeof err) != 0)
			fail_msg("%s", err);
		assert_int_equal(w.n, logs[i].n);
		assert_int_equal(w.skipped_unusable, logs[i].unusable);
		assert_int_equal(w.max_procs, logs[i].max_procs);
		if (fabs(mean_run_s(&w) - logs[i].mean_run_s) >= 0.05)
			fail_msg("%s: mean runtime %.2f s, expected %.1f", p, mean_run_s(&w),
			         logs[i].mean_run_s);
		workload_free(&w);
		free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shared_logs),
	};
	return cmocka_run_group_tests_name("shared-traces", tests, NULL, NULL);
}
