/* linereader: lines cut from chunks, across chunk boundaries, in plain and
 * gzip files (a gzip file is inflated by a thread of its own); the limits
 * and errors the same in both. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "tests/testutil.h"
#include "traces/trace.h"

static char *write_file(const char *suffix, const char *data, size_t n, bool gz)
{
	char *p = tu_tmpath(suffix);
	if (gz) {
		gzFile g = gzopen(p, "wb");
		assert_non_null(g);
		for (size_t o = 0; o < n;) {
			unsigned k = n - o > (1u << 20) ? 1u << 20 : (unsigned)(n - o);
			assert_int_equal(gzwrite(g, data + o, k), (int)k);
			o += k;
		}
		assert_int_equal(gzclose(g), Z_OK);
	} else {
		FILE *f = fopen(p, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(data, 1, n, f), n);
		assert_int_equal(fclose(f), 0);
	}
	return p;
}

/* Lines of lengths from 0 to 600,000 bytes (the reader's chunks are
 * 256 KiB: lines inside one, across two, across three), some ending in
 * CRLF, the last without a newline: every line back, whole, in order. */
static void test_chunks(void **state)
{
	(void)state;
	enum { NL = 400 };
	size_t lens[NL];
	bool crlf[NL];
	uint64_t x = 99;
	size_t total = 0;
	for (int i = 0; i < NL; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		lens[i] = i % 37 == 5 ? 300000 + (size_t)(x % 300000) : i % 11 == 0 ? 0 : (size_t)(x % 9000);
		crlf[i] = i % 5 == 2;
		total += lens[i] + 2;
	}
	char *text = malloc(total + 1);
	assert_non_null(text);
	size_t o = 0;
	for (int i = 0; i < NL; i++) {
		for (size_t k = 0; k < lens[i]; k++)
			text[o++] = (char)('a' + (i + (int)k) % 26);
		if (crlf[i])
			text[o++] = '\r';
		if (i + 1 < NL)
			text[o++] = '\n';
	}
	for (int gz = 0; gz < 2; gz++) {
		char *p = write_file(gz ? ".txt.gz" : ".txt", text, o, gz);
		char err[256] = "";
		struct linereader *lr = linereader_open(p, err, sizeof err);
		assert_non_null(lr);
		for (int i = 0; i < NL; i++) {
			size_t len = 0;
			const char *l = linereader_next(lr, &len);
			if (!l)
				fail_msg("%s: line %d: none (%s)", gz ? "gzip" : "plain", i + 1, err);
			assert_int_equal(len, lens[i]);
			assert_int_equal(strlen(l), len);
			for (size_t k = 0; k < len; k++)
				if (l[k] != (char)('a' + (i + (int)k) % 26))
					fail_msg("%s: line %d byte %zu differs", gz ? "gzip" : "plain", i + 1, k);
			assert_int_equal(linereader_lineno(lr), i + 1);
		}
		assert_null(linereader_next(lr, NULL));
		assert_int_equal(linereader_error(lr), 0);
		linereader_close(lr);
		unlink(p);
		free(p);
	}
	free(text);
}

/* In a gzip file as in a plain one: a line of TRACE_LINE_MAX bytes is
 * read, one of a byte more fails naming its line; a NUL byte fails naming
 * its line. */
static void test_gzip_limits(void **state)
{
	(void)state;
	size_t n = TRACE_LINE_MAX;
	char *text = malloc(2 * n + 64);
	assert_non_null(text);
	memset(text, 'x', n);
	text[n] = '\n';
	memset(text + n + 1, 'y', n + 1);
	strcpy(text + 2 * n + 2, "\n");
	for (int gz = 0; gz < 2; gz++) {
		char *p = write_file(gz ? ".gz" : ".txt", text, 2 * n + 3, gz);
		char err[256] = "", want[256];
		struct linereader *lr = linereader_open(p, err, sizeof err);
		assert_non_null(lr);
		size_t len = 0;
		assert_non_null(linereader_next(lr, &len));
		assert_int_equal(len, n);
		assert_null(linereader_next(lr, &len));
		assert_int_equal(linereader_error(lr), 1);
		snprintf(want, sizeof want, "%s:2: line longer than %d bytes", p, TRACE_LINE_MAX);
		if (!strstr(err, want))
			fail_msg("%s: got '%s', expected '%s'", gz ? "gzip" : "plain", err, want);
		linereader_close(lr);
		unlink(p);
		free(p);

		static const char nul[] = "one\ntwo\nth\0ree\nfour\n";
		p = write_file(gz ? ".gz" : ".txt", nul, sizeof nul - 1, gz);
		lr = linereader_open(p, err, sizeof err);
		assert_non_null(lr);
		assert_string_equal(linereader_next(lr, NULL), "one");
		assert_string_equal(linereader_next(lr, NULL), "two");
		assert_null(linereader_next(lr, NULL));
		snprintf(want, sizeof want, "%s:3: NUL byte in line", p);
		if (!strstr(err, want))
			fail_msg("%s: got '%s', expected '%s'", gz ? "gzip" : "plain", err, want);
		linereader_close(lr);
		unlink(p);
		free(p);
	}
	free(text);
}

/* A gzip file cut short: the lines before the cut, then a read error
 * naming the line it cut; a reader closed after one line of a large file
 * (its thread waiting for room) closes. */
static void test_gzip_cut_and_close(void **state)
{
	(void)state;
	size_t total = 4u << 20, o = 0;
	char *text = malloc(total + 64);
	assert_non_null(text);
	int nlines = 0;
	while (o + 40 < total)
		o += (size_t)snprintf(text + o, 64, "line %d of a long file %d\n", nlines, nlines * 7), nlines++;
	char *p = write_file(".gz", text, o, true);
	char err[256] = "";
	struct linereader *lr = linereader_open(p, err, sizeof err);
	assert_non_null(lr);
	assert_string_equal(linereader_next(lr, NULL), "line 0 of a long file 0");
	linereader_close(lr);

	FILE *f = fopen(p, "r+");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	assert_int_equal(ftruncate(fileno(f), size / 2), 0);
	fclose(f);
	lr = linereader_open(p, err, sizeof err);
	assert_non_null(lr);
	int got = 0;
	while (linereader_next(lr, NULL))
		got++;
	assert_int_equal(linereader_error(lr), 1);
	assert_true(got > 1000 && got < nlines);
	char want[256];
	snprintf(want, sizeof want, "%s:%d: read error", p, got + 1);
	if (!strstr(err, want) || !strstr(err, "truncated gzip file?"))
		fail_msg("got '%s', expected '%s' ... (truncated gzip file?)", err, want);
	linereader_close(lr);
	unlink(p);
	free(p);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chunks),
		cmocka_unit_test(test_gzip_limits),
		cmocka_unit_test(test_gzip_cut_and_close),
	};
	return cmocka_run_group_tests_name("linereader", tests, NULL, NULL);
}
