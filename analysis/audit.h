/* audit — the tamper-evident audit log of a results file.
 *
 * The `event` table (docs/results.md) is the log: one row per decision or
 * state change the engine reports. Its rows are hashed in blocks of
 * AUDIT_BLOCK records (SHA-256, OpenSSL's EVP API, over a canonical,
 * typed and length-prefixed serialisation of each row's seq, t_us, kind,
 * job, node, state and detail); each block's digest is chained into one
 * `audit_mark` row (the hash of the mark before, the block's last seq and
 * time, its digest), so that editing, deleting, inserting or reordering
 * records breaks the chain at that block, and a gap in seq is found at the
 * missing record. At the end of the run every other table a report, a bill
 * or a plot reads (`run`, `job`, `node`, `rack`, `sample`, `rack_sample`,
 * `meta`, `billing`, and the schema itself) is sealed: a digest per part of
 * AUDIT_SEAL_ROWS rows in `audit_seal`. `audit_head` binds the last mark,
 * the seals, the record count and the recording level into one hash — and,
 * in keyed mode, an HMAC-SHA256 or an Ed25519 signature of it
 * (analysis/auditkey.h), which a writer without the key cannot make. The
 * `audit` view gives each record's actor and subject. docs/audit.md gives
 * the tables, the serialisation byte by byte and the actor mapping.
 *
 * Writing: the recorder owns one struct audit_writer per results file;
 * audit_writer_record() adds one record (nothing is allocated per record,
 * one mark row per block), audit_writer_finish() seals the tables and writes
 * the head, inside the recorder's transaction.
 *
 * Tools, on a finished results file: audit_verify() checks everything above
 * (from the first record, from the anchor that pruning leaves, or across
 * archives and the database as one chain); audit_prune() moves the records
 * older than a retention period (at least AUDIT_MIN_RETENTION_DAYS, in
 * simulated time) to a gzip JSON Lines archive and seals an `audit_anchor`
 * row; audit_export() writes the records as JSON Lines.
 *
 * Ownership: the writer borrows the recorder's sqlite3 handle (which must
 * outlive it) and owns its statement and buffers; audit_writer_free()
 * releases them. Keys are borrowed. The tools open and close their own
 * files. Errors: 0, or -1 with a message in err (or audit_writer_error)
 * that names the file. */
#ifndef HL_AUDIT_H
#define HL_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/auditkey.h"

#define AUDIT_HASH_HEX 64               /* a SHA-256 as lower-case hex */
#define AUDIT_BLOCK 64                  /* records per block (one audit_mark row) */
#define AUDIT_SEAL_ROWS 256             /* rows per sealed part of a table */
#define AUDIT_MIN_RETENTION_DAYS 183    /* about six months: prune never keeps less */
#define AUDIT_DEFAULT_RETENTION_DAYS 190
#define AUDIT_DETAIL_MAX 256            /* a longer detail is cut (at a UTF-8 boundary) */
#define AUDIT_KEY_ID_LEN AUDIT_KEY_ID_MAX
#define AUDIT_LINE_MAX 65536            /* an archive line longer than this is refused */
#define AUDIT_STREAMS 4                 /* tables the writer seals as they are written */

struct sqlite3;
struct sqlbatch_buf;
struct sqlbatch_val;

/* ---- writing (the recorder) ------------------------------------------------ */

struct audit_writer;

/* Creates the audit tables and the `audit` view in db (whose `run`, `job`,
 * `node` and `event` tables exist) and prepares the mark insert. NULL with
 * a message in err on failure. */
struct audit_writer *audit_writer_new(struct sqlite3 *db, char *err, size_t errlen);
/* One record, as the recorder wrote it to `event` (seq: the previous + 1;
 * job, node < 0: NULL; state, detail: may be NULL, detail_len bytes of it).
 * 0 or -1. */
int audit_writer_record(struct audit_writer *w, int64_t seq, int64_t t_us, const char *kind,
                        int32_t job, int32_t node, const char *state, const char *detail,
                        size_t detail_len);
/* Seals table tbl from the rows given to audit_writer_row as they are
 * written, instead of reading it back at the end (for the big tables).
 * A stream number, or -1. */
int audit_writer_stream(struct audit_writer *w, const char *tbl);
/* One row of a streamed table: its rowid (>= 0) and its ncol values as they
 * are bound (analysis/sqlbatch.h: v in buffer b), in the table's column
 * order. 0 or -1. */
int audit_writer_row(struct audit_writer *w, int stream, int64_t rowid, const struct sqlbatch_buf *b,
                     const struct sqlbatch_val *v, int ncol);
/* Closes the last block, seals the tables (call it last, when every row is
 * written), and writes the head: authenticated by key when it is not NULL.
 * The head's hash goes to head_hex (AUDIT_HASH_HEX + 1 bytes) when it is not
 * NULL. 0 or -1. */
int audit_writer_finish(struct audit_writer *w, const char *level, const struct audit_key *key,
                        char *head_hex);
/* The first error, or NULL. */
const char *audit_writer_error(const struct audit_writer *w);
/* Finalizes the statement and frees the buffers. NULL is a no-op. */
void audit_writer_free(struct audit_writer *w);
/* The bytes of detail that are kept: at most AUDIT_DETAIL_MAX, cut back to
 * a UTF-8 character boundary. */
size_t audit_detail_len(const char *detail);

/* ---- verifying -------------------------------------------------------------- */

enum audit_break {
	AUDIT_OK,
	AUDIT_GAP,             /* a seq is missing, repeated or out of order */
	AUDIT_PREV_MISMATCH,   /* a mark does not follow from the marks before it */
	AUDIT_HASH_MISMATCH,   /* a block's records do not hash to its mark */
	AUDIT_BAD_FIELD,       /* a field has the wrong type (or is missing, in an archive) */
	AUDIT_BAD_HEAD,        /* the head is altered, or disagrees with the chain, the run row or --expect-head */
	AUDIT_BAD_ANCHOR,      /* an audit_anchor row is altered, or disagrees with the chain */
	AUDIT_BAD_SEAL,        /* a sealed table differs from what the run wrote */
	AUDIT_BAD_KEY,         /* the head or an anchor is not authenticated by the key given */
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
	int32_t from_anchor;   /* the anchor id the chain starts from; 0: from the first record */
	int32_t nmarks;        /* audit_mark rows (blocks) */
	int32_t ntables;       /* tables sealed (the schema not counted) */
	int64_t sealed_rows;   /* rows in them */
	char level[16];        /* the recording level the head names */
	char key_id[AUDIT_KEY_ID_LEN];   /* the key that authenticates the head; "" when unkeyed */
	bool key_checked;      /* the head and anchors were checked against a key given */
	char head[AUDIT_HASH_HEX + 1];   /* the head's hash */
};

struct audit_verify_opts {
	const char *const *archives;   /* JSON Lines (plain or gzip), in chain order */
	int narchives;
	const struct audit_key *key;   /* NULL: the MACs are not checked */
	const char *expect_head;       /* NULL, or the head's hash as hex, kept elsewhere */
};

/* Verifies db_path (with the archives of o, if any, before it). Returns 0
 * with *v filled (v->what == AUDIT_OK when everything holds), or -1 with err
 * when the files cannot be read at all. */
int audit_verify_with(const char *db_path, const struct audit_verify_opts *o,
                      struct audit_verdict *v, char *err, size_t errlen);
/* audit_verify_with without a key or an expected head. */
int audit_verify(const char *db_path, const char *const *archives, int narchives,
                 struct audit_verdict *v, char *err, size_t errlen);

/* ---- retention -------------------------------------------------------------- */

struct audit_prune_opts {
	double days;           /* keep the records of the last `days` days (>= AUDIT_MIN_RETENTION_DAYS) */
	const char *archive;   /* NULL: RUN-audit-FIRST-LAST.jsonl.gz beside the database */
	const struct audit_key *key;   /* required when the head is keyed: it authenticates the anchor */
};

struct audit_prune_result {
	int64_t count;                 /* records pruned; 0: none was old enough */
	int64_t first_seq, last_seq;
	int64_t newest_us, cut_us;     /* the newest record's time; records before cut_us went */
	int32_t anchor_id;
	char archive[4096];
	char hash[AUDIT_HASH_HEX + 1]; /* the anchor's hash */
};

/* Verifies the file, archives the longest prefix of whole blocks older than
 * o->days before the newest record (simulated time), deletes those records
 * and seals an audit_anchor row, in one transaction. Refuses a retention
 * under AUDIT_MIN_RETENTION_DAYS, a broken chain, a keyed file without its
 * key and an existing archive file. 0 or -1. */
int audit_prune(const char *db_path, const struct audit_prune_opts *o,
                struct audit_prune_result *res, char *err, size_t errlen);

/* ---- export ----------------------------------------------------------------- */

/* Writes the records of db_path as JSON Lines (the event columns, with the
 * actor and subject of the `audit` view) to out_path (atomically; gzip when
 * the name ends in .gz) or to stdout when out_path is NULL. The number
 * written goes to *count. 0 or -1. */
int audit_export(const char *db_path, const char *out_path, int64_t *count, char *err,
                 size_t errlen);

#endif
