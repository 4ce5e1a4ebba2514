/* The synthetic generator's arrival shaping, duration families, size
 * mixes, planning knobs and request knobs (MIG, shares, FP8, placement),
 * each against what it should produce. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "traces/trace.h"

static struct synth_cfg one_class(double days, double rate)
{
	struct synth_cfg c;
	synth_cfg_init(&c);
	c.days = days;
	struct synth_class *k = &c.cls[JOB_BATCH];
	k->rate_per_h = rate;
	k->dur_median_s = 600;
	k->dur_sigma = 1;
	k->nmix = 1;
	k->mix_gpus[0] = 0;
	k->mix_p[0] = 1;
	k->cpu_cores = 4;
	return c;
}

static void gen(const struct synth_cfg *c, uint64_t seed, struct workload *w)
{
	char err[512] = "";
	if (trace_synth(c, seed, w, err, sizeof err))
		fail_msg("%s", err);
}

/* Thinning to an hour-of-week profile: hourly counts match the profile.
 * Chi-square over the 168 hours at a fixed seed, 167 degrees of freedom:
 * the 99.9 % point is about 233. */
static void test_thinning_profile(void **state)
{
	(void)state;
	struct synth_cfg c = one_class(7 * 40, 60);   /* 40 weeks, 60 jobs/h on average */
	struct synth_class *k = &c.cls[JOB_BATCH];
	for (int h = 0; h < SYNTH_HOURS; h++) {
		int hod = h % 24, dow = h / 24;
		k->profile[h] = (hod >= 9 && hod < 18 ? 3.0 : 1.0) * (dow >= 5 ? 0.5 : 1.0);
	}
	struct workload w;
	gen(&c, 7, &w);
	double count[SYNTH_HOURS] = { 0 }, mean = 0;
	for (int32_t i = 0; i < w.n; i++)
		count[(int)(w.jobs[i].submit_us / SIMTIME_HOUR) % SYNTH_HOURS]++;
	for (int h = 0; h < SYNTH_HOURS; h++)
		mean += k->profile[h] / SYNTH_HOURS;
	double chi2 = 0;
	for (int h = 0; h < SYNTH_HOURS; h++) {
		double expect = 60.0 * 40 * k->profile[h] / mean;
		chi2 += (count[h] - expect) * (count[h] - expect) / expect;
	}
	if (chi2 > 233)
		fail_msg("chi-square %.1f over 168 hours: the profile is not followed", chi2);
	/* The mean rate is kept: 60/h over 40 weeks, within 1 %. */
	assert_true(fabs(w.n / (40.0 * 168) - 60) < 0.6);
	/* A weekday 10:00 hour gets about 6 times a weekend 03:00 hour. */
	double ratio = count[24 + 10] / count[5 * 24 + 3];
	assert_true(ratio > 5.0 && ratio < 7.2);
	workload_free(&w);
}

/* A constant profile at any scale is the flat rate: the mean rate is kept
 * and no hour stands out. */
static void test_constant_profile(void **state)
{
	(void)state;
	struct synth_cfg c = one_class(7 * 20, 30);
	for (int h = 0; h < SYNTH_HOURS; h++)
		c.cls[JOB_BATCH].profile[h] = 5;
	struct workload w;
	gen(&c, 11, &w);
	assert_true(fabs(w.n / (20.0 * 168) - 30) < 0.5);
	double count[SYNTH_HOURS] = { 0 }, chi2 = 0, expect = 30.0 * 20;
	for (int32_t i = 0; i < w.n; i++)
		count[(int)(w.jobs[i].submit_us / SIMTIME_HOUR) % SYNTH_HOURS]++;
	for (int h = 0; h < SYNTH_HOURS; h++)
		chi2 += (count[h] - expect) * (count[h] - expect) / expect;
	assert_true(chi2 < 233);
	workload_free(&w);
}

static double mean_dur_s(const struct workload *w)
{
	double s = 0;
	for (int32_t i = 0; i < w->n; i++)
		s += simtime_to_s(w->truth[i].run_us);
	return s / w->n;
}

/* Each duration family: the sample mean against the family's mean. */
static void test_duration_families(void **state)
{
	(void)state;
	struct synth_cfg c = one_class(200, 50);   /* about 240,000 jobs */
	struct synth_class *k = &c.cls[JOB_BATCH];
	struct workload w;

	k->dur_dist = SYNTH_WEIBULL;
	k->dur_shape = 0.7;
	k->dur_scale_s = 3000;
	gen(&c, 3, &w);
	double want = 3000 * tgamma(1 + 1 / 0.7);
	assert_true(fabs(mean_dur_s(&w) / want - 1) < 0.02);
	workload_free(&w);

	k->dur_dist = SYNTH_GAMMA;
	k->dur_shape = 2.5;
	k->dur_scale_s = 400;
	gen(&c, 3, &w);
	assert_true(fabs(mean_dur_s(&w) / 1000 - 1) < 0.02);
	workload_free(&w);

	/* Empirical: quantiles 10, 20, 1000 s at 0, 0.5, 1: half the draws
	 * below 20 s, the mean (10+20)/4 + (20+1000)/4 = 262.5 s. */
	k->dur_dist = SYNTH_EMPIRICAL;
	k->nemp = 3;
	k->emp_s[0] = 10;
	k->emp_s[1] = 20;
	k->emp_s[2] = 1000;
	gen(&c, 3, &w);
	int below = 0;
	for (int32_t i = 0; i < w.n; i++)
		below += w.truth[i].run_us <= 20 * SIMTIME_SEC;
	assert_true(fabs((double)below / w.n - 0.5) < 0.01);
	assert_true(fabs(mean_dur_s(&w) / 262.5 - 1) < 0.02);
	workload_free(&w);
}

/* Bursts: a share burst_p of arrivals brings on average burst_mean more jobs. */
static void test_bursts(void **state)
{
	(void)state;
	struct synth_cfg c = one_class(100, 10);
	struct synth_class *k = &c.cls[JOB_BATCH];
	struct workload w0, w;
	gen(&c, 5, &w0);
	k->burst_p = 0.2;
	k->burst_mean = 4;
	k->burst_gap_s = 1;
	gen(&c, 5, &w);
	double ratio = (double)w.n / w0.n;   /* expect 1 + 0.2 × 4 = 1.8 */
	assert_true(fabs(ratio - 1.8) < 0.06);
	/* Jobs of a burst are 1 s apart. */
	int close = 0;
	for (int32_t i = 1; i < w.n; i++)
		close += w.jobs[i].submit_us - w.jobs[i - 1].submit_us == SIMTIME_SEC;
	assert_true(close > w.n / 3);
	workload_free(&w0);
	workload_free(&w);
}

/* CPU mix, spread requests, GPU models, checkpoints, tenant weights and the
 * planning knobs. */
static void test_sizes_and_knobs(void **state)
{
	(void)state;
	struct synth_cfg c = one_class(50, 20);
	struct synth_class *k = &c.cls[JOB_BATCH];
	k->ncpu_mix = 2;
	k->cpu_mix[0] = 4;
	k->cpu_mix_p[0] = 0.75;
	k->cpu_mix[1] = 64;
	k->cpu_mix_p[1] = 0.25;
	k->spread = true;
	k->ckpt_every_s = 1800;
	k->ntenants = 3;
	k->tenant_w[0] = 1;
	k->tenant_w[2] = 3;
	struct workload w;
	gen(&c, 9, &w);
	int big = 0, t0 = 0, t1 = 0;
	for (int32_t i = 0; i < w.n; i++) {
		const struct job *j = &w.jobs[i];
		assert_int_equal(j->req.nodes, 0);
		assert_int_equal(j->req.mem_mib, 0);
		assert_true(j->req.cores == 4 || j->req.cores == 64);
		big += j->req.cores == 64;
		assert_int_equal(j->ckpt_every_us, 1800 * SIMTIME_SEC);
		t0 += j->tenant == 0;
		t1 += j->tenant == 1;
	}
	assert_true(fabs((double)big / w.n - 0.25) < 0.02);
	assert_int_equal(t1, 0);
	assert_true(fabs((double)t0 / w.n - 0.25) < 0.02);
	int32_t n1 = w.n;
	workload_free(&w);

	/* Demand grows 40 %: 1.4 × the jobs, same sizes; sizes × 2. */
	c.scale_rate = 1.4;
	c.scale_size = 2;
	gen(&c, 9, &w);
	assert_true(fabs((double)w.n / n1 - 1.4) < 0.03);
	for (int32_t i = 0; i < w.n; i++)
		assert_true(w.jobs[i].req.cores == 8 || w.jobs[i].req.cores == 128);
	workload_free(&w);

	/* A class scale of 0 switches the class off. */
	c.class_scale[JOB_BATCH] = 0;
	char err[256] = "";
	assert_int_equal(trace_synth(&c, 9, &w, err, sizeof err), -1);
	assert_non_null(strstr(err, "no class"));

	/* GPU jobs carry the allowed models. */
	c = one_class(10, 5);
	k = &c.cls[JOB_TRAINING];
	*k = c.cls[JOB_BATCH];
	c.cls[JOB_BATCH].rate_per_h = 0;
	k->mix_gpus[0] = 2;
	k->cores_per_gpu = 4;
	k->gpu_models = 0x6;
	gen(&c, 1, &w);
	for (int32_t i = 0; i < w.n; i++) {
		assert_int_equal(w.jobs[i].req.gpus, 2);
		assert_int_equal(w.jobs[i].req.gpu_models, 0x6);
	}
	workload_free(&w);
}

/* A GPU class for the sharing knobs: 60 % one-GPU jobs, 20 % two GPUs,
 * 10 % a gang of 16, 10 % CPU-only. */
static struct synth_cfg share_class(void)
{
	struct synth_cfg c = one_class(100, 40);   /* about 96,000 jobs */
	struct synth_class *k = &c.cls[JOB_TRAINING];
	*k = c.cls[JOB_BATCH];
	c.cls[JOB_BATCH].rate_per_h = 0;
	k->nmix = 4;
	k->mix_gpus[0] = 1;
	k->mix_p[0] = 0.6;
	k->mix_gpus[1] = 2;
	k->mix_p[1] = 0.2;
	k->mix_gpus[2] = 16;
	k->mix_p[2] = 0.1;
	k->mix_gpus[3] = 0;
	k->mix_p[3] = 0.1;
	k->cores_per_gpu = 4;
	return c;
}

/* MIG and time-sliced shares: with p = 1 every one-GPU job is a MIG
 * request and no other job is; the slice and milli mixes and the
 * probabilities come out as asked over many jobs. */
static void test_mig_and_share(void **state)
{
	(void)state;
	struct synth_cfg c = share_class();
	struct synth_class *k = &c.cls[JOB_TRAINING];
	k->mig_p = 1;
	k->nmig = 3;
	k->mig_mix[0] = 1;
	k->mig_mix_p[0] = 0.5;
	k->mig_mix[1] = 3;
	k->mig_mix_p[1] = 0.3;
	k->mig_mix[2] = 7;
	k->mig_mix_p[2] = 0.2;
	k->share_p = 1;   /* no one-GPU job is left for it */
	k->nshare = 1;
	k->share_mix[0] = 500;
	k->share_mix_p[0] = 1;
	struct workload w;
	gen(&c, 4, &w);
	int64_t one = 0, by_g[8] = { 0 };
	for (int32_t i = 0; i < w.n; i++) {
		const struct job_req *r = &w.jobs[i].req;
		assert_int_equal(r->gpu_milli, 0);
		if (r->nodes == 1 && r->gpus == 1) {
			one++;
			assert_true(r->mig_g == 1 || r->mig_g == 3 || r->mig_g == 7);
			by_g[r->mig_g]++;
			assert_true(job_req_shared(r));
		} else {
			assert_int_equal(r->mig_g, 0);
		}
	}
	assert_true(fabs((double)one / w.n - 0.6) < 0.01);
	assert_true(fabs((double)by_g[1] / one - 0.5) < 0.01);
	assert_true(fabs((double)by_g[3] / one - 0.3) < 0.01);
	assert_true(fabs((double)by_g[7] / one - 0.2) < 0.01);
	workload_free(&w);

	/* MIG with p 0.3, a time-sliced share with p 0.5 of the rest: of the
	 * one-GPU jobs 30 % MIG, 35 % shares (250 or 100 milli at 3:1), 35 %
	 * whole cards. */
	k->mig_p = 0.3;
	k->share_p = 0.5;
	k->nshare = 2;
	k->share_mix[0] = 250;
	k->share_mix_p[0] = 0.75;
	k->share_mix[1] = 100;
	k->share_mix_p[1] = 0.25;
	gen(&c, 4, &w);
	int64_t mig = 0, shr = 0, m250 = 0, whole = 0;
	one = 0;
	for (int32_t i = 0; i < w.n; i++) {
		const struct job_req *r = &w.jobs[i].req;
		if (!(r->nodes == 1 && r->gpus == 1)) {
			assert_false(job_req_shared(r));
			continue;
		}
		one++;
		assert_false(r->mig_g && r->gpu_milli);
		mig += r->mig_g > 0;
		shr += r->gpu_milli > 0;
		m250 += r->gpu_milli == 250;
		whole += !job_req_shared(r);
		assert_true(r->gpu_milli == 0 || r->gpu_milli == 250 || r->gpu_milli == 100);
	}
	assert_true(fabs((double)mig / one - 0.3) < 0.01);
	assert_true(fabs((double)shr / one - 0.35) < 0.01);
	assert_true(fabs((double)whole / one - 0.35) < 0.01);
	assert_true(fabs((double)m250 / shr - 0.75) < 0.015);
	workload_free(&w);

	/* Services: a MIG slice or a share of one GPU, and their expressions. */
	synth_cfg_init(&c);
	c.days = 2;
	c.nservices = 2;
	for (int i = 0; i < 2; i++) {
		struct synth_service *v = &c.svc[i];
		snprintf(v->name, sizeof v->name, "svc%d", i);
		v->peak_rps = v->trough_rps = 100;
		v->rps_per_replica = 50;
		v->step_s = 3600;
		v->max_replicas = 10;
		v->gpus = 1;
		v->cores = 2;
	}
	c.svc[0].mig_g = 2;
	snprintf(c.svc[0].require, sizeof c.svc[0].require, "gpu.mig");
	c.svc[1].gpu_milli = 300;
	snprintf(c.svc[1].prefer, sizeof c.svc[1].prefer, "rack in (r1, r2)");
	gen(&c, 1, &w);
	assert_int_equal(w.n, 4);
	assert_int_equal(w.nstr, 2);
	for (int32_t i = 0; i < w.n; i++) {
		const struct job_req *r = &w.jobs[i].req;
		if (w.jobs[i].group == 0) {
			assert_int_equal(r->mig_g, 2);
			assert_int_equal(r->gpu_milli, 0);
			assert_string_equal(w.str[r->sel_req - 1], "gpu.mig");
			assert_int_equal(r->sel_pref, 0);
		} else {
			assert_int_equal(r->mig_g, 0);
			assert_int_equal(r->gpu_milli, 300);
			assert_int_equal(r->sel_req, 0);
			assert_string_equal(w.str[r->sel_pref - 1], "rack in (r1, r2)");
		}
	}
	workload_free(&w);
}

/* FP8 by probability on GPU jobs only; precision, NUMA, ISA, expressions,
 * plane, pool and storage on every job, the strings interned once. */
static void test_request_knobs(void **state)
{
	(void)state;
	struct synth_cfg c = share_class();
	struct synth_class *k = &c.cls[JOB_TRAINING];
	k->fp8_p = 0.25;
	k->precision = PREC_FP8;
	k->flags = REQ_NUMA_LOCAL | REQ_AMX;
	snprintf(k->require, sizeof k->require, "gpu.fp8, node.numa>=2");
	snprintf(k->prefer, sizeof k->prefer, "rack=r7");
	snprintf(k->plane, sizeof k->plane, "ib400");
	snprintf(k->pool, sizeof k->pool, "nvme");
	k->io_mbps = 800;
	k->storage_gib = 200;
	/* A second class naming the same pool shares its string. */
	c.cls[JOB_DEV] = *k;
	c.cls[JOB_DEV].rate_per_h = 1;
	c.cls[JOB_DEV].fp8_p = 0;
	c.cls[JOB_DEV].prefer[0] = '\0';
	snprintf(c.cls[JOB_DEV].plane, sizeof c.cls[JOB_DEV].plane, "roce100");
	struct workload w;
	gen(&c, 11, &w);
	assert_int_equal(w.nstr, 5);
	int64_t gpu = 0, fp8 = 0;
	for (int32_t i = 0; i < w.n; i++) {
		const struct job_req *r = &w.jobs[i].req;
		bool dev = w.jobs[i].cls == JOB_DEV;
		assert_int_equal(r->precision, PREC_FP8);
		assert_int_equal(r->flags & ~REQ_FP8, REQ_NUMA_LOCAL | REQ_AMX);
		assert_string_equal(w.str[r->sel_req - 1], "gpu.fp8, node.numa>=2");
		if (dev)
			assert_int_equal(r->sel_pref, 0);
		else
			assert_string_equal(w.str[r->sel_pref - 1], "rack=r7");
		assert_string_equal(w.str[r->plane - 1], dev ? "roce100" : "ib400");
		assert_string_equal(w.str[r->pool - 1], "nvme");
		assert_int_equal(r->io_mbps, 800);
		assert_int_equal(r->storage_gib, 200);
		if (dev || r->gpus == 0) {
			assert_false(r->flags & REQ_FP8);
			continue;
		}
		gpu++;
		fp8 += (r->flags & REQ_FP8) != 0;
	}
	assert_true(fabs((double)fp8 / gpu - 0.25) < 0.01);
	workload_free(&w);
}

/* A service's replicas follow its diurnal curve: at every step the live
 * replica count is ⌈r(t) / rps_per_replica⌉ clamped to [min, max]. */
static void test_service_replicas(void **state)
{
	(void)state;
	struct synth_cfg c;
	synth_cfg_init(&c);
	c.days = 7;
	c.nservices = 1;
	struct synth_service *v = &c.svc[0];
	snprintf(v->name, sizeof v->name, "api");
	v->peak_rps = 1000;
	v->trough_rps = 100;
	v->peak_hour = 20;
	v->weekend_factor = 0.5;
	v->rps_per_replica = 50;
	v->step_s = 600;
	v->min_replicas = 3;
	v->max_replicas = 18;
	v->gpus = 1;
	v->cores = 4;
	struct workload w;
	gen(&c, 2, &w);
	for (double t = 0; t < 7 * 86400; t += 600) {
		double h = fmod(t / 3600, 24);
		int dow = (int)(t / 86400);
		double r = 100 + 900 * (1 + cos(2 * M_PI * (h - 20) / 24)) / 2;
		if (dow >= 5)
			r *= 0.5;
		int want = (int)ceil(r / 50 - 1e-9);
		want = want < 3 ? 3 : want > 18 ? 18 : want;
		simtime at = simtime_from_s(t);
		int live = 0;
		for (int32_t i = 0; i < w.n; i++)
			live += w.jobs[i].submit_us <= at && at < w.jobs[i].submit_us + w.truth[i].run_us;
		if (live != want)
			fail_msg("t=%.0f s: %d replicas live, the curve asks for %d", t, live, want);
	}
	for (int32_t i = 0; i < w.n; i++) {
		assert_int_equal(w.jobs[i].cls, JOB_INFERENCE);
		assert_int_equal(w.jobs[i].group, 0);
		assert_int_equal(w.jobs[i].req.gpus, 1);
		assert_true(w.truth[i].run_us > 0);
	}
	workload_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thinning_profile),
		cmocka_unit_test(test_constant_profile),
		cmocka_unit_test(test_duration_families),
		cmocka_unit_test(test_bursts),
		cmocka_unit_test(test_sizes_and_knobs),
		cmocka_unit_test(test_service_replicas),
		cmocka_unit_test(test_mig_and_share),
		cmocka_unit_test(test_request_knobs),
	};
	return cmocka_run_group_tests_name("generator", tests, NULL, NULL);
}
