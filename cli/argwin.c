/* argwin — the measurement-window options of the commands that read
 * metrics (report, compare, sweep, plan): --warmup DUR, --cooldown DUR,
 * --arrivals-only (analysis/metric.h), parsed from the shared table. */
#include "cli/args.h"

#include <string.h>

#include "analysis/metric.h"

int cli_window_opt(const struct cli_args *p, int key, struct metric_window *w)
{
	if (key == OPT_ARRIVALS_ONLY) {
		w->until = METRIC_UNTIL_ARRIVALS;
	} else {
		double d;
		if (metric_parse_duration(p->val, &d) < 0)
			return cli_usage(p, "%s: expected a duration such as 12h, 1d, 90m or seconds, got '%s'", p->opt,
			                 p->val);
		*(key == OPT_WARMUP ? &w->warmup_s : &w->cooldown_s) = d;
	}
	w->given = true;
	if (w->until == METRIC_UNTIL_ARRIVALS && w->cooldown_s > 0)
		return cli_usage(p, "--cooldown and --arrivals-only exclude each other");
	return 0;
}
