/* runmetric — a run's metrics stored in its own database, for the sweep.
 *
 * `hetlab sweep` needs every metric of every finished run (its summary's
 * `result` and `metric` tables). Computing them means reading the whole
 * run database (analysis/mrun), which the sweep's single process would do
 * once per run while the runs wait for a core. Instead each run the sweep
 * starts (`hetlab run --store-metrics WINDOW`) computes them at its end,
 * from its own connection before the file is sealed, into table
 * `run_metric` (docs/results.md): one row per metric of the registry, each
 * with the window it was computed for and the build id of the binary that
 * computed it. A reader takes the table only when both match what it would
 * use itself: the window it asks for (resolved as mrun_window does) and
 * its own build (GNU build id), so that the values are the ones its own
 * full load would give; otherwise it reports "none" and the caller loads
 * the run (metric_run_load), as for a file from before the table existed.
 *
 * Inside analysis/ only (compare_run.c and recorder.c use it). Connections
 * are the callers'; sets are caller-owned storage (metric_set_fini). */
#ifndef HL_RUNMETRIC_H
#define HL_RUNMETRIC_H

#include <stddef.h>

#include "analysis/metric.h"

struct sqlite3;

/* The running binary's GNU build id as hex, "" when it has none (then
 * nothing is stored and nothing stored is used). */
const char *runmetric_build_id(void);
/* Computes every metric of the run open on db (w: as mrun_metrics takes
 * it; not given = the run's own window) and writes table run_metric in the
 * connection's transaction. 0 (also when the binary has no build id:
 * nothing written), or -1 with a message naming path. */
int runmetric_store(struct sqlite3 *db, const char *path, const struct metric_window *w,
                    char *err, size_t errlen);
/* The metrics stored in the run open on db for window w (as
 * metric_run_load takes it) by this very build: 1 with out filled, 0 when
 * there are none (no table, another window, another build; out empty), -1
 * with a message when the file cannot be read. */
int runmetric_load(struct sqlite3 *db, const char *path, const struct metric_window *w,
                   struct metric_set *out, char *err, size_t errlen);

#endif
