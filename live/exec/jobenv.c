/* jobenv — what every executor's jobs get of the daemon: the environment
 * entries on top of their own (live/exec/executor.h). */
#include "live/exec/executor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char **exec_job_env(const struct live *L, int32_t id, const char *extra, bool runtime_vars)
{
	const struct jobx *x = &L->jx[id];
	const struct job *j = &L->s.jobs[id];
	int n = 0;
	while (x->env && x->env[n])
		n++;
	char **e = calloc((size_t)n + 9, sizeof *e);
	if (!e)
		return NULL;
	int k = 0;
	for (int i = 0; i < n; i++)
		e[k++] = strdup(x->env[i]);
	char nodes[1024] = "";
	size_t off = 0;
	for (int i = 0; i < j->nparts && off < sizeof nodes; i++)
		off += (size_t)snprintf(nodes + off, sizeof nodes - off, "%s%s", i ? "," : "",
		                        L->s.cl.nodes[L->s.cl.pool.p[j->parts + i].node].name);
	/* CUDA numbers GPUs fastest first unless told to follow the PCI bus,
	 * which is NVML's order and the one the allocation's indexes use. */
	e[k++] = strdup("CUDA_DEVICE_ORDER=PCI_BUS_ID");
	if (asprintf(&e[k++], "HETLAB_JOB_ID=%lld", (long long)live_sid(L, id)) < 0 ||
	    asprintf(&e[k++], "HETLAB_CKPT_SIGNAL=%d", L->cfg.sig) < 0)
		e[k - 1] = NULL;
	if (!runtime_vars && (asprintf(&e[k++], "HETLAB_ATTEMPT=%d", (int)j->restarts) < 0 ||
	                      asprintf(&e[k++], "HETLAB_NODES=%s", nodes) < 0))
		e[k - 1] = NULL;
	if (extra)
		e[k++] = strdup(extra);
	return e;
}

void exec_strv_free(char **v)
{
	for (int i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}
