/* SWF TimeZoneString: the header is read into workload.tz, and the
 * hour-of-day and weekday profile of `trace inspect` is in that zone's
 * local time, with daylight saving (winter +1 h, summer +2 h for
 * Europe/Stockholm); an unknown zone or none leaves UTC, and TZ is left as
 * it was. Skipped where the system has no zone database. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/trace.h"
#include "traces/tracestat.h"

/* 2024-01-15 00:00:00 UTC (a Monday) and 2024-07-15 00:00:00 UTC (a Monday). */
#define JAN15 1705276800LL
#define JUL15 1721001600LL

static void write_swf(const char *path, const char *tz)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "; UnixStartTime: %lld\n", JAN15);
	if (tz)
		fprintf(f, "; TimeZoneString: %s\n", tz);
	/* one job at 10:00 UTC on Jan 15, one at 10:00 UTC on Jul 15 */
	fprintf(f, "1 %lld 0 60 1 -1 -1 1 120 -1 1 1 1 -1 1 -1 -1 -1\n", 10 * 3600LL);
	fprintf(f, "2 %lld 0 60 1 -1 -1 1 120 -1 1 1 1 -1 1 -1 -1 -1\n", JUL15 - JAN15 + 10 * 3600LL);
	fclose(f);
}

static void stat_of(const char *tz, struct workload *w, struct tracestat *s)
{
	char path[] = "/tmp/hetlab-swftz-XXXXXX";
	int fd = mkstemp(path);
	char err[512];
	assert_true(fd >= 0);
	close(fd);
	write_swf(path, tz);
	workload_init(w);
	struct swf_opts o = { 0 };
	assert_int_equal(trace_swf_read(path, &o, w, err, sizeof err), 0);
	remove(path);
	struct tracestat_opts so = { 0 };
	assert_int_equal(tracestat_compute(w, &so, s, err, sizeof err), 0);
}

static void test_local_hours(void **state)
{
	(void)state;
	if (access("/usr/share/zoneinfo/Europe/Stockholm", R_OK) != 0 && !getenv("TZDIR"))
		skip();
	struct workload w;
	struct tracestat s;
	setenv("TZ", "UTC", 1);
	stat_of("Europe/Stockholm", &w, &s);
	assert_string_equal(w.tz, "Europe/Stockholm");
	assert_string_equal(s.tz, "Europe/Stockholm");
	assert_int_equal(s.hour_n[11], 1);   /* 10:00 UTC in January: 11:00 CET */
	assert_int_equal(s.hour_n[12], 1);   /* 10:00 UTC in July: 12:00 CEST */
	assert_int_equal(s.hour_n[10], 0);
	assert_int_equal(s.dow_n[0], 2);     /* both Mondays */
	assert_string_equal(getenv("TZ"), "UTC");   /* restored */
	tracestat_free(&s);
	workload_free(&w);
	unsetenv("TZ");
}

static void test_utc(void **state)
{
	(void)state;
	struct workload w;
	struct tracestat s;
	stat_of(NULL, &w, &s);
	assert_string_equal(w.tz, "");
	assert_string_equal(s.tz, "");
	assert_int_equal(s.hour_n[10], 2);
	tracestat_free(&s);
	workload_free(&w);
	stat_of("No/Such_Zone", &w, &s);   /* unknown here: UTC */
	assert_string_equal(w.tz, "No/Such_Zone");
	assert_string_equal(s.tz, "");
	assert_int_equal(s.hour_n[10], 2);
	tracestat_free(&s);
	workload_free(&w);
	stat_of("../../etc/passwd", &w, &s);   /* not a zone name */
	assert_string_equal(s.tz, "");
	tracestat_free(&s);
	workload_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_local_hours),
		cmocka_unit_test(test_utc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
