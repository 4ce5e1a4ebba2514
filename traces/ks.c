/* ks — the two-sample Kolmogorov–Smirnov test, and the comparison of a
 * generated workload with the trace it was fitted to (see ks.h). */
#include "traces/trcutil.h"
#include "traces/ks.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double ks_q(double lambda)
{
	if (!(lambda > 0.04))
		return 1;   /* the series below gives 1 - 1e-300 and less there */
	if (lambda < 1.18) {
		/* 1 - sqrt(2 pi)/lambda sum_j exp(-(2j-1)^2 pi^2 / (8 lambda^2)),
		 * which converges fast for small lambda. */
		double y = -M_PI * M_PI / (8 * lambda * lambda), s = 0;
		for (int j = 1; j < 50; j++) {
			double t = exp((2 * j - 1) * (2 * j - 1) * y);
			s += t;
			if (t < 1e-17 * s)
				break;
		}
		double p = 1 - sqrt(2 * M_PI) / lambda * s;
		return p < 0 ? 0 : p > 1 ? 1 : p;
	}
	double s = 0, sign = 1;
	for (int j = 1; j < 100; j++) {
		double t = exp(-2.0 * j * j * lambda * lambda);
		s += sign * t;
		sign = -sign;
		if (t < 1e-17)
			break;
	}
	double p = 2 * s;
	return p < 0 ? 0 : p > 1 ? 1 : p;
}

double ks_d_sorted(const double *a, size_t na, const double *b, size_t nb)
{
	size_t i = 0, j = 0;
	double d = 0;
	while (i < na && j < nb) {
		double v = a[i] < b[j] ? a[i] : b[j];
		while (i < na && a[i] <= v)
			i++;
		while (j < nb && b[j] <= v)
			j++;
		double diff = fabs((double)i / (double)na - (double)j / (double)nb);
		if (diff > d)
			d = diff;
	}
	return d;
}

void ks_test(double *a, size_t na, double *b, size_t nb, struct ks_result *r)
{
	r->na = na;
	r->nb = nb;
	if (na == 0 || nb == 0) {
		r->d = r->p = NAN;
		return;
	}
	qsort(a, na, sizeof *a, trc_cmp_double);
	qsort(b, nb, sizeof *b, trc_cmp_double);
	r->d = ks_d_sorted(a, na, b, nb);
	double ne = (double)na * (double)nb / ((double)na + (double)nb), sq = sqrt(ne);
	r->p = ks_q((sq + 0.12 + 0.11 / sq) * r->d);
}

const char *ks_what_name(enum ks_what k)
{
	static const char *const names[KS_NWHAT] = {
		[KS_DURATION] = "durations", [KS_INTERARRIVAL] = "inter-arrivals", [KS_SIZE] = "sizes",
	};
	return (unsigned)k < KS_NWHAT ? names[k] : "?";
}

/* The samples of one workload: *n values of each kind (inter-arrivals: n - 1). */
static int ks_samples(const struct workload *w, int cls, double *v[KS_NWHAT], size_t n[KS_NWHAT])
{
	size_t m = 0;
	for (int32_t i = 0; i < w->n; i++)
		m += cls < 0 || w->jobs[i].cls == cls;
	for (int k = 0; k < KS_NWHAT; k++) {
		v[k] = malloc((m ? m : 1) * sizeof *v[k]);
		if (!v[k])
			return -1;
	}
	size_t c = 0;
	for (int32_t i = 0; i < w->n; i++) {
		const struct job *j = &w->jobs[i];
		if (cls >= 0 && j->cls != cls)
			continue;
		v[KS_DURATION][c] = simtime_to_s(w->truth[i].run_us);
		v[KS_INTERARRIVAL][c] = simtime_to_s(j->submit_us);
		v[KS_SIZE][c] = (double)job_req_cores(&j->req);
		c++;
	}
	double *t = v[KS_INTERARRIVAL];
	qsort(t, m, sizeof *t, trc_cmp_double);
	for (size_t i = 1; i < m; i++)
		t[i - 1] = t[i] - t[i - 1];
	n[KS_DURATION] = n[KS_SIZE] = m;
	n[KS_INTERARRIVAL] = m ? m - 1 : 0;
	return 0;
}

int ks_compare(const struct workload *a, const struct workload *b, int cls,
               struct ks_result r[KS_NWHAT], char *err, size_t errlen)
{
	double *va[KS_NWHAT] = { 0 }, *vb[KS_NWHAT] = { 0 };
	size_t na[KS_NWHAT], nb[KS_NWHAT];
	int rc = -1;
	if (ks_samples(a, cls, va, na) != 0 || ks_samples(b, cls, vb, nb) != 0) {
		trc_fail(err, errlen, "out of memory comparing %d and %d jobs", a->n, b->n);
		goto out;
	}
	for (int k = 0; k < KS_NWHAT; k++)
		ks_test(va[k], na[k], vb[k], nb[k], &r[k]);
	rc = 0;
out:
	for (int k = 0; k < KS_NWHAT; k++) {
		free(va[k]);
		free(vb[k]);
	}
	return rc;
}
