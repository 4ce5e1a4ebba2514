/* Tests of analysis/sqlbatch: rows buffered and inserted many at a time
 * store exactly what was given — a parameter left NULL by one row and set
 * by the next, or set to the same value as the row before (a statement
 * keeps its parameters across sqlite3_reset, and sqlbatch skips binding a
 * value bound already), and rowids that SQLite numbers itself
 * where they continue the table's (sqlbatch_rowid_first) beside rows that
 * do not (a gap, a row out of order, a first row of 0). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "analysis/sqlbatch.h"

#define COLS "id, a, b, c"

static sqlite3 *open_db(void)
{
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT, c REAL)",
	                              NULL, NULL, NULL), SQLITE_OK);
	return db;
}

static const char *const statics[] = { "x", "y" };

/* Row k's values, as both ways write them: NULL or not by k, and values
 * that repeat from row to row (an integer in runs of 4, two static
 * strings, 0.0 and -0.0), which sqlbatch does not bind again: a value
 * bound already must be the row's, and a changed one bound. */
static bool a_of(int k, int64_t *a)
{
	*a = (k / 4) * 10;
	return k % 3 != 1;
}

static const char *static_of(int k)
{
	return k % 2 == 1 && k % 6 != 5 ? statics[k % 12 < 6] : NULL;
}

static bool c_of(int k, double *c)
{
	*c = k % 5 == 2 ? k + 0.5 : k % 5 == 3 ? -0.0 : 0.0;
	return k % 5 >= 2;
}

/* Row k of the test: its id from ids[], the other columns by k. */
static void fill(struct sqlbatch *b, int64_t id, int k)
{
	struct sqlbatch_val *v = sqlbatch_row(b);
	assert_non_null(v);
	sqlbatch_int(&v[0], id);
	int64_t a;
	double c;
	if (a_of(k, &a))
		sqlbatch_int(&v[1], a);
	char s[16];
	snprintf(s, sizeof s, "r%d", k);
	if (k % 2 == 0)
		sqlbatch_text(b, &v[2], s, strlen(s));
	else
		sqlbatch_static(&v[2], static_of(k));
	if (c_of(k, &c))
		sqlbatch_real(&v[3], c);
}

/* The table as text, a row a line, in rowid order. */
static char *dump(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT rowid, id, quote(a), quote(b), quote(c) FROM t ORDER BY rowid",
	                                    -1, &st, NULL), SQLITE_OK);
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap);
	assert_non_null(out);
	out[0] = '\0';
	while (sqlite3_step(st) == SQLITE_ROW) {
		assert_true(len + 200 < cap);
		len += (size_t)snprintf(out + len, cap - len, "%lld %lld %s %s %s\n", sqlite3_column_int64(st, 0),
		                        sqlite3_column_int64(st, 1), sqlite3_column_text(st, 2),
		                        sqlite3_column_text(st, 3), sqlite3_column_text(st, 4));
	}
	sqlite3_finalize(st);
	return out;
}

/* The same rows through sqlbatch (per rows a statement, buffers of cap)
 * and through one plain INSERT each must give the same table. */
static void check_same(const int64_t *ids, int n, int per, int cap, bool rowid_first)
{
	char err[256];
	sqlite3 *db = open_db();
	struct sqlbatch b;
	assert_int_equal(sqlbatch_init(&b, db, "t", COLS, 4, per, cap, err, sizeof err), 0);
	if (rowid_first)
		assert_int_equal(sqlbatch_rowid_first(&b, "t", COLS, err, sizeof err), 0);
	for (int k = 0; k < n; k++) {
		if (sqlbatch_full(&b))
			assert_int_equal(sqlbatch_write(&b, b.cur, err, sizeof err), 0);
		fill(&b, ids[k], k);
	}
	assert_int_equal(sqlbatch_write(&b, b.cur, err, sizeof err), 0);
	assert_int_equal(b.written, n);
	sqlbatch_fini(&b);
	char *got = dump(db);
	sqlite3_close(db);

	db = open_db();
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO t(id, a, b, c) VALUES(?,?,?,?)", -1, &st, NULL),
	                 SQLITE_OK);
	for (int k = 0; k < n; k++) {
		sqlite3_clear_bindings(st);
		sqlite3_bind_int64(st, 1, ids[k]);
		int64_t a;
		double c;
		if (a_of(k, &a))
			sqlite3_bind_int64(st, 2, a);
		char s[16];
		snprintf(s, sizeof s, "r%d", k);
		if (k % 2 == 0)
			sqlite3_bind_text(st, 3, s, -1, SQLITE_TRANSIENT);
		else if (static_of(k))
			sqlite3_bind_text(st, 3, static_of(k), -1, SQLITE_STATIC);
		if (c_of(k, &c))
			sqlite3_bind_double(st, 4, c);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	char *want = dump(db);
	sqlite3_close(db);
	assert_string_equal(got, want);
	free(got);
	free(want);
}

static void test_nulls_kept(void **state)
{
	(void)state;
	int64_t ids[200];
	for (int k = 0; k < 200; k++)
		ids[k] = 1000 - 3 * k;   /* descending: never numbered by SQLite */
	check_same(ids, 200, 8, 32, false);
	check_same(ids, 200, 8, 32, true);
	check_same(ids, 200, 1, 7, true);
}

static void test_rowids(void **state)
{
	(void)state;
	int64_t ids[300];
	/* 0 first, then 1, 2, ...; a gap; a row below the largest; more in order. */
	for (int k = 0; k < 300; k++)
		ids[k] = k < 100 ? k : k < 150 ? k + 50 : k < 151 ? 7000 : k < 152 ? 5000 : 7000 + (k - 151);
	check_same(ids, 300, 16, 64, true);
	check_same(ids, 300, 16, 64, false);
	/* 1 first, as the event table's seq. */
	for (int k = 0; k < 300; k++)
		ids[k] = k + 1;
	check_same(ids, 300, 64, 512, true);
	check_same(ids, 300, 7, 21, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nulls_kept),
		cmocka_unit_test(test_rowids),
	};
	return cmocka_run_group_tests_name("sqlbatch", tests, NULL, NULL);
}
