/* slurm — the Slurm executor as the daemon drives it (sx_executor,
 * registered as "slurm"; the contract is live/exec/executor.h; docs/slurm.md).
 * Slurm is the source of truth: nothing the engine decides is taken as
 * done until Slurm shows it.
 *
 * Decisions are queued during the engine's step (start, signal, stop,
 * drain) and carried out by flush once the step is committed, many
 * commands at a time (live/exec/slurm_run.c): signals, kills, requeues and
 * drains first, then the starts. A start submits a new Slurm job on
 * exactly the chosen nodes (sbatch --nodelist), or places and releases
 * the job's own held Slurm job when it has one from an earlier attempt
 * whose restart count lines up (so that sacct shows a preempted run as
 * REQUEUED of the same job). Its Slurm id goes into the state (xref) as
 * soon as sbatch answers.
 *
 * Every tick, observe (live/exec/slurm_sync.c) reads Slurm back and turns what
 * it sees into recorded inputs of the engine.
 * Slurm jobs of this state that the engine no longer runs are held (when
 * the engine may run the job again) or cancelled. After a restart every
 * running job is found by its Slurm id from the state, else by its name
 * and comment (a crash between sbatch and the xref write). */
#include "live/exec/slurm_glue.h"
#include "live/statedir.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The state's xref rows, read before the recording is replayed (the
 * engine holds no job yet): keyed by state id. Only a job whose last row
 * is open is kept (its Slurm job to read back, whether or not the engine
 * still holds the job once replayed); a closed one needs nothing (the jobs
 * table keeps its ref, recover_by_name asks the state for its last Slurm
 * id), so that a restart's memory does not grow with the state's history. */
static int xref_row(void *ctx, const struct lstate_xref *r)
{
	struct live *L = ctx;
	struct sx_exec *x = L->xctx;
	if (r->job < 0)
		return 0;
	if (r->replaced)   /* its cancel may have been cut short: again */
		sx_add_act(x, SX_ACT_CANCEL_SID, r->job, -1, r->sid, NULL);
	/* Rows come in the order they were written (a job's together): the
	 * last is the current one. */
	if (!r->open) {
		sx_track_drop(x, r->job);
		return 0;
	}
	struct sx_jobtrack *sj = sx_track_get(x, r->job);
	if (!sj)
		return -1;
	sj->sid = r->sid;
	sj->base = r->attempt;
	sj->open = true;
	sj->killed_at = sx_wall();   /* requeued while the daemon was down? Not known when. */
	snprintf(sj->shape, sizeof sj->shape, "%s", r->shape);
	return 0;
}

static void check_config(struct live *L)
{
	struct sx_exec *x = L->xctx;
	char err[600];
	if (sx_read_config(&x->c, &x->conf, err, sizeof err)) {
		live_log(L, "reading Slurm's configuration: %s (the checklist of docs/slurm.md is not checked)", err);
		return;
	}
	x->have_conf = true;
	const struct sx_config *k = &x->conf;
	live_log(L, "Slurm %s: SelectTypeParameters=%s, ReturnToService=%d, MinJobAge=%d s, accounting %s",
	         k->version[0] ? k->version : "?", k->select_params, k->return_to_service, k->min_job_age_s,
	         k->accounting ? "on (slurmdbd)" : "off");
	if (k->memory && !x->cfg->mem_mib_default)
		live_log(L, "warning: Slurm schedules memory (%s): jobs that give no memory get DefMemPerNode (often a "
		         "whole node); set slurm.mem_mib_default or give each job req.mem_mib", k->select_params);
	if (!k->accounting)
		live_log(L, "warning: no slurmdbd accounting: a job slurmctld forgets (MinJobAge %d s) while the daemon "
		         "is down cannot be read back, and ends as lost", k->min_job_age_s);
	if (k->job_requeue == 0)
		live_log(L, "warning: JobRequeue=0: hetlab submits with --requeue, which preemption needs");
	if (k->preempt_mode[0] && strcasecmp(k->preempt_mode, "OFF") != 0)
		live_log(L, "warning: PreemptMode=%s: Slurm may preempt hetlab's jobs itself; set PreemptMode=OFF on "
		         "hetlab's partitions", k->preempt_mode);
	if (k->sched_defer)
		live_log(L, "warning: SchedulerParameters has defer: a placed job waits for Slurm's next scheduling cycle");
	if (k->min_job_age_s >= 0 && k->min_job_age_s < 60)
		live_log(L, "warning: MinJobAge=%d s: finished jobs vanish from squeue quickly; hetlab then asks sacct",
		         k->min_job_age_s);
}

static int slurm_init(struct live *L, char *err, size_t errlen)
{
	struct sx_exec *x = calloc(1, sizeof *x);
	int32_t nn = L->s.cl.nnodes;
	if (!x || !(x->nidx = malloc(((size_t)nn + 1) * sizeof *x->nidx)) ||
	    !(x->fhold = calloc((size_t)nn + 1, sizeof *x->fhold))) {
		if (x)
			free(x->nidx);
		free(x);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	x->cfg = &L->cfg.slurm;
	for (int32_t i = 0; i < nn; i++)
		x->nidx[i] = -1;
	snprintf(x->c.bindir, sizeof x->c.bindir, "%s", x->cfg->bindir);
	snprintf(x->c.partition, sizeof x->c.partition, "%s", x->cfg->npartition == 1 ? x->cfg->partition[0] : "");
	if (x->cfg->workdir[0])
		snprintf(x->c.workdir, sizeof x->c.workdir, "%s", x->cfg->workdir);
	else
		snprintf(x->c.workdir, sizeof x->c.workdir, "%s/slurm", L->cfg.state_dir);
	x->c.timeout_s = x->cfg->timeout_s;
	x->c.export_env = x->cfg->export_env == LIVE_SLURM_EXPORT_LOGIN ? SX_EXPORT_LOGIN : SX_EXPORT_MINIMAL;
	const char *conf = getenv("SLURM_CONF");
	if (conf)
		snprintf(x->c.slurm_conf, sizeof x->c.slurm_conf, "%s", conf);
	if (x->cfg->workdir[0] ? mkdir(x->c.workdir, 0700) < 0 && errno != EEXIST
	                       : lsdir_subdir(L->cfg.state_dir, "slurm", err, errlen) < 0) {
		if (x->cfg->workdir[0])
			snprintf(err, errlen, "%s: %s", x->c.workdir, strerror(errno));
		goto fail;
	}
	L->xctx = x;
	err[0] = 0;
	if (lstate_xref_each(&L->st, xref_row, L, err, errlen)) {
		if (!err[0])
			snprintf(err, errlen, "out of memory reading the Slurm job ids");
		goto fail;
	}
	check_config(L);
	return 0;
fail:
	sx_track_free(x);
	free(x->acts);
	free(x->nidx);
	free(x->fhold);
	free(x);
	L->xctx = NULL;
	return -1;
}

/* A job the engine runs after a restart: its Slurm job from the state;
 * without one, the start may have been cut short before its id was
 * written: found by name at the next flush, else submitted. */
static void slurm_adopt(struct live *L, int32_t id)
{
	struct sx_exec *x = L->xctx;
	struct sx_jobtrack *sj = sx_tj(L, id);
	const struct job *j = &L->s.jobs[id];
	int att = (int)j->restarts;
	sj->attempt = att;
	sj->placed_at = sx_wall();
	if (sj->sid > 0 && sj->open && att - sj->base >= 0) {
		sj->phase = L->s.live->run[id].confirmed ? SX_PH_RUNNING : SX_PH_PLACED;
		sj->place_due = sj->phase == SX_PH_PLACED;
		sx_set_ref(L, id, sj->sid);
	} else {
		sj->phase = SX_PH_WANT;
		sj->recover = true;
		sj->retry_at = 0;
		sx_want_push(x, sj->key);
	}
}

static int slurm_start(struct live *L, int32_t id, char *err, size_t errlen)
{
	struct sx_exec *x = L->xctx;
	struct sx_jobtrack *sj = sx_track_get(x, live_sid(L, id));
	if (!L->jx[id].argv) {
		snprintf(err, errlen, "job %lld has no argv to run", (long long)live_sid(L, id));
		return -1;
	}
	if (!sj || sx_want_push(x, sj->key)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sj->phase = SX_PH_WANT;
	sj->attempt = (int32_t)L->s.jobs[id].restarts;
	sj->retry_at = 0;
	return 0;
}

static int slurm_signal(struct live *L, int32_t id)
{
	struct sx_jobtrack *sj = sx_tj(L, id);
	return sx_add_act(L->xctx, SX_ACT_SIGNAL, sj->key, -1, sj->sid, NULL);
}

static int slurm_stop(struct live *L, int32_t id, enum exec_stop how)
{
	struct sx_exec *x = L->xctx;
	struct sx_jobtrack *sj = sx_tj(L, id);
	/* What this tick's squeue saw of its Slurm job. */
	const struct sx_jobinfo *ji = sj->sid > 0 && sj->open ? sx_snap_find(x, sj->sid) : NULL;
	if (how == EXEC_STOP_KILL) {
		/* The engine ends the job when Slurm says it has ended (observe). */
		if (sj->phase == SX_PH_WANT || sj->sid <= 0 || !sj->open) {
			sj->phase = SX_PH_IDLE;
			sx_later_end(L, id, JOB_KILLED, END_CANCELLED, "stopped before it was submitted to Slurm");
			return 0;
		}
		if (ji && sx_state_final(ji->st))
			return 0;
		return sx_add_act(x, SX_ACT_KILL, sj->key, -1, sj->sid, NULL);
	}
	if (sj->phase == SX_PH_WANT) {
		sj->phase = SX_PH_IDLE;   /* never submitted for this attempt: nothing to stop */
		return 0;
	}
	if (sj->sid <= 0 || !sj->open)
		return 0;
	sj->phase = SX_PH_IDLE;
	/* A job already requeued held (by its own wrapper after the checkpoint)
	 * needs no requeue; an ended one nothing. */
	if (ji && sx_state_final(ji->st))
		return 0;
	if (ji && (ji->st == SX_HELD || ji->st == SX_REQUEUED))
		return 0;
	if (ji && ji->st == SX_PENDING)
		return sx_add_act(x, SX_ACT_HOLD, sj->key, -1, sj->sid, NULL);   /* never ran: kept held for the next attempt */
	return sx_add_act(x, SX_ACT_REQUEUE, sj->key, -1, sj->sid, NULL);
}

static int slurm_node_state(struct live *L, int32_t node, bool drain, const char *reason)
{
	struct sx_exec *x = L->xctx;
	char r[200];
	snprintf(r, sizeof r, "hetlab: %s", reason && reason[0] ? reason : "drained by its health monitor");
	return sx_add_act(x, drain ? SX_ACT_DRAIN : SX_ACT_RESUME, -1, node, -1, drain ? r : NULL);
}

struct start {
	int32_t id;
	int kind;                 /* 0 submit, 1 place (update + release), 2 wait */
	struct sx_shape sh;
	struct sx_cmd cmd, rel;
	const char *nodes[256];
	int nnodes;
};

/* Looks for Slurm jobs a crash kept us from recording, by name (and
 * comment: this state's, this job's). */
static void recover_by_name(struct live *L)
{
	struct sx_exec *x = L->xctx;
	int n = 0;
	for (int k = 0; k < x->nwant; k++) {
		const struct sx_jobtrack *sj = sx_track_find(x, x->want[k]);
		n += sj && sj->recover;
	}
	if (!n)
		return;
	char (*names)[96] = calloc((size_t)n, sizeof *names);
	const char **pn = calloc((size_t)n, sizeof *pn);
	int m = 0;
	for (int k = 0; names && pn && k < x->nwant; k++) {
		const struct sx_jobtrack *sj = sx_track_find(x, x->want[k]);
		if (!sj || !sj->recover)
			continue;
		sx_job_name(L->state_id, x->want[k], names[m], sizeof names[m]);   /* the state id, as submitted */
		pn[m] = names[m];
		m++;
	}
	struct sx_jobinfo *v = NULL;
	int nv = 0;
	char err[600];
	if (m && sx_jobs_by_name(&x->c, pn, m, &v, &nv, err, sizeof err))
		live_log(L, "looking for this state's Slurm jobs by name: %s", err);
	for (int i = 0; i < nv; i++) {
		const struct sx_jobinfo *ji = &v[i];
		if (strcmp(ji->state_id, L->state_id) != 0 || ji->key < 0)
			continue;
		int32_t at = live_index(L, ji->key);
		struct sx_jobtrack *sj = at >= 0 ? sx_track_find(x, ji->key) : NULL;
		if (!sj || !sj->recover || ji->attempt + ji->restarts != sj->attempt)
			continue;   /* not this attempt's */
		/* Newer than the job's last recorded Slurm job (closed ones are
		 * not kept in memory: the state says). */
		int64_t last = sj->sid;
		char e1[512];
		if (last <= 0 && lstate_xref_last(&L->st, ji->key, &last, e1, sizeof e1))
			live_log(L, "%s", e1);
		if (ji->id <= last)
			continue;
		sj->sid = ji->id;
		sj->base = ji->attempt;
		sj->open = true;
		char e2[512];
		if (lstate_xref_add(&L->st, ji->key, ji->attempt, ji->id, NULL, e2, sizeof e2))
			live_log(L, "%s", e2);
		sx_set_ref(L, at, ji->id);
		live_log(L, "job %" PRId64 ": adopted Slurm job %" PRId64 " (%s), found by its name and comment", ji->key,
		         ji->id, sx_state_name(ji->st));
		/* Submitted for this attempt before the crash: observe takes it from
		 * here (running, pending, or ended while we were down). */
		sj->phase = SX_PH_PLACED;
		sj->placed_at = sx_wall();
	}
	for (int k = 0; k < x->nwant; k++) {
		struct sx_jobtrack *sj = sx_track_find(x, x->want[k]);
		if (sj)
			sj->recover = false;
	}
	free(v);
	free(names);
	free(pn);
}

static void start_done(struct live *L, struct start *s)
{
	struct sx_exec *x = L->xctx;
	struct sx_jobtrack *sj = sx_tj(L, s->id);
	int64_t key = sj->key;   /* the job's state id: its xref rows, its log lines */
	char err[700];
	double now = sx_wall();
	if (s->kind == 0) {
		int64_t sid;
		if (sx_submit_result(&s->cmd, &sid, err, sizeof err) == 0) {
			sj->sid = sid;
			sj->base = sj->attempt;
			sj->open = true;
			sj->phase = SX_PH_PLACED;
			sj->placed_at = now;
			sj->place_due = false;
			snprintf(sj->shape, sizeof sj->shape, "%s", s->sh.text);
			sx_set_ref(L, s->id, sid);
			char e2[512];
			if (lstate_xref_add(&L->st, key, sj->base, sid, s->sh.text, e2, sizeof e2))
				live_log(L, "%s", e2);
			char place[1024];
			live_placement_text(L, s->id, place, sizeof place);
			live_log(L, "job %" PRId64 ": Slurm job %" PRId64 " submitted on %s (partition %s%s%s%s%s)",
			         key, sid, place,
			         s->sh.partition[0] ? s->sh.partition : "default", s->sh.account ? ", account " : "",
			         s->sh.account ? s->sh.account : "", s->sh.gres[0] ? ", gres " : "", s->sh.gres);
			return;
		}
		if (s->cmd.transient) {
			sj->retry_at = now + L->cfg.tick_s;
			L->healthy = false;
			snprintf(L->why, sizeof L->why, "slurm executor: %s", s->cmd.err);
			live_log(L, "job %" PRId64 ": %s; the start is retried", key, err);
			sx_want_push(x, key);
			return;
		}
		live_log(L, "job %" PRId64 " could not start: %s", key, err);
		sj->phase = SX_PH_IDLE;
		sx_later_end(L, s->id, JOB_FAILED, END_EXIT, err);
		return;
	}
	/* A place: the update, then the release. */
	const struct sx_cmd *bad = s->cmd.rc ? &s->cmd : s->rel.rc ? &s->rel : NULL;
	if (!bad) {
		sj->phase = SX_PH_PLACED;
		sj->placed_at = now;
		sj->place_due = false;
		sj->release_due = false;
		live_log(L, "job %" PRId64 ": Slurm job %" PRId64 " placed again and released (attempt %d)", key, sj->sid,
		         sj->attempt);
		return;
	}
	if (bad->transient) {
		sj->retry_at = now + L->cfg.tick_s;
		L->healthy = false;
		snprintf(L->why, sizeof L->why, "slurm executor: %s", bad->err);
		sx_want_push(x, key);
		return;
	}
	if (bad == &s->rel) {
		/* Placed but not released: the release is retried by observe. */
		sj->phase = SX_PH_PLACED;
		sj->placed_at = now;
		sj->place_due = false;
		sj->release_due = true;
		live_log(L, "job %" PRId64 " (Slurm %" PRId64 "): %s; retried at the next poll", key, sj->sid, bad->err);
		return;
	}
	/* The held job cannot be placed (gone, changed): a new one. */
	live_log(L, "job %" PRId64 " (Slurm %" PRId64 "): %s; submitting a new Slurm job", key, sj->sid, bad->err);
	sx_xref_replace(L, key, sj->sid);   /* marked before its cancel, as in run_starts */
	sj->open = false;
	sj->sid = -1;
	sj->retry_at = 0;
	sx_want_push(x, key);
}

static void run_starts(struct live *L)
{
	struct sx_exec *x = L->xctx;
	if (x->nwant == 0)
		return;
	recover_by_name(L);
	double now = sx_wall();
	int n = x->nwant;
	int64_t *ids = x->want;   /* state ids */
	x->want = NULL;
	x->nwant = x->capwant = 0;
	struct start *st = calloc((size_t)n, sizeof *st);
	if (!st) {
		live_log(L, "out of memory starting %d jobs", n);
		x->want = ids;
		x->nwant = x->capwant = n;
		return;
	}
	int ns = 0;
	for (int k = 0; k < n; k++) {
		int32_t id = live_index(L, ids[k]);
		if (id < 0)
			continue;   /* ended and left the engine since it was queued */
		struct sx_jobtrack *sj = sx_tj(L, id);
		int64_t key = sj->key;
		const struct job *j = &L->s.jobs[id];
		bool dup = false;
		for (int m = 0; m < ns && !dup; m++)
			dup = st[m].id == id;
		if (dup || sj->phase != SX_PH_WANT || (j->state != JOB_RUNNING && j->state != JOB_CHECKPOINTING) ||
		    (int32_t)j->restarts != sj->attempt)
			continue;   /* stopped (or started again) since it was queued */
		if (sj->retry_at > now) {
			st[ns++] = (struct start){ .id = id, .kind = 2 };   /* kept for a later flush */
			continue;
		}
		struct start *s = &st[ns];
		s->id = id;
		char why[300];
		if (sx_shape_of(L, id, &s->sh, why, sizeof why)) {
			live_log(L, "job %" PRId64 " could not start: %s", key, why);
			sj->phase = SX_PH_IDLE;
			sx_later_end(L, id, JOB_FAILED, END_EXIT, why);
			continue;
		}
		s->nnodes = sx_node_names(L, id, s->nodes, 256);
		/* Its own Slurm job, held from an earlier attempt, when its restart
		 * count lines up and its shape is the same: placed and released. */
		const struct sx_jobinfo *ji = sj->open ? sx_snap_find(x, sj->sid) : NULL;
		if (sj->open && sj->sid > 0 && ji && ji->st == SX_HELD && ji->restarts == sj->attempt - sj->base &&
		    strcmp(sj->shape, s->sh.text) == 0) {
			char err[600];
			int delay = sx_relaunch_delay(L, id);
			if (sx_place_cmd(sj->sid, s->nodes, s->nnodes, s->sh.partition[0] ? s->sh.partition : NULL, delay, &s->cmd,
			                 err, sizeof err) == 0) {
				sx_release_cmd(sj->sid, &s->rel);
				s->kind = 1;
				ns++;
				continue;
			}
		}
		if (sj->open && sj->sid > 0 && ji && !sx_state_final(ji->st) && ji->st != SX_HELD &&
		    now - sj->placed_at < 30) {
			/* Its requeue is still on its way (completing): wait. */
			sj->retry_at = now + L->cfg.tick_s;
			s->kind = 2;
			ns++;
			continue;
		}
		if (sj->open && sj->sid > 0 && (!ji || !sx_state_final(ji->st))) {
			/* Marked replaced before the cancel: a restart in between
			 * never takes the cancel for the attempt's end, and cancels
			 * the old one again. */
			sx_xref_replace(L, key, sj->sid);
			sj->open = false;
		}
		char **env = exec_job_env(L, id, NULL, true);
		const struct jobx *jx = &L->jx[id];
		struct sx_job sxj = {
			.state_id = L->state_id, .key = key, .attempt = sj->attempt,
			.argv = (const char *const *)jx->argv, .env = (const char *const *)env,
			.cwd = jx->cwd && jx->cwd[0] == '/' ? jx->cwd : NULL,
			.partition = s->sh.partition, .account = s->sh.account, .qos = s->sh.qos,
			.nodes = s->nnodes, .nodelist = s->nodes, .cpus_per_node = s->sh.cpn,
			.mem_mib_per_node = s->sh.mem, .gres = s->sh.gres[0] ? s->sh.gres : NULL,
			.walltime_s = j->walltime_us == SIMTIME_INF ? 0 : (j->walltime_us + 999999) / 1000000,
			.uid = jx->uid >= 0 && (uid_t)jx->uid != geteuid() ? jx->uid : -1,
			.gid = jx->uid >= 0 && (uid_t)jx->uid != geteuid() ? jx->gid : -1,
			.ckpt_sig = L->cfg.sig,
		};
		char err[700];
		int rc = sx_submit_cmd(&x->c, &sxj, &s->cmd, err, sizeof err);
		exec_strv_free(env);
		if (rc) {
			live_log(L, "job %" PRId64 " could not start: %s", key, err);
			sj->phase = SX_PH_IDLE;
			sx_later_end(L, id, JOB_FAILED, END_EXIT, err);
			continue;
		}
		s->kind = 0;
		ns++;
	}
	free(ids);
	/* Cancels of replaced jobs first, then every submit and update at once,
	 * then the releases of the updates that worked. */
	sx_run_acts(L);
	struct sx_cmd **pc = calloc((size_t)ns + 1, sizeof *pc);
	int nc = 0;
	for (int k = 0; pc && k < ns; k++)
		if (st[k].kind != 2)
			pc[nc++] = &st[k].cmd;
	if (pc)
		sx_run_all(&x->c, pc, nc, x->cfg->parallel);
	nc = 0;
	for (int k = 0; pc && k < ns; k++)
		if (st[k].kind == 1 && st[k].cmd.rc == 0)
			pc[nc++] = &st[k].rel;
	if (pc && nc)
		sx_run_all(&x->c, pc, nc, x->cfg->parallel);
	free(pc);
	for (int k = 0; k < ns; k++) {
		if (st[k].kind == 2) {
			struct sx_jobtrack *sj = sx_tj(L, st[k].id);
			sj->phase = SX_PH_WANT;
			sx_want_push(x, sj->key);
			continue;
		}
		start_done(L, &st[k]);
		sx_cmd_done(&st[k].cmd);
		sx_cmd_done(&st[k].rel);
	}
	free(st);
	sx_run_acts(L);   /* cancels of jobs replaced after a failed placement */
}

static void slurm_flush(struct live *L)
{
	struct sx_exec *x = L->xctx;
	sx_xref_close_due(L);   /* the tick's end rows are committed by now */
	if (x->ctld_down)
		return;   /* queued until Slurm answers again */
	/* After a restart no tick has read Slurm yet: what is running decides
	 * what can be signalled and reused. */
	if (!x->have_snap && (x->nacts || x->nwant))
		sx_refresh_snap(L);
	sx_run_acts(L);
	/* A start's partition is the one that holds its nodes (Slurm's
	 * nodes): after a restart they are read first, else the starts wait. */
	if (x->nwant && !x->have_nodes)
		sx_read_nodes(L);
	if (x->have_nodes)
		run_starts(L);
}

static void slurm_fini(struct live *L)
{
	struct sx_exec *x = L->xctx;
	if (x) {
		sx_track_free(x);
		free(x->want);
		free(x->acts);
		free(x->snap);
		free(x->nodes);
		free(x->nidx);
		free(x->fhold);
		free(x->pclose);
		obs_free(&x->later);
	}
	free(x);
	L->xctx = NULL;
}

/* Ended jobs left the engine's tables. Nothing is kept by index (the
 * tracking, the want list, the acts and the rows are by state id): what
 * is kept of the jobs that left and whose Slurm job is seen final goes.
 * One whose Slurm job is still open stays tracked (by state id) until
 * observe sees it final: the engine need not keep the job (no keep hook). */
static int slurm_renumber(struct live *L, const int32_t *map, int32_t nold, int32_t nnew)
{
	(void)map;
	(void)nold;
	(void)nnew;
	sx_track_prune(L);
	return 0;
}

const struct live_executor sx_executor = {
	.name = "slurm",
	/* Every Slurm job is named by the job's state id (live_sid): it may
	 * leave the engine's tables once ended (live/exec/slurm_track.c). */
	.flags = EXEC_ASYNC_START | EXEC_OWN_FATES | EXEC_EXPORT_IDS | EXEC_COMPACT,
	.init = slurm_init,
	.start = slurm_start,
	.signal = slurm_signal,
	.stop = slurm_stop,
	.node_state = slurm_node_state,
	.adopt = slurm_adopt,
	.nodes_begin = sx_nodes_begin,
	.node_down = sx_node_down,
	.fini = slurm_fini,
	.observe = sx_observe,
	.flush = slurm_flush,
	.renumber = slurm_renumber,
};
