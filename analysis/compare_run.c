/* compare_run — one run database read for compare and sweep: its settings
 * (table run), a digest of its workload and its metrics (see compare.h).
 * The sweep's variant takes the metrics the run stored itself when they
 * are valid (analysis/runmetric.h). */
#include "analysis/compare.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "analysis/dbutil.h"
#include "analysis/recorder.h"
#include "analysis/runmetric.h"

/* ---- one run --------------------------------------------------------------- */

static int run_check_schema(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	static const char *const tables[] = { "meta", "run", "job", NULL };
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
	                       -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, path, "cannot read", err, errlen);
	for (int i = 0; tables[i]; i++) {
		sqlite3_bind_text(st, 1, tables[i], -1, SQLITE_STATIC);
		int rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_ROW) {
			sqlite3_finalize(st);
			if (rc == SQLITE_DONE)
				return db_failf(err, errlen, "%s: not a hetlab results file (no table '%s')",
				             path, tables[i]);
			return db_fail(db, path, "cannot read", err, errlen);
		}
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &st,
	                       NULL) != SQLITE_OK)
		return db_fail(db, path, "reading meta", err, errlen);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (rc == SQLITE_DONE)
			return db_failf(err, errlen, "%s: no schema_version in table meta", path);
		return db_fail(db, path, "reading meta", err, errlen);
	}
	int64_t version = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (version < 1)
		return db_failf(err, errlen, "%s: bad schema_version in table meta", path);
	if (version > RECORDER_SCHEMA_VERSION)
		return db_failf(err, errlen, "%s: schema version %" PRId64 " is newer than this hetlab "
		             "reads (%d); use a newer hetlab", path, version, RECORDER_SCHEMA_VERSION);
	return 0;
}

static char *col_strdup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return strdup(t ? (const char *)t : "");
}

/* A side is a queue discipline and a placement: "easy, placement topology"
 * when the run placed by anything but first fit (files from before
 * placements existed have no such column and keep the policy alone). */
static void with_placement(sqlite3 *db, char **policy)
{
	sqlite3_stmt *st = NULL;
	if (*policy && sqlite3_prepare_v2(db, "SELECT placement FROM run", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT) {
		const char *pl = (const char *)sqlite3_column_text(st, 0);
		char *both;
		if (strcmp(pl, "first-fit") != 0 && asprintf(&both, "%s, placement %s", *policy, pl) >= 0) {
			free(*policy);
			*policy = both;
		}
	}
	sqlite3_finalize(st);
}

/* FNV-1a over the job table's workload: each job's class, tenant, submit
 * time and request, in id order. The same seed under two policies gives
 * the same digest; another workload (another seed, scale or trace) almost
 * surely another. */
static int workload_digest(sqlite3 *db, const char *path, uint64_t *out, char *err, size_t errlen)
{
	static const char *const cols[] = { "class", "tenant", "submit_us", "req_cores", "req_gpus",
		"mem_mib", NULL };
	char sql[512] = "SELECT ";
	size_t off = strlen(sql);
	for (int k = 0; cols[k]; k++)
		off += (size_t)snprintf(sql + off, sizeof sql - off, "%s%s", k ? ", " : "",
		                        report_has_column(db, "job", cols[k]) ? cols[k] : "NULL");
	snprintf(sql + off, sizeof sql - off, " FROM job ORDER BY id");
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, path, "reading table job", err, errlen);
	uint64_t h = 1469598103934665603ULL;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		for (int k = 0; cols[k]; k++) {
			const unsigned char *t = sqlite3_column_text(st, k);
			for (; t && *t; t++)
				h = (h ^ *t) * 1099511628211ULL;
			h = (h ^ '|') * 1099511628211ULL;
		}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(db, path, "reading table job", err, errlen);
	*out = h;
	return 0;
}

void compare_run_fini(struct compare_run *r)
{
	free(r->path);
	free(r->seed);
	free(r->policy);
	free(r->scenario);
	free(r->policy_params);
	free(r->cluster);
	metric_set_fini(&r->m);
	memset(r, 0, sizeof *r);
}

/* stored NULL: the full load; else the run's own table when valid (*stored
 * set, no workload digest), the full load otherwise. */
static int run_load(const char *path, const struct metric_window *w, struct compare_run *r,
                    bool *stored, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int ret = -1;
	if (!(r->path = strdup(path))) {
		db_failf(err, errlen, "%s: out of memory", path);
		goto out_run;
	}
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		if (db)
			db_fail(db, path, "cannot open", err, errlen);
		else
			db_failf(err, errlen, "%s: cannot open: %s", path, sqlite3_errstr(rc));
		goto out_db;
	}
	if (run_check_schema(db, path, err, errlen) < 0)
		goto out_db;
	if (sqlite3_prepare_v2(db, report_has_column(db, "run", "policy_params")
	                       ? "SELECT scenario, policy, seed, policy_params FROM run"
	                       : "SELECT scenario, policy, seed, NULL FROM run", -1, &st, NULL) != SQLITE_OK) {
		db_fail(db, path, "reading table run", err, errlen);
		goto out_db;
	}
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			db_failf(err, errlen, "%s: table run is empty", path);
		else
			db_fail(db, path, "reading table run", err, errlen);
		goto out_st;
	}
	if (sqlite3_column_type(st, 2) == SQLITE_NULL) {
		db_failf(err, errlen, "%s: the run has no seed", path);
		goto out_st;
	}
	r->scenario = col_strdup(st, 0);
	r->policy = col_strdup(st, 1);
	r->seed = col_strdup(st, 2);
	if (sqlite3_column_type(st, 3) == SQLITE_TEXT && sqlite3_column_bytes(st, 3) > 0)
		r->policy_params = col_strdup(st, 3);
	with_placement(db, &r->policy);
	if (report_has_column(db, "run", "total_gpus")) {
		sqlite3_stmt *cs = NULL;
		if (sqlite3_prepare_v2(db, "SELECT printf('%d nodes, %d cores, %d GPUs', nodes, total_cores, total_gpus) FROM run",
		                       -1, &cs, NULL) == SQLITE_OK && sqlite3_step(cs) == SQLITE_ROW)
			r->cluster = col_strdup(cs, 0);
		sqlite3_finalize(cs);
	}
	if (!r->scenario || !r->policy || !r->seed) {
		db_failf(err, errlen, "%s: out of memory", path);
		goto out_st;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (stored) {
		int got = runmetric_load(db, path, w, &r->m, err, errlen);
		if (got < 0)
			goto out_db;
		if ((*stored = got == 1)) {
			ret = 0;
			goto out_db;
		}
	}
	if (workload_digest(db, path, &r->workload, err, errlen) < 0 ||
	    metric_run_load(path, w, &r->m, err, errlen) < 0)
		goto out_db;
	ret = 0;
out_st:
	sqlite3_finalize(st);
out_db:
	sqlite3_close(db);
out_run:
	if (ret < 0)
		compare_run_fini(r);
	return ret;
}

int compare_run_load(const char *path, const struct metric_window *w, struct compare_run *r,
                     char *err, size_t errlen)
{
	return run_load(path, w, r, NULL, err, errlen);
}

int compare_run_load_summary(const char *path, const struct metric_window *w,
                             struct compare_run *r, bool *stored, char *err, size_t errlen)
{
	*stored = false;
	return run_load(path, w, r, stored, err, errlen);
}
