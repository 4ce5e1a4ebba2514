/* joblist — `hetlab jobs`: a run's job table printed with sacct's fields,
 * formats and filters (analysis/joblist.h). */
#include "analysis/joblist.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* One job row, as read. Times in µs of simulated time; INT64_MIN when NULL. */
struct row {
	int64_t id, trace_id, tenant, grp, queue, qos;
	char cls[24], state[24], reason[24], nodelist[1024], name[256];
	int64_t submit, start, end, walltime;
	int64_t nodes, cores, gpus, mem_mib, req_cores, req_gpus, restarts, preemptions;
	double energy_j;
	bool has_energy;
};

enum fid {
	F_JOBID, F_JOBIDRAW, F_JOBNAME, F_ACCOUNT, F_USER, F_GROUP, F_PARTITION, F_STATE, F_EXITCODE,
	F_SUBMIT, F_ELIGIBLE, F_START, F_END, F_ELAPSED, F_ELAPSEDRAW, F_TIMELIMIT, F_TIMELIMITRAW,
	F_RESERVED, F_PLANNED, F_NNODES, F_ALLOCNODES, F_NCPUS, F_ALLOCCPUS, F_REQCPUS, F_REQMEM,
	F_ALLOCTRES, F_REQTRES, F_NODELIST, F_CPUTIME, F_CPUTIMERAW, F_CONSUMEDENERGY,
	F_CONSUMEDENERGYRAW, F_REASON, F_RESTARTS, F_QOS, F_NFIELDS
};

static const struct {
	const char *name;
	int width;
} fields[F_NFIELDS] = {
	[F_JOBID] = { "JobID", 12 }, [F_JOBIDRAW] = { "JobIDRaw", 12 }, [F_JOBNAME] = { "JobName", 10 },
	[F_ACCOUNT] = { "Account", 10 }, [F_USER] = { "User", 9 }, [F_GROUP] = { "Group", 9 },
	[F_PARTITION] = { "Partition", 10 }, [F_STATE] = { "State", 10 }, [F_EXITCODE] = { "ExitCode", 8 },
	[F_SUBMIT] = { "Submit", 19 }, [F_ELIGIBLE] = { "Eligible", 19 }, [F_START] = { "Start", 19 },
	[F_END] = { "End", 19 }, [F_ELAPSED] = { "Elapsed", 10 }, [F_ELAPSEDRAW] = { "ElapsedRaw", 10 },
	[F_TIMELIMIT] = { "Timelimit", 10 }, [F_TIMELIMITRAW] = { "TimelimitRaw", 12 },
	[F_RESERVED] = { "Reserved", 10 }, [F_PLANNED] = { "Planned", 10 }, [F_NNODES] = { "NNodes", 8 },
	[F_ALLOCNODES] = { "AllocNodes", 10 }, [F_NCPUS] = { "NCPUS", 10 },
	[F_ALLOCCPUS] = { "AllocCPUS", 10 }, [F_REQCPUS] = { "ReqCPUS", 8 }, [F_REQMEM] = { "ReqMem", 10 },
	[F_ALLOCTRES] = { "AllocTRES", 30 }, [F_REQTRES] = { "ReqTRES", 30 }, [F_NODELIST] = { "NodeList", 15 },
	[F_CPUTIME] = { "CPUTime", 10 }, [F_CPUTIMERAW] = { "CPUTimeRAW", 10 },
	[F_CONSUMEDENERGY] = { "ConsumedEnergy", 14 }, [F_CONSUMEDENERGYRAW] = { "ConsumedEnergyRaw", 17 },
	[F_REASON] = { "Reason", 15 }, [F_RESTARTS] = { "Restarts", 8 }, [F_QOS] = { "QOS", 10 },
};

/* The names a run's trace gave (table `name`): what the job row's tenant,
 * grp, queue and qos index. */
enum { N_USER, N_ACCOUNT, N_PARTITION, N_QOS, N_KINDS };
static const char *const name_kind[N_KINDS] = { "user", "account", "partition", "qos" };

/* What every row's values are read against. */
struct ctx {
	int64_t origin;                 /* Unix time of simulated t = 0 */
	char **names[N_KINDS];          /* by index; NULL where the run has none */
	int32_t nnames[N_KINDS];
	bool named;                     /* the run has a name table */
};

/* Name idx of kind k, or NULL. */
static const char *name_at(const struct ctx *c, int k, int64_t idx)
{
	return idx >= 0 && idx < c->nnames[k] ? c->names[k][idx] : NULL;
}

#define MAX_COLS 64
#define DEFAULT_FORMAT "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode"

struct col {
	enum fid f;
	int width;   /* < 0 left-justified */
};

/* Slurm's state names, their short forms, and what hetlab state maps to each. */
static const struct {
	const char *name, *shrt;
} states[] = {
	{ "PENDING", "PD" }, { "RUNNING", "R" }, { "PREEMPTED", "PR" }, { "COMPLETED", "CD" },
	{ "FAILED", "F" }, { "CANCELLED", "CA" }, { "TIMEOUT", "TO" }, { "OUT_OF_MEMORY", "OOM" },
	{ "NODE_FAIL", "NF" }, { "REQUEUED", "RQ" }, { "SUSPENDED", "S" }, { "BOOT_FAIL", "BF" },
	{ "DEADLINE", "DL" },
};
#define NSTATES (int)(sizeof states / sizeof states[0])

static int fail(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
	snprintf(err, errlen, fmt, a, b);
	return -1;
}

static int field_find(const char *s, size_t n)
{
	for (int f = 0; f < F_NFIELDS; f++)
		if (strlen(fields[f].name) == n && strncasecmp(fields[f].name, s, n) == 0)
			return f;
	return -1;
}

static int parse_format(const char *fmt, struct col *cols, int *ncols, char *err, size_t errlen)
{
	const char *s = fmt ? fmt : DEFAULT_FORMAT;
	*ncols = 0;
	while (*s) {
		size_t n = strcspn(s, ",");
		char item[64];
		snprintf(item, sizeof item, "%.*s", (int)(n < 63 ? n : 63), s);
		char *pct = strchr(item, '%');
		size_t nn = pct ? (size_t)(pct - item) : strlen(item);
		int f = field_find(item, nn);
		if (f < 0)
			return fail(err, errlen, "--format: unknown field '%s'%s (hetlab jobs --helpformat lists them)",
			            item, "");
		int width = fields[f].width;
		if (pct) {
			char *end;
			long w = strtol(pct + 1, &end, 10);
			if (*end || end == pct + 1 || w == 0 || labs(w) > 1000)
				return fail(err, errlen, "--format: '%s': expected FIELD%%WIDTH with a width of 1-1000%s",
				            item, " (negative: left-justified)");
			width = (int)w;
		}
		if (*ncols == MAX_COLS)
			return fail(err, errlen, "--format: at most 64 fields%s%s", "", "");
		cols[(*ncols)++] = (struct col){ (enum fid)f, width };
		s += n;
		if (*s == ',')
			s++;
	}
	if (*ncols == 0)
		return fail(err, errlen, "--format: no fields%s%s", "", "");
	return 0;
}

/* Whether `name` is in the comma-separated list (case-insensitive). */
static bool in_list(const char *list, const char *name, const char *alt)
{
	const char *s = list;
	while (*s) {
		size_t n = strcspn(s, ",");
		if ((strlen(name) == n && strncasecmp(name, s, n) == 0) ||
		    (alt && strlen(alt) == n && strncasecmp(alt, s, n) == 0))
			return true;
		s += n;
		if (*s)
			s++;
	}
	return false;
}

static int check_states(const char *list, char *err, size_t errlen)
{
	const char *s = list;
	while (*s) {
		size_t n = strcspn(s, ",");
		bool ok = false;
		for (int k = 0; k < NSTATES && !ok; k++)
			ok = (strlen(states[k].name) == n && strncasecmp(states[k].name, s, n) == 0) ||
			     (strlen(states[k].shrt) == n && strncasecmp(states[k].shrt, s, n) == 0);
		if (!ok) {
			char item[64];
			snprintf(item, sizeof item, "%.*s", (int)(n < 63 ? n : 63), s);
			return fail(err, errlen, "--state: unknown state '%s' (%s)", item,
			            "PENDING, RUNNING, PREEMPTED, COMPLETED, FAILED, CANCELLED, TIMEOUT, "
			            "OUT_OF_MEMORY, NODE_FAIL or their short forms PD, R, PR, CD, F, CA, TO, OOM, NF");
		}
		s += n;
		if (*s)
			s++;
	}
	return 0;
}

int joblist_parse_time(const char *s, int64_t origin, int64_t *out)
{
	if (s[0] == '+') {
		char *end;
		double v = strtod(s + 1, &end);
		if (end == s + 1 || *end || !(v >= 0 && v < 1e12))
			return -1;
		*out = origin + (int64_t)v;
		return 0;
	}
	struct tm tm = { 0 };
	int n = 0;
	if (sscanf(s, "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &n) != 3)
		return -1;
	const char *p = s + n;
	if (*p == 'T') {
		int m = 0;
		if (sscanf(p + 1, "%2d:%2d%n", &tm.tm_hour, &tm.tm_min, &m) != 2)
			return -1;
		p += 1 + m;
		if (*p == ':') {
			if (sscanf(p + 1, "%2d%n", &tm.tm_sec, &m) != 1)
				return -1;
			p += 1 + m;
		}
		if (*p == 'Z')
			p++;
	}
	if (*p || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
	    tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60 || tm.tm_year < 1970)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*out = (int64_t)timegm(&tm);
	return 0;
}

int joblist_check(const struct joblist_opts *o, char *err, size_t errlen)
{
	struct col cols[MAX_COLS];
	int ncols;
	int64_t t;
	if (parse_format(o->format, cols, &ncols, err, errlen))
		return -1;
	if (o->states && check_states(o->states, err, errlen))
		return -1;
	const char *const what[3] = { "--starttime", "--endtime", "--origin" };
	const char *const val[3] = { o->start, o->end, o->origin };
	for (int k = 0; k < 3; k++)
		if (val[k] && (joblist_parse_time(val[k], 0, &t) || (k == 2 && val[k][0] == '+'))) {
			snprintf(err, errlen, "%s: '%s': expected YYYY-MM-DD[THH:MM[:SS]] (UTC)%s", what[k], val[k],
			         k == 2 ? "" : " or +SECONDS from the run's start");
			return -1;
		}
	return 0;
}

/* ---- the values ---------------------------------------------------------- */

static const char *slurm_state(const struct row *r)
{
	const char *s = r->state, *why = r->reason;
	if (strcmp(s, "done") == 0)
		return "COMPLETED";
	if (strcmp(s, "failed") == 0)
		return strcmp(why, "oom") == 0 ? "OUT_OF_MEMORY" : strcmp(why, "walltime") == 0 ? "TIMEOUT" : "FAILED";
	if (strcmp(s, "killed") == 0)
		return strcmp(why, "walltime") == 0 ? "TIMEOUT" : strcmp(why, "oom") == 0 ? "OUT_OF_MEMORY" :
		       strcmp(why, "rejected") == 0 ? "FAILED" : "CANCELLED";
	if (strcmp(s, "running") == 0 || strcmp(s, "checkpointing") == 0)
		return "RUNNING";
	if (strcmp(s, "preempted") == 0)
		return "PREEMPTED";
	return "PENDING";   /* pending, held */
}

static const char *exit_code(const char *state)
{
	if (strcmp(state, "FAILED") == 0)
		return "1:0";
	if (strcmp(state, "OUT_OF_MEMORY") == 0)
		return "0:125";
	if (strcmp(state, "CANCELLED") == 0 || strcmp(state, "TIMEOUT") == 0)
		return "0:15";
	return "0:0";
}

static const char *state_short(const char *name)
{
	for (int k = 0; k < NSTATES; k++)
		if (strcmp(states[k].name, name) == 0)
			return states[k].shrt;
	return NULL;
}

static void fmt_time(char *buf, size_t len, int64_t origin, int64_t t_us)
{
	if (t_us == INT64_MIN) {
		snprintf(buf, len, "Unknown");
		return;
	}
	time_t t = (time_t)(origin + t_us / 1000000);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

/* Slurm's [D-]HH:MM:SS. */
static void fmt_dur(char *buf, size_t len, int64_t s)
{
	if (s < 0)
		s = 0;
	if (s >= 86400)
		snprintf(buf, len, "%lld-%02lld:%02lld:%02lld", (long long)(s / 86400), (long long)(s / 3600 % 24),
		         (long long)(s / 60 % 60), (long long)(s % 60));
	else
		snprintf(buf, len, "%02lld:%02lld:%02lld", (long long)(s / 3600), (long long)(s / 60 % 60),
		         (long long)(s % 60));
}

/* sacct's energy: J with K/M/G suffixes (1000s) and two decimals above 1000. */
static void fmt_energy(char *buf, size_t len, double j)
{
	const char *suf = " KMGT";
	int k = 0;
	while (j >= 1000 && k < 4) {
		j /= 1000;
		k++;
	}
	if (k == 0)
		snprintf(buf, len, "%.0f", j);
	else
		snprintf(buf, len, "%.2f%c", j, suf[k]);
}

static void tres(char *buf, size_t len, int64_t cpu, int64_t mem, int64_t node, int64_t gpu)
{
	int n = snprintf(buf, len, "cpu=%lld", (long long)cpu);
	if (mem > 0)
		n += snprintf(buf + n, len - (size_t)n, ",mem=%lldM", (long long)mem);
	if (node > 0)
		n += snprintf(buf + n, len - (size_t)n, ",node=%lld", (long long)node);
	if (gpu > 0)
		snprintf(buf + n, len - (size_t)n, ",gres/gpu=%lld", (long long)gpu);
}

/* An index column: its name of kind k when the run has one, else the index. */
static void index_or_name(const struct ctx *c, int k, int64_t idx, char *b, size_t n)
{
	const char *nm = k >= 0 ? name_at(c, k, idx) : NULL;
	if (nm)
		snprintf(b, n, "%s", nm);
	else if (idx == INT64_MIN)
		snprintf(b, n, "%s", "");
	else
		snprintf(b, n, "%lld", (long long)idx);
}

static void value(const struct row *r, enum fid f, const struct ctx *c, char *b, size_t n)
{
	int64_t origin = c->origin;
	int64_t run_end = r->end != INT64_MIN ? r->end : r->start;
	int64_t elapsed = r->start != INT64_MIN ? (run_end - r->start) / 1000000 : 0;
	const char *st = slurm_state(r);
	bool started = r->start != INT64_MIN;
	const char *pn = name_at(c, N_PARTITION, r->queue);
	switch (f) {
	case F_JOBID: case F_JOBIDRAW:
		snprintf(b, n, "%lld", (long long)(r->trace_id != INT64_MIN ? r->trace_id : r->id));
		break;
	case F_JOBNAME: snprintf(b, n, "%s", r->name[0] ? r->name : r->cls); break;
	case F_ACCOUNT:
		/* A trace with names: the account (grp); else the tenant. */
		if (c->named)
			snprintf(b, n, "%s", name_at(c, N_ACCOUNT, r->grp) ? name_at(c, N_ACCOUNT, r->grp) : "");
		else
			index_or_name(c, -1, r->tenant, b, n);
		break;
	case F_USER: index_or_name(c, N_USER, r->tenant, b, n); break;
	case F_GROUP: index_or_name(c, -1, r->grp, b, n); break;
	case F_QOS: index_or_name(c, N_QOS, r->qos, b, n); break;
	case F_PARTITION:
		if (pn)
			snprintf(b, n, "%s", pn);
		else if (r->queue != INT64_MIN && r->queue >= 0)
			snprintf(b, n, "%s-q%lld", r->cls, (long long)r->queue);
		else
			snprintf(b, n, "%s", r->cls);
		break;
	case F_STATE: snprintf(b, n, "%s", st); break;
	case F_EXITCODE: snprintf(b, n, "%s", exit_code(st)); break;
	case F_SUBMIT: case F_ELIGIBLE: fmt_time(b, n, origin, r->submit); break;
	case F_START: fmt_time(b, n, origin, r->start); break;
	case F_END: fmt_time(b, n, origin, r->end); break;
	case F_ELAPSED: fmt_dur(b, n, elapsed); break;
	case F_ELAPSEDRAW: snprintf(b, n, "%lld", (long long)elapsed); break;
	case F_TIMELIMIT:
		if (r->walltime == INT64_MIN)
			snprintf(b, n, "UNLIMITED");
		else
			fmt_dur(b, n, r->walltime / 1000000);
		break;
	case F_TIMELIMITRAW:
		if (r->walltime == INT64_MIN)
			snprintf(b, n, "UNLIMITED");
		else
			snprintf(b, n, "%lld", (long long)((r->walltime / 1000000 + 59) / 60));
		break;
	case F_RESERVED: case F_PLANNED:
		fmt_dur(b, n, started ? (r->start - r->submit) / 1000000 : 0);
		break;
	case F_NNODES: case F_ALLOCNODES:
		snprintf(b, n, "%lld", (long long)(started ? r->nodes : 0));
		break;
	case F_NCPUS: case F_ALLOCCPUS: snprintf(b, n, "%lld", (long long)(started ? r->cores : 0)); break;
	case F_REQCPUS: snprintf(b, n, "%lld", (long long)r->req_cores); break;
	case F_REQMEM: snprintf(b, n, "%lldM", (long long)r->mem_mib); break;
	case F_ALLOCTRES:
		if (started)
			tres(b, n, r->cores, r->mem_mib, r->nodes, r->gpus);
		else
			snprintf(b, n, "%s", "");
		break;
	case F_REQTRES: tres(b, n, r->req_cores, r->mem_mib, 0, r->req_gpus); break;
	case F_NODELIST: snprintf(b, n, "%s", started && r->nodelist[0] ? r->nodelist : "None assigned"); break;
	case F_CPUTIME: fmt_dur(b, n, elapsed * (started ? r->cores : 0)); break;
	case F_CPUTIMERAW: snprintf(b, n, "%lld", (long long)(elapsed * (started ? r->cores : 0))); break;
	case F_CONSUMEDENERGY:
		if (r->has_energy)
			fmt_energy(b, n, r->energy_j);
		else
			snprintf(b, n, "0");
		break;
	case F_CONSUMEDENERGYRAW: snprintf(b, n, "%.0f", r->has_energy ? r->energy_j : 0.0); break;
	case F_REASON: snprintf(b, n, "%s", r->reason[0] ? r->reason : "None"); break;
	case F_RESTARTS: snprintf(b, n, "%lld", (long long)r->restarts); break;
	case F_NFIELDS: b[0] = '\0'; break;
	}
}

static void print_cell(FILE *out, const char *v, int width, bool last)
{
	int w = abs(width);
	int len = (int)strlen(v);
	if (len > w)
		fprintf(out, "%.*s+", w - 1, v);
	else if (width < 0)
		fprintf(out, "%-*s", w, v);
	else
		fprintf(out, "%*s", w, v);
	fputc(last ? '\n' : ' ', out);
}

static void print_sep(FILE *out, int ncols, int parsable, int k)
{
	bool last = k == ncols - 1;
	if (parsable == 1 || (parsable == 2 && !last))
		fputc('|', out);
	if (last)
		fputc('\n', out);
}

/* ---- reading ------------------------------------------------------------- */

static int64_t col_i64(sqlite3_stmt *st, int k)
{
	return sqlite3_column_type(st, k) == SQLITE_NULL ? INT64_MIN : sqlite3_column_int64(st, k);
}

static void col_text(sqlite3_stmt *st, int k, char *buf, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, k);
	snprintf(buf, len, "%s", t ? (const char *)t : "");
}

static int has_column(sqlite3 *db, const char *table, const char *colname)
{
	char sql[128];
	sqlite3_stmt *st = NULL;
	snprintf(sql, sizeof sql, "SELECT 1 FROM pragma_table_info('%s') WHERE name = ?", table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, colname, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : 0;
}

static bool has_table(sqlite3 *db, const char *table)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &st,
	                       NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	bool yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

int joblist_run_origin(struct sqlite3 *db, int64_t *origin)
{
	sqlite3_stmt *st = NULL;
	*origin = 0;
	if (has_table(db, "meta") &&
	    sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'unix_start'", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		char *end;
		long long t = strtoll((const char *)sqlite3_column_text(st, 0), &end, 10);
		if (!*end && t >= 0) {
			sqlite3_finalize(st);
			*origin = t;
			return 0;
		}
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "SELECT created FROM run LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		if (joblist_parse_time(c, 0, origin) != 0)
			*origin = 0;
	}
	sqlite3_finalize(st);
	return 0;
}

static void ctx_free(struct ctx *c)
{
	for (int k = 0; k < N_KINDS; k++) {
		for (int32_t i = 0; i < c->nnames[k]; i++)
			free(c->names[k][i]);
		free(c->names[k]);
	}
	memset(c, 0, sizeof *c);
}

/* Table `name`'s user, account, partition and QOS names into c. -1 on ENOMEM. */
static int load_names(sqlite3 *db, struct ctx *c)
{
	sqlite3_stmt *st = NULL;
	if (!has_table(db, "name") ||
	    sqlite3_prepare_v2(db, "SELECT kind, idx, name FROM name WHERE idx >= 0 AND idx < 100000000", -1,
	                       &st, NULL) != SQLITE_OK)
		return 0;
	c->named = true;
	int rc = 0;
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		const char *kind = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 2);
		int32_t idx = sqlite3_column_int(st, 1), k = 0;
		while (k < N_KINDS && (!kind || strcmp(kind, name_kind[k]) != 0))
			k++;
		if (k == N_KINDS || !name)
			continue;   /* gpu_type, and kinds of later versions */
		if (idx >= c->nnames[k]) {
			char **nv = realloc(c->names[k], (size_t)(idx + 1) * sizeof *nv);
			if (!nv) {
				rc = -1;
				break;
			}
			memset(nv + c->nnames[k], 0, (size_t)(idx + 1 - c->nnames[k]) * sizeof *nv);
			c->names[k] = nv;
			c->nnames[k] = idx + 1;
		}
		free(c->names[k][idx]);
		if (!(c->names[k][idx] = strdup(name)))
			rc = -1;
	}
	sqlite3_finalize(st);
	return rc;
}

int joblist_print(const char *path, const struct joblist_opts *o, FILE *out, char *err, size_t errlen)
{
	struct col cols[MAX_COLS];
	int ncols, rc = -1;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	struct ctx c = { 0 };
	if (joblist_check(o, err, errlen) || parse_format(o->format, cols, &ncols, err, errlen))
		return -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: cannot open: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	int64_t origin = 0, wstart = INT64_MIN, wend = INT64_MAX;
	if (o->origin) {
		joblist_parse_time(o->origin, 0, &origin);
	} else if (joblist_run_origin(db, &origin)) {
		snprintf(err, errlen, "%s: not a hetlab results file (no run table): %s", path, sqlite3_errmsg(db));
		goto out;
	}
	if (o->start)
		joblist_parse_time(o->start, origin, &wstart);
	if (o->end)
		joblist_parse_time(o->end, origin, &wend);
	c.origin = origin;
	if (load_names(db, &c)) {
		snprintf(err, errlen, "%s: out of memory reading the names", path);
		goto out;
	}
	bool have_energy = has_column(db, "job", "energy_j") == 1;
	bool have_restarts = has_column(db, "job", "restarts") == 1;
	bool have_qos = has_column(db, "job", "qos") == 1;
	bool have_jn = has_table(db, "job_name");
	char sql[1024];
	snprintf(sql, sizeof sql,
	         "SELECT job.id, tenant, grp, queue, class, state, reason, node_list, submit_us, start_us, end_us,"
	         " walltime_us, nodes, cores, gpus, mem_mib, req_cores, req_gpus, %s, preemptions, %s,"
	         " trace_id, %s, %s FROM job%s ORDER BY job.id",
	         have_restarts ? "restarts" : "0", have_energy ? "energy_j" : "NULL",
	         have_qos ? "qos" : "NULL", have_jn ? "job_name.name" : "NULL",
	         have_jn ? " LEFT JOIN job_name ON job_name.id = job.id" : "");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: not a hetlab results file with a job table: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	if (!o->noheader && !o->parsable) {
		for (int k = 0; k < ncols; k++)
			print_cell(out, fields[cols[k].f].name, cols[k].width, k == ncols - 1);
		for (int k = 0; k < ncols; k++) {
			int w = abs(cols[k].width);
			for (int i = 0; i < w; i++)
				fputc('-', out);
			fputc(k == ncols - 1 ? '\n' : ' ', out);
		}
	} else if (!o->noheader) {
		for (int k = 0; k < ncols; k++) {
			fputs(fields[cols[k].f].name, out);
			print_sep(out, ncols, o->parsable, k);
		}
	}
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct row r = { 0 };
		r.id = sqlite3_column_int64(st, 0);
		r.tenant = col_i64(st, 1);
		r.grp = col_i64(st, 2);
		r.queue = col_i64(st, 3);
		col_text(st, 4, r.cls, sizeof r.cls);
		col_text(st, 5, r.state, sizeof r.state);
		col_text(st, 6, r.reason, sizeof r.reason);
		col_text(st, 7, r.nodelist, sizeof r.nodelist);
		r.submit = col_i64(st, 8);
		r.start = col_i64(st, 9);
		r.end = col_i64(st, 10);
		r.walltime = col_i64(st, 11);
		r.nodes = sqlite3_column_int64(st, 12);
		r.cores = sqlite3_column_int64(st, 13);
		r.gpus = sqlite3_column_int64(st, 14);
		r.mem_mib = sqlite3_column_int64(st, 15);
		r.req_cores = sqlite3_column_int64(st, 16);
		r.req_gpus = sqlite3_column_int64(st, 17);
		r.restarts = sqlite3_column_int64(st, 18);
		r.preemptions = sqlite3_column_int64(st, 19);
		r.has_energy = sqlite3_column_type(st, 20) != SQLITE_NULL;
		r.energy_j = r.has_energy ? sqlite3_column_double(st, 20) : 0;
		r.trace_id = col_i64(st, 21);
		r.qos = col_i64(st, 22);
		col_text(st, 23, r.name, sizeof r.name);
		if (r.submit == INT64_MIN)
			continue;
		/* The window: eligible (submitted) before its end, not ended before its start. */
		int64_t sub_s = origin + r.submit / 1000000;
		int64_t end_s = r.end == INT64_MIN ? INT64_MAX : origin + r.end / 1000000;
		if (sub_s > wend || end_s < wstart)
			continue;
		const char *sn = slurm_state(&r);
		if (o->states && !in_list(o->states, sn, state_short(sn)))
			continue;
		if (o->accounts) {
			char acc[32];
			value(&r, F_ACCOUNT, &c, acc, sizeof acc);
			if (!in_list(o->accounts, acc, NULL))
				continue;
		}
		for (int k = 0; k < ncols; k++) {
			char v[1100];
			value(&r, cols[k].f, &c, v, sizeof v);
			if (o->parsable) {
				fputs(v, out);
				print_sep(out, ncols, o->parsable, k);
			} else {
				print_cell(out, v, cols[k].width, k == ncols - 1);
			}
		}
	}
	if (s != SQLITE_DONE) {
		snprintf(err, errlen, "%s: reading the job table: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	rc = ferror(out) ? -1 : 0;
	if (rc)
		snprintf(err, errlen, "write error");
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	ctx_free(&c);
	return rc;
}

void joblist_print_fields(FILE *out)
{
	for (int f = 0; f < F_NFIELDS; f++)
		fprintf(out, "%-20s%s", fields[f].name, f % 4 == 3 || f == F_NFIELDS - 1 ? "\n" : "");
}
