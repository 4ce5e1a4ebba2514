/* sock — the daemon's side of its Unix socket: binding it, the thread
 * that serves it (a poll loop over at most LSOCK_CONNS connections, each
 * with a deadline, so a slow or silent client holds nobody up), and the
 * requests: who the peer is (SO_PEERCRED, SO_PEERGROUPS) and what it may
 * do. The client's half is sockcli.c; the forecast and dry-run requests
 * are sockfc.c (their shared types: sock_int.h). See sock.h. */
#include "live/sock.h"
#include "live/sock_int.h"
#include "live/daemon.h"
#include "live/livelog.h"
#include "live/state.h"
#include "live/statedir.h"
#include "config/scenario.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

enum { LSOCK_DEADLINE_MS = 10000, LSOCK_NGROUPS = 1024 };
/* What the connections of the operators, and those of everyone else, may
 * hold while their requests arrive (each); one user who is not an
 * operator, at most a whole request and a little more. */
#define LSOCK_BUF_TOTAL ((size_t)64 << 20)
#define LSOCK_BUF_USER ((size_t)LSOCK_REQ_MAX + 1 + ((size_t)1 << 20))

/* Who is on the other end, from the kernel. */


static void slog(struct lsock *s, enum live_level l, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void slog(struct lsock *s, enum live_level l, const char *fmt, ...)
{
	if (s->quiet)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int64_t t = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 - s->epoch_unix_us;
	char msg[1500];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	live_log_write(l, (double)t / 1e6, "socket: %s", msg);
}

/* ---- who the peer is ---- */

static bool in_group(struct lsock *s, int fd, const struct peer *p)
{
	if (!s->have_op)
		return false;
	if (p->gid == s->op_gid)
		return true;
	gid_t g[LSOCK_NGROUPS];
	socklen_t len = sizeof g;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) == 0) {
		for (size_t k = 0; k < len / sizeof g[0]; k++)
			if (g[k] == s->op_gid)
				return true;
		return false;
	}
	/* Kernels before 4.13: the group database's view of the user. */
	int n = LSOCK_NGROUPS;
	if (p->user[0] && getgrouplist(p->user, p->gid, g, &n) >= 0)
		for (int k = 0; k < n; k++)
			if (g[k] == s->op_gid)
				return true;
	return false;
}

static void peer_of(struct lsock *s, const struct conn *c, struct peer *p)
{
	memset(p, 0, sizeof *p);
	p->uid = c->cred.uid;
	p->gid = c->cred.gid;
	p->pid = c->cred.pid;
	struct passwd pw, *res = NULL;
	char buf[8192];
	if (getpwuid_r(p->uid, &pw, buf, sizeof buf, &res) == 0 && res && strlen(res->pw_name) < sizeof p->user) {
		snprintf(p->user, sizeof p->user, "%s", res->pw_name);
		snprintf(p->home, sizeof p->home, "%s", res->pw_dir ? res->pw_dir : "/");
	}
	p->op = p->uid == 0 || p->uid == s->self || in_group(s, c->fd, p);
	snprintf(p->who, sizeof p->who, "%s (uid %ld, pid %ld)%s", p->user[0] ? p->user : "?", (long)p->uid,
	         (long)p->pid, p->op ? " [operator]" : "");
}

/* ---- replies ---- */


/* ---- the requests ---- */

/* The job line of another user's job runs in its "cwd": the directory the
 * client ran in (an absolute path), else the user's home. */
static char *with_cwd(char *norm, const char *cwd, const struct peer *p)
{
	json_t *o = json_loads(norm, 0, NULL);
	if (!o || json_object_get(o, "cwd")) {
		json_decref(o);
		return norm;
	}
	json_object_set_new(o, "cwd", json_string(cwd && cwd[0] == '/' ? cwd : p->home[0] ? p->home : "/"));
	char *t = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!t)
		return norm;
	free(norm);
	return t;
}

/* The request's id ("rid": the client's, the same in its retries). 0
 * with *rid (NULL: none), or -1 with *bad (a refusal). */
static int rid_of(json_t *req, const char **rid, json_t **bad)
{
	json_t *v = json_object_get(req, "rid");
	const char *t = json_string_value(v);
	*rid = NULL;
	if (!v)
		return 0;
	size_t n = t ? strlen(t) : 0;
	if (!t || n == 0 || n > 64 || strspn(t, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_") != n) {
		*bad = lsock_refuse("request: $.rid: expected a request id of 1 to 64 letters, digits, '-' or '_'");
		return -1;
	}
	*rid = t;
	return 0;
}

/* A request p sent before with this rid: its reply again (the client
 * retries: its daemon went away before it read it). NULL when new. */
static json_t *answered(struct lsock *s, const struct peer *p, const char *rid)
{
	char *prev = NULL, err[1024];
	if (!rid)
		return NULL;
	int r = lstate_request_get(&s->st, (int64_t)p->uid, rid, &prev, err, sizeof err);
	if (r < 0)
		return lsock_refuse("%s", err);
	if (r > 0)
		return NULL;
	json_t *o = json_loads(prev, 0, NULL);
	free(prev);
	if (!json_is_object(o)) {
		json_decref(o);
		return lsock_refuse("request %s: answered before, but its reply in %s does not parse", rid, s->st.path);
	}
	json_object_set_new(o, "again", json_true());
	slog(s, LIVE_INFO, "%s: request %s answered again (a retry), not applied twice", p->who, rid);
	return o;
}

/* Remembers the reply to rid (inside the request's transaction). */
static int remember(struct lsock *s, const struct peer *p, const char *rid, json_t *rep, char *err, size_t errlen)
{
	if (!rid)
		return 0;
	char *t = json_dumps(rep, JSON_COMPACT);
	int rc = t ? lstate_request_put(&s->st, (int64_t)p->uid, rid, t, err, errlen) : -1;
	if (!t)
		snprintf(err, errlen, "out of memory");
	free(t);
	return rc;
}

/* A user who is not an operator has at most max_pending jobs not yet
 * started. NULL, or the refusal of n more. */
static json_t *over_pending(struct lsock *s, const struct peer *p, size_t n)
{
	if (p->op || s->max_pending <= 0)
		return NULL;
	int64_t have = lstate_pending_of(&s->st, (int64_t)p->uid);
	if (have < 0)
		return lsock_refuse("cannot count your pending jobs in %s: try again", s->st.path);
	if (have + (int64_t)n <= s->max_pending)
		return NULL;
	slog(s, LIVE_WARN, "%s: submission of %zu refused: %lld pending, at most %d per user", p->who, n,
	     (long long)have, s->max_pending);
	return lsock_refuse("%s (uid %ld) has %lld job%s pending (submitted, not started) and this submission adds %zu: at "
	              "most %d pending jobs per user (max_pending_per_user in the daemon's config): submit again when "
	              "some have started, or cancel some", p->user[0] ? p->user : "you", (long)p->uid, (long long)have,
	              have == 1 ? "" : "s", n, s->max_pending);
}

static json_t *do_submit(struct lsock *s, const struct peer *p, json_t *req)
{
	if (s->self != 0 && p->uid != s->self) {
		char me[64] = "";
		struct passwd pw, *res = NULL;
		char buf[4096];
		if (getpwuid_r(s->self, &pw, buf, sizeof buf, &res) == 0 && res)
			snprintf(me, sizeof me, "%s", res->pw_name);
		return lsock_refuse("this daemon runs as %s (uid %ld), not as root: it can run jobs only as that user, not as "
		              "%s (uid %ld); submit as %s, or ask the operator to run the daemon as root", me[0] ? me : "?",
		              (long)s->self, p->user[0] ? p->user : "you", (long)p->uid, me[0] ? me : "its user");
	}
	if (p->uid != s->self && !p->user[0])
		return lsock_refuse("uid %ld has no user name (no passwd entry): jobs cannot run as it", (long)p->uid);
	json_t *jobs = json_object_get(req, "jobs");
	const char *src = json_string_value(json_object_get(req, "src"));
	const char *cwd = json_string_value(json_object_get(req, "cwd"));
	if (!json_is_array(jobs) || json_array_size(jobs) == 0)
		return lsock_refuse("\"jobs\": expected a non-empty array of {\"line\": N, \"text\": \"...\"}");
	if (json_array_size(jobs) > LSOCK_JOBS_MAX)
		return lsock_refuse("%zu jobs: at most %d in one submission", json_array_size(jobs), LSOCK_JOBS_MAX);
	size_t n = json_array_size(jobs);
	const char *rid;
	json_t *rep = NULL;
	if (rid_of(req, &rid, &rep) || (rep = answered(s, p, rid)) || (rep = over_pending(s, p, n)))
		return rep;
	char **norm = calloc(n, sizeof *norm);
	if (!norm)
		return lsock_refuse("out of memory");
	char err[2048];
	for (size_t k = 0; k < n && !rep; k++) {
		json_t *j = json_array_get(jobs, k);
		json_t *text = json_object_get(j, "text");
		json_int_t line = json_is_integer(json_object_get(j, "line")) ? json_integer_value(json_object_get(j, "line"))
		                                                               : (json_int_t)k + 1;
		if (!json_is_string(text)) {
			rep = lsock_refuse("jobs[%zu].text: expected the job line as a string", k);
			break;
		}
		norm[k] = live_job_norm(src && src[0] ? src : "submit", line, json_string_value(text),
		                        json_string_length(text), s->have_sc ? &s->sc.cl : NULL, err, sizeof err);
		if (!norm[k])
			rep = lsock_refuse("%s", err);
		else if (p->uid != s->self)
			norm[k] = with_cwd(norm[k], cwd, p);
	}
	int64_t first = -1, last = -1;
	if (!rep) {
		struct lstate_who w = { (int64_t)p->uid, (int64_t)p->gid, p->user[0] ? p->user : NULL };
		int rc = lstate_begin(&s->st, err, sizeof err);
		for (size_t k = 0; rc == 0 && k < n; k++)
			rc = lstate_inbox_add_as(&s->st, "submit", -1, norm[k], &w, &last, err, sizeof err);
		first = last - (int64_t)n + 1;
		if (rc == 0)
			rep = json_pack("{sb sI sI sI}", "ok", 1, "queued", (json_int_t)n, "first_inbox", (json_int_t)first,
			                "last_inbox", (json_int_t)last);
		if (rc == 0 && !rep) {
			snprintf(err, sizeof err, "out of memory");
			rc = -1;
		}
		if (rc == 0)
			rc = remember(s, p, rid, rep, err, sizeof err);
		if (rc == 0)
			rc = lstate_commit(&s->st, err, sizeof err);
		if (rc) {
			lstate_rollback(&s->st);
			json_decref(rep);
			rep = lsock_refuse("%s", err);
		} else {
			slog(s, LIVE_INFO, "%s submitted %zu job%s (inbox rows %lld-%lld)", p->who, n, n == 1 ? "" : "s",
			     (long long)first, (long long)last);
		}
	}
	for (size_t k = 0; k < n; k++)
		free(norm[k]);
	free(norm);
	return rep;
}

static json_t *queue_rows(struct lsock *s, const struct peer *p, json_t *req, const char *kind, const int64_t *ids,
                          size_t n)
{
	char err[1024];
	const char *rid;
	json_t *rep = NULL;
	if (rid_of(req, &rid, &rep) || (rep = answered(s, p, rid)))
		return rep;
	struct lstate_who w = { (int64_t)p->uid, (int64_t)p->gid, p->user[0] ? p->user : NULL };
	rep = json_pack("{sb sI}", "ok", 1, "queued", (json_int_t)n);
	if (!rep)
		return lsock_refuse("out of memory");
	int rc = lstate_begin(&s->st, err, sizeof err);
	for (size_t k = 0; rc == 0 && k < n; k++)
		rc = lstate_inbox_add_as(&s->st, kind, ids[k], NULL, &w, NULL, err, sizeof err);
	if (rc == 0)
		rc = remember(s, p, rid, rep, err, sizeof err);
	if (rc == 0)
		rc = lstate_commit(&s->st, err, sizeof err);
	if (rc) {
		lstate_rollback(&s->st);
		json_decref(rep);
		return lsock_refuse("%s", err);
	}
	slog(s, LIVE_INFO, "%s: %s of %zu queued", p->who, kind, n);
	return rep;
}

static json_t *do_cancel(struct lsock *s, const struct peer *p, json_t *req)
{
	json_t *jobs = json_object_get(req, "jobs");
	if (!json_is_array(jobs) || json_array_size(jobs) == 0 || json_array_size(jobs) > 4096)
		return lsock_refuse("\"jobs\": expected an array of 1 to 4096 job ids");
	size_t n = json_array_size(jobs);
	int64_t ids[4096];
	for (size_t k = 0; k < n; k++) {
		json_t *v = json_array_get(jobs, k);
		if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) >= INT32_MAX)
			return lsock_refuse("jobs[%zu]: expected a job id 0..%d", k, INT32_MAX - 1);
		ids[k] = json_integer_value(v);
		if (p->op)
			continue;
		int64_t owner;
		int r = lstate_owner_get(&s->st, ids[k], &owner);
		if (r < 0)
			return lsock_refuse("job %lld: cannot read its owner from %s", (long long)ids[k], s->st.path);
		if (r > 0)
			return lsock_refuse("job %lld: no such job (a job not yet taken by the daemon cannot be cancelled "
			              "by its submitter yet: try again in a moment)", (long long)ids[k]);
		if (owner != (int64_t)p->uid) {
			slog(s, LIVE_WARN, "%s: cancel of job %lld refused: not theirs", p->who, (long long)ids[k]);
			return lsock_refuse("job %lld is not yours: only its submitter or an operator may cancel it",
			              (long long)ids[k]);
		}
	}
	return queue_rows(s, p, req, "cancel", ids, n);
}

static json_t *do_approve(struct lsock *s, const struct peer *p, json_t *req)
{
	if (!p->op) {
		slog(s, LIVE_WARN, "%s: approve refused: not an operator", p->who);
		return lsock_refuse("only an operator may approve (root, the daemon's user, or a member of the "
		              "\"operators\" group of the daemon's config)");
	}
	json_t *ts = json_object_get(req, "tenants");
	if (!json_is_array(ts) || json_array_size(ts) == 0 || json_array_size(ts) > 256)
		return lsock_refuse("\"tenants\": expected an array of 1 to 256 tenant names or indexes");
	size_t n = json_array_size(ts);
	int64_t ids[256];
	const struct org *org = s->have_sc ? &s->sc.org : NULL;
	for (size_t k = 0; k < n; k++) {
		json_t *v = json_array_get(ts, k);
		const char *name = json_string_value(v);
		ids[k] = -1;
		if (json_is_integer(v))
			ids[k] = json_integer_value(v);
		else if (name) {
			char *end;
			long x = strtol(name, &end, 10);
			if (name[0] && !*end && x >= 0)
				ids[k] = x;
			for (int32_t t = 0; org && ids[k] < 0 && t < org->nt; t++)
				if (strcmp(org->t[t].name, name) == 0)
					ids[k] = t;
		}
		if (ids[k] < 0 || !org || ids[k] >= org->nt) {
			char shown[200];
			live_escape(shown, sizeof shown, name ? name : json_is_integer(v) ? "(index)" : "(not a name)");
			return lsock_refuse("no tenant '%s' in the daemon's scenario", shown);
		}
	}
	return queue_rows(s, p, req, "approve", ids, n);
}

static char *memtext(char **buf, size_t *len, FILE **f)
{
	*buf = NULL;
	*len = 0;
	*f = open_memstream(buf, len);
	return *f ? *buf : NULL;
}

static json_t *do_queue(struct lsock *s, const struct peer *p, json_t *req)
{
	bool all = json_is_true(json_object_get(req, "all")), js = json_is_true(json_object_get(req, "json"));
	char *text, *notes, err[1024];
	size_t tl, nl;
	FILE *f, *g;
	memtext(&text, &tl, &f);
	memtext(&notes, &nl, &g);
	if (!f || !g) {
		if (f)
			fclose(f);
		if (g)
			fclose(g);
		free(text);
		free(notes);
		return lsock_refuse("out of memory");
	}
	int64_t uid = p->op ? -1 : (int64_t)p->uid;
	int rc = lstate_print_queue_for(&s->st, f, all, js, uid, err, sizeof err);
	if (js)
		lstate_print_quarantine(&s->st, g, uid);
	fclose(f);
	fclose(g);
	json_t *rep = rc ? lsock_refuse("%s", err) : json_pack("{sb ss ss}", "ok", 1, "text", text, "notes", notes);
	free(text);
	free(notes);
	return rep;
}

static json_t *handle(struct lsock *s, const struct conn *c, uint64_t *defer)
{
	const struct peer p = c->p;
	json_error_t je;
	json_t *req = json_loadb(c->buf, c->len, JSON_REJECT_DUPLICATES, &je);
	if (!req || !json_is_object(req)) {
		json_decref(req);
		return lsock_refuse("request: expected one JSON object on one line (%s)", req ? "not an object" : je.text);
	}
	const char *op = json_string_value(json_object_get(req, "op"));
	json_t *rep;
	if (!op)
		rep = lsock_refuse("request: $.op: expected \"submit\", \"cancel\", \"approve\", \"queue\", \"forecast\", \"dryrun\" or \"whoami\"");
	else if (strcmp(op, "submit") == 0)
		rep = do_submit(s, &p, req);
	else if (strcmp(op, "cancel") == 0)
		rep = do_cancel(s, &p, req);
	else if (strcmp(op, "approve") == 0)
		rep = do_approve(s, &p, req);
	else if (strcmp(op, "queue") == 0)
		rep = do_queue(s, &p, req);
	else if (strcmp(op, "forecast") == 0)
		rep = lsock_do_forecast(s, &p, req);
	else if (strcmp(op, "dryrun") == 0)
		rep = lsock_do_dryrun(s, &p, req, defer);
	else if (strcmp(op, "whoami") == 0)
		rep = json_pack("{sb sI sI ss sb}", "ok", 1, "uid", (json_int_t)p.uid, "gid", (json_int_t)p.gid, "user",
		                p.user, "operator", p.op);
	else {
		char shown[64];
		live_escape(shown, sizeof shown, op);
		rep = lsock_refuse("request: $.op: unknown operation '%s' (expected submit, cancel, approve, queue, forecast, dryrun or whoami)",
		             shown);
	}
	json_decref(req);
	return rep;
}

/* ---- the connections ---- */



/* Whether a new connection gets a slot: an operator any of the
 * LSOCK_CONNS; the others together all but LSOCK_OP_SLOTS of them, one
 * user at most LSOCK_USER_SLOTS. NULL, or the refusal. */
static json_t *admit(struct lsock *s, const struct conn *c)
{
	int others = 0, mine = 0;
	for (int k = 0; k < s->nc; k++) {
		others += !s->c[k].p.op;
		mine += s->c[k].cred.uid == c->cred.uid;
	}
	if (s->nc == LSOCK_CONNS)
		return lsock_refuse("the daemon is busy (%d requests at once): try again", LSOCK_CONNS);
	if (c->p.op)
		return NULL;
	if (mine >= LSOCK_USER_SLOTS)
		return lsock_refuse("you have %d requests open at once, the most one user may: try again once they are answered",
		              mine);
	if (others >= LSOCK_CONNS - LSOCK_OP_SLOTS)
		return lsock_refuse("the daemon is busy (%d requests at once): try again", others);
	return NULL;
}

static void conn_accept(struct lsock *s)
{
	int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return;
	struct conn c = { .fd = fd, .deadline_ms = lsock_now_ms() + s->deadline_ms };
	socklen_t len = sizeof c.cred;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c.cred, &len) < 0) {
		close(fd);
		return;
	}
	peer_of(s, &c, &c.p);
	json_t *r = admit(s, &c);
	if (r) {
		/* A short line into an empty socket buffer: never waits. */
		c.deadline_ms = lsock_now_ms() + 100;
		lsock_reply(&c, r);
		json_decref(r);
		close(fd);
		return;
	}
	s->c[s->nc++] = c;
}

/* Reads what connection k has sent; answers once the line is whole. 1
 * when the connection is done (close it). */
static int conn_read(struct lsock *s, int k)
{
	struct conn *c = &s->c[k];
	for (;;) {
		if (c->len == c->cap) {
			size_t cap = c->cap ? 2 * c->cap : 4096;
			if (cap > (size_t)LSOCK_REQ_MAX + 1)
				cap = (size_t)LSOCK_REQ_MAX + 1;
			json_t *r = NULL;
			size_t mine = 0;
			for (int j = 0; j < s->nc; j++)
				mine += s->c[j].cred.uid == c->cred.uid ? s->c[j].cap : 0;
			if (c->len >= (size_t)LSOCK_REQ_MAX)
				r = lsock_refuse("request: more than %d bytes: submit fewer jobs at a time", LSOCK_REQ_MAX);
			else if (s->buffered[c->p.op] - c->cap + cap > LSOCK_BUF_TOTAL)
				r = lsock_refuse("the daemon is busy receiving other requests: try again");
			else if (!c->p.op && mine - c->cap + cap > LSOCK_BUF_USER)
				r = lsock_refuse("you are sending more than one request's worth (%d bytes) at once: send one at a time",
				           LSOCK_REQ_MAX);
			char *nb = r ? NULL : realloc(c->buf, cap);
			if (!r && !nb)
				r = lsock_refuse("out of memory");
			if (r) {
				c->deadline_ms = lsock_now_ms() + s->deadline_ms;   /* its refusal gets its own few seconds */
				lsock_reply(c, r);
				json_decref(r);
				return 1;
			}
			s->buffered[c->p.op] += cap - c->cap;
			c->buf = nb;
			c->cap = cap;
		}
		ssize_t n = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : 1;
		char *nl = n > 0 ? memchr(c->buf + c->len, '\n', (size_t)n) : NULL;
		c->len += (size_t)n;
		if (nl || n == 0) {
			if (nl)
				c->len = (size_t)(nl - c->buf);
			if (c->len > 0) {
				uint64_t defer = 0;
				json_t *r = handle(s, c, &defer);
				if (defer) {
					/* a dry run: the reply is its answer, when it comes */
					c->dry = defer;
					c->len = 0;
					c->deadline_ms = lsock_now_ms() + LSOCK_DRY_MS;
					return 0;
				}
				/* The reply gets its own few seconds. */
				c->deadline_ms = lsock_now_ms() + s->deadline_ms;
				lsock_reply(c, r);
				json_decref(r);
			}
			return 1;
		}
	}
}

static void *serve(void *arg)
{
	struct lsock *s = arg;
	struct pollfd pf[LSOCK_CONNS + 3];
	for (;;) {
		int np = 0;
		pf[np++] = (struct pollfd){ .fd = s->wake[0], .events = POLLIN };
		pf[np++] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
		pf[np++] = (struct pollfd){ .fd = s->dwake[0], .events = POLLIN };
		int64_t t = lsock_now_ms(), next = t + 60000;
		for (int k = 0; k < s->nc; k++) {
			/* A connection waiting for its dry run's answer has said all (the
			 * client may have shut its side): only its hang-up is watched. */
			pf[np++] = (struct pollfd){ .fd = s->c[k].fd, .events = s->c[k].dry ? 0 : POLLIN };
			if (s->c[k].deadline_ms < next)
				next = s->c[k].deadline_ms;
		}
		int r = poll(pf, (nfds_t)np, next > t ? (int)(next - t) : 0);
		if (r < 0 && errno != EINTR)
			break;
		if (pf[0].revents)
			break;
		/* Connections first (their index is their pollfd's less 3), from
		 * the last, as closing one moves the last into its place. */
		for (int k = s->nc - 1; k >= 0 && k + 3 < np; k--) {
			bool ready = pf[k + 3].revents != 0;
			bool late = !ready && s->c[k].deadline_ms <= lsock_now_ms();
			if (s->c[k].dry && ready) {   /* hung up before its answer */
				lsock_dry_close(s, s->c[k].dry);
				lsock_conn_close(s, k);
				continue;
			}
			if (late && s->c[k].dry) {
				json_t *no = lsock_refuse("the dry run took too long (%d s): the daemon may be busy; try again",
				                    LSOCK_DRY_MS / 1000);
				s->c[k].deadline_ms = lsock_now_ms() + 1000;
				lsock_reply(&s->c[k], no);
				json_decref(no);
			}
			if ((ready && conn_read(s, k)) || late) {
				if (s->c[k].dry)
					lsock_dry_close(s, s->c[k].dry);
				lsock_conn_close(s, k);
			}
		}
		if (pf[2].revents & POLLIN)
			lsock_dry_reply(s);   /* after the loop over the pollfds: it closes a connection */
		if (pf[1].revents & POLLIN)
			conn_accept(s);
	}
	return NULL;
}

/* ---- start and stop ---- */

int live_socket_path(const struct live_cfg *c, char *out, size_t len)
{
	int n = c->socket[0] ? snprintf(out, len, "%s", c->socket) : snprintf(out, len, "%s/hetlab.sock", c->state_dir);
	return n < 0 || (size_t)n >= len || n >= (int)sizeof(((struct sockaddr_un *)0)->sun_path) ? -1 : 0;
}

/* A socket at path that nothing listens on is a dead daemon's: removed.
 * 0 free, -1 with err (a live daemon there, or not a socket). */
static int clear_stale(const char *path, char *err, size_t errlen)
{
	struct stat sb;
	if (lstat(path, &sb) < 0)
		return errno == ENOENT ? 0 : (snprintf(err, errlen, "%s: %s", path, strerror(errno)), -1);
	if (!S_ISSOCK(sb.st_mode)) {
		snprintf(err, errlen, "%s: exists and is not a socket: refused (remove it, or give \"socket\" another path)",
		         path);
		return -1;
	}
	if (sb.st_uid != geteuid()) {
		struct passwd pw, *res = NULL;
		char buf[4096];
		snprintf(err, errlen, "%s: a socket of %s (uid %ld), not of the daemon's user: refused (another user's "
		         "socket may be a decoy that clients would talk to; remove it if it is a stale one of yours)", path,
		         getpwuid_r(sb.st_uid, &pw, buf, sizeof buf, &res) == 0 && res ? res->pw_name : "?",
		         (long)sb.st_uid);
		return -1;
	}
	bool absent = false;
	char e2[256];
	char *rep = lsock_call(path, "{\"op\": \"whoami\"}", &absent, e2, sizeof e2);
	if (rep || !absent) {
		free(rep);
		snprintf(err, errlen, "%s: another hetlab daemon answers on this socket: stop it, or give \"socket\" another "
		         "path", path);
		return -1;
	}
	if (unlink(path) < 0 && errno != ENOENT) {
		snprintf(err, errlen, "%s: cannot remove the stale socket: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* The socket's own directory is writable by the daemon's user (or root)
 * alone, sticky or not: where others may create files, one of them could
 * take the path while no daemon listens (before it starts, while it
 * restarts) and answer its clients. */
static int check_sock_dir(const char *path, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	lsock_dir(path, dir, sizeof dir);
	struct stat sb;
	if (stat(dir, &sb) < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(err, errlen, "%s: the socket's directory is writable by %s (mode %04o)%s: refused (another user "
		         "could take the path %s while no daemon listens; give \"socket\" a directory of root's or the "
		         "daemon's user that only its owner writes, such as /run/hetlab, mode 0755)", dir,
		         sb.st_mode & S_IWOTH ? "everyone" : "its group", (unsigned)(sb.st_mode & 07777),
		         sb.st_mode & S_ISVTX ? ", sticky or not" : "", path);
		return -1;
	}
	return 0;
}

static int bind_socket(struct lsock *s, char *err, size_t errlen)
{
	if (lsdir_check_above(s->path, err, errlen) || check_sock_dir(s->path, err, errlen) ||
	    clear_stale(s->path, err, errlen))
		return -1;
	s->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->lfd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof a.sun_path, "%s", s->path);
	if (bind(s->lfd, (struct sockaddr *)&a, sizeof a) < 0) {
		snprintf(err, errlen, "%s: cannot bind the daemon's socket: %s", s->path, strerror(errno));
		return -1;
	}
	/* Everyone who reaches it may connect; each request is then judged
	 * by who sent it. (The directories above it are the daemon's or
	 * root's, checked above, so nobody swaps the path meanwhile.) */
	struct stat sb;
	if (chmod(s->path, 0666) < 0 || lstat(s->path, &sb) < 0 || !S_ISSOCK(sb.st_mode) || sb.st_uid != geteuid()) {
		snprintf(err, errlen, "%s: cannot make the socket mode 0666: %s", s->path, strerror(errno));
		return -1;
	}
	if (listen(s->lfd, 64) < 0) {
		snprintf(err, errlen, "%s: listen: %s", s->path, strerror(errno));
		return -1;
	}
	return 0;
}

int lsock_start(struct lsock **out, const struct lsock_cfg *c, char *err, size_t errlen)
{
	*out = NULL;
	struct lsock *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->lfd = s->wake[0] = s->wake[1] = s->dwake[0] = s->dwake[1] = -1;
	pthread_mutex_init(&s->fc_mu, NULL);
	s->self = geteuid();
	s->epoch_unix_us = c->epoch_unix_us;
	s->quiet = c->quiet;
	s->max_pending = c->max_pending;
	s->deadline_ms = c->deadline_ms > 0 ? c->deadline_ms : LSOCK_DEADLINE_MS;
	snprintf(s->state_dir, sizeof s->state_dir, "%s", c->state_dir);
	if (strlen(c->path) >= sizeof s->path) {
		snprintf(err, errlen, "%s: a socket path is at most %zu bytes: give \"socket\" a shorter one", c->path,
		         sizeof s->path - 1);
		goto fail;
	}
	snprintf(s->path, sizeof s->path, "%s", c->path);
	if (c->operators && c->operators[0]) {
		struct group gr, *res = NULL;
		char buf[8192];
		if (getgrnam_r(c->operators, &gr, buf, sizeof buf, &res) != 0 || !res) {
			snprintf(err, errlen, "operators \"%s\": no such group", c->operators);
			goto fail;
		}
		s->have_op = true;
		s->op_gid = res->gr_gid;
	}
	if (c->scenario_text) {
		char dir[PATH_MAX];
		snprintf(dir, sizeof dir, "%s", c->scenario_file ? c->scenario_file : ".");
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		else
			snprintf(dir, sizeof dir, ".");
		if (scenario_load_text(c->scenario_text, c->scenario_file ? c->scenario_file : "the daemon's scenario", dir,
		                       &s->sc, err, errlen))
			goto fail;
		s->have_sc = true;
	}
	if (lstate_open(&s->st, c->state_dir, err, errlen))
		goto fail;
	s->have_st = true;
	if (pipe2(s->wake, O_CLOEXEC) < 0 || pipe2(s->dwake, O_CLOEXEC | O_NONBLOCK) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto fail;
	}
	if (bind_socket(s, err, errlen))
		goto fail;
	if (pthread_create(&s->th, NULL, serve, s) != 0) {
		snprintf(err, errlen, "cannot start the socket's thread");
		unlink(s->path);
		goto fail;
	}
	s->started = true;
	*out = s;
	return 0;
fail:
	lsock_stop(s);
	return -1;
}

void lsock_stop(struct lsock *s)
{
	if (!s)
		return;
	if (s->started) {
		ssize_t w = write(s->wake[1], "x", 1);
		(void)w;
		pthread_join(s->th, NULL);
		struct stat sb;
		if (lstat(s->path, &sb) == 0 && S_ISSOCK(sb.st_mode) && sb.st_uid == geteuid())
			unlink(s->path);
	}
	while (s->nc > 0)
		lsock_conn_close(s, s->nc - 1);
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->wake[0] >= 0)
		close(s->wake[0]);
	if (s->wake[1] >= 0)
		close(s->wake[1]);
	if (s->have_st)
		lstate_close(&s->st);
	if (s->have_sc)
		scenario_free(&s->sc);
	json_decref(s->fc);
	json_decref(s->dry_ans);
	free(s->dry_text);
	for (int k = 0; k < 2; k++)
		if (s->dwake[k] >= 0)
			close(s->dwake[k]);
	pthread_mutex_destroy(&s->fc_mu);
	free(s);
}
