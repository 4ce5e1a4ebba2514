/* dbutil — helpers shared by the readers of a results file (see dbutil.h). */
#include "analysis/dbutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

double report_percentile(const double *x, size_t n, double p)
{
	if (n == 0)
		return NAN;
	double h = (double)(n - 1) * p;
	size_t lo = (size_t)floor(h);
	if (lo + 1 >= n)
		return x[n - 1];
	return x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]);
}

int report_prepare_jobs(sqlite3 *db, sqlite3_stmt **st)
{
	/* GPUs in card equivalents: a time-sliced share "250m" counts 0.25, a
	 * MIG instance "3g.40gb" 3/7 of its card. Files without gpu_share
	 * (before shares existed) take the plain count. */
	if (sqlite3_prepare_v2(db,
	                       "SELECT class, state, submit_us, start_us, end_us, cores,"
	                       " CASE WHEN gpu_share LIKE '%m' THEN gpus * CAST(rtrim(gpu_share, 'm') AS REAL) / 1000"
	                       " WHEN gpu_share LIKE '%g.%' THEN gpus * CAST(substr(gpu_share, 1, instr(gpu_share, 'g') - 1) AS REAL) / 7"
	                       " ELSE gpus END FROM job ORDER BY id", -1, st, NULL) == SQLITE_OK)
		return SQLITE_OK;
	sqlite3_finalize(*st);
	*st = NULL;
	return sqlite3_prepare_v2(db, "SELECT class, state, submit_us, start_us, end_us, cores, gpus"
	                          " FROM job ORDER BY id", -1, st, NULL);
}

bool report_has_column(sqlite3 *db, const char *table, const char *col)
{
	char sql[96];
	snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
	sqlite3_stmt *st = NULL;
	bool found = false;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK)
		while (!found && sqlite3_step(st) == SQLITE_ROW) {
			const unsigned char *name = sqlite3_column_text(st, 1);
			found = name && strcmp((const char *)name, col) == 0;
		}
	sqlite3_finalize(st);
	return found;
}


int db_failf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int db_fail(sqlite3 *db, const char *path, const char *what, char *err, size_t errlen)
{
	return db_failf(err, errlen, "%s: %s: %s", path, what, sqlite3_errmsg(db));
}
