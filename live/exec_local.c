/* exec_local — see exec_local.h. lx_launch prepares everything on the heap
 * (paths, the job's environment, its affinity mask, cgroup values), opens the
 * lock, output and /dev/null, then forks. From the fork on, the shim and the
 * job run only async-signal-safe code: no malloc, no stdio, no strerror (we
 * use strerrordesc_np, a table lookup), and they never return into the
 * caller's code. */
#include "live/exec_local.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

enum { LX_PATH = 4096, LX_TEXT = 512 };

static const char SHIM_NAME[] = "hetlab-shim";
static const char CUDA_VAR[] = "CUDA_VISIBLE_DEVICES";

/* Everything the shim and the job need, made before the fork. */
struct launch {
	char dir[LX_PATH];
	char lock[LX_PATH], pid[LX_PATH], pidtmp[LX_PATH];
	char exit[LX_PATH], exittmp[LX_PATH], cgfile[LX_PATH];
	char out[LX_PATH];
	char cg[LX_PATH];                 /* "" when the job gets no cgroup */
	char cg_mem[LX_PATH], cg_cpu[LX_PATH], cg_procs[LX_PATH];
	char mem_val[32], cpu_val[48];    /* "" when not limited */
	const char *cwd;
	char *const *argv;
	char **envp;
	char *cuda_entry;
	cpu_set_t cpus;
	int set_cpus;
	int lockfd, outfd, nullfd, pipe_r, pipe_w;
};

/* What the shim tells lx_launch through the pipe. */
struct launch_msg {
	int err;                          /* errno of the failed step, 0 when launched */
	int step;
	pid_t job;
};
enum { STEP_OK, STEP_FORK, STEP_PIDFILE };

static int remove_cgroup(const char *cg);

static const int FWD_SIGS[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2 };

/* ---- async-signal-safe helpers ------------------------------------------- */

/* A fixed text buffer that truncates. */
struct sbuf {
	char b[LX_TEXT];
	size_t n;
};

static void sb_cat(struct sbuf *s, const char *t)
{
	while (*t && s->n + 1 < sizeof s->b)
		s->b[s->n++] = *t++;
	s->b[s->n] = '\0';
}

static void sb_int(struct sbuf *s, long long v)
{
	char tmp[24];
	int i = 0;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	do {
		tmp[i++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[i++] = '-';
	while (i > 0 && s->n + 1 < sizeof s->b)
		s->b[s->n++] = tmp[--i];
	s->b[s->n] = '\0';
}

static const char *errdesc(int e)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
	const char *d = strerrordesc_np(e);
	if (d)
		return d;
#endif
	return "error";
}

/* Appends ": DESC (errno N)". */
static void sb_errno(struct sbuf *s, int e)
{
	sb_cat(s, ": ");
	sb_cat(s, errdesc(e));
	sb_cat(s, " (errno ");
	sb_int(s, e);
	sb_cat(s, ")");
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* "hetlab: WHAT 'ARG'[: DESC (errno N)]\n" to fd 2 (the job's output). */
static void say(const char *what, const char *arg, int e)
{
	struct sbuf s = { .n = 0 };
	sb_cat(&s, "hetlab: ");
	sb_cat(&s, what);
	if (arg) {
		sb_cat(&s, " '");
		sb_cat(&s, arg);
		sb_cat(&s, "'");
	}
	if (e)
		sb_errno(&s, e);
	sb_cat(&s, "\n");
	(void)write_all(2, s.b, s.n);
}

/* Writes data to tmp, then renames it to path. With syncdir, fsyncs the file
 * before the rename and the directory after, so the record survives a crash. */
static int write_atomic(const char *tmp, const char *path, const char *data, size_t n,
			const char *syncdir)
{
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	if (write_all(fd, data, n) < 0 || (syncdir && fsync(fd) < 0)) {
		int e = errno;
		close(fd);
		unlink(tmp);
		errno = e;
		return -1;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	if (syncdir) {
		int d = open(syncdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (d >= 0) {
			(void)fsync(d);
			close(d);
		}
	}
	return 0;
}

/* Writes a short value to a cgroup (or any) file. */
static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = write_all(fd, text, strlen(text));
	int e = errno;
	close(fd);
	errno = e;
	return rc;
}

static void close_fds(unsigned lo, unsigned hi)
{
	if (lo > hi)
		return;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, lo, hi, 0) == 0)
		return;
#endif
	/* Kernels before 5.9: one by one, up to the descriptor limit. */
	struct rlimit rl;
	unsigned max = 65536;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < max)
		max = (unsigned)rl.rlim_cur;
	for (unsigned fd = lo; fd <= hi && fd < max; fd++)
		close((int)fd);
}

/* Closes every descriptor from 3 up except a and b (3 <= a < b). */
static void close_except(int a, int b)
{
	close_fds(3, (unsigned)a - 1);
	close_fds((unsigned)a + 1, (unsigned)b - 1);
	close_fds((unsigned)b + 1, ~0U);
}

static pid_t raw_fork(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
	return _Fork();     /* no atfork handlers: async-signal-safe */
#else
	return fork();
#endif
}

/* ---- the job --------------------------------------------------------------- */

static void job_cgroup(const struct launch *L)
{
	if (mkdir(L->cg, 0755) < 0 && errno != EEXIST) {
		say("warning: running without a cgroup: cannot create", L->cg, errno);
		return;
	}
	if (L->mem_val[0] && write_file(L->cg_mem, L->mem_val) < 0)
		say("warning: no memory limit: cannot write", L->cg_mem, errno);
	if (L->cpu_val[0] && write_file(L->cg_cpu, L->cpu_val) < 0)
		say("warning: no CPU limit: cannot write", L->cg_cpu, errno);
	if (write_file(L->cg_procs, "0") < 0)
		say("warning: running without a cgroup: cannot write", L->cg_procs, errno);
}

static _Noreturn void job_main(const struct launch *L, pid_t shim)
{
	/* Only the shim holds the lock; the job must not keep it alive. */
	close(L->lockfd);
	close(L->pipe_w);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != shim)
		_exit(127);
	(void)setpgid(0, 0);
	if (L->cg[0])
		job_cgroup(L);
	if (L->set_cpus && sched_setaffinity(0, sizeof L->cpus, &L->cpus) < 0) {
		say("cannot set the CPU affinity of", L->argv[0], errno);
		_exit(127);
	}
	if (chdir(L->cwd) < 0) {
		say("cannot change directory to", L->cwd, errno);
		_exit(127);
	}
	environ = L->envp;
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execvp(L->argv[0], L->argv);
	say("cannot execute", L->argv[0], errno);
	_exit(127);
}

/* ---- the shim -------------------------------------------------------------- */

static void shim_report(const struct launch *L, int step, int err, pid_t job)
{
	struct launch_msg m = { .err = err, .step = step, .job = job };
	(void)write_all(L->pipe_w, (const char *)&m, sizeof m);
}

static _Noreturn void shim_main(const struct launch *L)
{
	pid_t self = getpid();
	(void)setsid();
	(void)prctl(PR_SET_NAME, SHIM_NAME, 0, 0, 0);

	/* The daemon's handlers and ignored signals are not ours (all signals are
	 * blocked since before the fork, so none runs meanwhile). */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	for (int s = 1; s < NSIG; s++)
		(void)sigaction(s, &dfl, NULL);
	/* The signals we wait for stay blocked; SIGPIPE too, so a daemon that
	 * died mid-launch does not kill us through the pipe. */
	sigset_t waitset, mask;
	sigemptyset(&waitset);
	for (size_t i = 0; i < sizeof FWD_SIGS / sizeof FWD_SIGS[0]; i++)
		sigaddset(&waitset, FWD_SIGS[i]);
	sigaddset(&waitset, SIGCHLD);
	mask = waitset;
	sigaddset(&mask, SIGPIPE);
	sigprocmask(SIG_SETMASK, &mask, NULL);

	dup2(L->nullfd, 0);
	dup2(L->outfd, 1);
	dup2(L->outfd, 2);
	if (L->lockfd < L->pipe_w)
		close_except(L->lockfd, L->pipe_w);
	else
		close_except(L->pipe_w, L->lockfd);

	pid_t job = raw_fork();
	if (job < 0) {
		shim_report(L, STEP_FORK, errno, 0);
		_exit(1);
	}
	if (job == 0)
		job_main(L, self);
	(void)setpgid(job, job);

	struct sbuf s = { .n = 0 };
	sb_int(&s, self);
	sb_cat(&s, " ");
	sb_int(&s, job);
	sb_cat(&s, "\n");
	if (write_atomic(L->pidtmp, L->pid, s.b, s.n, NULL) < 0) {
		int e = errno;
		kill(-job, SIGKILL);
		kill(job, SIGKILL);
		waitpid(job, NULL, 0);
		shim_report(L, STEP_PIDFILE, e, job);
		_exit(1);
	}
	shim_report(L, STEP_OK, 0, job);
	close(L->pipe_w);

	/* Forward signals until the job's main process ends. The timeout is a
	 * safety net only: SIGCHLD wakes us. */
	siginfo_t si;
	for (;;) {
		struct timespec ts = { .tv_sec = 1, .tv_nsec = 0 };
		int sig = sigtimedwait(&waitset, &si, &ts);
		if (sig > 0 && sig != SIGCHLD)
			(void)kill(-job, sig);
		memset(&si, 0, sizeof si);
		if (waitid(P_PID, (id_t)job, &si, WEXITED | WNOHANG | WNOWAIT) == 0) {
			if (si.si_pid == job)
				break;
		} else if (errno != EINTR) {
			_exit(1);       /* cannot happen; no exit file: the key reads LOST */
		}
	}
	/* The job is a zombie, not reaped yet, so its pid and process group id
	 * cannot be reused: kill what is left of the group, then reap it. */
	(void)kill(-job, SIGKILL);
	while (waitid(P_PID, (id_t)job, &si, WEXITED) < 0 && errno == EINTR)
		;
	s.n = 0;
	if (si.si_code == CLD_EXITED) {
		sb_cat(&s, "exited ");
		sb_int(&s, si.si_status);
	} else {
		sb_cat(&s, "signaled ");
		sb_int(&s, si.si_status);
	}
	sb_cat(&s, "\n");
	if (write_atomic(L->exittmp, L->exit, s.b, s.n, L->dir) < 0)
		say("cannot record the end of the job in", L->exit, errno);
	_exit(0);
}

/* ---- the daemon's side ------------------------------------------------------ */

static void seterr(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t n, const char *fmt, ...)
{
	if (!err || n == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
}

static int key_path(char *buf, const char *dir, int64_t key, const char *suffix)
{
	int n = snprintf(buf, LX_PATH, "%s/%" PRId64 "%s", dir, key, suffix);
	if (n < 0 || n >= LX_PATH) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static int join_path(char *buf, const char *a, const char *b)
{
	int n = snprintf(buf, LX_PATH, "%s/%s", a, b);
	if (n < 0 || n >= LX_PATH) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Reads a small file into buf (NUL-terminated): bytes read, or -1 (errno). */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t n = 0;
	while (n + 1 < cap) {
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	close(fd);
	return (ssize_t)n;
}

/* Length of the name of "NAME=VALUE", or -1 when there is no '=' or no name. */
static int env_name_len(const char *e)
{
	const char *q = strchr(e, '=');
	return q && q != e ? (int)(q - e) : -1;
}

static int env_same_name(const char *a, const char *b)
{
	int n = env_name_len(a);
	return n > 0 && env_name_len(b) == n && memcmp(a, b, (size_t)n) == 0;
}

static int is_cuda_var(const char *e)
{
	size_t n = sizeof CUDA_VAR - 1;
	return strncmp(e, CUDA_VAR, n) == 0 && e[n] == '=';
}

/* The job's environment: ours, less the names spec->env sets and
 * CUDA_VISIBLE_DEVICES, then spec->env (the last of a repeated name wins),
 * then CUDA_VISIBLE_DEVICES when given. The strings are borrowed but for
 * L->cuda_entry. */
static int build_env(struct launch *L, const struct lx_spec *sp, char *err, size_t errlen)
{
	size_t n0 = 0, n1 = 0;
	for (char **e = environ; e && *e; e++)
		n0++;
	for (const char *const *e = sp->env; e && *e; e++) {
		if (env_name_len(*e) < 0) {
			seterr(err, errlen, "env entry \"%s\": expected NAME=VALUE", *e);
			return -1;
		}
		n1++;
	}
	L->envp = calloc(n0 + n1 + 2, sizeof *L->envp);
	if (!L->envp)
		goto nomem;
	size_t k = 0;
	for (size_t i = 0; i < n0; i++) {
		const char *e = environ[i];
		int keep = !is_cuda_var(e);
		for (size_t j = 0; keep && j < n1; j++)
			keep = !env_same_name(e, sp->env[j]);
		if (keep)
			L->envp[k++] = (char *)e;
	}
	for (size_t i = 0; i < n1; i++) {
		const char *e = sp->env[i];
		int keep = !is_cuda_var(e);
		for (size_t j = i + 1; keep && j < n1; j++)
			keep = !env_same_name(e, sp->env[j]);
		if (keep)
			L->envp[k++] = (char *)e;   /* execve's type; never written */
	}
	if (sp->cuda_visible) {
		size_t len = sizeof CUDA_VAR + 1 + strlen(sp->cuda_visible);
		L->cuda_entry = malloc(len);
		if (!L->cuda_entry)
			goto nomem;
		snprintf(L->cuda_entry, len, "%s=%s", CUDA_VAR, sp->cuda_visible);
		L->envp[k++] = L->cuda_entry;
	}
	L->envp[k] = NULL;
	return 0;
nomem:
	seterr(err, errlen, "out of memory");
	return -1;
}

static int check_spec(const char *dir, const struct lx_spec *sp, char *err, size_t errlen)
{
	if (!dir || !*dir) {
		seterr(err, errlen, "no state directory given");
		return -1;
	}
	if (!sp || !sp->argv || !sp->argv[0] || !sp->argv[0][0]) {
		seterr(err, errlen, "no program given (argv empty)");
		return -1;
	}
	if (sp->ncpus < 0 || (sp->ncpus > 0 && !sp->cpus)) {
		seterr(err, errlen, "cpus: %d CPUs given without a list", sp->ncpus);
		return -1;
	}
	for (int i = 0; i < sp->ncpus; i++)
		if (sp->cpus[i] < 0 || sp->cpus[i] >= CPU_SETSIZE) {
			seterr(err, errlen, "cpus[%d]: CPU %d is outside 0..%d", i, sp->cpus[i],
			       CPU_SETSIZE - 1);
			return -1;
		}
	if (sp->mem_max_bytes < 0 || sp->cpu_max_cores < 0) {
		seterr(err, errlen, "cgroup limits: mem_max_bytes %" PRId64 " and cpu_max_cores %d must not be negative",
		       sp->mem_max_bytes, sp->cpu_max_cores);
		return -1;
	}
	const char *cwd = sp->cwd ? sp->cwd : dir;
	struct stat st;
	if (stat(cwd, &st) < 0) {
		seterr(err, errlen, "working directory %s: %s", cwd, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		seterr(err, errlen, "working directory %s: not a directory", cwd);
		return -1;
	}
	return 0;
}

/* Fills L's paths and values. */
static int make_paths(struct launch *L, const char *dir, int64_t key, const struct lx_spec *sp,
		      char *err, size_t errlen)
{
	if (snprintf(L->dir, LX_PATH, "%s", dir) >= LX_PATH
	    || key_path(L->lock, dir, key, ".lock") < 0
	    || key_path(L->pid, dir, key, ".pid") < 0
	    || key_path(L->pidtmp, dir, key, ".pid.tmp") < 0
	    || key_path(L->exit, dir, key, ".exit") < 0
	    || key_path(L->exittmp, dir, key, ".exit.tmp") < 0
	    || key_path(L->cgfile, dir, key, ".cgroup") < 0
	    || (sp->out_path ? snprintf(L->out, LX_PATH, "%s", sp->out_path) >= LX_PATH
			     : key_path(L->out, dir, key, ".out") < 0)) {
		seterr(err, errlen, "%s: path too long", dir);
		return -1;
	}
	L->cwd = sp->cwd ? sp->cwd : dir;
	/* execvp's type; the strings are never written. */
	L->argv = (char *const *)sp->argv;
	CPU_ZERO(&L->cpus);
	for (int i = 0; i < sp->ncpus; i++)
		CPU_SET(sp->cpus[i], &L->cpus);
	L->set_cpus = sp->ncpus > 0;
	return 0;
}

/* Decides the job's cgroup: records it in KEY.cgroup, or writes why not to
 * the job's output. */
static int plan_cgroup(struct launch *L, int64_t key, const struct lx_spec *sp, char *err, size_t errlen)
{
	char why[LX_TEXT], name[64];
	if (!lx_cgroup_available(sp->cgroup_parent, why, sizeof why)) {
		char line[LX_TEXT + 64];
		int n = snprintf(line, sizeof line, "hetlab: warning: running without a cgroup: %s\n", why);
		if (n > 0)
			(void)write_all(L->outfd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
		return 0;
	}
	snprintf(name, sizeof name, "hetlab-%" PRId64, key);
	if (join_path(L->cg, sp->cgroup_parent, name) < 0 || join_path(L->cg_mem, L->cg, "memory.max") < 0
	    || join_path(L->cg_cpu, L->cg, "cpu.max") < 0 || join_path(L->cg_procs, L->cg, "cgroup.procs") < 0) {
		seterr(err, errlen, "%s: path too long", sp->cgroup_parent);
		return -1;
	}
	if (sp->mem_max_bytes > 0)
		snprintf(L->mem_val, sizeof L->mem_val, "%" PRId64, sp->mem_max_bytes);
	if (sp->cpu_max_cores > 0)
		snprintf(L->cpu_val, sizeof L->cpu_val, "%lld 100000", (long long)sp->cpu_max_cores * 100000);
	char rec[LX_PATH + 2], tmp[LX_PATH + 8];
	int n = snprintf(rec, sizeof rec, "%s\n", L->cg);
	snprintf(tmp, sizeof tmp, "%s.tmp", L->cgfile);
	if (write_atomic(tmp, L->cgfile, rec, (size_t)n, NULL) < 0) {
		seterr(err, errlen, "%s: %s", L->cgfile, strerror(errno));
		return -1;
	}
	return 0;
}

/* Moves fd to 3 or above (0..2 are the shim's stdio); keeps close-on-exec. */
static int fd_high(int fd)
{
	if (fd < 0 || fd >= 3)
		return fd;
	int n = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return n;
}

static void close_set(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void launch_free(struct launch *L)
{
	close_set(&L->lockfd);
	close_set(&L->outfd);
	close_set(&L->nullfd);
	close_set(&L->pipe_r);
	close_set(&L->pipe_w);
	free(L->envp);
	free(L->cuda_entry);
	free(L);
}

/* Removes what an attempt that never started left (the lock only when this
 * attempt made it). */
static void undo_files(const struct launch *L, int made_lock)
{
	unlink(L->pid);
	unlink(L->pidtmp);
	unlink(L->cgfile);
	if (made_lock)
		unlink(L->lock);
}

static int file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

int lx_launch(const char *dir, int64_t key, const struct lx_spec *sp, struct lx_handle *h, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!h) {
		seterr(err, errlen, "no handle given");
		return -1;
	}
	h->shim = h->job = -1;
	if (check_spec(dir, sp, err, errlen) < 0)
		return -1;
	struct launch *L = calloc(1, sizeof *L);
	if (!L) {
		seterr(err, errlen, "out of memory");
		return -1;
	}
	L->lockfd = L->outfd = L->nullfd = L->pipe_r = L->pipe_w = -1;
	int rc = -1, made_lock = 0;
	if (make_paths(L, dir, key, sp, err, errlen) < 0 || build_env(L, sp, err, errlen) < 0)
		goto out;

	if (file_exists(L->exit)) {
		seterr(err, errlen, "job %" PRId64 " has an end not yet removed (%s)", key, L->exit);
		goto out;
	}
	made_lock = !file_exists(L->lock);
	L->lockfd = fd_high(open(L->lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644));
	if (L->lockfd < 0) {
		seterr(err, errlen, "cannot create %s: %s", L->lock, strerror(errno));
		made_lock = 0;
		goto out;
	}
	if (flock(L->lockfd, LOCK_EX | LOCK_NB) < 0) {
		seterr(err, errlen, errno == EWOULDBLOCK ? "job %" PRId64 " is already running (%s is locked)"
			: "job %" PRId64 ": cannot lock %s", key, L->lock);
		made_lock = 0;
		goto out;
	}
	if (file_exists(L->exit)) {     /* came while we were locking */
		seterr(err, errlen, "job %" PRId64 " has an end not yet removed (%s)", key, L->exit);
		if (made_lock)
			unlink(L->lock);
		goto out;
	}
	/* What a LOST attempt left: its cgroup, pid and cgroup record. */
	char old_cg[LX_PATH];
	if (read_small(L->cgfile, old_cg, sizeof old_cg) > 0) {
		old_cg[strcspn(old_cg, "\n")] = '\0';
		if (old_cg[0])
			(void)remove_cgroup(old_cg);
	}
	undo_files(L, 0);
	unlink(L->exittmp);

	int oflags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (sp->out_append ? 0 : O_TRUNC);
	L->outfd = fd_high(open(L->out, oflags, 0644));
	if (L->outfd < 0) {
		seterr(err, errlen, "cannot open %s: %s", L->out, strerror(errno));
		goto undo;
	}
	L->nullfd = fd_high(open("/dev/null", O_RDONLY | O_CLOEXEC));
	if (L->nullfd < 0) {
		seterr(err, errlen, "cannot open /dev/null: %s", strerror(errno));
		goto undo;
	}
	if (sp->cgroup_parent && plan_cgroup(L, key, sp, err, errlen) < 0)
		goto undo;
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		seterr(err, errlen, "pipe: %s", strerror(errno));
		goto undo;
	}
	L->pipe_r = fd_high(pfd[0]);
	L->pipe_w = fd_high(pfd[1]);
	if (L->pipe_r < 0 || L->pipe_w < 0) {
		seterr(err, errlen, "pipe: %s", strerror(errno));
		goto undo;
	}

	/* No signal handler of ours may run in the shim before it resets them. */
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid_t shim = fork();
	if (shim == 0)
		shim_main(L);
	int fork_errno = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (shim < 0) {
		seterr(err, errlen, "fork: %s", strerror(fork_errno));
		goto undo;
	}
	/* The shim holds the lock now. */
	close_set(&L->lockfd);
	close_set(&L->pipe_w);
	close_set(&L->outfd);
	close_set(&L->nullfd);

	struct launch_msg m;
	size_t got = 0;
	while (got < sizeof m) {
		ssize_t r = read(L->pipe_r, (char *)&m + got, sizeof m - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got == sizeof m && m.step == STEP_OK) {
		h->shim = shim;
		h->job = m.job;
		rc = 0;
		goto out;
	}
	if (got < sizeof m)
		seterr(err, errlen, "job %" PRId64 ": the shim died while launching", key);
	else if (m.step == STEP_FORK)
		seterr(err, errlen, "job %" PRId64 ": fork: %s", key, strerror(m.err));
	else
		seterr(err, errlen, "cannot write %s: %s", L->pid, strerror(m.err));
	while (waitpid(shim, NULL, 0) < 0 && errno == EINTR)
		;
undo:
	undo_files(L, made_lock);
out:
	launch_free(L);
	return rc;
}

/* ---- status ---------------------------------------------------------------- */

/* 1 with r filled when KEY.exit exists, 0 when it does not, -1 on error. */
static int read_exit(const char *path, struct lx_result *r)
{
	char buf[64];
	if (read_small(path, buf, sizeof buf) < 0)
		return errno == ENOENT ? 0 : -1;
	char word[16];
	int v;
	r->st = LX_LOST;        /* unless it parses */
	r->code = -1;
	r->sig = 0;
	if (sscanf(buf, "%15s %d", word, &v) == 2) {
		if (strcmp(word, "exited") == 0 && v >= 0 && v <= 255) {
			r->st = LX_EXITED;
			r->code = v;
		} else if (strcmp(word, "signaled") == 0 && v > 0 && v < NSIG) {
			r->st = LX_EXITED;
			r->sig = v;
		}
	}
	return 1;
}

static int read_pids(const char *path, pid_t *shim, pid_t *job)
{
	char buf[64];
	long a, b;
	if (read_small(path, buf, sizeof buf) < 0)
		return -1;
	if (sscanf(buf, "%ld %ld", &a, &b) != 2 || a <= 1 || b <= 1) {
		errno = EINVAL;
		return -1;
	}
	*shim = (pid_t)a;
	*job = (pid_t)b;
	return 0;
}

/* Reaps shim if it is an ended child of ours named hetlab-shim (so a pid
 * reused by another child of ours is left alone). */
static int reap_checked(pid_t shim)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	if (waitid(P_PID, (id_t)shim, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return -1;
	if (si.si_pid != shim)
		return 0;
	char path[64], comm[32];
	snprintf(path, sizeof path, "/proc/%ld/comm", (long)shim);
	if (read_small(path, comm, sizeof comm) < 0 || strncmp(comm, SHIM_NAME, sizeof SHIM_NAME - 1) != 0) {
		errno = ECHILD;
		return -1;
	}
	return waitpid(shim, NULL, WNOHANG) == shim ? 1 : 0;
}

int lx_reap_shim(pid_t shim)
{
	if (shim <= 1) {
		errno = ECHILD;
		return -1;
	}
	return reap_checked(shim);
}

void lx_reap(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

int lx_poll(const char *dir, int64_t key, struct lx_result *r)
{
	char lock[LX_PATH], ex[LX_PATH], pid[LX_PATH];
	if (key_path(lock, dir, key, ".lock") < 0 || key_path(ex, dir, key, ".exit") < 0
	    || key_path(pid, dir, key, ".pid") < 0)
		return -1;
	r->st = LX_NEVER;
	r->code = -1;
	r->sig = 0;
	int e = read_exit(ex, r);
	if (e < 0)
		return -1;
	if (e == 0) {
		int fd = open(lock, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno != ENOENT)
				return -1;
			/* lx_remove takes the lock away before the exit record. */
			e = read_exit(ex, r);
			return e < 0 ? -1 : 0;
		}
		int fl;
		while ((fl = flock(fd, LOCK_EX | LOCK_NB)) < 0 && errno == EINTR)
			;
		if (fl < 0) {
			int er = errno;
			close(fd);
			if (er == EWOULDBLOCK) {
				r->st = LX_RUNNING;
				return 0;
			}
			errno = er;
			return -1;
		}
		/* The shim writes the exit record before its lock goes: look again
		 * now that we hold it. */
		e = read_exit(ex, r);
		close(fd);
		if (e < 0)
			return -1;
		if (e == 0)
			r->st = LX_LOST;
	}
	pid_t shim, job;
	if (read_pids(pid, &shim, &job) == 0)
		(void)reap_checked(shim);
	return 0;
}

int lx_signal(const char *dir, int64_t key, int sig)
{
	char pid[LX_PATH];
	struct lx_result r;
	pid_t shim, job;
	if (key_path(pid, dir, key, ".pid") < 0 || lx_poll(dir, key, &r) < 0)
		return -1;
	if (r.st != LX_RUNNING || read_pids(pid, &shim, &job) < 0) {
		errno = ESRCH;
		return -1;
	}
	return kill(-job, sig);
}

int lx_kill(const char *dir, int64_t key)
{
	return lx_signal(dir, key, SIGKILL);
}

/* rmdir's a job's cgroup, killing what is left in it first. */
static int remove_cgroup(const char *cg)
{
	if (rmdir(cg) == 0 || errno == ENOENT)
		return 0;
	if (errno != EBUSY)
		return -1;
	char kill_path[LX_PATH];
	if (join_path(kill_path, cg, "cgroup.kill") == 0)
		(void)write_file(kill_path, "1");
	for (int i = 0; i < 50; i++) {
		if (rmdir(cg) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -1;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = 2000000 };
		nanosleep(&ts, NULL);
	}
	errno = EBUSY;
	return -1;
}

int lx_remove(const char *dir, int64_t key)
{
	static const char *const suffixes[] = {
		".cgroup", ".cgroup.tmp", ".pid", ".pid.tmp", ".exit.tmp", ".lock", ".exit", NULL,
	};
	struct lx_result r;
	if (lx_poll(dir, key, &r) < 0)
		return -1;
	if (r.st == LX_RUNNING) {
		errno = EBUSY;
		return -1;
	}
	char path[LX_PATH], cg[LX_PATH];
	if (key_path(path, dir, key, ".cgroup") < 0)
		return -1;
	ssize_t n = read_small(path, cg, sizeof cg);
	if (n < 0 && errno != ENOENT)
		return -1;
	if (n > 0) {
		cg[strcspn(cg, "\n")] = '\0';
		if (cg[0] && remove_cgroup(cg) < 0)
			return -1;
	}
	/* The lock goes before the exit record, so a crash in between leaves
	 * EXITED, not LOST. */
	for (int i = 0; suffixes[i]; i++) {
		if (key_path(path, dir, key, suffixes[i]) < 0)
			return -1;
		if (unlink(path) < 0 && errno != ENOENT)
			return -1;
	}
	return 0;
}

/* ---- cgroups --------------------------------------------------------------- */

/* Whether the space-separated list has the word. */
static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; *p;) {
		p += strspn(p, " \t\n");
		size_t k = strcspn(p, " \t\n");
		if (k == n && strncmp(p, word, n) == 0)
			return 1;
		p += k;
	}
	return 0;
}

int lx_cgroup_available(const char *parent, char *why, size_t n)
{
	static const char *const need[] = { "memory", "cpu" };
	char path[LX_PATH], ctl[LX_TEXT], avail[LX_TEXT];
	struct statfs sf;
	if (why && n)
		why[0] = '\0';
	if (!parent || !*parent) {
		seterr(why, n, "no cgroup directory given");
		return 0;
	}
	if (statfs(parent, &sf) < 0) {
		seterr(why, n, "%s: %s", parent, strerror(errno));
		return 0;
	}
	if (sf.f_type != CGROUP2_SUPER_MAGIC) {
		seterr(why, n, "%s: not a cgroup v2 directory", parent);
		return 0;
	}
	if (access(parent, W_OK) < 0) {
		seterr(why, n, "%s: not writable: %s", parent, strerror(errno));
		return 0;
	}
	if (join_path(path, parent, "cgroup.subtree_control") < 0 || read_small(path, ctl, sizeof ctl) < 0) {
		seterr(why, n, "%s/cgroup.subtree_control: %s", parent, strerror(errno));
		return 0;
	}
	if (has_word(ctl, need[0]) && has_word(ctl, need[1]))
		return 1;
	char cpath[LX_PATH];
	if (join_path(cpath, parent, "cgroup.controllers") < 0 || read_small(cpath, avail, sizeof avail) < 0)
		avail[0] = '\0';
	avail[strcspn(avail, "\n")] = '\0';
	for (int i = 0; i < 2; i++) {
		if (has_word(ctl, need[i]))
			continue;
		if (!has_word(avail, need[i])) {
			seterr(why, n, "%s: the %s controller is not available there (cgroup.controllers: \"%s\")",
			       parent, need[i], avail);
			return 0;
		}
		char plus[16];
		snprintf(plus, sizeof plus, "+%s", need[i]);
		if (write_file(path, plus) < 0) {
			seterr(why, n, "%s: cannot enable %s: %s", path, plus, strerror(errno));
			return 0;
		}
	}
	if (read_small(path, ctl, sizeof ctl) < 0 || !has_word(ctl, need[0]) || !has_word(ctl, need[1])) {
		seterr(why, n, "%s: memory and cpu still not enabled", path);
		return 0;
	}
	return 1;
}
