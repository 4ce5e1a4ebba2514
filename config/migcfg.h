/* migcfg — reads the MIG geometry table (scenarios/catalog/mig.json, format
 * in docs/catalog.md "MIG geometry") into a struct mig_geometry (sim/mig.h).
 *
 * The check is strict: an unknown key, a missing key, a value of the wrong
 * type or range, a start at which the profile would run off the card, a
 * duplicate card or profile name is an error naming the file, the JSON path
 * and what was expected. json_t never leaves migcfg.c. The caller owns the
 * (plain, fixed-size) struct; nothing is allocated that outlives a call. */
#ifndef HL_MIGLOAD_H
#define HL_MIGLOAD_H

#include <stddef.h>

#include "sim/mig.h"

/* Parses text (JSON) into g; file names it in messages. 0 or -1 with err. */
int mig_load_text(struct mig_geometry *g, const char *text, const char *file, char *err, size_t errlen);
/* Loads the geometry compiled into the binary. 0 or -1 with err. */
int mig_load_builtin(struct mig_geometry *g, char *err, size_t errlen);

#endif
