/* cmd_trace — `hetlab trace convert|inspect`: convert SWF (plain or gzip) or
 * JSON Lines to JSON Lines, and summarise a trace. Argument parsing and
 * printing only; reading and writing live in traces/. */
#include "cli/cmd.h"
#include "traces/trace.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRACE_USAGE \
	"usage: hetlab trace convert IN OUT.jsonl [--lenient] [--traces DIR]\n" \
	"       hetlab trace inspect FILE [--lenient] [--json] [--traces DIR]\n" \
	"IN and FILE: SWF (plain or .gz) or .jsonl; a relative path not found here\n" \
	"is looked up in the trace directory (--traces, $HETLAB_TRACES, ../shared/traces).\n" \
	"--lenient: skip and count malformed SWF lines instead of failing.\n"

enum { SIZE_BUCKETS = 32 };

static int usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "hetlab trace: %s\n", msg);
	fputs(TRACE_USAGE, stderr);
	return 2;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool is_jsonl(const char *path)
{
	return ends_with(path, ".jsonl") || ends_with(path, ".jsonl.gz");
}

/* The path to read: as given when it exists, else under the trace directory.
 * Returns a string the caller frees, or NULL with a message in err. */
static char *resolve_input(const char *path, const char *tdir, char *err, size_t errlen)
{
	if (access(path, F_OK) == 0 || path[0] == '/')
		return strdup(path);
	size_t n = strlen(tdir) + strlen(path) + 2;
	char *p = malloc(n);
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(p, n, "%s/%s", tdir, path);
	if (access(p, F_OK) == 0)
		return p;
	free(p);
	snprintf(err, errlen, "%s: no such file (also looked in the trace directory %s; "
	         "set it with --traces DIR or $HETLAB_TRACES)", path, tdir);
	return NULL;
}

static int read_any(const char *path, bool lenient, struct workload *w, char *err,
                    size_t errlen)
{
	if (is_jsonl(path))
		return trace_jsonl_read(path, w, err, errlen);
	struct swf_opts o = { .lenient = lenient };
	return trace_swf_read(path, &o, w, err, errlen);
}

/* ---- inspect ------------------------------------------------------------ */

struct size_dist {
	int64_t njobs;                /* jobs counted */
	int64_t bucket[SIZE_BUCKETS]; /* bucket k: sizes in (2^(k-1), 2^k] */
	int64_t pow2;                 /* sizes that are exact powers of two */
	double mean;
};

struct summary {
	int32_t n;
	int64_t first_us, last_us;
	double span_days, arrivals_per_h;
	double run_mean_s, run_p50_s, run_p95_s, run_max_s;
	struct size_dist cores, gpus;
	int64_t with_estimate;
	double est_ratio_mean;        /* over jobs with an estimate and run > 0 */
	int64_t failed;
	double load;                  /* -1 when unknown */
	int32_t capacity;
	const char *capacity_from;
	int64_t per_class[JOB_NCLASS];
	int64_t tenants, tenant_unknown;
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static void size_add(struct size_dist *d, int64_t size)
{
	int k = 0;
	while (k < SIZE_BUCKETS - 1 && ((int64_t)1 << k) < size)
		k++;
	d->bucket[k]++;
	d->pow2 += (size & (size - 1)) == 0;
	d->njobs++;
	d->mean += (double)size;
}

/* Nearest-rank percentile of a sorted array. */
static int64_t pct(const int64_t *v, int32_t n, double p)
{
	int64_t r = (int64_t)ceil(p * (double)n);
	return v[r < 1 ? 0 : r - 1];
}

static int summarise(const struct workload *w, struct summary *s)
{
	memset(s, 0, sizeof *s);
	s->n = w->n;
	s->load = -1;
	if (w->n == 0)
		return 0;
	int64_t *v = malloc((size_t)w->n * sizeof *v);
	if (!v)
		return -1;
	s->first_us = w->jobs[0].submit_us;
	s->last_us = w->jobs[w->n - 1].submit_us;
	double span_s = simtime_to_s(s->last_us - s->first_us);
	s->span_days = span_s / 86400.0;
	s->arrivals_per_h = span_s > 0 ? (double)w->n / (span_s / 3600.0) : 0;
	double run_sum = 0, work = 0, ratio_sum = 0;
	int64_t nratio = 0;
	for (int32_t i = 0; i < w->n; i++) {
		const struct job *j = &w->jobs[i];
		const struct job_truth *t = &w->truth[i];
		double run_s = simtime_to_s(t->run_us);
		int64_t cores = job_req_cores(&j->req), gpus = job_req_gpus(&j->req);
		v[i] = t->run_us;
		run_sum += run_s;
		work += run_s * (double)cores;
		size_add(&s->cores, cores);
		if (gpus > 0)
			size_add(&s->gpus, gpus);
		if (j->walltime_us != SIMTIME_INF) {
			s->with_estimate++;
			if (t->run_us > 0) {
				ratio_sum += (double)j->walltime_us / (double)t->run_us;
				nratio++;
			}
		}
		s->failed += t->fails != 0;
		if (j->cls < JOB_NCLASS)
			s->per_class[j->cls]++;
	}
	s->run_mean_s = run_sum / w->n;
	s->est_ratio_mean = nratio ? ratio_sum / (double)nratio : 0;
	if (s->cores.njobs)
		s->cores.mean /= (double)s->cores.njobs;
	if (s->gpus.njobs)
		s->gpus.mean /= (double)s->gpus.njobs;
	qsort(v, (size_t)w->n, sizeof *v, cmp_i64);
	s->run_p50_s = simtime_to_s(pct(v, w->n, 0.50));
	s->run_p95_s = simtime_to_s(pct(v, w->n, 0.95));
	s->run_max_s = simtime_to_s(v[w->n - 1]);
	s->capacity = w->max_procs > 0 ? w->max_procs : w->max_nodes > 0 ? w->max_nodes : 0;
	s->capacity_from = w->max_procs > 0 ? "MaxProcs" : "MaxNodes";
	if (s->capacity > 0 && span_s > 0)
		s->load = work / (span_s * (double)s->capacity);
	/* Distinct tenants: sort the ids and count the changes. */
	for (int32_t i = 0; i < w->n; i++)
		v[i] = w->jobs[i].tenant;
	qsort(v, (size_t)w->n, sizeof *v, cmp_i64);
	for (int32_t i = 0; i < w->n; i++) {
		if (v[i] < 0)
			s->tenant_unknown++;
		else if (i == 0 || v[i] != v[i - 1])
			s->tenants++;
	}
	free(v);
	return 0;
}

static void bucket_label(int k, char *buf, size_t len)
{
	if (k <= 1)
		snprintf(buf, len, "%d", 1 << k);
	else
		snprintf(buf, len, "%lld-%lld", (1LL << (k - 1)) + 1, 1LL << k);
}

static double share(int64_t part, int64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static void print_sizes(const char *what, const struct size_dist *d)
{
	printf("%-15s mean %.2f; %.1f%% powers of two\n", what, d->mean,
	       share(d->pow2, d->njobs));
	printf("%-15s", "");
	for (int k = 0; k < SIZE_BUCKETS; k++) {
		if (!d->bucket[k])
			continue;
		char l[48];
		bucket_label(k, l, sizeof l);
		double p = share(d->bucket[k], d->njobs);
		if (p < 0.05)
			printf(" %s:<0.1%%", l);
		else
			printf(" %s:%.1f%%", l, p);
	}
	printf("\n");
}

static void print_text(const char *path, const struct workload *w, const struct summary *s)
{
	printf("%-15s %s (%s)\n", "file", path, is_jsonl(path) ? "JSON Lines" : "SWF");
	printf("%-15s %d (%lld lines; skipped %lld malformed, %lld unusable)\n", "jobs", w->n,
	       (long long)w->lines, (long long)w->skipped_malformed,
	       (long long)w->skipped_unusable);
	printf("%-15s MaxProcs %d, MaxNodes %d, UnixStartTime %lld\n", "header",
	       (int)w->max_procs, (int)w->max_nodes, (long long)w->unix_start);
	if (w->n == 0)
		return;
	printf("%-15s %.1f days (first to last submit)\n", "span", s->span_days);
	printf("%-15s %.2f per hour\n", "arrivals", s->arrivals_per_h);
	printf("%-15s mean %.1f s, p50 %.0f s, p95 %.0f s, max %.0f s\n", "runtime",
	       s->run_mean_s, s->run_p50_s, s->run_p95_s, s->run_max_s);
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
}

static json_t *sizes_json(const struct size_dist *d)
{
	json_t *b = json_object();
	for (int k = 0; k < SIZE_BUCKETS && b; k++) {
		if (!d->bucket[k])
			continue;
		char l[48];
		bucket_label(k, l, sizeof l);
		json_object_set_new(b, l, json_integer(d->bucket[k]));
	}
	return json_pack("{s:I, s:f, s:f, s:o*}", "jobs", (json_int_t)d->njobs, "mean", d->mean,
	                 "pow2_share", share(d->pow2, d->njobs) / 100.0, "buckets", b);
}

static int print_json(const char *path, const struct workload *w, const struct summary *s)
{
	json_t *cls = json_object();
	for (int c = 0; c < JOB_NCLASS && cls; c++)
		json_object_set_new(cls, job_class_name((enum job_class)c),
		                    json_integer(s->per_class[c]));
	json_t *load = s->load >= 0 ? json_real(s->load) : json_null();
	json_t *o = json_pack(
		"{s:s, s:s, s:i, s:I, s:I, s:I, s:i, s:i, s:I, s:f, s:f,"
		" s:{s:f, s:f, s:f, s:f}, s:o*, s:o*, s:f, s:f, s:f, s:o*, s:o*, s:I, s:I}",
		"file", path, "format", is_jsonl(path) ? "jsonl" : "swf", "jobs", (int)w->n,
		"lines", (json_int_t)w->lines, "skipped_malformed", (json_int_t)w->skipped_malformed,
		"skipped_unusable", (json_int_t)w->skipped_unusable, "max_procs", (int)w->max_procs,
		"max_nodes", (int)w->max_nodes, "unix_start", (json_int_t)w->unix_start,
		"span_days", s->span_days, "arrivals_per_h", s->arrivals_per_h,
		"runtime_s", "mean", s->run_mean_s, "p50", s->run_p50_s, "p95", s->run_p95_s,
		"max", s->run_max_s,
		"cores", sizes_json(&s->cores),
		"gpus", s->gpus.njobs ? sizes_json(&s->gpus) : NULL,
		"estimate_share", share(s->with_estimate, s->n) / 100.0,
		"estimate_ratio_mean", s->est_ratio_mean,
		"failed_share", share(s->failed, s->n) / 100.0,
		"offered_load", load, "classes", cls,
		"tenants", (json_int_t)s->tenants, "tenant_unknown", (json_int_t)s->tenant_unknown);
	if (!o)
		return -1;
	int rc = json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
	json_decref(o);
	printf("\n");
	return rc;
}

/* ---- the subcommand ------------------------------------------------------ */

int cmd_trace(int argc, char **argv)
{
	bool lenient = false, as_json = false;
	const char *tflag = NULL;
	const char *pos[3];
	int npos = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(TRACE_USAGE, stdout);
			return 0;
		} else if (strcmp(a, "--lenient") == 0) {
			lenient = true;
		} else if (strcmp(a, "--json") == 0) {
			as_json = true;
		} else if (strcmp(a, "--traces") == 0) {
			if (++i == argc)
				return usage("--traces needs a directory");
			tflag = argv[i];
		} else if (strncmp(a, "--traces=", 9) == 0) {
			tflag = a + 9;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "hetlab trace: unknown option %s\n", a);
			return usage(NULL);
		} else if (npos < 3) {
			pos[npos++] = a;
		} else {
			return usage("too many arguments");
		}
	}
	if (npos == 0)
		return usage(NULL);
	bool convert = strcmp(pos[0], "convert") == 0;
	bool inspect = strcmp(pos[0], "inspect") == 0;
	if (!convert && !inspect) {
		fprintf(stderr, "hetlab trace: unknown subcommand '%s'\n", pos[0]);
		return usage(NULL);
	}
	if (convert && npos != 3)
		return usage("convert takes IN and OUT");
	if (inspect && npos != 2)
		return usage("inspect takes one FILE");
	if (convert && as_json)
		return usage("--json is for inspect");
	if (convert && !ends_with(pos[2], ".jsonl"))
		return usage("OUT must be a .jsonl file");

	char err[1024] = "";
	int rc = 1;
	struct workload w;
	workload_init(&w);
	char *in = resolve_input(pos[1], cli_traces_dir(tflag), err, sizeof err);
	if (!in || read_any(in, lenient, &w, err, sizeof err) != 0)
		goto out;
	if (convert) {
		if (trace_jsonl_write(pos[2], &w, err, sizeof err) != 0)
			goto out;
		printf("%s: %d jobs written (skipped %lld malformed, %lld unusable lines)\n",
		       pos[2], w.n, (long long)w.skipped_malformed, (long long)w.skipped_unusable);
	} else {
		struct summary s;
		if (summarise(&w, &s) != 0) {
			snprintf(err, sizeof err, "%s: out of memory", in);
			goto out;
		}
		if (!as_json) {
			print_text(in, &w, &s);
		} else if (print_json(in, &w, &s) != 0) {
			snprintf(err, sizeof err, "cannot write the summary");
			goto out;
		}
	}
	rc = 0;
out:
	if (rc != 0)
		fprintf(stderr, "hetlab trace: %s\n", err);
	workload_free(&w);
	free(in);
	return rc;
}
