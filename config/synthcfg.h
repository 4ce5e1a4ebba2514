/* synthcfg — loading the generator's configuration from JSON: a
 * scenario's "workload": {"synthetic": ...} block (called by the scenario
 * loader) or a model file of the same keys (synth_load_file, declared in
 * scenario.h). An internal header of traces/: json_t stays in this layer. */
#ifndef HL_SYNTHLOAD_H
#define HL_SYNTHLOAD_H

#include "sim/cluster.h"
#include "config/jv.h"
#include "traces/trace.h"

/* The block `syn` at JSON path sp into *cfg (defaults first). GPU model
 * names are looked up in cat. 0, or -1 with v failed. */
int synth_load_json(struct jv *v, const struct catalog *cat, const json_t *syn, const char *sp,
                    struct synth_cfg *cfg);

#endif
