/* exec_local — see exec_local.h. lx_launch prepares everything on the heap
 * (paths, the job's environment, its affinity mask, cgroup values), opens the
 * lock, output and /dev/null, then forks; the child runs lx_shim_main
 * (live/exec/local_shim.c: async-signal-safe code only) and never returns here.
 * The rest reads a job's state back from its files (poll, signal, kill,
 * remove) and checks cgroup v2 directories. */
#include "live/exec/local_proc.h"
#include "live/exec/local_shim.h"

#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

static const char CUDA_VAR[] = "CUDA_VISIBLE_DEVICES";

static int remove_cgroup(const char *cg);

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
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
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
static int build_env(struct lx_launch_args *L, const struct lx_spec *sp, char *err, size_t errlen)
{
	size_t n0 = 0, n1 = 0;
	for (char **e = environ; !sp->clean_env && e && *e; e++)
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

/* The ids and groups a run_as job takes (looked up now: the job may not
 * call the group database after the fork). */
static int plan_ids(struct lx_launch_args *L, const struct lx_spec *sp, char *err, size_t errlen)
{
	L->run_as = 1;
	L->uid = sp->uid;
	L->gid = sp->gid;
	if (sp->user_out && snprintf(L->user_out, LX_PATH, "%s", sp->user_out) >= LX_PATH) {
		seterr(err, errlen, "%s: path too long", sp->user_out);
		return -1;
	}
	int n = 64;
	for (int tries = 0; tries < 4; tries++) {
		gid_t *g = realloc(L->groups, (size_t)n * sizeof *g);
		if (!g) {
			seterr(err, errlen, "out of memory");
			return -1;
		}
		L->groups = g;
		if (!sp->user) {
			g[0] = sp->gid;
			L->ngroups = 1;
			return 0;
		}
		int want = n;
		if (getgrouplist(sp->user, sp->gid, g, &want) >= 0) {
			L->ngroups = want;
			return 0;
		}
		n = want > n ? want : 2 * n;
	}
	seterr(err, errlen, "%s: cannot list the user's groups", sp->user);
	return -1;
}

/* Fills L's paths and values. */
static int make_paths(struct lx_launch_args *L, const char *dir, int64_t key, const struct lx_spec *sp,
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
	if (sp->run_as && plan_ids(L, sp, err, errlen) < 0)
		return -1;
	return 0;
}

/* Decides the job's cgroup: records it in KEY.cgroup, or writes why not to
 * the job's output. */
static int plan_cgroup(struct lx_launch_args *L, int64_t key, const struct lx_spec *sp, char *err, size_t errlen)
{
	char why[LX_TEXT], name[64];
	if (!lx_cgroup_available(sp->cgroup_parent, why, sizeof why)) {
		char line[LX_TEXT + 64];
		int n = snprintf(line, sizeof line, "hetlab: warning: running without a cgroup: %s\n", why);
		if (n > 0)
			(void)lx_write_all(L->outfd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
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
	if (lx_write_atomic(tmp, L->cgfile, rec, (size_t)n, NULL) < 0) {
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

static void launch_free(struct lx_launch_args *L)
{
	close_set(&L->lockfd);
	close_set(&L->outfd);
	close_set(&L->nullfd);
	close_set(&L->pipe_r);
	close_set(&L->pipe_w);
	free(L->envp);
	free(L->cuda_entry);
	free(L->groups);
	free(L);
}

/* Removes what an attempt that never started left (the lock only when this
 * attempt made it). */
static void undo_files(const struct lx_launch_args *L, int made_lock)
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
	struct lx_launch_args *L = calloc(1, sizeof *L);
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
	L->lockfd = fd_high(open(L->lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
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

	int oflags = O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | (sp->out_append ? 0 : O_TRUNC);
	L->outfd = fd_high(open(L->out, oflags, 0600));
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
		lx_shim_main(L);
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

	struct lx_launch_msg m;
	size_t got = 0;
	while (got < sizeof m) {
		ssize_t r = read(L->pipe_r, (char *)&m + got, sizeof m - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got == sizeof m && m.step == LX_STEP_OK) {
		h->shim = shim;
		h->job = m.job;
		rc = 0;
		goto out;
	}
	if (got < sizeof m)
		seterr(err, errlen, "job %" PRId64 ": the shim died while launching", key);
	else if (m.step == LX_STEP_FORK)
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
	if (read_small(path, comm, sizeof comm) < 0 || strncmp(comm, LX_SHIM_NAME, sizeof LX_SHIM_NAME - 1) != 0) {
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
		int fd = open(lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
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
		(void)lx_write_file(kill_path, "1");
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
		if (lx_write_file(path, plus) < 0) {
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
