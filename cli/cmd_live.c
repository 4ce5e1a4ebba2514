/* cmd_live — `hetlab live` (the daemon) and its clients `hetlab submit`,
 * `hetlab queue`, `hetlab cancel`, and `hetlab replay`. docs/live.md. */
#include "cli/args.h"
#include "cli/cmd.h"
#include "live/daemon.h"
#include "live/state.h"
#include "policies/policy.h"
#include "sim/cluster.h"
#include "traces/livecfg.h"
#include "traces/scenario.h"
#include "traces/trace.h"

#include <jansson.h>
#include <signal.h>
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
	struct live_opts o = { .metrics_port = -1 };
	struct cli_args ap;
	int opt;
	long long port;
	cli_args_init(&ap, "live", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_CONFIG: config = ap.val; break;
		case OPT_EXECUTOR: o.executor = ap.val; break;
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

/* --config LIVE.json or --state DIR: the state directory. */
static int state_dir_of(const char *config, const char *state, char *out, size_t len, const char *cmd)
{
	if (state) {
		snprintf(out, len, "%s", state);
		return 0;
	}
	if (!config) {
		fprintf(stderr, "hetlab %s: give --state DIR or --config LIVE.json\n", cmd);
		return 2;
	}
	struct live_cfg cfg;
	char err[1024];
	if (livecfg_load(config, &cfg, err, sizeof err)) {
		fprintf(stderr, "hetlab %s: %s\n", cmd, err);
		return 1;
	}
	snprintf(out, len, "%s", cfg.state_dir);
	return 0;
}

/* Opens the state of --config/--state (read-only for ro). The exit status
 * to return: 0 opened, else 1 or 2 (said). */
static int open_state(const char *config, const char *state, const char *cmd, bool ro, struct lstate *st)
{
	char dir[4096], err[1024];
	int r = state_dir_of(config, state, dir, sizeof dir, cmd);
	if (r)
		return r;
	if ((ro ? lstate_open_ro : lstate_open)(st, dir, err, sizeof err)) {
		fprintf(stderr, "hetlab %s: %s\n", cmd, err);
		return 1;
	}
	return 0;
}

/* The daemon's scenario, as the state recorded it. */
static bool state_scenario(struct lstate *st, struct scenario *sc)
{
	char err[1024];
	char *scn = lstate_meta_dup(st, "scenario");
	bool ok = scn && scenario_load_text(scn, "the daemon's scenario", ".", sc, err, sizeof err) == 0;
	free(scn);
	return ok;
}

/* Queues n requests of `kind` (cancel: job ids; approve: tenants). */
static int queue_requests(struct lstate *st, const char *kind, const int64_t *ids, int n, const char *cmd)
{
	char err[1024];
	for (int k = 0; k < n; k++)
		if (lstate_inbox_add(st, kind, ids[k], NULL, err, sizeof err)) {
			fprintf(stderr, "hetlab %s: %s\n", cmd, err);
			return 1;
		}
	return 0;
}

/* Normalises one job line: fills submit_us and run_us (the daemon sets
 * the submit time; run_us is unknown live), checks the extras, parses it as
 * a trace line and binds its request to the cluster. Returns the text to
 * queue (malloc'd) or NULL with err. */
static char *check_job(const char *src, int64_t line, const char *text, struct cluster *cl, char *err, size_t errlen)
{
	json_error_t je;
	json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!o) {
		snprintf(err, errlen, "%s:%lld:%d: %s", src, (long long)line, je.column, je.text);
		return NULL;
	}
	if (!json_is_object(o)) {
		snprintf(err, errlen, "%s:%lld: $: expected a job object", src, (long long)line);
		json_decref(o);
		return NULL;
	}
	if (!json_object_get(o, "submit_us"))
		json_object_set_new(o, "submit_us", json_integer(0));
	if (!json_object_get(o, "run_us"))
		json_object_set_new(o, "run_us", json_integer(0));
	char *norm = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!norm) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	char where[600];
	snprintf(where, sizeof where, "%s:%lld", src, (long long)line);
	static const char *const extra[] = { "argv", "env", "cwd", "name", NULL };
	struct workload w;
	workload_init(&w);
	if (live_spec_check(where, norm, err, errlen) ||
	    trace_jsonl_parse_job(src, line, norm, strlen(norm), extra, &w, err, errlen)) {
		workload_free(&w);
		free(norm);
		return NULL;
	}
	if (cl && cluster_bind_workload(cl, w.str, w.nstr, w.jobs, w.n, err, errlen)) {
		char msg[1024];
		snprintf(msg, sizeof msg, "%s: %s", where, err);
		snprintf(err, errlen, "%s", msg);
		workload_free(&w);
		free(norm);
		return NULL;
	}
	if (cl && !cluster_can_ever_fit(cl, &w.jobs[0].req)) {
		snprintf(err, errlen, "%s: the request exceeds every node of the cluster: it could never run", where);
		workload_free(&w);
		free(norm);
		return NULL;
	}
	workload_free(&w);
	return norm;
}

int cmd_submit(int argc, char **argv)
{
	const char *config = NULL, *state = NULL, *job = NULL, *file = NULL;
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "submit", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_CONFIG: config = ap.val; break;
		case OPT_STATE: state = ap.val; break;
		case OPT_JOB: job = ap.val; break;
		case CLI_POS:
			if (file)
				return cli_usage(&ap, "one JOBS.jsonl file (or - for stdin) at most");
			file = ap.val;
			break;
		}
	if (!job && !file)
		return cli_usage(&ap, "give --job '{...}' or a JOBS.jsonl file (- for stdin)");
	char dir[4096];
	int r = state_dir_of(config, state, dir, sizeof dir, "submit");
	if (r)
		return r;
	char err[1024];
	struct lstate st;
	if (lstate_open(&st, dir, err, sizeof err)) {
		fprintf(stderr, "hetlab submit: %s\n", err);
		return 1;
	}
	/* The cluster to check requests against: the state's scenario, else
	 * the config's. */
	struct scenario sc;
	bool have_sc = false;
	if ((have_sc = state_scenario(&st, &sc))) {
	} else if (config) {
		struct live_cfg cfg;
		have_sc = livecfg_load(config, &cfg, err, sizeof err) == 0 && scenario_load(cfg.scenario, &sc, err, sizeof err) == 0;
	}
	int rc = 0;
	char **lines = NULL;
	int64_t n = 0, cap = 0;
	const char *src = job ? "--job" : strcmp(file, "-") == 0 ? "stdin" : file;
	if (job) {
		char *t = check_job(src, 1, job, have_sc ? &sc.cl : NULL, err, sizeof err);
		if (!t)
			rc = 1;
		else {
			lines = malloc(sizeof *lines);
			lines[n++] = t;
		}
	} else {
		FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
		if (!f) {
			snprintf(err, sizeof err, "%s: cannot open", file);
			rc = 1;
		}
		char *buf = NULL;
		size_t bcap = 0;
		ssize_t len;
		int64_t ln = 0;
		while (rc == 0 && f && (len = getline(&buf, &bcap, f)) >= 0) {
			ln++;
			while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
				buf[--len] = 0;
			if (len == 0)
				continue;
			char *t = check_job(src, ln, buf, have_sc ? &sc.cl : NULL, err, sizeof err);
			if (!t) {
				rc = 1;
				break;
			}
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				lines = realloc(lines, (size_t)cap * sizeof *lines);
			}
			lines[n++] = t;
		}
		free(buf);
		if (f && f != stdin)
			fclose(f);
	}
	if (rc == 0 && lstate_begin(&st, err, sizeof err) == 0) {
		for (int64_t k = 0; k < n && rc == 0; k++)
			if (lstate_inbox_add(&st, "submit", -1, lines[k], err, sizeof err))
				rc = 1;
		if (rc == 0 && lstate_commit(&st, err, sizeof err))
			rc = 1;
		if (rc)
			lstate_rollback(&st);
	} else if (rc == 0) {
		rc = 1;
	}
	if (rc)
		fprintf(stderr, "hetlab submit: %s\n", err);
	else
		printf("hetlab submit: %lld job%s queued for the daemon (%s); `hetlab queue --state %s` shows them\n",
		       (long long)n, n == 1 ? "" : "s", dir, dir);
	for (int64_t k = 0; k < n; k++)
		free(lines[k]);
	free(lines);
	if (have_sc)
		scenario_free(&sc);
	lstate_close(&st);
	return rc;
}

int cmd_cancel(int argc, char **argv)
{
	const char *config = NULL, *state = NULL;
	int64_t ids[256];
	int n = 0;
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "cancel", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_CONFIG: config = ap.val; break;
		case OPT_STATE: state = ap.val; break;
		case CLI_POS: {
			char *end;
			long long v = strtoll(ap.val, &end, 10);
			if (*end || end == ap.val || v < 0 || n == 256)
				return cli_usage(&ap, "expected job ids (at most 256), got '%s'", ap.val);
			ids[n++] = v;
			break;
		}
		}
	if (n == 0)
		return cli_usage(&ap, "which jobs? (hetlab cancel --state DIR ID...)");
	struct lstate st;
	int rc = open_state(config, state, "cancel", false, &st);
	if (rc)
		return rc;
	rc = queue_requests(&st, "cancel", ids, n, "cancel");
	lstate_close(&st);
	if (rc == 0)
		printf("hetlab cancel: %d cancellation%s queued for the daemon\n", n, n == 1 ? "" : "s");
	return rc;
}

int cmd_approve(int argc, char **argv)
{
	const char *config = NULL, *state = NULL;
	const char *names[64];
	int n = 0;
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "approve", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_CONFIG: config = ap.val; break;
		case OPT_STATE: state = ap.val; break;
		case CLI_POS:
			if (n == 64)
				return cli_usage(&ap, "at most 64 tenants ('%s')", ap.val);
			names[n++] = ap.val;
			break;
		}
	if (n == 0)
		return cli_usage(&ap, "which tenants? (hetlab approve --state DIR TENANT...)");
	struct lstate st;
	int rc = open_state(config, state, "approve", false, &st);
	if (rc)
		return rc;
	/* Tenant names are the scenario's (org.tenants); an index works too. */
	struct scenario sc;
	bool have_sc = state_scenario(&st, &sc);
	int64_t ids[64];
	for (int k = 0; k < n && rc == 0; k++) {
		char *end;
		long v = strtol(names[k], &end, 10);
		ids[k] = -1;
		if (!*end && end != names[k] && v >= 0)
			ids[k] = v;
		for (int32_t t = 0; have_sc && ids[k] < 0 && t < sc.org.nt; t++)
			if (strcmp(sc.org.t[t].name, names[k]) == 0)
				ids[k] = t;
		if (ids[k] < 0 || (have_sc && ids[k] >= sc.org.nt)) {
			fprintf(stderr, "hetlab approve: no tenant '%s' in the daemon's scenario%s\n", names[k],
			        have_sc ? "" : " (the daemon has not started on this state yet)");
			rc = 2;
		}
	}
	if (rc == 0)
		rc = queue_requests(&st, "approve", ids, n, "approve");
	if (have_sc)
		scenario_free(&sc);
	lstate_close(&st);
	if (rc == 0)
		printf("hetlab approve: %d approval%s queued for the daemon: the tenants' jobs held for quota are released\n",
		       n, n == 1 ? "" : "s");
	return rc;
}

int cmd_queue(int argc, char **argv)
{
	const char *config = NULL, *state = NULL;
	bool all = false, json = false;
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "queue", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_CONFIG: config = ap.val; break;
		case OPT_STATE: state = ap.val; break;
		case OPT_ALL: all = true; break;
		case OPT_JSON: json = true; break;
		case CLI_POS: return cli_usage(&ap, "unexpected argument '%s'", ap.val);
		}
	struct lstate st;
	char err[1024];
	int r = open_state(config, state, "queue", true, &st);
	if (r)
		return r;
	int rc = lstate_print_queue(&st, stdout, all, json, err, sizeof err);
	if (rc)
		fprintf(stderr, "hetlab queue: %s\n", err);
	lstate_close(&st);
	return rc ? 1 : 0;
}

int cmd_replay(int argc, char **argv)
{
	const char *dir = NULL, *results = NULL;
	bool quiet = false;
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "replay", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_RESULTS: results = ap.val; break;
		case OPT_QUIET: quiet = true; break;
		case CLI_POS:
			if (dir)
				return cli_usage(&ap, "one STATE_DIR");
			dir = ap.val;
			break;
		}
	if (!dir)
		return cli_usage(&ap, "give the daemon's STATE_DIR (its state.db holds the recording)");
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
