/* pparams: a run's policy parameters for people — only those not at the
 * policy's defaults, and what differs between two runs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "analysis/pparams.h"

static void test_brief(void **state)
{
	(void)state;
	char b[256];
	pparams_brief("easy", "bf_max_job_test=500", b, sizeof b);
	assert_string_equal(b, "its defaults");
	pparams_brief("conservative", "bf_max_job_test=100 bf_window=2880", b, sizeof b);
	assert_string_equal(b, "bf_window=2880; 1 more at its default");
	pparams_brief("conservative", "bf_max_job_test=7 bf_window=2880", b, sizeof b);
	assert_string_equal(b, "bf_max_job_test=7 bf_window=2880");
	/* a policy this version does not have: the record as it is */
	pparams_brief("multifactor", "weight_age=1000", b, sizeof b);
	assert_string_equal(b, "weight_age=1000");
	/* a parameter missing from the record counts as default */
	pparams_brief("conservative", "bf_window=60", b, sizeof b);
	assert_string_equal(b, "bf_window=60; 1 more at its default");
	/* never past the buffer */
	char small[12];
	pparams_brief("conservative", "bf_max_job_test=7 bf_window=2880", small, sizeof small);
	assert_true(strlen(small) < sizeof small);
}

static void test_diff(void **state)
{
	(void)state;
	char b[256];
	pparams_diff("a=1 b=2", "a=1 b=2", b, sizeof b);
	assert_string_equal(b, "");
	pparams_diff("a=1 b=2", "a=1 b=3", b, sizeof b);
	assert_string_equal(b, "b 2 -> 3");
	pparams_diff("a=1", "b=3 a=2", b, sizeof b);
	assert_string_equal(b, "a 1 -> 2, b (unset) -> 3");
	pparams_diff("x=1", "", b, sizeof b);
	assert_string_equal(b, "x 1 -> (unset)");
	/* a name that is a prefix of another is not confused with it */
	pparams_diff("bf=1 bf_window=5", "bf=1 bf_window=6", b, sizeof b);
	assert_string_equal(b, "bf_window 5 -> 6");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_brief),
		cmocka_unit_test(test_diff),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
