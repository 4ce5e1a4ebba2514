/* shadowdb — the results of `hetlab shadow` (docs/forecast.md "The
 * shadow's results"): one SQLite file in the shadow's state directory,
 * shadow.db, holding every poll, every job it saw with its actual start
 * once known, every forecast it made for every waiting job (with what
 * `squeue --start` said then), and its own accuracy, recomputed after
 * each poll into the table `accuracy`: coverage of p10-p90 and the
 * median absolute error of p50 (and of squeue's estimate) against the
 * actual start, by how long the job still had to wait when the forecast
 * was made.
 *
 * Times are Unix seconds (REAL). Writes go through prepared statements,
 * one transaction per poll (shadowdb_begin / shadowdb_commit), so a poll
 * is recorded whole or not at all. Ownership: struct shadowdb owns its
 * connection and statements; sqlite3_stmt never leaves this file. */
#ifndef HL_SHADOWDB_H
#define HL_SHADOWDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SHADOWDB_VERSION 1

/* The bins of the accuracy table: the wait left when the forecast was
 * made (actual start − forecast time): < 1 min, 1-10 min, 10-60 min,
 * > 1 h; then every forecast. */
enum { SHADOW_BIN_1M, SHADOW_BIN_10M, SHADOW_BIN_1H, SHADOW_BIN_MORE, SHADOW_BIN_ALL, SHADOW_NBIN };

struct shadow_acc {
	const char *bin;             /* "<1 min", ..., "all" */
	int64_t forecasts, jobs;     /* forecasts of jobs whose start is known; their jobs */
	double hetlab_mae_s;         /* median |p50 − start| (NaN: none) */
	double coverage;             /* share of starts in [p10, p90] (±1 s: Slurm's clock); NaN: none */
	int64_t squeue_n;            /* forecasts with an estimate of squeue --start */
	double squeue_mae_s;         /* median |squeue's estimate − start| (NaN: none) */
};

struct shadowdb_job {
	int64_t id;                  /* Slurm's job id; an array's task: 2^62 + array × 2^22 + task */
	const char *slurm_id;        /* "123", "123_4" (NULL: as recorded before) */
	const char *user, *partition, *account;
	double submit, limit_s;      /* NaN unknown / no limit */
	double start, end;           /* NaN while unknown */
	const char *start_from;      /* "squeue" or "sacct" (with start) */
};

struct shadowdb;

/* Opens (create: creating, with its schema) the results at path. 0, or
 * -1 with err naming the file and what went wrong. */
int shadowdb_open(struct shadowdb **out, const char *path, bool create, char *err, size_t errlen);
void shadowdb_close(struct shadowdb *d);
int shadowdb_begin(struct shadowdb *d, char *err, size_t errlen);
int shadowdb_commit(struct shadowdb *d, char *err, size_t errlen);
void shadowdb_rollback(struct shadowdb *d);
int shadowdb_meta(struct shadowdb *d, const char *key, const char *value, char *err, size_t errlen);
/* One poll (ok false: it failed; nothing else of it is recorded). */
int shadowdb_poll(struct shadowdb *d, double t, bool ok, int running, int pending, int forecast, double took_s,
                  double cpu_s, const char *error, char *err, size_t errlen);
/* A job seen: inserted, or its row updated (a start, an end once known
 * are kept; the rest replaced). */
int shadowdb_job(struct shadowdb *d, const struct shadowdb_job *j, char *err, size_t errlen);
/* The job ids whose start is known (to *ids, malloc'd). */
int shadowdb_started(struct shadowdb *d, int64_t **ids, int *n, char *err, size_t errlen);
/* The jobs recorded without a start (to *ids, malloc'd): those a
 * restarted shadow still looks for. */
int shadowdb_unstarted(struct shadowdb *d, int64_t **ids, int *n, char *err, size_t errlen);
/* A forecast of job made at t; squeue NaN when squeue gave none. */
int shadowdb_forecast(struct shadowdb *d, int64_t job, double t, double p10, double p50, double p90, double lim,
                      double squeue, char *err, size_t errlen);
/* Every ended job's user, run time and limit, oldest end first (the
 * predictor's history after a restart). */
int shadowdb_history(struct shadowdb *d, void (*fn)(void *ctx, const char *user, double run_s, double limit_s),
                     void *ctx, char *err, size_t errlen);
/* Computes the accuracy (acc[SHADOW_NBIN]) and rewrites the table. */
int shadowdb_accuracy(struct shadowdb *d, struct shadow_acc *acc, char *err, size_t errlen);
/* `hetlab shadow report`: the accuracy table of the results at path, then
 * the one-line summary "forecast: N jobs, hetlab median abs error H s,
 * squeue --start S s, p10-p90 coverage C %". 0, or -1 with err. */
int shadowdb_report(const char *path, FILE *out, char *err, size_t errlen);
/* The summary line of acc (no newline). */
void shadowdb_summary(const struct shadow_acc *acc, char *buf, size_t len);

#endif
