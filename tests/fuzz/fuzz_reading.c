/* fuzz_reading — a node's reading (live/reading.c): parsed, formatted and
 * parsed again it is the same reading (NaN for the same unknowns). */
#include <math.h>

#include "tests/fuzz/fuzz.h"
#include "live/reading.h"

static bool same(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512] = "", text[512];
	struct sim_reading a, b;
	if (reading_parse("reading", (const char *)data, size, &a, err, sizeof err) != 0) {
		fz_names(err, "reading");
		return 0;
	}
	int n = reading_format(&a, text, sizeof text);
	if (n < 0)
		fz_fail("an accepted reading does not format");
	if (reading_parse("formatted", text, (size_t)n, &b, err, sizeof err) != 0)
		fz_fail("the formatted reading %s does not parse: %s", text, err);
	if (!same(a.power_w, b.power_w) || !same(a.temp_c, b.temp_c) || !same(a.util, b.util) ||
	    a.gpu_errors != b.gpu_errors || a.bad_gpu != b.bad_gpu || a.down != b.down || a.ok != b.ok)
		fz_fail("the reading changed in the round trip: %s", text);
	return 0;
}
