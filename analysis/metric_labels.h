/* metric_labels — the label values a metric's {KEY=VALUE} may name, so
 * that a typo (`p95_wait{class=inferense}`, `gpu_util{gpu=H100}`) is
 * refused before anything runs instead of answering NaN.
 *
 * A set holds, for each label key of the registry (analysis/metric.h), the
 * values that exist: the job classes and end reasons always; the tenants,
 * services, GPU models, node types and racks of a scenario (`hetlab plan`,
 * `sweep`: config/scnlabels.h fills it) or of run databases (`compare`,
 * `report`: the label values of their metrics). A key whose values cannot
 * be known (racks of a cluster built from a trace) is left open: any value
 * passes.
 *
 * Ownership: caller-owned storage; metric_labels_fini frees the copies of
 * the values it holds. */
#ifndef HL_METRIC_LABELS_H
#define HL_METRIC_LABELS_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/metric.h"

enum { METRIC_NKEYS = 7 };   /* class, tenant, gpu, type, rack, service, reason */

struct metric_labels {
	char **v[METRIC_NKEYS];      /* the values of each key, in order added, no repeats */
	int n[METRIC_NKEYS], cap[METRIC_NKEYS];
	unsigned open;               /* METRIC_L_* of keys not checked */
	bool oom;                    /* an add ran out of memory (check then fails) */
};

/* An empty set but for the job classes and the end reasons. */
void metric_labels_init(struct metric_labels *L);
void metric_labels_fini(struct metric_labels *L);
/* Adds value under key ("gpu", "rack", ...); unknown keys are ignored. */
void metric_labels_add(struct metric_labels *L, const char *key, const char *value);
/* Adds the label of a canonical metric name (none: nothing). */
void metric_labels_add_name(struct metric_labels *L, const char *name);
/* Adds the label of every name of s that has one. */
void metric_labels_add_set(struct metric_labels *L, const struct metric_set *s);
/* 0 when the canonical metric name has no label, or its key is open, or
 * its value is one of L's; -1 with a message naming the value and listing
 * the known ones (the nearest first when one is close). */
/* Edit distance of two short strings (99 when either is 63 bytes or
 * longer), letters of either case alike with fold_case: the "did you
 * mean" of unknown label values, and of the command line's unknown words
 * (cli/cliutil.c). */
int metric_edit_distance(const char *a, const char *b, bool fold_case);
int metric_labels_check(const struct metric_labels *L, const char *canon, char *err, size_t errlen);

#endif
