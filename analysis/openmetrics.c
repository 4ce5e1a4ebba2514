/* openmetrics — `hetlab export openmetrics` (analysis/openmetrics.h).
 *
 * The job-derived series (allocation by model and tenant, jobs by class and
 * state, the counters, the wait histogram) are step functions: each job
 * adds a step at its submit, start and end time. They are evaluated at
 * every sample time by one sweep per series over that series' steps,
 * sorted by (series, time): O(steps log steps + series x samples), with no
 * matrix of series x samples in memory. */
#include "analysis/openmetrics.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/joblist.h"

/* The wait-time histogram's upper bounds, in seconds: the same as the live
 * daemon's (live/metrics.c, metrics_wait_buckets_s; tests/unit/test_openmetrics.c
 * checks that they agree). */
const double openmetrics_wait_buckets_s[] = { 1, 10, 60, 300, 900, 3600, 4 * 3600, 12 * 3600, 86400, 7 * 86400 };
#define NWAITB (int)(sizeof openmetrics_wait_buckets_s / sizeof openmetrics_wait_buckets_s[0])
const int openmetrics_nwait_buckets = NWAITB;

struct sample {
	int64_t t_us;
	double cores_alloc, cores_total, gpus_alloc, gpus_total, power_w, facility_w, outside_c;
};

struct step {
	int32_t series;
	int64_t t_us;
	double delta;
};

struct steps {
	struct step *v;
	size_t n, cap;
	int nseries;
	char (*label)[160];   /* each series' label set, already escaped: model="A100" */
	int cap_label;
};

struct om {
	sqlite3 *db;
	const char *path;
	FILE *out;
	int64_t origin_s;
	struct sample *s;
	size_t ns;
	char *err;
	size_t errlen;
};

static int fail_db(struct om *m, const char *what)
{
	snprintf(m->err, m->errlen, "%s: %s: %s", m->path, what, sqlite3_errmsg(m->db));
	return -1;
}

static int oom(struct om *m)
{
	snprintf(m->err, m->errlen, "out of memory");
	return -1;
}

static void escape(char *dst, size_t len, const char *v)
{
	size_t k = 0;
	for (; *v && k + 3 < len; v++) {
		if (*v == '\\' || *v == '"') {
			dst[k++] = '\\';
			dst[k++] = *v;
		} else if (*v == '\n') {
			dst[k++] = '\\';
			dst[k++] = 'n';
		} else {
			dst[k++] = *v;
		}
	}
	dst[k] = '\0';
}

static void family(struct om *m, const char *name, const char *type, const char *unit, const char *help)
{
	fprintf(m->out, "# TYPE %s %s\n", name, type);
	if (unit)
		fprintf(m->out, "# UNIT %s %s\n", name, unit);
	fprintf(m->out, "# HELP %s %s\n", name, help);
}

/* One point: NAME{LABELS} VALUE TIMESTAMP. */
static void point(struct om *m, const char *name, const char *labels, double v, int64_t t_us)
{
	if (!isfinite(v))
		return;
	int64_t ms = t_us / 1000;
	int64_t ts_ms = m->origin_s * 1000 + ms;
	fprintf(m->out, "%s%s%s%s %.10g %lld.%03lld\n", name, labels && *labels ? "{" : "", labels ? labels : "",
	        labels && *labels ? "}" : "", v, (long long)(ts_ms / 1000), (long long)(ts_ms % 1000));
}

/* ---- loading ------------------------------------------------------------- */

static double col_d(sqlite3_stmt *st, int k)
{
	return sqlite3_column_type(st, k) == SQLITE_NULL ? NAN : sqlite3_column_double(st, k);
}

static int load_samples(struct om *m)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	if (sqlite3_prepare_v2(m->db, "SELECT t_us, cores_alloc, cores_total, gpus_alloc, gpus_total, power_w,"
	                       " facility_w, outside_c FROM sample ORDER BY t_us", -1, &st, NULL) != SQLITE_OK)
		return fail_db(m, "not a hetlab results file with a sample table");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (m->ns == cap) {
			size_t nc = cap ? cap * 2 : 1024;
			struct sample *ns = realloc(m->s, nc * sizeof *ns);
			if (!ns) {
				sqlite3_finalize(st);
				return oom(m);
			}
			m->s = ns;
			cap = nc;
		}
		struct sample *x = &m->s[m->ns++];
		x->t_us = sqlite3_column_int64(st, 0);
		x->cores_alloc = col_d(st, 1);
		x->cores_total = col_d(st, 2);
		x->gpus_alloc = col_d(st, 3);
		x->gpus_total = col_d(st, 4);
		x->power_w = col_d(st, 5);
		x->facility_w = col_d(st, 6);
		x->outside_c = col_d(st, 7);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail_db(m, "reading the sample table");
	if (m->ns == 0) {
		snprintf(m->err, m->errlen, "%s: the run has no monitoring samples (the scenario's sample "
		         "interval was 0): nothing to export", m->path);
		return -1;
	}
	return 0;
}

static int series_of(struct steps *S, const char *labels)
{
	for (int k = 0; k < S->nseries; k++)
		if (strcmp(S->label[k], labels) == 0)
			return k;
	if (S->nseries == S->cap_label) {
		int nc = S->cap_label ? S->cap_label * 2 : 16;
		char (*nl)[160] = realloc(S->label, (size_t)nc * sizeof *nl);
		if (!nl)
			return -1;
		S->label = nl;
		S->cap_label = nc;
	}
	snprintf(S->label[S->nseries], sizeof S->label[0], "%s", labels);
	return S->nseries++;
}

static int step_add(struct steps *S, int series, int64_t t_us, double d)
{
	if (series < 0)
		return -1;
	if (S->n == S->cap) {
		size_t nc = S->cap ? S->cap * 2 : 4096;
		struct step *nv = realloc(S->v, nc * sizeof *nv);
		if (!nv)
			return -1;
		S->v = nv;
		S->cap = nc;
	}
	S->v[S->n++] = (struct step){ series, t_us, d };
	return 0;
}

static void steps_free(struct steps *S)
{
	free(S->v);
	free(S->label);
	memset(S, 0, sizeof *S);
}

static int step_cmp(const void *a, const void *b)
{
	const struct step *x = a, *y = b;
	if (x->series != y->series)
		return x->series < y->series ? -1 : 1;
	return x->t_us < y->t_us ? -1 : x->t_us > y->t_us;
}

/* Writes every series of S at every sample time (the value after the steps
 * at or before it). */
static void steps_write(struct om *m, struct steps *S, const char *name)
{
	if (S->n)
		qsort(S->v, S->n, sizeof *S->v, step_cmp);
	size_t i = 0;
	for (int k = 0; k < S->nseries; k++) {
		while (i < S->n && S->v[i].series < k)
			i++;
		double v = 0;
		for (size_t t = 0; t < m->ns; t++) {
			while (i < S->n && S->v[i].series == k && S->v[i].t_us <= m->s[t].t_us)
				v += S->v[i++].delta;
			point(m, name, S->label[k], fabs(v) < 1e-9 ? 0 : v, m->s[t].t_us);
		}
	}
}

/* The values of every series of S at every sample time, series-major
 * (malloc'd; NULL on ENOMEM). */
static double *steps_matrix(struct om *m, struct steps *S)
{
	double *v = calloc((size_t)(S->nseries ? S->nseries : 1) * m->ns, sizeof *v);
	if (!v)
		return NULL;
	if (S->n)
		qsort(S->v, S->n, sizeof *S->v, step_cmp);
	size_t i = 0;
	for (int k = 0; k < S->nseries; k++) {
		double x = 0;
		for (size_t t = 0; t < m->ns; t++) {
			while (i < S->n && S->v[i].series == k && S->v[i].t_us <= m->s[t].t_us)
				x += S->v[i++].delta;
			v[(size_t)k * m->ns + t] = x;
		}
	}
	return v;
}

/* The histogram, one whole point (buckets, count, sum) per timestamp. */
static int hist_write(struct om *m, const char *name, struct steps *b, struct steps *c, struct steps *s)
{
	double *vb = steps_matrix(m, b), *vc = steps_matrix(m, c), *vs = steps_matrix(m, s);
	char nb[128], nc[128], nsum[128];
	if (!vb || !vc || !vs) {
		free(vb);
		free(vc);
		free(vs);
		return oom(m);
	}
	snprintf(nb, sizeof nb, "%s_bucket", name);
	snprintf(nc, sizeof nc, "%s_count", name);
	snprintf(nsum, sizeof nsum, "%s_sum", name);
	for (size_t t = 0; t < m->ns; t++) {
		for (int k = 0; k < b->nseries; k++)
			point(m, nb, b->label[k], vb[(size_t)k * m->ns + t], m->s[t].t_us);
		point(m, nc, NULL, vc[t], m->s[t].t_us);
		point(m, nsum, NULL, vs[t], m->s[t].t_us);
	}
	free(vb);
	free(vc);
	free(vs);
	return 0;
}

/* ---- the job-derived families -------------------------------------------- */

struct jobrow {
	char cls[24], state[24], model[64];
	int64_t tenant, submit, start, end, gpus, cores;
	int64_t id, requeues;   /* preemptions + restarts: it ran more than once */
};

/* A job's runs: [start[k], stop[k]), stop INT64_MAX while it runs. */
#define RUNS_MAX 64
struct runs {
	int n;
	int64_t start[RUNS_MAX], stop[RUNS_MAX];
};

/* The event log's starts, requeues and ends of the requeued jobs (preempted,
 * or moved by a fault), in job order: read once, beside the job table. */
struct evcur {
	sqlite3_stmt *st;
	bool row;   /* st holds a row not yet taken */
};

/* The runs of requeued job j from the log: each start until its requeue or
 * the end (the job row holds only the last start). 0, or 1 when the log
 * does not have them (a results file recorded without events; more runs
 * than RUNS_MAX): the caller keeps the job row's one run. */
static int job_runs(struct evcur *c, const struct jobrow *j, struct runs *r)
{
	r->n = 0;
	bool over = false;
	for (;;) {
		if (!c->row) {
			if (!c->st || sqlite3_step(c->st) != SQLITE_ROW) {
				sqlite3_finalize(c->st);
				c->st = NULL;
				break;
			}
			c->row = true;
		}
		int64_t job = sqlite3_column_int64(c->st, 0);
		if (job > j->id)
			break;
		c->row = false;
		if (job < j->id)
			continue;
		int64_t t = sqlite3_column_int64(c->st, 1);
		const char *k = (const char *)sqlite3_column_text(c->st, 2);
		if (k && strcmp(k, "start") == 0) {
			if (r->n == RUNS_MAX) {
				over = true;
				continue;
			}
			r->start[r->n] = t;
			r->stop[r->n++] = INT64_MAX;
		} else if (r->n > 0 && r->stop[r->n - 1] == INT64_MAX) {
			r->stop[r->n - 1] = t;   /* requeue or end */
		}
	}
	return over || r->n == 0;
}

static bool read_job(sqlite3_stmt *st, struct jobrow *j)
{
	const unsigned char *t;
	t = sqlite3_column_text(st, 0);
	snprintf(j->cls, sizeof j->cls, "%s", t ? (const char *)t : "");
	t = sqlite3_column_text(st, 1);
	snprintf(j->state, sizeof j->state, "%s", t ? (const char *)t : "");
	t = sqlite3_column_text(st, 2);
	snprintf(j->model, sizeof j->model, "%s", t ? (const char *)t : "");
	j->tenant = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 3);
	j->submit = sqlite3_column_int64(st, 4);
	j->start = sqlite3_column_type(st, 5) == SQLITE_NULL ? INT64_MAX : sqlite3_column_int64(st, 5);
	j->end = sqlite3_column_type(st, 6) == SQLITE_NULL ? INT64_MAX : sqlite3_column_int64(st, 6);
	j->gpus = sqlite3_column_int64(st, 7);
	j->cores = sqlite3_column_int64(st, 8);
	j->id = sqlite3_column_int64(st, 9);
	j->requeues = sqlite3_column_int64(st, 10);
	return sqlite3_column_type(st, 4) != SQLITE_NULL;
}

enum { ST_ALLOC_MODEL, ST_JOBS, ST_TEN_GPU, ST_TEN_CORE, ST_SUBMITS, ST_ENDS, ST_WAIT_B, ST_WAIT_C,
       ST_WAIT_S, ST_N };

static int job_steps(struct om *m, struct steps *S)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(m->db, "SELECT class, state, gpu_model, tenant, submit_us, start_us, end_us, gpus,"
	                       " cores, id, coalesce(preemptions, 0) + coalesce(restarts, 0) FROM job ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return fail_db(m, "not a hetlab results file with a job table");
	/* A requeued job's starts, requeues and end (none without an event table). */
	struct evcur ev = { 0 };
	if (sqlite3_prepare_v2(m->db, "SELECT job, t_us, kind FROM event WHERE kind IN ('start', 'requeue', "
	                       "'end') AND job IN (SELECT id FROM job WHERE coalesce(preemptions, 0) + "
	                       "coalesce(restarts, 0) > 0) ORDER BY job, seq", -1, &ev.st, NULL) != SQLITE_OK)
		ev.st = NULL;   /* no event table: every job keeps its row's run */
	struct runs r;
	int rc, bad = 0;
	int sub = series_of(&S[ST_SUBMITS], ""), cnt = series_of(&S[ST_WAIT_C], ""),
	    sum = series_of(&S[ST_WAIT_S], "");
	int wb[NWAITB + 1];
	for (int b = 0; b <= NWAITB; b++) {
		char lab[64];
		if (b < NWAITB)
			snprintf(lab, sizeof lab, "le=\"%.1f\"", openmetrics_wait_buckets_s[b]);
		else
			snprintf(lab, sizeof lab, "le=\"+Inf\"");
		wb[b] = series_of(&S[ST_WAIT_B], lab);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct jobrow j;
		char lab[160], a[64], b[64];
		if (!read_job(st, &j))
			continue;
		bool ran = j.start != INT64_MAX;
		/* Its runs: the job row's one, or, for a job requeued, each from
		 * the event log (pending again between a requeue and its next
		 * start). */
		r.n = 0;
		if (ran) {
			if (j.requeues == 0 || job_runs(&ev, &j, &r)) {
				r.n = 1;
				r.start[0] = j.start;
				r.stop[0] = j.end;
			}
		}
		escape(a, sizeof a, j.cls);
		snprintf(lab, sizeof lab, "class=\"%s\",state=\"pending\"", a);
		int ps = series_of(&S[ST_JOBS], lab);
		bad |= step_add(&S[ST_JOBS], ps, j.submit, 1);
		if (!ran && j.end != INT64_MAX)
			bad |= step_add(&S[ST_JOBS], ps, j.end, -1);   /* ended unstarted */
		for (int k = 0; k < r.n; k++) {
			bad |= step_add(&S[ST_JOBS], ps, r.start[k], -1);
			if (k + 1 < r.n && r.stop[k] != INT64_MAX)
				bad |= step_add(&S[ST_JOBS], ps, r.stop[k], 1);   /* requeued */
		}
		bad |= step_add(&S[ST_SUBMITS], sub, j.submit, 1);
		if (j.end != INT64_MAX) {
			escape(b, sizeof b, j.state);
			snprintf(lab, sizeof lab, "state=\"%s\"", b);
			bad |= step_add(&S[ST_ENDS], series_of(&S[ST_ENDS], lab), j.end, 1);
		}
		if (!ran)
			continue;
		snprintf(lab, sizeof lab, "class=\"%s\",state=\"running\"", a);
		int rs = series_of(&S[ST_JOBS], lab);
		for (int k = 0; k < r.n; k++) {
			bad |= step_add(&S[ST_JOBS], rs, r.start[k], 1);
			if (r.stop[k] != INT64_MAX)
				bad |= step_add(&S[ST_JOBS], rs, r.stop[k], -1);
		}
		double wait_s = (double)(j.start - j.submit) / 1e6;
		for (int k = 0; k <= NWAITB; k++)
			if (k == NWAITB || wait_s <= openmetrics_wait_buckets_s[k])
				bad |= step_add(&S[ST_WAIT_B], wb[k], j.start, 1);
		bad |= step_add(&S[ST_WAIT_C], cnt, j.start, 1);
		bad |= step_add(&S[ST_WAIT_S], sum, j.start, wait_s);
		struct { int f; int64_t v; const char *fmt; } alloc[3] = {
			{ ST_ALLOC_MODEL, j.gpus, "model" }, { ST_TEN_GPU, j.gpus, "tenant" }, { ST_TEN_CORE, j.cores, "tenant" },
		};
		for (int k = 0; k < 3; k++) {
			if (alloc[k].v <= 0 || (k == 0 && !j.model[0]))
				continue;
			if (k == 0) {
				escape(b, sizeof b, j.model);
				snprintf(lab, sizeof lab, "model=\"%s\"", b);
			} else {
				snprintf(lab, sizeof lab, "tenant=\"%lld\"", (long long)j.tenant);
			}
			int se = series_of(&S[alloc[k].f], lab);
			for (int q = 0; q < r.n; q++) {
				bad |= step_add(&S[alloc[k].f], se, r.start[q], (double)alloc[k].v);
				if (r.stop[q] != INT64_MAX)
					bad |= step_add(&S[alloc[k].f], se, r.stop[q], -(double)alloc[k].v);
			}
		}
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ev.st);
	if (rc != SQLITE_DONE)
		return fail_db(m, "reading the job table");
	return bad ? oom(m) : 0;
}

/* Counters from the event log (every start and preemption, restarts too). */
static int event_steps(struct om *m, const char *kind, struct steps *S)
{
	sqlite3_stmt *st = NULL;
	int se = series_of(S, "");
	if (se < 0)
		return oom(m);
	if (sqlite3_prepare_v2(m->db, "SELECT t_us FROM event WHERE kind = ?", -1, &st, NULL) != SQLITE_OK)
		return 0;   /* no event table: the counter stays 0 */
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	int rc, bad = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		bad |= step_add(S, se, sqlite3_column_int64(st, 0), 1);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail_db(m, "reading the event table");
	return bad ? oom(m) : 0;
}

/* ---- the families -------------------------------------------------------- */

static void sample_family(struct om *m, const char *name, const char *help, int which)
{
	family(m, name, "gauge", NULL, help);
	for (size_t t = 0; t < m->ns; t++) {
		const struct sample *x = &m->s[t];
		double v = which == 0 ? x->cores_total : which == 1 ? x->cores_alloc :
		           which == 2 ? (x->cores_total > 0 ? x->cores_alloc / x->cores_total : 0) :
		           which == 3 ? (x->gpus_total > 0 ? x->gpus_alloc / x->gpus_total : 0) :
		           which == 4 ? x->power_w : which == 5 ? x->facility_w : which == 6 ? x->outside_c :
		           which == 7 ? 1 : (double)x->t_us / 1e6;
		point(m, name, NULL, v, x->t_us);
	}
}

static int gpus_total(struct om *m)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(m->db, "SELECT gpu_model, sum(gpus) FROM node WHERE gpus > 0 AND gpu_model IS NOT NULL"
	                       " GROUP BY gpu_model ORDER BY gpu_model", -1, &st, NULL) != SQLITE_OK)
		return fail_db(m, "reading the node table");
	family(m, "hetlab_gpus_total", "gauge", NULL, "GPUs in the cluster, by GPU model.");
	while (sqlite3_step(st) == SQLITE_ROW) {
		char lab[160], v[96];
		escape(v, sizeof v, (const char *)sqlite3_column_text(st, 0));
		snprintf(lab, sizeof lab, "model=\"%s\"", v);
		for (size_t t = 0; t < m->ns; t++)
			point(m, "hetlab_gpus_total", lab, sqlite3_column_double(st, 1), m->s[t].t_us);
	}
	sqlite3_finalize(st);
	return 0;
}

static int rack_families(struct om *m)
{
	static const struct { const char *name, *col, *help; } fam[] = {
		{ "hetlab_rack_power_watts", "power_w", "Rack IT power (the power model's)." },
		{ "hetlab_rack_power_cap_watts", "cap_w", "Rack power cap (racks without a cap have no series)." },
		{ "hetlab_rack_warning", "warn", "1 while the rack is above its cap's warning fraction." },
		{ "hetlab_rack_temperature_max_celsius", "temp_max", "Hottest node of the rack." },
	};
	for (size_t f = 0; f < sizeof fam / sizeof fam[0]; f++) {
		sqlite3_stmt *st = NULL;
		char sql[256];
		snprintf(sql, sizeof sql, "SELECT r.name, s.t_us, s.%s FROM rack_sample s JOIN rack r ON r.id = s.rack"
		         " ORDER BY s.rack, s.t_us", fam[f].col);
		family(m, fam[f].name, "gauge", NULL, fam[f].help);
		if (sqlite3_prepare_v2(m->db, sql, -1, &st, NULL) != SQLITE_OK)
			continue;   /* a file without racks: the family is empty */
		int rc;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			char lab[160], v[96];
			const unsigned char *name = sqlite3_column_text(st, 0);
			escape(v, sizeof v, name ? (const char *)name : "");
			snprintf(lab, sizeof lab, "rack=\"%s\"", v);
			if (sqlite3_column_type(st, 2) != SQLITE_NULL)
				point(m, fam[f].name, lab, sqlite3_column_double(st, 2), sqlite3_column_int64(st, 1));
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return fail_db(m, "reading the rack_sample table");
	}
	return 0;
}

static int64_t run_created(struct om *m)
{
	sqlite3_stmt *st = NULL;
	int64_t t = 0;
	if (sqlite3_prepare_v2(m->db, "SELECT created FROM run LIMIT 1", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		if (joblist_parse_time((const char *)sqlite3_column_text(st, 0), 0, &t) != 0)
			t = 0;
	sqlite3_finalize(st);
	return t;
}

int openmetrics_write(const char *path, int64_t origin_s, FILE *out, char *err, size_t errlen)
{
	struct om m = { .path = path, .out = out, .err = err, .errlen = errlen };
	struct steps S[ST_N], starts = { 0 }, preempts = { 0 };
	memset(S, 0, sizeof S);
	int rc = -1;
	if (sqlite3_open_v2(path, &m.db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open: %s", path, m.db ? sqlite3_errmsg(m.db) : "out of memory");
		goto out;
	}
	m.origin_s = origin_s >= 0 ? origin_s : run_created(&m);
	if (load_samples(&m) || job_steps(&m, S) || event_steps(&m, "start", &starts) ||
	    event_steps(&m, "preempt", &preempts))
		goto out;
	sample_family(&m, "hetlab_up", "1 over the simulated run (the live daemon's: while it serves).", 7);
	family(&m, "hetlab_start_time_seconds", "gauge", NULL, "When the run started (the origin), unix seconds.");
	for (size_t t = 0; t < m.ns; t++)
		point(&m, "hetlab_start_time_seconds", NULL, (double)m.origin_s, m.s[t].t_us);
	sample_family(&m, "hetlab_engine_time_seconds", "The engine's clock, seconds since its start.", 8);
	if (gpus_total(&m))
		goto out;
	family(&m, "hetlab_gpus_allocated", "gauge", NULL, "GPUs allocated to running jobs, by GPU model.");
	steps_write(&m, &S[ST_ALLOC_MODEL], "hetlab_gpus_allocated");
	sample_family(&m, "hetlab_gpus_allocated_ratio", "Allocated GPUs over total GPUs (0 without GPUs).", 3);
	sample_family(&m, "hetlab_cores_total", "CPU cores in service.", 0);
	sample_family(&m, "hetlab_cores_allocated", "CPU cores allocated to jobs.", 1);
	sample_family(&m, "hetlab_cores_allocated_ratio", "Allocated cores over total cores (0 without cores).", 2);
	family(&m, "hetlab_jobs", "gauge", NULL, "Submitted jobs not yet ended, by class and state.");
	steps_write(&m, &S[ST_JOBS], "hetlab_jobs");
	if (rack_families(&m))
		goto out;
	family(&m, "hetlab_job_submits", "counter", NULL, "Jobs submitted.");
	steps_write(&m, &S[ST_SUBMITS], "hetlab_job_submits_total");
	family(&m, "hetlab_job_starts", "counter", NULL, "Job starts (a requeued job counts each start).");
	steps_write(&m, &starts, "hetlab_job_starts_total");
	family(&m, "hetlab_job_ends", "counter", NULL, "Jobs ended, by final state.");
	steps_write(&m, &S[ST_ENDS], "hetlab_job_ends_total");
	family(&m, "hetlab_preemptions", "counter", NULL, "Preemptions decided.");
	steps_write(&m, &preempts, "hetlab_preemptions_total");
	family(&m, "hetlab_job_wait_seconds", "histogram", "seconds", "Time from submit to (last) start of the jobs started.");
	if (hist_write(&m, "hetlab_job_wait_seconds", &S[ST_WAIT_B], &S[ST_WAIT_C], &S[ST_WAIT_S]))
		goto out;
	family(&m, "hetlab_tenant_gpus_allocated", "gauge", NULL, "GPUs allocated to the tenant's running jobs.");
	steps_write(&m, &S[ST_TEN_GPU], "hetlab_tenant_gpus_allocated");
	family(&m, "hetlab_tenant_cores_allocated", "gauge", NULL, "Cores allocated to the tenant's running jobs.");
	steps_write(&m, &S[ST_TEN_CORE], "hetlab_tenant_cores_allocated");
	sample_family(&m, "hetlab_sim_power_watts", "The cluster's IT power (simulated runs only).", 4);
	sample_family(&m, "hetlab_sim_facility_power_watts", "Facility power: IT power x PUE (simulated runs only).", 5);
	sample_family(&m, "hetlab_sim_outside_temperature_celsius", "The site's outside temperature (simulated runs only).", 6);
	fputs("# EOF\n", out);
	rc = ferror(out) ? -1 : 0;
	if (rc)
		snprintf(err, errlen, "write error");
out:
	for (int k = 0; k < ST_N; k++)
		steps_free(&S[k]);
	steps_free(&starts);
	steps_free(&preempts);
	free(m.s);
	sqlite3_close(m.db);
	return rc;
}
