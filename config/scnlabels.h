/* scnlabels — the label values of a scenario for the metric check
 * (analysis/metric_labels.h): what `hetlab plan` and `sweep` check their
 * metrics' {KEY=VALUE} against before any run starts.
 *
 * Ownership: the scenario is borrowed; the values are copied into L. */
#ifndef HL_SCNLABELS_H
#define HL_SCNLABELS_H

#include "analysis/metric_labels.h"
#include "config/scenario.h"

/* Adds sc's tenants and services (of a synthetic workload), the GPU models
 * of its node types, its node types and its racks. Keys the scenario does
 * not settle before a run are opened: tenants and services of a replay
 * (the trace's), racks of a cluster sized from a trace, and racks, types
 * and GPU models of one built from an inventory. */
void scn_labels_add(struct metric_labels *L, const struct scenario *sc);

#endif
