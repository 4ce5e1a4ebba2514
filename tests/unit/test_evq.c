/* Event queue: order by (time, insertion) under random pushes and pops. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sim/evq.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t xs(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void test_empty(void **state)
{
	(void)state;
	struct evq q;
	struct ev e;
	assert_int_equal(evq_init(&q, 0), 0);
	assert_null(evq_peek(&q));
	assert_int_equal(evq_pop(&q, &e), 0);
	evq_fini(&q);
}

static void test_ties_in_insertion_order(void **state)
{
	(void)state;
	struct evq q;
	struct ev e;
	evq_init(&q, 4);
	for (int i = 0; i < 100; i++)
		evq_push(&q, 5, 1, i, 0, 0);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(evq_pop(&q, &e), 1);
		assert_int_equal(e.id, i);
		assert_int_equal(e.t, 5);
	}
	evq_fini(&q);
}

/* Random interleaved pushes and pops over few distinct times (many ties):
 * every pop returns the least (t, seq) of what is in the queue. */
static void test_random_against_reference(void **state)
{
	(void)state;
	struct evq q;
	struct ev e;
	enum { N = 200000 };
	/* The reference is a brute-force scan of the live events. */
	struct ev *live = calloc(N, sizeof *live);
	size_t nlive = 0;
	uint64_t seq = 0;
	simtime now = 0;
	evq_init(&q, 16);
	for (int step = 0; step < N; step++) {
		if (nlive == 0 || xs() % 3 != 0) {
			simtime t = now + (simtime)(xs() % 8);
			int32_t id = (int32_t)step;
			assert_int_equal(evq_push(&q, t, 0, id, 0, 0), 0);
			live[nlive++] = (struct ev){ .t = t, .seq = seq++, .id = id };
		} else {
			size_t best = 0;
			for (size_t k = 1; k < nlive; k++)
				if (live[k].t < live[best].t || (live[k].t == live[best].t && live[k].seq < live[best].seq))
					best = k;
			assert_int_equal(evq_pop(&q, &e), 1);
			assert_int_equal(e.t, live[best].t);
			assert_int_equal(e.id, live[best].id);
			now = e.t;
			live[best] = live[--nlive];
		}
		if (nlive > 512) {   /* keep the brute-force reference cheap */
			while (nlive > 256) {
				size_t best = 0;
				for (size_t k = 1; k < nlive; k++)
					if (live[k].t < live[best].t || (live[k].t == live[best].t && live[k].seq < live[best].seq))
						best = k;
				assert_int_equal(evq_pop(&q, &e), 1);
				assert_int_equal(e.id, live[best].id);
				now = e.t;
				live[best] = live[--nlive];
			}
		}
		assert_int_equal(evq_len(&q), nlive);
	}
	simtime last = -1;
	uint64_t lastseq = 0;
	while (evq_pop(&q, &e)) {
		assert_true(e.t > last || (e.t == last && e.seq > lastseq));
		last = e.t;
		lastseq = e.seq;
	}
	free(live);
	evq_fini(&q);
}

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Large queues go through the bucket rungs: the pop order must still be
 * exactly the sorted (time, seq) order of what was pushed, for times spread
 * wide, bunched, and equal. */
static void test_large_exact_order(void **state)
{
	(void)state;
	enum { N = 120000 };
	static const simtime spans[] = { 1, 7, 1000, 1000000000, (simtime)1 << 50 };
	for (size_t s = 0; s < sizeof spans / sizeof *spans; s++) {
		struct evq q;
		struct ev *ref = malloc(N * sizeof *ref), e;
		evq_init(&q, 16);
		for (int i = 0; i < N; i++) {
			simtime t = (simtime)(xs() % (uint64_t)spans[s]);
			if (i % 1000 == 0)
				t = spans[s] - 1;   /* a spike at the end */
			assert_int_equal(evq_push(&q, t, 0, i, 0, 0), 0);
			ref[i] = (struct ev){ .t = t, .seq = (uint64_t)i, .id = i };
		}
		qsort(ref, N, sizeof *ref, cmp_ev);
		for (int i = 0; i < N; i++) {
			assert_int_equal(evq_pop(&q, &e), 1);
			if (e.id != ref[i].id)
				fail_msg("span %lld: pop %d gave event %d at t=%lld, expected %d at t=%lld",
				         (long long)spans[s], i, e.id, (long long)e.t, ref[i].id, (long long)ref[i].t);
		}
		assert_int_equal(evq_pop(&q, &e), 0);
		free(ref);
		evq_fini(&q);
	}
}

/* The hold model as the engine uses a queue: every push is at or after the
 * last pop. Pops must come out in strictly increasing (time, seq), none
 * lost, across the small -> rung -> small transitions. */
static void test_hold_order(void **state)
{
	(void)state;
	struct evq q;
	struct ev e;
	evq_init(&q, 16);
	long pushed = 0, popped = 0;
	for (int i = 0; i < 30000; i++, pushed++)
		evq_push(&q, (simtime)(xs() % 100000), 0, i, 0, 0);
	simtime lt = -1;
	uint64_t ls = 0;
	for (int round = 0; round < 6; round++) {
		long holds = 200000;
		for (long i = 0; i < holds; i++) {
			assert_int_equal(evq_pop(&q, &e), 1);
			popped++;
			if (!(e.t > lt || (e.t == lt && e.seq > ls)))
				fail_msg("round %d: (%lld, %llu) popped after (%lld, %llu)", round,
				         (long long)e.t, (unsigned long long)e.seq, (long long)lt, (unsigned long long)ls);
			lt = e.t;
			ls = e.seq;
			uint64_t r = xs();
			simtime inc = r % 16 == 0 ? 0 : r % 97 == 0 ? (simtime)(r % 100000000) : (simtime)(r % 5000);
			assert_int_equal(evq_push(&q, e.t + inc, 0, 0, 0, 0), 0);
			pushed++;
		}
		/* Drain most of it (back towards a plain heap), then grow again. */
		long keep = round % 2 ? 10 : 20000;
		while ((long)evq_len(&q) > keep) {
			assert_int_equal(evq_pop(&q, &e), 1);
			popped++;
			assert_true(e.t > lt || (e.t == lt && e.seq > ls));
			lt = e.t;
			ls = e.seq;
		}
		for (int i = 0; i < 30000; i++, pushed++)
			evq_push(&q, lt + (simtime)(xs() % 1000000), 0, i, 0, 0);
	}
	while (evq_pop(&q, &e) == 1) {
		popped++;
		assert_true(e.t > lt || (e.t == lt && e.seq > ls));
		lt = e.t;
		ls = e.seq;
	}
	assert_int_equal(popped, pushed);
	assert_int_equal(evq_len(&q), 0);
	evq_fini(&q);
}

/* Heavy-tailed times make sparse coarse buckets, which are poured straight
 * into the heap; pushes keep coming while the queue is walked to its end. */
static void test_sparse_buckets(void **state)
{
	(void)state;
	struct evq q;
	struct ev e;
	evq_init(&q, 16);
	long pushed = 0, popped = 0;
	for (int i = 0; i < 20000; i++, pushed++)
		evq_push(&q, (simtime)exp((double)(xs() % 40000) / 1000.0), 0, i, 0, 0);
	simtime lt = -1;
	uint64_t ls = 0;
	while (evq_pop(&q, &e) == 1) {
		popped++;
		if (!(e.t > lt || (e.t == lt && e.seq > ls)))
			fail_msg("(%lld, %llu) popped after (%lld, %llu)", (long long)e.t,
			         (unsigned long long)e.seq, (long long)lt, (unsigned long long)ls);
		lt = e.t;
		ls = e.seq;
		uint64_t r = xs();
		if (r % 2 == 0 && pushed < 200000) {
			simtime inc = r % 8 == 0 ? 0 : (simtime)exp((double)(r % 30000) / 1000.0);
			assert_int_equal(evq_push(&q, e.t + inc, 0, 0, 0, 0), 0);
			pushed++;
		}
	}
	assert_int_equal(popped, pushed);
	evq_fini(&q);
}

/* A small coarse bucket is poured straight into the heap; an event pushed
 * into its time range afterwards must still come out in order. */
static void test_push_into_poured_bucket(void **state)
{
	(void)state;
	struct evq q;
	struct ev e;
	evq_init(&q, 16);
	for (int i = 0; i < EVQ_SMALL; i++)          /* fills the plain heap */
		evq_push(&q, i, 0, 0, 0, 0);
	for (int i = 0; i < 3000; i++)               /* dense, then sparse, then dense */
		evq_push(&q, 1000000 + i, 0, 1, 0, 0);
	for (int i = 0; i < 10; i++)
		evq_push(&q, 1000000000 + 10 * i, 0, 2, 0, 0);
	for (int i = 0; i < 3000; i++)
		evq_push(&q, 2000000000 + i, 0, 3, 0, 0);
	simtime last = -1;
	int n = 0, late = 0;
	bool pushed = false;
	while (evq_pop(&q, &e) == 1) {
		assert_true(e.t >= last);
		last = e.t;
		n++;
		late += e.id == 9;
		if (e.id == 2 && !pushed) {
			/* Inside the sparse bucket's range, after it was poured. */
			assert_int_equal(evq_push(&q, e.t + 5, 0, 9, 0, 0), 0);
			pushed = true;
		}
		if (e.id == 3)
			assert_int_equal(late, 1);   /* came out before the last group */
	}
	assert_int_equal(n, EVQ_SMALL + 6011);
	evq_fini(&q);
}

/* The hold model with exponential increments at sizes either side of the
 * plain-heap limit: the last coarse bucket is cut short at the rung's end,
 * with later events in the overflow (a fine rung laid past that end once
 * let them pop late). */
static void test_exponential_hold(void **state)
{
	(void)state;
	static const int sizes[] = { 3000, 5000, 9000, 40000 };
	for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
		struct evq q;
		struct ev e;
		evq_init(&q, 16);
		for (int i = 0; i < sizes[z]; i++) {
			double u = ((double)(xs() >> 11) + 0.5) / 9007199254740992.0;
			evq_push(&q, (simtime)(-log(u) * 1e6), 0, i, 0, 0);
		}
		simtime lt = -1;
		uint64_t ls = 0;
		for (long i = 0; i < 400000; i++) {
			assert_int_equal(evq_pop(&q, &e), 1);
			if (!(e.t > lt || (e.t == lt && e.seq > ls)))
				fail_msg("%d events, hold %ld: (%lld, %llu) popped after (%lld, %llu)", sizes[z], i,
				         (long long)e.t, (unsigned long long)e.seq, (long long)lt, (unsigned long long)ls);
			lt = e.t;
			ls = e.seq;
			double u = ((double)(xs() >> 11) + 0.5) / 9007199254740992.0;
			assert_int_equal(evq_push(&q, e.t + 1 + (simtime)(-log(u) * 1e6), 0, 0, 0, 0), 0);
			assert_int_equal(evq_len(&q), (size_t)sizes[z]);
		}
		evq_fini(&q);
	}
}

/* Property: whatever the mix of bursts of pushes (never before the last
 * pop) and pops, with increments zero, small, exponential or heavy-tailed,
 * every event pops exactly once and pops come in increasing (time, seq).
 * Together these are exactly "the queue returns the least event". */
static void test_random_property(void **state)
{
	(void)state;
	enum { MAXEV = 400000 };
	unsigned char *seen = calloc(MAXEV, 1);
	for (int round = 0; round < 12; round++) {
		struct evq q;
		struct ev e;
		evq_init(&q, 16);
		memset(seen, 0, MAXEV);
		int32_t next_id = 0;
		simtime lt = 0;
		uint64_t ls = 0;
		bool any = false;
		int mode = round % 4;
		while (next_id < MAXEV - 20000) {
			int burst = (int)(xs() % (round < 6 ? 5000 : 300)) + 1;
			for (int i = 0; i < burst && next_id < MAXEV - 20000; i++) {
				uint64_t r = xs();
				simtime inc = mode == 0 ? (simtime)(r % 3)
				            : mode == 1 ? (simtime)(r % 1000)
				            : mode == 2 ? (simtime)(-log(((double)(r >> 11) + 0.5) / 9007199254740992.0) * 1e6)
				                        : (simtime)exp((double)(r % 35000) / 1000.0);
				assert_int_equal(evq_push(&q, lt + inc, 0, next_id++, 0, 0), 0);
			}
			int pops = (int)(xs() % (unsigned)(burst + 200));
			for (int i = 0; i < pops && evq_len(&q) > 0; i++) {
				assert_int_equal(evq_pop(&q, &e), 1);
				if (any && !(e.t > lt || (e.t == lt && e.seq > ls)))
					fail_msg("round %d: (%lld, %llu) after (%lld, %llu)", round, (long long)e.t,
					         (unsigned long long)e.seq, (long long)lt, (unsigned long long)ls);
				assert_int_equal(seen[e.id]++, 0);
				lt = e.t;
				ls = e.seq;
				any = true;
			}
		}
		while (evq_pop(&q, &e) == 1) {
			assert_true(e.t > lt || (e.t == lt && e.seq > ls));
			assert_int_equal(seen[e.id]++, 0);
			lt = e.t;
			ls = e.seq;
		}
		for (int32_t i = 0; i < next_id; i++)
			if (seen[i] != 1)
				fail_msg("round %d: event %d popped %d times", round, i, seen[i]);
		evq_fini(&q);
	}
	free(seen);
}

/* A large queue sorts a bucket into its bottom; events pushed at the same
 * time afterwards go to the heap beside it and must come out after every
 * earlier event at that time, and an event pushed before the bottom's head
 * comes out first. A bucket of one time (a run the counting sort cannot
 * split) is ordered by sequence. */
static void test_ties_across_bottom_and_heap(void **state)
{
	(void)state;
	struct evq q;
	struct ev e;
	evq_init(&q, 16);
	enum { N = 3 * EVQ_SMALL };
	for (int i = 0; i < N; i++)
		assert_int_equal(evq_push(&q, i % 3 == 0 ? 100 : 200, 0, i, 0, 0), 0);
	assert_int_equal(evq_pop(&q, &e), 1);
	assert_int_equal(e.t, 100);
	assert_int_equal(e.id, 0);
	for (int i = 0; i < 50; i++)
		assert_int_equal(evq_push(&q, 100, 0, N + i, 0, 0), 0);
	assert_int_equal(evq_push(&q, 99, 0, -1, 0, 0), 0);
	assert_int_equal(evq_pop(&q, &e), 1);
	assert_int_equal(e.id, -1);
	int32_t last = 0;
	for (int k = 1; k < N / 3 + 50; k++) {
		assert_int_equal(evq_pop(&q, &e), 1);
		assert_int_equal(e.t, 100);
		assert_true(e.id > last);
		last = e.id;
	}
	assert_int_equal(last, N + 49);
	last = -1;
	while (evq_pop(&q, &e) == 1) {
		assert_int_equal(e.t, 200);
		assert_true(e.id > last);
		last = e.id;
	}
	assert_int_equal(evq_len(&q), 0);
	evq_fini(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_ties_in_insertion_order),
		cmocka_unit_test(test_random_against_reference),
		cmocka_unit_test(test_large_exact_order),
		cmocka_unit_test(test_hold_order),
		cmocka_unit_test(test_sparse_buckets),
		cmocka_unit_test(test_push_into_poured_bucket),
		cmocka_unit_test(test_exponential_hold),
		cmocka_unit_test(test_random_property),
		cmocka_unit_test(test_ties_across_bottom_and_heap),
	};
	return cmocka_run_group_tests_name("evq", tests, NULL, NULL);
}
