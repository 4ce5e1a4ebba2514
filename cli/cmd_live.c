/* cmd_live — `hetlab live` (the daemon) and its clients `hetlab submit`,
 * `hetlab queue`, `hetlab cancel`, `hetlab approve` (their arguments; what
 * they do is live/client.c), and `hetlab replay`. docs/live.md. */
#include "cli/cmd.h"
#include "live/client.h"
#include "live/daemon.h"
#include "traces/livecfg.h"

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

static const char *need_arg(int argc, char **argv, int *i, const char *cmd)
{
	if (*i + 1 >= argc) {
		fprintf(stderr, "hetlab %s: %s needs a value\n", cmd, argv[*i]);
		return NULL;
	}
	return argv[++*i];
}

int cmd_live(int argc, char **argv)
{
	const char *config = NULL, *state = NULL;
	struct live_opts o = { .metrics_port = -1 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		if (strcmp(a, "--config") == 0) {
			if (!(config = need_arg(argc, argv, &i, "live")))
				return 2;
		} else if (strcmp(a, "--executor") == 0) {
			if (!(o.executor = need_arg(argc, argv, &i, "live")))
				return 2;
		} else if (strcmp(a, "--policy") == 0) {
			if (!(o.policy = need_arg(argc, argv, &i, "live")))
				return 2;
		} else if (strcmp(a, "--state") == 0) {
			if (!(state = need_arg(argc, argv, &i, "live")))
				return 2;
		} else if (strcmp(a, "--metrics-addr") == 0) {
			if (!(o.metrics_addr = need_arg(argc, argv, &i, "live")))
				return 2;
		} else if (strcmp(a, "--metrics-port") == 0) {
			char *end;
			if (!(v = need_arg(argc, argv, &i, "live")))
				return 2;
			long p = strtol(v, &end, 10);
			if (*end || p < 0 || p > 65535) {
				fprintf(stderr, "hetlab live: --metrics-port: expected a port 0-65535, got '%s'\n", v);
				return 2;
			}
			o.metrics_port = (int)p;
			if (!o.metrics_addr)
				o.metrics_addr = "127.0.0.1";
		} else if (strcmp(a, "--metrics-public") == 0) {
			o.metrics_public = true;
		} else if (strcmp(a, "--exit-when-idle") == 0) {
			o.exit_when_idle = true;
		} else if (strcmp(a, "--max-s") == 0) {
			char *end;
			if (!(v = need_arg(argc, argv, &i, "live")))
				return 2;
			o.max_s = strtod(v, &end);
			if (*end || !(o.max_s > 0)) {
				fprintf(stderr, "hetlab live: --max-s: expected seconds > 0, got '%s'\n", v);
				return 2;
			}
		} else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
			o.quiet = true;
		} else {
			fprintf(stderr, "hetlab live: unknown argument '%s' (see hetlab help live)\n", a);
			return 2;
		}
	}
	if (!config) {
		fprintf(stderr, "hetlab live: --config LIVE.json is required (see docs/live.md)\n");
		return 2;
	}
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

/* --config FILE, --state DIR or --socket PATH at argv[*i]: 1 taken, 0 not
 * one of them, -1 a usage error (said). */
static int client_opt(int argc, char **argv, int *i, struct lclient *c)
{
	const char *a = argv[*i];
	const char **to = strcmp(a, "--config") == 0 ? &c->config : strcmp(a, "--state") == 0 ? &c->state
	                : strcmp(a, "--socket") == 0 ? &c->socket : NULL;
	if (!to)
		return 0;
	return (*to = need_arg(argc, argv, i, c->cmd)) ? 1 : -1;
}

int cmd_submit(int argc, char **argv)
{
	struct lclient c = { .cmd = "submit" };
	const char *job = NULL, *file = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int so = client_opt(argc, argv, &i, &c);
		if (so < 0)
			return 2;
		if (so > 0)
			continue;
		if (strcmp(a, "--job") == 0) {
			if (!(job = need_arg(argc, argv, &i, "submit")))
				return 2;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "hetlab submit: unknown option '%s'\n", a);
			return 2;
		} else if (!file) {
			file = a;
		} else {
			fprintf(stderr, "hetlab submit: one JOBS.jsonl file (or - for stdin) at most\n");
			return 2;
		}
	}
	if (!job && !file) {
		fprintf(stderr, "hetlab submit: give --job '{...}' or a JOBS.jsonl file (- for stdin)\n");
		return 2;
	}
	return lclient_submit(&c, job, file);
}

int cmd_cancel(int argc, char **argv)
{
	struct lclient c = { .cmd = "cancel" };
	int64_t ids[256];
	int n = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;
		int so = client_opt(argc, argv, &i, &c);
		if (so < 0)
			return 2;
		if (so > 0)
			continue;
		errno = 0;
		long long v = strtoll(a, &end, 10);
		if (end == a || *end || errno == ERANGE || v < 0 || v >= INT32_MAX || n == 256) {
			fprintf(stderr, "hetlab cancel: expected job ids 0..%d (at most 256), got '%s'\n", INT32_MAX - 1, a);
			return 2;
		}
		ids[n++] = v;
	}
	if (n == 0) {
		fprintf(stderr, "hetlab cancel: which jobs? (hetlab cancel --state DIR ID...)\n");
		return 2;
	}
	return lclient_cancel(&c, ids, n);
}

int cmd_approve(int argc, char **argv)
{
	struct lclient c = { .cmd = "approve" };
	const char *names[64];
	int n = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int so = client_opt(argc, argv, &i, &c);
		if (so < 0)
			return 2;
		if (so > 0)
			continue;
		if (a[0] == '-' || n == 64) {
			fprintf(stderr, "hetlab approve: unexpected argument '%s'\n", a);
			return 2;
		} else {
			names[n++] = a;
		}
	}
	if (n == 0) {
		fprintf(stderr, "hetlab approve: which tenants? (hetlab approve --state DIR TENANT...)\n");
		return 2;
	}
	return lclient_approve(&c, names, n);
}

int cmd_queue(int argc, char **argv)
{
	struct lclient c = { .cmd = "queue" };
	bool all = false, json = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int so = client_opt(argc, argv, &i, &c);
		if (so < 0)
			return 2;
		if (so > 0)
			continue;
		if (strcmp(a, "--all") == 0) {
			all = true;
		} else if (strcmp(a, "--json") == 0) {
			json = true;
		} else {
			fprintf(stderr, "hetlab queue: unknown argument '%s'\n", a);
			return 2;
		}
	}
	return lclient_queue(&c, all, json);
}

int cmd_replay(int argc, char **argv)
{
	const char *dir = NULL, *results = NULL;
	bool quiet = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--results") == 0) {
			if (!(results = need_arg(argc, argv, &i, "replay")))
				return 2;
		} else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
			quiet = true;
		} else if (a[0] == '-') {
			fprintf(stderr, "hetlab replay: unknown option '%s'\n", a);
			return 2;
		} else if (!dir) {
			dir = a;
		} else {
			fprintf(stderr, "hetlab replay: one STATE_DIR\n");
			return 2;
		}
	}
	if (!dir) {
		fprintf(stderr, "hetlab replay: give the daemon's STATE_DIR (its state.db holds the recording)\n");
		return 2;
	}
	char err[1024];
	if (results) {
		if (live_results(dir, results, err, sizeof err)) {
			fprintf(stderr, "hetlab replay: %s\n", err);
			return 1;
		}
		if (!quiet)
			printf("hetlab replay: %s written from the recording in %s\n", results, dir);
	}
	bool same;
	long nd = 0;
	FILE *out = quiet ? fopen("/dev/null", "w") : stdout;
	int rc = live_replay(dir, out ? out : stdout, &same, &nd, err, sizeof err);
	if (out && out != stdout)
		fclose(out);
	if (rc) {
		fprintf(stderr, "hetlab replay: %s\n", err);
		return 1;
	}
	printf("hetlab replay: %ld decisions logged live; the replay %s\n", nd,
	       same ? "makes the same decisions at the same times" : "DIFFERS (see above)");
	return same ? 0 : 1;
}
