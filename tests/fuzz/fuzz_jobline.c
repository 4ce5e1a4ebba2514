/* fuzz_jobline — a submitted job line as `hetlab submit` checks it: the
 * live extras (live_spec_check: argv, env, cwd, name) and the trace fields
 * (trace_jsonl_parse_job, the extras ignored). Errors name the source. */
#include "tests/fuzz/fuzz.h"
#include "live/daemon.h"
#include "traces/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const extra[] = { "argv", "env", "cwd", "name", NULL };
	char *text = fz_string(data, size);
	char err[1024] = "";
	if (live_spec_check("job:1", text, err, sizeof err) != 0)
		fz_names(err, "job");
	struct workload w;
	workload_init(&w);
	if (trace_jsonl_parse_job("job", 1, text, size, extra, &w, err, sizeof err) != 0) {
		fz_names(err, "job:1");
		if (w.n != 0)
			fz_fail("a refused line added a job");
	} else if (w.n != 1) {
		fz_fail("an accepted line added %d jobs", w.n);
	}
	workload_free(&w);
	free(text);
	return 0;
}
