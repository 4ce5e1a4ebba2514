/* daemon — live mode's loop: inputs from the world (inbox, executor,
 * probes) recorded, injected and handled; decisions committed; metrics
 * published. The engine it drives and its recovery are rebuild.c. See
 * daemon.h and docs/live.md. */
#include "live/live_int.h"
#include "live/forecast.h"
#include "live/exec/executor.h"
#include "live/hostprobe.h"
#include "live/nvml.h"
#include "live/reading.h"

#include <jansson.h>
#include <sqlite3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* With --exit-when-idle, how long a state without jobs waits for one. */
#define LIVE_FIRST_JOB_WAIT_S 10

static simtime engine_now(struct live *L)
{
	simtime t = live_unix_us() - L->epoch_unix_us;
	if (t <= L->s.now)
		t = L->s.now + 1;
	if (t <= L->after_us)
		t = L->after_us + 1;
	return t;
}


/* The inbox's requests, read inside the transaction that records them. */
struct ingest {
	struct live *L;
	struct obs *o;
	int32_t submits;                /* of rows */
	char *err;
	size_t errlen;
};

static int add_row(struct ingest *g, const struct rec_row *r)
{
	if (obs_add(g->o, r))
		return -1;
	g->submits += r->kind == RIN_SUBMIT;
	return 0;
}

static bool idle(struct live *L);
static int write_results(struct live *L);

/* A submitted job line as it is recorded: checked (so that its injection
 * cannot fail, here or in any replay), in its normal form, with who
 * submitted it as the inbox row says (never as the line says). NULL with
 * why: the row is quarantined. */
static char *submit_line(struct live *L, const struct inbox_row *ir, char *why, size_t len)
{
	if (!ir->spec) {
		snprintf(why, len, "%s inbox row %lld: a submission without a job line", L->st.path, (long long)ir->seq);
		return NULL;
	}
	char src[4200];
	snprintf(src, sizeof src, "%s inbox row", L->st.path);
	char *norm = live_job_norm(src, ir->seq, ir->spec, ir->spec_len, NULL, why, len);
	if (!norm || ir->uid < 0)
		return norm;
	json_t *o = json_loads(norm, 0, NULL);
	json_t *who = json_pack("{sI sI ss}", "uid", (json_int_t)ir->uid, "gid", (json_int_t)ir->gid, "user",
	                        ir->user ? ir->user : "");
	char *line = NULL;
	if (o && who && json_object_set(o, "submitter", who) == 0)
		line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(who);
	json_decref(o);
	free(norm);
	if (!line)
		snprintf(why, len, "out of memory");
	return line;
}

/* Keeps a row that cannot be taken (table quarantine, `hetlab queue`
 * lists it) and takes it out of the inbox, so the rows behind it go on. */
static int quarantine(struct ingest *g, const struct inbox_row *ir, const char *why)
{
	struct live *L = g->L;
	live_logl(L, LIVE_WARN, "inbox row %lld quarantined (kept in table quarantine, skipped): %s", (long long)ir->seq,
	          why);
	if (lstate_quarantine_add(&L->st, ir, why, g->err, g->errlen))
		return -1;
	return lstate_inbox_del(&L->st, ir->seq, g->err, g->errlen);
}

/* The job table is full: the submissions wait in the inbox (said once),
 * the cancels and approvals behind them are taken by a second pass.
 * With --exit-when-idle, once every job has ended they would wait for
 * ever: the daemon stops with an error instead of exiting 0. */
static int table_full(struct ingest *g, const struct inbox_row *ir)
{
	struct live *L = g->L;
	if (!L->inbox_full)
		live_logl(L, LIVE_WARN, "inbox row %lld and those behind it wait: the job table is full (max_jobs %d): "
		          "raise max_jobs in the config and restart", (long long)ir->seq, L->cfg.max_jobs);
	L->inbox_full = true;
	if (L->o.exit_when_idle && g->submits == 0 && idle(L)) {
		write_results(L);
		snprintf(g->err, g->errlen, "--exit-when-idle: every job has ended, but submissions wait in the inbox "
		         "(from row %lld): the job table is full (max_jobs %d); raise max_jobs in the config and restart",
		         (long long)ir->seq, L->cfg.max_jobs);
		return -1;
	}
	return 1;   /* leave it in the inbox */
}

static int inbox_row(void *ctx, const struct inbox_row *ir)
{
	struct ingest *g = ctx;
	struct live *L = g->L;
	struct rec_row r = { .job = -1, .node = -1 };
	char why[1024];
	char *line = NULL;
	if (strcmp(ir->kind, "submit") == 0) {
		int64_t id = live_njobs(L) + g->submits;
		if (L->s.njobs + g->submits >= L->cfg.max_jobs && live_compact(L)) {
			snprintf(g->err, g->errlen, "%s", L->err);
			return -1;
		}
		if (L->s.njobs + g->submits >= L->cfg.max_jobs)
			return table_full(g, ir);
		if (!(line = submit_line(L, ir, why, sizeof why)))
			return quarantine(g, ir, why);
		r.kind = RIN_SUBMIT;
		r.job = id;
		r.data = line;
		struct lstate_who w = { ir->uid, ir->gid, ir->user };
		if (lstate_owner_put(&L->st, id, &w, g->err, g->errlen)) {
			free(line);
			return -1;
		}
	} else if (strcmp(ir->kind, "cancel") == 0) {
		int64_t taken = live_njobs(L) + g->submits;
		if (!ir->job_int || ir->job < 0 || ir->job >= taken) {
			snprintf(why, sizeof why, "%s inbox row %lld: cancel: no job %s%lld (%lld jobs taken: ids 0..%lld)",
			         L->st.path, (long long)ir->seq, ir->job_int ? "" : "(not an integer) ", (long long)ir->job,
			         (long long)taken, (long long)taken - 1);
			return quarantine(g, ir, why);
		}
		r.kind = RIN_CANCEL;
		r.job = ir->job;
	} else if (strcmp(ir->kind, "approve") == 0) {
		if (!ir->job_int || ir->job < 0 || ir->job >= L->sc.org.nt) {
			snprintf(why, sizeof why, "%s inbox row %lld: approve: the scenario has no tenant %s%lld (%d tenants)",
			         L->st.path, (long long)ir->seq, ir->job_int ? "" : "(not an integer) ", (long long)ir->job,
			         L->sc.org.nt);
			return quarantine(g, ir, why);
		}
		r.kind = RIN_APPROVE;
		r.job = ir->job;
	} else {
		snprintf(why, sizeof why, "%s inbox row %lld: unknown request '%.40s' (expected submit, cancel or approve)",
		         L->st.path, (long long)ir->seq, ir->kind);
		return quarantine(g, ir, why);
	}
	int rc = add_row(g, &r) || lstate_inbox_del(&L->st, ir->seq, g->err, g->errlen) ? -1 : 0;
	free(line);
	return rc;
}

/* A node's reading now, from its source. 0 with *r, 1 none, -1 bad. */
static int read_node(struct live *L, int32_t node, struct sim_reading *r, char *msg, size_t len)
{
	const struct live_probe_src *src = livecfg_probe(&L->cfg, L->s.cl.nodes[node].name);
	if (!src || src->kind == LIVE_PROBE_NONE)
		return 1;
	if (src->kind == LIVE_PROBE_FILE) {
		char path[4200];
		const char *pct = strstr(src->path, "%n");
		if (pct)
			snprintf(path, sizeof path, "%.*s%s%s", (int)(pct - src->path), src->path, L->s.cl.nodes[node].name,
			         pct + 2);
		else
			snprintf(path, sizeof path, "%s", src->path);
		/* Bounded and non-blocking: a FIFO or a huge file there is
		 * refused for this node, never waited on or read whole. */
		return reading_read_file(path, L->cfg.stale_s, r, msg, len);
	}
	/* The host. */
	if (!L->host_cur) {
		L->host_prev = calloc(1, sizeof *L->host_prev);
		L->host_cur = calloc(1, sizeof *L->host_cur);
		L->gpus = calloc(1, sizeof *L->gpus);
		if (!L->host_prev || !L->host_cur || !L->gpus)
			return -1;
		const char *lib = getenv("HETLAB_NVML_LIB");
		nvml_session_open(lib && lib[0] ? lib : L->cfg.nvml_lib[0] ? L->cfg.nvml_lib : NULL, &L->nvs);
	}
	struct hp_msgs m;
	hp_msgs_init(&m);
	int64_t t = live_unix_us();
	bool have_prev = L->host_prev_us > 0;
	struct hp_host *tmp = L->host_prev;
	L->host_prev = L->host_cur;
	L->host_cur = tmp;
	hp_read_host(L->cfg.sysfs_root, L->host_cur, &m);
	if (L->nvs)
		nvml_session_read(L->nvs, L->gpus);
	reading_from_host(have_prev ? L->host_prev : NULL, L->host_cur, t - L->host_prev_us,
	                  L->nvs ? L->gpus : NULL, r);
	L->host_prev_us = t;
	return 0;
}

/* A refused reading is logged when it starts and when its reason
 * changes, not every round; a node whose readings are accepted again says
 * so once. */
static void reading_refused(struct live *L, int32_t node, int rc, const char *msg)
{
	if (!L->refused && !(L->refused = calloc((size_t)L->s.cl.nnodes + 1, sizeof *L->refused)))
		return;
	uint32_t h = 0;
	if (rc < 0) {
		h = 2166136261u;
		for (const char *p = msg; *p; p++)
			h = (h ^ (uint8_t)*p) * 16777619u;
		h |= 1;
	}
	if (h == L->refused[node])
		return;
	if (rc < 0)
		live_logl(L, LIVE_WARN, "node %s: reading refused: %s", L->s.cl.nodes[node].name, msg);
	else if (rc == 0)
		live_log(L, "node %s: readings accepted again", L->s.cl.nodes[node].name);
	if (rc <= 0)
		L->refused[node] = h;
}

static bool hot_change(const struct live *L, int32_t node, const struct sim_reading *r)
{
	if (L->cfg.hot_c <= 0 || !isfinite(r->temp_c) || !L->s.cl.health)
		return false;
	bool hot = L->s.cl.health[node].hot;
	double cool = L->cfg.cool_c > 0 ? L->cfg.cool_c : L->cfg.hot_c - 5;
	return hot ? r->temp_c < cool : r->temp_c >= L->cfg.hot_c;
}

/* The probes' readings (and, for an executor that does not observe by
 * itself, what it says of the nodes), into o: outside any transaction. */
static int probe_round(struct live *L, struct obs *o)
{
	bool ask = L->xo->node_down && L->mode == LIVE_DAEMON && (!L->xo->nodes_begin || L->xo->nodes_begin(L) == 0);
	for (int32_t i = 0; i < L->s.cl.nnodes; i++) {
		struct sim_reading r;
		char msg[512];
		int rc = read_node(L, i, &r, msg, sizeof msg);
		if (rc <= 0)
			reading_refused(L, i, rc, msg);
		int down = ask ? L->xo->node_down(L, i) : -1;
		if (rc != 0 && down < 0)
			continue;
		if (rc != 0)
			r = (struct sim_reading){ .power_w = NAN, .temp_c = NAN, .util = NAN, .bad_gpu = -1, .ok = true };
		r.down = (int8_t)down;
		if (rc == 0)
			L->lrd[i] = (struct live_reading){ .ok = true, .at_us = o->t, .power_w = r.power_w, .temp_c = r.temp_c,
			                                   .util = r.util, .gpu_errors = r.gpu_errors };
		bool down_change = down >= 0 && (down == 1) != (L->s.cl.svc[i] == NODE_DOWN);
		bool due = L->rec_at[i] < 0 || (double)(o->t - L->rec_at[i]) >= L->cfg.record_every_s * 1e6;
		if (!due && r.gpu_errors == 0 && !hot_change(L, i, &r) && !down_change)
			continue;
		char data[256];
		if (reading_format(&r, data, sizeof data) < 0)
			continue;
		struct rec_row row = { .kind = RIN_READING, .job = -1, .node = i, .data = data };
		if (obs_add(o, &row))
			return -1;
		L->rec_at[i] = o->t;
	}
	return 0;
}

/* An observing executor's view of the nodes, every tick: a node it says
 * is down (or up again) is recorded at once, between probe rounds. */
static int node_round(struct live *L, struct obs *o)
{
	if (!L->xo->node_down || (L->xo->nodes_begin && L->xo->nodes_begin(L) != 0))
		return 0;
	for (int32_t i = 0; i < L->s.cl.nnodes; i++) {
		int down = L->xo->node_down(L, i);
		if (down < 0 || (down == 1) == (L->s.cl.svc[i] == NODE_DOWN))
			continue;
		struct sim_reading r = { .power_w = NAN, .temp_c = NAN, .util = NAN, .bad_gpu = -1, .ok = true,
		                         .down = (int8_t)down };
		char data[256];
		if (reading_format(&r, data, sizeof data) < 0)
			continue;
		struct rec_row row = { .kind = RIN_READING, .job = -1, .node = i, .data = data };
		if (obs_add(o, &row))
			return -1;
	}
	return 0;
}

/* The executor's view of the running jobs, into o: outside any
 * transaction. */
static int poll_jobs(struct live *L, struct obs *o)
{
	struct sim *s = &L->s;
	if (L->xo->observe)
		return L->xo->observe(L, o);
	if (s->nrunning == 0)
		return 0;
	/* /healthz says so while the executor cannot be read. */
	if (L->xo->poll_begin && L->xo->poll_begin(L) < 0) {
		L->healthy = false;
		snprintf(L->why, sizeof L->why, "%s executor: cannot read its jobs (see the daemon's log)", L->xo->name);
	} else {
		L->healthy = true;
		L->why[0] = 0;
	}
	for (int32_t k = 0; k < s->nrunning; k++) {
		int32_t id = s->running[k];
		enum job_state st;
		enum end_reason why;
		char msg[256] = "";
		if (L->xo->poll(L, id, &st, &why, msg, sizeof msg) != 1)
			continue;
		struct rec_row r = { .kind = RIN_END, .job = live_sid(L, id), .node = -1, .attempt = (int32_t)s->jobs[id].restarts,
		                     .state = st, .reason = why, .data = msg };
		if (obs_add(o, &r))
			return -1;
	}
	return 0;
}

/* A job's state as the jobs table (hetlab queue) shows it: with the Slurm
 * executor an attempt is "starting" until Slurm runs it, and "stopping"
 * from a cancel or walltime kill until Slurm says it ended. */
static const char *state_word(const struct live *L, const struct job *j)
{
	if ((j->state == JOB_RUNNING || j->state == JOB_CHECKPOINTING) && L->s.live->cfg.async_start) {
		if (L->s.live->run[j->id].killing)
			return "stopping";
		if (!L->s.live->run[j->id].confirmed)
			return "starting";
	}
	return job_state_name((enum job_state)j->state);
}

/* A snapshot of the engine (snapshot.c) once a compaction has dropped
 * jobs or snapshot_every commits have passed, every recorded row injected
 * and every decision committed; one that fails is said and the daemon
 * goes on (a restart replays more). */
static void snapshot(struct live *L)
{
	if (L->cfg.snapshot_every <= 0 || L->commits == 0 || !sim_snap_able(&L->s) ||
	    (L->s.ngone == L->snap_gone && L->commits < L->cfg.snapshot_every))
		return;
	char e[600];
	int64_t seq = lstate_rec_last(&L->st);
	if (seq < 0 || lsnap_write(L, seq, e, sizeof e)) {
		live_logl(L, LIVE_WARN, "snapshot: %s", seq < 0 ? "cannot read the recording's last row" : e);
		return;
	}
	L->commits = 0;
	L->snap_gone = L->s.ngone;
}

/* Commits the step's decisions, the jobs that changed and applied_us. */
static int commit_step(struct live *L, char *err, size_t errlen)
{
	bool any = L->ndec > 0;
	for (int32_t i = 0; !any && i < L->s.njobs; i++)
		any = L->jdirty[i];
	if (!any)
		return 0;
	if (lstate_begin(&L->st, err, errlen))
		return -1;
	for (int32_t k = 0; k < L->ndec; k++) {
		const struct dec *d = &L->dec[k];
		if (lstate_decision_add(&L->st, d->t, rec_kind_name((enum rec_kind)d->kind), d->job, d->node, d->detail,
		                        err, errlen))
			goto fail;
	}
	for (int32_t i = 0; i < L->s.njobs; i++) {
		if (!L->jdirty[i])
			continue;
		const struct job *j = &L->s.jobs[i];
		char nodes[1024] = "";
		if (j->state == JOB_RUNNING || j->state == JOB_CHECKPOINTING)
			live_placement_text(L, i, nodes, sizeof nodes);
		struct lstate_job lj = {
			.id = live_sid(L, i), .name = L->jx[i].name, .cls = job_class_name((enum job_class)j->cls), .state = state_word(L, j),
			.nodes = nodes[0] ? nodes : NULL,
			.reason = j->reason != END_NONE ? end_reason_name((enum end_reason)j->reason) : NULL,
			.ref = L->jx[i].ref[0] ? L->jx[i].ref : NULL, .spec = NULL,
			.tenant = j->tenant, .submit_us = j->submit_us, .start_us = j->start_us, .end_us = j->end_us,
			.attempt = j->restarts,
		};
		if (lstate_job_put(&L->st, &lj, err, errlen))
			goto fail;
	}
	char a[32];
	snprintf(a, sizeof a, "%lld", (long long)L->s.now);
	if (lstate_meta_set(&L->st, "applied_us", a, err, errlen) || lstate_commit(&L->st, err, errlen))
		goto fail;
	L->commits++;
	for (int32_t k = 0; k < L->ndec; k++)
		free(L->dec[k].detail);
	L->ndec = 0;
	memset(L->jdirty, 0, (size_t)L->s.njobs);
	return 0;
fail:
	lstate_rollback(&L->st);
	return -1;
}

void live_publish(struct live *L)
{
	if (!L->ms)
		return;
	long n = metrics_render(&L->mbuf, &L->mcap, &L->s, L->lrd, &L->mc);
	n = fcst_metrics(L->fc, &L->mbuf, &L->mcap, n);
	n = lprune_metrics(L, &L->mbuf, &L->mcap, n);
	n = lres_metrics(L, &L->mbuf, &L->mcap, n);
	if (n >= 0)
		metrics_publish(L->ms, L->mbuf, (size_t)n, L->healthy, L->why);
}

static bool idle(struct live *L)
{
	return L->s.nfinished >= L->s.njobs && L->s.next_submit >= L->s.njobs;
}

/* results.db rewritten from the recording, unless the daemon changed no
 * row of the state since the last write (nothing recorded, decided,
 * committed or learnt of Slurm's jobs: it would be the same file, so an
 * idle daemon costs nothing every results_every_s; a prune changes what
 * is archived, not what the file holds). */
static int write_results(struct live *L)
{
	char path[4200], err[512];
	snprintf(path, sizeof path, "%s/results.db", L->cfg.state_dir);
	if (!live_results_stale(L, path))
		return 0;
	int changes = sqlite3_total_changes(L->st.db);
	/* Private as the rest of the state (the recorder's files are made
	 * by SQLite, which follows the umask). */
	mode_t um = umask(077);
	int rc = live_results(L->cfg.state_dir, path, L->o.load_cfg, err, sizeof err);
	umask(um);
	if (rc) {
		live_logl(L, LIVE_ERROR, "writing %s: %s", path, err);
		return -1;
	}
	L->res_known = true;
	L->res_changes = changes;
	return 0;
}

int live_loop(struct live *L, volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	struct sim *s = &L->s;
	if (fcst_open(&L->fc, L)) {   /* before the replay: its predictor learns the history */
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (live_catch_up(L, err, errlen)) {
		fcst_close(L->fc, L);
		L->fc = NULL;
		return -1;
	}
	live_go_live(L);
	/* What the engine believes runs: the glue learns it again, and the
	 * first poll reports what ended while we were down. */
	for (int32_t k = 0; k < s->nrunning; k++) {
		int32_t id = s->running[k];
		if (L->xo->adopt)
			L->xo->adopt(L, id);
		if (s->jobs[id].state == JOB_CHECKPOINTING && s->jobs[id].signalled_us >= L->applied_us)
			L->xo->signal(L, id);   /* the signal may not have gone out before the crash */
	}
	for (int32_t i = 0; i < s->njobs; i++)
		L->jdirty[i] = 1;
	if (L->xo->flush && commit_step(L, err, errlen) == 0)
		L->xo->flush(L);   /* starts the crash cut short */
	if (L->cfg.metrics_addr[0] || (L->o.metrics_addr && L->o.metrics_addr[0])) {
		const char *addr = L->o.metrics_addr && L->o.metrics_addr[0] ? L->o.metrics_addr : L->cfg.metrics_addr;
		int port = L->o.metrics_port >= 0 ? L->o.metrics_port : L->cfg.metrics_port;
		if (metrics_start(&L->ms, addr, port, L->cfg.metrics_public || L->o.metrics_public, err, errlen))
			return -1;
		live_log(L, "metrics on http://%s:%d/metrics", addr, metrics_port(L->ms));
	}
	L->mc.started_unix = live_unix_us() / 1000000;
	live_log(L, "%s executor, policy %s, %d nodes; %d jobs recovered (%d running)", L->xo->name, L->run.pol.ops->name,
	         s->cl.nnodes, s->njobs, s->nrunning);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = 0;
	L->next_probe = 0;
	for (;;) {
		simtime now_t = engine_now(L);
		pid_t w;
		int wst;
		while ((w = waitpid(-1, &wst, WNOHANG)) > 0) {
			lprune_reaped(L, w, wst);   /* every ended child (the local executor's shims) is reaped */
			lres_reaped(L, w, wst);
		}
		/* What the world did, gathered before the transaction: no external
		 * command, file or probe is ever read while it holds the state. */
		struct obs seen = { .t = now_t }, in = { .t = now_t };
		int r = poll_jobs(L, &seen);
		if (!L->healthy)
			live_publish(L);   /* /healthz says so before anything else waits on the executor */
		if (r >= 0 && now_t >= L->next_probe) {
			r = probe_round(L, &seen);
			L->next_probe = now_t + (simtime)(L->cfg.probe_every_s * 1e6);
		} else if (r >= 0 && L->xo->observe) {
			r = node_round(L, &seen);
		}
		/* The tick's time is when its reads ended: a read that took seconds
		 * (slurmctld waiting on slurmdbd) saw ends later than the tick's
		 * start, which would be cut to it (the soak's core-seconds 4 % short
		 * of sacct's). */
		simtime read_t = engine_now(L);
		if (read_t > now_t)
			now_t = in.t = read_t;
		/* Recorded in one short transaction: the inbox's requests first. */
		struct ingest g = { .L = L, .o = &in, .err = err, .errlen = errlen };
		if (r >= 0 && lstate_begin(&L->st, err, errlen) == 0) {
			r = lstate_inbox_each(&L->st, inbox_row, &g, err, errlen);
			/* Submissions wait for a full table; cancels and approvals
			 * behind them never do (the flood can be cancelled). */
			if (r > 0)
				r = lstate_inbox_each_request(&L->st, inbox_row, &g, err, errlen);
			for (int32_t k = 0; r >= 0 && k < seen.n; k++)
				r = obs_add(&in, &seen.rows[k]);
			for (int32_t k = 0; r >= 0 && k < in.n; k++) {
				in.rows[k].t_us = now_t;
				in.rows[k].after_us = L->after_us;
				r = lstate_rec_add(&L->st, &in.rows[k], err, errlen);
			}
			if (r < 0 || lstate_commit(&L->st, err, errlen)) {
				lstate_rollback(&L->st);
				r = -1;
			}
		} else {
			r = -1;
		}
		obs_free(&seen);
		if (r < 0) {
			obs_free(&in);
			rc = -1;
			break;
		}
		for (int32_t k = 0; k < in.n && L->xo->ended; k++) {
			int32_t at = in.rows[k].kind == RIN_END ? live_index(L, in.rows[k].job) : -1;
			if (at >= 0)
				L->xo->ended(L, at, in.rows[k].attempt);
		}
		for (int32_t k = 0; k < in.n && rc == 0; k++) {
			if (live_inject(L, &in.rows[k])) {
				snprintf(err, errlen, "%s", L->err);
				rc = -1;
			}
			/* Its row in the jobs table follows (a start Slurm confirmed is
			 * no decision, but "starting" becomes "running"). */
			int32_t at = in.rows[k].kind != RIN_APPROVE ? live_index(L, in.rows[k].job) : -1;
			if (at >= 0)
				L->jdirty[at] = 1;
		}
		int32_t nin = in.n;
		obs_free(&in);
		if (rc)
			break;
		L->after_us = now_t;
		if (live_advance_to(L, now_t)) {
			snprintf(err, errlen, "%s", L->err);
			rc = -1;
			break;
		}
		if (commit_step(L, err, errlen)) {
			rc = -1;
			break;
		}
		if (L->xo->flush) {
			L->xo->flush(L);   /* the step's actions, now that its decisions are committed */
			if (commit_step(L, err, errlen)) {   /* the Slurm ids they got */
				rc = -1;
				break;
			}
		}
		if (live_compact(L)) {   /* ended jobs leave the engine's tables, now that their rows are written */
			snprintf(err, errlen, "%s", L->err);
			rc = -1;
			break;
		}
		snapshot(L);
		fcst_tick(L->fc, L);   /* forecasts: a child's answer read, the next one started when due */
		lprune_tick(L);        /* the state pruned by a child when due (prune_keep_days) */
		live_publish(L);
		struct timespec t1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double el = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		lres_tick(L);          /* results.db rewritten by a child when due (results_every_s) */
		if (*stop || (L->o.max_s > 0 && el >= L->o.max_s))
			break;
		/* A state without jobs waits a while for its first submission (a
		 * daemon is often started before them), then has nothing to do. */
		if (L->o.exit_when_idle && nin == 0 && idle(L) && (s->njobs > 0 || el >= LIVE_FIRST_JOB_WAIT_S)) {
			if (s->njobs == 0)
				live_log(L, "--exit-when-idle: no job submitted within %d s of the start: nothing to do",
				         LIVE_FIRST_JOB_WAIT_S);
			break;
		}
		/* Sleep until the next event, the next probe round or a tick. */
		simtime now = live_unix_us() - L->epoch_unix_us;
		simtime wake = now + (simtime)(L->cfg.tick_s * 1e6);
		if (sim_next_time(s) < wake)
			wake = sim_next_time(s);
		if (L->next_probe < wake)
			wake = L->next_probe;
		if (wake > now) {
			struct timespec ts = { (time_t)((wake - now) / 1000000), (long)((wake - now) % 1000000) * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	fcst_close(L->fc, L);
	L->fc = NULL;
	lprune_end(L, rc != 0 || *stop);
	lres_end(L);
	if (rc == 0)
		write_results(L);
	return rc;
}

