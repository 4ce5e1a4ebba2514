/* nvml — see nvml.h. The NVML declarations below follow NVIDIA's public
 * nvml.h (the ABI of the _v2 entry points, stable since driver 3xx). */
#include "live/nvml.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef int nvml_return;                     /* nvmlReturn_t: 0 is NVML_SUCCESS */
typedef struct nvml_device_st *nvml_device;  /* nvmlDevice_t: opaque handle */

struct nvml_memory {                         /* nvmlMemory_t */
	unsigned long long total, free, used;
};

struct nvml_utilization {                    /* nvmlUtilization_t */
	unsigned int gpu, memory;
};

enum { NVML_TEMPERATURE_GPU = 0, NVML_SUCCESS = 0 };

struct nvml_fns {
	nvml_return (*init)(void);
	nvml_return (*shutdown)(void);
	nvml_return (*count)(unsigned int *);
	nvml_return (*handle)(unsigned int, nvml_device *);
	nvml_return (*name)(nvml_device, char *, unsigned int);
	nvml_return (*memory)(nvml_device, struct nvml_memory *);
	nvml_return (*power)(nvml_device, unsigned int *);
	nvml_return (*limit)(nvml_device, unsigned int *);
	nvml_return (*temp)(nvml_device, int, unsigned int *);
	nvml_return (*util)(nvml_device, struct nvml_utilization *);
};

/* Registration table: symbol name → slot; ends with a sentinel. */
static const struct { const char *sym; size_t off; } syms[] = {
	{ "nvmlInit_v2", offsetof(struct nvml_fns, init) },
	{ "nvmlShutdown", offsetof(struct nvml_fns, shutdown) },
	{ "nvmlDeviceGetCount_v2", offsetof(struct nvml_fns, count) },
	{ "nvmlDeviceGetHandleByIndex_v2", offsetof(struct nvml_fns, handle) },
	{ "nvmlDeviceGetName", offsetof(struct nvml_fns, name) },
	{ "nvmlDeviceGetMemoryInfo", offsetof(struct nvml_fns, memory) },
	{ "nvmlDeviceGetPowerUsage", offsetof(struct nvml_fns, power) },
	{ "nvmlDeviceGetEnforcedPowerLimit", offsetof(struct nvml_fns, limit) },
	{ "nvmlDeviceGetTemperature", offsetof(struct nvml_fns, temp) },
	{ "nvmlDeviceGetUtilizationRates", offsetof(struct nvml_fns, util) },
	{ NULL, 0 },
};

static void info(struct nvml_probe *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void info(struct nvml_probe *p, const char *fmt, ...)
{
	if (p->ninfo >= (int)(sizeof p->info / sizeof p->info[0]))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->info[p->ninfo++], NVML_INFO, fmt, ap);
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

static void read_gpu(const struct nvml_fns *f, nvml_device d, struct nvml_gpu *g)
{
	struct nvml_memory mem;
	struct nvml_utilization u;
	unsigned int v;

	if (f->name(d, g->name, sizeof g->name) == NVML_SUCCESS)
		clean(g->name, sizeof g->name);
	else
		snprintf(g->name, sizeof g->name, "?");
	if (f->memory(d, &mem) == NVML_SUCCESS) {
		g->have_mem = true;
		g->mem_total_b = mem.total;
		g->mem_used_b = mem.used;
	}
	if (f->power(d, &v) == NVML_SUCCESS) {
		g->have_power = true;
		g->power_w = v / 1000.0;
	}
	if (f->limit(d, &v) == NVML_SUCCESS) {
		g->have_limit = true;
		g->limit_w = v / 1000.0;
	}
	if (f->temp(d, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS) {
		g->have_temp = true;
		g->temp_c = v;
	}
	if (f->util(d, &u) == NVML_SUCCESS) {
		g->have_util = true;
		g->util_gpu_pct = u.gpu > 100 ? 100 : u.gpu;
		g->util_mem_pct = u.memory > 100 ? 100 : u.memory;
	}
}

int nvml_probe_read(const char *lib, struct nvml_probe *out)
{
	struct nvml_fns f;
	unsigned int count = 0;
	nvml_return rc;

	memset(out, 0, sizeof *out);
	if (!lib || !*lib)
		lib = NVML_DEFAULT_LIB;
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		info(out, "no NVIDIA driver (%s not found): no GPUs", lib);
		return 0;
	}
	for (int i = 0; syms[i].sym; i++) {
		void *s = dlsym(h, syms[i].sym);
		if (!s) {
			info(out, "%s lacks %s: no GPUs", lib, syms[i].sym);
			goto close_lib;
		}
		/* POSIX guarantees a dlsym result converts to a function pointer;
		 * memcpy says so without a cast between object and function pointers. */
		memcpy((char *)&f + syms[i].off, &s, sizeof s);
	}
	if ((rc = f.init()) != NVML_SUCCESS) {
		info(out, "nvmlInit_v2 failed (NVML error %d): no GPUs", rc);
		goto close_lib;
	}
	out->loaded = true;
	if ((rc = f.count(&count)) != NVML_SUCCESS) {
		info(out, "nvmlDeviceGetCount_v2 failed (NVML error %d): no GPUs", rc);
		goto shutdown;
	}
	out->ndevices = (int)(count > 1024 ? 1024 : count);
	if (count > NVML_MAX_GPUS)
		info(out, "%u GPUs; only the first %d are read", count, NVML_MAX_GPUS);
	for (unsigned int i = 0; i < count && out->ngpus < NVML_MAX_GPUS; i++) {
		nvml_device d;
		if ((rc = f.handle(i, &d)) != NVML_SUCCESS) {
			info(out, "GPU %u: nvmlDeviceGetHandleByIndex_v2 failed (NVML error %d)", i, rc);
			continue;
		}
		out->gpu[out->ngpus].index = i;
		read_gpu(&f, d, &out->gpu[out->ngpus++]);
	}
shutdown:
	f.shutdown();
close_lib:
	dlclose(h);
	return 0;
}
