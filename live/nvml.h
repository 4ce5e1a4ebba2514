/* nvml — live mode's GPU probe: NVIDIA's management library, loaded at run
 * time with dlopen so that hetlab builds and runs on hosts without a GPU
 * driver. We declare the few NVML types and functions we call ourselves (no
 * NVML header needed); see nvml.c.
 *
 * nvml_probe_read loads the library from the path it is given (NULL:
 * "libnvidia-ml.so.1", found by the dynamic loader), reads every GPU once,
 * shuts NVML down and unloads it. A host without the library is not an
 * error: no GPUs and one info line. The path is an argument, never read
 * from the environment here (the CLI reads HETLAB_NVML_LIB and passes it).
 *
 * Ownership: the caller owns struct nvml_probe; nothing is allocated on the
 * heap but what dlopen does (released before return). */
#ifndef HL_NVML_H
#define HL_NVML_H

#include <stdbool.h>
#include <stdint.h>

#define NVML_DEFAULT_LIB "libnvidia-ml.so.1"

enum { NVML_MAX_GPUS = 64, NVML_NAME = 96, NVML_INFO = 320 };

/* One GPU; each have_* says whether its query succeeded. */
struct nvml_gpu {
	unsigned index;                   /* NVML device index */
	char name[NVML_NAME];
	bool have_mem, have_power, have_limit, have_temp, have_util;
	uint64_t mem_total_b, mem_used_b;
	double power_w, limit_w;          /* NVML reports milliwatts */
	double temp_c;
	unsigned util_gpu_pct, util_mem_pct;
};

struct nvml_probe {
	bool loaded;                      /* the library opened and NVML initialised */
	int ngpus;                        /* entries of gpu[] (at most NVML_MAX_GPUS) */
	int ndevices;                     /* what nvmlDeviceGetCount_v2 said */
	struct nvml_gpu gpu[NVML_MAX_GPUS];
	int ninfo;
	char info[4][NVML_INFO];          /* info lines: absent driver, failed queries */
};

/* Reads the GPUs through the library at `lib` (NULL: NVML_DEFAULT_LIB).
 * Returns 0 always: every failure is an info line and missing readings. */
int nvml_probe_read(const char *lib, struct nvml_probe *out);

#endif
