/* bill — usage records and invoices of one run, from its results file only
 * (docs/billing.md).
 *
 * A price list (struct bill_config: the scenario's "billing" block, read by
 * config/billcfg.c, or the documented default) turns each ended job of
 * the `job` table into one usage record, as Slurm's sacct would list it:
 * tenant, project, class, start, end, and the resources it held — GPU
 * model × GPU-hours, or MIG profile × instance-hours, or a share's
 * fraction × hours; core-hours; memory GiB-hours; energy — each priced
 * by the list and multiplied by its billing weight (TRESBillingWeights).
 * Records are cut at billing-period boundaries (simulated time from 0: a
 * day, 7 days or 30 days) in proportion to time, and summed per tenant and
 * period into invoices. A reserved plan's invoice is max(baseline, usage)
 * with overage elastic, or the baseline with overage refused (shown, not
 * charged); an elastic plan's is its usage. The reconciliation checks
 * Σ invoices = Σ record charges + Σ baseline top-ups − Σ refused overage.
 *
 * Ownership: a struct bill_config owns its arrays (bill_config_fini frees
 * them); bill_compute borrows the config and fills a caller-owned struct
 * bill that bill_fini frees. SQLite handles never leave this module. */
#ifndef HL_BILL_H
#define HL_BILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define BILL_NAME_MAX 48          /* a tenant, project, GPU model or MIG profile name */
#define BILL_CURRENCY_MAX 16
#define BILL_ITEM_MAX 96          /* an invoice line's item text */
#define BILL_DAY_S 86400

enum bill_period { BILL_DAY, BILL_WEEK, BILL_MONTH };
enum bill_energy { BILL_ENERGY_PASS_THROUGH, BILL_ENERGY_INCLUDED };
enum bill_plan_kind { BILL_PLAN_ELASTIC, BILL_PLAN_RESERVED };
enum bill_commit { BILL_COMMIT_MONTHLY, BILL_COMMIT_YEARLY };
enum bill_overage { BILL_OVERAGE_ELASTIC, BILL_OVERAGE_REFUSE };
enum bill_format { BILL_TEXT, BILL_JSON, BILL_CSV };

/* A price or a weight by name (a GPU model, a MIG profile). */
struct bill_rate {
	char name[BILL_NAME_MAX];
	double value;
};

struct bill_plan {
	char tenant[BILL_NAME_MAX];
	int64_t tenant_index;        /* job.tenant it applies to */
	enum bill_plan_kind kind;
	enum bill_commit commit;     /* the term; shown on the invoice */
	double baseline;             /* currency per period of the config's period */
	enum bill_overage overage;
};

/* A tenant of the scenario's org, by index: names for the invoices. */
struct bill_tenant {
	char name[BILL_NAME_MAX];
	int32_t first_project;       /* its projects are bill_config.project[first .. + n) */
	int32_t nprojects;
};

struct bill_config {
	char currency[BILL_CURRENCY_MAX];
	enum bill_period period;
	struct bill_rate *gpu_hour;  /* per GPU-hour by GPU model; "*": any other model */
	int32_t ngpu_hour;
	struct bill_rate *mig_hour;  /* per instance-hour by MIG profile */
	int32_t nmig_hour;
	/* The catalog's MIG table (catalog/mig.json), for a MIG instance's
	 * share of its card: compute slices by "CARD" (the card's) and by
	 * "CARD/PROFILE" (the profile's). */
	struct bill_rate *mig_slices;
	int32_t nmig_slices;
	double share;                /* × a share's fraction of its card's price (default 1) */
	double core_hour, mem_gib_hour, storage_gib_month, bandwidth_gbps_month;
	enum bill_energy energy;
	/* Billing weights, each × its resource's price (default 1). */
	double w_gpu, w_core, w_mem, w_storage, w_bandwidth;
	struct bill_rate *w_model;   /* "gpu:MODEL": replaces w_gpu on that model */
	int32_t nw_model;
	struct bill_plan *plans;     /* tenants without one are elastic */
	int32_t nplans;
	struct bill_tenant *tenant;  /* the org's tenants by index (may be none) */
	int32_t ntenants;
	char (*project)[BILL_NAME_MAX];
	int32_t nprojects;
};

/* What a job's GPUs were. */
enum bill_gpu_kind { BILL_GPU_NONE, BILL_GPU_WHOLE, BILL_GPU_MIG, BILL_GPU_SHARE };

/* One ended job's usage and charge (amounts in the config's currency). */
struct bill_record {
	int64_t job, tenant, project;        /* tenant / project -1 when NULL */
	char cls[16];
	int64_t start_us, end_us;            /* the interval its usage is spread over */
	enum bill_gpu_kind kind;
	char gpu_model[BILL_NAME_MAX];       /* "" for a CPU job */
	char share[BILL_NAME_MAX];           /* "250m", "3g.40gb", "" */
	double gpus;                         /* whole cards; a share's fraction; MIG: its compute slices / the card's */
	double gpu_hours;                    /* card-equivalent GPU-hours (gpu_s / 3600) */
	double unit_hours;                   /* MIG instance- or share-hours; whole: GPU-hours */
	double gpu_rate;                     /* per unit_hours, weight included */
	double core_hours, mem_gib_hours, energy_kwh, energy_cost;
	double gpu_charge, core_charge, mem_charge, energy_charge, charge;
};

struct bill_line {
	char item[BILL_ITEM_MAX];            /* "gpu H100-SXM-80GB", "cores", ... */
	char unit[16];                       /* "GPU-h", "instance-h", "core-h", "GiB-h", "kWh" */
	double qty, rate, amount;
	int order;                           /* sort key: gpu, mig, shares, cores, memory, energy */
};

struct bill_invoice {
	int64_t tenant;
	int64_t period;                      /* 1, 2, ... */
	int64_t start_us, end_us;            /* [start, end) of the period */
	const struct bill_plan *plan;        /* NULL: elastic (borrowed from the config) */
	struct bill_line *lines;             /* usage lines, item order of first use */
	int32_t nlines;
	double usage;                        /* Σ lines */
	double baseline;                     /* reserved: the commitment of this period */
	double topup;                        /* reserved: max(baseline − usage, 0) */
	double overage;                      /* reserved, elastic overage: max(usage − baseline, 0) */
	double refused;                      /* reserved, refused overage: max(usage − baseline, 0) */
	double total;                        /* usage + topup − refused */
};

struct bill {
	const struct bill_config *cfg;       /* borrowed */
	const char *path;                    /* borrowed */
	bool default_prices;                 /* the file had no billing table */
	enum bill_period period;
	int64_t period_us;
	double baseline_scale;               /* --period against the config's period */
	struct bill_record *rec;
	size_t nrec;
	struct bill_invoice *inv;
	size_t ninv;
	int64_t unbilled;                    /* jobs that held resources but have no end */
	int64_t last_us;                     /* the file's latest time */
	/* The reconciliation, computed by bill_compute. */
	double sum_invoices, sum_records, sum_topup, sum_refused;
};

/* "month" / "week" / "day" (-1 otherwise), and back. */
int bill_period_parse(const char *s);
const char *bill_period_name(enum bill_period p);
int64_t bill_period_days(enum bill_period p);
/* "text" / "json" / "csv", -1 otherwise. */
int bill_format_parse(const char *s);

/* Defaults: currency CNY, period month, every price 0, share and weights 1,
 * energy pass-through, no plans, no tenants. */
void bill_config_init(struct bill_config *c);
void bill_config_fini(struct bill_config *c);
/* The price list `hetlab bill` uses for a file without a billing table,
 * as stored JSON text (config/billcfg.c: bill_config_parse). */
const char *bill_default_config_text(void);

/* The billing table's JSON text of results file `db`: 1 with *text set
 * (the caller frees it), 0 when the file has no such table (or it is
 * empty), -1 with a message naming the file. */
int bill_read_config(const char *db, char **text, char *err, size_t errlen);

/* Reads db's `job` table and prices it by cfg into *b (bill_fini after,
 * whatever it returns): records, invoices cut at `period` boundaries, and
 * the reconciliation sums. -1 with a message naming the file (not a
 * results file, newer schema, a GPU model without a price). */
int bill_compute(struct bill *b, const char *db, const struct bill_config *cfg,
                 enum bill_period period, bool default_prices, char *err, size_t errlen);
void bill_fini(struct bill *b);
/* Σ invoices − (Σ records + Σ top-ups − Σ refused). */
double bill_difference(const struct bill *b);
/* True when that difference is under half a cent. */
bool bill_reconciles(const struct bill *b);
/* The tenant's name: the config's (org) name, else "t<index>". */
const char *bill_tenant_name(const struct bill_config *c, int64_t tenant, char *buf, size_t len);

/* Prints the invoices (or, with records, the usage records) and the
 * reconciliation footer (text: last lines; JSON: "reconciliation"; CSV:
 * none, see docs/billing.md). -1 on a write error. */
int bill_print(const struct bill *b, enum bill_format fmt, bool records, FILE *out);

#endif
