/* rowstash — rows given back in key order. See rowstash.h. */
#include "analysis/rowstash.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_SLOTS 1024
#define SLAB_BLOCKS 1024   /* small blocks an allocation */

/* A slab: its link, then SLAB_BLOCKS blocks of ROWSTASH_SMALL bytes. */
struct slab {
	struct slab *next;
	_Alignas(16) unsigned char b[SLAB_BLOCKS][ROWSTASH_SMALL];
};

void *rowstash_alloc(struct rowstash *st, size_t bytes)
{
	if (bytes > ROWSTASH_SMALL)
		return malloc(bytes);
	if (!st->small) {
		struct slab *sl = malloc(sizeof *sl);
		if (!sl)
			return NULL;
		sl->next = st->slabs;
		st->slabs = sl;
		for (int i = SLAB_BLOCKS; i-- > 0;) {
			*(void **)sl->b[i] = st->small;
			st->small = sl->b[i];
		}
	}
	void *p = st->small;
	st->small = *(void **)p;
	return p;
}

void rowstash_free(struct rowstash *st, void *blob, size_t bytes)
{
	if (!blob)
		return;
	if (bytes > ROWSTASH_SMALL) {
		free(blob);
		return;
	}
	*(void **)blob = st->small;
	st->small = blob;
}

static struct rowstash_slot *at(const struct rowstash *st, int64_t key)
{
	return st->ring + (key & (st->size - 1));
}

void rowstash_init(struct rowstash *st, size_t max_bytes, int64_t max_slots, rowstash_emit_fn emit,
                   void *ctx)
{
	memset(st, 0, sizeof *st);
	int64_t m = FIRST_SLOTS;
	while (m < max_slots)
		m *= 2;
	st->max_slots = m;
	st->max_bytes = max_bytes;
	st->emit = emit;
	st->ctx = ctx;
}

void rowstash_fini(struct rowstash *st)
{
	for (int64_t k = st->next; st->held > 0 && k < st->top; k++) {
		struct rowstash_slot *s = at(st, k);
		if (s->blob) {
			rowstash_free(st, s->blob, s->bytes);
			s->blob = NULL;
			st->held--;
		}
	}
	for (struct slab *sl = st->slabs, *nx; sl; sl = nx) {
		nx = sl->next;
		free(sl);
	}
	st->slabs = st->small = NULL;
	free(st->ring);
	st->ring = NULL;
	st->size = 0;
	st->held = 0;
	st->bytes = 0;
}

/* Gives out key `next` (its blob when held; else the key is passed, late)
 * and moves on. */
static void pass_next(struct rowstash *st)
{
	struct rowstash_slot *s = at(st, st->next);
	void *blob = s->blob;
	if (blob) {
		size_t bytes = s->bytes;
		s->blob = NULL;
		st->held--;
		st->bytes -= bytes;
		st->emit(st->ctx, st->next, blob);
		rowstash_free(st, blob, bytes);
	} else {
		st->late++;
	}
	st->next++;
	if (st->top < st->next)
		st->top = st->next;
}

/* Emits the held blobs that follow `next` without a gap. */
static void run_on(struct rowstash *st)
{
	while (st->held > 0 && at(st, st->next)->blob)
		pass_next(st);
	if (st->held == 0)
		st->top = st->next;
}

void rowstash_advance(struct rowstash *st, int64_t key)
{
	if (key != st->next)
		return;
	st->next++;
	if (st->top < st->next)
		st->top = st->next;
	if (st->size)
		run_on(st);
}

/* A ring of twice the slots (at most max_slots); -1 when out of memory. */
static int grow(struct rowstash *st)
{
	int64_t n = st->size ? st->size * 2 : FIRST_SLOTS;
	struct rowstash_slot *q = calloc((size_t)n, sizeof *q);
	if (!q)
		return -1;
	for (int64_t k = st->next; k < st->top; k++)
		q[k & (n - 1)] = *at(st, k);
	free(st->ring);
	st->ring = q;
	st->size = n;
	return 0;
}

int rowstash_put(struct rowstash *st, int64_t key, void *blob, size_t bytes)
{
	if (key <= st->next || (key < st->top && at(st, key)->blob))
		return -1;
	/* The bytes bound: the lowest held blobs go, down to 7/8 of it. */
	if (st->bytes + bytes > st->max_bytes) {
		size_t target = st->max_bytes - st->max_bytes / 8;
		target = target > bytes ? target - bytes : 0;
		while (st->next < key && st->held > 0 && st->bytes > target)
			pass_next(st);
	}
	/* The span bound: a larger ring, or the keys at the bottom passed. */
	while (key - st->next >= st->size) {
		if (st->size < st->max_slots) {
			if (grow(st) < 0)
				return -1;
		} else if (st->held == 0) {
			int64_t to = key - st->size + 1;
			st->late += to - st->next;
			st->next = st->top = to;
		} else {
			pass_next(st);
		}
	}
	if (st->size)
		run_on(st);
	if (key == st->next) {
		/* Everything below it was given out: it is due now. */
		st->emit(st->ctx, key, blob);
		rowstash_free(st, blob, bytes);
		rowstash_advance(st, key);
		return 0;
	}
	struct rowstash_slot *s = at(st, key);
	s->blob = blob;
	s->bytes = bytes;
	st->held++;
	st->bytes += bytes;
	if (st->held > st->peak)
		st->peak = st->held;
	if (st->top <= key)
		st->top = key + 1;
	return 0;
}

void rowstash_drain(struct rowstash *st)
{
	int64_t late = st->late;   /* keys passed here never had a row: not late */
	while (st->held > 0)
		pass_next(st);
	st->late = late;
	st->top = st->next;
}
