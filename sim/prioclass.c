/* prioclass — the PriorityClass table (sim/prioclass.h). */
#include "sim/prioclass.h"

#include <string.h>

#include "sim/job.h"

static const struct {
	const char *name;
	enum job_class cls;
} rows[] = {
	/* Kubernetes' built-in classes (critical system pods): never preempted */
	{ "system-node-critical", JOB_INFERENCE },
	{ "system-cluster-critical", JOB_INFERENCE },
	/* NVIDIA Run:ai's default classes */
	{ "inference", JOB_INFERENCE },
	{ "train", JOB_TRAINING },
	{ "build", JOB_DEV },
	{ "interactive-preemptible", JOB_DEV },
	/* common site names */
	{ "high-priority", JOB_INFERENCE },
	{ "production", JOB_INFERENCE },
	{ "serving", JOB_INFERENCE },
	{ "training", JOB_TRAINING },
	{ "medium-priority", JOB_TRAINING },
	{ "batch", JOB_BATCH },
	{ "low-priority", JOB_BATCH },
	{ "best-effort", JOB_BATCH },
	{ "preemptible", JOB_BATCH },
	{ "dev", JOB_DEV },
	{ "interactive", JOB_DEV },
	{ "development", JOB_DEV },
};

int prioclass_parse(const char *name)
{
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		if (strcmp(rows[i].name, name) == 0)
			return (int)rows[i].cls;
	return -1;
}

const char *prioclass_list(void)
{
	return "system-node-critical, system-cluster-critical, inference, high-priority, production, serving "
	       "(inference); train, training, medium-priority (training); batch, low-priority, best-effort, "
	       "preemptible (batch); build, interactive-preemptible, interactive, dev, development (dev)";
}
