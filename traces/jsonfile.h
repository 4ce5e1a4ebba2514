/* jsonfile — one JSON input file read whole (traces/jsonfile.c). */
#ifndef HETLAB_JSONFILE_H
#define HETLAB_JSONFILE_H

#include <jansson.h>
#include <stddef.h>

/* The largest JSON input file (a scenario of HL_MAX_NODES named nodes fits). */
#define JSONFILE_MAX (64 << 20)
/* Parses the JSON file at path (duplicate keys refused, a leading UTF-8
 * byte-order mark skipped); NULL with "path:LINE:COL: message" (or "path:
 * message": a directory, a file over JSONFILE_MAX) in err. */
json_t *jsonfile_load(const char *path, char *err, size_t errlen);

#endif
