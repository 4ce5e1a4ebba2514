/* evq — the event queue: an implicit 4-ary min-heap of events stored by
 * value, with two rungs of unsorted time buckets in front of it.
 *
 * Events are ordered by (time, sequence number); the sequence number is taken
 * from a counter at push, so events at the same time pop in insertion order
 * (libuv's timer heap does the same). Cancelling is lazy: an event carries the
 * version its subject had when it was pushed, and the engine drops an event
 * whose version no longer matches (ROSS-style inline payload, no search).
 *
 * The heap holds only the events due before `horizon`. Later ones wait,
 * unsorted, in buckets of equal time width: a coarse rung over the whole
 * queue, a fine rung over the coarse bucket being consumed, and an overflow
 * list past the coarse rung — the ladder queue of Tang, Goh and Thng (2005)
 * cut to two rungs, with the heap as its sorted bottom. When the heap runs
 * dry the next fine bucket is poured into it; a coarse bucket is spread over
 * a fresh fine rung when it comes due (or poured directly when small); the
 * overflow is spread over a fresh coarse rung when the rungs are spent.
 * Every event of one bucket enters the heap together, so the heap alone
 * decides the order, ties included; the rungs keep it small and keep each
 * push an append to one of a few arrays, both of which stay in cache.
 *
 * A queue of fewer than EVQ_SMALL events is a plain heap (horizon at +∞, no
 * rung in use): the rungs start only when the heap grows past it, and stop
 * when the waiting events are all poured.
 *
 * The queue owns its arrays; they grow geometrically and never shrink, so a
 * run that has reached its peak allocates nothing more. */
#ifndef HL_EVQ_H
#define HL_EVQ_H

#include <stdbool.h>
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

#define EVQ_SMALL 4096

struct evbucket {
	struct ev *e;
	uint32_t n, cap;
};

/* Buckets [cur, nb) of width `width` from `base` are still to come; the
 * rung covers [base, end) (the last bucket may be cut short at end). */
struct evrung {
	struct evbucket *b;
	int32_t nb, cap, cur;
	int32_t shift;              /* width = 2^shift, so a push shifts, not divides */
	simtime base, width, end;
};

struct evq {
	struct ev *h;               /* the heap: events with t < horizon */
	size_t n, cap;
	uint64_t next_seq;
	simtime horizon;
	struct evrung coarse, fine;
	struct evbucket over;       /* events at or past the coarse rung's end */
	size_t nwaiting;            /* events in rungs and overflow */
	bool oom;                   /* a pop failed for want of memory */
};

int evq_init(struct evq *q, size_t cap);
void evq_fini(struct evq *q);
/* 0 on success, -1 when memory runs out (the queue is unchanged). */
int evq_push(struct evq *q, simtime t, uint32_t kind, int32_t id, uint32_t ver, int32_t arg);
/* 1 and the earliest event in *out; 0 when empty; -1 when memory ran out
 * moving events into the heap (the queue is unchanged; q->oom is set). */
int evq_pop(struct evq *q, struct ev *out);
/* The earliest event (moving waiting events into the heap if need be), or
 * NULL when empty or out of memory (q->oom tells which). */
const struct ev *evq_peek(struct evq *q);
static inline size_t evq_len(const struct evq *q) { return q->n + q->nwaiting; }

#endif
