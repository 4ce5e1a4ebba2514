/* cmd_forecast — `hetlab forecast` and `hetlab why`: the live daemon's
 * forecast of when waiting jobs start, and why a job waits (their
 * arguments; what they do is live/client.c lclient_forecast).
 * docs/forecast.md. */
#include "cli/args.h"
#include "cli/cmd.h"
#include "live/client.h"
#include "live/live_cfg.h"
#include "config/livecfg.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* --config, --state, --socket, a job id; the rest is the caller's. */
static int common(struct cli_args *ap, int opt, struct lclient *c, const char **config, int64_t *job)
{
	switch (opt) {
	case OPT_CONFIG: *config = ap->val; return 1;
	case OPT_STATE: c->state = ap->val; return 1;
	case OPT_SOCKET: c->socket = ap->val; return 1;
	case CLI_POS: {
		char *end;
		errno = 0;
		long long v = strtoll(ap->val, &end, 10);
		if (*job >= 0 || end == ap->val || *end || errno == ERANGE || v < 0 || v >= INT32_MAX)
			return cli_usage(ap, "expected one job id 0..%d, got '%s'", INT32_MAX - 1, ap->val);
		*job = v;
		return 1;
	}
	default: return 0;
	}
}

static int run(const char *name, int argc, char **argv, bool why)
{
	struct lclient c = { .cmd = name };
	struct live_cfg cfg;
	const char *config = NULL;
	int64_t job = -1;
	bool json = false;
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, name, argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END) {
		int r = common(&ap, opt, &c, &config, &job);
		if (r == 1)
			continue;
		if (r)
			return r;
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_JSON: json = true; break;
		}
	}
	if (why && job < 0)
		return cli_usage(&ap, "which job? (hetlab why --state DIR ID)");
	if (config) {
		char err[2048];
		if (livecfg_load(config, &cfg, err, sizeof err)) {
			fprintf(stderr, "hetlab %s: %s\n", name, err);
			return 1;
		}
		c.cfg = &cfg;
	}
	return lclient_forecast(&c, job, json, why);
}

int cmd_forecast(int argc, char **argv)
{
	return run("forecast", argc, argv, false);
}

int cmd_why(int argc, char **argv)
{
	return run("why", argc, argv, true);
}
