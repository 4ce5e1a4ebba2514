/* compare_out — printing a comparison as text, JSON or HTML (see
 * compare.h). The HTML is one self-contained page: no script, no external
 * resource. */
#include "analysis/compare.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/htmlpage.h"
#include "analysis/units.h"

static const char *fchange(char *buf, size_t len, double rel)
{
	if (isnan(rel) || isinf(rel))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f %%", 100 * rel);
	return buf;
}

static const char *fp(char *buf, size_t len, double p)
{
	if (isnan(p))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.4g", p);
	return buf;
}

static const char *side_scenario(const struct compare_side *s)
{
	return s->nrun ? s->run[0].scenario : "-";
}

/* The width of the metric column: the longest name, at least 15. */
static int name_width(const struct compare_result *res)
{
	size_t w = 15;
	for (size_t s = 0; s < res->nstat; s++)
		if (strlen(res->stat[s].metric) > w)
			w = strlen(res->stat[s].metric);
	return (int)w;
}

static void print_text(const struct compare_result *res, FILE *out, const char *pairs)
{
	char lvl[16], win[128];
	snprintf(lvl, sizeof lvl, "%g %%", 100 * res->level);
	metric_window_describe(&res->a->run[0].m.window, win, sizeof win);
	fprintf(out, "hetlab compare: B - A over %zu seeds paired by seed (%s)\n\n", res->npair, pairs);
	fprintf(out, "  A  %s  (scenario %s, policy %s, %zu runs)\n", res->a->dir, side_scenario(res->a),
	        compare_side_policy(res->a), res->a->nrun);
	fprintf(out, "  B  %s  (scenario %s, policy %s, %zu runs)\n", res->b->dir, side_scenario(res->b),
	        compare_side_policy(res->b), res->b->nrun);
	if (res->ndiffers == 0)
		fputs("  A and B differ in: nothing recorded (the same scenario and policy)\n", out);
	for (size_t d = 0; d < res->ndiffers; d++)
		fprintf(out, "  %s %s\n", d ? "                  " : "A and B differ in:", res->differs[d]);
	fprintf(out, "  window %s; %s intervals; verdicts say how B does against A\n\n", win, lvl);
	char hdr[32];
	snprintf(hdr, sizeof hdr, "%s interval", lvl);
	int nw = name_width(res);
	fprintf(out, "  %-*s %3s %12s %12s %12s %10s  %-24s %-9s %10s  %s\n", nw, "metric", "n",
	        "mean A", "mean B", "mean diff", "change", hdr, "method", "Wilcoxon p", "verdict");
	for (size_t s = 0; s < res->nstat; s++) {
		const struct compare_stat *st = &res->stat[s];
		const char *u = metric_unit(st->metric);
		char b[6][64];
		fprintf(out, "  %-*s %3zu %12s %12s %12s %10s  %-24s %-9s %10s  %s\n", nw,
		        st->metric, st->n, units_value(b[0], 64, u, st->mean_a),
		        units_value(b[1], 64, u, st->mean_b), units_delta(b[2], 64, u, st->mean_diff),
		        fchange(b[3], 64, st->rel_change), units_range(b[4], 64, u, st->mean_diff, st->lo, st->hi),
		        compare_method_name(st->method), fp(b[5], 64, st->p), compare_verdict_name(st->verdict));
	}
	fputs("\n  each value in a readable unit (a time in s, min, h or d; a share in %, a difference "
	      "of shares\n  in percentage points, pp; energy in kWh or MWh); change = mean diff / mean A.\n", out);
	fprintf(out, "  method: t = Student t interval; bootstrap = percentile bootstrap (%d resamples),\n"
	             "  used when |skewness of the differences| > %g. Wilcoxon p: signed-rank test,\n"
	             "  exact up to %d non-zero differences. Units and directions: hetlab compare --list-metrics.\n",
	        COMPARE_BOOT_N, COMPARE_SKEW_LIMIT, COMPARE_WILCOXON_EXACT_MAX);
	if (res->nwarning)
		fputc('\n', out);
	for (size_t w = 0; w < res->nwarning; w++)
		fprintf(out, "warning: %s\n", res->warning[w]);
}

static json_t *jreal(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jpair(double lo, double hi)
{
	if (isnan(lo) || isnan(hi))
		return json_null();
	json_t *a = json_array();
	json_array_append_new(a, jreal(lo));
	json_array_append_new(a, jreal(hi));
	return a;
}

/* A seed as a number when it fits, else its digits. */
static json_t *jseed(const char *s)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*s && !*end && errno == 0)
		return json_integer(v);
	return json_string(s);
}

static json_t *jseeds(const char *const *seed, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, jseed(seed[i]));
	return a;
}

static json_t *jside(const struct compare_side *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "dir", json_string(s->dir));
	json_object_set_new(o, "policy", json_string(compare_side_policy(s)));
	json_object_set_new(o, "scenario", json_string(side_scenario(s)));
	json_object_set_new(o, "runs", json_integer((json_int_t)s->nrun));
	return o;
}

static json_t *json_result(const struct compare_result *res)
{
	json_t *root = json_object();
	json_object_set_new(root, "a", jside(res->a));
	json_object_set_new(root, "b", jside(res->b));
	json_object_set_new(root, "level", json_real(res->level));
	json_object_set_new(root, "pairs", json_integer((json_int_t)res->npair));
	json_object_set_new(root, "seeds", jseeds(res->pair_seed, res->npair));
	json_object_set_new(root, "only_a", jseeds(res->only_a, res->nonly_a));
	json_object_set_new(root, "only_b", jseeds(res->only_b, res->nonly_b));
	json_t *df = json_array();
	for (size_t d = 0; d < res->ndiffers; d++)
		json_array_append_new(df, json_string(res->differs[d]));
	json_object_set_new(root, "differs", df);
	char win[128];
	metric_window_describe(&res->a->run[0].m.window, win, sizeof win);
	json_object_set_new(root, "window", json_string(win));
	json_t *ms = json_array();
	for (size_t s = 0; s < res->nstat; s++) {
		const struct compare_stat *st = &res->stat[s];
		json_t *o = json_object();
		json_object_set_new(o, "metric", json_string(st->metric));
		json_object_set_new(o, "unit", json_string(metric_unit(st->metric)));
		json_object_set_new(o, "better", json_string(compare_metric_higher_better(st->metric)
		                                             ? "higher" : "lower"));
		json_object_set_new(o, "n", json_integer((json_int_t)st->n));
		json_object_set_new(o, "mean_a", jreal(st->mean_a));
		json_object_set_new(o, "mean_b", jreal(st->mean_b));
		json_object_set_new(o, "mean_diff", jreal(st->mean_diff));
		json_object_set_new(o, "sd_diff", jreal(st->sd_diff));
		json_object_set_new(o, "skewness", jreal(st->skewness));
		json_object_set_new(o, "relative_change", jreal(st->rel_change));
		json_object_set_new(o, "t_interval", jpair(st->t_lo, st->t_hi));
		json_object_set_new(o, "bootstrap_interval", jpair(st->boot_lo, st->boot_hi));
		json_object_set_new(o, "method", st->method == COMPARE_CI_NONE
		                                 ? json_null() : json_string(compare_method_name(st->method)));
		json_object_set_new(o, "interval", jpair(st->lo, st->hi));
		json_t *w = json_object();
		json_object_set_new(w, "w_plus", json_real(st->w_plus));
		json_object_set_new(w, "nonzero", json_integer((json_int_t)st->w_n));
		json_object_set_new(w, "method", json_string(st->w_exact ? "exact" : "normal"));
		json_object_set_new(w, "p", jreal(st->p));
		json_object_set_new(o, "wilcoxon", w);
		json_object_set_new(o, "verdict", json_string(compare_verdict_name(st->verdict)));
		json_array_append_new(ms, o);
	}
	json_object_set_new(root, "metrics", ms);
	json_t *ws = json_array();
	for (size_t w = 0; w < res->nwarning; w++)
		json_array_append_new(ws, json_string(res->warning[w]));
	json_object_set_new(root, "warnings", ws);
	return root;
}

static const char *verdict_class(enum compare_verdict v)
{
	switch (v) {
	case COMPARE_BETTER: return "better";
	case COMPARE_WORSE: return "worse";
	case COMPARE_NO_DIFF: return "same";
	case COMPARE_NA: break;
	}
	return "na";
}

/* The figure beside the table: each metric's paired difference B - A as a
 * change relative to mean A, its interval as a bar and its mean as a dot,
 * coloured by verdict; a metric whose mean A is 0 has no relative scale and
 * is listed without a bar. Inline SVG, drawn here (no gnuplot needed). */
static void html_forest(const struct compare_result *res, FILE *out)
{
	enum { W = 900, LEFT = 300, RIGHT = 40, ROW = 24, TOP = 34 };
	double span = 0.1;
	for (size_t s = 0; s < res->nstat; s++) {
		const struct compare_stat *st = &res->stat[s];
		if (st->mean_a != 0 && isfinite(st->lo) && isfinite(st->hi)) {
			double lo = fabs(st->lo / st->mean_a), hi = fabs(st->hi / st->mean_a);
			span = fmax(span, fmax(lo, hi));
		}
	}
	span = fmin(span * 1.1, 5.0);
	int h = TOP + ROW * (int)res->nstat + 40;
	double x0 = LEFT, x1 = W - RIGHT, mid = (x0 + x1) / 2;
	fprintf(out, "<figure><svg viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
	        "aria-label=\"relative change of each metric, B against A\" "
	        "font-family=\"sans-serif\" font-size=\"13\">\n", W, h, W, h);
	fprintf(out, "<text x=\"%d\" y=\"18\" font-weight=\"bold\">Change of B against A (mean "
	        "difference / mean A, with its interval)</text>\n", 8);
	for (int k = -2; k <= 2; k++) {
		double x = mid + (x1 - mid) * k / 2.0;
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"%s/>\n", x, TOP - 6,
		        x, h - 34, k == 0 ? "#444" : "#ddd", k == 0 ? " stroke-width=\"1.5\"" : "");
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%+.0f %%</text>\n", x, h - 18,
		        100 * span * k / 2.0);
	}
	for (size_t s = 0; s < res->nstat; s++) {
		const struct compare_stat *st = &res->stat[s];
		int y = TOP + ROW * (int)s + ROW / 2;
		const char *col = st->verdict == COMPARE_BETTER ? "#1a7f37" : st->verdict == COMPARE_WORSE
		                  ? "#b3261e" : "#777";
		fputs("<text x=\"8\" y=\"", out);
		fprintf(out, "%d\" dominant-baseline=\"middle\">", y);
		htmlpage_escape(out, st->metric);
		fputs("</text>\n", out);
		if (!(st->mean_a != 0) || !isfinite(st->lo) || !isfinite(st->hi)) {
			fprintf(out, "<text x=\"%.1f\" y=\"%d\" dominant-baseline=\"middle\" fill=\"#777\" "
			        "text-anchor=\"middle\">no relative scale (mean A is 0 or no interval)</text>\n", mid, y);
			continue;
		}
		double scale = (x1 - mid) / span;
		double lo = fmax(-span, fmin(span, st->lo / fabs(st->mean_a)));
		double hi = fmax(-span, fmin(span, st->hi / fabs(st->mean_a)));
		double m = fmax(-span, fmin(span, st->mean_diff / fabs(st->mean_a)));
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"4\"/>\n",
		        mid + lo * scale, y, mid + hi * scale, y, col);
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%d\" r=\"5\" fill=\"%s\"/>\n", mid + m * scale, y, col);
	}
	fprintf(out, "</svg><figcaption>Each metric's mean paired difference B &minus; A as a share of "
	        "mean A (dot) and its %g %% interval (bar): green where B is better, red where it is "
	        "worse, grey where the interval holds 0. Bars are cut at &plusmn;%.0f %%.</figcaption>"
	        "</figure>\n", 100 * res->level, 100 * span);
}

static void print_html(const struct compare_result *res, FILE *out, const char *pairs)
{
	char win[128];
	metric_window_describe(&res->a->run[0].m.window, win, sizeof win);
	htmlpage_head(out, "hetlab compare");
	size_t nb = 0, nw = 0;
	for (size_t s = 0; s < res->nstat; s++) {
		nb += res->stat[s].verdict == COMPARE_BETTER;
		nw += res->stat[s].verdict == COMPARE_WORSE;
	}
	fprintf(out, "<p class=\"summary\">B is <b>better</b> on %zu, <b>worse</b> on %zu and not "
	        "significantly different on %zu of %zu metrics, over %zu seeds paired by seed (", nb, nw,
	        res->nstat - nb - nw, res->nstat, res->npair);
	htmlpage_escape(out, pairs);
	fputs(").", out);
	size_t shown = 0;
	for (size_t s = 0; s < res->nstat; s++)
		if (res->stat[s].verdict == COMPARE_BETTER || res->stat[s].verdict == COMPARE_WORSE) {
			char b[64];
			fputs(shown++ ? "; " : " ", out);
			htmlpage_escape(out, res->stat[s].metric);
			fprintf(out, " %s %s", fchange(b, sizeof b, res->stat[s].rel_change),
			        compare_verdict_name(res->stat[s].verdict));
		}
	if (shown)
		fputs(".", out);
	fputs("</p>\n<p>A: ", out);
	htmlpage_escape(out, res->a->dir);
	fputs(" (scenario ", out);
	htmlpage_escape(out, side_scenario(res->a));
	fputs(", policy ", out);
	htmlpage_escape(out, compare_side_policy(res->a));
	fprintf(out, ", %zu runs)<br>\nB: ", res->a->nrun);
	htmlpage_escape(out, res->b->dir);
	fputs(" (scenario ", out);
	htmlpage_escape(out, side_scenario(res->b));
	fputs(", policy ", out);
	htmlpage_escape(out, compare_side_policy(res->b));
	fprintf(out, ", %zu runs)<br>\nA and B differ in: ", res->b->nrun);
	if (res->ndiffers == 0)
		fputs("nothing recorded (the same scenario and policy)", out);
	for (size_t d = 0; d < res->ndiffers; d++) {
		fputs(d ? "; " : "", out);
		htmlpage_escape(out, res->differs[d]);
	}
	fputs("<br>\nwindow: ", out);
	htmlpage_escape(out, win);
	fprintf(out, "; differences B &minus; A; %g %% intervals; verdicts say how B does against "
	        "A.</p>\n", 100 * res->level);
	html_forest(res, out);
	fprintf(out, "<table>\n<tr><th>metric</th><th>better</th><th>n</th><th>mean A</th>"
	             "<th>mean B</th><th>mean diff</th><th>change</th><th>%g %% interval</th><th>method</th>"
	             "<th>Wilcoxon p</th><th>verdict</th></tr>\n", 100 * res->level);
	for (size_t s = 0; s < res->nstat; s++) {
		const struct compare_stat *st = &res->stat[s];
		char b[6][64];
		int dir = metric_direction(st->metric);
		fprintf(out, "<tr class=\"%s\"><td>", verdict_class(st->verdict));
		htmlpage_escape(out, st->metric);
		const char *u = metric_unit(st->metric);
		fprintf(out, "</td><td>%s</td><td class=\"num\">%zu</td>"
		        "<td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
		        "<td class=\"num\">%s</td><td class=\"num\">%s</td><td>%s</td>"
		        "<td class=\"num\">%s</td><td class=\"verdict\">%s</td></tr>\n",
		        dir > 0 ? "higher" : dir < 0 ? "lower" : "-", st->n,
		        units_value(b[0], 64, u, st->mean_a), units_value(b[1], 64, u, st->mean_b),
		        units_delta(b[2], 64, u, st->mean_diff), fchange(b[3], 64, st->rel_change),
		        units_range(b[4], 64, u, st->mean_diff, st->lo, st->hi), compare_method_name(st->method),
		        fp(b[5], 64, st->p), compare_verdict_name(st->verdict));
	}
	fprintf(out, "</table>\n<p>Each value in a readable unit (a time in s, min, h or d; a share "
	             "in %%, a difference of shares in percentage points, pp; energy in kWh or MWh); "
	             "change = mean diff / mean A.</p>\n<p>t = Student t interval; bootstrap = percentile bootstrap "
	             "(%d resamples), used when |skewness of the differences| &gt; %g. Wilcoxon p: "
	             "two-sided signed-rank test, exact up to %d non-zero differences.</p>\n",
	        COMPARE_BOOT_N, COMPARE_SKEW_LIMIT, COMPARE_WILCOXON_EXACT_MAX);
	for (size_t w = 0; w < res->nwarning; w++) {
		fputs("<p class=\"warn\">warning: ", out);
		htmlpage_escape(out, res->warning[w]);
		fputs("</p>\n", out);
	}
	htmlpage_end(out);
}

int compare_print(const struct compare_result *res, enum compare_format fmt, FILE *out)
{
	char *pairs = compare_seed_list(res->pair_seed, res->npair);
	if (!pairs)
		return -1;
	int ret = 0;
	if (fmt == COMPARE_JSON) {
		json_t *root = json_result(res);
		int jrc = root ? json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
		                                       JSON_REAL_PRECISION(15)) : -1;
		json_decref(root);
		if (jrc < 0 || fputc('\n', out) == EOF)
			ret = -1;
	} else if (fmt == COMPARE_HTML) {
		print_html(res, out, pairs);
	} else {
		print_text(res, out, pairs);
	}
	free(pairs);
	if (ferror(out) || fflush(out) == EOF)
		ret = -1;
	return ret;
}
