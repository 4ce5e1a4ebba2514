/* fit — calibrating the generator from a trace, and the two-sample KS test
 * (see fit.h; docs/workloads.md, "Calibrating from a real trace", gives the
 * estimators as equations).
 *
 * Duration fits work on logarithms: the Weibull profile likelihood is
 * evaluated with the sample centred on its log-mean and shifted by its
 * log-maximum so that x^k never overflows, whatever k the Newton steps try. */
#include "traces/trcutil.h"
#include "traces/fit.h"

#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sf_psi.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOUR_S 3600.0
#define WEEK_S (7 * 86400.0)
/* 1970-01-01 was a Thursday: Monday 1970-01-05 00:00 UTC is 4 days later. */
#define MONDAY_EPOCH_S (4 * 86400.0)
#define NEWTON_MAX 200
#define NEWTON_TOL 1e-12
#define MAX_WALL_FACTOR 1000.0
/* The largest core or GPU count a mix may hold (the generator's limit). */
#define FIT_MAX_COUNT 1000000

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* ---- duration estimators ------------------------------------------------ */

/* Mean and variance (divided by n) of ln x; -1 on a value that is not > 0. */
static int log_moments(const double *x, size_t n, double *mean, double *var, double *lmax,
                       char *err, size_t errlen)
{
	if (n < 2)
		return trc_fail(err, errlen, "need at least 2 durations to fit, got %zu", n);
	double s = 0, mx = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0) || !isfinite(x[i]))
			return trc_fail(err, errlen, "duration %zu is %g: expected a finite number > 0", i, x[i]);
		double l = log(x[i]);
		s += l;
		if (l > mx)
			mx = l;
	}
	double m = s / (double)n, v = 0;
	for (size_t i = 0; i < n; i++) {
		double d = log(x[i]) - m;
		v += d * d;
	}
	*mean = m;
	*var = v / (double)n;
	*lmax = mx;
	return 0;
}

static void set_aic(struct fit_dur *f)
{
	f->aic = 2.0 * 2 - 2.0 * f->loglik;
}

int fit_lognormal(const double *x, size_t n, struct fit_dur *f, char *err, size_t errlen)
{
	double mu, var, lmax;
	memset(f, 0, sizeof *f);
	f->dist = SYNTH_LOGNORMAL;
	f->loglik = f->aic = NAN;
	if (log_moments(x, n, &mu, &var, &lmax, err, errlen) != 0)
		return -1;
	f->median_s = exp(mu);
	f->sigma = sqrt(var);
	f->ok = true;
	if (f->sigma > 0) {
		double dn = (double)n;
		/* ln L = -sum ln x - n ln sigma - n/2 ln(2 pi) - n/2 at the estimate */
		f->loglik = -dn * mu - dn * log(f->sigma) - 0.5 * dn * (log(2 * M_PI) + 1);
		set_aic(f);
	}
	return 0;
}

/* The Weibull profile-likelihood equation in k, with u = ln x - mean(ln x)
 * and um = max u: g(k) = sum w u / sum w - 1/k, w = e^{k (u - um)}; g is
 * increasing. *dg gets g'(k), *s0 the sum of w. */
static double weibull_g(const double *x, size_t n, double lmean, double um, double k,
                        double *dg, double *s0)
{
	double a = 0, b = 0, c = 0;
	for (size_t i = 0; i < n; i++) {
		double u = log(x[i]) - lmean;
		double wt = exp(k * (u - um));
		a += wt;
		b += wt * u;
		c += wt * u * u;
	}
	double m1 = b / a;
	*dg = c / a - m1 * m1 + 1 / (k * k);
	*s0 = a;
	return m1 - 1 / k;
}

/* Newton on an increasing (sign = +1) or decreasing (-1) function kept
 * inside a bracket [lo, hi] (hi = INFINITY: unbounded), falling back to
 * bisection (or doubling) when a step would leave it. */
struct newton {
	double lo, hi;
	int sign;
};

static double newton_next(struct newton *nw, double k, double g, double dg)
{
	if (g * nw->sign < 0)
		nw->lo = k;
	else
		nw->hi = k;
	double next = dg != 0 ? k - g / dg : NAN;
	if (!(next > nw->lo && next < nw->hi))
		next = isfinite(nw->hi) ? 0.5 * (nw->lo + nw->hi) : 2 * k;
	return next;
}

int fit_weibull(const double *x, size_t n, struct fit_dur *f, char *err, size_t errlen)
{
	double lmean, var, lmax;
	memset(f, 0, sizeof *f);
	f->dist = SYNTH_WEIBULL;
	f->loglik = f->aic = NAN;
	if (log_moments(x, n, &lmean, &var, &lmax, err, errlen) != 0)
		return -1;
	if (var <= 0)
		return 0;   /* all equal: k -> infinity */
	double um = lmax - lmean;
	/* Start from the Gumbel moments of ln x: sd(ln x) = pi / (k sqrt 6). */
	double k = M_PI / sqrt(6 * var), dg = 0, s0 = 0;
	struct newton nw = { .lo = 0, .hi = INFINITY, .sign = 1 };
	int it;
	for (it = 1; it <= NEWTON_MAX; it++) {
		double g = weibull_g(x, n, lmean, um, k, &dg, &s0);
		double next = newton_next(&nw, k, g, dg);
		double step = fabs(next - k);
		k = next;
		if (step <= NEWTON_TOL * k)
			break;
	}
	if (it > NEWTON_MAX || !isfinite(k) || k <= 0)
		return 0;
	weibull_g(x, n, lmean, um, k, &dg, &s0);
	/* lambda^k = mean x^k = e^{k (lmean + um)} s0 / n */
	double ln_lambda = lmean + um + log(s0 / (double)n) / k;
	double dn = (double)n, sum_z = 0;
	for (size_t i = 0; i < n; i++)
		sum_z += exp(k * (log(x[i]) - ln_lambda));
	f->shape = k;
	f->scale_s = exp(ln_lambda);
	f->iters = it;
	/* ln L = n ln k - n k ln lambda + (k - 1) sum ln x - sum (x / lambda)^k */
	f->loglik = dn * log(k) - dn * k * ln_lambda + (k - 1) * dn * lmean - sum_z;
	f->ok = isfinite(f->loglik);
	if (f->ok)
		set_aic(f);
	return 0;
}

int fit_gamma(const double *x, size_t n, struct fit_dur *f, char *err, size_t errlen)
{
	double lmean, var, lmax;
	gsl_set_error_handler_off();
	memset(f, 0, sizeof *f);
	f->dist = SYNTH_GAMMA;
	f->loglik = f->aic = NAN;
	if (log_moments(x, n, &lmean, &var, &lmax, err, errlen) != 0)
		return -1;
	double mean = 0;
	for (size_t i = 0; i < n; i++)
		mean += x[i];
	mean /= (double)n;
	/* s = ln mean(x) - mean(ln x) >= 0 (Jensen); 0 only when all equal. */
	double s = log(mean) - lmean;
	if (!(var > 0) || !(s > 0))
		return 0;
	/* Minka's starting point, then Newton on f(k) = ln k - psi(k) - s,
	 * which decreases from +inf to 0. */
	double k = (3 - s + sqrt((s - 3) * (s - 3) + 24 * s)) / (12 * s);
	struct newton nw = { .lo = 0, .hi = INFINITY, .sign = -1 };
	int it;
	for (it = 1; it <= NEWTON_MAX; it++) {
		gsl_sf_result p0, p1;
		if (gsl_sf_psi_e(k, &p0) != GSL_SUCCESS || gsl_sf_psi_1_e(k, &p1) != GSL_SUCCESS)
			return 0;
		double g = log(k) - p0.val - s, dg = 1 / k - p1.val;
		double next = newton_next(&nw, k, g, dg);
		double step = fabs(next - k);
		k = next;
		if (step <= NEWTON_TOL * k)
			break;
	}
	gsl_sf_result lg;
	if (it > NEWTON_MAX || !isfinite(k) || k <= 0 || gsl_sf_lngamma_e(k, &lg) != GSL_SUCCESS)
		return 0;
	double theta = mean / k, dn = (double)n;
	f->shape = k;
	f->scale_s = theta;
	f->iters = it;
	/* ln L = (k - 1) sum ln x - sum x / theta - n k ln theta - n ln Gamma(k) */
	f->loglik = (k - 1) * dn * lmean - dn * mean / theta - dn * k * log(theta) - dn * lg.val;
	f->ok = isfinite(f->loglik);
	if (f->ok)
		set_aic(f);
	return 0;
}

int fit_durations(const double *x, size_t n, struct fit_dur f[FIT_NFAMILY], int32_t *best,
                  char *err, size_t errlen)
{
	gsl_set_error_handler_off();
	*best = -1;
	if (fit_lognormal(x, n, &f[FIT_LOGNORMAL], err, errlen) != 0 ||
	    fit_weibull(x, n, &f[FIT_WEIBULL], err, errlen) != 0 ||
	    fit_gamma(x, n, &f[FIT_GAMMA], err, errlen) != 0)
		return -1;
	if (f[FIT_LOGNORMAL].sigma == 0) {
		*best = FIT_LOGNORMAL;   /* all equal: a point mass, sigma 0 */
		return 0;
	}
	for (int i = 0; i < FIT_NFAMILY; i++)
		if (f[i].ok && isfinite(f[i].aic) && (*best < 0 || f[i].aic < f[*best].aic))
			*best = i;
	return 0;
}

double fit_dur_mean(const struct fit_dur *f, double max_s)
{
	if (!f->ok)
		return NAN;
	gsl_set_error_handler_off();
	bool cut = max_s > 0;
	switch (f->dist) {
	case SYNTH_LOGNORMAL: {
		/* E[X; X <= M] = e^(mu + s^2/2) Phi((ln M - mu - s^2)/s) */
		double mu = log(f->median_s), s2 = f->sigma * f->sigma, m = exp(mu + s2 / 2);
		if (!cut || f->sigma == 0)
			return f->sigma == 0 && cut && f->median_s > max_s ? max_s : m;
		double lm = log(max_s);
		double den = gsl_cdf_ugaussian_P((lm - mu) / f->sigma);
		return den > 0 ? m * gsl_cdf_ugaussian_P((lm - mu - s2) / f->sigma) / den : max_s;
	}
	case SYNTH_WEIBULL: {
		/* E[X; X <= M] = lambda Gamma(1 + 1/k) P(1 + 1/k, (M/lambda)^k) */
		gsl_sf_result g, p;
		double a = 1 + 1 / f->shape;
		if (gsl_sf_gamma_e(a, &g) != GSL_SUCCESS)
			return NAN;
		double m = f->scale_s * g.val;
		if (!cut)
			return m;
		double z = pow(max_s / f->scale_s, f->shape), den = -expm1(-z);
		if (gsl_sf_gamma_inc_P_e(a, z, &p) != GSL_SUCCESS)
			return NAN;
		return den > 0 ? m * p.val / den : max_s;
	}
	case SYNTH_GAMMA: {
		/* E[X; X <= M] = k theta P(k + 1, M/theta) */
		gsl_sf_result p1, p0;
		double m = f->shape * f->scale_s;
		if (!cut)
			return m;
		double z = max_s / f->scale_s;
		if (gsl_sf_gamma_inc_P_e(f->shape + 1, z, &p1) != GSL_SUCCESS ||
		    gsl_sf_gamma_inc_P_e(f->shape, z, &p0) != GSL_SUCCESS)
			return NAN;
		return p0.val > 0 ? m * p1.val / p0.val : max_s;
	}
	default:
		return NAN;
	}
}

void fit_quantiles(const double *sorted, size_t n, double *q, int nq)
{
	for (int i = 0; i < nq; i++) {
		double h = (double)(n - 1) * i / (nq - 1);
		size_t lo = (size_t)floor(h);
		if (lo >= n - 1) {
			q[i] = sorted[n - 1];
			continue;
		}
		q[i] = sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
	}
}

/* ---- fitting a trace --------------------------------------------------- */

/* Scratch arrays, each w->n long. */
struct scratch {
	double *x;       /* durations */
	double *r;       /* estimate / runtime ratios, then per-GPU figures */
	int64_t *v;      /* sizes */
};

static double median_of(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof *v, trc_cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct vc {
	int64_t value, count;
};

static int cmp_vc_count(const void *a, const void *b)
{
	const struct vc *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return (x->value > y->value) - (x->value < y->value);
}

static int cmp_vc_value(const void *a, const void *b)
{
	const struct vc *x = a, *y = b;
	return (x->value > y->value) - (x->value < y->value);
}

/* A mix from the values v[0..n): the SYNTH_MIX_MAX most frequent, each
 * other value's jobs added to the nearest kept value (ties: the larger).
 * With keep_zero, 0 is kept whenever present and nothing else folds into
 * it (a GPU job never becomes a CPU-only one). Values ascending. */
static int make_mix(int64_t *v, size_t n, bool keep_zero, int32_t *val, double *p,
                    int32_t *nmix, int32_t *ndistinct, int64_t *nfolded)
{
	*nmix = *ndistinct = 0;
	*nfolded = 0;
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, cmp_i64);
	struct vc *u = malloc(n * sizeof *u);
	if (!u)
		return -1;
	size_t nu = 0;
	for (size_t i = 0; i < n; i++) {
		if (nu && u[nu - 1].value == v[i])
			u[nu - 1].count++;
		else
			u[nu++] = (struct vc){ .value = v[i], .count = 1 };
	}
	*ndistinct = (int32_t)nu;
	/* Zero first when kept, then by count. */
	size_t z = keep_zero && u[0].value == 0;
	qsort(u + z, nu - z, sizeof *u, cmp_vc_count);
	size_t keep = nu < SYNTH_MIX_MAX ? nu : SYNTH_MIX_MAX;
	qsort(u, keep, sizeof *u, cmp_vc_value);
	for (size_t i = keep; i < nu; i++) {
		size_t best = z;   /* never into the kept zero */
		for (size_t k = z; k < keep; k++) {
			int64_t dk = llabs(u[k].value - u[i].value), db = llabs(u[best].value - u[i].value);
			if (dk < db || (dk == db && u[k].value > u[best].value))
				best = k;
		}
		u[best].count += u[i].count;
		*nfolded += u[i].count;
	}
	for (size_t k = 0; k < keep; k++) {
		val[k] = (int32_t)u[k].value;
		p[k] = (double)u[k].count / (double)n;
	}
	*nmix = (int32_t)keep;
	free(u);
	return 0;
}

static int cmp_i64_desc(const void *a, const void *b)
{
	return cmp_i64(b, a);
}

/* Tenants: as many as the class has distinct tenant ids (>= 0; none: 1),
 * weighted by their jobs, the busiest first, when they are few enough to
 * weigh (SYNTH_TENANTS_MAX), else drawn uniformly. v: scratch, w->n long. */
static void fit_tenants(const struct workload *w, int c, int64_t *v, struct synth_class *k,
                        struct fit_class_report *cr)
{
	size_t n = 0, nt = 0;
	for (int32_t i = 0; i < w->n; i++)
		if (w->jobs[i].cls == c && w->jobs[i].tenant >= 0)
			v[n++] = w->jobs[i].tenant;
	qsort(v, n, sizeof *v, cmp_i64);
	/* Replace the ids by run lengths, in place. */
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && v[j] == v[i])
			j++;
		v[nt++] = (int64_t)(j - i);
		i = j;
	}
	memset(k->tenant_w, 0, sizeof k->tenant_w);
	k->ntenants = nt ? (int32_t)nt : 1;
	cr->ntenants = (int32_t)nt;
	cr->tenant_weighted = nt > 1 && nt <= SYNTH_TENANTS_MAX;
	if (cr->tenant_weighted) {
		qsort(v, nt, sizeof *v, cmp_i64_desc);
		for (size_t i = 0; i < nt; i++)
			k->tenant_w[i] = (double)v[i] / (double)n;
		cr->top_tenant_share = k->tenant_w[0];
	} else if (nt > 1) {
		int64_t top = 0;
		for (size_t i = 0; i < nt; i++)
			top = v[i] > top ? v[i] : top;
		cr->top_tenant_share = (double)top / (double)n;
	}
}

/* Week position (s since a Monday 00:00) of submit time t_s. */
static double week_pos(double t_s, bool aligned, int64_t unix_start)
{
	return aligned ? (double)unix_start + t_s - MONDAY_EPOCH_S : t_s;
}

static int hour_slot(double pos_s)
{
	double h = fmod(floor(pos_s / HOUR_S), SYNTH_HOURS);
	return (int)(h < 0 ? h + SYNTH_HOURS : h);
}

/* The hour-of-week profile from the arrival times t[0..n): arrivals in
 * each hour of the week over the hours of the span that fall on it,
 * normalised to mean 1. */
static void fit_profile(const double *t, size_t n, bool aligned, int64_t unix_start,
                        double first_s, double last_s, struct synth_class *k,
                        struct fit_class_report *cr)
{
	double count[SYNTH_HOURS] = { 0 }, hours[SYNTH_HOURS] = { 0 };
	for (size_t i = 0; i < n; i++)
		count[hour_slot(week_pos(t[i], aligned, unix_start))]++;
	/* Every hour the span touches counts whole. */
	double h0 = floor(week_pos(first_s, aligned, unix_start) / HOUR_S);
	double h1 = floor(week_pos(last_s, aligned, unix_start) / HOUR_S);
	for (double h = h0; h <= h1; h++)
		hours[hour_slot(h * HOUR_S)]++;
	double sum = 0;
	int seen = 0;
	for (int h = 0; h < SYNTH_HOURS; h++)
		if (hours[h] > 0) {
			k->profile[h] = count[h] / hours[h];
			sum += k->profile[h];
			seen++;
		}
	double mean_seen = sum / seen;   /* seen >= 1: the span touches an hour */
	/* Hours the span never reaches (a trace shorter than a week) get the
	 * mean of those it does. */
	for (int h = 0; h < SYNTH_HOURS; h++)
		if (hours[h] == 0)
			k->profile[h] = mean_seen;
	cr->profile_min = INFINITY;
	cr->profile_max = 0;
	for (int h = 0; h < SYNTH_HOURS; h++) {
		k->profile[h] /= mean_seen;
		if (k->profile[h] < cr->profile_min)
			cr->profile_min = k->profile[h];
		if (k->profile[h] > cr->profile_max)
			cr->profile_max = k->profile[h];
	}
}

/* Bursts: a job submitted at most gap_s after the previous one of its class
 * joins that one's burst. The generator's burst model (traces/synth.c): an
 * arrival brings extras with probability p, their number geometric on
 * {0, 1, ...} with mean m, so P(k extras) is 1 - p + p/(1+m) at k = 0 and
 * p (1/(1+m)) (m/(1+m))^k for k >= 1. The maximum-likelihood estimate:
 * with n1 of the B bursts having k >= 1 extras, mean kbar among those,
 * r = m/(1+m) = 1 - 1/kbar and p = (n1/B) / r; when that p exceeds 1 (or
 * kbar = 1) the estimate sits on the boundary p = 1, m = total extras / B.
 * The gap between a burst's jobs is the mean of the gaps inside bursts.
 * Compacts t[0..n) (sorted) to the bursts' first jobs; returns their count. */
static size_t fit_bursts(double *t, size_t n, double gap_s, struct synth_class *k,
                         struct fit_class_report *cr)
{
	size_t nb = 0;
	int64_t n1 = 0, extras = 0, cur = 0;
	double gaps = 0, prev = 0;
	for (size_t i = 0; i < n; i++) {
		double ti = t[i];
		if (i > 0 && ti - prev <= gap_s) {
			cur++;
			gaps += ti - prev;
		} else {
			n1 += cur > 0;
			extras += cur;
			cur = 0;
			t[nb++] = ti;
		}
		prev = ti;
	}
	n1 += cur > 0;
	extras += cur;
	cr->nbursts = n1;
	cr->nburst_extra = extras;
	if (n1 == 0)
		return nb;
	double kbar = (double)extras / (double)n1, r = 1 - 1 / kbar;
	double p = r > 0 ? ((double)n1 / (double)nb) / r : INFINITY;
	if (p <= 1) {
		k->burst_p = p;
		k->burst_mean = kbar - 1;
	} else {
		k->burst_p = 1;
		k->burst_mean = (double)extras / (double)nb;
	}
	k->burst_gap_s = gaps / (double)extras;
	return nb;
}

/* Seconds of profile time between real times a <= b: each real second of
 * hour-of-week slot h counts profile[h] (mean 1). */
static double profile_gap(double a, double b, bool aligned, int64_t unix_start,
                          const double *profile)
{
	double pos = week_pos(a, aligned, unix_start), left = b - a, acc = 0;
	while (left > 0) {
		double in = pos - floor(pos / HOUR_S) * HOUR_S, step = HOUR_S - in;
		if (step > left)
			step = left;
		acc += profile[hour_slot(pos)] * step;
		pos += step;
		left -= step;
	}
	return acc;
}

/* Quantiles q[0..nq) are drawn by linear interpolation, which gives the
 * top interval the mean of q[nq-2] and the sample's maximum: with a long
 * tail (an outage of days between two submissions, one job of weeks) that
 * alone can double the mean. Moves the top quantile, within [q[nq-2],
 * max], so that the interpolated mean is the sample's x[0..n); the body
 * of the distribution (all but its top 1 / (nq-1)) is left as it is. */
static void match_mean(const double *x, size_t n, double *q, int nq)
{
	if (n == 0 || nq < 2)
		return;
	double sum = 0, body = 0;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	for (int i = 0; i + 2 < nq; i++)
		body += (q[i] + q[i + 1]) / 2;
	/* mean = (body + (q[nq-2] + top) / 2) / (nq - 1) */
	double top = 2 * (sum / (double)n * (nq - 1) - body) - q[nq - 2];
	if (top < q[nq - 2])
		top = q[nq - 2];
	if (top > q[nq - 1])
		top = q[nq - 1];
	q[nq - 1] = top;
}

/* The joint model's arrivals: the gaps between the sorted arrival times
 * t[0..n) in profile time, as FIT_NQUANT quantiles. Overwrites t. */
static void fit_gaps(double *t, size_t n, bool aligned, int64_t unix_start, double first_s,
                     double last_s, struct synth_class *k, struct fit_class_report *cr)
{
	if (n < 3)
		return;
	/* The class's jobs must be spread over the whole trace's span, as the
	 * generator draws them (a class that arrives only in the last month
	 * would otherwise come at its own pace over all of it). */
	double span_p = profile_gap(first_s, last_s, aligned, unix_start, k->profile);
	double prev = t[0];
	for (size_t i = 1; i < n; i++) {
		double ti = t[i];
		t[i - 1] = profile_gap(prev, ti, aligned, unix_start, k->profile);
		cr->nzero_gap += ti == prev;
		prev = ti;
	}
	qsort(t, n - 1, sizeof *t, trc_cmp_double);
	k->ngap = FIT_NQUANT;
	fit_quantiles(t, n - 1, k->gap_s, FIT_NQUANT);
	cr->ngaps = (int64_t)(n - 1);
	/* The rate: the drawn gaps must average the sample's. When moving the
	 * top quantile cannot get there (a few gaps of weeks among thousands of
	 * minutes, as in the openb lists), all gaps are scaled: the rate, and
	 * so the offered load, matters more than the shape. */
	match_mean(t, n - 1, k->gap_s, FIT_NQUANT);
	double want = span_p / (double)n, qm = 0;
	for (int i = 0; i + 1 < FIT_NQUANT; i++)
		qm += (k->gap_s[i] + k->gap_s[i + 1]) / 2 / (FIT_NQUANT - 1);
	if (qm > 0 && fabs(qm / want - 1) > 1e-3)
		for (int i = 0; i < FIT_NQUANT; i++)
			k->gap_s[i] *= want / qm;
}

struct size_dur {
	int64_t key;
	double d;
};

static int cmp_size_dur(const void *a, const void *b)
{
	const struct size_dur *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->d > y->d) - (x->d < y->d);
}

/* The joint model's durations: the class's jobs sorted by size (cores, or
 * SYNTH_SIZE_GPU + GPUs), cut into at most SYNTH_SIZE_MAX classes of about
 * equal count at size boundaries, each class's durations as FIT_NQUANT
 * quantiles; the last class is open above. */
static int fit_size_classes(const struct workload *w, int c, struct synth_class *k,
                            struct fit_class_report *cr, char *err, size_t errlen)
{
	size_t n = 0;
	for (int32_t i = 0; i < w->n; i++)
		n += w->jobs[i].cls == c;
	struct size_dur *p = malloc(n * sizeof *p);
	double *d = malloc(n * sizeof *d);
	if (!p || !d) {
		free(p);
		free(d);
		return trc_fail(err, errlen, "out of memory");
	}
	n = 0;
	for (int32_t i = 0; i < w->n; i++) {
		const struct job *j = &w->jobs[i];
		if (j->cls != c)
			continue;
		int32_t g = job_req_gpus(&j->req);
		double x = simtime_to_s(w->truth[i].run_us);
		p[n].key = g > 0 ? SYNTH_SIZE_GPU + g : job_req_cores(&j->req);
		p[n].d = x < FIT_MIN_DUR_S ? FIT_MIN_DUR_S : x;
		n++;
	}
	qsort(p, n, sizeof *p, cmp_size_dur);
	size_t target = n / (SYNTH_SIZE_MAX - 1) + 1;
	if (target < 2)
		target = 2;
	k->nsize = 0;
	size_t s0 = 0;
	for (size_t a = 0; a < n;) {
		size_t b = a;
		while (b < n && p[b].key == p[a].key)
			b++;
		bool last = b == n || k->nsize == SYNTH_SIZE_MAX - 1;
		if (last)
			b = n;
		if (b - s0 >= target || last) {
			for (size_t i = s0; i < b; i++)
				d[i - s0] = p[i].d;
			qsort(d, b - s0, sizeof *d, trc_cmp_double);
			int ci = k->nsize++;
			k->size_max[ci] = last ? INT64_MAX : p[b - 1].key;
			k->nsize_q[ci] = FIT_NQUANT;
			fit_quantiles(d, b - s0, k->size_q[ci], FIT_NQUANT);
			match_mean(d, b - s0, k->size_q[ci], FIT_NQUANT);
			s0 = b;
		}
		a = b;
	}
	cr->nsize = k->nsize;
	free(p);
	free(d);
	return 0;
}

static int fit_class(const struct workload *w, int c, const struct fit_opts *o,
                     const struct fit_report *rep, double first_s, double last_s,
                     struct scratch *sc, struct synth_cfg *out, struct fit_class_report *cr,
                     char *err, size_t errlen)
{
	struct synth_class *k = &out->cls[c];
	const char *cname = job_class_name((enum job_class)c);
	/* Arrivals: the class's submit times, sorted; with a burst gap, only
	 * the first job of each burst is an arrival of the Poisson process. */
	size_t na = 0;
	for (int32_t i = 0; i < w->n; i++)
		if (w->jobs[i].cls == c)
			sc->x[na++] = simtime_to_s(w->jobs[i].submit_us);
	qsort(sc->x, na, sizeof *sc->x, trc_cmp_double);
	if (o->burst_gap_s > 0)
		na = fit_bursts(sc->x, na, o->burst_gap_s, k, cr);
	k->rate_per_h = (double)na / ((last_s - first_s) / HOUR_S);
	fit_profile(sc->x, na, rep->aligned, w->unix_start, first_s, last_s, k, cr);
	if (!o->independent && o->burst_gap_s <= 0)
		fit_gaps(sc->x, na, rep->aligned, w->unix_start, first_s, last_s, k, cr);

	size_t n = 0, nr = 0;
	for (int32_t i = 0; i < w->n; i++) {
		const struct job *j = &w->jobs[i];
		if (j->cls != c)
			continue;
		double d = simtime_to_s(w->truth[i].run_us);
		if (d < FIT_MIN_DUR_S) {
			d = FIT_MIN_DUR_S;
			cr->nfloored++;
		}
		sc->x[n] = d;
		if (j->walltime_us != SIMTIME_INF && j->walltime_us > 0 && w->truth[i].run_us > 0)
			sc->r[nr++] = (double)j->walltime_us / (double)w->truth[i].run_us;
		cr->nfailed += w->truth[i].fails != 0;
		n++;
	}
	cr->njobs = (int64_t)n;
	cr->nratio = (int64_t)nr;

	/* Durations. */
	if (n < 2)
		return trc_fail(err, errlen, "class %s: %zu job, need at least 2 to fit durations", cname, n);
	if (fit_durations(sc->x, n, cr->dur, &cr->best, err, errlen) != 0)
		return -1;
	qsort(sc->x, n, sizeof *sc->x, trc_cmp_double);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += sc->x[i];
	cr->dur_mean_s = sum / (double)n;
	cr->dur_p50_s = median_of(sc->x, n);
	cr->dur_max_s = sc->x[n - 1];
	for (int f = 0; f < FIT_NFAMILY; f++)
		cr->dur[f].mean_s = fit_dur_mean(&cr->dur[f], cr->dur_max_s);
	if (o->empirical) {
		k->dur_dist = SYNTH_EMPIRICAL;
		k->nemp = FIT_NQUANT;
		fit_quantiles(sc->x, n, k->emp_s, FIT_NQUANT);
	} else {
		int32_t use = o->force ? o->dist : cr->best;
		if (use < 0 || use >= FIT_NFAMILY)
			return trc_fail(err, errlen, "class %s: no duration distribution could be fitted", cname);
		if (!cr->dur[use].ok)
			return trc_fail(err, errlen, "class %s: the %s distribution is not determined by the "
			             "durations (all equal?)", cname,
			             synth_dist_name((enum synth_dist)cr->dur[use].dist));
		const struct fit_dur *f = &cr->dur[use];
		k->dur_dist = f->dist;
		k->dur_median_s = f->median_s;
		k->dur_sigma = f->sigma;
		k->dur_shape = f->shape;
		k->dur_scale_s = f->scale_s;
	}
	/* The generator resamples above the longest duration the site ran. */
	k->dur_max_s = cr->dur_max_s;

	/* Estimates and failures. */
	double wf = median_of(sc->r, nr);
	k->walltime_factor = !(wf >= 1) ? 1 : wf > MAX_WALL_FACTOR ? MAX_WALL_FACTOR : wf;
	k->fail_p = (double)cr->nfailed / (double)n;
	fit_tenants(w, c, sc->v, k, cr);

	/* Sizes: GPUs per job over all jobs, cores over CPU-only ones. */
	size_t nv = 0;
	for (int32_t i = 0; i < w->n; i++)
		if (w->jobs[i].cls == c)
			sc->v[nv++] = job_req_gpus(&w->jobs[i].req);
	int32_t ndist;
	int64_t nfold;
	if (make_mix(sc->v, nv, true, k->mix_gpus, k->mix_p, &k->nmix, &ndist, &nfold) != 0)
		return trc_fail(err, errlen, "out of memory");
	cr->ngpu_values = ndist;
	cr->ngpu_folded = nfold;
	nv = 0;
	size_t ng = 0;
	for (int32_t i = 0; i < w->n; i++) {
		const struct job *j = &w->jobs[i];
		if (j->cls != c)
			continue;
		if (job_req_gpus(&j->req) == 0) {
			sc->v[nv++] = job_req_cores(&j->req);
			cr->nspread += j->req.nodes == 0;
		} else {
			/* Per GPU on a node: cores, then node memory, then GPU memory. */
			sc->r[ng++] = (double)j->req.cores / j->req.gpus;
		}
	}
	cr->ncpu = (int64_t)nv;
	cr->ngpu = (int64_t)ng;
	for (size_t i = 0; i < nv; i++)
		if (sc->v[i] > FIT_MAX_COUNT)
			return trc_fail(err, errlen, "class %s: a CPU-only job asks for %lld cores, more than %d",
			             cname, (long long)sc->v[i], FIT_MAX_COUNT);
	if (make_mix(sc->v, nv, false, k->cpu_mix, k->cpu_mix_p, &k->ncpu_mix, &ndist, &nfold) != 0)
		return trc_fail(err, errlen, "out of memory");
	cr->ncpu_values = ndist;
	cr->ncpu_folded = nfold;
	if (k->ncpu_mix > 0) {
		/* The fallback core count when the cpu mix is absent: the commonest. */
		int32_t best = 0;
		for (int32_t i = 1; i < k->ncpu_mix; i++)
			if (k->cpu_mix_p[i] > k->cpu_mix_p[best])
				best = i;
		k->cpu_cores = k->cpu_mix[best];
	}
	k->spread = nv > 0 && 2 * cr->nspread >= (int64_t)nv;
	if (ng > 0) {
		k->cores_per_gpu = (int32_t)lround(median_of(sc->r, ng));
		ng = 0;
		for (int32_t i = 0; i < w->n; i++) {
			const struct job *j = &w->jobs[i];
			if (j->cls == c && job_req_gpus(&j->req) > 0)
				sc->r[ng++] = (double)j->req.mem_mib / j->req.gpus;
		}
		k->mem_per_gpu_mib = (int64_t)llround(median_of(sc->r, ng));
		ng = 0;
		for (int32_t i = 0; i < w->n; i++) {
			const struct job *j = &w->jobs[i];
			if (j->cls == c && job_req_gpus(&j->req) > 0)
				sc->r[ng++] = (double)j->req.gpu_mem_mib;
		}
		k->gpu_mem_mib = (int64_t)llround(median_of(sc->r, ng));
	}
	cr->rate_per_h = k->rate_per_h;
	if (!o->independent && fit_size_classes(w, c, k, cr, err, errlen) != 0)
		return -1;
	return 0;
}

int trace_fit(const struct workload *w, const struct fit_opts *o, struct synth_cfg *out,
              struct fit_report *rep, char *err, size_t errlen)
{
	static const struct fit_opts defaults = { 0 };
	struct fit_report local;
	struct scratch sc = { 0 };
	int rc = -1;
	gsl_set_error_handler_off();
	if (!o)
		o = &defaults;
	if (!rep)
		rep = &local;
	memset(rep, 0, sizeof *rep);
	synth_cfg_init(out);
	if (w->n < 2)
		return trc_fail(err, errlen, "the trace has %d job%s: need at least 2 to fit", (int)w->n,
		             w->n == 1 ? "" : "s");
	simtime t0 = w->jobs[0].submit_us, t1 = t0;
	int32_t max_gpn = 0;
	for (int32_t i = 0; i < w->n; i++) {
		const struct job *j = &w->jobs[i];
		if (j->submit_us < t0)
			t0 = j->submit_us;
		if (j->submit_us > t1)
			t1 = j->submit_us;
		if (j->req.gpus > max_gpn)
			max_gpn = j->req.gpus;
		if (j->cls >= JOB_NCLASS)
			return trc_fail(err, errlen, "job %d has class %d: expected 0 to %d", (int)i, (int)j->cls,
			             JOB_NCLASS - 1);
	}
	if (t1 <= t0)
		return trc_fail(err, errlen, "every job is submitted at the same time: no arrival rate to fit");
	double first_s = simtime_to_s(t0), last_s = simtime_to_s(t1);
	rep->njobs = w->n;
	rep->span_days = (last_s - first_s) / 86400.0;
	rep->unix_start = w->unix_start;
	rep->aligned = w->unix_start >= 0;
	out->days = rep->span_days;
	if (max_gpn > 0)
		out->gpus_per_node = max_gpn;
	sc.x = malloc((size_t)w->n * sizeof *sc.x);
	sc.r = malloc((size_t)w->n * sizeof *sc.r);
	sc.v = malloc((size_t)w->n * sizeof *sc.v);
	if (!sc.x || !sc.r || !sc.v) {
		trc_fail(err, errlen, "out of memory for %d jobs", (int)w->n);
		goto out;
	}
	for (int c = 0; c < JOB_NCLASS; c++) {
		rep->cls[c].best = -1;
		bool present = false;
		for (int32_t i = 0; i < w->n && !present; i++)
			present = w->jobs[i].cls == c;
		if (present && fit_class(w, c, o, rep, first_s, last_s, &sc, out, &rep->cls[c],
		                         err, errlen) != 0)
			goto out;
	}
	rc = 0;
out:
	free(sc.x);
	free(sc.r);
	free(sc.v);
	return rc;
}
