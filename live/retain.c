/* retain — kept snapshots, the archives of a pruned state and `hetlab
 * state-prune`. See retain.h. */
#include "live/retain.h"
#include "live/state.h"
#include "live/statedir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- files ---- */

static void fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int lretain_write_file(const char *dir, const char *name, const void *buf, size_t n, char *err, size_t errlen)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
		snprintf(err, errlen, "%s/%s: path too long", dir, name);
		return -1;
	}
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	size_t off = 0;
	while (off < n) {
		ssize_t k = write(fd, (const char *)buf + off, n - off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		off += (size_t)k;
	}
	bool ok = off == n && fsync(fd) == 0;
	int e = errno;
	close(fd);
	if (!ok || rename(tmp, path) < 0) {
		snprintf(err, errlen, "%s: %s", ok ? path : tmp, strerror(ok ? errno : e));
		unlink(tmp);
		return -1;
	}
	fsync_dir(dir);
	return 0;
}

/* The whole regular file (malloc'd), or NULL with err. */
static char *slurp(const char *path, size_t *n, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: %s", path, fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	char *buf = malloc((size_t)sb.st_size + 1);
	size_t off = 0;
	while (buf && off < (size_t)sb.st_size) {
		ssize_t k = read(fd, buf + off, (size_t)sb.st_size - off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		off += (size_t)k;
	}
	close(fd);
	if (!buf || off != (size_t)sb.st_size) {
		snprintf(err, errlen, "%s: cannot read it whole", path);
		free(buf);
		return NULL;
	}
	*n = off;
	return buf;
}

static int copy_file(const char *src, const char *dir, const char *name, char *err, size_t errlen)
{
	size_t n = 0;
	char *buf = slurp(src, &n, err, errlen);
	if (!buf)
		return -1;
	int rc = lretain_write_file(dir, name, buf, n, err, errlen);
	free(buf);
	return rc;
}

/* ---- kept snapshots ---- */

void lsnap_kept_name(char *out, size_t len, int64_t seq, int64_t dseq, int64_t now_us)
{
	snprintf(out, len, "%012lld-%012lld-%015lld.snap", (long long)seq, (long long)dseq, (long long)now_us);
}

static int kept_cmp(const void *a, const void *b)
{
	const struct lsnap_kept *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int lsnap_kept_list(const char *dir, struct lsnap_kept **v, int *n, char *err, size_t errlen)
{
	*v = NULL;
	*n = 0;
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", dir, LSNAP_KEPT_DIR);
	DIR *d = opendir(p);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", p, strerror(errno));
		return -1;
	}
	struct dirent *e;
	int cap = 0;
	while ((e = readdir(d))) {
		long long a, b, c;
		char tail[8] = "";
		if (strlen(e->d_name) != 46 || sscanf(e->d_name, "%12lld-%12lld-%15lld%7s", &a, &b, &c, tail) != 4 ||
		    strcmp(tail, ".snap") != 0)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			struct lsnap_kept *nv = realloc(*v, (size_t)cap * sizeof *nv);
			if (!nv) {
				closedir(d);
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			*v = nv;
		}
		struct lsnap_kept *k = &(*v)[(*n)++];
		k->seq = a;
		k->dseq = b;
		k->now_us = c;
		snprintf(k->name, sizeof k->name, "%s", e->d_name);
	}
	closedir(d);
	if (*n > 1)
		qsort(*v, (size_t)*n, sizeof **v, kept_cmp);
	return 0;
}

/* ---- archives ---- */

struct arch {
	int64_t from, to;
};

static int arch_cmp(const void *a, const void *b)
{
	const struct arch *x = a, *y = b;
	return x->from < y->from ? -1 : x->from > y->from;
}

static void arch_name(char *out, size_t len, int64_t from, int64_t to)
{
	snprintf(out, len, "%012lld-%012lld", (long long)from, (long long)to);
}

/* The archives in dir/archive, by their first row (tmp: also the
 * unfinished ones, *.tmp, as to = -1). */
static int arch_list(const char *dir, struct arch **v, int *n, bool tmp, char *err, size_t errlen)
{
	*v = NULL;
	*n = 0;
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", dir, LARCHIVE_DIR);
	DIR *d = opendir(p);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: %s", p, strerror(errno));
		return -1;
	}
	struct dirent *e;
	int cap = 0;
	while ((e = readdir(d))) {
		long long a, b;
		size_t len = strlen(e->d_name);
		bool is_tmp = len == 29 && strcmp(e->d_name + 25, ".tmp") == 0;
		if ((len != 25 && !is_tmp) || (is_tmp && !tmp) || sscanf(e->d_name, "%12lld-%12lld", &a, &b) != 2)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			struct arch *nv = realloc(*v, (size_t)cap * sizeof *nv);
			if (!nv) {
				closedir(d);
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			*v = nv;
		}
		(*v)[(*n)++] = (struct arch){ a, is_tmp ? -b - 1 : b };
	}
	closedir(d);
	if (*n > 1)
		qsort(*v, (size_t)*n, sizeof **v, arch_cmp);
	return 0;
}

/* The state directory of an open state (its path less /state.db). */
static void dir_of(const struct lstate *st, char *out, size_t len)
{
	snprintf(out, len, "%s", st->path);
	char *slash = strrchr(out, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(out, len, ".");
}

static int64_t meta_i64(struct lstate *st, const char *key)
{
	char v[32] = "";
	lstate_meta_get(st, key, v, sizeof v);
	return v[0] ? strtoll(v, NULL, 10) : 0;
}

/* Each archive holding rows up to pruned (in order, checked to follow one
 * another from row 1), with fn(ctx, its directory, the archive). */
static int arch_walk(struct lstate *st, int64_t pruned, int (*fn)(void *ctx, const char *adir, const struct arch *a),
                     void *ctx, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	dir_of(st, dir, sizeof dir);
	struct arch *v;
	int n;
	if (arch_list(dir, &v, &n, false, err, errlen))
		return -1;
	int64_t next = 1;
	int rc = 0;
	for (int i = 0; i < n && rc == 0 && v[i].from <= pruned; i++) {
		if (v[i].from != next || v[i].to > pruned) {
			snprintf(err, errlen, "%s/%s: the recording's rows %lld to %lld were archived by a prune, but are in no "
			         "archive there (restore that archive from a backup, or use a snapshot past row %lld)", dir, LARCHIVE_DIR, (long long)next,
			         (long long)(v[i].from > next ? v[i].from - 1 : pruned), (long long)pruned);
			rc = -1;
			break;
		}
		char adir[PATH_MAX + 64], an[32];
		arch_name(an, sizeof an, v[i].from, v[i].to);
		snprintf(adir, sizeof adir, "%s/%s/%s", dir, LARCHIVE_DIR, an);
		rc = fn(ctx, adir, &v[i]);
		next = v[i].to + 1;
	}
	if (rc == 0 && next != pruned + 1) {
		snprintf(err, errlen, "%s/%s: the recording's rows %lld to %lld were archived by a prune, but are in no "
		         "archive there (restore that archive from a backup, or use a snapshot past row %lld)", dir, LARCHIVE_DIR, (long long)next,
		         (long long)pruned, (long long)pruned);
		rc = -1;
	}
	free(v);
	return rc;
}

struct rec_walk {
	int64_t after;
	int (*fn)(void *ctx, const struct rec_row *r);
	void *ctx;
	char *err;
	size_t errlen;
};

static int rec_arch(void *ctx, const char *adir, const struct arch *a)
{
	struct rec_walk *w = ctx;
	if (a->to <= w->after)
		return 0;
	struct lstate as;
	if (lstate_open_ro(&as, adir, w->err, w->errlen))
		return -1;
	int rc = lstate_rec_each_db(&as, w->after, w->fn, w->ctx, w->err, w->errlen);
	lstate_close(&as);
	return rc;
}

/* A read transaction around a walk of a read-only state: the prune of a
 * running daemon commits whole, never between the archives and the rows. */
static bool read_begin(struct lstate *st)
{
	if (!sqlite3_get_autocommit(st->db) || sqlite3_db_readonly(st->db, "main") != 1)
		return false;
	return sqlite3_exec(st->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
}

static void read_end(struct lstate *st, bool txn)
{
	if (txn)
		sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
}

int lstate_rec_each(struct lstate *st, int64_t after_seq, int (*fn)(void *ctx, const struct rec_row *r),
                    void *ctx, char *err, size_t errlen)
{
	bool txn = read_begin(st);
	int64_t pruned = meta_i64(st, "pruned_seq");
	int rc = 0;
	if (pruned > 0 && after_seq < pruned) {
		struct rec_walk w = { after_seq, fn, ctx, err, errlen };
		rc = arch_walk(st, pruned, rec_arch, &w, err, errlen);
	}
	if (rc == 0)
		rc = lstate_rec_each_db(st, after_seq > pruned ? after_seq : pruned, fn, ctx, err, errlen);
	read_end(st, txn);
	return rc;
}

struct dec_walk {
	int64_t upto;
	char ***lines;
	int64_t *n, cap;
	char *err;
	size_t errlen;
};

static int dec_arch(void *ctx, const char *adir, const struct arch *a)
{
	(void)a;
	struct dec_walk *w = ctx;
	struct lstate as;
	if (lstate_open_ro(&as, adir, w->err, w->errlen))
		return -1;
	int rc = lstate_decisions_db(&as, 0, w->upto, w->lines, w->n, &w->cap, w->err, w->errlen);
	lstate_close(&as);
	return rc;
}

int lstate_decisions(struct lstate *st, int64_t upto_us, char ***lines, int64_t *n, char *err, size_t errlen)
{
	*lines = NULL;
	*n = 0;
	bool txn = read_begin(st);
	int64_t pruned = meta_i64(st, "pruned_seq"), pdseq = meta_i64(st, "pruned_dseq");
	struct dec_walk w = { upto_us, lines, n, 0, err, errlen };
	int rc = 0;
	if (pruned > 0)
		rc = arch_walk(st, pruned, dec_arch, &w, err, errlen);
	if (rc == 0)
		rc = lstate_decisions_db(st, pdseq, upto_us, lines, n, &w.cap, err, errlen);
	read_end(st, txn);
	return rc;
}

static int count_arch(void *ctx, const char *adir, const struct arch *a)
{
	(void)a;
	int64_t *n = ctx;
	struct lstate as;
	char e[256];
	if (lstate_open_ro(&as, adir, e, sizeof e))
		return -1;
	int64_t k = lstate_count_submits_db(&as, 0);
	lstate_close(&as);
	if (k < 0)
		return -1;
	*n += k;
	return 0;
}

int64_t lstate_count_submits(struct lstate *st)
{
	bool txn = read_begin(st);
	int64_t pruned = meta_i64(st, "pruned_seq"), n = 0;
	char e[512];
	int rc = pruned > 0 ? arch_walk(st, pruned, count_arch, &n, e, sizeof e) : 0;
	/* the state's rows past the cut (the last row it keeps may be archived) */
	int64_t k = rc ? -1 : lstate_count_submits_db(st, pruned);
	read_end(st, txn);
	return k < 0 ? -1 : n + k;
}

/* ---- prune ---- */

/* A state.db larger than this is not vacuumed by a prune (a VACUUM holds
 * the daemon's writes for as long as it takes). */
#define LRETAIN_VACUUM_MAX (64 << 20)

/* A test's kill -9 at step k of a prune (tests/live/prune.sh):
 * HETLAB_TEST_PRUNE_KILL=k. */
static void test_kill(int k)
{
	const char *s = getenv("HETLAB_TEST_PRUNE_KILL");
	if (s && atoi(s) == k)
		raise(SIGKILL);
}

static int exec_sql(struct lstate *st, const char *sql, const char *what, char *err, size_t errlen)
{
	char *m = NULL;
	if (sqlite3_exec(st->db, sql, NULL, NULL, &m) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s: %s", st->path, what, m ? m : sqlite3_errmsg(st->db));
		sqlite3_free(m);
		return -1;
	}
	return 0;
}

static int attach(struct lstate *st, const char *adir, char *err, size_t errlen)
{
	char *sql = sqlite3_mprintf("ATTACH DATABASE '%q/state.db' AS a", adir);
	int rc = sql ? exec_sql(st, sql, "attaching the archive", err, errlen) : -1;
	sqlite3_free(sql);
	return rc;
}

/* Removes a directory the prune made (an archive not committed): its
 * files by name, then itself. */
static int remove_made(const char *path, char *err, size_t errlen)
{
	static const char *const files[] = { "state.db", "state.db-wal", "state.db-shm", "state.db-journal", "snapshot",
	                                     "snapshot.tmp", NULL };
	char p[PATH_MAX + 64];
	for (int i = 0; files[i]; i++) {
		snprintf(p, sizeof p, "%s/%s", path, files[i]);
		unlink(p);
	}
	if (rmdir(path) < 0 && errno != ENOENT) {
		snprintf(err, errlen, "%s: cannot remove this unfinished archive: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* What a prune cut short left: archives not committed (past pruned_seq,
 * or unfinished), start snapshots other than pruned_seq's. */
static int recover(const char *dir, int64_t pruned, char *err, size_t errlen)
{
	struct arch *v;
	int n;
	if (arch_list(dir, &v, &n, true, err, errlen))
		return -1;
	int rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		if (v[i].to >= 0 && v[i].from <= pruned)
			continue;
		char an[32], p[PATH_MAX + 64];
		arch_name(an, sizeof an, v[i].from, v[i].to >= 0 ? v[i].to : -v[i].to - 1);
		snprintf(p, sizeof p, "%s/%s/%s%s", dir, LARCHIVE_DIR, an, v[i].to >= 0 ? "" : ".tmp");
		rc = remove_made(p, err, errlen);
	}
	free(v);
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", dir, LARCHIVE_DIR);
	DIR *d = opendir(p);
	struct dirent *e;
	while (rc == 0 && d && (e = readdir(d))) {
		long long s;
		char tail[16] = "";
		if (strncmp(e->d_name, "start-", 6) || sscanf(e->d_name + 6, "%lld%15s", &s, tail) != 2 ||
		    (strcmp(tail, ".snap") && strcmp(tail, ".snap.tmp")) || (s == pruned && !strcmp(tail, ".snap")))
			continue;
		char f[PATH_MAX + 300];
		snprintf(f, sizeof f, "%s/%s", p, e->d_name);
		unlink(f);
	}
	if (d)
		closedir(d);
	return rc;
}

/* The archive of rows pfrom..K in adir (made here, .tmp): its state.db,
 * and the snapshot the window starts from (none from row 1). */
static int write_archive(struct lstate *st, const char *dir, const char *tmpdir, int64_t pseq, int64_t pdseq,
                         const struct lsnap_kept *k, char *err, size_t errlen)
{
	struct lstate as;
	if (lstate_open(&as, tmpdir, err, errlen))
		return -1;
	int rc = exec_sql(&as, "PRAGMA journal_mode=DELETE", "leaving WAL", err, errlen);
	lstate_close(&as);
	if (rc || attach(st, tmpdir, err, errlen))
		return -1;
	char *sql = sqlite3_mprintf(
		"BEGIN;"
		"INSERT OR REPLACE INTO a.meta SELECT key, value FROM main.meta"
		" WHERE key NOT IN ('applied_us', 'pruned_seq', 'pruned_dseq');"
		"INSERT OR REPLACE INTO a.meta VALUES('applied_us', '%lld'), ('archive_from', '%lld'), ('archive_to', '%lld'),"
		" ('archive_dseq_from', '%lld'), ('archive_dseq_to', '%lld');"
		"INSERT INTO a.rec SELECT * FROM main.rec WHERE seq > %lld AND seq <= %lld;"
		"INSERT INTO a.decision SELECT * FROM main.decision WHERE seq > %lld AND seq <= %lld;"
		"INSERT INTO a.jobs SELECT * FROM main.jobs WHERE end_us >= 0 AND end_us <= %lld"
		" AND state IN ('done', 'failed', 'killed');"
		"INSERT INTO a.job_owner SELECT * FROM main.job_owner WHERE id IN (SELECT id FROM a.jobs);"
		"COMMIT;",
		(long long)k->now_us, (long long)pseq + 1, (long long)k->seq, (long long)pdseq + 1, (long long)k->dseq,
		(long long)pseq, (long long)k->seq, (long long)pdseq, (long long)k->dseq, (long long)k->now_us);
	rc = sql ? exec_sql(st, sql, "writing the archive", err, errlen) : -1;
	sqlite3_free(sql);
	if (rc)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_exec(st->db, "DETACH DATABASE a", NULL, NULL, NULL);
	if (rc)
		return -1;
	if (pseq > 0) {
		char src[PATH_MAX + 64];
		snprintf(src, sizeof src, "%s/%s/start-%lld.snap", dir, LARCHIVE_DIR, (long long)pseq);
		if (copy_file(src, tmpdir, "snapshot", err, errlen))
			return -1;
	}
	/* flushed: the database (its journal gone) and the directory */
	char p[PATH_MAX + 64];
	snprintf(p, sizeof p, "%s/state.db", tmpdir);
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fsync(fd) < 0) {
		snprintf(err, errlen, "%s: %s", p, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	fsync_dir(tmpdir);
	return 0;
}

/* Deletes table's rows with seq <= upto (but its last), 5000 per
 * transaction. */
static int delete_upto(struct lstate *st, const char *table, int64_t upto, char *err, size_t errlen)
{
	char *sql = sqlite3_mprintf("DELETE FROM %s WHERE seq IN (SELECT seq FROM %s WHERE seq <= %lld AND seq < "
	                            "(SELECT max(seq) FROM %s) ORDER BY seq LIMIT 5000)", table, table, (long long)upto,
	                            table);
	if (!sql) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = 0;
	do
		rc = exec_sql(st, sql, "deleting the archived rows", err, errlen);
	while (rc == 0 && sqlite3_changes(st->db) > 0);
	sqlite3_free(sql);
	return rc;
}

int lretain_prune(const char *dir, double cutoff_unix, FILE *out, char *err, size_t errlen)
{
	uid_t owner;
	if (lsdir_owner(dir, &owner, err, errlen))
		return -1;
	if (owner != geteuid()) {
		snprintf(err, errlen, "%s: the state belongs to uid %ld: only its owner prunes it (as root: sudo -u its "
		         "owner), so that every file in it stays the daemon's", dir, (long)owner);
		return -1;
	}
	struct lstate st;
	if (lstate_open_existing(&st, dir, err, errlen))
		return -1;
	int64_t pseq = meta_i64(&st, "pruned_seq"), pdseq = meta_i64(&st, "pruned_dseq");
	int64_t epoch = meta_i64(&st, "epoch_unix_us");
	struct lsnap_kept *kv = NULL;
	int nk = 0, rc = -1, lock = -1;
	char ksrc[PATH_MAX + 128];
	char *kbuf = NULL;   /* the kept snapshot cut at */
	size_t klen = 0;
	/* one prune at a time (a second would take the first's archive for
	 * one a crash left) */
	char ad[PATH_MAX + 16];
	snprintf(ad, sizeof ad, "%s/%s", dir, LARCHIVE_DIR);
	if (lsdir_subdir(dir, LARCHIVE_DIR, err, errlen) ||
	    (lock = lsdir_open(ad, "prune.lock", O_RDWR | O_CREAT, err, errlen)) < 0)
		goto done;
	if (flock(lock, LOCK_EX | LOCK_NB) < 0) {
		snprintf(err, errlen, "%s/prune.lock: another hetlab state-prune is running on this state", ad);
		goto done;
	}
	if (recover(dir, pseq, err, errlen) || lsnap_kept_list(dir, &kv, &nk, err, errlen))
		goto done;
	/* the latest kept snapshot at or before the cutoff, past the last cut,
	 * read at once (a running daemon removes the oldest beyond
	 * snapshot_keep: one gone meanwhile, the list is read again) */
	const struct lsnap_kept *k = NULL;
	for (int tries = 0; tries < 20; tries++) {
		k = NULL;
		for (int i = 0; i < nk; i++)
			if (kv[i].seq > pseq && (double)(epoch + kv[i].now_us) / 1e6 <= cutoff_unix)
				k = &kv[i];
		if (!k)
			break;
		snprintf(ksrc, sizeof ksrc, "%s/%s/%s", dir, LSNAP_KEPT_DIR, k->name);
		if ((kbuf = slurp(ksrc, &klen, err, errlen)) != NULL)
			break;
		struct stat sb;
		if (lstat(ksrc, &sb) == 0 || errno != ENOENT)
			goto done;
		free(kv);
		kv = NULL;
		if (lsnap_kept_list(dir, &kv, &nk, err, errlen))
			goto done;
	}
	if (k && !kbuf)
		goto done;
	if (!k) {
		/* what a prune cut short in its deletes left */
		if (pseq > 0 && (delete_upto(&st, "rec", pseq, err, errlen) || delete_upto(&st, "decision", pdseq, err, errlen)))
			goto done;
		fprintf(out, "hetlab state-prune: nothing to prune in %s: no kept snapshot (%s/%s) at or before the cutoff "
		        "past the last prune (row %lld)\n", dir, dir, LSNAP_KEPT_DIR, (long long)pseq);
		rc = 0;
		goto done;
	}
	if (lstate_rec_last(&st) < k->seq) {
		snprintf(err, errlen, "%s/%s/%s: covers row %lld, past the recording's last: not this state's", dir,
		         LSNAP_KEPT_DIR, k->name, (long long)k->seq);
		goto done;
	}
	char an[32], adir[PATH_MAX + 64], tmpdir[PATH_MAX + 80], sname[64];
	arch_name(an, sizeof an, pseq + 1, k->seq);
	snprintf(adir, sizeof adir, "%s/%s/%s", dir, LARCHIVE_DIR, an);
	snprintf(tmpdir, sizeof tmpdir, "%s.tmp", adir);
	snprintf(sname, sizeof sname, "start-%lld.snap", (long long)k->seq);
	/* 1. the archive, written and flushed whole under a temporary name */
	if (write_archive(&st, dir, tmpdir, pseq, pdseq, k, err, errlen))
		goto done;
	test_kill(1);
	/* 2. in its place */
	if (rename(tmpdir, adir) < 0) {
		snprintf(err, errlen, "%s: %s", adir, strerror(errno));
		goto done;
	}
	fsync_dir(ad);
	test_kill(2);
	/* 3. the snapshot the next archive will start from */
	if (lretain_write_file(ad, sname, kbuf, klen, err, errlen))
		goto done;
	test_kill(3);
	/* 4. the cut recorded (readers of the state skip its rows up to it
	 * from now on), with the archived jobs' rows deleted */
	if (attach(&st, adir, err, errlen))
		goto done;
	char *sql = sqlite3_mprintf(
		"BEGIN IMMEDIATE;"
		"DELETE FROM jobs WHERE id IN (SELECT id FROM a.jobs);"
		"DELETE FROM job_owner WHERE id IN (SELECT id FROM a.jobs);"
		"INSERT OR REPLACE INTO meta VALUES('pruned_seq', '%lld'), ('pruned_dseq', '%lld');"
		"COMMIT;", (long long)k->seq, (long long)k->dseq);
	int r = sql ? exec_sql(&st, sql, "recording the cut", err, errlen) : -1;
	sqlite3_free(sql);
	if (r)
		sqlite3_exec(st.db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_exec(st.db, "DETACH DATABASE a", NULL, NULL, NULL);
	if (r)
		goto done;
	test_kill(4);
	/* 5. the rows up to the cut deleted, a few thousand per transaction,
	 * so that a running daemon never waits long (what a crash leaves is
	 * skipped, and deleted by the next prune); the last row of rec and
	 * decision stays, so that their numbering never restarts */
	if (delete_upto(&st, "rec", k->seq, err, errlen))
		goto done;
	test_kill(5);
	if (delete_upto(&st, "decision", k->dseq, err, errlen))
		goto done;
	/* 6. the last start snapshot is in the archive now; the file shrunk
	 * (up to a size that vacuums quickly: beyond, its free pages are
	 * reused as the state grows again) */
	if (pseq > 0) {
		char old[PATH_MAX + 64];
		snprintf(old, sizeof old, "%s/start-%lld.snap", ad, (long long)pseq);
		unlink(old);
	}
	struct stat sb;
	bool small = stat(st.path, &sb) == 0 && sb.st_size <= LRETAIN_VACUUM_MAX;
	if (small && exec_sql(&st, "VACUUM; PRAGMA wal_checkpoint(TRUNCATE);", "vacuuming", err, errlen))
		goto done;
	if (!small)
		fprintf(out, "hetlab state-prune: %s is over %d MiB: not vacuumed (its free pages are reused; `sqlite3 %s "
		        "VACUUM` with the daemon stopped gives them back)\n", st.path, LRETAIN_VACUUM_MAX >> 20, st.path);
	fprintf(out, "hetlab state-prune: the recording's rows %lld to %lld (to engine time %.3f s) and their decisions and "
	        "ended jobs archived to %s\n", (long long)pseq + 1, (long long)k->seq, (double)k->now_us / 1e6, adir);
	rc = 0;
done:
	free(kv);
	free(kbuf);
	lstate_close(&st);
	if (lock >= 0)
		close(lock);   /* the lock with it */
	return rc;
}
