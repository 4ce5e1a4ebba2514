/* dlrm — reader for the Alibaba cluster-trace-gpu-v2025 DLRM inference
 * trace (disaggregated_DLRM_trace.csv, NSDI'25), and the per-service load
 * curve it implies.
 *
 * Each CSV row is one instance (a replica) of an inference service (an
 * "app"): its CPU, GPU, RDMA, memory and disk requests and its creation,
 * scheduling and deletion times. The reader makes one job per instance —
 * class inference, a one-node gang, `group` = the service's index — into a
 * struct workload, and keeps what a job has no field for (role, RDMA share,
 * disk, per-node cap, scheduling time, whether the instance existed before
 * the trace or outlived it) in a struct dlrm_services beside it, one entry
 * per job in job order. The number of live replicas of a service over time
 * is its load curve (dlrm_load_curve).
 *
 * Ownership: the caller owns both structs; dlrm_services_free releases the
 * services, workload_free the jobs. svc->inst[i] describes w->jobs[i] only as
 * long as the workload is not re-sorted.
 *
 * Errors: 0 on success, -1 with a message in err naming the file and line
 * (and the column) and what was expected; a failed read leaves both structs
 * empty. docs/traces.md describes the mapping. */
#ifndef HL_DLRM_H
#define HL_DLRM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "traces/trace.h"

#define DLRM_NAME_MAX 64        /* longest app name + 1 */
#define DLRM_NCOLS 17           /* columns of the CSV */

/* The header line the reader expects, exactly. */
extern const char DLRM_HEADER[];

enum dlrm_role {
	DLRM_CN,    /* instance on a CPU node (gpu_request 0 in the released file) */
	DLRM_HN,    /* instance on a heterogeneous GPU node */
	DLRM_NROLE
};
const char *dlrm_role_name(enum dlrm_role r);

/* What the job model has no field for, per instance. */
enum {
	DLRM_NO_CREATION = 1,   /* creation_time empty: existed when the trace began (submit 0) */
	DLRM_NO_DELETION = 2,   /* deletion_time empty: alive at the end (runs to end_us) */
};
struct dlrm_instance {
	double rdma_pct;        /* rdma_request: % of one RDMA NIC's bandwidth, 0..100 */
	double disk_gib;        /* disk_request */
	simtime sched_us;       /* scheduled_time; -1 when empty */
	int32_t max_per_node;   /* max_instance_per_node; -1 = no limit */
	uint8_t role;           /* enum dlrm_role */
	uint8_t flags;          /* DLRM_NO_CREATION | DLRM_NO_DELETION */
};

struct dlrm_services {
	int32_t napps;
	char (*names)[DLRM_NAME_MAX];  /* names[g]: the app whose jobs have group g */
	int32_t ninst;
	struct dlrm_instance *inst;    /* inst[i] belongs to w->jobs[i] */
	int64_t nrole[DLRM_NROLE];     /* instances per role */
	int64_t no_creation;           /* instances with an empty creation_time */
	int64_t no_deletion;           /* instances with an empty deletion_time */
	simtime end_us;                /* trace end: the largest time in the file */
};

void dlrm_services_init(struct dlrm_services *s);
void dlrm_services_free(struct dlrm_services *s);
/* The group index of app `name`, -1 when there is none. */
int32_t dlrm_app_find(const struct dlrm_services *s, const char *name);

struct dlrm_opts {
	bool lenient;           /* skip and count malformed rows (w->skipped_malformed) */
};
/* Reads the CSV (plain or gzip). o and svc may be NULL (svc NULL: the
 * per-instance data are dropped). Rows whose CPU and GPU requests are both 0
 * ask for nothing and are skipped as unusable. */
int trace_dlrm_read(const char *path, const struct dlrm_opts *o, struct workload *w,
                    struct dlrm_services *svc, char *err, size_t errlen);

/* A service's live replicas as a step function over [0, end_us): live[k]
 * replicas from t_us[k] until t_us[k + 1] (the last until end_us). A replica
 * is live from its creation (its job's submit) until its deletion (submit +
 * run); one deleted and another created at the same instant do not overlap.
 * t_us[0] = 0 and consecutive values of live differ. */
struct dlrm_curve {
	simtime *t_us;
	int32_t *live;
	int32_t n;
	simtime end_us;
	int64_t instances;      /* jobs of the service */
	int32_t peak;           /* largest live count */
	simtime peak_us;        /* when it is first reached */
	double mean;            /* time-weighted mean of live over [0, end_us) */
};
/* The load curve of app `app` (a group index < svc->napps). Frees c's
 * previous arrays first; zero-initialise c before its first use. */
int dlrm_load_curve(const struct workload *w, const struct dlrm_services *svc, int32_t app,
                    struct dlrm_curve *c, char *err, size_t errlen);
void dlrm_curve_free(struct dlrm_curve *c);
/* Live replicas at time t (0 outside [0, end_us)). */
int32_t dlrm_curve_at(const struct dlrm_curve *c, simtime t_us);
/* Live replicas at t = 0, step, 2 step, ... below end_us, into out (room for
 * n values); returns how many were written (at most n). */
int64_t dlrm_curve_sample(const struct dlrm_curve *c, simtime step_us, int32_t *out, int64_t n);

#endif
