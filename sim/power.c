/* power — the power, thermal and facility models. See power.h and
 * docs/models.md ("Power", "Thermal", "Facility"). The engine drives it
 * (sim/engine_power.c: node changes, thermal crossings, the capping
 * controller). */
#include "sim/power.h"
#include "sim/cluster.h"
#include "sim/mig.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void power_cfg_defaults(struct power_cfg *c)
{
	memset(c, 0, sizeof *c);
	c->warn_frac = 0.9;
	c->resume_frac = 0.85;
	c->react_us = 10 * SIMTIME_SEC;
	c->min_throttle = 0.4;
	c->speed_exp = 0.5;
	c->thermal_throttle = 0.6;
	/* Air: 25 °C inlet, a fully loaded node 58 °C above it — over the
	 * 80 °C warning, under the 90 °C throttle; 5 min time constant. */
	c->cool[COOL_AIR] = (struct cooling_cfg){
		.inlet_c = 25, .rise_c = 58, .tau_s = 300, .warn_c = 80, .throttle_c = 90, .resume_c = 75,
		.pue_base = 1.35, .pue_slope = 0.02, .pue_knee_c = 15,
	};
	/* Liquid: warm-water cooling, 32 °C supply, 30 °C rise, 10 min. */
	c->cool[COOL_LIQUID] = (struct cooling_cfg){
		.inlet_c = 32, .rise_c = 30, .tau_s = 600, .warn_c = 80, .throttle_c = 90, .resume_c = 75,
		.pue_base = 1.08, .pue_slope = 0.005, .pue_knee_c = 20,
	};
	/* Gui'an, Guizhou: mild (annual mean about 15 °C, daily swing ±4 °C,
	 * warmest mid-afternoon); a time-of-use tariff of the Chinese
	 * industrial kind (valley 0–8 h, peaks 10–15 h and 18–21 h), in CNY per
	 * kWh; grid carbon about 500 g/kWh. Estimates: docs/models.md. */
	c->site.mean_c = 15;
	c->site.amplitude_c = 4;
	c->site.peak_hour = 15;
	for (int h = 0; h < 24; h++) {
		c->site.price_kwh[h] = h < 8 ? 0.32 : (h >= 10 && h < 15) || (h >= 18 && h < 21) ? 0.98 : 0.62;
		c->site.carbon_g_kwh[h] = 500;
	}
}

int power_init(struct cluster *cl, const struct power_cfg *cfg)
{
	struct power_state *pw = calloc(1, sizeof *pw);
	if (!pw)
		return -1;
	pw->cfg = *cfg;
	pw->node = calloc((size_t)cl->nnodes + 1, sizeof *pw->node);
	pw->rack = calloc((size_t)cl->nracks + 1, sizeof *pw->rack);
	if (!pw->node || !pw->rack) {
		free(pw->node);
		free(pw->rack);
		free(pw);
		return -1;
	}
	cl->pw = pw;
	for (int32_t r = 0; r < cl->nracks; r++) {
		pw->rack[r].cap_w = cl->racks[r].cap_w;
		pw->rack[r].throttle = 1;
	}
	for (int32_t i = 0; i < cl->nnodes; i++) {
		struct node_power *np = &pw->node[i];
		np->cooling = (uint8_t)cl->nodes[i].cooling;
		np->max_w = power_node_max_w(cl, i);
		np->limit = 1;
		np->power_w = power_node_w(cl, i);
		np->temp_c = power_node_steady_c(cl, i, np->power_w);   /* idle and settled at t = 0 */
		pw->rack[cl->nodes[i].rack].power_w += np->power_w;
	}
	for (int32_t r = 0; r < cl->nracks; r++)
		pw->rack[r].peak_w = pw->rack[r].power_w;
	return 0;
}

void power_fini(struct cluster *cl)
{
	if (!cl->pw)
		return;
	free(cl->pw->node);
	free(cl->pw->rack);
	free(cl->pw);
	cl->pw = NULL;
}

/* ---- device and node power ---- */

/* Busy fraction of GPU g of node: a whole card 1, time-sliced shares their
 * milli (at most a card), a MIG card its busy compute slices. */
static double gpu_busy(const struct cluster *cl, const struct node *n, int g)
{
	const struct gpustate *gs = &cl->gpu[n->gpu0 + g];
	if (gs->mig) {
		int busy = 0;
		for (int i = 0; i < MIG_SLICES_MAX; i++)
			if (gs->mig->inst[i].profile >= 0 && gs->mig->inst[i].busy)
				busy += gs->mig->card->profiles[gs->mig->inst[i].profile].compute_slices;
		return (double)busy / gs->mig->card->compute_slices;
	}
	if (gs->nshare > 0)
		return gs->milli_used >= HL_MILLI ? 1.0 : gs->milli_used / (double)HL_MILLI;
	return ((cl->free[n->id].gpu_free >> g) & 1u) ? 0.0 : 1.0;
}

double power_gpu_active_w(const struct cluster *cl, int node)
{
	const struct node *n = &cl->nodes[node];
	if (n->gpu_model < 0)
		return 0;
	const struct gpu_model *g = &cl->cat.gpus[n->gpu_model];
	double lim = cl->pw ? cl->pw->node[node].limit : 1.0;
	double a = lim * g->tdp_w - g->idle_w;
	return a > 0 ? a : 0;
}

double power_node_idle_w(const struct cluster *cl, int node)
{
	const struct node *n = &cl->nodes[node];
	const struct node_type *t = &cl->types[n->type];
	double p = t->base_w;
	if (n->gpu_model >= 0)
		p += n->ngpus * cl->cat.gpus[n->gpu_model].idle_w;
	if (n->cpu_model >= 0)
		p += t->sockets * cl->cat.cpus[n->cpu_model].idle_w;
	return p;
}

double power_node_max_w(const struct cluster *cl, int node)
{
	const struct node *n = &cl->nodes[node];
	const struct node_type *t = &cl->types[n->type];
	double p = t->base_w;
	if (n->gpu_model >= 0)
		p += n->ngpus * cl->cat.gpus[n->gpu_model].tdp_w;
	if (n->cpu_model >= 0)
		p += t->sockets * cl->cat.cpus[n->cpu_model].tdp_w;
	return p > 1 ? p : 1;
}

double power_cpu_active_w_per_core(const struct cluster *cl, int node)
{
	const struct node *n = &cl->nodes[node];
	const struct node_type *t = &cl->types[n->type];
	if (n->cpu_model < 0 || n->cores <= 0)
		return 0;
	const struct cpu_model *c = &cl->cat.cpus[n->cpu_model];
	return t->sockets * (c->tdp_w - c->idle_w) / n->cores;
}

double power_node_w(const struct cluster *cl, int node)
{
	const struct node *n = &cl->nodes[node];
	if (cl->svc && cl->svc[node] == NODE_ABSENT)
		return 0;   /* not in the cluster (yet, or any more): it draws nothing */
	double p = power_node_idle_w(cl, node);
	double act = power_gpu_active_w(cl, node);
	for (int g = 0; g < n->ngpus && act > 0; g++)
		p += gpu_busy(cl, n, g) * act;
	p += (double)(n->cores - cl->free[node].cores) * power_cpu_active_w_per_core(cl, node);
	return p;
}

double power_busy_gpus(const struct cluster *cl, int node)
{
	const struct node *n = &cl->nodes[node];
	double b = 0;
	for (int g = 0; g < n->ngpus; g++)
		b += gpu_busy(cl, n, g);
	return b;
}

/* ---- thermal ---- */

double power_node_steady_c(const struct cluster *cl, int node, double power_w)
{
	const struct node_power *np = &cl->pw->node[node];
	const struct cooling_cfg *c = &cl->pw->cfg.cool[np->cooling];
	return c->inlet_c + c->rise_c * power_w / np->max_w;
}

double power_node_temp_at(const struct cluster *cl, int node, simtime t)
{
	const struct node_power *np = &cl->pw->node[node];
	const struct cooling_cfg *c = &cl->pw->cfg.cool[np->cooling];
	double ss = power_node_steady_c(cl, node, np->power_w);
	if (t <= np->at || !(c->tau_s > 0))
		return np->temp_c;
	return ss + (np->temp_c - ss) * exp(-simtime_to_s(t - np->at) / c->tau_s);
}

void power_advance_node(struct cluster *cl, int node, simtime now)
{
	struct node_power *np = &cl->pw->node[node];
	if (now <= np->at)
		return;
	double dt = simtime_to_s(now - np->at);
	const struct cooling_cfg *c = &cl->pw->cfg.cool[np->cooling];
	double ss = power_node_steady_c(cl, node, np->power_w);
	np->temp_c = ss + (np->temp_c - ss) * exp(-dt / c->tau_s);
	np->energy_j += np->power_w * dt;
	np->at = now;
}

/* Seconds from now until the temperature, heading for ss from t0 with time
 * constant tau, crosses x; INFINITY when it never does. */
static double cross_s(double t0, double ss, double tau, double x)
{
	if ((x - t0) * (ss - t0) <= 0 || fabs(ss - x) < 1e-12 || (x - ss) * (x - t0) > 0)
		return INFINITY;   /* x not between t0 and the steady state */
	return -tau * log((x - ss) / (t0 - ss));
}

simtime power_next_crossing(const struct cluster *cl, int node, simtime now)
{
	const struct node_power *np = &cl->pw->node[node];
	const struct cooling_cfg *c = &cl->pw->cfg.cool[np->cooling];
	double ss = power_node_steady_c(cl, node, np->power_w), best = INFINITY, t;
	if (!(np->flags & PW_NODE_HOT) && (t = cross_s(np->temp_c, ss, c->tau_s, c->warn_c)) < best)
		best = t;
	if (!(np->flags & PW_NODE_THROTTLED) && (t = cross_s(np->temp_c, ss, c->tau_s, c->throttle_c)) < best)
		best = t;
	if ((np->flags & (PW_NODE_HOT | PW_NODE_THROTTLED)) && (t = cross_s(np->temp_c, ss, c->tau_s, c->resume_c)) < best)
		best = t;
	if (!isfinite(best))
		return SIMTIME_INF;
	simtime dt = (simtime)ceil(best * 1e6);
	return now + (dt < 1 ? 1 : dt);
}

/* ---- site: outside temperature, PUE, tariff ---- */

double power_outside_c(const struct power_cfg *cfg, simtime t)
{
	double h = fmod(simtime_to_s(t) / 3600.0, 24.0);
	return cfg->site.mean_c + cfg->site.amplitude_c * cos(2 * M_PI * (h - cfg->site.peak_hour) / 24.0);
}

double power_pue(const struct power_cfg *cfg, int cooling, double outside_c)
{
	const struct cooling_cfg *c = &cfg->cool[cooling];
	return c->pue_base + c->pue_slope * (outside_c > c->pue_knee_c ? outside_c - c->pue_knee_c : 0);
}

/* ∫ f over [t0, t1] (seconds × f) for the hour-of-day step functions and
 * the PUE curve: hours are exact; PUE is integrated with the midpoint rule
 * over 15-minute steps (it changes slowly). */
static double hour_integral(const double *per_hour, simtime t0, simtime t1)
{
	double sum = 0;
	while (t0 < t1) {
		simtime hour = t0 / SIMTIME_HOUR;
		simtime next = (hour + 1) * SIMTIME_HOUR;
		simtime e = next < t1 ? next : t1;
		sum += per_hour[hour % 24] * simtime_to_s(e - t0);
		t0 = e;
	}
	return sum;
}

double power_price_integral(const struct power_cfg *cfg, simtime t0, simtime t1)
{
	return hour_integral(cfg->site.price_kwh, t0, t1);
}

double power_carbon_integral(const struct power_cfg *cfg, simtime t0, simtime t1)
{
	return hour_integral(cfg->site.carbon_g_kwh, t0, t1);
}

double power_pue_integral(const struct power_cfg *cfg, int cooling, simtime t0, simtime t1)
{
	double sum = 0;
	const simtime step = 15 * SIMTIME_MIN;
	while (t0 < t1) {
		simtime e = (t0 / step + 1) * step;
		if (e > t1)
			e = t1;
		sum += power_pue(cfg, cooling, power_outside_c(cfg, t0 + (e - t0) / 2)) * simtime_to_s(e - t0);
		t0 = e;
	}
	return sum;
}

/* ---- racks ---- */

void power_advance_rack(struct cluster *cl, int rack, simtime now)
{
	struct power_state *pw = cl->pw;
	struct rack_power *rp = &pw->rack[rack];
	if (now <= rp->since)
		return;
	double dt = simtime_to_s(now - rp->since);
	double e = rp->power_w * dt;
	double fac = rp->power_w * power_pue_integral(&pw->cfg, cl->racks[rack].cooling, rp->since, now);
	double cost = rp->power_w * power_price_integral(&pw->cfg, rp->since, now) / 3.6e6;
	double co2 = rp->power_w * power_carbon_integral(&pw->cfg, rp->since, now) / 3.6e6;
	rp->energy_j += e;
	rp->facility_j += fac;
	rp->cost += cost;
	rp->carbon_g += co2;
	pw->it_energy_j += e;
	pw->facility_energy_j += fac;
	pw->cost += cost;
	pw->carbon_g += co2;
	if (rp->flags & PW_RACK_WARN)
		rp->warn_us += now - rp->since;
	if (rp->flags & PW_RACK_OVER)
		rp->over_us += now - rp->since;
	const struct rack *r = &cl->racks[rack];
	for (int32_t i = r->first_node; i < r->first_node + r->nnodes; i++)
		if (pw->node[i].limit < 1)
			rp->throttled_dev_s += power_busy_gpus(cl, i) * dt;
	rp->since = now;
}

/* The rack's power if its GPUs ran at power-limit fraction theta (each
 * node also under its own thermal limit). */
static double rack_power_at(const struct cluster *cl, int rack, double theta)
{
	const struct power_state *pw = cl->pw;
	const struct rack *r = &cl->racks[rack];
	double p = 0;
	for (int32_t i = r->first_node; i < r->first_node + r->nnodes; i++) {
		const struct node *n = &cl->nodes[i];
		double lim = theta;
		if ((pw->node[i].flags & PW_NODE_THROTTLED) && pw->cfg.thermal_throttle < lim)
			lim = pw->cfg.thermal_throttle;
		double base = pw->node[i].power_w;
		if (n->gpu_model >= 0) {
			const struct gpu_model *g = &cl->cat.gpus[n->gpu_model];
			double busy = power_busy_gpus(cl, i);
			double now_a = pw->node[i].limit * g->tdp_w - g->idle_w, new_a = lim * g->tdp_w - g->idle_w;
			base += busy * ((new_a > 0 ? new_a : 0) - (now_a > 0 ? now_a : 0));
		}
		p += base;
	}
	return p;
}

double power_rack_target(const struct cluster *cl, int rack)
{
	const struct power_state *pw = cl->pw;
	double cap = pw->rack[rack].cap_w;
	if (rack_power_at(cl, rack, 1.0) <= cap)
		return 1.0;
	double lo = pw->cfg.min_throttle, hi = 1.0;
	if (rack_power_at(cl, rack, lo) > cap)
		return lo;   /* cannot get under: the lowest limit it may set */
	for (int it = 0; it < 40; it++) {
		double mid = (lo + hi) / 2;
		if (rack_power_at(cl, rack, mid) <= cap)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

double power_node_limit(const struct cluster *cl, int node)
{
	const struct power_state *pw = cl->pw;
	double lim = pw->rack[cl->nodes[node].rack].throttle;
	if ((pw->node[node].flags & PW_NODE_THROTTLED) && pw->cfg.thermal_throttle < lim)
		lim = pw->cfg.thermal_throttle;
	return lim;
}

double power_speed_factor(const struct cluster *cl, int node)
{
	const struct power_state *pw = cl->pw;
	double lim = pw->node[node].limit;
	return lim >= 1 ? 1.0 : pow(lim, pw->cfg.speed_exp);
}

bool power_node_blocked(const struct cluster *cl, int node)
{
	const struct power_state *pw = cl->pw;
	return (pw->node[node].flags & PW_NODE_HOT) || (pw->rack[cl->nodes[node].rack].flags & PW_RACK_WARN);
}
