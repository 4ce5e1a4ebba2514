/* Event queue: order by (time, insertion) under random pushes and pops. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_ties_in_insertion_order),
		cmocka_unit_test(test_random_against_reference),
	};
	return cmocka_run_group_tests_name("evq", tests, NULL, NULL);
}
