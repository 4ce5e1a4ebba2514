/* slurm_run — running Slurm's client commands (sbatch, scontrol, squeue,
 * sinfo, scancel, sacct) for the Slurm executor: by fork + exec with an
 * argv, never through a shell, stdin from /dev/null, stdout captured, a
 * per-command deadline after which the command's process group is killed.
 * Several commands run at once (sx_run_all), so that a tick's starts do not
 * wait for each other.
 *
 * Every command gets the caller's environment with SLURM_CONF set from the
 * context (when it names one) and SLURM_TIME_FORMAT=%s, so that every time
 * Slurm prints (squeue -O StartTime, sacct Start/End) is Unix seconds;
 * except a command marked minimal_env (sbatch when the context's export_env
 * is SX_EXPORT_MINIMAL: it passes its environment on to the job), which
 * gets only PATH=/usr/local/bin:/usr/bin:/bin and SLURM_CONF (the
 * context's, else the caller's, when either is set): none of the caller's
 * variables, which may hold secrets or SBATCH_* settings that would change
 * the submission.
 *
 * A command that cannot run, exits non-zero, is killed by a signal, times
 * out or prints more than the output cap fails with a message naming the
 * command and what went wrong (its stderr). A failure is `transient` when
 * it says the controller (or slurmdbd) could not be reached, or the command
 * timed out: the request may be retried later, nothing was decided. The
 * caller must not set SIGCHLD to SIG_IGN (children are reaped by pid). */
#ifndef HL_SLURM_RUN_H
#define HL_SLURM_RUN_H

#include <stdbool.h>
#include <stddef.h>

#define SX_MAX_ARGS 40
#define SX_MINIMAL_PATH "/usr/local/bin:/usr/bin:/bin"

/* The environment a job starts with (slurm.export, docs/slurm.md). */
enum sx_export {
	SX_EXPORT_MINIMAL,       /* sbatch --export=ALL from the minimal environment; the batch
	                          * script sets HOME, USER, LOGNAME, SHELL from the user's passwd entry */
	SX_EXPORT_LOGIN,         /* sbatch --export=NONE: the user's login environment (slurmd runs a
	                          * login shell of the user before each job: seconds in Slurm 22.05) */
};

struct sx_ctx {
	char bindir[256];        /* directory of the Slurm commands; "" = PATH */
	char partition[64];      /* default partition ("" = Slurm's); also filters sx_nodes */
	char workdir[512];       /* where batch scripts go (and outputs, when a job gives no cwd) */
	int timeout_s;           /* per command, default (<= 0) 30 */
	char slurm_conf[512];    /* SLURM_CONF for the commands; "" = inherited */
	enum sx_export export_env;   /* the jobs' environment (zeroed: SX_EXPORT_MINIMAL; the daemon's
	                              * default is slurm.export "login", SX_EXPORT_LOGIN) */
	bool read_only;          /* only the readers run (SX_READERS: squeue, sinfo, sacct); any other
	                          * command fails without running (`hetlab shadow`, docs/forecast.md) */
};

/* The commands a read_only context may run; NULL-terminated. */
extern const char *const SX_READERS[];

struct sx_cmd {
	const char *argv[SX_MAX_ARGS + 1];   /* argv[0] a bare command name; borrowed, or in abuf */
	char abuf[8192];         /* room for arguments the command owns (sx_cmd_add) */
	size_t aused;
	int argc;
	char *out;               /* its stdout when rc is 0 (malloc'd; sx_cmd_done frees) */
	char err[600];           /* what went wrong when rc is -1 */
	int rc;                  /* 0: exit status 0; -1 otherwise */
	int status;              /* its exit status; -1 when it did not exit normally */
	bool transient;          /* the controller could not be reached, or it timed out */
	bool no_job;             /* stderr says the job id is not known ("Invalid job id") */
	bool minimal_env;        /* run with the minimal environment (above), not the caller's */
};

/* Formats a message into err (n bytes); nothing when err is NULL or n is 0. */
void sx_seterr(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* argv ("scontrol", "update", ...) into cmd, NULL-terminated (at most
 * SX_MAX_ARGS); the strings are borrowed. */
void sx_cmd_set(struct sx_cmd *cmd, const char *const *argv);
/* Clears cmd (minimal_env false), then appends arguments formatted into
 * cmd's own buffer. -1 when the arguments or their text do not fit. */
void sx_cmd_init(struct sx_cmd *cmd);
int sx_cmd_add(struct sx_cmd *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Runs one command; 0, or -1 with cmd->err. */
int sx_run(const struct sx_ctx *c, struct sx_cmd *cmd);
/* Runs n commands, at most maxpar (>= 1) at a time; each gets its own rc. */
void sx_run_all(const struct sx_ctx *c, struct sx_cmd *const *cmds, int n, int maxpar);
void sx_cmd_done(struct sx_cmd *cmd);
/* Whether a command's message says the controller was unreachable. */
bool sx_msg_transient(const char *msg);

#endif
