/* recorder — writes one run's results into one SQLite file (run.db).
 *
 * The recorder is the engine's struct sim_recorder: recorder_attach()
 * installs its hooks, and every event, ended job and monitoring sample the
 * engine reports becomes one row of the `event`, `job` or `sample` table
 * (the cluster's nodes and racks are written to `node` and `rack` when it
 * is attached) (docs/results.md describes every table and column). When the
 * run has the power model (s->cl.pw), the sample hook also reads each
 * rack's cap, warning, throttle and node temperatures from it, and
 * recorder_finish() adds its energy, cost and carbon totals to `rack` and
 * `run`; without it those columns are NULL. Rows go through
 * prepared statements that are prepared once, inside one transaction, into
 * a temporary sibling of the output ("PATH.tmp-PID") opened with the journal
 * and syncs off: recorder_finish() writes the `run` row, commits and renames
 * the temporary file over PATH, so PATH only ever holds a complete database;
 * recorder_abort() removes it. A reader never sees a half-written run.
 *
 * The engine's hooks cannot fail, so the first error (always with
 * sqlite3_errmsg and the file's name) is kept, later rows are dropped, and
 * recorder_finish() fails with that message.
 *
 * Ownership: the recorder owns its SQLite handle and statements (they never
 * leave analysis/); recorder_finish() and recorder_abort() free it, whatever
 * they return. The struct sim it is attached to stays the caller's and must
 * outlive recorder_finish() (which reads its power totals); strings in
 * struct run_info are borrowed. */
#ifndef HL_RECORDER_H
#define HL_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#define RECORDER_SCHEMA_VERSION 1
/* PRAGMA application_id of a hetlab results file: "HLRS". */
#define RECORDER_APPLICATION_ID 0x484c5253

struct recorder;
struct sim;

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

/* Creates PATH's temporary sibling, the schema, and opens the transaction.
 * NULL with a message naming the file in err on failure. */
struct recorder *recorder_open(const char *path, char *err, size_t errlen);
/* Installs the recorder's hooks in `s` (sim_set_recorder, ctx = r) and
 * writes the `node` and `rack` tables from s->cl, which must be complete
 * by then (cl.pw too, when the run has the power model). Keeps s. */
void recorder_attach(struct recorder *r, struct sim *s);
/* Writes the run row, commits, closes and renames the file over PATH.
 * 0 on success; -1 with the reason in err (the temporary file is removed).
 * Frees r in both cases. */
int recorder_finish(struct recorder *r, const struct run_info *ri, double wall_s,
                    uint64_t events, uint64_t passes, char *err, size_t errlen);
/* Closes, removes the temporary file and frees r. NULL is a no-op. */
void recorder_abort(struct recorder *r);
/* Stores the run's billing configuration (the scenario's "billing" block
 * as traces/billload.c normalised it) as the one row of table
 * `billing(config TEXT)`, replacing an earlier one; `hetlab bill` reads
 * it (docs/billing.md). Call it between recorder_open and
 * recorder_finish. NULL json_text is a no-op (no table: `hetlab bill`
 * then uses its default price list). 0, or -1 with the error kept (as
 * recorder_error gives it, and recorder_finish then fails). */
int recorder_set_billing(struct recorder *r, const char *json_text);
/* The first error seen so far, or NULL. */
const char *recorder_error(const struct recorder *r);

#endif
