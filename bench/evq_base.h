/* evq_base — the event queue as it was at commit bae9ac3 (a 4-ary heap
 * behind two rungs of realloc-grown time-bucket arrays), kept for
 * bench/evq_hold to measure the current queue (sim/evq.c) against in the same
 * run. Bench-only, header-only (every bench/X.c is its own program); the
 * code is the old sim/evq.c with its names prefixed evqb_ / qb_. */
#ifndef HL_BENCH_EVQ_BASE_H
#define HL_BENCH_EVQ_BASE_H

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "sim/evq.h"   /* struct ev */

#define EVQB_SMALL 4096

struct evqb_bucket {
	struct ev *e;
	uint32_t n, cap;
};

/* Buckets [cur, nb) of width `width` from `base` are still to come; the
 * rung covers [base, end) (the last bucket may be cut short at end). */
struct evqb_rung {
	struct evqb_bucket *b;
	int32_t nb, cap, cur;
	int32_t shift;              /* width = 2^shift, so a push shifts, not divides */
	simtime base, width, end;
};

struct evqb {
	struct ev *h;               /* the heap: events with t < horizon */
	size_t n, cap;
	uint64_t next_seq;
	simtime horizon;
	struct evqb_rung coarse, fine;
	struct evqb_bucket over;       /* events at or past the coarse rung's end */
	size_t nwaiting;            /* events in rungs and overflow */
	bool oom;                   /* a pop failed for want of memory */
};

#define QB_D 4
#define QB_COARSE_PER_BUCKET 2048
#define QB_FINE_PER_BUCKET 16
#define QB_POUR_DIRECT 64           /* a coarse bucket this small goes straight to the heap */
#define QB_MAX_BUCKETS (1 << 16)

static inline int qb_ev_less(const struct ev *a, const struct ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int evqb_init(struct evqb *q, size_t cap)
{
	memset(q, 0, sizeof *q);
	if (cap < 64)
		cap = 64;
	if (cap > EVQB_SMALL)
		cap = EVQB_SMALL;   /* past it, events wait in the rungs */
	q->h = malloc(cap * sizeof *q->h);
	if (!q->h)
		return -1;
	q->cap = cap;
	q->horizon = INT64_MAX;   /* small: a plain heap */
	return 0;
}

static void qb_rung_fini(struct evqb_rung *r)
{
	for (int k = 0; k < r->cap; k++)
		free(r->b[k].e);
	free(r->b);
}

static void evqb_fini(struct evqb *q)
{
	free(q->h);
	qb_rung_fini(&q->coarse);
	qb_rung_fini(&q->fine);
	free(q->over.e);
	memset(q, 0, sizeof *q);
}

static int qb_heap_reserve(struct evqb *q, size_t need)
{
	if (need <= q->cap)
		return 0;
	size_t cap = q->cap;
	while (cap < need)
		cap *= 2;
	struct ev *h = realloc(q->h, cap * sizeof *h);
	if (!h)
		return -1;
	q->h = h;
	q->cap = cap;
	return 0;
}

static void qb_heap_insert(struct evqb *q, const struct ev *e)
{
	size_t i = q->n++;
	while (i > 0) {
		size_t p = (i - 1) / QB_D;
		if (!qb_ev_less(e, &q->h[p]))
			break;
		q->h[i] = q->h[p];
		i = p;
	}
	q->h[i] = *e;
}

static int qb_bucket_reserve(struct evqb_bucket *b, uint32_t need)
{
	if (need <= b->cap)
		return 0;
	uint32_t cap = b->cap ? b->cap : 16;
	while (cap < need)
		cap *= 2;
	struct ev *ne = realloc(b->e, (size_t)cap * sizeof *ne);
	if (!ne)
		return -1;
	b->e = ne;
	b->cap = cap;
	return 0;
}

static inline simtime qb_rung_end(const struct evqb_rung *r)
{
	return r->end;
}

static inline struct evqb_bucket *qb_rung_bucket(const struct evqb_rung *r, simtime t)
{
	return &r->b[((uint64_t)t - (uint64_t)r->base) >> r->shift];
}

static int evqb_push(struct evqb *q, simtime t, uint32_t kind, int32_t id, uint32_t ver, int32_t arg)
{
	struct ev e = { .t = t, .seq = q->next_seq, .kind = kind, .ver = ver, .id = id, .arg = arg };
	struct evqb_bucket *b;
	if (t < q->horizon) {
		if (qb_heap_reserve(q, q->n + 1))
			return -1;
		qb_heap_insert(q, &e);
		q->next_seq++;
		if (q->horizon == INT64_MAX && q->n >= EVQB_SMALL &&
		    qb_bucket_reserve(&q->over, q->over.n + (uint32_t)q->n) == 0) {
			/* Grown large: everything waits in the overflow until the
			 * next pop lays rungs over it (a failed grow just leaves
			 * the queue a plain heap a while longer). */
			memcpy(q->over.e + q->over.n, q->h, q->n * sizeof *q->h);
			q->over.n += (uint32_t)q->n;
			q->nwaiting += q->n;
			q->n = 0;
			q->horizon = INT64_MIN;
		}
		return 0;
	}
	if (q->fine.cur < q->fine.nb && t < qb_rung_end(&q->fine))
		b = qb_rung_bucket(&q->fine, t);
	else if (q->coarse.cur < q->coarse.nb && t < qb_rung_end(&q->coarse))
		b = qb_rung_bucket(&q->coarse, t);
	else
		b = &q->over;
	if (qb_bucket_reserve(b, b->n + 1))
		return -1;
	b->e[b->n++] = e;
	q->nwaiting++;
	q->next_seq++;
	return 0;
}

/* Lays rung r over [lo, lo + span) with about `per` of n events a bucket,
 * and moves src's events into it; src is left empty. Sizes every bucket
 * first (a counting pass), so that running out of memory leaves src as it
 * was. -1 on ENOMEM. */
static int qb_spread(struct evqb_rung *r, struct evqb_bucket *src, simtime lo, uint64_t span, uint32_t per)
{
	int32_t nb = 1;
	while (nb < QB_MAX_BUCKETS && (uint64_t)nb * per < src->n && (uint64_t)nb < span)
		nb *= 2;
	if (nb > r->cap) {
		struct evqb_bucket *b = realloc(r->b, (size_t)nb * sizeof *b);
		if (!b)
			return -1;
		memset(b + r->cap, 0, (size_t)(nb - r->cap) * sizeof *b);
		r->b = b;
		r->cap = nb;
	}
	/* Width: the power of two at or above span / nb; then only as many
	 * buckets as cover the span. */
	uint64_t w = span / (uint64_t)nb + (span % (uint64_t)nb != 0);
	int32_t shift = 0;
	while ((1ull << shift) < w)
		shift++;
	r->shift = shift;
	r->width = (simtime)(1ull << shift);
	r->nb = (int32_t)((span + (1ull << shift) - 1) >> shift);
	nb = r->nb;
	r->cur = 0;
	r->base = lo;
	r->end = (simtime)((uint64_t)lo + span);
	/* Counting pass: n holds the count, then the bucket is sized. */
	for (int32_t k = 0; k < nb; k++)
		r->b[k].n = 0;
	for (uint32_t i = 0; i < src->n; i++)
		qb_rung_bucket(r, src->e[i].t)->n++;
	for (int32_t k = 0; k < nb; k++) {
		uint32_t need = r->b[k].n;
		r->b[k].n = 0;
		if (qb_bucket_reserve(&r->b[k], need)) {
			r->nb = r->cur = 0;
			return -1;
		}
	}
	for (uint32_t i = 0; i < src->n; i++) {
		struct evqb_bucket *b = qb_rung_bucket(r, src->e[i].t);
		b->e[b->n++] = src->e[i];
	}
	src->n = 0;
	return 0;
}

static int qb_pour(struct evqb *q, struct evqb_bucket *b)
{
	if (qb_heap_reserve(q, q->n + b->n))
		return -1;
	for (uint32_t i = 0; i < b->n; i++)
		qb_heap_insert(q, &b->e[i]);
	q->nwaiting -= b->n;
	b->n = 0;
	return 0;
}

/* Moves waiting events into the heap until it holds one; 1, 0 when the
 * queue is empty, -1 on ENOMEM (nothing moved that a retry would miss). */
static int qb_refill(struct evqb *q)
{
	struct evqb_rung *c = &q->coarse, *f = &q->fine;
	while (q->n == 0) {
		if (q->nwaiting == 0) {
			/* Nothing waits: back to a plain heap. */
			q->horizon = INT64_MAX;
			c->cur = c->nb;
			f->cur = f->nb;
			return 0;
		}
		if (f->cur < f->nb) {
			struct evqb_bucket *b = &f->b[f->cur];
			if (b->n && qb_pour(q, b))
				goto oom;
			f->cur++;
			q->horizon = f->cur == f->nb ? qb_rung_end(f) : f->base + (simtime)f->cur * f->width;
			continue;
		}
		if (c->cur < c->nb) {
			struct evqb_bucket *b = &c->b[c->cur];
			simtime lo = c->base + (simtime)c->cur * c->width;
			/* The last bucket is cut short at the rung's end: events past
			 * it are in the overflow and must stay after this bucket. */
			simtime hi = c->end - lo < c->width ? c->end : lo + c->width;
			if (b->n <= QB_POUR_DIRECT || hi - lo == 1) {
				if (b->n && qb_pour(q, b))
					goto oom;
			} else {
				if (qb_spread(f, b, lo, (uint64_t)(hi - lo), QB_FINE_PER_BUCKET))
					goto oom;
			}
			c->cur++;
			/* The fine rung (if laid) ends where this bucket ends. */
			q->horizon = f->cur < f->nb ? lo : hi;
			continue;
		}
		/* Both rungs spent: lay a coarse rung over the overflow, which
		 * then holds every waiting event (anything else is a bug). */
		assert(q->over.n == q->nwaiting && q->over.n > 0);
		simtime lo = INT64_MAX, hi = INT64_MIN;
		for (uint32_t i = 0; i < q->over.n; i++) {
			if (q->over.e[i].t < lo) lo = q->over.e[i].t;
			if (q->over.e[i].t > hi) hi = q->over.e[i].t;
		}
		if (qb_spread(c, &q->over, lo, (uint64_t)hi - (uint64_t)lo + 1, QB_COARSE_PER_BUCKET))
			goto oom;
		q->horizon = lo;
	}
	q->oom = false;
	return 1;
oom:
	q->oom = true;
	return -1;
}

static const struct ev *evqb_peek(struct evqb *q)
{
	return qb_refill(q) > 0 ? &q->h[0] : NULL;
}

static int evqb_pop(struct evqb *q, struct ev *out)
{
	int r = qb_refill(q);
	if (r <= 0)
		return r;
	*out = q->h[0];
	if (q->nwaiting == 0 && q->horizon != INT64_MAX) {
		q->horizon = INT64_MAX;   /* all poured: a plain heap again */
		q->coarse.cur = q->coarse.nb;
		q->fine.cur = q->fine.nb;
	}
	struct ev last = q->h[--q->n];
	size_t n = q->n, i = 0;
	for (;;) {
		size_t c = i * QB_D + 1;
		if (c >= n)
			break;
		size_t best = c, end = c + QB_D < n ? c + QB_D : n;
		for (size_t k = c + 1; k < end; k++)
			if (qb_ev_less(&q->h[k], &q->h[best]))
				best = k;
		if (!qb_ev_less(&q->h[best], &last))
			break;
		q->h[i] = q->h[best];
		i = best;
	}
	if (n)
		q->h[i] = last;
	return 1;
}

static inline size_t evqb_len(const struct evqb *q) { return q->n + q->nwaiting; }

#endif
