/* speedcfg — a catalog GPU's speed table by job class and precision.
 * See speedcfg.h and docs/catalog.md "Speed table". */
#include "config/speedcfg.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "sim/job.h"

/* "a, b, c" of the class or precision names, for messages. */
static void class_list(char *out, size_t len)
{
	size_t off = 0;
	out[0] = '\0';
	for (int c = 0; c < JOB_NCLASS && off < len; c++)
		off += (size_t)snprintf(out + off, len - off, "%s%s", c ? ", " : "",
		                        job_class_name((enum job_class)c));
}

static void prec_list(char *out, size_t len)
{
	size_t off = 0;
	out[0] = '\0';
	for (int p = 0; p < PREC_N && off < len; p++)
		off += (size_t)snprintf(out + off, len - off, "%s%s", p ? ", " : "",
		                        precision_name((enum precision)p));
}

static int find_class(const char *name)
{
	for (int c = 0; c < JOB_NCLASS; c++)
		if (strcmp(name, job_class_name((enum job_class)c)) == 0)
			return c;
	return -1;
}

/* Only the canonical names: "bf16" is an alias elsewhere, but a table
 * with both "fp16" and "bf16" would be ambiguous. */
static int find_prec(const char *name)
{
	for (int p = 0; p < PREC_N; p++)
		if (strcmp(name, precision_name((enum precision)p)) == 0)
			return p;
	return -1;
}

/* One relative speed at path p: a number in (0, SPEED_MAX]. */
static int speed_value(struct jv *v, const json_t *x, const char *p, double *out)
{
	if (!json_is_number(x))
		return jv_fail(v, p, "expected a number in (0, %g], got %s", SPEED_MAX, jv_type(x));
	double d = json_number_value(x);
	if (!(d > 0 && d <= SPEED_MAX))
		return jv_fail(v, p, "expected a number in (0, %g], got %g", SPEED_MAX, d);
	*out = d;
	return 0;
}

/* One class: {"fp16": x, "fp8": y, "fp32": z} (any subset) or a number. */
static int load_class(struct jv *v, const json_t *x, const char *cp, double row[PREC_N])
{
	char p[320], names[64];
	if (json_is_number(x)) {
		double d = 0;
		if (speed_value(v, x, cp, &d))
			return -1;
		for (int i = 0; i < PREC_N; i++)
			row[i] = d;
		return 0;
	}
	if (!json_is_object(x)) {
		prec_list(names, sizeof names);
		return jv_fail(v, cp, "expected an object of precision: relative speed (%s) or one number "
		               "for all precisions, got %s", names, jv_type(x));
	}
	const char *k;
	json_t *val;
	json_object_foreach((json_t *)x, k, val) {
		int pr = find_prec(k);
		if (pr < 0) {
			prec_list(names, sizeof names);
			return jv_fail(v, cp, "unknown precision \"%s\" (expected one of: %s)", k, names);
		}
		jv_subpath(p, sizeof p, cp, k);
		if (speed_value(v, val, p, &row[pr]))
			return -1;
	}
	return 0;
}

int catalog_speed_load(struct jv *v, const json_t *o, const char *path, struct gpu_model *g)
{
	char sp[288], cp[320], names[96];
	if (v->failed)
		return -1;
	const json_t *src = json_object_get(o, "speed_source");
	if (src) {
		jv_subpath(sp, sizeof sp, path, "speed_source");
		if (!json_is_string(src))
			return jv_fail(v, sp, "expected a string, got %s", jv_type(src));
		if (json_string_length(src) > SPEED_SOURCE_MAX)
			return jv_fail(v, sp, "too long (at most %d characters, got %zu)", SPEED_SOURCE_MAX,
			               json_string_length(src));
	}
	const json_t *s = json_object_get(o, "speed");
	if (!s)
		return 0;
	jv_subpath(sp, sizeof sp, path, "speed");
	if (!json_is_object(s)) {
		class_list(names, sizeof names);
		return jv_fail(v, sp, "expected an object of job class: {precision: relative speed} (%s), got %s",
		               names, jv_type(s));
	}
	double tab[JOB_NCLASS][PREC_N];
	memset(tab, 0, sizeof tab);
	const char *k;
	json_t *x;
	json_object_foreach((json_t *)s, k, x) {
		int c = find_class(k);
		if (c < 0) {
			class_list(names, sizeof names);
			return jv_fail(v, sp, "unknown job class \"%s\" (expected one of: %s)", k, names);
		}
		jv_subpath(cp, sizeof cp, sp, k);
		if (load_class(v, x, cp, tab[c]))
			return -1;
		/* No FP8 on the card: an fp8 job runs in fp16. */
		if (g->fp8_tflops <= 0 && tab[c][PREC_FP8] == 0)
			tab[c][PREC_FP8] = tab[c][PREC_FP16];
	}
	memcpy(g->speed, tab, sizeof g->speed);
	return 0;
}
