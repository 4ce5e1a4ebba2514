/* evq — a 4-ary heap, a sorted bottom and a rung of time buckets made of
 * pooled blocks; see evq.h. */
#include "sim/evq.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define D 4
#define PER_BUCKET_MIN 32        /* events in each of the rung's first buckets, about: */
#define PER_BUCKET_MAX 2048      /* n / 512 within these bounds */
#define MAX_BUCKETS (1 << 16)
#define EVENTS_PER_BUCKET 8      /* a rung has at most one bucket per this many events */
#define SLAB_MIN 64              /* blocks in the first slab; later ones double the pool */
#define SAMPLE 1024              /* times sampled to choose the rung's width */
#define RUN_INSERTION 32         /* runs of equal keys up to this long: insertion sort */

struct evslab {
	struct evslab *next;
	char pad[64 - sizeof(struct evslab *)];   /* blocks start on a cache line */
	struct evblock b[];
};

static inline int ev_less(const struct ev *a, const struct ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int evq_init(struct evq *q, size_t cap)
{
	memset(q, 0, sizeof *q);
	if (cap < 64)
		cap = 64;
	if (cap > EVQ_SMALL)
		cap = EVQ_SMALL;   /* past it, events wait in the rung */
	q->h = malloc(cap * sizeof *q->h);
	if (!q->h)
		return -1;
	q->cap = cap;
	q->horizon = INT64_MAX;   /* small: a plain heap */
	q->over_lo = INT64_MAX;
	q->over_hi = INT64_MIN;
	return 0;
}

void evq_fini(struct evq *q)
{
	free(q->h);
	free(q->s);
	free(q->cnt);
	free(q->rung.b);
	for (struct evslab *s = q->slabs, *nx; s; s = nx) {
		nx = s->next;
		free(s);
	}
	memset(q, 0, sizeof *q);
}

/* --- the block pool ------------------------------------------------------ */

/* Makes sure at least `need` blocks are free: one slab as large as the
 * pool (at least `need` and SLAB_MIN). 0, or -1 when memory runs out. */
static int pool_reserve(struct evq *q, size_t need)
{
	if (q->nfree >= need)
		return 0;
	size_t k = q->nblocks > SLAB_MIN ? q->nblocks : SLAB_MIN;
	if (k < need - q->nfree)
		k = need - q->nfree;
	struct evslab *s = aligned_alloc(64, sizeof *s + k * sizeof s->b[0]);   /* a multiple of 64 */
	if (!s)
		return -1;
	s->next = q->slabs;
	q->slabs = s;
	/* Linked so that the slab's first block is handed out first. */
	for (size_t i = k; i-- > 0;) {
		s->b[i].next = q->free;
		q->free = &s->b[i];
	}
	q->nfree += k;
	q->nblocks += k;
	return 0;
}

static inline void block_put(struct evq *q, struct evblock *k)
{
	k->next = q->free;
	q->free = k;
	q->nfree++;
}

/* Asks for a block's first n events ahead of reading them: a bucket's
 * blocks lie anywhere in the pool and were written long ago, so the
 * hardware prefetcher, which follows streams, misses the jump to each. */
static inline void block_prefetch(const struct evblock *k, uint32_t n)
{
	if (!k)
		return;
	const char *p = (const char *)k, *end = (const char *)(k->e + n);
	for (; p < end; p += 64)
		__builtin_prefetch(p);
}

/* Appends e to bucket b. 0, or -1 when no block can be had (b unchanged). */
static inline int bucket_add(struct evq *q, struct evbucket *b, const struct ev *e)
{
	struct evblock *k = b->head;
	if (!k || b->hn == EVQ_BLOCK) {
		if (!q->free && pool_reserve(q, 1))
			return -1;
		k = q->free;
		q->free = k->next;
		q->nfree--;
		k->next = b->head;
		b->head = k;
		b->hn = 0;
	}
	k->e[b->hn++] = *e;
	b->n++;
	return 0;
}

/* --- the heap ------------------------------------------------------------ */

static int grow(struct ev **a, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	struct ev *na = realloc(*a, c * sizeof *na);
	if (!na)
		return -1;
	*a = na;
	*cap = c;
	return 0;
}

static inline void heap_insert(struct evq *q, const struct ev *e)
{
	size_t i = q->n++;
	while (i > 0) {
		size_t p = (i - 1) / D;
		if (!ev_less(e, &q->h[p]))
			break;
		q->h[i] = q->h[p];
		i = p;
	}
	q->h[i] = *e;
}

/* Takes the root of the heap into *out. */
static void heap_pop(struct evq *q, struct ev *out)
{
	*out = q->h[0];
	struct ev last = q->h[--q->n];
	size_t n = q->n, i = 0;
	for (;;) {
		size_t c = i * D + 1;
		if (c >= n)
			break;
		size_t best = c, end = c + D < n ? c + D : n;
		for (size_t k = c + 1; k < end; k++)
			if (ev_less(&q->h[k], &q->h[best]))
				best = k;
		if (!ev_less(&q->h[best], &last))
			break;
		q->h[i] = q->h[best];
		i = best;
	}
	if (n)
		q->h[i] = last;
}

/* --- pushes -------------------------------------------------------------- */

static inline struct evbucket *rung_bucket(const struct evrung *r, simtime t)
{
	return &r->b[((uint64_t)t - (uint64_t)r->base) >> r->shift];
}

static inline void over_add_span(struct evq *q, simtime t)
{
	if (t < q->over_lo)
		q->over_lo = t;
	if (t > q->over_hi)
		q->over_hi = t;
}

/* The heap has grown large: everything it holds moves to the overflow,
 * for the next pop to lay a rung over (when the blocks cannot be had the
 * queue just stays a plain heap a while longer). */
static void go_large(struct evq *q)
{
	if (pool_reserve(q, q->n / EVQ_BLOCK + 1))
		return;
	for (size_t i = 0; i < q->n; i++) {
		int rc = bucket_add(q, &q->over, &q->h[i]);
		assert(rc == 0);   /* reserved above */
		(void)rc;
		over_add_span(q, q->h[i].t);
	}
	q->nwaiting += q->n;
	q->n = 0;
	q->horizon = INT64_MIN;
}

/* The push when the fast path of evq_push cannot: into the heap, into the
 * overflow, or into a bucket whose head block is full. */
static __attribute__((noinline)) int push_slow(struct evq *q, struct evbucket *b, const struct ev *e)
{
	if (!b) {
		if (grow(&q->h, &q->cap, q->n + 1))
			return -1;
		heap_insert(q, e);
		q->next_seq++;
		if (q->horizon == INT64_MAX && q->n >= EVQ_SMALL)
			go_large(q);
		return 0;
	}
	if (bucket_add(q, b, e))
		return -1;
	if (b == &q->over)
		over_add_span(q, e->t);
	q->nwaiting++;
	q->next_seq++;
	return 0;
}

int evq_push(struct evq *q, simtime t, uint32_t kind, int32_t id, uint32_t ver, int32_t arg)
{
	struct ev e = { .t = t, .seq = q->next_seq, .kind = kind, .ver = ver, .id = id, .arg = arg };
	struct evbucket *b;
	if (t < q->horizon) {
		/* Fast path of a plain heap. */
		if (q->n < q->cap && q->horizon == INT64_MAX && q->n + 1 < EVQ_SMALL) {
			heap_insert(q, &e);
			q->next_seq++;
			return 0;
		}
		b = NULL;
	} else if (q->rung.cur < q->rung.nb && t < q->rung.end) {
		b = rung_bucket(&q->rung, t);
		/* Fast path: an append to a bucket's head block. */
		if (b->head && b->hn < EVQ_BLOCK) {
			b->head->e[b->hn++] = e;
			b->n++;
			q->nwaiting++;
			q->next_seq++;
			return 0;
		}
	} else {
		b = &q->over;
	}
	return push_slow(q, b, &e);
}

/* --- laying the rung ----------------------------------------------------- */

static int cmp_time(const void *a, const void *b)
{
	simtime x = *(const simtime *)a, y = *(const simtime *)b;
	return (x > y) - (x < y);
}

/* Bucket width for a rung over src (times from lo): about the distance
 * from lo within which `per` of its events lie, estimated from a sample of
 * SAMPLE times taken at an even stride. Uniform widths over the whole span
 * would put most events in the first buckets when the times are skewed (an
 * exponential spread: the hold model, a queue of job ends); this keeps the
 * first buckets near `per`. 0 when src is too small for the estimate to
 * matter. */
static simtime front_width(const struct evbucket *src, simtime lo, uint32_t per)
{
	if (src->n < 4 * (uint64_t)per)
		return 0;
	simtime t[SAMPLE];
	uint64_t stride = src->n / SAMPLE ? src->n / SAMPLE : 1, next = 0, base = 0;
	uint32_t ns = 0;
	uint32_t kn = src->hn;
	for (const struct evblock *k = src->head; k && ns < SAMPLE; base += kn, k = k->next, kn = EVQ_BLOCK)
		for (; next < base + kn && ns < SAMPLE; next += stride)
			t[ns++] = k->e[next - base].t;
	qsort(t, ns, sizeof *t, cmp_time);
	/* The per-th of n events is about the (ns per / n)-th of the sample;
	 * when that is below the sample's resolution, take its 8th and scale
	 * down (the density near the front is about even). */
	double want = (double)ns * per / (double)src->n;
	uint32_t at = want < 8 ? 8 : (uint32_t)want;
	if (at >= ns)
		at = ns - 1;
	double w = (double)(t[at] - lo) * (want < 8 ? want / 8 : 1);
	return w < 1 ? 1 : (simtime)w;
}

/* Lays the rung over [lo, lo + span) and moves the overflow's events into
 * it, giving each block back as it is read; the overflow is left empty.
 * Buckets are a power of two wide: front_width's estimate for `per` = n /
 * 512 events (within PER_BUCKET_MIN and _MAX: a bucket is what the heap
 * competes with while it is consumed, so a small queue, whose pushes land
 * soon in its terms, wants few events a bucket), else about `per` events a
 * bucket on average; and no more buckets than MAX_BUCKETS or one per
 * EVENTS_PER_BUCKET events (each non-empty bucket holds a block). Everything that can fail (the bucket array, the blocks: at
 * most one partly filled block more per bucket than the overflow held, plus
 * the one being read) is had first, so that running out of memory leaves
 * the overflow as it was. -1 on ENOMEM. */
static int lay_rung(struct evq *q, simtime lo, uint64_t span)
{
	struct evrung *r = &q->rung;
	struct evbucket *src = &q->over;
	uint64_t per = src->n / 512, maxb = src->n / EVENTS_PER_BUCKET;
	per = per < PER_BUCKET_MIN ? PER_BUCKET_MIN : per > PER_BUCKET_MAX ? PER_BUCKET_MAX : per;
	maxb = maxb < 16 ? 16 : maxb > MAX_BUCKETS ? MAX_BUCKETS : maxb;
	uint64_t w = (uint64_t)front_width(src, lo, (uint32_t)per);
	if (w == 0) {
		uint64_t nbw = 1;
		while (nbw < maxb && nbw * per < src->n && nbw < span)
			nbw *= 2;
		w = span / nbw + (span % nbw != 0);
	}
	if (w < span / maxb + (span % maxb != 0))
		w = span / maxb + (span % maxb != 0);
	int32_t shift = 0;
	while ((1ull << shift) < w)
		shift++;
	int32_t nb = (int32_t)((span + (1ull << shift) - 1) >> shift);
	if (nb > r->cap) {
		int32_t cap = r->cap ? r->cap : 16;
		while (cap < nb)
			cap *= 2;
		struct evbucket *b = realloc(r->b, (size_t)cap * sizeof *b);
		if (!b)
			return -1;
		r->b = b;
		r->cap = cap;
	}
	if (pool_reserve(q, (size_t)nb + 2))
		return -1;
	r->shift = shift;
	r->width = (simtime)(1ull << shift);
	r->nb = nb;
	r->cur = 0;
	r->base = lo;
	r->end = (simtime)((uint64_t)lo + span);
	memset(r->b, 0, (size_t)nb * sizeof *r->b);
	block_prefetch(src->head, src->hn);
	uint32_t kn = src->hn;
	for (struct evblock *k = src->head, *nx; k; k = nx, kn = EVQ_BLOCK) {
		nx = k->next;
		block_prefetch(nx, EVQ_BLOCK);
		for (uint32_t i = 0; i < kn; i++) {
			int rc = bucket_add(q, rung_bucket(r, k->e[i].t), &k->e[i]);
			assert(rc == 0);   /* reserved above */
			(void)rc;
		}
		block_put(q, k);
	}
	src->head = NULL;
	src->n = src->hn = 0;
	q->over_lo = INT64_MAX;
	q->over_hi = INT64_MIN;
	return 0;
}

/* --- sorting a bucket into the bottom ------------------------------------ */

static int cmp_ev(const void *a, const void *b)
{
	return ev_less(a, b) ? -1 : ev_less(b, a);
}

static void sort_run(struct ev *e, size_t n)
{
	if (n > RUN_INSERTION) {
		qsort(e, n, sizeof *e, cmp_ev);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct ev x = e[i];
		size_t j = i;
		for (; j > 0 && ev_less(&x, &e[j - 1]); j--)
			e[j] = e[j - 1];
		e[j] = x;
	}
}

/* Sorts bucket b (times in [lo, lo + 2^shift)) into the empty bottom: a
 * counting sort on key = (t - lo) >> ks over about as many keys as events,
 * then each run of equal keys ordered by (time, sequence) (a key of one
 * microsecond leaves only ties to order). The blocks are given back as
 * they are read the second time. -1 on ENOMEM (b unchanged). */
static int sort_bucket(struct evq *q, struct evbucket *b, simtime lo, int32_t shift)
{
	size_t n = b->n;
	int32_t kbits = 4;
	while (kbits < shift && (1ull << kbits) < n)
		kbits++;
	int32_t ks = shift > kbits ? shift - kbits : 0;
	size_t nkeys = ((size_t)1 << (shift - ks));
	if (grow(&q->s, &q->scap, n))
		return -1;
	if (nkeys + 1 > q->ncnt) {
		uint32_t *c = realloc(q->cnt, (nkeys + 1) * sizeof *c);
		if (!c)
			return -1;
		q->cnt = c;
		q->ncnt = nkeys + 1;
	}
	uint32_t *cnt = q->cnt;
	memset(cnt, 0, (nkeys + 1) * sizeof *cnt);
	block_prefetch(b->head, b->hn);
	uint32_t kn = b->hn;
	for (struct evblock *k = b->head; k; k = k->next, kn = EVQ_BLOCK) {
		block_prefetch(k->next, EVQ_BLOCK);
		for (uint32_t i = 0; i < kn; i++)
			cnt[(((uint64_t)k->e[i].t - (uint64_t)lo) >> ks) + 1]++;
	}
	for (size_t i = 1; i <= nkeys; i++)
		cnt[i] += cnt[i - 1];
	struct ev *s = q->s;
	kn = b->hn;
	for (struct evblock *k = b->head, *nx; k; k = nx, kn = EVQ_BLOCK) {
		nx = k->next;
		for (uint32_t i = 0; i < kn; i++)
			s[cnt[((uint64_t)k->e[i].t - (uint64_t)lo) >> ks]++] = k->e[i];
		block_put(q, k);
	}
	/* Runs of equal keys are in block order: order them. */
	uint64_t prev = n ? ((uint64_t)s[0].t - (uint64_t)lo) >> ks : 0;
	for (size_t i = 1, run = 0; i <= n; i++) {
		uint64_t key = i < n ? ((uint64_t)s[i].t - (uint64_t)lo) >> ks : prev + 1;
		if (key != prev) {
			if (i - run > 1)
				sort_run(s + run, i - run);
			run = i;
			prev = key;
		}
	}
	q->spos = 0;
	q->sn = n;
	q->nwaiting -= n;
	b->head = NULL;
	b->n = b->hn = 0;
	return 0;
}

/* --- pops ---------------------------------------------------------------- */

/* Nothing waits and the bottom is empty: a plain heap again. */
static void to_plain(struct evq *q)
{
	q->horizon = INT64_MAX;
	q->rung.cur = q->rung.nb;
	q->spos = q->sn = 0;
}

/* With the heap and the bottom empty, sorts the next waiting bucket into
 * the bottom; 1, 0 when the queue is empty, -1 on ENOMEM (nothing moved
 * that a retry would miss). */
static __attribute__((noinline)) int refill(struct evq *q)
{
	struct evrung *r = &q->rung;
	while (q->spos == q->sn && q->n == 0) {
		if (q->nwaiting == 0) {
			to_plain(q);
			return 0;
		}
		if (r->cur < r->nb) {
			struct evbucket *b = &r->b[r->cur];
			simtime lo = r->base + (simtime)r->cur * r->width;
			/* The last bucket is cut short at the rung's end: events past
			 * it are in the overflow and must stay after this bucket. */
			simtime hi = r->end - lo < r->width ? r->end : lo + r->width;
			if (b->n && sort_bucket(q, b, lo, r->shift))
				goto oom;
			r->cur++;
			q->horizon = hi;
			continue;
		}
		/* The rung is spent: lay a fresh one over the overflow, which
		 * then holds every waiting event (anything else is a bug). */
		assert(q->over.n == q->nwaiting && q->over.n > 0);
		simtime lo = q->over_lo, hi = q->over_hi;
		if (lay_rung(q, lo, (uint64_t)hi - (uint64_t)lo + 1))
			goto oom;
		q->horizon = lo;
	}
	q->oom = false;
	return 1;
oom:
	q->oom = true;
	return -1;
}

/* The earliest of the bottom's head and the heap's root (one is there). */
static inline const struct ev *least(const struct evq *q)
{
	if (q->spos == q->sn)
		return &q->h[0];
	if (q->n && ev_less(&q->h[0], &q->s[q->spos]))
		return &q->h[0];
	return &q->s[q->spos];
}

const struct ev *evq_peek(struct evq *q)
{
	if (q->spos == q->sn && q->n == 0 && refill(q) <= 0)
		return NULL;
	return least(q);
}

int evq_pop(struct evq *q, struct ev *out)
{
	if (q->spos == q->sn) {
		if (q->n) {
			heap_pop(q, out);
			return 1;
		}
		int r = refill(q);   /* fills the bottom */
		if (r <= 0)
			return r;
	}
	if (q->n && ev_less(&q->h[0], &q->s[q->spos])) {
		heap_pop(q, out);
		return 1;
	}
	*out = q->s[q->spos++];
	if (q->spos == q->sn && q->nwaiting == 0 && q->horizon != INT64_MAX)
		to_plain(q);
	return 1;
}

/* --- every event ----------------------------------------------------------- */

static void bucket_each(struct evbucket *b, void (*fn)(void *ctx, struct ev *e), void *ctx)
{
	uint32_t left = b->n;
	for (struct evblock *k = b->head; k && left > 0; k = k->next) {
		uint32_t m = k == b->head ? b->hn : EVQ_BLOCK;
		for (uint32_t i = 0; i < m && left > 0; i++, left--)
			fn(ctx, &k->e[i]);
	}
}

void evq_each(struct evq *q, void (*fn)(void *ctx, struct ev *e), void *ctx)
{
	for (size_t i = 0; i < q->n; i++)
		fn(ctx, &q->h[i]);
	for (size_t i = q->spos; i < q->sn; i++)
		fn(ctx, &q->s[i]);
	for (int32_t b = q->rung.cur; q->rung.b && b < q->rung.nb; b++)
		bucket_each(&q->rung.b[b], fn, ctx);
	bucket_each(&q->over, fn, ctx);
}
