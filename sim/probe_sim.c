/* probe_sim — modelled node readings (what a sample of a simulated run
 * sums; a live run's nodes without a reading too). Power follows the linear model
 * P = base + Σ_devices idle + u × (TDP − idle), with u the allocated share
 * of the device (a whole GPU 1; a time-sliced card its summed shares, at
 * most 1; a MIG card its busy compute slices over 7; a CPU socket its share
 * of allocated cores).
 * Temperature is the cooling's inlet until the thermal model lands. */
#include "sim/engine_int.h"
#include "sim/mig.h"
#include "sim/power.h"


static double gpu_util(const struct cluster *cl, const struct node *n, const struct nodefree *f, int g)
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
	return ((f->gpu_free >> g) & 1u) ? 0.0 : 1.0;
}

/* The node's modelled power (no power model), with its allocated and
 * total devices for its utilisation when used/total are given. */
static inline double model_power(const struct cluster *cl, int32_t id, double *used_out, double *total_out)
{
	const struct node *n = &cl->nodes[id];
	const struct node_type *t = &cl->types[n->type];
	const struct nodefree *f = &cl->free[id];
	double p = t->base_w, used = 0, total = 0;
	if (n->gpu_model >= 0 && n->ngpus > 0) {
		const struct gpu_model *g = &cl->cat.gpus[n->gpu_model];
		double busy = 0;
		for (int k = 0; k < n->ngpus; k++)
			busy += gpu_util(cl, n, f, k);
		p += n->ngpus * g->idle_w + busy * (g->tdp_w - g->idle_w);
		used += busy;
		total += n->ngpus;
	}
	if (n->cpu_model >= 0 && n->cores > 0) {
		const struct cpu_model *c = &cl->cat.cpus[n->cpu_model];
		double u = (double)(n->cores - f->cores) / n->cores;
		p += t->sockets * (c->idle_w + u * (c->tdp_w - c->idle_w));
		if (total == 0) {
			used = n->cores - f->cores;
			total = n->cores;
		}
	}
	if (used_out) {
		*used_out = used;
		*total_out = total;
	}
	return p;
}

double eng_probe_power(const struct sim *s, int32_t id)
{
	const struct cluster *cl = &s->cl;
	return cl->pw ? cl->pw->node[id].power_w : model_power(cl, id, NULL, NULL);
}

void eng_probe_model(const struct sim *s, int32_t id, struct probe_node *out)
{
	const struct cluster *cl = &s->cl;
	const struct node *n = &cl->nodes[id];
	const struct nodefree *f = &cl->free[id];
	if (cl->pw) {
		/* The power model keeps the node's power and temperature. */
		out->power_w = cl->pw->node[id].power_w;
		out->temp_c = power_node_temp_at(cl, id, s->now);
		out->util = n->ngpus > 0 ? power_busy_gpus(cl, id) / n->ngpus
		                         : n->cores > 0 ? (double)(n->cores - f->cores) / n->cores : 0;
		return;
	}
	double used, total;
	out->power_w = model_power(cl, id, &used, &total);
	out->temp_c = n->cooling == COOL_LIQUID ? 30.0 : 25.0;
	out->util = total > 0 ? used / total : 0;
}
