/* report — the summary of one run, read from its results file only.
 *
 * report_print() opens a run.db written by the recorder read-only, checks
 * that it is a results file of a schema version it understands, computes
 * the metrics (run information, final states, makespan, utilisation,
 * waiting time, job completion time and bounded slowdown, overall and per
 * job class, and the means of the monitoring samples) and prints them as
 * aligned text for a person or as JSON for a program. The formulas are in
 * docs/results.md ("Report metrics"); percentiles interpolate linearly
 * between order statistics.
 *
 * Ownership: the caller's strings and stream are borrowed; the report
 * holds nothing once it returns. */
#ifndef HL_REPORT_H
#define HL_REPORT_H

#include <stddef.h>
#include <stdio.h>

enum report_format { REPORT_TEXT, REPORT_JSON };

/* "text" or "json"; -1 for anything else. */
int report_format_parse(const char *name);
/* 0 on success; -1 with a message naming `db` in err. */
int report_print(const char *db, enum report_format fmt, FILE *out, char *err, size_t errlen);
/* Linear interpolation between the closest ranks of sorted x[0..n-1]
 * (p in [0, 1]); NaN when n is 0. Exposed for the tests. */
double report_percentile(const double *x, size_t n, double p);

#endif
