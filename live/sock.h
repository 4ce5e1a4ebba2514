/* sock — the live daemon's Unix socket: how `hetlab submit`, `cancel`,
 * `approve` and `queue` reach a running daemon, and how the daemon decides
 * who may do what (docs/live.md "The socket").
 *
 * Identity comes from the kernel, never from the request: the daemon reads
 * the peer's uid, gid and pid with SO_PEERCRED (and its groups with
 * SO_PEERGROUPS) on each connection. The socket is the daemon's (mode
 * 0666; who can reach it is decided by the directories above it), served
 * by a thread of its own with its own connection to state.db, so it
 * answers at once whatever the daemon's loop is waiting on.
 *
 * Protocol: a client connects, writes one request (a JSON object on one
 * line, at most LSOCK_REQ_MAX bytes) and reads one reply (one JSON object
 * on one line); then the daemon closes the connection.
 *   {"op": "submit", "src": "jobs.jsonl", "cwd": "/home/a/run",
 *    "jobs": [{"line": 1, "text": "{...job line...}"}, ...]}
 *       -> {"ok": true, "queued": 2, "inbox": [17, 18]}
 *   {"op": "cancel", "jobs": [3, 4]}          -> {"ok": true, "queued": 2}
 *   {"op": "approve", "tenants": ["lab", "2"]} -> {"ok": true, "queued": 2}
 *   {"op": "queue", "all": false, "json": false}
 *       -> {"ok": true, "text": "...", "notes": "..."}
 *   {"op": "forecast", "job": 17} (job optional)
 *       -> {"ok": true, "forecast": {"at": T, "draws": 20, "jobs": [{"id": 17, "p10": T1, "p50": T2,
 *           "p90": T3, "limit": T4, "why": "..."}]}}   (Unix times; null: not within 30 days)
 *   {"op": "dryrun", "text": "{...job line...}"}
 *       -> {"ok": true, "dry_run": {"at": T, "draws": 20, "p10": T1, "p50": T2, "p90": T3, "limit": T4,
 *           "why": "..."}}   (the forecast of that job as if submitted now; one at a time)
 *   {"op": "whoami"} -> {"ok": true, "uid": 1000, "gid": 1000, "user": "alice", "operator": false}
 * Any refusal: {"ok": false, "error": "what and why"}; a request is
 * applied whole or not at all. A submit, cancel or approve may carry
 * "rid": a request id; one that repeats it (same uid) is answered with the
 * first reply and "again": true, applying nothing (a client's retry).
 *
 * Fair shares: of LSOCK_CONNS connections, LSOCK_OP_SLOTS are the
 * operators'; another user holds at most LSOCK_USER_SLOTS and may have at
 * most max_pending jobs not started. The socket's directory is writable by
 * its owner alone (sticky or not), so that nobody takes its path; a client
 * checks who answers (SO_PEERCRED).
 *
 * Who may do what:
 *   - operators are root, the daemon's own user and the members of the
 *     config's "operators" group (primary or supplementary);
 *   - submit: anyone who reaches the socket; each job line is checked and
 *     bound to the recorded scenario before it is queued; the daemon
 *     records who submitted it. A daemon that is not root takes jobs only
 *     from its own user (it could not run them as anyone else);
 *   - cancel: one's own jobs; an operator any;
 *   - approve: operators only;
 *   - queue, forecast: one's own jobs and inbox rows; an operator everything. */
#ifndef HL_LIVE_SOCK_H
#define HL_LIVE_SOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest request line (a submission of many jobs). */
#define LSOCK_REQ_MAX (32 << 20)
/* Most jobs in one submission. */
#define LSOCK_JOBS_MAX 100000
/* Connections served at once; of them, LSOCK_OP_SLOTS are kept for the
 * operators, and one other user holds at most LSOCK_USER_SLOTS (so that
 * one user who reconnects in a loop shuts nobody out). */
enum { LSOCK_CONNS = 16, LSOCK_OP_SLOTS = 4, LSOCK_USER_SLOTS = 4 };

struct lsock;

struct lsock_cfg {
	const char *path;            /* the socket (at most 107 bytes) */
	const char *state_dir;
	const char *operators;       /* group name, or NULL/"" for none */
	const char *scenario_text;   /* the recorded scenario: job lines are checked against it */
	const char *scenario_file;   /* its path (messages, relative files) */
	int64_t epoch_unix_us;       /* the engine's time 0 (for log lines) */
	int32_t max_pending;         /* jobs not started one non-operator may have (0: no limit) */
	int32_t deadline_ms;         /* from a connection to its whole request, and for a reply (0: 10 s) */
	bool quiet;                  /* no log lines */
};

/* Binds the socket (a stale one of a dead daemon is replaced; a live one
 * or a file that is not a socket is an error), opens the thread's own
 * state connection and starts it. 0, or -1 with err. */
int lsock_start(struct lsock **out, const struct lsock_cfg *c, char *err, size_t errlen);
/* The daemon's last forecast (live/forecast.c; a JSON object, copied):
 * what {"op": "forecast"} answers. */
void lsock_forecast_set(struct lsock *s, const char *json);
/* The open dry run ({"op": "dryrun", "text": "{...job line...}"}), for the
 * daemon's loop: 1 with its job line (malloc'd, normal form) and number,
 * once; 0 none. Its answer (a whole reply, JSON) goes back with
 * lsock_dry_answer and is the waiting client's reply. */
int lsock_dry_take(struct lsock *s, char **text, uint64_t *seq);
void lsock_dry_answer(struct lsock *s, uint64_t seq, const char *json);
/* Stops the thread, closes the connections and removes the socket. */
void lsock_stop(struct lsock *s);

/* Client: one request (JSON text) to the daemon at path, its reply
 * (malloc'd JSON text) back. NULL with err when it fails; *absent (may be
 * NULL) is set when no daemon is there at all (no socket, or nothing
 * listening: a client may then queue into its own state directly). */
char *lsock_call(const char *path, const char *req, bool *absent, char *err, size_t errlen);
/* As lsock_call, tried again (a few times, within seconds) when the
 * daemon went away mid-request (killed, restarted): only for a request
 * safe to send twice, one that reads, or one with a "rid" (the daemon
 * answers a repeated rid with its first reply, applying nothing). */
char *lsock_call_again(const char *path, const char *req, bool *absent, char *err, size_t errlen);
/* The directory of socket path into dir ("." for a bare name, "/" at the root). */
void lsock_dir(const char *path, char *dir, size_t len);

#endif
