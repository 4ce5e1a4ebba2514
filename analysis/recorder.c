/* recorder — the SQLite results file. See recorder.h; the schema is
 * documented column by column in docs/results.md, keep the two in step. */
#include "analysis/recorder.h"
#include "analysis/recorder_int.h"
#include "analysis/recorder_schema.h"
#include "analysis/audit.h"
#include "analysis/hostlist.h"
#include "analysis/runmetric.h"
#include "analysis/sqlbatch.h"
#include "analysis/tmpclean.h"
#include "analysis/workq.h"
#include "sim/power.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "sim/engine.h"

#define EVENT_COLS "seq, t_us, kind, job, node, state, detail"
#define EVENT_NCOL 7
#define JOB_BATCH 16
#define SAMPLE_COLS "t_us, cores_alloc, cores_total, gpus_alloc, gpus_total, pending, running," \
	" power_w, facility_w, outside_c"
#define SAMPLE_NCOL 10
#define RACK_SAMPLE_COLS "t_us, rack, power_w, cap_w, warn, throttle, temp_p50, temp_p95, temp_max"
#define RACK_SAMPLE_NCOL 9

/* The power model's totals per rack, known only when the run has ended. */
static const char rack_end_sql[] =
	"UPDATE rack SET peak_w = ?, warn_s = ?, over_s = ?, throttled_gpu_h = ?, energy_kwh = ?,"
	" facility_kwh = ?, cost = ? WHERE id = ?";
static const char rack_sql[] =
	"INSERT INTO rack(id, name, cap_w, cooling, nodes) VALUES(?,?,?,?,?)";
static const char node_sql[] =
	"INSERT INTO node(id, name, rack, type, cores, gpus, gpu_model, mem_mib)"
	" VALUES(?,?,?,?,?,?,?,?)";
static const char run_sql[] =
	"INSERT INTO run(scenario, policy, seed, version, trace, wall_s, events,"
	" passes, jobs, nodes, total_cores, total_gpus, skipped_malformed,"
	" skipped_unusable, created, policy_params, rejected, placement, it_energy_kwh,"
	" facility_energy_kwh, idle_energy_kwh, energy_cost, carbon_kg, level, records)"
	" VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";

static const char *const level_names[RECORD_NLEVEL] = {
	[RECORD_SUMMARY] = "summary", [RECORD_JOBS] = "jobs", [RECORD_EVENTS] = "events",
	[RECORD_FULL] = "full",
};

const char *record_level_name(enum record_level l)
{
	return (unsigned)l < RECORD_NLEVEL ? level_names[l] : "?";
}

int record_level_parse(const char *s)
{
	for (int l = 0; s && l < RECORD_NLEVEL; l++)
		if (strcmp(s, level_names[l]) == 0)
			return l;
	return -1;
}

/* The page cache: small enough that full pages are written out by the
 * writer thread as the run goes, not all at the COMMIT. */
#define RECORDER_CACHE_KIB 8192
/* ... but grown with the run's jobs, to 1 GiB (recorder_attach): a long job's row goes into a
 * job-table page written hours of rows earlier, which a fixed 8 MiB had evicted (at 30,000
 * nodes each file page was written 3.7 times and 2.7 read back); 24 bytes a job keeps it. */
#define RECORDER_CACHE_B_PER_JOB 24

/* Rows per buffer handed to the writer thread (jobs: a quarter): large, so
 * that the thread is woken rarely. */
#define BUFFER_ROWS 512
/* Buffers of rows that may wait for the writer thread, all tables together. */
#define WRITER_QUEUE 16

static void rec_fail_db(struct recorder *r, const char *what)
{
	rec_failf(r, "%s: %s", what, sqlite3_errmsg(r->db));
}

int rec_exec_sql(struct recorder *r, const char *sql, const char *what)
{
	if (sqlite3_exec(r->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		rec_fail_db(r, what);
		return -1;
	}
	return 0;
}

/* Steps an INSERT whose parameters are bound, and resets it. */
int rec_step_insert(struct recorder *r, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		rec_fail_db(r, what);
		return -1;
	}
	return 0;
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* v when `on` (the power model ran), else NULL. */
static void bind_real_if(sqlite3_stmt *st, int i, bool on, double v)
{
	if (on)
		sqlite3_bind_double(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

static const char *state_text(int state)
{
	return state >= 0 && state < JOB_NSTATE ? job_state_name((enum job_state)state) : NULL;
}

/* ---- the engine's hooks -------------------------------------------------- */

static void hook_event(void *ctx, simtime t, enum rec_kind kind, int32_t job, int32_t node,
                       int state, const char *detail)
{
	struct recorder *r = ctx;
	if (r->failed)
		return;
	struct sqlbatch_val *v = rec_next_row(r, &r->events);
	if (!v)
		return;
	const char *kname = rec_kind_name(kind), *sn = state_text(state);
	size_t dlen = detail ? audit_detail_len(detail) : 0;
	int64_t seq = ++r->seq;
	sqlbatch_int(&v[0], seq);
	sqlbatch_int(&v[1], t);
	sqlbatch_static(&v[2], kname);
	if (job >= 0)   /* by its number: its index unless ended jobs left the engine's tables */
		sqlbatch_int(&v[3], r->sim && job < r->sim->njobs ? r->sim->jobs[job].num : job);
	if (node >= 0)
		sqlbatch_int(&v[4], node);
	sqlbatch_static(&v[5], sn);
	sqlbatch_text(&r->events, &v[6], detail, dlen);
}

/* ---- the power model's figures (sim/power.h) ------------------------------ */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* p-quantile of sorted x[0 .. n-1], n > 0, interpolated between order
 * statistics as the report's percentiles are. */
static double quantile(const double *x, int32_t n, double p)
{
	double h = (double)(n - 1) * p;
	int32_t lo = (int32_t)floor(h);
	if (lo + 1 >= n)
		return x[n - 1];
	return x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]);
}

/* Facility power at t: each rack's IT power times its cooling's PUE at
 * the outside temperature then. */
static double facility_w_at(const struct cluster *cl, double outside_c)
{
	double w = 0;
	for (int32_t k = 0; k < cl->nracks; k++)
		w += cl->pw->rack[k].power_w * power_pue(&cl->pw->cfg, cl->racks[k].cooling, outside_c);
	return w;
}

/* rack_sample's power-model columns (3 .. 8 of v) for rack k at t; NULL
 * without the model. */
static void rack_power_vals(struct recorder *r, struct sqlbatch_val *v, int32_t k, simtime t)
{
	const struct cluster *cl = r->sim ? &r->sim->cl : NULL;
	if (!cl || !cl->pw || k >= cl->nracks)
		return;
	const struct rack_power *rp = &cl->pw->rack[k];
	sqlbatch_real(&v[3], rp->cap_w);
	sqlbatch_int(&v[4], (rp->flags & PW_RACK_WARN) != 0);
	sqlbatch_real(&v[5], rp->throttle);
	const struct rack *rk = &cl->racks[k];
	int32_t n = 0;
	for (int32_t i = rk->first_node; r->temps && i < rk->first_node + rk->nnodes && i < cl->nnodes; i++)
		r->temps[n++] = power_node_temp_at(cl, i, t);
	if (n == 0)
		return;
	qsort(r->temps, (size_t)n, sizeof *r->temps, cmp_double);
	sqlbatch_real(&v[6], quantile(r->temps, n, 0.50));
	sqlbatch_real(&v[7], quantile(r->temps, n, 0.95));
	sqlbatch_real(&v[8], r->temps[n - 1]);
}

/* Below level full, a sample's rack rows are left out when no rack drew any
 * power and the run has no power model: they would say 0 W and nothing else. */
static bool rack_rows_wanted(const struct recorder *r, const struct sim_sample *smp)
{
	if (r->level >= RECORD_FULL || (r->sim && r->sim->cl.pw))
		return true;
	for (int32_t k = 0; k < smp->nracks; k++)
		if (smp->rack_power_w[k] != 0)
			return true;
	return false;
}

static void hook_sample(void *ctx, const struct sim_sample *smp)
{
	struct recorder *r = ctx;
	if (r->failed)
		return;
	const struct cluster *cl = r->sim ? &r->sim->cl : NULL;
	struct sqlbatch_val *v = rec_next_row(r, &r->samples);
	if (!v)
		return;
	sqlbatch_int(&v[0], smp->t);
	sqlbatch_int(&v[1], smp->cores_alloc);
	sqlbatch_int(&v[2], smp->cores_total);
	sqlbatch_int(&v[3], smp->gpus_alloc);
	sqlbatch_int(&v[4], smp->gpus_total);
	sqlbatch_int(&v[5], smp->pending);
	sqlbatch_int(&v[6], smp->running);
	sqlbatch_real(&v[7], smp->power_w);
	if (cl && cl->pw) {
		double out_c = power_outside_c(&cl->pw->cfg, smp->t);
		sqlbatch_real(&v[8], facility_w_at(cl, out_c));
		sqlbatch_real(&v[9], out_c);
	}
	if (!smp->rack_power_w || !rack_rows_wanted(r, smp))
		return;
	for (int32_t k = 0; k < smp->nracks && !r->failed; k++) {
		struct sqlbatch_val *w = rec_next_row(r, &r->rack_samples);
		if (!w)
			return;
		sqlbatch_int(&w[0], smp->t);
		sqlbatch_int(&w[1], k);
		sqlbatch_real(&w[2], smp->rack_power_w[k]);
		rack_power_vals(r, w, k, smp->t);
	}
}

/* ---- open / finish / abort ----------------------------------------------- */

static void rec_free(struct recorder *r)
{
	pthread_mutex_destroy(&r->errmu);
	tmpclean_drop(r->tmp_slot);
	hostlist_fini(&r->hosts);
	rowstash_fini(&r->order);
	pagedrop_close(&r->pd);
	free(r->temps);
	free(r->tmp);
	free(r->path);
	free(r);
}

/* Finalizes the statements and closes the handle; -1 if closing failed. */
static int rec_close(struct recorder *r)
{
	if (r->wq_ok) {
		workq_fini(&r->wq);   /* what is queued is written (or skipped once failed) */
		r->wq_ok = false;
	}
	sqlbatch_fini(&r->events);
	sqlbatch_fini(&r->jobs);
	sqlbatch_fini(&r->samples);
	sqlbatch_fini(&r->rack_samples);
	audit_writer_free(r->audit);
	r->audit = NULL;
	int rc = SQLITE_OK;
	if (r->db) {
		rc = sqlite3_close(r->db);
		if (rc != SQLITE_OK)
			rec_fail_db(r, "closing");
		/* An unfinalized statement would keep it open; there is none,
		 * but never leak the handle either way. */
		if (rc != SQLITE_OK)
			sqlite3_close_v2(r->db);
		r->db = NULL;
	}
	return rc == SQLITE_OK ? 0 : -1;
}

static int batches_init(struct recorder *r)
{
	char err[400];
	if (sqlbatch_init(&r->events, r->db, "event", EVENT_COLS, EVENT_NCOL, SQLBATCH_ROWS,
	                  BUFFER_ROWS, err, sizeof err) ||
	    sqlbatch_init(&r->jobs, r->db, "job", JOB_COLS, JOB_NCOL, JOB_BATCH, BUFFER_ROWS / 4,
	                  err, sizeof err) ||
	    sqlbatch_init(&r->samples, r->db, "sample", SAMPLE_COLS, SAMPLE_NCOL, SQLBATCH_ROWS,
	                  BUFFER_ROWS, err, sizeof err) ||
	    sqlbatch_init(&r->rack_samples, r->db, "rack_sample", RACK_SAMPLE_COLS, RACK_SAMPLE_NCOL,
	                  SQLBATCH_ROWS, BUFFER_ROWS, err, sizeof err) ||
	    sqlbatch_rowid_first(&r->events, "event", EVENT_COLS, err, sizeof err) ||
	    sqlbatch_rowid_first(&r->jobs, "job", JOB_COLS, err, sizeof err)) {
		rec_failf(r, "%s", err);
		return -1;
	}
	r->events.tag = T_EVENT;
	r->jobs.tag = T_JOB;
	r->samples.tag = T_SAMPLE;
	r->rack_samples.tag = T_RACK;
	if (workq_init(&r->wq, WRITER_QUEUE, r) < 0) {
		rec_failf(r, "cannot set up the writer thread");
		return -1;
	}
	r->wq_ok = true;
	return 0;
}

struct recorder *recorder_open_with(const char *path, const struct recorder_opts *o, char *err,
                                    size_t errlen)
{
	/* The recorder's connection is used by one thread; SQLite's memory
	 * statistics take a global mutex per allocation and nothing here reads
	 * them. (A no-op once SQLite is initialised, e.g. by a live daemon.) */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	struct recorder *r = calloc(1, sizeof *r);
	if (!r) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	r->tmp_slot = -1;
	r->pd.fd = -1;
	rec_jobs_init(r, 0);
	if (pthread_mutex_init(&r->errmu, NULL) != 0) {
		free(r);
		snprintf(err, errlen, "%s: cannot set up a mutex", path);
		return NULL;
	}
	r->level = o && (unsigned)o->level < RECORD_NLEVEL ? o->level : RECORD_DEFAULT;
	r->key = o ? o->key : NULL;
	r->head_out = o ? o->head_out : NULL;
	r->metrics = o ? o->metrics : NULL;
	r->path = strdup(path);
	r->tmp = tmpclean_name(path);
	if (!r->path || !r->tmp) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail_alloc;
	}
	if (r->key && !audit_key_can_sign(r->key)) {
		snprintf(err, errlen, "%s: the audit key %s is a public key: the run needs the key that"
		         " signs", path, audit_key_id(r->key));
		goto fail_alloc;
	}
	/* Temporary files of runs to the same output that died (SIGKILL, a
	 * crash), and a leftover of an earlier run with our pid. */
	if (tmpclean_stale(path, err, errlen) < 0)
		goto fail_alloc;
	if (unlink(r->tmp) < 0 && errno != ENOENT) {
		snprintf(err, errlen, "%s: cannot remove stale %s: %s", path, r->tmp, strerror(errno));
		goto fail_alloc;
	}
	r->tmp_slot = tmpclean_add(r->tmp);
	int rc = sqlite3_open_v2(r->tmp, &r->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
	                         SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot create %s: %s", path, r->tmp,
		         r->db ? sqlite3_errmsg(r->db) : sqlite3_errstr(rc));
		goto fail_db;
	}
	sqlite3_extended_result_codes(r->db, 1);
	char pragmas[320];
	snprintf(pragmas, sizeof pragmas,
	         "PRAGMA page_size=%d; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
	         " PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-%d; PRAGMA temp_store=MEMORY;"
	         " PRAGMA user_version=%d; PRAGMA application_id=%d;",
	         RECORDER_PAGE_SIZE, RECORDER_CACHE_KIB, RECORDER_SCHEMA_VERSION,
	         RECORDER_APPLICATION_ID);
	char meta[160];
	snprintf(meta, sizeof meta,
	         "INSERT INTO meta VALUES('schema_version', '%d'), ('writer', 'hetlab');",
	         RECORDER_SCHEMA_VERSION);
	if (rec_exec_sql(r, pragmas, "setting up") < 0 || rec_exec_sql(r, "BEGIN", "BEGIN") < 0 ||
	    rec_exec_sql(r, recorder_schema_sql, "creating the schema") < 0 ||
	    rec_exec_sql(r, meta, "writing meta") < 0 || batches_init(r) < 0)
		goto fail_schema;
	pagedrop_open(&r->pd, r->tmp, PAGEDROP_STEP, PAGEDROP_LAG);
	r->wq.inline_only = o && o->one_thread;   /* --threads 1: each buffer written at once */
	char aerr[512];
	if (!(r->audit = audit_writer_new(r->db, aerr, sizeof aerr))) {
		rec_failf(r, "%s", aerr);
		goto fail_schema;
	}
	if ((r->st_job = audit_writer_stream(r->audit, "job")) < 0 ||
	    (r->st_sample = audit_writer_stream(r->audit, "sample")) < 0 ||
	    (r->st_rack = audit_writer_stream(r->audit, "rack_sample")) < 0) {
		rec_failf(r, "%s", audit_writer_error(r->audit));
		goto fail_schema;
	}
	return r;

fail_schema:
	snprintf(err, errlen, "%s", r->err);
fail_db:
	rec_close(r);
	unlink(r->tmp);
fail_alloc:
	rec_free(r);
	return NULL;
}

struct recorder *recorder_open(const char *path, char *err, size_t errlen)
{
	return recorder_open_with(path, NULL, err, errlen);
}

/* The `node` table: what event.node and job.node_list refer to. */
static void write_nodes(struct recorder *r, const struct cluster *cl)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(r->db, node_sql, -1, &st, NULL) != SQLITE_OK) {
		rec_fail_db(r, "preparing node rows");
		return;
	}
	for (int32_t i = 0; i < cl->nnodes && !r->failed; i++) {
		const struct node *n = &cl->nodes[i];
		sqlite3_bind_int(st, 1, i);
		sqlite3_bind_text(st, 2, n->name, -1, SQLITE_STATIC);
		bind_text_or_null(st, 3, n->rack >= 0 && n->rack < cl->nracks ? cl->racks[n->rack].name : NULL);
		bind_text_or_null(st, 4, n->type >= 0 && n->type < cl->ntypes ? cl->types[n->type].name : NULL);
		sqlite3_bind_int(st, 5, n->cores);
		sqlite3_bind_int(st, 6, n->ngpus);
		bind_text_or_null(st, 7, n->gpu_model >= 0 && n->gpu_model < cl->cat.ngpus
		                         ? cl->cat.gpus[n->gpu_model].name : NULL);
		sqlite3_bind_int64(st, 8, n->mem_mib);
		rec_step_insert(r, st, "writing a node row");
	}
	sqlite3_finalize(st);
	if (r->failed || sqlite3_prepare_v2(r->db, rack_sql, -1, &st, NULL) != SQLITE_OK) {
		if (!r->failed)
			rec_fail_db(r, "preparing rack rows");
		return;
	}
	for (int32_t k = 0; k < cl->nracks && !r->failed; k++) {
		const struct rack *rk = &cl->racks[k];
		sqlite3_bind_int(st, 1, k);
		sqlite3_bind_text(st, 2, rk->name, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 3, rk->cap_w);
		sqlite3_bind_text(st, 4, rk->cooling == COOL_LIQUID ? "liquid" : "air", -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 5, rk->nnodes);
		rec_step_insert(r, st, "writing a rack row");
	}
	sqlite3_finalize(st);
}

void recorder_attach(struct recorder *r, struct sim *s)
{
	/* Node names are split once here; a node added later (none is, yet)
	 * is split when it is met. */
	hostlist_fini(&r->hosts);
	if (hostlist_init(&r->hosts, &s->cl) < 0)
		rec_failf(r, "out of memory");
	r->sim = s;
	/* The sample hook's scratch: the largest rack's nodes. */
	int32_t most = 1;
	for (int32_t k = 0; k < s->cl.nracks; k++)
		most = s->cl.racks[k].nnodes > most ? s->cl.racks[k].nnodes : most;
	free(r->temps);
	if (!(r->temps = malloc((size_t)most * sizeof *r->temps)))
		rec_failf(r, "out of memory");
	if (!r->failed)
		write_nodes(r, &s->cl);
	int64_t kib = (int64_t)s->njobs * RECORDER_CACHE_B_PER_JOB / 1024;
	if (!r->failed && kib > RECORDER_CACHE_KIB && r->level >= RECORD_JOBS) {
		char sql[64];
		snprintf(sql, sizeof sql, "PRAGMA cache_size=-%lld", (long long)(kib < 1 << 20 ? kib : 1 << 20));
		rec_exec_sql(r, sql, "sizing the page cache");
	}
	rec_jobs_init(r, s->njobs);
	/* The level decides which hooks there are: the engine skips a NULL one. */
	const struct sim_recorder hooks = {
		.ctx = r,
		.event = r->level >= RECORD_EVENTS ? hook_event : NULL,
		.job_end = r->level >= RECORD_JOBS ? rec_hook_job_end : NULL,
		.sample = hook_sample,
	};
	sim_set_recorder(s, &hooks);
}

int recorder_set_meta(struct recorder *r, const char *key, const char *value)
{
	if (!key || !value)
		return 0;
	if (r->failed)
		return -1;
	if (r->wq_ok)
		workq_drain(&r->wq);   /* the connection is the writer thread's while it works */
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(r->db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", -1, &st, NULL) !=
	    SQLITE_OK) {
		rec_fail_db(r, "preparing a meta row");
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_TRANSIENT);
	int rc = rec_step_insert(r, st, "writing a meta row");
	sqlite3_finalize(st);
	return rc;
}

int recorder_exec(struct recorder *r, const char *sql, const char *what)
{
	if (r->failed)
		return -1;
	if (r->wq_ok)
		workq_drain(&r->wq);   /* the connection is the writer thread's while it works */
	return rec_exec_sql(r, sql, what) < 0 ? -1 : 0;
}

int recorder_set_billing(struct recorder *r, const char *json_text)
{
	if (!json_text)
		return 0;
	if (r->failed)
		return -1;
	if (r->wq_ok)
		workq_drain(&r->wq);   /* the connection is the writer thread's while it works */
	if (rec_exec_sql(r, "CREATE TABLE IF NOT EXISTS billing(config TEXT); DELETE FROM billing;",
	                 "creating table billing") < 0)
		return -1;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(r->db, "INSERT INTO billing(config) VALUES(?)", -1, &st, NULL) != SQLITE_OK) {
		rec_fail_db(r, "preparing the billing row");
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_bind_text(st, 1, json_text, -1, SQLITE_TRANSIENT);
	int rc = rec_step_insert(r, st, "writing the billing row");
	sqlite3_finalize(st);
	return rc;
}

const char *recorder_error(const struct recorder *r)
{
	return r->failed ? r->err : NULL;
}

static void utc_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	if (now == (time_t)-1 || !gmtime_r(&now, &tm) ||
	    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, len, "unknown");
}

static int write_run(struct recorder *r, const struct run_info *ri, double wall_s,
                     uint64_t events, uint64_t passes)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(r->db, run_sql, -1, &st, NULL) != SQLITE_OK) {
		rec_fail_db(r, "preparing the run row");
		return -1;
	}
	char created[32];
	utc_now(created, sizeof created);
	bind_text_or_null(st, 1, ri->scenario);
	bind_text_or_null(st, 2, ri->policy);
	/* A seed of 2^63 or more does not fit SQLite's INTEGER: keep its digits. */
	if (ri->seed <= (uint64_t)INT64_MAX) {
		sqlite3_bind_int64(st, 3, (int64_t)ri->seed);
	} else {
		char seed[24];
		snprintf(seed, sizeof seed, "%" PRIu64, ri->seed);
		sqlite3_bind_text(st, 3, seed, -1, SQLITE_TRANSIENT);
	}
	bind_text_or_null(st, 4, ri->version);
	bind_text_or_null(st, 5, ri->trace);
	sqlite3_bind_double(st, 6, wall_s);
	sqlite3_bind_int64(st, 7, (int64_t)events);
	sqlite3_bind_int64(st, 8, (int64_t)passes);
	sqlite3_bind_int64(st, 9, r->jobs.written);
	sqlite3_bind_int(st, 10, ri->nnodes);
	sqlite3_bind_int64(st, 11, ri->total_cores);
	sqlite3_bind_int64(st, 12, ri->total_gpus);
	sqlite3_bind_int64(st, 13, ri->skipped_malformed);
	sqlite3_bind_int64(st, 14, ri->skipped_unusable);
	sqlite3_bind_text(st, 15, created, -1, SQLITE_TRANSIENT);
	bind_text_or_null(st, 16, ri->policy_params);
	sqlite3_bind_int64(st, 17, ri->rejected);
	bind_text_or_null(st, 18, ri->placement);
	/* The power model's totals; NULL when it was off (carbon_kg also when
	 * the site tracks no carbon intensity). */
	const struct power_state *pw = r->sim ? r->sim->cl.pw : NULL;
	bool carbon = false;
	for (int h = 0; pw && h < 24; h++)
		carbon |= pw->cfg.site.carbon_g_kwh[h] != 0;
	bind_real_if(st, 19, pw != NULL, pw ? pw->it_energy_j / 3.6e6 : 0);
	bind_real_if(st, 20, pw != NULL, pw ? pw->facility_energy_j / 3.6e6 : 0);
	bind_real_if(st, 21, pw != NULL, pw ? pw->idle_energy_j / 3.6e6 : 0);
	bind_real_if(st, 22, pw != NULL, pw ? pw->cost : 0);
	bind_real_if(st, 23, carbon, pw ? pw->carbon_g / 1000 : 0);
	sqlite3_bind_text(st, 24, record_level_name(r->level), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 25, r->seq);
	assert(sqlite3_bind_parameter_count(st) == 25);
	int rc = rec_step_insert(r, st, "writing the run row");
	sqlite3_finalize(st);
	return rc;
}

/* The `rack` rows' power-model columns, from the totals the run ended
 * with (left NULL when the model was off). */
static int write_rack_totals(struct recorder *r)
{
	const struct cluster *cl = r->sim ? &r->sim->cl : NULL;
	if (!cl || !cl->pw || cl->nracks == 0)
		return 0;
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(r->db, rack_end_sql, -1, &st, NULL) != SQLITE_OK) {
		rec_fail_db(r, "preparing the rack totals");
		return -1;
	}
	for (int32_t k = 0; k < cl->nracks && !r->failed; k++) {
		const struct rack_power *rp = &cl->pw->rack[k];
		sqlite3_bind_double(st, 1, rp->peak_w);
		sqlite3_bind_double(st, 2, simtime_to_s(rp->warn_us));
		sqlite3_bind_double(st, 3, simtime_to_s(rp->over_us));
		sqlite3_bind_double(st, 4, rp->throttled_dev_s / 3600);
		sqlite3_bind_double(st, 5, rp->energy_j / 3.6e6);
		sqlite3_bind_double(st, 6, rp->facility_j / 3.6e6);
		sqlite3_bind_double(st, 7, rp->cost);
		sqlite3_bind_int(st, 8, k);
		rec_step_insert(r, st, "writing the rack totals");
	}
	sqlite3_finalize(st);
	return r->failed ? -1 : 0;
}

/* Stops the writer thread once it has written what was queued, then writes
 * the rows still buffered, here. */
static int flush_all(struct recorder *r)
{
	rec_jobs_drain(r);   /* the job rows held back, in id order */
	if (r->wq_ok) {
		workq_fini(&r->wq);
		r->wq_ok = false;
	}
	struct sqlbatch *all[] = { &r->events, &r->jobs, &r->samples, &r->rack_samples };
	for (size_t i = 0; i < sizeof all / sizeof all[0] && !r->failed; i++)
		rec_write_buf(r, all[i], all[i]->cur);
	return r->failed ? -1 : 0;
}

int recorder_finish(struct recorder *r, const struct run_info *ri, double wall_s,
                    uint64_t events, uint64_t passes, char *err, size_t errlen)
{
	assert(r && ri);
	if (r->failed)
		goto fail;
	if (flush_all(r) < 0 || write_rack_totals(r) < 0 || write_run(r, ri, wall_s, events, passes) < 0)
		goto fail;
	/* Built once at the end, and only at level full: a job's history is a
	 * scan of `event` otherwise (milliseconds), and the index is a tenth
	 * of the file. */
	if (r->level >= RECORD_FULL &&
	    rec_exec_sql(r, "CREATE INDEX event_job ON event(job)", "indexing events") < 0)
		goto fail;
	if (r->metrics && runmetric_store(r->db, r->path, r->metrics, r->err, sizeof r->err) < 0)
		goto fail;   /* from the rows as they will be, sealed with them */
	if (audit_writer_finish(r->audit, record_level_name(r->level), r->key, r->head_out) < 0) {
		rec_failf(r, "%s", audit_writer_error(r->audit));
		goto fail;
	}
	if (rec_exec_sql(r, "COMMIT", "COMMIT") < 0)
		goto fail;
	if (rec_close(r) < 0)
		goto fail;
	if (rename(r->tmp, r->path) < 0) {
		rec_failf(r, "cannot rename %s into place: %s", r->tmp, strerror(errno));
		goto fail;
	}
	rec_free(r);
	return 0;

fail:
	snprintf(err, errlen, "%s", r->err);
	recorder_abort(r);
	return -1;
}

void recorder_abort(struct recorder *r)
{
	if (!r)
		return;
	atomic_store(&r->failed, true);   /* the writer skips what is still queued */
	rec_close(r);
	unlink(r->tmp);
	rec_free(r);
}
