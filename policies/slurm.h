/* slurm — Slurm's scheduler as a policy: priority/multifactor,
 * the main scheduler, sched/backfill, select/cons_tres and preempt/qos of
 * Slurm 22.05, configured from a site's slurm.conf and sacctmgr dumps
 * (docs/slurm-twin.md: every supported key, Slurm's meaning and the model).
 *
 * Two halves:
 * - the numeric knobs (weights, intervals, depths, windows) are the
 *   policy's parameters (its policy_param table, `hetlab policies`), so that
 *   a what-if is `--param bf_window=2880`; their defaults are Slurm's;
 * - the site's structure (partitions, QOS, the association tree, node
 *   weights) is struct slurm_cfg, the scenario's "slurm" block
 *   (config/slurmcfg.c), handed to the policy through policy_env.slurm.
 *   NULL there means a site with Slurm's defaults: one partition of every
 *   node, one QOS "normal", one account per tenant with one user.
 *
 * How jobs name these: job.queue is the job's partition, job.qos its QOS,
 * job.tenant its user and job.group its account, each an index into the
 * trace's own name tables (struct workload's names); the bind step
 * (slurm_cfg_bind, config/slurmcfg.h) fills the maps below from trace
 * index to this configuration's index, and refuses, naming the job, a
 * partition, QOS, account or user the configuration lacks. A trace
 * without names (SWF, synthetic) leaves the maps NULL: every job is in
 * the default partition and QOS, and tenant t is user t of account t.
 *
 * Ownership: the loader allocates every array; slurm_cfg_fini
 * (config/slurmcfg.h) frees them. The policy only reads it. */
#ifndef HL_SLURM_H
#define HL_SLURM_H

#include <stdbool.h>
#include <stdint.h>

#define SLURM_NAME_MAX 64
#define SLURM_UNLIMITED (-1)          /* a limit that is not set */
#define SLURM_FS_PARENT UINT32_MAX    /* Fairshare=parent */

/* Trackable resources that limits are given in (MaxTRESPerUser=cpu=64,...). */
enum slurm_tres { STRES_CPU, STRES_MEM, STRES_NODE, STRES_GPU, STRES_N };

/* The limits a QOS or an association may set; SLURM_UNLIMITED when not set.
 * mem in MiB. */
struct slurm_limits {
	int64_t max_tres_pu[STRES_N];     /* MaxTRESPerUser (QOS) */
	int64_t max_tres_pj[STRES_N];     /* MaxTRESPerJob / MaxTRES */
	int64_t grp_tres[STRES_N];        /* GrpTRES */
	int32_t max_jobs_pu;              /* MaxJobsPerUser (QOS) / MaxJobs (association) */
	int32_t grp_jobs;                 /* GrpJobs */
	int32_t max_submit_pu;            /* MaxSubmitJobsPerUser / MaxSubmitJobs */
	int64_t max_wall_s;               /* MaxWallDurationPerJob / MaxWall */
};

enum slurm_preempt_mode {
	SLURM_PM_UNSET,                   /* a QOS without one: the global PreemptMode */
	SLURM_PM_OFF,
	SLURM_PM_CANCEL,
	SLURM_PM_REQUEUE,
};

/* QOS flags the model reads (sacctmgr's Flags=). */
enum {
	SLURM_QOS_DENY_ON_LIMIT = 1u << 0,
	SLURM_QOS_NO_RESERVE = 1u << 1,
	SLURM_QOS_OVER_PART_QOS = 1u << 2,
	SLURM_QOS_PART_TIME_LIMIT = 1u << 3,
};

struct slurm_qos {
	char name[SLURM_NAME_MAX];
	uint32_t priority;                /* Priority= */
	int32_t *preempt;                 /* Preempt=: the QOS (indexes) it may preempt */
	int32_t npreempt;
	int32_t preempt_mode;             /* enum slurm_preempt_mode */
	int64_t grace_s;                  /* GraceTime */
	int64_t preempt_exempt_s;         /* PreemptExemptTime; SLURM_UNLIMITED: the global one */
	double usage_factor;              /* UsageFactor (1) */
	uint32_t flags;                   /* SLURM_QOS_* */
	struct slurm_limits lim;
};

struct slurm_part {
	char name[SLURM_NAME_MAX];
	int32_t *nodes;                   /* cluster node indexes (bound from node names) */
	int32_t nnodes;
	char **node_names;                /* as the scenario names them: host lists, "ALL" every node */
	int32_t nnode_names;
	uint16_t prio_tier;               /* PriorityTier (1) */
	uint16_t prio_job_factor;         /* PriorityJobFactor (1) */
	int64_t max_time_s;               /* MaxTime; SLURM_UNLIMITED */
	int64_t default_time_s;           /* DefaultTime; SLURM_UNLIMITED: none */
	int64_t def_mem_per_cpu_mib;      /* DefMemPerCPU; 0: the global one */
	int64_t def_mem_per_node_mib;     /* DefMemPerNode; 0: the global one */
	int32_t max_nodes;                /* MaxNodes; SLURM_UNLIMITED */
	int32_t over_time_limit_min;      /* OverTimeLimit; SLURM_UNLIMITED: the global one */
	int32_t qos;                      /* QOS= (the partition QOS), -1 none */
	bool exclusive;                   /* OverSubscribe=EXCLUSIVE */
	bool up;                          /* State=UP (DOWN, INACTIVE, DRAIN: no new starts) */
	bool is_default;                  /* Default=YES */
};

/* One association: an account's (user -1) or a user's under an account.
 * assoc[0] is root; a parent always comes before its children. */
struct slurm_assoc {
	int32_t parent;                   /* index in slurm_cfg.assoc, -1 for root */
	int32_t account;                  /* index in slurm_cfg.accounts */
	int32_t user;                     /* index in slurm_cfg.users, -1 for an account's */
	uint32_t shares;                  /* Fairshare= (1); SLURM_FS_PARENT */
	uint32_t priority;                /* Priority= (0: unset) */
	int32_t def_qos;                  /* DefaultQOS, -1 none */
	struct slurm_limits lim;
};

struct slurm_cfg {
	struct slurm_part *part;
	int32_t npart;
	int32_t default_part;             /* the Default=YES partition (else the first) */
	struct slurm_qos *qos;
	int32_t nqos;
	int32_t default_qos;              /* "normal" when it exists, else 0 */
	struct slurm_assoc *assoc;
	int32_t nassoc;
	char (*users)[SLURM_NAME_MAX];
	int32_t nusers;
	char (*accounts)[SLURM_NAME_MAX];
	int32_t naccounts;
	/* Per cluster node (nnodes entries, bound): its Weight (1), lower
	 * first. NULL: every node 1. */
	int64_t *node_weight;
	int32_t nnodes;
	/* The weights as the scenario gives them, before the bind: host lists
	 * (traces/hostexpr.h) and their Weight; slurm_cfg_bind resolves them
	 * into node_weight. */
	char **weight_nodes;
	int64_t *weight_of;
	int32_t nweights;
	/* select/cons_tres: CR_Core_Memory (memory is allocated; a job that
	 * asks for none gets DefMemPerCPU x CPUs, DefMemPerNode, or the whole
	 * node) or CR_Core (memory not tracked). */
	bool cr_memory;
	int64_t def_mem_per_cpu_mib;      /* global DefMemPerCPU; 0 unset */
	int64_t def_mem_per_node_mib;     /* global DefMemPerNode; 0 unset */
	/* The trace's start as a Unix time (workload.unix_start; 0 unknown),
	 * set by the bind step: Slurm rounds times on the wall clock (bf_resolution
	 * slots, the will-run windows), so the policy needs the epoch of t = 0. */
	int64_t unix_start;
	/* Maps from the trace's name indexes (job.queue, job.qos, job.tenant,
	 * job.group) to this configuration's; -1 where the trace's name has
	 * no match (a job naming it is refused at bind). NULL: no names. */
	int32_t *part_of, npart_of;
	int32_t *qos_of, nqos_of;
	int32_t *user_of, nuser_of;
	int32_t *acct_of, nacct_of;
};

struct policy_ops;
extern const struct policy_ops policy_slurm;

#endif
