/* engine_int — what the engine's files share (sim/engine.c, the loop and
 * job lifecycle; sim/engine_live.c, live mode's inputs from the world).
 * Not for other modules: their API is engine.h. */
#ifndef HL_ENGINE_INT_H
#define HL_ENGINE_INT_H

#include "sim/engine.h"

/* engine.c */
int eng_fail(struct sim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void eng_rec_event(struct sim *s, enum rec_kind k, int32_t job, int32_t node, int state, const char *detail);
/* Frees running job id's allocation and takes it off the running list. */
int eng_release_alloc(struct sim *s, int32_t id);
/* Adds the run segment that ends now (or at s->acct_end) to the job's usage. */
void eng_account_segment(struct sim *s, struct job *j);
void eng_pending_insert(struct sim *s, int32_t id);
/* Stops running job id and requeues it (live: with what its own checkpoint
 * saved); why goes into the event's detail (NULL: a preemption). */
int eng_requeue_job(struct sim *s, int32_t id, const char *why);
void eng_finish_hook(struct sim *s, int32_t id);
void eng_end_unstarted(struct sim *s, int32_t id, enum end_reason why, const char *detail);
void eng_submit_one(struct sim *s, int32_t id);
int eng_apply_fault(struct sim *s, int32_t node, int kind, int gpu, double value, double repair_s);
int eng_repair(struct sim *s, int32_t node, int kind, int gpu);
void eng_approve_tenant(struct sim *s, int32_t tenant, const char *detail);
/* Live: tells the executor to stop job id. */
void eng_exec_stop(struct sim *s, int32_t id, enum exec_stop how);

/* engine_live.c: live mode's events (SIM_EV_X*, SIM_EV_CANCEL,
 * SIM_EV_PROBE, SIM_EV_FOREIGN). false when e is not one of them. */
bool live_handle(struct sim *s, const struct ev *e);
/* Live: what a start decision does to the job's live bookkeeping. */
void live_started(struct sim *s, int32_t id, simtime prev_start);
void live_fini(struct sim *s);
/* Live: stops running job id for `why` (cancelled, walltime): at once with
 * the local executor; with an asynchronous one (Slurm) the executor is
 * asked, and the job ends, still holding its resources until then, when
 * the executor says it has. */
void live_kill(struct sim *s, int32_t id, enum end_reason why);

#endif
