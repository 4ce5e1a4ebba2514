/* hostexpr — Slurm host list expressions expanded into names, as Slurm
 * reads them in slurm.conf (NodeName=, Nodes=), gres.conf and sacctmgr
 * dumps: "n[1-6]", "gpu[01-16,20]", "a[1-2]-b[3-4]" (several bracket
 * groups: the leftmost varies slowest), "n1,n7,cpu[1-3]" (commas outside
 * brackets separate expressions). A range keeps the width of its low
 * bound: "[08-10]" is 08, 09, 10 and "[8-10]" is 8, 9, 10.
 *
 * The expander allocates nothing: it hands each name to a callback, in
 * order. Its analysis/hostlist.h counterpart compresses names the same
 * way for the results file.
 *
 * Errors: -1 with "what was expected" in why (no file or line: the caller
 * names those), or the callback's own non-zero return, passed on. */
#ifndef HL_HOSTEXPR_H
#define HL_HOSTEXPR_H

#include <stddef.h>
#include <stdint.h>

#define HOSTEXPR_NAME_MAX 48          /* longest name + 1 (a cluster node's) */
#define HOSTEXPR_MAX_NAMES 1000000    /* most names one expression gives */

/* Calls fn(name, ctx) for each name of expr, in order; stops at the first
 * non-zero return and returns it. 0 when every name was handed on. */
int hostexpr_each(const char *expr, int (*fn)(const char *name, void *ctx), void *ctx,
                  char *why, size_t whylen);

/* How many names expr gives, or -1 with why. */
int64_t hostexpr_count(const char *expr, char *why, size_t whylen);

#endif
