/* slurm_run — see slurm_run.h. One event loop (poll) over the pipes of
 * every command running; a command's deadline kills its process group.
 * Both environments (the caller's with Slurm's settings, the minimal one)
 * are built before any fork. */
#include "live/exec/slurm_run.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum {
	DEFAULT_TIMEOUT_S = 30,
	MAX_STDOUT = 256 << 20,   /* sinfo --json of a big cluster: tens of MiB */
	MAX_STDERR = 4096,        /* kept for the message; the rest is read and dropped */
	MAX_PAR = 64,
};

void sx_seterr(char *err, size_t n, const char *fmt, ...)
{
	if (!err || n == 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void sx_cmd_init(struct sx_cmd *cmd)
{
	cmd->argv[0] = NULL;
	cmd->argc = 0;
	cmd->aused = 0;
	cmd->out = NULL;
	cmd->err[0] = 0;
	cmd->rc = -1;
	cmd->status = -1;
	cmd->transient = cmd->no_job = cmd->minimal_env = false;
}

void sx_cmd_set(struct sx_cmd *cmd, const char *const *argv)
{
	sx_cmd_init(cmd);
	int k = 0;
	for (; argv[k] && k < SX_MAX_ARGS; k++)
		cmd->argv[k] = argv[k];
	cmd->argv[k] = NULL;
	cmd->argc = k;
}

int sx_cmd_add(struct sx_cmd *cmd, const char *fmt, ...)
{
	if (cmd->argc >= SX_MAX_ARGS)
		return -1;
	size_t room = sizeof cmd->abuf - cmd->aused;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(cmd->abuf + cmd->aused, room, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= room)
		return -1;
	cmd->argv[cmd->argc++] = cmd->abuf + cmd->aused;
	cmd->argv[cmd->argc] = NULL;
	cmd->aused += (size_t)k + 1;
	return 0;
}

void sx_cmd_done(struct sx_cmd *cmd)
{
	free(cmd->out);
	cmd->out = NULL;
}

/* What Slurm's clients print when the controller (or slurmdbd) is not
 * there, or too busy to answer: worth a retry, nothing was decided. */
bool sx_msg_transient(const char *msg)
{
	static const char *const words[] = {
		"Unable to contact slurm controller", "Socket timed out", "Connection refused",
		"Zero Bytes were transmitted", "Communication connection failure", "Transport endpoint",
		"backup controller in standby mode", "slurm_persist_conn_open", "Slurm temporarily unable",
		"Resource temporarily unavailable", "Unable to establish connection", "Error connecting",
		"Slurmctld is not responding", "timed out after", NULL,
	};
	for (int k = 0; msg && words[k]; k++)
		if (strstr(msg, words[k]))
			return true;
	return false;
}

/* ---- one child ---- */

struct buf {
	char *p;
	size_t len, cap, max;
	bool over;
};

static int buf_add(struct buf *b, const char *d, size_t k)
{
	if (b->len + k + 1 > b->max) {
		b->over = true;
		k = b->max > b->len + 1 ? b->max - b->len - 1 : 0;
	}
	if (b->len + k + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + k + 1)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, d, k);
	b->len += k;
	b->p[b->len] = '\0';
	return 0;
}

/* The first line(s) of a command's stderr, trimmed, on one line. */
static const char *trimmed(char *s)
{
	if (!s)
		return "";
	while (*s && isspace((unsigned char)*s))
		s++;
	size_t k = strlen(s);
	while (k > 0 && isspace((unsigned char)s[k - 1]))
		s[--k] = '\0';
	for (char *q = s; *q; q++)
		if (*q == '\n')
			*q = ' ';
	return s;
}

enum why { GO, LATE, W_POLLERR, NOMEM, OVER };

struct child {
	struct sx_cmd *cmd;
	pid_t pid;
	int fd[2];               /* stdout, stderr read ends (-1 closed) */
	int fx;                  /* exec error pipe read end */
	struct buf bo, be;
	double deadline;
	enum why why;
	char name[96], path[PATH_MAX];
};

/* The environment for the commands, built before fork (the child only
 * execs): ours without SLURM_CONF and SLURM_TIME_FORMAT, then those two. */
static char **make_env(const struct sx_ctx *c, char *conf, size_t conflen)
{
	size_t k = 0;
	while (environ[k])
		k++;
	char **e = calloc(k + 3, sizeof *e);
	if (!e)
		return NULL;
	size_t m = 0;
	for (size_t q = 0; q < k; q++)
		if (strncmp(environ[q], "SLURM_TIME_FORMAT=", 18) != 0 &&
		    (!c->slurm_conf[0] || strncmp(environ[q], "SLURM_CONF=", 11) != 0))
			e[m++] = environ[q];
	if (c->slurm_conf[0]) {
		snprintf(conf, conflen, "SLURM_CONF=%s", c->slurm_conf);
		e[m++] = conf;
	}
	e[m++] = (char *)"SLURM_TIME_FORMAT=%s";
	e[m] = NULL;
	return e;
}

/* The minimal environment (slurm_run.h): PATH, and SLURM_CONF when the
 * context or the caller sets it. */
static void make_minimal_env(const struct sx_ctx *c, char *env[3], char *conf, size_t conflen)
{
	const char *sc = c->slurm_conf[0] ? c->slurm_conf : getenv("SLURM_CONF");
	int m = 0;
	env[m++] = (char *)"PATH=" SX_MINIMAL_PATH;
	if (sc && sc[0]) {
		snprintf(conf, conflen, "SLURM_CONF=%s", sc);
		env[m++] = conf;
	}
	env[m] = NULL;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Forks and execs ch->cmd. 0, or -1 with the command's err set. */
static int spawn(const struct sx_ctx *c, struct child *ch, char **envp, int timeout_s)
{
	struct sx_cmd *cmd = ch->cmd;
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, px[2] = { -1, -1 };
	snprintf(ch->name, sizeof ch->name, "%s%s%s", cmd->argv[0], cmd->argv[1] ? " " : "",
	         cmd->argv[1] ? cmd->argv[1] : "");
	if (c->bindir[0])
		snprintf(ch->path, sizeof ch->path, "%s/%s", c->bindir, cmd->argv[0]);
	else
		snprintf(ch->path, sizeof ch->path, "%s", cmd->argv[0]);
	ch->fd[0] = ch->fd[1] = ch->fx = -1;
	ch->bo = (struct buf){ .max = MAX_STDOUT };
	ch->be = (struct buf){ .max = MAX_STDERR };
	if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0 || pipe2(px, O_CLOEXEC) < 0) {
		sx_seterr(cmd->err, sizeof cmd->err, "%s: pipe: %s", ch->name, strerror(errno));
		goto fail;
	}
	ch->pid = fork();
	if (ch->pid < 0) {
		sx_seterr(cmd->err, sizeof cmd->err, "%s: fork: %s", ch->name, strerror(errno));
		goto fail;
	}
	if (ch->pid == 0) {
		/* Its own process group, so that a timeout kills what it started;
		 * none of the caller's descriptors, signal mask or ignored SIGPIPE.
		 * Only async-signal-safe calls from here to exec. */
		setpgid(0, 0);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
#ifdef CLOSE_RANGE_CLOEXEC
		close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
#endif
		int nul = open("/dev/null", O_RDONLY);
		if (nul >= 0)
			dup2(nul, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		if (c->bindir[0])
			execve(ch->path, (char *const *)cmd->argv, envp);
		else
			execvpe(ch->path, (char *const *)cmd->argv, envp);
		int e = errno;
		if (write(px[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	close(px[1]);
	ch->fd[0] = po[0];
	ch->fd[1] = pe[0];
	ch->fx = px[0];
	ch->deadline = now_s() + timeout_s;
	ch->why = GO;
	return 0;
fail:
	for (int k = 0; k < 2; k++) {
		close_fd(&po[k]);
		close_fd(&pe[k]);
		close_fd(&px[k]);
	}
	ch->pid = -1;
	cmd->rc = -1;
	return -1;
}

/* The child has exited (status st) or was stopped early (ch->why): fills
 * its command's result and frees what the child held. */
static void finish(struct child *ch, int st, int timeout_s)
{
	struct sx_cmd *cmd = ch->cmd;
	const char *name = ch->name;
	size_t n = sizeof cmd->err;
	cmd->rc = -1;
	int e = 0;
	if (ch->why == LATE) {
		sx_seterr(cmd->err, n, "%s: timed out after %d s (killed)", name, timeout_s);
		cmd->transient = true;
	} else if (ch->why == W_POLLERR) {
		sx_seterr(cmd->err, n, "%s: poll failed", name);
	} else if (ch->why == NOMEM) {
		sx_seterr(cmd->err, n, "%s: out of memory reading its output", name);
	} else if (ch->why == OVER) {
		sx_seterr(cmd->err, n, "%s: more than %d MiB of output", name, MAX_STDOUT >> 20);
	} else if (read(ch->fx, &e, sizeof e) == (ssize_t)sizeof e) {
		sx_seterr(cmd->err, n, "%s: cannot execute %s: %s", name, ch->path, strerror(e));
	} else if (WIFSIGNALED(st)) {
		sx_seterr(cmd->err, n, "%s: killed by signal %d%s%s", name, WTERMSIG(st), ch->be.len ? ": " : "",
		          trimmed(ch->be.p));
	} else if (WEXITSTATUS(st) != 0) {
		cmd->status = WEXITSTATUS(st);
		const char *msg = ch->be.len ? trimmed(ch->be.p) : "";
		sx_seterr(cmd->err, n, "%s: exit status %d%s%s", name, cmd->status, msg[0] ? ": " : "",
		          msg[0] ? msg : " (nothing on stderr)");
		cmd->transient = sx_msg_transient(msg);
		cmd->no_job = strstr(msg, "Invalid job id") != NULL;
	} else {
		cmd->status = 0;
		cmd->out = ch->bo.p ? ch->bo.p : strdup("");
		ch->bo.p = NULL;
		cmd->rc = cmd->out ? 0 : -1;
		if (!cmd->out)
			sx_seterr(cmd->err, n, "%s: out of memory", name);
	}
	free(ch->bo.p);
	free(ch->be.p);
	ch->bo.p = ch->be.p = NULL;
	close_fd(&ch->fd[0]);
	close_fd(&ch->fd[1]);
	close_fd(&ch->fx);
	ch->pid = -1;
}

static void kill_child(struct child *ch, int timeout_s)
{
	int st = 0;
	kill(-ch->pid, SIGKILL);
	kill(ch->pid, SIGKILL);
	while (waitpid(ch->pid, &st, 0) < 0 && errno == EINTR)
		;
	finish(ch, st, timeout_s);
}

const char *const SX_READERS[] = { "squeue", "sinfo", "sacct", NULL };

/* Whether c may run cmd: any command, or with read_only only a reader. */
static bool allowed(const struct sx_ctx *c, const struct sx_cmd *cmd)
{
	if (!c->read_only)
		return true;
	for (int k = 0; SX_READERS[k]; k++)
		if (cmd->argv[0] && strcmp(cmd->argv[0], SX_READERS[k]) == 0)
			return true;
	return false;
}

void sx_run_all(const struct sx_ctx *c, struct sx_cmd *const *cmds, int n, int maxpar)
{
	int timeout_s = c->timeout_s > 0 ? c->timeout_s : DEFAULT_TIMEOUT_S;
	char conf[600], mconf[600], *menv[3];
	char **envp = make_env(c, conf, sizeof conf);
	make_minimal_env(c, menv, mconf, sizeof mconf);
	if (maxpar < 1)
		maxpar = 1;
	if (maxpar > MAX_PAR)
		maxpar = MAX_PAR;
	for (int k = 0; k < n; k++) {
		cmds[k]->rc = -1;
		cmds[k]->status = -1;
		cmds[k]->transient = cmds[k]->no_job = false;
		cmds[k]->err[0] = 0;
		cmds[k]->out = NULL;
	}
	if (!envp) {
		for (int k = 0; k < n; k++)
			sx_seterr(cmds[k]->err, sizeof cmds[k]->err, "%s: out of memory", cmds[k]->argv[0]);
		return;
	}
	struct child ch[MAX_PAR];
	int nch = 0, next = 0;
	for (;;) {
		while (nch < maxpar && next < n) {
			if (!allowed(c, cmds[next])) {
				sx_seterr(cmds[next]->err, sizeof cmds[next]->err, "%s: refused: this context is read-only "
				          "(it runs only squeue, sinfo and sacct)", cmds[next]->argv[0] ? cmds[next]->argv[0] : "?");
				next++;
				continue;
			}
			ch[nch].cmd = cmds[next++];
			if (spawn(c, &ch[nch], ch[nch].cmd->minimal_env ? menv : envp, timeout_s) == 0)
				nch++;
		}
		if (nch == 0)
			break;
		struct pollfd fds[2 * MAX_PAR];
		int owner[2 * MAX_PAR], which[2 * MAX_PAR], nf = 0;
		double t = now_s(), wait_s = 1.0;
		bool reap = false;
		for (int i = 0; i < nch; i++) {
			double left = ch[i].deadline - t;
			if (left < wait_s)
				wait_s = left;
			for (int k = 0; k < 2; k++)
				if (ch[i].fd[k] >= 0) {
					fds[nf] = (struct pollfd){ .fd = ch[i].fd[k], .events = POLLIN };
					owner[nf] = i;
					which[nf++] = k;
				}
			if (ch[i].fd[0] < 0 && ch[i].fd[1] < 0)
				reap = true;
		}
		if (reap && wait_s > 0.005)
			wait_s = 0.005;
		if (wait_s < 0)
			wait_s = 0;
		int r = nf ? poll(fds, (nfds_t)nf, (int)(wait_s * 1000) + 1) : 0;
		if (!nf) {
			struct timespec ts = { 0, (long)(wait_s * 1e9) + 1000 };
			nanosleep(&ts, NULL);
		}
		if (r < 0 && errno != EINTR)
			for (int i = 0; i < nch; i++)
				ch[i].why = W_POLLERR;
		for (int f = 0; r > 0 && f < nf; f++) {
			if (!fds[f].revents)
				continue;
			struct child *x = &ch[owner[f]];
			char tmp[65536];
			ssize_t got = read(fds[f].fd, tmp, sizeof tmp);
			if (got < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (got <= 0) {
				close_fd(&x->fd[which[f]]);
				continue;
			}
			if (buf_add(which[f] == 0 ? &x->bo : &x->be, tmp, (size_t)got) < 0)
				x->why = NOMEM;
			else if (x->bo.over)
				x->why = OVER;
		}
		t = now_s();
		for (int i = 0; i < nch; i++) {
			struct child *x = &ch[i];
			if (x->why == GO && t >= x->deadline)
				x->why = LATE;
			if (x->why != GO) {
				kill_child(x, timeout_s);
			} else if (x->fd[0] < 0 && x->fd[1] < 0) {
				int st = 0;
				pid_t w = waitpid(x->pid, &st, WNOHANG);
				if (w == x->pid)
					finish(x, st, timeout_s);
				else if (w < 0 && errno != EINTR) {
					x->why = W_POLLERR;
					kill_child(x, timeout_s);
				}
			}
			if (x->pid < 0) {
				ch[i--] = ch[--nch];
			}
		}
	}
	free(envp);
}

int sx_run(const struct sx_ctx *c, struct sx_cmd *cmd)
{
	sx_run_all(c, &cmd, 1, 1);
	return cmd->rc;
}
