/* synth — the minimal synthetic workload generator (see trace.h and
 * docs/traces.md).
 *
 * Each enabled class draws from its own GSL mt19937 stream, seeded from the
 * seed and the class index, so adding or changing one class leaves the jobs
 * of the others unchanged, and the workload of a seed is the same whatever
 * the policy. Per job the draws come in a fixed order: inter-arrival time,
 * duration (and its resamples), GPU count, failure, tenant, then — only for
 * the knobs a class sets — MIG, time-sliced share and FP8. A knob that is
 * off draws nothing, so a configuration without it generates exactly the
 * jobs it did before the knob existed. Label expressions, plane and pool
 * names go into the workload's string table (workload_intern). */
#include "traces/trace.h"
#include "sim/label.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Refuse configurations that would ask for more jobs than this on average. */
#define SYNTH_MAX_JOBS 50000000.0
/* Durations are clamped here (about 31 years) so microseconds never overflow. */
#define SYNTH_MAX_DUR_S 1e9
#define SYNTH_MAX_WALL_FACTOR 1000.0
#define SYNTH_MAX_GPUS 1000000
#define SYNTH_MIG_MAX 7             /* compute slices of the largest MIG instance */
#define SYNTH_MILLI 1000            /* gpu_milli of a whole GPU */
#define SYNTH_MAX_IO_MBPS 1e9
#define SYNTH_MAX_GIB 1e9
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

static const char *const dist_names[SYNTH_NDIST] = {
	[SYNTH_LOGNORMAL] = "lognormal", [SYNTH_WEIBULL] = "weibull",
	[SYNTH_GAMMA] = "gamma", [SYNTH_EMPIRICAL] = "empirical",
};

const char *synth_dist_name(enum synth_dist d)
{
	return (unsigned)d < SYNTH_NDIST ? dist_names[d] : "?";
}

int synth_dist_parse(const char *name)
{
	for (int d = 0; d < SYNTH_NDIST; d++)
		if (strcmp(name, dist_names[d]) == 0)
			return d;
	return -1;
}

void synth_cfg_init(struct synth_cfg *c)
{
	memset(c, 0, sizeof *c);
	c->days = 7;
	c->gpus_per_node = 8;
	c->scale_rate = c->scale_size = 1;
	for (int k = 0; k < JOB_NCLASS; k++) {
		c->class_scale[k] = 1;
		c->cls[k].dur_dist = SYNTH_LOGNORMAL;
		c->cls[k].walltime_factor = 1;
		c->cls[k].cpu_cores = 1;
		c->cls[k].ntenants = 1;
	}
}

/* Checks a [value, probability] mix; *sum gets the probabilities' sum. */
static int check_mix(const char *n, const char *key, int nmix, const int32_t *val,
                     const double *p, int32_t minval, int32_t maxval, char *err, size_t errlen)
{
	double sum = 0;
	for (int i = 0; i < nmix; i++) {
		if (val[i] < minval || val[i] > maxval)
			return cfail(err, errlen, "$.workload.synthetic.classes.%s.%s[%d]: expected a value in [%d, %d], got %d",
			             n, key, i, (int)minval, (int)maxval, (int)val[i]);
		if (!isfinite(p[i]) || p[i] < 0 || p[i] > 1)
			return cfail(err, errlen, "$.workload.synthetic.classes.%s.%s[%d]: expected a probability in [0, 1], "
			             "got %g", n, key, i, p[i]);
		sum += p[i];
	}
	/* The scenario loader accepts sums within 1e-3 of 1; draws are scaled by the sum. */
	if (nmix > 0 && fabs(sum - 1.0) > 1e-3)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.%s: the probabilities sum to %.9g, expected 1",
		             n, key, sum);
	return 0;
}

/* The duration distribution's parameters, the profile, bursts, the cpu
 * mix and the tenant weights. */
/* n >= 2 non-decreasing seconds in [0, SYNTH_MAX_DUR_S]. */
static int check_quantiles(const double *q, int nq, const char *n, const char *what, char *err,
                           size_t errlen)
{
	if (nq < 2 || nq > SYNTH_EMP_MAX)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.%s: expected 2 to %d quantiles, "
		             "got %d", n, what, SYNTH_EMP_MAX, nq);
	for (int i = 0; i < nq; i++)
		if (!isfinite(q[i]) || q[i] < 0 || q[i] > SYNTH_MAX_DUR_S || (i > 0 && q[i] < q[i - 1]))
			return cfail(err, errlen, "$.workload.synthetic.classes.%s.%s[%d]: expected "
			             "non-decreasing seconds in [0, %g], got %g", n, what, i, SYNTH_MAX_DUR_S, q[i]);
	return 0;
}

static int check_shape(const struct synth_class *k, const char *n, char *err, size_t errlen)
{
	if (k->nsize < 0 || k->nsize > SYNTH_SIZE_MAX)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.dur_by_size: expected at most "
		             "%d size classes", n, SYNTH_SIZE_MAX);
	for (int i = 0; i < k->nsize; i++) {
		if (i > 0 && k->size_max[i] <= k->size_max[i - 1])
			return cfail(err, errlen, "$.workload.synthetic.classes.%s.dur_by_size[%d].max: "
			             "expected sizes in increasing order", n, i);
		if (check_quantiles(k->size_q[i], k->nsize_q[i], n, "dur_by_size.quantiles_s", err, errlen))
			return -1;
	}
	if (k->ngap && check_quantiles(k->gap_s, k->ngap, n, "gap_quantiles_s", err, errlen))
		return -1;
	switch (k->dur_dist) {
	case SYNTH_LOGNORMAL:
		break;   /* checked with the older keys below */
	case SYNTH_WEIBULL:
	case SYNTH_GAMMA:
		if (!isfinite(k->dur_shape) || k->dur_shape <= 0 || k->dur_shape > 1e3)
			return cfail(err, errlen, "$.workload.synthetic.classes.%s.dur_shape: expected a number in (0, 1000], got %g",
			             n, k->dur_shape);
		if (!isfinite(k->dur_scale_s) || k->dur_scale_s <= 0 || k->dur_scale_s > SYNTH_MAX_DUR_S)
			return cfail(err, errlen, "$.workload.synthetic.classes.%s.dur_scale_s: expected seconds in (0, %g], got %g",
			             n, SYNTH_MAX_DUR_S, k->dur_scale_s);
		break;
	case SYNTH_EMPIRICAL:
		if (k->nemp < 2 || k->nemp > SYNTH_EMP_MAX)
			return cfail(err, errlen, "$.workload.synthetic.classes.%s.dur_quantiles_s: expected 2 to %d quantiles, got %d",
			             n, SYNTH_EMP_MAX, (int)k->nemp);
		for (int i = 0; i < k->nemp; i++)
			if (!isfinite(k->emp_s[i]) || k->emp_s[i] < 0 || k->emp_s[i] > SYNTH_MAX_DUR_S ||
			    (i > 0 && k->emp_s[i] < k->emp_s[i - 1]))
				return cfail(err, errlen, "$.workload.synthetic.classes.%s.dur_quantiles_s[%d]: expected "
				             "non-decreasing seconds in [0, %g], got %g", n, i, SYNTH_MAX_DUR_S, k->emp_s[i]);
		break;
	default:
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.dur_dist: unknown distribution %d",
		             n, (int)k->dur_dist);
	}
	for (int h = 0; h < SYNTH_HOURS; h++)
		if (!isfinite(k->profile[h]) || k->profile[h] < 0)
			return cfail(err, errlen, "$.workload.synthetic.classes.%s.profile[%d]: expected a rate >= 0, got %g",
			             n, h, k->profile[h]);
	if (!isfinite(k->burst_p) || k->burst_p < 0 || k->burst_p > 1)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.burst_p: expected a probability in [0, 1], got %g",
		             n, k->burst_p);
	if (!isfinite(k->burst_mean) || k->burst_mean < 0 || k->burst_mean > 1e6)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.burst_mean: expected a number in [0, 1e6], got %g",
		             n, k->burst_mean);
	if (!isfinite(k->burst_gap_s) || k->burst_gap_s < 0 || k->burst_gap_s > SYNTH_MAX_DUR_S)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.burst_gap_s: expected seconds >= 0, got %g",
		             n, k->burst_gap_s);
	if (k->ncpu_mix < 0 || k->ncpu_mix > SYNTH_MIX_MAX)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.cpu_mix: expected at most %d [cores, p] pairs",
		             n, SYNTH_MIX_MAX);
	if (check_mix(n, "cpu_mix", k->ncpu_mix, k->cpu_mix, k->cpu_mix_p, 1, SYNTH_MAX_GPUS, err, errlen))
		return -1;
	if (k->ntenants > SYNTH_TENANTS_MAX) {
		for (int i = 0; i < SYNTH_TENANTS_MAX; i++)
			if (k->tenant_w[i] != 0)
				return cfail(err, errlen, "$.workload.synthetic.classes.%s.tenant_weights: at most %d tenants "
				             "can be weighted, the class has %d", n, SYNTH_TENANTS_MAX, (int)k->ntenants);
	}
	for (int i = 0; i < SYNTH_TENANTS_MAX; i++)
		if (!isfinite(k->tenant_w[i]) || k->tenant_w[i] < 0)
			return cfail(err, errlen, "$.workload.synthetic.classes.%s.tenant_weights[%d]: expected a weight >= 0, got %g",
			             n, i, k->tenant_w[i]);
	if (!isfinite(k->ckpt_every_s) || k->ckpt_every_s < 0 || k->ckpt_every_s > SYNTH_MAX_DUR_S)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.ckpt_every_s: expected seconds >= 0, got %g",
		             n, k->ckpt_every_s);
	return 0;
}

/* A label expression of a class or service (at JSON path jp) compiles. */
static int check_expr(const char *text, size_t size, const char *jp, char *err, size_t errlen)
{
	if (!memchr(text, '\0', size))
		return cfail(err, errlen, "%s: longer than %zu characters", jp, size - 1);
	if (!*text)
		return 0;
	char msg[200];
	struct selector *S = sel_compile(text, msg, sizeof msg);
	if (!S)
		return cfail(err, errlen, "%s: bad label expression '%.60s': %s", jp, text, msg);
	sel_free(S);
	return 0;
}

/* The shared-GPU and placement knobs of an enabled class. */
static int check_req_knobs(const struct synth_class *k, const char *n, char *err, size_t errlen)
{
	const char *p = "$.workload.synthetic.classes";
	char jp[160];
	if (!isfinite(k->mig_p) || k->mig_p < 0 || k->mig_p > 1)
		return cfail(err, errlen, "%s.%s.mig.p: expected a probability in [0, 1], got %g", p, n, k->mig_p);
	if (k->nmig < 0 || k->nmig > SYNTH_MIX_MAX || (k->mig_p > 0 && k->nmig == 0))
		return cfail(err, errlen, "%s.%s.mig.mix: expected 1 to %d [compute slices, p] pairs, got %d",
		             p, n, SYNTH_MIX_MAX, (int)k->nmig);
	if (check_mix(n, "mig.mix", k->nmig, k->mig_mix, k->mig_mix_p, 1, SYNTH_MIG_MAX, err, errlen))
		return -1;
	if (!isfinite(k->share_p) || k->share_p < 0 || k->share_p > 1)
		return cfail(err, errlen, "%s.%s.share.p: expected a probability in [0, 1], got %g", p, n,
		             k->share_p);
	if (k->nshare < 0 || k->nshare > SYNTH_MIX_MAX || (k->share_p > 0 && k->nshare == 0))
		return cfail(err, errlen, "%s.%s.share.milli: expected 1 to %d [gpu_milli, p] pairs, got %d",
		             p, n, SYNTH_MIX_MAX, (int)k->nshare);
	if (check_mix(n, "share.milli", k->nshare, k->share_mix, k->share_mix_p, 1, SYNTH_MILLI, err, errlen))
		return -1;
	if (!isfinite(k->fp8_p) || k->fp8_p < 0 || k->fp8_p > 1)
		return cfail(err, errlen, "%s.%s.fp8_p: expected a probability in [0, 1], got %g", p, n, k->fp8_p);
	if (k->precision < 0 || k->precision >= PREC_N)
		return cfail(err, errlen, "%s.%s.precision: unknown precision %d", p, n, (int)k->precision);
	if (k->flags & ~(uint32_t)(REQ_NUMA_LOCAL | REQ_AVX512 | REQ_AMX))
		return cfail(err, errlen, "%s.%s: flags 0x%x: only numa_local and isa are class-wide "
		             "(FP8 is fp8_p)", p, n, (unsigned)k->flags);
	snprintf(jp, sizeof jp, "%s.%s.require", p, n);
	if (check_expr(k->require, sizeof k->require, jp, err, errlen))
		return -1;
	snprintf(jp, sizeof jp, "%s.%s.prefer", p, n);
	if (check_expr(k->prefer, sizeof k->prefer, jp, err, errlen))
		return -1;
	if (!memchr(k->plane, '\0', sizeof k->plane) || !memchr(k->pool, '\0', sizeof k->pool))
		return cfail(err, errlen, "%s.%s: plane and pool names are at most %d characters", p, n,
		             SYNTH_NAME_MAX - 1);
	if (k->io_mbps < 0 || k->io_mbps > SYNTH_MAX_IO_MBPS)
		return cfail(err, errlen, "%s.%s.io_mbps: expected MB/s >= 0, got %d", p, n, (int)k->io_mbps);
	if (k->storage_gib < 0 || k->storage_gib > SYNTH_MAX_GIB)
		return cfail(err, errlen, "%s.%s.storage_gib: expected GiB >= 0, got %lld", p, n,
		             (long long)k->storage_gib);
	if ((k->io_mbps > 0 || k->storage_gib > 0) && !k->pool[0])
		return cfail(err, errlen, "%s.%s.%s: storage bandwidth and capacity are taken on a pool: "
		             "give pool too", p, n, k->io_mbps > 0 ? "io_mbps" : "storage_gib");
	return 0;
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
	if (check_shape(k, n, err, errlen))
		return -1;
	if (k->rate_per_h * 24.0 * cfg->days > SYNTH_MAX_JOBS)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.rate_per_h: %g per hour over %g days is %.3g "
		             "jobs, more than the limit of %.0f", n, k->rate_per_h, cfg->days,
		             k->rate_per_h * 24.0 * cfg->days, SYNTH_MAX_JOBS);
	if (k->dur_dist == SYNTH_LOGNORMAL && (!isfinite(k->dur_median_s) || k->dur_median_s <= 0 ||
	    k->dur_median_s > SYNTH_MAX_DUR_S))
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.dur_median_s: expected seconds in (0, %g], got %g",
		             n, SYNTH_MAX_DUR_S, k->dur_median_s);
	if (k->dur_dist == SYNTH_LOGNORMAL && (!isfinite(k->dur_sigma) || k->dur_sigma < 0))
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
	if (check_mix(n, "mix", k->nmix, k->mix_gpus, k->mix_p, 0, SYNTH_MAX_GPUS, err, errlen))
		return -1;
	bool cpu_only = false, gpu = false;
	for (int i = 0; i < k->nmix; i++)
		if (k->mix_p[i] > 0) {
			cpu_only |= k->mix_gpus[i] == 0;
			gpu |= k->mix_gpus[i] > 0;
		}
	if (gpu && cfg->gpus_per_node < 1)
		return cfail(err, errlen, "$.workload.synthetic.gpus_per_node: expected >= 1 (class %s asks for GPUs), "
		             "got %d", n, (int)cfg->gpus_per_node);
	if (k->cores_per_gpu < 0)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.cores_per_gpu: expected >= 0, got %d",
		             n, (int)k->cores_per_gpu);
	if (gpu && (int64_t)cfg->gpus_per_node * k->cores_per_gpu > INT32_MAX)
		return cfail(err, errlen, "$.workload.synthetic.classes.%s.cores_per_gpu: %d × %d GPUs per node is too "
		             "large", n, (int)k->cores_per_gpu, (int)cfg->gpus_per_node);
	if (cpu_only && k->ncpu_mix == 0 && k->cpu_cores < 1)
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
	return check_req_knobs(k, n, err, errlen);
}

static int check_cfg(const struct synth_cfg *cfg, char *err, size_t errlen)
{
	if (!isfinite(cfg->days) || cfg->days <= 0 || cfg->days > 36500)
		return cfail(err, errlen, "$.workload.synthetic.days: expected a number in (0, 36500], got %g", cfg->days);
	if (cfg->gpus_per_node < 0 || cfg->gpus_per_node > 1024)
		return cfail(err, errlen, "$.workload.synthetic.gpus_per_node: expected 0 to 1024, got %d",
		             (int)cfg->gpus_per_node);
	if (!isfinite(cfg->scale_rate) || cfg->scale_rate < 0 || cfg->scale_rate > 1e6)
		return cfail(err, errlen, "$.workload.synthetic.scale.rate: expected a factor in [0, 1e6], got %g",
		             cfg->scale_rate);
	if (!isfinite(cfg->scale_size) || cfg->scale_size <= 0 || cfg->scale_size > 1e3)
		return cfail(err, errlen, "$.workload.synthetic.scale.size: expected a factor in (0, 1000], got %g",
		             cfg->scale_size);
	for (int c = 0; c < JOB_NCLASS; c++)
		if (!isfinite(cfg->class_scale[c]) || cfg->class_scale[c] < 0 || cfg->class_scale[c] > 1e6)
			return cfail(err, errlen, "$.workload.synthetic.scale.classes.%s: expected a factor in [0, 1e6], got %g",
			             job_class_name((enum job_class)c), cfg->class_scale[c]);
	bool any = false;
	for (int c = 0; c < JOB_NCLASS; c++) {
		if (check_class(cfg, c, err, errlen) != 0)
			return -1;
		any |= cfg->cls[c].rate_per_h * cfg->scale_rate * cfg->class_scale[c] > 0;
	}
	if (!any && cfg->nservices == 0)
		return cfail(err, errlen, "no class has rate_per_h > 0 and there is no service: the workload would be empty");
	return 0;
}

/* A draw from n >= 2 quantiles at equal probability steps, linear in between. */
static double draw_quantiles(gsl_rng *r, const double *q, int n)
{
	double x = gsl_rng_uniform(r) * (n - 1);
	int i = (int)x;
	if (i >= n - 1)
		return q[n - 1];
	return q[i] + (x - i) * (q[i + 1] - q[i]);
}

static double draw_one(gsl_rng *r, const struct synth_class *k)
{
	switch (k->dur_dist) {
	case SYNTH_WEIBULL:
		return gsl_ran_weibull(r, k->dur_scale_s, k->dur_shape);
	case SYNTH_GAMMA:
		return gsl_ran_gamma(r, k->dur_shape, k->dur_scale_s);
	case SYNTH_EMPIRICAL: {
		/* Quantiles at equal probability steps; linear in between. */
		double x = gsl_rng_uniform(r) * (k->nemp - 1);
		int i = (int)x;
		if (i >= k->nemp - 1)
			return k->emp_s[k->nemp - 1];
		return k->emp_s[i] + (x - i) * (k->emp_s[i + 1] - k->emp_s[i]);
	}
	default:
		return gsl_ran_lognormal(r, log(k->dur_median_s), k->dur_sigma);
	}
}

static double draw_duration_s(gsl_rng *r, const struct synth_class *k)
{
	double d = draw_one(r, k);
	if (k->dur_max_s > 0) {
		int tries = 0;
		while (d > k->dur_max_s && ++tries < SYNTH_MAX_RESAMPLE)
			d = draw_one(r, k);
		if (d > k->dur_max_s)
			d = k->dur_max_s;
	}
	if (d > SYNTH_MAX_DUR_S)
		d = SYNTH_MAX_DUR_S;
	return d < 1.0 ? 1.0 : d;
}

/* One value of a [value, probability] mix. */
static int32_t draw_mix(gsl_rng *r, int nmix, const int32_t *val, const double *p)
{
	double sum = 0, acc = 0;
	for (int i = 0; i < nmix; i++)
		sum += p[i];
	double u = gsl_rng_uniform(r) * sum;
	for (int i = 0; i < nmix; i++) {
		acc += p[i];
		if (u < acc && p[i] > 0)
			return val[i];
	}
	/* u fell in the rounding gap at the top: the last entry with p > 0. */
	for (int i = nmix - 1; i >= 0; i--)
		if (p[i] > 0)
			return val[i];
	return val[nmix - 1];
}

/* A count scaled by the planning knob: rounded, at least 1. */
static int32_t scaled(int32_t n, double f)
{
	if (f == 1 || n == 0)
		return n;
	double x = floor(n * f + 0.5);
	return x < 1 ? 1 : x > SYNTH_MAX_GPUS ? SYNTH_MAX_GPUS : (int32_t)x;
}

static int32_t draw_tenant(gsl_rng *r, const struct synth_class *k)
{
	double sum = 0;
	int n = k->ntenants < SYNTH_TENANTS_MAX ? k->ntenants : SYNTH_TENANTS_MAX;
	for (int i = 0; i < n; i++)
		sum += k->tenant_w[i];
	if (sum <= 0)
		return (int32_t)gsl_rng_uniform_int(r, (unsigned long)k->ntenants);
	double u = gsl_rng_uniform(r) * sum, acc = 0;
	for (int i = 0; i < n; i++) {
		acc += k->tenant_w[i];
		if (u < acc && k->tenant_w[i] > 0)
			return i;
	}
	for (int i = n - 1; i >= 0; i--)
		if (k->tenant_w[i] > 0)
			return i;
	return 0;
}

/* Shapes the request of a job with g GPUs (see trace.h). */
static void shape(struct job_req *q, const struct synth_cfg *cfg,
                  const struct synth_class *k, int32_t g, int32_t cores)
{
	memset(q, 0, sizeof *q);
	if (g == 0) {
		/* Spread requests carry no memory, as SWF jobs do. */
		q->nodes = k->spread ? 0 : 1;
		q->cores = cores;
		q->mem_mib = k->spread ? 0 : k->mem_per_gpu_mib;
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
	q->gpu_models = k->gpu_models;
}

/* A class's or service's strings, interned: index + 1, 0 none. */
struct refs {
	int16_t sel_req, sel_pref, plane, pool;
};

/* s interned into w (*out = index + 1), or *out = 0 when s is empty. */
static int intern(struct workload *w, const char *s, int16_t *out, char *err, size_t errlen)
{
	*out = 0;
	if (!*s)
		return 0;
	int k = workload_intern(w, s);
	if (k < 0)
		return cfail(err, errlen, "out of memory (string table)");
	*out = (int16_t)(k + 1);
	return 0;
}

static int intern_refs(struct workload *w, const char *req, const char *pref, const char *plane,
                       const char *pool, struct refs *x, char *err, size_t errlen)
{
	return intern(w, req, &x->sel_req, err, errlen) || intern(w, pref, &x->sel_pref, err, errlen) ||
	       intern(w, plane, &x->plane, err, errlen) || intern(w, pool, &x->pool, err, errlen) ? -1 : 0;
}

/* The class's knobs beyond counts (see trace.h), applied to a shaped
 * request; the draws come from the class's stream after the job's others,
 * and only for the knobs that are on. */
static void apply_knobs(struct job_req *q, gsl_rng *r, const struct synth_class *k,
                        const struct refs *x)
{
	bool one_gpu = q->nodes == 1 && q->gpus == 1;
	if (one_gpu && k->mig_p > 0 && gsl_rng_uniform(r) < k->mig_p)
		q->mig_g = (int8_t)draw_mix(r, k->nmig, k->mig_mix, k->mig_mix_p);
	if (one_gpu && !q->mig_g && k->share_p > 0 && gsl_rng_uniform(r) < k->share_p)
		q->gpu_milli = draw_mix(r, k->nshare, k->share_mix, k->share_mix_p);
	if (q->gpus > 0 && k->fp8_p > 0 && gsl_rng_uniform(r) < k->fp8_p)
		q->flags |= REQ_FP8;
	q->precision = (uint8_t)k->precision;
	q->flags |= (uint8_t)k->flags;
	q->sel_req = x->sel_req;
	q->sel_pref = x->sel_pref;
	q->plane = x->plane;
	q->pool = x->pool;
	q->io_mbps = k->io_mbps;
	q->storage_gib = k->storage_gib;
}

/* Appends one job arriving at t_s. */
static int add_job(struct workload *w, gsl_rng *r, const struct synth_cfg *cfg, int c,
                   const struct refs *x, double t_s, char *err, size_t errlen)
{
	const struct synth_class *k = &cfg->cls[c];
	double d_s = 0;
	int32_t g, cores = 0;
	if (k->nsize == 0) {    /* independent: duration, then size (the draws of before) */
		d_s = draw_duration_s(r, k);
		g = scaled(draw_mix(r, k->nmix, k->mix_gpus, k->mix_p), cfg->scale_size);
		if (g == 0)
			cores = scaled(k->ncpu_mix > 0 ? draw_mix(r, k->ncpu_mix, k->cpu_mix, k->cpu_mix_p)
			                               : k->cpu_cores, cfg->scale_size);
	} else {                /* joint: size, then the duration of its size class */
		int32_t g0 = draw_mix(r, k->nmix, k->mix_gpus, k->mix_p), c0 = 0;
		if (g0 == 0)
			c0 = k->ncpu_mix > 0 ? draw_mix(r, k->ncpu_mix, k->cpu_mix, k->cpu_mix_p)
			                     : k->cpu_cores;
		int64_t key = g0 > 0 ? SYNTH_SIZE_GPU + g0 : c0;
		int i = 0;
		while (i < k->nsize - 1 && key > k->size_max[i])
			i++;
		d_s = draw_quantiles(r, k->size_q[i], k->nsize_q[i]);
		if (d_s > SYNTH_MAX_DUR_S)
			d_s = SYNTH_MAX_DUR_S;
		if (d_s < 1.0)
			d_s = 1.0;
		g = scaled(g0, cfg->scale_size);
		if (g == 0)
			cores = scaled(c0, cfg->scale_size);
	}
	bool fails = gsl_rng_uniform(r) < k->fail_p;
	int32_t tenant = draw_tenant(r, k);

	struct job j;
	struct job_truth t = { 0 };
	job_init(&j, 0, simtime_from_s(t_s));
	j.trace_id = -1;
	j.cls = (uint8_t)c;
	j.tenant = tenant;
	j.ckpt_every_us = simtime_from_s(k->ckpt_every_s);
	shape(&j.req, cfg, k, g, cores);
	apply_knobs(&j.req, r, k, x);
	double wall_min = ceil(ceil(d_s * k->walltime_factor) / 60.0);
	j.walltime_us = (simtime)wall_min * SIMTIME_MIN;
	t.run_us = simtime_from_s(d_s);
	t.fails = fails;
	if (workload_add(w, &j, &t) != 0)
		return cfail(err, errlen, "out of memory after %d jobs", w->n);
	return 0;
}

/* Arrivals: a Poisson process at the class's peak hourly rate, thinned to
 * the hour-of-week profile (Lewis and Shedler 1979); each accepted arrival
 * may bring a burst of extra jobs. A flat profile draws no thinning
 * variates, so adding knobs leaves existing workloads as they were. */
static int gen_class(const struct synth_cfg *cfg, int c, uint64_t seed, struct workload *w,
                     char *err, size_t errlen)
{
	const struct synth_class *k = &cfg->cls[c];
	double rate = k->rate_per_h * cfg->scale_rate * cfg->class_scale[c];
	double prof[SYNTH_HOURS], mean = 0, peak = 0;
	for (int h = 0; h < SYNTH_HOURS; h++)
		mean += k->profile[h] / SYNTH_HOURS;
	bool flat = mean <= 0;
	for (int h = 0; h < SYNTH_HOURS; h++) {
		prof[h] = flat ? 1 : k->profile[h] / mean;   /* mean 1 */
		if (prof[h] > peak)
			peak = prof[h];
	}
	struct refs x;
	if (intern_refs(w, k->require, k->prefer, k->plane, k->pool, &x, err, errlen))
		return -1;
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	if (!r)
		return cfail(err, errlen, "out of memory (RNG)");
	gsl_rng_set(r, class_seed(seed, c));
	double mean_gap_s = 3600.0 / (rate * peak);
	double end_s = cfg->days * 86400.0;
	double t_s = 0;
	int rc = 0;
	if (k->ngap >= 2) {
		/* Renewal arrivals in profile time: a gap of g profile seconds takes
		 * g / prof[h] real seconds in hour h. The rate knobs shrink the gaps. */
		double sc = cfg->scale_rate * cfg->class_scale[c];
		while (rc == 0 && sc > 0) {
			double g = draw_quantiles(r, k->gap_s, k->ngap) / sc;
			while (g > 0 && t_s < end_s) {
				double p = prof[(int)fmod(floor(t_s / 3600.0), SYNTH_HOURS)];
				double left = 3600.0 - fmod(t_s, 3600.0);
				if (p * left >= g) {
					t_s += g / p;
					g = 0;
				} else {
					g -= p * left;
					t_s += left;
				}
			}
			if (t_s >= end_s)
				break;
			rc = add_job(w, r, cfg, c, &x, t_s, err, errlen);
		}
		gsl_rng_free(r);
		return rc;
	}
	for (;;) {
		t_s += gsl_ran_exponential(r, mean_gap_s);
		if (t_s >= end_s)
			break;
		if (!flat) {
			int h = (int)fmod(floor(t_s / 3600.0), SYNTH_HOURS);
			if (gsl_rng_uniform(r) * peak >= prof[h])
				continue;   /* thinned */
		}
		if ((rc = add_job(w, r, cfg, c, &x, t_s, err, errlen)) != 0)
			break;
		if (k->burst_p > 0 && gsl_rng_uniform(r) < k->burst_p) {
			/* Extra jobs: geometric on {0, 1, …} with mean burst_mean. */
			unsigned extra = gsl_ran_geometric(r, 1.0 / (1.0 + k->burst_mean)) - 1;
			for (unsigned b = 1; b <= extra && rc == 0; b++) {
				double tb = t_s + b * k->burst_gap_s;
				if (tb < end_s)
					rc = add_job(w, r, cfg, c, &x, tb, err, errlen);
			}
			if (rc)
				break;
		}
	}
	gsl_rng_free(r);
	return rc;
}

static int check_service(const struct synth_service *v, int i, char *err, size_t errlen)
{
	const char *p = "$.workload.synthetic.services";
	if (!isfinite(v->peak_rps) || !isfinite(v->trough_rps) || v->trough_rps < 0 ||
	    v->peak_rps < v->trough_rps || v->peak_rps > 1e12)
		return cfail(err, errlen, "%s[%d]: expected 0 <= trough_rps <= peak_rps, got %g and %g",
		             p, i, v->trough_rps, v->peak_rps);
	if (!isfinite(v->peak_hour) || v->peak_hour < 0 || v->peak_hour >= 24)
		return cfail(err, errlen, "%s[%d].peak_hour: expected an hour in [0, 24), got %g", p, i, v->peak_hour);
	if (!isfinite(v->weekend_factor) || v->weekend_factor < 0 || v->weekend_factor > 100)
		return cfail(err, errlen, "%s[%d].weekend_factor: expected a factor in [0, 100], got %g", p, i,
		             v->weekend_factor);
	if (!isfinite(v->noise_sigma) || v->noise_sigma < 0 || v->noise_sigma > 5)
		return cfail(err, errlen, "%s[%d].noise_sigma: expected a number in [0, 5], got %g", p, i, v->noise_sigma);
	if (!isfinite(v->rps_per_replica) || v->rps_per_replica <= 0)
		return cfail(err, errlen, "%s[%d].rps_per_replica: expected a number > 0, got %g", p, i,
		             v->rps_per_replica);
	if (!isfinite(v->step_s) || v->step_s < 1 || v->step_s > 86400)
		return cfail(err, errlen, "%s[%d].step_s: expected seconds in [1, 86400], got %g", p, i, v->step_s);
	if (v->min_replicas < 0 || v->max_replicas < v->min_replicas || v->max_replicas > 100000)
		return cfail(err, errlen, "%s[%d]: expected 0 <= min_replicas <= max_replicas <= 100000, got %d and %d",
		             p, i, (int)v->min_replicas, (int)v->max_replicas);
	if (v->gpus < 0 || v->gpus > 64 || v->cores < 0 || (v->gpus == 0 && v->cores == 0) ||
	    v->mem_mib < 0 || v->gpu_mem_mib < 0)
		return cfail(err, errlen, "%s[%d]: a replica needs cores or GPUs (GPUs at most 64), and no negative amount",
		             p, i);
	if (v->mig_g < 0 || v->mig_g > SYNTH_MIG_MAX)
		return cfail(err, errlen, "%s[%d].mig: expected compute slices in 1..%d, got %d", p, i,
		             SYNTH_MIG_MAX, (int)v->mig_g);
	if (v->gpu_milli < 0 || v->gpu_milli > SYNTH_MILLI)
		return cfail(err, errlen, "%s[%d].gpu_milli: expected 1..%d, got %d", p, i, SYNTH_MILLI,
		             (int)v->gpu_milli);
	if (v->mig_g && v->gpu_milli)
		return cfail(err, errlen, "%s[%d]: mig and gpu_milli exclude each other", p, i);
	if ((v->mig_g || v->gpu_milli) && v->gpus != 1)
		return cfail(err, errlen, "%s[%d].%s: a share of one GPU needs gpus 1, got %d", p, i,
		             v->mig_g ? "mig" : "gpu_milli", (int)v->gpus);
	char jp[160];
	snprintf(jp, sizeof jp, "%s[%d].require", p, i);
	if (check_expr(v->require, sizeof v->require, jp, err, errlen))
		return -1;
	snprintf(jp, sizeof jp, "%s[%d].prefer", p, i);
	return check_expr(v->prefer, sizeof v->prefer, jp, err, errlen);
}

/* One service's replicas, from its own RNG stream (so that adding a
 * service changes no class's jobs). Live replicas are a stack of job
 * indexes: scaling down ends the newest first. */
static int gen_service(const struct synth_cfg *cfg, int i, uint64_t seed, struct workload *w,
                       char *err, size_t errlen)
{
	const struct synth_service *v = &cfg->svc[i];
	double scale = cfg->scale_rate * cfg->class_scale[JOB_INFERENCE];
	struct refs x;
	if (intern_refs(w, v->require, v->prefer, "", "", &x, err, errlen))
		return -1;
	int32_t *live = malloc(((size_t)v->max_replicas + 1) * sizeof *live);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	int rc = 0, n = 0;
	if (!live || !r) {
		free(live);
		gsl_rng_free(r);
		return cfail(err, errlen, "out of memory (services)");
	}
	gsl_rng_set(r, class_seed(seed, 1000 + i));
	double end_s = cfg->days * 86400.0;
	for (double t = 0; t < end_s && rc == 0; t += v->step_s) {
		double h = fmod(t / 3600.0, 24.0);
		int dow = (int)fmod(floor(t / 86400.0), 7);   /* 0 = Monday */
		double rate = v->trough_rps + (v->peak_rps - v->trough_rps) *
		              (1 + cos(2 * M_PI * (h - v->peak_hour) / 24)) / 2;
		if (dow >= 5)
			rate *= v->weekend_factor;
		if (v->noise_sigma > 0)
			rate *= exp(gsl_ran_gaussian(r, v->noise_sigma));
		rate *= scale;
		double want = ceil(rate / v->rps_per_replica - 1e-9);
		int32_t target = want < v->min_replicas ? v->min_replicas
		               : want > v->max_replicas ? v->max_replicas : (int32_t)want;
		simtime now = simtime_from_s(t);
		while (n > target) {   /* scale down: the newest replica ends */
			int32_t k = live[--n];
			w->truth[k].run_us = now - w->jobs[k].submit_us;
		}
		while (n < target) {   /* scale up */
			struct job j;
			struct job_truth tr = { .run_us = 0 };
			job_init(&j, 0, now);
			j.trace_id = -1;
			j.cls = JOB_INFERENCE;
			j.group = i;
			j.tenant = v->tenant;
			j.req.nodes = 1;
			j.req.gpus = v->gpus;
			j.req.cores = v->cores;
			j.req.mem_mib = v->mem_mib;
			j.req.gpu_mem_mib = v->gpu_mem_mib;
			j.req.gpu_models = v->gpus ? v->gpu_models : 0;
			j.req.mig_g = (int8_t)v->mig_g;
			j.req.gpu_milli = v->gpu_milli;
			j.req.sel_req = x.sel_req;
			j.req.sel_pref = x.sel_pref;
			if (workload_add(w, &j, &tr) != 0) {
				rc = cfail(err, errlen, "out of memory after %d jobs", w->n);
				break;
			}
			live[n++] = w->n - 1;
		}
	}
	/* Replicas still live at the end of the window end with it. */
	for (int k = 0; k < n; k++)
		w->truth[live[k]].run_us = simtime_from_s(end_s) - w->jobs[live[k]].submit_us;
	free(live);
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
	if (c->nservices < 0 || c->nservices > SYNTH_SERVICES_MAX)
		return cfail(err, errlen, "$.workload.synthetic.services: at most %d services", SYNTH_SERVICES_MAX);
	for (int i = 0; i < c->nservices; i++)
		if (check_service(&c->svc[i], i, err, errlen))
			return -1;
	for (int i = 0; i < c->nservices; i++)
		if (gen_service(c, i, seed, w, err, errlen) != 0) {
			workload_free(w);
			return -1;
		}
	for (int k = 0; k < JOB_NCLASS; k++) {
		if (c->cls[k].rate_per_h * c->scale_rate * c->class_scale[k] <= 0)
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
