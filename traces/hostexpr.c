/* hostexpr — Slurm host list expressions. See hostexpr.h. */
#include "traces/hostexpr.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct walk {
	int (*fn)(const char *name, void *ctx);
	void *ctx;
	char *why;
	size_t whylen;
	int64_t n;                       /* names handed on so far */
	char buf[HOSTEXPR_NAME_MAX];
};

static int fail(struct walk *w, const char *msg, const char *item, int len)
{
	snprintf(w->why, w->whylen, "%s in host list '%.*s'", msg, len, item);
	return -1;
}

/* One number of a bracket's range list: digits, returned with their count. */
static int number(const char *s, const char *end, long *v, int *digits)
{
	const char *p = s;
	long x = 0;
	while (p < end && *p >= '0' && *p <= '9' && p - s < 9)
		x = x * 10 + (*p++ - '0');
	if (p == s || (p < end && *p >= '0' && *p <= '9'))
		return -1;
	*v = x;
	*digits = (int)(p - s);
	return (int)(p - s);
}

/* Expands item[at .. len) after the len0 bytes already in w->buf. */
static int expand(struct walk *w, const char *item, int len, int at, size_t len0)
{
	const char *open = memchr(item + at, '[', (size_t)(len - at));
	int lit = open ? (int)(open - item) - at : len - at;
	if (memchr(item + at, ']', (size_t)lit))
		return fail(w, "a ']' without its '['", item, len);
	if (len0 + (size_t)lit >= sizeof w->buf)
		return fail(w, "a name longer than 47 characters", item, len);
	memcpy(w->buf + len0, item + at, (size_t)lit);
	len0 += (size_t)lit;
	if (!open) {
		w->buf[len0] = '\0';
		if (len0 == 0)
			return fail(w, "an empty name", item, len);
		if (++w->n > HOSTEXPR_MAX_NAMES)
			return fail(w, "more than 1000000 names", item, len);
		return w->fn(w->buf, w->ctx);
	}
	const char *close = memchr(open, ']', (size_t)(item + len - open));
	if (!close)
		return fail(w, "a '[' without its ']'", item, len);
	if (memchr(open + 1, '[', (size_t)(close - open - 1)))
		return fail(w, "a '[' inside brackets", item, len);
	int next = (int)(close - item) + 1;
	for (const char *r = open + 1; r <= close; ) {
		const char *comma = memchr(r, ',', (size_t)(close - r));
		const char *end = comma ? comma : close;
		long lo, hi;
		int width, wd2, k = number(r, end, &lo, &width);
		if (k < 0)
			return fail(w, "expected a number or a range N-M in brackets", item, len);
		hi = lo;
		if (r + k < end) {
			if (r[k] != '-' || number(r + k + 1, end, &hi, &wd2) != (int)(end - r - k - 1))
				return fail(w, "expected a number or a range N-M in brackets", item, len);
			if (hi < lo)
				return fail(w, "a range whose end is below its start", item, len);
		}
		if (hi - lo >= HOSTEXPR_MAX_NAMES)
			return fail(w, "more than 1000000 names", item, len);
		for (long x = lo; x <= hi; x++) {
			int m = snprintf(w->buf + len0, sizeof w->buf - len0, "%0*ld", width, x);
			if (m < 0 || len0 + (size_t)m >= sizeof w->buf)
				return fail(w, "a name longer than 47 characters", item, len);
			int rc = expand(w, item, len, next, len0 + (size_t)m);
			if (rc)
				return rc;
		}
		r = end + 1;
	}
	return 0;
}

int hostexpr_each(const char *expr, int (*fn)(const char *name, void *ctx), void *ctx,
                  char *why, size_t whylen)
{
	struct walk w = { .fn = fn, .ctx = ctx, .why = why, .whylen = whylen };
	const char *s = expr;
	if (!*s) {
		snprintf(why, whylen, "an empty host list");
		return -1;
	}
	for (;;) {
		/* the item runs to the next comma outside brackets */
		int depth = 0, len = 0;
		while (s[len] && (depth > 0 || s[len] != ',')) {
			depth += s[len] == '[' ? 1 : s[len] == ']' ? -1 : 0;
			len++;
		}
		if (strpbrk(s, " \t") && (size_t)(strpbrk(s, " \t") - s) < (size_t)len)
			return fail(&w, "a blank", s, len);
		int rc = expand(&w, s, len, 0, 0);
		if (rc)
			return rc;
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

static int count_one(const char *name, void *ctx)
{
	(void)name;
	++*(int64_t *)ctx;
	return 0;
}

int64_t hostexpr_count(const char *expr, char *why, size_t whylen)
{
	int64_t n = 0;
	return hostexpr_each(expr, count_one, &n, why, whylen) ? -1 : n;
}
