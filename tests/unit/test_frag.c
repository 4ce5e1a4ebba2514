/* frag: the protocol on a tiny cluster and pod list. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#include "analysis/frag.h"

static struct gs_node node1(void)
{
	struct gs_node n;
	memset(&n, 0, sizeof n);
	n.ngpu = 1;
	n.gpu_free[0] = 1000;
	n.cpu_free = 4000;
	n.mem_free = 1000;
	return n;
}

/* Two 1-GPU nodes; pods: a whole GPU, a 500 share, a CPU-only pod and a
 * 2-GPU pod that fits nowhere. */
static void mkin(struct frag_input *in)
{
	struct gs_node n[2] = { node1(), node1() };
	struct gs_req p[4] = { { 1000, 100, 1, 1000 }, { 500, 100, 1, 500 }, { 1000, 100, 0, 0 },
	                       { 1000, 100, 2, 1000 } };
	assert_int_equal(frag_input_make(n, 2, p, 4, in), 0);
	assert_int_equal(in->gpu_milli_cap, 2000);
}

static void test_inflation_stops_right(void **st)
{
	(void)st;
	struct frag_input in;
	mkin(&in);
	double inflate = 3.0;   /* target 6000 milli; the list has 3500 */
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 7);
	int32_t *seq, n;
	assert_int_equal(frag_sequence(&in, inflate, r, &seq, &n), 0);
	/* Replay the draws by hand with the same seed. */
	gsl_rng_set(r, 7);
	int64_t total = 3500;
	int32_t added = 0;
	for (;;) {
		int32_t j = (int32_t)gsl_rng_uniform_int(r, 4);
		if (total + in.pod[j].gpu_milli > 6000)
			break;
		total += (int64_t)in.pod[j].num_gpu * in.pod[j].gpu_milli;
		added++;
	}
	assert_int_equal(n, 4 + added);
	int64_t sum = 0;
	int seen[4] = { 0 };
	for (int32_t i = 0; i < n; i++) {
		sum += (int64_t)in.pod[seq[i]].num_gpu * in.pod[seq[i]].gpu_milli;
		seen[seq[i]]++;
	}
	assert_int_equal(sum, total);
	for (int k = 0; k < 4; k++)
		assert_true(seen[k] >= 1);      /* the originals are all there */
	/* Deterministic per seed, different across seeds. */
	int32_t *s2, n2;
	gsl_rng_set(r, 7);
	assert_int_equal(frag_sequence(&in, inflate, r, &s2, &n2), 0);
	assert_int_equal(n2, n);
	assert_memory_equal(s2, seq, (size_t)n * sizeof *seq);
	free(s2);
	gsl_rng_set(r, 8);
	assert_int_equal(frag_sequence(&in, inflate, r, &s2, &n2), 0);
	assert_true(n2 != n || memcmp(s2, seq, (size_t)n * sizeof *seq) != 0);
	free(s2);
	free(seq);
	gsl_rng_free(r);
	frag_input_free(&in);
}

static void test_run_invariants(void **st)
{
	(void)st;
	struct frag_input in;
	mkin(&in);
	char err[256];
	for (int k = 0; gpushare_table[k]; k++) {
		static struct frag_result res;
		assert_int_equal(frag_run(&in, gpushare_table[k], 3.0, 42, &res, err, sizeof err), 0);
		assert_int_equal(res.placed + res.failed, res.npods);
		assert_true(res.failed >= 1);           /* every 2-GPU pod fails */
		assert_true(res.alloc_milli <= in.gpu_milli_cap);
		assert_true(res.cpu_alloc <= 8000);
		assert_true(res.mem_alloc <= 2000);
		assert_true(res.nsteps >= 100);
		for (int i = 0; i < res.nsteps; i++) {
			const struct frag_step *s = &res.step[i];
			assert_int_equal(s->pct, i + 1);
			assert_true(s->arrived_milli * 100 >= (int64_t)s->pct * 2000);
			assert_true(s->alloc_milli <= s->arrived_milli && s->alloc_milli <= 2000);
			assert_true(s->frag_milli >= 0 && s->frag_milli <= 2000 - s->alloc_milli + 1e-9);
		}
		/* Same seed, same result. */
		static struct frag_result again;
		assert_int_equal(frag_run(&in, gpushare_table[k], 3.0, 42, &again, err, sizeof err), 0);
		assert_int_equal(again.alloc_milli, res.alloc_milli);
		assert_int_equal(again.failed, res.failed);
	}
	frag_input_free(&in);
}

static void test_db_roundtrip(void **st)
{
	(void)st;
	struct frag_input in;
	mkin(&in);
	char err[256], path[64];
	snprintf(path, sizeof path, "/tmp/test_frag_%ld.db", (long)getpid());
	static struct frag_result res[2];
	assert_int_equal(frag_run(&in, gpushare_find("bestfit"), 1.0, 1, &res[0], err, sizeof err), 0);
	assert_int_equal(frag_run(&in, gpushare_find("bestfit"), 1.0, 2, &res[1], err, sizeof err), 0);
	struct frag_meta m = { "n.csv", "p.csv", 1.0, 2000 };
	assert_int_equal(frag_write_db(path, &m, 2, res, err, sizeof err), 0);
	assert_int_equal(frag_db_is(path), 1);
	struct frag_cell c[4];
	int nc;
	assert_int_equal(frag_table_at(path, 50, c, 4, &nc, err, sizeof err), 0);
	assert_int_equal(nc, 1);
	assert_int_equal(c[0].n, 2);
	/* allocation ratio = alloc milli / capacity, averaged */
	double want = 0;
	for (int k = 0; k < 2; k++)
		want += 100.0 * (double)res[k].step[49].alloc_milli / 2000 / 2;
	assert_true(fabs(c[0].alloc_mean - want) < 1e-9);
	FILE *f = fopen("/dev/null", "w");
	assert_int_equal(frag_report(path, 1, f, err, sizeof err), 0);
	assert_int_equal(frag_report(path, 0, f, err, sizeof err), 0);
	fclose(f);
	unlink(path);
	frag_input_free(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inflation_stops_right),
		cmocka_unit_test(test_run_invariants),
		cmocka_unit_test(test_db_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
