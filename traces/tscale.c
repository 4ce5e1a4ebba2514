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
	struct job *jobs = malloc(cap * sizeof *jobs);
	struct job_truth *truth = malloc(cap * sizeof *truth);
	if (!jobs || !truth) {
		free(jobs);
		free(truth);
		gsl_rng_free(r);
		snprintf(err, errlen, "out of memory scaling the trace by %g", x);
		return -1;
	}
	/* The last job's gap: the trace's mean inter-arrival time. */
	simtime span = w->jobs[w->n - 1].submit_us - w->jobs[0].submit_us;
	simtime mean_gap = w->n > 1 ? span / (w->n - 1) : 0;
	size_t n = 0;
	for (int32_t i = 0; i < w->n; i++) {
		int copies = (int)whole + (gsl_rng_uniform(r) < frac ? 1 : 0);
		simtime gap = i + 1 < w->n ? w->jobs[i + 1].submit_us - w->jobs[i].submit_us : mean_gap;
		for (int k = 0; k < copies; k++) {
			jobs[n] = w->jobs[i];
			truth[n] = w->truth[i];
			if (k > 0)
				jobs[n].submit_us += (simtime)(gsl_rng_uniform(r) * (double)gap);
			n++;
		}
	}
	gsl_rng_free(r);
	free(w->jobs);
	free(w->truth);
	w->jobs = jobs;
	w->truth = truth;
	w->n = (int32_t)n;
	w->cap = (int32_t)cap;
	workload_sort(w);
	return 0;
}
