/* pagedrop: the pages of a growing file that are on disk and well behind
 * its end leave the page cache, the last ones stay, the contents never
 * change; a file that cannot be opened leaves pagedrop off. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "analysis/pagedrop.h"
#include "tests/testutil.h"

#define MIB ((off_t)1 << 20)
#define TMPFS_MAGIC_ 0x01021994

/* Pages of [off, off + len) of fd in the page cache. */
static long resident(int fd, off_t off, off_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *m = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, fd, off);
	assert_true(m != MAP_FAILED);
	size_t n = (size_t)((len + pg - 1) / pg);
	unsigned char *v = malloc(n);
	assert_non_null(v);
	assert_int_equal(mincore(m, (size_t)len, v), 0);
	long k = 0;
	for (size_t i = 0; i < n; i++)
		k += v[i] & 1;
	free(v);
	munmap(m, (size_t)len);
	return k;
}

static void fill(unsigned char *buf, size_t n, off_t at)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (unsigned char)((at + (off_t)i) * 131 >> 8);
}

/* 8 MiB written in steps of 1 MiB with a lag of 2: writeback was started
 * for [0, 7 MiB) and [0, 5 MiB) dropped; once the pages are clean (after
 * fdatasync) another tick drops them, and the last 2 MiB stay cached. */
static void test_drops_behind(void **state)
{
	(void)state;
	char *path = tu_tmpath(".bin");
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	struct statfs fs;
	assert_int_equal(fstatfs(fd, &fs), 0);
	if (fs.f_type == TMPFS_MAGIC_) {
		/* tmpfs keeps its pages in memory: there is nothing to hand back. */
		fprintf(stderr, "test_pagedrop: %s is on tmpfs, skipped\n", path);
		close(fd);
		unlink(path);
		free(path);
		skip();
	}
	struct pagedrop pd;
	pagedrop_open(&pd, path, MIB, 2);
	assert_true(pd.fd >= 0);
	unsigned char *buf = malloc((size_t)MIB);
	assert_non_null(buf);
	for (off_t at = 0; at < 8 * MIB; at += MIB) {
		fill(buf, (size_t)MIB, at);
		assert_int_equal(pwrite(fd, buf, (size_t)MIB, at), MIB);
		pagedrop_tick(&pd);
	}
	assert_int_equal(pd.flushed, 7 * MIB);
	assert_int_equal(pd.dropped, 5 * MIB);
	assert_int_equal(fdatasync(fd), 0);
	/* Clean now: a range dropped before its writeback ended is dropped again. */
	pd.dropped = 0;
	pagedrop_tick(&pd);
	assert_int_equal(pd.dropped, 5 * MIB);
	/* From 64 KiB on: a tool may read a mapped file's first pages for
	 * itself (valgrind looks for an ELF header when resident() maps the
	 * file: 4 pages came back, and the test failed under make valgrind). */
	assert_int_equal(resident(fd, 64 << 10, 5 * MIB - (64 << 10)), 0);
	assert_true(resident(fd, 6 * MIB, 2 * MIB) > 0);
	/* What is read back is what was written. */
	unsigned char *want = malloc((size_t)MIB);
	assert_non_null(want);
	for (off_t at = 0; at < 8 * MIB; at += MIB) {
		assert_int_equal(pread(fd, buf, (size_t)MIB, at), MIB);
		fill(want, (size_t)MIB, at);
		assert_memory_equal(buf, want, (size_t)MIB);
	}
	pagedrop_close(&pd);
	assert_int_equal(pd.fd, -1);
	pagedrop_tick(&pd);   /* closed: nothing */
	free(want);
	free(buf);
	close(fd);
	unlink(path);
	free(path);
}

/* A file shorter than 2 + lag steps is never touched. */
static void test_small_file(void **state)
{
	(void)state;
	char *path = tu_tmpath(".bin");
	int fd = open(path, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	struct pagedrop pd;
	pagedrop_open(&pd, path, PAGEDROP_STEP, PAGEDROP_LAG);
	unsigned char *buf = calloc(1, (size_t)MIB);
	assert_non_null(buf);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pwrite(fd, buf, (size_t)MIB, i * MIB), MIB);
		pagedrop_tick(&pd);
	}
	assert_int_equal(pd.flushed, 0);
	assert_int_equal(pd.dropped, 0);
	pagedrop_close(&pd);
	free(buf);
	close(fd);
	unlink(path);
	free(path);
}

/* No file, a link, or a zero step: off, and its calls do nothing. */
static void test_off(void **state)
{
	(void)state;
	struct pagedrop pd;
	pagedrop_open(&pd, "/nonexistent/hetlab/run.db", MIB, 2);
	assert_int_equal(pd.fd, -1);
	pagedrop_tick(&pd);
	pagedrop_close(&pd);
	char *target = tu_tmpath(".bin"), *link_path = tu_tmpath(".lnk");
	FILE *f = fopen(target, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(symlink(target, link_path), 0);
	pagedrop_open(&pd, link_path, MIB, 2);
	assert_int_equal(pd.fd, -1);
	pagedrop_open(&pd, target, 0, 2);
	assert_int_equal(pd.fd, -1);
	unlink(link_path);
	unlink(target);
	free(link_path);
	free(target);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drops_behind),
		cmocka_unit_test(test_small_file),
		cmocka_unit_test(test_off),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
