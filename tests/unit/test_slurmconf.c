/* slurm.conf and gres.conf (config/slurmconf.c, config/slurmglob.c) and
 * Slurm host lists (traces/hostexpr.c): the local cluster's real files of
 * tests/data/slurm/ (SOURCE.md), and small files for each rule: line
 * continuation, Include, DEFAULT lines, time strings, the keys that are
 * modelled, accepted and warned, and every error naming file, line and
 * key. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/slurmconf.h"
#include "tests/testutil.h"
#include "traces/hostexpr.h"

#define DATA "tests/data/slurm/"

static char got[64][48];
static int ngot;

static int collect(const char *name, void *ctx)
{
	(void)ctx;
	if (ngot < 64)
		snprintf(got[ngot], sizeof got[0], "%s", name);
	ngot++;
	return 0;
}

static void expect_names(const char *expr, const char *joined)
{
	char why[256], all[1024] = "";
	ngot = 0;
	assert_int_equal(hostexpr_each(expr, collect, NULL, why, sizeof why), 0);
	for (int i = 0; i < ngot && i < 64; i++)
		snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", i ? " " : "", got[i]);
	assert_string_equal(all, joined);
	assert_int_equal(hostexpr_count(expr, why, sizeof why), ngot);
}

static void expect_bad_expr(const char *expr, const char *msg)
{
	char why[256];
	assert_int_equal(hostexpr_each(expr, collect, NULL, why, sizeof why), -1);
	assert_non_null(strstr(why, msg));
}

static void test_hostexpr(void **st)
{
	(void)st;
	expect_names("n[1-3]", "n1 n2 n3");
	expect_names("gpu[01-03,20]", "gpu01 gpu02 gpu03 gpu20");
	expect_names("n[8-10]", "n8 n9 n10");
	expect_names("n[08-10]", "n08 n09 n10");
	expect_names("a[1-2]-b[3-4]", "a1-b3 a1-b4 a2-b3 a2-b4");
	expect_names("x,n[1-2],cpu7", "x n1 n2 cpu7");
	expect_names("login", "login");
	expect_bad_expr("n[1-", "a '[' without its ']'");
	expect_bad_expr("n1]", "a ']' without its '['");
	expect_bad_expr("n[3-1]", "end is below its start");
	expect_bad_expr("n[a-b]", "expected a number or a range");
	expect_bad_expr("n1,,n2", "an empty name");
	expect_bad_expr("n[1-2000000]", "more than 1000000 names");
	expect_bad_expr("n[1-[2]]", "a '[' inside brackets");
}

static void test_time(void **st)
{
	(void)st;
	static const struct { const char *s; int64_t secs; } ok[] = {
		{ "30", 1800 }, { "30:15", 1815 }, { "2:00:00", 7200 }, { "1-12", 129600 },
		{ "1-02:03", 93780 }, { "2-00:00:01", 172801 }, { "UNLIMITED", SLURM_UNLIMITED },
		{ "infinite", SLURM_UNLIMITED }, { "0", 0 },
	};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		int64_t t = -5;
		assert_int_equal(slurm_time_parse(ok[i].s, &t), 0);
		assert_true(t == ok[i].secs);
	}
	static const char *const bad[] = { "", "soon", "1:2:3:4", "1-", "-5", "1-2-3", "5m", "1:", NULL };
	for (int i = 0; bad[i]; i++) {
		int64_t t;
		assert_int_equal(slurm_time_parse(bad[i], &t), -1);
	}
	int64_t m;
	assert_int_equal(slurm_time_min("1:30", &m), 0);   /* 90 s is 2 minutes, as time_str2mins */
	assert_true(m == 2);
}

static bool has_warning(const struct sconf *c, const char *text)
{
	for (int32_t i = 0; i < c->warn.n; i++)
		if (strstr(c->warn.v[i], text))
			return true;
	return false;
}

/* The local cluster's slurm.conf (with its Include) and gres.conf. */
static void test_fixture(void **st)
{
	(void)st;
	struct sconf c;
	char err[512];
	assert_int_equal(sconf_read(DATA "slurm.conf", &c, err, sizeof err), 0);
	assert_string_equal(c.cluster, "hetlab");
	assert_int_equal(c.nfiles, 2);               /* partitions.conf was included */
	assert_int_equal(c.nnodes, 6);
	assert_int_equal(c.nnodelines, 2);
	assert_string_equal(c.node[4].name, "n5");
	const struct sconf_nodeline *l0 = &c.nodeline[0], *l1 = &c.nodeline[1];
	assert_int_equal(l0->cpus, 4);
	assert_true(l0->mem_mib == 4000);            /* from NodeName=DEFAULT */
	assert_true(l0->weight == 10 && l1->weight == 20);
	assert_string_equal(l0->features, "fast");
	assert_string_equal(l0->gpu_type, "fake");
	assert_int_equal(l0->gpus, 2);
	assert_string_equal(l0->expr, "n[1-4]");
	assert_int_equal(c.nparts, 3);
	const struct slurm_part *debug = &c.part[0].p, *second = &c.part[1].p, *all = &c.part[2].p;
	assert_true(debug->is_default && !second->is_default);
	assert_true(debug->max_time_s == SLURM_UNLIMITED);
	assert_true(debug->default_time_s == 3600);  /* from PartitionName=DEFAULT */
	assert_true(second->max_time_s == 172800);
	assert_int_equal(second->prio_tier, 2);
	assert_int_equal(second->prio_job_factor, 10);
	assert_int_equal(second->max_nodes, 2);
	assert_true(second->exclusive);
	assert_string_equal(c.part[1].qos, "part-second");
	assert_string_equal(all->node_names[0], "ALL");
	assert_true(all->max_time_s == 1800 && all->def_mem_per_node_mib == 2000);
	assert_true(c.cr_memory);
	assert_true(c.def_mem_per_cpu_mib == 500);
	static const struct { const char *name; double v; } want[] = {
		{ "backfill", 1 }, { "batch_sched_delay_s", 0 }, { "bf_interval_s", 1 }, { "bf_window_min", 2880 },
		{ "bf_resolution_s", 120 }, { "bf_max_job_test", 1000 }, { "default_queue_depth", 200 },
		{ "priority_multifactor", 1 }, { "weight_age", 1000 }, { "weight_fairshare", 10000 },
		{ "weight_jobsize", 500 }, { "weight_partition", 2000 }, { "weight_qos", 5000 },
		{ "max_age_s", 604800 }, { "decay_halflife_s", 259200 }, { "calc_period_s", 300 },
		{ "favor_small", 0 }, { "fair_tree", 1 }, { "accrue_always", 1 }, { "preempt_qos", 1 },
		{ "preempt_mode", 2 }, { "preempt_exempt_s", 120 }, { "over_time_limit_min", 1 },
		{ "kill_wait_s", 10 }, { "job_requeue", 1 }, { "requeue_delay_s", 11 }, { "enforce_limits", 1 },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		assert_true(sconf_param(&c, want[i].name, -1) == want[i].v);
	assert_true(sconf_param(&c, "msg_timeout_s", -7) == -7);   /* not set: the policy's default */
	assert_true(has_warning(&c, "tests/data/slurm/slurm.conf:38: SchedulerParameters option bf_continue is not modelled"));
	assert_true(has_warning(&c, "slurm.conf:46: PriorityWeightTRES is not modelled"));
	assert_int_equal(c.warn.n, 3);               /* and Feature=fast */
	assert_int_equal(sconf_read_gres(DATA "gres.conf", &c, err, sizeof err), 0);
	assert_int_equal(c.warn.n, 3);               /* AutoDetect=off, types and counts agree */
	assert_int_equal(sconf_find_node(&c, "n6"), 5);
	assert_int_equal(sconf_find_node(&c, "n7"), -1);
	sconf_fini(&c);
	sconf_fini(&c);                              /* twice is harmless */
}

/* A file in dir, written. */
static void put(const char *dir, const char *name, const char *text)
{
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int read_text(const char *text, struct sconf *c, char *err, size_t errlen, char **dir_out)
{
	char *dir = tu_tmpdir_new("slurmconf"), p[1024];
	put(dir, "slurm.conf", text);
	snprintf(p, sizeof p, "%s/slurm.conf", dir);
	int rc = sconf_read(p, c, err, errlen);
	if (dir_out)
		*dir_out = dir;
	else
		tu_tmpdir_free(dir);
	return rc;
}

static const char base[] = "NodeName=n[1-2] CPUs=8 RealMemory=1000\nPartitionName=p Nodes=ALL Default=YES\n";

static void test_rules(void **st)
{
	(void)st;
	struct sconf c;
	char err[512], *dir = tu_tmpdir_new("slurmconf"), p[1024];
	/* continuation, Include with %c relative to the including file, DEFAULT
	 * lines, quotes, comments, case-insensitive keys */
	put(dir, "slurm.conf",
	    "ClusterName=alpha # the name\n"
	    "nodename=DEFAULT Sockets=2 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=64000 \\\n"
	    "   Weight=5\n"
	    "NodeName=c[01-03] Reason=\"being set up\"\n"
	    "NodeName=g1 CPUs=16 Gres=gpu:a100:4(S:0-1),mps:100 CoreSpecCount=2 MemSpecLimit=1000\n"
	    "Include %c-parts.conf\n"
	    "SchedulerParameters=sched_interval=30,assoc_limit_stop,bf_max_job_user=4 SelectTypeParameters=CR_Core\n"
	    "PriorityFlags=NO_FAIR_TREE,SMALL_RELATIVE_TO_TIME PreemptMode=CANCEL,GANG\n"
	    "OverTimeLimit=UNLIMITED AuthInfo=socket=/x,cred_expire=30 SlurmctldPort=6817 MysteryKey=1 Epilog=/etc/ep.sh\n");
	put(dir, "alpha-parts.conf",
	    "PartitionName=DEFAULT MaxTime=1-00:00:00 State=UP\n"
	    "PartitionName=cpu Nodes=c[01-03] Default=YES Priority=3\n"
	    "PartitionName=gpu Nodes=g1,c01 DefaultTime=30 State=DOWN OverSubscribe=FORCE:4 LLN=YES\n");
	snprintf(p, sizeof p, "%s/slurm.conf", dir);
	assert_int_equal(sconf_read(p, &c, err, sizeof err), 0);
	assert_int_equal(c.nnodes, 4);
	assert_string_equal(c.node[0].name, "c01");
	assert_int_equal(c.nodeline[0].cpus, 8);     /* 2 sockets x 4 cores x 1 thread */
	assert_int_equal(c.nodeline[0].sockets, 2);
	assert_true(c.nodeline[0].weight == 5 && c.nodeline[0].mem_mib == 64000);
	assert_int_equal(c.nodeline[0].line, 4);     /* Weight=5 came from the DEFAULT line continued on line 3 */
	assert_int_equal(c.nodeline[1].cpus, 14);    /* 16 less 2 specialised cores */
	assert_true(c.nodeline[1].mem_mib == 63000);
	assert_string_equal(c.node[3].gpu_type, "a100");
	assert_int_equal(c.node[3].gpus, 4);
	assert_int_equal(c.nparts, 2);
	assert_int_equal(c.part[0].p.prio_tier, 3);
	assert_int_equal(c.part[0].p.prio_job_factor, 3);
	assert_true(c.part[0].p.max_time_s == 86400);
	assert_true(c.part[1].p.default_time_s == 1800 && !c.part[1].p.up);
	assert_int_equal(c.part[1].p.nnode_names, 2);
	assert_false(c.cr_memory);
	assert_true(sconf_param(&c, "sched_interval_s", 0) == 30);
	assert_true(sconf_param(&c, "assoc_limit_stop", 0) == 1);
	assert_true(sconf_param(&c, "bf_max_job_user", 0) == 4);
	assert_true(sconf_param(&c, "fair_tree", -1) == 0);
	assert_true(sconf_param(&c, "preempt_mode", -1) == 1);
	assert_true(sconf_param(&c, "over_time_limit_min", 0) == 1000000);
	assert_true(sconf_param(&c, "requeue_delay_s", 0) == 31);
	assert_true(sconf_param(&c, "epilog_pass", 0) == 1);   /* an Epilog script: a pass at its end */
	assert_true(has_warning(&c, "slurm.conf:5: Gres 'mps' is not modelled"));
	assert_true(has_warning(&c, "slurm.conf:8: PriorityFlags SMALL_RELATIVE_TO_TIME is not modelled"));
	assert_true(has_warning(&c, "slurm.conf:8: PreemptMode GANG is not modelled (the mode stays CANCEL)"));
	assert_true(has_warning(&c, "slurm.conf:9: MysteryKey is not a slurm.conf key the twin knows"));
	assert_true(has_warning(&c, "alpha-parts.conf:3: OverSubscribe=FORCE:4 is not modelled"));
	assert_true(has_warning(&c, "alpha-parts.conf:3: LLN least-loaded node selection is not modelled"));
	assert_false(has_warning(&c, "SlurmctldPort"));
	assert_false(has_warning(&c, "Reason"));
	sconf_fini(&c);
	/* gres.conf: a type for untyped Gres=, a disagreeing count, AutoDetect */
	put(dir, "slurm.conf", "NodeName=g[1-2] CPUs=8 Gres=gpu:2\nPartitionName=p Nodes=ALL\n");
	put(dir, "gres.conf", "AutoDetect=nvml\nNodeName=g[1-2] Name=gpu Type=h100 File=/dev/nvidia[0-1]\n"
	    "NodeName=g2 Name=gpu Type=h100 Count=4\nNodeName=g9 Name=gpu File=/dev/nvidia0\n");
	assert_int_equal(sconf_read(p, &c, err, sizeof err), 0);
	snprintf(p, sizeof p, "%s/gres.conf", dir);
	assert_int_equal(sconf_read_gres(p, &c, err, sizeof err), 0);
	assert_string_equal(c.node[1].gpu_type, "h100");
	assert_true(has_warning(&c, "gres.conf:1: AutoDetect=nvml: slurmd detects the GPUs"));
	assert_true(has_warning(&c, "gres.conf:3: Count 4 GPUs disagree with slurm.conf's Gres= of node g2 (2)"));
	assert_true(has_warning(&c, "gres.conf:4: NodeName 'g9' is not a node of slurm.conf"));
	sconf_fini(&c);
	tu_tmpdir_free(dir);
}

static void expect_error(const char *text, const char *msg)
{
	struct sconf c;
	char err[512] = "";
	assert_int_equal(read_text(text, &c, err, sizeof err, NULL), -1);
	if (!strstr(err, msg))
		fail_msg("expected '%s' in '%s'", msg, err);
	assert_int_equal(c.nnodes, 0);               /* nothing half-read */
	sconf_fini(&c);
}

static void test_errors(void **st)
{
	(void)st;
	char text[1024];
	snprintf(text, sizeof text, "%sPartitionName=q Nodes=n1 MaxTime=soon\n", base);
	expect_error(text, "slurm.conf:3: MaxTime: expected a time (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, "
	             "or UNLIMITED), got 'soon'");
	expect_error("NodeName=n1 CPUs=four\nPartitionName=p Nodes=n1\n",
	             "slurm.conf:1: CPUs: expected an integer in [1, 2147483647], got 'four'");
	snprintf(text, sizeof text, "%sPriorityWeightAge=-3\n", base);
	expect_error(text, "slurm.conf:3: PriorityWeightAge: expected an integer in [0, 4294967294], got '-3'");
	snprintf(text, sizeof text, "%sSchedulerParameters=bf_window=0\n", base);
	expect_error(text, "slurm.conf:3: bf_window: expected an integer in [1, 43200], got '0'");
	snprintf(text, sizeof text, "%sSchedulerType=sched/hold\n", base);
	expect_error(text, "slurm.conf:3: SchedulerType: expected sched/backfill or sched/builtin, got 'sched/hold'");
	snprintf(text, sizeof text, "%sPreemptMode=SOMETIMES\n", base);
	expect_error(text, "slurm.conf:3: PreemptMode: expected OFF, CANCEL, REQUEUE, SUSPEND or GANG, got 'SOMETIMES'");
	snprintf(text, sizeof text, "%sPartitionName=q Nodes=n[1-3]\n", base);
	expect_error(text, "slurm.conf:3: Nodes: partition 'q' names node 'n3', which no NodeName line defines");
	snprintf(text, sizeof text, "%sNodeName=n2 CPUs=4\n", base);
	expect_error(text, "slurm.conf:3: NodeName: node 'n2' is defined twice (first at ");
	snprintf(text, sizeof text, "%sPartitionName=p Nodes=n1\n", base);
	expect_error(text, "slurm.conf:3: PartitionName: 'p' is defined twice");
	expect_error("NodeName=n[1-2 CPUs=2\n", "slurm.conf:1: NodeName: expected a '[' without its ']' in host list");
	expect_error("NodeName=n1 Gres=gpu:x:99\nPartitionName=p Nodes=n1\n",
	             "slurm.conf:1: Gres: expected an integer in [0, 64], got '99'");
	expect_error("JustAWord\n", "slurm.conf:1: expected KEY=VALUE pairs, got 'JustAWord'");
	expect_error("NodeName=n1 Reason=\"open\n", "slurm.conf:1: Reason: a quoted value without its closing '\"'");
	expect_error("Include slurm.conf\n", "Include: more than 16 files deep (an Include loop?)");
	expect_error("Include missing.conf\n", "missing.conf");
	expect_error("PartitionName=p Nodes=ALL\n", "slurm.conf: no NodeName line defines a node");
	expect_error("NodeName=n1\n", "slurm.conf: no PartitionName line defines a partition");
	struct sconf c;
	char err[512];
	assert_int_equal(sconf_read("/nonexistent/slurm.conf", &c, err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent/slurm.conf"));
}

/* Two Default=YES: the last wins, with a warning. */
static void test_default_partition(void **st)
{
	(void)st;
	struct sconf c;
	char err[512];
	assert_int_equal(read_text("NodeName=n1\nPartitionName=a Nodes=n1 Default=YES\n"
	                           "PartitionName=b Nodes=n1 Default=YES\n", &c, err, sizeof err, NULL), 0);
	assert_false(c.part[0].p.is_default);
	assert_true(c.part[1].p.is_default);
	assert_true(has_warning(&c, "slurm.conf:3: Default=YES on partition 'b' too"));
	sconf_fini(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostexpr),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_default_partition),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
