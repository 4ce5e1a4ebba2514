/* exec_slurm — live mode's low-level Slurm executor: submits hetlab's jobs
 * to a real Slurm cluster on exactly the nodes the hetlab policy chose,
 * signals, requeues (held), cancels, drains and resumes nodes, and reads
 * back what Slurm did (squeue, sinfo, sacct, scontrol show config). It
 * knows nothing of the engine: the caller (the daemon's glue,
 * live/exec/slurm.c) decides what to do and when; this module turns each
 * decision into Slurm commands (run by live/exec/slurm_run.c) and parses what
 * they print (live/exec/slurm_json.c, live/exec/slurm_text.c). Nothing here crashes
 * on bad output: a parser that meets what it does not expect returns -1
 * with a message naming the command, the record and what was expected.
 *
 * Identity. A hetlab job in Slurm is named hetlab-<S8>-<ID> (S8: the first
 * 8 hex digits of the state's unique id, ID: the hetlab job id) and carries
 * the comment hetlab:<STATE_ID>:<ID>:<ATTEMPT> (the full 16-digit state id
 * and the hetlab attempt the Slurm job first ran as). A Slurm job is
 * hetlab's only when both match (sx_jobinfo.is_ours); a job merely named
 * hetlab-something, or a second state's job on the same cluster, never is.
 *
 * What a job is in Slurm:
 *   sbatch --parsable --requeue --open-mode=append --export=ALL|NONE
 *          --job-name=hetlab-S8-ID --comment=hetlab:STATE:ID:ATTEMPT
 *          --chdir=CWD --output=OUT [--partition=P] [--account=A] [--qos=Q]
 *          --nodes=N --nodelist=a,b --ntasks-per-node=1 --cpus-per-task=C
 *          [--mem=MM] [--gres=gpu:TYPE:G | shard:K | gpu:PROFILE:1]
 *          [--time=D-HH:MM:SS] [--uid=U --gid=G] STATE/slurm/hetlab-ID.sh
 * (--nodelist with --nodes=N leaves Slurm no choice but those nodes; it
 * starts at once when they are free, and waits PENDING when Slurm thinks
 * they are not). Without a node list (sx_job.nodelist NULL) it is
 * submitted --hold, for sx_start later. The job never sees the daemon's
 * environment: with the context's export_env SX_EXPORT_MINIMAL
 * (slurm.export "minimal", the fast mode) sbatch runs --export=ALL in the
 * minimal environment
 * (live/exec/slurm_run.h: PATH and SLURM_CONF only), which the job gets with
 * Slurm's SLURM_* variables, and the batch script sets HOME, USER, LOGNAME
 * and SHELL from the passwd entry of the user it runs as; with
 * SX_EXPORT_LOGIN (slurm.export "login", the daemon's default: site
 * scripts expect the login environment), --export=NONE: the user's login
 * environment, which in Slurm 22.05 implies --get-user-env (slurmd runs a
 * login shell of the user before the job: seconds per start).
 *
 * The batch script (sx_script) is a POSIX sh wrapper: (minimal
 * environment) HOME, USER, LOGNAME, SHELL from `getent passwd $(id -u)`;
 * SLURM_EXPORT_ENV=ALL (Slurm sets NONE in a job submitted --export=NONE,
 * which srun reads as its --export: the job's steps would run without
 * PATH); one export per env entry (single-quoted; after those, so a job's env
 * may set HOME), HETLAB_ATTEMPT computed at each run as ATTEMPT +
 * SLURM_RESTART_COUNT (every requeue of the Slurm job, hetlab's or Slurm's
 * own, is a new hetlab attempt), HETLAB_NODES from SLURM_JOB_NODELIST
 * (`scontrol show hostnames`, the nodes Slurm really gave), then the job's
 * argv as a child, every word single-quoted. On the checkpoint signal
 * (scancel --full delivers it to the program and to the wrapper) the
 * wrapper waits for the program; once it has exited it requeues its own
 * Slurm job held (`scontrol requeuehold $SLURM_JOB_ID`, which a job's owner
 * may do), so that sacct shows the preempted run as REQUEUED and the
 * resumption as the same Slurm job; while that fails (slurmctld
 * restarting) it tries again every second, for 5 minutes
 * ($HETLAB_REQUEUE_TRIES tries, for the tests), then exits with the
 * program's status. Otherwise it exits with the program's status (a
 * program killed by signal S: the wrapper kills itself with S).
 *
 * The slurm.conf settings hetlab relies on are checked at start
 * (sx_read_config, docs/slurm.md has the checklist).
 *
 * Ownership: the caller owns every struct; const char * fields are borrowed
 * for the call. Arrays returned are malloc'd; the caller frees them (NULL
 * and 0 when empty). No json_t leaves this module. */
#ifndef HL_EXEC_SLURM_H
#define HL_EXEC_SLURM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "live/exec/slurm_run.h"

#define SX_NAME_PREFIX "hetlab-"
#define SX_STATE_ID_LEN 16

struct sx_job {               /* a job to submit */
	const char *state_id;     /* the state's unique id: 16 lower-case hex digits */
	int64_t key;              /* hetlab's job id (>= 0) */
	int attempt;              /* the hetlab attempt its first run is */
	const char *const *argv;  /* NULL-terminated, argv[0] non-empty */
	const char *const *env;   /* NAME=VALUE, may be NULL (exported by the batch script) */
	const char *cwd;          /* --chdir (absolute); NULL: the context's workdir */
	const char *output;       /* --output; NULL: CWD/hetlab-ID-%j.out */
	const char *partition;    /* NULL: the context's; "" neither */
	const char *account, *qos;   /* may be NULL */
	int nodes;                /* >= 1 */
	const char *const *nodelist;   /* the nodes (nodes entries) to run on; NULL: submit held */
	int cpus_per_node;        /* cores per node; 0: Slurm's default (1) */
	int64_t mem_mib_per_node; /* 0: not set */
	const char *gres;         /* per node, e.g. "gpu:h100:2"; NULL: none */
	int64_t walltime_s;       /* 0: partition default */
	int uid, gid;             /* run as (root only: --uid/--gid); -1: the submitter of sbatch */
	int ckpt_sig;             /* the checkpoint signal (SIGUSR1 ...) */
};

enum sx_state {
	SX_PENDING,     /* waiting for Slurm to start it (released, or requeued by Slurm) */
	SX_HELD,        /* pending with priority 0: submitted held, or requeued held */
	SX_RUNNING,     /* also CONFIGURING, RESIZING, SIGNALING */
	SX_COMPLETING,  /* also STAGE_OUT */
	SX_COMPLETED,
	SX_FAILED,
	SX_CANCELLED,   /* also REVOKED */
	SX_TIMEOUT,     /* also DEADLINE */
	SX_NODE_FAIL,   /* also BOOT_FAIL */
	SX_PREEMPTED,
	SX_REQUEUED,    /* REQUEUED, REQUEUE_HOLD, REQUEUE_FED: on its way back to pending */
	SX_OOM,         /* OUT_OF_MEMORY */
	SX_UNKNOWN,     /* a state this module does not know */
	SX_GONE,        /* not known to slurmctld any more */
	SX_SUSPENDED,   /* SUSPENDED, STOPPED (hetlab never does this; an admin may) */
};

struct sx_jobinfo {
	int64_t id;
	enum sx_state st;
	int exit_code, exit_sig;  /* of the batch script; -1 when Slurm has none */
	char nodes[256];          /* Slurm's host list ("n[1-2]"); "" when none */
	char name[128];
	char reason[128];         /* state reason ("JobHeldUser", "Resources", "None") */
	bool held;                /* priority 0 (whatever the state) */
	int restarts;             /* requeues so far */
	char comment[128];
	char user[64];
	char partition[64];
	int64_t start_unix, end_unix;   /* -1 unknown (or, for a pending job, a forecast: see started) */
	/* From the comment hetlab:<state>:<key>:<attempt>: */
	char state_id[SX_STATE_ID_LEN + 1];   /* "" when the comment is not hetlab's */
	int64_t key;              /* -1 when not hetlab's */
	int attempt;              /* the attempt of its first run; -1 */
	/* Only from the full format (sx_parse_squeue_full, SX_SQUEUE_FULL_FORMAT);
	 * zero otherwise: */
	bool full;
	int64_t submit_unix;      /* -1 unknown */
	int64_t limit_s;          /* the time limit; -1 none (UNLIMITED, NOT_SET) */
	int nnodes, ncpus;        /* nodes (the minimum, for a pending job) and CPUs in all */
	int64_t mem_mib;          /* MinMemory, per node; 0 when not set or per CPU */
	int gpus;                 /* GPUs per node (tres-per-node gres:gpu[:TYPE]:N) */
	char account[64], qos[64];
	int64_t prio;             /* PriorityLong */
	/* A job array's task (ArrayJobID, ArrayTaskID with `squeue -r`, one
	 * line a task): -1 for a job that is not one. A task not started yet
	 * shares its array's job id with the other such tasks; one that
	 * started has an id of its own (the last keeping the array's). */
	int64_t array_job, array_task;
};

struct sx_nodeinfo {
	char name[64];
	bool drain, down, idle, alloc, mixed;
	bool not_responding;      /* the NOT_RESPONDING flag (`idle*`) */
	bool reserved;            /* in an active reservation */
	bool unregistered;        /* its slurmd has not registered with this slurmctld yet (slurmd_version
	                           * ""): for about 5 s after a slurmctld restart its gres_used is wrong
	                           * (a job's GPUs counted twice, or not all) */
	int cpus, alloc_cpus;
	int64_t mem_mib, alloc_mem_mib;
	int gpus, gpus_used;      /* GRES gpu, all types */
	char reason[128];
	char state[32];           /* the base state, lower case: "idle", "mixed", "allocated", "down", ... */
	char partitions[256];     /* comma-separated */
};

/* One record of `sacct -D -X` (every run of a job: a requeued run is a
 * record of its own). */
struct sx_acct {
	int64_t id;
	enum sx_state st;         /* REQUEUED for a run that was requeued */
	int exit_code, exit_sig;
	int64_t start_unix, end_unix;   /* -1 unknown */
	char nodes[256];
	char name[128];
	int64_t cpus, gpus, mem_mib;    /* AllocTRES */
};

/* The slurm.conf settings the executor depends on (scontrol show config). */
struct sx_config {
	char select_params[128];  /* SelectTypeParameters */
	int return_to_service;    /* -1 unknown */
	int min_job_age_s;
	int cred_expire_s;        /* from AuthInfo (default 120) */
	bool accounting;          /* AccountingStorageType is slurmdbd */
	bool job_comment;         /* AccountingStoreFlags has job_comment */
	char preempt_mode[64], preempt_type[64];
	int job_requeue;          /* JobRequeue, -1 unknown */
	bool sched_defer;         /* SchedulerParameters has defer */
	bool memory;              /* CR_*_Memory: memory is a consumable resource */
	char version[32];
};

/* The job name of key in state state_id, hetlab-S8-ID. */
void sx_job_name(const char *state_id, int64_t key, char *buf, size_t len);

/* Builds the submission of j into cmd and writes its batch script to
 * WORKDIR/hetlab-ID.sh (replacing an older one). 0, or -1 with err. */
int sx_submit_cmd(const struct sx_ctx *c, const struct sx_job *j, struct sx_cmd *cmd, char *err, size_t n);
/* The Slurm job id sbatch --parsable printed. 0, or -1 with err. */
int sx_submit_result(const struct sx_cmd *cmd, int64_t *slurm_id, char *err, size_t n);
/* sx_submit_cmd + run + sx_submit_result. */
int sx_submit(const struct sx_ctx *c, const struct sx_job *j, int64_t *slurm_id, char *err, size_t n);

/* A held (or pending) job placed on exactly these nodes (names only: no
 * ranges, no commas), with its partition when not NULL, to begin
 * delay_s seconds from now (0: StartTime=now, overriding the BeginTime of
 * a requeue): the update into cmd; then the release (sx_release_cmd). */
int sx_place_cmd(int64_t id, const char *const *nodes, int nnodes, const char *partition, int delay_s,
                 struct sx_cmd *cmd, char *err, size_t n);
void sx_release_cmd(int64_t id, struct sx_cmd *cmd);
/* sx_place_cmd + release, run one after the other. 0, or -1 (the job stays
 * as it was when the update failed). */
int sx_start(const struct sx_ctx *c, int64_t id, const char *const *nodes, int nnodes, char *err, size_t n);
/* Sends sig (SIGUSR1, ...) to every process of the running job, its batch
 * script's too (scancel --full). */
int sx_signal(const struct sx_ctx *c, int64_t id, int sig, char *err, size_t n);
int sx_requeue_hold(const struct sx_ctx *c, int64_t id, char *err, size_t n);
int sx_cancel(const struct sx_ctx *c, int64_t id, char *err, size_t n);
/* Holds a pending job again (after sx_start, or a requeue by Slurm itself). */
int sx_hold(const struct sx_ctx *c, int64_t id, char *err, size_t n);
/* Drains node (reason required: Slurm refuses a drain without one) / resumes it. */
int sx_drain(const struct sx_ctx *c, const char *node, const char *reason, char *err, size_t n);
int sx_resume(const struct sx_ctx *c, const char *node, char *err, size_t n);

/* The jobs among ids[0..n) slurmctld still knows (any state), read with
 * one `squeue -t all -j ID,...` per 500 ids: the payload grows with the
 * jobs asked about, never with the jobs slurmctld remembers. A job it does
 * not list is gone (SX_GONE is not reported: it is simply absent). */
int sx_jobs_by_id(const struct sx_ctx *c, const int64_t *ids, int n, struct sx_jobinfo **out, int *nout,
                  char *err, size_t errlen);
/* The jobs slurmctld knows by these names (squeue -t all -n NAME,...). */
int sx_jobs_by_name(const struct sx_ctx *c, const char *const *names, int n, struct sx_jobinfo **out,
                    int *nout, char *err, size_t errlen);
/* Every run slurmdbd recorded of jobs ids[0..n) (sacct -D -X -P). -1 with
 * err when there is no accounting (and *no_acct set). */
int sx_acct_by_id(const struct sx_ctx *c, const int64_t *ids, int n, struct sx_acct **out, int *nout,
                  bool *no_acct, char *err, size_t errlen);
/* Every job slurmctld knows in any state, all users' (as far as
 * PrivateData lets c's user see them), in the full format: one
 * `squeue -h -a -t all -O <SX_SQUEUE_FULL_FORMAT> -r` (-r: a line per task
 * of a job array). */
int sx_jobs_all(const struct sx_ctx *c, struct sx_jobinfo **out, int *nout, char *err, size_t errlen);
/* Every node (in c->partition when set). *out malloc'd, caller frees. */
int sx_nodes(const struct sx_ctx *c, struct sx_nodeinfo **out, int *nout, char *err, size_t n);
int sx_read_config(const struct sx_ctx *c, struct sx_config *cfg, char *err, size_t n);

const char *sx_state_name(enum sx_state s);
/* True for states the job will not leave by itself: COMPLETED, FAILED,
 * CANCELLED, TIMEOUT, NODE_FAIL, PREEMPTED, OOM, GONE. */
bool sx_state_final(enum sx_state s);

/* The batch script for j, submitted with environment env, into buf
 * (NUL-terminated). Its length, or -1 with a message in err (bad argv or
 * env entry, buf too small). */
int sx_script(const struct sx_job *j, enum sx_export env, char *buf, size_t len, char *err, size_t n);

/* The parsers (live/exec/slurm_json.c, live/exec/slurm_text.c), for the tests and for
 * output saved elsewhere. Each: 0, or -1 with a message naming the
 * command, the record and what was expected. */
/* sinfo --json; only the nodes in partition when neither NULL nor "". */
int sx_parse_nodes(const char *text, const char *partition, struct sx_nodeinfo **out, int *nout,
                   char *err, size_t n);
/* The lines of `squeue -h -O <SX_SQUEUE_FORMAT>` (see slurm_text.c). */
int sx_parse_squeue(const char *text, struct sx_jobinfo **out, int *nout, char *err, size_t n);
/* The lines of `squeue -h -O <SX_SQUEUE_FULL_FORMAT>`: the same fields and
 * the request (submit time, time limit, nodes, CPUs, memory, GPUs,
 * account, QOS, priority), for the shadow (live/shadow.h). */
int sx_parse_squeue_full(const char *text, struct sx_jobinfo **out, int *nout, char *err, size_t n);
/* A Slurm duration ("UNLIMITED", "MM", "MM:SS", "HH:MM:SS", "D-HH[:MM[:SS]]")
 * in seconds: -1 for none (UNLIMITED, NOT_SET, INFINITE), -2 when it does
 * not parse. */
int64_t sx_duration_s(const char *text);
/* The lines of `sacct -n -P --format=<SX_SACCT_FORMAT>`. */
int sx_parse_sacct(const char *text, struct sx_acct **out, int *nout, char *err, size_t n);
/* `scontrol show config`. */
int sx_parse_config(const char *text, struct sx_config *cfg, char *err, size_t n);
/* A comment hetlab:<state>:<key>:<attempt> into ji (state_id, key, attempt). */
void sx_parse_comment(struct sx_jobinfo *ji);
/* Slurm's state word ("RUNNING", "CANCELLED by 0", "REQUEUE_HOLD") as sx_state. */
enum sx_state sx_state_of(const char *word);

extern const char SX_SQUEUE_FORMAT[], SX_SQUEUE_FULL_FORMAT[], SX_SACCT_FORMAT[];

#endif
