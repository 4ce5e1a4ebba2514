/* twincheck_db — a run database's jobs as twincheck's arrays; see
 * twincheck.h. */
#include "analysis/twincheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "analysis/dbutil.h"

/* bf_interval_s=V in the run's "name=value name=value" text; NAN when absent. */
static double param_of(const char *params, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = params; p && *p;) {
		p += strspn(p, " ");
		if (strncmp(p, name, n) == 0 && p[n] == '=') {
			char *e;
			double v = strtod(p + n + 1, &e);
			return e > p + n + 1 ? v : NAN;
		}
		p += strcspn(p, " ");
	}
	return NAN;
}

static int read_bf(sqlite3 *db, const char *path, double *bf, char *err, size_t errlen)
{
	*bf = NAN;
	if (!report_has_column(db, "run", "policy_params"))
		return 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT policy_params FROM run", -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, path, "reading table run", err, errlen);
	if (sqlite3_step(st) == SQLITE_ROW)
		*bf = param_of((const char *)sqlite3_column_text(st, 0), "bf_interval_s");
	sqlite3_finalize(st);
	return 0;
}

int twincheck_load_db(const char *path, bool by_name, struct twincheck_job **jobs, int64_t *n,
                      double *bf_interval_s, char *err, size_t errlen)
{
	*jobs = NULL;
	*n = 0;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct twincheck_job *j = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		if (db)
			db_fail(db, path, "cannot open", err, errlen);
		else
			db_failf(err, errlen, "%s: cannot open: %s", path, sqlite3_errstr(rc));
		goto fail;
	}
	if (!report_has_column(db, "job", "trace_id") || !report_has_column(db, "job", "preemptions")) {
		db_failf(err, errlen, "%s: not a hetlab results file (no job table with trace_id and "
		         "preemptions)", path);
		goto fail;
	}
	if (by_name && !report_has_column(db, "job_name", "name")) {
		db_failf(err, errlen, "%s: the run has no job names (table job_name): match --by jobid",
		         path);
		goto fail;
	}
	if (read_bf(db, path, bf_interval_s, err, errlen) < 0)
		goto fail;
	int64_t cap = 0;
	const char *q = by_name
	        ? "SELECT coalesce(n.name, ''), j.submit_us, j.start_us, j.preemptions FROM job j "
	          "LEFT JOIN job_name n ON n.id = j.id ORDER BY j.id"
	        : "SELECT j.trace_id, j.submit_us, j.start_us, j.preemptions FROM job j ORDER BY j.id";
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK) {
		db_fail(db, path, "reading table job", err, errlen);
		goto fail;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			void *p = realloc(j, (size_t)cap * sizeof *j);
			if (!p) {
				db_failf(err, errlen, "%s: out of memory", path);
				goto fail;
			}
			j = p;
		}
		struct twincheck_job *x = &j[(*n)++];
		const unsigned char *k = sqlite3_column_text(st, 0);
		snprintf(x->key, sizeof x->key, "%s", k ? (const char *)k : "");
		x->submit_s = (double)sqlite3_column_int64(st, 1) / 1e6;
		x->start_s = sqlite3_column_type(st, 2) == SQLITE_NULL
		           ? NAN : (double)sqlite3_column_int64(st, 2) / 1e6;
		x->preemptions = sqlite3_column_int(st, 3);
	}
	if (rc != SQLITE_DONE) {
		db_fail(db, path, "reading table job", err, errlen);
		goto fail;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	*jobs = j;
	return 0;
fail:
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(j);
	*n = 0;
	return -1;
}
