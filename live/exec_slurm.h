/* exec_slurm — live mode's low-level Slurm executor: submits hetlab's jobs
 * to a real Slurm cluster held, starts each one on exactly the nodes the
 * hetlab policy chose, signals, requeues (held), cancels, drains and resumes
 * nodes, and reads back the states of jobs and nodes. It knows nothing of the
 * engine: the caller (the live daemon's glue) decides what to do and when;
 * this module only turns each decision into Slurm commands.
 *
 * Every call runs the Slurm client commands (sbatch, scontrol, squeue,
 * sinfo, scancel) by fork + exec with an argv, never through a shell, with
 * stdin from /dev/null, stdout captured, and a per-command timeout after
 * which the command's process group is killed. A command that cannot run,
 * exits non-zero, is killed by a signal, times out, or prints what we cannot
 * parse makes the call return -1 with a message in err naming the command
 * and what went wrong (its stderr, or what was expected). Nothing here
 * crashes on bad output. The caller must not set SIGCHLD to SIG_IGN (the
 * commands are reaped with waitpid on their pid). Calls are synchronous
 * and hold no state between them; they are safe from several threads when
 * each uses its own err buffer.
 *
 * Reading back uses `squeue --json` and `sinfo --json` (Slurm's openapi
 * plugins, in Debian's slurm-wlm-basic-plugins with the client): one parser
 * (jansson) for structured output, the raw exit status of each job (exit code
 * and signal), its priority (0 = held), and finished jobs until MinJobAge.
 * In 22.05 both commands ignore -j/-n/-t/-p filters, so we never pass them
 * and filter here: a call costs one squeue of every job slurmctld knows.
 * The formats of scontrol show -o are not used: their values hold spaces.
 * The parsers accept 22.05's data_parser v0.0.38 and, best effort and not
 * tested against a real 23.x, the later form (state arrays, numbers as
 * {"set","infinite","number"}, exit_code as {"return_code","signal"}).
 *
 * What a job is in Slurm:
 *   sbatch --parsable --hold --requeue --open-mode=append --job-name=hetlab-KEY
 *          --chdir=WORKDIR --output=WORKDIR/hetlab-KEY-%j.out
 *          [--partition=P] [--account=A] --nodes=N --ntasks-per-node=1
 *          --cpus-per-task=C [--gres=gpu:G] [--mem=MM] [--time=D-HH:MM:SS]
 *          WORKDIR/hetlab-KEY.sh
 * The batch script (sx_script) is `#!/bin/sh`, one `export 'NAME=VALUE'` per
 * env entry and `exec 'ARG0' 'ARG1' ...`, every word single-quoted (a ' in
 * it written as '\''), so the job's argv reaches exec exactly as given. It
 * runs on the first node of the allocation; a multi-node job's program
 * starts its other ranks itself (srun, mpirun). One task per node with C
 * CPUs each: C cores per node reserved. Output and error of every run of
 * the job (requeues too) are appended to WORKDIR/hetlab-KEY-ID.out
 * (sx_output_path); WORKDIR must be on a file system the nodes share.
 *
 * Lifecycle, as the caller drives it:
 *   sx_submit       -> SX_HELD (priority 0: Slurm never considers it)
 *   sx_start        -> scontrol update JobId=ID ReqNodeList=a,b NumNodes=n-n
 *                      StartTime=now; scontrol release ID -> SX_RUNNING there.
 *                      Only on a held (or pending) job: wait for SX_HELD after
 *                      a requeue, not SX_COMPLETING (a requeue that is still
 *                      completing resets StartTime to now + cred_expire).
 *                      ReqNodeList with NumNodes=n-n leaves Slurm no choice
 *                      but those nodes; when Slurm thinks they are busy the
 *                      job waits SX_PENDING (reason Resources) and starts
 *                      there once they free up; sx_hold takes it back.
 *   sx_signal       -> scancel --full --signal=SIG ID: every process of the
 *                      job, the batch script's too (plain scancel --signal does
 *                      not reach the batch script; --full does).
 *   sx_requeue_hold -> scontrol requeuehold ID: killed, back to pending with
 *                      priority 0 (SX_COMPLETING for a moment, then SX_HELD,
 *                      restarts + 1); sx_start it again where the policy says.
 *                      Restarting on the node it just left within cred_expire
 *                      (slurm.conf AuthInfo, 5 s at least) failed 2 times in 8
 *                      with "Job credential revoked" (SLURM-LOCAL.md); another
 *                      node is fine.
 *   sx_cancel       -> scancel ID: SX_CANCELLED; when it ran, exit_sig 15 (the
 *                      program died of SIGTERM) or its exit code (143 from a
 *                      shell whose child died of it).
 *   sx_hold         -> scontrol hold ID: a released job that has not started.
 *
 * The slurm.conf a site needs, so that Slurm never places or starts a
 * hetlab job by itself (each verified on Slurm 22.05.8 unless marked):
 *   - Nothing special for held submission: a held job has priority 0 and
 *     the scheduler never starts it (SchedulerType=sched/backfill, the
 *     default; sched/builtin not tried); it stays pending while held.
 *   - JobRequeue=1 (the default) or sbatch --requeue (which we pass): without
 *     it scontrol requeuehold answers "Requested operation is presently
 *     disabled". Side effect: when a node of a running job goes DOWN
 *     (seen with scontrol State=DOWN; a node that stops responding should do
 *     the same, not tried), Slurm requeues the job NOT held (SX_PENDING,
 *     reason BeginTime, restarts + 1, ReqNodeList unchanged) and would
 *     restart it there by itself once the node is back; the caller must
 *     sx_hold such a job (a pending job it did not release) and place it
 *     again.
 *   - PreemptType=preempt/none and PreemptMode=OFF (the defaults; at least
 *     PreemptMode=OFF on hetlab's partitions): hetlab preempts, Slurm must
 *     not (a recommendation: Slurm preemption was not tried).
 *   - A partition of its own for hetlab (sx_ctx.partition), its nodes in no
 *     other partition used by other jobs: Slurm's view of which cores are
 *     free must be hetlab's, and a higher-priority foreign job waiting in the
 *     same partition would block hetlab's released jobs behind it (from
 *     Slurm's documentation of the main scheduler; not tried).
 *   - MinJobAge (default 300 s) at least a few of the caller's poll periods:
 *     after it a finished job is SX_GONE and its exit code is lost (there is
 *     no slurmdbd here; sacct would need one).
 *   - No `defer` in SchedulerParameters: the release is an event that runs
 *     the main scheduler. Release to RUNNING took 0.7-2 s with the default
 *     SchedulerParameters and about 0.5 s with the test cluster's
 *     batch_sched_delay=0,bf_interval=1.
 *   - With SelectTypeParameters=CR_*_Memory, set mem_mib_per_node (else the
 *     job gets DefMemPerNode, often the whole node). Not verified here
 *     (the test cluster is CR_Core).
 *   - GPUs as GRES gpu (GresTypes=gpu, Gres=gpu[:type]:N on the nodes); jobs
 *     ask --gres=gpu:G per node and get CUDA_VISIBLE_DEVICES.
 *   - Accounts are lower-cased by Slurm. With AccountingStorageEnforce an
 *     unknown account fails sx_submit (not tried: no slurmdbd here).
 *
 * Ownership: the caller owns every struct; const char * fields are borrowed
 * for the call. sx_jobs and sx_nodes return malloc'd arrays the caller frees
 * (NULL and 0 when empty). No json_t leaves this module. */
#ifndef HL_EXEC_SLURM_H
#define HL_EXEC_SLURM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SX_NAME_PREFIX "hetlab-"

struct sx_ctx {
	char bindir[256];        /* directory of sbatch/scontrol/squeue/sinfo/scancel; "" = PATH */
	char partition[64];      /* "" = default; also filters sx_jobs and sx_nodes */
	char workdir[512];       /* --chdir and where batch scripts and outputs go */
	int timeout_s;           /* per command, default (<= 0) 30 */
	char slurm_conf[512];    /* SLURM_CONF for the commands; "" = inherited */
};

struct sx_job {               /* a job to submit */
	int64_t key;              /* hetlab's job id (>= 0); name hetlab-<key> */
	const char *const *argv;  /* NULL-terminated, argv[0] non-empty */
	const char *const *env;   /* extra NAME=VALUE, may be NULL (exported in the batch script) */
	int nodes;                /* >= 1 */
	int cpus_per_node;        /* cores per node; 0: Slurm's default (1) */
	int gpus_per_node;        /* 0: no --gres */
	int64_t mem_mib_per_node; /* 0: not set */
	int64_t walltime_s;       /* 0: partition default */
	const char *account;      /* tenant, may be NULL */
};

enum sx_state {
	SX_PENDING,     /* released, waiting for Slurm to start it (or requeued by Slurm) */
	SX_HELD,        /* pending with priority 0: submitted, or requeued held */
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
	char reason[128];         /* state_reason ("JobHeldUser", "Resources", "None") */
	/* Added beyond the first API: */
	int64_t key;              /* from name hetlab-<key>; -1 when not of that form */
	bool held;                /* priority 0 (whatever the state) */
	int restarts;             /* requeues so far */
	char req_nodes[256];      /* ReqNodeList as set by sx_start; "" when none */
};

struct sx_nodeinfo {
	char name[64];
	bool drain, down, idle, alloc, mixed;
	int cpus;
	int64_t mem_mib;
	int gpus;                 /* GRES gpu count, all types */
	char reason[128];
	/* Added beyond the first API: */
	bool not_responding;      /* the NOT_RESPONDING flag (`idle*`) */
	int alloc_cpus;
	int gpus_used;
	char state[32];           /* the base state, lower case: "idle", "mixed", "allocated", "down", ... */
};

/* Submits j held; its Slurm job id into *slurm_id. Writes the batch script
 * to WORKDIR/hetlab-KEY.sh first (replacing an older one). 0, or -1. */
int sx_submit(const struct sx_ctx *c, const struct sx_job *j, int64_t *slurm_id, char *err, size_t n);
/* Places a held or pending job on exactly these nodes (names only: no
 * ranges, no commas) and releases it. 0, or -1 (the job stays as it was
 * when the update failed). */
int sx_start(const struct sx_ctx *c, int64_t id, const char *const *nodes, int nnodes, char *err, size_t n);
/* Sends sig (SIGUSR1, ...) to every process of the running job. */
int sx_signal(const struct sx_ctx *c, int64_t id, int sig, char *err, size_t n);
int sx_requeue_hold(const struct sx_ctx *c, int64_t id, char *err, size_t n);
int sx_cancel(const struct sx_ctx *c, int64_t id, char *err, size_t n);
/* Holds a pending job again (after sx_start, or a requeue by Slurm itself). */
int sx_hold(const struct sx_ctx *c, int64_t id, char *err, size_t n);
/* Drains node (reason required: Slurm refuses a drain without one) / resumes it. */
int sx_drain(const struct sx_ctx *c, const char *node, const char *reason, char *err, size_t n);
int sx_resume(const struct sx_ctx *c, const char *node, char *err, size_t n);
/* One job, including finished ones until MinJobAge; st SX_GONE (and 0
 * returned) when slurmctld no longer knows it. */
int sx_job_info(const struct sx_ctx *c, int64_t id, struct sx_jobinfo *out, char *err, size_t n);
/* Every hetlab-* job slurmctld knows (in c->partition when set), by id.
 * *out malloc'd, caller frees; NULL when none. */
int sx_jobs(const struct sx_ctx *c, struct sx_jobinfo **out, int *nout, char *err, size_t n);
/* Every node (in c->partition when set). *out malloc'd, caller frees. */
int sx_nodes(const struct sx_ctx *c, struct sx_nodeinfo **out, int *nout, char *err, size_t n);
const char *sx_state_name(enum sx_state s);
/* True for states the job will not leave by itself: COMPLETED, FAILED,
 * CANCELLED, TIMEOUT, NODE_FAIL, PREEMPTED, OOM, GONE. */
bool sx_state_final(enum sx_state s);

/* The batch script for j into buf (NUL-terminated). Its length, or -1 with
 * a message in err (bad argv or env entry, buf too small). */
int sx_script(const struct sx_job *j, char *buf, size_t len, char *err, size_t n);
/* The path of a job's output file, WORKDIR/hetlab-KEY-ID.out. */
void sx_output_path(const struct sx_ctx *c, int64_t key, int64_t slurm_id, char *buf, size_t len);

/* The parsers of `squeue --json` and `sinfo --json` output, for the tests
 * and for output saved elsewhere. sx_parse_jobs keeps every job, or only
 * the hetlab-* ones when hetlab_only; both keep only those in partition
 * when it is neither NULL nor "". *out malloc'd (NULL when none). 0, or -1
 * with a message naming the command, the JSON path and what was expected. */
int sx_parse_jobs(const char *text, const char *partition, bool hetlab_only,
                  struct sx_jobinfo **out, int *nout, char *err, size_t n);
int sx_parse_nodes(const char *text, const char *partition, struct sx_nodeinfo **out, int *nout,
                   char *err, size_t n);

#endif
