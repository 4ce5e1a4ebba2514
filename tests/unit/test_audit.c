/* Tests of analysis/audit: a results file written by a real (tiny) run
 * through the recorder holds an audit log that verifies, unkeyed, with an
 * HMAC key and with an Ed25519 key; the hashes are recomputed here from the
 * byte layout of docs/audit.md, independently of audit*.c, and the same
 * code plays the attacker who rewrites a file: every tampering class of the
 * hardening issue (an emptied or truncated chain with its head rewritten, an
 * edited job or run row, deleted events, a full recomputation without the
 * key, a stripped key, a wrong key, an expected head) is found, as are the
 * edits of one row (at its block), a deleted row (at its seq), swapped or
 * forged rows and every recording level. The prune, archive and export
 * tests are in test_audit_prune.c. */
#include "tests/unit/audit_fixture.h"

/* ---- the chain as written -------------------------------------------------- */

static void test_verify_ok(void **state)
{
	(void)state;
	struct audit_verdict v = verify(base_db[BASE_PLAIN], NULL, 0);
	assert_int_equal(v.what, AUDIT_OK);
	int64_t n = sql_int(base_db[BASE_PLAIN], "SELECT count(*) FROM event");
	assert_int_equal(v.count, n);
	assert_int_equal(v.count, base_records);
	assert_true(v.count >= 3 * NJOBS + 2);
	assert_int_equal(v.first_seq, 1);
	assert_int_equal(v.last_seq, v.count);
	assert_int_equal(v.from_anchor, 0);
	assert_int_equal(v.nmarks, (n + AUDIT_BLOCK - 1) / AUDIT_BLOCK);
	/* job, meta, node, rack, rack_sample (the GPU node draws power), run, sample */
	assert_int_equal(v.ntables, 7);
	assert_int_equal(v.sealed_rows, sql_int(base_db[BASE_PLAIN], "SELECT (SELECT count(*) FROM job)"
	                 " + (SELECT count(*) FROM meta) + (SELECT count(*) FROM node) + (SELECT count(*)"
	                 " FROM rack) + 1 + (SELECT count(*) FROM sample) + (SELECT count(*) FROM rack_sample)"));
	assert_string_equal(v.level, "events");
	assert_string_equal(v.key_id, "");
	char head[128];
	sql_text(base_db[BASE_PLAIN], "SELECT lower(hex(hash)) FROM audit_head", head, sizeof head);
	assert_string_equal(v.head, head);
	assert_int_equal(sql_int(base_db[BASE_PLAIN], "SELECT records FROM run"), n);
}

static void test_actors_and_subjects(void **state)
{
	(void)state;
	const char *db = base_db[BASE_PLAIN];
	char s[256];
	sql_text(db, "SELECT group_concat(DISTINCT actor) FROM audit WHERE action IN ('start', 'hold')", s, sizeof s);
	assert_string_equal(s, "test-audit");
	sql_text(db, "SELECT group_concat(DISTINCT actor) FROM audit WHERE action IN ('submit', 'end')", s, sizeof s);
	assert_string_equal(s, "engine");
	sql_text(db, "SELECT actor || '|' || subject || '|' || reason FROM audit WHERE action = 'release'", s, sizeof s);
	assert_string_equal(s, "test-audit|job 1002|released");
	sql_text(db, "SELECT subject || '|' || reason FROM audit WHERE action = 'hold'", s, sizeof s);
	assert_string_equal(s, "job 1002|held for the test");
	assert_int_equal(sql_int(db, "SELECT count(*) FROM audit WHERE subject = 'job 1080'"), 3);
	assert_int_equal(sql_int(db, "SELECT count(*) FROM audit"), base_records);
}

/* The documented layout, hashed here byte by byte, gives every stored
 * block digest, mark hash, seal and the head. */
static void test_hash_layout(void **state)
{
	(void)state;
	const char *path = base_db[BASE_PLAIN];
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_stmt *ev = NULL, *mk = NULL;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT seq, t_us, kind, job, node, state, detail"
	                                    " FROM event ORDER BY seq", -1, &ev, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT seq, t_us, digest, hash FROM audit_mark"
	                                    " ORDER BY seq", -1, &mk, NULL), SQLITE_OK);
	uint8_t prev[32] = { 0 };
	int64_t nrec = 0, nmark = 0, maxt = 0;
	struct tb *blk = tb_new();
	int64_t first = 1;
	while (sqlite3_step(ev) == SQLITE_ROW) {
		for (int i = 0; i < 7; i++)
			tb_col(blk, ev, i);
		nrec++;
		maxt = sqlite3_column_int64(ev, 1) > maxt ? sqlite3_column_int64(ev, 1) : maxt;
		if (nrec % AUDIT_BLOCK && nrec != base_records)
			continue;
		struct tb *b = tb_new();
		tb_tag(b, "hetlab-audit-block-v2");
		tb_int(b, first);
		tb_int(b, nrec - first + 1);
		tb_raw(b, blk->p, blk->n);
		uint8_t digest[32], hash[32];
		tb_sha(b, digest);
		tb_free(b);
		b = tb_new();
		tb_tag(b, "hetlab-audit-mark-v2");
		tb_blob(b, prev, 32);
		tb_int(b, nrec);
		tb_int(b, maxt);
		tb_blob(b, digest, 32);
		tb_sha(b, hash);
		tb_free(b);
		assert_int_equal(sqlite3_step(mk), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(mk, 0), nrec);
		assert_int_equal(sqlite3_column_int64(mk, 1), maxt);
		assert_memory_equal(sqlite3_column_blob(mk, 2), digest, 32);
		assert_memory_equal(sqlite3_column_blob(mk, 3), hash, 32);
		memcpy(prev, hash, 32);
		nmark++;
		blk->n = 0;
		first = nrec + 1;
	}
	assert_int_equal(sqlite3_step(mk), SQLITE_DONE);
	tb_free(blk);
	sqlite3_finalize(ev);
	sqlite3_finalize(mk);
	assert_int_equal(nrec, base_records);
	/* The seals of run and job, from the rows; then the seals' digest and
	 * the head, from the stored fields. */
	uint8_t want[32];
	sqlite3_stmt *st = NULL;
	for (int t = 0; t < 2; t++) {
		const char *tbl = t ? "job" : "run";
		int64_t parts = 0;
		assert_int_equal(sqlite3_prepare_v2(db, "SELECT part, digest FROM audit_seal WHERE tbl = ?"
		                                    " ORDER BY part", -1, &st, NULL), SQLITE_OK);
		sqlite3_bind_text(st, 1, tbl, -1, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW) {
			seal_part_digest(db, tbl, sqlite3_column_int64(st, 0), want);
			assert_memory_equal(sqlite3_column_blob(st, 1), want, 32);
			parts++;
		}
		sqlite3_finalize(st);
		assert_true(parts >= 1);
	}
	seals_digest(db, want);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT seals, chain FROM audit_head", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_memory_equal(sqlite3_column_blob(st, 0), want, 32);
	assert_memory_equal(sqlite3_column_blob(st, 1), prev, 32);
	sqlite3_finalize(st);
	head_hash(db, want);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT hash FROM audit_head", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_memory_equal(sqlite3_column_blob(st, 0), want, 32);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* ---- tampering with one row ------------------------------------------------ */

static int64_t block_first(int64_t seq)
{
	return (seq - 1) / AUDIT_BLOCK * AUDIT_BLOCK + 1;
}

static void test_edit_each_field(void **state)
{
	(void)state;
	static const struct {
		const char *set;
		enum audit_break what;
	} edits[] = {
		{ "t_us = t_us + 1", AUDIT_HASH_MISMATCH },
		{ "kind = 'end'", AUDIT_HASH_MISMATCH },
		{ "job = 79", AUDIT_HASH_MISMATCH },
		{ "node = 5", AUDIT_HASH_MISMATCH },
		{ "state = 'failed'", AUDIT_HASH_MISMATCH },
		{ "detail = 'x'", AUDIT_HASH_MISMATCH },
		{ "detail = NULL", AUDIT_HASH_MISMATCH },
		{ "t_us = t_us + 0.5", AUDIT_BAD_FIELD },
		{ "kind = x'656e64'", AUDIT_BAD_FIELD },
		{ "detail = x'00'", AUDIT_BAD_FIELD },
		{ "job = 'job 1'", AUDIT_BAD_FIELD },
	};
	/* The hold (detail set) and a submit (detail NULL, node NULL) further on. */
	int64_t hold = sql_int(base_db[BASE_PLAIN], "SELECT seq FROM event WHERE kind = 'hold'");
	int64_t k[2] = { hold, 100 };
	for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++)
		for (int m = 0; m < 2; m++) {
			if (m == 1 && strcmp(edits[i].set, "detail = NULL") == 0)
				continue;   /* it is NULL already */
			char *db = copy_db(BASE_PLAIN);
			sql(db, "UPDATE event SET %s WHERE seq = %lld", edits[i].set, (long long)k[m]);
			struct audit_verdict v = verify(db, NULL, 0);
			int64_t at = edits[i].what == AUDIT_BAD_FIELD ? k[m] : block_first(k[m]);
			if (v.what != edits[i].what || v.seq != at)
				fail_msg("%s at seq %lld: expected %s at %lld, got %s at %lld: %s", edits[i].set,
				         (long long)k[m], audit_break_name(edits[i].what), (long long)at,
				         audit_break_name(v.what), (long long)v.seq, v.detail);
			unlink(db);
			free(db);
		}
}

static void test_delete_row(void **state)
{
	(void)state;
	char *db = copy_db(BASE_PLAIN);
	sql(db, "DELETE FROM event WHERE seq = 17");
	expect_break(db, AUDIT_GAP, 17);
	unlink(db);
	free(db);
	db = copy_db(BASE_PLAIN);
	sql(db, "DELETE FROM event WHERE seq = 1");
	expect_break(db, AUDIT_GAP, 1);
	unlink(db);
	free(db);
}

/* Cutting the tail, or the last mark with it: the head shows it. */
static void test_delete_tail(void **state)
{
	(void)state;
	char *db = copy_db(BASE_PLAIN);
	sql(db, "DELETE FROM event WHERE seq > %lld", (long long)base_records - 3);
	expect_break(db, AUDIT_BAD_HEAD, base_records - 2);
	unlink(db);
	free(db);
	db = copy_db(BASE_PLAIN);
	sql(db, "DELETE FROM audit_mark WHERE seq = (SELECT max(seq) FROM audit_mark)");
	struct audit_verdict v = verify(db, NULL, 0);
	assert_int_equal(v.what, AUDIT_BAD_HEAD);
	unlink(db);
	free(db);
}

static void test_swap_rows(void **state)
{
	(void)state;
	static const int pairs[][2] = { { 20, 25 }, { 30, 31 } };
	for (int i = 0; i < 2; i++) {
		char *db = copy_db(BASE_PLAIN);
		sql(db, "UPDATE event SET seq = -1 WHERE seq = %d; UPDATE event SET seq = %d WHERE seq = %d;"
		        " UPDATE event SET seq = %d WHERE seq = -1", pairs[i][0], pairs[i][0], pairs[i][1],
		    pairs[i][1]);
		expect_break(db, AUDIT_HASH_MISMATCH, block_first(pairs[i][0]));
		unlink(db);
		free(db);
	}
}

static void test_insert_forged(void **state)
{
	(void)state;
	/* Appended after the last record: beyond the sealed chain. */
	char *db = copy_db(BASE_PLAIN);
	sql(db, "INSERT INTO event VALUES(%lld, %lld, 'release', 1, NULL, 'pending', 'approved')",
	    (long long)base_records + 1, (long long)(500 * SIMTIME_DAY));
	expect_break(db, AUDIT_BAD_HEAD, base_records + 1);
	unlink(db);
	free(db);
	/* Before the first record. */
	db = copy_db(BASE_PLAIN);
	sql(db, "INSERT INTO event VALUES(0, 0, 'submit', 1, NULL, 'pending', NULL)");
	expect_break(db, AUDIT_GAP, 0);
	unlink(db);
	free(db);
	/* In the place of a deleted one. */
	db = copy_db(BASE_PLAIN);
	sql(db, "DELETE FROM event WHERE seq = 12;"
	        " INSERT INTO event SELECT 12, t_us, kind, 42, node, state, detail FROM event WHERE seq = 11");
	expect_break(db, AUDIT_HASH_MISMATCH, 1);
	unlink(db);
	free(db);
	/* A mark altered. */
	db = copy_db(BASE_PLAIN);
	sql(db, "UPDATE audit_mark SET t_us = t_us - 1 WHERE seq = %d", 2 * AUDIT_BLOCK);
	expect_break(db, AUDIT_PREV_MISMATCH, AUDIT_BLOCK + 1);
	unlink(db);
	free(db);
}

/* ---- the tampering classes of the hardening issue ----------------------------- */

static void test_emptied_chain(void **state)
{
	(void)state;
	/* Everything deleted, the head set to zero records: its hash no longer holds. */
	char *db = copy_db(BASE_PLAIN);
	sql(db, "DELETE FROM event; DELETE FROM audit_mark;"
	        " UPDATE audit_head SET seq = 0, chain = zeroblob(32)");
	struct audit_verdict v = verify(db, NULL, 0);
	assert_int_equal(v.what, AUDIT_BAD_HEAD);
	assert_non_null(strstr(v.detail, "audit_head was altered"));
	/* The head's hash recomputed too: the run row still counts the records. */
	head_rehash(db);
	v = verify(db, NULL, 0);
	assert_int_equal(v.what, AUDIT_BAD_HEAD);
	assert_non_null(strstr(v.detail, "the run row says"));
	/* And the run row edited to match: its seal shows it. */
	sql(db, "UPDATE run SET records = 0");
	v = verify(db, NULL, 0);
	assert_int_equal(v.what, AUDIT_BAD_SEAL);
	assert_non_null(strstr(v.detail, "table run"));
	unlink(db);
	free(db);
}

static void test_truncated_chain(void **state)
{
	(void)state;
	/* The last blocks cut, with their marks, and the head rewritten to the
	 * last mark left: the run row still counts them all. */
	int64_t keep = 2 * AUDIT_BLOCK;
	char *db = copy_db(BASE_PLAIN);
	sql(db, "DELETE FROM event WHERE seq > %lld; DELETE FROM audit_mark WHERE seq > %lld;"
	        " UPDATE audit_head SET seq = %lld, chain = (SELECT hash FROM audit_mark WHERE seq = %lld)",
	    (long long)keep, (long long)keep, (long long)keep, (long long)keep);
	head_rehash(db);
	struct audit_verdict v = verify(db, NULL, 0);
	assert_int_equal(v.what, AUDIT_BAD_HEAD);
	assert_non_null(strstr(v.detail, "the run row says"));
	unlink(db);
	free(db);
}

static void test_edited_job_and_run(void **state)
{
	(void)state;
	const char *edits[] = {
		"UPDATE job SET state = 'failed', reason = 'trace' WHERE id = 7",
		"UPDATE job SET state = 'failed', reason = 'trace' WHERE id = 300 % 81",
		"UPDATE job SET end_us = end_us - 1 WHERE id = 80",
		"DELETE FROM job WHERE id = 40",
		"INSERT INTO job(id, trace_id, class, state) VALUES(900, 9, 'batch', 'done')",
		"UPDATE run SET policy = 'other'",
		"UPDATE node SET name = 'elsewhere' WHERE id = 0",
		"UPDATE sample SET pending = pending + 1 WHERE rowid = 3",
		"UPDATE meta SET value = 'someone' WHERE key = 'writer'",
		"CREATE TABLE extra(x)",
		"ALTER TABLE job ADD COLUMN note TEXT",
	};
	for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
		char *db = copy_db(BASE_PLAIN);
		sql(db, "%s", edits[i]);
		struct audit_verdict v = verify(db, NULL, 0);
		if (v.what != AUDIT_BAD_SEAL)
			fail_msg("%s: expected a seal mismatch, got %s: %s", edits[i],
			         audit_break_name(v.what), v.detail);
		unlink(db);
		free(db);
	}
	/* The job edited in the report's sense is named with its rows. */
	char *db = copy_db(BASE_PLAIN);
	sql(db, "UPDATE job SET state = 'failed' WHERE id = 7");
	struct audit_verdict v = verify(db, NULL, 0);
	assert_non_null(strstr(v.detail, "table job, rows 0..255"));
	unlink(db);
	free(db);
}

static void test_deleted_events(void **state)
{
	(void)state;
	char *db = copy_db(BASE_PLAIN);
	sql(db, "DELETE FROM event WHERE kind = 'hold'");
	int64_t hold = sql_int(base_db[BASE_PLAIN], "SELECT seq FROM event WHERE kind = 'hold'");
	expect_break(db, AUDIT_GAP, hold);
	unlink(db);
	free(db);
}

/* ---- keyed mode -------------------------------------------------------------- */

/* An attacker without the key: edits a job, and recomputes everything the
 * file holds (the seal, the seals' digest, the head's hash). */
static void rewrite_everything(const char *db)
{
	sql(db, "UPDATE job SET state = 'failed', reason = 'trace' WHERE id = 7");
	reseal(db, "job");
	head_rehash(db);
}

static void test_unkeyed_limit(void **state)
{
	(void)state;
	/* Without a key, a full rewrite verifies: what the expected head and the
	 * keyed mode are for. */
	char *db = copy_db(BASE_PLAIN);
	char head[AUDIT_HASH_HEX + 1];
	snprintf(head, sizeof head, "%s", verify(db, NULL, 0).head);
	rewrite_everything(db);
	struct audit_verdict v = verify(db, NULL, 0);
	assert_int_equal(v.what, AUDIT_OK);
	v = verify_with(db, NULL, head, NULL, 0);
	assert_int_equal(v.what, AUDIT_BAD_HEAD);
	assert_non_null(strstr(v.detail, "expected"));
	v = verify_with(base_db[BASE_PLAIN], NULL, head, NULL, 0);
	assert_int_equal(v.what, AUDIT_OK);
	unlink(db);
	free(db);
}

static void test_keyed(void **state)
{
	(void)state;
	for (int b = BASE_HMAC; b <= BASE_ED25519; b++) {
		struct audit_key *k = load_key(b == BASE_HMAC ? hmac_key : ed_pub);
		struct audit_verdict v = verify_with(base_db[b], k, NULL, NULL, 0);
		assert_int_equal(v.what, AUDIT_OK);
		assert_true(v.key_checked);
		assert_string_equal(v.key_id, audit_key_id(k));
		assert_non_null(strstr(v.key_id, b == BASE_HMAC ? "hmac-sha256:" : "ed25519:"));
		/* Without the key: verified, the MAC left unchecked. */
		v = verify(base_db[b], NULL, 0);
		assert_int_equal(v.what, AUDIT_OK);
		assert_false(v.key_checked);
		assert_string_equal(v.key_id, audit_key_id(k));
		/* A full rewrite without the key. */
		char *db = copy_db(b);
		rewrite_everything(db);
		v = verify_with(db, k, NULL, NULL, 0);
		assert_int_equal(v.what, AUDIT_BAD_KEY);
		assert_non_null(strstr(v.detail, "MAC does not match"));
		/* The key stripped: no longer authenticated. */
		sql(db, "UPDATE audit_head SET key = NULL, mac = NULL");
		head_rehash(db);
		v = verify_with(db, k, NULL, NULL, 0);
		assert_int_equal(v.what, AUDIT_BAD_KEY);
		assert_non_null(strstr(v.detail, "not authenticated"));
		unlink(db);
		free(db);
		/* Another key. */
		struct audit_key *other = load_key(b == BASE_HMAC ? ed_key : hmac_key);
		v = verify_with(base_db[b], other, NULL, NULL, 0);
		assert_int_equal(v.what, AUDIT_BAD_KEY);
		assert_non_null(strstr(v.detail, "not with the key given"));
		/* The unkeyed file with a key. */
		v = verify_with(base_db[BASE_PLAIN], k, NULL, NULL, 0);
		assert_int_equal(v.what, AUDIT_BAD_KEY);
		audit_key_free(other);
		audit_key_free(k);
	}
	/* The private Ed25519 key verifies as well as the public one. */
	struct audit_key *k = load_key(ed_key);
	assert_int_equal(verify_with(base_db[BASE_ED25519], k, NULL, NULL, 0).what, AUDIT_OK);
	audit_key_free(k);
}

static void test_key_files(void **state)
{
	(void)state;
	char err[1024];
	char *shortk = tu_write_tmp(".key", "tooshort");
	assert_null(audit_key_load(shortk, false, err, sizeof err));
	assert_non_null(strstr(err, shortk));
	assert_non_null(strstr(err, "at least 16"));
	unlink(shortk);
	free(shortk);
	assert_null(audit_key_load("/nonexistent/audit.key", false, err, sizeof err));
	assert_non_null(strstr(err, "/nonexistent/audit.key"));
	/* A FIFO is refused at once (reading it waited for a writer for ever),
	 * a directory too. */
	char *fifo = tu_tmpath(".key");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_null(audit_key_load(fifo, false, err, sizeof err));
	assert_non_null(strstr(err, "not a regular file (a FIFO): a key is a file"));
	unlink(fifo);
	free(fifo);
	assert_null(audit_key_load("/tmp", false, err, sizeof err));
	assert_non_null(strstr(err, "/tmp: not a regular file (a directory)"));
	/* A public key cannot sign a run. */
	assert_null(audit_key_load(ed_pub, false, err, sizeof err));
	assert_non_null(strstr(err, "public key cannot sign"));
	char *rsa = tu_write_tmp(".pem", "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n");
	assert_null(audit_key_load(rsa, false, err, sizeof err));
	assert_non_null(strstr(err, rsa));
	unlink(rsa);
	free(rsa);
	/* The same bytes, the same id; other bytes, another. */
	struct audit_key *a = load_key(hmac_key), *b = load_key(hmac_key);
	assert_string_equal(audit_key_id(a), audit_key_id(b));
	char *other = tu_write_tmp(".key", "another key of thirty-two bytes!");
	/* A secret others may read is refused, as ssh refuses such a private
	 * key, naming the mode and the fix; a public key may be read by all. */
	assert_int_equal(chmod(other, 0644), 0);
	assert_null(audit_key_load(other, false, err, sizeof err));
	assert_non_null(strstr(err, "a secret key that others may read (mode 0644): `chmod 600 "));
	assert_int_equal(chmod(ed_key, 0640), 0);
	assert_null(audit_key_load(ed_key, false, err, sizeof err));
	assert_non_null(strstr(err, "(mode 0640)"));
	assert_int_equal(chmod(ed_key, 0600), 0);
	assert_int_equal(chmod(ed_pub, 0644), 0);
	struct audit_key *pub = audit_key_load(ed_pub, true, err, sizeof err);
	assert_non_null(pub);
	audit_key_free(pub);
	assert_int_equal(chmod(other, 0600), 0);
	struct audit_key *c = load_key(other);
	assert_string_not_equal(audit_key_id(a), audit_key_id(c));
	audit_key_free(a);
	audit_key_free(b);
	audit_key_free(c);
	unlink(other);
	free(other);
}

/* ---- levels and files -------------------------------------------------------- */

static void test_levels(void **state)
{
	(void)state;
	static const struct { enum record_level level; const char *name; bool jobs, events; } levels[] = {
		{ RECORD_SUMMARY, "summary", false, false },
		{ RECORD_JOBS, "jobs", true, false },
		{ RECORD_FULL, "full", true, true },
	};
	for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
		char *db = write_run_db(NULL, levels[i].level);
		struct audit_verdict v = verify(db, NULL, 0);
		assert_int_equal(v.what, AUDIT_OK);
		assert_string_equal(v.level, levels[i].name);
		assert_int_equal(v.count, levels[i].events ? base_records : 0);
		assert_int_equal(sql_int(db, "SELECT count(*) FROM job"), levels[i].jobs ? NJOBS : 0);
		assert_int_equal(sql_int(db, "SELECT records FROM run"), v.count);
		assert_true(sql_int(db, "SELECT count(*) FROM sample") > 0);
		assert_int_equal(sql_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'event_job'"),
		                 levels[i].level == RECORD_FULL);
		/* A summary file with job rows added is caught. */
		if (!levels[i].jobs) {
			sql(db, "INSERT INTO job(id, trace_id, class, state) VALUES(0, 1000, 'batch', 'done')");
			assert_int_equal(verify(db, NULL, 0).what, AUDIT_BAD_SEAL);
		}
		unlink(db);
		free(db);
	}
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
	/* A file of schema 1 gets its own message. */
	sql(db, "CREATE TABLE event(seq INTEGER PRIMARY KEY); CREATE TABLE audit(seq, hash)");
	assert_int_equal(audit_verify(db, NULL, 0, &v, err, sizeof err), -1);
	assert_non_null(strstr(err, "schema 1"));
	unlink(db);
	free(db);
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
		cmocka_unit_test(test_emptied_chain),
		cmocka_unit_test(test_truncated_chain),
		cmocka_unit_test(test_edited_job_and_run),
		cmocka_unit_test(test_deleted_events),
		cmocka_unit_test(test_unkeyed_limit),
		cmocka_unit_test(test_keyed),
		cmocka_unit_test(test_key_files),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_not_an_audit_file),
	};
	return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
