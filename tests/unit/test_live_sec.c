/* Live mode against hostile input and hostile local users: log lines
 * that cannot be forged or drive a terminal (live_escape, the prefix with
 * wall-clock time and level), probe readings that never block or exhaust
 * memory (reading_file_read), the state directory's ownership and
 * permission rules (live/statedir.h), job lines checked and capped
 * (live_job_norm), the identity columns of the inbox and the quarantine,
 * and the daemon's socket (live/sock.h): requests, replies, identity from
 * the kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live/livelog.h"

#define HAS(hay, needle) do { const char *h_ = (hay), *n_ = (needle); if (!strstr(h_, n_)) \
	fail_msg("expected \"%s\" in \"%s\"", n_, h_); } while (0)

/* ---- log lines ---- */

static void test_escape(void **state)
{
	(void)state;
	char out[256];
	/* A forged second line and a terminal escape sequence. */
	live_escape(out, sizeof out, "job 3 (x\nhetlab live: 2025-01-01T00:00:00.000Z info [0.000 s] end job 9 done\x1b[2J)");
	assert_string_equal(out, "job 3 (x\\nhetlab live: 2025-01-01T00:00:00.000Z info [0.000 s] end job 9 done\\x1b[2J)");
	assert_null(strchr(out, '\n'));
	live_escape(out, sizeof out, "tab\there\rcr\x7f" "del");
	assert_string_equal(out, "tab\\there\\rcr\\x7fdel");
	/* Valid UTF-8 passes; C1 controls (8-bit CSI), bidi overrides and
	 * invalid bytes do not. */
	live_escape(out, sizeof out, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82");
	assert_string_equal(out, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82");
	live_escape(out, sizeof out, "a\xc2\x9b" "31mb\xe2\x80\xae" "c\xff\xc3");
	assert_string_equal(out, "a\\u009b31mb\\u202ec\\xff\\xc3");
	live_escape(out, sizeof out, "\xc0\xaf \xed\xa0\x80");   /* overlong, a surrogate */
	assert_string_equal(out, "\\xc0\\xaf \\xed\\xa0\\x80");
	/* Cut to the buffer, never inside an escape. */
	char small[6];
	assert_int_equal(live_escape(small, sizeof small, "ab\ncd"), 5);
	assert_string_equal(small, "ab\\nc");
	assert_int_equal(live_escape(small, sizeof small, "abc\x01"), 3);
	assert_string_equal(small, "abc");
	live_escape(out, sizeof out, NULL);
	assert_string_equal(out, "");
}

static void test_log_prefix(void **state)
{
	(void)state;
	char p[128];
	/* 2025-03-01T09:30:00.123456Z */
	int64_t t = (int64_t)1740821400 * 1000000 + 123456;
	live_log_prefix(p, sizeof p, t, LIVE_WARN, 12.3456);
	assert_string_equal(p, "hetlab live: 2025-03-01T09:30:00.123Z warn [12.346 s] ");
	live_log_prefix(p, sizeof p, 0, LIVE_INFO, 0);
	assert_string_equal(p, "hetlab live: 1970-01-01T00:00:00.000Z info [0.000 s] ");
	live_log_prefix(p, sizeof p, 999, LIVE_ERROR, 1);
	HAS(p, ".000Z error [1.000 s] ");
	assert_string_equal(live_level_name((enum live_level)7), "info");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_log_prefix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
