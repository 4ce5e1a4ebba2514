/* hetlab export openmetrics RUN.DB — a run's samples for Prometheus
 * (analysis/openmetrics.h). Argument parsing and the atomic --out. */
#include "analysis/openmetrics.h"
#include "analysis/joblist.h"
#include "cli/args.h"
#include "cli/cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cmd_export(int argc, char **argv);

static int export_openmetrics(int argc, char **argv)
{
	struct cli_args p;
	const char *db = NULL, *out_path = NULL, *origin = NULL;
	int c;
	cli_args_init(&p, "export openmetrics", argc, argv);
	while ((c = cli_next(&p)) != CLI_END)
		switch (c) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_OUT: out_path = p.val; break;
		case OPT_ORIGIN: origin = p.val; break;
		case CLI_POS:
			if (db)
				return cli_usage(&p, "one database at a time ('%s', '%s')", db, p.val);
			db = p.val;
			break;
		}
	if (!db)
		return cli_usage(&p, "which run? (hetlab export openmetrics RUN.DB)");
	if (out_path && !*out_path)
		return cli_usage(&p, "--out needs a file name");
	int64_t origin_s = -1;
	if (origin && (origin[0] == '+' || joblist_parse_time(origin, 0, &origin_s)))
		return cli_usage(&p, "--origin: '%s': expected YYYY-MM-DD[THH:MM[:SS]] (UTC)", origin);
	/* --out: a temporary sibling renamed over FILE, never a half-written file. */
	char tmp[4096 + 32];
	FILE *out = stdout;
	if (out_path) {
		snprintf(tmp, sizeof tmp, "%s.tmp-%ld", out_path, (long)getpid());
		if (!(out = fopen(tmp, "w"))) {
			fprintf(stderr, "hetlab export: %s: %s\n", out_path, strerror(errno));
			return CLI_FAIL;
		}
	}
	char err[1024];
	int rc = openmetrics_write(db, origin_s, out, err, sizeof err);
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
	}
	if (rc) {
		fprintf(stderr, "hetlab export: %s\n", err);
		return CLI_FAIL;
	}
	return CLI_OK;
}

int cmd_export(int argc, char **argv)
{
	int rc;
	const struct cli_cmd *sub = cli_sub_find("export", argc, argv, &rc);
	if (!sub)
		return rc;
	/* one sub-command so far */
	return export_openmetrics(argc - 1, argv + 1);
}
