/* registry — the static list of policies, looked up by name. */
#include "policies/policy.h"

#include <stdio.h>
#include <string.h>

extern const struct policy_ops policy_fcfs;
extern const struct policy_ops policy_easy;
extern const struct policy_ops policy_conservative;
extern const struct policy_ops policy_tiered;
extern const struct policy_ops policy_multifactor;
extern const struct policy_ops policy_fairshare;

static const struct policy_ops *const registry[] = {
	&policy_fcfs,
	&policy_easy,
	&policy_conservative,
	&policy_multifactor,
	&policy_fairshare,
	&policy_tiered,
	NULL,
};

const struct policy_ops *const *policy_all(void)
{
	return registry;
}

const struct policy_ops *policy_find(const char *name)
{
	for (int i = 0; registry[i]; i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

void policy_names(char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = 0;
	for (int i = 0; registry[i] && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", registry[i]->name);
}

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
}
