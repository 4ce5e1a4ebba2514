/* tscale — demand scaling of a replayed trace (`hetlab run --trace T
 * --scale-rate X`, and a trace scenario with "scale": {"rate": X}):
 *
 * - X < 1 thins the arrivals: each job is kept with probability X,
 *   independently (a Bernoulli thinning: a Poisson process stays a Poisson
 *   process of rate X times the original, and the job mix, the sizes and
 *   the hour-of-day profile keep their shape in expectation);
 * - X > 1 replicates them: each job arrives floor(X) times, plus once more
 *   with probability X - floor(X); the original keeps its submit time and
 *   each copy is shifted by a uniform draw within the gap to the next
 *   original arrival, so that copies fill the same hours instead of
 *   landing as simultaneous bursts;
 * - X = 1 leaves the trace as it is.
 *
 * The draws come from their own GSL stream seeded from the run's seed, so
 * the same trace, factor and seed give the same workload under every
 * policy. docs/traces.md ("Demand scaling of a replay"). */
#ifndef HL_TSCALE_H
#define HL_TSCALE_H

#include <stddef.h>
#include <stdint.h>

struct workload;

/* Scales w in place (sorted by submit afterwards). x in [0, 1000]. 0, or -1
 * with a message on ENOMEM or a bad factor. */
int workload_scale_rate(struct workload *w, double x, uint64_t seed, char *err, size_t errlen);

#endif
