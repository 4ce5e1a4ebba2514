/* exec_slurm_fixture — what test_exec_slurm.c and test_exec_slurm_parse.c
 * share: the fake sbatch, scontrol, squeue, sinfo, scancel and sacct (one
 * shell script, written into a fresh temporary directory by setup, that
 * logs its argv one argument a line after a "== NAME" line and its
 * environment (NAME.env, sorted, without the PWD sh adds), runs NAME.run
 * (sourced), prints what
 * the test left in NAME.out / NAME.err, exits with NAME.rc, or hangs when
 * NAME.hang exists), the helpers that write and read that directory, and
 * the state id the fake jobs carry in their comment. Static inline, so
 * that each test file takes what it uses. */
#ifndef HL_EXEC_SLURM_FIXTURE_H
#define HL_EXEC_SLURM_FIXTURE_H

/* cmocka.h (and what it needs) comes first, from the test file. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/exec/slurm_cmd.h"

#define SID "0123456789abcdef"

/* ---- the fake commands --------------------------------------------------- */

struct fx {
	char dir[PATH_MAX];
	struct sx_ctx c;
	char err[1024];
};

static const char *const fake_names[] = { "sbatch", "scontrol", "squeue", "sinfo", "scancel", "sacct", NULL };

static inline char *path_in(const struct fx *f, const char *name)
{
	static char buf[4][PATH_MAX + 64];
	static int k;
	char *p = buf[k++ % 4];
	snprintf(p, sizeof buf[0], "%s/%s", f->dir, name);
	return p;
}

static inline void put(const struct fx *f, const char *name, const char *text)
{
	FILE *fp = fopen(path_in(f, name), "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* The whole of a file (malloc'd), "" when absent. */
static inline char *slurp(const char *path)
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

static inline int setup(void **state)
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
	         "[ -f \"$d/$me.run\" ] && . \"$d/$me.run\"\n"
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

static inline int teardown(void **state)
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
static inline void expect_log(struct fx *f, const char *want)
{
	char *got = slurp(path_in(f, "log"));
	if (strcmp(got, want) != 0)
		print_message("argv log:\n--- got\n%s--- want\n%s---\n", got, want);
	assert_string_equal(got, want);
	free(got);
	unlink(path_in(f, "log"));
}

#endif
