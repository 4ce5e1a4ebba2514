/* sx_fakes — the fake Slurm commands of the Slurm executor's unit tests
 * (test_exec_slurm.c, test_slurm_read.c): sbatch, scontrol, squeue, sinfo,
 * scancel and sacct as shell scripts written into a fresh temporary
 * directory (setup; teardown removes it) that log their argv one argument
 * a line (after a "== NAME" line, in DIR/log) and their environment
 * (NAME.env, sorted, without the PWD sh adds), SLURM_CONF (NAME.conf) and
 * open descriptors (NAME.fds); sbatch copies the script it is given to
 * submitted.sh. Each prints what the test left in NAME.out / NAME.err,
 * exits with NAME.rc, or hangs when NAME.hang exists. Included by the test
 * files only (static helpers: no separate object). */
#ifndef HL_TEST_SX_FAKES_H
#define HL_TEST_SX_FAKES_H

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

#include "live/exec_slurm.h"

#define SID "0123456789abcdef"   /* the state id of the tests' jobs */

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

#endif
