/* mcompute — every metric of the registry for one run within a window
 * (mrun_metrics, see mrun.h; the formulas are in docs/compare.md,
 * "Metrics"). */
#include "analysis/mrun.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dbutil.h"
#include "sim/job.h"

#define BSLD_TAU_S 10.0

/* A growable array of doubles. */
struct dv {
	double *v;
	size_t n, cap;
};

static int dv_push(struct dv *a, double x)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;
		double *p = realloc(a->v, cap * sizeof *p);
		if (!p)
			return -1;
		a->v = p;
		a->cap = cap;
	}
	a->v[a->n++] = x;
	return 0;
}

/* The job figures of one group (all, a class, a tenant). */
struct grp {
	struct dv wait, jct;
	double bsld_sum;
	size_t nbsld;
	double jobs, done, failed, killed, preempt, lost_s, held_s;
	double gpu_s, core_s;       /* allocated within the window */
};

static void grp_fini(struct grp *g)
{
	free(g->wait.v);
	free(g->jct.v);
}

/* A name → count list (end reasons). */
struct counts {
	char **name;
	double *n;
	int len;
};

static int counts_add(struct counts *c, const char *name)
{
	for (int i = 0; i < c->len; i++)
		if (strcmp(c->name[i], name) == 0) {
			c->n[i]++;
			return 0;
		}
	char **p = realloc(c->name, (size_t)(c->len + 1) * sizeof *p);
	if (!p)
		return -1;
	c->name = p;
	double *q = realloc(c->n, (size_t)(c->len + 1) * sizeof *q);
	if (!q)
		return -1;
	c->n = q;
	if (!(c->name[c->len] = strdup(name)))
		return -1;
	c->n[c->len++] = 1;
	return 0;
}

static void counts_fini(struct counts *c)
{
	for (int i = 0; i < c->len; i++)
		free(c->name[i]);
	free(c->name);
	free(c->n);
}

struct out {
	struct metric_set *s;
	int oom;
};

/* Appends (sorted once at the end). */
static void put(struct out *o, const char *base, const char *key, const char *val, double v)
{
	if (o->oom)
		return;
	struct metric_set *s = o->s;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		struct metric_val *p = realloc(s->v, cap * sizeof *p);
		if (!p) {
			o->oom = 1;
			return;
		}
		s->v = p;
		s->cap = cap;
	}
	char *name;
	int rc = key ? asprintf(&name, "%s{%s=%s}", base, key, val) : asprintf(&name, "%s", base);
	if (rc < 0) {
		o->oom = 1;
		return;
	}
	s->v[s->n].name = name;
	s->v[s->n++].v = v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

static void put_group(struct out *o, const char *key, const char *val, struct grp *g)
{
	static const struct { const char *name; double p; } q[] = {
		{ "p50", 0.50 }, { "p90", 0.90 }, { "p95", 0.95 }, { "p99", 0.99 },
	};
	char base[32];
	if (g->wait.n)
		qsort(g->wait.v, g->wait.n, sizeof(double), cmp_double);
	if (g->jct.n)
		qsort(g->jct.v, g->jct.n, sizeof(double), cmp_double);
	double ws = 0, js = 0;
	for (size_t i = 0; i < g->wait.n; i++)
		ws += g->wait.v[i];
	for (size_t i = 0; i < g->jct.n; i++)
		js += g->jct.v[i];
	put(o, "jobs", key, val, g->jobs);
	put(o, "done", key, val, g->done);
	put(o, "failed", key, val, g->failed);
	put(o, "killed", key, val, g->killed);
	put(o, "mean_wait", key, val, g->wait.n ? ws / (double)g->wait.n : NAN);
	put(o, "max_wait", key, val, g->wait.n ? g->wait.v[g->wait.n - 1] : NAN);
	put(o, "mean_jct", key, val, g->jct.n ? js / (double)g->jct.n : NAN);
	for (size_t k = 0; k < sizeof q / sizeof q[0]; k++) {
		snprintf(base, sizeof base, "%s_wait", q[k].name);
		put(o, base, key, val, report_percentile(g->wait.v, g->wait.n, q[k].p));
		snprintf(base, sizeof base, "%s_jct", q[k].name);
		put(o, base, key, val, report_percentile(g->jct.v, g->jct.n, q[k].p));
	}
	put(o, "mean_bsld", key, val, g->nbsld ? g->bsld_sum / (double)g->nbsld : NAN);
	put(o, "preemptions", key, val, g->preempt);
	put(o, "lost_gpu_h", key, val, g->lost_s / 3600);
	put(o, "quota_held_h", key, val, g->held_s / 3600);
	put(o, "gpu_h", key, val, g->gpu_s / 3600);
	put(o, "core_h", key, val, g->core_s / 3600);
}

/* The rack metrics within a window, from the rack samples: each sample
 * holds until the rack's next one (the last for the interval before it).
 * r->rs is in (rack, t_us) order (load_racks), so a rack's samples are one
 * run of it and one pass does every rack (a scan of all samples per rack
 * took 10^10 steps at 5,457 racks). */
static void rack_window(struct mrun *r, struct out *o, int64_t t0, int64_t t1)
{
	double warn_all = 0, over_all = 0, peak_all = NAN;
	size_t lo = 0;
	for (int x = 0; x < r->nracks; x++) {
		while (lo < r->nrs && r->rs[lo].rack < x)
			lo++;
		size_t hi = lo;
		while (hi < r->nrs && r->rs[hi].rack == x)
			hi++;
		size_t first = lo;
		lo = hi;
		if (!r->racks[x].name)
			continue;
		double warn = 0, over = 0, peak = NAN;
		int64_t prev = -1;
		for (size_t i = first; i < hi; i++) {
			const struct mrun_rsample *s = &r->rs[i];
			int64_t a = s->t_us;
			int64_t b = i + 1 < hi ? r->rs[i + 1].t_us : prev >= 0 ? a + (a - prev) : a;
			prev = a;
			double ov = mrun_overlap_s(a, b, t0, t1);
			double cap = isnan(s->cap_w) ? r->racks[x].cap_w : s->cap_w;
			if (s->warn)
				warn += ov;
			if (cap > 0 && s->power_w > cap)
				over += ov;
			if (s->t_us >= t0 && s->t_us <= t1 && cap > 0 && (isnan(peak) || s->power_w / cap > peak))
				peak = s->power_w / cap;
		}
		/* The throttled GPU-hours are totals of the run: no interval of them is recorded. */
		put(o, "throttled_gpu_h", "rack", r->racks[x].name, NAN);
		put(o, "warn_h", "rack", r->racks[x].name, warn / 3600);
		put(o, "over_cap_h", "rack", r->racks[x].name, over / 3600);
		put(o, "peak_cap", "rack", r->racks[x].name, peak);
		warn_all += warn;
		over_all += over;
		if (!isnan(peak) && (isnan(peak_all) || peak > peak_all))
			peak_all = peak;
	}
	put(o, "throttled_gpu_h", NULL, NULL, NAN);
	put(o, "warn_h", NULL, NULL, warn_all / 3600);
	put(o, "over_cap_h", NULL, NULL, over_all / 3600);
	put(o, "peak_cap", NULL, NULL, peak_all);
}

static void rack_whole(struct mrun *r, struct out *o)
{
	double thr = 0, warn = 0, over = 0, peak = NAN;
	for (int x = 0; x < r->nracks; x++) {
		const struct mrun_rack *k = &r->racks[x];
		if (!k->name)
			continue;
		double pc = ratio(k->peak_w, k->cap_w);
		put(o, "throttled_gpu_h", "rack", k->name, k->throttled_gpu_h);
		put(o, "warn_h", "rack", k->name, k->warn_s / 3600);
		put(o, "over_cap_h", "rack", k->name, k->over_s / 3600);
		put(o, "peak_cap", "rack", k->name, pc);
		thr += isnan(k->throttled_gpu_h) ? 0 : k->throttled_gpu_h;
		warn += isnan(k->warn_s) ? 0 : k->warn_s;
		over += isnan(k->over_s) ? 0 : k->over_s;
		if (!isnan(pc) && (isnan(peak) || pc > peak))
			peak = pc;
	}
	put(o, "throttled_gpu_h", NULL, NULL, thr);
	put(o, "warn_h", NULL, NULL, warn / 3600);
	put(o, "over_cap_h", NULL, NULL, over / 3600);
	put(o, "peak_cap", NULL, NULL, peak);
}

/* IT and facility energy in [t0, t1] from the samples (each holds until the next). */
static void sample_energy(const struct mrun *r, int64_t t0, int64_t t1, double *it_kwh, double *fac_kwh)
{
	*it_kwh = *fac_kwh = 0;
	for (size_t i = 0; i < r->nsamples; i++) {
		int64_t a = r->s_t[i];
		int64_t b = i + 1 < r->nsamples ? r->s_t[i + 1] : i > 0 ? a + (a - r->s_t[i - 1]) : a;
		double ov = mrun_overlap_s(a, b, t0, t1);
		if (!isnan(r->s_power[i]))
			*it_kwh += r->s_power[i] * ov / 3.6e6;
		if (!isnan(r->s_fac[i]))
			*fac_kwh += r->s_fac[i] * ov / 3.6e6;
	}
}

struct svc {
	int64_t grp, t0, t1;         /* the current run of missing-replica time */
	bool open;
	double viol_s;
};

static int cmp_job_grp(const void *a, const void *b)
{
	const struct mrun_job *x = *(const struct mrun_job *const *)a, *y = *(const struct mrun_job *const *)b;
	if (x->grp != y->grp)
		return x->grp < y->grp ? -1 : 1;
	return (x->submit_us > y->submit_us) - (x->submit_us < y->submit_us);
}

/* The SLO violation time per inference service in [t0, t1]: the measure of
 * the union of its replicas' waits (submit to start; to the end, or the
 * run's last time, for a replica that never started). */
static int services(struct mrun *r, struct out *o, int64_t t0, int64_t t1)
{
	const struct mrun_job **v = malloc((r->njobs ? r->njobs : 1) * sizeof *v);
	size_t n = 0;
	if (!v)
		return -1;
	for (size_t k = 0; k < r->njobs; k++)
		if (r->jobs[k].cls == JOB_INFERENCE && r->jobs[k].grp >= 0)
			v[n++] = &r->jobs[k];
	if (n)
		qsort(v, n, sizeof *v, cmp_job_grp);
	double total = 0;
	int nsvc = 0;
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		double viol = 0;
		int64_t cl = 0, ch = 0;
		bool open = false;
		for (hi = lo; hi < n && v[hi]->grp == v[lo]->grp; hi++) {
			const struct mrun_job *j = v[hi];
			int64_t a = j->submit_us;
			int64_t b = j->start_us >= 0 ? j->start_us : j->end_us >= 0 ? j->end_us : r->last_us;
			if (a < t0)
				a = t0;
			if (b > t1)
				b = t1;
			if (b <= a)
				continue;
			if (!open || a > ch) {
				if (open)
					viol += (double)(ch - cl) / 1e6;
				cl = a;
				ch = b;
				open = true;
			} else if (b > ch) {
				ch = b;
			}
		}
		if (open)
			viol += (double)(ch - cl) / 1e6;
		char buf[32];
		put(o, "slo_violation_s", "service", mrun_service_name(r, v[lo]->grp, buf, sizeof buf), viol);
		total += viol;
		nsvc++;
	}
	if (nsvc > 0)
		put(o, "slo_violation_s", NULL, NULL, total);
	free(v);
	return 0;
}

static int cmp_val(const void *a, const void *b)
{
	return strcmp(((const struct metric_val *)a)->name, ((const struct metric_val *)b)->name);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int mrun_metrics(struct mrun *r, const struct metric_window *w, struct metric_set *outset,
                 char *err, size_t errlen)
{
	memset(outset, 0, sizeof *outset);
	struct out o = { .s = outset };
	int64_t t0, t1;
	mrun_window(r, w, &outset->window, &t0, &t1, &outset->whole);
	outset->t0_us = t0;
	outset->t1_us = t1;

	/* Groups: all, the classes, the tenants (ascending). */
	int64_t *ten = malloc((r->njobs ? r->njobs : 1) * sizeof *ten);
	size_t nten = 0;
	for (size_t k = 0; ten && k < r->njobs; k++)
		if (r->jobs[k].tenant >= 0)
			ten[nten++] = r->jobs[k].tenant;
	if (ten)
		qsort(ten, nten, sizeof *ten, cmp_i64);
	size_t m = 0;
	for (size_t k = 0; ten && k < nten; k++)
		if (k == 0 || ten[k] != ten[m - 1])
			ten[m++] = ten[k];
	nten = m;
	size_t ng = 1 + JOB_NCLASS + nten;
	struct grp *g = calloc(ng, sizeof *g);
	int nm = r->models.n, nt = r->types.n;
	double *m_alloc = calloc((size_t)nm + 1, sizeof(double)), *m_cap = calloc((size_t)nm + 1, sizeof(double));
	double *tg_alloc = calloc((size_t)nt + 1, sizeof(double)), *tg_cap = calloc((size_t)nt + 1, sizeof(double));
	double *tc_alloc = calloc((size_t)nt + 1, sizeof(double)), *tc_cap = calloc((size_t)nt + 1, sizeof(double));
	struct counts reasons[2] = { { 0 } };     /* failed, killed */
	int ret = -1;
	if (!ten || !g || !m_alloc || !m_cap || !tg_alloc || !tg_cap || !tc_alloc || !tc_cap)
		goto nomem;

	for (size_t k = 0; k < r->njobs; k++) {
		const struct mrun_job *j = &r->jobs[k];
		struct grp *in[3] = { &g[0], j->cls < JOB_NCLASS ? &g[1 + j->cls] : NULL, NULL };
		if (j->tenant >= 0) {
			int64_t *f = bsearch(&j->tenant, ten, nten, sizeof *ten, cmp_i64);
			in[2] = &g[1 + JOB_NCLASS + (size_t)(f - ten)];
		}
		/* Time in the window: every run of every job. */
		double gs = 0, cs = 0;
		for (int q = 0; q < j->nruns; q++) {
			double ov = mrun_overlap_s(j->runs[q].a_us, j->runs[q].b_us, t0, t1);
			gs += j->gpus * ov;
			cs += (double)j->cores * ov;
		}
		for (int n = 0; n < j->nnode; n++) {
			const struct mrun_node *nd = &r->nodes[j->node[n]];
			if (nd->model_idx >= 0)
				m_alloc[nd->model_idx] += gs / j->nnode;
			tg_alloc[nd->type_idx] += gs / j->nnode;
			tc_alloc[nd->type_idx] += cs / j->nnode;
		}
		for (int x = 0; x < 3; x++)
			if (in[x]) {
				in[x]->gpu_s += gs;
				in[x]->core_s += cs;
			}
		/* Job figures: the jobs submitted in the window. */
		if (j->submit_us < t0 || j->submit_us > t1)
			continue;
		if (j->state == 'f' || j->state == 'k')
			if (counts_add(&reasons[j->state == 'k'], j->reason ? j->reason : "none") < 0)
				goto nomem;
		for (int x = 0; x < 3; x++) {
			struct grp *gg = in[x];
			if (!gg)
				continue;
			gg->jobs++;
			gg->done += j->state == 'd';
			gg->failed += j->state == 'f';
			gg->killed += j->state == 'k';
			gg->preempt += j->preemptions;
			gg->lost_s += j->lost_gpu_s;
			gg->held_s += j->quota_held_s;
			if (j->start_us >= 0 && dv_push(&gg->wait, (double)(j->start_us - j->submit_us) / 1e6) < 0)
				goto nomem;
			if (j->end_us >= 0 && dv_push(&gg->jct, (double)(j->end_us - j->submit_us) / 1e6) < 0)
				goto nomem;
			if (j->start_us >= 0 && j->end_us >= 0) {
				double wt = (double)(j->start_us - j->submit_us) / 1e6;
				double run = (double)(j->end_us - j->start_us) / 1e6;
				gg->bsld_sum += fmax((wt + run) / fmax(run, BSLD_TAU_S), 1.0);
				gg->nbsld++;
			}
		}
	}
	/* Capacity: the nodes present in the window. */
	double gcap = 0, ccap = 0;
	for (int i = 0; i < r->nnodes; i++) {
		const struct mrun_node *nd = &r->nodes[i];
		double p = 0;
		for (int q = 0; q < nd->npresent; q++)
			p += mrun_overlap_s(nd->present[q].a_us, nd->present[q].b_us, t0, t1);
		gcap += (double)nd->gpus * p;
		ccap += (double)nd->cores * p;
		if (nd->model_idx >= 0)
			m_cap[nd->model_idx] += (double)nd->gpus * p;
		tg_cap[nd->type_idx] += (double)nd->gpus * p;
		tc_cap[nd->type_idx] += (double)nd->cores * p;
	}
	if (r->nnodes == 0) {          /* an older file: the run row's cluster */
		double span = t1 > t0 ? (double)(t1 - t0) / 1e6 : 0;
		gcap = (double)r->total_gpus * span;
		ccap = (double)r->total_cores * span;
	}

	put_group(&o, NULL, NULL, &g[0]);
	put(&o, "gpu_util", NULL, NULL, ratio(g[0].gpu_s, gcap));
	put(&o, "core_util", NULL, NULL, ratio(g[0].core_s, ccap));
	for (int c = 0; c < JOB_NCLASS; c++) {
		struct grp *gg = &g[1 + c];
		if (gg->jobs == 0 && gg->gpu_s == 0 && gg->core_s == 0)
			continue;
		const char *cn = job_class_name((enum job_class)c);
		put_group(&o, "class", cn, gg);
		put(&o, "gpu_util", "class", cn, ratio(gg->gpu_s, gcap));
		put(&o, "core_util", "class", cn, ratio(gg->core_s, ccap));
	}
	for (size_t t = 0; t < nten; t++) {
		char buf[32];
		put_group(&o, "tenant", mrun_tenant_name(r, ten[t], buf, sizeof buf), &g[1 + JOB_NCLASS + t]);
	}
	for (int i = 0; i < nm; i++) {
		put(&o, "gpu_util", "gpu", r->models.v[i], ratio(m_alloc[i], m_cap[i]));
		put(&o, "gpu_h", "gpu", r->models.v[i], m_alloc[i] / 3600);
	}
	for (int i = 0; i < nt; i++) {
		if (tg_cap[i] > 0)
			put(&o, "gpu_util", "type", r->types.v[i], ratio(tg_alloc[i], tg_cap[i]));
		put(&o, "core_util", "type", r->types.v[i], ratio(tc_alloc[i], tc_cap[i]));
	}
	for (int x = 0; x < 2; x++)
		for (int i = 0; i < reasons[x].len; i++)
			put(&o, x ? "killed" : "failed", "reason", reasons[x].name[i], reasons[x].n[i]);
	put(&o, "makespan", NULL, NULL, r->last_end_us >= 0 && r->njobs
	    ? (double)(r->last_end_us - r->first_submit_us) / 1e6 : NAN);

	if (r->power_on) {
		double it = r->it_kwh, fac = r->facility_kwh;
		if (!outset->whole)
			sample_energy(r, t0, t1, &it, &fac);
		put(&o, "it_energy_kwh", NULL, NULL, it);
		put(&o, "facility_energy_kwh", NULL, NULL, fac);
		put(&o, "pue", NULL, NULL, ratio(fac, it));
		put(&o, "energy_cost", NULL, NULL, outset->whole ? r->cost : fac * ratio(r->cost, r->facility_kwh));
		put(&o, "carbon_kg", NULL, NULL, outset->whole ? r->carbon_kg
		                                               : fac * ratio(r->carbon_kg, r->facility_kwh));
		if (outset->whole)
			rack_whole(r, &o);
		else
			rack_window(r, &o, t0, t1);
	}
	if (services(r, &o, t0, t1) < 0)
		goto nomem;
	if (o.oom)
		goto nomem;
	if (outset->n)
		qsort(outset->v, outset->n, sizeof *outset->v, cmp_val);
	ret = 0;
	goto out;
nomem:
	snprintf(err, errlen, "%s: out of memory", r->path);
out:
	for (size_t i = 0; g && i < ng; i++)
		grp_fini(&g[i]);
	free(g);
	free(ten);
	free(m_alloc);
	free(m_cap);
	free(tg_alloc);
	free(tg_cap);
	free(tc_alloc);
	free(tc_cap);
	counts_fini(&reasons[0]);
	counts_fini(&reasons[1]);
	return ret;
}
