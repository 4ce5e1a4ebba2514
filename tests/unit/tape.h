/* tape.h — a run's record as text, for tests that compare two runs byte by
 * byte (test_compact, test_snap): a growing buffer and the recorder's event
 * hook, which names jobs by number (their id changes when the table is
 * compacted or the run moved). Each test adds its own job-end and sample
 * hooks. */
#ifndef HETLAB_TESTS_TAPE_H
#define HETLAB_TESTS_TAPE_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine.h"

struct tape {
	const struct sim *s;
	char *buf;
	size_t n, cap;
};

static void put(struct tape *t, const char *fmt, ...) __attribute__((format(printf, 2, 3), unused));
static void put(struct tape *t, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	assert_true(k >= 0);
	size_t len = (size_t)k < sizeof line ? (size_t)k : sizeof line - 1;
	if (t->n + len + 1 > t->cap) {
		t->cap = (t->n + len + 1) * 2;
		t->buf = realloc(t->buf, t->cap);
		assert_non_null(t->buf);
	}
	memcpy(t->buf + t->n, line, len + 1);
	t->n += len;
}

static void __attribute__((unused)) on_event(void *ctx, simtime t, enum rec_kind kind, int32_t job, int32_t node,
                                             int state, const char *detail)
{
	struct tape *tp = ctx;
	long long num = job >= 0 ? (long long)tp->s->jobs[job].num : -1;
	put(tp, "%lld %s %lld %d %d %s\n", (long long)t, rec_kind_name(kind), num, node, state, detail ? detail : "");
}

#endif
