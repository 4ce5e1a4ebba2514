/* sweepq — the order in which a sweep starts its runs: longest first.
 *
 * A sweep's runs differ in length (a point at 40 % more arrivals, or under
 * conservative backfilling, runs several times longer than another), and
 * started in grid order the longest runs come last: one of them still
 * running at the end keeps the other cores idle. The queue starts the runs
 * of the point expected to take longest first, so that what is left at the
 * end is short. The expected length of a run is the mean wall time of the
 * point's runs finished so far in this sweep; a point with none has no
 * estimate yet, so each point's first run (its probe) is started first, in
 * grid order, then the points whose probe is still running (unknown: maybe
 * long), then the measured points, the longest mean first (ties: the lower
 * point). Seeds within a point go in the order given.
 *
 * The order changes only when runs start, never what they compute: the
 * summary is sorted by (point, seed) whatever the order runs finished in.
 * Pure data, no clock: the caller measures and reports each run's time.
 * Ownership: the queue owns its arrays (sweepq_fini frees them). */
#ifndef HL_SWEEPQ_H
#define HL_SWEEPQ_H

#include <stddef.h>

struct sweepq_point {
	size_t head, end;       /* its pending runs: pending[head .. end) */
	size_t started, finished;
	double seconds;         /* the sum of its finished runs' wall times */
};

struct sweepq {
	size_t *pending;        /* run ids k = point * nseed + seed index, ascending */
	size_t npending, nseed, left;
	struct sweepq_point *pt;
	size_t npoint;
};

/* The runs to start: ids k (point = k / nseed), ascending, each < npoint *
 * nseed. 0, or -1 when out of memory. */
int sweepq_init(struct sweepq *q, size_t npoint, size_t nseed, const size_t *k, size_t nk);
/* The next run to start (and takes it off the queue); SIZE_MAX when none
 * is left. */
size_t sweepq_next(struct sweepq *q);
/* Puts back run k, just taken by sweepq_next and not started (a fork
 * failed): it is the next one again. */
void sweepq_undo(struct sweepq *q, size_t k);
/* Run k (started by sweepq_next) finished after `seconds` of wall time. */
void sweepq_done(struct sweepq *q, size_t k, double seconds);
void sweepq_fini(struct sweepq *q);

#endif
