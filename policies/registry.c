/* registry — the static list of policies, looked up by name: the top of
 * policies/, the one file that knows every policy. What a policy itself
 * needs of the parameter tables (an index by name, the defaults) lives
 * below it in policies/params.c, so that no policy calls back up here. */
#include "policies/policy.h"

#include <stdio.h>
#include <string.h>

extern const struct policy_ops policy_fcfs;
extern const struct policy_ops policy_easy;
extern const struct policy_ops policy_conservative;
extern const struct policy_ops policy_tiered;
extern const struct policy_ops policy_slurm;
extern const struct policy_ops policy_fairshare;

static const struct policy_ops *const registry[] = {
	&policy_fcfs,
	&policy_easy,
	&policy_conservative,
	&policy_slurm,
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
