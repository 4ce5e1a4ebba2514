/* openmetrics — a simulated run's time series in the OpenMetrics text
 * format (`hetlab export openmetrics`), every sample with its timestamp, so
 * that `promtool tsdb create-blocks-from openmetrics` imports a run into a
 * Prometheus data directory and the live Grafana dashboard shows it.
 *
 * The series are those of the live daemon's /metrics (live/metrics.c)
 * where they mean the same (hetlab_gpus_total, hetlab_cores_allocated,
 * hetlab_jobs{class,state}, hetlab_rack_power_watts, the job counters, the
 * wait-time histogram, the per-tenant allocation), plus the simulator's own
 * (IT and facility power, outside temperature); docs/metrics.md lists them
 * and where each comes from. One point per row of the run's `sample` table
 * (the scenario's sample interval); the simulated time is laid on an origin
 * in Unix seconds (the run's recorded creation time by default).
 *
 * The output is written family by family (each family's samples together,
 * as the format requires), in time order within a series, and ends with
 * "# EOF". Reads the database only; memory is linear in samples + jobs. */
#ifndef HL_OPENMETRICS_H
#define HL_OPENMETRICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The wait histogram's upper bounds, s (the live daemon's too). */
extern const double openmetrics_wait_buckets_s[];
extern const int openmetrics_nwait_buckets;

/* origin_s < 0: the run's `created` time. 0, or -1 with a message in err. */
int openmetrics_write(const char *db, int64_t origin_s, FILE *out, char *err, size_t errlen);

#endif
