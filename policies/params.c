/* params — what every policy's parameter table and hooks need, knowing no
 * policy by name: a parameter's index by name, a configuration filled with
 * a table's defaults, and the engine's view of a policy instance.
 *
 * It sits below the registry (policies/registry.c, which lists every
 * policy) so that a policy built on another one (fairshare on prioeasy)
 * can translate its parameters without calling up into the registry. */
#include "policies/policy.h"

#include <string.h>

int policy_param_index(const struct policy_ops *p, const char *name)
{
	for (int i = 0; p->params && p->params[i].name; i++)
		if (strcmp(p->params[i].name, name) == 0)
			return i;
	return -1;
}

void policy_cfg_defaults(const struct policy_ops *p, struct policy_cfg *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	for (int i = 0; p->params && p->params[i].name && i < POLICY_MAX_PARAMS; i++)
		cfg->v[i] = p->params[i].def;
}

void policy_to_sched(const struct policy_ops *p, void *state, struct sim_sched *out)
{
	out->name = p->name;
	out->state = state;
	out->submit = p->submit;
	out->finish = p->finish;
	out->schedule = p->schedule;
	out->renumber = p->renumber;
	out->save = p->save;
	out->load = p->load;
}

int policy_renumber_none(void *state, const struct view *v, const int32_t *map, int32_t nold, int32_t nnew)
{
	(void)state, (void)v, (void)map, (void)nold, (void)nnew;
	return 0;
}
