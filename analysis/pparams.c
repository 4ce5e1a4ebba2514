/* pparams — see pparams.h. */
#include "analysis/pparams.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy.h"

/* The value of `name` in params ("n=v n=v ..."), into val; 0 when absent. */
static int value_of(const char *params, const char *name, char *val, size_t len)
{
	size_t nl = strlen(name);
	for (const char *p = params; p && *p;) {
		while (*p == ' ')
			p++;
		const char *eq = strchr(p, '='), *end = strchr(p, ' ');
		if (!end)
			end = p + strlen(p);
		if (eq && eq < end && (size_t)(eq - p) == nl && strncmp(p, name, nl) == 0) {
			snprintf(val, len, "%.*s", (int)(end - eq - 1), eq + 1);
			return 1;
		}
		p = end;
	}
	return 0;
}

/* Appends to out (at *off) without overflowing it. */
static void add(char *out, size_t len, size_t *off, const char *fmt, const char *a, const char *b, const char *c)
{
	if (*off >= len)
		return;
	int n = snprintf(out + *off, len - *off, fmt, a, b, c);
	if (n > 0)
		*off += (size_t)n;
	if (*off >= len)
		*off = len - 1;
}

void pparams_brief(const char *policy, const char *params, char *out, size_t len)
{
	const struct policy_ops *pol = policy ? policy_find(policy) : NULL;
	size_t off = 0;
	out[0] = '\0';
	if (!pol || !pol->params) {
		snprintf(out, len, "%s", params ? params : "");
		return;
	}
	int rest = 0;
	for (int k = 0; pol->params[k].name; k++) {
		char val[64], def[64];
		snprintf(def, sizeof def, "%g", pol->params[k].def);
		if (!value_of(params, pol->params[k].name, val, sizeof val) || strcmp(val, def) == 0) {
			rest++;
			continue;
		}
		add(out, len, &off, "%s%s=%s", off ? " " : "", pol->params[k].name, val);
	}
	if (!off)
		snprintf(out, len, "its defaults");
	else if (rest) {
		char n[16];
		snprintf(n, sizeof n, "%d", rest);
		add(out, len, &off, "; %s%s more at %s", n, "", rest == 1 ? "its default" : "their defaults");
	}
}

void pparams_diff(const char *a, const char *b, char *out, size_t len)
{
	size_t off = 0;
	out[0] = '\0';
	/* names of a, then those only in b */
	for (int side = 0; side < 2; side++) {
		const char *p = side ? b : a, *other = side ? a : b;
		while (p && *p) {
			while (*p == ' ')
				p++;
			const char *eq = strchr(p, '='), *end = strchr(p, ' ');
			if (!end)
				end = p + strlen(p);
			if (!eq || eq > end) {
				p = end;
				continue;
			}
			char name[64], va[64], vb[64];
			snprintf(name, sizeof name, "%.*s", (int)(eq - p), p);
			snprintf(va, sizeof va, "%.*s", (int)(end - eq - 1), eq + 1);
			p = end;
			int has = value_of(other, name, vb, sizeof vb);
			if (side && has)
				continue;   /* seen from a's side */
			if (has && strcmp(va, vb) == 0)
				continue;
			add(out, len, &off, off ? ", %s %s -> %s" : "%s %s -> %s", name, side ? "(unset)" : va,
			    side ? va : has ? vb : "(unset)");
		}
	}
}
