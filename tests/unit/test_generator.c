/* The synthetic generator's arrival shaping, duration families, size
 * mixes and planning knobs, each against what it should produce. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
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
	};
	return cmocka_run_group_tests_name("generator", tests, NULL, NULL);
}
