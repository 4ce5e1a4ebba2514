/* engine_power — the engine's side of the power and thermal model
 * (sim/power.h holds the model): a running job's active power and the
 * energy and cost it integrates, each node's and rack's power as
 * allocations and limits change, the rack warning, over-cap state and
 * capping controller (SIM_EV_CAP), thermal thresholds (SIM_EV_THERMAL),
 * the scenario's environment events (SIM_EV_ENV), and the integrals at
 * the end of a run. A limit that changes re-times the node's jobs.
 * Calls engine_speed.c and engine_core.c. */
#include "sim/engine.h"
#include "sim/engine_int.h"
#include "sim/power.h"

/* The active power of running job id: its cards' share of their power
 * above idle at their limit, and its cores' share of the sockets'. */
double eng_job_active_w(const struct sim *s, const struct job *j)
{
	const struct cluster *cl = &s->cl;
	double w = 0;
	for (int i = 0; i < j->nparts; i++) {
		const struct alloc_part *p = &cl->pool.p[j->parts + (uint32_t)i];
		w += eng_part_gpu_eq(cl, p) * power_gpu_active_w(cl, p->node) +
		     p->cores * power_cpu_active_w_per_core(cl, p->node);
	}
	return w;
}

/* Integrates job id's energy and its cost up to now. */
void eng_job_energy_advance(struct sim *s, int32_t id)
{
	struct jobrun *r = &s->run[id];
	struct job *j = &s->jobs[id];
	if (!s->cl.pw || s->now <= r->power_since)
		return;
	j->energy_j += r->power_w * simtime_to_s(s->now - r->power_since);
	j->energy_cost += r->power_w * power_price_integral(&s->cl.pw->cfg, r->power_since, s->now) / 3.6e6;
	r->power_since = s->now;
}

static void pw_schedule_crossing(struct sim *s, int32_t node)
{
	struct node_power *np = &s->cl.pw->node[node];
	np->ver++;
	simtime t = power_next_crossing(&s->cl, node, s->now);
	if (t != SIMTIME_INF)
		sim_push(s, t, SIM_EV_THERMAL, node, np->ver, 0);
}

/* A rack's warning (with hysteresis), over-cap state and controller. */
static void pw_rack_check(struct sim *s, int32_t rack)
{
	struct power_state *pw = s->cl.pw;
	struct rack_power *rp = &pw->rack[rack];
	bool was_warn = rp->flags & PW_RACK_WARN;
	if (rp->power_w > pw->cfg.warn_frac * rp->cap_w)
		rp->flags |= PW_RACK_WARN;
	else if (was_warn && rp->power_w < pw->cfg.resume_frac * rp->cap_w) {
		rp->flags &= (uint8_t)~PW_RACK_WARN;
		s->dirty = true;   /* it takes work again */
	}
	if (rp->power_w > rp->cap_w + 1e-9)
		rp->flags |= PW_RACK_OVER;
	else
		rp->flags &= (uint8_t)~PW_RACK_OVER;
	if (rp->power_w > rp->peak_w)
		rp->peak_w = rp->power_w;
	if (!rp->react_pending && ((rp->flags & PW_RACK_OVER) || rp->throttle < 1)) {
		rp->react_pending = true;
		sim_push(s, s->now + (pw->cfg.react_us < 1 ? 1 : pw->cfg.react_us), SIM_EV_CAP, rack, 0, 0);
	}
}

/* Node `node`'s allocation or limit changed: integrate up to now at the
 * old power, then take the new one. */
void eng_pw_node_changed(struct sim *s, int32_t node)
{
	struct cluster *cl = &s->cl;
	struct power_state *pw = cl->pw;
	int32_t rack = cl->nodes[node].rack;
	power_advance_rack(cl, rack, s->now);
	power_advance_node(cl, node, s->now);
	double p = power_node_w(cl, node);
	pw->rack[rack].power_w += p - pw->node[node].power_w;
	pw->node[node].power_w = p;
	pw_rack_check(s, rack);
	pw_schedule_crossing(s, node);
}

void eng_pw_parts_changed(struct sim *s, const struct alloc_part *parts, int n)
{
	for (int i = 0; i < n; i++)
		eng_pw_node_changed(s, parts[i].node);
}

/* Sets a node's GPU power limit: the jobs on it change power and speed. */
static int pw_set_limit(struct sim *s, int32_t node, double lim)
{
	struct cluster *cl = &s->cl;
	if (cl->pw->node[node].limit == lim)
		return 0;
	/* Energy and progress so far at the old limit. */
	power_advance_rack(cl, cl->nodes[node].rack, s->now);
	int32_t n = eng_onnode_sorted(s, node);   /* in running-list order, as a walk meets them */
	if (n < 0)
		return eng_fail(s, "out of memory");
	for (int32_t k = 0; k < n; k++)
		eng_job_energy_advance(s, s->onbuf[k]);
	cl->pw->node[node].limit = lim;
	eng_pw_node_changed(s, node);
	for (int32_t k = 0; k < n; k++) {
		int32_t id = s->onbuf[k];
		s->run[id].power_w = eng_job_active_w(s, &s->jobs[id]);
		if (sim_job_retime(s, id))
			return -1;
	}
	return 0;
}

/* A node reached a temperature threshold. */
void eng_pw_thermal(struct sim *s, int32_t node)
{
	struct cluster *cl = &s->cl;
	struct node_power *np = &cl->pw->node[node];
	const struct cooling_cfg *c = &cl->pw->cfg.cool[np->cooling];
	power_advance_rack(cl, cl->nodes[node].rack, s->now);
	power_advance_node(cl, node, s->now);
	const double eps = 1e-6;
	uint8_t old = np->flags;
	if (np->temp_c >= c->throttle_c - eps)
		np->flags |= PW_NODE_THROTTLED | PW_NODE_HOT;
	else if (np->temp_c >= c->warn_c - eps)
		np->flags |= PW_NODE_HOT;
	if ((old & (PW_NODE_HOT | PW_NODE_THROTTLED)) && np->temp_c <= c->resume_c + eps)
		np->flags &= (uint8_t)~(PW_NODE_HOT | PW_NODE_THROTTLED);
	if ((old ^ np->flags) & PW_NODE_HOT)
		s->dirty = true;
	if ((old ^ np->flags) & PW_NODE_THROTTLED)
		pw_set_limit(s, node, power_node_limit(cl, node));
	pw_schedule_crossing(s, node);
}

/* The capping controller of a rack acts. */
void eng_pw_cap(struct sim *s, int32_t rack)
{
	struct cluster *cl = &s->cl;
	struct rack_power *rp = &cl->pw->rack[rack];
	rp->react_pending = false;
	power_advance_rack(cl, rack, s->now);
	double target = power_rack_target(cl, rack);
	if (target != rp->throttle) {
		rp->throttle = target;
		const struct rack *r = &cl->racks[rack];
		for (int32_t i = r->first_node; i < r->first_node + r->nnodes; i++)
			if (pw_set_limit(s, i, power_node_limit(cl, i)))
				return;
	}
	/* Nothing more to do until the rack's load changes: a node change
	 * calls pw_rack_check, which brings the controller back. */
}

/* An environment event of the scenario. */
void eng_pw_env(struct sim *s, const struct env_event *e)
{
	struct cluster *cl = &s->cl;
	struct power_state *pw = cl->pw;
	if (e->kind == ENV_RACK_CAP) {
		power_advance_rack(cl, e->target, s->now);
		pw->rack[e->target].cap_w = e->value;
		pw_rack_check(s, e->target);
		return;
	}
	for (int32_t r = 0; r < cl->nracks; r++)
		if (cl->racks[r].cooling == e->target)
			power_advance_rack(cl, r, s->now);
	for (int32_t i = 0; i < cl->nnodes; i++)
		if (cl->nodes[i].cooling == e->target)
			power_advance_node(cl, i, s->now);
	if (e->kind == ENV_INLET)
		pw->cfg.cool[e->target].inlet_c = e->value;
	else
		pw->cfg.cool[e->target].rise_c *= e->value;
	for (int32_t i = 0; i < cl->nnodes; i++)
		if (cl->nodes[i].cooling == e->target)
			pw_schedule_crossing(s, i);
}

/* Brings every integral up to the end of the run. */
void eng_pw_finish(struct sim *s)
{
	struct cluster *cl = &s->cl;
	struct power_state *pw = cl->pw;
	for (int32_t r = 0; r < cl->nracks; r++)
		power_advance_rack(cl, r, s->now);
	pw->idle_energy_j = 0;
	for (int32_t i = 0; i < cl->nnodes; i++) {
		power_advance_node(cl, i, s->now);
		pw->idle_energy_j += power_node_idle_w(cl, i) * simtime_to_s(s->now);
	}
	for (int32_t k = 0; k < s->nrunning; k++)
		eng_job_energy_advance(s, s->running[k]);
}
