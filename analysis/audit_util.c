/* audit_util — the base the audit log's files share (audit.c writes,
 * audit_seal.c seals, audit_verify.c verifies, audit_prune.c prunes): the
 * canonical serialisation of docs/audit.md ("The hashes, byte by byte"),
 * SHA-256, the mark, head and anchor hashes, reading the head row, and
 * opening a results file and checking its audit tables. Declared in
 * audit_int.h; it calls none of the other audit files. */
#include "analysis/audit.h"
#include "analysis/audit_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <sqlite3.h>

int audit_failf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- the serialisation ---------------------------------------------------- */

void ab_grow(struct abuf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n)
		cap *= 2;
	unsigned char *q = b->oom ? NULL : realloc(b->p, cap);
	if (!q) {
		b->oom = true;
		return;
	}
	b->p = q;
	b->cap = cap;
}

void ab_free(struct abuf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

void ab_append(struct abuf *b, const struct abuf *src)
{
	if (src->oom)
		b->oom = true;
	else
		ab_put(b, src->p, src->len);
}

void ab_column(struct abuf *b, sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		ab_int(b, sqlite3_column_int64(st, i));
		break;
	case SQLITE_FLOAT:
		ab_real(b, sqlite3_column_double(st, i));
		break;
	case SQLITE_TEXT: {
		const char *p = (const char *)sqlite3_column_text(st, i);
		ab_text(b, p, (size_t)sqlite3_column_bytes(st, i));
		break;
	}
	case SQLITE_BLOB: {
		const void *p = sqlite3_column_blob(st, i);
		ab_blob(b, p, (size_t)sqlite3_column_bytes(st, i));
		break;
	}
	default:
		ab_null(b);
	}
}

void ab_record(struct abuf *b, const struct arec *r)
{
	ab_int(b, r->seq);
	ab_int(b, r->t_us);
	ab_text(b, r->kind, r->kind_len);
	if (r->job_null)
		ab_null(b);
	else
		ab_int(b, r->job);
	if (r->node_null)
		ab_null(b);
	else
		ab_int(b, r->node);
	if (r->state)
		ab_text(b, r->state, r->state_len);
	else
		ab_null(b);
	if (r->detail)
		ab_text(b, r->detail, r->detail_len);
	else
		ab_null(b);
}

int audit_sha256(const void *p, size_t n, uint8_t out[32])
{
	unsigned int len = 0;
	return EVP_Digest(p, n, out, &len, EVP_sha256(), NULL) == 1 && len == 32 ? 0 : -1;
}

EVP_MD_CTX *audit_md_new(void)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	if (md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(md);
		md = NULL;
	}
	return md;
}

int audit_md_sha256(EVP_MD_CTX *md, const void *p, size_t n, uint8_t out[32])
{
	unsigned int len = 0;
	return
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
	        EVP_DigestInit_ex2(md, NULL, NULL) == 1 &&
#else
	        EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1 &&
#endif
	        EVP_DigestUpdate(md, p, n) == 1 && EVP_DigestFinal_ex(md, out, &len) == 1 && len == 32
	        ? 0 : -1;
}

void audit_hex(const uint8_t *h, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[h[i] >> 4];
		out[2 * i + 1] = digits[h[i] & 15];
	}
	out[2 * n] = '\0';
}

/* SHA-256 of a small serialisation built by the caller; frees it. */
int audit_digest_of(struct abuf *b, uint8_t out[32])
{
	int rc = b->oom ? -1 : audit_sha256(b->p, b->len, out);
	ab_free(b);
	return rc;
}

int audit_mark_hash(const uint8_t prev[32], int64_t seq, int64_t t_us, const uint8_t digest[32],
                    uint8_t out[32])
{
	struct abuf b = { 0 };
	ab_tag(&b, TAG_MARK);
	ab_blob(&b, prev, 32);
	ab_int(&b, seq);
	ab_int(&b, t_us);
	ab_blob(&b, digest, 32);
	return audit_digest_of(&b, out);
}

int audit_head_hash(int64_t seq, const uint8_t chain[32], const uint8_t seals[32], const char *level,
                    const char *key_id, uint8_t out[32])
{
	struct abuf b = { 0 };
	ab_tag(&b, TAG_HEAD);
	ab_int(&b, seq);
	ab_blob(&b, chain, 32);
	ab_blob(&b, seals, 32);
	ab_text(&b, level, strlen(level));
	if (key_id)
		ab_text(&b, key_id, strlen(key_id));
	else
		ab_null(&b);
	return audit_digest_of(&b, out);
}

int audit_anchor_hash(int64_t id, int64_t seq, int64_t count, int64_t cut_us, const char *archive,
                      const char *created, const uint8_t prev[32], const uint8_t head[32],
                      uint8_t out[32])
{
	struct abuf b = { 0 };
	ab_tag(&b, TAG_ANCHOR);
	ab_int(&b, id);
	ab_int(&b, seq);
	ab_int(&b, count);
	ab_int(&b, cut_us);
	ab_text(&b, archive, strlen(archive));
	ab_text(&b, created, strlen(created));
	ab_blob(&b, prev, 32);
	ab_blob(&b, head, 32);
	return audit_digest_of(&b, out);
}

/* ---- the head and the files ------------------------------------------------- */

const char *audit_type_name(int t)
{
	switch (t) {
	case SQLITE_INTEGER: return "INTEGER";
	case SQLITE_FLOAT: return "REAL";
	case SQLITE_TEXT: return "TEXT";
	case SQLITE_BLOB: return "BLOB";
	default: return "NULL";
	}
}

/* A BLOB column of exactly n bytes into out; false when it is not one. */
static bool col_blob(sqlite3_stmt *st, int i, uint8_t *out, size_t n)
{
	if (sqlite3_column_type(st, i) != SQLITE_BLOB || (size_t)sqlite3_column_bytes(st, i) != n)
		return false;
	memcpy(out, sqlite3_column_blob(st, i), n);
	return true;
}

int audit_head_read(sqlite3 *db, const char *path, struct ahead *h, char *bad, size_t badlen,
                    char *err, size_t errlen)
{
	memset(h, 0, sizeof *h);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT seq, chain, seals, level, key, hash, mac FROM audit_head",
	                       -1, &st, NULL) != SQLITE_OK)
		return audit_failf(err, errlen, "%s: reading audit_head: %s", path, sqlite3_errmsg(db));
	int rc = sqlite3_step(st);
	int ok = 0;
	if (rc == SQLITE_ROW) {
		int kt = sqlite3_column_type(st, 4), mt = sqlite3_column_type(st, 6);
		const unsigned char *level = sqlite3_column_text(st, 3);
		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER)
			snprintf(bad, badlen, "audit_head.seq is %s", audit_type_name(sqlite3_column_type(st, 0)));
		else if (!col_blob(st, 1, h->chain, 32) || !col_blob(st, 2, h->seals, 32) ||
		         !col_blob(st, 5, h->hash, 32))
			snprintf(bad, badlen, "audit_head.chain, seals and hash must be 32-byte BLOBs");
		else if (sqlite3_column_type(st, 3) != SQLITE_TEXT || !level ||
		         strlen((const char *)level) >= sizeof h->level)
			snprintf(bad, badlen, "audit_head.level is not a recording level");
		else if (kt != SQLITE_NULL && (kt != SQLITE_TEXT ||
		                               (size_t)sqlite3_column_bytes(st, 4) >= sizeof h->key_id))
			snprintf(bad, badlen, "audit_head.key is not a key id");
		else if ((kt == SQLITE_NULL) != (mt == SQLITE_NULL) ||
		         (mt != SQLITE_NULL && (mt != SQLITE_BLOB || sqlite3_column_bytes(st, 6) < 1 ||
		                                sqlite3_column_bytes(st, 6) > (int)sizeof h->mac)))
			snprintf(bad, badlen, "audit_head.key and mac must be both NULL or both set");
		else
			ok = 1;
		if (ok) {
			h->seq = sqlite3_column_int64(st, 0);
			snprintf(h->level, sizeof h->level, "%s", (const char *)level);
			h->keyed = kt != SQLITE_NULL;
			if (h->keyed) {
				snprintf(h->key_id, sizeof h->key_id, "%s", (const char *)sqlite3_column_text(st, 4));
				h->maclen = (size_t)sqlite3_column_bytes(st, 6);
				memcpy(h->mac, sqlite3_column_blob(st, 6), h->maclen);
			}
			rc = sqlite3_step(st);
			if (rc == SQLITE_ROW) {
				snprintf(bad, badlen, "audit_head has more than one row");
				ok = 0;
			}
		}
	} else if (rc == SQLITE_DONE) {
		snprintf(bad, badlen, "audit_head is empty");
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return audit_failf(err, errlen, "%s: reading audit_head: %s", path, sqlite3_errmsg(db));
	return ok;
}

int audit_db_open(const char *path, bool write, sqlite3 **db, char *err, size_t errlen)
{
	int rc = sqlite3_open_v2(path, db, write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		audit_failf(err, errlen, "%s: cannot open: %s", path,
		            *db ? sqlite3_errmsg(*db) : sqlite3_errstr(rc));
		sqlite3_close(*db);
		*db = NULL;
		return -1;
	}
	sqlite3_busy_timeout(*db, 5000);
	return 0;
}

static int has_table(sqlite3 *db, const char *name, const char *type)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?", -1, &st,
	                       NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, type, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int audit_check_tables(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	static const char *const tables[] = { "event", "audit_mark", "audit_seal", "audit_head",
	                                      "audit_anchor", NULL };
	for (int i = 0; tables[i]; i++) {
		int r = has_table(db, tables[i], "table");
		if (r < 0)
			return audit_failf(err, errlen, "%s: cannot read: %s", path, sqlite3_errmsg(db));
		if (r == 1)
			continue;
		if (has_table(db, "audit", "table") == 1)
			return audit_failf(err, errlen, "%s: written by an older hetlab (results schema 1,"
			                   " one hash per row in table 'audit'): this hetlab verifies schema 2"
			                   " files; verify it with the hetlab that wrote it", path);
		return audit_failf(err, errlen, "%s: no table '%s': not a hetlab results file with an"
		                   " audit log", path, tables[i]);
	}
	return 0;
}

void audit_utc_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	if (now == (time_t)-1 || !gmtime_r(&now, &tm) ||
	    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, len, "unknown");
}
