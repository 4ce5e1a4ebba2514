/* hetlab report RUN.DB [--format text|json|markdown|html] [--out FILE] —
 * prints a run's summary. */
#include "cli/cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "analysis/frag.h"
#include "analysis/metric.h"
#include "analysis/report.h"
#include "analysis/sumreport.h"

static const char usage[] =
	"usage: hetlab report RUN.DB [--format text|json|markdown|html] [--out FILE]\n"
	"                     [--warmup DUR] [--cooldown DUR] [--arrivals-only]\n"
	"       hetlab report SWEEP_OUT/summary.db [--metric M]...   (or the sweep's folder)\n"
	"       hetlab report PLAN_OUT/plan.json                      (or the plan's folder)\n"
	"       hetlab report FRAG.DB [--format text|json]\n";

/* A sweep's or a plan's folder stands for its summary.db or plan.json. */
static const char *resolve(const char *path, char *buf, size_t len)
{
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return path;
	snprintf(buf, len, "%s/summary.db", path);
	if (stat(buf, &st) == 0)
		return buf;
	snprintf(buf, len, "%s/plan.json", path);
	return stat(buf, &st) == 0 ? buf : path;
}

int cmd_report(int argc, char **argv)
{
	const char *db = NULL, *format = "text", *out_path = NULL;
	struct metric_window win = { 0 };
	const char *metrics[64];
	size_t nmetric = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char werr[256];
		int wr = metric_window_arg(argc, argv, &i, &win, werr, sizeof werr);
		if (wr < 0) {
			fprintf(stderr, "hetlab report: %s\n%s", werr, usage);
			return 2;
		}
		if (wr > 0)
			continue;
		if (strcmp(a, "--metric") == 0) {
			if (i + 1 >= argc || nmetric == 64) {
				fprintf(stderr, "hetlab report: --metric needs a metric name\n%s", usage);
				return 2;
			}
			metrics[nmetric++] = argv[++i];
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(a, "--format") == 0 || strcmp(a, "--out") == 0 ||
		           strcmp(a, "-o") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "hetlab report: %s needs a value\n%s", a, usage);
				return 2;
			}
			if (strcmp(a, "--format") == 0)
				format = argv[++i];
			else
				out_path = argv[++i];
		} else if (strncmp(a, "--format=", 9) == 0) {
			format = a + 9;
		} else if (strncmp(a, "--out=", 6) == 0) {
			out_path = a + 6;
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
	if (out_path && !*out_path) {
		fprintf(stderr, "hetlab report: --out needs a file name\n%s", usage);
		return 2;
	}
	int fmt = report_format_parse(format);
	if (fmt < 0) {
		fprintf(stderr, "hetlab report: unknown format '%s' (text, json, markdown or html)\n%s",
		        format, usage);
		return 2;
	}
	char err[1024], warn[1024] = "", rbuf[4200];
	db = resolve(db, rbuf, sizeof rbuf);
	int kind = sumreport_kind(db);          /* a sweep's summary or a plan's output */
	if (kind != SUMREPORT_OTHER && fmt != REPORT_TEXT) {
		fprintf(stderr, "hetlab report: %s: a sweep summary or a plan output is reported as text\n", db);
		return 2;
	}
	bool frag = kind == SUMREPORT_OTHER && frag_db_is(db) == 1;   /* a `hetlab frag` database */
	if (frag && fmt != REPORT_TEXT && fmt != REPORT_JSON) {
		fprintf(stderr, "hetlab report: %s: a frag database is reported as text or json\n", db);
		return 2;
	}
	/* With --out, the report goes to a temporary sibling renamed over FILE
	 * at the end: never a half-written file. */
	FILE *out = stdout;
	char *tmp = NULL;
	if (out_path) {
		size_t len = strlen(out_path) + 32;
		if (!(tmp = malloc(len))) {
			fprintf(stderr, "hetlab report: out of memory\n");
			return 1;
		}
		snprintf(tmp, len, "%s.tmp-%ld", out_path, (long)getpid());
		if (!(out = fopen(tmp, "w"))) {
			fprintf(stderr, "hetlab report: %s: %s\n", out_path, strerror(errno));
			free(tmp);
			return 1;
		}
	}
	int rc = kind == SUMREPORT_SWEEP ? sumreport_sweep(db, metrics, nmetric, out, err, sizeof err)
	         : kind == SUMREPORT_PLAN ? sumreport_plan(db, out, err, sizeof err)
	         : frag ? frag_report(db, fmt == REPORT_JSON, out, err, sizeof err)
	         : report_write_window(db, (enum report_format)fmt, &win, out, warn, sizeof warn, err,
	                               sizeof err);
	int ret = 0;
	if (out_path) {
		if (fclose(out) != 0 && rc == 0) {
			snprintf(err, sizeof err, "%s: write error", out_path);
			rc = -1;
		}
		if (rc == 0 && rename(tmp, out_path) != 0) {
			snprintf(err, sizeof err, "%s: %s", out_path, strerror(errno));
			rc = -1;
		}
		if (rc != 0)
			remove(tmp);
		free(tmp);
	}
	if (rc != 0) {
		fprintf(stderr, "hetlab report: %s\n", err);
		ret = 1;
	} else if (warn[0]) {
		fprintf(stderr, "hetlab report: warning: %s\n", warn);
	}
	return ret;
}
