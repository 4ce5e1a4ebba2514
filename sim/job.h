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

/* What a job asks for. Two shapes:
 * - gang (nodes > 0): exactly `nodes` nodes, each with `cores` cores,
 *   `gpus` whole GPUs and `mem_mib` memory;
 * - spread (nodes == 0): `cores` cores in total on any nodes, as many per
 *   node as fit (SWF jobs: processors are cores); gpus must be 0 and
 *   mem_mib is per core. */
struct job_req {
	int32_t nodes;
	int32_t cores;
	int32_t gpus;          /* whole GPUs per node */
	int32_t reserved_;
	int64_t mem_mib;       /* per node (gang) or per core (spread); 0 = none */
	int64_t gpu_mem_mib;   /* minimum memory of each GPU; 0 = any */
	uint64_t gpu_models;   /* bit i allows catalog GPU model i; 0 = any */
};

struct job {
	int32_t id;            /* index in the job table */
	int32_t tenant;        /* user (SWF field 12) or tenant index */
	int32_t group;         /* SWF field 13 / project */
	int32_t queue;         /* SWF field 15, -1 unknown */
	int64_t trace_id;      /* id in the source trace */
	uint8_t cls;           /* enum job_class */
	uint8_t state;         /* enum job_state */
	uint16_t preemptions;
	uint32_t ver;          /* bumped when events pushed for this job become stale */
	simtime submit_us;
	simtime walltime_us;   /* the user's estimate and kill limit; SIMTIME_INF when none */
	simtime start_us;      /* -1 until started */
	simtime end_us;        /* -1 until ended */
	simtime ckpt_every_us; /* the job checkpoints this often (0: never) */
	struct job_req req;
	/* Allocation while running: nparts entries at offset `parts` of the
	 * cluster's part pool (struct alloc_part, see cluster.h). */
	int32_t nparts;
	uint32_t parts;
	int32_t run_idx;       /* position in the engine's running list, -1 otherwise */
	int32_t pending_idx;   /* reserved for the engine's queue bookkeeping */
};

/* Hidden from policies: the job's real behaviour. */
struct job_truth {
	simtime run_us;        /* runtime on the reference device */
	uint8_t fails;         /* 1 when the job ends in failure */
};

const char *job_state_name(enum job_state s);
const char *job_class_name(enum job_class c);
/* -1 when `name` is not a class name. */
int job_class_parse(const char *name);
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
