/* metric_window — the measurement window of the metric registry (see
 * metric_window.h): durations, its description, its JSON form and its
 * command-line options. */
#include "analysis/metric_window.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

int metric_parse_duration(const char *s, double *out_s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !(v >= 0) || !isfinite(v))
		return -1;
	double mul = 1;
	if (*end == 's')
		end++;
	else if (*end == 'm')
		mul = 60, end++;
	else if (*end == 'h')
		mul = 3600, end++;
	else if (*end == 'd')
		mul = 86400, end++;
	if (*end)
		return -1;
	*out_s = v * mul;
	return 0;
}

static void fmt_dur(char *buf, size_t len, double s)
{
	if (s >= 86400 && fmod(s, 86400) == 0)
		snprintf(buf, len, "%gd", s / 86400);
	else if (s >= 3600 && fmod(s, 3600) == 0)
		snprintf(buf, len, "%gh", s / 3600);
	else
		snprintf(buf, len, "%gs", s);
}

void metric_window_describe(const struct metric_window *w, char *buf, size_t len)
{
	char a[32], b[32];
	fmt_dur(a, sizeof a, w->warmup_s);
	fmt_dur(b, sizeof b, w->cooldown_s);
	if (w->until == METRIC_UNTIL_ARRIVALS)
		snprintf(buf, len, w->warmup_s > 0 ? "warm-up %s, until the last arrival"
		                                   : "%suntil the last arrival", w->warmup_s > 0 ? a : "");
	else if (w->warmup_s > 0 && w->cooldown_s > 0)
		snprintf(buf, len, "warm-up %s, cool-down %s", a, b);
	else if (w->warmup_s > 0)
		snprintf(buf, len, "warm-up %s", a);
	else if (w->cooldown_s > 0)
		snprintf(buf, len, "cool-down %s", b);
	else
		snprintf(buf, len, "whole run");
}

int metric_window_from_json_text(const char *text, struct metric_window *w, char *err,
                                 size_t errlen)
{
	json_error_t je;
	memset(w, 0, sizeof *w);
	json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	int ret = -1;
	if (!json_is_object(o)) {
		snprintf(err, errlen, "measure: expected an object such as {\"warmup\": \"1d\", "
		         "\"until\": \"arrivals\"}");
		goto out;
	}
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		const char *s = json_string_value(v);
		if (strcmp(k, "warmup") == 0 || strcmp(k, "cooldown") == 0) {
			double d;
			char num[64];
			if (json_is_number(v)) {
				snprintf(num, sizeof num, "%.17g", json_number_value(v));
				s = num;
			}
			if (!s || metric_parse_duration(s, &d) < 0) {
				snprintf(err, errlen, "measure.%s: expected a duration such as \"12h\", \"1d\" "
				         "or seconds", k);
				goto out;
			}
			*(k[0] == 'w' ? &w->warmup_s : &w->cooldown_s) = d;
		} else if (strcmp(k, "until") == 0) {
			if (!s || (strcmp(s, "arrivals") != 0 && strcmp(s, "end") != 0)) {
				snprintf(err, errlen, "measure.until: expected \"arrivals\" (the last arrival) "
				         "or \"end\" (the last job's end)");
				goto out;
			}
			w->until = strcmp(s, "arrivals") == 0 ? METRIC_UNTIL_ARRIVALS : METRIC_UNTIL_END;
		} else {
			snprintf(err, errlen, "measure: unknown key \"%s\" (expected warmup, cooldown, until)", k);
			goto out;
		}
	}
	if (w->until == METRIC_UNTIL_ARRIVALS && w->cooldown_s > 0) {
		snprintf(err, errlen, "measure: \"cooldown\" and \"until\": \"arrivals\" exclude each other");
		goto out;
	}
	w->given = true;
	ret = 0;
out:
	json_decref(o);
	return ret;
}

char *metric_window_to_json_text(const struct metric_window *w)
{
	char *s = NULL;
	if (asprintf(&s, "{\"warmup\": %.17g, \"cooldown\": %.17g, \"until\": \"%s\"}", w->warmup_s,
	             w->cooldown_s, w->until == METRIC_UNTIL_ARRIVALS ? "arrivals" : "end") < 0)
		return NULL;
	return s;
}

