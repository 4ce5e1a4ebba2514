/* report_compute — the report's figures from the rows report_load.c read
 * (see report.h): the distributions, utilisation and bounded slowdown of
 * every job, per class and per tenant; the inference services' replica
 * delays and SLO violation time; the GPU split of reserved and shared
 * capacity; the display order of classes and states; and the operations
 * section, a sweep over the file's fault, drain, join and leave events in
 * time order. The formulas are in docs/results.md ("Report metrics"). */
#include "analysis/report.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "analysis/dbutil.h"
#include "sim/job.h"

/* Bounded slowdown's threshold: runs shorter than this count as this long. */
#define BSLD_TAU_S 10.0

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Sorts x in place and summarises it. */
static void dist_of(struct report_dist *d, double *x, size_t n)
{
	d->n = n;
	if (n == 0) {
		d->mean = d->p50 = d->p95 = d->p99 = d->max = NAN;
		return;
	}
	qsort(x, n, sizeof *x, cmp_double);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	d->mean = sum / (double)n;
	d->p50 = report_percentile(x, n, 0.50);
	d->p95 = report_percentile(x, n, 0.95);
	d->p99 = report_percentile(x, n, 0.99);
	d->max = x[n - 1];
}

/* ---- names --------------------------------------------------------------- */

/* Display order: the names a `rank` function knows in its order, then the
 * others alphabetically. */
static int rank_class(const char *s)
{
	int c = job_class_parse(s);
	return c < 0 ? JOB_NCLASS : c;
}

static int rank_state(const char *s)
{
	for (int i = 0; i < JOB_NSTATE; i++)
		if (strcmp(s, job_state_name((enum job_state)i)) == 0)
			return i;
	return JOB_NSTATE;
}

static int names_sort(struct report_names *nm, int (*rank)(const char *))
{
	nm->order = malloc((size_t)(nm->n ? nm->n : 1) * sizeof *nm->order);
	if (!nm->order)
		return -1;
	/* Insertion sort: a handful of names. */
	for (int i = 0; i < nm->n; i++) {
		int k = i;
		while (k > 0) {
			const char *a = nm->v[nm->order[k - 1]], *b = nm->v[i];
			int ra = rank(a), rb = rank(b);
			if (ra < rb || (ra == rb && strcmp(a, b) <= 0))
				break;
			nm->order[k] = nm->order[k - 1];
			k--;
		}
		nm->order[k] = i;
	}
	return 0;
}

/* ---- operations ---------------------------------------------------------- */

/* The node-hours sweep's state of one node (times in µs, -1 when closed). */
struct ops_node {
	int64_t id;
	bool present;
	int64_t present_since, down_since, drain_since, unavail_since;
	int drain;                         /* index in ops->drains of the open drain */
};

static int cmp_ops_node(const void *a, const void *b)
{
	int64_t x = ((const struct ops_node *)a)->id, y = ((const struct ops_node *)b)->id;
	return (x > y) - (x < y);
}

static int cmp_ops_kind(const void *a, const void *b)
{
	return strcmp(((const struct report_ops_kind *)a)->name,
	              ((const struct report_ops_kind *)b)->name);
}

/* Index of `name` in the list, added if new; -1 on ENOMEM. */
static int ops_kind_index(struct report_ops_kind **v, int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (strcmp((*v)[i].name, name) == 0)
			return i;
	struct report_ops_kind *p = realloc(*v, (size_t)(*n + 1) * sizeof *p);
	if (!p)
		return -1;
	*v = p;
	if (!(p[*n].name = strdup(name)))
		return -1;
	p[*n].n = 0;
	p[*n].node_s = 0;
	return (*n)++;
}

static void ops_kinds_free(struct report_ops_kind *v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

static struct ops_node *ops_find(struct ops_node *nd, size_t n, int64_t id)
{
	struct ops_node key = { .id = id };
	return bsearch(&key, nd, n, sizeof *nd, cmp_ops_node);
}

/* Opens or closes the node's unavailable interval after a change of its
 * down or drained interval: unavailable is their union. */
static void ops_unavail(struct report_ops *ops, struct ops_node *x, int64_t t)
{
	bool out = x->down_since >= 0 || x->drain_since >= 0;
	if (out && x->unavail_since < 0)
		x->unavail_since = t;
	else if (!out && x->unavail_since >= 0) {
		ops->unavail_s += (double)(t - x->unavail_since) / 1e6;
		x->unavail_since = -1;
	}
}

static void ops_close_down(struct report_ops *ops, struct ops_node *x, int64_t t)
{
	if (x->down_since < 0)
		return;
	ops->down_s += (double)(t - x->down_since) / 1e6;
	x->down_since = -1;
	ops_unavail(ops, x, t);
}

static void ops_close_drain(struct report_ops *ops, struct ops_node *x, int64_t t)
{
	if (x->drain_since < 0)
		return;
	double s = (double)(t - x->drain_since) / 1e6;
	ops->drained_s += s;
	ops->drains[x->drain].node_s += s;
	x->drain_since = -1;
	ops_unavail(ops, x, t);
}

/* Ends the node's presence (a leave, or the end of the run), closing its
 * down and drained intervals first. */
static void ops_close_presence(struct report_ops *ops, struct ops_node *x, int64_t t)
{
	ops_close_down(ops, x, t);
	ops_close_drain(ops, x, t);
	if (x->present)
		ops->present_s += (double)(t - x->present_since) / 1e6;
	x->present = false;
}

/* One event of the sweep, in time order; x is its node (NULL when none). */
static int ops_event(struct report_ops *ops, struct ops_node *x, int64_t t, const char *kind,
                     const char *detail)
{
	if (strcmp(kind, "fault") == 0) {
		char first[64];
		snprintf(first, sizeof first, "%.*s", (int)strcspn(detail, " "), detail);
		int k = ops_kind_index(&ops->faults, &ops->nfaults, first[0] ? first : "-");
		if (k < 0)
			return -1;
		ops->faults[k].n++;
		if (x && x->present && x->down_since < 0 && strcmp(detail, "node_crash") == 0) {
			x->down_since = t;
			ops_unavail(ops, x, t);
		}
	} else if (strcmp(kind, "repair") == 0) {
		if (x && strcmp(detail, "node_crash") == 0)
			ops_close_down(ops, x, t);
	} else if (strcmp(kind, "drain") == 0) {
		int k = ops_kind_index(&ops->drains, &ops->ndrains, detail[0] ? detail : "-");
		if (k < 0)
			return -1;
		ops->drains[k].n++;
		if (x && x->present && x->drain_since < 0) {   /* a second drain keeps the first */
			x->drain_since = t;
			x->drain = k;
			ops_unavail(ops, x, t);
		}
	} else if (strcmp(kind, "resume") == 0) {
		if (x)
			ops_close_drain(ops, x, t);
	} else if (strcmp(kind, "join") == 0) {
		ops->joined++;
		if (x && !x->present) {
			x->present = true;
			x->present_since = t;
		}
	} else if (strcmp(kind, "leave") == 0) {
		ops->left++;
		if (x)
			ops_close_presence(ops, x, t);
	} else {                                            /* a requeue after a fault */
		ops->migrations++;
		const char *p = strstr(detail, "lost ");
		if (p)
			ops->migration_lost_s += strtod(p + 5, NULL);
	}
	return 0;
}

#define OPS_KINDS "('fault', 'repair', 'drain', 'resume', 'join', 'leave')"
#define OPS_REQUEUE "(kind = 'requeue' AND (detail GLOB 'node crash*' OR detail GLOB 'GPU fell off the bus*'))"

/* The operations section (struct report_ops): a sweep over the file's
 * operations events, in time order, per node. */
static int load_ops(struct report *rp)
{
	struct report_ops *ops = &rp->ops;
	ops->availability = NAN;
	ops->node_fail_jobs = -1;
	if (!report_has_column(rp->db, "event", "kind") || !report_has_column(rp->db, "event", "detail") ||
	    !report_has_column(rp->db, "event", "node") || !report_has_column(rp->db, "event", "t_us"))
		return 0;
	sqlite3_stmt *st = NULL;
	struct ops_node *nd = NULL;
	size_t nn = 0, cap = 0;
	int64_t end_us = 0;
	int rc;
	if (sqlite3_prepare_v2(rp->db, "SELECT count(*) FROM event WHERE kind IN " OPS_KINDS
	                       " OR " OPS_REQUEUE, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		goto fail_db;
	ops->on = sqlite3_column_int64(st, 0) > 0;
	sqlite3_finalize(st);
	st = NULL;
	if (!ops->on)
		return 0;

	/* The nodes: those of table node and any an event names. */
	bool have_node = report_has_column(rp->db, "node", "id");
	if (sqlite3_prepare_v2(rp->db, have_node
	                       ? "SELECT id FROM node UNION SELECT node FROM event WHERE node IS NOT NULL ORDER BY 1"
	                       : "SELECT DISTINCT node FROM event WHERE node IS NOT NULL ORDER BY 1",
	                       -1, &st, NULL) != SQLITE_OK)
		goto fail_db;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (nn == cap) {
			cap = cap ? cap * 2 : 64;
			struct ops_node *p = realloc(nd, cap * sizeof *p);
			if (!p)
				goto nomem;
			nd = p;
		}
		nd[nn++] = (struct ops_node){ .id = sqlite3_column_int64(st, 0), .present = true,
		                              .down_since = -1, .drain_since = -1, .unavail_since = -1 };
	}
	if (rc != SQLITE_DONE)
		goto fail_db;
	sqlite3_finalize(st);
	st = NULL;
	ops->nodes = (int64_t)nn;

	/* The end of the run: the file's last event. */
	if (sqlite3_prepare_v2(rp->db, "SELECT max(t_us) FROM event", -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW)
		goto fail_db;
	end_us = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;

	/* A node whose first join or leave is a join was absent until then. */
	if (sqlite3_prepare_v2(rp->db, "SELECT node FROM event e WHERE kind = 'join' AND node IS NOT NULL"
	                       " AND NOT EXISTS (SELECT 1 FROM event f WHERE f.node = e.node AND"
	                       " f.kind IN ('join', 'leave') AND (f.t_us < e.t_us OR"
	                       " (f.t_us = e.t_us AND f.seq < e.seq)))", -1, &st, NULL) != SQLITE_OK)
		goto fail_db;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ops_node *x = ops_find(nd, nn, sqlite3_column_int64(st, 0));
		if (x)
			x->present = false;
	}
	if (rc != SQLITE_DONE)
		goto fail_db;
	sqlite3_finalize(st);
	st = NULL;

	if (sqlite3_prepare_v2(rp->db, "SELECT t_us, kind, node, detail FROM event WHERE kind IN "
	                       OPS_KINDS " OR " OPS_REQUEUE " ORDER BY t_us, seq", -1, &st, NULL) != SQLITE_OK)
		goto fail_db;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *kind = sqlite3_column_text(st, 1);
		const unsigned char *detail = sqlite3_column_text(st, 3);
		struct ops_node *x = sqlite3_column_type(st, 2) == SQLITE_NULL
		                     ? NULL : ops_find(nd, nn, sqlite3_column_int64(st, 2));
		if (ops_event(ops, x, sqlite3_column_int64(st, 0), kind ? (const char *)kind : "",
		              detail ? (const char *)detail : "") < 0)
			goto nomem;
	}
	if (rc != SQLITE_DONE)
		goto fail_db;
	sqlite3_finalize(st);
	st = NULL;
	for (size_t i = 0; i < nn; i++)
		ops_close_presence(ops, &nd[i], end_us);
	ops->availability = ops->present_s > 0 ? 1 - ops->unavail_s / ops->present_s : NAN;
	free(nd);
	nd = NULL;
	if (ops->nfaults > 1)
		qsort(ops->faults, (size_t)ops->nfaults, sizeof *ops->faults, cmp_ops_kind);
	if (ops->ndrains > 1)
		qsort(ops->drains, (size_t)ops->ndrains, sizeof *ops->drains, cmp_ops_kind);

	if (report_has_column(rp->db, "job", "reason")) {
		if (sqlite3_prepare_v2(rp->db, "SELECT count(*) FROM job WHERE reason = 'node_fail'",
		                       -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
			goto fail_db;
		ops->node_fail_jobs = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		st = NULL;
	}
	if (sqlite3_prepare_v2(rp->db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND"
	                       " name = 'billing'", -1, &st, NULL) != SQLITE_OK)
		goto fail_db;
	ops->billing = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return 0;
fail_db:
	report_fail_db(rp, "reading table event");
	sqlite3_finalize(st);
	free(nd);
	return -1;
nomem:
	sqlite3_finalize(st);
	free(nd);
	return report_failf(rp, "out of memory");
}

/* ---- metrics ------------------------------------------------------------- */

/* Metrics of the jobs rows[idx[0 .. n-1]] (idx ascending: sums in row
 * order). */
static void group_compute(struct report *rp, struct report_group *g, const size_t *idx, size_t n)
{
	memset(g, 0, sizeof *g);
	double bsld_sum = 0;
	int64_t nbsld = 0;
	size_t nw = 0;
	for (size_t k = 0; k < n; k++) {
		const struct report_job *j = &rp->rows[idx[k]];
		g->jobs++;
		g->preemptions += j->preemptions;
		g->quota_holds += j->quota_hold;
		g->lost_gpu_s += j->lost_gpu_s;
		g->ckpt_s += j->ckpt_s;
		g->held_s += j->held_s;
		g->energy_kwh += j->energy_kwh;
		g->energy_cost += j->energy_cost;
		if (j->start_us < 0)
			continue;
		g->started++;
		rp->scratch[nw++] = (double)(j->start_us - j->submit_us) / 1e6;
	}
	dist_of(&g->wait, rp->scratch, nw);

	size_t nj = 0;
	for (size_t k = 0; k < n; k++) {
		const struct report_job *j = &rp->rows[idx[k]];
		if (j->end_us < 0)
			continue;
		g->ended++;
		rp->scratch[nj++] = (double)(j->end_us - j->submit_us) / 1e6;
		if (j->start_us < 0)
			continue;
		double wait = (double)(j->start_us - j->submit_us) / 1e6;
		double run = (double)(j->end_us - j->start_us) / 1e6;
		g->core_s += (double)j->cores * run;
		g->gpu_s += (double)j->gpus * run;
		bsld_sum += fmax((wait + run) / fmax(run, BSLD_TAU_S), 1.0);
		nbsld++;
	}
	dist_of(&g->jct, rp->scratch, nj);
	g->bsld = nbsld ? bsld_sum / (double)nbsld : NAN;

	double ms = rp->makespan_s;
	g->core_util = rp->run.total_cores > 0 && ms > 0 ? g->core_s / ((double)rp->run.total_cores * ms) : NAN;
	g->gpu_util = rp->run.total_gpus > 0 && ms > 0 ? g->gpu_s / ((double)rp->run.total_gpus * ms) : NAN;
}

/* Rows sorted by a key, then a time, then their index. */
struct keyed {
	int64_t key, t_us;
	size_t i;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->t_us != y->t_us)
		return x->t_us < y->t_us ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* The number of distinct keys of sorted k[0 .. n-1]. */
static int count_keys(const struct keyed *k, size_t n)
{
	int m = 0;
	for (size_t i = 0; i < n; i++)
		m += i == 0 || k[i].key != k[i - 1].key;
	return m;
}

static int compute_tenants(struct report *rp)
{
	size_t n = rp->nrows;
	if (!(rp->have & REPORT_HAVE_TENANT) || n == 0)
		return 0;
	struct keyed *k = malloc(n * sizeof *k);
	if (!k)
		return -1;
	for (size_t i = 0; i < n; i++)
		k[i] = (struct keyed){ .key = rp->rows[i].tenant, .i = i };
	qsort(k, n, sizeof *k, cmp_keyed);
	int m = count_keys(k, n);
	rp->tenants = malloc((size_t)m * sizeof *rp->tenants);
	rp->per_tenant = calloc((size_t)m, sizeof *rp->per_tenant);
	if (!rp->tenants || !rp->per_tenant) {
		free(k);
		return -1;
	}
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		for (hi = lo; hi < n && k[hi].key == k[lo].key; hi++)
			rp->idx[hi - lo] = k[hi].i;
		rp->tenants[rp->ntenants] = k[lo].key;
		group_compute(rp, &rp->per_tenant[rp->ntenants++], rp->idx, hi - lo);
	}
	free(k);
	return 0;
}

/* One service from its replicas r[0 .. n-1] in submit order. A replica
 * waits over [submit, start); one that never started over [submit, end),
 * or up to `last_us` (the file's latest time) when it never ended. The
 * sweep adds up the union of these intervals: the time during which at
 * least one replica was missing. */
static void service_compute(const struct report *rp, struct report_service *sv,
                            const struct keyed *r, size_t n, int64_t last_us)
{
	int64_t viol_us = 0, cur_lo = 0, cur_hi = 0;
	bool open = false;                /* [cur_lo, cur_hi) is the current run of waits */
	double delay_sum = 0;
	sv->grp = r[0].key;
	sv->replicas = (int64_t)n;
	sv->delay_max_s = NAN;
	for (size_t k = 0; k < n; k++) {
		const struct report_job *j = &rp->rows[r[k].i];
		int64_t lo = j->submit_us;
		int64_t hi = j->start_us >= 0 ? j->start_us : j->end_us >= 0 ? j->end_us : last_us;
		if (j->start_us >= 0) {
			double d = (double)(j->start_us - j->submit_us) / 1e6;
			sv->started++;
			delay_sum += d;
			if (isnan(sv->delay_max_s) || d > sv->delay_max_s)
				sv->delay_max_s = d;
		}
		if (hi <= lo)
			continue;
		if (!open || lo > cur_hi) {   /* a gap: close the current run */
			if (open)
				viol_us += cur_hi - cur_lo;
			cur_lo = lo;
			cur_hi = hi;
			open = true;
		} else if (hi > cur_hi) {
			cur_hi = hi;
		}
	}
	if (open)
		viol_us += cur_hi - cur_lo;
	sv->slo_violation_s = (double)viol_us / 1e6;
	sv->delay_mean_s = sv->started ? delay_sum / (double)sv->started : NAN;
}

static int compute_services(struct report *rp, int inference, int64_t last_us)
{
	size_t n = 0;
	if (inference < 0 || !(rp->have & REPORT_HAVE_GRP))
		return 0;
	struct keyed *k = malloc((rp->nrows ? rp->nrows : 1) * sizeof *k);
	if (!k)
		return -1;
	for (size_t i = 0; i < rp->nrows; i++) {
		const struct report_job *j = &rp->rows[i];
		if (j->cls == inference && j->grp >= 0)
			k[n++] = (struct keyed){ .key = j->grp, .t_us = j->submit_us, .i = i };
	}
	qsort(k, n, sizeof *k, cmp_keyed);
	int m = count_keys(k, n);
	rp->services = calloc((size_t)(m ? m : 1), sizeof *rp->services);
	if (!rp->services) {
		free(k);
		return -1;
	}
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		for (hi = lo; hi < n && k[hi].key == k[lo].key; hi++)
			;
		service_compute(rp, &rp->services[rp->nservices++], k + lo, hi - lo, last_us);
	}
	free(k);
	return 0;
}

/* GPU-seconds of the inference class and of the others: the recorded
 * gpu_s (every run) where the file has it, else gpus × run of the last
 * run, as the GPU utilisation counts them. */
static void compute_gpu_split(struct report *rp, int inference)
{
	struct report_gpu_split *sp = &rp->gpu_split;
	sp->all_runs = rp->have & REPORT_HAVE_GPU_S;
	for (size_t i = 0; i < rp->nrows; i++) {
		const struct report_job *j = &rp->rows[i];
		double s = j->gpu_s;
		if (isnan(s))
			s = j->start_us >= 0 && j->end_us >= 0
			    ? j->gpus * (double)(j->end_us - j->start_us) / 1e6 : 0;
		if (j->cls == inference)
			sp->inference_s += s;
		else
			sp->shared_s += s;
	}
	double cap = (double)rp->run.total_gpus * rp->makespan_s;
	sp->inference_util = rp->run.total_gpus > 0 && rp->makespan_s > 0 ? sp->inference_s / cap : NAN;
	sp->shared_util = rp->run.total_gpus > 0 && rp->makespan_s > 0 ? sp->shared_s / cap : NAN;
}

static int compute(struct report *rp)
{
	int64_t first_submit = INT64_MAX, last_end = -1, last_us = 0;
	for (size_t i = 0; i < rp->nrows; i++) {
		const struct report_job *j = &rp->rows[i];
		if (j->submit_us < first_submit)
			first_submit = j->submit_us;
		if (j->end_us > last_end)
			last_end = j->end_us;
		int64_t t = j->end_us > j->start_us ? j->end_us : j->start_us;
		t = t > j->submit_us ? t : j->submit_us;
		last_us = t > last_us ? t : last_us;
		rp->any_lost |= j->preemptions > 0 || j->lost_gpu_s > 0 || j->ckpt_s > 0;
		rp->any_hold |= j->quota_hold || j->held_s > 0;
	}
	rp->makespan_s = last_end >= 0 && first_submit != INT64_MAX
	                 ? (double)(last_end - first_submit) / 1e6 : NAN;
	size_t n = rp->nrows ? rp->nrows : 1;
	rp->scratch = malloc(n * sizeof *rp->scratch);
	rp->idx = malloc(n * sizeof *rp->idx);
	rp->per_class = calloc((size_t)(rp->classes.n ? rp->classes.n : 1), sizeof *rp->per_class);
	if (!rp->scratch || !rp->idx || !rp->per_class)
		return report_failf(rp, "out of memory");
	for (size_t i = 0; i < rp->nrows; i++)
		rp->idx[i] = i;
	group_compute(rp, &rp->all, rp->idx, rp->nrows);
	int inference = -1;
	for (int c = 0; c < rp->classes.n; c++) {
		size_t m = 0;
		for (size_t i = 0; i < rp->nrows; i++)
			if (rp->rows[i].cls == c)
				rp->idx[m++] = i;
		group_compute(rp, &rp->per_class[c], rp->idx, m);
		if (strcmp(rp->classes.v[c], job_class_name(JOB_INFERENCE)) == 0)
			inference = c;
	}
	/* Utilisation as the registry counts it (every run of a job, the nodes
	 * present, within the window) where the file lets it. */
	if (rp->ms.n > 0) {
		rp->all.core_util = metric_get(&rp->ms, "core_util");
		rp->all.gpu_util = metric_get(&rp->ms, "gpu_util");
		for (int c = 0; c < rp->classes.n; c++) {
			char name[METRIC_NAME_MAX];
			snprintf(name, sizeof name, "core_util{class=%s}", rp->classes.v[c]);
			rp->per_class[c].core_util = metric_get(&rp->ms, name);
			snprintf(name, sizeof name, "gpu_util{class=%s}", rp->classes.v[c]);
			rp->per_class[c].gpu_util = metric_get(&rp->ms, name);
		}
	}
	compute_gpu_split(rp, inference);
	rp->power.jobs_cost = rp->all.energy_cost;
	if (compute_tenants(rp) < 0 || compute_services(rp, inference, last_us) < 0 ||
	    names_sort(&rp->classes, rank_class) < 0 || names_sort(&rp->states, rank_state) < 0)
		return report_failf(rp, "out of memory");
	return 0;
}

int report_compute(struct report *rp)
{
	if (load_ops(rp) < 0 || compute(rp) < 0)
		return -1;
	return 0;
}

void report_compute_fini(struct report *rp)
{
	free(rp->scratch);
	free(rp->idx);
	free(rp->per_class);
	free(rp->tenants);
	free(rp->per_tenant);
	free(rp->services);
	ops_kinds_free(rp->ops.faults, rp->ops.nfaults);
	ops_kinds_free(rp->ops.drains, rp->ops.ndrains);
}
