/* job — the job model and its state machine.
 *
 * A job is what a trace line or the generator describes: who submitted it,
 * when, what it asks for (struct job_req) and its user's runtime estimate
 * (walltime). What a policy may not know — how long the job really runs and
 * whether it fails — lives apart, in struct job_truth, which only the engine
 * and the simulated executor read. Jobs live in one table owned by the
 * engine and are named by their index in it.
 *
 * Every state change goes through job_set_state(), which refuses a
 * transition the table in job.c does not allow. */
#ifndef HL_JOB_H
#define HL_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include "sim/simtime.h"

enum job_class {
	JOB_TRAINING,   /* offline training, possibly multi-node gangs */
	JOB_INFERENCE,  /* online inference services */
	JOB_BATCH,      /* batch processing / transcoding; SWF jobs */
	JOB_DEV,        /* dev/test, idle-fill */
	JOB_NCLASS
};

enum job_state {
	JOB_PENDING,
	JOB_HELD,           /* held by a policy or the user; back to pending on release */
	JOB_RUNNING,
	JOB_CHECKPOINTING,  /* running, writing a checkpoint */
	JOB_PREEMPTED,      /* stopped by preemption; requeued to pending */
	JOB_DONE,           /* ended with success */
	JOB_FAILED,         /* ended with failure (the trace says so, or a fault) */
	JOB_KILLED,         /* walltime exceeded, or cancelled */
	JOB_NSTATE
};

/* Precision a job computes in (selects the speed table's column). */
enum precision { PREC_FP16, PREC_FP8, PREC_FP32, PREC_N };
const char *precision_name(enum precision p);
int precision_parse(const char *name);   /* -1 when unknown */

/* Hard requirements beyond the counts (bits of job_req.flags). */
enum req_flag {
	REQ_FP8 = 1u << 0,          /* the GPU must have FP8 tensor cores */
	REQ_NUMA_LOCAL = 1u << 1,   /* each node's cores from one NUMA domain */
	REQ_AVX512 = 1u << 2,       /* the CPU must have AVX-512 */
	REQ_AMX = 1u << 3,          /* the CPU must have AMX */
};

/* Why a job ended the way it did (job.reason). */
enum end_reason {
	END_NONE,          /* not ended, or ended as the trace says (done) */
	END_TRACE_FAIL,    /* the trace (or the generator) says it failed */
	END_WALLTIME,      /* killed at its walltime */
	END_OOM,           /* its GPU (share, MIG instance) had less memory than it needs */
	END_REJECTED,      /* could never fit the cluster; killed at submit */
	END_CANCELLED,     /* stopped by an executor/operator */
	END_NODE_FAIL,     /* its node crashed or its GPU fell off the bus, and it could not move */
	END_EXIT,          /* live: it exited non-zero or was killed by a signal */
	END_PREEMPTED,     /* preempted and cancelled (Slurm's PreemptMode=CANCEL) */
	END_NREASON
};
const char *end_reason_name(enum end_reason r);

/* What a job asks for. Two shapes:
 * - gang (nodes > 0): exactly `nodes` nodes, each with `cores` cores,
 *   `gpus` GPUs and `mem_mib` memory; with gpu_milli or mig_g set the job
 *   takes a share of one GPU (nodes == 1, gpus == 1);
 * - spread (nodes == 0): `cores` cores in total on any nodes, as many per
 *   node as fit (SWF jobs: processors are cores); gpus must be 0 and
 *   mem_mib is per core.
 * Label and name references (sel_req, sel_pref, plane, pool) index the
 * workload's string table while the trace is read and the cluster's
 * tables once the run is set up (cluster_bind_workload). They are stored
 * as index + 1 so that a zeroed request asks for nothing: 0 = none. */
struct job_req {
	int32_t nodes;
	int32_t cores;
	int32_t gpus;          /* GPUs per node */
	int32_t gpu_milli;     /* 1..1000: a time-sliced share of one GPU; 0 = whole cards */
	int64_t mem_mib;       /* per node (gang) or per core (spread); 0 = none */
	int64_t gpu_mem_mib;   /* memory the job needs on each GPU / share / MIG instance;
	                          0 = any. Not enforced by the engine: too little → OOM */
	uint64_t gpu_models;   /* bit i allows catalog GPU model i; 0 = any */
	int16_t sel_req;       /* required label expression + 1; 0 none */
	int16_t sel_pref;      /* preferred label expression + 1; 0 none */
	int16_t plane;         /* required network plane + 1; 0 any */
	int16_t pool;          /* storage pool + 1; 0 none */
	int8_t mig_g;          /* a MIG instance of this many compute slices (1..7); 0 none */
	uint8_t flags;         /* enum req_flag */
	uint8_t precision;     /* enum precision */
	uint8_t cls;           /* the job's class, copied by the engine (class-exclusive pools) */
	int32_t io_mbps;       /* storage bandwidth reserved on `pool` while running */
	int64_t storage_gib;   /* capacity taken on `pool` while running */
};

/* True when the request takes a share of one GPU rather than whole cards. */
static inline bool job_req_shared(const struct job_req *r)
{
	return r->gpu_milli > 0 || r->mig_g > 0;
}

struct job {
	int32_t id;            /* index in the job table */
	int32_t tenant;        /* user (SWF field 12) or tenant index */
	int32_t group;         /* SWF field 13 / project */
	int32_t queue;         /* SWF field 15, -1 unknown */
	int64_t trace_id;      /* id in the source trace */
	uint8_t cls;           /* enum job_class */
	uint8_t state;         /* enum job_state */
	uint16_t preemptions;
	uint8_t reason;        /* enum end_reason, once final */
	uint8_t pad_;
	int16_t qos;           /* the trace's QOS (a Slurm dump's), -1 none */
	uint32_t ver;          /* bumped when events pushed for this job become stale */
	simtime submit_us;
	simtime walltime_us;   /* the user's estimate and kill limit; SIMTIME_INF when none */
	simtime start_us;      /* -1 until started */
	simtime end_us;        /* -1 until ended */
	simtime ckpt_every_us; /* the job checkpoints after this much work (reference µs; 0: never) */
	struct job_req req;
	/* Allocation while running: nparts entries at offset `parts` of the
	 * cluster's part pool (struct alloc_part, see cluster.h). */
	int32_t nparts;
	uint32_t parts;
	int32_t run_idx;       /* position in the engine's running list, -1 otherwise */
	int32_t pending_idx;   /* reserved for the engine's queue bookkeeping */
	/* (Last: what a scheduling pass reads is in the first two cache lines.) */
	/* Accounting the engine keeps, observable by policies: */
	double gpu_s;          /* GPU-seconds held so far, all runs (a share counts its fraction) */
	double core_s;         /* core-seconds held so far */
	double lost_gpu_s;     /* GPU-seconds of work lost to preemption (redone later) */
	double ckpt_s;         /* seconds spent writing checkpoints */
	double energy_j;       /* IT energy of its devices' active power (power model on) */
	double energy_cost;    /* that energy priced by the site's tariff when used */
	simtime held_us;       /* time spent held */
	simtime hold_since;    /* when the current hold began, -1 when not held */
	simtime signalled_us;  /* when it was asked to checkpoint and stop (preempted), -1 otherwise */
	uint8_t hold_why;      /* enum hold_reason of the current or last hold */
	uint8_t approved;      /* 1 once a quota hold was approved: not held for quota again */
	uint16_t restarts;     /* times it was requeued and started again */
	int16_t tolerate;      /* the request's tolerations (sim/taint.h) + 1, in the workload's
	                          strings; 0 none. Folded into req.sel_req / sel_pref when the
	                          workload is bound (kept here, out of the request's cache line) */
	int64_t num;           /* its number for people (results, logs, a policy's reasons): its
	                          index in a run whose table was never compacted (sim_compact), the
	                          order it arrived in (ngone + its index then) in one that was */
};

/* Why a job is held (decide_hold's reason names it; "quota" holds are the
 * ones org approvals release, "reserve" a tiered job that can never fit
 * beside the reserved capacity). The results' job.hold_why names them. */
enum hold_reason { HOLD_OTHER, HOLD_QUOTA, HOLD_RESERVE, HOLD_NREASON };

/* Hidden from policies: the job's real behaviour. */
struct job_truth {
	simtime run_us;        /* runtime on the reference device */
	uint8_t fails;         /* 1 when the job ends in failure */
};

const char *job_state_name(enum job_state s);
const char *job_class_name(enum job_class c);
/* -1 when `name` is not a class name. */
int job_class_parse(const char *name);
/* decide_hold's reason as a hold_reason; its name (NULL for HOLD_OTHER). */
enum hold_reason job_hold_parse(const char *reason);
const char *job_hold_name(enum hold_reason h);
bool job_state_final(enum job_state s);
bool job_transition_ok(enum job_state from, enum job_state to);
/* Applies the transition; -1 and the job unchanged when it is illegal. */
int job_set_state(struct job *j, enum job_state to);
/* Total cores / GPUs the request takes. */
int64_t job_req_cores(const struct job_req *r);
int64_t job_req_gpus(const struct job_req *r);
/* Resets a job to a fresh pending record with the given id and submit time. */
void job_init(struct job *j, int32_t id, simtime submit_us);

#endif
