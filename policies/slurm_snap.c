/* slurm_snap — the slurm policy's snapshot hooks (policy_ops.save / load,
 * slurm_int.h). What it keeps between calls, as slurm_renum.c lists it:
 * the per-job records (priority, configuration indexes, times, flags,
 * their will-run slot and mark), the victims watched for their requeue,
 * the jobs to hold, the arrivals not yet settled; and what holds no job
 * id: slurmctld's clocks and the queues of times, what the last main and
 * backfill passes saw, the limit counters, the nodes in service,
 * priority/multifactor's associations, the serials and stamps the records
 * are compared with, the placer. The will-run lists are forgotten and
 * rebuilt by the next cycle, as after a renumbering (sl_will_run_forget);
 * a pass's queue and scratch are not saved. */
#include "policies/slurm_int.h"

#include <stdlib.h>

#define PUT(w, x) snap_put((w), &(x), sizeof(x))
#define GET(r, x) snap_get((r), &(x), sizeof(x))

static void put_fifo(struct snapw *w, const struct sl_fifo *f)
{
	snap_put_n(w, f->n);
	for (int32_t k = 0; k < f->n; k++)
		snap_put_i64(w, f->t[(f->head + k) % f->cap]);
}

static int get_fifo(struct snapr *r, struct sl_fifo *f)
{
	int64_t n = snap_get_n(r, INT32_MAX / 4, "a queue of times");
	if (n < 0)
		return -1;
	f->n = f->head = 0;
	for (int64_t k = 0; k < n; k++)
		if (sl_fifo_push(f, snap_get_i64(r)))
			return snap_bad(r, "out of memory");
	return r->bad ? -1 : 0;
}

static void put_seen(struct snapw *w, const struct sl *st, const struct sl_seen *s)
{
	PUT(w, s->nchange);
	PUT(w, s->epoch);
	PUT(w, s->acted);
	PUT(w, s->full);
	snap_put(w, s->up, (size_t)st->nw * 8);
}

static void get_seen(struct snapr *r, const struct sl *st, struct sl_seen *s)
{
	GET(r, s->nchange);
	GET(r, s->epoch);
	GET(r, s->acted);
	GET(r, s->full);
	snap_get(r, s->up, (size_t)st->nw * 8);
}

static size_t n_uuse(const struct sl *st)
{
	return ((size_t)st->cfg->nqos + 1) * ((size_t)st->nusers + 1);
}

int sl_snap_save(void *state, const struct view *v, struct snapw *w)
{
	const struct sl *st = state;
	int32_t nj = v->njobs < st->cap_job ? v->njobs : st->cap_job;   /* the records above are zero */
	snap_put_tag(w, "slurm");
	snap_put_n(w, st->n);
	snap_put_n(w, nj);
	snap_put(w, st->job, (size_t)nj * sizeof *st->job);
	PUT(w, st->basic_next);
	snap_put_n(w, st->nvictims);
	snap_put(w, st->victims, (size_t)st->nvictims * sizeof *st->victims);
	snap_put_n(w, st->nnever);
	snap_put(w, st->nevers, (size_t)st->nnever * sizeof *st->nevers);
	snap_put_n(w, st->nnew);
	snap_put(w, st->newjobs, (size_t)st->nnew * sizeof *st->newjobs);
	snap_put(w, st->newsub, (size_t)st->nnew * sizeof *st->newsub);
	PUT(w, st->ctld_us);
	PUT(w, st->last_bg_us);
	PUT(w, st->last_full_us);
	PUT(w, st->tick_us);
	PUT(w, st->next_full_us);
	PUT(w, st->next_decay_us);
	PUT(w, st->next_bf_us);
	PUT(w, st->sched_req_us);
	PUT(w, st->imm_us);
	PUT(w, st->last_bf_us);
	PUT(w, st->change_us);
	PUT(w, st->nchange);
	for (int k = 0; k < 3; k++)
		put_fifo(w, &st->timed[k]);
	put_fifo(w, &st->arrive_req);
	PUT(w, st->bf_poll_us);
	put_seen(w, st, &st->main_seen);
	put_seen(w, st, &st->bf_seen);
	PUT(w, st->bf_planned);
	PUT(w, st->armed_us);
	PUT(w, st->idle_cycles);
	PUT(w, st->acted);
	snap_put(w, st->quse, ((size_t)st->cfg->nqos + 1) * sizeof *st->quse);
	snap_put(w, st->ause, ((size_t)st->cfg->nassoc + 1) * sizeof *st->ause);
	snap_put(w, st->uuse, n_uuse(st) * sizeof *st->uuse);
	snap_put(w, st->up, (size_t)st->nw * 8);
	PUT(w, st->tau_cycle);
	PUT(w, st->tau_serial);
	PUT(w, st->list_ver);
	PUT(w, st->memo_stamp);
	PUT(w, st->stamp);
	sl_prio_save(st, w);
	placer_save(&st->pl, w);
	return 0;
}

int sl_snap_load(void *state, const struct view *v, struct snapr *r)
{
	(void)v;
	struct sl *st = state;
	if (snap_get_tag(r, "slurm"))
		return -1;
	int64_t n = snap_get_n(r, INT32_MAX, "the nodes");
	int64_t cap = snap_get_n(r, INT32_MAX / 4, "the job records");
	if (n < 0 || cap < 0)
		return -1;
	if (n != st->n)
		return snap_bad(r, "%lld nodes, this run has %d", (long long)n, st->n);
	if (cap > 0 && sl_grow_jobs(st, (int32_t)cap - 1))
		return snap_bad(r, "out of memory");
	memset(st->job, 0, (size_t)st->cap_job * sizeof *st->job);
	snap_get(r, st->job, (size_t)cap * sizeof *st->job);
	GET(r, st->basic_next);
	int64_t nv = snap_get_n(r, cap, "the victims");
	if (nv < 0)
		return -1;
	if (nv > st->cap_victims) {
		int32_t *x = realloc(st->victims, (size_t)nv * sizeof *x);
		if (!x)
			return snap_bad(r, "out of memory");
		st->victims = x;
		st->cap_victims = (int32_t)nv;
	}
	st->nvictims = (int32_t)nv;
	snap_get(r, st->victims, (size_t)nv * sizeof *st->victims);
	int64_t nn = snap_get_n(r, st->cap_job, "the jobs to hold");
	if (nn < 0)
		return -1;
	st->nnever = (int32_t)nn;
	snap_get(r, st->nevers, (size_t)nn * sizeof *st->nevers);
	int64_t nw = snap_get_n(r, st->cap_job, "the arrivals not settled");
	if (nw < 0)
		return -1;
	st->nnew = (int32_t)nw;
	snap_get(r, st->newjobs, (size_t)nw * sizeof *st->newjobs);
	snap_get(r, st->newsub, (size_t)nw * sizeof *st->newsub);
	GET(r, st->ctld_us);
	GET(r, st->last_bg_us);
	GET(r, st->last_full_us);
	GET(r, st->tick_us);
	GET(r, st->next_full_us);
	GET(r, st->next_decay_us);
	GET(r, st->next_bf_us);
	GET(r, st->sched_req_us);
	GET(r, st->imm_us);
	GET(r, st->last_bf_us);
	GET(r, st->change_us);
	GET(r, st->nchange);
	for (int k = 0; k < 3; k++)
		if (get_fifo(r, &st->timed[k]))
			return -1;
	if (get_fifo(r, &st->arrive_req))
		return -1;
	GET(r, st->bf_poll_us);
	get_seen(r, st, &st->main_seen);
	get_seen(r, st, &st->bf_seen);
	GET(r, st->bf_planned);
	GET(r, st->armed_us);
	GET(r, st->idle_cycles);
	GET(r, st->acted);
	snap_get(r, st->quse, ((size_t)st->cfg->nqos + 1) * sizeof *st->quse);
	snap_get(r, st->ause, ((size_t)st->cfg->nassoc + 1) * sizeof *st->ause);
	snap_get(r, st->uuse, n_uuse(st) * sizeof *st->uuse);
	snap_get(r, st->up, (size_t)st->nw * 8);
	GET(r, st->tau_cycle);
	GET(r, st->tau_serial);
	GET(r, st->list_ver);
	GET(r, st->memo_stamp);
	GET(r, st->stamp);
	if (r->bad || sl_prio_load(st, r) || placer_load(&st->pl, r))
		return -1;
	st->nq = 0;
	st->ncands = 0;
	sl_will_run_forget(st);
	return 0;
}
