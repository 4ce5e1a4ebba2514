/* exec_shim — see exec_shim.h. What runs after lx_launch's fork: the shim
 * (its own session, named hetlab-shim) and the job it forks, up to execvp.
 * Only async-signal-safe code from the fork on: no malloc, no stdio, no
 * strerror (we use strerrordesc_np, a table lookup), and neither process ever
 * returns into the caller's code. */
#include "live/exec/local_shim.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

int lx_write_all(int fd, const char *p, size_t n)
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
	(void)lx_write_all(2, s.b, s.n);
}

/* Writes data to tmp, then renames it to path. With syncdir, fsyncs the file
 * before the rename and the directory after, so the record survives a crash. */
int lx_write_atomic(const char *tmp, const char *path, const char *data, size_t n,
		    const char *syncdir)
{
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (lx_write_all(fd, data, n) < 0 || (syncdir && fsync(fd) < 0)) {
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
int lx_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = lx_write_all(fd, text, strlen(text));
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

static void job_cgroup(const struct lx_launch_args *L)
{
	if (mkdir(L->cg, 0755) < 0 && errno != EEXIST) {
		say("warning: running without a cgroup: cannot create", L->cg, errno);
		return;
	}
	if (L->mem_val[0] && lx_write_file(L->cg_mem, L->mem_val) < 0)
		say("warning: no memory limit: cannot write", L->cg_mem, errno);
	if (L->cpu_val[0] && lx_write_file(L->cg_cpu, L->cpu_val) < 0)
		say("warning: no CPU limit: cannot write", L->cg_cpu, errno);
	if (lx_write_file(L->cg_procs, "0") < 0)
		say("warning: running without a cgroup: cannot write", L->cg_procs, errno);
}

/* Becomes the job's user: groups, gid, uid (raw system calls: this is
 * the only thread of the process, and glibc's wrappers would try to tell
 * threads that are not there), then makes sure there is no way back. */
static void become_user(const struct lx_launch_args *L, pid_t shim)
{
	if (syscall(SYS_setgroups, (size_t)L->ngroups, L->groups) < 0) {
		say("cannot set the job's groups", NULL, errno);
		_exit(127);
	}
	if (syscall(SYS_setresgid, L->gid, L->gid, L->gid) < 0 || syscall(SYS_setresuid, L->uid, L->uid, L->uid) < 0) {
		say("cannot become the job's user", NULL, errno);
		_exit(127);
	}
	uid_t r, e, s;
	gid_t rg, eg, sg;
	if (getresuid(&r, &e, &s) < 0 || getresgid(&rg, &eg, &sg) < 0 || r != L->uid || e != L->uid || s != L->uid ||
	    rg != L->gid || eg != L->gid || sg != L->gid) {
		say("the job's ids are not its user's", NULL, 0);
		_exit(127);
	}
	if (L->uid != 0 && (syscall(SYS_setresuid, (uid_t)-1, (uid_t)0, (uid_t)-1) == 0 || geteuid() == 0)) {
		say("the job could get root back: not run", NULL, 0);
		_exit(127);
	}
	/* A change of credentials clears the parent-death signal. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != shim)
		_exit(127);
}

/* The job's own output, opened as its user: never through a link, only a
 * regular file (a FIFO there must not hang the job). */
static void open_user_out(const struct lx_launch_args *L)
{
	int fd = open(L->user_out, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
	if (fd < 0) {
		say("cannot open the job's output", L->user_out, errno);
		_exit(127);
	}
	struct stat sb;
	int fl = fcntl(fd, F_GETFL);
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		say("the job's output is not a regular file", L->user_out, 0);
		_exit(127);
	}
	if (dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		_exit(127);
	close(fd);
}

static _Noreturn void job_main(const struct lx_launch_args *L, pid_t shim)
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
	if (L->run_as)
		become_user(L, shim);
	if (chdir(L->cwd) < 0) {
		say("cannot change directory to", L->cwd, errno);
		_exit(127);
	}
	if (L->user_out[0])
		open_user_out(L);
	environ = L->envp;
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execvp(L->argv[0], L->argv);
	say("cannot execute", L->argv[0], errno);
	_exit(127);
}

/* ---- the shim -------------------------------------------------------------- */

static void shim_report(const struct lx_launch_args *L, int step, int err, pid_t job)
{
	struct lx_launch_msg m = { .err = err, .step = step, .job = job };
	(void)lx_write_all(L->pipe_w, (const char *)&m, sizeof m);
}

_Noreturn void lx_shim_main(const struct lx_launch_args *L)
{
	pid_t self = getpid();
	(void)setsid();
	(void)prctl(PR_SET_NAME, LX_SHIM_NAME, 0, 0, 0);

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
		shim_report(L, LX_STEP_FORK, errno, 0);
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
	if (lx_write_atomic(L->pidtmp, L->pid, s.b, s.n, NULL) < 0) {
		int e = errno;
		kill(-job, SIGKILL);
		kill(job, SIGKILL);
		waitpid(job, NULL, 0);
		shim_report(L, LX_STEP_PIDFILE, e, job);
		_exit(1);
	}
	shim_report(L, LX_STEP_OK, 0, job);
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
	if (lx_write_atomic(L->exittmp, L->exit, s.b, s.n, L->dir) < 0)
		say("cannot record the end of the job in", L->exit, errno);
	_exit(0);
}
