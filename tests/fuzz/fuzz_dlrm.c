/* fuzz_dlrm — the Alibaba DLRM instance list (traces/dlrm.c), strict and
 * lenient, and the load curve of its first services: a curve starts at 0,
 * its steps differ, and its peak is one of its values. */
#include "tests/fuzz/fuzz.h"
#include "traces/dlrm.h"

static void check_curves(const struct workload *w, const struct dlrm_services *s)
{
	char err[1024];
	struct dlrm_curve c = { 0 };
	for (int32_t g = 0; g < s->napps && g < 4; g++) {
		if (dlrm_load_curve(w, s, g, &c, err, sizeof err) != 0)
			continue;
		int32_t peak = 0;
		for (int32_t k = 0; k < c.n; k++) {
			if (c.live[k] < 0 || (k > 0 && (c.live[k] == c.live[k - 1] || c.t_us[k] < c.t_us[k - 1])))
				fz_fail("service %d: step %d of its curve is out of order", g, k);
			if (c.live[k] > peak)
				peak = c.live[k];
		}
		if (c.n > 0 && (c.t_us[0] != 0 || peak != c.peak))
			fz_fail("service %d: the curve starts at %lld, peak %d (computed %d)", g,
			        (long long)c.t_us[0], c.peak, peak);
		int32_t out[16];
		if (dlrm_curve_sample(&c, SIMTIME_HOUR, out, 16) > 16)
			fz_fail("dlrm_curve_sample wrote past its room");
	}
	dlrm_curve_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = fz_file(0, data, size, ".csv");
	char err[1024] = "";
	struct workload w;
	struct dlrm_services s;
	struct dlrm_opts lenient = { .lenient = true };
	for (int pass = 0; pass < 2; pass++) {
		if (trace_dlrm_read(p, pass ? &lenient : NULL, &w, &s, err, sizeof err) != 0) {
			fz_names(err, p);
			continue;
		}
		if (s.ninst != w.n)
			fz_fail("%d instances for %d jobs", s.ninst, w.n);
		for (int32_t i = 0; i < w.n; i++)
			if (w.jobs[i].group < 0 || w.jobs[i].group >= s.napps)
				fz_fail("job %d in service %d of %d", i, w.jobs[i].group, s.napps);
		check_curves(&w, &s);
		dlrm_services_free(&s);
		workload_free(&w);
	}
	return 0;
}
