/* exec_sim — the simulated executor: a started job ends after its real
 * runtime (from its truth, which only the engine and this file read), or is
 * killed when it reaches its walltime first, as the replayed site did
 * (unless the scenario says the site let jobs overrun their estimates).
 * Durations are at least 1 µs so that a job never ends at the timestamp it
 * started at, which keeps the engine to one scheduling pass per timestamp. */
#include "sim/engine.h"

static int sim_start(void *ctx, struct sim *s, int32_t id)
{
	(void)ctx;
	const struct job *j = &s->jobs[id];
	const struct job_truth *t = &s->truth[id];
	simtime dur = t->run_us < 1 ? 1 : t->run_us;
	enum job_state end = t->fails ? JOB_FAILED : JOB_DONE;
	if (j->walltime_us != SIMTIME_INF && dur > j->walltime_us && !s->cfg.keep_overruns) {
		dur = j->walltime_us < 1 ? 1 : j->walltime_us;
		end = JOB_KILLED;
	}
	return sim_push(s, s->now + dur, SIM_EV_END, id, j->ver, (int32_t)end);
}

static int sim_stop(void *ctx, struct sim *s, int32_t id, enum exec_stop how)
{
	(void)ctx;
	(void)how;
	return sim_job_end(s, id, JOB_KILLED);
}

const struct executor_ops exec_sim_ops = {
	.name = "sim",
	.start = sim_start,
	.stop = sim_stop,
};
