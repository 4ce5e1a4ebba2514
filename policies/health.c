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
 *   - (live mode) its reading is hot (sim_cfg.hot_c).
 * A drained node that is up again, with none of these holding, is resumed;
 * the windows are sliding, so the monitor asks for a pass when the oldest
 * event in a window leaves it. */
#include "policies/health.h"
#include "sim/fault.h"

#include <stdio.h>
#include <stdlib.h>

struct health {
	struct health_cfg cfg;
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

static void check(void *state, const struct view *v, struct decide *out)
{
	struct health *hm = state;
	const struct cluster *cl = v->cl;
	simtime wake = SIMTIME_INF;
	char why[64];
	if (!cl->health)
		return;
	for (int32_t i = 0; i < cl->nnodes; i++) {
		uint8_t svc = cl->svc[i];
		const struct node_health *h = &cl->health[i];
		if (svc == NODE_ABSENT)
			continue;
		const char *r = why_unhealthy(&hm->cfg, cl, i, v->now, &wake, why, sizeof why);
		if (r && (svc == NODE_UP || (svc == NODE_DOWN && h->drained_since < 0))) {
			if (decide_drain(out, i, r))
				return;
		} else if (!r && h->drained_since >= 0 && (svc == NODE_DRAINED || svc == NODE_DRAINING) &&
		           h->drain_reason[0] && h->drain_reason[0] != 'l') {   /* not a node leaving */
			if (decide_resume(out, i))
				return;
		}
	}
	if (wake != SIMTIME_INF && wake > v->now)
		decide_wake(out, wake + 1);
}

int health_init(struct sim_health *out, const struct health_cfg *cfg)
{
	struct health *hm = calloc(1, sizeof *hm);
	if (!hm)
		return -1;
	hm->cfg = *cfg;
	out->state = hm;
	out->check = check;
	return 0;
}

void health_fini(struct sim_health *h)
{
	free(h->state);
	h->state = NULL;
}
