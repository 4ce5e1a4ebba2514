/* slurm_clock — the slurm policy's small queues of times (slurm_int.h):
 * changes that time alone makes (a job arriving within its second, a
 * requeued job's begin time, a preemptor's quiet time ending) and the
 * arrivals' requests for a pass, each kind in time order. A leaf: it calls
 * no other file of the policy. */
#include "policies/slurm_int.h"

#include <stdlib.h>

int sl_fifo_push(struct sl_fifo *f, simtime t)
{
	if (f->n == f->cap) {
		int32_t ncap = f->cap ? f->cap * 2 : 64;
		simtime *nt = malloc((size_t)ncap * sizeof *nt);
		if (!nt)
			return -1;
		for (int32_t k = 0; k < f->n; k++)
			nt[k] = f->t[(f->head + k) % f->cap];
		free(f->t);
		f->t = nt;
		f->head = 0;
		f->cap = ncap;
	}
	f->t[(f->head + f->n++) % f->cap] = t;
	return 0;
}

/* Drops the times at or before t; whether it dropped any. */
bool sl_fifo_pop_to(struct sl_fifo *f, simtime t)
{
	bool any = false;
	while (f->n > 0 && f->t[f->head] <= t) {
		f->head = (f->head + 1) % f->cap;
		f->n--;
		any = true;
	}
	return any;
}

int sl_change_at(struct sl *st, int kind, simtime t)
{
	return t > st->v->now ? sl_fifo_push(&st->timed[kind], t) : 0;
}
