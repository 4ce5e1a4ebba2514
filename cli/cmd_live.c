/* cmd_live — `hetlab live` (the daemon) and its clients `hetlab submit`,
 * `hetlab queue`, `hetlab cancel`, `hetlab approve` (their arguments; what
 * they do is live/client.c), and `hetlab replay`. docs/live.md. */
#include "cli/args.h"
#include "cli/cmd.h"
#include "live/client.h"
#include "live/daemon.h"
#include "live/live_cfg.h"
#include "live/retain.h"
#include "policies/policy.h"
#include "config/livecfg.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int cmd_live(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_queue(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_approve(int argc, char **argv);

static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
	(void)sig;
	g_stop = 1;
}

int cmd_live(int argc, char **argv)
{
	const char *config = NULL, *state = NULL;
	struct live_opts o = { .metrics_port = -1, .load_cfg = livecfg_load };
	struct cli_args ap;
	int opt;
	long long port;
	cli_args_init(&ap, "live", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_CONFIG: config = ap.val; break;
		case OPT_EXECUTOR:
			o.executor = ap.val;
			if (!exec_find(o.executor)) {
				char names[256];
				exec_names(names, sizeof names, "");
				return cli_usage(&ap, "--executor: expected %s, got '%s'", names, o.executor);
			}
			break;
		case OPT_POLICY:
			o.policy = ap.val;
			if (!policy_find(o.policy)) {
				char names[256];
				policy_names(names, sizeof names);
				return cli_usage(&ap, "--policy: unknown policy '%s' (known: %s)", o.policy, names);
			}
			break;
		case OPT_STATE: state = ap.val; break;
		case OPT_METRICS_ADDR: o.metrics_addr = ap.val; break;
		case OPT_METRICS_PORT:
			if (cli_long(&ap, 0, 65535, &port))
				return CLI_USAGE;
			o.metrics_port = (int)port;
			if (!o.metrics_addr)
				o.metrics_addr = "127.0.0.1";
			break;
		case OPT_METRICS_PUBLIC: o.metrics_public = true; break;
		case OPT_EXIT_WHEN_IDLE: o.exit_when_idle = true; break;
		case OPT_MAX_S:
			if (cli_double(&ap, 0, 1e12, &o.max_s))
				return CLI_USAGE;
			if (!(o.max_s > 0))
				return cli_usage(&ap, "--max-s: expected seconds > 0, got '%s'", ap.val);
			break;
		case OPT_QUIET: o.quiet = true; break;
		case CLI_POS: return cli_usage(&ap, "unexpected argument '%s'", ap.val);
		}
	if (!config)
		return cli_usage(&ap, "--config LIVE.json is required (see docs/live.md)");
	struct live_cfg cfg;
	char err[1024];
	if (livecfg_load(config, &cfg, err, sizeof err)) {
		fprintf(stderr, "hetlab live: %s\n", err);
		return 1;
	}
	if (state)
		snprintf(cfg.state_dir, sizeof cfg.state_dir, "%s", state);
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	struct live *L;
	if (live_open(&L, &cfg, &o, LIVE_DAEMON, err, sizeof err)) {
		fprintf(stderr, "hetlab live: %s\n", err);
		return 1;
	}
	int rc = live_loop(L, &g_stop, err, sizeof err);
	live_close(L);
	if (rc) {
		fprintf(stderr, "hetlab live: %s\n", err);
		return 1;
	}
	return 0;
}

/* --config FILE, --state DIR or --socket PATH: 1 taken, 0 not one of them. */
static int client_opt(const struct cli_args *ap, int opt, struct lclient *c, const char **config)
{
	switch (opt) {
	case OPT_CONFIG: *config = ap->val; return 1;
	case OPT_STATE: c->state = ap->val; return 1;
	case OPT_SOCKET: c->socket = ap->val; return 1;
	default: return 0;
	}
}

/* The client's --config read (into *cfg). 0, or the exit status (said). */
static int client_cfg(struct lclient *c, const char *config, struct live_cfg *cfg)
{
	if (!config)
		return 0;
	char err[2048];
	if (livecfg_load(config, cfg, err, sizeof err)) {
		fprintf(stderr, "hetlab %s: %s\n", c->cmd, err);
		return 1;
	}
	c->cfg = cfg;
	return 0;
}

int cmd_submit(int argc, char **argv)
{
	struct lclient c = { .cmd = "submit" };
	struct live_cfg cfg;
	const char *config = NULL;
	const char *job = NULL, *file = NULL;
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "submit", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END) {
		if (client_opt(&ap, opt, &c, &config))
			continue;
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_JOB: job = ap.val; break;
		case OPT_DRY_RUN: c.dry_run = true; break;
		case CLI_POS:
			if (file)
				return cli_usage(&ap, "one JOBS.jsonl file (or - for stdin) at most");
			file = ap.val;
			break;
		}
	}
	if (!job && !file)
		return cli_usage(&ap, "give --job '{...}' or a JOBS.jsonl file (- for stdin)");
	int r = client_cfg(&c, config, &cfg);
	return r ? r : lclient_submit(&c, job, file);
}

int cmd_cancel(int argc, char **argv)
{
	struct lclient c = { .cmd = "cancel" };
	struct live_cfg cfg;
	const char *config = NULL;
	int64_t ids[256];
	int n = 0;
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "cancel", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END) {
		if (client_opt(&ap, opt, &c, &config))
			continue;
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case CLI_POS: {
			char *end;
			errno = 0;
			long long v = strtoll(ap.val, &end, 10);
			if (end == ap.val || *end || errno == ERANGE || v < 0 || v >= INT32_MAX || n == 256)
				return cli_usage(&ap, "expected job ids 0..%d (at most 256), got '%s'", INT32_MAX - 1, ap.val);
			ids[n++] = v;
			break;
		}
		}
	}
	if (n == 0)
		return cli_usage(&ap, "which jobs? (hetlab cancel --state DIR ID...)");
	int r = client_cfg(&c, config, &cfg);
	return r ? r : lclient_cancel(&c, ids, n);
}

int cmd_approve(int argc, char **argv)
{
	struct lclient c = { .cmd = "approve" };
	struct live_cfg cfg;
	const char *config = NULL;
	const char *names[64];
	int n = 0;
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "approve", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END) {
		if (client_opt(&ap, opt, &c, &config))
			continue;
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case CLI_POS:
			if (n == 64)
				return cli_usage(&ap, "at most 64 tenants ('%s')", ap.val);
			names[n++] = ap.val;
			break;
		}
	}
	if (n == 0)
		return cli_usage(&ap, "which tenants? (hetlab approve --state DIR TENANT...)");
	int r = client_cfg(&c, config, &cfg);
	return r ? r : lclient_approve(&c, names, n);
}

int cmd_queue(int argc, char **argv)
{
	struct lclient c = { .cmd = "queue" };
	struct live_cfg cfg;
	const char *config = NULL;
	bool all = false, json = false;
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "queue", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END) {
		if (client_opt(&ap, opt, &c, &config))
			continue;
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_ALL: all = true; break;
		case OPT_JSON: json = true; break;
		case CLI_POS: return cli_usage(&ap, "unexpected argument '%s'", ap.val);
		}
	}
	int r = client_cfg(&c, config, &cfg);
	return r ? r : lclient_queue(&c, all, json);
}

int cmd_replay(int argc, char **argv)
{
	const char *dir = NULL, *results = NULL, *snapfile = NULL;
	bool quiet = false, from_snapshot = false, no_compare = false;
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "replay", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_RESULTS: results = ap.val; break;
		case OPT_QUIET: quiet = true; break;
		case OPT_FROM_SNAPSHOT: from_snapshot = true; break;
		case OPT_SNAPSHOT: snapfile = ap.val; from_snapshot = true; break;
		case OPT_NO_COMPARE: no_compare = true; break;
		case CLI_POS:
			if (dir)
				return cli_usage(&ap, "one STATE_DIR");
			dir = ap.val;
			break;
		}
	if (!dir)
		return cli_usage(&ap, "give the daemon's STATE_DIR (its state.db holds the recording)");
	if (no_compare && (!results || from_snapshot))
		return cli_usage(&ap, "--no-compare goes with --results FILE, and without --from-snapshot or --snapshot");
	char err[1024];
	if (results) {
		if (live_results(dir, results, livecfg_load, err, sizeof err)) {
			fprintf(stderr, "hetlab replay: %s\n", err);
			return 1;
		}
		if (!quiet)
			printf("hetlab replay: %s written from the recording in %s\n", results, dir);
		if (no_compare)
			return 0;
	}
	bool same;
	long nd = 0;
	FILE *out = quiet ? fopen("/dev/null", "w") : stdout;
	int rc = live_replay(dir, livecfg_load, from_snapshot, snapfile, out ? out : stdout, &same, &nd, err, sizeof err);
	if (out && out != stdout)
		fclose(out);
	if (rc) {
		fprintf(stderr, "hetlab replay: %s\n", err);
		return 1;
	}
	printf("hetlab replay: %ld decisions logged live%s; the replay %s\n", nd, from_snapshot ? " after the snapshot" : "",
	       same ? "makes the same decisions at the same times" : "DIFFERS (see above)");
	return same ? 0 : 1;
}

/* "YYYY-MM-DD[THH:MM[:SS]][Z]" (UTC) or "@SECONDS": 0 with *t. */
static int parse_date(const char *s, double *t)
{
	if (s[0] == '@') {
		char *end;
		*t = strtod(s + 1, &end);
		return s[1] && !*end ? 0 : -1;
	}
	struct tm tm = { 0 };
	int n = 0, y, mo, d, h = 0, mi = 0, se = 0;
	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3)
		return -1;
	const char *p = s + n;
	if (*p == 'T' || *p == ' ') {
		int m = 0;
		if (sscanf(p + 1, "%2d:%2d%n", &h, &mi, &m) != 2)
			return -1;
		p += 1 + m;
		if (*p == ':') {
			if (sscanf(p + 1, "%2d%n", &se, &m) != 1)
				return -1;
			p += 1 + m;
		}
	}
	if (*p == 'Z')
		p++;
	if (*p || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = se;
	*t = (double)timegm(&tm);
	return 0;
}

int cmd_state_prune(int argc, char **argv)
{
	const char *dir = NULL;
	bool quiet = false, have = false;
	double cutoff = 0, days;
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "state-prune", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_QUIET: quiet = true; break;
		case OPT_BEFORE:
			if (have)
				return cli_usage(&ap, "give one of --before and --keep-days");
			if (parse_date(ap.val, &cutoff))
				return cli_usage(&ap, "--before: expected YYYY-MM-DD[THH:MM[:SS]] (UTC) or @UNIX_SECONDS, got '%s'",
				                 ap.val);
			have = true;
			break;
		case OPT_KEEP_DAYS:
			if (have)
				return cli_usage(&ap, "give one of --before and --keep-days");
			if (cli_double(&ap, 0, 1e6, &days))
				return CLI_USAGE;
			struct timespec now;
			clock_gettime(CLOCK_REALTIME, &now);
			cutoff = (double)now.tv_sec + (double)now.tv_nsec / 1e9 - days * 86400.0;
			have = true;
			break;
		case CLI_POS:
			if (dir)
				return cli_usage(&ap, "one STATE_DIR");
			dir = ap.val;
			break;
		}
	if (!dir)
		return cli_usage(&ap, "give the daemon's STATE_DIR");
	if (!have)
		return cli_usage(&ap, "give --before DATE or --keep-days N (what was recorded before it is archived)");
	char err[2048];
	FILE *out = quiet ? fopen("/dev/null", "w") : stdout;
	int rc = lretain_prune(dir, cutoff, out ? out : stdout, err, sizeof err);
	if (out && out != stdout)
		fclose(out);
	if (rc) {
		fprintf(stderr, "hetlab state-prune: %s\n", err);
		return 1;
	}
	return 0;
}
