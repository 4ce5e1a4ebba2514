/* exec_slurm: the Slurm executor (live/exec_slurm) against fake sbatch,
 * scontrol, squeue, sinfo, scancel and sacct (tests/unit/exec_slurm_fixture.h:
 * shell scripts written into a fresh temporary directory that log their
 * argv one argument a line and print what the test left for them, exit
 * with a given status, or hang). Checked: the exact argv of every action,
 * the batch script run by sh (quotes, spaces, $(...), the attempt and nodes
 * it computes, the checkpoint requeue, a signal death), the job's
 * environment in both slurm.export modes (a daemon variable never reaches
 * sbatch in the minimal one; the identity the script sets from passwd), a
 * command that fails, one that cannot be run, one that hangs, several at once, and the
 * slurm.conf the commands are given. The parsers are
 * tests/unit/test_exec_slurm_parse.c; the real-cluster test is
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
#include "live/exec/slurm_cmd.h"
#include "tests/unit/exec_slurm_fixture.h"

/* ---- submitting ---------------------------------------------------------- */

static const char *const tricky_argv[] = {
	"printf", "%s\\n", "a b", "it's", "$(touch pwned)", "`id`", "\"q\"", "", "tab\there", "nl\nx", NULL,
};

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
	/* A list without a range is the node list already: no scontrol. */
	unlink(path_in(f, "log"));
	assert_int_equal(run_script(f, path_in(f, "env.sh"), "SLURM_JOB_NODELIST=n1,n3", path_in(f, "env.out")), 0);
	out = slurp(path_in(f, "env.out"));
	assert_string_equal(out, "bar baz|it's $(x)|2|n1,n3\n");
	free(out);
	assert_int_not_equal(access(path_in(f, "log"), F_OK), 0);
	unlink(path_in(f, "log"));
	/* With the real node list from scontrol show hostnames. */
	put(f, "scontrol.out", "n1\nn2\n");
	assert_int_equal(run_script(f, path_in(f, "env.sh"), "SLURM_JOB_NODELIST='n[1-2]'", path_in(f, "env.out")), 0);
	out = slurp(path_in(f, "env.out"));
	assert_string_equal(out, "bar baz|it's $(x)|2|n1,n2\n");
	free(out);
	expect_log(f, "== scontrol\nshow\nhostnames\nn[1-2]\n");
}

/* The job's srun steps run with the job's environment in both export
 * modes: Slurm sets SLURM_EXPORT_ENV=NONE in a job submitted --export=NONE
 * (slurm.export "login"), which srun reads as --export=NONE; the script
 * sets it to ALL, before the job's env, which may set it itself. */
static void test_script_srun_export(void **state)
{
	struct fx *f = *state;
	const char *const show[] = { "sh", "-c", "printf '%s\\n' \"$SLURM_EXPORT_ENV\"", NULL };
	const char *const env_own[] = { "SLURM_EXPORT_ENV=NIL", NULL };
	struct sx_job j = { .state_id = SID, .key = 7, .argv = show, .nodes = 2, .uid = -1, .gid = -1 };
	char buf[8192];
	for (int m = 0; m < 3; m++) {
		enum sx_export mode = m == 1 ? SX_EXPORT_MINIMAL : SX_EXPORT_LOGIN;
		j.env = m == 2 ? env_own : NULL;
		assert_true(sx_script(&j, mode, buf, sizeof buf, f->err, sizeof f->err) > 0);
		put(f, "srun.sh", buf);
		assert_int_equal(run_script(f, path_in(f, "srun.sh"), "SLURM_EXPORT_ENV=NONE SLURM_JOB_NODELIST=n1,n2",
		                            path_in(f, "srun.out")), 0);
		char *out = slurp(path_in(f, "srun.out"));
		assert_string_equal(out, m == 2 ? "NIL\n" : "ALL\n");
		free(out);
	}
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
	/* The signal as Slurm sends it (scancel --full: every process of the
	 * job) the moment the script starts, before the job runs: here while
	 * the wrapper reads its node list (the fake scontrol signals its
	 * whole process group). The wrapper traps it from its first line
	 * (it died of it, exit 138, and Slurm reported the job FAILED). */
	const char *const late[] = { "sh", "-c", "echo ran", NULL };
	j.argv = late;
	assert_true(sx_script(&j, SX_EXPORT_MINIMAL, buf, sizeof buf, f->err, sizeof f->err) > 0);
	put(f, "late.sh", buf);
	put(f, "scontrol.run", "[ \"$1\" = show ] && kill -USR1 0\n");
	put(f, "scontrol.rc", "1");
	snprintf(cmd, sizeof cmd, "cd '%s' && env PATH='%s':\"$PATH\" SLURM_JOB_ID=78 SLURM_JOB_NODELIST='n[1-2]' "
	         "HETLAB_REQUEUE_TRIES=1 setsid -w sh '%s' >'%s' 2>&1; echo $? >>'%s'", f->dir, f->c.bindir,
	         path_in(f, "late.sh"), path_in(f, "late.out"), path_in(f, "late.out"));
	assert_int_equal(system(cmd), 0);
	out = slurp(path_in(f, "late.out"));
	/* (sh may say the fake scontrol died of the signal first.) */
	assert_non_null(strstr(out, "ran\nhetlab: exited (0) after the checkpoint signal: requeued held\n0\n"));
	free(out);
	unlink(path_in(f, "scontrol.run"));
	unlink(path_in(f, "scontrol.rc"));
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
	/* Slurm's SLURM_JOB_UID names the user (no `id -u`): here another
	 * user's entry than the one the script runs as. */
	struct passwd *rp;
	char rwant[1024], renv[256];
	setpwent();
	while ((rp = getpwent()) && (rp->pw_uid == getuid() || strchr(rp->pw_dir, ' ') || strchr(rp->pw_shell, ' ')))
		;
	assert_non_null(rp);
	snprintf(rwant, sizeof rwant, "%s|%s|%s|%s|unset\n", rp->pw_dir, rp->pw_name, rp->pw_name,
	         rp->pw_shell[0] ? rp->pw_shell : "/bin/sh");
	snprintf(renv, sizeof renv, "SLURM_JOB_NODELIST=n1 SLURM_JOB_UID=%u HOME=/wrong USER=wrong", (unsigned)rp->pw_uid);
	endpwent();
	run_clean(f, sp, renv, path_in(f, "pw.out"));
	out = slurp(path_in(f, "pw.out"));
	assert_string_equal(out, rwant);
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
	assert_non_null(strstr(buf, "hetlab_pw=$(getent passwd \"${SLURM_JOB_UID:-$(id -u)}\" 2>/dev/null) || hetlab_pw=\n"));
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
		{ NULL, 0, LIVE_SLURM_EXPORT_LOGIN, NULL },
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
	/* A job requeued a moment ago begins a little later (sx_relaunch_delay:
	 * a slurmd refuses a relaunch in the second of the kill). */
	struct sx_cmd pc;
	assert_int_equal(sx_place_cmd(17, two, 2, "debug", 2, &pc, f->err, sizeof f->err), 0);
	assert_int_equal(pc.argc, 7);
	assert_string_equal(pc.argv[5], "Partition=debug");
	assert_string_equal(pc.argv[6], "StartTime=now+2");
	sx_cmd_done(&pc);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_submit_argv_and_script, setup, teardown),
		cmocka_unit_test_setup_teardown(test_script_checkpoint_and_signal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_script_srun_export, setup, teardown),
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
	};
	return cmocka_run_group_tests_name("exec_slurm", tests, NULL, NULL);
}
