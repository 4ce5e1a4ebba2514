/* slurm_int — what live/exec_slurm.c and live/slurm_json.c share; not for
 * other modules (their public API is exec_slurm.h). */
#ifndef HL_SLURM_INT_H
#define HL_SLURM_INT_H

#include <stddef.h>

/* Formats a message into err (n bytes); nothing when err is NULL or n is 0. */
void sx_seterr(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
