/* workq — one background thread that runs work items in the order they were
 * queued: the recorder's writer, so that SQLite inserts and hashing run
 * beside the engine instead of inside its event loop.
 *
 * Items are the caller's (a struct workq_item embedded in its own struct,
 * Linux-list style); the queue never allocates. workq_push starts the
 * thread on first use and blocks while `max` items wait (so a writer that
 * falls behind slows the producer instead of growing memory). When the
 * thread cannot be started, items run at once in the caller's thread: the
 * order, and so the output, is the same either way. workq_drain waits until
 * every queued item has run; after it the producer may touch what the items
 * touch (the mutex gives the happens-before). workq_fini drains, stops and
 * joins the thread.
 *
 * Ownership: the caller owns the struct workq and the items; an item's fn
 * may recycle its item. */
#ifndef HL_WORKQ_H
#define HL_WORKQ_H

#include <pthread.h>
#include <stdbool.h>

struct workq_item {
	struct workq_item *next;
	void (*fn)(void *ctx, struct workq_item *it);
};

struct workq {
	pthread_mutex_t mu;
	pthread_cond_t work, space, idle;
	pthread_t th;
	struct workq_item *head, *tail;
	int n, max;
	bool busy, stop, started, inline_only;
	void *ctx;
};

/* max: items that may wait (>= 1). 0, or -1 when the mutex or the
 * condition variables could not be made. */
int workq_init(struct workq *q, int max, void *ctx);
void workq_push(struct workq *q, struct workq_item *it);
void workq_drain(struct workq *q);
void workq_fini(struct workq *q);

#endif
