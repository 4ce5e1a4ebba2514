/* swfext — what extended SWF logs add to the 18 standard fields
 * (docs/traces.md, "Extended SWF"): a header note that gives the memory
 * fields' unit, field 21 (the site's own request: a PBS resource list such
 * as "nodes=2:ppn=8:mem=4gb,walltime=24:00:00" or a bare node
 * specification such as "8:ppn=8:x86_64:cl_zegox#excl", as the MetaCentrum
 * and CERIT-SC logs carry), and the notes a replay prints about them.
 *
 * Pure parsing over the caller's strings: nothing is allocated or kept.
 * Errors are messages without the file and line, which the reader adds. */
#ifndef HL_SWFEXT_H
#define HL_SWFEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "traces/trace.h"

/* A header comment's text (after the ';'). 1 when it states a memory unit:
 * *u set (not its line), *req and *used say whether it speaks of field 10,
 * field 7 or both; 0 when it states none. */
int swfext_mem_note(const char *text, struct swf_mem_unit *u, bool *req, bool *used);
/* "bytes/job", "KB/proc", "MB/node" ... (any case) into *u: 0, or -1. */
int swfext_mem_unit_parse(const char *s, struct swf_mem_unit *u);
/* "bytes per job", "KB per processor", ... */
const char *swfext_mem_unit_name(const struct swf_mem_unit *u, char *buf, size_t len);

/* Field 21 as read. Zero / -1 members are unknown. */
struct swf_sitereq {
	int64_t nodes;         /* node count, summed over '+' parts; 0 unknown */
	int32_t ppn;           /* processors per node when there is one part; 0 otherwise */
	int64_t procs;         /* processors: Σ nodes × ppn, or ncpus / procs; 0 unknown */
	int64_t walltime_s;    /* walltime=; -1 unknown */
	int64_t mem_b;         /* mem= in bytes; -1 unknown */
	bool mem_per_node;     /* mem= inside a node part (per node), else the job's */
	bool excl;             /* "#excl": the nodes are the job's alone */
};
/* Parses field 21, the token [s, e). 0 with *r filled ("-1" is the empty
 * request); -1 with msg saying what was expected. Keys and node
 * properties it does not know are skipped. */
int swfext_sitereq(const char *s, const char *e, struct swf_sitereq *r, char *msg, size_t msglen);

/* The notes about an SWF log's times, memory units and field 21 that a
 * replay should show (one per line, no final newline; "" when none). */
void swfext_notes(const struct workload *w, char *buf, size_t len);

#endif
