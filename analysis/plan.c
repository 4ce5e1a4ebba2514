/* plan — the cost model, the search and its output (see plan.h). */
#include "analysis/plan.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sqlite3.h>

#include "analysis/compare.h"
#include "analysis/units.h"

void plan_spec_fini(struct plan_spec *s)
{
	for (size_t i = 0; i < s->nvar; i++)
		free(s->var[i].path);
	free(s->var);
	free(s->target);
	free(s->seed);
	free(s->file);
	free(s->scenario);
	free(s->out);
	memset(s, 0, sizeof *s);
}

static void cand_fini(struct plan_cand *c)
{
	free(c->x);
	free(c->mean);
	free(c->bound);
	free(c->ok);
	free(c->per_seed);
}

void plan_result_fini(struct plan_result *r)
{
	for (size_t i = 0; i < r->ncand; i++)
		cand_fini(&r->cand[i]);
	free(r->cand);
	memset(r, 0, sizeof *r);
	r->answer = -1;
}

double plan_capex(const struct plan_spec *s, const long *x)
{
	double c = 0;
	for (size_t i = 0; i < s->nvar; i++)
		if (x[i] > s->var[i].owned)
			c += s->var[i].cost * (double)(x[i] - s->var[i].owned);
	return c;
}

double plan_shortfall(const struct plan_target *t, double mean)
{
	if (isnan(mean))
		return INFINITY;
	double scale = fabs(t->bound) > 1e-9 ? fabs(t->bound) : 1e-9;
	double d = t->is_max ? (mean - t->bound) / scale : (t->bound - mean) / scale;
	return d > 0 ? d : 0;
}

static int meets(const struct plan_target *t, double v)
{
	return !isnan(v) && (t->is_max ? v <= t->bound : v >= t->bound);
}

char *plan_cand_name(const struct plan_spec *s, const long *x)
{
	size_t len = 8 + 21 * s->nvar;
	char *n = malloc(len);
	if (!n)
		return NULL;
	size_t off = (size_t)snprintf(n, len, "cand");
	for (size_t i = 0; i < s->nvar; i++)
		off += (size_t)snprintf(n + off, len - off, "-%ld", x[i]);
	return n;
}

static double count_rows(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *st = NULL;
	double n = NAN;
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return n;
}

int plan_run_usage(const char *db, const struct metric_set *m, struct plan_usage *u, char *err,
                   size_t errlen)
{
	sqlite3 *h = NULL;
	memset(u, 0, sizeof *u);
	u->it_kwh = metric_get(m, "it_energy_kwh");
	u->facility_kwh = metric_get(m, "facility_energy_kwh");
	u->energy_cost = metric_get(m, "energy_cost");
	u->window_s = m->t1_us > m->t0_us ? (double)(m->t1_us - m->t0_us) / 1e6 : 0;
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", db, h ? sqlite3_errmsg(h) : "out of memory");
		sqlite3_close(h);
		return -1;
	}
	u->nodes = count_rows(h, "SELECT count(*) FROM node");
	u->racks = count_rows(h, "SELECT count(*) FROM rack");
	sqlite3_close(h);
	if (isnan(u->nodes))
		u->nodes = 0;
	if (isnan(u->racks))
		u->racks = 0;
	return 0;
}

int plan_cost_terms(const char *text, struct plan_spec *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	s->life_years = 5;
	s->energy_price_per_kwh = NAN;
	s->pue = NAN;
	if (!text)
		return 0;
	json_error_t je;
	json_t *c = json_loads(text, 0, &je);
	if (!json_is_object(c)) {
		json_decref(c);
		snprintf(err, errlen, "meta cost: not a JSON object: %s", je.text);
		return -1;
	}
	static const struct { const char *key; size_t off; } keys[] = {
		{ "energy_price_per_kwh", offsetof(struct plan_spec, energy_price_per_kwh) },
		{ "pue", offsetof(struct plan_spec, pue) },
		{ "maintenance_per_node_year", offsetof(struct plan_spec, maint_per_node_year) },
		{ "space_per_rack_year", offsetof(struct plan_spec, space_per_rack_year) },
	};
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		const json_t *v = json_object_get(c, keys[k].key);
		if (json_is_number(v))
			*(double *)((char *)s + keys[k].off) = json_number_value(v);
	}
	json_decref(c);
	return 0;
}

void plan_cost(const struct plan_spec *s, const struct plan_usage *use, size_t nuse,
               struct plan_cand *c)
{
	double it = 0, fac = 0, cost = 0, win = 0, nodes = 0, racks = 0;
	size_t nf = 0, nc = 0;
	for (size_t q = 0; q < nuse; q++) {
		const struct plan_usage *u = &use[q];
		double f = !isnan(s->pue) ? (isnan(u->it_kwh) ? NAN : u->it_kwh * s->pue) : u->facility_kwh;
		double yr = u->window_s > 0 ? 365.25 * 86400 / u->window_s : 0;
		if (!isnan(f)) {
			fac += f * yr;
			nf++;
		}
		if (!isnan(u->energy_cost)) {
			cost += u->energy_cost * yr;
			nc++;
		}
		it += isnan(u->it_kwh) ? 0 : u->it_kwh;
		win += u->window_s;
		nodes += u->nodes;
		racks += u->racks;
	}
	(void)it;
	(void)win;
	double n = nuse ? (double)nuse : 1;
	c->capex = plan_capex(s, c->x);
	c->capex_year = s->life_years > 0 ? c->capex / s->life_years : c->capex;
	c->energy_kwh_year = nf ? fac / (double)nf : 0;
	if (!isnan(s->energy_price_per_kwh))
		c->energy_year = c->energy_kwh_year * s->energy_price_per_kwh;
	else
		c->energy_year = nc ? cost / (double)nc : 0;
	c->nodes = nodes / n;
	c->racks = racks / n;
	c->maint_year = s->maint_per_node_year * c->nodes;
	c->space_year = s->space_per_rack_year * c->racks;
	c->cost = c->capex_year + c->energy_year + c->maint_year + c->space_year;
}

/* ---- the search ------------------------------------------------------------------ */

struct search {
	const struct plan_spec *s;
	plan_eval_fn eval;
	void *ctx;
	FILE *progress;
	struct plan_result *r;
	size_t cap;
	char *err;
	size_t errlen;
};

static long find(const struct search *k, const long *x)
{
	for (size_t i = 0; i < k->r->ncand; i++)
		if (memcmp(k->r->cand[i].x, x, k->s->nvar * sizeof *x) == 0)
			return (long)i;
	return -1;
}

static void print_x(const struct plan_spec *s, const long *x, FILE *f)
{
	for (size_t i = 0; i < s->nvar; i++)
		fprintf(f, "%s%s=%ld", i ? " " : "", s->var[i].path, x[i]);
}

/* The candidate at x, evaluated now unless it already was. Index, or -1. */
static long evaluate(struct search *k, const long *x)
{
	const struct plan_spec *s = k->s;
	long have = find(k, x);
	if (have >= 0)
		return have;
	if (k->r->ncand == k->cap) {
		size_t nc = k->cap ? 2 * k->cap : 16;
		struct plan_cand *c = realloc(k->r->cand, nc * sizeof *c);
		if (!c)
			goto nomem;
		k->r->cand = c;
		k->cap = nc;
	}
	struct plan_cand *c = &k->r->cand[k->r->ncand];
	memset(c, 0, sizeof *c);
	double *val = calloc(s->nseed * s->ntarget + 1, sizeof *val);
	struct plan_usage *en = calloc(s->nseed, sizeof *en);
	double *col = calloc(s->nseed, sizeof *col);
	c->x = malloc(s->nvar * sizeof *c->x + 1);
	c->mean = calloc(s->ntarget + 1, sizeof *c->mean);
	c->bound = calloc(s->ntarget + 1, sizeof *c->bound);
	c->ok = calloc(s->ntarget + 1, sizeof *c->ok);
	c->per_seed = calloc(s->nseed * s->ntarget + 1, sizeof *c->per_seed);
	if (!val || !en || !col || !c->x || !c->mean || !c->bound || !c->ok || !c->per_seed) {
		free(val);
		free(en);
		free(col);
		cand_fini(c);
		goto nomem;
	}
	memcpy(c->x, x, s->nvar * sizeof *x);
	for (size_t i = 0; i < s->nseed * s->ntarget; i++)
		val[i] = NAN;
	if (k->eval(k->ctx, s, x, val, en, k->err, k->errlen) < 0) {
		free(val);
		free(en);
		free(col);
		cand_fini(c);
		return -1;
	}
	plan_cost(s, en, s->nseed, c);
	memcpy(c->per_seed, val, s->nseed * s->ntarget * sizeof *val);
	c->feasible = c->confident = 1;
	for (size_t t = 0; t < s->ntarget; t++) {
		size_t n = 0;
		for (size_t q = 0; q < s->nseed; q++)
			if (!isnan(val[q * s->ntarget + t]))
				col[n++] = val[q * s->ntarget + t];
		double mean = NAN, sd, lo = NAN, hi = NAN;
		if (n > 0)
			compare_mean_sd(col, n, &mean, &sd);
		compare_t_interval(col, n, PLAN_LEVEL, &lo, &hi);
		const struct plan_target *tg = &s->target[t];
		/* The interval cut to what the metric can be (as a sweep's): a
		 * utilisation's lower bound is not below 0 %. */
		double lo_b, hi_b;
		metric_range(tg->metric, &lo_b, &hi_b);
		lo = isnan(lo) ? lo : fmin(fmax(lo, lo_b), hi_b);
		hi = isnan(hi) ? hi : fmax(fmin(hi, hi_b), lo_b);
		c->mean[t] = mean;
		c->bound[t] = tg->is_max ? hi : lo;
		/* With "confident", a target is met only when its bound meets it. */
		c->ok[t] = meets(tg, s->confident ? c->bound[t] : mean);
		c->feasible &= c->ok[t];
		c->confident &= meets(tg, c->bound[t]);
		double v = plan_shortfall(tg, s->confident ? c->bound[t] : mean);
		if (v > c->violation)
			c->violation = v;
	}
	c->confident &= c->feasible;
	c->order = k->r->ncand++;
	free(val);
	free(en);
	free(col);
	if (k->progress) {
		fprintf(k->progress, "hetlab plan: candidate %zu: ", c->order);
		print_x(s, x, k->progress);
		char b[48];
		fprintf(k->progress, ": cost %s a year%s\n", units_money(b, sizeof b, c->cost),
		        s->ntarget == 0 ? "" : c->feasible ? ", feasible" : ", fails");
	}
	return (long)c->order;
nomem:
	snprintf(k->err, k->errlen, "out of memory");
	return -1;
}

/* a - b for violations that may be +inf (inf - inf counts as no change). */
static double gain(double a, double b)
{
	if (isinf(a) && isinf(b))
		return 0;
	return a - b;
}

static int greedy(struct search *k, long *x)
{
	const struct plan_spec *s = k->s;
	for (size_t i = 0; i < s->nvar; i++)
		x[i] = s->var[i].min;
	long cur = evaluate(k, x);
	if (cur < 0)
		return -1;
	/* Climb: single-step increases until feasible. */
	while (!k->r->cand[cur].feasible) {
		long best = -1, best_feas = -1, best_viol = -1;
		double best_score = 0;
		for (size_t i = 0; i < s->nvar; i++) {
			if (x[i] >= s->var[i].max)
				continue;
			x[i]++;
			long n = evaluate(k, x);
			x[i]--;
			if (n < 0)
				return -1;
			const struct plan_cand *c = &k->r->cand[n], *b = &k->r->cand[cur];
			if (c->feasible && (best_feas < 0 || c->cost < k->r->cand[best_feas].cost))
				best_feas = n;
			double dc = c->cost - b->cost, g = gain(b->violation, c->violation);
			double score = g / (dc > 1e-9 ? dc : 1e-9);
			if (g > 0 && (best < 0 || score > best_score)) {
				best = n;
				best_score = score;
			}
			if (best_viol < 0 || c->violation < k->r->cand[best_viol].violation ||
			    (c->violation == k->r->cand[best_viol].violation &&
			     c->cost < k->r->cand[best_viol].cost))
				best_viol = n;
		}
		long next = best_feas >= 0 ? best_feas : best >= 0 ? best : best_viol;
		if (next < 0)
			return 0;   /* every variable at its max, still infeasible */
		cur = next;
		memcpy(x, k->r->cand[cur].x, s->nvar * sizeof *x);
	}
	/* Trim: single-step decreases while a cheaper one stays feasible. */
	for (;;) {
		long best = -1;
		for (size_t i = 0; i < s->nvar; i++) {
			if (x[i] <= s->var[i].min)
				continue;
			x[i]--;
			long n = evaluate(k, x);
			x[i]++;
			if (n < 0)
				return -1;
			const struct plan_cand *c = &k->r->cand[n];
			if (c->feasible && c->cost < k->r->cand[cur].cost &&
			    (best < 0 || c->cost < k->r->cand[best].cost))
				best = n;
		}
		if (best < 0)
			break;
		cur = best;
		memcpy(x, k->r->cand[cur].x, s->nvar * sizeof *x);
	}
	return 0;
}

static int exhaustive(struct search *k, long *x)
{
	const struct plan_spec *s = k->s;
	for (size_t i = 0; i < s->nvar; i++)
		x[i] = s->var[i].min;
	for (;;) {
		if (evaluate(k, x) < 0)
			return -1;
		size_t i = s->nvar;
		while (i > 0 && x[i - 1] == s->var[i - 1].max) {
			x[i - 1] = s->var[i - 1].min;
			i--;
		}
		if (i == 0)
			return 0;
		x[i - 1]++;
	}
}

int plan_search(const struct plan_spec *s, int exh, plan_eval_fn eval, void *ctx,
                FILE *progress, struct plan_result *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->answer = -1;
	r->exhaustive = exh;
	struct search k = { .s = s, .eval = eval, .ctx = ctx, .progress = progress, .r = r,
		.err = err, .errlen = errlen };
	long *x = calloc(s->nvar + 1, sizeof *x);
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (s->ntarget == 0)   /* a what-if costing: the box, no answer */
		r->exhaustive = exh = 1;
	int rc = exh ? exhaustive(&k, x) : greedy(&k, x);
	free(x);
	if (rc < 0)
		return -1;
	if (s->ntarget == 0)
		return 0;
	/* The answer: the cheapest feasible candidate evaluated (earliest on ties). */
	for (size_t i = 0; i < r->ncand; i++)
		if (r->cand[i].feasible && (r->answer < 0 || r->cand[i].cost < r->cand[r->answer].cost))
			r->answer = (long)i;
	return 0;
}

/* ---- output ---------------------------------------------------------------------- */

static void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.17g", v);
	else
		fputs("null", f);
}

static void print_json(const struct plan_spec *s, const struct plan_result *r, FILE *f)
{
	fprintf(f, "{\"search\": \"%s\", \"level\": %g, \"vars\": [", r->exhaustive ? "exhaustive"
	        : "greedy", PLAN_LEVEL);
	for (size_t i = 0; i < s->nvar; i++)
		fprintf(f, "%s\"%s\"", i ? ", " : "", s->var[i].path);
	fputs("], \"owned\": [", f);
	for (size_t i = 0; i < s->nvar; i++)
		fprintf(f, "%s%ld", i ? ", " : "", s->var[i].owned);
	fputs("], \"unit_cost\": [", f);
	for (size_t i = 0; i < s->nvar; i++) {
		fputs(i ? ", " : "", f);
		json_num(f, s->var[i].cost);
	}
	fputs("], \"targets\": [", f);
	for (size_t t = 0; t < s->ntarget; t++) {
		fprintf(f, "%s{\"metric\": \"%s\", \"%s\": ", t ? ", " : "", s->target[t].metric,
		        s->target[t].is_max ? "max" : "min");
		json_num(f, s->target[t].bound);
		fputs("}", f);
	}
	fprintf(f, "], \"confident_required\": %s, \"candidates\": [", s->confident ? "true" : "false");
	for (size_t i = 0; i < r->ncand; i++) {
		const struct plan_cand *c = &r->cand[i];
		fprintf(f, "%s\n  {\"x\": [", i ? "," : "");
		for (size_t v = 0; v < s->nvar; v++)
			fprintf(f, "%s%ld", v ? ", " : "", c->x[v]);
		fputs("], \"cost_per_year\": ", f);
		json_num(f, c->cost);
		fputs(", \"capex\": ", f);
		json_num(f, c->capex);
		fputs(", \"capex_per_year\": ", f);
		json_num(f, c->capex_year);
		fputs(", \"energy_kwh_per_year\": ", f);
		json_num(f, c->energy_kwh_year);
		fputs(", \"energy_per_year\": ", f);
		json_num(f, c->energy_year);
		fputs(", \"maintenance_per_year\": ", f);
		json_num(f, c->maint_year);
		fputs(", \"space_per_year\": ", f);
		json_num(f, c->space_year);
		fputs(", \"nodes\": ", f);
		json_num(f, c->nodes);
		fputs(", \"racks\": ", f);
		json_num(f, c->racks);
		fputs(", \"targets\": [", f);
		for (size_t t = 0; t < s->ntarget; t++) {
			fprintf(f, "%s{\"metric\": \"%s\", \"mean\": ", t ? ", " : "", s->target[t].metric);
			json_num(f, c->mean[t]);
			fputs(", \"bound\": ", f);
			json_num(f, c->bound[t]);
			fprintf(f, ", \"ok\": %s}", c->ok[t] ? "true" : "false");
		}
		fprintf(f, "], \"feasible\": %s, \"confident\": %s}", c->feasible ? "true" : "false",
		        c->confident ? "true" : "false");
	}
	fprintf(f, "\n], \"answer\": ");
	if (r->answer < 0)
		fputs("null", f);
	else
		fprintf(f, "%ld", r->answer);
	fputs("}\n", f);
}

/* The target as "p95_wait{class=training} <= 1.00 h". */
static void print_target(const struct plan_target *t, FILE *f)
{
	char b[48];
	fprintf(f, "%s %s %s", t->metric, t->is_max ? "<=" : ">=",
	        units_value(b, sizeof b, metric_unit(t->metric), t->bound));
}

/* A candidate's cost of ownership a year, term by term. */
static void print_breakdown(const struct plan_spec *s, const struct plan_cand *a, FILE *f)
{
	char b[6][48];
	fprintf(f, "  cost of ownership %s a year:\n", units_money(b[0], sizeof b[0], a->cost));
	fprintf(f, "    capex        %14s  (%s over %g year%s", units_money(b[0], sizeof b[0], a->capex_year),
	        units_money(b[1], sizeof b[1], a->capex), s->life_years, s->life_years == 1 ? "" : "s");
	int added = 0;
	for (size_t v = 0; v < s->nvar; v++)
		if (a->x[v] > s->var[v].owned) {
			fprintf(f, "%s%s +%ld x %s", added++ ? ", " : ": ", s->var[v].path,
			        a->x[v] - s->var[v].owned, units_money(b[2], sizeof b[2], s->var[v].cost));
		}
	fputs(added ? ")\n" : ": nothing added to what the site owns)\n", f);
	if (!isnan(s->energy_price_per_kwh))
		fprintf(f, "    energy       %14s  (%s kWh a year at the facility x %g)\n",
		        units_money(b[0], sizeof b[0], a->energy_year),
		        units_money(b[1], sizeof b[1], a->energy_kwh_year), s->energy_price_per_kwh);
	else
		fprintf(f, "    energy       %14s  (%s kWh a year at the facility, the scenario's tariff)\n",
		        units_money(b[0], sizeof b[0], a->energy_year),
		        units_money(b[1], sizeof b[1], a->energy_kwh_year));
	fprintf(f, "    maintenance  %14s  (%.0f nodes x %s)\n", units_money(b[0], sizeof b[0], a->maint_year),
	        a->nodes, units_money(b[1], sizeof b[1], s->maint_per_node_year));
	fprintf(f, "    rack space   %14s  (%.0f racks x %s)\n", units_money(b[0], sizeof b[0], a->space_year),
	        a->racks, units_money(b[1], sizeof b[1], s->space_per_rack_year));
}

static void print_vars(const struct plan_spec *s, FILE *f)
{
	for (size_t v = 0; v < s->nvar; v++) {
		char b[48];
		fprintf(f, "x%zu = %s (%ld..%ld; %ld owned; %s each added)\n", v + 1, s->var[v].path,
		        s->var[v].min, s->var[v].max, s->var[v].owned,
		        units_money(b, sizeof b, s->var[v].cost));
	}
}

/* A what-if costing (no targets): each candidate's cost. */
static int print_costing(const struct plan_spec *s, const struct plan_result *r, FILE *f)
{
	fprintf(f, "what-if costing: %zu candidate%s, %zu seeds each (no targets: every candidate "
	        "of the box, its cost of ownership a year)\n\n   #", r->ncand, r->ncand == 1 ? "" : "s",
	        s->nseed);
	for (size_t v = 0; v < s->nvar; v++)
		fprintf(f, "    x%-2zu", v + 1);
	fprintf(f, " %14s %14s %14s %14s %14s\n", "cost/year", "capex/year", "energy/year", "maint./year",
	        "space/year");
	for (size_t i = 0; i < r->ncand; i++) {
		const struct plan_cand *c = &r->cand[i];
		char b[5][48];
		fprintf(f, "%4zu", i);
		for (size_t v = 0; v < s->nvar; v++)
			fprintf(f, " %6ld", c->x[v]);
		fprintf(f, " %14s %14s %14s %14s %14s\n", units_money(b[0], 48, c->cost),
		        units_money(b[1], 48, c->capex_year), units_money(b[2], 48, c->energy_year),
		        units_money(b[3], 48, c->maint_year), units_money(b[4], 48, c->space_year));
	}
	fputs("\n", f);
	print_vars(s, f);
	for (size_t i = 0; i < r->ncand; i++) {
		fprintf(f, "candidate %zu: ", i);
		print_x(s, r->cand[i].x, f);
		fputs("\n", f);
		print_breakdown(s, &r->cand[i], f);
	}
	return ferror(f) ? -1 : 0;
}

int plan_print(const struct plan_spec *s, const struct plan_result *r, int json, FILE *f)
{
	if (json) {
		print_json(s, r, f);
		return ferror(f) ? -1 : 0;
	}
	if (s->ntarget == 0)
		return print_costing(s, r, f);
	fprintf(f, "%s search: %zu candidates evaluated, %zu seeds each; targets:",
	        r->exhaustive ? "exhaustive" : "greedy", r->ncand, s->nseed);
	for (size_t t = 0; t < s->ntarget; t++) {
		fputs(t ? ", " : " ", f);
		print_target(&s->target[t], f);
	}
	fprintf(f, "\n(mean over seeds, [%g%% t bound in the target's direction]%s)\n\n",
	        PLAN_LEVEL * 100, s->confident ? "; feasible when the bound meets every target" : "");
	fputs("   #", f);
	for (size_t v = 0; v < s->nvar; v++)
		fprintf(f, "    x%-2zu", v + 1);
	fprintf(f, " %14s", "cost/year");
	for (size_t t = 0; t < s->ntarget; t++)
		fprintf(f, " %30s", s->target[t].metric);
	fputs("  feasible\n", f);
	for (size_t i = 0; i < r->ncand; i++) {
		const struct plan_cand *c = &r->cand[i];
		char b[48];
		fprintf(f, "%4zu", i);
		for (size_t v = 0; v < s->nvar; v++)
			fprintf(f, " %6ld", c->x[v]);
		fprintf(f, " %14s", units_money(b, sizeof b, c->cost));
		for (size_t t = 0; t < s->ntarget; t++) {
			char cell[160], m[48], bd[48];
			const char *u = metric_unit(s->target[t].metric);
			snprintf(cell, sizeof cell, "%s [%s] %s", units_value(m, sizeof m, u, c->mean[t]),
			         units_value(bd, sizeof bd, u, c->bound[t]), c->ok[t] ? "ok" : "FAIL");
			fprintf(f, " %30s", cell);
		}
		fprintf(f, "  %s%s\n", c->feasible ? "yes" : "no",
		        (long)i == r->answer ? "  <- answer" : "");
	}
	fputs("\n", f);
	print_vars(s, f);
	if (r->answer < 0) {
		fputs("answer: none: no candidate evaluated meets every target\n", f);
		return ferror(f) ? -1 : 0;
	}
	const struct plan_cand *a = &r->cand[r->answer];
	fputs("answer: ", f);
	print_x(s, a->x, f);
	fputs("\n", f);
	print_breakdown(s, a, f);
	for (size_t t = 0; t < s->ntarget; t++) {
		const char *u = metric_unit(s->target[t].metric);
		fprintf(f, "  %s per seed:", s->target[t].metric);
		size_t met = 0;
		for (size_t q = 0; q < s->nseed; q++) {
			char b[48];
			double v = a->per_seed[q * s->ntarget + t];
			met += meets(&s->target[t], v);
			fprintf(f, " %" PRIu64 ": %s%s", s->seed[q], units_value(b, sizeof b, u, v),
			        q + 1 < s->nseed ? "," : "");
		}
		fprintf(f, "\n    (%zu of %zu seeds meet ", met, s->nseed);
		print_target(&s->target[t], f);
		fputs(")\n", f);
	}
	fprintf(f, "  %s", a->confident ? "confident: every target's " : "not confident: ");
	if (a->confident)
		fprintf(f, "%g%% t bound meets it too\n", PLAN_LEVEL * 100);
	else {
		int first = 1;
		for (size_t t = 0; t < s->ntarget; t++)
			if (!meets(&s->target[t], a->bound[t])) {
				char b[2][48];
				const char *u = metric_unit(s->target[t].metric);
				fprintf(f, "%s%s %s bound %s does not meet %s", first ? "" : "; ",
				        s->target[t].metric, s->target[t].is_max ? "upper" : "lower",
				        units_value(b[0], sizeof b[0], u, a->bound[t]),
				        units_value(b[1], sizeof b[1], u, s->target[t].bound));
				first = 0;
			}
		fputs(" (more seeds would narrow the interval)\n", f);
	}
	return ferror(f) ? -1 : 0;
}
