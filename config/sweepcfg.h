/* sweepcfg — reading a sweep file (SWEEP.json) into a struct sweep_grid.
 *
 * A sweep file names a scenario (or none: the embedded default), seeds, an
 * output directory and parameters: JSON paths into the scenario, each with
 * a non-empty array of values. The loader checks every path against the
 * scenario, applies each point's values to a copy of the scenario and keeps
 * the result as JSON text in the point, so json_t never leaves this module
 * (the grid types are plain data from analysis/sweep.h, which needs only
 * libc there). Errors name the sweep file and the JSON path. Format:
 * docs/sweep.md. */
#ifndef HL_SWEEPLOAD_H
#define HL_SWEEPLOAD_H

#include <stddef.h>

#include <jansson.h>

#include "analysis/sweep.h"

/* Loads `path` into g (caller-owned storage, emptied by sweep_grid_fini).
 * `out` overrides the file's "out" when not NULL. Relative trace and
 * inventory paths of the scenario are made absolute in each point's text,
 * so the text works from any directory. 0, or -1 with a message. */
int sweep_load(const char *path, const char *out, struct sweep_grid *g, char *err,
               size_t errlen);

/* Sets the JSON value `value` (JSON text) at `jpath` ("$.a.b[2].c") in the
 * JSON document `doc` and returns the new document as text in *out (the
 * caller frees it). Object keys along the path that do not exist are
 * added (an intermediate one as an empty object, when the next step is a
 * key); array elements must exist. A last step "[+]" appends the value to
 * the array; the value null removes the element or key at the path (JSON
 * merge-patch style). Messages start with `label`.
 * 0, or -1 with a message. */
int sweep_apply(const char *label, const char *doc, const char *jpath, const char *value,
                char **out, char *err, size_t errlen);

/* Shared with the plan loader: dir/rel (rel when absolute or dir is "."),
 * malloc'd; and making a relative path at root.obj.key absolute against
 * base (paths under $TRACES/ are left alone). */
char *sweep_join(const char *dir, const char *rel);
int sweep_absolutize(json_t *root, const char *obj, const char *key, const char *base);

#endif
