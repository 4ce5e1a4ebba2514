/* simtime — simulated time.
 *
 * Time is a signed 64-bit count of microseconds from the scenario start.
 * No floating point time anywhere in the engine: it drifts and breaks
 * determinism. Conversions to and from seconds round to the nearest
 * microsecond and are meant for input and output only. */
#ifndef HL_SIMTIME_H
#define HL_SIMTIME_H

#include <stdint.h>
#include <math.h>

typedef int64_t simtime;

#define SIMTIME_US   1LL
#define SIMTIME_MS   1000LL
#define SIMTIME_SEC  1000000LL
#define SIMTIME_MIN  (60LL * SIMTIME_SEC)
#define SIMTIME_HOUR (3600LL * SIMTIME_SEC)
#define SIMTIME_DAY  (86400LL * SIMTIME_SEC)
#define SIMTIME_INF  INT64_MAX

static inline double simtime_to_s(simtime t) { return (double)t / (double)SIMTIME_SEC; }
static inline simtime simtime_from_s(double s) { return (simtime)llround(s * (double)SIMTIME_SEC); }

#endif
