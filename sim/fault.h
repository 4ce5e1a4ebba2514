/* fault — failures and repairs of nodes and devices, the health monitor's
 * thresholds, and nodes joining or leaving at run time (docs/models.md
 * "Failures", docs/scenario.md "failures", "health", "events").
 *
 * Each fault kind has a failure process per node (exponential or Weibull
 * times between failures, drawn from a GSL stream of its own seeded from
 * the scenario seed) and a repair time; scenario events inject faults at
 * given times. The engine applies them (sim/engine_fault.c) and keeps each
 * node's health record in cl->health, which policies and the health
 * monitor read through their view. */
#ifndef HL_FAULT_H
#define HL_FAULT_H

#include <stdbool.h>
#include <stdint.h>
#include "sim/simtime.h"

enum fault_kind {
	FAULT_NODE_CRASH,      /* the node goes down; its jobs fail or move */
	FAULT_GPU_XID,         /* one GPU falls off the bus; its jobs fail or move */
	FAULT_GPU_DEGRADE,     /* one GPU runs at `value` of its speed */
	FAULT_NIC,             /* the node's NIC/IB link loses `value` of its packets */
	FAULT_SMART,           /* a disk SMART warning */
	FAULT_DRIVER,          /* driver/firmware version drift */
	FAULT_NKIND
};
const char *fault_kind_name(int k);
int fault_kind_parse(const char *name);   /* -1 unknown */

enum fault_dist { FDIST_NONE, FDIST_EXP, FDIST_WEIBULL };

/* The failure process of one kind, per node. */
struct fault_proc {
	int32_t dist;          /* enum fault_dist; NONE = no random failures */
	double mtbf_s;         /* exponential: mean time between failures */
	double shape, scale_s; /* Weibull */
	double repair_s;       /* time to repair (fixed) */
	double value;          /* degradation factor / loss rate for the kinds that have one */
};

/* What happens to jobs on a failed node or GPU (scenario "failures.migrate"). */
enum migrate_scope {
	MIGRATE_NONE,          /* they fail */
	MIGRATE_CHECKPOINTED,  /* jobs that checkpoint requeue and resume from it; the rest fail */
	MIGRATE_ALL,           /* every job requeues (no checkpoint: from zero) */
};

/* A scenario event: a fault injected, a node joining or leaving, a node
 * drained for a while (FEV_DRAIN; its end, FEV_RESUME, is an event of its
 * own at the drain's at + hours) */
enum fault_ev_kind { FEV_FAULT, FEV_JOIN, FEV_LEAVE, FEV_DRAIN, FEV_RESUME };
struct fault_event {
	simtime at_us;
	int32_t kind;          /* enum fault_ev_kind */
	int32_t fault;         /* enum fault_kind (FEV_FAULT) */
	int32_t node;          /* node index */
	int32_t gpu;           /* GPU of the node, -1 any / none */
	double value;          /* factor, loss rate */
	double repair_s;       /* < 0: the kind's repair time */
};

/* The health monitor's thresholds (scenario "health"); 0 disables one. */
struct health_cfg {
	bool enabled;
	int32_t fail_jobs;         /* drain after this many job failures on a node ... */
	simtime fail_window_us;    /* ... within this window */
	int32_t flaps;             /* drain after this many crashes ... */
	simtime flap_window_us;    /* ... within this window */
	double min_gpu_speed;      /* drain when a GPU runs below this fraction */
	double max_nic_loss;       /* drain when NIC loss is above this rate */
	bool smart;                /* drain on a SMART warning */
};

struct fault_cfg {
	struct fault_proc proc[FAULT_NKIND];
	int32_t migrate;           /* enum migrate_scope */
	struct health_cfg health;
	struct fault_event *ev;    /* time order (owned) */
	int32_t nev;
};

/* A node's health record (cl->health[node]): what the monitor reads. */
#define HEALTH_RING 16
struct node_health {
	double gpu_speed[64];      /* per GPU: 1 healthy, < 1 degraded, 0 fallen off */
	double nic_loss;
	bool smart;
	bool driver_drift;
	bool hot;                  /* live: its reading is at or above sim_live_cfg.hot_c (until below cool_c) */
	double temp_c;             /* live: the temperature that made it hot */
	int32_t crashes;           /* all time */
	simtime crash_at[HEALTH_RING];     /* the latest crash times (ring) */
	int32_t job_fails;
	simtime job_fail_at[HEALTH_RING];  /* the latest times a job failed here (ring) */
	simtime down_until;        /* a crashed node's repair time; -1 up */
	simtime drained_since;     /* -1 when not drained/draining */
	char drain_reason[48];
};

void fault_cfg_init(struct fault_cfg *c);
void fault_cfg_fini(struct fault_cfg *c);

#endif
