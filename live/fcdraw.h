/* fcdraw — the draws of a forecast (docs/forecast.md): when will each
 * waiting job of a run start, as p10 / p50 / p90 over draws of the jobs'
 * run times, and the start when every job runs to its time limit. One
 * copy of this code serves the daemon's forecasts (live/forecast.c, in its
 * forked child) and the shadow beside a Slurm cluster (live/shadow.c).
 *
 * fcdraw_run forks one process per draw. Each holds a copy-on-write copy
 * of the caller's run, detaches its live seam (sim_live_detach: nothing
 * reaches an executor, a state or a recording; the draw has a recorder of
 * its own and writes only to its pipe), gives every running and pending
 * job a run time from the predictor (live/predict.h) with its own seed,
 * and runs the engine forward until every target has started (or the
 * horizon, FCDRAW_HORIZON_US, passes: "not known"). Draw 0 gives every
 * job its time limit (what `squeue --start` assumes) and collects the
 * policy's reasons from its first pass (view.h decide_note).
 *
 * The caller's run is never changed (the draws change their copies), so
 * the caller may be the daemon's child or a run of its own. Ownership:
 * the caller owns every array. */
#ifndef HL_LIVE_FCDRAW_H
#define HL_LIVE_FCDRAW_H

#include <stdint.h>

#include "sim/engine.h"

struct pred;

enum { FCDRAW_WHY = 320 };
#define FCDRAW_HORIZON_US ((simtime)30 * 86400 * 1000000)   /* a start later than this is "not known" */

/* One target's answer; engine times, -1 when not within the horizon. */
struct fcdraw_q {
	simtime p10, p50, p90, lim;
};

struct fcdraw {
	struct sim *s;               /* a live run (sim_live_init), between steps */
	const struct pred *pred;
	simtime at;                  /* the forecast's time: every event up to it handled */
	int draws;                   /* K: draws 1..K with predicted run times */
	uint64_t seq;                /* seeds the draws (one forecast's seeds differ from the next's) */
	int limit_s;                 /* each draw is given up after this long (alarm) */
	const int32_t *target;       /* the jobs to forecast (engine ids), ntarget */
	int32_t ntarget;
	int close_fd;                /* closed in each draw's process (the caller's own pipe), -1 none */
};

/* Runs the draws of f; q[t] and why[t] (why may be NULL) for target t.
 * The policy's reasons are "" for a job it said nothing of. 0, or -1 when
 * a draw failed (fork, pipe, memory, a draw's error or its time limit). */
int fcdraw_run(const struct fcdraw *f, struct fcdraw_q *q, char (*why)[FCDRAW_WHY]);

#endif
