/* audit_int — what the audit log's files share (audit.c writes,
 * audit_verify.c verifies, audit_prune.c prunes and exports): the
 * canonical serialisation of docs/audit.md ("The hashes, byte by byte"),
 * SHA-256, the head and anchor hashes and the file helpers (audit_util.c,
 * which calls none of the others), and the seals of the tables and the
 * writer's streams (audit_seal.c, above audit_util.c). Not a public
 * header: only analysis/audit*.c include it. */
#ifndef HL_AUDIT_INT_H
#define HL_AUDIT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <openssl/evp.h>
#include <sqlite3.h>

#include "analysis/audit.h"

struct audit_key;

/* The domain tags that open each hashed message (their NUL included). */
#define TAG_BLOCK "hetlab-audit-block-v2"
#define TAG_MARK "hetlab-audit-mark-v2"
#define TAG_SEAL "hetlab-audit-seal-v2"
#define TAG_ROW "hetlab-audit-row-v2"
#define TAG_SEALS "hetlab-audit-seals-v2"
#define TAG_SCHEMA "hetlab-audit-schema-v2"
#define TAG_HEAD "hetlab-audit-head-v2"
#define TAG_ANCHOR "hetlab-audit-anchor-v2"

/* A growing byte buffer for one serialisation; `oom` once a growth failed. */
struct abuf {
	unsigned char *p;
	size_t len, cap;
	bool oom;
};

void ab_free(struct abuf *b);
/* Makes room for n more bytes (sets oom when it cannot). */
void ab_grow(struct abuf *b, size_t n);

/* Inline: these run for every value of every row the recorder seals. Once
 * grown, a serialisation costs a compare and a copy per value. */
static inline void ab_put(struct abuf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		ab_grow(b, n);
		if (b->oom)
			return;
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

static inline void ab_tag(struct abuf *b, const char *tag)
{
	ab_put(b, tag, strlen(tag) + 1);
}

/* A type byte and 8 bytes big-endian. */
static inline void ab_u64(struct abuf *b, unsigned char type, uint64_t u)
{
	unsigned char o[9];
	o[0] = type;
	uint64_t be = __builtin_bswap64(u);
	memcpy(o + 1, &be, 8);
	ab_put(b, o, sizeof o);
}

static inline void ab_int(struct abuf *b, int64_t v)
{
	ab_u64(b, 'I', (uint64_t)v);
}

static inline void ab_null(struct abuf *b)
{
	ab_put(b, "N", 1);
}

/* As SQLite stores it: NaN becomes NULL, and -0.0 reads back as 0.0 (a REAL
 * column keeps an integral value as an integer). */
static inline void ab_real(struct abuf *b, double v)
{
	if (v != v) {
		ab_null(b);
		return;
	}
	uint64_t u = 0;
	if (v != 0)
		memcpy(&u, &v, sizeof u);
	ab_u64(b, 'R', u);
}

/* A type byte, a 4-byte big-endian length and the bytes. */
static inline void ab_bytes(struct abuf *b, unsigned char type, const void *p, size_t n)
{
	if (n > UINT32_MAX) {
		b->oom = true;
		return;
	}
	unsigned char o[5] = { type, (unsigned char)(n >> 24), (unsigned char)(n >> 16),
	                       (unsigned char)(n >> 8), (unsigned char)n };
	ab_put(b, o, sizeof o);
	ab_put(b, p, n);
}

static inline void ab_text(struct abuf *b, const char *p, size_t n)
{
	ab_bytes(b, 'T', p, n);
}

static inline void ab_blob(struct abuf *b, const void *p, size_t n)
{
	ab_bytes(b, 'B', p, n);
}

/* The bytes of src appended to b. */
void ab_append(struct abuf *b, const struct abuf *src);
/* Column i of a row, by its type. */
void ab_column(struct abuf *b, sqlite3_stmt *st, int i);

/* One record (an `event` row) as it is hashed. job and node < 0 are NULL;
 * state and detail may be NULL. */
struct arec {
	int64_t seq, t_us;
	const char *kind, *state, *detail;
	size_t kind_len, state_len, detail_len;
	int64_t job, node;
	bool job_null, node_null;
};
void ab_record(struct abuf *b, const struct arec *r);

/* SHA-256 of a serialisation (0, or -1 when it ran out of memory or OpenSSL
 * failed); frees it. */
int audit_digest_of(struct abuf *b, uint8_t out[32]);
/* SHA-256 of n bytes. 0 or -1 (OpenSSL failed). */
int audit_sha256(const void *p, size_t n, uint8_t out[32]);
/* The same with a context made by audit_md_new (EVP_MD_CTX_free frees it):
 * set to SHA-256 once and re-initialised per digest, which skips OpenSSL 3's
 * per-call algorithm fetch (for the digests taken once per row). */
EVP_MD_CTX *audit_md_new(void);
int audit_md_sha256(EVP_MD_CTX *md, const void *p, size_t n, uint8_t out[32]);
void audit_hex(const uint8_t *h, size_t n, char *out);   /* 2n + 1 bytes */

/* A mark's chain hash from the previous one's (zeros for the first). */
int audit_mark_hash(const uint8_t prev[32], int64_t seq, int64_t t_us, const uint8_t digest[32],
                    uint8_t out[32]);

/* One sealed part of a table: rows with rowid in [part * AUDIT_SEAL_ROWS,
 * (part + 1) * AUDIT_SEAL_ROWS); the schema is table "", part 0. */
struct seal_part {
	char tbl[64];
	int64_t part, rows;
	uint8_t digest[32];
};
struct seals {
	struct seal_part *p;
	size_t n, cap;
};
void seals_free(struct seals *s);
/* The rows of one part of a streamed table seen so far. */
struct part_acc {
	int64_t n;
	uint64_t present[AUDIT_SEAL_ROWS / 64];
	uint8_t dig[AUDIT_SEAL_ROWS][32];
};

/* A table sealed as its rows are written: each row's digest kept in its
 * part until the part is full (or the stream closes). */
struct audit_stream {
	char tbl[64];
	struct part_acc **parts;    /* by part number; NULL: none yet, or finished */
	int64_t nparts;
	struct seals done;          /* finished parts, in the order they finished */
};
void audit_stream_init(struct audit_stream *st, const char *tbl);
/* One row's digest. 0, or -1 with why (a negative or repeated rowid, memory). */
int audit_stream_add(struct audit_stream *st, int64_t rowid, const uint8_t digest[32], char *why,
                     size_t whylen);
/* Finishes the parts still open and sorts them. 0 or -1 (memory). */
int audit_stream_close(struct audit_stream *st);
void audit_stream_free(struct audit_stream *st);
/* A row's serialisation up to its values: the tag, the rowid, their number. */
void audit_row_start(struct abuf *b, int64_t rowid, int n);

/* Computes the seals of every table of db but `event` and the audit
 * tables, and of the schema, in (tbl, part) order: by reading the tables
 * back, but for those of `streams` (the writer's, already sealed as they
 * were written; NULL when verifying). 0, or -1 with err. */
int audit_seal_db(sqlite3 *db, const char *path, const struct audit_stream *streams, int nstreams,
                  struct seals *out, char *err, size_t errlen);
/* The digest of a list of seals (what the head holds). */
int audit_seals_digest(const struct seals *s, uint8_t out[32]);

/* The head's hash over its fields (key_id may be NULL). */
int audit_head_hash(int64_t seq, const uint8_t chain[32], const uint8_t seals[32], const char *level,
                    const char *key_id, uint8_t out[32]);
/* An anchor's hash over its fields and the head's hash. */
int audit_anchor_hash(int64_t id, int64_t seq, int64_t count, int64_t cut_us, const char *archive,
                      const char *created, const uint8_t prev[32], const uint8_t head[32],
                      uint8_t out[32]);

/* The head row as stored. */
struct ahead {
	int64_t seq;
	uint8_t chain[32], seals[32], hash[32];
	char level[16];
	char key_id[AUDIT_KEY_ID_LEN];
	bool keyed;
	uint8_t mac[64];
	size_t maclen;
};
/* Reads audit_head: 1 when it holds exactly one well-typed row, 0 when not
 * (why in `bad`), -1 on a read error (err). */
int audit_head_read(sqlite3 *db, const char *path, struct ahead *h, char *bad, size_t badlen,
                    char *err, size_t errlen);

/* audit_verify_with on an open database (prune verifies inside its transaction). */
int audit_verify_db(sqlite3 *db, const char *path, const struct audit_verify_opts *o,
                    struct audit_verdict *v, char *err, size_t errlen);

int audit_failf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int audit_db_open(const char *path, bool write, sqlite3 **db, char *err, size_t errlen);
/* 0 when db has the audit tables of this version; -1 with err naming what
 * is missing (a file of schema 1 gets its own message). */
int audit_check_tables(sqlite3 *db, const char *path, char *err, size_t errlen);
const char *audit_type_name(int sqlite_type);
void audit_utc_now(char *buf, size_t len);

#endif
