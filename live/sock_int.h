/* sock_int — what the daemon's socket's files share (live/sock.c: the
 * socket, its thread, the connections and most requests; live/sockfc.c:
 * the forecast and dry-run requests; live/sockio.c: what both call).
 * Not for other modules: their API is live/sock.h. */
#ifndef HL_LIVE_SOCK_INT_H
#define HL_LIVE_SOCK_INT_H

#include "live/sock.h"
#include "live/state.h"
#include "config/scenario.h"

#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

enum { LSOCK_DRY_MS = 30000 };   /* a dry run's client waits at most this long (ms) */

struct peer {
	uid_t uid;
	gid_t gid;
	pid_t pid;
	char user[64];      /* "" without a passwd entry */
	char home[PATH_MAX];
	bool op;
	char who[128];      /* "alice (uid 1000, pid 4242)" for log lines */
};

struct conn {
	int fd;
	char *buf;
	size_t len, cap;
	int64_t deadline_ms;
	struct ucred cred;
	struct peer p;      /* who, read when it was accepted */
	uint64_t dry;       /* the dry run it waits for (its answer is the reply), 0 none */
};

struct lsock {
	pthread_t th;
	bool started;
	int lfd, wake[2];
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char state_dir[PATH_MAX];
	struct lstate st;
	bool have_st;
	struct scenario sc;
	bool have_sc;
	bool have_op;
	gid_t op_gid;
	uid_t self;
	int64_t epoch_unix_us;
	bool quiet;
	int32_t max_pending;
	int32_t deadline_ms;
	struct conn c[LSOCK_CONNS];
	int nc;
	size_t buffered[2];   /* by the others' connections, by the operators' */
	pthread_mutex_t fc_mu;   /* guards fc and dry_*: the daemon loop and the thread share them */
	json_t *fc;           /* the last forecast (live/forecast.c), NULL none yet */
	/* One dry run at a time (`hetlab submit --dry-run`): the request, taken
	 * by the daemon's loop, answered through dwake. */
	uint64_t dry_seq;     /* the request's number (0: none open) */
	char *dry_text;       /* its job line, normal form */
	bool dry_taken;
	json_t *dry_ans;      /* the answer, until the thread replies with it */
	int dwake[2];
};

/* sockio.c */
json_t *lsock_refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));   /* {"ok": false, "error": ...} */
int64_t lsock_now_ms(void);                                   /* CLOCK_MONOTONIC */
void lsock_reply(struct conn *c, json_t *rep);                /* the whole line, within c's deadline */
void lsock_conn_close(struct lsock *s, int k);                /* the last connection takes k's place */

/* sockfc.c: {"op": "forecast"} and {"op": "dryrun"}. A dry run defers its
 * reply (*defer: its number); lsock_dry_reply sends the daemon's answer to
 * the connection that waits for it; lsock_dry_close ends dry run seq. */
json_t *lsock_do_forecast(struct lsock *s, const struct peer *p, json_t *req);
json_t *lsock_do_dryrun(struct lsock *s, const struct peer *p, json_t *req, uint64_t *defer);
void lsock_dry_reply(struct lsock *s);
void lsock_dry_close(struct lsock *s, uint64_t seq);

#endif
