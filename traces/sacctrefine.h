/* sacctrefine — what a Slurm dump does not keep (traces/sacct.h, struct
 * sacct_opts): the run of a job cancelled by a preemption, estimated from
 * the dump's own history, and a submission's milliseconds, from
 * slurmctld's log. Called by the reader once every line is read, before
 * the times are made relative. */
#ifndef HL_SACCTREFINE_H
#define HL_SACCTREFINE_H

#include <stddef.h>
#include <stdint.h>

#include "traces/sacct.h"

/* Jobs whose last run ended PREEMPTED (cancelled, not run again): their
 * run time estimated as struct sacct_opts' estimate_preempted says, their
 * failure cleared; counted in w->sacct_estimated. 0, -1 on ENOMEM. */
int sacct_estimate_preempted(struct workload *w, struct sacct_jobs *x);
/* Submissions to the millisecond from slurmctld's log `log`: job i, whose
 * JobID (the array's, for an array task) is jobid[i] and submit_us still
 * in UTC, gets the milliseconds of the log's submission line of its JobID
 * when that line's minutes and seconds are its Submit's (modulo a quarter
 * hour); counted in w->sacct_ms. 0; -1 with "LOG: what" in err when the
 * log cannot be read or has no submission line with milliseconds. */
int sacct_ctld_ms(const char *log, struct workload *w, const int64_t *jobid, char *err, size_t errlen);

#endif
