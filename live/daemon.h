/* daemon — live mode: the simulator's engine and policy against the real
 * world (docs/live.md).
 *
 * The engine runs in live mode (sim/live.h, sim_live_init): its clock is wall-clock
 * microseconds since the state's epoch; jobs arrive through sim_add_job;
 * the executor (local processes or Slurm, live/exec/) starts, signals
 * and stops real jobs and reports their exits; probes report readings.
 * Every input from the world is first recorded in the state database
 * (live/state.h, table rec) and then injected into the engine as an event,
 * so that the engine's state is a pure function of the recording:
 *   - after a crash (even SIGKILL) the daemon rebuilds its state by
 *     replaying the recording with the executor switched off, then
 *     reconciles with the executor (jobs that ended meanwhile, starts the
 *     crash interrupted) — nothing is lost or started twice;
 *   - `hetlab replay` runs the same code on the recording and compares its
 *     decision log with the one the daemon wrote;
 *   - the results database (STATE_DIR/results.db, the same tables as
 *     `hetlab run` writes) is rewritten from the recording, whole, so it is
 *     never half-written.
 *
 * One thread runs the loop; the metrics endpoint serves from its own
 * thread what the loop last published. */
#ifndef HL_LIVE_DAEMON_H
#define HL_LIVE_DAEMON_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "live/live_cfg.h"

struct live;

enum live_mode {
	LIVE_DAEMON,    /* drive the world */
	LIVE_REPLAY,    /* rebuild from the recording only (no executor, no probes) */
};

struct live_opts {
	bool exit_when_idle;     /* stop once the inbox is empty and no job is pending or running
	                            (tests and batch use) */
	double max_s;            /* stop after this many seconds (0: never) */
	const char *policy;      /* overrides the config's */
	const char *executor;    /* "local" / "slurm": overrides the config's */
	const char *metrics_addr;   /* overrides */
	int metrics_port;        /* -1: the config's */
	bool metrics_public;
	bool quiet;
	bool from_snapshot;      /* replay: from the state's snapshot, not the whole recording */
	const char *snapshot_file;   /* replay: from this snapshot (a kept one), not the state's latest */
	live_cfg_loader load_cfg;   /* reads the config a state was recorded with (results.db); required */
};

/* Opens the state in cfg->state_dir (creating it, with the config and the
 * scenario's text, when new), builds the engine, replays the recording
 * and, for LIVE_DAEMON, reconciles with the executor. 0, or -1 with err. */
int live_open(struct live **out, const struct live_cfg *cfg, const struct live_opts *o, enum live_mode mode,
              char *err, size_t errlen);
/* The loop, until *stop is set (SIGTERM/SIGINT), or the options say.
 * Writes results.db on the way out. 0, or -1 with err. */
int live_loop(struct live *L, volatile sig_atomic_t *stop, char *err, size_t errlen);
void live_close(struct live *L);

/* Checks what a live job line carries beyond a trace line: "argv" (a
 * non-empty array of strings), "env" (an object of strings), "cwd" and
 * "name". src names the line in messages. 0 or -1 with err. */
int live_spec_check(const char *src, const char *text, char *err, size_t errlen);

/* The daemon's socket (docs/live.md "The socket"): the config's "socket",
 * else STATE_DIR/hetlab.sock. 0, or -1 when it is longer than a socket
 * path may be (107 bytes). */
int live_socket_path(const struct live_cfg *c, char *out, size_t len);

/* The longest job line accepted (bytes). */
#define LIVE_JOB_LINE_MAX 65536

struct cluster;
/* Checks one submitted job line and returns its normal form (malloc'd),
 * or NULL with err: at most LIVE_JOB_LINE_MAX bytes, a JSON object,
 * submit_us and run_us filled when absent (the daemon sets the submit
 * time; run_us is unknown live), "submitter" removed (only the daemon
 * says who submitted), the extras checked (live_spec_check), parsed as a
 * trace line and, with cl, bound to the cluster and refused when no node
 * could ever hold it. src and line name it in messages ("jobs.jsonl:3"). */
char *live_job_norm(const char *src, int64_t line, const char *text, size_t len, struct cluster *cl,
                    char *err, size_t errlen);

/* Writes `path` (a results database, as `hetlab run` writes) by replaying
 * the recording of the state in `dir`. */
int live_results(const char *dir, const char *path, live_cfg_loader load, char *err, size_t errlen);
/* `hetlab replay`: replays the recording of the state in `dir` and compares
 * the decisions with the daemon's log up to the last committed time.
 * Prints a unified-style diff to out; *same says whether they agree.
 * from_snapshot: from the state's snapshot (docs/live.md "Snapshots"),
 * the recording after it replayed and the decisions after it compared; a
 * snapshot that cannot be used is an error. snapshot_file: from that
 * snapshot (a kept one: STATE_DIR/snapshots/...) instead. */
int live_replay(const char *dir, live_cfg_loader load, bool from_snapshot, const char *snapshot_file, FILE *out,
                bool *same, long *ndecisions, char *err, size_t errlen);

#endif
