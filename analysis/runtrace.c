/* runtrace — a run's job table as an SWF or JSON Lines trace
 * (analysis/runtrace.h). */
#include "analysis/runtrace.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/joblist.h"
#include "traces/trace.h"

int runtrace_is_db(const char *path)
{
	char head[16];
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	return n == sizeof head && memcmp(head, "SQLite format 3", 16) == 0;
}

static bool ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && strcmp(s + n - m, suf) == 0;
}

struct runinfo {
	char scenario[256], policy[64], seed[32], version[32], created[32];
	int64_t nodes, cores, gpus;
};

static void col(sqlite3_stmt *st, int k, char *buf, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, k);
	snprintf(buf, len, "%s", t ? (const char *)t : "");
}

static int read_run(sqlite3 *db, const char *path, struct runinfo *ri, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	memset(ri, 0, sizeof *ri);
	if (sqlite3_prepare_v2(db, "SELECT scenario, policy, seed, version, created, nodes, total_cores, total_gpus"
	                       " FROM run LIMIT 1", -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: not a hetlab results file (no run table): %s", path, sqlite3_errmsg(db));
		return -1;
	}
	if (sqlite3_step(st) == SQLITE_ROW) {
		col(st, 0, ri->scenario, sizeof ri->scenario);
		col(st, 1, ri->policy, sizeof ri->policy);
		col(st, 2, ri->seed, sizeof ri->seed);
		col(st, 3, ri->version, sizeof ri->version);
		col(st, 4, ri->created, sizeof ri->created);
		ri->nodes = sqlite3_column_int64(st, 5);
		ri->cores = sqlite3_column_int64(st, 6);
		ri->gpus = sqlite3_column_int64(st, 7);
	}
	sqlite3_finalize(st);
	return 0;
}

/* The job row, as runtrace needs it. Times in µs; -1 when NULL. */
struct jrow {
	int64_t id, tenant, grp, queue, nodes, cores, gpus, mem_mib, req_cores, req_gpus;
	int64_t submit, start, end, walltime;
	char cls[16], state[16], reason[16], share[24];
};

static const char job_sql[] =
	"SELECT id, tenant, grp, queue, nodes, cores, gpus, mem_mib, req_cores, req_gpus, submit_us, start_us,"
	" end_us, walltime_us, class, state, reason, gpu_share FROM job ORDER BY submit_us, id";

static int64_t i64(sqlite3_stmt *st, int k)
{
	return sqlite3_column_type(st, k) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, k);
}

static void read_row(sqlite3_stmt *st, struct jrow *r)
{
	r->id = i64(st, 0);
	r->tenant = i64(st, 1);
	r->grp = i64(st, 2);
	r->queue = i64(st, 3);
	r->nodes = i64(st, 4);
	r->cores = i64(st, 5);
	r->gpus = i64(st, 6);
	r->mem_mib = i64(st, 7);
	r->req_cores = i64(st, 8);
	r->req_gpus = i64(st, 9);
	r->submit = i64(st, 10);
	r->start = i64(st, 11);
	r->end = i64(st, 12);
	r->walltime = i64(st, 13);
	col(st, 14, r->cls, sizeof r->cls);
	col(st, 15, r->state, sizeof r->state);
	col(st, 16, r->reason, sizeof r->reason);
	col(st, 17, r->share, sizeof r->share);
}

/* SWF status: 1 completed, 0 failed, 5 cancelled (killed at submit or by
 * an operator), -1 unknown (still pending or running at the horizon). */
static int swf_status(const struct jrow *r)
{
	if (strcmp(r->state, "done") == 0)
		return 1;
	if (strcmp(r->state, "failed") == 0)
		return 0;
	if (strcmp(r->state, "killed") == 0)
		return strcmp(r->reason, "walltime") == 0 || strcmp(r->reason, "oom") == 0 ? 0 : 5;
	return -1;
}

static int write_swf(sqlite3 *db, FILE *f, const struct runinfo *ri, int64_t origin, int64_t *njobs,
                     const char *path, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int64_t maxjobs = 0, last_end = 0;
	if (sqlite3_prepare_v2(db, "SELECT count(*), max(end_us) FROM job", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		maxjobs = sqlite3_column_int64(st, 0);
		last_end = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	char t0[32], t1[32];
	time_t a = (time_t)origin, b = (time_t)(origin + last_end / 1000000);
	struct tm tm;
	strftime(t0, sizeof t0, "%a %b %d %H:%M:%S UTC %Y", gmtime_r(&a, &tm));
	strftime(t1, sizeof t1, "%a %b %d %H:%M:%S UTC %Y", gmtime_r(&b, &tm));
	fprintf(f, "; Version: 2.2\n"
	           "; Computer: hetlab simulation of scenario %s (policy %s, seed %s)\n"
	           "; Installation: simulated by hetlab %s\n"
	           "; Information: the run's job table; see docs/traces.md (SWF export)\n"
	           "; Conversion: hetlab trace convert, from the results database %s\n"
	           "; MaxJobs: %lld\n; MaxRecords: %lld\n; Preemption: Yes\n"
	           "; UnixStartTime: %lld\n; TimeZoneString: UTC\n; StartTime: %s\n; EndTime: %s\n"
	           "; MaxNodes: %lld\n; MaxProcs: %lld\n"
	           "; Note: processors are CPU cores; memory is KB per core; SWF has no GPU field, so the\n"
	           ";       %lld GPUs of the cluster and each job's GPUs are only in the JSON Lines export\n"
	           "; Note: status 1 completed, 0 failed (also killed at its walltime or out of memory),\n"
	           ";       5 cancelled (rejected at submit or cancelled), -1 still pending or running\n"
	           "; Partitions: 1 training, 2 inference, 3 batch, 4 dev (the job class)\n",
	        ri->scenario, ri->policy, ri->seed, ri->version, path, (long long)maxjobs, (long long)maxjobs,
	        (long long)origin, t0, t1, (long long)ri->nodes, (long long)ri->cores, (long long)ri->gpus);
	if (sqlite3_prepare_v2(db, job_sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: not a hetlab results file with a job table: %s", path, sqlite3_errmsg(db));
		return -1;
	}
	int rc, n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct jrow r;
		read_row(st, &r);
		if (r.submit < 0)
			continue;
		bool ran = r.start >= 0;
		long long submit = (long long)(r.submit / 1000000);
		long long wait = ran ? (long long)((r.start - r.submit) / 1000000) : -1;
		long long run = ran && r.end >= 0 ? (long long)((r.end - r.start) / 1000000) : -1;
		long long alloc = ran ? (long long)r.cores : -1;
		long long req = r.req_cores > 0 ? (long long)r.req_cores : -1;
		long long walltime = r.walltime > 0 ? (long long)(r.walltime / 1000000) : -1;
		long long mem_kb = r.mem_mib > 0 && r.cores > 0 ? (long long)(r.mem_mib * 1024 / r.cores) : -1;
		int part = strcmp(r.cls, "training") == 0 ? 1 : strcmp(r.cls, "inference") == 0 ? 2 :
		           strcmp(r.cls, "batch") == 0 ? 3 : strcmp(r.cls, "dev") == 0 ? 4 : -1;
		n++;
		fprintf(f, "%d %lld %lld %lld %lld -1 -1 %lld %lld %lld %d %lld %lld -1 %lld %d -1 -1\n", n, submit, wait,
		        run, alloc, req, walltime, mem_kb, swf_status(&r), r.tenant >= 0 ? (long long)r.tenant + 1 : -1,
		        r.grp >= 0 ? (long long)r.grp + 1 : -1, r.queue >= 0 ? (long long)r.queue : -1, part);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "%s: reading the job table: %s", path, sqlite3_errmsg(db));
		return -1;
	}
	*njobs = n;
	return 0;
}

/* The request a job was given, rebuilt (runtrace.h). */
static void row_to_job(const struct jrow *r, struct job *j, struct job_truth *t)
{
	job_init(j, 0, r->submit);
	j->trace_id = r->id;
	j->tenant = r->tenant >= 0 ? (int32_t)r->tenant : 0;
	j->group = r->grp >= 0 ? (int32_t)r->grp : 0;
	j->queue = r->queue >= 0 ? (int32_t)r->queue : -1;
	int c = job_class_parse(r->cls);
	j->cls = (uint8_t)(c >= 0 ? c : JOB_BATCH);
	j->walltime_us = r->walltime > 0 ? r->walltime : SIMTIME_INF;
	int64_t nodes = r->nodes > 0 ? r->nodes : 1;
	int64_t cores = r->start >= 0 && r->cores > 0 ? r->cores : r->req_cores;
	int64_t gpus = r->start >= 0 && r->gpus > 0 ? r->gpus : r->req_gpus;
	if (gpus > 0 || r->share[0]) {
		/* a gang: the same share on each node */
		j->req.nodes = (int32_t)nodes;
		j->req.cores = (int32_t)(cores > 0 ? (cores + nodes - 1) / nodes : 1);
		j->req.gpus = (int32_t)(gpus > 0 ? gpus / nodes : 1);
		j->req.mem_mib = r->mem_mib > 0 ? r->mem_mib / nodes : 0;
		int milli = 0, g = 0;
		char u = 0;
		if (sscanf(r->share, "%dm%c", &milli, &u) == 1 && milli > 0 && milli <= 1000) {
			j->req.gpu_milli = milli;
			j->req.nodes = 1;
			j->req.gpus = 1;
		} else if (sscanf(r->share, "%dg.", &g) == 1 && g >= 1 && g <= 7) {
			j->req.mig_g = (int8_t)g;
			j->req.nodes = 1;
			j->req.gpus = 1;
		}
	} else {
		/* a spread CPU job: cores in total, memory per core */
		j->req.nodes = 0;
		j->req.cores = (int32_t)(cores > 0 ? cores : 1);
		j->req.mem_mib = r->mem_mib > 0 && cores > 0 ? r->mem_mib / cores : 0;
	}
	t->fails = strcmp(r->state, "failed") == 0 && strcmp(r->reason, "trace") == 0;
	/* What it ran for on the device it was given; a job that never ran
	 * keeps its walltime (or one second) so that a replay has a duration. */
	if (r->start >= 0 && r->end >= r->start)
		t->run_us = r->end - r->start > 0 ? r->end - r->start : 1;
	else
		t->run_us = r->walltime > 0 ? r->walltime : 1000000;
}

static int write_jsonl(sqlite3 *db, const char *out, int64_t origin, const struct runinfo *ri, int64_t *njobs,
                       const char *path, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	struct workload w;
	workload_init(&w);
	w.unix_start = origin;
	w.max_procs = (int32_t)ri->cores;
	w.max_nodes = (int32_t)ri->nodes;
	if (sqlite3_prepare_v2(db, job_sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: not a hetlab results file with a job table: %s", path, sqlite3_errmsg(db));
		return -1;
	}
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct jrow r;
		struct job j;
		struct job_truth t;
		read_row(st, &r);
		if (r.submit < 0)
			continue;
		row_to_job(&r, &j, &t);
		if (workload_add(&w, &j, &t) != 0) {
			snprintf(err, errlen, "out of memory");
			sqlite3_finalize(st);
			workload_free(&w);
			return -1;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "%s: reading the job table: %s", path, sqlite3_errmsg(db));
		workload_free(&w);
		return -1;
	}
	int r = trace_jsonl_write(out, &w, err, errlen);
	*njobs = w.n;
	workload_free(&w);
	return r;
}

int runtrace_write(const char *path, const char *out, int64_t origin_s, int64_t *njobs, char *err,
                   size_t errlen)
{
	bool swf = ends_with(out, ".swf"), jsonl = ends_with(out, ".jsonl");
	sqlite3 *db = NULL;
	struct runinfo ri;
	int rc = -1;
	*njobs = 0;
	if (!swf && !jsonl) {
		snprintf(err, errlen, "%s: expected an output name ending in .swf or .jsonl", out);
		return -1;
	}
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	if (read_run(db, path, &ri, err, errlen))
		goto out;
	int64_t origin = origin_s;
	if (origin < 0 && joblist_run_origin(db, &origin) != 0)
		origin = 0;
	if (jsonl) {
		rc = write_jsonl(db, out, origin, &ri, njobs, path, err, errlen);
		goto out;
	}
	char tmp[4096 + 32];
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		snprintf(err, errlen, "%s: cannot create %s: %s", out, tmp, strerror(errno));
		goto out;
	}
	rc = write_swf(db, f, &ri, origin, njobs, path, err, errlen);
	if (fclose(f) != 0 && rc == 0) {
		snprintf(err, errlen, "%s: write error", tmp);
		rc = -1;
	}
	if (rc == 0 && rename(tmp, out) != 0) {
		snprintf(err, errlen, "%s: %s", out, strerror(errno));
		rc = -1;
	}
	if (rc != 0)
		remove(tmp);
out:
	sqlite3_close(db);
	return rc;
}
