/* plancfg — reading a plan file (PLAN.json) into a struct plan_spec.
 *
 * A plan file names a scenario (or none: the embedded default), seeds, an
 * output directory, fixed settings applied to every candidate, the integer
 * variables (JSON path, range, capex per unit), an optional energy price and
 * the targets. The loader applies the fixed settings, checks every variable
 * at its min and its max against the scenario loader, and keeps the base
 * scenario as JSON text, so json_t never leaves traces/. Errors name the
 * plan file and the JSON path. Format: docs/planning.md. */
#ifndef HL_PLANLOAD_H
#define HL_PLANLOAD_H

#include <stddef.h>

#include "analysis/plan.h"

/* Loads `path` into s (caller-owned storage, emptied by plan_spec_fini).
 * `out` overrides the file's "out" when not NULL. 0, or -1 with a message. */
int plan_load(const char *path, const char *out, struct plan_spec *s, char *err, size_t errlen);

/* The scenario text of candidate x: the base scenario with each variable's
 * value applied (the caller frees *text). 0, or -1 with a message. */
int plan_scenario_text(const struct plan_spec *s, const long *x, char **text, char *err,
                       size_t errlen);

#endif
