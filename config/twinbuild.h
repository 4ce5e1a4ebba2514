/* twinbuild — a Slurm site's digital twin as a scenario file (`hetlab twin
 * build`, docs/slurm-twin.md): the cluster of slurm.conf's NodeName lines
 * (one node type per shape, Slurm's node names, each node labelled with
 * its GPU type), the policy "slurm" with the parameters slurm.conf sets,
 * the "slurm" block (partitions, QOS, the association tree, node weights),
 * node outages of `sacctmgr show event` as node_crash events, and the
 * sacct dump as the workload, replayed as it ran (no walltime kills:
 * its run times already hold Slurm's).
 *
 * The scenario is loaded back and bound to the dump's jobs before it is
 * written (atomically), so a file written is one `hetlab run` reads, and
 * a job whose partition, QOS, user or account the site's files lack is an
 * error naming the job, not a run that fails later.
 *
 * Ownership: the caller owns struct twin_opts and the message lists;
 * twin_build appends to them (slurm_msgs_free). */
#ifndef HL_TWINBUILD_H
#define HL_TWINBUILD_H

#include <stddef.h>

#include "config/slurmconf.h"

#define TWIN_MAX_GPU_MAP 64

struct twin_opts {
	const char *slurm_conf;     /* required */
	const char *gres_conf, *assoc, *qos, *events;   /* NULL: not given */
	const char *sacct;          /* required: the trace */
	const char *ctld_log;       /* NULL, or slurmctld's log: submissions to the millisecond */
	const char *name;           /* NULL: slurm.conf's ClusterName */
	const char *out;            /* required: the scenario file */
	/* --gpu-model TYPE=CATALOG_NAME */
	struct { char type[SLURM_NAME_MAX]; char model[48]; } gpu_map[TWIN_MAX_GPU_MAP];
	int ngpu_map;
};

/* What was built, for the summary line. */
struct twin_sum {
	char name[64];
	int32_t nodes, node_types, gpus, partitions, qos, accounts, users, jobs, node_events;
	int64_t trace_lines;
	struct slurm_msgs notes;    /* one line each: GPU types and their models, defaults taken */
};

/* Builds the twin and writes o->out. Warnings (FILE:LINE: KEY ...) go to
 * warn. 0; -1 with err on bad input (naming file, line and key, or the
 * job); the output is then not written. */
int twin_build(const struct twin_opts *o, struct twin_sum *sum, struct slurm_msgs *warn, char *err,
               size_t errlen);

#endif
