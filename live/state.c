/* state — the live daemon's SQLite state. See state.h. */
#include "live/state.h"
#include "live/livelog.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char schema_sql[] =
	"CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE IF NOT EXISTS inbox(seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL,"
	" job INTEGER, spec TEXT, at_unix REAL);"
	"CREATE TABLE IF NOT EXISTS rec(seq INTEGER PRIMARY KEY, t_us INTEGER NOT NULL, after_us INTEGER NOT NULL,"
	" kind TEXT NOT NULL, job INTEGER, node INTEGER, attempt INTEGER, state INTEGER, reason INTEGER, data TEXT,"
	" t1_us INTEGER, t2_us INTEGER);"
	"CREATE TABLE IF NOT EXISTS xref(job INTEGER NOT NULL, sid INTEGER NOT NULL, attempt INTEGER NOT NULL,"
	" at_unix REAL, open INTEGER NOT NULL DEFAULT 1, shape TEXT, PRIMARY KEY(job, sid));"
	"CREATE TABLE IF NOT EXISTS foreign_hold(node TEXT PRIMARY KEY, cores INTEGER, gpus INTEGER, mem_mib INTEGER,"
	" what TEXT, at_unix REAL);"
	"CREATE TABLE IF NOT EXISTS decision(seq INTEGER PRIMARY KEY, t_us INTEGER NOT NULL, kind TEXT NOT NULL,"
	" job INTEGER, node INTEGER, detail TEXT);"
	"CREATE TABLE IF NOT EXISTS jobs(id INTEGER PRIMARY KEY, name TEXT, class TEXT, tenant INTEGER,"
	" state TEXT, submit_us INTEGER, start_us INTEGER, end_us INTEGER, nodes TEXT, attempt INTEGER,"
	" reason TEXT, ref TEXT, spec TEXT);"
	"CREATE TABLE IF NOT EXISTS request(uid INTEGER NOT NULL, rid TEXT NOT NULL, at_unix REAL, reply TEXT,"
	" PRIMARY KEY(uid, rid));";

static const char *const rin_names[RIN_N] = { "submit", "end", "cancel", "reading", "approve",
                                              "running", "unstart", "requeue", "foreign", "blind" };

const char *rec_in_name(enum rec_in k)
{
	return (unsigned)k < RIN_N ? rin_names[k] : "?";
}

int rec_in_parse(const char *s)
{
	for (int k = 0; k < RIN_N; k++)
		if (strcmp(s, rin_names[k]) == 0)
			return k;
	return -1;
}

static int dbfail(struct lstate *st, const char *what, char *err, size_t errlen)
{
	if (err)
		snprintf(err, errlen, "%s: %s: %s", st->path, what, st->db ? sqlite3_errmsg(st->db) : "not open");
	return -1;
}

static int exec(struct lstate *st, const char *sql, const char *what, char *err, size_t errlen)
{
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return dbfail(st, what, err, errlen);
	return 0;
}

/* A state made before the rec table had its time columns gets them. */
static int migrate(struct lstate *st, char *err, size_t errlen)
{
	sqlite3_stmt *q = NULL;
	bool have = false;
	if (sqlite3_prepare_v2(st->db, "SELECT 1 FROM pragma_table_info('rec') WHERE name = 't1_us'", -1, &q, NULL) ==
	    SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
		have = true;
	sqlite3_finalize(q);
	if (have)
		return 0;
	return exec(st, "ALTER TABLE rec ADD COLUMN t1_us INTEGER; ALTER TABLE rec ADD COLUMN t2_us INTEGER;",
	            "adding the recording's time columns", err, errlen);
}

static bool has_column(struct lstate *st, const char *table, const char *column);

/* Who sent each request, who owns each job, and the inbox rows that could
 * not be taken: added to states made before them (a column at a time, in
 * one transaction, so two openers do not race). */
static int identity_schema(struct lstate *st, char *err, size_t errlen)
{
	static const char *const cols[] = { "uid INTEGER", "gid INTEGER", "user TEXT" };
	if (has_column(st, "inbox", "user") && has_column(st, "job_owner", "user") &&
	    has_column(st, "quarantine", "why"))
		return 0;
	if (exec(st, "BEGIN IMMEDIATE", "BEGIN", err, errlen))
		return -1;
	for (int k = 0; k < 3; k++) {
		char name[8], sql[96];
		snprintf(name, sizeof name, "%.*s", (int)strcspn(cols[k], " "), cols[k]);
		snprintf(sql, sizeof sql, "ALTER TABLE inbox ADD COLUMN %s", cols[k]);
		if (!has_column(st, "inbox", name) && exec(st, sql, "adding the inbox's identity columns", err, errlen))
			goto fail;
	}
	if (exec(st, "CREATE TABLE IF NOT EXISTS job_owner(id INTEGER PRIMARY KEY, uid INTEGER, gid INTEGER, user TEXT);"
	         "CREATE TABLE IF NOT EXISTS quarantine(seq INTEGER PRIMARY KEY, inbox_seq INTEGER, kind TEXT,"
	         " job INTEGER, spec TEXT, at_unix REAL, uid INTEGER, gid INTEGER, user TEXT, why TEXT,"
	         " quarantined_unix REAL);", "creating the owner and quarantine tables", err, errlen) ||
	    /* The jobs not ended are found without a walk of every job the
	     * state ever took (lstate_pending_of, hetlab queue). */
	    exec(st, "CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state)", "indexing the jobs by state", err,
	         errlen) ||
	    exec(st, "COMMIT", "COMMIT", err, errlen))
		goto fail;
	return 0;
fail:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

enum open_how { OPEN_CREATE, OPEN_EXISTING, OPEN_RO };

static int open_db(struct lstate *st, const char *dir, enum open_how how, char *err, size_t errlen)
{
	bool ro = how == OPEN_RO;
	memset(st, 0, sizeof *st);
	snprintf(st->path, sizeof st->path, "%s/state.db", dir);
	if (how == OPEN_CREATE && mkdir(dir, 0700) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "%s: cannot create the state directory: %s", dir, strerror(errno));
		return -1;
	}
	struct stat sb;
	if (how != OPEN_CREATE && stat(st->path, &sb) < 0) {
		snprintf(err, errlen, "%s: no live state here (%s); is this the daemon's state_dir?", st->path,
		         strerror(errno));
		return -1;
	}
	/* SQLite opens what it is given blocking: a FIFO there would hang
	 * `hetlab queue` (and the daemon) for ever. lstat: a link is refused
	 * below (SQLITE_OPEN_NOFOLLOW). */
	if (lstat(st->path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (%s): not a hetlab live state database", st->path,
		         S_ISFIFO(sb.st_mode) ? "a FIFO" : S_ISDIR(sb.st_mode) ? "a directory" :
		         S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device" : S_ISSOCK(sb.st_mode) ? "a socket" :
		         "not a file");
		return -1;
	}
	if (how == OPEN_CREATE) {
		/* Made here, private (SQLite would make it 0644; its -wal and
		 * -shm files take the database's mode). */
		int fd = open(st->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
		else if (errno != EEXIST) {
			snprintf(err, errlen, "%s: cannot create: %s", st->path, strerror(errno));
			return -1;
		}
	}
	int flags = (ro ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOFOLLOW;
	if (sqlite3_open_v2(st->path, &st->db, flags, NULL) != SQLITE_OK) {
		dbfail(st, "cannot open", err, errlen);
		lstate_close(st);
		return -1;
	}
	sqlite3_busy_timeout(st->db, 10000);
	if (!ro && (exec(st, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", "setting WAL", err, errlen) ||
	            exec(st, schema_sql, "creating the schema", err, errlen) || migrate(st, err, errlen) ||
	            identity_schema(st, err, errlen))) {
		lstate_close(st);
		return -1;
	}
	if (how != OPEN_CREATE) {
		sqlite3_stmt *q = NULL;
		int ok = sqlite3_prepare_v2(st->db, "SELECT 1 FROM rec LIMIT 1", -1, &q, NULL) == SQLITE_OK;
		sqlite3_finalize(q);
		if (!ok) {
			snprintf(err, errlen, "%s: not a hetlab live state database (%s)", st->path, sqlite3_errmsg(st->db));
			lstate_close(st);
			return -1;
		}
	}
	return 0;
}

int lstate_open(struct lstate *st, const char *dir, char *err, size_t errlen)
{
	return open_db(st, dir, OPEN_CREATE, err, errlen);
}

int lstate_open_existing(struct lstate *st, const char *dir, char *err, size_t errlen)
{
	return open_db(st, dir, OPEN_EXISTING, err, errlen);
}

int lstate_open_ro(struct lstate *st, const char *dir, char *err, size_t errlen)
{
	return open_db(st, dir, OPEN_RO, err, errlen);
}

void lstate_close(struct lstate *st)
{
	if (st->db)
		sqlite3_close(st->db);
	st->db = NULL;
}

int lstate_begin(struct lstate *st, char *err, size_t errlen)
{
	return exec(st, "BEGIN IMMEDIATE", "BEGIN", err, errlen);
}

int lstate_commit(struct lstate *st, char *err, size_t errlen)
{
	return exec(st, "COMMIT", "COMMIT", err, errlen);
}

void lstate_rollback(struct lstate *st)
{
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

static sqlite3_stmt *prep(struct lstate *st, const char *sql, char *err, size_t errlen)
{
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK) {
		dbfail(st, "preparing a statement", err, errlen);
		return NULL;
	}
	return q;
}

static int step_done(struct lstate *st, sqlite3_stmt *q, const char *what, char *err, size_t errlen)
{
	int rc = sqlite3_step(q);
	if (rc != SQLITE_DONE) {
		dbfail(st, what, err, errlen);
		sqlite3_finalize(q);
		return -1;
	}
	sqlite3_finalize(q);
	return 0;
}

static void bind_text(sqlite3_stmt *q, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(q, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(q, i);
}

int lstate_meta_get(struct lstate *st, const char *key, char *out, size_t len)
{
	char *v = lstate_meta_dup(st, key);
	if (!v) {
		if (len)
			out[0] = 0;
		return 1;
	}
	snprintf(out, len, "%s", v);
	free(v);
	return 0;
}

char *lstate_meta_dup(struct lstate *st, const char *key)
{
	sqlite3_stmt *q = prep(st, "SELECT value FROM meta WHERE key = ?", NULL, 0);
	char *v = NULL;
	if (!q)
		return NULL;
	sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
		v = strdup((const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	return v;
}

int lstate_meta_set(struct lstate *st, const char *key, const char *value, char *err, size_t errlen)
{
	sqlite3_stmt *q = prep(st, "INSERT OR REPLACE INTO meta VALUES(?, ?)", err, errlen);
	if (!q)
		return -1;
	sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
	bind_text(q, 2, value);
	return step_done(st, q, "writing meta", err, errlen);
}

int lstate_inbox_add(struct lstate *st, const char *kind, int64_t job, const char *spec,
                     char *err, size_t errlen)
{
	sqlite3_stmt *q = prep(st, "INSERT INTO inbox(kind, job, spec, at_unix) VALUES(?, ?, ?, "
	                       "(julianday('now') - 2440587.5) * 86400.0)", err, errlen);
	if (!q)
		return -1;
	sqlite3_bind_text(q, 1, kind, -1, SQLITE_STATIC);
	if (job >= 0)
		sqlite3_bind_int64(q, 2, job);
	else
		sqlite3_bind_null(q, 2);
	bind_text(q, 3, spec);
	return step_done(st, q, "adding to the inbox", err, errlen);
}

static int inbox_each(struct lstate *st, const char *sql, int (*fn)(void *ctx, const struct inbox_row *r),
                      void *ctx, char *err, size_t errlen)
{
	sqlite3_stmt *q = prep(st, sql, err, errlen);
	if (!q)
		return -1;
	int rc = 0, s;
	while ((s = sqlite3_step(q)) == SQLITE_ROW) {
		struct inbox_row r = {
			.seq = sqlite3_column_int64(q, 0),
			.kind = (const char *)sqlite3_column_text(q, 1),
			.job = sqlite3_column_type(q, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, 2),
			.job_int = sqlite3_column_type(q, 2) == SQLITE_INTEGER,
			.spec = (const char *)sqlite3_column_text(q, 3),
			.uid = sqlite3_column_type(q, 4) == SQLITE_INTEGER ? sqlite3_column_int64(q, 4) : -1,
			.gid = sqlite3_column_type(q, 5) == SQLITE_INTEGER ? sqlite3_column_int64(q, 5) : -1,
			.user = (const char *)sqlite3_column_text(q, 6),
			.at_unix = sqlite3_column_double(q, 7),
		};
		r.spec_len = r.spec ? (size_t)sqlite3_column_bytes(q, 3) : 0;
		if (!r.kind)
			r.kind = "";
		if ((rc = fn(ctx, &r)) != 0)
			break;
	}
	if (rc == 0 && s != SQLITE_DONE)
		rc = dbfail(st, "reading the inbox", err, errlen);
	sqlite3_finalize(q);
	return rc;
}

int lstate_inbox_each(struct lstate *st, int (*fn)(void *ctx, const struct inbox_row *r), void *ctx,
                      char *err, size_t errlen)
{
	return inbox_each(st, "SELECT seq, kind, job, spec, uid, gid, user, at_unix FROM inbox ORDER BY seq", fn, ctx,
	                  err, errlen);
}

int lstate_inbox_each_request(struct lstate *st, int (*fn)(void *ctx, const struct inbox_row *r), void *ctx,
                              char *err, size_t errlen)
{
	return inbox_each(st, "SELECT seq, kind, job, spec, uid, gid, user, at_unix FROM inbox WHERE kind <> 'submit'"
	                  " ORDER BY seq", fn, ctx, err, errlen);
}

int lstate_inbox_del(struct lstate *st, int64_t seq, char *err, size_t errlen)
{
	sqlite3_stmt *q = prep(st, "DELETE FROM inbox WHERE seq = ?", err, errlen);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, seq);
	return step_done(st, q, "consuming the inbox", err, errlen);
}

int lstate_rec_add(struct lstate *st, const struct rec_row *r, char *err, size_t errlen)
{
	sqlite3_stmt *q = prep(st, "INSERT INTO rec(t_us, after_us, kind, job, node, attempt, state, reason, data,"
	                       " t1_us, t2_us) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", err, errlen);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, r->t_us);
	sqlite3_bind_int64(q, 2, r->after_us);
	sqlite3_bind_text(q, 3, rec_in_name(r->kind), -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, r->job);
	sqlite3_bind_int(q, 5, r->node);
	sqlite3_bind_int(q, 6, r->attempt);
	sqlite3_bind_int(q, 7, r->state);
	sqlite3_bind_int(q, 8, r->reason);
	bind_text(q, 9, r->data);
	if (r->t1_us > 0)
		sqlite3_bind_int64(q, 10, r->t1_us);
	if (r->t2_us > 0)
		sqlite3_bind_int64(q, 11, r->t2_us);
	return step_done(st, q, "recording an input", err, errlen);
}

int lstate_rec_each_db(struct lstate *st, int64_t after_seq, int (*fn)(void *ctx, const struct rec_row *r),
                       void *ctx, char *err, size_t errlen)
{
	sqlite3_stmt *q = prep(st, "SELECT seq, t_us, after_us, kind, job, node, attempt, state, reason, data,"
	                       " coalesce(t1_us, -1), coalesce(t2_us, -1) FROM rec WHERE seq > ? ORDER BY seq", err, errlen);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, after_seq);
	int rc = 0, s;
	while ((s = sqlite3_step(q)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(q, 3);
		int kind = k ? rec_in_parse(k) : -1;
		if (kind < 0) {
			snprintf(err, errlen, "%s: rec row %lld: unknown kind '%s'", st->path,
			         (long long)sqlite3_column_int64(q, 0), k ? k : "(null)");
			rc = -1;
			break;
		}
		struct rec_row r = {
			.seq = sqlite3_column_int64(q, 0),
			.t_us = sqlite3_column_int64(q, 1),
			.after_us = sqlite3_column_int64(q, 2),
			.kind = (enum rec_in)kind,
			.job = sqlite3_column_int64(q, 4),
			.node = sqlite3_column_int(q, 5),
			.attempt = sqlite3_column_int(q, 6),
			.state = sqlite3_column_int(q, 7),
			.reason = sqlite3_column_int(q, 8),
			.data = (char *)sqlite3_column_text(q, 9),
			.t1_us = sqlite3_column_int64(q, 10),
			.t2_us = sqlite3_column_int64(q, 11),
		};
		if ((rc = fn(ctx, &r)) != 0)
			break;
	}
	if (rc == 0 && s != SQLITE_DONE)
		rc = dbfail(st, "reading the recording", err, errlen);
	sqlite3_finalize(q);
	return rc;
}

int64_t lstate_count_submits_db(struct lstate *st, int64_t after_seq)
{
	sqlite3_stmt *q = prep(st, "SELECT count(*) FROM rec WHERE kind = 'submit' AND seq > ?", NULL, 0);
	int64_t n = -1;
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, after_seq);
	if (sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return n;
}

int lstate_decision_add(struct lstate *st, int64_t t_us, const char *kind, int64_t job, int64_t node,
                        const char *detail, char *err, size_t errlen)
{
	sqlite3_stmt *q = prep(st, "INSERT INTO decision(t_us, kind, job, node, detail) VALUES(?, ?, ?, ?, ?)",
	                       err, errlen);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, t_us);
	sqlite3_bind_text(q, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 3, job);
	sqlite3_bind_int64(q, 4, node);
	bind_text(q, 5, detail);
	return step_done(st, q, "logging a decision", err, errlen);
}

int lstate_decisions_db(struct lstate *st, int64_t after_seq, int64_t upto_us, char ***lines, int64_t *n,
                        int64_t *cap_, char *err, size_t errlen)
{
	sqlite3_stmt *q = prep(st, "SELECT t_us, kind, job, node, detail FROM decision WHERE seq > ? AND t_us <= ?"
	                       " ORDER BY seq", err, errlen);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, after_seq);
	sqlite3_bind_int64(q, 2, upto_us);
	int64_t cap = *cap_;
	int s;
	while ((s = sqlite3_step(q)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			*cap_ = cap;
			char **nl = realloc(*lines, (size_t)cap * sizeof *nl);
			if (!nl)
				goto oom;
			*lines = nl;
		}
		const char *d = (const char *)sqlite3_column_text(q, 4);
		char *line = NULL;
		if (asprintf(&line, "%lld %s %lld %lld %s", (long long)sqlite3_column_int64(q, 0),
		             (const char *)sqlite3_column_text(q, 1), (long long)sqlite3_column_int64(q, 2),
		             (long long)sqlite3_column_int64(q, 3), d ? d : "") < 0)
			goto oom;
		(*lines)[(*n)++] = line;
	}
	sqlite3_finalize(q);
	if (s != SQLITE_DONE)
		return dbfail(st, "reading decisions", err, errlen);
	return 0;
oom:
	sqlite3_finalize(q);
	snprintf(err, errlen, "out of memory reading decisions");
	return -1;
}

int lstate_job_put(struct lstate *st, const struct lstate_job *j, char *err, size_t errlen)
{
	sqlite3_stmt *q = prep(st, "INSERT OR REPLACE INTO jobs(id, name, class, tenant, state, submit_us, start_us,"
	                       " end_us, nodes, attempt, reason, ref, spec) VALUES(?,?,?,?,?,?,?,?,?,?,?,"
	                       " coalesce(?, (SELECT ref FROM jobs WHERE id = ?1)),"
	                       " coalesce(?, (SELECT spec FROM jobs WHERE id = ?1)))", err, errlen);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, j->id);
	bind_text(q, 2, j->name);
	bind_text(q, 3, j->cls);
	sqlite3_bind_int64(q, 4, j->tenant);
	bind_text(q, 5, j->state);
	sqlite3_bind_int64(q, 6, j->submit_us);
	sqlite3_bind_int64(q, 7, j->start_us);
	sqlite3_bind_int64(q, 8, j->end_us);
	bind_text(q, 9, j->nodes);
	sqlite3_bind_int64(q, 10, j->attempt);
	bind_text(q, 11, j->reason);
	bind_text(q, 12, j->ref);
	bind_text(q, 13, j->spec);
	return step_done(st, q, "writing a job", err, errlen);
}

int lstate_job_ref(struct lstate *st, int64_t id, char *out, size_t len)
{
	out[0] = 0;
	sqlite3_stmt *q = prep(st, "SELECT ref FROM jobs WHERE id = ?", NULL, 0);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, id);
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
		snprintf(out, len, "%s", (const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	return 0;
}

static const char *col(sqlite3_stmt *q, int i)
{
	const char *s = (const char *)sqlite3_column_text(q, i);
	return s ? s : "";
}

int lstate_print_queue(struct lstate *st, FILE *out, bool all, bool json, char *err, size_t errlen)
{
	return lstate_print_queue_for(st, out, all, json, -1, err, errlen);
}

int lstate_print_queue_for(struct lstate *st, FILE *out, bool all, bool json, int64_t uid, char *err, size_t errlen)
{
	char ep[32] = "";
	lstate_meta_get(st, "epoch_unix_us", ep, sizeof ep);
	long long epoch = strtoll(ep, NULL, 10);
	/* A state made before job owners were recorded (read-only: not
	 * upgraded) has no owners: only the unfiltered view shows its jobs. */
	bool owners = has_column(st, "job_owner", "uid");
	char sql[640];
	snprintf(sql, sizeof sql, "SELECT j.id, j.name, j.class, j.tenant, j.state, j.submit_us, j.start_us, j.end_us,"
	         " j.nodes, j.attempt, j.reason, j.ref, %s FROM jobs j%s WHERE %s AND %s ORDER BY j.id",
	         owners ? "o.user" : "NULL", owners ? " LEFT JOIN job_owner o ON o.id = j.id" : "",
	         all ? "1" : "j.state NOT IN ('done', 'failed', 'killed')",
	         uid < 0 ? "1" : owners ? "o.uid = ?1" : "0");
	sqlite3_stmt *q = prep(st, sql, err, errlen);
	if (!q)
		return -1;
	if (uid >= 0 && owners)
		sqlite3_bind_int64(q, 1, uid);
	if (json)
		fputs("[", out);
	else
		fprintf(out, "%6s  %-16s %-10s %-9s %6s %-13s %9s %9s %3s  %-30s %s\n", "ID", "NAME", "USER", "CLASS", "TENANT",
		        "STATE", "SUBMIT_S", "START_S", "TRY", "NODES", "REASON/REF");
	int n = 0, s;
	while ((s = sqlite3_step(q)) == SQLITE_ROW) {
		long long sub = sqlite3_column_int64(q, 5), sta = sqlite3_column_int64(q, 6);
		const char *user = (const char *)sqlite3_column_text(q, 12);
		if (json) {
			json_t *o = json_pack("{sI ss so ss sI ss sf so sI ss ss ss}", "id", (json_int_t)sqlite3_column_int64(q, 0),
			                      "name", col(q, 1), "user", user ? json_string(user) : json_null(), "class", col(q, 2),
			                      "tenant", (json_int_t)sqlite3_column_int64(q, 3), "state", col(q, 4),
			                      "submit_unix", (double)(epoch + sub) / 1e6,
			                      "start_unix", sta >= 0 ? json_real((double)(epoch + sta) / 1e6) : json_null(),
			                      "attempt", (json_int_t)sqlite3_column_int64(q, 9), "nodes", col(q, 8),
			                      "reason", col(q, 10), "ref", col(q, 11));
			char *t = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
			fprintf(out, "%s\n %s", n ? "," : "", t ? t : "{}");
			free(t);
			json_decref(o);
		} else {
			char start[32] = "-";
			if (sta >= 0 && strcmp(col(q, 4), "pending") != 0 && strcmp(col(q, 4), "held") != 0)
				snprintf(start, sizeof start, "%.1f", sta / 1e6);
			char rr[160], rre[640], name[256], ue[256];
			snprintf(rr, sizeof rr, "%s%s%s", col(q, 10), col(q, 10)[0] && col(q, 11)[0] ? " " : "", col(q, 11));
			/* A name is the submitter's text: never raw on a terminal. */
			live_escape(rre, sizeof rre, rr);
			live_escape(name, sizeof name, col(q, 1));
			live_escape(ue, sizeof ue, user ? user : "-");
			fprintf(out, "%6lld  %-16.16s %-10.10s %-9s %6lld %-13s %9.1f %9s %3lld  %-30.30s %s\n",
			        (long long)sqlite3_column_int64(q, 0), name[0] ? name : "-", ue, col(q, 2),
			        (long long)sqlite3_column_int64(q, 3), col(q, 4), sub / 1e6, start,
			        (long long)sqlite3_column_int64(q, 9), col(q, 8)[0] ? col(q, 8) : "-", rre);
		}
		n++;
	}
	sqlite3_finalize(q);
	if (s != SQLITE_DONE)
		return dbfail(st, "reading jobs", err, errlen);
	int64_t inbox = 0;
	bool by_uid = uid >= 0 && has_column(st, "inbox", "uid");
	if ((q = prep(st, by_uid ? "SELECT count(*) FROM inbox WHERE kind = 'submit' AND uid = ?"
	                         : uid >= 0 ? "SELECT 0" : "SELECT count(*) FROM inbox WHERE kind = 'submit'", err, errlen))) {
		if (by_uid)
			sqlite3_bind_int64(q, 1, uid);
		if (sqlite3_step(q) == SQLITE_ROW)
			inbox = sqlite3_column_int64(q, 0);
		sqlite3_finalize(q);
	}
	if (json)
		fprintf(out, "%s]\n", n ? "\n" : "");
	else {
		fprintf(out, "%d job%s%s; %lld submitted and not yet taken by the daemon\n", n, n == 1 ? "" : "s",
		        all ? "" : " not finished", (long long)inbox);
		lstate_print_quarantine(st, out, uid);
	/* Capacity others hold (the Slurm executor), which the policy does not use. */
	if ((q = prep(st, "SELECT node, cores, gpus, mem_mib, what FROM foreign_hold ORDER BY node", NULL, 0))) {
		while (sqlite3_step(q) == SQLITE_ROW)
			fprintf(out, "held outside hetlab on %s: %lld cores, %lld GPUs, %lld MiB (%s)\n", col(q, 0),
			        (long long)sqlite3_column_int64(q, 1), (long long)sqlite3_column_int64(q, 2),
			        (long long)sqlite3_column_int64(q, 3), col(q, 4));
		sqlite3_finalize(q);
	}
	}
	return 0;
}

/* ---- the executor's handles and what others hold ---- */

static const char *col(sqlite3_stmt *q, int i);

int lstate_xref_add(struct lstate *st, int64_t job, int32_t attempt, int64_t sid, const char *shape, char *err,
                    size_t errlen)
{
	sqlite3_stmt *q = prep(st, "INSERT OR REPLACE INTO xref(job, sid, attempt, at_unix, shape)"
	                       " VALUES(?, ?, ?, (julianday('now') - 2440587.5) * 86400.0, ?)", err, errlen);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, job);
	sqlite3_bind_int64(q, 2, sid);
	sqlite3_bind_int(q, 3, attempt);
	bind_text(q, 4, shape);
	return step_done(st, q, "recording a Slurm job id", err, errlen);
}

static int xref_set_open(struct lstate *st, int64_t job, int64_t sid, int open, char *err, size_t errlen)
{
	sqlite3_stmt *q = prep(st, "UPDATE xref SET open = ? WHERE job = ? AND sid = ?", err, errlen);
	if (!q)
		return -1;
	sqlite3_bind_int(q, 1, open);
	sqlite3_bind_int64(q, 2, job);
	sqlite3_bind_int64(q, 3, sid);
	return step_done(st, q, open ? "marking a replaced Slurm job id" : "closing a Slurm job id", err, errlen);
}

int lstate_xref_close(struct lstate *st, int64_t job, int64_t sid, char *err, size_t errlen)
{
	return xref_set_open(st, job, sid, 0, err, errlen);
}

int lstate_xref_replaced(struct lstate *st, int64_t job, int64_t sid, char *err, size_t errlen)
{
	return xref_set_open(st, job, sid, 2, err, errlen);
}

int lstate_xref_each(struct lstate *st, int (*fn)(void *ctx, const struct lstate_xref *x), void *ctx, char *err,
                     size_t errlen)
{
	sqlite3_stmt *q = prep(st, "SELECT job, attempt, sid, open, shape FROM xref ORDER BY job, at_unix, sid", err,
	                       errlen);
	if (!q)
		return -1;
	int rc = 0, s;
	while ((s = sqlite3_step(q)) == SQLITE_ROW) {
		struct lstate_xref x = { .job = sqlite3_column_int64(q, 0), .attempt = sqlite3_column_int(q, 1),
		                         .sid = sqlite3_column_int64(q, 2), .open = sqlite3_column_int(q, 3) == 1,
		                         .replaced = sqlite3_column_int(q, 3) == 2,
		                         .shape = col(q, 4) };
		if ((rc = fn(ctx, &x)))
			break;
	}
	if (rc == 0 && s != SQLITE_DONE)
		rc = dbfail(st, "reading the Slurm job ids", err, errlen);
	sqlite3_finalize(q);
	return rc;
}

int lstate_xref_last(struct lstate *st, int64_t job, int64_t *sid, char *err, size_t errlen)
{
	*sid = -1;
	sqlite3_stmt *q = prep(st, "SELECT max(sid) FROM xref WHERE job = ?", err, errlen);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, job);
	int s = sqlite3_step(q);
	if (s == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
		*sid = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return s == SQLITE_ROW || s == SQLITE_DONE ? 0 : dbfail(st, "reading a job's Slurm job ids", err, errlen);
}

int lstate_foreign_set(struct lstate *st, const char *node, int cores, int gpus, int64_t mem_mib, const char *what,
                       char *err, size_t errlen)
{
	bool none = cores <= 0 && gpus <= 0 && mem_mib <= 0;
	sqlite3_stmt *q = prep(st, none ? "DELETE FROM foreign_hold WHERE node = ?1"
	                                : "INSERT OR REPLACE INTO foreign_hold(node, cores, gpus, mem_mib, what, at_unix)"
	                                  " VALUES(?1, ?2, ?3, ?4, ?5, (julianday('now') - 2440587.5) * 86400.0)", err, errlen);
	if (!q)
		return -1;
	bind_text(q, 1, node);
	if (!none) {
		sqlite3_bind_int(q, 2, cores);
		sqlite3_bind_int(q, 3, gpus);
		sqlite3_bind_int64(q, 4, mem_mib);
		bind_text(q, 5, what);
	}
	return step_done(st, q, "recording what others hold", err, errlen);
}
int64_t lstate_print_quarantine(struct lstate *st, FILE *out, int64_t uid)
{
	if (!has_column(st, "quarantine", "why"))
		return 0;
	sqlite3_stmt *q = prep(st, uid < 0 ? "SELECT inbox_seq, kind, user, why FROM quarantine ORDER BY seq"
	                                   : "SELECT inbox_seq, kind, user, why FROM quarantine WHERE uid = ? ORDER BY seq",
	                       NULL, 0);
	if (!q)
		return -1;
	if (uid >= 0)
		sqlite3_bind_int64(q, 1, uid);
	int64_t n = 0;
	while (sqlite3_step(q) == SQLITE_ROW) {
		char why[1200], kind[64], user[128];
		live_escape(why, sizeof why, col(q, 3));
		live_escape(kind, sizeof kind, col(q, 1));
		live_escape(user, sizeof user, col(q, 2)[0] ? col(q, 2) : "?");
		fprintf(out, "quarantined: inbox row %lld (%s by %s), skipped: %s\n", (long long)sqlite3_column_int64(q, 0),
		        kind, user, why);
		n++;
	}
	sqlite3_finalize(q);
	return n;
}

/* ---- identity: who sent a request, who owns a job, the quarantine ---- */

static bool has_column(struct lstate *st, const char *table, const char *column)
{
	sqlite3_stmt *q = NULL;
	char sql[96];
	snprintf(sql, sizeof sql, "SELECT 1 FROM pragma_table_info('%s') WHERE name = ?", table);
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(q, 1, column, -1, SQLITE_STATIC);
	bool yes = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	return yes;
}

static void bind_id(sqlite3_stmt *q, int i, int64_t v)
{
	if (v >= 0)
		sqlite3_bind_int64(q, i, v);
	else
		sqlite3_bind_null(q, i);
}

int lstate_inbox_add_as(struct lstate *st, const char *kind, int64_t job, const char *spec,
                        const struct lstate_who *w, int64_t *seq, char *err, size_t errlen)
{
	sqlite3_stmt *q = prep(st, "INSERT INTO inbox(kind, job, spec, at_unix, uid, gid, user) VALUES(?, ?, ?, "
	                       "(julianday('now') - 2440587.5) * 86400.0, ?, ?, ?)", err, errlen);
	if (!q)
		return -1;
	sqlite3_bind_text(q, 1, kind, -1, SQLITE_STATIC);
	bind_id(q, 2, job);
	bind_text(q, 3, spec);
	bind_id(q, 4, w ? w->uid : -1);
	bind_id(q, 5, w ? w->gid : -1);
	bind_text(q, 6, w ? w->user : NULL);
	if (step_done(st, q, "adding to the inbox", err, errlen))
		return -1;
	if (seq)
		*seq = sqlite3_last_insert_rowid(st->db);
	return 0;
}

int lstate_quarantine_add(struct lstate *st, const struct inbox_row *r, const char *why, char *err, size_t errlen)
{
	sqlite3_stmt *q = prep(st, "INSERT INTO quarantine(inbox_seq, kind, job, spec, at_unix, uid, gid, user, why,"
	                       " quarantined_unix) SELECT seq, kind, job, spec, at_unix, uid, gid, user, ?,"
	                       " (julianday('now') - 2440587.5) * 86400.0 FROM inbox WHERE seq = ?", err, errlen);
	if (!q)
		return -1;
	bind_text(q, 1, why);
	sqlite3_bind_int64(q, 2, r->seq);
	return step_done(st, q, "quarantining an inbox row", err, errlen);
}

int lstate_owner_put(struct lstate *st, int64_t job, const struct lstate_who *w, char *err, size_t errlen)
{
	sqlite3_stmt *q = prep(st, "INSERT OR REPLACE INTO job_owner(id, uid, gid, user) VALUES(?, ?, ?, ?)", err, errlen);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, job);
	bind_id(q, 2, w ? w->uid : -1);
	bind_id(q, 3, w ? w->gid : -1);
	bind_text(q, 4, w ? w->user : NULL);
	return step_done(st, q, "recording a job's owner", err, errlen);
}

int lstate_owner_get(struct lstate *st, int64_t job, int64_t *uid)
{
	*uid = -1;
	sqlite3_stmt *q = prep(st, "SELECT uid FROM job_owner WHERE id = ?", NULL, 0);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, job);
	int rc = 1;
	if (sqlite3_step(q) == SQLITE_ROW) {
		rc = 0;
		if (sqlite3_column_type(q, 0) == SQLITE_INTEGER)
			*uid = sqlite3_column_int64(q, 0);
	}
	sqlite3_finalize(q);
	return rc;
}

/* ---- what the socket keeps per user ---- */

int64_t lstate_pending_of(struct lstate *st, int64_t uid)
{
	/* A job the daemon took is pending until it starts: its row in jobs
	 * says so, or it has none yet (written at the commit of the step that
	 * took it, with every job of that step: the jobs with rows are the
	 * ids up to the largest). Neither walks the state's history: the
	 * pending rows by the index on state, the newest by id. */
	sqlite3_stmt *q = prep(st, "SELECT (SELECT count(*) FROM inbox WHERE kind = 'submit' AND uid = ?1)"
	                       " + (SELECT count(*) FROM jobs j JOIN job_owner o ON o.id = j.id"
	                       " WHERE j.state IN ('pending', 'held') AND o.uid = ?1)"
	                       " + (SELECT count(*) FROM job_owner WHERE uid = ?1"
	                       " AND id > (SELECT coalesce(max(id), -1) FROM jobs))", NULL, 0);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, uid);
	int64_t n = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : -1;
	sqlite3_finalize(q);
	return n;
}

int lstate_request_get(struct lstate *st, int64_t uid, const char *rid, char **reply, char *err, size_t errlen)
{
	*reply = NULL;
	sqlite3_stmt *q = prep(st, "SELECT reply FROM request WHERE uid = ? AND rid = ?", err, errlen);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, uid);
	bind_text(q, 2, rid);
	int s = sqlite3_step(q), rc = 1;
	if (s == SQLITE_ROW) {
		*reply = strdup(col(q, 0));
		rc = *reply ? 0 : -1;
		if (rc)
			snprintf(err, errlen, "out of memory");
	} else if (s != SQLITE_DONE) {
		rc = dbfail(st, "reading the requests answered", err, errlen);
	}
	sqlite3_finalize(q);
	return rc;
}

int lstate_request_put(struct lstate *st, int64_t uid, const char *rid, const char *reply, char *err, size_t errlen)
{
	sqlite3_stmt *q = prep(st, "DELETE FROM request WHERE at_unix < (julianday('now') - 2440587.5) * 86400.0 - ?",
	                       err, errlen);
	if (!q)
		return -1;
	sqlite3_bind_double(q, 1, LSTATE_REQUEST_KEEP_S);
	if (step_done(st, q, "forgetting old requests", err, errlen))
		return -1;
	q = prep(st, "INSERT INTO request(uid, rid, at_unix, reply) VALUES(?, ?, (julianday('now') - 2440587.5) * 86400.0,"
	         " ?)", err, errlen);
	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, uid);
	bind_text(q, 2, rid);
	bind_text(q, 3, reply);
	return step_done(st, q, "remembering a request", err, errlen);
}

int64_t lstate_decision_last(struct lstate *st)
{
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(st->db, "SELECT coalesce(max(seq), 0) FROM decision", -1, &q, NULL) != SQLITE_OK)
		return -1;
	int64_t n = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : -1;
	sqlite3_finalize(q);
	return n;
}

int64_t lstate_rec_last(struct lstate *st)
{
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(st->db, "SELECT coalesce(max(seq), 0) FROM rec", -1, &q, NULL) != SQLITE_OK)
		return -1;
	int64_t n = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : -1;
	sqlite3_finalize(q);
	return n;
}
