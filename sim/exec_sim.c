/* exec_sim — the simulated executor: a started job ends when its work (its
 * real runtime from its truth, on the reference device) is done at the
 * speed the engine models (sim_job_begin, sim/engine_speed.c), or is killed when it reaches
 * its walltime first, as the replayed site did (unless the scenario says
 * the site let jobs overrun their estimates), or fails with OOM.
 * Durations are at least 1 µs so that a job never ends at the timestamp it
 * started at, which keeps the engine to one scheduling pass per timestamp. */
#include "sim/engine.h"

static int sim_start(void *ctx, struct sim *s, int32_t id)
{
	(void)ctx;
	return sim_job_begin(s, id);
}

static int sim_stop(void *ctx, struct sim *s, int32_t id, enum exec_stop how)
{
	(void)ctx;
	(void)how;
	s->jobs[id].reason = END_CANCELLED;
	return sim_job_end(s, id, JOB_KILLED);
}

const struct executor_ops exec_sim_ops = {
	.name = "sim",
	.start = sim_start,
	.stop = sim_stop,
};
