/* runplot_m — the run figures drawn from the metric registry's model of a
 * run (analysis/mrun.h): each GPU model's utilisation over time, the wait
 * of each class over time, and the energy over time (see runplot.h). */
#include "analysis/runplot.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mrun.h"
#include "analysis/plot.h"
#include "sim/job.h"

enum { NBIN_MAX = 400 };

static void add_fig(struct runplot_set *s, const char *name, const char *caption)
{
	if (s->n >= RUNPLOT_MAX_FIGS)
		return;
	snprintf(s->fig[s->n].name, sizeof s->fig[s->n].name, "%s", name);
	snprintf(s->fig[s->n].caption, sizeof s->fig[s->n].caption, "%s", caption);
	s->n++;
}

/* Bins over [0, end]: the run's sample interval when it has one, at most NBIN_MAX. */
static int64_t bin_width(const struct mrun *r, int64_t end)
{
	int64_t w = r->nsamples > 1 ? r->s_t[1] - r->s_t[0] : 0;
	if (w <= 0 || end / w > NBIN_MAX)
		w = end / NBIN_MAX + 1;
	return w;
}

static double day_or_hour(int64_t end_us, const char **label)
{
	if (end_us > 3 * 86400e6) {
		*label = "simulated time since the start (days)";
		return 86400e6;
	}
	*label = "simulated time since the start (hours)";
	return 3600e6;
}

/* Each GPU model's allocated GPUs as a share of its GPUs present, per bin. */
static int gpu_models(struct mrun *r, const char *dir, struct runplot_set *set, char *err, size_t errlen)
{
	int nm = r->models.n;
	if (nm == 0 || r->last_us <= 0)
		return 0;
	int64_t end = r->last_us, w = bin_width(r, end), nb = end / w + 1;
	if (nb < 2)
		return 0;   /* too short a run for a curve */
	double *alloc = calloc((size_t)(nm * nb), sizeof *alloc), *cap = calloc((size_t)(nm * nb), sizeof *cap);
	double *x = calloc((size_t)nb, sizeof *x), *y = calloc((size_t)(nm * nb), sizeof *y);
	int ret = -1;
	if (!alloc || !cap || !x || !y) {
		snprintf(err, errlen, "%s: out of memory", r->path);
		goto out;
	}
	for (size_t k = 0; k < r->njobs; k++) {
		const struct mrun_job *j = &r->jobs[k];
		for (int n = 0; n < j->nnode; n++) {
			int m = r->nodes[j->node[n]].model_idx;
			if (m < 0)
				continue;
			for (int q = 0; q < j->nruns; q++)
				for (int64_t b = j->runs[q].a_us / w; b < nb && b * w < j->runs[q].b_us; b++)
					alloc[m * nb + b] += j->gpus / j->nnode *
					                     mrun_overlap_s(j->runs[q].a_us, j->runs[q].b_us, b * w, (b + 1) * w);
		}
	}
	for (int i = 0; i < r->nnodes; i++) {
		const struct mrun_node *nd = &r->nodes[i];
		if (nd->model_idx < 0)
			continue;
		for (int64_t b = 0; b < nb; b++)
			for (int q = 0; q < nd->npresent; q++)
				cap[nd->model_idx * nb + b] += (double)nd->gpus *
				        mrun_overlap_s(nd->present[q].a_us, nd->present[q].b_us, b * w, (b + 1) * w);
	}
	const char *xl;
	double div = day_or_hour(end, &xl);
	for (int64_t b = 0; b < nb; b++)
		x[b] = (double)(b * w) / div;
	struct plot_series s[32];
	int ns = 0;
	for (int m = 0; m < nm && ns < 32; m++) {
		for (int64_t b = 0; b < nb; b++)
			y[m * nb + b] = cap[m * nb + b] > 0 ? 100 * alloc[m * nb + b] / cap[m * nb + b] : NAN;
		s[ns++] = (struct plot_series){ .title = r->models.v[m], .n = nb, .x = x, .y = y + m * nb };
	}
	struct plot_fig f = { .name = "gpu_models", .title = "GPU utilisation per GPU model",
	                      .xlabel = xl, .ylabel = "allocated (% of the model's GPUs present)",
	                      .extra = "set yrange [0:105]\nset xrange [0:*]\nset key below" };
	if (plot_xy(dir, &f, PLOT_STEPS, ns, s, err, errlen) != 0)
		goto out;
	char cap_txt[300];
	snprintf(cap_txt, sizeof cap_txt, "Each GPU model's allocated GPUs (card equivalents, every run "
	         "of every job) as a share of its GPUs present, per %.0f-minute interval: what decides "
	         "which model to buy more of.", (double)w / 60e6);
	add_fig(set, "gpu_models", cap_txt);
	ret = 0;
out:
	free(alloc);
	free(cap);
	free(x);
	free(y);
	return ret;
}

/* The mean wait of each class's jobs by the interval they were submitted in. */
static int wait_time(struct mrun *r, const char *dir, struct runplot_set *set, char *err, size_t errlen)
{
	int64_t end = r->last_submit_us;
	if (r->njobs == 0 || end <= 0)
		return 0;
	int64_t w = end > 2 * 86400e6 ? (int64_t)(6 * 3600e6) : (int64_t)3600e6;
	int64_t nb = end / w + 1;
	if (nb < 2)
		return 0;   /* every job submitted in one interval: no curve */
	double *sum = calloc((size_t)((JOB_NCLASS) * nb), sizeof *sum), *cnt = calloc((size_t)(JOB_NCLASS * nb), sizeof *cnt);
	double *x = calloc((size_t)nb, sizeof *x), *y = calloc((size_t)(JOB_NCLASS * nb), sizeof *y);
	int ret = -1;
	if (!sum || !cnt || !x || !y) {
		snprintf(err, errlen, "%s: out of memory", r->path);
		goto out;
	}
	for (size_t k = 0; k < r->njobs; k++) {
		const struct mrun_job *j = &r->jobs[k];
		if (j->cls >= JOB_NCLASS || j->start_us < 0)
			continue;
		int64_t b = j->submit_us / w;
		sum[j->cls * nb + b] += (double)(j->start_us - j->submit_us) / 3600e6;
		cnt[j->cls * nb + b]++;
	}
	const char *xl;
	double div = day_or_hour(end, &xl);
	for (int64_t b = 0; b < nb; b++)
		x[b] = (double)(b * w) / div;
	struct plot_series s[JOB_NCLASS];
	char titles[JOB_NCLASS][48];
	int ns = 0;
	for (int c = 0; c < JOB_NCLASS; c++) {
		double any = 0;
		for (int64_t b = 0; b < nb; b++) {
			y[c * nb + b] = cnt[c * nb + b] > 0 ? sum[c * nb + b] / cnt[c * nb + b] : NAN;
			any += cnt[c * nb + b];
		}
		if (any == 0)
			continue;
		snprintf(titles[ns], sizeof titles[ns], "%s", job_class_name((enum job_class)c));
		s[ns] = (struct plot_series){ .title = titles[ns], .n = nb, .x = x, .y = y + c * nb };
		ns++;
	}
	if (ns == 0) {
		ret = 0;
		goto out;
	}
	struct plot_fig f = { .name = "wait_time", .title = "Mean wait per class over time",
	                      .xlabel = xl, .ylabel = "mean wait of the jobs submitted then (hours)",
	                      .extra = "set yrange [0:*]\nset xrange [0:*]\nset key below" };
	if (plot_xy(dir, &f, PLOT_STEPS, ns, s, err, errlen) != 0)
		goto out;
	char cap_txt[240];
	snprintf(cap_txt, sizeof cap_txt, "The mean wait (start - submit) of each class's started jobs, "
	         "by the %.0f-hour interval they were submitted in (no step: no such job then).",
	         (double)w / 3600e6);
	add_fig(set, "wait_time", cap_txt);
	ret = 0;
out:
	free(sum);
	free(cnt);
	free(x);
	free(y);
	return ret;
}

/* Cumulative IT and facility energy from the samples. */
static int energy(struct mrun *r, const char *dir, struct runplot_set *set, char *err, size_t errlen)
{
	if (!r->power_on || r->nsamples < 2)
		return 0;
	size_t n = r->nsamples;
	double *x = calloc(n, sizeof *x), *it = calloc(n, sizeof *it), *fac = calloc(n, sizeof *fac);
	int ret = -1;
	if (!x || !it || !fac) {
		snprintf(err, errlen, "%s: out of memory", r->path);
		goto out;
	}
	const char *xl;
	double div = day_or_hour(r->s_t[n - 1], &xl), ci = 0, cf = 0;
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)r->s_t[i] / div;
		it[i] = ci;
		fac[i] = cf;
		double dt = i + 1 < n ? (double)(r->s_t[i + 1] - r->s_t[i]) / 1e6 : 0;
		ci += (isnan(r->s_power[i]) ? 0 : r->s_power[i]) * dt / 3.6e6;
		cf += (isnan(r->s_fac[i]) ? 0 : r->s_fac[i]) * dt / 3.6e6;
	}
	struct plot_series s[2] = {
		{ .title = "IT energy", .n = (int64_t)n, .x = x, .y = it },
		{ .title = "facility energy (IT x PUE)", .n = (int64_t)n, .x = x, .y = fac },
	};
	struct plot_fig f = { .name = "energy", .title = "Energy over time", .xlabel = xl,
	                      .ylabel = "cumulative energy (kWh)",
	                      .extra = "set yrange [0:*]\nset xrange [0:*]\nset key top left" };
	if (plot_xy(dir, &f, PLOT_LINES, 2, s, err, errlen) != 0)
		goto out;
	char cap_txt[320];
	snprintf(cap_txt, sizeof cap_txt, "Cumulative IT and facility energy from the monitoring samples "
	         "(each sample's power held until the next); the run's energy cost is %.2f in all, %.4f "
	         "per facility kWh on average.", r->cost, r->facility_kwh > 0 ? r->cost / r->facility_kwh : NAN);
	add_fig(set, "energy", cap_txt);
	ret = 0;
out:
	free(x);
	free(it);
	free(fac);
	return ret;
}

int runplot_model_figs(struct mrun *r, const char *dir, struct runplot_set *set, char *err,
                       size_t errlen)
{
	return gpu_models(r, dir, set, err, errlen) < 0 || wait_time(r, dir, set, err, errlen) < 0 ||
	       energy(r, dir, set, err, errlen) < 0 ? -1 : 0;
}
