/* audit_fixture — what test_audit.c and test_audit_prune.c share: a tiny
 * run recorded unkeyed, with an HMAC key and with an Ed25519 key (81 jobs,
 * one every 5 days: 400 days of records, one job held and released), SQL
 * helpers, and an independent implementation of the hashes of
 * docs/audit.md ("The hashes, byte by byte"), used both to check the files
 * and to play an attacker who rewrites them. Static inline, so that each
 * test file takes what it uses. */
#ifndef HL_AUDIT_FIXTURE_H
#define HL_AUDIT_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sqlite3.h>
#include <zlib.h>

#include "analysis/audit.h"
#include "analysis/auditkey.h"
#include "analysis/recorder.h"
#include "policies/policy.h"
#include "sim/engine.h"
#include "tests/testutil.h"
#include "config/scenario.h"

#define NJOBS 81                 /* one every 5 days: 400 days of records */
#define HELD_JOB 2

enum { BASE_PLAIN, BASE_HMAC, BASE_ED25519, NBASE };

static char *base_db[NBASE];     /* the run's results files, written once */
static char *hmac_key, *ed_key, *ed_pub;
static int64_t base_records;     /* their records */

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

static inline void tpol_schedule(void *state, const struct view *v, struct decide *out)
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

static inline void fail_err(const char *what, const char *err)
{
	fail_msg("%s: %s", what, err);
}

static inline struct audit_key *load_key(const char *path)
{
	char err[1024];
	struct audit_key *k = audit_key_load(path, true, err, sizeof err);
	if (!k)
		fail_err("audit_key_load", err);
	return k;
}

/* The run, recorded at `level`, authenticated by the key file `key` (or not). */
static inline char *write_run_db(const char *key, enum record_level level)
{
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
	char *db = tu_tmpath(".db");
	struct audit_key *k = key ? load_key(key) : NULL;
	struct recorder_opts o = { .level = level, .key = k };
	struct recorder *r = recorder_open_with(db, &o, err, sizeof err);
	if (!r)
		fail_err("recorder_open", err);
	recorder_attach(r, &s);
	if (sim_run(&s))
		fail_err("sim_run", s.err);
	struct run_info ri = { .scenario = "audit", .policy = "test-audit", .nnodes = 1 };
	if (recorder_finish(r, &ri, 0, s.nevents, s.npasses, err, sizeof err))
		fail_err("recorder_finish", err);
	audit_key_free(k);
	sim_fini(&s);
	scenario_free(&sc);
	return db;
}

/* An Ed25519 key pair (PEM) and a 32-byte HMAC key, in temporary files. */
static inline void make_keys(void)
{
	hmac_key = tu_write_tmp(".key", "0123456789abcdef0123456789abcdef");
	assert_int_equal(chmod(hmac_key, 0600), 0);   /* a secret key others may read is refused */
	EVP_PKEY *pk = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	assert_non_null(pk);
	ed_key = tu_tmpath(".pem");
	ed_pub = tu_tmpath(".pub");
	FILE *f = fopen(ed_key, "w");
	assert_int_equal(PEM_write_PrivateKey(f, pk, NULL, NULL, 0, NULL, NULL), 1);
	fclose(f);
	assert_int_equal(chmod(ed_key, 0600), 0);
	f = fopen(ed_pub, "w");
	assert_int_equal(PEM_write_PUBKEY(f, pk), 1);
	fclose(f);
	EVP_PKEY_free(pk);
}

static inline int fixture_setup(void **state)
{
	(void)state;
	make_keys();
	base_db[BASE_PLAIN] = write_run_db(NULL, RECORD_EVENTS);
	base_db[BASE_HMAC] = write_run_db(hmac_key, RECORD_EVENTS);
	base_db[BASE_ED25519] = write_run_db(ed_key, RECORD_EVENTS);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open(base_db[BASE_PLAIN], &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM event", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	base_records = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return 0;
}

static inline int fixture_teardown(void **state)
{
	(void)state;
	for (int b = 0; b < NBASE; b++) {
		unlink(base_db[b]);
		free(base_db[b]);
	}
	const char *keys[] = { hmac_key, ed_key, ed_pub };
	for (int i = 0; i < 3; i++)
		unlink(keys[i]);
	free(hmac_key);
	free(ed_key);
	free(ed_pub);
	return 0;
}

/* ---- files and SQL ------------------------------------------------------------ */

static inline char *copy_file(const char *src)
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

static inline char *copy_db(int base)
{
	return copy_file(base_db[base]);
}

static inline void sql(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void sql(const char *path, const char *fmt, ...)
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

static inline int64_t sql_int(const char *path, const char *query)
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

static inline void sql_text(const char *path, const char *query, char *out, size_t len)
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

static inline struct audit_verdict verify_with(const char *db, const struct audit_key *key,
                                               const char *expect, const char *const *archives, int n)
{
	struct audit_verdict v;
	char err[1024] = "";
	struct audit_verify_opts o = { .archives = archives, .narchives = n, .key = key,
	                               .expect_head = expect };
	if (audit_verify_with(db, &o, &v, err, sizeof err) < 0)
		fail_err("audit_verify", err);
	return v;
}

static inline struct audit_verdict verify(const char *db, const char *const *archives, int n)
{
	return verify_with(db, NULL, NULL, archives, n);
}

static inline void expect_break(const char *db, enum audit_break what, int64_t seq)
{
	struct audit_verdict v = verify(db, NULL, 0);
	if (v.what != what || v.seq != seq)
		fail_msg("expected %s at seq %lld, got %s at seq %lld: %s", audit_break_name(what),
		         (long long)seq, audit_break_name(v.what), (long long)v.seq, v.detail);
}

/* ---- docs/audit.md, byte by byte -------------------------------------------------- */

struct tb {
	unsigned char *p;
	size_t n, cap;
};

static inline struct tb *tb_new(void)
{
	struct tb *b = calloc(1, sizeof *b);
	b->cap = 1 << 16;
	b->p = malloc(b->cap);
	return b;
}

static inline void tb_free(struct tb *b)
{
	free(b->p);
	free(b);
}

static inline void tb_raw(struct tb *b, const void *p, size_t n)
{
	while (b->n + n > b->cap)
		b->p = realloc(b->p, b->cap *= 2);
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static inline void tb_tag(struct tb *b, const char *tag)
{
	tb_raw(b, tag, strlen(tag) + 1);
}

/* A type byte and 8 bytes big-endian. */
static inline void tb_u64(struct tb *b, char type, uint64_t u)
{
	unsigned char o[9] = { (unsigned char)type };
	for (int i = 0; i < 8; i++)
		o[1 + i] = (unsigned char)(u >> (56 - 8 * i));
	tb_raw(b, o, 9);
}

static inline void tb_int(struct tb *b, int64_t v)
{
	tb_u64(b, 'I', (uint64_t)v);
}

/* A type byte, a 4-byte big-endian length and the bytes. */
static inline void tb_bytes(struct tb *b, char type, const void *p, size_t n)
{
	unsigned char o[5] = { (unsigned char)type, (unsigned char)(n >> 24), (unsigned char)(n >> 16),
	                       (unsigned char)(n >> 8), (unsigned char)n };
	tb_raw(b, o, 5);
	tb_raw(b, p, n);
}

static inline void tb_blob(struct tb *b, const void *p, size_t n)
{
	tb_bytes(b, 'B', p, n);
}

static inline void tb_col(struct tb *b, sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		tb_int(b, sqlite3_column_int64(st, i));
		break;
	case SQLITE_FLOAT: {
		double d = sqlite3_column_double(st, i);
		uint64_t u;
		memcpy(&u, &d, 8);
		tb_u64(b, 'R', u);
		break;
	}
	case SQLITE_TEXT:
		tb_bytes(b, 'T', sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i));
		break;
	case SQLITE_BLOB:
		tb_bytes(b, 'B', sqlite3_column_blob(st, i), (size_t)sqlite3_column_bytes(st, i));
		break;
	default:
		tb_raw(b, "N", 1);
	}
}

static inline void tb_sha(const struct tb *b, uint8_t out[32])
{
	unsigned int n = 0;
	assert_int_equal(EVP_Digest(b->p, b->n, out, &n, EVP_sha256(), NULL), 1);
}

/* The digest of part `part` of table tbl: each row's digest (the row tag,
 * rowid, number of stored columns, the values), then the part's. */
static inline void seal_part_digest(sqlite3 *db, const char *tbl, int64_t part, uint8_t out[32])
{
	char q[2048] = "SELECT rowid";
	sqlite3_stmt *st = NULL;
	char pragma[128];
	snprintf(pragma, sizeof pragma, "PRAGMA table_info(%s)", tbl);
	assert_int_equal(sqlite3_prepare_v2(db, pragma, -1, &st, NULL), SQLITE_OK);
	int ncol = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(q + strlen(q), sizeof q - strlen(q), ", \"%s\"", sqlite3_column_text(st, 1));
		ncol++;
	}
	sqlite3_finalize(st);
	snprintf(q + strlen(q), sizeof q - strlen(q), " FROM %s WHERE rowid BETWEEN %lld AND %lld"
	         " ORDER BY rowid", tbl, (long long)(part * AUDIT_SEAL_ROWS),
	         (long long)(part * AUDIT_SEAL_ROWS + AUDIT_SEAL_ROWS - 1));
	assert_int_equal(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
	struct tb *p = tb_new(), *r = tb_new();
	tb_tag(p, "hetlab-audit-seal-v2");
	tb_bytes(p, 'T', tbl, strlen(tbl));
	tb_int(p, part);
	int64_t rows = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		r->n = 0;
		tb_tag(r, "hetlab-audit-row-v2");
		tb_int(r, sqlite3_column_int64(st, 0));
		tb_int(r, ncol);
		for (int i = 1; i <= ncol; i++)
			tb_col(r, st, i);
		uint8_t d[32];
		tb_sha(r, d);
		tb_blob(p, d, 32);
		rows++;
	}
	sqlite3_finalize(st);
	tb_int(p, rows);
	tb_sha(p, out);
	tb_free(p);
	tb_free(r);
}

/* The digest of the audit_seal rows, as the head holds it. */
static inline void seals_digest(sqlite3 *db, uint8_t out[32])
{
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT tbl, part, rows, digest FROM audit_seal ORDER BY"
	                                    " tbl, part", -1, &st, NULL), SQLITE_OK);
	struct tb *b = tb_new();
	tb_tag(b, "hetlab-audit-seals-v2");
	while (sqlite3_step(st) == SQLITE_ROW) {
		tb_bytes(b, 'T', sqlite3_column_text(st, 0), (size_t)sqlite3_column_bytes(st, 0));
		tb_int(b, sqlite3_column_int64(st, 1));
		tb_int(b, sqlite3_column_int64(st, 2));
		tb_blob(b, sqlite3_column_blob(st, 3), 32);
	}
	sqlite3_finalize(st);
	tb_sha(b, out);
	tb_free(b);
}

/* The head's hash from its stored fields. */
static inline void head_hash(sqlite3 *db, uint8_t out[32])
{
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT seq, chain, seals, level, key FROM audit_head",
	                                    -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	struct tb *b = tb_new();
	tb_tag(b, "hetlab-audit-head-v2");
	for (int i = 0; i < 5; i++)
		tb_col(b, st, i);
	sqlite3_finalize(st);
	tb_sha(b, out);
	tb_free(b);
}

/* The attacker: recomputes the seals' digest and the head's hash of a file. */
static inline void head_rehash(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	uint8_t d[32];
	seals_digest(db, d);
	assert_int_equal(sqlite3_prepare_v2(db, "UPDATE audit_head SET seals = ?", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_blob(st, 1, d, 32, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	head_hash(db, d);
	assert_int_equal(sqlite3_prepare_v2(db, "UPDATE audit_head SET hash = ?", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_blob(st, 1, d, 32, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* The attacker: recomputes the seal rows of one table. */
static inline void reseal(const char *path, const char *tbl)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL, *ins = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	char q[256];
	snprintf(q, sizeof q, "SELECT DISTINCT rowid / %d, count(*) FROM %s GROUP BY 1 ORDER BY 1",
	         AUDIT_SEAL_ROWS, tbl);
	assert_int_equal(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO audit_seal VALUES(?, ?, ?, ?)", -1, &ins,
	                                    NULL), SQLITE_OK);
	char del[128];
	snprintf(del, sizeof del, "DELETE FROM audit_seal WHERE tbl = '%s'", tbl);
	assert_int_equal(sqlite3_exec(db, del, NULL, NULL, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint8_t d[32];
		int64_t part = sqlite3_column_int64(st, 0);
		seal_part_digest(db, tbl, part, d);
		sqlite3_bind_text(ins, 1, tbl, -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 2, part);
		sqlite3_bind_int64(ins, 3, sqlite3_column_int64(st, 1));
		sqlite3_bind_blob(ins, 4, d, 32, SQLITE_STATIC);
		assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
		sqlite3_reset(ins);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
	sqlite3_close(db);
}

/* The attacker: recomputes an anchor's hash (with the head's hash). */
static inline void anchor_rehash(const char *path, int64_t id)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT a.id, a.seq, a.count, a.cut_us, a.archive,"
	                                    " a.created, a.prev_anchor, h.hash FROM audit_anchor a,"
	                                    " audit_head h WHERE a.id = ?", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, id);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	struct tb *b = tb_new();
	tb_tag(b, "hetlab-audit-anchor-v2");
	for (int i = 0; i < 8; i++)
		tb_col(b, st, i);
	sqlite3_finalize(st);
	uint8_t d[32];
	tb_sha(b, d);
	tb_free(b);
	assert_int_equal(sqlite3_prepare_v2(db, "UPDATE audit_anchor SET anchor_hash = ? WHERE id = ?",
	                                    -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_blob(st, 1, d, 32, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, id);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

#endif
