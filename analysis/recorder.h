/* recorder — writes one run's results into one SQLite file (run.db).
 *
 * The recorder is the engine's struct sim_recorder: recorder_attach()
 * installs its hooks, and every event, ended job and monitoring sample the
 * engine reports becomes one row of the `event`, `job` or `sample` table
 * (the cluster's nodes and racks are written to `node` and `rack` when it
 * is attached) (docs/results.md describes every table and column). What is
 * kept is the recording level (enum record_level): `summary` keeps the run,
 * the cluster and the time series; `jobs` adds one row per job; `events`
 * (the default) adds the event log with its audit chain (analysis/audit.h);
 * `full` adds every rack sample and the event index. When the run has the
 * power model (s->cl.pw), the sample hook also reads each rack's cap,
 * warning, throttle and node temperatures from it, and recorder_finish()
 * adds its energy, cost and carbon totals to `rack` and `run`; without it
 * those columns are NULL.
 *
 * Job rows are written in id order, a row held back until the rows of
 * lower ids are (analysis/recorder_job.c, analysis/rowstash.h); the
 * file's pages behind its end leave the page cache once on disk
 * (analysis/pagedrop.h).
 *
 * Rows are buffered and written many at a time (analysis/sqlbatch.h)
 * through statements prepared once, inside one transaction, into a
 * temporary sibling of the output ("PATH.tmp-PID", analysis/tmpclean.h:
 * removed when SIGINT or SIGTERM ends a command that installed the
 * handlers, and by the next recorder_open of PATH when its process died)
 * opened with the journal, the syncs and the connection mutex off:
 * recorder_finish() writes the `run` row, seals the audit log, commits and
 * renames the temporary file over PATH, so PATH only ever holds a complete
 * database; recorder_abort() removes it. A reader never sees a half-written
 * run.
 *
 * The engine's hooks cannot fail, so the first error (always with
 * sqlite3_errmsg and the file's name) is kept, later rows are dropped, and
 * recorder_finish() fails with that message.
 *
 * Ownership: the recorder owns its SQLite handle and statements (they never
 * leave analysis/); recorder_finish() and recorder_abort() free it, whatever
 * they return. The struct sim it is attached to, and the key of its
 * options, stay the caller's and must outlive recorder_finish() (which reads
 * its power totals); strings in struct run_info are borrowed. */
#ifndef HL_RECORDER_H
#define HL_RECORDER_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#define RECORDER_SCHEMA_VERSION 2
/* PRAGMA application_id of a hetlab results file: "HLRS". */
#define RECORDER_APPLICATION_ID 0x484c5253
#define RECORDER_PAGE_SIZE 8192

struct recorder;
struct sim;
struct audit_key;
struct metric_window;

/* What a results file keeps, each level everything of the one before. */
enum record_level {
	RECORD_SUMMARY,   /* run, meta, node, rack, sample, billing (and rack_sample with power figures) */
	RECORD_JOBS,      /* + job: one row per job */
	RECORD_EVENTS,    /* + event: every decision and state change, hash-chained */
	RECORD_FULL,      /* + every rack_sample row (also all-zero ones), the event_job index */
	RECORD_NLEVEL
};
#define RECORD_DEFAULT RECORD_EVENTS
const char *record_level_name(enum record_level l);
/* The level named s, or -1. */
int record_level_parse(const char *s);

struct recorder_opts {
	enum record_level level;        /* RECORD_DEFAULT unless set */
	const struct audit_key *key;    /* authenticates the audit head; NULL: unkeyed */
	char *head_out;                 /* NULL, or AUDIT_HASH_HEX + 1 bytes for the head's hash */
	/* Non-NULL: recorder_finish computes every metric within this window
	 * (not given: the run's own) and stores them in table run_metric
	 * before sealing (analysis/runmetric.h). Borrowed, like key. */
	const struct metric_window *metrics;
	/* Inserts and audit hashing on the caller's thread, not on a writer
	 * thread of their own: for a run that shares every core with others
	 * (`hetlab sweep -j N` on N cores), where the thread's hand-offs cost
	 * and no core is left for it to overlap with. */
	bool one_thread;
};

/* What the `run` row says about the run besides what the recorder counted.
 * Strings may be NULL (stored as NULL). */
struct run_info {
	const char *scenario, *policy, *version, *trace;
	uint64_t seed;
	int64_t skipped_malformed, skipped_unusable;   /* trace lines dropped */
	int32_t nnodes;
	int64_t total_cores, total_gpus;
	const char *policy_params;   /* "name=value ..." as the run used them */
	int64_t rejected;            /* jobs killed at submit: larger than the cluster */
	const char *placement;       /* "best-fit", "first-fit (label-blind)", ... */
};

/* Removes PATH's stale temporary siblings, creates its own, the schema, and
 * opens the transaction. o may be NULL (the defaults). NULL with a message
 * naming the file in err on failure. */
struct recorder *recorder_open_with(const char *path, const struct recorder_opts *o, char *err,
                                    size_t errlen);
/* recorder_open_with(path, NULL, ...). */
struct recorder *recorder_open(const char *path, char *err, size_t errlen);
/* Installs the recorder's hooks in `s` (sim_set_recorder, ctx = r; those
 * the level needs) and writes the `node` and `rack` tables from s->cl,
 * which must be complete by then (cl.pw too, when the run has the power
 * model). Keeps s. */
void recorder_attach(struct recorder *r, struct sim *s);
/* The run drops ended jobs from its tables (sim_compact: a live state's
 * replay): a job row held back until those of lower job numbers are
 * written keeps a copy of its job, which may have left the engine's table
 * by then. Rows are keyed by job.num either way. */
void recorder_copy_held(struct recorder *r);
/* Writes the rows still buffered and the run row, seals the audit log,
 * commits, closes and renames the file over PATH. 0 on success; -1 with the
 * reason in err (the temporary file is removed). Frees r in both cases. */
int recorder_finish(struct recorder *r, const struct run_info *ri, double wall_s,
                    uint64_t events, uint64_t passes, char *err, size_t errlen);
/* Closes, removes the temporary file and frees r. NULL is a no-op. */
void recorder_abort(struct recorder *r);
/* Runs sql (a table of the caller's, its rows) in the run's transaction,
 * before it is sealed; `what` names it in the error. 0, or -1 (the
 * recorder has failed). */
int recorder_exec(struct recorder *r, const char *sql, const char *what);
/* A row of table meta (key, value), written before the run is sealed. 0,
 * or -1 (the recorder has failed). */
int recorder_set_meta(struct recorder *r, const char *key, const char *value);
/* Stores the run's billing configuration (the scenario's "billing" block
 * as config/billcfg.c normalised it) as the one row of table
 * `billing(config TEXT)`, replacing an earlier one; `hetlab bill` reads
 * it (docs/billing.md). Call it between recorder_open and
 * recorder_finish. NULL json_text is a no-op (no table: `hetlab bill`
 * then uses its default price list). 0, or -1 with the error kept (as
 * recorder_error gives it, and recorder_finish then fails). */
int recorder_set_billing(struct recorder *r, const char *json_text);
/* The names a replayed trace gives (a Slurm dump's): per kind ("user",
 * "account", "partition", "qos", "gpu_type") the table that job.tenant,
 * grp, queue and qos (and a job's GPU type) index, and the job names by
 * job id. Borrowed for the call; NULL and 0 where absent. */
#define RECORDER_NAME_KINDS 8
struct recorder_names {
	const char *kind[RECORDER_NAME_KINDS];   /* NULL: no table of that slot */
	char *const *v[RECORDER_NAME_KINDS];     /* kind[k]'s names, by index */
	int32_t n[RECORDER_NAME_KINDS];
	char *const *job_names;      /* the job names, by index */
	int32_t njob_names;
	const int32_t *job_name;     /* by job id: an index into job_names, -1 none; NULL: none */
	int32_t njobs;
	int64_t unix_start;          /* the trace's time 0 as a Unix time; -1 unknown */
};
/* Writes the names into table `name` (kind, idx, name), the job names into
 * `job_name` (id, name), each created when it gets rows, and a known
 * unix_start as meta `unix_start` (a trace without any leaves the file as
 * it was; docs/results.md). Call it between recorder_open and
 * recorder_finish. 0, or -1 with the error kept. */
int recorder_set_names(struct recorder *r, const struct recorder_names *nm);
/* The first error seen so far, or NULL. */
const char *recorder_error(const struct recorder *r);

#endif
