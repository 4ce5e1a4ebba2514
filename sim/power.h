/* power — device, node and rack power, the rack capping controller, the
 * node thermal model, cooling and facility power (PUE), the tariff, and
 * the energy every job uses (docs/models.md "Power", "Thermal",
 * "Facility").
 *
 * Power is piecewise constant between events: it changes only when a job
 * starts or ends, a throttle changes, or an environment event fires. The
 * engine (sim/engine_power.c) calls power_advance_node() and
 * power_advance_rack() at each such change; the module integrates energy
 * exactly up to that instant, moves each node's temperature along its
 * first-order RC curve in closed form, and tells the
 * engine when the next threshold crossing (warning / throttle temperature)
 * will happen so that it can push an event.
 *
 * State is kept in struct power_state, owned by the cluster (cl->pw), so
 * that policies read it through their view (const): per node its power,
 * temperature and flags, per rack its power, cap, state and headroom. A
 * rack in warning and a hot node take no new work (cluster_node_fits
 * refuses them; the engine's validation too). */
#ifndef HL_POWER_H
#define HL_POWER_H

#include <stdbool.h>
#include <stdint.h>
#include "sim/simtime.h"

struct cluster;

/* Per cooling type (enum cooling): the thermal model's parameters. */
struct cooling_cfg {
	double inlet_c;           /* coolant / inlet air temperature */
	double rise_c;            /* a node's rise above the inlet at its full power: its thermal
	                             resistance is R = rise_c / P_max of the node */
	double tau_s;             /* thermal time constant R·C, s */
	double warn_c;            /* node warning temperature: no new work above it */
	double throttle_c;        /* node throttle temperature: its GPUs slow down */
	double resume_c;          /* hot or throttled until it cools below this */
	double pue_base;          /* PUE at or below pue_knee_c outside */
	double pue_slope;         /* PUE added per °C above the knee */
	double pue_knee_c;
};

/* The site's outside temperature, a daily cosine: mean ± amplitude with
 * its peak at peak_hour (local time = simulated time). */
struct site_cfg {
	double mean_c, amplitude_c, peak_hour;
	/* Tariff by hour of day, currency per kWh; 24 entries. */
	double price_kwh[24];
	/* Carbon intensity by hour of day, g CO2 per kWh; all 0 = not tracked. */
	double carbon_g_kwh[24];
};

struct power_cfg {
	bool enabled;             /* the scenario has a "power" block: warning, capping, thermal on */
	double warn_frac;         /* rack warning at this fraction of its cap (default 0.9) */
	double resume_frac;       /* takes work again below this fraction (default 0.85) */
	simtime react_us;         /* the capping controller acts this long after the cap is passed (10 s) */
	double min_throttle;      /* the lowest GPU power-limit fraction it sets (0.4) */
	double speed_exp;         /* a GPU at power-limit fraction θ runs at θ^speed_exp of its speed (0.5) */
	double thermal_throttle;  /* power-limit fraction of a thermally throttled node's GPUs (0.6) */
	struct cooling_cfg cool[2];   /* indexed by enum cooling */
	struct site_cfg site;
};

enum { PW_RACK_WARN = 1u << 0, PW_RACK_OVER = 1u << 1 };
enum { PW_NODE_HOT = 1u << 0, PW_NODE_THROTTLED = 1u << 1 };

struct node_power {
	double power_w;           /* IT power now */
	double temp_c;            /* temperature at `at` */
	simtime at;
	double energy_j;          /* IT energy so far */
	double limit;             /* GPU power-limit fraction now (1 = TDP) */
	uint8_t flags;            /* PW_NODE_* */
	uint8_t cooling;          /* the node's cooling (enum cooling), kept here with */
	uint32_t ver;             /* its crossing events */
	double max_w;             /* its power at full load (power_node_max_w): what
	                             the thermal model reads of the node, beside
	                             its state, at every sample */
};

struct rack_power {
	double power_w;
	double cap_w;             /* can change (environment events) */
	double throttle;          /* GPU power-limit fraction the controller set (1 = none) */
	uint8_t flags;            /* PW_RACK_* */
	double peak_w;
	double energy_j, facility_j, cost, carbon_g;
	simtime warn_us;          /* time spent in warning */
	simtime over_us;          /* time above its cap */
	double throttled_dev_s;   /* GPU-seconds run below full power limit */
	simtime since;            /* the figures above are integrated up to here */
	bool react_pending;       /* a controller event is queued */
};

struct power_state {
	struct power_cfg cfg;
	struct node_power *node;  /* cl->nnodes */
	struct rack_power *rack;  /* cl->nracks */
	double it_energy_j, facility_energy_j, cost, carbon_g;
	double idle_energy_j;     /* energy not attributed to jobs: node base and device idle */
};

/* Job energy: the engine keeps each running job's active power (the part
 * of its devices' power above idle; docs/models.md) and integrates it into
 * job.energy_j and job.energy_cost; node base and device idle power is
 * idle energy. So Σ job energy + idle energy = IT energy. */

/* An environment event of the scenario's "events": at at_us, a rack's
 * cap changes (a feed lost), or a cooling type's inlet temperature or
 * thermal resistance (its capacity) changes. */
enum env_kind { ENV_RACK_CAP, ENV_INLET, ENV_COOLING_RISE };
struct env_event {
	simtime at_us;
	int32_t kind;             /* enum env_kind */
	int32_t target;           /* rack index, or enum cooling */
	double value;             /* W, °C, or a factor on the cooling's rise_c (its capacity lost) */
};

/* Allocates cl->pw for the cluster's nodes and racks with cfg. 0 or -1. */
int power_init(struct cluster *cl, const struct power_cfg *cfg);
void power_fini(struct cluster *cl);

/* The model's pieces (the engine drives them; docs/models.md):
 * a node's power now from the cluster's allocation state; its idle, full
 * and per-card active power; its steady temperature at a power. */
double power_node_w(const struct cluster *cl, int node);
double power_node_idle_w(const struct cluster *cl, int node);
double power_node_max_w(const struct cluster *cl, int node);
double power_gpu_active_w(const struct cluster *cl, int node);   /* one busy card above idle, at its limit */
double power_cpu_active_w_per_core(const struct cluster *cl, int node);
double power_busy_gpus(const struct cluster *cl, int node);
double power_node_steady_c(const struct cluster *cl, int node, double power_w);
/* Its temperature at time t ≥ its last change, without moving the model
 * (probes and the recorder read it). */
double power_node_temp_at(const struct cluster *cl, int node, simtime t);
/* Moves a node's temperature and energy to now at its current power. */
void power_advance_node(struct cluster *cl, int node, simtime now);
/* When its temperature will next cross a threshold that changes its
 * state (warning or throttle going up, resume going down); SIMTIME_INF never. */
simtime power_next_crossing(const struct cluster *cl, int node, simtime now);
/* Integrates a rack's energy, facility energy, cost, carbon, time in
 * warning / over cap and throttled GPU-seconds up to now. */
void power_advance_rack(struct cluster *cl, int rack, simtime now);
/* The GPU power-limit fraction that keeps the rack under its cap (1 when
 * it is already under; min_throttle when even that is not enough). */
double power_rack_target(const struct cluster *cl, int rack);
/* A node's GPU power-limit fraction from its rack's throttle and its own
 * thermal state, and the speed factor that limit gives. */
double power_node_limit(const struct cluster *cl, int node);
double power_speed_factor(const struct cluster *cl, int node);
/* A hot node, or one in a rack in warning, takes no new work. */
bool power_node_blocked(const struct cluster *cl, int node);
/* Site curves. */
double power_outside_c(const struct power_cfg *cfg, simtime t);
double power_pue(const struct power_cfg *cfg, int cooling, double outside_c);
double power_price_integral(const struct power_cfg *cfg, simtime t0, simtime t1);
double power_carbon_integral(const struct power_cfg *cfg, simtime t0, simtime t1);
double power_pue_integral(const struct power_cfg *cfg, int cooling, simtime t0, simtime t1);
/* Defaults: disabled; warning 0.9, resume 0.85, reaction 10 s, ... and the
 * Guizhou-like site (docs/models.md). */
void power_cfg_defaults(struct power_cfg *cfg);

#endif
