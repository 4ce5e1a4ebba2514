/* live_core — the live seam's lower half (sim/live.h, engine_int.h "the
 * live seam"): what the engine's other files ask of live mode at a start,
 * an end, a stop, a drain, a preemption and a sample, and the set-up and
 * release of a run's live state. Each call does nothing (or answers as
 * simulation does) when the run is not live. It calls only engine_core.c,
 * so that the files that call it stay below engine_live.c. */
#include "sim/engine_int.h"
#include "sim/live.h"

#include <math.h>
#include <stdlib.h>

int sim_live_init(struct sim *s, const struct sim_live_cfg *cfg)
{
	struct sim_live *lv = calloc(1, sizeof *lv);
	if (!lv)
		return -1;
	s->live = lv;
	lv->cfg = *cfg;
	int32_t n = s->cl.nnodes + 1;
	lv->rd = calloc((size_t)n, sizeof *lv->rd);
	lv->foreign = calloc((size_t)n, sizeof *lv->foreign);
	lv->foreign_want = calloc((size_t)n, sizeof *lv->foreign_want);
	lv->run = calloc((size_t)s->cap_jobs, sizeof *lv->run);
	if (!lv->rd || !lv->foreign || !lv->foreign_want || !lv->run)
		return -1;
	/* Jobs arrive while it runs: it never ends by itself, and its samples
	 * (the first at time 0, as a run with jobs has) have no row limit. */
	bool sampled = s->cfg.open_ended || s->njobs > 0;   /* sim_init pushed the first sample */
	s->cfg.open_ended = true;
	s->cfg.max_sample_rows = INT64_MAX;
	if (s->cfg.sample_every_us > 0 && !sampled && sim_push(s, 0, SIM_EV_SAMPLE, -1, 0, 0))
		return -1;
	return 0;
}

void live_renumber(struct sim *s, const int32_t *map, int32_t n)
{
	struct sim_live *lv = s->live;
	for (int32_t i = 0; lv && i < n; i++)
		if (map[i] >= 0 && map[i] != i)
			lv->run[map[i]] = lv->run[i];
}

void live_fini(struct sim *s)
{
	struct sim_live *lv = s->live;
	if (!lv)
		return;
	free(lv->run);
	free(lv->rd);
	free(lv->inj);
	free(lv->xin);
	free(lv->foreign);
	free(lv->foreign_want);
	free(lv);
	s->live = NULL;
}

void live_started(struct sim *s, int32_t id, simtime prev_start)
{
	if (!s->live)
		return;
	/* The executor's clock counts whole seconds: its start may read up to
	 * a second before the decision. Usage counts from the executor's start
	 * (so that it is what the executor accounts); the job's start time,
	 * which its wait is measured to, is never before it came. */
	s->live->run[id] = (struct live_run){
		.confirmed = !s->live->cfg.async_start,
		.counted_restart = prev_start >= 0,
		.prev_start = prev_start,
		.acct_start = s->now,
		.floor_us = s->now - 999999,
	};
}

int live_launched(struct sim *s, int32_t id)
{
	const struct job *j = &s->jobs[id];
	if (!s->live || j->walltime_us == SIMTIME_INF || s->cfg.keep_overruns)
		return 0;
	return sim_push(s, s->now + (j->walltime_us < 1 ? 1 : j->walltime_us), SIM_EV_END, id, j->ver,
	                SIM_END_ARG(JOB_KILLED, END_WALLTIME));
}

void live_exec_stop(struct sim *s, int32_t id, enum exec_stop how)
{
	if (s->live && s->exec->stop)
		s->exec->stop(s->exec_ctx, s, id, how);
}

void live_node_state(struct sim *s, int32_t node, bool drain, const char *reason)
{
	if (s->live && s->exec->node_state)
		s->exec->node_state(s->exec_ctx, s, node, drain, reason);
}

bool live_exec_fates(const struct sim *s)
{
	return s->live && s->live->cfg.exec_fates;
}

bool live_may_decide(const struct sim *s)
{
	return !s->live || !s->live->blind;
}

bool live_preempt_signal(struct sim *s, int32_t id)
{
	if (!s->live)
		return false;
	if (s->exec->signal)
		s->exec->signal(s->exec_ctx, s, id);
	return true;
}

bool live_account_span(const struct sim *s, const struct job *j, simtime *from, simtime *end)
{
	const struct sim_live *lv = s->live;
	if (!lv)
		return true;
	/* An attempt the executor never saw run used nothing; one that ended
	 * earlier than now (the executor's clock) ends there. */
	const struct live_run *r = &lv->run[j->id];
	if (!r->confirmed)
		return false;
	*from = r->acct_start;
	if (lv->acct_at && lv->acct_end >= *from)
		*end = lv->acct_end;
	return true;
}

simtime live_end_time(const struct sim *s, const struct job *j)
{
	const struct sim_live *lv = s->live;
	if (!lv || !lv->acct_at)
		return s->now;
	return lv->acct_end >= j->start_us ? lv->acct_end : j->start_us;
}

bool live_sample_power(struct sim *s, double *power_w)
{
	const struct sim_live *lv = s->live;
	if (!lv)
		return false;
	double total = 0;
	for (int32_t i = 0; i < s->cl.nnodes; i++) {
		double w;
		if (lv->rd[i].ok && isfinite(lv->rd[i].power_w)) {
			w = lv->rd[i].power_w;
		} else {
			struct probe_node pn;
			eng_probe_model(s, i, &pn);
			w = pn.power_w;
		}
		total += w;
		s->rack_w[s->cl.nodes[i].rack] += w;
	}
	*power_w = total;
	return true;
}
