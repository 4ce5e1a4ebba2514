/* engine_core — what every part of the engine stands on: the run's
 * error (eng_fail), the event queue's push and peek (sim_push,
 * sim_next_time), the names of the recorded event kinds, the executor's
 * stop in live mode, the policy's finish hook, the pending list's ordered
 * insert, the per-node index of running jobs (eng_onnode_sorted; adding
 * and removing are inline in engine_int.h), the health monitor's log of
 * nodes to look at, and a part's GPUs in card equivalents.
 * It calls no other engine file. */
#include "sim/engine.h"
#include "sim/engine_int.h"
#include "sim/mig.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int eng_fail(struct sim *s, const char *fmt, ...)
{
	if (!s->failed) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(s->err, sizeof s->err, fmt, ap);
		va_end(ap);
		s->failed = true;
	}
	return -1;
}

static const char *const rec_names[REC_NKIND] = {
	[REC_SUBMIT] = "submit", [REC_START] = "start", [REC_END] = "end",
	[REC_HOLD] = "hold", [REC_RELEASE] = "release", [REC_PREEMPT] = "preempt",
	[REC_SAMPLE_MARK] = "sample", [REC_REQUEUE] = "requeue",
	[REC_DRAIN] = "drain", [REC_RESUME] = "resume", [REC_FAULT] = "fault", [REC_REPAIR] = "repair",
	[REC_JOIN] = "join", [REC_LEAVE] = "leave",
};

const char *rec_kind_name(enum rec_kind k)
{
	return (unsigned)k < REC_NKIND ? rec_names[k] : "?";
}

int sim_push(struct sim *s, simtime t, uint32_t kind, int32_t id, uint32_t ver, int32_t arg)
{
	if (evq_push(&s->q, t, kind, id, ver, arg))
		return eng_fail(s, "out of memory growing the event queue");
	return 0;
}

simtime sim_next_time(struct sim *s)
{
	const struct ev *top = evq_peek(&s->q);
	return top ? top->t : SIMTIME_INF;
}

void eng_finish_hook(struct sim *s, int32_t job)
{
	if (s->sched.finish) {
		struct view v;
		eng_view_fill(s, &v);
		s->sched.finish(s->sched.state, &v, job);
	}
}

/* GPUs a part holds in card equivalents: a share its milli, a MIG
 * instance its compute slices over the card's. */
double eng_part_gpu_eq(const struct cluster *cl, const struct alloc_part *p)
{
	if (!p->gpus)
		return 0;
	if (p->milli > 0)
		return p->milli / (double)HL_MILLI;
	const struct node *n = &cl->nodes[p->node];
	if (p->mig_profile >= 0 && cl->gpu && cl->gpu[n->gpu0 + __builtin_ctzll(p->gpus)].mig) {
		const struct mig_card *c = cl->gpu[n->gpu0 + __builtin_ctzll(p->gpus)].mig->card;
		return (double)c->profiles[p->mig_profile].compute_slices / c->compute_slices;
	}
	return hl_popcount64(p->gpus);
}

/* The health monitor looks again at `node` at the next pass (its record
 * or service state changed); at every node when the log cannot grow. */
void eng_health_mark(struct sim *s, int32_t node)
{
	struct cluster *cl = &s->cl;
	if (!cl->health || cl->hlogged[node])
		return;
	if (cl->nhlog == cl->caphlog) {
		int32_t cap = cl->caphlog ? 2 * cl->caphlog : 64;
		int32_t *l = realloc(cl->hlog, (size_t)cap * sizeof *l);
		if (!l) {
			cl->hlog_all = true;
			return;
		}
		cl->hlog = l;
		cl->caphlog = cap;
	}
	cl->hlogged[node] = 1;
	cl->hlog[cl->nhlog++] = node;
}

static int cmp_run_idx(const void *a, const void *b, void *ctx)
{
	const struct job *jobs = ctx;
	int32_t x = jobs[*(const int32_t *)a].run_idx, y = jobs[*(const int32_t *)b].run_idx;
	return (x > y) - (x < y);
}

/* The running jobs on `node`, in running-list order (as a walk of the
 * running list meets them), into s->onbuf; their number, -1 when memory
 * runs out. */
int eng_onnode_build(struct sim *s)
{
	s->onnode_live = true;
	for (int32_t k = 0; k < s->nrunning; k++) {
		const struct job *j = &s->jobs[s->running[k]];
		if (j->nparts > 0 && eng_onnode_add(s, &s->cl.pool.p[j->parts], j->nparts, j->id))
			return eng_fail(s, "out of memory indexing the running jobs' nodes");
	}
	return 0;
}

int32_t eng_onnode_sorted(struct sim *s, int32_t node)
{
	if (!s->onnode_live && eng_onnode_build(s))
		return -1;
	const struct nodejobs *o = &s->onnode[node];
	if (o->n > s->cap_onbuf) {
		int32_t *b = realloc(s->onbuf, (size_t)o->cap * sizeof *b);
		if (!b)
			return -1;
		s->onbuf = b;
		s->cap_onbuf = o->cap;
	}
	if (o->n == 0)
		return 0;
	memcpy(s->onbuf, o->id, (size_t)o->n * sizeof *s->onbuf);
	qsort_r(s->onbuf, (size_t)o->n, sizeof *s->onbuf, cmp_run_idx, s->jobs);
	return o->n;
}

/* Puts job id into the pending list at its place by submit time (the list
 * is in submit order; a requeued or released job keeps its submit time). */
void eng_pending_insert(struct sim *s, int32_t id)
{
	int32_t lo = 0, hi = s->npending;
	const struct job *j = &s->jobs[id];
	while (lo < hi) {
		int32_t mid = (lo + hi) / 2;
		const struct job *m = &s->jobs[s->pending[mid]];
		if (m->submit_us < j->submit_us || (m->submit_us == j->submit_us && m->id < j->id))
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&s->pending[lo + 1], &s->pending[lo], (size_t)(s->npending - lo) * sizeof *s->pending);
	s->pending[lo] = id;
	s->npending++;
	s->dirty = true;
}
