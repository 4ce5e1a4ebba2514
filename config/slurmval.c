/* slurmval — the values of a site's Slurm files: Slurm's time strings,
 * integers and YES/NO with the reader's error messages ("FILE:LINE: KEY:
 * expected ..."), its warnings, and the policy parameters slurm.conf sets.
 * Shared by slurmconf.c (lines, nodes, partitions) and slurmglob.c (the
 * global keys); declared in slurmconf.h and slurmconf_int.h. */
#include "config/slurmconf.h"
#include "config/slurmconf_int.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void slurm_msgs_add(struct slurm_msgs *m, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (m->n == m->cap) {
		int32_t cap = m->cap ? 2 * m->cap : 16;
		char **v = realloc(m->v, (size_t)cap * sizeof *v);
		if (!v)
			return;                 /* a warning lost to ENOMEM; the read goes on */
		m->v = v;
		m->cap = cap;
	}
	if ((m->v[m->n] = strdup(buf)))
		m->n++;
}

void slurm_msgs_free(struct slurm_msgs *m)
{
	for (int32_t i = 0; i < m->n; i++)
		free(m->v[i]);
	free(m->v);
	memset(m, 0, sizeof *m);
}

const char SLURM_TIME_FORMS[] = "a time (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, or UNLIMITED)";

/* Up to three ':'-separated numbers after an optional "D-". */
int slurm_time_parse(const char *s, int64_t *secs)
{
	if (strcasecmp(s, "UNLIMITED") == 0 || strcasecmp(s, "INFINITE") == 0) {
		*secs = SLURM_UNLIMITED;
		return 0;
	}
	int64_t f[4] = { 0 }, days = -1;
	int nf = 0;
	const char *p = s;
	for (;;) {
		if (!isdigit((unsigned char)*p))
			return -1;
		int64_t x = 0;
		while (isdigit((unsigned char)*p) && x < 1000000000)
			x = x * 10 + (*p++ - '0');
		if (isdigit((unsigned char)*p) || nf == 3)
			return -1;
		f[nf++] = x;
		if (*p == '-' && days < 0 && nf == 1) {
			days = f[0];
			nf = 0;
			p++;
		} else if (*p == ':') {
			p++;
		} else if (*p) {
			return -1;
		} else {
			break;
		}
	}
	int64_t t;
	if (days >= 0)   /* D-HH, D-HH:MM, D-HH:MM:SS */
		t = days * 86400 + f[0] * 3600 + (nf > 1 ? f[1] * 60 : 0) + (nf > 2 ? f[2] : 0);
	else if (nf == 1)   /* minutes */
		t = f[0] * 60;
	else if (nf == 2)   /* MM:SS */
		t = f[0] * 60 + f[1];
	else                /* HH:MM:SS */
		t = f[0] * 3600 + f[1] * 60 + f[2];
	*secs = t;
	return 0;
}

int slurm_time_min(const char *s, int64_t *mins)
{
	int64_t t;
	if (slurm_time_parse(s, &t))
		return -1;
	*mins = t == SLURM_UNLIMITED ? SLURM_UNLIMITED : (t + 59) / 60;
	return 0;
}

int sc_bad(const struct sc_at *a, const char *key, const char *what, const char *val)
{
	snprintf(a->err, a->errlen, "%s:%d: %s: expected %s, got '%s'", a->c->files[a->file], a->line, key,
	         what, val);
	return -1;
}

void sc_warn(const struct sc_at *a, const char *key, const char *fmt, ...)
{
	char rest[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rest, sizeof rest, fmt, ap);
	va_end(ap);
	slurm_msgs_add(&a->c->warn, "%s:%d: %s%s%s", a->c->files[a->file], a->line, key, rest[0] == '=' ? "" : " ",
	               rest);
}

static bool unlimited(const char *v)
{
	return strcasecmp(v, "UNLIMITED") == 0 || strcasecmp(v, "INFINITE") == 0;
}

int sc_int(const struct sc_at *a, const char *key, const char *val, int64_t min, int64_t max,
           bool unl, int64_t unl_val, int64_t *out)
{
	char what[96];
	if (unl && unlimited(val)) {
		*out = unl_val;
		return 0;
	}
	char *end;
	long long x = strtoll(val, &end, 10);
	if (end == val || *end || x < min || x > max || !isdigit((unsigned char)val[val[0] == '-'])) {
		snprintf(what, sizeof what, "an integer in [%lld, %lld]%s", (long long)min, (long long)max,
		         unl ? " or UNLIMITED" : "");
		return sc_bad(a, key, what, val);
	}
	*out = x;
	return 0;
}

int sc_bool(const struct sc_at *a, const char *key, const char *val, bool *out)
{
	if (!strcasecmp(val, "YES") || !strcasecmp(val, "TRUE") || !strcmp(val, "1"))
		*out = true;
	else if (!strcasecmp(val, "NO") || !strcasecmp(val, "FALSE") || !strcmp(val, "0"))
		*out = false;
	else
		return sc_bad(a, key, "YES or NO", val);
	return 0;
}

int sc_time_s(const struct sc_at *a, const char *key, const char *val, int64_t *out)
{
	return slurm_time_parse(val, out) ? sc_bad(a, key, SLURM_TIME_FORMS, val) : 0;
}

int sc_time_min(const struct sc_at *a, const char *key, const char *val, int64_t *out)
{
	return slurm_time_min(val, out) ? sc_bad(a, key, SLURM_TIME_FORMS, val) : 0;
}

int sconf_set_param(struct sconf *c, const char *name, double value, int32_t file, int32_t line)
{
	int32_t i = 0;
	while (i < c->nparams && strcmp(c->param[i].name, name) != 0)
		i++;
	if (i == SCONF_MAX_PARAMS)
		return -1;
	if (i == c->nparams)
		c->nparams++;
	struct sconf_param *p = &c->param[i];
	snprintf(p->name, sizeof p->name, "%s", name);
	p->value = value;
	p->file = file;
	p->line = line;
	return 0;
}

int sc_param(const struct sc_at *a, const char *key, const char *name, double v)
{
	if (sconf_set_param(a->c, name, v, a->file, a->line) == 0)
		return 0;
	snprintf(a->err, a->errlen, "%s:%d: %s: more than %d scheduling parameters", a->c->files[a->file],
	         a->line, key, SCONF_MAX_PARAMS);
	return -1;
}

double sconf_param(const struct sconf *c, const char *name, double def)
{
	for (int32_t i = 0; i < c->nparams; i++)
		if (strcmp(c->param[i].name, name) == 0)
			return c->param[i].value;
	return def;
}

int sc_warn_table(const struct sc_at *a, const struct sc_warned *t, const char *key, const char *val)
{
	for (; t->key; t++)
		if (!strcasecmp(t->key, key)) {
			if (strcasecmp(val, t->fine))
				sc_warn(a, t->key, "%s", t->why);
			return 1;
		}
	return 0;
}

int sc_listed(const char *const *list, const char *key)
{
	for (; *list; list++)
		if (!strcasecmp(*list, key))
			return 1;
	return 0;
}
