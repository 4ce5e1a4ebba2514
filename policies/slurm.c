/* slurm — Slurm 22.05's scheduler as a policy (policies/slurm.h; the
 * model and its sources: docs/slurm-twin.md). This file: the parameters,
 * the hooks, Slurm's clocks and the main scheduler's pass.
 *
 * Slurm schedules on clocks, not on every event, and a twin must too:
 * - a submit (or any other queued event) asks the background thread,
 *   which wakes every tick_s (a second and a little) and runs a pass when
 *   batch_sched_delay whole seconds have passed since its last one;
 * - a job's end runs a pass at once (its epilog-complete message;
 *   epilog_pass = 0 queues it instead);
 * - every sched_interval a pass tests the whole queue (others test
 *   default_queue_depth jobs);
 * - the backfill cycle runs bf_interval after the previous one ended,
 *   or, when nothing changed since, at the first second after a change;
 * - PriorityCalcPeriod recomputes every pending job's priority.
 * The clocks' phase is slurmctld's start (ctld_start_s). The engine calls
 * the policy at every event; between events the policy asks for a pass at
 * its next clock (decide_wake), and on a call with no clock due it does
 * nothing.
 *
 * The main pass (job_scheduler.c _schedule): the eligible pending jobs
 * sorted as Slurm sorts them (sl_sort), tried in order; a job that cannot
 * get nodes blocks its partition — its nodes are out of the pass — and a
 * job held by a QOS or association limit blocks nothing. */
#include "policies/slurm_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const struct policy_param sl_params[] = {
	[SP_MULTIFACTOR] = { "priority_multifactor", 0, 0, 1,
	                     "1: PriorityType=priority/multifactor; 0: priority/basic (first submitted first)" },
	[SP_W_AGE] = { "weight_age", 0, 0, 4294967295.0, "PriorityWeightAge" },
	[SP_W_FS] = { "weight_fairshare", 0, 0, 4294967295.0, "PriorityWeightFairshare" },
	[SP_W_SIZE] = { "weight_jobsize", 0, 0, 4294967295.0, "PriorityWeightJobSize" },
	[SP_W_PART] = { "weight_partition", 0, 0, 4294967295.0, "PriorityWeightPartition" },
	[SP_W_QOS] = { "weight_qos", 0, 0, 4294967295.0, "PriorityWeightQOS" },
	[SP_W_ASSOC] = { "weight_assoc", 0, 0, 4294967295.0, "PriorityWeightAssoc" },
	[SP_MAX_AGE] = { "max_age_s", 604800, 0, 1e10, "PriorityMaxAge, seconds: the age factor reaches 1" },
	[SP_HALFLIFE] = { "decay_halflife_s", 604800, 0, 1e10, "PriorityDecayHalfLife, seconds (0: no decay)" },
	[SP_CALC_PERIOD] = { "calc_period_s", 300, 60, 1e8, "PriorityCalcPeriod, seconds: priorities and usage recomputed" },
	[SP_FAVOR_SMALL] = { "favor_small", 0, 0, 1, "PriorityFavorSmall: 1 small jobs get the high job size factor" },
	[SP_FAIR_TREE] = { "fair_tree", 1, 0, 1, "1: Fair Tree (Slurm's default); 0: classic fair share (PriorityFlags=NO_FAIR_TREE)" },
	[SP_DAMPENING] = { "dampening", 1, 1, 65535, "FairShareDampeningFactor (classic fair share)" },
	[SP_ACCRUE_ALWAYS] = { "accrue_always", 0, 0, 1, "PriorityFlags=ACCRUE_ALWAYS: age counts from submit" },
	[SP_ENFORCE] = { "enforce_limits", 0, 0, 1,
	                 "AccountingStorageEnforce has limits: QOS and association limits apply, a job's last usage is charged" },
	[SP_SCHED_INTERVAL] = { "sched_interval_s", 60, 0, 1e8, "sched_interval: a main pass over the whole queue (0: none)" },
	[SP_BATCH_DELAY] = { "batch_sched_delay_s", 3, 0, 1e8, "batch_sched_delay: between the background thread's passes" },
	[SP_QUEUE_DEPTH] = { "default_queue_depth", 100, 0, 1e9, "default_queue_depth: jobs an event-driven pass tests" },
	[SP_PART_DEPTH] = { "partition_job_depth", 0, 0, 1e9, "partition_job_depth: jobs a pass tests per partition (0: all)" },
	[SP_MAX_START] = { "sched_max_job_start", 0, 0, 1e9, "sched_max_job_start: starts per main pass (0: any)" },
	[SP_ASSOC_STOP] = { "assoc_limit_stop", 0, 0, 1, "assoc_limit_stop: a job held by a limit blocks its partition" },
	[SP_BACKFILL] = { "backfill", 1, 0, 1, "1: SchedulerType=sched/backfill; 0: sched/builtin" },
	[SP_BF_INTERVAL] = { "bf_interval_s", 30, 1, 10800, "bf_interval: from the end of a backfill cycle to the next" },
	[SP_BF_RES] = { "bf_resolution_s", 60, 1, 3600, "bf_resolution: the time slots of backfill's plan" },
	[SP_BF_WINDOW] = { "bf_window_min", 1440, 1, 43200, "bf_window: minutes ahead backfill plans" },
	[SP_BF_MAX_TEST] = { "bf_max_job_test", 500, 1, 1e6, "bf_max_job_test: jobs a cycle plans" },
	[SP_BF_MAX_PART] = { "bf_max_job_part", 0, 0, 1e6, "bf_max_job_part: jobs a cycle tests per partition (0: any)" },
	[SP_BF_MAX_USER] = { "bf_max_job_user", 0, 0, 1e6, "bf_max_job_user: jobs a cycle tests per user (0: any)" },
	[SP_BF_MAX_START] = { "bf_max_job_start", 0, 0, 10000, "bf_max_job_start: starts per cycle (0: any)" },
	[SP_BF_MIN_AGE] = { "bf_min_age_reserve_s", 0, 0, 2592000, "bf_min_age_reserve: younger jobs get no reservation" },
	[SP_BF_MIN_PRIO] = { "bf_min_prio_reserve", 0, 0, 4294967295.0, "bf_min_prio_reserve: lower priorities get no reservation" },
	[SP_BF_SPACE] = { "bf_node_space_size", 0, 0, 2000000, "bf_node_space_size: records of backfill's plan (0: bf_max_job_test)" },
	[SP_PREEMPT_QOS] = { "preempt_qos", 0, 0, 1, "1: PreemptType=preempt/qos; 0: preempt/none" },
	[SP_PREEMPT_MODE] = { "preempt_mode", 0, 0, 2, "PreemptMode of QOS without one: 0 OFF, 1 CANCEL, 2 REQUEUE" },
	[SP_PREEMPT_EXEMPT] = { "preempt_exempt_s", 0, 0, 1e9, "PreemptExemptTime: younger jobs are not preempted" },
	[SP_KILL_WAIT] = { "kill_wait_s", 30, 0, 65533, "KillWait" },
	[SP_MSG_TIMEOUT] = { "msg_timeout_s", 10, 1, 65533, "MessageTimeout (with KillWait: no new victims for that long)" },
	[SP_REQUEUE_DELAY] = { "requeue_delay_s", 121, 0, 1e6, "a requeued job waits cred_expire + 1 seconds (AuthInfo cred_expire)" },
	[SP_JOB_REQUEUE] = { "job_requeue", 1, 0, 1, "JobRequeue: 0 victims are cancelled instead of requeued" },
	[SP_OVERTIME] = { "over_time_limit_min", 0, 0, 1e6, "OverTimeLimit, minutes" },
	[SP_EPILOG_PASS] = { "epilog_pass", 0, 0, 1, "(model) 1: a job's end runs a main pass at once (an Epilog runs); 0: at the next tick (slurmd finds it complete); a preempted job's always at once" },
	[SP_TICK] = { "tick_s", 1.003, 0.1, 60, "(model) the period of slurmctld's background thread (10 x 100 ms sleeps and its work)" },
	[SP_SUBMIT_OFFSET] = { "submit_offset_s", 0, 0, 1, "(model) mean delay of a job's arrival after its whole-second submit time: the m jobs of one second arrive at (k+1)/(m+1) of it when 0.5 (sacct's times); 0: at their submit time" },
	[SP_ARRIVAL_DRAW] = { "arrival_draw", 0, 0, 1, "(model) 1: the m jobs of one whole-second submit time arrive at m fractions of it drawn from the run's seed (in their submit order), so that runs of several seeds show what the unknown fractions do; 0: at (k+1)/(m+1) of it" },
	[SP_BF_START] = { "threads_start_s", 0.75, 0, 60, "(model) from slurmctld's start to its scheduling threads' (the first backfill cycle a bf_interval later)" },
	[SP_BF_CYCLE] = { "bf_cycle_s", 0.001, 0, 60, "(model) how long a backfill cycle takes: the next starts bf_interval after its end" },
	[SP_CTLD_START] = { "ctld_start_s", 0, -1e9, 1e9, "(model) slurmctld's start from the trace's start: the clocks' phase" },
	[SP_SHORTCUTS] = { "shortcuts", 1, 0, 1, "(model) 0: none of the twin's shortcuts (the will-run test's short way and floor, limits before a selection that cannot change them): slower, the same decisions" },
	[SP_BF_FULL_PLAN] = { "bf_full_plan", 0, 0, 1, "(model) 1: a cycle plans every job it may test, also behind the last one that could start (the same starts)" },
	[SP_NPARAM] = { NULL, 0, 0, 0, NULL },
};

/* ---- Slurm's node order: names compared naturally (strnatcmp) ---- */

static int natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			const char *ea = a, *eb = b;
			while (*ea >= '0' && *ea <= '9')
				ea++;
			while (*eb >= '0' && *eb <= '9')
				eb++;
			if (ea - a != eb - b)
				return ea - a < eb - b ? -1 : 1;
			for (; a < ea; a++, b++)
				if (*a != *b)
					return *a < *b ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++, b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

static const struct cluster *sort_cl;
static int by_name(const void *x, const void *y)
{
	int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
	int c = natcmp(sort_cl->nodes[a].name, sort_cl->nodes[b].name);
	return c ? c : (a > b) - (a < b);
}

/* Whole seconds of engine time t (Slurm's time(NULL) at t: the trace
 * starts on a whole second). */
static int64_t secs_of(simtime t)
{
	return t >= 0 ? t / SL_SEC : -((-t + SL_SEC - 1) / SL_SEC);
}

/* ---- the default site: one partition, QOS normal, an account a tenant ---- */

static int own_cfg(struct sl *st, char *err, size_t errlen)
{
	struct slurm_cfg *c = &st->own;
	memset(c, 0, sizeof *c);
	c->part = calloc(1, sizeof *c->part);
	c->qos = calloc(1, sizeof *c->qos);
	if (!c->part || !c->qos) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct slurm_part *p = &c->part[0];
	snprintf(p->name, sizeof p->name, "default");
	if (!(p->nodes = malloc((size_t)(st->cl->nnodes + 1) * sizeof *p->nodes))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int32_t i = 0; i < st->cl->nnodes; i++)
		p->nodes[i] = i;
	p->nnodes = st->cl->nnodes;
	p->prio_tier = p->prio_job_factor = 1;
	p->max_time_s = p->default_time_s = SLURM_UNLIMITED;
	p->max_nodes = p->over_time_limit_min = SLURM_UNLIMITED;
	p->qos = -1;
	p->up = p->is_default = true;
	c->npart = 1;
	struct slurm_qos *q = &c->qos[0];
	snprintf(q->name, sizeof q->name, "normal");
	q->usage_factor = 1;
	q->preempt_exempt_s = SLURM_UNLIMITED;
	for (int k = 0; k < STRES_N; k++)
		q->lim.max_tres_pu[k] = q->lim.max_tres_pj[k] = q->lim.grp_tres[k] = SLURM_UNLIMITED;
	q->lim.max_jobs_pu = q->lim.grp_jobs = q->lim.max_submit_pu = SLURM_UNLIMITED;
	q->lim.max_wall_s = SLURM_UNLIMITED;
	c->nqos = 1;
	c->cr_memory = true;
	return 0;
}

/* ---- set-up ---- */

static void sl_fini(void *state);
static simtime full_due(const struct sl *st);

static int sl_init(void **state, const struct policy_env *env, const struct policy_cfg *cfg,
                   char *err, size_t errlen)
{
	struct sl *st = calloc(1, sizeof *st);
	if (!st)
		return -1;
	const struct cluster *cl = env->cl;
	st->cl = cl;
	st->org = env->org;
	memcpy(st->p, cfg->v, sizeof st->p);
	if (env->slurm) {
		st->cfg = env->slurm;
	} else {
		if (own_cfg(st, err, errlen)) {
			sl_fini(st);
			return -1;
		}
		st->cfg = &st->own;
	}
	int32_t n = st->n = cl->nnodes;
	st->nw = (n + 63) / 64 + 1;
	size_t nw = (size_t)st->nw, np = (size_t)st->cfg->npart;
	st->ord = malloc((size_t)(n + 1) * sizeof *st->ord);
	st->pos = malloc((size_t)(n + 1) * sizeof *st->pos);
	st->weight = calloc((size_t)n + 1, sizeof *st->weight);
	st->part_bits = calloc(np * nw + 1, sizeof *st->part_bits);
	st->up = calloc(nw, 8);
	st->main_seen.up = calloc(nw, 8);
	st->bf_seen.up = calloc(nw, 8);
	st->avail = calloc(nw, 8);
	st->cand = calloc(nw, 8);
	st->tmp = calloc(nw, 8);
	st->tmp2 = calloc(nw, 8);
	st->part_failed = calloc(np + 1, 1);
	st->part_depth = calloc(np + 1, sizeof *st->part_depth);
	st->fut = calloc((size_t)n + 1, sizeof *st->fut);
	st->shfree = calloc((size_t)n + 1, sizeof *st->shfree);
	st->parts = calloc((size_t)n + 1, sizeof *st->parts);
	st->parts2 = calloc((size_t)n + 1, sizeof *st->parts2);
	st->empty = malloc(((size_t)n + 1) * sizeof *st->empty);
	st->sets = sl_sets_new(n);
	st->cpu = calloc((size_t)n + 1, sizeof *st->cpu);
	st->offer = calloc((size_t)n + 1, sizeof *st->offer);
	st->use = calloc((size_t)n + 1, sizeof *st->use);
	st->ubits = calloc(nw + 1, 8);
	st->take = calloc((size_t)n + 1, sizeof *st->take);
	st->okc = calloc((size_t)n + 1, sizeof *st->okc);
	st->pick = calloc((size_t)n + 1, sizeof *st->pick);
	if (!st->ord || !st->pos || !st->weight || !st->part_bits || !st->up || !st->avail || !st->cand ||
	    !st->tmp || !st->tmp2 || !st->main_seen.up || !st->bf_seen.up || !st->part_failed || !st->part_depth || !st->fut || !st->shfree ||
	    !st->parts || !st->parts2 || !st->empty || !st->sets || !st->cpu || !st->offer || !st->use || !st->ubits || !st->take || !st->okc ||
	    !st->pick) {
		snprintf(err, errlen, "out of memory");
		sl_fini(st);
		return -1;
	}
	memcpy(st->empty, cl->free, (size_t)n * sizeof *st->empty);
	for (int32_t i = 0; i < n; i++)
		st->ord[i] = i;
	sort_cl = cl;
	qsort(st->ord, (size_t)n, sizeof *st->ord, by_name);
	for (int32_t k = 0; k < n; k++) {
		st->pos[st->ord[k]] = k;
		st->weight[k] = st->cfg->node_weight ? st->cfg->node_weight[st->ord[k]] : 1;
		st->total_cpus += cl->nodes[st->ord[k]].cores;
	}
	for (int32_t p = 0; p < st->cfg->npart; p++) {
		const struct slurm_part *sp = &st->cfg->part[p];
		for (int32_t k = 0; k < sp->nnodes; k++)
			if (sp->nodes[k] >= 0 && sp->nodes[k] < n)
				sl_set(st->part_bits + (size_t)p * nw, st->pos[sp->nodes[k]]);
	}
	st->seed = env->seed;
	if (placer_init(&st->pl, env->placement, env->label_blind, env->seed, cl, env->njobs, err, errlen) ||
	    sl_prio_init(st, err, errlen) || sl_bf_init(st) || sl_will_run_init(st)) {
		if (!err[0])
			snprintf(err, errlen, "out of memory");
		sl_fini(st);
		return -1;
	}
	/* what passes use, sized now: the jobs, and the running jobs at most
	 * (a core or a share of a GPU each) */
	int64_t run_max = cl->total_cores + (int64_t)cl->total_gpus * HL_SHARE_MAX;
	if (env->njobs > 0 && run_max > env->njobs)
		run_max = env->njobs;
	if ((env->njobs > 0 && sl_grow_jobs(st, env->njobs)) || sl_room(st, (int32_t)(run_max < INT32_MAX / 4 ? run_max : INT32_MAX / 4))) {
		snprintf(err, errlen, "out of memory");
		sl_fini(st);
		return -1;
	}
	st->nusers = st->cfg->nusers;
	size_t nq = (size_t)st->cfg->nqos + 1, na = (size_t)st->cfg->nassoc + 1;
	st->quse = calloc(nq, sizeof *st->quse);
	st->ause = calloc(na, sizeof *st->ause);
	st->uuse = calloc(nq * ((size_t)st->nusers + 1), sizeof *st->uuse);
	if (!st->quse || !st->ause || !st->uuse) {
		snprintf(err, errlen, "out of memory");
		sl_fini(st);
		return -1;
	}
	st->ctld_us = simtime_from_s(st->p[SP_CTLD_START]);
	st->tick_us = simtime_from_s(st->p[SP_TICK]);
	st->last_bg_us = st->last_full_us = st->ctld_us + simtime_from_s(st->p[SP_BF_START]);
	st->next_full_us = full_due(st);
	st->next_decay_us = st->ctld_us;
	st->next_bf_us = st->ctld_us + simtime_from_s(st->p[SP_BF_START] + st->p[SP_BF_INTERVAL]);
	st->last_bf_us = st->ctld_us;
	st->sched_req_us = st->imm_us = -1;
	st->change_us = st->ctld_us;
	st->main_seen.acted = st->bf_seen.acted = true;   /* the first passes run */
	st->bf_planned = true;
	st->armed_us = -1;
	st->basic_next = 0xfffeffffu;
	*state = st;
	return 0;
}

static void sl_fini(void *state)
{
	struct sl *st = state;
	if (!st)
		return;
	sl_bf_fini(st);
	sl_will_run_fini(st);
	sl_prio_fini(st);
	placer_fini(&st->pl);
	if (st->cfg == &st->own) {
		for (int32_t p = 0; p < st->own.npart; p++)
			free(st->own.part[p].nodes);
		free(st->own.part);
		free(st->own.qos);
		free(st->own.assoc);
		free(st->own.users);
		free(st->own.accounts);
	}
	free(st->ord);
	free(st->pos);
	free(st->weight);
	free(st->part_bits);
	free(st->up);
	free(st->main_seen.up);
	free(st->bf_seen.up);
	free(st->avail);
	free(st->cand);
	free(st->tmp);
	free(st->tmp2);
	free(st->part_failed);
	free(st->part_depth);
	free(st->fut);
	free(st->shfree);
	free(st->parts);
	free(st->parts2);
	free(st->empty);
	free(st->sets);
	free(st->cpu);
	free(st->offer);
	free(st->use);
	free(st->ubits);
	free(st->take);
	free(st->okc);
	free(st->pick);
	free(st->job);
	free(st->victims);
	for (int k = 0; k < SLT_N; k++)
		free(st->timed[k].t);
	free(st->arrive_req.t);
	free(st->nevers);
	free(st->newjobs);
	free(st->newsub);
	free(st->q);
	free(st->qtmp);
	free(st->quse);
	free(st->uuse);
	free(st->ause);
	free(st);
}

/* ---- jobs ---- */

static int32_t map_of(const int32_t *m, int32_t n, int32_t i)
{
	return m && i >= 0 && i < n ? m[i] : -1;
}

/* queue_job_scheduler(): the background thread passes at its next tick. */
static void queue_pass(struct sl *st, simtime at)
{
	if (at > st->v->now) {   /* a job that arrives later: its request then */
		sl_fifo_push(&st->arrive_req, at);
		return;
	}
	if (st->sched_req_us < 0)
		st->sched_req_us = at;
}

/* The clocks of the time the policy was not called (nothing pending, so
 * no wake): full passes and backfill cycles that came and went and found
 * nothing to do, as Slurm's threads would have, so that the next ones fall
 * where Slurm's would. */
static void catch_up(struct sl *st)
{
	simtime now = st->v->now;
	while (st->next_full_us < now) {
		st->last_bg_us = st->last_full_us = st->next_full_us;
		st->sched_req_us = -1;
		sl_fifo_pop_to(&st->arrive_req, st->next_full_us);
		st->next_full_us = full_due(st);
	}
	while (st->next_bf_us < now) {
		if (!st->bf_planned && secs_of(st->change_us) < secs_of(st->last_bf_us)) {
			st->bf_poll_us = st->next_bf_us;   /* no work: it polls every second */
			st->next_bf_us = SIMTIME_INF;
			break;
		}
		st->bf_planned = st->v->npending > 0;
		st->last_bf_us = st->next_bf_us + simtime_from_s(st->p[SP_BF_CYCLE]);
		st->next_bf_us = st->last_bf_us + simtime_from_s(st->p[SP_BF_INTERVAL]);
	}
}

/* The i-th exponential variate of the stream of second `sec` (splitmix64
 * of the run's seed). */
static double arrival_exp(uint64_t seed, simtime sec, int32_t i)
{
	uint64_t x = seed ^ ((uint64_t)sec * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)(i + 1) * 0xBF58476D1CE4E5B9ULL);
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	x ^= x >> 31;
	return -log(1.0 - (double)(x >> 11) * 0x1.0p-53);
}

/* The jobs submitted at the last time the policy was called arrive
 * within their second: the k-th of m (in submit order) at
 * S + 2 offset (k+1)/(m+1), offset 0.5 spreading them over the second as
 * order statistics would (sacct keeps whole seconds; Slurm saw the
 * fractions), or with arrival_draw at the k-th of m sorted uniform
 * fractions drawn from the run's seed. A submit time with a fraction
 * (slurmctld's log gave it: twin build --ctld-log) is the arrival itself. */
static void settle_new(struct sl *st)
{
	int32_t m = 0, k = 0;
	double off = st->p[SP_SUBMIT_OFFSET], sum = 0, acc = 0;
	simtime sec = -1;
	for (int32_t i = 0; i < st->nnew; i++)
		if (st->newsub[i] % SL_SEC == 0) {
			m++;
			sec = st->newsub[i] / SL_SEC;
		}
	/* arrival_draw: m uniform order statistics, the partial sums of m + 1
	 * exponentials over their total */
	bool draw = st->p[SP_ARRIVAL_DRAW] >= 0.5 && m > 0;
	for (int32_t i = 0; draw && i <= m; i++)
		sum += arrival_exp(st->seed, sec, i);
	for (int32_t i = 0; i < st->nnew; i++) {
		simtime sub = st->newsub[i];
		if (sub % SL_SEC == 0 && draw)
			acc += arrival_exp(st->seed, sec, k);
		double f = draw ? 2 * off * acc / sum : 2 * off * (k + 1) / (m + 1);
		k += sub % SL_SEC == 0;
		/* a job that has left since (cancelled unsettled, then compacted)
		 * still took its place among the arrivals of its second */
		simtime begin = sub % SL_SEC ? sub : sub + simtime_from_s(f);
		if (st->newjobs[i] >= 0)
			st->job[st->newjobs[i]].begin_us = begin;
		queue_pass(st, begin);
		sl_change_at(st, SLT_ARRIVE, begin);
	}
	st->nnew = 0;
}

static void sl_submit(void *state, const struct view *v, int32_t id)
{
	struct sl *st = state;
	st->v = v;
	st->cl = v->cl;
	catch_up(st);
	if (st->nnew && st->newsub[0] != v->jobs[id].submit_us)
		settle_new(st);
	if (sl_grow_jobs(st, id))
		return;   /* out of memory: the job stays unknown and is never started */
	const struct job *j = &v->jobs[id];
	const struct slurm_cfg *c = st->cfg;
	struct sl_job *sj = &st->job[id];
	memset(sj, 0, sizeof *sj);
	sj->part = map_of(c->part_of, c->npart_of, j->queue);
	if (sj->part < 0)
		sj->part = c->default_part;
	sj->user = c->user_of ? map_of(c->user_of, c->nuser_of, j->tenant) : -1;
	sj->acct = c->acct_of ? map_of(c->acct_of, c->nacct_of, j->group) : -1;
	sj->assoc = sl_assoc_of(st, sj->user, sj->acct);
	sj->qos = map_of(c->qos_of, c->nqos_of, j->qos);
	if (sj->qos < 0 && sj->assoc >= 0 && c->assoc && c->assoc[sj->assoc].def_qos >= 0)
		sj->qos = c->assoc[sj->assoc].def_qos;
	if (sj->qos < 0)
		sj->qos = c->default_qos;
	const struct slurm_part *p = &c->part[sj->part];
	sj->pqos = p->qos;
	sj->limit_s = j->walltime_us == SIMTIME_INF ? p->default_time_s
	                                              : (j->walltime_us + SL_SEC - 1) / SL_SEC;
	sj->submit_us = j->submit_us - j->submit_us % SL_SEC;   /* Slurm's submit_time: whole seconds */
	/* Slurm sees it submit_offset_s later (a whole-second trace time is
	 * somewhere in its second) */
	sj->begin_us = j->submit_us;
	sj->accrue_us = sj->preempt_us = -1;
	sj->seen_preempt = j->preemptions;
	sj->known = true;
	bool part_time = p->max_time_s >= 0 && sj->limit_s > p->max_time_s &&
	                 !(c->qos[sj->qos].flags & SLURM_QOS_PART_TIME_LIMIT);
	if (!p->up)
		sj->never = SLN_PART_DOWN;
	else if (part_time)
		sj->never = SLN_PART_TIME;
	else if (!sl_fits_empty(st, id))
		sj->never = SLN_PART_SIZE;
	if (sj->never && st->nnever < st->cap_job)
		st->nevers[st->nnever++] = id;
	if (st->p[SP_MULTIFACTOR] >= 0.5)
		sj->prio = sl_prio_job(st, id, v->now);
	else
		sj->prio = st->basic_next > 1 ? st->basic_next-- : 1;
	placer_submit(&st->pl, j);
	st->idle_cycles = 0;
	if (st->p[SP_SUBMIT_OFFSET] > 0 && st->nnew < st->cap_job) {
		st->newsub[st->nnew] = j->submit_us;   /* its arrival is settled with the others of its second */
		st->newjobs[st->nnew++] = id;
	} else {
		sl_changed(st);
		queue_pass(st, sj->begin_us);
	}
}

static void sl_finish(void *state, const struct view *v, int32_t id)
{
	struct sl *st = state;
	st->v = v;
	st->cl = v->cl;
	catch_up(st);
	if (id >= st->cap_job || !st->job[id].known)
		return;
	struct sl_job *sj = &st->job[id];
	if (sj->counted)
		sl_limits_add(st, id, -1);
	if (v->jobs[id].start_us >= 0) {
		sl_prio_job_end(st, id);
		/* its nodes come back with the epilog-complete message, which
		 * runs a pass at once after a kill (a preempted job) or an
		 * Epilog; else slurmd finds the job complete and a pass waits
		 * for the next tick */
		if (st->p[SP_EPILOG_PASS] >= 0.5 || sj->victim)
			st->imm_us = v->now;
		else
			queue_pass(st, v->now);
	}
	sl_changed(st);
}

/* ---- the main scheduler's pass ---- */

/* A job the accounting policy holds (a QOS or association limit): it
 * blocks nothing, unless assoc_limit_stop, where it fails its partition
 * as a job without resources does (job_scheduler.c: fail_by_part; its
 * partition's nodes taken out for the rest of the pass). */
static void limit_fail(struct sl *st, struct sl_job *sj, const uint64_t *pb, bool stop)
{
	sj->why = SLW_LIMIT;
	if (stop) {
		st->part_failed[sj->part] = 1;
		sl_andnot(st->avail, pb, st->nw);
	}
}

static int main_pass(struct sl *st, bool full)
{
	const struct view *v = st->v;
	const struct cluster *cl = st->cl;
	int32_t nw = st->nw;
	bool enforce = st->p[SP_ENFORCE] >= 0.5, stop = st->p[SP_ASSOC_STOP] >= 0.5;
	sl_sort(st);
	sl_nodes_up(st);
	SL_TRACE(st, "main pass%s (%d queued)", full ? " full" : "", st->nq);
	sl_copy(st->avail, st->up, nw);
	memset(st->part_failed, 0, (size_t)st->cfg->npart);
	memset(st->part_depth, 0, (size_t)st->cfg->npart * sizeof *st->part_depth);
	int32_t depth = 0, started = 0;
	int64_t qdepth = (int64_t)st->p[SP_QUEUE_DEPTH], pdepth = (int64_t)st->p[SP_PART_DEPTH];
	int64_t max_start = (int64_t)st->p[SP_MAX_START];
	for (int32_t r = 0; r < st->nq; r++) {
		int32_t id = st->q[r].job;
		const struct job *j = &v->jobs[id];
		struct sl_job *sj = &st->job[id];
		if (j->state != JOB_PENDING)
			continue;
		if (max_start > 0 && started >= max_start)
			break;
		if (pdepth > 0 && ++st->part_depth[sj->part] > pdepth)
			continue;
		if (!full && depth++ > qdepth)
			break;
		if (st->part_failed[sj->part]) {
			sj->why = SLW_PRIORITY;
			continue;
		}
		const uint64_t *pb = st->part_bits + (size_t)sj->part * (size_t)nw;
		if (enforce && !sl_limits_pre(st, id)) {
			limit_fail(st, sj, pb, stop);
			continue;
		}
		sl_copy(st->cand, st->avail, nw);
		sl_and(st->cand, pb, nw);
		bool fail = true;
		int32_t min_nodes = j->req.nodes > 0 ? j->req.nodes : 1;
		if (sl_count(st->cand, nw) >= min_nodes) {
			/* a gang's TRES are its request's whatever nodes it gets:
			 * a job over a limit needs no selection */
			if (enforce && st->p[SP_SHORTCUTS] >= 0.5 && sl_tres_fixed(st, id) &&
			    !sl_limits_post(st, id, st->parts, 0)) {
				limit_fail(st, sj, pb, stop);
				continue;
			}
			int n = sl_select(st, id, cl->free, st->cand, false);
			bool lim_ok = !enforce || sl_limits_post(st, id, st->parts, n);
			if (n > 0 && lim_ok) {
				SL_TRACE(st, "main%s start %lld node %d", full ? " full" : "", (long long)v->jobs[id].trace_id, st->parts[0].node + 1);
				if (sl_start(st, id, st->parts, n))
					return -1;
				started++;
				continue;
			}
			if (!lim_ok) {
				limit_fail(st, sj, pb, stop);
				continue;
			}
			if (st->p[SP_PREEMPT_QOS] >= 0.5) {
				sl_copy(st->tmp2, st->up, nw);
				sl_and(st->tmp2, pb, nw);
				if (sl_preempt(st, id, st->tmp2) < 0)
					return -1;
			}
		}
		sj->why = SLW_RESOURCES;
		if (st->p[SP_BF_MIN_AGE] > 0 && v->now - sj->begin_us < simtime_from_s(st->p[SP_BF_MIN_AGE]))
			fail = false;
		if (st->p[SP_BF_MIN_PRIO] > 0 && sj->prio < st->p[SP_BF_MIN_PRIO])
			fail = false;
		if (fail) {
			st->part_failed[sj->part] = 1;
			sl_andnot(st->avail, pb, nw);
		}
	}
	return 0;
}

/* ---- the clocks ---- */

/* The first point of the grid base + k * step (k >= 0 integer) after t. */
#define SL_IDLE_PASSES 3

static simtime grid_after(simtime base, simtime step, simtime t)
{
	if (step <= 0)
		return SIMTIME_INF;
	if (t < base)
		return base;
	return base + ((t - base) / step + 1) * step;
}

/* The background thread's first tick at or after t. */
static simtime tick_from(const struct sl *st, simtime t)
{
	if (t <= st->ctld_us)
		return st->ctld_us + st->tick_us;
	simtime k = (t - st->ctld_us + st->tick_us - 1) / st->tick_us;
	return st->ctld_us + (k > 0 ? k : 1) * st->tick_us;
}

/* The first tick at or after t whose second is at least `sec`. */
static simtime tick_at_sec(const struct sl *st, simtime t, int64_t sec)
{
	simtime from = sec * SL_SEC > t ? sec * SL_SEC : t;
	return tick_from(st, from);
}

/* The tick of the next full pass: sched_interval whole seconds after the
 * last one. */
static simtime full_due(const struct sl *st)
{
	if (st->p[SP_SCHED_INTERVAL] <= 0)
		return SIMTIME_INF;
	return tick_at_sec(st, st->last_full_us + 1, secs_of(st->last_full_us) + (int64_t)st->p[SP_SCHED_INTERVAL]);
}

/* The tick that runs a queued pass: the first after the request once
 * batch_sched_delay whole seconds have passed since the last pass. */
static simtime bg_due(const struct sl *st)
{
	simtime req = st->sched_req_us;
	const struct sl_fifo *f = &st->arrive_req;
	if (f->n > 0 && (req < 0 || f->t[f->head] < req))
		req = f->t[f->head];
	if (req < 0)
		return SIMTIME_INF;
	return tick_at_sec(st, req, secs_of(st->last_bg_us) + (int64_t)st->p[SP_BATCH_DELAY]);
}

/* Victims requeued since the last call: Slurm's batch_requeue_fini. */
static void watch_victims(struct sl *st)
{
	const struct view *v = st->v;
	int32_t k = 0;
	for (int32_t i = 0; i < st->nvictims; i++) {
		int32_t id = st->victims[i];
		const struct job *j = &v->jobs[id];
		struct sl_job *sj = &st->job[id];
		if (j->state == JOB_PENDING && j->preemptions != sj->seen_preempt) {
			sj->seen_preempt = j->preemptions;
			if (sj->counted)
				sl_limits_add(st, id, -1);
			sl_prio_job_end(st, id);
			sj->submit_us = v->now;
			sj->begin_us = v->now + simtime_from_s(st->p[SP_REQUEUE_DELAY]);
			sl_change_at(st, SLT_BEGIN, sj->begin_us);
			sj->accrue_us = -1;
			sj->victim = false;
			st->imm_us = v->now;   /* its epilog's message: the preemptor starts */
			sl_changed(st);
			continue;
		}
		if (job_state_final((enum job_state)j->state)) {
			sj->victim = false;
			continue;
		}
		st->victims[k++] = id;
	}
	st->nvictims = k;
}

static bool future_begin(const struct sl *st)
{
	const struct view *v = st->v;
	for (int32_t i = 0; i < v->npending; i++) {
		int32_t id = v->pending[i];
		if (id < st->cap_job && st->job[id].known && st->job[id].begin_us > v->now && !st->job[id].never)
			return true;
	}
	return false;
}

/* Jobs that can never start pend for ever in Slurm, with a reason: here
 * they are held with it, so that the run can end. */
static void hold_never(struct sl *st)
{
	static const char *const why[SLN_NKIND] = {
		[SLN_PART_TIME] = "PartitionTimeLimit", [SLN_PART_SIZE] = "PartitionConfig",
		[SLN_PART_DOWN] = "PartitionDown", [SLN_LIMIT] = "QOS or association limit",
	};
	for (int32_t i = 0; i < st->nnever; i++) {
		int32_t id = st->nevers[i];
		if (st->v->jobs[id].state != JOB_PENDING)
			continue;
		if (decide_noting(st->out)) {
			char w[400];
			sl_never_text(st, id, w, sizeof w);
			decide_note(st->out, id, "%s", w);
		}
		decide_hold(st->out, id, why[st->job[id].never]);
	}
	st->nnever = 0;
}

static void arm(struct sl *st)
{
	const struct view *v = st->v;
	simtime now = v->now, t = SIMTIME_INF;
	bool pend = v->npending > 0;
	/* Periodic passes while they may change something: with nothing
	 * running, a few passes that started nothing mean nothing will until
	 * the next event (a submit, a node back, a begin time reached). */
	bool live = pend && (v->nrunning > 0 || st->idle_cycles < SL_IDLE_PASSES || future_begin(st));
	simtime b = bg_due(st);
	if (b < t)
		t = b;
	if (st->imm_us > now && st->imm_us < t)
		t = st->imm_us;
	if (live && st->next_full_us < t)
		t = st->next_full_us;
	if (live && st->p[SP_BACKFILL] >= 0.5 && st->next_bf_us < t)
		t = st->next_bf_us;
	if (st->p[SP_MULTIFACTOR] >= 0.5 && (live || v->nrunning > 0) && st->next_decay_us < t)
		t = st->next_decay_us;
	if (st->p[SP_BACKFILL] >= 0.5 && st->next_bf_us == SIMTIME_INF) {
		/* backfill polls: the change that ends it must be seen when it
		 * happens (a job arriving), for the poll after it */
		for (int k = 0; k < SLT_N; k++)
			if (st->timed[k].n > 0 && st->timed[k].t[st->timed[k].head] < t)
				t = st->timed[k].t[st->timed[k].head];
	}
	if (t == SIMTIME_INF || t <= now)
		return;
	if (st->armed_us > now && st->armed_us <= t)
		return;
	if (decide_wake(st->out, t) == 0)
		st->armed_us = t;
}

/* A pass can start or preempt something only if something changed since
 * the last one that started nothing: a job's state or priority (hooks,
 * ticks), an allocation (the epoch), a node's service state, a begin time
 * or a preemptor's quiet time passed; or this pass looks deeper (a full
 * pass after an event-driven one). Time alone only shrinks what backfill
 * may start (its plans stay where the running jobs' limits put them), so a
 * pass that would see the same state is not made: its decisions would be
 * the same, none. */
static bool pass_needed(struct sl *st, struct sl_seen *seen, bool full)
{
	sl_nodes_up(st);
	bool up_same = seen->up && memcmp(seen->up, st->up, (size_t)st->nw * 8) == 0;
	if (seen->acted || !up_same || seen->nchange != st->nchange || seen->epoch != st->v->alloc_epoch ||
	    (full && !seen->full))
		return true;
	return false;
}

static void pass_seen(struct sl *st, struct sl_seen *seen, bool full, bool acted)
{
	seen->nchange = st->nchange;
	seen->epoch = st->v->alloc_epoch;
	seen->acted = acted;
	seen->full = full;
	if (seen->up)
		memcpy(seen->up, st->up, (size_t)st->nw * 8);
}

static int main_pass_if(struct sl *st, bool full)
{
	if (!pass_needed(st, &st->main_seen, full))
		return 0;
	bool before = st->acted;
	st->acted = false;
	if (main_pass(st, full))
		return -1;
	pass_seen(st, &st->main_seen, full, st->acted);
	st->acted |= before;
	return 0;
}

/* Jobs arrived, begin times passed and preemptors' quiet times over are
 * changes. */
static void clock_changes(struct sl *st)
{
	simtime now = st->v->now;
	simtime first = SIMTIME_INF;
	for (int k = 0; k < SLT_N; k++) {
		struct sl_fifo *f = &st->timed[k];
		if (f->n > 0 && f->t[f->head] <= now && f->t[f->head] < first)
			first = f->t[f->head];
		sl_fifo_pop_to(f, now);
	}
	if (first != SIMTIME_INF)
		sl_touched_at(st, first);
}

static void sl_schedule(void *state, const struct view *v, struct decide *out)
{
	struct sl *st = state;
	st->v = v;
	st->cl = v->cl;   /* the engine owns the cluster: it moved after init */
	st->out = out;
	catch_up(st);
	if (st->nnew)
		settle_new(st);
	st->acted = false;
	simtime now = v->now;
	if (st->nvictims)
		watch_victims(st);
	if (st->nnever)
		hold_never(st);
	clock_changes(st);
	if (st->idle_cycles >= SL_IDLE_PASSES && st->armed_us <= now) {
		/* called while idle: an event the policy has no hook for (a
		 * node back in service): Slurm passes after it */
		st->idle_cycles = 0;
		queue_pass(st, now);
	}
	if (st->p[SP_MULTIFACTOR] >= 0.5 && st->next_decay_us <= now) {
		st->next_decay_us = grid_after(st->ctld_us, simtime_from_s(st->p[SP_CALC_PERIOD]), now);
		sl_prio_tick(st);
		if (v->npending > 0)
			sl_touched(st);
	}
	bool full = st->next_full_us <= now;
	bool periodic = full;
	if (full || bg_due(st) <= now) {
		st->last_bg_us = now;
		if (full) {
			st->last_full_us = now;
			st->next_full_us = full_due(st);
		}
		st->sched_req_us = -1;
		sl_fifo_pop_to(&st->arrive_req, now);
		if (v->npending > 0 && main_pass_if(st, full))
			return;
	}
	if (st->imm_us >= 0 && st->imm_us <= now) {
		st->imm_us = -1;
		if (v->npending > 0 && main_pass_if(st, false))
			return;
	}
	if (st->p[SP_BACKFILL] >= 0.5 && st->next_bf_us <= now) {
		if (st->bf_planned || secs_of(st->change_us) >= secs_of(st->last_bf_us)) {
			periodic = true;
			if (v->npending > 0) {
				if (pass_needed(st, &st->bf_seen, true)) {
					bool before = st->acted;
					st->acted = false;
					sl_bf_cycle(st);
					pass_seen(st, &st->bf_seen, true, st->acted);
					st->acted |= before;
				}
			} else {
				st->bf_planned = false;
			}
			st->last_bf_us = now + simtime_from_s(st->p[SP_BF_CYCLE]);
			st->next_bf_us = st->last_bf_us + simtime_from_s(st->p[SP_BF_INTERVAL]);
		} else {
			st->bf_poll_us = st->next_bf_us;   /* it polls every second from here */
			st->next_bf_us = SIMTIME_INF;
			SL_TRACE(st, "bf no work, polls");
		}
	}
	if (periodic && !st->acted && v->nrunning == 0)
		st->idle_cycles++;
	arm(st);
	if (decide_noting(out))
		sl_notes(st);
}

const struct policy_ops policy_slurm = {
	.name = "slurm",
	.summary = "Slurm 22.05: multifactor priority, main and backfill schedulers, cons_tres, QOS preemption",
	.params = sl_params,
	.init = sl_init,
	.fini = sl_fini,
	.submit = sl_submit,
	.finish = sl_finish,
	.schedule = sl_schedule,
	.renumber = sl_renumber,
	.save = sl_snap_save,
	.load = sl_snap_load,
};
