/* runplot — a run's figures from its results file (see runplot.h). */
#include "analysis/runplot.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis/plot.h"
#include "analysis/recorder.h"
#include "sim/job.h"

enum { TOP_TENANTS = 8 };

struct rp_ctx {
	const char *db_path, *dir;
	sqlite3 *db;
	struct runplot_set *set;
	char *err;
	size_t errlen;
};

/* A growable array of doubles. */
struct vec {
	double *v;
	int64_t n, cap;
};

static int vec_push(struct vec *a, double x)
{
	if (a->n == a->cap) {
		int64_t cap = a->cap ? a->cap * 2 : 256;
		double *p = realloc(a->v, (size_t)cap * sizeof *p);
		if (!p)
			return -1;
		a->v = p;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return 0;
}

static int failf(struct rp_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int failf(struct rp_ctx *c, const char *fmt, ...)
{
	int n = snprintf(c->err, c->errlen, "%s: ", c->db_path);
	if (n >= 0 && (size_t)n < c->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int fail_db(struct rp_ctx *c, const char *what)
{
	return failf(c, "%s: %s", what, sqlite3_errmsg(c->db));
}

static void add_note(struct rp_ctx *c, const char *s)
{
	size_t len = strlen(c->set->note);
	snprintf(c->set->note + len, sizeof c->set->note - len, "%s%s", len ? " " : "", s);
}

static void add_fig(struct rp_ctx *c, const char *name, const char *caption)
{
	struct runplot_set *s = c->set;
	if (s->n >= RUNPLOT_MAX_FIGS)
		return;
	snprintf(s->fig[s->n].name, sizeof s->fig[s->n].name, "%s", name);
	snprintf(s->fig[s->n].caption, sizeof s->fig[s->n].caption, "%s", caption);
	s->n++;
}

/* Time axis: hours, or days for runs longer than three days. */
struct tunit {
	double div_s;
	const char *label;
};

static struct tunit tunit_for(double span_s)
{
	if (span_s > 3 * 86400.0)
		return (struct tunit){ 86400.0, "simulated time since the start (days)" };
	return (struct tunit){ 3600.0, "simulated time since the start (hours)" };
}

static int check_db(struct rp_ctx *c)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(c->db, "SELECT value FROM meta WHERE key = 'schema_version'", -1,
	                       &st, NULL) != SQLITE_OK)
		return failf(c, "not a hetlab results file (%s)", sqlite3_errmsg(c->db));
	int rc = sqlite3_step(st);
	int64_t v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW || v < 1)
		return failf(c, "no schema_version in table meta");
	if (v > RECORDER_SCHEMA_VERSION)
		return failf(c, "schema version %" PRId64 " is newer than this hetlab reads (%d); "
		             "use a newer hetlab", v, RECORDER_SCHEMA_VERSION);
	return 0;
}

/* ---- from table sample --------------------------------------------------- */

static int sample_figs(struct rp_ctx *c)
{
	sqlite3_stmt *st = NULL;
	struct vec t = { 0 }, cs = { 0 }, gs = { 0 }, pend = { 0 }, run = { 0 }, pw = { 0 },
	           pwt = { 0 };
	bool gpus = false;
	int ret = -1;
	if (sqlite3_prepare_v2(c->db, "SELECT t_us, cores_alloc, cores_total, gpus_alloc, gpus_total,"
	                       " pending, running, power_w FROM sample ORDER BY t_us", -1, &st,
	                       NULL) != SQLITE_OK)
		return fail_db(c, "reading table sample");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		double ts = (double)sqlite3_column_int64(st, 0) / 1e6;
		int64_t ct = sqlite3_column_int64(st, 2), gt = sqlite3_column_int64(st, 4);
		double cshare = ct > 0 ? 100.0 * (double)sqlite3_column_int64(st, 1) / (double)ct : NAN;
		double gshare = gt > 0 ? 100.0 * (double)sqlite3_column_int64(st, 3) / (double)gt : NAN;
		gpus = gpus || gt > 0;
		if (vec_push(&t, ts) || vec_push(&cs, cshare) || vec_push(&gs, gshare) ||
		    vec_push(&pend, (double)sqlite3_column_int64(st, 5)) ||
		    vec_push(&run, (double)sqlite3_column_int64(st, 6)))
			goto nomem;
		if (sqlite3_column_type(st, 7) != SQLITE_NULL &&
		    (vec_push(&pwt, ts) || vec_push(&pw, sqlite3_column_double(st, 7) / 1000.0)))
			goto nomem;
	}
	if (rc != SQLITE_DONE) {
		fail_db(c, "reading table sample");
		goto out;
	}
	if (t.n == 0) {
		add_note(c, "The run has no monitoring samples (sample interval 0), so utilisation, "
		         "queue length and power over time are not drawn.");
		ret = 0;
		goto out;
	}
	struct tunit u = tunit_for(t.v[t.n - 1]);
	for (int64_t i = 0; i < t.n; i++)
		t.v[i] /= u.div_s;
	for (int64_t i = 0; i < pwt.n; i++)
		pwt.v[i] /= u.div_s;

	struct plot_series su[2] = {
		{ .title = "cores allocated", .n = t.n, .x = t.v, .y = cs.v },
		{ .title = "GPUs allocated", .n = t.n, .x = t.v, .y = gs.v },
	};
	struct plot_fig fu = { .name = "utilisation", .title = "Allocated share of the cluster",
	                       .xlabel = u.label, .ylabel = "allocated (% of those in service)",
	                       .extra = "set yrange [0:105]\nset xrange [0:*]\nset key below" };
	if (plot_xy(c->dir, &fu, PLOT_STEPS, gpus ? 2 : 1, su, c->err, c->errlen) != 0)
		goto out;
	add_fig(c, "utilisation", gpus ? "Allocated cores and GPUs as shares of those in service, "
	        "per monitoring sample." : "Allocated cores as a share of those in service, per "
	        "monitoring sample (the cluster has no GPUs).");

	struct plot_series sq[2] = {
		{ .title = "pending (queue length)", .n = t.n, .x = t.v, .y = pend.v },
		{ .title = "running", .n = t.n, .x = t.v, .y = run.v },
	};
	struct plot_fig fq = { .name = "queue", .title = "Jobs pending and running",
	                       .xlabel = u.label, .ylabel = "jobs",
	                       .extra = "set yrange [0:*]\nset xrange [0:*]\nset key below" };
	if (plot_xy(c->dir, &fq, PLOT_STEPS, 2, sq, c->err, c->errlen) != 0)
		goto out;
	add_fig(c, "queue", "Jobs waiting in the queue and jobs running, per monitoring sample.");

	if (pw.n > 0) {
		struct plot_series sp = { .title = "IT power (modelled)", .n = pw.n, .x = pwt.v,
		                          .y = pw.v };
		struct plot_fig fp = { .name = "power", .title = "Modelled IT power of the cluster",
		                       .xlabel = u.label, .ylabel = "IT power (kW)",
		                       .extra = "set yrange [0:*]\nset xrange [0:*]\nset key below" };
		if (plot_xy(c->dir, &fp, PLOT_LINES, 1, &sp, c->err, c->errlen) != 0)
			goto out;
		add_fig(c, "power", "Modelled IT power of the whole cluster, per monitoring sample "
		        "(each rack against its cap is in the rack power figure).");
	}
	ret = 0;
	goto out;
nomem:
	failf(c, "out of memory");
out:
	sqlite3_finalize(st);
	free(t.v);
	free(cs.v);
	free(gs.v);
	free(pend.v);
	free(run.v);
	free(pw.v);
	free(pwt.v);
	return ret;
}

/* ---- rack power against capacity ------------------------------------------ */

enum { TOP_RACKS = 8 };

/* Each rack's modelled power as a share of its capacity over time, for the
 * racks that come closest to their cap, with the 90 % warning level and the
 * cap marked. Skipped (with a note) when the file has no rack samples. */
static int rack_fig(struct rp_ctx *c)
{
	sqlite3_stmt *st = NULL;
	int ret = -1, nr = 0;
	struct vec t[TOP_RACKS] = { { 0 } }, y[TOP_RACKS] = { { 0 } };
	int id[TOP_RACKS];
	char names[TOP_RACKS][64];
	double span = 0;
	/* The racks with the highest peak share of their cap. */
	if (sqlite3_prepare_v2(c->db,
	        "SELECT r.id, r.name, max(s.power_w) / r.cap_w AS peak FROM rack r"
	        " JOIN rack_sample s ON s.rack = r.id WHERE r.cap_w > 0"
	        " GROUP BY r.id ORDER BY peak DESC, r.id LIMIT 8", -1, &st, NULL) != SQLITE_OK) {
		add_note(c, "No rack power figure: the file has no rack tables (written by an older hetlab).");
		sqlite3_finalize(st);
		return 0;
	}
	while (sqlite3_step(st) == SQLITE_ROW && nr < TOP_RACKS) {
		id[nr] = sqlite3_column_int(st, 0);
		snprintf(names[nr], sizeof names[nr], "%s", (const char *)sqlite3_column_text(st, 1));
		nr++;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (nr == 0)
		return 0;
	if (sqlite3_prepare_v2(c->db,
	        "SELECT s.t_us, s.power_w / r.cap_w * 100 FROM rack_sample s JOIN rack r ON r.id = s.rack"
	        " WHERE s.rack = ? ORDER BY s.t_us", -1, &st, NULL) != SQLITE_OK) {
		fail_db(c, "reading rack samples");
		return -1;
	}
	for (int k = 0; k < nr; k++) {
		sqlite3_reset(st);
		sqlite3_bind_int(st, 1, id[k]);
		while (sqlite3_step(st) == SQLITE_ROW) {
			double ts = (double)sqlite3_column_int64(st, 0) / 1e6;
			if (vec_push(&t[k], ts) || vec_push(&y[k], sqlite3_column_double(st, 1)))
				goto nomem;
			if (ts > span)
				span = ts;
		}
	}
	struct tunit u = tunit_for(span);
	struct plot_series s[TOP_RACKS];
	for (int k = 0; k < nr; k++) {
		for (int64_t i = 0; i < t[k].n; i++)
			t[k].v[i] /= u.div_s;
		s[k] = (struct plot_series){ .title = names[k], .n = t[k].n, .x = t[k].v, .y = y[k].v };
	}
	struct plot_fig f = { .name = "rack_power", .title = "Rack power against its capacity",
	                      .xlabel = u.label, .ylabel = "modelled power (% of the rack's cap)",
	                      .extra = "set yrange [0:*]\nset xrange [0:*]\nset key below\n"
	                               "set arrow from graph 0, first 90 to graph 1, first 90 nohead dt 2\n"
	                               "set arrow from graph 0, first 100 to graph 1, first 100 nohead lw 2\n"
	                               "set label 'warning 90 %' at graph 0.01, first 92\n"
	                               "set label 'cap' at graph 0.01, first 102" };
	if (plot_xy(c->dir, &f, PLOT_STEPS, nr, s, c->err, c->errlen) != 0)
		goto out;
	add_fig(c, "rack_power", "Each rack's modelled IT power as a share of its capacity, per "
	        "monitoring sample, for the racks that come closest to their cap (at most 8); the "
	        "dashed line is the 90 % warning level, the thick one the cap.");
	ret = 0;
	goto out;
nomem:
	failf(c, "out of memory");
out:
	sqlite3_finalize(st);
	for (int k = 0; k < TOP_RACKS; k++) {
		free(t[k].v);
		free(y[k].v);
	}
	return ret;
}

/* ---- wait CDF per class -------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int wait_cdf(struct rp_ctx *c)
{
	sqlite3_stmt *st = NULL;
	/* Known classes in their order, then one slot for any other name. */
	struct vec w[JOB_NCLASS + 1] = { { 0 } }, x[JOB_NCLASS + 1] = { { 0 } },
	           y[JOB_NCLASS + 1] = { { 0 } };
	int ret = -1;
	if (sqlite3_prepare_v2(c->db, "SELECT class, start_us - submit_us FROM job"
	                       " WHERE start_us IS NOT NULL", -1, &st, NULL) != SQLITE_OK)
		return fail_db(c, "reading table job");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *name = sqlite3_column_text(st, 0);
		int k = name ? job_class_parse((const char *)name) : -1;
		if (k < 0)
			k = JOB_NCLASS;
		if (vec_push(&w[k], (double)sqlite3_column_int64(st, 1) / 1e6))
			goto nomem;
	}
	if (rc != SQLITE_DONE) {
		fail_db(c, "reading table job");
		goto out;
	}
	struct plot_series s[JOB_NCLASS + 1];
	char titles[JOB_NCLASS + 1][64];
	int ns = 0;
	for (int k = 0; k <= JOB_NCLASS; k++) {
		struct vec *a = &w[k];
		if (a->n == 0)
			continue;
		qsort(a->v, (size_t)a->n, sizeof *a->v, cmp_double);
		/* Waits under 1 s are drawn at 1 s (log axis); one point per
		 * distinct wait, at the top of its step. */
		if (vec_push(&x[k], 1.0) || vec_push(&y[k], 0.0))
			goto nomem;
		for (int64_t i = 0; i < a->n; i++) {
			if (i + 1 < a->n && a->v[i + 1] == a->v[i])
				continue;
			if (vec_push(&x[k], fmax(a->v[i], 1.0)) ||
			    vec_push(&y[k], 100.0 * (double)(i + 1) / (double)a->n))
				goto nomem;
		}
		snprintf(titles[ns], sizeof titles[ns], "%s (%" PRId64 " jobs)",
		         k < JOB_NCLASS ? job_class_name((enum job_class)k) : "other", a->n);
		s[ns] = (struct plot_series){ .title = titles[ns], .n = x[k].n, .x = x[k].v,
		                              .y = y[k].v };
		ns++;
	}
	if (ns == 0) {
		add_note(c, "No job started, so the waiting-time CDF is not drawn.");
		ret = 0;
		goto out;
	}
	struct plot_fig f = { .name = "wait_cdf", .title = "Waiting time per job class (CDF)",
	                      .xlabel = "wait (s, log scale; waits under 1 s at 1 s)",
	                      .ylabel = "jobs started within that wait (%)", .logx = true,
	                      .extra = "set yrange [0:105]\nset xrange [0.5:*]\nset key bottom right" };
	if (plot_xy(c->dir, &f, PLOT_STEPS, ns, s, c->err, c->errlen) != 0)
		goto out;
	add_fig(c, "wait_cdf", "Empirical distribution of the waiting time (start - submit) of "
	        "the started jobs, per class.");
	ret = 0;
	goto out;
nomem:
	failf(c, "out of memory");
out:
	sqlite3_finalize(st);
	for (int k = 0; k <= JOB_NCLASS; k++) {
		free(w[k].v);
		free(x[k].v);
		free(y[k].v);
	}
	return ret;
}

/* ---- core-hours per tenant over time ------------------------------------- */

struct tenant {
	int64_t id;
	bool null_id;
	double total_s;
	double *bin_s;               /* core-seconds per bin */
};

static int cmp_tenant(const void *a, const void *b)
{
	const struct tenant *x = a, *y = b;
	if (x->total_s != y->total_s)
		return x->total_s < y->total_s ? 1 : -1;
	return (x->id > y->id) - (x->id < y->id);
}

static int tenant_figs(struct rp_ctx *c)
{
	sqlite3_stmt *st = NULL;
	struct tenant *tn = NULL;
	int ntn = 0, captn = 0, ret = -1;
	double *ys = NULL;
	char (*labels)[32] = NULL;
	const char **lp = NULL;
	int64_t nbin = 0;
	double bin_s = 86400.0;

	if (sqlite3_prepare_v2(c->db, "SELECT max(end_us) FROM job WHERE start_us IS NOT NULL"
	                       " AND end_us IS NOT NULL", -1, &st, NULL) != SQLITE_OK)
		return fail_db(c, "reading table job");
	if (sqlite3_step(st) != SQLITE_ROW) {
		fail_db(c, "reading table job");
		goto out;
	}
	bool any = sqlite3_column_type(st, 0) != SQLITE_NULL;
	double last_s = (double)sqlite3_column_int64(st, 0) / 1e6;
	sqlite3_finalize(st);
	st = NULL;
	if (!any) {
		add_note(c, "No job ran to its end, so core-hours per tenant are not drawn.");
		return 0;
	}
	if (last_s < 2 * 86400.0)
		bin_s = 3600.0;
	nbin = (int64_t)floor(last_s / bin_s) + 1;
	if (nbin > 100000)
		return failf(c, "the run is too long to draw core-hours per %s (%" PRId64 " bins)",
		             bin_s > 3600 ? "day" : "hour", nbin);

	if (sqlite3_prepare_v2(c->db, "SELECT tenant, start_us, end_us, cores FROM job"
	                       " WHERE start_us IS NOT NULL AND end_us IS NOT NULL"
	                       " ORDER BY tenant", -1, &st, NULL) != SQLITE_OK)
		return fail_db(c, "reading table job");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		bool null_id = sqlite3_column_type(st, 0) == SQLITE_NULL;
		int64_t id = sqlite3_column_int64(st, 0);
		if (ntn == 0 || tn[ntn - 1].id != id || tn[ntn - 1].null_id != null_id) {
			if (ntn == captn) {
				captn = captn ? captn * 2 : 16;
				struct tenant *p = realloc(tn, (size_t)captn * sizeof *p);
				if (!p)
					goto nomem;
				tn = p;
			}
			tn[ntn] = (struct tenant){ .id = id, .null_id = null_id };
			if (!(tn[ntn].bin_s = calloc((size_t)nbin, sizeof(double))))
				goto nomem;
			ntn++;
		}
		struct tenant *t = &tn[ntn - 1];
		double a = (double)sqlite3_column_int64(st, 1) / 1e6;
		double b = (double)sqlite3_column_int64(st, 2) / 1e6;
		double cores = (double)sqlite3_column_int64(st, 3);
		/* Split the run over the bins it overlaps. */
		for (int64_t k = (int64_t)floor(a / bin_s); k < nbin && (double)k * bin_s < b; k++) {
			double lo = fmax(a, (double)k * bin_s), hi = fmin(b, (double)(k + 1) * bin_s);
			if (hi > lo) {
				t->bin_s[k] += cores * (hi - lo);
				t->total_s += cores * (hi - lo);
			}
		}
	}
	if (rc != SQLITE_DONE) {
		fail_db(c, "reading table job");
		goto out;
	}
	qsort(tn, (size_t)ntn, sizeof *tn, cmp_tenant);
	int ns = ntn > TOP_TENANTS ? TOP_TENANTS + 1 : ntn;
	ys = calloc((size_t)ns * (size_t)nbin, sizeof *ys);
	labels = calloc((size_t)nbin, sizeof *labels);
	lp = calloc((size_t)nbin, sizeof *lp);
	if (!ys || !labels || !lp)
		goto nomem;
	struct plot_series s[TOP_TENANTS + 1];
	char titles[TOP_TENANTS + 1][48];
	for (int i = 0; i < ntn; i++) {
		int k = i < TOP_TENANTS ? i : TOP_TENANTS;
		for (int64_t b = 0; b < nbin; b++)
			ys[(size_t)k * (size_t)nbin + (size_t)b] += tn[i].bin_s[b] / 3600.0;
	}
	for (int k = 0; k < ns; k++) {
		if (k == TOP_TENANTS)
			snprintf(titles[k], sizeof titles[k], "other (%d tenants)", ntn - TOP_TENANTS);
		else if (tn[k].null_id)
			snprintf(titles[k], sizeof titles[k], "tenant unknown");
		else
			snprintf(titles[k], sizeof titles[k], "tenant %" PRId64, tn[k].id);
		s[k] = (struct plot_series){ .title = titles[k], .y = ys + (size_t)k * (size_t)nbin };
	}
	for (int64_t b = 0; b < nbin; b++) {
		snprintf(labels[b], sizeof labels[b], "%" PRId64, b);
		lp[b] = labels[b];
	}
	bool daily = bin_s > 3600.0;
	struct plot_fig f = { .name = "tenants",
	                      .title = daily ? "Allocated core-hours per tenant per day"
	                                     : "Allocated core-hours per tenant per hour",
	                      .xlabel = daily ? "day of the run (from the start)"
	                                      : "hour of the run (from the start)",
	                      .ylabel = daily ? "core-hours per day" : "core-hours per hour",
	                      .extra = "set key outside right top\n"
	                                "set linetype cycle 9\nset linetype 9 lc rgb '#a0a0a0'" };
	if (plot_stacked_bars(c->dir, &f, (int)nbin, lp, ns, s, c->err, c->errlen) != 0)
		goto out;
	char cap[256];
	snprintf(cap, sizeof cap, "Core-hours allocated to the jobs that ran, per %s, per tenant: "
	         "the %d largest tenants by total core-hours%s. Only a job's last run counts.",
	         daily ? "day" : "hour", ntn < TOP_TENANTS ? ntn : TOP_TENANTS,
	         ntn > TOP_TENANTS ? " and the others summed" : "");
	add_fig(c, "tenants", cap);
	ret = 0;
	goto out;
nomem:
	failf(c, "out of memory");
out:
	sqlite3_finalize(st);
	for (int i = 0; i < ntn; i++)
		free(tn[i].bin_s);
	free(tn);
	free(ys);
	free(labels);
	free(lp);
	return ret;
}

/* ---- entry --------------------------------------------------------------- */

int runplot_write(const char *db, const char *dir, struct runplot_set *set, char *err,
                  size_t errlen)
{
	struct rp_ctx c = { .db_path = db, .dir = dir, .set = set, .err = err, .errlen = errlen };
	memset(set, 0, sizeof *set);
	int ret = -1;
	int rc = sqlite3_open_v2(db, &c.db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		if (c.db)
			fail_db(&c, "cannot open");
		else
			failf(&c, "cannot open: %s", sqlite3_errstr(rc));
		goto out;
	}
	if (check_db(&c) < 0 || plot_mkdir(dir, err, errlen) < 0)
		goto out;
	if (sample_figs(&c) < 0 || rack_fig(&c) < 0 || wait_cdf(&c) < 0 || tenant_figs(&c) < 0)
		goto out;
	add_note(&c, "No temperature heat map: the model does not produce temperatures yet.");
	ret = 0;
out:
	sqlite3_close(c.db);
	return ret;
}

int runplot_draw(const char *db, const char *dir, const char *prog, struct runplot_set *set,
                 char *err, size_t errlen)
{
	if (runplot_write(db, dir, set, err, errlen) < 0)
		return -1;
	if (set->n == 0)
		return 0;
	const char *names[RUNPLOT_MAX_FIGS];
	for (int i = 0; i < set->n; i++)
		names[i] = set->fig[i].name;
	return plot_render(prog, dir, set->n, names, err, errlen);
}

void runplot_remove(const char *dir, const struct runplot_set *set)
{
	static const char *const ext[] = { ".dat", ".gp", ".png", ".svg" };
	char p[4096];
	for (int i = 0; i < set->n; i++)
		for (int e = 0; e < 4; e++) {
			snprintf(p, sizeof p, "%s/%s%s", dir, set->fig[i].name, ext[e]);
			unlink(p);
		}
}
