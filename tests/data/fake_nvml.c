/* A fake libnvidia-ml.so.1 for tests/unit/test_probe.c: two GPUs with fixed
 * readings, the second failing its power and temperature queries. Built at
 * test time with `cc -shared -fPIC`; -DFAKE_NVML_NO_UTIL leaves out
 * nvmlDeviceGetUtilizationRates, -DFAKE_NVML_INIT_FAILS makes init fail. */
#include <string.h>

struct nvmlDevice_st { int i; };
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;

static struct nvmlDevice_st devs[2] = { { 0 }, { 1 } };
static int inited;

int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetCount_v2(unsigned int *n);
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d);
int nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len);
int nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m);
int nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw);
int nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int *mw);
int nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int *t);
int nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u);

int nvmlInit_v2(void)
{
#ifdef FAKE_NVML_INIT_FAILS
	return 9;   /* NVML_ERROR_DRIVER_NOT_LOADED */
#else
	inited = 1;
	return 0;
#endif
}

int nvmlShutdown(void) { inited = 0; return 0; }

int nvmlDeviceGetCount_v2(unsigned int *n) { *n = 2; return inited ? 0 : 1; }

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d)
{
	if (i >= 2)
		return 2;
	*d = &devs[i];
	return 0;
}

int nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len)
{
	const char *n = d->i == 0 ? "NVIDIA H100 80GB HBM3" : "NVIDIA A100-SXM4-40GB";
	if (strlen(n) + 1 > len)
		return 7;   /* NVML_ERROR_INSUFFICIENT_SIZE */
	strcpy(name, n);
	return 0;
}

int nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
	m->total = d->i == 0 ? 85520809984ULL : 42949672960ULL;
	m->used = d->i == 0 ? 1073741824ULL : 0;
	m->free = m->total - m->used;
	return 0;
}

int nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw)
{
	if (d->i == 1)
		return 3;   /* NVML_ERROR_NOT_SUPPORTED */
	*mw = 312456;
	return 0;
}

int nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int *mw)
{
	*mw = d->i == 0 ? 700000 : 400000;
	return 0;
}

int nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int *t)
{
	if (sensor != 0 || d->i == 1)
		return 3;
	*t = 61;
	return 0;
}

#ifndef FAKE_NVML_NO_UTIL
int nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u)
{
	u->gpu = d->i == 0 ? 87 : 0;
	u->memory = d->i == 0 ? 45 : 0;
	return 0;
}
#endif
