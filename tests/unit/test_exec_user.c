/* The local executor running a job as another user (lx_spec.run_as):
 * the job's ids and groups are that user's before its program starts, its
 * environment is only what it is given, its output is opened by it as
 * that user in its cwd (never through a link), and a step that fails ends
 * it as exited 127 with the reason on the shim's side. Needs root (the
 * other user is nobody); skipped otherwise. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live/exec/local_proc.h"

#define NOBODY 65534

#define HAS(hay, needle) do { const char *h_ = (hay), *n_ = (needle); if (!strstr(h_, n_)) \
	fail_msg("expected \"%s\" in \"%s\"", n_, h_); } while (0)

struct ctx {
	char dir[256];        /* the state's jobs directory (root's, 0700) */
	char work[300];       /* the job's cwd (nobody's) */
};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	if (geteuid() != 0)
		return 0;
	struct ctx *c = calloc(1, sizeof *c);
	const char *base = getenv("TMPDIR");
	snprintf(c->dir, sizeof c->dir, "%s/hetlab-user-XXXXXX", base && base[0] ? base : "/tmp");
	if (!mkdtemp(c->dir))
		return -1;
	chmod(c->dir, 0755);
	snprintf(c->work, sizeof c->work, "%s/work", c->dir);
	if (mkdir(c->work, 0755) < 0 || chown(c->work, NOBODY, NOBODY) < 0)
		return -1;
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	if (c) {
		nftw(c->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
		free(c);
	}
	return 0;
}

static char *slurp(const char *path)
{
	static char buf[8192];
	buf[0] = 0;
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return buf;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = 0;
	close(fd);
	return buf;
}

static struct lx_result wait_end(const struct ctx *c, int64_t key)
{
	struct lx_result r;
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(lx_poll(c->dir, key, &r), 0);
		if (r.st == LX_EXITED || r.st == LX_LOST)
			return r;
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	fail_msg("job %lld did not end", (long long)key);
	return r;
}

static void run(const struct ctx *c, int64_t key, const char *script, const char *cwd, const char *user_out,
                struct lx_result *r)
{
	const char *argv[] = { "sh", "-c", script, NULL };
	const char *env[] = { "HOME=/nonexistent", "GIVEN=yes", NULL };
	char out[400];
	snprintf(out, sizeof out, "%s/%lld.out", c->dir, (long long)key);
	struct lx_spec sp = { .argv = argv, .env = env, .cwd = cwd, .out_path = out, .run_as = 1, .uid = NOBODY,
	                      .gid = NOBODY, .user = "nobody", .user_out = user_out, .clean_env = 1 };
	struct lx_handle h;
	char err[512];
	if (lx_launch(c->dir, key, &sp, &h, err, sizeof err))
		fail_msg("%s", err);
	*r = wait_end(c, key);
}

static void test_as_user(void **state)
{
	struct ctx *c = *state;
	if (!c) {
		skip();
		return;
	}
	setenv("HETLAB_DAEMON_ONLY", "secret", 1);
	struct lx_result r;
	run(c, 1, "id -u; id -g; id -G; echo given=$GIVEN daemon=${HETLAB_DAEMON_ONLY-unset}; pwd",
	    c->work, "job-1.out", &r);
	assert_int_equal(r.st, LX_EXITED);
	assert_int_equal(r.code, 0);
	char p[400], want[600];
	snprintf(p, sizeof p, "%s/job-1.out", c->work);
	snprintf(want, sizeof want, "65534\n65534\n65534\ngiven=yes daemon=unset\n%s\n", c->work);
	assert_string_equal(slurp(p), want);
	struct stat sb;
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_uid, NOBODY);
	assert_int_equal(sb.st_mode & 0777, 0600);
	/* The shim's side got nothing from the job. */
	snprintf(p, sizeof p, "%s/1.out", c->dir);
	assert_string_equal(slurp(p), "");
	/* Appended by a second attempt; it cannot become root again. */
	run(c, 2, "su -c true root </dev/null 2>/dev/null && echo ROOT || echo still-nobody; cat /proc/self/status | grep '^CapEff'",
	    c->work, "job-1.out", &r);
	snprintf(p, sizeof p, "%s/job-1.out", c->work);
	HAS(slurp(p), "still-nobody\nCapEff:\t0000000000000000\n");
	unsetenv("HETLAB_DAEMON_ONLY");
}

static void test_as_user_refusals(void **state)
{
	struct ctx *c = *state;
	if (!c) {
		skip();
		return;
	}
	/* Its output a link to a file of root's: not followed, the job not run. */
	char victim[400], link_[400], p[400];
	snprintf(victim, sizeof victim, "%s/victim", c->dir);
	int fd = open(victim, O_WRONLY | O_CREAT, 0666);
	assert_true(write(fd, "precious\n", 9) == 9);
	close(fd);
	chmod(victim, 0666);
	snprintf(link_, sizeof link_, "%s/out-link", c->work);
	assert_int_equal(symlink(victim, link_), 0);
	struct lx_result r;
	run(c, 3, "echo ran", c->work, "out-link", &r);
	assert_int_equal(r.code, 127);
	assert_string_equal(slurp(victim), "precious\n");
	snprintf(p, sizeof p, "%s/3.out", c->dir);
	HAS(slurp(p), "hetlab: cannot open the job's output 'out-link'");
	/* A FIFO there does not hang it. */
	snprintf(p, sizeof p, "%s/out-fifo", c->work);
	assert_int_equal(mkfifo(p, 0666), 0);
	run(c, 4, "echo ran", c->work, "out-fifo", &r);
	assert_int_equal(r.code, 127);
	/* A cwd the user may not enter: checked as the user. */
	char priv[400];
	snprintf(priv, sizeof priv, "%s/private", c->dir);
	assert_int_equal(mkdir(priv, 0700), 0);
	run(c, 5, "echo ran", priv, "x.out", &r);
	assert_int_equal(r.code, 127);
	snprintf(p, sizeof p, "%s/5.out", c->dir);
	HAS(slurp(p), "hetlab: cannot change directory to");
	snprintf(p, sizeof p, "%s/x.out", priv);
	assert_int_equal(access(p, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_as_user),
		cmocka_unit_test(test_as_user_refusals),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
