/* nvml — live mode's GPU probe: NVIDIA's management library, loaded at run
 * time with dlopen so that hetlab builds and runs on hosts without a GPU
 * driver. We declare the NVML types and functions we call ourselves (no
 * NVML header needed); see nvml.c.
 *
 * Two ways to read:
 *  - nvml_probe_read: one shot. Loads the library from the path it is given
 *    (NULL: "libnvidia-ml.so.1", found by the dynamic loader), reads every
 *    GPU once, shuts NVML down and unloads it.
 *  - a session (nvml_session_open / _read / _close): NVML stays initialised
 *    and an event set stays registered for XID and ECC events, so that each
 *    read also reports the events delivered since the previous one (the live
 *    daemon's health monitor). Events that happen before the session opens
 *    are never seen: NVML does not queue them for a set that did not exist.
 *
 * Only nvmlInit_v2, nvmlShutdown, nvmlDeviceGetCount_v2 and
 * nvmlDeviceGetHandleByIndex_v2 are required; every other entry point is
 * looked up on its own, and a missing one, or a query answering
 * NVML_ERROR_NOT_SUPPORTED (or any other error), leaves that one reading
 * absent (its have_* false). A host without the library is not an error: no
 * GPUs and one info line. The path is an argument, never read from the
 * environment here (the CLI reads HETLAB_NVML_LIB and passes it).
 *
 * Ownership: the caller owns struct nvml_probe. nvml_probe_read allocates
 * nothing on the heap but what dlopen does (released before return); a
 * session is allocated by nvml_session_open and freed by nvml_session_close. */
#ifndef HL_NVML_H
#define HL_NVML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NVML_DEFAULT_LIB "libnvidia-ml.so.1"

enum {
	NVML_MAX_GPUS = 64,
	NVML_NAME = 96,
	NVML_UUID = 96,        /* NVML's NVML_DEVICE_UUID_V2_BUFFER_SIZE */
	NVML_BUS_ID = 32,      /* NVML's NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE */
	NVML_MAX_MIG = 8,      /* MIG devices kept per GPU (an H100/H200 has at most 7) */
	NVML_MAX_XIDS = 8,     /* the latest XIDs kept per GPU */
	NVML_MAX_INFO = 8,
	NVML_INFO = 320,
};

/* Clock event ("throttle") reasons: the bits of NVML's
 * nvmlClocksEventReason* (== nvmlClocksThrottleReason*) mask. */
enum {
	NVML_CLOCK_GPU_IDLE = 0x1,
	NVML_CLOCK_APPLICATIONS_CLOCKS_SETTING = 0x2,
	NVML_CLOCK_SW_POWER_CAP = 0x4,
	NVML_CLOCK_HW_SLOWDOWN = 0x8,
	NVML_CLOCK_SYNC_BOOST = 0x10,
	NVML_CLOCK_SW_THERMAL_SLOWDOWN = 0x20,
	NVML_CLOCK_HW_THERMAL_SLOWDOWN = 0x40,
	NVML_CLOCK_HW_POWER_BRAKE_SLOWDOWN = 0x80,
	NVML_CLOCK_DISPLAY_CLOCK_SETTING = 0x100,
};

/* NVML event types (nvmlEventType*): the session registers
 * NVML_EV_XID | NVML_EV_DBE | NVML_EV_SBE, less what a GPU does not support. */
enum {
	NVML_EV_SBE = 0x1,     /* nvmlEventTypeSingleBitEccError */
	NVML_EV_DBE = 0x2,     /* nvmlEventTypeDoubleBitEccError */
	NVML_EV_PSTATE = 0x4,  /* nvmlEventTypePState */
	NVML_EV_XID = 0x8,     /* nvmlEventTypeXidCriticalError */
	NVML_EV_CLOCK = 0x10,  /* nvmlEventTypeClock */
};

/* A MIG device of a GPU in MIG mode: one compute instance of one GPU
 * instance. Its GPU instance's placement is what ties it to a MIG instance
 * of the scheduler's model (card, start memory slice); see nvml_mig_at. */
struct nvml_mig {
	unsigned index;                   /* nvmlDeviceGetMigDeviceHandleByIndex's index */
	char uuid[NVML_UUID];             /* "MIG-..."; "" when unreadable */
	bool have_mem, have_attr;
	uint64_t mem_total_b, mem_used_b;
	unsigned gi_slices, ci_slices;    /* GPU- and compute-instance slices (nvmlDeviceGetAttributes_v2) */
	unsigned sm_count;
	bool have_gi_id, have_ci_id;
	unsigned gi_id;                   /* GPU instance id, unique on the GPU (nvmlDeviceGetGpuInstanceId) */
	unsigned ci_id;                   /* compute instance id, unique in the GPU instance (nvmlDeviceGetComputeInstanceId) */
	/* The GPU instance as nvmlGpuInstanceGetInfo reports it (through
	 * nvmlDeviceGetGpuInstanceById on the parent GPU, which NVML documents
	 * as needing a privileged user): its profile id (nvidia-smi's GPU
	 * instance profile ID, e.g. 9 for an A100-40GB's 3g.20gb) and placement
	 * in memory slices [place_start, place_start + place_size). The size may
	 * exceed gi_slices: an A100's 3g.20gb takes 4 memory slices. */
	bool have_placement;
	unsigned profile_id, place_start, place_size;
};

/* One GPU; each have_* says whether its query succeeded. */
struct nvml_gpu {
	unsigned index;                   /* NVML device index */
	char name[NVML_NAME];             /* "?" when unreadable */
	char uuid[NVML_UUID];             /* "GPU-..."; "" when unreadable */
	char pci_bus_id[NVML_BUS_ID];     /* "00000000:1B:00.0"; "" when unreadable */
	bool have_mem, have_power, have_limit, have_temp, have_util;
	uint64_t mem_total_b, mem_used_b;
	double power_w, limit_w;          /* NVML reports milliwatts */
	double temp_c;
	unsigned util_gpu_pct, util_mem_pct;

	bool have_temp_slowdown, have_temp_shutdown;
	double temp_slowdown_c, temp_shutdown_c;

	bool have_clock_reasons;
	uint64_t clock_reasons;           /* NVML_CLOCK_* bits */

	bool have_mig;                    /* MIG-capable: nvmlDeviceGetMigMode answered */
	bool mig_on, mig_pending_on;      /* current mode, mode after the next reset */
	int nmig;                         /* entries of mig[] (read only when mig_on) */
	struct nvml_mig mig[NVML_MAX_MIG];

	bool have_ecc_mode;
	bool ecc_on, ecc_pending_on;
	bool have_ecc_volatile, have_ecc_aggregate;
	uint64_t ecc_unc_volatile;        /* uncorrected errors since the driver loaded */
	uint64_t ecc_unc_aggregate;       /* uncorrected errors over the GPU's life */

	bool have_retired, have_retired_pending;
	unsigned retired_sbe, retired_dbe;   /* pages retired for multiple single-bit / a double-bit error */
	bool retired_pending;             /* a retirement waits for the next reset */

	bool have_remap;                  /* row remapping (Ampere and later) */
	unsigned remap_corr, remap_unc;   /* rows remapped for corrected / uncorrected errors */
	bool remap_pending, remap_failure;

	/* Events: filled by nvml_session_read only (nvml_probe_read leaves them 0). */
	uint64_t events_mask;             /* NVML_EV_* registered for this GPU; 0: none */
	unsigned new_xids, new_dbe, new_sbe;          /* delivered since the previous read */
	uint64_t xids_total, dbe_total, sbe_total;    /* since the session opened */
	int nxids;                        /* entries of last_xid[] */
	unsigned last_xid[NVML_MAX_XIDS]; /* the latest XIDs of the session, oldest first */
	bool have_ecc_delta;
	uint64_t new_ecc_unc;             /* rise of ecc_unc_volatile since the previous read */
	/* new_xids + new_ecc_unc; new_xids + new_dbe when the volatile ECC total
	 * cannot be read. A count of signals, not of incidents: one double-bit
	 * error is typically XID 48 and one uncorrected ECC error, so 2. */
	unsigned health_events;
};

struct nvml_probe {
	bool loaded;                      /* the library opened and NVML initialised */
	int ngpus;                        /* entries of gpu[] (at most NVML_MAX_GPUS) */
	int ndevices;                     /* what nvmlDeviceGetCount_v2 said */
	struct nvml_gpu gpu[NVML_MAX_GPUS];
	bool events;                      /* a session with an event set (at least one GPU registered) */
	unsigned events_unmatched;        /* events of a device handle that is none of ours, this read */
	int ninfo;
	char info[NVML_MAX_INFO][NVML_INFO];   /* info lines: absent driver, missing symbols, failed queries */
};

/* Reads the GPUs through the library at `lib` (NULL: NVML_DEFAULT_LIB).
 * Returns 0 always: every failure is an info line and missing readings. */
int nvml_probe_read(const char *lib, struct nvml_probe *out);

/* A session: NVML initialised once, an event set registered. Opaque. */
struct nvml_session;

/* Opens a session on the library at `lib` (NULL: NVML_DEFAULT_LIB). 0 and
 * *out set, also when the library is absent or NVML fails to initialise
 * (each read then says so, as nvml_probe_read does); -1 and *out NULL only
 * when out of memory. */
int nvml_session_open(const char *lib, struct nvml_session **out);

/* Reads every GPU as nvml_probe_read does, then drains the events delivered
 * since the previous read (or the open) into each GPU's event fields. Returns 0. */
int nvml_session_read(struct nvml_session *s, struct nvml_probe *out);

/* Frees the event set, shuts NVML down, unloads the library, frees `s`. NULL is a no-op. */
void nvml_session_close(struct nvml_session *s);

/* The MIG device of `g` whose GPU instance starts at memory slice `start`;
 * NULL when none does, when placements are unknown, or when several do (a
 * GPU instance split into several compute instances has one MIG device
 * each, none of them the whole instance). Borrowed from g. */
const struct nvml_mig *nvml_mig_at(const struct nvml_gpu *g, unsigned start);

/* The name of clock event reason bit `bit` (0..63): "gpu_idle", ...,
 * "display_clock_setting"; NULL for a bit NVML does not define. */
const char *nvml_clock_reason_name(unsigned bit);

/* The set bits of `mask` as comma-separated names into buf ("none" for 0;
 * an undefined bit as "0x200"). Returns buf. */
char *nvml_clock_reasons_str(uint64_t mask, char *buf, size_t n);

#endif
