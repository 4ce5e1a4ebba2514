/* exec_local: live mode's local executor (live/exec_local) with real child
 * processes, each test in a fresh temporary state directory: exit codes,
 * signals and exec failure; CPU affinity; environment, CUDA_VISIBLE_DEVICES,
 * cwd and output file; descriptors, the lock and the process structure;
 * preemption by signal, kill of the whole process group, leftovers killed at
 * the end; a daemon that dies after launching; a shim that is SIGKILLed
 * (LOST); removal; bad input. The cgroup test depends on the host: the full
 * check needs a cgroup v2 directory where the memory and cpu controllers can
 * be given to children (root on a cgroup v2 host); elsewhere it prints why it
 * skipped that part and checks only that a job runs, with a warning, when its
 * cgroup parent is not usable. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live/exec/local_proc.h"

enum { WAIT_MS = 5000, TEXT = 8192 };

struct ctx {
	char dir[PATH_MAX];
};

/* A job run by /bin/sh -c SCRIPT (the test's program; the executor itself
 * never builds shell strings). Not to be copied once made. */
struct shjob {
	char script[1024];
	const char *argv[4];
	struct lx_spec sp;
};

static void shjob_make(struct shjob *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void shjob_make(struct shjob *j, const char *fmt, ...)
{
	memset(j, 0, sizeof *j);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(j->script, sizeof j->script, fmt, ap);
	va_end(ap);
	j->argv[0] = "/bin/sh";
	j->argv[1] = "-c";
	j->argv[2] = j->script;
	j->argv[3] = NULL;
	j->sp.argv = j->argv;
}

static long long now_ms(void);
static void nap_ms(int ms);

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof *c);
	const char *tmp = getenv("TMPDIR");
	snprintf(c->dir, sizeof c->dir, "%s/hetlab-lx-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(c->dir))
		return -1;
	*state = c;
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	/* Our children are shims of ended jobs, about to exit: reap them all. */
	long long end = now_ms() + WAIT_MS;
	while (waitpid(-1, NULL, WNOHANG) >= 0 && now_ms() < end)
		nap_ms(2);
	lx_reap();
	nftw(c->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(c);
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void nap_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void path_of(char *buf, const struct ctx *c, long long key, const char *suffix)
{
	snprintf(buf, PATH_MAX, "%s/%lld%s", c->dir, key, suffix);
}

/* The whole of a small file ("" when missing). */
static const char *slurp(const char *path)
{
	static char buf[TEXT];
	buf[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return buf;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static const char *out_of(const struct ctx *c, long long key)
{
	char p[PATH_MAX];
	path_of(p, c, key, ".out");
	return slurp(p);
}

static void launch_ok(const struct ctx *c, int64_t key, const struct lx_spec *sp, struct lx_handle *h)
{
	char err[512];
	int rc = lx_launch(c->dir, key, sp, h, err, sizeof err);
	if (rc != 0)
		print_message("lx_launch: %s\n", err);
	assert_int_equal(rc, 0);
	assert_true(h->shim > 1 && h->job > 1 && h->shim != h->job);
}

/* Polls until the key is no longer RUNNING, or the deadline. */
static struct lx_result wait_end(const struct ctx *c, int64_t key)
{
	struct lx_result r;
	long long end = now_ms() + WAIT_MS;
	for (;;) {
		assert_int_equal(lx_poll(c->dir, key, &r), 0);
		if (r.st != LX_RUNNING || now_ms() > end)
			return r;
		nap_ms(5);
	}
}

static void expect_exit(const struct ctx *c, int64_t key, int code, int sig)
{
	struct lx_result r = wait_end(c, key);
	if (r.st != LX_EXITED || r.code != code || r.sig != sig)
		print_message("key %lld: status %d code %d sig %d; output:\n%s\n", (long long)key,
			      (int)r.st, r.code, r.sig, out_of(c, key));
	assert_int_equal(r.st, LX_EXITED);
	assert_int_equal(r.code, code);
	assert_int_equal(r.sig, sig);
}

static void wait_out(const struct ctx *c, int64_t key, const char *needle)
{
	long long end = now_ms() + WAIT_MS;
	while (!strstr(out_of(c, key), needle) && now_ms() < end)
		nap_ms(5);
	if (!strstr(out_of(c, key), needle))
		print_message("key %lld: no \"%s\" in output:\n%s\n", (long long)key, needle, out_of(c, key));
	assert_non_null(strstr(out_of(c, key), needle));
}

/* Gone, or a zombie (an orphan whose reaper is slow or absent). */
static int pid_gone(pid_t pid)
{
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 1;
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	const char *s = slurp(path);
	const char *q = strrchr(s, ')');
	return !*s || (q && (q[2] == 'Z' || q[2] == 'X'));
}

static void wait_gone(pid_t pid)
{
	long long end = now_ms() + WAIT_MS;
	while (!pid_gone(pid) && now_ms() < end)
		nap_ms(5);
	assert_true(pid_gone(pid));
}

/* lx_poll of an ended key reaps its shim (once the shim has ended). */
static void expect_reaped_by_poll(const struct ctx *c, int64_t key, pid_t shim)
{
	long long end = now_ms() + WAIT_MS;
	siginfo_t si;
	struct lx_result r;
	for (;;) {
		assert_int_equal(lx_poll(c->dir, key, &r), 0);
		assert_true(r.st == LX_EXITED || r.st == LX_LOST);
		if (waitid(P_PID, (id_t)shim, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || now_ms() > end)
			break;
		nap_ms(2);
	}
	assert_int_equal(waitid(P_PID, (id_t)shim, &si, WEXITED | WNOHANG | WNOWAIT), -1);
	assert_int_equal(errno, ECHILD);
}

static pid_t read_pid_file(const char *path)
{
	long end = now_ms() + WAIT_MS;
	long v = 0;
	while ((v = atol(slurp(path))) <= 0 && now_ms() < end)
		nap_ms(5);
	assert_true(v > 1);
	return (pid_t)v;
}

/* ---- 1. exit codes, signals, exec failure -------------------------------- */

static void test_exit_codes(void **state)
{
	const struct ctx *c = *state;
	static const char *const true_argv[] = { "true", NULL };
	static const char *const none_argv[] = { "hetlab-no-such-program", "x", NULL };
	struct lx_spec sp_true = { .argv = true_argv }, sp_none = { .argv = none_argv };
	struct shjob j3, jsegv, jterm;
	struct lx_handle h;
	shjob_make(&j3, "exit 3");
	shjob_make(&jsegv, "kill -SEGV $$; sleep 5");
	shjob_make(&jterm, "kill -TERM $$; sleep 5");

	/* The daemon may ignore SIGTERM; the job must not inherit that. */
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGTERM, &ign, &old);
	launch_ok(c, 1, &sp_true, &h);
	launch_ok(c, 2, &j3.sp, &h);
	launch_ok(c, 3, &sp_none, &h);
	launch_ok(c, 4, &jsegv.sp, &h);
	launch_ok(c, 5, &jterm.sp, &h);
	sigaction(SIGTERM, &old, NULL);

	expect_exit(c, 1, 0, 0);
	expect_exit(c, 2, 3, 0);
	expect_exit(c, 3, 127, 0);
	expect_exit(c, 4, -1, SIGSEGV);
	expect_exit(c, 5, -1, SIGTERM);

	char p[PATH_MAX];
	path_of(p, c, 2, ".exit");
	assert_string_equal(slurp(p), "exited 3\n");
	path_of(p, c, 4, ".exit");
	assert_string_equal(slurp(p), "signaled 11\n");
	const char *o = out_of(c, 3);
	assert_non_null(strstr(o, "hetlab: cannot execute 'hetlab-no-such-program'"));
	assert_non_null(strstr(o, "No such file"));
}

/* ---- 2. affinity ------------------------------------------------------------ */

static void test_affinity(void **state)
{
	const struct ctx *c = *state;
	cpu_set_t mine;
	assert_int_equal(sched_getaffinity(0, sizeof mine, &mine), 0);
	static const struct { int cpus[2]; int n; const char *want; } cases[] = {
		{ { 0 }, 1, "Cpus_allowed_list:\t0\n" },
		{ { 1 }, 1, "Cpus_allowed_list:\t1\n" },
		{ { 0, 1 }, 2, "Cpus_allowed_list:\t0-1\n" },
	};
	for (int i = 0; i < 3; i++) {
		int ok = 1;
		for (int k = 0; k < cases[i].n; k++)
			ok &= CPU_ISSET(cases[i].cpus[k], &mine);
		if (!ok) {
			print_message("affinity case %d skipped: CPU not available to this process\n", i);
			continue;
		}
		struct shjob j;
		struct lx_handle h;
		shjob_make(&j, "grep Cpus_allowed_list /proc/self/status");
		j.sp.cpus = cases[i].cpus;
		j.sp.ncpus = cases[i].n;
		launch_ok(c, 10 + i, &j.sp, &h);
		expect_exit(c, 10 + i, 0, 0);
		assert_string_equal(out_of(c, 10 + i), cases[i].want);
	}
}

/* ---- 3. environment, cwd, output ------------------------------------------- */

static void test_env(void **state)
{
	const struct ctx *c = *state;
	char real[PATH_MAX], want[PATH_MAX + 128], p[PATH_MAX];
	assert_non_null(realpath(c->dir, real));
	setenv("HETLAB_JOB_ID", "1", 1);
	setenv("CUDA_VISIBLE_DEVICES", "9", 1);
	setenv("HETLAB_LX_INHERITED", "yes", 1);

	static const char *const env[] = { "HETLAB_JOB_ID=7", "CUDA_VISIBLE_DEVICES=5", NULL };
	struct shjob a, b, e;
	struct lx_handle h;
	shjob_make(&a, "echo \"cvd=[$CUDA_VISIBLE_DEVICES] id=[$HETLAB_JOB_ID] inh=[$HETLAB_LX_INHERITED] pwd=[$(pwd)]\";"
		   " env | grep -c '^HETLAB_JOB_ID='");
	a.sp.env = env;
	a.sp.cuda_visible = "0,2";
	launch_ok(c, 20, &a.sp, &h);
	shjob_make(&b, "echo \"cvd=[${CUDA_VISIBLE_DEVICES-unset}]\"");
	launch_ok(c, 21, &b.sp, &h);
	shjob_make(&e, "echo \"cvd=[${CUDA_VISIBLE_DEVICES-unset}]\"");
	e.sp.cuda_visible = "";
	launch_ok(c, 22, &e.sp, &h);

	/* PATH from env is the one execvp searches. */
	snprintf(p, sizeof p, "%s/bin", c->dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/bin/hetlab-lx-tool", c->dir);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\necho tool ran \"$1\"\n", f);
	fclose(f);
	chmod(p, 0755);
	char pathvar[PATH_MAX + 8];
	snprintf(pathvar, sizeof pathvar, "PATH=%s/bin:/usr/bin:/bin", c->dir);
	const char *tool_env[] = { pathvar, NULL };
	static const char *const tool_argv[] = { "hetlab-lx-tool", "arg one", NULL };
	struct lx_spec tool = { .argv = tool_argv, .env = tool_env };
	launch_ok(c, 23, &tool, &h);

	/* cwd and out_path, truncated then appended. */
	struct shjob d;
	char out[PATH_MAX];
	snprintf(out, sizeof out, "%s/custom.log", c->dir);
	shjob_make(&d, "pwd; echo err >&2");
	d.sp.cwd = "/";
	d.sp.out_path = out;
	launch_ok(c, 24, &d.sp, &h);

	expect_exit(c, 20, 0, 0);
	snprintf(want, sizeof want, "cvd=[0,2] id=[7] inh=[yes] pwd=[%s]\n1\n", real);
	assert_string_equal(out_of(c, 20), want);
	expect_exit(c, 21, 0, 0);
	assert_string_equal(out_of(c, 21), "cvd=[unset]\n");
	expect_exit(c, 22, 0, 0);
	assert_string_equal(out_of(c, 22), "cvd=[]\n");
	expect_exit(c, 23, 0, 0);
	assert_string_equal(out_of(c, 23), "tool ran arg one\n");
	expect_exit(c, 24, 0, 0);
	assert_string_equal(slurp(out), "/\nerr\n");
	assert_string_equal(out_of(c, 24), "");

	assert_int_equal(lx_remove(c->dir, 24), 0);
	d.sp.out_append = 1;
	launch_ok(c, 24, &d.sp, &h);
	expect_exit(c, 24, 0, 0);
	assert_string_equal(slurp(out), "/\nerr\n/\nerr\n");
	assert_int_equal(lx_remove(c->dir, 24), 0);
	d.sp.out_append = 0;
	launch_ok(c, 24, &d.sp, &h);
	expect_exit(c, 24, 0, 0);
	assert_string_equal(slurp(out), "/\nerr\n");

	unsetenv("HETLAB_JOB_ID");
	unsetenv("CUDA_VISIBLE_DEVICES");
	unsetenv("HETLAB_LX_INHERITED");
}

/* ---- descriptors, the lock, process structure, removal --------------------- */

static int fd_count_and_check(pid_t pid, const char *lock, int *has_lock)
{
	char p[64], link[PATH_MAX], target[PATH_MAX];
	snprintf(p, sizeof p, "/proc/%ld/fd", (long)pid);
	DIR *d = opendir(p);
	assert_non_null(d);
	struct rlimit rl;
	long lim = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (long)rl.rlim_cur : LONG_MAX;
	int n = 0;
	*has_lock = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		/* valgrind keeps its own descriptors above the limit it reports */
		if (e->d_name[0] == '.' || atol(e->d_name) >= lim)
			continue;
		n++;
		snprintf(link, sizeof link, "%s/%s", p, e->d_name);
		ssize_t k = readlink(link, target, sizeof target - 1);
		if (k > 0) {
			target[k] = '\0';
			if (strcmp(target, lock) == 0)
				*has_lock = 1;
		}
	}
	closedir(d);
	return n;
}

static int wait_fds(pid_t pid, const char *lock, int want, int *has_lock)
{
	long long end = now_ms() + WAIT_MS;
	int n;
	while ((n = fd_count_and_check(pid, lock, has_lock)) != want && now_ms() < end)
		nap_ms(2);
	return n;
}

static void test_fds_lock(void **state)
{
	const struct ctx *c = *state;
	static const char *const argv[] = { "sleep", "5", NULL };
	struct lx_spec sp = { .argv = argv };
	struct lx_handle h, h2;
	char err[512], p[PATH_MAX], lock[PATH_MAX], out[PATH_MAX], comm[64];
	int leak = open("/dev/null", O_RDONLY);     /* not close-on-exec */
	assert_true(leak >= 0);
	launch_ok(c, 30, &sp, &h);
	close(leak);

	/* The pid file is there when lx_launch returns. */
	path_of(p, c, 30, ".pid");
	snprintf(err, sizeof err, "%ld %ld\n", (long)h.shim, (long)h.job);
	assert_string_equal(slurp(p), err);

	snprintf(comm, sizeof comm, "/proc/%ld/comm", (long)h.job);
	long long end = now_ms() + WAIT_MS;
	while (strcmp(slurp(comm), "sleep\n") != 0 && now_ms() < end)
		nap_ms(2);
	assert_string_equal(slurp(comm), "sleep\n");
	snprintf(comm, sizeof comm, "/proc/%ld/comm", (long)h.shim);
	assert_string_equal(slurp(comm), "hetlab-shim\n");

	path_of(p, c, 30, ".lock");
	assert_non_null(realpath(p, lock));
	path_of(p, c, 30, ".out");
	assert_non_null(realpath(p, out));
	/* Waits out the dynamic loader's descriptors in the job and the launch
	 * pipe in the shim (it goes just after lx_launch returns); a leaked
	 * descriptor stays. */
	int has_lock;
	assert_int_equal(wait_fds(h.job, lock, 3, &has_lock), 3);
	assert_false(has_lock);
	assert_int_equal(wait_fds(h.shim, lock, 4, &has_lock), 4);
	assert_true(has_lock);
	char link[64], target[PATH_MAX];
	snprintf(link, sizeof link, "/proc/%ld/fd/0", (long)h.job);
	ssize_t k = readlink(link, target, sizeof target - 1);
	assert_true(k > 0);
	target[k] = '\0';
	assert_string_equal(target, "/dev/null");
	snprintf(link, sizeof link, "/proc/%ld/fd/2", (long)h.job);
	k = readlink(link, target, sizeof target - 1);
	assert_true(k > 0);
	target[k] = '\0';
	assert_string_equal(target, out);

	assert_int_equal(getpgid(h.job), h.job);
	assert_int_equal(getsid(h.shim), h.shim);
	assert_int_equal(getsid(h.job), h.shim);
	assert_int_not_equal(getsid(h.shim), getsid(0));

	/* Running: a second launch and removal are refused. */
	assert_int_equal(lx_launch(c->dir, 30, &sp, &h2, err, sizeof err), -1);
	assert_non_null(strstr(err, "already running"));
	errno = 0;
	assert_int_equal(lx_remove(c->dir, 30), -1);
	assert_int_equal(errno, EBUSY);

	assert_int_equal(lx_kill(c->dir, 30), 0);
	expect_exit(c, 30, -1, SIGKILL);
	errno = 0;
	assert_int_equal(lx_signal(c->dir, 30, SIGTERM), -1);
	assert_int_equal(errno, ESRCH);
	/* An end not yet removed is not overwritten. */
	assert_int_equal(lx_launch(c->dir, 30, &sp, &h2, err, sizeof err), -1);
	assert_non_null(strstr(err, "not yet removed"));
	expect_reaped_by_poll(c, 30, h.shim);

	assert_int_equal(lx_remove(c->dir, 30), 0);
	struct lx_result r;
	assert_int_equal(lx_poll(c->dir, 30, &r), 0);
	assert_int_equal(r.st, LX_NEVER);
	assert_int_equal(access(lock, F_OK), -1);
	assert_int_equal(access(out, F_OK), 0);
}

/* ---- 4. preemption --------------------------------------------------------- */

static void test_checkpoint_signal(void **state)
{
	const struct ctx *c = *state;
	struct shjob j;
	struct lx_handle h;
	shjob_make(&j, "trap 'echo ckpt; exit 0' USR1; echo ready; while :; do sleep 0.1; done");
	launch_ok(c, 40, &j.sp, &h);
	wait_out(c, 40, "ready");
	assert_int_equal(lx_signal(c->dir, 40, SIGUSR1), 0);
	expect_exit(c, 40, 0, 0);
	assert_non_null(strstr(out_of(c, 40), "ckpt\n"));
	errno = 0;
	assert_int_equal(lx_signal(c->dir, 40, SIGUSR1), -1);
	assert_int_equal(errno, ESRCH);
}

static void test_ignore_then_kill(void **state)
{
	const struct ctx *c = *state;
	struct shjob j;
	struct lx_handle h;
	struct lx_result r;
	char bg[PATH_MAX];
	snprintf(bg, sizeof bg, "%s/bg.pid", c->dir);
	shjob_make(&j, "trap '' USR1; sleep 1000 & echo $! > %s; echo ready; while :; do sleep 0.1; done", bg);
	launch_ok(c, 41, &j.sp, &h);
	wait_out(c, 41, "ready");
	pid_t child = read_pid_file(bg);
	assert_false(pid_gone(child));
	assert_int_equal(lx_signal(c->dir, 41, SIGUSR1), 0);
	nap_ms(500);
	assert_int_equal(lx_poll(c->dir, 41, &r), 0);
	assert_int_equal(r.st, LX_RUNNING);
	assert_int_equal(lx_kill(c->dir, 41), 0);
	expect_exit(c, 41, -1, SIGKILL);
	wait_gone(child);
	wait_gone(h.job);
}

/* What a job leaves behind in its process group dies when it ends. */
static void test_leftovers_killed(void **state)
{
	const struct ctx *c = *state;
	struct shjob j;
	struct lx_handle h;
	char bg[PATH_MAX];
	snprintf(bg, sizeof bg, "%s/bg.pid", c->dir);
	shjob_make(&j, "sleep 1000 & echo $! > %s.tmp; mv %s.tmp %s; exit 4", bg, bg, bg);
	launch_ok(c, 42, &j.sp, &h);
	expect_exit(c, 42, 4, 0);
	pid_t child = read_pid_file(bg);
	wait_gone(child);
}

/* Signals sent to the shim reach the job. */
static void test_shim_forwards(void **state)
{
	const struct ctx *c = *state;
	struct shjob j;
	struct lx_handle h;
	shjob_make(&j, "trap 'echo got-hup; exit 7' HUP; echo ready; while :; do sleep 0.1; done");
	launch_ok(c, 43, &j.sp, &h);
	wait_out(c, 43, "ready");
	assert_int_equal(kill(h.shim, SIGHUP), 0);
	expect_exit(c, 43, 7, 0);
	assert_non_null(strstr(out_of(c, 43), "got-hup\n"));
	shjob_make(&j, "echo ready; while :; do sleep 0.1; done");
	launch_ok(c, 44, &j.sp, &h);
	wait_out(c, 44, "ready");
	assert_int_equal(kill(h.shim, SIGTERM), 0);
	expect_exit(c, 44, -1, SIGTERM);
}

/* ---- 5. crash recovery ------------------------------------------------------ */

static void test_daemon_dies(void **state)
{
	const struct ctx *c = *state;
	struct lx_result r;
	pid_t d = fork();
	assert_true(d >= 0);
	if (d == 0) {
		struct shjob j;
		struct lx_handle h;
		char err[256];
		shjob_make(&j, "sleep 0.5; exit 5");
		_exit(lx_launch(c->dir, 50, &j.sp, &h, err, sizeof err) == 0 ? 0 : 1);
	}
	int st;
	assert_int_equal(waitpid(d, &st, 0), d);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(lx_poll(c->dir, 50, &r), 0);
	assert_int_equal(r.st, LX_RUNNING);
	expect_exit(c, 50, 5, 0);
}

static void test_shim_killed(void **state)
{
	const struct ctx *c = *state;
	struct shjob j;
	struct lx_handle h;
	struct lx_result r;
	shjob_make(&j, "echo ready; exec sleep 30");
	launch_ok(c, 51, &j.sp, &h);
	wait_out(c, 51, "ready");
	assert_int_equal(kill(h.shim, SIGKILL), 0);
	long long end = now_ms() + WAIT_MS;
	do {
		assert_int_equal(lx_poll(c->dir, 51, &r), 0);
	} while (r.st == LX_RUNNING && now_ms() < end && (nap_ms(5), 1));
	assert_int_equal(r.st, LX_LOST);
	assert_int_equal(r.code, -1);
	wait_gone(h.job);
	expect_reaped_by_poll(c, 51, h.shim);
	errno = 0;
	assert_int_equal(lx_signal(c->dir, 51, SIGTERM), -1);
	assert_int_equal(errno, ESRCH);

	/* A LOST key may be launched again. */
	launch_ok(c, 51, &j.sp, &h);
	wait_out(c, 51, "ready");
	assert_int_equal(lx_kill(c->dir, 51), 0);
	expect_exit(c, 51, -1, SIGKILL);
}

static void test_never(void **state)
{
	const struct ctx *c = *state;
	struct lx_result r;
	assert_int_equal(lx_poll(c->dir, 4242, &r), 0);
	assert_int_equal(r.st, LX_NEVER);
	errno = 0;
	assert_int_equal(lx_signal(c->dir, 4242, SIGTERM), -1);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(lx_remove(c->dir, 4242), 0);
	assert_int_equal(lx_reap_shim(getpid()), -1);
}

/* A pid file naming a live process group (the pid reused after the job
 * ended) is not signalled unless the lock says RUNNING. */
static void test_pid_reuse(void **state)
{
	const struct ctx *c = *state;
	struct lx_handle h;
	static const char *const argv[] = { "true", NULL };
	struct lx_spec sp = { .argv = argv };
	pid_t other = fork();
	assert_true(other >= 0);
	if (other == 0) {
		setpgid(0, 0);
		alarm(20);      /* never outlives a failed test for long */
		for (;;)
			pause();
	}
	setpgid(other, other);
	launch_ok(c, 55, &sp, &h);
	expect_exit(c, 55, 0, 0);
	pid_t w = waitpid(h.shim, NULL, 0);     /* the lock goes just after the exit record */
	assert_true(w == h.shim || (w < 0 && errno == ECHILD));
	char p[PATH_MAX], lock[PATH_MAX];
	path_of(p, c, 55, ".pid");
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "%ld %ld\n", (long)other, (long)other);
	fclose(f);
	errno = 0;
	assert_int_equal(lx_signal(c->dir, 55, SIGTERM), -1);
	assert_int_equal(errno, ESRCH);
	/* The same as LOST: a lock nobody holds, no exit record. */
	path_of(p, c, 55, ".exit");
	assert_int_equal(unlink(p), 0);
	struct lx_result r;
	assert_int_equal(lx_poll(c->dir, 55, &r), 0);
	assert_int_equal(r.st, LX_LOST);
	assert_int_equal(lx_kill(c->dir, 55), -1);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(waitpid(other, NULL, WNOHANG), 0);       /* still alive */
	/* lx_poll's reaping leaves a child that is not a shim alone. */
	kill(other, SIGKILL);
	siginfo_t si;
	assert_int_equal(waitid(P_PID, (id_t)other, &si, WEXITED | WNOWAIT), 0);
	assert_int_equal(lx_poll(c->dir, 55, &r), 0);
	assert_int_equal(lx_reap_shim(other), -1);
	assert_int_equal(waitpid(other, NULL, 0), other);
	path_of(lock, c, 55, ".lock");
	assert_int_equal(lx_remove(c->dir, 55), 0);
	assert_int_equal(access(lock, F_OK), -1);
}

/* ---- bad input --------------------------------------------------------------- */

static void test_bad_input(void **state)
{
	const struct ctx *c = *state;
	static const char *const ok_argv[] = { "true", NULL };
	static const char *const empty_argv[] = { NULL };
	static const char *const bad_env[] = { "NOEQUALS", NULL };
	static const int bad_cpu[] = { CPU_SETSIZE };
	char out[PATH_MAX];
	snprintf(out, sizeof out, "%s/no/such/dir/x.out", c->dir);
	const struct { struct lx_spec sp; const char *dir; const char *msg; } cases[] = {
		{ { .argv = NULL }, c->dir, "no program" },
		{ { .argv = empty_argv }, c->dir, "no program" },
		{ { .argv = ok_argv, .env = bad_env }, c->dir, "NAME=VALUE" },
		{ { .argv = ok_argv, .cpus = bad_cpu, .ncpus = 1 }, c->dir, "cpus[0]" },
		{ { .argv = ok_argv, .ncpus = 2 }, c->dir, "without a list" },
		{ { .argv = ok_argv, .cwd = "/hetlab-no-such-dir" }, c->dir, "/hetlab-no-such-dir" },
		{ { .argv = ok_argv, .out_path = out }, c->dir, "x.out" },
		{ { .argv = ok_argv, .mem_max_bytes = -1 }, c->dir, "negative" },
		{ { .argv = ok_argv }, "/hetlab-no-such-dir/state", "/hetlab-no-such-dir/state" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[512] = "";
		struct lx_handle h;
		struct lx_result r;
		assert_int_equal(lx_launch(cases[i].dir, 60, &cases[i].sp, &h, err, sizeof err), -1);
		if (!strstr(err, cases[i].msg))
			print_message("case %zu: \"%s\" lacks \"%s\"\n", i, err, cases[i].msg);
		assert_non_null(strstr(err, cases[i].msg));
		assert_int_equal(lx_poll(c->dir, 60, &r), 0);
		assert_int_equal(r.st, LX_NEVER);
	}
	char err[64];
	struct lx_spec sp = { .argv = ok_argv };
	assert_int_equal(lx_launch(c->dir, 60, &sp, NULL, err, sizeof err), -1);
}

/* ---- 6. cgroups --------------------------------------------------------------- */

/* The first cgroup v2 mount point, or "" . */
static void cgroup2_mount(char *buf, size_t n)
{
	buf[0] = '\0';
	FILE *f = fopen("/proc/self/mounts", "r");
	if (!f)
		return;
	char dev[256], mnt[PATH_MAX], type[64];
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, mnt, type) == 3)
		if (strcmp(type, "cgroup2") == 0) {
			snprintf(buf, n, "%s", mnt);
			break;
		}
	fclose(f);
}

static void test_cgroup(void **state)
{
	const struct ctx *c = *state;
	struct lx_handle h;
	char mnt[PATH_MAX], parent[PATH_MAX + 64], why[512] = "", p[PATH_MAX + 128];
	cgroup2_mount(mnt, sizeof mnt);
	int made = 0, full = 0;
	if (!mnt[0]) {
		snprintf(why, sizeof why, "no cgroup v2 file system mounted");
	} else {
		snprintf(parent, sizeof parent, "%s/hetlab-test-%ld", mnt, (long)getpid());
		made = mkdir(parent, 0755) == 0;
		if (!made)
			snprintf(why, sizeof why, "cannot create %s: %s", parent, strerror(errno));
		else
			full = lx_cgroup_available(parent, why, sizeof why);
	}
	if (full) {
		struct shjob j;
		shjob_make(&j, "cat /proc/self/cgroup");
		j.sp.cgroup_parent = parent;
		j.sp.mem_max_bytes = 64 << 20;
		j.sp.cpu_max_cores = 2;
		launch_ok(c, 70, &j.sp, &h);
		expect_exit(c, 70, 0, 0);
		assert_non_null(strstr(out_of(c, 70), "/hetlab-70\n"));
		assert_null(strstr(out_of(c, 70), "warning"));
		snprintf(p, sizeof p, "%s/hetlab-70/memory.max", parent);
		assert_string_equal(slurp(p), "67108864\n");
		snprintf(p, sizeof p, "%s/hetlab-70/cpu.max", parent);
		assert_string_equal(slurp(p), "200000 100000\n");
		assert_int_equal(lx_remove(c->dir, 70), 0);
		snprintf(p, sizeof p, "%s/hetlab-70", parent);
		assert_int_equal(access(p, F_OK), -1);
		print_message("cgroup: checked under %s\n", parent);
	} else {
		print_message("cgroup: full check skipped (depends on the host): %s\n", why);
	}
	if (made)
		rmdir(parent);

	/* A parent that is not a cgroup: the job runs, with a warning. */
	struct shjob j;
	shjob_make(&j, "echo ran");
	j.sp.cgroup_parent = c->dir;
	j.sp.mem_max_bytes = 1 << 30;
	launch_ok(c, 71, &j.sp, &h);
	expect_exit(c, 71, 0, 0);
	const char *o = out_of(c, 71);
	assert_non_null(strstr(o, "hetlab: warning: running without a cgroup"));
	assert_non_null(strstr(o, "not a cgroup v2 directory"));
	assert_non_null(strstr(o, "ran\n"));
	assert_int_equal(lx_cgroup_available(c->dir, why, sizeof why), 0);
	assert_int_equal(lx_cgroup_available(NULL, why, sizeof why), 0);
	assert_int_equal(lx_remove(c->dir, 71), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exit_codes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_affinity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_env, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fds_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint_signal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ignore_then_kill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leftovers_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shim_forwards, setup, teardown),
		cmocka_unit_test_setup_teardown(test_daemon_dies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shim_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_never, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pid_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
