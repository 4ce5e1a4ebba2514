/* The Alibaba v2025 DLRM trace from the shared trace directory
 * ($HETLAB_TRACES, else ../shared/traces): the counts its SOURCE.md states,
 * and load-curve figures checked against an independent computation (a
 * Python script over the CSV). `make test-shared` runs it; a missing file
 * fails the test with a message saying where to get it. */
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
#include "traces/dlrm.h"

#define DLRM_REL "alibaba-gpu-v2025-dlrm/disaggregated_DLRM_trace.csv.gz"

static void test_dlrm_file(void **state)
{
	(void)state;
	size_t n = strlen(tu_traces()) + sizeof DLRM_REL + 2;
	char *p = malloc(n);
	assert_non_null(p);
	snprintf(p, n, "%s/%s", tu_traces(), DLRM_REL);
	if (access(p, R_OK) != 0)
		fail_msg("missing shared trace %s: get the shared traces folder (../shared/traces "
		         "beside the repository, or point HETLAB_TRACES at a copy); the file is "
		         "cluster-trace-gpu-v2025/disaggregated_DLRM_trace.csv from "
		         "https://github.com/alibaba/clusterdata, stored gzip-compressed", p);
	struct workload w;
	struct dlrm_services s;
	char err[512] = "";
	if (trace_dlrm_read(p, NULL, &w, &s, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 23871);
	assert_int_equal(w.lines, 23872);
	assert_int_equal(w.skipped_malformed, 0);
	assert_int_equal(w.skipped_unusable, 0);
	assert_int_equal(s.nrole[DLRM_CN], 16485);
	assert_int_equal(s.nrole[DLRM_HN], 7386);
	assert_int_equal(s.napps, 156);
	assert_int_equal(s.no_creation, 7280);
	assert_int_equal(s.no_deletion, 8878);
	assert_int_equal(s.end_us, 2677541 * SIMTIME_SEC);
	/* HN instances have one GPU, CN none; the apps first appear in the
	 * order app_0, app_1, ..., so group g is app_g. */
	int64_t gpus = 0;
	double gpu_h = 0;
	for (int32_t i = 0; i < w.n; i++) {
		assert_true(w.jobs[i].req.gpus == (s.inst[i].role == DLRM_HN));
		gpus += w.jobs[i].req.gpus;
		gpu_h += w.jobs[i].req.gpus * simtime_to_s(w.truth[i].run_us) / 3600.0;
	}
	assert_int_equal(gpus, 7386);
	if (fabs(gpu_h - 2376473.87) > 0.01)
		fail_msg("GPU-hours %.2f, expected 2376473.87", gpu_h);
	for (int32_t g = 0; g < s.napps; g++) {
		char name[32];
		snprintf(name, sizeof name, "app_%d", g);
		assert_string_equal(s.names[g], name);
	}
	/* The busiest service, app_0: 2551 instances, at most 1332 live (first
	 * reached at 2631064 s), 1248.43 on average over the month. */
	struct dlrm_curve c = { 0 };
	if (dlrm_load_curve(&w, &s, 0, &c, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(c.instances, 2551);
	assert_int_equal(c.peak, 1332);
	assert_int_equal(c.peak_us, 2631064 * SIMTIME_SEC);
	assert_float_equal(c.mean, 1248.428470749841, 1e-6);
	dlrm_curve_free(&c);
	dlrm_services_free(&s);
	workload_free(&w);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dlrm_file),
	};
	return cmocka_run_group_tests_name("shared-dlrm", tests, NULL, NULL);
}
