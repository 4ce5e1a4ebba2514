/* slurm_glue — what the Slurm executor's files share: live/exec/slurm.c
 * (the engine's decisions, carried out by flush), live/exec/slurm_sync.c
 * (what Slurm did, read back each tick), the helpers both use
 * (slurm_glue.c) and what it keeps of each job, by the job's state id
 * (slurm_track.c). Not for other modules: sx_executor is their interface
 * (live/exec/executor.h). */
#ifndef HL_SLURM_GLUE_H
#define HL_SLURM_GLUE_H

#include "live/exec/executor.h"
#include "live/exec/slurm_cmd.h"

enum sx_phase { SX_PH_IDLE, SX_PH_WANT, SX_PH_PLACED, SX_PH_RUNNING };

/* What the executor keeps of a job, by its state id (slurm_track.c). */
struct sx_jobtrack {
	int64_t key;              /* the job's id in the state (live_sid): the Slurm job's name and comment */
	int64_t sid;              /* the Slurm job of its current or last attempt; -1 none */
	int32_t base;             /* the hetlab attempt that Slurm job first ran as */
	int32_t attempt;          /* the attempt it was placed for (-1 none) */
	uint8_t phase;
	bool open;                /* sid not yet seen final */
	bool release_due;         /* placed on its nodes, the release still to (re)do */
	bool recover;             /* a start the crash may have submitted: look for it by name first */
	bool place_due;           /* adopted, not seen running: a held Slurm job is placed
	                             again before its release (the crash may have cut the
	                             placement short: released as it was, it ran elsewhere) */
	double placed_at;         /* wall clock of its submission or release for `attempt` */
	double retry_at;          /* SX_PH_WANT: not before */
	double rq_wait;           /* a requeue of a run never seen running, waiting
	                             for its sacct record since (0: none) */
	double killed_at;         /* wall clock its Slurm job's last run was seen
	                             requeued (0: never; a restart: then) */
	char shape[200];          /* what the Slurm job was submitted with (partition, cpus, mem, gres) */
};

enum sx_act_kind { SX_ACT_SIGNAL, SX_ACT_KILL, SX_ACT_REQUEUE, SX_ACT_HOLD, SX_ACT_DRAIN, SX_ACT_RESUME, SX_ACT_CANCEL_SID };

struct sx_act {
	int kind;
	int64_t job;              /* the job's state id (live_sid), -1 none: the act may outlive a tick */
	int32_t node;
	int64_t sid;
	char reason[200];
};

struct sx_nodeuse {              /* what this state's running jobs hold of a node in Slurm's terms */
	int32_t cpus, gpus;
	int64_t mem;
};

struct sx_exec {
	struct sx_ctx c;
	const struct live_slurm_cfg *cfg;
	struct sx_config conf;
	bool have_conf;
	struct sx_jobtrack **jt;     /* by state id (slurm_track.c): capjt slots, njt kept */
	int32_t capjt, njt;
	struct sx_jobtrack spare;    /* sx_tj's when out of memory */
	int64_t *want;               /* state ids of the jobs to start */
	int nwant, capwant;
	struct sx_act *acts;
	int nacts, capacts;
	struct sx_jobinfo *snap;     /* this tick's squeue of the open Slurm jobs, by id */
	int nsnap;
	bool have_snap;
	struct sx_nodeinfo *nodes;   /* this tick's sinfo */
	int nnodes;
	bool have_nodes;
	int32_t *nidx;               /* scenario node -> index in nodes, -1 */
	struct sx_nodeuse *fhold;       /* per scenario node: the foreign hold last recorded */
	bool fhold_synced;           /* fhold taken from the engine's holds (after a restart's replay) */
	struct obs later;            /* inputs from flush, recorded at the next observe */
	struct { int64_t id, sid; } *pclose;   /* xref rows (state id, Slurm id) to close once
	                                          the tick's end rows are committed */
	int npclose, cappclose;
	double last_ok;              /* wall clock of the last good read of Slurm */
	bool warned_absent;          /* a scenario node Slurm does not list was logged */
	bool ctld_down;              /* the last read of Slurm failed: no command is tried until one works */
};

/* The Slurm shape of job id's placement: its partition, per-node CPUs,
 * memory and GRES. -1 with why for a request the site's GRES cannot
 * express (a refusal, permanent). */
struct sx_shape {
	const char *partition;
	char gres[96];
	int cpn;
	int64_t mem;
	const char *account, *qos;
	char text[200];
};

/* Every job id the executor keeps past one call (its tracking, the want
 * list, queued acts and xref closes, the rows it records, the Slurm job's
 * name and comment) is the job's id in the state (live_sid): the engine's
 * index (each hook's argument, L->jx, L->s.jobs) changes when ended jobs
 * leave its tables, between ticks and even within one (a full table at a
 * submission), and a job that left keeps its Slurm job open until that is
 * seen final. live_index maps an id back, -1 for a job that has left. */

/* slurm_track.c. The job with state id key: NULL when not tracked. */
struct sx_jobtrack *sx_track_find(const struct sx_exec *x, int64_t key);
/* The same, added (no Slurm job, no attempt) when missing; NULL on ENOMEM. */
struct sx_jobtrack *sx_track_get(struct sx_exec *x, int64_t key);
void sx_track_drop(struct sx_exec *x, int64_t key);
/* The tracking of the engine's job id (index), added when missing; never
 * NULL (a scratch entry when out of memory, logged). */
struct sx_jobtrack *sx_tj(struct live *L, int32_t id);
/* Drops what is kept of jobs that left the engine and whose Slurm job is
 * seen final (each compaction: the renumber hook; after a restart's replay). */
void sx_track_prune(struct live *L);
void sx_track_free(struct sx_exec *x);

/* Wall-clock seconds. */
double sx_wall(void);
/* Job id's allocation (its nparts parts). */
const struct alloc_part *sx_parts_of(const struct live *L, int32_t id);
/* The names of job id's nodes, at most max of them, into nodes; their count. */
int sx_node_names(const struct live *L, int32_t id, const char **nodes, int max);
/* The seconds from now before job id's Slurm job, seen requeued at
 * killed_at, may be launched again (0: at once). */
int sx_relaunch_delay(const struct live *L, int32_t id);
/* Engine time of a Slurm time (Unix seconds); -1 for none. */
int64_t sx_eng_time(const struct live *L, int64_t unix_s);
/* Job id's Slurm job in its jobs-table ref (sid <= 0: none). */
void sx_set_ref(struct live *L, int32_t id, int64_t sid);
/* An end of job id's current attempt, recorded at the next observe. */
void sx_later_end(struct live *L, int32_t id, enum job_state st, enum end_reason why, const char *msg);
/* Queues an action for the next run_acts, of the job with state id job
 * (-1: a node's). -1 on ENOMEM. */
int sx_add_act(struct sx_exec *x, int kind, int64_t job, int32_t node, int64_t sid, const char *reason);
/* Queues the job with state id key for a start. -1 on ENOMEM. */
int sx_want_push(struct sx_exec *x, int64_t key);
/* This tick's squeue record of Slurm job sid, NULL when none. */
const struct sx_jobinfo *sx_snap_find(const struct sx_exec *x, int64_t sid);
/* A job preempted before Slurm ran it: taken back (held in Slurm when pending there). */
void sx_never_started(struct live *L, int32_t id, const struct sx_jobinfo *ji);
/* Runs every queued action (many at once) and logs what failed. */
void sx_run_acts(struct live *L);
/* Whether node n is in partition p (sinfo's partitions). */
bool sx_in_partitions(const struct sx_nodeinfo *n, const char *p);
/* The Slurm shape of job id's placement; -1 with why for a request the site's GRES cannot express. */
int sx_shape_of(struct live *L, int32_t id, struct sx_shape *sh, char *why, size_t len);
/* The xref rows are keyed by the job's state id (key), as the Slurm job's
 * name is. The Slurm job was seen final: a restart need not ask about it
 * again. */
void sx_xref_close(struct live *L, int64_t key, int64_t sid);
/* A Slurm job of job key replaced by a new one: its row marked, then its
 * cancel queued (the row is closed when the cancel has worked). */
void sx_xref_replace(struct live *L, int64_t key, int64_t sid);
/* The same once this tick's rows are committed (at the next flush): the
 * Slurm job's end is an end row of the tick, and a crash between the two
 * must find the Slurm job still open (its end read again), never closed
 * with its end lost (the job submitted again: run twice). */
void sx_xref_close_later(struct live *L, int64_t key, int64_t sid);
void sx_xref_close_due(struct live *L);
/* The Slurm ids of this state not yet seen final (malloc'd, *n of them). */
int64_t *sx_open_sids(struct live *L, int *n);
/* sinfo --json into x->nodes, and each scenario node's index in it. */
void sx_read_nodes(struct live *L);
/* This tick's squeue of the open Slurm jobs. 0, or -1 (unhealthy, logged). */
int sx_refresh_snap(struct live *L);

/* slurm_sync.c */
int sx_observe(struct live *L, struct obs *o);
int sx_nodes_begin(struct live *L);
int sx_node_down(struct live *L, int32_t node);

#endif
