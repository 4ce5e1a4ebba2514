/* lchild — a command the daemon runs beside its loop: this binary executed
 * anew (/proc/self/exe) with the arguments given, its stdout and stderr read
 * between ticks without blocking (the prune of autoprune.c, the results
 * write of autoresults.c).
 *
 * Executed anew, not a fork that calls the code: a forked child must not
 * open the state while the daemon's SQLite connections to it are open in
 * its memory (SQLite's locks are per process; the copies it inherits would
 * believe they hold them). It holds none of the daemon's files (every
 * descriptor past stderr is closed: not the daemon's lock, socket or
 * state), reads /dev/null and dies with the daemon. */
#include "live/live_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double lchild_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void lchild_init(struct lchild *c, const char *what)
{
	memset(c, 0, sizeof *c);
	c->fd[0] = c->fd[1] = -1;
	c->what = what;
}

int lchild_spawn(struct live *L, struct lchild *c, char *const args[])
{
	char exe[PATH_MAX];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (k <= 0) {
		live_logl(L, LIVE_WARN, "%s: /proc/self/exe: %s", c->what, strerror(errno));
		return -1;
	}
	exe[k] = 0;
	char *argv[16];
	int n = 0;
	argv[n++] = exe;
	for (int i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	int fds[2] = { -1, -1 }, efds[2];
	if (pipe2(fds, O_CLOEXEC) < 0 || pipe2(efds, O_CLOEXEC) < 0) {
		live_logl(L, LIVE_WARN, "%s: a pipe: %s", c->what, strerror(errno));
		if (fds[0] >= 0) {
			close(fds[0]);
			close(fds[1]);
		}
		return -1;
	}
	fflush(NULL);   /* nothing buffered is written twice */
	pid_t pid = fork();
	if (pid < 0) {
		live_logl(L, LIVE_WARN, "%s: fork: %s", c->what, strerror(errno));
		close(fds[0]);
		close(fds[1]);
		close(efds[0]);
		close(efds[1]);
		return -1;
	}
	if (pid == 0) {
		/* async-signal-safe calls only up to the exec (the metrics
		 * server's thread may hold a lock) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		int null = open("/dev/null", O_RDONLY);
		if (null < 0 || dup2(null, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(efds[1], 2) < 0)
			_exit(127);
		if (syscall(SYS_close_range, 3u, ~0u, 0u) < 0)
			for (int fd = 3; fd < 65536; fd++)
				close(fd);
		execv(exe, argv);
		_exit(127);
	}
	close(fds[1]);
	close(efds[1]);
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	fcntl(efds[0], F_SETFL, fcntl(efds[0], F_GETFL) | O_NONBLOCK);
	c->pid = pid;
	c->fd[0] = fds[0];
	c->fd[1] = efds[0];
	c->reaped = false;
	c->said_err = false;
	c->n = 0;
	c->started = lchild_now();
	return 0;
}

bool lchild_drain(struct lchild *c)
{
	for (int i = 0; i < 2; i++)
		while (c->fd[i] >= 0) {
			char b[1024];
			ssize_t r = read(c->fd[i], b, sizeof b);
			if (r > 0) {
				/* the tail is kept: a failure's message is its last line */
				size_t k = (size_t)r, room = sizeof c->out - 1;   /* k <= sizeof b < room */
				if (c->n + k > room) {
					memmove(c->out, c->out + (c->n + k - room), room - k);
					c->n = room - k;
				}
				memcpy(c->out + c->n, b, k);
				c->n += k;
				c->said_err |= i == 1;
				continue;
			}
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0 && errno == EAGAIN)
				break;
			close(c->fd[i]);   /* its end (or an error) */
			c->fd[i] = -1;
		}
	return c->fd[0] < 0 && c->fd[1] < 0;
}

/* Each line it said, logged (prefix dropped). */
static void log_out(struct live *L, struct lchild *c, const char *prefix, bool ok)
{
	c->out[c->n] = 0;
	char *line = c->out;
	bool any = false;
	size_t np = prefix ? strlen(prefix) : 0;
	while (*line) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		const char *m = np && strncmp(line, prefix, np) == 0 ? line + np : line;
		if (*m) {
			live_logl(L, ok ? LIVE_INFO : LIVE_WARN, "%s: %s", c->what, m);
			any = true;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	if (!ok && !any)
		live_logl(L, LIVE_WARN, "%s: its process failed without a word", c->what);
}

bool lchild_finish(struct live *L, struct lchild *c, const char *prefix, bool quiet, bool killed)
{
	int wst = c->wst;
	if (!c->reaped && waitpid(c->pid, &wst, 0) != c->pid)
		wst = -1;
	/* Its status unknown (reaped by another part of the daemon: the
	 * local executor reaps every child), it succeeded if it said
	 * something, and nothing on stderr. */
	bool ok = wst != -1 ? WIFEXITED(wst) && WEXITSTATUS(wst) == 0 && !c->said_err : c->n > 0 && !c->said_err;
	if (killed && !ok)
		live_log(L, "%s: stopped with the daemon (cut short, it loses nothing)", c->what);
	else if (!(quiet && ok))
		log_out(L, c, prefix, ok);
	c->last_s = lchild_now() - c->started;
	for (int i = 0; i < 2; i++)
		if (c->fd[i] >= 0)
			close(c->fd[i]);
	c->fd[0] = c->fd[1] = -1;
	c->pid = 0;
	c->n = 0;
	return ok;
}

void lchild_reaped(struct lchild *c, pid_t pid, int wst)
{
	if (c && c->pid == pid && pid > 0) {
		c->wst = wst;
		c->reaped = true;
	}
}

bool lchild_stop(struct live *L, struct lchild *c, const char *prefix, bool kill_it)
{
	if (c->pid <= 0)
		return true;
	if (kill_it)
		kill(c->pid, SIGKILL);
	else
		live_log(L, "%s: waiting for it to finish", c->what);
	for (int i = 0; i < 2; i++)
		if (c->fd[i] >= 0)
			fcntl(c->fd[i], F_SETFL, fcntl(c->fd[i], F_GETFL) & ~O_NONBLOCK);
	lchild_drain(c);
	return lchild_finish(L, c, prefix, false, kill_it);
}

long lchild_metrics(char **buf, size_t *cap, long n, const char *fam, const char *help, int64_t ok, int64_t failed,
                    const char *last, const char *last_help, double last_s)
{
	if (n < 0)
		return n;
	size_t need = (size_t)n + 1024;
	if (need > *cap) {
		char *b = realloc(*buf, need);
		if (!b)
			return n;
		*buf = b;
		*cap = need;
	}
	int w = snprintf(*buf + n, *cap - (size_t)n,
	                 "# HELP %s %s, by result.\n# TYPE %s counter\n%s{result=\"ok\"} %lld\n%s{result=\"failed\"} %lld\n"
	                 "# HELP %s %s.\n# TYPE %s gauge\n%s %.3f\n",
	                 fam, help, fam, fam, (long long)ok, fam, (long long)failed, last, last_help, last, last, last_s);
	return w > 0 && (size_t)w < *cap - (size_t)n ? n + w : n;
}
