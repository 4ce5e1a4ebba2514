/* The scenario's "slurm" block (config/slurmcfg.c), its bind to the
 * cluster and the trace (config/slurmbind.c), and `hetlab twin build`
 * (config/twinbuild.c) on the local cluster's files of tests/data/slurm/:
 * values and defaults, the association tree in parent-first order, every
 * loader error with its JSON path, every bind error naming the job, and a
 * built twin loaded back and bound to its own sacct dump. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/scenario.h"
#include "config/slurmcfg.h"
#include "config/twinbuild.h"
#include "tests/testutil.h"
#include "traces/sacct.h"

#define DATA "tests/data/slurm/"

/* Three CPU nodes and a GPU node named as a Slurm site names them. */
static const char scn_fmt[] =
	"{ \"name\": \"t\", \"sample_interval_s\": 0,\n"
	"  \"node_types\": [ { \"name\": \"c\", \"cores\": 4, \"mem_gib\": 4 },\n"
	"    { \"name\": \"g\", \"cores\": 8, \"mem_gib\": 8, \"gpu\": \"A100-SXM-80GB\", \"gpus\": 2,\n"
	"      \"labels\": { \"slurm.gpu_type\": \"a100\" } } ],\n"
	"  \"racks\": [ { \"name\": \"r\", \"power_kw\": 10, \"nodes\": [\n"
	"    { \"type\": \"c\", \"count\": 3, \"names\": [\"c1\", \"c2\", \"c3\"] },\n"
	"    { \"type\": \"g\", \"count\": 1, \"names\": [\"g1\"] } ] } ],\n"
	"  \"slurm\": %s,\n"
	"  \"workload\": { \"trace\": \"none.jsonl\" } }\n";

static const char full[] =
	"{ \"cr_memory\": false, \"def_mem_per_cpu_mib\": 500,\n"
	"  \"partitions\": [ { \"name\": \"cpu\", \"nodes\": [\"c[1-3]\"], \"default\": true, \"max_time_s\": 3600 },\n"
	"                  { \"name\": \"gpu\", \"nodes\": [\"g1\", \"c3\"], \"priority_tier\": 2, \"qos\": \"hi\",\n"
	"                    \"exclusive\": true, \"state\": \"drain\", \"over_time_limit_min\": 5 },\n"
	"                  { \"name\": \"all\", \"nodes\": [\"ALL\"] } ],\n"
	"  \"qos\": [ { \"name\": \"low\" }, { \"name\": \"normal\", \"priority\": 10 },\n"
	"           { \"name\": \"hi\", \"priority\": 100, \"preempt\": [\"low\", \"normal\"], \"preempt_mode\": \"requeue\",\n"
	"             \"grace_s\": 60, \"usage_factor\": 2, \"flags\": [\"NoReserve\", \"DenyOnLimit\"],\n"
	"             \"limits\": { \"max_tres_per_user\": { \"gpu\": 2 }, \"max_jobs\": 4, \"max_wall_s\": 7200 } } ],\n"
	"  \"accounts\": [ { \"name\": \"phys\", \"parent\": \"sci\", \"shares\": 40 },\n"
	"                { \"name\": \"sci\", \"shares\": 60, \"default_qos\": \"low\", \"limits\": { \"grp_tres\": { \"cpu\": 8 } } },\n"
	"                { \"name\": \"ops\", \"shares\": \"parent\" } ],\n"
	"  \"users\": [ { \"name\": \"alice\", \"account\": \"phys\", \"shares\": 3, \"priority\": 7, \"default_qos\": \"hi\" },\n"
	"             { \"name\": \"bob\", \"account\": \"ops\" }, { \"name\": \"alice\", \"account\": \"ops\" } ],\n"
	"  \"node_weights\": { \"c[1-2]\": 10, \"g1\": 50 } }";

static int load(const char *block, struct scenario *sc, char *err, size_t errlen)
{
	size_t n = sizeof scn_fmt + strlen(block);
	char *text = malloc(n);
	snprintf(text, n, scn_fmt, block);
	int rc = scenario_load_text(text, "t.json", ".", sc, err, errlen);
	free(text);
	return rc;
}

static void test_values(void **st)
{
	(void)st;
	struct scenario sc;
	char err[1024];
	if (load(full, &sc, err, sizeof err))
		fail_msg("%s", err);
	const struct slurm_cfg *c = sc.slurm;
	assert_non_null(c);
	assert_false(c->cr_memory);
	assert_true(c->def_mem_per_cpu_mib == 500);
	assert_int_equal(c->npart, 3);
	assert_int_equal(c->default_part, 0);
	assert_true(c->part[0].max_time_s == 3600 && c->part[1].max_time_s == SLURM_UNLIMITED);
	assert_int_equal(c->part[1].prio_tier, 2);
	assert_int_equal(c->part[1].qos, 2);
	assert_true(c->part[1].exclusive && !c->part[1].up && c->part[0].up);
	assert_int_equal(c->part[1].over_time_limit_min, 5);
	assert_int_equal(c->part[0].over_time_limit_min, SLURM_UNLIMITED);
	assert_int_equal(c->nqos, 3);
	assert_int_equal(c->default_qos, 1);         /* "normal" */
	const struct slurm_qos *hi = &c->qos[2];
	assert_int_equal(hi->npreempt, 2);
	assert_true(hi->preempt[0] == 0 && hi->preempt[1] == 1);
	assert_int_equal(hi->preempt_mode, SLURM_PM_REQUEUE);
	assert_int_equal(c->qos[0].preempt_mode, SLURM_PM_UNSET);
	assert_true(hi->grace_s == 60 && hi->usage_factor == 2 && hi->preempt_exempt_s == SLURM_UNLIMITED);
	assert_int_equal(hi->flags, SLURM_QOS_NO_RESERVE | SLURM_QOS_DENY_ON_LIMIT);
	assert_true(hi->lim.max_tres_pu[STRES_GPU] == 2 && hi->lim.max_tres_pu[STRES_CPU] == SLURM_UNLIMITED);
	assert_true(hi->lim.max_jobs_pu == 4 && hi->lim.max_wall_s == 7200 && hi->lim.grp_jobs == SLURM_UNLIMITED);
	/* accounts: root, phys, sci, ops; associations parent first */
	assert_int_equal(c->naccounts, 4);
	assert_string_equal(c->accounts[0], "root");
	assert_int_equal(c->nassoc, 4 + 3);
	for (int32_t a = 1; a < c->nassoc; a++)
		assert_true(c->assoc[a].parent >= 0 && c->assoc[a].parent < a);
	assert_int_equal(c->assoc[0].parent, -1);
	int32_t sci = -1, phys = -1;
	for (int32_t a = 0; a < c->nassoc; a++)
		if (c->assoc[a].user < 0 && !strcmp(c->accounts[c->assoc[a].account], "sci"))
			sci = a;
		else if (c->assoc[a].user < 0 && !strcmp(c->accounts[c->assoc[a].account], "phys"))
			phys = a;
	assert_true(sci > 0 && phys > sci);
	assert_int_equal(c->assoc[phys].parent, sci);
	assert_int_equal(c->assoc[sci].parent, 0);
	assert_int_equal(c->assoc[sci].shares, 60);
	assert_int_equal(c->assoc[sci].def_qos, 0);
	assert_true(c->assoc[sci].lim.grp_tres[STRES_CPU] == 8);
	assert_int_equal(c->nusers, 2);
	const struct slurm_assoc *alice = &c->assoc[4];
	assert_int_equal(alice->user, 0);
	assert_int_equal(alice->parent, phys);
	assert_true(alice->shares == 3 && alice->priority == 7 && alice->def_qos == 2);
	assert_int_equal(c->assoc[5].shares, 1);
	bool parent_shares = false;
	for (int32_t a = 0; a < c->nassoc; a++)
		parent_shares |= c->assoc[a].shares == SLURM_FS_PARENT;
	assert_true(parent_shares);
	assert_int_equal(c->nweights, 2);
	scenario_free(&sc);
	assert_null(sc.slurm);
}

static void test_defaults(void **st)
{
	(void)st;
	struct scenario sc;
	char err[1024];
	if (load("{ \"partitions\": [ { \"name\": \"p\", \"nodes\": [\"ALL\"] } ] }", &sc, err, sizeof err))
		fail_msg("%s", err);
	const struct slurm_cfg *c = sc.slurm;
	assert_true(c->cr_memory);
	assert_int_equal(c->nqos, 1);
	assert_string_equal(c->qos[0].name, "normal");
	assert_true(c->qos[0].usage_factor == 1 && c->qos[0].lim.max_wall_s == SLURM_UNLIMITED);
	assert_int_equal(c->nassoc, 1);
	assert_int_equal(c->naccounts, 1);
	assert_int_equal(c->part[0].prio_tier, 1);
	assert_int_equal(c->part[0].prio_job_factor, 1);
	assert_true(c->part[0].default_time_s == SLURM_UNLIMITED && c->part[0].max_nodes == SLURM_UNLIMITED);
	scenario_free(&sc);
	/* no block: NULL */
	if (scenario_load_text("{ \"name\": \"x\", \"node_types\": [ { \"name\": \"c\", \"cores\": 1, \"mem_gib\": 1 } ],"
	                       " \"racks\": [ { \"name\": \"r\", \"power_kw\": 1, \"nodes\": [ { \"type\": \"c\", \"count\": 1 } ] } ],"
	                       " \"workload\": { \"trace\": \"x.jsonl\" } }", "x.json", ".", &sc, err, sizeof err))
		fail_msg("%s", err);
	assert_null(sc.slurm);
	scenario_free(&sc);
}

static void expect_load_error(const char *block, const char *msg)
{
	struct scenario sc;
	char err[1024] = "";
	assert_int_equal(load(block, &sc, err, sizeof err), -1);
	if (!strstr(err, msg))
		fail_msg("expected '%s' in '%s'", msg, err);
}

#define P1 "\"partitions\": [ { \"name\": \"p\", \"nodes\": [\"ALL\"] } ]"

static void test_load_errors(void **st)
{
	(void)st;
	expect_load_error("{ " P1 ", \"qos_list\": [] }", "t.json: $.slurm: unknown key \"qos_list\" (expected one of: "
	                  "cr_memory, def_mem_per_cpu_mib, def_mem_per_node_mib, partitions, qos, accounts, users, node_weights)");
	expect_load_error("{ }", "$.slurm.partitions: missing (expected an array)");
	expect_load_error("{ \"partitions\": [] }", "$.slurm.partitions: expected at least one partition");
	expect_load_error("{ \"partitions\": [ { \"name\": \"p\" } ] }", "$.slurm.partitions[0].nodes: missing");
	expect_load_error("{ \"partitions\": [ { \"name\": \"p\", \"nodes\": [\"ALL\"], \"max_time\": 3 } ] }",
	                  "$.slurm.partitions[0]: unknown key \"max_time\"");
	expect_load_error("{ \"partitions\": [ { \"name\": \"p\", \"nodes\": [\"ALL\"], \"state\": \"sleeping\" } ] }",
	                  "$.slurm.partitions[0].state: expected \"up\", \"down\", \"drain\" or \"inactive\", got \"sleeping\"");
	expect_load_error("{ \"partitions\": [ { \"name\": \"p\", \"nodes\": [\"ALL\"], \"default\": true },"
	                  " { \"name\": \"q\", \"nodes\": [\"ALL\"], \"default\": true } ] }",
	                  "$.slurm.partitions[1].default: \"p\" is the default partition already");
	expect_load_error("{ \"partitions\": [ { \"name\": \"p\", \"nodes\": [\"ALL\"] }, { \"name\": \"p\", \"nodes\": [\"c1\"] } ] }",
	                  "$.slurm.partitions[1].name: partition \"p\" is listed twice");
	expect_load_error("{ \"partitions\": [ { \"name\": \"p\", \"nodes\": [\"ALL\"], \"qos\": \"gold\" } ] }",
	                  "$.slurm.partitions[0].qos: unknown QOS \"gold\" (the \"qos\" list has: normal)");
	expect_load_error("{ " P1 ", \"qos\": [ { \"name\": \"a\", \"preempt\": [\"b\"] } ] }",
	                  "$.slurm.qos[0].preempt[0]: unknown QOS \"b\" (the \"qos\" list has: a)");
	expect_load_error("{ " P1 ", \"qos\": [ { \"name\": \"a\", \"preempt_mode\": \"suspend\" } ] }",
	                  "$.slurm.qos[0].preempt_mode: expected \"off\", \"cancel\" or \"requeue\", got \"suspend\"");
	expect_load_error("{ " P1 ", \"qos\": [ { \"name\": \"a\", \"flags\": [\"NoDecay\"] } ] }",
	                  "$.slurm.qos[0].flags[0]: expected one of DenyOnLimit, NoReserve, OverPartQOS, PartitionTimeLimit, got \"NoDecay\"");
	expect_load_error("{ " P1 ", \"qos\": [ { \"name\": \"a\" }, { \"name\": \"a\" } ] }",
	                  "$.slurm.qos[1].name: QOS \"a\" is listed twice");
	expect_load_error("{ " P1 ", \"qos\": [ { \"name\": \"a\", \"limits\": { \"grp_tres\": { \"gpus\": 1 } } } ] }",
	                  "$.slurm.qos[0].limits.grp_tres: unknown key \"gpus\" (expected one of: cpu, mem_mib, node, gpu)");
	expect_load_error("{ " P1 ", \"qos\": [ { \"name\": \"\" } ] }", "$.slurm.qos[0].name: expected a name (1 to 63 bytes)");
	expect_load_error("{ " P1 ", \"accounts\": [ { \"name\": \"a\", \"parent\": \"b\" } ] }",
	                  "$.slurm.accounts[0].parent: unknown account \"b\" (not in \"accounts\")");
	expect_load_error("{ " P1 ", \"accounts\": [ { \"name\": \"a\", \"parent\": \"b\" }, { \"name\": \"b\", \"parent\": \"a\" } ] }",
	                  "$.slurm.accounts[0].parent: account \"a\" is its own ancestor (the parents form a circle)");
	expect_load_error("{ " P1 ", \"accounts\": [ { \"name\": \"a\" }, { \"name\": \"a\" } ] }",
	                  "$.slurm.accounts[1].name: account \"a\" is listed twice");
	expect_load_error("{ " P1 ", \"accounts\": [ { \"name\": \"root\", \"parent\": \"x\" } ] }",
	                  "$.slurm.accounts[0]: the account root has no parent");
	expect_load_error("{ " P1 ", \"accounts\": [ { \"name\": \"a\", \"shares\": -1 } ] }",
	                  "$.slurm.accounts[0].shares: expected an integer in [0, 4294967294] or \"parent\", got an integer");
	expect_load_error("{ " P1 ", \"accounts\": [ { \"name\": \"a\", \"limits\": { \"max_tres_per_user\": { \"cpu\": 1 } } } ] }",
	                  "$.slurm.accounts[0].limits.max_tres_per_user: a QOS limit (MaxTRESPerUser): an association has none");
	expect_load_error("{ " P1 ", \"users\": [ { \"name\": \"u\", \"account\": \"a\" } ] }",
	                  "$.slurm.users[0].account: unknown account \"a\" (not in \"accounts\")");
	expect_load_error("{ " P1 ", \"users\": [ { \"name\": \"u\" } ] }", "$.slurm.users[0].account: missing");
	expect_load_error("{ " P1 ", \"users\": [ { \"name\": \"u\", \"account\": \"root\" }, { \"name\": \"u\", \"account\": \"root\" } ] }",
	                  "$.slurm.users[1]: user \"u\" is listed twice under account \"root\"");
	expect_load_error("{ " P1 ", \"users\": [ { \"name\": \"u\", \"account\": \"root\", \"default_qos\": \"x\" } ] }",
	                  "$.slurm.users[0].default_qos: unknown QOS \"x\"");
	expect_load_error("{ " P1 ", \"node_weights\": { \"c1\": -2 } }",
	                  "$.slurm.node_weights.\"c1\": expected an integer in [0, 4294967294], got an integer");
	expect_load_error("{ " P1 ", \"node_weights\": [] }", "$.slurm.node_weights: expected an object of host list: weight");
}

/* ---- bind -------------------------------------------------------------------------- */

struct tjob {
	const char *part, *qos, *user, *acct, *gpu_type;
	int gpus;
};

/* A workload with the names a Slurm dump gives. */
static void make_jobs(struct workload *w, const struct tjob *t, int n)
{
	workload_init(w);
	for (int i = 0; i < n; i++) {
		struct job j;
		struct job_truth tr = { .run_us = SIMTIME_SEC };
		memset(&j, 0, sizeof j);
		j.trace_id = 100 + i;
		j.queue = t[i].part ? workload_name_add(w, WL_PARTITION, t[i].part) : -1;
		j.qos = (int16_t)(t[i].qos ? workload_name_add(w, WL_QOS, t[i].qos) : -1);
		j.tenant = t[i].user ? workload_name_add(w, WL_USER, t[i].user) : 0;
		j.group = t[i].acct ? workload_name_add(w, WL_ACCOUNT, t[i].acct) : 0;
		j.req.nodes = 1;
		j.req.cores = 1;
		j.req.gpus = t[i].gpus;
		j.walltime_us = SIMTIME_INF;
		assert_int_equal(workload_add(w, &j, &tr), 0);
		if (t[i].gpu_type)
			assert_int_equal(workload_job_set(w, WL_GPU_TYPE, i, t[i].gpu_type), 0);
	}
}

static void test_bind(void **st)
{
	(void)st;
	struct scenario sc;
	struct workload w;
	char err[1024];
	if (load(full, &sc, err, sizeof err))
		fail_msg("%s", err);
	struct slurm_cfg *c = sc.slurm;
	const struct tjob ok[] = {
		{ "gpu", "hi", "alice", "phys", "a100", 1 }, { "cpu", "low", "bob", "ops", NULL, 0 },
		{ NULL, NULL, "alice", "ops", NULL, 0 }, { "all", "normal", "bob", "ops", "a100", 2 },
	};
	make_jobs(&w, ok, 4);
	if (slurm_cfg_bind(c, &sc.cl, &w, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(c->nnodes, 4);
	assert_int_equal(c->part[0].nnodes, 3);
	assert_int_equal(c->part[1].nnodes, 2);
	assert_true(c->part[1].nodes[0] == 2 && c->part[1].nodes[1] == 3);   /* c3, g1: sorted */
	assert_int_equal(c->part[2].nnodes, 4);
	assert_true(c->node_weight[0] == 10 && c->node_weight[1] == 10 && c->node_weight[2] == 1 && c->node_weight[3] == 50);
	assert_int_equal(c->npart_of, 3);
	assert_true(c->part_of[0] == 1 && c->part_of[1] == 0 && c->part_of[2] == 2);
	assert_true(c->qos_of[0] == 2 && c->qos_of[1] == 0 && c->qos_of[2] == 1);
	assert_true(c->user_of[0] == 0 && c->user_of[1] == 1);
	assert_string_equal(c->accounts[c->acct_of[0]], "phys");
	/* bound twice: the maps are rebuilt, not leaked */
	if (slurm_cfg_bind(c, &sc.cl, &w, err, sizeof err))
		fail_msg("%s", err);
	workload_free(&w);
	/* a trace without names leaves the maps NULL */
	workload_init(&w);
	struct job j;
	struct job_truth tr = { .run_us = SIMTIME_SEC };
	memset(&j, 0, sizeof j);
	j.queue = -1;
	j.qos = -1;
	j.req.nodes = j.req.cores = 1;
	assert_int_equal(workload_add(&w, &j, &tr), 0);
	assert_int_equal(slurm_cfg_bind(c, &sc.cl, &w, err, sizeof err), 0);
	assert_null(c->part_of);
	assert_null(c->qos_of);
	assert_null(c->user_of);
	assert_null(c->acct_of);
	workload_free(&w);
	scenario_free(&sc);
}

static void expect_bind_error(const char *block, const struct tjob *t, int n, const char *msg)
{
	struct scenario sc;
	struct workload w;
	char err[1024] = "";
	if (load(block, &sc, err, sizeof err))
		fail_msg("%s", err);
	make_jobs(&w, t, n);
	assert_int_equal(slurm_cfg_bind(sc.slurm, &sc.cl, &w, err, sizeof err), -1);
	if (!strstr(err, msg))
		fail_msg("expected '%s' in '%s'", msg, err);
	workload_free(&w);
	scenario_free(&sc);
}

static void test_bind_errors(void **st)
{
	(void)st;
	const struct tjob good = { "cpu", "low", "bob", "ops", NULL, 0 };
	struct tjob t[2] = { good, good };
	t[1].part = "debug";
	expect_bind_error(full, t, 2, "JobID 101: partition 'debug' is not in the twin (slurm.conf has: cpu, gpu, all)");
	t[1] = good;
	t[1].qos = "gold";
	expect_bind_error(full, t, 2, "JobID 101: QOS 'gold' is not in the twin (sacctmgr show qos has: low, normal, hi)");
	t[1] = good;
	t[1].user = "eve";
	expect_bind_error(full, t, 2, "JobID 101: user 'eve' is not in the twin (sacctmgr show assoc has: alice, bob)");
	t[1] = good;
	t[1].acct = "bio";
	expect_bind_error(full, t, 2, "JobID 101: account 'bio' is not in the twin (sacctmgr show assoc has: root, phys, sci, ops)");
	t[1] = good;
	t[1].acct = "phys";
	expect_bind_error(full, t, 2, "JobID 101: user 'bob' has no association under account 'phys' in the twin");
	t[1] = good;
	t[1].gpu_type = "v100";
	t[1].gpus = 1;
	t[1].part = "gpu";
	expect_bind_error(full, t, 2, "JobID 101: GPU type 'v100' is on no node of partition 'gpu'");
	t[1].gpu_type = "a100";
	t[1].part = "cpu";
	expect_bind_error(full, t, 2, "JobID 101: GPU type 'a100' is on no node of partition 'cpu'");
	t[1].part = NULL;   /* the default partition, cpu */
	expect_bind_error(full, t, 2, "JobID 101: GPU type 'a100' is on no node of partition 'cpu'");
	expect_bind_error("{ \"partitions\": [ { \"name\": \"p\", \"nodes\": [\"c1\", \"n[1-2]\"] } ] }", NULL, 0,
	                  "$.slurm.partitions[0].nodes[1]: node \"n1\" is not in the cluster (it has: c1, c2, c3, g1)");
	expect_bind_error("{ \"partitions\": [ { \"name\": \"p\", \"nodes\": [\"c[1-\"] } ] }", NULL, 0,
	                  "$.slurm.partitions[0].nodes[0]: a '[' without its ']' in host list 'c[1-'");
	expect_bind_error("{ " P1 ", \"node_weights\": { \"c[1-2]\": 3, \"c2\": 4 } }", NULL, 0,
	                  "$.slurm.node_weights.\"c2\": node \"c2\" has a weight already (from \"c[1-2]\")");
	expect_bind_error("{ " P1 ", \"node_weights\": { \"x9\": 3 } }", NULL, 0,
	                  "$.slurm.node_weights.\"x9\": node \"x9\" is not in the cluster");
}

/* ---- twin build ---------------------------------------------------------------------- */

static char *copy_file(const char *dir, const char *name, const char *from_sub, const char *to_sub)
{
	char src[512], dst[1024];
	snprintf(src, sizeof src, DATA "%s", name);
	snprintf(dst, sizeof dst, "%s/%s", dir, name);
	FILE *in = fopen(src, "r"), *out = fopen(dst, "w");
	assert_non_null(in);
	assert_non_null(out);
	char line[4096];
	while (fgets(line, sizeof line, in)) {
		char *m = from_sub ? strstr(line, from_sub) : NULL;
		if (m)
			fprintf(out, "%.*s%s%s", (int)(m - line), line, to_sub, m + strlen(from_sub));
		else
			fputs(line, out);
	}
	fclose(in);
	fclose(out);
	return strdup(dst);
}

static void test_twin_build(void **st)
{
	(void)st;
	char *dir = tu_tmpdir_new("twin"), out[1024], err[1024] = "";
	snprintf(out, sizeof out, "%s/twin.json", dir);
	struct twin_opts o = { .slurm_conf = DATA "slurm.conf", .gres_conf = DATA "gres.conf", .assoc = DATA "assoc.txt",
	                       .qos = DATA "qos.txt", .events = DATA "events.txt", .sacct = DATA "site.sacct", .out = out };
	struct twin_sum sum = { 0 };
	struct slurm_msgs warn = { 0 };
	if (twin_build(&o, &sum, &warn, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(sum.nodes, 6);
	assert_int_equal(sum.node_types, 2);
	assert_int_equal(sum.gpus, 12);
	assert_int_equal(sum.partitions, 3);
	assert_int_equal(sum.qos, 5);
	assert_int_equal(sum.accounts, 10);
	assert_int_equal(sum.users, 8);
	assert_int_equal(sum.jobs, 15);
	assert_int_equal(sum.node_events, 2);        /* n5's DOWN and n6's DRAIN; n4's began after the trace */
	assert_int_equal(sum.notes.n, 1);
	assert_non_null(strstr(sum.notes.v[0], "GPU type fake -> gres-fake, a placeholder"));
	assert_int_equal(warn.n, 4);
	/* loaded back as hetlab run loads it, and bound to its own dump */
	struct scenario sc;
	struct workload w;
	struct sacct_opts so = { .gpu_type_label = SLURM_GPU_TYPE_LABEL };
	workload_init(&w);
	if (scenario_load(out, &sc, err, sizeof err))
		fail_msg("%s", err);
	assert_string_equal(sc.policy, "slurm");
	assert_false(sc.enforce_walltime);
	assert_string_equal(sc.swf_shape.gpu_type_label, SLURM_GPU_TYPE_LABEL);
	assert_string_equal(sc.cl.nodes[4].name, "n5");
	/* n6 drained 7 s into the trace for 30 s (09:30:35 to 09:31:05), n5 down for 15 s */
	int kinds[8] = { 0 };
	for (int k = 0; k < sc.fault.nev; k++) {
		const struct fault_event *fe = &sc.fault.ev[k];
		kinds[fe->kind]++;
		if (fe->kind == FEV_DRAIN)
			assert_true(fe->node == 5 && fe->at_us == simtime_from_s(7) && fe->repair_s == 30);
		if (fe->kind == FEV_RESUME)
			assert_true(fe->node == 5 && fe->at_us == simtime_from_s(37));
	}
	assert_true(kinds[FEV_DRAIN] == 1 && kinds[FEV_RESUME] == 1 && kinds[FEV_FAULT] == 1);
	char tpath[PATH_MAX + 64];
	scenario_trace_path(&sc, ".", tpath, sizeof tpath);
	assert_int_equal(trace_sacct_read(tpath, &so, &w, NULL, err, sizeof err), 0);
	if (slurm_cfg_bind(sc.slurm, &sc.cl, &w, err, sizeof err))
		fail_msg("%s", err);
	const struct slurm_cfg *c = sc.slurm;
	assert_int_equal(c->part[2].nnodes, 6);      /* all: Nodes=ALL */
	assert_true(c->node_weight[0] == 10 && c->node_weight[5] == 20);
	assert_int_equal(c->qos[c->part[1].qos].lim.max_tres_pu[STRES_CPU], 12);
	bool found = false;
	for (int i = 0; i < sc.nparams; i++)
		if (!strcmp(sc.params[i].name, "decay_halflife_s"))
			found = sc.params[i].value == 259200;
	assert_true(found);
	workload_free(&w);
	scenario_free(&sc);
	slurm_msgs_free(&warn);
	slurm_msgs_free(&sum.notes);
	/* a node's overlapping DRAIN periods make one drain; one still open has no end */
	char *evf = tu_write_tmp(".txt", "Cluster|NodeName|TimeStart|TimeEnd|State|Reason|User\n"
	                                 "hetlab|n6|2026-12-07T09:30:30|2026-12-07T09:30:50|DRAIN|a|root(0)\n"
	                                 "hetlab|n6|2026-12-07T09:30:40|2026-12-07T09:31:10|DRAIN|b|root(0)\n"
	                                 "hetlab|n3|2026-12-07T09:30:40|Unknown|IDLE+DRAIN|c|root(0)\n");
	struct twin_opts o3 = o;
	o3.events = evf;
	memset(&sum, 0, sizeof sum);
	if (twin_build(&o3, &sum, &warn, err, sizeof err) || scenario_load(out, &sc, err, sizeof err))
		fail_msg("%s", err);
	int drains = 0, resumes = 0;
	for (int k = 0; k < sc.fault.nev; k++) {
		const struct fault_event *fe = &sc.fault.ev[k];
		drains += fe->kind == FEV_DRAIN;
		resumes += fe->kind == FEV_RESUME;
		if (fe->kind == FEV_DRAIN && fe->node == 5)   /* 09:30:30 to 09:31:10 */
			assert_true(fe->at_us == simtime_from_s(2) && fe->repair_s == 40);
		if (fe->kind == FEV_DRAIN && fe->node == 2)   /* open: no end */
			assert_true(fe->repair_s < 0);
	}
	assert_true(drains == 2 && resumes == 1);
	scenario_free(&sc);
	slurm_msgs_free(&warn);
	slurm_msgs_free(&sum.notes);
	unlink(evf);
	free(evf);
	/* --gpu-model names the catalog model; without dumps, the trace's QOS get Slurm's defaults */
	struct twin_opts o2 = { .slurm_conf = DATA "slurm.conf", .sacct = DATA "site.sacct", .out = out, .ngpu_map = 1 };
	snprintf(o2.gpu_map[0].type, sizeof o2.gpu_map[0].type, "fake");
	snprintf(o2.gpu_map[0].model, sizeof o2.gpu_map[0].model, "V100-SXM2-32GB");
	memset(&sum, 0, sizeof sum);
	if (twin_build(&o2, &sum, &warn, err, sizeof err))
		fail_msg("%s", err);
	assert_string_equal(sum.notes.v[0], "GPU type fake -> V100-SXM2-32GB (--gpu-model)");
	assert_int_equal(sum.qos, 5);                /* part-second (slurm.conf), normal, hi, urgent, low (the trace) */
	assert_int_equal(sum.accounts, 0);
	slurm_msgs_free(&warn);
	slurm_msgs_free(&sum.notes);
	/* a job in a partition slurm.conf lacks: an error, and nothing written */
	remove(out);
	char *bad_sacct = copy_file(dir, "site.sacct", "|second-x|second|", "|second-x|gpu|");
	o.sacct = bad_sacct;
	memset(&sum, 0, sizeof sum);
	assert_int_equal(twin_build(&o, &sum, &warn, err, sizeof err), -1);
	assert_non_null(strstr(err, "site.sacct: JobID 6: partition 'gpu' is not in the twin (slurm.conf has: debug, second, all)"));
	FILE *f = fopen(out, "r");
	assert_null(f);
	slurm_msgs_free(&warn);
	slurm_msgs_free(&sum.notes);
	/* a QOS of the trace the QOS dump lacks */
	char *bad_qos = copy_file(dir, "qos.txt", "urgent|", "rush|");
	o.sacct = DATA "site.sacct";
	o.qos = bad_qos;
	o.assoc = NULL;
	assert_int_equal(twin_build(&o, &sum, &warn, err, sizeof err), -1);
	assert_non_null(strstr(err, "site.sacct: QOS 'urgent' is not in the QOS dump"));
	slurm_msgs_free(&warn);
	slurm_msgs_free(&sum.notes);
	free(bad_sacct);
	free(bad_qos);
	tu_tmpdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_bind),
		cmocka_unit_test(test_bind_errors),
		cmocka_unit_test(test_twin_build),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
