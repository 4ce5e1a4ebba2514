/* swfcfg — the scenario's "workload.swf" object (how SWF jobs become
 * requests) and "workload.slurm" (which node labels a Slurm dump's
 * partitions and GPU types require): struct swf_shape, traces/trace.h;
 * docs/traces.md. json_t stays here: the result is a plain struct. */
#ifndef HL_SWFSHAPE_H
#define HL_SWFSHAPE_H

#include <jansson.h>

#include "config/jv.h"
#include "traces/trace.h"

/* Reads o (the "swf" object at JSON path p) into *sh; absent keys keep the
 * defaults (cores anywhere, no memory, no partitions). 0, or -1 through v. */
int swf_shape_load(struct jv *v, const json_t *o, const char *p, struct swf_shape *sh);

/* Reads o (the "slurm" object at p: "partition_label", "gpu_type_label")
 * into sh's Slurm fields. 0, or -1 through v. */
int slurm_labels_load(struct jv *v, const json_t *o, const char *p, struct swf_shape *sh);

#endif
