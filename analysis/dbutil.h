/* dbutil — the small helpers every reader of a results file (run.db)
 * shares, below the report, the metric registry's reader (mrun), the
 * figures, compare and billing: whether a table has a column (how readers
 * tolerate files older than a column), the job query they share, and the
 * percentile every distribution of the report and the registry uses.
 *
 * The names keep the report_ prefix they were born with (report.h
 * includes this header). Ownership: nothing is kept; a prepared statement
 * is the caller's to finalise. */
#ifndef HL_DBUTIL_H
#define HL_DBUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sqlite3.h>

/* Linear interpolation between the closest ranks of sorted x[0..n-1]
 * (p in [0, 1]); NaN when n is 0. Exposed for the tests. */
double report_percentile(const double *x, size_t n, double p);

/* Prepares the job query every reader of run.db shares: class, state,
 * submit_us, start_us, end_us, cores, GPUs in card equivalents (column 6,
 * REAL), ordered by id. An SQLite result code. */
int report_prepare_jobs(sqlite3 *db, sqlite3_stmt **st);
/* True when table `table` of db has column `col` (false when it has no
 * such table): how readers tolerate files older than a column. */
bool report_has_column(sqlite3 *db, const char *table, const char *col);
/* Formats into err (errlen bytes); returns -1, for `return db_failf(...)`. */
int db_failf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "PATH: WHAT: sqlite3_errmsg(db)" into err; -1. */
int db_fail(sqlite3 *db, const char *path, const char *what, char *err, size_t errlen);

#endif
