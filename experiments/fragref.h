/* fragref — the published results of the FGD paper's fragmentation protocol
 * (Weng et al., ATC'23): the GPU allocation ratio, mean over seeds 42-51,
 * per openb pod list, policy and arrived % (0..130). The values are the
 * data file traces/data/alibaba-gpu-v2023-openb/published_alloc.csv (its
 * header names the source), compiled into the binary; a pod list the file
 * has no row for has no reference, and callers print none.
 *
 * Pod lists are named as in the file: the CSV's base name without
 * "openb_pod_list_" and ".csv" ("default", "cpu050", "gpuspec33").
 * Everything is read from the embedded text on each call; nothing is kept. */
#ifndef HL_FRAGREF_H
#define HL_FRAGREF_H

#include <stdbool.h>
#include <stddef.h>

#define FRAGREF_MAX_PCT 130

/* The published mean allocation % for (pod_list, policy) at pct into *v:
 * 1 found, 0 unknown (no such list, policy or cell). */
int fragref_get(const char *pod_list, const char *policy, int pct, double *v);
/* 1 when the file has any row for pod_list. */
int fragref_has_list(const char *pod_list);
/* The pod-list name of a pod CSV path (see above), into out. */
void fragref_list_name(const char *path, char *out, size_t n);
/* Where the values come from, for a table's footnote. */
const char *fragref_source(void);

#endif
