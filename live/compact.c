/* compact — job ids in live mode, and ended jobs leaving the engine's
 * tables (docs/live.md "Ended jobs leave the engine"): the engine names a
 * job by its index, which sim_compact changes; the state by its id, the
 * order it was taken in (struct job.num). live_index maps one to the
 * other; live_compact drops the ended jobs between ticks, with what live/
 * and the executor keep by index. Called by daemon.c and rebuild.c. */
#include "live/live_int.h"
#include "live/exec/executor.h"

#include <stdlib.h>
#include <string.h>

int32_t live_index(const struct live *L, int64_t sid)
{
	const struct sim *s = &L->s;
	if (s->ngone == 0)   /* never compacted: the index is the id */
		return sid >= 0 && sid < s->njobs ? (int32_t)sid : -1;
	/* The engine keeps its jobs in the order they were taken. */
	int32_t lo = 0, hi = s->njobs;
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (s->jobs[mid].num < sid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->njobs && s->jobs[lo].num == sid ? lo : -1;
}

/* sim_compact asks of each ended job: it leaves unless its row in the
 * jobs table is still to be written (an end the catch-up replays past the
 * last commit, or one not yet committed) or the executor still needs it;
 * one that leaves takes its wait into the metrics' histogram. */
static bool keep_ended(void *ctx, int32_t id)
{
	struct live *L = ctx;
	const struct job *j = &L->s.jobs[id];
	bool committed = L->catching_up ? j->end_us <= L->applied_us : !L->jdirty[id];
	if (!committed || (L->xctx && L->xo->keep && L->xo->keep(L, id)))   /* a replay has no executor */
		return true;
	if (j->start_us >= 0 && j->start_us >= j->submit_us)
		metrics_observe_left_wait(&L->mc, simtime_to_s(j->start_us - j->submit_us));
	return false;
}

int live_compact(struct live *L)
{
	struct sim *s = &L->s;
	/* Once keep_ended have gathered, or the table is full and any can go. */
	bool full = s->njobs >= L->cfg.max_jobs && s->nfinished > L->kept_ended;
	if ((L->mode != LIVE_DAEMON && !L->replay_compact) || L->cfg.keep_ended <= 0 || !(L->xo->flags & EXEC_COMPACT) ||
	    !s->sched.renumber || (s->nfinished < L->cfg.keep_ended + L->kept_ended && !full))
		return 0;
	int32_t n = s->njobs;
	if (!L->cmap && !(L->cmap = malloc(((size_t)L->cfg.max_jobs + 1) * sizeof *L->cmap))) {
		snprintf(L->err, sizeof L->err, "out of memory dropping ended jobs");
		return -1;
	}
	if (n > L->cfg.max_jobs + 1) {
		snprintf(L->err, sizeof L->err, "the engine holds %d jobs, more than max_jobs", n);
		return -1;
	}
	int32_t *map = L->cmap;
	int32_t gone = sim_compact(s, map, keep_ended, L);
	if (gone < 0) {
		snprintf(L->err, sizeof L->err, "dropping ended jobs: %s", s->err);
		return -1;
	}
	L->kept_ended = s->nfinished;   /* kept for the executor: not counted towards the next */
	if (gone == 0)
		return 0;
	/* What live/ keeps by index moves as the engine's tables did. */
	for (int32_t old = 0; old < n; old++) {
		int32_t to = map[old];
		if (to < 0) {
			jobx_free(&L->jx[old]);   /* its slot is a later job's, or cleared below */
		} else if (to != old) {
			L->jx[to] = L->jx[old];
			L->jdirty[to] = L->jdirty[old];
		}
	}
	memset(&L->jx[s->njobs], 0, (size_t)(n - s->njobs) * sizeof *L->jx);
	memset(&L->jdirty[s->njobs], 0, (size_t)(n - s->njobs));
	if (L->xctx && L->xo->renumber && L->xo->renumber(L, map, n, s->njobs)) {
		snprintf(L->err, sizeof L->err, "%s executor: out of memory renumbering its jobs", L->xo->name);
		return -1;
	}
	return 0;
}
