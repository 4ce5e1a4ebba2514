/* report_load — the report's reading of a results file (see report.h):
 * opening it read-only and checking its schema, the run row, the job rows
 * and their later columns, the registry's view of the run within the
 * window (analysis/mrun, analysis/metric), the monitoring samples and the
 * power model's totals and racks; the names of tenants and services; and
 * the error messages every report file writes. The figures computed from
 * these are report_compute.c's, their printing report.c's and
 * report_doc.c's. */
#include "analysis/report.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "analysis/dbutil.h"
#include "analysis/plan.h"
#include "analysis/units.h"
#include "analysis/recorder.h"

int report_failf(struct report *rp, const char *fmt, ...)
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

int report_fail_db(struct report *rp, const char *what)
{
	return report_failf(rp, "%s: %s", what, sqlite3_errmsg(rp->db));
}

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
		return report_fail_db(rp, "cannot read");
	for (int i = 0; tables[i]; i++) {
		sqlite3_bind_text(st, 1, tables[i], -1, SQLITE_STATIC);
		int rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc == SQLITE_DONE) {
			sqlite3_finalize(st);
			return report_failf(rp, "not a hetlab results file (no table '%s')", tables[i]);
		}
		if (rc != SQLITE_ROW) {
			sqlite3_finalize(st);
			return report_fail_db(rp, "cannot read");
		}
	}
	sqlite3_finalize(st);

	if (sqlite3_prepare_v2(rp->db, "SELECT value FROM meta WHERE key = 'schema_version'",
	                       -1, &st, NULL) != SQLITE_OK)
		return report_fail_db(rp, "reading meta");
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? report_failf(rp, "no schema_version in table meta")
		                         : report_fail_db(rp, "reading meta");
	}
	rp->schema_version = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rp->schema_version < 1)
		return report_failf(rp, "bad schema_version in table meta");
	if (rp->schema_version > RECORDER_SCHEMA_VERSION)
		return report_failf(rp, "schema version %" PRId64 " is newer than this hetlab reads (%d); "
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
		return report_fail_db(rp, "reading table run");
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? report_failf(rp, "table run is empty")
		                         : report_fail_db(rp, "reading table run");
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
		return report_fail_db(rp, "reading table job");
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
		return report_fail_db(rp, "reading table job");
	return 0;
nomem:
	sqlite3_finalize(st);
	return report_failf(rp, "out of memory");
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
		return report_fail_db(rp, "reading table job");
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
		return report_fail_db(rp, "reading table job");
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
		return report_fail_db(rp, "reading table job");
	if (rc == SQLITE_ROW || i != rp->nrows)
		return report_failf(rp, "table job changed while it was read");
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
		return report_fail_db(rp, "reading table sample");
	if (sqlite3_step(st) != SQLITE_ROW) {
		report_fail_db(rp, "reading table sample");
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
		return report_fail_db(rp, "reading table run");
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
		return report_fail_db(rp, "reading table rack");
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
		return report_fail_db(rp, "reading table rack");
	return 0;
nomem:
	sqlite3_finalize(st);
	return report_failf(rp, "out of memory");
}

/* The run's cost at its rate, by the plan's cost model (plan_cost) over
 * this one run: the scenario's cost terms from the meta row "cost" (none:
 * the tariff's energy cost alone), the usage in the window. */
static int load_cost(struct report *rp)
{
	struct report_cost *rc = &rp->cost;
	char *text = NULL;
	sqlite3_stmt *st = NULL;
	if (report_has_column(rp->db, "meta", "key") &&
	    sqlite3_prepare_v2(rp->db, "SELECT value FROM meta WHERE key = 'cost'", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		text = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	struct plan_spec spec;
	char err[256];
	int pr = plan_cost_terms(text, &spec, err, sizeof err);
	rc->terms = text != NULL;
	free(text);
	if (pr < 0)
		return report_failf(rp, "%s", err);
	if (rp->ms.t1_us <= rp->ms.t0_us)
		return 0;   /* no window: the registry could not read the run */
	struct plan_usage use;
	if (plan_run_usage(rp->path, &rp->ms, &use, err, sizeof err) < 0)
		return report_failf(rp, "%s", err);
	if (!rc->terms && isnan(use.energy_cost))
		return 0;   /* nothing priced */
	struct plan_cand c = { 0 };
	plan_cost(&spec, &use, 1, &c);
	*rc = (struct report_cost){ .on = true, .terms = rc->terms, .price_kwh = spec.energy_price_per_kwh,
		.pue = spec.pue, .maint_per_node = spec.maint_per_node_year,
		.space_per_rack = spec.space_per_rack_year, .window_s = use.window_s,
		.energy_cost = use.energy_cost, .kwh_year = c.energy_kwh_year, .energy_year = c.energy_year,
		.nodes = c.nodes, .racks = c.racks, .maint_year = c.maint_year, .space_year = c.space_year,
		.year = c.cost };
	return 0;
}

void report_cost_lines(const struct report_cost *rc, char line[3][400])
{
	char b[4][48], w[48];
	snprintf(line[0], 400, "%s a year at this run's rate (over its window of %s); no capex: a run "
	         "adds nothing to the site", units_money(b[0], sizeof b[0], rc->year),
	         units_duration(w, sizeof w, rc->window_s));
	if (!isnan(rc->price_kwh))
		snprintf(line[1], 400, "energy %s (%s kWh a year at the facility%s x %g)",
		         units_money(b[0], sizeof b[0], rc->energy_year),
		         units_money(b[1], sizeof b[1], rc->kwh_year), isnan(rc->pue) ? "" : ", IT x the PUE given",
		         rc->price_kwh);
	else if (!isnan(rc->energy_cost))
		snprintf(line[1], 400, "energy %s (%s kWh a year at the facility, the scenario's tariff; %s "
		         "in the window)", units_money(b[0], sizeof b[0], rc->energy_year),
		         units_money(b[1], sizeof b[1], rc->kwh_year),
		         units_money(b[2], sizeof b[2], rc->energy_cost));
	else
		snprintf(line[1], 400, "energy not priced (the run has no power model and the scenario's "
		         "cost no energy_price_per_kwh)");
	if (rc->terms)
		snprintf(line[2], 400, "maintenance %s (%.0f nodes x %s), rack space %s (%.0f racks x %s)",
		         units_money(b[0], sizeof b[0], rc->maint_year), rc->nodes,
		         units_money(b[1], sizeof b[1], rc->maint_per_node),
		         units_money(b[2], sizeof b[2], rc->space_year), rc->racks,
		         units_money(b[3], sizeof b[3], rc->space_per_rack));
	else
		snprintf(line[2], 400, "maintenance and rack space not priced (the scenario has no \"cost\" "
		         "block; docs/planning.md)");
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
		return report_failf(rp, "%s", merr);
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

int report_load(struct report *rp, const struct metric_window *w)
{
	int rc = sqlite3_open_v2(rp->path, &rp->db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK)
		return rp->db ? report_fail_db(rp, "cannot open")
		              : report_failf(rp, "cannot open: %s", sqlite3_errstr(rc));
	if (check_schema(rp) < 0 || load_run(rp) < 0 || load_jobs(rp) < 0 ||
	    load_job_extras(rp) < 0 || apply_window(rp, w) < 0 || load_samples(rp) < 0 ||
	    load_power(rp) < 0 || load_cost(rp) < 0)
		return -1;
	return 0;
}

void report_load_fini(struct report *rp)
{
	sqlite3_close(rp->db);
	rp->db = NULL;
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
	for (int k = 0; k < rp->power.nracks; k++)
		free(rp->power.racks[k].name);
	free(rp->power.racks);
	names_fini(&rp->classes);
	names_fini(&rp->states);
	metric_set_fini(&rp->ms);
	mrun_close(&rp->mr);
}
