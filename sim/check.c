/* check — the report of a broken invariant (sim/check.h). */
#include "sim/check.h"

#ifdef HL_CHECKS
#include <stdio.h>
#include <stdlib.h>

void hl_check_failed(const char *what, const char *file, int line, const char *func)
{
	fprintf(stderr, "hetlab: internal invariant broken: %s (%s:%d, %s)\n", what, file, line, func);
	abort();
}
#else
typedef int hl_check_unused;   /* ISO C: a translation unit is not empty */
#endif
