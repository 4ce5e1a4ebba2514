/* Job state machine: exactly the documented transitions are allowed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "sim/job.h"

static void test_transitions(void **state)
{
	(void)state;
	/* The table of docs/jobs.md, written out independently of job.c. */
	static const char *const ok[] = {
		"pending>running", "pending>held", "pending>killed",
		"held>pending", "held>killed",
		"running>done", "running>failed", "running>killed", "running>checkpointing", "running>preempted",
		"checkpointing>running", "checkpointing>preempted", "checkpointing>done",
		"checkpointing>failed", "checkpointing>killed",
		"preempted>pending", "preempted>killed",
	};
	for (int a = 0; a < JOB_NSTATE; a++)
		for (int b = 0; b < JOB_NSTATE; b++) {
			char name[64];
			snprintf(name, sizeof name, "%s>%s", job_state_name(a), job_state_name(b));
			bool expect = false;
			for (size_t k = 0; k < sizeof ok / sizeof *ok; k++)
				expect |= strcmp(ok[k], name) == 0;
			struct job j;
			job_init(&j, 0, 0);
			j.state = (uint8_t)a;
			int rc = job_set_state(&j, b);
			if (expect) {
				assert_int_equal(rc, 0);
				assert_int_equal(j.state, b);
			} else {
				if (rc != -1)
					fail_msg("illegal transition %s accepted", name);
				assert_int_equal(j.state, a);
			}
		}
}

static void test_final_states(void **state)
{
	(void)state;
	assert_true(job_state_final(JOB_DONE));
	assert_true(job_state_final(JOB_FAILED));
	assert_true(job_state_final(JOB_KILLED));
	assert_false(job_state_final(JOB_PENDING));
	assert_false(job_state_final(JOB_PREEMPTED));
	assert_false(job_transition_ok(JOB_NSTATE, JOB_DONE));
}

static void test_names(void **state)
{
	(void)state;
	assert_int_equal(job_class_parse("training"), JOB_TRAINING);
	assert_int_equal(job_class_parse("dev"), JOB_DEV);
	assert_int_equal(job_class_parse("nope"), -1);
	struct job_req r = { .nodes = 2, .cores = 8, .gpus = 4 };
	assert_int_equal(job_req_cores(&r), 16);
	assert_int_equal(job_req_gpus(&r), 8);
	r.nodes = 0;
	r.gpus = 0;
	assert_int_equal(job_req_cores(&r), 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transitions),
		cmocka_unit_test(test_final_states),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests_name("job", tests, NULL, NULL);
}
