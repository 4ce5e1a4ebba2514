/* shadowdb — the shadow's results file (shadowdb.h, docs/forecast.md). */
#include "analysis/shadowdb.h"
#include "analysis/dbutil.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static const char SCHEMA[] =
	"CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE IF NOT EXISTS poll (t REAL PRIMARY KEY, ok INTEGER NOT NULL, running INTEGER, pending INTEGER,"
	" forecast INTEGER, took_s REAL, cpu_s REAL, error TEXT);"
	"CREATE TABLE IF NOT EXISTS job (id INTEGER PRIMARY KEY, user TEXT, account TEXT, partition TEXT, submit REAL,"
	" limit_s REAL, start REAL, end REAL, start_from TEXT, slurm_id TEXT);"
	"CREATE TABLE IF NOT EXISTS forecast (job INTEGER NOT NULL, t REAL NOT NULL, p10 REAL, p50 REAL, p90 REAL,"
	" lim REAL, squeue REAL, PRIMARY KEY (job, t));"
	"CREATE TABLE IF NOT EXISTS accuracy (bin TEXT PRIMARY KEY, forecasts INTEGER, jobs INTEGER,"
	" hetlab_mae_s REAL, coverage REAL, squeue_n INTEGER, squeue_mae_s REAL);";

enum { Q_POLL, Q_JOB, Q_FC, Q_META, Q_N };
static const char *const QTEXT[Q_N] = {
	"INSERT OR REPLACE INTO poll VALUES (?,?,?,?,?,?,?,?)",
	"INSERT INTO job VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET user=COALESCE(excluded.user, user),"
	" slurm_id=COALESCE(excluded.slurm_id, slurm_id),"
	" account=COALESCE(excluded.account, account), partition=COALESCE(excluded.partition, partition),"
	" submit=COALESCE(excluded.submit, submit), limit_s=COALESCE(excluded.limit_s, limit_s), start=COALESCE(start, excluded.start),"
	" start_from=COALESCE(start_from, excluded.start_from), end=COALESCE(end, excluded.end)",
	"INSERT OR REPLACE INTO forecast VALUES (?,?,?,?,?,?,?)",
	"INSERT OR REPLACE INTO meta VALUES (?,?)",
};

struct shadowdb {
	sqlite3 *db;
	char path[1024];
	sqlite3_stmt *q[Q_N];
};

static int fail(struct shadowdb *d, const char *what, char *err, size_t errlen)
{
	return db_fail(d->db, d->path, what, err, errlen);
}

int shadowdb_open(struct shadowdb **out, const char *path, bool create, char *err, size_t errlen)
{
	*out = NULL;
	struct shadowdb *d = calloc(1, sizeof *d);
	if (!d)
		return db_failf(err, errlen, "%s: out of memory", path);
	snprintf(d->path, sizeof d->path, "%s", path);
	int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
	if (sqlite3_open_v2(path, &d->db, flags, NULL) != SQLITE_OK) {
		fail(d, "cannot open", err, errlen);
		shadowdb_close(d);
		return -1;
	}
	sqlite3_busy_timeout(d->db, 5000);
	if (create) {
		if (sqlite3_exec(d->db, "PRAGMA journal_mode=WAL;", NULL, NULL, NULL) != SQLITE_OK ||
		    sqlite3_exec(d->db, SCHEMA, NULL, NULL, NULL) != SQLITE_OK) {
			fail(d, "cannot create the schema", err, errlen);
			shadowdb_close(d);
			return -1;
		}
		for (int k = 0; k < Q_N; k++)
			if (sqlite3_prepare_v2(d->db, QTEXT[k], -1, &d->q[k], NULL) != SQLITE_OK) {
				fail(d, "cannot prepare", err, errlen);
				shadowdb_close(d);
				return -1;
			}
	} else {
		sqlite3_stmt *st = NULL;
		int rc = sqlite3_prepare_v2(d->db, "SELECT count(*) FROM forecast, job LIMIT 1", -1, &st, NULL);
		sqlite3_finalize(st);
		if (rc != SQLITE_OK) {
			db_failf(err, errlen, "%s: not the results of hetlab shadow (no tables forecast and job): %s", path,
			         sqlite3_errmsg(d->db));
			shadowdb_close(d);
			return -1;
		}
	}
	*out = d;
	return 0;
}

void shadowdb_close(struct shadowdb *d)
{
	if (!d)
		return;
	for (int k = 0; k < Q_N; k++)
		sqlite3_finalize(d->q[k]);
	sqlite3_close(d->db);
	free(d);
}

int shadowdb_begin(struct shadowdb *d, char *err, size_t errlen)
{
	return sqlite3_exec(d->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK ? 0 : fail(d, "begin", err, errlen);
}

int shadowdb_commit(struct shadowdb *d, char *err, size_t errlen)
{
	return sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : fail(d, "commit", err, errlen);
}

void shadowdb_rollback(struct shadowdb *d)
{
	sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
}

static void bind_real(sqlite3_stmt *q, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(q, i, v);
	else
		sqlite3_bind_null(q, i);
}

static void bind_text(sqlite3_stmt *q, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(q, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(q, i);
}

static int step(struct shadowdb *d, sqlite3_stmt *q, const char *what, char *err, size_t errlen)
{
	int rc = sqlite3_step(q);
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	return rc == SQLITE_DONE ? 0 : fail(d, what, err, errlen);
}

int shadowdb_meta(struct shadowdb *d, const char *key, const char *value, char *err, size_t errlen)
{
	sqlite3_stmt *q = d->q[Q_META];
	bind_text(q, 1, key);
	bind_text(q, 2, value);
	return step(d, q, "meta", err, errlen);
}

int shadowdb_poll(struct shadowdb *d, double t, bool ok, int running, int pending, int forecast, double took_s,
                  double cpu_s, const char *error, char *err, size_t errlen)
{
	sqlite3_stmt *q = d->q[Q_POLL];
	sqlite3_bind_double(q, 1, t);
	sqlite3_bind_int(q, 2, ok);
	sqlite3_bind_int(q, 3, running);
	sqlite3_bind_int(q, 4, pending);
	sqlite3_bind_int(q, 5, forecast);
	bind_real(q, 6, took_s);
	bind_real(q, 7, cpu_s);
	bind_text(q, 8, error);
	return step(d, q, "poll", err, errlen);
}

int shadowdb_job(struct shadowdb *d, const struct shadowdb_job *j, char *err, size_t errlen)
{
	sqlite3_stmt *q = d->q[Q_JOB];
	sqlite3_bind_int64(q, 1, j->id);
	bind_text(q, 2, j->user);
	bind_text(q, 3, j->account);
	bind_text(q, 4, j->partition);
	bind_real(q, 5, j->submit);
	bind_real(q, 6, j->limit_s);
	bind_real(q, 7, j->start);
	bind_real(q, 8, j->end);
	bind_text(q, 9, isfinite(j->start) ? j->start_from : NULL);
	bind_text(q, 10, j->slurm_id);
	return step(d, q, "job", err, errlen);
}

int shadowdb_forecast(struct shadowdb *d, int64_t job, double t, double p10, double p50, double p90, double lim,
                      double squeue, char *err, size_t errlen)
{
	sqlite3_stmt *q = d->q[Q_FC];
	sqlite3_bind_int64(q, 1, job);
	sqlite3_bind_double(q, 2, t);
	bind_real(q, 3, p10);
	bind_real(q, 4, p50);
	bind_real(q, 5, p90);
	bind_real(q, 6, lim);
	bind_real(q, 7, squeue);
	return step(d, q, "forecast", err, errlen);
}

static int ids_of(struct shadowdb *d, const char *sql, int64_t **ids, int *n, char *err, size_t errlen)
{
	*ids = NULL;
	*n = 0;
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(d->db, sql, -1, &q, NULL) != SQLITE_OK)
		return fail(d, "started", err, errlen);
	int cap = 0, rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			int64_t *v = realloc(*ids, (size_t)cap * sizeof *v);
			if (!v) {
				sqlite3_finalize(q);
				return db_failf(err, errlen, "%s: out of memory", d->path);
			}
			*ids = v;
		}
		(*ids)[(*n)++] = sqlite3_column_int64(q, 0);
	}
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : fail(d, "started", err, errlen);
}

int shadowdb_started(struct shadowdb *d, int64_t **ids, int *n, char *err, size_t errlen)
{
	return ids_of(d, "SELECT id FROM job WHERE start IS NOT NULL", ids, n, err, errlen);
}

int shadowdb_unstarted(struct shadowdb *d, int64_t **ids, int *n, char *err, size_t errlen)
{
	return ids_of(d, "SELECT id FROM job WHERE start IS NULL AND end IS NULL ORDER BY id", ids, n, err, errlen);
}

int shadowdb_history(struct shadowdb *d, void (*fn)(void *ctx, const char *user, double run_s, double limit_s),
                     void *ctx, char *err, size_t errlen)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(d->db,
	                       "SELECT coalesce(user, ''), end - start, coalesce(limit_s, 0) FROM job WHERE start IS NOT "
	                       "NULL AND end IS NOT NULL AND end >= start ORDER BY end",
	                       -1, &q, NULL) != SQLITE_OK)
		return fail(d, "history", err, errlen);
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		fn(ctx, (const char *)sqlite3_column_text(q, 0), sqlite3_column_double(q, 1), sqlite3_column_double(q, 2));
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : fail(d, "history", err, errlen);
}

static const char *const BIN_NAME[SHADOW_NBIN] = { "<1 min", "1-10 min", "10-60 min", ">1 h", "all" };

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int64_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return report_percentile(v, (size_t)n, 0.5);
}

/* The accuracy of the forecasts in db into acc. */
static int compute(sqlite3 *db, const char *path, struct shadow_acc *acc, char *err, size_t errlen)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(db,
	                       "SELECT f.job, f.t, f.p10, f.p50, f.p90, f.squeue, j.start FROM forecast f JOIN job j ON "
	                       "j.id = f.job WHERE j.start IS NOT NULL ORDER BY f.job, f.t",
	                       -1, &q, NULL) != SQLITE_OK)
		return db_fail(db, path, "accuracy", err, errlen);
	int64_t cap = 0, n = 0;
	struct row { int64_t job; double wait, eh, es; int bin; bool cov; } *r = NULL;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			struct row *v = realloc(r, (size_t)cap * sizeof *v);
			if (!v) {
				free(r);
				sqlite3_finalize(q);
				return db_failf(err, errlen, "%s: out of memory", path);
			}
			r = v;
		}
		double t = sqlite3_column_double(q, 1), start = sqlite3_column_double(q, 6);
		bool has10 = sqlite3_column_type(q, 2) != SQLITE_NULL, has50 = sqlite3_column_type(q, 3) != SQLITE_NULL,
		     has90 = sqlite3_column_type(q, 4) != SQLITE_NULL, hass = sqlite3_column_type(q, 5) != SQLITE_NULL;
		double p10 = sqlite3_column_double(q, 2), p50 = sqlite3_column_double(q, 3),
		       p90 = sqlite3_column_double(q, 4), sq = sqlite3_column_double(q, 5);
		struct row *x = &r[n++];
		x->job = sqlite3_column_int64(q, 0);
		x->wait = start > t ? start - t : 0;
		/* p50 not known (past the horizon): as far off as it can be */
		x->eh = has50 ? fabs(p50 - start) : INFINITY;
		x->es = hass ? fabs(sq - start) : NAN;
		x->cov = has10 && p10 - 1 <= start && (!has90 || start <= p90 + 1);
		x->bin = x->wait < 60 ? SHADOW_BIN_1M : x->wait < 600 ? SHADOW_BIN_10M : x->wait < 3600 ? SHADOW_BIN_1H
		                                                                                   : SHADOW_BIN_MORE;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE) {
		free(r);
		return db_fail(db, path, "accuracy", err, errlen);
	}
	double *eh = malloc(((size_t)n + 1) * sizeof *eh), *es = malloc(((size_t)n + 1) * sizeof *es);
	if (!eh || !es) {
		free(r);
		free(eh);
		free(es);
		return db_failf(err, errlen, "%s: out of memory", path);
	}
	for (int b = 0; b < SHADOW_NBIN; b++) {
		struct shadow_acc *a = &acc[b];
		*a = (struct shadow_acc){ .bin = BIN_NAME[b] };
		int64_t nh = 0, ns = 0, cov = 0;
		int64_t last = -1;
		for (int64_t k = 0; k < n; k++) {
			if (b != SHADOW_BIN_ALL && r[k].bin != b)
				continue;
			eh[nh++] = r[k].eh;
			cov += r[k].cov;
			if (!isnan(r[k].es))
				es[ns++] = r[k].es;
			if (r[k].job != last)
				a->jobs++;
			last = r[k].job;
		}
		a->forecasts = nh;
		a->squeue_n = ns;
		a->hetlab_mae_s = median(eh, nh);
		a->squeue_mae_s = median(es, ns);
		a->coverage = nh ? (double)cov / (double)nh : NAN;
	}
	free(r);
	free(eh);
	free(es);
	return 0;
}

int shadowdb_accuracy(struct shadowdb *d, struct shadow_acc *acc, char *err, size_t errlen)
{
	if (compute(d->db, d->path, acc, err, errlen))
		return -1;
	if (sqlite3_exec(d->db, "DELETE FROM accuracy", NULL, NULL, NULL) != SQLITE_OK)
		return fail(d, "accuracy", err, errlen);
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(d->db, "INSERT INTO accuracy VALUES (?,?,?,?,?,?,?)", -1, &q, NULL) != SQLITE_OK)
		return fail(d, "accuracy", err, errlen);
	for (int b = 0; b < SHADOW_NBIN; b++) {
		bind_text(q, 1, acc[b].bin);
		sqlite3_bind_int64(q, 2, acc[b].forecasts);
		sqlite3_bind_int64(q, 3, acc[b].jobs);
		bind_real(q, 4, acc[b].hetlab_mae_s);
		bind_real(q, 5, acc[b].coverage);
		sqlite3_bind_int64(q, 6, acc[b].squeue_n);
		bind_real(q, 7, acc[b].squeue_mae_s);
		if (sqlite3_step(q) != SQLITE_DONE) {
			sqlite3_finalize(q);
			return fail(d, "accuracy", err, errlen);
		}
		sqlite3_reset(q);
	}
	sqlite3_finalize(q);
	return 0;
}

static void fmt_s(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (isinf(v))
		snprintf(buf, len, "inf");
	else
		snprintf(buf, len, "%.1f", v);
}

void shadowdb_summary(const struct shadow_acc *acc, char *buf, size_t len)
{
	const struct shadow_acc *a = &acc[SHADOW_BIN_ALL];
	char h[32], s[32], c[32];
	fmt_s(h, sizeof h, a->hetlab_mae_s);
	fmt_s(s, sizeof s, a->squeue_mae_s);
	if (isnan(a->coverage))
		snprintf(c, sizeof c, "-");
	else
		snprintf(c, sizeof c, "%.0f", 100 * a->coverage);
	snprintf(buf, len, "forecast: %lld jobs, hetlab median abs error %s s, squeue --start %s s, p10-p90 coverage %s %%",
	         (long long)a->jobs, h, s, c);
}

int shadowdb_report(const char *path, FILE *out, char *err, size_t errlen)
{
	struct shadowdb *d;
	if (shadowdb_open(&d, path, false, err, errlen))
		return -1;
	struct shadow_acc acc[SHADOW_NBIN];
	int rc = compute(d->db, d->path, acc, err, errlen);
	if (rc == 0) {
		fprintf(out, "%-10s %9s %6s %13s %9s %9s %13s\n", "wait left", "forecasts", "jobs", "hetlab p50 err",
		        "p10-p90", "squeue n", "squeue err");
		for (int b = 0; b < SHADOW_NBIN; b++) {
			char h[32], s[32], c[32];
			fmt_s(h, sizeof h, acc[b].hetlab_mae_s);
			fmt_s(s, sizeof s, acc[b].squeue_mae_s);
			if (isnan(acc[b].coverage))
				snprintf(c, sizeof c, "-");
			else
				snprintf(c, sizeof c, "%.0f %%", 100 * acc[b].coverage);
			fprintf(out, "%-10s %9lld %6lld %12s s %9s %9lld %11s s\n", acc[b].bin, (long long)acc[b].forecasts,
			        (long long)acc[b].jobs, h, c, (long long)acc[b].squeue_n, s);
		}
		char line[256];
		shadowdb_summary(acc, line, sizeof line);
		fprintf(out, "%s\n", line);
	}
	shadowdb_close(d);
	return rc;
}
