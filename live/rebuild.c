/* rebuild — the engine of a live state: built from the recorded scenario
 * and policy, fed the recorded inputs (recovery, replay, results), with
 * the hooks that log its decisions and the executor glue that is off
 * while it catches up. The loop that feeds it new inputs is daemon.c.
 * See daemon.h. */
#include "live/live_int.h"
#include "live/exec/executor.h"
#include "live/hostprobe.h"
#include "live/nvml.h"
#include "live/reading.h"
#include "live/statedir.h"
#include "live/sock.h"
#include <limits.h>
#include "analysis/auditkey.h"
#include "analysis/recorder.h"

#include <errno.h>
#include <libgen.h>
#include <sqlite3.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LIVE_VERSION "1"


/* ---- the engine's reports: the decision log, dirty jobs, counters ---- */

static bool is_decision(enum rec_kind k)
{
	return k == REC_START || k == REC_END || k == REC_HOLD || k == REC_RELEASE || k == REC_PREEMPT ||
	       k == REC_REQUEUE || k == REC_DRAIN || k == REC_RESUME;
}


static void rec_hook_event(void *ctx, simtime t, enum rec_kind kind, int32_t job, int32_t node, int state,
                           const char *detail)
{
	struct live *L = ctx;
	if (L->fwd.event)
		L->fwd.event(L->fwd.ctx, t, kind, job, node, state, detail);
	if (job >= 0 && L->jdirty)
		L->jdirty[job] = 1;
	switch (kind) {
	case REC_SUBMIT: L->mc.submits++; break;
	case REC_START: L->mc.starts++; break;
	case REC_PREEMPT: L->mc.preemptions++; break;
	case REC_REQUEUE: L->mc.requeues++; break;
	case REC_END:
		if (state >= 0 && state < 8)
			L->mc.ends[state]++;
		if (detail && strcmp(detail, "cancelled") == 0)
			L->mc.cancels++;
		break;
	default: break;
	}
	if ((kind == REC_FAULT || kind == REC_REPAIR) && L->mode == LIVE_DAEMON && !L->catching_up && node >= 0)
		live_logl(L, kind == REC_FAULT ? LIVE_WARN : LIVE_INFO, "%s on node %s: %s",
		          kind == REC_FAULT ? "fault" : "repair", L->s.cl.nodes[node].name, detail ? detail : "");
	if (!is_decision(kind) || (L->catching_up && L->mode == LIVE_DAEMON))
		return;
	char place[1024] = "";
	if (kind == REC_START && job >= 0)
		live_placement_text(L, job, place, sizeof place);
	char text[1200];
	snprintf(text, sizeof text, "%s%s%s", place, place[0] && detail ? " " : "", detail ? detail : "");
	int64_t sid = job >= 0 ? live_sid(L, job) : -1;   /* the state's name for it */
	if (L->mode == LIVE_DAEMON) {
		const char *jn = job >= 0 && L->jx && L->jx[job].name ? L->jx[job].name : NULL;
		if (job >= 0)
			live_log(L, "%s job %lld%s%s%s%s%s%s%s", rec_kind_name(kind), (long long)sid, jn ? " (" : "", jn ? jn : "",
			         jn ? ")" : "", kind == REC_END ? " " : "",
			         kind == REC_END ? job_state_name((enum job_state)state) : "",
			         text[0] ? (kind == REC_START ? " on " : ": ") : "", text);
		else
			live_log(L, "%s node %s%s%s", rec_kind_name(kind), node >= 0 ? L->s.cl.nodes[node].name : "?",
			         text[0] ? ": " : "", text);
	}
	if (L->mode == LIVE_REPLAY) {
		if (L->nrdec == L->caprdec) {
			int64_t cap = L->caprdec ? 2 * L->caprdec : 256;
			char **n = realloc(L->rdec, (size_t)cap * sizeof *n);
			if (!n)
				return;
			L->rdec = n;
			L->caprdec = cap;
		}
		char *line = NULL;
		if (asprintf(&line, "%lld %s %lld %d %s", (long long)t, rec_kind_name(kind), (long long)sid, node, text) >= 0)
			L->rdec[L->nrdec++] = line;
		return;
	}
	if (L->ndec == L->capdec) {
		int32_t cap = L->capdec ? 2 * L->capdec : 64;
		struct dec *n = realloc(L->dec, (size_t)cap * sizeof *n);
		if (!n)
			return;
		L->dec = n;
		L->capdec = cap;
	}
	L->dec[L->ndec++] = (struct dec){ t, kind, sid, node, strdup(text) };
}

static void rec_hook_job_end(void *ctx, const struct sim *s, const struct job *j)
{
	struct live *L = ctx;
	if (L->fwd.job_end)
		L->fwd.job_end(L->fwd.ctx, s, j);
}

static void rec_hook_sample(void *ctx, const struct sim_sample *smp)
{
	struct live *L = ctx;
	if (L->fwd.sample)
		L->fwd.sample(L->fwd.ctx, smp);
}

static void install_hooks(struct live *L)
{
	struct sim_recorder r = { .ctx = L, .event = rec_hook_event, .job_end = rec_hook_job_end,
	                          .sample = L->fwd.sample ? rec_hook_sample : NULL };
	sim_set_recorder(&L->s, &r);
}

/* ---- the engine's executor: the glue, or nothing while catching up ---- */

static int ex_start(void *ctx, struct sim *s, int32_t id)
{
	struct live *L = ctx;
	if (L->mode != LIVE_DAEMON || L->catching_up)
		return 0;
	char err[512];
	if (L->xo->start(L, id, err, sizeof err)) {
		/* The world refused: the job fails now (recorded as an end so
		 * that a replay sees it too). */
		live_logl(L, LIVE_ERROR, "job %lld could not start: %s", (long long)live_sid(L, id), err);
		snprintf(L->jx[id].ref, sizeof L->jx[id].ref, "start failed");
		struct rec_row r = { .t_us = s->now + 1, .after_us = s->now, .kind = RIN_END, .job = live_sid(L, id), .node = -1,
		                     .attempt = (int32_t)s->jobs[id].restarts, .state = JOB_FAILED, .reason = END_EXIT,
		                     .data = err };
		char e2[512];
		if (lstate_rec_add(&L->st, &r, e2, sizeof e2) == 0)
			sim_inject_end(s, r.t_us, id, (uint32_t)r.attempt, JOB_FAILED, END_EXIT);
		else
			live_logl(L, LIVE_ERROR, "%s", e2);
	}
	return 0;
}

static int ex_stop(void *ctx, struct sim *s, int32_t id, enum exec_stop how)
{
	struct live *L = ctx;
	(void)s;
	if (L->mode != LIVE_DAEMON || L->catching_up)
		return 0;
	return L->xo->stop(L, id, how);
}

static int ex_signal(void *ctx, struct sim *s, int32_t id)
{
	struct live *L = ctx;
	(void)s;
	if (L->mode != LIVE_DAEMON || L->catching_up)
		return 0;
	return L->xo->signal(L, id);
}

static int ex_node(void *ctx, struct sim *s, int32_t node, bool drain, const char *reason)
{
	struct live *L = ctx;
	(void)s;
	if (L->mode != LIVE_DAEMON || L->catching_up)
		return 0;
	return L->xo->node_state(L, node, drain, reason);
}

static const struct executor_ops live_exec_ops = {
	.name = "live",
	.start = ex_start,
	.stop = ex_stop,
	.signal = ex_signal,
	.node_state = ex_node,
};

/* ---- injecting what was recorded ---- */

int live_inject(struct live *L, const struct rec_row *r)
{
	struct sim *s = &L->s;
	char src[64], err[512];
	snprintf(src, sizeof src, "%s rec %lld", L->st.path, (long long)r->seq);
	/* A recorded job id, as the engine's index: -1 for a job that has
	 * left its tables (an input for an ended job, which the engine
	 * ignores as it would have ignored it for the job still there). */
	int32_t idx = r->kind == RIN_SUBMIT || r->kind == RIN_APPROVE ? -1 : live_index(L, r->job);
	switch (r->kind) {
	case RIN_SUBMIT: {
		if (r->job != live_njobs(L)) {
			snprintf(L->err, sizeof L->err, "%s: job %lld out of order (expected %lld)", src, (long long)r->job,
			         (long long)live_njobs(L));
			return -1;
		}
		if (s->njobs >= L->cfg.max_jobs && live_compact(L))
			return -1;
		if (s->njobs >= L->cfg.max_jobs) {
			snprintf(L->err, sizeof L->err, "%s: job %lld: the engine holds %d jobs (max_jobs): raise max_jobs",
			         src, (long long)r->job, s->njobs);
			return -1;
		}
		const char *text = r->data ? r->data : "";
		if (trace_jsonl_parse_job(src, r->seq, text, strlen(text), live_spec_extra, &L->w, err, sizeof err)) {
			snprintf(L->err, sizeof L->err, "%s", err);
			return -1;
		}
		struct job j = L->w.jobs[L->w.n - 1];
		j.submit_us = r->t_us;
		if (L->nselmap < L->w.nstr) {
			int32_t *m = realloc(L->selmap, (size_t)L->w.nstr * sizeof *m);
			if (!m)
				return -1;
			for (int32_t k = L->nselmap; k < L->w.nstr; k++)
				m[k] = -1;
			L->selmap = m;
			L->nselmap = L->w.nstr;
		}
		if (cluster_bind_more(&s->cl, L->w.str, L->w.nstr, L->selmap, &j, 1, err, sizeof err)) {
			/* Cannot run here (checked by hetlab submit; a scenario
			 * changed under a recording): rejected at submit. */
			live_logl(L, LIVE_WARN, "job %lld: %s: it is rejected", (long long)r->job, err);
			j.req.sel_req = j.req.sel_pref = 0;
			j.req.pool = 0;
			j.req.plane = INT16_MAX;
		}
		int32_t at = sim_add_job(s, &j, &L->w.truth[L->w.n - 1]);
		if (at < 0) {
			snprintf(L->err, sizeof L->err, "out of memory adding job %lld", (long long)r->job);
			return -1;
		}
		L->w.n_taken += L->w.n;   /* the line's job is the engine's now: the workload keeps its names */
		L->w.n = 0;
		jobx_fill(&L->jx[at], text);
		return 0;
	}
	case RIN_END:
		if (r->t1_us > 0 || r->t2_us > 0)
			return sim_inject_end_at(s, r->t_us, idx, (uint32_t)r->attempt, (enum job_state)r->state,
			                         (enum end_reason)r->reason, r->t1_us > 0 ? r->t1_us : -1,
			                         r->t2_us > 0 ? r->t2_us : -1);
		return sim_inject_end(s, r->t_us, idx, (uint32_t)r->attempt, (enum job_state)r->state,
		                      (enum end_reason)r->reason);
	case RIN_RUNNING:
		return sim_inject_running(s, r->t_us, idx, (uint32_t)r->attempt, r->t1_us > 0 ? r->t1_us : -1);
	case RIN_UNSTART:
		return sim_inject_unstart(s, r->t_us, idx, (uint32_t)r->attempt, r->data);
	case RIN_REQUEUE:
		return sim_inject_requeue(s, r->t_us, idx, (uint32_t)r->attempt, r->t1_us > 0 ? r->t1_us : -1,
		                          r->t2_us > 0 ? r->t2_us : -1,
		                          r->data);
	case RIN_FOREIGN: {
		long long cores = 0, gpus = 0, mem = 0;
		if (!r->data || sscanf(r->data, "%lld %lld %lld", &cores, &gpus, &mem) != 3 || cores < 0 || gpus < 0 ||
		    mem < 0 || cores > INT32_MAX || gpus > 64) {
			snprintf(L->err, sizeof L->err, "%s: foreign hold '%s': expected \"CORES GPUS MEM_MIB\"", src,
			         r->data ? r->data : "");
			return -1;
		}
		return sim_inject_foreign(s, r->t_us, r->node, (int32_t)cores, (int32_t)gpus, (int64_t)mem);
	}
	case RIN_BLIND:
		return sim_inject_blind(s, r->t_us, r->state != 0);
	case RIN_CANCEL:
		return sim_inject_cancel(s, r->t_us, idx);
	case RIN_APPROVE:
		return sim_inject_approve(s, r->t_us, (int32_t)r->job);
	case RIN_READING: {
		struct sim_reading rd;
		const char *text = r->data ? r->data : "";
		if (reading_parse(src, text, strlen(text), &rd, err, sizeof err)) {
			snprintf(L->err, sizeof L->err, "%s", err);
			return -1;
		}
		return sim_inject_reading(s, r->t_us, r->node, &rd);
	}
	default:
		return 0;
	}
}

void live_go_live(struct live *L)
{
	L->catching_up = false;
}

/* Handles every event up to time t. */
int live_advance_to(struct live *L, simtime t)
{
	while (sim_next_time(&L->s) <= t) {
		if (L->catching_up && sim_next_time(&L->s) > L->applied_us)
			live_go_live(L);
		uint64_t passes = L->s.npasses;
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (sim_step(&L->s) < 0) {
			snprintf(L->err, sizeof L->err, "%s", L->s.err);
			return -1;
		}
		if (L->s.npasses != passes && !L->catching_up) {
			/* The step's events and its pass, with the executor's queuing
			 * (its commands run after the commit, live/exec/slurm.c). */
			clock_gettime(CLOCK_MONOTONIC, &b);
			double sec = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
			for (uint64_t k = passes; k < L->s.npasses; k++)
				metrics_observe_pass(&L->mc, sec / (double)(L->s.npasses - passes));
		}
	}
	return 0;
}

static int replay_row(void *ctx, const struct rec_row *r)
{
	struct live *L = ctx;
	if (live_advance_to(L, r->after_us))
		return -1;
	if (L->catching_up && r->t_us > L->applied_us)
		live_go_live(L);
	if (live_compact(L) || live_inject(L, r))
		return -1;
	L->after_us = r->t_us;
	return 0;
}

/* ---- building ---- */

/* The engine's settings in live mode: no horizon, no speed model or
 * environment events, the scenario's health checks (failures come from
 * readings and the executor); sim_live_init below does the rest. */
static void live_tune(void *ctx, struct sim_cfg *c)
{
	struct live *L = ctx;
	c->horizon_us = SIMTIME_INF;
	c->speed_model = false;
	c->env = NULL;
	c->nenv = 0;
	c->fault = &L->sc.fault;
}

static int build(struct live *L, const char *scn_text, char *err, size_t errlen)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", L->cfg.scenario);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof dir, ".");
	if (scenario_load_text(scn_text, L->cfg.scenario, dir, &L->sc, err, errlen))
		return -1;
	L->have_sc = true;
	struct scenario *sc = &L->sc;
	if (sc->from_trace || sc->from_inventory) {
		snprintf(err, errlen, "%s: live mode needs a cluster given by \"racks\" (not sized from a trace or an inventory)",
		         sc->file);
		return -1;
	}
	/* Failures are observed live, never drawn: only the health thresholds
	 * and the node events of the scenario apply. */
	for (int k = 0; k < FAULT_NKIND; k++)
		sc->fault.proc[k].dist = FDIST_NONE;
	if (!sc->fault.health.enabled) {
		sc->fault.health.enabled = true;
		sc->fault.health.min_gpu_speed = 0.5;
	}
	/* The same assembly as a run's (config/runasm.h), without a workload
	 * or a results file: the decision log's hooks go in below. */
	const char *pname = L->o.policy && L->o.policy[0] ? L->o.policy : L->cfg.policy[0] ? L->cfg.policy : NULL;
	struct run_opts o = { .policy = pname, .max_jobs = L->cfg.max_jobs, .sim = &L->s,
	                      .tune = live_tune, .tune_ctx = L };
	if (run_assemble(&L->run, sc, &o, err, errlen))
		return -1;
	/* Then the engine's live seam (sim/live.h): what the world does comes
	 * in as injected events, and how the executor behaves. */
	struct sim_live_cfg lcfg = {
		.async_start = (L->xo->flags & EXEC_ASYNC_START) != 0,
		.exec_fates = (L->xo->flags & EXEC_OWN_FATES) != 0,
		.hot_c = L->cfg.hot_c,
		.cool_c = L->cfg.cool_c,
		.xid_repair_s = L->cfg.xid_repair_s,
	};
	if (sim_live_init(&L->s, &lcfg)) {
		snprintf(err, errlen, "out of memory setting up the engine");
		return -1;
	}
	int32_t nnodes = L->run.nnodes;
	sim_set_executor(&L->s, &live_exec_ops, L);
	L->jx = calloc((size_t)L->cfg.max_jobs + 1, sizeof *L->jx);
	L->jdirty = calloc((size_t)L->cfg.max_jobs + 1, 1);
	L->lrd = calloc((size_t)nnodes + 1, sizeof *L->lrd);
	L->rec_at = malloc(((size_t)nnodes + 1) * sizeof *L->rec_at);
	if (!L->jx || !L->jdirty || !L->lrd || !L->rec_at) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int32_t i = 0; i < nnodes; i++) {
		L->rec_at[i] = -1;
		L->lrd[i] = (struct live_reading){ .power_w = NAN, .temp_c = NAN, .util = NAN };
	}
	workload_init(&L->w);
	install_hooks(L);
	return 0;
}

char *live_read_file(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	char tmp[65536];
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) {
		if (len + n + 1 > cap) {
			cap = (len + n + 1) * 2;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				snprintf(err, errlen, "%s: out of memory", path);
				return NULL;
			}
			buf = nb;
		}
		memcpy(buf + len, tmp, n);
		len += n;
	}
	fclose(f);
	if (!buf && !(buf = calloc(1, 1)))
		return NULL;
	buf[len] = 0;
	return buf;
}

/* A state's unique id: 16 hex digits from the kernel's random source. It
 * names the state's jobs in Slurm, so that two states never mistake each
 * other's jobs for their own. */
static int new_state_id(char out[17], char *err, size_t errlen)
{
	unsigned char b[8];
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, b, sizeof b) : -1;
	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof b) {
		snprintf(err, errlen, "/dev/urandom: cannot read a state id");
		return -1;
	}
	for (int k = 0; k < 8; k++)
		snprintf(out + 2 * k, 3, "%02x", b[k]);
	return 0;
}

/* Creates the state's meta on first use; afterwards checks that the
 * scenario and the policy are the ones the recording was made with. */
static char *bind_state(struct live *L, char *err, size_t errlen)
{
	char *stored = lstate_meta_dup(&L->st, "scenario");
	char pol[64] = "", ex[32] = "";
	const char *want_pol = L->o.policy && L->o.policy[0] ? L->o.policy : L->cfg.policy;
	if (stored) {
		lstate_meta_get(&L->st, "policy", pol, sizeof pol);
		lstate_meta_get(&L->st, "executor", ex, sizeof ex);
		if (L->mode == LIVE_DAEMON) {
			char *now = live_read_file(L->cfg.scenario, err, errlen);
			if (!now) {
				free(stored);
				return NULL;
			}
			bool same = strcmp(now, stored) == 0;
			free(now);
			if (!same) {
				snprintf(err, errlen, "%s: the scenario changed since this state was made (%s): the recording "
				         "would not replay; start a new state_dir (keep the old one for its audit trail)",
				         L->cfg.scenario, L->st.path);
				free(stored);
				return NULL;
			}
			/* (A state made with none given runs its scenario's $.policy.) */
			if (want_pol && want_pol[0] && strcmp(want_pol, pol) != 0) {
				snprintf(err, errlen, "%s: this state was made with %s%s%s, not '%s'; start a new state_dir",
				         L->st.path, pol[0] ? "policy '" : "its scenario's policy ($.policy)", pol,
				         pol[0] ? "'" : "", want_pol);
				free(stored);
				return NULL;
			}
			/* Its executor decided how starts and node failures replay
			 * (its flags) and holds its jobs: another would replay other
			 * decisions and lose them. */
			if (ex[0] && strcmp(ex, exec_name(L->xo)) != 0) {
				snprintf(err, errlen, "%s: this state was made with executor '%s', not '%s'; start a new "
				         "state_dir (keep the old one for its audit trail)", L->st.path, ex, exec_name(L->xo));
				free(stored);
				return NULL;
			}
		}
		if (pol[0])
			snprintf(L->cfg.policy, sizeof L->cfg.policy, "%s", pol);
		char e[32] = "";
		lstate_meta_get(&L->st, "epoch_unix_us", e, sizeof e);
		L->epoch_unix_us = strtoll(e, NULL, 10);
		/* The engine resumes at the wall clock's time since its epoch (the
		 * first tick), past every line the last run logged: the log's
		 * engine time starts there, not at 0. */
		char a[32] = "";
		lstate_meta_get(&L->st, "applied_us", a, sizeof a);
		L->log_us = live_unix_us() - L->epoch_unix_us;
		if (a[0] && strtoll(a, NULL, 10) > L->log_us)
			L->log_us = strtoll(a, NULL, 10);
		lstate_meta_get(&L->st, "state_id", L->state_id, sizeof L->state_id);
		if (!L->state_id[0] && L->mode == LIVE_DAEMON) {
			/* A state made before states had ids gets one. */
			if (new_state_id(L->state_id, err, errlen) ||
			    lstate_meta_set(&L->st, "state_id", L->state_id, err, errlen)) {
				free(stored);
				return NULL;
			}
		}
		return stored;
	}
	if (L->mode != LIVE_DAEMON) {
		snprintf(err, errlen, "%s: no recording in this state", L->st.path);
		return NULL;
	}
	char *text = live_read_file(L->cfg.scenario, err, errlen);
	if (!text)
		return NULL;
	L->epoch_unix_us = live_unix_us();
	char e[32];
	snprintf(e, sizeof e, "%lld", (long long)L->epoch_unix_us);
	char *cfgtext = live_read_file(L->cfg.file, err, errlen);
	if (!cfgtext || new_state_id(L->state_id, err, errlen) || lstate_begin(&L->st, err, errlen) ||
	    lstate_meta_set(&L->st, "state_id", L->state_id, err, errlen) ||
	    lstate_meta_set(&L->st, "version", LIVE_VERSION, err, errlen) ||
	    lstate_meta_set(&L->st, "epoch_unix_us", e, err, errlen) ||
	    lstate_meta_set(&L->st, "scenario", text, err, errlen) ||
	    lstate_meta_set(&L->st, "scenario_path", L->cfg.scenario, err, errlen) ||
	    lstate_meta_set(&L->st, "config", cfgtext, err, errlen) ||
	    lstate_meta_set(&L->st, "config_path", L->cfg.file, err, errlen) ||
	    lstate_meta_set(&L->st, "policy", want_pol && want_pol[0] ? want_pol : "", err, errlen) ||
	    lstate_meta_set(&L->st, "executor", L->xo->name, err, errlen) ||
	    lstate_meta_set(&L->st, "applied_us", "-1", err, errlen) ||
	    lstate_commit(&L->st, err, errlen)) {
		free(cfgtext);
		free(text);
		return NULL;
	}
	free(cfgtext);
	return text;
}

/* One daemon per state: a second one would start the same jobs again. */
static int take_lock(struct live *L, char *err, size_t errlen)
{
	char path[4200];
	/* Owned and private, the lock never followed through a link (a link
	 * planted there would have us truncate the file it names). */
	if (lsdir_prepare(L->cfg.state_dir, L->cfg.state_group, err, errlen))
		return -1;
	snprintf(path, sizeof path, "%s/daemon.lock", L->cfg.state_dir);
	int fd = lsdir_open(L->cfg.state_dir, "daemon.lock", O_RDWR | O_CREAT, err, errlen);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		char pid[32] = "?";
		ssize_t n = pread(fd, pid, sizeof pid - 1, 0);
		pid[n > 0 ? n : 0] = 0;
		pid[strcspn(pid, "\n")] = 0;
		snprintf(err, errlen, "%s: another hetlab live (pid %s) runs on this state; stop it first", path,
		         pid[0] ? pid : "?");
		close(fd);
		return -1;
	}
	char pid[32];
	int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
		/* the pid is for the message only */
	}
	L->lock_fd = fd;
	/* The database the daemon is about to open, as the lock. */
	static const char *const files[] = { "state.db", "state.db-wal", "state.db-shm", "results.db", NULL };
	for (int k = 0; files[k]; k++)
		if (lsdir_check_file(L->cfg.state_dir, files[k], err, errlen))
			return -1;
	return 0;
}

/* Clients reach the daemon through its socket from now on. */
static int start_socket(struct live *L, const char *scn, char *err, size_t errlen)
{
	char path[PATH_MAX];
	if (live_socket_path(&L->cfg, path, sizeof path)) {
		/* (A configured one that long is refused by the config.) Only
		 * the state's owner can queue then, into the state itself. */
		live_logl(L, LIVE_WARN, "no socket: %s/hetlab.sock is longer than a socket path may be (107 bytes); give "
		          "\"socket\" in %s for clients to reach the daemon", L->cfg.state_dir, L->cfg.file);
		return 0;
	}
	struct lsock_cfg c = { .path = path, .state_dir = L->cfg.state_dir, .operators = L->cfg.operators,
	                       .scenario_text = scn, .scenario_file = L->cfg.scenario, .epoch_unix_us = L->epoch_unix_us,
	                       .quiet = L->o.quiet, .max_pending = L->cfg.max_pending_per_user };
	if (lsock_start(&L->sock, &c, err, errlen))
		return -1;
	live_log(L, "listening on %s", path);
	return 0;
}

/* The key that authenticates the audit head of the state's results
 * (LIVE.json "audit_key", relative to the config's directory): NULL when
 * there is none (*bad false) or it cannot be used (*bad true, err says
 * why: unreadable, not a key, a secret others may read). */
static struct audit_key *results_key(const struct live_cfg *c, bool *bad, char *err, size_t errlen)
{
	*bad = false;
	if (!c->audit_key[0])
		return NULL;
	char p[2 * PATH_MAX + 2], d[PATH_MAX];
	snprintf(d, sizeof d, "%s", c->file);
	if (c->audit_key[0] == '/')
		snprintf(p, sizeof p, "%s", c->audit_key);
	else
		snprintf(p, sizeof p, "%s/%s", dirname(d), c->audit_key);
	char why[1024];
	struct audit_key *k = audit_key_load(p, false, why, sizeof why);
	if (!k) {
		snprintf(err, errlen, "%s: $.audit_key: %s", c->file, why);
		*bad = true;
	}
	return k;
}

int live_open(struct live **out, const struct live_cfg *cfg, const struct live_opts *o, enum live_mode mode,
              char *err, size_t errlen)
{
	struct live *L = calloc(1, sizeof *L);
	*out = NULL;
	if (!L) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	L->cfg = *cfg;
	if (o)
		L->o = *o;
	L->mode = mode;
	L->healthy = true;
	L->lock_fd = -1;
	L->kept_now = -1;
	/* The config's executor (checked by its loader), or --executor's. */
	const char *xname = L->o.executor && L->o.executor[0] ? L->o.executor : L->cfg.exec;
	if (!(L->xo = exec_find(xname))) {
		char names[256];
		exec_names(names, sizeof names, "");
		snprintf(err, errlen, "--executor: expected %s, got '%s'", names, xname);
		goto fail;
	}
	snprintf(L->cfg.exec, sizeof L->cfg.exec, "%s", L->xo->name);
	if (mode == LIVE_DAEMON) {
		/* A key its results cannot be keyed with stops the daemon now,
		 * not at its first results.db. */
		bool bad;
		audit_key_free(results_key(&L->cfg, &bad, err, errlen));
		if (bad)
			goto fail;
	}
	if (mode == LIVE_DAEMON && take_lock(L, err, errlen))
		goto fail;
	if ((mode == LIVE_DAEMON ? lstate_open(&L->st, L->cfg.state_dir, err, errlen)
	                         : lstate_open_ro(&L->st, L->cfg.state_dir, err, errlen)))
		goto fail;
	L->have_st = true;
	char *scn = bind_state(L, err, errlen);
	if (!scn)
		goto fail;
	if (mode != LIVE_DAEMON) {
		/* A replay uses what the recording was made with. */
		char p[4096] = "";
		lstate_meta_get(&L->st, "scenario_path", p, sizeof p);
		if (p[0])
			snprintf(L->cfg.scenario, sizeof L->cfg.scenario, "%s", p);
	}
	int rc = build(L, scn, err, errlen);
	if (rc == 0)
		lsnap_fingerprint(L, scn, LIVE_VERSION);
	if (rc == 0 && mode == LIVE_DAEMON)
		rc = L->xo->init(L, err, errlen) || start_socket(L, scn, err, errlen) ? -1 : 0;
	free(scn);
	if (rc)
		goto fail;
	*out = L;
	return 0;
fail:
	live_close(L);
	return -1;
}

/* Replays the recording into L's engine: up to the last committed time
 * with the executor off, then what the crash interrupted with it on. */
int live_catch_up(struct live *L, char *err, size_t errlen)
{
	char a[32] = "";
	lstate_meta_get(&L->st, "applied_us", a, sizeof a);
	L->applied_us = a[0] ? strtoll(a, NULL, 10) : -1;
	L->catching_up = true;
	L->after_us = 0;
	L->err[0] = 0;
	/* From the latest snapshot, when there is one that loads: only the
	 * recording after it is replayed. */
	int64_t from = 0;
	if (lsnap_restore(L, &from, err, errlen))
		return -1;
	if (lstate_rec_each(&L->st, from, replay_row, L, err, errlen)) {
		if (L->err[0])
			snprintf(err, errlen, "replaying the recording: %s", L->err);
		return -1;
	}
	if (live_advance_to(L, L->applied_us)) {
		snprintf(err, errlen, "replaying the recording: %s", L->err);
		return -1;
	}
	return 0;
}

void live_close(struct live *L)
{
	if (!L)
		return;
	if (L->ms)
		metrics_stop(L->ms);
	lsock_stop(L->sock);
	if (L->xctx && L->xo && L->xo->fini)
		L->xo->fini(L);
	run_free(&L->run);   /* the policy, the health monitor, the engine */
	if (L->have_sc)
		scenario_free(&L->sc);
	if (L->have_st)
		lstate_close(&L->st);
	if (L->lock_fd >= 0)
		close(L->lock_fd);
	for (int32_t i = 0; L->jx && i < L->cfg.max_jobs; i++)
		if (L->jx[i].argv || L->jx[i].env || L->jx[i].cwd || L->jx[i].name || L->jx[i].cpus)
			jobx_free(&L->jx[i]);
	for (int32_t i = 0; i < L->ndec; i++)
		free(L->dec[i].detail);
	for (int64_t i = 0; i < L->nrdec; i++)
		free(L->rdec[i]);
	nvml_session_close(L->nvs);
	free(L->gpus);
	free(L->host_prev);
	free(L->host_cur);
	free(L->rdec);
	free(L->dec);
	free(L->jx);
	free(L->jdirty);
	free(L->cmap);
	free(L->lrd);
	free(L->rec_at);
	free(L->refused);
	free(L->selmap);
	free(L->mbuf);
	workload_free(&L->w);
	free(L);
}

/* ---- replays ---- */

/* With compact and an executor that lets ended jobs go, the replay drops
 * them as the daemon did, within the daemon's max_jobs (the results name
 * jobs by number, and keep a copy of a row held back); otherwise every
 * job stays, the table as large as the history. */
static int open_replay(const char *dir, live_cfg_loader load, bool compact, struct live **out, char *err,
                       size_t errlen)
{
	struct lstate st;
	if (lstate_open_ro(&st, dir, err, errlen))
		return -1;
	char *cfgtext = lstate_meta_dup(&st, "config");
	char cpath[4096] = "";
	lstate_meta_get(&st, "config_path", cpath, sizeof cpath);
	int64_t nsubmits = lstate_count_submits(&st);
	lstate_close(&st);
	if (!cfgtext) {
		snprintf(err, errlen, "%s/state.db: no config recorded: not a live state", dir);
		return -1;
	}
	/* The config as recorded, parsed from a private copy: a new file
	 * (mkstemp: 0600, O_EXCL, so never a link someone planted). */
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s/.replay-config-XXXXXX.json", dir);
	int fd = mkstemps(tmp, 5);
	if (fd < 0) {
		/* A read-only state directory: the system temp dir then. */
		const char *td = getenv("TMPDIR");
		snprintf(tmp, sizeof tmp, "%s/hetlab-replay-config-XXXXXX.json", td && td[0] ? td : "/tmp");
		fd = mkstemps(tmp, 5);
	}
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(cfgtext);
		return -1;
	}
	fputs(cfgtext, f);
	fclose(f);
	free(cfgtext);
	struct live_cfg cfg;
	int rc = load(tmp, &cfg, err, errlen);
	unlink(tmp);
	if (rc)
		return -1;
	snprintf(cfg.file, sizeof cfg.file, "%s", cpath);
	snprintf(cfg.state_dir, sizeof cfg.state_dir, "%s", dir);
	const struct live_executor *xo = exec_find(cfg.exec);
	compact = compact && xo && (xo->flags & EXEC_COMPACT) && cfg.keep_ended > 0;
	/* Every job in the engine at once: the table as large as the history. */
	if (!compact && nsubmits >= cfg.max_jobs)
		cfg.max_jobs = (int32_t)(nsubmits + 1);
	struct live_opts o = { .quiet = true, .metrics_port = -1, .load_cfg = load };
	if (live_open(out, &cfg, &o, LIVE_REPLAY, err, errlen))
		return -1;
	(*out)->replay_compact = compact;
	return 0;
}

struct xexp {
	char *sql;
	size_t len, cap;
	int n, rc;
};

static int xref_export_row(void *ctx, const struct lstate_xref *r)
{
	struct xexp *e = ctx;
	char row[96];
	int k = snprintf(row, sizeof row, "%s(%lld, %lld, %d)", e->n++ ? "," : "", (long long)r->job,
	                 (long long)r->sid, (int)r->attempt);
	if (e->len + (size_t)k + 2 > e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 4096;
		while (cap < e->len + (size_t)k + 2)
			cap *= 2;
		char *n = realloc(e->sql, cap);
		if (!n)
			return e->rc = -1;
		e->sql = n;
		e->cap = cap;
	}
	memcpy(e->sql + e->len, row, (size_t)k + 1);
	e->len += (size_t)k;
	return 0;
}

/* Table slurm_job of the results: every Slurm job each job used, with the
 * attempt it first ran as (a resumption after a requeue is the same Slurm
 * job; one submitted anew is another row), written in the run's
 * transaction so that the audit seals it. */
static int export_slurm_ids(struct lstate *st, struct recorder *rec, char *err, size_t errlen)
{
	static const char head[] = "CREATE TABLE slurm_job(job INTEGER NOT NULL, slurm_id INTEGER NOT NULL,"
	                           " first_attempt INTEGER NOT NULL, PRIMARY KEY(job, slurm_id));"
	                           " INSERT INTO slurm_job VALUES";
	struct xexp e = { .sql = strdup(head), .len = sizeof head - 1, .cap = sizeof head };
	if (!e.sql) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	char e2[512] = "";
	int rc = lstate_xref_each(st, xref_export_row, &e, e2, sizeof e2);
	if (rc && strstr(e2, "no such table"))
		rc = 0;   /* a state made before the table: no ids kept */
	if (rc == 0 && e.rc == 0) {
		if (e.n == 0)   /* no row: the table alone */
			e.sql[e.len - strlen(" INSERT INTO slurm_job VALUES")] = 0;
		rc = recorder_exec(rec, e.sql, "writing the Slurm job ids");
		if (rc)
			snprintf(err, errlen, "%s", recorder_error(rec));
	} else {
		snprintf(err, errlen, "writing the Slurm job ids: %s", rc ? e2 : "out of memory");
		rc = -1;
	}
	free(e.sql);
	return rc;
}

int live_results(const char *dir, const char *path, live_cfg_loader load, char *err, size_t errlen)
{
	struct live *L;
	if (open_replay(dir, load, true, &L, err, errlen))
		return -1;
	bool bad;
	struct audit_key *key = results_key(&L->cfg, &bad, err, errlen);
	struct recorder_opts ro = { .level = RECORD_DEFAULT, .key = key };
	struct recorder *rec = bad ? NULL : recorder_open_with(path, &ro, err, errlen);
	if (!rec) {
		audit_key_free(key);
		live_close(L);
		return -1;
	}
	recorder_attach(rec, &L->s);
	if (L->replay_compact)
		recorder_copy_held(rec);   /* a held row's job may have left the engine's tables */
	recorder_set_billing(rec, L->sc.billing_json);
	L->fwd = L->s.rec;
	install_hooks(L);
	int rc = live_catch_up(L, err, errlen);
	if (rc == 0 && (L->xo->flags & EXEC_EXPORT_IDS))
		rc = export_slurm_ids(&L->st, rec, err, errlen);
	if (rc == 0) {
		char pol[96];
		snprintf(pol, sizeof pol, "%s", L->run.pol.ops->name);
		struct run_info ri = {
			.scenario = L->sc.name, .policy = pol, .version = "live", .trace = "live recording",
			.seed = L->sc.seed, .nnodes = L->s.cl.nnodes, .total_cores = L->s.cl.total_cores,
			.total_gpus = L->s.cl.total_gpus, .placement = L->sc.place.strategy[0] ? L->sc.place.strategy : "first-fit",
		};
		rc = recorder_finish(rec, &ri, 0, L->s.nevents, L->s.npasses, err, errlen);
		rec = NULL;
	}
	if (rec)
		recorder_abort(rec);
	audit_key_free(key);
	live_close(L);
	return rc;
}

int live_replay(const char *dir, live_cfg_loader load, bool from_snapshot, const char *snapshot_file, FILE *out,
                bool *same, long *ndecisions, char *err, size_t errlen)
{
	struct live *L;
	*same = false;
	if (open_replay(dir, load, true, &L, err, errlen))
		return -1;
	L->o.from_snapshot = from_snapshot || snapshot_file;
	L->o.snapshot_file = snapshot_file;
	from_snapshot = L->o.from_snapshot;
	int rc = live_catch_up(L, err, errlen);
	char **logged = NULL;
	int64_t nlogged = 0;
	if (rc == 0)
		rc = lstate_decisions(&L->st, L->applied_us, &logged, &nlogged, err, errlen);
	if (rc == 0 && from_snapshot) {
		/* The log after the snapshot's time: what the replay decides. */
		int64_t k = 0;
		while (k < nlogged && strtoll(logged[k], NULL, 10) <= L->snap_now)
			free(logged[k++]);
		memmove(logged, logged + k, (size_t)(nlogged - k) * sizeof *logged);
		nlogged -= k;
		fprintf(out, "(from the snapshot at the recording's row %lld, engine time %.6f s)\n", (long long)L->snap_seq,
		        (double)L->snap_now / 1e6);
	}
	if (rc == 0) {
		/* The replay's decisions up to the same time. */
		int64_t nr = 0;
		while (nr < L->nrdec && strtoll(L->rdec[nr], NULL, 10) <= L->applied_us)
			nr++;
		int64_t diffs = 0;
		int64_t n = nr > nlogged ? nr : nlogged;
		fprintf(out, "--- live decision log (%s/state.db, %lld decisions)\n+++ replay of the recording (%lld decisions)\n",
		        dir, (long long)nlogged, (long long)nr);
		for (int64_t k = 0; k < n; k++) {
			const char *a = k < nlogged ? logged[k] : NULL, *b = k < nr ? L->rdec[k] : NULL;
			if (a && b && strcmp(a, b) == 0)
				continue;
			if (diffs++ < 200) {
				fprintf(out, "@@ decision %lld @@\n", (long long)k + 1);
				if (a)
					fprintf(out, "-%s\n", a);
				if (b)
					fprintf(out, "+%s\n", b);
			}
		}
		*same = diffs == 0;
		if (ndecisions)
			*ndecisions = (long)nlogged;
	}
	for (int64_t k = 0; k < nlogged; k++)
		free(logged[k]);
	free(logged);
	live_close(L);
	return rc;
}

