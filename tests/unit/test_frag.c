/* frag: the protocol on small clusters and pod lists; the published
 * reference table; gpu_spec; workers. */
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

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "experiments/frag.h"
#include "experiments/fragref.h"

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

static struct gs_req pod(int64_t cpu, int32_t num, int32_t milli)
{
	return (struct gs_req){ .cpu_milli = cpu, .mem_mib = 100, .num_gpu = num, .gpu_milli = milli };
}

/* Two 1-GPU nodes; pods: a whole GPU, a 500 share, a CPU-only pod and a
 * 2-GPU pod that fits nowhere. */
static void mkin(struct frag_input *in)
{
	struct gs_node n[2] = { node1(), node1() };
	struct gs_req p[4] = { pod(1000, 1, 1000), pod(500, 1, 500), pod(1000, 0, 0),
	                       pod(1000, 2, 1000) };
	assert_int_equal(frag_input_make(n, 2, p, 4, in), 0);
	assert_int_equal(in->gpu_milli_cap, 2000);
}

/* 100 1-GPU nodes, so that one pod moves the arrived share by at most 1 %. */
static void mkbig(struct frag_input *in)
{
	static struct gs_node n[100];
	for (int i = 0; i < 100; i++)
		n[i] = node1();
	struct gs_req p[5] = { pod(1000, 1, 1000), pod(500, 1, 500), pod(1000, 0, 0),
	                       pod(1000, 2, 1000), pod(200, 1, 100) };
	assert_int_equal(frag_input_make(n, 100, p, 5, in), 0);
}

static void test_sequence_shuffles_then_tunes(void **st)
{
	(void)st;
	struct frag_input in;
	mkin(&in);
	double inflate = 3.0;   /* target 6000 milli; the list has 3500 */
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 7);
	int32_t *seq, n;
	assert_int_equal(frag_sequence(&in, inflate, r, &seq, &n), 0);
	/* Replay the draws by hand with the same seed: the list shuffled, then
	 * pods drawn and appended until the next one's per-GPU milli would
	 * pass the target. */
	gsl_rng_set(r, 7);
	int32_t want[64] = { 0, 1, 2, 3 };
	gsl_ran_shuffle(r, want, 4, sizeof want[0]);
	int64_t total = 3500;
	int32_t k = 4;
	for (;;) {
		int32_t j = (int32_t)gsl_rng_uniform_int(r, 4);
		if (total + in.pod[j].gpu_milli > 6000)
			break;
		total += (int64_t)in.pod[j].num_gpu * in.pod[j].gpu_milli;
		want[k++] = j;
	}
	assert_int_equal(n, k);
	assert_memory_equal(seq, want, (size_t)n * sizeof *seq);
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
	/* Over the target: random pods removed until at or under it. */
	gsl_rng_set(r, 7);
	assert_int_equal(frag_sequence(&in, 1.0, r, &s2, &n2), 0);
	int64_t sum = 0;
	for (int32_t i = 0; i < n2; i++)
		sum += (int64_t)in.pod[s2[i]].num_gpu * in.pod[s2[i]].gpu_milli;
	assert_true(sum <= 2000 && n2 < 4);
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
		for (int i = 0; i < res.nsteps; i++) {
			const struct frag_step *s = &res.step[i];
			assert_true(s->events >= 1);
			assert_true(i == 0 || s->pct > res.step[i - 1].pct);
			assert_true(s->alloc_milli <= s->arrived_milli && s->alloc_milli <= 2000);
			assert_true(s->alloc_ratio >= 0 && s->alloc_ratio <= 1);
			assert_true(s->frag_ratio >= 0 && s->frag_ratio <= 1 + 1e-9);
		}
		/* Same seed, same result. */
		static struct frag_result again;
		assert_int_equal(frag_run(&in, gpushare_table[k], 3.0, 42, &again, err, sizeof err), 0);
		assert_int_equal(again.alloc_milli, res.alloc_milli);
		assert_int_equal(again.failed, res.failed);
		assert_int_equal(again.nsteps, res.nsteps);
	}
	frag_input_free(&in);
}

/* The missing end point: at inflate 1.3 every step 0..130 is
 * there, 130 included, each the mean of the events rounding to it. */
static void test_steps_reach_130(void **st)
{
	(void)st;
	struct frag_input in;
	mkbig(&in);
	char err[256];
	static struct frag_result res;
	assert_int_equal(frag_run(&in, gpushare_find("fgd"), 1.3, 42, &res, err, sizeof err), 0);
	assert_int_equal(res.nsteps, 131);
	assert_int_equal(res.step[0].pct, 0);
	assert_int_equal(res.step[130].pct, 130);
	assert_true(res.step[130].events >= 1);
	assert_true(res.step[100].alloc_ratio > res.step[50].alloc_ratio);
	/* A mean over events rounding to pct: never above the last one's state. */
	for (int i = 0; i < res.nsteps; i++)
		assert_true(res.step[i].alloc_ratio <= (double)res.step[i].alloc_milli / 100000 + 1e-12);
	frag_input_free(&in);
}

/* Workers give the runs of one process, in the same order. */
static void test_run_all_workers(void **st)
{
	(void)st;
	struct frag_input in;
	mkbig(&in);
	char err[256];
	const struct gpu_placement *gp[2] = { gpushare_find("random"), gpushare_find("packing") };
	uint64_t seeds[3] = { 42, 43, 44 };
	static struct frag_result a[6], b[6];
	assert_int_equal(frag_run_all(&in, gp, 2, seeds, 3, 1.3, 1, a, err, sizeof err), 0);
	assert_int_equal(frag_run_all(&in, gp, 2, seeds, 3, 1.3, 2, b, err, sizeof err), 0);
	for (int i = 0; i < 6; i++) {
		assert_string_equal(a[i].policy, b[i].policy);
		assert_int_equal(a[i].seed, b[i].seed);
		assert_int_equal(a[i].alloc_milli, b[i].alloc_milli);
		assert_int_equal(a[i].nsteps, b[i].nsteps);
		assert_memory_equal(a[i].step, b[i].step, (size_t)a[i].nsteps * sizeof a[i].step[0]);
	}
	assert_string_equal(a[3].policy, "packing");
	assert_int_equal(a[4].seed, 43);
	frag_input_free(&in);
}

static void test_db_roundtrip(void **st)
{
	(void)st;
	struct frag_input in;
	mkbig(&in);
	char err[256], path[64];
	snprintf(path, sizeof path, "/tmp/test_frag_%ld.db", (long)getpid());
	static struct frag_result res[2];
	assert_int_equal(frag_run(&in, gpushare_find("bestfit"), 1.3, 1, &res[0], err, sizeof err), 0);
	assert_int_equal(frag_run(&in, gpushare_find("bestfit"), 1.3, 2, &res[1], err, sizeof err), 0);
	struct frag_meta m = { "n.csv", "dir/openb_pod_list_cpu037.csv", 1.3, 100000 };
	assert_int_equal(frag_write_db(path, &m, 2, res, err, sizeof err), 0);
	assert_int_equal(frag_db_is(path), 1);
	struct frag_cell c[4];
	int nc;
	assert_int_equal(frag_table_at(path, 50, c, 4, &nc, err, sizeof err), 0);
	assert_int_equal(nc, 1);
	assert_int_equal(c[0].n, 2);
	double want = 100.0 * (res[0].step[50].alloc_ratio + res[1].step[50].alloc_ratio) / 2;
	assert_true(fabs(c[0].alloc_mean - want) < 1e-9);
	/* cpu037 has no published values: the table has no reference column. */
	char buf[8192] = "";
	FILE *f = fmemopen(buf, sizeof buf - 1, "w");
	assert_int_equal(frag_print_table(path, f, err, sizeof err), 0);
	fclose(f);
	assert_non_null(strstr(buf, "end point, 130 %"));
	assert_null(strstr(buf, "paper "));
	assert_non_null(strstr(buf, "no published reference for pod list cpu037"));
	/* The report shows the end point too. */
	f = fmemopen(buf, sizeof buf - 1, "w");
	assert_int_equal(frag_report(path, 0, f, err, sizeof err), 0);
	fclose(f);
	assert_non_null(strstr(buf, "     130 "));
	assert_non_null(strstr(buf, "end point, 130 %"));
	f = fopen("/dev/null", "w");
	assert_int_equal(frag_report(path, 1, f, err, sizeof err), 0);
	fclose(f);
	unlink(path);
	/* A list with published values gets them beside each cell. */
	m.pods = "openb_pod_list_default.csv";
	assert_int_equal(frag_write_db(path, &m, 2, res, err, sizeof err), 0);
	f = fmemopen(buf, sizeof buf - 1, "w");
	assert_int_equal(frag_print_table(path, f, err, sizeof err), 0);
	fclose(f);
	assert_non_null(strstr(buf, "paper"));
	assert_non_null(strstr(buf, "92.86"));  /* BestFit, default, 100 % */
	unlink(path);
	frag_input_free(&in);
}

static void test_reference_table(void **st)
{
	(void)st;
	double v = 0;
	assert_int_equal(fragref_get("default", "fgd", 100, &v), 1);
	assert_true(fabs(v - 95.227) < 1e-9);
	assert_int_equal(fragref_get("cpu050", "random", 100, &v), 1);
	assert_true(fabs(v - 89.02) < 0.01);   /* the cpu050 Random value */
	assert_int_equal(fragref_get("gpuspec33", "fgd", 130, &v), 1);
	assert_int_equal(fragref_get("cpu037", "fgd", 100, &v), 0);
	assert_int_equal(fragref_get("default", "nosuch", 100, &v), 0);
	assert_int_equal(fragref_get("default", "fgd", 131, &v), 0);
	assert_int_equal(fragref_has_list("multigpu50"), 1);
	assert_int_equal(fragref_has_list("cpu0"), 0);
	/* "cpu0" must not match the "cpu050" rows. */
	assert_int_equal(fragref_get("cpu0", "fgd", 100, &v), 0);
	char name[64];
	fragref_list_name("/x/y/openb_pod_list_gpushare40.csv", name, sizeof name);
	assert_string_equal(name, "gpushare40");
	fragref_list_name("mine.csv", name, sizeof name);
	assert_string_equal(name, "mine");
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char nodes_csv[] =
	"sn,cpu_milli,memory_mib,gpu,model\n"
	"n0,32000,65536,2,T4\n"
	"n1,32000,65536,2,V100M32\n"
	"n2,32000,65536,0,\n";

/* gpu_spec: a pod runs only on the models it names; the typical pods keep
 * the spec; a pod none of whose models the cluster has is an error. */
static void test_gpu_spec(void **st)
{
	(void)st;
	char np[64], pp[64], err[512];
	snprintf(np, sizeof np, "/tmp/test_frag_n_%ld.csv", (long)getpid());
	snprintf(pp, sizeof pp, "/tmp/test_frag_p_%ld.csv", (long)getpid());
	write_file(np, nodes_csv);
	write_file(pp, "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos\n"
	               "p0,1000,100,1,1000,V100M32,LS\n"
	               "p1,1000,100,1,1000,V100M32,LS\n"
	               "p2,1000,100,1,500,G1|V100M32|,LS\n"
	               "p3,1000,100,0,0,T4,LS\n"
	               "p4,1000,100,1,1000,,LS\n");
	struct frag_input in;
	assert_int_equal(frag_input_load(np, pp, &in, err, sizeof err), 0);
	assert_int_equal(in.nmodels, 2);
	assert_int_equal(in.constrained, 3);   /* p3 asks no GPU: its spec binds nothing */
	uint32_t v100 = in.node[1].model_bit, t4 = in.node[0].model_bit;
	assert_true(v100 && t4 && v100 != t4 && in.node[2].model_bit == 0);
	assert_int_equal(in.pod[0].models, v100);
	assert_int_equal(in.pod[2].models, v100);       /* G1 is not in the cluster */
	assert_int_equal(in.pod[3].models, 0);
	assert_int_equal(in.pod[4].models, 0);
	assert_string_equal(in.spec[in.pod[2].spec], "G1|V100M32");
	assert_true(in.pod[0].spec == in.pod[1].spec && in.pod[0].spec != in.pod[2].spec);
	assert_true(!gs_fits(&in.node[0], &in.pod[0]) && gs_fits(&in.node[1], &in.pod[0]));
	assert_true(gs_fits(&in.node[0], &in.pod[4]));
	/* Three V100-only pods for two V100 GPUs: whatever the policy, the
	 * T4 GPUs take none of them. */
	for (int k = 0; gpushare_table[k]; k++) {
		static struct frag_result res;
		assert_int_equal(frag_run(&in, gpushare_table[k], 0.9, 1, &res, err, sizeof err), 0);
		assert_true(res.alloc_milli <= 2000 + 1000 + 1000);
	}
	/* The typical pods keep the spec as a shape of its own. */
	int have_spec = 0;
	for (int i = 0; i < in.typ.n; i++)
		have_spec |= in.typ.pod[i].models == v100;
	assert_true(have_spec);
	/* A T4 node counts all its idle GPU as fragmented for a V100-only typical pod. */
	struct gs_req tp = pod(1000, 1, 1000);
	tp.models = v100;
	double one = 1;
	struct gs_typical typ = { 1, &tp, &one };
	assert_true(fabs(gs_frag(&in.node[0], &typ) - 2000) < 1e-9);
	assert_true(fabs(gs_frag(&in.node[1], &typ) - 0) < 1e-9);
	frag_input_free(&in);
	/* None of the pod's models in the cluster: an error naming the pod. */
	write_file(pp, "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos\n"
	               "p0,1000,100,1,1000,T4,LS\n"
	               "podx,1000,100,1,1000,A100|H100,LS\n");
	assert_int_equal(frag_input_load(np, pp, &in, err, sizeof err), -1);
	assert_non_null(strstr(err, ":3: pod podx asks for GPU model A100|H100"));
	assert_non_null(strstr(err, np));
	unlink(np);
	unlink(pp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequence_shuffles_then_tunes),
		cmocka_unit_test(test_run_invariants),
		cmocka_unit_test(test_steps_reach_130),
		cmocka_unit_test(test_run_all_workers),
		cmocka_unit_test(test_db_roundtrip),
		cmocka_unit_test(test_reference_table),
		cmocka_unit_test(test_gpu_spec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
