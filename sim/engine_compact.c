/* engine_compact — finished jobs leave the job table (sim_compact), so
 * that a run that never ends (live mode, for months) costs what its live
 * jobs cost, not what its history did.
 *
 * The jobs that stay keep their order: old ids a < b map to new ids
 * a' < b'. Every comparison of ids (the pending list's ties, a policy's
 * "then by id") therefore decides as before, and a run compacted at any
 * step boundary makes the decisions of the same run never compacted (the
 * test test_compact checks this for every policy). What holds a job id is
 * rewritten here: the job, truth and per-attempt tables, the pending and
 * running lists, the per-node index of running jobs, the time-sliced GPUs'
 * sharers, the queued events (an event for a job that left is kept with id
 * -1, which its handler ignores, as it ignores an event for a finished job),
 * live mode's per-job bookkeeping (live_core.c: live_renumber), and the
 * policy's own (its renumber hook). Called by whoever steps the run,
 * between steps. */
#include "sim/engine.h"
#include "sim/engine_int.h"

#include <stdbool.h>
#include <string.h>

static bool is_final(const struct job *j)
{
	return j->state == JOB_DONE || j->state == JOB_FAILED || j->state == JOB_KILLED;
}

/* Kinds whose subject (ev.id) is a job. */
static bool job_event(uint32_t kind)
{
	switch (kind) {
	case SIM_EV_SUBMIT: case SIM_EV_END: case SIM_EV_STOP: case SIM_EV_XEND: case SIM_EV_CANCEL:
	case SIM_EV_XRUN: case SIM_EV_XEND2: case SIM_EV_XUNSTART: case SIM_EV_XREQUEUE:
		return true;
	default:
		return false;
	}
}

struct remap {
	const int32_t *map;
	int32_t nold;
};

static inline int32_t remap_id(const struct remap *r, int32_t id)
{
	return id >= 0 && id < r->nold ? r->map[id] : -1;
}

static void remap_event(void *ctx, struct ev *e)
{
	if (job_event(e->kind))
		e->id = remap_id(ctx, e->id);
}

/* Keeps the ids of list[0, *n) that stay, renumbered, in order. */
static void remap_list(const struct remap *r, int32_t *list, int32_t *n)
{
	int32_t k = 0;
	for (int32_t i = 0; i < *n; i++) {
		int32_t id = remap_id(r, list[i]);
		if (id >= 0)
			list[k++] = id;
	}
	*n = k;
}

int32_t sim_compact(struct sim *s, int32_t *map, bool (*keep)(void *ctx, int32_t id), void *ctx)
{
	if (s->failed)
		return -1;
	int32_t n = s->njobs, k = 0;
	for (int32_t i = 0; i < n; i++)
		map[i] = i < s->next_submit && is_final(&s->jobs[i]) && !(keep && keep(ctx, i)) ? -1 : k++;
	int32_t gone = n - k;
	if (gone == 0)
		return 0;
	if (s->sched.schedule && !s->sched.renumber)
		return eng_fail(s, "policy '%s' cannot renumber its jobs: finished jobs cannot leave the run's tables",
		                s->sched.name ? s->sched.name : "?");
	if (s->sched.renumber) {
		struct view v;
		eng_view_fill(s, &v);
		if (s->sched.renumber(s->sched.state, &v, map, n, k))
			return eng_fail(s, "policy '%s' ran out of memory renumbering its jobs",
			                s->sched.name ? s->sched.name : "?");
	}
	for (int32_t i = 0; i < n; i++) {
		int32_t to = map[i];
		if (to < 0 || to == i)
			continue;
		s->jobs[to] = s->jobs[i];
		s->jobs[to].id = to;
		s->truth[to] = s->truth[i];
		s->run[to] = s->run[i];
	}
	live_renumber(s, map, n);
	struct remap r = { map, n };
	remap_list(&r, s->pending, &s->npending);
	int32_t nrun = s->nrunning;
	remap_list(&r, s->running, &s->nrunning);
	if (s->nrunning != nrun)
		return eng_fail(s, "compacting: a finished job was on the running list");
	for (int32_t node = 0; node < s->cl.nnodes; node++) {
		struct nodejobs *o = &s->onnode[node];
		for (int32_t q = 0; s->onnode_live && q < o->n; q++)
			o->id[q] = remap_id(&r, o->id[q]);
		const struct node *nd = &s->cl.nodes[node];
		for (int32_t g = 0; s->cl.gpu && g < nd->ngpus; g++) {
			struct gpustate *gs = &s->cl.gpu[nd->gpu0 + g];
			for (int32_t q = 0; q < gs->nshare && q < HL_SHARE_MAX; q++)
				gs->sharer[q] = remap_id(&r, gs->sharer[q]);
		}
	}
	evq_each(&s->q, remap_event, &r);
	s->next_submit = s->next_submit < n ? map[s->next_submit] : k;
	s->njobs = k;
	s->nfinished -= gone;
	s->ngone += gone;
	return gone;
}
