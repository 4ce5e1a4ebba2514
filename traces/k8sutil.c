/* k8sutil — loading a kubectl JSON file, quantities, times and JSON paths
 * for the Kubernetes readers (k8s.h, k8sutil.h). */
#include "traces/k8s.h"
#include "traces/k8sutil.h"
#include "traces/jsonfile.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- the file ----------------------------------------------------------------- */

bool k8s_sniff(const char *path)
{
	gzFile gz = gzopen(path, "rb");
	if (!gz)
		return false;
	unsigned char buf[4096];
	int n = gzread(gz, buf, sizeof buf);
	gzclose(gz);
	int i = n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
	while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	return i < n && buf[i] == '{';
}

json_t *k8s_load(const char *path, char *err, size_t errlen)
{
	gzFile gz = gzopen(path, "rb");
	if (!gz) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno ? errno : ENOENT));
		return NULL;
	}
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	const char *fail = buf ? NULL : "out of memory";
	while (!fail) {
		if (len == cap) {
			char *nb = cap > JSONFILE_MAX ? NULL : realloc(buf, cap * 2);
			if (!nb) {
				fail = cap > JSONFILE_MAX ? "larger than the most a JSON input file may be"
				                          : "out of memory";
				break;
			}
			buf = nb;
			cap *= 2;
		}
		int got = gzread(gz, buf + len, (unsigned)(cap - len > (1u << 30) ? (1u << 30) : cap - len));
		if (got < 0) {
			int e;
			const char *m = gzerror(gz, &e);
			fail = e == Z_ERRNO ? strerror(errno) : m;
		}
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	if (!fail && len > JSONFILE_MAX)
		fail = "larger than the most a JSON input file may be";
	if (fail) {
		snprintf(err, errlen, "%s: %s", path, fail);
		gzclose(gz);
		free(buf);
		return NULL;
	}
	gzclose(gz);
	size_t skip = len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
	json_error_t je;
	json_t *root = json_loadb(buf + skip, len - skip, JSON_REJECT_DUPLICATES, &je);
	free(buf);
	if (!root) {
		/* Two values one after another: a JSON Lines file without its suffix. */
		const char *hint = strstr(je.text, "end of file expected")
		                   ? " (a JSON Lines trace must be named .jsonl)" : "";
		if (je.line <= 0)
			snprintf(err, errlen, "%s: %s%s", path, je.text, hint);
		else
			snprintf(err, errlen, "%s:%d:%d: %s%s", path, je.line, je.column, je.text, hint);
	}
	return root;
}

static const char *kind_of(const json_t *o)
{
	const json_t *k = json_is_object(o) ? json_object_get(o, "kind") : NULL;
	return json_is_string(k) ? json_string_value(k) : NULL;
}

json_t *k8s_items(const char *path, json_t *root, enum k8s_list want, json_t **one,
                  char *err, size_t errlen)
{
	static const char *const item[] = { "Pod", "Node" };
	static const char *const list[] = { "PodList", "NodeList" };
	static const char *const cmd[] = { "kubectl get pods -A -o json", "kubectl get nodes -o json" };
	static const char *const use[] = {
		"give it as the trace (--trace, or the scenario's \"workload\": {\"trace\": ...})",
		"give it as the cluster (the scenario's \"from_inventory\": {\"file\": ..., "
		"\"format\": \"k8s\"})",
	};
	*one = NULL;
	if (!json_is_object(root)) {
		snprintf(err, errlen, "%s: expected a Kubernetes List object (%s), got %s", path,
		         cmd[want], kp_type(root));
		return NULL;
	}
	const char *kind = kind_of(root);
	json_t *items = json_object_get(root, "items");
	int other = 1 - (int)want;
	/* What the file holds: the list's kind, else its first item's. */
	const char *is = kind;
	if (kind && strcmp(kind, "List") == 0 && json_is_array(items) && json_array_size(items) > 0)
		is = kind_of(json_array_get(items, 0));
	if (is && (strcmp(is, item[other]) == 0 || strcmp(is, list[other]) == 0)) {
		snprintf(err, errlen, "%s: a Kubernetes %s list (%s), not a %s list: %s", path,
		         item[other], cmd[other], item[want], use[other]);
		return NULL;
	}
	if (kind && strcmp(kind, item[want]) == 0) {
		*one = json_array();
		if (!*one || json_array_append(*one, root)) {
			snprintf(err, errlen, "%s: out of memory", path);
			json_decref(*one);
			*one = NULL;
			return NULL;
		}
		return *one;
	}
	if (!kind || (strcmp(kind, "List") != 0 && strcmp(kind, list[want]) != 0)) {
		char got[96];
		if (kind)
			snprintf(got, sizeof got, "\"%.60s\"", kind);
		else
			snprintf(got, sizeof got, "%s", json_object_get(root, "kind") ? "not a string" : "none");
		snprintf(err, errlen, "%s: kind: expected \"List\" or \"%s\" (%s), got %s%s", path,
		         list[want], cmd[want], got,
		         !kind && json_object_get(root, "submit") ? " (a JSON Lines trace must be named .jsonl)"
		                                                  : "");
		return NULL;
	}
	if (!json_is_array(items)) {
		snprintf(err, errlen, "%s: items: expected an array of %s objects, got %s", path,
		         item[want], items ? kp_type(items) : "none");
		return NULL;
	}
	return items;
}

/* ---- JSON paths ------------------------------------------------------------------ */

static void kp_put(struct kpath *k, const char *s)
{
	size_t m = strlen(s);
	if (k->n + m >= sizeof k->p)
		m = sizeof k->p - 1 - k->n;
	memcpy(k->p + k->n, s, m);
	k->n += m;
	k->p[k->n] = '\0';
}

size_t kp_key(struct kpath *k, const char *key)
{
	size_t at = k->n;
	bool plain = *key != '\0';
	for (const char *c = key; *c; c++)
		plain &= isalnum((unsigned char)*c) || *c == '_' || *c == '-';
	char buf[300];
	if (plain)
		snprintf(buf, sizeof buf, "%s%.200s", k->n ? "." : "", key);
	else
		snprintf(buf, sizeof buf, "[\"%.200s\"]", key);
	kp_put(k, buf);
	return at;
}

size_t kp_idx(struct kpath *k, size_t i)
{
	size_t at = k->n;
	char buf[32];
	snprintf(buf, sizeof buf, "[%zu]", i);
	kp_put(k, buf);
	return at;
}

void kp_pop(struct kpath *k, size_t n)
{
	k->n = n;
	k->p[n] = '\0';
}

int kp_fail(struct kpath *k, const char *key, const char *fmt, ...)
{
	size_t at = k->n;
	if (key)
		kp_key(k, key);
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(k->err, k->errlen, "%s: %s: %s", k->file, k->n ? k->p : "(the top level)", msg);
	kp_pop(k, at);
	return -1;
}

const char *kp_type(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

int kp_str(struct kpath *k, const json_t *obj, const char *key, bool required, const char **out)
{
	json_t *v = json_object_get(obj, key);
	*out = NULL;
	if (!v || json_is_null(v))
		return required ? kp_fail(k, key, "missing (expected a string)") : 0;
	if (!json_is_string(v))
		return kp_fail(k, key, "expected a string, got %s", kp_type(v));
	*out = json_string_value(v);
	return 0;
}

static int kp_typed(struct kpath *k, const json_t *obj, const char *key, bool required,
                    json_t **out, json_type t, const char *what)
{
	json_t *v = json_object_get(obj, key);
	*out = NULL;
	if (!v || json_is_null(v))
		return required ? kp_fail(k, key, "missing (expected %s)", what) : 0;
	if (json_typeof(v) != t)
		return kp_fail(k, key, "expected %s, got %s", what, kp_type(v));
	*out = v;
	return 0;
}

int kp_obj(struct kpath *k, const json_t *obj, const char *key, bool required, json_t **out)
{
	return kp_typed(k, obj, key, required, out, JSON_OBJECT, "an object");
}

int kp_arr(struct kpath *k, const json_t *obj, const char *key, bool required, json_t **out)
{
	return kp_typed(k, obj, key, required, out, JSON_ARRAY, "an array");
}

int kp_quantity(struct kpath *k, const json_t *obj, const char *key, bool milli,
                const char *want, int64_t *out)
{
	json_t *v = json_object_get(obj, key);
	char buf[64];
	const char *s = buf;
	if (json_is_string(v))
		s = json_string_value(v);
	else if (json_is_integer(v))
		snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, sizeof buf, "%.17g", json_real_value(v));
	else
		return kp_fail(k, key, "expected %s, got %s", want, v ? kp_type(v) : "none");
	int rc = milli ? k8s_quantity_milli(s, out) : k8s_quantity_int(s, out);
	if (rc)
		return kp_fail(k, key, "expected %s, got \"%.60s\"", want, s);
	return 0;
}

int kp_time(struct kpath *k, const json_t *obj, const char *key, bool required, int64_t *us)
{
	const char *s;
	*us = -1;
	if (kp_str(k, obj, key, required, &s))
		return -1;
	if (s && k8s_time_us(s, us))
		return kp_fail(k, key, "expected an RFC 3339 time such as \"2024-05-01T10:00:00Z\" "
		               "(1970 or later), got \"%.60s\"", s);
	return 0;
}

/* ---- quantities --------------------------------------------------------------- */

#define QMAX (INT64_C(1) << 62)

/* mant × 2^bin × 10^dec, rounded up; -1 above QMAX. */
static int scale(uint64_t mant, int bin, int dec, int64_t *out)
{
	for (; bin > 0; bin--) {
		if (mant > QMAX / 2)
			return -1;
		mant *= 2;
	}
	for (; dec > 0; dec--) {
		if (mant > QMAX / 10)
			return -1;
		mant *= 10;
	}
	if (dec < 0) {
		if (dec < -19) {
			mant = mant > 0;
		} else {
			uint64_t p = 1;
			for (int i = 0; i < -dec; i++)
				p *= 10;
			mant = mant / p + (mant % p != 0);
		}
	}
	if (mant > QMAX)
		return -1;
	*out = (int64_t)mant;
	return 0;
}

/* The quantity in units of 10^-extra (extra 3: milli). */
static int quantity(const char *s, int extra, int64_t *out)
{
	uint64_t mant = 0;
	int dec = extra, bin = 0, digits = 0;
	if (*s == '+')
		s++;
	for (; isdigit((unsigned char)*s); s++, digits++) {
		if (mant < UINT64_C(100000000000000000))
			mant = mant * 10 + (uint64_t)(*s - '0');
		else
			dec++;          /* digits past 17 significant ones: their magnitude only */
	}
	if (*s == '.') {
		for (s++; isdigit((unsigned char)*s); s++, digits++) {
			if (mant < UINT64_C(100000000000000000)) {
				mant = mant * 10 + (uint64_t)(*s - '0');
				dec--;
			} else if (*s != '0') {
				mant++;     /* a further non-zero digit: rounds up */
				while (isdigit((unsigned char)s[1]))
					s++;
			}
		}
	}
	if (!digits)
		return -1;
	static const struct { const char *suf; int bin, dec; } sufs[] = {
		{ "Ki", 10, 0 }, { "Mi", 20, 0 }, { "Gi", 30, 0 }, { "Ti", 40, 0 }, { "Pi", 50, 0 },
		{ "Ei", 60, 0 }, { "n", 0, -9 }, { "u", 0, -6 }, { "m", 0, -3 }, { "k", 0, 3 },
		{ "M", 0, 6 }, { "G", 0, 9 }, { "T", 0, 12 }, { "P", 0, 15 }, { "E", 0, 18 },
	};
	if ((*s == 'e' || *s == 'E') && (isdigit((unsigned char)s[1]) || s[1] == '-' || s[1] == '+')) {
		char *end;
		errno = 0;
		long e = strtol(s + 1, &end, 10);
		if (end == s + 1 || *end || errno || e < -40 || e > 40)
			return -1;
		dec += (int)e;
	} else if (*s) {
		size_t i = 0;
		for (; i < sizeof sufs / sizeof sufs[0]; i++)
			if (strcmp(s, sufs[i].suf) == 0)
				break;
		if (i == sizeof sufs / sizeof sufs[0])
			return -1;
		bin = sufs[i].bin;
		dec += sufs[i].dec;
	}
	return scale(mant, bin, dec, out);
}

int k8s_quantity_milli(const char *s, int64_t *milli)
{
	return quantity(s, 3, milli);
}

int k8s_quantity_int(const char *s, int64_t *v)
{
	return quantity(s, 0, v);
}

/* ---- times ---------------------------------------------------------------------- */

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int num(const char *s, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

int k8s_time_us(const char *s, int64_t *unix_us)
{
	int y, mo, d, h, mi, sec;
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	if (strlen(s) < 20 || num(s, 4, &y) || s[4] != '-' || num(s + 5, 2, &mo) || s[7] != '-' ||
	    num(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
	    num(s + 11, 2, &h) || s[13] != ':' || num(s + 14, 2, &mi) || s[16] != ':' ||
	    num(s + 17, 2, &sec))
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || sec > 60)
		return -1;
	if (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
		return -1;
	const char *p = s + 19;
	int64_t frac_us = 0;
	if (*p == '.') {
		int nd = 0;
		for (p++; isdigit((unsigned char)*p); p++, nd++)
			if (nd < 6)
				frac_us = frac_us * 10 + (*p - '0');
		if (!nd)
			return -1;
		for (; nd < 6; nd++)
			frac_us *= 10;
	}
	int64_t off_s = 0;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int oh, om;
		if (num(p + 1, 2, &oh) || p[3] != ':' || num(p + 4, 2, &om) || oh > 23 || om > 59)
			return -1;
		off_s = (oh * 3600 + om * 60) * (*p == '-' ? -1 : 1);
		p += 6;
	} else {
		return -1;
	}
	if (*p)
		return -1;
	int64_t t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + (sec > 59 ? 59 : sec) - off_s;
	if (t < 0)
		return -1;  /* before 1970: no API server writes one (and -1 means "none" to the readers) */
	*unix_us = t * 1000000 + frac_us;
	return 0;
}
