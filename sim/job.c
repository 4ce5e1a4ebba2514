/* job — the state machine, in one place. See job.h. */
#include "sim/job.h"

#include <string.h>

static const char *const state_names[JOB_NSTATE] = {
	[JOB_PENDING] = "pending",   [JOB_HELD] = "held",
	[JOB_RUNNING] = "running",   [JOB_CHECKPOINTING] = "checkpointing",
	[JOB_PREEMPTED] = "preempted", [JOB_DONE] = "done",
	[JOB_FAILED] = "failed",     [JOB_KILLED] = "killed",
};

static const char *const class_names[JOB_NCLASS] = {
	[JOB_TRAINING] = "training", [JOB_INFERENCE] = "inference",
	[JOB_BATCH] = "batch",       [JOB_DEV] = "dev",
};

static const char *const prec_names[PREC_N] = {
	[PREC_FP16] = "fp16", [PREC_FP8] = "fp8", [PREC_FP32] = "fp32",
};

static const char *const reason_names[END_NREASON] = {
	[END_NONE] = "", [END_TRACE_FAIL] = "trace", [END_WALLTIME] = "walltime",
	[END_OOM] = "oom", [END_REJECTED] = "rejected", [END_CANCELLED] = "cancelled", [END_NODE_FAIL] = "node_fail",
	[END_EXIT] = "exit", [END_PREEMPTED] = "preempted",
};

const char *precision_name(enum precision p)
{
	return (unsigned)p < PREC_N ? prec_names[p] : "?";
}

int precision_parse(const char *name)
{
	for (int i = 0; i < PREC_N; i++)
		if (strcmp(prec_names[i], name) == 0)
			return i;
	if (strcmp(name, "bf16") == 0)
		return PREC_FP16;   /* same tensor-core rate */
	return -1;
}

const char *end_reason_name(enum end_reason r)
{
	return (unsigned)r < END_NREASON ? reason_names[r] : "?";
}

#define B(s) (1u << (s))
/* allowed[from] is the set of states `from` may move to. */
static const unsigned allowed[JOB_NSTATE] = {
	[JOB_PENDING] = B(JOB_RUNNING) | B(JOB_HELD) | B(JOB_KILLED),
	[JOB_HELD] = B(JOB_PENDING) | B(JOB_KILLED),
	[JOB_RUNNING] = B(JOB_DONE) | B(JOB_FAILED) | B(JOB_KILLED) |
	                B(JOB_CHECKPOINTING) | B(JOB_PREEMPTED),
	[JOB_CHECKPOINTING] = B(JOB_RUNNING) | B(JOB_PREEMPTED) | B(JOB_DONE) |
	                      B(JOB_FAILED) | B(JOB_KILLED),
	[JOB_PREEMPTED] = B(JOB_PENDING) | B(JOB_KILLED),
	[JOB_DONE] = 0, [JOB_FAILED] = 0, [JOB_KILLED] = 0,
};
#undef B

const char *job_state_name(enum job_state s)
{
	return (unsigned)s < JOB_NSTATE ? state_names[s] : "?";
}

const char *job_class_name(enum job_class c)
{
	return (unsigned)c < JOB_NCLASS ? class_names[c] : "?";
}

int job_class_parse(const char *name)
{
	for (int c = 0; c < JOB_NCLASS; c++)
		if (strcmp(name, class_names[c]) == 0)
			return c;
	return -1;
}

static const char *const hold_names[HOLD_NREASON] = { [HOLD_QUOTA] = "quota", [HOLD_RESERVE] = "reserve" };

enum hold_reason job_hold_parse(const char *reason)
{
	for (int h = 0; reason && h < HOLD_NREASON; h++)
		if (hold_names[h] && strcmp(reason, hold_names[h]) == 0)
			return (enum hold_reason)h;
	return HOLD_OTHER;
}

const char *job_hold_name(enum hold_reason h)
{
	return (unsigned)h < HOLD_NREASON ? hold_names[h] : NULL;
}

bool job_state_final(enum job_state s)
{
	return s == JOB_DONE || s == JOB_FAILED || s == JOB_KILLED;
}

bool job_transition_ok(enum job_state from, enum job_state to)
{
	if ((unsigned)from >= JOB_NSTATE || (unsigned)to >= JOB_NSTATE)
		return false;
	return (allowed[from] >> to) & 1u;
}

int job_set_state(struct job *j, enum job_state to)
{
	if (!job_transition_ok((enum job_state)j->state, to))
		return -1;
	j->state = (uint8_t)to;
	return 0;
}

int64_t job_req_cores(const struct job_req *r)
{
	return r->nodes > 0 ? (int64_t)r->nodes * r->cores : r->cores;
}

int64_t job_req_gpus(const struct job_req *r)
{
	return r->nodes > 0 ? (int64_t)r->nodes * r->gpus : 0;
}

void job_init(struct job *j, int32_t id, simtime submit_us)
{
	memset(j, 0, sizeof *j);
	j->id = id;
	j->num = id;
	j->tenant = -1;
	j->group = -1;
	j->queue = -1;
	j->qos = -1;
	j->trace_id = id;
	j->cls = JOB_BATCH;
	j->state = JOB_PENDING;
	j->submit_us = submit_us;
	j->walltime_us = SIMTIME_INF;
	j->start_us = -1;
	j->end_us = -1;
	j->run_idx = -1;
	j->pending_idx = -1;
	j->hold_since = -1;
	j->signalled_us = -1;
}
