/* slurm_why — why each pending job waits under the slurm policy
 * (view.h decide_note; docs/forecast.md "Why a job waits"), in Slurm's own
 * Reason (what squeue shows: None, Priority, Resources, BeginTime, the
 * QOS and association limits, PartitionTimeLimit, ...) followed by hetlab's words.
 *
 * As in Slurm, a job's reason is what the last pass that looked at it set
 * (sl_job.why, by the main scheduler and the backfill cycle), and the
 * start the last backfill cycle planned for it (sl_job.plan_us) is
 * squeue --start's. The words are taken from the state now: the limit
 * that stops the job (sl_limits_why, the checks themselves), what the
 * cluster lacks (cluster_why). It decides nothing. */
#include "policies/slurm_int.h"

#include <stdio.h>

void sl_never_text(const struct sl *st, int32_t id, char *buf, size_t len)
{
	const struct sl_job *sj = &st->job[id];
	const struct slurm_part *p = &st->cfg->part[sj->part];
	char req[256];
	switch (sj->never) {
	case SLN_PART_DOWN:
		snprintf(buf, len, "PartitionDown: partition %s is not up; held", p->name);
		break;
	case SLN_PART_TIME:
		snprintf(buf, len, "PartitionTimeLimit: its time limit %lld s is over partition %s's MaxTime %lld s; held",
		         (long long)sj->limit_s, p->name, (long long)p->max_time_s);
		break;
	case SLN_PART_SIZE:
		cluster_req_text(st->cl, &st->v->jobs[id].req, req, sizeof req);
		snprintf(buf, len, "PartitionConfig: %s never fits partition %s (its nodes or MaxNodes); held", req,
		         p->name);
		break;
	default:
		if (!sl_limits_why(st, id, buf, len))
			snprintf(buf, len, "a QOS or association limit it can never meet; held");
	}
}

/* Slurm's ReqNodeNotAvail: the partition has the nodes the job needs,
 * but too few of them are in service; names them (four at most) into
 * buf. 0 when that is not why. */
static int node_not_avail(const struct sl *st, const struct slurm_part *p, const struct job_req *r, char *buf,
                          size_t len)
{
	const struct cluster *cl = st->cl;
	int32_t need = r->nodes > 0 ? r->nodes : 1, suit = 0, up = 0, named = 0;
	size_t at = 0;
	at += (size_t)snprintf(buf, len, "ReqNodeNotAvail, UnavailableNodes:");
	for (int32_t k = 0; k < p->nnodes; k++) {
		int32_t i = p->nodes[k];
		if (i < 0 || i >= cl->nnodes || !cluster_node_suits(cl, i, r, 0))
			continue;
		suit++;
		if (cl->svc[i] == NODE_UP) {
			up++;
			continue;
		}
		if (named < 4 && at < len) {
			int w = snprintf(buf + at, len - at, "%s%s", named ? "," : "", cl->nodes[i].name);
			if (w > 0)
				at += (size_t)w;
		}
		named++;
	}
	if (named > 4 && at < len)
		snprintf(buf + at, len - at, ",...");
	return suit >= need && up < need;
}

void sl_notes(struct sl *st)
{
	const struct view *v = st->v;
	char why[400], words[400], plan[64];
	for (int32_t i = 0; i < v->npending; i++) {
		int32_t id = v->pending[i];
		const struct job *j = &v->jobs[id];
		if (j->state != JOB_PENDING)
			continue;
		if (id >= st->cap_job || !st->job[id].known) {
			decide_note(st->out, id, "None: submitted, not yet seen by the controller");
			continue;
		}
		const struct sl_job *sj = &st->job[id];
		const char *part = st->cfg->part[sj->part].name;
		plan[0] = 0;
		if (sj->plan_us > v->now)
			snprintf(plan, sizeof plan, "; backfill plans its start at t=%.0f s", simtime_to_s(sj->plan_us));
		if (sj->never) {
			sl_never_text(st, id, why, sizeof why);
			decide_note(st->out, id, "%s", why);
		} else if (sj->begin_us > v->now) {
			decide_note(st->out, id, "BeginTime: eligible from t=%.0f s (a requeued job waits RequeueDelay)",
			            simtime_to_s(sj->begin_us));
		} else if (sj->why == SLW_LIMIT) {
			if (!sl_limits_why(st, id, why, sizeof why))
				snprintf(why, sizeof why, "a QOS or association limit (at the last pass; within them now)");
			decide_note(st->out, id, "%s%s", why, plan);
		} else if (sj->why == SLW_PRIORITY) {
			decide_note(st->out, id, "Priority: a job of higher priority waits for resources in partition %s%s",
			            part, plan);
		} else if (sj->why == SLW_RESOURCES) {
			if (cluster_why(st->cl, st->cl->free, &j->req, words, sizeof words))
				snprintf(words, sizeof words, "fits now on the cluster, not on partition %s's free nodes", part);
			if (node_not_avail(st, &st->cfg->part[sj->part], &j->req, why, sizeof why))
				decide_note(st->out, id, "%s: %s%s", why, words, plan);
			else
				decide_note(st->out, id, "Resources: %s%s", words, plan);
		} else {
			decide_note(st->out, id, "None: no scheduling pass has reached it yet (default_queue_depth, "
			            "bf_max_job_test)%s", plan);
		}
	}
}
