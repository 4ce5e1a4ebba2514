/* fuzz_openb_pods — the Alibaba openb pod lists (traces/openb.c), strict
 * and lenient, with the per-pod extras; a strict success reads the same
 * jobs as lenient, and every job has its extra. */
#include "tests/fuzz/fuzz.h"
#include "traces/openb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = fz_file(0, data, size, ".csv");
	char err[1024] = "";
	struct workload a, b;
	struct openb_pods xa, xb;
	struct openb_opts lenient = { .lenient = true };
	openb_pods_init(&xa);
	openb_pods_init(&xb);
	(void)openb_sniff(p);
	int ra = trace_openb_pods_read(p, NULL, &a, &xa, err, sizeof err);
	if (ra != 0)
		fz_names(err, p);
	int rb = trace_openb_pods_read(p, &lenient, &b, &xb, err, sizeof err);
	if (rb != 0)
		fz_names(err, p);
	if (ra == 0 && (xa.n != a.n || rb != 0 || b.n != a.n))
		fz_fail("strict %d jobs (%d extras), lenient %d (rc %d)", a.n, xa.n, b.n, rb);
	for (int32_t i = 0; ra == 0 && i < a.n; i++)
		if (xa.pod[i].spec >= xa.nspecs || a.jobs[i].submit_us != b.jobs[i].submit_us)
			fz_fail("job %d: extra out of range or strict and lenient differ", i);
	if (ra == 0)
		workload_free(&a);
	if (rb == 0)
		workload_free(&b);
	openb_pods_free(&xa);
	openb_pods_free(&xb);
	return 0;
}
