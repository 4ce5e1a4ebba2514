/* evq — the event queue: an implicit 4-ary min-heap of events stored by value.
 *
 * Events are ordered by (time, sequence number); the sequence number is taken
 * from a counter at push, so events at the same time pop in insertion order
 * (libuv's timer heap does the same). Cancelling is lazy: an event carries the
 * version its subject had when it was pushed, and the engine drops an event
 * whose version no longer matches (ROSS-style inline payload, no search).
 *
 * The queue owns its array; it grows geometrically and never shrinks, so a
 * run that has reached its peak queue length allocates nothing more. */
#ifndef HL_EVQ_H
#define HL_EVQ_H

#include <stddef.h>
#include <stdint.h>
#include "sim/simtime.h"

struct ev {
	simtime t;
	uint64_t seq;
	uint32_t kind;  /* engine-defined event kind */
	uint32_t ver;   /* subject's version at push time */
	int32_t id;     /* subject: job or node index */
	int32_t arg;    /* kind-specific */
};

struct evq {
	struct ev *h;
	size_t n, cap;
	uint64_t next_seq;
};

int evq_init(struct evq *q, size_t cap);
void evq_fini(struct evq *q);
/* 0 on success, -1 when memory runs out (the queue is unchanged). */
int evq_push(struct evq *q, simtime t, uint32_t kind, int32_t id, uint32_t ver, int32_t arg);
/* 1 and the earliest event in *out, or 0 when empty. */
int evq_pop(struct evq *q, struct ev *out);
static inline const struct ev *evq_peek(const struct evq *q) { return q->n ? &q->h[0] : NULL; }
static inline size_t evq_len(const struct evq *q) { return q->n; }

#endif
