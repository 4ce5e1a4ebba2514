/* slurm_track: what the Slurm executor keeps of each job, by state id
 * (live/exec/slurm_track.c) — ids far beyond max_jobs (a daemon whose
 * ended jobs left the engine), every entry found after thousands of
 * additions and removals in random order (the backward-shift removal
 * never cuts a probe short), an entry's address stable while it is kept
 * (the table grows by moving pointers), a missing id not found. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "live/exec/slurm_glue.h"

#define N 5000

static void test_add_find_drop(void **state)
{
	(void)state;
	struct sx_exec x;
	memset(&x, 0, sizeof x);
	static struct sx_jobtrack *at[N];
	static bool kept[N];
	/* Ids spread out, as a long-lived state's are (and colliding in the
	 * low bits: multiples of 64). */
	for (int i = 0; i < N; i++) {
		int64_t key = (int64_t)i * 64 + 1000000000;
		at[i] = sx_track_get(&x, key);
		assert_non_null(at[i]);
		assert_int_equal(at[i]->key, key);
		assert_int_equal(at[i]->sid, -1);
		assert_int_equal(at[i]->attempt, -1);
		at[i]->sid = i;
		kept[i] = true;
	}
	assert_int_equal(x.njt, N);
	assert_ptr_equal(sx_track_get(&x, 1000000000), at[0]);   /* found, not added */
	assert_int_equal(x.njt, N);
	unsigned seed = 7;
	for (int round = 0; round < 4 * N; round++) {
		int i = (int)(rand_r(&seed) % N);
		int64_t key = (int64_t)i * 64 + 1000000000;
		if (kept[i]) {
			sx_track_drop(&x, key);
			kept[i] = false;
		} else {
			at[i] = sx_track_get(&x, key);
			assert_non_null(at[i]);
			at[i]->sid = i;
			kept[i] = true;
		}
		if (round % 97 == 0) {
			int n = 0;
			for (int k = 0; k < N; k++) {
				int64_t kk = (int64_t)k * 64 + 1000000000;
				struct sx_jobtrack *t = sx_track_find(&x, kk);
				if (kept[k]) {
					assert_ptr_equal(t, at[k]);
					assert_int_equal(t->sid, k);
					n++;
				} else {
					assert_null(t);
				}
			}
			assert_int_equal(x.njt, n);
		}
	}
	assert_null(sx_track_find(&x, 5));
	sx_track_drop(&x, 5);   /* not there: nothing */
	sx_track_free(&x);
	assert_int_equal(x.njt, 0);
	assert_null(sx_track_find(&x, 1000000000));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_find_drop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
