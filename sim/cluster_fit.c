/* cluster_fit — does a request fit: whether a node suits a job at all
 * (its type, labels, health and power state), whether it fits what is free
 * now (cores, NUMA domains, memory, whole cards, a share of a card, a MIG
 * instance and where to cut it), whether a job could ever fit the empty
 * cluster, and the validation of a policy's allocation against the free
 * state (cluster_check_alloc). Reads the cluster; changes nothing.
 * See cluster.h. */
#include "sim/cluster.h"
#include "sim/label.h"
#include "sim/mig.h"
#include "sim/power.h"
#include "sim/fault.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const struct gpu_model *node_gpu(const struct cluster *cl, const struct node *n)
{
	return n->gpu_model >= 0 ? &cl->cat.gpus[n->gpu_model] : NULL;
}

bool cluster_node_suits(const struct cluster *cl, int node, const struct job_req *r, unsigned how)
{
	const struct node *n = &cl->nodes[node];
	if (cluster_req_plain(r))   /* the common case of CPU traces: sizes only */
		return r->nodes == 0 || (n->cores >= r->cores && n->mem_mib >= r->mem_mib);
	if (r->sel_req > 0 && !cluster_sel_match(cl, r->sel_req, node))
		return false;
	if (r->plane > 0 && n->plane != r->plane - 1)
		return false;
	if (((r->flags & REQ_AVX512) && !n->avx512) || ((r->flags & REQ_AMX) && !n->amx))
		return false;
	if (r->pool > 0) {
		const struct storage_pool *p = &cl->pools[r->pool - 1];
		if (!((n->pools >> (r->pool - 1)) & 1u))
			return false;
		if (p->exclusive_class >= 0 && p->exclusive_class != r->cls)
			return false;
	}
	if (r->nodes > 0 && (n->cores < r->cores || n->mem_mib < r->mem_mib))
		return false;   /* a spread request's sizes are totals */
	if (r->gpus == 0)
		return true;
	const struct gpu_model *g = node_gpu(cl, n);
	if (!g || n->ngpus < r->gpus)
		return false;
	if (r->gpu_models && !((r->gpu_models >> n->gpu_model) & 1u))
		return false;
	if ((r->flags & REQ_FP8) && !(g->fp8_tflops > 0))
		return false;
	if (r->mig_g > 0) {
		if (n->mig_cards == 0)
			return false;
	} else if (n->ngpus - n->mig_cards < r->gpus)
		return false;
	if (!(how & FIT_IGNORE_GPU_MEM) && r->gpu_mem_mib > 0 && r->mig_g == 0 && r->gpu_mem_mib > g->mem_mib)
		return false;
	return true;
}

static bool numa_fits(const struct node *n, const struct nodefree *f, int32_t cores)
{
	for (int d = 0; d < n->numa; d++)
		if (f->numa_free[d] >= cores)
			return true;
	return false;
}

bool cluster_share_fits(const struct cluster *cl, int node, int g, const struct job_req *r,
                        bool mem_aware)
{
	const struct node *n = &cl->nodes[node];
	if (g < n->mig_cards || g >= n->ngpus)
		return false;
	const struct gpustate *gs = &cl->gpu[n->gpu0 + g];
	bool idle = (cl->free[node].gpu_free >> g) & 1u;
	if (!idle && gs->nshare == 0)
		return false;   /* a whole-card job has it */
	if (gs->nshare >= cl->share.limit)
		return false;
	if (gs->milli_used + r->gpu_milli > (int64_t)llround(cl->share.admit * HL_MILLI))
		return false;
	if (mem_aware && r->gpu_mem_mib > 0 && gs->mem_need_mib + r->gpu_mem_mib > n->gpu_mem_mib)
		return false;
	return true;
}

/* Can profile prof start at st on card l if the idle card were emptied? */
static bool mig_fits_empty(const struct mig_card *c, int prof, int st)
{
	const struct mig_profile *p = &c->profiles[prof];
	return st >= 0 && st < MIG_SLICES_MAX && ((p->start_mask >> st) & 1u) &&
	       st + p->memory_slices <= c->memory_slices && p->compute_slices <= c->compute_slices;
}

static int mig_lowest_start(const struct mig_card *c, int prof)
{
	for (int st = 0; st < c->memory_slices; st++)
		if (mig_fits_empty(c, prof, st))
			return st;
	return -1;
}

static int mig_free_instance(const struct mig_layout *l, int prof)
{
	for (int i = 0; i < MIG_SLICES_MAX; i++)
		if (l->inst[i].profile == prof && !l->inst[i].busy)
			return i;
	return -1;
}

int cluster_mig_pick(const struct cluster *cl, int node, int g, const struct job_req *r,
                     bool mem_aware, int *profile, int *start)
{
	const struct node *n = &cl->nodes[node];
	if (g >= n->mig_cards || r->mig_g <= 0)
		return -1;
	if (cl->health && cl->health[node].gpu_speed[g] <= 0)
		return -1;   /* fallen off the bus */
	const struct mig_layout *l = cl->gpu[n->gpu0 + g].mig;
	const struct mig_card *c = l->card;
	int cand[MIG_PROFILES_MAX], nc = 0;
	/* Profiles with the compute slices asked, by memory: all of them when
	 * blind (it takes the smallest), those with enough memory when aware. */
	for (int p = 0; p < c->nprofiles; p++) {
		const struct mig_profile *mp = &c->profiles[p];
		if (mp->compute_slices != r->mig_g || mp->media_ext)
			continue;
		if (mem_aware && r->gpu_mem_mib > 0 && (int64_t)(mp->mem_gib * 1024) < r->gpu_mem_mib)
			continue;
		int k = nc++;
		while (k > 0 && c->profiles[cand[k - 1]].mem_gib > mp->mem_gib) {
			cand[k] = cand[k - 1];
			k--;
		}
		cand[k] = p;
	}
	if (nc == 0)
		return -1;
	if (!mem_aware)
		nc = 1;
	for (int k = 0; k < nc; k++) {
		int i = mig_free_instance(l, cand[k]);
		if (i >= 0) {
			*profile = cand[k];
			*start = l->inst[i].start;
			return 0;
		}
	}
	for (int k = 0; k < nc; k++) {
		int st = mig_first_fit(l, cand[k]);
		if (st >= 0) {
			*profile = cand[k];
			*start = st;
			return 1;
		}
	}
	if (!mig_idle(l))
		return -1;
	for (int k = 0; k < nc; k++) {
		int st = mig_lowest_start(c, cand[k]);
		if (st >= 0) {
			*profile = cand[k];
			*start = st;
			return 2;
		}
	}
	return -1;
}

bool cluster_node_fits_ex(const struct cluster *cl, const struct nodefree *f, int node,
                          const struct job_req *r, unsigned how)
{
	const struct node *n = &cl->nodes[node];
	if (!(how & FIT_ANY_STATE) && cl->svc[node] != NODE_UP)
		return false;
	if (!(how & FIT_ANY_STATE) && cl->pw && power_node_blocked(cl, node))
		return false;   /* hot, or its rack at its power warning */
	if (f->cores < r->cores || f->mem_mib < r->mem_mib)
		return false;
	if ((r->flags & REQ_NUMA_LOCAL) && r->cores > 0 && !numa_fits(n, f, r->cores))
		return false;
	if (!cluster_node_suits(cl, node, r, how))
		return false;
	if (r->gpus == 0)
		return true;
	bool aware = !(how & FIT_IGNORE_GPU_MEM);
	if (r->mig_g > 0) {
		int prof, st;
		for (int g = 0; g < n->mig_cards; g++)
			if (cluster_mig_pick(cl, node, g, r, aware, &prof, &st) >= 0)
				return true;
		return false;
	}
	if (r->gpu_milli > 0) {
		/* Sharing is judged on the live cards; a scratch state (a
		 * policy's estimate of the future) also offers its idle ones. */
		for (int g = n->mig_cards; g < n->ngpus; g++)
			if (cluster_share_fits(cl, node, g, r, aware) ||
			    (f != &cl->free[node] && ((f->gpu_free >> g) & 1u)))
				return true;
		return false;
	}
	return f->gpus >= r->gpus;
}

bool cluster_node_fits(const struct cluster *cl, const struct nodefree *f, int node,
                       const struct job_req *r)
{
	return cluster_node_fits_ex(cl, f, node, r, 0);
}

bool cluster_can_ever_fit(const struct cluster *cl, const struct job_req *r)
{
	if (r->nodes == 0) {
		if (r->gpus)
			return false;
		if (r->mem_mib == 0 && cluster_req_plain(r))
			return r->cores <= cl->total_cores;
		int64_t cores = 0;
		for (int i = 0; i < cl->nnodes; i++) {
			const struct node *n = &cl->nodes[i];
			if (!cluster_node_suits(cl, i, r, 0))
				continue;
			int64_t c = n->cores;
			if (r->mem_mib > 0 && n->mem_mib / r->mem_mib < c)
				c = n->mem_mib / r->mem_mib;
			cores += c;
		}
		return cores >= r->cores;
	}
	if (r->gpu_milli > 0 && (r->gpus != 1 || r->nodes != 1 || r->gpu_milli > HL_MILLI * cl->share.admit))
		return false;
	if (r->mig_g > 0 && (r->gpus != 1 || r->nodes != 1))
		return false;
	int ok = 0;
	for (int i = 0; i < cl->nnodes && ok < r->nodes; i++) {
		const struct node *n = &cl->nodes[i];
		if (!cluster_node_suits(cl, i, r, 0))
			continue;
		if ((r->flags & REQ_NUMA_LOCAL) && r->cores > (n->cores + n->numa - 1) / n->numa)
			continue;
		if (r->mig_g > 0) {
			/* some profile of that size on this card with the memory */
			const struct mig_layout *l = cl->gpu[n->gpu0].mig;
			bool any = false;
			for (int p = 0; l && p < l->card->nprofiles && !any; p++) {
				const struct mig_profile *mp = &l->card->profiles[p];
				any = mp->compute_slices == r->mig_g && !mp->media_ext &&
				      (int64_t)(mp->mem_gib * 1024) >= r->gpu_mem_mib;
			}
			if (!any)
				continue;
		}
		ok++;
	}
	return ok >= r->nodes;
}

int cluster_numa_split(const struct cluster *cl, const struct nodefree *f, int node,
                       int32_t cores, bool local, int16_t *out)
{
	const struct node *n = &cl->nodes[node];
	memset(out, 0, HL_NUMA_MAX * sizeof *out);
	if (cores <= 0)
		return 0;
	if (local) {
		int best = -1;
		for (int d = 0; d < n->numa; d++)
			if (f->numa_free[d] >= cores && (best < 0 || f->numa_free[d] < f->numa_free[best]))
				best = d;
		if (best < 0)
			return -1;
		out[best] = (int16_t)cores;
		return 0;
	}
	int32_t left = cores;
	for (int d = 0; d < n->numa && left > 0; d++) {
		int32_t c = f->numa_free[d] < left ? f->numa_free[d] : left;
		out[d] = (int16_t)c;
		left -= c;
	}
	return left == 0 ? 0 : -1;
}

int64_t cluster_part_gpu_mem(const struct cluster *cl, const struct alloc_part *p)
{
	const struct node *n = &cl->nodes[p->node];
	if (p->mig_profile >= 0 && n->mig_cards > 0) {
		const struct mig_card *c = cl->gpu[n->gpu0].mig->card;
		return (int64_t)(c->profiles[p->mig_profile].mem_gib * 1024);
	}
	return n->gpu_mem_mib;
}

double cluster_gpu_speed(const struct cluster *cl, int node, int cls, int prec)
{
	const struct node *n = &cl->nodes[node];
	if (n->gpu_model < 0)
		return 1.0;
	const struct gpu_model *g = &cl->cat.gpus[n->gpu_model];
	if ((unsigned)cls < JOB_NCLASS && (unsigned)prec < PREC_N && g->speed[cls][prec] > 0)
		return g->speed[cls][prec];
	return g->rel_speed > 0 ? g->rel_speed : 1.0;
}

/* ---- checking a decision ---- */

#define CHECK(cond, ...) do { if (!(cond)) { snprintf(err, errlen, __VA_ARGS__); return -1; } } while (0)

static int check_numa(const struct node *n, const struct nodefree *nf, const struct job_req *r,
                      const struct alloc_part *p, char *err, size_t errlen)
{
	int64_t sum = 0;
	int used = 0;
	if (n->numa == 1 && p->numa_cores[0] == p->cores && p->cores <= nf->numa_free[0]) {
		/* The common single-domain part: the rest must be empty. */
		int32_t rest = 0;
		for (int d = 1; d < HL_NUMA_MAX; d++)
			rest |= p->numa_cores[d];
		if (rest == 0)
			return 0;
	}
	for (int d = 0; d < HL_NUMA_MAX; d++) {
		CHECK(p->numa_cores[d] >= 0, "node %s: negative cores on NUMA domain %d", n->name, d);
		if (p->numa_cores[d] == 0)
			continue;
		CHECK(d < n->numa, "node %s has no NUMA domain %d", n->name, d);
		CHECK(p->numa_cores[d] <= nf->numa_free[d], "node %s NUMA domain %d over-allocated: %d cores asked, %d free",
		      n->name, d, p->numa_cores[d], nf->numa_free[d]);
		sum += p->numa_cores[d];
		used++;
	}
	CHECK(sum == p->cores, "node %s: NUMA split of %lld cores for a part of %d cores", n->name, (long long)sum, p->cores);
	CHECK(!(r->flags & REQ_NUMA_LOCAL) || used <= 1, "node %s: cores from %d NUMA domains for a NUMA-local request",
	      n->name, used);
	return 0;
}

static int check_mig(const struct cluster *cl, const struct node *n, const struct job_req *r,
                     const struct alloc_part *p, int g, char *err, size_t errlen)
{
	CHECK(g < n->mig_cards, "node %s GPU %d is not in MIG mode", n->name, g);
	const struct mig_layout *l = cl->gpu[n->gpu0 + g].mig;
	const struct mig_card *c = l->card;
	CHECK(p->mig_profile >= 0 && p->mig_profile < c->nprofiles, "node %s GPU %d: no MIG profile %d",
	      n->name, g, p->mig_profile);
	const struct mig_profile *mp = &c->profiles[p->mig_profile];
	CHECK(mp->compute_slices == r->mig_g, "node %s GPU %d: profile %s has %d compute slices, the job asks %d",
	      n->name, g, mp->name, mp->compute_slices, r->mig_g);
	int inst = l->owner[(int)p->mig_start >= 0 && p->mig_start < MIG_SLICES_MAX ? p->mig_start : 0];
	if (p->mig_start >= 0 && p->mig_start < MIG_SLICES_MAX && inst >= 0 &&
	    l->inst[inst].profile == p->mig_profile && l->inst[inst].start == p->mig_start) {
		CHECK(!l->inst[inst].busy, "node %s GPU %d: MIG instance %s@%d is busy", n->name, g, mp->name, p->mig_start);
		return 0;
	}
	int why = mig_can_place(l, p->mig_profile, p->mig_start);
	if (why == MIG_OK)
		return 0;
	CHECK(mig_idle(l), "node %s GPU %d: cannot place %s@%d (%s) and the card is busy, so it cannot be re-sliced",
	      n->name, g, mp->name, p->mig_start, mig_strerror(why));
	CHECK(mig_fits_empty(c, p->mig_profile, p->mig_start), "node %s GPU %d: %s cannot start at slice %d",
	      n->name, g, mp->name, p->mig_start);
	return 0;
}

/* Do domains 1.. of a part hold no cores? (two loads instead of a loop) */
static inline bool numa_rest_empty(const struct alloc_part *p)
{
	int16_t d[HL_NUMA_MAX];
	uint64_t w[2];
	_Static_assert(sizeof d == sizeof w, "numa_cores is 16 bytes");
	memcpy(d, p->numa_cores, sizeof d);
	d[0] = 0;
	memcpy(w, d, sizeof w);
	return (w[0] | w[1]) == 0;
}

/* The whole check for a plain spread request (every SWF job), in one lean
 * loop; false sends the caller to the full check, which says what is wrong. */
static bool spread_plain_ok(const struct cluster *cl, const struct nodefree *f, const struct job_req *r,
                            const struct alloc_part *parts, int nparts)
{
	int64_t cores = 0;
	int32_t prev = -1;
	for (int i = 0; i < nparts; i++) {
		const struct alloc_part *p = &parts[i];
		if (p->node <= prev || p->node >= cl->nnodes || (cl->pw && power_node_blocked(cl, p->node)))
			return false;
		prev = p->node;
		const struct node *n = &cl->nodes[p->node];
		const struct nodefree *nf = &f[p->node];
		if (cl->svc[p->node] != NODE_UP || p->cores <= 0 || p->cores > nf->cores || p->gpus || p->milli ||
		    p->mig_profile >= 0 || p->mem_mib != (int64_t)p->cores * r->mem_mib || p->mem_mib > nf->mem_mib)
			return false;
		if (n->numa != 1 || p->numa_cores[0] != p->cores || p->cores > nf->numa_free[0] ||
		    !numa_rest_empty(p))
			return false;
		cores += p->cores;
	}
	return cores == r->cores;
}

int cluster_check_alloc(const struct cluster *cl, const struct nodefree *f,
                        const struct job_req *r, const struct alloc_part *parts,
                        int nparts, char *err, size_t errlen)
{
	if (r->nodes == 0 && cluster_req_plain(r) && nparts > 0 && spread_plain_ok(cl, f, r, parts, nparts))
		return 0;
	int64_t cores = 0, io_need = 0;
	int model = -1;
	CHECK(nparts > 0, "empty allocation");
	CHECK(r->nodes <= 0 || nparts == r->nodes, "gang of %d nodes given %d nodes", r->nodes, nparts);
	bool shared = job_req_shared(r);
	CHECK(!shared || (r->nodes == 1 && r->gpus == 1), "a GPU share is asked with %d nodes of %d GPUs (expected 1 and 1)",
	      r->nodes, r->gpus);
	for (int i = 0; i < nparts; i++) {
		const struct alloc_part *p = &parts[i];
		CHECK(p->node >= 0 && p->node < cl->nnodes, "no node %d", p->node);
		const struct node *n = &cl->nodes[p->node];
		const struct nodefree *nf = &f[p->node];
		if (i > 0 && parts[i - 1].node >= p->node) {
			snprintf(err, errlen, parts[i - 1].node == p->node ? "node %s given twice"
			         : "parts not in increasing node order at node %s", n->name);
			return -1;
		}
		CHECK(cl->svc[p->node] == NODE_UP, "node %s is not up", n->name);
		CHECK(!cl->pw || !power_node_blocked(cl, p->node), "node %s takes no new work (%s)", n->name,
		      cl->pw && (cl->pw->node[p->node].flags & PW_NODE_HOT) ? "above its warning temperature"
		                                                             : "its rack is at its power warning");
		CHECK(p->cores > 0 || p->gpus != 0, "node %s given nothing", n->name);
		CHECK(p->cores >= 0 && p->mem_mib >= 0, "node %s given a negative amount", n->name);
		CHECK(p->cores <= nf->cores && p->mem_mib <= nf->mem_mib,
		      "node %s over-allocated: %d cores / %lld MiB asked, %d / %lld free",
		      n->name, p->cores, (long long)p->mem_mib, nf->cores, (long long)nf->mem_mib);
		CHECK(n->ngpus >= 64 || (p->gpus >> n->ngpus) == 0, "node %s has no GPU %#llx", n->name,
		      (unsigned long long)p->gpus);
		if (check_numa(n, nf, r, p, err, errlen))
			return -1;
		CHECK(cluster_node_suits(cl, p->node, r, FIT_IGNORE_GPU_MEM),
		      "node %s does not meet the job's requirements (labels, GPU model, FP8, ISA, plane or pool)", n->name);
		if (r->nodes > 0) {
			CHECK(p->cores == r->cores && hl_popcount64(p->gpus) == r->gpus && p->mem_mib == r->mem_mib,
			      "node %s given %d cores, %d GPUs, %lld MiB; the request is %d, %d, %lld per node",
			      n->name, p->cores, hl_popcount64(p->gpus), (long long)p->mem_mib,
			      r->cores, r->gpus, (long long)r->mem_mib);
			if (r->gpus > 0) {
				CHECK(model < 0 || model == n->gpu_model, "gang mixes GPU models (%s and %s)",
				      cl->cat.gpus[model].name, cl->cat.gpus[n->gpu_model].name);
				model = n->gpu_model;
			}
		} else {
			CHECK(p->gpus == 0, "node %s given GPUs for a CPU-only request", n->name);
			CHECK(p->mem_mib == (int64_t)p->cores * r->mem_mib, "node %s given %lld MiB for %d cores at %lld MiB per core",
			      n->name, (long long)p->mem_mib, p->cores, (long long)r->mem_mib);
		}
		if (r->gpu_milli > 0) {
			int g = __builtin_ctzll(p->gpus);
			CHECK(p->milli == r->gpu_milli, "node %s: share of %d milli-GPU given for a request of %d",
			      n->name, p->milli, r->gpu_milli);
			CHECK(cluster_share_fits(cl, p->node, g, r, false),
			      "node %s GPU %d cannot take a %d milli-GPU share (MIG mode, a whole-card job, %d sharers or %d milli in use)",
			      n->name, g, r->gpu_milli, cl->gpu[n->gpu0 + g].nshare, cl->gpu[n->gpu0 + g].milli_used);
		} else if (r->mig_g > 0) {
			if (check_mig(cl, n, r, p, __builtin_ctzll(p->gpus), err, errlen))
				return -1;
		} else {
			CHECK(p->milli == 0 && p->mig_profile < 0, "node %s: a share given for a whole-card request", n->name);
			CHECK((p->gpus & ~nf->gpu_free) == 0, "node %s: GPUs %#llx asked, only %#llx free", n->name,
			      (unsigned long long)p->gpus, (unsigned long long)nf->gpu_free);
		}
		cores += p->cores;
	}
	CHECK(r->nodes != 0 || cores == r->cores, "%lld cores given, %d requested", (long long)cores, r->cores);
	if (r->pool > 0) {
		const struct storage_pool *po = &cl->pools[r->pool - 1];
		io_need = r->io_mbps;
		CHECK(po->used_gib + r->storage_gib <= po->cap_gib, "pool %s full: %lld GiB asked, %lld free", po->name,
		      (long long)r->storage_gib, (long long)(po->cap_gib - po->used_gib));
		CHECK(po->resv_mbps + (double)io_need <= po->admit * po->bw_mbps + 1e-9,
		      "pool %s: %lld MB/s asked, %.0f of %.0f admitted in use", po->name, (long long)io_need,
		      po->resv_mbps, po->admit * po->bw_mbps);
	}
	return 0;
}
#undef CHECK
