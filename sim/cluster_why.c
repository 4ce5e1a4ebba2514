/* cluster_why — why a request does not fit a free state now, in words
 * (`hetlab why`, the policies' reasons: view.h decide_note). It follows
 * the checks of cluster_node_fits_ex in their order and names the first
 * that leaves too few nodes: the job's constraints (labels, plane, GPU
 * model and memory), nodes out of service, racks at their power warning,
 * free cores and memory, free GPUs. */
#include "sim/cluster.h"
#include "sim/power.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void add(char *buf, size_t len, size_t *at, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	if (*at >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at += (size_t)n;
}

void cluster_req_text(const struct cluster *cl, const struct job_req *r, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = 0;
	if (r->nodes > 1)
		add(buf, len, &at, "%d nodes with ", r->nodes);
	add(buf, len, &at, "%d core%s", r->cores, r->cores == 1 ? "" : "s");
	if (r->mem_mib > 0)
		add(buf, len, &at, " and %lld MiB%s", (long long)r->mem_mib, r->nodes > 0 ? "" : " per core");
	if (r->gpus > 0) {
		add(buf, len, &at, ", %d %s", r->gpus, r->mig_g > 0 ? "MIG instance" : r->gpu_milli > 0 ? "GPU share" : "GPU");
		if (r->gpus > 1 && r->mig_g == 0 && r->gpu_milli == 0)
			add(buf, len, &at, "s");
		if (r->gpu_models) {
			const char *sep = " of model ";
			for (int g = 0; g < cl->cat.ngpus && g < 64; g++)
				if ((r->gpu_models >> g) & 1u) {
					add(buf, len, &at, "%s%s", sep, cl->cat.gpus[g].name);
					sep = " or ";
				}
		}
		if (r->gpu_mem_mib > 0)
			add(buf, len, &at, " with %lld GiB", (long long)(r->gpu_mem_mib / 1024));
	}
	if (r->plane > 0 && r->plane - 1 < cl->nplanes)
		add(buf, len, &at, " on plane %s", cl->planes[r->plane - 1].name);
	if (r->sel_req > 0)
		add(buf, len, &at, " matching its label selector");
}

int cluster_why(const struct cluster *cl, const struct nodefree *f, const struct job_req *r, char *buf, size_t len)
{
	size_t at = 0;
	char req[256];
	cluster_req_text(cl, r, req, sizeof req);
	int need = r->nodes > 0 ? r->nodes : 1;
	int32_t suit = 0, up = 0, cool = 0, room = 0, fits = 0;
	int32_t best = -1, best_gpus = -1, best_cores = -1;
	int64_t spread = 0;
	const char *hot_rack = NULL;
	for (int i = 0; i < cl->nnodes; i++) {
		if (!cluster_node_suits(cl, i, r, 0))
			continue;
		suit++;
		if (cl->svc[i] != NODE_UP)
			continue;
		up++;
		if (cl->pw && power_node_blocked(cl, i)) {
			hot_rack = cl->racks[cl->nodes[i].rack].name;
			continue;
		}
		cool++;
		const struct nodefree *nf = &f[i];
		if (r->nodes == 0) {
			int64_t c = nf->cores;
			if (r->mem_mib > 0 && nf->mem_mib / r->mem_mib < c)
				c = nf->mem_mib / r->mem_mib;
			spread += c;
			continue;
		}
		if (nf->cores > best_cores)
			best_cores = nf->cores, best = i;
		if (nf->cores < r->cores || nf->mem_mib < r->mem_mib)
			continue;
		room++;
		if (cluster_node_fits(cl, nf, i, r))
			fits++;
		else if (nf->gpus > best_gpus)
			best_gpus = nf->gpus;
	}
	if (suit < need) {
		add(buf, len, &at, "%s: only %d node%s of the cluster can ever hold it", req, suit, suit == 1 ? "" : "s");
		return 0;
	}
	if (up < need) {
		add(buf, len, &at, "%s: %d of the %d nodes that could hold it are out of service (drained or down)", req,
		    suit - up, suit);
		return 0;
	}
	if (cool < need) {
		add(buf, len, &at, "%s: rack %s is at its power warning (no new work there)", req, hot_rack ? hot_rack : "?");
		return 0;
	}
	if (r->nodes == 0) {
		add(buf, len, &at, "%s: %lld such cores free now", req, (long long)spread);
		return 0;
	}
	if (room < need) {
		add(buf, len, &at, "%s: no node with %d free cores%s (%d of %d suitable node%s have room; most free: %d on %s)",
		    req, r->cores, r->mem_mib > 0 ? " and the memory" : "", room, suit, suit == 1 ? "" : "s",
		    best_cores < 0 ? 0 : best_cores, best >= 0 ? cl->nodes[best].name : "-");
		return 0;
	}
	if (fits < need && r->gpus > 0) {
		add(buf, len, &at, "%s: no node with %d free GPU%s of that kind (most free on a node with the cores: %d)", req,
		    r->gpus, r->gpus == 1 ? "" : "s", best_gpus < 0 ? 0 : best_gpus);
		return 0;
	}
	if (fits < need) {
		add(buf, len, &at, "%s: %d of %d nodes fit now", req, fits, need);
		return 0;
	}
	add(buf, len, &at, "%s: fits now", req);
	return 1;
}
