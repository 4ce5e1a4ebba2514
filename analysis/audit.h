/* audit — the tamper-evident audit log of a results file.
 *
 * Every decision and state change the engine reports (all but monitoring
 * `sample` marks) becomes one row of the `audit` table: who (actor) did what
 * (action) to what (subject), why (reason), and when (t_us, simulated). The
 * rows form a hash chain: each row's `hash` is SHA-256 (OpenSSL's EVP API)
 * over a canonical, length-prefixed serialisation of its seq, t_us, actor,
 * action, subject, reason and prev_hash, and its `prev_hash` is the previous
 * row's `hash` (64 zeros for the first). Editing, deleting, reordering or
 * inserting a row therefore breaks the chain at that row; `audit_head` seals
 * the last row so that a cut or an appended tail shows too. docs/audit.md
 * gives the tables, the serialisation byte by byte and the actor mapping.
 *
 * Writing: the recorder owns one struct audit_writer per results file.
 * audit_writer_new() creates the tables inside the recorder's transaction and
 * prepares the one INSERT; audit_writer_event() maps one engine event to a
 * record, hashes it (one EVP_MD_CTX, reused) and inserts it;
 * audit_writer_finish() writes the head. Nothing is allocated per record.
 *
 * Tools, on a finished results file: audit_verify() recomputes the chain
 * (from the first record, or from the sealed anchor that pruning leaves, or
 * across archives and the database as one chain); audit_prune() moves the
 * records older than a retention period (at least AUDIT_MIN_RETENTION_DAYS,
 * in simulated time) to a gzip JSON Lines archive and seals an
 * `audit_anchor` row; audit_export() writes the records as JSON Lines.
 *
 * Ownership: the writer borrows the recorder's sqlite3 handle (which must
 * outlive it) and owns its statement and digest context; audit_writer_free()
 * releases them. The tools open and close their own files. Errors: 0, or -1
 * with a message in err (or audit_writer_error) that names the file. */
#ifndef HL_AUDIT_H
#define HL_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/engine.h"

#define AUDIT_HASH_HEX 64               /* a SHA-256 as lower-case hex */
#define AUDIT_MIN_RETENTION_DAYS 183    /* about six months: prune never keeps less */
#define AUDIT_DEFAULT_RETENTION_DAYS 190
#define AUDIT_REASON_MAX 256            /* a longer reason is cut (at a UTF-8 boundary) */

struct sqlite3;

/* ---- writing (the recorder) ------------------------------------------------ */

struct audit_writer;

/* Creates `audit`, `audit_anchor` and `audit_head` in db and prepares the
 * insert. NULL with a message in err on failure. */
struct audit_writer *audit_writer_new(struct sqlite3 *db, char *err, size_t errlen);
/* One engine event (the recorder's event hook): skips REC_SAMPLE_MARK, maps
 * the rest to actor, action, subject and reason with s (which may be NULL:
 * subjects then name internal ids), chains and inserts it. 0 or -1. */
int audit_writer_event(struct audit_writer *w, const struct sim *s, simtime t, enum rec_kind kind,
                       int32_t job, int32_t node, const char *detail);
/* Appends one record as given (reason may be NULL). 0 or -1. */
int audit_writer_append(struct audit_writer *w, simtime t, const char *actor, const char *action,
                        const char *subject, const char *reason);
/* Seals the head (the last seq and hash) into `audit_head`. 0 or -1. */
int audit_writer_finish(struct audit_writer *w);
/* Records written so far. */
int64_t audit_writer_count(const struct audit_writer *w);
/* The first error, or NULL. */
const char *audit_writer_error(const struct audit_writer *w);
/* Finalizes the statement and frees the digest context. NULL is a no-op. */
void audit_writer_free(struct audit_writer *w);

/* ---- the hash --------------------------------------------------------------- */

/* One record's fields as C strings; reason may be NULL. */
struct audit_rec {
	int64_t seq, t_us;
	const char *actor, *action, *subject, *reason;
	const char *prev_hash;
};

/* rec's hash as lower-case hex into out (AUDIT_HASH_HEX + 1 bytes). 0 or -1
 * (OpenSSL failed). */
int audit_hash(const struct audit_rec *rec, char *out);

/* ---- verifying -------------------------------------------------------------- */

enum audit_break {
	AUDIT_OK,
	AUDIT_GAP,             /* a seq is missing, repeated or out of order */
	AUDIT_PREV_MISMATCH,   /* prev_hash is not the previous record's hash */
	AUDIT_HASH_MISMATCH,   /* hash is not SHA-256 of the record's fields */
	AUDIT_BAD_FIELD,       /* a field has the wrong type (or is missing, in an archive) */
	AUDIT_BAD_HEAD,        /* the chain does not end where audit_head sealed it */
	AUDIT_BAD_ANCHOR,      /* an audit_anchor row is altered, or disagrees with the chain */
};
const char *audit_break_name(enum audit_break b);

struct audit_verdict {
	enum audit_break what;
	int64_t seq;           /* the first broken record (for AUDIT_BAD_ANCHOR: the anchor's seq) */
	char source[512];      /* where it is: the database, or "ARCHIVE line N" */
	char detail[512];      /* what is wrong, in words */
	int64_t count;         /* records checked, archives included */
	int64_t narchived;     /* of which read from archives */
	int64_t first_seq, last_seq;   /* the chain checked (0 when empty) */
	int32_t nanchors;      /* audit_anchor rows, all checked */
	int32_t from_anchor;   /* the anchor id the chain starts from; 0: from the zero hash */
	char head[AUDIT_HASH_HEX + 1];   /* hash of the last record */
};

/* Recomputes the chain of db_path, after the records of the narchives
 * archives (JSON Lines, plain or gzip, in chain order) when there are any.
 * Returns 0 with *v filled (v->what == AUDIT_OK when the chain holds), or -1
 * with err when the files cannot be read at all. */
int audit_verify(const char *db_path, const char *const *archives, int narchives,
                 struct audit_verdict *v, char *err, size_t errlen);

/* ---- retention -------------------------------------------------------------- */

struct audit_prune_opts {
	double days;           /* keep the records of the last `days` days (>= AUDIT_MIN_RETENTION_DAYS) */
	const char *archive;   /* NULL: RUN-audit-FIRST-LAST.jsonl.gz beside the database */
};

struct audit_prune_result {
	int64_t count;                 /* records pruned; 0: none was old enough */
	int64_t first_seq, last_seq;
	simtime newest_us, cut_us;     /* the newest record's time; records before cut_us went */
	int32_t anchor_id;
	char archive[4096];
	char hash[AUDIT_HASH_HEX + 1]; /* the last pruned record's hash (the anchor's) */
};

/* Verifies the chain, archives the records older than o->days before the
 * newest record (simulated time), deletes them and seals an audit_anchor row,
 * in one transaction. Refuses a retention under AUDIT_MIN_RETENTION_DAYS, a
 * broken chain and an existing archive file. 0 or -1. */
int audit_prune(const char *db_path, const struct audit_prune_opts *o,
                struct audit_prune_result *res, char *err, size_t errlen);

/* ---- export ----------------------------------------------------------------- */

/* Writes the records of db_path as JSON Lines to out_path (atomically; gzip
 * when the name ends in .gz) or to stdout when out_path is NULL. The number
 * written goes to *count. 0 or -1. */
int audit_export(const char *db_path, const char *out_path, int64_t *count, char *err,
                 size_t errlen);

#endif
