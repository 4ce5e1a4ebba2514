/* shadow_eng — the twin's engine of one shadow poll (shadow.h). */
#include "live/shadow.h"

#include <stdlib.h>
#include <string.h>

#include "sim/live.h"

static int exec_start(void *ctx, struct sim *s, int32_t job)
{
	(void)ctx, (void)s, (void)job;
	return 0;   /* Slurm started it: the poll says when */
}

static int exec_stop(void *ctx, struct sim *s, int32_t job, enum exec_stop how)
{
	(void)ctx, (void)s, (void)job, (void)how;
	return 0;
}

static const struct executor_ops shadow_exec = { .name = "shadow", .start = exec_start, .stop = exec_stop };

/* As the daemon's engine (live/rebuild.c live_tune): no horizon, no speed
 * model, no environment events, no drawn faults. */
static void tune(void *ctx, struct sim_cfg *c)
{
	(void)ctx;
	c->horizon_us = SIMTIME_INF;
	c->speed_model = false;
	c->env = NULL;
	c->nenv = 0;
	c->fault = NULL;
}

int shadow_eng_build(struct shadow_eng *e, const char *scn_text, const char *name, const char *dir,
                     int32_t max_jobs, char *err, size_t errlen)
{
	memset(e, 0, sizeof *e);
	workload_init(&e->w);
	if (scenario_load_text(scn_text, name, dir, &e->sc, err, errlen))
		return -1;
	e->have_sc = true;
	struct run_opts o = { .max_jobs = max_jobs > 0 ? max_jobs : 1, .tune = tune };
	e->have_run = true;
	if (run_assemble(&e->run, &e->sc, &o, err, errlen))
		return -1;
	e->s = e->run.s;
	struct sim_live_cfg lcfg = { .async_start = false };
	if (sim_live_init(e->s, &lcfg)) {
		snprintf(err, errlen, "out of memory setting up the engine");
		return -1;
	}
	sim_set_executor(e->s, &shadow_exec, e);
	return 0;
}

int32_t shadow_eng_add(struct shadow_eng *e, const char *line, simtime submit_us, char *err, size_t errlen)
{
	if (trace_jsonl_parse_job("shadow", (int64_t)e->w.n_taken + 1, line, strlen(line), NULL, &e->w, err, errlen))
		return -1;
	struct job j = e->w.jobs[e->w.n - 1];
	j.submit_us = submit_us;
	if (e->nselmap < e->w.nstr) {
		int32_t *m = realloc(e->selmap, (size_t)e->w.nstr * sizeof *m);
		if (!m) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		for (int32_t k = e->nselmap; k < e->w.nstr; k++)
			m[k] = -1;
		e->selmap = m;
		e->nselmap = e->w.nstr;
	}
	if (cluster_bind_more(&e->s->cl, e->w.str, e->w.nstr, e->selmap, &j, 1, err, errlen))
		return -1;
	int32_t at = sim_add_job(e->s, &j, &e->w.truth[e->w.n - 1]);
	if (at < 0) {
		snprintf(err, errlen, "out of memory adding a job");
		return -1;
	}
	e->w.n_taken += e->w.n;   /* the job is the engine's now: the workload keeps its names */
	e->w.n = 0;
	return at;
}

int32_t shadow_eng_node(const struct shadow_eng *e, const char *name)
{
	const struct cluster *cl = &e->s->cl;
	for (int32_t i = 0; i < cl->nnodes; i++)
		if (strcmp(cl->nodes[i].name, name) == 0)
			return i;
	return -1;
}

void shadow_eng_free(struct shadow_eng *e)
{
	if (e->have_run)
		run_free(&e->run);
	if (e->have_sc)
		scenario_free(&e->sc);
	workload_free(&e->w);
	free(e->selmap);
	memset(e, 0, sizeof *e);
}
