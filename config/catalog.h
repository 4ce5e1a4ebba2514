/* catalog — loading the hardware catalog (see catalog.c). */
#ifndef HL_CONFIG_CATALOG_H
#define HL_CONFIG_CATALOG_H

#include <jansson.h>
#include <stddef.h>

#include "config/jv.h"
#include "sim/cluster.h"

/* Loads the built-in catalog into cat. 0, or -1 with err. */
int catalog_load_builtin(struct catalog *cat, char *err, size_t errlen);
/* Adds (or replaces by name) the entries of arrays "gpus" / "cpus" of o
 * (at JSON path `path`) to cat. 0, or -1 with v's error. */
int catalog_merge_json(struct jv *v, struct catalog *cat, const json_t *o, const char *path);

#endif
