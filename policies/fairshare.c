/* fairshare — jobs in strict fair-share order (the classic factor
 * 2^(−U/S), or Slurm's Fair Tree rank with fair_tree=1), ties by submit
 * time, started while they fit, with EASY backfill around the first that
 * does not (docs/policies.md "fairshare").
 *
 * It is prioeasy (policies/prioeasy.c) with only the fair-share
 * weight set: priority = fair-share factor, and prioeasy's order
 * already breaks ties by submit time, then id. Its hooks forward to
 * prioeasy's; init translates its parameters. */
#include "policies/policy.h"

extern const struct policy_ops policy_prioeasy;

enum { P_FAIR_TREE, P_MAX_JOB_TEST, P_WINDOW };

static const struct policy_param fs_params[] = {
	[P_FAIR_TREE] = { "fair_tree", 0, 0, 1, "1: order by Slurm's Fair Tree rank; 0: classic 2^(-U/S)" },
	[P_MAX_JOB_TEST] = { "bf_max_job_test", 500, 1, 1e9,
	                     "jobs, from the first that does not fit, tried per pass (Slurm bf_max_job_test)" },
	[P_WINDOW] = { "bf_window", 1440, 1, 1e9,
	               "minutes ahead a reservation may start; a head beyond gets none (Slurm bf_window)" },
	{ NULL, 0, 0, 0, NULL },
};

static void set(struct policy_cfg *c, const char *name, double val)
{
	int k = policy_param_index(&policy_prioeasy, name);
	if (k >= 0)
		c->v[k] = val;
}

static int fs_init(void **state, const struct policy_env *env, const struct policy_cfg *cfg,
                   char *err, size_t errlen)
{
	struct policy_cfg m;
	policy_cfg_defaults(&policy_prioeasy, &m);
	set(&m, "weight_age", 0);
	set(&m, "weight_fairshare", 1);
	set(&m, "weight_jobsize", 0);
	set(&m, "weight_qos", 0);
	set(&m, "weight_partition", 0);
	set(&m, "fair_tree", cfg->v[P_FAIR_TREE]);
	set(&m, "bf_max_job_test", cfg->v[P_MAX_JOB_TEST]);
	set(&m, "bf_window", cfg->v[P_WINDOW]);
	return policy_prioeasy.init(state, env, &m, err, errlen);
}

static void fs_fini(void *state)
{
	policy_prioeasy.fini(state);
}

static void fs_submit(void *state, const struct view *v, int32_t job)
{
	policy_prioeasy.submit(state, v, job);
}

static void fs_schedule(void *state, const struct view *v, struct decide *out)
{
	policy_prioeasy.schedule(state, v, out);
}

static int fs_renumber(void *state, const struct view *v, const int32_t *map, int32_t nold, int32_t nnew)
{
	return policy_prioeasy.renumber(state, v, map, nold, nnew);
}

static int fs_save(void *state, const struct view *v, struct snapw *w)
{
	return policy_prioeasy.save(state, v, w);
}

static int fs_load(void *state, const struct view *v, struct snapr *r)
{
	return policy_prioeasy.load(state, v, r);
}

const struct policy_ops policy_fairshare = {
	.name = "fairshare",
	.summary = "strict fair-share order (classic or Fair Tree), EASY backfill",
	.params = fs_params,
	.init = fs_init,
	.fini = fs_fini,
	.submit = fs_submit,
	.schedule = fs_schedule,
	.renumber = fs_renumber,
	.save = fs_save,
	.load = fs_load,
};
