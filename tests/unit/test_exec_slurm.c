/* exec_slurm: the Slurm executor (live/exec_slurm) against fake sbatch,
 * scontrol, squeue, sinfo, scancel and sacct: shell scripts written into a fresh
 * temporary directory that log their argv one argument a line (after a
 * "== NAME" line) and their environment (NAME.env, sorted, without the PWD
 * sh adds) and print what the test left in NAME.out / NAME.err, exit
 * with NAME.rc, or hang when NAME.hang exists. Checked: the exact argv of
 * every action, the batch script run by sh (quotes, spaces, $(...), the
 * attempt and nodes it computes, the checkpoint requeue, a signal death),
 * the parsers on squeue -O and sacct lines and sinfo JSON recorded on the
 * local 22.05.8 cluster
 * (tests/slurm/local-slurm.sh), garbage and truncated output, a command that
 * fails, one that cannot be run, and one that hangs. The real-cluster test is
 * tests/slurm/exec.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config/livecfg.h"
#include "live/exec_slurm.h"

/* squeue --json on the local cluster (Slurm 22.05.8): job 1 verbatim; the
 * others cut to the keys the parser reads and a few more. Jobs: 1 held
 * (hetlab-100), 2 running on n1,n2, 3 exit 3, 4 completed, 5 cancelled while
 * running (the batch shell's exit 143), 6 requeued held after running on n3,
 * 7 released but waiting (Resources), 8 killed by SIGKILL, 10 not hetlab's,
 * 9 TIMEOUT (from a second capture, after one requeue by a node set DOWN). */
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

/* ---- the fake commands --------------------------------------------------- */

struct fx {
	char dir[PATH_MAX];
	struct sx_ctx c;
	char err[1024];
};

static const char *const fake_names[] = { "sbatch", "scontrol", "squeue", "sinfo", "scancel", "sacct", NULL };

static char *path_in(const struct fx *f, const char *name)
{
	static char buf[4][PATH_MAX + 64];
	static int k;
	char *p = buf[k++ % 4];
	snprintf(p, sizeof buf[0], "%s/%s", f->dir, name);
	return p;
}

static void put(const struct fx *f, const char *name, const char *text)
{
	FILE *fp = fopen(path_in(f, name), "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* The whole of a file (malloc'd), "" when absent. */
static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return strdup("");
	char *s = NULL;
	size_t cap = 0, len = 0;
	int ch;
	while ((ch = fgetc(fp)) != EOF) {
		if (len + 2 > cap) {
			cap = cap ? 2 * cap : 4096;
			s = realloc(s, cap);
			assert_non_null(s);
		}
		s[len++] = (char)ch;
	}
	fclose(fp);
	if (!s)
		return strdup("");
	s[len] = '\0';
	return s;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof *f);
	const char *tmp = getenv("TMPDIR");
	snprintf(f->dir, sizeof f->dir, "%s/hetlab-sx-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(f->dir))
		return -1;
	char script[PATH_MAX * 2 + 1024];
	snprintf(script, sizeof script,
	         "#!/bin/sh\n"
	         "d='%s'\n"
	         "me=${0##*/}\n"
	         "{ echo \"== $me\"; for a in \"$@\"; do printf '%%s\\n' \"$a\"; done; } >>\"$d/log\"\n"
	         "printf '%%s\\n' \"${SLURM_CONF-unset}\" >\"$d/$me.conf\"\n"
	         "env | grep -v '^PWD=' | sort >\"$d/$me.env\"\n"
	         "ls /proc/$$/fd >\"$d/$me.fds\"\n"
	         "if [ \"$me\" = sbatch ]; then for a in \"$@\"; do last=$a; done; cp \"$last\" \"$d/submitted.sh\"; fi\n"
	         "[ -f \"$d/$me.hang\" ] && exec sleep 600\n"
	         "[ -f \"$d/$me.out\" ] && cat \"$d/$me.out\"\n"
	         "[ -f \"$d/$me.err\" ] && cat \"$d/$me.err\" >&2\n"
	         "[ -f \"$d/$me.rc\" ] && exit \"$(cat \"$d/$me.rc\")\"\n"
	         "exit 0\n", f->dir);
	snprintf(f->c.bindir, sizeof f->c.bindir, "%s/bin", f->dir);
	if (mkdir(f->c.bindir, 0755) < 0)
		return -1;
	for (int k = 0; fake_names[k]; k++) {
		char p[PATH_MAX + 64];
		snprintf(p, sizeof p, "%s/%s", f->c.bindir, fake_names[k]);
		FILE *fp = fopen(p, "w");
		if (!fp)
			return -1;
		fputs(script, fp);
		fclose(fp);
		chmod(p, 0755);
	}
	snprintf(f->c.workdir, sizeof f->c.workdir, "%s/work", f->dir);
	if (mkdir(f->c.workdir, 0755) < 0)
		return -1;
	f->c.timeout_s = 10;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[PATH_MAX + 32];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		print_message("could not remove %s\n", f->dir);
	free(f);
	return 0;
}

/* The log of the fake commands since the last call, then cleared. */
static void expect_log(struct fx *f, const char *want)
{
	char *got = slurp(path_in(f, "log"));
	if (strcmp(got, want) != 0)
		print_message("argv log:\n--- got\n%s--- want\n%s---\n", got, want);
	assert_string_equal(got, want);
	free(got);
	unlink(path_in(f, "log"));
}

/* ---- submitting ---------------------------------------------------------- */

static const char *const tricky_argv[] = {
	"printf", "%s\\n", "a b", "it's", "$(touch pwned)", "`id`", "\"q\"", "", "tab\there", "nl\nx", NULL,
};

#define SID "0123456789abcdef"

/* Runs script (a batch script) with sh in dir, with the Slurm variables
 * given, the fake commands first in PATH; its exit status as system() has it. */
static int run_script(struct fx *f, const char *script, const char *vars, const char *out)
{
	char cmd[4 * PATH_MAX];
	snprintf(cmd, sizeof cmd, "cd '%s' && env PATH='%s':\"$PATH\" %s sh '%s' >'%s' 2>&1", f->dir, f->c.bindir, vars,
	         script, out);
	return system(cmd);
}

static void test_submit_argv_and_script(void **state)
{
	struct fx *f = *state;
	const char *const env[] = { "FOO=bar baz", "Q=it's $(x)", NULL };
	const char *const nodes[] = { "n1", "n2", NULL };
	struct sx_job j = {
		.state_id = SID, .key = 42, .attempt = 2, .argv = tricky_argv, .env = env, .nodes = 2,
		.nodelist = nodes, .cpus_per_node = 3, .gres = "gpu:h100:1", .mem_mib_per_node = 2048,
		.walltime_s = 90061, .account = "tenantA", .qos = "high", .uid = 1000, .gid = 100, .ckpt_sig = SIGUSR1,
	};
	int64_t id = 0;
	snprintf(f->c.partition, sizeof f->c.partition, "gpu");
	put(f, "sbatch.out", "1234;hetlab\n");
	assert_int_equal(sx_submit(&f->c, &j, &id, f->err, sizeof f->err), 0);
	assert_int_equal(id, 1234);
	char want[8192];
	snprintf(want, sizeof want,
	         "== sbatch\n--parsable\n--requeue\n--open-mode=append\n--export=ALL\n--job-name=hetlab-01234567-42\n"
	         "--comment=hetlab:" SID ":42:2\n--chdir=%s/work\n--output=%s/work/hetlab-42-%%j.out\n--partition=gpu\n"
	         "--account=tenantA\n--qos=high\n--nodes=2\n--nodelist=n1,n2\n--ntasks-per-node=1\n--cpus-per-task=3\n"
	         "--mem=2048M\n--gres=gpu:h100:1\n--time=1-01:01:01\n--uid=1000\n--gid=100\n%s/work/hetlab-42.sh\n",
	         f->dir, f->dir, f->dir);
	expect_log(f, want);

	/* The script sbatch got is the one in workdir, and sh runs exactly the argv. */
	char *sub = slurp(path_in(f, "submitted.sh")), *mine;
	char sp[PATH_MAX + 64];
	snprintf(sp, sizeof sp, "%s/work/hetlab-42.sh", f->dir);
	mine = slurp(sp);
	assert_string_equal(sub, mine);
	assert_non_null(strstr(mine, "#!/bin/sh\n"));
	assert_non_null(strstr(mine, "'printf' '%s\\n' 'a b' 'it'\\''s' '$(touch pwned)'"));
	free(sub);
	free(mine);
	assert_int_equal(run_script(f, sp, "SLURM_JOB_NODELIST=n1", path_in(f, "run.out")), 0);
	char *out = slurp(path_in(f, "run.out"));
	assert_string_equal(out, "a b\nit's\n$(touch pwned)\n`id`\n\"q\"\n\ntab\there\nnl\nx\n");
	free(out);
	assert_int_not_equal(access(path_in(f, "pwned"), F_OK), 0);

	/* The environment entries are exported as given; HETLAB_ATTEMPT is the
	 * first attempt plus Slurm's restarts, HETLAB_NODES the nodes Slurm
	 * gave (here the fake scontrol prints nothing: the node list itself). */
	const char *const show[] = { "sh", "-c", "printf '%s|%s|%s|%s\\n' \"$FOO\" \"$Q\" \"$HETLAB_ATTEMPT\" "
	                             "\"$HETLAB_NODES\"", NULL };
	char buf[8192];
	j.argv = show;
	assert_true(sx_script(&j, SX_EXPORT_MINIMAL, buf, sizeof buf, f->err, sizeof f->err) > 0);
	put(f, "env.sh", buf);
	assert_int_equal(run_script(f, path_in(f, "env.sh"), "SLURM_RESTART_COUNT=3 SLURM_JOB_NODELIST=n7",
	                            path_in(f, "env.out")), 0);
	out = slurp(path_in(f, "env.out"));
	assert_string_equal(out, "bar baz|it's $(x)|5|n7\n");
	free(out);
	unlink(path_in(f, "log"));
	/* With the real node list from scontrol show hostnames. */
	put(f, "scontrol.out", "n1\nn2\n");
	assert_int_equal(run_script(f, path_in(f, "env.sh"), "SLURM_JOB_NODELIST='n[1-2]'", path_in(f, "env.out")), 0);
	out = slurp(path_in(f, "env.out"));
	assert_string_equal(out, "bar baz|it's $(x)|2|n1,n2\n");
	free(out);
	expect_log(f, "== scontrol\nshow\nhostnames\nn[1-2]\n");
}

/* The wrapper on the checkpoint signal: the program gets it and exits;
 * the wrapper requeues its own job held (here the fake scontrol fails:
 * it tries again, as while slurmctld restarts, then exits with the
 * program's status). A program killed by a signal kills the wrapper with
 * that signal. */
static void test_script_checkpoint_and_signal(void **state)
{
	struct fx *f = *state;
	const char *const ckpt[] = { "sh", "-c", "trap 'echo ckpt; exit 7' USR1; kill -USR1 $PPID $$; while :; do sleep 0.05; done",
	                             NULL };
	struct sx_job j = { .state_id = SID, .key = 5, .argv = ckpt, .nodes = 1, .ckpt_sig = SIGUSR1 };
	char buf[8192];
	assert_true(sx_script(&j, SX_EXPORT_MINIMAL, buf, sizeof buf, f->err, sizeof f->err) > 0);
	put(f, "ck.sh", buf);
	put(f, "scontrol.rc", "1");
	int st = run_script(f, path_in(f, "ck.sh"), "SLURM_JOB_ID=77 HETLAB_REQUEUE_TRIES=2", path_in(f, "ck.out"));
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 7);
	char *out = slurp(path_in(f, "ck.out"));
	assert_non_null(strstr(out, "ckpt\n"));
	assert_non_null(strstr(out, "hetlab: exited (7) after the checkpoint signal: requeued held"));
	free(out);
	char *log = slurp(path_in(f, "log"));
	assert_non_null(strstr(log, "== scontrol\nrequeuehold\n77\n== scontrol\nrequeuehold\n77\n"));
	assert_null(strstr(log, "== scontrol\nrequeuehold\n77\n== scontrol\nrequeuehold\n77\n== scontrol"));
	free(log);
	unlink(path_in(f, "log"));
	unlink(path_in(f, "scontrol.rc"));
	/* Killed by SIGKILL: so is the wrapper (sh reports 128 + 9 for it). */
	const char *const die[] = { "sh", "-c", "kill -9 $$", NULL };
	j.argv = die;
	assert_true(sx_script(&j, SX_EXPORT_MINIMAL, buf, sizeof buf, f->err, sizeof f->err) > 0);
	put(f, "die.sh", buf);
	char cmd[2 * PATH_MAX];
	snprintf(cmd, sizeof cmd, "sh '%s' >/dev/null 2>&1; echo $? >'%s'", path_in(f, "die.sh"), path_in(f, "die.rc"));
	assert_int_equal(system(cmd), 0);
	out = slurp(path_in(f, "die.rc"));
	assert_string_equal(out, "137\n");
	free(out);
	/* A plain exit status goes through. */
	const char *const three[] = { "sh", "-c", "exit 3", NULL };
	j.argv = three;
	assert_true(sx_script(&j, SX_EXPORT_MINIMAL, buf, sizeof buf, f->err, sizeof f->err) > 0);
	put(f, "three.sh", buf);
	st = run_script(f, path_in(f, "three.sh"), "", path_in(f, "three.out"));
	assert_int_equal(WEXITSTATUS(st), 3);
}

static void test_submit_minimal(void **state)
{
	struct fx *f = *state;
	const char *const argv[] = { "/bin/true", NULL };
	struct sx_job j = { .state_id = SID, .key = 0, .argv = argv, .nodes = 1, .uid = -1, .gid = -1 };
	int64_t id = 0;
	put(f, "sbatch.out", "7\n");
	assert_int_equal(sx_submit(&f->c, &j, &id, f->err, sizeof f->err), 0);
	assert_int_equal(id, 7);
	char want[4096];
	snprintf(want, sizeof want,
	         "== sbatch\n--parsable\n--hold\n--requeue\n--open-mode=append\n--export=ALL\n"
	         "--job-name=hetlab-01234567-0\n--comment=hetlab:" SID ":0:0\n"
	         "--chdir=%s/work\n--output=%s/work/hetlab-0-%%j.out\n--nodes=1\n--ntasks-per-node=1\n"
	         "%s/work/hetlab-0.sh\n", f->dir, f->dir, f->dir);
	expect_log(f, want);
	char name[96];
	sx_job_name(SID, 12, name, sizeof name);
	assert_string_equal(name, "hetlab-01234567-12");
}

/* Runs script with sh in an environment of exactly vars (the fake
 * commands first in PATH, as Slurm would start it); output into out. */
static void run_clean(struct fx *f, const char *script, const char *vars, const char *out)
{
	char cmd[4 * PATH_MAX];
	snprintf(cmd, sizeof cmd, "cd '%s' && env -i PATH='%s':/usr/bin:/bin %s sh '%s' >'%s' 2>&1", f->dir,
	         f->c.bindir, vars, script, out);
	assert_int_equal(system(cmd), 0);
}

/* slurm.export. "minimal" (the default): sbatch --export=ALL from PATH and
 * SLURM_CONF only, so that nothing of the daemon's environment (a secret,
 * an SBATCH_* setting) reaches sbatch or the job, and the batch script
 * sets HOME, USER, LOGNAME and SHELL from the user's passwd entry (a job's
 * own env entry still wins). "login": --export=NONE (the user's login
 * environment, read by slurmd), no passwd lines. The other commands keep
 * the daemon's environment either way. */
static void test_submit_environment(void **state)
{
	struct fx *f = *state;
	const char *const show[] = { "sh", "-c", "printf '%s|%s|%s|%s|%s\\n' \"$HOME\" \"$USER\" \"$LOGNAME\" "
	                             "\"$SHELL\" \"${HETLAB_SECRET-unset}\"", NULL };
	const char *const home[] = { "HOME=/custom", NULL };
	struct sx_job j = { .state_id = SID, .key = 8, .argv = show, .nodes = 1, .uid = -1, .gid = -1 };
	int64_t id = 0;
	char *old = getenv("SLURM_CONF") ? strdup(getenv("SLURM_CONF")) : NULL;
	unsetenv("SLURM_CONF");
	setenv("HETLAB_SECRET", "x", 1);
	setenv("SBATCH_PARTITION", "elsewhere", 1);
	put(f, "sbatch.out", "8\n");
	snprintf(f->c.slurm_conf, sizeof f->c.slurm_conf, "/etc/x y/slurm.conf");
	assert_int_equal(sx_submit(&f->c, &j, &id, f->err, sizeof f->err), 0);
	char *e = slurp(path_in(f, "sbatch.env"));
	assert_string_equal(e, "PATH=/usr/local/bin:/usr/bin:/bin\nSLURM_CONF=/etc/x y/slurm.conf\n");
	free(e);
	char *log = slurp(path_in(f, "log"));
	assert_non_null(strstr(log, "\n--export=ALL\n"));
	free(log);
	unlink(path_in(f, "log"));
	assert_int_equal(sx_cancel(&f->c, 8, f->err, sizeof f->err), 0);
	e = slurp(path_in(f, "scancel.env"));
	assert_non_null(strstr(e, "HETLAB_SECRET=x\n"));
	assert_non_null(strstr(e, "SLURM_CONF=/etc/x y/slurm.conf\n"));
	assert_non_null(strstr(e, "SLURM_TIME_FORMAT=%s\n"));
	free(e);
	/* SLURM_CONF from the daemon's environment; none at all: PATH alone. */
	f->c.slurm_conf[0] = '\0';
	setenv("SLURM_CONF", "/inherited.conf", 1);
	assert_int_equal(sx_submit(&f->c, &j, &id, f->err, sizeof f->err), 0);
	e = slurp(path_in(f, "sbatch.env"));
	assert_string_equal(e, "PATH=/usr/local/bin:/usr/bin:/bin\nSLURM_CONF=/inherited.conf\n");
	free(e);
	unsetenv("SLURM_CONF");
	assert_int_equal(sx_submit(&f->c, &j, &id, f->err, sizeof f->err), 0);
	e = slurp(path_in(f, "sbatch.env"));
	assert_string_equal(e, "PATH=/usr/local/bin:/usr/bin:/bin\n");
	free(e);

	/* The job, started with sbatch's environment and wrong identity
	 * variables, gets its user's from passwd. */
	const struct passwd *pw = getpwuid(getuid());
	assert_non_null(pw);
	char want[1024];
	snprintf(want, sizeof want, "%s|%s|%s|%s|unset\n", pw->pw_dir, pw->pw_name, pw->pw_name,
	         pw->pw_shell && pw->pw_shell[0] ? pw->pw_shell : "/bin/sh");
	char sp[PATH_MAX + 64];
	snprintf(sp, sizeof sp, "%s/work/hetlab-8.sh", f->dir);
	run_clean(f, sp, "SLURM_JOB_NODELIST=n1 HOME=/wrong USER=wrong LOGNAME=wrong SHELL=/wrong",
	          path_in(f, "pw.out"));
	char *out = slurp(path_in(f, "pw.out"));
	assert_string_equal(out, want);
	free(out);
	/* A job's own HOME wins. */
	j.env = home;
	assert_int_equal(sx_submit(&f->c, &j, &id, f->err, sizeof f->err), 0);
	run_clean(f, sp, "SLURM_JOB_NODELIST=n1", path_in(f, "pw.out"));
	out = slurp(path_in(f, "pw.out"));
	assert_string_equal(strchr(out, '|'), strchr(want, '|'));
	assert_int_equal(strncmp(out, "/custom|", 8), 0);
	free(out);
	j.env = NULL;
	unlink(path_in(f, "log"));

	/* "login": --export=NONE; sbatch runs in the daemon's environment (the
	 * job does not get it), the script leaves the identity to Slurm's login
	 * environment. */
	f->c.export_env = SX_EXPORT_LOGIN;
	assert_int_equal(sx_submit(&f->c, &j, &id, f->err, sizeof f->err), 0);
	log = slurp(path_in(f, "log"));
	assert_non_null(strstr(log, "\n--export=NONE\n"));
	assert_null(strstr(log, "--export=ALL"));
	free(log);
	e = slurp(path_in(f, "sbatch.env"));
	assert_non_null(strstr(e, "HETLAB_SECRET=x\n"));
	assert_non_null(strstr(e, "SLURM_TIME_FORMAT=%s\n"));
	free(e);
	char *sc = slurp(sp), buf[8192];
	assert_null(strstr(sc, "getent"));
	assert_true(sx_script(&j, SX_EXPORT_LOGIN, buf, sizeof buf, f->err, sizeof f->err) > 0);
	assert_string_equal(buf, sc);
	free(sc);
	run_clean(f, sp, "SLURM_JOB_NODELIST=n1 HOME=/given USER=u LOGNAME=u SHELL=/bin/zsh", path_in(f, "pw.out"));
	out = slurp(path_in(f, "pw.out"));
	assert_string_equal(out, "/given|u|u|/bin/zsh|unset\n");
	free(out);
	/* The minimal script is the login one with the passwd lines. */
	assert_true(sx_script(&j, SX_EXPORT_MINIMAL, buf, sizeof buf, f->err, sizeof f->err) > 0);
	assert_non_null(strstr(buf, "hetlab_pw=$(getent passwd \"$(id -u)\" 2>/dev/null) || hetlab_pw=\n"));
	assert_non_null(strstr(buf, "export HOME USER LOGNAME SHELL\n"));
	unsetenv("HETLAB_SECRET");
	unsetenv("SBATCH_PARTITION");
	if (old)
		setenv("SLURM_CONF", old, 1);
	free(old);
	unlink(path_in(f, "log"));
}

/* The config key that chooses it: slurm.export, "minimal" by default. */
static void test_config_export(void **state)
{
	struct fx *f = *state;
	struct { const char *val; int rc; int want; const char *msg; } cases[] = {
		{ NULL, 0, LIVE_SLURM_EXPORT_MINIMAL, NULL },
		{ "\"minimal\"", 0, LIVE_SLURM_EXPORT_MINIMAL, NULL },
		{ "\"login\"", 0, LIVE_SLURM_EXPORT_LOGIN, NULL },
		{ "\"ALL\"", -1, 0, "$.slurm.export: expected \"minimal\" or \"login\", got \"ALL\"" },
		{ "true", -1, 0, "$.slurm.export: expected a string" },
	};
	struct live_cfg *c = malloc(sizeof *c);
	assert_non_null(c);
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		char text[256];
		snprintf(text, sizeof text, "{\"scenario\": \"s.json\", \"executor\": \"slurm\", \"slurm\": {%s%s}}",
		         cases[k].val ? "\"export\": " : "", cases[k].val ? cases[k].val : "");
		put(f, "live.json", text);
		f->err[0] = '\0';
		assert_int_equal(livecfg_load(path_in(f, "live.json"), c, f->err, sizeof f->err), cases[k].rc);
		if (cases[k].rc == 0)
			assert_int_equal(c->slurm.export_env, cases[k].want);
		else {
			if (!strstr(f->err, cases[k].msg))
				print_message("case %zu: %s\n", k, f->err);
			assert_non_null(strstr(f->err, cases[k].msg));
			assert_non_null(strstr(f->err, "live.json: "));
		}
	}
	free(c);
}

static void test_submit_refused(void **state)
{
	struct fx *f = *state;
	const char *const ok[] = { "true", NULL }, *const empty[] = { NULL };
	const char *const dash[] = { "-c", "x", NULL }, *const blank[] = { "", NULL };
	const char *const badenv[] = { "1X=y", NULL }, *const noeq[] = { "FOO", NULL };
	const char *const sp[] = { "A B=c", NULL };
	const char *const badnode[] = { "n1,n2", NULL };
	struct sx_job j = { .state_id = SID, .key = 1, .argv = ok, .nodes = 1, .uid = -1 };
	int64_t id = -5;
	put(f, "sbatch.out", "9\n");
	struct { struct sx_job j; const char *msg; } cases[] = {
		{ { .state_id = SID, .key = 1, .argv = empty, .nodes = 1, .uid = -1 }, "empty argv" },
		{ { .state_id = SID, .key = 1, .argv = blank, .nodes = 1, .uid = -1 }, "empty argv" },
		{ { .state_id = SID, .key = 1, .argv = NULL, .nodes = 1, .uid = -1 }, "empty argv" },
		{ { .state_id = SID, .key = 1, .argv = dash, .nodes = 1, .uid = -1 }, "starts with '-'" },
		{ { .state_id = SID, .key = 1, .argv = ok, .env = badenv, .nodes = 1, .uid = -1 }, "env[0] '1X=y'" },
		{ { .state_id = SID, .key = 1, .argv = ok, .env = noeq, .nodes = 1, .uid = -1 }, "env[0] 'FOO'" },
		{ { .state_id = SID, .key = 1, .argv = ok, .env = sp, .nodes = 1, .uid = -1 }, "env[0] 'A B=c'" },
		{ { .state_id = SID, .key = 1, .argv = ok, .nodes = 0, .uid = -1 }, "nodes >= 1" },
		{ { .state_id = SID, .key = -1, .argv = ok, .nodes = 1, .uid = -1 }, "key >= 0" },
		{ { .state_id = SID, .key = 1, .argv = ok, .nodes = 1, .cpus_per_node = -1, .uid = -1 }, "no negative" },
		{ { .state_id = "xyz", .key = 1, .argv = ok, .nodes = 1, .uid = -1 }, "state id of 16 hex digits" },
		{ { .state_id = NULL, .key = 1, .argv = ok, .nodes = 1, .uid = -1 }, "state id of 16 hex digits" },
		{ { .state_id = SID, .key = 1, .argv = ok, .nodes = 1, .nodelist = badnode, .uid = -1 }, "node name 'n1,n2'" },
		{ { .state_id = SID, .key = 1, .argv = ok, .nodes = 1, .account = "a\nb", .uid = -1 }, "account" },
		{ { .state_id = SID, .key = 1, .argv = ok, .nodes = 1, .cwd = "rel/dir", .uid = -1 }, "absolute path" },
		{ { .state_id = SID, .key = 1, .argv = ok, .nodes = 1, .ckpt_sig = 33, .uid = -1 }, "checkpoint signal" },
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		f->err[0] = '\0';
		assert_int_equal(sx_submit(&f->c, &cases[k].j, &id, f->err, sizeof f->err), -1);
		if (!strstr(f->err, cases[k].msg))
			print_message("case %zu: %s\n", k, f->err);
		assert_non_null(strstr(f->err, cases[k].msg));
	}
	/* No such workdir. */
	struct sx_ctx c = f->c;
	snprintf(c.workdir, sizeof c.workdir, "%s/nowhere", f->dir);
	assert_int_equal(sx_submit(&c, &j, &id, f->err, sizeof f->err), -1);
	assert_non_null(strstr(f->err, "nowhere"));
	c.workdir[0] = '\0';
	assert_int_equal(sx_submit(&c, &j, &id, f->err, sizeof f->err), -1);
	assert_non_null(strstr(f->err, "not set"));
	assert_int_equal(id, -5);
	expect_log(f, "");   /* sbatch never ran */
	/* A script too long for the buffer. */
	char small[40];
	assert_int_equal(sx_script(&j, SX_EXPORT_MINIMAL, small, sizeof small, f->err, sizeof f->err), -1);
	assert_non_null(strstr(f->err, "longer than"));
}

static void test_submit_bad_answer(void **state)
{
	struct fx *f = *state;
	const char *const ok[] = { "true", NULL };
	struct sx_job j = { .state_id = SID, .key = 3, .argv = ok, .nodes = 1, .uid = -1 };
	int64_t id = -5;
	static const char *const answers[] = { "Submitted batch job 12\n", "", "12x\n", "-4\n", "\n",
	                                       "99999999999999999999999\n" };
	for (size_t k = 0; k < sizeof answers / sizeof answers[0]; k++) {
		put(f, "sbatch.out", answers[k]);
		assert_int_equal(sx_submit(&f->c, &j, &id, f->err, sizeof f->err), -1);
		assert_non_null(strstr(f->err, "sbatch --parsable: expected a job id"));
	}
	assert_int_equal(id, -5);
	/* sbatch fails: its stderr in the message; not transient. */
	put(f, "sbatch.out", "");
	put(f, "sbatch.err", "sbatch: error: Batch job submission failed: Invalid account\n");
	put(f, "sbatch.rc", "1\n");
	struct sx_cmd cmd;
	assert_int_equal(sx_submit_cmd(&f->c, &j, &cmd, f->err, sizeof f->err), 0);
	sx_run(&f->c, &cmd);
	assert_int_equal(sx_submit_result(&cmd, &id, f->err, sizeof f->err), -1);
	assert_string_equal(f->err, "sbatch --parsable: exit status 1: sbatch: error: Batch job "
	                    "submission failed: Invalid account");
	assert_false(cmd.transient);
	sx_cmd_done(&cmd);
	/* The controller is not there: transient. */
	put(f, "sbatch.err", "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)\n");
	assert_int_equal(sx_submit_cmd(&f->c, &j, &cmd, f->err, sizeof f->err), 0);
	sx_run(&f->c, &cmd);
	assert_true(cmd.transient);
	sx_cmd_done(&cmd);
	unlink(path_in(f, "log"));
}

/* ---- actions ------------------------------------------------------------- */

static void test_actions_argv(void **state)
{
	struct fx *f = *state;
	const char *const two[] = { "n1", "gpu-node.2", NULL };
	assert_int_equal(sx_start(&f->c, 17, two, 2, f->err, sizeof f->err), 0);
	expect_log(f, "== scontrol\nupdate\nJobId=17\nNumNodes=2-2\nReqNodeList=n1,gpu-node.2\n"
	              "StartTime=now\n== scontrol\nrelease\n17\n");
	assert_int_equal(sx_signal(&f->c, 17, SIGUSR1, f->err, sizeof f->err), 0);
	assert_int_equal(sx_signal(&f->c, 17, SIGTERM, f->err, sizeof f->err), 0);
	assert_int_equal(sx_signal(&f->c, 17, 40, f->err, sizeof f->err), 0);
	expect_log(f, "== scancel\n--full\n--signal=USR1\n17\n== scancel\n--full\n--signal=TERM\n17\n"
	              "== scancel\n--full\n--signal=40\n17\n");
	assert_int_equal(sx_requeue_hold(&f->c, 17, f->err, sizeof f->err), 0);
	assert_int_equal(sx_hold(&f->c, 18, f->err, sizeof f->err), 0);
	assert_int_equal(sx_cancel(&f->c, 19, f->err, sizeof f->err), 0);
	expect_log(f, "== scontrol\nrequeuehold\n17\n== scontrol\nhold\n18\n== scancel\n19\n");
	assert_int_equal(sx_drain(&f->c, "n2", "hetlab: fan \"broken\" $(x)", f->err, sizeof f->err), 0);
	assert_int_equal(sx_resume(&f->c, "n2", f->err, sizeof f->err), 0);
	expect_log(f, "== scontrol\nupdate\nNodeName=n2\nState=DRAIN\nReason=hetlab: fan \"broken\" $(x)\n"
	              "== scontrol\nupdate\nNodeName=n2\nState=RESUME\n");
}

static void test_actions_refused(void **state)
{
	struct fx *f = *state;
	const char *const comma[] = { "n1,n2", NULL }, *const range[] = { "n[1-2]", NULL };
	const char *const space[] = { "n 1", NULL }, *const empty[] = { "", NULL };
	const char *const null[] = { NULL };
	assert_int_equal(sx_start(&f->c, 1, comma, 1, f->err, sizeof f->err), -1);
	assert_non_null(strstr(f->err, "node name 'n1,n2'"));
	assert_int_equal(sx_start(&f->c, 1, range, 1, f->err, sizeof f->err), -1);
	assert_int_equal(sx_start(&f->c, 1, space, 1, f->err, sizeof f->err), -1);
	assert_int_equal(sx_start(&f->c, 1, empty, 1, f->err, sizeof f->err), -1);
	assert_int_equal(sx_start(&f->c, 1, null, 1, f->err, sizeof f->err), -1);
	assert_int_equal(sx_start(&f->c, 1, comma, 0, f->err, sizeof f->err), -1);
	assert_int_equal(sx_signal(&f->c, 1, 0, f->err, sizeof f->err), -1);
	assert_int_equal(sx_signal(&f->c, 1, 99, f->err, sizeof f->err), -1);
	assert_int_equal(sx_drain(&f->c, "n1", "", f->err, sizeof f->err), -1);
	assert_non_null(strstr(f->err, "drain reason"));
	assert_int_equal(sx_drain(&f->c, "n1", NULL, f->err, sizeof f->err), -1);
	assert_int_equal(sx_drain(&f->c, "n1", "two\nlines", f->err, sizeof f->err), -1);
	assert_int_equal(sx_drain(&f->c, "n1 n2", "r", f->err, sizeof f->err), -1);
	assert_int_equal(sx_resume(&f->c, NULL, f->err, sizeof f->err), -1);
	expect_log(f, "");
}

/* The update fails: its stderr in err, and the job is not released. */
static void test_start_update_fails(void **state)
{
	struct fx *f = *state;
	const char *const one[] = { "n3", NULL };
	put(f, "scontrol.err", "Node count specification invalid\nfor job 5\n");
	put(f, "scontrol.rc", "1");
	assert_int_equal(sx_start(&f->c, 5, one, 1, f->err, sizeof f->err), -1);
	assert_string_equal(f->err, "scontrol update: exit status 1: Node count specification "
	                    "invalid for job 5");
	expect_log(f, "== scontrol\nupdate\nJobId=5\nNumNodes=1-1\nReqNodeList=n3\nStartTime=now\n");
	/* Non-zero with nothing on stderr. */
	unlink(path_in(f, "scontrol.err"));
	put(f, "scontrol.rc", "2");
	assert_int_equal(sx_requeue_hold(&f->c, 5, f->err, sizeof f->err), -1);
	assert_string_equal(f->err, "scontrol requeuehold: exit status 2 (nothing on stderr)");
	unlink(path_in(f, "log"));
}

static void test_command_missing(void **state)
{
	struct fx *f = *state;
	struct sx_ctx c = f->c;
	snprintf(c.bindir, sizeof c.bindir, "%s/nobin", f->dir);
	assert_int_equal(sx_cancel(&c, 3, f->err, sizeof f->err), -1);
	assert_non_null(strstr(f->err, "scancel 3: cannot execute"));
	assert_non_null(strstr(f->err, "No such file"));
	/* Through PATH: a name that is nowhere. */
	c.bindir[0] = '\0';
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", path_in(f, "nobin"), 1);
	assert_int_equal(sx_cancel(&c, 3, f->err, sizeof f->err), -1);
	assert_non_null(strstr(f->err, "cannot execute scancel"));
	/* Through PATH: the fakes. */
	setenv("PATH", f->c.bindir, 1);
	assert_int_equal(sx_cancel(&c, 3, f->err, sizeof f->err), 0);
	if (old)
		setenv("PATH", old, 1);
	free(old);
	expect_log(f, "== scancel\n3\n");
}

static void test_command_hangs(void **state)
{
	struct fx *f = *state;
	struct sx_ctx c = f->c;
	struct sx_jobinfo *v = NULL;
	int nv = -1;
	c.timeout_s = 1;
	put(f, "squeue.hang", "");
	const int64_t ids[] = { 3 };
	assert_int_equal(sx_jobs_by_id(&c, ids, 1, &v, &nv, f->err, sizeof f->err), -1);
	assert_string_equal(f->err, "squeue -h: timed out after 1 s (killed)");
	assert_null(v);
	assert_int_equal(nv, 0);
	unlink(path_in(f, "log"));
}

/* Several commands at once: each gets its own result; one that hangs is
 * killed at its deadline while the others finish. */
static void test_run_parallel(void **state)
{
	struct fx *f = *state;
	struct sx_ctx c = f->c;
	c.timeout_s = 2;
	put(f, "sinfo.hang", "");
	put(f, "scancel.out", "cancelled\n");
	struct sx_cmd cmds[6];
	struct sx_cmd *pc[6];
	for (int k = 0; k < 6; k++) {
		sx_cmd_init(&cmds[k]);
		sx_cmd_add(&cmds[k], "%s", k == 3 ? "sinfo" : "scancel");
		sx_cmd_add(&cmds[k], "%d", 100 + k);
		pc[k] = &cmds[k];
	}
	sx_run_all(&c, pc, 6, 4);
	for (int k = 0; k < 6; k++) {
		if (k == 3) {
			assert_int_equal(cmds[k].rc, -1);
			assert_true(cmds[k].transient);
			assert_non_null(strstr(cmds[k].err, "timed out"));
		} else {
			assert_int_equal(cmds[k].rc, 0);
			assert_string_equal(cmds[k].out, "cancelled\n");
		}
		sx_cmd_done(&cmds[k]);
	}
	char *log = slurp(path_in(f, "log"));
	for (int k = 0; k < 6; k++) {
		char line[32];
		snprintf(line, sizeof line, "\n%d\n", 100 + k);
		assert_non_null(strstr(log, line));
	}
	free(log);
	unlink(path_in(f, "log"));
}

static void test_slurm_conf(void **state)
{
	struct fx *f = *state;
	struct sx_ctx c = f->c;
	/* A descriptor of ours, not close-on-exec, is not inherited. */
	int fd = open("/dev/null", O_RDONLY);
	assert_true(fd > 2);
	assert_int_equal(sx_cancel(&c, 1, f->err, sizeof f->err), 0);
	char *fds = slurp(path_in(f, "scancel.fds")), num[16];
	snprintf(num, sizeof num, "\n%d\n", fd);
	assert_non_null(strstr(fds, "\n2\n"));   /* ls sorts as text: 0 1 10 2 */
	if (strstr(fds, num))
		print_message("fds of the command: %s\n", fds);
	assert_null(strstr(fds, num));
	free(fds);
	close(fd);
	setenv("SLURM_CONF", "/inherited.conf", 1);
	assert_int_equal(sx_cancel(&c, 1, f->err, sizeof f->err), 0);
	char *s = slurp(path_in(f, "scancel.conf"));
	assert_string_equal(s, "/inherited.conf\n");
	free(s);
	snprintf(c.slurm_conf, sizeof c.slurm_conf, "/etc/x y/slurm.conf");
	assert_int_equal(sx_cancel(&c, 1, f->err, sizeof f->err), 0);
	s = slurp(path_in(f, "scancel.conf"));
	assert_string_equal(s, "/etc/x y/slurm.conf\n");
	free(s);
	unsetenv("SLURM_CONF");
	unlink(path_in(f, "log"));
}

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
}

/* The later data_parser form (Slurm 23.x), written by hand from its
 * documentation: not a capture. */
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
		cmocka_unit_test_setup_teardown(test_submit_argv_and_script, setup, teardown),
		cmocka_unit_test_setup_teardown(test_script_checkpoint_and_signal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_minimal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_environment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_export, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_bad_answer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_actions_argv, setup, teardown),
		cmocka_unit_test_setup_teardown(test_actions_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_update_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_hangs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_parallel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slurm_conf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_squeue_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_sacct, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_config, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jobs_through_squeue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_sinfo_2205, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_later_form, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_garbage, setup, teardown),
		cmocka_unit_test(test_state_names),
	};
	return cmocka_run_group_tests_name("exec_slurm", tests, NULL, NULL);
}
