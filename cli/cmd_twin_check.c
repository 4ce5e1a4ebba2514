/* hetlab twin check REAL.sacct (RUN.DB | OTHER.sacct) — how close a twin's
 * replay (or a second real run) comes to a real Slurm run, job for job
 * (analysis/twincheck.h; docs/slurm-twin.md). Reads the sacct dumps with
 * traces/sacct.h and a run database with twincheck_load_db; prints the
 * figures as text or JSON. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/twincheck.h"
#include "cli/args.h"
#include "cli/cmd.h"
#include "traces/sacct.h"

#define BF_DEFAULT_S 30.0

struct side {
	const char *path;
	bool is_db;
	struct twincheck_job *job;
	int64_t n;
	int64_t never_ran;       /* sacct: jobs that never ran (not in job[]) */
	double bf_interval_s;    /* a run's bf_interval_s; NAN otherwise */
};

/* A dump's jobs: JobID or JobName, first Submit, the last run's Start,
 * and the runs preempted (requeued ones, and a last run that ended
 * PREEMPTED: cancelled). -1 with the message in err. */
static int load_sacct(struct side *s, bool by_name, char *err, size_t errlen)
{
	struct workload w;
	struct sacct_jobs x;
	if (trace_sacct_read(s->path, NULL, &w, &x, err, errlen))
		return -1;
	s->job = calloc((size_t)(w.n ? w.n : 1), sizeof *s->job);
	if (!s->job) {
		snprintf(err, errlen, "%s: out of memory", s->path);
		workload_free(&w);
		sacct_jobs_free(&x);
		return -1;
	}
	int32_t named = 0;
	for (int32_t i = 0; i < w.n; i++) {
		struct twincheck_job *j = &s->job[i];
		const char *name = workload_job_name(&w, i);
		named += name && *name;
		if (by_name)
			snprintf(j->key, sizeof j->key, "%s", name ? name : "");
		else
			snprintf(j->key, sizeof j->key, "%lld", (long long)w.jobs[i].trace_id);
		j->submit_s = (double)w.unix_start + simtime_to_s(w.jobs[i].submit_us);
		j->start_s = (double)x.job[i].start;
		j->preemptions = x.job[i].requeues + (strncmp(x.job[i].state, "PREEMPTED", 9) == 0);
	}
	int rc = 0;
	if (by_name && w.n && !named) {
		snprintf(err, errlen, "%s: no job has a JobName (dump with sacct -P --format=...,JobName,...), "
		         "or match --by jobid", s->path);
		rc = -1;
	}
	s->n = w.n;
	s->never_ran = x.never_ran;
	s->bf_interval_s = NAN;
	workload_free(&w);
	sacct_jobs_free(&x);
	return rc;
}

static int load_side(struct side *s, bool by_name, char *err, size_t errlen)
{
	s->is_db = !sacct_sniff(s->path);
	if (s->is_db)
		return twincheck_load_db(s->path, by_name, &s->job, &s->n, &s->bf_interval_s, err, errlen);
	return load_sacct(s, by_name, err, errlen);
}

/* A figure, or "n/a" for NAN. */
static const char *fig(char *buf, size_t n, const char *fmt, double v)
{
	if (isnan(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, fmt, v);
	return buf;
}

static json_t *jnum(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static void print_text(const struct side *a, const struct side *b, const struct twincheck *r,
                       const char *by, const char *bf_from)
{
	const char *bn = b->is_db ? "twin" : "other";
	char f1[32], f2[32], f3[32], f4[32], f5[32];
	double bf = r->bf_interval_s;
	printf("hetlab twin check: %s against %s, by %s\n", a->path, b->path, by);
	printf("  jobs          %lld matched; unmatched %lld real, %lld %s\n", (long long)r->matched,
	       (long long)r->only_a, (long long)r->only_b, bn);
	if (r->unstarted || r->dup_a || r->dup_b || a->never_ran || b->never_ran)
		printf("  left out      %lld not started on a side, %lld real and %lld %s with an empty or "
		       "repeated key, %lld real and %lld %s that never ran\n", (long long)r->unstarted,
		       (long long)r->dup_a, (long long)r->dup_b, bn, (long long)a->never_ran,
		       (long long)b->never_ran, bn);
	printf("  mean wait     real %s s, %s %s s, error %s %%\n",
	       fig(f1, sizeof f1, "%.1f", r->wait_mean_a_s), bn, fig(f2, sizeof f2, "%.1f", r->wait_mean_b_s),
	       fig(f3, sizeof f3, "%+.1f", r->wait_err_pct));
	printf("  |dstart|      median %s s (%s bf_interval), p90 %s s (%s bf_interval), mean %s s\n",
	       fig(f1, sizeof f1, "%.1f", r->dstart_p50_s), fig(f2, sizeof f2, "%.2f", r->dstart_p50_s / bf),
	       fig(f3, sizeof f3, "%.1f", r->dstart_p90_s), fig(f4, sizeof f4, "%.2f", r->dstart_p90_s / bf),
	       fig(f5, sizeof f5, "%.1f", r->dstart_mean_s));
	printf("  within 1 bf   %s %% of the jobs (bf_interval %g s, %s)\n",
	       fig(f1, sizeof f1, "%.1f", 100 * r->within_bf), bf, bf_from);
	printf("  start order   Kendall's tau-b %s\n", fig(f1, sizeof f1, "%.3f", r->tau_b));
	printf("  preemptions   real %lld, %s %lld\n", (long long)r->preempt_a, bn, (long long)r->preempt_b);
}

static int print_json(const struct side *a, const struct side *b, const struct twincheck *r,
                      const char *by, const char *bf_from)
{
	json_t *pairs = json_array();
	for (int64_t i = 0; pairs && i < r->matched; i++) {
		const struct twincheck_pair *p = &r->pair[i];
		json_array_append_new(pairs, json_pack("[s, f, f, f]", a->job[p->a].key, p->wait_a_s,
		                                       p->wait_b_s, p->dstart_s));
	}
	double bf = r->bf_interval_s;
	json_t *o = json_pack(
	        "{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o,"
	        " s:o, s:o, s:o, s:o, s:o, s:o, s:f, s:s, s:o, s:o, s:I, s:I, s:o*}",
	        "a", a->path, "b", b->path, "b_kind", b->is_db ? "run" : "sacct", "by", by,
	        "jobs_a", (json_int_t)r->jobs_a, "jobs_b", (json_int_t)r->jobs_b,
	        "matched", (json_int_t)r->matched, "only_a", (json_int_t)r->only_a,
	        "only_b", (json_int_t)r->only_b, "unstarted", (json_int_t)r->unstarted,
	        "dup_a", (json_int_t)r->dup_a, "dup_b", (json_int_t)r->dup_b,
	        "never_ran_a", (json_int_t)a->never_ran, "never_ran_b", (json_int_t)b->never_ran,
	        "offset_s", jnum(r->offset_s), "wait_mean_a_s", jnum(r->wait_mean_a_s),
	        "wait_mean_b_s", jnum(r->wait_mean_b_s), "wait_err_pct", jnum(r->wait_err_pct),
	        "dstart_p50_s", jnum(r->dstart_p50_s), "dstart_p90_s", jnum(r->dstart_p90_s),
	        "dstart_mean_s", jnum(r->dstart_mean_s), "dstart_p50_bf", jnum(r->dstart_p50_s / bf),
	        "dstart_p90_bf", jnum(r->dstart_p90_s / bf), "bf_interval_s", bf,
	        "bf_interval_from", bf_from, "within_bf", jnum(r->within_bf), "tau_b", jnum(r->tau_b),
	        "preempt_a", (json_int_t)r->preempt_a, "preempt_b", (json_int_t)r->preempt_b,
	        "pairs", pairs);
	if (!o || json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) < 0) {
		json_decref(o);
		fprintf(stderr, "hetlab twin check: cannot write the JSON\n");
		return -1;
	}
	fputc('\n', stdout);
	json_decref(o);
	return 0;
}

int cmd_twin_check(int argc, char **argv)
{
	struct cli_args p;
	struct side s[2] = { { 0 }, { 0 } };
	int npos = 0, by = 0, c;
	double bf = NAN;
	bool json = false;
	cli_args_init(&p, "twin check", argc, argv);
	while ((c = cli_next(&p)) != CLI_END)
		switch (c) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_BY:
			if (cli_choice(&p, "jobid name", &by))
				return CLI_USAGE;
			break;
		case OPT_BF_INTERVAL:
			if (cli_double(&p, 0.001, 86400, &bf))
				return CLI_USAGE;
			break;
		case OPT_JSON: json = true; break;
		case CLI_POS:
			if (npos == 2)
				return cli_usage(&p, "two runs to compare, not three ('%s')", p.val);
			s[npos++].path = p.val;
			break;
		}
	if (npos < 2)
		return cli_usage(&p, "which runs? (hetlab twin check REAL.sacct (RUN.DB | OTHER.sacct))");
	char err[1024];
	int rc = CLI_FAIL;
	struct twincheck r = { 0 };
	for (int i = 0; i < 2; i++)
		if (load_side(&s[i], by == 1, err, sizeof err)) {
			fprintf(stderr, "hetlab twin check: %s\n", err);
			goto out;
		}
	if (s[0].is_db) {
		fprintf(stderr, "hetlab twin check: %s: expected the real run's sacct dump (sacct -P with "
		        "its header line) first\n", s[0].path);
		goto out;
	}
	const char *bf_from = "--bf-interval";
	if (isnan(bf)) {
		bf = s[1].bf_interval_s;
		bf_from = "the run's bf_interval_s";
	}
	if (isnan(bf) || !(bf > 0)) {
		bf = BF_DEFAULT_S;
		bf_from = "the default";
	}
	if (twincheck_compare(s[0].job, s[0].n, s[1].job, s[1].n, bf, &r)) {
		fprintf(stderr, "hetlab twin check: out of memory\n");
		goto out;
	}
	const char *bys = by ? "name" : "jobid";
	if (json ? print_json(&s[0], &s[1], &r, bys, bf_from) : (print_text(&s[0], &s[1], &r, bys, bf_from), 0))
		goto out;
	if (r.matched == 0) {
		fprintf(stderr, "hetlab twin check: no job of %s matched one of %s by %s\n", s[0].path,
		        s[1].path, bys);
		goto out;
	}
	rc = CLI_OK;
out:
	twincheck_fini(&r);
	free(s[0].job);
	free(s[1].job);
	return rc;
}
