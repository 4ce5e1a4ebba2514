/* trcutil — helpers the trace readers and the fitting code share: an
 * error message into a caller's buffer, a qsort comparison of doubles, and
 * a text file written atomically. */
#ifndef HL_TRCUTIL_H
#define HL_TRCUTIL_H

#include <stddef.h>

/* snprintf into err; returns -1, so `return trc_fail(err, len, ...)` reads well. */
__attribute__((format(printf, 3, 4)))
int trc_fail(char *err, size_t errlen, const char *fmt, ...);
int trc_cmp_double(const void *a, const void *b);
/* Writes text to path through a temporary file ("PATH.tmp.PID", synced)
 * renamed over it: path is the whole text or as it was. 0, or -1 with err. */
int trc_write_atomic(const char *path, const char *text, char *err, size_t errlen);

#endif
