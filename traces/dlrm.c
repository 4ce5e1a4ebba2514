/* dlrm — the Alibaba v2025 DLRM inference trace reader and service load
 * curves (see dlrm.h, docs/traces.md).
 *
 * The CSV has a fixed header and 17 comma-separated columns, no quoting.
 * Rows are read one at a time, validated column by column, and become jobs;
 * the per-instance extras go to a parallel array that is permuted with the
 * jobs when they are sorted by submit time. App names are interned in a
 * small open-addressing hash table (FNV-1a) so that a name maps to the index
 * of its first appearance. */
#include "traces/dlrm.h"
#include "sim/strset.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char DLRM_HEADER[] =
	"instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,"
	"rdma_request,rdma_limit,memory_request,memory_limit,disk_request,disk_limit,"
	"max_instance_per_node,creation_time,scheduled_time,deletion_time";

/* Columns, 0-based here and 1-based in messages. */
enum {
	C_SN, C_ROLE, C_APP, C_CPU, C_CPU_LIM, C_GPU, C_GPU_LIM, C_RDMA, C_RDMA_LIM,
	C_MEM, C_MEM_LIM, C_DISK, C_DISK_LIM, C_MAXPER, C_CREATE, C_SCHED, C_DELETE
};

enum col_kind {
	K_NAME,     /* letters, digits, '_', '-', '.', ':' */
	K_ROLE,     /* CN or HN */
	K_NUM,      /* a number >= 0 */
	K_WHOLE,    /* an integer >= 0 (GPUs) */
	K_PCT,      /* a number in 0..100 */
	K_MAXPER,   /* -1 or an integer >= 1 */
	K_TIME,     /* empty, or seconds >= 0 */
};

static const struct {
	const char *name;
	enum col_kind kind;
	int limit_of;       /* for a *_limit column: its request column; else -1 */
} cols[DLRM_NCOLS] = {
	[C_SN] = { "instance_sn", K_NAME, -1 },
	[C_ROLE] = { "role", K_ROLE, -1 },
	[C_APP] = { "app_name", K_NAME, -1 },
	[C_CPU] = { "cpu_request", K_NUM, -1 },
	[C_CPU_LIM] = { "cpu_limit", K_NUM, C_CPU },
	[C_GPU] = { "gpu_request", K_WHOLE, -1 },
	[C_GPU_LIM] = { "gpu_limit", K_NUM, C_GPU },
	[C_RDMA] = { "rdma_request", K_PCT, -1 },
	[C_RDMA_LIM] = { "rdma_limit", K_PCT, C_RDMA },
	[C_MEM] = { "memory_request", K_NUM, -1 },
	[C_MEM_LIM] = { "memory_limit", K_NUM, C_MEM },
	[C_DISK] = { "disk_request", K_NUM, -1 },
	[C_DISK_LIM] = { "disk_limit", K_NUM, C_DISK },
	[C_MAXPER] = { "max_instance_per_node", K_MAXPER, -1 },
	[C_CREATE] = { "creation_time", K_TIME, -1 },
	[C_SCHED] = { "scheduled_time", K_TIME, -1 },
	[C_DELETE] = { "deletion_time", K_TIME, -1 },
};

#define DLRM_MAX_REQ 1e9        /* largest request (vCPUs, GPUs, GiB) */
#define DLRM_MAX_TIME_S ((double)TRACE_MAX_TIME_S)   /* largest time, s (trace.h) */

const char *dlrm_role_name(enum dlrm_role r)
{
	return r == DLRM_CN ? "CN" : r == DLRM_HN ? "HN" : "?";
}

/* ---- the services table and its app-name index ------------------------- */

void dlrm_services_init(struct dlrm_services *s)
{
	memset(s, 0, sizeof *s);
}

void dlrm_services_free(struct dlrm_services *s)
{
	free(s->names);
	free(s->inst);
	dlrm_services_init(s);
}

int32_t dlrm_app_find(const struct dlrm_services *s, const char *name)
{
	for (int32_t g = 0; g < s->napps; g++)
		if (strcmp(s->names[g], name) == 0)
			return g;
	return -1;
}

/* Name → index: a hashed set over svc->names (sim/strset.h). */
struct apptab {
	struct strset set;
	int32_t cap;            /* room in svc->names */
};

static const char *app_key(const void *ctx, int32_t g)
{
	return ((const struct dlrm_services *)ctx)->names[g];
}

/* The index of `name`, added when new; -1 on ENOMEM. */
static int32_t app_intern(struct apptab *t, struct dlrm_services *s, const char *name)
{
	int32_t g = strset_find(&t->set, name, app_key, s);
	if (g >= 0)
		return g;
	if (s->napps == t->cap) {
		int32_t ncap = t->cap ? t->cap * 2 : 64;
		char (*nn)[DLRM_NAME_MAX] = realloc(s->names, (size_t)ncap * sizeof *nn);
		if (!nn)
			return -1;
		s->names = nn;
		t->cap = ncap;
	}
	snprintf(s->names[s->napps], DLRM_NAME_MAX, "%s", name);
	if (strset_add(&t->set, s->names[s->napps], s->napps))
		return -1;
	return s->napps++;
}

/* ---- one row ------------------------------------------------------------ */

struct row {
	char sn[DLRM_NAME_MAX], app[DLRM_NAME_MAX];
	int role;
	double v[DLRM_NCOLS];   /* numbers; times -1 when empty */
};

/* Strict decimal: [-]digits[.digits][e[+-]digits] or [-].digits. */
static int scan_number(const char *s, size_t n, double *out)
{
	char tmp[64];
	if (n == 0 || n >= sizeof tmp)
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	const char *p = tmp;
	if (*p == '-')
		p++;
	int digits = 0;
	for (; *p >= '0' && *p <= '9'; p++)
		digits++;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits++;
	if (!digits)
		return -1;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p)
		return -1;
	*out = strtod(tmp, NULL);
	return isfinite(*out) ? 0 : -1;
}

static bool name_ok(const char *s, size_t n)
{
	if (n == 0 || n >= DLRM_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		          (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' || c == ':';
		if (!ok)
			return false;
	}
	return true;
}

/* Parses column c from [s, s+n). 0 ok, -1 with *want set. */
static int parse_col(int c, const char *s, size_t n, struct row *r, const char **want)
{
	double d = 0;
	switch (cols[c].kind) {
	case K_NAME:
		*want = "a name of 1 to 63 letters, digits, '_', '-', '.' or ':'";
		if (!name_ok(s, n))
			return -1;
		memcpy(c == C_SN ? r->sn : r->app, s, n);
		(c == C_SN ? r->sn : r->app)[n] = '\0';
		return 0;
	case K_ROLE:
		*want = "CN or HN";
		if (n == 2 && (memcmp(s, "CN", 2) == 0 || memcmp(s, "HN", 2) == 0)) {
			r->role = s[0] == 'C' ? DLRM_CN : DLRM_HN;
			return 0;
		}
		return -1;
	case K_NUM:
		*want = "a non-negative number (at most 1e9)";
		if (scan_number(s, n, &d) != 0 || d < 0 || d > DLRM_MAX_REQ)
			return -1;
		break;
	case K_WHOLE:
		*want = "a non-negative integer (whole GPUs, at most 1e9)";
		if (scan_number(s, n, &d) != 0 || d < 0 || d > DLRM_MAX_REQ || d != floor(d))
			return -1;
		break;
	case K_PCT:
		*want = "a percentage in 0..100";
		if (scan_number(s, n, &d) != 0 || d < 0 || d > 100)
			return -1;
		break;
	case K_MAXPER:
		*want = "-1 (no limit) or a positive integer";
		if (scan_number(s, n, &d) != 0 || d != floor(d) || d > INT32_MAX ||
		    (d < 1 && d != -1))
			return -1;
		break;
	case K_TIME:
		*want = "empty or a time in seconds (>= 0, at most 1e9)";
		if (n == 0) {
			d = -1;
			break;
		}
		if (scan_number(s, n, &d) != 0 || d < 0 || d > DLRM_MAX_TIME_S)
			return -1;
		break;
	}
	r->v[c] = d;
	return 0;
}

/* Parses one data row. 0 ok; -1 malformed with the message in msg. */
static int parse_row(const char *line, struct row *r, char *msg, size_t msglen)
{
	const char *tok[DLRM_NCOLS];
	size_t len[DLRM_NCOLS];
	int n = 0;
	const char *s = line;
	for (;;) {
		const char *e = strchr(s, ',');
		if (!e)
			e = s + strlen(s);
		if (n < DLRM_NCOLS) {
			tok[n] = s;
			len[n] = (size_t)(e - s);
		}
		n++;
		if (!*e)
			break;
		s = e + 1;
	}
	if (n > DLRM_NCOLS) {
		snprintf(msg, msglen, "expected %d comma-separated fields, got %d", DLRM_NCOLS, n);
		return -1;
	}
	if (n < DLRM_NCOLS) {
		snprintf(msg, msglen, "expected %d comma-separated fields, got %d (field %d (%s) "
		         "is missing)", DLRM_NCOLS, n, n + 1, cols[n].name);
		return -1;
	}
	for (int c = 0; c < DLRM_NCOLS; c++) {
		const char *want;
		int tl = (int)(len[c] > 40 ? 40 : len[c]);
		if (parse_col(c, tok[c], len[c], r, &want) != 0) {
			snprintf(msg, msglen, "field %d (%s): expected %s, got '%.*s%s'", c + 1,
			         cols[c].name, want, tl, tok[c], len[c] > 40 ? "..." : "");
			return -1;
		}
		int q = cols[c].limit_of;
		if (q >= 0 && r->v[c] < r->v[q]) {
			snprintf(msg, msglen, "field %d (%s): expected a number >= %s (%g), got '%.*s'",
			         c + 1, cols[c].name, cols[q].name, r->v[q], tl, tok[c]);
			return -1;
		}
	}
	/* Times in order: scheduled and deleted no earlier than created, deleted
	 * no earlier than scheduled. */
	static const int after[][2] = {
		{ C_SCHED, C_CREATE }, { C_DELETE, C_CREATE }, { C_DELETE, C_SCHED },
	};
	for (size_t k = 0; k < sizeof after / sizeof after[0]; k++) {
		int c = after[k][0], b = after[k][1];
		if (r->v[c] >= 0 && r->v[b] >= 0 && r->v[c] < r->v[b]) {
			int tl = (int)(len[c] > 40 ? 40 : len[c]);
			snprintf(msg, msglen, "field %d (%s): expected a time >= %s (%.17g), got '%.*s'",
			         c + 1, cols[c].name, cols[b].name, r->v[b], tl, tok[c]);
			return -1;
		}
	}
	return 0;
}

/* The header must be DLRM_HEADER exactly; msg names the first difference. */
static int check_header(const char *line, char *msg, size_t msglen)
{
	if (strncmp(line, "\xEF\xBB\xBF", 3) == 0) /* UTF-8 byte order mark */
		line += 3;
	if (strcmp(line, DLRM_HEADER) == 0)
		return 0;
	const char *s = line;
	for (int c = 0; c < DLRM_NCOLS; c++) {
		size_t n = strcspn(s, ",");
		if (n != strlen(cols[c].name) || strncmp(s, cols[c].name, n) != 0) {
			snprintf(msg, msglen, "not the DLRM trace header (a .csv trace is Alibaba's "
			         "disaggregated_DLRM_trace.csv or an openb pod list): column %d is '%.*s', expected '%s' "
			         "(the header is %s)", c + 1, (int)(n > 40 ? 40 : n), s,
			         cols[c].name, DLRM_HEADER);
			return -1;
		}
		s += n;
		if (*s)
			s++;
	}
	snprintf(msg, msglen, "not the DLRM trace header: more than %d columns (the header is %s)",
	         DLRM_NCOLS, DLRM_HEADER);
	return -1;
}

/* ---- the reader ----------------------------------------------------------- */

static int inst_push(struct dlrm_services *s, int32_t *cap, const struct dlrm_instance *in)
{
	if (s->ninst == *cap) {
		if (*cap >= INT32_MAX / 2)
			return -1;
		int32_t ncap = *cap ? *cap * 2 : 1024;
		struct dlrm_instance *ni = realloc(s->inst, (size_t)ncap * sizeof *ni);
		if (!ni)
			return -1;
		s->inst = ni;
		*cap = ncap;
	}
	s->inst[s->ninst++] = *in;
	return 0;
}

/* Builds the job and the instance of a row; 0 when the row asks for nothing. */
static int row_to_job(const struct row *r, int32_t app, int64_t rowidx, struct job *j,
                      struct job_truth *t, struct dlrm_instance *in)
{
	if (r->v[C_CPU] == 0 && r->v[C_GPU] == 0)
		return 0;
	simtime create_us = r->v[C_CREATE] >= 0 ? simtime_from_s(r->v[C_CREATE]) : 0;
	job_init(j, 0, create_us);
	j->trace_id = rowidx;
	j->cls = JOB_INFERENCE;
	j->tenant = -1;
	j->group = app;
	j->queue = r->role;
	j->walltime_us = SIMTIME_INF;
	j->req.nodes = 1;
	j->req.cores = (int32_t)ceil(r->v[C_CPU]);
	j->req.gpus = (int32_t)r->v[C_GPU];
	j->req.mem_mib = (int64_t)llround(r->v[C_MEM] * 1024.0);
	memset(t, 0, sizeof *t);
	/* Alive at the end: fixed up once the end is known. */
	t->run_us = r->v[C_DELETE] >= 0 ? simtime_from_s(r->v[C_DELETE]) - create_us : 0;
	memset(in, 0, sizeof *in);
	in->rdma_pct = r->v[C_RDMA];
	in->disk_gib = r->v[C_DISK];
	in->sched_us = r->v[C_SCHED] >= 0 ? simtime_from_s(r->v[C_SCHED]) : -1;
	in->max_per_node = (int32_t)r->v[C_MAXPER];
	in->role = (uint8_t)r->role;
	in->flags = (r->v[C_CREATE] < 0 ? DLRM_NO_CREATION : 0) |
	            (r->v[C_DELETE] < 0 ? DLRM_NO_DELETION : 0);
	return 1;
}

/* After the read: runs of instances alive at the end, the sort by submit
 * time, and the instances permuted to job order. trace_id holds the index
 * into s->inst until then, and the instance's data row afterwards. */
static int finish(struct workload *w, struct dlrm_services *s, const int64_t *rowidx)
{
	for (int32_t i = 0; i < w->n; i++)
		if (s->inst[i].flags & DLRM_NO_DELETION)
			w->truth[i].run_us = s->end_us - w->jobs[i].submit_us;
	workload_sort(w);
	struct dlrm_instance *ni = malloc((size_t)(w->n ? w->n : 1) * sizeof *ni);
	if (!ni)
		return -1;
	for (int32_t i = 0; i < w->n; i++) {
		int64_t k = w->jobs[i].trace_id;
		ni[i] = s->inst[k];
		w->jobs[i].trace_id = rowidx[k];
	}
	free(s->inst);
	s->inst = ni;
	for (int32_t i = 0; i < w->n; i++) {
		s->nrole[s->inst[i].role]++;
		s->no_creation += (s->inst[i].flags & DLRM_NO_CREATION) != 0;
		s->no_deletion += (s->inst[i].flags & DLRM_NO_DELETION) != 0;
	}
	return 0;
}

int trace_dlrm_read(const char *path, const struct dlrm_opts *o, struct workload *w,
                    struct dlrm_services *svc, char *err, size_t errlen)
{
	bool lenient = o && o->lenient;
	struct dlrm_services local;
	struct dlrm_services *s = svc ? svc : &local;
	struct apptab tab = { 0 };
	int64_t *rowidx = NULL;
	int32_t inst_cap = 0, row_cap = 0;
	workload_init(w);
	dlrm_services_init(s);
	struct linereader *lr = linereader_open(path, err, errlen);
	if (!lr)
		return -1;
	const char *line;
	char msg[512];
	struct row r;
	struct job j;
	struct job_truth t;
	struct dlrm_instance in;
	int64_t data_rows = 0;
	double end_s = 0;
	if (!(line = linereader_next(lr, NULL))) {
		if (!linereader_error(lr))
			snprintf(err, errlen, "%s: empty file, expected the DLRM trace header %s", path,
			         DLRM_HEADER);
		goto fail;
	}
	if (check_header(line, msg, sizeof msg) != 0) {
		snprintf(err, errlen, "%s:1: %s", path, msg);
		goto fail;
	}
	while ((line = linereader_next(lr, NULL))) {
		if (!*line)
			continue;
		int64_t rowno = data_rows++;
		if (parse_row(line, &r, msg, sizeof msg) != 0) {
			if (!lenient) {
				snprintf(err, errlen, "%s:%lld: %s", path,
				         (long long)linereader_lineno(lr), msg);
				goto fail;
			}
			w->skipped_malformed++;
			continue;
		}
		int32_t app = app_intern(&tab, s, r.app);
		if (app < 0)
			goto nomem;
		if (!row_to_job(&r, app, rowno, &j, &t, &in)) {
			w->skipped_unusable++;
			continue;
		}
		for (int c = C_CREATE; c <= C_DELETE; c++)
			end_s = r.v[c] > end_s ? r.v[c] : end_s;
		if (w->n == row_cap) {
			if (row_cap >= INT32_MAX / 2)
				goto nomem;
			int32_t ncap = row_cap ? row_cap * 2 : 1024;
			int64_t *nr = realloc(rowidx, (size_t)ncap * sizeof *nr);
			if (!nr)
				goto nomem;
			rowidx = nr;
			row_cap = ncap;
		}
		rowidx[w->n] = rowno;
		j.trace_id = w->n; /* the instance's index until finish() */
		if (inst_push(s, &inst_cap, &in) != 0 || workload_add(w, &j, &t) != 0)
			goto nomem;
	}
	if (linereader_error(lr))
		goto fail; /* err set by the reader */
	w->lines = linereader_lineno(lr);
	s->end_us = simtime_from_s(end_s);
	if (finish(w, s, rowidx) != 0)
		goto nomem;
	linereader_close(lr);
	strset_fini(&tab.set);
	free(rowidx);
	if (!svc)
		dlrm_services_free(s);
	return 0;

nomem:
	snprintf(err, errlen, "%s:%lld: out of memory after %d instances", path,
	         (long long)linereader_lineno(lr), w->n);
fail:
	linereader_close(lr);
	strset_fini(&tab.set);
	free(rowidx);
	dlrm_services_free(s);
	workload_free(w);
	return -1;
}

/* ---- load curves ------------------------------------------------------------ */

void dlrm_curve_free(struct dlrm_curve *c)
{
	free(c->t_us);
	free(c->live);
	memset(c, 0, sizeof *c);
}

struct ev {
	simtime t;
	int32_t d;
};

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->d > y->d) - (x->d < y->d); /* deletions first; the sum per instant is what counts */
}

int dlrm_load_curve(const struct workload *w, const struct dlrm_services *svc, int32_t app,
                    struct dlrm_curve *c, char *err, size_t errlen)
{
	dlrm_curve_free(c);
	if (app < 0 || app >= svc->napps) {
		snprintf(err, errlen, "load curve: no service %d (there are %d)", app, svc->napps);
		return -1;
	}
	simtime end = svc->end_us;
	int64_t m = 0;
	for (int32_t i = 0; i < w->n; i++)
		m += w->jobs[i].group == app;
	struct ev *ev = malloc((size_t)(2 * m + 1) * sizeof *ev);
	c->t_us = malloc((size_t)(2 * m + 1) * sizeof *c->t_us);
	c->live = malloc((size_t)(2 * m + 1) * sizeof *c->live);
	if (!ev || !c->t_us || !c->live) {
		free(ev);
		dlrm_curve_free(c);
		snprintf(err, errlen, "load curve of %s: out of memory", svc->names[app]);
		return -1;
	}
	int64_t ne = 0;
	for (int32_t i = 0; i < w->n; i++) {
		if (w->jobs[i].group != app)
			continue;
		simtime a = w->jobs[i].submit_us, b = a + w->truth[i].run_us;
		if (a >= b || a >= end)
			continue; /* never live within [0, end) */
		ev[ne++] = (struct ev){ a, +1 };
		if (b < end)
			ev[ne++] = (struct ev){ b, -1 };
	}
	qsort(ev, (size_t)ne, sizeof *ev, cmp_ev);
	c->end_us = end;
	c->instances = m;
	c->t_us[0] = 0;
	c->live[0] = 0;
	c->n = 1;
	int32_t live = 0;
	double area = 0;
	for (int64_t k = 0; k < ne;) {
		simtime t = ev[k].t;
		while (k < ne && ev[k].t == t)
			live += ev[k++].d;
		int32_t last = c->n - 1;
		if (live == c->live[last])
			continue;
		if (t == c->t_us[last]) { /* only at t = 0 */
			c->live[last] = live;
		} else {
			c->t_us[c->n] = t;
			c->live[c->n++] = live;
		}
	}
	c->peak = c->live[0];
	c->peak_us = 0;
	for (int32_t k = 0; k < c->n; k++) {
		simtime until = k + 1 < c->n ? c->t_us[k + 1] : end;
		area += (double)c->live[k] * (double)(until - c->t_us[k]);
		if (c->live[k] > c->peak) {
			c->peak = c->live[k];
			c->peak_us = c->t_us[k];
		}
	}
	c->mean = end > 0 ? area / (double)end : 0;
	free(ev);
	return 0;
}

int32_t dlrm_curve_at(const struct dlrm_curve *c, simtime t_us)
{
	if (c->n == 0 || t_us < 0 || t_us >= c->end_us)
		return 0;
	int32_t lo = 0, hi = c->n - 1; /* the last step starting at or before t */
	while (lo < hi) {
		int32_t mid = lo + (hi - lo + 1) / 2;
		if (c->t_us[mid] <= t_us)
			lo = mid;
		else
			hi = mid - 1;
	}
	return c->live[lo];
}

int64_t dlrm_curve_sample(const struct dlrm_curve *c, simtime step_us, int32_t *out, int64_t n)
{
	if (step_us <= 0)
		return 0;
	int64_t k = 0;
	int32_t s = 0;
	for (simtime t = 0; t < c->end_us && k < n; t += step_us) {
		while (s + 1 < c->n && c->t_us[s + 1] <= t)
			s++;
		out[k++] = c->n ? c->live[s] : 0;
	}
	return k;
}
