/* probe_fixture — what test_probe.c and test_nvml.c share: the path of a
 * fake sysfs tree under tests/data/sysfs/, and a fake libnvidia-ml built at
 * test time from tests/data/fake_nvml.c. Static inline, so that each test
 * file takes what it uses. */
#ifndef HL_PROBE_FIXTURE_H
#define HL_PROBE_FIXTURE_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/testutil.h"

static inline char *tree(const char *name)
{
	static char buf[8][PATH_MAX];
	static int k;
	char *p = buf[k++ % 8];
	snprintf(p, PATH_MAX, "%s/tests/data/sysfs/%s", tu_root(), name);
	return p;
}

/* Builds tests/data/fake_nvml.c with extra flags into a temporary .so;
 * NULL (and the test skipped) when no compiler is at hand. */
static inline char *build_fake_nvml(const char *flags)
{
	char *so = tu_tmpath(".so");
	char cmd[2 * PATH_MAX + 256];
	snprintf(cmd, sizeof cmd, "cc -shared -fPIC -o '%s' %s '%s/tests/data/fake_nvml.c' 2>&1",
	         so, flags, tu_root());
	if (system(cmd) != 0) {
		free(so);
		return NULL;
	}
	return so;
}
#endif
