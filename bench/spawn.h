/* spawn — running a program as a child and measuring it: wall time, CPU
 * time (user + system, from wait4) and peak RSS, so that each run's figures
 * are its own. Header-only, for the benchmarks that time `hetlab` itself
 * (bench/cons.c, bench/scale.c, bench/sweep.c). */
#ifndef HL_BENCH_SPAWN_H
#define HL_BENCH_SPAWN_H

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/benchutil.h"

extern char **environ;

struct bench_run {
	double wall_s, cpu_s, rss_mib;
	double user_s, sys_s;     /* cpu_s in user space and in the kernel */
	int status;               /* the exit status; -1 when it did not run or died */
	long minflt;              /* page faults served without I/O (first touches of memory) */
};

/* Runs argv[0] with argv and waits; quiet 1: stdout to /dev/null, 2: stderr
 * too; errfile (when not NULL): stderr into that file instead. */
static inline struct bench_run bench_spawn_err(char *const *argv, int quiet, const char *errfile)
{
	struct bench_run r = { .status = -1 };
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (quiet >= 1)
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (errfile)
		posix_spawn_file_actions_addopen(&fa, 2, errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	else if (quiet >= 2)
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	double t0 = bench_now_s();
	int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return r;
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) != pid)
		return r;
	r.wall_s = bench_now_s() - t0;
	r.user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	r.sys_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	r.cpu_s = r.user_s + r.sys_s;
	r.rss_mib = ru.ru_maxrss / 1024.0;
	r.minflt = ru.ru_minflt;
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return r;
}

static inline struct bench_run bench_spawn(char *const *argv, int quiet)
{
	return bench_spawn_err(argv, quiet, NULL);
}

/* A temporary directory for a benchmark's files, removed with all it holds
 * when the program exits (whatever the path that gets there). NULL (with a
 * message) when it cannot be made. */
static char bench_tmp[64];

static void bench_tmp_remove(void)
{
	char cmd[96];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", bench_tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", bench_tmp);
}

static inline const char *bench_tmpdir(const char *name)
{
	snprintf(bench_tmp, sizeof bench_tmp, "/tmp/hetlab-%s-XXXXXX", name);
	if (!mkdtemp(bench_tmp)) {
		fprintf(stderr, "%s: mkdtemp: %s\n", name, strerror(errno));
		return NULL;
	}
	atexit(bench_tmp_remove);
	return bench_tmp;
}

#endif
