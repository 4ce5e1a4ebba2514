/* hetlab jobs RUN.DB — a run's jobs listed like sacct (analysis/joblist.h).
 * Argument parsing only. */
#include "analysis/joblist.h"
#include "cli/args.h"
#include "cli/cmd.h"

int cmd_jobs(int argc, char **argv);
int cmd_jobs(int argc, char **argv)
{
	struct cli_args p;
	struct joblist_opts o = { 0 };
	const char *db = NULL;
	bool helpformat = false;
	int c;
	cli_args_init(&p, "jobs", argc, argv);
	while ((c = cli_next(&p)) != CLI_END)
		switch (c) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_FORMAT: o.format = p.val; break;
		case OPT_PARSABLE: o.parsable = 1; break;
		case OPT_PARSABLE2: o.parsable = 2; break;
		case OPT_NOHEADER: o.noheader = true; break;
		case OPT_STATE: o.states = p.val; break;
		case OPT_STARTTIME: o.start = p.val; break;
		case OPT_ENDTIME: o.end = p.val; break;
		case OPT_TENANTS: o.accounts = p.val; break;
		case OPT_ORIGIN: o.origin = p.val; break;
		case OPT_HELPFORMAT: helpformat = true; break;
		case CLI_POS:
			if (db)
				return cli_usage(&p, "one database at a time ('%s', '%s')", db, p.val);
			db = p.val;
			break;
		}
	if (helpformat) {
		joblist_print_fields(stdout);
		return CLI_OK;
	}
	if (!db)
		return cli_usage(&p, "which run? (hetlab jobs RUN.DB)");
	char err[1024];
	if (joblist_check(&o, err, sizeof err))
		return cli_usage(&p, "%s", err);
	if (joblist_print(db, &o, stdout, err, sizeof err)) {
		fprintf(stderr, "hetlab jobs: %s\n", err);
		return CLI_FAIL;
	}
	return CLI_OK;
}
