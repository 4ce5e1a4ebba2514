/* snap — snapshot byte buffers (sim/snap.h). */
#include "sim/snap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void snap_put(struct snapw *w, const void *p, size_t len)
{
	if (w->oom || len == 0)
		return;
	if (w->n + len > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		while (cap < w->n + len)
			cap *= 2;
		unsigned char *b = realloc(w->buf, cap);
		if (!b) {
			w->oom = true;
			return;
		}
		w->buf = b;
		w->cap = cap;
	}
	memcpy(w->buf + w->n, p, len);
	w->n += len;
}

int snap_bad(struct snapr *r, const char *fmt, ...)
{
	if (!r->bad) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->why, sizeof r->why, fmt, ap);
		va_end(ap);
	}
	r->bad = true;
	return -1;
}

void snap_get(struct snapr *r, void *p, size_t len)
{
	if (len == 0)
		return;
	if (r->bad || len > r->n - r->pos) {
		memset(p, 0, len);
		if (!r->bad)
			snap_bad(r, "it ends early (at byte %zu of %zu)", r->pos, r->n);
		return;
	}
	memcpy(p, r->buf + r->pos, len);
	r->pos += len;
}

int64_t snap_get_n(struct snapr *r, int64_t max, const char *what)
{
	int64_t n = snap_get_i64(r);
	if (r->bad)
		return -1;
	if (n < 0 || n > max) {
		snap_bad(r, "%s: %lld is not within 0 .. %lld", what, (long long)n, (long long)max);
		return -1;
	}
	return n;
}

void snap_put_tag(struct snapw *w, const char *tag)
{
	char t[8] = { 0 };
	memcpy(t, tag, strnlen(tag, sizeof t));
	snap_put(w, t, sizeof t);
}

int snap_get_tag(struct snapr *r, const char *tag)
{
	char t[8] = { 0 }, want[8] = { 0 };
	memcpy(want, tag, strnlen(tag, sizeof want));
	size_t at = r->pos;
	snap_get(r, t, sizeof t);
	if (r->bad)
		return -1;
	if (memcmp(t, want, sizeof t) != 0)
		return snap_bad(r, "section '%.8s' not found at byte %zu (a section before it was read short or long)",
		                want, at);
	return 0;
}

uint64_t snap_hash(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < len; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}
