/* client — the live clients' side: through the daemon's socket, or into
 * the caller's own state when no daemon runs. See client.h. */
#include "live/client.h"
#include "live/daemon.h"
#include "live/livelog.h"
#include "live/sock.h"
#include "live/state.h"
#include "live/statedir.h"
#include "live/live_cfg.h"
#include "config/scenario.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

/* Where a client's request goes. */
struct target {
	char dir[PATH_MAX];     /* the state directory ("" when only --socket was given) */
	char sock[PATH_MAX];
	bool from_config;       /* dir from --config: a state that is not there yet may be made */
	struct live_cfg cfg;
	bool have_cfg;
};

static int say(const struct lclient *c, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say(const struct lclient *c, int rc, const char *fmt, ...)
{
	char msg[4096], esc[8192];
	if (c->quiet)
		return rc;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	/* The daemon's messages quote what was sent: never raw on a terminal. */
	live_escape(esc, sizeof esc, msg);
	fprintf(stderr, "hetlab %s: %s\n", c->cmd, esc);
	return rc;
}

static int target_of(const struct lclient *c, struct target *t)
{
	memset(t, 0, sizeof *t);
	if (!c->cfg && !c->state && !c->socket)
		return say(c, 2, "give --state DIR, --config LIVE.json or --socket PATH");
	if (c->cfg) {
		t->cfg = *c->cfg;
		t->have_cfg = true;
		if (c->state)
			snprintf(t->cfg.state_dir, sizeof t->cfg.state_dir, "%s", c->state);
		snprintf(t->dir, sizeof t->dir, "%s", t->cfg.state_dir);
		t->from_config = !c->state;
	} else if (c->state) {
		snprintf(t->dir, sizeof t->dir, "%s", c->state);
	}
	int n;
	if (c->socket)
		n = snprintf(t->sock, sizeof t->sock, "%s", c->socket);
	else if (t->have_cfg)
		n = live_socket_path(&t->cfg, t->sock, sizeof t->sock) ? (int)sizeof t->sock : 0;
	else
		n = snprintf(t->sock, sizeof t->sock, "%s/hetlab.sock", t->dir);
	if (n >= 108 || n >= (int)sizeof t->sock) {
		if (c->socket)
			return say(c, 1, "%s: longer than a socket path may be (107 bytes)", c->socket);
		/* The daemon serves no socket at a path that long (it says so):
		 * only the state's owner can queue, directly. */
		t->sock[0] = 0;
	}
	return 0;
}

/* A request's id, the same in its retries and in the rows a client that
 * finds no daemon writes itself (so that a request the daemon may have
 * applied before it went away is never applied twice): 32 hex digits. */
static void new_rid(char rid[static 33])
{
	uint8_t b[16];
	ssize_t n = getrandom(b, sizeof b, 0);
	rid[0] = 0;
	for (size_t k = 0; n == (ssize_t)sizeof b && k < sizeof b; k++)
		snprintf(rid + 2 * k, 3, "%02x", b[k]);
}

/* Whether a request with this rid was applied (to the state, by the
 * daemon or an earlier try): 0 no, 1 yes, else the exit status (said).
 * Inside the caller's transaction. */
static int applied(const struct lclient *c, struct lstate *st, const char *rid)
{
	char *prev = NULL, err[1024];
	int r = rid[0] ? lstate_request_get(st, (int64_t)geteuid(), rid, &prev, err, sizeof err) : 1;
	free(prev);
	return r < 0 ? say(c, 1, "%s", err) : r == 0 ? 1 : 0;
}

/* One request to the daemon. 0 with *rep (a reply that says ok); -1 when
 * no daemon is there (why in nodaemon); else the exit status (said). */
static int ask(const struct lclient *c, const struct target *t, json_t *req, json_t **rep, char *nodaemon,
               size_t len)
{
	*rep = NULL;
	char *text = json_dumps(req, JSON_COMPACT);
	if (!text)
		return say(c, 1, "out of memory");
	if (strlen(text) > LSOCK_REQ_MAX) {
		free(text);
		return say(c, 1, "more than %d bytes of jobs in one submission: submit them in parts", LSOCK_REQ_MAX);
	}
	bool absent = false;
	char *r = NULL;
	if (t->sock[0])
		r = lsock_call_again(t->sock, text, &absent, nodaemon, len);
	else {
		absent = true;
		snprintf(nodaemon, len, "%s/hetlab.sock: longer than a socket path may be (107 bytes), so no daemon "
		         "serves it (the config's \"socket\" gives another)", t->dir);
	}
	free(text);
	if (!r)
		return absent ? -1 : say(c, 1, "%s", nodaemon);
	json_t *o = json_loads(r, 0, NULL);
	free(r);
	if (!json_is_object(o)) {
		json_decref(o);
		return say(c, 1, "%s: the daemon's reply is not a JSON object", t->sock);
	}
	if (!json_is_true(json_object_get(o, "ok"))) {
		const char *e = json_string_value(json_object_get(o, "error"));
		int rc = say(c, 1, "%s", e ? e : "refused by the daemon");
		json_decref(o);
		return rc;
	}
	*rep = o;
	return 0;
}

/* The state, for a client that queues into it itself (no daemon answers):
 * only its owner may write it, and only an existing state, unless the
 * directory comes from --config and is not there yet (made here, 0700).
 * 0 opened, else the exit status (said). */
static int open_direct(const struct lclient *c, const struct target *t, const char *nodaemon, bool ro,
                       struct lstate *st)
{
	char err[2048];
	if (!t->dir[0])
		return say(c, 1, "%s", nodaemon);
	uid_t owner;
	if (lsdir_owner(t->dir, &owner, err, sizeof err)) {
		if (errno == ENOENT && t->from_config && !ro) {
			if (lstate_open(st, t->dir, err, sizeof err))
				return say(c, 1, "%s", err);
			return 0;
		}
		return say(c, 1, "%s: is it the daemon's state_dir? (and %s)", err, nodaemon);
	}
	if (!ro && owner != geteuid()) {
		struct passwd pw, *res = NULL;
		char buf[4096];
		const char *name = getpwuid_r(owner, &pw, buf, sizeof buf, &res) == 0 && res ? res->pw_name : "another user";
		return say(c, 1, "%s; and %s belongs to %s (uid %ld): only its owner may queue into it while no daemon "
		           "runs: start the daemon (hetlab live), or ask its operator", nodaemon, t->dir, name, (long)owner);
	}
	int r = ro ? lstate_open_ro(st, t->dir, err, sizeof err)
	           : t->from_config ? lstate_open(st, t->dir, err, sizeof err)
	                            : lstate_open_existing(st, t->dir, err, sizeof err);
	if (r)
		return say(c, 1, "%s (and %s)", err, nodaemon);
	return 0;
}

/* Who this client is, for the rows it writes itself. */
static void self_who(struct lstate_who *w, char *user, size_t len)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	user[0] = 0;
	if (getpwuid_r(geteuid(), &pw, buf, sizeof buf, &res) == 0 && res)
		snprintf(user, len, "%s", res->pw_name);
	*w = (struct lstate_who){ (int64_t)geteuid(), (int64_t)getegid(), user[0] ? user : NULL };
}

/* ---- submit ---- */

struct lines {
	char **text;
	int64_t *no;
	size_t *len;
	int64_t n, cap;
};

static void lines_free(struct lines *l)
{
	for (int64_t k = 0; k < l->n; k++)
		free(l->text[k]);
	free(l->text);
	free(l->no);
	free(l->len);
}

static int lines_add(struct lines *l, const char *t, size_t len, int64_t no)
{
	if (l->n == l->cap) {
		int64_t cap = l->cap ? 2 * l->cap : 16;
		char **nt = realloc(l->text, (size_t)cap * sizeof *nt);
		if (nt)
			l->text = nt;
		int64_t *nn = realloc(l->no, (size_t)cap * sizeof *nn);
		if (nn)
			l->no = nn;
		size_t *nl = realloc(l->len, (size_t)cap * sizeof *nl);
		if (nl)
			l->len = nl;
		if (!nt || !nn || !nl)
			return -1;
		l->cap = cap;
	}
	if (!(l->text[l->n] = malloc(len + 1)))
		return -1;
	memcpy(l->text[l->n], t, len);
	l->text[l->n][len] = 0;
	l->len[l->n] = len;
	l->no[l->n++] = no;
	return 0;
}

/* The job lines, each read no further than the cap and checked as a job
 * line (its form; the cluster is the daemon's to check). */
static int read_lines(const struct lclient *c, const char *job, const char *file, const char *src, struct lines *l)
{
	char err[2048];
	if (job) {
		char *t = live_job_norm(src, 1, job, strlen(job), NULL, err, sizeof err);
		if (!t)
			return say(c, 1, "%s", err);
		free(t);
		return lines_add(l, job, strlen(job), 1) ? say(c, 1, "out of memory") : 0;
	}
	FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
	if (!f)
		return say(c, 1, "%s: cannot open: %s", file, strerror(errno));
	size_t cap = LIVE_JOB_LINE_MAX + 2;
	char *buf = malloc(cap);
	int rc = buf ? 0 : say(c, 1, "out of memory");
	int64_t ln = 0;
	while (rc == 0 && fgets(buf, (int)cap, f)) {
		ln++;
		size_t len = strlen(buf);
		if (len == cap - 1 && buf[len - 1] != '\n') {
			rc = say(c, 1, "%s:%lld: a job line of more than %d bytes: at most %d bytes are accepted", src,
			         (long long)ln, LIVE_JOB_LINE_MAX, LIVE_JOB_LINE_MAX);
			break;
		}
		while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = 0;
		if (len == 0)
			continue;
		char *t = live_job_norm(src, ln, buf, len, NULL, err, sizeof err);
		if (!t) {
			rc = say(c, 1, "%s", err);
			break;
		}
		free(t);
		if (lines_add(l, buf, len, ln))
			rc = say(c, 1, "out of memory");
	}
	if (rc == 0 && ferror(f))
		rc = say(c, 1, "%s: %s", src, strerror(errno));
	free(buf);
	if (f != stdin)
		fclose(f);
	if (rc == 0 && l->n == 0)
		rc = say(c, 1, "%s: no job lines", src);
	return rc;
}

/* The scenario to check jobs against when queuing directly: the one the
 * state recorded (the daemon's), else the config's for a state not made
 * yet. */
static int direct_scenario(const struct lclient *c, const struct target *t, struct lstate *st, struct scenario *sc)
{
	char err[2048];
	char *scn = lstate_meta_dup(st, "scenario");
	if (scn) {
		int r = scenario_load_text(scn, "the daemon's scenario", ".", sc, err, sizeof err);
		free(scn);
		return r ? say(c, 1, "%s: %s", st->path, err) : 0;
	}
	if (!t->have_cfg)
		return say(c, 1, "%s holds no state yet (no daemon has started on it): give --config LIVE.json, or start "
		           "the daemon first", t->dir);
	if (scenario_load(t->cfg.scenario, sc, err, sizeof err))
		return say(c, 1, "%s", err);
	return 0;
}

static int submit_direct(const struct lclient *c, const struct target *t, const char *src, const struct lines *l,
                         const char *nodaemon, const char *rid)
{
	struct lstate st;
	int rc = open_direct(c, t, nodaemon, false, &st);
	if (rc)
		return rc;
	struct scenario sc;
	if ((rc = direct_scenario(c, t, &st, &sc))) {
		lstate_close(&st);
		return rc;
	}
	char err[2048], user[64];
	struct lstate_who w;
	self_who(&w, user, sizeof user);
	char **norm = calloc((size_t)l->n + 1, sizeof *norm);
	if (!norm)
		rc = say(c, 1, "out of memory");
	for (int64_t k = 0; rc == 0 && k < l->n; k++)
		if (!(norm[k] = live_job_norm(src, l->no[k], l->text[k], l->len[k], &sc.cl, err, sizeof err)))
			rc = say(c, 1, "%s", err);
	int done = 0;
	if (rc == 0 && lstate_begin(&st, err, sizeof err))
		rc = say(c, 1, "%s", err);
	else if (rc == 0 && (done = applied(c, &st, rid)) != 0) {
		lstate_rollback(&st);
		rc = done == 1 ? 0 : done;
		if (rc == 0)
			printf("hetlab submit: %lld job%s queued for the daemon already (by the try the daemon answered "
			       "no more)\n", (long long)l->n, l->n == 1 ? "" : "s");
	} else if (rc == 0) {
		for (int64_t k = 0; rc == 0 && k < l->n; k++)
			if (lstate_inbox_add_as(&st, "submit", -1, norm[k], &w, NULL, err, sizeof err))
				rc = say(c, 1, "%s", err);
		if (rc == 0 && rid[0] && lstate_request_put(&st, (int64_t)geteuid(), rid, "{\"ok\":true}", err, sizeof err))
			rc = say(c, 1, "%s", err);
		if (rc == 0 && lstate_commit(&st, err, sizeof err))
			rc = say(c, 1, "%s", err);
		if (rc)
			lstate_rollback(&st);
	}
	if (rc == 0 && !done)
		printf("hetlab submit: %lld job%s queued for the daemon (%s); `hetlab queue --state %s` shows them\n",
		       (long long)l->n, l->n == 1 ? "" : "s", t->dir, t->dir);
	for (int64_t k = 0; norm && k < l->n; k++)
		free(norm[k]);
	free(norm);
	scenario_free(&sc);
	lstate_close(&st);
	return rc;
}

static void rel_text(char *buf, size_t len, json_t *t, double at);

/* `hetlab submit --dry-run`: the daemon's forecast of the one job line in
 * l as if it were submitted now; nothing is queued. */
static int dry_run(const struct lclient *c, const struct target *t, const struct lines *l)
{
	if (l->n != 1)
		return say(c, 2, "--dry-run takes one job (got %lld)", (long long)l->n);
	json_t *req = json_pack("{ss ss%}", "op", "dryrun", "text", l->text[0], l->len[0]), *rep = NULL;
	char nodaemon[2048] = "";
	int rc = req ? ask(c, t, req, &rep, nodaemon, sizeof nodaemon) : say(c, 1, "out of memory");
	json_decref(req);
	if (rc < 0)
		return say(c, 1, "%s: a dry run needs a running daemon", nodaemon[0] ? nodaemon : "no daemon answers");
	if (rc)
		return rc;
	json_t *d = json_object_get(rep, "dry_run");
	double at = json_number_value(json_object_get(d, "at"));
	char q[4][32], w[1024];
	static const char *const key[4] = { "p10", "p50", "p90", "limit" };
	for (int k = 0; k < 4; k++)
		rel_text(q[k], sizeof q[k], json_object_get(d, key[k]), at);
	const char *why = json_string_value(json_object_get(d, "why"));
	live_escape(w, sizeof w, why ? why : "");
	json_t *p50 = json_object_get(d, "p50");
	if (json_is_number(p50) && json_number_value(p50) - at < 1 && !w[0])   /* nothing holds it */
		printf("dry run: the job would start at once\n");
	else
		printf("dry run: the job would wait: %s\n", w[0] ? w : "the policy gave no reason");
	printf("predicted start (%d draws): p10 %s, p50 %s, p90 %s; every job to its time limit: %s\n",
	       (int)json_integer_value(json_object_get(d, "draws")), q[0], q[1], q[2], q[3]);
	printf("nothing was submitted\n");
	json_decref(rep);
	return 0;
}

int lclient_submit(const struct lclient *c, const char *job, const char *file)
{
	struct target *t = malloc(sizeof *t);
	if (!t)
		return say(c, 1, "out of memory");
	int rc = target_of(c, t);
	struct lines l = { 0 };
	const char *src = job ? "--job" : strcmp(file, "-") == 0 ? "stdin" : file;
	if (rc == 0)
		rc = read_lines(c, job, file, src, &l);
	if (rc == 0 && c->dry_run) {
		rc = dry_run(c, t, &l);
	} else if (rc == 0) {
		json_t *jobs = json_array();
		for (int64_t k = 0; jobs && k < l.n; k++)
			json_array_append_new(jobs, json_pack("{sI ss%}", "line", (json_int_t)l.no[k], "text", l.text[k], l.len[k]));
		char cwd[PATH_MAX] = "";
		if (!getcwd(cwd, sizeof cwd))
			cwd[0] = 0;
		char rid[33];
		new_rid(rid);
		json_t *req = json_pack("{ss ss ss so}", "op", "submit", "src", src, "cwd", cwd, "jobs", jobs);
		if (req && rid[0])
			json_object_set_new(req, "rid", json_string(rid));
		json_t *rep;
		char nodaemon[2048] = "";
		rc = req ? ask(c, t, req, &rep, nodaemon, sizeof nodaemon) : say(c, 1, "out of memory");
		json_decref(req);
		if (rc == 0) {
			printf("hetlab submit: %lld job%s queued for the daemon (%s); `hetlab queue` shows them\n",
			       (long long)l.n, l.n == 1 ? "" : "s", t->sock);
			json_decref(rep);
		} else if (rc < 0) {
			rc = submit_direct(c, t, src, &l, nodaemon, rid);
		}
	}
	lines_free(&l);
	free(t);
	return rc;
}

/* ---- cancel, approve ---- */

static int queue_direct(const struct lclient *c, const struct target *t, const char *kind, const int64_t *ids, int n,
                        const char *nodaemon, const char *rid)
{
	struct lstate st;
	int rc = open_direct(c, t, nodaemon, false, &st);
	if (rc)
		return rc;
	char err[2048], user[64];
	struct lstate_who w;
	self_who(&w, user, sizeof user);
	int done = 0;
	if (lstate_begin(&st, err, sizeof err))
		rc = say(c, 1, "%s", err);
	else if ((done = applied(c, &st, rid)) != 0)
		rc = done == 1 ? 0 : done;
	for (int k = 0; rc == 0 && !done && k < n; k++)
		if (lstate_inbox_add_as(&st, kind, ids[k], NULL, &w, NULL, err, sizeof err))
			rc = say(c, 1, "%s", err);
	if (rc == 0 && !done && rid[0] && lstate_request_put(&st, (int64_t)geteuid(), rid, "{\"ok\":true}", err,
	                                                      sizeof err))
		rc = say(c, 1, "%s", err);
	if (rc == 0 && !done && lstate_commit(&st, err, sizeof err))
		rc = say(c, 1, "%s", err);
	if (rc || done)
		lstate_rollback(&st);
	lstate_close(&st);
	return rc;
}

/* What a client does when no daemon answers: queues into the state
 * itself (arg: n job ids or tenant names). */
typedef int (*direct_fn)(const struct lclient *c, const struct target *t, const void *arg, int n,
                         const char *nodaemon, const char *rid);

/* A request {"op": op, key: items} to the daemon (items stolen), else
 * direct(). The exit status. */
static int request(const struct lclient *c, const char *op, const char *key, json_t *items, direct_fn direct,
                   const void *arg, int n)
{
	struct target *t = malloc(sizeof *t);
	int rc = t ? target_of(c, t) : say(c, 1, "out of memory");
	if (rc == 0) {
		char rid[33];
		new_rid(rid);
		json_t *req = items ? json_pack("{ss sO}", "op", op, key, items) : NULL, *rep = NULL;
		if (req && rid[0])
			json_object_set_new(req, "rid", json_string(rid));
		char nodaemon[2048] = "";
		rc = req ? ask(c, t, req, &rep, nodaemon, sizeof nodaemon) : say(c, 1, "out of memory");
		json_decref(req);
		json_decref(rep);
		if (rc < 0)
			rc = direct(c, t, arg, n, nodaemon, rid);
	}
	json_decref(items);
	free(t);
	return rc;
}

static int cancel_direct(const struct lclient *c, const struct target *t, const void *ids, int n,
                         const char *nodaemon, const char *rid)
{
	return queue_direct(c, t, "cancel", ids, n, nodaemon, rid);
}

int lclient_cancel(const struct lclient *c, const int64_t *ids, int n)
{
	json_t *a = json_array();
	for (int k = 0; a && k < n; k++)
		json_array_append_new(a, json_integer(ids[k]));
	int rc = request(c, "cancel", "jobs", a, cancel_direct, ids, n);
	if (rc == 0)
		printf("hetlab cancel: %d cancellation%s queued for the daemon\n", n, n == 1 ? "" : "s");
	return rc;
}

/* Tenants by name or index, resolved with the state's scenario. */
static int approve_direct(const struct lclient *c, const struct target *t, const void *arg, int n,
                          const char *nodaemon, const char *rid)
{
	const char *const *names = arg;
	struct lstate st;
	int rc = open_direct(c, t, nodaemon, false, &st);
	if (rc)
		return rc;
	struct scenario sc;
	char err[1024];
	char *scn = lstate_meta_dup(&st, "scenario");
	bool have_sc = scn && scenario_load_text(scn, "the daemon's scenario", ".", &sc, err, sizeof err) == 0;
	free(scn);
	int64_t ids[64];
	for (int k = 0; k < n && rc == 0; k++) {
		char *end;
		long v = strtol(names[k], &end, 10);
		ids[k] = -1;
		if (!*end && end != names[k] && v >= 0)
			ids[k] = v;
		for (int32_t i = 0; have_sc && ids[k] < 0 && i < sc.org.nt; i++)
			if (strcmp(sc.org.t[i].name, names[k]) == 0)
				ids[k] = i;
		if (ids[k] < 0 || (have_sc && ids[k] >= sc.org.nt))
			rc = say(c, 2, "no tenant '%s' in the daemon's scenario%s", names[k],
			         have_sc ? "" : " (the daemon has not started on this state yet)");
	}
	lstate_close(&st);
	if (have_sc)
		scenario_free(&sc);
	return rc ? rc : queue_direct(c, t, "approve", ids, n, nodaemon, rid);
}

int lclient_approve(const struct lclient *c, const char *const *names, int n)
{
	json_t *a = json_array();
	for (int k = 0; a && k < n; k++)
		json_array_append_new(a, json_string(names[k]));
	int rc = request(c, "approve", "tenants", a, approve_direct, names, n);
	if (rc == 0)
		printf("hetlab approve: %d approval%s queued for the daemon: the tenants' jobs held for quota are released\n",
		       n, n == 1 ? "" : "s");
	return rc;
}

/* ---- queue ---- */

static void rel_text(char *buf, size_t len, json_t *t, double at);

/* Prints `hetlab queue`'s text with a column START_P50 after START_S: the
 * p50 start of each waiting job in the daemon's last forecast, relative
 * to the forecast's time (docs/forecast.md); the text as it is when there
 * is no forecast. */
static void text_with_forecast(const struct lclient *c, const struct target *t, const char *text)
{
	json_t *req = json_pack("{ss}", "op", "forecast"), *rep = NULL;
	char nodaemon[2048] = "";
	const char *col = strstr(text, "START_S");
	const char *nl = strchr(text, '\n');
	struct lclient quiet = *c;
	quiet.quiet = true;   /* a refusal (no forecast yet) is no error of the queue */
	json_t *fc = NULL;
	if (req && col && nl && col < nl && ask(&quiet, t, req, &rep, nodaemon, sizeof nodaemon) == 0)
		fc = json_object_get(rep, "forecast");
	if (!fc) {
		fputs(text, stdout);
		goto done;
	}
	size_t at = (size_t)(col - text) + strlen("START_S");
	double when = json_number_value(json_object_get(fc, "at"));
	for (const char *line = text; *line;) {
		const char *e = strchr(line, '\n');
		size_t len = e ? (size_t)(e - line) : strlen(line);
		/* the header, and job rows ("%6lld  ..."); other lines as they are */
		size_t sp = strspn(line, " "), dg = strspn(line + sp, "0123456789");
		bool jrow = line == text || (dg > 0 && strncmp(line + sp + dg, "  ", 2) == 0);
		if (len < at || !jrow) {
			fwrite(line, 1, len, stdout);
		} else {
			char cell[32] = "-";
			if (line == text) {
				snprintf(cell, sizeof cell, "START_P50");
			} else {
				long long id = strtoll(line, NULL, 10);
				size_t k;
				json_t *row;
				json_array_foreach(json_object_get(fc, "jobs"), k, row)
					if (json_integer_value(json_object_get(row, "id")) == id)
						rel_text(cell, sizeof cell, json_object_get(row, "p50"), when);
			}
			fwrite(line, 1, at, stdout);
			printf(" %9s", cell);
			fwrite(line + at, 1, len - at, stdout);
		}
		putchar('\n');
		line += len + (e ? 1 : 0);
	}
done:
	json_decref(req);
	json_decref(rep);
}

int lclient_queue(const struct lclient *c, bool all, bool json)
{
	struct target *t = malloc(sizeof *t);
	if (!t)
		return say(c, 1, "out of memory");
	int rc = target_of(c, t);
	if (rc == 0) {
		json_t *req = json_pack("{ss sb sb}", "op", "queue", "all", all, "json", json), *rep;
		char nodaemon[2048] = "";
		rc = req ? ask(c, t, req, &rep, nodaemon, sizeof nodaemon) : say(c, 1, "out of memory");
		json_decref(req);
		if (rc == 0) {
			const char *text = json_string_value(json_object_get(rep, "text"));
			const char *notes = json_string_value(json_object_get(rep, "notes"));
			if (!json && text)
				text_with_forecast(c, t, text);
			else
				fputs(text ? text : "", stdout);
			fputs(notes ? notes : "", stderr);
			json_decref(rep);
		} else if (rc < 0) {
			struct lstate st;
			char err[1024];
			if ((rc = open_direct(c, t, nodaemon, true, &st)) == 0) {
				if (lstate_print_queue(&st, stdout, all, json, err, sizeof err))
					rc = say(c, 1, "%s", err);
				else if (json)
					lstate_print_quarantine(&st, stderr, -1);
				lstate_close(&st);
			}
		}
	}
	free(t);
	return rc;
}

/* "+1h02m", "+45s", "-" (not within the horizon): t relative to at. */
static void rel_text(char *buf, size_t len, json_t *t, double at)
{
	if (!json_is_number(t)) {
		snprintf(buf, len, "-");
		return;
	}
	double d = json_number_value(t) - at;
	const char *sign = d < 0 ? "-" : "+";
	long s = (long)(fabs(d) + 0.5);
	if (s >= 3600)
		snprintf(buf, len, "%s%ldh%02ldm", sign, s / 3600, s / 60 % 60);
	else if (s >= 60)
		snprintf(buf, len, "%s%ldm%02lds", sign, s / 60, s % 60);
	else
		snprintf(buf, len, "%s%lds", sign, s);
}

int lclient_forecast(const struct lclient *c, int64_t job, bool json, bool why)
{
	struct target *t = malloc(sizeof *t);
	if (!t)
		return say(c, 1, "out of memory");
	int rc = target_of(c, t);
	json_t *req = NULL, *rep = NULL;
	if (rc == 0) {
		req = job >= 0 ? json_pack("{ss sI}", "op", "forecast", "job", (json_int_t)job) : json_pack("{ss}", "op", "forecast");
		char nodaemon[2048] = "";
		rc = req ? ask(c, t, req, &rep, nodaemon, sizeof nodaemon) : say(c, 1, "out of memory");
		if (rc < 0)
			rc = say(c, 1, "%s: forecasts come from a running daemon", nodaemon[0] ? nodaemon : "no daemon answers");
	}
	if (rc == 0) {
		json_t *fc = json_object_get(rep, "forecast"), *jobs = json_object_get(fc, "jobs");
		double at = json_number_value(json_object_get(fc, "at"));
		if (job >= 0 && json_array_size(jobs) == 0) {
			rc = say(c, 1, "job %lld does not wait (it runs, has ended, or is not yours or not known): "
			         "hetlab queue --all shows it", (long long)job);
		} else if (json) {
			char *text = json_dumps(fc, JSON_COMPACT);
			if (text)
				printf("%s\n", text);
			free(text);
		} else if (why) {
			json_t *row = json_array_get(jobs, 0);
			char q[4][32];
			static const char *const key[4] = { "p10", "p50", "p90", "limit" };
			for (int k = 0; k < 4; k++)
				rel_text(q[k], sizeof q[k], json_object_get(row, key[k]), at);
			char w[1024];
			live_escape(w, sizeof w, json_string_value(json_object_get(row, "why")));
			printf("job %lld waits: %s\n", (long long)job, w[0] ? w : "the policy gave no reason");
			printf("predicted start (from the forecast at its time, %d draws): p10 %s, p50 %s, p90 %s; "
			       "every job to its time limit: %s\n",
			       (int)json_integer_value(json_object_get(fc, "draws")), q[0], q[1], q[2], q[3]);
		} else {
			printf("%-8s %-9s %-9s %-9s %-9s %s\n", "JOB", "P10", "P50", "P90", "LIMIT", "WHY");
			size_t k;
			json_t *row;
			json_array_foreach(jobs, k, row) {
				char q[4][32], w[1024];
				static const char *const key[4] = { "p10", "p50", "p90", "limit" };
				for (int i = 0; i < 4; i++)
					rel_text(q[i], sizeof q[i], json_object_get(row, key[i]), at);
				live_escape(w, sizeof w, json_string_value(json_object_get(row, "why")));
				printf("%-8lld %-9s %-9s %-9s %-9s %s\n", (long long)json_integer_value(json_object_get(row, "id")),
				       q[0], q[1], q[2], q[3], w);
			}
		}
	}
	json_decref(req);
	json_decref(rep);
	free(t);
	return rc;
}
