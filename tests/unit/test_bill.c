/* bill and billcfg: invoices from a results file built by hand, whose
 * figures are worked out in the comments, and the scenario's "billing"
 * block refused with JSON-path errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>

#include "analysis/bill.h"
#include "analysis/recorder.h"
#include "config/billcfg.h"
#include "config/scenario.h"
#include "tests/testutil.h"

#define EPS 1e-9
/* This cmocka has no assert_double_equal. */
#define assert_near(a, b, eps)                                                            \
	do {                                                                              \
		double a_ = (a), b_ = (b);                                                \
		if (!(fabs(a_ - b_) <= (eps)))                                            \
			fail_msg("%s = %.12g, expected %.12g", #a, a_, b_);              \
	} while (0)

static void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
}

/* Day billing; t0 reserved 100/day, overage elastic; t1 reserved 500/day,
 * overage refused; t2 elastic; t4 reserved 10/day, overage elastic; t3
 * has no plan (elastic). The org named t0 "alpha" with projects p-a, p-b. */
static const char cfg_text[] =
	"{\"currency\": \"CNY\", \"period\": \"day\","
	" \"prices\": {\"gpu_hour\": {\"H100-SXM-80GB\": 18, \"A100-SXM-80GB\": 9},"
	"  \"mig_hour\": {\"1g.10gb\": 1.5}, \"share\": 1.0, \"core_hour\": 0.05,"
	"  \"mem_gib_hour\": 0.002, \"energy\": \"pass-through\"},"
	" \"plans\": [{\"tenant\": \"alpha\", \"tenant_index\": 0, \"plan\": \"reserved\","
	"   \"commit\": \"monthly\", \"baseline\": 100, \"overage\": \"elastic\"},"
	"  {\"tenant\": \"t1\", \"tenant_index\": 1, \"plan\": \"reserved\", \"commit\": \"yearly\","
	"   \"baseline\": 500, \"overage\": \"refuse\"},"
	"  {\"tenant\": \"t2\", \"tenant_index\": 2, \"plan\": \"elastic\"},"
	"  {\"tenant\": \"t4\", \"tenant_index\": 4, \"plan\": \"reserved\", \"baseline\": 10}],"
	" \"tenants\": [{\"name\": \"alpha\", \"projects\": [\"p-a\", \"p-b\"]}]}";

/* Jobs (times in s; a day is 86400 s):
 *  1 t0 grp 1  H100 x2 whole  [0, 3600]   gpu_s 7200, 8 cores (core_s 28800),
 *              10 GiB, 1 kWh costing 0.7:  gpu 2 GPU-h x 18 = 36, cores 8 core-h
 *              x 0.05 = 0.4, memory 10 GiB-h x 0.002 = 0.02, energy 0.7: 37.12
 *  2 t0        A100 MIG 1g.10gb [3600, 10800]  gpu_s 7200/7: 2 instance-h x 1.5 = 3
 *  3 t0        A100 MIG 3g.40gb [0, 3600]  gpu_s 3600 x 3/7, no MIG price:
 *              9 x 3/7 per instance-h = 27/7 = 3.857142857
 *  4 t0        H100 share 250m [0, 14400]  gpu_s 3600: 4 share-h, 1 GPU-h x 18 = 18
 *  5 t0        CPU, 10 cores [82800, 93600] (23 h to 26 h) core_s 108000: 30 core-h
 *              x 0.05 = 1.5, cut at the day: 1/3 (0.5) in day 1, 2/3 (1.0) in day 2
 *  6 t1        H100 x8 [0, 14400]  gpu_s 115200: 32 GPU-h x 18 = 576
 *  7 t2        A100 x1 [0, 36000]  gpu_s 36000: 10 x 9 = 90, 2 kWh costing 1.3: 91.3
 *  8 t3        H100 x1 started at 0, no end (running at the horizon): not billed
 *  9 t3        killed while pending: nothing
 * 10 t4        H100 x1 [0, 3600]: 18
 * The run covers 93600 s: two days.
 * Invoices:
 *  alpha day 1  usage 37.12 + 3 + 27/7 + 18 + 0.5 = 62.477142857, top-up
 *               37.522857143, total 100
 *  alpha day 2  usage 1.0, top-up 99, total 100
 *  t1 day 1     usage 576 > 500: 76 refused, total 500
 *  t1 day 2     no usage: top-up 500, total 500
 *  t2 day 1     91.3
 *  t4 day 1     usage 18: overage 8, total 18
 *  t4 day 2     top-up 10, total 10
 * Σ invoices 1319.3 = Σ records 748.777142857 + top-ups 646.522857143 − refused 76. */
static char *make_db(bool with_billing)
{
	char *path = tu_tmpath(".db");
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	exec(db, "CREATE TABLE meta(key TEXT, value TEXT);"
	         "INSERT INTO meta VALUES ('schema_version', '1');"
	         "CREATE TABLE job(id INTEGER PRIMARY KEY, class TEXT, tenant INTEGER, grp INTEGER,"
	         " state TEXT, submit_us INTEGER, start_us INTEGER, end_us INTEGER, cores INTEGER,"
	         " gpus INTEGER, mem_mib INTEGER, gpu_model TEXT, gpu_share TEXT, gpu_s REAL,"
	         " core_s REAL, energy_j REAL, energy_cost REAL);"
	         "INSERT INTO job VALUES"
	         " (1, 'training', 0, 1, 'done', 0, 0, 3600000000, 8, 2, 10240, 'H100-SXM-80GB', NULL,"
	         "  7200, 28800, 3.6e6, 0.7),"
	         " (2, 'inference', 0, 0, 'done', 0, 3600000000, 10800000000, 0, 1, 0, 'A100-SXM-80GB',"
	         "  '1g.10gb', 7200.0 / 7, 0, NULL, NULL),"
	         " (3, 'inference', 0, 0, 'done', 0, 0, 3600000000, 0, 1, 0, 'A100-SXM-80GB',"
	         "  '3g.40gb', 3600.0 * 3 / 7, 0, NULL, NULL),"
	         " (4, 'dev', 0, 0, 'done', 0, 0, 14400000000, 0, 1, 0, 'H100-SXM-80GB', '250m',"
	         "  3600, 0, NULL, NULL),"
	         " (5, 'batch', 0, 0, 'done', 0, 82800000000, 93600000000, 10, 0, 0, NULL, NULL,"
	         "  0, 108000, NULL, NULL),"
	         " (6, 'training', 1, 0, 'done', 0, 0, 14400000000, 0, 8, 0, 'H100-SXM-80GB', NULL,"
	         "  115200, 0, NULL, NULL),"
	         " (7, 'training', 2, 0, 'done', 0, 0, 36000000000, 0, 1, 0, 'A100-SXM-80GB', NULL,"
	         "  36000, 0, 7.2e6, 1.3),"
	         " (8, 'training', 3, 0, 'running', 0, 0, NULL, 0, 1, 0, 'H100-SXM-80GB', NULL,"
	         "  3600, 0, NULL, NULL),"
	         " (9, 'batch', 3, 0, 'killed', 0, NULL, 5000000, 0, 0, 0, NULL, NULL, 0, 0, NULL, NULL),"
	         " (10, 'training', 4, 0, 'done', 0, 0, 3600000000, 0, 1, 0, 'H100-SXM-80GB', NULL,"
	         "  3600, 0, NULL, NULL);");
	if (with_billing) {
		sqlite3_stmt *st;
		exec(db, "CREATE TABLE billing(config TEXT)");
		assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO billing VALUES(?)", -1, &st, NULL), SQLITE_OK);
		sqlite3_bind_text(st, 1, cfg_text, -1, SQLITE_STATIC);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return path;
}

static void parse(const char *text, struct bill_config *c)
{
	char err[1024];
	if (bill_config_parse(text, "test", c, err, sizeof err))
		fail_msg("%s", err);
}

static void compute(struct bill *b, const char *db, const struct bill_config *c, enum bill_period p)
{
	char err[1024];
	if (bill_compute(b, db, c, p, false, err, sizeof err))
		fail_msg("%s", err);
}

static const struct bill_invoice *invoice(const struct bill *b, int64_t tenant, int64_t period)
{
	for (size_t i = 0; i < b->ninv; i++)
		if (b->inv[i].tenant == tenant && b->inv[i].period == period)
			return &b->inv[i];
	return NULL;
}

static const struct bill_line *line(const struct bill_invoice *in, const char *item)
{
	for (int32_t i = 0; in && i < in->nlines; i++)
		if (strcmp(in->lines[i].item, item) == 0)
			return &in->lines[i];
	fail_msg("no line \"%s\"", item);
	return NULL;
}

static const struct bill_record *record(const struct bill *b, int64_t job)
{
	for (size_t i = 0; i < b->nrec; i++)
		if (b->rec[i].job == job)
			return &b->rec[i];
	return NULL;
}

static void test_records(void **state)
{
	(void)state;
	char *db = make_db(true), *text = NULL, err[1024];
	assert_int_equal(bill_read_config(db, &text, err, sizeof err), 1);
	assert_string_equal(text, cfg_text);
	struct bill_config c;
	struct bill b;
	parse(text, &c);
	compute(&b, db, &c, c.period);
	assert_int_equal(b.nrec, 8);                 /* 8 not billed, 9 never ran */
	assert_int_equal(b.unbilled, 1);
	assert_null(record(&b, 8));
	assert_null(record(&b, 9));
	const struct bill_record *r = record(&b, 1);
	assert_int_equal(r->kind, BILL_GPU_WHOLE);
	assert_near(r->gpus, 2, EPS);
	assert_near(r->gpu_hours, 2, EPS);
	assert_near(r->gpu_charge, 36, EPS);
	assert_near(r->core_hours, 8, EPS);
	assert_near(r->mem_gib_hours, 10, EPS);
	assert_near(r->energy_kwh, 1, EPS);
	assert_near(r->charge, 37.12, EPS);
	assert_int_equal(r->project, 1);
	r = record(&b, 2);                           /* MIG with its own price */
	assert_int_equal(r->kind, BILL_GPU_MIG);
	assert_near(r->unit_hours, 2, EPS);
	assert_near(r->gpu_rate, 1.5, EPS);
	assert_near(r->charge, 3, EPS);
	r = record(&b, 3);                           /* MIG priced from its card */
	assert_near(r->unit_hours, 1, EPS);
	assert_near(r->gpu_rate, 27.0 / 7, EPS);
	assert_near(r->charge, 27.0 / 7, EPS);
	r = record(&b, 4);                           /* a quarter of an H100 for 4 h */
	assert_int_equal(r->kind, BILL_GPU_SHARE);
	assert_near(r->gpus, 0.25, EPS);
	assert_near(r->unit_hours, 4, EPS);
	assert_near(r->gpu_hours, 1, EPS);
	assert_near(r->charge, 18, EPS);
	r = record(&b, 5);
	assert_int_equal(r->kind, BILL_GPU_NONE);
	assert_near(r->charge, 1.5, EPS);
	assert_near(record(&b, 6)->charge, 576, EPS);
	assert_near(record(&b, 7)->charge, 91.3, EPS);
	assert_near(b.sum_records, 748.777142857142857, 1e-6);
	bill_fini(&b);
	bill_config_fini(&c);
	free(text);
	unlink(db);
	free(db);
}

/* A MIG instance's share of its card is the catalog's: its profile's
 * compute slices over the card's, from the stored MIG table (the
 * scenario's cards), else the built-in catalog's (every card of it has 7);
 * a profile the table lacks is refused by job; a bad table by its path. */
static void with_mig(char *out, size_t len, const char *table)
{
	size_t n = strlen(cfg_text);
	snprintf(out, len, "%.*s, \"mig_slices\": %s}", (int)(n - 1), cfg_text, table);
}

static void test_mig_slices(void **state)
{
	(void)state;
	char *db = make_db(false), text[4096], err[1024];
	struct bill_config c;
	struct bill b;
	parse(cfg_text, &c);
	assert_true(c.nmig_slices >= 10);
	compute(&b, db, &c, c.period);
	assert_near(record(&b, 2)->gpus, 1.0 / 7, EPS);
	assert_near(record(&b, 3)->gpus, 3.0 / 7, EPS);
	bill_fini(&b);
	bill_config_fini(&c);
	/* A card of 4 compute slices (as an A30's geometry is). */
	with_mig(text, sizeof text, "{\"A100-SXM-80GB\": 4, \"A100-SXM-80GB/1g.10gb\": 1,"
	                            " \"A100-SXM-80GB/3g.40gb\": 2}");
	parse(text, &c);
	assert_int_equal(c.nmig_slices, 3);
	compute(&b, db, &c, c.period);
	assert_near(record(&b, 2)->gpus, 0.25, EPS);
	assert_near(record(&b, 3)->gpus, 0.5, EPS);
	bill_fini(&b);
	bill_config_fini(&c);
	with_mig(text, sizeof text, "{\"A100-SXM-80GB\": 7, \"A100-SXM-80GB/1g.10gb\": 1}");
	parse(text, &c);
	assert_int_equal(bill_compute(&b, db, &c, c.period, false, err, sizeof err), -1);
	assert_non_null(strstr(err, "job 3 ran MIG instance \"3g.40gb\" on GPU model \"A100-SXM-80GB\", "
	                            "which the catalog's MIG table"));
	bill_fini(&b);
	bill_config_fini(&c);
	with_mig(text, sizeof text, "{\"A100-SXM-80GB\": 0}");
	assert_int_equal(bill_config_parse(text, "t", &c, err, sizeof err), -1);
	assert_non_null(strstr(err, "$.mig_slices.A100-SXM-80GB: expected a whole number of compute slices in [1, 8]"));
	bill_config_fini(&c);
	unlink(db);
	free(db);
}

static void test_invoices(void **state)
{
	(void)state;
	char *db = make_db(true);
	struct bill_config c;
	struct bill b;
	parse(cfg_text, &c);
	compute(&b, db, &c, BILL_DAY);
	assert_int_equal(b.ninv, 7);
	/* Reserved, usage below the baseline: topped up to it. */
	const struct bill_invoice *in = invoice(&b, 0, 1);
	assert_non_null(in);
	assert_int_equal(in->start_us, 0);
	assert_int_equal(in->end_us, INT64_C(86400000000));
	assert_near(in->usage, 62.477142857142857, 1e-9);
	assert_near(in->baseline, 100, EPS);
	assert_near(in->topup, 37.522857142857143, 1e-9);
	assert_near(in->total, 100, EPS);
	assert_near(line(in, "gpu H100-SXM-80GB")->amount, 36, EPS);
	assert_near(line(in, "mig 1g.10gb on A100-SXM-80GB")->qty, 2, EPS);
	assert_near(line(in, "mig 3g.40gb on A100-SXM-80GB")->amount, 27.0 / 7, EPS);
	assert_near(line(in, "shares on H100-SXM-80GB")->qty, 1, EPS);
	assert_near(line(in, "shares on H100-SXM-80GB")->rate, 18, EPS);
	assert_near(line(in, "energy (pass-through)")->rate, 0.7, EPS);
	/* Job 5 cut at the day: 8 + 10 core-h in day 1, 20 in day 2. */
	assert_near(line(in, "cores")->qty, 18, EPS);
	in = invoice(&b, 0, 2);
	assert_near(line(in, "cores")->qty, 20, EPS);
	assert_near(in->usage, 1, EPS);
	assert_near(in->topup, 99, EPS);
	assert_near(in->total, 100, EPS);
	/* Overage refused: shown, not charged. */
	in = invoice(&b, 1, 1);
	assert_near(in->usage, 576, EPS);
	assert_near(in->refused, 76, EPS);
	assert_near(in->overage, 0, EPS);
	assert_near(in->total, 500, EPS);
	in = invoice(&b, 1, 2);                      /* a commitment is due without usage */
	assert_int_equal(in->nlines, 0);
	assert_near(in->total, 500, EPS);
	/* Elastic: the usage. */
	in = invoice(&b, 2, 1);
	assert_int_equal(in->plan->kind, BILL_PLAN_ELASTIC);
	assert_near(in->total, 91.3, EPS);
	assert_null(invoice(&b, 2, 2));              /* no usage, no invoice */
	/* Reserved, usage above the baseline, overage elastic. */
	in = invoice(&b, 4, 1);
	assert_near(in->overage, 8, EPS);
	assert_near(in->total, 18, EPS);
	assert_near(invoice(&b, 4, 2)->total, 10, EPS);
	assert_null(invoice(&b, 3, 1));              /* t3: nothing billed */
	/* Invoices in tenant then period order. */
	for (size_t i = 1; i < b.ninv; i++)
		assert_true(b.inv[i - 1].tenant < b.inv[i].tenant ||
		            (b.inv[i - 1].tenant == b.inv[i].tenant && b.inv[i - 1].period < b.inv[i].period));
	/* The reconciliation. */
	assert_near(b.sum_invoices, 1319.3, 1e-9);
	assert_near(b.sum_topup, 646.522857142857143, 1e-9);
	assert_near(b.sum_refused, 76, EPS);
	assert_true(bill_reconciles(&b));
	b.sum_invoices += 0.004;                     /* under half a cent: still reconciles */
	assert_true(bill_reconciles(&b));
	b.sum_invoices += 0.006;                     /* a cent off: does not */
	assert_false(bill_reconciles(&b));
	bill_fini(&b);
	bill_config_fini(&c);
	unlink(db);
	free(db);
}

/* Billed by the week, the day baselines are × 7: alpha 700 against usage
 * 63.477142857 (one invoice: job 5 is not cut), t1 3500 against 576, t4
 * 70 against 18, t2 91.3. Σ 4361.3 = 748.777142857 + top-ups
 * (636.522857143 + 2924 + 52) − 0. */
static void test_week(void **state)
{
	(void)state;
	char *db = make_db(true);
	struct bill_config c;
	struct bill b;
	parse(cfg_text, &c);
	compute(&b, db, &c, BILL_WEEK);
	assert_int_equal(b.ninv, 4);
	const struct bill_invoice *in = invoice(&b, 0, 1);
	assert_near(in->usage, 63.477142857142857, 1e-9);
	assert_near(in->baseline, 700, EPS);
	assert_near(line(in, "cores")->qty, 38, EPS);
	assert_near(invoice(&b, 1, 1)->total, 3500, EPS);
	assert_near(invoice(&b, 1, 1)->refused, 0, EPS);
	assert_near(b.sum_invoices, 4361.3, 1e-9);
	assert_near(b.sum_topup, 3612.522857142857143, 1e-9);
	assert_true(bill_reconciles(&b));
	bill_fini(&b);
	bill_config_fini(&c);
	unlink(db);
	free(db);
}

/* Weights and energy included: job 1 is 2 GPU-h x 18 x 2 = 72, 8 core-h x
 * 0.05 x 3 = 1.2, 10 GiB-h x 0.002 x 10 = 0.2, no energy: 73.4; job 7 on
 * an A100 (its own weight 0.5) 10 x 9 x 0.5 = 45; job 2's MIG price 1.5 x
 * 0.5 = 0.75 per instance-h: 1.5. */
static void test_weights(void **state)
{
	(void)state;
	char *db = make_db(false);
	struct bill_config c;
	struct bill b;
	parse("{\"period\": \"month\", \"prices\": {\"gpu_hour\": {\"H100-SXM-80GB\": 18, \"*\": 9},"
	      " \"mig_hour\": {\"1g.10gb\": 1.5}, \"core_hour\": 0.05, \"mem_gib_hour\": 0.002,"
	      " \"energy\": \"included\"},"
	      " \"weights\": {\"gpu\": 2, \"gpu:A100-SXM-80GB\": 0.5, \"core\": 3, \"mem\": 10}}", &c);
	compute(&b, db, &c, c.period);
	assert_near(record(&b, 1)->charge, 73.4, EPS);
	assert_near(record(&b, 1)->energy_charge, 0, EPS);
	assert_near(record(&b, 7)->charge, 45, EPS);
	assert_near(record(&b, 2)->charge, 1.5, EPS);
	const struct bill_invoice *in = invoice(&b, 0, 1);
	assert_near(line(in, "energy (included)")->qty, 1, EPS);
	assert_near(line(in, "energy (included)")->amount, 0, EPS);
	assert_int_equal(b.ninv, 4);                 /* one month, tenants 0, 1, 2, 4; no plans */
	assert_true(bill_reconciles(&b));
	bill_fini(&b);
	bill_config_fini(&c);
	unlink(db);
	free(db);
}

/* A file without a billing table: no text, the default list prices it. */
static void test_default_prices(void **state)
{
	(void)state;
	char *db = make_db(false), *text = NULL, err[1024];
	assert_int_equal(bill_read_config(db, &text, err, sizeof err), 0);
	assert_null(text);
	struct bill_config c;
	struct bill b;
	parse(bill_default_config_text(), &c);
	assert_int_equal(c.period, BILL_MONTH);
	assert_string_equal(c.currency, "CNY");
	if (bill_compute(&b, db, &c, c.period, true, err, sizeof err))
		fail_msg("%s", err);
	assert_true(b.default_prices);
	/* Job 6: 32 H100-hours at the default 18.0. */
	assert_near(record(&b, 6)->gpu_charge, 576, EPS);
	assert_true(bill_reconciles(&b));
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_int_equal(bill_print(&b, BILL_TEXT, false, f), 0);
	fclose(f);
	assert_non_null(strstr(out, "default price list"));
	assert_non_null(strstr(out, ": reconciles"));
	free(out);
	bill_fini(&b);
	bill_config_fini(&c);
	unlink(db);
	free(db);
}

/* A GPU model without a price and no "*": refused, naming the job. */
static void test_missing_price(void **state)
{
	(void)state;
	char *db = make_db(false), err[1024] = "";
	struct bill_config c;
	struct bill b;
	parse("{\"prices\": {\"gpu_hour\": {\"H100-SXM-80GB\": 18}}}", &c);
	assert_int_equal(bill_compute(&b, db, &c, c.period, false, err, sizeof err), -1);
	assert_non_null(strstr(err, "job 2 ran on GPU model \"A100-SXM-80GB\", which has no price"));
	bill_fini(&b);
	bill_config_fini(&c);
	unlink(db);
	free(db);
}

static void test_outputs(void **state)
{
	(void)state;
	char *db = make_db(true);
	struct bill_config c;
	struct bill b;
	parse(cfg_text, &c);
	compute(&b, db, &c, BILL_DAY);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_int_equal(bill_print(&b, BILL_JSON, false, f), 0);
	fclose(f);
	json_error_t je;
	json_t *root = json_loads(out, 0, &je);
	assert_non_null(root);
	json_t *inv = json_object_get(root, "invoices");
	assert_int_equal(json_array_size(inv), 7);
	json_t *first = json_array_get(inv, 0);
	assert_string_equal(json_string_value(json_object_get(first, "tenant")), "alpha");
	assert_near(json_real_value(json_object_get(first, "total")), 100, EPS);
	assert_true(json_is_true(json_object_get(json_object_get(root, "reconciliation"), "reconciles")));
	json_decref(root);
	free(out);
	f = open_memstream(&out, &len);
	assert_int_equal(bill_print(&b, BILL_CSV, false, f), 0);
	fclose(f);
	assert_non_null(strstr(out, "t1,1,1,0,86400,\"reserved (yearly commitment, overage refused)\","
	                            "refused,overage refused (not charged),0,,0,76\n"));
	free(out);
	f = open_memstream(&out, &len);
	assert_int_equal(bill_print(&b, BILL_TEXT, true, f), 0);
	fclose(f);
	assert_non_null(strstr(out, "alpha"));
	assert_non_null(strstr(out, "p-b"));        /* job 1's project, by name */
	free(out);
	bill_fini(&b);
	bill_config_fini(&c);
	unlink(db);
	free(db);
}

/* recorder_set_billing stores the text as the one row of `billing`, which
 * bill_read_config reads back; NULL stores nothing. */
static void test_recorder(void **state)
{
	(void)state;
	char err[1024], *text = NULL;
	for (int with = 0; with < 2; with++) {
		char *path = tu_tmpath(".db");
		struct recorder *r = recorder_open(path, err, sizeof err);
		if (!r)
			fail_msg("%s", err);
		assert_int_equal(recorder_set_billing(r, with ? "{\"old\": 1}" : NULL), 0);
		assert_int_equal(recorder_set_billing(r, with ? cfg_text : NULL), 0);   /* replaces */
		struct run_info ri = { .scenario = "t", .policy = "fcfs" };
		if (recorder_finish(r, &ri, 0, 0, 0, err, sizeof err))
			fail_msg("%s", err);
		assert_int_equal(bill_read_config(path, &text, err, sizeof err), with);
		if (with)
			assert_string_equal(text, cfg_text);
		else
			assert_null(text);
		free(text);
		text = NULL;
		unlink(path);
		free(path);
	}
}

/* ---- the scenario's block ------------------------------------------------ */

/* The default scenario (tenants t0..t9, GPUs H100, A100, L40S, RTX4090)
 * with `billing` as its "billing" block, loaded; err gets the message. */
static int load_scn(const char *billing, struct scenario *sc, char *err, size_t len)
{
	json_error_t je;
	json_t *root = json_loads(scenario_default_text(), 0, &je);
	json_t *b = json_loads(billing, JSON_REJECT_DUPLICATES, &je);
	if (!root || !b)
		fail_msg("test JSON does not parse: %s", je.text);
	json_object_set_new(root, "billing", b);
	char *text = json_dumps(root, JSON_PRESERVE_ORDER);
	json_decref(root);
	char *path = tu_write_tmp(".json", text);
	free(text);
	err[0] = '\0';
	int rc = scenario_load(path, sc, err, len);
	unlink(path);
	free(path);
	return rc;
}

#define GOOD_PRICES "\"prices\": {\"gpu_hour\": {\"H100-SXM-80GB\": 18, \"*\": 5}}"

static void test_load_good(void **state)
{
	(void)state;
	struct scenario sc;
	char err[1024];
	if (load_scn("{\"currency\": \"EUR\", \"period\": \"week\","
	             " \"prices\": {\"gpu_hour\": {\"H100-SXM-80GB\": 18.0, \"A100-SXM-80GB\": 9.0,"
	             "  \"L40S-48GB\": 6, \"RTX4090-24GB\": 3}, \"mig_hour\": {\"1g.10gb\": 1.5},"
	             "  \"share\": 1.2, \"core_hour\": 0.05, \"mem_gib_hour\": 0.002,"
	             "  \"storage_gib_month\": 0.1, \"bandwidth_gbps_month\": 50, \"energy\": \"included\"},"
	             " \"weights\": {\"gpu:H100-SXM-80GB\": 1.5, \"core\": 2},"
	             " \"plans\": [{\"tenant\": \"t3\", \"plan\": \"reserved\", \"commit\": \"yearly\","
	             "   \"baseline\": 50000, \"overage\": \"refuse\"},"
	             "  {\"tenant\": \"t12\", \"plan\": \"elastic\"}]}", &sc, err, sizeof err))
		fail_msg("%s", err);
	assert_non_null(sc.billing_json);
	/* The stored text reads back as what the block said. */
	struct bill_config c;
	parse(sc.billing_json, &c);
	assert_string_equal(c.currency, "EUR");
	assert_int_equal(c.period, BILL_WEEK);
	assert_int_equal(c.ngpu_hour, 4);
	assert_near(c.share, 1.2, EPS);
	assert_int_equal(c.energy, BILL_ENERGY_INCLUDED);
	assert_near(c.w_core, 2, EPS);
	assert_near(c.w_gpu, 1, EPS);
	assert_int_equal(c.nw_model, 1);
	assert_near(c.w_model[0].value, 1.5, EPS);
	assert_int_equal(c.nplans, 2);
	assert_int_equal(c.plans[0].tenant_index, 3);
	assert_int_equal(c.plans[0].kind, BILL_PLAN_RESERVED);
	assert_int_equal(c.plans[0].commit, BILL_COMMIT_YEARLY);
	assert_int_equal(c.plans[0].overage, BILL_OVERAGE_REFUSE);
	assert_near(c.plans[0].baseline, 50000, EPS);
	assert_int_equal(c.plans[1].tenant_index, 12);   /* beyond the org's ten */
	assert_int_equal(c.ntenants, 10);
	assert_string_equal(c.tenant[9].name, "t9");
	bill_config_fini(&c);
	scenario_free(&sc);
	/* The default scenario carries a block: its text is kept. */
	assert_int_equal(scenario_load(NULL, &sc, err, sizeof err), 0);
	assert_non_null(sc.billing_json);
	assert_non_null(strstr(sc.billing_json, "\"reserved\""));
	scenario_free(&sc);
}

static void test_load_errors(void **state)
{
	(void)state;
	static const struct {
		const char *billing, *want;
	} cases[] = {
		{ "[]", "$.billing: expected an object" },
		{ "{\"period\": \"month\"}", "$.billing.prices: missing" },
		{ "{\"period\": \"year\", " GOOD_PRICES "}",
		  "$.billing.period: expected \"day\" or \"week\" or \"month\", got \"year\"" },
		{ "{\"cost\": 1, " GOOD_PRICES "}", "$.billing: unknown key \"cost\"" },
		{ "{\"currency\": \"\", " GOOD_PRICES "}", "$.billing.currency: expected a non-empty string" },
		{ "{\"prices\": {\"gpu_hour\": {\"H100-XYZ\": 1, \"*\": 5}}}",
		  "$.billing.prices.gpu_hour.H100-XYZ: unknown GPU model \"H100-XYZ\" (the catalog has: H100-SXM-80GB" },
		{ "{\"prices\": {\"gpu_hour\": {\"H100-SXM-80GB\": -1, \"*\": 5}}}",
		  "$.billing.prices.gpu_hour.H100-SXM-80GB: expected a price per hour in [0, 1e+09], got -1" },
		{ "{\"prices\": {\"gpu_hour\": {\"H100-SXM-80GB\": 18, \"A100-SXM-80GB\": 9, \"L40S-48GB\": 6}}}",
		  "$.billing.prices.gpu_hour: no price for \"RTX4090-24GB\", the GPU of node type \"rtx4090-8x\"" },
		{ "{\"prices\": {\"gpu_hour\": {\"*\": 5}, \"mig_hour\": {\"9g.10gb\": 1}}}",
		  "$.billing.prices.mig_hour.9g.10gb: expected a MIG profile name" },
		{ "{\"prices\": {\"gpu_hour\": {\"*\": 5}, \"energy\": \"free\"}}",
		  "$.billing.prices.energy: expected \"pass-through\" or \"included\", got \"free\"" },
		{ "{\"prices\": {\"gpu_hour\": {\"*\": 5}, \"core_hour\": \"cheap\"}}",
		  "$.billing.prices.core_hour: expected a number in [0, 1e+09], got a string" },
		{ "{" GOOD_PRICES ", \"weights\": {\"cpu\": 1}}",
		  "$.billing.weights.cpu: unknown weight (expected gpu, gpu:MODEL, core, mem, storage or bandwidth)" },
		{ "{" GOOD_PRICES ", \"weights\": {\"gpu:B200\": 1}}",
		  "$.billing.weights.gpu:B200: unknown GPU model \"B200\"" },
		{ "{" GOOD_PRICES ", \"plans\": {}}", "$.billing.plans: expected an array" },
		{ "{" GOOD_PRICES ", \"plans\": [{\"tenant\": \"t0\"}]}",
		  "$.billing.plans[0].plan: missing (expected \"reserved\" or \"elastic\")" },
		{ "{" GOOD_PRICES ", \"plans\": [{\"tenant\": \"t0\", \"plan\": \"reserved\"}]}",
		  "$.billing.plans[0].baseline: missing (a reserved plan needs its baseline" },
		{ "{" GOOD_PRICES ", \"plans\": [{\"tenant\": \"t0\", \"plan\": \"elastic\", \"commit\": \"yearly\"}]}",
		  "$.billing.plans[0].commit: only a reserved plan has a commit" },
		{ "{" GOOD_PRICES ", \"plans\": [{\"tenant\": \"t0\", \"plan\": \"reserved\", \"baseline\": 1,"
		  " \"commit\": \"weekly\"}]}",
		  "$.billing.plans[0].commit: expected \"monthly\" or \"yearly\", got \"weekly\"" },
		{ "{" GOOD_PRICES ", \"plans\": [{\"tenant\": \"t0\", \"plan\": \"reserved\", \"baseline\": 1,"
		  " \"overage\": \"cap\"}]}",
		  "$.billing.plans[0].overage: expected \"elastic\" or \"refuse\", got \"cap\"" },
		{ "{" GOOD_PRICES ", \"plans\": [{\"tenant\": \"t0\", \"plan\": \"elastic\"},"
		  " {\"tenant\": \"zz\", \"plan\": \"elastic\"}]}",
		  "$.billing.plans[1].tenant: unknown tenant \"zz\" ($.org.tenants has: t0, t1," },
		{ "{" GOOD_PRICES ", \"plans\": [{\"tenant\": \"t0\", \"plan\": \"elastic\"},"
		  " {\"tenant\": \"t0\", \"plan\": \"elastic\"}]}",
		  "$.billing.plans[1]: tenant \"t0\" has two plans (also at index 0)" },
		{ "{" GOOD_PRICES ", \"plans\": [{\"tenant\": \"t1\", \"tenant_index\": 1, \"plan\": \"elastic\"}]}",
		  "$.billing.plans[0]: unknown key \"tenant_index\"" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct scenario sc;
		char err[1024];
		if (load_scn(cases[i].billing, &sc, err, sizeof err) == 0)
			fail_msg("case %zu loaded: %s", i, cases[i].billing);
		if (!strstr(err, cases[i].want))
			fail_msg("case %zu: got \"%s\", want \"%s\"", i, err, cases[i].want);
	}
}

/* The stored text's own errors name where it came from. */
static void test_parse_errors(void **state)
{
	(void)state;
	struct bill_config c;
	char err[1024];
	assert_int_equal(bill_config_parse("{\"prices\": {}, \"plans\": [{\"tenant\": \"t0\", \"plan\": \"elastic\"}]}",
	                                   "run.db: table billing", &c, err, sizeof err), -1);
	assert_string_equal(err, "run.db: table billing: $.plans[0].tenant_index: missing "
	                         "(expected an integer in [-1, 2147483647])");
	assert_int_equal(c.nplans, 0);
	assert_null(c.plans);
	bill_config_fini(&c);
	assert_int_equal(bill_config_parse("{nope", "run.db: table billing", &c, err, sizeof err), -1);
	assert_non_null(strstr(err, "run.db: table billing:1:"));
	bill_config_fini(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_invoices),
		cmocka_unit_test(test_mig_slices),
		cmocka_unit_test(test_week),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_default_prices),
		cmocka_unit_test(test_missing_price),
		cmocka_unit_test(test_outputs),
		cmocka_unit_test(test_recorder),
		cmocka_unit_test(test_load_good),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_parse_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
