/* audit_verify — checks a results file's audit log: the head, the key, the
 * marks, the seals, the run row, the anchors and every record (from the
 * database and from archives). See audit.h and docs/audit.md ("Verifying"). */
#include "analysis/audit.h"
#include "analysis/audit_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sqlite3.h>
#include <zlib.h>

#include "sim/simtime.h"

static const uint8_t zeros[32];

static int verdict(struct audit_verdict *v, enum audit_break what, int64_t seq, const char *source,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int verdict(struct audit_verdict *v, enum audit_break what, int64_t seq, const char *source,
                   const char *fmt, ...)
{
	v->what = what;
	v->seq = seq;
	snprintf(v->source, sizeof v->source, "%s", source);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->detail, sizeof v->detail, fmt, ap);
	va_end(ap);
	return 0;
}

const char *audit_break_name(enum audit_break b)
{
	switch (b) {
	case AUDIT_OK: return "ok";
	case AUDIT_GAP: return "gap in seq";
	case AUDIT_PREV_MISMATCH: return "mark chain mismatch";
	case AUDIT_HASH_MISMATCH: return "hash mismatch";
	case AUDIT_BAD_FIELD: return "bad field";
	case AUDIT_BAD_HEAD: return "head mismatch";
	case AUDIT_BAD_ANCHOR: return "anchor mismatch";
	case AUDIT_BAD_SEAL: return "seal mismatch";
	case AUDIT_BAD_KEY: return "not authenticated";
	}
	return "?";
}

/* ---- reading records: the database or an archive ------------------------- */

struct src {
	const char *path;
	sqlite3 *db;
	sqlite3_stmt *st;       /* the database ... */
	gzFile gz;              /* ... or an archive */
	char *line;
	size_t cap;
	int64_t lineno;
	json_t *obj;
};

static void src_close(struct src *s)
{
	sqlite3_finalize(s->st);
	if (s->gz)
		gzclose(s->gz);
	free(s->line);
	json_decref(s->obj);
	memset(s, 0, sizeof *s);
}

static void src_where(const struct src *s, char *buf, size_t len)
{
	if (s->gz)
		snprintf(buf, len, "%s line %" PRId64, s->path, s->lineno);
	else
		snprintf(buf, len, "%s", s->path);
}

/* An optional text column or key: NULL or TEXT. */
static bool text_or_null(int type)
{
	return type == SQLITE_TEXT || type == SQLITE_NULL;
}

/* Next database row: 1, 0 at the end, -1 error (err), -2 a field of the
 * wrong type (bad names it). */
static int src_next_db(struct src *s, struct arec *r, char *bad, size_t badlen, char *err, size_t errlen)
{
	int rc = sqlite3_step(s->st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return audit_failf(err, errlen, "%s: reading table event: %s", s->path, sqlite3_errmsg(s->db));
	sqlite3_stmt *st = s->st;
	memset(r, 0, sizeof *r);
	r->seq = sqlite3_column_int64(st, 0);
	static const char *const names[7] = { "seq", "t_us", "kind", "job", "node", "state", "detail" };
	int t[7];
	for (int i = 0; i < 7; i++)
		t[i] = sqlite3_column_type(st, i);
	int badcol = t[1] != SQLITE_INTEGER ? 1 : t[2] != SQLITE_TEXT ? 2
	             : (t[3] != SQLITE_INTEGER && t[3] != SQLITE_NULL) ? 3
	             : (t[4] != SQLITE_INTEGER && t[4] != SQLITE_NULL) ? 4
	             : !text_or_null(t[5]) ? 5 : !text_or_null(t[6]) ? 6 : 0;
	if (badcol) {
		snprintf(bad, badlen, "%s is %s", names[badcol], audit_type_name(t[badcol]));
		return -2;
	}
	r->t_us = sqlite3_column_int64(st, 1);
	r->kind = (const char *)sqlite3_column_text(st, 2);
	r->kind_len = (size_t)sqlite3_column_bytes(st, 2);
	r->job_null = t[3] == SQLITE_NULL;
	r->job = sqlite3_column_int64(st, 3);
	r->node_null = t[4] == SQLITE_NULL;
	r->node = sqlite3_column_int64(st, 4);
	if (t[5] == SQLITE_TEXT) {
		r->state = (const char *)sqlite3_column_text(st, 5);
		r->state_len = (size_t)sqlite3_column_bytes(st, 5);
	}
	if (t[6] == SQLITE_TEXT) {
		r->detail = (const char *)sqlite3_column_text(st, 6);
		r->detail_len = (size_t)sqlite3_column_bytes(st, 6);
	}
	return 1;
}

/* One line of an archive into s->line (grown as needed, at most
 * AUDIT_LINE_MAX bytes); 1, 0 at the end, -1 error, -2 too long. */
static int read_line(struct src *s, size_t *len, char *err, size_t errlen)
{
	size_t n = 0;
	for (;;) {
		if (s->cap - n < 2) {
			size_t cap = s->cap ? 2 * s->cap : 4096;
			char *p = realloc(s->line, cap);
			if (!p)
				return audit_failf(err, errlen, "%s: out of memory", s->path);
			s->line = p;
			s->cap = cap;
		}
		if (!gzgets(s->gz, s->line + n, (int)(s->cap - n))) {
			int zerr = 0;
			const char *msg = gzerror(s->gz, &zerr);
			if (zerr != Z_OK && zerr != Z_BUF_ERROR)
				return audit_failf(err, errlen, "%s: line %" PRId64 ": %s", s->path,
				                   s->lineno + 1, msg);
			break;
		}
		n += strlen(s->line + n);
		if (n > 0 && s->line[n - 1] == '\n')
			break;
		if (n > AUDIT_LINE_MAX) {
			s->lineno++;
			return -2;
		}
	}
	if (n == 0)
		return 0;
	s->lineno++;
	if (n > AUDIT_LINE_MAX + 1)
		return -2;
	if (s->line[n - 1] == '\n')
		s->line[--n] = '\0';
	*len = n;
	return 1;
}

/* An archive's text or null field; false when it is something else or absent. */
static bool json_text(json_t *o, const char *k, bool nullable, const char **p, size_t *n)
{
	json_t *x = json_object_get(o, k);
	*p = NULL;
	*n = 0;
	if (json_is_string(x)) {
		*p = json_string_value(x);
		*n = json_string_length(x);
		return true;
	}
	return nullable && json_is_null(x);
}

static bool json_int_or_null(json_t *o, const char *k, bool nullable, int64_t *v, bool *null)
{
	json_t *x = json_object_get(o, k);
	*null = json_is_null(x);
	if (json_is_integer(x)) {
		*v = json_integer_value(x);
		return true;
	}
	return nullable && *null;
}

/* Next archive record: as src_next_db. */
static int src_next_archive(struct src *s, struct arec *r, char *bad, size_t badlen, char *err,
                            size_t errlen)
{
	size_t n = 0;
	int rc;
	do {
		rc = read_line(s, &n, err, errlen);
		if (rc == -2) {
			snprintf(bad, badlen, "a line longer than %d bytes: not an audit record", AUDIT_LINE_MAX);
			return -2;
		}
		if (rc <= 0)
			return rc;
	} while (strspn(s->line, " \t\r") == n);
	json_decref(s->obj);
	json_error_t je;
	s->obj = json_loadb(s->line, n, 0, &je);
	memset(r, 0, sizeof *r);
	if (!json_is_object(s->obj)) {
		snprintf(bad, badlen, "not a JSON object%s%s", s->obj ? "" : ": ", s->obj ? "" : je.text);
		return -2;
	}
	json_t *o = s->obj;
	bool null;
	const char *what = NULL;
	if (!json_int_or_null(o, "seq", false, &r->seq, &null))
		what = "no integer \"seq\"";
	else if (!json_int_or_null(o, "t_us", false, &r->t_us, &null))
		what = "no integer \"t_us\"";
	else if (!json_text(o, "kind", false, &r->kind, &r->kind_len))
		what = "no string \"kind\"";
	else if (!json_int_or_null(o, "job", true, &r->job, &r->job_null))
		what = "no \"job\" (an integer or null)";
	else if (!json_int_or_null(o, "node", true, &r->node, &r->node_null))
		what = "no \"node\" (an integer or null)";
	else if (!json_text(o, "state", true, &r->state, &r->state_len))
		what = "no \"state\" (a string or null)";
	else if (!json_text(o, "detail", true, &r->detail, &r->detail_len))
		what = "no \"detail\" (a string or null)";
	if (what) {
		snprintf(bad, badlen, "%s", what);
		return -2;
	}
	return 1;
}

static int src_next(struct src *s, struct arec *r, char *bad, size_t badlen, char *err, size_t errlen)
{
	return s->gz ? src_next_archive(s, r, bad, badlen, err, errlen)
	             : src_next_db(s, r, bad, badlen, err, errlen);
}

/* ---- marks and anchors ------------------------------------------------------ */

struct mark {
	int64_t seq, t_us;
	uint8_t digest[32], hash[32];
};

struct marks {
	struct mark *m;
	int64_t n;
};

/* Reads the marks and checks their chain. 0 (a break goes to v), or -1. */
static int marks_load(sqlite3 *db, const char *path, struct marks *ms, struct audit_verdict *v,
                      char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT seq, t_us, digest, hash FROM audit_mark ORDER BY seq", -1,
	                       &st, NULL) != SQLITE_OK)
		return audit_failf(err, errlen, "%s: reading audit_mark: %s", path, sqlite3_errmsg(db));
	int64_t cap = 0;
	uint8_t prev[32] = { 0 };
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (ms->n == cap) {
			cap = cap ? 2 * cap : 1024;
			struct mark *p = realloc(ms->m, (size_t)cap * sizeof *p);
			if (!p) {
				sqlite3_finalize(st);
				return audit_failf(err, errlen, "%s: out of memory", path);
			}
			ms->m = p;
		}
		struct mark *m = &ms->m[ms->n];
		m->seq = sqlite3_column_int64(st, 0);
		m->t_us = sqlite3_column_int64(st, 1);
		bool typed = sqlite3_column_type(st, 1) == SQLITE_INTEGER &&
		             sqlite3_column_type(st, 2) == SQLITE_BLOB && sqlite3_column_bytes(st, 2) == 32 &&
		             sqlite3_column_type(st, 3) == SQLITE_BLOB && sqlite3_column_bytes(st, 3) == 32;
		if (!typed) {
			sqlite3_finalize(st);
			return verdict(v, AUDIT_PREV_MISMATCH, m->seq, path, "audit_mark at seq %" PRId64
			               ": t_us must be an INTEGER, digest and hash 32-byte BLOBs", m->seq);
		}
		memcpy(m->digest, sqlite3_column_blob(st, 2), 32);
		memcpy(m->hash, sqlite3_column_blob(st, 3), 32);
		uint8_t want[32];
		int64_t before = ms->n ? ms->m[ms->n - 1].seq : 0;
		if (m->seq <= before || m->seq - before > AUDIT_BLOCK) {
			sqlite3_finalize(st);
			return verdict(v, AUDIT_PREV_MISMATCH, m->seq, path, "audit_mark seq %" PRId64
			               " after %" PRId64 ": marks close blocks of 1 to %d records", m->seq,
			               before, AUDIT_BLOCK);
		}
		if (audit_mark_hash(prev, m->seq, m->t_us, m->digest, want) < 0) {
			sqlite3_finalize(st);
			return audit_failf(err, errlen, "SHA-256 failed (OpenSSL EVP)");
		}
		if (memcmp(want, m->hash, 32) != 0) {
			char a[65], b[65];
			audit_hex(m->hash, 32, a);
			audit_hex(want, 32, b);
			sqlite3_finalize(st);
			return verdict(v, AUDIT_PREV_MISMATCH, before + 1, path, "the mark of records %"
			               PRId64 "..%" PRId64 " says %s, its fields and the mark before hash to"
			               " %s: audit_mark was altered", before + 1, m->seq, a, b);
		}
		memcpy(prev, m->hash, 32);
		ms->n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return audit_failf(err, errlen, "%s: reading audit_mark: %s", path, sqlite3_errmsg(db));
	return 0;
}

/* The mark whose block ends at seq, or NULL. */
static const struct mark *mark_at(const struct marks *ms, int64_t seq)
{
	int64_t lo = 0, hi = ms->n - 1;
	while (lo <= hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (ms->m[mid].seq == seq)
			return &ms->m[mid];
		if (ms->m[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

struct anchor {
	int64_t id, seq, count, cut_us;
	char archive[1024];
};

struct anchors {
	struct anchor *a;
	int32_t n;
};

/* Reads and checks the anchors: ids 1, 2, ..., each linked to the one
 * before, sealed with the head's hash (and its key's MAC), at a mark, with
 * seqs increasing by their counts, none younger than the retention allows.
 * 0 (a break goes to v), or -1 with err. */
static int anchors_load(sqlite3 *db, const char *path, const struct ahead *h, const struct marks *ms,
                        const struct audit_key *key, struct anchors *as, struct audit_verdict *v,
                        char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT id, seq, count, cut_us, archive, created, prev_anchor,"
	                       " anchor_hash, mac FROM audit_anchor ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return audit_failf(err, errlen, "%s: reading audit_anchor: %s", path, sqlite3_errmsg(db));
	uint8_t prev[32] = { 0 };
	int64_t prev_seq = 0;
	int64_t newest = ms->n ? ms->m[ms->n - 1].t_us : 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct anchor *p = realloc(as->a, (size_t)(as->n + 1) * sizeof *p);
		if (!p) {
			sqlite3_finalize(st);
			return audit_failf(err, errlen, "%s: out of memory", path);
		}
		as->a = p;
		struct anchor *a = &as->a[as->n++];
		memset(a, 0, sizeof *a);
		static const int types[8] = { SQLITE_INTEGER, SQLITE_INTEGER, SQLITE_INTEGER, SQLITE_INTEGER,
		                              SQLITE_TEXT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_BLOB };
		a->id = sqlite3_column_int64(st, 0);
		a->seq = sqlite3_column_int64(st, 1);
		const char *why = NULL;
		char whybuf[256];
		for (int i = 0; i < 8 && !why; i++)
			if (sqlite3_column_type(st, i) != types[i] ||
			    (i >= 6 && sqlite3_column_bytes(st, i) != 32))
				why = "a column has the wrong type";
		int mt = sqlite3_column_type(st, 8);
		if (!why && mt != SQLITE_NULL && (mt != SQLITE_BLOB || sqlite3_column_bytes(st, 8) > 64))
			why = "mac is not a BLOB";
		if (why) {
			sqlite3_finalize(st);
			return verdict(v, AUDIT_BAD_ANCHOR, a->seq, path, "anchor %" PRId64 ": %s", a->id, why);
		}
		a->count = sqlite3_column_int64(st, 2);
		a->cut_us = sqlite3_column_int64(st, 3);
		snprintf(a->archive, sizeof a->archive, "%s", (const char *)sqlite3_column_text(st, 4));
		const char *created = (const char *)sqlite3_column_text(st, 5);
		const uint8_t *pa = sqlite3_column_blob(st, 6), *ah = sqlite3_column_blob(st, 7);
		uint8_t want[32];
		const struct mark *m = mark_at(ms, a->seq);
		if (audit_anchor_hash(a->id, a->seq, a->count, a->cut_us,
		                      (const char *)sqlite3_column_text(st, 4), created, pa, h->hash, want) < 0) {
			sqlite3_finalize(st);
			return audit_failf(err, errlen, "SHA-256 failed (OpenSSL EVP)");
		}
		if (a->id != as->n) {
			why = "anchor ids are not 1, 2, 3, ...";
		} else if (memcmp(pa, prev, 32) != 0) {
			why = "prev_anchor is not the previous anchor's anchor_hash";
		} else if (memcmp(want, ah, 32) != 0) {
			why = "anchor_hash mismatch: a field of the anchor was altered (or it belongs to"
			      " another file's head)";
		} else if (a->seq <= prev_seq || a->count != a->seq - prev_seq || a->seq > h->seq) {
			why = "its seq and count do not follow the previous anchor";
		} else if (!m) {
			why = "its seq is not the end of a block of records (prune cuts whole blocks)";
		} else if (m->t_us >= a->cut_us || a->cut_us > newest - AUDIT_MIN_RETENTION_DAYS * SIMTIME_DAY) {
			snprintf(whybuf, sizeof whybuf, "it pruned records up to day %.2f, within the %d days"
			         " that are kept before the newest record (day %.2f)",
			         (double)m->t_us / (double)SIMTIME_DAY, AUDIT_MIN_RETENTION_DAYS,
			         (double)newest / (double)SIMTIME_DAY);
			why = whybuf;
		} else if (h->keyed && mt == SQLITE_NULL) {
			why = "the head is keyed but the anchor is not authenticated: it was not made by"
			      " hetlab audit prune with the key";
		} else if (key && h->keyed) {
			int ok = audit_key_verify(key, ah, sqlite3_column_blob(st, 8),
			                          (size_t)sqlite3_column_bytes(st, 8));
			if (ok != 1) {
				sqlite3_finalize(st);
				return verdict(v, AUDIT_BAD_KEY, a->seq, path, "anchor %" PRId64 ": its MAC does"
				               " not match under %s: it was sealed without the key", a->id,
				               audit_key_id(key));
			}
		}
		if (why) {
			sqlite3_finalize(st);
			return verdict(v, AUDIT_BAD_ANCHOR, a->seq, path, "anchor %" PRId64 ": %s", a->id, why);
		}
		memcpy(prev, ah, 32);
		prev_seq = a->seq;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return audit_failf(err, errlen, "%s: reading audit_anchor: %s", path, sqlite3_errmsg(db));
	return 0;
}

/* ---- the seals -------------------------------------------------------------- */

static void part_words(const struct seal_part *p, char *buf, size_t len)
{
	if (!p->tbl[0])
		snprintf(buf, len, "the schema");
	else
		snprintf(buf, len, "table %s, rows %" PRId64 "..%" PRId64 " (by rowid)", p->tbl,
		         p->part * AUDIT_SEAL_ROWS, p->part * AUDIT_SEAL_ROWS + AUDIT_SEAL_ROWS - 1);
}

/* Recomputes the seals and compares them with audit_seal, then with the head. */
static int check_seals(sqlite3 *db, const char *path, const struct ahead *h, struct audit_verdict *v,
                       char *err, size_t errlen)
{
	struct seals now, kept = { 0 };
	if (audit_seal_db(db, path, NULL, 0, &now, err, errlen) < 0)
		return -1;
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(db, "SELECT tbl, part, rows, digest FROM audit_seal ORDER BY tbl, part",
	                       -1, &st, NULL) != SQLITE_OK) {
		audit_failf(err, errlen, "%s: reading audit_seal: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	int r;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		if (kept.n == kept.cap) {
			size_t cap = kept.cap ? 2 * kept.cap : 64;
			struct seal_part *p = realloc(kept.p, cap * sizeof *p);
			if (!p) {
				audit_failf(err, errlen, "%s: out of memory", path);
				goto out;
			}
			kept.p = p;
			kept.cap = cap;
		}
		struct seal_part *p = &kept.p[kept.n];
		memset(p, 0, sizeof *p);
		if (sqlite3_column_type(st, 0) != SQLITE_TEXT || sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
		    sqlite3_column_type(st, 2) != SQLITE_INTEGER || sqlite3_column_type(st, 3) != SQLITE_BLOB ||
		    sqlite3_column_bytes(st, 3) != 32 || sqlite3_column_bytes(st, 0) >= (int)sizeof p->tbl) {
			rc = verdict(v, AUDIT_BAD_SEAL, 0, path, "audit_seal has a row of the wrong types");
			goto out;
		}
		snprintf(p->tbl, sizeof p->tbl, "%s", (const char *)sqlite3_column_text(st, 0));
		p->part = sqlite3_column_int64(st, 1);
		p->rows = sqlite3_column_int64(st, 2);
		memcpy(p->digest, sqlite3_column_blob(st, 3), 32);
		kept.n++;
	}
	if (r != SQLITE_DONE) {
		audit_failf(err, errlen, "%s: reading audit_seal: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	size_t i = 0, j = 0;
	char where[300];
	while (i < now.n || j < kept.n) {
		int c = i == now.n ? 1 : j == kept.n ? -1 : strcmp(now.p[i].tbl, kept.p[j].tbl);
		if (c == 0)
			c = now.p[i].part < kept.p[j].part ? -1 : now.p[i].part > kept.p[j].part;
		if (c < 0) {
			part_words(&now.p[i], where, sizeof where);
			bool known = false;
			for (size_t k = 0; k < kept.n && !known; k++)
				known = strcmp(kept.p[k].tbl, now.p[i].tbl) == 0;
			rc = known ? verdict(v, AUDIT_BAD_SEAL, now.p[i].part * AUDIT_SEAL_ROWS, path, "%s:"
			                     " %" PRId64 " rows that the run did not write (added after it)",
			                     where, now.p[i].rows)
			           : verdict(v, AUDIT_BAD_SEAL, 0, path, "table %s is not sealed: it was"
			                     " added after the run, or its rows were", now.p[i].tbl);
			goto out;
		}
		if (c > 0) {
			part_words(&kept.p[j], where, sizeof where);
			rc = verdict(v, AUDIT_BAD_SEAL, kept.p[j].part * AUDIT_SEAL_ROWS, path, "%s: the %"
			             PRId64 " rows sealed there are gone (deleted, or the table dropped)",
			             where, kept.p[j].rows);
			goto out;
		}
		if (now.p[i].rows != kept.p[j].rows || memcmp(now.p[i].digest, kept.p[j].digest, 32) != 0) {
			part_words(&now.p[i], where, sizeof where);
			if (!now.p[i].tbl[0])
				rc = verdict(v, AUDIT_BAD_SEAL, 0, path, "the schema differs from the one the run"
				             " sealed: a table, index or view was added, dropped or altered");
			else
				rc = verdict(v, AUDIT_BAD_SEAL, now.p[i].part * AUDIT_SEAL_ROWS, path, "%s"
				             " differ from what the run wrote (%" PRId64 " rows sealed, %" PRId64
				             " now): a row was altered, added or removed", where, kept.p[j].rows,
				             now.p[i].rows);
			goto out;
		}
		if (now.p[i].tbl[0] && (i == 0 || strcmp(now.p[i - 1].tbl, now.p[i].tbl) != 0))
			v->ntables++;
		if (now.p[i].tbl[0])
			v->sealed_rows += now.p[i].rows;
		i++;
		j++;
	}
	uint8_t d[32];
	if (audit_seals_digest(&kept, d) < 0) {
		audit_failf(err, errlen, "SHA-256 failed (OpenSSL EVP)");
		goto out;
	}
	if (memcmp(d, h->seals, 32) != 0)
		rc = verdict(v, AUDIT_BAD_HEAD, 0, path, "audit_seal does not hash to the seals of the"
		             " head: the seals were rewritten");
	else
		rc = 0;
out:
	sqlite3_finalize(st);
	seals_free(&now);
	seals_free(&kept);
	return rc;
}

/* The run row's record count and level against the head. */
static int check_run(sqlite3 *db, const char *path, const struct ahead *h, struct audit_verdict *v,
                     char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT records, level FROM run", -1, &st, NULL) != SQLITE_OK)
		return audit_failf(err, errlen, "%s: reading table run: %s", path, sqlite3_errmsg(db));
	int rc = sqlite3_step(st);
	int r = 0;
	if (rc != SQLITE_ROW) {
		r = rc == SQLITE_DONE ? verdict(v, AUDIT_BAD_HEAD, 0, path, "table run has no row")
		                      : audit_failf(err, errlen, "%s: reading table run: %s", path,
		                                    sqlite3_errmsg(db));
	} else {
		int64_t n = sqlite3_column_int64(st, 0);
		const char *lvl = (const char *)sqlite3_column_text(st, 1);
		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || n != h->seq)
			r = verdict(v, AUDIT_BAD_HEAD, h->seq, path, "the run row says %" PRId64 " records,"
			            " the head seals %" PRId64, n, h->seq);
		else if (!lvl || strcmp(lvl, h->level) != 0)
			r = verdict(v, AUDIT_BAD_HEAD, h->seq, path, "the run row's level (%s) is not the"
			            " head's (%s)", lvl ? lvl : "NULL", h->level);
	}
	sqlite3_finalize(st);
	return r;
}

/* ---- the walk over the records ------------------------------------------------ */

struct walk {
	struct audit_verdict *v;
	const struct marks *ms;
	const struct anchors *as;
	bool started;
	bool fixed;             /* the first record must be seq `expect` (the database alone) */
	int64_t expect;         /* the next seq */
	int64_t k;              /* the mark of the current block */
	struct abuf block;
	int64_t first;          /* the current block's first seq */
	int64_t walked;         /* the last seq read */
	int64_t from_archive;   /* records of the current block read from archives */
};

/* Checks one record; 1 when it holds, 0 when it broke the chain (v says how). */
static int walk_one(struct walk *w, const struct arec *r, const char *where)
{
	struct audit_verdict *v = w->v;
	const struct marks *ms = w->ms;
	if (!w->started) {
		/* The chain starts at seq 1 or just after an anchor; the database
		 * alone, just after the latest anchor. */
		const struct anchor *from = NULL;
		for (int32_t i = 0; i < w->as->n && !from; i++)
			if (w->as->a[i].seq + 1 == r->seq)
				from = &w->as->a[i];
		const struct anchor *latest = w->as->n ? &w->as->a[w->as->n - 1] : NULL;
		if (w->fixed && latest && r->seq < w->expect) {
			verdict(v, AUDIT_BAD_ANCHOR, r->seq, where, "anchor %" PRId64 " sealed the records up"
			        " to seq %" PRId64 " as pruned, but seq %" PRId64 " is still here", latest->id,
			        latest->seq, r->seq);
			return 0;
		}
		if (r->seq < 1) {
			verdict(v, AUDIT_GAP, r->seq, where, "seq %" PRId64 " precedes the chain's first"
			        " record (seq 1)", r->seq);
			return 0;
		}
		if (w->fixed ? r->seq > w->expect : r->seq != 1 && !from) {
			if (latest && w->fixed)
				verdict(v, AUDIT_GAP, w->expect, where, "record %" PRId64 " is missing: the chain"
				        " continues from anchor %" PRId64 " (seq %" PRId64 "), the first record is"
				        " seq %" PRId64, w->expect, latest->id, latest->seq, r->seq);
			else
				verdict(v, AUDIT_GAP, 1, where, "records 1..%" PRId64 " are missing: the chain"
				        " starts at seq %" PRId64 ", and no anchor seals seq %" PRId64, r->seq - 1,
				        r->seq, r->seq - 1);
			return 0;
		}
		v->from_anchor = from ? (int32_t)from->id : 0;
		v->first_seq = r->seq;
		w->expect = r->seq;
		w->k = 0;
		while (w->k < ms->n && ms->m[w->k].seq < r->seq)
			w->k++;
		w->started = true;
	}
	if (r->seq > w->expect) {
		const struct anchor *a = NULL;
		for (int32_t i = 0; i < w->as->n && !a; i++)
			if (w->as->a[i].seq >= w->expect && w->as->a[i].seq - w->as->a[i].count < w->expect)
				a = &w->as->a[i];
		verdict(v, AUDIT_GAP, w->expect, where, "record %" PRId64 " is missing (the next is seq %"
		        PRId64 ")%s%s%s", w->expect, r->seq, a ? "; it was pruned to " : "",
		        a ? a->archive : "", a ? ": pass that archive with --archive" : "");
		return 0;
	}
	if (r->seq < w->expect) {
		verdict(v, AUDIT_GAP, r->seq, where, "seq %" PRId64 " follows seq %" PRId64
		        ": out of order or repeated", r->seq, w->expect - 1);
		return 0;
	}
	if (w->k >= ms->n) {
		verdict(v, AUDIT_BAD_HEAD, r->seq, where, "seq %" PRId64 " lies beyond the sealed chain"
		        " (its last record is seq %" PRId64 "): appended after the run", r->seq,
		        ms->n ? ms->m[ms->n - 1].seq : 0);
		return 0;
	}
	if (w->block.len == 0)
		w->first = r->seq;
	ab_record(&w->block, r);
	w->expect = r->seq + 1;
	if (r->seq == ms->m[w->k].seq) {
		struct abuf h = { 0 };
		ab_tag(&h, TAG_BLOCK);
		ab_int(&h, w->first);
		ab_int(&h, r->seq - w->first + 1);
		ab_append(&h, &w->block);
		uint8_t d[32];
		int ok = !h.oom && audit_sha256(h.p, h.len, d) == 0;
		ab_free(&h);
		if (!ok || memcmp(d, ms->m[w->k].digest, 32) != 0) {
			verdict(v, AUDIT_HASH_MISMATCH, w->first, where, "records %" PRId64 "..%" PRId64
			        " do not hash to their mark (seq %" PRId64 "): one of them was altered,"
			        " inserted or moved", w->first, r->seq, r->seq);
			return 0;
		}
		w->block.len = 0;
		w->k++;
		/* Records count as verified a block at a time. */
		v->count += r->seq - w->first + 1;
		v->narchived += w->from_archive;
		w->from_archive = 0;
		v->last_seq = r->seq;
	}
	w->walked = r->seq;
	return 1;
}

/* Walks one source to its end or the first break. 0 or -1 (err). */
static int walk_src(struct walk *w, struct src *s, char *err, size_t errlen)
{
	struct arec r;
	char bad[256], where[600];
	int rc;
	while ((rc = src_next(s, &r, bad, sizeof bad, err, errlen)) != 0) {
		if (rc == -1)
			return -1;
		src_where(s, where, sizeof where);
		if (rc == -2)
			return verdict(w->v, AUDIT_BAD_FIELD, r.seq, where, "%s", bad);
		if (s->gz)
			w->from_archive++;
		if (!walk_one(w, &r, where))
			return 0;
	}
	return 0;
}

/* ---- the whole verification -------------------------------------------------- */

static int check_key(const struct ahead *h, const struct audit_key *key, const char *path,
                     struct audit_verdict *v)
{
	if (!key)
		return 0;
	v->key_checked = true;
	if (!h->keyed)
		return verdict(v, AUDIT_BAD_KEY, h->seq, path, "the head is not authenticated (the file"
		               " was written without a key, or its key was stripped), but %s was given",
		               audit_key_id(key));
	if (strcmp(h->key_id, audit_key_id(key)) != 0)
		return verdict(v, AUDIT_BAD_KEY, h->seq, path, "the head is authenticated with %s, not"
		               " with the key given (%s)", h->key_id, audit_key_id(key));
	if (audit_key_verify(key, h->hash, h->mac, h->maclen) != 1)
		return verdict(v, AUDIT_BAD_KEY, h->seq, path, "the head's MAC does not match under %s:"
		               " the head was rewritten without the key", h->key_id);
	return 0;
}

/* The head, the key, the expected head, the marks, the seals and the run row:
 * everything but the records and anchors. */
static int check_frame(sqlite3 *db, const char *path, const struct audit_verify_opts *o,
                       struct ahead *h, struct marks *ms, struct audit_verdict *v,
                       char *err, size_t errlen)
{
	char bad[256];
	int r = audit_head_read(db, path, h, bad, sizeof bad, err, errlen);
	if (r <= 0)
		return r < 0 ? -1 : verdict(v, AUDIT_BAD_HEAD, 0, path, "%s", bad);
	uint8_t want[32];
	if (audit_head_hash(h->seq, h->chain, h->seals, h->level, h->keyed ? h->key_id : NULL, want) < 0)
		return audit_failf(err, errlen, "SHA-256 failed (OpenSSL EVP)");
	audit_hex(h->hash, 32, v->head);
	snprintf(v->level, sizeof v->level, "%s", h->level);
	snprintf(v->key_id, sizeof v->key_id, "%s", h->keyed ? h->key_id : "");
	if (memcmp(want, h->hash, 32) != 0) {
		char w[65];
		audit_hex(want, 32, w);
		return verdict(v, AUDIT_BAD_HEAD, h->seq, path, "audit_head was altered: its fields hash"
		               " to %s, it says %s", w, v->head);
	}
	if (check_key(h, o->key, path, v) < 0 || v->what != AUDIT_OK)
		return 0;
	if (o->expect_head && strcasecmp(o->expect_head, v->head) != 0)
		return verdict(v, AUDIT_BAD_HEAD, h->seq, path, "the head is %s, expected %s", v->head,
		               o->expect_head);
	if (marks_load(db, path, ms, v, err, errlen) < 0 || v->what != AUDIT_OK)
		return v->what != AUDIT_OK ? 0 : -1;
	v->nmarks = (int32_t)ms->n;
	const uint8_t *chain = ms->n ? ms->m[ms->n - 1].hash : zeros;
	int64_t last = ms->n ? ms->m[ms->n - 1].seq : 0;
	if (last != h->seq || memcmp(chain, h->chain, 32) != 0)
		return verdict(v, AUDIT_BAD_HEAD, last < h->seq ? last + 1 : h->seq + 1, path,
		               "the marks end at seq %" PRId64 ", the head seals seq %" PRId64 "%s", last,
		               h->seq, last == h->seq ? " with another hash" : last < h->seq
		               ? ": the tail of the chain was cut" : ": marks were appended after the run");
	if (check_seals(db, path, h, v, err, errlen) < 0)
		return -1;
	if (v->what != AUDIT_OK)
		return 0;
	return check_run(db, path, h, v, err, errlen);
}

int audit_verify_db(sqlite3 *db, const char *path, const struct audit_verify_opts *o,
                    struct audit_verdict *v, char *err, size_t errlen)
{
	memset(v, 0, sizeof *v);
	snprintf(v->source, sizeof v->source, "%s", path);
	if (audit_check_tables(db, path, err, errlen) < 0)
		return -1;
	struct ahead h;
	struct marks ms = { 0 };
	struct anchors as = { 0 };
	struct walk w = { .v = v, .ms = &ms, .as = &as, .expect = 1 };
	int rc = -1;
	if (check_frame(db, path, o, &h, &ms, v, err, errlen) < 0)
		goto out;
	if (v->what == AUDIT_OK && anchors_load(db, path, &h, &ms, o->key, &as, v, err, errlen) < 0)
		goto out;
	v->nanchors = as.n;
	if (v->what != AUDIT_OK) {
		rc = 0;
		goto out;
	}
	int64_t pruned = as.n ? as.a[as.n - 1].seq : 0;
	for (int i = 0; i < o->narchives && v->what == AUDIT_OK; i++) {
		struct src s = { .path = o->archives[i] };
		errno = 0;
		if (!(s.gz = gzopen(o->archives[i], "rb"))) {
			audit_failf(err, errlen, "%s: %s", o->archives[i], errno ? strerror(errno) : "cannot open");
			goto out;
		}
		int r = walk_src(&w, &s, err, errlen);
		src_close(&s);
		if (r < 0)
			goto out;
	}
	if (o->narchives == 0) {
		w.fixed = true;
		w.expect = pruned + 1;
	}
	if (v->what == AUDIT_OK) {
		struct src s = { .path = path, .db = db };
		if (sqlite3_prepare_v2(db, "SELECT seq, t_us, kind, job, node, state, detail FROM event"
		                       " ORDER BY seq", -1, &s.st, NULL) != SQLITE_OK) {
			audit_failf(err, errlen, "%s: reading table event: %s", path, sqlite3_errmsg(db));
			goto out;
		}
		int r = walk_src(&w, &s, err, errlen);
		src_close(&s);
		if (r < 0)
			goto out;
	}
	int64_t last = w.started ? w.walked : w.expect - 1;
	if (v->what == AUDIT_OK && last < h.seq)
		verdict(v, AUDIT_BAD_HEAD, last + 1, path, "records %" PRId64 "..%" PRId64 " are missing"
		        " at the end (the head seals seq %" PRId64 ")", last + 1, h.seq, h.seq);
	if (v->what == AUDIT_OK && !w.started && as.n)
		v->from_anchor = as.n;
	rc = 0;
out:
	free(ms.m);
	free(as.a);
	ab_free(&w.block);
	return rc;
}

int audit_verify_with(const char *db_path, const struct audit_verify_opts *o,
                      struct audit_verdict *v, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	if (audit_db_open(db_path, false, &db, err, errlen) < 0)
		return -1;
	int rc = audit_verify_db(db, db_path, o, v, err, errlen);
	sqlite3_close(db);
	return rc;
}

int audit_verify(const char *db_path, const char *const *archives, int narchives,
                 struct audit_verdict *v, char *err, size_t errlen)
{
	struct audit_verify_opts o = { .archives = archives, .narchives = narchives };
	return audit_verify_with(db_path, &o, v, err, errlen);
}
