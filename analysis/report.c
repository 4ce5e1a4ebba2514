/* report — metrics of one run from its results file. See report.h; the
 * formulas are in docs/results.md, keep the two in step. */
#include "analysis/report.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sqlite3.h>

#include "analysis/dbutil.h"
#include "analysis/recorder.h"
#include "sim/job.h"

/* Bounded slowdown's threshold: runs shorter than this count as this long. */
#define BSLD_TAU_S 10.0

static int rep_failf(struct report *rp, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int rep_failf(struct report *rp, const char *fmt, ...)
{
	int n = snprintf(rp->err, rp->errlen, "%s: ", rp->path);
	if (n >= 0 && (size_t)n < rp->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(rp->err + n, rp->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int rep_fail_db(struct report *rp, const char *what)
{
	return rep_failf(rp, "%s: %s", what, sqlite3_errmsg(rp->db));
}

int report_format_parse(const char *name)
{
	if (strcmp(name, "text") == 0)
		return REPORT_TEXT;
	if (strcmp(name, "json") == 0)
		return REPORT_JSON;
	if (strcmp(name, "markdown") == 0 || strcmp(name, "md") == 0)
		return REPORT_MARKDOWN;
	if (strcmp(name, "html") == 0)
		return REPORT_HTML;
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

const struct report_headline report_headlines[] = {
	{ "p95_wait", "p95 wait (s)", 0 },
	{ "p95_wait{class=training}", "p95 wait of training (s)", 0 },
	{ "mean_wait", "mean wait (s)", 0 },
	{ "mean_jct", "mean job completion time (s)", 0 },
	{ "mean_bsld", "mean bounded slowdown", 0 },
	{ "gpu_util", "GPU utilisation", 'p' },
	{ "core_util", "core utilisation", 'p' },
	{ "killed", "jobs killed", 0 },
	{ "failed", "jobs failed", 0 },
	{ "slo_violation_s", "SLO violation, all services (s)", 0 },
	{ "lost_gpu_h", "lost GPU-hours", 0 },
	{ "facility_energy_kwh", "facility energy (kWh)", 0 },
	{ "energy_cost", "energy cost", 0 },
	{ "pue", "PUE", 0 },
	{ "peak_cap", "highest rack peak / cap", 'p' },
	{ "throttled_gpu_h", "throttled GPU-hours", 0 },
	{ NULL, NULL, 0 },
};

const char *report_tenant_name(const struct report *rp, int64_t t, char *buf, size_t len)
{
	if (rp->mr.db)
		return mrun_tenant_name(&rp->mr, t, buf, len);
	snprintf(buf, len, "%" PRId64, t);
	return buf;
}

const char *report_service_name(const struct report *rp, int64_t g, char *buf, size_t len)
{
	if (rp->mr.db)
		return mrun_service_name(&rp->mr, g, buf, len);
	snprintf(buf, len, "%" PRId64, g);
	return buf;
}

/* Sorts x in place and summarises it. */
static void dist_of(struct report_dist *d, double *x, size_t n)
{
	d->n = n;
	if (n == 0) {
		d->mean = d->p50 = d->p95 = d->p99 = d->max = NAN;
		return;
	}
	qsort(x, n, sizeof *x, cmp_double);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	d->mean = sum / (double)n;
	d->p50 = report_percentile(x, n, 0.50);
	d->p95 = report_percentile(x, n, 0.95);
	d->p99 = report_percentile(x, n, 0.99);
	d->max = x[n - 1];
}

/* ---- names --------------------------------------------------------------- */

static void names_fini(struct report_names *nm)
{
	for (int i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
	free(nm->count);
	free(nm->order);
	memset(nm, 0, sizeof *nm);
}

/* Index of `s` in nm, added if new; -1 on ENOMEM. */
static int names_index(struct report_names *nm, const char *s)
{
	for (int i = 0; i < nm->n; i++)
		if (strcmp(nm->v[i], s) == 0)
			return i;
	if (nm->n == nm->cap) {
		int cap = nm->cap ? nm->cap * 2 : 8;
		char **v = realloc(nm->v, (size_t)cap * sizeof *v);
		if (!v)
			return -1;
		nm->v = v;
		int64_t *c = realloc(nm->count, (size_t)cap * sizeof *c);
		if (!c)
			return -1;
		nm->count = c;
		nm->cap = cap;
	}
	if (!(nm->v[nm->n] = strdup(s)))
		return -1;
	nm->count[nm->n] = 0;
	return nm->n++;
}

/* Display order: the names a `rank` function knows in its order, then the
 * others alphabetically. */
struct rank_ctx {
	const struct report_names *nm;
	int (*rank)(const char *);
};

static int rank_class(const char *s)
{
	int c = job_class_parse(s);
	return c < 0 ? JOB_NCLASS : c;
}

static int rank_state(const char *s)
{
	for (int i = 0; i < JOB_NSTATE; i++)
		if (strcmp(s, job_state_name((enum job_state)i)) == 0)
			return i;
	return JOB_NSTATE;
}

static int names_sort(struct report_names *nm, int (*rank)(const char *))
{
	nm->order = malloc((size_t)(nm->n ? nm->n : 1) * sizeof *nm->order);
	if (!nm->order)
		return -1;
	/* Insertion sort: a handful of names. */
	for (int i = 0; i < nm->n; i++) {
		int k = i;
		while (k > 0) {
			const char *a = nm->v[nm->order[k - 1]], *b = nm->v[i];
			int ra = rank(a), rb = rank(b);
			if (ra < rb || (ra == rb && strcmp(a, b) <= 0))
				break;
			nm->order[k] = nm->order[k - 1];
			k--;
		}
		nm->order[k] = i;
	}
	return 0;
}

/* ---- reading ------------------------------------------------------------- */

static char *col_strdup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? strdup((const char *)t) : NULL;
}

static int64_t col_time(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

static int check_schema(struct report *rp)
{
	static const char *const tables[] = { "meta", "run", "job", "event", "sample", NULL };
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(rp->db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
	                       -1, &st, NULL) != SQLITE_OK)
		return rep_fail_db(rp, "cannot read");
	for (int i = 0; tables[i]; i++) {
		sqlite3_bind_text(st, 1, tables[i], -1, SQLITE_STATIC);
		int rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc == SQLITE_DONE) {
			sqlite3_finalize(st);
			return rep_failf(rp, "not a hetlab results file (no table '%s')", tables[i]);
		}
		if (rc != SQLITE_ROW) {
			sqlite3_finalize(st);
			return rep_fail_db(rp, "cannot read");
		}
	}
	sqlite3_finalize(st);

	if (sqlite3_prepare_v2(rp->db, "SELECT value FROM meta WHERE key = 'schema_version'",
	                       -1, &st, NULL) != SQLITE_OK)
		return rep_fail_db(rp, "reading meta");
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? rep_failf(rp, "no schema_version in table meta")
		                         : rep_fail_db(rp, "reading meta");
	}
	rp->schema_version = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rp->schema_version < 1)
		return rep_failf(rp, "bad schema_version in table meta");
	if (rp->schema_version > RECORDER_SCHEMA_VERSION)
		return rep_failf(rp, "schema version %" PRId64 " is newer than this hetlab reads (%d); "
		                 "use a newer hetlab", rp->schema_version, RECORDER_SCHEMA_VERSION);
	return 0;
}

/* Columns later than the first files: the placement and end reasons.
 * A file without them reads as before (nothing shown). */
static void load_extras(struct report *rp)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(rp->db, "SELECT placement FROM run", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		rp->run.placement = col_strdup(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(rp->db, "SELECT reason, count(*) FROM job WHERE reason IS NOT NULL"
	                       " GROUP BY reason ORDER BY count(*) DESC, reason", -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return;
	}
	char buf[512] = "";
	size_t off = 0;
	while (sqlite3_step(st) == SQLITE_ROW && off < sizeof buf)
		off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%s %lld", off ? ", " : "",
		                        (const char *)sqlite3_column_text(st, 0),
		                        (long long)sqlite3_column_int64(st, 1));
	sqlite3_finalize(st);
	if (buf[0])
		rp->run.reasons = strdup(buf);
}

static int load_run(struct report *rp)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(rp->db,
	                       "SELECT scenario, policy, seed, version, trace, created, wall_s,"
	                       " events, passes, jobs, nodes, total_cores, total_gpus,"
	                       " skipped_malformed, skipped_unusable, policy_params, rejected FROM run",
	                       -1, &st, NULL) != SQLITE_OK)
		return rep_fail_db(rp, "reading table run");
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? rep_failf(rp, "table run is empty")
		                         : rep_fail_db(rp, "reading table run");
	}
	struct report_run *r = &rp->run;
	r->scenario = col_strdup(st, 0);
	r->policy = col_strdup(st, 1);
	r->seed = col_strdup(st, 2);
	r->seed_int = sqlite3_column_type(st, 2) == SQLITE_INTEGER;
	r->version = col_strdup(st, 3);
	r->trace = col_strdup(st, 4);
	r->created = col_strdup(st, 5);
	r->wall_s = sqlite3_column_double(st, 6);
	r->events = sqlite3_column_int64(st, 7);
	r->passes = sqlite3_column_int64(st, 8);
	r->jobs = sqlite3_column_int64(st, 9);
	r->nodes = sqlite3_column_int64(st, 10);
	r->total_cores = sqlite3_column_int64(st, 11);
	r->total_gpus = sqlite3_column_int64(st, 12);
	r->skipped_malformed = sqlite3_column_int64(st, 13);
	r->skipped_unusable = sqlite3_column_int64(st, 14);
	r->policy_params = col_strdup(st, 15);
	r->rejected = sqlite3_column_int64(st, 16);
	sqlite3_finalize(st);
	load_extras(rp);
	return 0;
}

static int load_jobs(struct report *rp)
{
	sqlite3_stmt *st = NULL;
	if (report_prepare_jobs(rp->db, &st) != SQLITE_OK)
		return rep_fail_db(rp, "reading table job");
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (rp->nrows == cap) {
			cap = cap ? cap * 2 : 1024;
			struct report_job *p = realloc(rp->rows, cap * sizeof *p);
			if (!p)
				goto nomem;
			rp->rows = p;
		}
		struct report_job *j = &rp->rows[rp->nrows];
		const unsigned char *cls = sqlite3_column_text(st, 0);
		const unsigned char *state = sqlite3_column_text(st, 1);
		j->cls = names_index(&rp->classes, cls ? (const char *)cls : "?");
		j->state = names_index(&rp->states, state ? (const char *)state : "?");
		if (j->cls < 0 || j->state < 0)
			goto nomem;
		rp->classes.count[j->cls]++;
		rp->states.count[j->state]++;
		j->submit_us = sqlite3_column_int64(st, 2);
		j->start_us = col_time(st, 3);
		j->end_us = col_time(st, 4);
		j->cores = sqlite3_column_int64(st, 5);
		j->gpus = sqlite3_column_double(st, 6);
		rp->nrows++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rep_fail_db(rp, "reading table job");
	return 0;
nomem:
	sqlite3_finalize(st);
	return rep_failf(rp, "out of memory");
}

/* The job columns later than the first files (struct report_job): a
 * second query in the same id order, with NULL in place of each column
 * the file lacks, so that an older file reads as before. */
static int load_job_extras(struct report *rp)
{
	static const struct { const char *col; unsigned bit; } cols[] = {
		{ "tenant", REPORT_HAVE_TENANT },
		{ "grp", REPORT_HAVE_GRP },
		{ "preemptions", REPORT_HAVE_PREEMPTIONS },
		{ "gpu_s", REPORT_HAVE_GPU_S },
		{ "lost_gpu_s", REPORT_HAVE_LOST_GPU_S },
		{ "ckpt_s", REPORT_HAVE_CKPT_S },
		{ "held_s", REPORT_HAVE_HELD_S },
		{ "hold_why", REPORT_HAVE_HOLD_WHY },
		{ "energy_j", REPORT_HAVE_ENERGY },
		{ "energy_cost", REPORT_HAVE_ENERGY },
		{ NULL, 0 },
	};
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(rp->db, "PRAGMA table_info(job)", -1, &st, NULL) != SQLITE_OK)
		return rep_fail_db(rp, "reading table job");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		for (int k = 0; name && cols[k].col; k++)
			if (strcmp(name, cols[k].col) == 0)
				rp->have |= cols[k].bit;
	}
	sqlite3_finalize(st);

	char sql[256] = "SELECT ";
	size_t off = strlen(sql);
	for (int k = 0; cols[k].col; k++)
		off += (size_t)snprintf(sql + off, sizeof sql - off, "%s%s", k ? ", " : "",
		                        rp->have & cols[k].bit ? cols[k].col : "NULL");
	snprintf(sql + off, sizeof sql - off, " FROM job ORDER BY id");
	assert(off < sizeof sql - 32);
	if (sqlite3_prepare_v2(rp->db, sql, -1, &st, NULL) != SQLITE_OK)
		return rep_fail_db(rp, "reading table job");
	size_t i = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && i < rp->nrows) {
		struct report_job *j = &rp->rows[i++];
		bool null[10];
		for (int k = 0; k < 10; k++)
			null[k] = sqlite3_column_type(st, k) == SQLITE_NULL;
		j->tenant = null[0] ? -1 : sqlite3_column_int64(st, 0);
		j->grp = null[1] ? -1 : sqlite3_column_int64(st, 1);
		j->preemptions = null[2] ? 0 : sqlite3_column_int64(st, 2);
		j->gpu_s = null[3] ? NAN : sqlite3_column_double(st, 3);
		j->lost_gpu_s = null[4] ? 0 : sqlite3_column_double(st, 4);
		j->ckpt_s = null[5] ? 0 : sqlite3_column_double(st, 5);
		j->held_s = null[6] ? 0 : sqlite3_column_double(st, 6);
		const unsigned char *why = sqlite3_column_text(st, 7);
		j->quota_hold = why && strcmp((const char *)why, "quota") == 0;
		j->energy_kwh = null[8] ? 0 : sqlite3_column_double(st, 8) / 3.6e6;
		j->energy_cost = null[9] ? 0 : sqlite3_column_double(st, 9);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return rep_fail_db(rp, "reading table job");
	if (rc == SQLITE_ROW || i != rp->nrows)
		return rep_failf(rp, "table job changed while it was read");
	return 0;
}

static int load_samples(struct report *rp)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(rp->db,
	                       "SELECT count(*), avg(pending), avg(running),"
	                       " avg(CASE WHEN cores_total > 0 THEN 1.0 * cores_alloc / cores_total END),"
	                       " avg(CASE WHEN gpus_total > 0 THEN 1.0 * gpus_alloc / gpus_total END),"
	                       " avg(power_w) FROM sample", -1, &st, NULL) != SQLITE_OK)
		return rep_fail_db(rp, "reading table sample");
	if (sqlite3_step(st) != SQLITE_ROW) {
		rep_fail_db(rp, "reading table sample");
		sqlite3_finalize(st);
		return -1;
	}
	struct report_samples *s = &rp->smp;
	s->n = sqlite3_column_int64(st, 0);
	double *dst[] = { &s->pending, &s->running, &s->core_share, &s->gpu_share, &s->power_w };
	for (int i = 0; i < 5; i++)
		*dst[i] = sqlite3_column_type(st, i + 1) == SQLITE_NULL ? NAN
		                                                         : sqlite3_column_double(st, i + 1);
	sqlite3_finalize(st);
	return 0;
}


static double col_real_or_nan(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* "PREFIXcol, …" for the NULL-terminated cols of table, NULL in place of
 * each one the file lacks (a reader of older files). */
static void select_list(sqlite3 *db, const char *table, const char *prefix,
                        const char *const *cols, char *out, size_t len)
{
	size_t off = 0;
	out[0] = '\0';
	for (int k = 0; cols[k] && off < len; k++)
		off += (size_t)snprintf(out + off, len - off, "%s%s%s", k ? ", " : "",
		                        report_has_column(db, table, cols[k]) ? prefix : "",
		                        report_has_column(db, table, cols[k]) ? cols[k] : "NULL");
}

/* The power model's totals (run) and racks (rack, rack_sample). A file
 * without the columns, or a run without the model (NULL), has no power
 * section. */
static int load_power(struct report *rp)
{
	struct report_power *pw = &rp->power;
	if (!report_has_column(rp->db, "run", "it_energy_kwh"))
		return 0;
	static const char *const run_cols[] = { "it_energy_kwh", "facility_energy_kwh",
		                                        "idle_energy_kwh", "energy_cost", "carbon_kg", NULL };
	static const char *const rack_cols[] = { "name", "cap_w", "peak_w", "warn_s", "over_s",
		                                 "throttled_gpu_h", "energy_kwh", "facility_kwh", "cost",
		                                 NULL };
	char list[320], sql[640];
	select_list(rp->db, "run", "", run_cols, list, sizeof list);
	snprintf(sql, sizeof sql, "SELECT %s FROM run", list);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(rp->db, sql, -1, &st, NULL) != SQLITE_OK)
		return rep_fail_db(rp, "reading table run");
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		pw->on = true;
		pw->it_kwh = sqlite3_column_double(st, 0);
		pw->facility_kwh = col_real_or_nan(st, 1);
		pw->idle_kwh = col_real_or_nan(st, 2);
		pw->cost = col_real_or_nan(st, 3);
		pw->carbon_kg = col_real_or_nan(st, 4);
		pw->pue = pw->it_kwh > 0 ? pw->facility_kwh / pw->it_kwh : NAN;
		pw->idle_share = pw->it_kwh > 0 ? pw->idle_kwh / pw->it_kwh : NAN;
	}
	sqlite3_finalize(st);
	if (!pw->on || !report_has_column(rp->db, "rack", "peak_w"))
		return 0;
	/* The hottest sampled node per rack: one pass over rack_sample. */
	select_list(rp->db, "rack", "r.", rack_cols, list, sizeof list);
	if (report_has_column(rp->db, "rack_sample", "temp_max"))
		snprintf(sql, sizeof sql, "SELECT %s, t.temp_max FROM rack r LEFT JOIN (SELECT rack,"
		         " max(temp_max) AS temp_max FROM rack_sample GROUP BY rack) t ON t.rack = r.id"
		         " ORDER BY r.id", list);
	else
		snprintf(sql, sizeof sql, "SELECT %s, NULL FROM rack r ORDER BY r.id", list);
	if (sqlite3_prepare_v2(rp->db, sql, -1, &st, NULL) != SQLITE_OK)
		return rep_fail_db(rp, "reading table rack");
	int rc, cap = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (pw->nracks == cap) {
			cap = cap ? cap * 2 : 16;
			struct report_rack_power *p = realloc(pw->racks, (size_t)cap * sizeof *p);
			if (!p)
				goto nomem;
			pw->racks = p;
		}
		struct report_rack_power *k = &pw->racks[pw->nracks];
		const unsigned char *name = sqlite3_column_text(st, 0);
		if (!(k->name = strdup(name ? (const char *)name : "?")))
			goto nomem;
		pw->nracks++;
		double *dst[] = { &k->cap_w, &k->peak_w, &k->warn_s, &k->over_s, &k->throttled_gpu_h,
		                  &k->energy_kwh, &k->facility_kwh, &k->cost, &k->temp_max_c };
		for (int i = 0; i < 9; i++)
			*dst[i] = col_real_or_nan(st, i + 1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rep_fail_db(rp, "reading table rack");
	return 0;
nomem:
	sqlite3_finalize(st);
	return rep_failf(rp, "out of memory");
}

/* ---- operations ---------------------------------------------------------- */

/* The node-hours sweep's state of one node (times in µs, -1 when closed). */
struct ops_node {
	int64_t id;
	bool present;
	int64_t present_since, down_since, drain_since, unavail_since;
	int drain;                         /* index in ops->drains of the open drain */
};

static int cmp_ops_node(const void *a, const void *b)
{
	int64_t x = ((const struct ops_node *)a)->id, y = ((const struct ops_node *)b)->id;
	return (x > y) - (x < y);
}

static int cmp_ops_kind(const void *a, const void *b)
{
	return strcmp(((const struct report_ops_kind *)a)->name,
	              ((const struct report_ops_kind *)b)->name);
}

/* Index of `name` in the list, added if new; -1 on ENOMEM. */
static int ops_kind_index(struct report_ops_kind **v, int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (strcmp((*v)[i].name, name) == 0)
			return i;
	struct report_ops_kind *p = realloc(*v, (size_t)(*n + 1) * sizeof *p);
	if (!p)
		return -1;
	*v = p;
	if (!(p[*n].name = strdup(name)))
		return -1;
	p[*n].n = 0;
	p[*n].node_s = 0;
	return (*n)++;
}

static void ops_kinds_free(struct report_ops_kind *v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

static struct ops_node *ops_find(struct ops_node *nd, size_t n, int64_t id)
{
	struct ops_node key = { .id = id };
	return bsearch(&key, nd, n, sizeof *nd, cmp_ops_node);
}

/* Opens or closes the node's unavailable interval after a change of its
 * down or drained interval: unavailable is their union. */
static void ops_unavail(struct report_ops *ops, struct ops_node *x, int64_t t)
{
	bool out = x->down_since >= 0 || x->drain_since >= 0;
	if (out && x->unavail_since < 0)
		x->unavail_since = t;
	else if (!out && x->unavail_since >= 0) {
		ops->unavail_s += (double)(t - x->unavail_since) / 1e6;
		x->unavail_since = -1;
	}
}

static void ops_close_down(struct report_ops *ops, struct ops_node *x, int64_t t)
{
	if (x->down_since < 0)
		return;
	ops->down_s += (double)(t - x->down_since) / 1e6;
	x->down_since = -1;
	ops_unavail(ops, x, t);
}

static void ops_close_drain(struct report_ops *ops, struct ops_node *x, int64_t t)
{
	if (x->drain_since < 0)
		return;
	double s = (double)(t - x->drain_since) / 1e6;
	ops->drained_s += s;
	ops->drains[x->drain].node_s += s;
	x->drain_since = -1;
	ops_unavail(ops, x, t);
}

/* Ends the node's presence (a leave, or the end of the run), closing its
 * down and drained intervals first. */
static void ops_close_presence(struct report_ops *ops, struct ops_node *x, int64_t t)
{
	ops_close_down(ops, x, t);
	ops_close_drain(ops, x, t);
	if (x->present)
		ops->present_s += (double)(t - x->present_since) / 1e6;
	x->present = false;
}

/* One event of the sweep, in time order; x is its node (NULL when none). */
static int ops_event(struct report_ops *ops, struct ops_node *x, int64_t t, const char *kind,
                     const char *detail)
{
	if (strcmp(kind, "fault") == 0) {
		char first[64];
		snprintf(first, sizeof first, "%.*s", (int)strcspn(detail, " "), detail);
		int k = ops_kind_index(&ops->faults, &ops->nfaults, first[0] ? first : "-");
		if (k < 0)
			return -1;
		ops->faults[k].n++;
		if (x && x->present && x->down_since < 0 && strcmp(detail, "node_crash") == 0) {
			x->down_since = t;
			ops_unavail(ops, x, t);
		}
	} else if (strcmp(kind, "repair") == 0) {
		if (x && strcmp(detail, "node_crash") == 0)
			ops_close_down(ops, x, t);
	} else if (strcmp(kind, "drain") == 0) {
		int k = ops_kind_index(&ops->drains, &ops->ndrains, detail[0] ? detail : "-");
		if (k < 0)
			return -1;
		ops->drains[k].n++;
		if (x && x->present && x->drain_since < 0) {   /* a second drain keeps the first */
			x->drain_since = t;
			x->drain = k;
			ops_unavail(ops, x, t);
		}
	} else if (strcmp(kind, "resume") == 0) {
		if (x)
			ops_close_drain(ops, x, t);
	} else if (strcmp(kind, "join") == 0) {
		ops->joined++;
		if (x && !x->present) {
			x->present = true;
			x->present_since = t;
		}
	} else if (strcmp(kind, "leave") == 0) {
		ops->left++;
		if (x)
			ops_close_presence(ops, x, t);
	} else {                                            /* a requeue after a fault */
		ops->migrations++;
		const char *p = strstr(detail, "lost ");
		if (p)
			ops->migration_lost_s += strtod(p + 5, NULL);
	}
	return 0;
}

#define OPS_KINDS "('fault', 'repair', 'drain', 'resume', 'join', 'leave')"
#define OPS_REQUEUE "(kind = 'requeue' AND (detail GLOB 'node crash*' OR detail GLOB 'GPU fell off the bus*'))"

/* The operations section (struct report_ops): a sweep over the file's
 * operations events, in time order, per node. */
static int load_ops(struct report *rp)
{
	struct report_ops *ops = &rp->ops;
	ops->availability = NAN;
	ops->node_fail_jobs = -1;
	if (!report_has_column(rp->db, "event", "kind") || !report_has_column(rp->db, "event", "detail") ||
	    !report_has_column(rp->db, "event", "node") || !report_has_column(rp->db, "event", "t_us"))
		return 0;
	sqlite3_stmt *st = NULL;
	struct ops_node *nd = NULL;
	size_t nn = 0, cap = 0;
	int64_t end_us = 0;
	int rc;
	if (sqlite3_prepare_v2(rp->db, "SELECT count(*) FROM event WHERE kind IN " OPS_KINDS
	                       " OR " OPS_REQUEUE, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		goto fail_db;
	ops->on = sqlite3_column_int64(st, 0) > 0;
	sqlite3_finalize(st);
	st = NULL;
	if (!ops->on)
		return 0;

	/* The nodes: those of table node and any an event names. */
	bool have_node = report_has_column(rp->db, "node", "id");
	if (sqlite3_prepare_v2(rp->db, have_node
	                       ? "SELECT id FROM node UNION SELECT node FROM event WHERE node IS NOT NULL ORDER BY 1"
	                       : "SELECT DISTINCT node FROM event WHERE node IS NOT NULL ORDER BY 1",
	                       -1, &st, NULL) != SQLITE_OK)
		goto fail_db;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (nn == cap) {
			cap = cap ? cap * 2 : 64;
			struct ops_node *p = realloc(nd, cap * sizeof *p);
			if (!p)
				goto nomem;
			nd = p;
		}
		nd[nn++] = (struct ops_node){ .id = sqlite3_column_int64(st, 0), .present = true,
		                              .down_since = -1, .drain_since = -1, .unavail_since = -1 };
	}
	if (rc != SQLITE_DONE)
		goto fail_db;
	sqlite3_finalize(st);
	st = NULL;
	ops->nodes = (int64_t)nn;

	/* The end of the run: the file's last event. */
	if (sqlite3_prepare_v2(rp->db, "SELECT max(t_us) FROM event", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		goto fail_db;
	end_us = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;

	/* A node whose first join or leave is a join was absent until then. */
	if (sqlite3_prepare_v2(rp->db, "SELECT node FROM event e WHERE kind = 'join' AND node IS NOT NULL"
	                       " AND NOT EXISTS (SELECT 1 FROM event f WHERE f.node = e.node AND"
	                       " f.kind IN ('join', 'leave') AND (f.t_us < e.t_us OR"
	                       " (f.t_us = e.t_us AND f.seq < e.seq)))", -1, &st, NULL) != SQLITE_OK)
		goto fail_db;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ops_node *x = ops_find(nd, nn, sqlite3_column_int64(st, 0));
		if (x)
			x->present = false;
	}
	if (rc != SQLITE_DONE)
		goto fail_db;
	sqlite3_finalize(st);
	st = NULL;

	if (sqlite3_prepare_v2(rp->db, "SELECT t_us, kind, node, detail FROM event WHERE kind IN "
	                       OPS_KINDS " OR " OPS_REQUEUE " ORDER BY t_us, seq", -1, &st, NULL) != SQLITE_OK)
		goto fail_db;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *kind = sqlite3_column_text(st, 1);
		const unsigned char *detail = sqlite3_column_text(st, 3);
		struct ops_node *x = sqlite3_column_type(st, 2) == SQLITE_NULL
		                     ? NULL : ops_find(nd, nn, sqlite3_column_int64(st, 2));
		if (ops_event(ops, x, sqlite3_column_int64(st, 0), kind ? (const char *)kind : "",
		              detail ? (const char *)detail : "") < 0)
			goto nomem;
	}
	if (rc != SQLITE_DONE)
		goto fail_db;
	sqlite3_finalize(st);
	st = NULL;
	for (size_t i = 0; i < nn; i++)
		ops_close_presence(ops, &nd[i], end_us);
	ops->availability = ops->present_s > 0 ? 1 - ops->unavail_s / ops->present_s : NAN;
	free(nd);
	nd = NULL;
	if (ops->nfaults > 1)
		qsort(ops->faults, (size_t)ops->nfaults, sizeof *ops->faults, cmp_ops_kind);
	if (ops->ndrains > 1)
		qsort(ops->drains, (size_t)ops->ndrains, sizeof *ops->drains, cmp_ops_kind);

	if (report_has_column(rp->db, "job", "reason")) {
		if (sqlite3_prepare_v2(rp->db, "SELECT count(*) FROM job WHERE reason = 'node_fail'",
		                       -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
			goto fail_db;
		ops->node_fail_jobs = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		st = NULL;
	}
	if (sqlite3_prepare_v2(rp->db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND"
	                       " name = 'billing'", -1, &st, NULL) != SQLITE_OK)
		goto fail_db;
	ops->billing = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return 0;
fail_db:
	rep_fail_db(rp, "reading table event");
	sqlite3_finalize(st);
	free(nd);
	return -1;
nomem:
	sqlite3_finalize(st);
	free(nd);
	return rep_failf(rp, "out of memory");
}

/* ---- metrics ------------------------------------------------------------- */

/* Metrics of the jobs rows[idx[0 .. n-1]] (idx ascending: sums in row
 * order). */
static void group_compute(struct report *rp, struct report_group *g, const size_t *idx, size_t n)
{
	memset(g, 0, sizeof *g);
	double bsld_sum = 0;
	int64_t nbsld = 0;
	size_t nw = 0;
	for (size_t k = 0; k < n; k++) {
		const struct report_job *j = &rp->rows[idx[k]];
		g->jobs++;
		g->preemptions += j->preemptions;
		g->quota_holds += j->quota_hold;
		g->lost_gpu_s += j->lost_gpu_s;
		g->ckpt_s += j->ckpt_s;
		g->held_s += j->held_s;
		g->energy_kwh += j->energy_kwh;
		g->energy_cost += j->energy_cost;
		if (j->start_us < 0)
			continue;
		g->started++;
		rp->scratch[nw++] = (double)(j->start_us - j->submit_us) / 1e6;
	}
	dist_of(&g->wait, rp->scratch, nw);

	size_t nj = 0;
	for (size_t k = 0; k < n; k++) {
		const struct report_job *j = &rp->rows[idx[k]];
		if (j->end_us < 0)
			continue;
		g->ended++;
		rp->scratch[nj++] = (double)(j->end_us - j->submit_us) / 1e6;
		if (j->start_us < 0)
			continue;
		double wait = (double)(j->start_us - j->submit_us) / 1e6;
		double run = (double)(j->end_us - j->start_us) / 1e6;
		g->core_s += (double)j->cores * run;
		g->gpu_s += (double)j->gpus * run;
		bsld_sum += fmax((wait + run) / fmax(run, BSLD_TAU_S), 1.0);
		nbsld++;
	}
	dist_of(&g->jct, rp->scratch, nj);
	g->bsld = nbsld ? bsld_sum / (double)nbsld : NAN;

	double ms = rp->makespan_s;
	g->core_util = rp->run.total_cores > 0 && ms > 0 ? g->core_s / ((double)rp->run.total_cores * ms) : NAN;
	g->gpu_util = rp->run.total_gpus > 0 && ms > 0 ? g->gpu_s / ((double)rp->run.total_gpus * ms) : NAN;
}

/* Rows sorted by a key, then a time, then their index. */
struct keyed {
	int64_t key, t_us;
	size_t i;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->t_us != y->t_us)
		return x->t_us < y->t_us ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The number of distinct keys of sorted k[0 .. n-1]. */
static int count_keys(const struct keyed *k, size_t n)
{
	int m = 0;
	for (size_t i = 0; i < n; i++)
		m += i == 0 || k[i].key != k[i - 1].key;
	return m;
}

static int compute_tenants(struct report *rp)
{
	size_t n = rp->nrows;
	if (!(rp->have & REPORT_HAVE_TENANT) || n == 0)
		return 0;
	struct keyed *k = malloc(n * sizeof *k);
	if (!k)
		return -1;
	for (size_t i = 0; i < n; i++)
		k[i] = (struct keyed){ .key = rp->rows[i].tenant, .i = i };
	qsort(k, n, sizeof *k, cmp_keyed);
	int m = count_keys(k, n);
	rp->tenants = malloc((size_t)m * sizeof *rp->tenants);
	rp->per_tenant = calloc((size_t)m, sizeof *rp->per_tenant);
	if (!rp->tenants || !rp->per_tenant) {
		free(k);
		return -1;
	}
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		for (hi = lo; hi < n && k[hi].key == k[lo].key; hi++)
			rp->idx[hi - lo] = k[hi].i;
		rp->tenants[rp->ntenants] = k[lo].key;
		group_compute(rp, &rp->per_tenant[rp->ntenants++], rp->idx, hi - lo);
	}
	free(k);
	return 0;
}

/* One service from its replicas r[0 .. n-1] in submit order. A replica
 * waits over [submit, start); one that never started over [submit, end),
 * or up to `last_us` (the file's latest time) when it never ended. The
 * sweep adds up the union of these intervals: the time during which at
 * least one replica was missing. */
static void service_compute(const struct report *rp, struct report_service *sv,
                            const struct keyed *r, size_t n, int64_t last_us)
{
	int64_t viol_us = 0, cur_lo = 0, cur_hi = 0;
	bool open = false;                /* [cur_lo, cur_hi) is the current run of waits */
	double delay_sum = 0;
	sv->grp = r[0].key;
	sv->replicas = (int64_t)n;
	sv->delay_max_s = NAN;
	for (size_t k = 0; k < n; k++) {
		const struct report_job *j = &rp->rows[r[k].i];
		int64_t lo = j->submit_us;
		int64_t hi = j->start_us >= 0 ? j->start_us : j->end_us >= 0 ? j->end_us : last_us;
		if (j->start_us >= 0) {
			double d = (double)(j->start_us - j->submit_us) / 1e6;
			sv->started++;
			delay_sum += d;
			if (isnan(sv->delay_max_s) || d > sv->delay_max_s)
				sv->delay_max_s = d;
		}
		if (hi <= lo)
			continue;
		if (!open || lo > cur_hi) {   /* a gap: close the current run */
			if (open)
				viol_us += cur_hi - cur_lo;
			cur_lo = lo;
			cur_hi = hi;
			open = true;
		} else if (hi > cur_hi) {
			cur_hi = hi;
		}
	}
	if (open)
		viol_us += cur_hi - cur_lo;
	sv->slo_violation_s = (double)viol_us / 1e6;
	sv->delay_mean_s = sv->started ? delay_sum / (double)sv->started : NAN;
}

static int compute_services(struct report *rp, int inference, int64_t last_us)
{
	size_t n = 0;
	if (inference < 0 || !(rp->have & REPORT_HAVE_GRP))
		return 0;
	struct keyed *k = malloc((rp->nrows ? rp->nrows : 1) * sizeof *k);
	if (!k)
		return -1;
	for (size_t i = 0; i < rp->nrows; i++) {
		const struct report_job *j = &rp->rows[i];
		if (j->cls == inference && j->grp >= 0)
			k[n++] = (struct keyed){ .key = j->grp, .t_us = j->submit_us, .i = i };
	}
	qsort(k, n, sizeof *k, cmp_keyed);
	int m = count_keys(k, n);
	rp->services = calloc((size_t)(m ? m : 1), sizeof *rp->services);
	if (!rp->services) {
		free(k);
		return -1;
	}
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		for (hi = lo; hi < n && k[hi].key == k[lo].key; hi++)
			;
		service_compute(rp, &rp->services[rp->nservices++], k + lo, hi - lo, last_us);
	}
	free(k);
	return 0;
}

/* GPU-seconds of the inference class and of the others: the recorded
 * gpu_s (every run) where the file has it, else gpus × run of the last
 * run, as the GPU utilisation counts them. */
static void compute_gpu_split(struct report *rp, int inference)
{
	struct report_gpu_split *sp = &rp->gpu_split;
	sp->all_runs = rp->have & REPORT_HAVE_GPU_S;
	for (size_t i = 0; i < rp->nrows; i++) {
		const struct report_job *j = &rp->rows[i];
		double s = j->gpu_s;
		if (isnan(s))
			s = j->start_us >= 0 && j->end_us >= 0
			    ? j->gpus * (double)(j->end_us - j->start_us) / 1e6 : 0;
		if (j->cls == inference)
			sp->inference_s += s;
		else
			sp->shared_s += s;
	}
	double cap = (double)rp->run.total_gpus * rp->makespan_s;
	sp->inference_util = rp->run.total_gpus > 0 && rp->makespan_s > 0 ? sp->inference_s / cap : NAN;
	sp->shared_util = rp->run.total_gpus > 0 && rp->makespan_s > 0 ? sp->shared_s / cap : NAN;
}

static int compute(struct report *rp)
{
	int64_t first_submit = INT64_MAX, last_end = -1, last_us = 0;
	for (size_t i = 0; i < rp->nrows; i++) {
		const struct report_job *j = &rp->rows[i];
		if (j->submit_us < first_submit)
			first_submit = j->submit_us;
		if (j->end_us > last_end)
			last_end = j->end_us;
		int64_t t = j->end_us > j->start_us ? j->end_us : j->start_us;
		t = t > j->submit_us ? t : j->submit_us;
		last_us = t > last_us ? t : last_us;
		rp->any_lost |= j->preemptions > 0 || j->lost_gpu_s > 0 || j->ckpt_s > 0;
		rp->any_hold |= j->quota_hold || j->held_s > 0;
	}
	rp->makespan_s = last_end >= 0 && first_submit != INT64_MAX
	                 ? (double)(last_end - first_submit) / 1e6 : NAN;
	size_t n = rp->nrows ? rp->nrows : 1;
	rp->scratch = malloc(n * sizeof *rp->scratch);
	rp->idx = malloc(n * sizeof *rp->idx);
	rp->per_class = calloc((size_t)(rp->classes.n ? rp->classes.n : 1), sizeof *rp->per_class);
	if (!rp->scratch || !rp->idx || !rp->per_class)
		return rep_failf(rp, "out of memory");
	for (size_t i = 0; i < rp->nrows; i++)
		rp->idx[i] = i;
	group_compute(rp, &rp->all, rp->idx, rp->nrows);
	int inference = -1;
	for (int c = 0; c < rp->classes.n; c++) {
		size_t m = 0;
		for (size_t i = 0; i < rp->nrows; i++)
			if (rp->rows[i].cls == c)
				rp->idx[m++] = i;
		group_compute(rp, &rp->per_class[c], rp->idx, m);
		if (strcmp(rp->classes.v[c], job_class_name(JOB_INFERENCE)) == 0)
			inference = c;
	}
	/* Utilisation as the registry counts it (every run of a job, the nodes
	 * present, within the window) where the file lets it. */
	if (rp->ms.n > 0) {
		rp->all.core_util = metric_get(&rp->ms, "core_util");
		rp->all.gpu_util = metric_get(&rp->ms, "gpu_util");
		for (int c = 0; c < rp->classes.n; c++) {
			char name[METRIC_NAME_MAX];
			snprintf(name, sizeof name, "core_util{class=%s}", rp->classes.v[c]);
			rp->per_class[c].core_util = metric_get(&rp->ms, name);
			snprintf(name, sizeof name, "gpu_util{class=%s}", rp->classes.v[c]);
			rp->per_class[c].gpu_util = metric_get(&rp->ms, name);
		}
	}
	compute_gpu_split(rp, inference);
	rp->power.jobs_cost = rp->all.energy_cost;
	if (compute_tenants(rp) < 0 || compute_services(rp, inference, last_us) < 0 ||
	    names_sort(&rp->classes, rank_class) < 0 || names_sort(&rp->states, rank_state) < 0)
		return rep_failf(rp, "out of memory");
	return 0;
}

/* ---- text ---------------------------------------------------------------- */

/* `v` with `prec` decimals, or "-" when it is NaN. */
static const char *fnum(char *buf, size_t len, double v, int prec)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", prec, v);
	return buf;
}

static const char *fpct(char *buf, size_t len, double share)
{
	if (isnan(share))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f %%", 100.0 * share);
	return buf;
}

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

static void print_duration(FILE *out, double s)
{
	if (isnan(s)) {
		fputs("-", out);
		return;
	}
	int64_t t = (int64_t)llround(s);
	fprintf(out, "%.1f s (", s);
	if (t >= 86400)
		fprintf(out, "%" PRId64 "d ", t / 86400);
	fprintf(out, "%02d:%02d:%02d)", (int)(t % 86400 / 3600), (int)(t % 3600 / 60), (int)(t % 60));
}

static void text_wait_row(FILE *out, const char *name, const struct report_group *g)
{
	char b[5][32];
	fprintf(out, "  %-14s %10" PRId64 " %10" PRId64 " %11s %11s %11s %11s %11s\n", name,
	        g->jobs, g->started, fnum(b[0], 32, g->wait.mean, 1), fnum(b[1], 32, g->wait.p50, 1),
	        fnum(b[2], 32, g->wait.p95, 1), fnum(b[3], 32, g->wait.p99, 1),
	        fnum(b[4], 32, g->wait.max, 1));
}

static void text_done_row(FILE *out, const char *name, const struct report_group *g)
{
	char b[6][32];
	fprintf(out, "  %-14s %10" PRId64 " %11s %11s %11s %10s %10s %10s\n", name, g->ended,
	        fnum(b[0], 32, g->jct.mean, 1), fnum(b[1], 32, g->jct.p50, 1),
	        fnum(b[2], 32, g->jct.p95, 1), fnum(b[3], 32, g->bsld, 2),
	        fpct(b[4], 32, g->core_util), fpct(b[5], 32, g->gpu_util));
}

/* The lost-work columns when the run has any preemption, lost work or
 * checkpoint time; the hold columns when it has any hold. */
static void text_lost_head(FILE *out, const struct report *rp)
{
	if (rp->any_lost)
		fprintf(out, " %8s %11s %8s", "preempt", "lost GPU-h", "ckpt h");
	if (rp->any_hold)
		fprintf(out, " %11s %8s", "quota holds", "held h");
	fputc('\n', out);
}

static void text_lost_cells(FILE *out, const struct report *rp, const struct report_group *g)
{
	char b[3][32];
	if (rp->any_lost)
		fprintf(out, " %8" PRId64 " %11s %8s", g->preemptions,
		        fnum(b[0], 32, g->lost_gpu_s / 3600, 2), fnum(b[1], 32, g->ckpt_s / 3600, 2));
	if (rp->any_hold)
		fprintf(out, " %11" PRId64 " %8s", g->quota_holds, fnum(b[2], 32, g->held_s / 3600, 2));
	fputc('\n', out);
}

static void text_tenant_row(FILE *out, const struct report *rp, int64_t tenant,
                            const struct report_group *g)
{
	char b[6][32], nb[32];
	fprintf(out, "  %-14s %8" PRId64 " %10s %9s %9s %9s %10s %7s",
	        report_tenant_name(rp, tenant, nb, sizeof nb), g->jobs,
	        fnum(b[0], 32, g->wait.mean, 1), fnum(b[1], 32, g->wait.p50, 1),
	        fnum(b[2], 32, g->wait.p95, 1), fnum(b[3], 32, g->wait.p99, 1),
	        fnum(b[4], 32, g->jct.mean, 1), fnum(b[5], 32, g->bsld, 2));
	text_lost_cells(out, rp, g);
}

/* The sections after the samples: lost work and holds per class, the
 * tenants, the inference services, reserved and shared GPU use. */
static void print_text_org(const struct report *rp, FILE *out)
{
	if (rp->any_lost || rp->any_hold) {
		fprintf(out, "\n  %-14s %8s", "lost and held", "jobs");
		text_lost_head(out, rp);
		fprintf(out, "  %-14s %8" PRId64, "all", rp->all.jobs);
		text_lost_cells(out, rp, &rp->all);
		for (int k = 0; rp->classes.n > 1 && k < rp->classes.n; k++) {
			int i = rp->classes.order[k];
			fprintf(out, "  %-14s %8" PRId64, rp->classes.v[i], rp->per_class[i].jobs);
			text_lost_cells(out, rp, &rp->per_class[i]);
		}
	}
	if (rp->ntenants > 0) {
		fprintf(out, "\n  %-14s %8s %10s %9s %9s %9s %10s %7s", "by tenant (s)", "jobs",
		        "wait mean", "p50", "p95", "p99", "JCT mean", "bsld");
		text_lost_head(out, rp);
		for (int t = 0; t < rp->ntenants; t++)
			text_tenant_row(out, rp, rp->tenants[t], &rp->per_tenant[t]);
	}
	if (rp->nservices > 0) {
		fprintf(out, "\n  %-14s %8s %8s %14s %14s %14s\n", "service (s)", "replicas",
		        "started", "SLO violation", "delay mean", "delay max");
		for (int k = 0; k < rp->nservices; k++) {
			const struct report_service *sv = &rp->services[k];
			char b[3][32], nb[32];
			fprintf(out, "  %-14s %8" PRId64 " %8" PRId64 " %14s %14s %14s\n",
			        report_service_name(rp, sv->grp, nb, sizeof nb),
			        sv->replicas, sv->started, fnum(b[0], 32, sv->slo_violation_s, 1),
			        fnum(b[1], 32, sv->delay_mean_s, 1), fnum(b[2], 32, sv->delay_max_s, 1));
		}
	}
	const struct report_gpu_split *sp = &rp->gpu_split;
	if (!isnan(sp->inference_util)) {
		char b[4][32];
		fprintf(out, "\n  %-24s %10s %12s\n", "GPU use", "GPU-hours", "utilisation");
		fprintf(out, "  %-24s %10s %12s\n", "inference (reserved)",
		        fnum(b[0], 32, sp->inference_s / 3600, 2), fpct(b[1], 32, sp->inference_util));
		fprintf(out, "  %-24s %10s %12s\n", "offline + dev (shared)",
		        fnum(b[2], 32, sp->shared_s / 3600, 2), fpct(b[3], 32, sp->shared_util));
		if (!sp->all_runs)
			fprintf(out, "  (the last run of each job only: this file records no gpu_s)\n");
	}
}

static double share_of(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

/* A row of the energy tables; jobs < 0 leaves its cell empty. */
static void text_energy_row(FILE *out, const char *name, int64_t jobs, double kwh, double cost)
{
	char b[3][32] = { "" };
	if (jobs >= 0)
		snprintf(b[0], 32, "%" PRId64, jobs);
	fprintf(out, "  %-14s %8s %12s %12s\n", name, b[0], fnum(b[1], 32, kwh, 2),
	        fnum(b[2], 32, cost, 2));
}

/* The power model's section: totals, racks, energy per tenant and class. */
static void print_text_power(const struct report *rp, FILE *out)
{
	const struct report_power *pw = &rp->power;
	if (!pw->on)
		return;
	char b[9][32];
	fprintf(out, "\n  %-13s IT energy %s kWh, facility %s kWh (PUE %s), idle %s of IT\n", "power",
	        fnum(b[0], 32, pw->it_kwh, 2), fnum(b[1], 32, pw->facility_kwh, 2),
	        fnum(b[2], 32, pw->pue, 3), fpct(b[3], 32, pw->idle_share));
	if (isnan(pw->carbon_kg))
		snprintf(b[5], 32, "not tracked");
	else
		snprintf(b[5], 32, "%.1f kg", pw->carbon_kg);
	fprintf(out, "  %-13s energy cost %s, carbon %s\n", "", fnum(b[4], 32, pw->cost, 2), b[5]);
	if (pw->nracks > 0)
		fprintf(out, "\n  %-14s %9s %9s %9s %9s %9s %10s %11s %10s\n", "rack (power)", "cap kW",
		        "peak kW", "peak/cap", "warn min", "over min", "thr GPU-h", "energy kWh",
		        "max temp C");
	for (int k = 0; k < pw->nracks; k++) {
		const struct report_rack_power *r = &pw->racks[k];
		fprintf(out, "  %-14s %9s %9s %9s %9s %9s %10s %11s %10s\n", r->name,
		        fnum(b[0], 32, r->cap_w / 1000, 2), fnum(b[1], 32, r->peak_w / 1000, 2),
		        fpct(b[2], 32, share_of(r->peak_w, r->cap_w)), fnum(b[3], 32, r->warn_s / 60, 1),
		        fnum(b[4], 32, r->over_s / 60, 1), fnum(b[5], 32, r->throttled_gpu_h, 2),
		        fnum(b[6], 32, r->energy_kwh, 2), fnum(b[7], 32, r->temp_max_c, 1));
	}
	if (!(rp->have & REPORT_HAVE_ENERGY))
		return;
	fprintf(out, "\n  %-14s %8s %12s %12s\n", "energy/tenant", "jobs", "kWh", "cost");
	for (int t = 0; t < rp->ntenants; t++)
		text_energy_row(out, report_tenant_name(rp, rp->tenants[t], b[8], 32),
		                rp->per_tenant[t].jobs, rp->per_tenant[t].energy_kwh,
		                rp->per_tenant[t].energy_cost);
	text_energy_row(out, "no job (idle)", -1, pw->idle_kwh, pw->cost - pw->jobs_cost);
	fprintf(out, "\n  %-14s %8s %12s %12s\n", "energy/class", "jobs", "kWh", "cost");
	for (int k = 0; k < rp->classes.n; k++) {
		int i = rp->classes.order[k];
		text_energy_row(out, rp->classes.v[i], rp->per_class[i].jobs,
		                rp->per_class[i].energy_kwh, rp->per_class[i].energy_cost);
	}
}

/* The operations section (the text report's last). */
static void print_text_ops(const struct report *rp, FILE *out)
{
	const struct report_ops *ops = &rp->ops;
	if (!ops->on)
		return;
	char b[5][32];
	fprintf(out, "\n  %-13s failures:", "operations");
	for (int k = 0; k < ops->nfaults; k++)
		fprintf(out, "%s %s %" PRId64, k ? "," : "", ops->faults[k].name, ops->faults[k].n);
	if (ops->nfaults == 0)
		fputs(" none", out);
	fprintf(out, "\n  %-13s node availability %s of %s node-hours present (%" PRId64 " nodes;"
	        " down %s, drained %s)\n", "", fpct(b[0], 32, ops->availability),
	        fnum(b[1], 32, ops->present_s / 3600, 2), ops->nodes,
	        fnum(b[2], 32, ops->down_s / 3600, 2), fnum(b[3], 32, ops->drained_s / 3600, 2));
	fprintf(out, "  %-13s %" PRId64 " jobs migrated by faults, %s hours of work lost", "",
	        ops->migrations, fnum(b[4], 32, ops->migration_lost_s / 3600, 2));
	if (ops->node_fail_jobs >= 0)
		fprintf(out, "; %" PRId64 " jobs failed (node_fail)", ops->node_fail_jobs);
	fprintf(out, "\n  %-13s nodes joined %" PRId64 ", left %" PRId64 "\n", "", ops->joined, ops->left);
	if (ops->ndrains > 0)
		fprintf(out, "\n  %-28s %8s %12s\n", "drained (reason)", "drains", "node-hours");
	for (int k = 0; k < ops->ndrains; k++)
		fprintf(out, "  %-28s %8" PRId64 " %12s\n", ops->drains[k].name, ops->drains[k].n,
		        fnum(b[0], 32, ops->drains[k].node_s / 3600, 2));
	if (ops->billing)
		fprintf(out, "  (invoices: hetlab bill)\n");
}

static void print_text(const struct report *rp, FILE *out)
{
	const struct report_run *r = &rp->run;
	char b[2][32];
	fprintf(out, "hetlab report: %s\n\n", rp->path);
	fprintf(out, "  %-13s %s\n", "scenario", or_dash(r->scenario));
	if (r->policy_params && r->policy_params[0])
		fprintf(out, "  %-13s %s (%s)\n", "policy", or_dash(r->policy), r->policy_params);
	else
		fprintf(out, "  %-13s %s\n", "policy", or_dash(r->policy));
	if (r->placement)
		fprintf(out, "  %-13s %s\n", "placement", r->placement);
	fprintf(out, "  %-13s %s\n", "seed", or_dash(r->seed));
	fprintf(out, "  %-13s %s\n", "version", or_dash(r->version));
	fprintf(out, "  %-13s %s (skipped lines: %" PRId64 " malformed, %" PRId64 " unusable)\n",
	        "trace", or_dash(r->trace), r->skipped_malformed, r->skipped_unusable);
	fprintf(out, "  %-13s %" PRId64 " nodes, %" PRId64 " cores, %" PRId64 " GPUs\n", "cluster",
	        r->nodes, r->total_cores, r->total_gpus);
	fprintf(out, "  %-13s %.3f s, %" PRId64 " events, %" PRId64 " scheduling passes\n",
	        "wall time", r->wall_s, r->events, r->passes);
	fprintf(out, "  %-13s %s\n", "created", or_dash(r->created));
	fprintf(out, "  %-13s %s\n\n", "window", rp->window);

	fprintf(out, "  %-13s %zu:", "jobs", rp->nrows);
	for (int k = 0; k < rp->states.n; k++) {
		int i = rp->states.order[k];
		fprintf(out, "%s %s %" PRId64, k ? "," : "", rp->states.v[i], rp->states.count[i]);
	}
	if (r->rejected > 0)
		fprintf(out, " (%" PRId64 " of the killed rejected at submit: larger than the cluster)", r->rejected);
	if (r->reasons)
		fprintf(out, "\n  %-13s %s", "reasons", r->reasons);
	fprintf(out, "\n  %-13s", "classes");
	for (int k = 0; k < rp->classes.n; k++) {
		int i = rp->classes.order[k];
		fprintf(out, "%s %s %" PRId64, k ? "," : "", rp->classes.v[i], rp->classes.count[i]);
	}
	if (rp->classes.n == 0)
		fputs(" -", out);
	fprintf(out, "\n  %-13s ", "makespan");
	print_duration(out, rp->makespan_s);
	fprintf(out, "\n  %-13s cores %s, GPUs %s\n", "utilisation",
	        fpct(b[0], 32, rp->all.core_util), fpct(b[1], 32, rp->all.gpu_util));
	/* GPU utilisation per model, of the GPUs present (the registry's gpu_util{gpu=M}). */
	int nmodel = 0;
	for (size_t i = 0; i < rp->ms.n; i++)
		if (strncmp(rp->ms.v[i].name, "gpu_util{gpu=", 13) == 0) {
			const char *m = rp->ms.v[i].name + 13;
			fprintf(out, "%s%.*s %s", nmodel++ ? ", " : "  GPU models    ", (int)strlen(m) - 1, m,
			        fpct(b[0], 32, rp->ms.v[i].v));
		}
	fputs(nmodel ? "\n\n" : "\n", out);

	bool split = rp->classes.n > 1;
	fprintf(out, "  %-14s %10s %10s %11s %11s %11s %11s %11s\n", "wait (s)", "jobs", "started",
	        "mean", "p50", "p95", "p99", "max");
	text_wait_row(out, "all", &rp->all);
	for (int k = 0; split && k < rp->classes.n; k++) {
		int i = rp->classes.order[k];
		text_wait_row(out, rp->classes.v[i], &rp->per_class[i]);
	}
	fprintf(out, "\n  %-14s %10s %11s %11s %11s %10s %10s %10s\n", "completion (s)", "ended",
	        "JCT mean", "p50", "p95", "bsld", "core util", "GPU util");
	text_done_row(out, "all", &rp->all);
	for (int k = 0; split && k < rp->classes.n; k++) {
		int i = rp->classes.order[k];
		text_done_row(out, rp->classes.v[i], &rp->per_class[i]);
	}

	const struct report_samples *s = &rp->smp;
	if (s->n > 0) {
		char c[5][32];
		fprintf(out, "\n  %-13s %" PRId64 " rows, means: pending %s, running %s, core share %s,"
		        " GPU share %s, IT power %s W\n", "samples", s->n,
		        fnum(c[0], 32, s->pending, 1), fnum(c[1], 32, s->running, 1),
		        fpct(c[2], 32, s->core_share), fpct(c[3], 32, s->gpu_share),
		        fnum(c[4], 32, s->power_w, 1));
	}
	print_text_org(rp, out);
	print_text_power(rp, out);
	print_text_ops(rp, out);
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *jreal(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *jdist(const struct report_dist *d, bool tail)
{
	json_t *o = json_object();
	json_object_set_new(o, "n", json_integer((json_int_t)d->n));
	json_object_set_new(o, "mean", jreal(d->mean));
	json_object_set_new(o, "p50", jreal(d->p50));
	json_object_set_new(o, "p95", jreal(d->p95));
	if (tail) {
		json_object_set_new(o, "p99", jreal(d->p99));
		json_object_set_new(o, "max", jreal(d->max));
	}
	return o;
}

/* An integer, or null when the file lacks the column it comes from. */
static json_t *jcount(const struct report *rp, unsigned have, int64_t v)
{
	return rp->have & have ? json_integer(v) : json_null();
}

static json_t *jhours(const struct report *rp, unsigned have, double s)
{
	return rp->have & have ? jreal(s / 3600) : json_null();
}

static json_t *jgroup(const struct report_group *g, const struct report *rp)
{
	const struct report_run *r = &rp->run;
	json_t *o = json_object();
	json_object_set_new(o, "jobs", json_integer(g->jobs));
	json_object_set_new(o, "started", json_integer(g->started));
	json_object_set_new(o, "ended", json_integer(g->ended));
	json_object_set_new(o, "core_seconds", jreal(g->core_s));
	json_object_set_new(o, "core_utilisation", jreal(g->core_util));
	if (r->total_gpus > 0) {
		json_object_set_new(o, "gpu_seconds", jreal(g->gpu_s));
		json_object_set_new(o, "gpu_utilisation", jreal(g->gpu_util));
	}
	json_object_set_new(o, "wait_s", jdist(&g->wait, true));
	json_object_set_new(o, "jct_s", jdist(&g->jct, false));
	json_object_set_new(o, "bounded_slowdown", jreal(g->bsld));
	json_object_set_new(o, "preemptions", jcount(rp, REPORT_HAVE_PREEMPTIONS, g->preemptions));
	json_object_set_new(o, "lost_gpu_hours", jhours(rp, REPORT_HAVE_LOST_GPU_S, g->lost_gpu_s));
	json_object_set_new(o, "checkpoint_hours", jhours(rp, REPORT_HAVE_CKPT_S, g->ckpt_s));
	json_object_set_new(o, "quota_holds", jcount(rp, REPORT_HAVE_HOLD_WHY, g->quota_holds));
	json_object_set_new(o, "held_hours", jhours(rp, REPORT_HAVE_HELD_S, g->held_s));
	return o;
}

/* by_tenant, services and gpu_util_split. */
static void json_org(const struct report *rp, json_t *root)
{
	char key[24];
	json_t *bt = json_object();
	for (int t = 0; t < rp->ntenants; t++) {
		char nb[32];
		snprintf(key, sizeof key, "%" PRId64, rp->tenants[t]);
		json_t *g = jgroup(&rp->per_tenant[t], rp);
		json_object_set_new(g, "name", json_string(report_tenant_name(rp, rp->tenants[t], nb, sizeof nb)));
		json_object_set_new(bt, key, g);
	}
	json_object_set_new(root, "by_tenant", bt);
	json_t *svs = json_object();
	for (int k = 0; k < rp->nservices; k++) {
		const struct report_service *sv = &rp->services[k];
		json_t *o = json_object();
		char nb[32];
		json_object_set_new(o, "name", json_string(report_service_name(rp, sv->grp, nb, sizeof nb)));
		json_object_set_new(o, "replicas", json_integer(sv->replicas));
		json_object_set_new(o, "started", json_integer(sv->started));
		json_object_set_new(o, "slo_violation_s", jreal(sv->slo_violation_s));
		json_object_set_new(o, "scale_up_delay_mean_s", jreal(sv->delay_mean_s));
		json_object_set_new(o, "scale_up_delay_max_s", jreal(sv->delay_max_s));
		snprintf(key, sizeof key, "%" PRId64, sv->grp);
		json_object_set_new(svs, key, o);
	}
	json_object_set_new(root, "services", svs);
	if (rp->run.total_gpus > 0) {
		const struct report_gpu_split *sp = &rp->gpu_split;
		json_t *o = json_object(), *a = json_object(), *b = json_object();
		json_object_set_new(a, "gpu_seconds", jreal(sp->inference_s));
		json_object_set_new(a, "utilisation", jreal(sp->inference_util));
		json_object_set_new(b, "gpu_seconds", jreal(sp->shared_s));
		json_object_set_new(b, "utilisation", jreal(sp->shared_util));
		json_object_set_new(o, "inference_reserved", a);
		json_object_set_new(o, "offline_dev_shared", b);
		json_object_set_new(o, "all_runs", json_boolean(sp->all_runs));
		json_object_set_new(root, "gpu_util_split", o);
	}
}

static json_t *jenergy(int64_t jobs, double kwh, double cost)
{
	json_t *o = json_object();
	if (jobs >= 0)
		json_object_set_new(o, "jobs", json_integer(jobs));
	json_object_set_new(o, "energy_kwh", jreal(kwh));
	json_object_set_new(o, "energy_cost", jreal(cost));
	return o;
}

/* "power": the power model's section (only when the run had it). */
static void json_power(const struct report *rp, json_t *root)
{
	const struct report_power *pw = &rp->power;
	if (!pw->on)
		return;
	json_t *o = json_object();
	json_object_set_new(o, "it_energy_kwh", jreal(pw->it_kwh));
	json_object_set_new(o, "facility_energy_kwh", jreal(pw->facility_kwh));
	json_object_set_new(o, "pue", jreal(pw->pue));
	json_object_set_new(o, "idle_energy_kwh", jreal(pw->idle_kwh));
	json_object_set_new(o, "idle_energy_share", jreal(pw->idle_share));
	json_object_set_new(o, "energy_cost", jreal(pw->cost));
	json_object_set_new(o, "carbon_kg", jreal(pw->carbon_kg));
	json_t *racks = json_object();
	for (int k = 0; k < pw->nracks; k++) {
		const struct report_rack_power *r = &pw->racks[k];
		json_t *x = json_object();
		json_object_set_new(x, "cap_kw", jreal(r->cap_w / 1000));
		json_object_set_new(x, "peak_kw", jreal(r->peak_w / 1000));
		json_object_set_new(x, "peak_cap_share", jreal(share_of(r->peak_w, r->cap_w)));
		json_object_set_new(x, "warn_minutes", jreal(r->warn_s / 60));
		json_object_set_new(x, "over_minutes", jreal(r->over_s / 60));
		json_object_set_new(x, "throttled_gpu_hours", jreal(r->throttled_gpu_h));
		json_object_set_new(x, "energy_kwh", jreal(r->energy_kwh));
		json_object_set_new(x, "facility_kwh", jreal(r->facility_kwh));
		json_object_set_new(x, "cost", jreal(r->cost));
		json_object_set_new(x, "temp_max_c", jreal(r->temp_max_c));
		json_object_set_new(racks, r->name, x);
	}
	json_object_set_new(o, "racks", racks);
	if (rp->have & REPORT_HAVE_ENERGY) {
		char key[24];
		json_t *bt = json_object(), *bc = json_object();
		for (int t = 0; t < rp->ntenants; t++) {
			const struct report_group *g = &rp->per_tenant[t];
			snprintf(key, sizeof key, "%" PRId64, rp->tenants[t]);
			json_object_set_new(bt, key, jenergy(g->jobs, g->energy_kwh, g->energy_cost));
		}
		for (int k = 0; k < rp->classes.n; k++) {
			int i = rp->classes.order[k];
			const struct report_group *g = &rp->per_class[i];
			json_object_set_new(bc, rp->classes.v[i], jenergy(g->jobs, g->energy_kwh, g->energy_cost));
		}
		json_object_set_new(o, "by_tenant", bt);
		json_object_set_new(o, "by_class", bc);
		json_object_set_new(o, "idle", jenergy(-1, pw->idle_kwh, pw->cost - pw->jobs_cost));
	}
	json_object_set_new(root, "power", o);
}

/* "operations": failures, availability, drains, migrations (only when
 * the file has operations events). */
static void json_ops(const struct report *rp, json_t *root)
{
	const struct report_ops *ops = &rp->ops;
	if (!ops->on)
		return;
	json_t *o = json_object(), *f = json_object(), *d = json_object();
	for (int k = 0; k < ops->nfaults; k++)
		json_object_set_new(f, ops->faults[k].name, json_integer(ops->faults[k].n));
	json_object_set_new(o, "failures", f);
	json_object_set_new(o, "nodes", json_integer(ops->nodes));
	json_object_set_new(o, "node_hours_present", jreal(ops->present_s / 3600));
	json_object_set_new(o, "node_hours_down", jreal(ops->down_s / 3600));
	json_object_set_new(o, "node_hours_drained", jreal(ops->drained_s / 3600));
	json_object_set_new(o, "node_hours_unavailable", jreal(ops->unavail_s / 3600));
	json_object_set_new(o, "node_availability", jreal(ops->availability));
	for (int k = 0; k < ops->ndrains; k++) {
		json_t *x = json_object();
		json_object_set_new(x, "drains", json_integer(ops->drains[k].n));
		json_object_set_new(x, "node_hours", jreal(ops->drains[k].node_s / 3600));
		json_object_set_new(d, ops->drains[k].name, x);
	}
	json_object_set_new(o, "drained_by_reason", d);
	json_object_set_new(o, "fault_migrations", json_integer(ops->migrations));
	json_object_set_new(o, "fault_lost_work_hours", jreal(ops->migration_lost_s / 3600));
	json_object_set_new(o, "node_fail_jobs", ops->node_fail_jobs >= 0
	                                         ? json_integer(ops->node_fail_jobs) : json_null());
	json_object_set_new(o, "nodes_joined", json_integer(ops->joined));
	json_object_set_new(o, "nodes_left", json_integer(ops->left));
	if (ops->billing)
		json_object_set_new(o, "note", json_string("invoices: hetlab bill"));
	json_object_set_new(root, "operations", o);
}

static json_t *json_report(const struct report *rp)
{
	const struct report_run *r = &rp->run;
	json_t *root = json_object();
	json_object_set_new(root, "file", json_string(rp->path));
	json_object_set_new(root, "schema_version", json_integer(rp->schema_version));

	json_t *run = json_object();
	json_object_set_new(run, "scenario", jstr(r->scenario));
	json_object_set_new(run, "policy", jstr(r->policy));
	json_object_set_new(run, "policy_params", jstr(r->policy_params));
	json_object_set_new(run, "rejected", json_integer(r->rejected));
	json_object_set_new(run, "placement", jstr(r->placement));
	json_object_set_new(run, "end_reasons", jstr(r->reasons));
	/* A seed of 2^63 or more is kept as a string of digits. */
	json_object_set_new(run, "seed", r->seed_int ? json_integer(strtoll(r->seed, NULL, 10))
	                                             : jstr(r->seed));
	json_object_set_new(run, "version", jstr(r->version));
	json_object_set_new(run, "trace", jstr(r->trace));
	json_object_set_new(run, "created", jstr(r->created));
	json_object_set_new(run, "wall_s", jreal(r->wall_s));
	json_object_set_new(run, "events", json_integer(r->events));
	json_object_set_new(run, "passes", json_integer(r->passes));
	json_object_set_new(run, "jobs", json_integer(r->jobs));
	json_object_set_new(run, "nodes", json_integer(r->nodes));
	json_object_set_new(run, "total_cores", json_integer(r->total_cores));
	json_object_set_new(run, "total_gpus", json_integer(r->total_gpus));
	json_object_set_new(run, "skipped_malformed", json_integer(r->skipped_malformed));
	json_object_set_new(run, "skipped_unusable", json_integer(r->skipped_unusable));
	json_object_set_new(root, "run", run);

	json_t *states = json_object();
	for (int k = 0; k < rp->states.n; k++) {
		int i = rp->states.order[k];
		json_object_set_new(states, rp->states.v[i], json_integer(rp->states.count[i]));
	}
	json_object_set_new(root, "states", states);
	json_t *classes = json_object();
	for (int k = 0; k < rp->classes.n; k++) {
		int i = rp->classes.order[k];
		json_object_set_new(classes, rp->classes.v[i], json_integer(rp->classes.count[i]));
	}
	json_object_set_new(root, "classes", classes);
	json_object_set_new(root, "makespan_s", jreal(rp->makespan_s));
	json_object_set_new(root, "all", jgroup(&rp->all, rp));
	if (rp->classes.n > 1) {
		json_t *pc = json_object();
		for (int k = 0; k < rp->classes.n; k++) {
			int i = rp->classes.order[k];
			json_object_set_new(pc, rp->classes.v[i], jgroup(&rp->per_class[i], rp));
		}
		json_object_set_new(root, "per_class", pc);
	}
	const struct report_samples *s = &rp->smp;
	if (s->n > 0) {
		json_t *so = json_object();
		json_object_set_new(so, "rows", json_integer(s->n));
		json_object_set_new(so, "mean_pending", jreal(s->pending));
		json_object_set_new(so, "mean_running", jreal(s->running));
		json_object_set_new(so, "mean_core_share", jreal(s->core_share));
		json_object_set_new(so, "mean_gpu_share", jreal(s->gpu_share));
		json_object_set_new(so, "mean_power_w", jreal(s->power_w));
		json_object_set_new(root, "samples", so);
	}
	json_org(rp, root);
	json_power(rp, root);
	json_ops(rp, root);
	json_object_set_new(root, "window", json_string(rp->window));
	json_t *ms = json_object();
	for (size_t i = 0; i < rp->ms.n; i++)
		json_object_set_new(ms, rp->ms.v[i].name, jreal(rp->ms.v[i].v));
	json_object_set_new(root, "metrics", ms);
	return root;
}

/* ---- entry --------------------------------------------------------------- */

static void report_fini(struct report *rp)
{
	struct report_run *r = &rp->run;
	free(r->scenario);
	free(r->policy);
	free(r->seed);
	free(r->version);
	free(r->trace);
	free(r->policy_params);
	free(r->placement);
	free(r->reasons);
	free(r->created);
	free(rp->rows);
	free(rp->scratch);
	free(rp->idx);
	free(rp->per_class);
	free(rp->tenants);
	free(rp->per_tenant);
	free(rp->services);
	for (int k = 0; k < rp->power.nracks; k++)
		free(rp->power.racks[k].name);
	free(rp->power.racks);
	ops_kinds_free(rp->ops.faults, rp->ops.nfaults);
	ops_kinds_free(rp->ops.drains, rp->ops.ndrains);
	names_fini(&rp->classes);
	names_fini(&rp->states);
	metric_set_fini(&rp->ms);
	mrun_close(&rp->mr);
}

int report_print(const char *db, enum report_format fmt, FILE *out, char *err, size_t errlen)
{
	return report_write(db, fmt, out, NULL, 0, err, errlen);
}

int report_write(const char *db, enum report_format fmt, FILE *out, char *warn, size_t warnlen,
                 char *err, size_t errlen)
{
	return report_write_window(db, fmt, NULL, out, warn, warnlen, err, errlen);
}

/* The registry's view of the run (names, the window and every metric in
 * it), then the job rows outside the window left out of the tables. A file
 * the registry cannot read keeps the report without them. */
static int apply_window(struct report *rp, const struct metric_window *w)
{
	char merr[512];
	snprintf(rp->window, sizeof rp->window, "whole run");
	if (mrun_open(rp->path, &rp->mr, merr, sizeof merr) < 0)
		return 0;
	if (mrun_metrics(&rp->mr, w, &rp->ms, merr, sizeof merr) < 0)
		return rep_failf(rp, "%s", merr);
	char d[128];
	metric_window_describe(&rp->ms.window, d, sizeof d);
	snprintf(rp->window, sizeof rp->window, "%s: %.1f s to %.1f s%s", d, (double)rp->ms.t0_us / 1e6,
	         (double)rp->ms.t1_us / 1e6, rp->ms.whole ? "" : " (jobs submitted in it; time in it)");
	if (rp->ms.whole)
		return 0;
	size_t k = 0;
	for (int c = 0; c < rp->classes.n; c++)
		rp->classes.count[c] = 0;
	for (int c = 0; c < rp->states.n; c++)
		rp->states.count[c] = 0;
	for (size_t i = 0; i < rp->nrows; i++) {
		const struct report_job *j = &rp->rows[i];
		if (j->submit_us < rp->ms.t0_us || j->submit_us > rp->ms.t1_us)
			continue;
		rp->classes.count[j->cls]++;
		rp->states.count[j->state]++;
		rp->rows[k++] = *j;
	}
	rp->nrows = k;
	return 0;
}

int report_write_window(const char *db, enum report_format fmt, const struct metric_window *w,
                        FILE *out, char *warn, size_t warnlen, char *err, size_t errlen)
{
	struct report rp = { .path = db, .err = err, .errlen = errlen };
	if (warn && warnlen)
		warn[0] = '\0';
	int ret = -1;
	int rc = sqlite3_open_v2(db, &rp.db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		if (rp.db)
			rep_fail_db(&rp, "cannot open");
		else
			rep_failf(&rp, "cannot open: %s", sqlite3_errstr(rc));
		goto out_db;
	}
	if (check_schema(&rp) < 0 || load_run(&rp) < 0 || load_jobs(&rp) < 0 ||
	    load_job_extras(&rp) < 0 || apply_window(&rp, w) < 0 || load_samples(&rp) < 0 ||
	    load_power(&rp) < 0 || load_ops(&rp) < 0 || compute(&rp) < 0)
		goto out_db;

	if (fmt == REPORT_JSON) {
		json_t *root = json_report(&rp);
		int jrc = root ? json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
		                                       JSON_REAL_PRECISION(15)) : -1;
		json_decref(root);
		if (jrc < 0 || fputc('\n', out) == EOF) {
			rep_failf(&rp, "cannot write the JSON report");
			goto out_db;
		}
	} else if (fmt == REPORT_MARKDOWN) {
		report_doc_markdown(&rp, out);
	} else if (fmt == REPORT_HTML) {
		if (report_doc_html(&rp, out, warn, warnlen) < 0)
			goto out_db;
	} else {
		print_text(&rp, out);
	}
	if (ferror(out) || fflush(out) == EOF) {
		rep_failf(&rp, "cannot write the report");
		goto out_db;
	}
	ret = 0;
out_db:
	sqlite3_close(rp.db);
	report_fini(&rp);
	return ret;
}
