/* sumreport_html — a sweep's or a plan's report as one self-contained HTML
 * page: a summary first (the plan's answer and its cost; the sweep's best
 * point per metric), the table, and the figures of `hetlab plot` inlined
 * as SVG. The page machinery is htmlpage.c, `hetlab compare`'s. */
#include "analysis/sumreport.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "analysis/htmlpage.h"
#include "analysis/metric.h"
#include "analysis/plot.h"
#include "analysis/sumreport_int.h"
#include "analysis/units.h"

/* The figures are drawn into a temporary folder, inlined, and removed. */
struct figdir {
	char dir[4096];
	bool made;
	struct sumreport_figs figs;
	char msg[1400];   /* why there are none ("" when drawn) */
};

static void figdir_open(struct figdir *fd)
{
	const char *tmp = getenv("TMPDIR");
	memset(fd, 0, sizeof *fd);
	snprintf(fd->dir, sizeof fd->dir, "%s/hetlab-sumreport-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fd->dir))
		snprintf(fd->msg, sizeof fd->msg, "the figures could not be drawn: %s: %s", fd->dir,
		         strerror(errno));
	else
		fd->made = true;
}

static void figdir_drawn(struct figdir *fd, int rc, const char *err)
{
	if (rc == PLOT_NOPROG)
		snprintf(fd->msg, sizeof fd->msg, "the figures could not be drawn: gnuplot is not on "
		         "PATH (Debian: apt-get install gnuplot-nox; scripts/deps.sh does it)");
	else if (rc < 0)
		snprintf(fd->msg, sizeof fd->msg, "the figures could not be drawn: %s", err);
	if (rc != 0)
		fd->figs.n = 0;
}

static void figdir_close(struct figdir *fd)
{
	if (!fd->made)
		return;
	static const char *const ext[] = { ".png", ".svg", ".gp", ".dat" };
	for (int i = 0; i < fd->figs.n; i++)
		for (int e = 0; e < 4; e++) {
			char p[4300];
			snprintf(p, sizeof p, "%s/%s%s", fd->dir, fd->figs.name[i], ext[e]);
			unlink(p);
		}
	/* Scripts written before a failed drawing: whatever is left. */
	rmdir(fd->dir);
}

static void warn_line(FILE *out, const char *msg, char *warn, size_t warnlen)
{
	if (!msg[0])
		return;
	if (warn && warnlen)
		snprintf(warn, warnlen, "%s", msg);
	fputs("<p class=\"warn\">The tables are complete, but ", out);
	htmlpage_escape(out, msg);
	fputs(".</p>\n", out);
}

/* ---- a sweep --------------------------------------------------------------------- */

static void put_point(FILE *out, const struct sweep_sum *s, int p)
{
	for (int k = 0; k < s->nparam; k++) {
		fputs(k ? ", " : "", out);
		htmlpage_escape(out, s->param[k]);
		fputs(" = ", out);
		htmlpage_escape(out, s->value[p] ? s->value[p][k] : "-");
	}
}

int sumreport_sweep_html(const char *path, const char *const *metrics, size_t nmetric, FILE *out,
                         char *warn, size_t warnlen, char *err, size_t errlen)
{
	struct sweep_sum s;
	int lr = sumreport_sum_load(path, metrics, nmetric, &s, err, errlen);
	if (lr < 0)
		return lr;
	struct figdir fd;
	figdir_open(&fd);
	if (fd.made)
		figdir_drawn(&fd, sumreport_sweep_plot(path, metrics, nmetric, fd.dir, &fd.figs, err, errlen),
		             err);
	char title[4200];
	snprintf(title, sizeof title, "hetlab report: sweep %s", path);
	htmlpage_head(out, title);
	warn_line(out, fd.msg, warn, warnlen);
	/* The verdict of a sweep: the best point of each metric, by its direction. */
	fprintf(out, "<p class=\"summary\">%d points, each metric the mean over the point's ok seeds "
	        "and, in brackets, its 95 %% t interval cut to what the metric can be (no time, "
	        "energy or count below 0, no utilisation above 100 %%).", s.npoint);
	for (int m = 0; m < s.nmetric; m++) {
		int dir = metric_direction(s.metric[m]), best = -1;
		if (dir == 0)
			continue;
		for (int p = 0; p < s.npoint; p++) {
			double v = s.mean[(size_t)m * (size_t)s.npoint + (size_t)p];
			double b = best < 0 ? NAN : s.mean[(size_t)m * (size_t)s.npoint + (size_t)best];
			if (!isnan(v) && (best < 0 || (dir > 0 ? v > b : v < b)))
				best = p;
		}
		if (best < 0)
			continue;
		char v[48];
		fputs("<br>\n", out);
		htmlpage_escape(out, s.metric[m]);
		fprintf(out, " has its %s mean at point %d (", dir > 0 ? "highest" : "lowest", best);
		put_point(out, &s, best);
		fprintf(out, "): %s", units_value(v, sizeof v, metric_unit(s.metric[m]),
		                                  s.mean[(size_t)m * (size_t)s.npoint + (size_t)best]));
	}
	fputs("</p>\n<table>\n<tr><th>point</th>", out);
	for (int k = 0; k < s.nparam; k++) {
		fputs("<th>", out);
		htmlpage_escape(out, s.param[k]);
		fputs("</th>", out);
	}
	fputs("<th>runs ok</th>", out);
	for (int m = 0; m < s.nmetric; m++) {
		fputs("<th>", out);
		htmlpage_escape(out, s.metric[m]);
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (int p = 0; p < s.npoint; p++) {
		fprintf(out, "<tr><td class=\"num\">%d</td>", p);
		for (int k = 0; k < s.nparam; k++) {
			fputs("<td>", out);
			htmlpage_escape(out, s.value[p] ? s.value[p][k] : "-");
			fputs("</td>", out);
		}
		fprintf(out, "<td class=\"num\">%d/%d</td>", s.ok[p], s.all[p]);
		for (int m = 0; m < s.nmetric; m++) {
			size_t k = (size_t)m * (size_t)s.npoint + (size_t)p;
			const char *u = metric_unit(s.metric[m]);
			char v[64];
			fprintf(out, "<td class=\"num\">");
			htmlpage_escape(out, units_interval(v, sizeof v, u, s.mean[k], s.lo[k], s.hi[k]));
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
	for (int i = 0; i < fd.figs.n; i++) {
		int pk, mk;
		char cap[1024] = "";
		if (sscanf(fd.figs.name[i], "sweep_p%d_m%d", &pk, &mk) == 2 && pk < s.nparam && mk < s.nmetric)
			snprintf(cap, sizeof cap, "%s against %s: the mean over each point's ok seeds and its "
			         "95 %% t interval (cut at what the metric can be), one line per value of the "
			         "other parameters.", s.metric[mk], s.param[pk]);
		if (htmlpage_figure(out, fd.dir, fd.figs.name[i], cap) < 0 && warn && warnlen)
			snprintf(warn, warnlen, "%s/%s.svg: cannot read the figure", fd.dir, fd.figs.name[i]);
	}
	fputs("<p class=\"note\">Undefined values are shown as -. The metrics are defined in "
	      "docs/compare.md (Metrics); the sweep in docs/sweep.md.</p>\n", out);
	htmlpage_end(out);
	figdir_close(&fd);
	sumreport_sum_fini(&s);
	return ferror(out) ? (snprintf(err, errlen, "cannot write the report"), -1) : 0;
}

/* ---- a plan ---------------------------------------------------------------------- */

static double jnum(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void put_x(FILE *out, const json_t *vars, const json_t *x)
{
	size_t k;
	json_t *v;
	json_array_foreach(x, k, v) {
		fputs(k ? ", " : "", out);
		htmlpage_escape(out, json_string_value(json_array_get(vars, k)));
		fprintf(out, " = %lld", (long long)json_integer_value(v));
	}
}

int sumreport_plan_html(const char *path, FILE *out, char *warn, size_t warnlen, char *err,
                        size_t errlen)
{
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	if (!j) {
		snprintf(err, errlen, "%s: %s", path, je.text);
		return -1;
	}
	json_t *vars = json_object_get(j, "vars"), *tg = json_object_get(j, "targets");
	json_t *cand = json_object_get(j, "candidates"), *ans = json_object_get(j, "answer");
	bool costing = json_array_size(tg) == 0;
	struct figdir fd;
	figdir_open(&fd);
	if (fd.made)
		figdir_drawn(&fd, sumreport_plan_plot(path, fd.dir, &fd.figs, err, errlen), err);
	char title[4200], b[8][48];
	snprintf(title, sizeof title, "hetlab report: %s %s", costing ? "what-if costing" : "plan", path);
	htmlpage_head(out, title);
	warn_line(out, fd.msg, warn, warnlen);
	/* The verdict of a plan: its answer, what it costs, how it meets the targets. */
	fputs("<p class=\"summary\">", out);
	if (costing) {
		double lo = INFINITY, hi = -INFINITY;
		size_t i;
		json_t *c;
		json_array_foreach(cand, i, c) {
			lo = fmin(lo, jnum(c, "cost_per_year"));
			hi = fmax(hi, jnum(c, "cost_per_year"));
		}
		fprintf(out, "A what-if costing of %zu candidate%s (no targets): from %s to %s a year.",
		        json_array_size(cand), json_array_size(cand) == 1 ? "" : "s",
		        units_money(b[0], 48, lo), units_money(b[1], 48, hi));
	} else if (!json_is_integer(ans)) {
		fprintf(out, "No answer: none of the %zu candidates evaluated meets every target.",
		        json_array_size(cand));
	} else {
		json_t *a = json_array_get(cand, (size_t)json_integer_value(ans));
		fputs("Answer: <b>", out);
		put_x(out, vars, json_object_get(a, "x"));
		fprintf(out, "</b>, %s a year (capex %s a year for what it adds to the site, energy %s, "
		        "maintenance %s, rack space %s)", units_money(b[0], 48, jnum(a, "cost_per_year")),
		        units_money(b[1], 48, jnum(a, "capex_per_year")),
		        units_money(b[2], 48, jnum(a, "energy_per_year")),
		        units_money(b[3], 48, jnum(a, "maintenance_per_year")),
		        units_money(b[4], 48, jnum(a, "space_per_year")));
		size_t t;
		json_t *tv;
		json_array_foreach(json_object_get(a, "targets"), t, tv) {
			const char *m = json_string_value(json_object_get(tv, "metric"));
			json_t *spec = json_array_get(tg, t), *mx = json_object_get(spec, "max");
			const char *u = metric_unit(m ? m : "");
			fputs(t ? "; " : ": ", out);
			htmlpage_escape(out, m);
			fprintf(out, " %s (bound %s) against %s %s", units_value(b[5], 48, u, jnum(tv, "mean")),
			        units_value(b[6], 48, u, jnum(tv, "bound")), mx ? "&le;" : "&ge;",
			        units_value(b[7], 48, u, jnum(spec, mx ? "max" : "min")));
		}
		fprintf(out, "; %s.", json_is_true(json_object_get(a, "confident"))
		        ? "confident: the 95 % t bound meets every target too"
		        : "not confident: a bound misses a target (more seeds would narrow it)");
	}
	fputs("</p>\n<table>\n<tr><th>#</th>", out);
	size_t i;
	json_t *v;
	json_array_foreach(vars, i, v) {
		fputs("<th>", out);
		htmlpage_escape(out, json_string_value(v));
		fputs("</th>", out);
	}
	fputs("<th>cost/year</th><th>capex/year</th><th>energy/year</th><th>maintenance/year</th>"
	      "<th>space/year</th>", out);
	json_array_foreach(tg, i, v) {
		fputs("<th>", out);
		htmlpage_escape(out, json_string_value(json_object_get(v, "metric")));
		fputs(" [bound]</th>", out);
	}
	fputs(costing ? "</tr>\n" : "<th>feasible</th></tr>\n", out);
	json_t *c;
	json_array_foreach(cand, i, c) {
		bool is_ans = json_is_integer(ans) && (json_int_t)i == json_integer_value(ans);
		bool feas = json_is_true(json_object_get(c, "feasible"));
		fprintf(out, "<tr class=\"%s\"><td class=\"num\">%zu</td>", is_ans ? "answer" : feas ? "ok"
		        : "fails", i);
		size_t k;
		json_t *x;
		json_array_foreach(json_object_get(c, "x"), k, x)
			fprintf(out, "<td class=\"num\">%lld</td>", (long long)json_integer_value(x));
		fprintf(out, "<td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
		        "<td class=\"num\">%s</td><td class=\"num\">%s</td>",
		        units_money(b[0], 48, jnum(c, "cost_per_year")),
		        units_money(b[1], 48, jnum(c, "capex_per_year")),
		        units_money(b[2], 48, jnum(c, "energy_per_year")),
		        units_money(b[3], 48, jnum(c, "maintenance_per_year")),
		        units_money(b[4], 48, jnum(c, "space_per_year")));
		json_array_foreach(json_object_get(c, "targets"), k, x) {
			const char *mn = json_string_value(json_object_get(x, "metric"));
			const char *u = metric_unit(mn ? mn : "");
			fprintf(out, "<td class=\"num\">%s [%s] %s</td>", units_value(b[5], 48, u, jnum(x, "mean")),
			        units_value(b[6], 48, u, jnum(x, "bound")),
			        json_is_true(json_object_get(x, "ok")) ? "ok" : "FAIL");
		}
		if (!costing)
			fprintf(out, "<td class=\"verdict\">%s%s</td>", feas ? "yes" : "no",
			        is_ans ? " &larr; answer" : "");
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
	for (int f = 0; f < fd.figs.n; f++) {
		char cap[1024];
		if (strcmp(fd.figs.name[f], "plan_cost") == 0) {
			if (htmlpage_figure(out, fd.dir, "plan_cost", "Each candidate's cost of ownership a year, "
			                    "term by term, in millions: capex (only for what it adds to the "
			                    "site, over its life), energy, maintenance and rack space.") < 0 &&
			    warn && warnlen)
				snprintf(warn, warnlen, "%s/plan_cost.svg: cannot read the figure", fd.dir);
			continue;
		}
		size_t t = (size_t)atoi(fd.figs.name[f] + strlen("plan_t"));
		const char *mn = json_string_value(json_object_get(json_array_get(tg, t), "metric"));
		snprintf(cap, sizeof cap, "Each candidate's cost of ownership a year against %s (mean over "
		         "its seeds): feasible, not feasible, and the answer circled; the dashed line is the "
		         "target. On a log axis, values of 0 stand at the '0' tick.",
		         mn ? mn : "?");
		if (htmlpage_figure(out, fd.dir, fd.figs.name[f], cap) < 0 && warn && warnlen)
			snprintf(warn, warnlen, "%s/%s.svg: cannot read the figure", fd.dir, fd.figs.name[f]);
	}
	fputs("<p class=\"note\">The cost model and the search: docs/planning.md.</p>\n", out);
	htmlpage_end(out);
	figdir_close(&fd);
	json_decref(j);
	return ferror(out) ? (snprintf(err, errlen, "cannot write the report"), -1) : 0;
}
