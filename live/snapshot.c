/* snapshot — the daemon's snapshots (docs/live.md "Snapshots"): the
 * engine's whole state (sim_snap_save) with what live/ keeps beside it,
 * and the place in the recording it covers, written atomically to
 * STATE_DIR/snapshot; a restart loads it and replays only the recording
 * after it (rebuild.c, live_catch_up).
 *
 * What live/ keeps beside the engine, all of it what a replay of the
 * recording up to that place would have made: the place (the last
 * recorded row's seq, the time every event had been handled up to), the
 * ended jobs the last compaction kept, the last log line's engine time;
 * the workload's string and name tables (label expressions, planes and
 * pools; users, accounts, ... by index: a later job line interns into
 * them) and which label expression each string was bound to; each job's
 * line extras (argv, env, cwd, name, submitter: jobx_fill's); the metric
 * counters. Not kept: what the executor learns again at the start
 * (adopt), and what the engine's snapshot holds.
 *
 * Layout: "HLLIVSN1", the live part, the engine's snapshot (its own
 * header and checksum), a checksum (FNV-1a) of everything before it. */
#include "live/live_int.h"
#include "live/retain.h"
#include "live/statedir.h"
#include "sim/snap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char magic[8] = "HLLIVSN1";

#define PUT(w, x) snap_put((w), &(x), sizeof(x))
#define GET(r, x) snap_get((r), &(x), sizeof(x))

void lsnap_path(const struct live *L, char *out, size_t len)
{
	if (L->o.snapshot_file)
		snprintf(out, len, "%s", L->o.snapshot_file);
	else
		snprintf(out, len, "%s/snapshot", L->cfg.state_dir);
}

/* A copy of the snapshot just written kept in STATE_DIR/snapshots (one
 * every snapshot_keep_every_s of engine time at most), the oldest beyond
 * snapshot_keep removed. One that fails is said; the run goes on. */
static void keep_copy(struct live *L, int64_t seq, const void *buf, size_t n)
{
	const char *dir = L->cfg.state_dir;
	char e[600];
	struct lsnap_kept *v = NULL;
	int nv = 0;
	if (!L->kept_known) {
		if (lsnap_kept_list(dir, &v, &nv, e, sizeof e) == 0 && nv > 0)
			L->kept_now = v[nv - 1].now_us;
		free(v);
		v = NULL;
		L->kept_known = true;
	}
	if (L->kept_now >= 0 && L->s.now - L->kept_now < (simtime)(L->cfg.snapshot_keep_every_s * 1e6))
		return;
	int64_t dseq = lstate_decision_last(&L->st);
	char name[64], kd[PATH_MAX];
	lsnap_kept_name(name, sizeof name, seq, dseq, L->s.now);
	snprintf(kd, sizeof kd, "%s/%s", dir, LSNAP_KEPT_DIR);
	if (dseq < 0 || lsdir_subdir(dir, LSNAP_KEPT_DIR, e, sizeof e) || lretain_write_file(kd, name, buf, n, e, sizeof e)) {
		live_logl(L, LIVE_WARN, "kept snapshot: %s", dseq < 0 ? "cannot read the decision log's last row" : e);
		return;
	}
	L->kept_now = L->s.now;
	if (lsnap_kept_list(dir, &v, &nv, e, sizeof e) == 0)
		for (int i = 0; i + L->cfg.snapshot_keep < nv; i++) {
			char p[PATH_MAX + 80];
			snprintf(p, sizeof p, "%s/%s", kd, v[i].name);
			unlink(p);
		}
	free(v);
}

static void put_str(struct snapw *w, const char *s)
{
	int64_t n = s ? (int64_t)strlen(s) : -1;
	snap_put_i64(w, n);
	if (s)
		snap_put(w, s, (size_t)n);
}

/* A string written by put_str (malloc'd; NULL for none), *ok false when
 * it does not read back. */
static char *get_str(struct snapr *r, bool *ok)
{
	int64_t n = snap_get_i64(r);
	if (r->bad || n < -1 || n > (1 << 24)) {
		snap_bad(r, "a string of %lld bytes", (long long)n);
		*ok = false;
		return NULL;
	}
	if (n < 0)
		return NULL;
	char *s = malloc((size_t)n + 1);
	if (!s) {
		snap_bad(r, "out of memory");
		*ok = false;
		return NULL;
	}
	snap_get(r, s, (size_t)n);
	s[n] = 0;
	if (r->bad) {
		free(s);
		*ok = false;
		return NULL;
	}
	return s;
}

static void put_strv(struct snapw *w, char **v)
{
	int64_t n = 0;
	while (v && v[n])
		n++;
	snap_put_i64(w, v ? n : -1);
	for (int64_t k = 0; k < n; k++)
		put_str(w, v[k]);
}

static char **get_strv(struct snapr *r, bool *ok)
{
	int64_t n = snap_get_i64(r);
	if (r->bad || n < -1 || n > (1 << 20)) {
		snap_bad(r, "a list of %lld strings", (long long)n);
		*ok = false;
		return NULL;
	}
	if (n < 0)
		return NULL;
	char **v = calloc((size_t)n + 1, sizeof *v);
	if (!v) {
		snap_bad(r, "out of memory");
		*ok = false;
		return NULL;
	}
	for (int64_t k = 0; k < n && *ok; k++)
		v[k] = get_str(r, ok);
	return v;
}

int lsnap_write(struct live *L, int64_t seq, char *err, size_t errlen)
{
	struct sim *s = &L->s;
	struct snapw w = { 0 };
	snap_put(&w, magic, sizeof magic);
	snap_put_i64(&w, (int64_t)L->snap_fp);
	snap_put_i64(&w, seq);
	PUT(&w, L->after_us);
	PUT(&w, L->kept_ended);
	PUT(&w, L->log_us);
	/* the workload's tables */
	PUT(&w, L->w.n_taken);
	PUT(&w, L->w.lines);
	snap_put_n(&w, L->w.nstr);
	for (int32_t k = 0; k < L->w.nstr; k++)
		put_str(&w, L->w.str[k]);
	for (int k = 0; k < WL_NKIND; k++) {
		snap_put_n(&w, L->w.names[k].n);
		for (int32_t i = 0; i < L->w.names[k].n; i++)
			put_str(&w, L->w.names[k].v[i]);
	}
	snap_put_n(&w, L->nselmap);
	snap_put(&w, L->selmap, (size_t)L->nselmap * sizeof *L->selmap);
	/* each job's line extras */
	snap_put_n(&w, s->njobs);
	for (int32_t i = 0; i < s->njobs; i++) {
		const struct jobx *x = &L->jx[i];
		put_strv(&w, x->argv);
		put_strv(&w, x->env);
		put_str(&w, x->cwd);
		put_str(&w, x->name);
		PUT(&w, x->uid);
		PUT(&w, x->gid);
		PUT(&w, x->user);
	}
	struct metrics_counters mc = L->mc;
	mc.started_unix = 0;
	PUT(&w, mc);
	if (sim_snap_save(s, L->snap_fp, &w)) {
		snprintf(err, errlen, "%s", s->err);
		s->failed = false;   /* a snapshot that cannot be made does not stop the run */
		s->err[0] = 0;
		free(w.buf);
		return -1;
	}
	uint64_t sum = snap_hash(SNAP_HASH0, w.buf, w.n);
	snap_put_i64(&w, (int64_t)sum);
	if (w.oom) {
		free(w.buf);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* Atomically: a temporary file, flushed to the disk, renamed over the
	 * last one (a crash leaves the old snapshot or the new, never half). */
	char path[PATH_MAX + 16], tmp[PATH_MAX + 32];
	lsnap_path(L, path, sizeof path);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		free(w.buf);
		return -1;
	}
	size_t off = 0;
	while (off < w.n) {
		ssize_t k = write(fd, w.buf + off, w.n - off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		off += (size_t)k;
	}
	bool ok = off == w.n && fsync(fd) == 0;
	int e = errno;
	close(fd);
	if (!ok || rename(tmp, path) < 0) {
		snprintf(err, errlen, "%s: %s", ok ? path : tmp, strerror(ok ? errno : e));
		unlink(tmp);
		free(w.buf);
		return -1;
	}
	/* the rename itself on the disk */
	int dfd = open(L->cfg.state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	if (L->cfg.snapshot_keep > 0)
		keep_copy(L, seq, w.buf, w.n);
	free(w.buf);
	return 0;
}

/* Reads the live part into L (the engine's part loaded first). */
static int load_live(struct live *L, struct snapr *r)
{
	bool ok = true;
	GET(r, L->w.n_taken);
	GET(r, L->w.lines);
	int64_t nstr = snap_get_n(r, 32000, "the workload's strings");
	if (nstr < 0)
		return -1;
	for (int64_t k = 0; k < nstr && ok; k++) {
		char *str = get_str(r, &ok);
		if (ok && (!str || workload_intern(&L->w, str) != k))
			ok = snap_bad(r, "the workload's string %lld does not intern in its place", (long long)k) == 0;
		free(str);
	}
	for (int k = 0; k < WL_NKIND && ok; k++) {
		int64_t n = snap_get_n(r, INT32_MAX / 4, "the workload's names");
		if (n < 0)
			return -1;
		for (int64_t i = 0; i < n && ok; i++) {
			char *str = get_str(r, &ok);
			if (ok && (!str || workload_name_add(&L->w, (enum wl_name_kind)k, str) != i))
				ok = snap_bad(r, "the workload's name %lld does not go in its place", (long long)i) == 0;
			free(str);
		}
	}
	if (!ok)
		return -1;
	int64_t nsel = snap_get_n(r, 32000, "the strings' label expressions");
	if (nsel < 0)
		return -1;
	int32_t *m = realloc(L->selmap, ((size_t)nsel + 1) * sizeof *m);
	if (!m)
		return snap_bad(r, "out of memory");
	L->selmap = m;
	L->nselmap = (int32_t)nsel;
	snap_get(r, L->selmap, (size_t)nsel * sizeof *L->selmap);
	int64_t nj = snap_get_n(r, L->cfg.max_jobs, "the jobs' extras");
	if (nj < 0)
		return -1;
	if (nj != L->s.njobs)
		return snap_bad(r, "extras of %lld jobs for an engine of %d", (long long)nj, L->s.njobs);
	for (int32_t i = 0; i < nj && ok; i++) {
		struct jobx *x = &L->jx[i];
		jobx_free(x);
		x->argv = get_strv(r, &ok);
		x->env = get_strv(r, &ok);
		x->cwd = get_str(r, &ok);
		x->name = get_str(r, &ok);
		GET(r, x->uid);
		GET(r, x->gid);
		GET(r, x->user);
		x->user[sizeof x->user - 1] = 0;
	}
	if (!ok)
		return -1;
	/* The counters of what the recording holds, as its replay counts
	 * them; the passes' are this process's (a replay counts none). */
	struct metrics_counters mc;
	GET(r, mc);
	mc.started_unix = L->mc.started_unix;
	mc.passes = L->mc.passes;
	mc.last_pass_s = L->mc.last_pass_s;
	mc.pass_hist = L->mc.pass_hist;
	L->mc = mc;
	return r->bad ? -1 : 0;
}

/* The whole file (malloc'd, *n bytes), or NULL with errno. */
static char *read_all(const char *path, size_t *n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf)
			break;
		if (len == cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				errno = ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t k = read(fd, buf + len, cap - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;
			free(buf);
			buf = NULL;
			errno = e;
			break;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	close(fd);
	*n = len;
	return buf;
}

int lsnap_load(struct live *L, int64_t *seq, char *why, size_t len)
{
	char path[PATH_MAX + 16];
	lsnap_path(L, path, sizeof path);
	*seq = 0;
	struct stat sb;
	if (lstat(path, &sb) < 0) {
		snprintf(why, len, "none");
		return 1;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(why, len, "%s: not a regular file", path);
		return -1;
	}
	size_t n = 0;
	char *buf = read_all(path, &n);
	if (!buf) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	const unsigned char *b = (const unsigned char *)buf;
	uint64_t sum = 0, fp = 0;
	if (n >= sizeof magic + 16)
		memcpy(&sum, b + n - sizeof sum, sizeof sum);
	if (n < sizeof magic + 16 || memcmp(b, magic, sizeof magic) != 0) {
		snprintf(why, len, "%s: not a hetlab live snapshot", path);
		free(buf);
		return -1;
	}
	if (snap_hash(SNAP_HASH0, b, n - sizeof sum) != sum) {
		snprintf(why, len, "%s: its checksum does not match (corrupt or cut short)", path);
		free(buf);
		return -1;
	}
	memcpy(&fp, b + sizeof magic, sizeof fp);
	if (fp != L->snap_fp) {
		snprintf(why, len, "%s: made with another scenario, policy, executor or max_jobs", path);
		free(buf);
		return -1;
	}
	/* The live part is read twice: its length first (to find the
	 * engine's snapshot after it), then into L once the engine loaded. */
	struct snapr r = { .buf = b, .n = n - sizeof sum, .pos = sizeof magic + sizeof fp };
	int64_t at = snap_get_i64(&r);
	simtime after = 0, log_us = 0;
	int32_t kept = 0;
	GET(&r, after);
	GET(&r, kept);
	GET(&r, log_us);
	size_t live_at = r.pos;
	/* The live part is checked first, read into a scratch live (nothing
	 * of L changes before the engine's snapshot is known to load). */
	struct live *probe = calloc(1, sizeof *probe);
	if (!probe) {
		snprintf(why, len, "out of memory");
		free(buf);
		return -1;
	}
	probe->cfg.max_jobs = L->cfg.max_jobs;
	workload_init(&probe->w);
	probe->jx = calloc((size_t)L->cfg.max_jobs + 1, sizeof *probe->jx);
	for (int32_t i = 0; probe->jx && i <= L->cfg.max_jobs; i++)
		probe->jx[i].uid = probe->jx[i].gid = -1;
	int rc = 0;
	{
		/* the job count is needed to check the extras: read up to it */
		struct snapr q = r;
		bool ok = true;
		int64_t tmp;
		GET(&q, tmp);
		GET(&q, tmp);
		int64_t nstr = snap_get_n(&q, 32000, "the workload's strings");
		for (int64_t k = 0; k < nstr && ok; k++)
			free(get_str(&q, &ok));
		for (int k = 0; k < WL_NKIND && ok; k++) {
			int64_t nn = snap_get_n(&q, INT32_MAX / 4, "the workload's names");
			for (int64_t i = 0; i < nn && ok; i++)
				free(get_str(&q, &ok));
		}
		int64_t nsel = snap_get_n(&q, 32000, "the strings' label expressions");
		if (nsel > 0)
			q.pos += (size_t)nsel * sizeof(int32_t);
		probe->s.njobs = (int32_t)snap_get_n(&q, L->cfg.max_jobs, "the jobs' extras");
		q.pos = live_at;
		rc = q.bad || !probe->jx ? -1 : load_live(probe, &q);
		if (rc == 0)
			r.pos = q.pos;
		else
			snprintf(why, len, "%s: %s", path, q.why[0] ? q.why : "out of memory");
	}
	for (int32_t i = 0; probe->jx && i < L->cfg.max_jobs; i++)
		jobx_free(&probe->jx[i]);
	free(probe->jx);
	free(probe->selmap);
	workload_free(&probe->w);
	free(probe);
	if (rc) {
		free(buf);
		return -1;
	}
	/* the engine: refused untouched (-1), or loaded */
	size_t sim_len = r.n - r.pos;
	int lr = sim_snap_load(&L->s, L->snap_fp, b + r.pos, sim_len);
	if (lr == -1) {
		snprintf(why, len, "%s: %s", path, L->s.err);
		L->s.err[0] = 0;
		free(buf);
		return -1;
	}
	if (lr < 0) {
		snprintf(why, len, "%s: %s", path, L->s.err);
		free(buf);
		return -2;
	}
	r.pos = live_at;
	if (load_live(L, &r)) {
		snprintf(why, len, "%s: %s", path, r.why);
		free(buf);
		return -2;
	}
	L->after_us = after;
	L->kept_ended = kept;
	L->log_us = log_us;
	*seq = at;
	free(buf);
	return 0;
}

void lsnap_fingerprint(struct live *L, const char *scn, const char *version)
{
	uint64_t h = snap_hash(SNAP_HASH0, scn, strlen(scn) + 1);
	const char *pn = L->run.pol.ops ? L->run.pol.ops->name : "";
	h = snap_hash(h, pn, strlen(pn) + 1);
	h = snap_hash(h, exec_name(L->xo), strlen(exec_name(L->xo)) + 1);
	h = snap_hash(h, &L->cfg.max_jobs, sizeof L->cfg.max_jobs);
	L->snap_fp = snap_hash(h, version, strlen(version) + 1);
}

/* The latest snapshot cannot be used (why says why): the kept ones
 * (STATE_DIR/snapshots), newest first, each that cannot be used said. As
 * lsnap_load, with the path of the one loaded in kept; why then says why
 * none could be used. */
static int from_kept(struct live *L, int64_t *from, char *why, size_t whylen, char *kept, size_t klen)
{
	const char *dir = L->cfg.state_dir;
	struct lsnap_kept *v = NULL;
	int n = 0, rc = -1;
	char e[600];
	if (lsnap_kept_list(dir, &v, &n, e, sizeof e) || n == 0) {
		free(v);
		return -1;
	}
	live_logl(L, LIVE_WARN, "snapshot not used (%s): trying the %d kept in %s/%s, newest first", why, n, dir,
	          LSNAP_KEPT_DIR);
	const char *saved = L->o.snapshot_file;
	for (int i = n - 1; i >= 0 && rc == -1; i--) {
		snprintf(kept, klen, "%s/%s/%s", dir, LSNAP_KEPT_DIR, v[i].name);
		L->o.snapshot_file = kept;   /* lsnap_load reads it; restored before anything writes one */
		rc = lsnap_load(L, from, e, sizeof e);
		L->o.snapshot_file = saved;
		if (rc == -1)
			live_logl(L, LIVE_WARN, "kept snapshot not used (%s)", e);
		else if (rc == -2)
			snprintf(why, whylen, "%s", e);
	}
	if (rc == -1)
		snprintf(why, whylen, "neither the latest nor any of the %d kept", n);
	free(v);
	return rc;
}

int lsnap_restore(struct live *L, int64_t *from, char *err, size_t errlen)
{
	char why[1024];
	*from = 0;
	if (L->o.from_snapshot) {
		int rc = lsnap_load(L, from, why, sizeof why);
		if (rc) {
			snprintf(err, errlen, "the snapshot cannot be used: %s", rc == 1 ? (L->o.snapshot_file ? "no such file"
			         : "the state has none") : why);
			return -1;
		}
		L->snap_seq = *from;
		L->snap_now = L->s.now;
		return 0;
	}
	if (L->mode != LIVE_DAEMON || L->cfg.snapshot_every <= 0)
		return 0;
	int rc = lsnap_load(L, from, why, sizeof why);
	char kept[PATH_MAX + 80] = "";
	if (rc == -1)
		rc = from_kept(L, from, why, sizeof why, kept, sizeof kept);
	if (rc == 0) {
		L->snap_gone = L->s.ngone;
		live_log(L, "restarting from the %s%s at the recording's row %lld (%d jobs held, %lld ended and "
		         "dropped)", kept[0] ? "kept snapshot " : "snapshot", kept, (long long)*from, L->s.njobs,
		         (long long)L->s.ngone);
	} else if (rc == -1) {
		live_logl(L, LIVE_WARN, "snapshot not used (%s): replaying the whole recording", why);
	} else if (rc == -2) {
		snprintf(err, errlen, "%s; remove it to replay the whole recording", why);
		return -1;
	}
	return 0;
}
