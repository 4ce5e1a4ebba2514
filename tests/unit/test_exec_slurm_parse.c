/* exec_slurm_parse: what the Slurm executor (live/exec_slurm) reads back,
 * on output recorded on the local 22.05.8 cluster
 * (tests/slurm/local-slurm.sh): squeue -O lines, sacct lines, scontrol
 * show config, sinfo JSON (and the later data_parser form, written by
 * hand), the jobs read through the fake squeue and sacct
 * (tests/unit/exec_slurm_fixture.h), garbage and truncated output, and the
 * state names. Submitting and the actions are tests/unit/test_exec_slurm.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/exec/slurm_cmd.h"
#include "tests/unit/exec_slurm_fixture.h"

/* squeue -h -t all -j ... -O SX_SQUEUE_FORMAT with SLURM_TIME_FORMAT=%s on
 * the local cluster (Slurm 22.05.8, tests/slurm/local-slurm.sh), verbatim:
 * 4 held, 5 running on n1,n2, 6 exit 3, 7 completed, 8 cancelled while
 * running, 9 running (later TIMEOUT), 10 requeued held after running on n5,
 * 11 pending (Resources), 12 killed by SIGKILL, 13 a job not hetlab's. */
static const char squeue_lines[] =
	"8|CANCELLED|15|0|0.99998473958112|1796168413|1796168416|root|debug|hetlab-01234567-104|hetlab:0123456789abcdef:104:0|n4|None|\n"
	"7|COMPLETED|0|0|0.99998473981395|1796168413|1796168414|root|debug|hetlab-01234567-103|hetlab:0123456789abcdef:103:0|n3|None|\n"
	"6|FAILED|768|0|0.99998474004678|1796168413|1796168414|root|debug|hetlab-01234567-102|hetlab:0123456789abcdef:102:0|n3|NonZeroExitCode|\n"
	"11|PENDING|0|0|0.99998473888263|1827704413|NONE|root|debug|hetlab-01234567-107|hetlab:0123456789abcdef:107:0||Resources|\n"
	"4|PENDING|0|0|0.00000000000000|N/A|N/A|root|debug|hetlab-01234567-100|hetlab:0123456789abcdef:100:0||JobHeldUser|\n"
	"5|RUNNING|0|0|0.99998474027961|1796168413|1827704413|root|debug|hetlab-01234567-101|hetlab:0123456789abcdef:101:0|n[1-2]|None|\n"
	"9|RUNNING|0|0|0.99998473934829|1796168413|1796168473|root|debug|hetlab-01234567-105|hetlab:0123456789abcdef:105:1|n4|None|\n"
	"13|RUNNING|0|0|0.99998473841697|1796168413|1827704413|root|debug|myjob|(null)|n3|None|\n"
	"12|FAILED|9|0|0.99998473864980|1796168413|1796168414|root|second|hetlab-01234567-108|hetlab:0123456789abcdef:108:0|n6|JobLaunchFailure|\n"
	"10|PENDING|0|1|0.00000000000000|1796168427|NONE|root|second|hetlab-01234567-106|hetlab:0123456789abcdef:106:0||job requeued in held state|\n";
/* The same jobs a minute later, and sacct -n -P -D -X of them and of two
 * jobs (1, 2) requeued once by themselves. */
static const char squeue_lines2[] =
	"8|CANCELLED|15|0|0.99998473958112|1796168413|1796168416|root|debug|hetlab-01234567-104|hetlab:0123456789abcdef:104:0|n4|None|\n"
	"5|COMPLETED|0|0|0.99998474027961|1796168413|1796168474|root|debug|hetlab-01234567-101|hetlab:0123456789abcdef:101:0|n[1-2]|None|\n"
	"7|COMPLETED|0|0|0.99998473981395|1796168413|1796168414|root|debug|hetlab-01234567-103|hetlab:0123456789abcdef:103:0|n3|None|\n"
	"11|COMPLETED|0|0|0.99998473888263|1796168474|1796168480|root|debug|hetlab-01234567-107|hetlab:0123456789abcdef:107:0|n1|None|\n"
	"13|COMPLETED|0|0|0.99998473841697|1796168413|1796168474|root|debug|myjob|(null)|n3|None|\n"
	"6|FAILED|768|0|0.99998474004678|1796168413|1796168414|root|debug|hetlab-01234567-102|hetlab:0123456789abcdef:102:0|n3|NonZeroExitCode|\n"
	"4|PENDING|0|0|0.00000000000000|N/A|N/A|root|debug|hetlab-01234567-100|hetlab:0123456789abcdef:100:0||JobHeldUser|\n"
	"9|TIMEOUT|15|0|0.99998473934829|1796168413|1796168481|root|debug|hetlab-01234567-105|hetlab:0123456789abcdef:105:1|n4|TimeLimit|\n"
	"12|FAILED|9|0|0.99998473864980|1796168413|1796168414|root|second|hetlab-01234567-108|hetlab:0123456789abcdef:108:0|n6|JobLaunchFailure|\n"
	"10|RUNNING|0|1|0.99998473818414|1796168487|1827704487|root|second|hetlab-01234567-106|hetlab:0123456789abcdef:106:0|n5|None|\n";
static const char sacct_lines[] =
	"1|hl-x-1|REQUEUED|0:0|1796167199|1796167199|n1|billing=1,cpu=1,mem=100M,node=1\n"
	"2|hl-x-2|REQUEUED|0:0|1796167199|1796167199|n2|billing=1,cpu=1,mem=100M,node=1\n"
	"1|hl-x-1|COMPLETED|0:0|1796167210|1796167210|n1|billing=1,cpu=1,mem=100M,node=1\n"
	"2|hl-x-2|COMPLETED|0:0|1796167210|1796167210|n2|billing=1,cpu=1,mem=100M,node=1\n"
	"4|hetlab-01234567-100|PENDING|0:0|Unknown|Unknown|None assigned|\n"
	"5|hetlab-01234567-101|COMPLETED|0:0|1796168413|1796168474|n[1-2]|billing=2,cpu=2,gres/gpu=4,mem=1000M,node=2\n"
	"6|hetlab-01234567-102|FAILED|3:0|1796168413|1796168414|n3|billing=1,cpu=1,mem=500M,node=1\n"
	"7|hetlab-01234567-103|COMPLETED|0:0|1796168413|1796168414|n3|billing=1,cpu=1,mem=500M,node=1\n"
	"8|hetlab-01234567-104|CANCELLED by 0|0:0|1796168413|1796168416|n4|billing=1,cpu=1,mem=500M,node=1\n"
	"9|hetlab-01234567-105|TIMEOUT|0:0|1796168413|1796168481|n4|billing=1,cpu=1,mem=500M,node=1\n"
	"10|hetlab-01234567-106|REQUEUED|0:0|1796168413|1796168416|n5|billing=1,cpu=1,mem=500M,node=1\n"
	"11|hetlab-01234567-107|COMPLETED|0:0|1796168474|1796168480|n1|billing=1,cpu=1,mem=4000M,node=1\n"
	"12|hetlab-01234567-108|FAILED|0:9|1796168413|1796168414|n6|billing=1,cpu=1,mem=500M,node=1\n"
	"13|myjob|COMPLETED|0:0|1796168413|1796168474|n3|billing=1,cpu=1,mem=100M,node=1\n"
	"10|hetlab-01234567-106|RUNNING|0:0|1796168487|Unknown|n5|billing=1,cpu=1,mem=500M,node=1\n";
/* Lines of scontrol show config on the same cluster. */
static const char config_lines[] =
	"Configuration data as of 2026-12-01T23:45:00\n"
	"AccountingStorageType   = accounting_storage/slurmdbd\n"
	"AccountingStoreFlags    = (null)\n"
	"AuthInfo                = socket=/tmp/sl1/munge/munge.socket,cred_expire=10\n"
	"JobRequeue              = 1\n"
	"MinJobAge               = 300 sec\n"
	"PreemptMode             = OFF\n"
	"PreemptType             = preempt/none\n"
	"ReturnToService         = 2\n"
	"SchedulerParameters     = batch_sched_delay=0,bf_interval=1\n"
	"SelectTypeParameters    = CR_CORE_MEMORY\n"
	"SLURM_VERSION           = 22.05.8\n";

static const char sinfo_2205[] =
	"{\"meta\":{\"plugin\":{\"type\":\"openapi/v0.0.38\",\"name\":\"Slurm OpenAPI v0.0.38\"},"
	"\"Slurm\":{\"version\":{\"major\":22,\"micro\":8,\"minor\":5},\"release\":\"22.05.8\"}},\n"
	"\"errors\":[],\n"
	"\"nodes\":[\n"
	"{\"architecture\":\"x86_64\",\"burstbuffer_network_address\":\"\",\"boards\":1,"
	"\"boot_time\":1795976761,\"comment\":\"\",\"cores\":1,\"cpu_binding\":0,\"cpu_load\":59,\"extra\":\"\","
	"\"free_memory\":19513,\"cpus\":4,\"last_busy\":1795994221,\"features\":\"\",\"active_features\":\"\","
	"\"gres\":\"gpu:fake:2\",\"gres_drained\":\"N/A\",\"gres_used\":\"gpu:fake:2(IDX:0-1)\",\"mcs_label\":\"\","
	"\"name\":\"n1\",\"next_state_after_reboot\":\"invalid\",\"address\":\"127.0.0.1\","
	"\"hostname\":\"localhost\",\"state\":\"mixed\",\"state_flags\":[],"
	"\"next_state_after_reboot_flags\":[],"
	"\"operating_system\":\"Linux 6.18.44-fc-v657 #1 SMP PREEMPT_DYNAMIC @0\",\"owner\":null,"
	"\"partitions\":[\"debug\"],\"port\":17001,\"real_memory\":4000,\"reason\":\"\",\"reason_changed_at\":0,"
	"\"reason_set_by_user\":null,\"slurmd_start_time\":1795994221,\"sockets\":4,\"threads\":1,"
	"\"temporary_disk\":0,\"weight\":1,\"tres\":\"cpu=4,mem=4000M,billing=4\","
	"\"slurmd_version\":\"22.05.8\",\"alloc_memory\":0,\"alloc_cpus\":1,\"idle_cpus\":3,"
	"\"tres_used\":\"cpu=1\",\"tres_weighted\":1.0},\n"
	"{\"architecture\":\"x86_64\",\"burstbuffer_network_address\":\"\",\"boards\":1,"
	"\"boot_time\":1795976761,\"comment\":\"\",\"cores\":1,\"cpu_binding\":0,\"cpu_load\":59,\"extra\":\"\","
	"\"free_memory\":19511,\"cpus\":4,\"last_busy\":1795994221,\"features\":\"\",\"active_features\":\"\","
	"\"gres\":\"gpu:fake:2\",\"gres_drained\":\"N/A\",\"gres_used\":\"gpu:fake:2(IDX:0-1)\",\"mcs_label\":\"\","
	"\"name\":\"n2\",\"next_state_after_reboot\":\"invalid\",\"address\":\"127.0.0.1\","
	"\"hostname\":\"localhost\",\"state\":\"mixed\",\"state_flags\":[\"DRAIN\"],"
	"\"next_state_after_reboot_flags\":[],"
	"\"operating_system\":\"Linux 6.18.44-fc-v657 #1 SMP PREEMPT_DYNAMIC @0\",\"owner\":null,"
	"\"partitions\":[\"debug\"],\"port\":17002,\"real_memory\":4000,\"reason\":\"x\","
	"\"reason_changed_at\":1795994223,\"reason_set_by_user\":\"root\",\"slurmd_start_time\":1795994221,"
	"\"sockets\":4,\"threads\":1,\"temporary_disk\":0,\"weight\":1,\"tres\":\"cpu=4,mem=4000M,billing=4\","
	"\"slurmd_version\":\"22.05.8\",\"alloc_memory\":0,\"alloc_cpus\":1,\"idle_cpus\":3,"
	"\"tres_used\":\"cpu=1\",\"tres_weighted\":1.0},\n"
	"{\"architecture\":\"x86_64\",\"burstbuffer_network_address\":\"\",\"boards\":1,"
	"\"boot_time\":1795976761,\"comment\":\"\",\"cores\":1,\"cpu_binding\":0,\"cpu_load\":59,\"extra\":\"\","
	"\"free_memory\":19510,\"cpus\":4,\"last_busy\":1795994223,\"features\":\"\",\"active_features\":\"\","
	"\"gres\":\"gpu:fake:2\",\"gres_drained\":\"N/A\",\"gres_used\":\"gpu:fake:0(IDX:N/A)\",\"mcs_label\":\"\","
	"\"name\":\"n3\",\"next_state_after_reboot\":\"invalid\",\"address\":\"127.0.0.1\","
	"\"hostname\":\"localhost\",\"state\":\"idle\",\"state_flags\":[\"DRAIN\"],"
	"\"next_state_after_reboot_flags\":[],"
	"\"operating_system\":\"Linux 6.18.44-fc-v657 #1 SMP PREEMPT_DYNAMIC @0\",\"owner\":null,"
	"\"partitions\":[\"debug\"],\"port\":17003,\"real_memory\":4000,\"reason\":\"hetlab: fan broken\","
	"\"reason_changed_at\":1795994223,\"reason_set_by_user\":\"root\",\"slurmd_start_time\":1795994221,"
	"\"sockets\":4,\"threads\":1,\"temporary_disk\":0,\"weight\":1,\"tres\":\"cpu=4,mem=4000M,billing=4\","
	"\"slurmd_version\":\"22.05.8\",\"alloc_memory\":0,\"alloc_cpus\":0,\"idle_cpus\":4,\"tres_used\":null,"
	"\"tres_weighted\":0.0},\n"
	"{\"architecture\":\"x86_64\",\"burstbuffer_network_address\":\"\",\"boards\":1,"
	"\"boot_time\":1795976761,\"comment\":\"\",\"cores\":1,\"cpu_binding\":0,\"cpu_load\":59,\"extra\":\"\","
	"\"free_memory\":19507,\"cpus\":4,\"last_busy\":1795994302,\"features\":\"\",\"active_features\":\"\","
	"\"gres\":\"gpu:fake:2\",\"gres_drained\":\"N/A\",\"gres_used\":\"gpu:fake:0(IDX:N/A)\",\"mcs_label\":\"\","
	"\"name\":\"n4\",\"next_state_after_reboot\":\"invalid\",\"address\":\"127.0.0.1\","
	"\"hostname\":\"localhost\",\"state\":\"down\",\"state_flags\":[],\"next_state_after_reboot_flags\":[],"
	"\"operating_system\":\"Linux 6.18.44-fc-v657 #1 SMP PREEMPT_DYNAMIC @0\",\"owner\":null,"
	"\"partitions\":[\"debug\"],\"port\":17004,\"real_memory\":4000,\"reason\":\"hetlab: pulled\","
	"\"reason_changed_at\":1795994309,\"reason_set_by_user\":\"root\",\"slurmd_start_time\":1795994221,"
	"\"sockets\":4,\"threads\":1,\"temporary_disk\":0,\"weight\":1,\"tres\":\"cpu=4,mem=4000M,billing=4\","
	"\"slurmd_version\":\"22.05.8\",\"alloc_memory\":0,\"alloc_cpus\":0,\"idle_cpus\":4,\"tres_used\":null,"
	"\"tres_weighted\":0.0}\n"
	"]}\n"
	;


/* ---- reading back -------------------------------------------------------- */

static const struct sx_jobinfo *find(const struct sx_jobinfo *v, int nv, int64_t id)
{
	for (int k = 0; k < nv; k++)
		if (v[k].id == id)
			return &v[k];
	return NULL;
}

static void test_parse_squeue_lines(void **state)
{
	struct fx *f = *state;
	struct sx_jobinfo *v;
	int nv;
	assert_int_equal(sx_parse_squeue(squeue_lines, &v, &nv, f->err, sizeof f->err), 0);
	assert_int_equal(nv, 10);
	static const struct {
		int64_t id, key;
		enum sx_state st;
		int code, sig, restarts, attempt;
		bool held;
		int64_t start;
		const char *nodes, *reason, *part;
	} want[] = {
		{ 4, 100, SX_HELD, 0, 0, 0, 0, true, -1, "", "JobHeldUser", "debug" },
		{ 5, 101, SX_RUNNING, 0, 0, 0, 0, false, 1796168413, "n[1-2]", "None", "debug" },
		{ 6, 102, SX_FAILED, 3, 0, 0, 0, false, 1796168413, "n3", "NonZeroExitCode", "debug" },
		{ 7, 103, SX_COMPLETED, 0, 0, 0, 0, false, 1796168413, "n3", "None", "debug" },
		{ 8, 104, SX_CANCELLED, 0, 15, 0, 0, false, 1796168413, "n4", "None", "debug" },
		{ 9, 105, SX_RUNNING, 0, 0, 0, 1, false, 1796168413, "n4", "None", "debug" },
		{ 10, 106, SX_HELD, 0, 0, 1, 0, true, 1796168427, "", "job requeued in held state", "second" },
		{ 11, 107, SX_PENDING, 0, 0, 0, 0, false, 1827704413, "", "Resources", "debug" },
		{ 12, 108, SX_FAILED, 0, 9, 0, 0, false, 1796168413, "n6", "JobLaunchFailure", "second" },
		{ 13, -1, SX_RUNNING, 0, 0, 0, -1, false, 1796168413, "n3", "None", "debug" },
	};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		const struct sx_jobinfo *j = find(v, nv, want[k].id);
		assert_non_null(j);
		if (j->st != want[k].st)
			print_message("job %lld: %s, want %s\n", (long long)j->id, sx_state_name(j->st),
			              sx_state_name(want[k].st));
		assert_int_equal(j->st, want[k].st);
		assert_int_equal(j->key, want[k].key);
		assert_int_equal(j->attempt, want[k].attempt);
		assert_int_equal(j->exit_code, want[k].code);
		assert_int_equal(j->exit_sig, want[k].sig);
		assert_int_equal(j->restarts, want[k].restarts);
		assert_int_equal(j->held, want[k].held);
		assert_int_equal(j->start_unix, want[k].start);
		assert_string_equal(j->nodes, want[k].nodes);
		assert_string_equal(j->reason, want[k].reason);
		assert_string_equal(j->partition, want[k].part);
		assert_string_equal(j->user, "root");
		assert_string_equal(j->state_id, want[k].key >= 0 ? SID : "");
	}
	assert_string_equal(find(v, nv, 13)->name, "myjob");
	assert_string_equal(find(v, nv, 13)->comment, "");
	assert_int_equal(find(v, nv, 7)->end_unix, 1796168414);
	assert_int_equal(find(v, nv, 4)->end_unix, -1);
	free(v);
	assert_int_equal(sx_parse_squeue(squeue_lines2, &v, &nv, f->err, sizeof f->err), 0);
	assert_int_equal(nv, 10);
	assert_int_equal(find(v, nv, 9)->st, SX_TIMEOUT);
	assert_int_equal(find(v, nv, 10)->st, SX_RUNNING);
	assert_int_equal(find(v, nv, 10)->restarts, 1);
	free(v);
	/* Comments that are not hetlab's, or not quite. */
	static const char *const notours[] = { "hetlab:0123:1:0", "hetlab:0123456789abcdef:x:0",
	                                       "hetlab:0123456789ABCDEF:1:0", "hetlab:0123456789abcdef:1:", "x" };
	for (size_t k = 0; k < sizeof notours / sizeof notours[0]; k++) {
		struct sx_jobinfo ji = { 0 };
		snprintf(ji.comment, sizeof ji.comment, "%s", notours[k]);
		sx_parse_comment(&ji);
		assert_int_equal(ji.key, -1);
		assert_string_equal(ji.state_id, "");
	}
}

static void test_parse_sacct(void **state)
{
	struct fx *f = *state;
	struct sx_acct *a;
	int na;
	assert_int_equal(sx_parse_sacct(sacct_lines, &a, &na, f->err, sizeof f->err), 0);
	assert_int_equal(na, 15);
	assert_int_equal(a[0].id, 1);
	assert_int_equal(a[0].st, SX_REQUEUED);
	assert_int_equal(a[2].id, 1);
	assert_int_equal(a[2].st, SX_COMPLETED);
	bool seen8 = false, seen4 = false, seen5 = false, seen12 = false;
	for (int k = 0; k < na; k++) {
		if (a[k].id == 8) {
			seen8 = true;
			assert_int_equal(a[k].st, SX_CANCELLED);   /* "CANCELLED by 0" */
		}
		if (a[k].id == 4) {
			seen4 = true;
			assert_int_equal(a[k].st, SX_PENDING);
			assert_int_equal(a[k].start_unix, -1);
			assert_string_equal(a[k].nodes, "");
		}
		if (a[k].id == 5) {
			seen5 = true;
			assert_int_equal(a[k].cpus, 2);
			assert_int_equal(a[k].gpus, 4);
			assert_int_equal(a[k].mem_mib, 1000);
			assert_int_equal(a[k].end_unix - a[k].start_unix, 61);
		}
		if (a[k].id == 12) {
			seen12 = true;
			assert_int_equal(a[k].exit_sig, 9);
		}
	}
	assert_true(seen8 && seen4 && seen5 && seen12);
	free(a);
	/* Through the command: the argv, and no accounting. */
	put(f, "sacct.out", sacct_lines);
	const int64_t ids[] = { 5, 6 };
	bool no_acct = true;
	assert_int_equal(sx_acct_by_id(&f->c, ids, 2, &a, &na, &no_acct, f->err, sizeof f->err), 0);
	assert_false(no_acct);
	assert_int_equal(na, 15);
	free(a);
	expect_log(f, "== sacct\n-n\n-P\n-D\n-X\n-j\n5,6\n--format\nJobIDRaw,JobName,State,ExitCode,Start,End,NodeList,AllocTRES\n");
	put(f, "sacct.out", "");
	put(f, "sacct.err", "sacct: error: Slurm accounting storage is disabled\n");
	put(f, "sacct.rc", "1");
	assert_int_equal(sx_acct_by_id(&f->c, ids, 2, &a, &na, &no_acct, f->err, sizeof f->err), -1);
	assert_true(no_acct);
	unlink(path_in(f, "log"));
}

static void test_parse_config(void **state)
{
	struct fx *f = *state;
	struct sx_config c;
	assert_int_equal(sx_parse_config(config_lines, &c, f->err, sizeof f->err), 0);
	assert_true(c.memory);
	assert_true(c.accounting);
	assert_false(c.job_comment);
	assert_int_equal(c.return_to_service, 2);
	assert_int_equal(c.min_job_age_s, 300);
	assert_int_equal(c.cred_expire_s, 10);
	assert_int_equal(c.job_requeue, 1);
	assert_false(c.sched_defer);
	assert_string_equal(c.preempt_mode, "OFF");
	assert_string_equal(c.version, "22.05.8");
	assert_int_equal(sx_parse_config("nothing here\n", &c, f->err, sizeof f->err), -1);
	assert_non_null(strstr(f->err, "expected 'Key = value' lines"));
}

static void test_jobs_through_squeue(void **state)
{
	struct fx *f = *state;
	struct sx_jobinfo *v;
	int nv;
	put(f, "squeue.out", squeue_lines);
	const int64_t ids[] = { 4, 5, 99 };
	assert_int_equal(sx_jobs_by_id(&f->c, ids, 3, &v, &nv, f->err, sizeof f->err), 0);
	assert_int_equal(nv, 10);
	free(v);
	char want[1024];
	snprintf(want, sizeof want, "== squeue\n-h\n-t\nall\n-j\n4,5,99\n-O\n%s\n", SX_SQUEUE_FORMAT);
	expect_log(f, want);
	const char *const names[] = { "hetlab-01234567-100", "bad name", "hetlab-01234567-101" };
	assert_int_equal(sx_jobs_by_name(&f->c, names, 3, &v, &nv, f->err, sizeof f->err), 0);
	free(v);
	snprintf(want, sizeof want, "== squeue\n-h\n-t\nall\n-n\nhetlab-01234567-100,hetlab-01234567-101\n-O\n%s\n",
	         SX_SQUEUE_FORMAT);
	expect_log(f, want);
	/* Every id unknown: squeue exits 1 with "Invalid job id": none, no error. */
	put(f, "squeue.out", "");
	put(f, "squeue.err", "slurm_load_jobs error: Invalid job id specified\n");
	put(f, "squeue.rc", "1");
	assert_int_equal(sx_jobs_by_id(&f->c, ids, 3, &v, &nv, f->err, sizeof f->err), 0);
	assert_int_equal(nv, 0);
	assert_null(v);
	/* squeue fails. */
	put(f, "squeue.err", "squeue: error: Unable to contact slurm controller (connect failure)\n");
	assert_int_equal(sx_jobs_by_id(&f->c, ids, 3, &v, &nv, f->err, sizeof f->err), -1);
	assert_string_equal(f->err, "squeue -h: exit status 1: squeue: error: Unable to contact "
	                    "slurm controller (connect failure)");
	/* 1200 ids: three squeues of at most 500. */
	unlink(path_in(f, "squeue.rc"));
	unlink(path_in(f, "squeue.err"));
	unlink(path_in(f, "log"));
	int64_t many[1200];
	for (int k = 0; k < 1200; k++)
		many[k] = k + 1;
	assert_int_equal(sx_jobs_by_id(&f->c, many, 1200, &v, &nv, f->err, sizeof f->err), 0);
	free(v);
	char *log = slurp(path_in(f, "log"));
	int n = 0;
	for (const char *p = log; (p = strstr(p, "== squeue")); p++)
		n++;
	assert_int_equal(n, 3);
	free(log);
	unlink(path_in(f, "log"));
}

/* The shadow's full format (live/shadow.c): the request too, before Reason. */
static void test_jobs_all_full(void **state)
{
	struct fx *f = *state;
	struct sx_jobinfo *v;
	int nv;
	put(f, "squeue.out",
	    "31|PENDING|0|0|0.00000000023283|1796169000|N/A|alice|debug,second|fc|(null)||1796168400|10:00|1|3|100M|N/A|"
	    "t0|normal|1001|40|3|Resources|\n"
	    "30|RUNNING|0|0|0.00000000023283|1796168410|1796168590|bob|debug|fc|(null)|n[1-2]|1796168400|1-02:03:04|2|8|"
	    "4000M|gres:gpu:fake:2|t1|hi|1000|N/A|N/A|None|\n"
	    "32|PENDING|0|0|0.00000000023283|N/A|N/A|bob|debug|fc|(null)||1796168401|UNLIMITED|1|1|0|N/A|t1|normal|7|"
	    "32|1-5%2|Priority|\n");
	assert_int_equal(sx_jobs_all(&f->c, &v, &nv, f->err, sizeof f->err), 0);
	char want[1024];
	snprintf(want, sizeof want, "== squeue\n-h\n-a\n-t\nall\n-O\n%s\n-r\n", SX_SQUEUE_FULL_FORMAT);
	expect_log(f, want);
	assert_int_equal(nv, 3);
	assert_true(v[0].full);
	assert_int_equal(v[0].st, SX_PENDING);
	assert_int_equal(v[0].start_unix, 1796169000);   /* squeue --start's estimate */
	assert_int_equal(v[0].submit_unix, 1796168400);
	assert_int_equal(v[0].limit_s, 600);
	assert_int_equal(v[0].nnodes, 1);
	assert_int_equal(v[0].ncpus, 3);
	assert_int_equal(v[0].mem_mib, 100);
	assert_int_equal(v[0].gpus, 0);
	assert_int_equal(v[0].prio, 1001);
	assert_string_equal(v[0].partition, "debug,second");
	assert_string_equal(v[0].account, "t0");
	assert_string_equal(v[0].reason, "Resources");
	assert_int_equal(v[1].limit_s, 93784);
	assert_int_equal(v[1].gpus, 2);
	assert_int_equal(v[1].mem_mib, 4000);
	assert_string_equal(v[1].nodes, "n[1-2]");
	assert_string_equal(v[1].qos, "hi");
	assert_int_equal(v[2].limit_s, -1);
	assert_int_equal(v[2].start_unix, -1);
	/* an array's task (squeue -r), a job that is not one, and the pending
	 * tasks of one record as squeue without -r prints them (one job) */
	assert_true(v[0].array_job == 40 && v[0].array_task == 3);
	assert_true(v[1].array_job == -1 && v[1].array_task == -1);
	assert_true(v[2].array_job == -1 && v[2].array_task == -1);
	free(v);
	/* A bad time limit names the job and the field. */
	put(f, "squeue.out", "31|PENDING|0|0|0.1|N/A|N/A|alice|debug|fc|(null)||1796168400|soon|1|3|100M|N/A|t0|normal|1|"
	    "N/A|N/A|Resources|\n");
	assert_int_equal(sx_jobs_all(&f->c, &v, &nv, f->err, sizeof f->err), -1);
	assert_string_equal(f->err, "squeue: line 1 (job 31): TimeLimit 'soon': expected a duration ([D-]HH:MM:SS, MM:SS) "
	                    "or UNLIMITED");
	/* The executor's format has fewer fields: not the full one. */
	put(f, "squeue.out", squeue_lines);
	assert_int_equal(sx_jobs_all(&f->c, &v, &nv, f->err, sizeof f->err), -1);
	assert_string_equal(f->err, "squeue: line 1: expected 24 '|'-separated fields, got 14");
	unlink(path_in(f, "log"));
}

static void test_duration(void **state)
{
	(void)state;
	assert_int_equal(sx_duration_s("5"), 300);
	assert_int_equal(sx_duration_s("2:30"), 150);
	assert_int_equal(sx_duration_s("1:00:00"), 3600);
	assert_int_equal(sx_duration_s("2-00:00:01"), 172801);
	assert_int_equal(sx_duration_s("UNLIMITED"), -1);
	assert_int_equal(sx_duration_s("NOT_SET"), -1);
	assert_int_equal(sx_duration_s("1:xx"), -2);
	assert_int_equal(sx_duration_s(""), -2);
}

/* A read-only context (hetlab shadow) runs the readers and refuses
 * anything else without running it. */
static void test_read_only(void **state)
{
	struct fx *f = *state;
	f->c.read_only = true;
	put(f, "squeue.out", "");
	struct sx_jobinfo *v;
	int nv;
	assert_int_equal(sx_jobs_all(&f->c, &v, &nv, f->err, sizeof f->err), 0);
	unlink(path_in(f, "log"));
	assert_int_equal(sx_cancel(&f->c, 5, f->err, sizeof f->err), -1);
	assert_non_null(strstr(f->err, "scancel: refused: this context is read-only"));
	assert_int_equal(sx_drain(&f->c, "n1", "x", f->err, sizeof f->err), -1);
	assert_int_equal(sx_hold(&f->c, 5, f->err, sizeof f->err), -1);
	struct sx_cmd cmd;
	const char *av[] = { "sbatch", "--wrap", "true", NULL };
	sx_cmd_set(&cmd, av);
	assert_int_equal(sx_run(&f->c, &cmd), -1);
	assert_non_null(strstr(cmd.err, "sbatch: refused"));
	sx_cmd_done(&cmd);
	expect_log(f, "");   /* none of them ran */
	f->c.read_only = false;
}

static const struct sx_nodeinfo *find_node(const struct sx_nodeinfo *v, int nv, const char *name)
{
	for (int k = 0; k < nv; k++)
		if (strcmp(v[k].name, name) == 0)
			return &v[k];
	return NULL;
}

static void test_parse_sinfo_2205(void **state)
{
	struct fx *f = *state;
	struct sx_nodeinfo *v;
	int nv;
	put(f, "sinfo.out", sinfo_2205);
	assert_int_equal(sx_nodes(&f->c, &v, &nv, f->err, sizeof f->err), 0);
	expect_log(f, "== sinfo\n--json\n");
	assert_int_equal(nv, 4);
	static const struct {
		const char *name, *state;
		bool drain, down, idle, alloc, mixed;
		int alloc_cpus, gpus_used;
		const char *reason;
	} want[] = {
		{ "n1", "mixed", false, false, false, false, true, 1, 2, "" },
		{ "n2", "mixed", true, false, false, false, true, 1, 2, "x" },
		{ "n3", "idle", true, false, true, false, false, 0, 0, "hetlab: fan broken" },
		{ "n4", "down", false, true, false, false, false, 0, 0, "hetlab: pulled" },
	};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		const struct sx_nodeinfo *x = find_node(v, nv, want[k].name);
		assert_non_null(x);
		assert_string_equal(x->state, want[k].state);
		assert_int_equal(x->drain, want[k].drain);
		assert_int_equal(x->down, want[k].down);
		assert_int_equal(x->idle, want[k].idle);
		assert_int_equal(x->alloc, want[k].alloc);
		assert_int_equal(x->mixed, want[k].mixed);
		assert_int_equal(x->cpus, 4);
		assert_int_equal(x->alloc_cpus, want[k].alloc_cpus);
		assert_int_equal(x->mem_mib, 4000);
		assert_int_equal(x->gpus, 2);
		assert_int_equal(x->gpus_used, want[k].gpus_used);
		assert_false(x->not_responding);
		assert_string_equal(x->reason, want[k].reason);
	}
	free(v);
	assert_int_equal(sx_parse_nodes(sinfo_2205, "other", &v, &nv, f->err, sizeof f->err), 0);
	assert_int_equal(nv, 0);
	assert_null(v);
	/* Every node of that capture has registered; after a slurmctld restart
	 * (22.05, captured) a node whose slurmd has not yet shows no version,
	 * and a 2-GPU job's GPUs twice in gres_used. A form without the key
	 * says nothing: registered. */
	const char *restarted =
		"{\"nodes\":[{\"name\":\"n3\",\"state\":\"mixed\",\"state_flags\":[],\"boot_time\":0,\"cpus\":4,"
		"\"gres\":\"gpu:fake:2\",\"gres_used\":\"gpu:fake:4\",\"slurmd_start_time\":0,\"slurmd_version\":\"\","
		"\"alloc_memory\":500,\"alloc_cpus\":1,\"tres_used\":\"cpu=1,mem=500M,gres/gpu=2\"},"
		"{\"name\":\"n4\",\"state\":\"idle\",\"gres\":\"gpu:fake:2\",\"gres_used\":\"gpu:fake:0\"}]}";
	assert_int_equal(sx_parse_nodes(restarted, NULL, &v, &nv, f->err, sizeof f->err), 0);
	assert_int_equal(nv, 2);
	assert_true(v[0].unregistered);
	assert_int_equal(v[0].gpus_used, 4);
	assert_false(v[1].unregistered);
	free(v);
	assert_int_equal(sx_parse_nodes(sinfo_2205, NULL, &v, &nv, f->err, sizeof f->err), 0);
	for (int k = 0; k < nv; k++)
		assert_false(v[k].unregistered);
	free(v);
}

/* The later data_parser form (Slurm 23.x), written by hand from its
 * documentation: not a capture. */
static void test_parse_later_form(void **state)
{
	struct fx *f = *state;
	struct sx_nodeinfo *nd;
	int nv;
	const char *nodes =
		"{\"nodes\":[{\"name\":\"a1\",\"state\":[\"IDLE\",\"DRAIN\",\"NOT_RESPONDING\"],"
		"\"cpus\":64,\"real_memory\":{\"set\":true,\"number\":512000},\"partitions\":[\"a\",\"b\"],"
		"\"gres\":\"gpu:a100:4(S:0-1),gpu:2,mps:100,gpus:7\",\"gres_used\":\"gpu:a100:1(IDX:0),gpu:0\"}]}";
	assert_int_equal(sx_parse_nodes(nodes, NULL, &nd, &nv, f->err, sizeof f->err), 0);
	assert_int_equal(nv, 1);
	assert_true(nd[0].idle && nd[0].drain && nd[0].not_responding);
	assert_false(nd[0].down);
	assert_int_equal(nd[0].mem_mib, 512000);
	assert_int_equal(nd[0].gpus, 6);
	assert_int_equal(nd[0].gpus_used, 1);
	assert_string_equal(nd[0].partitions, "a,b");
	free(nd);
}

static void test_parse_garbage(void **state)
{
	struct fx *f = *state;
	struct sx_jobinfo *v = (void *)1;
	struct sx_nodeinfo *nd = (void *)1;
	int nv = -1;
	static const struct { const char *text, *msg; } jobs[] = {
		{ "1|RUNNING|0\n", "squeue: line 1: expected 13 '|'-separated fields, got 3" },
		{ "x|RUNNING|0|0|1|1|1|u|p|n|c|n1|None|\n", "line 1: JobID 'x': expected a job id" },
		{ "5|RUNNING|0|0|1|1|1|u|p|n|c|n1|None|\n-1|RUNNING|0|0|1|1|1|u|p|n|c|n1|None|\n",
		  "line 2: JobID '-1'" },
		{ "5|RUNNING|0|0|1|2026-12-01T23:00:00|N/A|u|p|n|c|n1|None|\n",
		  "StartTime '2026-12-01T23:00:00' / EndTime 'N/A': expected Unix seconds" },
	};
	for (size_t k = 0; k < sizeof jobs / sizeof jobs[0]; k++) {
		assert_int_equal(sx_parse_squeue(jobs[k].text, &v, &nv, f->err, sizeof f->err), -1);
		if (!strstr(f->err, jobs[k].msg))
			print_message("case %zu: %s\n", k, f->err);
		assert_non_null(strstr(f->err, jobs[k].msg));
		assert_null(v);
		assert_int_equal(nv, 0);
	}
	/* The real capture cut short anywhere: an error or fewer jobs, never a crash. */
	size_t len = strlen(squeue_lines);
	char *cut = malloc(len + 1);
	for (size_t at = 0; at < len; at += 7) {
		memcpy(cut, squeue_lines, at);
		cut[at] = '\0';
		if (sx_parse_squeue(cut, &v, &nv, f->err, sizeof f->err) == 0)
			free(v);
	}
	free(cut);
	struct sx_acct *a;
	int na;
	assert_int_equal(sx_parse_sacct("1|x|COMPLETED\n", &a, &na, f->err, sizeof f->err), -1);
	assert_non_null(strstr(f->err, "sacct: line 1: expected 8 '|'-separated fields"));
	assert_int_equal(sx_parse_sacct("1|x|COMPLETED|0:0|soon|1|n1|\n", &a, &na, f->err, sizeof f->err), -1);
	assert_non_null(strstr(f->err, "Start 'soon'"));
	/* A TRES count no count can be is none (its cast was undefined: found
	 * by tests/fuzz/fuzz_squeue). */
	assert_int_equal(sx_parse_sacct("1|x|COMPLETED|0:0|1|2|n1|cpu=1e99,gres/gpu=-4,mem=nanG\n", &a, &na, f->err,
	                                sizeof f->err), 0);
	assert_int_equal(na, 1);
	assert_int_equal(a[0].cpus, 0);
	assert_int_equal(a[0].gpus, 0);
	assert_int_equal(a[0].mem_mib, 0);
	free(a);
	a = NULL;
	assert_int_equal(sx_parse_sacct("1.batch|batch|COMPLETED|0:0|1|2|n1|cpu=1\n", &a, &na, f->err, sizeof f->err), 0);
	assert_int_equal(na, 0);
	len = strlen(sinfo_2205);
	cut = malloc(len + 1);
	for (size_t at = 0; at < len; at += 53) {
		memcpy(cut, sinfo_2205, at);
		cut[at] = '\0';
		assert_int_equal(sx_parse_nodes(cut, NULL, &nd, &nv, f->err, sizeof f->err), -1);
		assert_non_null(strstr(f->err, "sinfo --json: expected JSON"));
		assert_null(nd);
	}
	free(cut);
	static const struct { const char *text, *msg; } nodes[] = {
		{ "{\"nodes\":{}}", "expected an object with a \"nodes\" array" },
		{ "{\"nodes\":[{\"state\":\"idle\"}]}", "nodes[0]: expected an object with a name" },
		{ "{\"nodes\":[{\"name\":\"n1\"}]}", "nodes[0] (n1): expected state" },
		{ "{\"nodes\":[{\"name\":\"n1\",\"state\":\"idle\",\"gres\":\"gpu:a100:x\"}]}",
		  "gres 'gpu:a100:x'" },
		{ "{\"nodes\":[{\"name\":\"n1\",\"state\":\"idle\",\"gres\":\"gpu:\"}]}", "gres 'gpu:'" },
	};
	for (size_t k = 0; k < sizeof nodes / sizeof nodes[0]; k++) {
		assert_int_equal(sx_parse_nodes(nodes[k].text, NULL, &nd, &nv, f->err, sizeof f->err), -1);
		if (!strstr(f->err, nodes[k].msg))
			print_message("case %zu: %s\n", k, f->err);
		assert_non_null(strstr(f->err, nodes[k].msg));
	}
	/* A number past int64 is none (its cast was undefined: found by
	 * tests/fuzz/fuzz_squeue when it read squeue --json). */
	assert_int_equal(sx_parse_nodes("{\"nodes\":[{\"name\":\"n1\",\"state\":\"idle\",\"real_memory\":4.2e29}]}",
	                                NULL, &nd, &nv, f->err, sizeof f->err), 0);
	assert_int_equal(nv, 1);
	assert_int_equal(nd[0].mem_mib, 0);
	free(nd);
	/* Through the command: sinfo printing its text format. */
	put(f, "sinfo.out", "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\ndebug* up infinite 4 idle n[1-4]\n");
	assert_int_equal(sx_nodes(&f->c, &nd, &nv, f->err, sizeof f->err), -1);
	assert_non_null(strstr(f->err, "sinfo --json: expected JSON"));
	unlink(path_in(f, "log"));
}

static void test_state_names(void **state)
{
	(void)state;
	assert_string_equal(sx_state_name(SX_HELD), "HELD");
	assert_string_equal(sx_state_name(SX_OOM), "OUT_OF_MEMORY");
	assert_string_equal(sx_state_name(SX_SUSPENDED), "SUSPENDED");
	assert_string_equal(sx_state_name((enum sx_state)99), "?");
	for (int s = SX_PENDING; s <= SX_SUSPENDED; s++)
		assert_string_not_equal(sx_state_name((enum sx_state)s), "?");
	assert_false(sx_state_final(SX_HELD));
	assert_false(sx_state_final(SX_REQUEUED));
	assert_false(sx_state_final(SX_COMPLETING));
	assert_true(sx_state_final(SX_TIMEOUT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_parse_squeue_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_sacct, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_config, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jobs_through_squeue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_sinfo_2205, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_later_form, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_garbage, setup, teardown),
		cmocka_unit_test(test_state_names),
		cmocka_unit_test_setup_teardown(test_jobs_all_full, setup, teardown),
		cmocka_unit_test(test_duration),
		cmocka_unit_test_setup_teardown(test_read_only, setup, teardown),
	};
	return cmocka_run_group_tests_name("exec_slurm_parse", tests, NULL, NULL);
}
