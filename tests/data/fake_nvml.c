/* A fake libnvidia-ml.so.1 for tests/unit/test_nvml.c and test_probe.c,
 * built at test time with `cc -shared -fPIC`. Two GPUs with fixed readings:
 *
 *  GPU 0  "NVIDIA H100 80GB HBM3", every reading: thresholds 89/92 °C, clock
 *         reasons sw_power_cap|hw_thermal_slowdown, MIG off (on after reset),
 *         ECC on with 0 volatile / 2 aggregate uncorrected errors, retired
 *         pages 1 SBE + 2 DBE with one pending, 3/1 remapped rows; events
 *         XID, DBE, SBE, PState and Clock supported.
 *  GPU 1  "NVIDIA A100-SXM4-40GB": power, temperature and the shutdown
 *         threshold NOT_SUPPORTED, ECC, retired pages and remapped rows
 *         NOT_SUPPORTED; MIG on with MIG devices at indexes 0 and 2 (1 is
 *         empty), each the one compute instance (CI 0) of its GPU instance:
 *         MIG 0 a 1g.5gb, GPU instance 11 (profile 19) at memory slices
 *         [4, 5); MIG 2 a 3g.20gb, GPU instance 1 (profile 9) at [0, 4) (of
 *         an A100-40GB's 8); only XID events supported.
 *
 * What a test controls at run time, through functions it finds with dlsym
 * on the same .so (dlopen of the same path shares these statics):
 * fake_nvml_reset, fake_nvml_push_event (queued, delivered by
 * nvmlEventSetWait_v2 to a set the device registered that type with),
 * fake_nvml_set_ecc, fake_nvml_live_sets, fake_nvml_init_count,
 * fake_nvml_set_gi_error (what nvmlDeviceGetGpuInstanceById answers: 4,
 * NO_PERMISSION, is what it says to a user who is not root). A child
 * process (hetlab probe) gets events from FAKE_NVML_EVENTS="GPU:TYPE:DATA,..."
 * (decimal), queued by nvmlInit_v2.
 *
 * Builds: -DFAKE_NVML_NO_UTIL leaves out nvmlDeviceGetUtilizationRates;
 * -DFAKE_NVML_INIT_FAILS makes init fail; -DFAKE_NVML_OLD_DRIVER leaves out
 * nvmlDeviceGetCurrentClocksEventReasons (drivers before R535 have only
 * ...ThrottleReasons); -DFAKE_NVML_NO_GI_INFO leaves out
 * nvmlGpuInstanceGetInfo; -DFAKE_NVML_MINIMAL has nothing but the four
 * required entry points. */
#include <stdlib.h>
#include <string.h>

enum { OK = 0, E_INVALID = 2, E_NOT_SUPPORTED = 3, E_NOT_FOUND = 6, E_INSUFFICIENT = 7, E_TIMEOUT = 10 };

struct nvmlDevice_st { int gpu, mig; };   /* mig -1: the GPU itself */
typedef struct nvmlDevice_st *nvmlDevice_t;
struct nvmlEventSet_st { int used; unsigned long long mask[2]; };
typedef struct nvmlEventSet_st *nvmlEventSet_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;
typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;
typedef struct {
	unsigned int multiprocessorCount, sharedCopyEngineCount, sharedDecoderCount, sharedEncoderCount;
	unsigned int sharedJpegCount, sharedOfaCount, gpuInstanceSliceCount, computeInstanceSliceCount;
	unsigned long long memorySizeMB;
} nvmlDeviceAttributes_t;
struct nvmlGpuInstance_st { int gpu, id; };
typedef struct nvmlGpuInstance_st *nvmlGpuInstance_t;
typedef struct { unsigned int start, size; } nvmlGpuInstancePlacement_t;
typedef struct {
	nvmlDevice_t device;
	unsigned int id, profileId;
	nvmlGpuInstancePlacement_t placement;
} nvmlGpuInstanceInfo_t;
typedef struct {
	nvmlDevice_t device;
	unsigned long long eventType, eventData;
	unsigned int gpuInstanceId, computeInstanceId;
} nvmlEventData_t;

static struct nvmlDevice_st devs[2] = { { 0, -1 }, { 1, -1 } };
static struct nvmlEventSet_st sets[4];
static int inited;
static unsigned long long ecc_volatile = 0, ecc_aggregate = 2;   /* GPU 0 */
static int gi_error;                     /* nvmlDeviceGetGpuInstanceById's answer when not 0 */

enum { QMAX = 64 };
static struct { int gpu; unsigned long long type, data; } queue[QMAX];
static int nqueue;

/* ---- control --------------------------------------------------------------- */

void fake_nvml_reset(void);
int fake_nvml_push_event(unsigned gpu, unsigned long long type, unsigned long long data);
void fake_nvml_set_ecc(unsigned long long vol, unsigned long long agg);
int fake_nvml_live_sets(void);
int fake_nvml_init_count(void);
void fake_nvml_set_gi_error(int rc);

void fake_nvml_reset(void)
{
	nqueue = 0;
	ecc_volatile = 0;
	ecc_aggregate = 2;
	gi_error = 0;
}

void fake_nvml_set_gi_error(int rc) { gi_error = rc; }

int fake_nvml_push_event(unsigned gpu, unsigned long long type, unsigned long long data)
{
	if (gpu >= 2 || nqueue >= QMAX)
		return -1;
	queue[nqueue].gpu = (int)gpu;
	queue[nqueue].type = type;
	queue[nqueue++].data = data;
	return 0;
}

void fake_nvml_set_ecc(unsigned long long vol, unsigned long long agg)
{
	ecc_volatile = vol;
	ecc_aggregate = agg;
}

int fake_nvml_live_sets(void)
{
	int n = 0;
	for (int i = 0; i < 4; i++)
		n += sets[i].used;
	return n;
}

int fake_nvml_init_count(void) { return inited; }

/* ---- the four required entry points -------------------------------------------- */

int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetCount_v2(unsigned int *n);
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d);

int nvmlInit_v2(void)
{
#ifdef FAKE_NVML_INIT_FAILS
	return 9;   /* NVML_ERROR_DRIVER_NOT_LOADED */
#else
	const char *ev = getenv("FAKE_NVML_EVENTS");
	while (ev && *ev) {
		char *end;
		unsigned long g = strtoul(ev, &end, 10);
		unsigned long long t = *end == ':' ? strtoull(end + 1, &end, 10) : 0;
		unsigned long long x = *end == ':' ? strtoull(end + 1, &end, 10) : 0;
		fake_nvml_push_event((unsigned)g, t, x);
		ev = *end == ',' ? end + 1 : NULL;
	}
	inited++;
	return OK;
#endif
}

int nvmlShutdown(void)
{
	if (inited == 0)
		return 1;   /* NVML_ERROR_UNINITIALIZED */
	inited--;
	return OK;
}

int nvmlDeviceGetCount_v2(unsigned int *n) { *n = 2; return inited ? OK : 1; }

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
	if (i >= 2)
		return E_INVALID;
	*d = &devs[i];
	return OK;
}

#ifndef FAKE_NVML_MINIMAL

static struct nvmlDevice_st migs[2] = { { 1, 0 }, { 1, 2 } };
/* GPU 1's GPU instances, of MIG devices 0 and 2 */
static struct nvmlGpuInstance_st gis[2] = { { 1, 11 }, { 1, 1 } };
static const struct { unsigned int profile, start, size; } gi_place[2] = { { 19, 4, 1 }, { 9, 0, 4 } };
static const unsigned long long supported[2] = { 0x1f, 0x8 };   /* event types per GPU */

/* ---- identity and readings ----------------------------------------------------- */

int nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len);
int nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int len);
int nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p);
int nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m);
int nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw);
int nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int *mw);
int nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int *t);
int nvmlDeviceGetTemperatureThreshold(nvmlDevice_t d, int type, unsigned int *t);
int nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u);
int nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *r);
int nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long *r);

static int put(const char *s, char *buf, unsigned int len)
{
	if (strlen(s) + 1 > len)
		return E_INSUFFICIENT;
	strcpy(buf, s);
	return OK;
}

int nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len)
{
	if (d->mig >= 0)
		return put(d->mig == 0 ? "NVIDIA A100-SXM4-40GB MIG 1g.5gb" : "NVIDIA A100-SXM4-40GB MIG 3g.20gb", name, len);
	return put(d->gpu == 0 ? "NVIDIA H100 80GB HBM3" : "NVIDIA A100-SXM4-40GB", name, len);
}

int nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int len)
{
	if (d->mig >= 0)
		return put(d->mig == 0 ? "MIG-6a1f0c2e-7b3d-5e4f-8a9b-0c1d2e3f4a01"
		                       : "MIG-6a1f0c2e-7b3d-5e4f-8a9b-0c1d2e3f4a03", uuid, len);
	return put(d->gpu == 0 ? "GPU-5a3c9e1f-0b7d-4c2e-9f61-2d8a4b6c1e01"
	                       : "GPU-5a3c9e1f-0b7d-4c2e-9f61-2d8a4b6c1e02", uuid, len);
}

int nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p)
{
	memset(p, 0, sizeof *p);
	p->bus = d->gpu == 0 ? 0x1b : 0xca;
	strcpy(p->busIdLegacy, d->gpu == 0 ? "0000:1B:00.0" : "0000:CA:00.0");
	strcpy(p->busId, d->gpu == 0 ? "00000000:1B:00.0" : "00000000:CA:00.0");
	p->pciDeviceId = d->gpu == 0 ? 0x233010de : 0x20b010de;
	return OK;
}

int nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
	if (d->mig >= 0) {
		m->total = d->mig == 0 ? 5100273664ULL : 20937965568ULL;
		m->used = d->mig == 0 ? 0 : 13631488ULL;
	} else {
		m->total = d->gpu == 0 ? 85520809984ULL : 42949672960ULL;
		m->used = d->gpu == 0 ? 1073741824ULL : 0;
	}
	m->free = m->total - m->used;
	return OK;
}

int nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw)
{
	if (d->gpu == 1)
		return E_NOT_SUPPORTED;
	*mw = 312456;
	return OK;
}

int nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int *mw)
{
	*mw = d->gpu == 0 ? 700000 : 400000;
	return OK;
}

int nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int *t)
{
	if (sensor != 0 || d->gpu == 1)
		return E_NOT_SUPPORTED;
	*t = 61;
	return OK;
}

int nvmlDeviceGetTemperatureThreshold(nvmlDevice_t d, int type, unsigned int *t)
{
	if (type == 0 && d->gpu == 0)        /* NVML_TEMPERATURE_THRESHOLD_SHUTDOWN */
		*t = 92;
	else if (type == 1)                  /* NVML_TEMPERATURE_THRESHOLD_SLOWDOWN */
		*t = d->gpu == 0 ? 89 : 85;
	else
		return E_NOT_SUPPORTED;
	return OK;
}

#ifndef FAKE_NVML_NO_UTIL
int nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u)
{
	u->gpu = d->gpu == 0 ? 87 : 0;
	u->memory = d->gpu == 0 ? 45 : 0;
	return OK;
}
#endif

static unsigned long long clock_reasons(nvmlDevice_t d)
{
	return d->gpu == 0 ? 0x4 | 0x40 : 0x1;   /* sw_power_cap|hw_thermal_slowdown; gpu_idle */
}

#ifndef FAKE_NVML_OLD_DRIVER
int nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *r)
{
	*r = clock_reasons(d);
	return OK;
}
#endif

/* The old name answers differently, so that a test sees which one was used. */
int nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long *r)
{
	*r = clock_reasons(d) | 0x100;
	return OK;
}

/* ---- MIG ------------------------------------------------------------------------ */

int nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *cur, unsigned int *pend);
int nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int *n);
int nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int i, nvmlDevice_t *m);
int nvmlDeviceGetAttributes_v2(nvmlDevice_t d, nvmlDeviceAttributes_t *a);

int nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *cur, unsigned int *pend)
{
	*cur = d->gpu == 1;
	*pend = 1;
	return OK;
}

int nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int *n)
{
	*n = 7;
	(void)d;
	return OK;
}

int nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int i, nvmlDevice_t *m)
{
	if (d->gpu != 1)
		return E_INVALID;
	if (i == 0 || i == 2) {
		*m = &migs[i / 2];
		return OK;
	}
	return E_NOT_FOUND;
}

int nvmlDeviceGetAttributes_v2(nvmlDevice_t d, nvmlDeviceAttributes_t *a)
{
	if (d->mig < 0)
		return E_NOT_SUPPORTED;
	memset(a, 0, sizeof *a);
	a->multiprocessorCount = d->mig == 0 ? 14 : 42;
	a->gpuInstanceSliceCount = d->mig == 0 ? 1 : 3;
	a->computeInstanceSliceCount = d->mig == 0 ? 1 : 3;
	a->memorySizeMB = d->mig == 0 ? 4864 : 19968;
	return OK;
}

/* As NVML: these two take a MIG device handle; a GPU's is INVALID_ARGUMENT. */
int nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int *id);
int nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int *id);
int nvmlDeviceGetGpuInstanceById(nvmlDevice_t d, unsigned int id, nvmlGpuInstance_t *gi);
int nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gi, nvmlGpuInstanceInfo_t *info);

int nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int *id)
{
	if (d->mig < 0)
		return E_INVALID;
	*id = (unsigned int)gis[d->mig / 2].id;
	return OK;
}

int nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int *id)
{
	if (d->mig < 0)
		return E_INVALID;
	*id = 0;
	return OK;
}

/* On the parent GPU: NOT_SUPPORTED when it is not in MIG mode. */
int nvmlDeviceGetGpuInstanceById(nvmlDevice_t d, unsigned int id, nvmlGpuInstance_t *gi)
{
	if (d->mig >= 0)
		return E_INVALID;
	if (d->gpu != 1)
		return E_NOT_SUPPORTED;
	if (gi_error)
		return gi_error;
	for (int i = 0; i < 2; i++)
		if ((unsigned int)gis[i].id == id) {
			*gi = &gis[i];
			return OK;
		}
	return E_NOT_FOUND;
}

#ifndef FAKE_NVML_NO_GI_INFO
int nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gi, nvmlGpuInstanceInfo_t *info)
{
	int i = (int)(gi - gis);
	if (i < 0 || i >= 2)
		return E_INVALID;
	info->device = &devs[gi->gpu];
	info->id = (unsigned int)gi->id;
	info->profileId = gi_place[i].profile;
	info->placement.start = gi_place[i].start;
	info->placement.size = gi_place[i].size;
	return OK;
}
#endif

/* ---- errors ----------------------------------------------------------------------- */

int nvmlDeviceGetEccMode(nvmlDevice_t d, unsigned int *cur, unsigned int *pend);
int nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int type, int counter, unsigned long long *n);
int nvmlDeviceGetRetiredPages(nvmlDevice_t d, int cause, unsigned int *count, unsigned long long *addr);
int nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t d, unsigned int *pending);
int nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned int *corr, unsigned int *unc,
                              unsigned int *pending, unsigned int *failure);

int nvmlDeviceGetEccMode(nvmlDevice_t d, unsigned int *cur, unsigned int *pend)
{
	if (d->gpu == 1)
		return E_NOT_SUPPORTED;
	*cur = *pend = 1;
	return OK;
}

int nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int type, int counter, unsigned long long *n)
{
	if (d->gpu == 1 || type != 1 || counter < 0 || counter > 1)
		return d->gpu == 1 ? E_NOT_SUPPORTED : E_INVALID;
	*n = counter == 0 ? ecc_volatile : ecc_aggregate;
	return OK;
}

/* As NVML: a count too small for the pages is INSUFFICIENT_SIZE with the count set. */
int nvmlDeviceGetRetiredPages(nvmlDevice_t d, int cause, unsigned int *count, unsigned long long *addr)
{
	if (d->gpu == 1)
		return E_NOT_SUPPORTED;
	unsigned int n = cause == 0 ? 1 : 2;
	if (*count < n) {
		*count = n;
		return E_INSUFFICIENT;
	}
	for (unsigned int i = 0; i < n; i++)
		addr[i] = 0x1000ULL * (i + 1);
	*count = n;
	return OK;
}

int nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t d, unsigned int *pending)
{
	if (d->gpu == 1)
		return E_NOT_SUPPORTED;
	*pending = 1;
	return OK;
}

int nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned int *corr, unsigned int *unc,
                              unsigned int *pending, unsigned int *failure)
{
	if (d->gpu == 1)
		return E_NOT_SUPPORTED;
	*corr = 3;
	*unc = 1;
	*pending = 0;
	*failure = 0;
	return OK;
}

/* ---- events ----------------------------------------------------------------------- */

int nvmlDeviceGetSupportedEventTypes(nvmlDevice_t d, unsigned long long *types);
int nvmlEventSetCreate(nvmlEventSet_t *set);
int nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types, nvmlEventSet_t set);
int nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeout_ms);
int nvmlEventSetFree(nvmlEventSet_t set);

int nvmlDeviceGetSupportedEventTypes(nvmlDevice_t d, unsigned long long *types)
{
	*types = supported[d->gpu];
	return OK;
}

int nvmlEventSetCreate(nvmlEventSet_t *set)
{
	for (int i = 0; i < 4; i++)
		if (!sets[i].used) {
			memset(&sets[i], 0, sizeof sets[i]);
			sets[i].used = 1;
			*set = &sets[i];
			return OK;
		}
	return 20;   /* NVML_ERROR_MEMORY */
}

/* As NVML: asking for a type the device does not support is NOT_SUPPORTED. */
int nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types, nvmlEventSet_t set)
{
	if (!set || !set->used || d->mig >= 0)
		return E_INVALID;
	if (types & ~supported[d->gpu])
		return E_NOT_SUPPORTED;
	set->mask[d->gpu] |= types;
	return OK;
}

/* The first queued event the set is registered for; TIMEOUT when none
 * (the fake never blocks, whatever the timeout). */
int nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeout_ms)
{
	(void)timeout_ms;
	if (!set || !set->used)
		return E_INVALID;
	for (int i = 0; i < nqueue; i++) {
		if (!(set->mask[queue[i].gpu] & queue[i].type))
			continue;
		data->device = &devs[queue[i].gpu];
		data->eventType = queue[i].type;
		data->eventData = queue[i].type == 0x8 ? queue[i].data : 0;
		data->gpuInstanceId = data->computeInstanceId = 0xffffffffU;
		memmove(&queue[i], &queue[i + 1], (size_t)(nqueue - i - 1) * sizeof queue[0]);
		nqueue--;
		return OK;
	}
	return E_TIMEOUT;
}

int nvmlEventSetFree(nvmlEventSet_t set)
{
	if (!set || !set->used)
		return E_INVALID;
	set->used = 0;
	return OK;
}

#endif /* FAKE_NVML_MINIMAL */
