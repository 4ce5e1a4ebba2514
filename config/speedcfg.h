/* speedcfg — reading a catalog GPU's relative-throughput table: the
 * optional "speed" key of a GPU object (scenarios/catalog/gpus.json, or a
 * scenario's "catalog" block), into gpu_model.speed[class][precision]
 * (docs/catalog.md "Speed table"). An internal header of traces/: json_t
 * stays in this layer.
 *
 * Shape: {"training": {"fp16": x, "fp8": y, "fp32": z}, "inference": ...,
 * "batch": ..., "dev": ...}. Every class and every precision is optional;
 * a class may also be a single number, which sets all three precisions.
 * Each value is in (0, 1000], relative to the reference device
 * (A100-SXM-80GB = 1). A cell left out stays 0 ("use rel_speed"), except
 * that on a card without FP8 (fp8_tflops 0) an omitted fp8 cell takes the
 * class's fp16 value: an fp8 job runs in fp16 there.
 *
 * The optional "speed_source" (a string, at most 1000 characters) says
 * where the figures come from; it is checked but not kept.
 *
 * Errors name the JSON path ($.gpus[2].speed.inference.fp8) and what was
 * expected; unknown class or precision names list the valid ones. */
#ifndef HL_SPEEDLOAD_H
#define HL_SPEEDLOAD_H

#include "sim/cluster.h"
#include "config/jv.h"

#define SPEED_MAX 1000.0          /* largest relative speed accepted */
#define SPEED_SOURCE_MAX 1000     /* longest "speed_source" accepted */

/* Reads o.speed and o.speed_source (o is the GPU object at JSON path
 * `path`) into g->speed; g->fp8_tflops must already be set. An absent
 * "speed" leaves g->speed as it is. 0, or -1 with v failed. */
int catalog_speed_load(struct jv *v, const json_t *o, const char *path, struct gpu_model *g);

#endif
