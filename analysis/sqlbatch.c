/* sqlbatch — buffered multi-row INSERTs. See sqlbatch.h. */
#include "analysis/sqlbatch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *insert_sql(const char *table, const char *cols, int ncol, int rows)
{
	size_t n = strlen(table) + strlen(cols) + 32 + (size_t)rows * ((size_t)ncol * 2 + 4);
	char *sql = malloc(n);
	if (!sql)
		return NULL;
	size_t off = (size_t)snprintf(sql, n, "INSERT INTO %s(%s) VALUES", table, cols);
	for (int r = 0; r < rows; r++) {
		sql[off++] = r ? ',' : ' ';
		sql[off++] = '(';
		for (int c = 0; c < ncol; c++) {
			if (c)
				sql[off++] = ',';
			sql[off++] = '?';
		}
		sql[off++] = ')';
	}
	sql[off] = '\0';
	return sql;
}

static struct sqlbatch_buf *buf_new(struct sqlbatch *b)
{
	struct sqlbatch_buf *buf = calloc(1, sizeof *buf);
	if (!buf)
		return NULL;
	buf->owner = b;
	if (!(buf->v = calloc((size_t)b->cap * (size_t)b->ncol, sizeof *buf->v))) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void buf_free(struct sqlbatch_buf *buf)
{
	if (!buf)
		return;
	free(buf->v);
	free(buf->text);
	free(buf->aux);
	free(buf);
}

int sqlbatch_init(struct sqlbatch *b, sqlite3 *db, const char *table, const char *cols, int ncol,
                  int per, int cap, char *err, size_t errlen)
{
	memset(b, 0, sizeof *b);
	b->db = db;
	b->ncol = ncol;
	b->per = per < 1 ? 1 : per > SQLBATCH_ROWS ? SQLBATCH_ROWS : per;
	b->cap = cap < b->per ? b->per : cap / b->per * b->per;
	b->mu_ok = pthread_mutex_init(&b->mu, NULL) == 0;
	b->cur = buf_new(b);
	char *one = insert_sql(table, cols, ncol, 1), *many = insert_sql(table, cols, ncol, b->per);
	int rc = -1;
	if (!b->mu_ok || !b->cur || !one || !many) {
		snprintf(err, errlen, "table %s: out of memory", table);
	} else if (sqlite3_prepare_v3(db, one, -1, SQLITE_PREPARE_PERSISTENT, &b->one, NULL) != SQLITE_OK ||
	           sqlite3_prepare_v3(db, many, -1, SQLITE_PREPARE_PERSISTENT, &b->many, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "preparing the inserts into %s: %s", table, sqlite3_errmsg(db));
	} else if (!(b->one_b = calloc((size_t)ncol, sizeof *b->one_b)) ||
	           !(b->many_b = calloc((size_t)ncol * (size_t)b->per, sizeof *b->many_b))) {
		snprintf(err, errlen, "table %s: out of memory", table);
	} else {
		/* A statement's parameters start as NULL (SB_NULL, calloc's 0) and
		 * keep their values across sqlite3_reset. */
		rc = 0;
	}
	free(one);
	free(many);
	if (rc < 0)
		sqlbatch_fini(b);
	return rc;
}

int sqlbatch_rowid_first(struct sqlbatch *b, const char *table, const char *cols, char *err,
                         size_t errlen)
{
	const char *rest = strchr(cols, ',');
	if (b->ncol < 2 || !rest) {
		snprintf(err, errlen, "table %s: no column after the rowid", table);
		return -1;
	}
	rest++;
	while (*rest == ' ')
		rest++;
	int n = b->ncol - 1;
	char *one = insert_sql(table, rest, n, 1), *many = insert_sql(table, rest, n, b->per);
	int rc = -1;
	if (!one || !many || !(b->auto_one_b = calloc((size_t)n, sizeof *b->auto_one_b)) ||
	    !(b->auto_many_b = calloc((size_t)n * (size_t)b->per, sizeof *b->auto_many_b))) {
		snprintf(err, errlen, "table %s: out of memory", table);
	} else if (sqlite3_prepare_v3(b->db, one, -1, SQLITE_PREPARE_PERSISTENT, &b->auto_one, NULL) != SQLITE_OK ||
	           sqlite3_prepare_v3(b->db, many, -1, SQLITE_PREPARE_PERSISTENT, &b->auto_many, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "preparing the inserts into %s: %s", table, sqlite3_errmsg(b->db));
	} else {
		rc = 0;
	}
	free(one);
	free(many);
	return rc;
}

void sqlbatch_fini(struct sqlbatch *b)
{
	sqlite3_finalize(b->auto_one);
	sqlite3_finalize(b->auto_many);
	free(b->auto_one_b);
	free(b->auto_many_b);
	sqlite3_finalize(b->one);
	sqlite3_finalize(b->many);
	free(b->one_b);
	free(b->many_b);
	buf_free(b->cur);
	while (b->free) {
		struct sqlbatch_buf *next = b->free->next_free;
		buf_free(b->free);
		b->free = next;
	}
	if (b->mu_ok)
		pthread_mutex_destroy(&b->mu);
	memset(b, 0, sizeof *b);
}

struct sqlbatch_val *sqlbatch_row(struct sqlbatch *b)
{
	struct sqlbatch_buf *buf = b->cur;
	if (buf->rows == b->cap)
		return NULL;
	struct sqlbatch_val *v = buf->v + (size_t)buf->rows++ * (size_t)b->ncol;
	memset(v, 0, (size_t)b->ncol * sizeof *v);
	return v;
}

void sqlbatch_text(struct sqlbatch *b, struct sqlbatch_val *v, const char *s, size_t n)
{
	sqlbatch_buf_text(b->cur, v, s, n);
}

void *sqlbatch_aux(struct sqlbatch *b, struct sqlbatch_val *v, size_t n)
{
	struct sqlbatch_buf *buf = b->cur;
	size_t off = (buf->auxlen + 7) & ~(size_t)7;
	if (off + n > buf->auxcap) {
		size_t cap = buf->auxcap ? buf->auxcap : 4096;
		while (cap < off + n)
			cap *= 2;
		unsigned char *p = realloc(buf->aux, cap);
		if (!p) {
			buf->oom = true;
			v->type = SB_NULL;
			return NULL;
		}
		buf->aux = p;
		buf->auxcap = cap;
	}
	buf->auxlen = off + n;
	v->type = SB_AUX;
	v->u.t.off = off;
	v->u.t.len = n;
	return buf->aux + off;
}

void sqlbatch_buf_text(struct sqlbatch_buf *buf, struct sqlbatch_val *v, const char *s, size_t n)
{
	if (!s) {
		v->type = SB_NULL;
		return;
	}
	if (buf->tlen + n > buf->tcap) {
		size_t cap = buf->tcap ? buf->tcap : 4096;
		while (cap < buf->tlen + n)
			cap *= 2;
		char *p = realloc(buf->text, cap);
		if (!p) {
			buf->oom = true;
			v->type = SB_NULL;
			return;
		}
		buf->text = p;
		buf->tcap = cap;
	}
	if (n)
		memcpy(buf->text + buf->tlen, s, n);
	v->type = SB_TEXT;
	v->u.t.off = buf->tlen;
	v->u.t.len = n;
	buf->tlen += n;
}

struct sqlbatch_buf *sqlbatch_take(struct sqlbatch *b)
{
	pthread_mutex_lock(&b->mu);
	struct sqlbatch_buf *fresh = b->free;
	if (fresh)
		b->free = fresh->next_free;
	pthread_mutex_unlock(&b->mu);
	if (!fresh && !(fresh = buf_new(b)))
		return NULL;
	struct sqlbatch_buf *full = b->cur;
	b->cur = fresh;
	return full;
}

void sqlbatch_give(struct sqlbatch *b, struct sqlbatch_buf *buf)
{
	buf->rows = 0;
	buf->tlen = 0;
	buf->auxlen = 0;
	buf->oom = false;
	pthread_mutex_lock(&b->mu);
	buf->next_free = b->free;
	b->free = buf;
	pthread_mutex_unlock(&b->mu);
}

/* Binds one row's values to parameters first .. first + ncol - 1 of st;
 * bound[first - 1 ..] says what each of them is bound to now (a statement
 * keeps its parameters across sqlite3_reset), and a parameter bound to the
 * same value already is left alone: each bind costs a call into SQLite,
 * and most columns of a job row repeat from row to row (NULLs, zeros, its
 * class and state). The same value: the same integer, the same double bit
 * for bit, the same static string; text in the buffer is bound each time
 * (the buffer's bytes change). */
static void bind_row(const struct sqlbatch_buf *buf, sqlite3_stmt *st, int first, struct sqlbatch_val *bound,
                     const struct sqlbatch_val *v, int ncol)
{
	for (int c = 0; c < ncol; c++) {
		int i = first + c;
		struct sqlbatch_val *now = &bound[i - 1];
		switch (v[c].type) {
		case SB_INT:
			if (now->type == SB_INT && now->u.i == v[c].u.i)
				continue;
			sqlite3_bind_int64(st, i, v[c].u.i);
			break;
		case SB_REAL:
			if (now->type == SB_REAL && memcmp(&now->u.d, &v[c].u.d, sizeof v[c].u.d) == 0)
				continue;
			sqlite3_bind_double(st, i, v[c].u.d);
			break;
		case SB_TEXT:
			sqlite3_bind_text(st, i, buf->text + v[c].u.t.off, (int)v[c].u.t.len, SQLITE_STATIC);
			break;
		case SB_STATIC:
			if (now->type == SB_STATIC && now->u.s == v[c].u.s)
				continue;
			sqlite3_bind_text(st, i, v[c].u.s, -1, SQLITE_STATIC);
			break;
		default:
			if (now->type == SB_NULL)
				continue;
			sqlite3_bind_null(st, i);
			now->type = SB_NULL;
			continue;
		}
		*now = v[c];
	}
}

static int step(struct sqlbatch *b, sqlite3_stmt *st, char *err, size_t errlen)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(b->db));
		return -1;
	}
	return 0;
}

/* Whether rows r .. r + n - 1 of buf go in without their column 0: it
 * continues the table's rowids by 1 from row to row (SQLite gives a row
 * without one the largest rowid + 1, or 1 in an empty table). */
static bool rows_auto(const struct sqlbatch *b, const struct sqlbatch_buf *buf, int r, int n)
{
	if (!b->auto_many)
		return false;
	int64_t next = b->any ? b->max_rowid + 1 : 1;
	for (int k = 0; k < n; k++) {
		const struct sqlbatch_val *v = buf->v + (size_t)(r + k) * (size_t)b->ncol;
		if (v->type != SB_INT || v->u.i != next + k)
			return false;
	}
	return true;
}

/* Steps st for rows r .. r + n - 1 (their column 0 left out when `skip`)
 * and notes the rowids they took. */
static int step_rows(struct sqlbatch *b, const struct sqlbatch_buf *buf, sqlite3_stmt *st, int r, int n,
                     bool skip, char *err, size_t errlen)
{
	if (step(b, st, err, errlen) < 0)
		return -1;
	if (!b->auto_many)
		return 0;
	for (int k = 0; k < n; k++) {
		const struct sqlbatch_val *v = buf->v + (size_t)(r + k) * (size_t)b->ncol;
		if (v->type == SB_INT && (!b->any || v->u.i > b->max_rowid))
			b->max_rowid = v->u.i;
		b->any = true;
	}
	/* What SQLite numbered is what the rows said (rows_auto); checked, as
	 * a wrong rowid would be a wrong results file. */
	if (skip && sqlite3_last_insert_rowid(b->db) != b->max_rowid) {
		snprintf(err, errlen, "rowid %lld given where %lld was expected",
		         (long long)sqlite3_last_insert_rowid(b->db), (long long)b->max_rowid);
		return -1;
	}
	return 0;
}

int sqlbatch_write(struct sqlbatch *b, struct sqlbatch_buf *buf, char *err, size_t errlen)
{
	int rc = 0;
	if (buf->oom) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	} else {
		/* Whole statements of `per` rows, then the rest a row at a time. */
		int r = 0, n = b->ncol;
		for (; b->per > 1 && r + b->per <= buf->rows && rc == 0; r += b->per) {
			bool skip = rows_auto(b, buf, r, b->per);
			sqlite3_stmt *st = skip ? b->auto_many : b->many;
			struct sqlbatch_val *bound = skip ? b->auto_many_b : b->many_b;
			for (int k = 0; k < b->per; k++)
				bind_row(buf, st, k * (n - skip) + 1, bound,
				         buf->v + (size_t)(r + k) * (size_t)n + skip, n - skip);
			rc = step_rows(b, buf, st, r, b->per, skip, err, errlen);
		}
		for (; r < buf->rows && rc == 0; r++) {
			bool skip = rows_auto(b, buf, r, 1);
			sqlite3_stmt *st = skip ? b->auto_one : b->one;
			bind_row(buf, st, 1, skip ? b->auto_one_b : b->one_b,
			         buf->v + (size_t)r * (size_t)n + skip, n - skip);
			rc = step_rows(b, buf, st, r, 1, skip, err, errlen);
		}
	}
	if (rc == 0)
		b->written += buf->rows;
	buf->rows = 0;
	buf->tlen = 0;
	buf->auxlen = 0;
	return rc;
}
