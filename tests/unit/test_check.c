/* check: the core's invariant checks (sim/check.h) catch a broken free
 * state and an illegal state change, in the build that compiles them in
 * (make asan: -DHL_CHECKS); in the release build they cost nothing and
 * this test only says so. Each breakage runs in a child process, which
 * must abort with the invariant's message. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/catalog.h"
#include "sim/check.h"
#include "sim/cluster.h"
#include "sim/job.h"

static void build_cluster(struct cluster *cl)
{
	char err[512];
	cluster_init(cl);
	assert_int_equal(catalog_load_builtin(&cl->cat, err, sizeof err), 0);
	struct node_type t = { .gpu_model = catalog_find_gpu(&cl->cat, "A100-SXM-80GB"), .gpus = 2,
	                       .cpu_model = -1, .sockets = 1, .cores = 4, .numa = 1, .mem_mib = 4000 };
	snprintf(t.name, sizeof t.name, "n");
	int k = cluster_add_type(cl, &t);
	int r = cluster_add_rack(cl, "r", 100000, COOL_AIR);
	assert_true(k >= 0 && r >= 0);
	assert_int_equal(cluster_add_nodes(cl, r, k, 2), 0);
	if (cluster_finish(cl, err, sizeof err))
		fail_msg("%s", err);
}

/* Runs breakage k in a child; true when it aborted (its stderr, the
 * invariant's message, into msg). */
static bool aborts(int k, char *msg, size_t len)
{
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd[1], 2);
		close(fd[0]);
		struct cluster cl;
		build_cluster(&cl);
		if (k == 0) {
			cl.free[1].cores = 5;               /* more free cores than the node has */
			cluster_free_changed(&cl, 1);
		} else if (k == 1) {
			cl.free[0].gpu_free &= ~1ull;       /* a card gone from the bitmap, not from the count */
			cluster_free_changed(&cl, 0);
		} else {
			struct job j;
			job_init(&j, 0, 0);
			HL_VERIFY(job_set_state(&j, JOB_DONE) == 0);   /* pending to done: no such edge */
		}
		_exit(0);
	}
	close(fd[1]);
	ssize_t n = read(fd[0], msg, len - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(fd[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
}

static void test_checks(void **state)
{
	(void)state;
	char msg[512];
#ifdef HL_CHECKS
	static const char *const want[] = { "f->cores <= n->cores", "f->gpus == hl_popcount64(f->gpu_free)",
	                                    "job_set_state(&j, JOB_DONE) == 0" };
	for (int k = 0; k < 3; k++) {
		if (!aborts(k, msg, sizeof msg))
			fail_msg("breakage %d did not abort (stderr: %s)", k, msg);
		assert_non_null(strstr(msg, "hetlab: internal invariant broken:"));
		assert_non_null(strstr(msg, want[k]));
	}
#else
	for (int k = 0; k < 3; k++)
		assert_false(aborts(k, msg, sizeof msg));   /* compiled out: nothing checked */
	print_message("invariant checks are compiled out of this build (make asan compiles them in)\n");
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checks),
	};
	return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
