/* hetlab bill RUN.DB [--period month|week|day] [--format text|json|csv]
 * [--records] — invoices per tenant and billing period from a run's
 * results file, with the reconciliation (docs/billing.md). */
#include "cli/cmd.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bill.h"
#include "traces/billload.h"

/* Declared here for -Wmissing-prototypes; main.c's table names it. */
int cmd_bill(int argc, char **argv);

static const char usage[] =
	"usage: hetlab bill RUN.DB [--period month|week|day] [--format text|json|csv] [--records]\n";

int cmd_bill(int argc, char **argv)
{
	const char *db = NULL, *format = "text", *period = NULL;
	bool records = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(a, "--format") == 0 || strcmp(a, "--period") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "hetlab bill: %s needs a value\n%s", a, usage);
				return 2;
			}
			if (strcmp(a, "--format") == 0)
				format = argv[++i];
			else
				period = argv[++i];
		} else if (strncmp(a, "--format=", 9) == 0) {
			format = a + 9;
		} else if (strncmp(a, "--period=", 9) == 0) {
			period = a + 9;
		} else if (strcmp(a, "--records") == 0) {
			records = true;
		} else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, "hetlab bill: unknown option '%s'\n%s", a, usage);
			return 2;
		} else if (db) {
			fprintf(stderr, "hetlab bill: one database at a time ('%s', '%s')\n%s", db, a, usage);
			return 2;
		} else {
			db = a;
		}
	}
	if (!db) {
		fprintf(stderr, "hetlab bill: no database given\n%s", usage);
		return 2;
	}
	int fmt = bill_format_parse(format);
	if (fmt < 0) {
		fprintf(stderr, "hetlab bill: unknown format '%s' (text, json or csv)\n%s", format, usage);
		return 2;
	}
	int per = period ? bill_period_parse(period) : -1;
	if (period && per < 0) {
		fprintf(stderr, "hetlab bill: unknown period '%s' (month, week or day)\n%s", period, usage);
		return 2;
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
