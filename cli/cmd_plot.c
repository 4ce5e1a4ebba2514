/* hetlab plot RUN.DB -o DIR — draws a run's figures with gnuplot. */
#include "cli/args.h"
#include "cli/cmd.h"

#include <stdio.h>
#include <string.h>

#include <sys/stat.h>

#include "experiments/frag.h"
#include "analysis/metric.h"
#include "analysis/plot.h"
#include "analysis/runplot.h"
#include "analysis/sumreport.h"

static void print_figs(const char *dir, const struct sumreport_figs *f)
{
	for (int i = 0; i < f->n; i++)
		printf("%s/%s.png  %s.svg  %s.gp  %s.dat\n", dir, f->name[i], f->name[i], f->name[i],
		       f->name[i]);
}

int cmd_plot(int argc, char **argv)
{
	const char *db = NULL, *dir = NULL;
	const char *metrics[64];
	size_t nmetric = 0;
	char mcanon[METRIC_NAME_MAX], merr[256];
	struct cli_args p;
	int c;
	cli_args_init(&p, "plot", argc, argv);
	while ((c = cli_next(&p)) != CLI_END)
		switch (c) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_OUT: dir = p.val; break;
		case OPT_METRIC:
			if (nmetric == 64)
				return cli_usage(&p, "at most 64 --metric");
			if (!metric_parse(p.val, mcanon, sizeof mcanon, merr, sizeof merr))
				return cli_usage(&p, "%s", merr);
			metrics[nmetric++] = p.val;
			break;
		case CLI_POS:
			if (db)
				return cli_usage(&p, "one database at a time ('%s', '%s')", db, p.val);
			db = p.val;
			break;
		}
	if (!db || !dir || !*dir)
		return cli_usage(&p, "%s", db ? "no output folder (-o DIR or --out DIR)" : "no database given");
	char err[1024], rbuf[4200];
	struct stat sb;
	if (stat(db, &sb) == 0 && S_ISDIR(sb.st_mode)) {   /* a sweep's or a plan's folder */
		snprintf(rbuf, sizeof rbuf, "%s/summary.db", db);
		if (stat(rbuf, &sb) != 0)
			snprintf(rbuf, sizeof rbuf, "%s/plan.json", db);
		db = rbuf;
	}
	int kind = sumreport_kind(db);
	if (kind != SUMREPORT_OTHER || frag_db_is(db) == 1) {
		struct sumreport_figs f = { 0 };
		int r = kind == SUMREPORT_SWEEP ? sumreport_sweep_plot(db, metrics, nmetric, dir, &f, err, sizeof err)
		        : kind == SUMREPORT_PLAN ? sumreport_plan_plot(db, dir, &f, err, sizeof err)
		        : frag_plot(db, dir, err, sizeof err);
		if (r == -2)   /* a --metric the summary does not have */
			return cli_usage(&p, "%s", err);
		if (r != 0) {
			fprintf(stderr, "hetlab plot: %s\n", err);
			return 1;
		}
		if (kind == SUMREPORT_OTHER)
			printf("%s: the frag allocation curves (see hetlab frag --plot)\n", dir);
		print_figs(dir, &f);
		return 0;
	}
	struct runplot_set set;
	int rc = runplot_draw(db, dir, NULL, &set, err, sizeof err);
	if (rc < 0) {
		fprintf(stderr, "hetlab plot: %s\n", err);
		return 1;
	}
	for (int i = 0; i < set.n; i++)
		printf("%s/%s.png  %s.svg  %s.gp  %s.dat\n", dir, set.fig[i].name, set.fig[i].name,
		       set.fig[i].name, set.fig[i].name);
	if (set.note[0])
		fprintf(stderr, "hetlab plot: note: %s\n", set.note);
	return 0;
}
