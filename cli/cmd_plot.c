/* hetlab plot RUN.DB -o DIR — draws a run's figures with gnuplot. */
#include "cli/cmd.h"

#include <stdio.h>
#include <string.h>

#include <sys/stat.h>

#include "analysis/frag.h"
#include "analysis/plot.h"
#include "analysis/runplot.h"
#include "analysis/sumreport.h"

static const char usage[] =
	"usage: hetlab plot RUN.DB -o DIR\n"
	"       hetlab plot SWEEP_OUT/summary.db -o DIR [--metric M]...   (or the sweep's folder)\n"
	"       hetlab plot PLAN_OUT/plan.json -o DIR                      (or the plan's folder)\n"
	"       hetlab plot FRAG.DB -o DIR\n";

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
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--metric") == 0) {
			if (i + 1 >= argc || nmetric == 64) {
				fprintf(stderr, "hetlab plot: --metric needs a metric name\n%s", usage);
				return 2;
			}
			metrics[nmetric++] = argv[++i];
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(a, "-o") == 0 || strcmp(a, "--out") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "hetlab plot: %s needs a folder\n%s", a, usage);
				return 2;
			}
			dir = argv[++i];
		} else if (strncmp(a, "--out=", 6) == 0) {
			dir = a + 6;
		} else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, "hetlab plot: unknown option '%s'\n%s", a, usage);
			return 2;
		} else if (db) {
			fprintf(stderr, "hetlab plot: one database at a time ('%s', '%s')\n%s", db, a,
			        usage);
			return 2;
		} else {
			db = a;
		}
	}
	if (!db || !dir || !*dir) {
		fprintf(stderr, "hetlab plot: %s\n%s", db ? "no output folder (-o DIR)" :
		        "no database given", usage);
		return 2;
	}
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
