/* Tests of analysis/audit: a results file written by a real (tiny) run
 * through the recorder holds a hash chain that verifies; editing any field
 * of a row, deleting a row, swapping two rows' seq, inserting a forged row,
 * cutting the tail or altering an anchor is each found at the right seq;
 * prune + archive + verify round trips (one and two prunes, the archives
 * with the database as one chain); a retention under 183 days is refused;
 * export writes every record. The hash is also recomputed here from the
 * byte layout of docs/audit.md, independently of audit.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/evp.h>
#include <sqlite3.h>
#include <zlib.h>

#include "analysis/audit.h"
#include "analysis/recorder.h"
#include "policies/policy.h"
#include "sim/engine.h"
#include "tests/testutil.h"
#include "traces/scenario.h"

#define NJOBS 81                 /* one every 5 days: 400 days of records */
#define HELD_JOB 2

static const char scenario_text[] =
	"{ \"name\": \"audit\", \"sample_interval_s\": 86400,\n"
	"  \"node_types\": [ { \"name\": \"g\", \"gpu\": \"A100-SXM-80GB\", \"gpus\": 1, \"cores\": 4, \"mem_gib\": 64 } ],\n"
	"  \"racks\": [ { \"name\": \"r\", \"power_kw\": 20, \"nodes\": [ { \"type\": \"g\", \"count\": 1 } ] } ],\n"
	"  \"workload\": { \"trace\": \"none.jsonl\" } }\n";

/* First fit; holds HELD_JOB at its first pass and releases it at the next. */
struct tpol {
	struct alloc_part parts[16];
	bool held;
};

static void tpol_schedule(void *state, const struct view *v, struct decide *out)
{
	struct tpol *p = state;
	if (p->held && v->jobs[HELD_JOB].state == JOB_HELD && decide_release(out, HELD_JOB))
		return;
	for (int32_t i = 0; i < v->npending; i++) {
		const struct job *j = &v->jobs[v->pending[i]];
		if (j->state != JOB_PENDING)
			continue;
		if (j->id == HELD_JOB && !p->held) {
			p->held = true;
			if (decide_hold(out, j->id, "held for the test"))
				return;
			continue;
		}
		int n = place_first_fit(v->cl, v->cl->free, &j->req, p->parts);
		if (n > 0 && decide_start(out, j->id, p->parts, n))
			return;
	}
}

static char *base_db;            /* the run's results file, written once */
static int64_t base_records;     /* its audit records */

static void fail_err(const char *what, const char *err)
{
	fail_msg("%s: %s", what, err);
}

static int write_run(void **state)
{
	(void)state;
	char err[1024];
	char *path = tu_write_tmp(".json", scenario_text);
	struct scenario sc;
	if (scenario_load(path, &sc, err, sizeof err))
		fail_err("scenario", err);
	unlink(path);
	free(path);
	struct job *jobs = calloc(NJOBS, sizeof *jobs);
	struct job_truth *truth = calloc(NJOBS, sizeof *truth);
	for (int i = 0; i < NJOBS; i++) {
		job_init(&jobs[i], i, (simtime)i * 5 * SIMTIME_DAY);
		jobs[i].trace_id = 1000 + i;
		jobs[i].req = (struct job_req){ .nodes = 1, .gpus = 1, .cores = 1 };
		truth[i].run_us = SIMTIME_HOUR;
	}
	struct sim s;
	struct sim_cfg cfg = { .horizon_us = SIMTIME_INF, .sample_every_us = SIMTIME_DAY };
	assert_int_equal(sim_init(&s, &cfg, &sc.cl, jobs, truth, NJOBS), 0);
	struct tpol pol = { .held = false };
	struct sim_sched sched = { .name = "test-audit", .state = &pol, .schedule = tpol_schedule };
	sim_set_sched(&s, &sched);
	base_db = tu_tmpath(".db");
	struct recorder *r = recorder_open(base_db, err, sizeof err);
	if (!r)
		fail_err("recorder_open", err);
	recorder_attach(r, &s);
	if (sim_run(&s))
		fail_err("sim_run", s.err);
	struct run_info ri = { .scenario = "audit", .policy = "test-audit", .nnodes = 1 };
	if (recorder_finish(r, &ri, 0, s.nevents, s.npasses, err, sizeof err))
		fail_err("recorder_finish", err);
	sim_fini(&s);
	scenario_free(&sc);
	return 0;
}

static int remove_run(void **state)
{
	(void)state;
	unlink(base_db);
	free(base_db);
	return 0;
}

/* ---- helpers -------------------------------------------------------------- */

static char *copy_file(const char *src)
{
	char *dst = tu_tmpath(".db");
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	assert_non_null(in);
	assert_non_null(out);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
	return dst;
}

static char *copy_db(void)
{
	return copy_file(base_db);
}

static void sql(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sql(const char *path, const char *fmt, ...)
{
	char text[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	char *msg = NULL;
	if (sqlite3_exec(db, text, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", text, msg);
	sqlite3_close(db);
}

static int64_t sql_int(const char *path, const char *query)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, query, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static void sql_text(const char *path, const char *query, char *out, size_t len)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, query, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
}

static struct audit_verdict verify(const char *db, const char *const *archives, int n)
{
	struct audit_verdict v;
	char err[1024] = "";
	if (audit_verify(db, archives, n, &v, err, sizeof err) < 0)
		fail_err("audit_verify", err);
	return v;
}

static void expect_break(const char *db, enum audit_break what, int64_t seq)
{
	struct audit_verdict v = verify(db, NULL, 0);
	if (v.what != what || v.seq != seq)
		fail_msg("expected %s at seq %lld, got %s at seq %lld: %s", audit_break_name(what),
		         (long long)seq, audit_break_name(v.what), (long long)v.seq, v.detail);
}

/* ---- the chain as written -------------------------------------------------- */

static void test_verify_ok(void **state)
{
	(void)state;
	struct audit_verdict v = verify(base_db, NULL, 0);
	assert_int_equal(v.what, AUDIT_OK);
	base_records = v.count;
	/* Every event but the samples, in the same order. */
	assert_int_equal(v.count, sql_int(base_db, "SELECT count(*) FROM event WHERE kind <> 'sample'"));
	assert_true(v.count >= 3 * NJOBS + 2);
	assert_int_equal(v.first_seq, 1);
	assert_int_equal(v.last_seq, v.count);
	assert_int_equal(v.from_anchor, 0);
	char head[128];
	sql_text(base_db, "SELECT hash FROM audit ORDER BY seq DESC LIMIT 1", head, sizeof head);
	assert_string_equal(v.head, head);
	assert_int_equal(sql_int(base_db, "SELECT count(*) FROM audit a JOIN event e USING (seq)"
	                         " WHERE a.action <> e.kind OR a.t_us <> e.t_us"), 0);
}

static void test_actors_and_subjects(void **state)
{
	(void)state;
	char s[256];
	sql_text(base_db, "SELECT group_concat(DISTINCT actor) FROM audit WHERE action IN ('start', 'hold')", s, sizeof s);
	assert_string_equal(s, "test-audit");
	sql_text(base_db, "SELECT group_concat(DISTINCT actor) FROM audit WHERE action IN ('submit', 'end')", s, sizeof s);
	assert_string_equal(s, "engine");
	sql_text(base_db, "SELECT actor || '|' || subject || '|' || reason FROM audit WHERE action = 'release'", s, sizeof s);
	assert_string_equal(s, "test-audit|job 1002|released");
	sql_text(base_db, "SELECT subject || '|' || reason FROM audit WHERE action = 'hold'", s, sizeof s);
	assert_string_equal(s, "job 1002|held for the test");
	assert_int_equal(sql_int(base_db, "SELECT count(*) FROM audit WHERE action = 'sample'"), 0);
	assert_int_equal(sql_int(base_db, "SELECT count(*) FROM audit WHERE subject = 'job 1080'"), 3);
}

/* Field encoding of docs/audit.md: type byte, u32 big-endian length, bytes. */
static size_t put_text(unsigned char *o, const char *s)
{
	if (!s) {
		memcpy(o, "N\0\0\0\0", 5);
		return 5;
	}
	size_t n = strlen(s);
	o[0] = 'T';
	o[1] = (unsigned char)(n >> 24);
	o[2] = (unsigned char)(n >> 16);
	o[3] = (unsigned char)(n >> 8);
	o[4] = (unsigned char)n;
	memcpy(o + 5, s, n);
	return 5 + n;
}

static size_t put_i64(unsigned char *o, int64_t v)
{
	memcpy(o, "I\0\0\0\x08", 5);
	for (int i = 0; i < 8; i++)
		o[5 + i] = (unsigned char)((uint64_t)v >> (56 - 8 * i));
	return 13;
}

/* The documented layout, hashed here byte by byte, matches audit_hash and
 * every stored row. */
static void test_hash_layout(void **state)
{
	(void)state;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open(base_db, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT seq, t_us, actor, action, subject, reason,"
	                                    " prev_hash, hash FROM audit ORDER BY seq", -1, &st, NULL), SQLITE_OK);
	int n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *f[6];
		for (int i = 0; i < 6; i++)
			f[i] = (const char *)sqlite3_column_text(st, 2 + i);
		unsigned char buf[2048];
		size_t len = 0;
		memcpy(buf, "hetlab-audit-v1", 16);   /* the tag and its NUL */
		len += 16;
		len += put_i64(buf + len, sqlite3_column_int64(st, 0));
		len += put_i64(buf + len, sqlite3_column_int64(st, 1));
		for (int i = 0; i < 5; i++)
			len += put_text(buf + len, f[i]);
		unsigned char md[32];
		unsigned int mdlen = 0;
		assert_int_equal(EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL), 1);
		char hex[65];
		for (int i = 0; i < 32; i++)
			snprintf(hex + 2 * i, 3, "%02x", md[i]);
		assert_string_equal(hex, f[5]);
		struct audit_rec rec = { sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
		                         f[0], f[1], f[2], f[3], f[4] };
		char viaapi[AUDIT_HASH_HEX + 1];
		assert_int_equal(audit_hash(&rec, viaapi), 0);
		assert_string_equal(viaapi, f[5]);
		n++;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	assert_int_equal(n, base_records);
}

/* ---- tampering ------------------------------------------------------------ */

static void test_edit_each_field(void **state)
{
	(void)state;
	static const struct {
		const char *set;
		enum audit_break what;
	} edits[] = {
		{ "t_us = t_us + 1", AUDIT_HASH_MISMATCH },
		{ "actor = 'operator'", AUDIT_HASH_MISMATCH },
		{ "action = 'end'", AUDIT_HASH_MISMATCH },
		{ "subject = 'job 9999'", AUDIT_HASH_MISMATCH },
		{ "reason = 'x'", AUDIT_HASH_MISMATCH },
		{ "reason = NULL", AUDIT_HASH_MISMATCH },
		{ "prev_hash = hash", AUDIT_PREV_MISMATCH },
		{ "hash = prev_hash", AUDIT_HASH_MISMATCH },
		{ "hash = upper(hash)", AUDIT_HASH_MISMATCH },
		{ "t_us = t_us + 0.5", AUDIT_BAD_FIELD },
		{ "actor = NULL", AUDIT_BAD_FIELD },
	};
	/* The hold (reason set) and a submit (reason NULL) further on. */
	int64_t hold = sql_int(base_db, "SELECT seq FROM audit WHERE action = 'hold'");
	int64_t k[2] = { hold, 40 };
	for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++)
		for (int m = 0; m < 2; m++) {
			if (m == 1 && strcmp(edits[i].set, "reason = NULL") == 0)
				continue;   /* it is NULL already */
			char *db = copy_db();
			sql(db, "UPDATE audit SET %s WHERE seq = %lld", edits[i].set, (long long)k[m]);
			expect_break(db, edits[i].what, k[m]);
			unlink(db);
			free(db);
		}
}

static void test_delete_row(void **state)
{
	(void)state;
	char *db = copy_db();
	sql(db, "DELETE FROM audit WHERE seq = 17");
	expect_break(db, AUDIT_GAP, 17);
	unlink(db);
	free(db);
	/* The first record: the chain must start at 1. */
	db = copy_db();
	sql(db, "DELETE FROM audit WHERE seq = 1");
	expect_break(db, AUDIT_GAP, 1);
	unlink(db);
	free(db);
}

/* Cutting the tail leaves a valid chain: only the sealed head shows it. */
static void test_delete_tail(void **state)
{
	(void)state;
	char *db = copy_db();
	sql(db, "DELETE FROM audit WHERE seq > %lld", (long long)base_records - 3);
	expect_break(db, AUDIT_BAD_HEAD, base_records - 2);
	unlink(db);
	free(db);
}

static void test_swap_rows(void **state)
{
	(void)state;
	char *db = copy_db();
	sql(db, "UPDATE audit SET seq = -1 WHERE seq = 20; UPDATE audit SET seq = 20 WHERE seq = 25;"
	        " UPDATE audit SET seq = 25 WHERE seq = -1");
	expect_break(db, AUDIT_PREV_MISMATCH, 20);
	unlink(db);
	free(db);
	/* Neighbours. */
	db = copy_db();
	sql(db, "UPDATE audit SET seq = -1 WHERE seq = 30; UPDATE audit SET seq = 30 WHERE seq = 31;"
	        " UPDATE audit SET seq = 31 WHERE seq = -1");
	expect_break(db, AUDIT_PREV_MISMATCH, 30);
	unlink(db);
	free(db);
}

static void test_insert_forged(void **state)
{
	(void)state;
	char last[128];
	sql_text(base_db, "SELECT hash FROM audit ORDER BY seq DESC LIMIT 1", last, sizeof last);
	/* Appended with a correct hash, chained to the last record: only the
	 * sealed head tells. */
	struct audit_rec rec = { base_records + 1, 500 * SIMTIME_DAY, "operator", "release",
	                         "job 1001", "approved", last };
	char hash[AUDIT_HASH_HEX + 1];
	assert_int_equal(audit_hash(&rec, hash), 0);
	char *db = copy_db();
	sql(db, "INSERT INTO audit VALUES(%lld, %lld, 'operator', 'release', 'job 1001', 'approved', '%s', '%s')",
	    (long long)rec.seq, (long long)rec.t_us, last, hash);
	expect_break(db, AUDIT_BAD_HEAD, base_records + 1);
	unlink(db);
	free(db);
	/* Before the first record. */
	db = copy_db();
	sql(db, "INSERT INTO audit VALUES(0, 0, 'engine', 'submit', 'job 1', NULL, '%064d', '%064d')", 0, 0);
	expect_break(db, AUDIT_GAP, 0);
	unlink(db);
	free(db);
	/* In the place of a deleted one, with a forged hash. */
	db = copy_db();
	sql(db, "DELETE FROM audit WHERE seq = 12;"
	        " INSERT INTO audit SELECT 12, t_us, actor, action, 'job 4242', reason, prev_hash, hash"
	        " FROM audit WHERE seq = 11");
	expect_break(db, AUDIT_PREV_MISMATCH, 12);
	unlink(db);
	free(db);
}

static void test_not_an_audit_file(void **state)
{
	(void)state;
	char *db = tu_tmpath(".db");
	sql(db, "CREATE TABLE meta(key TEXT, value TEXT)");
	struct audit_verdict v;
	char err[1024] = "";
	assert_int_equal(audit_verify(db, NULL, 0, &v, err, sizeof err), -1);
	assert_non_null(strstr(err, db));
	assert_non_null(strstr(err, "audit"));
	unlink(db);
	free(db);
}

/* ---- retention ---------------------------------------------------------- */

static void test_prune_refuses_short_retention(void **state)
{
	(void)state;
	char *db = copy_db();
	char *arch = tu_tmpath(".jsonl.gz");
	struct audit_prune_opts o = { .days = 182.9, .archive = arch };
	struct audit_prune_result res;
	char err[1024] = "";
	assert_int_equal(audit_prune(db, &o, &res, err, sizeof err), -1);
	assert_non_null(strstr(err, "183"));
	assert_int_equal(access(arch, F_OK), -1);
	assert_int_equal(sql_int(db, "SELECT count(*) FROM audit"), base_records);
	unlink(db);
	free(db);
	free(arch);
}

static void test_prune_refuses_broken_chain(void **state)
{
	(void)state;
	char *db = copy_db();
	char *arch = tu_tmpath(".jsonl.gz");
	sql(db, "UPDATE audit SET reason = 'edited' WHERE seq = 5");
	struct audit_prune_opts o = { .days = 190, .archive = arch };
	struct audit_prune_result res;
	char err[1024] = "";
	assert_int_equal(audit_prune(db, &o, &res, err, sizeof err), -1);
	assert_non_null(strstr(err, "broken"));
	assert_non_null(strstr(err, "seq 5"));
	assert_int_equal(access(arch, F_OK), -1);
	unlink(db);
	free(db);
	free(arch);
}

static int64_t archive_lines(const char *path)
{
	gzFile gz = gzopen(path, "rb");
	assert_non_null(gz);
	char line[4096];
	int64_t n = 0;
	while (gzgets(gz, line, sizeof line)) {
		json_error_t je;
		json_t *o = json_loads(line, 0, &je);
		assert_true(json_is_object(o));
		assert_int_equal(json_object_size(o), 8);
		json_decref(o);
		n++;
	}
	gzclose(gz);
	return n;
}

static void test_prune_round_trip(void **state)
{
	(void)state;
	char *db = copy_db();
	char *arch = tu_tmpath(".jsonl.gz");
	struct audit_prune_opts o = { .days = AUDIT_DEFAULT_RETENTION_DAYS, .archive = arch };
	struct audit_prune_result res;
	char err[1024] = "";
	if (audit_prune(db, &o, &res, err, sizeof err))
		fail_err("audit_prune", err);
	assert_int_equal(res.anchor_id, 1);
	assert_int_equal(res.first_seq, 1);
	assert_true(res.count > 0 && res.count < base_records);
	assert_int_equal(res.last_seq, res.count);
	assert_int_equal(res.newest_us, 400 * SIMTIME_DAY + SIMTIME_HOUR);
	assert_int_equal(res.cut_us, res.newest_us - 190 * SIMTIME_DAY);
	/* Nothing younger than the cut went; everything older did. */
	assert_int_equal(sql_int(db, "SELECT min(seq) FROM audit"), res.last_seq + 1);
	char q[256];
	snprintf(q, sizeof q, "SELECT count(*) FROM audit WHERE t_us < %lld", (long long)res.cut_us);
	assert_int_equal(sql_int(db, q), 0);
	assert_int_equal(archive_lines(arch), res.count);

	struct audit_verdict v = verify(db, NULL, 0);
	assert_int_equal(v.what, AUDIT_OK);
	assert_int_equal(v.from_anchor, 1);
	assert_int_equal(v.nanchors, 1);
	assert_int_equal(v.count, base_records - res.count);
	assert_int_equal(v.first_seq, res.last_seq + 1);
	const char *archives[1] = { arch };
	v = verify(db, archives, 1);
	assert_int_equal(v.what, AUDIT_OK);
	assert_int_equal(v.count, base_records);
	assert_int_equal(v.narchived, res.count);
	assert_int_equal(v.first_seq, 1);
	assert_int_equal(v.from_anchor, 0);

	/* Again: nothing is older now. */
	char *arch2 = tu_tmpath(".jsonl.gz");
	o.archive = arch2;
	assert_int_equal(audit_prune(db, &o, &res, err, sizeof err), 0);
	assert_int_equal(res.count, 0);
	assert_int_equal(access(arch2, F_OK), -1);

	/* An archive is never overwritten. */
	char *db2 = copy_db();
	o.archive = arch;
	assert_int_equal(audit_prune(db2, &o, &res, err, sizeof err), -1);
	assert_non_null(strstr(err, "exists"));
	assert_int_equal(sql_int(db2, "SELECT count(*) FROM audit"), base_records);

	unlink(db2);
	free(db2);
	unlink(db);
	unlink(arch);
	free(db);
	free(arch);
	free(arch2);
}

/* Rewrites an archive with line `lineno` (1-based) passed through edit(). */
static void edit_archive(const char *path, int lineno, void (*edit)(json_t *))
{
	gzFile in = gzopen(path, "rb");
	assert_non_null(in);
	char *tmp = tu_tmpath(".jsonl");
	FILE *out = fopen(tmp, "w");
	assert_non_null(out);
	char line[4096];
	for (int n = 1; gzgets(in, line, sizeof line); n++) {
		if (n == lineno) {
			json_error_t je;
			json_t *o = json_loads(line, 0, &je);
			assert_non_null(o);
			edit(o);
			char *text = json_dumps(o, JSON_COMPACT);
			fprintf(out, "%s\n", text);
			free(text);
			json_decref(o);
		} else {
			fputs(line, out);
		}
	}
	gzclose(in);
	fclose(out);
	assert_int_equal(rename(tmp, path), 0);   /* a plain file reads as well */
	free(tmp);
}

static void edit_subject(json_t *o)
{
	json_object_set_new(o, "subject", json_string("job 31337"));
}

static void test_two_prunes_and_archives(void **state)
{
	(void)state;
	char *db = copy_db();
	char *a1 = tu_tmpath(".jsonl.gz"), *a2 = tu_tmpath(".jsonl.gz");
	struct audit_prune_opts o = { .days = 300, .archive = a1 };
	struct audit_prune_result r1, r2;
	char err[1024] = "";
	if (audit_prune(db, &o, &r1, err, sizeof err))
		fail_err("audit_prune 1", err);
	o.days = 190;
	o.archive = a2;
	if (audit_prune(db, &o, &r2, err, sizeof err))
		fail_err("audit_prune 2", err);
	assert_int_equal(r1.anchor_id, 1);
	assert_int_equal(r2.anchor_id, 2);
	assert_int_equal(r2.first_seq, r1.last_seq + 1);
	assert_true(r2.count > 0);

	struct audit_verdict v = verify(db, NULL, 0);
	assert_int_equal(v.what, AUDIT_OK);
	assert_int_equal(v.from_anchor, 2);
	assert_int_equal(v.nanchors, 2);
	const char *both[2] = { a1, a2 };
	v = verify(db, both, 2);
	assert_int_equal(v.what, AUDIT_OK);
	assert_int_equal(v.count, base_records);
	assert_int_equal(v.narchived, r1.count + r2.count);
	/* The second archive alone continues from the first anchor. */
	v = verify(db, both + 1, 1);
	assert_int_equal(v.what, AUDIT_OK);
	assert_int_equal(v.from_anchor, 1);
	assert_int_equal(v.first_seq, r1.last_seq + 1);
	/* The first alone leaves the second's records missing. */
	v = verify(db, both, 1);
	assert_int_equal(v.what, AUDIT_GAP);
	assert_int_equal(v.seq, r2.first_seq);
	assert_non_null(strstr(v.detail, a2));
	/* Out of order. */
	const char *swapped[2] = { a2, a1 };
	v = verify(db, swapped, 2);
	assert_int_not_equal(v.what, AUDIT_OK);

	/* An altered anchor. */
	char *db2 = copy_file(db);
	sql(db2, "UPDATE audit_anchor SET archive = 'elsewhere.jsonl.gz' WHERE id = 1");
	v = verify(db2, NULL, 0);
	assert_int_equal(v.what, AUDIT_BAD_ANCHOR);
	assert_int_equal(v.seq, r1.last_seq);
	sql(db2, "DELETE FROM audit_anchor WHERE id = 1");
	v = verify(db2, NULL, 0);
	assert_int_equal(v.what, AUDIT_BAD_ANCHOR);
	unlink(db2);
	free(db2);

	/* An edited archive record: found at its seq, in the archive. */
	edit_archive(a2, 3, edit_subject);
	v = verify(db, both, 2);
	assert_int_equal(v.what, AUDIT_HASH_MISMATCH);
	assert_int_equal(v.seq, r2.first_seq + 2);
	assert_non_null(strstr(v.source, a2));
	assert_non_null(strstr(v.source, "line 3"));

	unlink(db);
	unlink(a1);
	unlink(a2);
	free(db);
	free(a1);
	free(a2);
}

static void test_export(void **state)
{
	(void)state;
	char *out = tu_tmpath(".jsonl");
	int64_t n = 0;
	char err[1024] = "";
	if (audit_export(base_db, out, &n, err, sizeof err))
		fail_err("audit_export", err);
	assert_int_equal(n, base_records);
	assert_int_equal(archive_lines(out), base_records);
	FILE *f = fopen(out, "r");
	char line[4096];
	assert_non_null(fgets(line, sizeof line, f));
	fclose(f);
	json_error_t je;
	json_t *o = json_loads(line, 0, &je);
	assert_int_equal(json_integer_value(json_object_get(o, "seq")), 1);
	assert_string_equal(json_string_value(json_object_get(o, "action")), "submit");
	assert_true(json_is_null(json_object_get(o, "reason")));
	assert_string_equal(json_string_value(json_object_get(o, "prev_hash")),
	                    "0000000000000000000000000000000000000000000000000000000000000000");
	json_decref(o);
	unlink(out);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verify_ok),
		cmocka_unit_test(test_actors_and_subjects),
		cmocka_unit_test(test_hash_layout),
		cmocka_unit_test(test_edit_each_field),
		cmocka_unit_test(test_delete_row),
		cmocka_unit_test(test_delete_tail),
		cmocka_unit_test(test_swap_rows),
		cmocka_unit_test(test_insert_forged),
		cmocka_unit_test(test_not_an_audit_file),
		cmocka_unit_test(test_prune_refuses_short_retention),
		cmocka_unit_test(test_prune_refuses_broken_chain),
		cmocka_unit_test(test_prune_round_trip),
		cmocka_unit_test(test_two_prunes_and_archives),
		cmocka_unit_test(test_export),
	};
	return cmocka_run_group_tests(tests, write_run, remove_run);
}
