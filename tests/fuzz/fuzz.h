/* fuzz — what the libFuzzer harnesses under tests/fuzz/ share (docs/fuzzing.md).
 *
 * Each fuzz_X.c is one target: LLVMFuzzerTestOneInput hands one parser the
 * input, as a file (the readers take paths; the file lives under $TMPDIR,
 * one per process, rewritten each run) or as a NUL-terminated string, and
 * checks what the parser promises beyond not crashing (round trips where a
 * format is written and read back). A broken promise calls fz_fail, which
 * aborts: libFuzzer then keeps the input as a crash. Header-only: each
 * target is its own program, linked with libhetlab built for fuzzing. */
#ifndef HL_FUZZ_H
#define HL_FUZZ_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reports a broken invariant and aborts (a crash for libFuzzer). */
__attribute__((noreturn, format(printf, 1, 2), unused))
static void fz_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("fuzz invariant broken: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* A path of this process under $TMPDIR (else /tmp) ending in suffix; the
 * same path for the same suffix on every call (slot 0..3 for several). */
__attribute__((unused))
static const char *fz_path(int slot, const char *suffix)
{
	static char buf[4][512];
	const char *dir = getenv("TMPDIR");
	snprintf(buf[slot], sizeof buf[slot], "%s/hetlab-fuzz-%ld-%d%s", dir && *dir ? dir : "/tmp",
	         (long)getpid(), slot, suffix);
	return buf[slot];
}

/* Writes the input to fz_path(slot, suffix) and returns that path. */
__attribute__((unused))
static const char *fz_file(int slot, const uint8_t *data, size_t size, const char *suffix)
{
	const char *p = fz_path(slot, suffix);
	FILE *f = fopen(p, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
		fz_fail("cannot write %s", p);
	return p;
}

/* The input as a NUL-terminated string (malloc'd; caller frees). */
__attribute__((unused))
static char *fz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Every error message names its source: src must be in err. */
__attribute__((unused))
static void fz_names(const char *err, const char *src)
{
	if (!strstr(err, src))
		fz_fail("error \"%s\" does not name %s", err, src);
}

#endif
