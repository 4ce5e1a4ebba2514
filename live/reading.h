/* reading — one node's reading as live mode records it: what a probe saw,
 * reduced to what the engine and the metrics use.
 *
 * The text form is one JSON object (the `data` of a recorded reading, and
 * what a node agent writes for a "file:" probe source, which
 * `hetlab probe --reading` prints):
 *   {"power_w": 812.5, "temp_c": 71.0, "util": 0.93, "gpu_errors": 0, "bad_gpu": -1, "down": false}
 * ("down" is what the executor says of the node — Slurm's DOWN or not
 * responding — and is left out when it says nothing.)
 * Every key is optional but the object must not be empty; unknown keys are
 * errors (a probe that lies is refused, naming the key). A missing number
 * is NaN (unknown). */
#ifndef HL_LIVE_READING_H
#define HL_LIVE_READING_H

#include <stddef.h>
#include "sim/live.h"

/* Parses text (len bytes); src names it in messages ("FILE" or "rec 12").
 * 0, or -1 with "SRC: $.key: what" in err. */
int reading_parse(const char *src, const char *text, size_t len, struct sim_reading *out,
                  char *err, size_t errlen);
/* The text form (NaN keys left out). Returns the length, or -1 when it does not fit. */
int reading_format(const struct sim_reading *r, char *buf, size_t len);

/* A reading is well under this; a bigger file at a reading's path is
 * refused, never read. */
#define READING_MAX_BYTES 65536

/* Reads and parses the reading file at path (a "file:" probe source)
 * without ever blocking or reading more than READING_MAX_BYTES: opened
 * non-blocking, a regular file only (fstat after the open: a FIFO, a
 * device or a directory is refused), no bigger than the cap. Returns 0
 * with *out, 1 when there is none (no file, or older than stale_s: the
 * agent stopped writing), -1 refused with "PATH: why" in err. Touches no
 * database: the daemon calls it before the transaction that records. */
int reading_read_file(const char *path, double stale_s, struct sim_reading *out, char *err, size_t errlen);

struct hp_host;
struct nvml_probe;
/* A reading of this host from two host snapshots dt_us apart (CPU
 * utilisation and RAPL power are rates) and the GPUs: power = RAPL
 * packages + GPU board power, temp = the hottest sensor or GPU, util =
 * CPU busy fraction, gpu_errors = the GPUs' new health events. a may be
 * NULL (first reading: no rates). gpus may be NULL. */
void reading_from_host(const struct hp_host *a, const struct hp_host *b, int64_t dt_us,
                       const struct nvml_probe *gpus, struct sim_reading *out);

#endif
