/* taint — parsing and matching of taints and tolerations (sim/taint.h). */
#include "sim/taint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/labelkey.h"

static const char *const effect_names[TAINT_NEFFECT] = { "NoSchedule", "PreferNoSchedule", "NoExecute" };

static bool is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool value_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '.' || c == '-';
}

static int parse_effect(const char *s, size_t n)
{
	for (int e = 0; e < TAINT_NEFFECT; e++)
		if (strlen(effect_names[e]) == n && strncmp(effect_names[e], s, n) == 0)
			return e;
	return -1;
}

/* One item "KEY[=VALUE][:EFFECT]" split into its parts; -1 with a message. */
struct item {
	char key[LABEL_KEY_MAX + 1];
	char value[64];
	bool has_value;
	int effect;      /* -1 none given */
};

static int parse_item(const char *s, size_t n, struct item *it, const char *what, char *err, size_t errlen)
{
	char text[512];
	snprintf(text, sizeof text, "%.*s", (int)(n < 511 ? n : 511), s);
	memset(it, 0, sizeof *it);
	it->effect = -1;
	char *colon = strrchr(text, ':'), *eq;
	if (colon) {
		*colon = '\0';
		if ((it->effect = parse_effect(colon + 1, strlen(colon + 1))) < 0) {
			snprintf(err, errlen, "%s \"%.*s\": unknown effect \"%s\" (expected NoSchedule, PreferNoSchedule "
			         "or NoExecute)", what, (int)n, s, colon + 1);
			return -1;
		}
	}
	if ((eq = strchr(text, '='))) {
		*eq = '\0';
		it->has_value = true;
		size_t vl = strlen(eq + 1);
		bool ok = vl < sizeof it->value;
		for (size_t k = 0; ok && k < vl; k++)
			ok = value_char((unsigned char)eq[1 + k]);
		if (!ok) {
			snprintf(err, errlen, "%s \"%.*s\": the value must be at most 63 characters of A-Z a-z 0-9 _ . -",
			         what, (int)n, s);
			return -1;
		}
		snprintf(it->value, sizeof it->value, "%s", eq + 1);
	}
	if (!labels_key_valid(text) && strcmp(text, "*") != 0) {
		snprintf(err, errlen, "%s \"%.*s\": expected KEY[=VALUE]%s with KEY of 1 to %d characters of "
		         "A-Z a-z 0-9 _ . - /", what, (int)n, s, strcmp(what, "taint") == 0 ? ":EFFECT" : "[:EFFECT]",
		         LABEL_KEY_MAX);
		return -1;
	}
	snprintf(it->key, sizeof it->key, "%s", text);
	return 0;
}

/* Calls fn on each item of a comma-separated list; -1 at the first failure. */
static int each_item(const char *text, const char *what, int (*fn)(void *ctx, const struct item *it, char *err,
                     size_t errlen), void *ctx, char *err, size_t errlen)
{
	const char *s = text ? text : "";
	while (*s) {
		while (is_blank((unsigned char)*s))
			s++;
		size_t n = strcspn(s, ",");
		size_t m = n;
		while (m && is_blank((unsigned char)s[m - 1]))
			m--;
		if (m == 0) {
			if (!s[n] && s == text)
				return 0;
			snprintf(err, errlen, "%s list \"%s\": an empty item", what, text);
			return -1;
		}
		struct item it;
		if (parse_item(s, m, &it, what, err, errlen) || fn(ctx, &it, err, errlen))
			return -1;
		s += n;
		if (*s == ',')
			s++;
	}
	return 0;
}

struct tlist {
	void *v;
	int32_t n, cap;
	size_t size;
};

static void *tlist_push(struct tlist *l)
{
	if (l->n == l->cap) {
		int32_t nc = l->cap ? l->cap * 2 : 4;
		void *nv = realloc(l->v, (size_t)nc * l->size);
		if (!nv)
			return NULL;
		l->v = nv;
		l->cap = nc;
	}
	void *p = (char *)l->v + (size_t)l->n++ * l->size;
	memset(p, 0, l->size);
	return p;
}

static int add_taint(void *ctx, const struct item *it, char *err, size_t errlen)
{
	struct tlist *l = ctx;
	if (strcmp(it->key, "*") == 0 || it->effect < 0) {
		snprintf(err, errlen, "taint \"%s%s%s\": expected KEY[=VALUE]:EFFECT (a taint names its key and its "
		         "effect)", it->key, it->has_value ? "=" : "", it->value);
		return -1;
	}
	struct taint *t = tlist_push(l);
	if (!t || !(t->key = strdup(it->key)) || !(t->value = strdup(it->value))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->effect = it->effect;
	return 0;
}

static int add_toleration(void *ctx, const struct item *it, char *err, size_t errlen)
{
	struct tlist *l = ctx;
	bool any = strcmp(it->key, "*") == 0;
	if (any && it->has_value) {
		snprintf(err, errlen, "toleration \"*=%s\": * (every key) takes no value", it->value);
		return -1;
	}
	struct toleration *t = tlist_push(l);
	if (!t || (!any && !(t->key = strdup(it->key))) || (it->has_value && !(t->value = strdup(it->value)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	t->effect = it->effect;
	return 0;
}

int taint_parse(const char *text, struct taint **out, int32_t *n, char *err, size_t errlen)
{
	struct tlist l = { .size = sizeof(struct taint) };
	if (each_item(text, "taint", add_taint, &l, err, errlen)) {
		taint_free(l.v, l.n);
		return -1;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

void taint_free(struct taint *t, int32_t n)
{
	for (int32_t i = 0; t && i < n; i++) {
		free(t[i].key);
		free(t[i].value);
	}
	free(t);
}

int toleration_parse(const char *text, struct toleration **out, int32_t *n, char *err, size_t errlen)
{
	struct tlist l = { .size = sizeof(struct toleration) };
	if (each_item(text, "toleration", add_toleration, &l, err, errlen)) {
		toleration_free(l.v, l.n);
		return -1;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

void toleration_free(struct toleration *t, int32_t n)
{
	for (int32_t i = 0; t && i < n; i++) {
		free(t[i].key);
		free(t[i].value);
	}
	free(t);
}

/* Kubernetes' rule: the effects match (or the toleration names none), the
 * keys match (or the toleration is the empty-key Exists), and for Equal
 * the values match. */
bool toleration_covers(const struct toleration *tl, int32_t ntl, const struct taint *t)
{
	for (int32_t i = 0; i < ntl; i++) {
		const struct toleration *o = &tl[i];
		if (o->effect >= 0 && o->effect != t->effect)
			continue;
		if (!o->key)
			return true;
		if (strcmp(o->key, t->key) != 0)
			continue;
		if (!o->value || strcmp(o->value, t->value) == 0)
			return true;
	}
	return false;
}
