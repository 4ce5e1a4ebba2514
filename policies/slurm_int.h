/* slurm_int — what the files of the slurm policy share (policies/slurm.h
 * is the contract; docs/slurm-twin.md the model):
 *
 *   slurm.c          the hooks, the parameters, Slurm's clocks (the
 *                    background tick, sched_interval, the backfill cycle,
 *                    PriorityCalcPeriod) and the main scheduler's pass
 *   slurm_renum.c    the job ids it keeps, renumbered when finished jobs
 *                    leave the engine's table (sim_compact)
 *   slurm_bf.c       sched/backfill: the node-space map, one cycle
 *   slurm_willrun.c  the will-run test: running jobs by end, releases
 *   slurm_queue.c    the queue in Slurm's order, a start, the nodes in
 *                    service, time limits (what both schedulers use)
 *   slurm_preempt.c  preempt/qos: candidates, victims
 *   slurm_select.c   select/cons_tres: which nodes a job gets; QOS and
 *                    association limits
 *   slurm_prio.c     priority/multifactor: usage, decay, Fair Tree and
 *                    classic fair share, the job's priority
 *   slurm_clock.c    queues of times: changes time alone makes, requests
 *
 * Each file calls only those below it in this list, and slurm.c all.
 * Node sets are bitmaps over Slurm's node order (its node table is sorted
 * by name, naturally: n2 before n10), not the cluster's: bit k is cluster
 * node ord[k]. Times are the engine's (simtime µs); Slurm decides in whole
 * seconds, so the clocks tick on whole seconds of the trace. */
#ifndef HL_SLURM_INT_H
#define HL_SLURM_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "policies/placement.h"
#include "policies/policy.h"
#include "policies/slurm.h"
#include "sim/org.h"

/* The parameters, in the order of the policy's table (slurm.c). */
enum sl_param {
	SP_MULTIFACTOR, SP_W_AGE, SP_W_FS, SP_W_SIZE, SP_W_PART, SP_W_QOS, SP_W_ASSOC, SP_MAX_AGE,
	SP_HALFLIFE, SP_CALC_PERIOD, SP_FAVOR_SMALL, SP_FAIR_TREE, SP_DAMPENING, SP_ACCRUE_ALWAYS,
	SP_ENFORCE, SP_SCHED_INTERVAL, SP_BATCH_DELAY, SP_QUEUE_DEPTH, SP_PART_DEPTH, SP_MAX_START,
	SP_ASSOC_STOP, SP_BACKFILL, SP_BF_INTERVAL, SP_BF_RES, SP_BF_WINDOW, SP_BF_MAX_TEST,
	SP_BF_MAX_PART, SP_BF_MAX_USER, SP_BF_MAX_START, SP_BF_MIN_AGE, SP_BF_MIN_PRIO, SP_BF_SPACE,
	SP_PREEMPT_QOS, SP_PREEMPT_MODE, SP_PREEMPT_EXEMPT, SP_KILL_WAIT, SP_MSG_TIMEOUT,
	SP_REQUEUE_DELAY, SP_JOB_REQUEUE, SP_OVERTIME, SP_EPILOG_PASS, SP_TICK, SP_SUBMIT_OFFSET, SP_BF_START,
	SP_BF_CYCLE, SP_CTLD_START, SP_SHORTCUTS, SP_BF_FULL_PLAN, SP_ARRIVAL_DRAW,
	SP_NPARAM
};

#define SL_SEC SIMTIME_SEC

/* ---- node sets ---- */

static inline bool sl_bit(const uint64_t *b, int32_t k) { return (b[k >> 6] >> (k & 63)) & 1u; }
static inline void sl_set(uint64_t *b, int32_t k) { b[k >> 6] |= 1ull << (k & 63); }
static inline void sl_clr(uint64_t *b, int32_t k) { b[k >> 6] &= ~(1ull << (k & 63)); }
static inline void sl_copy(uint64_t *d, const uint64_t *s, int32_t nw) { memcpy(d, s, (size_t)nw * 8); }
static inline void sl_and(uint64_t *d, const uint64_t *s, int32_t nw)
{
	for (int32_t i = 0; i < nw; i++)
		d[i] &= s[i];
}
static inline void sl_andnot(uint64_t *d, const uint64_t *s, int32_t nw)
{
	for (int32_t i = 0; i < nw; i++)
		d[i] &= ~s[i];
}
static inline void sl_or(uint64_t *d, const uint64_t *s, int32_t nw)
{
	for (int32_t i = 0; i < nw; i++)
		d[i] |= s[i];
}
static inline int32_t sl_count(const uint64_t *b, int32_t nw)
{
	int32_t c = 0;
	for (int32_t i = 0; i < nw; i++)
		c += hl_popcount64(b[i]);
	return c;
}
static inline bool sl_subset(const uint64_t *a, const uint64_t *b, int32_t nw)   /* a ⊆ b */
{
	for (int32_t i = 0; i < nw; i++)
		if (a[i] & ~b[i])
			return false;
	return true;
}

/* ---- per job ---- */

struct sl_job {
	uint32_t prio;             /* job_ptr->priority */
	int32_t part, qos, user, acct, assoc;   /* this configuration's indexes */
	int32_t pqos;              /* the partition's QOS, -1 none */
	simtime submit_us;         /* Slurm's submit_time: a requeue resets it */
	simtime begin_us;          /* eligible from (a requeue: its end + cred_expire + 1) */
	simtime accrue_us;         /* the age factor counts from here; -1 not yet */
	simtime preempt_us;        /* when it last signalled victims, -1 never */
	int64_t limit_s;           /* its time limit, -1 INFINITE */
	int32_t seen_preempt;      /* job.preemptions when last looked at */
	int32_t cpus, nodes, gpus; /* allocated (limits, usage), set at start */
	int64_t mem_mib;
	simtime charged_us;        /* usage charged up to here */
	uint8_t never;             /* can never start: the reason (SLN_*), held at the next pass */
	uint8_t why;               /* job_ptr->state_reason as the last pass left it (SLW_*) */
	bool counted;              /* in the limit counters */
	bool victim;               /* signalled by a preemptor: watched for its requeue */
	bool known;                /* submitted (its record is filled) */
	uint32_t mark;             /* == sl.stamp: a preemption candidate of the job being tested */
	int32_t tau_ix;            /* its will-run slot (slurm_willrun.c), made as tau_ser */
	uint64_t tau_ser;
	simtime plan_us;           /* the start the last backfill cycle planned for it; 0 none */
};

enum { SLN_NONE, SLN_PART_TIME, SLN_PART_SIZE, SLN_PART_DOWN, SLN_LIMIT, SLN_NKIND };
/* Why a pending job did not start at the last pass that looked at it
 * (Slurm's Reason): none yet, a higher-priority job of its partition
 * waits (Priority), no resources (Resources), a QOS or association limit. */
enum { SLW_NONE, SLW_PRIORITY, SLW_RESOURCES, SLW_LIMIT };

/* A queue record (one per job: a job names one partition here). */
struct sl_rec {
	int32_t job;
	uint32_t prio;
	uint16_t tier;
	int16_t qos;
	simtime submit_s;          /* whole seconds */
	int64_t jobid;             /* Slurm's job id: the trace's */
};

/* A running job as the will-run test releases it. */
struct sl_end {
	int32_t job;
	int32_t k1;                /* the Slurm index of its first node */
	int32_t nk, koff;          /* its nodes: st->end_k[koff .. koff + nk) when nk > 1 */
	int64_t end_s;             /* start + time limit, whole seconds */
};

/* The node-space map of one backfill cycle (slurm_bf.c). */
struct sl_map {
	int64_t *begin, *end;
	int32_t *next;
	uint64_t *bits;            /* rec r's nodes at bits + r * nw */
	int32_t n, cap;
};

/* Limit usage of one QOS, of a user within it, of an association. */
struct sl_use {
	int64_t tres[STRES_N];
	int32_t jobs;
	int32_t submit;
};

struct sl_prio;
struct sl_set;
struct sl_roomp;
struct sl_memo;
struct sl_tau;
struct sl_walk;

/* What the last pass of a kind saw (slurm.c pass_needed). */
struct sl_seen {
	uint64_t nchange, epoch;
	bool acted, full;
	uint64_t *up;
};

struct sl {
	const struct cluster *cl;
	const struct slurm_cfg *cfg;      /* the site's, or own_cfg */
	const struct org *org;            /* tenants' shares when there is no site tree */
	struct slurm_cfg own;             /* Slurm's defaults when the scenario has none */
	double p[SP_NPARAM];
	uint64_t seed;                    /* the run's (arrival_draw) */
	struct placer pl;                 /* shares and MIG instances only */
	/* nodes in Slurm's order */
	int32_t n, nw;
	int32_t *ord, *pos;
	int64_t *weight;                  /* by Slurm index */
	uint64_t *part_bits;              /* partition p's nodes at p * nw */
	uint64_t *up, *avail, *cand, *tmp, *tmp2;
	int64_t total_cpus;               /* the cluster's CPUs (job size factor) */
	/* jobs */
	struct sl_job *job;
	int32_t cap_job;
	uint32_t basic_next;              /* priority/basic: the next job's priority */
	int32_t *victims, nvictims, cap_victims;
	int32_t *nevers, nnever;          /* jobs to hold (never startable), cap_job room */
	int32_t *newjobs, nnew;           /* submitted at the last call's time, arrival not settled;
	                                     -1 a job that has since left the table (sl_renumber) */
	simtime *newsub;                  /* their submit times (cap_job room), kept for those that left */
	/* the queue of a pass */
	struct sl_rec *q, *qtmp;
	int32_t nq, cap_q;
	uint8_t *part_failed;             /* per partition: blocked in this main pass */
	int32_t *part_depth;              /* per partition: records seen (partition_job_depth) */
	/* clocks (engine time) */
	simtime ctld_us;                  /* slurmctld's start */
	simtime last_bg_us;               /* last_sched_time: the background thread's last pass */
	simtime last_full_us;             /* last_full_sched_time */
	simtime tick_us;                  /* the background thread's period */
	simtime next_full_us, next_decay_us, next_bf_us;
	simtime sched_req_us;             /* the oldest queued request (queue_job_scheduler), -1 none */
	simtime imm_us;                   /* an epilog-complete pass due now, -1 none */
	simtime last_bf_us;               /* the end of the last backfill cycle */
	simtime change_us;                /* last job, node or priority change */
	uint64_t nchange;                 /* changes so far */
	/* Changes that time alone makes, each kind in the order it is
	 * registered, which is time order: jobs arriving (submit_offset_s),
	 * requeued jobs' begin times, preemptors' quiet times ending. */
	struct sl_fifo {
		simtime *t;
		int32_t head, n, cap;
	} timed[3];
	struct sl_fifo arrive_req;        /* arrivals' requests for a pass, in time order */
	simtime bf_poll_us;               /* backfill polls every second from here when idle */
	struct sl_seen main_seen, bf_seen;
	bool bf_planned;                  /* the last cycle stored a planned start */
	simtime armed_us;                 /* the earliest wake asked for and not yet reached */
	int32_t idle_cycles;              /* periodic passes in a row that changed nothing */
	bool acted;                       /* this call started or preempted something */
	/* limit usage */
	struct sl_use *quse;              /* per QOS */
	struct sl_use *uuse;              /* per (QOS, user): quse_user[q * nusers + u] */
	struct sl_use *ause;              /* per association */
	int32_t nusers;
	/* selection scratch */
	struct nodefree *fut;             /* a future free state (will-run, preemption) */
	struct nodefree *empty;           /* every node free (can a job ever run) */
	struct alloc_part *parts, *parts2;
	struct sl_set *sets;              /* eval_nodes: runs of usable nodes */
	int32_t *cpu, *offer, *take, *pick;   /* per Slurm index / per node chosen */
	int32_t *use;                     /* the nodes a selection may use (Slurm indexes) */
	int32_t *okc;                     /* will-run: the CPUs each node offers the job tested */
	struct nodefree *shfree;          /* scratch for shares placed through the placer */
	/* will-run: running jobs by end time */
	struct sl_end *ends, *endtmp;
	int32_t nends, cap_ends;
	int32_t *at_off, *at_part, cap_at;   /* per node (Slurm index): its jobs in ends (at_key, their keys), their parts */
	int64_t *at_key;
	int32_t *touch, ntouch;           /* nodes that changed, in order (Slurm indexes; room for 4 n) */
	bool at_dirty;
	int32_t *end_k, nend_k, cap_end_k;   /* the nodes of jobs on several */
	struct sl_tau *tau;               /* per request: each node's first release that fits it */
	uint64_t tau_cycle, tau_serial;
	struct sl_walk *walks;            /* per set of allowed nodes: the batches of releases */
	uint64_t list_ver;                /* bumped when the list of running jobs changes */
	int32_t *tv;                      /* scratch per node */
	uint64_t *ubits;                  /* scratch node set */
	uint64_t *sig;                    /* per node: what its answers depend on, when the lists were made */
	uint64_t *sig_up;                 /* the nodes in service then */
	bool sig_ok;
	uint64_t *tbits;                  /* scratch node set */
	int32_t *tt;                      /* scratch per node */
	int32_t *nmodel;                  /* scratch per GPU model */
	/* backfill */
	struct sl_map map;
	int32_t *bf_user_cnt, *bf_part_cnt;
	struct sl_roomp *roomp;           /* per partition: what its free nodes hold at most */
	struct sl_memo *memo;             /* requests the free nodes hold, this cycle */
	uint32_t memo_stamp;
	/* preemption scratch */
	int32_t *cands, ncands, cap_cands;
	uint32_t stamp;                   /* marks this will-run test's candidates (sl_job.mark) */
	struct sl_prio *prio;
	/* the view of the current call (valid during a hook) */
	const struct view *v;
	struct decide *out;
};

/* Whether running job id holds a node of the set (Slurm order). */
static inline bool sl_job_on(const struct sl *st, int32_t id, const uint64_t *nodes)
{
	const struct job *j = &st->v->jobs[id];
	const struct alloc_part *p = &st->v->parts[j->parts];
	for (int32_t k = 0; k < j->nparts; k++)
		if (sl_bit(nodes, st->pos[p[k].node]))
			return true;
	return false;
}

/* A hash of a request on a partition (FNV-1a over its bytes: struct
 * job_req has no padding). */
static inline uint32_t sl_req_hash(const struct job_req *r, int32_t part)
{
	const unsigned char *b = (const unsigned char *)r;
	uint32_t h = 2166136261u ^ (uint32_t)part;
	for (size_t i = 0; i < sizeof *r; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

/* Engine time t as Unix seconds (slurm_cfg.unix_start + t, floored). */
static inline int64_t sl_epoch(const struct sl *st, simtime t)
{
	return st->cfg->unix_start + (t >= 0 ? t / SL_SEC : -((-t + SL_SEC - 1) / SL_SEC));
}

enum { SLT_ARRIVE, SLT_BEGIN, SLT_QUIET, SLT_N };
/* Records that the state changes by itself at time t (a job arriving, a
 * begin time, the end of a preemptor's quiet time), t not before the last
 * one of its kind: a change for the passes (slurm.c). -1 on ENOMEM. */
int sl_change_at(struct sl *st, int kind, simtime t);
struct sl_fifo;
int sl_fifo_push(struct sl_fifo *f, simtime t);      /* -1 on ENOMEM */
bool sl_fifo_pop_to(struct sl_fifo *f, simtime t);

/* slurm_renum.c: the policy's renumber hook (policy_ops.renumber). */
int sl_renumber(void *state, const struct view *v, const int32_t *map, int32_t nold, int32_t nnew);
/* slurm_snap.c: policy_ops.save / load. */
int sl_snap_save(void *state, const struct view *v, struct snapw *w);
int sl_snap_load(void *state, const struct view *v, struct snapr *r);
/* slurm_renum.c: room for job id in every per-job array. -1 on ENOMEM. */
int sl_grow_jobs(struct sl *st, int32_t id);

/* slurm_queue.c */
int64_t sl_time_limit_s(const struct sl *st, int32_t job);    /* planning limit, seconds */
int sl_start(struct sl *st, int32_t job, const struct alloc_part *parts, int nparts);
bool sl_eligible(const struct sl *st, int32_t job);
void sl_sort(struct sl *st);
void sl_nodes_up(struct sl *st);    /* st->up: nodes in service (not down, drained, power-blocked) */
/* A job or priority changed (backfill's _more_work sees it); sl_changed:
 * a job was submitted, started, ended or requeued. */
void sl_touched(struct sl *st);
void sl_touched_at(struct sl *st, simtime t);   /* a change that happened at t (<= now) */
void sl_changed(struct sl *st);

/* slurm_prio.c */
int sl_prio_init(struct sl *st, char *err, size_t errlen);
void sl_prio_fini(struct sl *st);
/* Snapshots: the associations (their usage, those made for tenants) and
 * the decay's clock. load: 0, or -1 with r marked bad. */
void sl_prio_save(const struct sl *st, struct snapw *w);
int sl_prio_load(struct sl *st, struct snapr *r);
/* A decay tick at now: decay, charge running jobs, fair share, every
 * pending job's priority. */
void sl_prio_tick(struct sl *st);
/* The priority of job id now (submit: age 0 unless accrued). */
uint32_t sl_prio_job(struct sl *st, int32_t id, simtime now);
/* Job id ended now: its last partial period (with enforce_limits). */
void sl_prio_job_end(struct sl *st, int32_t id);
/* The user association of (user, account), -1 none. */
int32_t sl_assoc_of(const struct sl *st, int32_t user, int32_t acct);
/* Job id's user association (no site tree: its tenant's, made on first
 * use); -1 on ENOMEM. */
int32_t sl_job_assoc(struct sl *st, int32_t id);

/* slurm_select.c */
struct sl_set *sl_sets_new(int32_t n);
/* The CPUs cluster node i offers request r on free state f (0: it cannot
 * take the request's part there). */
int32_t sl_node_cpus(const struct sl *st, const struct nodefree *f, int32_t i, const struct job_req *r);
/* Nodes for job id on free state f among cand (Slurm order): cons_tres's
 * choice. Fills st->parts; returns the part count, 0 when it does not fit.
 * will_run: the backfill's test (a share is judged on f as if whole). */
int sl_select(struct sl *st, int32_t id, const struct nodefree *f, const uint64_t *cand, bool will_run);
/* sl_select's choice among the nodes use[0..nuse) (Slurm indexes,
 * ascending) where st->cpu[k] > 0 holds what each offers a request that
 * is not a share: st->pick (Slurm indexes) and st->take (CPUs), how many,
 * 0 when it does not fit. sl_build: their parts in st->parts from the
 * chosen nodes' free states in f; 0 when their cores do not split. */
int32_t sl_eval(struct sl *st, int32_t id, const int32_t *use, int32_t nuse);
int sl_build(struct sl *st, int32_t id, const struct nodefree *f, int32_t n);
/* Can job id ever run in its partition (the empty partition)? */
bool sl_fits_empty(struct sl *st, int32_t id);
/* Limits before node selection (job counts, wall) and after it (TRES of
 * the nodes chosen; n == 0: the request). true: within the limits. */
bool sl_limits_pre(const struct sl *st, int32_t id);
bool sl_limits_post(const struct sl *st, int32_t id, const struct alloc_part *parts, int n);
/* The limit that stops job id now (before selection, then the TRES of its
 * request), in Slurm's reason and words ("QOSGrpGRES: QOS gpu's GrpTRES
 * gres/gpu=8, 8 in use, the job asks 2"): true and why filled, or false. */
bool sl_limits_why(const struct sl *st, int32_t id, char *why, size_t len);
void sl_limits_add(struct sl *st, int32_t id, int sign);
void sl_tres_of(const struct sl *st, int32_t id, const struct alloc_part *parts, int n, int64_t t[STRES_N]);
/* Whether job id's TRES are its request's whatever nodes it gets (a gang
 * or one node, not a share): then sl_limits_post with n == 0 decides as
 * with the parts chosen. */
bool sl_tres_fixed(const struct sl *st, int32_t id);

/* slurm_why.c: every pending job's reason (decide_note), in Slurm's word
 * (squeue's Reason) and hetlab's: from what the passes recorded. */
void sl_notes(struct sl *st);
/* Why job id can never start (its sl_job.never), as Slurm's Reason and words. */
void sl_never_text(const struct sl *st, int32_t id, char *buf, size_t len);

/* slurm_bf.c */
int sl_bf_init(struct sl *st);
void sl_bf_fini(struct sl *st);
void sl_bf_cycle(struct sl *st);

/* slurm_willrun.c */
int sl_will_run_init(struct sl *st);
void sl_will_run_fini(struct sl *st);
/* Room for nrun running jobs in the will-run and preemption lists. */
int sl_room(struct sl *st, int32_t nrun);
/* Room for nrun running jobs twice in the preemption candidates (each a
 * candidate and a sort key; slurm_preempt.c). 0, -1 on ENOMEM. */
int sl_cands_room(struct sl *st, int32_t nrun);
/* The running jobs by end time (ascending, ties in job order). */
void sl_ends_build(struct sl *st);
/* Job id, started in the cycle, joins them. */
void sl_ends_add(struct sl *st, int32_t id);
/* The free state changed otherwise (victims signalled): forget what the
 * test learnt of the nodes. */
void sl_will_run_stale(struct sl *st);
/* Job ids changed (sl_renumber): forget the list of running jobs and every
 * answer and digest made from it (their keys hold job ids); the next cycle
 * builds them afresh. */
void sl_will_run_forget(struct sl *st);
/* When job id can start on the nodes `avail` (Slurm order), in Unix
 * seconds, with the nodes it would take in st->parts (*np of them); -1
 * when never (within what the test sees). now_only: TEST_NOW_ONLY (no
 * reservation wanted). preempt: the job may preempt (its candidates are
 * in st->cands). */
int64_t sl_will_run(struct sl *st, int32_t id, const uint64_t *avail, bool now_only, bool preempt, int *np, int64_t now);
/* No later than sl_will_run's answer (no preemption): -1 exactly when it
 * is -1 (the request never fits the nodes), else a start it is not
 * before (the expected end of the job whose release first makes room;
 * `now` where that is unknown). */
int64_t sl_will_run_floor(struct sl *st, int32_t id, const uint64_t *avail, int64_t now);

/* slurm_preempt.c */
/* RUN_NOW failed for job id: can it fit by preempting? Then it signals
 * the victims (unless it did within KillWait + MessageTimeout) and returns
 * 1 (the job waits: Slurm's "nodes busy"); 0 when preemption cannot make
 * it fit; -1 on an engine error. cand: the nodes it may use. */
int sl_preempt(struct sl *st, int32_t id, const uint64_t *cand);
/* Can job a preempt job b (preempt/qos)? */
bool sl_can_preempt(const struct sl *st, int32_t a, int32_t b);
/* Preemptable running jobs of job id on cand into st->cands. */
void sl_preempt_cands(struct sl *st, int32_t id, const uint64_t *cand);

#ifdef SL_DEBUG
#include <stdio.h>
#define SL_TRACE(st, ...) do { fprintf(stderr, "%.3f ", simtime_to_s((st)->v->now) + (double)((st)->cfg->unix_start % 86400)); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } while (0)
#else
#define SL_TRACE(st, ...) do { } while (0)
#endif
#endif
