/* live_fixture — the engine in live mode for tests/unit/test_live.c:
 * a fake executor that logs every call, a two-node scenario, and struct lt
 * (scenario, engine, policy, health monitor, fake) with its helpers:
 * lt_new* builds it as live/daemon.c's build() does, lt_add adds a job,
 * lt_step_to handles the events up to a time, xfind/xcount look in the
 * call log, job_node is where a job runs. Static functions: one test
 * file includes it. */
#ifndef HL_TEST_LIVE_FIXTURE_H
#define HL_TEST_LIVE_FIXTURE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/health.h"
#include "policies/policy.h"
#include "sim/engine.h"
#include "sim/fault.h"
#include "sim/live.h"
#include "config/scenario.h"

#define S(x) simtime_from_s(x)

/* ---- the engine in live mode ---- */

enum { X_START, X_STOP, X_SIGNAL, X_NODE };

struct xcall {
	int op;
	int32_t id;          /* job, or node for X_NODE */
	int how;             /* stop: enum exec_stop; node: drain */
	simtime t;
	char reason[64];
};

struct fake {
	struct xcall c[256];
	int n;
};

static struct fake *fake_of(void *ctx) { return ctx; }

static struct xcall *xlog(void *ctx, const struct sim *s, int op, int32_t id, int how)
{
	struct fake *f = fake_of(ctx);
	assert_true(f->n < 256);
	struct xcall *c = &f->c[f->n++];
	*c = (struct xcall){ .op = op, .id = id, .how = how, .t = s->now };
	return c;
}

static int fx_start(void *ctx, struct sim *s, int32_t job)
{
	xlog(ctx, s, X_START, job, 0);
	return 0;
}

static int fx_stop(void *ctx, struct sim *s, int32_t job, enum exec_stop how)
{
	xlog(ctx, s, X_STOP, job, (int)how);
	return 0;
}

static int fx_signal(void *ctx, struct sim *s, int32_t job)
{
	xlog(ctx, s, X_SIGNAL, job, 0);
	return 0;
}

static int fx_node(void *ctx, struct sim *s, int32_t node, bool drain, const char *reason)
{
	struct xcall *c = xlog(ctx, s, X_NODE, node, drain);
	snprintf(c->reason, sizeof c->reason, "%s", reason ? reason : "(null)");
	return 0;
}

static const struct executor_ops fake_ops = {
	.name = "fake",
	.start = fx_start,
	.stop = fx_stop,
	.signal = fx_signal,
	.node_state = fx_node,
};

/* Two 2-core CPU nodes, h1 and h2; training checkpoints within 2 s. */
static const char live_scn[] =
	"{ \"name\": \"live-unit\", \"seed\": 1, \"sample_interval_s\": 0,\n"
	"  \"node_types\": [ { \"name\": \"cpu2\", \"cpu\": \"Xeon-6348\", \"sockets\": 1, \"cores\": 2, \"mem_gib\": 8 } ],\n"
	"  \"racks\": [ { \"name\": \"r1\", \"power_kw\": 15, \"nodes\": [ { \"type\": \"cpu2\", \"count\": 2,\n"
	"                 \"names\": [\"h1\", \"h2\"] } ] } ],\n"
	"  \"checkpoint\": { \"training\": { \"grace_s\": 2 } } }\n";

struct lt {
	struct scenario sc;
	struct sim s;
	const struct policy_ops *pol;
	void *ps;
	struct sim_health hm;
	struct fake x;
};

/* Builds a live engine as live/daemon.c's build() does, without a daemon;
 * async: starts run only once the executor says so, and fates: what a node
 * failure does to its jobs is the executor's to say (both: the Slurm
 * executor). */
static struct lt *lt_new_xf(const char *policy, double hot_c, double cool_c, bool async, bool fates)
{
	struct lt *t = calloc(1, sizeof *t);
	assert_non_null(t);
	char err[1024] = "";
	if (scenario_load_text(live_scn, "live-unit.json", ".", &t->sc, err, sizeof err))
		fail_msg("%s", err);
	assert_false(t->sc.has_workload);
	struct sim_cfg scfg = {
		.horizon_us = SIMTIME_INF,
		.keep_overruns = false,
		.org = &t->sc.org,
		.fault = &t->sc.fault,
		.seed = t->sc.seed,
	};
	struct sim_live_cfg lcfg = {
		.async_start = async,
		.exec_fates = fates,
		.hot_c = hot_c,
		.cool_c = cool_c,
		.xid_repair_s = 3600,
	};
	memcpy(scfg.ckpt, t->sc.ckpt, sizeof scfg.ckpt);
	for (int k = 0; k < FAULT_NKIND; k++)
		t->sc.fault.proc[k].dist = FDIST_NONE;
	t->sc.fault.health.enabled = true;
	t->sc.fault.health.min_gpu_speed = 0.5;
	t->pol = policy_find(policy);
	assert_non_null(t->pol);
	struct policy_cfg pcfg;
	policy_cfg_defaults(t->pol, &pcfg);
	int k = policy_param_index(t->pol, "preempt_exempt_s");
	if (k >= 0)
		pcfg.v[k] = 0;
	struct policy_env env = { .cl = &t->sc.cl, .njobs = 64, .placement = "first-fit", .seed = t->sc.seed,
	                          .org = &t->sc.org, .sim = &scfg, .tiered = t->sc.tiered };
	if (t->pol->init && t->pol->init(&t->ps, &env, &pcfg, err, sizeof err))
		fail_msg("%s", err);
	assert_int_equal(sim_init(&t->s, &scfg, &t->sc.cl, NULL, NULL, 0), 0);
	assert_int_equal(sim_live_init(&t->s, &lcfg), 0);
	struct sim_sched sched;
	policy_to_sched(t->pol, t->ps, &sched);
	sim_set_sched(&t->s, &sched);
	assert_int_equal(health_init(&t->hm, &t->sc.fault.health), 0);
	sim_set_health(&t->s, &t->hm);
	sim_set_executor(&t->s, &fake_ops, &t->x);
	assert_int_equal(t->s.cl.nnodes, 2);
	assert_non_null(t->s.cl.health);
	return t;
}

static struct lt *lt_new_x(const char *policy, double hot_c, double cool_c, bool async)
{
	return lt_new_xf(policy, hot_c, cool_c, async, false);
}

static struct lt *lt_new(const char *policy, double hot_c, double cool_c)
{
	return lt_new_x(policy, hot_c, cool_c, false);
}

static void lt_free(struct lt *t)
{
	sim_fini(&t->s);
	health_fini(&t->hm);
	if (t->pol->fini)
		t->pol->fini(t->ps);
	scenario_free(&t->sc);
	free(t);
}

static int32_t lt_add(struct lt *t, simtime at, int cls, int cores, double wall_s)
{
	struct job j;
	job_init(&j, 0, at);
	j.cls = (uint8_t)cls;
	j.req = (struct job_req){ .nodes = 1, .cores = cores };
	j.walltime_us = wall_s > 0 ? S(wall_s) : SIMTIME_INF;
	int32_t id = sim_add_job(&t->s, &j, NULL);
	assert_true(id >= 0);
	return id;
}

/* Handles every event up to time `to` (as the daemon's advance_to). */
static void lt_step_to(struct lt *t, simtime to)
{
	while (sim_next_time(&t->s) <= to)
		if (sim_step(&t->s) < 0)
			fail_msg("%s", t->s.err);
}

/* The index of the first call after `from` matching op and id, or -1. */
static int xfind(const struct fake *f, int from, int op, int32_t id)
{
	for (int k = from; k < f->n; k++)
		if (f->c[k].op == op && f->c[k].id == id)
			return k;
	return -1;
}

static int xcount(const struct fake *f, int op)
{
	int n = 0;
	for (int k = 0; k < f->n; k++)
		n += f->c[k].op == op;
	return n;
}

static int job_node(const struct lt *t, int32_t id)
{
	const struct job *j = &t->s.jobs[id];
	return j->nparts ? t->s.cl.pool.p[j->parts].node : -1;
}

#endif
