/* Tests of the synthetic workload generator. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"
#include "traces/trace.h"

static struct synth_cfg base_cfg(void)
{
	struct synth_cfg c;
	synth_cfg_init(&c);
	c.days = 30;
	c.cls[JOB_TRAINING] = (struct synth_class){
		.rate_per_h = 10, .dur_median_s = 7200, .dur_sigma = 1.2, .dur_max_s = 0,
		.walltime_factor = 1.5, .nmix = 5, .mix_gpus = { 0, 1, 4, 12, 16 },
		.mix_p = { 0.1, 0.4, 0.2, 0.2, 0.1 }, .cores_per_gpu = 12, .cpu_cores = 6,
		.mem_per_gpu_mib = 100000, .gpu_mem_mib = 40000, .fail_p = 0.2, .ntenants = 5,
	};
	c.cls[JOB_INFERENCE] = (struct synth_class){
		.rate_per_h = 3, .dur_median_s = 600, .dur_sigma = 0.8, .dur_max_s = 3600,
		.walltime_factor = 1, .nmix = 1, .mix_gpus = { 1 }, .mix_p = { 1 },
		.cores_per_gpu = 4, .mem_per_gpu_mib = 16384, .ntenants = 2,
	};
	return c;
}

static void gen(const struct synth_cfg *c, uint64_t seed, struct workload *w)
{
	char err[512] = "";
	if (trace_synth(c, seed, w, err, sizeof err) != 0)
		fail_msg("%s", err);
}

static bool same_job(const struct workload *a, int i, const struct workload *b, int k)
{
	const struct job *x = &a->jobs[i], *y = &b->jobs[k];
	return x->submit_us == y->submit_us && x->walltime_us == y->walltime_us &&
	       x->tenant == y->tenant && x->cls == y->cls && x->req.nodes == y->req.nodes &&
	       x->req.cores == y->req.cores && x->req.gpus == y->req.gpus &&
	       x->req.mem_mib == y->req.mem_mib && x->req.gpu_mem_mib == y->req.gpu_mem_mib &&
	       a->truth[i].run_us == b->truth[k].run_us && a->truth[i].fails == b->truth[k].fails;
}

static void test_same_seed(void **state)
{
	(void)state;
	struct synth_cfg c = base_cfg();
	struct workload a, b, d;
	gen(&c, 7, &a);
	gen(&c, 7, &b);
	gen(&c, 8, &d);
	assert_int_equal(a.n, b.n);
	for (int i = 0; i < a.n; i++) {
		assert_true(same_job(&a, i, &b, i));
		assert_int_equal(a.jobs[i].id, i);
		assert_int_equal(a.jobs[i].trace_id, i);
		assert_int_equal(a.jobs[i].state, JOB_PENDING);
		if (i > 0)
			assert_true(a.jobs[i - 1].submit_us <= a.jobs[i].submit_us);
	}
	int differ = a.n != d.n;
	for (int i = 0; !differ && i < a.n; i++)
		differ = !same_job(&a, i, &d, i);
	assert_true(differ);
	workload_free(&a);
	workload_free(&b);
	workload_free(&d);
}

/* Each class has its own stream: disabling one leaves the other's jobs unchanged. */
static void test_class_streams(void **state)
{
	(void)state;
	struct synth_cfg c = base_cfg();
	struct workload both, one;
	gen(&c, 99, &both);
	c.cls[JOB_TRAINING].rate_per_h = 0;
	gen(&c, 99, &one);
	int k = 0;
	for (int i = 0; i < both.n; i++) {
		if (both.jobs[i].cls != JOB_INFERENCE)
			continue;
		assert_true(k < one.n);
		assert_true(same_job(&both, i, &one, k));
		k++;
	}
	assert_int_equal(k, one.n);
	workload_free(&both);
	workload_free(&one);
}

static void test_arrivals_and_durations(void **state)
{
	(void)state;
	struct synth_cfg c = base_cfg();
	struct workload w;
	gen(&c, 1, &w);
	int64_t n[JOB_NCLASS] = { 0 };
	for (int i = 0; i < w.n; i++)
		n[w.jobs[i].cls]++;
	for (int k = 0; k < JOB_NCLASS; k++) {
		double expect = c.cls[k].rate_per_h * 24 * c.days;
		double sigma = sqrt(expect);
		if (fabs((double)n[k] - expect) > 4 * sigma + 1e-9)
			fail_msg("class %d: %lld arrivals, expected %.0f ± %.0f", k, (long long)n[k],
			         expect, 4 * sigma);
	}
	/* Every arrival lies inside the window. */
	assert_true(w.jobs[w.n - 1].submit_us < (simtime)c.days * SIMTIME_DAY);
	assert_true(w.jobs[0].submit_us >= 0);

	/* Medians of the durations, per class; walltimes; the truncation. */
	for (int k = 0; k < 2; k++) {
		int64_t *d = malloc((size_t)w.n * sizeof *d);
		assert_non_null(d);
		int m = 0, failed = 0;
		for (int i = 0; i < w.n; i++) {
			if (w.jobs[i].cls != k)
				continue;
			simtime run = w.truth[i].run_us, wall = w.jobs[i].walltime_us;
			d[m++] = run;
			failed += w.truth[i].fails;
			assert_true(run >= SIMTIME_SEC);
			assert_int_equal(wall % SIMTIME_MIN, 0);
			assert_true((double)wall >= (double)run * c.cls[k].walltime_factor - 1);
			assert_true(wall - (simtime)ceil((double)run * c.cls[k].walltime_factor / 1e6) *
			            SIMTIME_SEC < SIMTIME_MIN);
			if (c.cls[k].dur_max_s > 0)
				assert_true(run <= simtime_from_s(c.cls[k].dur_max_s));
			assert_true(w.jobs[i].tenant >= 0 && w.jobs[i].tenant < c.cls[k].ntenants);
		}
		/* Sort for the median (insertion sort is fine for a few thousand). */
		for (int i = 1; i < m; i++) {
			int64_t x = d[i];
			int j = i;
			for (; j > 0 && d[j - 1] > x; j--)
				d[j] = d[j - 1];
			d[j] = x;
		}
		double med = simtime_to_s(d[m / 2]);
		/* Truncation above dur_max_s pulls the median of class 1 down a little. */
		double want = c.cls[k].dur_median_s;
		if (fabs(med / want - 1) > (k == 1 ? 0.12 : 0.08))
			fail_msg("class %d: median duration %.0f s, expected about %.0f s", k, med, want);
		double fshare = (double)failed / m;
		assert_true(fabs(fshare - c.cls[k].fail_p) < 0.03);
		free(d);
	}
	workload_free(&w);
}

static void test_gang_shaping(void **state)
{
	(void)state;
	struct synth_cfg c = base_cfg();
	struct workload w;
	gen(&c, 3, &w);
	int seen[5] = { 0 };
	for (int i = 0; i < w.n; i++) {
		const struct job *j = &w.jobs[i];
		const struct job_req *r = &j->req;
		if (j->cls == JOB_INFERENCE) {
			assert_int_equal(r->nodes, 1);
			assert_int_equal(r->gpus, 1);
			assert_int_equal(r->cores, 4);
			assert_int_equal(r->mem_mib, 16384);
			assert_int_equal(r->gpu_mem_mib, 0);
			continue;
		}
		if (r->gpus == 0) { /* CPU-only */
			assert_int_equal(r->nodes, 1);
			assert_int_equal(r->cores, 6);
			assert_int_equal(r->mem_mib, 100000);
			assert_int_equal(r->gpu_mem_mib, 0);
			seen[0]++;
			continue;
		}
		assert_int_equal(r->cores, r->gpus * 12);
		assert_int_equal(r->mem_mib, (int64_t)r->gpus * 100000);
		assert_int_equal(r->gpu_mem_mib, 40000);
		if (r->nodes == 1 && r->gpus == 1)
			seen[1]++;
		else if (r->nodes == 1 && r->gpus == 4)
			seen[2]++;
		else if (r->nodes == 2 && r->gpus == 8)
			seen[3]++; /* 12 and 16 GPUs: both two full nodes */
		else
			fail_msg("unexpected shape: %d nodes × %d GPUs", r->nodes, r->gpus);
		assert_int_equal(job_req_gpus(r), (int64_t)r->nodes * r->gpus);
	}
	for (int k = 0; k < 4; k++)
		assert_true(seen[k] > 0);
	workload_free(&w);

	/* A single-GPU-per-node cluster: 4 GPUs become 4 nodes of 1. */
	c.gpus_per_node = 1;
	c.cls[JOB_TRAINING].nmix = 1;
	c.cls[JOB_TRAINING].mix_gpus[0] = 4;
	c.cls[JOB_TRAINING].mix_p[0] = 1;
	gen(&c, 3, &w);
	for (int i = 0; i < w.n; i++)
		if (w.jobs[i].cls == JOB_TRAINING) {
			assert_int_equal(w.jobs[i].req.nodes, 4);
			assert_int_equal(w.jobs[i].req.gpus, 1);
			assert_int_equal(w.jobs[i].req.cores, 12);
		}
	workload_free(&w);
}

struct bad_cfg {
	void (*edit)(struct synth_cfg *c);
	const char *want;
};

static void neg_rate(struct synth_cfg *c) { c->cls[JOB_TRAINING].rate_per_h = -1; }
static void bad_sum(struct synth_cfg *c) { c->cls[JOB_TRAINING].mix_p[0] = 0.05; }
static void bad_wf(struct synth_cfg *c) { c->cls[JOB_INFERENCE].walltime_factor = 0.5; }
static void no_class(struct synth_cfg *c)
{
	c->cls[JOB_TRAINING].rate_per_h = 0;
	c->cls[JOB_INFERENCE].rate_per_h = 0;
}
static void no_gpn(struct synth_cfg *c) { c->gpus_per_node = 0; }
static void bad_days(struct synth_cfg *c) { c->days = 0; }
static void bad_nmix(struct synth_cfg *c) { c->cls[JOB_TRAINING].nmix = SYNTH_MIX_MAX + 1; }
static void bad_p(struct synth_cfg *c) { c->cls[JOB_INFERENCE].fail_p = 1.5; }
static void bad_median(struct synth_cfg *c) { c->cls[JOB_TRAINING].dur_median_s = 0; }
static void bad_tenants(struct synth_cfg *c) { c->cls[JOB_INFERENCE].ntenants = 0; }
static void bad_cpu(struct synth_cfg *c) { c->cls[JOB_TRAINING].cpu_cores = 0; }
static void bad_gpus(struct synth_cfg *c) { c->cls[JOB_TRAINING].mix_gpus[1] = -2; }
static void too_many(struct synth_cfg *c) { c->cls[JOB_TRAINING].rate_per_h = 1e9; }
static void nan_sigma(struct synth_cfg *c) { c->cls[JOB_TRAINING].dur_sigma = NAN; }

static void test_bad_cfg(void **state)
{
	(void)state;
	static const struct bad_cfg cases[] = {
		{ neg_rate, "$.workload.synthetic.classes.training.rate_per_h: expected a number >= 0, got -1" },
		{ bad_sum, "$.workload.synthetic.classes.training.mix: the probabilities sum to 0.95, expected 1" },
		{ bad_wf, "$.workload.synthetic.classes.inference.walltime_factor: expected a number in [1, 1000], got 0.5" },
		{ no_class, "no class has rate_per_h > 0" },
		{ no_gpn, "$.workload.synthetic.gpus_per_node: expected >= 1 (class training asks for GPUs), got 0" },
		{ bad_days, "$.workload.synthetic.days: expected a number in (0, 36500], got 0" },
		{ bad_nmix, "$.workload.synthetic.classes.training.mix: expected 1 to 32 [gpus, p] pairs, got 33" },
		{ bad_p, "$.workload.synthetic.classes.inference.fail_p: expected a probability in [0, 1], got 1.5" },
		{ bad_median, "$.workload.synthetic.classes.training.dur_median_s: expected seconds in (0, 1e+09], got 0" },
		{ bad_tenants, "$.workload.synthetic.classes.inference.tenants: expected >= 1, got 0" },
		{ bad_cpu, "$.workload.synthetic.classes.training.cpu_cores: expected >= 1 (the mix has CPU-only jobs), got 0" },
		{ bad_gpus, "$.workload.synthetic.classes.training.mix[1]: expected a value in [0, 1000000], got -2" },
		{ too_many, "$.workload.synthetic.classes.training.rate_per_h: 1e+09 per hour" },
		{ nan_sigma, "$.workload.synthetic.classes.training.dur_sigma: expected a number >= 0, got nan" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct synth_cfg c = base_cfg();
		cases[i].edit(&c);
		struct workload w;
		char err[512] = "";
		int rc = trace_synth(&c, 1, &w, err, sizeof err);
		if (rc != -1 || !strstr(err, cases[i].want))
			fail_msg("case %zu: rc %d, message\n  %s\nexpected it to contain\n  %s", i, rc,
			         err, cases[i].want);
		assert_int_equal(w.n, 0);
		assert_null(w.jobs);
	}
	/* A sum within 1e-3 of 1 (what the scenario loader accepts) is fine. */
	struct synth_cfg c = base_cfg();
	c.cls[JOB_TRAINING].mix_p[0] = 0.0995;
	struct workload w;
	gen(&c, 1, &w);
	assert_true(w.n > 0);
	workload_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_seed),
		cmocka_unit_test(test_class_streams),
		cmocka_unit_test(test_arrivals_and_durations),
		cmocka_unit_test(test_gang_shaping),
		cmocka_unit_test(test_bad_cfg),
	};
	return cmocka_run_group_tests_name("synth", tests, NULL, NULL);
}
