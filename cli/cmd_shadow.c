/* cmd_shadow — `hetlab shadow`: forecasts beside a Slurm cluster hetlab
 * does not control, read-only, and `hetlab shadow report DB`, their
 * accuracy (its arguments; what it does is live/shadow.c and
 * analysis/shadowdb.c). docs/forecast.md. */
#include "cli/args.h"
#include "cli/cmd.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/shadowdb.h"
#include "live/shadow.h"

static int num(struct cli_args *ap, const char *what, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(ap->val, &end);
	if (end == ap->val || *end || errno || !isfinite(v) || v < lo || v > hi)
		return cli_usage(ap, "--%s: expected a number %g..%g, got '%s'", what, lo, hi, ap->val);
	*out = v;
	return 0;
}

int cmd_shadow(int argc, char **argv)
{
	struct shadow_opts o = { .state_dir = "shadow", .every_s = 30, .draws = 20, .metrics_port = -1,
	                         .version = HETLAB_VERSION };
	const char *pos[3] = { 0 };
	int npos = 0;
	double v;
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "shadow", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END) {
		int rc = 0;
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case CLI_POS:
			if (npos == 2)
				return cli_usage(&ap, "unexpected argument '%s' (hetlab shadow report DB)", ap.val);
			pos[npos++] = ap.val;
			break;
		case OPT_SLURM_CONF: o.slurm_conf = ap.val; break;
		case OPT_GRES_CONF: o.gres_conf = ap.val; break;
		case OPT_STATE: o.state_dir = ap.val; break;
		case OPT_EVERY: rc = num(&ap, "every", 0.1, 86400, &o.every_s); break;
		case OPT_DRAWS: rc = num(&ap, "draws", 1, 1000, &v), o.draws = (int)v; break;
		case OPT_POLLS: rc = num(&ap, "polls", 1, 1e12, &v), o.polls = (int64_t)v; break;
		case OPT_MAX_S: rc = num(&ap, "max-s", 0.001, 1e9, &o.max_s); break;
		case OPT_METRICS_PORT: rc = num(&ap, "metrics-port", 0, 65535, &v), o.metrics_port = (int)v; break;
		case OPT_METRICS_ADDR: o.metrics_addr = ap.val; break;
		}
		if (rc)
			return rc;
	}
	char err[2048] = "";
	if (npos > 0) {
		if (strcmp(pos[0], "report") != 0)
			return cli_usage(&ap, "unexpected argument '%s': the only one is report (hetlab shadow report DB)", pos[0]);
		if (npos != 2)
			return cli_usage(&ap, "report: which results? (hetlab shadow report DIR/shadow.db)");
		if (shadowdb_report(pos[1], stdout, err, sizeof err)) {
			fprintf(stderr, "hetlab shadow report: %s\n", err);
			return CLI_FAIL;
		}
		return CLI_OK;
	}
	if (!o.slurm_conf)
		return cli_usage(&ap, "needs --slurm-conf FILE (the cluster's slurm.conf)");
	if (shadow_run(&o, stderr, err, sizeof err)) {
		fprintf(stderr, "hetlab shadow: %s\n", err);
		return CLI_FAIL;
	}
	return CLI_OK;
}
