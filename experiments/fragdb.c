/* fragdb — the frag database (docs/results.md, "frag databases"): written
 * in one transaction to a temporary file renamed over the target; read back
 * for the tables (with the published reference where experiments/fragref.h
 * knows the pod list), the report and the plot. Declared in frag.h. */
#include "experiments/frag.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "experiments/fragref.h"
#include "analysis/plot.h"

/* ---- database ------------------------------------------------------------------------ */

static const char schema[] =
	"PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE frag_run(policy TEXT, seed INTEGER, pods INTEGER, placed INTEGER,"
	" failed INTEGER, arrived_milli INTEGER, alloc_milli INTEGER, cpu_alloc_milli INTEGER,"
	" mem_alloc_mib INTEGER, cpu_s REAL, PRIMARY KEY(policy, seed));"
	"CREATE TABLE frag_step(policy TEXT, seed INTEGER, pct INTEGER, arrived_milli INTEGER,"
	" alloc_milli INTEGER, alloc_ratio REAL, frag_milli REAL, frag_ratio REAL,"
	" placed INTEGER, failed INTEGER, events INTEGER, PRIMARY KEY(policy, seed, pct));";

static int dbfail(sqlite3 *db, const char *path, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: %s: %s", path, what, db ? sqlite3_errmsg(db) : "out of memory");
	return -1;
}

int frag_write_db(const char *path, const struct frag_meta *m, int n, const struct frag_result *r,
                  char *err, size_t errlen)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
	unlink(tmp);
	sqlite3 *db = NULL;
	sqlite3_stmt *sm = NULL, *sr = NULL, *ss = NULL;
	int rc = -1;
	if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		dbfail(db, tmp, "cannot create", err, errlen);
		goto out;
	}
	if (sqlite3_exec(db, schema, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		dbfail(db, tmp, "creating tables", err, errlen);
		goto out;
	}
	if (sqlite3_prepare_v2(db, "INSERT INTO meta VALUES(?,?)", -1, &sm, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO frag_run VALUES(?,?,?,?,?,?,?,?,?,?)", -1, &sr,
	                       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO frag_step VALUES(?,?,?,?,?,?,?,?,?,?,?)", -1, &ss,
	                       NULL) != SQLITE_OK) {
		dbfail(db, tmp, "preparing", err, errlen);
		goto out;
	}
	char v[64];
	snprintf(v, sizeof v, "%.17g", m->inflate);
	char c[32], list[256];
	snprintf(c, sizeof c, "%lld", (long long)m->gpu_milli_cap);
	fragref_list_name(m->pods ? m->pods : "", list, sizeof list);
	const char *kv[][2] = { { "kind", "frag" }, { "schema_version", "2" },
	                        { "nodes", m->nodes ? m->nodes : "" },
	                        { "pods", m->pods ? m->pods : "" }, { "pod_list", list },
	                        { "inflate", v }, { "gpu_milli_capacity", c } };
	for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++) {
		sqlite3_bind_text(sm, 1, kv[i][0], -1, SQLITE_STATIC);
		sqlite3_bind_text(sm, 2, kv[i][1], -1, SQLITE_STATIC);
		if (sqlite3_step(sm) != SQLITE_DONE) {
			dbfail(db, tmp, "writing meta", err, errlen);
			goto out;
		}
		sqlite3_reset(sm);
	}
	for (int k = 0; k < n; k++) {
		const struct frag_result *x = &r[k];
		sqlite3_bind_text(sr, 1, x->policy, -1, SQLITE_STATIC);
		sqlite3_bind_int64(sr, 2, (sqlite3_int64)x->seed);
		sqlite3_bind_int(sr, 3, x->npods);
		sqlite3_bind_int(sr, 4, x->placed);
		sqlite3_bind_int(sr, 5, x->failed);
		sqlite3_bind_int64(sr, 6, x->arrived_milli);
		sqlite3_bind_int64(sr, 7, x->alloc_milli);
		sqlite3_bind_int64(sr, 8, x->cpu_alloc);
		sqlite3_bind_int64(sr, 9, x->mem_alloc);
		sqlite3_bind_double(sr, 10, x->wall_s);
		if (sqlite3_step(sr) != SQLITE_DONE) {
			dbfail(db, tmp, "writing frag_run", err, errlen);
			goto out;
		}
		sqlite3_reset(sr);
		for (int j = 0; j < x->nsteps; j++) {
			const struct frag_step *s = &x->step[j];
			sqlite3_bind_text(ss, 1, x->policy, -1, SQLITE_STATIC);
			sqlite3_bind_int64(ss, 2, (sqlite3_int64)x->seed);
			sqlite3_bind_int(ss, 3, s->pct);
			sqlite3_bind_int64(ss, 4, s->arrived_milli);
			sqlite3_bind_int64(ss, 5, s->alloc_milli);
			sqlite3_bind_double(ss, 6, s->alloc_ratio);
			sqlite3_bind_double(ss, 7, s->frag_milli);
			sqlite3_bind_double(ss, 8, s->frag_ratio);
			sqlite3_bind_int(ss, 9, s->placed);
			sqlite3_bind_int(ss, 10, s->failed);
			sqlite3_bind_int(ss, 11, s->events);
			if (sqlite3_step(ss) != SQLITE_DONE) {
				dbfail(db, tmp, "writing frag_step", err, errlen);
				goto out;
			}
			sqlite3_reset(ss);
		}
	}
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		dbfail(db, tmp, "commit", err, errlen);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(sm);
	sqlite3_finalize(sr);
	sqlite3_finalize(ss);
	if (db && sqlite3_close(db) != SQLITE_OK && rc == 0)
		rc = dbfail(db, tmp, "close", err, errlen);
	if (rc == 0 && rename(tmp, path) < 0) {
		snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
		rc = -1;
	}
	if (rc < 0)
		unlink(tmp);
	return rc;
}

/* ---- reading ------------------------------------------------------------------------- */

int frag_db_is(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int is = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return -1;
	}
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key='kind'", -1, &st, NULL) ==
	    SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(st, 0);
		is = v && strcmp((const char *)v, "frag") == 0;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return is;
}

/* Per (policy, pct): n, mean and sample sd of alloc_ratio and frag_ratio,
 * policies in the order they were run. */
static const char agg_sql[] =
	"SELECT s.policy, s.pct, COUNT(*), AVG(s.alloc_ratio), AVG(s.alloc_ratio*s.alloc_ratio),"
	" AVG(s.frag_ratio), AVG(s.frag_ratio*s.frag_ratio)"
	" FROM frag_step s JOIN (SELECT policy, MIN(rowid) AS o FROM frag_run GROUP BY policy) p"
	" ON p.policy = s.policy %s GROUP BY s.policy, s.pct ORDER BY p.o, s.pct";

static double sd_of(int n, double m, double m2)
{
	if (n < 2)
		return 0;
	double v = (m2 - m * m) * n / (n - 1);
	return v > 0 ? sqrt(v) : 0;
}

static int agg_open(const char *path, int pct, sqlite3 **db, sqlite3_stmt **st, char *err,
                    size_t errlen)
{
	char sql[1024], where[64] = "";
	if (pct > 0)
		snprintf(where, sizeof where, "WHERE s.pct = %d", pct);
	snprintf(sql, sizeof sql, agg_sql, where);
	if (sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return dbfail(*db, path, "cannot open", err, errlen);
	if (sqlite3_prepare_v2(*db, sql, -1, st, NULL) != SQLITE_OK)
		return dbfail(*db, path, "not a frag database", err, errlen);
	return 0;
}

int frag_table_at(const char *path, int pct, struct frag_cell *cells, int max, int *ncells,
                  char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	*ncells = 0;
	int rc = agg_open(path, pct, &db, &st, err, errlen);
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW && *ncells < max) {
		struct frag_cell *c = &cells[(*ncells)++];
		snprintf(c->policy, sizeof c->policy, "%s", (const char *)sqlite3_column_text(st, 0));
		c->n = sqlite3_column_int(st, 2);
		c->alloc_mean = 100 * sqlite3_column_double(st, 3);
		c->alloc_sd = 100 * sd_of(c->n, sqlite3_column_double(st, 3), sqlite3_column_double(st, 4));
		c->frag_mean = 100 * sqlite3_column_double(st, 5);
		c->frag_sd = 100 * sd_of(c->n, sqlite3_column_double(st, 5), sqlite3_column_double(st, 6));
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

/* meta value of key into v ("" when absent). */
static int meta_get(const char *path, const char *key, char *v, size_t n, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	v[0] = '\0';
	int rc = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key=?", -1, &st, NULL) != SQLITE_OK)
		rc = dbfail(db, path, "not a frag database", err, errlen);
	else {
		sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			snprintf(v, n, "%s", (const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

/* The pod list's name (meta pod_list, else from meta pods) and the last
 * step every run has (the end point). */
static int list_and_end(const char *path, char *list, size_t n, int *end, char *err,
                        size_t errlen)
{
	char pods[4096];
	if (meta_get(path, "pod_list", list, n, err, errlen) < 0)
		return -1;
	if (!list[0]) {
		if (meta_get(path, "pods", pods, sizeof pods, err, errlen) < 0)
			return -1;
		fragref_list_name(pods, list, n);
	}
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rc = 0;
	*end = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT min(m) FROM (SELECT max(pct) m FROM frag_step GROUP BY "
	                       "policy, seed)", -1, &st, NULL) != SQLITE_OK)
		rc = dbfail(db, path, "not a frag database", err, errlen);
	else if (sqlite3_step(st) == SQLITE_ROW)
		*end = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int frag_print_table(const char *path, FILE *out, char *err, size_t errlen)
{
	enum { MAXC = 16 };
	struct frag_cell a[MAXC], e[MAXC];
	int na = 0, ne = 0, end = 0;
	char list[256];
	if (list_and_end(path, list, sizeof list, &end, err, errlen) < 0 ||
	    frag_table_at(path, 100, a, MAXC, &na, err, errlen) < 0 ||
	    frag_table_at(path, end, e, MAXC, &ne, err, errlen) < 0)
		return -1;
	int ref = fragref_has_list(list);
	fprintf(out, "GPU allocation ratio (%%, mean ± sd over seeds) at 100 %% and at the end "
	        "point, %d %%, of GPU capacity arrived; pod list %s\n", end, list);
	if (ref)
		fprintf(out, "%-12s %5s %7s %5s %7s %6s   %7s %5s %7s %6s   %6s\n", "policy", "seeds",
		        "100%", "±sd", "paper", "diff", "end%", "±sd", "paper", "diff", "frag%");
	else
		fprintf(out, "%-12s %5s %7s %5s   %7s %5s   %6s\n", "policy", "seeds", "100%", "±sd",
		        "end%", "±sd", "frag%");
	for (int i = 0; i < na; i++) {
		const struct frag_cell *x = &a[i], *y = NULL;
		for (int j = 0; j < ne; j++)
			if (strcmp(e[j].policy, x->policy) == 0)
				y = &e[j];
		double ym = y ? y->alloc_mean : NAN, ys = y ? y->alloc_sd : NAN;
		if (!ref) {
			fprintf(out, "%-12s %5d %7.2f %5.2f   %7.2f %5.2f   %6.2f\n", x->policy, x->n,
			        x->alloc_mean, x->alloc_sd, ym, ys, x->frag_mean);
			continue;
		}
		double pa, pe;
		int ha = fragref_get(list, x->policy, 100, &pa), he = fragref_get(list, x->policy, end, &pe);
		char ca[2][16], ce[2][16];
		snprintf(ca[0], 16, ha ? "%.2f" : "-", pa);
		snprintf(ca[1], 16, ha ? "%+.2f" : "-", x->alloc_mean - pa);
		snprintf(ce[0], 16, he ? "%.2f" : "-", pe);
		snprintf(ce[1], 16, he ? "%+.2f" : "-", ym - pe);
		fprintf(out, "%-12s %5d %7.2f %5.2f %7s %6s   %7.2f %5.2f %7s %6s   %6.2f\n", x->policy,
		        x->n, x->alloc_mean, x->alloc_sd, ca[0], ca[1], ym, ys, ce[0], ce[1],
		        x->frag_mean);
	}
	if (ref)
		fprintf(out, "paper: %s\n", fragref_source());
	else
		fprintf(out, "no published reference for pod list %s (%s covers other lists)\n", list,
		        "traces/data/alibaba-gpu-v2023-openb/published_alloc.csv");
	return 0;
}

int frag_report(const char *path, int json, FILE *out, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char list[256];
	int end = 0;
	int rc = list_and_end(path, list, sizeof list, &end, err, errlen);
	if (rc == 0)
		rc = agg_open(path, 0, &db, &st, err, errlen);
	if (rc < 0)
		goto done;
	char cur[64] = "";
	int first = 1;
	if (json)
		fprintf(out, "{\"kind\":\"frag\",\"pod_list\":\"%s\",\"end_pct\":%d,\"policies\":[",
		        list, end);
	else
		fprintf(out, "frag report: %s (pod list %s)\nper policy, per arrived %% of GPU capacity: "
		        "GPU allocation %% and fragmentation %% of idle GPU (mean ± sd over seeds)\n",
		        path, list);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *pol = (const char *)sqlite3_column_text(st, 0);
		int pct = sqlite3_column_int(st, 1), n = sqlite3_column_int(st, 2);
		double am = sqlite3_column_double(st, 3), fm = sqlite3_column_double(st, 5);
		double as = sd_of(n, am, sqlite3_column_double(st, 4));
		double fs = sd_of(n, fm, sqlite3_column_double(st, 6));
		double pv;
		int hp = fragref_get(list, pol, pct, &pv);
		if (strcmp(pol, cur) != 0) {
			if (json)
				fprintf(out, "%s{\"policy\":\"%s\",\"steps\":[", *cur ? "]}," : "", pol);
			else
				fprintf(out, "\n%s\n  arrived%%  seeds  alloc%%   ±sd    frag%%   ±sd  paper%%\n",
				        pol);
			snprintf(cur, sizeof cur, "%s", pol);
			first = 1;
		}
		if (json) {
			fprintf(out, "%s{\"arrived_pct\":%d,\"seeds\":%d,\"alloc_mean\":%.6f,"
			        "\"alloc_sd\":%.6f,\"frag_mean\":%.6f,\"frag_sd\":%.6f",
			        first ? "" : ",", pct, n, am, as, fm, fs);
			if (hp)
				fprintf(out, ",\"paper_alloc\":%.6f", pv / 100);
			fputc('}', out);
		} else if (hp)
			fprintf(out, "  %8d  %5d  %6.2f  %5.2f  %6.2f  %5.2f  %6.2f\n", pct, n, 100 * am,
			        100 * as, 100 * fm, 100 * fs, pv);
		else
			fprintf(out, "  %8d  %5d  %6.2f  %5.2f  %6.2f  %5.2f       -\n", pct, n, 100 * am,
			        100 * as, 100 * fm, 100 * fs);
		first = 0;
	}
	if (json)
		fprintf(out, "%s]}\n", *cur ? "]}" : "");
	else {
		sqlite3_finalize(st);
		st = NULL;
		sqlite3_close(db);
		db = NULL;
		fputc('\n', out);
		rc = frag_print_table(path, out, err, errlen);
	}
done:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int frag_plot(const char *path, const char *dir, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	enum { MAXP = 16 };
	char names[MAXP][32];
	double *xs[MAXP] = { 0 }, *ys[MAXP] = { 0 };
	struct plot_series s[MAXP];
	int np = -1, rc = agg_open(path, 0, &db, &st, err, errlen);
	int64_t cnt[MAXP] = { 0 };
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		const char *pol = (const char *)sqlite3_column_text(st, 0);
		if (np < 0 || strcmp(pol, names[np]) != 0) {
			if (np + 1 >= MAXP)
				break;
			np++;
			snprintf(names[np], sizeof names[np], "%s", pol);
			xs[np] = malloc(FRAG_MAX_STEPS * sizeof(double));
			ys[np] = malloc(FRAG_MAX_STEPS * sizeof(double));
			if (!xs[np] || !ys[np]) {
				snprintf(err, errlen, "out of memory");
				rc = -1;
				break;
			}
		}
		if (cnt[np] < FRAG_MAX_STEPS) {
			xs[np][cnt[np]] = sqlite3_column_int(st, 1);
			ys[np][cnt[np]++] = 100 * sqlite3_column_double(st, 3);
		}
	}
	np++;
	if (rc == 0) {
		for (int i = 0; i < np; i++)
			s[i] = (struct plot_series){ .title = names[i], .n = cnt[i], .x = xs[i], .y = ys[i] };
		struct plot_fig f = { .name = "frag_alloc",
		                      .title = "GPU allocation vs arrived workload (mean over seeds)",
		                      .xlabel = "arrived GPU request (% of capacity)",
		                      .ylabel = "GPU allocation ratio (%)",
		                      .extra = "set key bottom right; set grid" };
		const char *nm[] = { "frag_alloc" };
		rc = plot_mkdir(dir, err, errlen);
		if (rc == 0)
			rc = plot_xy(dir, &f, PLOT_LINES, np, s, err, errlen);
		if (rc == 0) {
			int pr = plot_render(NULL, dir, 1, nm, err, errlen);
			if (pr == PLOT_NOPROG)
				fprintf(stderr, "note: %s (the .dat and .gp files are written)\n", err);
			else
				rc = pr;
		}
	}
	for (int i = 0; i < MAXP; i++) {
		free(xs[i]);
		free(ys[i]);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}
