/* nvml — see nvml.h. The NVML declarations below follow NVIDIA's public
 * nvml.h: the ABI of the entry points named in syms[] (the _v2/_v3 ones are
 * stable since driver R450; nvmlDeviceGetCurrentClocksEventReasons since
 * R535, with nvmlDeviceGetCurrentClocksThrottleReasons, same signature, as
 * the older name; the MIG GPU-instance queries since R450). Enumerations
 * are passed as int: NVML's are int-sized. */
#include "live/nvml.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvml_return;                        /* nvmlReturn_t: 0 is NVML_SUCCESS */
typedef struct nvml_device_st *nvml_device;     /* nvmlDevice_t: opaque handle */
typedef struct nvml_event_set_st *nvml_event_set; /* nvmlEventSet_t: opaque handle */
typedef struct nvml_gpu_instance_st *nvml_gpu_instance; /* nvmlGpuInstance_t: opaque handle */

struct nvml_memory {                            /* nvmlMemory_t */
	unsigned long long total, free, used;
};

struct nvml_utilization {                       /* nvmlUtilization_t */
	unsigned int gpu, memory;
};

struct nvml_pci_info {                          /* nvmlPciInfo_t (nvmlDeviceGetPciInfo_v3) */
	char bus_id_legacy[16];                 /* NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE */
	unsigned int domain, bus, device;
	unsigned int pci_device_id, pci_subsystem_id;
	char bus_id[32];                        /* NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE */
};

struct nvml_device_attributes {                 /* nvmlDeviceAttributes_t (nvmlDeviceGetAttributes_v2) */
	unsigned int multiprocessor_count;
	unsigned int shared_copy_engine_count, shared_decoder_count, shared_encoder_count;
	unsigned int shared_jpeg_count, shared_ofa_count;
	unsigned int gpu_instance_slice_count, compute_instance_slice_count;
	unsigned long long memory_size_mb;
};

struct nvml_gpu_instance_placement {           /* nvmlGpuInstancePlacement_t */
	unsigned int start;                     /* first memory slice */
	unsigned int size;                      /* memory slices */
};

struct nvml_gpu_instance_info {                 /* nvmlGpuInstanceInfo_t (nvmlGpuInstanceGetInfo) */
	nvml_device device;                     /* the parent GPU */
	unsigned int id;
	unsigned int profile_id;
	struct nvml_gpu_instance_placement placement;
};

struct nvml_event_data {                        /* nvmlEventData_t (nvmlEventSetWait_v2) */
	nvml_device device;
	unsigned long long event_type;
	unsigned long long event_data;          /* the XID for nvmlEventTypeXidCriticalError */
	unsigned int gpu_instance_id, compute_instance_id;
};

enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NO_PERMISSION = 4,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_TIMEOUT = 10,
	NVML_TEMPERATURE_GPU = 0,
	NVML_TEMPERATURE_THRESHOLD_SHUTDOWN = 0,
	NVML_TEMPERATURE_THRESHOLD_SLOWDOWN = 1,
	NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1,
	NVML_VOLATILE_ECC = 0,
	NVML_AGGREGATE_ECC = 1,
	NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS = 0,
	NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR = 1,
	NVML_FEATURE_ENABLED = 1,                /* nvmlEnableState_t */
	NVML_DEVICE_MIG_ENABLE = 1,
};

/* Events a session asks for; at most this many are drained per read. A
 * drain waits EVENT_WAIT_MS for each event: 1, not 0, because whether
 * NVML treats 0 as "do not wait" or as "wait forever" is not documented
 * (reports differ), and 1 ms per read is cheap insurance against a hang. */
enum { EVENTS_WANTED = NVML_EV_XID | NVML_EV_DBE | NVML_EV_SBE, DRAIN_MAX = 1024, EVENT_WAIT_MS = 1 };

struct nvml_fns {
	/* required */
	nvml_return (*init)(void);
	nvml_return (*shutdown)(void);
	nvml_return (*count)(unsigned int *);
	nvml_return (*handle)(unsigned int, nvml_device *);
	/* optional: NULL when the library lacks them */
	nvml_return (*name)(nvml_device, char *, unsigned int);
	nvml_return (*uuid)(nvml_device, char *, unsigned int);
	nvml_return (*pci)(nvml_device, struct nvml_pci_info *);
	nvml_return (*memory)(nvml_device, struct nvml_memory *);
	nvml_return (*power)(nvml_device, unsigned int *);
	nvml_return (*limit)(nvml_device, unsigned int *);
	nvml_return (*temp)(nvml_device, int, unsigned int *);
	nvml_return (*threshold)(nvml_device, int, unsigned int *);
	nvml_return (*util)(nvml_device, struct nvml_utilization *);
	nvml_return (*clocks_event)(nvml_device, unsigned long long *);
	nvml_return (*clocks_throttle)(nvml_device, unsigned long long *);
	nvml_return (*mig_mode)(nvml_device, unsigned int *, unsigned int *);
	nvml_return (*mig_max)(nvml_device, unsigned int *);
	nvml_return (*mig_handle)(nvml_device, unsigned int, nvml_device *);
	nvml_return (*attributes)(nvml_device, struct nvml_device_attributes *);
	nvml_return (*gi_id)(nvml_device, unsigned int *);
	nvml_return (*ci_id)(nvml_device, unsigned int *);
	nvml_return (*gi_by_id)(nvml_device, unsigned int, nvml_gpu_instance *);
	nvml_return (*gi_info)(nvml_gpu_instance, struct nvml_gpu_instance_info *);
	nvml_return (*ecc_mode)(nvml_device, unsigned int *, unsigned int *);
	nvml_return (*ecc_total)(nvml_device, int, int, unsigned long long *);
	nvml_return (*retired)(nvml_device, int, unsigned int *, unsigned long long *);
	nvml_return (*retired_pending)(nvml_device, unsigned int *);
	nvml_return (*remapped)(nvml_device, unsigned int *, unsigned int *, unsigned int *, unsigned int *);
	/* events: a session only */
	nvml_return (*ev_supported)(nvml_device, unsigned long long *);
	nvml_return (*ev_create)(nvml_event_set *);
	nvml_return (*ev_register)(nvml_device, unsigned long long, nvml_event_set);
	nvml_return (*ev_wait)(nvml_event_set, struct nvml_event_data *, unsigned int);
	nvml_return (*ev_free)(nvml_event_set);
};

enum sym_kind {
	SYM_REQUIRED,   /* without it, no GPUs */
	SYM_OPTIONAL,   /* without it, one reading absent */
	SYM_CLOCKS,     /* either of the two clock-reason names will do */
	SYM_EVENTS,     /* without it, a session has no events; not looked at by a one-shot read */
};

/* Registration table: symbol name → slot; ends with a sentinel. */
static const struct { const char *sym; size_t off; enum sym_kind kind; } syms[] = {
	{ "nvmlInit_v2", offsetof(struct nvml_fns, init), SYM_REQUIRED },
	{ "nvmlShutdown", offsetof(struct nvml_fns, shutdown), SYM_REQUIRED },
	{ "nvmlDeviceGetCount_v2", offsetof(struct nvml_fns, count), SYM_REQUIRED },
	{ "nvmlDeviceGetHandleByIndex_v2", offsetof(struct nvml_fns, handle), SYM_REQUIRED },
	{ "nvmlDeviceGetName", offsetof(struct nvml_fns, name), SYM_OPTIONAL },
	{ "nvmlDeviceGetUUID", offsetof(struct nvml_fns, uuid), SYM_OPTIONAL },
	{ "nvmlDeviceGetPciInfo_v3", offsetof(struct nvml_fns, pci), SYM_OPTIONAL },
	{ "nvmlDeviceGetMemoryInfo", offsetof(struct nvml_fns, memory), SYM_OPTIONAL },
	{ "nvmlDeviceGetPowerUsage", offsetof(struct nvml_fns, power), SYM_OPTIONAL },
	{ "nvmlDeviceGetEnforcedPowerLimit", offsetof(struct nvml_fns, limit), SYM_OPTIONAL },
	{ "nvmlDeviceGetTemperature", offsetof(struct nvml_fns, temp), SYM_OPTIONAL },
	{ "nvmlDeviceGetTemperatureThreshold", offsetof(struct nvml_fns, threshold), SYM_OPTIONAL },
	{ "nvmlDeviceGetUtilizationRates", offsetof(struct nvml_fns, util), SYM_OPTIONAL },
	{ "nvmlDeviceGetCurrentClocksEventReasons", offsetof(struct nvml_fns, clocks_event), SYM_CLOCKS },
	{ "nvmlDeviceGetCurrentClocksThrottleReasons", offsetof(struct nvml_fns, clocks_throttle), SYM_CLOCKS },
	{ "nvmlDeviceGetMigMode", offsetof(struct nvml_fns, mig_mode), SYM_OPTIONAL },
	{ "nvmlDeviceGetMaxMigDeviceCount", offsetof(struct nvml_fns, mig_max), SYM_OPTIONAL },
	{ "nvmlDeviceGetMigDeviceHandleByIndex", offsetof(struct nvml_fns, mig_handle), SYM_OPTIONAL },
	{ "nvmlDeviceGetAttributes_v2", offsetof(struct nvml_fns, attributes), SYM_OPTIONAL },
	{ "nvmlDeviceGetGpuInstanceId", offsetof(struct nvml_fns, gi_id), SYM_OPTIONAL },
	{ "nvmlDeviceGetComputeInstanceId", offsetof(struct nvml_fns, ci_id), SYM_OPTIONAL },
	{ "nvmlDeviceGetGpuInstanceById", offsetof(struct nvml_fns, gi_by_id), SYM_OPTIONAL },
	{ "nvmlGpuInstanceGetInfo", offsetof(struct nvml_fns, gi_info), SYM_OPTIONAL },
	{ "nvmlDeviceGetEccMode", offsetof(struct nvml_fns, ecc_mode), SYM_OPTIONAL },
	{ "nvmlDeviceGetTotalEccErrors", offsetof(struct nvml_fns, ecc_total), SYM_OPTIONAL },
	{ "nvmlDeviceGetRetiredPages", offsetof(struct nvml_fns, retired), SYM_OPTIONAL },
	{ "nvmlDeviceGetRetiredPagesPendingStatus", offsetof(struct nvml_fns, retired_pending), SYM_OPTIONAL },
	{ "nvmlDeviceGetRemappedRows", offsetof(struct nvml_fns, remapped), SYM_OPTIONAL },
	{ "nvmlDeviceGetSupportedEventTypes", offsetof(struct nvml_fns, ev_supported), SYM_EVENTS },
	{ "nvmlEventSetCreate", offsetof(struct nvml_fns, ev_create), SYM_EVENTS },
	{ "nvmlDeviceRegisterEvents", offsetof(struct nvml_fns, ev_register), SYM_EVENTS },
	{ "nvmlEventSetWait_v2", offsetof(struct nvml_fns, ev_wait), SYM_EVENTS },
	{ "nvmlEventSetFree", offsetof(struct nvml_fns, ev_free), SYM_EVENTS },
	{ NULL, 0, SYM_REQUIRED },
};

/* Per device state a session keeps between reads. */
struct sess_dev {
	nvml_device h;
	unsigned index;
	int nmig;
	nvml_device mig[NVML_MAX_MIG];          /* as of the latest read, to match events */
	uint64_t mask;                          /* NVML_EV_* registered */
	bool have_prev_ecc;
	uint64_t prev_ecc;                      /* volatile uncorrected total at the previous read */
	unsigned pend_xids, pend_dbe, pend_sbe; /* drained, not reported yet */
	uint64_t xids_total, dbe_total, sbe_total;
	int nxids;
	unsigned last_xid[NVML_MAX_XIDS];
};

struct nvml_session {
	void *dl;
	struct nvml_fns f;
	bool inited;                            /* nvmlInit_v2 succeeded: shut down on close */
	bool tracking;                          /* a session (events, ECC deltas), not a one-shot read */
	nvml_event_set set;                     /* NULL: no events */
	int ndevices;
	int ndev;
	struct sess_dev dev[NVML_MAX_GPUS];
	int ninfo;                              /* lines of the open, repeated by every read */
	char info[NVML_MAX_INFO][NVML_INFO];
};

static const char *const clock_reason_names[] = {
	"gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown", "sync_boost",
	"sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "display_clock_setting",
};

const char *nvml_clock_reason_name(unsigned bit)
{
	return bit < sizeof clock_reason_names / sizeof clock_reason_names[0] ? clock_reason_names[bit] : NULL;
}

char *nvml_clock_reasons_str(uint64_t mask, char *buf, size_t n)
{
	size_t len = 0;
	if (n == 0)
		return buf;
	buf[0] = '\0';
	if (mask == 0)
		snprintf(buf, n, "none");
	for (unsigned b = 0; b < 64; b++) {
		if (!(mask >> b & 1))
			continue;
		const char *name = nvml_clock_reason_name(b);
		int k = name ? snprintf(buf + len, n - len, "%s%s", len ? "," : "", name)
		             : snprintf(buf + len, n - len, "%s0x%llx", len ? "," : "", 1ULL << b);
		if (k < 0 || (size_t)k >= n - len) {
			buf[len] = '\0';   /* truncated: the whole entries that fit are kept */
			break;
		}
		len += (size_t)k;
	}
	return buf;
}

static void add_line(char (*lines)[NVML_INFO], int *n, const char *fmt, va_list ap)
{
	if (*n >= NVML_MAX_INFO)
		return;
	vsnprintf(lines[(*n)++], NVML_INFO, fmt, ap);
}

static void info(struct nvml_probe *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void info(struct nvml_probe *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_line(p->info, &p->ninfo, fmt, ap);
	va_end(ap);
}

static void sinfo(struct nvml_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sinfo(struct nvml_session *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_line(s->info, &s->ninfo, fmt, ap);
	va_end(ap);
}

/* Printable ASCII only: a name ends up in JSON and on a terminal. */
static void clean(char *s, size_t n)
{
	s[n - 1] = '\0';
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

/* A string query into buf, cleaned; "" when it fails. */
static void read_str(nvml_return (*fn)(nvml_device, char *, unsigned int), nvml_device d, char *buf, size_t n)
{
	if (fn && fn(d, buf, (unsigned int)n) == NVML_SUCCESS)
		clean(buf, n);
	else
		buf[0] = '\0';
}

/* The first failure of a GPU-instance query in a read, other than
 * NOT_SUPPORTED: one info line for all MIG devices (without root, every
 * one fails alike). */
struct gi_fail {
	const char *fn;                         /* NULL: none */
	nvml_return rc;
};

/* The profile and placement of GPU instance `id` of GPU d (a MIG device's) into mg. */
static void read_placement(const struct nvml_fns *f, nvml_device d, unsigned int id, struct nvml_mig *mg,
                           struct gi_fail *fail)
{
	nvml_gpu_instance gi;
	struct nvml_gpu_instance_info info;
	nvml_return rc;
	const char *fn = "nvmlDeviceGetGpuInstanceById";

	if (!f->gi_by_id || !f->gi_info)
		return;
	if ((rc = f->gi_by_id(d, id, &gi)) == NVML_SUCCESS) {
		fn = "nvmlGpuInstanceGetInfo";
		memset(&info, 0, sizeof info);
		rc = f->gi_info(gi, &info);
	}
	if (rc != NVML_SUCCESS) {
		if (rc != NVML_ERROR_NOT_SUPPORTED && !fail->fn) {
			fail->fn = fn;
			fail->rc = rc;
		}
		return;
	}
	/* Another instance's placement would give a job the wrong MIG device. */
	if (info.id != id || info.placement.size == 0)
		return;
	mg->have_placement = true;
	mg->profile_id = info.profile_id;
	mg->place_start = info.placement.start;
	mg->place_size = info.placement.size;
}

static void read_mig(const struct nvml_fns *f, nvml_device d, nvml_device m, struct nvml_mig *mg,
                     struct gi_fail *fail)
{
	struct nvml_memory mem;
	struct nvml_device_attributes a;
	unsigned int id;
	read_str(f->uuid, m, mg->uuid, sizeof mg->uuid);
	if (f->memory && f->memory(m, &mem) == NVML_SUCCESS) {
		mg->have_mem = true;
		mg->mem_total_b = mem.total;
		mg->mem_used_b = mem.used;
	}
	memset(&a, 0, sizeof a);
	if (f->attributes && f->attributes(m, &a) == NVML_SUCCESS) {
		mg->have_attr = true;
		mg->gi_slices = a.gpu_instance_slice_count;
		mg->ci_slices = a.compute_instance_slice_count;
		mg->sm_count = a.multiprocessor_count;
	}
	if (f->ci_id && f->ci_id(m, &id) == NVML_SUCCESS) {
		mg->have_ci_id = true;
		mg->ci_id = id;
	}
	if (f->gi_id && f->gi_id(m, &id) == NVML_SUCCESS) {
		mg->have_gi_id = true;
		mg->gi_id = id;
		read_placement(f, d, id, mg, fail);
	}
}

/* MIG devices of a GPU in MIG mode; their handles go to sd for events. */
static void read_migs(const struct nvml_fns *f, struct sess_dev *sd, struct nvml_gpu *g, struct gi_fail *fail)
{
	unsigned int max = 0;
	sd->nmig = 0;
	if (!g->mig_on || !f->mig_max || !f->mig_handle || f->mig_max(sd->h, &max) != NVML_SUCCESS)
		return;
	for (unsigned int i = 0; i < max && g->nmig < NVML_MAX_MIG; i++) {
		nvml_device m;
		/* NVML_ERROR_NOT_FOUND: no MIG device at this index */
		if (f->mig_handle(sd->h, i, &m) != NVML_SUCCESS)
			continue;
		struct nvml_mig *mg = &g->mig[g->nmig++];
		mg->index = i;
		read_mig(f, sd->h, m, mg, fail);
		sd->mig[sd->nmig++] = m;
	}
}

static void read_errors(const struct nvml_fns *f, nvml_device d, struct nvml_gpu *g)
{
	unsigned int cur, pend, a, b, c, e;
	unsigned long long v;

	if (f->ecc_mode && f->ecc_mode(d, &cur, &pend) == NVML_SUCCESS) {
		g->have_ecc_mode = true;
		g->ecc_on = cur == NVML_FEATURE_ENABLED;
		g->ecc_pending_on = pend == NVML_FEATURE_ENABLED;
	}
	if (f->ecc_total && f->ecc_total(d, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &v) == NVML_SUCCESS) {
		g->have_ecc_volatile = true;
		g->ecc_unc_volatile = v;
	}
	if (f->ecc_total && f->ecc_total(d, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC, &v) == NVML_SUCCESS) {
		g->have_ecc_aggregate = true;
		g->ecc_unc_aggregate = v;
	}
	if (f->retired) {
		/* A count of 0 asks for the count only: NVML answers SUCCESS when
		 * there are none, INSUFFICIENT_SIZE (and the count) otherwise. */
		unsigned int nsbe = 0, ndbe = 0;
		nvml_return r1 = f->retired(d, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, &nsbe, NULL);
		nvml_return r2 = f->retired(d, NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, &ndbe, NULL);
		if ((r1 == NVML_SUCCESS || r1 == NVML_ERROR_INSUFFICIENT_SIZE) &&
		    (r2 == NVML_SUCCESS || r2 == NVML_ERROR_INSUFFICIENT_SIZE)) {
			g->have_retired = true;
			g->retired_sbe = nsbe;
			g->retired_dbe = ndbe;
		}
	}
	if (f->retired_pending && f->retired_pending(d, &pend) == NVML_SUCCESS) {
		g->have_retired_pending = true;
		g->retired_pending = pend == NVML_FEATURE_ENABLED;
	}
	if (f->remapped && f->remapped(d, &a, &b, &c, &e) == NVML_SUCCESS) {
		g->have_remap = true;
		g->remap_corr = a;
		g->remap_unc = b;
		g->remap_pending = c != 0;
		g->remap_failure = e != 0;
	}
}

static void read_gpu(const struct nvml_fns *f, struct sess_dev *sd, struct nvml_gpu *g, struct gi_fail *fail)
{
	nvml_device d = sd->h;
	struct nvml_memory mem;
	struct nvml_utilization u;
	struct nvml_pci_info pci;
	unsigned int v, pend;
	unsigned long long mask;

	read_str(f->name, d, g->name, sizeof g->name);
	if (!g->name[0])
		snprintf(g->name, sizeof g->name, "?");
	read_str(f->uuid, d, g->uuid, sizeof g->uuid);
	memset(&pci, 0, sizeof pci);
	if (f->pci && f->pci(d, &pci) == NVML_SUCCESS) {
		clean(pci.bus_id, sizeof pci.bus_id);
		clean(pci.bus_id_legacy, sizeof pci.bus_id_legacy);
		snprintf(g->pci_bus_id, sizeof g->pci_bus_id, "%s", pci.bus_id[0] ? pci.bus_id : pci.bus_id_legacy);
	}
	if (f->memory && f->memory(d, &mem) == NVML_SUCCESS) {
		g->have_mem = true;
		g->mem_total_b = mem.total;
		g->mem_used_b = mem.used;
	}
	if (f->power && f->power(d, &v) == NVML_SUCCESS) {
		g->have_power = true;
		g->power_w = v / 1000.0;
	}
	if (f->limit && f->limit(d, &v) == NVML_SUCCESS) {
		g->have_limit = true;
		g->limit_w = v / 1000.0;
	}
	if (f->temp && f->temp(d, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS) {
		g->have_temp = true;
		g->temp_c = v;
	}
	if (f->threshold && f->threshold(d, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &v) == NVML_SUCCESS) {
		g->have_temp_slowdown = true;
		g->temp_slowdown_c = v;
	}
	if (f->threshold && f->threshold(d, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, &v) == NVML_SUCCESS) {
		g->have_temp_shutdown = true;
		g->temp_shutdown_c = v;
	}
	if (f->util && f->util(d, &u) == NVML_SUCCESS) {
		g->have_util = true;
		g->util_gpu_pct = u.gpu > 100 ? 100 : u.gpu;
		g->util_mem_pct = u.memory > 100 ? 100 : u.memory;
	}
	/* The older name is only a fallback: a new driver may keep it as a stub. */
	nvml_return (*clocks)(nvml_device, unsigned long long *) = f->clocks_event ? f->clocks_event : f->clocks_throttle;
	if (clocks && clocks(d, &mask) == NVML_SUCCESS) {
		g->have_clock_reasons = true;
		g->clock_reasons = mask;
	}
	if (f->mig_mode && f->mig_mode(d, &v, &pend) == NVML_SUCCESS) {
		g->have_mig = true;
		g->mig_on = v == NVML_DEVICE_MIG_ENABLE;
		g->mig_pending_on = pend == NVML_DEVICE_MIG_ENABLE;
	}
	read_migs(f, sd, g, fail);
	read_errors(f, d, g);
}

/* ---- sessions --------------------------------------------------------------- */

/* Appends `name` to the list of missing symbols while they fit in its
 * budget (so that the info line keeps its end); counts the rest. */
static void add_missing(char *list, size_t cap, size_t *len, int *nmore, const char *name)
{
	int k = *nmore ? -1 : snprintf(list + *len, cap - *len, "%s%s", *len ? ", " : "", name);
	if (k > 0 && (size_t)k < cap - *len) {
		*len += (size_t)k;
	} else {
		list[*len] = '\0';
		(*nmore)++;
	}
}

/* Looks every symbol up; false (and an info line) when a required one is missing. */
static bool load_syms(struct nvml_session *s, const char *lib, bool events)
{
	char missing[200] = "";
	size_t len = 0;
	int nmore = 0;
	bool clocks = false;

	memset(&s->f, 0, sizeof s->f);
	for (int i = 0; syms[i].sym; i++) {
		void *p = dlsym(s->dl, syms[i].sym);
		if (p) {
			/* POSIX guarantees a dlsym result converts to a function pointer;
			 * memcpy says so without a cast between object and function pointers. */
			memcpy((char *)&s->f + syms[i].off, &p, sizeof p);
			clocks |= syms[i].kind == SYM_CLOCKS;
			continue;
		}
		if (syms[i].kind == SYM_REQUIRED) {
			sinfo(s, "%s lacks %s: no GPUs", lib, syms[i].sym);
			return false;
		}
		if (syms[i].kind == SYM_CLOCKS || (syms[i].kind == SYM_EVENTS && !events))
			continue;
		add_missing(missing, sizeof missing, &len, &nmore, syms[i].sym);
	}
	if (!clocks)
		add_missing(missing, sizeof missing, &len, &nmore, "nvmlDeviceGetCurrentClocksEventReasons");
	/* Without the full event set the session goes without events. */
	if (!s->f.ev_create || !s->f.ev_register || !s->f.ev_wait || !s->f.ev_free) {
		s->f.ev_create = NULL;
		s->f.ev_wait = NULL;
	}
	if (nmore)
		sinfo(s, "%s lacks %s and %d more: those readings are absent", lib, missing, nmore);
	else if (len)
		sinfo(s, "%s lacks %s: those readings are absent", lib, missing);
	return true;
}

/* Registers every device for the events it supports; frees the set when none is. */
static void register_events(struct nvml_session *s)
{
	const struct nvml_fns *f = &s->f;
	nvml_return rc;
	int nreg = 0;

	if (!f->ev_create || s->ndev == 0)
		return;
	if ((rc = f->ev_create(&s->set)) != NVML_SUCCESS) {
		sinfo(s, "nvmlEventSetCreate failed (NVML error %d): no XID/ECC events", rc);
		s->set = NULL;
		return;
	}
	for (int i = 0; i < s->ndev; i++) {
		struct sess_dev *d = &s->dev[i];
		unsigned long long sup = EVENTS_WANTED;
		if (f->ev_supported && f->ev_supported(d->h, &sup) != NVML_SUCCESS)
			sup = EVENTS_WANTED;   /* unknown: try, and let registration say */
		unsigned long long want = sup & EVENTS_WANTED;
		if (!want)
			continue;
		rc = f->ev_register(d->h, want, s->set);
		if (rc != NVML_SUCCESS && want != NVML_EV_XID)
			rc = f->ev_register(d->h, want = NVML_EV_XID, s->set);
		if (rc == NVML_SUCCESS) {
			d->mask = want;
			nreg++;
		} else if (rc != NVML_ERROR_NOT_SUPPORTED) {
			sinfo(s, "GPU %u: nvmlDeviceRegisterEvents failed (NVML error %d): no XID/ECC events",
			      d->index, rc);
		}
	}
	if (nreg == 0) {
		f->ev_free(s->set);
		s->set = NULL;
	}
}

/* Opens a session in caller-owned storage. */
static void session_init(struct nvml_session *s, const char *lib, bool events)
{
	unsigned int count = 0;
	nvml_return rc;

	memset(s, 0, sizeof *s);
	if (!lib || !*lib)
		lib = NVML_DEFAULT_LIB;
	s->dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!s->dl) {
		sinfo(s, "no NVIDIA driver (%s not found): no GPUs", lib);
		return;
	}
	if (!load_syms(s, lib, events))
		goto close_lib;
	if ((rc = s->f.init()) != NVML_SUCCESS) {
		sinfo(s, "nvmlInit_v2 failed (NVML error %d): no GPUs", rc);
		goto close_lib;
	}
	s->inited = true;
	if ((rc = s->f.count(&count)) != NVML_SUCCESS) {
		sinfo(s, "nvmlDeviceGetCount_v2 failed (NVML error %d): no GPUs", rc);
		return;
	}
	s->ndevices = (int)(count > 1024 ? 1024 : count);
	if (count > NVML_MAX_GPUS)
		sinfo(s, "%u GPUs; only the first %d are read", count, NVML_MAX_GPUS);
	for (unsigned int i = 0; i < count && s->ndev < NVML_MAX_GPUS; i++) {
		nvml_device d;
		if ((rc = s->f.handle(i, &d)) != NVML_SUCCESS) {
			sinfo(s, "GPU %u: nvmlDeviceGetHandleByIndex_v2 failed (NVML error %d)", i, rc);
			continue;
		}
		s->dev[s->ndev].h = d;
		s->dev[s->ndev++].index = i;
	}
	if (!events)
		return;
	s->tracking = true;
	register_events(s);
	/* The baseline of "new uncorrected ECC errors" is the open. */
	for (int i = 0; i < s->ndev; i++) {
		unsigned long long v;
		if (s->f.ecc_total && s->f.ecc_total(s->dev[i].h, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
		                                     NVML_VOLATILE_ECC, &v) == NVML_SUCCESS) {
			s->dev[i].have_prev_ecc = true;
			s->dev[i].prev_ecc = v;
		}
	}
	return;
close_lib:
	dlclose(s->dl);
	s->dl = NULL;
}

static void session_fini(struct nvml_session *s)
{
	if (s->set)
		s->f.ev_free(s->set);
	if (s->inited)
		s->f.shutdown();
	if (s->dl)
		dlclose(s->dl);
	memset(s, 0, sizeof *s);
}

/* The session device an event's handle belongs to (a GPU or one of its MIG devices). */
static struct sess_dev *event_dev(struct nvml_session *s, nvml_device h)
{
	for (int i = 0; i < s->ndev; i++) {
		if (s->dev[i].h == h)
			return &s->dev[i];
		for (int m = 0; m < s->dev[i].nmig; m++)
			if (s->dev[i].mig[m] == h)
				return &s->dev[i];
	}
	return NULL;
}

static void drain_events(struct nvml_session *s, struct nvml_probe *out)
{
	nvml_return rc = NVML_ERROR_TIMEOUT;
	int n;

	for (n = 0; n < DRAIN_MAX; n++) {
		struct nvml_event_data e;
		memset(&e, 0, sizeof e);
		if ((rc = s->f.ev_wait(s->set, &e, EVENT_WAIT_MS)) != NVML_SUCCESS)
			break;
		struct sess_dev *d = event_dev(s, e.device);
		if (!d) {
			out->events_unmatched++;
			continue;
		}
		if (e.event_type & NVML_EV_XID) {
			d->pend_xids++;
			d->xids_total++;
			if (d->nxids == NVML_MAX_XIDS) {
				memmove(d->last_xid, d->last_xid + 1, (NVML_MAX_XIDS - 1) * sizeof d->last_xid[0]);
				d->nxids--;
			}
			d->last_xid[d->nxids++] = e.event_data > 0xffffffffULL ? 0xffffffffU : (unsigned)e.event_data;
		}
		if (e.event_type & NVML_EV_DBE) {
			d->pend_dbe++;
			d->dbe_total++;
		}
		if (e.event_type & NVML_EV_SBE) {
			d->pend_sbe++;
			d->sbe_total++;
		}
	}
	if (n == DRAIN_MAX)
		info(out, "more than %d NVML events pending: the rest are read next time", DRAIN_MAX);
	else if (rc != NVML_ERROR_TIMEOUT)
		info(out, "nvmlEventSetWait_v2 failed (NVML error %d): events may be missing", rc);
}

/* Moves what the session saw since the previous read into the GPU's fields. */
static void report_events(struct sess_dev *d, struct nvml_gpu *g)
{
	g->events_mask = d->mask;
	g->new_xids = d->pend_xids;
	g->new_dbe = d->pend_dbe;
	g->new_sbe = d->pend_sbe;
	d->pend_xids = d->pend_dbe = d->pend_sbe = 0;
	g->xids_total = d->xids_total;
	g->dbe_total = d->dbe_total;
	g->sbe_total = d->sbe_total;
	g->nxids = d->nxids;
	memcpy(g->last_xid, d->last_xid, sizeof g->last_xid);
	if (g->have_ecc_volatile) {
		if (d->have_prev_ecc) {
			g->have_ecc_delta = true;
			/* a fall means the counter was reset (driver reload): count from 0 */
			g->new_ecc_unc = g->ecc_unc_volatile >= d->prev_ecc ? g->ecc_unc_volatile - d->prev_ecc
			                                                   : g->ecc_unc_volatile;
		}
		d->have_prev_ecc = true;
		d->prev_ecc = g->ecc_unc_volatile;
	}
	uint64_t h = (uint64_t)g->new_xids + (g->have_ecc_delta ? g->new_ecc_unc : g->new_dbe);
	g->health_events = h > 0xffffffffULL ? 0xffffffffU : (unsigned)h;
}

int nvml_session_read(struct nvml_session *s, struct nvml_probe *out)
{
	struct gi_fail fail = { NULL, NVML_SUCCESS };
	memset(out, 0, sizeof *out);
	for (int i = 0; i < s->ninfo; i++)
		snprintf(out->info[out->ninfo++], NVML_INFO, "%s", s->info[i]);
	if (!s->inited)
		return 0;
	out->loaded = true;
	out->ndevices = s->ndevices;
	for (int i = 0; i < s->ndev; i++) {
		out->gpu[i].index = s->dev[i].index;
		read_gpu(&s->f, &s->dev[i], &out->gpu[i], &fail);
	}
	out->ngpus = s->ndev;
	if (fail.fn)
		info(out, "%s failed (NVML error %d%s): MIG devices' GPU-instance placement is absent", fail.fn,
		     fail.rc, fail.rc == NVML_ERROR_NO_PERMISSION ? ", no permission: NVML needs root for it" : "");
	if (s->set) {
		out->events = true;
		drain_events(s, out);
	}
	for (int i = 0; i < s->ndev && s->tracking; i++)
		report_events(&s->dev[i], &out->gpu[i]);
	return 0;
}

const struct nvml_mig *nvml_mig_at(const struct nvml_gpu *g, unsigned start)
{
	const struct nvml_mig *found = NULL;
	for (int i = 0; i < g->nmig; i++) {
		const struct nvml_mig *m = &g->mig[i];
		if (!m->have_placement || m->place_start != start)
			continue;
		if (found)
			return NULL;   /* several compute instances of one GPU instance */
		found = m;
	}
	return found;
}

int nvml_session_open(const char *lib, struct nvml_session **out)
{
	struct nvml_session *s = malloc(sizeof *s);
	*out = NULL;
	if (!s)
		return -1;
	session_init(s, lib, true);
	*out = s;
	return 0;
}

void nvml_session_close(struct nvml_session *s)
{
	if (!s)
		return;
	session_fini(s);
	free(s);
}

int nvml_probe_read(const char *lib, struct nvml_probe *out)
{
	struct nvml_session s;
	session_init(&s, lib, false);
	nvml_session_read(&s, out);
	session_fini(&s);
	return 0;
}
