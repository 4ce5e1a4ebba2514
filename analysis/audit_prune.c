/* audit_prune — retention and export of the audit log: audit_prune moves
 * the oldest blocks of records to a gzip JSON Lines archive and seals an
 * anchor; audit_export writes the records as JSON Lines. See audit.h and
 * docs/audit.md ("Retention, pruning and anchors", "Export"). */
#include "analysis/audit.h"
#include "analysis/audit_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>
#include <zlib.h>

#include "analysis/tmpclean.h"
#include "sim/simtime.h"

/* ---- JSON Lines output ---------------------------------------------------- */

static json_t *json_col(sqlite3_stmt *st, int i)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		return json_integer(sqlite3_column_int64(st, i));
	case SQLITE_TEXT:
		return json_stringn((const char *)sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i));
	case SQLITE_NULL:
		return json_null();
	default:
		return NULL;   /* verify refuses such a record: it is never archived */
	}
}

/* One row of st (its columns named by `names`) as a JSON object on one line. */
static int write_json_row(gzFile out, const char *out_name, sqlite3_stmt *st,
                          const char *const *names, int n, char *err, size_t errlen)
{
	json_t *o = json_object();
	if (!o)
		return audit_failf(err, errlen, "%s: out of memory", out_name);
	int rc = -1;
	for (int i = 0; i < n; i++) {
		json_t *x = json_col(st, i);
		if (!x) {
			audit_failf(err, errlen, "seq %lld: %s is not valid UTF-8 text, an integer or NULL",
			            (long long)sqlite3_column_int64(st, 0), names[i]);
			goto out;
		}
		json_object_set_new(o, names[i], x);
	}
	char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (!text) {
		audit_failf(err, errlen, "%s: out of memory", out_name);
		goto out;
	}
	size_t len = strlen(text);
	if (gzwrite(out, text, (unsigned)len) != (int)len || gzputc(out, '\n') != '\n') {
		int zerr = 0;
		audit_failf(err, errlen, "%s: cannot write: %s", out_name, gzerror(out, &zerr));
	} else {
		rc = 0;
	}
	free(text);
out:
	json_decref(o);
	return rc;
}

static const char *const rec_names[] = { "seq", "t_us", "kind", "job", "node", "state", "detail",
                                         "actor", "subject" };

/* Writes every row of st (rec_names' columns, the first n of them) to out. */
static int write_rows(sqlite3 *db, sqlite3_stmt *st, const char *db_path, gzFile out,
                      const char *out_name, int n, int64_t *count, char *err, size_t errlen)
{
	int rc;
	*count = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (write_json_row(out, out_name, st, rec_names, n, err, errlen) < 0)
			return -1;
		(*count)++;
	}
	if (rc != SQLITE_DONE)
		return audit_failf(err, errlen, "%s: reading table event: %s", db_path, sqlite3_errmsg(db));
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int audit_export(const char *db_path, const char *out_path, int64_t *count, char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	gzFile out = NULL;
	char *tmp = NULL;
	int rc = -1, slot = -1;
	*count = 0;
	if (audit_db_open(db_path, false, &db, err, errlen) < 0)
		return -1;
	if (audit_check_tables(db, db_path, err, errlen) < 0)
		goto close_db;
	if (sqlite3_prepare_v2(db, "SELECT e.seq, e.t_us, e.kind, e.job, e.node, e.state, e.detail,"
	                       " a.actor, a.subject FROM event e JOIN audit a ON a.seq = e.seq"
	                       " ORDER BY e.seq", -1, &st, NULL) != SQLITE_OK) {
		audit_failf(err, errlen, "%s: reading the audit log: %s", db_path, sqlite3_errmsg(db));
		goto close_db;
	}
	const char *name = out_path ? out_path : "standard output";
	const char *mode = out_path && ends_with(out_path, ".gz") ? "wb" : "wbT";
	if (out_path) {
		if (!(tmp = tmpclean_name(out_path))) {
			audit_failf(err, errlen, "%s: out of memory", out_path);
			goto close_st;
		}
		slot = tmpclean_add(tmp);
		errno = 0;
		out = gzopen(tmp, mode);
	} else {
		fflush(stdout);
		int fd = dup(STDOUT_FILENO);
		out = fd >= 0 ? gzdopen(fd, mode) : NULL;
		if (!out && fd >= 0)
			close(fd);
	}
	if (!out) {
		audit_failf(err, errlen, "%s: cannot create: %s", out_path ? tmp : name,
		            errno ? strerror(errno) : "out of memory");
		goto remove_tmp;
	}
	int wr = write_rows(db, st, db_path, out, name, 9, count, err, errlen);
	int cl = gzclose(out);
	if (wr < 0)
		goto remove_tmp;
	if (cl != Z_OK) {
		audit_failf(err, errlen, "%s: cannot write (closing failed)", name);
		goto remove_tmp;
	}
	if (out_path && rename(tmp, out_path) < 0) {
		audit_failf(err, errlen, "cannot rename %s into place: %s", tmp, strerror(errno));
		goto remove_tmp;
	}
	rc = 0;
	goto close_st;
remove_tmp:
	if (tmp)
		unlink(tmp);
close_st:
	tmpclean_drop(slot);
	sqlite3_finalize(st);
	free(tmp);
close_db:
	sqlite3_close(db);
	return rc;
}

/* ---- retention ------------------------------------------------------------ */

static int exec_sql(sqlite3 *db, const char *path, const char *sql, char *err, size_t errlen)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return audit_failf(err, errlen, "%s: %s: %s", path, sql, sqlite3_errmsg(db));
	return 0;
}

/* One integer of a one-row query with up to two bound integers; NULL (or
 * no row) is `dflt`. 0 or -1. */
static int query_int(sqlite3 *db, const char *path, const char *sql, int64_t a, int64_t b,
                     int64_t dflt, int64_t *out, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return audit_failf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
	int np = sqlite3_bind_parameter_count(st);
	if (np > 0)
		sqlite3_bind_int64(st, 1, a);
	if (np > 1)
		sqlite3_bind_int64(st, 2, b);
	int rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL ? sqlite3_column_int64(st, 0)
	                                                                    : dflt;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return audit_failf(err, errlen, "%s: %s", path, sqlite3_errmsg(db));
	return 0;
}

/* Writes records first..last to the archive (a temporary file linked into
 * place without overwriting). 0 or -1. */
static int write_archive(sqlite3 *db, const char *db_path, const char *archive, int64_t first,
                         int64_t last, int64_t *count, char *err, size_t errlen)
{
	char *tmp = tmpclean_name(archive);
	if (!tmp)
		return audit_failf(err, errlen, "%s: out of memory", archive);
	int slot = tmpclean_add(tmp);
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(db, "SELECT seq, t_us, kind, job, node, state, detail FROM event"
	                       " WHERE seq BETWEEN ? AND ? ORDER BY seq", -1, &st, NULL) != SQLITE_OK) {
		audit_failf(err, errlen, "%s: reading table event: %s", db_path, sqlite3_errmsg(db));
		goto free_tmp;
	}
	sqlite3_bind_int64(st, 1, first);
	sqlite3_bind_int64(st, 2, last);
	errno = 0;
	gzFile out = gzopen(tmp, "wb");
	if (!out) {
		audit_failf(err, errlen, "%s: cannot create: %s", tmp, errno ? strerror(errno) : "out of memory");
		goto finalize;
	}
	int wr = write_rows(db, st, db_path, out, archive, 7, count, err, errlen);
	int cl = gzclose(out);
	if (wr < 0)
		goto unlink_tmp;
	if (cl != Z_OK) {
		audit_failf(err, errlen, "%s: cannot write (closing failed)", archive);
		goto unlink_tmp;
	}
	/* link() never replaces an existing file: an archive is never
	 * overwritten. Where the file system has no hard links, rename() after
	 * the caller's check that the name is free. */
	if (link(tmp, archive) < 0 &&
	    ((errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP) || rename(tmp, archive) < 0)) {
		audit_failf(err, errlen, "%s: cannot create the archive: %s", archive, strerror(errno));
		goto unlink_tmp;
	}
	rc = 0;
unlink_tmp:
	unlink(tmp);
finalize:
	sqlite3_finalize(st);
free_tmp:
	tmpclean_drop(slot);
	free(tmp);
	return rc;
}

/* The anchor of records ..res->last_seq, linked to the latest one and to
 * the head, authenticated by key when the head is keyed. Inside the
 * caller's transaction. 0 or -1. */
static int seal_anchor(sqlite3 *db, const char *db_path, const char *archive, const struct ahead *h,
                       const struct audit_key *key, int64_t pruned, struct audit_prune_result *res,
                       char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int64_t id = 0;
	uint8_t prev[32] = { 0 }, ahash[32], mac[AUDIT_MAC_MAX];
	size_t maclen = 0;
	char created[32];
	int rc = -1;
	if (query_int(db, db_path, "SELECT max(id) FROM audit_anchor", 0, 0, 0, &id, err, errlen) < 0)
		return -1;
	if (sqlite3_prepare_v2(db, "SELECT anchor_hash FROM audit_anchor ORDER BY id DESC LIMIT 1", -1,
	                       &st, NULL) != SQLITE_OK) {
		audit_failf(err, errlen, "%s: sealing the anchor: %s", db_path, sqlite3_errmsg(db));
		goto out;
	}
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) == 32)
		memcpy(prev, sqlite3_column_blob(st, 0), 32);
	sqlite3_finalize(st);
	st = NULL;
	id++;
	audit_utc_now(created, sizeof created);
	int64_t count = res->last_seq - pruned;
	if (audit_anchor_hash(id, res->last_seq, count, res->cut_us, archive, created, prev, h->hash,
	                      ahash) < 0) {
		audit_failf(err, errlen, "%s: sealing the anchor: SHA-256 failed (OpenSSL EVP)", db_path);
		goto out;
	}
	if (h->keyed && audit_key_sign(key, ahash, mac, &maclen) < 0) {
		audit_failf(err, errlen, "%s: authenticating the anchor with %s: OpenSSL failed", db_path,
		            audit_key_id(key));
		goto out;
	}
	if (sqlite3_prepare_v2(db, "INSERT INTO audit_anchor(id, seq, count, cut_us, archive, created,"
	                       " prev_anchor, anchor_hash, mac) VALUES(?,?,?,?,?,?,?,?,?)", -1, &st,
	                       NULL) != SQLITE_OK) {
		audit_failf(err, errlen, "%s: sealing the anchor: %s", db_path, sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, res->last_seq);
	sqlite3_bind_int64(st, 3, count);
	sqlite3_bind_int64(st, 4, res->cut_us);
	sqlite3_bind_text(st, 5, archive, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, created, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 7, prev, 32, SQLITE_STATIC);
	sqlite3_bind_blob(st, 8, ahash, 32, SQLITE_STATIC);
	if (h->keyed)
		sqlite3_bind_blob(st, 9, mac, (int)maclen, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		audit_failf(err, errlen, "%s: sealing the anchor: %s", db_path, sqlite3_errmsg(db));
		goto out;
	}
	res->anchor_id = (int32_t)id;
	audit_hex(ahash, 32, res->hash);
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

/* The head, and a key that can authenticate anchors under it. 0 or -1. */
static int prune_key(sqlite3 *db, const char *db_path, const struct audit_key *key, struct ahead *h,
                     char *err, size_t errlen)
{
	char bad[256];
	int r = audit_head_read(db, db_path, h, bad, sizeof bad, err, errlen);
	if (r < 0)
		return -1;
	if (r == 0)
		return audit_failf(err, errlen, "%s: %s (see hetlab audit verify)", db_path, bad);
	if (h->keyed && !key)
		return audit_failf(err, errlen, "%s: the audit log is keyed (%s): give --key with that"
		                   " key to prune it (its anchor must be authenticated)", db_path, h->key_id);
	if (h->keyed && !audit_key_can_sign(key))
		return audit_failf(err, errlen, "%s: a public key cannot authenticate an anchor: give"
		                   " the private key", db_path);
	return 0;
}

int audit_prune(const char *db_path, const struct audit_prune_opts *o, struct audit_prune_result *res,
                char *err, size_t errlen)
{
	memset(res, 0, sizeof *res);
	if (!(o->days >= AUDIT_MIN_RETENTION_DAYS) || !isfinite(o->days) || o->days > 1e6)
		return audit_failf(err, errlen, "a retention of %g days is refused: audit records are kept"
		                   " at least %d days (about six months); the default is %d", o->days,
		                   AUDIT_MIN_RETENTION_DAYS, AUDIT_DEFAULT_RETENTION_DAYS);
	sqlite3 *db = NULL;
	if (audit_db_open(db_path, true, &db, err, errlen) < 0)
		return -1;
	char *archive = NULL;
	int rc = -1;
	bool archived = false;
	struct ahead h;
	/* Taken now, so that nothing changes between the checks and the delete. */
	if (exec_sql(db, db_path, "BEGIN IMMEDIATE", err, errlen) < 0)
		goto close_db;
	if (audit_check_tables(db, db_path, err, errlen) < 0 ||
	    prune_key(db, db_path, o->key, &h, err, errlen) < 0)
		goto rollback;
	struct audit_verdict v;
	struct audit_verify_opts vo = { .key = h.keyed ? o->key : NULL };
	if (audit_verify_db(db, db_path, &vo, &v, err, errlen) < 0)
		goto rollback;
	if (v.what != AUDIT_OK) {
		audit_failf(err, errlen, "%s: refusing to prune a broken audit log: seq %" PRId64 ": %s: %s"
		            " (see hetlab audit verify)", db_path, v.seq, audit_break_name(v.what), v.detail);
		goto rollback;
	}
	/* The records to go: the longest prefix of whole blocks older than
	 * the cut, so that no younger record is ever pruned (a mark's t_us is
	 * the latest time up to its block's end). */
	int64_t pruned = 0, last = 0;
	if (query_int(db, db_path, "SELECT max(t_us) FROM audit_mark", 0, 0, -1, &res->newest_us, err,
	              errlen) < 0 ||
	    query_int(db, db_path, "SELECT max(seq) FROM audit_anchor", 0, 0, 0, &pruned, err, errlen) < 0)
		goto rollback;
	res->cut_us = res->newest_us - (int64_t)llround(o->days * (double)SIMTIME_DAY);
	if (res->newest_us >= 0 &&
	    query_int(db, db_path, "SELECT max(seq) FROM audit_mark WHERE t_us < ?2 AND seq > ?1",
	              pruned, res->cut_us, 0, &last, err, errlen) < 0)
		goto rollback;
	if (res->newest_us < 0 || last <= pruned) {
		rc = 0;   /* nothing old enough, or no record at all */
		goto rollback;
	}
	if (o->archive) {
		archive = strdup(o->archive);
	} else {
		size_t n = strlen(db_path) - (ends_with(db_path, ".db") ? 3 : 0);
		if (asprintf(&archive, "%.*s-audit-%" PRId64 "-%" PRId64 ".jsonl.gz", (int)n, db_path,
		             pruned + 1, last) < 0)
			archive = NULL;
	}
	if (!archive) {
		audit_failf(err, errlen, "out of memory");
		goto rollback;
	}
	if (access(archive, F_OK) == 0) {
		audit_failf(err, errlen, "%s: the archive exists already; name another with --archive", archive);
		goto rollback;
	}
	if (write_archive(db, db_path, archive, pruned + 1, last, &res->count, err, errlen) < 0)
		goto rollback;
	archived = true;
	if (res->count != last - pruned) {
		audit_failf(err, errlen, "%s: archived %" PRId64 " records, expected %" PRId64, archive,
		            res->count, last - pruned);
		goto rollback;
	}
	res->first_seq = pruned + 1;
	res->last_seq = last;
	char del[96];
	snprintf(del, sizeof del, "DELETE FROM event WHERE seq <= %" PRId64, last);
	if (seal_anchor(db, db_path, archive, &h, o->key, pruned, res, err, errlen) < 0 ||
	    exec_sql(db, db_path, del, err, errlen) < 0 || exec_sql(db, db_path, "COMMIT", err, errlen) < 0)
		goto rollback;
	snprintf(res->archive, sizeof res->archive, "%s", archive);
	rc = 0;
	goto close_db;

rollback:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	if (archived)
		unlink(archive);
	if (rc < 0)
		memset(res, 0, sizeof *res);
close_db:
	free(archive);
	sqlite3_close(db);
	return rc;
}
