/* shadow — `hetlab shadow`: forecasts beside a Slurm cluster hetlab does
 * not control, and their accuracy (shadow.h, docs/forecast.md). */
#include "live/shadow.h"
#include "live/exec/slurm_cmd.h"
#include "live/fcdraw.h"
#include "live/metrics.h"
#include "live/predict.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/shadowdb.h"
#include "sim/live.h"
#include "config/twinbuild.h"
#include "traces/hostexpr.h"

enum { SH_USERS_MAX = 100000, SH_METRICS_MAX = 1000, SH_DRAW_LIMIT_S = 120 };

/* What the shadow keeps of a job between polls. */
struct sjob {
	int64_t id;
	char user[64];
	bool waiting;                /* pending when last seen */
	bool started, learned;       /* its start is recorded; its run taught the predictor */
	bool seen;                   /* in this poll's squeue */
	double limit_s;
};

struct shadow {
	const struct shadow_opts *o;
	FILE *log;
	struct sx_ctx cx;
	char *scn_text;
	char scn_path[4200], db_path[4200];
	struct shadowdb *db;
	struct pred pred;
	char (*users)[64];
	int32_t nusers, capusers;
	struct sjob *jobs;
	int32_t njobs, capjobs;
	struct metrics_srv *msrv;
	char *mtext;
	size_t mcap;
	int64_t polls, failed;
	struct shadow_acc acc[SHADOW_NBIN];
	bool have_acc;
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static double now_unix(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage a, b;
	getrusage(RUSAGE_SELF, &a);
	getrusage(RUSAGE_CHILDREN, &b);   /* the draws and the Slurm commands */
	return (double)a.ru_utime.tv_sec + (double)a.ru_utime.tv_usec / 1e6 + (double)a.ru_stime.tv_sec +
	       (double)a.ru_stime.tv_usec / 1e6 + (double)b.ru_utime.tv_sec + (double)b.ru_utime.tv_usec / 1e6 +
	       (double)b.ru_stime.tv_sec + (double)b.ru_stime.tv_usec / 1e6;
}

/* A user's stable index (the predictor's tenant); -1 when the table is full. */
static int32_t user_index(struct shadow *sh, const char *name)
{
	for (int32_t k = 0; k < sh->nusers; k++)
		if (strcmp(sh->users[k], name) == 0)
			return k;
	if (sh->nusers >= SH_USERS_MAX)
		return -1;
	if (sh->nusers == sh->capusers) {
		int32_t cap = sh->capusers ? 2 * sh->capusers : 64;
		char(*u)[64] = realloc(sh->users, (size_t)cap * sizeof *u);
		if (!u)
			return -1;
		sh->users = u;
		sh->capusers = cap;
	}
	snprintf(sh->users[sh->nusers], 64, "%s", name);
	return sh->nusers++;
}

static void learn(void *ctx, const char *user, double run_s, double limit_s)
{
	struct shadow *sh = ctx;
	pred_add(&sh->pred, user_index(sh, user), JOB_BATCH, run_s, limit_s);
}

/* sh->jobs is kept in the order of the ids (Slurm's grow, so that a new
 * job is nearly always added at the end): a poll's lookups take log time,
 * not the jobs held. */
static int32_t sjob_at(const struct shadow *sh, int64_t id)
{
	int32_t lo = 0, hi = sh->njobs;
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (sh->jobs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct sjob *sjob_find(struct shadow *sh, int64_t id, bool add)
{
	int32_t at = sjob_at(sh, id);
	if (at < sh->njobs && sh->jobs[at].id == id)
		return &sh->jobs[at];
	if (!add)
		return NULL;
	if (sh->njobs == sh->capjobs) {
		int32_t cap = sh->capjobs ? 2 * sh->capjobs : 256;
		struct sjob *v = realloc(sh->jobs, (size_t)cap * sizeof *v);
		if (!v)
			return NULL;
		sh->jobs = v;
		sh->capjobs = cap;
	}
	memmove(&sh->jobs[at + 1], &sh->jobs[at], (size_t)(sh->njobs - at) * sizeof *sh->jobs);
	sh->njobs++;
	struct sjob *j = &sh->jobs[at];
	*j = (struct sjob){ .id = id, .limit_s = NAN };
	return j;
}

/* A job array's task is known by its array and task (2^62 + array × 2^22
 * + task), not by its Slurm job id: the tasks not started yet share the
 * array's id, and a task gets an id of its own as it starts. */
#define SH_ARRAY_BASE ((int64_t)1 << 62)

static void array_ids(struct sx_jobinfo *jobs, int n)
{
	for (int i = 0; i < n; i++)
		if (jobs[i].array_task >= 0 && jobs[i].array_task < ((int64_t)1 << 22) &&
		    jobs[i].array_job < ((int64_t)1 << 40))
			jobs[i].id = SH_ARRAY_BASE | jobs[i].array_job << 22 | jobs[i].array_task;
}

/* The job's name in Slurm's words ("123", or "123_4" for an array's task). */
static const char *slurm_id(const struct sx_jobinfo *j, char *b, size_t n)
{
	if (j->id >= SH_ARRAY_BASE)
		snprintf(b, n, "%" PRId64 "_%" PRId64, j->array_job, j->array_task);
	else
		snprintf(b, n, "%" PRId64, j->id);
	return b;
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* ---- the twin's scenario, once ---- */

/* twin build on slurm.conf alone, then what a poll gives instead taken
 * out: the workload (the poll's jobs) and the partitions (each job
 * requires the nodes of its own partitions, from sinfo). */
static int make_scenario(struct shadow *sh, char *err, size_t errlen)
{
	const struct shadow_opts *o = sh->o;
	char empty[4200], raw[4200];
	snprintf(empty, sizeof empty, "%s/empty.sacct", o->state_dir);
	snprintf(raw, sizeof raw, "%s/twin-built.json", o->state_dir);
	FILE *f = fopen(empty, "w");
	if (!f || fputs("JobID|Submit|Start|End|NCPUS\n", f) < 0 || fclose(f)) {
		snprintf(err, errlen, "%s: %s", empty, strerror(errno));
		return -1;
	}
	struct twin_opts to = { .slurm_conf = o->slurm_conf, .gres_conf = o->gres_conf, .sacct = empty, .out = raw };
	struct twin_sum sum = { 0 };
	struct slurm_msgs warn = { 0 };
	int rc = twin_build(&to, &sum, &warn, err, errlen);
	for (int32_t i = 0; i < warn.n; i++)
		fprintf(sh->log, "hetlab shadow: warning: %s\n", warn.v[i]);
	slurm_msgs_free(&warn);
	slurm_msgs_free(&sum.notes);
	if (rc)
		return -1;
	json_error_t je;
	json_t *scn = json_load_file(raw, 0, &je);
	if (!scn) {
		snprintf(err, errlen, "%s:%d: %s", raw, je.line, je.text);
		return -1;
	}
	json_object_del(scn, "workload");
	/* A job's arrival is known here to the second it was seen: no
	 * modelled arrival delay within its second. */
	json_t *pp = json_object_get(scn, "policy_params");
	if (json_is_object(pp)) {
		json_object_set_new(pp, "submit_offset_s", json_real(0));
		json_object_set_new(pp, "arrival_draw", json_real(0));
	}
	json_t *sl = json_object_get(scn, "slurm");
	if (sl) {
		/* One partition of every node: each job requires its own nodes. */
		json_t *all = json_array(), *rack, *grp, *nm;
		size_t i, k, m;
		json_array_foreach(json_object_get(scn, "racks"), i, rack)
			json_array_foreach(json_object_get(rack, "nodes"), k, grp)
				json_array_foreach(json_object_get(grp, "names"), m, nm)
					json_array_append(all, nm);
		json_object_set_new(sl, "partitions",
		                    json_pack("[{s:s, s:o, s:b}]", "name", "shadow", "nodes", all, "default", 1));
	}
	sh->scn_text = json_dumps(scn, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(scn);
	if (!sh->scn_text) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(sh->scn_path, sizeof sh->scn_path, "%s/twin.json", o->state_dir);
	f = fopen(sh->scn_path, "w");
	if (!f || fputs(sh->scn_text, f) < 0 || fclose(f)) {
		snprintf(err, errlen, "%s: %s", sh->scn_path, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- one poll ---- */

struct names_ctx {
	const struct shadow_eng *e;
	char *buf;
	size_t len, used;
	const char *bad;
	char badname[HOSTEXPR_NAME_MAX];
};

static int add_name(const char *name, void *ctx)
{
	struct names_ctx *n = ctx;
	if (shadow_eng_node(n->e, name) < 0) {
		snprintf(n->badname, sizeof n->badname, "%s", name);
		return 1;
	}
	int w = snprintf(n->buf + n->used, n->len - n->used, "%s%s", n->used ? ", " : "", name);
	if (w < 0 || (size_t)w >= n->len - n->used)
		return 2;
	n->used += (size_t)w;
	return 0;
}

/* The nodes of hostlist expr as "a, b, c" into buf. 0, or -1 with err. */
static int node_list(const struct shadow_eng *e, const char *expr, char *buf, size_t len, const char *what,
                     int64_t id, const char *conf, char *err, size_t errlen)
{
	struct names_ctx n = { .e = e, .buf = buf, .len = len };
	buf[0] = 0;
	char why[200] = "";
	int rc = hostexpr_each(expr, add_name, &n, why, sizeof why);
	if (rc == 1)
		snprintf(err, errlen, "squeue: job %" PRId64 " %s node %s, which %s does not name", id, what, n.badname,
		         conf);
	else if (rc == 2)
		snprintf(err, errlen, "squeue: job %" PRId64 ": its node list '%s' is too long", id, expr);
	else if (rc)
		snprintf(err, errlen, "squeue: job %" PRId64 ": node list '%s': %s", id, expr, why);
	return rc ? -1 : 0;
}

static int cmp_waiting(const void *a, const void *b)
{
	const struct sx_jobinfo *x = *(const struct sx_jobinfo *const *)a, *y = *(const struct sx_jobinfo *const *)b;
	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;   /* Slurm's order: priority, then job id */
	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_running(const void *a, const void *b)
{
	const struct sx_jobinfo *x = *(const struct sx_jobinfo *const *)a, *y = *(const struct sx_jobinfo *const *)b;
	if (x->start_unix != y->start_unix)
		return x->start_unix < y->start_unix ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Whether j has started: a job cancelled while it waited has a start
 * time (its end) but no node. */
static bool ran(const struct sx_jobinfo *j)
{
	return j->start_unix > 0 && j->st != SX_PENDING && j->st != SX_HELD && j->nodes[0] &&
	       strcmp(j->nodes, "(null)") != 0;
}

static bool is_running(const struct sx_jobinfo *j)
{
	return (j->st == SX_RUNNING || j->st == SX_COMPLETING || j->st == SX_SUSPENDED) && j->start_unix > 0;
}

/* The partitions' nodes: "n1, n2" for the partitions of the
 * comma-separated list parts (a job's), from sinfo. */
static void part_nodes(const struct sx_nodeinfo *nodes, int nn, const char *parts, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = 0;
	for (int k = 0; k < nn; k++) {
		bool in = false;
		for (const char *p = parts; *p && !in;) {
			size_t w = strcspn(p, ",");
			for (const char *q = nodes[k].partitions; *q && !in;) {
				size_t v = strcspn(q, ",");
				in = v == w && strncmp(p, q, w) == 0;
				q += v + (q[v] == ',');
			}
			p += w + (p[w] == ',');
		}
		if (in && used + strlen(nodes[k].name) + 3 < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", nodes[k].name);
	}
}

/* The JSON line of a job for the engine. */
static void job_line(const struct sx_jobinfo *j, int32_t tenant, const char *nodes, char *buf, size_t len)
{
	int nn = j->nnodes > 0 ? j->nnodes : 1;
	int cores = j->ncpus > 0 ? (j->ncpus + nn - 1) / nn : 1;
	char wall[32] = "null";
	if (j->limit_s > 0)
		snprintf(wall, sizeof wall, "%" PRId64, j->limit_s * 1000000);
	snprintf(buf, len,
	         "{\"submit_us\":0,\"walltime_us\":%s,\"tenant\":%d,\"class\":\"batch\",\"run_us\":%" PRId64 ","
	         "\"req\":{\"nodes\":%d,\"cores\":%d,\"gpus\":%d,\"mem_mib\":%" PRId64 "%s%s%s}}",
	         wall, tenant, (j->limit_s > 0 ? j->limit_s : 3600) * 1000000, nn, cores, j->gpus, j->mem_mib,
	         nodes[0] ? ",\"require\":\"node.name in (" : "", nodes, nodes[0] ? ")\"" : "");
}

struct poll {
	struct sx_jobinfo *jobs;
	int nj;
	struct sx_nodeinfo *nodes;
	int nn;
	struct sx_acct *acct;
	int na;
	const struct sx_jobinfo **wait;   /* the waiting jobs forecast, in Slurm's order */
	int nwait, nrun;
	struct fcdraw_q *q;
	double t;
};

static void poll_free(struct poll *p)
{
	free(p->jobs);
	free(p->nodes);
	free(p->acct);
	free(p->wait);
	free(p->q);
}

/* The forecast of p's waiting jobs from the twin's engine. */
static int forecast(struct shadow *sh, struct poll *p, char *err, size_t errlen)
{
	struct shadow_eng e;
	int rc = -1;
	const struct sx_jobinfo **run = calloc((size_t)p->nj + 1, sizeof *run);
	p->wait = calloc((size_t)p->nj + 1, sizeof *p->wait);
	int32_t *target = calloc((size_t)p->nj + 1, sizeof *target);
	if (!run || !p->wait || !target) {
		snprintf(err, errlen, "out of memory");
		free(run);
		free(target);
		return -1;
	}
	int nrun = 0;
	for (int k = 0; k < p->nj; k++) {
		const struct sx_jobinfo *j = &p->jobs[k];
		if (is_running(j))
			run[nrun++] = j;
		else if (j->st == SX_PENDING)
			p->wait[p->nwait++] = j;
	}
	p->nrun = nrun;
	qsort(run, (size_t)nrun, sizeof *run, cmp_running);
	qsort(p->wait, (size_t)p->nwait, sizeof *p->wait, cmp_waiting);
	if (shadow_eng_build(&e, sh->scn_text, sh->scn_path, sh->o->state_dir, nrun + p->nwait + 1, err, errlen))
		goto out;
	/* Engine time 0 is just before the earliest start of a running job. */
	double t0 = p->t;
	for (int k = 0; k < nrun; k++)
		if ((double)run[k]->start_unix < t0)
			t0 = (double)run[k]->start_unix;
	t0 -= 1;
	simtime at = simtime_from_s(p->t - t0);
	char nodes[8192], line[9000];
	for (int k = 0; k < nrun; k++) {
		const struct sx_jobinfo *j = run[k];
		if (node_list(&e, j->nodes, nodes, sizeof nodes, "runs on", j->id, sh->o->slurm_conf, err, errlen))
			goto out;
		job_line(j, user_index(sh, j->user), nodes, line, sizeof line);
		simtime sub = simtime_from_s((double)j->start_unix - t0);
		if (sub >= at)
			sub = at - 1;
		if (shadow_eng_add(&e, line, sub, err, errlen) < 0) {
			snprintf(err + strlen(err), errlen - strlen(err), " (running job %" PRId64 ")", j->id);
			goto out;
		}
	}
	for (int k = 0; k < p->nwait; k++) {
		const struct sx_jobinfo *j = p->wait[k];
		part_nodes(p->nodes, p->nn, j->partition, nodes, sizeof nodes);
		if (!nodes[0]) {
			snprintf(err, errlen, "squeue: job %" PRId64 ": partition '%s': sinfo lists no node in it", j->id,
			         j->partition);
			goto out;
		}
		job_line(j, user_index(sh, j->user), nodes, line, sizeof line);
		int32_t id = shadow_eng_add(&e, line, at, err, errlen);
		if (id < 0) {
			snprintf(err + strlen(err), errlen - strlen(err), " (waiting job %" PRId64 ")", j->id);
			goto out;
		}
		target[k] = id;
	}
	/* Nodes Slurm will not give (down, drained) hold everything. */
	struct sim *s = e.s;
	for (int k = 0; k < p->nn; k++) {
		int32_t n = shadow_eng_node(&e, p->nodes[k].name);
		if (n >= 0 && (p->nodes[k].down || p->nodes[k].drain) &&
		    sim_inject_foreign(s, 1, n, s->cl.nodes[n].cores, s->cl.nodes[n].ngpus, s->cl.nodes[n].mem_mib)) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	/* What Slurm did up to now: the running jobs start on their nodes. */
	while (sim_next_time(s) < at) {
		int r = sim_step(s);
		if (r < 0) {
			snprintf(err, errlen, "the twin's engine: %s", s->err);
			goto out;
		}
		if (r == 0)
			break;
	}
	int unplaced = 0;
	char ids[200] = "";
	for (int32_t i = 0; i < nrun && i < s->njobs; i++)
		if (s->jobs[i].state != JOB_RUNNING && ++unplaced <= 5)
			snprintf(ids + strlen(ids), sizeof ids - strlen(ids), "%s%" PRId64 " (started %.0f s ago)",
			         unplaced > 1 ? ", " : "", run[i]->id, p->t - (double)run[i]->start_unix);
	if (unplaced)
		fprintf(sh->log, "hetlab shadow: warning: %d running job%s not started by the twin where Slurm runs "
		        "%s: %s%s\n", unplaced, unplaced == 1 ? "" : "s", unplaced == 1 ? "it" : "them", ids,
		        unplaced > 5 ? ", ..." : "");
	p->q = calloc((size_t)p->nwait + 1, sizeof *p->q);
	if (!p->q) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (p->nwait > 0) {
		struct fcdraw f = { .s = s, .pred = &sh->pred, .at = at, .draws = sh->o->draws > 0 ? sh->o->draws : 20,
		                    .seq = (uint64_t)sh->polls + 1, .limit_s = SH_DRAW_LIMIT_S, .target = target,
		                    .ntarget = p->nwait, .close_fd = -1 };
		if (fcdraw_run(&f, p->q, NULL)) {
			snprintf(err, errlen, "the forecast's draws failed");
			goto out;
		}
		for (int k = 0; k < p->nwait; k++) {
			struct fcdraw_q *q = &p->q[k];
			simtime *v[4] = { &q->p10, &q->p50, &q->p90, &q->lim };
			for (int i = 0; i < 4; i++)   /* engine time to Unix time, µs kept as s */
				if (*v[i] >= 0)
					*v[i] = simtime_from_s(simtime_to_s(*v[i]) + t0);
		}
	}
	rc = 0;
out:
	shadow_eng_free(&e);
	free(run);
	free(target);
	return rc;
}

static double fq(simtime v)
{
	return v >= 0 ? simtime_to_s(v) : NAN;
}

static void render_metrics(struct shadow *sh, const struct poll *p)
{
	if (!sh->msrv)
		return;
	size_t need = 4096 + (size_t)(p ? p->nwait : 0) * 512;
	if (need > sh->mcap) {
		char *b = realloc(sh->mtext, need);
		if (!b)
			return;
		sh->mtext = b;
		sh->mcap = need;
	}
	char *b = sh->mtext;
	size_t left = sh->mcap, n = 0;
#define OUT(...) do { int w_ = snprintf(b + n, left - n, __VA_ARGS__); if (w_ > 0 && (size_t)w_ < left - n) n += (size_t)w_; } while (0)
	OUT("# HELP hetlab_shadow_polls_total Polls of Slurm, by outcome.\n# TYPE hetlab_shadow_polls_total counter\n");
	OUT("hetlab_shadow_polls_total{ok=\"1\"} %lld\nhetlab_shadow_polls_total{ok=\"0\"} %lld\n",
	    (long long)(sh->polls - sh->failed), (long long)sh->failed);
	OUT("# HELP hetlab_forecast_start_seconds Predicted start of a waiting Slurm job (Unix time), by quantile of the "
	    "draws; limit: every job running to its time limit; squeue: what squeue --start says.\n"
	    "# TYPE hetlab_forecast_start_seconds gauge\n");
	for (int k = 0; p && k < p->nwait && k < SH_METRICS_MAX; k++) {
		static const char *const qn[4] = { "0.1", "0.5", "0.9", "limit" };
		const simtime v[4] = { p->q[k].p10, p->q[k].p50, p->q[k].p90, p->q[k].lim };
		char id[48];
		slurm_id(p->wait[k], id, sizeof id);
		for (int i = 0; i < 4; i++)
			if (v[i] >= 0)
				OUT("hetlab_forecast_start_seconds{job=\"%s\",quantile=\"%s\"} %.3f\n", id, qn[i],
				    simtime_to_s(v[i]));
		if (p->wait[k]->start_unix > 0)
			OUT("hetlab_forecast_start_seconds{job=\"%s\",quantile=\"squeue\"} %" PRId64 "\n", id,
			    p->wait[k]->start_unix);
	}
	OUT("# HELP hetlab_shadow_coverage Share of actual starts within the forecast's p10-p90, by the wait left.\n"
	    "# TYPE hetlab_shadow_coverage gauge\n"
	    "# HELP hetlab_shadow_abs_error_seconds Median absolute error of the predicted start against the actual "
	    "start, by the wait left; source hetlab (p50) or squeue (--start).\n# TYPE hetlab_shadow_abs_error_seconds gauge\n");
	for (int b2 = 0; sh->have_acc && b2 < SHADOW_NBIN; b2++) {
		const struct shadow_acc *a = &sh->acc[b2];
		if (!isnan(a->coverage))
			OUT("hetlab_shadow_coverage{wait=\"%s\"} %.4f\n", a->bin, a->coverage);
		if (isfinite(a->hetlab_mae_s))
			OUT("hetlab_shadow_abs_error_seconds{wait=\"%s\",source=\"hetlab\"} %.3f\n", a->bin, a->hetlab_mae_s);
		if (isfinite(a->squeue_mae_s))
			OUT("hetlab_shadow_abs_error_seconds{wait=\"%s\",source=\"squeue\"} %.3f\n", a->bin, a->squeue_mae_s);
	}
#undef OUT
	metrics_publish(sh->msrv, b, n, true, NULL);
}

/* Records what p saw: every job, the starts and ends, the forecasts. */
static int record(struct shadow *sh, struct poll *p, double took_s, double cpu, char *err, size_t errlen)
{
	struct shadowdb *d = sh->db;
	for (int k = 0; k < p->nj; k++) {
		const struct sx_jobinfo *j = &p->jobs[k];
		bool started = ran(j);
		bool ended = started && sx_state_final(j->st) && j->end_unix >= j->start_unix;
		char id[48];
		struct shadowdb_job r = { .id = j->id, .slurm_id = slurm_id(j, id, sizeof id), .user = j->user, .partition = j->partition, .account = j->account,
		                          .submit = j->submit_unix > 0 ? (double)j->submit_unix : NAN,
		                          .limit_s = j->limit_s > 0 ? (double)j->limit_s : NAN,
		                          .start = started ? (double)j->start_unix : NAN,
		                          .end = ended ? (double)j->end_unix : NAN, .start_from = "squeue" };
		if (shadowdb_job(d, &r, err, errlen))
			return -1;
	}
	for (int k = 0; k < p->na; k++) {
		const struct sx_acct *a = &p->acct[k];
		struct sjob *sj = sjob_find(sh, a->id, false);
		if (!sj || a->start_unix <= 0 || !a->nodes[0])
			continue;
		struct shadowdb_job r = { .id = a->id, .user = sj->user[0] ? sj->user : NULL, .limit_s = sj->limit_s, .submit = NAN,
		                          .start = (double)a->start_unix,
		                          .end = a->end_unix >= a->start_unix ? (double)a->end_unix : NAN, .start_from = "sacct" };
		if (shadowdb_job(d, &r, err, errlen))
			return -1;
	}
	for (int k = 0; k < p->nwait; k++) {
		const struct fcdraw_q *q = &p->q[k];
		const struct sx_jobinfo *j = p->wait[k];
		if (shadowdb_forecast(d, j->id, p->t, fq(q->p10), fq(q->p50), fq(q->p90), fq(q->lim),
		                      j->start_unix > 0 ? (double)j->start_unix : NAN, err, errlen))
			return -1;
	}
	if (shadowdb_poll(d, p->t, true, p->nrun, p->nwait, p->nwait, took_s, cpu, NULL, err, errlen))
		return -1;
	if (shadowdb_accuracy(d, sh->acc, err, errlen))
		return -1;
	sh->have_acc = true;
	return 0;
}

/* What the shadow keeps of a poll's jobs, and the predictor taught by
 * every job whose run it now knows (before the poll's forecast). */
static void update(struct shadow *sh, const struct poll *p)
{
	for (int32_t k = 0; k < sh->njobs; k++)
		sh->jobs[k].seen = false;
	for (int k = 0; k < p->nj; k++) {
		const struct sx_jobinfo *j = &p->jobs[k];
		struct sjob *sj = sjob_find(sh, j->id, true);
		if (!sj)
			continue;
		sj->seen = true;
		snprintf(sj->user, sizeof sj->user, "%s", j->user);
		sj->limit_s = j->limit_s > 0 ? (double)j->limit_s : NAN;
		sj->waiting = j->st == SX_PENDING || j->st == SX_HELD;
		if (ran(j))
			sj->started = true;
		bool ended = sj->started && sx_state_final(j->st) && j->end_unix >= j->start_unix;
		if (ended && !sj->learned && (j->st == SX_COMPLETED || j->st == SX_FAILED || j->st == SX_TIMEOUT)) {
			learn(sh, j->user, (double)(j->end_unix - j->start_unix), j->limit_s > 0 ? (double)j->limit_s : 0);
			sj->learned = true;
		}
	}
	for (int k = 0; k < p->na; k++) {
		const struct sx_acct *a = &p->acct[k];
		struct sjob *sj = sjob_find(sh, a->id, false);
		if (!sj || a->start_unix <= 0 || !a->nodes[0])
			continue;
		sj->started = true;
		if (!sj->learned && a->end_unix >= a->start_unix && (a->st == SX_COMPLETED || a->st == SX_FAILED ||
		                                                      a->st == SX_TIMEOUT)) {
			learn(sh, sj->user, (double)(a->end_unix - a->start_unix), isfinite(sj->limit_s) ? sj->limit_s : 0);
			sj->learned = true;
		}
	}
}

/* After a poll was recorded: jobs Slurm has forgotten leave (their rows
 * stay in the results). */
static void prune(struct shadow *sh)
{
	int32_t m = 0;
	for (int32_t k = 0; k < sh->njobs; k++)
		if (sh->jobs[k].seen)
			sh->jobs[m++] = sh->jobs[k];
	sh->njobs = m;
}

static int poll_once(struct shadow *sh)
{
	struct poll p = { .t = now_unix() };
	char err[1024] = "";
	sh->polls++;
	double c0 = cpu_s(), w0 = now_unix();
	int rc = -1;
	if (sx_jobs_all(&sh->cx, &p.jobs, &p.nj, err, sizeof err) ||
	    sx_nodes(&sh->cx, &p.nodes, &p.nn, err, sizeof err))
		goto failed;
	array_ids(p.jobs, p.nj);
	/* Jobs seen waiting that Slurm forgot before a poll saw them run:
	 * sacct has their start (not asked of an array's tasks, which it
	 * names by the ids they got as they started). */
	int64_t *gone = calloc((size_t)sh->njobs + 1, sizeof *gone);
	int ngone = 0;
	if (!gone) {
		snprintf(err, sizeof err, "out of memory");
		goto failed;
	}
	int64_t *listed = malloc(((size_t)p.nj + 1) * sizeof *listed);
	if (!listed) {
		free(gone);
		snprintf(err, sizeof err, "out of memory");
		goto failed;
	}
	for (int i = 0; i < p.nj; i++)
		listed[i] = p.jobs[i].id;
	qsort(listed, (size_t)p.nj, sizeof *listed, cmp_id);
	for (int32_t k = 0; k < sh->njobs; k++)
		if (!sh->jobs[k].started && sh->jobs[k].id < SH_ARRAY_BASE &&
		    !bsearch(&sh->jobs[k].id, listed, (size_t)p.nj, sizeof *listed, cmp_id))
			gone[ngone++] = sh->jobs[k].id;
	free(listed);
	if (ngone) {
		bool no_acct = false;
		if (sx_acct_by_id(&sh->cx, gone, ngone, &p.acct, &p.na, &no_acct, err, sizeof err) && !no_acct) {
			free(gone);
			goto failed;
		}
		err[0] = 0;
	}
	free(gone);
	/* The predictor learns from the jobs that ended before it forecasts. */
	update(sh, &p);
	if (forecast(sh, &p, err, sizeof err))
		goto failed;
	if (shadowdb_begin(sh->db, err, sizeof err))
		goto failed;
	if (record(sh, &p, now_unix() - w0, cpu_s() - c0, err, sizeof err)) {
		shadowdb_rollback(sh->db);
		goto failed;
	}
	if (shadowdb_commit(sh->db, err, sizeof err)) {
		shadowdb_rollback(sh->db);
		goto failed;
	}
	prune(sh);
	render_metrics(sh, &p);
	fprintf(sh->log, "hetlab shadow: poll %lld: %d running, %d waiting forecast in %.2f s (cpu %.2f s)\n",
	        (long long)sh->polls, p.nrun, p.nwait, now_unix() - w0, cpu_s() - c0);
	rc = 0;
	goto out;
failed:
	sh->failed++;
	fprintf(sh->log, "hetlab shadow: poll %lld failed (nothing recorded; tried again in %g s): %s\n",
	        (long long)sh->polls, sh->o->every_s > 0 ? sh->o->every_s : 30, err);
	if (shadowdb_begin(sh->db, NULL, 0) == 0) {
		if (shadowdb_poll(sh->db, p.t, false, 0, 0, 0, now_unix() - w0, cpu_s() - c0, err, NULL, 0) ||
		    shadowdb_commit(sh->db, NULL, 0))
			shadowdb_rollback(sh->db);
	}
	render_metrics(sh, NULL);
out:
	fflush(sh->log);
	poll_free(&p);
	return rc;
}

int shadow_run(const struct shadow_opts *o, FILE *log, char *err, size_t errlen)
{
	struct shadow sh = { .o = o, .log = log };
	int rc = -1;
	pred_init(&sh.pred, PRED_MIN_N);
	if (mkdir(o->state_dir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "%s: cannot create the state directory: %s", o->state_dir, strerror(errno));
		goto out;
	}
	snprintf(sh.cx.bindir, sizeof sh.cx.bindir, "%s", o->bindir ? o->bindir : "");
	snprintf(sh.cx.workdir, sizeof sh.cx.workdir, "%s", o->state_dir);
	sh.cx.timeout_s = o->timeout_s;
	sh.cx.read_only = true;
	if (make_scenario(&sh, err, errlen))
		goto out;
	snprintf(sh.db_path, sizeof sh.db_path, "%s/shadow.db", o->state_dir);
	if (shadowdb_open(&sh.db, sh.db_path, true, err, errlen))
		goto out;
	char e2[512];
	if (shadowdb_meta(sh.db, "slurm_conf", o->slurm_conf, e2, sizeof e2) ||
	    shadowdb_meta(sh.db, "version", o->version ? o->version : "", e2, sizeof e2) ||
	    shadowdb_history(sh.db, learn, &sh, e2, sizeof e2)) {
		snprintf(err, errlen, "%s", e2);
		goto out;
	}
	/* The jobs a shadow before this one saw wait: their starts are still wanted. */
	int64_t *ids;
	int nids;
	if (shadowdb_unstarted(sh.db, &ids, &nids, err, errlen))
		goto out;
	for (int k = 0; k < nids; k++) {
		struct sjob *sj = sjob_find(&sh, ids[k], true);
		if (sj)
			sj->waiting = true;
	}
	free(ids);
	if (o->metrics_port >= 0) {
		if (metrics_start(&sh.msrv, o->metrics_addr ? o->metrics_addr : "127.0.0.1", o->metrics_port, false, err,
		                  errlen))
			goto out;
		fprintf(log, "hetlab shadow: metrics on http://%s:%d/metrics\n", o->metrics_addr ? o->metrics_addr : "127.0.0.1",
		        metrics_port(sh.msrv));
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	double every = o->every_s > 0 ? o->every_s : 30, t_start = now_unix(), c_start = cpu_s();
	fprintf(log, "hetlab shadow: read-only beside Slurm (%s), a poll every %g s; results in %s\n", o->slurm_conf, every,
	        sh.db_path);
	fflush(log);
	while (!stop_flag) {
		double t = now_unix();
		poll_once(&sh);
		if ((o->polls > 0 && sh.polls >= o->polls) || (o->max_s > 0 && now_unix() - t_start >= o->max_s))
			break;
		while (!stop_flag && now_unix() < t + every && !(o->max_s > 0 && now_unix() - t_start >= o->max_s)) {
			struct timespec ts = { 0, 50 * 1000000 };
			nanosleep(&ts, NULL);
		}
	}
	fprintf(log, "hetlab shadow: %lld polls (%lld failed), cpu %.2f s, wall %.2f s\n", (long long)sh.polls,
	        (long long)sh.failed, cpu_s() - c_start, now_unix() - t_start);
	if (sh.have_acc) {
		char line[256];
		shadowdb_summary(sh.acc, line, sizeof line);
		fprintf(log, "hetlab shadow: %s\n", line);
	}
	rc = 0;
out:
	metrics_stop(sh.msrv);
	shadowdb_close(sh.db);
	pred_fini(&sh.pred);
	free(sh.users);
	free(sh.jobs);
	free(sh.mtext);
	free(sh.scn_text);
	return rc;
}
