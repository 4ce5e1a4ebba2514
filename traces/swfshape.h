/* swfshape — the scenario's "workload.swf" object: how SWF jobs become
 * requests (struct swf_shape, traces/trace.h; docs/traces.md, "Request
 * shapes"). json_t stays here: the result is a plain struct. */
#ifndef HL_SWFSHAPE_H
#define HL_SWFSHAPE_H

#include <jansson.h>

#include "traces/jv.h"
#include "traces/trace.h"

/* Reads o (the "swf" object at JSON path p) into *sh; absent keys keep the
 * defaults (cores anywhere, no memory, no partitions). 0, or -1 through v. */
int swf_shape_load(struct jv *v, const json_t *o, const char *p, struct swf_shape *sh);

#endif
