/* hetlab report RUN.DB [--format text|json|markdown|html] [--out FILE] —
 * prints a run's summary. */
#include "cli/args.h"
#include "cli/cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "experiments/frag.h"
#include "analysis/metric.h"
#include "analysis/report.h"
#include "analysis/sumreport.h"

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
	char mcanon[METRIC_NAME_MAX], merr[256];
	struct cli_args p;
	int c;
	cli_args_init(&p, "report", argc, argv);
	while ((c = cli_next(&p)) != CLI_END)
		switch (c) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_FORMAT: format = p.val; break;
		case OPT_OUT: out_path = p.val; break;
		case OPT_METRIC:
			if (nmetric == 64)
				return cli_usage(&p, "at most 64 --metric");
			if (!metric_parse(p.val, mcanon, sizeof mcanon, merr, sizeof merr))
				return cli_usage(&p, "%s", merr);
			metrics[nmetric++] = p.val;
			break;
		case OPT_WARMUP:
		case OPT_COOLDOWN:
		case OPT_ARRIVALS_ONLY:
			if (cli_window_opt(&p, c, &win))
				return CLI_USAGE;
			break;
		case CLI_POS:
			if (db)
				return cli_usage(&p, "one database at a time ('%s', '%s')", db, p.val);
			db = p.val;
			break;
		}
	if (!db) {
		return cli_usage(&p, "no database given");
	}
	if (out_path && !*out_path) {
		return cli_usage(&p, "--out needs a file name");
	}
	int fmt = report_format_parse(format);
	if (fmt < 0) {
		return cli_usage(&p, "unknown format '%s' (text, json, markdown or html)", format);
	}
	char err[1024], warn[1024] = "", rbuf[4200];
	db = resolve(db, rbuf, sizeof rbuf);
	int kind = sumreport_kind(db);          /* a sweep's summary or a plan's output */
	if (kind != SUMREPORT_OTHER && fmt != REPORT_TEXT && fmt != REPORT_HTML) {
		fprintf(stderr, "hetlab report: %s: a sweep summary or a plan output is reported as text "
		        "or html\n", db);
		return 2;
	}
	bool html = fmt == REPORT_HTML;
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
	int rc = kind == SUMREPORT_SWEEP && html ? sumreport_sweep_html(db, metrics, nmetric, out, warn,
	                                                                  sizeof warn, err, sizeof err)
	         : kind == SUMREPORT_SWEEP ? sumreport_sweep(db, metrics, nmetric, out, err, sizeof err)
	         : kind == SUMREPORT_PLAN && html ? sumreport_plan_html(db, out, warn, sizeof warn, err,
	                                                               sizeof err)
	         : kind == SUMREPORT_PLAN ? sumreport_plan(db, out, err, sizeof err)
	         : frag ? frag_report(db, fmt == REPORT_JSON, out, err, sizeof err)
	         : report_write_window(db, (enum report_format)fmt, &win, out, warn, sizeof warn, err,
	                               sizeof err);
	int ret = 0;
	if (rc == -2 && out_path) {   /* a --metric the summary does not have: nothing written */
		fclose(out);
		remove(tmp);
		free(tmp);
		return cli_usage(&p, "%s", err);
	}
	if (rc == -2)
		return cli_usage(&p, "%s", err);
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
