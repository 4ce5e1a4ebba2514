/* slurmconf_int — what the slurm.conf reader's files share: where a pair
 * was read, the value parsers with their error messages, and the global
 * keys' table (slurmglob.c). Internal to config/slurmconf*.c and
 * config/slurmglob.c. */
#ifndef HL_SLURMCONF_INT_H
#define HL_SLURMCONF_INT_H

#include "config/slurmconf.h"

/* Where a key=value pair was read, and where its error goes. */
struct sc_at {
	struct sconf *c;
	int32_t file, line;
	char *err;
	size_t errlen;
};

/* "FILE:LINE: KEY: expected WHAT, got 'VAL'"; returns -1. */
int sc_bad(const struct sc_at *a, const char *key, const char *what, const char *val);
/* "FILE:LINE: KEY " + the formatted rest, into the warnings. */
__attribute__((format(printf, 3, 4)))
void sc_warn(const struct sc_at *a, const char *key, const char *fmt, ...);
/* An integer in [min, max]; with unl, UNLIMITED/INFINITE give unl_val. */
int sc_int(const struct sc_at *a, const char *key, const char *val, int64_t min, int64_t max,
           bool unl, int64_t unl_val, int64_t *out);
/* YES/NO (also TRUE/FALSE, 1/0). */
int sc_bool(const struct sc_at *a, const char *key, const char *val, bool *out);
/* A Slurm time string in seconds, or in minutes rounded up (time_str2mins). */
int sc_time_s(const struct sc_at *a, const char *key, const char *val, int64_t *out);
int sc_time_min(const struct sc_at *a, const char *key, const char *val, int64_t *out);
/* A policy parameter set from this pair; -1 (an error) when the table is full. */
int sc_param(const struct sc_at *a, const char *key, const char *name, double v);

/* A key that warns ("KEY why") unless it holds `fine` (its default). */
struct sc_warned {
	const char *key, *fine, *why;
};
/* 1 when key is in the table (warned about unless val is fine), else 0. */
int sc_warn_table(const struct sc_at *a, const struct sc_warned *t, const char *key, const char *val);
/* 1 when key is in the NULL-terminated list (case-insensitive), else 0. */
int sc_listed(const char *const *list, const char *key);

/* One global key=value of slurm.conf: modelled, accepted or warned. */
int sc_global(const struct sc_at *a, const char *key, const char *val);

#endif
