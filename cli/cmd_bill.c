/* hetlab bill RUN.DB [--period month|week|day] [--format text|json|csv]
 * [--records] — invoices per tenant and billing period from a run's
 * results file, with the reconciliation (docs/billing.md). */
#include "cli/args.h"
#include "cli/cmd.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bill.h"
#include "config/billcfg.h"

/* Declared here for -Wmissing-prototypes; main.c's table names it. */
int cmd_bill(int argc, char **argv);

int cmd_bill(int argc, char **argv)
{
	const char *db = NULL, *format = "text", *period = NULL;
	bool records = false;
	struct cli_args p;
	int c;
	cli_args_init(&p, "bill", argc, argv);
	while ((c = cli_next(&p)) != CLI_END)
		switch (c) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_FORMAT: format = p.val; break;
		case OPT_PERIOD: period = p.val; break;
		case OPT_RECORDS: records = true; break;
		case CLI_POS:
			if (db)
				return cli_usage(&p, "one database at a time ('%s', '%s')", db, p.val);
			db = p.val;
			break;
		}
	if (!db) {
		return cli_usage(&p, "no database given");
	}
	int fmt = bill_format_parse(format);
	if (fmt < 0) {
		return cli_usage(&p, "unknown format '%s' (text, json or csv)", format);
	}
	int per = period ? bill_period_parse(period) : -1;
	if (period && per < 0) {
		return cli_usage(&p, "unknown period '%s' (month, week or day)", period);
	}

	char err[1024], what[1100];
	char *text = NULL;
	int have = bill_read_config(db, &text, err, sizeof err);
	if (have < 0) {
		fprintf(stderr, "hetlab bill: %s\n", err);
		return 1;
	}
	struct bill_config cfg;
	snprintf(what, sizeof what, "%s: table billing", db);
	if (bill_config_parse(have ? text : bill_default_config_text(), have ? what : "default price list",
	                      &cfg, err, sizeof err)) {
		fprintf(stderr, "hetlab bill: %s\n", err);
		free(text);
		bill_config_fini(&cfg);
		return 1;
	}
	free(text);
	struct bill b;
	int ret = 1;
	if (bill_compute(&b, db, &cfg, per >= 0 ? (enum bill_period)per : cfg.period, have == 0, err,
	                 sizeof err)) {
		fprintf(stderr, "hetlab bill: %s\n", err);
		goto out;
	}
	if (bill_print(&b, (enum bill_format)fmt, records, stdout)) {
		fprintf(stderr, "hetlab bill: cannot write the invoices\n");
		goto out;
	}
	if (!bill_reconciles(&b)) {
		fprintf(stderr, "hetlab bill: %s: the invoices (%.2f) do not reconcile with the usage records "
		        "(%.2f) + baseline top-ups (%.2f) - refused overage (%.2f): off by %.2f\n", db,
		        b.sum_invoices, b.sum_records, b.sum_topup, b.sum_refused, bill_difference(&b));
		goto out;
	}
	if (fmt == BILL_CSV)
		fprintf(stderr, "hetlab bill: reconciliation: invoices %.2f = usage records %.2f + baseline "
		        "top-ups %.2f - refused overage %.2f\n", b.sum_invoices, b.sum_records, b.sum_topup,
		        b.sum_refused);
	ret = 0;
out:
	bill_fini(&b);
	bill_config_fini(&cfg);
	return ret;
}
