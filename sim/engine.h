/* engine — the discrete-event loop that owns simulated time.
 *
 * A struct sim holds one run's whole state: the cluster, the job table, the
 * event queue, the pending and running lists and the shims it acts through.
 * The loop pops every event at the next timestamp, updates the model, then
 * runs at most one scheduling pass for that timestamp (if anything changed),
 * validates and applies the policy's decisions, and tells the recorder.
 *
 * The engine knows no policy, file format or database: the scheduler, the
 * health monitor, the executor and the recorder are tables of function
 * pointers (struct sim_sched, sim_health, executor_ops, sim_recorder) with
 * a void * context each, installed before sim_run(). The simulated
 * executor (sim/exec_sim.c) is the default; node readings are the models'
 * (sim/probe_sim.c). Live mode is a seam of its own (sim/live.h): a live
 * run has s->live, and what the world did enters as injected events.
 *
 * The engine's files, each calling only those below it (sim/engine_int.h):
 * engine.c (set-up, the loop, the pass), engine_live.c (live mode's
 * inputs), engine_fault.c (faults, drains, joins), engine_jobs.c (ends,
 * requeues, holds), engine_power.c (power and energy), engine_speed.c
 * (speed and progress), engine_core.c (what all of them share).
 *
 * Ownership: sim_init() takes ownership of the cluster and job arrays it is
 * handed (they are freed by sim_fini()); the shims' contexts stay the
 * caller's. */
#ifndef HL_ENGINE_H
#define HL_ENGINE_H

#include <stddef.h>
#include "sim/cluster.h"
#include "sim/evq.h"
#include "sim/job.h"
#include "sim/org.h"
#include "sim/view.h"

struct sim;
struct sim_live;
struct snapw;                     /* sim/snap.h */
struct snapr;

/* The scheduler as the engine sees it (filled from a policy_ops table by
 * the caller, so that sim/ does not depend on policies/). */
struct sim_sched {
	const char *name;
	void *state;
	void (*submit)(void *state, const struct view *v, int32_t job);   /* may be NULL */
	void (*finish)(void *state, const struct view *v, int32_t job);   /* may be NULL */
	void (*schedule)(void *state, const struct view *v, struct decide *out);
	/* Finished jobs leave the table (sim_compact): policy_ops.renumber.
	 * NULL: the run cannot be compacted. */
	int (*renumber)(void *state, const struct view *v, const int32_t *map, int32_t nold, int32_t nnew);
	/* The policy's state into a snapshot, and back into a freshly
	 * initialised one (sim_snap_save / load): policy_ops.save / load. NULL:
	 * the run cannot be snapshotted. */
	int (*save)(void *state, const struct view *v, struct snapw *w);
	int (*load)(void *state, const struct view *v, struct snapr *r);
};

enum exec_stop { EXEC_STOP_KILL, EXEC_STOP_PREEMPT };

/* How decisions reach the world. The simulated executor computes each job's
 * end from its truth and pushes the end event. */
struct executor_ops {
	const char *name;
	int (*start)(void *ctx, struct sim *s, int32_t job);
	/* KILL: the job ends now (walltime, cancel, a fault). PREEMPT: the
	 * end of a preempted job's grace, or it exited after the signal: stop
	 * it so that it can start again later. Live executors must accept
	 * either for a job that has already exited. */
	int (*stop)(void *ctx, struct sim *s, int32_t job, enum exec_stop how);
	/* Live only (NULL in simulation): the checkpoint signal of a
	 * preemption, and a node drained (drain true, with the reason) or
	 * resumed. */
	int (*signal)(void *ctx, struct sim *s, int32_t job);
	int (*node_state)(void *ctx, struct sim *s, int32_t node, bool drain, const char *reason);
};

/* What the engine reports, in time order. */
enum rec_kind {
	REC_SUBMIT, REC_START, REC_END, REC_HOLD, REC_RELEASE, REC_PREEMPT,
	REC_SAMPLE_MARK,
	REC_REQUEUE,        /* a preempted job stopped and went back to pending (detail: lost work) */
	REC_DRAIN, REC_RESUME,   /* a node drained (detail: reason, actor) / back in service */
	REC_FAULT, REC_REPAIR,   /* a fault hit a node (detail: kind) / it was repaired */
	REC_JOIN, REC_LEAVE,     /* a node joined / left the cluster */
	REC_NKIND
};
const char *rec_kind_name(enum rec_kind k);

struct sim_sample {
	simtime t;
	int64_t cores_alloc, cores_total;
	int64_t gpus_alloc, gpus_total;
	int32_t pending, running;
	double power_w;         /* IT power from the probes */
	const double *rack_power_w;   /* per rack (cl.racks order), nracks entries */
	int32_t nracks;
};

struct sim_recorder {
	void *ctx;
	/* A decision or state change: job (or -1), node (or -1), a detail string
	 * (may be NULL). For REC_END, `state` is the final state. */
	void (*event)(void *ctx, simtime t, enum rec_kind kind, int32_t job, int32_t node,
	              int state, const char *detail);
	/* Once per job when it reaches a final state. */
	void (*job_end)(void *ctx, const struct sim *s, const struct job *j);
	void (*sample)(void *ctx, const struct sim_sample *smp);
};

/* Checkpointing of a job class (scenario "checkpoint"). */
struct ckpt_cfg {
	simtime every_us;            /* default interval in reference work for jobs that set none; 0 none */
	simtime cost_us;             /* wall time to write one checkpoint */
	simtime restart_us;          /* wall time to load it and resume after a requeue */
	simtime grace_us;            /* from the preemption signal to the kill */
};

/* Most rows a run's samples may take (one per sample and one per rack and
 * sample): a run past it fails, naming sample_interval_s (docs/scenario.md
 * "Limits"). Live mode has no limit. */
#define SIM_SAMPLE_ROWS_MAX 50000000LL

struct sim_cfg {
	simtime sample_every_us;     /* 0: no samples */
	int64_t max_sample_rows;     /* 0: SIM_SAMPLE_ROWS_MAX (tests set less) */
	simtime horizon_us;          /* stop at this time; SIMTIME_INF: when all jobs end */
	bool keep_overruns;          /* don't kill jobs at their walltime (sites that did not enforce it) */
	/* Runtimes are work on the reference device: a job's speed is its
	 * device's (catalog speed table) times the sharing, network and storage
	 * factors (docs/models.md). false: runtimes are replayed as recorded. */
	bool speed_model;
	struct ckpt_cfg ckpt[JOB_NCLASS];
	const struct org *org;       /* tenants, quotas and approvals; NULL = none (borrowed) */
	const struct env_event *env; /* environment events (rack cap, inlet, cooling), time order; borrowed */
	const struct fault_cfg *fault;   /* failures, health thresholds, joins (sim/fault.h); NULL none */
	uint64_t seed;               /* seeds the failure processes' RNG streams */
	/* Jobs may arrive at any time (sim_add_job): samples go on, and a
	 * workload whose jobs have all ended does not end the run (live mode
	 * sets it: sim_live_init). */
	bool open_ended;
	int32_t nenv;
	void (*progress)(void *ctx, const struct sim *s);   /* may be NULL */
	void *progress_ctx;
};

/* A running job's progress (engine-owned, parallel to the job table). */
struct env_event;
struct fault_cfg;

struct jobrun {
	double work_us;              /* work left, in reference-device microseconds */
	double rate;                 /* reference microseconds done per microsecond (checkpoint pauses included) */
	simtime since;               /* work_us is as of this time (or set-up ends then) */
	double saved_us;             /* work saved by the last checkpoint (survives a requeue) */
	double ckfrac;               /* share of wall time spent writing checkpoints now */
	double dev_rate;             /* the rate before checkpoint pauses (converts lost work to time) */
	simtime stop_at;             /* preempted: when the engine stops it (-1 none) */
	bool ckpt_on_signal;         /* preempted: writing a final checkpoint (no progress) */
	bool cancel_on_stop;         /* preempted to be cancelled (ends killed, reason preempted), not requeued */
	double power_w;              /* active power of its devices now (power model on) */
	simtime power_since;         /* energy integrated up to here */
};

/* The health monitor, installed like the scheduler (policies/health.c): a
 * pass calls it before the policy; it acts through decide_drain and
 * decide_resume. */
struct nodejobs;

struct sim_health {
	void *state;
	void (*check)(void *state, const struct view *v, struct decide *out);
	/* Its state into a snapshot and back (sim_snap_save / load). */
	void (*save)(void *state, struct snapw *w);
	int (*load)(void *state, struct snapr *r);
};

/* One run. Fields are public (read by whoever holds the run: the command
 * line, analysis/, live/, the tests) or private (the engine's own, sim/
 * engine*.c; read elsewhere only by benchmarks and tests that look inside),
 * as marked; nothing outside sim/ writes a field but through the calls
 * below (and live/'s through sim/live.h), the recorder hooks excepted:
 * whoever installs a recorder may chain the one it replaces. */
struct sim {
	/* -- public -- */
	struct sim_cfg cfg;
	struct cluster cl;
	struct job *jobs;            /* njobs entries; a job's id is its index */
	int32_t njobs;
	int32_t next_submit;         /* next job (by submit order) not yet submitted */
	int32_t *pending, npending;
	int32_t *running, nrunning;
	simtime now;
	bool failed;                 /* err says why */
	uint64_t nevents, npasses, ndecisions;
	int32_t nfinished;
	int32_t nrejected;           /* killed at submit: larger than the cluster */
	int64_t ngone;               /* finished jobs that left the table (sim_compact); the run's
	                                jobs so far are ngone + njobs, nfinished counts those left */
	struct sim_recorder rec;
	struct sim_live *live;       /* live mode's state (sim/live.h), NULL in simulation */
	char err[512];
	/* -- private to the engine -- */
	struct job_truth *truth;
	struct jobrun *run;
	int32_t cap_pending;
	struct evq q;
	struct nodejobs *onnode;     /* per node: the running jobs with a part on it (engine_int.h) */
	bool onnode_live;            /* onnode is kept (else empty, built from the running list when first read) */
	int32_t *onbuf, cap_onbuf;   /* scratch for a node's jobs in running-list order */
	simtime last_pass;
	bool dirty;                  /* something changed since the last pass */
	int64_t sample_rows;         /* recorded so far (SIM_SAMPLE_ROWS_MAX) */
	uint64_t alloc_epoch;        /* bumped on every start and end */
	struct sim_sched sched;
	struct sim_health health;
	void *fault_rng[8];          /* gsl_rng per fault kind (FAULT_NKIND ≤ 8) */
	const struct executor_ops *exec;
	void *exec_ctx;
	double *rack_w;              /* per-rack power of the sample being taken */
	double *node_w;              /* per node, its modelled power at the last sample (cl.w_stale) */
	int32_t *node_wcores;        /* per node, its free cores when node_w was computed */
	double *node_w2;             /* per node without GPUs, the power node_w held before (a cache: not */
	int32_t *node_wcores2;       /* in snapshots) and its free cores then (-1: none); node_w2_n nodes */
	int32_t node_w2_n;
	int32_t cap_jobs;            /* room in jobs/truth/run/pending/running (sim_add_job grows them) */
	void (*note)(void *ctx, const struct sim *s, int32_t job, const char *why);   /* decide_note's listener */
	void *note_ctx;
};

/* Takes ownership of *cl (left zeroed) and of jobs/truth (malloc'd, njobs
 * entries, sorted by submit time, ids equal to indexes). 0 or -1 (ENOMEM). */
int sim_init(struct sim *s, const struct sim_cfg *cfg, struct cluster *cl,
             struct job *jobs, struct job_truth *truth, int32_t njobs);
void sim_fini(struct sim *s);
void sim_set_sched(struct sim *s, const struct sim_sched *sched);
void sim_set_health(struct sim *s, const struct sim_health *h);
void sim_set_recorder(struct sim *s, const struct sim_recorder *rec);
void sim_set_executor(struct sim *s, const struct executor_ops *ops, void *ctx);
/* Listens to the policy's reasons (view.h decide_note); NULL: nobody
 * does, and a policy formats none (a simulation, the daemon's own run). */
typedef void (*sim_note_fn)(void *ctx, const struct sim *s, int32_t job, const char *why);
void sim_set_note(struct sim *s, sim_note_fn fn, void *ctx);
/* sim/engine_detach.c, for forecasts (live/forecast.c, in a child process
 * that holds a copy of the daemon's run): the run stops being live from
 * time `at` on (≥ now, and no event is due before it: the daemon has
 * handled every event up to at; the clock moves there). Its live state
 * is freed (inputs still queued are dropped); the executor becomes one
 * that runs each job for runtime(ctx, s, id, elapsed) microseconds of its
 * attempt (elapsed: what it has run already; the result is kept within
 * its walltime and after now), re-timing the jobs running now, so that
 * the engine's loop runs the policy forward as a simulation would. ctx is
 * borrowed and must outlive the run. 0, or -1 (ENOMEM). */
typedef simtime (*sim_runtime_fn)(void *ctx, const struct sim *s, int32_t id, simtime elapsed);
int sim_live_detach(struct sim *s, simtime at, sim_runtime_fn runtime, void *ctx);
/* Runs to the end. 0 on success; -1 with the reason in s->err. */
int sim_run(struct sim *s);
/* One timestamp's events and pass; 1 if more remain, 0 when done, -1 on error. */
int sim_step(struct sim *s);

/* Finished jobs leave the job table (sim/engine_compact.c), between steps:
 * every job in a final state (done, failed, killed) is dropped and the rest
 * renumbered in order (old ids compare as their new ones do, so the run
 * decides as it would have), the policy renumbering what it keeps
 * (policy_ops.renumber). map (njobs entries, the caller's) gets each old
 * id's new one, -1 for a job that left, for the caller to renumber what it
 * keeps by job id (a recorder must not keep job ids across it). keep (may
 * be NULL) keeps a finished job its caller still needs (an executor that
 * has not seen it end). The number of jobs that left, or -1 with s->err
 * (the policy cannot renumber; memory ran out). */
int32_t sim_compact(struct sim *s, int32_t *map, bool (*keep)(void *ctx, int32_t id), void *ctx);

/* Snapshots (sim/engine_snap.c): the run's whole state between steps —
 * jobs, their truth and progress, the lists, the event queue, the
 * cluster's allocations, power, health and fault streams, the live seam's
 * bookkeeping and the policy's and health monitor's own (their save
 * hooks) — into w (the caller frees w->buf), and back into a run set up
 * afresh from the same scenario (sim_init, the same policy installed and
 * freshly initialised, the same shims; a live run made live): the run
 * then goes on exactly as the one saved would have. fingerprint is the
 * caller's (its scenario, its settings): a snapshot is loaded only by a
 * run of the same build with the same fingerprint and the same cluster
 * shape, policy and seed; anything else, a snapshot cut short or with a
 * wrong checksum, is refused with the reason in s->err, before anything
 * is changed (-1, the run untouched). save (appended to what w holds): 0,
 * or -1 with s->err (the policy has no save hook; memory ran out). load: 0,
 * -1 refused (the run untouched), or -2 when it failed part way
 * (s->failed: the run is lost, set up a fresh one). */
#define SIM_SNAP_VERSION 1
int sim_snap_save(struct sim *s, uint64_t fingerprint, struct snapw *w);
int sim_snap_load(struct sim *s, uint64_t fingerprint, const void *buf, size_t len);
/* Whether the run can be snapshotted (its policy and health monitor have
 * the hooks). */
bool sim_snap_able(const struct sim *s);

/* The time of the next event (SIMTIME_INF when none). */
simtime sim_next_time(struct sim *s);

/* Used by executors: push an event for a job, and report its end. */
int sim_push(struct sim *s, simtime t, uint32_t kind, int32_t id, uint32_t ver, int32_t arg);
/* Ends a running job in final state `st`: frees its allocation, records it. */
int sim_job_end(struct sim *s, int32_t job, enum job_state st);

/* The speed of running job id now (docs/models.md "Speed"). */
double sim_job_speed(const struct sim *s, int32_t id);
/* Starts the modelled progress of job id (its set-up delay was set by decide_start) and
 * pushes its end: done (or failed per its truth) when its work is done,
 * killed at its walltime, or failed with OOM when its GPU lacks memory. */
int sim_job_begin(struct sim *s, int32_t id);
/* Re-times running job id after its speed may have changed. */
int sim_job_retime(struct sim *s, int32_t id);
/* END events carry the final state and the reason: */
#define SIM_END_ARG(state, reason) ((int32_t)(state) | ((int32_t)(reason) << 8))

/* Event kinds the engine handles; executors may push SIM_EV_END. */
enum { SIM_EV_SUBMIT = 1, SIM_EV_END, SIM_EV_SAMPLE, SIM_EV_WAKE, SIM_EV_STOP, SIM_EV_APPROVE,
       SIM_EV_THERMAL, SIM_EV_CAP, SIM_EV_ENV, SIM_EV_FAULT, SIM_EV_REPAIR, SIM_EV_FEVENT,
       SIM_EV_XEND, SIM_EV_CANCEL, SIM_EV_PROBE, SIM_EV_XAPPROVE,
       SIM_EV_XRUN, SIM_EV_XEND2, SIM_EV_XUNSTART, SIM_EV_XREQUEUE, SIM_EV_FOREIGN, SIM_EV_XBLIND };

extern const struct executor_ops exec_sim_ops;

#endif
