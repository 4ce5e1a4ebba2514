/* fuzz_livecfg — the live daemon's configuration (config/livecfg.c). */
#include "tests/fuzz/fuzz.h"
#include "config/livecfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = fz_file(0, data, size, ".json");
	char err[1024] = "";
	static struct live_cfg c;   /* large: kept off the stack */
	if (livecfg_load(p, &c, err, sizeof err) != 0) {
		fz_names(err, p);
		return 0;
	}
	if (c.nprobe < 0 || c.nprobe > LIVE_MAX_PROBES || c.max_jobs < 1 || !(c.tick_s > 0))
		fz_fail("an accepted configuration out of range (%d probes, %d jobs, tick %g)", c.nprobe,
		        c.max_jobs, c.tick_s);
	(void)livecfg_probe(&c, "n1");
	return 0;
}
