/* sacct — a reader of Slurm accounting dumps, `sacct -P --format=...`
 * (docs/traces.md, "Slurm accounting (sacct)"): one job per line, fields
 * separated by '|', the first line naming them. The fields are found by
 * name, so any order and any extra columns do; JobID, Submit, Start and End
 * (or Elapsed) and NCPUS (or ReqCPUS, or cpu= in AllocTRES) are required.
 * Job steps (JobID with a '.': 12.batch, 12.0) are skipped and counted;
 * jobs that never ran (Start Unknown/None, or End Unknown: still running
 * at the dump) are unusable. Times are read as UTC: dump with TZ=UTC.
 *
 * A job becomes a gang of NNodes nodes with ⌈NCPUS / NNodes⌉ cores, the
 * memory and GPUs per node (AllocTRES mem= and gres/gpu=, else ReqTRES,
 * else ReqMem: job totals, divided by the nodes), the run time End − Start, the time limit as
 * walltime, and State: FAILED, NODE_FAIL, OUT_OF_MEMORY, BOOT_FAIL and
 * CANCELLED end in failure; TIMEOUT runs its elapsed time (past its
 * limit: the replay kills it there). User, Account, Partition (the first
 * of a list) and QOS become the workload's names (trace.h, struct
 * wl_names) and tenant, group, queue and qos their indexes (in order of
 * first appearance); JobName and the GPU type (gres/gpu:TYPE) the job's
 * name and GPU type. With the options, the partition and the GPU type also
 * become required label terms. The per-job text (state, exit code) is kept
 * in struct sacct_jobs.
 *
 * A dump made with -D (duplicates) has one line per run of a requeued or
 * preempted job, all with its JobID (JobIDRaw): they become one job, with
 * the Submit of its first run (the earliest) and everything else of its
 * last run (the latest Start), and the lines of its earlier runs that
 * ended PREEMPTED or REQUEUED counted as its requeues. Without -D sacct
 * keeps only the last run, whose Submit is the time of the last requeue:
 * a job submitted later than a job of a higher JobID is counted as
 * looking requeued (sacct_notes says so).
 *
 * Ownership: the caller owns w and x; sacct_jobs_free frees x. */
#ifndef HL_SACCT_H
#define HL_SACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traces/trace.h"

#define SACCT_NAME_MAX 64

/* One job's accounting text (indexes into struct sacct_jobs' name tables,
 * the same as the workload's names). */
struct sacct_job {
	int32_t user, account, partition, qos;  /* -1 when the column is absent or empty */
	char state[24];         /* COMPLETED, FAILED, CANCELLED, TIMEOUT, ... (the last run's) */
	char exit_code[16];     /* "0:0" */
	char gpu_type[SACCT_NAME_MAX];          /* "" untyped or no GPU */
	int32_t gpus;           /* per node */
	int32_t runs;           /* lines of the job (sacct -D: one per run); 1 without -D */
	int32_t requeues;       /* its earlier runs that ended PREEMPTED or REQUEUED */
	int64_t start;          /* the last run's Start (UTC s) */
};

struct sacct_names {
	int32_t n, cap;
	char (*name)[SACCT_NAME_MAX];
};

struct sacct_jobs {
	int32_t n;
	struct sacct_job *job;  /* job[i] belongs to w->jobs[i] */
	struct sacct_names users, accounts, partitions, qos;
	int64_t steps;          /* step lines skipped */
	int64_t never_ran;      /* jobs skipped because they never ran (or had not ended) */
};

void sacct_jobs_init(struct sacct_jobs *x);
void sacct_jobs_free(struct sacct_jobs *x);

struct sacct_opts {
	bool lenient;                   /* skip and count malformed lines */
	const char *partition_label;    /* non-NULL: require "LABEL = <partition>" */
	const char *gpu_type_label;     /* non-NULL: GPU jobs with a type require "LABEL = <type>" */
	/* Jobs cancelled by a preemption (their last run ended PREEMPTED):
	 * sacct has the part they ran, not the run they would have had.
	 * true: their run time becomes the mean run of the jobs of their
	 * account that completed and outlived that part (run / time limit of
	 * those, times the job's limit; its limit when none did, its account
	 * replaced by all jobs under 20 such), and they complete. */
	bool estimate_preempted;
	/* non-NULL: slurmctld's log (LogTimeFormat iso8601_ms, the default):
	 * each "_slurm_rpc_submit_batch_job: JobId=N" line gives job N's
	 * submission to the millisecond (sacct keeps whole seconds), where
	 * its stamp falls in the Submit's second (minutes and seconds; the
	 * log's hours are local time). */
	const char *ctld_log;
};

/* 1 when the file's first line is an sacct -P header (starts "JobID" and
 * holds '|'), else 0. */
int sacct_sniff(const char *path);
/* Reads a dump (plain or gzip). o and x may be NULL. 0, or -1 with
 * "PATH:LINE: what" in err. */
int trace_sacct_read(const char *path, const struct sacct_opts *o, struct workload *w,
                     struct sacct_jobs *x, char *err, size_t errlen);
/* What the reader did to a dump that a user should know (lines merged as
 * runs of one job, jobs that look requeued in a dump without -D), one
 * note a line, into buf ("" none), from w's counts (struct workload's
 * sacct_merged and sacct_late). */
void sacct_notes(const struct workload *w, char *buf, size_t len);

struct cluster;
/* The jobs whose partition (with sh->partition_label) or GPU type (with
 * sh->gpu_type_label) no node of cl has as that label's value: their
 * number, 0 when none, and a message naming the first few ("JobID 7
 * needs partition 'gpu', which no node of the scenario has (node labels:
 * partition = cpu, short)") in msg. -1 on ENOMEM. */
int64_t sacct_check_labels(const struct workload *w, const struct swf_shape *sh,
                           const struct cluster *cl, char *msg, size_t len);

#endif
