/* lexec_slurm — the Slurm executor as the daemon drives it (docs/slurm.md).
 * Slurm is the source of truth: nothing the engine decides is taken as
 * done until Slurm shows it.
 *
 * Decisions are queued during the engine's step (start, signal, stop,
 * drain) and carried out by flush once the step is committed, many
 * commands at a time (live/slurm_run.c): signals, kills, requeues and
 * drains first, then the starts. A start submits a new Slurm job on
 * exactly the chosen nodes (sbatch --nodelist), or places and releases
 * the job's own held Slurm job when it has one from an earlier attempt
 * whose restart count lines up (so that sacct shows a preempted run as
 * REQUEUED of the same job). Its Slurm id goes into the state (xref) as
 * soon as sbatch answers.
 *
 * Every tick, observe reads Slurm back: one `squeue -t all -j` of the
 * Slurm jobs this state has open (never of every job slurmctld remembers)
 * and `sinfo --json` for the nodes, then `sacct` for jobs slurmctld has
 * forgotten. What it sees becomes recorded inputs of the engine:
 *   - RUNNING: the attempt runs since Slurm's start time (its usage counts
 *     from there);
 *   - UNSTART: Slurm has not started a placed job within start_timeout_s
 *     (another job took the node, a node failed, memory), or it is held:
 *     it is held in Slurm and goes back to pending in the engine, to be
 *     placed again;
 *   - REQUEUE: Slurm requeued it by itself (a node failure under
 *     ReturnToService); held, back to pending;
 *   - END: a final state, with Slurm's exit and start/end times; a job
 *     preempted by hetlab that checkpointed and requeued itself held is
 *     "exited after the signal";
 *   - FOREIGN: what jobs not this state's hold of each node (a site's own
 *     jobs, reservations, nodes drained outside hetlab), taken out of what
 *     the policy may use.
 * Slurm jobs of this state that the engine no longer runs are held (when
 * the engine may run the job again) or cancelled. After a restart every
 * running job is found by its Slurm id from the state, else by its name
 * and comment (a crash between sbatch and the xref write). */
#include "live/live_int.h"
#include "live/exec_slurm.h"
#include "sim/mig.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum sj_phase { SJ_IDLE, SJ_WANT, SJ_PLACED, SJ_RUNNING };

struct sjob {
	int64_t sid;              /* the Slurm job of its current or last attempt; -1 none */
	int32_t base;             /* the hetlab attempt that Slurm job first ran as */
	int32_t attempt;          /* the attempt it was placed for (-1 none) */
	uint8_t phase;
	bool open;                /* sid not yet seen final */
	bool release_due;         /* placed on its nodes, the release still to (re)do */
	bool recover;             /* a start the crash may have submitted: look for it by name first */
	double placed_at;         /* wall clock of its submission or release for `attempt` */
	double retry_at;          /* SJ_WANT: not before */
	char shape[200];          /* what the Slurm job was submitted with (partition, cpus, mem, gres) */
};

enum act_kind { A_SIGNAL, A_KILL, A_REQUEUE, A_HOLD, A_DRAIN, A_RESUME, A_CANCEL_SID };

struct act {
	int kind;
	int32_t job, node;
	int64_t sid;
	char reason[200];
};

struct nodeuse {              /* what this state's running jobs hold of a node in Slurm's terms */
	int32_t cpus, gpus;
	int64_t mem;
};

struct sxc {
	struct sx_ctx c;
	const struct live_slurm_cfg *cfg;
	struct sx_config conf;
	bool have_conf;
	struct sjob *j;
	int32_t *want;
	int nwant, capwant;
	struct act *acts;
	int nacts, capacts;
	struct sx_jobinfo *snap;     /* this tick's squeue of the open Slurm jobs, by id */
	int nsnap;
	bool have_snap;
	struct sx_nodeinfo *nodes;   /* this tick's sinfo */
	int nnodes;
	bool have_nodes;
	int32_t *nidx;               /* scenario node -> index in nodes, -1 */
	struct nodeuse *fhold;       /* per scenario node: the foreign hold last recorded */
	struct obs later;            /* inputs from flush, recorded at the next observe */
	double last_ok;              /* wall clock of the last good read of Slurm */
	bool warned_absent;          /* a scenario node Slurm does not list was logged */
	bool ctld_down;              /* the last read of Slurm failed: no command is tried until one works */
};

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const struct alloc_part *parts_of(const struct live *L, int32_t id)
{
	return &L->s.cl.pool.p[L->s.jobs[id].parts];
}

/* Engine time of a Slurm time (Unix seconds); -1 for none. */
static int64_t eng_time(const struct live *L, int64_t unix_s)
{
	if (unix_s <= 0)
		return -1;
	int64_t t = unix_s * 1000000 - L->epoch_unix_us;
	return t > 0 ? t : 1;
}

static void set_ref(struct live *L, int32_t id, int64_t sid)
{
	if (sid > 0)
		snprintf(L->jx[id].ref, sizeof L->jx[id].ref, "%" PRId64, sid);
	else
		L->jx[id].ref[0] = 0;
	L->jdirty[id] = 1;
}

static void later_end(struct live *L, int32_t id, enum job_state st, enum end_reason why, const char *msg)
{
	struct sxc *x = L->xctx;
	struct rec_row r = { .job = id, .node = -1, .kind = RIN_END, .attempt = (int32_t)L->s.jobs[id].restarts,
	                     .state = st, .reason = why, .data = (char *)msg };
	obs_add(&x->later, &r);
}

static int add_act(struct sxc *x, int kind, int32_t job, int32_t node, int64_t sid, const char *reason)
{
	if (x->nacts == x->capacts) {
		int cap = x->capacts ? 2 * x->capacts : 32;
		struct act *n = realloc(x->acts, (size_t)cap * sizeof *n);
		if (!n)
			return -1;
		x->acts = n;
		x->capacts = cap;
	}
	struct act *a = &x->acts[x->nacts++];
	*a = (struct act){ .kind = kind, .job = job, .node = node, .sid = sid };
	snprintf(a->reason, sizeof a->reason, "%s", reason ? reason : "");
	return 0;
}

static int want_push(struct sxc *x, int32_t id)
{
	if (x->nwant == x->capwant) {
		int cap = x->capwant ? 2 * x->capwant : 64;
		int32_t *n = realloc(x->want, (size_t)cap * sizeof *n);
		if (!n)
			return -1;
		x->want = n;
		x->capwant = cap;
	}
	x->want[x->nwant++] = id;
	return 0;
}

static const struct sx_jobinfo *snap_find(const struct sxc *x, int64_t sid)
{
	if (!x->have_snap || sid <= 0)
		return NULL;
	for (int i = 0; i < x->nsnap; i++)
		if (x->snap[i].id == sid)
			return &x->snap[i];
	return NULL;
}

/* ---- init, and what a restart finds in the state ---- */

static int xref_row(void *ctx, const struct lstate_xref *r)
{
	struct live *L = ctx;
	struct sxc *x = L->xctx;
	if (r->job < 0 || r->job >= L->cfg.max_jobs)
		return 0;
	struct sjob *sj = &x->j[r->job];
	/* Rows come in the order they were written: the last is the current one. */
	sj->sid = r->sid;
	sj->base = r->attempt;
	sj->open = r->open;
	snprintf(sj->shape, sizeof sj->shape, "%s", r->shape);
	snprintf(L->jx[r->job].ref, sizeof L->jx[r->job].ref, "%" PRId64, r->sid);   /* jobs.ref: its last Slurm job */
	return 0;
}

static void check_config(struct live *L)
{
	struct sxc *x = L->xctx;
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
		         "whole node); set slurm.mem_mib_default or give each job req.mem_gib", k->select_params);
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
	struct sxc *x = calloc(1, sizeof *x);
	int32_t nn = L->s.cl.nnodes;
	if (!x || !(x->j = calloc((size_t)L->cfg.max_jobs + 1, sizeof *x->j)) ||
	    !(x->nidx = malloc(((size_t)nn + 1) * sizeof *x->nidx)) ||
	    !(x->fhold = calloc((size_t)nn + 1, sizeof *x->fhold))) {
		if (x) {
			free(x->j);
			free(x->nidx);
		}
		free(x);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	x->cfg = &L->cfg.slurm;
	for (int32_t i = 0; i < L->cfg.max_jobs; i++)
		x->j[i] = (struct sjob){ .sid = -1, .attempt = -1 };
	for (int32_t i = 0; i < nn; i++)
		x->nidx[i] = -1;
	snprintf(x->c.bindir, sizeof x->c.bindir, "%s", x->cfg->bindir);
	snprintf(x->c.partition, sizeof x->c.partition, "%s", x->cfg->npartition == 1 ? x->cfg->partition[0] : "");
	if (x->cfg->workdir[0])
		snprintf(x->c.workdir, sizeof x->c.workdir, "%s", x->cfg->workdir);
	else
		snprintf(x->c.workdir, sizeof x->c.workdir, "%s/slurm", L->cfg.state_dir);
	x->c.timeout_s = x->cfg->timeout_s;
	const char *conf = getenv("SLURM_CONF");
	if (conf)
		snprintf(x->c.slurm_conf, sizeof x->c.slurm_conf, "%s", conf);
	if (mkdir(x->c.workdir, 0700) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", x->c.workdir, strerror(errno));
		goto fail;
	}
	L->xctx = x;
	if (lstate_xref_each(&L->st, xref_row, L, err, errlen))
		goto fail;
	check_config(L);
	return 0;
fail:
	free(x->j);
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
	struct sxc *x = L->xctx;
	struct sjob *sj = &x->j[id];
	const struct job *j = &L->s.jobs[id];
	int att = (int)j->restarts;
	sj->attempt = att;
	sj->placed_at = wall();
	if (sj->sid > 0 && sj->open && att - sj->base >= 0) {
		sj->phase = L->s.run[id].confirmed ? SJ_RUNNING : SJ_PLACED;
		set_ref(L, id, sj->sid);
	} else {
		sj->phase = SJ_WANT;
		sj->recover = true;
		sj->retry_at = 0;
		want_push(x, id);
	}
}

/* ---- the engine's decisions, queued ---- */

static int slurm_start(struct live *L, int32_t id, char *err, size_t errlen)
{
	struct sxc *x = L->xctx;
	struct sjob *sj = &x->j[id];
	if (!L->jx[id].argv) {
		snprintf(err, errlen, "job %d has no argv to run", id);
		return -1;
	}
	if (want_push(x, id)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sj->phase = SJ_WANT;
	sj->attempt = (int32_t)L->s.jobs[id].restarts;
	sj->retry_at = 0;
	return 0;
}

static int slurm_signal(struct live *L, int32_t id)
{
	struct sxc *x = L->xctx;
	return add_act(x, A_SIGNAL, id, -1, x->j[id].sid, NULL);
}

static int slurm_stop(struct live *L, int32_t id, enum exec_stop how)
{
	struct sxc *x = L->xctx;
	struct sjob *sj = &x->j[id];
	/* What this tick's squeue saw of its Slurm job. */
	const struct sx_jobinfo *ji = sj->sid > 0 && sj->open ? snap_find(x, sj->sid) : NULL;
	if (how == EXEC_STOP_KILL) {
		/* The engine ends the job when Slurm says it has ended (observe). */
		if (sj->phase == SJ_WANT || sj->sid <= 0 || !sj->open) {
			sj->phase = SJ_IDLE;
			later_end(L, id, JOB_KILLED, END_CANCELLED, "stopped before it was submitted to Slurm");
			return 0;
		}
		if (ji && sx_state_final(ji->st))
			return 0;
		return add_act(x, A_KILL, id, -1, sj->sid, NULL);
	}
	if (sj->phase == SJ_WANT) {
		sj->phase = SJ_IDLE;   /* never submitted for this attempt: nothing to stop */
		return 0;
	}
	if (sj->sid <= 0 || !sj->open)
		return 0;
	sj->phase = SJ_IDLE;
	/* A job already requeued held (by its own wrapper after the checkpoint)
	 * needs no requeue; an ended one nothing. */
	if (ji && sx_state_final(ji->st))
		return 0;
	if (ji && (ji->st == SX_HELD || ji->st == SX_REQUEUED))
		return 0;
	if (ji && ji->st == SX_PENDING)
		return add_act(x, A_HOLD, id, -1, sj->sid, NULL);   /* never ran: kept held for the next attempt */
	return add_act(x, A_REQUEUE, id, -1, sj->sid, NULL);
}

static int slurm_node_state(struct live *L, int32_t node, bool drain, const char *reason)
{
	struct sxc *x = L->xctx;
	char r[200];
	snprintf(r, sizeof r, "hetlab: %s", reason && reason[0] ? reason : "drained by its health monitor");
	return add_act(x, drain ? A_DRAIN : A_RESUME, -1, node, -1, drain ? r : NULL);
}

/* ---- carrying them out ---- */

/* A job preempted before Slurm ran it has nothing to checkpoint: it is
 * taken back (held in Slurm when it is pending there). */
static void never_started(struct live *L, int32_t id, const struct sx_jobinfo *ji)
{
	struct sxc *x = L->xctx;
	if (id < 0 || L->s.jobs[id].state != JOB_CHECKPOINTING || x->j[id].phase != SJ_PLACED)
		return;
	struct rec_row r = { .kind = RIN_UNSTART, .job = id, .node = -1, .attempt = (int32_t)L->s.jobs[id].restarts,
	                     .data = (char *)"preempted before Slurm started it" };
	obs_add(&x->later, &r);
	x->j[id].phase = SJ_IDLE;
	if (ji->st == SX_PENDING) {
		char err[600];
		if (sx_hold(&x->c, ji->id, err, sizeof err))
			live_log(L, "job %d (Slurm %" PRId64 "): %s", id, ji->id, err);
	}
}

static void run_acts(struct live *L)
{
	struct sxc *x = L->xctx;
	if (x->nacts == 0)
		return;
	struct sx_cmd *cmds = calloc((size_t)x->nacts, sizeof *cmds);
	struct sx_cmd **pc = calloc((size_t)x->nacts, sizeof *pc);
	if (!cmds || !pc) {
		free(cmds);
		free(pc);
		live_log(L, "out of memory running %d Slurm commands", x->nacts);
		return;
	}
	int n = 0;
	for (int k = 0; k < x->nacts; k++) {
		struct act *a = &x->acts[k];
		struct sx_cmd *c = &cmds[n];
		sx_cmd_init(c);
		switch (a->kind) {
		case A_SIGNAL: {
			const struct sx_jobinfo *ji = snap_find(x, a->sid);
			if (a->sid <= 0 || (ji && ji->st != SX_RUNNING)) {
				/* Only a running job can be signalled: scancel --signal waits
				 * for a pending one to start. */
				if (ji && !sx_state_final(ji->st))
					never_started(L, a->job, ji);
				a->sid = -1;
				continue;
			}
			sx_cmd_add(c, "scancel");
			sx_cmd_add(c, "--full");
			sx_cmd_add(c, "--signal=%d", L->cfg.sig);
			sx_cmd_add(c, "%" PRId64, a->sid);
			break;
		}
		case A_KILL:
		case A_CANCEL_SID:
			sx_cmd_add(c, "scancel");
			sx_cmd_add(c, "%" PRId64, a->sid);
			break;
		case A_REQUEUE:
		case A_HOLD:
			sx_cmd_add(c, "scontrol");
			sx_cmd_add(c, a->kind == A_REQUEUE ? "requeuehold" : "hold");
			sx_cmd_add(c, "%" PRId64, a->sid);
			break;
		case A_DRAIN:
		case A_RESUME:
			sx_cmd_add(c, "scontrol");
			sx_cmd_add(c, "update");
			sx_cmd_add(c, "NodeName=%s", L->s.cl.nodes[a->node].name);
			sx_cmd_add(c, "State=%s", a->kind == A_DRAIN ? "DRAIN" : "RESUME");
			if (a->kind == A_DRAIN)
				sx_cmd_add(c, "Reason=%s", a->reason);
			break;
		}
		pc[n] = c;
		n++;
	}
	sx_run_all(&x->c, pc, n, x->cfg->parallel);
	for (int k = 0, m = 0; k < x->nacts && m < n; k++) {
		const struct act *a = &x->acts[k];
		if (a->kind == A_SIGNAL && a->sid <= 0)
			continue;   /* not sent (see above) */
		struct sx_cmd *c = &cmds[m++];
		const char *what = a->kind == A_SIGNAL ? "checkpoint signal" : a->kind == A_KILL ? "cancel"
		                 : a->kind == A_CANCEL_SID ? "cancel (stray)" : a->kind == A_REQUEUE ? "requeue held"
		                 : a->kind == A_HOLD ? "hold" : a->kind == A_DRAIN ? "drain" : "resume";
		if (a->node >= 0) {
			if (c->rc)
				live_log(L, "node %s: %s in Slurm failed: %s", L->s.cl.nodes[a->node].name, what, c->err);
			else
				live_log(L, "node %s %s in Slurm", L->s.cl.nodes[a->node].name,
				         a->kind == A_DRAIN ? "drained" : "resumed");
		} else if (c->rc && !c->no_job) {
			live_log(L, "job %d (Slurm %" PRId64 "): %s failed: %s%s", a->job, a->sid, what, c->err,
			         c->transient ? " (retried when Slurm answers)" : "");
		}
		sx_cmd_done(c);
	}
	free(cmds);
	free(pc);
	x->nacts = 0;
}

/* The Slurm shape of job id's placement: its partition, per-node CPUs,
 * memory and GRES. -1 with why for a request the site's GRES cannot
 * express (a refusal, permanent). */
struct shape {
	const char *partition;
	char gres[96];
	int cpn;
	int64_t mem;
	const char *account, *qos;
	char text[200];
};

static bool in_partitions(const struct sx_nodeinfo *n, const char *p)
{
	size_t k = strlen(p);
	for (const char *s = n->partitions; (s = strstr(s, p)) != NULL; s += k)
		if ((s == n->partitions || s[-1] == ',') && (s[k] == ',' || s[k] == 0))
			return true;
	return false;
}

static int shape_of(struct live *L, int32_t id, struct shape *sh, char *why, size_t len)
{
	struct sxc *x = L->xctx;
	const struct job *j = &L->s.jobs[id];
	const struct live_slurm_cfg *cf = x->cfg;
	memset(sh, 0, sizeof *sh);
	const char *cls = job_class_name((enum job_class)j->cls);
	int gpn = 0, milli = 0, mig = -1;
	for (int i = 0; i < j->nparts; i++) {
		const struct alloc_part *p = &parts_of(L, id)[i];
		if (p->cores > sh->cpn)
			sh->cpn = p->cores;
		if (p->mem_mib > sh->mem)
			sh->mem = p->mem_mib;
		if (hl_popcount64(p->gpus) > gpn)
			gpn = hl_popcount64(p->gpus);
		if (p->milli > milli)
			milli = p->milli;
		if (p->mig_profile >= 0)
			mig = i;
	}
	if (sh->mem <= 0)
		sh->mem = cf->mem_mib_default;
	const struct alloc_part *p0 = &parts_of(L, id)[0];
	const struct node *n0 = &L->s.cl.nodes[p0->node];
	if (mig >= 0) {
		const struct alloc_part *p = &parts_of(L, id)[mig];
		const struct node *nd = &L->s.cl.nodes[p->node];
		const struct gpustate *gs = &L->s.cl.gpu[nd->gpu0 + __builtin_ctzll(p->gpus)];
		const char *prof = gs->mig ? gs->mig->card->profiles[p->mig_profile].name : "?";
		const char *g = livecfg_map_get(&cf->mig_gres, prof);
		if (!g) {
			snprintf(why, len, "a MIG %s instance: the site's GRES for it is not configured "
			         "(slurm.mig_gres in the live config; docs/slurm.md)", prof);
			return -1;
		}
		snprintf(sh->gres, sizeof sh->gres, "%s:1", g);
	} else if (milli > 0) {
		if (cf->shards_per_gpu <= 0) {
			snprintf(why, len, "a %d/1000 share of a GPU: time-sliced shares need Slurm's shard GRES "
			         "(slurm.shards_per_gpu in the live config; docs/slurm.md)", milli);
			return -1;
		}
		snprintf(sh->gres, sizeof sh->gres, "shard:%d", (milli * cf->shards_per_gpu + 999) / 1000);
	} else if (gpn > 0) {
		const char *model = n0->ngpus > 0 && n0->gpu_model >= 0 ? L->s.cl.cat.gpus[n0->gpu_model].name : NULL;
		const char *type = livecfg_map_get(&cf->gres_types, model);
		if (type)
			snprintf(sh->gres, sizeof sh->gres, "gpu:%s:%d", type, gpn);
		else
			snprintf(sh->gres, sizeof sh->gres, "gpu:%d", gpn);
	}
	/* The partition: the class's, else the first driven partition that
	 * holds every node of the placement. */
	sh->partition = livecfg_map_get(&cf->class_partition, cls);
	for (int k = 0; !sh->partition && k < cf->npartition; k++) {
		bool all = x->have_nodes;
		for (int i = 0; all && i < j->nparts; i++) {
			int32_t ni = x->nidx[parts_of(L, id)[i].node];
			all = ni >= 0 && in_partitions(&x->nodes[ni], cf->partition[k]);
		}
		if (all)
			sh->partition = cf->partition[k];
	}
	if (!sh->partition)
		sh->partition = cf->npartition ? cf->partition[0] : "";
	/* The account: the tenant's, else the default rule. */
	const char *tname = L->sc.org.nt > j->tenant && j->tenant >= 0 ? L->sc.org.t[j->tenant].name : NULL;
	sh->account = livecfg_map_get(&cf->accounts, tname);
	if (!sh->account && cf->account[0])
		sh->account = strcmp(cf->account, "tenant") == 0 ? tname : cf->account;
	sh->qos = livecfg_map_get(&cf->qos, cls);
	snprintf(sh->text, sizeof sh->text, "%s|%d|%" PRId64 "|%s|%s|%s|%d", sh->partition, sh->cpn, sh->mem, sh->gres,
	         sh->account ? sh->account : "", sh->qos ? sh->qos : "", j->nparts);
	return 0;
}

struct start {
	int32_t id;
	int kind;                 /* 0 submit, 1 place (update + release), 2 wait */
	struct shape sh;
	struct sx_cmd cmd, rel;
	const char *nodes[256];
	int nnodes;
};

/* Looks for Slurm jobs a crash kept us from recording, by name (and
 * comment: this state's, this job's). */
static void recover_by_name(struct live *L)
{
	struct sxc *x = L->xctx;
	int n = 0;
	for (int k = 0; k < x->nwant; k++)
		n += x->j[x->want[k]].recover;
	if (!n)
		return;
	char (*names)[96] = calloc((size_t)n, sizeof *names);
	const char **pn = calloc((size_t)n, sizeof *pn);
	int m = 0;
	for (int k = 0; names && pn && k < x->nwant; k++) {
		struct sjob *sj = &x->j[x->want[k]];
		if (!sj->recover)
			continue;
		sx_job_name(L->state_id, x->want[k], names[m], sizeof names[m]);
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
		if (strcmp(ji->state_id, L->state_id) != 0 || ji->key < 0 || ji->key >= L->s.njobs)
			continue;
		struct sjob *sj = &x->j[ji->key];
		if (!sj->recover || ji->id <= sj->sid || ji->attempt + ji->restarts != sj->attempt)
			continue;   /* not this attempt's */
		sj->sid = ji->id;
		sj->base = ji->attempt;
		sj->open = true;
		char e2[512];
		if (lstate_xref_add(&L->st, ji->key, ji->attempt, ji->id, NULL, e2, sizeof e2))
			live_log(L, "%s", e2);
		set_ref(L, (int32_t)ji->key, ji->id);
		live_log(L, "job %" PRId64 ": adopted Slurm job %" PRId64 " (%s), found by its name and comment", ji->key,
		         ji->id, sx_state_name(ji->st));
		/* Submitted for this attempt before the crash: observe takes it from
		 * here (running, pending, or ended while we were down). */
		sj->phase = SJ_PLACED;
		sj->placed_at = wall();
	}
	for (int k = 0; k < x->nwant; k++)
		x->j[x->want[k]].recover = false;
	free(v);
	free(names);
	free(pn);
}

static void start_done(struct live *L, struct start *s)
{
	struct sxc *x = L->xctx;
	struct sjob *sj = &x->j[s->id];
	char err[700];
	double now = wall();
	if (s->kind == 0) {
		int64_t sid;
		if (sx_submit_result(&s->cmd, &sid, err, sizeof err) == 0) {
			sj->sid = sid;
			sj->base = sj->attempt;
			sj->open = true;
			sj->phase = SJ_PLACED;
			sj->placed_at = now;
			snprintf(sj->shape, sizeof sj->shape, "%s", s->sh.text);
			set_ref(L, s->id, sid);
			char e2[512];
			if (lstate_xref_add(&L->st, s->id, sj->base, sid, s->sh.text, e2, sizeof e2))
				live_log(L, "%s", e2);
			char place[1024];
			live_placement_text(L, s->id, place, sizeof place);
			live_log(L, "job %d: Slurm job %" PRId64 " submitted on %s (partition %s%s%s%s%s)", s->id, sid, place,
			         s->sh.partition[0] ? s->sh.partition : "default", s->sh.account ? ", account " : "",
			         s->sh.account ? s->sh.account : "", s->sh.gres[0] ? ", gres " : "", s->sh.gres);
			return;
		}
		if (s->cmd.transient) {
			sj->retry_at = now + L->cfg.tick_s;
			L->healthy = false;
			snprintf(L->why, sizeof L->why, "slurm executor: %s", s->cmd.err);
			live_log(L, "job %d: %s; the start is retried", s->id, err);
			want_push(x, s->id);
			return;
		}
		live_log(L, "job %d could not start: %s", s->id, err);
		sj->phase = SJ_IDLE;
		later_end(L, s->id, JOB_FAILED, END_EXIT, err);
		return;
	}
	/* A place: the update, then the release. */
	const struct sx_cmd *bad = s->cmd.rc ? &s->cmd : s->rel.rc ? &s->rel : NULL;
	if (!bad) {
		sj->phase = SJ_PLACED;
		sj->placed_at = now;
		sj->release_due = false;
		live_log(L, "job %d: Slurm job %" PRId64 " placed again and released (attempt %d)", s->id, sj->sid,
		         sj->attempt);
		return;
	}
	if (bad->transient) {
		sj->retry_at = now + L->cfg.tick_s;
		L->healthy = false;
		snprintf(L->why, sizeof L->why, "slurm executor: %s", bad->err);
		want_push(x, s->id);
		return;
	}
	if (bad == &s->rel) {
		/* Placed but not released: the release is retried by observe. */
		sj->phase = SJ_PLACED;
		sj->placed_at = now;
		sj->release_due = true;
		live_log(L, "job %d (Slurm %" PRId64 "): %s; retried at the next poll", s->id, sj->sid, bad->err);
		return;
	}
	/* The held job cannot be placed (gone, changed): a new one. */
	live_log(L, "job %d (Slurm %" PRId64 "): %s; submitting a new Slurm job", s->id, sj->sid, bad->err);
	add_act(x, A_CANCEL_SID, s->id, -1, sj->sid, NULL);
	sj->open = false;
	sj->sid = -1;
	sj->retry_at = 0;
	want_push(x, s->id);
}

static void run_starts(struct live *L)
{
	struct sxc *x = L->xctx;
	if (x->nwant == 0)
		return;
	recover_by_name(L);
	double now = wall();
	int n = x->nwant;
	int32_t *ids = x->want;
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
		int32_t id = ids[k];
		struct sjob *sj = &x->j[id];
		const struct job *j = &L->s.jobs[id];
		bool dup = false;
		for (int m = 0; m < ns && !dup; m++)
			dup = st[m].id == id;
		if (dup || sj->phase != SJ_WANT || (j->state != JOB_RUNNING && j->state != JOB_CHECKPOINTING) ||
		    (int32_t)j->restarts != sj->attempt)
			continue;   /* stopped (or started again) since it was queued */
		if (sj->retry_at > now) {
			st[ns++] = (struct start){ .id = id, .kind = 2 };   /* kept for a later flush */
			continue;
		}
		struct start *s = &st[ns];
		s->id = id;
		char why[300];
		if (shape_of(L, id, &s->sh, why, sizeof why)) {
			live_log(L, "job %d could not start: %s", id, why);
			sj->phase = SJ_IDLE;
			later_end(L, id, JOB_FAILED, END_EXIT, why);
			continue;
		}
		for (int i = 0; i < j->nparts && s->nnodes < 256; i++)
			s->nodes[s->nnodes++] = L->s.cl.nodes[parts_of(L, id)[i].node].name;
		/* Its own Slurm job, held from an earlier attempt, when its restart
		 * count lines up and its shape is the same: placed and released. */
		const struct sx_jobinfo *ji = sj->open ? snap_find(x, sj->sid) : NULL;
		if (sj->open && sj->sid > 0 && ji && ji->st == SX_HELD && ji->restarts == sj->attempt - sj->base &&
		    strcmp(sj->shape, s->sh.text) == 0) {
			char err[600];
			if (sx_place_cmd(sj->sid, s->nodes, s->nnodes, s->sh.partition[0] ? s->sh.partition : NULL, &s->cmd,
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
			add_act(x, A_CANCEL_SID, id, -1, sj->sid, NULL);
			sj->open = false;
		}
		char **env = lexec_job_env(L, id, NULL, true);
		const struct jobx *jx = &L->jx[id];
		struct sx_job sxj = {
			.state_id = L->state_id, .key = id, .attempt = sj->attempt,
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
		lexec_strv_free(env);
		if (rc) {
			live_log(L, "job %d could not start: %s", id, err);
			sj->phase = SJ_IDLE;
			later_end(L, id, JOB_FAILED, END_EXIT, err);
			continue;
		}
		s->kind = 0;
		ns++;
	}
	free(ids);
	/* Cancels of replaced jobs first, then every submit and update at once,
	 * then the releases of the updates that worked. */
	run_acts(L);
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
			x->j[st[k].id].phase = SJ_WANT;
			want_push(x, st[k].id);
			continue;
		}
		start_done(L, &st[k]);
		sx_cmd_done(&st[k].cmd);
		sx_cmd_done(&st[k].rel);
	}
	free(st);
	run_acts(L);   /* cancels of jobs replaced after a failed placement */
}

/* ---- reading Slurm back ---- */

static void xref_close(struct live *L, int32_t id, int64_t sid)
{
	char err[512];
	if (lstate_xref_close(&L->st, id, sid, err, sizeof err))
		live_log(L, "%s", err);
}

/* A row for the engine; data copied. */
static void row(struct obs *o, enum rec_in kind, int32_t id, int32_t attempt, int64_t t1, int64_t t2, int st,
                int reason, const char *data)
{
	struct rec_row r = { .kind = kind, .job = id, .node = -1, .attempt = attempt, .state = st, .reason = reason,
	                     .data = (char *)data, .t1_us = t1, .t2_us = t2 };
	obs_add(o, &r);
}

/* A final Slurm state as the end of the engine's attempt. */
static void end_row(struct live *L, struct obs *o, int32_t id, enum sx_state st, int code, int sig, int64_t start,
                    int64_t end, int64_t sid, const char *from)
{
	const struct job *j = &L->s.jobs[id];
	enum job_state js = JOB_FAILED;
	enum end_reason why = END_EXIT;
	switch (st) {
	case SX_COMPLETED: js = JOB_DONE; why = END_NONE; break;
	case SX_FAILED: js = JOB_FAILED; why = END_EXIT; break;
	case SX_CANCELLED: case SX_PREEMPTED: js = JOB_KILLED; why = END_CANCELLED; break;
	case SX_TIMEOUT: js = JOB_KILLED; why = END_WALLTIME; break;
	case SX_OOM: js = JOB_FAILED; why = END_OOM; break;
	default: js = JOB_FAILED; why = END_NODE_FAIL; break;
	}
	char msg[200];
	snprintf(msg, sizeof msg, "Slurm job %" PRId64 " %s, exit %d:%d%s%s", sid, sx_state_name(st), code, sig,
	         from ? " " : "", from ? from : "");
	live_log(L, "job %d (Slurm %" PRId64 "): %s%s", id, sid, msg,
	         j->state == JOB_CHECKPOINTING ? " after the checkpoint signal" : "");
	row(o, RIN_END, id, (int32_t)j->restarts, eng_time(L, start), eng_time(L, end), js, why, msg);
}

static int64_t *open_sids(struct live *L, int *n)
{
	struct sxc *x = L->xctx;
	int cap = 64;
	int64_t *v = malloc((size_t)cap * sizeof *v);
	*n = 0;
	for (int32_t i = 0; v && i < L->s.njobs; i++) {
		if (x->j[i].sid <= 0 || !x->j[i].open)
			continue;
		if (*n == cap) {
			cap *= 2;
			int64_t *nv = realloc(v, (size_t)cap * sizeof *nv);
			if (!nv)
				break;
			v = nv;
		}
		v[(*n)++] = x->j[i].sid;
	}
	return v;
}

/* Requeues seen this tick, waiting for the end time of their run. */
struct rq {
	int32_t id;
	int64_t sid;
	bool ckpt;               /* the job's own, after the checkpoint signal */
	char why[200];
};
struct rqs {
	struct rq *v;
	int n, cap;
};

static void rq_add(struct rqs *q, int32_t id, int64_t sid, bool ckpt, const char *why)
{
	if (q->n == q->cap) {
		int cap = q->cap ? 2 * q->cap : 16;
		struct rq *n = realloc(q->v, (size_t)cap * sizeof *n);
		if (!n)
			return;
		q->v = n;
		q->cap = cap;
	}
	struct rq *r = &q->v[q->n++];
	*r = (struct rq){ .id = id, .sid = sid, .ckpt = ckpt };
	snprintf(r->why, sizeof r->why, "%s", why);
}

/* The rows of this tick's requeues, each run ending when slurmdbd says it
 * did (the last requeued record of its Slurm job), else now. */
static void requeue_rows(struct live *L, struct obs *o, struct rqs *q)
{
	struct sxc *x = L->xctx;
	if (q->n == 0)
		return;
	int64_t *sids = malloc((size_t)q->n * sizeof *sids);
	struct sx_acct *a = NULL;
	int na = 0;
	bool no_acct = false;
	char err[600];
	for (int k = 0; sids && k < q->n; k++)
		sids[k] = q->v[k].sid;
	if (sids && x->have_conf && x->conf.accounting &&
	    sx_acct_by_id(&x->c, sids, q->n, &a, &na, &no_acct, err, sizeof err))
		live_log(L, "reading sacct for the end of %d requeued run%s: %s (ended now, then)", q->n,
		         q->n == 1 ? "" : "s", err);
	for (int k = 0; k < q->n; k++) {
		const struct rq *r = &q->v[k];
		const struct job *j = &L->s.jobs[r->id];
		int64_t end = -1;
		for (int i = 0; i < na; i++)
			if (a[i].id == r->sid && a[i].st != SX_PENDING && a[i].st != SX_RUNNING && a[i].end_unix > end)
				end = a[i].end_unix;
		/* The wrapper's requeue after the checkpoint signal is a requeue
		 * too: an end row would be final (a job that ended without
		 * requeuing itself never saw the signal). */
		row(o, RIN_REQUEUE, r->id, (int32_t)j->restarts, -1, eng_time(L, end), 0, 0, r->why);
	}
	free(a);
	free(sids);
	free(q->v);
	q->v = NULL;
	q->n = q->cap = 0;
}

/* What Slurm says of running job id's attempt. */
static void reconcile(struct live *L, struct obs *o, struct rqs *rq, int32_t id, const struct sx_jobinfo *ji,
                      double now)
{
	struct sxc *x = L->xctx;
	struct sjob *sj = &x->j[id];
	const struct job *j = &L->s.jobs[id];
	int att = (int)j->restarts;
	int expect = att - sj->base;
	bool ckpt = j->state == JOB_CHECKPOINTING;
	if (ji->restarts > expect && !sx_state_final(ji->st)) {
		/* Requeued since this attempt began. */
		if (ji->st == SX_REQUEUED || ji->st == SX_COMPLETING)
			return;   /* on its way: next tick */
		if (ckpt && ji->st == SX_HELD) {
			live_log(L, "job %d (Slurm %" PRId64 "): checkpointed and requeued itself held", id, ji->id);
			rq_add(rq, id, ji->id, true, "checkpointed after the signal; requeued held");
		} else {
			char why[200];
			snprintf(why, sizeof why, "Slurm requeued it (%s)", ji->reason[0] ? ji->reason : "restart");
			live_log(L, "job %d (Slurm %" PRId64 "): %s", id, ji->id, why);
			if (ji->st == SX_RUNNING)
				add_act(x, A_REQUEUE, id, -1, ji->id, NULL);
			else if (ji->st == SX_PENDING)
				add_act(x, A_HOLD, id, -1, ji->id, NULL);
			rq_add(rq, id, ji->id, false, why);
		}
		sj->phase = SJ_IDLE;
		return;
	}
	switch (ji->st) {
	case SX_RUNNING:
	case SX_SUSPENDED:
		if (sj->phase == SJ_PLACED) {
			sj->phase = SJ_RUNNING;
			row(o, RIN_RUNNING, id, att, eng_time(L, ji->start_unix), -1, 0, 0, NULL);
		}
		return;
	case SX_COMPLETING:
	case SX_REQUEUED:
		return;
	case SX_PENDING:
	case SX_HELD:
		if (sj->phase != SJ_PLACED)
			return;
		if (ji->st == SX_HELD && (sj->release_due || now - sj->placed_at < x->cfg->start_timeout_s)) {
			/* Placed, still held: the release failed; again. */
			struct sx_cmd c;
			sx_release_cmd(ji->id, &c);
			sx_run(&x->c, &c);
			sj->release_due = c.rc != 0;
			sx_cmd_done(&c);
			return;
		}
		if (now - sj->placed_at >= x->cfg->start_timeout_s) {
			char why[200];
			snprintf(why, sizeof why, "Slurm did not start it in %.0f s (%s)", x->cfg->start_timeout_s,
			         ji->reason[0] ? ji->reason : "pending");
			live_log(L, "job %d (Slurm %" PRId64 "): %s: held and placed again", id, ji->id, why);
			if (ji->st == SX_PENDING)
				add_act(x, A_HOLD, id, -1, ji->id, NULL);
			row(o, RIN_UNSTART, id, att, -1, -1, 0, 0, why);
			sj->phase = SJ_IDLE;
		}
		return;
	default:
		break;
	}
	if (sx_state_final(ji->st)) {
		end_row(L, o, id, ji->st, ji->exit_code, ji->exit_sig, ji->start_unix, ji->end_unix, ji->id, NULL);
		sj->open = false;
		sj->phase = SJ_IDLE;
		xref_close(L, id, ji->id);
	}
}

/* Jobs slurmctld has forgotten: what slurmdbd kept, else lost. */
static void gone(struct live *L, struct obs *o, const int32_t *ids, int n)
{
	struct sxc *x = L->xctx;
	if (n <= 0)
		return;
	int64_t *sids = malloc((size_t)n * sizeof *sids);
	if (!sids)
		return;
	for (int k = 0; k < n; k++)
		sids[k] = x->j[ids[k]].sid;
	struct sx_acct *a = NULL;
	int na = 0;
	bool no_acct = false;
	char err[600];
	int rc = sx_acct_by_id(&x->c, sids, n, &a, &na, &no_acct, err, sizeof err);
	if (rc && !no_acct) {
		live_log(L, "reading sacct for %d job%s slurmctld forgot: %s (asked again next tick)", n, n == 1 ? "" : "s",
		         err);
		free(sids);
		return;
	}
	for (int k = 0; k < n; k++) {
		int32_t id = ids[k];
		struct sjob *sj = &x->j[id];
		const struct sx_acct *last = NULL;
		for (int i = 0; i < na; i++)
			if (a[i].id == sids[k] && (!last || a[i].start_unix >= last->start_unix))
				last = &a[i];
		if (last && !sx_state_final(last->st) && last->st != SX_REQUEUED)
			continue;   /* slurmdbd says it still runs: slurmctld restarting? next tick */
		if (last && last->st != SX_REQUEUED) {
			end_row(L, o, id, last->st, last->exit_code, last->exit_sig, last->start_unix, last->end_unix, sids[k],
			        "(from sacct)");
		} else {
			live_log(L, "job %d (Slurm %" PRId64 "): gone from slurmctld and %s: lost", id, sids[k],
			         no_acct ? "no accounting" : "unknown to slurmdbd");
			row(o, RIN_END, id, (int32_t)L->s.jobs[id].restarts, -1, -1, JOB_FAILED, END_NODE_FAIL,
			    "gone from Slurm: no record of how it ended");
		}
		sj->open = false;
		sj->phase = SJ_IDLE;
		xref_close(L, id, sids[k]);
	}
	free(a);
	free(sids);
}

/* What jobs not this state's hold of each node. */
static void foreign(struct live *L, struct obs *o)
{
	struct sxc *x = L->xctx;
	const struct sim *s = &L->s;
	if (!x->have_nodes)
		return;
	struct nodeuse *ours = calloc((size_t)s->cl.nnodes + 1, sizeof *ours);
	if (!ours)
		return;
	/* Ours: the running attempts Slurm runs, in Slurm's terms. */
	for (int32_t k = 0; k < s->nrunning; k++) {
		int32_t id = s->running[k];
		const struct sx_jobinfo *ji = snap_find(x, x->j[id].sid);
		if (!ji || (ji->st != SX_RUNNING && ji->st != SX_COMPLETING && ji->st != SX_SUSPENDED))
			continue;
		struct shape sh;
		char why[200];
		if (shape_of(L, id, &sh, why, sizeof why))
			continue;
		for (int i = 0; i < s->jobs[id].nparts; i++) {
			const struct alloc_part *p = &parts_of(L, id)[i];
			int32_t ni = x->nidx[p->node];
			ours[p->node].cpus += sh.cpn;
			/* No --mem where Slurm schedules memory: it gave the whole node. */
			ours[p->node].mem += sh.mem > 0 || !x->conf.memory || ni < 0 ? sh.mem : x->nodes[ni].mem_mib;
			ours[p->node].gpus += p->milli > 0 || p->mig_profile >= 0 ? 0 : hl_popcount64(p->gpus);
		}
	}
	for (int32_t i = 0; i < s->cl.nnodes; i++) {
		int32_t ni = x->nidx[i];
		if (ni < 0)
			continue;
		const struct sx_nodeinfo *n = &x->nodes[ni];
		const struct node *nd = &s->cl.nodes[i];
		struct nodeuse f = { 0 };
		const char *what = "jobs not hetlab's";
		if (n->down || n->not_responding)
			continue;   /* down: the node is out of service (probe rounds) */
		double per = nd->cores > 0 && n->cpus > nd->cores ? (double)n->cpus / nd->cores : 1.0;
		if ((n->drain && strncmp(n->reason, "hetlab", 6) != 0) || n->reserved) {
			f.cpus = nd->cores;
			f.gpus = nd->ngpus;
			f.mem = nd->mem_mib;
			what = n->reserved ? "a reservation" : "drained outside hetlab";
		} else {
			int32_t fc = n->alloc_cpus - ours[i].cpus;
			f.cpus = fc > 0 ? (int32_t)ceil(fc / per) : 0;
			f.mem = n->alloc_mem_mib - ours[i].mem > 0 ? n->alloc_mem_mib - ours[i].mem : 0;
			f.gpus = n->gpus_used - ours[i].gpus > 0 ? n->gpus_used - ours[i].gpus : 0;
		}
		struct nodeuse *last = &x->fhold[i];
		if (f.cpus == last->cpus && f.gpus == last->gpus && f.mem == last->mem)
			continue;
		char data[96];
		snprintf(data, sizeof data, "%d %d %" PRId64, f.cpus, f.gpus, f.mem);
		struct rec_row r = { .kind = RIN_FOREIGN, .job = -1, .node = i, .data = data };
		obs_add(o, &r);
		*last = f;
		live_log(L, "node %s: %s hold %d cores, %d GPUs, %" PRId64 " MiB", nd->name, what, f.cpus, f.gpus, f.mem);
		char err[512];
		if (lstate_foreign_set(&L->st, nd->name, f.cpus, f.gpus, f.mem, what, err, sizeof err))
			live_log(L, "%s", err);
	}
	free(ours);
}

static void read_nodes(struct live *L)
{
	struct sxc *x = L->xctx;
	char err[600];
	free(x->nodes);
	x->nodes = NULL;
	x->nnodes = 0;
	x->have_nodes = sx_nodes(&x->c, &x->nodes, &x->nnodes, err, sizeof err) == 0;
	if (!x->have_nodes) {
		live_log(L, "reading Slurm's nodes: %s", err);
		snprintf(L->why, sizeof L->why, "slurm executor: cannot read its nodes: %s", err);
	}
	for (int32_t i = 0; i < L->s.cl.nnodes; i++) {
		x->nidx[i] = -1;
		for (int k = 0; x->have_nodes && k < x->nnodes; k++)
			if (strcmp(x->nodes[k].name, L->s.cl.nodes[i].name) == 0) {
				bool ours = x->cfg->npartition == 0;
				for (int p = 0; !ours && p < x->cfg->npartition; p++)
					ours = in_partitions(&x->nodes[k], x->cfg->partition[p]);
				if (ours)
					x->nidx[i] = k;
			}
	}
}

/* This tick's squeue of the open Slurm jobs. */
static int refresh_snap(struct live *L)
{
	struct sxc *x = L->xctx;
	int n = 0;
	int64_t *sids = open_sids(L, &n);
	char err[600] = "out of memory";
	free(x->snap);
	x->snap = NULL;
	x->nsnap = 0;
	x->have_snap = sids && sx_jobs_by_id(&x->c, sids, n, &x->snap, &x->nsnap, err, sizeof err) == 0;
	free(sids);
	if (!x->have_snap) {
		L->healthy = false;
		snprintf(L->why, sizeof L->why, "slurm executor: cannot read its jobs: %s", err);
		live_log(L, "reading Slurm's jobs: %s", err);
		return -1;
	}
	return 0;
}

static void slurm_flush(struct live *L)
{
	struct sxc *x = L->xctx;
	if (x->ctld_down)
		return;   /* queued until Slurm answers again */
	/* After a restart no tick has read Slurm yet: what is running decides
	 * what can be signalled and reused. */
	if (!x->have_snap && (x->nacts || x->nwant))
		refresh_snap(L);
	run_acts(L);
	/* A start's partition is the one that holds its nodes (Slurm's
	 * nodes): after a restart they are read first, else the starts wait. */
	if (x->nwant && !x->have_nodes)
		read_nodes(L);
	if (x->have_nodes)
		run_starts(L);
}

static int slurm_observe(struct live *L, struct obs *o)
{
	struct sxc *x = L->xctx;
	struct sim *s = &L->s;
	double now = wall();
	for (int32_t k = 0; k < x->later.n; k++) {
		struct rec_row r = x->later.rows[k];
		obs_add(o, &r);
	}
	obs_free(&x->later);
	/* The nodes before the jobs: a job of ours that starts between the two
	 * reads is then counted ours, never the others'. When Slurm cannot be
	 * read, /healthz says so at once, and nothing else is tried this tick
	 * (each command would wait for the controller). */
	read_nodes(L);
	if (!x->have_nodes || refresh_snap(L)) {
		x->ctld_down = true;
		L->healthy = false;
		live_publish(L);
		return 0;
	}
	x->ctld_down = false;
	L->healthy = true;
	L->why[0] = 0;
	x->last_ok = now;
	int32_t *lost = malloc(((size_t)s->nrunning + 1) * sizeof *lost);
	int nlost = 0;
	struct rqs rq = { 0 };
	for (int32_t k = 0; k < s->nrunning; k++) {
		int32_t id = s->running[k];
		struct sjob *sj = &x->j[id];
		if (sj->phase != SJ_PLACED && sj->phase != SJ_RUNNING)
			continue;
		if ((int32_t)s->jobs[id].restarts != sj->attempt)
			continue;
		const struct sx_jobinfo *ji = snap_find(x, sj->sid);
		if (ji)
			reconcile(L, o, &rq, id, ji, now);
		else if (lost)
			lost[nlost++] = id;
	}
	requeue_rows(L, o, &rq);
	gone(L, o, lost, nlost);
	free(lost);
	/* Slurm jobs of this state the engine does not run: held while the job
	 * may run again (pending, held), cancelled once it has ended. */
	for (int i = 0; i < x->nsnap; i++) {
		const struct sx_jobinfo *ji = &x->snap[i];
		if (strcmp(ji->state_id, L->state_id) != 0 || ji->key < 0 || ji->key >= s->njobs)
			continue;
		struct sjob *sj = &x->j[ji->key];
		const struct job *j = &s->jobs[ji->key];
		bool runs = (j->state == JOB_RUNNING || j->state == JOB_CHECKPOINTING) && sj->sid == ji->id &&
		            (sj->phase == SJ_PLACED || sj->phase == SJ_RUNNING || sj->phase == SJ_WANT);
		if (runs)
			continue;
		if (sx_state_final(ji->st)) {
			if (sj->sid == ji->id && sj->open) {
				sj->open = false;
				xref_close(L, ji->key, ji->id);
			}
			continue;
		}
		bool again = !job_state_final((enum job_state)j->state) && sj->sid == ji->id;
		if (!again)
			add_act(x, A_CANCEL_SID, ji->key, -1, ji->id, NULL);
		else if (ji->st == SX_RUNNING)
			add_act(x, A_REQUEUE, ji->key, -1, ji->id, NULL);
		else if (ji->st == SX_PENDING)
			add_act(x, A_HOLD, ji->key, -1, ji->id, NULL);
	}
	foreign(L, o);
	run_acts(L);
	return 0;
}

/* DOWN or not responding in Slurm is down; a node Slurm does not list
 * (not in the driven partitions) says nothing. */
static int slurm_nodes_begin(struct live *L)
{
	struct sxc *x = L->xctx;
	return x->have_nodes ? 0 : -1;
}

static int slurm_node_down(struct live *L, int32_t node)
{
	struct sxc *x = L->xctx;
	if (!x->have_nodes)
		return -1;
	if (x->nidx[node] < 0) {
		/* Not a node of the driven partitions: nothing may run there. */
		if (!x->warned_absent) {
			live_log(L, "node %s of the scenario is not in Slurm's partition%s %s: out of service",
			         L->s.cl.nodes[node].name, x->cfg->npartition > 1 ? "s" : "",
			         x->cfg->npartition ? x->cfg->partition[0] : "(default)");
			x->warned_absent = true;
		}
		return 1;
	}
	const struct sx_nodeinfo *n = &x->nodes[x->nidx[node]];
	return n->down || n->not_responding;
}

static void slurm_fini(struct live *L)
{
	struct sxc *x = L->xctx;
	if (x) {
		free(x->j);
		free(x->want);
		free(x->acts);
		free(x->snap);
		free(x->nodes);
		free(x->nidx);
		free(x->fhold);
		obs_free(&x->later);
	}
	free(x);
	L->xctx = NULL;
}

const struct lexec_ops lexec_slurm = {
	.name = "slurm",
	.init = slurm_init,
	.start = slurm_start,
	.signal = slurm_signal,
	.stop = slurm_stop,
	.node_state = slurm_node_state,
	.adopt = slurm_adopt,
	.nodes_begin = slurm_nodes_begin,
	.node_down = slurm_node_down,
	.fini = slurm_fini,
	.observe = slurm_observe,
	.flush = slurm_flush,
};
