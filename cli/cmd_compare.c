/* hetlab compare DIR_A DIR_B [--metric M]... [--level L] [--format text|json|html]
 * [--out FILE] — policy A/B over seeds with paired intervals (docs/compare.md). */
#include "cli/args.h"
#include "cli/cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "analysis/metric_labels.h"

static void list_metrics(FILE *out)
{
	fputs("metrics: NAME or NAME{LABEL=VALUE}, e.g. p95_wait{class=training}\n", out);
	metric_print_list(out);
}

int cmd_compare(int argc, char **argv)
{
	const char *dir[2] = { NULL, NULL }, *format = "text", *out_path = NULL;
	double level = 0.95;
	enum { MAX_METRICS = 64 };
	char names[MAX_METRICS][METRIC_NAME_MAX];
	const char *metrics[MAX_METRICS];
	size_t nmetric = 0;
	struct metric_window win = { 0 };
	char werr[256];
	int ndir = 0;
	struct cli_args p;
	int c;
	cli_args_init(&p, "compare", argc, argv);
	while ((c = cli_next(&p)) != CLI_END)
		switch (c) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_LIST_METRICS:
			list_metrics(stdout);
			return CLI_OK;
		case OPT_WARMUP:
		case OPT_COOLDOWN:
		case OPT_ARRIVALS_ONLY:
			if (cli_window_opt(&p, c, &win))
				return CLI_USAGE;
			break;
		case OPT_METRIC: {
			if (nmetric == MAX_METRICS)
				return cli_usage(&p, "at most %d metrics", MAX_METRICS);
			if (!metric_parse(p.val, names[nmetric], sizeof names[nmetric], werr, sizeof werr))
				return cli_usage(&p, "%s", werr);
			int dup = 0;
			for (size_t k = 0; k < nmetric; k++)
				dup |= strcmp(metrics[k], names[nmetric]) == 0;
			if (!dup) {
				metrics[nmetric] = names[nmetric];
				nmetric++;
			}
			break;
		}
		case OPT_LEVEL:
			if (cli_double(&p, 0, 1, &level))
				return CLI_USAGE;
			if (!(level > 0 && level < 1))
				return cli_usage(&p, "--level '%s': expected a number between 0 and 1 (0.95)", p.val);
			break;
		case OPT_FORMAT: format = p.val; break;
		case OPT_OUT: out_path = p.val; break;
		case CLI_POS:
			if (ndir == 2)
				return cli_usage(&p, "two directories only ('%s', '%s', '%s')", dir[0], dir[1], p.val);
			dir[ndir++] = p.val;
			break;
		}
	if (ndir < 2)
		return cli_usage(&p, "two run directories needed, A and B");
	int fmt = compare_format_parse(format);
	if (fmt < 0)
		return cli_usage(&p, "unknown format '%s' (text, json or html)", format);

	char err[1024];
	int ret = 1;
	struct compare_side a, b;
	struct compare_result res;
	if (compare_side_load(dir[0], &win, &a, err, sizeof err) < 0) {
		fprintf(stderr, "hetlab compare: %s\n", err);
		return 1;
	}
	if (compare_side_load(dir[1], &win, &b, err, sizeof err) < 0) {
		fprintf(stderr, "hetlab compare: %s\n", err);
		goto out_a;
	}
	/* A metric's label value must be one these runs have: a typo
	 * (p95_wait{class=inferense}) would compare NaN with NaN. */
	struct metric_labels labels;
	metric_labels_init(&labels);
	for (size_t i = 0; i < a.nrun; i++)
		metric_labels_add_set(&labels, &a.run[i].m);
	for (size_t i = 0; i < b.nrun; i++)
		metric_labels_add_set(&labels, &b.run[i].m);
	int bad = 0;
	for (size_t k = 0; k < nmetric && !bad; k++)
		if ((bad = metric_labels_check(&labels, metrics[k], err, sizeof err) < 0))
			ret = cli_usage(&p, "%s", err);
	metric_labels_fini(&labels);
	if (bad)
		goto out_b;
	if (compare_build(&a, &b, metrics, nmetric, level, &res, err, sizeof err) < 0) {
		fprintf(stderr, "hetlab compare: %s\n", err);
		goto out_b;
	}
	/* The output goes to a temporary sibling renamed over FILE at the end:
	 * never a half-written file. */
	FILE *out = stdout;
	char *tmp = NULL;
	if (out_path) {
		size_t len = strlen(out_path) + 32;
		if (!(tmp = malloc(len))) {
			fprintf(stderr, "hetlab compare: out of memory\n");
			goto out_res;
		}
		snprintf(tmp, len, "%s.tmp-%ld", out_path, (long)getpid());
		if (!(out = fopen(tmp, "w"))) {
			fprintf(stderr, "hetlab compare: %s: %s\n", out_path, strerror(errno));
			goto out_tmp;
		}
	}
	int prc = compare_print(&res, (enum compare_format)fmt, out);
	if (out_path) {
		if (fclose(out) != 0)
			prc = -1;
		if (prc == 0 && rename(tmp, out_path) != 0) {
			fprintf(stderr, "hetlab compare: %s: %s\n", out_path, strerror(errno));
			remove(tmp);
			goto out_tmp;
		}
		if (prc < 0)
			remove(tmp);
	}
	if (prc < 0) {
		fprintf(stderr, "hetlab compare: %s: cannot write the comparison\n",
		        out_path ? out_path : "stdout");
		goto out_tmp;
	}
	/* With --out, the warnings still reach the person at the terminal. */
	if (out_path)
		for (size_t w = 0; w < res.nwarning; w++)
			fprintf(stderr, "hetlab compare: warning: %s\n", res.warning[w]);
	ret = 0;
out_tmp:
	free(tmp);
out_res:
	compare_result_fini(&res);
out_b:
	compare_side_fini(&b);
out_a:
	compare_side_fini(&a);
	return ret;
}
