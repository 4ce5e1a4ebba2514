/* org — who the cluster's users are: tenants, their projects, fair-share
 * shares and quotas (scenario "org", loaded by config/orgcfg.c,
 * documented in docs/scenario.md "org").
 *
 * A job's tenant index (job.tenant) is its tenant's position in org.t;
 * its project is job.group when that names a project of the tenant
 * (projects are numbered within their tenant from 0), else the tenant's
 * default project. Tenants beyond the list get one share and no quota.
 *
 * Plain data: the loader fills it, the engine and policies read it
 * (policies through policy_env.org). */
#ifndef HL_ORG_H
#define HL_ORG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sim/simtime.h"

#define ORG_NAME_MAX 48

/* Limits over a sliding window; 0 = unlimited. */
struct quota {
	double gpu_hours;        /* billing-weighted GPU-hours (org.gpu_weight) */
	double core_hours;       /* CPU core-hours */
	double storage_gib;      /* pool capacity held at once */
	double bw_mbps;          /* pool bandwidth held at once */
	simtime window_us;       /* the hours are counted over this window (default 30 days) */
};

struct org_project {
	char name[ORG_NAME_MAX];
	double shares;
	struct quota quota;
};

struct org_tenant {
	char name[ORG_NAME_MAX];
	double shares;
	struct quota quota;
	bool auto_approve;       /* a job over quota is approved at once (still recorded as a hold) */
	int32_t first_project;   /* its projects are org.p[first_project .. + nprojects) */
	int32_t nprojects;
};

/* A scenario event that approves held jobs: at `at_us`, every job of
 * tenant `tenant` held for quota is released and marked approved. */
struct org_approval {
	simtime at_us;
	int32_t tenant;
};

struct org {
	struct org_tenant *t;
	int32_t nt;
	struct org_project *p;
	int32_t np;
	double halflife_s;       /* fair-share usage decay half-life (default 7 days) */
	/* Billing weight of one GPU-second per catalog GPU model (index), for
	 * usage and quotas in the spirit of Slurm TRESBillingWeights;
	 * NULL or 0 = 1. ngpu_weight entries. */
	double *gpu_weight;
	int32_t ngpu_weight;
	double core_weight;      /* billing weight of one core-second (default 0: GPUs only when any) */
	struct org_approval *approve;
	int32_t napprove;
};

void org_init(struct org *o);
void org_fini(struct org *o);
/* The tenant record of tenant index i, or NULL when i is beyond the list. */
static inline const struct org_tenant *org_tenant(const struct org *o, int32_t i)
{
	return o && i >= 0 && i < o->nt ? &o->t[i] : NULL;
}

#endif
