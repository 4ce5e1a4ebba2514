/* sacctmgr — `sacctmgr -P show qos | assoc | event` dumps. See sacctmgr.h
 * and docs/slurm-twin.md. */
#include "config/sacctmgr.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "traces/trace.h"
#include "traces/trcutil.h"

#define SM_MAX_COLS 64

/* A '|'-separated dump: the header's columns, then a row at a time. */
struct table {
	const char *path;
	struct linereader *lr;
	char *hdr[SM_MAX_COLS];     /* normalised: lower case, no blanks */
	int ncols;
	char *f[SM_MAX_COLS];       /* the current row's fields, in row */
	char *row;
	size_t rowcap;
	int32_t line;
	char *err;
	size_t errlen;
	struct slurm_msgs *warn;
};

/* The '|'-separated fields of s, cut in place; SM_MAX_COLS + 1 when more. */
static int split(char *s, char **f)
{
	int n = 0;
	for (char *t; (t = strsep(&s, "|")); f[n++] = t)
		if (n == SM_MAX_COLS)
			return n + 1;
	return n;
}

static void tab_close(struct table *t)
{
	for (int i = 0; i < t->ncols; i++)
		free(t->hdr[i]);
	if (t->lr)
		linereader_close(t->lr);
	free(t->row);
	t->row = NULL;
	t->lr = NULL;
	t->ncols = 0;
}

static int tab_open(struct table *t, const char *path, const char *need, char *err, size_t errlen)
{
	memset(t, 0, sizeof *t);
	t->path = path;
	t->err = err;
	t->errlen = errlen;
	if (!(t->lr = linereader_open(path, err, errlen)))
		return -1;
	size_t n;
	const char *l = linereader_next(t->lr, &n);
	if (!l) {
		if (!linereader_error(t->lr))
			snprintf(err, errlen, "%s: empty (expected a `sacctmgr -P` dump with its header)", path);
		return -1;
	}
	char *buf = strdup(l), *f[SM_MAX_COLS];
	if (!buf)
		return snprintf(err, errlen, "%s: out of memory", path), -1;
	int nf = split(buf, f);
	if (nf > 1 && !f[nf - 1][0])
		nf--;                   /* sacctmgr -p ends each line with '|' */
	if (nf > SM_MAX_COLS || !strchr(l, '|')) {
		free(buf);
		return snprintf(err, errlen, "%s:1: expected a `sacctmgr -P` header (%s, ... separated by '|')",
		                path, need), -1;
	}
	for (int i = 0; i < nf; i++) {
		char *h = malloc(strlen(f[i]) + 1), *o = h;
		if (!h)
			break;
		for (const char *s = f[i]; *s; s++)
			if (*s != ' ')
				*o++ = (char)tolower((unsigned char)*s);
		*o = '\0';
		t->hdr[t->ncols++] = h;
	}
	free(buf);
	return t->ncols == nf ? 0 : (snprintf(err, errlen, "%s: out of memory", path), -1);
}

/* The column named name (or its alias), or -1. */
static int col(const struct table *t, const char *name, const char *alias)
{
	for (int i = 0; i < t->ncols; i++)
		if (!strcmp(t->hdr[i], name) || (alias && !strcmp(t->hdr[i], alias)))
			return i;
	return -1;
}

static int oom(const struct table *t);

/* The next row into t->f: 1, 0 at the end, -1 on error. */
static int tab_next(struct table *t)
{
	size_t n;
	const char *l;
	while ((l = linereader_next(t->lr, &n)) && n == 0)
		;
	if (!l)
		return linereader_error(t->lr) ? -1 : 0;
	t->line = (int32_t)linereader_lineno(t->lr);
	if (n + 1 > t->rowcap) {
		char *b = realloc(t->row, n + 1);
		if (!b)
			return oom(t);
		t->row = b;
		t->rowcap = n + 1;
	}
	memcpy(t->row, l, n + 1);
	int nf = split(t->row, t->f);
	if (nf == t->ncols + 1 && !t->f[nf - 1][0])
		nf--;
	if (nf != t->ncols) {
		snprintf(t->err, t->errlen, "%s:%d: expected %d '|'-separated fields as in the header, got %d",
		         t->path, t->line, t->ncols, nf);
		return -1;
	}
	return 1;
}

/* Field c of the row, "" when the column is absent. */
static const char *fld(const struct table *t, int c)
{
	return c >= 0 ? t->f[c] : "";
}

static int bad(const struct table *t, const char *column, const char *what, const char *val)
{
	snprintf(t->err, t->errlen, "%s:%d: %s: expected %s, got '%s'", t->path, t->line, column, what, val);
	return -1;
}

__attribute__((format(printf, 3, 4)))
static void warn(const struct table *t, const char *column, const char *fmt, ...)
{
	char rest[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rest, sizeof rest, fmt, ap);
	va_end(ap);
	slurm_msgs_add(t->warn, "%s:%d: %s%s%s", t->path, t->line, column, rest[0] == '=' ? "" : " ", rest);
}

static int set(json_t *o, const char *key, json_t *v)
{
	return v && json_object_set_new(o, key, v) == 0 ? 0 : -1;
}

static int oom(const struct table *t)
{
	snprintf(t->err, t->errlen, "%s:%d: out of memory", t->path, t->line);
	return -1;
}

/* A non-negative integer field into o.key unless empty (or 0, for a key
 * whose default is 0: priority). */
static int int_field(const struct table *t, int c, const char *column, json_t *o, const char *key)
{
	const char *s = fld(t, c);
	if (!*s || (!strcmp(key, "priority") && !strcmp(s, "0")))
		return 0;
	char *end;
	long long x = strtoll(s, &end, 10);
	if (end == s || *end || x < 0 || x > 4294967294LL || !isdigit((unsigned char)*s))
		return bad(t, column, "an integer in [0, 4294967294]", s);
	return set(o, key, json_integer(x)) ? oom(t) : 0;
}

static int time_field(const struct table *t, int c, const char *column, json_t *o, const char *key)
{
	const char *s = fld(t, c);
	int64_t x;
	if (!*s)
		return 0;
	if (slurm_time_parse(s, &x))
		return bad(t, column, SLURM_TIME_FORMS, s);
	if (x < 0 || (x == 0 && !strcmp(key, "grace_s")))   /* unlimited; the default */
		return 0;
	return set(o, key, json_integer(x)) ? oom(t) : 0;
}

/* A TRES list into {"cpu", "mem_mib", "node", "gpu"}; others warn. */
static int tres_field(const struct table *t, int c, const char *column, json_t *lim, const char *key)
{
	const char *s = fld(t, c);
	if (!*s)
		return 0;
	json_t *o = json_object();
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", s);
	for (char *save = NULL, *e = strtok_r(buf, ",", &save); e && o; e = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(e, '=');
		if (!eq) {
			json_decref(o);
			return bad(t, column, "TRES=COUNT pairs (cpu=64,mem=100G,gres/gpu=4,node=2)", s);
		}
		*eq++ = '\0';
		const char *name = !strcasecmp(e, "cpu") ? "cpu" : !strcasecmp(e, "mem") ? "mem_mib"
		                   : !strcasecmp(e, "node") ? "node" : !strcasecmp(e, "gres/gpu") ? "gpu" : NULL;
		if (!name) {
			warn(t, column, "%s=%s is not modelled (only cpu, mem, node and gres/gpu are)", e, eq);
			continue;
		}
		char *end;
		long long x = strtoll(eq, &end, 10);
		long long mul = 1;
		if (name[0] == 'm' && *end)   /* mem: M (default), G, T, K */
			mul = strchr("Mm", *end) ? 1 : strchr("Gg", *end) ? 1024 : strchr("Tt", *end) ? 1024 * 1024
			      : strchr("Kk", *end) ? -1024 : 0;
		if (end == eq || x < 0 || mul == 0 || (*end && (name[0] != 'm' || end[1])) || x > (1LL << 50)) {
			json_decref(o);
			return bad(t, column, "TRES=COUNT pairs (cpu=64,mem=100G,gres/gpu=4,node=2)", s);
		}
		x = mul < 0 ? (x + 1023) / 1024 : x * mul;
		if (set(o, name, json_integer(x)))
			o = (json_decref(o), NULL);
	}
	if (!o || (json_object_size(o) && set(lim, key, json_incref(o))))
		return json_decref(o), oom(t);
	json_decref(o);
	return 0;
}

/* Columns a row may set that the twin does not model. */
static void unmodelled(const struct table *t, const char *const *cols)
{
	for (int i = 0; cols[i]; i++) {
		int c = col(t, cols[i], NULL);
		if (c >= 0 && t->f[c][0])
			warn(t, t->hdr[c], "=%s is not modelled", t->f[c]);
	}
}

/* The limit columns of a row into "limits". */
struct lim_cols {
	int grp_tres, grp_jobs, max_tres_pu, max_jobs, max_submit, max_tres, max_wall;
};

static int limits(const struct table *t, const struct lim_cols *lc, json_t *entry)
{
	json_t *lim = json_object();
	if (!lim)
		return oom(t);
	int rc = tres_field(t, lc->grp_tres, "GrpTRES", lim, "grp_tres") ||
	         int_field(t, lc->grp_jobs, "GrpJobs", lim, "grp_jobs") ||
	         tres_field(t, lc->max_tres_pu, "MaxTRESPU", lim, "max_tres_per_user") ||
	         int_field(t, lc->max_jobs, "MaxJobs", lim, "max_jobs") ||
	         int_field(t, lc->max_submit, "MaxSubmit", lim, "max_submit") ||
	         tres_field(t, lc->max_tres, "MaxTRES", lim, "max_tres_per_job") ||
	         time_field(t, lc->max_wall, "MaxWall", lim, "max_wall_s") ? -1 : 0;
	if (rc == 0 && json_object_size(lim) && set(entry, "limits", json_incref(lim)))
		rc = oom(t);
	json_decref(lim);
	return rc;
}

/* ---- qos ------------------------------------------------------------------ */

static const char *const qos_flags[] = { "DenyOnLimit", "NoReserve", "OverPartQOS", "PartitionTimeLimit", NULL };

static int qos_row(const struct table *t, const int *c, const struct lim_cols *lc, json_t *e)
{
	const char *mode = fld(t, c[3]), *fl = fld(t, c[4]), *uf = fld(t, c[5]), *pre = fld(t, c[2]);
	if (int_field(t, c[1], "Priority", e, "priority") || time_field(t, c[6], "GraceTime", e, "grace_s") ||
	    time_field(t, c[7], "PreemptExemptTime", e, "preempt_exempt_s") || limits(t, lc, e))
		return -1;
	if (*mode && strcasecmp(mode, "cluster")) {
		if (!strcasecmp(mode, "off") || !strcasecmp(mode, "cancel") || !strcasecmp(mode, "requeue")) {
			char low[16];
			for (int i = 0; i < 15 && (low[i] = (char)tolower((unsigned char)mode[i])); i++)
				low[i + 1] = '\0';
			if (set(e, "preempt_mode", json_string(low)))
				return oom(t);
		} else {
			warn(t, "PreemptMode", "=%s is not modelled: the global PreemptMode applies", mode);
		}
	}
	if (*uf) {
		char *end;
		double x = strtod(uf, &end);
		if (end == uf || *end || !(x >= 0 && x <= 1e6))
			return bad(t, "UsageFactor", "a number in [0, 1e6]", uf);
		if (x != 1 && set(e, "usage_factor", json_real(x)))
			return oom(t);
	}
	json_t *flags = json_array(), *plist = json_array();
	char buf[512];
	int rc = flags && plist ? 0 : oom(t);
	snprintf(buf, sizeof buf, "%s", fl);
	for (char *save = NULL, *f = strtok_r(buf, ",", &save); f && rc == 0; f = strtok_r(NULL, ",", &save)) {
		int k = 0;
		while (qos_flags[k] && strcasecmp(qos_flags[k], f))
			k++;
		if (!qos_flags[k])
			warn(t, "Flags", "%s is not modelled", f);
		else if (json_array_append_new(flags, json_string(qos_flags[k])))
			rc = oom(t);
	}
	snprintf(buf, sizeof buf, "%s", pre);
	for (char *save = NULL, *p = strtok_r(buf, ",", &save); p && rc == 0; p = strtok_r(NULL, ",", &save))
		if (json_array_append_new(plist, json_string(p)))
			rc = oom(t);
	if (rc == 0 && json_array_size(flags) && set(e, "flags", json_incref(flags)))
		rc = oom(t);
	if (rc == 0 && json_array_size(plist) && set(e, "preempt", json_incref(plist)))
		rc = oom(t);
	json_decref(flags);
	json_decref(plist);
	return rc;
}

json_t *sacctmgr_find(const json_t *arr, const char *name)
{
	size_t i;
	json_t *e;
	json_array_foreach(arr, i, e)
		if (!strcmp(json_string_value(json_object_get(e, "name")), name))
			return e;
	return NULL;
}

int sacctmgr_read_qos(const char *path, json_t *qos, struct slurm_msgs *w, char *err, size_t errlen)
{
	static const char *const other[] = { "usagethres", "grpsubmit", "grpsubmitjobs", "grpwall", "grptresmins",
		"grptresrunmins", "maxtrespernode", "maxtresmins", "maxtrespa", "maxjobspa", "maxsubmitpa",
		"mintres", "maxtresrunminspu", "maxtresrunminspa", NULL };
	struct table t;
	if (tab_open(&t, path, "Name, Priority, Preempt, ...", err, errlen))
		return tab_close(&t), -1;
	t.warn = w;
	int c[8] = { col(&t, "name", NULL), col(&t, "priority", NULL), col(&t, "preempt", NULL),
	             col(&t, "preemptmode", NULL), col(&t, "flags", NULL), col(&t, "usagefactor", NULL),
	             col(&t, "gracetime", NULL), col(&t, "preemptexempttime", NULL) };
	struct lim_cols lc = { col(&t, "grptres", NULL), col(&t, "grpjobs", NULL),
		col(&t, "maxtrespu", "maxtresperuser"), col(&t, "maxjobspu", "maxjobsperuser"),
		col(&t, "maxsubmitpu", "maxsubmitjobsperuser"), col(&t, "maxtres", "maxtresperjob"),
		col(&t, "maxwall", "maxwalldurationperjob") };
	int rc = 0, r = 0;
	size_t first = json_array_size(qos);
	if (c[0] < 0)
		rc = trc_fail(err, errlen, "%s:1: the header has no Name column (dump with sacctmgr -P show qos)", path);
	while (rc == 0 && (r = tab_next(&t)) > 0) {
		const char *name = t.f[c[0]];
		if (!*name || strlen(name) >= SLURM_NAME_MAX) {
			rc = bad(&t, "Name", "a QOS name of 1 to 63 bytes", name);
			break;
		}
		if (sacctmgr_find(qos, name)) {
			rc = bad(&t, "Name", "a QOS not listed before", name);
			break;
		}
		json_t *e = json_object();
		if (!e || set(e, "name", json_string(name)) || json_array_append_new(qos, e)) {
			rc = oom(&t);
			break;
		}
		unmodelled(&t, other);
		rc = qos_row(&t, c, &lc, e);
	}
	if (rc == 0 && r < 0)
		rc = -1;
	/* Preempt names a QOS of the same dump */
	for (size_t i = first; rc == 0 && i < json_array_size(qos); i++) {
		const json_t *e = json_array_get(qos, i), *p;
		size_t k;
		json_array_foreach(json_object_get(e, "preempt"), k, p)
			if (!sacctmgr_find(qos, json_string_value(p))) {
				rc = trc_fail(err, errlen, "%s: Preempt: QOS '%s' preempts '%s', which the dump does not list",
				              path, json_string_value(json_object_get(e, "name")), json_string_value(p));
				break;
			}
	}
	tab_close(&t);
	return rc;
}

/* ---- assoc ------------------------------------------------------------------- */

struct assoc_cols {
	int cluster, account, user, part, share, prio, parent, defqos;
	struct lim_cols lc;
};

/* A QOS name of a row: in qos, or added there when qos is not fixed. */
static int qos_name(const struct table *t, const char *column, const char *name, json_t *qos, bool fixed)
{
	if (!*name || sacctmgr_find(qos, name))
		return 0;
	if (fixed)
		return bad(t, column, "a QOS of the QOS dump", name);
	warn(t, column, "'%s': no QOS dump was given; the twin's QOS %s has Slurm's defaults", name, name);
	json_t *e = json_object();
	if (!e || set(e, "name", json_string(name)) || json_array_append_new(qos, e))
		return oom(t);
	return 0;
}

static int assoc_row(const struct table *t, const struct assoc_cols *ac, json_t *qos, bool fixed, json_t *e)
{
	const char *share = fld(t, ac->share), *dq = fld(t, ac->defqos);
	if (*share && !strcasecmp(share, "parent")) {
		if (set(e, "shares", json_string("parent")))
			return oom(t);
	} else if (*share && strcmp(share, "1") && int_field(t, ac->share, "Share", e, "shares")) {
		return -1;
	}
	if (int_field(t, ac->prio, "Priority", e, "priority") || limits(t, &ac->lc, e) ||
	    qos_name(t, "DefaultQOS", dq, qos, fixed))
		return -1;
	if (*dq && set(e, "default_qos", json_string(dq)))
		return oom(t);
	return 0;
}

/* The rows of a user's association for one partition: a row without a
 * partition for the same user and account replaces them. */
struct part_rows {
	struct part_row { size_t idx; int32_t line; bool replaced; char part[SLURM_NAME_MAX]; } *v;
	int32_t n;
};

static void part_warn(const struct table *t, const json_t *users, const struct part_row *r, bool kept)
{
	const json_t *u = json_array_get(users, r->idx);
	slurm_msgs_add(t->warn, "%s:%d: Partition=%s: user %s's association under %s for one partition is %s "
	               "(partition associations are not modelled)", t->path, r->line, r->part,
	               json_string_value(json_object_get(u, "name")), json_string_value(json_object_get(u, "account")),
	               kept ? "taken for every partition" : "left out: the one for every partition is kept");
}

/* A user's association under an account: the row without a partition wins. */
static int add_user(const struct table *t, json_t *users, size_t first, struct part_rows *pr, const char *part,
                    json_t *e)
{
	const char *user = json_string_value(json_object_get(e, "name"));
	const char *acct = json_string_value(json_object_get(e, "account"));
	for (size_t i = first; i < json_array_size(users); i++) {
		json_t *u = json_array_get(users, i);
		if (strcmp(json_string_value(json_object_get(u, "name")), user) ||
		    strcmp(json_string_value(json_object_get(u, "account")), acct))
			continue;
		int32_t k = 0;
		while (k < pr->n && (pr->v[k].idx != i || pr->v[k].replaced))
			k++;
		if (!*part && k == pr->n) {
			bad(t, "User", "one association of a user under an account", user);
			json_decref(e);
			return -1;
		}
		if (*part) {
			struct part_row r = { i, t->line, true, "" };
			snprintf(r.part, sizeof r.part, "%s", part);
			part_warn(t, users, &r, false);
			json_decref(e);
			return 0;
		}
		pr->v[k].replaced = true;
		return json_array_set_new(users, i, e) ? oom(t) : 0;
	}
	if (*part) {
		struct part_row *v = realloc(pr->v, ((size_t)pr->n + 1) * sizeof *v);
		if (!v)
			return json_decref(e), oom(t);
		pr->v = v;
		v[pr->n] = (struct part_row){ json_array_size(users), t->line, false, "" };
		snprintf(v[pr->n++].part, sizeof v->part, "%s", part);
	}
	return json_array_append_new(users, e) ? oom(t) : 0;
}

int sacctmgr_read_assoc(const char *path, const char *cluster, json_t *qos, bool fixed, json_t *accounts,
                        json_t *users, struct slurm_msgs *w, char *err, size_t errlen)
{
	static const char *const other[] = { "grpsubmit", "grpsubmitjobs", "grpwall", "grptresmins",
		"grptresrunmins", "maxtrespernode", "maxtresmins", "maxtresrunmins", NULL };
	struct table t;
	if (tab_open(&t, path, "Cluster, Account, User, Share, ...", err, errlen))
		return tab_close(&t), -1;
	t.warn = w;
	struct assoc_cols ac = { col(&t, "cluster", NULL), col(&t, "account", NULL), col(&t, "user", NULL),
		col(&t, "partition", NULL), col(&t, "share", "fairshare"), col(&t, "priority", NULL),
		col(&t, "parentname", NULL), col(&t, "defqos", "defaultqos"),
		{ col(&t, "grptres", NULL), col(&t, "grpjobs", NULL), -1, col(&t, "maxjobs", NULL),
		  col(&t, "maxsubmit", "maxsubmitjobs"), col(&t, "maxtres", NULL), col(&t, "maxwall", NULL) } };
	size_t ufirst = json_array_size(users), afirst = json_array_size(accounts);
	int rc = 0, r = 0, other_cluster = 0;
	struct part_rows pr = { 0 };
	if (ac.account < 0)
		rc = trc_fail(err, errlen, "%s:1: the header has no Account column (dump with sacctmgr -P show assoc "
		              "format=Cluster,Account,User,Partition,Share,...,ParentName,QOS,DefaultQOS)", path);
	if (rc == 0 && ac.parent < 0)
		slurm_msgs_add(w, "%s:1: ParentName is not a column: every account is taken as a child of root (dump "
		               "with format=...,ParentName)", path);
	while (rc == 0 && (r = tab_next(&t)) > 0) {
		const char *acct = fld(&t, ac.account), *user = fld(&t, ac.user), *part = fld(&t, ac.part);
		const char *cl = fld(&t, ac.cluster), *par = fld(&t, ac.parent);
		if (cluster && cluster[0] && *cl && strcmp(cl, cluster)) {
			other_cluster++;
			continue;
		}
		if (!*acct || strlen(acct) >= SLURM_NAME_MAX || strlen(user) >= SLURM_NAME_MAX ||
		    strlen(par) >= SLURM_NAME_MAX) {
			rc = bad(&t, "Account", "names of 1 to 63 bytes", acct);
			break;
		}
		json_t *e = json_object();
		if (!e || set(e, "name", json_string(*user ? user : acct)))
			rc = oom(&t);
		else if (*user && set(e, "account", json_string(acct)))
			rc = oom(&t);
		else if (!*user && *par && set(e, "parent", json_string(par)))
			rc = oom(&t);
		else
			rc = assoc_row(&t, &ac, qos, fixed, e);
		if (rc == 0) {
			unmodelled(&t, other);
			if (*user) {
				rc = add_user(&t, users, ufirst, &pr, part, e);   /* takes e */
				e = NULL;
			} else if (sacctmgr_find(accounts, acct)) {
				rc = bad(&t, "Account", "an account not listed before", acct);
			} else {
				rc = json_array_append(accounts, e) ? oom(&t) : 0;
			}
		}
		json_decref(e);
	}
	if (rc == 0 && r < 0)
		rc = -1;
	for (int32_t k = 0; rc == 0 && k < pr.n; k++)
		part_warn(&t, users, &pr.v[k], !pr.v[k].replaced);
	free(pr.v);
	if (rc == 0 && other_cluster)
		slurm_msgs_add(w, "%s: %d rows of clusters other than %s left out", path, other_cluster, cluster);
	/* every parent and every user's account is an account of the dump */
	for (size_t i = afirst; rc == 0 && i < json_array_size(accounts); i++) {
		const char *p = json_string_value(json_object_get(json_array_get(accounts, i), "parent"));
		if (p && strcmp(p, "root") && !sacctmgr_find(accounts, p))
			rc = trc_fail(err, errlen, "%s: ParentName: account '%s' has parent '%s', which the dump does not "
			              "list", path, json_string_value(json_object_get(json_array_get(accounts, i), "name")), p);
	}
	for (size_t i = ufirst; rc == 0 && i < json_array_size(users); i++) {
		const char *a = json_string_value(json_object_get(json_array_get(users, i), "account"));
		if (strcmp(a, "root") && !sacctmgr_find(accounts, a))
			rc = trc_fail(err, errlen, "%s: Account: user '%s' is under account '%s', which the dump does not "
			              "list", path, json_string_value(json_object_get(json_array_get(users, i), "name")), a);
	}
	tab_close(&t);
	return rc;
}

/* ---- events --------------------------------------------------------------------- */

void sm_events_free(struct sm_events *e)
{
	free(e->v);
	memset(e, 0, sizeof *e);
}

/* "YYYY-MM-DDTHH:MM:SS" (UTC) into *t: 1; "Unknown" or "": 0; else -1. */
static int utc_time(const char *s, int64_t *t)
{
	if (!*s || !strcmp(s, "Unknown"))
		return 0;
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	const char *end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end || *end)
		return -1;
	*t = (int64_t)timegm(&tm);
	return 1;
}

struct ev_ctx {
	struct sm_events *ev;
	struct sm_event e;
};

static int add_event(const char *node, void *vctx)
{
	struct ev_ctx *x = vctx;
	struct sm_events *ev = x->ev;
	if (ev->n == ev->cap) {
		int32_t cap = ev->cap ? 2 * ev->cap : 16;
		struct sm_event *v = realloc(ev->v, (size_t)cap * sizeof *v);
		if (!v)
			return 1;
		ev->v = v;
		ev->cap = cap;
	}
	ev->v[ev->n] = x->e;
	snprintf(ev->v[ev->n].node, sizeof ev->v[ev->n].node, "%s", node);
	ev->n++;
	return 0;
}

int sacctmgr_read_events(const char *path, const char *cluster, struct sm_events *ev, struct slurm_msgs *w,
                         char *err, size_t errlen)
{
	struct table t;
	if (tab_open(&t, path, "Cluster, NodeName, TimeStart, TimeEnd, State, ...", err, errlen))
		return tab_close(&t), -1;
	t.warn = w;
	int cc = col(&t, "cluster", NULL), cn = col(&t, "nodename", NULL), cs = col(&t, "timestart", NULL);
	int ce = col(&t, "timeend", NULL), cst = col(&t, "state", NULL), cr = col(&t, "reason", NULL);
	int rc = 0, r = 0;
	if (cn < 0 || cs < 0 || cst < 0)
		rc = trc_fail(err, errlen, "%s:1: the header needs NodeName, TimeStart and State (dump with sacctmgr -P "
		              "show event format=Cluster,NodeName,TimeStart,TimeEnd,State,Reason)", path);
	while (rc == 0 && (r = tab_next(&t)) > 0) {
		const char *node = t.f[cn], *st = t.f[cst], *cl = fld(&t, cc);
		if (!*node || (cluster && cluster[0] && *cl && strcmp(cl, cluster)))
			continue;
		struct ev_ctx x = { ev, { .line = t.line, .end = -1 } };
		int k = utc_time(t.f[cs], &x.e.start);
		if (k <= 0) {
			rc = bad(&t, "TimeStart", "a time YYYY-MM-DDTHH:MM:SS", t.f[cs]);
			break;
		}
		if (utc_time(fld(&t, ce), &x.e.end) < 0) {
			rc = bad(&t, "TimeEnd", "a time YYYY-MM-DDTHH:MM:SS or Unknown", fld(&t, ce));
			break;
		}
		x.e.drain = strcasestr(st, "DRAIN") != NULL;
		if (!x.e.drain && !strcasestr(st, "DOWN") && !strcasestr(st, "FAIL")) {
			warn(&t, "State", "%s is neither DOWN nor DRAIN: the event is ignored", st);
			continue;
		}
		snprintf(x.e.reason, sizeof x.e.reason, "%s", fld(&t, cr));
		char why[256];
		int hr = hostexpr_each(node, add_event, &x, why, sizeof why);
		if (hr < 0)
			rc = bad(&t, "NodeName", why, node);
		else if (hr)
			rc = oom(&t);
	}
	if (rc == 0 && r < 0)
		rc = -1;
	tab_close(&t);
	return rc;
}
