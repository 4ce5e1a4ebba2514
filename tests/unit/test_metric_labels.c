/* metric_labels: a metric's {KEY=VALUE} checked against the values a
 * scenario or a set of runs has (issue 33: a typo answered NaN). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "analysis/metric_labels.h"
#include "config/scenario.h"
#include "config/scnlabels.h"

static void test_classes_and_reasons_always(void **st)
{
	(void)st;
	struct metric_labels L;
	char err[1200];
	metric_labels_init(&L);
	assert_int_equal(metric_labels_check(&L, "p95_wait", err, sizeof err), 0);
	assert_int_equal(metric_labels_check(&L, "p95_wait{class=inference}", err, sizeof err), 0);
	assert_int_equal(metric_labels_check(&L, "failed{reason=oom}", err, sizeof err), 0);
	assert_int_equal(metric_labels_check(&L, "failed{reason=none}", err, sizeof err), 0);
	assert_int_equal(metric_labels_check(&L, "p95_wait{class=inferense}", err, sizeof err), -1);
	assert_string_equal(err, "metric 'p95_wait{class=inferense}': unknown class 'inferense'; did you "
	                         "mean 'inference'? (known: training, inference, batch, dev)");
	/* a value with nothing near: no hint */
	assert_int_equal(metric_labels_check(&L, "p95_wait{class=x}", err, sizeof err), -1);
	assert_null(strstr(err, "did you mean"));
	metric_labels_fini(&L);
}

static void test_from_a_set_and_open_keys(void **st)
{
	(void)st;
	struct metric_labels L;
	struct metric_set s = { 0 };
	char err[1200];
	metric_labels_init(&L);
	assert_int_equal(metric_set_put(&s, "gpu_util{gpu=H100-SXM-80GB}", 0.5), 0);
	assert_int_equal(metric_set_put(&s, "gpu_util{gpu=A100-SXM-80GB}", NAN), 0);
	assert_int_equal(metric_set_put(&s, "warn_h{rack=r1}", 0), 0);
	metric_labels_add_set(&L, &s);
	metric_labels_add_set(&L, &s);   /* no repeats (a set is sorted by name) */
	assert_int_equal(L.n[2], 2);
	assert_int_equal(metric_labels_check(&L, "gpu_util{gpu=A100-SXM-80GB}", err, sizeof err), 0);
	assert_int_equal(metric_labels_check(&L, "gpu_util{gpu=H100}", err, sizeof err), -1);
	assert_non_null(strstr(err, "unknown gpu 'H100'; did you mean 'H100-SXM-80GB'?"));
	assert_non_null(strstr(err, "(known: A100-SXM-80GB, H100-SXM-80GB)"));
	/* a key with no values at all */
	assert_int_equal(metric_labels_check(&L, "slo_violation_s{service=chat}", err, sizeof err), -1);
	assert_non_null(strstr(err, "unknown service 'chat' (there is no service here)"));
	/* an open key takes any value */
	L.open |= METRIC_L_SERVICE;
	assert_int_equal(metric_labels_check(&L, "slo_violation_s{service=chat}", err, sizeof err), 0);
	metric_set_fini(&s);
	metric_labels_fini(&L);
}

static void test_long_lists_are_cut(void **st)
{
	(void)st;
	struct metric_labels L;
	char err[1200], name[32];
	metric_labels_init(&L);
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof name, "rack-%02d", i);
		metric_labels_add(&L, "rack", name);
	}
	assert_int_equal(metric_labels_check(&L, "warn_h{rack=rack-40}", err, sizeof err), -1);
	assert_non_null(strstr(err, "rack-15, ... (40 in all)"));
	assert_null(strstr(err, "rack-16"));
	metric_labels_fini(&L);
}

/* The embedded default scenario: its GPU models, node types, racks,
 * tenants and its inference service. */
static void test_scenario_values(void **st)
{
	(void)st;
	struct scenario sc;
	struct metric_labels L;
	char err[1200];
	assert_int_equal(scenario_load(NULL, &sc, err, sizeof err), 0);
	metric_labels_init(&L);
	scn_labels_add(&L, &sc);
	assert_int_equal(metric_labels_check(&L, "gpu_util{gpu=H100-SXM-80GB}", err, sizeof err), 0);
	assert_int_equal(metric_labels_check(&L, "gpu_util{type=h100-8x}", err, sizeof err), 0);
	assert_int_equal(metric_labels_check(&L, "warn_h{rack=lq-h100-01}", err, sizeof err), 0);
	assert_int_equal(metric_labels_check(&L, "p95_wait{tenant=t3}", err, sizeof err), 0);
	assert_int_equal(metric_labels_check(&L, "slo_violation_s{service=chat-api}", err, sizeof err), 0);
	assert_int_equal(metric_labels_check(&L, "gpu_util{gpu=H100}", err, sizeof err), -1);
	/* a model of the catalog that no node type of this scenario has */
	assert_int_equal(metric_labels_check(&L, "gpu_util{gpu=B200-SXM-180GB}", err, sizeof err), -1);
	assert_int_equal(metric_labels_check(&L, "p95_wait{tenant=t99}", err, sizeof err), -1);
	metric_labels_fini(&L);
	scenario_free(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes_and_reasons_always),
		cmocka_unit_test(test_from_a_set_and_open_keys),
		cmocka_unit_test(test_long_lists_are_cut),
		cmocka_unit_test(test_scenario_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
