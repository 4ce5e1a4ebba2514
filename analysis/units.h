/* units — numbers for a person: durations as s, min, h or d, money with
 * thousands separators, energy as kWh or MWh, power as kW, shares as %;
 * and the scale of a figure's axis in the same units, so that the text
 * and the figures of a plan or a sweep speak alike (analysis/plan.c,
 * analysis/sumreport.c).
 *
 * Ownership: the caller's buffer; nothing is kept. NaN prints as "-". */
#ifndef HL_UNITS_H
#define HL_UNITS_H

#include <stddef.h>

/* "45 s", "12.5 min", "30.8 h", "3.2 d" (3 significant digits; 0 is "0 s"). */
const char *units_duration(char *buf, size_t len, double s);
/* "2,742,322" (rounded to a unit; negative with a leading '-'). */
const char *units_money(char *buf, size_t len, double v);
/* A metric value in its unit (analysis/metric.h's unit names): "s" as a
 * duration, "fraction" as a percentage, "kWh" as kWh or MWh, "currency"
 * as money, "W" as kW, anything else as a number and the unit. */
const char *units_value(char *buf, size_t len, const char *unit, double v);

/* A mean and its interval [lo, hi] in one unit, the mean's (the upper
 * end's when the mean is 0), each number to 3 significant digits:
 * "22.3 [19.9, 24.7] MWh", "6.74 [0, 14.5] min", "43.90 [34.19, 53.61] %".
 * A NaN end prints the mean alone. The caller cuts the interval to what
 * the metric can be (metric_range). */
const char *units_interval(char *buf, size_t len, const char *unit, double mean, double lo,
                           double hi);

/* A difference of two values in `unit`: as units_value, but a difference
 * of shares is in percentage points ("0.46 pp"), not in %. */
const char *units_delta(char *buf, size_t len, const char *unit, double d);
/* An interval of differences [lo, hi] in one unit, that units_delta gives
 * `ref` (the mean difference; its larger end when ref is 0 or NaN):
 * "[-8.28, -2.98] h", "[-0.46, 1.32] pp" (NaN: "-"). */
const char *units_range(char *buf, size_t len, const char *unit, double ref, double lo, double hi);

/* An axis for values in `unit` up to `top` (the largest to show): the
 * divisor that turns them into the shown unit and its name ("h", "%",
 * "MWh", "kW", or the unit itself with divisor 1). A fraction's divisor is
 * 0.01 (shown as %). */
struct units_axis {
	double div;
	char name[24];
};
struct units_axis units_axis_for(const char *unit, double top);
/* 1 for units that count whole things (jobs, count, nodes, racks): an
 * axis of them has integer ticks. */
int units_is_count(const char *unit);

#endif
