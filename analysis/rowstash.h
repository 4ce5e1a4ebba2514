/* rowstash — rows that become ready out of key order, given back in key
 * order, within bounded memory.
 *
 * The recorder's job rows are ready when jobs end, in an order far from
 * their ids; a SQLite table keyed by id takes rows in id order as appends
 * to its last page, and rows out of order as inserts into pages written
 * long before (splits, pages written and read back again). So a row that
 * is not the next in id order is held here, as the owner's blob, until
 * the rows of all lower keys have been given out.
 *
 *   - `next` is the lowest key not yet given out: rowstash_due() says a
 *     ready row of key `next` is written at once by its owner, who then
 *     calls rowstash_advance(); a key below `next` is "late" (see below)
 *     and also written at once, out of order.
 *   - rowstash_put() holds the blob of a later key; rowstash_advance()
 *     hands the held blobs that now follow, in key order, to `emit`.
 *   - Bounds: held blobs' bytes (max_bytes) and the span of keys from
 *     `next` to the highest one held (max_slots: a ring of pointers).
 *     When a put would pass either, the lowest held blobs are emitted
 *     (down to 7/8 of max_bytes), and `next` passes the keys in between
 *     whose rows were not ready: they are late. A job that never ends
 *     therefore costs one out-of-order row, not unbounded memory.
 *   - rowstash_drain() emits every held blob in key order (the run's end).
 *
 * Keys are >= 0 and each is given once (a second put of a held key is
 * refused). Blobs come from rowstash_alloc: one of up to ROWSTASH_SMALL
 * bytes from the stash's own blocks, reused last freed first (they are
 * made and freed once a row, most of them), a larger one from malloc.
 * emit(ctx, key, blob) writes the row; the stash frees the blob after it
 * returns. Ownership: a blob passed to a put that returns 0 is the
 * stash's; one refused is the caller's to rowstash_free. Single-threaded. */
#ifndef HL_ROWSTASH_H
#define HL_ROWSTASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*rowstash_emit_fn)(void *ctx, int64_t key, void *blob);

#define ROWSTASH_SMALL 64

struct rowstash_slot {
	void *blob;           /* NULL: not held */
	size_t bytes;
};

struct rowstash {
	struct rowstash_slot *ring;   /* key's slot: ring[key & (size - 1)] */
	int64_t size;         /* slots (a power of two; 0 before the first put) */
	int64_t max_slots;
	int64_t next;         /* lowest key not yet given out */
	int64_t top;          /* highest key held + 1 (next when none is held) */
	size_t bytes, max_bytes;
	int64_t held;         /* blobs held now */
	int64_t late;         /* keys passed by a forced release before their rows were ready */
	int64_t peak;         /* most blobs held at once */
	rowstash_emit_fn emit;
	void *ctx;
	void *small;          /* free small blocks, linked through their first bytes */
	void *slabs;          /* the blocks' allocations, linked the same way */
};

/* An empty stash; max_slots is rounded up to a power of two. */
void rowstash_init(struct rowstash *st, size_t max_bytes, int64_t max_slots, rowstash_emit_fn emit,
                   void *ctx);
/* Frees held blobs without emitting them (an aborted run), and the blocks. */
void rowstash_fini(struct rowstash *st);

/* A blob of `bytes` (> 0) for rowstash_put, or NULL when out of memory. */
void *rowstash_alloc(struct rowstash *st, size_t bytes);
/* Gives back a blob of rowstash_alloc (the same `bytes`). */
void rowstash_free(struct rowstash *st, void *blob, size_t bytes);

/* True when the row of key is written at once: it is `next`, or late. */
static inline bool rowstash_due(const struct rowstash *st, int64_t key)
{
	return key <= st->next;
}

/* After the owner wrote the row of key (rowstash_due was true): when key
 * was `next`, emits the held rows that now follow. */
void rowstash_advance(struct rowstash *st, int64_t key);

/* Holds blob (of rowstash_alloc, `bytes` of it) for key > next. 0; -1 when key is
 * held already or out of memory (the blob stays the caller's). */
int rowstash_put(struct rowstash *st, int64_t key, void *blob, size_t bytes);

/* Emits every held blob in key order; `next` goes past the last. */
void rowstash_drain(struct rowstash *st);

#endif
