/* engine_snap — a run's whole state into a byte buffer and back
 * (sim_snap_save, sim_snap_load), so that a live daemon restarts from its
 * latest snapshot and replays only what its recording holds after it.
 *
 * What is saved is what a run that goes on reads: the job, truth and
 * progress tables (a compacted run's: the jobs alive), the pending and
 * running lists, every queued event with its sequence number (events pop
 * in (time, sequence) order, so pushing them back with the same numbers
 * gives the same order whatever shape the queue takes), the per-node index
 * of running jobs in its order, the cluster's dynamic state (free
 * capacity and its fit index, service states, shared and MIG cards, the
 * part pool that allocations live in, storage pools, the health records
 * and the nodes marked for the monitor, power and thermal state, the
 * sample power cache), the fault processes' random streams, the counters,
 * the live seam's bookkeeping (live_core.c), the policy's state and the
 * health monitor's (their save hooks). What the scenario gives (the
 * cluster's shape, labels, the settings) is not saved, but for the label
 * expressions bound as jobs arrived (a live run's): the run it is
 * loaded into was set up from the same scenario, which the header's
 * fingerprints check.
 *
 * Layout: a header (magic, version, the build's layout hash, the caller's
 * fingerprint, the run's shape hash), tagged sections, and a checksum of
 * everything before it (FNV-1a, 64 bits). */
#include "sim/engine.h"
#include "sim/engine_int.h"
#include "sim/fault.h"
#include "sim/mig.h"
#include "sim/power.h"
#include "sim/snap.h"

#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char magic[8] = "HLSNAP\0";

/* The build's layout: the sizes of what is stored as it lies in memory. */
static uint64_t build_hash(void)
{
	const uint64_t sz[] = {
		SIM_SNAP_VERSION, sizeof(struct job), sizeof(struct job_truth), sizeof(struct jobrun),
		sizeof(struct ev), sizeof(struct alloc_part), sizeof(struct gpustate), sizeof(struct nodefree),
		sizeof(struct mig_layout), sizeof(struct node_health), sizeof(struct node_power),
		sizeof(struct rack_power), live_snap_layout(), sizeof(struct storage_pool), sizeof(void *),
		0x01020304,
	};
	return snap_hash(SNAP_HASH0, sz, sizeof sz);
}

/* What the run was set up with that a snapshot must match. */
static uint64_t shape_hash(const struct sim *s)
{
	const struct cluster *cl = &s->cl;
	int64_t v[] = {
		cl->nnodes, cl->ngpu_all, cl->nracks, cl->npools, cl->ntypes, (int64_t)s->cfg.seed,
		s->cfg.sample_every_us, s->cfg.horizon_us, cl->pw != NULL, cl->health != NULL, s->live != NULL,
		s->health.check != NULL, cl->mig != NULL, cl->fx_words, cl->fxs_words,
	};
	uint64_t h = snap_hash(SNAP_HASH0, v, sizeof v);
	const char *name = s->sched.name ? s->sched.name : "";
	return snap_hash(h, name, strlen(name));
}

bool sim_snap_able(const struct sim *s)
{
	return (!s->sched.schedule || (s->sched.save && s->sched.load)) &&
	       (!s->health.check || (s->health.save && s->health.load));
}

/* ---- saving ---- */

struct evlist {
	struct ev *e;
	size_t n, cap;
	bool oom;
};

static void collect(void *ctx, struct ev *e)
{
	struct evlist *l = ctx;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 256;
		struct ev *n = realloc(l->e, cap * sizeof *n);
		if (!n) {
			l->oom = true;
			return;
		}
		l->e = n;
		l->cap = cap;
	}
	l->e[l->n++] = *e;
}

static int ev_order(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

#define PUT(w, x) snap_put((w), &(x), sizeof(x))
#define GET(r, x) snap_get((r), &(x), sizeof(x))

static void save_scalars(const struct sim *s, struct snapw *w)
{
	snap_put_tag(w, "scalars");
	PUT(w, s->njobs);
	PUT(w, s->next_submit);
	PUT(w, s->npending);
	PUT(w, s->nrunning);
	PUT(w, s->now);
	PUT(w, s->nevents);
	PUT(w, s->npasses);
	PUT(w, s->ndecisions);
	PUT(w, s->nfinished);
	PUT(w, s->nrejected);
	PUT(w, s->ngone);
	PUT(w, s->last_pass);
	PUT(w, s->dirty);
	PUT(w, s->sample_rows);
	PUT(w, s->alloc_epoch);
}

static void save_cluster(const struct sim *s, struct snapw *w)
{
	const struct cluster *cl = &s->cl;
	int32_t nn = cl->nnodes;
	snap_put_tag(w, "cluster");
	cluster_sel_save(cl, w);
	for (int32_t g = 0; g < cl->ngpu_all; g++) {
		const struct gpustate *gs = &cl->gpu[g];
		PUT(w, gs->milli_used);
		PUT(w, gs->nshare);
		PUT(w, gs->mem_need_mib);
		snap_put(w, gs->sharer, sizeof gs->sharer);
		uint8_t mig = gs->mig != NULL;
		PUT(w, mig);
		if (mig) {
			PUT(w, gs->mig->reslice_us);
			snap_put(w, gs->mig->owner, sizeof gs->mig->owner);
			snap_put(w, gs->mig->inst, sizeof gs->mig->inst);
			PUT(w, gs->mig->ninst);
			PUT(w, gs->mig->compute_used);
			PUT(w, gs->mig->nbusy);
		}
	}
	snap_put(w, cl->free, (size_t)nn * sizeof *cl->free);
	snap_put(w, cl->svc, (size_t)nn);
	size_t nk = CLUSTER_FX_GPUS + CLUSTER_FX_CORES;
	snap_put(w, cl->fx, nk * (size_t)cl->fx_words * sizeof *cl->fx);
	snap_put(w, cl->fxs, nk * (size_t)cl->fxs_words * sizeof *cl->fxs);
	snap_put(w, cl->fx_lev, (size_t)nn);
	PUT(w, cl->total_cores);
	PUT(w, cl->total_gpus);
	PUT(w, cl->free_cores);
	PUT(w, cl->free_gpus);
	PUT(w, cl->gpus_busy);
	PUT(w, cl->milli_used);
	snap_put_n(w, cl->pool.n);
	snap_put(w, cl->pool.freelist, sizeof cl->pool.freelist);
	snap_put(w, cl->pool.p, (size_t)cl->pool.n * sizeof *cl->pool.p);
	for (int32_t p = 0; p < cl->npools; p++) {
		PUT(w, cl->pools[p].used_gib);
		PUT(w, cl->pools[p].resv_mbps);
		PUT(w, cl->pools[p].njobs);
	}
	snap_put_n(w, cl->nhlog);
	snap_put(w, cl->hlog, (size_t)cl->nhlog * sizeof *cl->hlog);
	uint8_t marks = cl->hlogged != NULL;
	PUT(w, marks);
	if (marks)
		snap_put(w, cl->hlogged, (size_t)nn);
	PUT(w, cl->hlog_all);
	if (cl->health)
		snap_put(w, cl->health, (size_t)nn * sizeof *cl->health);
	if (cl->pw) {
		const struct power_state *pw = cl->pw;
		snap_put(w, pw->node, (size_t)nn * sizeof *pw->node);
		snap_put(w, pw->rack, (size_t)cl->nracks * sizeof *pw->rack);
		PUT(w, pw->it_energy_j);
		PUT(w, pw->facility_energy_j);
		PUT(w, pw->cost);
		PUT(w, pw->carbon_g);
		PUT(w, pw->idle_energy_j);
		PUT(w, pw->cfg.cool);   /* environment events change a cooling's inlet and rise */
	}
	uint8_t cache = s->node_w != NULL;
	PUT(w, cache);
	if (cache) {
		snap_put(w, s->node_w, (size_t)nn * sizeof *s->node_w);
		snap_put(w, s->node_wcores, (size_t)nn * sizeof *s->node_wcores);
		snap_put(w, cl->w_stale, (size_t)nn);
	}
}

int sim_snap_save(struct sim *s, uint64_t fingerprint, struct snapw *w)
{
	if (s->failed)
		return -1;
	if (s->sched.schedule && !(s->sched.save && s->sched.load))
		return eng_fail(s, "policy '%s' cannot save its state: the run cannot be snapshotted",
		                s->sched.name ? s->sched.name : "?");
	if (s->health.check && !(s->health.save && s->health.load))
		return eng_fail(s, "the health monitor cannot save its state: the run cannot be snapshotted");
	size_t at = w->n;   /* the snapshot may follow what the caller wrote */
	snap_put(w, magic, sizeof magic);
	snap_put_i64(w, SIM_SNAP_VERSION);
	snap_put_i64(w, (int64_t)build_hash());
	snap_put_i64(w, (int64_t)fingerprint);
	snap_put_i64(w, (int64_t)shape_hash(s));
	save_scalars(s, w);

	snap_put_tag(w, "jobs");
	snap_put(w, s->jobs, (size_t)s->njobs * sizeof *s->jobs);
	snap_put(w, s->truth, (size_t)s->njobs * sizeof *s->truth);
	snap_put(w, s->run, (size_t)s->njobs * sizeof *s->run);
	snap_put(w, s->pending, (size_t)s->npending * sizeof *s->pending);
	snap_put(w, s->running, (size_t)s->nrunning * sizeof *s->running);

	snap_put_tag(w, "events");
	struct evlist l = { 0 };
	evq_each(&s->q, collect, &l);
	if (l.oom) {
		free(l.e);
		return eng_fail(s, "out of memory saving a snapshot");
	}
	qsort(l.e, l.n, sizeof *l.e, ev_order);
	snap_put_n(w, (int64_t)l.n);
	snap_put(w, l.e, l.n * sizeof *l.e);
	free(l.e);
	PUT(w, s->q.next_seq);

	snap_put_tag(w, "onnode");
	for (int32_t i = 0; i < s->cl.nnodes; i++) {
		snap_put_n(w, s->onnode[i].n);
		snap_put(w, s->onnode[i].id, (size_t)s->onnode[i].n * sizeof *s->onnode[i].id);
	}
	save_cluster(s, w);

	snap_put_tag(w, "faults");
	for (int k = 0; k < 8; k++) {
		const gsl_rng *g = s->fault_rng[k];
		snap_put_n(w, g ? (int64_t)gsl_rng_size(g) : 0);
		if (g) {
			const char *name = gsl_rng_name(g);
			snap_put(w, name, strlen(name) + 1);
			snap_put(w, gsl_rng_state(g), gsl_rng_size(g));
		}
	}
	if (s->live)
		live_snap_save(s, w);

	snap_put_tag(w, "policy");
	if (s->sched.save) {
		struct view v;
		eng_view_fill(s, &v);
		if (s->sched.save(s->sched.state, &v, w))
			return eng_fail(s, "policy '%s' ran out of memory saving its state", s->sched.name);
	}
	snap_put_tag(w, "health");
	if (s->health.save)
		s->health.save(s->health.state, w);
	snap_put_tag(w, "end");
	uint64_t sum = w->oom ? 0 : snap_hash(SNAP_HASH0, w->buf + at, w->n - at);
	snap_put_i64(w, (int64_t)sum);
	if (w->oom)
		return eng_fail(s, "out of memory saving a snapshot");
	return 0;
}

/* ---- loading ---- */

static int load_scalars(struct sim *s, struct snapr *r)
{
	if (snap_get_tag(r, "scalars"))
		return -1;
	int32_t njobs = 0;
	GET(r, njobs);
	if (njobs < 0 || njobs > INT32_MAX / 2)
		return snap_bad(r, "a job count of %d", njobs);
	if (njobs + (s->live ? 2 : 1) > s->cap_jobs) {
		if (!s->live)
			return snap_bad(r, "%d jobs, where this run has room for %d", njobs, s->cap_jobs - 1);
		if (live_grow_jobs(s, njobs + 2))
			return snap_bad(r, "out of memory");
	}
	s->njobs = njobs;
	GET(r, s->next_submit);
	GET(r, s->npending);
	GET(r, s->nrunning);
	if (s->next_submit < 0 || s->next_submit > njobs || s->npending < 0 || s->npending > njobs ||
	    s->nrunning < 0 || s->nrunning > njobs)
		return snap_bad(r, "job lists out of range");
	if (s->npending >= s->cap_pending)
		return snap_bad(r, "%d pending jobs, where this run has room for %d", s->npending, s->cap_pending);
	GET(r, s->now);
	GET(r, s->nevents);
	GET(r, s->npasses);
	GET(r, s->ndecisions);
	GET(r, s->nfinished);
	GET(r, s->nrejected);
	GET(r, s->ngone);
	GET(r, s->last_pass);
	GET(r, s->dirty);
	GET(r, s->sample_rows);
	GET(r, s->alloc_epoch);
	return r->bad ? -1 : 0;
}

static int load_cluster(struct sim *s, struct snapr *r)
{
	struct cluster *cl = &s->cl;
	int32_t nn = cl->nnodes;
	if (snap_get_tag(r, "cluster") || cluster_sel_load(cl, r))
		return -1;
	for (int32_t g = 0; g < cl->ngpu_all; g++) {
		struct gpustate *gs = &cl->gpu[g];
		GET(r, gs->milli_used);
		GET(r, gs->nshare);
		GET(r, gs->mem_need_mib);
		snap_get(r, gs->sharer, sizeof gs->sharer);
		uint8_t mig = 0;
		GET(r, mig);
		if ((mig != 0) != (gs->mig != NULL))
			return snap_bad(r, "GPU %d is in MIG mode in one run and not in the other", g);
		if (mig) {
			GET(r, gs->mig->reslice_us);
			snap_get(r, gs->mig->owner, sizeof gs->mig->owner);
			snap_get(r, gs->mig->inst, sizeof gs->mig->inst);
			GET(r, gs->mig->ninst);
			GET(r, gs->mig->compute_used);
			GET(r, gs->mig->nbusy);
		}
	}
	snap_get(r, cl->free, (size_t)nn * sizeof *cl->free);
	snap_get(r, cl->svc, (size_t)nn);
	size_t nk = CLUSTER_FX_GPUS + CLUSTER_FX_CORES;
	snap_get(r, cl->fx, nk * (size_t)cl->fx_words * sizeof *cl->fx);
	snap_get(r, cl->fxs, nk * (size_t)cl->fxs_words * sizeof *cl->fxs);
	snap_get(r, cl->fx_lev, (size_t)nn);
	GET(r, cl->total_cores);
	GET(r, cl->total_gpus);
	GET(r, cl->free_cores);
	GET(r, cl->free_gpus);
	GET(r, cl->gpus_busy);
	GET(r, cl->milli_used);
	int64_t np = snap_get_n(r, UINT32_MAX / 2, "the part pool");
	if (np < 0)
		return -1;
	if ((uint32_t)np > cl->pool.cap) {
		struct alloc_part *p = realloc(cl->pool.p, (size_t)np * sizeof *p);
		if (!p)
			return snap_bad(r, "out of memory");
		cl->pool.p = p;
		cl->pool.cap = (uint32_t)np;
	}
	cl->pool.n = (uint32_t)np;
	snap_get(r, cl->pool.freelist, sizeof cl->pool.freelist);
	snap_get(r, cl->pool.p, (size_t)np * sizeof *cl->pool.p);
	for (int32_t p = 0; p < cl->npools; p++) {
		GET(r, cl->pools[p].used_gib);
		GET(r, cl->pools[p].resv_mbps);
		GET(r, cl->pools[p].njobs);
	}
	int64_t nh = snap_get_n(r, nn, "the nodes for the health monitor");
	if (nh < 0)
		return -1;
	if (nh > cl->caphlog) {
		int32_t *h = realloc(cl->hlog, (size_t)nh * sizeof *h);
		if (!h)
			return snap_bad(r, "out of memory");
		cl->hlog = h;
		cl->caphlog = (int32_t)nh;
	}
	cl->nhlog = (int32_t)nh;
	snap_get(r, cl->hlog, (size_t)nh * sizeof *cl->hlog);
	uint8_t marks = 0;
	GET(r, marks);
	if (marks && !cl->hlogged) {
		cl->hlogged = calloc((size_t)nn + 1, 1);
		if (!cl->hlogged)
			return snap_bad(r, "out of memory");
	}
	if (marks)
		snap_get(r, cl->hlogged, (size_t)nn);
	else if (cl->hlogged)
		memset(cl->hlogged, 0, (size_t)nn);
	GET(r, cl->hlog_all);
	if (cl->health)
		snap_get(r, cl->health, (size_t)nn * sizeof *cl->health);
	if (cl->pw) {
		struct power_state *pw = cl->pw;
		snap_get(r, pw->node, (size_t)nn * sizeof *pw->node);
		snap_get(r, pw->rack, (size_t)cl->nracks * sizeof *pw->rack);
		GET(r, pw->it_energy_j);
		GET(r, pw->facility_energy_j);
		GET(r, pw->cost);
		GET(r, pw->carbon_g);
		GET(r, pw->idle_energy_j);
		GET(r, pw->cfg.cool);
	}
	uint8_t cache = 0;
	GET(r, cache);
	if (cache) {
		if (!s->node_w) {
			s->node_w = calloc((size_t)nn + 1, sizeof *s->node_w);
			s->node_wcores = malloc(((size_t)nn + 1) * sizeof *s->node_wcores);
			cl->w_stale = malloc((size_t)nn + 1);
			if (!s->node_w || !s->node_wcores || !cl->w_stale)
				return snap_bad(r, "out of memory");
		}
		snap_get(r, s->node_w, (size_t)nn * sizeof *s->node_w);
		snap_get(r, s->node_wcores, (size_t)nn * sizeof *s->node_wcores);
		snap_get(r, cl->w_stale, (size_t)nn);
	} else if (s->node_w) {
		free(s->node_w);
		free(s->node_wcores);
		free(cl->w_stale);
		s->node_w = NULL;
		s->node_wcores = NULL;
		cl->w_stale = NULL;
	}
	return r->bad ? -1 : 0;
}

static int load_body(struct sim *s, struct snapr *r)
{
	if (load_scalars(s, r) || snap_get_tag(r, "jobs"))
		return -1;
	snap_get(r, s->jobs, (size_t)s->njobs * sizeof *s->jobs);
	snap_get(r, s->truth, (size_t)s->njobs * sizeof *s->truth);
	snap_get(r, s->run, (size_t)s->njobs * sizeof *s->run);
	snap_get(r, s->pending, (size_t)s->npending * sizeof *s->pending);
	snap_get(r, s->running, (size_t)s->nrunning * sizeof *s->running);

	if (snap_get_tag(r, "events"))
		return -1;
	int64_t nev = snap_get_n(r, (int64_t)(r->n / sizeof(struct ev)), "the event count");
	if (nev < 0)
		return -1;
	evq_fini(&s->q);
	if (evq_init(&s->q, (size_t)nev + (size_t)s->njobs + 16))
		return snap_bad(r, "out of memory");
	for (int64_t k = 0; k < nev; k++) {
		struct ev e;
		GET(r, e);
		s->q.next_seq = e.seq;
		if (evq_push(&s->q, e.t, e.kind, e.id, e.ver, e.arg))
			return snap_bad(r, "out of memory");
	}
	GET(r, s->q.next_seq);

	if (snap_get_tag(r, "onnode"))
		return -1;
	/* A run that kept no onnode (eng_onnode_lazy) saved every list empty:
	 * this one builds it from its running list when first read. */
	s->onnode_live = false;
	for (int32_t i = 0; i < s->cl.nnodes; i++) {
		struct nodejobs *o = &s->onnode[i];
		int64_t n = snap_get_n(r, s->njobs, "a node's running jobs");
		if (n < 0)
			return -1;
		if (n > o->cap) {
			int32_t *id = realloc(o->id, (size_t)n * sizeof *id);
			if (!id)
				return snap_bad(r, "out of memory");
			o->id = id;
			o->cap = (int32_t)n;
		}
		o->n = (int32_t)n;
		snap_get(r, o->id, (size_t)n * sizeof *o->id);
		if (n > 0)
			s->onnode_live = true;
	}
	if (load_cluster(s, r) || snap_get_tag(r, "faults"))
		return -1;
	for (int k = 0; k < 8; k++) {
		gsl_rng *g = s->fault_rng[k];
		int64_t sz = snap_get_n(r, 1 << 20, "a fault stream's size");
		if (sz < 0)
			return -1;
		if ((sz > 0) != (g != NULL))
			return snap_bad(r, "fault process %d is on in one run and not in the other", k);
		if (!g)
			continue;
		const char *name = gsl_rng_name(g);
		char got[64] = "";
		snap_get(r, got, strlen(name) + 1);
		if (strcmp(got, name) != 0 || (size_t)sz != gsl_rng_size(g))
			return snap_bad(r, "fault process %d draws from another generator", k);
		snap_get(r, gsl_rng_state(g), (size_t)sz);
	}
	if (s->live && live_snap_load(s, r))
		return -1;

	if (snap_get_tag(r, "policy"))
		return -1;
	if (s->sched.load) {
		struct view v;
		eng_view_fill(s, &v);
		if (s->sched.load(s->sched.state, &v, r))
			return snap_bad(r, "policy '%s': %s", s->sched.name, r->why[0] ? r->why : "its state does not load");
	}
	if (snap_get_tag(r, "health"))
		return -1;
	if (s->health.load && s->health.load(s->health.state, r))
		return -1;
	if (snap_get_tag(r, "end"))
		return -1;
	if (r->pos != r->n)
		return snap_bad(r, "%zu bytes past its end", r->n - r->pos);
	return 0;
}

int sim_snap_load(struct sim *s, uint64_t fingerprint, const void *buf, size_t len)
{
	const unsigned char *b = buf;
	size_t head = sizeof magic + 4 * sizeof(int64_t);
	if (s->failed)
		return -1;
	if (len < head + sizeof(int64_t) || memcmp(b, magic, sizeof magic) != 0) {
		snprintf(s->err, sizeof s->err, "not a hetlab snapshot (%zu bytes)", len);
		return -1;
	}
	int64_t hd[4];
	memcpy(hd, b + sizeof magic, sizeof hd);
	uint64_t sum;
	memcpy(&sum, b + len - sizeof sum, sizeof sum);
	const char *why = NULL;
	if (hd[0] != SIM_SNAP_VERSION)
		why = "it is of another snapshot version";
	else if ((uint64_t)hd[1] != build_hash())
		why = "it was written by another build (its tables are laid out otherwise)";
	else if (snap_hash(SNAP_HASH0, b, len - sizeof sum) != sum)
		why = "its checksum does not match (it is corrupt or cut short)";
	else if ((uint64_t)hd[2] != fingerprint)
		why = "it is of another scenario or settings";
	else if ((uint64_t)hd[3] != shape_hash(s))
		why = "it is of another cluster, policy or seed";
	if (why) {
		snprintf(s->err, sizeof s->err, "the snapshot cannot be loaded: %s", why);
		return -1;
	}
	struct snapr r = { .buf = b, .n = len - sizeof sum, .pos = head };
	if (load_body(s, &r)) {
		eng_fail(s, "the snapshot failed to load: %s", r.why[0] ? r.why : "?");
		return -2;
	}
	return 0;
}
