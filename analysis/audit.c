/* audit — the writer of the audit log: the audit tables and the actor
 * view it creates, the hash chain of the `event` table as its records are
 * written, the streams that seal the big tables as their rows are written,
 * and the head it signs at the end. The serialisation and hashes it shares
 * with the verifier and the pruner are in audit_util.c, the seals in
 * audit_seal.c. See audit.h; docs/audit.md documents the tables, the
 * serialisation and the actor mapping: keep them in step. */
#include "analysis/audit.h"
#include "analysis/audit_int.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <sqlite3.h>

#include "analysis/sqlbatch.h"

static const char schema_sql[] =
	"CREATE TABLE audit_mark("
	" seq INTEGER PRIMARY KEY, t_us INTEGER NOT NULL, digest BLOB NOT NULL, hash BLOB NOT NULL);\n"
	"CREATE TABLE audit_seal("
	" tbl TEXT NOT NULL, part INTEGER NOT NULL, rows INTEGER NOT NULL, digest BLOB NOT NULL,"
	" PRIMARY KEY (tbl, part));\n"
	"CREATE TABLE audit_head("
	" seq INTEGER NOT NULL, chain BLOB NOT NULL, seals BLOB NOT NULL, level TEXT NOT NULL,"
	" key TEXT, hash BLOB NOT NULL, mac BLOB);\n"
	"CREATE TABLE audit_anchor("
	" id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, count INTEGER NOT NULL, cut_us INTEGER NOT NULL,"
	" archive TEXT NOT NULL, created TEXT NOT NULL, prev_anchor BLOB NOT NULL,"
	" anchor_hash BLOB NOT NULL, mac BLOB);\n"
	/* Who did what to what: the actor rules of docs/audit.md ("Actors"). */
	"CREATE VIEW audit(seq, t_us, actor, action, subject, reason) AS SELECT e.seq, e.t_us,"
	" CASE"
	"  WHEN e.kind IN ('start', 'hold', 'preempt') THEN coalesce((SELECT policy FROM run), 'policy')"
	"  WHEN e.kind = 'release' THEN CASE e.detail WHEN 'approved' THEN 'operator'"
	"   WHEN 'released' THEN coalesce((SELECT policy FROM run), 'policy') ELSE 'engine' END"
	"  WHEN e.kind = 'drain' THEN CASE WHEN substr(e.detail, 1, 5) = 'leave' THEN 'operator'"
	"   ELSE 'health' END"
	"  WHEN e.kind = 'resume' THEN 'health'"
	"  WHEN e.kind IN ('join', 'leave') THEN 'operator'"
	"  WHEN e.kind IN ('submit', 'end', 'requeue', 'fault', 'repair') THEN 'engine'"
	"  WHEN substr(e.detail, 1, 6) = 'health' THEN 'health'"
	"  ELSE 'engine' END,"
	" e.kind,"
	" CASE WHEN e.job IS NOT NULL THEN 'job ' || coalesce(j.trace_id, '#' || e.job)"
	"  WHEN e.node IS NOT NULL THEN 'node ' || coalesce(n.name, '#' || e.node)"
	"  ELSE 'cluster' END,"
	" e.detail"
	" FROM event e LEFT JOIN job j ON j.id = e.job LEFT JOIN node n ON n.id = e.node;\n";

static const char mark_sql[] = "INSERT INTO audit_mark(seq, t_us, digest, hash) VALUES(?,?,?,?)";

/* ---- writing ------------------------------------------------------------- */

struct audit_writer {
	sqlite3 *db;
	sqlite3_stmt *st_mark;
	EVP_MD_CTX *md;
	struct abuf block;        /* the current block's records, serialised */
	int64_t seq;              /* the last record's */
	int64_t first;            /* the current block's first seq */
	int n;                    /* records in the current block */
	int64_t max_t;            /* the latest time of any record so far */
	uint8_t prev[32];         /* the last mark's hash (zeros before the first) */
	struct audit_stream streams[AUDIT_STREAMS];
	int nstreams;
	struct abuf row;          /* scratch: one streamed row */
	bool failed;
	char err[512];
};

static int w_failf(struct audit_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int w_failf(struct audit_writer *w, const char *fmt, ...)
{
	if (!w->failed) {
		w->failed = true;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(w->err, sizeof w->err, fmt, ap);
		va_end(ap);
	}
	return -1;
}

struct audit_writer *audit_writer_new(struct sqlite3 *db, char *err, size_t errlen)
{
	struct audit_writer *w = calloc(1, sizeof *w);
	if (!w) {
		audit_failf(err, errlen, "audit log: out of memory");
		return NULL;
	}
	w->db = db;
	if (!(w->md = audit_md_new())) {
		audit_failf(err, errlen, "audit log: cannot set up SHA-256 (OpenSSL EVP)");
		goto fail;
	}
	if (sqlite3_exec(db, schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v3(db, mark_sql, -1, SQLITE_PREPARE_PERSISTENT, &w->st_mark, NULL) != SQLITE_OK) {
		audit_failf(err, errlen, "creating the audit tables: %s", sqlite3_errmsg(db));
		goto fail;
	}
	return w;

fail:
	audit_writer_free(w);
	return NULL;
}

void audit_writer_free(struct audit_writer *w)
{
	if (!w)
		return;
	sqlite3_finalize(w->st_mark);
	EVP_MD_CTX_free(w->md);
	ab_free(&w->block);
	ab_free(&w->row);
	for (int i = 0; i < w->nstreams; i++)
		audit_stream_free(&w->streams[i]);
	free(w);
}

const char *audit_writer_error(const struct audit_writer *w)
{
	return w->failed ? w->err : NULL;
}

size_t audit_detail_len(const char *s)
{
	size_t n = strnlen(s, AUDIT_DETAIL_MAX + 1);
	if (n <= AUDIT_DETAIL_MAX)
		return n;
	n = AUDIT_DETAIL_MAX;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

/* The block's digest: SHA-256 of the tag, its first seq, its count and its
 * records (one EVP context, re-initialised per block). */
static int block_digest(struct audit_writer *w, uint8_t out[32])
{
	struct abuf h = { 0 };
	ab_tag(&h, TAG_BLOCK);
	ab_int(&h, w->first);
	ab_int(&h, w->n);
	unsigned int len = 0;
	int ok = !h.oom && !w->block.oom &&
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
	         EVP_DigestInit_ex2(w->md, NULL, NULL) == 1 &&
#else
	         EVP_DigestInit_ex(w->md, EVP_sha256(), NULL) == 1 &&
#endif
	         EVP_DigestUpdate(w->md, h.p, h.len) == 1 &&
	         EVP_DigestUpdate(w->md, w->block.p, w->block.len) == 1 &&
	         EVP_DigestFinal_ex(w->md, out, &len) == 1 && len == 32;
	ab_free(&h);
	return ok ? 0 : -1;
}

static int close_block(struct audit_writer *w)
{
	if (w->n == 0)
		return 0;
	uint8_t digest[32], hash[32];
	if (block_digest(w, digest) < 0 || audit_mark_hash(w->prev, w->seq, w->max_t, digest, hash) < 0)
		return w_failf(w, "audit block %" PRId64 "..%" PRId64 ": SHA-256 failed (OpenSSL EVP,"
		               " or out of memory)", w->first, w->seq);
	sqlite3_stmt *st = w->st_mark;
	sqlite3_bind_int64(st, 1, w->seq);
	sqlite3_bind_int64(st, 2, w->max_t);
	sqlite3_bind_blob(st, 3, digest, 32, SQLITE_STATIC);
	sqlite3_bind_blob(st, 4, hash, 32, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return w_failf(w, "writing audit mark %" PRId64 ": %s", w->seq, sqlite3_errmsg(w->db));
	memcpy(w->prev, hash, 32);
	w->n = 0;
	w->block.len = 0;
	return 0;
}

int audit_writer_record(struct audit_writer *w, int64_t seq, int64_t t_us, const char *kind,
                        int32_t job, int32_t node, const char *state, const char *detail,
                        size_t detail_len)
{
	if (w->failed)
		return -1;
	if (seq != w->seq + 1)
		return w_failf(w, "audit record %" PRId64 " follows record %" PRId64 ": records are"
		               " numbered 1, 2, 3, ...", seq, w->seq);
	if (w->n == 0)
		w->first = seq;
	struct arec r = {
		.seq = seq, .t_us = t_us, .kind = kind, .kind_len = strlen(kind),
		.job = job, .job_null = job < 0, .node = node, .node_null = node < 0,
		.state = state, .state_len = state ? strlen(state) : 0,
		.detail = detail, .detail_len = detail ? detail_len : 0,
	};
	ab_record(&w->block, &r);
	w->seq = seq;
	w->n++;
	if (seq == 1 || t_us > w->max_t)
		w->max_t = t_us;
	return w->n == AUDIT_BLOCK ? close_block(w) : 0;
}

int audit_writer_stream(struct audit_writer *w, const char *tbl)
{
	if (w->nstreams == AUDIT_STREAMS || strlen(tbl) >= sizeof w->streams[0].tbl)
		return w_failf(w, "audit log: cannot seal table %s as it is written", tbl);
	audit_stream_init(&w->streams[w->nstreams], tbl);
	return w->nstreams++;
}

/* One value as ab_column serialises what SQLite gives back for it. */
static void ab_val(struct abuf *a, const struct sqlbatch_buf *b, const struct sqlbatch_val *v)
{
	switch (v->type) {
	case SB_INT:
		ab_int(a, v->u.i);
		break;
	case SB_REAL:
		ab_real(a, v->u.d);
		break;
	case SB_TEXT:
		ab_text(a, b->text + v->u.t.off, v->u.t.len);
		break;
	case SB_STATIC:
		ab_text(a, v->u.s, strlen(v->u.s));
		break;
	default:
		ab_null(a);
	}
}

int audit_writer_row(struct audit_writer *w, int stream, int64_t rowid, const struct sqlbatch_buf *b,
                     const struct sqlbatch_val *v, int ncol)
{
	if (w->failed)
		return -1;
	assert(stream >= 0 && stream < w->nstreams);
	struct audit_stream *st = &w->streams[stream];
	if (rowid < 0)
		return w_failf(w, "table %s: row %" PRId64 ": a negative rowid cannot be sealed", st->tbl, rowid);
	audit_row_start(&w->row, rowid, ncol);
	for (int i = 0; i < ncol; i++)
		ab_val(&w->row, b, &v[i]);
	uint8_t d[32];
	if (w->row.oom || audit_md_sha256(w->md, w->row.p, w->row.len, d) < 0)
		return w_failf(w, "table %s: row %" PRId64 ": SHA-256 failed", st->tbl, rowid);
	char why[128];
	if (audit_stream_add(st, rowid, d, why, sizeof why) < 0)
		return w_failf(w, "table %s: row %" PRId64 ": %s", st->tbl, rowid, why);
	return 0;
}

int audit_writer_finish(struct audit_writer *w, const char *level, const struct audit_key *key,
                        char *head_hex)
{
	if (w->failed || close_block(w) < 0)
		return -1;
	for (int i = 0; i < w->nstreams; i++)
		if (audit_stream_close(&w->streams[i]) < 0)
			return w_failf(w, "table %s: out of memory", w->streams[i].tbl);
	struct seals s;
	uint8_t seals[32], head[32], mac[AUDIT_MAC_MAX];
	size_t maclen = 0;
	char err[512];
	if (audit_seal_db(w->db, "the results file", w->streams, w->nstreams, &s, err, sizeof err) < 0)
		return w_failf(w, "%s", err);
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(w->db, "INSERT INTO audit_seal(tbl, part, rows, digest) VALUES(?,?,?,?)",
	                       -1, &st, NULL) != SQLITE_OK) {
		w_failf(w, "sealing the tables: %s", sqlite3_errmsg(w->db));
		goto out;
	}
	for (size_t i = 0; i < s.n; i++) {
		sqlite3_bind_text(st, 1, s.p[i].tbl, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, s.p[i].part);
		sqlite3_bind_int64(st, 3, s.p[i].rows);
		sqlite3_bind_blob(st, 4, s.p[i].digest, 32, SQLITE_STATIC);
		int r = sqlite3_step(st);
		sqlite3_reset(st);
		if (r != SQLITE_DONE) {
			w_failf(w, "sealing the tables: %s", sqlite3_errmsg(w->db));
			goto out;
		}
	}
	sqlite3_finalize(st);
	st = NULL;
	const char *kid = key ? audit_key_id(key) : NULL;
	if (audit_seals_digest(&s, seals) < 0 || audit_head_hash(w->seq, w->prev, seals, level, kid, head) < 0) {
		w_failf(w, "sealing the audit head: SHA-256 failed (OpenSSL EVP)");
		goto out;
	}
	if (key && audit_key_sign(key, head, mac, &maclen) < 0) {
		w_failf(w, "authenticating the audit head with %s: OpenSSL failed", kid);
		goto out;
	}
	if (sqlite3_prepare_v2(w->db, "INSERT INTO audit_head(seq, chain, seals, level, key, hash, mac)"
	                       " VALUES(?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK) {
		w_failf(w, "sealing the audit head: %s", sqlite3_errmsg(w->db));
		goto out;
	}
	sqlite3_bind_int64(st, 1, w->seq);
	sqlite3_bind_blob(st, 2, w->prev, 32, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, seals, 32, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, level, -1, SQLITE_STATIC);
	if (kid) {
		sqlite3_bind_text(st, 5, kid, -1, SQLITE_STATIC);
		sqlite3_bind_blob(st, 7, mac, (int)maclen, SQLITE_STATIC);
	}
	sqlite3_bind_blob(st, 6, head, 32, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		w_failf(w, "sealing the audit head: %s", sqlite3_errmsg(w->db));
		goto out;
	}
	if (head_hex)
		audit_hex(head, 32, head_hex);
	rc = 0;
out:
	sqlite3_finalize(st);
	seals_free(&s);
	return rc;
}
