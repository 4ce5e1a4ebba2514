/* cmd_trace — `hetlab trace convert|inspect`: convert SWF (plain or gzip),
 * JSON Lines or the Alibaba DLRM CSV to JSON Lines, and summarise a trace,
 * optionally drawing its figures. Argument parsing and printing only: the
 * readers live in traces/, the statistics in traces/tracestat.c, the
 * gnuplot runner in analysis/plot.c. */
#include "analysis/runtrace.h"
#include "cli/args.h"
#include "cli/cmd.h"
#include "analysis/plot.h"
#include "traces/anytrace.h"
#include "traces/dlrm.h"
#include "traces/openb.h"
#include "config/scenario.h"
#include "traces/trace.h"
#include "traces/tracestat.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { TOP_SERVICES = 10, PLOT_SERVICES = 5 };

static const char *const fmt_key[] = { "swf", "jsonl", "dlrm", "openb", "sacct" };

static int usage(const char *msg)
{
	fprintf(stderr, "hetlab trace: %s\nTry 'hetlab trace --help'.\n", msg ? msg : "bad arguments");
	return 2;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}


/* ---- inspect: what is computed ------------------------------------------ */

struct svc_row {
	int32_t app;
	int64_t instances;
	int32_t peak;
	simtime peak_us;
	double mean;
};

struct inspect {
	const char *path;
	enum trace_fmt fmt;
	const struct workload *w;
	const struct dlrm_services *svc;   /* DLRM only, else NULL */
	const struct catalog *cat;
	struct tracestat st;
	struct svc_row *top;               /* services by peak, descending */
	int32_t ntop;
};

static int cmp_svc(const void *a, const void *b)
{
	const struct svc_row *x = a, *y = b;
	if (x->peak != y->peak)
		return x->peak > y->peak ? -1 : 1;
	if (x->mean != y->mean)
		return x->mean > y->mean ? -1 : 1;
	return (x->app > y->app) - (x->app < y->app);
}

/* Every service's peak and mean live replicas, the busiest first. */
static int rank_services(struct inspect *in, char *err, size_t errlen)
{
	const struct dlrm_services *svc = in->svc;
	in->top = calloc((size_t)(svc->napps ? svc->napps : 1), sizeof *in->top);
	if (!in->top) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct dlrm_curve c = { 0 };
	for (int32_t a = 0; a < svc->napps; a++) {
		if (dlrm_load_curve(in->w, svc, a, &c, err, errlen) != 0)
			return -1;
		in->top[a] = (struct svc_row){ a, c.instances, c.peak, c.peak_us, c.mean };
	}
	dlrm_curve_free(&c);
	in->ntop = svc->napps;
	qsort(in->top, (size_t)in->ntop, sizeof *in->top, cmp_svc);
	return 0;
}

static const char *group_name(const struct inspect *in, const struct tracestat_group *g,
                              char *buf, size_t len)
{
	if (in->st.by == TRACESTAT_BY_CLASS)
		return job_class_name((enum job_class)g->key);
	if (g->key < 0)
		return "none";
	if (in->svc && g->key < DLRM_NROLE)
		snprintf(buf, len, "%s (queue %d)", dlrm_role_name((enum dlrm_role)g->key), g->key);
	else
		snprintf(buf, len, "queue %d", g->key);
	return buf;
}

/* ---- inspect: text -------------------------------------------------------- */

static double share(int64_t part, int64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static void print_sizes(const char *what, const struct tracestat_sizes *d)
{
	printf("%-15s mean %.2f; %.1f%% powers of two\n", what, d->pct.mean,
	       share(d->pow2, d->njobs));
	printf("%-15s", "");
	for (int k = 0; k < TRACESTAT_BUCKETS; k++) {
		if (!d->bucket[k])
			continue;
		char l[48];
		tracestat_bucket_label(k, l, sizeof l);
		double p = share(d->bucket[k], d->njobs);
		if (p < 0.05)
			printf(" %s:<0.1%%", l);
		else
			printf(" %s:%.1f%%", l, p);
	}
	printf("\n%-15s p50 %.0f, p90 %.0f, p99 %.0f, max %.0f\n", "", d->pct.p50, d->pct.p90,
	       d->pct.p99, d->pct.max);
}

static void print_profile(const struct inspect *in)
{
	const struct tracestat *s = &in->st;
	if (s->utc && s->tz[0])
		printf("%-15s arrivals per hour; local hours of %s (TimeZoneString; UnixStartTime %lld)\n",
		       "hour of day", s->tz, (long long)in->w->unix_start);
	else if (s->utc)
		printf("%-15s arrivals per hour; UTC hours (UnixStartTime %lld)\n", "hour of day",
		       (long long)in->w->unix_start);
	else
		printf("%-15s arrivals per hour; hour 0 = the trace's first hour (no UnixStartTime)\n",
		       "hour of day");
	for (int h = 0; h < 24; h += 6) {
		printf("%-15s %02d-%02d", "", h, h + 5);
		for (int k = h; k < h + 6; k++)
			printf(" %8.2f", s->hour_rate[k]);
		printf("\n");
	}
	printf("%-15s arrivals per day; %s\n%-15s", "day of week",
	       s->utc ? (s->tz[0] ? "local days (TimeZoneString)" : "UTC days") : "day 0 = the trace's first day", "");
	for (int d = 0; d < 7; d++)
		printf(" %s %.1f%s", tracestat_dow_name(s->utc, d), s->dow_rate[d], d < 6 ? "," : "\n");
}

static void print_demand(const struct inspect *in)
{
	const struct tracestat *s = &in->st;
	if (s->gpus.njobs == 0)
		printf("%-15s none (no GPU jobs)", "GPU-hours");
	else
		printf("%-15s total %.1f", "GPU-hours", s->gpu_h);
	const char *sep = ": ";
	for (int32_t m = 0; m < s->nmodels; m++)
		if (s->model_gpu_h[m] > 0) {
			printf("%s%s %.1f", sep, in->cat->gpus[m].name, s->model_gpu_h[m]);
			sep = ", ";
		}
	if (s->any_gpu_h > 0) {
		printf("%sany model %.1f", sep, s->any_gpu_h);
		sep = ", ";
	}
	if (s->several_gpu_h > 0)
		printf("%sseveral models %.1f", sep, s->several_gpu_h);
	printf("\n%-15s %10s %15s %15s\n", s->by == TRACESTAT_BY_CLASS ? "by class" : "by queue",
	       "jobs", "core-hours", "GPU-hours");
	for (int32_t g = 0; g < s->ngroups; g++) {
		const struct tracestat_group *gr = &s->groups[g];
		char b[64];
		if (gr->jobs)
			printf("  %-13s %10lld %15.1f %15.1f\n", group_name(in, gr, b, sizeof b),
			       (long long)gr->jobs, gr->core_h, gr->gpu_h);
	}
	printf("  %-13s %10d %15.1f %15.1f\n", "all", s->n, s->core_h, s->gpu_h);
}

static void print_dlrm(const struct inspect *in)
{
	const struct dlrm_services *v = in->svc;
	printf("%-15s %d: CN %lld, HN %lld; %lld existed at the start (no creation_time; submit 0, "
	       "not arrivals), %lld alive at the end (no deletion_time; run to the end)\n",
	       "instances", v->ninst, (long long)v->nrole[DLRM_CN], (long long)v->nrole[DLRM_HN],
	       (long long)v->no_creation, (long long)v->no_deletion);
	printf("%-15s %.2f days (the largest time in the file)\n", "trace end",
	       simtime_to_s(v->end_us) / 86400.0);
	int32_t k = in->ntop < TOP_SERVICES ? in->ntop : TOP_SERVICES;
	printf("%-15s %d; the %d with the highest peak of live replicas:\n", "services", v->napps, k);
	printf("%-15s %-12s %10s %8s %12s %10s\n", "", "service", "instances", "peak", "at day",
	       "mean");
	for (int32_t i = 0; i < k; i++) {
		const struct svc_row *r = &in->top[i];
		printf("%-15s %-12s %10lld %8d %12.2f %10.1f\n", "", v->names[r->app],
		       (long long)r->instances, r->peak, simtime_to_s(r->peak_us) / 86400.0, r->mean);
	}
}

static void print_text(const struct inspect *in)
{
	const struct workload *w = in->w;
	const struct tracestat *s = &in->st;
	printf("%-15s %s (%s)\n", "file", in->path, trace_format_name(in->fmt));
	printf("%-15s %d (%lld lines; skipped %lld malformed, %lld unusable)\n", "jobs", w->n,
	       (long long)w->lines, (long long)w->skipped_malformed,
	       (long long)w->skipped_unusable);
	if (in->fmt != TRACE_DLRM)
		printf("%-15s MaxProcs %d, MaxNodes %d, UnixStartTime %lld\n", "header",
		       (int)w->max_procs, (int)w->max_nodes, (long long)w->unix_start);
	if (w->extra_field_lines)
		printf("%-15s %lld job lines carry fields after the 18 standard ones (up to %d); "
		       "%s\n", "extended SWF", (long long)w->extra_field_lines,
		       (int)w->extra_fields_max, w->extra_fields_max >= 3 ?
		       "fields 19 and 20 ignored, 21 read as the site's request" : "ignored");
	char notes[1024];
	trace_notes_of(w, notes, sizeof notes);
	for (const char *n = notes; *n; ) {
		const char *e = strchr(n, '\n');
		int len = e ? (int)(e - n) : (int)strlen(n);
		printf("%-15s %.*s\n", "note", len, n);
		n += len + (e != NULL);
	}
	if (w->n == 0)
		return;
	if (in->svc)
		print_dlrm(in);
	printf("%-15s %.1f days (first to last submit)\n", "span", s->span_days);
	if (s->arrivals < s->n)
		printf("%-15s %.2f per hour (%lld arrivals, first to last)\n", "arrivals",
		       s->arrivals_per_h, (long long)s->arrivals);
	else
		printf("%-15s %.2f per hour\n", "arrivals", s->arrivals_per_h);
	print_profile(in);
	printf("%-15s mean %.1f s, p50 %.0f s, p90 %.0f s, p95 %.0f s, p99 %.0f s, max %.0f s\n",
	       "runtime", s->run_s.mean, s->run_s.p50, s->run_s.p90, s->run_s.p95, s->run_s.p99,
	       s->run_s.max);
	print_sizes("cores/job", &s->cores);
	if (s->gpus.njobs) {
		printf("%-15s %lld jobs (%.1f%%)\n", "GPU jobs", (long long)s->gpus.njobs,
		       share(s->gpus.njobs, s->n));
		print_sizes("GPUs/GPU job", &s->gpus);
	}
	if (s->est_ratio_mean > 0)
		printf("%-15s %.1f%% of jobs; mean estimate/runtime %.2f\n", "estimates",
		       share(s->with_estimate, s->n), s->est_ratio_mean);
	else
		printf("%-15s %.1f%% of jobs\n", "estimates", share(s->with_estimate, s->n));
	printf("%-15s %.1f%%\n", "failed", share(s->failed, s->n));
	if (s->load >= 0)
		printf("%-15s %.3f (sum run×cores / (span × %s %d))\n", "offered load", s->load,
		       s->capacity_from, (int)s->capacity);
	else
		printf("%-15s unknown (no MaxProcs or MaxNodes header)\n", "offered load");
	printf("%-15s", "classes");
	for (int c = 0; c < JOB_NCLASS; c++)
		if (s->per_class[c])
			printf(" %s %lld", job_class_name((enum job_class)c),
			       (long long)s->per_class[c]);
	printf("\n%-15s %lld (%lld jobs without one)\n", "tenants", (long long)s->tenants,
	       (long long)s->tenant_unknown);
	print_demand(in);
}

/* ---- inspect: JSON -------------------------------------------------------- */

static json_t *reals(const double *v, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n && a; i++)
		json_array_append_new(a, json_real(v[i]));
	return a;
}

static json_t *ints(const int64_t *v, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n && a; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

static json_t *pct_json(const struct tracestat_pct *p)
{
	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f}", "mean", p->mean, "p50", p->p50, "p90",
	                 p->p90, "p95", p->p95, "p99", p->p99, "max", p->max);
}

static json_t *sizes_json(const struct tracestat_sizes *d)
{
	json_t *b = json_object();
	for (int k = 0; k < TRACESTAT_BUCKETS && b; k++) {
		if (!d->bucket[k])
			continue;
		char l[48];
		tracestat_bucket_label(k, l, sizeof l);
		json_object_set_new(b, l, json_integer(d->bucket[k]));
	}
	return json_pack("{s:I, s:f, s:f, s:o*, s:f, s:f, s:f, s:f}", "jobs", (json_int_t)d->njobs,
	                 "mean", d->pct.mean, "pow2_share", share(d->pow2, d->njobs) / 100.0,
	                 "buckets", b, "p50", d->pct.p50, "p90", d->pct.p90, "p99", d->pct.p99,
	                 "max", d->pct.max);
}

static json_t *profile_json(const struct tracestat *s)
{
	json_t *labels = json_array();
	for (int d = 0; d < 7 && labels; d++)
		json_array_append_new(labels, json_string(tracestat_dow_name(s->utc, d)));
	/* "local:ZONE" when the log's TimeZoneString named a known zone */
	char zone[80];
	snprintf(zone, sizeof zone, "local:%s", s->tz);
	const char *origin = s->utc ? (s->tz[0] ? zone : "utc") : "trace_start";
	return json_pack("{s:{s:s, s:o*, s:o*, s:o*}, s:{s:s, s:o*, s:o*, s:o*, s:o*}}",
	                 "arrivals_by_hour", "origin", origin, "per_hour", reals(s->hour_rate, 24),
	                 "arrivals", ints(s->hour_n, 24), "slots", ints(s->hour_slots, 24),
	                 "arrivals_by_weekday", "origin", origin, "labels", labels,
	                 "per_day", reals(s->dow_rate, 7), "arrivals", ints(s->dow_n, 7),
	                 "slots", ints(s->dow_slots, 7));
}

static json_t *demand_json(const struct inspect *in)
{
	const struct tracestat *s = &in->st;
	json_t *models = json_object();
	for (int32_t m = 0; m < s->nmodels && models; m++)
		if (s->model_gpu_h[m] > 0)
			json_object_set_new(models, in->cat->gpus[m].name, json_real(s->model_gpu_h[m]));
	json_t *groups = json_array();
	for (int32_t g = 0; g < s->ngroups && groups; g++) {
		const struct tracestat_group *gr = &s->groups[g];
		char b[64];
		if (gr->jobs)
			json_array_append_new(groups, json_pack("{s:s, s:i, s:I, s:f, s:f}",
				"name", group_name(in, gr, b, sizeof b), "key", (int)gr->key,
				"jobs", (json_int_t)gr->jobs, "core_hours", gr->core_h, "gpu_hours", gr->gpu_h));
	}
	return json_pack("{s:{s:f, s:o*, s:f, s:f}, s:f, s:s, s:o*}", "gpu_hours",
	                 "total", s->gpu_h, "models", models, "any", s->any_gpu_h,
	                 "several", s->several_gpu_h, "core_hours", s->core_h,
	                 "by", s->by == TRACESTAT_BY_CLASS ? "class" : "queue", "groups", groups);
}

static json_t *dlrm_json(const struct inspect *in)
{
	const struct dlrm_services *v = in->svc;
	json_t *top = json_array();
	for (int32_t i = 0; i < in->ntop && i < TOP_SERVICES && top; i++) {
		const struct svc_row *r = &in->top[i];
		json_array_append_new(top, json_pack("{s:s, s:I, s:i, s:f, s:f}", "service",
			v->names[r->app], "instances", (json_int_t)r->instances, "peak", (int)r->peak,
			"peak_s", simtime_to_s(r->peak_us), "mean", r->mean));
	}
	return json_pack("{s:i, s:I, s:I, s:I, s:I, s:f, s:i, s:o*}", "instances", (int)v->ninst,
	                 "cn", (json_int_t)v->nrole[DLRM_CN], "hn", (json_int_t)v->nrole[DLRM_HN],
	                 "no_creation", (json_int_t)v->no_creation,
	                 "no_deletion", (json_int_t)v->no_deletion, "end_s", simtime_to_s(v->end_us),
	                 "services", (int)v->napps, "top", top);
}

static int print_json(const struct inspect *in)
{
	const struct workload *w = in->w;
	const struct tracestat *s = &in->st;
	json_t *cls = json_object();
	for (int c = 0; c < JOB_NCLASS && cls; c++)
		json_object_set_new(cls, job_class_name((enum job_class)c),
		                    json_integer(s->per_class[c]));
	json_t *load = s->load >= 0 ? json_real(s->load) : json_null();
	json_t *o = json_pack(
		"{s:s, s:s, s:i, s:I, s:I, s:I, s:I, s:i, s:i, s:i, s:I, s:f, s:I, s:f,"
		" s:o*, s:o*, s:o*, s:f, s:f, s:f, s:o*, s:o*, s:I, s:I}",
		"file", in->path, "format", fmt_key[in->fmt], "jobs", (int)w->n,
		"lines", (json_int_t)w->lines, "skipped_malformed", (json_int_t)w->skipped_malformed,
		"skipped_unusable", (json_int_t)w->skipped_unusable,
		"extra_field_lines", (json_int_t)w->extra_field_lines,
		"extra_fields_max", (int)w->extra_fields_max, "max_procs", (int)w->max_procs,
		"max_nodes", (int)w->max_nodes, "unix_start", (json_int_t)w->unix_start,
		"span_days", s->span_days, "arrivals", (json_int_t)s->arrivals,
		"arrivals_per_h", s->arrivals_per_h,
		"runtime_s", pct_json(&s->run_s),
		"cores", sizes_json(&s->cores),
		"gpus", s->gpus.njobs ? sizes_json(&s->gpus) : NULL,
		"estimate_share", share(s->with_estimate, s->n) / 100.0,
		"estimate_ratio_mean", s->est_ratio_mean,
		"failed_share", share(s->failed, s->n) / 100.0,
		"offered_load", load, "classes", cls,
		"tenants", (json_int_t)s->tenants, "tenant_unknown", (json_int_t)s->tenant_unknown);
	char notes[1024];
	trace_notes_of(w, notes, sizeof notes);
	json_t *nl = json_array();
	for (const char *n = notes; *n && nl; ) {
		const char *e = strchr(n, '\n');
		size_t len = e ? (size_t)(e - n) : strlen(n);
		json_array_append_new(nl, json_stringn(n, len));
		n += len + (e != NULL);
	}
	if (o && nl)
		json_object_set_new(o, "notes", nl);
	else
		json_decref(nl);
	json_t *prof = profile_json(s), *dem = demand_json(in);
	json_t *dl = in->svc ? dlrm_json(in) : NULL;
	int rc = -1;
	if (!o || !prof || !dem || (in->svc && !dl))
		goto out;
	json_object_update(o, prof);
	json_object_update(o, dem);
	if (dl)
		json_object_set(o, "dlrm", dl);
	rc = json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	printf("\n");
out:
	json_decref(o);
	json_decref(prof);
	json_decref(dem);
	json_decref(dl);
	return rc;
}

/* ---- inspect: figures ------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* The duration CDF over positive runtimes: a point where the runtime
 * changes, thinned to steps of at least 0.2 % in x or 0.001 in y (the file
 * stays small, the curve looks the same). */
static int plot_cdf(const struct inspect *in, const char *dir, char *err, size_t errlen)
{
	const struct tracestat *s = &in->st;
	int32_t n = s->n, zeros = 0;
	double *x = malloc((size_t)(n ? n : 1) * sizeof *x);
	double *y = malloc((size_t)(n ? n : 1) * sizeof *y);
	int64_t k = 0;
	if (!x || !y) {
		free(x);
		free(y);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int32_t i = 0; i < n; i++) {
		simtime v = s->run_sorted_us[i];
		zeros += v <= 0;
		if (v <= 0 || (i + 1 < n && s->run_sorted_us[i + 1] == v))
			continue;
		double xs = simtime_to_s(v), ys = (double)(i + 1) / (double)n;
		if (k > 0 && i + 1 < n && xs < x[k - 1] * 1.002 && ys < y[k - 1] + 0.001)
			continue;
		x[k] = xs;
		y[k++] = ys;
	}
	char title[512];
	snprintf(title, sizeof title, "Job duration CDF, %s (%d jobs%s)", base_name(in->path), n,
	         zeros ? "; those of runtime 0 count but are off the log scale" : "");
	struct plot_fig f = {
		.name = "duration-cdf", .title = title, .xlabel = "duration (log scale)",
		.ylabel = "fraction of jobs with duration <= x", .logx = true,
		.extra = "set yrange [0:1]\nset key off\n"
		         "set xtics (\"1 s\" 1, \"10 s\" 10, \"1 min\" 60, \"10 min\" 600, "
		         "\"1 h\" 3600, \"10 h\" 36000, \"1 d\" 86400, \"1 wk\" 604800, "
		         "\"30 d\" 2592000, \"1 y\" 31536000)",
	};
	struct plot_series sr = { .title = "jobs", .n = k, .x = x, .y = y };
	int rc = plot_xy(dir, &f, PLOT_STEPS, 1, &sr, err, errlen);
	free(x);
	free(y);
	return rc;
}

static int plot_sizes(const struct inspect *in, const char *dir, char *err, size_t errlen)
{
	const struct tracestat *s = &in->st;
	int last = 0;
	for (int k = 0; k < TRACESTAT_BUCKETS; k++)
		if (s->cores.bucket[k] || s->gpus.bucket[k])
			last = k;
	char lab[TRACESTAT_BUCKETS][48];
	const char *labels[TRACESTAT_BUCKETS];
	double pc[TRACESTAT_BUCKETS], pg[TRACESTAT_BUCKETS];
	for (int k = 0; k <= last; k++) {
		tracestat_bucket_label(k, lab[k], sizeof lab[k]);
		labels[k] = lab[k];
		pc[k] = share(s->cores.bucket[k], s->cores.njobs);
		pg[k] = share(s->gpus.bucket[k], s->gpus.njobs);
	}
	struct plot_series sr[2] = {
		{ .title = "cores per job (% of all jobs)", .y = pc },
		{ .title = "GPUs per GPU job (% of GPU jobs)", .y = pg },
	};
	char title[512];
	snprintf(title, sizeof title, "Job sizes, %s", base_name(in->path));
	struct plot_fig f = { .name = "sizes", .title = title,
	                      .xlabel = s->gpus.njobs ? "size class (cores or GPUs per job)"
	                                              : "size class (cores per job)",
	                      .ylabel = "share of jobs (%)" };
	return plot_bars(dir, &f, last + 1, labels, s->gpus.njobs ? 2 : 1, sr, err, errlen);
}

static int plot_loads(const struct inspect *in, const char *dir, char *err, size_t errlen)
{
	int32_t k = in->ntop < PLOT_SERVICES ? in->ntop : PLOT_SERVICES;
	struct dlrm_curve c[PLOT_SERVICES] = { { 0 } };
	struct plot_series sr[PLOT_SERVICES] = { { 0 } };
	double *xy[2 * PLOT_SERVICES] = { 0 };
	int rc = -1;
	for (int32_t i = 0; i < k; i++) {
		if (dlrm_load_curve(in->w, in->svc, in->top[i].app, &c[i], err, errlen) != 0)
			goto out;
		double *x = xy[2 * i] = malloc((size_t)(c[i].n + 1) * sizeof *x);
		double *y = xy[2 * i + 1] = malloc((size_t)(c[i].n + 1) * sizeof *y);
		if (!x || !y) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		for (int32_t p = 0; p < c[i].n; p++) {
			x[p] = simtime_to_s(c[i].t_us[p]) / 86400.0;
			y[p] = c[i].live[p];
		}
		x[c[i].n] = simtime_to_s(c[i].end_us) / 86400.0; /* the last step's end */
		y[c[i].n] = c[i].live[c[i].n - 1];
		sr[i] = (struct plot_series){ .title = in->svc->names[in->top[i].app],
		                              .n = c[i].n + 1, .x = x, .y = y };
	}
	char title[512];
	snprintf(title, sizeof title, "Live replicas of the %d services with the highest peak, %s",
	         k, base_name(in->path));
	char extra[128];
	snprintf(extra, sizeof extra, "set xrange [0:%.6g]\nset yrange [0:*]\nset key outside right top",
	         simtime_to_s(in->svc->end_us) / 86400.0);
	struct plot_fig f = { .name = "load-curves", .title = title,
	                      .xlabel = "time since the trace start (days)",
	                      .ylabel = "live replicas (instances)", .extra = extra };
	rc = plot_xy(dir, &f, PLOT_STEPS, k, sr, err, errlen);
out:
	for (int i = 0; i < PLOT_SERVICES; i++) {
		dlrm_curve_free(&c[i]);
		free(xy[2 * i]);
		free(xy[2 * i + 1]);
	}
	return rc;
}

static int draw(const struct inspect *in, const char *dir, char *err, size_t errlen)
{
	const struct tracestat *s = &in->st;
	if (plot_mkdir(dir, err, errlen) != 0)
		return -1;
	char hl[24][4], title[512], xl[128];
	const char *hlabels[24], *dlabels[7];
	for (int h = 0; h < 24; h++) {
		snprintf(hl[h], sizeof hl[h], "%02d", h);
		hlabels[h] = hl[h];
	}
	for (int d = 0; d < 7; d++)
		dlabels[d] = tracestat_dow_name(s->utc, d);
	snprintf(title, sizeof title, "Arrivals by hour of day, %s", base_name(in->path));
	snprintf(xl, sizeof xl, "%s", s->utc ? "hour of day (UTC)" :
	         "hour of day (hour 0 = the trace's first hour)");
	struct plot_series hs = { .title = NULL, .y = s->hour_rate };
	struct plot_fig fh = { .name = "arrivals-hour", .title = title, .xlabel = xl,
	                       .ylabel = "arrivals per hour (jobs/h)" };
	if (plot_bars(dir, &fh, 24, hlabels, 1, &hs, err, errlen) != 0)
		return -1;
	snprintf(title, sizeof title, "Arrivals by day of week, %s", base_name(in->path));
	snprintf(xl, sizeof xl, "%s", s->utc ? "day of week (UTC)" :
	         "day of week (day 0 = the trace's first day)");
	struct plot_series ds = { .title = NULL, .y = s->dow_rate };
	struct plot_fig fd = { .name = "arrivals-weekday", .title = title, .xlabel = xl,
	                       .ylabel = "arrivals per day (jobs/day)" };
	if (plot_bars(dir, &fd, 7, dlabels, 1, &ds, err, errlen) != 0 ||
	    plot_cdf(in, dir, err, errlen) != 0 || plot_sizes(in, dir, err, errlen) != 0)
		return -1;
	const char *names[] = { "arrivals-hour", "arrivals-weekday", "duration-cdf", "sizes",
	                        "load-curves" };
	int n = 4;
	if (in->svc && in->ntop > 0) {
		if (plot_loads(in, dir, err, errlen) != 0)
			return -1;
		n = 5;
	}
	int rc = plot_render(NULL, dir, n, names, err, errlen);
	if (rc == 0) {
		fprintf(stderr, "hetlab trace: figures (PNG and SVG, with their .dat and .gp) in %s:", dir);
		for (int i = 0; i < n; i++)
			fprintf(stderr, " %s", names[i]);
		fprintf(stderr, "\n");
	}
	return rc == 0 ? 0 : -1;
}

static int inspect(const char *path, enum trace_fmt fmt, struct workload *w, struct dlrm_services *svc,
                   enum tracestat_by by, bool as_json, const char *plot_dir, char *err,
                   size_t errlen)
{
	struct inspect in = { .path = path, .fmt = fmt, .w = w };
	struct catalog cat;
	uint8_t *skip = NULL;
	int rc = -1;
	if (catalog_load_builtin(&cat, err, errlen) != 0)
		return -1;
	in.cat = &cat;
	if (in.fmt == TRACE_DLRM) {
		in.svc = svc;
		if (!(skip = calloc((size_t)(w->n ? w->n : 1), 1))) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		for (int32_t i = 0; i < w->n; i++)
			skip[i] = (svc->inst[i].flags & DLRM_NO_CREATION) != 0;
		if (rank_services(&in, err, errlen) != 0)
			goto out;
	}
	struct tracestat_opts o = { .by = by, .cat = &cat, .not_arrival = skip };
	if (tracestat_compute(w, &o, &in.st, err, errlen) != 0)
		goto out;
	if (!as_json) {
		print_text(&in);
	} else if (print_json(&in) != 0) {
		snprintf(err, errlen, "cannot write the summary");
		goto out;
	}
	fflush(stdout);
	if (plot_dir && w->n == 0)
		fprintf(stderr, "hetlab trace: no jobs, so no figures\n");
	else if (plot_dir && draw(&in, plot_dir, err, errlen) != 0)
		goto out;
	rc = 0;
out:
	tracestat_free(&in.st);
	free(in.top);
	free(skip);
	catalog_fini(&cat);
	return rc;
}

/* ---- inspect: an openb node list ------------------------------------------ */

static int inspect_nodes(const char *path, char *err, size_t errlen)
{
	struct openb_nodes l;
	struct openb_node_summary s;
	if (trace_openb_nodes_read(path, &l, err, errlen) != 0)
		return -1;
	if (openb_node_summary(&l, &s, err, errlen) != 0) {
		openb_nodes_free(&l);
		return -1;
	}
	printf("%-15s %s (openb nodes)\n", "file", path);
	printf("%-15s %d (%lld lines), %lld GPUs, %.1f cores, %.1f GiB; %d without GPUs\n",
	       "nodes", l.n, (long long)l.lines, (long long)s.all.gpus,
	       (double)s.all.cpu_milli / 1000.0, (double)s.all.memory_mib / 1024.0, s.cpu_only);
	printf("%-15s %8s %8s %8s %12s %12s\n", "by GPU model", "nodes", "GPUs", "shapes",
	       "cores", "memory GiB");
	for (int32_t m = 0; m <= s.nmodels; m++) {
		const struct openb_model_sum *r = m < s.nmodels ? &s.m[m] : &s.all;
		printf("  %-13s %8d %8lld %8d %12.1f %12.1f\n",
		       m == s.nmodels ? "all" : r->model[0] ? r->model : "(no GPU)", r->nodes,
		       (long long)r->gpus, r->shapes, (double)r->cpu_milli / 1000.0,
		       (double)r->memory_mib / 1024.0);
	}
	printf("%-15s shapes: distinct (GPUs, cpu_milli, memory_mib) per node\n", "");
	openb_node_summary_free(&s);
	openb_nodes_free(&l);
	return 0;
}

/* ---- the subcommand ------------------------------------------------------ */

int cmd_trace(int argc, char **argv)
{
	/* fit and synth have their own parsers (cli/cmd_fit.c). */
	int rc0;
	const struct cli_cmd *sub = cli_sub_find("trace", argc, argv, &rc0);
	if (!sub)
		return rc0;
	if (strcmp(sub->name, "fit") == 0)
		return cmd_trace_fit(argc - 1, argv + 1);
	if (strcmp(sub->name, "synth") == 0)
		return cmd_trace_synth(argc - 1, argv + 1);
	bool lenient = false, as_json = false;
	const char *tflag = NULL, *plot_dir = NULL, *by = NULL;
	const char *pos[3] = { sub->name, NULL, NULL };
	int npos = 1;
	char path[32];
	snprintf(path, sizeof path, "trace %s", sub->name);
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, path, argc - 1, argv + 1);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_LENIENT: lenient = true; break;
		case OPT_JSON: as_json = true; break;
		case OPT_TRACES: tflag = ap.val; break;
		case OPT_PLOT: plot_dir = ap.val; break;
		case OPT_BY: by = ap.val; break;
		case CLI_POS:
			if (npos == 3)
				return cli_usage(&ap, "too many arguments ('%s')", ap.val);
			pos[npos++] = ap.val;
			break;
		}
	bool convert = strcmp(pos[0], "convert") == 0;
	bool insp = strcmp(pos[0], "inspect") == 0;
	if (!convert && !insp) {
		fprintf(stderr, "hetlab trace: unknown subcommand '%s'\n", pos[0]);
		return usage(NULL);
	}
	if (convert && npos != 3)
		return usage("convert takes IN and OUT");
	if (insp && npos != 2)
		return usage("inspect takes one FILE");
	if (convert && (as_json || plot_dir || by))
		return usage("--json, --by and --plot are for inspect");
	if (convert && runtrace_is_db(pos[1])) {
		/* a results database: its jobs as they ran (analysis/runtrace.h) */
		char derr[1024];
		int64_t n;
		if (!ends_with(pos[2], ".jsonl") && !ends_with(pos[2], ".swf"))
			return usage("OUT must be a .swf or .jsonl file");
		if (runtrace_write(pos[1], pos[2], -1, &n, derr, sizeof derr) != 0) {
			fprintf(stderr, "hetlab trace: %s\n", derr);
			return 1;
		}
		printf("%s: %lld jobs written from the run %s\n", pos[2], (long long)n, pos[1]);
		return 0;
	}
	if (convert && !ends_with(pos[2], ".jsonl"))
		return usage("OUT must be a .jsonl file");
	enum tracestat_by grp = TRACESTAT_BY_CLASS;
	if (by && strcmp(by, "queue") == 0)
		grp = TRACESTAT_BY_QUEUE;
	else if (by && strcmp(by, "class") != 0)
		return usage("--by takes class or queue");
	if (plot_dir && !*plot_dir)
		return usage("--plot needs a folder");

	char err[1024] = "";
	int rc = 1;
	struct workload w;
	struct dlrm_services svc;
	workload_init(&w);
	dlrm_services_init(&svc);
	char *in = trace_resolve(pos[1], cli_traces_dir(tflag), err, sizeof err);
	/* A pipe is read once: sniffed and read from its copy (trace_spool). */
	char tmp[4096] = "";
	if (in && trace_spool(in, tmp, sizeof tmp, err, sizeof err) != 0)
		goto out;
	const char *rd = tmp[0] ? tmp : in;
	enum trace_fmt fmt = TRACE_SWF;
	if (in && insp && openb_sniff(rd) == OPENB_NODES) {
		if (as_json || plot_dir || by) {
			free(in);
			return usage("--json, --by and --plot are for jobs, not an openb node list");
		}
		if (inspect_nodes(rd, err, sizeof err) == 0)
			rc = 0;
		goto out;
	}
	if (!in || trace_read_as(rd, lenient, NULL, &w, &svc, &fmt, err, sizeof err) != 0)
		goto out;
	if (convert) {
		if (cli_same_file(in, pos[2])) {
			snprintf(err, sizeof err, "OUT %s is IN: converting a trace onto itself would replace "
			         "it (give another output file)", pos[2]);
			rc = 2;
			goto out;
		}
		if (trace_jsonl_write(pos[2], &w, err, sizeof err) != 0)
			goto out;
		printf("%s: %d jobs written (skipped %lld malformed, %lld unusable lines)\n",
		       pos[2], w.n, (long long)w.skipped_malformed, (long long)w.skipped_unusable);
	} else if (inspect(in, fmt, &w, &svc, grp, as_json, plot_dir, err, sizeof err) != 0) {
		goto out;
	}
	rc = 0;
out:
	if (tmp[0]) {
		trace_own_name(err, sizeof err, tmp, in);
		unlink(tmp);
	}
	if (rc != 0)
		fprintf(stderr, "hetlab trace: %s\n", err);
	dlrm_services_free(&svc);
	workload_free(&w);
	free(in);
	return rc;
}
