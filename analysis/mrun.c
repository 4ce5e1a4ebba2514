/* mrun — reading a run database for the metric registry (see mrun.h). */
#include "analysis/mrun.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sqlite3.h>

#include "analysis/dbutil.h"
#include "analysis/metric_window.h"
#include "analysis/recorder.h"
#include "sim/job.h"

#define BSLD_TAU_S 10.0

static int failf(struct mrun *r, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int failf(struct mrun *r, char *err, size_t errlen, const char *fmt, ...)
{
	int n = snprintf(err, errlen, "%s: ", r->path);
	if (n >= 0 && (size_t)n < errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int fail_db(struct mrun *r, char *err, size_t errlen, const char *what)
{
	return failf(r, err, errlen, "%s: %s", what, sqlite3_errmsg(r->db));
}

static char *col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? strdup((const char *)t) : NULL;
}

static double col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int64_t col_int(sqlite3_stmt *st, int i, int64_t dflt)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? dflt : sqlite3_column_int64(st, i);
}

double mrun_overlap_s(int64_t a, int64_t b, int64_t t0, int64_t t1)
{
	int64_t lo = a > t0 ? a : t0, hi = b < t1 ? b : t1;
	return hi > lo ? (double)(hi - lo) / 1e6 : 0;
}

/* Index of s in the list, added when new; -1 on ENOMEM. */
static int names_add(struct mrun_names *nm, const char *s)
{
	for (int i = 0; i < nm->n; i++)
		if (strcmp(nm->v[i], s) == 0)
			return i;
	char **p = realloc(nm->v, (size_t)(nm->n + 1) * sizeof *p);
	if (!p)
		return -1;
	nm->v = p;
	if (!(p[nm->n] = strdup(s)))
		return -1;
	return nm->n++;
}

static void names_free(struct mrun_names *nm)
{
	for (int i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
	memset(nm, 0, sizeof *nm);
}

/* "PREFIXcol, ..." or NULL for each column the table lacks. */
static void select_cols(sqlite3 *db, const char *table, const char *const *cols, char *out,
                        size_t len)
{
	size_t off = 0;
	out[0] = '\0';
	for (int k = 0; cols[k] && off < len; k++)
		off += (size_t)snprintf(out + off, len - off, "%s%s", k ? ", " : "",
		                        report_has_column(db, table, cols[k]) ? cols[k] : "NULL");
}

/* ---- the parts of the file ------------------------------------------------------ */

static int load_head(struct mrun *r, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(r->db, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &st,
	                       NULL) != SQLITE_OK)
		return failf(r, err, errlen, "not a hetlab results file (%s)", sqlite3_errmsg(r->db));
	int rc = sqlite3_step(st);
	int64_t v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (v < 1)
		return failf(r, err, errlen, "no schema_version in table meta");
	if (v > RECORDER_SCHEMA_VERSION)
		return failf(r, err, errlen, "schema version %" PRId64 " is newer than this hetlab reads "
		             "(%d); use a newer hetlab", v, RECORDER_SCHEMA_VERSION);
	/* The run's window and names (meta, written by hetlab run). */
	if (sqlite3_prepare_v2(r->db, "SELECT key, value FROM meta WHERE key IN ('measure', 'labels')",
	                       -1, &st, NULL) != SQLITE_OK)
		return fail_db(r, err, errlen, "reading table meta");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		const char *val = (const char *)sqlite3_column_text(st, 1);
		char why[256];
		if (!k || !val)
			continue;
		if (strcmp(k, "measure") == 0) {
			if (metric_window_from_json_text(val, &r->recorded, why, sizeof why) < 0)
				memset(&r->recorded, 0, sizeof r->recorded);
			continue;
		}
		json_t *o = json_loads(val, 0, NULL);
		json_t *ta = json_object_get(o, "tenants"), *sa = json_object_get(o, "services"), *e;
		size_t i;
		json_array_foreach(ta, i, e)
			if (json_is_string(e) && names_add(&r->tenant_names, json_string_value(e)) < 0)
				break;
		json_array_foreach(sa, i, e)
			if (json_is_string(e) && names_add(&r->service_names, json_string_value(e)) < 0)
				break;
		json_decref(o);
	}
	sqlite3_finalize(st);
	st = NULL;
	/* Tenant names from the billing configuration when meta has none. */
	if (r->tenant_names.n == 0 &&
	    sqlite3_prepare_v2(r->db, "SELECT config FROM billing LIMIT 1", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
			json_t *o = json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL), *e;
			size_t i;
			json_array_foreach(json_object_get(o, "tenants"), i, e) {
				const char *n = json_string_value(json_object_get(e, "name"));
				if (n && names_add(&r->tenant_names, n) < 0)
					break;
			}
			json_decref(o);
		}
	}
	sqlite3_finalize(st);
	st = NULL;
	/* Else the trace's user names (a Slurm dump's: table name), the job
	 * rows' tenant indexing them from 0. */
	if (r->tenant_names.n == 0 &&
	    sqlite3_prepare_v2(r->db, "SELECT idx, name FROM name WHERE kind = 'user' ORDER BY idx", -1, &st,
	                       NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *n = (const char *)sqlite3_column_text(st, 1);
			if (!n || sqlite3_column_int64(st, 0) != r->tenant_names.n || names_add(&r->tenant_names, n) < 0)
				break;
		}
	}
	sqlite3_finalize(st);
	st = NULL;

	r->it_kwh = r->facility_kwh = r->cost = r->carbon_kg = NAN;
	static const char *const cols[] = { "it_energy_kwh", "facility_energy_kwh", "energy_cost",
		                            "carbon_kg", "total_cores", "total_gpus", NULL };
	char list[256], sql[320];
	select_cols(r->db, "run", cols, list, sizeof list);
	snprintf(sql, sizeof sql, "SELECT %s FROM run", list);
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return fail_db(r, err, errlen, "reading table run");
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return failf(r, err, errlen, "table run is empty");
	}
	r->it_kwh = col_real(st, 0);
	r->facility_kwh = col_real(st, 1);
	r->cost = col_real(st, 2);
	r->carbon_kg = col_real(st, 3);
	r->total_cores = col_int(st, 4, 0);
	r->total_gpus = col_int(st, 5, 0);
	r->power_on = !isnan(r->it_kwh);
	sqlite3_finalize(st);
	return 0;
}

struct name_idx {
	const char *name;
	int idx;
};

static int cmp_name_idx(const void *a, const void *b)
{
	return strcmp(((const struct name_idx *)a)->name, ((const struct name_idx *)b)->name);
}

static int add_span(struct mrun_span **v, int *n, int64_t a, int64_t b)
{
	struct mrun_span *p = realloc(*v, (size_t)(*n + 1) * sizeof *p);
	if (!p)
		return -1;
	*v = p;
	p[*n].a_us = a;
	p[(*n)++].b_us = b;
	return 0;
}

static int load_nodes(struct mrun *r, int64_t **ids, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(r->db, "SELECT id, name, rack, type, cores, gpus, gpu_model FROM node"
	                       " ORDER BY id", -1, &st, NULL) != SQLITE_OK)
		return 0;     /* an older file without the node table: no per-node metrics */
	int cap = 0, rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (r->nnodes == cap) {
			cap = cap ? 2 * cap : 64;
			struct mrun_node *p = realloc(r->nodes, (size_t)cap * sizeof *p);
			int64_t *q = realloc(*ids, (size_t)cap * sizeof *q);
			if (p)
				r->nodes = p;
			if (q)
				*ids = q;
			if (!p || !q)
				goto nomem;
		}
		struct mrun_node *nd = &r->nodes[r->nnodes];
		memset(nd, 0, sizeof *nd);
		(*ids)[r->nnodes] = sqlite3_column_int64(st, 0);
		r->nnodes++;
		nd->name = col_dup(st, 1);
		nd->rack = col_dup(st, 2);
		nd->type = col_dup(st, 3);
		nd->cores = col_int(st, 4, 0);
		nd->gpus = col_int(st, 5, 0);
		nd->gpu_model = col_dup(st, 6);
		if (!nd->name || !nd->rack || !nd->type)
			goto nomem;
		nd->rack_idx = names_add(&r->racks_n, nd->rack);
		nd->type_idx = names_add(&r->types, nd->type);
		nd->model_idx = nd->gpu_model && nd->gpus > 0 ? names_add(&r->models, nd->gpu_model) : -1;
		if (nd->rack_idx < 0 || nd->type_idx < 0 || (nd->gpu_model && nd->gpus > 0 && nd->model_idx < 0))
			goto nomem;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return fail_db(r, err, errlen, "reading table node");
	return 0;
nomem:
	sqlite3_finalize(st);
	return failf(r, err, errlen, "out of memory");
}

static int node_of_id(const int64_t *ids, int n, int64_t id)
{
	int lo = 0, hi = n - 1;
	while (lo <= hi) {
		int m = (lo + hi) / 2;
		if (ids[m] == id)
			return m;
		if (ids[m] < id)
			lo = m + 1;
		else
			hi = m - 1;
	}
	return -1;
}

/* When each node was present: from the start, or from its first join when
 * its first join or leave is a join; until a leave. */
static int load_presence(struct mrun *r, const int64_t *ids, char *err, size_t errlen)
{
	int64_t *since = malloc((size_t)(r->nnodes ? r->nnodes : 1) * sizeof *since);
	bool *seen = calloc((size_t)(r->nnodes ? r->nnodes : 1), sizeof *seen);
	sqlite3_stmt *st = NULL;
	int ret = -1;
	if (!since || !seen)
		goto nomem;
	for (int i = 0; i < r->nnodes; i++)
		since[i] = INT64_MIN;   /* present since the start */
	if (sqlite3_prepare_v2(r->db, "SELECT node, t_us, kind FROM event WHERE kind IN ('join',"
	                       " 'leave') AND node IS NOT NULL ORDER BY t_us, seq", -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			int i = node_of_id(ids, r->nnodes, sqlite3_column_int64(st, 0));
			int64_t t = sqlite3_column_int64(st, 1);
			bool join = strcmp((const char *)sqlite3_column_text(st, 2), "join") == 0;
			if (i < 0)
				continue;
			if (!seen[i] && join)
				since[i] = -1;          /* absent until this join */
			seen[i] = true;
			if (join && since[i] == -1)
				since[i] = t;
			else if (!join && since[i] != -1) {
				if (add_span(&r->nodes[i].present, &r->nodes[i].npresent,
				             since[i] == INT64_MIN ? 0 : since[i], t) < 0)
					goto nomem;
				since[i] = -1;
			}
		}
	}
	for (int i = 0; i < r->nnodes; i++)
		if (since[i] != -1 &&
		    add_span(&r->nodes[i].present, &r->nodes[i].npresent,
		             since[i] == INT64_MIN ? INT64_MIN / 2 : since[i], INT64_MAX / 2) < 0)
			goto nomem;
	ret = 0;
	goto out;
nomem:
	failf(r, err, errlen, "out of memory");
out:
	sqlite3_finalize(st);
	free(since);
	free(seen);
	return ret;
}

static int push_node(const char *name, const struct name_idx *ix, int nix, int **out, int *nout)
{
	struct name_idx key = { .name = name };
	const struct name_idx *f = bsearch(&key, ix, (size_t)nix, sizeof *ix, cmp_name_idx);
	if (!f)
		return 0;
	int *v = realloc(*out, (size_t)(*nout + 1) * sizeof *v);
	if (!v)
		return -1;
	*out = v;
	v[(*nout)++] = f->idx;
	return 0;
}

/* Expands a Slurm-style host list ("a-n[1-3,5],b-n2") into node indices. */
static int expand_hostlist(const char *list, const struct name_idx *ix, int nix, int **out, int *nout)
{
	char name[256];
	for (const char *p = list; p && *p;) {
		const char *br, *q = p;
		while (*q && *q != ',' && *q != '[')
			q++;
		size_t plen = (size_t)(q - p);
		if (plen >= 200)
			return 0;
		if (*q == '[') {
			br = q + 1;
			const char *close = strchr(br, ']');
			if (!close)
				return 0;
			for (const char *s = br; s < close;) {
				char *e;
				long lo = strtol(s, &e, 10), hi = lo;
				if (e == s)
					break;
				int width = s[0] == '0' ? (int)(e - s) : 0;
				if (*e == '-') {
					const char *s2 = e + 1;
					hi = strtol(s2, &e, 10);
					if (e == s2)
						break;
				}
				for (long k = lo; k <= hi && hi - lo < 100000; k++) {
					snprintf(name, sizeof name, "%.*s%0*ld", (int)plen, p, width, k);
					if (push_node(name, ix, nix, out, nout) < 0)
						return -1;
				}
				s = *e == ',' ? e + 1 : close;
			}
			q = close + 1;
		} else {
			snprintf(name, sizeof name, "%.*s", (int)plen, p);
			if (push_node(name, ix, nix, out, nout) < 0)
				return -1;
		}
		p = *q == ',' ? q + 1 : q;
	}
	return 0;
}

static int load_jobs(struct mrun *r, char *err, size_t errlen)
{
	static const char *const cols[] = { "id", "class", "tenant", "grp", "state", "reason",
		"submit_us", "start_us", "end_us", "cores", "node_list", "preemptions", "lost_gpu_s",
		"held_s", "hold_why", NULL };
	char list[512], sql[1400];
	select_cols(r->db, "job", cols, list, sizeof list);
	bool share = report_has_column(r->db, "job", "gpu_share");
	snprintf(sql, sizeof sql, "SELECT %s, %s FROM job ORDER BY id", list, share
	         ? "CASE WHEN gpu_share LIKE '%m' THEN gpus * CAST(rtrim(gpu_share, 'm') AS REAL) / 1000"
	           " WHEN gpu_share LIKE '%g.%' THEN gpus * CAST(substr(gpu_share, 1, instr(gpu_share, 'g') - 1) AS REAL) / 7"
	           " ELSE gpus END" : "gpus");
	struct name_idx *ix = malloc((size_t)(r->nnodes ? r->nnodes : 1) * sizeof *ix);
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc, ret = -1;
	if (!ix)
		goto nomem;
	for (int i = 0; i < r->nnodes; i++)
		ix[i] = (struct name_idx){ r->nodes[i].name, i };
	qsort(ix, (size_t)r->nnodes, sizeof *ix, cmp_name_idx);
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK) {
		fail_db(r, err, errlen, "reading table job");
		goto out;
	}
	r->first_submit_us = INT64_MAX;
	r->last_submit_us = r->last_end_us = -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (r->njobs == cap) {
			cap = cap ? 2 * cap : 1024;
			struct mrun_job *p = realloc(r->jobs, cap * sizeof *p);
			if (!p)
				goto nomem;
			r->jobs = p;
		}
		struct mrun_job *j = &r->jobs[r->njobs];
		memset(j, 0, sizeof *j);
		r->njobs++;
		j->id = col_int(st, 0, (int64_t)r->njobs - 1);
		const char *cls = (const char *)sqlite3_column_text(st, 1);
		int c = cls ? job_class_parse(cls) : -1;
		j->cls = c < 0 ? JOB_NCLASS : c;
		j->tenant = col_int(st, 2, -1);
		j->grp = col_int(st, 3, -1);
		const char *state = (const char *)sqlite3_column_text(st, 4);
		j->state = !state ? '?' : strcmp(state, "done") == 0 ? 'd' : strcmp(state, "failed") == 0
		           ? 'f' : strcmp(state, "killed") == 0 ? 'k' : '?';
		if (sqlite3_column_type(st, 5) != SQLITE_NULL && !(j->reason = col_dup(st, 5)))
			goto nomem;
		j->submit_us = col_int(st, 6, 0);
		j->start_us = col_int(st, 7, -1);
		j->end_us = col_int(st, 8, -1);
		j->cores = col_int(st, 9, 0);
		const char *nl = (const char *)sqlite3_column_text(st, 10);
		if (nl && expand_hostlist(nl, ix, r->nnodes, &j->node, &j->nnode) < 0)
			goto nomem;
		j->preemptions = (double)col_int(st, 11, 0);
		j->lost_gpu_s = sqlite3_column_type(st, 12) == SQLITE_NULL ? 0 : sqlite3_column_double(st, 12);
		const char *why = (const char *)sqlite3_column_text(st, 14);
		if (why && strcmp(why, "quota") == 0 && sqlite3_column_type(st, 13) != SQLITE_NULL)
			j->quota_held_s = sqlite3_column_double(st, 13);
		j->gpus = sqlite3_column_double(st, 15);
		if (j->submit_us < r->first_submit_us)
			r->first_submit_us = j->submit_us;
		if (j->submit_us > r->last_submit_us)
			r->last_submit_us = j->submit_us;
		if (j->end_us > r->last_end_us)
			r->last_end_us = j->end_us;
		int64_t t = j->end_us > j->start_us ? j->end_us : j->start_us;
		if (t < j->submit_us)
			t = j->submit_us;
		if (t > r->last_us)
			r->last_us = t;
	}
	if (rc != SQLITE_DONE) {
		fail_db(r, err, errlen, "reading table job");
		goto out;
	}
	if (r->njobs == 0)
		r->first_submit_us = 0;
	ret = 0;
	goto out;
nomem:
	failf(r, err, errlen, "out of memory");
out:
	sqlite3_finalize(st);
	free(ix);
	return ret;
}

static struct mrun_job *job_of_id(struct mrun *r, int64_t id)
{
	size_t lo = 0, hi = r->njobs;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (r->jobs[m].id == id)
			return &r->jobs[m];
		if (r->jobs[m].id < id)
			lo = m + 1;
		else
			hi = m;
	}
	return NULL;
}

/* Every run of each job: a start event to the next requeue or end. Files
 * without start events (or jobs without any) take the row's last run. */
static int load_runs(struct mrun *r, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int64_t *open = calloc(r->njobs ? r->njobs : 1, sizeof *open);
	if (!open)
		return failf(r, err, errlen, "out of memory");
	for (size_t i = 0; i < r->njobs; i++)
		open[i] = -1;
	if (sqlite3_prepare_v2(r->db, "SELECT job, t_us, kind FROM event WHERE kind IN ('start',"
	                       " 'requeue', 'end') AND job IS NOT NULL ORDER BY seq", -1, &st, NULL) == SQLITE_OK) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			struct mrun_job *j = job_of_id(r, sqlite3_column_int64(st, 0));
			if (!j)
				continue;
			size_t k = (size_t)(j - r->jobs);
			int64_t t = sqlite3_column_int64(st, 1);
			if (strcmp((const char *)sqlite3_column_text(st, 2), "start") == 0) {
				open[k] = t;
			} else if (open[k] >= 0) {
				if (add_span(&j->runs, &j->nruns, open[k], t) < 0)
					goto nomem;
				open[k] = -1;
			}
		}
	}
	sqlite3_finalize(st);
	for (size_t k = 0; k < r->njobs; k++) {
		struct mrun_job *j = &r->jobs[k];
		if (j->nruns == 0 && j->start_us >= 0 && j->end_us > j->start_us &&
		    add_span(&j->runs, &j->nruns, j->start_us, j->end_us) < 0)
			goto nomem;
		if (open[k] >= 0 && add_span(&j->runs, &j->nruns, open[k], r->last_us) < 0)
			goto nomem;
	}
	free(open);
	return 0;
nomem:
	free(open);
	return failf(r, err, errlen, "out of memory");
}

static int load_samples(struct mrun *r, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	bool fac = report_has_column(r->db, "sample", "facility_w");
	if (sqlite3_prepare_v2(r->db, fac ? "SELECT t_us, power_w, facility_w FROM sample ORDER BY t_us"
	                                  : "SELECT t_us, power_w, NULL FROM sample ORDER BY t_us",
	                       -1, &st, NULL) != SQLITE_OK)
		return 0;
	size_t cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (r->nsamples == cap) {
			cap = cap ? 2 * cap : 1024;
			int64_t *t = realloc(r->s_t, cap * sizeof *t);
			if (t)
				r->s_t = t;
			double *p = realloc(r->s_power, cap * sizeof *p);
			if (p)
				r->s_power = p;
			double *f = realloc(r->s_fac, cap * sizeof *f);
			if (f)
				r->s_fac = f;
			if (!t || !p || !f) {
				sqlite3_finalize(st);
				return failf(r, err, errlen, "out of memory");
			}
		}
		r->s_t[r->nsamples] = sqlite3_column_int64(st, 0);
		r->s_power[r->nsamples] = col_real(st, 1);
		r->s_fac[r->nsamples] = col_real(st, 2);
		r->nsamples++;
	}
	sqlite3_finalize(st);
	return 0;
}

static int load_racks(struct mrun *r, char *err, size_t errlen)
{
	static const char *const cols[] = { "id", "name", "cap_w", "peak_w", "warn_s", "over_s",
		"throttled_gpu_h", NULL };
	char list[256], sql[320];
	sqlite3_stmt *st = NULL;
	if (!report_has_column(r->db, "rack", "id"))
		return 0;
	select_cols(r->db, "rack", cols, list, sizeof list);
	snprintf(sql, sizeof sql, "SELECT %s FROM rack ORDER BY id", list);
	if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) != SQLITE_OK)
		return fail_db(r, err, errlen, "reading table rack");
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (id < 0 || id > 100000)
			continue;
		if (id >= r->nracks) {
			struct mrun_rack *p = realloc(r->racks, (size_t)(id + 1) * sizeof *p);
			if (!p)
				goto nomem;
			memset(p + r->nracks, 0, (size_t)(id + 1 - r->nracks) * sizeof *p);
			r->racks = p;
			r->nracks = (int)id + 1;
		}
		struct mrun_rack *k = &r->racks[id];
		if (!(k->name = col_dup(st, 1)))
			goto nomem;
		k->cap_w = col_real(st, 2);
		k->peak_w = col_real(st, 3);
		k->warn_s = col_real(st, 4);
		k->over_s = col_real(st, 5);
		k->throttled_gpu_h = col_real(st, 6);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (!report_has_column(r->db, "rack_sample", "throttle"))
		return 0;
	if (sqlite3_prepare_v2(r->db, "SELECT t_us, rack, power_w, cap_w, warn, throttle FROM"
	                       " rack_sample ORDER BY rack, t_us", -1, &st, NULL) != SQLITE_OK)
		return fail_db(r, err, errlen, "reading table rack_sample");
	size_t cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (r->nrs == cap) {
			cap = cap ? 2 * cap : 4096;
			struct mrun_rsample *p = realloc(r->rs, cap * sizeof *p);
			if (!p)
				goto nomem;
			r->rs = p;
		}
		struct mrun_rsample *x = &r->rs[r->nrs++];
		x->t_us = sqlite3_column_int64(st, 0);
		x->rack = (int)sqlite3_column_int64(st, 1);
		x->power_w = col_real(st, 2);
		x->cap_w = col_real(st, 3);
		x->warn = col_int(st, 4, 0) != 0;
		x->throttle = col_real(st, 5);
	}
	sqlite3_finalize(st);
	return 0;
nomem:
	sqlite3_finalize(st);
	return failf(r, err, errlen, "out of memory");
}

/* Reads the model from r->db (open). 0, or -1 (r left to mrun_close). */
static int load_all(struct mrun *r, char *err, size_t errlen)
{
	int64_t *ids = NULL;
	if (!report_has_column(r->db, "job", "submit_us"))
		return failf(r, err, errlen, "not a hetlab results file (no table 'job')");
	int ret = load_head(r, err, errlen) < 0 || load_nodes(r, &ids, err, errlen) < 0 ||
	          load_presence(r, ids, err, errlen) < 0 || load_jobs(r, err, errlen) < 0 ||
	          load_runs(r, err, errlen) < 0 || load_samples(r, err, errlen) < 0 ||
	          load_racks(r, err, errlen) < 0 ? -1 : 0;
	free(ids);
	return ret;
}

int mrun_open(const char *db, struct mrun *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->path = db;
	int rc = sqlite3_open_v2(db, &r->db, SQLITE_OPEN_READONLY, NULL);
	if (rc != SQLITE_OK) {
		if (r->db)
			fail_db(r, err, errlen, "cannot open");
		else
			failf(r, err, errlen, "cannot open: %s", sqlite3_errstr(rc));
		mrun_close(r);
		return -1;
	}
	if (load_all(r, err, errlen) < 0) {
		mrun_close(r);
		return -1;
	}
	return 0;
}

int mrun_open_conn(struct sqlite3 *db, const char *path, struct mrun *r, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->path = path;
	r->db = db;
	r->borrowed = true;
	if (load_all(r, err, errlen) < 0) {
		mrun_close(r);
		return -1;
	}
	return 0;
}

void mrun_close(struct mrun *r)
{
	for (int i = 0; i < r->nnodes; i++) {
		struct mrun_node *n = &r->nodes[i];
		free(n->name);
		free(n->rack);
		free(n->type);
		free(n->gpu_model);
		free(n->present);
	}
	free(r->nodes);
	for (size_t k = 0; k < r->njobs; k++) {
		free(r->jobs[k].reason);
		free(r->jobs[k].node);
		free(r->jobs[k].runs);
	}
	free(r->jobs);
	for (int k = 0; k < r->nracks; k++)
		free(r->racks[k].name);
	free(r->racks);
	free(r->rs);
	free(r->s_t);
	free(r->s_power);
	free(r->s_fac);
	names_free(&r->racks_n);
	names_free(&r->types);
	names_free(&r->models);
	names_free(&r->tenant_names);
	names_free(&r->service_names);
	if (!r->borrowed)
		sqlite3_close(r->db);
	memset(r, 0, sizeof *r);
}

const char *mrun_tenant_name(const struct mrun *r, int64_t t, char *buf, size_t len)
{
	if (t >= 0 && t < r->tenant_names.n)
		return r->tenant_names.v[t];
	snprintf(buf, len, t < 0 ? "unknown" : "%" PRId64, t);
	return buf;
}

const char *mrun_service_name(const struct mrun *r, int64_t g, char *buf, size_t len)
{
	if (g >= 0 && g < r->service_names.n)
		return r->service_names.v[g];
	snprintf(buf, len, "%" PRId64, g);
	return buf;
}

void mrun_window(const struct mrun *r, const struct metric_window *w, struct metric_window *used,
                 int64_t *t0_us, int64_t *t1_us, bool *whole)
{
	struct metric_window none = { 0 };
	*used = w && w->given ? *w : r->recorded.given ? r->recorded : none;
	int64_t start = r->first_submit_us, end = r->last_end_us >= 0 ? r->last_end_us : r->last_us;
	*t0_us = start + (int64_t)llround(used->warmup_s * 1e6);
	*t1_us = used->until == METRIC_UNTIL_ARRIVALS ? r->last_submit_us
	                                              : end - (int64_t)llround(used->cooldown_s * 1e6);
	*whole = used->warmup_s == 0 && used->cooldown_s == 0 && used->until == METRIC_UNTIL_END;
}
