/* place — first-fit placement and helpers shared by the queue disciplines.
 * Placement strategies proper (best fit, fragmentation-aware, topology)
 * come with the heterogeneous-resource work; first fit in node order is
 * what the classic backfill papers and Slurm's linear select do. */
#include "policies/policy.h"

#include <stdlib.h>

static uint64_t pick_gpus(uint64_t free_mask, int n)
{
	uint64_t m = 0;
	for (int g = 0; g < 64 && n > 0; g++)
		if ((free_mask >> g) & 1u) {
			m |= 1ull << g;
			n--;
		}
	return m;
}

int place_first_fit(const struct cluster *cl, const struct nodefree *f,
                    const struct job_req *r, struct alloc_part *out)
{
	int n = 0;
	if (r->nodes > 0) {
		for (int i = 0; i < cl->nnodes && n < r->nodes; i++) {
			if (!cluster_node_fits(cl, &f[i], i, r))
				continue;
			out[n++] = (struct alloc_part){
				.node = i, .cores = r->cores, .mem_mib = r->mem_mib,
				.gpus = pick_gpus(f[i].gpu_free, r->gpus),
			};
		}
		return n == r->nodes ? n : 0;
	}
	int32_t left = r->cores;
	for (int i = 0; i < cl->nnodes && left > 0; i++) {
		if (f[i].cores <= 0 || cl->svc[i] != NODE_UP)
			continue;
		int32_t c = f[i].cores < left ? f[i].cores : left;
		if (r->mem_mib > 0 && f[i].mem_mib / r->mem_mib < c)
			c = (int32_t)(f[i].mem_mib / r->mem_mib);
		if (c <= 0)
			continue;
		out[n++] = (struct alloc_part){ .node = i, .cores = c, .mem_mib = c * r->mem_mib };
		left -= c;
	}
	return left == 0 ? n : 0;
}

static int cmp_end(const void *a, const void *b, void *ctx)
{
	const struct job *jobs = ctx;
	const struct job *x = &jobs[*(const int32_t *)a], *y = &jobs[*(const int32_t *)b];
	simtime ex = view_expected_end(x), ey = view_expected_end(y);
	if (ex != ey)
		return ex < ey ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

void sort_by_expected_end(const struct job *jobs, int32_t *ids, int32_t n)
{
	qsort_r(ids, (size_t)n, sizeof *ids, cmp_end, (void *)jobs);
}
