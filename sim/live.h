/* live — the engine's live seam: what live mode (live/, and its replays)
 * adds to a run, and the only place in sim/ where it is seen.
 *
 * A run is live once sim_live_init() has given it a struct sim_live: jobs
 * then arrive while it runs (sim_add_job), and what the world did enters
 * as injected events (sim_inject_*), each carrying its time, so that a
 * replay that injects the same inputs at the same points makes the same
 * decisions. Nothing about a job's progress is modelled: ends, starts the
 * executor saw, requeues and readings are observed. There is no probe
 * table: a node's reading is an injected event (SIM_EV_PROBE), kept here
 * per node; a node that has none is read from the model.
 *
 * Who sees what. This header is included by sim/engine_live.c (the seam's
 * code) and by live/ (the daemon, its executors, its metrics) and the
 * tests of live mode; no other file of sim/ includes it (tests/layout
 * checks that), so the rest of the engine knows struct sim_live only as an
 * opaque pointer, s->live, NULL in simulation, and reaches live mode only
 * through the calls engine_int.h lists under "the live seam". */
#ifndef HL_SIM_LIVE_H
#define HL_SIM_LIVE_H

#include "sim/engine.h"

/* How the world behaves (the daemon's LIVE.json and its executor). */
struct sim_live_cfg {
	bool async_start;            /* a start runs only once the executor says so
	                                (sim_inject_running); else at once (the local executor) */
	bool exec_fates;             /* a node seen down leaves its jobs to the executor, which
	                                reports what became of them (Slurm requeues or ends them
	                                itself); else they fail or move by the migration scope */
	double hot_c, cool_c;        /* a node whose reading is at or above hot_c is hot (the health
	                                monitor drains it) until it reads below cool_c; 0: off */
	double xid_repair_s;         /* a GPU error counts against its node this long (0: a day) */
};

/* A node's reading (and its replay's): what a probe saw, injected as an
 * event (sim_inject_reading). NaN: unknown. */
struct sim_reading {
	double power_w, temp_c, util;
	int32_t gpu_errors;     /* new health events (XID, uncorrected ECC) since the last reading */
	int16_t bad_gpu;        /* the GPU they hit (-1: the node / unknown) */
	int8_t down;            /* the executor says the node is down (1), up (0), or does not say (-1) */
	bool ok;                /* a reading arrived and parsed */
	simtime at;
};

/* The data of an injected input, kept until its event is handled. */
struct sim_xin {
	simtime a, b;                /* times (started, ended), -1 unknown */
	int32_t st, reason;
	int64_t mem_mib;
	char why[120];
};

/* A job's live bookkeeping, per attempt (beside struct jobrun). An attempt
 * the engine started is running only once the executor says so
 * (sim_inject_running); until then it holds its resources but accounts no
 * usage, and may be taken back. */
struct live_run {
	bool confirmed;              /* the executor saw this attempt run */
	bool counted_restart;        /* this start counted as a restart (j->restarts++) */
	bool killing;                /* asked to stop (cancel, walltime): ends when the executor says so */
	uint8_t kill_reason;         /* enum end_reason it ends with then */
	simtime prev_start;          /* the job's start_us before this start (-1 never) */
	simtime floor_us;            /* the earliest start the executor may report for it */
	simtime acct_start;          /* usage counts from here: the executor's own start (its clock
	                                counts whole seconds, so it may read before the decision) */
};

struct sim_live {
	struct sim_live_cfg cfg;
	struct live_run *run;        /* per job (s->cap_jobs entries) */
	struct sim_reading *rd;      /* per node, the latest reading */
	struct sim_reading *inj;     /* readings injected and not yet handled */
	int32_t ninj, capinj, injdone;
	struct sim_xin *xin;         /* other injected inputs' data */
	int32_t nxin, capxin, xindone;
	struct alloc_part *foreign;  /* per node, what jobs not the engine's hold there */
	struct sim_xin *foreign_want;/* per node, what the executor said they hold (a cores, b GPUs) */
	int32_t foreign_short;       /* nodes where foreign holds less than foreign_want */
	bool acct_at;                /* account the segment ending now up to acct_end, not now */
	simtime acct_end;
	bool blind;                  /* the executor cannot read the world (sim_inject_blind) */
};

/* Makes a run that sim_init() set up (with no jobs) live: the run never
 * ends by itself (sim_cfg.open_ended), samples go on without a row limit,
 * and the first sample is due at time 0. 0, or -1 on ENOMEM (s is then
 * still a run sim_fini frees). */
int sim_live_init(struct sim *s, const struct sim_live_cfg *cfg);

/* Appends a job (its submit_us ≥ every earlier job's and ≥ now; requests
 * bound to the cluster already); it is submitted by the event loop at
 * submit_us. Returns its id, or -1 (ENOMEM). */
int32_t sim_add_job(struct sim *s, const struct job *j, const struct job_truth *t);
/* What the world did, as events at time t (> s->now): job `id` (in its
 * attempt `attempt` = job.restarts when it started) exited in state st
 * (done, failed, killed) for `reason`; an operator cancelled job id; a
 * node's reading. -1 on ENOMEM. */
int sim_inject_end(struct sim *s, simtime t, int32_t id, uint32_t attempt, enum job_state st,
                   enum end_reason reason);
int sim_inject_cancel(struct sim *s, simtime t, int32_t id);
/* An operator approves tenant's jobs held for quota. */
int sim_inject_approve(struct sim *s, simtime t, int32_t tenant);
int sim_inject_reading(struct sim *s, simtime t, int32_t node, const struct sim_reading *r);
/* What the executor saw of job id's attempt: it runs, since `started`
 * (engine time; clamped to after its start decision, less the executor's
 * 1 s clock resolution); it ended in state st for reason, having run from
 * started to ended (-1: unknown, then the decision and now); it was never
 * started and is taken back (pending again, no usage, not a restart); the
 * executor requeued it by itself (a node failure: it ran from started,
 * when the start was never seen (-1: a start never seen is taken for none,
 * as unstart), until ended). Stale inputs (another attempt, a job not
 * running) are ignored. -1 on ENOMEM. */
int sim_inject_running(struct sim *s, simtime t, int32_t id, uint32_t attempt, simtime started);
int sim_inject_end_at(struct sim *s, simtime t, int32_t id, uint32_t attempt, enum job_state st,
                      enum end_reason reason, simtime started, simtime ended);
int sim_inject_unstart(struct sim *s, simtime t, int32_t id, uint32_t attempt, const char *why);
int sim_inject_requeue(struct sim *s, simtime t, int32_t id, uint32_t attempt, simtime started, simtime ended,
                       const char *why);
/* Jobs not the engine's (a site's own, a reservation, a node drained
 * outside hetlab) hold this much of node: it is taken out of what the
 * policy may use (at most what is free), replacing the last such hold. */
int sim_inject_foreign(struct sim *s, simtime t, int32_t node, int32_t cores, int32_t gpus, int64_t mem_mib);
/* The executor cannot read the world (Slurm's nodes) from time t on
 * (blind), or can again: while it cannot, the policy decides nothing (no
 * start, no preemption: they would be decided on what it last saw); the
 * health monitor still runs. */
int sim_inject_blind(struct sim *s, simtime t, bool blind);

/* sim_live_detach (sim/engine.h): a copy of a live run made a simulation,
 * for forecasts. */

#endif
