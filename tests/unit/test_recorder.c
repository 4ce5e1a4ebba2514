/* Tests of analysis/recorder and analysis/report: rows written as the
 * engine's hooks are called, the temporary file and its rename, errors,
 * and the report's numbers on a hand-built run worked out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

#include "analysis/recorder.h"
#include "analysis/report.h"
#include "sim/engine.h"
#include "sim/power.h"
#include "tests/testutil.h"
#include "tests/unit/db_fixture.h"

#ifdef HL_TEST_STUB_ENGINE
/* Until sim/engine.c links here: the two engine functions the recorder uses. */
void sim_set_recorder(struct sim *s, const struct sim_recorder *rec)
{
	s->rec = *rec;
}

const char *rec_kind_name(enum rec_kind k)
{
	static const char *const names[REC_NKIND] = {
		"submit", "start", "end", "hold", "release", "preempt", "sample_mark",
	};
	return (unsigned)k < REC_NKIND ? names[k] : "?";
}
#endif

#define S(x) ((simtime)((x) * SIMTIME_SEC))

/* ---- a hand-built struct sim -------------------------------------------- */

struct fixture {
	struct sim s;
	struct node nodes[8];
	struct alloc_part parts[16];
	struct job jobs[8];
	uint32_t next_part;         /* first unused entry of parts */
};

static const char *const node_names[8] = {
	"r1-n3", "r1-n4", "r1-n5", "r1-n7", "r2-n0", "gpu01", "gpu02", "login",
};

static void fx_init(struct fixture *fx)
{
	memset(fx, 0, sizeof *fx);
	for (int i = 0; i < 8; i++) {
		snprintf(fx->nodes[i].name, sizeof fx->nodes[i].name, "%s", node_names[i]);
		fx->nodes[i].id = i;
		fx->nodes[i].cores = 8;
	}
	fx->s.cl.nodes = fx->nodes;
	fx->s.cl.nnodes = 8;
	fx->s.cl.pool.p = fx->parts;
	fx->s.cl.pool.n = 16;
	fx->s.cl.pool.cap = 16;
	fx->s.jobs = fx->jobs;
}

/* A job with given times in seconds (start/end < 0: none) placed on
 * `nparts` parts given as (node, cores, gpu mask) triples. */
static struct job *fx_job(struct fixture *fx, int id, double submit, double start, double end,
                          enum job_class cls, enum job_state st, int nparts, ...)
{
	struct job *j = &fx->jobs[id];
	job_init(j, id, S(submit));
	j->trace_id = 1000 + id;
	j->tenant = 7;
	j->group = 3;
	j->queue = id % 2 ? 2 : -1;
	j->cls = (uint8_t)cls;
	j->state = (uint8_t)st;
	j->start_us = start >= 0 ? S(start) : -1;
	j->end_us = end >= 0 ? S(end) : -1;
	j->walltime_us = id == 0 ? SIMTIME_INF : S(3600);
	j->parts = fx->next_part;
	j->nparts = nparts;
	va_list ap;
	va_start(ap, nparts);
	for (int i = 0; i < nparts; i++) {
		assert_true(fx->next_part < 16);
		struct alloc_part *p = &fx->parts[fx->next_part++];
		p->node = va_arg(ap, int);
		p->cores = va_arg(ap, int);
		p->gpus = va_arg(ap, unsigned);
		p->mem_mib = 1024;
		j->req.cores += p->cores;
	}
	va_end(ap);
	if (fx->s.njobs <= id)
		fx->s.njobs = id + 1;
	return j;
}

/* Calls the hooks as the engine does for a job's life. */
static void fx_play(struct fixture *fx, const struct job *j)
{
	struct sim_recorder *h = &fx->s.rec;
	h->event(h->ctx, j->submit_us, REC_SUBMIT, j->id, -1, JOB_PENDING, NULL);
	if (j->start_us >= 0)
		h->event(h->ctx, j->start_us, REC_START, j->id,
		         j->nparts ? fx->parts[j->parts].node : -1, JOB_RUNNING, "start");
	h->event(h->ctx, j->end_us, REC_END, j->id, -1, j->state, NULL);
	h->job_end(h->ctx, &fx->s, j);
}

static const struct run_info run_info_fx = {
	.scenario = "unit", .policy = "fifo", .version = "0.1.0", .trace = "hand",
	.seed = 42, .skipped_malformed = 3, .skipped_unusable = 1, .nnodes = 8,
	.total_cores = 10, .total_gpus = 4,
};

/* The run worked out by hand in test_report_numbers. */
static void fx_standard(struct fixture *fx)
{
	fx_init(fx);
	fx_job(fx, 0, 0, 0, 100, JOB_BATCH, JOB_DONE, 1, 0, 4, 0u);
	fx_job(fx, 1, 10, 20, 25, JOB_TRAINING, JOB_DONE, 1, 5, 2, 0x5u);
	fx_job(fx, 2, 20, 60, 160, JOB_BATCH, JOB_DONE, 3, 0, 2, 0u, 1, 2, 0u, 4, 2, 0u);
	fx_job(fx, 3, 30, 130, 200, JOB_TRAINING, JOB_FAILED, 1, 6, 1, 0x8u);
	fx_job(fx, 4, 40, -1, 50, JOB_BATCH, JOB_KILLED, 0);
}

/* Writes the standard run into a new database at `path`; with `reuse`,
 * each job's parts are given back and overwritten after its job_end hook,
 * as sim_job_end does when the pool hands them to the next job. */
static void write_standard_as(const char *path, bool reuse)
{
	struct fixture fx;
	fx_standard(&fx);
	char err[512];
	struct recorder *r = recorder_open(path, err, sizeof err);
	assert_non_null(r);
	recorder_attach(r, &fx.s);
	/* End order, as the engine would report them. */
	static const int order[] = { 4, 1, 0, 2, 3 };
	for (int i = 0; i < 5; i++) {
		struct job *j = &fx.jobs[order[i]];
		fx_play(&fx, j);
		for (int k = 0; reuse && k < j->nparts; k++)
			fx.parts[j->parts + (uint32_t)k] = (struct alloc_part){ .node = 7, .cores = 99 };
		if (reuse)
			j->nparts = 0;
	}
	struct sim_sample a = { .t = 0, .cores_alloc = 4, .cores_total = 10, .gpus_alloc = 0,
	                        .gpus_total = 4, .pending = 1, .running = 1, .power_w = 100 };
	struct sim_sample b = { .t = S(100), .cores_alloc = 7, .cores_total = 10, .gpus_alloc = 2,
	                        .gpus_total = 4, .pending = 3, .running = 2, .power_w = 300 };
	fx.s.rec.sample(fx.s.rec.ctx, &a);
	fx.s.rec.sample(fx.s.rec.ctx, &b);
	assert_null(recorder_error(r));
	assert_int_equal(recorder_finish(r, &run_info_fx, 0.25, 123, 45, err, sizeof err), 0);
}

static void write_standard(const char *path)
{
	write_standard_as(path, false);
}

/* ---- queries ------------------------------------------------------------ */

static bool q_null(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = q_row(db, sql);
	bool v = sqlite3_column_type(st, 0) == SQLITE_NULL;
	sqlite3_finalize(st);
	return v;
}

static void q_text_eq(sqlite3 *db, const char *sql, const char *want)
{
	sqlite3_stmt *st = q_row(db, sql);
	const unsigned char *t = sqlite3_column_text(st, 0);
	assert_non_null(t);
	assert_string_equal((const char *)t, want);
	sqlite3_finalize(st);
}

/* Every row of a query, as one string. */
static char *q_dump(sqlite3 *db, const char *sql)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			const unsigned char *t = sqlite3_column_text(st, i);
			fprintf(f, "%s|", t ? (const char *)t : "NULL");
		}
		fputc('\n', f);
	}
	sqlite3_finalize(st);
	fclose(f);
	return buf;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static char *tmp_sibling(const char *path)
{
	char *t = NULL;
	assert_true(asprintf(&t, "%s.tmp-%ld", path, (long)getpid()) > 0);
	return t;
}

/* ---- recorder ----------------------------------------------------------- */

static void test_rows(void **state)
{
	(void)state;
	char *path = tu_tmpath(".db");
	char *tmp = tmp_sibling(path);
	struct fixture fx;
	fx_standard(&fx);
	char err[512];
	struct recorder *r = recorder_open(path, err, sizeof err);
	assert_non_null(r);
	recorder_attach(r, &fx.s);
	assert_ptr_equal(fx.s.rec.ctx, r);
	assert_true(exists(tmp));
	fx_play(&fx, &fx.jobs[2]);
	fx_play(&fx, &fx.jobs[0]);
	fx_play(&fx, &fx.jobs[4]);
	fx.s.rec.event(fx.s.rec.ctx, S(5), REC_HOLD, -1, 3, -1, "rack r1 over cap");
	assert_false(exists(path));         /* nothing at PATH before finish */
	assert_int_equal(recorder_finish(r, &run_info_fx, 1.5, 99, 7, err, sizeof err), 0);
	assert_true(exists(path));
	assert_false(exists(tmp));

	sqlite3 *db = db_open(path);
	assert_int_equal(q_int(db, "PRAGMA user_version"), RECORDER_SCHEMA_VERSION);
	assert_int_equal(q_int(db, "PRAGMA application_id"), RECORDER_APPLICATION_ID);
	char version[16];
	snprintf(version, sizeof version, "%d", RECORDER_SCHEMA_VERSION);
	q_text_eq(db, "SELECT value FROM meta WHERE key = 'schema_version'", version);
	q_text_eq(db, "SELECT level || ',' || records FROM run", "events,9");
	/* run */
	q_text_eq(db, "SELECT scenario || ',' || policy || ',' || seed || ',' || version || ','"
	              " || trace || ',' || events || ',' || passes || ',' || jobs || ',' || nodes"
	              " || ',' || total_cores || ',' || total_gpus || ',' || skipped_malformed"
	              " || ',' || skipped_unusable FROM run",
	          "unit,fifo,42,0.1.0,hand,99,7,3,8,10,4,3,1");
	assert_true(q_real(db, "SELECT wall_s FROM run") == 1.5);
	assert_false(q_null(db, "SELECT created FROM run"));
	/* job 2: three parts, names compressed */
	assert_int_equal(q_int(db, "SELECT count(*) FROM job"), 3);
	q_text_eq(db, "SELECT class || ',' || state || ',' || node_list || ',' || nodes || ','"
	              " || cores || ',' || gpus || ',' || trace_id || ',' || tenant || ',' || grp"
	              " FROM job WHERE id = 2",
	          "batch,done,r1-n[3-4],r2-n0,3,6,0,1002,7,3");
	assert_true(q_null(db, "SELECT queue FROM job WHERE id = 2"));
	assert_int_equal(q_int(db, "SELECT submit_us FROM job WHERE id = 2"), S(20));
	assert_int_equal(q_int(db, "SELECT start_us FROM job WHERE id = 2"), S(60));
	assert_int_equal(q_int(db, "SELECT end_us FROM job WHERE id = 2"), S(160));
	assert_true(q_real(db, "SELECT wait_s FROM job WHERE id = 2") == 40.0);
	assert_true(q_real(db, "SELECT run_s FROM job WHERE id = 2") == 100.0);
	assert_true(q_real(db, "SELECT walltime_s FROM job WHERE id = 2") == 3600.0);
	/* job 0: no walltime */
	assert_true(q_null(db, "SELECT walltime_s FROM job WHERE id = 0"));
	assert_true(q_null(db, "SELECT walltime_us FROM job WHERE id = 0"));
	q_text_eq(db, "SELECT node_list FROM job WHERE id = 0", "r1-n3");
	/* job 4: killed before it started */
	assert_true(q_null(db, "SELECT start_us FROM job WHERE id = 4"));
	assert_true(q_null(db, "SELECT wait_s FROM job WHERE id = 4"));
	assert_true(q_null(db, "SELECT run_s FROM job WHERE id = 4"));
	assert_true(q_null(db, "SELECT node_list FROM job WHERE id = 4"));
	q_text_eq(db, "SELECT state FROM job WHERE id = 4", "killed");
	assert_true(q_real(db, "SELECT end_s FROM job WHERE id = 4") == 50.0);
	/* events: in call order, seq from 1 */
	assert_int_equal(q_int(db, "SELECT count(*) FROM event"), 9);
	assert_int_equal(q_int(db, "SELECT min(seq) FROM event"), 1);
	char want[64];
	snprintf(want, sizeof want, "%s", rec_kind_name(REC_START));
	q_text_eq(db, "SELECT kind FROM event WHERE seq = 2", want);
	assert_int_equal(q_int(db, "SELECT node FROM event WHERE seq = 2"), 0);
	q_text_eq(db, "SELECT state FROM event WHERE seq = 3", "done");
	assert_true(q_null(db, "SELECT job FROM event WHERE seq = 9"));
	assert_true(q_null(db, "SELECT state FROM event WHERE seq = 9"));
	q_text_eq(db, "SELECT detail FROM event WHERE seq = 9", "rack r1 over cap");
	assert_int_equal(q_int(db, "SELECT t_us FROM event WHERE seq = 9"), S(5));
	assert_int_equal(q_int(db, "SELECT count(*) FROM sample"), 0);
	/* nodes, without racks or types in this hand-built cluster */
	assert_int_equal(q_int(db, "SELECT count(*) FROM node"), 8);
	q_text_eq(db, "SELECT name FROM node WHERE id = 5", "gpu01");
	assert_true(q_null(db, "SELECT rack FROM node WHERE id = 5"));
	q_text_eq(db, "SELECT n.name FROM event e JOIN node n ON n.id = e.node WHERE e.seq = 9", "r1-n7");
	sqlite3_close(db);
	unlink(path);
	free(tmp);
	free(path);
}

static void test_node_list(void **state)
{
	(void)state;
	char *path = tu_tmpath(".db");
	struct fixture fx;
	fx_init(&fx);
	/* r1-n3 r1-n4 r1-n5 r1-n7 r2-n0 gpu01 gpu02 login r1-n5 */
	struct job *j = fx_job(&fx, 0, 0, 1, 2, JOB_TRAINING, JOB_DONE, 9, 0, 1, 0x3u, 1, 1, 0u,
	                       2, 1, 0u, 3, 1, 0u, 4, 1, 0x1u, 5, 1, 0u, 6, 1, 0u, 7, 1, 0u,
	                       2, 1, 0u);
	char err[512];
	struct recorder *r = recorder_open(path, err, sizeof err);
	assert_non_null(r);
	recorder_attach(r, &fx.s);
	fx.s.rec.job_end(fx.s.rec.ctx, &fx.s, j);
	assert_int_equal(recorder_finish(r, &run_info_fx, 0, 0, 0, err, sizeof err), 0);
	sqlite3 *db = db_open(path);
	q_text_eq(db, "SELECT node_list FROM job", "r1-n[3-5,7],r2-n0,gpu01,gpu02,login,r1-n5");
	assert_int_equal(q_int(db, "SELECT gpus FROM job"), 3);
	assert_int_equal(q_int(db, "SELECT nodes FROM job"), 9);
	sqlite3_close(db);
	unlink(path);
	free(path);
}

static void test_unfinished(void **state)
{
	(void)state;
	char *path = tu_tmpath(".db");
	struct fixture fx;
	fx_init(&fx);
	fx_job(&fx, 0, 0, 0, 10, JOB_BATCH, JOB_DONE, 1, 0, 1, 0u);
	fx_job(&fx, 1, 5, 20, -1, JOB_BATCH, JOB_RUNNING, 1, 1, 2, 0u);
	fx_job(&fx, 2, 6, -1, -1, JOB_BATCH, JOB_PENDING, 0);
	fx_job(&fx, 3, 99, -1, -1, JOB_BATCH, JOB_PENDING, 0);   /* not yet submitted */
	fx.s.now = S(30);
	char err[512];
	struct recorder *r = recorder_open(path, err, sizeof err);
	assert_non_null(r);
	recorder_attach(r, &fx.s);
	fx_play(&fx, &fx.jobs[0]);
	/* What sim_run does at the horizon: the submitted, unfinished jobs. */
	for (int i = 1; i <= 2; i++)
		fx.s.rec.job_end(fx.s.rec.ctx, &fx.s, &fx.jobs[i]);
	assert_int_equal(recorder_finish(r, &run_info_fx, 0, 0, 0, err, sizeof err), 0);
	sqlite3 *db = db_open(path);
	char *d = q_dump(db, "SELECT id, state, start_us, end_us, cores, node_list FROM job ORDER BY id");
	assert_string_equal(d, "0|done|0|10000000|1|r1-n3|\n"
	                       "1|running|20000000|NULL|2|r1-n4|\n"
	                       "2|pending|NULL|NULL|0|NULL|\n");
	free(d);
	assert_int_equal(q_int(db, "SELECT jobs FROM run"), 3);
	sqlite3_close(db);
	unlink(path);
	free(path);
}

static void test_deterministic(void **state)
{
	(void)state;
	char *a = tu_tmpath(".db"), *b = tu_tmpath(".db");
	write_standard(a);
	/* The second time each job's parts are overwritten after its hook: job
	 * rows go into the file in id order, and one held back (it ended before
	 * one of a lower id) keeps the allocation the engine gave back. */
	write_standard_as(b, true);
	sqlite3 *da = db_open(a), *dbb = db_open(b);
	static const char *const q[] = {
		"SELECT * FROM job ORDER BY id", "SELECT * FROM event ORDER BY seq",
		"SELECT * FROM sample", "SELECT * FROM meta ORDER BY key",
	};
	for (int i = 0; i < 4; i++) {
		char *x = q_dump(da, q[i]), *y = q_dump(dbb, q[i]);
		assert_string_equal(x, y);
		free(x);
		free(y);
	}
	/* Written as the jobs ended (4, 1, 0, 2, 3), read back by id. */
	char *ids = q_dump(da, "SELECT id FROM job");
	assert_string_equal(ids, "0|\n1|\n2|\n3|\n4|\n");
	free(ids);
	sqlite3_close(da);
	sqlite3_close(dbb);
	unlink(a);
	unlink(b);
	free(a);
	free(b);
}

static void test_abort(void **state)
{
	(void)state;
	char *path = tu_tmpath(".db");
	char *tmp = tmp_sibling(path);
	struct fixture fx;
	fx_standard(&fx);
	char err[512];
	struct recorder *r = recorder_open(path, err, sizeof err);
	assert_non_null(r);
	recorder_attach(r, &fx.s);
	for (int i = 0; i < 5; i++)
		fx_play(&fx, &fx.jobs[i]);
	assert_true(exists(tmp));
	recorder_abort(r);
	assert_false(exists(tmp));
	assert_false(exists(path));
	recorder_abort(NULL);
	free(tmp);
	free(path);
}

static void test_unwritable(void **state)
{
	(void)state;
	const char *path = "/nonexistent-hetlab-dir/sub/run.db";
	char err[512] = "";
	struct recorder *r = recorder_open(path, err, sizeof err);
	assert_null(r);
	assert_non_null(strstr(err, path));
	assert_false(exists(path));
}

/* PATH is a non-empty directory: the rename fails, nothing is left behind. */
static void test_rename_fails(void **state)
{
	(void)state;
	char *path = tu_tmpath(".d");
	char *tmp = tmp_sibling(path);
	assert_int_equal(mkdir(path, 0700), 0);
	char *inner = NULL;
	assert_true(asprintf(&inner, "%s/keep", path) > 0);
	fclose(fopen(inner, "w"));
	char err[512] = "";
	struct recorder *r = recorder_open(path, err, sizeof err);
	assert_non_null(r);
	assert_int_equal(recorder_finish(r, &run_info_fx, 0, 0, 0, err, sizeof err), -1);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "rename"));
	assert_false(exists(tmp));
	unlink(inner);
	rmdir(path);
	free(inner);
	free(tmp);
	free(path);
}

/* A write error at COMMIT (file size limit): finish fails with SQLite's
 * message and the file's name, and leaves no file. */
static void test_io_error(void **state)
{
	(void)state;
	char *path = tu_tmpath(".db");
	char *tmp = tmp_sibling(path);
	struct fixture fx;
	fx_standard(&fx);
	char err[512] = "";
	struct recorder *r = recorder_open(path, err, sizeof err);
	assert_non_null(r);
	recorder_attach(r, &fx.s);
	for (int i = 0; i < 20000; i++)
		fx.s.rec.event(fx.s.rec.ctx, i, REC_SUBMIT, i, -1, JOB_PENDING, "padding padding");
	struct rlimit old;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	struct rlimit small = { .rlim_cur = 16384, .rlim_max = old.rlim_max };
	void (*oldsig)(int) = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	int rc = recorder_finish(r, &run_info_fx, 0, 0, 0, err, sizeof err);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, oldsig);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, path));
	assert_false(exists(path));
	assert_false(exists(tmp));
	free(tmp);
	free(path);
}

/* ---- report ------------------------------------------------------------- */

static void test_percentile(void **state)
{
	(void)state;
	const double x[] = { 1, 2, 3, 4 };
	assert_true(isnan(report_percentile(x, 0, 0.5)));
	assert_true(report_percentile(x, 1, 0.99) == 1);
	assert_true(report_percentile(x, 4, 0.5) == 2.5);
	assert_true(report_percentile(x, 4, 0) == 1);
	assert_true(report_percentile(x, 4, 1) == 4);
	assert_true(fabs(report_percentile(x, 4, 0.95) - 3.85) < 1e-12);
}

static json_t *report_json(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char err[512];
	int rc = report_print(path, REPORT_JSON, f, err, sizeof err);
	fclose(f);
	if (rc != 0)
		fail_msg("report_print: %s", err);
	json_error_t je;
	json_t *root = json_loads(buf, 0, &je);
	if (!root)
		fail_msg("report JSON: %s at line %d", je.text, je.line);
	free(buf);
	return root;
}

/* The number at a path of object keys ("all.wait_s.p95"). */
static double jnum(json_t *root, const char *dotted)
{
	char key[128];
	snprintf(key, sizeof key, "%s", dotted);
	json_t *v = root;
	for (char *save = NULL, *k = strtok_r(key, ".", &save); k; k = strtok_r(NULL, ".", &save)) {
		v = json_object_get(v, k);
		if (!v)
			fail_msg("no %s in the report", dotted);
	}
	if (!json_is_number(v))
		fail_msg("%s is not a number", dotted);
	return json_number_value(v);
}

static void assert_near(json_t *root, const char *key, double want)
{
	double got = jnum(root, key);
	if (fabs(got - want) > 1e-9 * fmax(1.0, fabs(want)))
		fail_msg("%s: got %.12g, want %.12g", key, got, want);
}

static void test_report_numbers(void **state)
{
	(void)state;
	char *path = tu_tmpath(".db");
	write_standard(path);
	json_t *root = report_json(path);

	assert_near(root, "schema_version", RECORDER_SCHEMA_VERSION);
	assert_near(root, "run.seed", 42);
	assert_near(root, "run.jobs", 5);
	assert_near(root, "run.skipped_malformed", 3);
	assert_near(root, "states.done", 3);
	assert_near(root, "states.failed", 1);
	assert_near(root, "states.killed", 1);
	assert_near(root, "classes.training", 2);
	assert_near(root, "classes.batch", 3);
	/* classes in enum order: training before batch */
	assert_string_equal(json_object_iter_key(json_object_iter(json_object_get(root, "classes"))),
	                    "training");
	assert_near(root, "makespan_s", 200);
	/* core-seconds 4*100 + 2*5 + 6*100 + 1*70 = 1080 over 10 cores * 200 s */
	assert_near(root, "all.core_seconds", 1080);
	assert_near(root, "all.core_utilisation", 0.54);
	/* GPU-seconds 2*5 + 1*70 = 80 over 4 GPUs * 200 s */
	assert_near(root, "all.gpu_utilisation", 0.1);
	/* waits of started jobs: 0, 10, 40, 100 */
	assert_near(root, "all.started", 4);
	assert_near(root, "all.wait_s.n", 4);
	assert_near(root, "all.wait_s.mean", 37.5);
	assert_near(root, "all.wait_s.p50", 25);      /* h = 1.5 */
	assert_near(root, "all.wait_s.p95", 91);      /* h = 2.85: 40 + .85 * 60 */
	assert_near(root, "all.wait_s.p99", 98.2);
	assert_near(root, "all.wait_s.max", 100);
	/* JCTs of ended jobs: 10 (killed pending), 15, 100, 140, 170 */
	assert_near(root, "all.jct_s.mean", 87);
	assert_near(root, "all.jct_s.p50", 100);
	assert_near(root, "all.jct_s.p95", 164);      /* h = 3.8 */
	/* bsld: 100/100 = 1, 15/10 = 1.5, 140/100 = 1.4, 170/70 */
	assert_near(root, "all.bounded_slowdown", (1 + 1.5 + 1.4 + 170.0 / 70) / 4);
	/* per class */
	assert_near(root, "per_class.batch.jobs", 3);
	assert_near(root, "per_class.batch.wait_s.mean", 20);
	assert_near(root, "per_class.batch.jct_s.mean", 250.0 / 3);
	assert_near(root, "per_class.batch.bounded_slowdown", 1.2);
	assert_near(root, "per_class.batch.core_utilisation", 0.5);
	assert_near(root, "per_class.training.wait_s.p95", 95.5);
	assert_near(root, "per_class.training.bounded_slowdown", (1.5 + 170.0 / 70) / 2);
	assert_near(root, "per_class.training.core_utilisation", 0.04);
	assert_near(root, "per_class.training.gpu_utilisation", 0.1);
	/* samples */
	assert_near(root, "samples.rows", 2);
	assert_near(root, "samples.mean_pending", 2);
	assert_near(root, "samples.mean_running", 1.5);
	assert_near(root, "samples.mean_core_share", 0.55);
	assert_near(root, "samples.mean_gpu_share", 0.25);
	assert_near(root, "samples.mean_power_w", 200);
	json_decref(root);

	/* The text layout carries the same figures. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char err[512];
	assert_int_equal(report_print(path, REPORT_TEXT, f, err, sizeof err), 0);
	fclose(f);
	assert_non_null(strstr(buf, "cores 54.00 %, GPUs 10.00 %"));
	assert_non_null(strstr(buf, "done 3, failed 1, killed 1"));
	assert_non_null(strstr(buf, "training 2, batch 3"));
	assert_non_null(strstr(buf, "200.0 s (00:03:20)"));
	assert_non_null(strstr(buf, "37.5"));
	free(buf);
	unlink(path);
	free(path);
}

/* One class only: no per-class breakdown, but the class is listed. */
static void test_report_one_class(void **state)
{
	(void)state;
	char *path = tu_tmpath(".db");
	struct fixture fx;
	fx_init(&fx);
	fx_job(&fx, 0, 0, 5, 10, JOB_BATCH, JOB_DONE, 1, 0, 1, 0u);
	char err[512];
	struct recorder *r = recorder_open(path, err, sizeof err);
	assert_non_null(r);
	recorder_attach(r, &fx.s);
	fx_play(&fx, &fx.jobs[0]);
	struct run_info ri = run_info_fx;
	ri.total_gpus = 0;
	ri.seed = UINT64_MAX;
	assert_int_equal(recorder_finish(r, &ri, 0, 0, 0, err, sizeof err), 0);
	json_t *root = report_json(path);
	/* A seed past INT64_MAX survives as its digits. */
	assert_string_equal(json_string_value(json_object_get(json_object_get(root, "run"), "seed")),
	                    "18446744073709551615");
	assert_null(json_object_get(root, "per_class"));
	assert_null(json_object_get(root, "samples"));
	assert_null(json_object_get(json_object_get(root, "all"), "gpu_utilisation"));
	assert_near(root, "classes.batch", 1);
	/* wait 5, run 5: (5 + 5) / max(5, 10) = 1 */
	assert_near(root, "all.bounded_slowdown", 1);
	json_decref(root);
	unlink(path);
	free(path);
}

/* No job at all: every metric is undefined, and the report still prints. */
static void test_report_empty(void **state)
{
	(void)state;
	char *path = tu_tmpath(".db");
	char err[512];
	struct recorder *r = recorder_open(path, err, sizeof err);
	assert_non_null(r);
	assert_int_equal(recorder_finish(r, &run_info_fx, 0, 0, 0, err, sizeof err), 0);
	json_t *root = report_json(path);
	assert_true(json_is_null(json_object_get(root, "makespan_s")));
	json_t *all = json_object_get(root, "all");
	assert_true(json_is_null(json_object_get(all, "core_utilisation")));
	assert_true(json_is_null(json_object_get(json_object_get(all, "wait_s"), "p95")));
	assert_int_equal(json_object_size(json_object_get(root, "classes")), 0);
	json_decref(root);
	FILE *f = fopen("/dev/null", "w");
	assert_int_equal(report_print(path, REPORT_TEXT, f, err, sizeof err), 0);
	fclose(f);
	unlink(path);
	free(path);
}

static void expect_report_error(const char *path, const char *what)
{
	char err[512] = "";
	FILE *f = fopen("/dev/null", "w");
	assert_int_equal(report_print(path, REPORT_TEXT, f, err, sizeof err), -1);
	fclose(f);
	if (!strstr(err, path) || !strstr(err, what))
		fail_msg("error '%s' should name %s and say '%s'", err, path, what);
}

static void make_db(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s", sqlite3_errmsg(db));
	sqlite3_close(db);
}

static void test_report_errors(void **state)
{
	(void)state;
	char *text = tu_write_tmp(".db", "this is not a database, only some text that is long enough\n"
	                                 "to fill a header of a hundred bytes or so, and then some more.\n");
	expect_report_error(text, "not a database");
	unlink(text);
	free(text);

	char *missing = tu_tmpath(".db");
	expect_report_error(missing, "cannot open");
	assert_false(exists(missing));      /* read-only: never created */
	free(missing);

	char *empty = tu_tmpath(".db");
	make_db(empty, "CREATE TABLE meta(key TEXT, value TEXT);"
	               "INSERT INTO meta VALUES('schema_version', '1');");
	expect_report_error(empty, "no table 'run'");
	unlink(empty);
	free(empty);

	char *newer = tu_tmpath(".db");
	write_standard(newer);
	char sql[96], msg[64];
	snprintf(sql, sizeof sql, "UPDATE meta SET value = '%d' WHERE key = 'schema_version'",
	         RECORDER_SCHEMA_VERSION + 1);
	snprintf(msg, sizeof msg, "schema version %d is newer", RECORDER_SCHEMA_VERSION + 1);
	make_db(newer, sql);
	expect_report_error(newer, msg);
	unlink(newer);
	free(newer);
}

/* ---- the power model's columns ------------------------------------------ */

/* The standard run on two racks with the power model's state set by hand:
 * r1 = nodes 0-4 (air, cap 10 kW), r2 = nodes 5-7 (liquid, cap 20 kW);
 * every node of one type whose full power is its base, 1000 W. */
struct pw_fixture {
	struct fixture fx;
	struct node_type type;
	struct rack racks[2];
	struct power_state pw;
	struct node_power np[8];
	struct rack_power rp[2];
};

static void pw_fx_init(struct pw_fixture *p, bool power_on)
{
	memset(p, 0, sizeof *p);
	fx_standard(&p->fx);
	struct cluster *cl = &p->fx.s.cl;
	p->type = (struct node_type){ .name = "t", .gpu_model = -1, .cpu_model = -1, .base_w = 1000 };
	cl->types = &p->type;
	cl->ntypes = 1;
	p->racks[0] = (struct rack){ .name = "r1", .cap_w = 10000, .cooling = COOL_AIR, .first_node = 0, .nnodes = 5 };
	p->racks[1] = (struct rack){ .name = "r2", .cap_w = 20000, .cooling = COOL_LIQUID, .first_node = 5, .nnodes = 3 };
	cl->racks = p->racks;
	cl->nracks = 2;
	for (int i = 0; i < 8; i++) {
		p->fx.nodes[i].rack = i < 5 ? 0 : 1;
		p->fx.nodes[i].cooling = i < 5 ? COOL_AIR : COOL_LIQUID;
		p->fx.nodes[i].gpu_model = -1;
		p->fx.nodes[i].cpu_model = -1;
	}
	if (!power_on)
		return;
	struct power_state *pw = &p->pw;
	power_cfg_defaults(&pw->cfg);
	pw->cfg.enabled = true;
	/* Outside: 20 ± 5 °C, warmest at noon. PUE: air 1.2 + 0.05 per °C over
	 * 18 °C, liquid 1.1 flat. Liquid: inlet 30 °C, 40 °C rise at full power,
	 * τ 100 s. */
	pw->cfg.site.mean_c = 20;
	pw->cfg.site.amplitude_c = 5;
	pw->cfg.site.peak_hour = 12;
	pw->cfg.cool[COOL_AIR].pue_base = 1.2;
	pw->cfg.cool[COOL_AIR].pue_slope = 0.05;
	pw->cfg.cool[COOL_AIR].pue_knee_c = 18;
	pw->cfg.cool[COOL_LIQUID].pue_base = 1.1;
	pw->cfg.cool[COOL_LIQUID].pue_slope = 0;
	pw->cfg.cool[COOL_LIQUID].inlet_c = 30;
	pw->cfg.cool[COOL_LIQUID].rise_c = 40;
	pw->cfg.cool[COOL_LIQUID].tau_s = 100;
	pw->node = p->np;
	pw->rack = p->rp;
	cl->pw = pw;
	/* At 12 h: r1's nodes at 50 .. 90 °C as of now; r2's at 40 and 45 °C
	 * as of now, and node 7 at 30 °C 100 s ago, running at 500 W since. */
	static const double temp[8] = { 50, 60, 70, 80, 90, 40, 45, 30 };
	for (int i = 0; i < 8; i++) {
		p->np[i] = (struct node_power){ .power_w = i == 7 ? 500 : 800, .temp_c = temp[i],
		                                 .at = S(12 * 3600), .limit = 1,
		                                 .cooling = (uint8_t)cl->nodes[i].cooling,
		                                 .max_w = power_node_max_w(cl, i) };
	}
	p->np[7].at = S(12 * 3600 - 100);
	p->rp[0] = (struct rack_power){ .power_w = 4000, .cap_w = 8000, .throttle = 0.7,
	                                .flags = PW_RACK_WARN | PW_RACK_OVER, .peak_w = 9500,
	                                .energy_j = 3.6e7, .facility_j = 5.4e7, .cost = 4.5,
	                                .carbon_g = 6000, .warn_us = S(90), .over_us = S(30),
	                                .throttled_dev_s = 7200 };
	p->rp[1] = (struct rack_power){ .power_w = 6000, .cap_w = 20000, .throttle = 1,
	                                .peak_w = 7000, .energy_j = 3.6e7, .facility_j = 3.96e7,
	                                .cost = 3.5, .carbon_g = 4000 };
	pw->it_energy_j = 7.2e7;
	pw->facility_energy_j = 9.36e7;
	pw->idle_energy_j = 1.8e7;
	pw->cost = 8;
	pw->carbon_g = 10000;
	p->fx.jobs[0].energy_j = 3.6e6;
	p->fx.jobs[0].energy_cost = 0.25;
}

/* Plays the standard run into path with two samples, at 12 h and 18 h. */
static void pw_write(struct pw_fixture *p, const char *path)
{
	char err[512];
	struct recorder *r = recorder_open(path, err, sizeof err);
	assert_non_null(r);
	recorder_attach(r, &p->fx.s);
	for (int i = 0; i < 5; i++)
		fx_play(&p->fx, &p->fx.jobs[i]);
	double rack_w[2] = { 4000, 6000 };
	struct sim_sample a = { .t = S(12 * 3600), .cores_total = 10, .power_w = 10000,
	                        .rack_power_w = rack_w, .nracks = 2 };
	struct sim_sample b = a;
	b.t = S(18 * 3600);
	p->fx.s.rec.sample(p->fx.s.rec.ctx, &a);
	p->fx.s.rec.sample(p->fx.s.rec.ctx, &b);
	assert_int_equal(recorder_finish(r, &run_info_fx, 0, 0, 0, err, sizeof err), 0);
}

static void assert_real(sqlite3 *db, const char *sql, double want)
{
	double got = q_real(db, sql);
	if (fabs(got - want) > 1e-9 * fmax(1.0, fabs(want)))
		fail_msg("%s: got %.12g, want %.12g", sql, got, want);
}

static void test_power_columns(void **state)
{
	(void)state;
	char *path = tu_tmpath(".db");
	struct pw_fixture *p = calloc(1, sizeof *p);
	pw_fx_init(p, true);
	pw_write(p, path);
	sqlite3 *db = db_open(path);
	/* 12 h: outside 20 + 5 cos 0 = 25 °C; PUE air 1.2 + 0.05 × 7 = 1.55,
	 * liquid 1.1: facility 4000 × 1.55 + 6000 × 1.1 = 12800 W. 18 h:
	 * 20 + 5 cos(π/2) = 20 °C; air 1.3: 5200 + 6600 = 11800 W. */
	assert_real(db, "SELECT outside_c FROM sample WHERE t_us = 43200000000", 25);
	assert_real(db, "SELECT facility_w FROM sample WHERE t_us = 43200000000", 12800);
	assert_real(db, "SELECT outside_c FROM sample WHERE t_us = 64800000000", 20);
	assert_real(db, "SELECT facility_w FROM sample WHERE t_us = 64800000000", 11800);
	/* r1 at 12 h: temperatures 50 60 70 80 90: p50 70, p95 (h = 3.8) 88. */
	char *d = q_dump(db, "SELECT rack, power_w, cap_w, warn, throttle, temp_p50, temp_p95,"
	                     " temp_max FROM rack_sample WHERE t_us = 43200000000 AND rack = 0");
	assert_string_equal(d, "0|4000.0|8000.0|1|0.7|70.0|88.0|90.0|\n");
	free(d);
	/* r2: node 7 heads for 30 + 40 × 500 / 1000 = 50 °C from 30 °C, τ 100 s:
	 * 50 − 20 / e after 100 s; sorted 40, 42.64, 45. */
	double t7 = 50 - 20 * exp(-1);
	assert_real(db, "SELECT temp_p50 FROM rack_sample WHERE t_us = 43200000000 AND rack = 1", t7);
	assert_real(db, "SELECT temp_p95 FROM rack_sample WHERE t_us = 43200000000 AND rack = 1",
	            t7 + 0.9 * (45 - t7));
	assert_real(db, "SELECT temp_max FROM rack_sample WHERE t_us = 43200000000 AND rack = 1", 45);
	assert_int_equal(q_int(db, "SELECT warn FROM rack_sample WHERE rack = 1 LIMIT 1"), 0);
	/* 6 h (216 τ) later every node has settled: nodes 5 and 6 at
	 * 30 + 40 × 0.8 = 62 °C, node 7 at 50 °C. Air: inlet 25 °C, rise 58 °C:
	 * r1's nodes at 25 + 58 × 0.8 = 71.4 °C (the default τ 300 s: 72 τ). */
	assert_real(db, "SELECT temp_max FROM rack_sample WHERE t_us = 64800000000 AND rack = 1", 62);
	assert_real(db, "SELECT temp_p50 FROM rack_sample WHERE t_us = 64800000000 AND rack = 1", 62);
	assert_real(db, "SELECT temp_max FROM rack_sample WHERE t_us = 64800000000 AND rack = 0", 71.4);
	/* rack totals at finish */
	d = q_dump(db, "SELECT name, cap_w, peak_w, warn_s, over_s, throttled_gpu_h, energy_kwh,"
	               " facility_kwh, cost FROM rack ORDER BY id");
	assert_string_equal(d, "r1|10000.0|9500.0|90.0|30.0|2.0|10.0|15.0|4.5|\n"
	                       "r2|20000.0|7000.0|0.0|0.0|0.0|10.0|11.0|3.5|\n");
	free(d);
	d = q_dump(db, "SELECT it_energy_kwh, facility_energy_kwh, idle_energy_kwh, energy_cost,"
	               " carbon_kg FROM run");
	assert_string_equal(d, "20.0|26.0|5.0|8.0|10.0|\n");
	free(d);
	d = q_dump(db, "SELECT id, energy_j, energy_cost FROM job WHERE id < 2 ORDER BY id");
	assert_string_equal(d, "0|3600000.0|0.25|\n1|0.0|0.0|\n");
	free(d);
	sqlite3_close(db);
	/* The report reads them back: PUE 26 / 20. */
	json_t *root = report_json(path);
	assert_near(root, "power.pue", 1.3);
	assert_near(root, "power.racks.r1.peak_cap_share", 0.95);
	assert_near(root, "power.racks.r2.temp_max_c", 62);
	json_decref(root);
	unlink(path);

	/* A site that tracks no carbon: carbon_kg is NULL. */
	pw_fx_init(p, true);
	memset(p->pw.cfg.site.carbon_g_kwh, 0, sizeof p->pw.cfg.site.carbon_g_kwh);
	pw_write(p, path);
	db = db_open(path);
	assert_true(q_null(db, "SELECT carbon_kg FROM run"));
	assert_false(q_null(db, "SELECT energy_cost FROM run"));
	sqlite3_close(db);
	unlink(path);

	/* Without the power model: the same tables, every new column NULL. */
	pw_fx_init(p, false);
	pw_write(p, path);
	db = db_open(path);
	assert_int_equal(q_int(db, "SELECT count(*) FROM rack_sample"), 4);
	assert_int_equal(q_int(db, "SELECT count(*) FROM rack_sample WHERE cap_w IS NULL AND warn IS NULL"
	                           " AND throttle IS NULL AND temp_p50 IS NULL AND temp_p95 IS NULL"
	                           " AND temp_max IS NULL"), 4);
	assert_int_equal(q_int(db, "SELECT count(*) FROM sample WHERE facility_w IS NULL"
	                           " AND outside_c IS NULL"), 2);
	assert_int_equal(q_int(db, "SELECT count(*) FROM job WHERE energy_j IS NULL"
	                           " AND energy_cost IS NULL"), 5);
	assert_int_equal(q_int(db, "SELECT count(*) FROM rack WHERE peak_w IS NULL AND warn_s IS NULL"
	                           " AND over_s IS NULL AND throttled_gpu_h IS NULL AND energy_kwh IS NULL"
	                           " AND facility_kwh IS NULL AND cost IS NULL"), 2);
	assert_int_equal(q_int(db, "SELECT count(*) FROM run WHERE it_energy_kwh IS NULL AND"
	                           " facility_energy_kwh IS NULL AND idle_energy_kwh IS NULL AND"
	                           " energy_cost IS NULL AND carbon_kg IS NULL"), 1);
	sqlite3_close(db);
	root = report_json(path);
	assert_null(json_object_get(root, "power"));
	json_decref(root);
	unlink(path);
	free(p);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_node_list),
		cmocka_unit_test(test_unfinished),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_abort),
		cmocka_unit_test(test_unwritable),
		cmocka_unit_test(test_rename_fails),
		cmocka_unit_test(test_io_error),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_report_numbers),
		cmocka_unit_test(test_report_one_class),
		cmocka_unit_test(test_report_empty),
		cmocka_unit_test(test_report_errors),
		cmocka_unit_test(test_power_columns),
	};
	return cmocka_run_group_tests_name("recorder", tests, NULL, NULL);
}
