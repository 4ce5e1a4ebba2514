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

/* A figure for a person: "-" for NaN, more decimals for small values. */
static const char *fnum(char *buf, size_t len, double v)
{
	double x = fabs(v);
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (v == 0)
		snprintf(buf, len, "0");
	else if (x >= 100)
		snprintf(buf, len, "%.1f", v);
	else if (x >= 1)
		snprintf(buf, len, "%.3f", v);
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

static const char *finterval(char *buf, size_t len, double lo, double hi)
{
	char l[32], h[32];
	if (isnan(lo) || isnan(hi))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "[%s, %s]", fnum(l, sizeof l, lo), fnum(h, sizeof h, hi));
	return buf;
}

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

static void print_text(const struct compare_result *res, FILE *out, const char *pairs)
{
	char lvl[16];
	snprintf(lvl, sizeof lvl, "%g %%", 100 * res->level);
	fprintf(out, "hetlab compare: B - A over %zu seeds paired by seed (%s)\n\n", res->npair, pairs);
	fprintf(out, "  A  %s  (policy %s, %zu runs)\n", res->a->dir, compare_side_policy(res->a), res->a->nrun);
	fprintf(out, "  B  %s  (policy %s, %zu runs)\n", res->b->dir, compare_side_policy(res->b), res->b->nrun);
	fprintf(out, "  scenario %s; %s intervals; verdicts say how B does against A\n\n",
	        side_scenario(res->a), lvl);
	char hdr[32];
	snprintf(hdr, sizeof hdr, "%s interval", lvl);
	fprintf(out, "  %-15s %3s %11s %11s %11s %10s  %-26s %-9s %10s  %s\n", "metric", "n", "mean A",
	        "mean B", "mean diff", "change", hdr, "method", "Wilcoxon p", "verdict");
	for (size_t s = 0; s < res->nstat; s++) {
		const struct compare_stat *st = &res->stat[s];
		char b[6][64];
		fprintf(out, "  %-15s %3zu %11s %11s %11s %10s  %-26s %-9s %10s  %s\n",
		        compare_metric_name(st->metric), st->n, fnum(b[0], 64, st->mean_a),
		        fnum(b[1], 64, st->mean_b), fnum(b[2], 64, st->mean_diff),
		        fchange(b[3], 64, st->rel_change), finterval(b[4], 64, st->lo, st->hi),
		        compare_method_name(st->method), fp(b[5], 64, st->p), compare_verdict_name(st->verdict));
	}
	fprintf(out, "\n  method: t = Student t interval; bootstrap = percentile bootstrap (%d resamples),\n"
	             "  used when |skewness of the differences| > %g. Wilcoxon p: signed-rank test,\n"
	             "  exact up to %d non-zero differences. Lower is better except core_util, gpu_util.\n",
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
	json_t *ms = json_array();
	for (size_t s = 0; s < res->nstat; s++) {
		const struct compare_stat *st = &res->stat[s];
		json_t *o = json_object();
		json_object_set_new(o, "metric", json_string(compare_metric_name(st->metric)));
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

static void html_escape(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
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

static void print_html(const struct compare_result *res, FILE *out, const char *pairs)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>hetlab compare</title>\n<style>\n"
	      "body { font-family: sans-serif; margin: 2em; color: #222; }\n"
	      "table { border-collapse: collapse; }\n"
	      "th, td { padding: 0.3em 0.7em; border: 1px solid #ccc; }\n"
	      "td.num { text-align: right; font-variant-numeric: tabular-nums; }\n"
	      "th { background: #f0f0f0; }\n"
	      "tr.better td.verdict { background: #c6efce; color: #006100; }\n"
	      "tr.worse td.verdict { background: #ffc7ce; color: #9c0006; }\n"
	      "tr.same td.verdict { background: #eeeeee; }\n"
	      "tr.na td.verdict { color: #888; }\n"
	      ".warn { color: #9c5700; }\n"
	      "</style>\n</head>\n<body>\n<h1>hetlab compare</h1>\n<p>A: ", out);
	html_escape(out, res->a->dir);
	fputs(" (policy ", out);
	html_escape(out, compare_side_policy(res->a));
	fprintf(out, ", %zu runs)<br>\nB: ", res->a->nrun);
	html_escape(out, res->b->dir);
	fputs(" (policy ", out);
	html_escape(out, compare_side_policy(res->b));
	fprintf(out, ", %zu runs)<br>\nscenario ", res->b->nrun);
	html_escape(out, side_scenario(res->a));
	fprintf(out, "; differences B &minus; A over %zu seeds paired by seed (", res->npair);
	html_escape(out, pairs);
	fprintf(out, "); %g %% intervals; verdicts say how B does against A.</p>\n", 100 * res->level);
	fprintf(out, "<table>\n<tr><th>metric</th><th>n</th><th>mean A</th><th>mean B</th>"
	             "<th>mean diff</th><th>change</th><th>%g %% interval</th><th>method</th>"
	             "<th>Wilcoxon p</th><th>verdict</th></tr>\n", 100 * res->level);
	for (size_t s = 0; s < res->nstat; s++) {
		const struct compare_stat *st = &res->stat[s];
		char b[6][64];
		fprintf(out, "<tr class=\"%s\"><td>%s</td><td class=\"num\">%zu</td>"
		        "<td class=\"num\">%s</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
		        "<td class=\"num\">%s</td><td class=\"num\">%s</td><td>%s</td>"
		        "<td class=\"num\">%s</td><td class=\"verdict\">%s</td></tr>\n",
		        verdict_class(st->verdict), compare_metric_name(st->metric), st->n,
		        fnum(b[0], 64, st->mean_a), fnum(b[1], 64, st->mean_b),
		        fnum(b[2], 64, st->mean_diff), fchange(b[3], 64, st->rel_change),
		        finterval(b[4], 64, st->lo, st->hi), compare_method_name(st->method),
		        fp(b[5], 64, st->p), compare_verdict_name(st->verdict));
	}
	fprintf(out, "</table>\n<p>t = Student t interval; bootstrap = percentile bootstrap "
	             "(%d resamples), used when |skewness of the differences| &gt; %g. Wilcoxon p: "
	             "two-sided signed-rank test, exact up to %d non-zero differences. Lower is "
	             "better except for core_util and gpu_util.</p>\n",
	        COMPARE_BOOT_N, COMPARE_SKEW_LIMIT, COMPARE_WILCOXON_EXACT_MAX);
	for (size_t w = 0; w < res->nwarning; w++) {
		fputs("<p class=\"warn\">warning: ", out);
		html_escape(out, res->warning[w]);
		fputs("</p>\n", out);
	}
	fputs("</body>\n</html>\n", out);
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
