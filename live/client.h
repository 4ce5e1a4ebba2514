/* client — what `hetlab submit`, `cancel`, `approve` and `queue` do once
 * their arguments are parsed (cli/cmd_live.c): reach the daemon through
 * its socket (live/sock.h) when one answers; when no daemon runs, the
 * owner of the state (only) queues into its inbox directly, as the daemon
 * would (checked, with who sent it); anyone else gets an error naming the
 * socket. A state directory that does not exist or holds no state is an
 * error, never created on the way (a typo in --state would otherwise
 * queue jobs no daemon reads).
 *
 * Each returns the exit status (0 done, 1 refused or failed, 2 usage) and
 * says what happened: results on stdout, messages on stderr as "hetlab
 * CMD: ...". docs/live.md "Jobs" and "The socket". */
#ifndef HL_LIVE_CLIENT_H
#define HL_LIVE_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "live/live_cfg.h"

struct lclient {
	const char *cmd;       /* "submit", "cancel", ... for messages */
	const struct live_cfg *cfg;   /* --config LIVE.json as read (NULL: none) */
	const char *state;     /* --state DIR (NULL: none) */
	const char *socket;    /* --socket PATH (NULL: the config's, else STATE_DIR/hetlab.sock) */
	bool quiet;            /* says nothing (a lookup whose failure is no error) */
	bool dry_run;          /* submit: the forecast of the job as if submitted now, nothing queued */
};

/* The job line `job` (--job), or the JSON Lines file `file` ("-": stdin).
 * With c->dry_run, one job, forecast by a running daemon, not queued
 * (docs/forecast.md). */
int lclient_submit(const struct lclient *c, const char *job, const char *file);
int lclient_cancel(const struct lclient *c, const int64_t *ids, int n);
/* Tenants by name (the scenario's org.tenants) or index. */
int lclient_approve(const struct lclient *c, const char *const *names, int n);
int lclient_queue(const struct lclient *c, bool all, bool json);
/* The daemon's last forecast (docs/forecast.md): every waiting job of the
 * caller's (an operator's: all), or job (≥ 0) alone; as JSON, as a table
 * of starts relative to the forecast's time, or (why) job's reason and
 * its forecast. A daemon must answer. */
int lclient_forecast(const struct lclient *c, int64_t job, bool json, bool why);

#endif
