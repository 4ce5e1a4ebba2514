/* executor — the whole contract between the live daemon and an executor,
 * what carries the engine's decisions out in the world (docs/executors.md).
 *
 * An executor is a const table of hooks (struct live_executor) built with
 * designated initialisers in its own files under live/exec/, each file
 * named and each exported symbol prefixed for it (local: local*.c, lx_;
 * Slurm: slurm*.c, sx_), and registered by one line in live/exec/registry.c.
 * Nothing outside the registry knows which executors there are: the config
 * loader (config/livecfg.c) checks the "executor" key with exec_find, the
 * daemon (live/rebuild.c) takes the table from the config (or --executor)
 * and asks its flags, never its name, what the engine and the results
 * must do differently for it.
 *
 * The daemon calls the hooks from its one thread, in live mode only (never
 * while a state is replayed: `hetlab live results`, `status`, catching up
 * after a restart), with job and node ids of L->s. A hook may read all of
 * *L. It writes: its own context L->xctx (which init allocates and fini
 * frees); a job's handle L->jx[job].ref, with L->jdirty[job] set so that
 * the jobs table shows it; the daemon's health (L->healthy, L->why) when
 * it cannot read the world; in the state (L->st) only the executor's own
 * records, the xref rows of its job ids and the foreign holds
 * (live/state.h), never the recording. It never changes the engine (L->s):
 * what it saw goes back as recorded inputs (an end returned by poll, rows
 * added to the struct obs of observe), so that a replay of the recording
 * makes the same decisions without it.
 *
 * Hooks marked "required" must not be NULL; for the others NULL says what
 * the executor does not do, as each hook's comment has it.
 *
 * Ownership: the table is static; a hook borrows every argument for the
 * call. */
#ifndef HL_EXECUTOR_H
#define HL_EXECUTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "live/live_cfg.h"
#include "live/live_int.h"
#include "sim/engine.h"

/* What an executor is, for the daemon and the engine (live_executor.flags).
 * The daemon tests these, never the executor's name. */
enum {
	/* A start is a request, not a run: the engine counts a placed job as
	 * running only once the executor reports it running (observe records
	 * the start), and takes it back when it never does (sim/live.h:
	 * sim_live_cfg.async_start). Without it, start returning 0 means running. */
	EXEC_ASYNC_START = 1u << 0,
	/* A node seen down leaves its jobs to the executor, which reports what
	 * became of each (ended, requeued, still running elsewhere:
	 * sim_live_cfg.exec_fates). Without it the engine ends them as node failures. */
	EXEC_OWN_FATES = 1u << 1,
	/* Its job handles (the state's xref rows, each job's external ids) are
	 * exported with the results, as table slurm_job of `hetlab live
	 * results`. Without it there is no such table. */
	EXEC_EXPORT_IDS = 1u << 2,
	/* Ended jobs may leave the engine's tables (sim_compact; LIVE.json
	 * keep_ended): the executor names jobs to the world by their state id
	 * (live_sid), never by engine index, and keeps nothing by index but
	 * what its renumber hook moves. Without it the daemon keeps every job
	 * (its tables grow with the state's history). */
	EXEC_COMPACT = 1u << 3,
};

struct live_executor {
	/* The "executor" key's value and --executor's (lower case, unique in
	 * the registry); also the state's meta "executor" and the logs'. */
	const char *name;
	unsigned flags;                /* EXEC_* */

	/* Required. Once, when the daemon opens a state (after the engine is
	 * built, before the recording is replayed): allocates L->xctx and
	 * checks the world is usable (the Slurm executor reads slurm.conf's
	 * settings). 0, or -1 with a message in err: the daemon does not
	 * start. */
	int (*init)(struct live *L, char *err, size_t errlen);
	/* Required. The engine started job (placed on its allocation, attempt
	 * L->s.jobs[job].restarts). Must be idempotent: a job already launched,
	 * by this process or the one before a crash, is adopted, not launched
	 * again. May set L->jx[job].ref. An asynchronous executor
	 * (EXEC_ASYNC_START) only queues the start for flush. 0, or -1 with a
	 * message in err: the daemon records the job as failed. */
	int (*start)(struct live *L, int32_t job, char *err, size_t errlen);
	/* Required. The checkpoint signal (L->cfg.sig) to running job. 0 or -1. */
	int (*signal)(struct live *L, int32_t job);
	/* Required. Ends running job: how EXEC_STOP_KILL (cancelled, over its
	 * time, its node failed) or EXEC_STOP_PREEMPT (its checkpoint grace is
	 * over: the preemption completes). 0 or -1. */
	int (*stop)(struct live *L, int32_t job, enum exec_stop how);
	/* Required. The engine drains (drain true, with reason) or resumes
	 * node. The local executor has nothing to do (0). 0 or -1. */
	int (*node_state)(struct live *L, int32_t node, bool drain, const char *reason);

	/* A synchronous executor's job reports (observe NULL). poll_begin:
	 * before a round of polls, one query for all jobs; NULL: none; -1 the
	 * daemon is unhealthy for the round. poll (required without observe):
	 * for each job the engine runs, 0 still running, 1 ended with *st,
	 * *why and a few words in msg, which the daemon records as the job's
	 * end. */
	int (*poll_begin)(struct live *L);
	int (*poll)(struct live *L, int32_t job, enum job_state *st, enum end_reason *why, char *msg, size_t len);
	/* A job the replay of the recording found running after a restart:
	 * rebuild what the executor keeps in memory of it (cores held, its
	 * handle). NULL: nothing kept. (Either way the daemon signals a job
	 * checkpointing since the last commit again: the signal may not have
	 * gone out before the crash.) */
	void (*adopt)(struct live *L, int32_t job);
	/* What the executor says of the nodes: nodes_begin once per probe round
	 * (NULL: nothing to prepare; non-zero: no opinion this round), then
	 * node_down for each node: 1 down, 0 up, -1 no opinion. node_down NULL:
	 * the executor has no view of the nodes (the probes alone decide). */
	int (*nodes_begin)(struct live *L);
	int (*node_down)(struct live *L, int32_t node);
	/* Job's attempt ended and the end is committed: its files may go.
	 * NULL: nothing to clean. */
	void (*ended)(struct live *L, int32_t job, int32_t attempt);
	/* Frees L->xctx and sets it NULL; called only when L->xctx is set.
	 * NULL: the executor keeps nothing. */
	void (*fini)(struct live *L);

	/* An asynchronous executor (Slurm). observe: each tick, before any
	 * transaction, gathers into o what it saw of every job and node since
	 * the last call (starts, ends, requeues, nodes down or up: rows the
	 * daemon records and the engine replays); it replaces poll_begin, poll
	 * and, between probe rounds, nodes_begin and node_down. 0, or -1 (the
	 * daemon is unhealthy for the tick). flush: once the engine's step is
	 * committed, carries out what start, signal, stop and node_state
	 * queued. Both NULL for a synchronous executor. */
	int (*observe)(struct live *L, struct obs *o);
	void (*flush)(struct live *L);

	/* With EXEC_COMPACT, ended jobs leave the engine's tables between
	 * ticks. keep: the executor still needs ended job (its end not yet
	 * seen through): it stays for now; NULL: none is needed. renumber:
	 * what the executor keeps by engine index moves, job old becoming
	 * map[old] (-1: it left), for old < nold; 0 or -1 (out of memory: the
	 * daemon stops). NULL: it keeps nothing by index. */
	bool (*keep)(struct live *L, int32_t job);
	int (*renumber)(struct live *L, const int32_t *map, int32_t nold, int32_t nnew);
};

/* The registry (live/exec/registry.c): exec_find and exec_names are
 * declared in live/live_cfg.h, where the config loader sees them. Every
 * registered executor, NULL-terminated, in listing order: */
const struct live_executor *const *exec_all(void);

/* Helpers every executor may use (live/exec/jobenv.c). */
/* Environment entries every job gets on top of its own:
 * CUDA_DEVICE_ORDER, HETLAB_JOB_ID, HETLAB_CKPT_SIGNAL and, unless
 * runtime_vars (the Slurm batch script computes them at each run),
 * HETLAB_ATTEMPT and HETLAB_NODES; then extra. NULL-terminated, malloc'd;
 * exec_strv_free frees. */
char **exec_job_env(const struct live *L, int32_t id, const char *extra, bool runtime_vars);
void exec_strv_free(char **v);

#endif
