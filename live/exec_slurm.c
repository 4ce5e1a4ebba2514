/* exec_slurm — see exec_slurm.h. Three parts: running one command (fork,
 * exec, poll with a deadline, kill the process group on timeout), writing
 * the batch script and the argvs of the actions, and parsing squeue/sinfo
 * JSON into plain structs. */
#include "live/exec_slurm.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum {
	DEFAULT_TIMEOUT_S = 30,
	MAX_STDOUT = 256 << 20,   /* squeue --json of a big cluster: tens of MiB */
	MAX_STDERR = 4096,        /* kept for the message; the rest is read and dropped */
	MAX_ARGS = 32,
	SCRIPT_MAX = 1 << 20,
};

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

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- running one command ------------------------------------------------- */

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

/* "scontrol update", "squeue --json": the command as messages name it. */
static void cmd_name(const char *const *argv, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", argv[0], argv[1] ? " " : "", argv[1] ? argv[1] : "");
}

/* The first line(s) of a command's stderr, trimmed, for a message. */
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

/* The environment for the commands: ours, with SLURM_CONF replaced when the
 * context names one. Built before fork (the child only execs). */
static char **make_env(const struct sx_ctx *c, char *conf, size_t conflen)
{
	if (!c->slurm_conf[0])
		return environ;
	size_t k = 0;
	while (environ[k])
		k++;
	char **e = calloc(k + 2, sizeof *e);
	if (!e)
		return NULL;
	size_t m = 0;
	for (size_t q = 0; q < k; q++)
		if (strncmp(environ[q], "SLURM_CONF=", 11) != 0)
			e[m++] = environ[q];
	snprintf(conf, conflen, "SLURM_CONF=%s", c->slurm_conf);
	e[m++] = conf;
	e[m] = NULL;
	return e;
}

/* Runs argv (argv[0] a bare command name, looked up in c->bindir or PATH)
 * with the deadline c->timeout_s. 0 with its stdout in *out (malloc'd, the
 * caller frees; may be NULL for "not wanted") when it exits 0; -1 with a
 * message otherwise. */
static int run(const struct sx_ctx *c, const char *const *argv, char **out, char *err, size_t n)
{
	char name[128], path[PATH_MAX], conf[600];
	char **envp = NULL;
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, px[2] = { -1, -1 };
	struct buf bo = { .max = MAX_STDOUT }, be = { .max = MAX_STDERR };
	int rc = -1, timeout_s = c->timeout_s > 0 ? c->timeout_s : DEFAULT_TIMEOUT_S;
	pid_t pid = -1;

	cmd_name(argv, name, sizeof name);
	if (out)
		*out = NULL;
	if (c->bindir[0])
		snprintf(path, sizeof path, "%s/%s", c->bindir, argv[0]);
	else
		snprintf(path, sizeof path, "%s", argv[0]);
	if (!(envp = make_env(c, conf, sizeof conf))) {
		seterr(err, n, "%s: out of memory", name);
		goto out;
	}
	if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0 || pipe2(px, O_CLOEXEC) < 0) {
		seterr(err, n, "%s: pipe: %s", name, strerror(errno));
		goto close_pipes;
	}
	pid = fork();
	if (pid < 0) {
		seterr(err, n, "%s: fork: %s", name, strerror(errno));
		goto close_pipes;
	}
	if (pid == 0) {
		/* Its own process group, so that a timeout kills what it started;
		 * none of the caller's descriptors (those not close-on-exec: the
		 * daemon's sockets), signal mask or ignored SIGPIPE. Only
		 * async-signal-safe calls from here to exec. */
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
			execve(path, (char *const *)argv, envp);
		else
			execvpe(path, (char *const *)argv, envp);
		int e = errno;
		if (write(px[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	close(px[1]);
	po[1] = pe[1] = px[1] = -1;

	/* Why we stop it early: nothing, the deadline, a poll error, memory, too much output. */
	enum { GO, LATE, POLL_ERR, NOMEM, OVER } why = GO;
	int poll_errno = 0;
	double deadline = now_s() + timeout_s;
	struct pollfd fds[2] = { { .fd = po[0], .events = POLLIN }, { .fd = pe[0], .events = POLLIN } };
	while (why == GO && (fds[0].fd >= 0 || fds[1].fd >= 0)) {
		double left = deadline - now_s();
		if (left <= 0) {
			why = LATE;
			break;
		}
		int r = poll(fds, 2, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			poll_errno = errno;
			why = POLL_ERR;
			break;
		}
		for (int k = 0; k < 2; k++) {
			if (fds[k].fd < 0 || !fds[k].revents)
				continue;
			char tmp[65536];
			ssize_t got = read(fds[k].fd, tmp, sizeof tmp);
			if (got < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (got <= 0) {
				fds[k].fd = -1;
				continue;
			}
			if (buf_add(k == 0 ? &bo : &be, tmp, (size_t)got) < 0)
				why = NOMEM;
			else if (bo.over)
				why = OVER;
		}
	}
	/* Both pipes closed: wait for the exit, still within the deadline. */
	int st = 0;
	pid_t w = 0;
	while (why == GO) {
		w = waitpid(pid, &st, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (now_s() >= deadline) {
			why = LATE;
			break;
		}
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if (why != GO) {
		/* The whole process group: the command and whatever it started. */
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (why == LATE)
			seterr(err, n, "%s: timed out after %d s (killed)", name, timeout_s);
		else if (why == POLL_ERR)
			seterr(err, n, "%s: poll: %s", name, strerror(poll_errno));
		else if (why == NOMEM)
			seterr(err, n, "%s: out of memory reading its output", name);
		else
			seterr(err, n, "%s: more than %d MiB of output", name, MAX_STDOUT >> 20);
		goto close_pipes;
	}
	if (w < 0) {
		seterr(err, n, "%s: waitpid: %s", name, strerror(errno));
		goto close_pipes;
	}
	int e = 0;
	if (read(px[0], &e, sizeof e) == (ssize_t)sizeof e) {
		seterr(err, n, "%s: cannot execute %s: %s", name, path, strerror(e));
		goto close_pipes;
	}
	if (WIFSIGNALED(st)) {
		seterr(err, n, "%s: killed by signal %d%s%s", name, WTERMSIG(st), be.len ? ": " : "",
		       trimmed(be.p));
		goto close_pipes;
	}
	if (WEXITSTATUS(st) != 0) {
		seterr(err, n, "%s: exit status %d%s%s", name, WEXITSTATUS(st), be.len ? ": " : "",
		       be.len ? trimmed(be.p) : " (nothing on stderr)");
		goto close_pipes;
	}
	if (out) {
		*out = bo.p ? bo.p : strdup("");
		bo.p = NULL;
		if (!*out) {
			seterr(err, n, "%s: out of memory", name);
			goto close_pipes;
		}
	}
	rc = 0;
close_pipes:
	for (int k = 0; k < 2; k++) {
		if (po[k] >= 0)
			close(po[k]);
		if (pe[k] >= 0)
			close(pe[k]);
		if (px[k] >= 0)
			close(px[k]);
	}
	if (envp != environ)
		free(envp);
out:
	free(bo.p);
	free(be.p);
	return rc;
}

/* ---- the batch script and the actions ----------------------------------- */

/* Appends text to buf at *off, single-quoted for sh ('\'' for a quote). */
static int sh_quote(char *buf, size_t len, size_t *off, const char *text)
{
	size_t o = *off;
	if (o + 1 >= len)
		return -1;
	buf[o++] = '\'';
	for (const char *p = text; *p; p++) {
		if (*p == '\'') {
			if (o + 4 >= len)
				return -1;
			memcpy(buf + o, "'\\''", 4);
			o += 4;
		} else {
			if (o + 1 >= len)
				return -1;
			buf[o++] = *p;
		}
	}
	if (o + 1 >= len)
		return -1;
	buf[o++] = '\'';
	buf[o] = '\0';
	*off = o;
	return 0;
}

static int add(char *buf, size_t len, size_t *off, const char *text)
{
	size_t k = strlen(text);
	if (*off + k + 1 > len)
		return -1;
	memcpy(buf + *off, text, k + 1);
	*off += k;
	return 0;
}

static bool env_name_ok(const char *e)
{
	const char *eq = strchr(e, '=');
	if (!eq || eq == e || isdigit((unsigned char)e[0]))
		return false;
	for (const char *p = e; p < eq; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return false;
	return true;
}

int sx_script(const struct sx_job *j, char *buf, size_t len, char *err, size_t n)
{
	size_t off = 0;
	char head[160];
	if (!j->argv || !j->argv[0] || !j->argv[0][0]) {
		seterr(err, n, "job %" PRId64 ": empty argv", j->key);
		return -1;
	}
	if (j->argv[0][0] == '-') {
		seterr(err, n, "job %" PRId64 ": argv[0] '%s' starts with '-' (exec would read it as an option)",
		       j->key, j->argv[0]);
		return -1;
	}
	snprintf(head, sizeof head,
	         "#!/bin/sh\n# hetlab job %" PRId64 ", written by hetlab (live/exec_slurm.c): "
	         "every word single-quoted.\n", j->key);
	if (add(buf, len, &off, head) < 0)
		goto small;
	for (size_t k = 0; j->env && j->env[k]; k++) {
		if (!env_name_ok(j->env[k])) {
			seterr(err, n, "job %" PRId64 ": env[%zu] '%s': expected NAME=VALUE with NAME of "
			       "letters, digits and _", j->key, k, j->env[k]);
			return -1;
		}
		if (add(buf, len, &off, "export ") < 0 || sh_quote(buf, len, &off, j->env[k]) < 0 ||
		    add(buf, len, &off, "\n") < 0)
			goto small;
	}
	if (add(buf, len, &off, "exec") < 0)
		goto small;
	for (size_t k = 0; j->argv[k]; k++)
		if (add(buf, len, &off, " ") < 0 || sh_quote(buf, len, &off, j->argv[k]) < 0)
			goto small;
	if (add(buf, len, &off, "\n") < 0)
		goto small;
	return (int)off;
small:
	seterr(err, n, "job %" PRId64 ": batch script longer than %zu bytes", j->key, len);
	return -1;
}

void sx_output_path(const struct sx_ctx *c, int64_t key, int64_t slurm_id, char *buf, size_t len)
{
	snprintf(buf, len, "%s/" SX_NAME_PREFIX "%" PRId64 "-%" PRId64 ".out",
	         c->workdir[0] ? c->workdir : ".", key, slurm_id);
}

/* Writes text to path through a temporary file and a rename. */
static int write_file(const char *path, const char *text, size_t len, char *err, size_t n)
{
	char tmp[PATH_MAX + 32];
	snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		seterr(err, n, "cannot write %s: %s", tmp, strerror(errno));
		return -1;
	}
	size_t done = 0;
	while (done < len) {
		ssize_t w = write(fd, text + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			seterr(err, n, "cannot write %s: %s", tmp, strerror(errno));
			close(fd);
			unlink(tmp);
			return -1;
		}
		done += (size_t)w;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		seterr(err, n, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int sx_submit(const struct sx_ctx *c, const struct sx_job *j, int64_t *slurm_id, char *err, size_t n)
{
	char wd[PATH_MAX], script_path[PATH_MAX + 64], name[64], chdir_opt[PATH_MAX + 16];
	char output[PATH_MAX + 80], part[96], acct[160], nodes[32], cpus[32], gres[32], mem[48], tm[48];
	const char *av[MAX_ARGS];
	char *script = NULL, *ans = NULL;
	int rc = -1, k = 0;

	if (j->key < 0 || j->nodes < 1 || j->cpus_per_node < 0 || j->gpus_per_node < 0 ||
	    j->mem_mib_per_node < 0 || j->walltime_s < 0) {
		seterr(err, n, "job %" PRId64 ": expected key >= 0, nodes >= 1 and no negative "
		       "cpus, gpus, memory or walltime", j->key);
		return -1;
	}
	if (!c->workdir[0] || !realpath(c->workdir, wd)) {
		seterr(err, n, "job %" PRId64 ": workdir '%s': %s", j->key, c->workdir,
		       c->workdir[0] ? strerror(errno) : "not set");
		return -1;
	}
	if (!(script = malloc(SCRIPT_MAX))) {
		seterr(err, n, "out of memory");
		return -1;
	}
	int len = sx_script(j, script, SCRIPT_MAX, err, n);
	if (len < 0)
		goto out;
	snprintf(script_path, sizeof script_path, "%s/" SX_NAME_PREFIX "%" PRId64 ".sh", wd, j->key);
	if (write_file(script_path, script, (size_t)len, err, n) < 0)
		goto out;

	snprintf(name, sizeof name, "--job-name=" SX_NAME_PREFIX "%" PRId64, j->key);
	snprintf(chdir_opt, sizeof chdir_opt, "--chdir=%s", wd);
	snprintf(output, sizeof output, "--output=%s/" SX_NAME_PREFIX "%" PRId64 "-%%j.out", wd, j->key);
	snprintf(nodes, sizeof nodes, "--nodes=%d", j->nodes);
	av[k++] = "sbatch";
	av[k++] = "--parsable";
	av[k++] = "--hold";
	av[k++] = "--requeue";
	av[k++] = "--open-mode=append";
	av[k++] = name;
	av[k++] = chdir_opt;
	av[k++] = output;
	if (c->partition[0]) {
		snprintf(part, sizeof part, "--partition=%s", c->partition);
		av[k++] = part;
	}
	if (j->account && j->account[0]) {
		snprintf(acct, sizeof acct, "--account=%s", j->account);
		av[k++] = acct;
	}
	av[k++] = nodes;
	av[k++] = "--ntasks-per-node=1";
	if (j->cpus_per_node > 0) {
		snprintf(cpus, sizeof cpus, "--cpus-per-task=%d", j->cpus_per_node);
		av[k++] = cpus;
	}
	if (j->gpus_per_node > 0) {
		snprintf(gres, sizeof gres, "--gres=gpu:%d", j->gpus_per_node);
		av[k++] = gres;
	}
	if (j->mem_mib_per_node > 0) {
		snprintf(mem, sizeof mem, "--mem=%" PRId64 "M", j->mem_mib_per_node);
		av[k++] = mem;
	}
	if (j->walltime_s > 0) {
		int64_t s = j->walltime_s;
		snprintf(tm, sizeof tm, "--time=%" PRId64 "-%02d:%02d:%02d", s / 86400,
		         (int)(s % 86400 / 3600), (int)(s % 3600 / 60), (int)(s % 60));
		av[k++] = tm;
	}
	av[k++] = script_path;
	av[k] = NULL;
	if (run(c, av, &ans, err, n) < 0)
		goto out;
	/* --parsable: "ID" or "ID;CLUSTER", one line. */
	char *end;
	errno = 0;
	long long id = strtoll(ans, &end, 10);
	if (end == ans || errno || id <= 0 || (*end && *end != ';' && *end != '\n')) {
		char got[80];
		snprintf(got, sizeof got, "%s", ans);
		seterr(err, n, "sbatch --parsable: expected a job id, got '%s'", trimmed(got));
		goto out;
	}
	*slurm_id = id;
	rc = 0;
out:
	free(ans);
	free(script);
	return rc;
}

static bool node_name_ok(const char *s)
{
	if (!s || !s[0])
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
			return false;
	return true;
}

/* Runs `scontrol VERB ID` (hold, release, requeuehold). */
static int scontrol_id(const struct sx_ctx *c, const char *verb, int64_t id, char *err, size_t n)
{
	char ids[32];
	snprintf(ids, sizeof ids, "%" PRId64, id);
	const char *av[] = { "scontrol", verb, ids, NULL };
	return run(c, av, NULL, err, n);
}

int sx_start(const struct sx_ctx *c, int64_t id, const char *const *nodes, int nnodes, char *err, size_t n)
{
	char jobid[48], req[4096] = "ReqNodeList=", num[48];
	size_t off = strlen(req);
	if (nnodes < 1) {
		seterr(err, n, "job %" PRId64 ": no nodes to start on", id);
		return -1;
	}
	for (int k = 0; k < nnodes; k++) {
		if (!node_name_ok(nodes[k])) {
			seterr(err, n, "job %" PRId64 ": node name '%s': expected letters, digits, '-', "
			       "'_' or '.'", id, nodes[k] ? nodes[k] : "(null)");
			return -1;
		}
		if ((k && add(req, sizeof req, &off, ",") < 0) || add(req, sizeof req, &off, nodes[k]) < 0) {
			seterr(err, n, "job %" PRId64 ": node list too long", id);
			return -1;
		}
	}
	snprintf(jobid, sizeof jobid, "JobId=%" PRId64, id);
	snprintf(num, sizeof num, "NumNodes=%d-%d", nnodes, nnodes);
	/* NumNodes before ReqNodeList in one update: a job submitted for fewer
	 * nodes than the list otherwise fails with "Node count specification
	 * invalid" (its maximum is still the submitted count). */
	const char *av[] = { "scontrol", "update", jobid, num, req, "StartTime=now", NULL };
	if (run(c, av, NULL, err, n) < 0)
		return -1;
	return scontrol_id(c, "release", id, err, n);
}

static const struct { int sig; const char *name; } signames[] = {
	{ SIGHUP, "HUP" }, { SIGINT, "INT" }, { SIGQUIT, "QUIT" }, { SIGKILL, "KILL" },
	{ SIGUSR1, "USR1" }, { SIGUSR2, "USR2" }, { SIGALRM, "ALRM" }, { SIGTERM, "TERM" },
	{ SIGCONT, "CONT" }, { SIGSTOP, "STOP" }, { SIGTSTP, "TSTP" }, { SIGURG, "URG" },
	{ SIGXCPU, "XCPU" }, { 0, NULL },
};

int sx_signal(const struct sx_ctx *c, int64_t id, int sig, char *err, size_t n)
{
	char opt[48], ids[32];
	const char *nm = NULL;
	if (sig <= 0 || sig >= 65) {
		seterr(err, n, "job %" PRId64 ": signal %d out of range", id, sig);
		return -1;
	}
	for (int k = 0; signames[k].name; k++)
		if (signames[k].sig == sig)
			nm = signames[k].name;
	if (nm)
		snprintf(opt, sizeof opt, "--signal=%s", nm);
	else
		snprintf(opt, sizeof opt, "--signal=%d", sig);
	snprintf(ids, sizeof ids, "%" PRId64, id);
	const char *av[] = { "scancel", "--full", opt, ids, NULL };
	return run(c, av, NULL, err, n);
}

int sx_requeue_hold(const struct sx_ctx *c, int64_t id, char *err, size_t n)
{
	return scontrol_id(c, "requeuehold", id, err, n);
}

int sx_hold(const struct sx_ctx *c, int64_t id, char *err, size_t n)
{
	return scontrol_id(c, "hold", id, err, n);
}

int sx_cancel(const struct sx_ctx *c, int64_t id, char *err, size_t n)
{
	char ids[32];
	snprintf(ids, sizeof ids, "%" PRId64, id);
	const char *av[] = { "scancel", ids, NULL };
	return run(c, av, NULL, err, n);
}

static int update_node(const struct sx_ctx *c, const char *node, const char *state,
                       const char *reason, char *err, size_t n)
{
	char nn[128], st[64], rs[512];
	if (!node_name_ok(node) || strlen(node) >= 64) {
		seterr(err, n, "node name '%s': expected letters, digits, '-', '_' or '.'",
		       node ? node : "(null)");
		return -1;
	}
	snprintf(nn, sizeof nn, "NodeName=%s", node);
	snprintf(st, sizeof st, "State=%s", state);
	const char *av[] = { "scontrol", "update", nn, st, NULL, NULL };
	if (reason) {
		if (!reason[0] || strlen(reason) > 400 || strpbrk(reason, "\n\r")) {
			seterr(err, n, "node %s: drain reason: expected 1 to 400 characters on one line", node);
			return -1;
		}
		snprintf(rs, sizeof rs, "Reason=%s", reason);
		av[4] = rs;
	}
	return run(c, av, NULL, err, n);
}

int sx_drain(const struct sx_ctx *c, const char *node, const char *reason, char *err, size_t n)
{
	return update_node(c, node, "DRAIN", reason ? reason : "", err, n);
}

int sx_resume(const struct sx_ctx *c, const char *node, char *err, size_t n)
{
	return update_node(c, node, "RESUME", NULL, err, n);
}

/* ---- parsing squeue --json and sinfo --json ------------------------------ */

/* An integer: a JSON number, or 23.x's {"set": true, "infinite": false,
 * "number": N}. False when absent, unset, infinite or not a number. */
static bool jint(json_t *v, int64_t *out)
{
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return true;
	}
	if (json_is_real(v)) {
		*out = (int64_t)json_real_value(v);
		return true;
	}
	if (json_is_object(v)) {
		json_t *set = json_object_get(v, "set"), *inf = json_object_get(v, "infinite");
		if ((set && !json_is_true(set)) || json_is_true(inf))
			return false;
		return jint(json_object_get(v, "number"), out);
	}
	return false;
}

static const char *jstr(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/* Strings of a state: a string, or an array of strings (23.x), plus the
 * array `also` (22.05's node state_flags). Upper-cased into out. */
static int state_words(json_t *v, json_t *also, char out[][32], int max)
{
	int k = 0;
	json_t *srcs[2] = { v, also };
	for (int s = 0; s < 2; s++) {
		json_t *x = srcs[s];
		if (json_is_string(x) && k < max) {
			copy(out[k++], 32, json_string_value(x));
		} else if (json_is_array(x)) {
			size_t i;
			json_t *e;
			json_array_foreach(x, i, e)
				if (json_is_string(e) && k < max)
					copy(out[k++], 32, json_string_value(e));
		}
	}
	for (int i = 0; i < k; i++)
		for (char *p = out[i]; *p; p++)
			*p = (char)toupper((unsigned char)*p);
	return k;
}

/* Flags before base states, in the order of Slurm's job_state_string(). */
static const struct { const char *name; enum sx_state st; } job_states[] = {
	{ "COMPLETING", SX_COMPLETING }, { "CONFIGURING", SX_RUNNING },
	{ "RESIZING", SX_RUNNING }, { "RESV_DEL_HOLD", SX_HELD },
	{ "REQUEUED", SX_REQUEUED }, { "REQUEUE_FED", SX_REQUEUED },
	{ "REQUEUE_HOLD", SX_REQUEUED }, { "SPECIAL_EXIT", SX_HELD },
	{ "STOPPED", SX_SUSPENDED }, { "REVOKED", SX_CANCELLED },
	{ "SIGNALING", SX_RUNNING }, { "STAGE_OUT", SX_COMPLETING },
	{ "PENDING", SX_PENDING }, { "RUNNING", SX_RUNNING }, { "SUSPENDED", SX_SUSPENDED },
	{ "COMPLETED", SX_COMPLETED }, { "CANCELLED", SX_CANCELLED }, { "FAILED", SX_FAILED },
	{ "TIMEOUT", SX_TIMEOUT }, { "NODE_FAIL", SX_NODE_FAIL }, { "PREEMPTED", SX_PREEMPTED },
	{ "BOOT_FAIL", SX_NODE_FAIL }, { "DEADLINE", SX_TIMEOUT }, { "OUT_OF_MEMORY", SX_OOM },
	{ NULL, SX_UNKNOWN },
};

static enum sx_state job_state(char words[][32], int nw)
{
	for (int k = 0; job_states[k].name; k++)
		for (int i = 0; i < nw; i++)
			if (strcmp(words[i], job_states[k].name) == 0)
				return job_states[k].st;
	return SX_UNKNOWN;
}

/* The exit status: 22.05's raw wait status (768 = exit 3, 15 = SIGTERM),
 * or 23.x's {"return_code": N, "signal": {"id": S}}. */
static void job_exit(json_t *v, int *code, int *sig)
{
	int64_t x, s;
	*code = *sig = -1;
	if (json_is_object(v)) {
		if (jint(json_object_get(v, "return_code"), &x))
			*code = (int)x;
		json_t *sg = json_object_get(v, "signal");
		if (jint(json_object_get(sg, "id"), &s) || jint(sg, &s))
			*sig = (int)s;
		if (*code >= 0 && *sig < 0)
			*sig = 0;
		return;
	}
	if (jint(v, &x) && x >= 0 && x <= 0xffff) {
		*code = (int)((x >> 8) & 0xff);
		*sig = (int)(x & 0x7f);
	}
}

/* Whether a comma-separated list ("p1,p2") or JSON array holds name. */
static bool in_list(json_t *v, const char *name)
{
	if (json_is_array(v)) {
		size_t i;
		json_t *e;
		json_array_foreach(v, i, e)
			if (json_is_string(e) && strcmp(json_string_value(e), name) == 0)
				return true;
		return false;
	}
	const char *s = json_string_value(v);
	size_t k = strlen(name);
	while (s && *s) {
		size_t w = strcspn(s, ",");
		if (w == k && strncmp(s, name, k) == 0)
			return true;
		s += w + (s[w] == ',');
	}
	return false;
}

/* Parses text as a JSON object holding array `key`; also fails on a
 * non-empty "errors" array. */
static json_t *load(const char *text, const char *cmd, const char *key, json_t **arr, char *err, size_t n)
{
	json_error_t je;
	json_t *root = json_loads(text ? text : "", 0, &je);
	if (!root) {
		seterr(err, n, "%s: expected JSON, line %d column %d: %s", cmd, je.line, je.column, je.text);
		return NULL;
	}
	json_t *errs = json_object_get(root, "errors");
	if (json_is_array(errs) && json_array_size(errs) > 0) {
		json_t *e0 = json_array_get(errs, 0);
		const char *d = jstr(e0, "description");
		seterr(err, n, "%s: Slurm reported an error: %s", cmd, d[0] ? d : jstr(e0, "error"));
		json_decref(root);
		return NULL;
	}
	*arr = json_object_get(root, key);
	if (!json_is_object(root) || !json_is_array(*arr)) {
		seterr(err, n, "%s: expected an object with a \"%s\" array", cmd, key);
		json_decref(root);
		return NULL;
	}
	return root;
}

static int64_t key_of(const char *name)
{
	size_t p = strlen(SX_NAME_PREFIX);
	if (strncmp(name, SX_NAME_PREFIX, p) != 0 || !isdigit((unsigned char)name[p]))
		return -1;
	char *end;
	errno = 0;
	long long k = strtoll(name + p, &end, 10);
	return (*end || errno) ? -1 : k;
}

int sx_parse_jobs(const char *text, const char *partition, bool hetlab_only,
                  struct sx_jobinfo **out, int *nout, char *err, size_t n)
{
	const char *cmd = "squeue --json";
	json_t *arr, *root = load(text, cmd, "jobs", &arr, err, n);
	*out = NULL;
	*nout = 0;
	if (!root)
		return -1;
	size_t cnt = json_array_size(arr), i;
	struct sx_jobinfo *v = cnt ? calloc(cnt, sizeof *v) : NULL;
	int m = 0;
	json_t *o;
	if (cnt && !v) {
		seterr(err, n, "%s: out of memory", cmd);
		goto fail;
	}
	json_array_foreach(arr, i, o) {
		struct sx_jobinfo *ji = &v[m];
		char words[16][32];
		memset(ji, 0, sizeof *ji);
		int64_t x;
		if (!json_is_object(o) || !jint(json_object_get(o, "job_id"), &ji->id)) {
			seterr(err, n, "%s: jobs[%zu]: expected an object with an integer job_id", cmd, i);
			goto fail;
		}
		json_t *js = json_object_get(o, "job_state");
		int nw = state_words(js, NULL, words, 16);
		if (nw == 0) {
			seterr(err, n, "%s: jobs[%zu] (job %" PRId64 "): expected job_state as a string "
			       "or an array of strings", cmd, i, ji->id);
			goto fail;
		}
		copy(ji->name, sizeof ji->name, jstr(o, "name"));
		if (hetlab_only && strncmp(ji->name, SX_NAME_PREFIX, strlen(SX_NAME_PREFIX)) != 0)
			continue;
		if (partition && partition[0] && !in_list(json_object_get(o, "partition"), partition))
			continue;
		ji->key = key_of(ji->name);
		ji->st = job_state(words, nw);
		ji->held = jint(json_object_get(o, "priority"), &x) && x == 0;
		copy(ji->reason, sizeof ji->reason, jstr(o, "state_reason"));
		if (ji->st == SX_PENDING && (ji->held || strncmp(ji->reason, "JobHeld", 7) == 0))
			ji->st = SX_HELD;
		job_exit(json_object_get(o, "exit_code"), &ji->exit_code, &ji->exit_sig);
		copy(ji->nodes, sizeof ji->nodes, jstr(o, "nodes"));
		copy(ji->req_nodes, sizeof ji->req_nodes, jstr(o, "required_nodes"));
		ji->restarts = jint(json_object_get(o, "restart_cnt"), &x) ? (int)x : 0;
		m++;
	}
	json_decref(root);
	if (m == 0) {
		free(v);
		v = NULL;
	}
	*out = v;
	*nout = m;
	return 0;
fail:
	free(v);
	json_decref(root);
	return -1;
}

/* The GPU count of a GRES string: "gpu:fake:2,gpu:1(S:0-1),mps:100" is 3.
 * -1 when a gpu entry has no readable count. */
static int gres_gpus(const char *s)
{
	int total = 0;
	while (s && *s) {
		/* One entry: up to a comma outside parentheses. */
		size_t w = 0;
		int depth = 0;
		while (s[w] && (s[w] != ',' || depth > 0)) {
			depth += (s[w] == '(') - (s[w] == ')');
			w++;
		}
		size_t body = strcspn(s, "(");
		if (body > w)
			body = w;
		if (body >= 3 && strncmp(s, "gpu", 3) == 0 && (body == 3 || s[3] == ':')) {
			if (body == 3) {
				total += 1;   /* "gpu" alone: one */
			} else {
				const char *c = s + body;
				while (c > s && isdigit((unsigned char)c[-1]))
					c--;
				if (c == s + body || c[-1] != ':')
					return -1;
				total += atoi(c);
			}
		}
		s += w + (s[w] == ',');
	}
	return total;
}

static const char *const node_bases[] = {
	"IDLE", "MIXED", "ALLOCATED", "DOWN", "ERROR", "FUTURE", "UNKNOWN", "COMPLETING", NULL,
};

int sx_parse_nodes(const char *text, const char *partition, struct sx_nodeinfo **out, int *nout,
                   char *err, size_t n)
{
	const char *cmd = "sinfo --json";
	json_t *arr, *root = load(text, cmd, "nodes", &arr, err, n);
	*out = NULL;
	*nout = 0;
	if (!root)
		return -1;
	size_t cnt = json_array_size(arr), i;
	struct sx_nodeinfo *v = cnt ? calloc(cnt, sizeof *v) : NULL;
	int m = 0;
	json_t *o;
	if (cnt && !v) {
		seterr(err, n, "%s: out of memory", cmd);
		goto fail;
	}
	json_array_foreach(arr, i, o) {
		struct sx_nodeinfo *ni = &v[m];
		char words[16][32];
		memset(ni, 0, sizeof *ni);
		int64_t x;
		const char *name = jstr(o, "name");
		if (!json_is_object(o) || !name[0]) {
			seterr(err, n, "%s: nodes[%zu]: expected an object with a name", cmd, i);
			goto fail;
		}
		int nw = state_words(json_object_get(o, "state"), json_object_get(o, "state_flags"), words, 16);
		if (nw == 0) {
			seterr(err, n, "%s: nodes[%zu] (%s): expected state as a string or an array of "
			       "strings", cmd, i, name);
			goto fail;
		}
		if (partition && partition[0] && !in_list(json_object_get(o, "partitions"), partition))
			continue;
		copy(ni->name, sizeof ni->name, name);
		for (int b = 0; node_bases[b] && !ni->state[0]; b++)
			for (int k = 0; k < nw; k++)
				if (strcmp(words[k], node_bases[b]) == 0)
					copy(ni->state, sizeof ni->state, node_bases[b]);
		for (char *p = ni->state; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		ni->idle = strcmp(ni->state, "idle") == 0;
		ni->mixed = strcmp(ni->state, "mixed") == 0;
		ni->alloc = strcmp(ni->state, "allocated") == 0;
		ni->down = strcmp(ni->state, "down") == 0;
		for (int k = 0; k < nw; k++) {
			if (strncmp(words[k], "DRAIN", 5) == 0)
				ni->drain = true;
			if (strcmp(words[k], "NOT_RESPONDING") == 0)
				ni->not_responding = true;
		}
		ni->cpus = jint(json_object_get(o, "cpus"), &x) ? (int)x : 0;
		ni->alloc_cpus = jint(json_object_get(o, "alloc_cpus"), &x) ? (int)x : 0;
		ni->mem_mib = jint(json_object_get(o, "real_memory"), &x) ? x : 0;
		copy(ni->reason, sizeof ni->reason, jstr(o, "reason"));
		ni->gpus = gres_gpus(jstr(o, "gres"));
		ni->gpus_used = gres_gpus(jstr(o, "gres_used"));
		if (ni->gpus < 0 || ni->gpus_used < 0) {
			seterr(err, n, "%s: nodes[%zu] (%s): gres '%s' / gres_used '%s': expected "
			       "gpu[:type]:count entries", cmd, i, name, jstr(o, "gres"), jstr(o, "gres_used"));
			goto fail;
		}
		m++;
	}
	json_decref(root);
	if (m == 0) {
		free(v);
		v = NULL;
	}
	*out = v;
	*nout = m;
	return 0;
fail:
	free(v);
	json_decref(root);
	return -1;
}

/* ---- reading back -------------------------------------------------------- */

int sx_jobs(const struct sx_ctx *c, struct sx_jobinfo **out, int *nout, char *err, size_t n)
{
	const char *av[] = { "squeue", "--json", NULL };
	char *text;
	*out = NULL;
	*nout = 0;
	if (run(c, av, &text, err, n) < 0)
		return -1;
	int rc = sx_parse_jobs(text, c->partition, true, out, nout, err, n);
	free(text);
	return rc;
}

int sx_job_info(const struct sx_ctx *c, int64_t id, struct sx_jobinfo *out, char *err, size_t n)
{
	const char *av[] = { "squeue", "--json", NULL };
	char *text;
	struct sx_jobinfo *v;
	int nv;
	memset(out, 0, sizeof *out);
	if (run(c, av, &text, err, n) < 0)
		return -1;
	int rc = sx_parse_jobs(text, NULL, false, &v, &nv, err, n);
	free(text);
	if (rc < 0)
		return -1;
	out->id = id;
	out->st = SX_GONE;
	out->exit_code = out->exit_sig = -1;
	out->key = -1;
	for (int k = 0; k < nv; k++)
		if (v[k].id == id)
			*out = v[k];
	free(v);
	return 0;
}

int sx_nodes(const struct sx_ctx *c, struct sx_nodeinfo **out, int *nout, char *err, size_t n)
{
	const char *av[] = { "sinfo", "--json", NULL };
	char *text;
	*out = NULL;
	*nout = 0;
	if (run(c, av, &text, err, n) < 0)
		return -1;
	int rc = sx_parse_nodes(text, c->partition, out, nout, err, n);
	free(text);
	return rc;
}

const char *sx_state_name(enum sx_state s)
{
	static const char *const names[] = {
		[SX_PENDING] = "PENDING", [SX_HELD] = "HELD", [SX_RUNNING] = "RUNNING",
		[SX_COMPLETING] = "COMPLETING", [SX_COMPLETED] = "COMPLETED", [SX_FAILED] = "FAILED",
		[SX_CANCELLED] = "CANCELLED", [SX_TIMEOUT] = "TIMEOUT", [SX_NODE_FAIL] = "NODE_FAIL",
		[SX_PREEMPTED] = "PREEMPTED", [SX_REQUEUED] = "REQUEUED", [SX_OOM] = "OUT_OF_MEMORY",
		[SX_UNKNOWN] = "UNKNOWN", [SX_GONE] = "GONE", [SX_SUSPENDED] = "SUSPENDED",
	};
	return (unsigned)s < sizeof names / sizeof names[0] && names[s] ? names[s] : "?";
}

bool sx_state_final(enum sx_state s)
{
	switch (s) {
	case SX_COMPLETED: case SX_FAILED: case SX_CANCELLED: case SX_TIMEOUT:
	case SX_NODE_FAIL: case SX_PREEMPTED: case SX_OOM: case SX_GONE:
		return true;
	default:
		return false;
	}
}
