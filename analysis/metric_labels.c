/* metric_labels — the label values a metric may name (see metric_labels.h). */
#include "analysis/metric_labels.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/job.h"

enum { SHOW_MAX = 16 };   /* values listed in a message; then "... (N in all)" */

static int key_index(const char *key, size_t n)
{
	for (int i = 0; metric_label_key(i); i++)
		if (strlen(metric_label_key(i)) == n && strncmp(metric_label_key(i), key, n) == 0)
			return i < METRIC_NKEYS ? i : -1;
	return -1;
}

static void add_at(struct metric_labels *L, int k, const char *value, size_t n)
{
	for (int i = 0; i < L->n[k]; i++)
		if (strlen(L->v[k][i]) == n && strncmp(L->v[k][i], value, n) == 0)
			return;
	if (L->n[k] == L->cap[k]) {
		int cap = L->cap[k] ? 2 * L->cap[k] : 8;
		char **p = realloc(L->v[k], (size_t)cap * sizeof *p);
		if (!p) {
			L->oom = true;
			return;
		}
		L->v[k] = p;
		L->cap[k] = cap;
	}
	if (!(L->v[k][L->n[k]] = strndup(value, n))) {
		L->oom = true;
		return;
	}
	L->n[k]++;
}

void metric_labels_init(struct metric_labels *L)
{
	memset(L, 0, sizeof *L);
	for (int c = 0; c < JOB_NCLASS; c++)
		metric_labels_add(L, "class", job_class_name((enum job_class)c));
	/* A job that ended with no reason counts as "none" (analysis/mcompute.c). */
	metric_labels_add(L, "reason", "none");
	for (int r = END_NONE + 1; r < END_NREASON; r++)
		metric_labels_add(L, "reason", end_reason_name((enum end_reason)r));
}

void metric_labels_fini(struct metric_labels *L)
{
	for (int k = 0; k < METRIC_NKEYS; k++) {
		for (int i = 0; i < L->n[k]; i++)
			free(L->v[k][i]);
		free(L->v[k]);
	}
	memset(L, 0, sizeof *L);
}

void metric_labels_add(struct metric_labels *L, const char *key, const char *value)
{
	int k = key_index(key, strlen(key));
	if (k >= 0 && value)
		add_at(L, k, value, strlen(value));
}

/* The label of a canonical name: key [*k0, *k1), value [*v0, *v1); false
 * when it has none. */
static bool split(const char *name, const char **k0, const char **k1, const char **v0,
                  const char **v1)
{
	const char *brace = strchr(name, '{'), *eq = brace ? strchr(brace, '=') : NULL;
	size_t l = strlen(name);
	if (!eq || l < 2 || name[l - 1] != '}')
		return false;
	*k0 = brace + 1;
	*k1 = eq;
	*v0 = eq + 1;
	*v1 = name + l - 1;
	return true;
}

void metric_labels_add_name(struct metric_labels *L, const char *name)
{
	const char *k0, *k1, *v0, *v1;
	if (!split(name, &k0, &k1, &v0, &v1))
		return;
	int k = key_index(k0, (size_t)(k1 - k0));
	if (k >= 0)
		add_at(L, k, v0, (size_t)(v1 - v0));
}

void metric_labels_add_set(struct metric_labels *L, const struct metric_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		metric_labels_add_name(L, s->v[i].name);
}

int metric_edit_distance(const char *a, const char *b, bool fold_case)
{
	int n = (int)strlen(b), row[64];
	if (n >= 63 || strlen(a) >= 63)
		return 99;
	for (int j = 0; j <= n; j++)
		row[j] = j;
	for (int i = 1; a[i - 1]; i++) {
		int diag = row[0];
		row[0] = i;
		for (int j = 1; j <= n; j++) {
			int ca = (unsigned char)a[i - 1], cb = (unsigned char)b[j - 1];
			int up = row[j], best = diag + (fold_case ? tolower(ca) != tolower(cb) : ca != cb);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[n];
}

/* The known value nearest to v: within 2 edits, or the one value that
 * contains it (H100 for H100-SXM-80GB); NULL when none is. */
static const char *nearest(char *const *vals, int n, const char *v)
{
	const char *best = NULL, *within = NULL;
	int bd = 3, nwithin = 0;
	for (int i = 0; i < n; i++) {
		int d = metric_edit_distance(v, vals[i], true);
		if (d < bd && d < (int)strlen(v)) {   /* one of 'x' is no hint */
			bd = d;
			best = vals[i];
		}
		if (strlen(v) >= 2 && strcasestr(vals[i], v)) {
			within = vals[i];
			nwithin++;
		}
	}
	return best ? best : nwithin == 1 ? within : NULL;
}

int metric_labels_check(const struct metric_labels *L, const char *canon, char *err, size_t errlen)
{
	const char *k0, *k1, *v0, *v1;
	if (!split(canon, &k0, &k1, &v0, &v1))
		return 0;
	int k = key_index(k0, (size_t)(k1 - k0));
	if (k < 0 || (L->open & (1u << k)))
		return 0;
	char v[METRIC_NAME_MAX];
	snprintf(v, sizeof v, "%.*s", (int)(v1 - v0), v0);
	for (int i = 0; i < L->n[k]; i++)
		if (strcmp(L->v[k][i], v) == 0)
			return 0;
	if (L->oom) {
		snprintf(err, errlen, "metric '%s': out of memory checking its label", canon);
		return -1;
	}
	const char *key = metric_label_key(k), *near = nearest(L->v[k], L->n[k], v);
	char known[1024] = "";
	size_t off = 0;
	for (int i = 0; i < L->n[k] && i < SHOW_MAX && off < sizeof known; i++)
		off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", i ? ", " : "", L->v[k][i]);
	if (L->n[k] > SHOW_MAX && off < sizeof known)
		snprintf(known + off, sizeof known - off, ", ... (%d in all)", L->n[k]);
	char hint[METRIC_NAME_MAX + 32] = "";
	if (near)
		snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
	if (L->n[k] == 0)
		snprintf(err, errlen, "metric '%s': unknown %s '%s' (there is no %s here)", canon, key, v, key);
	else
		snprintf(err, errlen, "metric '%s': unknown %s '%s'%s (known: %s)", canon, key, v, hint, known);
	return -1;
}
