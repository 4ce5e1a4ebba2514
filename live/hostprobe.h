/* hostprobe — live mode's host probes: what a real node exposes through
 * /proc and /sys (CPU counters, memory, RAPL energy, hwmon temperatures, NIC
 * and InfiniBand/RoCE counters) and the free space of its file system.
 *
 * Every reader takes a root directory ("/" on a real host, a fake tree in
 * tests) and reads ROOT/proc/..., ROOT/sys/... below it. A file that does not
 * exist is an absent reading, not an error. A file whose contents are not a
 * plain non-negative decimal that fits in 64 bits (garbage, negative,
 * overflow) makes that one reading HP_INVALID and adds a message naming the
 * file; a file we may not read (EACCES, as energy_uj is for non-root users
 * on recent kernels) is absent with a note. Nothing here crashes on bad input.
 *
 * Ownership: the caller owns every struct; the readers allocate nothing on
 * the heap. Every table has a fixed capacity (HP_MAX_*); entries beyond it are
 * dropped with one note. Directory entries are read in natural order
 * (hwmon2 before hwmon10), so a probe of the same tree is the same bytes. */
#ifndef HL_HOSTPROBE_H
#define HL_HOSTPROBE_H

#include <stdbool.h>
#include <stdint.h>

enum {
	HP_NAME = 64,       /* names: devices, chips, labels, states */
	HP_MSG = 320,       /* one message, with its file's path */
	HP_MAX_MSGS = 32,
	HP_MAX_RAPL = 32,
	HP_MAX_TEMPS = 128,
	HP_MAX_NICS = 64,
	HP_MAX_IB = 32,
	HP_MAX_DIR = 256,   /* entries considered per directory */
};

enum hp_state { HP_ABSENT = 0, HP_OK, HP_INVALID };

/* One numeric reading from one file. */
struct hp_val {
	enum hp_state st;
	uint64_t v;
};

/* Problems (invalid readings) and notes (unreadable files, truncation), in
 * the order found. `dropped` counts messages beyond the capacity. */
struct hp_msgs {
	int n, nproblems, dropped;
	bool problem[HP_MAX_MSGS];
	char text[HP_MAX_MSGS][HP_MSG];
};

/* The aggregate "cpu" line of /proc/stat, in clock ticks (USER_HZ).
 * total = user + nice + system + idle + iowait + irq + softirq + steal (guest
 * time is already inside user and nice). ncores counts the "cpuN" lines. */
struct hp_cpustat {
	enum hp_state st;
	uint64_t total, idle, iowait;
	int ncores;
};

struct hp_mem {
	struct hp_val total_kib, avail_kib;     /* MemTotal, MemAvailable */
};

/* One powercap zone: ROOT/sys/class/powercap/intel-rapl:N[:M]. */
struct hp_rapl_zone {
	char dir[HP_NAME];                      /* "intel-rapl:0" */
	char name[HP_NAME];                     /* its name file ("package-0"), or "" */
	struct hp_val energy_uj, max_range_uj;
};

struct hp_rapl {
	int n;
	struct hp_rapl_zone z[HP_MAX_RAPL];
};

/* One hwmon temperature: ROOT/sys/class/hwmon/hwmonN/tempK_input. */
struct hp_temp {
	char hwmon[HP_NAME];                    /* "hwmon0" */
	char chip[HP_NAME];                     /* its name file, or "" */
	char sensor[HP_NAME];                   /* "temp1" */
	char label[HP_NAME];                    /* tempK_label, or "" when absent */
	enum hp_state st;
	double temp_c;                          /* millidegrees / 1000 */
};

struct hp_temps {
	int n;
	struct hp_temp t[HP_MAX_TEMPS];
};

enum hp_nic_counter {
	HP_RX_ERRORS, HP_TX_ERRORS, HP_RX_DROPPED, HP_TX_DROPPED,
	HP_RX_PACKETS, HP_TX_PACKETS, HP_NIC_NCOUNTERS
};

struct hp_nic {
	char name[HP_NAME];
	struct hp_val c[HP_NIC_NCOUNTERS];      /* statistics/<hp_nic_counter_name> */
};

struct hp_nics {
	int n;
	struct hp_nic nic[HP_MAX_NICS];
};

enum hp_ib_counter { HP_IB_SYMBOL_ERROR, HP_IB_PORT_RCV_ERRORS, HP_IB_LINK_DOWNED, HP_IB_NCOUNTERS };

/* One port: ROOT/sys/class/infiniband/DEV/ports/N. state "4: ACTIVE" gives
 * state_num 4 and state "ACTIVE"; rate "100 Gb/sec (4X EDR)" gives
 * rate_gbps 100 and rate the whole text. Empty strings when absent. */
struct hp_ibport {
	char dev[HP_NAME];
	int port;
	enum hp_state state_st, rate_st;
	int state_num;
	char state[HP_NAME];
	double rate_gbps;
	char rate[HP_NAME];
	char link_layer[HP_NAME];               /* "InfiniBand" or "Ethernet" (RoCE) */
	struct hp_val c[HP_IB_NCOUNTERS];       /* counters/<hp_ib_counter_name> */
};

struct hp_ib {
	int n;
	struct hp_ibport p[HP_MAX_IB];
};

struct hp_disk {
	enum hp_state st;
	uint64_t free_bytes, total_bytes;       /* available to non-root; size */
};

/* Everything one read of a host gives. Large (~60 KiB): allocate it once. */
struct hp_host {
	struct hp_cpustat cpu;
	struct hp_mem mem;
	struct hp_rapl rapl;
	struct hp_temps temps;
	struct hp_nics nics;
	struct hp_ib ib;
	struct hp_disk disk;
};

const char *hp_nic_counter_name(enum hp_nic_counter c);
const char *hp_ib_counter_name(enum hp_ib_counter c);

void hp_msgs_init(struct hp_msgs *m);
/* Appends one message (printf format); `problem` marks an invalid reading. */
void hp_msg(struct hp_msgs *m, bool problem, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The readers. `root` is a directory ("/" for the real host); `m` gets the
 * messages. Each fills its struct (zeroed first) and returns nothing: what
 * was found is in the struct. */
void hp_read_cpustat(const char *root, struct hp_cpustat *out, struct hp_msgs *m);
void hp_read_mem(const char *root, struct hp_mem *out, struct hp_msgs *m);
void hp_read_rapl(const char *root, struct hp_rapl *out, struct hp_msgs *m);
void hp_read_temps(const char *root, struct hp_temps *out, struct hp_msgs *m);
void hp_read_nics(const char *root, struct hp_nics *out, struct hp_msgs *m);
void hp_read_ib(const char *root, struct hp_ib *out, struct hp_msgs *m);
/* statvfs(path); an error leaves st HP_INVALID with a message. */
void hp_read_disk(const char *path, struct hp_disk *out, struct hp_msgs *m);
/* All of the above; the disk is statvfs(root). */
void hp_read_host(const char *root, struct hp_host *out, struct hp_msgs *m);

/* Busy fraction between two snapshots, in [0, 1]: Δ(total − idle − iowait)
 * / Δtotal. -1 when either is not HP_OK, no tick passed, or a counter went
 * backwards. */
double hp_cpu_util(const struct hp_cpustat *a, const struct hp_cpustat *b);

/* Mean power of one zone between two snapshots dt_us apart, in watts
 * (µJ / µs = W). A counter that went backwards wrapped: the energy is
 * max_range_uj + 1 − a + b. -1 when a reading is not HP_OK, dt_us <= 0, or
 * the values are impossible (energy above the range on a wrap). */
double hp_rapl_power_w(const struct hp_rapl_zone *a, const struct hp_rapl_zone *b, int64_t dt_us);

/* Helpers exposed for tests. hp_parse_u64: a whole decimal with optional
 * surrounding whitespace; 0 ok, -1 with `why` set ("not a number",
 * "negative", "overflow", "empty"). */
int hp_parse_u64(const char *s, uint64_t *out, const char **why);

#endif
