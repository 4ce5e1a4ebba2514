/* sweep — the grid's expansion and the summary database (see sweep.h). */
#include "analysis/sweep.h"
#include "analysis/units.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

static void failf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static char *dupf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	char *s = malloc((size_t)n + 1);
	if (!s)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

/* ---- the grid ------------------------------------------------------------------ */

char *sweep_column_name(const char *path)
{
	size_t n = strlen(path);
	char *s = malloc(n + 3);
	if (!s)
		return NULL;
	size_t o = 0;
	s[o++] = 'p';
	s[o++] = '_';
	for (const char *p = path[0] == '$' ? path + 1 : path; *p; p++) {
		if (isalnum((unsigned char)*p))
			s[o++] = *p;
		else if (s[o - 1] != '_')
			s[o++] = '_';
	}
	while (o > 2 && s[o - 1] == '_')
		o--;
	s[o] = '\0';
	return s;
}

int sweep_grid_add_param(struct sweep_grid *g, const char *path, const char *const *value,
                         size_t nvalue)
{
	struct sweep_param *np = realloc(g->param, (g->nparam + 1) * sizeof *np);
	if (!np)
		return -1;
	g->param = np;
	struct sweep_param *p = &g->param[g->nparam];
	memset(p, 0, sizeof *p);
	if (!(p->path = strdup(path)) || !(p->column = sweep_column_name(path)) ||
	    !(p->value = calloc(nvalue ? nvalue : 1, sizeof *p->value)))
		goto nomem;
	for (size_t i = 0; i < nvalue; i++) {
		if (!(p->value[i] = strdup(value[i])))
			goto nomem;
		p->nvalue++;
	}
	g->nparam++;
	return 0;
nomem:
	for (size_t i = 0; i < p->nvalue; i++)
		free(p->value[i]);
	free(p->value);
	free(p->column);
	free(p->path);
	return -1;
}

int sweep_grid_expand(struct sweep_grid *g)
{
	size_t n = 1;
	for (size_t k = 0; k < g->nparam; k++) {
		if (g->param[k].nvalue == 0 || n > SIZE_MAX / 2 / g->param[k].nvalue)
			return -1;
		n *= g->param[k].nvalue;
	}
	struct sweep_point *pt = calloc(n, sizeof *pt);
	if (!pt)
		return -1;
	for (size_t id = 0; id < n; id++) {
		pt[id].id = id;
		if (!(pt[id].vidx = calloc(g->nparam ? g->nparam : 1, sizeof *pt[id].vidx))) {
			for (size_t j = 0; j < id; j++)
				free(pt[j].vidx);
			free(pt);
			return -1;
		}
		/* Mixed radix, the last parameter the least significant digit. */
		size_t rest = id;
		for (size_t k = g->nparam; k-- > 0;) {
			pt[id].vidx[k] = rest % g->param[k].nvalue;
			rest /= g->param[k].nvalue;
		}
	}
	g->point = pt;
	g->npoint = n;
	return 0;
}

void sweep_grid_fini(struct sweep_grid *g)
{
	for (size_t k = 0; k < g->nparam; k++) {
		for (size_t i = 0; i < g->param[k].nvalue; i++)
			free(g->param[k].value[i]);
		free(g->param[k].value);
		free(g->param[k].column);
		free(g->param[k].path);
	}
	for (size_t i = 0; i < g->npoint; i++) {
		free(g->point[i].vidx);
		free(g->point[i].scenario);
	}
	free(g->point);
	free(g->param);
	free(g->seed);
	free(g->file);
	free(g->scenario);
	free(g->out);
	for (size_t i = 0; i < g->nmetric; i++)
		free(g->metric[i]);
	free(g->metric);
	memset(g, 0, sizeof *g);
}

static int parse_u63(const char *s, const char *end, uint64_t *out)
{
	if (s == end)
		return -1;
	uint64_t v = 0;
	for (const char *p = s; p < end; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		if (v > ((uint64_t)INT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = v;
	return 0;
}

int sweep_parse_seeds(const char *text, uint64_t **seed, size_t *nseed, char *err, size_t errlen)
{
	uint64_t *s = NULL;
	size_t n = 0, cap = 0;
	const char *p = text;
	*seed = NULL;
	*nseed = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);
		const char *dash = memchr(p, '-', (size_t)(end - p));
		uint64_t a, b;
		if (parse_u63(p, dash ? dash : end, &a) || (dash && parse_u63(dash + 1, end, &b)))
			goto bad;
		if (!dash)
			b = a;
		if (b < a || b - a >= 1000000)
			goto bad;
		for (uint64_t v = a;; v++) {
			for (size_t i = 0; i < n; i++)
				if (s[i] == v) {
					failf(err, errlen, "seed %" PRIu64 " given twice in '%s'", v, text);
					free(s);
					return -1;
				}
			if (n == cap) {
				size_t nc = cap ? 2 * cap : 8;
				uint64_t *ns = realloc(s, nc * sizeof *ns);
				if (!ns) {
					failf(err, errlen, "out of memory");
					free(s);
					return -1;
				}
				s = ns;
				cap = nc;
			}
			s[n++] = v;
			if (v == b)
				break;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	*seed = s;
	*nseed = n;
	return 0;
bad:
	failf(err, errlen, "bad seed list '%s': expected seeds in [0, 2^63-1] as N, A-B (A <= B, "
	      "under 10^6 seeds) or a comma-separated list of those", text);
	free(s);
	return -1;
}

char *sweep_point_dir(const struct sweep_grid *g, size_t point)
{
	return dupf("%s/point-%zu", g->out, point);
}

char *sweep_run_db(const struct sweep_grid *g, size_t point, uint64_t seed)
{
	return dupf("%s/point-%zu/seed-%" PRIu64 ".db", g->out, point, seed);
}

char *sweep_run_relpath(size_t point, uint64_t seed)
{
	return dupf("point-%zu/seed-%" PRIu64 ".db", point, seed);
}

/* ---- results ------------------------------------------------------------------- */

int sweep_result_load(const char *db, size_t point, uint64_t seed, const struct metric_window *w,
                      struct sweep_result *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->point = point;
	r->seed = seed;
	if (access(db, F_OK) != 0) {
		failf(err, errlen, "%s: %s", db, strerror(errno));
		return -1;
	}
	if (compare_run_load_summary(db, w, &r->run, &r->stored, err, errlen) < 0)
		return -1;
	r->status = SWEEP_OK;
	return 0;
}

int sweep_result_failed(struct sweep_result *r, size_t point, uint64_t seed, int exit_status,
                        const char *note)
{
	memset(r, 0, sizeof *r);
	r->point = point;
	r->seed = seed;
	r->status = SWEEP_FAILED;
	r->exit_status = exit_status;
	if (note && !(r->note = strdup(note)))
		return -1;
	return 0;
}

void sweep_result_fini(struct sweep_result *r)
{
	if (r->status == SWEEP_OK)
		compare_run_fini(&r->run);
	free(r->note);
	memset(r, 0, sizeof *r);
}

static int cmp_result(const void *pa, const void *pb)
{
	const struct sweep_result *a = *(const struct sweep_result *const *)pa;
	const struct sweep_result *b = *(const struct sweep_result *const *)pb;
	if (a->point != b->point)
		return a->point < b->point ? -1 : 1;
	if (a->seed != b->seed)
		return a->seed < b->seed ? -1 : 1;
	return 0;
}

/* The results sorted by (point, seed), as pointers into res. */
static const struct sweep_result **sorted(const struct sweep_result *res, size_t nres)
{
	const struct sweep_result **s = malloc((nres ? nres : 1) * sizeof *s);
	if (!s)
		return NULL;
	for (size_t i = 0; i < nres; i++)
		s[i] = &res[i];
	qsort(s, nres, sizeof *s, cmp_result);
	return s;
}

/* ---- the summary database ------------------------------------------------------ */

/* The wide columns of table result: the headline metrics under their
 * first names (docs/sweep.md); every metric is in table metric. */
static const char *const result_cols[] = { "mean_wait", "p95_wait", "mean_jct", "mean_bsld",
	"core_util", "gpu_util", "makespan", "killed", "wait_training", "wait_inference",
	"wait_batch", "wait_dev", NULL };

/* A growing SQL string. */
struct sbuf {
	char *s;
	size_t n, cap;
	int oom;
};

static void sb_addf(struct sbuf *b, const char *fmt, ...)
{
	if (b->oom)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = 1;
		return;
	}
	if (b->n + (size_t)n + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 256;
		while (nc < b->n + (size_t)n + 1)
			nc *= 2;
		char *ns = realloc(b->s, nc);
		if (!ns) {
			b->oom = 1;
			return;
		}
		b->s = ns;
		b->cap = nc;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)n;
}

static int db_fail(sqlite3 *db, const char *path, const char *what, char *err, size_t errlen)
{
	failf(err, errlen, "%s: %s: %s", path, what, db ? sqlite3_errmsg(db) : "out of memory");
	return -1;
}

static int exec_sql(sqlite3 *db, const char *path, const char *sql, char *err, size_t errlen)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, path, "writing", err, errlen);
	return 0;
}

/* A JSON string literal of s (paths hold no control characters in
 * practice; the few that need escaping are escaped). */
static void sb_json_str(struct sbuf *b, const char *s)
{
	sb_addf(b, "\"");
	for (const char *p = s; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_addf(b, "\\%c", *p);
		else if ((unsigned char)*p < 0x20)
			sb_addf(b, "\\u%04x", (unsigned)(unsigned char)*p);
		else
			sb_addf(b, "%c", *p);
	}
	sb_addf(b, "\"");
}

static int write_tables(sqlite3 *db, const char *path, const struct sweep_grid *g,
                        const struct sweep_result **res, size_t nres, const char *created,
                        char *err, size_t errlen)
{
	struct sbuf sql = { 0 }, params = { 0 }, seeds = { 0 };
	sqlite3_stmt *st = NULL;
	int ret = -1;

	/* Schema. */
	sb_addf(&sql, "CREATE TABLE sweep (file TEXT, scenario TEXT, out TEXT, params TEXT, "
	        "seeds TEXT, npoint INTEGER, nrun INTEGER, created TEXT);\n"
	        "CREATE TABLE point (id INTEGER PRIMARY KEY");
	for (size_t k = 0; k < g->nparam; k++)
		sb_addf(&sql, ", \"%s\" TEXT", g->param[k].column);
	sb_addf(&sql, ");\nCREATE TABLE result (point INTEGER NOT NULL, seed INTEGER NOT NULL, "
	        "status TEXT NOT NULL, exit_status INTEGER NOT NULL, note TEXT, db TEXT NOT NULL, "
	        "scenario TEXT, policy TEXT");
	for (int m = 0; result_cols[m]; m++)
		sb_addf(&sql, ", %s REAL", result_cols[m]);
	sb_addf(&sql, ", PRIMARY KEY (point, seed));\n"
	        "CREATE TABLE metric (point INTEGER NOT NULL, seed INTEGER NOT NULL, name TEXT NOT NULL, "
	        "value REAL, PRIMARY KEY (point, seed, name));\n");
	if (sql.oom)
		goto nomem;
	if (exec_sql(db, path, sql.s, err, errlen))
		goto out;

	/* Table sweep. */
	sb_addf(&params, "[");
	for (size_t k = 0; k < g->nparam; k++) {
		sb_addf(&params, k ? ", " : "");
		sb_json_str(&params, g->param[k].path);
	}
	sb_addf(&params, "]");
	sb_addf(&seeds, "[");
	for (size_t i = 0; i < g->nseed; i++)
		sb_addf(&seeds, "%s%" PRIu64, i ? ", " : "", g->seed[i]);
	sb_addf(&seeds, "]");
	if (params.oom || seeds.oom)
		goto nomem;
	if (sqlite3_prepare_v2(db, "INSERT INTO sweep VALUES (?, ?, ?, ?, ?, ?, ?, ?)", -1, &st,
	                       NULL) != SQLITE_OK)
		goto dbfail;
	sqlite3_bind_text(st, 1, g->file ? g->file : "", -1, SQLITE_STATIC);
	if (g->scenario)
		sqlite3_bind_text(st, 2, g->scenario, -1, SQLITE_STATIC);
	else
		sqlite3_bind_text(st, 2, "(embedded default)", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, g->out ? g->out : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, params.s, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, seeds.s, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)g->npoint);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)nres);
	sqlite3_bind_text(st, 8, created ? created : "", -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto dbfail;
	sqlite3_finalize(st);
	st = NULL;

	/* Table point. */
	sql.n = 0;
	sb_addf(&sql, "INSERT INTO point VALUES (?");
	for (size_t k = 0; k < g->nparam; k++)
		sb_addf(&sql, ", ?");
	sb_addf(&sql, ")");
	if (sql.oom)
		goto nomem;
	if (sqlite3_prepare_v2(db, sql.s, -1, &st, NULL) != SQLITE_OK)
		goto dbfail;
	for (size_t i = 0; i < g->npoint; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, (sqlite3_int64)g->point[i].id);
		for (size_t k = 0; k < g->nparam; k++)
			sqlite3_bind_text(st, (int)k + 2, g->param[k].value[g->point[i].vidx[k]], -1,
			                  SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto dbfail;
	}
	sqlite3_finalize(st);
	st = NULL;

	/* Table result, in (point, seed) order. */
	sql.n = 0;
	sb_addf(&sql, "INSERT INTO result VALUES (?, ?, ?, ?, ?, ?, ?, ?");
	for (int m = 0; result_cols[m]; m++)
		sb_addf(&sql, ", ?");
	sb_addf(&sql, ")");
	if (sql.oom)
		goto nomem;
	if (sqlite3_prepare_v2(db, sql.s, -1, &st, NULL) != SQLITE_OK)
		goto dbfail;
	for (size_t i = 0; i < nres; i++) {
		const struct sweep_result *r = res[i];
		char *rel = sweep_run_relpath(r->point, r->seed);
		if (!rel)
			goto nomem;
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		sqlite3_bind_int64(st, 1, (sqlite3_int64)r->point);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)r->seed);
		sqlite3_bind_text(st, 3, r->status == SWEEP_OK ? "ok" : "failed", -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 4, r->exit_status);
		if (r->note)
			sqlite3_bind_text(st, 5, r->note, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, rel, -1, SQLITE_TRANSIENT);
		free(rel);
		if (r->status == SWEEP_OK) {
			sqlite3_bind_text(st, 7, r->run.scenario, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 8, r->run.policy, -1, SQLITE_STATIC);
		}
		for (int m = 0; result_cols[m]; m++) {
			double v = metric_get(&r->run.m, result_cols[m]);
			if (!isnan(v))
				sqlite3_bind_double(st, 9 + m, v);
		}
		if (sqlite3_step(st) != SQLITE_DONE)
			goto dbfail;
	}
	sqlite3_finalize(st);
	st = NULL;
	/* Table metric: every metric of every ok run. */
	if (sqlite3_prepare_v2(db, "INSERT INTO metric VALUES (?, ?, ?, ?)", -1, &st, NULL) != SQLITE_OK)
		goto dbfail;
	for (size_t i = 0; i < nres; i++) {
		const struct sweep_result *r = res[i];
		for (size_t k = 0; r->status == SWEEP_OK && k < r->run.m.n; k++) {
			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, (sqlite3_int64)r->point);
			sqlite3_bind_int64(st, 2, (sqlite3_int64)r->seed);
			sqlite3_bind_text(st, 3, r->run.m.v[k].name, -1, SQLITE_STATIC);
			if (isnan(r->run.m.v[k].v))
				sqlite3_bind_null(st, 4);
			else
				sqlite3_bind_double(st, 4, r->run.m.v[k].v);
			if (sqlite3_step(st) != SQLITE_DONE)
				goto dbfail;
		}
	}
	ret = 0;
	goto out;
nomem:
	failf(err, errlen, "%s: out of memory", path);
	goto out;
dbfail:
	db_fail(db, path, "writing", err, errlen);
out:
	sqlite3_finalize(st);
	free(sql.s);
	free(params.s);
	free(seeds.s);
	return ret;
}

int sweep_summary_write(const struct sweep_grid *g, const struct sweep_result *res, size_t nres,
                        const char *path, const char *created, char *err, size_t errlen)
{
	int ret = -1;
	sqlite3 *db = NULL;
	const struct sweep_result **s = sorted(res, nres);
	char *tmp = dupf("%s.tmp-%ld", path, (long)getpid());
	if (!s || !tmp) {
		failf(err, errlen, "%s: out of memory", path);
		goto out_mem;
	}
	for (size_t i = 1; i < nres; i++)
		if (cmp_result(&s[i - 1], &s[i]) == 0) {
			failf(err, errlen, "%s: point %zu seed %" PRIu64 " given twice", path,
			      s[i]->point, s[i]->seed);
			goto out_mem;
		}
	unlink(tmp);
	if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		db_fail(db, tmp, "cannot create", err, errlen);
		goto out_db;
	}
	if (exec_sql(db, tmp, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN", err, errlen) ||
	    write_tables(db, tmp, g, s, nres, created, err, errlen) ||
	    exec_sql(db, tmp, "COMMIT", err, errlen))
		goto out_db;
	if (sqlite3_close(db) != SQLITE_OK) {
		db_fail(db, tmp, "closing", err, errlen);
		goto out_db;
	}
	db = NULL;
	if (rename(tmp, path) < 0) {
		failf(err, errlen, "cannot rename %s into place: %s", tmp, strerror(errno));
		goto out_db;
	}
	ret = 0;
out_db:
	sqlite3_close(db);
	if (ret < 0)
		unlink(tmp);
out_mem:
	free(tmp);
	free(s);
	return ret;
}

/* ---- the table ----------------------------------------------------------------- */

int sweep_print_table(const struct sweep_grid *g, const struct sweep_result *res, size_t nres,
                      FILE *out)
{
	static const char *const dflt[] = { "mean_wait", "p95_wait", "mean_bsld", "core_util", "gpu_util" };
	const char *const *shown = g->nmetric ? (const char *const *)g->metric : dflt;
	const size_t nshown = g->nmetric ? g->nmetric : sizeof dflt / sizeof dflt[0];
	int *w = calloc(g->nparam ? g->nparam : 1, sizeof *w);
	if (!w)
		return -1;
	for (size_t k = 0; k < g->nparam; k++) {
		w[k] = (int)strlen(g->param[k].path);
		for (size_t i = 0; i < g->param[k].nvalue; i++)
			if ((int)strlen(g->param[k].value[i]) > w[k])
				w[k] = (int)strlen(g->param[k].value[i]);
		if (w[k] > 40)
			w[k] = 40;
	}
	fprintf(out, "%5s", "point");
	for (size_t k = 0; k < g->nparam; k++)
		fprintf(out, "  %-*.*s", w[k], w[k], g->param[k].path);
	fprintf(out, "  %5s", "runs");
	int *mw = calloc(nshown, sizeof *mw);
	double *sum = calloc(nshown, sizeof *sum);
	size_t *cnt = calloc(nshown, sizeof *cnt);
	if (!mw || !sum || !cnt) {
		free(w);
		free(mw);
		free(sum);
		free(cnt);
		return -1;
	}
	for (size_t j = 0; j < nshown; j++) {
		mw[j] = (int)strlen(shown[j]);
		if (mw[j] < 11)
			mw[j] = 11;
		fprintf(out, "  %*s", mw[j], shown[j]);
	}
	fputc('\n', out);
	for (size_t i = 0; i < g->npoint; i++) {
		size_t ok = 0, all = 0;
		memset(sum, 0, nshown * sizeof *sum);
		memset(cnt, 0, nshown * sizeof *cnt);
		for (size_t r = 0; r < nres; r++) {
			if (res[r].point != i)
				continue;
			all++;
			if (res[r].status != SWEEP_OK)
				continue;
			ok++;
			for (size_t j = 0; j < nshown; j++) {
				double v = metric_get(&res[r].run.m, shown[j]);
				if (!isnan(v)) {
					sum[j] += v;
					cnt[j]++;
				}
			}
		}
		fprintf(out, "%5zu", i);
		for (size_t k = 0; k < g->nparam; k++)
			fprintf(out, "  %-*.*s", w[k], w[k], g->param[k].value[g->point[i].vidx[k]]);
		char runs[32];
		snprintf(runs, sizeof runs, "%zu/%zu", ok, all);
		fprintf(out, "  %5s", runs);
		for (size_t j = 0; j < nshown; j++) {
			if (!cnt[j])
				fprintf(out, "  %*s", mw[j], "-");
			else if (strcmp(metric_unit(shown[j]), "fraction") == 0)
				fprintf(out, "  %*.2f %%", mw[j] - 2, 100.0 * sum[j] / (double)cnt[j]);
			else {   /* a readable unit: 7.89 h, 22.3 MWh, 365.6 GPU-h */
				char v[48];
				fprintf(out, "  %*s", mw[j], units_value(v, sizeof v, metric_unit(shown[j]),
				                                         sum[j] / (double)cnt[j]));
			}
		}
		fputc('\n', out);
	}
	free(w);
	free(mw);
	free(sum);
	free(cnt);
	return ferror(out) ? -1 : 0;
}
