/* pass — how long one scheduling pass takes on a large, full cluster with
 * a long queue, for fairshare (Slurm-style priority order with EASY
 * backfill; easy for comparison). The policy slurm passes on Slurm's own
 * clocks, not at T: bench/twin-speed.sh measures it over a site's month.
 *
 *   pass [POLICY ...] [--runs N] [--nodes N] [--pending N]
 *
 * The cluster (built in code): --nodes (default 10,000) nodes of 8
 * H100-SXM-80GB, 112 cores and 2 TiB each, 50 to a rack, one ib400 plane.
 * At t = 0 filler jobs take every GPU: per node one 8-GPU job, 4+4, 4+2+2,
 * 2+2+2+1+1 or 4+2+1+1, or a share of a 2- or 4-node gang; about 1 % of
 * the GPUs are in 1- and 2-GPU fillers that end exactly at T = 7 days,
 * every other filler ends between T + 1 h and T + 2 days (exact
 * estimates). --pending (default 100,000) jobs arrive in 100 batches over
 * [1 s, T − 2 h]: 1, 2, 4 or 8 GPUs on one node, or gangs of 2, 4 or 16
 * whole nodes; 50 tenants (shares 1-5, two projects each); walltimes of
 * 10 min to 24 h. Everything is drawn from a fixed LCG: every run and
 * every policy sees the same state.
 *
 * The policy under test takes over at T − 1 h with one untimed pass (the
 * cluster is full: it finds its head and little else; fairshare starts
 * counting usage then). At T the holes open and one pass runs: that pass
 * is timed (the policy's schedule hook only, not the engine's event
 * handling before it). The pass must order the queue, reserve for the
 * head and backfill up to bf_max_job_test jobs into the holes. Each run
 * builds everything afresh; the median of --runs (default 5) is shown,
 * with the jobs that pass started.
 *
 * The policy is found, configured and initialised as a run's is
 * (run_policy_find, run_policy_init: the composition root,
 * config/runasm.h); the engine is not run_assemble's, as the fillers are
 * placed by hand and the policy takes over mid-run.
 *
 * Target (from the fair-share issue): a pass in Slurm-style priority
 * order (the engine of the removed multifactor policy, now fairshare's) in
 * under 50 ms.
 *
 * Exit status: 0 (whether or not the target is met); 1 on any error; 2 on
 * bad arguments. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benchutil.h"
#include "policies/policy.h"
#include "sim/engine.h"
#include "sim/org.h"
#include "config/runasm.h"
#include "config/scenario.h"

#define USAGE "usage: pass [POLICY ...] [--runs N] [--nodes N] [--pending N]\n"
#define TARGET_MS 50.0
#define GPUS 8
#define CORES_PER_GPU 12
#define MEM_PER_GPU_MIB (64 * 1024)
#define NTENANTS 50
#define HOLE_P 0.04          /* chance that a 1- or 2-GPU filler ends at T */
#define BATCHES 100
#define T_US (7 * SIMTIME_DAY)

struct lcg {
	uint64_t x;
};

static uint64_t lcg_next(struct lcg *g)
{
	g->x = g->x * 6364136223846793005ull + 1442695040888963407ull;
	return g->x >> 11;
}

static double lcg_unit(struct lcg *g)
{
	return (double)lcg_next(g) / 9007199254740992.0;   /* 2^53 */
}

/* The setup's state: fillers placed by hand on their nodes. */
struct bench {
	int32_t nnodes, nfill, npend;
	struct alloc_part *fparts;   /* filler k: parts [foff[k], foff[k + 1]) */
	int32_t *foff;
	struct org org;
};

/* A timing shim around the policy's hooks. */
struct timed {
	const struct policy_ops *pol;
	void *state;
	double last_s;
	int64_t free_gpus;       /* free GPUs when the last pass began */
};

/* Starts every filler at t = 0 on its own parts, then does nothing. */
static void fill_schedule(void *state, const struct view *v, struct decide *out)
{
	struct bench *b = state;
	(void)v;
	for (int32_t k = 0; k < b->nfill; k++)
		if (v->jobs[k].state == JOB_PENDING &&
		    decide_start(out, k, &b->fparts[b->foff[k]], b->foff[k + 1] - b->foff[k]))
			return;
}

static void timed_submit(void *state, const struct view *v, int32_t job)
{
	struct timed *t = state;
	if (t->pol->submit)
		t->pol->submit(t->state, v, job);
}

static void timed_finish(void *state, const struct view *v, int32_t job)
{
	struct timed *t = state;
	if (t->pol->finish)
		t->pol->finish(t->state, v, job);
}

static void timed_schedule(void *state, const struct view *v, struct decide *out)
{
	struct timed *t = state;
	t->free_gpus = v->cl->free_gpus;
	double t0 = bench_now_s();
	t->pol->schedule(t->state, v, out);
	t->last_s = bench_now_s() - t0;
}

static int build_cluster(struct cluster *cl, int32_t nnodes, char *err, size_t errlen)
{
	cluster_init(cl);
	if (catalog_load_builtin(&cl->cat, err, errlen))
		return -1;
	struct node_type t = { .name = "h100x8", .gpu_model = catalog_find_gpu(&cl->cat, "H100-SXM-80GB"),
	                       .gpus = GPUS, .cpu_model = -1, .sockets = 2, .cores = 112, .numa = 1,
	                       .mem_mib = 2048 * 1024, .plane = "ib400" };
	if (t.gpu_model < 0 || cluster_add_type(cl, &t) < 0) {
		snprintf(err, errlen, "cannot add the node type");
		return -1;
	}
	for (int32_t r = 0; r * 50 < nnodes; r++) {
		char name[32];
		snprintf(name, sizeof name, "r%04d", (int)r);
		int rk = cluster_add_rack(cl, name, 400000, COOL_LIQUID);
		int n = nnodes - r * 50 < 50 ? nnodes - r * 50 : 50;
		if (rk < 0 || cluster_add_nodes(cl, rk, 0, n)) {
			snprintf(err, errlen, "out of memory adding racks");
			return -1;
		}
	}
	return cluster_finish(cl, err, errlen);
}

static struct alloc_part part(int node, uint64_t gpus)
{
	int n = hl_popcount64(gpus);
	struct alloc_part p = { .node = node, .cores = CORES_PER_GPU * n, .mem_mib = (int64_t)MEM_PER_GPU_MIB * n,
	                        .gpus = gpus, .mig_profile = -1, .mig_start = -1 };
	p.numa_cores[0] = (int16_t)p.cores;
	return p;
}

static void set_req(struct job *j, int nodes, int gpus)
{
	j->req.nodes = nodes;
	j->req.gpus = gpus;
	j->req.cores = CORES_PER_GPU * gpus;
	j->req.mem_mib = (int64_t)MEM_PER_GPU_MIB * gpus;
}

/* Builds the jobs (fillers first, then the queue by submit time) and the
 * fillers' parts. Returns the job count, or -1. */
static int32_t build_jobs(struct bench *b, struct job **jobs_out, struct job_truth **truth_out)
{
	struct lcg g = { 42 };
	int32_t n = b->nnodes;
	/* at most 5 fillers a node, plus the queue */
	int32_t cap = 5 * n + b->npend;
	struct job *jobs = calloc((size_t)cap, sizeof *jobs);
	struct job_truth *truth = calloc((size_t)cap, sizeof *truth);
	b->fparts = calloc((size_t)5 * n + 1, sizeof *b->fparts);
	b->foff = calloc((size_t)5 * n + 2, sizeof *b->foff);
	if (!jobs || !truth || !b->fparts || !b->foff)
		return -1;
	int32_t nj = 0, np = 0;
	for (int32_t i = 0; i < n;) {
		double u = lcg_unit(&g);
		int gang = u < 0.05 ? 2 : u < 0.10 ? 4 : 0;
		if (gang && i + gang <= n) {
			struct job *j = &jobs[nj];
			job_init(j, nj, 0);
			set_req(j, gang, GPUS);
			b->foff[nj] = np;
			for (int k = 0; k < gang; k++)
				b->fparts[np++] = part(i + k, 0xff);
			nj++;
			i += gang;
			continue;
		}
		static const int pat[5][6] = {
			{ 8, 0 }, { 4, 4, 0 }, { 4, 2, 2, 0 }, { 2, 2, 2, 1, 1, 0 }, { 4, 2, 1, 1, 0 },
		};
		const int *p = pat[lcg_next(&g) % 5];
		int bit = 0;
		for (int k = 0; p[k]; k++) {
			struct job *j = &jobs[nj];
			job_init(j, nj, 0);
			set_req(j, 1, p[k]);
			b->foff[nj] = np;
			b->fparts[np++] = part(i, ((1ull << p[k]) - 1) << bit);
			bit += p[k];
			nj++;
		}
		i++;
	}
	b->nfill = nj;
	b->foff[nj] = np;
	for (int32_t k = 0; k < nj; k++) {
		struct job *j = &jobs[k];
		bool hole = j->req.nodes == 1 && j->req.gpus <= 2 && lcg_unit(&g) < HOLE_P;
		simtime run = hole ? T_US : T_US + SIMTIME_HOUR * (simtime)(1 + lcg_next(&g) % 47);
		j->tenant = (int32_t)(lcg_next(&g) % NTENANTS);
		j->group = (int32_t)(lcg_next(&g) % 3);
		j->cls = JOB_TRAINING;
		j->walltime_us = run;
		truth[k].run_us = run;
	}
	simtime span = T_US - 2 * SIMTIME_HOUR - SIMTIME_SEC;
	for (int32_t k = 0; k < b->npend; k++) {
		struct job *j = &jobs[nj];
		int batch = (int)((int64_t)k * BATCHES / b->npend);
		job_init(j, nj, SIMTIME_SEC + span * batch / BATCHES);
		double u = lcg_unit(&g);
		if (u < 0.40)
			set_req(j, 1, 1);
		else if (u < 0.60)
			set_req(j, 1, 2);
		else if (u < 0.75)
			set_req(j, 1, 4);
		else if (u < 0.90)
			set_req(j, 1, 8);
		else if (u < 0.96)
			set_req(j, 2, 8);
		else if (u < 0.99)
			set_req(j, 4, 8);
		else
			set_req(j, 16, 8);
		j->tenant = (int32_t)(lcg_next(&g) % NTENANTS);
		j->group = (int32_t)(lcg_next(&g) % 3);
		j->cls = (uint8_t)(lcg_next(&g) % JOB_NCLASS);
		j->walltime_us = simtime_from_s(600 + lcg_unit(&g) * (86400 - 600));
		truth[nj].run_us = j->walltime_us;
		nj++;
	}
	*jobs_out = jobs;
	*truth_out = truth;
	return nj;
}

static int build_org(struct org *o)
{
	org_init(o);
	o->t = calloc(NTENANTS, sizeof *o->t);
	o->p = calloc(2 * NTENANTS, sizeof *o->p);
	if (!o->t || !o->p)
		return -1;
	o->nt = NTENANTS;
	o->np = 2 * NTENANTS;
	for (int i = 0; i < NTENANTS; i++) {
		snprintf(o->t[i].name, sizeof o->t[i].name, "t%d", i);
		o->t[i].shares = 1 + i % 5;
		o->t[i].first_project = 2 * i;
		o->t[i].nprojects = 2;
		for (int k = 0; k < 2; k++) {
			snprintf(o->p[2 * i + k].name, sizeof o->p->name, "p%d", k);
			o->p[2 * i + k].shares = 1 + k;
		}
	}
	return 0;
}

/* One run: the time of the timed pass (seconds) and the jobs it started;
 * -1 on error. */
static int run_once(const struct policy_ops *pol, int32_t nnodes, int32_t npend, double *pass_s,
                    double *full_s, uint64_t *started, int64_t *free_gpus, char *err, size_t errlen)
{
	struct bench b = { .nnodes = nnodes, .npend = npend };
	struct cluster cl;
	struct sim s;
	struct job *jobs = NULL;
	struct job_truth *truth = NULL;
	struct timed tm = { .pol = pol };
	struct run_policy rp = { 0 };
	int rc = -1;
	if (build_org(&b.org)) {
		snprintf(err, errlen, "out of memory");
		goto out_org;
	}
	if (build_cluster(&cl, nnodes, err, errlen)) {
		cluster_fini(&cl);
		goto out_org;
	}
	int32_t nj = build_jobs(&b, &jobs, &truth);
	if (nj < 0) {
		snprintf(err, errlen, "out of memory building the jobs");
		free(jobs);
		free(truth);
		cluster_fini(&cl);
		goto out_org;
	}
	struct sim_cfg sc = { .horizon_us = SIMTIME_INF, .org = &b.org };
	if (sim_init(&s, &sc, &cl, jobs, truth, nj)) {
		snprintf(err, errlen, "out of memory setting up the run");
		goto out_org;
	}
	struct sim_sched fill = { .name = "fill", .state = &b, .schedule = fill_schedule };
	sim_set_sched(&s, &fill);
	if (sim_push(&s, T_US - SIMTIME_HOUR, SIM_EV_WAKE, -1, 0, 0))
		goto out_sim;
	/* Up to T − 1 h with the filler policy. */
	for (;;) {
		const struct ev *e = evq_peek(&s.q);
		if (!e || e->t >= T_US - SIMTIME_HOUR)
			break;
		if (sim_step(&s) < 0) {
			snprintf(err, errlen, "%s", s.err);
			goto out_sim;
		}
	}
	if (s.cl.free_gpus != 0 || s.nrunning != b.nfill) {
		snprintf(err, errlen, "setup: %lld GPUs free and %d jobs running, expected 0 and %d",
		         (long long)s.cl.free_gpus, (int)s.nrunning, (int)b.nfill);
		goto out_sim;
	}
	/* The policy as a run gets it (config/runasm.h): its defaults, then
	 * initialised on the engine's cluster, org and settings. */
	struct policy_env env = { .cl = &s.cl, .njobs = nj, .org = &b.org, .sim = &s.cfg };
	if (run_policy_find(&rp, pol->name, NULL, NULL, 0, err, errlen) ||
	    run_policy_init(&rp, &env, err, errlen))
		goto out_pol;
	tm.state = rp.state;
	struct sim_sched sched = { .name = pol->name, .state = &tm, .submit = timed_submit,
	                           .finish = timed_finish, .schedule = timed_schedule };
	sim_set_sched(&s, &sched);
	/* T − 1 h: the untimed pass on the full cluster. */
	if (sim_step(&s) < 0 || s.now != T_US - SIMTIME_HOUR) {
		snprintf(err, errlen, "at T - 1 h: %s", s.err[0] ? s.err : "no pass");
		goto out_pol;
	}
	*full_s = tm.last_s;
	/* T: the holes open; the timed pass. */
	uint64_t d0 = s.ndecisions;
	tm.last_s = -1;
	if (sim_step(&s) < 0 || s.now != T_US || tm.last_s < 0) {
		snprintf(err, errlen, "at T: %s", s.err[0] ? s.err : "no pass");
		goto out_pol;
	}
	*pass_s = tm.last_s;
	*started = s.ndecisions - d0;
	*free_gpus = tm.free_gpus;
	rc = 0;
out_pol:
	run_policy_fini(&rp);
out_sim:
	sim_fini(&s);
out_org:
	free(b.fparts);
	free(b.foff);
	org_fini(&b.org);
	return rc;
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

int main(int argc, char **argv)
{
	long runs = 5, nodes = 10000, pending = 100000;
	const char *names[8];
	int nnames = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		long *dst = strcmp(a, "--runs") == 0 ? &runs : strcmp(a, "--nodes") == 0 ? &nodes
		          : strcmp(a, "--pending") == 0 ? &pending : NULL;
		if (dst) {
			long hi = dst == &runs ? BENCH_MAX_RUNS : 10000000;
			if (i + 1 >= argc || !parse_long(argv[i + 1], 1, hi, dst)) {
				fprintf(stderr, "pass: %s: expected an integer in [1, %ld]\n" USAGE, a, hi);
				return 2;
			}
			i++;
		} else if (a[0] == '-') {
			fprintf(stderr, "pass: unknown option %s\n" USAGE, a);
			return 2;
		} else if (nnames < 8) {
			if (!policy_find(a)) {
				char known[256];
				policy_names(known, sizeof known);
				fprintf(stderr, "pass: unknown policy '%s' (known: %s)\n", a, known);
				return 2;
			}
			names[nnames++] = a;
		}
	}
	if (nnames == 0) {
		names[nnames++] = "fairshare";
		names[nnames++] = "easy";
	}
	printf("pass: one scheduling pass, %ld nodes x 8 GPUs, full but for ~1%% of them freed, %ld jobs pending (median of %ld)\n",
	       nodes, pending, runs);
	for (int k = 0; k < nnames; k++) {
		const struct policy_ops *pol = policy_find(names[k]);
		double t[BENCH_MAX_RUNS], tf[BENCH_MAX_RUNS];
		uint64_t started = 0;
		int64_t free_gpus = 0;
		for (long r = 0; r < runs; r++) {
			char err[1024] = "";
			if (run_once(pol, (int32_t)nodes, (int32_t)pending, &t[r], &tf[r], &started, &free_gpus,
			             err, sizeof err)) {
				fprintf(stderr, "pass: %s: %s\n", pol->name, err);
				return 1;
			}
		}
		double ms = bench_median(t, (int)runs) * 1e3;
		printf("  %-12s %8.2f ms per pass (%lld GPUs free, %llu jobs started); %.2f ms on the full cluster",
		       pol->name, ms, (long long)free_gpus, (unsigned long long)started,
		       bench_median(tf, (int)runs) * 1e3);
		if (strcmp(pol->name, "fairshare") == 0)
			printf("; target under %.0f ms: %s", TARGET_MS, ms < TARGET_MS ? "met" : "NOT met");
		printf("\n");
	}
	return 0;
}
