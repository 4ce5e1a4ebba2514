/* sweep — a grid of scenario variants × seeds, and its summary database.
 *
 * `hetlab sweep SWEEP.json` runs the Cartesian product of a few scenario
 * parameters (JSON paths into the scenario, each with a list of values)
 * times a list of seeds. This module holds the grid as plain data: the
 * parameters with their values as JSON text, the seeds, and the points in
 * their fixed order (point id k ↔ one index per parameter, the last
 * parameter varying fastest, like nested loops in file order). The loader
 * (config/sweepcfg.c) fills a grid from a sweep file and gives each point
 * its scenario text; cli/cmd_sweep.c runs the points (each storing its own
 * metrics: `hetlab run --store-metrics`); this module reads the finished
 * run databases (compare_run_load_summary) and writes OUT/summary.db.
 *
 * The grid types need nothing but libc so that the loader can fill them
 * without depending on SQLite; sqlite3 handles never leave sweep.c.
 *
 * Ownership: a grid owns every string and array in it (sweep_grid_fini
 * frees them); results own their compare_run (sweep_result_fini). Strings
 * passed to functions are borrowed. Format and schema: docs/sweep.md. */
#ifndef HL_SWEEP_H
#define HL_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/compare.h"

/* One swept parameter. */
struct sweep_param {
	char *path;             /* JSON path into the scenario, "$.racks[0].count" */
	char *column;           /* its column in table point, "p_racks_0_count" */
	char **value;           /* each value as compact JSON text */
	size_t nvalue;          /* >= 1 */
};

/* One point of the grid: one value of every parameter. */
struct sweep_point {
	size_t id;              /* 0-based, the position in grid order */
	size_t *vidx;           /* nparam indices into each parameter's values */
	char *scenario;         /* the scenario with these values applied, JSON text */
};

struct sweep_grid {
	char *file;             /* the sweep file as given */
	char *scenario;         /* the scenario file, resolved; NULL = the embedded default */
	char *out;              /* the output directory, resolved */
	struct sweep_param *param;
	size_t nparam;
	uint64_t *seed;         /* in the order given, no duplicates */
	size_t nseed;
	struct sweep_point *point;   /* npoint = product of the nvalue (1 without params) */
	size_t npoint;
	char **metric;               /* the "metrics" to print (canonical names); none: the default five */
	size_t nmetric;
};

/* The outcome of one (point, seed) run. */
enum sweep_status { SWEEP_OK, SWEEP_FAILED };

struct sweep_result {
	size_t point;
	uint64_t seed;
	enum sweep_status status;
	int exit_status;        /* the run's exit status; 128 + signal when killed */
	char *note;             /* why it failed (NULL when ok) */
	struct compare_run run; /* the metrics when ok (v[] NaN where undefined) */
	bool stored;            /* they came from the run's table run_metric (run.workload 0) */
};

/* Appends one parameter (copies path and values; computes its column).
 * 0, or -1 when out of memory. */
int sweep_grid_add_param(struct sweep_grid *g, const char *path, const char *const *value,
                         size_t nvalue);
/* Fills g->point (ids and indices; scenario left NULL) from the parameters.
 * 0, or -1 when out of memory or the product overflows. */
int sweep_grid_expand(struct sweep_grid *g);
void sweep_grid_fini(struct sweep_grid *g);
/* "p_" + the path without "$", every run of other characters than
 * [A-Za-z0-9] made one "_", no trailing "_": "$.racks[0].count" ->
 * "p_racks_0_count". The caller frees it; NULL when out of memory. */
char *sweep_column_name(const char *path);
/* Seeds as "1-5", "7" or "1,3,8-10" into a new array (no duplicates, order
 * kept). 0, or -1 with a message. */
int sweep_parse_seeds(const char *text, uint64_t **seed, size_t *nseed, char *err, size_t errlen);
/* "OUT/point-<id>" and "OUT/point-<id>/seed-<N>.db"; the caller frees. */
char *sweep_point_dir(const struct sweep_grid *g, size_t point);
char *sweep_run_db(const struct sweep_grid *g, size_t point, uint64_t seed);
/* "point-<id>/seed-<N>.db", the path stored in the summary. */
char *sweep_run_relpath(size_t point, uint64_t seed);

/* Reads a finished run database into r (status SWEEP_OK): its metrics
 * within w from its table run_metric when the run stored them for w and
 * this build (analysis/runmetric.h), else computed from the whole file
 * (compare_run_load_summary); the same values either way. 0, or -1 with a
 * message when the file is missing or not a finished run. */
int sweep_result_load(const char *db, size_t point, uint64_t seed, const struct metric_window *w,
                      struct sweep_result *r, char *err, size_t errlen);
/* A failed run: status SWEEP_FAILED with the exit status and a note (copied). */
int sweep_result_failed(struct sweep_result *r, size_t point, uint64_t seed, int exit_status,
                        const char *note);
void sweep_result_fini(struct sweep_result *r);

/* Writes the summary database at `path` through a temporary sibling renamed
 * at the end: tables sweep, point, result (docs/sweep.md). The results are
 * written sorted by (point, seed) whatever their order in `res`; `created`
 * (an ISO 8601 time) goes into table sweep only. 0, or -1 with a message. */
int sweep_summary_write(const struct sweep_grid *g, const struct sweep_result *res, size_t nres,
                        const char *path, const char *created, char *err, size_t errlen);
/* Prints one line per point: its values and the mean over its ok seeds of
 * the grid's metrics (default mean_wait, p95_wait, mean_bsld, core_util and
 * gpu_util). 0, or -1 when the stream fails. */
int sweep_print_table(const struct sweep_grid *g, const struct sweep_result *res, size_t nres,
                      FILE *out);

#endif
