/* instant — an executor whose jobs end at once, in the daemon: a started
 * job is reported done at the next poll, nothing is launched. For
 * benchmarks and tests of the daemon itself (bench/live-longevity.sh
 * takes a state through millions of jobs with it): every other part of
 * the daemon's path is the real one — the socket and inbox, the
 * recording, the engine and its policy, the decision log, the jobs table,
 * compaction and snapshots. Jobs are named by their state id; it keeps
 * nothing by engine index (EXEC_COMPACT). */
#include "live/exec/executor.h"

#include <stdio.h>
#include <stdlib.h>

static int instant_init(struct live *L, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	L->xctx = L;   /* no state of its own; set, as the daemon checks it is */
	return 0;
}

static int instant_start(struct live *L, int32_t job, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	snprintf(L->jx[job].ref, sizeof L->jx[job].ref, "instant");
	return 0;
}

static int instant_signal(struct live *L, int32_t job)
{
	(void)L, (void)job;
	return 0;
}

static int instant_stop(struct live *L, int32_t job, enum exec_stop how)
{
	(void)L, (void)job, (void)how;
	return 0;
}

static int instant_node_state(struct live *L, int32_t node, bool drain, const char *reason)
{
	(void)L, (void)node, (void)drain, (void)reason;
	return 0;
}

/* Every job the engine runs has ended, done. */
static int instant_poll(struct live *L, int32_t job, enum job_state *st, enum end_reason *why, char *msg,
                        size_t len)
{
	(void)L, (void)job;
	*st = JOB_DONE;
	*why = END_NONE;
	snprintf(msg, len, "instant");
	return 1;
}

static void instant_fini(struct live *L)
{
	L->xctx = NULL;
}

const struct live_executor ix_executor = {
	.name = "instant",
	.flags = EXEC_COMPACT,
	.init = instant_init,
	.start = instant_start,
	.signal = instant_signal,
	.stop = instant_stop,
	.node_state = instant_node_state,
	.poll = instant_poll,
	.fini = instant_fini,
};
