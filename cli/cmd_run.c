/* hetlab run — load a scenario, build the workload, run the policy, write
 * run.db. Argument parsing and wiring only; the work is in the libraries. */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/metric.h"
#include "analysis/audit.h"
#include "analysis/recorder.h"
#include "analysis/tmpclean.h"
#include "cli/args.h"
#include "cli/cmd.h"
#include "config/runasm.h"
#include "config/scenario.h"
#include "policies/placement.h"
#include "policies/policy.h"
#include "sim/engine.h"


struct progress {
	struct timespec t0, last;
	bool tty, shown;
};

static double secs_since(const struct timespec *a)
{
	struct timespec b;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) + (double)(b.tv_nsec - a->tv_nsec) / 1e9;
}

static void show_progress(void *ctx, const struct sim *s)
{
	struct progress *p = ctx;
	double el = secs_since(&p->t0);
	if (!p->tty || el < 1.0 || secs_since(&p->last) < 0.25)
		return;
	clock_gettime(CLOCK_MONOTONIC, &p->last);
	fprintf(stderr, "\r  t = %8.2f days   jobs done %d / %d   %.2f M events/s   ",
	        simtime_to_s(s->now) / 86400.0, s->nfinished, s->njobs,
	        (double)s->nevents / el / 1e6);
	p->shown = true;
}

/* --scale-class CLASS=FACTOR: the class, or -1 when f is not of that form. */
static int scale_class_parse(const char *f, double *x)
{
	const char *eq = strchr(f, '=');
	char cname[32], *end;
	if (!eq || eq - f >= (int)sizeof cname)
		return -1;
	snprintf(cname, sizeof cname, "%.*s", (int)(eq - f), f);
	int c = job_class_parse(cname);
	*x = strtod(eq + 1, &end);
	return c < 0 || end == eq + 1 || *end || !(*x >= 0) ? -1 : c;
}

/* The planning knobs, on top of the scenario's own "scale": --scale-rate
 * (of a synthetic workload here; of a replay's arrivals in run_assemble),
 * --scale-size and --scale-class. */
static int scale_knobs(struct scenario *sc, bool trace, double scale_rate, double scale_size,
                       char **cscales, int ncscales, char *err, size_t errlen)
{
	bool replay = trace || sc->workload != SCN_SYNTH;
	if ((scale_size >= 0 || ncscales) && replay) {
		snprintf(err, errlen, "--scale-size and --scale-class apply to a synthetic workload, and this run "
		         "replays a trace (--scale-rate thins or replicates a trace's arrivals)");
		return -1;
	}
	if (scale_rate >= 0 && !replay)
		sc->synth.scale_rate *= scale_rate;
	if (scale_size > 0)
		sc->synth.scale_size *= scale_size;
	for (int i = 0; i < ncscales; i++) {
		double x;
		int c = scale_class_parse(cscales[i], &x);
		assert(c >= 0);   /* checked with the options */
		sc->synth.class_scale[c] *= x;
	}
	return 0;
}

/* path JSON-escaped into out; -1 when it does not fit. */
static int json_path(const char *path, char *out, size_t len)
{
	size_t o = 0;
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if (o + 7 >= len)
			return -1;
		if (*c == '"' || *c == '\\')
			o += (size_t)snprintf(out + o, len - o, "\\%c", *c);
		else if (*c < 0x20)
			o += (size_t)snprintf(out + o, len - o, "\\u%04x", *c);
		else
			out[o++] = (char)*c;
	}
	out[o] = '\0';
	return 0;
}

/* --nodes FILE: the cluster from a Kubernetes node list (kubectl get nodes
 * -o json; docs/traces.md, "Kubernetes"). With a scenario, FILE replaces its
 * from_inventory file; without one, the scenario is that cluster replaying
 * the --trace trace (paths as given: the scenario's directory is this one).
 * 0, -1 with err, or CLI_USAGE (printed). */
static int load_with_nodes(const struct cli_args *p, const char *scn_path, const char *nodes,
                           const char *trace, struct scenario *sc, char *err, size_t errlen)
{
	char nj[2 * PATH_MAX], tj[2 * PATH_MAX];
	if (json_path(nodes, nj, sizeof nj) || (trace && json_path(trace, tj, sizeof tj))) {
		snprintf(err, errlen, "--nodes %s: a path too long", nodes);
		return -1;
	}
	if (scn_path) {
		if (scenario_load(scn_path, sc, err, errlen))
			return -1;
		if (!sc->from_inventory) {
			scenario_free(sc);
			return cli_usage(p, "--nodes replaces the cluster of a scenario with \"from_inventory\", "
			                 "and %s has racks (give no scenario, or one with from_inventory)", scn_path);
		}
		/* relative to here, not to the scenario's directory */
		char cwd[PATH_MAX];
		if (nodes[0] == '/' || !getcwd(cwd, sizeof cwd) ||
		    strlen(cwd) + strlen(nodes) + 2 > sizeof sc->inv_file)
			snprintf(sc->inv_file, sizeof sc->inv_file, "%s", nodes);
		else
			snprintf(sc->inv_file, sizeof sc->inv_file, "%s/%s", cwd, nodes);
		sc->inv_format = INV_K8S;
		return 0;
	}
	if (!trace)
		return cli_usage(p, "--nodes without a scenario needs --trace (the pods: kubectl get pods -A -o json)");
	char text[5 * PATH_MAX];
	snprintf(text, sizeof text, "{ \"name\": \"kubernetes\", \"description\": \"the nodes of --nodes "
	         "replaying the pods of --trace\", \"from_inventory\": { \"file\": \"%s\", \"format\": \"k8s\" }, "
	         "\"workload\": { \"trace\": \"%s\" } }", nj, tj);
	return scenario_load_text(text, "(--nodes)", ".", sc, err, errlen);
}

/* One run: everything `hetlab run` does without --seeds. */
static int run_single(int argc, char **argv)
{
	const char *scn_path = NULL, *policy = NULL, *trace = NULL, *out = "run.db", *traces = NULL;
	const char *nodes = NULL, *placement = NULL, *keyfile = getenv("HETLAB_AUDIT_KEY");
	int level = RECORD_DEFAULT;
	struct audit_key *key = NULL;
	char head[AUDIT_HASH_HEX + 1] = "";
	bool label_blind = false;
	char **params = calloc((size_t)argc + 1, sizeof *params);
	char **cscales = calloc((size_t)argc + 1, sizeof *cscales);
	int ncscales = 0;
	double scale_rate = -1, scale_size = -1;
	int nparams = 0, rc = 1;
	long long seed = -1;
	bool lenient = false, quiet = false;
	char err[1024] = "";
	struct scenario sc;
	struct run r;
	bool have_sc = false, have_run = false;
	struct metric_window mwin = { 0 };   /* --store-metrics: not given = the run's own */
	bool store_metrics = false;
	bool one_thread = false;   /* --threads 1 */

	if (!params || !cscales) {
		free(params);
		free(cscales);
		return 1;
	}
	struct cli_args p;
	int opt;
	cli_args_init(&p, "run", argc, argv);
	while ((opt = cli_next(&p)) != CLI_END) {
		switch (opt) {
		case CLI_HELP: rc = CLI_OK; goto out;
		case CLI_ERR: rc = CLI_USAGE; goto out;
		case OPT_LENIENT: lenient = true; break;
		case OPT_QUIET: quiet = true; break;
		case OPT_LABEL_BLIND: label_blind = true; break;
		case OPT_POLICY:
			policy = p.val;
			if (!policy_find(policy)) {
				char names[256];
				policy_names(names, sizeof names);
				rc = cli_usage(&p, "--policy: unknown policy '%s' (known: %s)", policy, names);
				goto out;
			}
			break;
		case OPT_PLACEMENT:
			placement = p.val;
			if (!placement_find(placement)) {
				char names[256];
				placement_names(names, sizeof names);
				rc = cli_usage(&p, "--placement: unknown placement '%s' (known: %s)", placement, names);
				goto out;
			}
			break;
		case OPT_AUDIT_KEY: keyfile = p.val; break;
		case OPT_RECORD:
			if ((level = record_level_parse(p.val)) < 0) {
				cli_usage(&p, "--record: expected summary, jobs, events or full, got '%s'", p.val);
				rc = CLI_USAGE;
				goto out;
			}
			break;
		case OPT_TRACE: trace = p.val; break;
		case OPT_NODES: nodes = p.val; break;
		case OPT_OUT: out = p.val; break;
		case OPT_TRACES: traces = p.val; break;
		case OPT_STORE_METRICS:
			store_metrics = true;
			if (strcmp(p.val, "own") != 0 &&
			    metric_window_from_json_text(p.val, &mwin, err, sizeof err) < 0) {
				rc = cli_usage(&p, "--store-metrics: expected own or a window object: %s", err);
				goto out;
			}
			break;
		case OPT_THREADS:
			if (strcmp(p.val, "1") != 0 && strcmp(p.val, "2") != 0) {
				rc = cli_usage(&p, "--threads: expected 1 or 2, got '%s'", p.val);
				goto out;
			}
			one_thread = p.val[0] == '1';
			break;
		case OPT_PARAM: params[nparams++] = (char *)p.val; break;
		case OPT_SCALE_CLASS: {
			double x;
			if (scale_class_parse(p.val, &x) < 0) {
				rc = cli_usage(&p, "--scale-class %s: expected CLASS=FACTOR with CLASS one of "
				               "training, inference, batch, dev and FACTOR >= 0", p.val);
				goto out;
			}
			cscales[ncscales++] = (char *)p.val;
			break;
		}
		case OPT_SCALE_RATE:
		case OPT_SCALE_SIZE: {
			double x;
			if (cli_double(&p, 0, 1e6, &x)) {
				rc = CLI_USAGE;
				goto out;
			}
			*(opt == OPT_SCALE_RATE ? &scale_rate : &scale_size) = x;
			break;
		}
		case OPT_SEED:
			if (cli_long(&p, 0, LLONG_MAX, &seed)) {
				rc = CLI_USAGE;
				goto out;
			}
			break;
		case OPT_SEEDS: break;   /* cmd_run's */
		case CLI_POS:
			if (scn_path) {
				rc = cli_usage(&p, "one scenario only ('%s' and '%s')", scn_path, p.val);
				goto out;
			}
			scn_path = p.val;
			break;
		}
	}

	if (store_metrics && level < RECORD_JOBS) {
		rc = cli_usage(&p, "--store-metrics needs the job table: --record jobs or more");
		goto out;
	}
	if (keyfile && *keyfile && !(key = audit_key_load(keyfile, false, err, sizeof err)))
		goto out;
	if (nodes) {
		int lr = load_with_nodes(&p, scn_path, nodes, trace, &sc, err, sizeof err);
		if (lr) {
			rc = lr == CLI_USAGE ? CLI_USAGE : 1;
			goto out;
		}
	} else if (scenario_load(scn_path, &sc, err, sizeof err)) {
		goto out;
	}
	have_sc = true;
	if (seed >= 0)
		sc.seed = (uint64_t)seed;
	if (scale_knobs(&sc, trace != NULL, scale_rate, scale_size, cscales, ncscales, err, sizeof err))
		goto out;
	if (placement)
		snprintf(sc.place.strategy, sizeof sc.place.strategy, "%s", placement);
	if (label_blind)
		sc.place.label_blind = true;

	struct progress prog = { .tty = !quiet && isatty(2) };
	clock_gettime(CLOCK_MONOTONIC, &prog.t0);
	prog.last = prog.t0;
	struct recorder_opts ro = { .level = (enum record_level)level, .key = key, .head_out = head,
	                            .metrics = store_metrics ? &mwin : NULL,
	                            .one_thread = one_thread };
	struct run_opts o = {
		.policy = policy, .params = params, .nparams = nparams,
		.trace = trace, .traces_dir = cli_traces_dir(traces), .lenient = lenient,
		.scale_rate = scale_rate >= 0 ? &scale_rate : NULL,
		.progress = show_progress, .progress_ctx = &prog,
		.out = out, .rec = &ro, .version = HETLAB_VERSION, .notes = stderr, .who = "hetlab run",
	};
	int ar = run_assemble(&r, &sc, &o, err, sizeof err);
	have_run = true;
	if (ar == -2) {   /* a bad argument (--param, --out onto an input): nothing written */
		rc = cli_usage(&p, "%s", err);
		err[0] = '\0';
		goto out;
	}
	if (ar) {
		rc = 1;
		goto out;
	}
	if (run_go(&r, err, sizeof err)) {
		if (prog.shown)
			fputc('\n', stderr);
		goto out;
	}
	if (prog.shown)
		fprintf(stderr, "\r%78s\r", "");
	if (run_finish(&r, err, sizeof err))
		goto out;
	if (!quiet)
		printf("hetlab run: scenario %s, policy %s, seed %llu: %d jobs on %d nodes "
		       "(%lld cores, %lld GPUs), %.1f simulated days, %llu events in %.2f s -> %s\n",
		       sc.name, r.pol.ops->name, (unsigned long long)sc.seed, r.njobs, r.nnodes,
		       (long long)r.cores, (long long)r.gpus, simtime_to_s(r.s->now) / 86400.0,
		       (unsigned long long)r.s->nevents, r.wall_s, out);
	if (!quiet && key)   /* to be kept elsewhere: hetlab audit verify --expect-head */
		printf("hetlab run: audit head %s (level %s, authenticated by %s)\n", head,
		       record_level_name((enum record_level)level), audit_key_id(key));
	rc = 0;
out:
	if (rc && err[0])
		fprintf(stderr, "hetlab run: %s\n", err);
	if (have_run)
		run_free(&r);
	if (have_sc)
		scenario_free(&sc);
	audit_key_free(key);
	free(params);
	free(cscales);
	return rc;
}

/* --seeds A-B --out DIR: one run per seed, DIR/seed-N.db each, with the
 * same scenario and options. The workload streams do not depend on the
 * policy, so two directories made with different policies pair up by seed
 * (common random numbers) for `hetlab compare`. */
int cmd_run(int argc, char **argv)
{
	const char *seeds = NULL, *dir = NULL;
	bool one_seed = false;
	struct cli_args p;
	int c;
	tmpclean_install();   /* SIGINT, SIGTERM: remove the results file being written */
	cli_args_init(&p, "run", argc, argv);
	while ((c = cli_next(&p)) != CLI_END)
		switch (c) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_SEEDS: seeds = p.val; break;
		case OPT_OUT: dir = p.val; break;
		case OPT_SEED: one_seed = true; break;
		}
	if (!seeds)
		return run_single(argc, argv);
	long long lo, hi;
	char *end;
	errno = 0;
	lo = strtoll(seeds, &end, 10);
	if (errno || end == seeds || lo < 0 || (*end && *end != '-'))
		return cli_usage(&p, "--seeds: expected A-B or N (non-negative integers), got '%s'", seeds);
	hi = lo;
	if (*end == '-') {
		const char *b = end + 1;
		hi = strtoll(b, &end, 10);
		if (errno || end == b || *end || hi < lo || hi - lo >= 100000)
			return cli_usage(&p, "--seeds: expected A-B with A <= B (at most 100000 runs), got '%s'", seeds);
	}
	if (one_seed)
		return cli_usage(&p, "--seed and --seeds together: choose one");
	if (!dir)
		return cli_usage(&p, "--seeds needs --out DIR (one database per seed goes there)");
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "hetlab run: %s: cannot create the directory: %s\n", dir, strerror(errno));
		return 1;
	}
	/* argv plus --seed N --out DIR/seed-N.db (the last --out wins; run_single
	 * skips --seeds), so every spelling of the options carries over. */
	char **av = calloc((size_t)argc + 8, sizeof *av);
	if (!av)
		return 1;
	int n = 0, rc = 0;
	for (int i = 0; i < argc; i++)
		av[n++] = argv[i];
	char seedbuf[32], path[PATH_MAX];
	av[n] = (char *)"--seed";
	av[n + 1] = seedbuf;
	av[n + 2] = (char *)"--out";
	av[n + 3] = path;
	for (long long sd = lo; sd <= hi && rc == 0; sd++) {
		snprintf(seedbuf, sizeof seedbuf, "%lld", sd);
		snprintf(path, sizeof path, "%s/seed-%lld.db", dir, sd);
		rc = run_single(n + 4, av);
	}
	free(av);
	if (rc == 0)
		printf("hetlab run: %lld runs (seeds %lld-%lld) in %s\n", hi - lo + 1, lo, hi, dir);
	return rc;
}

