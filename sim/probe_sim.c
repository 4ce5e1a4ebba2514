/* probe_sim — modelled node readings. Power follows the linear model
 * P = base + Σ_devices idle + u × (TDP − idle), with u the allocated share
 * of the device (whole GPUs; a CPU socket's share of allocated cores).
 * Temperature is the cooling's inlet until the thermal model lands. */
#include "sim/engine.h"

static int sim_node(void *ctx, const struct sim *s, int32_t id, struct probe_node *out)
{
	(void)ctx;
	const struct cluster *cl = &s->cl;
	const struct node *n = &cl->nodes[id];
	const struct node_type *t = &cl->types[n->type];
	const struct nodefree *f = &cl->free[id];
	double p = t->base_w, used = 0, total = 0;
	if (n->gpu_model >= 0 && n->ngpus > 0) {
		const struct gpu_model *g = &cl->cat.gpus[n->gpu_model];
		int busy = n->ngpus - f->gpus;
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
	out->power_w = p;
	out->temp_c = n->cooling == COOL_LIQUID ? 30.0 : 25.0;
	out->util = total > 0 ? used / total : 0;
	return 0;
}

const struct probe_ops probe_sim_ops = {
	.name = "model",
	.node = sim_node,
};
