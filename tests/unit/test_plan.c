/* plan: the loader's errors, the cost model, and the greedy search against
 * brute force on a table-driven fake evaluator. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "analysis/plan.h"
#include "tests/testutil.h"
#include "config/plancfg.h"

static int load_text(const char *text, struct plan_spec *s, char *err, size_t errlen)
{
	char *p = tu_write_tmp(".json", text);
	int r = plan_load(p, "/tmp/unused-plan-out", s, err, errlen);
	unlink(p);
	free(p);
	return r;
}

static void expect_error(const char *text, const char *needle)
{
	struct plan_spec s;
	char err[2048];
	assert_int_equal(load_text(text, &s, err, sizeof err), -1);
	if (!strstr(err, needle))
		fail_msg("expected '%s' in: %s", needle, err);
}

#define VARS "\"vars\": [{\"path\": \"$.racks[0].count\", \"min\": 1, \"max\": 3, \"cost\": 10}]"
#define TGT "\"targets\": [{\"metric\": \"p95_wait\", \"max\": 100}]"

static void test_load_ok(void **state)
{
	(void)state;
	struct plan_spec s;
	char err[2048];
	int r = load_text("{\"seeds\": \"1-3\", " VARS ", " TGT ", \"energy_price_per_kwh\": 0.2,"
	                  " \"fixed\": {\"$.workload.synthetic.scale.rate\": 1.4}}", &s, err,
	                  sizeof err);
	if (r)
		fail_msg("%s", err);
	assert_int_equal(s.nvar, 1);
	assert_string_equal(s.var[0].path, "$.racks[0].count");
	assert_int_equal(s.var[0].min, 1);
	assert_int_equal(s.var[0].max, 3);
	assert_int_equal(s.nseed, 3);
	assert_int_equal(s.ntarget, 1);
	assert_string_equal(s.target[0].metric, "p95_wait");
	assert_float_equal(s.energy_price_per_kwh, 0.2, 0);
	assert_float_equal(s.life_years, 5, 0);
	assert_true(s.target[0].is_max);
	assert_true(strstr(s.scenario, "1.4") != NULL);
	long x = 2;
	char *t;
	assert_int_equal(plan_scenario_text(&s, &x, &t, err, sizeof err), 0);
	assert_true(strstr(t, "\"count\":2") || strstr(t, "\"count\": 2"));
	free(t);
	plan_spec_fini(&s);
}

/* A rack entry with a count keeps its numbered names at a count of 1: the
 * loader checks every variable at its min, and an event naming
 * air-a100-01-n1 used to find no such node once the count was 1 (the racks
 * were then named air-a100- and air-a100--n1). */
static void test_count_one_keeps_rack_names(void **state)
{
	(void)state;
	struct plan_spec s;
	char err[2048];
	if (load_text("{\"seeds\": \"1-2\", \"vars\": [{\"path\": \"$.racks[1].count\", \"min\": 1, "
	              "\"max\": 2, \"cost\": 1}], " TGT ", \"fixed\": {\"$.events\": [{\"at\": \"2d\", "
	              "\"fail\": \"gpu_degrade\", \"node\": \"air-a100-01-n1\", \"gpu\": 2, \"value\": 0.5, "
	              "\"repair_h\": 24}]}}", &s, err, sizeof err))
		fail_msg("%s", err);
	plan_spec_fini(&s);
}

/* The worked example of docs/planning.md loads (the doc-test runs it). */
static void test_worked_example_loads(void **state)
{
	(void)state;
	struct plan_spec s;
	char err[2048];
	if (plan_load("scenarios/plan-example.json", "/tmp/unused-plan-out", &s, err, sizeof err))
		fail_msg("%s", err);
	plan_spec_fini(&s);
}

static void test_load_errors(void **state)
{
	(void)state;
	expect_error("{" VARS ", " TGT "}", "\"seeds\" is required");
	expect_error("{\"seeds\": \"1-2\", " TGT "}", "$.vars");
	expect_error("{\"seeds\": \"1-2\", " VARS ", \"targets\": [{\"metric\": \"nope\", \"max\": 1}]}",
	             "$.targets[0]: \"metric\": unknown metric 'nope'");
	expect_error("{\"seeds\": \"1-2\", " VARS ", \"targets\": [{\"metric\": \"gpu_util\"}]}",
	             "$.targets[0]: expected exactly one of");
	expect_error("{\"seeds\": \"1-2\", \"vars\": [{\"path\": \"$.racks[0].count\", \"min\": 3, "
	             "\"max\": 1, \"cost\": 1}], " TGT "}", "$.vars[0]: \"max\" 1 is below \"min\" 3");
	expect_error("{\"seeds\": \"1-2\", \"vars\": [{\"path\": \"$.racks[9].count\", \"min\": 1, "
	             "\"max\": 2, \"cost\": 1}], " TGT "}", "$.vars[0]: $.racks[9].count");
	expect_error("{\"seeds\": \"1-2\", \"vars\": [{\"path\": \"$.racks[0].cuont\", \"min\": 1, "
	             "\"max\": 2, \"cost\": 1}], " TGT "}", "the scenario rejects it");
	expect_error("{\"seeds\": \"1-2\", " VARS ", " TGT ", \"extra\": 1}", "extra");
	expect_error("{\"seeds\": \"1-2\", " VARS ", " TGT ", \"cost\": {\"life_years\": 0}}",
	             "$.cost.life_years");
	expect_error("{\"seeds\": \"1-2\", " VARS ", " TGT ", \"cost\": {\"lifetime\": 5}}",
	             "lifetime");
	expect_error("{\"seeds\": \"1-2\", " VARS ", \"targets\": [{\"metric\": \"makespan{class=dev}\", "
	             "\"max\": 1}]}", "makespan takes no label");
	expect_error("{\"seeds\": \"1-2\", " VARS ", " TGT ", \"scenario\": \"no-such.json\"}",
	             "$.scenario");
}

/* ---- a fake evaluator: a table over a 4 x 4 box ---------------------------------- */

/* wait[x1 - 1][x2 - 1]: decreasing in both variables, one target (max 100). */
static const double fake_wait[4][4] = {
	{ 900, 500, 300, 160 },
	{ 600, 260, 140, 90 },
	{ 350, 120, 80, 40 },
	{ 200, 70, 30, 10 },
};

static int fake_eval(void *ctx, const struct plan_spec *s, const long *x, double *val,
                     struct plan_usage *use, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	int *calls = ctx;
	(*calls)++;
	for (size_t q = 0; q < s->nseed; q++) {
		double w = fake_wait[x[0] - 1][x[1] - 1];
		val[q * s->ntarget] = w + (q ? 5 : -5);   /* mean w, small spread */
		/* 10 (x1 + x2) kWh at the facility over a year-long window, 2 racks
		 * and 3 nodes per unit of each variable */
		use[q] = (struct plan_usage){ .it_kwh = 8.0 * (double)(x[0] + x[1]),
			.facility_kwh = 10.0 * (double)(x[0] + x[1]), .energy_cost = NAN,
			.window_s = 365.25 * 86400, .nodes = 3.0 * (double)(x[0] + x[1]),
			.racks = 2.0 * (double)(x[0] + x[1]) };
	}
	return 0;
}

static void fake_spec(struct plan_spec *s, double cost1, double cost2)
{
	memset(s, 0, sizeof *s);
	s->nvar = 2;
	s->var = calloc(2, sizeof *s->var);
	s->var[0] = (struct plan_var){ .path = strdup("$.a"), .min = 1, .max = 4, .cost = cost1 };
	s->var[1] = (struct plan_var){ .path = strdup("$.b"), .min = 1, .max = 4, .cost = cost2 };
	s->ntarget = 1;
	s->target = calloc(1, sizeof *s->target);
	s->target[0] = (struct plan_target){ .metric = "mean_wait", .is_max = 1, .bound = 100 };
	s->nseed = 2;
	s->seed = calloc(2, sizeof *s->seed);
	s->seed[0] = 1;
	s->seed[1] = 2;
	s->energy_price_per_kwh = 0.5;
	s->pue = NAN;
	s->life_years = 1;
}

/* Capex only for what a candidate adds to the site: "owned" defaults to the
 * scenario's value at the path (fixed settings applied), or is given. */
static void test_owned(void **state)
{
	(void)state;
	struct plan_spec s;
	char err[2048];
	int r = load_text("{\"seeds\": \"1-2\", " VARS ", " TGT ", \"fixed\": {\"$.racks[0].count\": 3}}",
	                  &s, err, sizeof err);
	if (r)
		fail_msg("%s", err);
	assert_int_equal(s.var[0].owned, 3);
	long x[1] = { 1 };
	assert_float_equal(plan_capex(&s, x), 0, 0);    /* fewer than owned: nothing bought */
	x[0] = 3;
	assert_float_equal(plan_capex(&s, x), 0, 0);
	x[0] = 5;
	assert_float_equal(plan_capex(&s, x), 20, 1e-9);   /* 2 added x 10 */
	plan_spec_fini(&s);
	r = load_text("{\"seeds\": \"1-2\", \"vars\": [{\"path\": \"$.racks[0].count\", \"min\": 1, "
	              "\"max\": 3, \"cost\": 10, \"owned\": 0}], " TGT "}", &s, err, sizeof err);
	if (r)
		fail_msg("%s", err);
	assert_int_equal(s.var[0].owned, 0);
	x[0] = 2;
	assert_float_equal(plan_capex(&s, x), 20, 1e-9);
	plan_spec_fini(&s);
	expect_error("{\"seeds\": \"1-2\", \"vars\": [{\"path\": \"$.racks[0].count\", \"min\": 1, "
	             "\"max\": 3, \"cost\": 10, \"owned\": -1}], " TGT "}", "$.vars[0]");
	/* A path the scenario does not have yet (an appended rack): none owned. */
	r = load_text("{\"seeds\": \"1\", \"fixed\": {\"$.racks[+]\": {\"name\": \"new-\", \"count\": 0, "
	              "\"power_kw\": 40, \"nodes\": [{\"type\": \"h100-8x\", \"count\": 2}]}}, "
	              "\"vars\": [{\"path\": \"$.racks[4].count\", \"min\": 0, \"max\": 1, \"cost\": 5}]}",
	              &s, err, sizeof err);
	if (r)
		fail_msg("%s", err);
	assert_int_equal(s.var[0].owned, 0);
	assert_int_equal(s.ntarget, 0);   /* no targets: a what-if costing */
	plan_spec_fini(&s);
}

static char *print_to_string(const struct plan_spec *s, const struct plan_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(plan_print(s, r, 0, f), 0);
	fclose(f);
	return buf;
}

/* The text speaks in readable units: durations in s, min, h or d (never
 * 1.108e+05), money with thousands separators, the capex of what is added. */
static void test_print_units(void **state)
{
	(void)state;
	struct plan_spec s;
	fake_spec(&s, 1600000, 700000);
	s.var[0].owned = 2;
	s.target[0].bound = 100;
	struct plan_result r;
	char err[256];
	int calls = 0;
	assert_int_equal(plan_search(&s, 0, fake_eval, &calls, NULL, &r, err, sizeof err), 0);
	assert_true(r.answer >= 0);
	char *t = print_to_string(&s, &r);
	assert_null(strstr(t, "e+0"));
	assert_non_null(strstr(t, "targets: mean_wait <= 1.67 min"));
	assert_non_null(strstr(t, "15.0 min [")); /* candidate (1, 1): 900 s */
	assert_non_null(strstr(t, "x1 = $.a (1..4; 2 owned; 1,600,000 each added)"));
	/* Two units of $.a are owned: (2, 1) costs what (1, 1) does but for
	 * the energy; the answer (2, 4) adds 4 of $.b and nothing of $.a. */
	assert_non_null(strstr(t, "\n   0      1      1        700,010 "));
	assert_non_null(strstr(t, "\n   1      2      1        700,015 "));
	const struct plan_cand *a = &r.cand[r.answer];
	assert_int_equal(a->x[0], 2);
	assert_int_equal(a->x[1], 4);
	assert_float_equal(a->capex, 4 * 700000, 1e-9);
	assert_non_null(strstr(t, "    capex             2,800,000  (2,800,000 over 1 year: $.b +4 x "
	                          "700,000)\n"));
	assert_non_null(strstr(t, "mean_wait per seed: 1: 1.42 min, 2: 1.58 min\n"));
	assert_non_null(strstr(t, "upper bound 2.56 min does not meet 1.67 min"));
	free(t);
	plan_result_fini(&r);
	/* Without targets: a what-if costing of the box, every candidate's cost. */
	s.ntarget = 0;
	calls = 0;
	assert_int_equal(plan_search(&s, 0, fake_eval, &calls, NULL, &r, err, sizeof err), 0);
	assert_int_equal(r.ncand, 16);
	assert_int_equal(r.answer, -1);
	t = print_to_string(&s, &r);
	assert_non_null(strstr(t, "what-if costing: 16 candidates, 2 seeds each"));
	assert_non_null(strstr(t, "candidate 1: $.a=1 $.b=2\n  cost of ownership 1,400,015 a year:\n"
	                          "    capex             1,400,000  (1,400,000 over 1 year: $.b +2 x "
	                          "700,000)\n"));
	s.var[1].owned = 4;   /* everything owned: no capex at all */
	plan_result_fini(&r);
	assert_int_equal(plan_search(&s, 0, fake_eval, &calls, NULL, &r, err, sizeof err), 0);
	free(t);
	t = print_to_string(&s, &r);
	assert_non_null(strstr(t, "candidate 0: $.a=1 $.b=1\n  cost of ownership 10 a year:\n"
	                          "    capex                     0  (0 over 1 year: nothing added to "
	                          "what the site owns)\n"));
	free(t);
	plan_result_fini(&r);
	s.ntarget = 1;
	plan_spec_fini(&s);
}

static void test_cost(void **state)
{
	(void)state;
	struct plan_spec s;
	fake_spec(&s, 100, 30);
	long x[2] = { 2, 3 };
	assert_float_equal(plan_capex(&s, x), 290, 1e-9);
	assert_float_equal(plan_shortfall(&s.target[0], 150), 0.5, 1e-12);
	assert_float_equal(plan_shortfall(&s.target[0], 50), 0, 0);
	assert_true(isinf(plan_shortfall(&s.target[0], NAN)));
	struct plan_target mn = { .metric = "gpu_util", .is_max = 0, .bound = 0.5 };
	assert_float_equal(plan_shortfall(&mn, 0.4), 0.2, 1e-12);
	char *n = plan_cand_name(&s, x);
	assert_string_equal(n, "cand-2-3");
	free(n);

	/* The candidate's cost adds the energy: capex + 0.5 x 10 x (x1 + x2). */
	struct plan_result r;
	char err[256];
	int calls = 0;
	assert_int_equal(plan_search(&s, 1, fake_eval, &calls, NULL, &r, err, sizeof err), 0);
	assert_int_equal(r.ncand, 16);
	assert_int_equal(calls, 16);
	for (size_t i = 0; i < r.ncand; i++) {
		const struct plan_cand *c = &r.cand[i];
		double e = 10.0 * (double)(c->x[0] + c->x[1]);
		assert_float_equal(c->cost, plan_capex(&s, c->x) + 0.5 * e, 1e-9);
		assert_float_equal(c->mean[0], fake_wait[c->x[0] - 1][c->x[1] - 1], 1e-9);
		assert_true(c->bound[0] > c->mean[0]);   /* the upper end for a max */
	}
	plan_result_fini(&r);
	plan_spec_fini(&s);
}

/* A plain run's cost: a scenario's cost terms (the meta row) through the
 * plan's cost model, no variables so no capex. */
static void test_run_cost_terms(void **state)
{
	(void)state;
	struct plan_spec s;
	char err[256];
	assert_int_equal(plan_cost_terms(NULL, &s, err, sizeof err), 0);
	assert_true(isnan(s.energy_price_per_kwh) && isnan(s.pue));
	assert_int_equal(plan_cost_terms("{\"maintenance_per_node_year\":5000,\"pue\":1.5,"
	                                 "\"space_per_rack_year\":12000}", &s, err, sizeof err), 0);
	assert_float_equal(s.maint_per_node_year, 5000, 0);
	assert_float_equal(s.space_per_rack_year, 12000, 0);
	assert_float_equal(s.pue, 1.5, 0);
	assert_int_equal(s.nvar, 0);
	/* Half a year's window: 100 kWh of IT, 60 of tariff cost, 4 nodes, 2 racks. */
	struct plan_usage u = { .it_kwh = 100, .facility_kwh = 130, .energy_cost = 60,
		.window_s = 365.25 * 86400 / 2, .nodes = 4, .racks = 2 };
	struct plan_cand c = { 0 };
	plan_cost(&s, &u, 1, &c);
	assert_float_equal(c.capex, 0, 0);
	assert_float_equal(c.energy_kwh_year, 300, 1e-9);   /* 100 x 1.5 x 2 */
	assert_float_equal(c.energy_year, 120, 1e-9);       /* the tariff's 60 x 2 */
	assert_float_equal(c.cost, 120 + 20000 + 24000, 1e-9);
	assert_int_equal(plan_cost_terms("[1]", &s, err, sizeof err), -1);
}

/* A utilisation spread over two seeds (2 % and 98 %): its t interval
 * reaches far below 0 and above 100 %; the bound a plan reads is cut to
 * [0, 1], as a sweep's intervals are. */
static int util_eval(void *ctx, const struct plan_spec *s, const long *x, double *val,
                     struct plan_usage *use, char *err, size_t errlen)
{
	(void)ctx;
	(void)x;
	(void)err;
	(void)errlen;
	for (size_t q = 0; q < s->nseed; q++) {
		val[q * s->ntarget] = q ? 0.98 : 0.02;
		use[q] = (struct plan_usage){ .energy_cost = NAN, .window_s = 365.25 * 86400 };
	}
	return 0;
}

static void test_bound_cut(void **state)
{
	(void)state;
	for (int is_max = 0; is_max <= 1; is_max++) {
		struct plan_spec s;
		fake_spec(&s, 1, 1);
		s.target[0] = (struct plan_target){ .metric = "gpu_util", .is_max = is_max, .bound = 0.5 };
		struct plan_result r;
		char err[256];
		assert_int_equal(plan_search(&s, 1, util_eval, NULL, NULL, &r, err, sizeof err), 0);
		assert_float_equal(r.cand[0].mean[0], 0.5, 1e-12);
		assert_float_equal(r.cand[0].bound[0], is_max ? 1 : 0, 0);
		char *t = print_to_string(&s, &r);
		assert_null(strstr(t, "[-"));   /* no bound below 0 % */
		free(t);
		plan_result_fini(&r);
		plan_spec_fini(&s);
	}
}

/* The yearly cost of ownership: capex over its life, the facility energy
 * annualised from the window at the tariff (or at a given PUE, or at the
 * scenario's own tariff), maintenance per node-year, space per rack-year. */
static void test_tco(void **state)
{
	(void)state;
	struct plan_spec s;
	fake_spec(&s, 1000, 400);
	s.life_years = 4;
	s.maint_per_node_year = 7;
	s.space_per_rack_year = 11;
	long x[2] = { 2, 1 };
	struct plan_cand c = { .x = x };
	/* Two seeds over half a year each: 100 and 140 kWh at the facility. */
	struct plan_usage u[2] = {
		{ .it_kwh = 80, .facility_kwh = 100, .energy_cost = 30, .window_s = 365.25 * 43200, .nodes = 20, .racks = 4 },
		{ .it_kwh = 110, .facility_kwh = 140, .energy_cost = 50, .window_s = 365.25 * 43200, .nodes = 20, .racks = 4 },
	};
	plan_cost(&s, u, 2, &c);
	assert_float_equal(c.capex, 2400, 1e-9);
	assert_float_equal(c.capex_year, 600, 1e-9);
	assert_float_equal(c.energy_kwh_year, 240, 1e-9);          /* mean 120 x 2 */
	assert_float_equal(c.energy_year, 120, 1e-9);              /* x 0.5 */
	assert_float_equal(c.maint_year, 140, 1e-9);
	assert_float_equal(c.space_year, 44, 1e-9);
	assert_float_equal(c.cost, 600 + 120 + 140 + 44, 1e-9);
	/* A PUE of the plan's: IT x 1.5 = 120 and 165, mean 142.5, x 2. */
	s.pue = 1.5;
	plan_cost(&s, u, 2, &c);
	assert_float_equal(c.energy_kwh_year, 285, 1e-9);
	/* No tariff: the scenario's own energy cost, annualised: mean 40 x 2. */
	s.pue = NAN;
	s.energy_price_per_kwh = NAN;
	plan_cost(&s, u, 2, &c);
	assert_float_equal(c.energy_year, 80, 1e-9);
	plan_spec_fini(&s);
}

/* With "confident", a candidate is feasible only when its t bound meets the
 * target: the answer's bound meets it, and cells whose mean meets it but
 * whose bound does not are infeasible. */
static void test_confident(void **state)
{
	(void)state;
	struct plan_spec s;
	fake_spec(&s, 100, 30);
	s.confident = 1;
	struct plan_result r;
	char err[256];
	int calls = 0;
	assert_int_equal(plan_search(&s, 1, fake_eval, &calls, NULL, &r, err, sizeof err), 0);
	assert_true(r.answer >= 0);
	assert_true(r.cand[r.answer].bound[0] <= 100);
	int strict = 0;
	for (size_t i = 0; i < r.ncand; i++) {
		const struct plan_cand *c = &r.cand[i];
		assert_int_equal(c->feasible, c->bound[0] <= 100);
		strict |= c->mean[0] <= 100 && c->bound[0] > 100;
	}
	assert_true(strict);   /* the table has a cell the mean alone would have taken */
	plan_result_fini(&r);
	plan_spec_fini(&s);
}

/* The cheapest feasible cell by brute force over the table. */
static void brute(const struct plan_spec *s, long *best)
{
	double bc = INFINITY;
	for (long a = 1; a <= 4; a++)
		for (long b = 1; b <= 4; b++) {
			long x[2] = { a, b };
			double c = plan_capex(s, x) + s->energy_price_per_kwh * 10.0 * (double)(a + b);
			if (fake_wait[a - 1][b - 1] <= 100 && c < bc) {
				bc = c;
				best[0] = a;
				best[1] = b;
			}
		}
}

static void test_greedy_matches_brute_force(void **state)
{
	(void)state;
	/* Several price ratios move the optimum around the table. */
	const double price[][2] = { { 100, 30 }, { 30, 100 }, { 100, 100 }, { 10, 200 },
		{ 200, 10 }, { 100, 60 } };
	for (size_t p = 0; p < sizeof price / sizeof price[0]; p++) {
		struct plan_spec s;
		fake_spec(&s, price[p][0], price[p][1]);
		long want[2] = { 0, 0 };
		brute(&s, want);
		struct plan_result g, e;
		char err[256];
		int cg = 0, ce = 0;
		assert_int_equal(plan_search(&s, 0, fake_eval, &cg, NULL, &g, err, sizeof err), 0);
		assert_int_equal(plan_search(&s, 1, fake_eval, &ce, NULL, &e, err, sizeof err), 0);
		assert_true(g.answer >= 0 && e.answer >= 0);
		assert_int_equal(e.cand[e.answer].x[0], want[0]);
		assert_int_equal(e.cand[e.answer].x[1], want[1]);
		/* The same cost (several cells may tie, e.g. 4,2 / 3,3 / 2,4 at equal prices). */
		if (fabs(g.cand[g.answer].cost - e.cand[e.answer].cost) > 1e-9)
			fail_msg("prices %g/%g: greedy %ld,%ld, brute force %ld,%ld", price[p][0],
			         price[p][1], g.cand[g.answer].x[0], g.cand[g.answer].x[1], want[0], want[1]);
		assert_true(cg < 16);            /* fewer evaluations than the box */
		assert_int_equal((size_t)cg, g.ncand);   /* each candidate evaluated once */
		assert_true(g.cand[g.answer].feasible);
		assert_int_equal(g.cand[g.answer].confident, g.cand[g.answer].bound[0] <= 100);
		char *buf;
		size_t len;
		FILE *f = open_memstream(&buf, &len);
		assert_int_equal(plan_print(&s, &g, 0, f), 0);
		fclose(f);
		assert_true(strstr(buf, "<- answer") && strstr(buf, "confident"));
		free(buf);
		plan_result_fini(&g);
		plan_result_fini(&e);
		plan_spec_fini(&s);
	}
}

static void test_infeasible(void **state)
{
	(void)state;
	struct plan_spec s;
	fake_spec(&s, 1, 1);
	s.target[0].bound = 5;   /* nothing in the table reaches it */
	struct plan_result r;
	char err[256];
	int calls = 0;
	assert_int_equal(plan_search(&s, 0, fake_eval, &calls, NULL, &r, err, sizeof err), 0);
	assert_int_equal(r.answer, -1);
	/* The climb ends at the corner with every variable at its max. */
	assert_int_equal(r.cand[r.ncand - 1].x[0] + r.cand[r.ncand - 1].x[1] >= 7, 1);
	plan_result_fini(&r);
	plan_spec_fini(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_ok),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_count_one_keeps_rack_names),
		cmocka_unit_test(test_worked_example_loads),
		cmocka_unit_test(test_cost),
		cmocka_unit_test(test_bound_cut),
		cmocka_unit_test(test_run_cost_terms),
		cmocka_unit_test(test_owned),
		cmocka_unit_test(test_print_units),
		cmocka_unit_test(test_tco),
		cmocka_unit_test(test_confident),
		cmocka_unit_test(test_greedy_matches_brute_force),
		cmocka_unit_test(test_infeasible),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
