/* sqlrows — what SQLite alone costs a results file's event rows: the
 * floor under the recorder's inserts.
 *
 *   sqlrows [--rows N] [--runs R]
 *
 * Inserts N rows (default 366171: LANL-CM5 EASY's event table) shaped as
 * the event table's (docs/results.md) into a fresh file with the
 * recorder's settings (page size, no journal, no syncs, exclusive lock,
 * one transaction), 64 rows a multi-row INSERT, in two ways: with the
 * key (seq) given, and without it (SQLite numbers the rows 1, 2, 3, ...:
 * what the recorder does since issue 34). Each way R times (default 3),
 * alternately; prints the medians of the CPU time of the inserts (the
 * thread's, the process's only one; the COMMIT is left out) and of the
 * wall time, in seconds and per row. Nothing of hetlab is timed: only
 * SQLite, as the system's libsqlite3 builds it. Exit status 0, 1 on an
 * SQLite error, 2 on bad arguments. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis/recorder.h"
#include "bench/benchutil.h"

#define PER 64
#define NCOL 7

static const char *const kinds[] = { "submit", "start", "end" };
static const char *const states[] = { "pending", "running", "done" };

static char *insert_sql(bool key)
{
	size_t cap = 128 + PER * (NCOL * 2 + 4);
	char *sql = malloc(cap);
	if (!sql)
		return NULL;
	size_t o = (size_t)snprintf(sql, cap, "INSERT INTO event(%st_us, kind, job, node, state, detail) VALUES",
	                            key ? "seq, " : "");
	int ncol = key ? NCOL : NCOL - 1;
	for (int r = 0; r < PER; r++) {
		sql[o++] = r ? ',' : ' ';
		sql[o++] = '(';
		for (int c = 0; c < ncol; c++) {
			if (c)
				sql[o++] = ',';
			sql[o++] = '?';
		}
		sql[o++] = ')';
	}
	sql[o] = '\0';
	return sql;
}

/* One run: CPU and wall seconds of the inserts, or -1. */
static int one(const char *path, int64_t rows, bool key, double *cpu, double *wall)
{
	unlink(path);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char *sql = insert_sql(key), pragmas[256];
	snprintf(pragmas, sizeof pragmas, "PRAGMA page_size=%d; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
	         " PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-8192; BEGIN;", RECORDER_PAGE_SIZE);
	int rc = -1;
	if (!sql || sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
	                            NULL) != SQLITE_OK ||
	    sqlite3_exec(db, pragmas, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "CREATE TABLE event(seq INTEGER PRIMARY KEY, t_us INTEGER NOT NULL, kind TEXT NOT NULL,"
	                 " job INTEGER, node INTEGER, state TEXT, detail TEXT)", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "sqlrows: %s: %s\n", path, db ? sqlite3_errmsg(db) : "cannot open");
		goto out;
	}
	double t0 = bench_now_s(), c0 = bench_cpu_s();
	for (int64_t i = 0; i + PER <= rows; i += PER) {
		int p = 1;
		for (int k = 0; k < PER; k++) {
			int64_t s = i + k + 1;
			if (key)
				sqlite3_bind_int64(st, p++, s);
			sqlite3_bind_int64(st, p++, s * 1000000);
			sqlite3_bind_text(st, p++, kinds[s % 3], -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, p++, s / 3);
			if (s % 3 == 1)
				sqlite3_bind_int64(st, p++, s % 1024);
			else
				sqlite3_bind_null(st, p++);
			sqlite3_bind_text(st, p++, states[s % 3], -1, SQLITE_STATIC);
			sqlite3_bind_null(st, p++);
		}
		if (sqlite3_step(st) != SQLITE_DONE) {
			fprintf(stderr, "sqlrows: %s\n", sqlite3_errmsg(db));
			goto out;
		}
		sqlite3_reset(st);
	}
	*cpu = bench_cpu_s() - c0;
	*wall = bench_now_s() - t0;
	rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(sql);
	unlink(path);
	return rc;
}

int main(int argc, char **argv)
{
	int64_t rows = 366171;
	int runs = 3;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc)
			rows = atoll(argv[++i]);
		else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: sqlrows [--rows N] [--runs R]\n");
			return 2;
		}
	}
	if (rows < PER || runs < 1 || runs > BENCH_MAX_RUNS) {
		fprintf(stderr, "sqlrows: --rows at least %d, --runs 1 to %d\n", PER, BENCH_MAX_RUNS);
		return 2;
	}
	rows -= rows % PER;
	const char *tmp = getenv("TMPDIR");
	char path[512];
	snprintf(path, sizeof path, "%s/hetlab-sqlrows-%d.db", tmp && *tmp ? tmp : "/tmp", (int)getpid());
	double cpu[2][BENCH_MAX_RUNS], wall[2][BENCH_MAX_RUNS];
	for (int r = 0; r < runs; r++)
		for (int k = 0; k < 2; k++) {
			bool key = (r + k) % 2 == 0;
			if (one(path, rows, key, &cpu[!key][r], &wall[!key][r]) < 0)
				return 1;
		}
	printf("sqlrows: %lld event rows, %d a multi-row INSERT, SQLite %s, page size %d; medians of %d runs"
	       " (CPU s of the inserting thread, the only one)\n", (long long)rows, PER, sqlite3_libversion(),
	       RECORDER_PAGE_SIZE, runs);
	for (int k = 0; k < 2; k++) {
		double c = bench_median(cpu[k], runs), w = bench_median(wall[k], runs);
		printf("  %-24s CPU %.3f s (%.0f ns a row), wall %.3f s\n", k ? "SQLite numbers the rows" : "the key given",
		       c, c / (double)rows * 1e9, w);
	}
	return 0;
}
