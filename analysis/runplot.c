/* runplot — a run's figures from its results file (see runplot.h). */
#include "analysis/runplot.h"

#include <errno.h>
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

#include "analysis/dbutil.h"
#include "analysis/mrun.h"
#include "analysis/plot.h"
#include "analysis/recorder.h"
#include "sim/job.h"

enum { TOP_TENANTS = 8 };

struct rp_ctx {
	const char *db_path, *dir;
	sqlite3 *db;
	struct mrun mr;              /* the registry's model (names); mr.db NULL when unread */
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
	/* A count of jobs: whole ticks (gnuplot would put 0.5 between 0 and
	 * 3 jobs). */
	double qmax = 0;
	for (int64_t i = 0; i < t.n; i++)
		qmax = fmax(qmax, fmax(pend.v[i], run.v[i]));
	struct plot_fig fq = { .name = "queue", .title = "Jobs pending and running",
	                       .xlabel = u.label, .ylabel = "jobs",
	                       .extra = qmax <= 10 ? "set yrange [0:*]\nset xrange [0:*]\nset key below\n"
	                                             "set ytics 1\nset format y '%.0f'"
	                                           : "set yrange [0:*]\nset xrange [0:*]\nset key below\n"
	                                             "set format y '%.0f'" };
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

/* Restyles series nr .. 2 nr - 1 of DIR/NAME.gp (written by plot_xy with
 * PLOT_STEPS, each cap series in its rack's colour) as thin dashed steps:
 * plot_xy draws every series alike, and `set linetype` in the script's
 * extra commands would outlive it in the one gnuplot process that draws
 * every figure. A clause not found (another plot_xy layout) stays as it
 * was. */
static int dash_caps(struct rp_ctx *c, const char *name, int nr)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.gp", c->dir, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		return failf(c, "%s: %s", path, strerror(errno));
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	char chunk[4096];
	size_t got;
	while (m && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
		fwrite(chunk, 1, got, m);
	bool bad = ferror(f);
	fclose(f);
	if (!m || fclose(m) != 0 || bad) {
		free(buf);
		return failf(c, "%s: cannot read the script", path);
	}
	if (!(f = fopen(path, "wb"))) {
		free(buf);
		return failf(c, "%s: %s", path, strerror(errno));
	}
	const char *p = buf;
	for (int k = nr; k < 2 * nr; k++) {
		char from[160];
		snprintf(from, sizeof from, "'%s.dat' index %d using 1:2 with steps lw 2", name, k);
		const char *q = strstr(p, from);
		if (!q)
			continue;
		fwrite(p, 1, (size_t)(q - p), f);
		fprintf(f, "'%s.dat' index %d using 1:2 with steps lw 1 dt 2", name, k);
		p = q + strlen(from);
	}
	fputs(p, f);
	free(buf);
	if (fclose(f) != 0)
		return failf(c, "%s: cannot write: %s", path, strerror(errno));
	return 0;
}

enum { TOP_RACKS = 16 };

/* Each rack's modelled power as a share of its capacity over time, for the
 * racks that come closest to their cap, with the 90 % warning level and the
 * cap marked. Skipped (with a note) when the file has no rack samples. */
static int rack_fig(struct rp_ctx *c)
{
	sqlite3_stmt *st = NULL;
	int ret = -1, nr = 0;
	struct vec t[TOP_RACKS] = { { 0 } }, y[TOP_RACKS] = { { 0 } };
	struct vec ct[TOP_RACKS] = { { 0 } }, cy[TOP_RACKS] = { { 0 } };   /* the caps */
	int id[TOP_RACKS];
	char names[TOP_RACKS][64];
	double span = 0;
	/* The racks with the highest peak share of their cap. */
	if (sqlite3_prepare_v2(c->db,
	        "SELECT r.id, r.name, max(s.power_w) / r.cap_w AS peak FROM rack r"
	        " JOIN rack_sample s ON s.rack = r.id WHERE r.cap_w > 0"
	        " GROUP BY r.id ORDER BY peak DESC, r.id", -1, &st, NULL) != SQLITE_OK) {
		add_note(c, "No rack power figure: the file has no rack tables (written by an older hetlab).");
		sqlite3_finalize(st);
		return 0;
	}
	char left[200] = "";
	int nleft = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (nr == TOP_RACKS) {   /* not drawn: named in the caption */
			size_t l = strlen(left);
			if (nleft < 6)
				snprintf(left + l, sizeof left - l, "%s%s", nleft ? ", " : "",
				         (const char *)sqlite3_column_text(st, 1));
			nleft++;
			continue;
		}
		id[nr] = sqlite3_column_int(st, 0);
		snprintf(names[nr], sizeof names[nr], "%s", (const char *)sqlite3_column_text(st, 1));
		nr++;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (nr == 0)
		return 0;
	/* The cap each sample saw (power model on), on the same scale. */
	bool caps = report_has_column(c->db, "rack_sample", "cap_w");
	if (sqlite3_prepare_v2(c->db, caps
	        ? "SELECT s.t_us, s.power_w / r.cap_w * 100, s.cap_w / r.cap_w * 100 FROM rack_sample s"
	          " JOIN rack r ON r.id = s.rack WHERE s.rack = ? ORDER BY s.t_us"
	        : "SELECT s.t_us, s.power_w / r.cap_w * 100, NULL FROM rack_sample s"
	          " JOIN rack r ON r.id = s.rack WHERE s.rack = ? ORDER BY s.t_us", -1, &st, NULL) != SQLITE_OK) {
		fail_db(c, "reading rack samples");
		return -1;
	}
	int ncap = 0;
	for (int k = 0; k < nr; k++) {
		sqlite3_reset(st);
		sqlite3_bind_int(st, 1, id[k]);
		while (sqlite3_step(st) == SQLITE_ROW) {
			double ts = (double)sqlite3_column_int64(st, 0) / 1e6;
			if (vec_push(&t[k], ts) || vec_push(&y[k], sqlite3_column_double(st, 1)))
				goto nomem;
			if (sqlite3_column_type(st, 2) != SQLITE_NULL &&
			    (vec_push(&ct[k], ts) || vec_push(&cy[k], sqlite3_column_double(st, 2))))
				goto nomem;
			if (ts > span)
				span = ts;
		}
		ncap += ct[k].n > 0;
	}
	struct tunit u = tunit_for(span);
	struct plot_series s[2 * TOP_RACKS];
	for (int k = 0; k < nr; k++) {
		for (int64_t i = 0; i < t[k].n; i++)
			t[k].v[i] /= u.div_s;
		for (int64_t i = 0; i < ct[k].n; i++)
			ct[k].v[i] /= u.div_s;
		/* Each rack its own colour (gnuplot's cycle repeats after 8). */
		s[k] = (struct plot_series){ .title = names[k], .n = t[k].n, .x = t[k].v, .y = y[k].v,
		                             .color = plot_palette[k % 16] };
		/* Every rack gets a cap series (empty without the model) so that
		 * cap series nr + k is rack k's, in its colour. */
		s[nr + k] = (struct plot_series){ .n = ct[k].n, .x = ct[k].v, .y = cy[k].v,
		                                  .color = plot_palette[k % 16] };
	}
	struct plot_fig f = { .name = "rack_power", .title = "Rack power against its capacity",
	                      .xlabel = u.label, .ylabel = "modelled power (% of the rack's cap)",
	                      .extra = "set yrange [0:*]\nset xrange [0:*]\nset key below\n"
	                               "set arrow from graph 0, first 90 to graph 1, first 90 nohead dt 2\n"
	                               "set arrow from graph 0, first 100 to graph 1, first 100 nohead lw 2\n"
	                               "set label 'warning 90 %' at graph 0.01, first 92\n"
	                               "set label 'cap' at graph 0.01, first 102" };
	bool draw_caps = ncap == nr;
	if (plot_xy(c->dir, &f, PLOT_STEPS, draw_caps ? 2 * nr : nr, s, c->err, c->errlen) != 0)
		goto out;
	if (draw_caps && dash_caps(c, "rack_power", nr) != 0)
		goto out;
	char cap[640], rest[320] = "";
	if (nleft)
		snprintf(rest, sizeof rest, " %d more racks, further from their caps, are not drawn (%s%s; "
		         "the rack table lists every one).", nleft, left, nleft > 6 ? ", ..." : "");
	snprintf(cap, sizeof cap, "Each rack's modelled IT power as a share of its capacity, per "
	         "monitoring sample, %s; the dashed line is the 90 %% warning level, the thick one the "
	         "cap%s.%s", nleft ? "for the racks that come closest to their cap" : "for every rack",
	         draw_caps ? ", and each rack's own cap as the power model saw it (changed by "
	         "environment events) is the thin dashed step line in its colour" : "", rest);
	add_fig(c, "rack_power", cap);
	ret = 0;
	goto out;
nomem:
	failf(c, "out of memory");
out:
	sqlite3_finalize(st);
	for (int k = 0; k < TOP_RACKS; k++) {
		free(t[k].v);
		free(y[k].v);
		free(ct[k].v);
		free(cy[k].v);
	}
	return ret;
}

/* ---- node temperature heat map -------------------------------------------- */

enum { TEMP_MAX_COLS = 720, TEMP_MAX_YTICS = 40, PNG_W = 1000, PNG_H = 600 };

/* A gnuplot single-quoted string ('' is a quote; control characters become spaces). */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("''", f);
		else
			fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
	}
	fputc('\'', f);
}

static FILE *open_fig(struct rp_ctx *c, const char *name, const char *ext, char *path, size_t len)
{
	snprintf(path, len, "%s/%s%s", c->dir, name, ext);
	FILE *f = fopen(path, "w");
	if (!f)
		failf(c, "cannot write %s: %s", path, strerror(errno));
	return f;
}

static int close_fig(struct rp_ctx *c, FILE *f, const char *path)
{
	bool bad = ferror(f);
	if (fclose(f) != 0 || bad)
		return failf(c, "cannot write %s", path);
	return 0;
}

/* The hottest node of each rack (rack_sample.temp_max) over time, as an
 * image: one row per rack (rack id order, the first at the top), one
 * column per sample, or per group of consecutive samples (their maximum)
 * when there are more than TEMP_MAX_COLS. The samples are evenly spaced,
 * as the engine takes them, so the columns are too. The .dat is a gnuplot
 * matrix; the script's terminals are those of analysis/plot. */
static int temp_fig(struct rp_ctx *c)
{
	static const char no_map[] = "No temperature heat map: the file has no node temperatures "
	                             "(a run without the power model, or an older hetlab).";
	if (!report_has_column(c->db, "rack_sample", "temp_max")) {
		add_note(c, no_map);
		return 0;
	}
	sqlite3_stmt *st = NULL;
	int ret = -1, nr = 0;
	char (*names)[64] = NULL;
	int *row_of = NULL;           /* rack id -> row, -1 when it has no temperature */
	double *cell = NULL;
	int64_t nt = 0, maxid = -1;
	double t0 = 0, t1 = 0;
	if (sqlite3_prepare_v2(c->db, "SELECT count(DISTINCT t_us), min(t_us), max(t_us), max(rack)"
	                       " FROM rack_sample WHERE temp_max IS NOT NULL", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		fail_db(c, "reading rack samples");
		goto out;
	}
	nt = sqlite3_column_int64(st, 0);
	t0 = (double)sqlite3_column_int64(st, 1) / 1e6;
	t1 = (double)sqlite3_column_int64(st, 2) / 1e6;
	maxid = sqlite3_column_int64(st, 3);
	sqlite3_finalize(st);
	st = NULL;
	if (nt < 2 || maxid < 0 || maxid > 1000000) {
		add_note(c, nt < 2 ? "No temperature heat map: fewer than two samples with node "
		                     "temperatures." : no_map);
		ret = 0;
		goto out;
	}
	/* The racks that have temperatures, in id order. */
	if (!(row_of = malloc((size_t)(maxid + 1) * sizeof *row_of)) ||
	    !(names = calloc((size_t)maxid + 1, sizeof *names)))
		goto nomem;
	for (int64_t i = 0; i <= maxid; i++)
		row_of[i] = -1;
	if (sqlite3_prepare_v2(c->db, "SELECT r.id, r.name FROM rack r WHERE r.id IN (SELECT DISTINCT"
	                       " rack FROM rack_sample WHERE temp_max IS NOT NULL) ORDER BY r.id", -1,
	                       &st, NULL) != SQLITE_OK) {
		fail_db(c, "reading table rack");
		goto out;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const unsigned char *name = sqlite3_column_text(st, 1);
		if (id < 0 || id > maxid)
			continue;
		snprintf(names[nr], sizeof names[nr], "%s", name ? (const char *)name : "?");
		row_of[id] = nr++;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (nr == 0) {
		add_note(c, no_map);
		ret = 0;
		goto out;
	}
	int64_t group = (nt + TEMP_MAX_COLS - 1) / TEMP_MAX_COLS;
	int64_t ncol = (nt + group - 1) / group;
	if (!(cell = malloc((size_t)nr * (size_t)ncol * sizeof *cell)))
		goto nomem;
	for (int64_t i = 0; i < (int64_t)nr * ncol; i++)
		cell[i] = NAN;
	if (sqlite3_prepare_v2(c->db, "SELECT t_us, rack, temp_max FROM rack_sample WHERE temp_max"
	                       " IS NOT NULL ORDER BY t_us", -1, &st, NULL) != SQLITE_OK) {
		fail_db(c, "reading rack samples");
		goto out;
	}
	int64_t ti = -1, last_t = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0), id = sqlite3_column_int64(st, 1);
		if (ti < 0 || t != last_t) {
			ti++;
			last_t = t;
		}
		if (id < 0 || id > maxid || row_of[id] < 0 || ti >= nt)
			continue;
		double *v = &cell[(size_t)row_of[id] * (size_t)ncol + (size_t)(ti / group)];
		double x = sqlite3_column_double(st, 2);
		if (isnan(*v) || x > *v)
			*v = x;
	}
	if (rc != SQLITE_DONE) {
		fail_db(c, "reading rack samples");
		goto out;
	}

	char path[4200];
	FILE *f = open_fig(c, "node_temp", ".dat", path, sizeof path);
	if (!f)
		goto out;
	fprintf(f, "# node_temp: the hottest node of each rack (°C); one row per rack (");
	for (int k = 0; k < nr; k++)
		fprintf(f, "%s%s", k ? " " : "", names[k]);
	fprintf(f, "), one column per %" PRId64 " sample(s)\n", group);
	/* One rack: its row twice, each half as tall (an image needs two rows). */
	for (int k = 0; k < (nr == 1 ? 2 : nr); k++) {
		const double *row = cell + (size_t)(nr == 1 ? 0 : k) * (size_t)ncol;
		for (int64_t j = 0; j < ncol; j++) {
			if (isnan(row[j]))
				fprintf(f, "%sNaN", j ? " " : "");
			else
				fprintf(f, "%s%.3f", j ? " " : "", row[j]);
		}
		fputc('\n', f);
	}
	if (close_fig(c, f, path) != 0)
		goto out;

	struct tunit u = tunit_for(t1);
	double step = (t1 - t0) / (double)(nt - 1) / u.div_s;       /* between samples */
	double dx = step * (double)group;
	double x0 = t0 / u.div_s + step * (double)(group - 1) / 2;  /* column 0's centre */
	if (!(f = open_fig(c, "node_temp", ".gp", path, sizeof path)))
		goto out;
	fprintf(f, "# node_temp — written by hetlab; redraw with: gnuplot node_temp.gp (in this folder)\n"
	        "reset\nset encoding utf8\n"
	        "set title 'Hottest node temperature per rack'\nset xlabel ");
	gp_str(f, u.label);
	fprintf(f, "\nset ylabel 'rack'\nset cblabel 'hottest node of the rack (°C)'\n"
	        "set palette defined (0 '#313695', 0.25 '#74add1', 0.5 '#ffffbf', 0.75 '#f46d43',"
	        " 1 '#a50026')\n"
	        "set xrange [%.10g:%.10g]\nset yrange [%d.5:-0.5]\nset tics out\nunset key\n",
	        x0 - dx / 2, x0 + dx * ((double)ncol - 0.5), nr - 1);
	int every = (nr + TEMP_MAX_YTICS - 1) / TEMP_MAX_YTICS;
	fputs("set ytics (", f);
	for (int k = 0, first = 1; k < nr; k += every, first = 0) {
		fputs(first ? "" : ", ", f);
		gp_str(f, names[k]);
		fprintf(f, " %d", k);
	}
	fprintf(f, ")\n"
	        "do for [fmt in \"png svg\"] {\n"
	        "  if (fmt eq \"png\") {\n"
	        "    if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
	        "      set terminal pngcairo size %d,%d font \"DejaVu Sans,11\" noenhanced\n"
	        "    } else {\n"
	        "      set terminal png size %d,%d noenhanced\n"
	        "    }\n"
	        "  } else {\n"
	        "    set terminal svg size %d,%d dynamic font \"DejaVu Sans,11\" noenhanced\n"
	        "  }\n"
	        "  set output 'node_temp.'.fmt\n"
	        "  plot 'node_temp.dat' matrix using (%.10g + $1 * %.10g):($2 * %g + %g):3 with image\n"
	        "  unset output\n}\n",
	        PNG_W, PNG_H, PNG_W, PNG_H, PNG_W, PNG_H, x0, dx, nr == 1 ? 0.5 : 1.0,
	        nr == 1 ? -0.25 : 0.0);
	if (close_fig(c, f, path) != 0)
		goto out;
	char cap[256];
	snprintf(cap, sizeof cap, "The hottest node of each rack over time, in °C (%s); the power "
	         "model's node temperatures at each monitoring sample%s.",
	         nr == 1 ? "one rack" : "one row per rack",
	         group > 1 ? ", the maximum over consecutive samples per column" : "");
	add_fig(c, "node_temp", cap);
	ret = 0;
	goto out;
nomem:
	failf(c, "out of memory");
out:
	sqlite3_finalize(st);
	free(names);
	free(row_of);
	free(cell);
	return ret;
}

/* ---- wait CDF per class -------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Where the waits of 0 stand on the log axis (the '0' tick). */
#define CDF_ZERO 0.5

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
	char titles[JOB_NCLASS + 1][80];
	int ns = 0;
	int cls[JOB_NCLASS + 1];   /* series -> its class slot */
	double longest = 1;        /* the longest wait of any class */
	for (int k = 0; k <= JOB_NCLASS; k++) {
		struct vec *a = &w[k];
		if (a->n == 0)
			continue;
		qsort(a->v, (size_t)a->n, sizeof *a->v, cmp_double);
		/* The jobs that did not wait at all stand at the '0' tick
		 * (CDF_ZERO, left of 1 s on the log axis): the curve starts at
		 * their share. Positive waits under 1 s are drawn at 1 s; one
		 * point per distinct wait, at the top of its step. */
		int64_t zero = 0;
		while (zero < a->n && a->v[zero] <= 0)
			zero++;
		if (vec_push(&x[k], CDF_ZERO) || vec_push(&y[k], 0) || vec_push(&x[k], CDF_ZERO) ||
		    vec_push(&y[k], 100.0 * (double)zero / (double)a->n))
			goto nomem;
		for (int64_t i = zero; i < a->n; i++) {
			if (i + 1 < a->n && a->v[i + 1] == a->v[i])
				continue;
			if (vec_push(&x[k], fmax(a->v[i], 1.0)) ||
			    vec_push(&y[k], 100.0 * (double)(i + 1) / (double)a->n))
				goto nomem;
		}
		if (a->v[a->n - 1] > longest)
			longest = a->v[a->n - 1];
		snprintf(titles[ns], sizeof titles[ns], "%s (%" PRId64 " jobs, %.1f %% without a wait)",
		         k < JOB_NCLASS ? job_class_name((enum job_class)k) : "other", a->n,
		         100.0 * (double)zero / (double)a->n);
		s[ns] = (struct plot_series){ .title = titles[ns], .n = x[k].n, .x = x[k].v,
		                              .y = y[k].v, .color = plot_palette[ns % 16] };
		cls[ns++] = k;
	}
	/* Every curve runs on at 100 % to the longest wait of all, so that a
	 * class whose jobs never waited is a line too, not a lone point. */
	for (int q = 0; q < ns; q++) {
		int k = cls[q];
		if (x[k].v[x[k].n - 1] < longest &&
		    (vec_push(&x[k], fmax(longest, 1.0)) || vec_push(&y[k], 100.0)))
			goto nomem;
		s[q].x = x[k].v;
		s[q].y = y[k].v;
		s[q].n = x[k].n;
	}
	if (ns == 0) {
		add_note(c, "No job started, so the waiting-time CDF is not drawn.");
		ret = 0;
		goto out;
	}
	/* A log time axis in readable units, with the '0' tick for no wait. */
	struct plot_fig f = { .name = "wait_cdf", .title = "Waiting time per job class (CDF)",
	                      .xlabel = "wait (log scale; at 0: the jobs that did not wait; waits under "
	                                "1 s at 1 s)",
	                      .ylabel = "jobs started within that wait (%)", .logx = true,
	                      .extra = "set yrange [0:105]\nset xrange [0.3:*]\nset key bottom right\n"
	                               "set xtics ('0' 0.5, '1 s' 1, '10 s' 10, '1 min' 60, '10 min' 600, "
	                               "'1 h' 3600, '6 h' 21600, '1 d' 86400, '1 w' 604800, "
	                               "'4 w' 2419200)\nset grid xtics lc rgb '#d0d0d0'" };
	if (plot_xy(c->dir, &f, PLOT_STEPS, ns, s, c->err, c->errlen) != 0)
		goto out;
	add_fig(c, "wait_cdf", "Empirical distribution of the waiting time (start - submit) of "
	        "the started jobs, per class, on a log time axis; each curve starts at 0 with the "
	        "share of its jobs that did not wait (in the legend too).");
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

	/* GPU-hours on a cluster with GPUs (what a GPU cluster bills), else core-hours. */
	bool gpu = false;
	if (sqlite3_prepare_v2(c->db, "SELECT total_gpus > 0 FROM run", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		gpu = sqlite3_column_int(st, 0) != 0;
	sqlite3_finalize(st);
	st = NULL;
	bool share = report_has_column(c->db, "job", "gpu_share");
	if (sqlite3_prepare_v2(c->db, gpu && share
	                       ? "SELECT tenant, start_us, end_us,"
	                         " CASE WHEN gpu_share LIKE '%m' THEN gpus * CAST(rtrim(gpu_share, 'm') AS REAL) / 1000"
	                         " WHEN gpu_share LIKE '%g.%' THEN gpus * CAST(substr(gpu_share, 1, instr(gpu_share, 'g') - 1) AS REAL) / 7"
	                         " ELSE gpus END FROM job WHERE start_us IS NOT NULL AND end_us IS NOT NULL ORDER BY tenant"
	                       : gpu ? "SELECT tenant, start_us, end_us, gpus FROM job"
	                                    " WHERE start_us IS NOT NULL AND end_us IS NOT NULL"
	                                    " ORDER BY tenant"
	                                  : "SELECT tenant, start_us, end_us, cores FROM job"
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
		double cores = sqlite3_column_double(st, 3);   /* or GPUs: the figure's unit */
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
		else if (c->mr.db) {
			char nb[32];
			snprintf(titles[k], sizeof titles[k], "%s", mrun_tenant_name(&c->mr, tn[k].id, nb, sizeof nb));
		} else
			snprintf(titles[k], sizeof titles[k], "tenant %" PRId64, tn[k].id);
		s[k] = (struct plot_series){ .title = titles[k], .y = ys + (size_t)k * (size_t)nbin };
	}
	for (int64_t b = 0; b < nbin; b++) {
		snprintf(labels[b], sizeof labels[b], "%" PRId64, b);
		lp[b] = labels[b];
	}
	bool daily = bin_s > 3600.0;
	const char *what = gpu ? "GPU-hours" : "core-hours";
	char ftitle[96], fylabel[64];
	snprintf(ftitle, sizeof ftitle, "Allocated %s per tenant per %s", what, daily ? "day" : "hour");
	snprintf(fylabel, sizeof fylabel, "%s per %s", what, daily ? "day" : "hour");
	struct plot_fig f = { .name = "tenants", .title = ftitle,
	                      .xlabel = daily ? "day of the run (from the start)"
	                                      : "hour of the run (from the start)",
	                      .ylabel = fylabel,
	                      .extra = "set key outside right top\n"
	                                "set linetype cycle 9\nset linetype 9 lc rgb '#a0a0a0'" };
	if (plot_stacked_bars(c->dir, &f, (int)nbin, lp, ns, s, c->err, c->errlen) != 0)
		goto out;
	char cap[256];
	snprintf(cap, sizeof cap, "%s allocated to the jobs that ran, per %s, per tenant: "
	         "the %d largest tenants by total %s%s. Only a job's last run counts.",
	         gpu ? "GPU-hours (card equivalents: a share counts its part of a card)" : "Core-hours",
	         daily ? "day" : "hour", ntn < TOP_TENANTS ? ntn : TOP_TENANTS, what,
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
	char why[512];
	if (mrun_open(db, &c.mr, why, sizeof why) < 0) {
		char note[600];
		snprintf(note, sizeof note, "No figures per GPU model or over time: %s.", why);
		add_note(&c, note);
	}
	if (sample_figs(&c) < 0 || (c.mr.db && runplot_model_figs(&c.mr, dir, set, err, errlen) < 0) ||
	    rack_fig(&c) < 0 || temp_fig(&c) < 0 || wait_cdf(&c) < 0 || tenant_figs(&c) < 0)
		goto out;
	ret = 0;
out:
	mrun_close(&c.mr);
	sqlite3_close(c.db);
	return ret;
}

/* gnuplot's SVG heat map is one embedded PNG image, which a viewer
 * scaling the figure interpolates into a blur: mark it pixelated. Leaves
 * the file as it is when it cannot be rewritten. */
static void crisp_heat_map(const char *dir)
{
	char path[4096], tmp[4200];
	snprintf(path, sizeof path, "%s/node_temp.svg", dir);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *in = fopen(path, "rb");
	if (!in)
		return;
	FILE *out = fopen(tmp, "wb");
	if (!out) {
		fclose(in);
		return;
	}
	char buf[8192];
	int c, k = 0;
	static const char tag[] = "<image ";
	while ((c = fgetc(in)) != EOF) {
		buf[k++] = (char)c;
		if (buf[k - 1] != tag[k - 1]) {
			fwrite(buf, 1, (size_t)k, out);
			k = 0;
		} else if (k == (int)sizeof tag - 1) {
			fputs("<image style='image-rendering:pixelated' ", out);
			k = 0;
		}
	}
	fwrite(buf, 1, (size_t)k, out);
	bool bad = ferror(in) || ferror(out);
	fclose(in);
	if (fclose(out) != 0 || bad || rename(tmp, path) != 0)
		unlink(tmp);
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
	int rc = plot_render(prog, dir, set->n, names, err, errlen);
	if (rc == 0)
		crisp_heat_map(dir);
	return rc;
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
