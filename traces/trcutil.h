/* trcutil — two helpers the trace readers and the fitting code share: an
 * error message into a caller's buffer, and a qsort comparison of doubles. */
#ifndef HL_TRCUTIL_H
#define HL_TRCUTIL_H

#include <stddef.h>

/* snprintf into err; returns -1, so `return trc_fail(err, len, ...)` reads well. */
__attribute__((format(printf, 3, 4)))
int trc_fail(char *err, size_t errlen, const char *fmt, ...);
int trc_cmp_double(const void *a, const void *b);

#endif
