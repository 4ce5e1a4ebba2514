/* synth — the minimal synthetic workload generator (see trace.h and
 * docs/traces.md).
 *
 * Each enabled class draws from its own GSL mt19937 stream, seeded from the
 * seed and the class index, so adding or changing one class leaves the jobs
 * of the others unchanged, and the workload of a seed is the same whatever
 * the policy. Per job the draws come in a fixed order: inter-arrival time,
 * duration (and its resamples), GPU count, failure, tenant. */
#include "traces/trace.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Refuse configurations that would ask for more jobs than this on average. */
#define SYNTH_MAX_JOBS 50000000.0
/* Durations are clamped here (about 31 years) so microseconds never overflow. */
#define SYNTH_MAX_DUR_S 1e9
#define SYNTH_MAX_WALL_FACTOR 1000.0
#define SYNTH_MAX_GPUS 1000000
/* Draws above dur_max_s before giving up and clamping to it. */
enum { SYNTH_MAX_RESAMPLE = 1000 };

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

/* The seed of class c's stream; mt19937 keeps 32 bits, so fold the halves. */
static unsigned long class_seed(uint64_t seed, int c)
{
	uint64_t x = splitmix64(seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(c + 1)));
	return (unsigned long)((x ^ (x >> 32)) & 0xFFFFFFFFUL);
}

__attribute__((format(printf, 3, 4)))
static int cfail(char *err, size_t errlen, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "synthetic workload: %s", what);
	return -1;
}

static int check_class(const struct synth_cfg *cfg, int c, char *err, size_t errlen)
{
	const struct synth_class *k = &cfg->cls[c];
	const char *n = job_class_name((enum job_class)c);
	if (!isfinite(k->rate_per_h) || k->rate_per_h < 0)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.rate_per_h: expected a number >= 0, got %g",
		             n, k->rate_per_h);
	if (k->rate_per_h == 0)
		return 0; /* disabled: the rest is not read */
	if (k->rate_per_h * 24.0 * cfg->days > SYNTH_MAX_JOBS)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.rate_per_h: %g per hour over %g days is %.3g "
		             "jobs, more than the limit of %.0f", n, k->rate_per_h, cfg->days,
		             k->rate_per_h * 24.0 * cfg->days, SYNTH_MAX_JOBS);
	if (!isfinite(k->dur_median_s) || k->dur_median_s <= 0 ||
	    k->dur_median_s > SYNTH_MAX_DUR_S)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.dur_median_s: expected seconds in (0, %g], got %g",
		             n, SYNTH_MAX_DUR_S, k->dur_median_s);
	if (!isfinite(k->dur_sigma) || k->dur_sigma < 0)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.dur_sigma: expected a number >= 0, got %g",
		             n, k->dur_sigma);
	if (!isfinite(k->dur_max_s) || (k->dur_max_s != 0 && k->dur_max_s < 1))
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.dur_max_s: expected 0 (no limit) or seconds "
		             ">= 1, got %g", n, k->dur_max_s);
	if (!isfinite(k->walltime_factor) || k->walltime_factor < 1 ||
	    k->walltime_factor > SYNTH_MAX_WALL_FACTOR)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.walltime_factor: expected a number in [1, %g], "
		             "got %g", n, SYNTH_MAX_WALL_FACTOR, k->walltime_factor);
	if (k->nmix < 1 || k->nmix > SYNTH_MIX_MAX)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.mix: expected 1 to %d [gpus, p] pairs, got %d",
		             n, SYNTH_MIX_MAX, (int)k->nmix);
	double sum = 0;
	bool cpu_only = false, gpu = false;
	for (int i = 0; i < k->nmix; i++) {
		if (k->mix_gpus[i] < 0 || k->mix_gpus[i] > SYNTH_MAX_GPUS)
			return cfail(err, errlen, "$.workload.synthetic.classes.%s.mix[%d]: expected GPUs in [0, %d], got %d",
			             n, i, SYNTH_MAX_GPUS, (int)k->mix_gpus[i]);
		if (!isfinite(k->mix_p[i]) || k->mix_p[i] < 0 || k->mix_p[i] > 1)
			return cfail(err, errlen, "$.workload.synthetic.classes.%s.mix[%d]: expected a probability in [0, 1], "
			             "got %g", n, i, k->mix_p[i]);
		sum += k->mix_p[i];
		if (k->mix_p[i] > 0) {
			cpu_only |= k->mix_gpus[i] == 0;
			gpu |= k->mix_gpus[i] > 0;
		}
	}
	/* The scenario loader accepts sums within 1e-3 of 1; draws are scaled by the sum. */
	if (fabs(sum - 1.0) > 1e-3)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.mix: the probabilities sum to %.9g, expected 1",
		             n, sum);
	if (gpu && cfg->gpus_per_node < 1)
		return cfail(err, errlen, "$.workload.synthetic.gpus_per_node: expected >= 1 (class %s asks for GPUs), "
		             "got %d", n, (int)cfg->gpus_per_node);
	if (k->cores_per_gpu < 0)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.cores_per_gpu: expected >= 0, got %d",
		             n, (int)k->cores_per_gpu);
	if (gpu && (int64_t)cfg->gpus_per_node * k->cores_per_gpu > INT32_MAX)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.cores_per_gpu: %d × %d GPUs per node is too "
		             "large", n, (int)k->cores_per_gpu, (int)cfg->gpus_per_node);
	if (cpu_only && k->cpu_cores < 1)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.cpu_cores: expected >= 1 (the mix has CPU-only "
		             "jobs), got %d", n, (int)k->cpu_cores);
	if (k->mem_per_gpu_mib < 0 || k->mem_per_gpu_mib > INT64_MAX / 4096)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.mem_per_gpu_mib: expected MiB >= 0, got %lld",
		             n, (long long)k->mem_per_gpu_mib);
	if (k->gpu_mem_mib < 0)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.gpu_mem_mib: expected MiB >= 0, got %lld",
		             n, (long long)k->gpu_mem_mib);
	if (!isfinite(k->fail_p) || k->fail_p < 0 || k->fail_p > 1)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.fail_p: expected a probability in [0, 1], got %g",
		             n, k->fail_p);
	if (k->ntenants < 1)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.tenants: expected >= 1, got %d",
		             n, (int)k->ntenants);
	return 0;
}

static int check_cfg(const struct synth_cfg *cfg, char *err, size_t errlen)
{
	if (!isfinite(cfg->days) || cfg->days <= 0 || cfg->days > 36500)
		return cfail(err, errlen, "$.workload.synthetic.days: expected a number in (0, 36500], got %g", cfg->days);
	if (cfg->gpus_per_node < 0 || cfg->gpus_per_node > 1024)
		return cfail(err, errlen, "$.workload.synthetic.gpus_per_node: expected 0 to 1024, got %d",
		             (int)cfg->gpus_per_node);
	bool any = false;
	for (int c = 0; c < JOB_NCLASS; c++) {
		if (check_class(cfg, c, err, errlen) != 0)
			return -1;
		any |= cfg->cls[c].rate_per_h > 0;
	}
	if (!any)
		return cfail(err, errlen, "no class has rate_per_h > 0: the workload would be empty");
	return 0;
}

static double draw_duration_s(gsl_rng *r, const struct synth_class *k)
{
	double zeta = log(k->dur_median_s);
	double d = gsl_ran_lognormal(r, zeta, k->dur_sigma);
	if (k->dur_max_s > 0) {
		int tries = 0;
		while (d > k->dur_max_s && ++tries < SYNTH_MAX_RESAMPLE)
			d = gsl_ran_lognormal(r, zeta, k->dur_sigma);
		if (d > k->dur_max_s)
			d = k->dur_max_s;
	}
	if (d > SYNTH_MAX_DUR_S)
		d = SYNTH_MAX_DUR_S;
	return d < 1.0 ? 1.0 : d;
}

static int32_t draw_gpus(gsl_rng *r, const struct synth_class *k)
{
	double sum = 0, acc = 0;
	for (int i = 0; i < k->nmix; i++)
		sum += k->mix_p[i];
	double u = gsl_rng_uniform(r) * sum;
	for (int i = 0; i < k->nmix; i++) {
		acc += k->mix_p[i];
		if (u < acc && k->mix_p[i] > 0)
			return k->mix_gpus[i];
	}
	/* u fell in the rounding gap at the top: the last entry with p > 0. */
	for (int i = k->nmix - 1; i >= 0; i--)
		if (k->mix_p[i] > 0)
			return k->mix_gpus[i];
	return k->mix_gpus[k->nmix - 1];
}

/* Shapes the request of a job with g GPUs (see trace.h). */
static void shape(struct job_req *q, const struct synth_cfg *cfg,
                  const struct synth_class *k, int32_t g)
{
	memset(q, 0, sizeof *q);
	if (g == 0) {
		q->nodes = 1;
		q->cores = k->cpu_cores;
		q->mem_mib = k->mem_per_gpu_mib;
		return;
	}
	int32_t per = g;
	q->nodes = 1;
	if (g > cfg->gpus_per_node) {
		per = cfg->gpus_per_node;
		q->nodes = (g + per - 1) / per;
	}
	q->gpus = per;
	q->cores = per * k->cores_per_gpu;
	q->mem_mib = (int64_t)per * k->mem_per_gpu_mib;
	q->gpu_mem_mib = k->gpu_mem_mib;
}

static int gen_class(const struct synth_cfg *cfg, int c, uint64_t seed, struct workload *w,
                     char *err, size_t errlen)
{
	const struct synth_class *k = &cfg->cls[c];
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!r)
		return cfail(err, errlen, "out of memory (RNG)");
	gsl_rng_set(r, class_seed(seed, c));
	double mean_gap_s = 3600.0 / k->rate_per_h;
	double end_s = cfg->days * 86400.0;
	double t_s = 0;
	int rc = 0;
	for (;;) {
		t_s += gsl_ran_exponential(r, mean_gap_s);
		if (t_s >= end_s)
			break;
		double d_s = draw_duration_s(r, k);
		int32_t g = draw_gpus(r, k);
		bool fails = gsl_rng_uniform(r) < k->fail_p;
		int32_t tenant = (int32_t)gsl_rng_uniform_int(r, (unsigned long)k->ntenants);

		struct job j;
		struct job_truth t = { 0 };
		job_init(&j, 0, simtime_from_s(t_s));
		j.trace_id = -1;
		j.cls = (uint8_t)c;
		j.tenant = tenant;
		shape(&j.req, cfg, k, g);
		double wall_min = ceil(ceil(d_s * k->walltime_factor) / 60.0);
		j.walltime_us = (simtime)wall_min * SIMTIME_MIN;
		t.run_us = simtime_from_s(d_s);
		t.fails = fails;
		if (workload_add(w, &j, &t) != 0) {
			rc = cfail(err, errlen, "out of memory after %d jobs", w->n);
			break;
		}
	}
	gsl_rng_free(r);
	return rc;
}

int trace_synth(const struct synth_cfg *c, uint64_t seed, struct workload *w,
                char *err, size_t errlen)
{
	gsl_set_error_handler_off();
	workload_init(w);
	if (check_cfg(c, err, errlen) != 0)
		return -1;
	for (int k = 0; k < JOB_NCLASS; k++) {
		if (c->cls[k].rate_per_h <= 0)
			continue;
		if (gen_class(c, k, seed, w, err, errlen) != 0) {
			workload_free(w);
			return -1;
		}
	}
	/* trace_id: the job's number in submit order, as a trace would have it. */
	workload_sort(w);
	for (int32_t i = 0; i < w->n; i++)
		w->jobs[i].trace_id = i;
	return 0;
}
