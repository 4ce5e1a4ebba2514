/* synthcfg — the synthetic workload block of a scenario, and workload
 * model files (`hetlab trace fit` writes them) with the same keys, into
 * struct synth_cfg. docs/workloads.md lists every key. */
#include "config/synthcfg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/label.h"
#include "config/scenario.h"

static const char *const syn_keys[] = { "days", "gpus_per_node", "classes", "scale", "fitted_from",
	"services", NULL };
static const char *const svc_keys[] = { "name", "count", "peak_rps", "trough_rps", "peak_hour",
	"weekend_factor", "noise_sigma", "rps_per_replica", "step_s", "min_replicas", "max_replicas",
	"gpus", "cores", "mem_gib", "gpu_mem_gib", "gpu_models", "tenant", "mig", "gpu_milli", "require",
	"prefer", NULL };
static const char *const scale_keys[] = { "rate", "size", "classes", NULL };
static const char *const cls_keys[] = { "rate_per_h", "profile", "profile_daily", "profile_weekly",
	"burst_p", "burst_mean", "burst_gap_s", "dur_dist", "dur_median_s", "dur_sigma", "dur_shape",
	"dur_scale_s", "dur_quantiles_s", "dur_max_s", "walltime_factor", "mix", "cpu_mix", "spread",
	"cores_per_gpu", "cpu_cores", "mem_per_gpu_gib", "gpu_mem_gib", "gpu_models", "fail_p",
	"tenants", "tenant_weights", "ckpt_every_s", "mig", "share", "precision", "fp8_p", "numa_local",
	"isa", "require", "prefer", "plane", "pool", "io_mbps", "storage_gib", "dur_by_size",
	"gap_quantiles_s", NULL };
static const char *const mig_keys[] = { "p", "mix", NULL };
static const char *const share_keys[] = { "p", "milli", NULL };

/* An array of n numbers ≥ 0 at o.key into out (absent: *got = 0). */
static int load_numbers(struct jv *v, const json_t *o, const char *p, const char *key,
                        int min_n, int max_n, double *out, int *got)
{
	char q[256];
	*got = 0;
	json_t *a = json_object_get(o, key), *e;
	if (!a)
		return 0;
	jv_subpath(q, sizeof q, p, key);
	if (!json_is_array(a) || (int)json_array_size(a) < min_n || (int)json_array_size(a) > max_n)
		return jv_fail(v, q, min_n == max_n ? "expected an array of %d numbers" : "expected an array of %d to %d numbers",
		               min_n, max_n);
	size_t i;
	json_array_foreach(a, i, e) {
		if (!json_is_number(e) || json_number_value(e) < 0)
			return jv_fail(v, q, "[%zu]: expected a number >= 0, got %s", i, json_is_number(e) ? "a negative number" : jv_type(e));
		out[i] = json_number_value(e);
	}
	*got = (int)json_array_size(a);
	return 0;
}

/* "dur_by_size": [{"cores_max": N | "gpus_max": N, "quantiles_s": [...]}, ...,
 * {"quantiles_s": [...]}]: the joint model's size classes in increasing
 * size, the last one open above (no max). */
static int load_by_size(struct jv *v, const json_t *o, const char *p, struct synth_class *c)
{
	static const char *const keys[] = { "cores_max", "gpus_max", "quantiles_s", NULL };
	char q[256], e[300];
	json_t *a = json_object_get(o, "dur_by_size"), *x;
	c->nsize = 0;
	if (!a)
		return 0;
	jv_subpath(q, sizeof q, p, "dur_by_size");
	if (!json_is_array(a) || json_array_size(a) < 1 || json_array_size(a) > SYNTH_SIZE_MAX)
		return jv_fail(v, q, "expected an array of 1 to %d size classes", SYNTH_SIZE_MAX);
	size_t i;
	json_array_foreach(a, i, x) {
		jv_idxpath(e, sizeof e, q, i);
		long long cm = -1, gm = -1;
		int got = 0;
		if (jv_object(v, x, e, keys) || jv_int(v, x, e, "cores_max", false, 1, 1 << 30, &cm) ||
		    jv_int(v, x, e, "gpus_max", false, 1, 1 << 30, &gm) ||
		    load_numbers(v, x, e, "quantiles_s", 2, SYNTH_EMP_MAX, c->size_q[i], &got))
			return -1;
		if (got == 0)
			return jv_fail(v, e, "quantiles_s: missing");
		bool last = i + 1 == json_array_size(a);
		if ((cm >= 0) + (gm >= 0) != (last ? 0 : 1))
			return jv_fail(v, e, last ? "the last size class is open above: no cores_max or gpus_max"
			                          : "expected one of cores_max or gpus_max");
		c->size_max[i] = last ? INT64_MAX : cm >= 0 ? cm : SYNTH_SIZE_GPU + gm;
		c->nsize_q[i] = got;
		c->nsize++;
	}
	return 0;
}

/* A [[value, probability], ...] mix. */
static int load_mix(struct jv *v, const json_t *o, const char *p, const char *key, bool required,
                    int32_t minval, int32_t *val, double *prob, int32_t *n)
{
	char q[256], q2[300];
	json_t *mix = jv_array(v, o, p, key, required), *e;
	*n = 0;
	if (!mix)
		return v->failed ? -1 : 0;
	jv_subpath(q, sizeof q, p, key);
	if (json_array_size(mix) == 0 || json_array_size(mix) > SYNTH_MIX_MAX)
		return jv_fail(v, q, "expected 1 to %d [value, probability] pairs", SYNTH_MIX_MAX);
	double sum = 0;
	size_t i;
	json_array_foreach(mix, i, e) {
		jv_idxpath(q2, sizeof q2, q, i);
		json_t *g = json_array_get(e, 0), *pr = json_array_get(e, 1);
		if (!json_is_array(e) || json_array_size(e) != 2 || !json_is_integer(g) ||
		    !json_is_number(pr) || json_integer_value(g) < minval || json_integer_value(g) > 1000000 ||
		    json_number_value(pr) < 0)
			return jv_fail(v, q2, "expected [value (integer >= %d), probability (>= 0)]", (int)minval);
		val[i] = (int32_t)json_integer_value(g);
		prob[i] = json_number_value(pr);
		sum += prob[i];
	}
	*n = (int32_t)json_array_size(mix);
	if (sum < 0.999 || sum > 1.001)
		return jv_fail(v, q, "probabilities sum to %g, expected 1", sum);
	return 0;
}

/* A label expression at o.key into out (absent: ""), checked by compiling it. */
static int load_expr(struct jv *v, const json_t *o, const char *p, const char *key, char *out,
                     size_t len)
{
	char q[256], msg[200];
	if (jv_str(v, o, p, key, false, out, len))
		return -1;
	if (!*out)
		return 0;
	struct selector *S = sel_compile(out, msg, sizeof msg);
	if (!S) {
		jv_subpath(q, sizeof q, p, key);
		return jv_fail(v, q, "bad label expression \"%.60s\": %s", out, msg);
	}
	sel_free(S);
	return 0;
}

/* A plane or pool name at o.key (absent: ""); present, it must not be empty. */
static int load_name(struct jv *v, const json_t *o, const char *p, const char *key, char *out,
                     size_t len)
{
	char q[256];
	if (jv_str(v, o, p, key, false, out, len))
		return -1;
	if (json_object_get(o, key) && !*out) {
		jv_subpath(q, sizeof q, p, key);
		return jv_fail(v, q, "expected a non-empty name");
	}
	return 0;
}

/* "mig" / "share": {"p": P, "<mkey>": [[value, prob], ...]} with values in
 * [1, maxval]. Absent: p stays 0 and *n 0. */
static int load_share(struct jv *v, const json_t *o, const char *p, const char *key,
                      const char *const *keys, const char *mkey, int32_t maxval, double *prob,
                      int32_t *val, double *valp, int32_t *n)
{
	char q[256], q2[300];
	const json_t *s = json_object_get(o, key);
	if (!s)
		return 0;
	jv_subpath(q, sizeof q, p, key);
	if (jv_object(v, s, q, keys) || jv_num(v, s, q, "p", true, 0, 1, prob) ||
	    load_mix(v, s, q, mkey, true, 1, val, valp, n))
		return -1;
	for (int i = 0; i < *n; i++)
		if (val[i] > maxval) {
			jv_subpath(q2, sizeof q2, q, mkey);
			jv_idxpath(q, sizeof q, q2, (size_t)i);
			return jv_fail(v, q, "expected a value in [1, %d], got %d", (int)maxval, (int)val[i]);
		}
	return 0;
}

/* A job's precision, NUMA and ISA requirements, label expressions, plane,
 * pool and storage (the keys after "ckpt_every_s" in cls_keys). */
static int load_req_knobs(struct jv *v, const json_t *o, const char *p, struct synth_class *c)
{
	char q[256], q2[300], prec[16] = "";
	bool numa = false;
	double io = 0, gib = 0;
	if (load_share(v, o, p, "mig", mig_keys, "mix", 7, &c->mig_p, c->mig_mix, c->mig_mix_p,
	               &c->nmig) ||
	    load_share(v, o, p, "share", share_keys, "milli", 1000, &c->share_p, c->share_mix,
	               c->share_mix_p, &c->nshare) ||
	    jv_str(v, o, p, "precision", false, prec, sizeof prec) ||
	    jv_num(v, o, p, "fp8_p", false, 0, 1, &c->fp8_p) ||
	    jv_bool(v, o, p, "numa_local", &numa) ||
	    load_expr(v, o, p, "require", c->require, sizeof c->require) ||
	    load_expr(v, o, p, "prefer", c->prefer, sizeof c->prefer) ||
	    load_name(v, o, p, "plane", c->plane, sizeof c->plane) ||
	    load_name(v, o, p, "pool", c->pool, sizeof c->pool) ||
	    jv_num(v, o, p, "io_mbps", false, 0, 1e9, &io) ||
	    jv_num(v, o, p, "storage_gib", false, 0, 1e9, &gib))
		return -1;
	if (prec[0]) {
		int k = precision_parse(prec);
		if (k < 0) {
			jv_subpath(q, sizeof q, p, "precision");
			return jv_fail(v, q, "expected fp16, bf16, fp8 or fp32, got \"%s\"", prec);
		}
		c->precision = k;
	}
	if (numa)
		c->flags |= REQ_NUMA_LOCAL;
	json_t *isa = jv_array(v, o, p, "isa", false), *e;
	if (v->failed)
		return -1;
	if (isa) {
		size_t i;
		jv_subpath(q, sizeof q, p, "isa");
		json_array_foreach(isa, i, e) {
			const char *s = json_is_string(e) ? json_string_value(e) : "";
			if (strcmp(s, "avx512") == 0) {
				c->flags |= REQ_AVX512;
			} else if (strcmp(s, "amx") == 0) {
				c->flags |= REQ_AMX;
			} else {
				jv_idxpath(q2, sizeof q2, q, i);
				return jv_fail(v, q2, "expected \"avx512\" or \"amx\", got %s%s%s",
				               json_is_string(e) ? "\"" : "", json_is_string(e) ? s : jv_type(e),
				               json_is_string(e) ? "\"" : "");
			}
		}
	}
	c->io_mbps = (int32_t)ceil(io);
	c->storage_gib = (int64_t)ceil(gib);
	if ((c->io_mbps > 0 || c->storage_gib > 0) && !c->pool[0]) {
		jv_subpath(q, sizeof q, p, c->io_mbps > 0 ? "io_mbps" : "storage_gib");
		return jv_fail(v, q, "storage bandwidth and capacity are taken on a pool: give \"pool\" too");
	}
	return 0;
}

static int load_class(struct jv *v, const struct catalog *cat, const json_t *o, const char *p,
                      struct synth_class *c)
{
	double mpg = 0, gmem = 0;
	long long cpg = 0, cpu = 1, ten = 1;
	char q[256], dist[16] = "lognormal";
	bool lognormal;
	int got;
	memset(c, 0, sizeof *c);
	c->walltime_factor = 1;
	if (jv_object(v, o, p, cls_keys) ||
	    jv_num(v, o, p, "rate_per_h", true, 0, 1e7, &c->rate_per_h) ||
	    jv_str(v, o, p, "dur_dist", false, dist, sizeof dist))
		return -1;
	if ((c->dur_dist = synth_dist_parse(dist)) < 0) {
		jv_subpath(q, sizeof q, p, "dur_dist");
		return jv_fail(v, q, "expected lognormal, weibull, gamma or empirical, got \"%s\"", dist);
	}
	lognormal = c->dur_dist == SYNTH_LOGNORMAL;
	bool shaped = c->dur_dist == SYNTH_WEIBULL || c->dur_dist == SYNTH_GAMMA;
	/* The parameters of the other distributions would be ignored: refuse them. */
	static const char *const by_dist[SYNTH_NDIST][3] = {
		[SYNTH_LOGNORMAL] = { "dur_median_s", "dur_sigma", NULL },
		[SYNTH_WEIBULL] = { "dur_shape", "dur_scale_s", NULL },
		[SYNTH_GAMMA] = { "dur_shape", "dur_scale_s", NULL },
		[SYNTH_EMPIRICAL] = { "dur_quantiles_s", NULL, NULL },
	};
	static const char *const dur_keys[] = { "dur_median_s", "dur_sigma", "dur_shape", "dur_scale_s",
	                                        "dur_quantiles_s", NULL };
	for (int i = 0; dur_keys[i]; i++) {
		bool mine = false;
		for (int k = 0; k < 3 && by_dist[c->dur_dist][k]; k++)
			mine |= strcmp(by_dist[c->dur_dist][k], dur_keys[i]) == 0;
		if (!mine && json_object_get(o, dur_keys[i])) {
			jv_subpath(q, sizeof q, p, dur_keys[i]);
			return jv_fail(v, q, "not a parameter of the %s distribution (dur_dist)", dist);
		}
	}
	if (jv_num(v, o, p, "dur_median_s", lognormal, 1e-3, 1e9, &c->dur_median_s) ||
	    jv_num(v, o, p, "dur_sigma", lognormal, 0, 10, &c->dur_sigma) ||
	    jv_num(v, o, p, "dur_shape", shaped, 1e-6, 1e3, &c->dur_shape) ||
	    jv_num(v, o, p, "dur_scale_s", shaped, 1e-3, 1e9, &c->dur_scale_s) ||
	    load_numbers(v, o, p, "dur_quantiles_s", 2, SYNTH_EMP_MAX, c->emp_s, &got))
		return -1;
	c->nemp = got;
	if (c->dur_dist == SYNTH_EMPIRICAL && got == 0) {
		jv_subpath(q, sizeof q, p, "dur_quantiles_s");
		return jv_fail(v, q, "missing (the empirical distribution needs 2 to %d quantiles)", SYNTH_EMP_MAX);
	}
	for (int i = 1; i < c->nemp; i++)
		if (c->emp_s[i] < c->emp_s[i - 1]) {
			jv_subpath(q, sizeof q, p, "dur_quantiles_s");
			return jv_fail(v, q, "[%d]: quantiles must not decrease (%g after %g)", i, c->emp_s[i], c->emp_s[i - 1]);
		}
	if (load_numbers(v, o, p, "gap_quantiles_s", 2, SYNTH_EMP_MAX, c->gap_s, &got))
		return -1;
	c->ngap = got;
	if (load_by_size(v, o, p, c))
		return -1;
	if (jv_num(v, o, p, "dur_max_s", false, 0, 1e10, &c->dur_max_s) ||
	    jv_num(v, o, p, "walltime_factor", false, 1, 1000, &c->walltime_factor) ||
	    jv_num(v, o, p, "burst_p", false, 0, 1, &c->burst_p) ||
	    jv_num(v, o, p, "burst_mean", false, 0, 1e6, &c->burst_mean) ||
	    jv_num(v, o, p, "burst_gap_s", false, 0, 1e9, &c->burst_gap_s) ||
	    jv_int(v, o, p, "cores_per_gpu", false, 0, 4096, &cpg) ||
	    jv_int(v, o, p, "cpu_cores", false, 1, 1 << 20, &cpu) ||
	    jv_num(v, o, p, "mem_per_gpu_gib", false, 0, 1e6, &mpg) ||
	    jv_num(v, o, p, "gpu_mem_gib", false, 0, 1e4, &gmem) ||
	    jv_num(v, o, p, "fail_p", false, 0, 1, &c->fail_p) ||
	    jv_int(v, o, p, "tenants", false, 1, 1 << 20, &ten) ||
	    jv_num(v, o, p, "ckpt_every_s", false, 0, 1e9, &c->ckpt_every_s) ||
	    jv_bool(v, o, p, "spread", &c->spread))
		return -1;
	c->cores_per_gpu = (int32_t)cpg;
	c->cpu_cores = (int32_t)cpu;
	c->mem_per_gpu_mib = (int64_t)llround(mpg * 1024);
	c->gpu_mem_mib = (int64_t)llround(gmem * 1024);
	c->ntenants = (int32_t)ten;

	/* Arrival profile: 168 hourly values, or a daily and/or weekly shape
	 * whose product it is. */
	double hours[SYNTH_HOURS], day[24], week[7];
	int nh, nd, nw;
	if (load_numbers(v, o, p, "profile", SYNTH_HOURS, SYNTH_HOURS, hours, &nh) ||
	    load_numbers(v, o, p, "profile_daily", 24, 24, day, &nd) ||
	    load_numbers(v, o, p, "profile_weekly", 7, 7, week, &nw))
		return -1;
	if (nh && (nd || nw)) {
		jv_subpath(q, sizeof q, p, "profile");
		return jv_fail(v, q, "give either profile (168 hours) or profile_daily / profile_weekly, not both");
	}
	for (int h = 0; h < SYNTH_HOURS; h++)
		c->profile[h] = nh ? hours[h] : (nd || nw) ? (nd ? day[h % 24] : 1) * (nw ? week[h / 24] : 1) : 0;

	int32_t nt = 0;
	if (load_numbers(v, o, p, "tenant_weights", 1, SYNTH_TENANTS_MAX, c->tenant_w, &got))
		return -1;
	nt = got;
	if (nt && nt != c->ntenants) {
		jv_subpath(q, sizeof q, p, "tenant_weights");
		return jv_fail(v, q, "%d weights for %d tenants", (int)nt, (int)c->ntenants);
	}

	json_t *models = jv_array(v, o, p, "gpu_models", false), *e;
	if (v->failed)
		return -1;
	if (models) {
		size_t i;
		json_array_foreach(models, i, e) {
			char q2[300];
			jv_subpath(q, sizeof q, p, "gpu_models");
			jv_idxpath(q2, sizeof q2, q, i);
			int g = json_is_string(e) ? catalog_find_gpu(cat, json_string_value(e)) : -1;
			if (g < 0)
				return jv_fail(v, q2, "expected a catalog GPU model name, got %s%s%s",
				               json_is_string(e) ? "\"" : "", json_is_string(e) ? json_string_value(e) : jv_type(e),
				               json_is_string(e) ? "\"" : "");
			c->gpu_models |= 1ull << g;
		}
	}
	if (load_mix(v, o, p, "mix", true, 0, c->mix_gpus, c->mix_p, &c->nmix) ||
	    load_mix(v, o, p, "cpu_mix", false, 1, c->cpu_mix, c->cpu_mix_p, &c->ncpu_mix))
		return -1;
	return load_req_knobs(v, o, p, c);
}

/* A service's "mig": compute slices 1..7 as a number, or a MIG profile such
 * as "3g" or "3g.40gb" (its leading digits). */
static int load_svc_mig(struct jv *v, const json_t *o, const char *p, int32_t *out)
{
	char q[256];
	const json_t *m = json_object_get(o, "mig");
	if (!m)
		return 0;
	jv_subpath(q, sizeof q, p, "mig");
	long long g = 0;
	if (json_is_integer(m)) {
		g = json_integer_value(m);
	} else if (json_is_string(m)) {
		const char *s = json_string_value(m);
		size_t n = 0;
		while (n < 3 && s[n] >= '0' && s[n] <= '9')
			g = g * 10 + (s[n++] - '0');
		if (n == 0 || s[n] != 'g' || (s[n + 1] != '\0' && s[n + 1] != '.'))
			g = 0;
	}
	if (g < 1 || g > 7)
		return jv_fail(v, q, "expected compute slices 1..7 as a number, or a MIG profile such as "
		               "\"3g\" or \"3g.40gb\"");
	*out = (int32_t)g;
	return 0;
}

/* One entry of "services" (replicated `count` times, names suffixed). */
static int load_service(struct jv *v, const struct catalog *cat, const json_t *o, const char *p,
                        struct synth_cfg *cfg)
{
	struct synth_service s;
	char name[40] = "", q[256];
	long long count = 1, minr = 1, maxr = 1000, gpus = 1, cores = 4, tenant = -1, milli = 0;
	double mem = 0, gmem = 0;
	memset(&s, 0, sizeof s);
	s.peak_hour = 20;
	s.weekend_factor = 1;
	s.step_s = 300;
	if (jv_object(v, o, p, svc_keys) ||
	    jv_str(v, o, p, "name", true, name, sizeof name) ||
	    jv_int(v, o, p, "count", false, 1, SYNTH_SERVICES_MAX, &count) ||
	    jv_num(v, o, p, "peak_rps", true, 0, 1e12, &s.peak_rps) ||
	    jv_num(v, o, p, "trough_rps", true, 0, 1e12, &s.trough_rps) ||
	    jv_num(v, o, p, "peak_hour", false, 0, 23.999999, &s.peak_hour) ||
	    jv_num(v, o, p, "weekend_factor", false, 0, 100, &s.weekend_factor) ||
	    jv_num(v, o, p, "noise_sigma", false, 0, 5, &s.noise_sigma) ||
	    jv_num(v, o, p, "rps_per_replica", true, 1e-9, 1e12, &s.rps_per_replica) ||
	    jv_num(v, o, p, "step_s", false, 1, 86400, &s.step_s) ||
	    jv_int(v, o, p, "min_replicas", false, 0, 100000, &minr) ||
	    jv_int(v, o, p, "max_replicas", false, 0, 100000, &maxr) ||
	    jv_int(v, o, p, "gpus", false, 0, 64, &gpus) ||
	    jv_int(v, o, p, "cores", false, 0, 1 << 20, &cores) ||
	    jv_num(v, o, p, "mem_gib", false, 0, 1e6, &mem) ||
	    jv_num(v, o, p, "gpu_mem_gib", false, 0, 1e4, &gmem) ||
	    jv_int(v, o, p, "tenant", false, -1, 1 << 20, &tenant) ||
	    jv_int(v, o, p, "gpu_milli", false, 1, 1000, &milli) ||
	    load_svc_mig(v, o, p, &s.mig_g) ||
	    load_expr(v, o, p, "require", s.require, sizeof s.require) ||
	    load_expr(v, o, p, "prefer", s.prefer, sizeof s.prefer))
		return -1;
	s.gpu_milli = (int32_t)milli;
	if (s.mig_g && s.gpu_milli) {
		jv_subpath(q, sizeof q, p, "gpu_milli");
		return jv_fail(v, q, "a MIG instance (mig) and a time-sliced share exclude each other");
	}
	if ((s.mig_g || s.gpu_milli) && gpus != 1) {
		jv_subpath(q, sizeof q, p, s.mig_g ? "mig" : "gpu_milli");
		return jv_fail(v, q, "a share of one GPU needs gpus 1, got %lld", gpus);
	}
	if (s.trough_rps > s.peak_rps) {
		jv_subpath(q, sizeof q, p, "trough_rps");
		return jv_fail(v, q, "%g is above peak_rps %g", s.trough_rps, s.peak_rps);
	}
	if (minr > maxr) {
		jv_subpath(q, sizeof q, p, "min_replicas");
		return jv_fail(v, q, "%lld is above max_replicas %lld", minr, maxr);
	}
	if (gpus == 0 && cores == 0)
		return jv_fail(v, p, "a replica needs cores or GPUs");
	json_t *models = jv_array(v, o, p, "gpu_models", false), *e;
	if (v->failed)
		return -1;
	if (models) {
		size_t i;
		json_array_foreach(models, i, e) {
			char q2[300];
			jv_subpath(q, sizeof q, p, "gpu_models");
			jv_idxpath(q2, sizeof q2, q, i);
			int g = json_is_string(e) ? catalog_find_gpu(cat, json_string_value(e)) : -1;
			if (g < 0)
				return jv_fail(v, q2, "expected a catalog GPU model name");
			s.gpu_models |= 1ull << g;
		}
	}
	s.min_replicas = (int32_t)minr;
	s.max_replicas = (int32_t)maxr;
	s.gpus = (int32_t)gpus;
	s.cores = (int32_t)cores;
	s.mem_mib = (int64_t)llround(mem * 1024);
	s.gpu_mem_mib = (int64_t)llround(gmem * 1024);
	for (long long k = 0; k < count; k++) {
		if (cfg->nservices == SYNTH_SERVICES_MAX)
			return jv_fail(v, p, "more than %d services in all", SYNTH_SERVICES_MAX);
		struct synth_service *d = &cfg->svc[cfg->nservices];
		*d = s;
		if (count > 1)
			snprintf(d->name, sizeof d->name, "%s-%lld", name, k + 1);
		else
			snprintf(d->name, sizeof d->name, "%s", name);
		d->tenant = tenant >= 0 ? (int32_t)tenant : cfg->nservices;
		cfg->nservices++;
	}
	return 0;
}

/* The synthetic block at path p (its JSON object `syn`) into *cfg. */
int synth_load_json(struct jv *v, const struct catalog *cat, const json_t *syn, const char *sp,
                      struct synth_cfg *cfg)
{
	long long gpn = 8;
	char q[256];
	synth_cfg_init(cfg);
	if (jv_object(v, syn, sp, syn_keys) ||
	    jv_num(v, syn, sp, "days", false, 1e-6, 3650, &cfg->days) ||
	    jv_int(v, syn, sp, "gpus_per_node", false, 1, HL_MAX_GPUS_PER_NODE, &gpn))
		return -1;
	json_t *from = json_object_get(syn, "fitted_from");
	if (from && !json_is_string(from)) {
		jv_subpath(q, sizeof q, sp, "fitted_from");
		return jv_fail(v, q, "expected a string, got %s", jv_type(from));
	}
	cfg->gpus_per_node = (int32_t)gpn;
	json_t *scale = json_object_get(syn, "scale");
	if (scale) {
		char sq[256];
		jv_subpath(sq, sizeof sq, sp, "scale");
		if (jv_object(v, scale, sq, scale_keys) ||
		    jv_num(v, scale, sq, "rate", false, 0, 1e6, &cfg->scale_rate) ||
		    jv_num(v, scale, sq, "size", false, 1e-3, 1e3, &cfg->scale_size))
			return -1;
		json_t *sc = json_object_get(scale, "classes");
		if (sc) {
			const char *k;
			json_t *e;
			jv_subpath(q, sizeof q, sq, "classes");
			if (!json_is_object(sc))
				return jv_fail(v, q, "expected an object keyed by class name, got %s", jv_type(sc));
			json_object_foreach(sc, k, e) {
				char q2[300];
				snprintf(q2, sizeof q2, "%s.%s", q, k);
				int c = job_class_parse(k);
				if (c < 0)
					return jv_fail(v, q2, "unknown class (expected training, inference, batch or dev)");
				if (!json_is_number(e) || json_number_value(e) < 0 || json_number_value(e) > 1e6)
					return jv_fail(v, q2, "expected a factor in [0, 1e6]");
				cfg->class_scale[c] = json_number_value(e);
			}
		}
	}
	json_t *svcs = jv_array(v, syn, sp, "services", false);
	if (v->failed)
		return -1;
	if (svcs) {
		size_t i;
		json_t *e;
		jv_subpath(q, sizeof q, sp, "services");
		json_array_foreach(svcs, i, e) {
			char q2[300];
			jv_idxpath(q2, sizeof q2, q, i);
			if (load_service(v, cat, e, q2, cfg))
				return -1;
		}
	}
	json_t *cls = json_object_get(syn, "classes");
	if (!cls && svcs)
		return 0;   /* services only */
	if (!cls)
		return jv_fail(v, sp, "missing key \"classes\" (or \"services\")");
	jv_subpath(q, sizeof q, sp, "classes");
	if (!json_is_object(cls))
		return jv_fail(v, q, "expected an object keyed by class name");
	const char *k;
	json_t *e;
	json_object_foreach(cls, k, e) {
		char q2[300];
		snprintf(q2, sizeof q2, "%s.%s", q, k);
		int c = job_class_parse(k);
		if (c < 0)
			return jv_fail(v, q2, "unknown class (expected training, inference, batch or dev)");
		if (load_class(v, cat, e, q2, &cfg->cls[c]))
			return -1;
	}
	return 0;
}

int synth_load_file(const char *path, struct synth_cfg *out, char *err, size_t errlen)
{
	struct jv v = { .file = path, .err = err, .errlen = errlen };
	struct catalog cat;
	json_t *root = jsonfile_load(path, err, errlen);
	if (!root)
		return -1;
	int rc = -1;
	if (catalog_load_builtin(&cat, err, errlen) == 0) {
		rc = synth_load_json(&v, &cat, root, "$", out);
		catalog_fini(&cat);
	}
	json_decref(root);
	return rc;
}

/* "from_inventory": the settings and the mapping; the cluster is built by
 * scenario_build_inventory. Mapped GPUs must be in the catalog by now. */
