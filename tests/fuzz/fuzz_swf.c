/* fuzz_swf — the SWF reader (traces/swf.c), strict and lenient. Lenient
 * never fails on a malformed line (it counts it); strict fails naming the
 * file; both read the same jobs when strict succeeds. */
#include "tests/fuzz/fuzz.h"
#include "traces/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = fz_file(0, data, size, ".swf");
	char err[1024] = "";
	struct workload a, b;
	struct swf_opts lenient = { .lenient = true };
	int ra = trace_swf_read(p, NULL, &a, err, sizeof err);
	if (ra != 0)
		fz_names(err, p);
	int rb = trace_swf_read(p, &lenient, &b, err, sizeof err);
	if (rb != 0)
		fz_names(err, p);
	if (ra == 0 && (rb != 0 || a.n != b.n || b.skipped_malformed != 0))
		fz_fail("strict read %d jobs, lenient %d (rc %d, %lld malformed)", a.n, b.n, rb,
		        (long long)b.skipped_malformed);
	for (int32_t i = 0; ra == 0 && i < a.n; i++)
		if (a.jobs[i].submit_us != b.jobs[i].submit_us || a.truth[i].run_us != b.truth[i].run_us ||
		    a.jobs[i].submit_us > TRACE_MAX_TIME_US || a.truth[i].run_us > TRACE_MAX_TIME_US)
			fz_fail("job %d differs between strict and lenient, or is out of range", i);
	workload_free(&a);
	workload_free(&b);
	return 0;
}
