/* Tests of analysis/tmpclean: in a child process that installs the
 * handlers and registers a temporary file, SIGINT, SIGTERM and SIGHUP
 * remove the file and end the child by that signal (the shell's status
 * 128 + signal); a signal ignored before (nohup) stays ignored; a
 * registered child process gets the signal too; a dropped slot is no longer
 * removed; the stale temporary files of dead processes are removed, those
 * of live ones and other names are not; and the recorder removes a dead
 * run's temporary file of the same output when it opens it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/recorder.h"
#include "analysis/tmpclean.h"
#include "tests/testutil.h"

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("x", f);
	fclose(f);
}

/* A pid that is no process's: a child that has exited and been reaped. */
static pid_t dead_pid(void)
{
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0)
		_exit(0);
	assert_int_equal(waitpid(p, NULL, 0), p);
	return p;
}

/* In a child: installs the handlers, registers `file` (and drops it when
 * `drop`), optionally ignores sig first, then raises sig. The child's
 * wait status. */
static int signalled_child(const char *file, int sig, bool ignore_first, bool drop)
{
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		/* From the default disposition unless asked: a test run under
		 * nohup inherits SIGHUP ignored, which tmpclean rightly keeps. */
		signal(sig, ignore_first ? SIG_IGN : SIG_DFL);
		if (tmpclean_install() < 0)
			_exit(3);
		touch(file);
		int slot = tmpclean_add(file);
		if (slot < 0)
			_exit(4);
		if (drop)
			tmpclean_drop(slot);
		raise(sig);
		_exit(0);   /* only when the signal was ignored */
	}
	int st = 0;
	assert_int_equal(waitpid(p, &st, 0), p);
	return st;
}

static void test_signals_remove(void **state)
{
	(void)state;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		char *f = tu_tmpath(".db.tmp-1");
		int st = signalled_child(f, sigs[i], false, false);
		assert_true(WIFSIGNALED(st));
		assert_int_equal(WTERMSIG(st), sigs[i]);
		assert_false(exists(f));
		free(f);
	}
}

static void test_ignored_stays_ignored(void **state)
{
	(void)state;
	char *f = tu_tmpath(".db.tmp-2");
	int st = signalled_child(f, SIGINT, true, false);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_true(exists(f));
	unlink(f);
	free(f);
}

static void test_dropped_slot_kept(void **state)
{
	(void)state;
	char *f = tu_tmpath(".db");
	int st = signalled_child(f, SIGTERM, false, true);
	assert_true(WIFSIGNALED(st));
	assert_true(exists(f));   /* renamed into place already, say */
	unlink(f);
	free(f);
}

static void test_children_get_it(void **state)
{
	(void)state;
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		tmpclean_install();
		pid_t c = fork();
		if (c == 0) {
			close(fd[0]);
			pause();
			_exit(0);
		}
		tmpclean_child(c);
		/* Tell the test which pid the grandchild has. */
		if (write(fd[1], &c, sizeof c) != (ssize_t)sizeof c)
			_exit(5);
		raise(SIGTERM);
		_exit(0);
	}
	close(fd[1]);
	pid_t c = 0;
	assert_int_equal(read(fd[0], &c, sizeof c), (ssize_t)sizeof c);
	close(fd[0]);
	int st = 0;
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGTERM);
	/* The grandchild (reparented) ends by the signal: it cannot be waited
	 * for here, so wait for it to be gone. */
	for (int i = 0; i < 1000 && kill(c, 0) == 0; i++)
		usleep(10000);
	assert_int_equal(kill(c, 0), -1);
	assert_int_equal(errno, ESRCH);
}

static void test_stale(void **state)
{
	(void)state;
	char *dir = tu_tmpath("");
	assert_int_equal(mkdir(dir, 0700), 0);
	char out[4096], dead[4200], live[4200], mine[4200], other[4200], notpid[4200];
	snprintf(out, sizeof out, "%s/run.db", dir);
	snprintf(dead, sizeof dead, "%s.tmp-%ld", out, (long)dead_pid());
	snprintf(live, sizeof live, "%s.tmp-%ld", out, (long)getppid());
	snprintf(mine, sizeof mine, "%s.tmp-%ld", out, (long)getpid());
	snprintf(other, sizeof other, "%s/runs.db.tmp-%ld", dir, (long)dead_pid());
	snprintf(notpid, sizeof notpid, "%s.tmp-12ab", out);
	const char *all[] = { dead, live, mine, other, notpid };
	for (int i = 0; i < 5; i++)
		touch(all[i]);
	char err[256] = "";
	assert_int_equal(tmpclean_stale(out, err, sizeof err), 1);
	assert_false(exists(dead));
	for (int i = 1; i < 5; i++)
		assert_true(exists(all[i]));
	/* A name without a directory is looked for in the current one. */
	assert_int_equal(tmpclean_stale("no-such-output.db", err, sizeof err), 0);

	/* The recorder's open does it for its output. */
	touch(dead);
	char *name = tmpclean_name(out);
	assert_string_equal(name, mine);
	free(name);
	struct recorder *r = recorder_open(out, err, sizeof err);
	assert_non_null(r);
	assert_false(exists(dead));
	assert_true(exists(live));
	recorder_abort(r);
	assert_false(exists(mine));   /* its own: aborted, removed */
	for (int i = 1; i < 5; i++)
		unlink(all[i]);
	assert_int_equal(rmdir(dir), 0);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signals_remove),
		cmocka_unit_test(test_ignored_stays_ignored),
		cmocka_unit_test(test_dropped_slot_kept),
		cmocka_unit_test(test_children_get_it),
		cmocka_unit_test(test_stale),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
