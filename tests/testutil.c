#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
