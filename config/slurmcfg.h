/* slurmcfg — the scenario's top-level "slurm" block (docs/scenario.md
 * "slurm") read into struct slurm_cfg (policies/slurm.h), and bound to
 * the cluster and the trace once both are built.
 *
 * Shape (every key but "partitions" optional; docs/scenario.md has the
 * tables of keys, defaults and bounds):
 *   "slurm": {
 *     "cr_memory": true, "def_mem_per_cpu_mib": 500, "def_mem_per_node_mib": 0,
 *     "partitions": [ {"name": "debug", "nodes": ["n[1-4]"], "default": true,
 *                      "priority_tier": 1, "priority_job_factor": 1,
 *                      "max_time_s": 172800, "default_time_s": 3600,
 *                      "def_mem_per_cpu_mib": 0, "def_mem_per_node_mib": 0,
 *                      "max_nodes": 2, "over_time_limit_min": 1, "qos": "part-second",
 *                      "exclusive": false, "state": "up"} ],
 *     "qos": [ {"name": "urgent", "priority": 1000, "preempt": ["low"],
 *               "preempt_mode": "requeue", "grace_s": 120, "preempt_exempt_s": 300,
 *               "usage_factor": 2, "flags": ["DenyOnLimit", "NoReserve"],
 *               "limits": {...}} ],
 *     "accounts": [ {"name": "physics", "parent": "science", "shares": 40,
 *                    "priority": 0, "default_qos": "normal", "limits": {...}} ],
 *     "users": [ {"name": "alice", "account": "physics", "shares": 10,
 *                 "priority": 0, "default_qos": "normal", "limits": {...}} ],
 *     "node_weights": { "n[1-4]": 10, "n[5-6]": 20 }
 *   }
 * limits: {"grp_tres": TRES, "grp_jobs": N, "max_tres_per_user": TRES
 * (QOS only), "max_tres_per_job": TRES, "max_jobs": N, "max_submit": N,
 * "max_wall_s": S}; TRES: {"cpu": N, "mem_mib": N, "node": N, "gpu": N}.
 * Node names are Slurm host lists; "ALL" is every node. "shares" is a
 * number or "parent". Without "qos" there is one QOS, "normal"; the
 * account "root" is implicit; an account's "parent" defaults to root.
 *
 * Ownership: slurm_cfg_load and slurm_cfg_bind allocate every array of
 * struct slurm_cfg; slurm_cfg_fini frees them (after success or failure
 * alike). json_t stays in this layer. */
#ifndef HL_SLURMCFG_H
#define HL_SLURMCFG_H

#include <stddef.h>

#include "config/jv.h"
#include "policies/slurm.h"
#include "sim/cluster.h"
#include "traces/trace.h"

/* The node label that names a node's GPU type (Slurm's gres type), as
 * `hetlab twin build` writes it; slurm_cfg_bind reads it. */
#define SLURM_GPU_TYPE_LABEL "slurm.gpu_type"

/* An empty configuration (no partition, QOS or association). */
void slurm_cfg_init(struct slurm_cfg *c);
void slurm_cfg_fini(struct slurm_cfg *c);

/* Reads root.slurm (root: the scenario's top-level object) into c, which
 * it initialises first. An absent block leaves c empty. 0, or -1 with v
 * failed ("$.slurm.qos[2].preempt[0]: unknown QOS \"x\" ..."). */
int slurm_cfg_load(struct jv *v, const json_t *root, struct slurm_cfg *c);

/* Binds c to the cluster and the trace: partitions' node names and the
 * node weights to node indexes, the maps part_of / qos_of / user_of /
 * acct_of from w's name tables (NULL when w has no names of the kind, or
 * c no users and accounts), and checks every job: its partition, QOS,
 * user and account (and the user's association under the account) are
 * the configuration's, and a GPU type it asks for is on a node of its
 * partition (the label SLURM_GPU_TYPE_LABEL). A job without a partition
 * is the default partition's. trace names the trace file in messages:
 * "site.sacct: JobID 1234: partition 'gpu' is not in the twin (slurm.conf
 * has: debug, second)". 0, or -1 with err. */
int slurm_cfg_bind(struct slurm_cfg *c, const struct cluster *cl, const struct workload *w,
                   char *err, size_t errlen);

#endif
