/* db_fixture — reading a results file in a unit test: open it read-only,
 * one value of a query (the test fails when the query does not prepare or
 * returns no row). Include after cmocka.h. */
#ifndef HL_DB_FIXTURE_H
#define HL_DB_FIXTURE_H

#include <sqlite3.h>
#include <stdint.h>

static inline sqlite3 *db_open(const char *path)
{
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	return db;
}

static inline sqlite3_stmt *q_row(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	return st;
}

static inline int64_t q_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = q_row(db, sql);
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static inline double q_real(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = q_row(db, sql);
	double v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

#endif
