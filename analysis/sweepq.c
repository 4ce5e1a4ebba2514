/* sweepq — longest-first order of a sweep's runs. See sweepq.h. */
#include "analysis/sweepq.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int sweepq_init(struct sweepq *q, size_t npoint, size_t nseed, const size_t *k, size_t nk)
{
	memset(q, 0, sizeof *q);
	q->nseed = nseed ? nseed : 1;
	q->npoint = npoint;
	q->pending = malloc((nk ? nk : 1) * sizeof *q->pending);
	q->pt = calloc(npoint ? npoint : 1, sizeof *q->pt);
	if (!q->pending || !q->pt) {
		sweepq_fini(q);
		return -1;
	}
	if (nk)
		memcpy(q->pending, k, nk * sizeof *k);
	q->npending = q->left = nk;
	/* Each point's runs are one stretch of the ascending ids. */
	for (size_t i = 0; i < npoint; i++)
		q->pt[i].head = q->pt[i].end = SIZE_MAX;   /* none */
	for (size_t j = nk; j-- > 0;) {
		struct sweepq_point *p = &q->pt[k[j] / q->nseed];
		if (p->end == SIZE_MAX)
			p->end = j + 1;
		p->head = j;
	}
	return 0;
}

/* Which of two points with runs left goes first: 1 when a, else 0. */
static int before(const struct sweepq_point *a, const struct sweepq_point *b)
{
	int ra = a->started == 0 ? 2 : a->finished == 0 ? 1 : 0;
	int rb = b->started == 0 ? 2 : b->finished == 0 ? 1 : 0;
	if (ra != rb)
		return ra > rb;
	if (ra)
		return 0;   /* both unknown: grid order */
	/* The longer mean first: a->seconds / a->finished > b->seconds / b->finished. */
	return a->seconds * (double)b->finished > b->seconds * (double)a->finished;
}

size_t sweepq_next(struct sweepq *q)
{
	struct sweepq_point *best = NULL;
	for (size_t i = 0; i < q->npoint; i++) {
		struct sweepq_point *p = &q->pt[i];
		if (p->head < p->end && (!best || before(p, best)))
			best = p;
	}
	if (!best)
		return SIZE_MAX;
	best->started++;
	q->left--;
	return q->pending[best->head++];
}

void sweepq_undo(struct sweepq *q, size_t k)
{
	struct sweepq_point *p = &q->pt[k / q->nseed];
	p->head--;
	p->started--;
	q->left++;
}

void sweepq_done(struct sweepq *q, size_t k, double seconds)
{
	size_t i = k / q->nseed;
	if (i >= q->npoint)
		return;
	q->pt[i].finished++;
	q->pt[i].seconds += seconds > 0 ? seconds : 0;
}

void sweepq_fini(struct sweepq *q)
{
	free(q->pending);
	free(q->pt);
	memset(q, 0, sizeof *q);
}
