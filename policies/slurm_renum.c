/* slurm_renum — the slurm policy's renumber hook (policy_ops.renumber,
 * slurm_int.h): finished jobs left the engine's table (sim_compact) and
 * the others were renumbered in order, old a < b giving map[a] < map[b].
 * What the policy keeps by job id between calls:
 *
 *   st->job[]       per job (indexed by id): entry old moves to map[old];
 *                   the ids freed at the top are cleared as grow_jobs
 *                   leaves an id not yet submitted (known false), for the
 *                   jobs that take them later (live mode);
 *   victims         signalled, watched for their requeue: renumbered, those
 *                   that left dropped (watch_victims drops a final one);
 *   nevers          to be held at the next pass: the same (hold_never
 *                   skips a job no longer pending);
 *   newjobs         submitted, arrival within the second not settled:
 *                   renumbered, one that left (cancelled meanwhile, live)
 *                   kept as -1 with its submit time (newsub): it counts
 *                   among its second's arrivals, as in a run never
 *                   compacted;
 *   will-run lists  the running jobs by end, each node's jobs by key (end,
 *                   job id), the slots and digests made from those keys,
 *                   the walks over the list: forgotten
 *                   (sl_will_run_forget) and built afresh by the next cycle,
 *                   which would rebuild the list anyway.
 *
 * Scratch filled afresh by each pass holds ids only during it (the queue q
 * and qtmp, the preemption candidates cands, backfill's plan); emptied all
 * the same. Nothing else holds a job id: struct sl_job has configuration
 * indexes, times, flags, a will-run slot and a mark; the limit counters are
 * per QOS, user and association (a job that left was uncounted by the
 * finish hook); priority/multifactor's state is per association; the
 * placer keeps request shapes, not ids. Ties broken by id (the list by
 * end, the preemption candidates) keep their order, as the map does. The
 * policy draws nothing by id (arrival_draw draws by second and rank) and
 * names no id in a reason. */
#include "policies/slurm_int.h"

#include <stdlib.h>
#include <string.h>

/* The ids of ids[0, n) that stay, renumbered, in order; how many. */
static int32_t keep_ids(int32_t *ids, int32_t n, const int32_t *map, int32_t nold)
{
	int32_t k = 0;
	for (int32_t i = 0; i < n; i++) {
		int32_t id = ids[i] >= 0 && ids[i] < nold ? map[ids[i]] : -1;
		if (id >= 0)
			ids[k++] = id;
	}
	return k;
}

int sl_renumber(void *state, const struct view *v, const int32_t *map, int32_t nold, int32_t nnew)
{
	(void)v;
	struct sl *st = state;
	int32_t cap = st->cap_job;
	/* map[old] <= old: moved in increasing old order, no entry is
	 * overwritten before it has moved */
	for (int32_t old = 0; old < nold; old++) {
		int32_t to = map[old];
		if (to < 0 || to == old || to >= cap)
			continue;
		if (old < cap)
			st->job[to] = st->job[old];
		else
			memset(&st->job[to], 0, sizeof st->job[to]);   /* never submitted here: no record */
	}
	int32_t top = nold < cap ? nold : cap;
	if (nnew < top)
		memset(st->job + nnew, 0, (size_t)(top - nnew) * sizeof *st->job);
	st->nvictims = keep_ids(st->victims, st->nvictims, map, nold);
	st->nnever = keep_ids(st->nevers, st->nnever, map, nold);
	for (int32_t i = 0; i < st->nnew; i++) {
		int32_t id = st->newjobs[i];
		st->newjobs[i] = id >= 0 && id < nold ? map[id] : -1;
	}
	st->nq = 0;
	st->ncands = 0;
	sl_will_run_forget(st);
	return 0;
}

/* Room for job id in every per-job array (slurm_int.h). */
int sl_grow_jobs(struct sl *st, int32_t id)
{
	if (id < st->cap_job)
		return 0;
	int32_t ncap = st->cap_job ? st->cap_job : 1024;
	while (ncap <= id)
		ncap *= 2;
	int32_t *nn = realloc(st->nevers, (size_t)ncap * sizeof *nn);
	if (!nn)
		return -1;
	st->nevers = nn;
	if (!(nn = realloc(st->newjobs, (size_t)ncap * sizeof *nn)))
		return -1;
	st->newjobs = nn;
	simtime *ns = realloc(st->newsub, (size_t)ncap * sizeof *ns);
	if (!ns)
		return -1;
	st->newsub = ns;
	struct sl_job *nj = realloc(st->job, (size_t)ncap * sizeof *nj);
	struct sl_rec *nq = realloc(st->q, (size_t)ncap * sizeof *nq);
	if (nq)
		st->q = nq;
	struct sl_rec *nt = nq ? realloc(st->qtmp, (size_t)ncap * sizeof *nt) : NULL;
	if (nt)
		st->qtmp = nt;
	if (!nj || !nq || !nt) {
		if (nj)
			st->job = nj;
		return -1;
	}
	memset(nj + st->cap_job, 0, (size_t)(ncap - st->cap_job) * sizeof *nj);
	st->job = nj;
	st->cap_job = st->cap_q = ncap;
	return 0;
}
