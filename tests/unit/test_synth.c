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
#include <unistd.h>

#include "tests/testutil.h"
#include "config/scenario.h"
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

/* FNV-1a over the fields a job had before the request knobs existed. */
static uint64_t fnv(uint64_t h, int64_t x)
{
	for (int i = 0; i < 8; i++) {
		h ^= (uint64_t)(x >> (8 * i)) & 0xff;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t wl_hash(const struct workload *w)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (int32_t i = 0; i < w->n; i++) {
		const struct job *j = &w->jobs[i];
		const int64_t f[] = { j->submit_us, j->walltime_us, j->ckpt_every_us, j->tenant, j->group,
			j->cls, j->trace_id, j->req.nodes, j->req.cores, j->req.gpus, j->req.mem_mib,
			j->req.gpu_mem_mib, (int64_t)j->req.gpu_models, w->truth[i].run_us, w->truth[i].fails };
		for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
			h = fnv(h, f[k]);
	}
	return h;
}

/* base_cfg with a third class using every older knob — Weibull, profile,
 * bursts, cpu mix, spread, tenant weights, checkpoints, size scale — and a
 * service with noise. */
static struct synth_cfg busy_cfg(void)
{
	struct synth_cfg c = base_cfg();
	c.days = 14;
	c.scale_size = 1.5;
	struct synth_class *k = &c.cls[JOB_DEV];
	*k = (struct synth_class){
		.rate_per_h = 6, .dur_dist = SYNTH_WEIBULL, .dur_shape = 0.7, .dur_scale_s = 3000,
		.walltime_factor = 2, .nmix = 2, .mix_gpus = { 0, 1 }, .mix_p = { 0.5, 0.5 },
		.ncpu_mix = 2, .cpu_mix = { 4, 16 }, .cpu_mix_p = { 0.5, 0.5 }, .spread = true,
		.cores_per_gpu = 4, .ntenants = 3, .tenant_w = { 1, 2, 3 }, .burst_p = 0.2,
		.burst_mean = 3, .burst_gap_s = 30, .ckpt_every_s = 600, .fail_p = 0.1,
	};
	for (int h = 0; h < SYNTH_HOURS; h++)
		k->profile[h] = 1 + h % 7;
	c.nservices = 1;
	struct synth_service *v = &c.svc[0];
	snprintf(v->name, sizeof v->name, "api");
	v->peak_rps = 600;
	v->trough_rps = 80;
	v->peak_hour = 21;
	v->weekend_factor = 1.2;
	v->noise_sigma = 0.1;
	v->rps_per_replica = 60;
	v->step_s = 600;
	v->min_replicas = 2;
	v->max_replicas = 12;
	v->gpus = 1;
	v->cores = 8;
	v->gpu_mem_mib = 24576;
	return c;
}

/* The determinism promise: without the request knobs a seed gives exactly
 * the jobs it gave before they existed. The counts and hashes were taken
 * from the generator as it was before the knobs (commit 7501bd8). */
static void test_pinned_without_knobs(void **state)
{
	(void)state;
	struct synth_cfg a = base_cfg(), b = busy_cfg();
	const struct {
		const struct synth_cfg *c;
		uint64_t seed;
		int32_t n;
		uint64_t hash;
	} pins[] = {
		{ &a, 7, 9303, 0x6bba436c9153bffbULL },
		{ &a, 8, 9193, 0xa2e047e8ac746acaULL },
		{ &b, 3, 8483, 0x5eb06d453b2c6cb2ULL },
	};
	for (size_t i = 0; i < sizeof pins / sizeof pins[0]; i++) {
		struct workload w;
		gen(pins[i].c, pins[i].seed, &w);
		assert_int_equal(w.n, pins[i].n);
		if (wl_hash(&w) != pins[i].hash)
			fail_msg("pin %zu: hash 0x%016llx, expected 0x%016llx", i,
			         (unsigned long long)wl_hash(&w), (unsigned long long)pins[i].hash);
		assert_int_equal(w.nstr, 0);
		for (int32_t k = 0; k < w.n; k++) {
			const struct job_req *r = &w.jobs[k].req;
			assert_false(r->gpu_milli || r->mig_g || r->flags || r->precision || r->sel_req ||
			             r->sel_pref || r->plane || r->pool || r->io_mbps || r->storage_gib);
		}
		workload_free(&w);
	}

	/* Knobs that draw nothing change only their own fields. */
	struct synth_class *k = &b.cls[JOB_TRAINING];
	k->precision = PREC_FP32;
	k->flags = REQ_AVX512;
	snprintf(k->require, sizeof k->require, "gpu.mem_gib>=40");
	snprintf(k->plane, sizeof k->plane, "ib200");
	snprintf(k->pool, sizeof k->pool, "scratch");
	k->storage_gib = 10;
	snprintf(b.svc[0].prefer, sizeof b.svc[0].prefer, "zone=a");
	struct workload w;
	gen(&b, 3, &w);
	assert_int_equal(w.n, 8483);
	assert_true(wl_hash(&w) == 0x5eb06d453b2c6cb2ULL);
	assert_int_equal(w.nstr, 4);
	workload_free(&w);

	/* A drawing knob in one class leaves the others' jobs as they were. */
	struct workload before, after;
	b = busy_cfg();
	gen(&b, 3, &before);
	b.cls[JOB_TRAINING].mig_p = 0.5;
	b.cls[JOB_TRAINING].nmig = 1;
	b.cls[JOB_TRAINING].mig_mix[0] = 2;
	b.cls[JOB_TRAINING].mig_mix_p[0] = 1;
	b.cls[JOB_TRAINING].fp8_p = 0.5;
	gen(&b, 3, &after);
	int32_t ka = 0;
	for (int32_t i = 0; i < before.n; i++) {
		if (before.jobs[i].cls == JOB_TRAINING)
			continue;
		while (ka < after.n && after.jobs[ka].cls == JOB_TRAINING)
			ka++;
		assert_true(ka < after.n);
		assert_true(same_job(&before, i, &after, ka));
		ka++;
	}
	workload_free(&before);
	workload_free(&after);
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
static void mig_p_big(struct synth_cfg *c)
{
	c->cls[JOB_TRAINING].mig_p = 1.5;
}
static void mig_no_mix(struct synth_cfg *c) { c->cls[JOB_TRAINING].mig_p = 0.5; }
static void mig_eight(struct synth_cfg *c)
{
	struct synth_class *k = &c->cls[JOB_TRAINING];
	k->mig_p = 0.5;
	k->nmig = 2;
	k->mig_mix[0] = 3;
	k->mig_mix_p[0] = 0.5;
	k->mig_mix[1] = 8;
	k->mig_mix_p[1] = 0.5;
}
static void share_milli(struct synth_cfg *c)
{
	struct synth_class *k = &c->cls[JOB_INFERENCE];
	k->share_p = 1;
	k->nshare = 1;
	k->share_mix[0] = 1001;
	k->share_mix_p[0] = 1;
}
static void share_sum(struct synth_cfg *c)
{
	struct synth_class *k = &c->cls[JOB_INFERENCE];
	k->share_p = 1;
	k->nshare = 1;
	k->share_mix[0] = 100;
	k->share_mix_p[0] = 0.5;
}
static void fp8_p_neg(struct synth_cfg *c) { c->cls[JOB_INFERENCE].fp8_p = -0.1; }
static void bad_prec(struct synth_cfg *c) { c->cls[JOB_INFERENCE].precision = PREC_N; }
static void fp8_flag(struct synth_cfg *c) { c->cls[JOB_INFERENCE].flags = REQ_FP8; }
static void bad_require(struct synth_cfg *c)
{
	snprintf(c->cls[JOB_TRAINING].require, SYNTH_EXPR_MAX, "gpu.mem_gib >=");
}
static void bad_prefer(struct synth_cfg *c)
{
	snprintf(c->cls[JOB_INFERENCE].prefer, SYNTH_EXPR_MAX, "rack in (a");
}
static void io_no_pool(struct synth_cfg *c) { c->cls[JOB_TRAINING].io_mbps = 10; }
static void svc_mig_gpus(struct synth_cfg *c)
{
	c->nservices = 1;
	c->svc[0] = (struct synth_service){ .peak_rps = 1, .rps_per_replica = 1, .step_s = 60,
		.max_replicas = 1, .gpus = 2, .cores = 1, .mig_g = 3 };
}
static void svc_both(struct synth_cfg *c)
{
	svc_mig_gpus(c);
	c->svc[0].gpus = 1;
	c->svc[0].gpu_milli = 200;
}
static void svc_require(struct synth_cfg *c)
{
	svc_mig_gpus(c);
	c->svc[0].gpus = 1;
	snprintf(c->svc[0].require, SYNTH_EXPR_MAX, "a=");
}

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
		{ mig_p_big, "$.workload.synthetic.classes.training.mig.p: expected a probability in [0, 1], got 1.5" },
		{ mig_no_mix, "$.workload.synthetic.classes.training.mig.mix: expected 1 to 32 [compute slices, p] pairs, got 0" },
		{ mig_eight, "$.workload.synthetic.classes.training.mig.mix[1]: expected a value in [1, 7], got 8" },
		{ share_milli, "$.workload.synthetic.classes.inference.share.milli[0]: expected a value in [1, 1000], got 1001" },
		{ share_sum, "$.workload.synthetic.classes.inference.share.milli: the probabilities sum to 0.5, expected 1" },
		{ fp8_p_neg, "$.workload.synthetic.classes.inference.fp8_p: expected a probability in [0, 1], got -0.1" },
		{ bad_prec, "$.workload.synthetic.classes.inference.precision: unknown precision 3" },
		{ fp8_flag, "$.workload.synthetic.classes.inference: flags 0x1: only numa_local and isa are class-wide" },
		{ bad_require, "$.workload.synthetic.classes.training.require: bad label expression 'gpu.mem_gib >=': " },
		{ bad_prefer, "$.workload.synthetic.classes.inference.prefer: bad label expression 'rack in (a': " },
		{ io_no_pool, "$.workload.synthetic.classes.training.io_mbps: storage bandwidth and capacity are taken on a pool" },
		{ svc_mig_gpus, "$.workload.synthetic.services[0].mig: a share of one GPU needs gpus 1, got 2" },
		{ svc_both, "$.workload.synthetic.services[0]: mig and gpu_milli exclude each other" },
		{ svc_require, "$.workload.synthetic.services[0].require: bad label expression 'a=': " },
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

/* A model file with the request knobs loads into the class and service
 * fields; each bad value is an error at its JSON path. */
#define MODEL_HEAD "{\"days\": 1, \"classes\": {\"training\": {\"rate_per_h\": 1, " \
	"\"dur_median_s\": 60, \"dur_sigma\": 1, \"mix\": [[1, 1]]"
#define MODEL_TAIL "}}}"

static int load_model(const char *text, struct synth_cfg *c, char *err, size_t errlen)
{
	char *p = tu_write_tmp(".json", text);
	int rc = synth_load_file(p, c, err, errlen);
	unlink(p);
	free(p);
	return rc;
}

static void test_load_knobs(void **state)
{
	(void)state;
	struct synth_cfg *c = malloc(sizeof *c);
	assert_non_null(c);
	char err[1024] = "";
	const char *good = "{\"days\": 1, \"classes\": {\"training\": {\"rate_per_h\": 1, "
		"\"dur_median_s\": 60, \"dur_sigma\": 1, \"mix\": [[1, 1]], "
		"\"mig\": {\"p\": 0.4, \"mix\": [[1, 0.5], [7, 0.5]]}, "
		"\"share\": {\"p\": 0.2, \"milli\": [[250, 1]]}, \"precision\": \"bf16\", "
		"\"fp8_p\": 0.1, \"numa_local\": true, \"isa\": [\"avx512\", \"amx\"], "
		"\"require\": \"gpu.mem_gib>=40\", \"prefer\": \"rack in (r1, r2)\", "
		"\"plane\": \"ib400\", \"pool\": \"nvme\", \"io_mbps\": 120.5, \"storage_gib\": 64}}, "
		"\"services\": [{\"name\": \"a\", \"peak_rps\": 1, \"trough_rps\": 1, "
		"\"rps_per_replica\": 1, \"mig\": \"2g.20gb\", \"require\": \"gpu.mig\"}, "
		"{\"name\": \"b\", \"peak_rps\": 1, \"trough_rps\": 1, \"rps_per_replica\": 1, "
		"\"gpu_milli\": 125, \"prefer\": \"zone=a\"}]}";
	if (load_model(good, c, err, sizeof err) != 0)
		fail_msg("%s", err);
	const struct synth_class *k = &c->cls[JOB_TRAINING];
	assert_true(k->mig_p == 0.4);
	assert_int_equal(k->nmig, 2);
	assert_int_equal(k->mig_mix[1], 7);
	assert_true(k->share_p == 0.2);
	assert_int_equal(k->nshare, 1);
	assert_int_equal(k->share_mix[0], 250);
	assert_int_equal(k->precision, PREC_FP16);
	assert_true(k->fp8_p == 0.1);
	assert_int_equal(k->flags, REQ_NUMA_LOCAL | REQ_AVX512 | REQ_AMX);
	assert_string_equal(k->require, "gpu.mem_gib>=40");
	assert_string_equal(k->prefer, "rack in (r1, r2)");
	assert_string_equal(k->plane, "ib400");
	assert_string_equal(k->pool, "nvme");
	assert_int_equal(k->io_mbps, 121);
	assert_int_equal(k->storage_gib, 64);
	assert_int_equal(c->nservices, 2);
	assert_int_equal(c->svc[0].mig_g, 2);
	assert_string_equal(c->svc[0].require, "gpu.mig");
	assert_int_equal(c->svc[1].gpu_milli, 125);
	assert_string_equal(c->svc[1].prefer, "zone=a");
	struct workload w;
	assert_int_equal(trace_synth(c, 1, &w, err, sizeof err), 0);
	assert_true(w.n > 0);
	workload_free(&w);

	static const struct {
		const char *keys;
		const char *want;
	} bad[] = {
		{ ", \"mig\": {\"p\": 0.5}", "$.classes.training.mig.mix: missing" },
		{ ", \"mig\": {\"mix\": [[1, 1]]}", "$.classes.training.mig.p: missing" },
		{ ", \"mig\": {\"p\": 1.5, \"mix\": [[1, 1]]}", "$.classes.training.mig.p: expected a number in [0, 1], got 1.5" },
		{ ", \"mig\": {\"p\": 1, \"mix\": [[9, 1]]}", "$.classes.training.mig.mix[0]: expected a value in [1, 7], got 9" },
		{ ", \"mig\": {\"p\": 1, \"mix\": [[2, 1]], \"q\": 1}", "$.classes.training.mig: unknown key \"q\"" },
		{ ", \"share\": {\"p\": 1, \"milli\": [[0, 1]]}", "$.classes.training.share.milli[0]: expected [value (integer >= 1)" },
		{ ", \"share\": {\"p\": 1, \"milli\": [[1200, 1]]}", "$.classes.training.share.milli[0]: expected a value in [1, 1000], got 1200" },
		{ ", \"share\": 0.5", "$.classes.training.share: expected an object, got a number" },
		{ ", \"precision\": \"int4\"", "$.classes.training.precision: expected fp16, bf16, fp8 or fp32, got \"int4\"" },
		{ ", \"fp8_p\": 2", "$.classes.training.fp8_p: expected a number in [0, 1], got 2" },
		{ ", \"numa_local\": 1", "$.classes.training.numa_local: expected true or false" },
		{ ", \"isa\": [\"sse4\"]", "$.classes.training.isa[0]: expected \"avx512\" or \"amx\", got \"sse4\"" },
		{ ", \"require\": \"gpu.mem_gib >= x y\"", "$.classes.training.require: bad label expression \"gpu.mem_gib >= x y\": " },
		{ ", \"prefer\": 3", "$.classes.training.prefer: expected a string, got an integer" },
		{ ", \"plane\": \"\"", "$.classes.training.plane: expected a non-empty name" },
		{ ", \"storage_gib\": 5", "$.classes.training.storage_gib: storage bandwidth and capacity are taken on a pool" },
		{ ", \"pool\": \"nvme\", \"io_mbps\": -1", "$.classes.training.io_mbps: expected a number in [0, 1e+09], got -1" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char text[1024], want[512];
		snprintf(text, sizeof text, MODEL_HEAD "%s" MODEL_TAIL, bad[i].keys);
		snprintf(want, sizeof want, ": %s", bad[i].want);
		if (load_model(text, c, err, sizeof err) != -1 || !strstr(err, want))
			fail_msg("case %zu: message\n  %s\nexpected it to contain\n  %s", i, err, want);
	}
	static const struct {
		const char *svc;
		const char *want;
	} bad_svc[] = {
		{ "\"mig\": 8", "$.services[0].mig: expected compute slices 1..7" },
		{ "\"mig\": \"3\"", "$.services[0].mig: expected compute slices 1..7" },
		{ "\"mig\": 2, \"gpus\": 2", "$.services[0].mig: a share of one GPU needs gpus 1, got 2" },
		{ "\"mig\": 2, \"gpu_milli\": 100", "$.services[0].gpu_milli: a MIG instance (mig) and a time-sliced share exclude each other" },
		{ "\"gpu_milli\": 0", "$.services[0].gpu_milli: expected an integer in [1, 1000], got 0" },
		{ "\"prefer\": \"a in b\"", "$.services[0].prefer: bad label expression \"a in b\": " },
	};
	for (size_t i = 0; i < sizeof bad_svc / sizeof bad_svc[0]; i++) {
		char text[1024], want[512];
		snprintf(text, sizeof text, "{\"services\": [{\"name\": \"s\", \"peak_rps\": 1, "
		         "\"trough_rps\": 1, \"rps_per_replica\": 1, %s}]}", bad_svc[i].svc);
		snprintf(want, sizeof want, ": %s", bad_svc[i].want);
		if (load_model(text, c, err, sizeof err) != -1 || !strstr(err, want))
			fail_msg("service case %zu: message\n  %s\nexpected it to contain\n  %s", i, err, want);
	}
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_seed),
		cmocka_unit_test(test_class_streams),
		cmocka_unit_test(test_arrivals_and_durations),
		cmocka_unit_test(test_gang_shaping),
		cmocka_unit_test(test_bad_cfg),
		cmocka_unit_test(test_pinned_without_knobs),
		cmocka_unit_test(test_load_knobs),
	};
	return cmocka_run_group_tests_name("synth", tests, NULL, NULL);
}
