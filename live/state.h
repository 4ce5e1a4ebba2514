/* state — the live daemon's state database (STATE_DIR/state.db, SQLite in
 * WAL mode), shared with the client commands (`hetlab submit`, `queue`,
 * `cancel`) and with `hetlab replay`.
 *
 * Tables (docs/live.md "State"):
 *   meta(key, value)        epoch_unix_us (time 0 of the engine's clock),
 *                           config and scenario (their text when the state
 *                           was made), applied_us (the engine time up to which
 *                           every step's decisions are committed)
 *   inbox(seq, kind, job, spec, at_unix)
 *                           requests from clients: 'submit' (spec: the job
 *                           line), 'cancel' (job) and 'approve' (job: a
 *                           tenant index); the daemon consumes a
 *                           row in the same transaction that records it
 *   request(uid, rid, at_unix, reply)
 *                           the requests answered, by sender and request
 *                           id, so that a client's retry is not applied twice
 *   rec(seq, t_us, after_us, kind, job, node, attempt, state, reason, data)
 *                           the recording: every input the engine got from
 *                           the world (submit, end, cancel, reading), at the
 *                           engine time t_us it was injected, after every
 *                           event up to after_us had been handled
 *   decision(seq, t_us, kind, job, node, detail)
 *                           what the engine decided and did, in order
 *   jobs(id, name, class, tenant, state, submit_us, start_us, end_us, nodes,
 *        attempt, reason, ref, spec)
 *                           each job as the daemon last committed it; ref
 *                           is the executor's handle (a Slurm job id)
 *   xref(job, sid, attempt, at_unix, open, shape)
 *                           every Slurm job each hetlab job used, the
 *                           attempt it first ran as, open (1) until seen
 *                           final, 2 while replaced by a new one (to cancel),
 *                           what it was submitted with
 *   foreign_hold(node, cores, gpus, mem_mib, what, at_unix)
 *                           capacity jobs not hetlab's hold
 *
 * A client writes only to inbox and request; the daemon is the only writer of the
 * rest. Every function returns 0 or -1 with "FILE: what: sqlite's message"
 * in err. */
#ifndef HL_LIVE_STATE_H
#define HL_LIVE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sqlite3;

struct lstate {
	struct sqlite3 *db;
	char path[4096];
};

/* Opens (creating the schema when new) STATE_DIR/state.db; the directory
 * is created when missing (0700; state.db 0600). busy waits up to 10 s for
 * another writer. Never through a symbolic link (SQLITE_OPEN_NOFOLLOW). */
int lstate_open(struct lstate *st, const char *dir, char *err, size_t errlen);
/* As lstate_open, but only an existing state: a missing directory or
 * state.db is an error saying so (a client never creates a state). */
int lstate_open_existing(struct lstate *st, const char *dir, char *err, size_t errlen);
void lstate_close(struct lstate *st);
/* Opens an existing state.db read-only (queue, replay): a missing file is
 * an error saying so. */
int lstate_open_ro(struct lstate *st, const char *dir, char *err, size_t errlen);

int lstate_begin(struct lstate *st, char *err, size_t errlen);
int lstate_commit(struct lstate *st, char *err, size_t errlen);
void lstate_rollback(struct lstate *st);

/* meta: value of key into out (""/1 when absent: returns 1), set. */
int lstate_meta_get(struct lstate *st, const char *key, char *out, size_t len);
/* The whole value (malloc'd), NULL when absent. */
char *lstate_meta_dup(struct lstate *st, const char *key);
int lstate_meta_set(struct lstate *st, const char *key, const char *value, char *err, size_t errlen);

/* The inbox, from a client: one request, committed. */
int lstate_inbox_add(struct lstate *st, const char *kind, int64_t job, const char *spec,
                     char *err, size_t errlen);

/* Who sent a request: from the kernel (the daemon's socket), or the
 * client itself when it writes the inbox of its own state. -1 / NULL:
 * unknown. */
struct lstate_who {
	int64_t uid, gid;
	const char *user;
};
/* As lstate_inbox_add, with who sent it (NULL: unknown); *seq (may be
 * NULL) gets the row's seq. */
int lstate_inbox_add_as(struct lstate *st, const char *kind, int64_t job, const char *spec,
                        const struct lstate_who *w, int64_t *seq, char *err, size_t errlen);

/* The daemon: every inbox row in order (fn's non-zero return stops), and
 * removing one (inside the transaction that records it). */
struct inbox_row {
	int64_t seq;
	const char *kind;
	int64_t job;                 /* -1 when NULL */
	const char *spec;
	/* Added fields. */
	bool job_int;                /* the job column holds an integer */
	size_t spec_len;             /* bytes of spec */
	int64_t uid, gid;            /* who sent it; -1 unknown (a row of an older client) */
	const char *user;            /* NULL unknown */
	double at_unix;              /* when it was queued */
};
int lstate_inbox_each(struct lstate *st, int (*fn)(void *ctx, const struct inbox_row *r), void *ctx,
                      char *err, size_t errlen);
/* As lstate_inbox_each, the rows that are not submissions (cancels,
 * approvals): taken while the job table is full, so that they never wait
 * behind submissions that cannot be. */
int lstate_inbox_each_request(struct lstate *st, int (*fn)(void *ctx, const struct inbox_row *r), void *ctx,
                              char *err, size_t errlen);
int lstate_inbox_del(struct lstate *st, int64_t seq, char *err, size_t errlen);

/* The jobs of uid that have not started: its submissions in the inbox and
 * its jobs taken but pending or held. -1 on error. */
int64_t lstate_pending_of(struct lstate *st, int64_t uid);

/* request: the requests the socket answered, by the sender's uid and the
 * client's request id, with their reply, so that a client that retries
 * (its daemon went away before it read the answer) is answered again,
 * never queued twice. Kept LSTATE_REQUEST_KEEP_S. get: 0 with *reply
 * (malloc'd), 1 none, -1 error. put: inside the request's transaction. */
#define LSTATE_REQUEST_KEEP_S 86400.0
int lstate_request_get(struct lstate *st, int64_t uid, const char *rid, char **reply, char *err, size_t errlen);
int lstate_request_put(struct lstate *st, int64_t uid, const char *rid, const char *reply, char *err, size_t errlen);

/* An inbox row that cannot be taken (it does not parse, names no valid
 * job or tenant): copied into table quarantine with why (the caller then
 * removes it from the inbox in the same transaction). */
int lstate_quarantine_add(struct lstate *st, const struct inbox_row *r, const char *why, char *err, size_t errlen);

/* job_owner: who submitted each job (written when its submission is
 * recorded). get: 0 with *uid (-1 unknown), 1 when the job has no owner
 * recorded (not submitted yet, or by an older daemon), -1 on error. */
int lstate_owner_put(struct lstate *st, int64_t job, const struct lstate_who *w, char *err, size_t errlen);
int lstate_owner_get(struct lstate *st, int64_t job, int64_t *uid);

/* One recorded input. */
/* RUNNING: the executor saw the attempt run since t1_us. END: t1_us, t2_us
 * (when known) the run's start and end by the executor's clock. UNSTART:
 * never started, taken back (data: why). REQUEUE: the executor requeued it
 * by itself, its run ended at t2_us (data: why). FOREIGN: jobs not ours hold
 * this much of node (data: "CORES GPUS MEM_MIB"). BLIND: the executor cannot
 * read the world from now on (state 1: the policy decides nothing), or can
 * again (state 0). */
enum rec_in { RIN_SUBMIT, RIN_END, RIN_CANCEL, RIN_READING, RIN_APPROVE, RIN_RUNNING, RIN_UNSTART, RIN_REQUEUE,
              RIN_FOREIGN, RIN_BLIND, RIN_N };
const char *rec_in_name(enum rec_in k);
int rec_in_parse(const char *s);

struct rec_row {
	int64_t seq;
	int64_t t_us, after_us;
	enum rec_in kind;
	int64_t job;                 /* -1 none; RIN_APPROVE: the tenant */
	int32_t node;                /* -1 none */
	int32_t attempt;
	int state, reason;           /* enum job_state / end_reason for RIN_END */
	char *data;                  /* submit: the job line; reading: its JSON (owned by the reader) */
	int64_t t1_us, t2_us;        /* engine times (see enum rec_in); <= 0 none */
};

int lstate_rec_add(struct lstate *st, const struct rec_row *r, char *err, size_t errlen);
/* Calls fn for every recorded row with seq > after_seq in order; fn's
 * non-zero return stops the walk and is returned. */
int lstate_rec_each(struct lstate *st, int64_t after_seq, int (*fn)(void *ctx, const struct rec_row *r),
                    void *ctx, char *err, size_t errlen);
/* As lstate_rec_each, this database's rows only (lstate_rec_each, in
 * retain.c, walks the archives of a pruned state first). */
int lstate_rec_each_db(struct lstate *st, int64_t after_seq, int (*fn)(void *ctx, const struct rec_row *r),
                       void *ctx, char *err, size_t errlen);

/* The last recorded row's seq (0 none, -1 on error). */
int64_t lstate_rec_last(struct lstate *st);

/* How many jobs the recording submits (-1 on error): the archives of a
 * pruned state included (retain.c); _db: this database's rows past
 * after_seq only. */
int64_t lstate_count_submits(struct lstate *st);
int64_t lstate_count_submits_db(struct lstate *st, int64_t after_seq);

int lstate_decision_add(struct lstate *st, int64_t t_us, const char *kind, int64_t job, int64_t node,
                        const char *detail, char *err, size_t errlen);
/* The decision log as lines "t_us kind job node detail", in order, for t_us
 * <= upto_us; *out malloc'd (NUL-separated count in *n), caller frees. */
int lstate_decisions(struct lstate *st, int64_t upto_us, char ***lines, int64_t *n, char *err, size_t errlen);
/* This database's decisions with seq > after_seq and t_us <= upto_us,
 * appended to *lines (*n of them, room for *cap). */
int lstate_decisions_db(struct lstate *st, int64_t after_seq, int64_t upto_us, char ***lines, int64_t *n,
                        int64_t *cap, char *err, size_t errlen);
/* The last decision's seq (0 none, -1 on error). */
int64_t lstate_decision_last(struct lstate *st);

struct lstate_job {
	int64_t id;
	const char *name, *cls, *state, *nodes, *reason, *ref, *spec;
	int64_t tenant, submit_us, start_us, end_us, attempt;
};
/* Writes job j's row; a NULL ref or spec keeps the row's (a restart's
 * daemon rewrites every job it holds without the ref of one whose
 * executor handle it no longer keeps in memory). */
int lstate_job_put(struct lstate *st, const struct lstate_job *j, char *err, size_t errlen);
/* `hetlab queue`: the jobs (unfinished ones unless all) as a table or JSON. */
int lstate_print_queue(struct lstate *st, FILE *out, bool all, bool json, char *err, size_t errlen);
/* The queue as user uid may see it: only the jobs and inbox rows that
 * user submitted (uid -1: everything), with each job's USER. Table mode
 * ends with the quarantined inbox rows (lstate_print_quarantine). */
int lstate_print_queue_for(struct lstate *st, FILE *out, bool all, bool json, int64_t uid, char *err, size_t errlen);
/* One line per quarantined inbox row (of uid; -1 all): "quarantined:
 * inbox row 17 (submit by alice), skipped: why". How many, or -1. */
int64_t lstate_print_quarantine(struct lstate *st, FILE *out, int64_t uid);
/* The ref of job id into out ("" when none). */
int lstate_job_ref(struct lstate *st, int64_t id, char *out, size_t len);

/* xref: every Slurm job a hetlab job used, with the hetlab attempt it
 * first ran as, written as soon as sbatch answers (outside the step's
 * transaction), so that a restart never loses one. */
struct lstate_xref {
	int64_t job, sid;
	int32_t attempt;
	bool open;
	bool replaced;               /* replaced by a new Slurm job: to be cancelled, then closed */
	const char *shape;           /* what it was submitted with (the executor's text) */
};
int lstate_xref_add(struct lstate *st, int64_t job, int32_t attempt, int64_t sid, const char *shape, char *err,
                    size_t errlen);
int lstate_xref_each(struct lstate *st, int (*fn)(void *ctx, const struct lstate_xref *x), void *ctx, char *err,
                     size_t errlen);
/* The highest Slurm id job used (its last), -1 for none. 0 or -1. */
int lstate_xref_last(struct lstate *st, int64_t job, int64_t *sid, char *err, size_t errlen);
/* The Slurm job was seen final: a restart need not ask about it again. */
int lstate_xref_close(struct lstate *st, int64_t job, int64_t sid, char *err, size_t errlen);
/* Marks the row of a Slurm job being replaced (open = 2), before its
 * cancel: a restart cancels it again, and closes it once it is cancelled. */
int lstate_xref_replaced(struct lstate *st, int64_t job, int64_t sid, char *err, size_t errlen);
/* foreign_hold: what jobs not hetlab's hold of a node (for `hetlab queue`);
 * all zero removes the node's row. */
int lstate_foreign_set(struct lstate *st, const char *node, int cores, int gpus, int64_t mem_mib, const char *what,
                       char *err, size_t errlen);

#endif
