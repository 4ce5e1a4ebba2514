/* snap — the byte buffers a snapshot is written to and read from
 * (sim/engine_snap.c writes the engine's state, a policy's save and load
 * hooks their own, policy_ops.save / load).
 *
 * A snapshot is for the same build and the same scenario only: values are
 * stored as they lie in memory (the build's sizes, byte order and
 * padding), which is what keeps saving a large run cheap. The engine's
 * header says which build and scenario wrote it; a reader refuses any
 * other (sim_snap_load).
 *
 * Writing never fails halfway: a buffer that cannot grow is marked (oom)
 * and every later put does nothing; the writer checks once at the end.
 * Reading likewise: a read past the end marks the reader (short) and
 * yields zeros, and the reader checks once at the end of a section. */
#ifndef HL_SNAP_H
#define HL_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct snapw {
	unsigned char *buf;      /* malloc'd; the caller frees it */
	size_t n, cap;
	bool oom;
};

struct snapr {
	const unsigned char *buf;
	size_t n, pos;
	bool bad;                /* read past the end, or a value out of range */
	char why[160];           /* the first thing found wrong */
};

void snap_put(struct snapw *w, const void *p, size_t len);
/* Copies len bytes into p (zeros past the end, and marks r bad). */
void snap_get(struct snapr *r, void *p, size_t len);
/* Marks r bad with a reason (the first one wins); returns -1. */
int snap_bad(struct snapr *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline void snap_put_i64(struct snapw *w, int64_t v) { snap_put(w, &v, sizeof v); }
static inline int64_t snap_get_i64(struct snapr *r)
{
	int64_t v = 0;
	snap_get(r, &v, sizeof v);
	return v;
}
/* A count written by the saver, read back checked against 0 .. max (a
 * corrupt or foreign count must not size an array). -1 when out of
 * range (r marked bad, naming what). */
static inline void snap_put_n(struct snapw *w, int64_t n) { snap_put_i64(w, n); }
int64_t snap_get_n(struct snapr *r, int64_t max, const char *what);
/* A tag that separates sections, checked on reading: a section read
 * short or long by a loader is found at the next tag. */
void snap_put_tag(struct snapw *w, const char *tag);
int snap_get_tag(struct snapr *r, const char *tag);

/* FNV-1a, 64 bits: the snapshot's checksum, and fingerprints. */
uint64_t snap_hash(uint64_t h, const void *p, size_t len);
#define SNAP_HASH0 0xcbf29ce484222325ull

#endif
