/* exec_slurm — see exec_slurm.h. Running one command (fork, exec, poll
 * with a deadline, kill the process group on timeout), writing the batch
 * script and the argvs of the actions, and reading back through squeue and
 * sinfo; their JSON is parsed in live/slurm_json.c. */
#include "live/exec_slurm.h"
#include "live/slurm_int.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
		sx_seterr(err, n, "%s: out of memory", name);
		goto out;
	}
	if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0 || pipe2(px, O_CLOEXEC) < 0) {
		sx_seterr(err, n, "%s: pipe: %s", name, strerror(errno));
		goto close_pipes;
	}
	pid = fork();
	if (pid < 0) {
		sx_seterr(err, n, "%s: fork: %s", name, strerror(errno));
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
			sx_seterr(err, n, "%s: timed out after %d s (killed)", name, timeout_s);
		else if (why == POLL_ERR)
			sx_seterr(err, n, "%s: poll: %s", name, strerror(poll_errno));
		else if (why == NOMEM)
			sx_seterr(err, n, "%s: out of memory reading its output", name);
		else
			sx_seterr(err, n, "%s: more than %d MiB of output", name, MAX_STDOUT >> 20);
		goto close_pipes;
	}
	if (w < 0) {
		sx_seterr(err, n, "%s: waitpid: %s", name, strerror(errno));
		goto close_pipes;
	}
	int e = 0;
	if (read(px[0], &e, sizeof e) == (ssize_t)sizeof e) {
		sx_seterr(err, n, "%s: cannot execute %s: %s", name, path, strerror(e));
		goto close_pipes;
	}
	if (WIFSIGNALED(st)) {
		sx_seterr(err, n, "%s: killed by signal %d%s%s", name, WTERMSIG(st), be.len ? ": " : "",
		       trimmed(be.p));
		goto close_pipes;
	}
	if (WEXITSTATUS(st) != 0) {
		sx_seterr(err, n, "%s: exit status %d%s%s", name, WEXITSTATUS(st), be.len ? ": " : "",
		       be.len ? trimmed(be.p) : " (nothing on stderr)");
		goto close_pipes;
	}
	if (out) {
		*out = bo.p ? bo.p : strdup("");
		bo.p = NULL;
		if (!*out) {
			sx_seterr(err, n, "%s: out of memory", name);
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
		sx_seterr(err, n, "job %" PRId64 ": empty argv", j->key);
		return -1;
	}
	if (j->argv[0][0] == '-') {
		sx_seterr(err, n, "job %" PRId64 ": argv[0] '%s' starts with '-' (exec would read it as an option)",
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
			sx_seterr(err, n, "job %" PRId64 ": env[%zu] '%s': expected NAME=VALUE with NAME of "
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
	sx_seterr(err, n, "job %" PRId64 ": batch script longer than %zu bytes", j->key, len);
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
		sx_seterr(err, n, "cannot write %s: %s", tmp, strerror(errno));
		return -1;
	}
	size_t done = 0;
	while (done < len) {
		ssize_t w = write(fd, text + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			sx_seterr(err, n, "cannot write %s: %s", tmp, strerror(errno));
			close(fd);
			unlink(tmp);
			return -1;
		}
		done += (size_t)w;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		sx_seterr(err, n, "cannot write %s: %s", path, strerror(errno));
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
		sx_seterr(err, n, "job %" PRId64 ": expected key >= 0, nodes >= 1 and no negative "
		       "cpus, gpus, memory or walltime", j->key);
		return -1;
	}
	if (!c->workdir[0] || !realpath(c->workdir, wd)) {
		sx_seterr(err, n, "job %" PRId64 ": workdir '%s': %s", j->key, c->workdir,
		       c->workdir[0] ? strerror(errno) : "not set");
		return -1;
	}
	if (!(script = malloc(SCRIPT_MAX))) {
		sx_seterr(err, n, "out of memory");
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
		sx_seterr(err, n, "sbatch --parsable: expected a job id, got '%s'", trimmed(got));
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
		sx_seterr(err, n, "job %" PRId64 ": no nodes to start on", id);
		return -1;
	}
	for (int k = 0; k < nnodes; k++) {
		if (!node_name_ok(nodes[k])) {
			sx_seterr(err, n, "job %" PRId64 ": node name '%s': expected letters, digits, '-', "
			       "'_' or '.'", id, nodes[k] ? nodes[k] : "(null)");
			return -1;
		}
		if ((k && add(req, sizeof req, &off, ",") < 0) || add(req, sizeof req, &off, nodes[k]) < 0) {
			sx_seterr(err, n, "job %" PRId64 ": node list too long", id);
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
		sx_seterr(err, n, "job %" PRId64 ": signal %d out of range", id, sig);
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
		sx_seterr(err, n, "node name '%s': expected letters, digits, '-', '_' or '.'",
		       node ? node : "(null)");
		return -1;
	}
	snprintf(nn, sizeof nn, "NodeName=%s", node);
	snprintf(st, sizeof st, "State=%s", state);
	const char *av[] = { "scontrol", "update", nn, st, NULL, NULL };
	if (reason) {
		if (!reason[0] || strlen(reason) > 400 || strpbrk(reason, "\n\r")) {
			sx_seterr(err, n, "node %s: drain reason: expected 1 to 400 characters on one line", node);
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
