/* fcfs — first come, first served: start jobs in submit order while they
 * fit; the first that does not fit blocks everything behind it. Where a job
 * goes is the placer's choice (env->placement, first fit by default). */
#include "policies/placement.h"
#include "policies/policy.h"

#include <stdio.h>
#include <stdlib.h>

struct fcfs {
	struct alloc_part *parts;
	struct placer pl;
};

static void fcfs_fini(void *state);

static int fcfs_init(void **state, const struct policy_env *env, const struct policy_cfg *cfg,
                     char *err, size_t errlen)
{
	(void)cfg;
	struct fcfs *p = calloc(1, sizeof *p);
	if (!p)
		return -1;
	if (placer_init(&p->pl, env->placement, env->label_blind, env->seed, env->cl, env->njobs,
	                err, errlen) ||
	    !(p->parts = calloc((size_t)env->cl->nnodes + 1, sizeof *p->parts))) {
		fcfs_fini(p);
		return -1;
	}
	*state = p;
	return 0;
}

static void fcfs_fini(void *state)
{
	struct fcfs *p = state;
	placer_fini(&p->pl);
	free(p->parts);
	free(p);
}

static void fcfs_submit(void *state, const struct view *v, int32_t job)
{
	struct fcfs *p = state;
	placer_submit(&p->pl, &v->jobs[job]);
}

/* Why the jobs from the blocked head (pending[h]) on wait (decide_note). */
static void fcfs_notes(const struct view *v, struct decide *out, int32_t h)
{
	const struct job *head = &v->jobs[v->pending[h]];
	char why[400];
	for (int32_t i = h; i < v->npending; i++) {
		const struct job *j = &v->jobs[v->pending[i]];
		if (j->state != JOB_PENDING)
			continue;
		if (j == head) {
			int fits = cluster_why(v->cl, v->cl->free, &j->req, why, sizeof why);
			decide_note(out, j->id, "first in the queue; %s", fits ? "no placement the strategy accepts now" : why);
		} else {
			decide_note(out, j->id, "behind job %lld, first in the queue (first come, first served)",
			            (long long)head->num);
		}
	}
}

static void fcfs_schedule(void *state, const struct view *v, struct decide *out)
{
	struct fcfs *p = state;
	const struct cluster *cl = v->cl;
	placer_sync(&p->pl, v);
	for (int32_t i = 0; i < v->npending; i++) {
		const struct job *j = &v->jobs[v->pending[i]];
		if (j->state != JOB_PENDING)
			continue;
		int n = place_aggregate_ok(cl, cl->free_cores, cl->free_gpus, &j->req)
		        ? placer_place(&p->pl, cl, cl->free, j, p->parts) : 0;
		if (n == 0) {
			if (decide_noting(out))
				fcfs_notes(v, out, i);
			return;
		}
		if (decide_start(out, j->id, p->parts, n))
			return;
		placer_started(&p->pl, v, j, p->parts, n);
	}
}

/* It keeps only the placer's state between passes. */
static int fcfs_save(void *state, const struct view *v, struct snapw *w)
{
	(void)v;
	placer_save(&((struct fcfs *)state)->pl, w);
	return 0;
}

static int fcfs_load(void *state, const struct view *v, struct snapr *r)
{
	(void)v;
	return placer_load(&((struct fcfs *)state)->pl, r);
}

const struct policy_ops policy_fcfs = {
	.name = "fcfs",
	.summary = "first come, first served; the queue head blocks the rest",
	.init = fcfs_init,
	.fini = fcfs_fini,
	.submit = fcfs_submit,
	.schedule = fcfs_schedule,
	.renumber = policy_renumber_none,   /* it keeps no job id between calls */
	.save = fcfs_save,
	.load = fcfs_load,
};
