/* hetlab probe — what this host exposes to live mode (docs/live.md), so that
 * an operator can check a node before it joins: labels (CPU cores, memory,
 * NICs, InfiniBand/RoCE ports, GPUs) and readings (CPU utilisation and RAPL
 * power over --interval-ms, temperatures, NIC and IB error counters, disk
 * free, GPU power and temperature). Reads below --sysfs-root (default "/");
 * NVML from $HETLAB_NVML_LIB, else libnvidia-ml.so.1. Exit status 0 when the
 * probe ran, whatever it found; invalid readings are listed as problems. */
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cmd.h"
#include "live/hostprobe.h"
#include "live/nvml.h"

#define PROBE_USAGE "usage: hetlab probe [--sysfs-root DIR] [--disk PATH] [--json] [--interval-ms N]\n"

struct probe {
	const char *root, *disk_path;
	long interval_ms;
	int64_t rapl_dt_us;
	struct hp_host a;          /* everything, first read */
	struct hp_cpustat cpu1;    /* second read */
	struct hp_rapl rapl1;
	struct hp_msgs msgs;
	struct nvml_probe gpus;
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

/* ---- text ---------------------------------------------------------------- */

static void print_val(const struct hp_val *v)
{
	if (v->st == HP_OK)
		printf("%llu", (unsigned long long)v->v);
	else
		printf(v->st == HP_ABSENT ? "-" : "invalid");
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
	if (p->gpus.ngpus == 0)
		printf("  GPUs            none\n");
	for (int i = 0; i < p->gpus.ngpus; i++) {
		const struct nvml_gpu *g = &p->gpus.gpu[i];
		printf("  GPU %-3u         %s", g->index, g->name);
		if (g->have_mem)
			printf(", %.1f GiB", b_to_gib(g->mem_total_b));
		if (g->have_limit)
			printf(", power limit %.0f W", g->limit_w);
		putchar('\n');
	}

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
	}
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
		const struct nvml_gpu *g = &p->gpus.gpu[i];
		json_array_append_new(gpul, json_pack("{s:i, s:s, s:o, s:o}", "index", (int)g->index, "name", g->name,
		    "mem_gib", jnum(g->have_mem, b_to_gib(g->mem_total_b)),
		    "power_limit_w", jnum(g->have_limit, g->limit_w)));
		json_array_append_new(gpur, json_pack("{s:i, s:o, s:o, s:o, s:o, s:o}", "index", (int)g->index,
		    "power_w", jnum(g->have_power, g->power_w), "temp_c", jnum(g->have_temp, g->temp_c),
		    "util_gpu_pct", g->have_util ? json_integer(g->util_gpu_pct) : json_null(),
		    "util_mem_pct", g->have_util ? json_integer(g->util_mem_pct) : json_null(),
		    "mem_used_gib", jnum(g->have_mem, b_to_gib(g->mem_used_b))));
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

	json_t *root = json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:i}", "root", p->root,
	    "interval_ms", (json_int_t)p->interval_ms, "labels", labels, "readings", rd,
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
	const char *root = "/", *disk = NULL;
	bool json = false;
	long interval_ms = 200;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--json") == 0) {
			json = true;
		} else if ((strcmp(a, "--sysfs-root") == 0 || strcmp(a, "--disk") == 0 ||
		            strcmp(a, "--interval-ms") == 0) && i + 1 < argc) {
			const char *v = argv[++i];
			if (strcmp(a, "--sysfs-root") == 0) {
				root = v;
			} else if (strcmp(a, "--disk") == 0) {
				disk = v;
			} else {
				char *end;
				errno = 0;
				interval_ms = strtol(v, &end, 10);
				if (errno || end == v || *end || interval_ms < 0 || interval_ms > 600000) {
					fprintf(stderr, "hetlab probe: --interval-ms: expected 0..600000, got '%s'\n", v);
					return 2;
				}
			}
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(PROBE_USAGE, stdout);
			return 0;
		} else {
			fprintf(stderr, "hetlab probe: unexpected argument '%s'\n" PROBE_USAGE, a);
			return 2;
		}
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
	run_probe(p);
	nvml_probe_read(getenv("HETLAB_NVML_LIB"), &p->gpus);
	int rc = 0;
	if (json)
		rc = print_json(p);
	else
		print_text(p);
	free(p);
	return rc;
}
