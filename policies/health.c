/* health — the health monitor: drains a node that keeps failing and
 * returns it to service once it is healthy again (docs/models.md
 * "Failures and health"). Pure like a policy: it reads the view (each
 * node's health record in cl->health, its service state) and acts only
 * through decide_drain, decide_resume and decide_wake.
 *
 * A node is drained, with the first reason that holds, when
 *   - fail_jobs jobs failed on it within fail_window,
 *   - it crashed flaps times within flap_window (flapping),
 *   - one of its GPUs runs below min_gpu_speed (degraded or fallen off),
 *   - its NIC loses more than max_nic_loss of its packets,
 *   - its disk reports a SMART warning (when smart is on),
 *   - (live mode) its reading is hot (sim_live_cfg.hot_c, sim/live.h).
 * A drained node that is up again, with none of these holding, is resumed;
 * the windows are sliding, so the monitor asks for a pass when the oldest
 * event in a window leaves it.
 *
 * A node's verdict changes only when its record or service state changes
 * or an event leaves one of its windows. The engine lists the nodes whose
 * record or state changed since the last pass (cl->hlog, or hlog_all for
 * every node); the monitor keeps, per node, the time its next window event
 * leaves (a min-heap), and looks at those nodes and the ones whose time has
 * come, in node order, as a scan of every node would — so a pass costs
 * O(changes), not O(nodes), and the decisions and wake-ups are those of the
 * scan. */
#include "policies/health.h"
#include "sim/fault.h"
#include "sim/snap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct expiry {
	simtime t;
	int32_t node;
};

struct health {
	struct health_cfg cfg;
	int32_t nnodes;
	simtime *exp;             /* per node: when an event leaves one of its windows (INF none) */
	struct expiry *heap;      /* min-heap of (exp, node); entries whose t != exp[node] are stale */
	int32_t nheap, capheap;
	int32_t *look;            /* the nodes to look at this pass */
	uint32_t *stamp;          /* per node: the pass that listed it */
	uint32_t pass;
	bool scanned;             /* a full scan has been done */
};

/* How many of the ring's latest n times lie within (now − window, now];
 * *leaves is the earliest time one of them leaves the window. */
static int in_window(const simtime *ring, int32_t n, simtime now, simtime window, simtime *leaves)
{
	int c = 0;
	int32_t m = n < HEALTH_RING ? n : HEALTH_RING;
	for (int32_t k = 0; k < m; k++) {
		simtime t = ring[k];
		if (t > now - window) {
			c++;
			if (t + window < *leaves)
				*leaves = t + window;
		}
	}
	return c;
}

/* Why node i should be out of service now, or NULL. */
static const char *why_unhealthy(const struct health_cfg *c, const struct cluster *cl, int32_t i, simtime now,
                                 simtime *wake, char *buf, size_t len)
{
	const struct node_health *h = &cl->health[i];
	const struct node *n = &cl->nodes[i];
	if (c->fail_jobs > 0 && in_window(h->job_fail_at, h->job_fails, now, c->fail_window_us, wake) >= c->fail_jobs) {
		snprintf(buf, len, "%d job failures in %.0f min", c->fail_jobs, simtime_to_s(c->fail_window_us) / 60);
		return buf;
	}
	if (c->flaps > 0 && in_window(h->crash_at, h->crashes, now, c->flap_window_us, wake) >= c->flaps) {
		snprintf(buf, len, "flapping: %d crashes in %.0f h", c->flaps, simtime_to_s(c->flap_window_us) / 3600);
		return buf;
	}
	for (int g = 0; g < n->ngpus && g < 64 && c->min_gpu_speed > 0; g++)
		if (h->gpu_speed[g] < c->min_gpu_speed) {
			snprintf(buf, len, h->gpu_speed[g] <= 0 ? "GPU %d fell off the bus" : "GPU %d at %.0f %% speed", g,
			         h->gpu_speed[g] * 100);
			return buf;
		}
	if (c->max_nic_loss > 0 && h->nic_loss > c->max_nic_loss) {
		snprintf(buf, len, "NIC loss %.2f %%", h->nic_loss * 100);
		return buf;
	}
	if (c->smart && h->smart) {
		snprintf(buf, len, "SMART warning");
		return buf;
	}
	if (h->hot) {
		snprintf(buf, len, "hot: %.0f C", h->temp_c);
		return buf;
	}
	return NULL;
}

static void heap_push(struct health *hm, simtime t, int32_t node)
{
	if (hm->nheap == hm->capheap) {
		int32_t cap = hm->capheap ? 2 * hm->capheap : 64;
		struct expiry *h = realloc(hm->heap, (size_t)cap * sizeof *h);
		if (!h) {
			hm->scanned = false;   /* out of memory: scan every node next pass */
			return;
		}
		hm->heap = h;
		hm->capheap = cap;
	}
	int32_t i = hm->nheap++;
	while (i > 0 && hm->heap[(i - 1) / 2].t > t) {
		hm->heap[i] = hm->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	hm->heap[i] = (struct expiry){ t, node };
}

static void heap_pop(struct health *hm)
{
	struct expiry last = hm->heap[--hm->nheap];
	int32_t i = 0, n = hm->nheap;
	for (;;) {
		int32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && hm->heap[c + 1].t < hm->heap[c].t)
			c++;
		if (hm->heap[c].t >= last.t)
			break;
		hm->heap[i] = hm->heap[c];
		i = c;
	}
	if (n)
		hm->heap[i] = last;
}

/* Drops stale entries from the heap's top. */
static void heap_clean(struct health *hm)
{
	while (hm->nheap > 0 && hm->heap[0].t != hm->exp[hm->heap[0].node])
		heap_pop(hm);
}

static int cmp_node(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* Node i's verdict now, acted on; *w lowered to the time an event leaves
 * one of its windows. -1 when the engine refused a decision (the run
 * stops). */
static int act_on(const struct health *hm, const struct view *v, int32_t i, simtime *w, struct decide *out)
{
	const struct cluster *cl = v->cl;
	uint8_t svc = cl->svc[i];
	const struct node_health *h = &cl->health[i];
	char why[64];
	if (svc == NODE_ABSENT)
		return 0;
	const char *r = why_unhealthy(&hm->cfg, cl, i, v->now, w, why, sizeof why);
	if (r && (svc == NODE_UP || (svc == NODE_DOWN && h->drained_since < 0))) {
		if (decide_drain(out, i, r))
			return -1;
	} else if (!r && h->drained_since >= 0 && (svc == NODE_DRAINED || svc == NODE_DRAINING) &&
	           h->drain_reason[0] && strcmp(h->drain_reason, "leave") != 0 &&
	           strcmp(h->drain_reason, "scheduled") != 0) {   /* not a node leaving, nor a scenario's drain */
		if (decide_resume(out, i))
			return -1;
	}
	return 0;
}

/* act_on, with node i's window time recorded. */
static int look_at(struct health *hm, const struct view *v, int32_t i, struct decide *out)
{
	simtime w = SIMTIME_INF;
	int rc = act_on(hm, v, i, &w, out);
	if (w != hm->exp[i]) {
		hm->exp[i] = w;
		if (w != SIMTIME_INF)
			heap_push(hm, w, i);
	}
	return rc;
}

/* Sizes the per-node arrays for cl; -1 when memory runs out. */
static int size_for(struct health *hm, const struct cluster *cl)
{
	if (hm->nnodes >= cl->nnodes)
		return 0;
	size_t n = (size_t)cl->nnodes + 1;
	simtime *e = realloc(hm->exp, n * sizeof *e);
	if (e)
		hm->exp = e;
	int32_t *l = realloc(hm->look, n * sizeof *l);
	if (l)
		hm->look = l;
	uint32_t *st = realloc(hm->stamp, n * sizeof *st);
	if (st)
		hm->stamp = st;
	if (!e || !l || !st)
		return -1;
	memset(hm->stamp, 0, n * sizeof *hm->stamp);
	hm->nnodes = cl->nnodes;
	hm->scanned = false;
	return 0;
}

/* Rebuilds the heap from exp[] when stale entries have piled up. */
static void heap_compact(struct health *hm)
{
	if (hm->nheap <= 4 * hm->nnodes + 64)
		return;
	hm->nheap = 0;
	for (int32_t i = 0; i < hm->nnodes; i++)
		if (hm->exp[i] != SIMTIME_INF)
			heap_push(hm, hm->exp[i], i);
}

/* Without memory for the per-node state: every node, every pass. */
static void check_every_node(struct health *hm, const struct view *v, struct decide *out)
{
	simtime wake = SIMTIME_INF;
	for (int32_t i = 0; i < v->cl->nnodes; i++)
		if (act_on(hm, v, i, &wake, out))
			return;
	if (wake != SIMTIME_INF && wake > v->now)
		decide_wake(out, wake + 1);
}

static void check(void *state, const struct view *v, struct decide *out)
{
	struct health *hm = state;
	const struct cluster *cl = v->cl;
	if (!cl->health)
		return;
	if (size_for(hm, cl)) {
		check_every_node(hm, v, out);
		return;
	}
	if (!hm->scanned || cl->hlog_all) {
		hm->scanned = true;
		hm->nheap = 0;
		for (int32_t i = 0; i < cl->nnodes; i++)
			hm->exp[i] = SIMTIME_INF;
		for (int32_t i = 0; i < cl->nnodes; i++)
			if (look_at(hm, v, i, out))
				return;
	} else {
		/* The nodes the engine listed and those whose window time has
		 * come (an event leaves a window when now >= its time), once
		 * each, in node order. */
		int32_t n = 0;
		if (++hm->pass == 0) {   /* wrapped: no stale stamp may equal it */
			memset(hm->stamp, 0, (size_t)hm->nnodes * sizeof *hm->stamp);
			hm->pass = 1;
		}
		for (int32_t k = 0; k < cl->nhlog; k++) {
			int32_t i = cl->hlog[k];
			hm->stamp[i] = hm->pass;
			hm->look[n++] = i;
		}
		for (heap_clean(hm); hm->nheap > 0 && hm->heap[0].t <= v->now; heap_clean(hm)) {
			int32_t i = hm->heap[0].node;
			heap_pop(hm);
			hm->exp[i] = SIMTIME_INF;   /* recomputed when looked at */
			if (hm->stamp[i] != hm->pass) {
				hm->stamp[i] = hm->pass;
				hm->look[n++] = i;
			}
		}
		qsort(hm->look, (size_t)n, sizeof *hm->look, cmp_node);
		for (int32_t k = 0; k < n; k++)
			if (look_at(hm, v, hm->look[k], out))
				return;
	}
	heap_compact(hm);
	heap_clean(hm);
	simtime wake = hm->nheap > 0 ? hm->heap[0].t : SIMTIME_INF;
	if (wake != SIMTIME_INF && wake > v->now)
		decide_wake(out, wake + 1);
}

/* Snapshots (sim_health.save / load): the windows' expiries and their
 * heap, the pass stamps and whether the full scan was done. */
static void health_save(void *state, struct snapw *w)
{
	const struct health *hm = state;
	snap_put_tag(w, "health");
	snap_put_n(w, hm->nnodes);
	snap_put_n(w, hm->nheap);
	snap_put(w, hm->exp, (size_t)hm->nnodes * sizeof *hm->exp);
	snap_put(w, hm->stamp, (size_t)hm->nnodes * sizeof *hm->stamp);
	snap_put(w, hm->heap, (size_t)hm->nheap * sizeof *hm->heap);
	snap_put(w, &hm->pass, sizeof hm->pass);
	snap_put(w, &hm->scanned, sizeof hm->scanned);
}

static int health_load(void *state, struct snapr *r)
{
	struct health *hm = state;
	if (snap_get_tag(r, "health"))
		return -1;
	int64_t nn = snap_get_n(r, HL_MAX_NODES, "the health monitor's nodes");
	int64_t nh = snap_get_n(r, INT32_MAX / 2, "the health monitor's expiries");
	if (nn < 0 || nh < 0)
		return -1;
	if (nn > hm->nnodes) {
		size_t n = (size_t)nn + 1;
		simtime *e = realloc(hm->exp, n * sizeof *e);
		if (e)
			hm->exp = e;
		int32_t *l = realloc(hm->look, n * sizeof *l);
		if (l)
			hm->look = l;
		uint32_t *st = realloc(hm->stamp, n * sizeof *st);
		if (st)
			hm->stamp = st;
		if (!e || !l || !st)
			return snap_bad(r, "out of memory");
	}
	hm->nnodes = (int32_t)nn;
	if (nh > hm->capheap) {
		struct expiry *h = realloc(hm->heap, (size_t)nh * sizeof *h);
		if (!h)
			return snap_bad(r, "out of memory");
		hm->heap = h;
		hm->capheap = (int32_t)nh;
	}
	hm->nheap = (int32_t)nh;
	snap_get(r, hm->exp, (size_t)nn * sizeof *hm->exp);
	snap_get(r, hm->stamp, (size_t)nn * sizeof *hm->stamp);
	snap_get(r, hm->heap, (size_t)nh * sizeof *hm->heap);
	snap_get(r, &hm->pass, sizeof hm->pass);
	snap_get(r, &hm->scanned, sizeof hm->scanned);
	return r->bad ? -1 : 0;
}

int health_init(struct sim_health *out, const struct health_cfg *cfg)
{
	struct health *hm = calloc(1, sizeof *hm);
	if (!hm)
		return -1;
	hm->cfg = *cfg;
	out->state = hm;
	out->check = check;
	out->save = health_save;
	out->load = health_load;
	return 0;
}

void health_fini(struct sim_health *h)
{
	struct health *hm = h->state;
	if (hm) {
		free(hm->exp);
		free(hm->heap);
		free(hm->look);
		free(hm->stamp);
	}
	free(h->state);
	h->state = NULL;
}
