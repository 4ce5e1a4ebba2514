/* taint: taints and tolerations parsed (and their errors), Kubernetes'
 * toleration rules (Equal, Exists, the effect, the empty key), ORed
 * alternatives in label expressions (matching, the best alternative's
 * score, errors), and selectors with tolerations on tainted nodes: a
 * required one excludes untolerated NoSchedule/NoExecute taints, a
 * preferred one ranks untolerated PreferNoSchedule taints last, the
 * Kubernetes PriorityClass table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "sim/job.h"
#include "sim/label.h"
#include "sim/prioclass.h"
#include "sim/taint.h"

static void test_parse(void **state)
{
	(void)state;
	struct taint *t;
	struct toleration *o;
	int32_t n;
	char err[300];
	assert_int_equal(taint_parse("dedicated=ml:NoSchedule, nvidia.com/gpu:NoExecute ,spot=true:PreferNoSchedule",
	                             &t, &n, err, sizeof err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(t[0].key, "dedicated");
	assert_string_equal(t[0].value, "ml");
	assert_int_equal(t[0].effect, TAINT_NO_SCHEDULE);
	assert_string_equal(t[1].key, "nvidia.com/gpu");
	assert_string_equal(t[1].value, "");
	assert_int_equal(t[1].effect, TAINT_NO_EXECUTE);
	assert_int_equal(t[2].effect, TAINT_PREFER_NO_SCHEDULE);
	taint_free(t, n);
	assert_int_equal(taint_parse("", &t, &n, err, sizeof err), 0);
	assert_int_equal(n, 0);
	static const char *const bad_taints[][2] = {
		{ "dedicated=ml", "a taint names its key and its effect" },
		{ "a:Sometimes", "unknown effect \"Sometimes\"" },
		{ "a b:NoSchedule", "expected KEY[=VALUE]:EFFECT" },
		{ "a=b c:NoSchedule", "the value must be" },
		{ "a:NoSchedule,,b:NoSchedule", "an empty item" },
		{ "*:NoSchedule", "a taint names its key" },
	};
	for (size_t i = 0; i < sizeof bad_taints / sizeof bad_taints[0]; i++) {
		if (taint_parse(bad_taints[i][0], &t, &n, err, sizeof err) == 0 || !strstr(err, bad_taints[i][1]))
			fail_msg("taint \"%s\": got \"%s\", want \"%s\"", bad_taints[i][0], err, bad_taints[i][1]);
	}
	assert_int_equal(toleration_parse("dedicated=ml:NoSchedule, gpu, *:PreferNoSchedule", &o, &n, err, sizeof err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(o[0].value, "ml");
	assert_null(o[1].value);
	assert_int_equal(o[1].effect, -1);
	assert_null(o[2].key);
	assert_int_equal(o[2].effect, TAINT_PREFER_NO_SCHEDULE);
	toleration_free(o, n);
	assert_int_not_equal(toleration_parse("*=x", &o, &n, err, sizeof err), 0);
	assert_non_null(strstr(err, "takes no value"));
}

static void test_covers(void **state)
{
	(void)state;
	char ded[] = "dedicated", ml[] = "ml", web[] = "web";
	struct taint t = { .key = ded, .value = ml, .effect = TAINT_NO_SCHEDULE };
	struct toleration eq = { .key = ded, .value = ml, .effect = TAINT_NO_SCHEDULE };
	struct toleration eq_other = { .key = ded, .value = web, .effect = -1 };
	struct toleration exists = { .key = ded, .value = NULL, .effect = -1 };
	struct toleration wrong_effect = { .key = ded, .value = NULL, .effect = TAINT_NO_EXECUTE };
	struct toleration all = { .key = NULL, .value = NULL, .effect = -1 };
	assert_true(toleration_covers(&eq, 1, &t));
	assert_false(toleration_covers(&eq_other, 1, &t));
	assert_true(toleration_covers(&exists, 1, &t));
	assert_false(toleration_covers(&wrong_effect, 1, &t));
	assert_true(toleration_covers(&all, 1, &t));
	assert_false(toleration_covers(NULL, 0, &t));
	struct toleration two[2] = { eq_other, exists };
	assert_true(toleration_covers(two, 2, &t));
}

/* Four nodes: 0 plain, 1 NoSchedule, 2 PreferNoSchedule, 3 NoExecute. */
static struct labels *tainted(void)
{
	struct labels *L = labels_new(4);
	char err[200];
	assert_non_null(L);
	for (int i = 0; i < 4; i++)
		assert_int_equal(labels_set(L, i, "gpu.model", i % 2 ? "H100" : "A100"), 0);
	assert_int_equal(labels_set_taints(L, 1, "dedicated=ml:NoSchedule", err, sizeof err), 0);
	assert_int_equal(labels_set_taints(L, 2, "spot=true:PreferNoSchedule", err, sizeof err), 0);
	assert_int_equal(labels_set_taints(L, 3, "maintenance:NoExecute", err, sizeof err), 0);
	assert_int_equal(labels_tainted(L, false), 2);
	assert_int_equal(labels_tainted(L, true), 1);
	return L;
}

static void test_alternatives(void **state)
{
	(void)state;
	struct labels *L = labels_new(3);
	char err[200];
	assert_int_equal(labels_set(L, 0, "gpu.model", "H100"), 0);
	assert_int_equal(labels_set(L, 0, "zone", "a"), 0);
	assert_int_equal(labels_set(L, 1, "gpu.model", "L40S"), 0);
	assert_int_equal(labels_set(L, 2, "gpu.model", "T4"), 0);
	struct selector *S = sel_compile("gpu.model = H100, zone = a | gpu.model = L40S", err, sizeof err);
	assert_non_null(S);
	assert_int_equal(sel_nalternatives(S), 2);
	assert_true(sel_match(S, L, 0));
	assert_true(sel_match(S, L, 1));
	assert_false(sel_match(S, L, 2));
	assert_int_equal(sel_score(S, L, 0), 2);   /* the best alternative's terms */
	assert_int_equal(sel_score(S, L, 1), 1);
	assert_int_equal(sel_score(S, L, 2), 0);
	sel_free(S);
	assert_null(sel_compile("a = 1 |", err, sizeof err));
	assert_non_null(strstr(err, "expected a key after \"|\""));
	assert_null(sel_compile("| a", err, sizeof err));
	assert_null(sel_compile("a | | b", err, sizeof err));
	labels_free(L);
}

static void test_tolerating_selectors(void **state)
{
	(void)state;
	struct labels *L = tainted();
	char err[200];
	/* no tolerations: only the plain and the PreferNoSchedule node */
	struct selector *R = sel_compile_tol("", NULL, false, NULL, err, sizeof err);
	assert_non_null(R);
	bool want0[4] = { true, false, true, false };
	for (int i = 0; i < 4; i++)
		assert_int_equal(sel_match(R, L, i), want0[i]);
	sel_free(R);
	R = sel_compile_tol("gpu.model = H100", "dedicated=ml:NoSchedule", false, NULL, err, sizeof err);
	bool want1[4] = { false, true, false, false };   /* node 3 is H100 but NoExecute */
	for (int i = 0; i < 4; i++)
		assert_int_equal(sel_match(R, L, i), want1[i]);
	sel_free(R);
	R = sel_compile_tol("", "*", false, NULL, err, sizeof err);
	for (int i = 0; i < 4; i++)
		assert_true(sel_match(R, L, i));
	sel_free(R);
	/* preferred: an untolerated PreferNoSchedule node ranks below, one more term above */
	struct selector *P = sel_compile_tol("gpu.model = A100", NULL, true, "k", err, sizeof err);
	assert_string_equal(sel_key(P), "k");
	assert_int_equal(sel_score(P, L, 0), 3);   /* 2 x 1 term + tolerated */
	assert_int_equal(sel_score(P, L, 2), 2);   /* 2 x 1 term, spot untolerated */
	assert_int_equal(sel_score(P, L, 1), 1);   /* no term, no soft taint */
	sel_free(P);
	P = sel_compile_tol("", "spot:PreferNoSchedule", true, NULL, err, sizeof err);
	assert_int_equal(sel_score(P, L, 2), 1);
	assert_true(sel_match(P, L, 1));           /* hard taints are the required selector's business */
	sel_free(P);
	assert_null(sel_compile_tol("", "a:Never", false, NULL, err, sizeof err));
	assert_non_null(strstr(err, "unknown effect"));
	assert_int_not_equal(labels_set_taints(L, 0, "bad key:NoSchedule", err, sizeof err), 0);
	assert_int_equal(labels_set_taints(L, 1, "", err, sizeof err), 0);   /* cleared */
	assert_int_equal(labels_tainted(L, false), 1);
	labels_free(L);
}

static void test_prioclass(void **state)
{
	(void)state;
	assert_int_equal(prioclass_parse("system-cluster-critical"), JOB_INFERENCE);
	assert_int_equal(prioclass_parse("train"), JOB_TRAINING);
	assert_int_equal(prioclass_parse("build"), JOB_DEV);
	assert_int_equal(prioclass_parse("low-priority"), JOB_BATCH);
	assert_int_equal(prioclass_parse("Inference"), -1);
	assert_non_null(strstr(prioclass_list(), "interactive-preemptible"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_covers),
		cmocka_unit_test(test_alternatives),
		cmocka_unit_test(test_tolerating_selectors),
		cmocka_unit_test(test_prioclass),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
