/* recorder_names — the tables `name` and `job_name` of a results file: the
 * names a replayed trace gives (recorder_set_names, analysis/recorder.h).
 * Part of the recorder (analysis/recorder_int.h). */
#include "analysis/recorder_int.h"

#include <stdio.h>

static int write_names(struct recorder *r, const struct recorder_names *nm)
{
	sqlite3_stmt *st = NULL;
	if (rec_exec_sql(r, "CREATE TABLE IF NOT EXISTS name(kind TEXT NOT NULL, idx INTEGER NOT NULL,"
	         " name TEXT NOT NULL, PRIMARY KEY(kind, idx))", "creating table name") < 0)
		return -1;
	if (sqlite3_prepare_v2(r->db, "INSERT OR REPLACE INTO name(kind, idx, name) VALUES(?, ?, ?)", -1,
	                       &st, NULL) != SQLITE_OK) {
		rec_failf(r, "preparing a name row: %s", sqlite3_errmsg(r->db));
		return -1;
	}
	int rc = 0;
	for (int k = 0; k < RECORDER_NAME_KINDS && rc == 0; k++)
		for (int32_t i = 0; nm->kind[k] && i < nm->n[k] && rc == 0; i++) {
			sqlite3_bind_text(st, 1, nm->kind[k], -1, SQLITE_STATIC);
			sqlite3_bind_int(st, 2, i);
			sqlite3_bind_text(st, 3, nm->v[k][i], -1, SQLITE_STATIC);
			rc = rec_step_insert(r, st, "writing a name row");
		}
	sqlite3_finalize(st);
	return rc;
}

static int write_job_names(struct recorder *r, const struct recorder_names *nm)
{
	sqlite3_stmt *st = NULL;
	if (rec_exec_sql(r, "CREATE TABLE IF NOT EXISTS job_name(id INTEGER PRIMARY KEY, name TEXT NOT NULL)",
	         "creating table job_name") < 0)
		return -1;
	if (sqlite3_prepare_v2(r->db, "INSERT OR REPLACE INTO job_name(id, name) VALUES(?, ?)", -1, &st,
	                       NULL) != SQLITE_OK) {
		rec_failf(r, "preparing a job_name row: %s", sqlite3_errmsg(r->db));
		return -1;
	}
	int rc = 0;
	for (int32_t i = 0; i < nm->njobs && rc == 0; i++) {
		int32_t ix = nm->job_name[i];
		if (ix < 0 || ix >= nm->njob_names)
			continue;
		sqlite3_bind_int(st, 1, i);
		sqlite3_bind_text(st, 2, nm->job_names[ix], -1, SQLITE_STATIC);
		rc = rec_step_insert(r, st, "writing a job_name row");
	}
	sqlite3_finalize(st);
	return rc;
}

int recorder_set_names(struct recorder *r, const struct recorder_names *nm)
{
	if (!nm)
		return 0;
	if (r->failed)
		return -1;
	char t0[24];
	snprintf(t0, sizeof t0, "%lld", (long long)nm->unix_start);
	if (nm->unix_start >= 0 && recorder_set_meta(r, "unix_start", t0) < 0)
		return -1;
	bool any = false;
	for (int k = 0; k < RECORDER_NAME_KINDS; k++)
		any |= nm->kind[k] && nm->n[k] > 0;
	bool jobs = nm->job_name && nm->njob_names > 0 && nm->njobs > 0;
	if (!any && !jobs)
		return 0;
	if (r->wq_ok)
		workq_drain(&r->wq);   /* the connection is the writer thread's while it works */
	if (any && write_names(r, nm) < 0)
		return -1;
	if (jobs && write_job_names(r, nm) < 0)
		return -1;
	return 0;
}
