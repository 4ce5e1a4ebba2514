/* exec_registry: the executors' registry (live/exec/registry.c) and their
 * contract (live/exec/executor.h) — every registered executor is found by
 * its name and keeps the contract's rules (required hooks, poll or
 * observe, flags as documented), an unknown name is refused, by the
 * registry and by the config loader, whose message lists the names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/livecfg.h"
#include "live/exec/executor.h"
#include "tests/testutil.h"

static void test_found_by_name(void **state)
{
	(void)state;
	const struct live_executor *const *all = exec_all();
	int n = 0;
	for (; all[n]; n++) {
		const struct live_executor *x = all[n];
		assert_non_null(x->name);
		assert_ptr_equal(exec_find(x->name), x);
		assert_string_equal(exec_name(x), x->name);
		/* A name fits struct live_cfg's exec and is lower case. */
		assert_true(strlen(x->name) > 0 && strlen(x->name) < sizeof ((struct live_cfg *)0)->exec);
		for (const char *c = x->name; *c; c++)
			assert_true(islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_' || *c == '-');
		for (int k = 0; k < n; k++)
			assert_string_not_equal(all[k]->name, x->name);
	}
	assert_true(n >= 2);
	/* No name: the first, the default. */
	assert_ptr_equal(exec_find(""), all[0]);
	assert_ptr_equal(exec_find(NULL), all[0]);
	assert_string_equal(all[0]->name, "local");
}

static void test_unknown_refused(void **state)
{
	(void)state;
	assert_null(exec_find("nope"));
	assert_null(exec_find("Local"));
	assert_null(exec_find("slurm "));
	assert_null(exec_find("slur"));
	char buf[256];
	exec_names(buf, sizeof buf, "");
	assert_string_equal(buf, "local, slurm or instant");
	exec_names(buf, sizeof buf, "\"");
	assert_string_equal(buf, "\"local\", \"slurm\" or \"instant\"");
}

/* The hooks the contract calls required, and the pairs it documents. */
static void test_contract(void **state)
{
	(void)state;
	for (const struct live_executor *const *p = exec_all(); *p; p++) {
		const struct live_executor *x = *p;
		assert_non_null(x->init);
		assert_non_null(x->start);
		assert_non_null(x->signal);
		assert_non_null(x->stop);
		assert_non_null(x->node_state);
		/* observe and flush together; poll without them. */
		assert_int_equal(x->observe != NULL, x->flush != NULL);
		if (!x->observe)
			assert_non_null(x->poll);
		/* A start only an observer can confirm. */
		if (x->flags & EXEC_ASYNC_START)
			assert_non_null(x->observe);
		assert_int_equal(x->flags & ~(unsigned)(EXEC_ASYNC_START | EXEC_OWN_FATES | EXEC_EXPORT_IDS | EXEC_COMPACT), 0);
		/* keep and renumber only where ended jobs may leave. */
		if (!(x->flags & EXEC_COMPACT))
			assert_true(!x->keep && !x->renumber);
	}
}

/* The flags as docs/executors.md gives them for the three there are. */
static void test_flags(void **state)
{
	(void)state;
	assert_int_equal(exec_find("local")->flags, EXEC_COMPACT);
	assert_int_equal(exec_find("slurm")->flags, EXEC_ASYNC_START | EXEC_OWN_FATES | EXEC_EXPORT_IDS | EXEC_COMPACT);
	assert_int_equal(exec_find("instant")->flags, EXEC_COMPACT);
}

/* The loader checks "executor" with the registry: the name stored, an
 * unknown one refused with its JSON path and the names known. */
static void test_loader(void **state)
{
	(void)state;
	struct live_cfg *c = malloc(sizeof *c);
	assert_non_null(c);
	char err[1024];
	char *p = tu_write_tmp(".json", "{ \"scenario\": \"s.json\", \"executor\": \"slurm\" }");
	assert_int_equal(livecfg_load(p, c, err, sizeof err), 0);
	assert_string_equal(c->exec, "slurm");
	assert_ptr_equal(exec_find(c->exec), exec_find("slurm"));
	remove(p);
	free(p);
	p = tu_write_tmp(".json", "{ \"scenario\": \"s.json\" }");
	assert_int_equal(livecfg_load(p, c, err, sizeof err), 0);
	assert_string_equal(c->exec, "local");
	remove(p);
	free(p);
	p = tu_write_tmp(".json", "{ \"scenario\": \"s.json\", \"executor\": \"k8s\" }");
	assert_int_equal(livecfg_load(p, c, err, sizeof err), -1);
	if (!strstr(err, "$.executor") || !strstr(err, "expected \"local\", \"slurm\" or \"instant\", got \"k8s\""))
		fail_msg("message: %s", err);
	remove(p);
	free(p);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_found_by_name),
		cmocka_unit_test(test_unknown_refused),
		cmocka_unit_test(test_contract),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_loader),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
