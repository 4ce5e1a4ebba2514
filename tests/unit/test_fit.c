/* Tests of trace fitting (traces/fit.c): maximum-likelihood recovery of known
 * parameters, AIC choosing the true family, the two-sample KS statistic and
 * its p-value, a hand-worked SWF file, the model file, and KTH end to end
 * (fit, write, load, generate, compare). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/testutil.h"
#include "traces/fit.h"
#include "config/scenario.h"
#include "traces/trace.h"

#define NSAMPLE 200000
#define RECOVER_TOL 0.02

static void assert_close(double got, double want, double rel, const char *what)
{
	if (!(fabs(got / want - 1) <= rel))
		fail_msg("%s: got %.6g, expected %.6g within %.1f %%", what, got, want, 100 * rel);
}

enum { DRAW_LOGNORMAL, DRAW_WEIBULL, DRAW_GAMMA };

/* n draws from a known distribution, at a fixed seed. */
static double *draw(int kind, double a, double b, size_t n, unsigned long seed)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	assert_non_null(r);
	gsl_rng_set(r, seed);
	double *x = malloc(n * sizeof *x);
	assert_non_null(x);
	for (size_t i = 0; i < n; i++) {
		switch (kind) {
		case DRAW_LOGNORMAL: x[i] = gsl_ran_lognormal(r, log(a), b); break;   /* median, sigma */
		case DRAW_WEIBULL: x[i] = gsl_ran_weibull(r, b, a); break;            /* shape, scale */
		default: x[i] = gsl_ran_gamma(r, a, b); break;                        /* shape, scale */
		}
	}
	gsl_rng_free(r);
	return x;
}

static void fit_all(const double *x, size_t n, struct fit_dur f[FIT_NFAMILY], int32_t *best)
{
	char err[256] = "";
	if (fit_durations(x, n, f, best, err, sizeof err) != 0)
		fail_msg("%s", err);
	for (int i = 0; i < FIT_NFAMILY; i++) {
		assert_true(f[i].ok);
		assert_true(isfinite(f[i].aic));
		assert_true(fabs(f[i].aic - (4 - 2 * f[i].loglik)) < 1e-6 * fabs(f[i].aic));
	}
}

/* ---- (a) recovery ------------------------------------------------------- */

static void test_recover_lognormal(void **state)
{
	(void)state;
	double *x = draw(DRAW_LOGNORMAL, 847, 2.1, NSAMPLE, 11);
	struct fit_dur f[FIT_NFAMILY];
	int32_t best;
	fit_all(x, NSAMPLE, f, &best);
	assert_close(f[FIT_LOGNORMAL].median_s, 847, RECOVER_TOL, "lognormal median");
	assert_close(f[FIT_LOGNORMAL].sigma, 2.1, RECOVER_TOL, "lognormal sigma");
	assert_int_equal(best, FIT_LOGNORMAL);
	free(x);
}

static void test_recover_weibull(void **state)
{
	(void)state;
	static const double cases[][2] = { { 0.6, 4000 }, { 1.7, 250 } };
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		double *x = draw(DRAW_WEIBULL, cases[c][0], cases[c][1], NSAMPLE, 12 + c);
		struct fit_dur f[FIT_NFAMILY];
		int32_t best;
		fit_all(x, NSAMPLE, f, &best);
		assert_close(f[FIT_WEIBULL].shape, cases[c][0], RECOVER_TOL, "Weibull shape");
		assert_close(f[FIT_WEIBULL].scale_s, cases[c][1], RECOVER_TOL, "Weibull scale");
		assert_true(f[FIT_WEIBULL].iters > 0 && f[FIT_WEIBULL].iters < 50);
		assert_int_equal(best, FIT_WEIBULL);
		free(x);
	}
}

static void test_recover_gamma(void **state)
{
	(void)state;
	static const double cases[][2] = { { 2.5, 1200 }, { 0.4, 30000 } };
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		double *x = draw(DRAW_GAMMA, cases[c][0], cases[c][1], NSAMPLE, 14 + c);
		struct fit_dur f[FIT_NFAMILY];
		int32_t best;
		fit_all(x, NSAMPLE, f, &best);
		assert_close(f[FIT_GAMMA].shape, cases[c][0], RECOVER_TOL, "gamma shape");
		assert_close(f[FIT_GAMMA].scale_s, cases[c][1], RECOVER_TOL, "gamma scale");
		assert_int_equal(best, FIT_GAMMA);
		free(x);
	}
}

/* The log-likelihoods at the estimate against a direct sum of log densities. */
static void test_loglik_direct(void **state)
{
	(void)state;
	size_t n = 2000;
	double *x = draw(DRAW_GAMMA, 1.3, 500, n, 21);
	struct fit_dur f[FIT_NFAMILY];
	int32_t best;
	fit_all(x, n, f, &best);
	double ll[FIT_NFAMILY] = { 0 };
	for (size_t i = 0; i < n; i++) {
		ll[FIT_LOGNORMAL] += log(gsl_ran_lognormal_pdf(x[i], log(f[0].median_s), f[0].sigma));
		ll[FIT_WEIBULL] += log(gsl_ran_weibull_pdf(x[i], f[1].scale_s, f[1].shape));
		ll[FIT_GAMMA] += log(gsl_ran_gamma_pdf(x[i], f[2].shape, f[2].scale_s));
	}
	for (int k = 0; k < FIT_NFAMILY; k++)
		assert_true(fabs(ll[k] - f[k].loglik) < 1e-7 * fabs(ll[k]));
	/* A maximum: nudging a parameter lowers the likelihood. */
	double nudged = 0;
	for (size_t i = 0; i < n; i++)
		nudged += log(gsl_ran_gamma_pdf(x[i], f[2].shape * 1.01, f[2].scale_s));
	assert_true(nudged < f[2].loglik);
	free(x);
}

/* The truncated means against the sample's own. */
static void test_dur_mean(void **state)
{
	(void)state;
	static const int kinds[3] = { DRAW_LOGNORMAL, DRAW_WEIBULL, DRAW_GAMMA };
	static const double par[3][2] = { { 847, 2.1 }, { 0.6, 4000 }, { 0.4, 30000 } };
	for (int c = 0; c < 3; c++) {
		double *x = draw(kinds[c], par[c][0], par[c][1], NSAMPLE, 41 + c);
		struct fit_dur f[FIT_NFAMILY];
		int32_t best;
		fit_all(x, NSAMPLE, f, &best);
		/* Cut at the sample's 99th percentile-ish: 20 times the median. */
		double cut = c == 0 ? 847 * 20 : c == 1 ? 4000 * 5 : 30000 * 2;
		double sum = 0, all = 0;
		size_t n = 0;
		for (size_t i = 0; i < NSAMPLE; i++) {
			all += x[i];
			if (x[i] <= cut) {
				sum += x[i];
				n++;
			}
		}
		assert_close(fit_dur_mean(&f[best], cut), sum / (double)n, 0.03, "truncated mean");
		if (c > 0)
			assert_close(fit_dur_mean(&f[best], 0), all / NSAMPLE, 0.03, "mean");
		free(x);
	}
	struct fit_dur bad = { .ok = false };
	assert_true(isnan(fit_dur_mean(&bad, 10)));
}

static void test_degenerate_and_bad(void **state)
{
	(void)state;
	double same[5] = { 60, 60, 60, 60, 60 };
	struct fit_dur f[FIT_NFAMILY];
	int32_t best = 7;
	char err[256] = "";
	assert_int_equal(fit_durations(same, 5, f, &best, err, sizeof err), 0);
	assert_int_equal(best, FIT_LOGNORMAL);
	assert_true(fabs(f[FIT_LOGNORMAL].median_s - 60) < 1e-9);
	assert_true(f[FIT_LOGNORMAL].sigma == 0);
	assert_false(f[FIT_WEIBULL].ok);
	assert_false(f[FIT_GAMMA].ok);
	double bad[3] = { 1, 0, 2 };
	assert_int_equal(fit_durations(bad, 3, f, &best, err, sizeof err), -1);
	assert_non_null(strstr(err, "expected a finite number > 0"));
	assert_int_equal(fit_durations(bad, 1, f, &best, err, sizeof err), -1);

	double q[5], s[4] = { 1, 2, 3, 10 };
	fit_quantiles(s, 4, q, 5);
	/* h = 3 i / 4: 0, 0.75, 1.5, 2.25, 3 */
	assert_true(q[0] == 1 && fabs(q[1] - 1.75) < 1e-12 && fabs(q[2] - 2.5) < 1e-12 &&
	            fabs(q[3] - 4.75) < 1e-12 && q[4] == 10);
}

/* ---- (b) Kolmogorov–Smirnov -------------------------------------------- */

static void test_ks_q(void **state)
{
	(void)state;
	/* Reference values of the Kolmogorov distribution's upper tail. */
	assert_true(fabs(ks_q(1.36) - 0.0494) < 2e-4);
	assert_true(fabs(ks_q(1.63) - 0.0098) < 1e-4);
	assert_true(fabs(ks_q(1.0) - 0.26999967) < 1e-7);
	assert_true(fabs(ks_q(0.5) - 0.96394524) < 1e-7);
	assert_true(fabs(ks_q(2.0) - 0.00067093) < 1e-8);
	assert_true(ks_q(0) == 1 && ks_q(-1) == 1 && ks_q(10) < 1e-80);
	/* The two series agree where one hands over to the other. */
	assert_true(fabs(ks_q(1.18 - 1e-12) - ks_q(1.18)) < 1e-10);
	/* Decreasing. */
	for (double l = 0.05; l < 3; l += 0.01)
		assert_true(ks_q(l + 0.01) <= ks_q(l));
}

static void test_ks_d(void **state)
{
	(void)state;
	double a[3] = { 1, 2, 3 }, b[3] = { 2, 2, 4 };
	assert_true(fabs(ks_d_sorted(a, 3, b, 3) - 1.0 / 3) < 1e-12);
	assert_true(ks_d_sorted(a, 3, a, 3) == 0);
	double c[2] = { 10, 11 };
	assert_true(ks_d_sorted(a, 3, c, 2) == 1);
	/* Ties across samples: {1,1,2} vs {1,2,2}: after 1: 2/3 vs 1/3. */
	double d[3] = { 1, 1, 2 }, e[3] = { 1, 2, 2 };
	assert_true(fabs(ks_d_sorted(d, 3, e, 3) - 1.0 / 3) < 1e-12);
}

static void test_ks_samples(void **state)
{
	(void)state;
	size_t n = 5000;
	double *x = draw(DRAW_LOGNORMAL, 100, 1, n, 31);
	double *y = draw(DRAW_LOGNORMAL, 100, 1, n, 32);
	double *z = draw(DRAW_LOGNORMAL, 100 * exp(0.2), 1, n, 33);
	struct ks_result r;
	ks_test(x, n, y, n, &r);
	assert_true(r.na == n && r.nb == n);
	if (!(r.p > 0.01 && r.d < 0.035))
		fail_msg("same distribution: D %.4f p %.3g", r.d, r.p);
	ks_test(x, n, z, n, &r);
	if (!(r.p < 1e-6 && r.d > 0.05))
		fail_msg("shifted distribution: D %.4f p %.3g", r.d, r.p);
	ks_test(x, 0, z, n, &r);
	assert_true(isnan(r.d) && isnan(r.p));
	free(x);
	free(y);
	free(z);
}

/* ---- (c) a hand-worked SWF file ------------------------------------------ */

/* UnixStartTime 1704067200 is Monday 2024-01-01 00:00 UTC, so submit s
 * falls in hour-of-week floor(s / 3600). Fields: id submit wait run alloc
 * cpu mem req_procs req_time req_mem status user group exe queue part prec think. */
static const char *const tiny_swf =
	"; UnixStartTime: 1704067200\n"
	"; MaxProcs: 8\n"
	"1     0 0  100 1 -1 -1 1  200 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"2  1800 0    0 1 -1 -1 1   60 -1 0 1 1 -1 -1 -1 -1 -1\n"
	"3  3600 0  400 4 -1 -1 4  400 -1 1 2 1 -1 -1 -1 -1 -1\n"
	"4  7200 0   50 2 -1 -1 2  500 -1 5 2 1 -1 -1 -1 -1 -1\n"
	"5  9000 0 1000 4 -1 -1 4 3000 -1 1 3 1 -1 -1 -1 -1 -1\n"
	"6 10800 0   10 1 -1 -1 1   10 -1 1 3 1 -1 -1 -1 -1 -1\n";

static void read_swf_text(const char *text, struct workload *w)
{
	char err[512] = "";
	char *path = tu_write_tmp(".swf", text);
	struct swf_opts o = { .lenient = false };
	if (trace_swf_read(path, &o, w, err, sizeof err) != 0)
		fail_msg("%s", err);
	unlink(path);
	free(path);
}

static void test_tiny_swf(void **state)
{
	(void)state;
	struct workload w;
	struct synth_cfg m;
	struct fit_report rep;
	char err[512] = "";
	read_swf_text(tiny_swf, &w);
	if (trace_fit(&w, NULL, &m, &rep, err, sizeof err) != 0)
		fail_msg("%s", err);
	const struct synth_class *k = &m.cls[JOB_BATCH];
	const struct fit_class_report *cr = &rep.cls[JOB_BATCH];
	for (int c = 0; c < JOB_NCLASS; c++)
		if (c != JOB_BATCH)
			assert_true(m.cls[c].rate_per_h == 0);
	assert_true(rep.aligned);
	/* 6 jobs over 3 hours (first to last submit). */
	assert_true(fabs(m.days - 0.125) < 1e-12);
	assert_true(fabs(k->rate_per_h - 2.0) < 1e-12);
	/* Hours 0..3 touched once each, with 2, 1, 2, 1 arrivals: mean 1.5; the
	 * 164 other hours get that mean; normalised to mean 1. */
	double want[4] = { 4.0 / 3, 2.0 / 3, 4.0 / 3, 2.0 / 3 }, sum = 0;
	for (int h = 0; h < SYNTH_HOURS; h++) {
		double e = h < 4 ? want[h] : 1.0;
		if (fabs(k->profile[h] - e) > 1e-12)
			fail_msg("profile[%d] = %g, expected %g", h, k->profile[h], e);
		sum += k->profile[h];
	}
	assert_true(fabs(sum / SYNTH_HOURS - 1) < 1e-12);
	/* Sizes: 1 core ×3, 2 ×1, 4 ×2; no GPUs; spread requests. */
	assert_int_equal(k->nmix, 1);
	assert_int_equal(k->mix_gpus[0], 0);
	assert_true(k->mix_p[0] == 1);
	assert_int_equal(k->ncpu_mix, 3);
	assert_int_equal(k->cpu_mix[0], 1);
	assert_int_equal(k->cpu_mix[1], 2);
	assert_int_equal(k->cpu_mix[2], 4);
	assert_true(fabs(k->cpu_mix_p[0] - 0.5) < 1e-12);
	assert_true(fabs(k->cpu_mix_p[1] - 1.0 / 6) < 1e-12);
	assert_true(fabs(k->cpu_mix_p[2] - 1.0 / 3) < 1e-12);
	assert_int_equal(k->cpu_cores, 1);
	assert_true(k->spread);
	/* Status 0 and 5 fail: 2 of 6. */
	assert_true(fabs(k->fail_p - 1.0 / 3) < 1e-12);
	/* estimate / runtime: 2, 1, 10, 3, 1 (job 2 ran 0 s): median 2. */
	assert_true(fabs(k->walltime_factor - 2) < 1e-12);
	assert_int_equal(cr->nratio, 5);
	/* The 0 s run counts as 1 s; the longest is kept as the truncation. */
	assert_int_equal(cr->nfloored, 1);
	assert_true(k->dur_max_s == 1000);
	/* Users 1, 2, 3 with two jobs each: three tenants of equal weight. */
	assert_int_equal(k->ntenants, 3);
	assert_true(cr->tenant_weighted);
	for (int i = 0; i < 3; i++)
		assert_true(fabs(k->tenant_w[i] - 1.0 / 3) < 1e-12);
	assert_true(k->tenant_w[3] == 0);
	/* Durations 100, 1, 400, 50, 1000, 10: the lognormal by hand. */
	double l[6] = { log(100), 0, log(400), log(50), log(1000), log(10) }, mu = 0, var = 0;
	for (int i = 0; i < 6; i++)
		mu += l[i] / 6;
	for (int i = 0; i < 6; i++)
		var += (l[i] - mu) * (l[i] - mu) / 6;
	assert_true(fabs(cr->dur[FIT_LOGNORMAL].median_s - exp(mu)) < 1e-9);
	assert_true(fabs(cr->dur[FIT_LOGNORMAL].sigma - sqrt(var)) < 1e-12);
	assert_true(cr->best >= 0);
	workload_free(&w);

	/* Without UnixStartTime hour 0 is submit time 0: the same profile here. */
	read_swf_text(tiny_swf + strlen("; UnixStartTime: 1704067200\n"), &w);
	assert_int_equal(trace_fit(&w, NULL, &m, &rep, err, sizeof err), 0);
	assert_false(rep.aligned);
	assert_true(fabs(m.cls[JOB_BATCH].profile[0] - 4.0 / 3) < 1e-12);
	workload_free(&w);

	/* UnixStartTime on a Wednesday 00:00 UTC (2024-01-03): hours shift by 48. */
	char shifted[2048];
	snprintf(shifted, sizeof shifted, "; UnixStartTime: %d\n%s", 1704067200 + 2 * 86400,
	         tiny_swf + strlen("; UnixStartTime: 1704067200\n"));
	read_swf_text(shifted, &w);
	assert_int_equal(trace_fit(&w, NULL, &m, &rep, err, sizeof err), 0);
	assert_true(fabs(m.cls[JOB_BATCH].profile[48] - 4.0 / 3) < 1e-12);
	assert_true(fabs(m.cls[JOB_BATCH].profile[49] - 2.0 / 3) < 1e-12);
	assert_true(fabs(m.cls[JOB_BATCH].profile[0] - 1) < 1e-12);
	workload_free(&w);
}

/* More than SYNTH_MIX_MAX core counts: the rest fold into the nearest kept one. */
static void test_cpu_mix_folding(void **state)
{
	(void)state;
	struct workload w;
	workload_init(&w);
	int64_t t = 0;
	/* Kept: 1..31 and 41, three jobs each. Folded: 33 (nearest 31) and 36
	 * (31 and 41 equally near: the larger). */
	int vals[34], nv = 0;
	for (int v = 1; v <= 31; v++)
		vals[nv++] = v;
	vals[nv++] = 41;
	for (int i = 0; i < nv; i++)
		for (int r = 0; r < 3; r++) {
			struct job j;
			struct job_truth tr = { .run_us = (simtime)(10 + i + r) * SIMTIME_SEC };
			job_init(&j, 0, (t++) * SIMTIME_SEC);
			j.cls = JOB_DEV;
			j.req.cores = vals[i];
			j.req.nodes = 1;
			j.walltime_us = SIMTIME_INF;
			assert_int_equal(workload_add(&w, &j, &tr), 0);
		}
	int extra[2] = { 33, 36 };
	for (int i = 0; i < 2; i++) {
		struct job j;
		struct job_truth tr = { .run_us = 5 * SIMTIME_SEC };
		job_init(&j, 0, (t++) * SIMTIME_SEC);
		j.cls = JOB_DEV;
		j.req.cores = extra[i];
		j.req.nodes = 1;
		j.walltime_us = SIMTIME_INF;
		assert_int_equal(workload_add(&w, &j, &tr), 0);
	}
	struct synth_cfg m;
	struct fit_report rep;
	char err[256] = "";
	if (trace_fit(&w, NULL, &m, &rep, err, sizeof err) != 0)
		fail_msg("%s", err);
	const struct synth_class *k = &m.cls[JOB_DEV];
	assert_int_equal(k->ncpu_mix, SYNTH_MIX_MAX);
	assert_int_equal(rep.cls[JOB_DEV].ncpu_values, 34);
	assert_int_equal(rep.cls[JOB_DEV].ncpu_folded, 2);
	assert_int_equal(k->cpu_mix[30], 31);
	assert_int_equal(k->cpu_mix[31], 41);
	assert_true(fabs(k->cpu_mix_p[30] - 4.0 / 98) < 1e-12);
	assert_true(fabs(k->cpu_mix_p[31] - 4.0 / 98) < 1e-12);
	assert_true(fabs(k->cpu_mix_p[0] - 3.0 / 98) < 1e-12);
	assert_false(k->spread);            /* nodes = 1: not spread requests */
	assert_true(k->walltime_factor == 1); /* no estimates */
	assert_true(m.cls[JOB_BATCH].rate_per_h == 0);
	workload_free(&w);
}

static void test_fit_errors(void **state)
{
	(void)state;
	struct workload w;
	struct synth_cfg m;
	char err[256] = "";
	workload_init(&w);
	assert_int_equal(trace_fit(&w, NULL, &m, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "need at least 2"));
	struct job j;
	struct job_truth tr = { .run_us = SIMTIME_SEC };
	for (int i = 0; i < 2; i++) {
		job_init(&j, 0, 5 * SIMTIME_SEC);
		j.cls = JOB_BATCH;
		j.req.cores = 1;
		assert_int_equal(workload_add(&w, &j, &tr), 0);
	}
	assert_int_equal(trace_fit(&w, NULL, &m, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "same time"));
	workload_free(&w);
}

/* The model file: keys in order, only the chosen family's, profile on one line. */
static void test_write_model(void **state)
{
	(void)state;
	struct workload w;
	struct synth_cfg m;
	char err[512] = "";
	read_swf_text(tiny_swf, &w);
	struct fit_opts o = { .empirical = true };
	assert_int_equal(trace_fit(&w, &o, &m, NULL, err, sizeof err), 0);
	char *path = tu_tmpath(".json");
	if (trace_fit_write(path, &m, "tiny \"[x]\".swf", err, sizeof err) != 0)
		fail_msg("%s", err);
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je);
	if (!root)
		fail_msg("%s:%d: %s", path, je.line, je.text);
	assert_string_equal(json_string_value(json_object_get(root, "fitted_from")), "tiny \"[x]\".swf");
	json_t *b = json_object_get(json_object_get(root, "classes"), "batch");
	assert_non_null(b);
	assert_int_equal(json_object_size(json_object_get(root, "classes")), 1);
	assert_string_equal(json_string_value(json_object_get(b, "dur_dist")), "empirical");
	assert_null(json_object_get(b, "dur_median_s"));
	assert_null(json_object_get(b, "dur_shape"));
	json_t *q = json_object_get(b, "dur_quantiles_s");
	assert_int_equal(json_array_size(q), FIT_NQUANT);
	assert_true(json_number_value(json_array_get(q, 0)) == 1);
	assert_true(json_number_value(json_array_get(q, FIT_NQUANT - 1)) == 1000);
	assert_int_equal(json_array_size(json_object_get(b, "profile")), SYNTH_HOURS);
	assert_true(json_is_true(json_object_get(b, "spread")));
	assert_int_equal(json_array_size(json_object_get(b, "cpu_mix")), 3);
	assert_null(json_object_get(b, "cores_per_gpu"));
	json_decref(root);
	/* The profile array sits on one line. */
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[8192];
	bool seen = false;
	while (fgets(line, sizeof line, f))
		if (strstr(line, "\"profile\": [")) {
			seen = true;
			assert_non_null(strchr(line, ']'));
		}
	fclose(f);
	assert_true(seen);
	/* No temporary file is left beside it. */
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	assert_int_equal(access(tmp, F_OK), -1);
	/* A folder that does not exist: an error, nothing written. */
	assert_int_equal(trace_fit_write("/nonexistent-dir/m.json", &m, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent-dir/m.json"));
	unlink(path);
	free(path);
	workload_free(&w);
}

/* ---- the whole model: generate from known parameters, fit them back ---- */

static void synth_or_fail(const struct synth_cfg *c, uint64_t seed, struct workload *w)
{
	char err[512] = "";
	if (trace_synth(c, seed, w, err, sizeof err) != 0)
		fail_msg("%s", err);
}

static void fit_or_fail(const struct workload *w, const struct fit_opts *o, struct synth_cfg *m,
                        struct fit_report *rep)
{
	char err[512] = "";
	if (trace_fit(w, o, m, rep, err, sizeof err) != 0)
		fail_msg("%s", err);
}

static void test_recover_model(void **state)
{
	(void)state;
	struct synth_cfg c;
	synth_cfg_init(&c);
	c.days = 2000;
	/* batch: office hours on weekdays at three times the night rate. */
	struct synth_class *b = &c.cls[JOB_BATCH];
	b->rate_per_h = 4;
	for (int h = 0; h < SYNTH_HOURS; h++)
		b->profile[h] = (h / 24 < 5 && h % 24 >= 8 && h % 24 < 18) ? 3 : 1;
	b->dur_dist = SYNTH_WEIBULL;
	b->dur_shape = 0.7;
	b->dur_scale_s = 5000;
	b->walltime_factor = 3;
	b->nmix = 1;
	b->mix_gpus[0] = 0;
	b->mix_p[0] = 1;
	b->ncpu_mix = 3;
	int32_t cores[3] = { 1, 4, 16 };
	double cp[3] = { 0.5, 0.3, 0.2 };
	memcpy(b->cpu_mix, cores, sizeof cores);
	memcpy(b->cpu_mix_p, cp, sizeof cp);
	b->spread = true;
	b->fail_p = 0.2;
	b->ntenants = 4;
	double tw[4] = { 0.4, 0.3, 0.2, 0.1 };
	memcpy(b->tenant_w, tw, sizeof tw);
	/* training: lognormal, GPU gangs. */
	struct synth_class *t = &c.cls[JOB_TRAINING];
	t->rate_per_h = 1;
	t->dur_median_s = 3600;
	t->dur_sigma = 1.0;
	t->nmix = 3;
	int32_t g[3] = { 1, 8, 16 };
	double gp[3] = { 0.5, 0.3, 0.2 };
	memcpy(t->mix_gpus, g, sizeof g);
	memcpy(t->mix_p, gp, sizeof gp);
	t->cores_per_gpu = 12;
	t->mem_per_gpu_mib = 128 * 1024;
	t->gpu_mem_mib = 80 * 1024;

	struct workload w;
	synth_or_fail(&c, 5, &w);
	struct synth_cfg m;
	struct fit_report rep;
	fit_or_fail(&w, NULL, &m, &rep);
	assert_false(rep.aligned);      /* a generated trace: hour 0 = time 0 = Monday */
	assert_close(m.days, 2000, 0.001, "days");
	assert_int_equal(m.gpus_per_node, 8);

	const struct synth_class *fb = &m.cls[JOB_BATCH];
	/* The profile's mean is (50 × 3 + 118) / 168, so the mean rate is 4. */
	assert_close(fb->rate_per_h, 4, RECOVER_TOL, "batch rate");
	double pmean = (50 * 3.0 + 118) / 168, dev = 0, worst = 0;
	for (int h = 0; h < SYNTH_HOURS; h++) {
		double want = b->profile[h] / pmean, e = fabs(fb->profile[h] / want - 1);
		assert_close(fb->profile[h], want, 0.15, "profile hour");
		dev += e / SYNTH_HOURS;
		worst = e > worst ? e : worst;
	}
	print_message("profile: mean relative deviation %.4f, largest %.4f\n", dev, worst);
	if (dev > 0.04)
		fail_msg("profile: mean relative deviation %.3f", dev);
	assert_int_equal(fb->dur_dist, SYNTH_WEIBULL);
	assert_close(fb->dur_shape, 0.7, RECOVER_TOL, "batch Weibull shape");
	assert_close(fb->dur_scale_s, 5000, RECOVER_TOL, "batch Weibull scale");
	/* Estimates are rounded up to whole minutes: a little above 3. */
	assert_true(fb->walltime_factor >= 3 && fb->walltime_factor < 3.2);
	assert_int_equal(fb->nmix, 1);
	assert_int_equal(fb->ncpu_mix, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(fb->cpu_mix[i], cores[i]);
		assert_true(fabs(fb->cpu_mix_p[i] - cp[i]) < 0.01);
	}
	assert_true(fb->spread);
	assert_true(fabs(fb->fail_p - 0.2) < 0.01);
	assert_int_equal(fb->ntenants, 4);
	for (int i = 0; i < 4; i++)
		assert_true(fabs(fb->tenant_w[i] - tw[i]) < 0.01);

	const struct synth_class *ft = &m.cls[JOB_TRAINING];
	print_message("recovered from %d jobs: batch rate %.4f/h, Weibull k %.4f lambda %.1f s, "
	              "walltime factor %.3f, fail_p %.4f; training rate %.4f/h, lognormal median "
	              "%.1f s sigma %.4f\n", (int)w.n, fb->rate_per_h, fb->dur_shape, fb->dur_scale_s,
	              fb->walltime_factor, fb->fail_p, ft->rate_per_h, ft->dur_median_s, ft->dur_sigma);
	assert_close(ft->rate_per_h, 1, 0.03, "training rate");
	assert_int_equal(ft->dur_dist, SYNTH_LOGNORMAL);
	assert_close(ft->dur_median_s, 3600, RECOVER_TOL, "training median");
	assert_close(ft->dur_sigma, 1.0, RECOVER_TOL, "training sigma");
	assert_int_equal(ft->nmix, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ft->mix_gpus[i], g[i]);
		assert_true(fabs(ft->mix_p[i] - gp[i]) < 0.01);
	}
	assert_int_equal(ft->cores_per_gpu, 12);
	assert_int_equal(ft->mem_per_gpu_mib, 128 * 1024);
	assert_int_equal(ft->gpu_mem_mib, 80 * 1024);
	assert_int_equal(ft->ncpu_mix, 0);
	assert_true(m.cls[JOB_INFERENCE].rate_per_h == 0 && m.cls[JOB_DEV].rate_per_h == 0);
	workload_free(&w);
}

static void test_recover_bursts(void **state)
{
	(void)state;
	struct synth_cfg c;
	synth_cfg_init(&c);
	c.days = 3000;
	struct synth_class *k = &c.cls[JOB_DEV];
	k->rate_per_h = 1;
	k->burst_p = 0.3;
	k->burst_mean = 2;
	k->burst_gap_s = 5;
	k->dur_median_s = 300;
	k->dur_sigma = 1;
	k->nmix = 1;
	k->mix_p[0] = 1;
	struct workload w;
	synth_or_fail(&c, 9, &w);
	struct synth_cfg m;
	struct fit_report rep;
	struct fit_opts o = { .burst_gap_s = 6 };
	fit_or_fail(&w, &o, &m, &rep);
	const struct synth_class *f = &m.cls[JOB_DEV];
	print_message("bursts recovered from %d jobs: rate %.4f/h, burst_p %.4f, burst_mean %.4f, "
	              "burst_gap_s %.3f\n", (int)w.n, f->rate_per_h, f->burst_p, f->burst_mean,
	              f->burst_gap_s);
	assert_close(f->rate_per_h, 1, RECOVER_TOL, "leader rate");
	assert_close(f->burst_p, 0.3, 0.03, "burst_p");
	assert_close(f->burst_mean, 2, 0.03, "burst_mean");
	assert_close(f->burst_gap_s, 5, 0.01, "burst_gap_s");
	/* Without a burst gap: one Poisson process at the mean job rate 1.6/h. */
	fit_or_fail(&w, NULL, &m, &rep);
	assert_close(m.cls[JOB_DEV].rate_per_h, 1 + 0.3 * 2, RECOVER_TOL, "job rate");
	assert_true(m.cls[JOB_DEV].burst_p == 0);
	workload_free(&w);
}

/* ---- (d) KTH end to end ------------------------------------------------ */

/* Fits the KTH log, writes the model, loads it back with the scenario
 * loader, generates the same span and compares. What we see (seed 1):
 * durations D 0.119 with the lognormal the AIC picks (the KTH runtimes are
 * not lognormal: too many very short jobs and a hump at the hour), 0.013
 * with the empirical quantiles; sizes D 0.007; inter-arrivals D 0.22 (the
 * log's arrivals come in bursts a Poisson process does not make). */
static double busy_cores(const struct workload *w)
{
	double work = 0;
	simtime t0 = w->jobs[0].submit_us, t1 = t0;
	for (int32_t i = 0; i < w->n; i++) {
		work += simtime_to_s(w->truth[i].run_us) * job_req_cores(&w->jobs[i].req);
		t0 = w->jobs[i].submit_us < t0 ? w->jobs[i].submit_us : t0;
		t1 = w->jobs[i].submit_us > t1 ? w->jobs[i].submit_us : t1;
	}
	return work / simtime_to_s(t1 - t0);
}

static void kth_round_trip(bool empirical, bool independent, double max_dur_d, double max_ia_d)
{
	char path[4096], err[1024] = "";
	snprintf(path, sizeof path, "%s/traces/data/swf-kth-sp2-1996/KTH-SP2-1996-2.1-cln.swf.gz",
	         tu_root());
	struct workload kth, gen;
	struct swf_opts so = { .lenient = false };
	if (trace_swf_read(path, &so, &kth, err, sizeof err) != 0)
		fail_msg("%s", err);
	struct synth_cfg m, back;
	struct fit_report rep;
	struct fit_opts o = { .empirical = empirical, .independent = independent };
	fit_or_fail(&kth, &o, &m, &rep);
	assert_true(rep.aligned);
	assert_int_equal(m.cls[JOB_BATCH].nsize > 0, !independent);
	assert_int_equal(m.cls[JOB_BATCH].ngap, independent ? 0 : FIT_NQUANT);
	assert_close(m.cls[JOB_BATCH].rate_per_h, 3.5639, 1e-4, "KTH rate");
	assert_close(m.cls[JOB_BATCH].fail_p, 7946.0 / 28475, 1e-3, "KTH fail_p");
	if (!empirical)
		assert_int_equal(m.cls[JOB_BATCH].dur_dist, SYNTH_LOGNORMAL);
	char *model = tu_tmpath(".json");
	if (trace_fit_write(model, &m, path, err, sizeof err) != 0)
		fail_msg("%s", err);
	if (synth_load_file(model, &back, err, sizeof err) != 0)
		fail_msg("%s", err);
	char src[4096];
	assert_int_equal(trace_fit_source(model, src, sizeof src, err, sizeof err), 0);
	assert_string_equal(src, path);
	/* What was loaded is what was fitted (to the 6 digits written). */
	const struct synth_class *a = &m.cls[JOB_BATCH], *z = &back.cls[JOB_BATCH];
	assert_close(z->rate_per_h, a->rate_per_h, 1e-5, "loaded rate");
	assert_int_equal(z->dur_dist, a->dur_dist);
	assert_int_equal(z->ncpu_mix, a->ncpu_mix);
	assert_int_equal(z->nsize, a->nsize);
	assert_int_equal(z->ngap, a->ngap);
	for (int i = 0; i < a->nsize; i++) {
		assert_true(z->size_max[i] == a->size_max[i]);
		assert_close(z->size_q[i][50], a->size_q[i][50], 1e-5, "loaded size-class median");
	}
	assert_true(z->spread);
	for (int h = 0; h < SYNTH_HOURS; h++)
		assert_true(fabs(z->profile[h] - a->profile[h]) <= 1e-5 * (a->profile[h] + 1e-3));
	synth_or_fail(&back, 1, &gen);
	assert_close((double)gen.n, (double)kth.n, 0.03, "generated jobs");
	struct ks_result r[KS_NWHAT];
	assert_int_equal(ks_compare(&gen, &kth, -1, r, err, sizeof err), 0);
	print_message("KTH %s: KS D durations %.4f (p %.3g), inter-arrivals %.4f, sizes %.4f (p %.3g)\n",
	              !independent ? "joint" : empirical ? "empirical" : "lognormal", r[KS_DURATION].d, r[KS_DURATION].p,
	              r[KS_INTERARRIVAL].d, r[KS_SIZE].d, r[KS_SIZE].p);
	if (!(r[KS_DURATION].d < max_dur_d))
		fail_msg("durations: D %.4f, expected below %.2f", r[KS_DURATION].d, max_dur_d);
	if (!(r[KS_SIZE].d < 0.02))
		fail_msg("sizes: D %.4f, expected below 0.02", r[KS_SIZE].d);
	if (!(r[KS_INTERARRIVAL].d < max_ia_d))
		fail_msg("inter-arrivals: D %.4f, expected below %.2f", r[KS_INTERARRIVAL].d, max_ia_d);
	double bg = busy_cores(&gen), bk = busy_cores(&kth);
	print_message("KTH busy cores: model %.1f, trace %.1f\n", bg, bk);
	if (!independent && !(fabs(bg / bk - 1) <= 0.05))
		fail_msg("busy cores: model %.1f against the trace's %.1f, expected within 5 %%", bg, bk);
	unlink(model);
	free(model);
	workload_free(&gen);
	workload_free(&kth);
}

static void test_kth_lognormal(void **state)
{
	(void)state;
	kth_round_trip(false, true, 0.15, 0.3);
}

static void test_kth_empirical(void **state)
{
	(void)state;
	kth_round_trip(true, true, 0.05, 0.3);
}

/* The joint model (the default): every D <= 0.05, busy cores within 5 %. */
static void test_kth_joint(void **state)
{
	(void)state;
	kth_round_trip(false, false, 0.05, 0.05);
}

/* The failure: wide jobs are the long ones, and a model that draws
 * sizes and durations apart offers less busy-core load than the log. Here
 * 1-core jobs run ~100 s and 64-core jobs ~10,000 s; half the jobs arrive
 * in the same second as the one before. */
static void test_joint_size_duration_and_zero_gaps(void **state)
{
	(void)state;
	struct workload w;
	workload_init(&w);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 3);
	double t = 0;
	for (int i = 0; i < 6000; i++) {
		if (i == 0 || gsl_rng_uniform(r) >= 0.5)
			t += floor(gsl_ran_exponential(r, 600));
		bool wide = gsl_rng_uniform(r) < 0.3;
		struct job j;
		struct job_truth tr = { 0 };
		job_init(&j, 0, simtime_from_s(t));
		j.cls = JOB_BATCH;
		j.req.cores = wide ? 64 : 1;
		tr.run_us = simtime_from_s(floor((wide ? 10000 : 100) * (0.5 + gsl_rng_uniform(r))));
		assert_int_equal(workload_add(&w, &j, &tr), 0);
	}
	struct synth_cfg m;
	struct fit_report rep;
	fit_or_fail(&w, NULL, &m, &rep);
	const struct synth_class *k = &m.cls[JOB_BATCH];
	assert_true(k->nsize >= 2);
	assert_true(k->gap_s[0] == 0 && k->gap_s[40] == 0);    /* ~50 % zero gaps */
	assert_true(rep.cls[JOB_BATCH].nzero_gap > 2500);
	struct workload g;
	synth_or_fail(&m, 1, &g);
	double wide = 0, nwide = 0, narrow = 0, nnarrow = 0;
	int64_t zero = 0;
	for (int32_t i = 0; i < g.n; i++) {
		double d = simtime_to_s(g.truth[i].run_us);
		if (g.jobs[i].req.cores == 64)
			wide += d, nwide++;
		else
			narrow += d, nnarrow++;
		zero += i > 0 && g.jobs[i].submit_us == g.jobs[i - 1].submit_us;
	}
	assert_close(wide / nwide, 10000, 0.05, "wide jobs' mean duration");
	assert_close(narrow / nnarrow, 100, 0.05, "narrow jobs' mean duration");
	assert_close((double)zero / g.n, 0.5, 0.1, "share of zero gaps");
	assert_close(busy_cores(&g), busy_cores(&w), 0.05, "busy cores");
	workload_free(&g);
	/* The independent model mixes them: the same mean for both sizes. */
	struct fit_opts ind = { .independent = true, .empirical = true };
	fit_or_fail(&w, &ind, &m, &rep);
	synth_or_fail(&m, 1, &g);
	wide = nwide = 0;
	for (int32_t i = 0; i < g.n; i++)
		if (g.jobs[i].req.cores == 64)
			wide += simtime_to_s(g.truth[i].run_us), nwide++;
	assert_true(wide / nwide < 5000);
	workload_free(&g);
	gsl_rng_free(r);
	workload_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recover_lognormal),
		cmocka_unit_test(test_recover_weibull),
		cmocka_unit_test(test_recover_gamma),
		cmocka_unit_test(test_loglik_direct),
		cmocka_unit_test(test_dur_mean),
		cmocka_unit_test(test_degenerate_and_bad),
		cmocka_unit_test(test_ks_q),
		cmocka_unit_test(test_ks_d),
		cmocka_unit_test(test_ks_samples),
		cmocka_unit_test(test_tiny_swf),
		cmocka_unit_test(test_cpu_mix_folding),
		cmocka_unit_test(test_fit_errors),
		cmocka_unit_test(test_write_model),
		cmocka_unit_test(test_recover_model),
		cmocka_unit_test(test_recover_bursts),
		cmocka_unit_test(test_kth_lognormal),
		cmocka_unit_test(test_kth_empirical),
		cmocka_unit_test(test_kth_joint),
		cmocka_unit_test(test_joint_size_duration_and_zero_gaps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
