/* testutil — helpers shared by the unit tests: paths to test data, temp
 * files, and a malloc counter for the allocation test. */
#ifndef HL_TESTUTIL_H
#define HL_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

/* A fresh temporary path (not created) with the given suffix; owned by the caller. */
char *tu_tmpath(const char *suffix);
/* Writes `text` to a new temporary file; returns its path (caller frees). */
char *tu_write_tmp(const char *suffix, const char *text);
/* Repository root (where the tests are run from); "." by default. */
const char *tu_root(void);
/* The shared trace directory ($HETLAB_TRACES or ../shared/traces). */
const char *tu_traces(void);
/* A fresh temporary directory $TMPDIR/hetlab-NAME-XXXXXX (created; the
 * test fails when it cannot be); tu_tmpdir_free removes it with all it
 * holds and frees the path. */
char *tu_tmpdir_new(const char *name);
void tu_tmpdir_free(char *dir);

#endif
