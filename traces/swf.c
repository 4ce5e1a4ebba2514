/* swf — the Standard Workload Format v2.2 reader (see trace.h, docs/traces.md).
 *
 * One job per line, 18 whitespace-separated numeric fields, -1 for unknown;
 * header comments start with ';'. Extended logs (the Parallel Workloads
 * Archive's and MetaCentrum's) carry more fields after the 18: they are
 * counted (workload.extra_field_lines), and field 21, the site's request,
 * fills what the standard fields lack (traces/swfext.h). Submit times that
 * are Unix times are rebased to the first submit; a header note may give
 * the memory fields' unit. The request shape — processors as cores
 * anywhere, or node gangs of ppn with memory and a partition's node set —
 * comes from struct swf_shape. Lines are read one at a time and parsed
 * with a hand-written number scanner (sscanf is several times slower on the
 * 122k-line LANL log). */
#include "traces/trace.h"
#include "traces/swfext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SWF_NFIELDS = 18, SWF_F_SITE = 21 };

/* Field numbers as in the spec (1-based). */
enum {
	F_ID = 1, F_SUBMIT, F_WAIT, F_RUN, F_ALLOC_PROCS, F_AVG_CPU, F_USED_MEM,
	F_REQ_PROCS, F_REQ_TIME, F_REQ_MEM, F_STATUS, F_USER, F_GROUP, F_EXE,
	F_QUEUE, F_PARTITION, F_PRECEDING, F_THINK
};

enum field_kind {
	FK_INT,      /* integer, -1 or >= 0 */
	FK_DECIMAL,  /* decimal number, -1 or >= 0 (the spec allows fractions) */
	FK_ID,       /* integer >= 0 */
	FK_SUBMIT,   /* integer seconds >= 0: a replay needs it */
	FK_TIME,     /* integer seconds, -1 or >= 0, small enough for microseconds */
	FK_INT32,    /* integer, -1 or >= 0, fits in int32 */
	FK_STATUS,   /* -1 .. 5 */
};

static const struct {
	const char *name;
	enum field_kind kind;
} fields[SWF_NFIELDS + 1] = {
	[F_ID] = { "job id", FK_ID },
	[F_SUBMIT] = { "submit time", FK_SUBMIT },
	[F_WAIT] = { "wait time", FK_TIME },
	[F_RUN] = { "run time", FK_TIME },
	[F_ALLOC_PROCS] = { "allocated processors", FK_INT32 },
	[F_AVG_CPU] = { "average CPU time", FK_DECIMAL },
	[F_USED_MEM] = { "used memory", FK_DECIMAL },
	[F_REQ_PROCS] = { "requested processors", FK_INT32 },
	[F_REQ_TIME] = { "requested time", FK_TIME },
	[F_REQ_MEM] = { "requested memory", FK_DECIMAL },
	[F_STATUS] = { "status", FK_STATUS },
	[F_USER] = { "user id", FK_INT32 },
	[F_GROUP] = { "group id", FK_INT32 },
	[F_EXE] = { "executable id", FK_INT },
	[F_QUEUE] = { "queue", FK_INT32 },
	[F_PARTITION] = { "partition", FK_INT },
	[F_PRECEDING] = { "preceding job", FK_INT },
	[F_THINK] = { "think time", FK_TIME },
};

/* Largest time in seconds (trace.h: a replay must end). */
#define SWF_MAX_TIME_S TRACE_MAX_TIME_S
/* Submit times (field 2) are Unix times when the first job's is at least
 * this, 10^8 s: as a Unix time March 1973, before any log; as a relative
 * time over three years before a log's first job (docs/traces.md
 * "Absolute times"). Unix times may go up to SWF_UNIX_MAX_S (year 2286). */
#define SWF_UNIX_MIN_S 100000000LL
#define SWF_UNIX_MAX_S 10000000000LL
/* The largest memory request, in bytes (2^60: an exbibyte a node). */
#define SWF_MEM_MAX_B (1LL << 60)
#define SUBMIT_WANT "a non-negative integer (seconds, at most 10^9; a replay needs the submit time)"

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Scans an integer token [s, e). 0 ok, -1 not an integer, -2 overflow. */
static int scan_int(const char *s, const char *e, int64_t *out)
{
	int neg = 0;
	if (s < e && (*s == '-' || *s == '+'))
		neg = *s++ == '-';
	if (s == e)
		return -1;
	uint64_t v = 0;
	for (; s < e; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (d > 9)
			return -1;
		if (v > ((uint64_t)INT64_MAX - d) / 10)
			return -2;
		v = v * 10 + d;
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* Scans a decimal token [s, e): [-]digits[.digits] or [-].digits, with an
 * optional exponent. 0 ok, -1 not a number. */
static int scan_decimal(const char *s, const char *e, double *out)
{
	const char *p = s;
	if (p < e && (*p == '-' || *p == '+'))
		p++;
	int digits = 0;
	while (p < e && *p >= '0' && *p <= '9')
		p++, digits++;
	if (p < e && *p == '.') {
		p++;
		while (p < e && *p >= '0' && *p <= '9')
			p++, digits++;
	}
	if (!digits)
		return -1;
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < e && (*p == '-' || *p == '+'))
			p++;
		if (p == e || *p < '0' || *p > '9')
			return -1;
		while (p < e && *p >= '0' && *p <= '9')
			p++;
	}
	if (p != e)
		return -1;
	char tmp[64];
	size_t n = (size_t)(e - s);
	if (n >= sizeof tmp)
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	*out = strtod(tmp, NULL);
	return 0;
}

struct swf_line {
	int64_t v[SWF_NFIELDS + 1]; /* integer fields; decimals are checked only */
	int32_t extra;              /* fields after the 18 */
	bool has_site;              /* field 21 read into site */
	struct swf_sitereq site;
};

/* Splits a line into at most SWF_F_SITE tokens; returns the token count
 * (which may exceed SWF_F_SITE: the rest are counted, not stored). */
static int split(const char *s, const char *tok[], const char *end[])
{
	int n = 0;
	for (;;) {
		while (is_space(*s))
			s++;
		if (!*s)
			return n;
		const char *e = s;
		while (*e && !is_space(*e))
			e++;
		if (n < SWF_F_SITE) {
			tok[n] = s;
			end[n] = e;
		}
		n++;
		s = e;
	}
}

/* Parses one field [s, e) of kind k; 0 ok, -1 not a number, -2 overflow,
 * -3 out of range; *want says what was expected. */
static int parse_field(enum field_kind k, const char *s, const char *e, int64_t *out,
                       const char **want)
{
	int64_t v = 0;
	int rc;
	if (k == FK_DECIMAL) {
		double d = 0;
		*want = "a number (-1 or >= 0)";
		rc = scan_decimal(s, e, &d);
		if (rc == 0 && d < 0 && d != -1.0)
			rc = -3;
		*out = rc == 0 && d >= 0 ? (d < 9e18 ? (int64_t)d : INT64_MAX) : -1;
		return rc;
	}
	rc = scan_int(s, e, &v);
	int64_t lo = -1, hi = INT64_MAX;
	switch (k) {
	case FK_ID:
		*want = "a non-negative integer";
		lo = 0;
		break;
	case FK_SUBMIT:   /* the reader checks the bound of its kind of times */
		*want = SUBMIT_WANT;
		lo = 0;
		hi = SWF_UNIX_MAX_S;
		break;
	case FK_TIME:
		*want = "-1 or a non-negative integer (seconds, at most 10^9)";
		hi = SWF_MAX_TIME_S;
		break;
	case FK_INT32:
		*want = "-1 or a non-negative integer below 2^31";
		hi = INT32_MAX;
		break;
	case FK_STATUS:
		*want = "a status in -1..5 (1 completed, 0 failed, 5 cancelled)";
		hi = 5;
		break;
	default:
		*want = "-1 or a non-negative integer";
		break;
	}
	if (rc == 0 && (v < lo || v > hi))
		rc = -3;
	*out = v;
	return rc;
}

/* Parses one job line. 0 ok; -1 malformed with the message in msg. */
static int parse_fields(const char *s, struct swf_line *out, char *msg, size_t msglen)
{
	const char *tok[SWF_F_SITE], *end[SWF_F_SITE];
	int n = split(s, tok, end);
	out->extra = n > SWF_NFIELDS ? n - SWF_NFIELDS : 0;
	if (n < SWF_NFIELDS) {
		snprintf(msg, msglen, "expected %d fields, got %d (field %d (%s) is missing)",
		         SWF_NFIELDS, n, n + 1, fields[n + 1].name);
		return -1;
	}
	for (int f = 1; f <= SWF_NFIELDS; f++) {
		const char *want;
		const char *b = tok[f - 1], *e = end[f - 1];
		int rc = parse_field(fields[f].kind, b, e, &out->v[f], &want);
		if (rc != 0) {
			int tl = (int)(e - b > 40 ? 40 : e - b);
			snprintf(msg, msglen, "field %d (%s): expected %s, got '%.*s%s'%s", f,
			         fields[f].name, want, tl, b, e - b > 40 ? "..." : "",
			         rc == -2 ? " (out of range)" : "");
			return -1;
		}
	}
	out->has_site = n >= SWF_F_SITE;
	if (out->has_site) {
		char why[256];
		if (swfext_sitereq(tok[SWF_F_SITE - 1], end[SWF_F_SITE - 1], &out->site, why,
		                   sizeof why) < 0) {
			snprintf(msg, msglen, "field %d (site request): %s", SWF_F_SITE, why);
			return -1;
		}
	}
	return 0;
}

/* A header note that gives a memory field's unit (traces/swfext.h): kept in
 * w, with the line; 0, or -1 with msg when it contradicts an earlier one. */
static int mem_note(const char *text, int64_t line, struct workload *w, char *msg, size_t msglen)
{
	struct swf_mem_unit u = { 0 };
	bool req, used;
	if (!swfext_mem_note(text, &u, &req, &used))
		return 0;
	u.line = line;
	struct swf_mem_unit *to[2] = { req ? &w->mem_req_unit : NULL, used ? &w->mem_used_unit : NULL };
	for (int k = 0; k < 2; k++) {
		if (!to[k] || to[k]->line < 0)
			continue;   /* none, or the scenario's (line -1) */
		if (to[k]->line && (to[k]->scale != u.scale || to[k]->per != u.per)) {
			char a[48], b[48];
			snprintf(msg, msglen, "header: the memory unit %s contradicts %s (line %lld)",
			         swfext_mem_unit_name(&u, a, sizeof a),
			         swfext_mem_unit_name(to[k], b, sizeof b), (long long)to[k]->line);
			return -1;
		}
		if (!to[k]->line)
			*to[k] = u;
	}
	return 0;
}

/* Header comment: "; Key: value". Returns 0, or -1 with msg when a header we
 * use has a value that is not an integer. */
static int parse_header(const char *s, int64_t line, struct workload *w, char *msg, size_t msglen)
{
	static const char *const keys[] = { "MaxProcs", "MaxNodes", "UnixStartTime" };
	s++; /* ';' */
	while (is_space(*s))
		s++;
	if (mem_note(s, line, w, msg, msglen) < 0)
		return -1;
	if (strncmp(s, "TimeZoneString:", 15) == 0) {   /* the log's zone (traces/tracestat.c) */
		const char *p = s + 15, *e;
		while (is_space(*p))
			p++;
		for (e = p; *e && !is_space(*e); e++)
			;
		snprintf(w->tz, sizeof w->tz, "%.*s", (int)(e - p), p);
		return 0;
	}
	for (int k = 0; k < 3; k++) {
		size_t kl = strlen(keys[k]);
		if (strncmp(s, keys[k], kl) != 0 || s[kl] != ':')
			continue;
		const char *p = s + kl + 1;
		while (is_space(*p))
			p++;
		const char *e = p;
		while (*e && !is_space(*e))
			e++;
		int64_t v;
		int64_t hi = k == 2 ? INT64_MAX : INT32_MAX;
		if (scan_int(p, e, &v) != 0 || v < -1 || v > hi) {
			snprintf(msg, msglen, "header %s: expected a non-negative integer "
			         "(or -1, unknown), got '%.*s'",
			         keys[k], (int)(e - p > 40 ? 40 : e - p), p);
			return -1;
		}
		if (k == 0)
			w->max_procs = (int32_t)v;
		else if (k == 1)
			w->max_nodes = (int32_t)v;
		else
			w->unix_start = v;
		return 0;
	}
	return 0;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/* The memory request in MiB from v (> 0) in unit u: per node of a gang of
 * `nodes` nodes of `per` cores, or per core of a spread job of `procs`
 * processors on `hint` nodes (field 21's count, else 1). -1 when it is
 * more than SWF_MEM_MAX_B a node or a core. */
static int64_t req_mem_mib(int64_t v, const struct swf_mem_unit *u, bool gang, int64_t nodes,
                           int64_t per, int64_t procs, int64_t hint)
{
	static const int64_t unit_b[] = { [SWF_MEM_KB] = 1024, [SWF_MEM_BYTES] = 1,
	                                  [SWF_MEM_MB] = 1 << 20, [SWF_MEM_GB] = 1 << 30 };
	int64_t mul = 1, div = 1;
	if (u->per == SWF_MEM_PER_PROC)
		mul = gang ? per : 1;
	else if (u->per == SWF_MEM_PER_NODE && !gang) {
		mul = hint;
		div = procs;
	} else if (u->per == SWF_MEM_PER_JOB)
		div = gang ? nodes : procs;
	int64_t ub = unit_b[u->scale];
	if (v > SWF_MEM_MAX_B / ub || v * ub > SWF_MEM_MAX_B / mul)
		return -1;
	return ceil_div(ceil_div(v * ub * mul, div), 1 << 20);
}

/* The request's shape from procs and the shape options (see trace.h);
 * what field 21 gave is marked in used[]. 0, or -1 with msg when the line
 * cannot be shaped as asked. */
static int shape_req(const struct swf_line *l, int64_t procs, const struct swf_shape *sh,
                     struct workload *w, struct job *j, bool used[4], char *msg, size_t msglen)
{
	const struct swf_sitereq *site = l->has_site ? &l->site : NULL;
	int64_t v = -1;
	struct swf_mem_unit u = w->mem_req_unit;
	const char *what = "field 10 (requested memory)";
	if (sh->mem == SWF_MEM_REQUESTED) {
		v = l->v[F_REQ_MEM];
		if (v < 0 && site && site->mem_b >= 0) {
			v = site->mem_b;
			u = (struct swf_mem_unit){ .scale = SWF_MEM_BYTES,
			                           .per = site->mem_per_node ? SWF_MEM_PER_NODE : SWF_MEM_PER_JOB };
			what = "field 21 (site request): mem";
			used[SWF_SITE_MEM] = v > 0;
		}
	} else if (sh->mem == SWF_MEM_USED) {
		v = l->v[F_USED_MEM];
		u = w->mem_used_unit;
		what = "field 7 (used memory)";
	}
	int64_t mib = 0;
	if (sh->kind == SWF_SHAPE_NODES) {
		bool excl = sh->exclusive || (site && site->excl);
		int64_t nodes = ceil_div(procs, sh->ppn);
		int64_t per = excl ? sh->ppn : ceil_div(procs, nodes);
		if (site && site->nodes > 0 && site->ppn > 0 && site->ppn <= sh->ppn) {
			nodes = site->nodes;      /* the site's own gang: N nodes of ppn */
			per = excl ? sh->ppn : site->ppn;
			used[SWF_SITE_SHAPE] = true;
		}
		if (nodes > INT32_MAX) {
			snprintf(msg, msglen, "%lld processors: too many nodes of %d", (long long)procs,
			         sh->ppn);
			return -1;
		}
		j->req.nodes = (int32_t)nodes;
		j->req.cores = (int32_t)per;
		if (v > 0)
			mib = req_mem_mib(v, &u, true, nodes, per, procs, 1);
	} else if (v > 0) {
		int64_t hint = site && site->nodes > 0 ? site->nodes : 1;
		mib = req_mem_mib(v, &u, false, 0, 0, procs, hint);
	}
	if (mib < 0) {
		char b[48];
		snprintf(msg, msglen, "%s: %lld %s is more than 2^40 MiB a %s", what, (long long)v,
		         swfext_mem_unit_name(&u, b, sizeof b), sh->kind == SWF_SHAPE_NODES ? "node" : "core");
		return -1;
	}
	j->req.mem_mib = mib;
	int64_t part = l->v[F_PARTITION];
	if (sh->npart > 0 && part >= 0) {
		int k = 0;
		while (k < sh->npart && sh->part[k].partition != part)
			k++;
		if (k == sh->npart) {
			snprintf(msg, msglen, "field 16 (partition): %lld is not in the scenario's "
			         "partitions", (long long)part);
			return -1;
		}
		int ix = workload_intern(w, sh->part[k].expr);
		if (ix < 0) {
			snprintf(msg, msglen, "out of memory");
			return -1;
		}
		j->req.sel_req = (int16_t)(ix + 1);
	}
	return 0;
}

/* 1 when the line describes a job a replay can use, 0 when it cannot, -1
 * when the shape options reject it (msg says why). What field 21 gave the
 * job that fields 5, 8, 9 and 10 lacked is marked in used[]. */
static int line_to_job(const struct swf_line *l, const struct swf_shape *sh, struct workload *w,
                       struct job *j, struct job_truth *t, bool used[4], char *msg, size_t msglen)
{
	const struct swf_sitereq *site = l->has_site ? &l->site : NULL;
	int64_t procs = l->v[F_ALLOC_PROCS] > 0 ? l->v[F_ALLOC_PROCS] : l->v[F_REQ_PROCS];
	memset(used, 0, 4 * sizeof *used);
	if (procs <= 0 && site && site->procs > 0) {
		procs = site->procs;
		used[SWF_SITE_PROCS] = true;
	}
	if (l->v[F_RUN] < 0 || procs <= 0)
		return 0;
	job_init(j, 0, l->v[F_SUBMIT] * SIMTIME_SEC);
	j->trace_id = l->v[F_ID];
	j->req.nodes = 0;
	j->req.cores = (int32_t)procs;
	if (sh && shape_req(l, procs, sh, w, j, used, msg, msglen) < 0)
		return -1;
	j->walltime_us = l->v[F_REQ_TIME] > 0 ? l->v[F_REQ_TIME] * SIMTIME_SEC : SIMTIME_INF;
	if (l->v[F_REQ_TIME] <= 0 && site && site->walltime_s > 0) {
		j->walltime_us = site->walltime_s * SIMTIME_SEC;
		used[SWF_SITE_TIME] = true;
	}
	j->tenant = (int32_t)l->v[F_USER];
	j->group = (int32_t)l->v[F_GROUP];
	j->queue = (int32_t)l->v[F_QUEUE];
	j->cls = JOB_BATCH;
	memset(t, 0, sizeof *t);
	t->run_us = l->v[F_RUN] * SIMTIME_SEC;
	int64_t st = l->v[F_STATUS];
	/* 0 failed, 5 cancelled, 4 last partial execution failed. */
	t->fails = st == 0 || st == 4 || st == 5;
	return 1;
}

/* Field 2 against the kind of times the log has, decided by its first job
 * line (SWF_UNIX_MIN_S): relative times up to 10^9 s, or Unix times within
 * 10^9 s of the first. 0, or -1 with msg. */
struct submit_check {
	int kind;              /* 0 undecided, 1 relative, 2 Unix times */
	int64_t first;         /* the first job line's submit (Unix times) */
	int64_t min_s, max_s;  /* over the jobs kept */
	int64_t max_line;
};

static int check_submit(struct submit_check *c, int64_t sub, char *msg, size_t msglen)
{
	if (!c->kind) {
		c->kind = sub >= SWF_UNIX_MIN_S ? 2 : 1;
		c->first = sub;
	}
	if (c->kind == 1 && sub > SWF_MAX_TIME_S) {
		snprintf(msg, msglen, "field 2 (submit time): expected %s, got '%lld'", SUBMIT_WANT,
		         (long long)sub);
		return -1;
	}
	if (c->kind == 2 && (sub > c->first + SWF_MAX_TIME_S || sub < c->first - SWF_MAX_TIME_S)) {
		snprintf(msg, msglen, "field 2 (submit time): %lld is more than 10^9 s from the first "
		         "job's %lld (the log's submit times are Unix times)", (long long)sub,
		         (long long)c->first);
		return -1;
	}
	return 0;
}

/* Unix times: every submit less the first (smallest), which becomes
 * unix_start. 0, or -1 with err when they span more than 10^9 s. */
static int rebase(const struct submit_check *c, const char *path, struct workload *w, char *err,
                  size_t errlen)
{
	if (c->kind != 2 || w->n == 0)
		return 0;
	if (c->max_s - c->min_s > SWF_MAX_TIME_S) {
		snprintf(err, errlen, "%s:%lld: field 2 (submit time): %lld is more than 10^9 s after "
		         "the log's first submit %lld (its submit times are Unix times)", path,
		         (long long)c->max_line, (long long)c->max_s, (long long)c->min_s);
		return -1;
	}
	for (int32_t i = 0; i < w->n; i++)
		w->jobs[i].submit_us -= c->min_s * SIMTIME_SEC;
	w->header_unix_start = w->unix_start;
	w->unix_start = w->rebased_from = c->min_s;
	return 0;
}

int trace_swf_read(const char *path, const struct swf_opts *o, struct workload *w,
                   char *err, size_t errlen)
{
	bool lenient = o && o->lenient;
	workload_init(w);
	struct linereader *lr = linereader_open(path, err, errlen);
	if (!lr)
		return -1;
	const char *line;
	size_t len;
	char msg[512];
	struct swf_line sl = { .extra = 0 };
	struct job j;
	struct job_truth t;
	struct submit_check sc = { .kind = 0 };
	bool used[4];
	if (o && o->shape && o->shape->mem_unit_given) {
		w->mem_req_unit = o->shape->mem_unit;
		w->mem_req_unit.line = -1;
		w->mem_used_unit = w->mem_req_unit;
	}
	while ((line = linereader_next(lr, &len))) {
		const char *s = line;
		while (is_space(*s))
			s++;
		if (!*s)
			continue;
		int64_t ln = linereader_lineno(lr);
		int rc = *s == ';' ? parse_header(s, ln, w, msg, sizeof msg)
		                   : parse_fields(s, &sl, msg, sizeof msg);
		if (rc == 0 && *s != ';')
			rc = check_submit(&sc, sl.v[F_SUBMIT], msg, sizeof msg);
		if (rc != 0) {
			if (!lenient) {
				snprintf(err, errlen, "%s:%lld: %s", path,
				         (long long)linereader_lineno(lr), msg);
				goto fail;
			}
			w->skipped_malformed++;
			continue;
		}
		if (*s == ';')
			continue;
		if (sl.extra > 0) {
			w->extra_field_lines++;
			if (sl.extra > w->extra_fields_max)
				w->extra_fields_max = sl.extra;
		}
		if (sl.has_site)
			w->site_req_lines++;
		rc = line_to_job(&sl, o ? o->shape : NULL, w, &j, &t, used, msg, sizeof msg);
		if (rc < 0) {
			snprintf(err, errlen, "%s:%lld: %s", path, (long long)linereader_lineno(lr), msg);
			goto fail;
		}
		if (rc == 0) {
			w->skipped_unusable++;
			continue;
		}
		if (workload_add(w, &j, &t) != 0) {
			snprintf(err, errlen, "%s:%lld: out of memory after %d jobs", path,
			         (long long)linereader_lineno(lr), w->n);
			goto fail;
		}
		for (int k = 0; k < 4; k++)
			w->site_req_used[k] += used[k];
		int64_t sub = sl.v[F_SUBMIT];
		if (w->n == 1 || sub < sc.min_s)
			sc.min_s = sub;
		if (w->n == 1 || sub > sc.max_s) {
			sc.max_s = sub;
			sc.max_line = ln;
		}
	}
	if (linereader_error(lr))
		goto fail; /* err set by the reader */
	w->lines = linereader_lineno(lr);
	linereader_close(lr);
	if (rebase(&sc, path, w, err, errlen) < 0) {
		workload_free(w);
		return -1;
	}
	workload_sort(w);
	return 0;

fail:
	linereader_close(lr);
	workload_free(w);
	return -1;
}
