/* sacctmgr — a site's Slurm accounting configuration from `sacctmgr -P`
 * dumps, for `hetlab twin build` (docs/slurm-twin.md):
 *
 *   sacctmgr -P show qos   (Name, Priority, GraceTime, Preempt,
 *       PreemptExemptTime, PreemptMode, Flags, UsageFactor, GrpTRES,
 *       GrpJobs, MaxTRESPU, MaxJobsPU, MaxSubmitPU, MaxTRES, MaxWall)
 *   sacctmgr -P show assoc format=Cluster,Account,User,Partition,Share,
 *       Priority,GrpJobs,GrpTRES,GrpSubmit,MaxJobs,MaxTRES,MaxSubmit,
 *       MaxWall,ParentName,QOS,DefaultQOS
 *   sacctmgr -P show event  (Cluster, NodeName, TimeStart, TimeEnd, State,
 *       Reason: node DOWN and DRAIN periods; dump with TZ=UTC)
 *
 * Columns are found by name in the header ("Def QOS" and "DefaultQOS"
 * alike), in any order; columns the twin does not model warn when a row
 * sets them. QOS and associations become the entries of the scenario's
 * "slurm" block (config/slurmcfg.h: "qos", "accounts", "users"), built
 * as JSON here and checked again by the block's loader. TRES lists
 * (`cpu=64,mem=100G,gres/gpu=4,node=2`) keep cpu, mem, node and gres/gpu;
 * other TRES warn.
 *
 * Errors: -1 with "FILE:LINE: COLUMN: expected ..., got '...'"; warnings
 * ("FILE:LINE: COLUMN ...") go to the caller's struct slurm_msgs.
 * Ownership: the caller owns the JSON arrays it passes (entries are
 * appended to them) and frees a struct sm_events with sm_events_free. */
#ifndef HL_SACCTMGR_H
#define HL_SACCTMGR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/slurmconf.h"

/* The entry of arr (a JSON array of objects) whose "name" is name, or NULL. */
json_t *sacctmgr_find(const json_t *arr, const char *name);

/* Appends the QOS of a `show qos` dump to qos (a JSON array). */
int sacctmgr_read_qos(const char *path, json_t *qos, struct slurm_msgs *warn, char *err, size_t errlen);

/* Appends the accounts and users of a `show assoc` dump to the arrays.
 * Rows of a Cluster other than cluster (when both are known) are left
 * out. A QOS the rows name must be in qos; with qos_fixed false (no QOS
 * dump) a missing one is appended with Slurm's defaults and a warning. */
int sacctmgr_read_assoc(const char *path, const char *cluster, json_t *qos, bool qos_fixed,
                        json_t *accounts, json_t *users, struct slurm_msgs *warn, char *err, size_t errlen);

/* One node outage of a `show event` dump. */
struct sm_event {
	char node[HOSTEXPR_NAME_MAX];
	int64_t start, end;         /* Unix seconds (UTC); end -1 while it lasts */
	bool drain;                 /* DRAIN (jobs run on, none start) rather than DOWN */
	char reason[96];
	int32_t line;
};

struct sm_events {
	struct sm_event *v;
	int32_t n, cap;
};

void sm_events_free(struct sm_events *e);
/* Reads the node events of a `show event` dump (cluster-wide rows and
 * other clusters' left out); a NodeName host list gives one event a node. */
int sacctmgr_read_events(const char *path, const char *cluster, struct sm_events *ev,
                         struct slurm_msgs *warn, char *err, size_t errlen);

#endif
