/* rowstash: rows ready in any order come out in key order; the bounds on
 * held bytes and on the span of keys hold, and a key that never becomes
 * ready is passed (late) instead of holding everything after it. And the
 * recorder's job table, written through it, packed as an append packs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>
#include <unistd.h>

#include "analysis/recorder.h"
#include "analysis/rowstash.h"
#include "sim/engine.h"
#include "tests/testutil.h"
#include "tests/unit/db_fixture.h"

/* What the owner wrote, in the order it wrote it. */
struct out {
	int64_t *keys;
	int n, cap;
};

static void out_add(struct out *o, int64_t key)
{
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 1024;
		o->keys = realloc(o->keys, (size_t)o->cap * sizeof *o->keys);
		assert_non_null(o->keys);
	}
	o->keys[o->n++] = key;
}

static void emit(void *ctx, int64_t key, void *blob)
{
	assert_int_equal(*(int64_t *)blob, key);   /* the blob put with the key */
	out_add(ctx, key);
}

/* The owner's side of one ready row, as the recorder does it. */
static void ready(struct rowstash *st, struct out *o, int64_t key, size_t bytes)
{
	if (rowstash_due(st, key)) {
		out_add(o, key);
		rowstash_advance(st, key);
		return;
	}
	int64_t *blob = rowstash_alloc(st, bytes);
	assert_non_null(blob);
	*blob = key;
	assert_int_equal(rowstash_put(st, key, blob, bytes), 0);
}

/* Every key 0 .. n-1 exactly once. */
static void check_all_once(const struct out *o, int64_t n)
{
	assert_int_equal(o->n, n);
	char *seen = calloc((size_t)n, 1);
	assert_non_null(seen);
	for (int i = 0; i < o->n; i++) {
		assert_true(o->keys[i] >= 0 && o->keys[i] < n);
		assert_false(seen[o->keys[i]]);
		seen[o->keys[i]] = 1;
	}
	free(seen);
}

static const int64_t *sort_when;

static int by_when(const void *a, const void *b)
{
	int64_t x = sort_when[*(const int64_t *)a], y = sort_when[*(const int64_t *)b];
	return (x > y) - (x < y);
}

/* Keys ready in a scrambled order (each up to 3,000 places from its own)
 * come out as 0, 1, 2, ... with nothing late, most of them held a while. */
static void test_in_order(void **state)
{
	(void)state;
	enum { N = 50000 };
	int64_t *when = malloc(N * sizeof *when), *order = malloc(N * sizeof *order);
	assert_non_null(when);
	assert_non_null(order);
	uint64_t x = 12345;
	for (int i = 0; i < N; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		when[i] = (int64_t)i * 4096 + (int64_t)(x >> 33) % (3000 * 4096);
		order[i] = i;
	}
	sort_when = when;
	qsort(order, N, sizeof *order, by_when);
	struct out o = { 0 };
	struct rowstash st;
	rowstash_init(&st, (size_t)64 << 20, 1 << 16, emit, &o);
	for (int i = 0; i < N; i++)
		ready(&st, &o, order[i], 40);
	rowstash_drain(&st);
	check_all_once(&o, N);
	for (int i = 0; i < N; i++)
		assert_int_equal(o.keys[i], i);
	assert_int_equal(st.late, 0);
	assert_int_equal(st.held, 0);
	assert_int_equal(st.bytes, 0);
	assert_true(st.peak > 100);
	rowstash_fini(&st);
	free(o.keys);
	free(when);
	free(order);
}

/* Key 0 is ready only at the end (a job that runs the whole run): the
 * bytes bound passes it, the held bytes never go over the bound, key 0
 * is written late (as it is ready), and everything else in order. */
static void test_bytes_bound(void **state)
{
	(void)state;
	enum { N = 20000 };
	struct out o = { 0 };
	struct rowstash st;
	rowstash_init(&st, 100 * 200, 1 << 20, emit, &o);
	for (int64_t k = 1; k < N; k++) {
		ready(&st, &o, k, k % 7 ? 64 : 200);   /* from the blocks and from malloc */
		assert_true(st.bytes <= 100 * 200);
	}
	assert_int_equal(st.late, 1);
	ready(&st, &o, 0, 64);   /* below next: written at once */
	rowstash_drain(&st);
	check_all_once(&o, N);
	assert_int_equal(o.keys[o.n - 1], 0);
	for (int i = 1; i < o.n - 1; i++)
		assert_true(o.keys[i] > o.keys[i - 1]);
	rowstash_fini(&st);
	free(o.keys);
}

/* The span bound: with key 0 missing, keys far ahead grow the ring up to
 * its bound and then pass the bottom; a key that was never ready counts
 * as late once, and the ring stays within max_slots. */
static void test_span_bound(void **state)
{
	(void)state;
	struct out o = { 0 };
	struct rowstash st;
	rowstash_init(&st, (size_t)1 << 30, 1000, emit, &o);   /* rounded up to 1024 */
	assert_int_equal(st.max_slots, 1024);
	for (int64_t k = 2; k < 5000; k += 2)   /* every odd key never ready */
		ready(&st, &o, k, 16);
	assert_true(st.size <= 1024);
	assert_true(st.late > 0);
	int64_t late = st.late;
	rowstash_drain(&st);
	assert_int_equal(st.late, late);   /* keys passed at the end were never ready: not late */
	assert_int_equal(o.n, 2499);
	for (int i = 1; i < o.n; i++)
		assert_true(o.keys[i] > o.keys[i - 1]);
	rowstash_fini(&st);
	free(o.keys);
}

/* A key held twice is refused (the blob stays the caller's), as is a
 * put of a key that is due; fini frees what is held. */
static void test_refused(void **state)
{
	(void)state;
	struct out o = { 0 };
	struct rowstash st;
	rowstash_init(&st, 1 << 20, 1024, emit, &o);
	int64_t *a = rowstash_alloc(&st, 8), *b = rowstash_alloc(&st, 8), *c = rowstash_alloc(&st, 100);
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	*a = *b = 5;
	*c = 0;
	assert_int_equal(rowstash_put(&st, 5, a, 8), 0);
	assert_int_equal(rowstash_put(&st, 5, b, 8), -1);
	assert_int_equal(rowstash_put(&st, 0, c, 100), -1);
	rowstash_free(&st, b, 8);
	rowstash_free(&st, c, 100);
	assert_int_equal(st.held, 1);
	rowstash_fini(&st);   /* frees a: the sanitizer build checks it */
	assert_int_equal(o.n, 0);
	free(o.keys);
}

/* ---- the recorder's job table --------------------------------------------- */

#define S(x) ((simtime)((x) * SIMTIME_SEC))

/* 20,000 jobs that end up to 3,000 places from their id order: every row
 * is there once, and the job table's leaf pages are as full as an append
 * leaves them (rows inserted in end order left a quarter of each empty). */
static void test_job_pages_packed(void **state)
{
	(void)state;
	enum { N = 20000 };
	struct sim s;
	memset(&s, 0, sizeof s);
	struct job *jobs = calloc(N, sizeof *jobs);
	int32_t *order = malloc(N * sizeof *order);
	assert_non_null(jobs);
	assert_non_null(order);
	uint64_t x = 7;
	for (int32_t i = 0; i < N; i++) {
		job_init(&jobs[i], i, S(i));
		jobs[i].cls = JOB_BATCH;
		jobs[i].state = JOB_DONE;
		jobs[i].start_us = S(i);
		x = x * 6364136223846793005u + 1442695040888963407u;
		jobs[i].end_us = S(i + (int64_t)(x >> 33) % 3000);
		order[i] = i;
	}
	for (int32_t i = 1; i < N; i++)   /* by end: a job ends at most 3,000 places late */
		for (int32_t k = i; k > 0 && jobs[order[k]].end_us < jobs[order[k - 1]].end_us; k--) {
			int32_t t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	s.jobs = jobs;
	s.njobs = N;
	char *path = tu_tmpath(".db");
	char err[512];
	struct recorder *r = recorder_open(path, err, sizeof err);
	assert_non_null(r);
	recorder_attach(r, &s);
	for (int32_t i = 0; i < N; i++)
		s.rec.job_end(s.rec.ctx, &s, &jobs[order[i]]);
	const struct run_info ri = { .scenario = "unit", .policy = "fifo", .version = "0", .trace = "hand" };
	assert_int_equal(recorder_finish(r, &ri, 0, 0, 0, err, sizeof err), 0);
	sqlite3 *db = db_open(path);
	assert_int_equal(q_int(db, "SELECT count(*) FROM job"), N);
	assert_int_equal(q_int(db, "SELECT count(DISTINCT id) FROM job WHERE id BETWEEN 0 AND 19999"), N);
	assert_int_equal(q_int(db, "SELECT sum(end_us - start_us = (end_us / 1000000 - id) * 1000000) FROM job"), N);
	double unused = q_real(db, "SELECT sum(unused) * 1.0 / sum(pgsize) FROM dbstat"
	                           " WHERE name = 'job' AND pagetype = 'leaf'");
	assert_true(unused < 0.03);
	sqlite3_close(db);
	unlink(path);
	free(path);
	free(order);
	free(jobs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_bytes_bound),
		cmocka_unit_test(test_span_bound),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_job_pages_packed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
