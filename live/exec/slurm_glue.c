/* slurm_glue — the helpers of the Slurm executor (see slurm_glue.h): the
 * glue's small state changes, its action runner (signals, kills, requeues,
 * holds, drains: many commands at once), the Slurm shape of a placement
 * (partition, CPUs, memory, GRES with the site's types, account, QOS), and
 * the reads of Slurm each tick starts with (sinfo, then squeue -j of the
 * open jobs). */
#include "live/exec/slurm_glue.h"
#include "sim/mig.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

double sx_wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const struct alloc_part *sx_parts_of(const struct live *L, int32_t id)
{
	return &L->s.cl.pool.p[L->s.jobs[id].parts];
}

int sx_node_names(const struct live *L, int32_t id, const char **nodes, int max)
{
	int n = 0;
	for (int i = 0; i < L->s.jobs[id].nparts && n < max; i++)
		nodes[n++] = L->s.cl.nodes[sx_parts_of(L, id)[i].node].name;
	return n;
}

/* A slurmd that killed a job (its requeue, a node failure) refuses to
 * launch it again with a credential issued in the same second as the
 * kill ("already killed, do not launch batch job": the credential is
 * revoked when its ctime <= the kill's time, both slurmctld's clock in
 * whole seconds). Slurm delays a requeued job's next run for that (its
 * BeginTime), which a placement's StartTime=now overrides: so the
 * placement starts it two whole seconds after the second the requeue was
 * seen in (the kill was no later; one more for the hosts' clocks). */
int sx_relaunch_delay(const struct live *L, int32_t id)
{
	const struct sx_jobtrack *sj = sx_track_find(L->xctx, live_sid(L, id));
	if (!sj || sj->killed_at <= 0)
		return 0;
	int64_t d = (int64_t)floor(sj->killed_at) + 2 - (int64_t)floor(sx_wall());
	return d > 0 ? (int)d : 0;
}

/* Engine time of a Slurm time (Unix seconds); -1 for none. */
int64_t sx_eng_time(const struct live *L, int64_t unix_s)
{
	if (unix_s <= 0)
		return -1;
	int64_t t = unix_s * 1000000 - L->epoch_unix_us;
	return t > 0 ? t : 1;
}

void sx_set_ref(struct live *L, int32_t id, int64_t sid)
{
	if (sid > 0)
		snprintf(L->jx[id].ref, sizeof L->jx[id].ref, "%" PRId64, sid);
	else
		L->jx[id].ref[0] = 0;
	L->jdirty[id] = 1;
}

void sx_later_end(struct live *L, int32_t id, enum job_state st, enum end_reason why, const char *msg)
{
	struct sx_exec *x = L->xctx;
	/* Recorded at the next observe, by state id (the index may change by then). */
	struct rec_row r = { .job = live_sid(L, id), .node = -1, .kind = RIN_END,
	                     .attempt = (int32_t)L->s.jobs[id].restarts, .state = st, .reason = why,
	                     .data = (char *)msg };
	obs_add(&x->later, &r);
}

int sx_add_act(struct sx_exec *x, int kind, int64_t job, int32_t node, int64_t sid, const char *reason)
{
	if (x->nacts == x->capacts) {
		int cap = x->capacts ? 2 * x->capacts : 32;
		struct sx_act *n = realloc(x->acts, (size_t)cap * sizeof *n);
		if (!n)
			return -1;
		x->acts = n;
		x->capacts = cap;
	}
	struct sx_act *a = &x->acts[x->nacts++];
	*a = (struct sx_act){ .kind = kind, .job = job, .node = node, .sid = sid };
	snprintf(a->reason, sizeof a->reason, "%s", reason ? reason : "");
	return 0;
}

int sx_want_push(struct sx_exec *x, int64_t key)
{
	if (x->nwant == x->capwant) {
		int cap = x->capwant ? 2 * x->capwant : 64;
		int64_t *n = realloc(x->want, (size_t)cap * sizeof *n);
		if (!n)
			return -1;
		x->want = n;
		x->capwant = cap;
	}
	x->want[x->nwant++] = key;
	return 0;
}

const struct sx_jobinfo *sx_snap_find(const struct sx_exec *x, int64_t sid)
{
	if (!x->have_snap || sid <= 0)
		return NULL;
	for (int i = 0; i < x->nsnap; i++)
		if (x->snap[i].id == sid)
			return &x->snap[i];
	return NULL;
}

/* A job preempted before Slurm ran it has nothing to checkpoint: it is
 * taken back (held in Slurm when it is pending there). */
void sx_never_started(struct live *L, int32_t id, const struct sx_jobinfo *ji)
{
	struct sx_exec *x = L->xctx;
	if (id < 0 || L->s.jobs[id].state != JOB_CHECKPOINTING || sx_tj(L, id)->phase != SX_PH_PLACED)
		return;
	struct rec_row r = { .kind = RIN_UNSTART, .job = live_sid(L, id), .node = -1,
	                     .attempt = (int32_t)L->s.jobs[id].restarts,
	                     .data = (char *)"preempted before Slurm started it" };
	obs_add(&x->later, &r);
	sx_tj(L, id)->phase = SX_PH_IDLE;
	if (ji->st == SX_PENDING) {
		char err[600];
		if (sx_hold(&x->c, ji->id, err, sizeof err))
			live_log(L, "job %lld (Slurm %" PRId64 "): %s", (long long)live_sid(L, id), ji->id, err);
	}
}

void sx_run_acts(struct live *L)
{
	struct sx_exec *x = L->xctx;
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
		struct sx_act *a = &x->acts[k];
		struct sx_cmd *c = &cmds[n];
		sx_cmd_init(c);
		switch (a->kind) {
		case SX_ACT_SIGNAL: {
			const struct sx_jobinfo *ji = sx_snap_find(x, a->sid);
			if (a->sid <= 0 || (ji && ji->st != SX_RUNNING)) {
				/* Only a running job can be signalled: scancel --signal waits
				 * for a pending one to start. */
				if (ji && !sx_state_final(ji->st) && a->job >= 0)
					sx_never_started(L, live_index(L, a->job), ji);   /* -1 (it left): nothing */
				a->sid = -1;
				continue;
			}
			sx_cmd_add(c, "scancel");
			sx_cmd_add(c, "--full");
			sx_cmd_add(c, "--signal=%d", L->cfg.sig);
			sx_cmd_add(c, "%" PRId64, a->sid);
			break;
		}
		case SX_ACT_KILL:
		case SX_ACT_CANCEL_SID:
			sx_cmd_add(c, "scancel");
			sx_cmd_add(c, "%" PRId64, a->sid);
			break;
		case SX_ACT_REQUEUE:
		case SX_ACT_HOLD:
			sx_cmd_add(c, "scontrol");
			sx_cmd_add(c, a->kind == SX_ACT_REQUEUE ? "requeuehold" : "hold");
			sx_cmd_add(c, "%" PRId64, a->sid);
			break;
		case SX_ACT_DRAIN:
		case SX_ACT_RESUME:
			sx_cmd_add(c, "scontrol");
			sx_cmd_add(c, "update");
			sx_cmd_add(c, "NodeName=%s", L->s.cl.nodes[a->node].name);
			sx_cmd_add(c, "State=%s", a->kind == SX_ACT_DRAIN ? "DRAIN" : "RESUME");
			if (a->kind == SX_ACT_DRAIN)
				sx_cmd_add(c, "Reason=%s", a->reason);
			break;
		}
		pc[n] = c;
		n++;
	}
	sx_run_all(&x->c, pc, n, x->cfg->parallel);
	for (int k = 0, m = 0; k < x->nacts && m < n; k++) {
		const struct sx_act *a = &x->acts[k];
		if (a->kind == SX_ACT_SIGNAL && a->sid <= 0)
			continue;   /* not sent (see above) */
		struct sx_cmd *c = &cmds[m++];
		const char *what = a->kind == SX_ACT_SIGNAL ? "checkpoint signal" : a->kind == SX_ACT_KILL ? "cancel"
		                 : a->kind == SX_ACT_CANCEL_SID ? "cancel (stray)" : a->kind == SX_ACT_REQUEUE ? "requeue held"
		                 : a->kind == SX_ACT_HOLD ? "hold" : a->kind == SX_ACT_DRAIN ? "drain" : "resume";
		if (a->node >= 0) {
			if (c->rc)
				live_log(L, "node %s: %s in Slurm failed: %s", L->s.cl.nodes[a->node].name, what, c->err);
			else
				live_log(L, "node %s %s in Slurm", L->s.cl.nodes[a->node].name,
				         a->kind == SX_ACT_DRAIN ? "drained" : "resumed");
		} else if (c->rc && !c->no_job) {
			live_log(L, "job %" PRId64 " (Slurm %" PRId64 "): %s failed: %s%s", a->job, a->sid, what, c->err,
			         c->transient ? " (retried when Slurm answers)" : "");
		}
		/* A stray or replaced Slurm job cancelled (or gone): its row closed
		 * (until then a restart cancels it again). */
		if (a->kind == SX_ACT_CANCEL_SID && a->job >= 0 &&
		    (c->rc == 0 || c->no_job || strstr(c->err, "already completing or completed")))
			sx_xref_close(L, a->job, a->sid);
		struct sx_jobtrack *sj = a->kind == SX_ACT_REQUEUE && a->job >= 0 ? sx_track_find(x, a->job) : NULL;
		if (sj && sj->sid == a->sid)
			sj->killed_at = sx_wall();   /* killed by now: see sx_relaunch_delay */
		sx_cmd_done(c);
	}
	free(cmds);
	free(pc);
	x->nacts = 0;
}

bool sx_in_partitions(const struct sx_nodeinfo *n, const char *p)
{
	size_t k = strlen(p);
	for (const char *s = n->partitions; (s = strstr(s, p)) != NULL; s += k)
		if ((s == n->partitions || s[-1] == ',') && (s[k] == ',' || s[k] == 0))
			return true;
	return false;
}

int sx_shape_of(struct live *L, int32_t id, struct sx_shape *sh, char *why, size_t len)
{
	struct sx_exec *x = L->xctx;
	const struct job *j = &L->s.jobs[id];
	const struct live_slurm_cfg *cf = x->cfg;
	memset(sh, 0, sizeof *sh);
	const char *cls = job_class_name((enum job_class)j->cls);
	int gpn = 0, milli = 0, mig = -1;
	for (int i = 0; i < j->nparts; i++) {
		const struct alloc_part *p = &sx_parts_of(L, id)[i];
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
	const struct alloc_part *p0 = &sx_parts_of(L, id)[0];
	const struct node *n0 = &L->s.cl.nodes[p0->node];
	if (mig >= 0) {
		const struct alloc_part *p = &sx_parts_of(L, id)[mig];
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
	/* The partition: the class's when it holds every node of the
	 * placement, else the first driven partition that does. A placement no
	 * partition holds whole cannot run (a Slurm job lives in one). */
	const char *want = livecfg_map_get(&cf->class_partition, cls);
	for (int k = -1; !sh->partition && k < cf->npartition; k++) {
		const char *p = k < 0 ? want : cf->partition[k];
		if (!p)
			continue;
		bool all = x->have_nodes;
		for (int i = 0; all && i < j->nparts; i++) {
			int32_t ni = x->nidx[sx_parts_of(L, id)[i].node];
			all = ni >= 0 && sx_in_partitions(&x->nodes[ni], p);
		}
		if (all)
			sh->partition = p;
	}
	if (!sh->partition && x->have_nodes && cf->npartition > 1) {
		char place[512];
		live_placement_text(L, id, place, sizeof place);
		snprintf(why, len, "its nodes (%s) are not all in one partition: a Slurm job runs in one (give the "
		         "scenario's nodes a partition label and the jobs a require expression; docs/slurm.md)", place);
		return -1;
	}
	if (!sh->partition)
		sh->partition = want ? want : cf->npartition ? cf->partition[0] : "";
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

void sx_xref_close(struct live *L, int64_t key, int64_t sid)
{
	char err[512];
	if (lstate_xref_close(&L->st, key, sid, err, sizeof err))
		live_log(L, "%s", err);
}

void sx_xref_replace(struct live *L, int64_t key, int64_t sid)
{
	char err[512];
	if (lstate_xref_replaced(&L->st, key, sid, err, sizeof err))
		live_log(L, "%s", err);
	sx_add_act(L->xctx, SX_ACT_CANCEL_SID, key, -1, sid, NULL);
}

void sx_xref_close_later(struct live *L, int64_t key, int64_t sid)
{
	struct sx_exec *x = L->xctx;
	if (x->npclose == x->cappclose) {
		int cap = x->cappclose ? 2 * x->cappclose : 16;
		void *n = realloc(x->pclose, (size_t)cap * sizeof *x->pclose);
		if (!n) {
			sx_xref_close(L, key, sid);   /* out of memory: at once, as before */
			return;
		}
		x->pclose = n;
		x->cappclose = cap;
	}
	x->pclose[x->npclose].id = key;
	x->pclose[x->npclose].sid = sid;
	x->npclose++;
}

void sx_xref_close_due(struct live *L)
{
	struct sx_exec *x = L->xctx;
	for (int k = 0; k < x->npclose; k++)
		sx_xref_close(L, x->pclose[k].id, x->pclose[k].sid);
	x->npclose = 0;
}

int64_t *sx_open_sids(struct live *L, int *n)
{
	struct sx_exec *x = L->xctx;
	int cap = 64;
	int64_t *v = malloc((size_t)cap * sizeof *v);
	*n = 0;
	/* Every open one, of a job the engine holds or of one that left. */
	for (int32_t k = 0; v && k < x->capjt; k++) {
		const struct sx_jobtrack *t = x->jt[k];
		if (!t || t->sid <= 0 || !t->open)
			continue;
		if (*n == cap) {
			cap *= 2;
			int64_t *nv = realloc(v, (size_t)cap * sizeof *nv);
			if (!nv)
				break;
			v = nv;
		}
		v[(*n)++] = t->sid;
	}
	return v;
}

void sx_read_nodes(struct live *L)
{
	struct sx_exec *x = L->xctx;
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
					ours = sx_in_partitions(&x->nodes[k], x->cfg->partition[p]);
				if (ours)
					x->nidx[i] = k;
			}
	}
}

/* This tick's squeue of the open Slurm jobs. */
int sx_refresh_snap(struct live *L)
{
	struct sx_exec *x = L->xctx;
	int n = 0;
	int64_t *sids = sx_open_sids(L, &n);
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
