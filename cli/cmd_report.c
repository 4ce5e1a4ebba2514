/* hetlab report RUN.DB [--format text|json] — prints a run's summary. */
#include "cli/cmd.h"

#include <stdio.h>
#include <string.h>

#include "analysis/frag.h"
#include "analysis/report.h"

static const char usage[] = "usage: hetlab report RUN.DB [--format text|json]\n";

int cmd_report(int argc, char **argv)
{
	const char *db = NULL, *format = "text";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(a, "--format") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "hetlab report: --format needs a value\n%s", usage);
				return 2;
			}
			format = argv[++i];
		} else if (strncmp(a, "--format=", 9) == 0) {
			format = a + 9;
		} else if (a[0] == '-' && a[1] != '\0') {
			fprintf(stderr, "hetlab report: unknown option '%s'\n%s", a, usage);
			return 2;
		} else if (db) {
			fprintf(stderr, "hetlab report: one database at a time ('%s', '%s')\n%s",
			        db, a, usage);
			return 2;
		} else {
			db = a;
		}
	}
	if (!db) {
		fprintf(stderr, "hetlab report: no database given\n%s", usage);
		return 2;
	}
	int fmt = report_format_parse(format);
	if (fmt < 0) {
		fprintf(stderr, "hetlab report: unknown format '%s' (text or json)\n%s", format, usage);
		return 2;
	}
	char err[512];
	if (frag_db_is(db) == 1) {      /* a `hetlab frag` database */
		if (frag_report(db, fmt == REPORT_JSON, stdout, err, sizeof err) < 0) {
			fprintf(stderr, "hetlab report: %s\n", err);
			return 1;
		}
		return 0;
	}
	if (report_print(db, (enum report_format)fmt, stdout, err, sizeof err) < 0) {
		fprintf(stderr, "hetlab report: %s\n", err);
		return 1;
	}
	return 0;
}
