/* hetlab run — load a scenario, build the workload, run the policy, write
 * run.db. Argument parsing and wiring only; the work is in the libraries. */
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
#include "analysis/notify.h"
#include "analysis/tmpclean.h"
#include "config/tieredcfg.h"
#include "config/slurmcfg.h"
#include "policies/health.h"
#include "cli/args.h"
#include "cli/cmd.h"
#include "policies/policy.h"
#include "sim/engine.h"
#include "traces/anytrace.h"
#include "traces/sacct.h"
#include "config/scenario.h"
#include "traces/trace.h"
#include "traces/tscale.h"


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

static int read_trace(const char *path, bool lenient, const struct swf_shape *shape,
                      struct workload *w, char *err, size_t errlen)
{
	if (access(path, R_OK) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return trace_read_shaped(path, lenient, shape, w, NULL, err, errlen);
}

/* Sets cfg from the scenario's policy_params and the --param flags. */
static int policy_params(const struct policy_ops *pol, const struct scenario *sc,
                         char **flags, int nflags, struct policy_cfg *cfg, char *err, size_t errlen)
{
	char known[POLICY_MAX_PARAMS * (HL_NAME_MAX + 2)] = "";
	size_t off = 0;
	for (int k = 0; pol->params && pol->params[k].name && off < sizeof known; k++)
		off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", k ? ", " : "", pol->params[k].name);
	if (!known[0])
		snprintf(known, sizeof known, "none");
	policy_cfg_defaults(pol, cfg);
	for (int i = 0; i < sc->nparams + nflags; i++) {
		char name[HL_NAME_MAX], where[PATH_MAX + 128];
		double val;
		if (i < sc->nparams) {
			snprintf(name, sizeof name, "%s", sc->params[i].name);
			val = sc->params[i].value;
			snprintf(where, sizeof where, "%s: %s", sc->file, sc->params[i].path);
		} else {
			const char *f = flags[i - sc->nparams], *eq = strchr(f, '=');
			char *end;
			if (!eq || eq == f) {
				snprintf(err, errlen, "--param %s: expected NAME=VALUE", f);
				return -1;
			}
			snprintf(name, sizeof name, "%.*s", (int)(eq - f), f);
			val = strtod(eq + 1, &end);
			if (end == eq + 1 || *end) {
				snprintf(err, errlen, "--param %s: expected a number after '='", f);
				return -1;
			}
			snprintf(where, sizeof where, "--param %s", f);
		}
		int k = policy_param_index(pol, name);
		if (k < 0) {
			snprintf(err, errlen, "%s: policy '%s' has no parameter '%s' (it has: %s)",
			         where, pol->name, name, known);
			return -1;
		}
		const struct policy_param *p = &pol->params[k];
		if (!(val >= p->min && val <= p->max)) {
			snprintf(err, errlen, "%s: %s must be in [%g, %g], got %g", where, name, p->min, p->max, val);
			return -1;
		}
		cfg->v[k] = val;
	}
	return 0;
}


/* One run: everything `hetlab run` does without --seeds. */
static int run_single(int argc, char **argv)
{
	const char *scn_path = NULL, *policy = NULL, *trace = NULL, *out = "run.db", *traces = NULL;
	const char *placement = NULL, *keyfile = getenv("HETLAB_AUDIT_KEY");
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
	struct workload w;
	struct sim s;
	struct recorder *rec = NULL;
	const struct policy_ops *pol = NULL;
	struct policy_cfg cfg;
	void *pstate = NULL;
	bool have_sc = false, have_sim = false;
	struct sim_health hmon = { 0 };
	struct metric_window mwin = { 0 };   /* --store-metrics: not given = the run's own */
	bool store_metrics = false;
	bool one_thread = false;   /* --threads 1 */

	workload_init(&w);
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
		case OPT_PLACEMENT: placement = p.val; break;
		case OPT_AUDIT_KEY: keyfile = p.val; break;
		case OPT_RECORD:
			if ((level = record_level_parse(p.val)) < 0) {
				cli_usage(&p, "--record: expected summary, jobs, events or full, got '%s'", p.val);
				rc = CLI_USAGE;
				goto out;
			}
			break;
		case OPT_TRACE: trace = p.val; break;
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
		case OPT_SCALE_CLASS: cscales[ncscales++] = (char *)p.val; break;
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
	if (scenario_load(scn_path, &sc, err, sizeof err))
		goto out;
	have_sc = true;
	if (seed >= 0)
		sc.seed = (uint64_t)seed;
	if (policy)
		snprintf(sc.policy, sizeof sc.policy, "%s", policy);
	if (!(pol = policy_find(sc.policy))) {
		char names[256];
		policy_names(names, sizeof names);
		if (policy)
			snprintf(err, sizeof err, "--policy: unknown policy '%s' (known: %s)", sc.policy, names);
		else
			snprintf(err, sizeof err, "%s: $.policy: unknown policy '%s' (known: %s)", sc.file, sc.policy, names);
		goto out;
	}
	if (policy_params(pol, &sc, params, nparams, &cfg, err, sizeof err))
		goto out;

	/* Planning knobs: on top of the scenario's own "scale". */
	bool replay = trace || sc.workload != SCN_SYNTH;
	if ((scale_size >= 0 || ncscales) && replay) {
		snprintf(err, sizeof err, "--scale-size and --scale-class apply to a synthetic workload, and this run "
		         "replays a trace (--scale-rate thins or replicates a trace's arrivals)");
		goto out;
	}
	if (scale_rate >= 0 && !replay)
		sc.synth.scale_rate *= scale_rate;
	if (scale_size > 0)
		sc.synth.scale_size *= scale_size;
	for (int i = 0; i < ncscales; i++) {
		const char *f = cscales[i], *eq = strchr(f, '=');
		char cname[32], *end;
		int c = -1;
		double x = 0;
		if (eq && eq - f < (int)sizeof cname) {
			snprintf(cname, sizeof cname, "%.*s", (int)(eq - f), f);
			c = job_class_parse(cname);
			x = strtod(eq + 1, &end);
		}
		if (c < 0 || end == eq + 1 || *end || !(x >= 0)) {
			snprintf(err, sizeof err, "--scale-class %s: expected CLASS=FACTOR with CLASS one of "
			         "training, inference, batch, dev", f);
			goto out;
		}
		sc.synth.class_scale[c] *= x;
	}

	if (sc.from_inventory && scenario_build_inventory(&sc, cli_traces_dir(traces), err, sizeof err))
		goto out;
	char tpath[PATH_MAX + 64] = "";
	if (trace) {
		snprintf(tpath, sizeof tpath, "%s", trace);
	} else if (sc.has_workload && sc.workload == SCN_TRACE) {
		scenario_trace_path(&sc, cli_traces_dir(traces), tpath, sizeof tpath);
		if (access(tpath, R_OK) != 0 && strncmp(sc.trace, "$TRACES/", 8) == 0) {
			snprintf(err, sizeof err,
			         "%s: trace %s not found in the trace directory %s; point --traces or "
			         "HETLAB_TRACES at a copy of the shared traces (see docs/traces.md for where to get them)",
			         sc.file, sc.trace + 8, cli_traces_dir(traces));
			goto out;
		}
	}
	if (!tpath[0] && !sc.has_workload) {
		snprintf(err, sizeof err, "%s: $: missing key \"workload\" (a scenario without one is for `hetlab live`; "
		         "give --trace FILE to run it on a trace)", sc.file);
		goto out;
	}
	/* The recorder renames its result over --out: never over an input. */
	const char *same = cli_same_file(out, tpath) ? "trace" : cli_same_file(out, scn_path) ? "scenario" : NULL;
	if (same) {
		snprintf(err, sizeof err, "--out %s is the %s this run reads: the result would replace it "
		         "(give another output file)", out, same);
		rc = 2;
		goto out;
	}
	if (tpath[0]) {
		sc.swf_shape.inv = sc.from_inventory ? &sc.inv_map : NULL;
		sc.swf_shape.cat = &sc.cl.cat;
		if (read_trace(tpath, lenient || sc.lenient, &sc.swf_shape, &w, err, sizeof err))
			goto out;
	} else if (trace_synth(&sc.synth, sc.seed, &w, err, sizeof err)) {
		char msg[sizeof err];
		snprintf(msg, sizeof msg, "%s: %s", sc.file, err);
		snprintf(err, sizeof err, "%s", msg);
		goto out;
	}
	/* Demand scaling of a replay: thinning or replication (traces/tscale.h). */
	if (replay && scale_rate >= 0 && workload_scale_rate(&w, scale_rate, sc.seed, err, sizeof err))
		goto out;
	if (w.n == 0 && tpath[0])
		fprintf(stderr, "hetlab run: warning: the trace %s has no jobs (%lld lines read, %lld "
		        "skipped as malformed, %lld unusable): the result holds an empty run\n", tpath,
		        (long long)w.lines, (long long)w.skipped_malformed, (long long)w.skipped_unusable);
	else if (w.n == 0)
		fprintf(stderr, "hetlab run: warning: %s: the synthetic workload has no jobs (every class's "
		        "rate is 0?): the result holds an empty run\n", sc.file);
	/* What the reader did to an extended SWF log (Unix times, memory units,
	 * field 21) or a Slurm dump (runs merged, signs of requeues): said here
	 * and kept in the run's meta table. */
	char trace_notes[1024] = "";
	if (tpath[0])
		trace_notes_of(&w, trace_notes, sizeof trace_notes);
	for (const char *n = trace_notes; *n; ) {
		const char *e = strchr(n, '\n');
		int len = e ? (int)(e - n) : (int)strlen(n);
		fprintf(stderr, "hetlab run: note: %s: %.*s\n", tpath, len, n);
		n += len + (e != NULL);
	}
	if (sc.from_trace && scenario_size_from_trace(&sc, &w, err, sizeof err))
		goto out;
	if (trace && sc.workload == SCN_SYNTH)
		sc.speed_model = false;   /* a trace given on the command line replays as recorded */
	/* A Slurm dump's jobs whose partition or GPU type no node has: said
	 * before the run rather than rejected at submit (--lenient runs them so). */
	int64_t nmiss = tpath[0] ? sacct_check_labels(&w, &sc.swf_shape, &sc.cl, err, sizeof err) : 0;
	if (nmiss < 0 || (nmiss > 0 && !lenient && !sc.lenient)) {
		char msg[sizeof err];
		snprintf(msg, sizeof msg, "%s: %s (label the scenario's nodes so, or --lenient to run them: they "
		         "are rejected at submit)", tpath, nmiss < 0 ? "out of memory" : err);
		snprintf(err, sizeof err, "%s", msg);
		goto out;
	}
	if (nmiss > 0)
		fprintf(stderr, "hetlab run: warning: %s: %s (rejected at submit)\n", tpath, err);
	if (cluster_bind_workload(&sc.cl, w.str, w.nstr, w.jobs, w.n, err, sizeof err)) {
		char msg[sizeof err];
		snprintf(msg, sizeof msg, "%s: %s", tpath[0] ? tpath : sc.file, err);
		snprintf(err, sizeof err, "%s", msg);
		goto out;
	}
	if (sc.tiered && tiered_bind(sc.tiered, &sc.cl, err, sizeof err)) {
		char msg[sizeof err];
		snprintf(msg, sizeof msg, "%s: %s", sc.file, err);
		snprintf(err, sizeof err, "%s", msg);
		goto out;
	}
	/* The "slurm" block's node names and the trace's names (errors of
	 * the block name the scenario, a job's the trace). */
	if (sc.slurm && slurm_cfg_bind(sc.slurm, &sc.cl, &w, err, sizeof err)) {
		char msg[sizeof err];
		snprintf(msg, sizeof msg, "%s: %s", err[0] == '$' ? sc.file : tpath[0] ? tpath : sc.file, err);
		snprintf(err, sizeof err, "%s", msg);
		goto out;
	}
	if (sc.power.enabled && power_init(&sc.cl, &sc.power)) {
		snprintf(err, sizeof err, "out of memory setting up the power model");
		goto out;
	}
	if (placement)
		snprintf(sc.place.strategy, sizeof sc.place.strategy, "%s", placement);
	if (label_blind)
		sc.place.label_blind = true;

	struct progress prog = { .tty = !quiet && isatty(2) };
	clock_gettime(CLOCK_MONOTONIC, &prog.t0);
	prog.last = prog.t0;
	struct sim_cfg scfg = {
		.sample_every_us = sc.sample_every_us,
		.horizon_us = sc.horizon_us,
		.keep_overruns = !sc.enforce_walltime,
		.speed_model = sc.speed_model,
		.org = &sc.org,
		.env = sc.env,
		.nenv = sc.nenv,
		.fault = sc.faults ? &sc.fault : NULL,
		.seed = sc.seed,
		.progress = show_progress,
		.progress_ctx = &prog,
	};
	memcpy(scfg.ckpt, sc.ckpt, sizeof scfg.ckpt);

	struct policy_env env = { .cl = &sc.cl, .njobs = w.n, .placement = sc.place.strategy,
	                          .label_blind = sc.place.label_blind, .seed = sc.seed,
	                          .org = &sc.org, .sim = &scfg, .tiered = sc.tiered,
	                          .slurm = sc.slurm };
	if (pol->init && pol->init(&pstate, &env, &cfg, err, sizeof err)) {
		if (!err[0])
			snprintf(err, sizeof err, "policy '%s' failed to initialise (out of memory)", pol->name);
		goto out;
	}

	int32_t njobs = w.n;
	int64_t skipped_malformed = w.skipped_malformed, skipped_unusable = w.skipped_unusable;
	struct job *jobs = w.jobs;
	struct job_truth *truth = w.truth;
	w.jobs = NULL;
	w.truth = NULL;
	w.n = w.cap = 0;
	int32_t nnodes = sc.cl.nnodes;
	int64_t cores = sc.cl.total_cores, gpus = sc.cl.total_gpus;
	if (sim_init(&s, &scfg, &sc.cl, jobs, truth, njobs)) {
		snprintf(err, sizeof err, "out of memory setting up the run");
		goto out;
	}
	have_sim = true;
	struct sim_sched sched;
	policy_to_sched(pol, pstate, &sched);
	sim_set_sched(&s, &sched);
	if (sc.faults && sc.fault.health.enabled) {
		if (health_init(&hmon, &sc.fault.health)) {
			snprintf(err, sizeof err, "out of memory setting up the health monitor");
			goto out;
		}
		sim_set_health(&s, &hmon);
	}

	struct recorder_opts ro = { .level = (enum record_level)level, .key = key, .head_out = head,
	                            .metrics = store_metrics ? &mwin : NULL,
	                            .one_thread = one_thread };
	if (!(rec = recorder_open_with(out, &ro, err, sizeof err)))
		goto out;
	recorder_attach(rec, &s);
	if (trace_notes[0] && recorder_set_meta(rec, "trace_notes", trace_notes)) {
		snprintf(err, sizeof err, "%s: writing the trace notes failed", out);
		goto out;
	}
	/* The trace's names and time 0 (docs/results.md, tables name and job_name). */
	struct recorder_names nm = { .job_names = w.names[WL_JOB_NAME].v, .njob_names = w.names[WL_JOB_NAME].n,
	                             .job_name = w.job_name, .njobs = njobs, .unix_start = w.unix_start };
	for (int k = 0; k < WL_JOB_NAME; k++)
		nm.kind[k] = wl_name_kind_str(k), nm.v[k] = w.names[k].v, nm.n[k] = w.names[k].n;
	if (recorder_set_names(rec, &nm)) {
		snprintf(err, sizeof err, "%s", recorder_error(rec));
		goto out;
	}
	recorder_set_billing(rec, sc.billing_json);
	struct notifier nt = { .argv = sc.notify.argv, .log = sc.notify.log, .out = stderr };
	if (sc.notify.log || sc.notify.argv)
		notify_attach(&nt, &s);

	if (sim_run(&s)) {
		if (prog.shown)
			fputc('\n', stderr);
		snprintf(err, sizeof err, "%s", s.err);
		goto out;
	}
	double wall = secs_since(&prog.t0);
	if (prog.shown)
		fprintf(stderr, "\r%78s\r", "");
	/* every parameter, for the record (a report shows those not at
	 * their defaults) */
	char pp[POLICY_MAX_PARAMS * (HL_NAME_MAX + 32)] = "";
	for (int k = 0, off = 0; pol->params && pol->params[k].name && off < (int)sizeof pp; k++)
		off += snprintf(pp + off, sizeof pp - (size_t)off, "%s%s=%g", k ? " " : "",
		                pol->params[k].name, cfg.v[k]);
	if (s.nrejected > 0)
		fprintf(stderr, "hetlab run: warning: %d of %d jobs were rejected at submit: each asks "
		        "for more than the whole cluster has (they count as killed)\n", s.nrejected, njobs);
	char placement_desc[96];
	snprintf(placement_desc, sizeof placement_desc, "%s%s",
	         sc.place.strategy[0] ? sc.place.strategy : "first-fit", sc.place.label_blind ? " (label-blind)" : "");
	struct run_info ri = {
		.policy_params = pp, .rejected = s.nrejected, .placement = placement_desc,
		.scenario = sc.name, .policy = pol->name, .version = HETLAB_VERSION,
		.trace = tpath[0] ? tpath : "synthetic", .seed = sc.seed,
		.skipped_malformed = skipped_malformed, .skipped_unusable = skipped_unusable,
		.nnodes = nnodes, .total_cores = cores, .total_gpus = gpus,
	};
	if (nt.failed)
		fprintf(stderr, "hetlab run: warning: %ld of %ld notify commands failed (first: %s)\n",
		        nt.failed, nt.fired, nt.first_error);
	/* The names of tenants and services, and the scenario's measurement
	 * window, for the metrics (analysis/metric.h), sealed with the run. */
	{
		const char **tn = calloc((size_t)sc.org.nt + 1, sizeof *tn), *sn[SYNTH_SERVICES_MAX];
		int ntn = 0, nsn = 0;
		for (int32_t k = 0; tn && k < sc.org.nt; k++)
			tn[ntn++] = sc.org.t[k].name;
		for (int32_t k = 0; sc.workload == SCN_SYNTH && k < sc.synth.nservices; k++)
			sn[nsn++] = sc.synth.svc[k].name;
		char *lt = NULL, *mt = NULL;
		int mr = !tn ? -1 : metric_meta_texts(&sc.measure, tn, ntn, sn, nsn, &lt, &mt);
		free(tn);
		if (mr == 0 && (recorder_set_meta(rec, "labels", lt) || recorder_set_meta(rec, "measure", mt)))
			mr = -1;
		free(lt);
		free(mt);
		if (mr < 0) {
			snprintf(err, sizeof err, "%s: %s", out, recorder_error(rec) ? recorder_error(rec) : "out of memory");
			recorder_abort(rec);
			rec = NULL;
			goto out;
		}
	}
	int r = recorder_finish(rec, &ri, wall, s.nevents, s.npasses, err, sizeof err);
	rec = NULL;
	if (r)
		goto out;
	if (!quiet)
		printf("hetlab run: scenario %s, policy %s, seed %llu: %d jobs on %d nodes "
		       "(%lld cores, %lld GPUs), %.1f simulated days, %llu events in %.2f s -> %s\n",
		       sc.name, pol->name, (unsigned long long)sc.seed, njobs, nnodes,
		       (long long)cores, (long long)gpus, simtime_to_s(s.now) / 86400.0,
		       (unsigned long long)s.nevents, wall, out);
	if (!quiet && key)   /* to be kept elsewhere: hetlab audit verify --expect-head */
		printf("hetlab run: audit head %s (level %s, authenticated by %s)\n", head,
		       record_level_name((enum record_level)level), audit_key_id(key));
	rc = 0;
out:
	if (rc && err[0])
		fprintf(stderr, "hetlab run: %s\n", err);
	if (rec)
		recorder_abort(rec);
	if (pstate && pol && pol->fini)
		pol->fini(pstate);
	health_fini(&hmon);
	if (have_sim)
		sim_fini(&s);
	if (have_sc)
		scenario_free(&sc);
	workload_free(&w);
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

