/* slurm_select — select/cons_tres's choice of nodes (cons_tres/job_test.c
 * _eval_nodes, the default branch: no topology, no LLN) and the QOS and
 * association limits (slurmctld/acct_policy.c); docs/slurm-twin.md.
 *
 * The nodes a job may use, in Slurm's node order, fall into sets: runs of
 * usable nodes of one Weight, broken by any node that cannot take the job.
 * The lowest weight wins; among sets of one weight the first that is
 * sufficient, replaced only by a sufficient one with strictly fewer free
 * CPUs, else (none sufficient) the one with the most. A job that needs one
 * more node takes the node of that set with the fewest free CPUs that
 * still holds it (best fit); a gang takes the first nodes of the set in
 * order; what a set lacks the next set gives.
 *
 * hetlab's requests are Slurm's -N k --ntasks-per-node: a gang of k nodes
 * with the same cores, memory and GPUs on each; a spread request (SWF
 * jobs: cores anywhere) is -n N, as many cores per node as each node gives.
 * A GPU gang stays on one GPU model (the engine's rule); a time-sliced
 * share or MIG instance is placed by the scenario's placer on the nodes
 * allowed. */
#include "policies/slurm_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Free CPUs node i (Slurm index k) offers job r on free state f; 0 when it
 * cannot take the job's per-node part. */
int32_t sl_node_cpus(const struct sl *st, const struct nodefree *f, int32_t i, const struct job_req *r)
{
	const struct cluster *cl = st->cl;
	if (r->nodes == 0)
		return place_spread_cores(cl, &f[i], i, r, f[i].cores);
	if (!cluster_node_fits(cl, &f[i], i, r))
		return 0;
	/* A job with GPUs (GRES) and a task count: gres_select_filter_sock_core
	 * keeps only the cores it needs, so every node that can take it offers
	 * the same CPUs and best fit falls to the first node of its set. */
	return r->gpus > 0 ? r->cores : f[i].cores;
}

struct sl_set {
	int32_t a, b;              /* Slurm indexes, inclusive */
	int64_t cpus;
	int32_t nodes;
	int64_t weight;
};

struct sl_set *sl_sets_new(int32_t n)
{
	return calloc((size_t)n + 1, sizeof(struct sl_set));
}

/* _eval_nodes over the nodes use[0..nuse) (Slurm indexes, ascending),
 * each offering st->cpu[k] > 0 CPUs: fills st->pick with the chosen Slurm
 * indexes and st->take with the CPUs each gives; returns how many, 0
 * when the job does not fit. */
static int32_t eval_nodes(struct sl *st, const int32_t *use, int32_t nuse, int32_t min_nodes, int32_t max_nodes,
                          int64_t rem_cpus, bool gang, int32_t per_node)
{
	struct sl_set *set = st->sets;
	int32_t *c = st->offer;
	int32_t nset = 0, npick = 0, rem_nodes = min_nodes;
	for (int32_t u = 0; u < nuse; u++) {
		int32_t k = use[u];
		c[k] = st->cpu[k];
		/* a set is a run of usable nodes of one weight: a node that
		 * cannot take the job, or another weight, starts the next */
		if (u == 0 || use[u - 1] != k - 1 || st->weight[k] != set[nset - 1].weight)
			set[nset++] = (struct sl_set){ .a = k, .b = k, .weight = st->weight[k] };
		struct sl_set *s = &set[nset - 1];
		s->b = k;
		s->cpus += c[k];
		s->nodes++;
	}
	while (max_nodes > 0) {
		int32_t best = -1;
		bool best_suff = false;
		for (int32_t i = 0; i < nset; i++) {
			const struct sl_set *s = &set[i];
			if (s->nodes == 0)
				continue;
			bool suff = s->cpus >= rem_cpus && s->nodes >= rem_nodes;
			bool nb = best < 0 || s->weight < set[best].weight;
			if (!nb && s->weight == set[best].weight &&
			    ((suff && !best_suff) || (suff && s->cpus < set[best].cpus) ||
			     (!suff && s->cpus > set[best].cpus)))
				nb = true;
			if (nb) {
				best = i;
				best_suff = suff;
			}
		}
		if (best < 0)
			break;
		struct sl_set *s = &set[best];
		if (rem_nodes <= 1) {   /* best fit single node */
			int32_t bf = -1;
			for (int32_t k = s->a; k <= s->b; k++) {
				if (c[k] <= 0 || c[k] < rem_cpus)
					continue;
				if (bf < 0 || c[k] < c[bf]) {
					bf = k;
					if (c[bf] == rem_cpus)
						break;
				}
			}
			if (bf >= 0)
				for (int32_t k = s->a; k <= s->b; k++)
					if (k != bf)
						c[k] = 0;
		}
		for (int32_t k = s->a; k <= s->b; k++) {
			if (max_nodes == 0 || (rem_nodes <= 0 && rem_cpus <= 0))
				break;
			if (c[k] <= 0 || (max_nodes == 1 && c[k] < rem_cpus))
				continue;
			int64_t give = gang ? per_node : (c[k] < rem_cpus ? c[k] : rem_cpus);
			st->pick[npick] = k;
			st->take[npick++] = (int32_t)give;
			c[k] = 0;
			rem_cpus -= give;
			rem_nodes--;
			max_nodes--;
		}
		if (rem_nodes <= 0 && rem_cpus <= 0)
			return npick;
		s->cpus = 0;
		s->nodes = 0;
	}
	return 0;
}

/* st->parts from the chosen nodes, in cluster node order; 0 when a
 * node's cores cannot be split over its NUMA domains. */
static int build_parts(struct sl *st, const struct job *j, const struct nodefree *f, int32_t n)
{
	const struct cluster *cl = st->cl;
	const struct job_req *r = &j->req;
	/* the chosen nodes in cluster order: pick[] and take[] become
	 * cluster indexes and their CPUs, sorted (through a node set when
	 * many; the scratch of the selection is free by now) */
	if (n > 8) {
		memset(st->ubits, 0, (size_t)st->nw * 8);
		for (int32_t m = 0; m < n; m++) {
			int32_t i = st->ord[st->pick[m]];
			sl_set(st->ubits, i);
			st->offer[i] = st->take[m];
		}
		int32_t m = 0;
		for (int32_t w = 0; w < st->nw; w++)
			for (uint64_t b = st->ubits[w]; b; b &= b - 1) {
				int32_t i = w * 64 + __builtin_ctzll(b);
				st->pick[m] = i;
				st->take[m++] = st->offer[i];
			}
	} else {
		for (int32_t m = 0; m < n; m++)
			st->pick[m] = st->ord[st->pick[m]];
		for (int32_t m = 1; m < n; m++)
			for (int32_t x = m; x > 0 && st->pick[x] < st->pick[x - 1]; x--) {
				int32_t pi = st->pick[x], ti = st->take[x];
				st->pick[x] = st->pick[x - 1];
				st->take[x] = st->take[x - 1];
				st->pick[x - 1] = pi;
				st->take[x - 1] = ti;
			}
	}
	for (int32_t m = 0; m < n; m++) {
		int32_t i = st->pick[m];
		uint64_t g = r->gpus > 0 ? place_pick_gpus(f[i].gpu_free, r->gpus) : 0;
		if (place_part(cl, &f[i], i, r, st->take[m], g, -1, -1, &st->parts[m]))
			return 0;
		if (r->nodes == 0)
			st->parts[m].mem_mib = (int64_t)st->take[m] * r->mem_mib;
	}
	return n;
}

/* A share or MIG instance: the placer, on the allowed nodes only. */
static int select_shared(struct sl *st, const struct job *j, const struct nodefree *f, const uint64_t *cand)
{
	for (int32_t k = 0; k < st->n; k++) {
		int32_t i = st->ord[k];
		if (sl_bit(cand, k))
			st->shfree[i] = f[i];
		else
			memset(&st->shfree[i], 0, sizeof st->shfree[i]);
	}
	return placer_place(&st->pl, st->cl, st->shfree, j, st->parts);
}

/* -N / -n as eval_nodes takes them: the nodes and CPUs job id needs. */
static void job_counts(const struct sl *st, int32_t id, int32_t *min_nodes, int32_t *max_nodes, int64_t *rem_cpus)
{
	const struct job_req *r = &st->v->jobs[id].req;
	bool gang = r->nodes > 0;
	*min_nodes = gang ? r->nodes : 1;
	*rem_cpus = job_req_cores(r);
	const struct slurm_part *p = &st->cfg->part[st->job[id].part];
	*max_nodes = gang ? r->nodes : (int32_t)(*rem_cpus < st->n ? *rem_cpus : st->n);
	if (!gang && p->max_nodes > 0 && *max_nodes > p->max_nodes)
		*max_nodes = p->max_nodes;
	if (*max_nodes < 1)
		*max_nodes = 1;
}

int32_t sl_eval(struct sl *st, int32_t id, const int32_t *use, int32_t nuse)
{
	int32_t min_nodes, max_nodes;
	int64_t rem_cpus;
	job_counts(st, id, &min_nodes, &max_nodes, &rem_cpus);
	const struct job_req *r = &st->v->jobs[id].req;
	return eval_nodes(st, use, nuse, min_nodes, max_nodes, rem_cpus, r->nodes > 0, r->cores);
}

int sl_build(struct sl *st, int32_t id, const struct nodefree *f, int32_t n)
{
	return build_parts(st, &st->v->jobs[id], f, n);
}

int sl_select(struct sl *st, int32_t id, const struct nodefree *f, const uint64_t *cand, bool will_run)
{
	const struct cluster *cl = st->cl;
	const struct job *j = &st->v->jobs[id];
	const struct job_req *r = &j->req;
	if (!will_run && !placer_pool_ok(cl, r))
		return 0;   /* its storage pool is full now (hetlab's; Slurm would call it licenses) */
	if (job_req_shared(r))
		return select_shared(st, j, f, cand);
	/* A GPU gang stays on one GPU model (the engine's rule; Slurm would
	 * mix them): each model of the catalog in turn. */
	bool by_model = r->nodes > 1 && r->gpus > 0;
	int32_t nmodel = by_model ? cl->cat.ngpus : 1;
	if (f == cl->free && r->nodes > 0) {
		/* on the live state, the nodes its index says may hold the part */
		memset(st->ubits, 0, (size_t)st->nw * 8);
		struct fit_iter it;
		int32_t nfit = 0;
		cluster_fit_begin(&it, cl, 0, r->gpus, r->cores);
		for (int32_t i = cluster_fit_next(&it); i < cl->nnodes; i = cluster_fit_next(&it))
			if (sl_bit(cand, st->pos[i])) {
				sl_set(st->ubits, st->pos[i]);
				nfit++;
			}
		if (nfit < r->nodes)
			return 0;
		cand = st->ubits;
	}
	for (int32_t model = 0; model < nmodel; model++) {
		int32_t nuse = 0;
		for (int32_t w = 0; w < st->nw; w++)
			for (uint64_t b = cand[w]; b; b &= b - 1) {
				int32_t k = w * 64 + __builtin_ctzll(b), i = st->ord[k];
				if (by_model && cl->nodes[i].gpu_model != model)
					continue;
				if ((st->cpu[k] = sl_node_cpus(st, f, i, r)) > 0)
					st->use[nuse++] = k;
			}
		if (nuse == 0)
			continue;
		int32_t n = sl_eval(st, id, st->use, nuse);
		if (n > 0)
			return sl_build(st, id, f, n);   /* 0: the chosen nodes' cores do not split */
	}
	return 0;
}

/* Whether job id could run on its partition were every node up and free:
 * enough nodes that suit it (of one GPU model for a GPU gang), or cores
 * for a spread request. */
bool sl_fits_empty(struct sl *st, int32_t id)
{
	const struct cluster *cl = st->cl;
	const struct job_req *r = &st->v->jobs[id].req;
	const uint64_t *pb = st->part_bits + (size_t)st->job[id].part * (size_t)st->nw;
	int64_t cores = 0;
	int32_t nodes = 0;
	for (int32_t model = 0; model < (r->nodes > 1 && r->gpus > 0 ? cl->cat.ngpus : 1); model++) {
		nodes = 0;
		for (int32_t k = 0; k < st->n; k++) {
			int32_t i = st->ord[k];
			if (!sl_bit(pb, k) || !cluster_node_suits(cl, i, r, 0))
				continue;
			if (r->nodes > 1 && r->gpus > 0 && cl->nodes[i].gpu_model != model)
				continue;
			if (job_req_shared(r))
				return true;
			nodes++;
			cores += r->nodes == 0 ? place_spread_cores(cl, &st->empty[i], i, r, st->empty[i].cores) : 0;
		}
		if (r->nodes > 0 && nodes >= r->nodes)
			return true;
	}
	return r->nodes == 0 && cores >= r->cores;
}

/* ---- limits ---- */

bool sl_tres_fixed(const struct sl *st, int32_t id)
{
	const struct job_req *r = &st->v->jobs[id].req;
	return r->nodes > 0 && !job_req_shared(r);
}

void sl_tres_of(const struct sl *st, int32_t id, const struct alloc_part *parts, int n, int64_t t[STRES_N])
{
	const struct job_req *r = &st->v->jobs[id].req;
	memset(t, 0, STRES_N * sizeof *t);
	if (n == 0) {
		t[STRES_CPU] = job_req_cores(r);
		t[STRES_NODE] = r->nodes > 0 ? r->nodes : 1;
		t[STRES_GPU] = job_req_gpus(r);
		t[STRES_MEM] = r->nodes > 0 ? r->mem_mib * r->nodes : r->mem_mib * r->cores;
		return;
	}
	for (int k = 0; k < n; k++) {
		t[STRES_CPU] += parts[k].cores;
		t[STRES_MEM] += parts[k].mem_mib;
		t[STRES_GPU] += hl_popcount64(parts[k].gpus);
	}
	t[STRES_NODE] = n;
}

/* The QOS whose limits apply, in order: the partition's, then the job's
 * (the job's first with OverPartQOS). */
static int qos_order(const struct sl *st, int32_t id, int32_t q[2])
{
	const struct sl_job *sj = &st->job[id];
	int nq = 0;
	bool over = st->cfg->qos[sj->qos].flags & SLURM_QOS_OVER_PART_QOS;
	if (over)
		q[nq++] = sj->qos;
	if (sj->pqos >= 0 && sj->pqos != sj->qos)
		q[nq++] = sj->pqos;
	if (!over)
		q[nq++] = sj->qos;
	return nq;
}

static const struct sl_use *user_use(const struct sl *st, int32_t q, int32_t user)
{
	return user >= 0 && user < st->nusers ? &st->uuse[(size_t)q * (size_t)(st->nusers + 1) + (size_t)user] : NULL;
}

/* The first QOS in q[] that sets limit field `off` (an int64 or int32). */
#define QOS_LIMIT(st, q, nq, field, out)                                      \
	do {                                                                  \
		(out) = SLURM_UNLIMITED;                                      \
		for (int qi_ = 0; qi_ < (nq); qi_++)                          \
			if ((st)->cfg->qos[(q)[qi_]].lim.field != SLURM_UNLIMITED) { \
				(out) = (st)->cfg->qos[(q)[qi_]].lim.field;   \
				break;                                        \
			}                                                     \
	} while (0)

/* Slurm's reason for a limit, per TRES (enum slurm_tres: cpu, mem, node, gres/gpu). */
static const char *const tres_name[STRES_N] = { "cpu", "mem", "node", "gres/gpu" };
static const char *const r_qos_pu[STRES_N] = { "QOSMaxCpuPerUserLimit", "QOSMaxMemoryPerUser",
                                               "QOSMaxNodePerUserLimit", "QOSMaxGRESPerUser" };
static const char *const r_qos_grp[STRES_N] = { "QOSGrpCpuLimit", "QOSGrpMemLimit", "QOSGrpNodeLimit", "QOSGrpGRES" };
static const char *const r_qos_pj[STRES_N] = { "QOSMaxCpuPerJobLimit", "QOSMaxMemoryPerJob", "QOSMaxNodePerJobLimit",
                                               "QOSMaxGRESPerJob" };
static const char *const r_assoc_grp[STRES_N] = { "AssocGrpCpuLimit", "AssocGrpMemLimit", "AssocGrpNodeLimit",
                                                  "AssocGrpGRES" };
static const char *const r_assoc_pj[STRES_N] = { "AssocMaxCpuPerJobLimit", "AssocMaxMemPerJob",
                                                 "AssocMaxNodesPerJobLimit", "AssocMaxGRESPerJob" };

/* The limit that stops a job, in words (only when why != NULL: the
 * reasons of `hetlab why`); false, for the limit checks to return. */
static bool over(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool over(char *why, size_t len, const char *fmt, ...)
{
	if (why) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return false;
}

static const char *assoc_name(const struct sl *st, int32_t a, char *buf, size_t len)
{
	const struct slurm_assoc *as = &st->cfg->assoc[a];
	if (as->account < 0 || as->account >= st->cfg->naccounts)
		snprintf(buf, len, "root");
	else if (as->user >= 0 && as->user < st->cfg->nusers)
		snprintf(buf, len, "%s/%s", st->cfg->accounts[as->account], st->cfg->users[as->user]);
	else
		snprintf(buf, len, "%s", st->cfg->accounts[as->account]);
	return buf;
}

static bool limits_pre(const struct sl *st, int32_t id, char *why, size_t len)
{
	const struct sl_job *sj = &st->job[id];
	int32_t q[2];
	int nq = qos_order(st, id, q);
	int64_t lim;
	bool qos_jobs_pu = false, qos_grp_jobs = false;
	for (int i = 0; i < nq; i++) {
		const struct slurm_limits *l = &st->cfg->qos[q[i]].lim;
		const struct sl_use *uu = user_use(st, q[i], sj->user);
		if (!qos_jobs_pu && l->max_jobs_pu != SLURM_UNLIMITED) {
			qos_jobs_pu = true;
			if (uu && uu->jobs >= l->max_jobs_pu)
				return over(why, len, "QOSMaxJobsPerUserLimit: QOS %s's MaxJobsPerUser=%d, the user runs %d",
				            st->cfg->qos[q[i]].name, l->max_jobs_pu, uu->jobs);
		}
		if (!qos_grp_jobs && l->grp_jobs != SLURM_UNLIMITED) {
			qos_grp_jobs = true;
			if (st->quse[q[i]].jobs >= l->grp_jobs)
				return over(why, len, "QOSGrpJobsLimit: QOS %s's GrpJobs=%d, %d run", st->cfg->qos[q[i]].name,
				            l->grp_jobs, st->quse[q[i]].jobs);
		}
	}
	QOS_LIMIT(st, q, nq, max_wall_s, lim);
	if (lim != SLURM_UNLIMITED && sj->limit_s > lim)
		return over(why, len, "QOSMaxWallDurationPerJobLimit: its time limit %lld s is over the QOS's MaxWall %lld s",
		            (long long)sj->limit_s, (long long)lim);
	if (sj->assoc < 0 || !st->cfg->assoc)
		return true;
	/* association limits the QOS did not set: MaxJobs of the user's
	 * association (inherited), GrpJobs up the tree */
	char an[2 * SLURM_NAME_MAX + 2];
	int32_t max_jobs = SLURM_UNLIMITED;
	for (int32_t a = sj->assoc; a >= 0; a = st->cfg->assoc[a].parent) {
		const struct slurm_limits *l = &st->cfg->assoc[a].lim;
		if (max_jobs == SLURM_UNLIMITED)
			max_jobs = l->max_jobs_pu;
		if (!qos_grp_jobs && l->grp_jobs != SLURM_UNLIMITED && st->ause[a].jobs >= l->grp_jobs)
			return over(why, len, "AssocGrpJobsLimit: association %s's GrpJobs=%d, %d run",
			            assoc_name(st, a, an, sizeof an), l->grp_jobs, st->ause[a].jobs);
	}
	if (qos_jobs_pu || max_jobs == SLURM_UNLIMITED || st->ause[sj->assoc].jobs < max_jobs)
		return true;
	return over(why, len, "AssocMaxJobsLimit: association %s's MaxJobs=%d, %d run",
	            assoc_name(st, sj->assoc, an, sizeof an), max_jobs, st->ause[sj->assoc].jobs);
}

static bool limits_post(const struct sl *st, int32_t id, const struct alloc_part *parts, int n, char *why,
                        size_t len)
{
	const struct sl_job *sj = &st->job[id];
	int64_t t[STRES_N];
	sl_tres_of(st, id, parts, n, t);
	int32_t q[2];
	int nq = qos_order(st, id, q);
	bool set_pu[STRES_N] = { 0 }, set_grp[STRES_N] = { 0 }, set_pj[STRES_N] = { 0 };
	for (int i = 0; i < nq; i++) {
		const struct slurm_limits *l = &st->cfg->qos[q[i]].lim;
		const struct sl_use *uu = user_use(st, q[i], sj->user);
		const char *qn = st->cfg->qos[q[i]].name;
		for (int k = 0; k < STRES_N; k++) {
			if (t[k] == 0)
				continue;
			if (!set_pu[k] && l->max_tres_pu[k] != SLURM_UNLIMITED) {
				set_pu[k] = true;
				if (t[k] > l->max_tres_pu[k] || (uu && uu->tres[k] + t[k] > l->max_tres_pu[k]))
					return over(why, len, "%s: QOS %s's MaxTRESPerUser %s=%lld, the user holds %lld, the job "
					            "asks %lld", r_qos_pu[k], qn, tres_name[k], (long long)l->max_tres_pu[k],
					            (long long)(uu ? uu->tres[k] : 0), (long long)t[k]);
			}
			if (!set_grp[k] && l->grp_tres[k] != SLURM_UNLIMITED) {
				set_grp[k] = true;
				if (st->quse[q[i]].tres[k] + t[k] > l->grp_tres[k])
					return over(why, len, "%s: QOS %s's GrpTRES %s=%lld, %lld in use, the job asks %lld",
					            r_qos_grp[k], qn, tres_name[k], (long long)l->grp_tres[k],
					            (long long)st->quse[q[i]].tres[k], (long long)t[k]);
			}
			if (!set_pj[k] && l->max_tres_pj[k] != SLURM_UNLIMITED) {
				set_pj[k] = true;
				if (t[k] > l->max_tres_pj[k])
					return over(why, len, "%s: QOS %s's MaxTRESPerJob %s=%lld, the job asks %lld", r_qos_pj[k],
					            qn, tres_name[k], (long long)l->max_tres_pj[k], (long long)t[k]);
			}
		}
	}
	if (sj->assoc < 0 || !st->cfg->assoc)
		return true;
	char an[2 * SLURM_NAME_MAX + 2];
	for (int32_t a = sj->assoc; a >= 0; a = st->cfg->assoc[a].parent) {
		const struct slurm_limits *l = &st->cfg->assoc[a].lim;
		for (int k = 0; k < STRES_N; k++) {
			if (t[k] == 0)
				continue;
			if (!set_grp[k] && l->grp_tres[k] != SLURM_UNLIMITED && st->ause[a].tres[k] + t[k] > l->grp_tres[k])
				return over(why, len, "%s: association %s's GrpTRES %s=%lld, %lld in use, the job asks %lld",
				            r_assoc_grp[k], assoc_name(st, a, an, sizeof an), tres_name[k],
				            (long long)l->grp_tres[k], (long long)st->ause[a].tres[k], (long long)t[k]);
			if (!set_pj[k] && l->max_tres_pj[k] != SLURM_UNLIMITED) {
				set_pj[k] = true;   /* the nearest association's MaxTRES */
				if (t[k] > l->max_tres_pj[k])
					return over(why, len, "%s: association %s's MaxTRESPerJob %s=%lld, the job asks %lld",
					            r_assoc_pj[k], assoc_name(st, a, an, sizeof an), tres_name[k],
					            (long long)l->max_tres_pj[k], (long long)t[k]);
			}
		}
	}
	return true;
}

bool sl_limits_pre(const struct sl *st, int32_t id)
{
	return limits_pre(st, id, NULL, 0);
}

bool sl_limits_post(const struct sl *st, int32_t id, const struct alloc_part *parts, int n)
{
	return limits_post(st, id, parts, n, NULL, 0);
}

bool sl_limits_why(const struct sl *st, int32_t id, char *why, size_t len)
{
	why[0] = 0;
	return !limits_pre(st, id, why, len) || !limits_post(st, id, NULL, 0, why, len);
}

static void use_add(struct sl_use *u, const struct sl_job *sj, int sign)
{
	u->jobs += sign;
	u->tres[STRES_CPU] += sign * sj->cpus;
	u->tres[STRES_MEM] += sign * sj->mem_mib;
	u->tres[STRES_NODE] += sign * sj->nodes;
	u->tres[STRES_GPU] += sign * sj->gpus;
}

void sl_limits_add(struct sl *st, int32_t id, int sign)
{
	struct sl_job *sj = &st->job[id];
	if ((sign > 0) == sj->counted)
		return;
	sj->counted = sign > 0;
	int32_t q[2];
	int nq = qos_order(st, id, q);
	for (int i = 0; i < nq; i++) {
		use_add(&st->quse[q[i]], sj, sign);
		if (sj->user >= 0 && sj->user < st->nusers)
			use_add(&st->uuse[(size_t)q[i] * (size_t)(st->nusers + 1) + (size_t)sj->user], sj, sign);
	}
	if (sj->assoc >= 0 && st->cfg->assoc)
		for (int32_t a = sj->assoc; a >= 0; a = st->cfg->assoc[a].parent)
			use_add(&st->ause[a], sj, sign);
}
