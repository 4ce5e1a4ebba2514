/* metric_window — the measurement window every metric of the registry
 * (analysis/metric.h) counts within: its warm-up, cool-down or "until the
 * last arrival", read from a scenario's or a run's "measure" object (JSON)
 * or from the command line, and described for a person. It sits below the
 * registry and its run reader (analysis/mrun), which both use it; metric.h
 * includes it.
 *
 * Ownership: windows are caller-owned storage; the JSON text returned is
 * the caller's to free. */
#ifndef HL_METRIC_WINDOW_H
#define HL_METRIC_WINDOW_H

#include <stdbool.h>
#include <stddef.h>

enum metric_until { METRIC_UNTIL_END, METRIC_UNTIL_ARRIVALS };

struct metric_window {
	double warmup_s;             /* >= 0 */
	double cooldown_s;           /* >= 0; with METRIC_UNTIL_END only */
	enum metric_until until;
	bool given;                  /* set by a key or an option (else: the run's own) */
};

/* A duration: "90" (s), "30s", "15m", "24h", "2d". 0, or -1. */
int metric_parse_duration(const char *s, double *out_s);
/* "whole run", "warm-up 1d, until the last arrival", ... */
void metric_window_describe(const struct metric_window *w, char *buf, size_t len);
/* The JSON object stored in a run's meta table under "measure" and the
 * scenario key "measure": {"warmup": "1d", "cooldown": "12h"} or
 * {"warmup": "1d", "until": "arrivals"}. 0, or -1 with a message. */
int metric_window_from_json_text(const char *text, struct metric_window *w, char *err,
                                 size_t errlen);
char *metric_window_to_json_text(const struct metric_window *w);   /* caller frees */

#endif
