/* hetlab probe — what this host exposes to live mode (docs/live.md), so that
 * an operator can check a node before it joins: labels (CPU cores, memory,
 * NICs, InfiniBand/RoCE ports, GPUs with their MIG and ECC state), the CPU
 * topology (hwloc: packages, NUMA nodes, cores, SMT), the node labels live
 * mode derives (cpu.*, gpu.*, mem_gib) and readings (CPU utilisation and
 * RAPL power over --interval-ms, temperatures, NIC and IB error counters,
 * disk free, GPU power, temperature, clock event reasons, ECC and retired
 * memory, XID events seen during the interval). Reads below --sysfs-root
 * (default "/"); the topology of this host (only when the root is "/") or
 * of --topology-xml FILE; NVML from $HETLAB_NVML_LIB, else
 * libnvidia-ml.so.1. Exit status 0 when the probe ran, whatever it found;
 * invalid readings are listed as problems. */
#include <errno.h>
#include <stdarg.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "live/hostprobe.h"
#include "live/nvml.h"
#include "live/reading.h"
#include "live/topo.h"

enum { NLABELS = 24, LABEL_VAL = 256 };

struct probe {
	const char *root, *disk_path;
	long interval_ms;
	int64_t rapl_dt_us;
	struct hp_host a;          /* everything, first read */
	struct hp_cpustat cpu1;    /* second read */
	struct hp_rapl rapl1;
	struct hp_msgs msgs;
	struct nvml_session *nvs;  /* open over the interval, to see its XID events */
	struct nvml_probe gpus;
	const char *topo_src;      /* "this host", the XML file, or NULL: no topology */
	struct topo topo;
	int nlabels;               /* the node labels live mode derives */
	struct { const char *key; char val[LABEL_VAL]; } label[NLABELS];
};

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Appends the second read's messages that the first did not already give. */
static void merge_msgs(struct hp_msgs *into, const struct hp_msgs *from)
{
	for (int i = 0; i < from->n; i++) {
		bool seen = false;
		for (int j = 0; j < into->n && !seen; j++)
			seen = strcmp(into->text[j], from->text[i]) == 0;
		if (!seen)
			hp_msg(into, from->problem[i], "%s", from->text[i]);
	}
}

static void run_probe(struct probe *p)
{
	struct hp_msgs m2;
	hp_msgs_init(&p->msgs);
	hp_msgs_init(&m2);
	if (nvml_session_open(getenv("HETLAB_NVML_LIB"), &p->nvs) != 0)
		p->nvs = NULL;   /* out of memory: one-shot read below */
	hp_read_cpustat(p->root, &p->a.cpu, &p->msgs);
	int64_t t0 = now_us();
	hp_read_rapl(p->root, &p->a.rapl, &p->msgs);
	hp_read_mem(p->root, &p->a.mem, &p->msgs);
	hp_read_temps(p->root, &p->a.temps, &p->msgs);
	hp_read_nics(p->root, &p->a.nics, &p->msgs);
	hp_read_ib(p->root, &p->a.ib, &p->msgs);
	hp_read_disk(p->disk_path, &p->a.disk, &p->msgs);
	int64_t left_us = p->interval_ms * 1000 - (now_us() - t0);
	if (left_us > 0)
		sleep_ms((long)((left_us + 999) / 1000));
	int64_t t1 = now_us();
	hp_read_rapl(p->root, &p->rapl1, &m2);
	hp_read_cpustat(p->root, &p->cpu1, &m2);
	p->rapl_dt_us = t1 - t0;
	merge_msgs(&p->msgs, &m2);
	if (p->nvs) {
		nvml_session_read(p->nvs, &p->gpus);
		nvml_session_close(p->nvs);
		p->nvs = NULL;
	} else {
		nvml_probe_read(getenv("HETLAB_NVML_LIB"), &p->gpus);
	}
}

/* Zone `z` of the first read in the second, by directory name. */
static const struct hp_rapl_zone *zone_later(const struct probe *p, const struct hp_rapl_zone *z)
{
	for (int i = 0; i < p->rapl1.n; i++)
		if (strcmp(p->rapl1.z[i].dir, z->dir) == 0)
			return &p->rapl1.z[i];
	return NULL;
}

static double zone_power_w(const struct probe *p, int i)
{
	const struct hp_rapl_zone *b = zone_later(p, &p->a.rapl.z[i]);
	return b ? hp_rapl_power_w(&p->a.rapl.z[i], b, p->rapl_dt_us) : -1;
}

static double kib_to_gib(uint64_t kib)
{
	return (double)kib / (1024.0 * 1024.0);
}

static double b_to_gib(uint64_t b)
{
	return (double)b / (1024.0 * 1024.0 * 1024.0);
}

/* ---- node labels ------------------------------------------------------------- */

static void add_label(struct probe *p, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add_label(struct probe *p, const char *key, const char *fmt, ...)
{
	if (p->nlabels >= NLABELS)
		return;
	va_list ap;
	va_start(ap, fmt);
	p->label[p->nlabels].key = key;
	vsnprintf(p->label[p->nlabels++].val, LABEL_VAL, fmt, ap);
	va_end(ap);
}

/* The labels live mode sets on this node, with the keys of docs/labels.md:
 * CPU ones from the topology (only cpu.threads, from /proc/stat, without
 * one), GPU ones from NVML. gpu.model is NVML's name (not a catalog name):
 * the distinct names, comma-separated; gpu.mem_gib the smallest GPU's
 * memory in whole GiB; gpu.mig whether the GPUs are MIG-capable (NVML
 * answered for their MIG mode); gpu.mig_cards how many are in MIG mode. */
static void derive_labels(struct probe *p)
{
	const struct topo *t = &p->topo;
	const struct nvml_probe *g = &p->gpus;
	if (p->topo_src) {
		if (t->cpu_model[0])
			add_label(p, "cpu.model", "%s", t->cpu_model);
		add_label(p, "cpu.sockets", "%d", t->npackages);
		add_label(p, "cpu.cores", "%d", t->ncores);
		add_label(p, "cpu.threads", "%d", t->npus);
		add_label(p, "cpu.numa", "%d", t->nnuma);
		add_label(p, "cpu.smt", "%s", t->smt ? "true" : "false");
	} else if (p->a.cpu.ncores > 0) {
		add_label(p, "cpu.threads", "%d", p->a.cpu.ncores);
	}
	if (p->a.mem.total_kib.st == HP_OK)
		add_label(p, "mem_gib", "%.0f", kib_to_gib(p->a.mem.total_kib.v));
	add_label(p, "gpu.count", "%d", g->ngpus);
	if (g->ngpus == 0)
		return;
	char models[LABEL_VAL] = "";
	size_t len = 0;
	bool have_mem = false, mig = false;
	uint64_t mem_b = 0;
	int mig_cards = 0;
	for (int i = 0; i < g->ngpus; i++) {
		const struct nvml_gpu *x = &g->gpu[i];
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = strcmp(g->gpu[j].name, x->name) == 0;
		if (!seen && len < sizeof models) {
			int k = snprintf(models + len, sizeof models - len, "%s%s", len ? "," : "", x->name);
			len += k > 0 ? (size_t)k : 0;
		}
		if (x->have_mem && (!have_mem || x->mem_total_b < mem_b)) {
			have_mem = true;
			mem_b = x->mem_total_b;
		}
		mig |= x->have_mig;
		mig_cards += x->have_mig && x->mig_on;
	}
	add_label(p, "gpu.model", "%s", models);
	if (have_mem)
		add_label(p, "gpu.mem_gib", "%.0f", b_to_gib(mem_b));
	add_label(p, "gpu.mig", "%s", mig ? "true" : "false");
	add_label(p, "gpu.mig_cards", "%d", mig_cards);
}

static int gpu_numa(const struct probe *p, const struct nvml_gpu *g)
{
	return p->topo_src && g->pci_bus_id[0] ? topo_gpu_numa(&p->topo, g->pci_bus_id) : -1;
}

/* ---- text ---------------------------------------------------------------- */

static void print_val(const struct hp_val *v)
{
	if (v->st == HP_OK)
		printf("%llu", (unsigned long long)v->v);
	else
		printf(v->st == HP_ABSENT ? "-" : "invalid");
}

static const char *on_off(bool on)
{
	return on ? "on" : "off";
}

static void print_gpu_labels(const struct probe *p)
{
	if (p->gpus.ngpus == 0)
		printf("  GPUs            none\n");
	for (int i = 0; i < p->gpus.ngpus; i++) {
		const struct nvml_gpu *g = &p->gpus.gpu[i];
		printf("  GPU %-3u         %s", g->index, g->name);
		if (g->have_mem)
			printf(", %.1f GiB", b_to_gib(g->mem_total_b));
		if (g->have_limit)
			printf(", power limit %.0f W", g->limit_w);
		printf("\n                  %s, PCI %s", g->uuid[0] ? g->uuid : "uuid -",
		       g->pci_bus_id[0] ? g->pci_bus_id : "-");
		int numa = gpu_numa(p, g);
		if (numa >= 0)
			printf(", NUMA %d", p->topo.numa[numa].os_index);
		printf("\n                  slowdown ");
		if (g->have_temp_slowdown)
			printf("%.0f °C", g->temp_slowdown_c);
		else
			printf("-");
		printf(", shutdown ");
		if (g->have_temp_shutdown)
			printf("%.0f °C", g->temp_shutdown_c);
		else
			printf("-");
		if (g->have_ecc_mode)
			printf("; ECC %s%s", on_off(g->ecc_on), g->ecc_pending_on != g->ecc_on
			       ? (g->ecc_pending_on ? " (on after reset)" : " (off after reset)") : "");
		else
			printf("; ECC -");
		if (g->have_mig)
			printf("; MIG %s%s", on_off(g->mig_on), g->mig_pending_on != g->mig_on
			       ? (g->mig_pending_on ? " (on after reset)" : " (off after reset)") : "");
		else
			printf("; MIG -");
		putchar('\n');
		for (int m = 0; m < g->nmig; m++) {
			const struct nvml_mig *mg = &g->mig[m];
			printf("    MIG %-3u       %s", mg->index, mg->uuid[0] ? mg->uuid : "uuid -");
			if (mg->have_mem)
				printf(", %.1f GiB", b_to_gib(mg->mem_total_b));
			if (mg->have_attr)
				printf(", %u GPU-instance slice%s, %u SMs", mg->gi_slices, mg->gi_slices == 1 ? "" : "s",
				       mg->sm_count);
			if (mg->have_gi_id)
				printf(", GI %u", mg->gi_id);
			if (mg->have_ci_id)
				printf(" CI %u", mg->ci_id);
			if (!mg->have_placement)
				printf(", placement -");
			else if (mg->place_size == 1)
				printf(", memory slice %u (profile %u)", mg->place_start, mg->profile_id);
			else
				printf(", memory slices %u-%u (profile %u)", mg->place_start,
				       mg->place_start + mg->place_size - 1, mg->profile_id);
			putchar('\n');
		}
	}
}

static void print_topology(const struct probe *p)
{
	const struct topo *t = &p->topo;
	char cpus[16384];
	if (!p->topo_src) {
		printf("\ntopology          - (see the notes)\n");
		return;
	}
	printf("\ntopology (%s)\n", p->topo_src);
	printf("  %d package%s, %d NUMA node%s, %d cores, %d PUs, SMT %s\n", t->npackages,
	       t->npackages == 1 ? "" : "s", t->nnuma, t->nnuma == 1 ? "" : "s", t->ncores, t->npus,
	       on_off(t->smt));
	printf("  CPU model       %s\n", t->cpu_model[0] ? t->cpu_model : "-");
	for (int i = 0; i < t->nnuma; i++) {
		const struct topo_numa *n = &t->numa[i];
		printf("  NUMA %-10d CPUs %s (%d cores, %d PUs), %.1f GiB", n->os_index,
		       n->npus ? topo_cpulist(n->cpus, cpus, sizeof cpus) : "none", n->ncores, n->npus,
		       b_to_gib(n->mem_bytes));
		if (n->ngpus)
			printf(", %d GPU%s", n->ngpus, n->ngpus == 1 ? "" : "s");
		putchar('\n');
	}
	for (int i = 0; i < t->ngpus; i++) {
		const struct topo_gpu *g = &t->gpus[i];
		printf("  PCI GPU         %04x:%02x:%02x.%x [10de:%04x]", g->domain, g->bus, g->dev, g->func,
		       g->device_id);
		if (g->numa >= 0)
			printf(", NUMA %d\n", t->numa[g->numa].os_index);
		else
			printf(", NUMA -\n");
	}
}

static void print_gpu_readings(const struct probe *p)
{
	char buf[512];
	for (int i = 0; i < p->gpus.ngpus; i++) {
		const struct nvml_gpu *g = &p->gpus.gpu[i];
		printf("  GPU %u          ", g->index);
		if (g->have_power)
			printf(" %.1f W", g->power_w);
		if (g->have_temp)
			printf(" %.0f °C", g->temp_c);
		if (g->have_util)
			printf(" util %u %% (memory %u %%)", g->util_gpu_pct, g->util_mem_pct);
		if (g->have_mem)
			printf(" %.1f GiB used", b_to_gib(g->mem_used_b));
		putchar('\n');
		printf("                  clock event reasons %s\n",
		       g->have_clock_reasons ? nvml_clock_reasons_str(g->clock_reasons, buf, sizeof buf) : "-");
		printf("                  uncorrected ECC errors ");
		if (g->have_ecc_volatile)
			printf("%llu", (unsigned long long)g->ecc_unc_volatile);
		else
			printf("-");
		printf(" volatile, ");
		if (g->have_ecc_aggregate)
			printf("%llu", (unsigned long long)g->ecc_unc_aggregate);
		else
			printf("-");
		printf(" aggregate\n");
		if (g->have_retired || g->have_retired_pending) {
			printf("                  retired pages");
			if (g->have_retired)
				printf(" %u single-bit, %u double-bit", g->retired_sbe, g->retired_dbe);
			if (g->have_retired_pending)
				printf("%s%s", g->have_retired ? ", " : " ",
				       g->retired_pending ? "retirement pending" : "none pending");
			putchar('\n');
		}
		if (g->have_remap)
			printf("                  remapped rows %u corrected, %u uncorrected%s%s\n", g->remap_corr,
			       g->remap_unc, g->remap_pending ? ", remap pending" : "",
			       g->remap_failure ? ", REMAP FAILED" : "");
		if (g->events_mask) {
			/* the XIDs of this interval are the last new_xids of last_xid[] */
			int first = g->nxids - ((int)g->new_xids < g->nxids ? (int)g->new_xids : g->nxids);
			printf("                  events over the interval: %u XID%s", g->new_xids,
			       g->new_xids == 1 ? "" : "s");
			for (int k = first; k < g->nxids; k++)
				printf("%s%u%s", k == first ? " (" : ",", g->last_xid[k], k == g->nxids - 1 ? ")" : "");
			printf(", %u double-bit, %u single-bit ECC; health events %u\n", g->new_dbe, g->new_sbe,
			       g->health_events);
		}
	}
}

static void print_text(const struct probe *p)
{
	const struct hp_host *h = &p->a;
	printf("host probe of %s (interval %ld ms)\n\nlabels\n", p->root, p->interval_ms);
	if (h->cpu.ncores > 0)
		printf("  cpu cores       %d\n", h->cpu.ncores);
	else
		printf("  cpu cores       -\n");
	if (h->mem.total_kib.st == HP_OK)
		printf("  memory          %.1f GiB\n", kib_to_gib(h->mem.total_kib.v));
	else
		printf("  memory          %s\n", h->mem.total_kib.st == HP_ABSENT ? "-" : "invalid");
	printf("  NICs           ");
	for (int i = 0; i < h->nics.n; i++)
		printf(" %s", h->nics.nic[i].name);
	printf(h->nics.n ? "\n" : " none\n");
	if (h->ib.n == 0)
		printf("  IB/RoCE ports   none\n");
	for (int i = 0; i < h->ib.n; i++) {
		const struct hp_ibport *q = &h->ib.p[i];
		printf("  IB/RoCE port    %s/%d  %s  %s  %s\n", q->dev, q->port,
		       q->link_layer[0] ? q->link_layer : "-", q->rate[0] ? q->rate : "-",
		       q->state[0] ? q->state : "-");
	}
	print_gpu_labels(p);
	print_topology(p);
	printf("\nnode labels\n");
	for (int i = 0; i < p->nlabels; i++)
		printf("  %s=%s\n", p->label[i].key, p->label[i].val);

	printf("\nreadings\n");
	double u = hp_cpu_util(&h->cpu, &p->cpu1);
	if (u >= 0)
		printf("  cpu utilisation %.1f %%\n", 100 * u);
	else
		printf("  cpu utilisation n/a\n");
	if (h->mem.avail_kib.st == HP_OK)
		printf("  memory free     %.1f GiB available\n", kib_to_gib(h->mem.avail_kib.v));
	for (int i = 0; i < h->rapl.n; i++) {
		const struct hp_rapl_zone *z = &h->rapl.z[i];
		double w = zone_power_w(p, i);
		printf("  RAPL %-14s %-12s", z->dir, z->name[0] ? z->name : "-");
		if (w >= 0)
			printf(" %.1f W\n", w);
		else
			printf(" n/a\n");
	}
	for (int i = 0; i < h->temps.n; i++) {
		const struct hp_temp *t = &h->temps.t[i];
		printf("  temp %s/%s %s%s%s", t->hwmon, t->sensor, t->chip[0] ? t->chip : "-",
		       t->label[0] ? " " : "", t->label);
		if (t->st == HP_OK)
			printf("  %.1f °C\n", t->temp_c);
		else
			printf("  invalid\n");
	}
	for (int i = 0; i < h->nics.n; i++) {
		const struct hp_nic *n = &h->nics.nic[i];
		printf("  NIC %-11s", n->name);
		for (int c = 0; c < HP_NIC_NCOUNTERS; c++) {
			printf(" %s ", hp_nic_counter_name((enum hp_nic_counter)c));
			print_val(&n->c[c]);
		}
		putchar('\n');
	}
	for (int i = 0; i < h->ib.n; i++) {
		const struct hp_ibport *q = &h->ib.p[i];
		printf("  IB %s/%d", q->dev, q->port);
		for (int c = 0; c < HP_IB_NCOUNTERS; c++) {
			printf(" %s ", hp_ib_counter_name((enum hp_ib_counter)c));
			print_val(&q->c[c]);
		}
		putchar('\n');
	}
	print_gpu_readings(p);
	if (h->disk.st == HP_OK)
		printf("  disk free       %.1f GiB of %.1f GiB (%s)\n", b_to_gib(h->disk.free_bytes),
		       b_to_gib(h->disk.total_bytes), p->disk_path);
	else
		printf("  disk free       invalid (%s)\n", p->disk_path);

	if (p->msgs.n || p->gpus.ninfo)
		putchar('\n');
	for (int i = 0; i < p->gpus.ninfo; i++)
		printf("info: %s\n", p->gpus.info[i]);
	for (int i = 0; i < p->msgs.n; i++)
		printf("%s: %s\n", p->msgs.problem[i] ? "problem" : "note", p->msgs.text[i]);
	if (p->msgs.dropped)
		printf("(%d more messages not shown)\n", p->msgs.dropped);
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *jval(const struct hp_val *v)
{
	if (v->st != HP_OK)
		return json_null();
	return v->v <= INT64_MAX ? json_integer((json_int_t)v->v) : json_real((double)v->v);
}

static json_t *jnum(bool ok, double x)
{
	return ok ? json_real(x) : json_null();
}

static json_t *jstr(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

static json_t *juint(bool ok, uint64_t v)
{
	return ok ? json_integer((json_int_t)(v <= INT64_MAX ? v : INT64_MAX)) : json_null();
}

static json_t *jmode(bool ok, bool current, bool pending)
{
	return ok ? json_pack("{s:b, s:b}", "current", current, "pending", pending) : json_null();
}

/* A NUMA node by its OS index (what numactl calls it); null when unknown. */
static json_t *jnuma(const struct topo *t, int numa)
{
	return numa >= 0 ? json_integer(t->numa[numa].os_index) : json_null();
}

static json_t *json_gpu_label(const struct probe *p, const struct nvml_gpu *g)
{
	json_t *o = json_object(), *migs = json_array();
	json_object_set_new(o, "index", json_integer(g->index));
	json_object_set_new(o, "name", json_string(g->name));
	json_object_set_new(o, "uuid", jstr(g->uuid));
	json_object_set_new(o, "pci_bus_id", jstr(g->pci_bus_id));
	json_object_set_new(o, "numa", jnuma(&p->topo, gpu_numa(p, g)));
	json_object_set_new(o, "mem_gib", jnum(g->have_mem, b_to_gib(g->mem_total_b)));
	json_object_set_new(o, "power_limit_w", jnum(g->have_limit, g->limit_w));
	json_object_set_new(o, "temp_slowdown_c", jnum(g->have_temp_slowdown, g->temp_slowdown_c));
	json_object_set_new(o, "temp_shutdown_c", jnum(g->have_temp_shutdown, g->temp_shutdown_c));
	json_object_set_new(o, "ecc", jmode(g->have_ecc_mode, g->ecc_on, g->ecc_pending_on));
	json_object_set_new(o, "mig", jmode(g->have_mig, g->mig_on, g->mig_pending_on));
	for (int m = 0; m < g->nmig; m++) {
		const struct nvml_mig *mg = &g->mig[m];
		json_t *place = mg->have_placement
		    ? json_pack("{s:i, s:i}", "start", (int)mg->place_start, "size", (int)mg->place_size) : json_null();
		json_array_append_new(migs, json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
		    "index", (int)mg->index,
		    "uuid", jstr(mg->uuid), "mem_gib", jnum(mg->have_mem, b_to_gib(mg->mem_total_b)),
		    "gi_slices", juint(mg->have_attr, mg->gi_slices), "ci_slices", juint(mg->have_attr, mg->ci_slices),
		    "sm_count", juint(mg->have_attr, mg->sm_count), "gi_id", juint(mg->have_gi_id, mg->gi_id),
		    "ci_id", juint(mg->have_ci_id, mg->ci_id), "gi_profile_id", juint(mg->have_placement, mg->profile_id),
		    "placement", place));
	}
	json_object_set_new(o, "mig_devices", migs);
	return o;
}

static json_t *json_gpu_reading(const struct nvml_gpu *g)
{
	json_t *o = json_object();
	json_object_set_new(o, "index", json_integer(g->index));
	json_object_set_new(o, "power_w", jnum(g->have_power, g->power_w));
	json_object_set_new(o, "temp_c", jnum(g->have_temp, g->temp_c));
	json_object_set_new(o, "util_gpu_pct", juint(g->have_util, g->util_gpu_pct));
	json_object_set_new(o, "util_mem_pct", juint(g->have_util, g->util_mem_pct));
	json_object_set_new(o, "mem_used_gib", jnum(g->have_mem, b_to_gib(g->mem_used_b)));
	json_t *reasons = json_null();
	if (g->have_clock_reasons) {
		reasons = json_array();
		for (unsigned b = 0; b < 64; b++) {
			if (!(g->clock_reasons >> b & 1))
				continue;
			const char *name = nvml_clock_reason_name(b);
			char hex[24];
			snprintf(hex, sizeof hex, "0x%llx", 1ULL << b);
			json_array_append_new(reasons, json_string(name ? name : hex));
		}
	}
	json_object_set_new(o, "clock_reasons", reasons);
	json_object_set_new(o, "clock_reasons_mask", juint(g->have_clock_reasons, g->clock_reasons));
	json_object_set_new(o, "ecc_uncorrected_volatile", juint(g->have_ecc_volatile, g->ecc_unc_volatile));
	json_object_set_new(o, "ecc_uncorrected_aggregate", juint(g->have_ecc_aggregate, g->ecc_unc_aggregate));
	json_object_set_new(o, "retired_pages_sbe", juint(g->have_retired, g->retired_sbe));
	json_object_set_new(o, "retired_pages_dbe", juint(g->have_retired, g->retired_dbe));
	json_object_set_new(o, "retired_pages_pending", g->have_retired_pending ? json_boolean(g->retired_pending)
	                                                                          : json_null());
	json_object_set_new(o, "remapped_rows", g->have_remap
	    ? json_pack("{s:i, s:i, s:b, s:b}", "corrected", (int)g->remap_corr, "uncorrected", (int)g->remap_unc,
	                "pending", g->remap_pending, "failure", g->remap_failure)
	    : json_null());
	json_t *ev = json_null();
	if (g->events_mask) {
		json_t *reg = json_array(), *xids = json_array();
		static const struct { unsigned bit; const char *name; } evn[] = {
			{ NVML_EV_XID, "xid" }, { NVML_EV_DBE, "dbe" }, { NVML_EV_SBE, "sbe" },
		};
		for (size_t k = 0; k < sizeof evn / sizeof evn[0]; k++)
			if (g->events_mask & evn[k].bit)
				json_array_append_new(reg, json_string(evn[k].name));
		/* the XIDs of this interval are the last new_xids of last_xid[] */
		int first = g->nxids - ((int)g->new_xids < g->nxids ? (int)g->new_xids : g->nxids);
		for (int k = first; k < g->nxids; k++)
			json_array_append_new(xids, json_integer(g->last_xid[k]));
		ev = json_pack("{s:o, s:o, s:i, s:i, s:i, s:o, s:i}", "registered", reg, "xids", xids,
		    "new_xids", (int)g->new_xids, "new_dbe", (int)g->new_dbe, "new_sbe", (int)g->new_sbe,
		    "new_ecc_uncorrected", juint(g->have_ecc_delta, g->new_ecc_unc),
		    "health_events", (int)g->health_events);
	}
	json_object_set_new(o, "events", ev);
	return o;
}

static json_t *json_topology(const struct probe *p)
{
	const struct topo *t = &p->topo;
	char cpus[16384];
	if (!p->topo_src)
		return json_null();
	json_t *nodes = json_array(), *gpus = json_array();
	for (int i = 0; i < t->nnuma; i++) {
		const struct topo_numa *n = &t->numa[i];
		json_array_append_new(nodes, json_pack("{s:i, s:o, s:s, s:i, s:i, s:f, s:i}", "os_index", n->os_index,
		    "package", n->package >= 0 ? json_integer(n->package) : json_null(),
		    "cpus", topo_cpulist(n->cpus, cpus, sizeof cpus), "cores", n->ncores, "pus", n->npus,
		    "mem_gib", b_to_gib(n->mem_bytes), "gpus", n->ngpus));
	}
	for (int i = 0; i < t->ngpus; i++) {
		const struct topo_gpu *g = &t->gpus[i];
		char bus[32];
		snprintf(bus, sizeof bus, "%04x:%02x:%02x.%x", g->domain, g->bus, g->dev, g->func);
		json_array_append_new(gpus, json_pack("{s:s, s:i, s:o}", "pci_bus_id", bus, "device_id", (int)g->device_id,
		    "numa", jnuma(t, g->numa)));
	}
	return json_pack("{s:s, s:i, s:i, s:i, s:i, s:b, s:o, s:f, s:o, s:o}", "source", p->topo_src,
	    "packages", t->npackages, "numa", t->nnuma, "cores", t->ncores, "pus", t->npus, "smt", t->smt,
	    "cpu_model", jstr(t->cpu_model), "mem_gib", b_to_gib(t->mem_bytes), "numa_nodes", nodes, "pci_gpus", gpus);
}

static int print_json(const struct probe *p)
{
	const struct hp_host *h = &p->a;
	json_t *labels = json_object(), *rd = json_object();
	json_t *nics = json_array(), *ibl = json_array(), *gpul = json_array();
	json_t *rapl = json_array(), *temps = json_array(), *nicr = json_array(), *ibr = json_array();
	json_t *gpur = json_array(), *problems = json_array(), *notes = json_array();

	json_object_set_new(labels, "cpu_cores", h->cpu.ncores > 0 ? json_integer(h->cpu.ncores) : json_null());
	json_object_set_new(labels, "mem_total_gib", jnum(h->mem.total_kib.st == HP_OK, kib_to_gib(h->mem.total_kib.v)));
	for (int i = 0; i < h->nics.n; i++) {
		const struct hp_nic *n = &h->nics.nic[i];
		json_t *o = json_object();
		json_array_append_new(nics, json_string(n->name));
		json_object_set_new(o, "name", json_string(n->name));
		for (int c = 0; c < HP_NIC_NCOUNTERS; c++)
			json_object_set_new(o, hp_nic_counter_name((enum hp_nic_counter)c), jval(&n->c[c]));
		json_array_append_new(nicr, o);
	}
	for (int i = 0; i < h->ib.n; i++) {
		const struct hp_ibport *q = &h->ib.p[i];
		json_t *l = json_object(), *o = json_object();
		json_object_set_new(l, "dev", json_string(q->dev));
		json_object_set_new(l, "port", json_integer(q->port));
		json_object_set_new(l, "link_layer", jstr(q->link_layer));
		json_object_set_new(l, "rate", jstr(q->rate));
		json_object_set_new(l, "rate_gbps", jnum(q->rate_st == HP_OK, q->rate_gbps));
		json_array_append_new(ibl, l);
		json_object_set_new(o, "dev", json_string(q->dev));
		json_object_set_new(o, "port", json_integer(q->port));
		json_object_set_new(o, "state", jstr(q->state));
		json_object_set_new(o, "state_num", q->state_st == HP_OK ? json_integer(q->state_num) : json_null());
		for (int c = 0; c < HP_IB_NCOUNTERS; c++)
			json_object_set_new(o, hp_ib_counter_name((enum hp_ib_counter)c), jval(&q->c[c]));
		json_array_append_new(ibr, o);
	}
	for (int i = 0; i < p->gpus.ngpus; i++) {
		json_array_append_new(gpul, json_gpu_label(p, &p->gpus.gpu[i]));
		json_array_append_new(gpur, json_gpu_reading(&p->gpus.gpu[i]));
	}
	json_object_set_new(labels, "nics", nics);
	json_object_set_new(labels, "ib_ports", ibl);
	json_object_set_new(labels, "gpus", gpul);

	double u = hp_cpu_util(&h->cpu, &p->cpu1);
	json_object_set_new(rd, "cpu_util", jnum(u >= 0, u));
	json_object_set_new(rd, "mem_avail_gib", jnum(h->mem.avail_kib.st == HP_OK, kib_to_gib(h->mem.avail_kib.v)));
	for (int i = 0; i < h->rapl.n; i++) {
		double w = zone_power_w(p, i);
		json_array_append_new(rapl, json_pack("{s:s, s:o, s:o}", "zone", h->rapl.z[i].dir,
		    "name", jstr(h->rapl.z[i].name), "power_w", jnum(w >= 0, w)));
	}
	for (int i = 0; i < h->temps.n; i++) {
		const struct hp_temp *t = &h->temps.t[i];
		json_array_append_new(temps, json_pack("{s:s, s:o, s:s, s:o, s:o}", "hwmon", t->hwmon,
		    "chip", jstr(t->chip), "sensor", t->sensor, "label", jstr(t->label),
		    "temp_c", jnum(t->st == HP_OK, t->temp_c)));
	}
	json_object_set_new(rd, "rapl", rapl);
	json_object_set_new(rd, "temps", temps);
	json_object_set_new(rd, "nics", nicr);
	json_object_set_new(rd, "ib_ports", ibr);
	json_object_set_new(rd, "gpus", gpur);
	json_object_set_new(rd, "disk", json_pack("{s:s, s:o, s:o}", "path", p->disk_path,
	    "free_gib", jnum(h->disk.st == HP_OK, b_to_gib(h->disk.free_bytes)),
	    "total_gib", jnum(h->disk.st == HP_OK, b_to_gib(h->disk.total_bytes))));

	for (int i = 0; i < p->msgs.n; i++)
		json_array_append_new(p->msgs.problem[i] ? problems : notes, json_string(p->msgs.text[i]));
	for (int i = 0; i < p->gpus.ninfo; i++)
		json_array_append_new(notes, json_string(p->gpus.info[i]));

	json_t *nl = json_object();
	for (int i = 0; i < p->nlabels; i++)
		json_object_set_new(nl, p->label[i].key, json_string(p->label[i].val));

	json_t *root = json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:i}", "root", p->root,
	    "interval_ms", (json_int_t)p->interval_ms, "labels", labels, "topology", json_topology(p),
	    "node_labels", nl, "readings", rd,
	    "problems", problems, "notes", notes, "messages_dropped", p->msgs.dropped);
	if (!root) {
		fprintf(stderr, "hetlab probe: could not build the JSON output\n");
		return 1;
	}
	int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 ? 0 : 1;
	putchar('\n');
	json_decref(root);
	return rc;
}

/* Declared in cli/main.c (cmd.h is not this change's to edit). */
int cmd_probe(int argc, char **argv);
int cmd_probe(int argc, char **argv)
{
	const char *root = "/", *disk = NULL, *topo_xml = NULL;
	bool json = false, reading = false;
	long interval_ms = 200;

	struct cli_args ap;
	int opt;
	long long ms;
	cli_args_init(&ap, "probe", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_JSON: json = true; break;
		case OPT_READING: reading = true; break;
		case OPT_SYSFS_ROOT: root = ap.val; break;
		case OPT_TOPOLOGY_XML: topo_xml = ap.val; break;
		case OPT_DISK: disk = ap.val; break;
		case OPT_INTERVAL_MS:
			if (cli_long(&ap, 0, 600000, &ms))
				return CLI_USAGE;
			interval_ms = (long)ms;
			break;
		case CLI_POS: return cli_usage(&ap, "unexpected argument '%s'", ap.val);
		}
	struct stat st;
	if (stat(root, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "hetlab probe: --sysfs-root %s: not a directory\n", root);
		return 1;
	}

	struct probe *p = calloc(1, sizeof *p);
	if (!p) {
		fprintf(stderr, "hetlab probe: out of memory\n");
		return 1;
	}
	p->root = root;
	p->disk_path = disk ? disk : root;
	p->interval_ms = interval_ms;
	/* A file the user named that does not load is their mistake; the host's
	 * topology failing is a note. The host's is not that of a fake root. */
	if (topo_xml) {
		if (topo_read_xml(topo_xml, &p->topo) != 0) {
			fprintf(stderr, "hetlab probe: --topology-xml %s\n", p->topo.err);
			free(p);
			return 1;
		}
		p->topo_src = topo_xml;
	}
	run_probe(p);
	if (reading) {
		/* What a node agent writes for the live daemon's "file:" probes. */
		struct hp_host *b = malloc(sizeof *b);
		int rc = 1;
		if (b) {
			*b = p->a;
			b->cpu = p->cpu1;
			b->rapl = p->rapl1;
			struct sim_reading r;
			char line[256];
			reading_from_host(&p->a, b, p->rapl_dt_us, &p->gpus, &r);
			if (reading_format(&r, line, sizeof line) >= 0) {
				puts(line);
				rc = 0;
			}
			free(b);
		}
		free(p);
		return rc;
	}
	if (!topo_xml && strcmp(root, "/") == 0) {
		if (topo_read_host(&p->topo) == 0)
			p->topo_src = "this host";
		else
			hp_msg(&p->msgs, false, "topology: %s", p->topo.err);
	} else if (!topo_xml) {
		hp_msg(&p->msgs, false, "topology: not read (this host's is not that of --sysfs-root %s; "
		       "give --topology-xml)", root);
	}
	derive_labels(p);
	int rc = 0;
	if (json)
		rc = print_json(p);
	else
		print_text(p);
	free(p);
	return rc;
}
