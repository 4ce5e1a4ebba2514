/* fault — fault kinds and the defaults of a fault configuration. See
 * fault.h; docs/scenario.md "failures" and "health" list every default. */
#include "sim/fault.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[FAULT_NKIND] = {
	[FAULT_NODE_CRASH] = "node_crash",
	[FAULT_GPU_XID] = "gpu_xid",
	[FAULT_GPU_DEGRADE] = "gpu_degrade",
	[FAULT_NIC] = "nic",
	[FAULT_SMART] = "smart",
	[FAULT_DRIVER] = "driver",
};

/* Repair times, hours: a reboot and checks; an RMA'd GPU swapped from
 * spares; a slow GPU found, drained and swapped; a cable or transceiver;
 * a disk replaced on the next visit; a reimage at the next window. */
static const double repair_h[FAULT_NKIND] = {
	[FAULT_NODE_CRASH] = 4,
	[FAULT_GPU_XID] = 8,
	[FAULT_GPU_DEGRADE] = 24,
	[FAULT_NIC] = 2,
	[FAULT_SMART] = 72,
	[FAULT_DRIVER] = 24,
};

const char *fault_kind_name(int k)
{
	return (unsigned)k < FAULT_NKIND ? kind_names[k] : "?";
}

int fault_kind_parse(const char *name)
{
	for (int k = 0; k < FAULT_NKIND; k++)
		if (strcmp(name, kind_names[k]) == 0)
			return k;
	return -1;
}

void fault_cfg_init(struct fault_cfg *c)
{
	memset(c, 0, sizeof *c);
	for (int k = 0; k < FAULT_NKIND; k++) {
		struct fault_proc *p = &c->proc[k];
		p->dist = FDIST_NONE;
		p->repair_s = repair_h[k] * 3600;
	}
	c->proc[FAULT_GPU_DEGRADE].value = 0.5;   /* the GPU runs at half speed */
	c->proc[FAULT_NIC].value = 0.02;          /* 2 % of packets lost */
	c->migrate = MIGRATE_CHECKPOINTED;
	c->health = (struct health_cfg){
		.enabled = false,
		.fail_jobs = 3,
		.fail_window_us = SIMTIME_HOUR,
		.flaps = 3,
		.flap_window_us = 24 * SIMTIME_HOUR,
		.min_gpu_speed = 0.8,
		.max_nic_loss = 0.01,
		.smart = true,
	};
	c->ev = NULL;
	c->nev = 0;
}

void fault_cfg_fini(struct fault_cfg *c)
{
	free(c->ev);
	fault_cfg_init(c);
}
