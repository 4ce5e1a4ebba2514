/* autoprune — the daemon prunes its own state (LIVE.json prune_keep_days,
 * docs/live.md "Retention and archive"): every prune_every_s it runs
 * `hetlab state-prune STATE_DIR --before @T` (T: now less prune_keep_days)
 * in a child process, the same code as the command (live/retain.c), and
 * reads what it says between ticks, so that the loop never waits on the
 * prune's copies and deletes (which wait only for the daemon's own short
 * transactions, and it for theirs, 5,000 rows at a time).
 *
 * The child is this binary executed anew (/proc/self/exe), not a fork
 * that calls lretain_prune: a forked child must not open the state while
 * the daemon's SQLite connections to it are open in its memory (SQLite's
 * locks are per process; the copies it inherits would believe they hold
 * them). It holds none of the daemon's files (every descriptor past
 * stderr is closed: not the daemon's lock, socket or state), its output
 * goes to a pipe the loop reads without blocking, and it dies with the
 * daemon (a prune killed anywhere loses nothing: tests/live/prune.sh). */
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

struct lprune {
	pid_t pid;                   /* the running prune (0 none) */
	int fd[2];                   /* its stdout and stderr (-1 none, or at their end) */
	int wst;                     /* its status, when the loop reaped it */
	bool reaped;
	bool said_err;               /* it wrote to stderr (state-prune's errors go there) */
	double started, next;        /* monotonic seconds */
	char out[4096];              /* what it said so far (the tail kept) */
	size_t n;
	int64_t ok, failed;          /* prunes finished so far */
	double last_s;               /* how long the last one took */
};

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct lprune *get(struct live *L)
{
	if (L->prune || L->mode != LIVE_DAEMON || L->cfg.prune_keep_days < 0)
		return L->prune;
	if ((L->prune = calloc(1, sizeof *L->prune)) != NULL) {
		L->prune->fd[0] = L->prune->fd[1] = -1;
		L->prune->next = mono_s() + L->cfg.prune_every_s;
	}
	return L->prune;
}

static void spawn(struct live *L, struct lprune *p)
{
	char exe[PATH_MAX], before[64];
	ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (k <= 0) {
		live_logl(L, LIVE_WARN, "prune: /proc/self/exe: %s; the state is not pruned", strerror(errno));
		p->failed++;
		return;
	}
	exe[k] = 0;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(before, sizeof before, "@%.6f",
	         (double)now.tv_sec + (double)now.tv_nsec / 1e9 - L->cfg.prune_keep_days * 86400.0);
	char cmd[] = "state-prune", opt[] = "--before";
	char *argv[] = { exe, cmd, L->cfg.state_dir, opt, before, NULL };
	int fds[2] = { -1, -1 }, efds[2];
	if (pipe2(fds, O_CLOEXEC) < 0 || pipe2(efds, O_CLOEXEC) < 0) {
		live_logl(L, LIVE_WARN, "prune: a pipe: %s", strerror(errno));
		if (fds[0] >= 0) {
			close(fds[0]);
			close(fds[1]);
		}
		p->failed++;
		return;
	}
	fflush(NULL);   /* nothing buffered is written twice */
	pid_t pid = fork();
	if (pid < 0) {
		live_logl(L, LIVE_WARN, "prune: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		close(efds[0]);
		close(efds[1]);
		p->failed++;
		return;
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
	p->pid = pid;
	p->fd[0] = fds[0];
	p->fd[1] = efds[0];
	p->reaped = false;
	p->said_err = false;
	p->n = 0;
	p->started = mono_s();
}

/* Each line it said, logged ("hetlab state-prune: " dropped). */
static void log_out(struct live *L, struct lprune *p, bool ok)
{
	p->out[p->n] = 0;
	char *line = p->out;
	bool any = false;
	while (*line) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		const char *m = strncmp(line, "hetlab state-prune: ", 20) == 0 ? line + 20 : line;
		if (*m) {
			live_logl(L, ok ? LIVE_INFO : LIVE_WARN, "prune: %s", m);
			any = true;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	if (!ok && !any)
		live_logl(L, LIVE_WARN, "prune: the prune's process failed without a word");
}

static void finish(struct live *L, struct lprune *p, bool killed)
{
	int wst = p->wst;
	if (!p->reaped && waitpid(p->pid, &wst, 0) != p->pid)
		wst = -1;
	/* Its status unknown (reaped by another part of the daemon: the
	 * local executor reaps every child), it succeeded if it said
	 * something, and nothing on stderr. */
	bool ok = wst != -1 ? WIFEXITED(wst) && WEXITSTATUS(wst) == 0 && !p->said_err : p->n > 0 && !p->said_err;
	if (killed && !ok)
		live_log(L, "prune: stopped with the daemon (a prune cut short loses nothing; the next one completes it)");
	else
		log_out(L, p, ok);
	if (ok)
		p->ok++;
	else
		p->failed++;
	p->last_s = mono_s() - p->started;
	for (int i = 0; i < 2; i++)
		if (p->fd[i] >= 0)
			close(p->fd[i]);
	p->fd[0] = p->fd[1] = -1;
	p->pid = 0;
	p->n = 0;
}

/* Reads what the child said so far on each of its streams; true once
 * both ended. */
static bool drain(struct lprune *p)
{
	for (int i = 0; i < 2; i++)
		while (p->fd[i] >= 0) {
			char b[1024];
			ssize_t r = read(p->fd[i], b, sizeof b);
			if (r > 0) {
				/* the tail is kept: a failure's message is its last line */
				size_t k = (size_t)r, room = sizeof p->out - 1;   /* k <= sizeof b < room */
				if (p->n + k > room) {
					memmove(p->out, p->out + (p->n + k - room), room - k);
					p->n = room - k;
				}
				memcpy(p->out + p->n, b, k);
				p->n += k;
				p->said_err |= i == 1;
				continue;
			}
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0 && errno == EAGAIN)
				break;
			close(p->fd[i]);   /* its end (or an error) */
			p->fd[i] = -1;
		}
	return p->fd[0] < 0 && p->fd[1] < 0;
}

void lprune_tick(struct live *L)
{
	struct lprune *p = get(L);
	if (!p)
		return;
	if (p->pid > 0) {
		if (drain(p))
			finish(L, p, false);
		return;
	}
	double now = mono_s();
	if (now < p->next)
		return;
	p->next = now + L->cfg.prune_every_s;
	spawn(L, p);
}

void lprune_reaped(struct live *L, pid_t pid, int wst)
{
	if (L->prune && L->prune->pid == pid && pid > 0) {
		L->prune->wst = wst;
		L->prune->reaped = true;
	}
}

void lprune_end(struct live *L, bool kill_it)
{
	struct lprune *p = L->prune;
	if (p && p->pid > 0) {
		if (kill_it)
			kill(p->pid, SIGKILL);   /* a prune cut short anywhere loses nothing */
		else
			live_log(L, "prune: waiting for the prune to finish");
		for (int i = 0; i < 2; i++)
			if (p->fd[i] >= 0)
				fcntl(p->fd[i], F_SETFL, fcntl(p->fd[i], F_GETFL) & ~O_NONBLOCK);
		drain(p);
		finish(L, p, kill_it);
	}
	free(p);
	L->prune = NULL;
}

long lprune_metrics(const struct live *L, char **buf, size_t *cap, long n)
{
	const struct lprune *p = L->prune;
	if (!p || n < 0)
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
	                 "# HELP hetlab_state_prunes_total The daemon's prunes of its state (prune_keep_days), by result.\n"
	                 "# TYPE hetlab_state_prunes_total counter\n"
	                 "hetlab_state_prunes_total{result=\"ok\"} %lld\n"
	                 "hetlab_state_prunes_total{result=\"failed\"} %lld\n"
	                 "# HELP hetlab_state_prune_last_seconds How long the daemon's last prune of its state took.\n"
	                 "# TYPE hetlab_state_prune_last_seconds gauge\n"
	                 "hetlab_state_prune_last_seconds %.3f\n",
	                 (long long)p->ok, (long long)p->failed, p->last_s);
	return w > 0 && (size_t)w < *cap - (size_t)n ? n + w : n;
}
