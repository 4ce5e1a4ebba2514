/* registry — the static list of executors, looked up by name: the one file
 * that knows every executor (live/exec/executor.h). Adding an executor is
 * its own files and one line here (docs/executors.md). */
#include "live/exec/executor.h"

#include <stdio.h>
#include <string.h>

extern const struct live_executor lx_executor;
extern const struct live_executor sx_executor;
extern const struct live_executor ix_executor;

/* The first is the default (a config without "executor"). */
static const struct live_executor *const registry[] = {
	&lx_executor,   /* "local": the jobs run on this host (the default) */
	&sx_executor,   /* "slurm": a Slurm cluster runs them (docs/slurm.md) */
	&ix_executor,   /* "instant": jobs end at once, in the daemon (benchmarks, tests) */
	NULL,
};

const struct live_executor *const *exec_all(void)
{
	return registry;
}

const struct live_executor *exec_find(const char *name)
{
	if (!name || !name[0])
		return registry[0];
	for (int i = 0; registry[i]; i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

const char *exec_name(const struct live_executor *x)
{
	return x->name;
}

void exec_names(char *buf, size_t len, const char *quote)
{
	size_t off = 0;
	int n = 0;
	buf[0] = 0;
	while (registry[n])
		n++;
	for (int i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ",
		                        quote, registry[i]->name, quote);
}
