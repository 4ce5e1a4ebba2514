/* evq — implicit 4-ary heap; see evq.h. A 4-ary heap halves the depth of a
 * binary one and keeps a node's children in one cache line (4 × 32 bytes),
 * which is what the hold-model benchmark in bench/ measures. */
#include "sim/evq.h"

#include <stdlib.h>

#define D 4

static inline int ev_less(const struct ev *a, const struct ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int evq_init(struct evq *q, size_t cap)
{
	if (cap < 16)
		cap = 16;
	q->h = malloc(cap * sizeof *q->h);
	if (!q->h)
		return -1;
	q->n = 0;
	q->cap = cap;
	q->next_seq = 0;
	return 0;
}

void evq_fini(struct evq *q)
{
	free(q->h);
	q->h = NULL;
	q->n = q->cap = 0;
}

int evq_push(struct evq *q, simtime t, uint32_t kind, int32_t id, uint32_t ver, int32_t arg)
{
	if (q->n == q->cap) {
		size_t cap = q->cap * 2;
		struct ev *h = realloc(q->h, cap * sizeof *h);
		if (!h)
			return -1;
		q->h = h;
		q->cap = cap;
	}
	struct ev e = { .t = t, .seq = q->next_seq++, .kind = kind, .ver = ver, .id = id, .arg = arg };
	size_t i = q->n++;
	while (i > 0) {
		size_t p = (i - 1) / D;
		if (!ev_less(&e, &q->h[p]))
			break;
		q->h[i] = q->h[p];
		i = p;
	}
	q->h[i] = e;
	return 0;
}

int evq_pop(struct evq *q, struct ev *out)
{
	if (q->n == 0)
		return 0;
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
	return 1;
}
