/* cmd_fit — `hetlab trace fit` (calibrate a workload model from a trace)
 * and `hetlab trace synth` (generate a trace from a model and compare it
 * with the original by Kolmogorov–Smirnov). Argument parsing and printing
 * only; the estimators live in traces/fit.c, the generator in
 * traces/synth.c, the model loader in config/scenario.c. */
#include "cli/args.h"
#include "cli/cmd.h"
#include "traces/anytrace.h"
#include "traces/fit.h"
#include "config/scenario.h"
#include "traces/trace.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STR(x) #x
#define XSTR(x) STR(x)

#define FIT_USAGE NULL
#define SYNTH_USAGE NULL

static int usage(const char *cmd, const char *text, const char *msg)
{
	(void)text;
	fprintf(stderr, "hetlab trace %s: %s\nTry 'hetlab trace %s --help'.\n", cmd, msg ? msg : "bad arguments", cmd);
	return 2;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* ---- fit ------------------------------------------------------------------ */

static const char *const family_names[FIT_NFAMILY] = { "lognormal", "weibull", "gamma" };

static void print_family(const struct fit_class_report *cr, int f, bool chosen)
{
	const struct fit_dur *d = &cr->dur[f];
	char par[96], mean[32] = "-";
	if (!d->ok)
		snprintf(par, sizeof par, "(not determined by the sample)");
	else if (f == FIT_LOGNORMAL)
		snprintf(par, sizeof par, "median %.6g s, sigma %.4f", d->median_s, d->sigma);
	else
		snprintf(par, sizeof par, "shape %.4f, scale %.6g s", d->shape, d->scale_s);
	if (isfinite(d->mean_s))
		snprintf(mean, sizeof mean, "%.1f", d->mean_s);
	if (d->ok && isfinite(d->loglik))
		printf("    %-10s %-32s %10s %14.1f %14.1f%s\n", family_names[f], par, mean, d->loglik,
		       d->aic, chosen ? "  <- chosen" : "");
	else
		printf("    %-10s %-32s %10s %14s %14s%s\n", family_names[f], par, mean, "-", "-",
		       chosen ? "  <- chosen" : "");
}

/* The mix as "value:share%" items, largest shares first, up to `max`. */
static void print_mix(const int32_t *val, const double *p, int n, int max)
{
	int order[SYNTH_MIX_MAX];
	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = 1; i < n; i++)   /* insertion sort by share, descending */
		for (int j = i; j > 0 && p[order[j]] > p[order[j - 1]]; j--) {
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	double rest = 0;
	for (int i = 0; i < n; i++) {
		if (i < max && p[order[i]] < 0.0005)
			printf(" %d:<0.1%%", (int)val[order[i]]);
		else if (i < max)
			printf(" %d:%.1f%%", (int)val[order[i]], 100 * p[order[i]]);
		else
			rest += p[order[i]];
	}
	if (n > max)
		printf(" (%d more: %.1f%%)", n - max, 100 * rest);
	printf("\n");
}

static void print_fit(const char *in, const char *out, const struct workload *w,
                      const struct synth_cfg *m, const struct fit_report *rep,
                      const struct fit_opts *fo)
{
	printf("hetlab trace fit: %s: %d jobs over %.1f days (first to last submit)\n", in,
	       (int)rep->njobs, rep->span_days);
	if (w->skipped_malformed || w->skipped_unusable)
		printf("  skipped lines: %lld malformed, %lld unusable\n",
		       (long long)w->skipped_malformed, (long long)w->skipped_unusable);
	if (rep->aligned)
		printf("  hour of week: hour 0 = Monday 00:00 UTC (from UnixStartTime %lld)\n",
		       (long long)rep->unix_start);
	else
		printf("  hour of week: no UnixStartTime: hour 0 = the trace's time 0\n");
	for (int c = 0; c < JOB_NCLASS; c++) {
		const struct synth_class *k = &m->cls[c];
		const struct fit_class_report *cr = &rep->cls[c];
		if (k->rate_per_h <= 0)
			continue;
		printf("\nclass %s: %lld jobs\n", job_class_name((enum job_class)c),
		       (long long)cr->njobs);
		printf("  arrivals       %.4f per hour%s; hour-of-week profile %.3f .. %.3f (mean 1)\n",
		       k->rate_per_h, k->burst_p > 0 ? " (first jobs of bursts)" : "",
		       cr->profile_min, cr->profile_max);
		if (k->ngap >= 2)
			printf("  arrival gaps   %lld gaps in profile time as %d quantiles; %lld (%.1f%%) are "
			       "0 s\n", (long long)cr->ngaps, (int)k->ngap, (long long)cr->nzero_gap,
			       cr->ngaps ? 100.0 * (double)cr->nzero_gap / (double)cr->ngaps : 0.0);
		if (k->burst_p > 0)
			printf("  bursts         %lld bursts (gap <= %g s) hold %lld more jobs; %.4f jobs per "
			       "hour in all\n                 burst_p %.4f, burst_mean %.3f, burst_gap_s %.1f\n",
			       (long long)cr->nbursts, fo->burst_gap_s, (long long)cr->nburst_extra,
			       k->rate_per_h * (1 + k->burst_p * k->burst_mean), k->burst_p, k->burst_mean,
			       k->burst_gap_s);
		printf("  durations      mean %.1f s, median %.0f s, max %.0f s", cr->dur_mean_s,
		       cr->dur_p50_s, cr->dur_max_s);
		if (cr->nfloored)
			printf("; %lld below 1 s counted as 1 s", (long long)cr->nfloored);
		printf("\n    %-10s %-32s %10s %14s %14s\n", "family", "maximum-likelihood estimate",
		       "mean (s)", "ln L", "AIC");
		for (int f = 0; f < FIT_NFAMILY; f++)
			print_family(cr, f, !fo->empirical && f == (fo->force ? fo->dist : cr->best));
		if (fo->empirical)
			printf("    %-10s %d quantiles written (--empirical)  <- chosen\n", "empirical",
			       (int)k->nemp);
		if (k->nsize > 0)
			printf("  by size        %d size classes, %d duration quantiles each: these are "
			       "drawn (the fit above is kept for reference)\n", (int)k->nsize,
			       (int)FIT_NQUANT);
		if (cr->ngpu > 0) {
			printf("  GPU jobs       %.1f%% of jobs, %d GPUs per node\n",
			       100.0 * (double)cr->ngpu / (double)cr->njobs, (int)m->gpus_per_node);
			printf("  GPUs/job      ");
			print_mix(k->mix_gpus, k->mix_p, k->nmix, 12);
			if (cr->ngpu_folded)
				printf("                 %d distinct counts, %lld jobs folded into the nearest kept\n",
				       (int)cr->ngpu_values, (long long)cr->ngpu_folded);
			printf("  per GPU        %d cores, %.1f GiB node memory, GPU memory >= %.1f GiB\n",
			       (int)k->cores_per_gpu, (double)k->mem_per_gpu_mib / 1024,
			       (double)k->gpu_mem_mib / 1024);
		}
		if (cr->ncpu > 0) {
			printf("  CPU-only       %.1f%% of jobs%s\n", 100.0 * (double)cr->ncpu /
			       (double)cr->njobs, k->spread ? ", spread requests" : ", one node each");
			printf("  cores/job     ");
			print_mix(k->cpu_mix, k->cpu_mix_p, k->ncpu_mix, 10);
			if (cr->ncpu_folded)
				printf("                 %d distinct counts; the %lld jobs of the %d rarest folded "
				       "into the nearest kept\n", (int)cr->ncpu_values, (long long)cr->ncpu_folded,
				       (int)cr->ncpu_values - (int)k->ncpu_mix);
		}
		printf("  walltime       factor %.3g (median estimate/runtime over %lld jobs)\n",
		       k->walltime_factor, (long long)cr->nratio);
		printf("  failures       fail_p %.4f\n", k->fail_p);
		if (cr->ntenants > 1)
			printf("  tenants        %d (busiest %.1f%% of jobs)%s\n", (int)cr->ntenants,
			       100 * cr->top_tenant_share, cr->tenant_weighted ? ", weighted" :
			       ", drawn uniformly (more than " XSTR(SYNTH_TENANTS_MAX) ": no weights)");
		else
			printf("  tenants        %d\n", k->ntenants);
	}
	printf("\nmodel written to %s\n", out);
}

/* --by queue: one model per queue id, written to OUT with "-qN" before its
 * ".json" (or appended). Jobs without a queue (-1) form "q-1". */
static int fit_by_queue(const char *in, const char *out, const struct workload *w,
                        const struct fit_opts *fo, struct synth_cfg *m, struct fit_report *rep,
                        char *err, size_t errlen)
{
	int32_t *queues = malloc(((size_t)w->n + 1) * sizeof *queues);
	int32_t nq = 0;
	if (!queues) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int32_t i = 0; i < w->n; i++) {
		int32_t q = w->jobs[i].queue, k = 0;
		while (k < nq && queues[k] != q)
			k++;
		if (k == nq)
			queues[nq++] = q;
	}
	for (int32_t a = 1; a < nq; a++)   /* ascending, for a stable listing */
		for (int32_t b = a; b > 0 && queues[b - 1] > queues[b]; b--) {
			int32_t t = queues[b];
			queues[b] = queues[b - 1];
			queues[b - 1] = t;
		}
	int rc = 0, nskipped = 0;
	size_t olen = strlen(out);
	bool dotjson = olen > 5 && strcmp(out + olen - 5, ".json") == 0;
	for (int32_t k = 0; k < nq && rc == 0; k++) {
		struct workload wq;
		workload_init(&wq);
		wq.max_procs = w->max_procs;
		wq.max_nodes = w->max_nodes;
		wq.unix_start = w->unix_start;
		for (int32_t i = 0; i < w->n && rc == 0; i++)
			if (w->jobs[i].queue == queues[k] && workload_add(&wq, &w->jobs[i], &w->truth[i]))
				rc = -1;
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%.*s-q%d%s", (int)(dotjson ? olen - 5 : olen), out,
		         (int)queues[k], dotjson ? ".json" : "");
		if (rc)
			snprintf(err, errlen, "out of memory");
		else if (trace_fit(&wq, fo, m, rep, err, errlen) != 0) {
			/* A queue too small to fit is left out, not fatal. */
			fprintf(stderr, "hetlab trace fit: queue %d (%d jobs) left out: %s\n", (int)queues[k], wq.n, err);
			nskipped++;
		} else if (trace_fit_write(path, m, in, err, errlen) != 0) {
			rc = -1;
		} else {
			printf("== queue %d: %d jobs\n", (int)queues[k], wq.n);
			print_fit(in, path, &wq, m, rep, fo);
			printf("\n");
		}
		workload_free(&wq);
	}
	if (rc == 0 && nskipped == nq) {
		snprintf(err, errlen, "%s: no queue could be fitted", in);
		rc = -1;
	}
	free(queues);
	return rc;
}

int cmd_trace_fit(int argc, char **argv)
{
	const char *cmd = "fit", *trace = NULL, *out = NULL, *tflag = NULL, *gap_s = NULL;
	const char *dist = NULL;
	struct fit_opts fo = { 0 };
	bool lenient = false, by_queue = false;
	const char *by = NULL;
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "trace fit", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_LENIENT: lenient = true; break;
		case OPT_EMPIRICAL: fo.empirical = true; break;
		case OPT_INDEPENDENT: fo.independent = true; break;
		case OPT_OUT: out = ap.val; break;
		case OPT_TRACES: tflag = ap.val; break;
		case OPT_DIST: {
			dist = ap.val;
			int d = synth_dist_parse(dist);
			if (d < 0)
				return usage(cmd, FIT_USAGE, "--dist expects lognormal, weibull, gamma or empirical");
			if (d == SYNTH_EMPIRICAL) {
				fo.empirical = true;
			} else {
				fo.force = true;
				fo.dist = d == SYNTH_LOGNORMAL ? FIT_LOGNORMAL : d == SYNTH_WEIBULL ? FIT_WEIBULL
				                                                                   : FIT_GAMMA;
			}
			break;
		}
		case OPT_BY:
			by = ap.val;
			if (strcmp(by, "queue") != 0 && strcmp(by, "class") != 0)
				return usage(cmd, FIT_USAGE, "--by expects class or queue");
			by_queue = strcmp(by, "queue") == 0;
			break;
		case OPT_BURST_GAP:
			gap_s = ap.val;
			if (!parse_double(gap_s, 0, 1e9, &fo.burst_gap_s))
				return usage(cmd, FIT_USAGE, "--burst-gap expects seconds in [0, 1e9]");
			break;
		case CLI_POS:
			if (trace)
				return usage(cmd, FIT_USAGE, "too many arguments");
			trace = ap.val;
			break;
		}
	if (!trace)
		return usage(cmd, FIT_USAGE, "which TRACE?");
	if (!out || !*out)
		return usage(cmd, FIT_USAGE, "--out MODEL.json is required");

	char err[1024] = "";
	int rc = 1;
	struct workload w;
	struct synth_cfg *m = malloc(sizeof *m);
	struct fit_report *rep = malloc(sizeof *rep);
	workload_init(&w);
	char *in = NULL;
	if (!m || !rep) {
		snprintf(err, sizeof err, "out of memory");
		goto out;
	}
	in = trace_resolve(trace, cli_traces_dir(tflag), err, sizeof err);
	if (!in || trace_read_any(in, lenient, &w, NULL, err, sizeof err) != 0)
		goto out;
	if (by_queue) {
		rc = fit_by_queue(in, out, &w, &fo, m, rep, err, sizeof err) == 0 ? 0 : 1;
		goto out;
	}
	if (trace_fit(&w, &fo, m, rep, err, sizeof err) != 0) {
		char msg[1024];
		snprintf(msg, sizeof msg, "%s: %s", in, err);
		snprintf(err, sizeof err, "%s", msg);
		goto out;
	}
	if (trace_fit_write(out, m, in, err, sizeof err) != 0)
		goto out;
	print_fit(in, out, &w, m, rep, &fo);
	rc = 0;
out:
	if (rc != 0)
		fprintf(stderr, "hetlab trace fit: %s\n", err);
	workload_free(&w);
	free(in);
	free(m);
	free(rep);
	return rc;
}

/* ---- synth ------------------------------------------------------------------ */

static int count_classes(const struct workload *w, int64_t per[JOB_NCLASS])
{
	int n = 0;
	memset(per, 0, JOB_NCLASS * sizeof *per);
	for (int32_t i = 0; i < w->n; i++)
		if (w->jobs[i].cls < JOB_NCLASS)
			per[w->jobs[i].cls]++;
	for (int c = 0; c < JOB_NCLASS; c++)
		n += per[c] > 0;
	return n;
}

static void print_ks_rows(const char *label, const struct ks_result r[KS_NWHAT])
{
	for (int k = 0; k < KS_NWHAT; k++) {
		char p[32];
		if (isnan(r[k].p))
			snprintf(p, sizeof p, "-");
		else if (r[k].p < 1e-300)
			snprintf(p, sizeof p, "<1e-300");
		else
			snprintf(p, sizeof p, "%.3g", r[k].p);
		printf("  %-10s %-15s %10zu %10zu %10.4f %12s\n", k == 0 ? label : "",
		       ks_what_name((enum ks_what)k), r[k].na, r[k].nb, r[k].d, p);
	}
}

struct means {
	double per_h, dur_s, cores, busy_cores;
};

static void means_of(const struct workload *w, struct means *m)
{
	memset(m, 0, sizeof *m);
	if (w->n == 0)
		return;
	simtime t0 = w->jobs[0].submit_us, t1 = t0;
	double work = 0;
	for (int32_t i = 0; i < w->n; i++) {
		const struct job *j = &w->jobs[i];
		double d = simtime_to_s(w->truth[i].run_us), c = (double)job_req_cores(&j->req);
		t0 = j->submit_us < t0 ? j->submit_us : t0;
		t1 = j->submit_us > t1 ? j->submit_us : t1;
		m->dur_s += d;
		m->cores += c;
		work += d * c;
	}
	double span_s = simtime_to_s(t1 - t0);
	m->dur_s /= w->n;
	m->cores /= w->n;
	m->per_h = span_s > 0 ? w->n / (span_s / 3600) : 0;
	m->busy_cores = span_s > 0 ? work / span_s : 0;
}

/* What a planner checks first: the offered load. */
static void print_means(const struct workload *gen, const struct workload *w)
{
	struct means a, b;
	means_of(gen, &a);
	means_of(w, &b);
	printf("\n  %-44s %12s %12s\n", "means", "model", "trace");
	printf("  %-44s %12.3f %12.3f\n", "jobs per hour", a.per_h, b.per_h);
	printf("  %-44s %12.1f %12.1f\n", "duration (s)", a.dur_s, b.dur_s);
	printf("  %-44s %12.2f %12.2f\n", "cores per job", a.cores, b.cores);
	printf("  %-44s %12.1f %12.1f\n", "busy cores (sum duration x cores / span)", a.busy_cores,
	       b.busy_cores);
}

/* The trace's time resolution: the largest of 1 s, 1 ms, 1 µs that divides
 * every submit time and runtime. */
static simtime resolution_of(const struct workload *w)
{
	simtime r = SIMTIME_SEC;
	for (int32_t i = 0; i < w->n && r > 1; i++)
		while (r > 1 && (w->jobs[i].submit_us % r != 0 || w->truth[i].run_us % r != 0))
			r /= 1000;
	return r;
}

/* gen with its submit times and runtimes floored to res (a copy of the
 * arrays; the string table is borrowed, not owned). */
static int quantised(const struct workload *gen, simtime res, struct workload *q)
{
	*q = *gen;
	q->jobs = malloc((size_t)(gen->n > 0 ? gen->n : 1) * sizeof *q->jobs);
	q->truth = malloc((size_t)(gen->n > 0 ? gen->n : 1) * sizeof *q->truth);
	if (!q->jobs || !q->truth) {
		free(q->jobs);
		free(q->truth);
		return -1;
	}
	for (int32_t i = 0; i < gen->n; i++) {
		q->jobs[i] = gen->jobs[i];
		q->truth[i] = gen->truth[i];
		q->jobs[i].submit_us -= q->jobs[i].submit_us % res;
		q->truth[i].run_us -= q->truth[i].run_us % res;
	}
	return 0;
}

/* The size-duration relation: per size bucket (cores 1, 2, 3-4, 5-8, ...;
 * GPU jobs by GPUs), the share of jobs, the mean duration and the share of
 * the busy cores, model against trace. */
#define NBUCKET 24
struct bucket {
	double jobs, dur, work;
};

static int bucket_of(const struct job *j)
{
	int32_t g = job_req_gpus(&j->req), x = g > 0 ? g : job_req_cores(&j->req);
	int b = 0;
	while (b < NBUCKET / 2 - 1 && (1 << b) < x)
		b++;
	return g > 0 ? NBUCKET / 2 + b : b;
}

static void buckets_of(const struct workload *w, struct bucket *b, double *jobs, double *work)
{
	memset(b, 0, NBUCKET * sizeof *b);
	*jobs = *work = 0;
	for (int32_t i = 0; i < w->n; i++) {
		const struct job *j = &w->jobs[i];
		double d = simtime_to_s(w->truth[i].run_us);
		double c = (double)(job_req_gpus(&j->req) > 0 ? job_req_gpus(&j->req) : job_req_cores(&j->req));
		struct bucket *x = &b[bucket_of(j)];
		x->jobs++;
		x->dur += d;
		x->work += d * c;
		*jobs += 1;
		*work += d * c;
	}
}

static void print_size_duration(const struct workload *gen, const struct workload *w)
{
	struct bucket a[NBUCKET], b[NBUCKET];
	double ja, wa, jb, wb;
	buckets_of(gen, a, &ja, &wa);
	buckets_of(w, b, &jb, &wb);
	printf("\n  %-28s %15s   %21s   %15s\n", "size-duration, model / trace", "jobs %",
	       "mean duration (s)", "busy cores %");
	for (int k = 0; k < NBUCKET; k++) {
		if (a[k].jobs == 0 && b[k].jobs == 0)
			continue;
		int lo = k % (NBUCKET / 2) == 0 ? 1 : (1 << (k % (NBUCKET / 2) - 1)) + 1;
		int hi = 1 << (k % (NBUCKET / 2));
		char lab[48];
		snprintf(lab, sizeof lab, "%s %d%s%.0d", k >= NBUCKET / 2 ? "GPUs" : "cores", lo,
		         hi > lo ? "-" : "", hi > lo ? hi : 0);
		printf("  %-28s %7.2f %7.2f   %10.0f %10.0f   %7.2f %7.2f\n", lab,
		       ja ? 100 * a[k].jobs / ja : 0, jb ? 100 * b[k].jobs / jb : 0,
		       a[k].jobs ? a[k].dur / a[k].jobs : 0, b[k].jobs ? b[k].dur / b[k].jobs : 0,
		       wa ? 100 * a[k].work / wa : 0, wb ? 100 * b[k].work / wb : 0);
	}
}

static int compare(const char *trace, bool lenient, const char *tdir, const struct workload *raw,
                   char *err, size_t errlen)
{
	struct workload w, q;
	workload_init(&w);
	int rc = -1;
	bool have_q = false;
	const struct workload *gen = raw;
	char *in = trace_resolve(trace, tdir, err, errlen);
	if (!in || trace_read_any(in, lenient, &w, NULL, err, errlen) != 0)
		goto out;
	simtime res = resolution_of(&w);
	if (res > 1) {
		if (quantised(raw, res, &q) != 0) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		have_q = true;
		gen = &q;
	}
	struct ks_result r[KS_NWHAT];
	if (ks_compare(gen, &w, -1, r, err, errlen) != 0)
		goto out;
	printf("\nKolmogorov-Smirnov, generated (n model) against %s (n trace);\n"
	       "sizes are cores per job; p is asymptotic; times at the trace's resolution, %s:\n", in,
	       res == SIMTIME_SEC ? "1 s" : res == 1000 ? "1 ms" : "1 us");
	printf("  %-10s %-15s %10s %10s %10s %12s\n", "class", "sample", "n model", "n trace", "D",
	       "p");
	print_ks_rows("all", r);
	int64_t pa[JOB_NCLASS], pb[JOB_NCLASS];
	int ca = count_classes(gen, pa), cb = count_classes(&w, pb);
	if (ca > 1 || cb > 1)
		for (int c = 0; c < JOB_NCLASS; c++) {
			if (!pa[c] || !pb[c])
				continue;
			if (ks_compare(gen, &w, c, r, err, errlen) != 0)
				goto out;
			print_ks_rows(job_class_name((enum job_class)c), r);
		}
	print_means(gen, &w);
	print_size_duration(gen, &w);
	rc = 0;
out:
	if (have_q) {
		free(q.jobs);
		free(q.truth);
	}
	workload_free(&w);
	free(in);
	return rc;
}

int cmd_trace_synth(int argc, char **argv)
{
	const char *cmd = "synth", *model = NULL, *out = NULL, *cmp = NULL, *tflag = NULL;
	const char *days_s = NULL, *seed_s = NULL, *scale_s = NULL;
	bool lenient = false, no_compare = false;
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "trace synth", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_LENIENT: lenient = true; break;
		case OPT_NO_COMPARE: no_compare = true; break;
		case OPT_OUT: out = ap.val; break;
		case OPT_COMPARE: cmp = ap.val; break;
		case OPT_TRACES: tflag = ap.val; break;
		case OPT_DAYS: days_s = ap.val; break;
		case OPT_SEED: seed_s = ap.val; break;
		case OPT_SCALE_RATE: scale_s = ap.val; break;
		case CLI_POS:
			if (model)
				return usage(cmd, SYNTH_USAGE, "too many arguments");
			model = ap.val;
			break;
		}
	if (!model)
		return usage(cmd, SYNTH_USAGE, "which MODEL.json?");
	if (cmp && no_compare)
		return usage(cmd, SYNTH_USAGE, "--compare and --no-compare together");
	if (out && !ends_with(out, ".jsonl"))
		return usage(cmd, SYNTH_USAGE, "--out must be a .jsonl file");
	double days = 0, scale = 1;
	if (days_s && !parse_double(days_s, 1e-6, 3650, &days))
		return usage(cmd, SYNTH_USAGE, "--days expects a number of days in (0, 3650]");
	if (scale_s && !parse_double(scale_s, 0, 1e6, &scale))
		return usage(cmd, SYNTH_USAGE, "--scale-rate expects a factor in [0, 1e6]");
	uint64_t seed = 1;
	if (seed_s) {
		char *end;
		errno = 0;
		unsigned long long v = strtoull(seed_s, &end, 10);
		if (errno || end == seed_s || *end || seed_s[0] == '-')
			return usage(cmd, SYNTH_USAGE, "--seed expects an integer >= 0");
		seed = v;
	}

	char err[1024] = "", src[PATH_MAX] = "";
	int rc = 1;
	struct workload w;
	workload_init(&w);
	struct synth_cfg *m = malloc(sizeof *m);
	if (!m) {
		snprintf(err, sizeof err, "out of memory");
		goto out;
	}
	if (synth_load_file(model, m, err, sizeof err) != 0 ||
	    trace_fit_source(model, src, sizeof src, err, sizeof err) != 0)
		goto out;
	if (days_s)
		m->days = days;
	m->scale_rate *= scale;
	if (trace_synth(m, seed, &w, err, sizeof err) != 0)
		goto out;
	printf("hetlab trace synth: %s: %d jobs over %.1f days (seed %llu", model, (int)w.n, m->days,
	       (unsigned long long)seed);
	if (m->scale_rate != 1)
		printf(", rate x %g", m->scale_rate);
	printf(")\n");
	if (out) {
		if (trace_jsonl_write(out, &w, err, sizeof err) != 0)
			goto out;
		printf("written to %s\n", out);
	}
	if (!cmp && !no_compare && src[0]) {
		if (access(src, R_OK) == 0)
			cmp = src;
		else
			printf("(fitted_from %s is not here: no comparison; give --compare TRACE)\n", src);
	}
	if (cmp && compare(cmp, lenient, cli_traces_dir(tflag), &w, err, sizeof err) != 0)
		goto out;
	rc = 0;
out:
	if (rc != 0)
		fprintf(stderr, "hetlab trace synth: %s\n", err);
	workload_free(&w);
	free(m);
	return rc;
}
