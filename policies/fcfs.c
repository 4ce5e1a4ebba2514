/* fcfs — first come, first served: start jobs in submit order while they
 * fit; the first that does not fit blocks everything behind it. */
#include "policies/policy.h"

#include <stdlib.h>

struct fcfs {
	struct alloc_part *parts;
};

static int fcfs_init(void **state, const struct policy_env *env, const struct policy_cfg *cfg,
                     char *err, size_t errlen)
{
	(void)cfg;
	(void)err;
	(void)errlen;
	struct fcfs *p = calloc(1, sizeof *p);
	if (!p || !(p->parts = calloc((size_t)env->cl->nnodes + 1, sizeof *p->parts))) {
		free(p);
		return -1;
	}
	*state = p;
	return 0;
}

static void fcfs_fini(void *state)
{
	struct fcfs *p = state;
	free(p->parts);
	free(p);
}

static void fcfs_schedule(void *state, const struct view *v, struct decide *out)
{
	struct fcfs *p = state;
	const struct cluster *cl = v->cl;
	for (int32_t i = 0; i < v->npending; i++) {
		const struct job *j = &v->jobs[v->pending[i]];
		if (j->state != JOB_PENDING)
			continue;
		if (!place_aggregate_ok(cl, cl->free_cores, cl->free_gpus, &j->req))
			return;
		int n = place_first_fit(cl, cl->free, &j->req, p->parts);
		if (n == 0 || decide_start(out, j->id, p->parts, n))
			return;
	}
}

const struct policy_ops policy_fcfs = {
	.name = "fcfs",
	.summary = "first come, first served; the queue head blocks the rest",
	.init = fcfs_init,
	.fini = fcfs_fini,
	.schedule = fcfs_schedule,
};
