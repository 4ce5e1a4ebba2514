/* probe: live mode's host probes (live/hostprobe) on the fake trees under
 * tests/data/sysfs/ — node (a first snapshot), node-t1 (the second: CPU
 * counters and a RAPL counter that wraps), garbage (bad contents) — with
 * every value checked; an empty root; the real host; and `hetlab probe
 * --json` end to end (with NVML absent and through the fake libnvidia-ml).
 * NVML itself is tests/unit/test_nvml.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live/hostprobe.h"
#include "live/nvml.h"
#include "tests/testutil.h"
#include "tests/unit/probe_fixture.h"

/* Index of the first message containing every given piece, or -1. */
static int find_msg(const struct hp_msgs *m, const char *a, const char *b)
{
	for (int i = 0; i < m->n; i++)
		if (strstr(m->text[i], a) && (!b || strstr(m->text[i], b)))
			return i;
	return -1;
}

static void dump_msgs(const struct hp_msgs *m)
{
	for (int i = 0; i < m->n; i++)
		print_message("  %s: %s\n", m->problem[i] ? "problem" : "note", m->text[i]);
}

/* ---- parsing ------------------------------------------------------------- */

static void test_parse_u64(void **state)
{
	(void)state;
	static const struct { const char *s; int rc; uint64_t v; const char *why; } cases[] = {
		{ "0", 0, 0, NULL },
		{ "42\n", 0, 42, NULL },
		{ "  7 \n", 0, 7, NULL },
		{ "+5", 0, 5, NULL },
		{ "18446744073709551615", 0, UINT64_MAX, NULL },
		{ "18446744073709551616", -1, 0, "overflow" },
		{ "99999999999999999999999", -1, 0, "overflow" },
		{ "-1", -1, 0, "negative" },
		{ "", -1, 0, "empty" },
		{ " \n", -1, 0, "empty" },
		{ "abc", -1, 0, "not a number" },
		{ "12abc", -1, 0, "not a number" },
		{ "1 2", -1, 0, "not a number" },
		{ "0x10", -1, 0, "not a number" },
		{ "+", -1, 0, "not a number" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t v = 12345;
		const char *why = NULL;
		int rc = hp_parse_u64(cases[i].s, &v, &why);
		if (rc != cases[i].rc)
			fail_msg("\"%s\": rc %d", cases[i].s, rc);
		if (rc == 0)
			assert_true(v == cases[i].v);
		else
			assert_string_equal(why, cases[i].why);
	}
}

static void test_msgs_capacity(void **state)
{
	(void)state;
	struct hp_msgs m;
	hp_msgs_init(&m);
	for (int i = 0; i < HP_MAX_MSGS + 8; i++)
		hp_msg(&m, i % 2 == 0, "message %d", i);
	assert_int_equal(m.n, HP_MAX_MSGS);
	assert_int_equal(m.dropped, 8);
	assert_int_equal(m.nproblems, (HP_MAX_MSGS + 8) / 2);
	assert_string_equal(m.text[3], "message 3");
	assert_false(m.problem[3]);
	assert_true(m.problem[4]);
}

/* ---- the node tree -------------------------------------------------------- */

static void test_cpu(void **state)
{
	(void)state;
	struct hp_cpustat a, b;
	struct hp_msgs m;
	hp_msgs_init(&m);
	hp_read_cpustat(tree("node"), &a, &m);
	hp_read_cpustat(tree("node-t1"), &b, &m);
	dump_msgs(&m);
	assert_int_equal(m.n, 0);
	assert_int_equal(a.st, HP_OK);
	assert_int_equal(a.ncores, 4);
	assert_true(a.total == 10000 && a.idle == 8000 && a.iowait == 500);
	assert_int_equal(b.st, HP_OK);
	assert_int_equal(b.ncores, 4);
	assert_true(b.total == 11000 && b.idle == 8700 && b.iowait == 550);
	/* busy 1500 -> 1750 over 1000 ticks */
	assert_true(hp_cpu_util(&a, &b) == 0.25);
	/* the wrong order, the same snapshot, an invalid one: no figure */
	assert_true(hp_cpu_util(&b, &a) == -1);
	assert_true(hp_cpu_util(&a, &a) == -1);
	struct hp_cpustat bad = b;
	bad.st = HP_INVALID;
	assert_true(hp_cpu_util(&a, &bad) == -1);
	/* a fully busy interval */
	struct hp_cpustat busy = a;
	busy.total += 300;
	assert_true(hp_cpu_util(&a, &busy) == 1.0);
}

static void test_mem(void **state)
{
	(void)state;
	struct hp_mem mem;
	struct hp_msgs m;
	hp_msgs_init(&m);
	hp_read_mem(tree("node"), &mem, &m);
	assert_int_equal(m.n, 0);
	assert_int_equal(mem.total_kib.st, HP_OK);
	assert_true(mem.total_kib.v == 263921712);
	assert_int_equal(mem.avail_kib.st, HP_OK);
	assert_true(mem.avail_kib.v == 250000000);
}

static void test_rapl_wrap(void **state)
{
	(void)state;
	struct hp_rapl a, b;
	struct hp_msgs m;
	hp_msgs_init(&m);
	hp_read_rapl(tree("node"), &a, &m);
	hp_read_rapl(tree("node-t1"), &b, &m);
	assert_int_equal(m.n, 0);
	/* "intel-rapl" (the control type, no colon) is not a zone */
	assert_int_equal(a.n, 3);
	assert_int_equal(b.n, 3);
	static const char *const dirs[] = { "intel-rapl:0", "intel-rapl:0:0", "intel-rapl:1" };
	static const char *const names[] = { "package-0", "core", "package-1" };
	for (int i = 0; i < 3; i++) {
		assert_string_equal(a.z[i].dir, dirs[i]);
		assert_string_equal(a.z[i].name, names[i]);
		assert_string_equal(b.z[i].dir, dirs[i]);
		assert_int_equal(a.z[i].energy_uj.st, HP_OK);
		assert_int_equal(a.z[i].max_range_uj.st, HP_OK);
		assert_true(a.z[i].max_range_uj.v == 262143328850ULL);
	}
	assert_true(a.z[0].energy_uj.v == 262143000000ULL);
	assert_true(b.z[0].energy_uj.v == 671150);
	/* package-0 wrapped: (262143328850 - 262143000000) + 671150 + 1 = 1000001 µJ in 0.2 s */
	assert_true(hp_rapl_power_w(&a.z[0], &b.z[0], 200000) == 1000001.0 / 200000.0);
	assert_true(hp_rapl_power_w(&a.z[1], &b.z[1], 200000) == 2.0);     /* 400000 µJ */
	assert_true(hp_rapl_power_w(&a.z[2], &b.z[2], 200000) == 100.0);   /* 20 J */
	assert_true(hp_rapl_power_w(&a.z[2], &b.z[2], 0) == -1);
	assert_true(hp_rapl_power_w(&a.z[2], &b.z[2], -5) == -1);
	assert_true(hp_rapl_power_w(&a.z[0], &a.z[0], 1000) == 0.0);

	/* a wrap is impossible to size without a valid range, or with energy above it */
	struct hp_rapl_zone x = a.z[0], y = b.z[0];
	y.max_range_uj.st = HP_ABSENT;
	assert_true(hp_rapl_power_w(&x, &y, 200000) == -1);
	y.max_range_uj.st = HP_INVALID;
	assert_true(hp_rapl_power_w(&x, &y, 200000) == -1);
	y = b.z[0];
	x.energy_uj.v = y.max_range_uj.v + 1;
	assert_true(hp_rapl_power_w(&x, &y, 200000) == -1);
	/* wrap from exactly the maximum to 0 is one microjoule */
	x.energy_uj.v = y.max_range_uj.v;
	y.energy_uj.v = 0;
	assert_true(hp_rapl_power_w(&x, &y, 1) == 1.0);
	x.energy_uj.st = HP_INVALID;
	assert_true(hp_rapl_power_w(&x, &y, 1) == -1);
}

static void test_temps(void **state)
{
	(void)state;
	struct hp_temps *t = calloc(1, sizeof *t);
	struct hp_msgs m;
	assert_non_null(t);
	hp_msgs_init(&m);
	hp_read_temps(tree("node"), t, &m);
	dump_msgs(&m);
	/* natural order: hwmon0, hwmon1, hwmon2, hwmon10; temp1_crit is not an input */
	assert_int_equal(t->n, 5);
	static const struct { const char *hwmon, *chip, *sensor, *label; enum hp_state st; double c; } want[] = {
		{ "hwmon0", "coretemp", "temp1", "Package id 0", HP_OK, 45.0 },
		{ "hwmon0", "coretemp", "temp2", "Core 0", HP_OK, 47.5 },
		{ "hwmon1", "nvme", "temp1", "", HP_OK, 38.85 },   /* no label file */
		{ "hwmon2", "drivetemp", "temp1", "", HP_INVALID, 0 },
		{ "hwmon10", "acpitz", "temp1", "", HP_INVALID, 0 },
	};
	for (int i = 0; i < 5; i++) {
		assert_string_equal(t->t[i].hwmon, want[i].hwmon);
		assert_string_equal(t->t[i].chip, want[i].chip);
		assert_string_equal(t->t[i].sensor, want[i].sensor);
		assert_string_equal(t->t[i].label, want[i].label);
		assert_int_equal(t->t[i].st, want[i].st);
		assert_true(t->t[i].temp_c == want[i].c);
	}
	assert_int_equal(m.n, 2);
	assert_int_equal(m.nproblems, 2);
	assert_true(find_msg(&m, "/sys/class/hwmon/hwmon2/temp1_input: negative (\"-5000\")", NULL) == 0);
	assert_true(find_msg(&m, "/sys/class/hwmon/hwmon10/temp1_input: not a number (\"garbage\")", NULL) == 1);
	free(t);
}

static void test_nics(void **state)
{
	(void)state;
	struct hp_nics *n = calloc(1, sizeof *n);
	struct hp_msgs m;
	assert_non_null(n);
	hp_msgs_init(&m);
	hp_read_nics(tree("node"), n, &m);
	/* bonding_masters is a file, not an interface */
	assert_int_equal(n->n, 3);
	assert_string_equal(n->nic[0].name, "eth0");
	assert_string_equal(n->nic[1].name, "eth1");
	assert_string_equal(n->nic[2].name, "lo");
	static const uint64_t eth0[HP_NIC_NCOUNTERS] = { 3, 0, 12, 1, 1000000, 900000 };
	for (int c = 0; c < HP_NIC_NCOUNTERS; c++) {
		assert_int_equal(n->nic[0].c[c].st, HP_OK);
		assert_true(n->nic[0].c[c].v == eth0[c]);
		assert_int_equal(n->nic[2].c[c].st, HP_OK);
		assert_true(n->nic[2].c[c].v == 0);
	}
	const struct hp_nic *e1 = &n->nic[1];
	assert_int_equal(e1->c[HP_RX_ERRORS].st, HP_INVALID);   /* 2^64 */
	assert_int_equal(e1->c[HP_TX_ERRORS].st, HP_ABSENT);
	assert_int_equal(e1->c[HP_RX_DROPPED].st, HP_OK);
	assert_true(e1->c[HP_RX_DROPPED].v == UINT64_MAX);
	assert_int_equal(e1->c[HP_TX_DROPPED].st, HP_ABSENT);
	assert_int_equal(e1->c[HP_RX_PACKETS].st, HP_OK);
	assert_true(e1->c[HP_RX_PACKETS].v == 42);
	assert_int_equal(e1->c[HP_TX_PACKETS].st, HP_ABSENT);
	assert_int_equal(m.n, 1);
	assert_int_equal(find_msg(&m, "/sys/class/net/eth1/statistics/rx_errors: overflow", NULL), 0);
	assert_string_equal(hp_nic_counter_name(HP_TX_DROPPED), "tx_dropped");
	free(n);
}

static void test_ib(void **state)
{
	(void)state;
	struct hp_ib *ib = calloc(1, sizeof *ib);
	struct hp_msgs m;
	assert_non_null(ib);
	hp_msgs_init(&m);
	hp_read_ib(tree("node"), ib, &m);
	assert_int_equal(m.n, 0);
	assert_int_equal(ib->n, 2);
	const struct hp_ibport *a = &ib->p[0], *b = &ib->p[1];
	assert_string_equal(a->dev, "mlx5_0");
	assert_int_equal(a->port, 1);
	assert_int_equal(a->state_st, HP_OK);
	assert_int_equal(a->state_num, 4);
	assert_string_equal(a->state, "ACTIVE");
	assert_int_equal(a->rate_st, HP_OK);
	assert_true(a->rate_gbps == 200);
	assert_string_equal(a->rate, "200 Gb/sec (4X HDR)");
	assert_string_equal(a->link_layer, "InfiniBand");
	for (int c = 0; c < HP_IB_NCOUNTERS; c++) {
		assert_int_equal(a->c[c].st, HP_OK);
		assert_true(a->c[c].v == 0);
	}
	assert_string_equal(b->dev, "mlx5_1");
	assert_int_equal(b->port, 1);
	assert_int_equal(b->state_num, 1);
	assert_string_equal(b->state, "DOWN");
	assert_true(b->rate_gbps == 100);
	assert_string_equal(b->rate, "100 Gb/sec (4X EDR)");
	assert_string_equal(b->link_layer, "Ethernet");
	assert_true(b->c[HP_IB_SYMBOL_ERROR].v == 7);
	assert_true(b->c[HP_IB_PORT_RCV_ERRORS].v == 2);
	assert_true(b->c[HP_IB_LINK_DOWNED].v == 1);
	assert_string_equal(hp_ib_counter_name(HP_IB_LINK_DOWNED), "link_downed");
	free(ib);
}

static void test_host_node(void **state)
{
	(void)state;
	struct hp_host *h = calloc(1, sizeof *h);
	struct hp_msgs m;
	assert_non_null(h);
	hp_msgs_init(&m);
	hp_read_host(tree("node"), h, &m);
	assert_int_equal(h->cpu.st, HP_OK);
	assert_int_equal(h->rapl.n, 3);
	assert_int_equal(h->temps.n, 5);
	assert_int_equal(h->nics.n, 3);
	assert_int_equal(h->ib.n, 2);
	assert_int_equal(h->disk.st, HP_OK);
	assert_true(h->disk.total_bytes > 0 && h->disk.free_bytes <= h->disk.total_bytes);
	/* the three bad files, nothing else */
	assert_int_equal(m.n, 3);
	assert_int_equal(m.nproblems, 3);

	/* reading twice gives the same bytes */
	struct hp_host *h2 = calloc(1, sizeof *h2);
	struct hp_msgs m2;
	assert_non_null(h2);
	hp_msgs_init(&m2);
	hp_read_host(tree("node"), h2, &m2);
	h2->disk = h->disk;   /* free space may move between the reads */
	assert_memory_equal(h, h2, sizeof *h);
	assert_memory_equal(&m, &m2, sizeof m);
	free(h2);
	free(h);
}

/* ---- bad and missing trees --------------------------------------------------- */

static void test_garbage(void **state)
{
	(void)state;
	struct hp_host *h = calloc(1, sizeof *h);
	struct hp_msgs m;
	assert_non_null(h);
	hp_msgs_init(&m);
	hp_read_host(tree("garbage"), h, &m);
	dump_msgs(&m);

	assert_int_equal(h->cpu.st, HP_INVALID);
	assert_true(find_msg(&m, "/proc/stat:1: cpu line: not a number", NULL) >= 0);
	assert_int_equal(h->mem.total_kib.st, HP_INVALID);
	assert_int_equal(h->mem.avail_kib.st, HP_ABSENT);
	assert_true(find_msg(&m, "/proc/meminfo:1: MemTotal: negative", NULL) >= 0);

	assert_int_equal(h->rapl.n, 1);
	assert_int_equal(h->rapl.z[0].energy_uj.st, HP_INVALID);
	assert_int_equal(h->rapl.z[0].max_range_uj.st, HP_INVALID);
	assert_string_equal(h->rapl.z[0].name, "");
	assert_true(hp_rapl_power_w(&h->rapl.z[0], &h->rapl.z[0], 1000) == -1);
	assert_true(find_msg(&m, "intel-rapl:0/energy_uj: empty", NULL) >= 0);
	assert_true(find_msg(&m, "intel-rapl:0/max_energy_range_uj: overflow", NULL) >= 0);

	assert_int_equal(h->temps.n, 1);
	assert_int_equal(h->temps.t[0].st, HP_INVALID);
	assert_true(find_msg(&m, "hwmon0/temp1_input", "not a temperature") >= 0);

	/* port "x" is skipped with a note; port 1's state and rate are bad */
	assert_int_equal(h->ib.n, 1);
	assert_int_equal(h->ib.p[0].port, 1);
	assert_int_equal(h->ib.p[0].state_st, HP_INVALID);
	assert_int_equal(h->ib.p[0].rate_st, HP_INVALID);
	assert_string_equal(h->ib.p[0].rate, "fast");
	assert_string_equal(h->ib.p[0].link_layer, "");
	assert_int_equal(h->ib.p[0].c[HP_IB_SYMBOL_ERROR].st, HP_ABSENT);
	int k = find_msg(&m, "ports/x: not a port number", NULL);
	assert_true(k >= 0);
	assert_false(m.problem[k]);
	assert_true(find_msg(&m, "ports/1/state: not \"N: STATE\"", NULL) >= 0);
	assert_true(find_msg(&m, "ports/1/rate: not \"N Gb/sec ...\"", NULL) >= 0);

	assert_int_equal(h->nics.n, 0);
	assert_int_equal(m.nproblems, 7);
	assert_int_equal(m.n, 8);
	free(h);
}

static void test_empty_and_missing_root(void **state)
{
	(void)state;
	char dir[] = "/tmp/hetlab-probe-XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct hp_host *h = calloc(1, sizeof *h);
	struct hp_msgs m;
	assert_non_null(h);
	hp_msgs_init(&m);
	hp_read_host(dir, h, &m);
	assert_int_equal(m.n, 0);
	assert_int_equal(h->cpu.st, HP_ABSENT);
	assert_int_equal(h->cpu.ncores, 0);
	assert_int_equal(h->mem.total_kib.st, HP_ABSENT);
	assert_int_equal(h->mem.avail_kib.st, HP_ABSENT);
	assert_int_equal(h->rapl.n + h->temps.n + h->nics.n + h->ib.n, 0);
	assert_int_equal(h->disk.st, HP_OK);
	assert_true(hp_cpu_util(&h->cpu, &h->cpu) == -1);
	rmdir(dir);

	hp_msgs_init(&m);
	hp_read_host("/nonexistent/hetlab-root", h, &m);
	assert_int_equal(h->cpu.st, HP_ABSENT);
	assert_int_equal(h->disk.st, HP_INVALID);
	assert_int_equal(m.n, 1);
	assert_true(find_msg(&m, "/nonexistent/hetlab-root: statvfs:", NULL) == 0);
	free(h);
}

static void test_real_host(void **state)
{
	(void)state;
	struct hp_host *h = calloc(1, sizeof *h), *h1 = calloc(1, sizeof *h1);
	struct hp_msgs m;
	assert_non_null(h);
	assert_non_null(h1);
	hp_msgs_init(&m);
	hp_read_host("/", h, &m);
	usleep(20000);
	hp_read_host("/", h1, &m);
	dump_msgs(&m);
	assert_int_equal(h->cpu.st, HP_OK);
	assert_true(h->cpu.ncores >= 1);
	assert_int_equal(h->mem.total_kib.st, HP_OK);
	assert_true(h->mem.total_kib.v > 0);
	assert_int_equal(h->disk.st, HP_OK);
	double u = hp_cpu_util(&h->cpu, &h1->cpu);
	assert_true(u == -1 || (u >= 0 && u <= 1));
	for (int i = 0; i < h->rapl.n && i < h1->rapl.n; i++) {
		double w = hp_rapl_power_w(&h->rapl.z[i], &h1->rapl.z[i], 20000);
		assert_true(w == -1 || w >= 0);
	}
	free(h1);
	free(h);
}

/* ---- hetlab probe --json ------------------------------------------------------- */

/* The hetlab binary beside this test's build folder (BUILD/tests/test_probe
 * -> BUILD/hetlab), or NULL. */
static const char *hetlab_bin(void)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
	if (n <= 0)
		return NULL;
	path[n] = '\0';
	char *slash = strrchr(path, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	slash = strrchr(path, '/');
	if (!slash)
		return NULL;
	strcpy(slash, "/hetlab");
	return access(path, X_OK) == 0 ? path : NULL;
}

static json_t *run_probe_json(const char *env, const char *root, const char *args, int *status)
{
	const char *bin = hetlab_bin();
	if (!bin)
		return NULL;
	char *out = tu_tmpath(".json");
	char cmd[5 * PATH_MAX + 256];
	snprintf(cmd, sizeof cmd, "%s '%s' probe --sysfs-root '%s' --json --interval-ms 10 %s > '%s'",
	         env, bin, root, args, out);
	*status = system(cmd);
	json_error_t err;
	json_t *j = json_load_file(out, 0, &err);
	if (!j)
		print_message("%s: %s\n", out, err.text);
	unlink(out);
	free(out);
	return j;
}

static void test_cli_json(void **state)
{
	(void)state;
	int status;
	json_t *j = run_probe_json("HETLAB_NVML_LIB=/nonexistent/nvml.so", tree("node"), "", &status);
	if (!j && !hetlab_bin())
		skip();
	assert_non_null(j);
	assert_int_equal(status, 0);
	json_t *labels = json_object_get(j, "labels"), *rd = json_object_get(j, "readings");
	assert_int_equal(json_integer_value(json_object_get(labels, "cpu_cores")), 4);
	assert_true(json_real_value(json_object_get(labels, "mem_total_gib")) == 263921712.0 / 1048576.0);
	assert_int_equal(json_array_size(json_object_get(labels, "nics")), 3);
	json_t *ib1 = json_array_get(json_object_get(labels, "ib_ports"), 1);
	assert_string_equal(json_string_value(json_object_get(ib1, "rate")), "100 Gb/sec (4X EDR)");
	assert_true(json_real_value(json_object_get(ib1, "rate_gbps")) == 100.0);
	assert_string_equal(json_string_value(json_object_get(ib1, "link_layer")), "Ethernet");
	assert_int_equal(json_array_size(json_object_get(labels, "gpus")), 0);
	json_t *ibr1 = json_array_get(json_object_get(rd, "ib_ports"), 1);
	assert_string_equal(json_string_value(json_object_get(ibr1, "state")), "DOWN");
	assert_int_equal(json_integer_value(json_object_get(ibr1, "symbol_error")), 7);
	/* the tree does not move: no CPU figure, 0 W */
	assert_true(json_is_null(json_object_get(rd, "cpu_util")));
	json_t *z0 = json_array_get(json_object_get(rd, "rapl"), 0);
	assert_true(json_real_value(json_object_get(z0, "power_w")) == 0.0);
	json_t *t2 = json_array_get(json_object_get(rd, "temps"), 2);
	assert_true(json_is_null(json_object_get(t2, "label")));
	assert_true(json_real_value(json_object_get(t2, "temp_c")) == 38.85);
	json_t *eth1 = json_array_get(json_object_get(rd, "nics"), 1);
	assert_true(json_is_null(json_object_get(eth1, "rx_errors")));
	assert_int_equal(json_integer_value(json_object_get(eth1, "rx_packets")), 42);
	assert_int_equal(json_array_size(json_object_get(j, "problems")), 3);
	/* a fake root has no topology of its own: a note, and only cpu.threads from /proc/stat */
	json_t *notes = json_object_get(j, "notes");
	assert_int_equal(json_array_size(notes), 2);
	assert_non_null(strstr(json_string_value(json_array_get(notes, 0)), "topology: not read"));
	assert_string_equal(json_string_value(json_array_get(notes, 1)),
	                    "no NVIDIA driver (/nonexistent/nvml.so not found): no GPUs");
	assert_true(json_is_null(json_object_get(j, "topology")));
	json_t *nl = json_object_get(j, "node_labels");
	assert_string_equal(json_string_value(json_object_get(nl, "cpu.threads")), "4");
	assert_string_equal(json_string_value(json_object_get(nl, "gpu.count")), "0");
	assert_string_equal(json_string_value(json_object_get(nl, "mem_gib")), "252");
	assert_null(json_object_get(nl, "cpu.numa"));
	assert_null(json_object_get(nl, "gpu.model"));
	json_decref(j);

	/* a topology from XML */
	char args[PATH_MAX + 64];
	snprintf(args, sizeof args, "--topology-xml '%s/tests/data/topo/xeon-2s-smt.xml'", tu_root());
	j = run_probe_json("HETLAB_NVML_LIB=/nonexistent/nvml.so", tree("node"), args, &status);
	assert_non_null(j);
	assert_int_equal(status, 0);
	json_t *topo = json_object_get(j, "topology");
	assert_int_equal(json_integer_value(json_object_get(topo, "packages")), 2);
	assert_int_equal(json_integer_value(json_object_get(topo, "cores")), 8);
	assert_true(json_is_true(json_object_get(topo, "smt")));
	json_t *n1 = json_array_get(json_object_get(topo, "numa_nodes"), 1);
	assert_string_equal(json_string_value(json_object_get(n1, "cpus")), "4-7,12-15");
	assert_true(json_real_value(json_object_get(n1, "mem_gib")) == 32.0);
	nl = json_object_get(j, "node_labels");
	static const char *const want[][2] = {
		{ "cpu.model", "Intel(R) Xeon(R) Platinum 8480+" }, { "cpu.sockets", "2" }, { "cpu.cores", "8" },
		{ "cpu.threads", "16" }, { "cpu.numa", "2" }, { "cpu.smt", "true" }, { "gpu.count", "0" },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		assert_string_equal(json_string_value(json_object_get(nl, want[i][0])), want[i][1]);
	assert_int_equal(json_array_size(json_object_get(j, "notes")), 1);
	json_decref(j);

	/* GPUs through the fake library, with XIDs during the interval */
	char *so = build_fake_nvml("");
	if (so) {
		char env[PATH_MAX + 64];
		snprintf(env, sizeof env, "FAKE_NVML_EVENTS=0:8:79,0:8:48,1:8:13 HETLAB_NVML_LIB='%s'", so);
		j = run_probe_json(env, tree("node"), args, &status);
		assert_non_null(j);
		json_t *g = json_object_get(json_object_get(j, "labels"), "gpus");
		assert_int_equal(json_array_size(g), 2);
		json_t *g0 = json_array_get(g, 0), *g1 = json_array_get(g, 1);
		assert_string_equal(json_string_value(json_object_get(g0, "name")), "NVIDIA H100 80GB HBM3");
		assert_string_equal(json_string_value(json_object_get(g0, "uuid")), "GPU-5a3c9e1f-0b7d-4c2e-9f61-2d8a4b6c1e01");
		assert_string_equal(json_string_value(json_object_get(g0, "pci_bus_id")), "00000000:1B:00.0");
		assert_int_equal(json_integer_value(json_object_get(g0, "numa")), 0);   /* from the topology */
		assert_int_equal(json_integer_value(json_object_get(g1, "numa")), 1);
		assert_true(json_real_value(json_object_get(g0, "temp_slowdown_c")) == 89.0);
		assert_true(json_real_value(json_object_get(g0, "temp_shutdown_c")) == 92.0);
		assert_true(json_is_null(json_object_get(g1, "temp_shutdown_c")));
		assert_true(json_is_true(json_object_get(json_object_get(g0, "ecc"), "current")));
		assert_true(json_is_null(json_object_get(g1, "ecc")));
		assert_true(json_is_false(json_object_get(json_object_get(g0, "mig"), "current")));
		assert_true(json_is_true(json_object_get(json_object_get(g1, "mig"), "current")));
		json_t *migs = json_object_get(g1, "mig_devices");
		assert_int_equal(json_array_size(migs), 2);
		json_t *jm0 = json_array_get(migs, 0), *jm2 = json_array_get(migs, 1);
		assert_int_equal(json_integer_value(json_object_get(jm2, "gi_slices")), 3);
		assert_int_equal(json_integer_value(json_object_get(jm2, "gi_id")), 1);
		assert_int_equal(json_integer_value(json_object_get(jm2, "ci_id")), 0);
		assert_int_equal(json_integer_value(json_object_get(jm2, "gi_profile_id")), 9);
		json_t *pl = json_object_get(jm2, "placement");
		assert_int_equal(json_integer_value(json_object_get(pl, "start")), 0);
		assert_int_equal(json_integer_value(json_object_get(pl, "size")), 4);
		assert_int_equal(json_integer_value(json_object_get(jm0, "gi_id")), 11);
		pl = json_object_get(jm0, "placement");
		assert_int_equal(json_integer_value(json_object_get(pl, "start")), 4);
		assert_int_equal(json_integer_value(json_object_get(pl, "size")), 1);
		json_t *rg = json_object_get(json_object_get(j, "readings"), "gpus");
		json_t *r0 = json_array_get(rg, 0), *r1 = json_array_get(rg, 1);
		assert_true(json_is_null(json_object_get(r1, "power_w")));
		json_t *cr = json_object_get(r0, "clock_reasons");
		assert_int_equal(json_array_size(cr), 2);
		assert_string_equal(json_string_value(json_array_get(cr, 0)), "sw_power_cap");
		assert_string_equal(json_string_value(json_array_get(cr, 1)), "hw_thermal_slowdown");
		assert_int_equal(json_integer_value(json_object_get(r0, "ecc_uncorrected_aggregate")), 2);
		assert_int_equal(json_integer_value(json_object_get(r0, "retired_pages_dbe")), 2);
		assert_int_equal(json_integer_value(json_object_get(json_object_get(r0, "remapped_rows"), "corrected")), 3);
		assert_true(json_is_null(json_object_get(r1, "remapped_rows")));
		json_t *ev0 = json_object_get(r0, "events"), *ev1 = json_object_get(r1, "events");
		assert_int_equal(json_array_size(json_object_get(ev0, "xids")), 2);
		assert_int_equal(json_integer_value(json_array_get(json_object_get(ev0, "xids"), 0)), 79);
		assert_int_equal(json_integer_value(json_object_get(ev0, "health_events")), 2);
		assert_int_equal(json_integer_value(json_array_get(json_object_get(ev1, "xids"), 0)), 13);
		nl = json_object_get(j, "node_labels");
		static const char *const gwant[][2] = {
			{ "gpu.count", "2" }, { "gpu.model", "NVIDIA H100 80GB HBM3,NVIDIA A100-SXM4-40GB" },
			{ "gpu.mem_gib", "40" }, { "gpu.mig", "true" }, { "gpu.mig_cards", "1" },
		};
		for (size_t i = 0; i < sizeof gwant / sizeof gwant[0]; i++)
			assert_string_equal(json_string_value(json_object_get(nl, gwant[i][0])), gwant[i][1]);
		assert_int_equal(json_array_size(json_object_get(j, "notes")), 0);
		json_decref(j);

		/* and as text */
		char cmd[3 * PATH_MAX + 256];
		char *txt = tu_tmpath(".txt");
		snprintf(cmd, sizeof cmd, "%s '%s' probe --sysfs-root '%s' --interval-ms 10 %s > '%s'", env,
		         hetlab_bin(), tree("node"), args, txt);
		assert_int_equal(system(cmd), 0);
		FILE *f = fopen(txt, "r");
		assert_non_null(f);
		char text[16384];
		size_t n = fread(text, 1, sizeof text - 1, f);
		text[n] = '\0';
		fclose(f);
		static const char *const lines[] = {
			"GPU-5a3c9e1f-0b7d-4c2e-9f61-2d8a4b6c1e01, PCI 00000000:1B:00.0, NUMA 0",
			"slowdown 89 °C, shutdown 92 °C; ECC on; MIG off (on after reset)",
			"    MIG 2         MIG-6a1f0c2e-7b3d-5e4f-8a9b-0c1d2e3f4a03, 19.5 GiB, 3 GPU-instance slices, 42 SMs, "
			"GI 1 CI 0, memory slices 0-3 (profile 9)\n",
			"1 GPU-instance slice, 14 SMs, GI 11 CI 0, memory slice 4 (profile 19)\n",
			"  NUMA 1          CPUs 4-7,12-15 (4 cores, 8 PUs), 32.0 GiB, 1 GPU",
			"  cpu.smt=true",
			"  gpu.mig_cards=1",
			"clock event reasons sw_power_cap,hw_thermal_slowdown",
			"retired pages 1 single-bit, 2 double-bit, retirement pending",
			"events over the interval: 2 XIDs (79,48), 0 double-bit, 0 single-bit ECC; health events 2",
			"events over the interval: 1 XID (13),",
		};
		for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
			if (!strstr(text, lines[i]))
				fail_msg("no \"%s\" in:\n%s", lines[i], text);
		unlink(txt);
		free(txt);
		unlink(so);
		free(so);
	}

	/* the real host, human-readable: runs and exits 0 */
	const char *bin = hetlab_bin();
	char cmd[PATH_MAX + 64];
	snprintf(cmd, sizeof cmd, "'%s' probe --interval-ms 20 > /dev/null", bin);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "'%s' probe --interval-ms x 2> /dev/null", bin);
	assert_int_equal(WEXITSTATUS(system(cmd)), 2);
	snprintf(cmd, sizeof cmd, "'%s' probe --sysfs-root /nonexistent 2> /dev/null", bin);
	assert_int_equal(WEXITSTATUS(system(cmd)), 1);
	/* a topology file that does not load is the user's mistake */
	char cmd2[2 * PATH_MAX + 128];
	snprintf(cmd2, sizeof cmd2, "'%s' probe --topology-xml '%s/tests/data/topo/garbage.xml' 2> /dev/null", bin,
	         tu_root());
	assert_int_equal(WEXITSTATUS(system(cmd2)), 1);
	snprintf(cmd2, sizeof cmd2, "'%s' probe --topology-xml 2> /dev/null", bin);
	assert_int_equal(WEXITSTATUS(system(cmd2)), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_msgs_capacity),
		cmocka_unit_test(test_cpu),
		cmocka_unit_test(test_mem),
		cmocka_unit_test(test_rapl_wrap),
		cmocka_unit_test(test_temps),
		cmocka_unit_test(test_nics),
		cmocka_unit_test(test_ib),
		cmocka_unit_test(test_host_node),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_empty_and_missing_root),
		cmocka_unit_test(test_real_host),
		cmocka_unit_test(test_cli_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
