/* units — readable numbers and axis scales (see units.h). */
#include "analysis/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* 3 significant digits, no exponent: 1.23, 12.3, 123, 1234. */
static void sig3(char *buf, size_t len, double v, const char *unit)
{
	double a = fabs(v);
	int dec = a >= 100 || a == 0 ? 0 : a >= 10 ? 1 : 2;
	snprintf(buf, len, "%.*f %s", dec, v, unit);
}

const char *units_duration(char *buf, size_t len, double s)
{
	double a = fabs(s);
	if (isnan(s))
		snprintf(buf, len, "-");
	else if (a < 60)
		sig3(buf, len, s, "s");
	else if (a < 3600)
		sig3(buf, len, s / 60, "min");
	else if (a < 86400)
		sig3(buf, len, s / 3600, "h");
	else
		sig3(buf, len, s / 86400, "d");
	return buf;
}

const char *units_money(char *buf, size_t len, double v)
{
	if (isnan(v) || isinf(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	char digits[64];
	snprintf(digits, sizeof digits, "%.0f", fabs(v));
	size_t n = strlen(digits), o = 0;
	char tmp[96];
	if (v <= -0.5)
		tmp[o++] = '-';
	for (size_t i = 0; i < n && o + 2 < sizeof tmp; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			tmp[o++] = ',';
		tmp[o++] = digits[i];
	}
	tmp[o] = '\0';
	snprintf(buf, len, "%s", tmp);
	return buf;
}

const char *units_value(char *buf, size_t len, const char *unit, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (strcmp(unit, "s") == 0)
		units_duration(buf, len, v);
	else if (strcmp(unit, "fraction") == 0)
		snprintf(buf, len, "%.2f %%", 100 * v);
	else if (strcmp(unit, "kWh") == 0 && fabs(v) >= 10000)
		snprintf(buf, len, "%.1f MWh", v / 1000);
	else if (strcmp(unit, "kWh") == 0)
		snprintf(buf, len, "%.1f kWh", v);
	else if (strcmp(unit, "currency") == 0)
		units_money(buf, len, v);
	else if (strcmp(unit, "W") == 0)
		snprintf(buf, len, "%.2f kW", v / 1000);
	else if (strcmp(unit, "ratio") == 0 || !*unit)
		snprintf(buf, len, "%.4g", v);
	else if (units_is_count(unit) && v == floor(v))
		snprintf(buf, len, "%.0f %s", v, unit);
	else
		snprintf(buf, len, "%.4g %s", v, unit);
	return buf;
}

static int decimals(double a)
{
	return a >= 100 || a == 0 ? 0 : a >= 10 ? 1 : 2;
}

/* The unit a number near t is shown in with others (an interval): a
 * duration in units_duration's steps, a ratio bare, a share in % (a
 * difference of shares in pp), else as its axis would be. */
static struct units_axis shown_unit(const char *unit, double t, int delta)
{
	if (strcmp(unit, "s") == 0)
		return t < 60 ? (struct units_axis){ 1, "s" } : t < 3600 ? (struct units_axis){ 60, "min" }
		       : t < 86400 ? (struct units_axis){ 3600, "h" } : (struct units_axis){ 86400, "d" };
	if (strcmp(unit, "fraction") == 0)
		return delta ? (struct units_axis){ 0.01, "pp" } : (struct units_axis){ 0.01, "%" };
	if (strcmp(unit, "ratio") == 0)
		return (struct units_axis){ 1, "" };
	return units_axis_for(unit, t);
}

const char *units_interval(char *buf, size_t len, const char *unit, double mean, double lo,
                           double hi)
{
	if (isnan(mean) || isnan(lo) || isnan(hi))
		return units_value(buf, len, unit, mean);
	if (strcmp(unit, "fraction") == 0) {
		snprintf(buf, len, "%.2f [%.2f, %.2f] %%", 100 * mean, 100 * lo, 100 * hi);
		return buf;
	}
	double t = mean != 0 ? fabs(mean) : fabs(hi);
	struct units_axis a = shown_unit(unit, t, 0);
	double v[3] = { mean / a.div, lo / a.div, hi / a.div };
	snprintf(buf, len, "%.*f [%.*f, %.*f]%s%s", decimals(fabs(v[0])), v[0], decimals(fabs(v[1])), v[1],
	         decimals(fabs(v[2])), v[2], a.name[0] ? " " : "", a.name);
	return buf;
}

const char *units_delta(char *buf, size_t len, const char *unit, double d)
{
	if (!isnan(d) && strcmp(unit, "fraction") == 0)
		snprintf(buf, len, "%.2f pp", 100 * d);
	else
		units_value(buf, len, unit, d);
	return buf;
}

const char *units_range(char *buf, size_t len, const char *unit, double ref, double lo, double hi)
{
	if (isnan(lo) || isnan(hi)) {
		snprintf(buf, len, "-");
		return buf;
	}
	double t = !isnan(ref) && ref != 0 ? fabs(ref) : fmax(fabs(lo), fabs(hi));
	struct units_axis a = shown_unit(unit, t, 1);
	double l = lo / a.div, h = hi / a.div;
	snprintf(buf, len, "[%.*f, %.*f]%s%s", decimals(fabs(l)), l, decimals(fabs(h)), h,
	         a.name[0] ? " " : "", a.name);
	return buf;
}

struct units_axis units_axis_for(const char *unit, double top)
{
	struct units_axis a = { 1, "" };
	double t = fabs(top);
	if (strcmp(unit, "s") == 0) {
		if (t >= 2 * 86400)
			a = (struct units_axis){ 86400, "d" };
		else if (t >= 2 * 3600)
			a = (struct units_axis){ 3600, "h" };
		else if (t >= 120)
			a = (struct units_axis){ 60, "min" };
		else
			a = (struct units_axis){ 1, "s" };
	} else if (strcmp(unit, "fraction") == 0) {
		a = (struct units_axis){ 0.01, "%" };
	} else if (strcmp(unit, "kWh") == 0 && t >= 10000) {
		a = (struct units_axis){ 1000, "MWh" };
	} else if (strcmp(unit, "W") == 0) {
		a = (struct units_axis){ 1000, "kW" };
	} else {
		snprintf(a.name, sizeof a.name, "%s", unit);
	}
	return a;
}

int units_is_count(const char *unit)
{
	return strcmp(unit, "jobs") == 0 || strcmp(unit, "count") == 0 || strcmp(unit, "nodes") == 0 ||
	       strcmp(unit, "racks") == 0;
}
