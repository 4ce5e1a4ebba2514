/* sumreport — reports and figures of what `hetlab sweep` and `hetlab plan`
 * leave behind: a sweep's OUT/summary.db (each metric per point: the mean
 * over its ok seeds and the half-width of the 95 % t interval; a figure of
 * each metric against each parameter, one line per combination of the
 * other parameters, error bars for the intervals) and a plan's
 * OUT/plan.json (the candidates with their yearly cost and feasibility; a
 * figure of each target against the cost, the answer marked). `hetlab
 * report` and `hetlab plot` call these for such files (cli/cmd_report.c,
 * cli/cmd_plot.c); docs/sweep.md and docs/planning.md show them.
 *
 * Ownership: arguments are borrowed; figs is caller-owned storage. Errors:
 * 0, or -1 (PLOT_NOPROG from the plots when gnuplot is missing) with a
 * message naming the file. */
#ifndef HL_SUMREPORT_H
#define HL_SUMREPORT_H

#include <stddef.h>
#include <stdio.h>

enum { SUMREPORT_OTHER, SUMREPORT_SWEEP, SUMREPORT_PLAN };
enum { SUMREPORT_MAX_FIGS = 48 };

struct sumreport_figs {
	int n;
	char name[SUMREPORT_MAX_FIGS][64];   /* file stems in the folder */
};

/* SUMREPORT_SWEEP for a sweep's summary database, SUMREPORT_PLAN for a
 * plan's plan.json, else SUMREPORT_OTHER (a run database, a frag database). */
int sumreport_kind(const char *path);
/* The metrics (canonical or alias names; none: a default list the file has).
 * 0; -1 with err; -2 when a metric is unknown or names a label value the
 * summary's runs do not have (a usage error: err says which and lists
 * the known values). */
int sumreport_sweep(const char *path, const char *const *metrics, size_t nmetric, FILE *out,
                    char *err, size_t errlen);
int sumreport_sweep_plot(const char *path, const char *const *metrics, size_t nmetric,
                         const char *dir, struct sumreport_figs *figs, char *err, size_t errlen);
int sumreport_plan(const char *path, FILE *out, char *err, size_t errlen);
/* The same as one self-contained HTML page with the figures inlined
 * (sumreport_html.c): the summary (the plan's answer and its cost, the
 * sweep's best point per metric), the table, the figures. warn gets a line
 * when the figures could not be drawn (no gnuplot): the page has the
 * tables. 0; -1 or -2 as the text reports. */
int sumreport_sweep_html(const char *path, const char *const *metrics, size_t nmetric, FILE *out,
                         char *warn, size_t warnlen, char *err, size_t errlen);
int sumreport_plan_html(const char *path, FILE *out, char *warn, size_t warnlen, char *err,
                        size_t errlen);
int sumreport_plan_plot(const char *path, const char *dir, struct sumreport_figs *figs, char *err,
                        size_t errlen);

#endif
