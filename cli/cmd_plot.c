/* hetlab plot RUN.DB -o DIR — draws a run's figures with gnuplot. */
#include "cli/cmd.h"

#include <stdio.h>
#include <string.h>

#include "analysis/plot.h"
#include "analysis/runplot.h"

static const char usage[] = "usage: hetlab plot RUN.DB -o DIR\n";

int cmd_plot(int argc, char **argv)
{
	const char *db = NULL, *dir = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
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
	char err[1024];
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
