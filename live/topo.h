/* topo — live mode's CPU topology probe, read through hwloc (2.x): packages,
 * NUMA nodes with their CPUs and memory, cores, hardware threads (PUs),
 * whether SMT is on, the CPU model, and the NVIDIA GPUs on the PCI bus with
 * the NUMA node each is attached to. From this machine (topo_read_host) or
 * from an hwloc XML export (topo_read_xml: `lstopo --of xml`, tests and
 * `hetlab probe --topology-xml FILE`). topo_pick_cpus chooses the CPUs to
 * pin a job to.
 *
 * The host read sees the CPUs this process is allowed to use (its cgroup
 * cpuset), as hwloc does by default: those are the CPUs a job could be
 * pinned to. CPU numbers everywhere are OS indexes (what taskset, numactl
 * and /proc/cpuinfo use); NUMA nodes are named by their index in numa[],
 * with the OS index beside it.
 *
 * Ownership: the caller owns struct topo (large: allocate it, don't put it
 * on a small stack); hwloc's own topology lives only inside a read. */
#ifndef HL_TOPO_H
#define HL_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	TOPO_MAX_PUS = 2048,                /* PU OS indexes 0..TOPO_MAX_PUS-1 */
	TOPO_PU_WORDS = TOPO_MAX_PUS / 64,  /* words of a PU bitmap */
	TOPO_MAX_CORES = 2048,
	TOPO_MAX_SMT = 8,                   /* PUs kept per core */
	TOPO_MAX_NUMA = 64,
	TOPO_MAX_GPUS = 64,
	TOPO_ERR = 256,
};

/* PU bitmaps: bit k of word k / 64 is PU OS index k. */
static inline bool topo_pu_isset(const uint64_t *bits, int pu)
{
	return pu >= 0 && pu < TOPO_MAX_PUS && (bits[pu / 64] >> (pu % 64) & 1);
}

static inline void topo_pu_set(uint64_t *bits, int pu)
{
	if (pu >= 0 && pu < TOPO_MAX_PUS)
		bits[pu / 64] |= 1ULL << (pu % 64);
}

struct topo_numa {
	int os_index;
	int package;                        /* index of its package, -1 when none */
	int ncores, npus;                   /* cores and PUs local to it */
	uint64_t cpus[TOPO_PU_WORDS];       /* its PUs */
	uint64_t mem_bytes;                 /* local memory */
	int ngpus;                          /* entries of gpus[] attached to it */
};

struct topo_core {
	int os_index;
	int package;                        /* index of its package, -1 when none */
	int numa;                           /* index in numa[] of the smallest node holding it, -1 when none */
	int npus;
	int pus[TOPO_MAX_SMT];              /* its PUs' OS indexes, ascending */
};

/* An NVIDIA display or 3D controller on the PCI bus. */
struct topo_gpu {
	unsigned domain, bus, dev, func;
	unsigned device_id;                 /* PCI device ID (vendor is 0x10de) */
	/* index in numa[] of the node attached nearest above it in hwloc's tree
	 * (a CPU-less node when it hangs off a package that has one); -1: none */
	int numa;
};

struct topo {
	int npackages, nnuma, ncores, npus;
	bool smt;                           /* some core has more than one PU */
	char cpu_model[128];                /* the first package's "CPUModel"; "" when unknown */
	uint64_t mem_bytes;                 /* sum of the NUMA nodes' */
	struct topo_numa numa[TOPO_MAX_NUMA];
	struct topo_core core[TOPO_MAX_CORES];
	int ngpus;
	struct topo_gpu gpus[TOPO_MAX_GPUS];
	char err[TOPO_ERR];                 /* why a read failed */
};

/* This machine. 0, or -1 with t->err set. */
int topo_read_host(struct topo *t);

/* An hwloc XML export. 0, or -1 with t->err naming the file and what is wrong. */
int topo_read_xml(const char *path, struct topo *t);

/* Flags of topo_pick_cpus. */
enum { TOPO_PICK_FIRST_PU = 1 };    /* one PU (the first) per core, not all of them */

/* The CPUs to pin a job to: `ncores` whole free cores. A core is free when
 * none of its PUs is set in `busy_pus` (a bitmap of TOPO_PU_WORDS words;
 * NULL: none busy). With `numa` >= 0 (an index in t->numa[]) cores come from
 * that node first, then from the other nodes of its package, then from the
 * rest, each time from the node with the most free cores first. With `numa`
 * -1 they come from the one node that has enough free cores and the fewest
 * of them (best fit), or, when no node has enough, from the nodes with the
 * most free cores first. Cores of a node are taken in ascending order.
 * Writes every PU of each core (the first only with TOPO_PICK_FIRST_PU)
 * into out[], core by core; returns how many, or -1 (out[] unspecified)
 * when there are not enough free cores, out[] is too small, or an argument
 * is out of range. */
int topo_pick_cpus(const struct topo *t, int numa, int ncores, const uint64_t *busy_pus,
                   int *out, int outcap, unsigned flags);

/* The NUMA index (in t->numa[]) of the GPU at PCI address `busid`
 * ("00000000:1B:00.0" as NVML writes it, or "0000:1b:00.0"); -1 when it is
 * not among t->gpus, is not attached to one node, or busid is malformed. */
int topo_gpu_numa(const struct topo *t, const char *busid);

/* A PU bitmap as a CPU list, "0-3,8-11" ("" when empty), into buf. Returns buf. */
char *topo_cpulist(const uint64_t *bits, char *buf, size_t n);

#endif
