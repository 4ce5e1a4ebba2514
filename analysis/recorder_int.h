/* recorder_int — what the recorder's files share: analysis/recorder.c (the
 * file, the hooks, the run's rows), analysis/recorder_job.c (the job
 * table's rows and their order) and analysis/recorder_io.c (buffers of
 * rows on their way into the file, below both). Not for other modules:
 * they use analysis/recorder.h. */
#ifndef HL_RECORDER_INT_H
#define HL_RECORDER_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "analysis/hostlist.h"
#include "analysis/pagedrop.h"
#include "analysis/recorder.h"
#include "analysis/rowstash.h"
#include "analysis/sqlbatch.h"
#include "analysis/workq.h"
#include "sim/engine.h"

/* The job row (written by recorder_job.c); the columns nodes .. mem_mib
 * and node_list by number. */
#define JOB_COLS "id, trace_id, class, tenant, grp, queue, state, nodes, cores, gpus," \
	" mem_mib, req_cores, req_gpus, node_list, preemptions, submit_us, start_us, end_us," \
	" walltime_us, reason, gpu_model, gpu_share, gpu_s, core_s, lost_gpu_s, ckpt_s, held_s," \
	" hold_why, restarts, energy_j, energy_cost, qos"
#define JOB_NCOL 32
enum { JC_NODES = 7, JC_CORES, JC_GPUS, JC_MEM, JC_NODE_LIST = 13 };

/* Which table a batch fills (struct sqlbatch.tag). */
enum { T_EVENT, T_JOB, T_SAMPLE, T_RACK };

struct recorder {
	sqlite3 *db;
	struct sqlbatch events, jobs, samples, rack_samples;
	struct rowstash order;  /* job rows waiting for those of lower ids */
	struct pagedrop pd;     /* the file's pages on disk handed back (the writer's) */
	struct workq wq;        /* the writer thread: inserts and audit hashing */
	bool wq_ok;
	enum record_level level;
	const struct audit_key *key;   /* borrowed; NULL: unkeyed */
	char *head_out;                /* the caller's buffer for the head's hash, or NULL */
	const struct metric_window *metrics;   /* borrowed: table run_metric within it; NULL: none */
	char *path;             /* the final file */
	char *tmp;              /* where it is written until recorder_finish */
	int tmp_slot;           /* its tmpclean slot (removed on SIGINT/SIGTERM) */
	int64_t seq;            /* last event row's seq */
	struct hostlist hosts;  /* node lists (analysis/hostlist.h), the writer's */
	const struct sim *sim;  /* what recorder_attach was given (borrowed); NULL before */
	bool copy_held;         /* a held row keeps a copy of its job (recorder_copy_held) */
	double *temps;          /* one rack's node temperatures: scratch of the sample hook */
	struct audit_writer *audit;   /* the event table's hash chain (analysis/audit.h) */
	int st_job, st_sample, st_rack;   /* its streams: the tables sealed as they are written */
	int64_t nsamples, nrack_samples;  /* rows sealed so far (the writer's): the next rowid */
	atomic_bool failed;     /* set by either thread, with err under errmu */
	pthread_mutex_t errmu;
	char err[512];
};

/* ---- statements on the caller's thread (recorder.c) ---- */

/* Runs sql; -1 with the error kept ("what: sqlite3_errmsg"). */
int rec_exec_sql(struct recorder *r, const char *sql, const char *what);
/* Steps an INSERT whose parameters are bound, and resets it; -1 with the error kept. */
int rec_step_insert(struct recorder *r, sqlite3_stmt *st, const char *what);

/* ---- rows on their way into the file (recorder_io.c) ---- */

/* Keeps the first error (of either thread) with the file's name. */
void rec_failf(struct recorder *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The next row of a batch, or NULL with the error kept. A full buffer goes
 * to the writer thread first. */
struct sqlbatch_val *rec_next_row(struct recorder *r, struct sqlbatch *b);
/* Seals and inserts one buffer of rows (on the writer thread, or at the end). */
void rec_write_buf(struct recorder *r, struct sqlbatch *b, struct sqlbatch_buf *buf);

/* A time in µs, or NULL when unset (negative) or infinite. */
static inline void val_time_us(struct sqlbatch_val *v, simtime t)
{
	if (t >= 0 && t != SIMTIME_INF)
		sqlbatch_int(v, t);
}

static inline void val_real_if(struct sqlbatch_val *v, bool on, double x)
{
	if (on)
		sqlbatch_real(v, x);
}

/* ---- the job table (recorder_job.c) ---- */

/* Sets up the order in which job rows are written, for a run of njobs
 * jobs (0: not yet known); nothing may be held. */
void rec_jobs_init(struct recorder *r, int64_t njobs);
/* The engine's job_end hook (struct sim_recorder). */
void rec_hook_job_end(void *ctx, const struct sim *s, const struct job *j);
/* Writes the job rows held back, in id order (the run has ended). */
void rec_jobs_drain(struct recorder *r);

#endif
