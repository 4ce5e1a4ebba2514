/* runasm — the composition root (see runasm.h). */
#include "config/runasm.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/metric.h"
#include "config/slurmcfg.h"
#include "config/tieredcfg.h"
#include "policies/health.h"
#include "traces/anytrace.h"
#include "traces/sacct.h"
#include "traces/tscale.h"

/* err becomes "pre: err". */
static void err_prefix(char *err, size_t errlen, const char *pre)
{
	char msg[1024];
	snprintf(msg, sizeof msg, "%s: %s", pre, err);
	snprintf(err, errlen, "%s", msg);
}

static double secs_since(const struct timespec *a)
{
	struct timespec b;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) + (double)(b.tv_nsec - a->tv_nsec) / 1e9;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (!a || !b || !*a || !*b || stat(a, &sa) != 0 || stat(b, &sb) != 0)
		return false;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* ---- the policy ---- */

/* One NAME=VALUE of flag f, or -1 with err. */
static int parse_flag(const char *f, char *name, size_t nlen, double *val, char *err, size_t errlen)
{
	const char *eq = strchr(f, '=');
	char *end;
	if (!eq || eq == f) {
		snprintf(err, errlen, "--param %s: expected NAME=VALUE", f);
		return -1;
	}
	snprintf(name, nlen, "%.*s", (int)(eq - f), f);
	*val = strtod(eq + 1, &end);
	if (end == eq + 1 || *end) {
		snprintf(err, errlen, "--param %s: expected a number after '='", f);
		return -1;
	}
	return 0;
}

int run_policy_find(struct run_policy *p, const char *name, const struct scenario *sc,
                    char *const *flags, int nflags, char *err, size_t errlen)
{
	memset(p, 0, sizeof *p);
	if (!(p->ops = policy_find(name ? name : sc->policy))) {
		char names[256];
		policy_names(names, sizeof names);
		if (name)
			snprintf(err, errlen, "unknown policy '%s' (known: %s)", name, names);
		else
			snprintf(err, errlen, "%s: $.policy: unknown policy '%s' (known: %s)", sc->file, sc->policy, names);
		return -1;
	}
	const struct policy_ops *pol = p->ops;
	char known[POLICY_MAX_PARAMS * (HL_NAME_MAX + 2)] = "";
	size_t off = 0;
	for (int k = 0; pol->params && pol->params[k].name && off < sizeof known; k++)
		off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", k ? ", " : "", pol->params[k].name);
	if (!known[0])
		snprintf(known, sizeof known, "none");
	policy_cfg_defaults(pol, &p->cfg);
	int nsc = sc ? sc->nparams : 0;
	for (int i = 0; i < nsc + nflags; i++) {
		char pname[HL_NAME_MAX], where[PATH_MAX + 128];
		double val;
		if (i < nsc) {
			snprintf(pname, sizeof pname, "%s", sc->params[i].name);
			val = sc->params[i].value;
			snprintf(where, sizeof where, "%s: %s", sc->file, sc->params[i].path);
		} else {
			const char *f = flags[i - nsc];
			if (parse_flag(f, pname, sizeof pname, &val, err, errlen))
				return -2;
			snprintf(where, sizeof where, "--param %s", f);
		}
		int k = policy_param_index(pol, pname);
		if (k < 0) {
			snprintf(err, errlen, "%s: policy '%s' has no parameter '%s' (it has: %s)",
			         where, pol->name, pname, known);
			return i < nsc ? -1 : -2;
		}
		const struct policy_param *pp = &pol->params[k];
		if (!(val >= pp->min && val <= pp->max)) {
			snprintf(err, errlen, "%s: %s must be in [%g, %g], got %g", where, pname, pp->min, pp->max, val);
			return i < nsc ? -1 : -2;
		}
		p->cfg.v[k] = val;
	}
	return 0;
}

int run_policy_init(struct run_policy *p, const struct policy_env *env, char *err, size_t errlen)
{
	if (p->ops->init && p->ops->init(&p->state, env, &p->cfg, err, errlen)) {
		if (!err[0])
			snprintf(err, errlen, "policy '%s' failed to initialise (out of memory)", p->ops->name);
		return -1;
	}
	return 0;
}

void run_policy_params_text(const struct run_policy *p, char *buf, size_t len)
{
	const struct policy_ops *pol = p->ops;
	buf[0] = 0;
	for (int k = 0, off = 0; pol->params && pol->params[k].name && off < (int)len; k++)
		off += snprintf(buf + off, len - (size_t)off, "%s%s=%g", k ? " " : "", pol->params[k].name, p->cfg.v[k]);
}

void run_policy_fini(struct run_policy *p)
{
	if (p->state && p->ops && p->ops->fini)
		p->ops->fini(p->state);
	p->state = NULL;
}

/* ---- the workload ---- */

/* One line on o.notes: "WHO: " fmt. */
__attribute__((format(printf, 2, 3)))
static void note(const struct run *r, const char *fmt, ...)
{
	va_list ap;
	if (!r->o.notes)
		return;
	fprintf(r->o.notes, "%s: ", r->o.who ? r->o.who : "hetlab");
	va_start(ap, fmt);
	vfprintf(r->o.notes, fmt, ap);
	va_end(ap);
	fputc('\n', r->o.notes);
}

/* The trace to read into r->tpath ("" when the workload is synthetic). */
static int trace_path(struct run *r, char *err, size_t errlen)
{
	struct scenario *sc = r->sc;
	const char *dir = r->o.traces_dir;
	if (r->o.trace) {
		snprintf(r->tpath, sizeof r->tpath, "%s", r->o.trace);
	} else if (sc->has_workload && sc->workload == SCN_TRACE) {
		scenario_trace_path(sc, dir, r->tpath, sizeof r->tpath);
		if (access(r->tpath, R_OK) != 0 && strncmp(sc->trace, "$TRACES/", 8) == 0) {
			snprintf(err, errlen,
			         "%s: trace %s not found in the trace directory %s; point --traces or "
			         "HETLAB_TRACES at a copy of the shared traces (see docs/traces.md for where to get them)",
			         sc->file, sc->trace + 8, dir);
			return -1;
		}
	}
	if (!r->tpath[0] && !sc->has_workload) {
		snprintf(err, errlen, "%s: $: missing key \"workload\" (a scenario without one is for `hetlab live`; "
		         "give --trace FILE to run it on a trace)", sc->file);
		return -1;
	}
	return 0;
}

/* The trace read, or the synthetic workload drawn, into r->w. */
static int read_workload(struct run *r, bool lenient, char *err, size_t errlen)
{
	struct scenario *sc = r->sc;
	if (!r->tpath[0]) {
		if (trace_synth(&sc->synth, sc->seed, &r->w, err, errlen)) {
			err_prefix(err, errlen, sc->file);
			return -1;
		}
		return 0;
	}
	if (access(r->tpath, R_OK) != 0) {
		snprintf(err, errlen, "%s: %s", r->tpath, strerror(errno));
		return -1;
	}
	sc->swf_shape.inv = sc->from_inventory ? &sc->inv_map : NULL;
	sc->swf_shape.cat = &sc->cl.cat;
	return trace_read_shaped(r->tpath, lenient, &sc->swf_shape, &r->w, NULL, err, errlen);
}

/* Notes on the workload read: empty, what the reader did (kept in the
 * run's meta table). */
static void workload_notes(struct run *r)
{
	const struct workload *w = &r->w;
	if (w->n == 0 && r->tpath[0])
		note(r, "warning: the trace %s has no jobs (%lld lines read, %lld skipped as malformed, "
		     "%lld unusable): the result holds an empty run", r->tpath, (long long)w->lines,
		     (long long)w->skipped_malformed, (long long)w->skipped_unusable);
	else if (w->n == 0)
		note(r, "warning: %s: the synthetic workload has no jobs (every class's rate is 0?): the "
		     "result holds an empty run", r->sc->file);
	if (r->tpath[0])
		trace_notes_of(w, r->trace_notes, sizeof r->trace_notes);
	for (const char *n = r->trace_notes; *n; ) {
		const char *e = strchr(n, '\n');
		int len = e ? (int)(e - n) : (int)strlen(n);
		note(r, "note: %s: %.*s", r->tpath, len, n);
		n += len + (e != NULL);
	}
}

/* Checks and binds the workload's labels and the scenario's blocks. */
static int bind_workload(struct run *r, bool lenient, char *err, size_t errlen)
{
	struct scenario *sc = r->sc;
	struct workload *w = &r->w;
	const char *tp = r->tpath;
	/* A Slurm dump's jobs whose partition or GPU type no node has: said
	 * before the run rather than rejected at submit (lenient runs them so). */
	int64_t nmiss = tp[0] ? sacct_check_labels(w, &sc->swf_shape, &sc->cl, err, errlen) : 0;
	if (nmiss < 0 || (nmiss > 0 && !lenient)) {
		char msg[1024];
		snprintf(msg, sizeof msg, "%s: %s (label the scenario's nodes so, or --lenient to run them: they "
		         "are rejected at submit)", tp, nmiss < 0 ? "out of memory" : err);
		snprintf(err, errlen, "%s", msg);
		return -1;
	}
	if (nmiss > 0)
		note(r, "warning: %s: %s (rejected at submit)", tp, err);
	if (cluster_bind_workload(&sc->cl, w->str, w->nstr, w->jobs, w->n, err, errlen)) {
		err_prefix(err, errlen, tp[0] ? tp : sc->file);
		return -1;
	}
	if (sc->tiered && tiered_bind(sc->tiered, &sc->cl, err, errlen)) {
		err_prefix(err, errlen, sc->file);
		return -1;
	}
	/* The "slurm" block's node names and the trace's names (errors of
	 * the block name the scenario, a job's the trace). */
	if (sc->slurm && slurm_cfg_bind(sc->slurm, &sc->cl, w, err, errlen)) {
		err_prefix(err, errlen, err[0] == '$' ? sc->file : tp[0] ? tp : sc->file);
		return -1;
	}
	if (sc->power.enabled && power_init(&sc->cl, &sc->power)) {
		snprintf(err, errlen, "out of memory setting up the power model");
		return -1;
	}
	return 0;
}

static int load_workload(struct run *r, char *err, size_t errlen)
{
	struct scenario *sc = r->sc;
	const struct run_opts *o = &r->o;
	bool lenient = o->lenient || sc->lenient;
	if (sc->from_inventory && scenario_build_inventory(sc, o->traces_dir, err, errlen))
		return -1;
	if (trace_path(r, err, errlen))
		return -1;
	/* The recorder renames its result over o->out: never over an input. */
	const char *same = same_file(o->out, r->tpath) ? "trace" : same_file(o->out, sc->file) ? "scenario" : NULL;
	if (same) {
		snprintf(err, errlen, "--out %s is the %s this run reads: the result would replace it "
		         "(give another output file)", o->out, same);
		return -2;
	}
	if (read_workload(r, lenient, err, errlen))
		return -1;
	/* Demand scaling of a replay: thinning or replication (traces/tscale.h). */
	bool replay = o->trace || sc->workload != SCN_SYNTH;
	if (replay && o->scale_rate && workload_scale_rate(&r->w, *o->scale_rate, sc->seed, err, errlen))
		return -1;
	workload_notes(r);
	if (sc->from_trace && scenario_size_from_trace(sc, &r->w, err, errlen))
		return -1;
	if (o->trace && sc->workload == SCN_SYNTH)
		sc->speed_model = false;   /* a trace given on the command line replays as recorded */
	return bind_workload(r, lenient, err, errlen);
}

/* ---- the engine ---- */

static int build_engine(struct run *r, char *err, size_t errlen)
{
	struct scenario *sc = r->sc;
	const struct run_opts *o = &r->o;
	struct sim_cfg cfg = {
		.sample_every_us = sc->sample_every_us,
		.horizon_us = sc->horizon_us,
		.keep_overruns = !sc->enforce_walltime,
		.speed_model = sc->speed_model,
		.org = &sc->org,
		.env = sc->env,
		.nenv = sc->nenv,
		.fault = sc->faults ? &sc->fault : NULL,
		.seed = sc->seed,
		.progress = o->progress,
		.progress_ctx = o->progress_ctx,
	};
	memcpy(cfg.ckpt, sc->ckpt, sizeof cfg.ckpt);
	if (o->tune)
		o->tune(o->tune_ctx, &cfg);

	/* The "slurm" block reaches the policy bound (slurm_cfg_bind, with
	 * the workload); a run without one has it unbound. */
	bool bound = o->max_jobs <= 0;
	struct policy_env env = { .cl = &sc->cl, .njobs = bound ? r->w.n : o->max_jobs,
	                          .placement = sc->place.strategy, .label_blind = sc->place.label_blind,
	                          .seed = sc->seed, .org = &sc->org, .sim = &cfg, .tiered = sc->tiered,
	                          .slurm = bound ? sc->slurm : NULL };
	if (run_policy_init(&r->pol, &env, err, errlen))
		return -1;

	/* sim_init takes the job arrays and the cluster. */
	struct job *jobs = r->w.jobs;
	struct job_truth *truth = r->w.truth;
	r->njobs = r->w.n;
	r->w.jobs = NULL;
	r->w.truth = NULL;
	r->w.n = r->w.cap = 0;
	r->nnodes = sc->cl.nnodes;
	r->cores = sc->cl.total_cores;
	r->gpus = sc->cl.total_gpus;
	if (sim_init(r->s, &cfg, &sc->cl, jobs, truth, r->njobs)) {
		snprintf(err, errlen, "out of memory setting up the run");
		return -1;
	}
	r->have_sim = true;
	struct sim_sched sched;
	policy_to_sched(r->pol.ops, r->pol.state, &sched);
	sim_set_sched(r->s, &sched);
	if (cfg.fault && cfg.fault->health.enabled) {
		if (health_init(&r->hmon, &cfg.fault->health)) {
			snprintf(err, errlen, "out of memory setting up the health monitor");
			return -1;
		}
		sim_set_health(r->s, &r->hmon);
	}
	return 0;
}

/* ---- the results ---- */

static int open_results(struct run *r, char *err, size_t errlen)
{
	const struct run_opts *o = &r->o;
	struct workload *w = &r->w;
	struct recorder_opts none = { .level = RECORD_DEFAULT };
	if (!(r->rec = recorder_open_with(o->out, o->rec ? o->rec : &none, err, errlen)))
		return -1;
	recorder_attach(r->rec, r->s);
	if (r->trace_notes[0] && recorder_set_meta(r->rec, "trace_notes", r->trace_notes)) {
		snprintf(err, errlen, "%s: writing the trace notes failed", o->out);
		return -1;
	}
	/* The trace's names and time 0 (docs/results.md, tables name and job_name). */
	struct recorder_names nm = { .job_names = w->names[WL_JOB_NAME].v, .njob_names = w->names[WL_JOB_NAME].n,
	                             .job_name = w->job_name, .njobs = r->njobs, .unix_start = w->unix_start };
	for (int k = 0; k < WL_JOB_NAME; k++)
		nm.kind[k] = wl_name_kind_str(k), nm.v[k] = w->names[k].v, nm.n[k] = w->names[k].n;
	if (recorder_set_names(r->rec, &nm)) {
		snprintf(err, errlen, "%s", recorder_error(r->rec));
		return -1;
	}
	recorder_set_billing(r->rec, r->sc->billing_json);
	struct scenario *sc = r->sc;
	if (sc->notify.log || sc->notify.argv) {
		r->nt = (struct notifier){ .argv = sc->notify.argv, .log = sc->notify.log, .out = stderr };
		notify_attach(&r->nt, r->s);
		r->have_nt = true;
	}
	return 0;
}

/* The names of tenants and services, and the scenario's measurement
 * window, for the metrics (analysis/metric.h), sealed with the run. */
static int write_metric_meta(struct run *r, char *err, size_t errlen)
{
	const struct scenario *sc = r->sc;
	const char **tn = calloc((size_t)sc->org.nt + 1, sizeof *tn), *sn[SYNTH_SERVICES_MAX];
	int ntn = 0, nsn = 0;
	for (int32_t k = 0; tn && k < sc->org.nt; k++)
		tn[ntn++] = sc->org.t[k].name;
	for (int32_t k = 0; sc->workload == SCN_SYNTH && k < sc->synth.nservices; k++)
		sn[nsn++] = sc->synth.svc[k].name;
	char *lt = NULL, *mt = NULL;
	int mr = !tn ? -1 : metric_meta_texts(&sc->measure, tn, ntn, sn, nsn, &lt, &mt);
	free(tn);
	if (mr == 0 && (recorder_set_meta(r->rec, "labels", lt) || recorder_set_meta(r->rec, "measure", mt)))
		mr = -1;
	/* The scenario's cost terms, for the report's cost a year (docs/planning.md). */
	if (mr == 0 && sc->cost_json && recorder_set_meta(r->rec, "cost", sc->cost_json))
		mr = -1;
	free(lt);
	free(mt);
	if (mr < 0)
		snprintf(err, errlen, "%s: %s", r->o.out,
		         recorder_error(r->rec) ? recorder_error(r->rec) : "out of memory");
	return mr < 0 ? -1 : 0;
}

/* ---- the run ---- */

int run_assemble(struct run *r, struct scenario *sc, const struct run_opts *o, char *err,
                 size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->sc = sc;
	r->o = *o;
	r->s = o->sim ? o->sim : &r->own;
	workload_init(&r->w);
	int prc = run_policy_find(&r->pol, o->policy, sc, o->params, o->nparams, err, errlen);
	if (prc)
		return prc;
	if (o->max_jobs <= 0) {
		int rc = load_workload(r, err, errlen);
		if (rc)
			return rc;
	} else if (sc->tiered && tiered_bind(sc->tiered, &sc->cl, err, errlen)) {
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	if (build_engine(r, err, errlen))
		return -1;
	if (o->out && open_results(r, err, errlen))
		return -1;
	return 0;
}

int run_go(struct run *r, char *err, size_t errlen)
{
	int rc = sim_run(r->s);
	r->wall_s = secs_since(&r->t0);
	if (rc)
		snprintf(err, errlen, "%s", r->s->err);
	return rc ? -1 : 0;
}

int run_finish(struct run *r, char *err, size_t errlen)
{
	const struct scenario *sc = r->sc;
	const struct sim *s = r->s;
	if (s->nrejected > 0)
		note(r, "warning: %d of %d jobs were rejected at submit: each asks for more than the whole "
		     "cluster has (they count as killed)", s->nrejected, r->njobs);
	if (r->have_nt && r->nt.failed)
		note(r, "warning: %ld of %ld notify commands failed (first: %s)", r->nt.failed, r->nt.fired,
		     r->nt.first_error);
	if (!r->rec)
		return 0;
	/* every parameter, for the record (a report shows those not at
	 * their defaults) */
	char pp[POLICY_MAX_PARAMS * (HL_NAME_MAX + 32)];
	run_policy_params_text(&r->pol, pp, sizeof pp);
	char placement[96];
	snprintf(placement, sizeof placement, "%s%s", sc->place.strategy[0] ? sc->place.strategy : "first-fit",
	         sc->place.label_blind ? " (label-blind)" : "");
	struct run_info ri = {
		.policy_params = pp, .rejected = s->nrejected, .placement = placement,
		.scenario = sc->name, .policy = r->pol.ops->name, .version = r->o.version ? r->o.version : "?",
		.trace = r->tpath[0] ? r->tpath : "synthetic", .seed = sc->seed,
		.skipped_malformed = r->w.skipped_malformed, .skipped_unusable = r->w.skipped_unusable,
		.nnodes = r->nnodes, .total_cores = r->cores, .total_gpus = r->gpus,
	};
	if (write_metric_meta(r, err, errlen))
		return -1;
	int rc = recorder_finish(r->rec, &ri, r->wall_s, s->nevents, s->npasses, err, errlen);
	r->rec = NULL;
	return rc ? -1 : 0;
}

void run_free(struct run *r)
{
	if (r->rec)
		recorder_abort(r->rec);
	r->rec = NULL;
	run_policy_fini(&r->pol);
	health_fini(&r->hmon);
	if (r->have_sim)
		sim_fini(r->s);
	r->have_sim = false;
	workload_free(&r->w);
}
