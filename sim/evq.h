/* evq — the event queue: an implicit 4-ary min-heap of events stored by
 * value, with a rung of unsorted time buckets and a sorted bottom in front
 * of it once it grows large.
 *
 * Events are ordered by (time, sequence number); the sequence number is taken
 * from a counter at push, so events at the same time pop in insertion order
 * (libuv's timer heap does the same). Cancelling is lazy: an event carries the
 * version its subject had when it was pushed, and the engine drops an event
 * whose version no longer matches (ROSS-style inline payload, no search).
 *
 * A queue of fewer than EVQ_SMALL events is a plain heap (horizon at +∞).
 * Past it, the heap holds only the events due before `horizon`; later ones
 * wait, unsorted, in the buckets of a rung (equal widths, a power of two
 * microseconds, chosen so that the first buckets hold about
 * COARSE_PER_BUCKET events however skewed the times are) or, past the
 * rung's end, in an overflow list — a ladder queue (Tang, Goh and Thng 2005)
 * of one rung. When the heap and the bottom are empty, the next bucket is
 * sorted into the bottom by a counting sort on its times (one read to count,
 * one to place, then a pass that orders runs of equal keys by (time,
 * sequence)); the horizon moves to the bucket's end, so a push before it goes
 * to the heap, and a pop takes the lesser of the bottom's head and the
 * heap's root. When the rung is spent the overflow is spread over a fresh
 * one; when nothing waits and the bottom is empty, the queue is a plain
 * heap again. A bucket is a list of pooled blocks (below), so a push is an
 * append to one of a few blocks that stay in cache.
 *
 * The queue owns its memory: the heap, bottom, count and bucket arrays grow
 * geometrically, the blocks come from slabs that are never given back
 * before evq_fini, so a run that has reached its peak allocates nothing
 * more. */
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
#define EVQ_BLOCK 31            /* events per block: with its link, 1 KiB */

/* A bucket is a list of fixed-size blocks from the queue's pool: a push
 * appends to the head block, a spread or sort gives each block back as soon
 * as it is read, so the blocks a push writes next are the ones just read
 * (still in cache), and nothing is reallocated once the pool has grown. */
struct evblock {
	struct evblock *next;
	char pad[sizeof(struct ev) - sizeof(struct evblock *)];   /* events stay within cache lines */
	struct ev e[EVQ_BLOCK];
};

/* Every block but the head is full; a push touches only the bucket and the
 * head's tail, not the head's link. */
struct evbucket {
	struct evblock *head;       /* the block being filled; NULL when empty */
	uint32_t n;                 /* events in the bucket */
	uint32_t hn;                /* of which in the head block */
};

/* Buckets [cur, nb) of width `width` from `base` are still to come; the
 * rung covers [base, end) (the last bucket may be cut short at end). */
struct evrung {
	struct evbucket *b;
	int32_t nb, cap, cur;
	int32_t shift;              /* width = 2^shift, so a push shifts, not divides */
	simtime base, width, end;
};

struct evslab;

struct evq {
	struct ev *h;               /* the heap: events with t < horizon */
	size_t n, cap;
	struct ev *s;               /* the sorted bottom: s[spos, sn) */
	size_t spos, sn, scap;
	uint32_t *cnt;              /* the counting sort's counts */
	size_t ncnt;
	uint64_t next_seq;
	simtime horizon;
	struct evrung rung;
	struct evbucket over;       /* events at or past the rung's end */
	simtime over_lo, over_hi;   /* the overflow's earliest and latest time */
	size_t nwaiting;            /* events in the rung and the overflow */
	struct evblock *free;       /* the pool's free blocks (LIFO) */
	size_t nfree, nblocks;
	struct evslab *slabs;       /* what the pool allocated */
	bool oom;                   /* a pop failed for want of memory */
};

int evq_init(struct evq *q, size_t cap);
void evq_fini(struct evq *q);
/* 0 on success, -1 when memory runs out (the queue is unchanged). */
int evq_push(struct evq *q, simtime t, uint32_t kind, int32_t id, uint32_t ver, int32_t arg);
/* 1 and the earliest event in *out; 0 when empty; -1 when memory ran out
 * sorting waiting events into the bottom (the queue is unchanged; q->oom is
 * set). */
int evq_pop(struct evq *q, struct ev *out);
/* The earliest event (sorting waiting events into the bottom if need be), or
 * NULL when empty or out of memory (q->oom tells which). */
const struct ev *evq_peek(struct evq *q);
/* Calls fn on every queued event, in no order; fn may change an event's
 * kind, id, ver and arg, never its time or sequence number (its place in
 * the queue). */
void evq_each(struct evq *q, void (*fn)(void *ctx, struct ev *e), void *ctx);
static inline size_t evq_len(const struct evq *q) { return q->n + (q->sn - q->spos) + q->nwaiting; }

#endif
