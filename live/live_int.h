/* live_int — the daemon's state, shared by live/daemon.c, live/rebuild.c
 * and the executors (live/exec/, whose contract is live/exec/executor.h).
 * Not for other modules. */
#ifndef HL_LIVE_INT_H
#define HL_LIVE_INT_H

#include "live/daemon.h"
#include "live/livelog.h"
#include "live/metrics.h"
#include "live/state.h"
#include "policies/policy.h"
#include "sim/engine.h"
#include "sim/live.h"
#include "config/runasm.h"
#include "config/scenario.h"
#include "traces/trace.h"

/* What a live job carries besides its request (from its job line). */
struct jobx {
	char **argv;            /* NULL-terminated; NULL when the line had none */
	char **env;             /* "NAME=VALUE", NULL-terminated; may be NULL */
	char *cwd;
	char *name;
	char ref[48];           /* the executor's handle (Slurm job id), "" none */
	int *cpus;              /* local: the node's cores it holds (malloc'd, capcpus entries) */
	int ncpus, capcpus;
	/* Who submitted it (the recorded line's "submitter", from the kernel
	 * through the daemon's socket): the executors run it as that user.
	 * -1 / "" unknown (a line of an older client): the daemon's user. */
	int uid, gid;
	char user[64];
};

struct live_executor;
struct hp_host;
struct nvml_session;
struct nvml_probe;

struct live {
	struct live_cfg cfg;
	struct live_opts o;
	enum live_mode mode;
	struct scenario sc;
	bool have_sc;
	struct run run;                 /* policy, health monitor (run_assemble); its engine is s */
	struct sim s;
	struct workload w;              /* every job line as read (unbound requests) */
	int32_t *selmap, nselmap;
	struct jobx *jx;                /* per job id (cfg.max_jobs) */
	struct lstate st;
	bool have_st;
	int64_t epoch_unix_us;          /* engine time 0 */
	simtime after_us;               /* every event up to here has been handled */
	simtime applied_us;             /* decisions committed up to here (at open) */
	bool catching_up;               /* executor off, decisions not logged */
	simtime log_us;                 /* the engine time the last log line showed: never goes back */
	/* the decision log of the current step(s), flushed at commit */
	struct dec { simtime t; int kind; int64_t job, node; char *detail; } *dec;
	int32_t ndec, capdec;
	char **rdec;                    /* replay: every decision as a line */
	int64_t nrdec, caprdec;
	uint8_t *jdirty;                /* jobs to write to the jobs table */
	int32_t *cmap;                  /* live_compact's map (max_jobs + 1) */
	int32_t kept_ended;             /* ended jobs the last compaction kept (the executor's) */
	bool replay_compact;            /* a replay (no results written) drops ended jobs as the daemon does */
	struct sim_recorder fwd;        /* a recorder behind ours (results) */
	/* executor */
	const struct live_executor *xo;   /* live/exec/executor.h */
	void *xctx;
	char jobdir[4096];
	/* probes */
	struct live_reading *lrd;       /* per node, the latest reading (metrics) */
	simtime *rec_at;                /* per node, when a reading was last recorded (-1 never) */
	simtime next_probe;
	struct hp_host *host_prev, *host_cur;
	int64_t host_prev_us;
	struct nvml_session *nvs;
	struct nvml_probe *gpus;
	uint32_t *refused;              /* per node, a hash of the reason its last reading was refused (0 none) */
	/* metrics */
	struct metrics_srv *ms;
	struct metrics_counters mc;
	char *mbuf;
	size_t mcap;
	bool healthy;
	char why[256];
	bool inbox_full;                /* the job table is full: submissions wait (said once) */
	struct lsock *sock;             /* the daemon's socket (live/sock.h), NULL none */
	int lock_fd;                    /* STATE_DIR/daemon.lock, held while the daemon runs (-1 none) */
	char state_id[17];              /* the state's unique id (meta state_id) */
	uint64_t snap_fp;               /* what a snapshot must have been made with (snapshot.c) */
	int64_t commits;                /* commits since the last snapshot */
	int64_t snap_gone;              /* the engine's ngone at the last snapshot */
	int64_t snap_seq;               /* replay from a snapshot: the row it covers up to, */
	simtime snap_now;               /* and its engine time */
	struct fcst *fc;                /* forecasts (live/forecast.h), while the loop runs */
	simtime kept_now;               /* the engine time of the last kept snapshot (-1 none), */
	bool kept_known;                /* once read from STATE_DIR/snapshots */
	struct lprune *prune;           /* automatic pruning (autoprune.c), while the loop runs */
	struct lres *res;               /* results.db's periodic writes (autoresults.c), while the loop runs */
	int res_changes;                /* the state's rows the daemon had changed when results.db was */
	bool res_known;                 /* last written (once it was; sqlite3_total_changes) */
	char err[512];
};

/* Inputs gathered from the world before the transaction that records them
 * (data copied; obs_free frees). */
struct obs {
	struct rec_row *rows;
	int32_t n, cap;
	simtime t;                      /* the engine time they are recorded at */
};
int obs_add(struct obs *o, const struct rec_row *r);
void obs_free(struct obs *o);

/* Job ids. The engine names a job by its index in its tables, which
 * change when ended jobs leave them (sim_compact); the state names it by
 * its id, the order it was taken in (the jobs table, the recording, the
 * decision log, the executors' names for it): the engine's job number. */
static inline int64_t live_sid(const struct live *L, int32_t idx)
{
	return L->s.jobs[idx].num;
}
/* The jobs the state has taken so far (their ids are 0 .. n-1). */
static inline int64_t live_njobs(const struct live *L)
{
	return L->s.ngone + L->s.njobs;
}

/* rebuild.c: the engine of a state. */
/* The engine index of the state's job sid: -1 when it has left the
 * engine's tables (it ended) or was never taken. */
int32_t live_index(const struct live *L, int64_t sid);
/* Drops the ended jobs from the engine's tables once keep_ended of them
 * have gathered or the table is full (max_jobs), the executor allowing
 * (EXEC_COMPACT), between steps, with what live/ and the executor keep by
 * index. 0, or -1 with L->err. */
int live_compact(struct live *L);
int64_t live_unix_us(void);
char *live_read_file(const char *path, char *err, size_t errlen);          /* malloc'd, NUL-terminated */
int live_inject(struct live *L, const struct rec_row *r);                  /* a recorded input as an event */
int live_advance_to(struct live *L, simtime t);                            /* handles every event up to t */
int live_catch_up(struct live *L, char *err, size_t errlen);               /* replays the recording */
void live_go_live(struct live *L);                                         /* the executor on */
void live_placement_text(const struct live *L, int32_t id, char *buf, size_t len);   /* "n1:4c:gpus=0x3,..." */
/* snapshot.c: the daemon's snapshots (docs/live.md "Snapshots").
 * lsnap_write writes the state's engine and what live/ keeps beside
 * it, as of the recording's row seq (every row up to it injected),
 * atomically to STATE_DIR/snapshot; 0, or -1 with err (the run goes on).
 * lsnap_load loads it into a daemon's freshly built engine: 0 and
 * *seq, the recording to replay being what follows it; 1 there is none;
 * -1 it cannot be used, why says why, nothing changed (replay it all);
 * -2 it failed part way (the engine is lost). */
void lsnap_path(const struct live *L, char *out, size_t len);
int lsnap_write(struct live *L, int64_t seq, char *err, size_t errlen);
int lsnap_load(struct live *L, int64_t *seq, char *why, size_t len);
/* What a snapshot must have been made with: the state's scenario text,
 * its policy, executor, max_jobs and the recording's version. */
void lsnap_fingerprint(struct live *L, const char *scn, const char *version);
/* Before a catch-up: loads the snapshot where one is wanted (a daemon
 * with snapshot_every, a replay --from-snapshot), *from then the row to
 * replay after (0: all). A daemon's snapshot that cannot be used is said
 * and the whole recording replayed; a replay's is an error. 0, or -1 with
 * err. */
int lsnap_restore(struct live *L, int64_t *from, char *err, size_t errlen);
/* jobline.c: a job line's extras. */
extern const char *const live_spec_extra[];
void jobx_fill(struct jobx *x, const char *text);
void jobx_free(struct jobx *x);

/* lchild.c: a command the daemon runs beside its loop (this binary
 * executed anew with args, argv[1] on; its output read without blocking).
 * lchild_spawn starts it (0, or -1 said in the log); lchild_drain reads
 * what it said so far, true once both its streams ended; lchild_finish
 * then reaps it (unless lchild_reaped handed over its status), logs what
 * it said (prefix dropped from each line; nothing when quiet and it
 * succeeded) and says whether it succeeded; lchild_stop waits for it (or
 * kills it) and finishes it. */
struct lchild {
	const char *what;            /* its name in the log */
	pid_t pid;                   /* running (0 none) */
	int fd[2];                   /* its stdout and stderr (-1 none, or at their end) */
	int wst;                     /* its status, when the loop reaped it */
	bool reaped;
	bool said_err;               /* it wrote to stderr */
	double started, last_s;      /* monotonic seconds; how long the last one took */
	char out[4096];              /* what it said so far (the tail kept) */
	size_t n;
};
double lchild_now(void);
void lchild_init(struct lchild *c, const char *what);
int lchild_spawn(struct live *L, struct lchild *c, char *const args[]);
bool lchild_drain(struct lchild *c);
bool lchild_finish(struct live *L, struct lchild *c, const char *prefix, bool quiet, bool killed);
void lchild_reaped(struct lchild *c, pid_t pid, int wst);
bool lchild_stop(struct live *L, struct lchild *c, const char *prefix, bool kill_it);
/* The two families of a child run again and again: fam{result} counted,
 * last the seconds the last one took (metrics text of length n; returns
 * the new length). */
long lchild_metrics(char **buf, size_t *cap, long n, const char *fam, const char *help, int64_t ok, int64_t failed,
                    const char *last, const char *last_help, double last_s);

/* autoprune.c: the daemon's own prunes (prune_keep_days), in a child
 * process. lprune_tick starts one when prune_every_s has passed since the
 * last (or the start), and logs what a finished one said; lprune_reaped
 * hands it a child the loop reaped; lprune_end, at the loop's end, waits
 * for a running prune (or kills it: kill_it) and frees what it keeps;
 * lprune_metrics appends its families to the metrics text (n its length;
 * returns the new one). */
struct lprune;
void lprune_tick(struct live *L);
void lprune_reaped(struct live *L, pid_t pid, int wst);
void lprune_end(struct live *L, bool kill_it);
long lprune_metrics(const struct live *L, char **buf, size_t *cap, long n);

/* autoresults.c: results.db written every results_every_s by a child
 * (`hetlab replay --results --no-compare`), not in the loop; lres_tick,
 * lres_reaped, lres_end (kills a running write: the daemon's own write
 * follows as it stops), lres_metrics as autoprune's. */
struct lres;
void lres_tick(struct live *L);
void lres_reaped(struct live *L, pid_t pid, int wst);
void lres_end(struct live *L);
long lres_metrics(const struct live *L, char **buf, size_t *cap, long n);
/* Whether results.db at path is not what the state would write now
 * (missing, or the daemon changed a row of the state since the last
 * write that succeeded). */
bool live_results_stale(struct live *L, const char *path);

/* daemon.c: renders the metrics and the health for the endpoint now. */
void live_publish(struct live *L);

/* livelog.c: one line to stderr (unless quiet) with the wall-clock time,
 * the level and the engine time, the message escaped (livelog.h).
 * live_log is live_logl at LIVE_INFO. */
void live_log(struct live *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void live_logl(struct live *L, enum live_level l, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
