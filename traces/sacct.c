/* sacct — the reader of Slurm accounting dumps; see sacct.h. */
#include "traces/sacct.h"
#include "traces/sacctrefine.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SACCT_MAX_COLS 96

enum col {
	C_JOBID, C_JOBIDRAW, C_JOBNAME, C_PARTITION, C_ACCOUNT, C_QOS, C_USER, C_STATE, C_EXIT, C_SUBMIT,
	C_START, C_END, C_ELAPSED, C_TIMELIMIT, C_NNODES, C_NCPUS, C_REQCPUS, C_REQMEM, C_REQTRES,
	C_ALLOCTRES, C_NCOL
};

static const char *const col_name[C_NCOL] = {
	[C_JOBID] = "JobID", [C_JOBIDRAW] = "JobIDRaw", [C_JOBNAME] = "JobName", [C_PARTITION] = "Partition",
	[C_ACCOUNT] = "Account", [C_QOS] = "QOS", [C_USER] = "User", [C_STATE] = "State",
	[C_EXIT] = "ExitCode", [C_SUBMIT] = "Submit", [C_START] = "Start", [C_END] = "End",
	[C_ELAPSED] = "Elapsed", [C_TIMELIMIT] = "Timelimit", [C_NNODES] = "NNodes",
	[C_NCPUS] = "NCPUS", [C_REQCPUS] = "ReqCPUS", [C_REQMEM] = "ReqMem",
	[C_REQTRES] = "ReqTRES", [C_ALLOCTRES] = "AllocTRES",
};

void sacct_jobs_init(struct sacct_jobs *x)
{
	memset(x, 0, sizeof *x);
}

void sacct_jobs_free(struct sacct_jobs *x)
{
	free(x->job);
	free(x->users.name);
	free(x->accounts.name);
	free(x->partitions.name);
	free(x->qos.name);
	sacct_jobs_init(x);
}

int sacct_sniff(const char *path)
{
	char err[256];
	struct linereader *lr = linereader_open(path, err, sizeof err);
	if (!lr)
		return 0;
	size_t len;
	const char *l = linereader_next(lr, &len);
	int is = l && strncmp(l, "JobID", 5) == 0 && strchr(l, '|') != NULL;
	linereader_close(lr);
	return is;
}

/* Splits s at '|' into at most max fields (s is modified). */
static int split(char *s, char **f, int max)
{
	int n = 0;
	for (;;) {
		if (n == max)
			return max + 1;
		f[n++] = s;
		char *b = strchr(s, '|');
		if (!b)
			return n;
		*b = '\0';
		s = b + 1;
	}
}

/* "YYYY-MM-DDTHH:MM:SS" as UTC seconds; 1 ok, 0 absent (Unknown, None, ""),
 * -1 malformed. */
static int parse_time(const char *s, int64_t *t)
{
	if (!*s || strcmp(s, "Unknown") == 0 || strcmp(s, "None") == 0)
		return 0;
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	int used = 0;
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
	           &tm.tm_min, &tm.tm_sec, &used) != 6 || s[used] != '\0' || tm.tm_mon < 1 ||
	    tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
	    tm.tm_min > 59 || tm.tm_sec > 60)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	*t = (int64_t)timegm(&tm);
	return 1;
}

/* Slurm durations: [D-]HH:MM:SS, [D-]HH:MM, D-HH, MM:SS, MM (minutes);
 * UNLIMITED, Partition_Limit, INVALID and "" are no limit (0). 1 ok with
 * *sec, 0 no limit, -1 malformed. */
static int parse_dur(const char *s, int64_t *sec)
{
	if (!*s || strcmp(s, "UNLIMITED") == 0 || strcmp(s, "Partition_Limit") == 0 ||
	    strcmp(s, "INVALID") == 0)
		return 0;
	long long d = 0, v[3];
	int nv = 0;
	const char *p = s, *dash = strchr(s, '-');
	char *e;
	if (dash) {
		errno = 0;
		d = strtoll(s, &e, 10);
		if (e != dash || d < 0 || errno)
			return -1;
		p = dash + 1;
	}
	while (nv < 3) {
		errno = 0;
		if (!isdigit((unsigned char)*p))
			return -1;
		v[nv++] = strtoll(p, &e, 10);
		if (errno)
			return -1;
		if (*e == '.')            /* fractions of seconds */
			while (isdigit((unsigned char)*++e))
				;
		if (*e == '\0')
			break;
		if (*e != ':')
			return -1;
		p = e + 1;
	}
	if (*e != '\0')
		return -1;
	long long h = 0, m = 0, sc = 0;
	if (dash) {                         /* D-HH[:MM[:SS]] */
		h = v[0];
		m = nv > 1 ? v[1] : 0;
		sc = nv > 2 ? v[2] : 0;
	} else if (nv == 3) {
		h = v[0], m = v[1], sc = v[2];
	} else if (nv == 2) {
		m = v[0], sc = v[1];
	} else {
		m = v[0];
	}
	if (h < 0 || m < 0 || sc < 0 || d > 100000)
		return -1;
	*sec = ((d * 24 + h) * 60 + m) * 60 + sc;
	return 1;
}

/* "500M", "2G", "1000Mn", "100Mc", "0": MiB into *mib, *per_cpu for a 'c'
 * suffix. 1 ok, 0 absent, -1 malformed. */
static int parse_mem(const char *s, int64_t *mib, bool *per_cpu)
{
	*per_cpu = false;
	if (!*s)
		return 0;
	char *e;
	errno = 0;
	double v = strtod(s, &e);
	if (e == s || errno || v < 0)
		return -1;
	double f = 1;
	switch (*e) {
	case 'K': f = 1.0 / 1024; e++; break;
	case 'M': e++; break;
	case 'G': f = 1024; e++; break;
	case 'T': f = 1024.0 * 1024; e++; break;
	case '\0': break;
	default: return -1;
	}
	if (*e == 'n' || *e == 'c') {
		*per_cpu = *e == 'c';
		e++;
	}
	if (*e)
		return -1;
	*mib = (int64_t)(v * f + 0.999999);
	return 1;
}

/* From a TRES list "cpu=2,mem=1000M,node=1,gres/gpu:a100=1,gres/gpu=1":
 * cpu, mem (MiB), total GPUs and the first GPU type. -1 malformed. */
static int parse_tres(const char *s, int64_t *cpu, int64_t *mem, int64_t *gpus, char *type,
                      size_t tn)
{
	*cpu = *mem = *gpus = -1;
	type[0] = '\0';
	while (*s) {
		const char *end = strchr(s, ',');
		size_t n = end ? (size_t)(end - s) : strlen(s);
		char item[128];
		if (n >= sizeof item)
			return -1;
		memcpy(item, s, n);
		item[n] = '\0';
		char *eq = strchr(item, '=');
		if (!eq)
			return -1;
		*eq = '\0';
		const char *val = eq + 1;
		char *e;
		if (strcmp(item, "cpu") == 0) {
			*cpu = strtoll(val, &e, 10);
			if (*e || *cpu < 0)
				return -1;
		} else if (strcmp(item, "mem") == 0) {
			bool pc;
			if (parse_mem(val, mem, &pc) < 0)
				return -1;
		} else if (strcmp(item, "gres/gpu") == 0) {
			*gpus = strtoll(val, &e, 10);
			if (*e || *gpus < 0)
				return -1;
		} else if (strncmp(item, "gres/gpu:", 9) == 0 && !type[0]) {
			snprintf(type, tn, "%s", item + 9);
			long long k = strtoll(val, &e, 10);
			if (*e || k < 0)
				return -1;
			if (*gpus < 0)
				*gpus = k;
		}
		s += n + (end ? 1 : 0);
	}
	return 0;
}

/* One job of the dump, by its JobIDRaw (else JobID): the lines seen of it
 * (more than one in a dump made with sacct -D, one per run). */
struct run_key {
	int32_t job;            /* its index in w; -1 while none of its lines ran */
	int32_t runs, nreq;     /* its lines; those that ended PREEMPTED or REQUEUED */
	bool kept_req;          /* the run kept (the latest Start) ended so */
	bool never_ran;         /* counted in never_ran (no line of it ran yet) */
	int64_t submit, start;  /* the earliest Submit; the kept run's Start (UTC s) */
	int64_t base;           /* the JobID's number (12 of 12_3): the order of submission */
};

struct reader {
	const char *path;
	const struct sacct_opts *o;
	struct workload *w;
	struct sacct_jobs *x;
	int col[C_NCOL];
	int ncols;
	int32_t cap;
	char **key;             /* the keys' texts, by key index */
	struct run_key *rk;
	int32_t nkey, capkey;
	struct strset keys;     /* key by text */
};

static const char *key_text(const void *ctx, int32_t i)
{
	return ((const struct reader *)ctx)->key[i];
}

/* The job keyed `text`, added when new (base from the JobID id); NULL on ENOMEM. */
static struct run_key *key_get(struct reader *r, const char *text, const char *id)
{
	int32_t i = strset_find(&r->keys, text, key_text, r);
	if (i >= 0)
		return &r->rk[i];
	if (r->nkey == r->capkey) {
		int32_t c = r->capkey ? r->capkey * 2 : 1024;
		char **nk = realloc(r->key, (size_t)c * sizeof *nk);
		if (nk)
			r->key = nk;
		struct run_key *nr = nk ? realloc(r->rk, (size_t)c * sizeof *nr) : NULL;
		if (!nr)
			return NULL;
		r->rk = nr;
		r->capkey = c;
	}
	if (!(r->key[r->nkey] = strdup(text)))
		return NULL;
	if (strset_add(&r->keys, r->key[r->nkey], r->nkey)) {
		free(r->key[r->nkey]);
		return NULL;
	}
	r->rk[r->nkey] = (struct run_key){ .job = -1, .submit = INT64_MAX, .start = INT64_MIN,
	                                   .base = strtoll(id, NULL, 10) };
	return &r->rk[r->nkey++];
}

static void reader_free(struct reader *r)
{
	for (int32_t i = 0; i < r->nkey; i++)
		free(r->key[i]);
	free(r->key);
	free(r->rk);
	strset_fini(&r->keys);
}

static int header(struct reader *r, char *line, char *msg, size_t ml)
{
	char *f[SACCT_MAX_COLS + 1];
	int n = split(line, f, SACCT_MAX_COLS);
	if (n > SACCT_MAX_COLS) {
		snprintf(msg, ml, "more than %d columns", SACCT_MAX_COLS);
		return -1;
	}
	for (int c = 0; c < C_NCOL; c++)
		r->col[c] = -1;
	for (int i = 0; i < n; i++)
		for (int c = 0; c < C_NCOL; c++)
			if (strcmp(f[i], col_name[c]) == 0)
				r->col[c] = i;
	r->ncols = n;
	const char *miss = r->col[C_JOBID] < 0 ? "JobID" : r->col[C_SUBMIT] < 0 ? "Submit" :
	                   r->col[C_START] < 0 ? "Start" :
	                   (r->col[C_END] < 0 && r->col[C_ELAPSED] < 0) ? "End or Elapsed" :
	                   (r->col[C_NCPUS] < 0 && r->col[C_REQCPUS] < 0 && r->col[C_ALLOCTRES] < 0)
	                   ? "NCPUS, ReqCPUS or AllocTRES" : NULL;
	if (miss) {
		snprintf(msg, ml, "the header has no %s column (dump with sacct -P "
		         "--format=JobID,Submit,Start,End,NNodes,NCPUS,...)", miss);
		return -1;
	}
	return 0;
}

static const char *fld(char **f, const struct reader *r, enum col c)
{
	return r->col[c] >= 0 ? f[r->col[c]] : "";
}

static bool state_fails(const char *st)
{
	static const char *const bad[] = { "FAILED", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL",
	                                   "CANCELLED", "DEADLINE", "PREEMPTED", NULL };
	for (int i = 0; bad[i]; i++)
		if (strncmp(st, bad[i], strlen(bad[i])) == 0)
			return true;
	return false;
}

/* A run that ended so was cut short and run again (sacct -D shows each). */
static bool state_requeued(const char *st)
{
	return strncmp(st, "PREEMPTED", 9) == 0 || strncmp(st, "REQUEUED", 8) == 0;
}

/* The name s of kind k ("" none: -1) into *idx; -1 on ENOMEM. */
static int name_of(struct reader *r, enum col c, enum wl_name_kind k, const char *s, int32_t *idx)
{
	*idx = -1;
	if (r->col[c] < 0 || !*s)
		return 0;
	*idx = workload_name_add(r->w, k, s);
	return *idx < 0 ? -1 : 0;
}

/* Room in x for one more job. -1 on ENOMEM. */
static int x_grow(struct reader *r)
{
	struct sacct_jobs *x = r->x;
	if (x->n < r->cap)
		return 0;
	int32_t c = r->cap ? r->cap * 2 : 1024;
	void *p = realloc(x->job, (size_t)c * sizeof *x->job);
	if (!p)
		return -1;
	x->job = p;
	r->cap = c;
	return 0;
}

/* Job idx becomes what line f says (its Submit: the key's earliest). */
static int set_job(struct reader *r, char **f, int32_t idx, const struct job *j,
                   const struct job_truth *t, const struct sacct_job *sj, const char *gpu_type)
{
	struct workload *w = r->w;
	w->jobs[idx] = *j;
	w->jobs[idx].id = idx;
	w->truth[idx] = *t;
	r->x->job[idx] = *sj;
	if (workload_job_set(w, WL_JOB_NAME, idx, r->col[C_JOBNAME] >= 0 ? fld(f, r, C_JOBNAME) : NULL) ||
	    workload_job_set(w, WL_GPU_TYPE, idx, gpu_type))
		return -1;
	return 0;
}

/* One data line: 1 a job (or a run of one, merged), 0 skipped (counted),
 * -1 malformed (msg). */
static int row(struct reader *r, char *line, char *msg, size_t ml)
{
	char *f[SACCT_MAX_COLS + 1];
	int n = split(line, f, SACCT_MAX_COLS);
	if (n != r->ncols) {
		snprintf(msg, ml, "expected %d '|'-separated fields as in the header, got %d", r->ncols,
		         n);
		return -1;
	}
	const char *id = fld(f, r, C_JOBID);
	if (strchr(id, '.')) {
		r->x->steps++;
		return 0;
	}
	int64_t sub, st = 0, en = 0, el = 0, lim = 0;
	int hs = parse_time(fld(f, r, C_SUBMIT), &sub);
	int hst = parse_time(fld(f, r, C_START), &st);
	int hen = r->col[C_END] >= 0 ? parse_time(fld(f, r, C_END), &en) : 0;
	int hel = r->col[C_ELAPSED] >= 0 ? parse_dur(fld(f, r, C_ELAPSED), &el) : 0;
	int hl = parse_dur(fld(f, r, C_TIMELIMIT), &lim);
	if (hs != 1) {
		snprintf(msg, ml, "Submit: expected a time YYYY-MM-DDTHH:MM:SS, got '%.40s'",
		         fld(f, r, C_SUBMIT));
		return -1;
	}
	if (hst < 0 || hen < 0 || hel < 0 || hl < 0) {
		snprintf(msg, ml, "%s: expected %s, got '%.40s'",
		         hst < 0 ? "Start" : hen < 0 ? "End" : hel < 0 ? "Elapsed" : "Timelimit",
		         hst < 0 || hen < 0 ? "a time YYYY-MM-DDTHH:MM:SS, Unknown or None"
		                            : "a duration [D-]HH:MM:SS",
		         hst < 0 ? fld(f, r, C_START) : hen < 0 ? fld(f, r, C_END)
		                                     : hel < 0 ? fld(f, r, C_ELAPSED) : fld(f, r, C_TIMELIMIT));
		return -1;
	}
	const char *raw = fld(f, r, C_JOBIDRAW), *state = fld(f, r, C_STATE);
	/* Never ran, or still running at the dump: nothing to replay (but the
	 * job's first Submit, when a later run of it did run). */
	if (hst != 1 || (hen != 1 && r->col[C_END] >= 0) || (r->col[C_END] < 0 && hel != 1)) {
		struct run_key *k = key_get(r, *raw ? raw : id, id);
		if (!k)
			goto oom;
		if (++k->runs > 1)
			r->w->sacct_merged++;
		k->nreq += state_requeued(state);
		k->submit = sub < k->submit ? sub : k->submit;
		if (k->job >= 0)
			r->w->jobs[k->job].submit_us = k->submit * SIMTIME_SEC;
		else if (!k->never_ran) {
			k->never_ran = true;
			r->x->never_ran++;
			r->w->skipped_unusable++;
		}
		return 0;
	}
	int64_t run = hen == 1 ? en - st : el;
	if (run < 0) {
		snprintf(msg, ml, "End is before Start");
		return -1;
	}
	char *e;
	long long nodes = 1, ncpus = -1;
	if (r->col[C_NNODES] >= 0) {
		nodes = strtoll(fld(f, r, C_NNODES), &e, 10);
		if (*e || nodes < 1 || nodes > 1000000) {
			snprintf(msg, ml, "NNodes: expected a node count >= 1, got '%.40s'",
			         fld(f, r, C_NNODES));
			return -1;
		}
	}
	int64_t tcpu, tmem, tgpu, rcpu, rmem, rgpu;
	char ttype[SACCT_NAME_MAX], rtype[SACCT_NAME_MAX];
	if (parse_tres(fld(f, r, C_ALLOCTRES), &tcpu, &tmem, &tgpu, ttype, sizeof ttype) < 0 ||
	    parse_tres(fld(f, r, C_REQTRES), &rcpu, &rmem, &rgpu, rtype, sizeof rtype) < 0) {
		snprintf(msg, ml, "AllocTRES/ReqTRES: expected name=value,... (cpu=2,mem=1G,"
		         "gres/gpu:a100=1)");
		return -1;
	}
	if (r->col[C_NCPUS] >= 0 && *fld(f, r, C_NCPUS)) {
		ncpus = strtoll(fld(f, r, C_NCPUS), &e, 10);
		if (*e || ncpus < 0) {
			snprintf(msg, ml, "NCPUS: expected a CPU count, got '%.40s'", fld(f, r, C_NCPUS));
			return -1;
		}
	}
	if (ncpus <= 0)
		ncpus = tcpu > 0 ? tcpu : -1;
	if (ncpus <= 0 && r->col[C_REQCPUS] >= 0)
		ncpus = strtoll(fld(f, r, C_REQCPUS), &e, 10);
	if (ncpus <= 0) {
		r->w->skipped_unusable++;
		return 0;
	}
	/* Memory as the job's total: AllocTRES, else ReqTRES, else ReqMem (in
	 * 22.05 a total too; older releases mark per node 'n', per CPU 'c'). */
	int64_t mem = tmem >= 0 ? tmem : rmem;
	if (mem < 0 && r->col[C_REQMEM] >= 0) {
		bool pc;
		int64_t m;
		int h = parse_mem(fld(f, r, C_REQMEM), &m, &pc);
		if (h < 0) {
			snprintf(msg, ml, "ReqMem: expected a size like 500M, 2G, 1000Mn or 100Mc, got '%.40s'",
			         fld(f, r, C_REQMEM));
			return -1;
		}
		const char *rm = fld(f, r, C_REQMEM);
		bool pn = *rm && rm[strlen(rm) - 1] == 'n';
		mem = h == 0 ? -1 : pc ? m * ncpus : pn ? m * nodes : m;
	}
	int64_t gpus = tgpu >= 0 ? tgpu : rgpu;
	const char *type = ttype[0] ? ttype : rtype;
	struct job j;
	struct job_truth t = { 0 };
	job_init(&j, 0, 0);                 /* Submit: the key's earliest, below */
	j.trace_id = strtoll(*raw ? raw : id, &e, 10);
	j.cls = gpus > 0 ? JOB_TRAINING : JOB_BATCH;
	j.req.nodes = (int32_t)nodes;
	j.req.cores = (int32_t)((ncpus + nodes - 1) / nodes);
	if (mem > 0)
		j.req.mem_mib = (mem + nodes - 1) / nodes;
	if (gpus > 0)
		j.req.gpus = (int32_t)((gpus + nodes - 1) / nodes);
	j.walltime_us = hl == 1 && lim > 0 ? lim * SIMTIME_SEC : SIMTIME_INF;
	t.run_us = run * SIMTIME_SEC;
	t.fails = state_fails(state);
	/* Names: user, account, partition (first of a list), QOS. */
	struct sacct_job sj = { .runs = 1, .start = st };
	char part[SACCT_NAME_MAX];
	snprintf(part, sizeof part, "%.*s", (int)strcspn(fld(f, r, C_PARTITION), ","),
	         fld(f, r, C_PARTITION));
	if (name_of(r, C_USER, WL_USER, fld(f, r, C_USER), &sj.user) ||
	    name_of(r, C_ACCOUNT, WL_ACCOUNT, fld(f, r, C_ACCOUNT), &sj.account) ||
	    name_of(r, C_PARTITION, WL_PARTITION, part, &sj.partition) ||
	    name_of(r, C_QOS, WL_QOS, fld(f, r, C_QOS), &sj.qos))
		goto oom;
	if (sj.qos > INT16_MAX) {
		snprintf(msg, ml, "QOS: more than %d QOS names", INT16_MAX + 1);
		return -1;
	}
	j.tenant = sj.user;
	j.group = sj.account;
	j.queue = sj.partition;
	j.qos = (int16_t)sj.qos;
	snprintf(sj.state, sizeof sj.state, "%s", state);
	snprintf(sj.exit_code, sizeof sj.exit_code, "%s", fld(f, r, C_EXIT));
	snprintf(sj.gpu_type, sizeof sj.gpu_type, "%s", gpus > 0 ? type : "");
	sj.gpus = j.req.gpus;
	/* Label requirements. */
	char expr[2 * SACCT_NAME_MAX + 160] = "";
	if (r->o && r->o->partition_label && part[0])
		snprintf(expr, sizeof expr, "%s = \"%s\"", r->o->partition_label, part);
	if (r->o && r->o->gpu_type_label && gpus > 0 && type[0]) {
		size_t l = strlen(expr);
		snprintf(expr + l, sizeof expr - l, "%s%s = \"%s\"", l ? ", " : "", r->o->gpu_type_label,
		         type);
	}
	if (expr[0]) {
		int ix = workload_intern(r->w, expr);
		if (ix < 0)
			goto oom;
		j.req.sel_req = (int16_t)(ix + 1);
	}
	/* The job's key: a later run (sacct -D) replaces what an earlier one said. */
	struct run_key *k = key_get(r, *raw ? raw : id, id);
	if (!k)
		goto oom;
	if (++k->runs > 1)
		r->w->sacct_merged++;
	bool req = state_requeued(state);
	k->nreq += req;
	k->submit = sub < k->submit ? sub : k->submit;
	j.submit_us = k->submit * SIMTIME_SEC;     /* made relative once all are read */
	if (k->job >= 0 && st < k->start) {        /* an earlier run than the one kept */
		r->w->jobs[k->job].submit_us = j.submit_us;
		return 1;
	}
	if (k->job < 0) {
		if (x_grow(r) || workload_add(r->w, &j, &t) != 0)
			goto oom;
		k->job = r->x->n++;
		if (k->never_ran) {                 /* an earlier line of it did not run: it did now */
			k->never_ran = false;
			r->x->never_ran--;
			r->w->skipped_unusable--;
		}
	}
	k->start = st;
	k->kept_req = req;
	if (set_job(r, f, k->job, &j, &t, &sj, gpus > 0 && type[0] ? type : NULL))
		goto oom;
	return 1;
oom:
	snprintf(msg, ml, "out of memory");
	return -1;
}

struct ord {
	simtime t;
	int32_t i;
};

static int cmp_ord(const void *a, const void *b)
{
	const struct ord *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* Jobs submitted later than a job of a higher JobID (w->sacct_late): Slurm
 * numbers jobs as they are submitted, and a requeue sets a job's Submit
 * anew, which is all a dump without -D keeps of it. Array tasks share
 * their array's number and Submit. -1 on ENOMEM. */
static int late_submits(struct reader *r)
{
	struct ord *o = malloc((size_t)(r->nkey > 0 ? r->nkey : 1) * sizeof *o);
	if (!o)
		return -1;
	int32_t n = 0;
	for (int32_t i = 0; i < r->nkey; i++)
		if (r->rk[i].job >= 0)
			o[n++] = (struct ord){ -r->rk[i].base, i };   /* highest JobID first */
	qsort(o, (size_t)n, sizeof *o, cmp_ord);
	int64_t low = INT64_MAX, low_base = -1;      /* the earliest Submit of higher JobIDs */
	for (int32_t a = 0; a < n; ) {
		int32_t b = a;
		while (b < n && o[b].t == o[a].t)
			b++;
		for (int32_t m = a; m < b; m++) {
			const struct run_key *k = &r->rk[o[m].i];
			if (k->submit > low) {
				r->w->sacct_late++;
				r->w->sacct_late_id[0] = k->base;
				r->w->sacct_late_id[1] = low_base;
			}
		}
		for (int32_t m = a; m < b; m++)
			if (r->rk[o[m].i].submit < low) {
				low = r->rk[o[m].i].submit;
				low_base = r->rk[o[m].i].base;
			}
		a = b;
	}
	free(o);
	return 0;
}

/* The name table of kind k as struct sacct_jobs keeps it. -1 on ENOMEM. */
static int copy_names(struct sacct_names *t, const struct workload *w, enum wl_name_kind k)
{
	const struct wl_names *s = &w->names[k];
	if (s->n == 0)
		return 0;
	if (!(t->name = malloc((size_t)s->n * sizeof *t->name)))
		return -1;
	for (int32_t i = 0; i < s->n; i++)
		snprintf(t->name[i], SACCT_NAME_MAX, "%s", s->v[i]);
	t->n = t->cap = s->n;
	return 0;
}

/* Submissions to the millisecond from slurmctld's log (sacctrefine.c),
 * each job by the number of its JobID. -1 with err. */
static int ctld_ms(struct reader *r, char *err, size_t errlen)
{
	int64_t *id = malloc((size_t)(r->w->n ? r->w->n : 1) * sizeof *id);
	if (!id) {
		snprintf(err, errlen, "%s: out of memory", r->path);
		return -1;
	}
	for (int32_t i = 0; i < r->w->n; i++)
		id[i] = -1;
	for (int32_t i = 0; i < r->nkey; i++)
		if (r->rk[i].job >= 0)
			id[r->rk[i].job] = r->rk[i].base;
	char msg[1024];
	int rc = sacct_ctld_ms(r->o->ctld_log, r->w, id, msg, sizeof msg);
	free(id);
	if (rc)
		snprintf(err, errlen, "%s: its slurmctld log: %s", r->path, msg);
	return rc;
}

/* Requeues per job, what the options refine (sacctrefine.h), times
 * relative to the first submit's second, jobs (and x) in submit order,
 * x's name tables. -1 with err. */
static int finish(struct reader *r, char *err, size_t errlen)
{
	struct workload *w = r->w;
	struct sacct_jobs *x = r->x;
	for (int32_t i = 0; i < r->nkey; i++) {
		const struct run_key *k = &r->rk[i];
		if (k->job >= 0) {
			x->job[k->job].runs = k->runs;
			x->job[k->job].requeues = k->nreq - k->kept_req;
		}
	}
	snprintf(err, errlen, "%s: out of memory", r->path);
	if (w->sacct_merged == 0 && late_submits(r) < 0)
		return -1;
	if (r->o && r->o->estimate_preempted && sacct_estimate_preempted(w, x))
		return -1;
	if (r->o && r->o->ctld_log && ctld_ms(r, err, errlen))
		return -1;
	simtime t0 = INT64_MAX;
	for (int32_t i = 0; i < w->n; i++)
		t0 = w->jobs[i].submit_us < t0 ? w->jobs[i].submit_us : t0;
	t0 -= w->n ? t0 % SIMTIME_SEC : 0;   /* a whole second: the others' stay whole */
	w->unix_start = w->n ? t0 / SIMTIME_SEC : -1;
	for (int32_t i = 0; i < w->n; i++)
		w->jobs[i].submit_us -= t0;
	struct ord *o = malloc((size_t)(w->n ? w->n : 1) * sizeof *o);
	int32_t *from = malloc((size_t)(w->n ? w->n : 1) * sizeof *from);
	struct sacct_job *nx = malloc((size_t)(w->n ? w->n : 1) * sizeof *nx);
	int rc = -1;
	if (!o || !from || !nx)
		goto out;
	for (int32_t i = 0; i < w->n; i++)
		o[i] = (struct ord){ w->jobs[i].submit_us, i };
	qsort(o, (size_t)w->n, sizeof *o, cmp_ord);
	for (int32_t k = 0; k < w->n; k++) {
		from[k] = o[k].i;
		nx[k] = x->job[o[k].i];
	}
	if (workload_pick(w, from, w->n))
		goto out;
	memcpy(x->job, nx, (size_t)w->n * sizeof *nx);
	if (copy_names(&x->users, w, WL_USER) || copy_names(&x->accounts, w, WL_ACCOUNT) ||
	    copy_names(&x->partitions, w, WL_PARTITION) || copy_names(&x->qos, w, WL_QOS))
		goto out;
	rc = 0;
out:
	free(o);
	free(from);
	free(nx);
	return rc;
}

int trace_sacct_read(const char *path, const struct sacct_opts *o, struct workload *w,
                     struct sacct_jobs *x, char *err, size_t errlen)
{
	workload_init(w);
	struct sacct_jobs local;
	bool own = !x;
	if (own)
		x = &local;
	sacct_jobs_init(x);
	struct reader r = { .path = path, .o = o, .w = w, .x = x };
	bool lenient = o && o->lenient;
	struct linereader *lr = linereader_open(path, err, errlen);
	if (!lr)
		return -1;
	const char *line;
	size_t len;
	char msg[512], buf[8192];
	bool have_header = false;
	while ((line = linereader_next(lr, &len))) {
		if (len == 0)
			continue;
		if (len >= sizeof buf) {
			snprintf(err, errlen, "%s:%lld: line longer than %zu bytes", path,
			         (long long)linereader_lineno(lr), sizeof buf - 1);
			goto fail;
		}
		memcpy(buf, line, len + 1);
		buf[strcspn(buf, "\r")] = '\0';
		int rc = have_header ? row(&r, buf, msg, sizeof msg) : header(&r, buf, msg, sizeof msg);
		if (!have_header) {
			if (rc < 0) {
				snprintf(err, errlen, "%s:%lld: %s", path, (long long)linereader_lineno(lr), msg);
				goto fail;
			}
			have_header = true;
			continue;
		}
		if (rc < 0) {
			if (!lenient || strcmp(msg, "out of memory") == 0) {
				snprintf(err, errlen, "%s:%lld: %s", path, (long long)linereader_lineno(lr), msg);
				goto fail;
			}
			w->skipped_malformed++;
		}
	}
	if (linereader_error(lr))
		goto fail;
	if (!have_header) {
		snprintf(err, errlen, "%s: empty (expected an sacct -P dump with its header line)", path);
		goto fail;
	}
	w->lines = linereader_lineno(lr);
	linereader_close(lr);
	lr = NULL;
	if (finish(&r, err, errlen) < 0)
		goto fail;
	reader_free(&r);
	workload_sort(w);
	if (own)
		sacct_jobs_free(x);
	return 0;
fail:
	linereader_close(lr);
	reader_free(&r);
	workload_free(w);
	sacct_jobs_free(x);
	return -1;
}
