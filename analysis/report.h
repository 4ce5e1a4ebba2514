/* report — the summary of one run, read from its results file only.
 *
 * report_print() opens a run.db written by the recorder read-only, checks
 * that it is a results file of a schema version it understands, computes
 * the metrics (run information, final states, makespan, utilisation,
 * waiting time, job completion time and bounded slowdown, overall and per
 * job class, and the means of the monitoring samples) and prints them as
 * aligned text for a person, as JSON for a program, or as a document:
 * Markdown tables, or one self-contained HTML page with the run's figures
 * (analysis/runplot) inlined as SVG (analysis/report_doc.c). The formulas are in
 * docs/results.md ("Report metrics"); percentiles interpolate linearly
 * between order statistics.
 *
 * Ownership: the caller's strings and stream are borrowed; the report
 * holds nothing once it returns. */
#ifndef HL_REPORT_H
#define HL_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sqlite3.h>

enum report_format { REPORT_TEXT, REPORT_JSON, REPORT_MARKDOWN, REPORT_HTML };

/* "text", "json", "markdown" (or "md") or "html"; -1 for anything else. */
int report_format_parse(const char *name);
/* 0 on success; -1 with a message naming `db` in err. */
int report_print(const char *db, enum report_format fmt, FILE *out, char *err, size_t errlen);
/* report_print, with a warning for the person in warn ("" when none; may
 * be NULL): the HTML report warns when gnuplot is missing and the page has
 * no figures, which is not an error. */
int report_write(const char *db, enum report_format fmt, FILE *out, char *warn, size_t warnlen,
                 char *err, size_t errlen);
/* Linear interpolation between the closest ranks of sorted x[0..n-1]
 * (p in [0, 1]); NaN when n is 0. Exposed for the tests. */
double report_percentile(const double *x, size_t n, double p);

/* ---- inside the report module (report.c and report_doc.c) only ---------- */

struct report_run {
	char *scenario, *policy, *seed, *version, *trace, *created, *policy_params;
	char *placement;         /* NULL in files written before placements existed */
	char *reasons;           /* "oom 12, walltime 3" — why jobs failed or were killed; NULL none */
	bool seed_int;           /* seed fits an INTEGER (else its digits as TEXT) */
	double wall_s;
	int64_t events, passes, jobs, nodes, total_cores, total_gpus;
	int64_t skipped_malformed, skipped_unusable, rejected;
};

/* A job row as the metrics need it; times -1 when NULL. */
struct report_job {
	int cls, state;          /* indexes in report.classes / report.states */
	int64_t submit_us, start_us, end_us;
	int64_t cores;
	double gpus;             /* card equivalents (a 250m share is 0.25) */
};

/* Distinct strings in order of first appearance, and a display order. */
struct report_names {
	char **v;
	int64_t *count;
	int *order;
	int n, cap;
};

struct report_dist {
	size_t n;
	double mean, p50, p95, p99, max;   /* NaN when n is 0 */
};

struct report_group {
	int64_t jobs, started, ended;
	double core_s, gpu_s;              /* allocated device-seconds */
	double core_util, gpu_util;        /* NaN when undefined */
	struct report_dist wait, jct;
	double bsld;                       /* mean bounded slowdown, NaN if none */
};

struct report_samples {
	int64_t n;
	double pending, running, core_share, gpu_share, power_w;
};

struct report {
	const char *path;
	struct sqlite3 *db;
	int64_t schema_version;
	struct report_run run;
	struct report_job *rows;
	size_t nrows;
	struct report_names classes, states;
	double makespan_s;                 /* NaN when no job ended */
	struct report_group all, *per_class;
	struct report_samples smp;
	double *scratch;                   /* nrows values for the distributions */
	char *err;
	size_t errlen;
};

/* report_doc.c: the loaded and computed report as Markdown or HTML. */
void report_doc_markdown(const struct report *rp, FILE *out);
/* -1 with a message in rp->err when the page cannot be made; a missing
 * gnuplot is a warning in warn, not an error. */
int report_doc_html(const struct report *rp, FILE *out, char *warn, size_t warnlen);

/* Prepares the job query every reader of run.db shares: class, state,
 * submit_us, start_us, end_us, cores, GPUs in card equivalents (column 6,
 * REAL), ordered by id. An SQLite result code. */
int report_prepare_jobs(sqlite3 *db, sqlite3_stmt **st);

#endif
