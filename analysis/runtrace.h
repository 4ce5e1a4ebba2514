/* runtrace — a run's jobs, as they ran, written as a trace for other tools
 * (`hetlab trace convert run.db out.swf|out.jsonl`):
 *
 * - the Standard Workload Format (Feitelson et al., version 2.2): one line
 *   per job in submit order with its wait, run time, allocated and
 *   requested processors (cores), walltime, memory per processor, status
 *   (1 completed, 0 failed, 5 cancelled), user (tenant), group, queue and
 *   partition (the job class), and the header comments a reader expects
 *   (Version, Computer, UnixStartTime, TimeZoneString, MaxNodes, MaxProcs,
 *   Preemption, Partitions, Note). SWF has no GPU field: a ; Note says so
 *   and the GPUs go to the JSON Lines form.
 * - native JSON Lines (traces/jsonl.c), a trace hetlab replays: each job's
 *   request rebuilt from what it was given (nodes, cores and GPUs per node,
 *   memory, the GPU share or MIG size) and its run time on the device it
 *   ran on as the truth.
 *
 * Reads the results database only; the output is written to a temporary
 * sibling and renamed (never half-written). */
#ifndef HL_RUNTRACE_H
#define HL_RUNTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 1 when path is an SQLite database (by its header), 0 when not. */
int runtrace_is_db(const char *path);
/* out ends in .swf: SWF; .jsonl: JSON Lines. origin_s: the UnixStartTime
 * (< 0: the run's recorded creation time). *njobs the jobs written. */
int runtrace_write(const char *db, const char *out, int64_t origin_s, int64_t *njobs, char *err,
                   size_t errlen);

#endif
