/* tscale — thinning and replication of a trace's arrivals (traces/tscale.h). */
#include "traces/tscale.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/trace.h"

/* The stream's seed: the run's seed mixed with a constant of this purpose,
 * so that it is independent of the other streams drawn from the seed. */
#define TSCALE_STREAM 0x7363616c65726174ULL   /* "scalerat" */

int workload_scale_rate(struct workload *w, double x, uint64_t seed, char *err, size_t errlen)
{
	if (!(x >= 0 && x <= 1000)) {
		snprintf(err, errlen, "--scale-rate: expected a factor in [0, 1000], got %g", x);
		return -1;
	}
	if (x == 1 || w->n == 0)
		return 0;
	workload_sort(w);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	gsl_rng_set(r, (unsigned long)((seed ^ TSCALE_STREAM) * 0x9E3779B97F4A7C15ULL));
	double whole = floor(x), frac = x - whole;
	double want = (double)w->n * (whole + 1) + 1;
	if (want > (double)INT32_MAX / 2) {
		snprintf(err, errlen, "--scale-rate %g: %d jobs would become more than %d", x, w->n, INT32_MAX / 2);
		return -1;
	}
	size_t cap = (size_t)want;
	int32_t *from = malloc(cap * sizeof *from);
	simtime *shift = malloc(cap * sizeof *shift);
	if (!from || !shift) {
		free(from);
		free(shift);
		gsl_rng_free(r);
		snprintf(err, errlen, "out of memory scaling the trace by %g", x);
		return -1;
	}
	/* The last job's gap: the trace's mean inter-arrival time. */
	simtime span = w->jobs[w->n - 1].submit_us - w->jobs[0].submit_us;
	simtime mean_gap = w->n > 1 ? span / (w->n - 1) : 0;
	int32_t n = 0;
	for (int32_t i = 0; i < w->n; i++) {
		int copies = (int)whole + (gsl_rng_uniform(r) < frac ? 1 : 0);
		simtime gap = i + 1 < w->n ? w->jobs[i + 1].submit_us - w->jobs[i].submit_us : mean_gap;
		for (int k = 0; k < copies; k++) {
			from[n] = i;
			shift[n] = k > 0 ? (simtime)(gsl_rng_uniform(r) * (double)gap) : 0;
			n++;
		}
	}
	gsl_rng_free(r);
	/* The copies, with their GPU types and job names (workload_pick). */
	int rc = workload_pick(w, from, n);
	free(from);
	if (rc) {
		free(shift);
		snprintf(err, errlen, "out of memory scaling the trace by %g", x);
		return -1;
	}
	for (int32_t k = 0; k < n; k++)
		w->jobs[k].submit_us += shift[k];
	free(shift);
	workload_sort(w);
	return 0;
}
