/* Failures, health and fault events loader (config/faultcfg.c) and the
 * fault defaults (sim/fault.c): good blocks override fault_cfg_init() key
 * by key; fault, join and leave events come out resolved and in time
 * order, a join adding its rack and nodes to the cluster; every bad input
 * fails with the file and the JSON path in its message, leaves the
 * defaults and takes the joined racks and nodes back off. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cluster.h"
#include "sim/fault.h"
#include "config/faultcfg.h"
#include "config/jv.h"

static json_t *parse(const char *text)
{
	json_error_t je;
	json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!o)
		fail_msg("test JSON does not parse: %s (%s)", je.text, text);
	return o;
}

/* Two racks: r1 holds two 8-GPU nodes, cpu1 one CPU node. Types: "g8", "cpu". */
static void build(struct cluster *cl)
{
	cluster_init(cl);
	assert_non_null(cl->cat.gpus = calloc(1, sizeof *cl->cat.gpus));
	cl->cat.ngpus = 1;
	snprintf(cl->cat.gpus[0].name, sizeof cl->cat.gpus[0].name, "G-80GB");
	cl->cat.gpus[0].mem_mib = 80 * 1024;
	cl->cat.gpus[0].rel_speed = 1;
	struct node_type g8 = { .name = "g8", .gpu_model = 0, .gpus = 8, .cpu_model = -1, .sockets = 2,
	                        .cores = 64, .mem_mib = 1 << 20 };
	struct node_type cpu = { .name = "cpu", .gpu_model = -1, .cpu_model = -1, .sockets = 1, .cores = 32,
	                         .mem_mib = 1 << 18 };
	assert_int_equal(cluster_add_type(cl, &g8), 0);
	assert_int_equal(cluster_add_type(cl, &cpu), 1);
	assert_int_equal(cluster_add_rack(cl, "r1", 40000, COOL_AIR), 0);
	assert_int_equal(cluster_add_nodes(cl, 0, 0, 2), 0);
	assert_int_equal(cluster_add_rack(cl, "cpu1", 20000, COOL_LIQUID), 1);
	assert_int_equal(cluster_add_nodes(cl, 1, 1, 1), 0);
}

/* Loads scenario text into *c on cl; err gets the message. */
static int load(struct cluster *cl, const char *text, struct fault_cfg *c, char *err, size_t len)
{
	json_t *o = parse(text);
	struct jv v = { .file = "scn.json", .err = err, .errlen = len };
	err[0] = '\0';
	memset(c, 0x5a, sizeof *c);
	int rc = fault_load(&v, cl, o, c);
	json_decref(o);
	assert_int_equal(rc != 0, v.failed);
	return rc;
}

static bool proc_equal(const struct fault_proc *a, const struct fault_proc *b)
{
	return a->dist == b->dist && a->mtbf_s == b->mtbf_s && a->shape == b->shape && a->scale_s == b->scale_s &&
	       a->repair_s == b->repair_s && a->value == b->value;
}

/* Field by field: struct copies need not keep padding bytes. */
static bool cfg_equal(const struct fault_cfg *a, const struct fault_cfg *b)
{
	bool eq = a->migrate == b->migrate && a->nev == b->nev && a->ev == b->ev;
	for (int k = 0; k < FAULT_NKIND; k++)
		eq = eq && proc_equal(&a->proc[k], &b->proc[k]);
	const struct health_cfg *x = &a->health, *y = &b->health;
	return eq && x->enabled == y->enabled && x->fail_jobs == y->fail_jobs &&
	       x->fail_window_us == y->fail_window_us && x->flaps == y->flaps &&
	       x->flap_window_us == y->flap_window_us && x->min_gpu_speed == y->min_gpu_speed &&
	       x->max_nic_loss == y->max_nic_loss && x->smart == y->smart;
}

/* `text` must fail with a message naming the file and holding want1 (and
 * want2); the configuration is the defaults and the cluster as built. */
static void expect(const char *text, const char *want1, const char *want2)
{
	struct cluster cl;
	struct fault_cfg c, def;
	char err[1024];
	build(&cl);
	fault_cfg_init(&def);
	if (load(&cl, text, &c, err, sizeof err) == 0) {
		fault_cfg_fini(&c);
		cluster_fini(&cl);
		fail_msg("%s loaded, expected an error with \"%s\"", text, want1);
	}
	if (strncmp(err, "scn.json: $", 11) != 0 || !strstr(err, want1) || (want2 && !strstr(err, want2)))
		fail_msg("error \"%s\" lacks \"scn.json: $\", \"%s\"%s%s", err, want1, want2 ? " / " : "",
		         want2 ? want2 : "");
	assert_true(cfg_equal(&c, &def));
	assert_int_equal(cl.nracks, 2);
	assert_int_equal(cl.nnodes, 3);
	assert_int_equal(cl.nleaves, 2);
	fault_cfg_fini(&c);
	cluster_fini(&cl);
}

static void test_kinds_and_defaults(void **st)
{
	(void)st;
	static const char *const names[FAULT_NKIND] = { "node_crash", "gpu_xid", "gpu_degrade", "nic", "smart",
		"driver" };
	static const double repair_h[FAULT_NKIND] = { 4, 8, 24, 2, 72, 24 };
	for (int k = 0; k < FAULT_NKIND; k++) {
		assert_string_equal(fault_kind_name(k), names[k]);
		assert_int_equal(fault_kind_parse(names[k]), k);
	}
	assert_string_equal(fault_kind_name(-1), "?");
	assert_string_equal(fault_kind_name(FAULT_NKIND), "?");
	assert_int_equal(fault_kind_parse("ecc"), -1);
	assert_int_equal(fault_kind_parse(""), -1);

	struct fault_cfg c;
	fault_cfg_init(&c);
	for (int k = 0; k < FAULT_NKIND; k++) {
		assert_int_equal(c.proc[k].dist, FDIST_NONE);
		assert_true(c.proc[k].repair_s == repair_h[k] * 3600);
	}
	assert_true(c.proc[FAULT_GPU_DEGRADE].value == 0.5);
	assert_true(c.proc[FAULT_NIC].value == 0.02);
	assert_true(c.proc[FAULT_NODE_CRASH].value == 0);
	assert_int_equal(c.migrate, MIGRATE_CHECKPOINTED);
	assert_false(c.health.enabled);
	assert_int_equal(c.health.fail_jobs, 3);
	assert_true(c.health.fail_window_us == SIMTIME_HOUR);
	assert_int_equal(c.health.flaps, 3);
	assert_true(c.health.flap_window_us == SIMTIME_DAY);
	assert_true(c.health.min_gpu_speed == 0.8 && c.health.max_nic_loss == 0.01);
	assert_true(c.health.smart);
	assert_null(c.ev);
	assert_int_equal(c.nev, 0);
	/* fini frees the events and leaves the defaults */
	assert_non_null(c.ev = malloc(3 * sizeof *c.ev));
	c.nev = 3;
	c.migrate = MIGRATE_ALL;
	fault_cfg_fini(&c);
	struct fault_cfg def;
	fault_cfg_init(&def);
	assert_true(cfg_equal(&c, &def));
}

static void test_absent_and_others(void **st)
{
	(void)st;
	struct cluster cl;
	struct fault_cfg c, def;
	char err[512];
	build(&cl);
	fault_cfg_init(&def);
	assert_int_equal(load(&cl, "{\"name\": \"x\"}", &c, err, sizeof err), 0);
	assert_true(cfg_equal(&c, &def));
	fault_cfg_fini(&c);
	/* Other loaders' entries, and ones that are not objects, are skipped. */
	int rc = load(&cl, "{\"events\": [{\"at\": 5, \"approve\": \"t0\"}, 7,"
	              " {\"at\": 1, \"rack\": \"r1\", \"rack_cap_kw\": 3}, {\"at\": 1}]}", &c, err, sizeof err);
	if (rc)
		fail_msg("%s", err);
	assert_true(cfg_equal(&c, &def));
	fault_cfg_fini(&c);
	assert_int_equal(load(&cl, "{\"events\": []}", &c, err, sizeof err), 0);
	assert_true(cfg_equal(&c, &def));
	fault_cfg_fini(&c);
	/* a failed jv context fails at once */
	json_t *o = parse("{}");
	struct jv v = { .file = "scn.json", .err = err, .errlen = sizeof err, .failed = true };
	assert_int_equal(fault_load(&v, &cl, o, &c), -1);
	assert_true(cfg_equal(&c, &def));
	json_decref(o);
	assert_int_equal(cl.nnodes, 3);
	cluster_fini(&cl);
}

static void test_failures_good(void **st)
{
	(void)st;
	struct cluster cl;
	struct fault_cfg c, def;
	char err[512];
	build(&cl);
	fault_cfg_init(&def);
	int rc = load(&cl, "{\"failures\": {\"migrate\": \"all\","
	              " \"node_crash\": {\"mtbf_h\": 2000, \"repair_h\": 6},"
	              " \"gpu_xid\": {\"weibull\": {\"shape\": 0.7, \"scale_h\": 9000}},"
	              " \"gpu_degrade\": {\"mtbf_h\": 50000, \"value\": 0.6},"
	              " \"nic\": {\"repair_h\": 0.5, \"value\": 0.1},"
	              " \"smart\": {}}}", &c, err, sizeof err);
	if (rc)
		fail_msg("%s", err);
	assert_int_equal(c.migrate, MIGRATE_ALL);
	const struct fault_proc *p = c.proc;
	assert_int_equal(p[FAULT_NODE_CRASH].dist, FDIST_EXP);
	assert_true(p[FAULT_NODE_CRASH].mtbf_s == 2000 * 3600.0 && p[FAULT_NODE_CRASH].repair_s == 6 * 3600.0);
	assert_int_equal(p[FAULT_GPU_XID].dist, FDIST_WEIBULL);
	assert_true(p[FAULT_GPU_XID].shape == 0.7 && p[FAULT_GPU_XID].scale_s == 9000 * 3600.0);
	assert_true(p[FAULT_GPU_XID].repair_s == 8 * 3600.0);
	assert_int_equal(p[FAULT_GPU_DEGRADE].dist, FDIST_EXP);
	assert_true(p[FAULT_GPU_DEGRADE].value == 0.6 && p[FAULT_GPU_DEGRADE].repair_s == 24 * 3600.0);
	/* a kind without a process: its repair time and value for events */
	assert_int_equal(p[FAULT_NIC].dist, FDIST_NONE);
	assert_true(p[FAULT_NIC].repair_s == 1800 && p[FAULT_NIC].value == 0.1);
	assert_true(proc_equal(&p[FAULT_SMART], &def.proc[FAULT_SMART]));
	assert_true(proc_equal(&p[FAULT_DRIVER], &def.proc[FAULT_DRIVER]));
	assert_false(c.health.enabled);
	fault_cfg_fini(&c);
	assert_int_equal(load(&cl, "{\"failures\": {\"migrate\": \"none\"}}", &c, err, sizeof err), 0);
	assert_int_equal(c.migrate, MIGRATE_NONE);
	fault_cfg_fini(&c);
	assert_int_equal(load(&cl, "{\"failures\": {\"migrate\": \"checkpointed\"}}", &c, err, sizeof err), 0);
	assert_int_equal(c.migrate, MIGRATE_CHECKPOINTED);
	fault_cfg_fini(&c);
	assert_int_equal(load(&cl, "{\"failures\": {}}", &c, err, sizeof err), 0);
	assert_true(cfg_equal(&c, &def));
	fault_cfg_fini(&c);
	cluster_fini(&cl);
}

static void test_health_good(void **st)
{
	(void)st;
	struct cluster cl;
	struct fault_cfg c, def;
	char err[512];
	build(&cl);
	fault_cfg_init(&def);
	/* presence alone turns the monitor on, with the defaults */
	assert_int_equal(load(&cl, "{\"health\": {}}", &c, err, sizeof err), 0);
	assert_true(c.health.enabled);
	def.health.enabled = true;
	assert_true(cfg_equal(&c, &def));
	fault_cfg_fini(&c);
	int rc = load(&cl, "{\"health\": {\"fail_jobs\": 5, \"fail_window_h\": 0.5, \"flaps\": 0,"
	              " \"flap_window_h\": 48, \"min_gpu_speed\": 0.9, \"max_nic_loss\": 0.05, \"smart\": false}}",
	              &c, err, sizeof err);
	if (rc)
		fail_msg("%s", err);
	const struct health_cfg *h = &c.health;
	assert_true(h->enabled);
	assert_int_equal(h->fail_jobs, 5);
	assert_true(h->fail_window_us == 30 * SIMTIME_MIN);
	assert_int_equal(h->flaps, 0);
	assert_true(h->flap_window_us == 2 * SIMTIME_DAY);
	assert_true(h->min_gpu_speed == 0.9 && h->max_nic_loss == 0.05);
	assert_false(h->smart);
	fault_cfg_fini(&c);
	assert_int_equal(load(&cl, "{\"health\": {\"fail_jobs\": 16, \"min_gpu_speed\": 0, \"max_nic_loss\": 1}}",
	                      &c, err, sizeof err), 0);
	assert_int_equal(c.health.fail_jobs, HEALTH_RING);
	fault_cfg_fini(&c);
	cluster_fini(&cl);
}

static void test_events_good(void **st)
{
	(void)st;
	struct cluster cl;
	struct fault_cfg c;
	char err[512];
	build(&cl);
	int rc = load(&cl, "{\"failures\": {\"nic\": {\"value\": 0.07}},"
	              " \"events\": ["
	              "  {\"at\": \"2d\", \"fail\": \"gpu_degrade\", \"node\": \"r1-n2\", \"gpu\": 7, \"value\": 0.25,"
	              "   \"repair_h\": 12},"
	              "  {\"at\": \"1h\", \"approve\": \"t0\"},"
	              "  {\"at\": \"1d\", \"fail\": \"nic\", \"node\": \"cpu1-n1\"},"
	              "  {\"at\": 3600, \"fail\": \"gpu_xid\", \"node\": \"r1-n1\"},"
	              "  {\"at\": \"3d\", \"fail\": \"node_crash\", \"node\": \"new-n2\"},"
	              "  {\"at\": \"3d\", \"node_join\": {\"rack\": \"new\", \"power_kw\": 15, \"cooling\": \"liquid\","
	              "   \"type\": \"g8\", \"count\": 2}},"
	              "  {\"at\": \"5d\", \"node_leave\": \"r1-n1\"},"
	              "  {\"at\": \"4d\", \"fail\": \"gpu_degrade\", \"node\": \"new-n1\"},"
	              "  {\"at\": \"4d\", \"node_join\": {\"rack\": \"cpu2\", \"power_kw\": 5, \"type\": \"cpu\"}},"
	              "  {\"at\": \"6d\", \"fail\": \"smart\", \"node\": \"cpu2-n1\", \"repair_h\": 1}]}",
	              &c, err, sizeof err);
	if (rc)
		fail_msg("%s", err);
	/* the joined racks and nodes */
	assert_int_equal(cl.nracks, 4);
	assert_int_equal(cl.nnodes, 6);
	assert_string_equal(cl.racks[2].name, "new");
	assert_true(cl.racks[2].cap_w == 15000);
	assert_int_equal(cl.racks[2].cooling, COOL_LIQUID);
	assert_int_equal(cl.racks[2].first_node, 3);
	assert_int_equal(cl.racks[2].nnodes, 2);
	assert_string_equal(cl.nodes[3].name, "new-n1");
	assert_string_equal(cl.nodes[4].name, "new-n2");
	assert_int_equal(cl.nodes[4].ngpus, 8);
	assert_string_equal(cl.racks[3].name, "cpu2");
	assert_int_equal(cl.racks[3].cooling, COOL_AIR);
	assert_string_equal(cl.nodes[5].name, "cpu2-n1");
	assert_int_equal(cl.nodes[5].type, 1);

	struct want {
		simtime at;
		int kind, fault, node, gpu;
		double value, repair_s;
	} want[] = {
		{ SIMTIME_HOUR, FEV_FAULT, FAULT_GPU_XID, 0, 0, 0, -1 },
		{ SIMTIME_DAY, FEV_FAULT, FAULT_NIC, 2, -1, 0.07, -1 },
		{ 2 * SIMTIME_DAY, FEV_FAULT, FAULT_GPU_DEGRADE, 1, 7, 0.25, 12 * 3600.0 },
		/* at 3d the joins come before the crash written above them */
		{ 3 * SIMTIME_DAY, FEV_JOIN, -1, 3, -1, 0, -1 },
		{ 3 * SIMTIME_DAY, FEV_JOIN, -1, 4, -1, 0, -1 },
		{ 3 * SIMTIME_DAY, FEV_FAULT, FAULT_NODE_CRASH, 4, -1, 0, -1 },
		{ 4 * SIMTIME_DAY, FEV_JOIN, -1, 5, -1, 0, -1 },
		{ 4 * SIMTIME_DAY, FEV_FAULT, FAULT_GPU_DEGRADE, 3, 0, 0.5, -1 },
		{ 5 * SIMTIME_DAY, FEV_LEAVE, -1, 0, -1, 0, -1 },
		{ 6 * SIMTIME_DAY, FEV_FAULT, FAULT_SMART, 5, -1, 0, 3600 },
	};
	int nwant = (int)(sizeof want / sizeof want[0]);
	assert_int_equal(c.nev, nwant);
	for (int k = 0; k < nwant; k++) {
		const struct fault_event *e = &c.ev[k];
		if (e->at_us != want[k].at || e->kind != want[k].kind || e->fault != want[k].fault ||
		    e->node != want[k].node || e->gpu != want[k].gpu || e->value != want[k].value ||
		    e->repair_s != want[k].repair_s)
			fail_msg("event %d: at %lld kind %d fault %d node %d gpu %d value %g repair %g", k,
			         (long long)e->at_us, (int)e->kind, (int)e->fault, (int)e->node, (int)e->gpu, e->value,
			         e->repair_s);
	}
	fault_cfg_fini(&c);
	/* The joined nodes are ordinary nodes to cluster_finish. */
	char why[256];
	if (cluster_finish(&cl, why, sizeof why))
		fail_msg("%s", why);
	assert_int_equal(cl.ngpu_all, 4 * 8);
	assert_int_equal(cl.total_gpus, 4 * 8);
	cluster_fini(&cl);
}

static void test_bad_blocks(void **st)
{
	(void)st;
	expect("{\"failures\": []}", "$.failures: expected an object of \"migrate\" and fault kinds",
	       "node_crash, gpu_xid, gpu_degrade, nic, smart, driver), got an array");
	expect("{\"failures\": {\"gpu_ecc\": {}}}", "$.failures: unknown key \"gpu_ecc\"",
	       "expected one of: migrate, node_crash, gpu_xid, gpu_degrade, nic, smart, driver");
	expect("{\"failures\": {\"migrate\": \"some\"}}",
	       "$.failures.migrate: expected \"none\", \"checkpointed\" or \"all\", got \"some\"", NULL);
	expect("{\"failures\": {\"migrate\": true}}",
	       "$.failures.migrate: expected \"none\", \"checkpointed\" or \"all\", got a boolean", NULL);
	expect("{\"failures\": {\"nic\": 5}}", "$.failures.nic: expected an object ({\"mtbf_h\": H}", "got an integer");
	expect("{\"failures\": {\"nic\": {\"mtbf\": 5}}}", "$.failures.nic: unknown key \"mtbf\"",
	       "mtbf_h, weibull, repair_h, value");
	expect("{\"failures\": {\"nic\": {\"mtbf_h\": 0}}}", "$.failures.nic.mtbf_h: expected a number in (0, 1e+07], got 0",
	       NULL);
	expect("{\"failures\": {\"nic\": {\"mtbf_h\": \"5h\"}}}", "$.failures.nic.mtbf_h: expected a number", "a string");
	expect("{\"failures\": {\"nic\": {\"mtbf_h\": 5, \"weibull\": {\"shape\": 1, \"scale_h\": 5}}}}",
	       "$.failures.nic: expected either \"mtbf_h\" (exponential) or \"weibull\", not both", NULL);
	expect("{\"failures\": {\"gpu_xid\": {\"weibull\": 2}}}",
	       "$.failures.gpu_xid.weibull: expected an object {\"shape\": k, \"scale_h\": H}, got an integer", NULL);
	expect("{\"failures\": {\"gpu_xid\": {\"weibull\": {\"scale_h\": 5}}}}",
	       "$.failures.gpu_xid.weibull.shape: missing (expected a number in (0, 100])", NULL);
	expect("{\"failures\": {\"gpu_xid\": {\"weibull\": {\"shape\": 1}}}}",
	       "$.failures.gpu_xid.weibull.scale_h: missing", NULL);
	expect("{\"failures\": {\"gpu_xid\": {\"weibull\": {\"shape\": 101, \"scale_h\": 1}}}}",
	       "$.failures.gpu_xid.weibull.shape: expected a number in (0, 100], got 101", NULL);
	expect("{\"failures\": {\"gpu_xid\": {\"weibull\": {\"shape\": 1, \"scale_h\": 1, \"loc\": 0}}}}",
	       "$.failures.gpu_xid.weibull: unknown key \"loc\" (expected one of: shape, scale_h)", NULL);
	expect("{\"failures\": {\"smart\": {\"repair_h\": 0}}}",
	       "$.failures.smart.repair_h: expected a number in (0, 100000], got 0", NULL);
	expect("{\"failures\": {\"node_crash\": {\"value\": 0.5}}}",
	       "$.failures.node_crash.value: a node_crash fault has no value (only gpu_degrade and nic have one)", NULL);
	expect("{\"failures\": {\"gpu_degrade\": {\"value\": 1.5}}}",
	       "$.failures.gpu_degrade.value: expected a number in (0, 1], got 1.5", NULL);
	expect("{\"failures\": {\"nic\": {\"value\": 0}}}", "$.failures.nic.value: expected a number in (0, 1], got 0",
	       NULL);
	/* a later error still leaves the earlier kinds' changes undone */
	expect("{\"failures\": {\"migrate\": \"all\", \"node_crash\": {\"mtbf_h\": 5}, \"nic\": {\"mtbf_h\": -1}}}",
	       "$.failures.nic.mtbf_h:", NULL);

	expect("{\"health\": true}", "$.health: expected an object (fail_jobs, fail_window_h", "got a boolean");
	expect("{\"health\": {\"drain\": 1}}", "$.health: unknown key \"drain\"",
	       "fail_jobs, fail_window_h, flaps, flap_window_h, min_gpu_speed, max_nic_loss, smart");
	expect("{\"health\": {\"fail_jobs\": 17}}", "$.health.fail_jobs: expected an integer in [0, 16], got 17", NULL);
	expect("{\"health\": {\"fail_jobs\": 2.0}}", "$.health.fail_jobs: expected an integer", "got a number");
	expect("{\"health\": {\"flaps\": -1}}", "$.health.flaps: expected an integer in [0, 16], got -1", NULL);
	expect("{\"health\": {\"fail_window_h\": 0}}", "$.health.fail_window_h: expected a number in (0, 100000], got 0",
	       NULL);
	expect("{\"health\": {\"flap_window_h\": 1e6}}", "$.health.flap_window_h: expected a number in (0, 100000]", NULL);
	expect("{\"health\": {\"min_gpu_speed\": 1.2}}", "$.health.min_gpu_speed: expected a number in [0, 1], got 1.2",
	       NULL);
	expect("{\"health\": {\"max_nic_loss\": -0.1}}", "$.health.max_nic_loss: expected a number in [0, 1]", NULL);
	expect("{\"health\": {\"smart\": 1}}", "$.health.smart: expected true or false, got an integer", NULL);
}

static void test_bad_events(void **st)
{
	(void)st;
	expect("{\"events\": {}}", "$.events: expected an array, got an object", NULL);
	expect("{\"events\": [{\"at\": 1, \"fail\": \"nic\", \"node_leave\": \"r1-n1\"}]}",
	       "$.events[0]: expected one event kind, got both \"fail\" and \"node_leave\"", NULL);
	expect("{\"events\": [{\"at\": 1, \"fail\": \"nic\", \"node\": \"r1-n1\", \"approve\": \"t\"}]}",
	       "$.events[0]: unknown key \"approve\"", "at, fail, node, gpu, value, repair_h");
	/* fail */
	expect("{\"events\": [{\"fail\": \"nic\", \"node\": \"r1-n1\"}]}", "$.events[0].at: missing", NULL);
	expect("{\"events\": [{\"at\": \"2 days\", \"fail\": \"nic\", \"node\": \"r1-n1\"}]}",
	       "$.events[0].at: expected a time", "\"2 days\"");
	expect("{\"events\": [{\"at\": 1, \"fail\": \"ecc\", \"node\": \"r1-n1\"}]}",
	       "$.events[0].fail: unknown fault kind \"ecc\" (expected one of: node_crash, gpu_xid, gpu_degrade, nic, "
	       "smart, driver)", NULL);
	expect("{\"events\": [{\"at\": 1, \"fail\": 3, \"node\": \"r1-n1\"}]}",
	       "$.events[0].fail: expected a fault kind (one of: node_crash", "got an integer");
	expect("{\"events\": [{\"at\": 1, \"fail\": \"nic\"}]}",
	       "$.events[0].node: missing (expected a node name, \"<rack>-n<k>\")", NULL);
	expect("{\"events\": [{\"at\": 1, \"fail\": \"nic\", \"node\": 0}]}",
	       "$.events[0].node: expected a node name (a string), got an integer", NULL);
	expect("{\"events\": [{\"at\": 1, \"fail\": \"nic\", \"node\": \"r1-n9\"}]}",
	       "$.events[0].node: unknown node \"r1-n9\" (rack \"r1\" has r1-n1 ... r1-n2)", NULL);
	expect("{\"events\": [{\"at\": 1, \"fail\": \"nic\", \"node\": \"x7\"}]}",
	       "$.events[0].node: unknown node \"x7\" (nodes are named <rack>-n<k>; the cluster has r1-n1 ... r1-n2, "
	       "cpu1-n1)", NULL);
	expect("{\"events\": [{\"at\": 1, \"fail\": \"gpu_xid\", \"node\": \"cpu1-n1\"}]}",
	       "$.events[0].node: node \"cpu1-n1\" has no GPUs (a gpu_xid fault hits one)", NULL);
	expect("{\"events\": [{\"at\": 1, \"fail\": \"gpu_xid\", \"node\": \"r1-n1\", \"gpu\": 8}]}",
	       "$.events[0].gpu: expected an integer in [0, 7] (node \"r1-n1\" has 8 GPUs), got 8", NULL);
	expect("{\"events\": [{\"at\": 1, \"fail\": \"gpu_xid\", \"node\": \"r1-n1\", \"gpu\": -1}]}",
	       "$.events[0].gpu: expected an integer in [0, 7]", "got -1");
	expect("{\"events\": [{\"at\": 1, \"fail\": \"gpu_xid\", \"node\": \"r1-n1\", \"gpu\": \"0\"}]}",
	       "$.events[0].gpu: expected an integer in [0, 7], got a string", NULL);
	expect("{\"events\": [{\"at\": 1, \"fail\": \"nic\", \"node\": \"r1-n1\", \"gpu\": 0}]}",
	       "$.events[0].gpu: a nic fault hits the whole node (gpu is only for gpu_xid and gpu_degrade)", NULL);
	expect("{\"events\": [{\"at\": 1, \"fail\": \"driver\", \"node\": \"r1-n1\", \"value\": 0.5}]}",
	       "$.events[0].value: a driver fault has no value (only gpu_degrade and nic have one)", NULL);
	expect("{\"events\": [{\"at\": 1, \"fail\": \"gpu_degrade\", \"node\": \"r1-n1\", \"value\": 2}]}",
	       "$.events[0].value: expected a number in (0, 1], got 2", NULL);
	expect("{\"events\": [{\"at\": 1, \"fail\": \"nic\", \"node\": \"r1-n1\", \"repair_h\": -2}]}",
	       "$.events[0].repair_h: expected a number in (0, 100000], got -2", NULL);
	/* node_leave */
	expect("{\"events\": [{\"at\": 1, \"node_leave\": [\"r1-n1\"]}]}",
	       "$.events[0].node_leave: expected a node name (a string), got an array", NULL);
	expect("{\"events\": [{\"at\": 1, \"node_leave\": \"r2-n1\"}]}",
	       "$.events[0].node_leave: unknown node \"r2-n1\" (nodes are named <rack>-n<k>", NULL);
	expect("{\"events\": [{\"at\": 1, \"node_leave\": \"r1-n1\", \"node\": \"r1-n2\"}]}",
	       "$.events[0]: unknown key \"node\" (expected one of: at, node_leave)", NULL);
	expect("{\"events\": [{\"at\": \"1d\", \"node_leave\": \"r1-n1\"}, {\"at\": \"2d\", \"node_leave\": \"r1-n1\"}]}",
	       "$.events[1].node_leave: node \"r1-n1\" already leaves at 1d ($.events[0])", NULL);
	expect("{\"events\": [{\"at\": \"2d\", \"fail\": \"nic\", \"node\": \"r1-n1\"},"
	       " {\"at\": \"36h\", \"node_leave\": \"r1-n1\"}]}",
	       "$.events[0]: node \"r1-n1\" leaves at 36h ($.events[1]); a fault at 2d comes at or after that", NULL);
	/* node_join */
	expect("{\"events\": [{\"at\": 1, \"node_join\": \"new\"}]}",
	       "$.events[0].node_join: expected an object (rack, power_kw, cooling, type, count), got a string", NULL);
	expect("{\"events\": [{\"node_join\": {\"rack\": \"new\", \"power_kw\": 5, \"type\": \"g8\"}}]}",
	       "$.events[0].at: missing", NULL);
	expect("{\"events\": [{\"at\": 1, \"node_join\": {\"rack\": \"new\", \"power_kw\": 5, \"type\": \"g8\", \"leaf\": \"x\"}}]}",
	       "$.events[0].node_join: unknown key \"leaf\" (expected one of: rack, power_kw, cooling, type, count)", NULL);
	expect("{\"events\": [{\"at\": 1, \"node_join\": {\"power_kw\": 5, \"type\": \"g8\"}}]}",
	       "$.events[0].node_join.rack: missing (expected a string)", NULL);
	expect("{\"events\": [{\"at\": 1, \"node_join\": {\"rack\": \"\", \"power_kw\": 5, \"type\": \"g8\"}}]}",
	       "$.events[0].node_join.rack: expected a non-empty string", NULL);
	expect("{\"events\": [{\"at\": 1, \"node_join\": {\"rack\": \"abcdefghijabcdefghijabcdefghijXY\", \"power_kw\": 5,"
	       " \"type\": \"g8\"}}]}",
	       "$.events[0].node_join.rack: too long (at most 31 characters)", NULL);
	expect("{\"events\": [{\"at\": 1, \"node_join\": {\"rack\": \"r1\", \"power_kw\": 5, \"type\": \"g8\"}}]}",
	       "$.events[0].node_join.rack: rack \"r1\" already exists (node_join adds a new rack)", NULL);
	expect("{\"events\": [{\"at\": 1, \"node_join\": {\"rack\": \"n\", \"power_kw\": 5, \"type\": \"g8\"}},"
	       " {\"at\": 2, \"node_join\": {\"rack\": \"n\", \"power_kw\": 5, \"type\": \"g8\"}}]}",
	       "$.events[1].node_join.rack: rack \"n\" already exists", NULL);
	expect("{\"events\": [{\"at\": 1, \"node_join\": {\"rack\": \"n\", \"type\": \"g8\"}}]}",
	       "$.events[0].node_join.power_kw: missing (expected a number in [0.001, 10000])", NULL);
	expect("{\"events\": [{\"at\": 1, \"node_join\": {\"rack\": \"n\", \"power_kw\": 0, \"type\": \"g8\"}}]}",
	       "$.events[0].node_join.power_kw: expected a number in [0.001, 10000], got 0", NULL);
	expect("{\"events\": [{\"at\": 1, \"node_join\": {\"rack\": \"n\", \"power_kw\": 5, \"cooling\": \"water\","
	       " \"type\": \"g8\"}}]}",
	       "$.events[0].node_join.cooling: expected \"air\" or \"liquid\", got \"water\"", NULL);
	expect("{\"events\": [{\"at\": 1, \"node_join\": {\"rack\": \"n\", \"power_kw\": 5}}]}",
	       "$.events[0].node_join.type: missing (expected a string)", NULL);
	expect("{\"events\": [{\"at\": 1, \"node_join\": {\"rack\": \"n\", \"power_kw\": 5, \"type\": \"h100\"}}]}",
	       "$.events[0].node_join.type: unknown node type \"h100\" ($.node_types has: g8, cpu)", NULL);
	expect("{\"events\": [{\"at\": 1, \"node_join\": {\"rack\": \"n\", \"power_kw\": 5, \"type\": \"g8\", \"count\": 0}}]}",
	       "$.events[0].node_join.count: expected an integer in [1, 100000], got 0", NULL);
	/* events on joined nodes must not come before the join */
	expect("{\"events\": [{\"at\": \"1d\", \"fail\": \"node_crash\", \"node\": \"n-n1\"},"
	       " {\"at\": \"2d\", \"node_join\": {\"rack\": \"n\", \"power_kw\": 5, \"type\": \"g8\"}}]}",
	       "$.events[0]: node \"n-n1\" joins at 2d ($.events[1]); this event at 1d comes before that", NULL);
	expect("{\"events\": [{\"at\": \"2d\", \"node_join\": {\"rack\": \"n\", \"power_kw\": 5, \"type\": \"g8\"}},"
	       " {\"at\": 90, \"node_leave\": \"n-n1\"}]}",
	       "$.events[1]: node \"n-n1\" joins at 2d ($.events[0]); this event at 90s comes before that", NULL);
	/* an error after a join takes its rack and nodes back off (expect checks) */
	expect("{\"events\": [{\"at\": 1, \"node_join\": {\"rack\": \"n\", \"power_kw\": 5, \"type\": \"g8\", \"count\": 3}},"
	       " {\"at\": 2, \"fail\": \"nic\", \"node\": \"n-n4\"}]}",
	       "$.events[1].node: unknown node \"n-n4\" (rack \"n\" has n-n1 ... n-n3)", NULL);
}

/* Without nodes the unknown-node message says so. */
static void test_empty_cluster(void **st)
{
	(void)st;
	struct cluster cl;
	struct fault_cfg c;
	char err[512];
	cluster_init(&cl);
	assert_int_equal(load(&cl, "{\"events\": [{\"at\": 1, \"node_leave\": \"r1-n1\"}]}", &c, err, sizeof err), -1);
	assert_non_null(strstr(err, "$.events[0].node_leave: unknown node \"r1-n1\" (the cluster has no nodes)"));
	fault_cfg_fini(&c);
	cluster_fini(&cl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds_and_defaults),
		cmocka_unit_test(test_absent_and_others),
		cmocka_unit_test(test_failures_good),
		cmocka_unit_test(test_health_good),
		cmocka_unit_test(test_events_good),
		cmocka_unit_test(test_bad_blocks),
		cmocka_unit_test(test_bad_events),
		cmocka_unit_test(test_empty_cluster),
	};
	return cmocka_run_group_tests_name("faultcfg", tests, NULL, NULL);
}
