#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <unistd.h>

char *tu_tmpath(const char *suffix)
{
	static unsigned counter;
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	size_t len = strlen(dir) + strlen(suffix) + 64;
	char *p = malloc(len);
	if (!p)
		abort();
	snprintf(p, len, "%s/hetlab-test-%ld-%u%s", dir, (long)getpid(), counter++, suffix);
	/* A file left by an earlier run whose pid this one reuses (a crashed or
	 * interrupted test) must not be taken for this test's. */
	unlink(p);
	return p;
}

char *tu_write_tmp(const char *suffix, const char *text)
{
	char *p = tu_tmpath(suffix);
	FILE *f = fopen(p, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
	return p;
}

const char *tu_root(void)
{
	const char *r = getenv("HETLAB_ROOT");
	return r && *r ? r : ".";
}

const char *tu_traces(void)
{
	const char *t = getenv("HETLAB_TRACES");
	return t && *t ? t : "../shared/traces";
}

char *tu_tmpdir_new(const char *name)
{
	const char *base = getenv("TMPDIR");
	char *d = NULL;
	if (asprintf(&d, "%s/hetlab-%s-XXXXXX", base && base[0] ? base : "/tmp", name) < 0 || !mkdtemp(d)) {
		fprintf(stderr, "testutil: cannot create a temporary directory for %s\n", name);
		abort();
	}
	return d;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb;
	(void)flag;
	(void)f;
	return remove(p);
}

void tu_tmpdir_free(char *dir)
{
	if (dir)
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}
