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
 * limit: the replay kills it there). User, Account and Partition become
 * tenant, group and queue (indexes in order of first appearance); with
 * the options, the partition and the GPU type (gres/gpu:TYPE) also become
 * required label terms. The per-job text (names, QOS, state, exit code)
 * is kept in struct sacct_jobs.
 *
 * Ownership: the caller owns w and x; sacct_jobs_free frees x. */
#ifndef HL_SACCT_H
#define HL_SACCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "traces/trace.h"

#define SACCT_NAME_MAX 64

/* One job's accounting text (indexes into struct sacct_jobs' name tables). */
struct sacct_job {
	int32_t user, account, partition, qos;  /* -1 when the column is absent */
	char state[24];         /* COMPLETED, FAILED, CANCELLED, TIMEOUT, ... */
	char exit_code[16];     /* "0:0" */
	char gpu_type[SACCT_NAME_MAX];          /* "" untyped or no GPU */
	int32_t gpus;           /* per node */
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
};

/* 1 when the file's first line is an sacct -P header (starts "JobID" and
 * holds '|'), else 0. */
int sacct_sniff(const char *path);
/* Reads a dump (plain or gzip). o and x may be NULL. 0, or -1 with
 * "PATH:LINE: what" in err. */
int trace_sacct_read(const char *path, const struct sacct_opts *o, struct workload *w,
                     struct sacct_jobs *x, char *err, size_t errlen);

#endif
