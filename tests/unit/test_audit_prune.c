/* Tests of the audit log's retention and export (analysis/audit_prune.c):
 * a retention under 183 days, a broken chain and a keyed file without its
 * key are refused; prune + archive + verify round trip (one and two prunes,
 * the archives with the database as one chain, a keyed file with its key);
 * a re-sealed anchor that drops young records, a forged anchor and an
 * edited, truncated or malformed archive are each found; export writes
 * every record. The run and the helpers are those of test_audit.c
 * (audit_fixture.h). */
#include "tests/unit/audit_fixture.h"

static void test_prune_refuses_short_retention(void **state)
{
	(void)state;
	char *db = copy_db(BASE_PLAIN);
	char *arch = tu_tmpath(".jsonl.gz");
	struct audit_prune_opts o = { .days = 182.9, .archive = arch };
	struct audit_prune_result res;
	char err[1024] = "";
	assert_int_equal(audit_prune(db, &o, &res, err, sizeof err), -1);
	assert_non_null(strstr(err, "183"));
	assert_int_equal(access(arch, F_OK), -1);
	assert_int_equal(sql_int(db, "SELECT count(*) FROM event"), base_records);
	unlink(db);
	free(db);
	free(arch);
}

static void test_prune_refuses_broken_chain(void **state)
{
	(void)state;
	char *db = copy_db(BASE_PLAIN);
	char *arch = tu_tmpath(".jsonl.gz");
	sql(db, "DELETE FROM event WHERE seq = 5");
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

static int64_t archive_lines(const char *path, size_t keys)
{
	gzFile gz = gzopen(path, "rb");
	assert_non_null(gz);
	char line[4096];
	int64_t n = 0;
	while (gzgets(gz, line, sizeof line)) {
		json_error_t je;
		json_t *o = json_loads(line, 0, &je);
		assert_true(json_is_object(o));
		assert_int_equal(json_object_size(o), keys);
		json_decref(o);
		n++;
	}
	gzclose(gz);
	return n;
}

static void test_prune_round_trip(void **state)
{
	(void)state;
	char *db = copy_db(BASE_PLAIN);
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
	assert_int_equal(res.last_seq % AUDIT_BLOCK, 0);     /* whole blocks */
	assert_int_equal(res.newest_us, 400 * SIMTIME_DAY + SIMTIME_HOUR);
	assert_int_equal(res.cut_us, res.newest_us - 190 * SIMTIME_DAY);
	/* Nothing younger than the cut went; less than a block older stayed. */
	assert_int_equal(sql_int(db, "SELECT min(seq) FROM event"), res.last_seq + 1);
	char q[256];
	snprintf(q, sizeof q, "SELECT count(*) FROM event WHERE t_us < %lld", (long long)res.cut_us);
	assert_true(sql_int(db, q) < AUDIT_BLOCK);
	assert_int_equal(archive_lines(arch, 7), res.count);

	struct audit_verdict v = verify(db, NULL, 0);
	assert_int_equal(v.what, AUDIT_OK);
	assert_int_equal(v.from_anchor, 1);
	assert_int_equal(v.nanchors, 1);
	assert_int_equal(v.count, base_records - res.count);
	assert_int_equal(v.first_seq, res.last_seq + 1);
	/* The head is the run's: an expected head still holds. */
	char head[AUDIT_HASH_HEX + 1];
	snprintf(head, sizeof head, "%s", verify(base_db[BASE_PLAIN], NULL, 0).head);
	assert_string_equal(v.head, head);
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
	char *db2 = copy_db(BASE_PLAIN);
	o.archive = arch;
	assert_int_equal(audit_prune(db2, &o, &res, err, sizeof err), -1);
	assert_non_null(strstr(err, "exists"));
	assert_int_equal(sql_int(db2, "SELECT count(*) FROM event"), base_records);

	unlink(db2);
	free(db2);
	unlink(db);
	unlink(arch);
	free(db);
	free(arch);
	free(arch2);
}

/* The attacker: deletes one more block of young records and moves the
 * anchor over them, recomputing its hash. */
static void test_resealed_anchor(void **state)
{
	(void)state;
	char *db = copy_db(BASE_PLAIN);
	char *arch = tu_tmpath(".jsonl.gz");
	struct audit_prune_opts o = { .days = AUDIT_DEFAULT_RETENTION_DAYS, .archive = arch };
	struct audit_prune_result res;
	char err[1024] = "";
	if (audit_prune(db, &o, &res, err, sizeof err))
		fail_err("audit_prune", err);
	int64_t more = res.last_seq + AUDIT_BLOCK;
	sql(db, "DELETE FROM event WHERE seq <= %lld; UPDATE audit_anchor SET seq = %lld, count = %lld",
	    (long long)more, (long long)more, (long long)more);
	anchor_rehash(db, 1);
	struct audit_verdict v = verify(db, NULL, 0);
	assert_int_equal(v.what, AUDIT_BAD_ANCHOR);
	assert_non_null(strstr(v.detail, "within the 183 days"));
	/* Not at the end of a block. */
	sql(db, "UPDATE audit_anchor SET seq = seq - 1, count = count - 1");
	anchor_rehash(db, 1);
	v = verify(db, NULL, 0);
	assert_int_equal(v.what, AUDIT_BAD_ANCHOR);
	unlink(db);
	unlink(arch);
	free(db);
	free(arch);

	/* An anchor forged on a file that was never pruned: young records gone. */
	db = copy_db(BASE_PLAIN);
	int64_t cut = 3 * AUDIT_BLOCK;
	sql(db, "DELETE FROM event WHERE seq <= %lld; INSERT INTO audit_anchor VALUES(1, %lld, %lld, 0,"
	        " 'gone.jsonl.gz', '2030-01-01T00:00:00Z', zeroblob(32), zeroblob(32), NULL)",
	    (long long)cut, (long long)cut, (long long)cut);
	anchor_rehash(db, 1);
	v = verify(db, NULL, 0);
	assert_int_equal(v.what, AUDIT_BAD_ANCHOR);
	/* Without an anchor, the records are simply missing. */
	sql(db, "DELETE FROM audit_anchor");
	expect_break(db, AUDIT_GAP, 1);
	unlink(db);
	free(db);
}

static void test_prune_keyed(void **state)
{
	(void)state;
	char *db = copy_db(BASE_HMAC);
	char *arch = tu_tmpath(".jsonl.gz");
	struct audit_prune_opts o = { .days = AUDIT_DEFAULT_RETENTION_DAYS, .archive = arch };
	struct audit_prune_result res;
	char err[1024] = "";
	assert_int_equal(audit_prune(db, &o, &res, err, sizeof err), -1);
	assert_non_null(strstr(err, "keyed"));
	assert_int_equal(access(arch, F_OK), -1);
	struct audit_key *k = load_key(hmac_key);
	o.key = k;
	if (audit_prune(db, &o, &res, err, sizeof err))
		fail_err("audit_prune", err);
	struct audit_verdict v = verify_with(db, k, NULL, NULL, 0);
	assert_int_equal(v.what, AUDIT_OK);
	assert_int_equal(v.nanchors, 1);
	/* The anchor moved and re-hashed without the key: its MAC fails. */
	int64_t more = res.last_seq + AUDIT_BLOCK;
	sql(db, "DELETE FROM event WHERE seq <= %lld; UPDATE audit_anchor SET seq = %lld, count = %lld,"
	        " cut_us = cut_us + 200 * 86400000000", (long long)more, (long long)more, (long long)more);
	anchor_rehash(db, 1);
	v = verify_with(db, k, NULL, NULL, 0);
	assert_true(v.what == AUDIT_BAD_ANCHOR || v.what == AUDIT_BAD_KEY);
	/* Its MAC removed: refused even without the key. */
	sql(db, "UPDATE audit_anchor SET mac = NULL");
	v = verify(db, NULL, 0);
	assert_int_equal(v.what, AUDIT_BAD_ANCHOR);
	audit_key_free(k);
	unlink(db);
	unlink(arch);
	free(db);
	free(arch);

	/* An Ed25519 file: pruned with the private key, not the public one. */
	db = copy_db(BASE_ED25519);
	arch = tu_tmpath(".jsonl.gz");
	o.archive = arch;
	k = load_key(ed_pub);
	o.key = k;
	assert_int_equal(audit_prune(db, &o, &res, err, sizeof err), -1);
	assert_non_null(strstr(err, "public key"));
	audit_key_free(k);
	k = load_key(ed_key);
	o.key = k;
	if (audit_prune(db, &o, &res, err, sizeof err))
		fail_err("audit_prune", err);
	audit_key_free(k);
	k = load_key(ed_pub);
	assert_int_equal(verify_with(db, k, NULL, NULL, 0).what, AUDIT_OK);
	audit_key_free(k);
	unlink(db);
	unlink(arch);
	free(db);
	free(arch);
}

/* Rewrites an archive with line `lineno` (1-based) replaced by `text`. */
static void replace_line(const char *path, int lineno, const char *text)
{
	gzFile in = gzopen(path, "rb");
	assert_non_null(in);
	char *tmp = tu_tmpath(".jsonl");
	FILE *out = fopen(tmp, "w");
	assert_non_null(out);
	char line[4096];
	for (int n = 1; gzgets(in, line, sizeof line); n++)
		fputs(n == lineno ? text : line, out);
	gzclose(in);
	fclose(out);
	assert_int_equal(rename(tmp, path), 0);   /* a plain file reads as well */
	free(tmp);
}

/* Line `lineno` of an archive with its "job" set to 4242. */
static void edit_job(const char *path, int lineno, char *buf, size_t len)
{
	gzFile in = gzopen(path, "rb");
	char line[4096];
	for (int n = 1; gzgets(in, line, sizeof line) && n < lineno; n++)
		;
	gzclose(in);
	json_error_t je;
	json_t *o = json_loads(line, 0, &je);
	assert_non_null(o);
	json_object_set_new(o, "job", json_integer(4242));
	char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	snprintf(buf, len, "%s\n", text);
	free(text);
	json_decref(o);
}

static void test_two_prunes_and_archives(void **state)
{
	(void)state;
	char *db = copy_db(BASE_PLAIN);
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
	assert_int_not_equal(verify(db, swapped, 2).what, AUDIT_OK);

	/* An altered or removed anchor. */
	char *db2 = copy_file(db);
	sql(db2, "UPDATE audit_anchor SET archive = 'elsewhere.jsonl.gz' WHERE id = 1");
	v = verify(db2, NULL, 0);
	assert_int_equal(v.what, AUDIT_BAD_ANCHOR);
	assert_int_equal(v.seq, r1.last_seq);
	sql(db2, "DELETE FROM audit_anchor WHERE id = 1");
	assert_int_equal(verify(db2, NULL, 0).what, AUDIT_BAD_ANCHOR);
	unlink(db2);
	free(db2);

	/* An edited archive record: found at its block, in the archive. */
	char line[4096];
	edit_job(a2, 3, line, sizeof line);
	char *a3 = copy_file(a2);
	replace_line(a3, 3, line);
	const char *edited[2] = { a1, a3 };
	v = verify(db, edited, 2);
	assert_int_equal(v.what, AUDIT_HASH_MISMATCH);
	assert_int_equal(v.seq, r2.first_seq);
	assert_non_null(strstr(v.source, a3));
	/* A line that is not a record, or far too long. */
	replace_line(a3, 3, "{\"seq\": \"three\"}\n");
	v = verify(db, edited, 2);
	assert_int_equal(v.what, AUDIT_BAD_FIELD);
	assert_non_null(strstr(v.source, "line 3"));
	char *longline = malloc(AUDIT_LINE_MAX + 16);
	memset(longline, ' ', AUDIT_LINE_MAX + 10);
	strcpy(longline + AUDIT_LINE_MAX + 10, "{}\n");
	replace_line(a3, 3, longline);
	free(longline);
	v = verify(db, edited, 2);
	assert_int_equal(v.what, AUDIT_BAD_FIELD);
	assert_non_null(strstr(v.detail, "longer than"));
	/* An archive cut short. */
	char *a4 = copy_file(a2);
	replace_line(a4, (int)r2.count, "\n");
	const char *cut[2] = { a1, a4 };
	assert_int_equal(verify(db, cut, 2).what, AUDIT_GAP);

	unlink(db);
	unlink(a1);
	unlink(a2);
	unlink(a3);
	unlink(a4);
	free(db);
	free(a1);
	free(a2);
	free(a3);
	free(a4);
}

static void test_export(void **state)
{
	(void)state;
	char *out = tu_tmpath(".jsonl");
	int64_t n = 0;
	char err[1024] = "";
	if (audit_export(base_db[BASE_PLAIN], out, &n, err, sizeof err))
		fail_err("audit_export", err);
	assert_int_equal(n, base_records);
	assert_int_equal(archive_lines(out, 9), base_records);
	FILE *f = fopen(out, "r");
	char line[4096];
	assert_non_null(fgets(line, sizeof line, f));
	fclose(f);
	json_error_t je;
	json_t *o = json_loads(line, 0, &je);
	assert_int_equal(json_integer_value(json_object_get(o, "seq")), 1);
	assert_string_equal(json_string_value(json_object_get(o, "kind")), "submit");
	assert_string_equal(json_string_value(json_object_get(o, "actor")), "engine");
	assert_string_equal(json_string_value(json_object_get(o, "subject")), "job 1000");
	assert_true(json_is_null(json_object_get(o, "detail")));
	json_decref(o);
	/* An export of the whole log is an archive of it: it verifies as one. */
	char *db = copy_db(BASE_PLAIN);
	char *arch = tu_tmpath(".jsonl.gz");
	struct audit_prune_opts po = { .days = AUDIT_DEFAULT_RETENTION_DAYS, .archive = arch };
	struct audit_prune_result res;
	if (audit_prune(db, &po, &res, err, sizeof err))
		fail_err("audit_prune", err);
	const char *archives[1] = { arch };
	assert_int_equal(verify(db, archives, 1).what, AUDIT_OK);
	unlink(db);
	unlink(arch);
	unlink(out);
	free(db);
	free(arch);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prune_refuses_short_retention),
		cmocka_unit_test(test_prune_refuses_broken_chain),
		cmocka_unit_test(test_prune_round_trip),
		cmocka_unit_test(test_resealed_anchor),
		cmocka_unit_test(test_prune_keyed),
		cmocka_unit_test(test_two_prunes_and_archives),
		cmocka_unit_test(test_export),
	};
	return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
