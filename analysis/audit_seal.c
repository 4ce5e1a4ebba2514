/* audit_seal — the seals of a results file's tables (audit_seal rows):
 * reading a table back and hashing it per part of AUDIT_SEAL_ROWS rows, the
 * writer's streams that seal the big tables as their rows are written, and
 * the digest of all seals that the head holds. See audit_int.h and
 * docs/audit.md ("The hashes, byte by byte"). */
#include "analysis/audit.h"
#include "analysis/audit_int.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

/* The tables that are not sealed: the chain covers `event`, the head the rest. */
static const char *const unsealed[] = { "event", "audit_mark", "audit_seal", "audit_head",
                                        "audit_anchor", NULL };

/* ---- the seals ------------------------------------------------------------ */

void seals_free(struct seals *s)
{
	free(s->p);
	memset(s, 0, sizeof *s);
}

static struct seal_part *seals_add(struct seals *s)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct seal_part *p = realloc(s->p, cap * sizeof *p);
		if (!p)
			return NULL;
		s->p = p;
		s->cap = cap;
	}
	struct seal_part *p = &s->p[s->n++];
	memset(p, 0, sizeof *p);
	return p;
}

static int64_t part_of(int64_t rowid)
{
	return rowid >= 0 ? rowid / AUDIT_SEAL_ROWS : -1 - (-1 - rowid) / AUDIT_SEAL_ROWS;
}

/* A part's digest from its rows' digests (in rowid order): the tag, the
 * table, the part, each row's digest, the number of rows. */
static int part_digest(const char *tbl, int64_t part, const uint8_t (*rows)[32], int64_t n,
                       struct seals *out)
{
	struct abuf b = { 0 };
	ab_tag(&b, TAG_SEAL);
	ab_text(&b, tbl, strlen(tbl));
	ab_int(&b, part);
	for (int64_t i = 0; i < n; i++)
		ab_blob(&b, rows[i], 32);
	ab_int(&b, n);
	struct seal_part *p = seals_add(out);
	int rc = p && !b.oom && audit_sha256(b.p, b.len, p->digest) == 0 ? 0 : -1;
	ab_free(&b);
	if (rc == 0) {
		snprintf(p->tbl, sizeof p->tbl, "%s", tbl);
		p->part = part;
		p->rows = n;
	}
	return rc;
}

/* Row digests: the tag, the rowid, the number of values, the values. */
void audit_row_start(struct abuf *b, int64_t rowid, int n)
{
	b->len = 0;
	ab_tag(b, TAG_ROW);
	ab_int(b, rowid);
	ab_int(b, n);
}

/* The stored columns of tbl (PRAGMA table_info leaves generated ones out),
 * as a SELECT of rowid and them in declaration order. NULL on error. */
static char *table_select(sqlite3 *db, const char *tbl)
{
	char *pragma = sqlite3_mprintf("PRAGMA table_info(\"%w\")", tbl);
	sqlite3_stmt *st = NULL;
	if (!pragma || sqlite3_prepare_v2(db, pragma, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_free(pragma);
		return NULL;
	}
	sqlite3_free(pragma);
	char *sql = sqlite3_mprintf("SELECT rowid");
	while (sql && sqlite3_step(st) == SQLITE_ROW) {
		char *more = sqlite3_mprintf("%s, \"%w\"", sql, (const char *)sqlite3_column_text(st, 1));
		sqlite3_free(sql);
		sql = more;
	}
	sqlite3_finalize(st);
	char *full = sql ? sqlite3_mprintf("%s FROM \"%w\" ORDER BY rowid", sql, tbl) : NULL;
	sqlite3_free(sql);
	return full;
}

/* Seals a table by reading it back. */
static int seal_table(sqlite3 *db, const char *path, const char *tbl, struct seals *out,
                      char *err, size_t errlen)
{
	if (strlen(tbl) >= sizeof out->p[0].tbl)
		return audit_failf(err, errlen, "%s: table name '%.40s...' too long to seal", path, tbl);
	char *sql = table_select(db, tbl);
	sqlite3_stmt *st = NULL;
	if (!sql || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_free(sql);
		return audit_failf(err, errlen, "%s: sealing table %s: %s", path, tbl, sqlite3_errmsg(db));
	}
	sqlite3_free(sql);
	uint8_t (*rows)[32] = malloc(AUDIT_SEAL_ROWS * sizeof *rows);
	struct abuf b = { 0 };
	int ncol = sqlite3_column_count(st) - 1, rc = SQLITE_ROW;
	int64_t part = 0, n = 0;
	EVP_MD_CTX *md = audit_md_new();
	bool oom = !rows || !md;
	while (!oom && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t rowid = sqlite3_column_int64(st, 0), p = part_of(rowid);
		if (n > 0 && p != part) {
			oom = part_digest(tbl, part, (const uint8_t (*)[32])rows, n, out) < 0;
			n = 0;
		}
		part = p;
		audit_row_start(&b, rowid, ncol);
		for (int i = 1; i <= ncol; i++)
			ab_column(&b, st, i);
		oom = oom || b.oom || audit_md_sha256(md, b.p, b.len, rows[n++]) < 0;
	}
	sqlite3_finalize(st);
	EVP_MD_CTX_free(md);
	if (!oom && rc == SQLITE_DONE && n > 0)
		oom = part_digest(tbl, part, (const uint8_t (*)[32])rows, n, out) < 0;
	free(rows);
	ab_free(&b);
	if (!oom && rc != SQLITE_DONE)
		return audit_failf(err, errlen, "%s: sealing table %s: %s", path, tbl, sqlite3_errmsg(db));
	if (oom)
		return audit_failf(err, errlen, "%s: sealing table %s: out of memory", path, tbl);
	return 0;
}

static bool is_unsealed(const char *name)
{
	for (int i = 0; unsealed[i]; i++)
		if (strcmp(name, unsealed[i]) == 0)
			return true;
	return false;
}

/* ---- tables sealed as they are written (the writer's streams) ------------- */

static int cmp_part(const void *a, const void *b)
{
	const struct seal_part *x = a, *y = b;
	return (x->part > y->part) - (x->part < y->part);
}

/* A part's digest from its accumulated rows (in rowid order). */
static int acc_finish(struct audit_stream *st, int64_t part, struct part_acc *acc)
{
	uint8_t (*rows)[32] = malloc(AUDIT_SEAL_ROWS * sizeof *rows);
	if (!rows)
		return -1;
	int64_t n = 0;
	for (int i = 0; i < AUDIT_SEAL_ROWS; i++)
		if (acc->present[i / 64] >> (i % 64) & 1)
			memcpy(rows[n++], acc->dig[i], 32);
	int rc = part_digest(st->tbl, part, (const uint8_t (*)[32])rows, n, &st->done);
	free(rows);
	return rc;
}

void audit_stream_free(struct audit_stream *st)
{
	for (int64_t p = 0; p < st->nparts; p++)
		free(st->parts[p]);
	free(st->parts);
	seals_free(&st->done);
}

/* Finishes the parts still open and sorts them. 0 or -1. */
void audit_stream_init(struct audit_stream *st, const char *tbl)
{
	memset(st, 0, sizeof *st);
	snprintf(st->tbl, sizeof st->tbl, "%s", tbl);
}

int audit_stream_add(struct audit_stream *st, int64_t rowid, const uint8_t digest[32], char *why,
                     size_t whylen)
{
	if (rowid < 0) {
		snprintf(why, whylen, "a negative rowid cannot be sealed");
		return -1;
	}
	int64_t p = rowid / AUDIT_SEAL_ROWS, slot = rowid % AUDIT_SEAL_ROWS;
	if (p >= st->nparts) {
		int64_t n = st->nparts ? st->nparts : 64;
		while (n <= p)
			n *= 2;
		struct part_acc **q = realloc(st->parts, (size_t)n * sizeof *q);
		if (!q) {
			snprintf(why, whylen, "out of memory");
			return -1;
		}
		memset(q + st->nparts, 0, (size_t)(n - st->nparts) * sizeof *q);
		st->parts = q;
		st->nparts = n;
	}
	struct part_acc *acc = st->parts[p];
	if (!acc && !(acc = st->parts[p] = calloc(1, sizeof *acc))) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	if (acc->present[slot / 64] >> (slot % 64) & 1) {
		snprintf(why, whylen, "written twice");
		return -1;
	}
	memcpy(acc->dig[slot], digest, 32);
	acc->present[slot / 64] |= UINT64_C(1) << (slot % 64);
	if (++acc->n == AUDIT_SEAL_ROWS) {
		if (acc_finish(st, p, acc) < 0) {
			snprintf(why, whylen, "out of memory");
			return -1;
		}
		free(acc);
		st->parts[p] = NULL;
	}
	return 0;
}

int audit_stream_close(struct audit_stream *st)
{
	for (int64_t p = 0; p < st->nparts; p++)
		if (st->parts[p]) {
			if (acc_finish(st, p, st->parts[p]) < 0)
				return -1;
			free(st->parts[p]);
			st->parts[p] = NULL;
		}
	if (st->done.n > 1)
		qsort(st->done.p, st->done.n, sizeof *st->done.p, cmp_part);
	return 0;
}

int audit_seal_db(sqlite3 *db, const char *path, const struct audit_stream *streams, int nstreams,
                  struct seals *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	struct abuf b = { 0 };
	sqlite3_stmt *st = NULL;
	int rc = -1;
	/* The schema: every table, index and view, as the run created them. */
	if (sqlite3_prepare_v2(db, "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name"
	                       " NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name", -1, &st,
	                       NULL) != SQLITE_OK) {
		audit_failf(err, errlen, "%s: reading the schema: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	ab_tag(&b, TAG_SCHEMA);
	int64_t n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int i = 0; i < 4; i++)
			ab_column(&b, st, i);
		n++;
	}
	sqlite3_finalize(st);
	st = NULL;
	struct seal_part *sp = seals_add(out);
	if (!sp || b.oom || audit_sha256(b.p, b.len, sp->digest) < 0) {
		audit_failf(err, errlen, "%s: sealing the schema: out of memory", path);
		goto out;
	}
	sp->rows = n;
	if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name"
	                       " NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name", -1, &st,
	                       NULL) != SQLITE_OK) {
		audit_failf(err, errlen, "%s: reading the schema: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	int r;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		if (!name || is_unsealed(name))
			continue;
		const struct audit_stream *s = NULL;
		for (int i = 0; i < nstreams && !s; i++)
			if (strcmp(streams[i].tbl, name) == 0)
				s = &streams[i];
		if (!s) {
			if (seal_table(db, path, name, out, err, errlen) < 0)
				goto out;
			continue;
		}
		for (size_t i = 0; i < s->done.n; i++) {
			struct seal_part *p = seals_add(out);
			if (!p) {
				audit_failf(err, errlen, "%s: out of memory", path);
				goto out;
			}
			*p = s->done.p[i];
		}
	}
	if (r != SQLITE_DONE) {
		audit_failf(err, errlen, "%s: reading the schema: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	ab_free(&b);
	if (rc < 0)
		seals_free(out);
	return rc;
}

int audit_seals_digest(const struct seals *s, uint8_t out[32])
{
	struct abuf b = { 0 };
	ab_tag(&b, TAG_SEALS);
	for (size_t i = 0; i < s->n; i++) {
		ab_text(&b, s->p[i].tbl, strlen(s->p[i].tbl));
		ab_int(&b, s->p[i].part);
		ab_int(&b, s->p[i].rows);
		ab_blob(&b, s->p[i].digest, 32);
	}
	return audit_digest_of(&b, out);
}

