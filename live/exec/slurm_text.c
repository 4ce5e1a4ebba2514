/* slurm_text — the parsers of exec_slurm for Slurm's plain-text outputs:
 * `squeue -h -O` lines (the job state read every tick: squeue --json of
 * 22.05 ignores -j and would cost a record of every job slurmctld
 * remembers), `sacct -n -P` lines (what slurmdbd kept of jobs slurmctld has
 * forgotten) and `scontrol show config`. Pure functions of the text. With
 * SLURM_TIME_FORMAT=%s (live/exec/slurm_run.c sets it) every time is Unix
 * seconds; "N/A", "Unknown" and "None" are no time. */
#include "live/exec/slurm_cmd.h"
#include "config/slurmconf.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fields, '|' after each; Reason last (the rest of the line). */
const char SX_SQUEUE_FORMAT[] =
	"JobID:|,State:|,exit_code:|,RestartCnt:|,Priority:|,StartTime:|,EndTime:|,UserName:|,"
	"Partition:|,Name:|,Comment:|,NodeList:|,Reason:|";
enum { SQ_ID, SQ_STATE, SQ_EXIT, SQ_RESTARTS, SQ_PRIO, SQ_START, SQ_END, SQ_USER, SQ_PART, SQ_NAME,
       SQ_COMMENT, SQ_NODES, SQ_REASON, SQ_N };

/* The same and the request, before Reason (still last). */
const char SX_SQUEUE_FULL_FORMAT[] =
	"JobID:|,State:|,exit_code:|,RestartCnt:|,Priority:|,StartTime:|,EndTime:|,UserName:|,"
	"Partition:|,Name:|,Comment:|,NodeList:|,SubmitTime:|,TimeLimit:|,NumNodes:|,NumCPUs:|,MinMemory:|,"
	"tres-per-node:|,Account:|,QOS:|,PriorityLong:|,ArrayJobID:|,ArrayTaskID:|,Reason:|";
enum { SQX_SUBMIT, SQX_LIMIT, SQX_NODES, SQX_CPUS, SQX_MEM, SQX_TRES, SQX_ACCOUNT, SQX_QOS, SQX_PRIO, SQX_AJOB,
       SQX_ATASK, SQX_N };

const char SX_SACCT_FORMAT[] = "JobIDRaw,JobName,State,ExitCode,Start,End,NodeList,AllocTRES";
enum { SA_ID, SA_NAME, SA_STATE, SA_EXIT, SA_START, SA_END, SA_NODES, SA_TRES, SA_N };

static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static const struct { const char *word; enum sx_state st; } states[] = {
	{ "PENDING", SX_PENDING }, { "RUNNING", SX_RUNNING }, { "CONFIGURING", SX_RUNNING },
	{ "RESIZING", SX_RUNNING }, { "SIGNALING", SX_RUNNING }, { "COMPLETING", SX_COMPLETING },
	{ "STAGE_OUT", SX_COMPLETING }, { "COMPLETED", SX_COMPLETED }, { "FAILED", SX_FAILED },
	{ "CANCELLED", SX_CANCELLED }, { "REVOKED", SX_CANCELLED }, { "TIMEOUT", SX_TIMEOUT },
	{ "DEADLINE", SX_TIMEOUT }, { "NODE_FAIL", SX_NODE_FAIL }, { "BOOT_FAIL", SX_NODE_FAIL },
	{ "PREEMPTED", SX_PREEMPTED }, { "REQUEUED", SX_REQUEUED }, { "REQUEUE_HOLD", SX_REQUEUED },
	{ "REQUEUE_FED", SX_REQUEUED }, { "OUT_OF_MEMORY", SX_OOM }, { "SUSPENDED", SX_SUSPENDED },
	{ "STOPPED", SX_SUSPENDED }, { "SPECIAL_EXIT", SX_HELD }, { "RESV_DEL_HOLD", SX_HELD },
	{ NULL, SX_UNKNOWN },
};

enum sx_state sx_state_of(const char *word)
{
	size_t w = strcspn(word, " ");   /* "CANCELLED by 0" */
	for (int k = 0; states[k].word; k++)
		if (strlen(states[k].word) == w && strncmp(word, states[k].word, w) == 0)
			return states[k].st;
	return SX_UNKNOWN;
}

/* A time: Unix seconds, or -1 for N/A / Unknown / None / empty. */
static int time_of(const char *s, int64_t *out)
{
	if (!s[0] || strcmp(s, "N/A") == 0 || strcmp(s, "Unknown") == 0 || strcmp(s, "None") == 0 ||
	    strcmp(s, "NONE") == 0) {
		*out = -1;
		return 0;
	}
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || errno || v < 0)
		return -1;
	*out = v;
	return 0;
}

static int int_of(const char *s, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || errno)
		return -1;
	*out = v;
	return 0;
}

/* Splits line (modified) at '|' into at most max fields; the last takes
 * the rest of the line. Returns the count. */
static int split(char *line, char **f, int max)
{
	int k = 0;
	char *p = line;
	while (k < max - 1) {
		char *bar = strchr(p, '|');
		if (!bar)
			break;
		*bar = 0;
		f[k++] = p;
		p = bar + 1;
	}
	f[k++] = p;
	return k;
}

void sx_parse_comment(struct sx_jobinfo *ji)
{
	ji->state_id[0] = 0;
	ji->key = -1;
	ji->attempt = -1;
	const char *c = ji->comment;
	if (strncmp(c, "hetlab:", 7) != 0)
		return;
	c += 7;
	size_t w = strspn(c, "0123456789abcdef");
	if (w != SX_STATE_ID_LEN || c[w] != ':')
		return;
	char *end;
	errno = 0;
	long long key = strtoll(c + w + 1, &end, 10);
	if (end == c + w + 1 || *end != ':' || key < 0 || errno)
		return;
	char *e2;
	long att = strtol(end + 1, &e2, 10);
	if (e2 == end + 1 || *e2 || att < 0 || att > 1000000)
		return;
	memcpy(ji->state_id, c, SX_STATE_ID_LEN);
	ji->state_id[SX_STATE_ID_LEN] = 0;
	ji->key = key;
	ji->attempt = (int)att;
}

/* Calls fn on each non-empty line of text (a private copy), with its
 * number; stops at fn's non-zero return. */
static int each_line(const char *text, int (*fn)(void *ctx, char *line, int ln), void *ctx)
{
	char *copyt = strdup(text ? text : "");
	if (!copyt)
		return -2;
	int ln = 0, rc = 0;
	for (char *p = copyt, *nl; p && *p && rc == 0; p = nl) {
		nl = strchr(p, '\n');
		if (nl)
			*nl++ = 0;
		ln++;
		size_t k = strlen(p);
		while (k > 0 && (p[k - 1] == '\r' || p[k - 1] == ' '))
			p[--k] = 0;
		if (k)
			rc = fn(ctx, p, ln);
	}
	free(copyt);
	return rc;
}

struct vec {
	void *v;
	int n, cap;
	size_t size;
	char *err;
	size_t errlen;
	bool full;                 /* squeue lines in SX_SQUEUE_FULL_FORMAT */
};

int64_t sx_duration_s(const char *t)
{
	/* slurm.conf's reader (config/slurmconf.h), and the words squeue adds */
	if (strcmp(t, "NOT_SET") == 0 || strcmp(t, "Partition_Limit") == 0)
		return -1;
	int64_t v;
	if (slurm_time_parse(t, &v))
		return -2;
	return v == SLURM_UNLIMITED ? -1 : v;
}

/* "gres:gpu:2", "gres/gpu:a100:2", "gres:gpu:fake:1,...": GPUs per node. */
static int gpus_of(const char *s)
{
	const char *g = strstr(s, "gpu");
	if (!g)
		return 0;
	size_t w = strcspn(g, ",");
	const char *colon = NULL;
	for (const char *c = g; c < g + w; c++)
		if (*c == ':' || *c == '=')
			colon = c;
	if (!colon)
		return 1;
	long v = strtol(colon + 1, NULL, 10);
	return v > 0 && v < 1000000 ? (int)v : 1;
}

/* "4000M", "2G", "0": MiB; 0 when per CPU ("...c") or none. */
static int64_t mem_of(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || v <= 0 || v > 1e15)
		return 0;
	switch (*end) {
	case 'K': return (int64_t)(v / 1024);
	case 'G': return (int64_t)(v * 1024);
	case 'T': return (int64_t)(v * 1048576);
	case 'M': case 0: return (int64_t)v;
	default: return 0;
	}
}

static void *vec_add(struct vec *x)
{
	if (x->n == x->cap) {
		int cap = x->cap ? 2 * x->cap : 16;
		void *nv = realloc(x->v, (size_t)cap * x->size);
		if (!nv)
			return NULL;
		x->v = nv;
		x->cap = cap;
	}
	void *e = (char *)x->v + (size_t)x->n++ * x->size;
	memset(e, 0, x->size);
	return e;
}

static int squeue_line(void *ctx, char *line, int ln)
{
	struct vec *x = ctx;
	char *f[SQ_N + SQX_N + 1];
	int want = SQ_N + (x->full ? SQX_N : 0);
	/* Each field ends with '|', so a full line splits into want + 1 (an
	 * empty tail). */
	int nf = split(line, f, want + 1);
	if (nf < want) {
		sx_seterr(x->err, x->errlen, "squeue: line %d: expected %d '|'-separated fields, got %d", ln, want, nf);
		return -1;
	}
	char *fx[SQX_N] = { 0 };      /* the full format's fields, before Reason */
	if (x->full) {
		memcpy(fx, f + SQ_REASON, sizeof fx);
		f[SQ_REASON] = f[SQ_N + SQX_N - 1];
	}
	struct sx_jobinfo *ji = vec_add(x);
	if (!ji) {
		sx_seterr(x->err, x->errlen, "squeue: out of memory");
		return -1;
	}
	int64_t v;
	if (int_of(f[SQ_ID], &ji->id) || ji->id <= 0) {
		sx_seterr(x->err, x->errlen, "squeue: line %d: JobID '%s': expected a job id", ln, f[SQ_ID]);
		return -1;
	}
	ji->st = sx_state_of(f[SQ_STATE]);
	if (int_of(f[SQ_EXIT], &v) == 0 && v >= 0) {
		ji->exit_code = (int)((v >> 8) & 0xff);
		ji->exit_sig = (int)(v & 0x7f);
	} else {
		ji->exit_code = ji->exit_sig = -1;
	}
	ji->restarts = int_of(f[SQ_RESTARTS], &v) == 0 && v >= 0 ? (int)v : 0;
	/* Priority is printed normalised ("0.00000000000000" when held). */
	ji->held = strtod(f[SQ_PRIO], NULL) == 0.0;
	if (time_of(f[SQ_START], &ji->start_unix) || time_of(f[SQ_END], &ji->end_unix)) {
		sx_seterr(x->err, x->errlen, "squeue: line %d (job %" PRId64 "): StartTime '%s' / EndTime '%s': "
		          "expected Unix seconds (SLURM_TIME_FORMAT=%%s) or N/A", ln, ji->id, f[SQ_START], f[SQ_END]);
		return -1;
	}
	copy(ji->user, sizeof ji->user, f[SQ_USER]);
	copy(ji->partition, sizeof ji->partition, f[SQ_PART]);
	copy(ji->name, sizeof ji->name, f[SQ_NAME]);
	copy(ji->comment, sizeof ji->comment, strcmp(f[SQ_COMMENT], "(null)") == 0 ? "" : f[SQ_COMMENT]);
	copy(ji->nodes, sizeof ji->nodes, f[SQ_NODES]);
	copy(ji->reason, sizeof ji->reason, f[SQ_REASON]);
	size_t rl = strlen(ji->reason);
	if (rl && ji->reason[rl - 1] == '|')
		ji->reason[rl - 1] = 0;
	if (ji->st == SX_PENDING && (ji->held || strncmp(ji->reason, "JobHeld", 7) == 0 ||
	                             strstr(ji->reason, "held state")))
		ji->st = SX_HELD;
	sx_parse_comment(ji);
	if (!x->full)
		return 0;
	ji->full = true;
	int64_t v2;
	if (time_of(fx[SQX_SUBMIT], &ji->submit_unix)) {
		sx_seterr(x->err, x->errlen, "squeue: line %d (job %" PRId64 "): SubmitTime '%s': expected Unix seconds "
		          "(SLURM_TIME_FORMAT=%%s) or N/A", ln, ji->id, fx[SQX_SUBMIT]);
		return -1;
	}
	ji->limit_s = sx_duration_s(fx[SQX_LIMIT]);
	if (ji->limit_s == -2) {
		sx_seterr(x->err, x->errlen, "squeue: line %d (job %" PRId64 "): TimeLimit '%s': expected a duration "
		          "([D-]HH:MM:SS, MM:SS) or UNLIMITED", ln, ji->id, fx[SQX_LIMIT]);
		return -1;
	}
	if (int_of(fx[SQX_NODES], &v) || v < 0 || v > 1000000 || int_of(fx[SQX_CPUS], &v2) || v2 < 0 ||
	    v2 > 100000000) {
		sx_seterr(x->err, x->errlen, "squeue: line %d (job %" PRId64 "): NumNodes '%s' / NumCPUs '%s': expected "
		          "counts", ln, ji->id, fx[SQX_NODES], fx[SQX_CPUS]);
		return -1;
	}
	ji->nnodes = (int)v;
	ji->ncpus = (int)v2;
	ji->mem_mib = mem_of(fx[SQX_MEM]);
	ji->gpus = gpus_of(fx[SQX_TRES]);
	copy(ji->account, sizeof ji->account, fx[SQX_ACCOUNT]);
	copy(ji->qos, sizeof ji->qos, fx[SQX_QOS]);
	ji->prio = int_of(fx[SQX_PRIO], &v) == 0 ? v : 0;
	/* "N/A" for a job that is not an array's task; a range ("1-5",
	 * "1-5%2": the pending tasks of one record, squeue without -r) is
	 * taken as one job, as before */
	ji->array_job = ji->array_task = -1;
	if (int_of(fx[SQX_ATASK], &v) == 0 && v >= 0 && int_of(fx[SQX_AJOB], &v2) == 0 && v2 > 0) {
		ji->array_job = v2;
		ji->array_task = v;
	}
	return 0;
}

static int parse_squeue(const char *text, bool full, struct sx_jobinfo **out, int *nout, char *err, size_t n)
{
	struct vec x = { .size = sizeof **out, .err = err, .errlen = n, .full = full };
	*out = NULL;
	*nout = 0;
	int rc = each_line(text, squeue_line, &x);
	if (rc) {
		if (rc == -2)
			sx_seterr(err, n, "squeue: out of memory");
		free(x.v);
		return -1;
	}
	*out = x.v;
	*nout = x.n;
	return 0;
}

int sx_parse_squeue(const char *text, struct sx_jobinfo **out, int *nout, char *err, size_t n)
{
	return parse_squeue(text, false, out, nout, err, n);
}

int sx_parse_squeue_full(const char *text, struct sx_jobinfo **out, int *nout, char *err, size_t n)
{
	return parse_squeue(text, true, out, nout, err, n);
}

/* A count from AllocTRES: 0 for a number no count can be (negative, NaN,
 * past int64: its cast would be undefined; found by tests/fuzz/fuzz_squeue). */
static int64_t tres_count(double v)
{
	return v >= 0 && v < 9.2e18 ? (int64_t)v : 0;
}

/* "billing=4,cpu=4,gres/gpu=2,mem=1000M,node=1" */
static void tres_of(const char *s, struct sx_acct *a)
{
	while (s && *s) {
		size_t w = strcspn(s, ",");
		const char *eq = memchr(s, '=', w);
		if (eq) {
			size_t kl = (size_t)(eq - s);
			double v = strtod(eq + 1, NULL);
			const char *u = eq + 1 + strspn(eq + 1, "0123456789.");
			if (kl == 3 && strncmp(s, "cpu", 3) == 0)
				a->cpus = tres_count(v);
			else if (kl == 8 && strncmp(s, "gres/gpu", 8) == 0)
				a->gpus = tres_count(v);
			else if (kl == 3 && strncmp(s, "mem", 3) == 0)
				a->mem_mib = tres_count(v * (*u == 'G' ? 1024 : *u == 'T' ? 1048576 : *u == 'K' ? 1.0 / 1024 : 1));
		}
		s += w + (s[w] == ',');
	}
}

static int sacct_line(void *ctx, char *line, int ln)
{
	struct vec *x = ctx;
	char *f[SA_N + 1];
	int nf = split(line, f, SA_N + 1);
	if (nf != SA_N) {
		sx_seterr(x->err, x->errlen, "sacct: line %d: expected %d '|'-separated fields (%s), got %d", ln, SA_N,
		          SX_SACCT_FORMAT, nf);
		return -1;
	}
	/* Steps (ID.batch) are not asked for (-X); skip them if they come. */
	if (strchr(f[SA_ID], '.'))
		return 0;
	struct sx_acct *a = vec_add(x);
	if (!a) {
		sx_seterr(x->err, x->errlen, "sacct: out of memory");
		return -1;
	}
	if (int_of(f[SA_ID], &a->id) || a->id <= 0) {
		sx_seterr(x->err, x->errlen, "sacct: line %d: JobIDRaw '%s': expected a job id", ln, f[SA_ID]);
		return -1;
	}
	copy(a->name, sizeof a->name, f[SA_NAME]);
	a->st = sx_state_of(f[SA_STATE]);
	char *colon;
	long code = strtol(f[SA_EXIT], &colon, 10);
	if (colon != f[SA_EXIT] && *colon == ':') {
		a->exit_code = (int)code;
		a->exit_sig = atoi(colon + 1);
	} else {
		a->exit_code = a->exit_sig = -1;
	}
	if (time_of(f[SA_START], &a->start_unix) || time_of(f[SA_END], &a->end_unix)) {
		sx_seterr(x->err, x->errlen, "sacct: line %d (job %" PRId64 "): Start '%s' / End '%s': expected Unix "
		          "seconds (SLURM_TIME_FORMAT=%%s) or Unknown", ln, a->id, f[SA_START], f[SA_END]);
		return -1;
	}
	copy(a->nodes, sizeof a->nodes, strcmp(f[SA_NODES], "None assigned") == 0 ? "" : f[SA_NODES]);
	tres_of(f[SA_TRES], a);
	return 0;
}

int sx_parse_sacct(const char *text, struct sx_acct **out, int *nout, char *err, size_t n)
{
	struct vec x = { .size = sizeof **out, .err = err, .errlen = n };
	*out = NULL;
	*nout = 0;
	int rc = each_line(text, sacct_line, &x);
	if (rc) {
		if (rc == -2)
			sx_seterr(err, n, "sacct: out of memory");
		free(x.v);
		return -1;
	}
	*out = x.v;
	*nout = x.n;
	return 0;
}

/* ---- scontrol show config ---- */

static int config_line(void *ctx, char *line, int ln)
{
	(void)ln;
	struct sx_config *c = ctx;
	char *eq = strstr(line, " = ");
	if (!eq)
		return 0;
	char *k = line, *v = eq + 3;
	*eq = 0;
	size_t kl = strlen(k);
	while (kl > 0 && k[kl - 1] == ' ')
		k[--kl] = 0;
	if (strcmp(k, "SelectTypeParameters") == 0) {
		copy(c->select_params, sizeof c->select_params, v);
		c->memory = strstr(v, "_MEMORY") || strstr(v, "_Memory");
	} else if (strcmp(k, "ReturnToService") == 0) {
		c->return_to_service = atoi(v);
	} else if (strcmp(k, "MinJobAge") == 0) {
		c->min_job_age_s = atoi(v);
	} else if (strcmp(k, "AuthInfo") == 0) {
		const char *ce = strstr(v, "cred_expire=");
		if (ce)
			c->cred_expire_s = atoi(ce + 12);
	} else if (strcmp(k, "AccountingStorageType") == 0) {
		c->accounting = strstr(v, "slurmdbd") != NULL;
	} else if (strcmp(k, "AccountingStoreFlags") == 0) {
		c->job_comment = strstr(v, "job_comment") != NULL;
	} else if (strcmp(k, "PreemptMode") == 0) {
		copy(c->preempt_mode, sizeof c->preempt_mode, v);
	} else if (strcmp(k, "PreemptType") == 0) {
		copy(c->preempt_type, sizeof c->preempt_type, v);
	} else if (strcmp(k, "JobRequeue") == 0) {
		c->job_requeue = atoi(v);
	} else if (strcmp(k, "SchedulerParameters") == 0) {
		c->sched_defer = strstr(v, "defer") != NULL;
	} else if (strcmp(k, "SLURM_VERSION") == 0) {
		copy(c->version, sizeof c->version, v);
	}
	return 0;
}

int sx_parse_config(const char *text, struct sx_config *cfg, char *err, size_t n)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->return_to_service = cfg->min_job_age_s = cfg->job_requeue = -1;
	cfg->cred_expire_s = 120;
	if (each_line(text, config_line, cfg) == -2) {
		sx_seterr(err, n, "scontrol show config: out of memory");
		return -1;
	}
	if (!cfg->select_params[0] && cfg->return_to_service < 0 && !cfg->version[0]) {
		sx_seterr(err, n, "scontrol show config: expected 'Key = value' lines (SelectTypeParameters, "
		          "ReturnToService, ...)");
		return -1;
	}
	return 0;
}
