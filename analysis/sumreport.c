/* sumreport — `hetlab report` and `hetlab plot` of what a sweep or a plan
 * leaves: a sweep's summary database (each metric per point, mean and 95 %
 * t interval over its seeds; plotted against each parameter) and a plan's
 * OUT/plan.json (the frontier: cost a year against each target, the answer
 * marked). See sumreport.h. */
#include "analysis/sumreport.h"
#include "analysis/sumreport_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <jansson.h>
#include <sqlite3.h>

#include "analysis/compare.h"
#include "analysis/metric.h"
#include "analysis/metric_labels.h"
#include "analysis/plot.h"
#include "analysis/units.h"

static int failf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int failf(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static bool has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st = NULL;
	bool ok = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
	                             -1, &st, NULL) == SQLITE_OK;
	if (ok) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		ok = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	return ok;
}

int sumreport_kind(const char *path)
{
	size_t n = strlen(path);
	if (n >= 5 && strcmp(path + n - 5, ".json") == 0) {
		json_t *j = json_load_file(path, 0, NULL);
		int plan = json_is_object(j) && json_object_get(j, "candidates") && json_object_get(j, "vars");
		json_decref(j);
		return plan ? SUMREPORT_PLAN : SUMREPORT_OTHER;
	}
	sqlite3 *db = NULL;
	int k = SUMREPORT_OTHER;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    has_table(db, "sweep") && has_table(db, "point") && has_table(db, "result"))
		k = SUMREPORT_SWEEP;
	sqlite3_close(db);
	return k;
}

/* ---- a sweep's summary -------------------------------------------------------- */

void sumreport_sum_fini(struct sweep_sum *s)
{
	for (int p = 0; p < s->npoint; p++) {
		for (int k = 0; s->value && s->value[p] && k < s->nparam; k++)
			free(s->value[p][k]);
		if (s->value)
			free(s->value[p]);
	}
	free(s->value);
	for (int k = 0; k < s->nparam; k++)
		free(s->param[k]);
	free(s->param);
	for (int m = 0; m < s->nmetric; m++)
		free(s->metric[m]);
	free(s->metric);
	free(s->ok);
	free(s->all);
	free(s->mean);
	free(s->half);
	free(s->lo);
	free(s->hi);
	free(s->n);
	memset(s, 0, sizeof *s);
}

static const char *const default_metrics[] = { "mean_wait", "p95_wait", "p95_wait{class=training}",
	"gpu_util", "facility_energy_kwh", "slo_violation_s", NULL };

/* The metrics asked for (--metric): each a metric of the registry whose
 * label value is one the summary's runs have. 0; -2 with err when one is
 * not; -1 with err when the file cannot be read. */
static int check_wanted(sqlite3 *db, const char *path, const char *const *want, size_t nwant,
                        char *err, size_t errlen)
{
	struct metric_labels L;
	sqlite3_stmt *st = NULL;
	metric_labels_init(&L);
	int ret = -1;
	if (sqlite3_prepare_v2(db, "SELECT DISTINCT name FROM metric", -1, &st, NULL) != SQLITE_OK) {
		failf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	while (sqlite3_step(st) == SQLITE_ROW)
		if (sqlite3_column_text(st, 0))
			metric_labels_add_name(&L, (const char *)sqlite3_column_text(st, 0));
	for (size_t i = 0; i < nwant; i++) {
		char canon[METRIC_NAME_MAX], why[1200];
		if (!metric_parse(want[i], canon, sizeof canon, why, sizeof why) ||
		    metric_labels_check(&L, canon, why, sizeof why) < 0) {
			failf(err, errlen, "%s", why);
			ret = -2;
			goto out;
		}
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	metric_labels_fini(&L);
	return ret;
}

/* 0; -1 with err; -2 when a metric asked for is not one of the registry or
 * names a label value the runs do not have (a usage error). */
int sumreport_sum_load(const char *path, const char *const *want, size_t nwant, struct sweep_sum *s,
                    char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int ret = -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		failf(err, errlen, "%s: cannot open: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	/* The parameters, from table sweep. */
	if (sqlite3_prepare_v2(db, "SELECT params, npoint FROM sweep", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		failf(err, errlen, "%s: reading table sweep: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	json_t *pa = json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL);
	s->npoint = sqlite3_column_int(st, 1);
	sqlite3_finalize(st);
	st = NULL;
	s->nparam = (int)json_array_size(pa);
	s->param = calloc((size_t)s->nparam + 1, sizeof *s->param);
	for (int k = 0; s->param && k < s->nparam; k++)
		s->param[k] = strdup(json_string_value(json_array_get(pa, (size_t)k)));
	json_decref(pa);
	s->value = calloc((size_t)s->npoint + 1, sizeof *s->value);
	s->ok = calloc((size_t)s->npoint + 1, sizeof *s->ok);
	s->all = calloc((size_t)s->npoint + 1, sizeof *s->all);
	if (!s->param || !s->value || !s->ok || !s->all)
		goto nomem;
	/* Table point: the values (column 1 + k in grid order). */
	if (sqlite3_prepare_v2(db, "SELECT * FROM point ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		goto dbfail;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int id = sqlite3_column_int(st, 0);
		if (id < 0 || id >= s->npoint)
			continue;
		if (!(s->value[id] = calloc((size_t)s->nparam + 1, sizeof **s->value)))
			goto nomem;
		for (int k = 0; k < s->nparam; k++) {
			const unsigned char *t = sqlite3_column_text(st, k + 1);
			if (!(s->value[id][k] = strdup(t ? (const char *)t : "-")))
				goto nomem;
		}
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT point, status FROM result", -1, &st, NULL) != SQLITE_OK)
		goto dbfail;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int p = sqlite3_column_int(st, 0);
		if (p < 0 || p >= s->npoint)
			continue;
		s->all[p]++;
		s->ok[p] += strcmp((const char *)sqlite3_column_text(st, 1), "ok") == 0;
	}
	sqlite3_finalize(st);
	st = NULL;
	/* The metrics: those asked, else the defaults the file has. */
	bool have_metric = has_table(db, "metric");
	const char *const *list = nwant ? want : default_metrics;
	size_t nlist = nwant;
	if (!nwant)
		while (default_metrics[nlist])
			nlist++;
	s->metric = calloc(nlist + 1, sizeof *s->metric);
	if (!s->metric)
		goto nomem;
	if (have_metric && sqlite3_prepare_v2(db, "SELECT point, value FROM metric WHERE name = ?", -1,
	                                      &st, NULL) != SQLITE_OK)
		goto dbfail;
	double *vals = calloc((size_t)s->npoint * 64 + 1, sizeof *vals);
	int *cnt = calloc((size_t)s->npoint + 1, sizeof *cnt);
	s->mean = calloc(nlist * (size_t)s->npoint + 1, sizeof *s->mean);
	s->half = calloc(nlist * (size_t)s->npoint + 1, sizeof *s->half);
	s->n = calloc(nlist * (size_t)s->npoint + 1, sizeof *s->n);
	s->lo = calloc(nlist * (size_t)s->npoint + 1, sizeof *s->lo);
	s->hi = calloc(nlist * (size_t)s->npoint + 1, sizeof *s->hi);
	if (!vals || !cnt || !s->mean || !s->half || !s->n || !s->lo || !s->hi) {
		free(vals);
		free(cnt);
		goto nomem;
	}
	int cw = have_metric && nwant ? check_wanted(db, path, want, nwant, err, errlen) : 0;
	if (cw < 0) {
		free(vals);
		free(cnt);
		ret = cw;
		goto out;
	}
	for (size_t i = 0; have_metric && i < nlist; i++) {
		char canon[METRIC_NAME_MAX], why[256];
		if (!metric_parse(list[i], canon, sizeof canon, why, sizeof why)) {
			free(vals);
			free(cnt);
			failf(err, errlen, "%s", why);
			goto out;
		}
		memset(cnt, 0, (size_t)s->npoint * sizeof *cnt);
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, canon, -1, SQLITE_TRANSIENT);
		int any = 0;
		while (sqlite3_step(st) == SQLITE_ROW) {
			int p = sqlite3_column_int(st, 0);
			if (p < 0 || p >= s->npoint || cnt[p] >= 64 || sqlite3_column_type(st, 1) == SQLITE_NULL)
				continue;
			vals[p * 64 + cnt[p]++] = sqlite3_column_double(st, 1);
			any = 1;
		}
		if (!any && !nwant)
			continue;             /* a default the file does not have */
		int m = s->nmetric++;
		if (!(s->metric[m] = strdup(canon))) {
			free(vals);
			free(cnt);
			goto nomem;
		}
		for (int p = 0; p < s->npoint; p++) {
			size_t k = (size_t)m * (size_t)s->npoint + (size_t)p;
			double mean, sd, lo, hi;
			s->n[k] = cnt[p];
			compare_mean_sd(vals + p * 64, (size_t)cnt[p], &mean, &sd);
			s->mean[k] = mean;
			s->half[k] = compare_t_interval(vals + p * 64, (size_t)cnt[p], 0.95, &lo, &hi) == 0
			             ? (hi - lo) / 2 : NAN;
			/* The interval a planner reads: cut to the metric's bounds
			 * (a t interval over a few seeds of a skewed wait reaches
			 * below 0), as the figures' bars are. */
			double lo_b, hi_b;
			metric_range(canon, &lo_b, &hi_b);
			s->lo[k] = isnan(s->half[k]) ? NAN : fmin(fmax(mean - s->half[k], lo_b), hi_b);
			s->hi[k] = isnan(s->half[k]) ? NAN : fmax(fmin(mean + s->half[k], hi_b), lo_b);
		}
	}
	free(vals);
	free(cnt);
	ret = 0;
	goto out;
dbfail:
	failf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
	goto out;
nomem:
	failf(err, errlen, "%s: out of memory", path);
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (ret < 0)
		sumreport_sum_fini(s);
	return ret;
}

/* A metric's mean and its interval in its readable unit ("7.89 [0, 17.0] h"). */
static void fmt_val(char *buf, size_t len, const struct sweep_sum *s, int m, size_t k)
{
	units_interval(buf, len, metric_unit(s->metric[m]), s->mean[k], s->lo[k], s->hi[k]);
}

int sumreport_sweep(const char *path, const char *const *metrics, size_t nmetric, FILE *out,
                    char *err, size_t errlen)
{
	struct sweep_sum s;
	int lr = sumreport_sum_load(path, metrics, nmetric, &s, err, errlen);
	if (lr < 0)
		return lr;
	fprintf(out, "hetlab report: %s (a sweep: %d points, each metric's mean over the point's ok "
	        "seeds [its 95 %% t interval, cut to what the metric can be])\n\n", path, s.npoint);
	int *w = calloc((size_t)(s.nparam + s.nmetric) + 1, sizeof *w);
	if (!w) {
		sumreport_sum_fini(&s);
		return failf(err, errlen, "out of memory");
	}
	for (int k = 0; k < s.nparam; k++) {
		w[k] = (int)strlen(s.param[k]);
		for (int p = 0; p < s.npoint; p++)
			if (s.value[p] && (int)strlen(s.value[p][k]) > w[k])
				w[k] = (int)strlen(s.value[p][k]);
	}
	for (int m = 0; m < s.nmetric; m++) {   /* as wide as its name and its widest cell */
		w[s.nparam + m] = (int)strlen(s.metric[m]);
		for (int p = 0; p < s.npoint; p++) {
			char v[64];
			fmt_val(v, sizeof v, &s, m, (size_t)m * (size_t)s.npoint + (size_t)p);
			if ((int)strlen(v) > w[s.nparam + m])
				w[s.nparam + m] = (int)strlen(v);
		}
	}
	fprintf(out, "%5s", "point");
	for (int k = 0; k < s.nparam; k++)
		fprintf(out, "  %-*s", w[k], s.param[k]);
	fprintf(out, "  %5s", "runs");
	for (int m = 0; m < s.nmetric; m++)
		fprintf(out, "  %*s", w[s.nparam + m], s.metric[m]);
	fputc('\n', out);
	for (int p = 0; p < s.npoint; p++) {
		fprintf(out, "%5d", p);
		for (int k = 0; k < s.nparam; k++)
			fprintf(out, "  %-*s", w[k], s.value[p] ? s.value[p][k] : "-");
		char runs[24];
		snprintf(runs, sizeof runs, "%d/%d", s.ok[p], s.all[p]);
		fprintf(out, "  %5s", runs);
		for (int m = 0; m < s.nmetric; m++) {
			char v[64];
			size_t k = (size_t)m * (size_t)s.npoint + (size_t)p;
			fmt_val(v, sizeof v, &s, m, k);
			fprintf(out, "  %*s", w[s.nparam + m], v);
		}
		fputc('\n', out);
	}
	fputs("\n(each value in its own unit: a time in s, min, h or d, a share in %, energy in "
	      "kWh or MWh)\n", out);
	free(w);
	sumreport_sum_fini(&s);
	return ferror(out) ? failf(err, errlen, "cannot write the report") : 0;
}

static int render(const char *dir, const struct sumreport_figs *figs, char *err, size_t errlen)
{
	const char *names[SUMREPORT_MAX_FIGS];
	for (int i = 0; i < figs->n; i++)
		names[i] = figs->name[i];
	return figs->n ? plot_render(NULL, dir, figs->n, names, err, errlen) : 0;
}

/* The x of a parameter value: the number, or its index among the values. */
static double xval(const struct sweep_sum *s, int k, int p, bool numeric)
{
	if (numeric)
		return strtod(s->value[p][k], NULL);
	int idx = 0;
	for (int q = 0; q < p; q++) {
		bool seen = false;
		for (int r = 0; r < q && !seen; r++)
			seen = strcmp(s->value[r][k], s->value[q][k]) == 0;
		if (!seen && strcmp(s->value[q][k], s->value[p][k]) != 0)
			idx++;
	}
	return idx;
}

int sumreport_sweep_plot(const char *path, const char *const *metrics, size_t nmetric,
                         const char *dir, struct sumreport_figs *figs, char *err, size_t errlen)
{
	struct sweep_sum s;
	memset(figs, 0, sizeof *figs);
	int lr = sumreport_sum_load(path, metrics, nmetric, &s, err, errlen);
	if (lr < 0)
		return lr;
	int ret = -1;
	if (plot_mkdir(dir, err, errlen) < 0)
		goto out;
	for (int k = 0; k < s.nparam; k++) {
		bool numeric = true;
		for (int p = 0; p < s.npoint; p++) {
			char *e;
			strtod(s.value[p][k], &e);
			numeric &= s.value[p] && *e == '\0' && e != s.value[p][k];
		}
		for (int m = 0; m < s.nmetric && figs->n < SUMREPORT_MAX_FIGS; m++) {
			/* One series per combination of the other parameters' values. */
			struct plot_series ser[16];
			char titles[16][160];
			double xs[16][64], ys[16][64], es[16][64];
			int ns = 0;
			int *series_of = calloc((size_t)s.npoint, sizeof *series_of);
			if (!series_of)
				goto out;
			for (int p = 0; p < s.npoint; p++) {
				char key[160] = "";
				size_t off = 0;
				for (int o = 0; o < s.nparam; o++)
					if (o != k)
						off += (size_t)snprintf(key + off, sizeof key - off, "%s%s=%s",
						                        off ? ", " : "", s.param[o], s.value[p][o]);
				int found = -1;
				for (int q = 0; q < ns; q++)
					if (strcmp(titles[q], key[0] ? key : s.metric[m]) == 0)
						found = q;
				if (found < 0 && ns < 16) {
					found = ns++;
					snprintf(titles[found], sizeof titles[found], "%s", key[0] ? key : s.metric[m]);
					ser[found] = (struct plot_series){ .title = titles[found], .x = xs[found],
						.y = ys[found], .err = es[found] };
				}
				series_of[p] = found;
			}
			/* The metric's axis in readable units (h, %, MWh); each interval
			 * cut to what the metric can be (no count or share below 0, no
			 * utilisation above 100 %). */
			const char *unit = metric_unit(s.metric[m]);
			double top = 0, lo_b, hi_b;
			for (int p = 0; p < s.npoint; p++) {
				size_t kk = (size_t)m * (size_t)s.npoint + (size_t)p;
				if (!isnan(s.mean[kk]))
					top = fmax(top, fabs(s.mean[kk]));
			}
			struct units_axis ax = units_axis_for(unit, top);
			metric_range(s.metric[m], &lo_b, &hi_b);
			for (int q = 0; q < ns; q++) {
				ser[q].err_lo = lo_b / ax.div;
				ser[q].err_hi = isinf(hi_b) ? INFINITY : hi_b / ax.div;
			}
			double ytop = 0;
			for (int p = 0; p < s.npoint; p++) {
				int q = series_of[p];
				size_t kk = (size_t)m * (size_t)s.npoint + (size_t)p;
				if (q < 0 || ser[q].n >= 64)
					continue;
				xs[q][ser[q].n] = xval(&s, k, p, numeric);
				ys[q][ser[q].n] = s.mean[kk] / ax.div;
				es[q][ser[q].n] = isnan(s.half[kk]) ? 0 : s.half[kk] / ax.div;
				ytop = fmax(ytop, fmin(ys[q][ser[q].n] + es[q][ser[q].n], ser[q].err_hi));
				ser[q].n++;
			}
			free(series_of);
			char name[64], title[256], ylabel[160], extra[2048] = "set key below\n";
			snprintf(name, sizeof name, "sweep_p%d_m%d", k, m);
			snprintf(title, sizeof title, "%s against %s", s.metric[m], s.param[k]);
			snprintf(ylabel, sizeof ylabel, "%s (%s; mean over seeds, 95 %% t interval)", s.metric[m],
			         ax.name);
			if (units_is_count(unit) && ytop <= 10)   /* whole jobs, whole preemptions */
				strcat(extra, "set ytics 1\nset format y '%.0f'\n");
			if (!(ytop > 0))   /* all 0 (no SLO missed): an axis from 0, not [-1:1] */
				strcat(extra, "set yrange [0:1]\n");
			if (!numeric) {
				size_t off = strlen(extra);
				off += (size_t)snprintf(extra + off, sizeof extra - off, "set xtics (");
				int idx = 0;
				for (int p = 0; p < s.npoint; p++) {
					bool seen = false;
					for (int r = 0; r < p && !seen; r++)
						seen = strcmp(s.value[r][k], s.value[p][k]) == 0;
					if (seen)
						continue;
					off += (size_t)snprintf(extra + off, sizeof extra - off, "%s'", idx ? ", " : "");
					for (const char *c = s.value[p][k]; *c && off + 4 < sizeof extra; c++)
						extra[off++] = *c == '\'' ? '"' : *c;
					extra[off] = '\0';
					off += (size_t)snprintf(extra + off, sizeof extra - off, "' %d", idx++);
				}
				snprintf(extra + off, sizeof extra - off, ")\nset xrange [-0.5:%d.5]", idx - 1);
			} else {
				/* A parameter of whole numbers (a rack or node count): ticks
				 * at whole numbers only, never 0.2 of a rack. */
				bool whole = true;
				double xmin = INFINITY, xmax = -INFINITY;
				for (int p = 0; p < s.npoint; p++) {
					double v = strtod(s.value[p][k], NULL);
					whole &= v == floor(v) && strpbrk(s.value[p][k], ".eE") == NULL;
					xmin = fmin(xmin, v);
					xmax = fmax(xmax, v);
				}
				size_t off = strlen(extra);
				double pad = fmax(0.3, 0.05 * (xmax - xmin));
				if (whole && xmax - xmin <= 20)
					snprintf(extra + off, sizeof extra - off, "set xtics %.0f, 1, %.0f\nset format x "
					         "'%%.0f'\nset xrange [%g:%g]", xmin, xmax, xmin - pad, xmax + pad);
				else if (whole)
					snprintf(extra + off, sizeof extra - off, "set format x '%%.0f'\nset offsets "
					         "graph 0.05, graph 0.05, 0, 0");
				else
					snprintf(extra + off, sizeof extra - off, "set offsets graph 0.05, graph 0.05, 0, 0");
			}
			struct plot_fig f = { .name = name, .title = title, .xlabel = s.param[k],
			                      .ylabel = ylabel, .extra = extra };
			if (plot_xy(dir, &f, PLOT_LINES, ns, ser, err, errlen) != 0)
				goto out;
			snprintf(figs->name[figs->n++], sizeof figs->name[0], "%s", name);
		}
	}
	ret = render(dir, figs, err, errlen);
out:
	sumreport_sum_fini(&s);
	return ret;
}

/* ---- a plan's output ----------------------------------------------------------- */

int sumreport_plan(const char *path, FILE *out, char *err, size_t errlen)
{
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	if (!j)
		return failf(err, errlen, "%s: %s", path, je.text);
	json_t *vars = json_object_get(j, "vars"), *tg = json_object_get(j, "targets");
	json_t *cand = json_object_get(j, "candidates"), *ans = json_object_get(j, "answer");
	bool costing = json_array_size(tg) == 0;
	if (costing)
		fprintf(out, "hetlab report: %s (a what-if costing: %zu candidates, no targets; the cost "
		        "is a year's cost of ownership)\n", path, json_array_size(cand));
	else
		fprintf(out, "hetlab report: %s (a plan, %s search: %zu candidates; the cost is a year's "
		        "cost of ownership)\n\n", path, json_string_value(json_object_get(j, "search")),
		        json_array_size(cand));
	size_t i;
	json_t *v;
	json_array_foreach(tg, i, v) {
		json_t *mx = json_object_get(v, "max");
		const char *m = json_string_value(json_object_get(v, "metric"));
		char b[48];
		fprintf(out, "target %zu: %s %s %s\n", i + 1, m, mx ? "<=" : ">=",
		        units_value(b, sizeof b, metric_unit(m ? m : ""),
		                    json_number_value(mx ? mx : json_object_get(v, "min"))));
	}
	fputs("\n   #", out);
	json_array_foreach(vars, i, v)
		fprintf(out, "  %s", json_string_value(v));
	fprintf(out, "  %14s  %14s%s\n", "cost/year", "capex/year", costing ? "" : "  feasible");
	json_array_foreach(cand, i, v) {
		fprintf(out, "%4zu", i);
		size_t k;
		json_t *x;
		char b[2][48];
		json_array_foreach(json_object_get(v, "x"), k, x)
			fprintf(out, "  %*lld", (int)strlen(json_string_value(json_array_get(vars, k))),
			        (long long)json_integer_value(x));
		fprintf(out, "  %14s  %14s",
		        units_money(b[0], sizeof b[0], json_number_value(json_object_get(v, "cost_per_year"))),
		        units_money(b[1], sizeof b[1], json_number_value(json_object_get(v, "capex_per_year"))));
		if (!costing)
			fprintf(out, "  %s%s", json_is_true(json_object_get(v, "feasible")) ? "yes" : "no",
			        json_is_integer(ans) && (json_int_t)i == json_integer_value(ans) ? "  <- answer" : "");
		fputc('\n', out);
	}
	if (!costing && !json_is_integer(ans))
		fputs("\nanswer: none of the candidates evaluated meets every target\n", out);
	json_decref(j);
	return ferror(out) ? failf(err, errlen, "cannot write the report") : 0;
}

/* The y axis of a plan figure: values in the target's unit scaled for
 * reading (h, %, MWh), on a log axis when the values span more than two
 * decades. A log axis cannot show 0: values <= 0 (a p95 wait of 0 where
 * no training job waited) stand on a floor a decade below the smallest
 * positive value, with a '0' tick there, so the answer and the target
 * line are drawn on every scale. */
struct plan_axis {
	struct units_axis u;
	bool log;
	bool zero;      /* log, with values <= 0 on the floor */
	double floor;   /* scaled; log only */
};

static struct plan_axis plan_axis_for(const char *unit, const double *v, size_t n, double bound)
{
	struct plan_axis a = { .log = false };
	double top = fabs(bound), pmin = INFINITY, pmax = 0;
	bool nonpos = bound <= 0;
	for (size_t i = 0; i < n; i++) {
		top = fmax(top, fabs(v[i]));
		if (v[i] > 0) {
			pmin = fmin(pmin, v[i]);
			pmax = fmax(pmax, v[i]);
		} else {
			nonpos = true;
		}
	}
	if (bound > 0) {
		pmin = fmin(pmin, bound);
		pmax = fmax(pmax, bound);
	}
	a.u = units_axis_for(unit, top);
	if (pmax > 0 && pmax / pmin > 100) {
		a.log = true;
		if (strcmp(unit, "s") == 0)   /* seconds, with ticks named in readable units */
			a.u = (struct units_axis){ 1, "log scale" };
		double lf = floor(log10(pmin / a.u.div)) - (nonpos ? 1 : 0);
		a.floor = pow(10, lf);
		a.zero = nonpos;
	}
	return a;
}

static double plan_y(const struct plan_axis *a, double v)
{
	double y = v / a->u.div;
	return a->log && y < a->floor ? a->floor : y;
}

int sumreport_plan_plot(const char *path, const char *dir, struct sumreport_figs *figs, char *err,
                        size_t errlen)
{
	memset(figs, 0, sizeof *figs);
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	if (!j)
		return failf(err, errlen, "%s: %s", path, je.text);
	int ret = -1;
	json_t *tg = json_object_get(j, "targets"), *cand = json_object_get(j, "candidates");
	json_t *ans = json_object_get(j, "answer");
	size_t nc = json_array_size(cand);
	double *x = calloc(3 * nc + 3, sizeof *x), *y = calloc(3 * nc + 3, sizeof *y);
	double *raw = calloc(nc + 1, sizeof *raw);
	if (!x || !y || !raw || plot_mkdir(dir, err, errlen) < 0)
		goto out;
	size_t t;
	json_t *tv;
	json_array_foreach(tg, t, tv) {
		if (figs->n >= SUMREPORT_MAX_FIGS)
			break;
		const char *metric = json_string_value(json_object_get(tv, "metric"));
		json_t *mx = json_object_get(tv, "max");
		double bound = json_number_value(mx ? mx : json_object_get(tv, "min"));
		const char *unit = metric_unit(metric);
		size_t nraw = 0;
		for (size_t c = 0; c < nc; c++) {
			json_t *tt = json_array_get(json_object_get(json_array_get(cand, c), "targets"), t);
			if (json_is_number(json_object_get(tt, "mean")))
				raw[nraw++] = json_number_value(json_object_get(tt, "mean"));
		}
		struct plan_axis ax = plan_axis_for(unit, raw, nraw, bound);
		/* Three series: not feasible, feasible, the answer (drawn last, on top). */
		size_t n[3] = { 0, 0, 0 };
		double ans_cost = NAN, ans_mean = NAN;
		for (size_t c = 0; c < nc; c++) {
			json_t *cv = json_array_get(cand, c);
			json_t *tt = json_array_get(json_object_get(cv, "targets"), t);
			if (!json_is_number(json_object_get(tt, "mean")))
				continue;
			double m = json_number_value(json_object_get(tt, "mean"));
			double cost = json_number_value(json_object_get(cv, "cost_per_year"));
			int k = json_is_integer(ans) && (json_int_t)c == json_integer_value(ans) ? 2
			        : json_is_true(json_object_get(cv, "feasible")) ? 1 : 0;
			if (k == 2) {
				ans_cost = cost;
				ans_mean = m;
			}
			x[k * nc + n[k]] = cost / 1e6;
			y[k * nc + n[k]] = plan_y(&ax, m);
			n[k]++;
		}
		struct plot_series s[3] = {
			{ .title = "not feasible", .n = (int64_t)n[0], .x = x, .y = y, .color = "#b3261e",
			  .with = "points pt 7 ps 1" },
			{ .title = "feasible", .n = (int64_t)n[1], .x = x + nc, .y = y + nc, .color = "#1a7f37",
			  .with = "points pt 7 ps 1" },
			{ .title = "the answer", .n = (int64_t)n[2], .x = x + 2 * nc, .y = y + 2 * nc,
			  .color = "#000000", .with = "points pt 6 ps 3 lw 2" },
		};
		struct plot_series keep[3];
		int ns = 0;
		for (int k = 0; k < 3; k++)
			if (s[k].n > 0)
				keep[ns++] = s[k];
		if (ns == 0)
			continue;
		char name[32], title[256], ylabel[240], extra[1024], bb[48], ab[2][48];
		snprintf(name, sizeof name, "plan_t%zu", t);
		snprintf(title, sizeof title, "Candidates: cost a year against %s", metric);
		snprintf(ylabel, sizeof ylabel, "%s (%s%s), mean over seeds", metric, ax.u.name,
		         ax.log && strcmp(ax.u.name, "log scale") != 0 ? ", log scale" : "");
		double by = plan_y(&ax, bound);
		size_t off = (size_t)snprintf(extra, sizeof extra, "set key below\nset offsets graph 0.05, "
		                              "graph 0.05, graph 0.05, graph 0.05\n");
		if (ax.log) {
			/* The ticks: named times for seconds, else decades; none at
			 * or below the floor but the '0' that stands there. */
			static const struct { double v; const char *name; } named[] = { { 1, "1 s" },
				{ 10, "10 s" }, { 60, "1 min" }, { 600, "10 min" }, { 3600, "1 h" },
				{ 21600, "6 h" }, { 86400, "1 d" }, { 604800, "1 w" }, { 2419200, "4 w" } };
			double ymax = fmax(plan_y(&ax, bound), 1);
			for (size_t i = 0; i < nraw; i++)
				ymax = fmax(ymax, plan_y(&ax, raw[i]));
			off += (size_t)snprintf(extra + off, sizeof extra - off, "set logscale y\nset yrange "
			                        "[%.10g:%.10g]\nset ytics (", ax.floor / 2, ymax * 2);
			int nt = 0;
			if (ax.zero)
				off += (size_t)snprintf(extra + off, sizeof extra - off, "'0' %.10g", ax.floor);
			nt += ax.zero;
			if (strcmp(unit, "s") == 0) {
				for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
					if (named[i].v > (ax.zero ? 1.5 * ax.floor : ax.floor / 2) && named[i].v < 4 * ymax)
						off += (size_t)snprintf(extra + off, sizeof extra - off, "%s'%s' %g",
						                        nt++ ? ", " : "", named[i].name, named[i].v);
			} else {
				for (double d = ax.floor * (ax.zero ? 10 : 1); d < 4 * ymax && off + 40 < sizeof extra;
				     d *= 10)
					off += (size_t)snprintf(extra + off, sizeof extra - off, "%s'%g' %.10g",
					                        nt++ ? ", " : "", d, d);
			}
			off += (size_t)snprintf(extra + off, sizeof extra - off, ")\n");
		} else {
			off += (size_t)snprintf(extra + off, sizeof extra - off, "set yrange [0:*]\n");
		}
		if (ax.zero)   /* the floor where the values of 0 stand */
			off += (size_t)snprintf(extra + off, sizeof extra - off, "set arrow from graph 0, first "
			                        "%.10g to graph 1, first %.10g nohead lc rgb '#d0d0d0'\n",
			                        ax.floor, ax.floor);
		off += (size_t)snprintf(extra + off, sizeof extra - off, "set arrow from graph 0, first "
		                        "%.10g to graph 1, first %.10g nohead dt 2 lw 2 lc rgb '#555555'\n"
		                        "set label 'target %s %s' at graph 0.01, first %.10g offset 0,0.7\n",
		                        by, by, mx ? "<=" : ">=", units_value(bb, sizeof bb, unit, bound), by);
		if (!isnan(ans_cost))
			snprintf(extra + off, sizeof extra - off, "set label 'answer: %s a year, %s' at first "
			         "%.10g, first %.10g right offset -2,-1.2\n", units_money(ab[0], sizeof ab[0], ans_cost),
			         units_value(ab[1], sizeof ab[1], unit, ans_mean), ans_cost / 1e6,
			         plan_y(&ax, ans_mean));
		struct plot_fig f = { .name = name, .title = title,
		                      .xlabel = "cost of ownership a year (millions)", .ylabel = ylabel,
		                      .extra = extra };
		if (plot_xy(dir, &f, PLOT_POINTS, ns, keep, err, errlen) != 0)
			goto out;
		snprintf(figs->name[figs->n++], sizeof figs->name[0], "%s", name);
	}
	/* The cost of ownership of each candidate, term by term (a costing's
	 * only figure). */
	if (nc > 0 && nc <= 64 && figs->n < SUMREPORT_MAX_FIGS) {
		static const char *const term[] = { "capex_per_year", "energy_per_year",
			"maintenance_per_year", "space_per_year" };
		static const char *const tname[] = { "capex (what is added)", "energy", "maintenance",
			"rack space" };
		char labels[64][96];
		const char *lp[64];
		double *ys = calloc(4 * nc, sizeof *ys);
		if (!ys)
			goto out;
		struct plot_series bs[4];
		for (int k = 0; k < 4; k++)
			bs[k] = (struct plot_series){ .title = tname[k], .y = ys + (size_t)k * nc };
		json_t *vars = json_object_get(j, "vars");
		for (size_t c = 0; c < nc; c++) {
			json_t *cv = json_array_get(cand, c), *xv;
			size_t k;
			snprintf(labels[c], sizeof labels[c], "%zu:", c);
			json_array_foreach(json_object_get(cv, "x"), k, xv) {
				size_t o = strlen(labels[c]);
				snprintf(labels[c] + o, sizeof labels[c] - o, " %lld",
				         (long long)json_integer_value(xv));
			}
			lp[c] = labels[c];
			for (int q = 0; q < 4; q++) {
				json_t *tj = json_object_get(cv, term[q]);
				ys[(size_t)q * nc + c] = json_is_number(tj) ? json_number_value(tj) / 1e6 : 0;
			}
		}
		char xl[512] = "candidate: #, then";
		size_t k;
		json_t *vv;
		json_array_foreach(vars, k, vv) {
			size_t l = strlen(xl);
			snprintf(xl + l, sizeof xl - l, "%s %s", k ? "," : "", json_string_value(vv));
		}
		struct plot_fig f = { .name = "plan_cost", .title = "Cost of ownership a year, term by term",
		                      .xlabel = xl, .ylabel = "millions a year",
		                      .extra = "set key below" };
		int br = plot_stacked_bars(dir, &f, (int)nc, lp, 4, bs, err, errlen);
		free(ys);
		if (br != 0)
			goto out;
		snprintf(figs->name[figs->n++], sizeof figs->name[0], "plan_cost");
	}
	ret = render(dir, figs, err, errlen);
out:
	free(x);
	free(y);
	free(raw);
	json_decref(j);
	return ret;
}
