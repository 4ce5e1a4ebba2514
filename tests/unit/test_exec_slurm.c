/* exec_slurm: the Slurm executor (live/exec_slurm) against fake sbatch,
 * scontrol, squeue, sinfo and scancel: shell scripts written into a fresh
 * temporary directory that log their argv one argument a line (after a
 * "== NAME" line) and print what the test left in NAME.out / NAME.err, exit
 * with NAME.rc, or hang when NAME.hang exists. Checked: the exact argv of
 * every action, the batch script run by sh (quotes, spaces, $(...)), the
 * parsers on squeue/sinfo JSON recorded on the local 22.05.8 cluster
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live/exec_slurm.h"

/* squeue --json on the local cluster (Slurm 22.05.8): job 1 verbatim; the
 * others cut to the keys the parser reads and a few more. Jobs: 1 held
 * (hetlab-100), 2 running on n1,n2, 3 exit 3, 4 completed, 5 cancelled while
 * running (the batch shell's exit 143), 6 requeued held after running on n3,
 * 7 released but waiting (Resources), 8 killed by SIGKILL, 10 not hetlab's,
 * 9 TIMEOUT (from a second capture, after one requeue by a node set DOWN). */
static const char squeue_2205[] =
	"{\"meta\":{\"plugin\":{\"type\":\"openapi\\/v0.0.38\",\"name\":\"Slurm OpenAPI v0.0.38\"},"
	"\"Slurm\":{\"version\":{\"major\":22,\"micro\":8,\"minor\":5},\"release\":\"22.05.8\"}},\n"
	"\"errors\":[],\n"
	"\"jobs\":[\n"
	"{\"account\":\"\",\"accrue_time\":0,\"admin_comment\":\"\",\"array_job_id\":0,\"array_task_id\":null,"
	"\"array_max_tasks\":0,\"array_task_string\":\"\",\"association_id\":0,\"batch_features\":\"\","
	"\"batch_flag\":true,\"batch_host\":\"\",\"flags\":[\"JOB_CPUS_SET\",\"JOB_MEM_SET\"],"
	"\"burst_buffer\":\"\",\"burst_buffer_state\":\"\",\"cluster\":\"hetlab\",\"cluster_features\":\"\","
	"\"command\":\"\",\"comment\":\"\",\"container\":\"\",\"contiguous\":false,\"core_spec\":null,"
	"\"thread_spec\":null,\"cores_per_socket\":null,\"billable_tres\":null,\"cpus_per_task\":null,"
	"\"cpu_frequency_minimum\":null,\"cpu_frequency_maximum\":null,\"cpu_frequency_governor\":null,"
	"\"cpus_per_tres\":\"\",\"deadline\":0,\"delay_boot\":0,\"dependency\":\"\",\"derived_exit_code\":0,"
	"\"eligible_time\":0,\"end_time\":0,\"excluded_nodes\":\"\",\"exit_code\":0,\"features\":\"\","
	"\"federation_origin\":\"\",\"federation_siblings_active\":\"\",\"federation_siblings_viable\":\"\","
	"\"gres_detail\":[],\"group_id\":0,\"group_name\":\"root\",\"job_id\":1,\"job_state\":\"PENDING\","
	"\"last_sched_evaluation\":1795994221,\"licenses\":\"\",\"max_cpus\":0,\"max_nodes\":1,"
	"\"mcs_label\":\"\",\"memory_per_tres\":\"\",\"name\":\"hetlab-100\",\"nodes\":\"\",\"nice\":null,"
	"\"tasks_per_core\":null,\"tasks_per_node\":1,\"tasks_per_socket\":null,\"tasks_per_board\":0,"
	"\"cpus\":2,\"node_count\":1,\"tasks\":1,\"het_job_id\":0,\"het_job_id_set\":\"\",\"het_job_offset\":0,"
	"\"partition\":\"debug\",\"prefer\":\"\",\"memory_per_node\":1000,\"memory_per_cpu\":null,"
	"\"minimum_cpus_per_node\":2,\"minimum_tmp_disk_per_node\":0,\"preempt_time\":0,\"pre_sus_time\":0,"
	"\"priority\":0,\"profile\":null,\"qos\":\"\",\"reboot\":false,\"required_nodes\":\"\",\"requeue\":true,"
	"\"resize_time\":0,\"restart_cnt\":0,\"resv_name\":\"\",\"shared\":null,\"show_flags\":[\"SHOW_ALL\","
	"\"SHOW_DETAIL\",\"SHOW_LOCAL\"],\"sockets_per_board\":0,\"sockets_per_node\":null,\"start_time\":0,"
	"\"state_description\":\"\",\"state_reason\":\"JobHeldUser\",\"standard_error\":\"\","
	"\"standard_input\":\"/dev/null\",\"standard_output\":\"\",\"submit_time\":1795994221,"
	"\"suspend_time\":0,\"system_comment\":\"\",\"time_limit\":60,\"time_minimum\":0,"
	"\"threads_per_core\":null,\"tres_bind\":\"\",\"tres_freq\":\"\",\"tres_per_job\":\"\","
	"\"tres_per_node\":\"gres:gpu:1\",\"tres_per_socket\":\"\",\"tres_per_task\":\"\","
	"\"tres_req_str\":\"cpu=2,mem=1000M,node=1,billing=2\",\"tres_alloc_str\":\"\",\"user_id\":0,"
	"\"user_name\":\"root\",\"wckey\":\"\",\"current_working_directory\":\"/tmp/hB-cap/w\"},\n"
	"{\"job_id\":2,\"name\":\"hetlab-101\",\"job_state\":\"RUNNING\",\"state_reason\":\"None\","
	"\"state_description\":\"\",\"priority\":4294901759,\"exit_code\":0,\"nodes\":\"n[1-2]\","
	"\"required_nodes\":\"n1,n2\",\"restart_cnt\":0,\"partition\":\"debug\",\"batch_host\":\"n1\","
	"\"tres_per_node\":\"gres:gpu:2\",\"flags\":[\"JOB_CPUS_SET\",\"JOB_WAS_RUNNING\"]},\n"
	"{\"job_id\":3,\"name\":\"hetlab-102\",\"job_state\":\"FAILED\",\"state_reason\":\"NonZeroExitCode\","
	"\"state_description\":\"\",\"priority\":4294901758,\"exit_code\":768,\"nodes\":\"n3\","
	"\"required_nodes\":\"n3\",\"restart_cnt\":0,\"partition\":\"debug\",\"batch_host\":\"n3\","
	"\"tres_per_node\":\"\",\"flags\":[\"TRES_STR_CALC\"]},\n"
	"{\"job_id\":4,\"name\":\"hetlab-103\",\"job_state\":\"COMPLETED\",\"state_reason\":\"None\","
	"\"state_description\":\"\",\"priority\":4294901757,\"exit_code\":0,\"nodes\":\"n3\","
	"\"required_nodes\":\"n3\",\"restart_cnt\":0,\"partition\":\"debug\",\"batch_host\":\"n3\","
	"\"tres_per_node\":\"\",\"flags\":[\"TRES_STR_CALC\"]},\n"
	"{\"job_id\":5,\"name\":\"hetlab-104\",\"job_state\":\"CANCELLED\",\"state_reason\":\"None\","
	"\"state_description\":\"\",\"priority\":4294901756,\"exit_code\":36608,\"nodes\":\"n3\","
	"\"required_nodes\":\"n3\",\"restart_cnt\":0,\"partition\":\"debug\",\"batch_host\":\"n3\","
	"\"tres_per_node\":\"\",\"flags\":[\"TRES_STR_CALC\"]},\n"
	"{\"job_id\":6,\"name\":\"hetlab-105\",\"job_state\":\"PENDING\",\"state_reason\":\"JobHeldUser\","
	"\"state_description\":\"job requeued in held state\",\"priority\":0,\"exit_code\":0,\"nodes\":\"\","
	"\"required_nodes\":\"n3\",\"restart_cnt\":1,\"partition\":\"debug\",\"batch_host\":\"\","
	"\"tres_per_node\":\"\",\"flags\":[]},\n"
	"{\"job_id\":7,\"name\":\"hetlab-106\",\"job_state\":\"PENDING\",\"state_reason\":\"Resources\","
	"\"state_description\":\"\",\"priority\":4294901754,\"exit_code\":0,\"nodes\":\"\","
	"\"required_nodes\":\"n1\",\"restart_cnt\":0,\"partition\":\"debug\",\"batch_host\":\"\","
	"\"tres_per_node\":\"\",\"flags\":[\"JOB_CPUS_SET\"]},\n"
	"{\"job_id\":8,\"name\":\"hetlab-108\",\"job_state\":\"FAILED\",\"state_reason\":\"JobLaunchFailure\","
	"\"state_description\":\"\",\"priority\":4294901753,\"exit_code\":9,\"nodes\":\"n3\","
	"\"required_nodes\":\"n3\",\"restart_cnt\":0,\"partition\":\"debug\",\"batch_host\":\"n3\","
	"\"tres_per_node\":\"\",\"flags\":[\"TRES_STR_CALC\"]},\n"
	"{\"job_id\":10,\"name\":\"sweep-other\",\"job_state\":\"COMPLETED\",\"state_reason\":\"None\","
	"\"state_description\":\"\",\"priority\":4294901751,\"exit_code\":0,\"nodes\":\"n1\","
	"\"required_nodes\":\"\",\"restart_cnt\":0,\"partition\":\"debug\",\"batch_host\":\"n1\","
	"\"tres_per_node\":\"\",\"flags\":[\"TRES_STR_CALC\"]},\n"
	"{\"job_id\":9,\"name\":\"hetlab-107\",\"job_state\":\"TIMEOUT\",\"state_reason\":\"TimeLimit\","
	"\"state_description\":\"\",\"priority\":4294901752,\"exit_code\":15,\"nodes\":\"n1\","
	"\"required_nodes\":\"n1\",\"restart_cnt\":1,\"partition\":\"debug\",\"batch_host\":\"n1\","
	"\"tres_per_node\":\"\",\"flags\":[\"TRES_STR_CALC\",\"JOB_CPUS_SET\"]}\n"
	"]}\n"
	;

/* sinfo --json on the same cluster: n1 and n2 running job 2 (one CPU and
 * both GPUs each), n2 draining ("x"), n3 drained with a reason with spaces,
 * n4 down (its slurmd stopped, then State=DOWN). */
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

static const char *const fake_names[] = { "sbatch", "scontrol", "squeue", "sinfo", "scancel", NULL };

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

static void test_submit_argv_and_script(void **state)
{
	struct fx *f = *state;
	const char *const env[] = { "FOO=bar baz", "Q=it's $(x)", NULL };
	struct sx_job j = {
		.key = 42, .argv = tricky_argv, .env = env, .nodes = 2, .cpus_per_node = 3,
		.gpus_per_node = 1, .mem_mib_per_node = 2048, .walltime_s = 90061, .account = "tenantA",
	};
	int64_t id = 0;
	snprintf(f->c.partition, sizeof f->c.partition, "gpu");
	put(f, "sbatch.out", "1234;hetlab\n");
	assert_int_equal(sx_submit(&f->c, &j, &id, f->err, sizeof f->err), 0);
	assert_int_equal(id, 1234);
	char want[8192];
	snprintf(want, sizeof want,
	         "== sbatch\n--parsable\n--hold\n--requeue\n--open-mode=append\n--job-name=hetlab-42\n"
	         "--chdir=%s/work\n--output=%s/work/hetlab-42-%%j.out\n--partition=gpu\n"
	         "--account=tenantA\n--nodes=2\n--ntasks-per-node=1\n--cpus-per-task=3\n"
	         "--gres=gpu:1\n--mem=2048M\n--time=1-01:01:01\n%s/work/hetlab-42.sh\n",
	         f->dir, f->dir, f->dir);
	expect_log(f, want);

	/* The script sbatch got is the one in workdir, and sh runs exactly the argv. */
	char *sub = slurp(path_in(f, "submitted.sh")), *mine;
	char sp[PATH_MAX + 64];
	snprintf(sp, sizeof sp, "%s/work/hetlab-42.sh", f->dir);
	mine = slurp(sp);
	assert_string_equal(sub, mine);
	assert_non_null(strstr(mine, "#!/bin/sh\n"));
	assert_non_null(strstr(mine, "exec 'printf' '%s\\n' 'a b' 'it'\\''s' '$(touch pwned)'"));
	free(sub);
	free(mine);
	char cmd[3 * PATH_MAX];
	snprintf(cmd, sizeof cmd, "cd '%s' && sh '%s' >'%s/run.out' 2>&1", f->dir, sp, f->dir);
	assert_int_equal(system(cmd), 0);
	char *out = slurp(path_in(f, "run.out"));
	assert_string_equal(out, "a b\nit's\n$(touch pwned)\n`id`\n\"q\"\n\ntab\there\nnl\nx\n");
	free(out);
	assert_int_not_equal(access(path_in(f, "pwned"), F_OK), 0);

	/* The environment entries are exported as given. */
	const char *const show[] = { "sh", "-c", "printf '%s|%s\\n' \"$FOO\" \"$Q\"", NULL };
	char buf[4096];
	j.argv = show;
	assert_true(sx_script(&j, buf, sizeof buf, f->err, sizeof f->err) > 0);
	put(f, "env.sh", buf);
	snprintf(cmd, sizeof cmd, "sh '%s' >'%s'", path_in(f, "env.sh"), path_in(f, "env.out"));
	assert_int_equal(system(cmd), 0);
	out = slurp(path_in(f, "env.out"));
	assert_string_equal(out, "bar baz|it's $(x)\n");
	free(out);
}

static void test_submit_minimal(void **state)
{
	struct fx *f = *state;
	const char *const argv[] = { "/bin/true", NULL };
	struct sx_job j = { .key = 0, .argv = argv, .nodes = 1 };
	int64_t id = 0;
	put(f, "sbatch.out", "7\n");
	assert_int_equal(sx_submit(&f->c, &j, &id, f->err, sizeof f->err), 0);
	assert_int_equal(id, 7);
	char want[4096];
	snprintf(want, sizeof want,
	         "== sbatch\n--parsable\n--hold\n--requeue\n--open-mode=append\n--job-name=hetlab-0\n"
	         "--chdir=%s/work\n--output=%s/work/hetlab-0-%%j.out\n--nodes=1\n--ntasks-per-node=1\n"
	         "%s/work/hetlab-0.sh\n", f->dir, f->dir, f->dir);
	expect_log(f, want);
	char p[PATH_MAX];
	sx_output_path(&f->c, 0, 7, p, sizeof p);
	snprintf(want, sizeof want, "%s/work/hetlab-0-7.out", f->dir);
	assert_string_equal(p, want);
}

static void test_submit_refused(void **state)
{
	struct fx *f = *state;
	const char *const ok[] = { "true", NULL }, *const empty[] = { NULL };
	const char *const dash[] = { "-c", "x", NULL }, *const blank[] = { "", NULL };
	const char *const badenv[] = { "1X=y", NULL }, *const noeq[] = { "FOO", NULL };
	const char *const sp[] = { "A B=c", NULL };
	struct sx_job j = { .key = 1, .argv = ok, .nodes = 1 };
	int64_t id = -5;
	put(f, "sbatch.out", "9\n");
	struct { struct sx_job j; const char *msg; } cases[] = {
		{ { .key = 1, .argv = empty, .nodes = 1 }, "empty argv" },
		{ { .key = 1, .argv = blank, .nodes = 1 }, "empty argv" },
		{ { .key = 1, .argv = NULL, .nodes = 1 }, "empty argv" },
		{ { .key = 1, .argv = dash, .nodes = 1 }, "starts with '-'" },
		{ { .key = 1, .argv = ok, .env = badenv, .nodes = 1 }, "env[0] '1X=y'" },
		{ { .key = 1, .argv = ok, .env = noeq, .nodes = 1 }, "env[0] 'FOO'" },
		{ { .key = 1, .argv = ok, .env = sp, .nodes = 1 }, "env[0] 'A B=c'" },
		{ { .key = 1, .argv = ok, .nodes = 0 }, "nodes >= 1" },
		{ { .key = -1, .argv = ok, .nodes = 1 }, "key >= 0" },
		{ { .key = 1, .argv = ok, .nodes = 1, .gpus_per_node = -1 }, "no negative" },
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
	assert_int_equal(sx_script(&j, small, sizeof small, f->err, sizeof f->err), -1);
	assert_non_null(strstr(f->err, "longer than"));
}

static void test_submit_bad_answer(void **state)
{
	struct fx *f = *state;
	const char *const ok[] = { "true", NULL };
	struct sx_job j = { .key = 3, .argv = ok, .nodes = 1 };
	int64_t id = -5;
	static const char *const answers[] = { "Submitted batch job 12\n", "", "12x\n", "-4\n", "\n",
	                                       "99999999999999999999999\n" };
	for (size_t k = 0; k < sizeof answers / sizeof answers[0]; k++) {
		put(f, "sbatch.out", answers[k]);
		assert_int_equal(sx_submit(&f->c, &j, &id, f->err, sizeof f->err), -1);
		assert_non_null(strstr(f->err, "sbatch --parsable: expected a job id"));
	}
	assert_int_equal(id, -5);
	/* sbatch fails: its stderr in the message. */
	put(f, "sbatch.out", "");
	put(f, "sbatch.err", "sbatch: error: Batch job submission failed: Invalid account\n");
	put(f, "sbatch.rc", "1\n");
	assert_int_equal(sx_submit(&f->c, &j, &id, f->err, sizeof f->err), -1);
	assert_string_equal(f->err, "sbatch --parsable: exit status 1: sbatch: error: Batch job "
	                    "submission failed: Invalid account");
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
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(sx_jobs(&c, &v, &nv, f->err, sizeof f->err), -1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	assert_string_equal(f->err, "squeue --json: timed out after 1 s (killed)");
	assert_true(dt >= 0.9);   /* it waited for the timeout (no upper bound: a slow host is no failure) */
	assert_null(v);
	assert_int_equal(nv, 0);
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

static void test_parse_squeue_2205(void **state)
{
	struct fx *f = *state;
	struct sx_jobinfo *v;
	int nv;
	assert_int_equal(sx_parse_jobs(squeue_2205, NULL, false, &v, &nv, f->err, sizeof f->err), 0);
	assert_int_equal(nv, 10);
	static const struct {
		int64_t id, key;
		enum sx_state st;
		int code, sig, restarts;
		bool held;
		const char *nodes, *req, *reason;
	} want[] = {
		{ 1, 100, SX_HELD, 0, 0, 0, true, "", "", "JobHeldUser" },
		{ 2, 101, SX_RUNNING, 0, 0, 0, false, "n[1-2]", "n1,n2", "None" },
		{ 3, 102, SX_FAILED, 3, 0, 0, false, "n3", "n3", "NonZeroExitCode" },
		{ 4, 103, SX_COMPLETED, 0, 0, 0, false, "n3", "n3", "None" },
		{ 5, 104, SX_CANCELLED, 143, 0, 0, false, "n3", "n3", "None" },
		{ 6, 105, SX_HELD, 0, 0, 1, true, "", "n3", "JobHeldUser" },
		{ 7, 106, SX_PENDING, 0, 0, 0, false, "", "n1", "Resources" },
		{ 8, 108, SX_FAILED, 0, 9, 0, false, "n3", "n3", "JobLaunchFailure" },
		{ 9, 107, SX_TIMEOUT, 0, 15, 1, false, "n1", "n1", "TimeLimit" },
		{ 10, -1, SX_COMPLETED, 0, 0, 0, false, "n1", "", "None" },
	};
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
		const struct sx_jobinfo *j = find(v, nv, want[k].id);
		assert_non_null(j);
		if (j->st != want[k].st)
			print_message("job %lld: %s, want %s\n", (long long)j->id, sx_state_name(j->st),
			              sx_state_name(want[k].st));
		assert_int_equal(j->st, want[k].st);
		assert_int_equal(j->key, want[k].key);
		assert_int_equal(j->exit_code, want[k].code);
		assert_int_equal(j->exit_sig, want[k].sig);
		assert_int_equal(j->restarts, want[k].restarts);
		assert_int_equal(j->held, want[k].held);
		assert_string_equal(j->nodes, want[k].nodes);
		assert_string_equal(j->req_nodes, want[k].req);
		assert_string_equal(j->reason, want[k].reason);
	}
	assert_string_equal(find(v, nv, 10)->name, "sweep-other");
	free(v);
	/* hetlab's only; by partition. */
	assert_int_equal(sx_parse_jobs(squeue_2205, "debug", true, &v, &nv, f->err, sizeof f->err), 0);
	assert_int_equal(nv, 9);
	assert_null(find(v, nv, 10));
	free(v);
	assert_int_equal(sx_parse_jobs(squeue_2205, "gpu", true, &v, &nv, f->err, sizeof f->err), 0);
	assert_int_equal(nv, 0);
	assert_null(v);
}

static void test_jobs_through_squeue(void **state)
{
	struct fx *f = *state;
	struct sx_jobinfo *v, ji;
	int nv;
	put(f, "squeue.out", squeue_2205);
	assert_int_equal(sx_jobs(&f->c, &v, &nv, f->err, sizeof f->err), 0);
	assert_int_equal(nv, 9);
	free(v);
	assert_int_equal(sx_job_info(&f->c, 3, &ji, f->err, sizeof f->err), 0);
	assert_int_equal(ji.st, SX_FAILED);
	assert_int_equal(ji.exit_code, 3);
	assert_string_equal(ji.name, "hetlab-102");
	assert_int_equal(sx_job_info(&f->c, 10, &ji, f->err, sizeof f->err), 0);
	assert_int_equal(ji.st, SX_COMPLETED);   /* any job by id, not only hetlab's */
	assert_int_equal(sx_job_info(&f->c, 77, &ji, f->err, sizeof f->err), 0);
	assert_int_equal(ji.id, 77);
	assert_int_equal(ji.st, SX_GONE);
	assert_int_equal(ji.exit_code, -1);
	assert_true(sx_state_final(ji.st));
	expect_log(f, "== squeue\n--json\n== squeue\n--json\n== squeue\n--json\n== squeue\n--json\n");
	/* squeue fails. */
	put(f, "squeue.out", "");
	put(f, "squeue.err", "squeue: error: Unable to contact slurm controller (connect failure)\n");
	put(f, "squeue.rc", "1");
	assert_int_equal(sx_job_info(&f->c, 3, &ji, f->err, sizeof f->err), -1);
	assert_string_equal(f->err, "squeue --json: exit status 1: squeue: error: Unable to contact "
	                    "slurm controller (connect failure)");
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
static void test_parse_later_form(void **state)
{
	struct fx *f = *state;
	struct sx_jobinfo *v;
	struct sx_nodeinfo *nd;
	int nv;
	const char *jobs =
		"{\"jobs\":[{\"job_id\":5,\"name\":\"hetlab-9\",\"job_state\":[\"PENDING\",\"REQUEUED\"],"
		"\"priority\":{\"set\":true,\"infinite\":false,\"number\":0},\"partition\":\"p\","
		"\"exit_code\":{\"status\":[\"EXITED\"],\"return_code\":{\"set\":true,\"infinite\":false,"
		"\"number\":0}}},"
		"{\"job_id\":{\"set\":true,\"number\":6},\"name\":\"hetlab-10\",\"job_state\":[\"FAILED\"],"
		"\"exit_code\":{\"status\":[\"SIGNALED\"],\"return_code\":{\"set\":true,\"number\":0},"
		"\"signal\":{\"id\":{\"set\":true,\"number\":9},\"name\":\"KILL\"}},\"restart_cnt\":2}],"
		"\"errors\":[],\"warnings\":[]}";
	assert_int_equal(sx_parse_jobs(jobs, NULL, true, &v, &nv, f->err, sizeof f->err), 0);
	assert_int_equal(nv, 2);
	assert_int_equal(v[0].st, SX_REQUEUED);
	assert_true(v[0].held);
	assert_int_equal(v[0].exit_code, 0);
	assert_int_equal(v[0].exit_sig, 0);
	assert_int_equal(v[1].id, 6);
	assert_int_equal(v[1].st, SX_FAILED);
	assert_int_equal(v[1].exit_sig, 9);
	assert_int_equal(v[1].restarts, 2);
	free(v);
	const char *nodes =
		"{\"nodes\":[{\"name\":\"a1\",\"state\":[\"IDLE\",\"DRAIN\",\"NOT_RESPONDING\"],"
		"\"cpus\":64,\"real_memory\":{\"set\":true,\"number\":512000},"
		"\"gres\":\"gpu:a100:4(S:0-1),gpu:2,mps:100,gpus:7\",\"gres_used\":\"gpu:a100:1(IDX:0),gpu:0\"}]}";
	assert_int_equal(sx_parse_nodes(nodes, NULL, &nd, &nv, f->err, sizeof f->err), 0);
	assert_int_equal(nv, 1);
	assert_true(nd[0].idle && nd[0].drain && nd[0].not_responding);
	assert_false(nd[0].down);
	assert_int_equal(nd[0].mem_mib, 512000);
	assert_int_equal(nd[0].gpus, 6);
	assert_int_equal(nd[0].gpus_used, 1);
	free(nd);
}

static void test_parse_garbage(void **state)
{
	struct fx *f = *state;
	struct sx_jobinfo *v = (void *)1;
	struct sx_nodeinfo *nd = (void *)1;
	int nv = -1;
	static const struct { const char *text, *msg; } jobs[] = {
		{ "", "squeue --json: expected JSON" },
		{ "garbage\n", "squeue --json: expected JSON, line 1" },
		{ "JOBID PARTITION NAME\n 1 debug x\n", "expected JSON" },
		{ "[1,2]", "expected an object with a \"jobs\" array" },
		{ "{\"jobs\":3}", "expected an object with a \"jobs\" array" },
		{ "{\"meta\":{}}", "expected an object with a \"jobs\" array" },
		{ "{\"jobs\":[7]}", "jobs[0]: expected an object with an integer job_id" },
		{ "{\"jobs\":[{\"job_id\":\"1\"}]}", "jobs[0]: expected an object with an integer job_id" },
		{ "{\"jobs\":[{\"job_id\":1,\"name\":\"a\",\"job_state\":\"RUNNING\"},{\"job_id\":2}]}",
		  "jobs[1] (job 2): expected job_state" },
		{ "{\"jobs\":[{\"job_id\":1,\"job_state\":7}]}", "expected job_state" },
		/* A number past int64 is none (its cast was undefined: found by tests/fuzz/fuzz_squeue). */
		{ "{\"jobs\":[{\"job_id\":4.2e29,\"job_state\":\"RUNNING\"}]}",
		  "jobs[0]: expected an object with an integer job_id" },
		{ "{\"jobs\":[],\"errors\":[{\"error\":\"x\",\"description\":\"Invalid user\"}]}",
		  "Slurm reported an error: Invalid user" },
	};
	for (size_t k = 0; k < sizeof jobs / sizeof jobs[0]; k++) {
		assert_int_equal(sx_parse_jobs(jobs[k].text, NULL, false, &v, &nv, f->err, sizeof f->err), -1);
		if (!strstr(f->err, jobs[k].msg))
			print_message("case %zu: %s\n", k, f->err);
		assert_non_null(strstr(f->err, jobs[k].msg));
		assert_null(v);
		assert_int_equal(nv, 0);
	}
	/* The real capture cut short anywhere: an error, never a crash. */
	size_t len = strlen(squeue_2205);
	char *cut = malloc(len + 1);
	for (size_t at = 0; at < len; at += 97) {
		memcpy(cut, squeue_2205, at);
		cut[at] = '\0';
		assert_int_equal(sx_parse_jobs(cut, NULL, false, &v, &nv, f->err, sizeof f->err), -1);
		assert_non_null(strstr(f->err, "squeue --json: expected JSON"));
	}
	free(cut);
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
		cmocka_unit_test_setup_teardown(test_submit_minimal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_bad_answer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_actions_argv, setup, teardown),
		cmocka_unit_test_setup_teardown(test_actions_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_update_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command_hangs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slurm_conf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_squeue_2205, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jobs_through_squeue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_sinfo_2205, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_later_form, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parse_garbage, setup, teardown),
		cmocka_unit_test(test_state_names),
	};
	return cmocka_run_group_tests_name("exec_slurm", tests, NULL, NULL);
}
