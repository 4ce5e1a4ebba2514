/* exec_slurm — see exec_slurm.h. The batch script, the argv of every
 * action, and the reads (squeue -O lines, sacct, sinfo --json, scontrol
 * show config) through live/exec/slurm_run.c; their parsers are
 * live/exec/slurm_text.c and live/exec/slurm_json.c. */
#include "live/exec/slurm_cmd.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
	SCRIPT_MAX = 1 << 20,
	IDS_PER_QUERY = 500,      /* job ids per squeue/sacct: well under ARG_MAX */
};

void sx_job_name(const char *state_id, int64_t key, char *buf, size_t len)
{
	snprintf(buf, len, SX_NAME_PREFIX "%.8s-%" PRId64, state_id ? state_id : "", key);
}

/* ---- the batch script ----------------------------------------------------- */

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

static const struct { int sig; const char *name; } signames[] = {
	{ SIGHUP, "HUP" }, { SIGINT, "INT" }, { SIGQUIT, "QUIT" }, { SIGKILL, "KILL" },
	{ SIGUSR1, "USR1" }, { SIGUSR2, "USR2" }, { SIGALRM, "ALRM" }, { SIGTERM, "TERM" },
	{ SIGCONT, "CONT" }, { SIGSTOP, "STOP" }, { SIGTSTP, "TSTP" }, { SIGURG, "URG" },
	{ SIGXCPU, "XCPU" }, { 0, NULL },
};

static const char *sig_name(int sig)
{
	for (int k = 0; signames[k].name; k++)
		if (signames[k].sig == sig)
			return signames[k].name;
	return NULL;
}

/* In the minimal environment: the user's identity from its passwd entry,
 * as a login would set it (a user without one keeps what Slurm gave); the
 * uid is Slurm's SLURM_JOB_UID, `id -u` only without it (each process the
 * script starts is paid by every job start on the node). */
static const char passwd_env[] =
	"hetlab_pw=$(getent passwd \"${SLURM_JOB_UID:-$(id -u)}\" 2>/dev/null) || hetlab_pw=\n"
	"if [ -n \"$hetlab_pw\" ]; then\n"
	"\tIFS=: read -r USER hetlab_f hetlab_f hetlab_f hetlab_f HOME SHELL <<hetlab_EOF\n"
	"$hetlab_pw\n"
	"hetlab_EOF\n"
	"\tLOGNAME=$USER; SHELL=${SHELL:-/bin/sh}; export HOME USER LOGNAME SHELL\n"
	"fi\n"
	"unset hetlab_pw hetlab_f\n";

int sx_script(const struct sx_job *j, enum sx_export env, char *buf, size_t len, char *err, size_t n)
{
	size_t off = 0;
	char line[1024];
	if (!j->argv || !j->argv[0] || !j->argv[0][0]) {
		sx_seterr(err, n, "job %" PRId64 ": empty argv", j->key);
		return -1;
	}
	if (j->argv[0][0] == '-') {
		sx_seterr(err, n, "job %" PRId64 ": argv[0] '%s' starts with '-' (it would be read as an option)",
		          j->key, j->argv[0]);
		return -1;
	}
	const char *sig = sig_name(j->ckpt_sig > 0 ? j->ckpt_sig : SIGUSR1);
	if (!sig) {
		sx_seterr(err, n, "job %" PRId64 ": checkpoint signal %d: expected one sh can trap by name", j->key,
		          j->ckpt_sig);
		return -1;
	}
	/* The checkpoint signal is trapped first: a preemption right after
	 * Slurm launched the script (before a subprocess such as the
	 * hostnames below) would otherwise kill the wrapper itself. */
	snprintf(line, sizeof line,
	         "#!/bin/sh\nhetlab_ckpt=0\ntrap 'hetlab_ckpt=1' %s\n"
	         "# hetlab job %" PRId64 " of state %s, written by hetlab (live/exec/slurm_cmd.c): every word "
	         "single-quoted.\nPATH=${PATH:-/usr/local/bin:/usr/bin:/bin}; export PATH\n",
	         sig, j->key, j->state_id ? j->state_id : "?");
	if (add(buf, len, &off, line) < 0 || (env == SX_EXPORT_MINIMAL && add(buf, len, &off, passwd_env) < 0))
		goto small;
	/* The job's srun steps get the job's environment (PATH, HETLAB_*, its
	 * env). Slurm sets SLURM_EXPORT_ENV in the job from sbatch's --export,
	 * and srun reads it as its own --export: NONE (slurm.export "login")
	 * would run every step without PATH. Before the job's env, which may
	 * set it. */
	if (add(buf, len, &off, "SLURM_EXPORT_ENV=ALL; export SLURM_EXPORT_ENV\n") < 0)
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
	/* Every requeue of this Slurm job (hetlab's, the wrapper's own after a
	 * checkpoint, Slurm's after a node failure) is a new hetlab attempt. */
	snprintf(line, sizeof line,
	         "HETLAB_ATTEMPT=$((%d + ${SLURM_RESTART_COUNT:-0})); export HETLAB_ATTEMPT\n"
	         "HETLAB_NODES=$SLURM_JOB_NODELIST\n"
	         "case $SLURM_JOB_NODELIST in *'['*)\n"
	         "\tHETLAB_NODES=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" 2>/dev/null | paste -sd, -)\n"
	         "\tHETLAB_NODES=${HETLAB_NODES:-$SLURM_JOB_NODELIST} ;;\n"
	         "esac\nexport HETLAB_NODES\n",
	         j->attempt);
	if (add(buf, len, &off, line) < 0)
		goto small;
	for (size_t k = 0; j->argv[k]; k++)
		if ((k && add(buf, len, &off, " ") < 0) || sh_quote(buf, len, &off, j->argv[k]) < 0)
			goto small;
	snprintf(line, sizeof line,
	         " &\nhetlab_pid=$!\n"
	         "while :; do\n\twait \"$hetlab_pid\"; hetlab_rc=$?\n"
	         "\tkill -0 \"$hetlab_pid\" 2>/dev/null && continue\n"
	         /* A wait cut short by the trapped signal (> 128) may be
	          * followed by the program's exit before kill -0: its own
	          * status, once more (127: it had been reaped, the status was
	          * its own). */
	         "\tif [ \"$hetlab_rc\" -gt 128 ]; then wait \"$hetlab_pid\"; hetlab_r2=$?; "
	         "[ \"$hetlab_r2\" != 127 ] && hetlab_rc=$hetlab_r2; fi\n\tbreak\ndone\n"
	         "trap - %s\n"
	         "if [ \"$hetlab_ckpt\" = 1 ]; then\n"
	         "\techo \"hetlab: exited ($hetlab_rc) after the checkpoint signal: requeued held\" >&2\n"
	         "\thetlab_try=0\n"
	         "\twhile [ $hetlab_try -lt \"${HETLAB_REQUEUE_TRIES:-300}\" ]; do\n"
	         "\t\tscontrol requeuehold \"$SLURM_JOB_ID\" && sleep 300\n"
	         "\t\thetlab_try=$((hetlab_try + 1)); sleep 1\n"
	         "\tdone\n"
	         "fi\n"
	         "if [ \"$hetlab_rc\" -gt 128 ] && [ \"$hetlab_rc\" -lt 160 ]; then\n"
	         "\tkill -\"$((hetlab_rc - 128))\" $$\nfi\n"
	         "exit \"$hetlab_rc\"\n",
	         sig);
	if (add(buf, len, &off, line) < 0)
		goto small;
	return (int)off;
small:
	sx_seterr(err, n, "job %" PRId64 ": batch script longer than %zu bytes", j->key, len);
	return -1;
}

/* Writes text to path through a temporary file and a rename (0600). */
static int write_file(const char *path, const char *text, size_t len, char *err, size_t n)
{
	char tmp[PATH_MAX + 32];
	snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
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

static bool node_name_ok(const char *s)
{
	if (!s || !s[0] || strlen(s) >= 64)
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
			return false;
	return true;
}

/* A value for one option: printable, no newline, bounded. */
static bool word_ok(const char *s, size_t max)
{
	if (!s || strlen(s) > max)
		return false;
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

/* "a,b,c" from nodes into buf. -1 (with err) for a bad name or no room. */
static int node_list(int64_t key, const char *const *nodes, int nnodes, char *buf, size_t len, char *err,
                     size_t n)
{
	size_t off = 0;
	buf[0] = 0;
	for (int k = 0; k < nnodes; k++) {
		if (!node_name_ok(nodes[k])) {
			sx_seterr(err, n, "job %" PRId64 ": node name '%s': expected letters, digits, '-', '_' or '.'",
			          key, nodes[k] ? nodes[k] : "(null)");
			return -1;
		}
		if ((k && add(buf, len, &off, ",") < 0) || add(buf, len, &off, nodes[k]) < 0) {
			sx_seterr(err, n, "job %" PRId64 ": node list too long", key);
			return -1;
		}
	}
	return 0;
}

int sx_submit_cmd(const struct sx_ctx *c, const struct sx_job *j, struct sx_cmd *cmd, char *err, size_t n)
{
	char wd[PATH_MAX], script_path[PATH_MAX + 64], name[96], nl[4096];
	char *script = NULL;
	int rc = -1;
	sx_cmd_init(cmd);
	if (j->key < 0 || j->nodes < 1 || j->cpus_per_node < 0 || j->mem_mib_per_node < 0 || j->walltime_s < 0 ||
	    j->attempt < 0) {
		sx_seterr(err, n, "job %" PRId64 ": expected key >= 0, nodes >= 1 and no negative cpus, memory, "
		          "walltime or attempt", j->key);
		return -1;
	}
	if (!j->state_id || strlen(j->state_id) != SX_STATE_ID_LEN ||
	    strspn(j->state_id, "0123456789abcdef") != SX_STATE_ID_LEN) {
		sx_seterr(err, n, "job %" PRId64 ": expected a state id of %d hex digits", j->key, SX_STATE_ID_LEN);
		return -1;
	}
	if (!c->workdir[0] || !realpath(c->workdir, wd)) {
		sx_seterr(err, n, "job %" PRId64 ": workdir '%s': %s", j->key, c->workdir,
		          c->workdir[0] ? strerror(errno) : "not set");
		return -1;
	}
	const char *part = j->partition ? j->partition : c->partition;
	const char *fields[][2] = { { "partition", part }, { "account", j->account }, { "qos", j->qos },
	                            { "gres", j->gres }, { "cwd", j->cwd }, { "output", j->output } };
	for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
		if (fields[k][1] && !word_ok(fields[k][1], 1000)) {
			sx_seterr(err, n, "job %" PRId64 ": %s '%s': expected printable text of at most 1000 bytes",
			          j->key, fields[k][0], fields[k][1]);
			return -1;
		}
	if (j->cwd && j->cwd[0] != '/') {
		sx_seterr(err, n, "job %" PRId64 ": cwd '%s': expected an absolute path", j->key, j->cwd);
		return -1;
	}
	if (j->nodelist && node_list(j->key, j->nodelist, j->nodes, nl, sizeof nl, err, n) < 0)
		return -1;
	if (!(script = malloc(SCRIPT_MAX))) {
		sx_seterr(err, n, "out of memory");
		return -1;
	}
	int len = sx_script(j, c->export_env, script, SCRIPT_MAX, err, n);
	if (len < 0)
		goto out;
	snprintf(script_path, sizeof script_path, "%s/" SX_NAME_PREFIX "%" PRId64 ".sh", wd, j->key);
	if (write_file(script_path, script, (size_t)len, err, n) < 0)
		goto out;
	sx_job_name(j->state_id, j->key, name, sizeof name);
	const char *cwd = j->cwd && j->cwd[0] ? j->cwd : wd;
	int bad = 0;
	bad |= sx_cmd_add(cmd, "sbatch");
	bad |= sx_cmd_add(cmd, "--parsable");
	if (!j->nodelist)
		bad |= sx_cmd_add(cmd, "--hold");
	bad |= sx_cmd_add(cmd, "--requeue");
	bad |= sx_cmd_add(cmd, "--open-mode=append");
	/* The job's environment: sbatch's own (the minimal one: minimal_env),
	 * or the user's login environment, read by a login shell on the node. */
	bad |= sx_cmd_add(cmd, "--export=%s", c->export_env == SX_EXPORT_LOGIN ? "NONE" : "ALL");
	bad |= sx_cmd_add(cmd, "--job-name=%s", name);
	bad |= sx_cmd_add(cmd, "--comment=hetlab:%s:%" PRId64 ":%d", j->state_id, j->key, j->attempt);
	bad |= sx_cmd_add(cmd, "--chdir=%s", cwd);
	if (j->output && j->output[0])
		bad |= sx_cmd_add(cmd, "--output=%s", j->output);
	else
		bad |= sx_cmd_add(cmd, "--output=%s/" SX_NAME_PREFIX "%" PRId64 "-%%j.out", cwd, j->key);
	if (part && part[0])
		bad |= sx_cmd_add(cmd, "--partition=%s", part);
	if (j->account && j->account[0])
		bad |= sx_cmd_add(cmd, "--account=%s", j->account);
	if (j->qos && j->qos[0])
		bad |= sx_cmd_add(cmd, "--qos=%s", j->qos);
	bad |= sx_cmd_add(cmd, "--nodes=%d", j->nodes);
	if (j->nodelist)
		bad |= sx_cmd_add(cmd, "--nodelist=%s", nl);
	bad |= sx_cmd_add(cmd, "--ntasks-per-node=1");
	if (j->cpus_per_node > 0)
		bad |= sx_cmd_add(cmd, "--cpus-per-task=%d", j->cpus_per_node);
	if (j->mem_mib_per_node > 0)
		bad |= sx_cmd_add(cmd, "--mem=%" PRId64 "M", j->mem_mib_per_node);
	if (j->gres && j->gres[0])
		bad |= sx_cmd_add(cmd, "--gres=%s", j->gres);
	if (j->walltime_s > 0) {
		int64_t s = j->walltime_s;
		bad |= sx_cmd_add(cmd, "--time=%" PRId64 "-%02d:%02d:%02d", s / 86400, (int)(s % 86400 / 3600),
		                  (int)(s % 3600 / 60), (int)(s % 60));
	}
	if (j->uid >= 0) {
		bad |= sx_cmd_add(cmd, "--uid=%d", j->uid);
		if (j->gid >= 0)
			bad |= sx_cmd_add(cmd, "--gid=%d", j->gid);
	}
	bad |= sx_cmd_add(cmd, "%s", script_path);
	if (bad) {
		sx_seterr(err, n, "job %" PRId64 ": the sbatch command line is too long", j->key);
		goto out;
	}
	cmd->minimal_env = c->export_env != SX_EXPORT_LOGIN;
	rc = 0;
out:
	free(script);
	return rc;
}

int sx_submit_result(const struct sx_cmd *cmd, int64_t *slurm_id, char *err, size_t n)
{
	if (cmd->rc != 0) {
		sx_seterr(err, n, "%s", cmd->err);
		return -1;
	}
	/* --parsable: "ID" or "ID;CLUSTER", one line. */
	char *end;
	errno = 0;
	long long id = strtoll(cmd->out, &end, 10);
	if (end == cmd->out || errno || id <= 0 || (*end && *end != ';' && *end != '\n')) {
		char got[80];
		snprintf(got, sizeof got, "%s", cmd->out);
		got[strcspn(got, "\n")] = 0;
		sx_seterr(err, n, "sbatch --parsable: expected a job id, got '%s'", got);
		return -1;
	}
	*slurm_id = id;
	return 0;
}

int sx_submit(const struct sx_ctx *c, const struct sx_job *j, int64_t *slurm_id, char *err, size_t n)
{
	struct sx_cmd cmd;
	if (sx_submit_cmd(c, j, &cmd, err, n) < 0)
		return -1;
	sx_run(c, &cmd);
	int rc = sx_submit_result(&cmd, slurm_id, err, n);
	sx_cmd_done(&cmd);
	return rc;
}

/* ---- the actions ----------------------------------------------------------- */

/* Runs cmd; its message into err when it fails. 0 or -1. */
static int run_once(const struct sx_ctx *c, struct sx_cmd *cmd, char *err, size_t n)
{
	int rc = sx_run(c, cmd);
	if (rc)
		sx_seterr(err, n, "%s", cmd->err);
	sx_cmd_done(cmd);
	return rc;
}

/* `scontrol VERB ID` (hold, release, requeuehold). */
static int scontrol_id(const struct sx_ctx *c, const char *verb, int64_t id, char *err, size_t n)
{
	struct sx_cmd cmd;
	sx_cmd_init(&cmd);
	sx_cmd_add(&cmd, "scontrol");
	sx_cmd_add(&cmd, "%s", verb);
	sx_cmd_add(&cmd, "%" PRId64, id);
	return run_once(c, &cmd, err, n);
}

int sx_place_cmd(int64_t id, const char *const *nodes, int nnodes, const char *partition, int delay_s,
                 struct sx_cmd *cmd, char *err, size_t n)
{
	char nl[4096];
	sx_cmd_init(cmd);
	if (nnodes < 1) {
		sx_seterr(err, n, "job %" PRId64 ": no nodes to start on", id);
		return -1;
	}
	if (node_list(id, nodes, nnodes, nl, sizeof nl, err, n) < 0)
		return -1;
	if (partition && !word_ok(partition, 200)) {
		sx_seterr(err, n, "job %" PRId64 ": partition '%s': expected printable text", id, partition);
		return -1;
	}
	/* NumNodes before ReqNodeList in one update: a job submitted for fewer
	 * nodes than the list otherwise fails with "Node count specification
	 * invalid" (its maximum is still the submitted count). */
	int bad = sx_cmd_add(cmd, "scontrol") | sx_cmd_add(cmd, "update") | sx_cmd_add(cmd, "JobId=%" PRId64, id) |
	          sx_cmd_add(cmd, "NumNodes=%d-%d", nnodes, nnodes) | sx_cmd_add(cmd, "ReqNodeList=%s", nl);
	if (partition && partition[0])
		bad |= sx_cmd_add(cmd, "Partition=%s", partition);
	bad |= delay_s > 0 ? sx_cmd_add(cmd, "StartTime=now+%d", delay_s) : sx_cmd_add(cmd, "StartTime=now");
	if (bad) {
		sx_seterr(err, n, "job %" PRId64 ": node list too long", id);
		return -1;
	}
	return 0;
}

void sx_release_cmd(int64_t id, struct sx_cmd *cmd)
{
	sx_cmd_init(cmd);
	sx_cmd_add(cmd, "scontrol");
	sx_cmd_add(cmd, "release");
	sx_cmd_add(cmd, "%" PRId64, id);
}

int sx_start(const struct sx_ctx *c, int64_t id, const char *const *nodes, int nnodes, char *err, size_t n)
{
	struct sx_cmd cmd;
	if (sx_place_cmd(id, nodes, nnodes, NULL, 0, &cmd, err, n) < 0)
		return -1;
	return run_once(c, &cmd, err, n) ? -1 : scontrol_id(c, "release", id, err, n);
}

int sx_signal(const struct sx_ctx *c, int64_t id, int sig, char *err, size_t n)
{
	if (sig <= 0 || sig >= 65) {
		sx_seterr(err, n, "job %" PRId64 ": signal %d out of range", id, sig);
		return -1;
	}
	struct sx_cmd cmd;
	sx_cmd_init(&cmd);
	const char *nm = sig_name(sig);
	sx_cmd_add(&cmd, "scancel");
	sx_cmd_add(&cmd, "--full");
	if (nm)
		sx_cmd_add(&cmd, "--signal=%s", nm);
	else
		sx_cmd_add(&cmd, "--signal=%d", sig);
	sx_cmd_add(&cmd, "%" PRId64, id);
	return run_once(c, &cmd, err, n);
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
	struct sx_cmd cmd;
	sx_cmd_init(&cmd);
	sx_cmd_add(&cmd, "scancel");
	sx_cmd_add(&cmd, "%" PRId64, id);
	return run_once(c, &cmd, err, n);
}

static int update_node(const struct sx_ctx *c, const char *node, const char *state, const char *reason,
                       char *err, size_t n)
{
	if (!node_name_ok(node)) {
		sx_seterr(err, n, "node name '%s': expected letters, digits, '-', '_' or '.'", node ? node : "(null)");
		return -1;
	}
	struct sx_cmd cmd;
	sx_cmd_init(&cmd);
	sx_cmd_add(&cmd, "scontrol");
	sx_cmd_add(&cmd, "update");
	sx_cmd_add(&cmd, "NodeName=%s", node);
	sx_cmd_add(&cmd, "State=%s", state);
	if (reason) {
		if (!reason[0] || strlen(reason) > 400 || !word_ok(reason, 400)) {
			sx_seterr(err, n, "node %s: drain reason: expected 1 to 400 printable characters on one line", node);
			return -1;
		}
		sx_cmd_add(&cmd, "Reason=%s", reason);
	}
	return run_once(c, &cmd, err, n);
}

int sx_drain(const struct sx_ctx *c, const char *node, const char *reason, char *err, size_t n)
{
	return update_node(c, node, "DRAIN", reason ? reason : "", err, n);
}

int sx_resume(const struct sx_ctx *c, const char *node, char *err, size_t n)
{
	return update_node(c, node, "RESUME", NULL, err, n);
}

/* ---- reading back ---------------------------------------------------------- */

/* Appends the parsed jobs of one squeue to *out. */
static int squeue_into_as(const struct sx_ctx *c, struct sx_cmd *cmd, bool full, struct sx_jobinfo **out,
                          int *nout, char *err, size_t errlen);

static int squeue_into(const struct sx_ctx *c, struct sx_cmd *cmd, struct sx_jobinfo **out, int *nout,
                       char *err, size_t errlen)
{
	return squeue_into_as(c, cmd, false, out, nout, err, errlen);
}

int sx_jobs_all(const struct sx_ctx *c, struct sx_jobinfo **out, int *nout, char *err, size_t errlen)
{
	*out = NULL;
	*nout = 0;
	struct sx_cmd *cmd = malloc(sizeof *cmd);
	if (!cmd) {
		sx_seterr(err, errlen, "squeue: out of memory");
		return -1;
	}
	const char *av[] = { "squeue", "-h", "-a", "-t", "all", "-O", SX_SQUEUE_FULL_FORMAT, "-r", NULL };
	sx_cmd_set(cmd, av);
	int rc = squeue_into_as(c, cmd, true, out, nout, err, errlen);
	free(cmd);
	return rc;
}

static int squeue_into_as(const struct sx_ctx *c, struct sx_cmd *cmd, bool full, struct sx_jobinfo **out,
                          int *nout, char *err, size_t errlen)
{
	sx_run(c, cmd);
	if (cmd->rc != 0) {
		/* Every id unknown: squeue exits 1 ("Invalid job id specified"). */
		bool none = cmd->no_job;
		if (!none)
			sx_seterr(err, errlen, "%s", cmd->err);
		sx_cmd_done(cmd);
		return none ? 0 : -1;
	}
	struct sx_jobinfo *v;
	int nv;
	int rc = full ? sx_parse_squeue_full(cmd->out, &v, &nv, err, errlen) : sx_parse_squeue(cmd->out, &v, &nv, err, errlen);
	sx_cmd_done(cmd);
	if (rc)
		return -1;
	if (nv) {
		struct sx_jobinfo *m = realloc(*out, (size_t)(*nout + nv) * sizeof *m);
		if (!m) {
			free(v);
			sx_seterr(err, errlen, "squeue: out of memory");
			return -1;
		}
		memcpy(m + *nout, v, (size_t)nv * sizeof *m);
		*out = m;
		*nout += nv;
	}
	free(v);
	return 0;
}

/* squeue -h -t all -O FORMAT with -j or -n and a comma list. */
static int squeue_list(const struct sx_ctx *c, const char *flag, const char *list, struct sx_jobinfo **out,
                       int *nout, char *err, size_t errlen)
{
	struct sx_cmd *cmd = malloc(sizeof *cmd);
	char *arg = malloc(strlen(list) + 8);
	int rc = -1;
	if (!cmd || !arg) {
		sx_seterr(err, errlen, "squeue: out of memory");
		goto out;
	}
	sprintf(arg, "%s", list);
	const char *av[] = { "squeue", "-h", "-t", "all", flag, arg, "-O", SX_SQUEUE_FORMAT, NULL };
	sx_cmd_set(cmd, av);
	rc = squeue_into(c, cmd, out, nout, err, errlen);
out:
	free(cmd);
	free(arg);
	return rc;
}

int sx_jobs_by_id(const struct sx_ctx *c, const int64_t *ids, int n, struct sx_jobinfo **out, int *nout,
                  char *err, size_t errlen)
{
	*out = NULL;
	*nout = 0;
	char *list = malloc((size_t)IDS_PER_QUERY * 21 + 1);
	if (!list && n > 0) {
		sx_seterr(err, errlen, "squeue: out of memory");
		return -1;
	}
	for (int k = 0; k < n;) {
		size_t off = 0;
		for (int m = 0; m < IDS_PER_QUERY && k < n; m++, k++)
			off += (size_t)sprintf(list + off, "%s%" PRId64, off ? "," : "", ids[k]);
		if (squeue_list(c, "-j", list, out, nout, err, errlen)) {
			free(list);
			free(*out);
			*out = NULL;
			*nout = 0;
			return -1;
		}
	}
	free(list);
	return 0;
}

int sx_jobs_by_name(const struct sx_ctx *c, const char *const *names, int n, struct sx_jobinfo **out,
                    int *nout, char *err, size_t errlen)
{
	*out = NULL;
	*nout = 0;
	for (int k = 0; k < n;) {
		char list[32768];
		size_t off = 0;
		while (k < n && off + strlen(names[k]) + 2 < sizeof list) {
			if (!node_name_ok(names[k])) {
				k++;
				continue;
			}
			off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", off ? "," : "", names[k]);
			k++;
		}
		if (off && squeue_list(c, "-n", list, out, nout, err, errlen)) {
			free(*out);
			*out = NULL;
			*nout = 0;
			return -1;
		}
	}
	return 0;
}

int sx_acct_by_id(const struct sx_ctx *c, const int64_t *ids, int n, struct sx_acct **out, int *nout,
                  bool *no_acct, char *err, size_t errlen)
{
	*out = NULL;
	*nout = 0;
	*no_acct = false;
	char *list = malloc((size_t)IDS_PER_QUERY * 21 + 1);
	struct sx_cmd *cmd = malloc(sizeof *cmd);
	int rc = 0;
	if (!list || !cmd) {
		sx_seterr(err, errlen, "sacct: out of memory");
		rc = -1;
	}
	for (int k = 0; rc == 0 && k < n;) {
		size_t off = 0;
		for (int m = 0; m < IDS_PER_QUERY && k < n; m++, k++)
			off += (size_t)sprintf(list + off, "%s%" PRId64, off ? "," : "", ids[k]);
		const char *av[] = { "sacct", "-n", "-P", "-D", "-X", "-j", list, "--format", SX_SACCT_FORMAT, NULL };
		sx_cmd_set(cmd, av);
		sx_run(c, cmd);
		if (cmd->rc != 0) {
			*no_acct = strstr(cmd->err, "accounting storage is disabled") != NULL ||
			           strstr(cmd->err, "Slurm accounting storage is disabled") != NULL;
			sx_seterr(err, errlen, "%s", cmd->err);
			rc = -1;
		} else {
			struct sx_acct *v = NULL;
			int nv = 0;
			if (sx_parse_sacct(cmd->out, &v, &nv, err, errlen)) {
				rc = -1;
			} else if (nv) {
				struct sx_acct *m = realloc(*out, (size_t)(*nout + nv) * sizeof *m);
				if (!m) {
					sx_seterr(err, errlen, "sacct: out of memory");
					rc = -1;
				} else {
					memcpy(m + *nout, v, (size_t)nv * sizeof *m);
					*out = m;
					*nout += nv;
				}
			}
			free(v);
		}
		sx_cmd_done(cmd);
	}
	free(list);
	free(cmd);
	if (rc) {
		free(*out);
		*out = NULL;
		*nout = 0;
	}
	return rc;
}

int sx_nodes(const struct sx_ctx *c, struct sx_nodeinfo **out, int *nout, char *err, size_t n)
{
	struct sx_cmd cmd;
	const char *av[] = { "sinfo", "--json", NULL };
	*out = NULL;
	*nout = 0;
	sx_cmd_set(&cmd, av);
	if (sx_run(c, &cmd) < 0) {
		sx_seterr(err, n, "%s", cmd.err);
		return -1;
	}
	int rc = sx_parse_nodes(cmd.out, c->partition, out, nout, err, n);
	sx_cmd_done(&cmd);
	return rc;
}

int sx_read_config(const struct sx_ctx *c, struct sx_config *cfg, char *err, size_t n)
{
	struct sx_cmd cmd;
	const char *av[] = { "scontrol", "show", "config", NULL };
	sx_cmd_set(&cmd, av);
	if (sx_run(c, &cmd) < 0) {
		sx_seterr(err, n, "%s", cmd.err);
		return -1;
	}
	int rc = sx_parse_config(cmd.out, cfg, err, n);
	sx_cmd_done(&cmd);
	return rc;
}
