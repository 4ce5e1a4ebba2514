/* bill — usage records and invoices from a results file. See bill.h; the
 * rules are in docs/billing.md, keep the two in step. */
#include "analysis/bill.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sqlite3.h>

#include "analysis/dbutil.h"
#include "analysis/recorder.h"

/* Compute slices of a MIG card (every card of the catalog has 7): a
 * profile's share of its card is its slices / 7, as job.gpu_s counts it. */

/* The documented default price list (docs/billing.md, "Default prices"),
 * in the stored form config/billcfg.c reads. */
static const char default_text[] =
	"{\"currency\": \"CNY\", \"period\": \"month\","
	" \"prices\": {\"gpu_hour\": {\"H200-SXM-141GB\": 22.0, \"H100-SXM-80GB\": 18.0,"
	" \"H100-PCIE-80GB\": 15.0, \"H20-96GB\": 8.0, \"A800-SXM-80GB\": 9.0, \"A100-SXM-80GB\": 9.0,"
	" \"A100-PCIE-40GB\": 6.0, \"L40S-48GB\": 6.0, \"L40-48GB\": 5.0, \"RTX4090-24GB\": 3.0,"
	" \"A10-24GB\": 2.5, \"V100-SXM2-32GB\": 3.0, \"T4-16GB\": 1.0, \"P100-PCIE-16GB\": 0.8,"
	" \"*\": 5.0},"
	" \"mig_hour\": {}, \"share\": 1.0, \"core_hour\": 0.05, \"mem_gib_hour\": 0.002,"
	" \"storage_gib_month\": 0.1, \"bandwidth_gbps_month\": 50.0, \"energy\": \"pass-through\"},"
	" \"plans\": []}";

const char *bill_default_config_text(void) { return default_text; }

static const char *const period_names[] = { "day", "week", "month" };

int bill_period_parse(const char *s)
{
	for (int i = 0; i < 3; i++)
		if (strcmp(s, period_names[i]) == 0)
			return i;
	return -1;
}

const char *bill_period_name(enum bill_period p) { return period_names[p]; }

int64_t bill_period_days(enum bill_period p)
{
	return p == BILL_DAY ? 1 : p == BILL_WEEK ? 7 : 30;
}

int bill_format_parse(const char *s)
{
	if (strcmp(s, "text") == 0)
		return BILL_TEXT;
	if (strcmp(s, "json") == 0)
		return BILL_JSON;
	if (strcmp(s, "csv") == 0)
		return BILL_CSV;
	return -1;
}

void bill_config_init(struct bill_config *c)
{
	memset(c, 0, sizeof *c);
	snprintf(c->currency, sizeof c->currency, "CNY");
	c->period = BILL_MONTH;
	c->energy = BILL_ENERGY_PASS_THROUGH;
	c->share = 1;
	c->w_gpu = c->w_core = c->w_mem = c->w_storage = c->w_bandwidth = 1;
}

void bill_config_fini(struct bill_config *c)
{
	free(c->gpu_hour);
	free(c->mig_hour);
	free(c->mig_slices);
	free(c->w_model);
	free(c->plans);
	free(c->tenant);
	free(c->project);
	bill_config_init(c);
}

const char *bill_tenant_name(const struct bill_config *c, int64_t tenant, char *buf, size_t len)
{
	if (tenant >= 0 && tenant < c->ntenants)
		return c->tenant[tenant].name;
	if (tenant < 0)
		snprintf(buf, len, "(none)");
	else
		snprintf(buf, len, "t%" PRId64, tenant);
	return buf;
}

/* ---- reading the file ---------------------------------------------------- */

static int failf(char *err, size_t errlen, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int failf(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
	int n = snprintf(err, errlen, "%s: ", path);
	if (n >= 0 && (size_t)n < errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int open_ro(const char *path, sqlite3 **db, char *err, size_t errlen)
{
	int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY, NULL);
	if (rc == SQLITE_OK)
		return 0;
	failf(err, errlen, path, "cannot open: %s", *db ? sqlite3_errmsg(*db) : sqlite3_errstr(rc));
	sqlite3_close(*db);
	*db = NULL;
	return -1;
}

/* 1 when table `name` exists, 0 when not, -1 on an error. */
static int has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
	                       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}


int bill_read_config(const char *path, char **text, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	*text = NULL;
	if (open_ro(path, &db, err, errlen))
		return -1;
	int ret = -1, t = has_table(db, "billing");
	if (t < 0) {
		failf(err, errlen, path, "cannot read: %s", sqlite3_errmsg(db));
		goto out;
	}
	ret = 0;
	if (t == 0)
		goto out;
	if (sqlite3_prepare_v2(db, "SELECT config FROM billing WHERE config IS NOT NULL LIMIT 1", -1, &st,
	                       NULL) != SQLITE_OK) {
		ret = failf(err, errlen, path, "reading table billing: %s", sqlite3_errmsg(db));
		goto out;
	}
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		if (!(*text = strdup((const char *)sqlite3_column_text(st, 0))))
			ret = failf(err, errlen, path, "out of memory");
		else
			ret = 1;
	} else if (rc != SQLITE_DONE) {
		ret = failf(err, errlen, path, "reading table billing: %s", sqlite3_errmsg(db));
	}
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return ret;
}

/* The results file's tables and schema version (as hetlab report checks them). */
static int check_file(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	static const char *const tables[] = { "meta", "job", NULL };
	for (int i = 0; tables[i]; i++) {
		int t = has_table(db, tables[i]);
		if (t < 0)
			return failf(err, errlen, path, "cannot read: %s", sqlite3_errmsg(db));
		if (t == 0)
			return failf(err, errlen, path, "not a hetlab results file (no table '%s')", tables[i]);
	}
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &st,
	                       NULL) != SQLITE_OK)
		return failf(err, errlen, path, "reading meta: %s", sqlite3_errmsg(db));
	int rc = sqlite3_step(st);
	int64_t v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return failf(err, errlen, path, "no schema_version in table meta");
	if (v > RECORDER_SCHEMA_VERSION)
		return failf(err, errlen, path, "schema version %" PRId64 " is newer than this hetlab reads "
		             "(%d); use a newer hetlab", v, RECORDER_SCHEMA_VERSION);
	return 0;
}

/* ---- pricing one job ----------------------------------------------------- */

static const struct bill_rate *find_rate(const struct bill_rate *r, int32_t n, const char *name)
{
	for (int32_t i = 0; i < n; i++)
		if (strcmp(r[i].name, name) == 0)
			return &r[i];
	return NULL;
}

/* A MIG instance's share of its card: its compute slices over the card's
 * (the catalog's MIG table). -1 when the table has not both. */
static int mig_share(const struct bill_config *c, const char *card, const char *profile, double *eq)
{
	char key[2 * BILL_NAME_MAX + 2];
	snprintf(key, sizeof key, "%s/%s", card, profile);
	const struct bill_rate *k = find_rate(c->mig_slices, c->nmig_slices, card);
	const struct bill_rate *p = find_rate(c->mig_slices, c->nmig_slices, key);
	if (!k || !p || k->value <= 0)
		return -1;
	*eq = p->value / k->value;
	return 0;
}

static double gpu_weight(const struct bill_config *c, const char *model)
{
	const struct bill_rate *w = find_rate(c->w_model, c->nw_model, model);
	return w ? w->value : c->w_gpu;
}

static double col_real(sqlite3_stmt *st, int i, double dflt)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? dflt : sqlite3_column_double(st, i);
}

static int64_t col_int(sqlite3_stmt *st, int i, int64_t dflt)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? dflt : sqlite3_column_int64(st, i);
}

static void col_text(sqlite3_stmt *st, int i, char *out, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	snprintf(out, len, "%s", t ? (const char *)t : "");
}

/* The job columns read, in this order; a column the file lacks reads as
 * NULL (files from before it existed). */
static const char *const job_cols[] = { "id", "class", "tenant", "grp", "submit_us", "start_us",
	"end_us", "cores", "gpus", "mem_mib", "gpu_model", "gpu_share", "gpu_s", "core_s", "energy_j",
	"energy_cost", NULL };
enum { C_ID, C_CLASS, C_TENANT, C_GRP, C_SUBMIT, C_START, C_END, C_CORES, C_GPUS, C_MEM, C_MODEL,
	C_SHARE, C_GPU_S, C_CORE_S, C_ENERGY_J, C_ENERGY_COST };

/* Fills r from the row. 1: a record; 0: nothing to bill (never held
 * anything); 2: held resources but has no end (not billed); -1: a GPU
 * model without a price (err). */
static int price_job(const struct bill *b, sqlite3_stmt *st, struct bill_record *r, char *err,
                     size_t errlen)
{
	const struct bill_config *c = b->cfg;
	memset(r, 0, sizeof *r);
	r->job = col_int(st, C_ID, 0);
	col_text(st, C_CLASS, r->cls, sizeof r->cls);
	r->tenant = col_int(st, C_TENANT, -1);
	r->project = col_int(st, C_GRP, -1);
	int64_t start = col_int(st, C_START, -1), end = col_int(st, C_END, -1);
	int64_t cores = col_int(st, C_CORES, 0), gpus = col_int(st, C_GPUS, 0), mem = col_int(st, C_MEM, 0);
	col_text(st, C_MODEL, r->gpu_model, sizeof r->gpu_model);
	col_text(st, C_SHARE, r->share, sizeof r->share);
	size_t sl = strlen(r->share);
	double eq = (double)gpus;
	r->kind = BILL_GPU_WHOLE;
	if (sl > 1 && r->share[sl - 1] == 'm') {
		r->kind = BILL_GPU_SHARE;
		eq = atof(r->share) / 1000;
	} else if (strstr(r->share, "g.")) {
		r->kind = BILL_GPU_MIG;
		if (mig_share(c, r->gpu_model, r->share, &eq))
			return failf(err, errlen, b->path, "job %" PRId64 " ran MIG instance \"%s\" on GPU model \"%s\", "
			             "which the catalog's MIG table (`hetlab catalog --mig`) lacks", r->job, r->share,
			             r->gpu_model);
	}
	double run_s = start >= 0 && end >= start ? (double)(end - start) / 1e6 : 0;
	double gpu_s = col_real(st, C_GPU_S, eq * run_s), core_s = col_real(st, C_CORE_S, (double)cores * run_s);
	double energy_j = col_real(st, C_ENERGY_J, 0);
	r->energy_cost = col_real(st, C_ENERGY_COST, 0);
	if (gpu_s <= 0 && r->kind == BILL_GPU_WHOLE && gpus == 0)
		r->kind = BILL_GPU_NONE;
	if (start < 0 && gpu_s <= 0 && core_s <= 0 && energy_j <= 0)
		return 0;   /* never ran */
	if (end < 0)
		return 2;
	/* How long it held its allocation, over all its runs. */
	double held_s = cores > 0 && core_s > 0 ? core_s / (double)cores
	              : eq > 0 && gpu_s > 0 ? gpu_s / eq : run_s;
	r->end_us = end;
	r->start_us = start >= 0 ? start : (int64_t)fmax(0, (double)end - held_s * 1e6);
	if (r->start_us > end)
		r->start_us = end;
	r->gpus = r->kind == BILL_GPU_NONE ? 0 : eq;
	r->gpu_hours = gpu_s / 3600;
	r->core_hours = core_s / 3600;
	r->mem_gib_hours = (double)mem / 1024 * held_s / 3600;
	r->energy_kwh = energy_j / 3.6e6;
	if (r->kind != BILL_GPU_NONE) {
		const struct bill_rate *p = find_rate(c->gpu_hour, c->ngpu_hour, r->gpu_model);
		if (!p)
			p = find_rate(c->gpu_hour, c->ngpu_hour, "*");
		const struct bill_rate *mp = r->kind == BILL_GPU_MIG ? find_rate(c->mig_hour, c->nmig_hour, r->share) : NULL;
		if (!p && !mp)
			return failf(err, errlen, b->path, "job %" PRId64 " ran on GPU model \"%s\", which has no "
			             "price (prices.gpu_hour has neither \"%s\" nor \"*\")", r->job,
			             r->gpu_model[0] ? r->gpu_model : "(none)", r->gpu_model);
		double w = gpu_weight(c, r->gpu_model);
		switch (r->kind) {
		case BILL_GPU_SHARE:
			r->unit_hours = eq > 0 ? r->gpu_hours / eq : 0;
			r->gpu_rate = p->value * w * c->share * eq;
			break;
		case BILL_GPU_MIG:
			r->unit_hours = eq > 0 ? r->gpu_hours / eq : 0;
			r->gpu_rate = mp ? mp->value * w : p->value * w * eq;
			break;
		default:
			r->unit_hours = r->gpu_hours;
			r->gpu_rate = p->value * w;
			break;
		}
		r->gpu_charge = r->unit_hours * r->gpu_rate;
	}
	r->core_charge = r->core_hours * c->core_hour * c->w_core;
	r->mem_charge = r->mem_gib_hours * c->mem_gib_hour * c->w_mem;
	r->energy_charge = c->energy == BILL_ENERGY_PASS_THROUGH ? r->energy_cost : 0;
	r->charge = r->gpu_charge + r->core_charge + r->mem_charge + r->energy_charge;
	return 1;
}

/* ---- invoices ------------------------------------------------------------- */

/* A record's share of one period. */
struct piece {
	int64_t tenant, period;
	size_t rec;
	double frac;
};

static int cmp_piece(const void *x, const void *y)
{
	const struct piece *a = x, *b = y;
	if (a->tenant != b->tenant)
		return a->tenant < b->tenant ? -1 : 1;
	if (a->period != b->period)
		return a->period < b->period ? -1 : 1;
	return a->rec < b->rec ? -1 : a->rec > b->rec;
}

static int cmp_invoice(const void *x, const void *y)
{
	const struct bill_invoice *a = x, *b = y;
	if (a->tenant != b->tenant)
		return a->tenant < b->tenant ? -1 : 1;
	return a->period < b->period ? -1 : a->period > b->period;
}

static int cmp_line(const void *x, const void *y)
{
	const struct bill_line *a = x, *b = y;
	if (a->order != b->order)
		return a->order - b->order;
	return strcmp(a->item, b->item);
}

/* Adds qty and amount to the invoice's line `item`, creating it. */
static int add_line(struct bill_invoice *in, int order, const char *item, const char *unit,
                    double rate, double qty, double amount)
{
	if (qty == 0 && amount == 0)
		return 0;
	for (int32_t i = 0; i < in->nlines; i++)
		if (strcmp(in->lines[i].item, item) == 0) {
			in->lines[i].qty += qty;
			in->lines[i].amount += amount;
			return 0;
		}
	struct bill_line *nl = realloc(in->lines, (size_t)(in->nlines + 1) * sizeof *nl);
	if (!nl)
		return -1;
	in->lines = nl;
	struct bill_line *l = &nl[in->nlines++];
	memset(l, 0, sizeof *l);
	l->order = order;
	snprintf(l->item, sizeof l->item, "%s", item);
	snprintf(l->unit, sizeof l->unit, "%s", unit);
	l->rate = rate;
	l->qty = qty;
	l->amount = amount;
	return 0;
}

/* The lines of record r's fraction f. */
static int add_record(struct bill_invoice *in, const struct bill *b, const struct bill_record *r, double f)
{
	const struct bill_config *c = b->cfg;
	char item[BILL_ITEM_MAX];
	int rc = 0;
	switch (r->kind) {
	case BILL_GPU_WHOLE:
		snprintf(item, sizeof item, "gpu %s", r->gpu_model);
		rc = add_line(in, 0, item, "GPU-h", r->gpu_rate, r->unit_hours * f, r->gpu_charge * f);
		break;
	case BILL_GPU_MIG:
		snprintf(item, sizeof item, "mig %s on %s", r->share, r->gpu_model);
		rc = add_line(in, 1, item, "instance-h", r->gpu_rate, r->unit_hours * f, r->gpu_charge * f);
		break;
	case BILL_GPU_SHARE:
		/* Shares of one model in card equivalents: one rate whatever the milli. */
		snprintf(item, sizeof item, "shares on %s", r->gpu_model);
		rc = add_line(in, 2, item, "GPU-h", r->gpus > 0 ? r->gpu_rate / r->gpus : 0, r->gpu_hours * f,
		              r->gpu_charge * f);
		break;
	case BILL_GPU_NONE:
		break;
	}
	if (rc || add_line(in, 3, "cores", "core-h", c->core_hour * c->w_core, r->core_hours * f, r->core_charge * f) ||
	    add_line(in, 4, "memory", "GiB-h", c->mem_gib_hour * c->w_mem, r->mem_gib_hours * f, r->mem_charge * f) ||
	    add_line(in, 5, c->energy == BILL_ENERGY_PASS_THROUGH ? "energy (pass-through)" : "energy (included)",
	             "kWh", 0, r->energy_kwh * f, r->energy_charge * f))
		return -1;
	return 0;
}

static const struct bill_plan *plan_of(const struct bill_config *c, int64_t tenant)
{
	for (int32_t i = 0; i < c->nplans; i++)
		if (c->plans[i].tenant_index == tenant)
			return &c->plans[i];
	return NULL;
}

static struct bill_invoice *new_invoice(struct bill *b, size_t *cap, int64_t tenant, int64_t period)
{
	if (b->ninv == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		struct bill_invoice *ni = realloc(b->inv, nc * sizeof *ni);
		if (!ni)
			return NULL;
		b->inv = ni;
		*cap = nc;
	}
	struct bill_invoice *in = &b->inv[b->ninv++];
	memset(in, 0, sizeof *in);
	in->tenant = tenant;
	in->period = period;
	in->start_us = (period - 1) * b->period_us;
	in->end_us = period * b->period_us;
	in->plan = plan_of(b->cfg, tenant);
	return in;
}

/* Cuts every record at the period boundaries and sums the pieces into
 * invoices; adds the periods of reserved tenants without usage. */
static int make_invoices(struct bill *b)
{
	size_t npc = 0, cap_pc = 0, cap_inv = 0;
	struct piece *pc = NULL;
	int ret = -1;
	for (size_t i = 0; i < b->nrec; i++) {
		const struct bill_record *r = &b->rec[i];
		int64_t len = r->end_us - r->start_us;
		int64_t k0 = r->start_us / b->period_us, k1 = len > 0 ? (r->end_us - 1) / b->period_us : k0;
		for (int64_t k = k0; k <= k1; k++) {
			if (npc == cap_pc) {
				size_t nc = cap_pc ? 2 * cap_pc : 64;
				struct piece *np = realloc(pc, nc * sizeof *np);
				if (!np)
					goto out;
				pc = np;
				cap_pc = nc;
			}
			int64_t lo = k * b->period_us, hi = lo + b->period_us;
			lo = lo > r->start_us ? lo : r->start_us;
			hi = hi < r->end_us ? hi : r->end_us;
			pc[npc++] = (struct piece){ .tenant = r->tenant, .period = k + 1, .rec = i,
			                            .frac = len > 0 ? (double)(hi - lo) / (double)len : 1 };
		}
	}
	if (npc > 1)
		qsort(pc, npc, sizeof *pc, cmp_piece);
	struct bill_invoice *in = NULL;
	for (size_t i = 0; i < npc; i++) {
		if (!in || in->tenant != pc[i].tenant || in->period != pc[i].period)
			if (!(in = new_invoice(b, &cap_inv, pc[i].tenant, pc[i].period)))
				goto out;
		if (add_record(in, b, &b->rec[pc[i].rec], pc[i].frac))
			goto out;
	}
	/* A commitment is due every period the run covers, used or not. */
	int64_t nper = b->last_us > 0 ? (b->last_us + b->period_us - 1) / b->period_us : 1;
	size_t have = b->ninv;
	for (int32_t p = 0; p < b->cfg->nplans; p++) {
		const struct bill_plan *pl = &b->cfg->plans[p];
		if (pl->kind != BILL_PLAN_RESERVED)
			continue;
		for (int64_t k = 1; k <= nper; k++) {
			bool found = false;
			for (size_t i = 0; i < have && !found; i++)
				found = b->inv[i].tenant == pl->tenant_index && b->inv[i].period == k;
			if (!found && !new_invoice(b, &cap_inv, pl->tenant_index, k))
				goto out;
		}
	}
	if (b->ninv > 1)
		qsort(b->inv, b->ninv, sizeof *b->inv, cmp_invoice);
	for (size_t i = 0; i < b->ninv; i++) {
		in = &b->inv[i];
		if (in->nlines > 1)
			qsort(in->lines, (size_t)in->nlines, sizeof *in->lines, cmp_line);
		for (int32_t l = 0; l < in->nlines; l++) {
			in->usage += in->lines[l].amount;
			if (in->lines[l].order == 5 && in->lines[l].qty > 0)
				in->lines[l].rate = in->lines[l].amount / in->lines[l].qty;
		}
		if (in->plan && in->plan->kind == BILL_PLAN_RESERVED) {
			in->baseline = in->plan->baseline * b->baseline_scale;
			double over = in->usage - in->baseline;
			in->topup = over < 0 ? -over : 0;
			if (in->plan->overage == BILL_OVERAGE_REFUSE)
				in->refused = over > 0 ? over : 0;
			else
				in->overage = over > 0 ? over : 0;
		}
		in->total = in->usage + in->topup - in->refused;
		b->sum_invoices += in->total;
		b->sum_topup += in->topup;
		b->sum_refused += in->refused;
	}
	for (size_t i = 0; i < b->nrec; i++)
		b->sum_records += b->rec[i].charge;
	ret = 0;
out:
	free(pc);
	return ret;
}

int bill_compute(struct bill *b, const char *path, const struct bill_config *cfg,
                 enum bill_period period, bool default_prices, char *err, size_t errlen)
{
	memset(b, 0, sizeof *b);
	b->cfg = cfg;
	b->path = path;
	b->default_prices = default_prices;
	b->period = period;
	b->period_us = bill_period_days(period) * BILL_DAY_S * INT64_C(1000000);
	b->baseline_scale = (double)bill_period_days(period) / (double)bill_period_days(cfg->period);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int ret = -1;
	if (open_ro(path, &db, err, errlen) || check_file(db, path, err, errlen))
		goto out;
	char sql[1024];
	size_t off = (size_t)snprintf(sql, sizeof sql, "SELECT ");
	for (int k = 0; job_cols[k]; k++)
		off += (size_t)snprintf(sql + off, sizeof sql - off, "%s%s", k ? ", " : "",
		                        report_has_column(db, "job", job_cols[k]) ? job_cols[k] : "NULL");
	snprintf(sql + off, sizeof sql - off, " FROM job ORDER BY id");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		failf(err, errlen, path, "reading table job: %s", sqlite3_errmsg(db));
		goto out;
	}
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int k = C_SUBMIT; k <= C_END; k++) {
			int64_t t = col_int(st, k, -1);
			b->last_us = t > b->last_us ? t : b->last_us;
		}
		if (b->nrec == cap) {
			size_t nc = cap ? 2 * cap : 256;
			struct bill_record *nr = realloc(b->rec, nc * sizeof *nr);
			if (!nr) {
				failf(err, errlen, path, "out of memory");
				goto out;
			}
			b->rec = nr;
			cap = nc;
		}
		int k = price_job(b, st, &b->rec[b->nrec], err, errlen);
		if (k < 0)
			goto out;
		b->nrec += k == 1;
		b->unbilled += k == 2;
	}
	if (rc != SQLITE_DONE) {
		failf(err, errlen, path, "reading table job: %s", sqlite3_errmsg(db));
		goto out;
	}
	if (make_invoices(b)) {
		failf(err, errlen, path, "out of memory");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return ret;
}

void bill_fini(struct bill *b)
{
	for (size_t i = 0; i < b->ninv; i++)
		free(b->inv[i].lines);
	free(b->inv);
	free(b->rec);
	memset(b, 0, sizeof *b);
}

double bill_difference(const struct bill *b)
{
	double d = b->sum_invoices - (b->sum_records + b->sum_topup - b->sum_refused);
	return fabs(d) < 1e-6 ? 0 : d;   /* rounding noise, and never "-0.00" */
}

bool bill_reconciles(const struct bill *b)
{
	return fabs(bill_difference(b)) < 0.005;
}

/* ---- output --------------------------------------------------------------- */

static const char *plan_text(const struct bill_plan *p, char *buf, size_t len)
{
	if (!p || p->kind == BILL_PLAN_ELASTIC)
		return "elastic";
	snprintf(buf, len, "reserved (%s commitment, overage %s)",
	         p->commit == BILL_COMMIT_YEARLY ? "yearly" : "monthly",
	         p->overage == BILL_OVERAGE_REFUSE ? "refused" : "elastic");
	return buf;
}

static const char *project_name(const struct bill_config *c, const struct bill_record *r, char *buf, size_t len)
{
	if (r->tenant >= 0 && r->tenant < c->ntenants) {
		const struct bill_tenant *t = &c->tenant[r->tenant];
		if (t->nprojects > 0)
			return c->project[t->first_project + (r->project >= 0 && r->project < t->nprojects ? r->project : 0)];
	}
	if (r->project < 0)
		return "-";
	snprintf(buf, len, "%" PRId64, r->project);
	return buf;
}

static const char *resource_text(const struct bill_record *r, char *buf, size_t len)
{
	switch (r->kind) {
	case BILL_GPU_WHOLE: snprintf(buf, len, "%s x%g", r->gpu_model, r->gpus); break;
	case BILL_GPU_MIG:
	case BILL_GPU_SHARE: snprintf(buf, len, "%s %s", r->gpu_model, r->share); break;
	default: snprintf(buf, len, "-"); break;
	}
	return buf;
}

static void notes(const struct bill *b, const char **n, int *nn)
{
	*nn = 0;
	if (b->default_prices)
		n[(*nn)++] = "the file has no billing table: priced by the default price list (docs/billing.md)";
	if (b->cfg->storage_gib_month > 0 || b->cfg->bandwidth_gbps_month > 0)
		n[(*nn)++] = "storage and bandwidth are not billed: the results file records no storage-pool "
		             "or bandwidth use";
}

static void text_money_row(FILE *out, const char *what, double v)
{
	fprintf(out, "  %-40s %47.2f\n", what, v);
}

static void print_text(const struct bill *b, bool records, FILE *out)
{
	const struct bill_config *c = b->cfg;
	const char *nt[4];
	int nn;
	char buf[64], buf2[64], buf3[128];
	fprintf(out, "hetlab bill: %s\n", b->path);
	fprintf(out, "currency %s, period %s (%" PRId64 " d from simulated time 0), %zu usage records",
	        c->currency, bill_period_name(b->period), bill_period_days(b->period), b->nrec);
	if (b->unbilled)
		fprintf(out, ", %" PRId64 " job%s without an end not billed", b->unbilled, b->unbilled == 1 ? "" : "s");
	fprintf(out, "\n");
	notes(b, nt, &nn);
	for (int i = 0; i < nn; i++)
		fprintf(out, "note: %s\n", nt[i]);
	if (records) {
		fprintf(out, "\n%6s %-10s %-10s %-10s %10s %10s %-26s %10s %10s %10s %9s %12s\n", "job", "tenant",
		        "project", "class", "start_s", "end_s", "gpu", "gpu_units_h", "core_h", "mem_GiB_h", "kWh", "charge");
		for (size_t i = 0; i < b->nrec; i++) {
			const struct bill_record *r = &b->rec[i];
			fprintf(out, "%6" PRId64 " %-10s %-10s %-10s %10.0f %10.0f %-26s %10.3f %10.3f %10.3f %9.3f %12.2f\n",
			        r->job, bill_tenant_name(c, r->tenant, buf, sizeof buf),
			        project_name(c, r, buf2, sizeof buf2), r->cls[0] ? r->cls : "-",
			        (double)r->start_us / 1e6, (double)r->end_us / 1e6,
			        resource_text(r, buf3, sizeof buf3), r->unit_hours, r->core_hours,
			        r->mem_gib_hours, r->energy_kwh, r->charge);
		}
	} else {
		for (size_t i = 0; i < b->ninv; i++) {
			const struct bill_invoice *in = &b->inv[i];
			fprintf(out, "\n%s  %s %" PRId64 " [day %" PRId64 ", day %" PRId64 ")  %s\n",
			        bill_tenant_name(c, in->tenant, buf, sizeof buf), bill_period_name(b->period),
			        in->period, in->start_us / (BILL_DAY_S * INT64_C(1000000)),
			        in->end_us / (BILL_DAY_S * INT64_C(1000000)), plan_text(in->plan, buf3, sizeof buf3));
			fprintf(out, "  %-40s %14s %-10s %10s %12s\n", "item", "quantity", "unit", "rate", "amount");
			for (int32_t l = 0; l < in->nlines; l++) {
				const struct bill_line *ln = &in->lines[l];
				fprintf(out, "  %-40s %14.3f %-10s %10.4f %12.2f\n", ln->item, ln->qty, ln->unit, ln->rate,
				        ln->amount);
			}
			if (in->plan && in->plan->kind == BILL_PLAN_RESERVED) {
				text_money_row(out, "usage", in->usage);
				text_money_row(out, "commitment", in->baseline);
				if (in->topup > 0)
					text_money_row(out, "top-up to the commitment (unused)", in->topup);
				if (in->overage > 0)
					text_money_row(out, "overage", in->overage);
				if (in->refused > 0)
					text_money_row(out, "overage refused (not charged)", in->refused);
			}
			text_money_row(out, "total", in->total);
		}
	}
	fprintf(out, "\nreconciliation: invoices %.2f = usage records %.2f + baseline top-ups %.2f"
	        " - refused overage %.2f (difference %.2f): %s\n", b->sum_invoices, b->sum_records,
	        b->sum_topup, b->sum_refused, bill_difference(b),
	        bill_reconciles(b) ? "reconciles" : "DOES NOT RECONCILE");
}

static void csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_inv_row(FILE *out, const struct bill *b, const struct bill_invoice *in, const char *kind,
                        const char *item, double qty, const char *unit, double rate, double amount)
{
	char buf[64], pbuf[128];
	csv_field(out, bill_tenant_name(b->cfg, in->tenant, buf, sizeof buf));
	fprintf(out, ",%" PRId64 ",%" PRId64 ",%.0f,%.0f,", in->tenant, in->period, (double)in->start_us / 1e6,
	        (double)in->end_us / 1e6);
	csv_field(out, plan_text(in->plan, pbuf, sizeof pbuf));
	fprintf(out, ",%s,", kind);
	csv_field(out, item);
	fprintf(out, ",%.10g,%s,%.10g,%.10g\n", qty, unit, rate, amount);
}

static void print_csv(const struct bill *b, bool records, FILE *out)
{
	char buf[64], buf2[64];
	if (records) {
		fprintf(out, "job,tenant,tenant_index,project,class,start_s,end_s,duration_s,gpu_kind,gpu_model,"
		        "share,gpus,gpu_unit_hours,gpu_hours,gpu_rate,gpu_charge,core_hours,core_charge,"
		        "mem_gib_hours,mem_charge,energy_kwh,energy_charge,charge\n");
		static const char *const kinds[] = { "none", "whole", "mig", "share" };
		for (size_t i = 0; i < b->nrec; i++) {
			const struct bill_record *r = &b->rec[i];
			fprintf(out, "%" PRId64 ",", r->job);
			csv_field(out, bill_tenant_name(b->cfg, r->tenant, buf, sizeof buf));
			fprintf(out, ",%" PRId64 ",", r->tenant);
			csv_field(out, project_name(b->cfg, r, buf2, sizeof buf2));
			fprintf(out, ",%s,%.6f,%.6f,%.6f,%s,%s,%s,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,"
			        "%.10g,%.10g,%.10g,%.10g\n", r->cls, (double)r->start_us / 1e6,
			        (double)r->end_us / 1e6, (double)(r->end_us - r->start_us) / 1e6, kinds[r->kind],
			        r->gpu_model, r->share, r->gpus, r->unit_hours, r->gpu_hours, r->gpu_rate,
			        r->gpu_charge, r->core_hours, r->core_charge, r->mem_gib_hours, r->mem_charge,
			        r->energy_kwh, r->energy_charge, r->charge);
		}
		return;
	}
	fprintf(out, "tenant,tenant_index,period,start_s,end_s,plan,kind,item,quantity,unit,rate,amount\n");
	for (size_t i = 0; i < b->ninv; i++) {
		const struct bill_invoice *in = &b->inv[i];
		for (int32_t l = 0; l < in->nlines; l++)
			csv_inv_row(out, b, in, "usage", in->lines[l].item, in->lines[l].qty, in->lines[l].unit,
			            in->lines[l].rate, in->lines[l].amount);
		if (in->plan && in->plan->kind == BILL_PLAN_RESERVED) {
			csv_inv_row(out, b, in, "subtotal", "usage", 0, "", 0, in->usage);
			csv_inv_row(out, b, in, "commitment", "commitment", 0, "", 0, in->baseline);
			if (in->topup > 0)
				csv_inv_row(out, b, in, "topup", "top-up to the commitment", 0, "", 0, in->topup);
			if (in->overage > 0)
				csv_inv_row(out, b, in, "overage", "overage", 0, "", 0, in->overage);
			if (in->refused > 0)
				csv_inv_row(out, b, in, "refused", "overage refused (not charged)", 0, "", 0, in->refused);
		}
		csv_inv_row(out, b, in, "total", "total", 0, "", 0, in->total);
	}
}

static json_t *json_record(const struct bill *b, const struct bill_record *r)
{
	static const char *const kinds[] = { "none", "whole", "mig", "share" };
	char buf[64], buf2[64];
	json_t *o = json_object();
	json_object_set_new(o, "job", json_integer(r->job));
	json_object_set_new(o, "tenant", json_string(bill_tenant_name(b->cfg, r->tenant, buf, sizeof buf)));
	json_object_set_new(o, "tenant_index", json_integer(r->tenant));
	json_object_set_new(o, "project", r->project >= 0 ? json_integer(r->project) : json_null());
	json_object_set_new(o, "project_name", json_string(project_name(b->cfg, r, buf2, sizeof buf2)));
	json_object_set_new(o, "class", json_string(r->cls));
	json_object_set_new(o, "start_s", json_real((double)r->start_us / 1e6));
	json_object_set_new(o, "end_s", json_real((double)r->end_us / 1e6));
	json_object_set_new(o, "duration_s", json_real((double)(r->end_us - r->start_us) / 1e6));
	json_object_set_new(o, "gpu_kind", json_string(kinds[r->kind]));
	json_object_set_new(o, "gpu_model", r->gpu_model[0] ? json_string(r->gpu_model) : json_null());
	json_object_set_new(o, "share", r->share[0] ? json_string(r->share) : json_null());
	json_object_set_new(o, "gpus", json_real(r->gpus));
	json_object_set_new(o, "gpu_unit_hours", json_real(r->unit_hours));
	json_object_set_new(o, "gpu_hours", json_real(r->gpu_hours));
	json_object_set_new(o, "gpu_rate", json_real(r->gpu_rate));
	json_object_set_new(o, "gpu_charge", json_real(r->gpu_charge));
	json_object_set_new(o, "core_hours", json_real(r->core_hours));
	json_object_set_new(o, "core_charge", json_real(r->core_charge));
	json_object_set_new(o, "mem_gib_hours", json_real(r->mem_gib_hours));
	json_object_set_new(o, "mem_charge", json_real(r->mem_charge));
	json_object_set_new(o, "energy_kwh", json_real(r->energy_kwh));
	json_object_set_new(o, "energy_charge", json_real(r->energy_charge));
	json_object_set_new(o, "charge", json_real(r->charge));
	return o;
}

static json_t *json_invoice(const struct bill *b, const struct bill_invoice *in)
{
	char buf[64];
	json_t *o = json_object(), *lines = json_array();
	bool reserved = in->plan && in->plan->kind == BILL_PLAN_RESERVED;
	json_object_set_new(o, "tenant", json_string(bill_tenant_name(b->cfg, in->tenant, buf, sizeof buf)));
	json_object_set_new(o, "tenant_index", json_integer(in->tenant));
	json_object_set_new(o, "period", json_integer(in->period));
	json_object_set_new(o, "start_s", json_real((double)in->start_us / 1e6));
	json_object_set_new(o, "end_s", json_real((double)in->end_us / 1e6));
	json_object_set_new(o, "plan", json_string(reserved ? "reserved" : "elastic"));
	if (reserved) {
		json_object_set_new(o, "commit", json_string(in->plan->commit == BILL_COMMIT_YEARLY ? "yearly" : "monthly"));
		json_object_set_new(o, "overage_policy",
		                    json_string(in->plan->overage == BILL_OVERAGE_REFUSE ? "refuse" : "elastic"));
	}
	for (int32_t l = 0; l < in->nlines; l++) {
		const struct bill_line *ln = &in->lines[l];
		json_t *x = json_object();
		json_object_set_new(x, "item", json_string(ln->item));
		json_object_set_new(x, "quantity", json_real(ln->qty));
		json_object_set_new(x, "unit", json_string(ln->unit));
		json_object_set_new(x, "rate", json_real(ln->rate));
		json_object_set_new(x, "amount", json_real(ln->amount));
		json_array_append_new(lines, x);
	}
	json_object_set_new(o, "lines", lines);
	json_object_set_new(o, "usage", json_real(in->usage));
	json_object_set_new(o, "commitment", json_real(in->baseline));
	json_object_set_new(o, "topup", json_real(in->topup));
	json_object_set_new(o, "overage", json_real(in->overage));
	json_object_set_new(o, "refused", json_real(in->refused));
	json_object_set_new(o, "total", json_real(in->total));
	return o;
}

static int print_json(const struct bill *b, bool records, FILE *out)
{
	const char *nt[4];
	int nn;
	json_t *root = json_object(), *arr = json_array(), *nj = json_array(), *rc = json_object();
	json_object_set_new(root, "file", json_string(b->path));
	json_object_set_new(root, "price_list", json_string(b->default_prices ? "default" : "file"));
	json_object_set_new(root, "currency", json_string(b->cfg->currency));
	json_object_set_new(root, "period", json_string(bill_period_name(b->period)));
	json_object_set_new(root, "period_days", json_integer(bill_period_days(b->period)));
	notes(b, nt, &nn);
	for (int i = 0; i < nn; i++)
		json_array_append_new(nj, json_string(nt[i]));
	json_object_set_new(root, "notes", nj);
	json_object_set_new(root, "records", json_integer((json_int_t)b->nrec));
	json_object_set_new(root, "unbilled_jobs", json_integer(b->unbilled));
	if (records)
		for (size_t i = 0; i < b->nrec; i++)
			json_array_append_new(arr, json_record(b, &b->rec[i]));
	else
		for (size_t i = 0; i < b->ninv; i++)
			json_array_append_new(arr, json_invoice(b, &b->inv[i]));
	json_object_set_new(root, records ? "usage_records" : "invoices", arr);
	json_object_set_new(rc, "invoices", json_real(b->sum_invoices));
	json_object_set_new(rc, "usage_records", json_real(b->sum_records));
	json_object_set_new(rc, "baseline_topups", json_real(b->sum_topup));
	json_object_set_new(rc, "refused_overage", json_real(b->sum_refused));
	json_object_set_new(rc, "difference", json_real(bill_difference(b)));
	json_object_set_new(rc, "reconciles", json_boolean(bill_reconciles(b)));
	json_object_set_new(root, "reconciliation", rc);
	int r = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	json_decref(root);
	return r < 0 || fputc('\n', out) == EOF ? -1 : 0;
}

int bill_print(const struct bill *b, enum bill_format fmt, bool records, FILE *out)
{
	if (fmt == BILL_JSON) {
		if (print_json(b, records, out))
			return -1;
	} else if (fmt == BILL_CSV) {
		print_csv(b, records, out);
	} else {
		print_text(b, records, out);
	}
	return ferror(out) || fflush(out) == EOF ? -1 : 0;
}
