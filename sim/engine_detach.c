/* engine_detach — a live run made a simulation, for forecasts
 * (sim_live_detach, sim/engine.h; live/forecast.c runs it in a child
 * process that holds a copy of the daemon's run). Nothing in the engine
 * calls it: it sits above the engine's other files. */
#include "sim/engine_int.h"

#include <stdlib.h>

/* The executor of a detached run (sim_live_detach). */
struct detached {
	sim_runtime_fn runtime;
	void *ctx;
};

static int detached_end(struct sim *s, int32_t id, simtime elapsed)
{
	const struct detached *d = s->exec_ctx;
	const struct job *j = &s->jobs[id];
	simtime dur = d->runtime(d->ctx, s, id, elapsed);
	if (j->walltime_us != SIMTIME_INF && !s->cfg.keep_overruns && dur > j->walltime_us)
		dur = j->walltime_us;
	simtime at = s->now - elapsed + dur;
	if (at <= s->now)
		at = s->now + 1;
	bool killed = j->walltime_us != SIMTIME_INF && !s->cfg.keep_overruns && dur >= j->walltime_us;
	return sim_push(s, at, SIM_EV_END, id, j->ver,
	                killed ? SIM_END_ARG(JOB_KILLED, END_WALLTIME) : SIM_END_ARG(JOB_DONE, END_NONE));
}

static int detached_start(void *ctx, struct sim *s, int32_t id)
{
	(void)ctx;
	return detached_end(s, id, 0);
}

static int detached_stop(void *ctx, struct sim *s, int32_t id, enum exec_stop how)
{
	(void)ctx;
	(void)how;
	s->jobs[id].reason = END_CANCELLED;
	return sim_job_end(s, id, JOB_KILLED);
}

static const struct executor_ops detached_ops = {
	.name = "forecast",
	.start = detached_start,
	.stop = detached_stop,
};

int sim_live_detach(struct sim *s, simtime at, sim_runtime_fn runtime, void *ctx)
{
	if (at > s->now && sim_next_time(s) >= at)
		s->now = at;
	struct detached *d = malloc(sizeof *d);
	if (!d)
		return -1;
	*d = (struct detached){ .runtime = runtime, .ctx = ctx };
	live_fini(s);
	s->cfg.open_ended = false;
	sim_set_executor(s, &detached_ops, d);   /* freed with the child that runs it */
	for (int32_t k = 0; k < s->nrunning; k++) {
		int32_t id = s->running[k];
		struct job *j = &s->jobs[id];
		if (j->state != JOB_RUNNING)
			continue;   /* checkpointing: its stop is queued already */
		j->ver++;       /* its walltime kill is pushed again below */
		if (detached_end(s, id, s->now - j->start_us))
			return -1;
	}
	/* A pass now, on the state as it is (the policy's reasons: decide_note). */
	return sim_push(s, s->now, SIM_EV_WAKE, -1, 0, 0);
}
