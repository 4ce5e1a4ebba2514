/* scenario — JSON scenario and catalog loader. See scenario.h and
 * docs/scenario.md for the format. */
#include "traces/scenario.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char hl_embed_guian[], hl_embed_gpus[], hl_embed_cpus[];

const char *scenario_default_text(void) { return hl_embed_guian; }

/* Validation context: the file and the first error. */
struct jv {
	const char *file;
	char *err;
	size_t errlen;
	bool failed;
};

static int jv_fail(struct jv *v, const char *path, const char *fmt, ...)
{
	if (!v->failed) {
		char msg[384];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		snprintf(v->err, v->errlen, "%s: %s: %s", v->file, path, msg);
		v->failed = true;
	}
	return -1;
}

static const char *jtype(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* Checks that o is an object whose keys are all in the NULL-terminated list. */
static int jv_object(struct jv *v, const json_t *o, const char *path, const char *const *keys)
{
	if (!json_is_object(o))
		return jv_fail(v, path, "expected an object, got %s", jtype(o));
	const char *k;
	json_t *val;
	json_object_foreach((json_t *)o, k, val) {
		bool known = false;
		for (int i = 0; keys[i] && !known; i++)
			known = strcmp(keys[i], k) == 0;
		if (!known) {
			char all[512] = "";
			size_t off = 0;
			for (int i = 0; keys[i] && off < sizeof all; i++)
				off += (size_t)snprintf(all + off, sizeof all - off, "%s%s", i ? ", " : "", keys[i]);
			return jv_fail(v, path, "unknown key \"%s\" (expected one of: %s)", k, all);
		}
	}
	return 0;
}

static void subpath(char *out, size_t len, const char *path, const char *key)
{
	snprintf(out, len, "%s.%s", path, key);
}

static void idxpath(char *out, size_t len, const char *path, size_t i)
{
	snprintf(out, len, "%s[%zu]", path, i);
}

static int jv_num(struct jv *v, const json_t *o, const char *path, const char *key, bool required,
                  double min, double max, double *out)
{
	char p[256];
	subpath(p, sizeof p, path, key);
	json_t *x = json_object_get(o, key);
	if (!x) {
		if (required)
			return jv_fail(v, p, "missing (expected a number in [%g, %g])", min, max);
		return 0;
	}
	if (!json_is_number(x))
		return jv_fail(v, p, "expected a number in [%g, %g], got %s", min, max, jtype(x));
	double d = json_number_value(x);
	if (!(d >= min && d <= max))
		return jv_fail(v, p, "expected a number in [%g, %g], got %g", min, max, d);
	*out = d;
	return 0;
}

static int jv_int(struct jv *v, const json_t *o, const char *path, const char *key, bool required,
                  long long min, long long max, long long *out)
{
	char p[256];
	subpath(p, sizeof p, path, key);
	json_t *x = json_object_get(o, key);
	if (!x) {
		if (required)
			return jv_fail(v, p, "missing (expected an integer in [%lld, %lld])", min, max);
		return 0;
	}
	if (!json_is_integer(x))
		return jv_fail(v, p, "expected an integer in [%lld, %lld], got %s", min, max, jtype(x));
	long long d = json_integer_value(x);
	if (d < min || d > max)
		return jv_fail(v, p, "expected an integer in [%lld, %lld], got %lld", min, max, d);
	*out = d;
	return 0;
}

static int jv_str(struct jv *v, const json_t *o, const char *path, const char *key, bool required,
                  char *out, size_t len)
{
	char p[256];
	subpath(p, sizeof p, path, key);
	json_t *x = json_object_get(o, key);
	if (!x) {
		if (required)
			return jv_fail(v, p, "missing (expected a string)");
		return 0;
	}
	if (!json_is_string(x))
		return jv_fail(v, p, "expected a string, got %s", jtype(x));
	if (strlen(json_string_value(x)) >= len)
		return jv_fail(v, p, "too long (at most %zu characters)", len - 1);
	snprintf(out, len, "%s", json_string_value(x));
	return 0;
}

static int jv_bool(struct jv *v, const json_t *o, const char *path, const char *key, bool *out)
{
	char p[256];
	subpath(p, sizeof p, path, key);
	json_t *x = json_object_get(o, key);
	if (!x)
		return 0;
	if (!json_is_boolean(x))
		return jv_fail(v, p, "expected true or false, got %s", jtype(x));
	*out = json_is_true(x);
	return 0;
}

static json_t *jv_array(struct jv *v, const json_t *o, const char *path, const char *key, bool required)
{
	char p[256];
	subpath(p, sizeof p, path, key);
	json_t *x = json_object_get(o, key);
	if (!x) {
		if (required)
			jv_fail(v, p, "missing (expected an array)");
		return NULL;
	}
	if (!json_is_array(x)) {
		jv_fail(v, p, "expected an array, got %s", jtype(x));
		return NULL;
	}
	return x;
}

/* ---- catalog ---- */

static const char *const gpu_keys[] = { "name", "vendor_name", "mem_gib", "tdp_w", "idle_w",
	"fp16_tflops", "fp8_tflops", "rel_speed", "mig", "source", NULL };
static const char *const cpu_keys[] = { "name", "vendor_name", "cores", "threads", "base_ghz",
	"tdp_w", "idle_w", "avx512", "amx", "source", NULL };

static int load_gpu(struct jv *v, const json_t *o, const char *p, struct gpu_model *g)
{
	double mem = 0;
	memset(g, 0, sizeof *g);
	if (jv_object(v, o, p, gpu_keys) ||
	    jv_str(v, o, p, "name", true, g->name, sizeof g->name) ||
	    jv_str(v, o, p, "vendor_name", true, g->vendor_name, sizeof g->vendor_name) ||
	    jv_num(v, o, p, "mem_gib", true, 0.001, 1e6, &mem) ||
	    jv_num(v, o, p, "tdp_w", true, 0, 1e5, &g->tdp_w) ||
	    jv_num(v, o, p, "idle_w", true, 0, 1e5, &g->idle_w) ||
	    jv_num(v, o, p, "fp16_tflops", true, 0, 1e6, &g->fp16_tflops) ||
	    jv_num(v, o, p, "fp8_tflops", true, 0, 1e6, &g->fp8_tflops) ||
	    jv_num(v, o, p, "rel_speed", true, 1e-6, 1e6, &g->rel_speed) ||
	    jv_bool(v, o, p, "mig", &g->mig) ||
	    jv_str(v, o, p, "source", true, g->source, sizeof g->source))
		return -1;
	if (!json_object_get(o, "mig"))
		return jv_fail(v, p, "missing key \"mig\" (expected true or false)");
	if (g->idle_w > g->tdp_w)
		return jv_fail(v, p, "idle_w %g exceeds tdp_w %g", g->idle_w, g->tdp_w);
	g->mem_mib = (int64_t)llround(mem * 1024);
	return 0;
}

static int load_cpu(struct jv *v, const json_t *o, const char *p, struct cpu_model *c)
{
	long long cores = 0, threads = 0;
	memset(c, 0, sizeof *c);
	if (jv_object(v, o, p, cpu_keys) ||
	    jv_str(v, o, p, "name", true, c->name, sizeof c->name) ||
	    jv_str(v, o, p, "vendor_name", true, c->vendor_name, sizeof c->vendor_name) ||
	    jv_int(v, o, p, "cores", true, 1, 4096, &cores) ||
	    jv_int(v, o, p, "threads", true, 1, 8192, &threads) ||
	    jv_num(v, o, p, "base_ghz", true, 0, 100, &c->base_ghz) ||
	    jv_num(v, o, p, "tdp_w", true, 0, 1e5, &c->tdp_w) ||
	    jv_num(v, o, p, "idle_w", true, 0, 1e5, &c->idle_w) ||
	    jv_bool(v, o, p, "avx512", &c->avx512) ||
	    jv_bool(v, o, p, "amx", &c->amx) ||
	    jv_str(v, o, p, "source", true, c->source, sizeof c->source))
		return -1;
	if (!json_object_get(o, "avx512") || !json_object_get(o, "amx"))
		return jv_fail(v, p, "missing key \"%s\" (expected true or false)",
		               json_object_get(o, "avx512") ? "amx" : "avx512");
	c->cores = (int32_t)cores;
	c->threads = (int32_t)threads;
	return 0;
}

/* Adds (or replaces by name) the entries of arrays "gpus" / "cpus" of o. */
static int catalog_merge(struct jv *v, struct catalog *cat, const json_t *o, const char *path)
{
	char p[256];
	json_t *arr, *e;
	size_t i;
	if ((arr = jv_array(v, o, path, "gpus", false))) {
		json_array_foreach(arr, i, e) {
			struct gpu_model g;
			snprintf(p, sizeof p, "%s.gpus[%zu]", path, i);
			if (load_gpu(v, e, p, &g))
				return -1;
			for (size_t d = 0; d < i; d++)
				if (strcmp(json_string_value(json_object_get(json_array_get(arr, d), "name")), g.name) == 0)
					return jv_fail(v, p, "GPU model \"%s\" listed twice (also at index %zu)", g.name, d);
			int k = catalog_find_gpu(cat, g.name);
			if (k < 0) {
				if (cat->ngpus >= 64)
					return jv_fail(v, p, "too many GPU models (at most 64)");
				struct gpu_model *ng = realloc(cat->gpus, (size_t)(cat->ngpus + 1) * sizeof *ng);
				if (!ng)
					return jv_fail(v, p, "out of memory");
				cat->gpus = ng;
				k = cat->ngpus++;
			}
			cat->gpus[k] = g;
		}
	}
	if ((arr = jv_array(v, o, path, "cpus", false))) {
		json_array_foreach(arr, i, e) {
			struct cpu_model c;
			snprintf(p, sizeof p, "%s.cpus[%zu]", path, i);
			if (load_cpu(v, e, p, &c))
				return -1;
			for (size_t d = 0; d < i; d++)
				if (strcmp(json_string_value(json_object_get(json_array_get(arr, d), "name")), c.name) == 0)
					return jv_fail(v, p, "CPU model \"%s\" listed twice (also at index %zu)", c.name, d);
			int k = catalog_find_cpu(cat, c.name);
			if (k < 0) {
				struct cpu_model *nc = realloc(cat->cpus, (size_t)(cat->ncpus + 1) * sizeof *nc);
				if (!nc)
					return jv_fail(v, p, "out of memory");
				cat->cpus = nc;
				k = cat->ncpus++;
			}
			cat->cpus[k] = c;
		}
	}
	return v->failed ? -1 : 0;
}

static json_t *parse_text(const char *text, const char *file, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		snprintf(err, errlen, "%s:%d:%d: %s", file, je.line, je.column, je.text);
	return root;
}

int catalog_load_builtin(struct catalog *cat, char *err, size_t errlen)
{
	static const char *const top_gpu[] = { "reference", "gpus", NULL };
	static const char *const top_cpu[] = { "cpus", NULL };
	struct jv v = { .err = err, .errlen = errlen };
	json_t *g = NULL, *c = NULL;
	int rc = -1;
	memset(cat, 0, sizeof *cat);
	v.file = "catalog/gpus.json";
	if (!(g = parse_text(hl_embed_gpus, v.file, err, errlen)) ||
	    jv_object(&v, g, "$", top_gpu) || catalog_merge(&v, cat, g, "$"))
		goto out;
	char ref[HL_NAME_MAX] = "";
	if (jv_str(&v, g, "$", "reference", true, ref, sizeof ref))
		goto out;
	if (catalog_find_gpu(cat, ref) < 0) {
		jv_fail(&v, "$.reference", "\"%s\" is not one of the catalog's GPUs", ref);
		goto out;
	}
	v.file = "catalog/cpus.json";
	if (!(c = parse_text(hl_embed_cpus, v.file, err, errlen)) ||
	    jv_object(&v, c, "$", top_cpu) || catalog_merge(&v, cat, c, "$"))
		goto out;
	rc = 0;
out:
	json_decref(g);
	json_decref(c);
	if (rc)
		catalog_fini(cat);
	return rc;
}

/* ---- scenario ---- */

static const char *const top_keys[] = { "name", "description", "seed", "policy", "policy_params",
	"sample_interval_s", "horizon_days", "catalog", "node_types", "racks", "from_trace",
	"from_inventory",
	"workload", NULL };
static const char *const type_keys[] = { "name", "gpu", "gpus", "cpu", "sockets", "cores",
	"mem_gib", "plane", "base_w", NULL };
static const char *const rack_keys[] = { "name", "count", "power_kw", "cooling", "nodes", NULL };
static const char *const rnode_keys[] = { "type", "count", NULL };
static const char *const ft_keys[] = { "type", "nodes_per_rack", "rack_kw", NULL };
static const char *const fi_keys[] = { "file", "format", "gpu_models", "mem_gib", "nodes_per_rack",
	"rack_kw", NULL };
static const char *const wl_keys[] = { "trace", "lenient", "enforce_walltime", "synthetic", NULL };
static const char *const syn_keys[] = { "days", "gpus_per_node", "classes", "scale", "fitted_from",
	"services", NULL };
static const char *const svc_keys[] = { "name", "count", "peak_rps", "trough_rps", "peak_hour",
	"weekend_factor", "noise_sigma", "rps_per_replica", "step_s", "min_replicas", "max_replicas",
	"gpus", "cores", "mem_gib", "gpu_mem_gib", "gpu_models", "tenant", NULL };
static const char *const scale_keys[] = { "rate", "size", "classes", NULL };
static const char *const cls_keys[] = { "rate_per_h", "profile", "profile_daily", "profile_weekly",
	"burst_p", "burst_mean", "burst_gap_s", "dur_dist", "dur_median_s", "dur_sigma", "dur_shape",
	"dur_scale_s", "dur_quantiles_s", "dur_max_s", "walltime_factor", "mix", "cpu_mix", "spread",
	"cores_per_gpu", "cpu_cores", "mem_per_gpu_gib", "gpu_mem_gib", "gpu_models", "fail_p",
	"tenants", "tenant_weights", "ckpt_every_s", NULL };

static int load_type(struct jv *v, struct cluster *cl, const json_t *o, const char *p)
{
	struct node_type t;
	char gpu[HL_NAME_MAX] = "", cpu[HL_NAME_MAX] = "";
	long long gpus = 0, sockets = 1, cores = -1;
	double mem = 0, base = 0;
	memset(&t, 0, sizeof t);
	if (jv_object(v, o, p, type_keys) ||
	    jv_str(v, o, p, "name", true, t.name, sizeof t.name) ||
	    jv_str(v, o, p, "gpu", false, gpu, sizeof gpu) ||
	    jv_int(v, o, p, "gpus", false, 0, HL_MAX_GPUS_PER_NODE, &gpus) ||
	    jv_str(v, o, p, "cpu", false, cpu, sizeof cpu) ||
	    jv_int(v, o, p, "sockets", false, 1, 64, &sockets) ||
	    jv_int(v, o, p, "cores", false, 1, 1 << 20, &cores) ||
	    jv_num(v, o, p, "mem_gib", true, 0, 1e9, &mem) ||
	    jv_str(v, o, p, "plane", false, t.plane, sizeof t.plane) ||
	    jv_num(v, o, p, "base_w", false, 0, 1e6, &base))
		return -1;
	for (int i = 0; i < cl->ntypes; i++)
		if (strcmp(cl->types[i].name, t.name) == 0)
			return jv_fail(v, p, "node type \"%s\" defined twice", t.name);
	t.gpu_model = -1;
	if (gpu[0] && (t.gpu_model = catalog_find_gpu(&cl->cat, gpu)) < 0) {
		char known[1024] = "";
		size_t off = 0;
		for (int i = 0; i < cl->cat.ngpus && off < sizeof known; i++)
			off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", i ? ", " : "", cl->cat.gpus[i].name);
		return jv_fail(v, p, "unknown GPU model \"%s\" (the catalog has: %s)", gpu, known);
	}
	if (gpu[0] && gpus == 0)
		return jv_fail(v, p, "GPU model given but \"gpus\" is missing or 0");
	if (!gpu[0] && gpus > 0)
		return jv_fail(v, p, "\"gpus\" given without a \"gpu\" model");
	t.gpus = (int32_t)gpus;
	t.cpu_model = -1;
	if (cpu[0] && (t.cpu_model = catalog_find_cpu(&cl->cat, cpu)) < 0)
		return jv_fail(v, p, "unknown CPU model \"%s\" (see docs/catalog.md)", cpu);
	t.sockets = (int32_t)sockets;
	if (cores < 0) {
		if (t.cpu_model < 0)
			return jv_fail(v, p, "needs \"cpu\" (a catalog CPU model) or \"cores\"");
		cores = (long long)sockets * cl->cat.cpus[t.cpu_model].cores;
	}
	t.cores = (int32_t)cores;
	t.mem_mib = (int64_t)llround(mem * 1024);
	t.base_w = base;
	if (cluster_add_type(cl, &t) < 0)
		return jv_fail(v, p, "out of memory");
	return 0;
}

static int find_type(const struct cluster *cl, const char *name)
{
	for (int i = 0; i < cl->ntypes; i++)
		if (strcmp(cl->types[i].name, name) == 0)
			return i;
	return -1;
}

static int load_rack(struct jv *v, struct cluster *cl, const json_t *o, const char *p)
{
	char name[HL_NAME_MAX], cooling[16] = "air", q[256], q2[256];
	long long count = 1;
	double kw = 0;
	if (jv_object(v, o, p, rack_keys) ||
	    jv_str(v, o, p, "name", true, name, 32) ||   /* room for a count suffix and "-n<k>" */
	    jv_int(v, o, p, "count", false, 1, 100000, &count) ||
	    jv_num(v, o, p, "power_kw", true, 0.001, 1e4, &kw) ||
	    jv_str(v, o, p, "cooling", false, cooling, sizeof cooling))
		return -1;
	int cool = strcmp(cooling, "air") == 0 ? COOL_AIR : strcmp(cooling, "liquid") == 0 ? COOL_LIQUID : -1;
	if (cool < 0) {
		subpath(q, sizeof q, p, "cooling");
		return jv_fail(v, q, "expected \"air\" or \"liquid\", got \"%s\"", cooling);
	}
	json_t *nodes = jv_array(v, o, p, "nodes", true), *e;
	if (!nodes)
		return -1;
	subpath(q, sizeof q, p, "nodes");
	for (long long r = 0; r < count; r++) {
		char rname[HL_NAME_MAX];
		if (count > 1)
			snprintf(rname, sizeof rname, "%s%02lld", name, r + 1);
		else
			snprintf(rname, sizeof rname, "%s", name);
		for (int i = 0; i < cl->nracks; i++)
			if (strcmp(cl->racks[i].name, rname) == 0)
				return jv_fail(v, p, "rack name \"%s\" used twice", rname);
		int rk = cluster_add_rack(cl, rname, kw * 1000, cool);
		if (rk < 0)
			return jv_fail(v, p, "out of memory");
		size_t i;
		json_array_foreach(nodes, i, e) {
			char tname[HL_NAME_MAX];
			long long n = 0;
			idxpath(q2, sizeof q2, q, i);
			if (jv_object(v, e, q2, rnode_keys) ||
			    jv_str(v, e, q2, "type", true, tname, sizeof tname) ||
			    jv_int(v, e, q2, "count", true, 1, 100000, &n))
				return -1;
			int t = find_type(cl, tname);
			if (t < 0)
				return jv_fail(v, q2, "unknown node type \"%s\" (not in $.node_types)", tname);
			if (cluster_add_nodes(cl, rk, t, (int)n))
				return jv_fail(v, q2, "out of memory");
		}
	}
	return 0;
}

/* An array of n numbers ≥ 0 at o.key into out (absent: *got = 0). */
static int load_numbers(struct jv *v, const json_t *o, const char *p, const char *key,
                        int min_n, int max_n, double *out, int *got)
{
	char q[256];
	*got = 0;
	json_t *a = json_object_get(o, key), *e;
	if (!a)
		return 0;
	subpath(q, sizeof q, p, key);
	if (!json_is_array(a) || (int)json_array_size(a) < min_n || (int)json_array_size(a) > max_n)
		return jv_fail(v, q, min_n == max_n ? "expected an array of %d numbers" : "expected an array of %d to %d numbers",
		               min_n, max_n);
	size_t i;
	json_array_foreach(a, i, e) {
		if (!json_is_number(e) || json_number_value(e) < 0)
			return jv_fail(v, q, "[%zu]: expected a number >= 0, got %s", i, json_is_number(e) ? "a negative number" : jtype(e));
		out[i] = json_number_value(e);
	}
	*got = (int)json_array_size(a);
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
	subpath(q, sizeof q, p, key);
	if (json_array_size(mix) == 0 || json_array_size(mix) > SYNTH_MIX_MAX)
		return jv_fail(v, q, "expected 1 to %d [value, probability] pairs", SYNTH_MIX_MAX);
	double sum = 0;
	size_t i;
	json_array_foreach(mix, i, e) {
		idxpath(q2, sizeof q2, q, i);
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
		subpath(q, sizeof q, p, "dur_dist");
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
			subpath(q, sizeof q, p, dur_keys[i]);
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
		subpath(q, sizeof q, p, "dur_quantiles_s");
		return jv_fail(v, q, "missing (the empirical distribution needs 2 to %d quantiles)", SYNTH_EMP_MAX);
	}
	for (int i = 1; i < c->nemp; i++)
		if (c->emp_s[i] < c->emp_s[i - 1]) {
			subpath(q, sizeof q, p, "dur_quantiles_s");
			return jv_fail(v, q, "[%d]: quantiles must not decrease (%g after %g)", i, c->emp_s[i], c->emp_s[i - 1]);
		}
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
		subpath(q, sizeof q, p, "profile");
		return jv_fail(v, q, "give either profile (168 hours) or profile_daily / profile_weekly, not both");
	}
	for (int h = 0; h < SYNTH_HOURS; h++)
		c->profile[h] = nh ? hours[h] : (nd || nw) ? (nd ? day[h % 24] : 1) * (nw ? week[h / 24] : 1) : 0;

	int32_t nt = 0;
	if (load_numbers(v, o, p, "tenant_weights", 1, SYNTH_TENANTS_MAX, c->tenant_w, &got))
		return -1;
	nt = got;
	if (nt && nt != c->ntenants) {
		subpath(q, sizeof q, p, "tenant_weights");
		return jv_fail(v, q, "%d weights for %d tenants", (int)nt, (int)c->ntenants);
	}

	json_t *models = jv_array(v, o, p, "gpu_models", false), *e;
	if (v->failed)
		return -1;
	if (models) {
		size_t i;
		json_array_foreach(models, i, e) {
			char q2[300];
			subpath(q, sizeof q, p, "gpu_models");
			idxpath(q2, sizeof q2, q, i);
			int g = json_is_string(e) ? catalog_find_gpu(cat, json_string_value(e)) : -1;
			if (g < 0)
				return jv_fail(v, q2, "expected a catalog GPU model name, got %s%s%s",
				               json_is_string(e) ? "\"" : "", json_is_string(e) ? json_string_value(e) : jtype(e),
				               json_is_string(e) ? "\"" : "");
			c->gpu_models |= 1ull << g;
		}
	}
	if (load_mix(v, o, p, "mix", true, 0, c->mix_gpus, c->mix_p, &c->nmix) ||
	    load_mix(v, o, p, "cpu_mix", false, 1, c->cpu_mix, c->cpu_mix_p, &c->ncpu_mix))
		return -1;
	return 0;
}

/* One entry of "services" (replicated `count` times, names suffixed). */
static int load_service(struct jv *v, const struct catalog *cat, const json_t *o, const char *p,
                        struct synth_cfg *cfg)
{
	struct synth_service s;
	char name[40] = "", q[256];
	long long count = 1, minr = 1, maxr = 1000, gpus = 1, cores = 4, tenant = -1;
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
	    jv_int(v, o, p, "tenant", false, -1, 1 << 20, &tenant))
		return -1;
	if (s.trough_rps > s.peak_rps) {
		subpath(q, sizeof q, p, "trough_rps");
		return jv_fail(v, q, "%g is above peak_rps %g", s.trough_rps, s.peak_rps);
	}
	if (minr > maxr) {
		subpath(q, sizeof q, p, "min_replicas");
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
			subpath(q, sizeof q, p, "gpu_models");
			idxpath(q2, sizeof q2, q, i);
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
static int load_synth(struct jv *v, const struct catalog *cat, const json_t *syn, const char *sp,
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
		subpath(q, sizeof q, sp, "fitted_from");
		return jv_fail(v, q, "expected a string, got %s", jtype(from));
	}
	cfg->gpus_per_node = (int32_t)gpn;
	json_t *scale = json_object_get(syn, "scale");
	if (scale) {
		char sq[256];
		subpath(sq, sizeof sq, sp, "scale");
		if (jv_object(v, scale, sq, scale_keys) ||
		    jv_num(v, scale, sq, "rate", false, 0, 1e6, &cfg->scale_rate) ||
		    jv_num(v, scale, sq, "size", false, 1e-3, 1e3, &cfg->scale_size))
			return -1;
		json_t *sc = json_object_get(scale, "classes");
		if (sc) {
			const char *k;
			json_t *e;
			subpath(q, sizeof q, sq, "classes");
			if (!json_is_object(sc))
				return jv_fail(v, q, "expected an object keyed by class name, got %s", jtype(sc));
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
		subpath(q, sizeof q, sp, "services");
		json_array_foreach(svcs, i, e) {
			char q2[300];
			idxpath(q2, sizeof q2, q, i);
			if (load_service(v, cat, e, q2, cfg))
				return -1;
		}
	}
	json_t *cls = json_object_get(syn, "classes");
	if (!cls && svcs)
		return 0;   /* services only */
	if (!cls)
		return jv_fail(v, sp, "missing key \"classes\" (or \"services\")");
	subpath(q, sizeof q, sp, "classes");
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

static int load_workload(struct jv *v, struct scenario *sc, const json_t *o)
{
	const char *p = "$.workload";
	if (jv_object(v, o, p, wl_keys) ||
	    jv_str(v, o, p, "trace", false, sc->trace, sizeof sc->trace) ||
	    jv_bool(v, o, p, "lenient", &sc->lenient))
		return -1;
	sc->enforce_walltime = true;
	if (jv_bool(v, o, p, "enforce_walltime", &sc->enforce_walltime))
		return -1;
	json_t *syn = json_object_get(o, "synthetic");
	if ((syn != NULL) == (sc->trace[0] != 0))
		return jv_fail(v, p, "expected exactly one of \"trace\" or \"synthetic\"");
	if (!syn) {
		sc->workload = SCN_TRACE;
		return 0;
	}
	sc->workload = SCN_SYNTH;
	return load_synth(v, &sc->cl.cat, syn, "$.workload.synthetic", &sc->synth);
}

int synth_load_file(const char *path, struct synth_cfg *out, char *err, size_t errlen)
{
	struct jv v = { .file = path, .err = err, .errlen = errlen };
	struct catalog cat;
	json_error_t je;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!root) {
		if (je.line <= 0)
			snprintf(err, errlen, "%s: %s", path, je.text);
		else
			snprintf(err, errlen, "%s:%d:%d: %s", path, je.line, je.column, je.text);
		return -1;
	}
	int rc = -1;
	if (catalog_load_builtin(&cat, err, errlen) == 0) {
		rc = load_synth(&v, &cat, root, "$", out);
		catalog_fini(&cat);
	}
	json_decref(root);
	return rc;
}

/* "from_inventory": the settings and the mapping; the cluster is built by
 * scenario_build_inventory. Mapped GPUs must be in the catalog by now. */
static int load_inventory(struct jv *v, struct scenario *sc, const json_t *fi)
{
	const char *p = "$.from_inventory";
	char fmt[16] = "", q[256];
	long long npr = 32;
	double mem_gib = 0;
	sc->inv_rack_kw = 15;
	inv_map_init(&sc->inv_map);
	if (jv_object(v, fi, p, fi_keys) ||
	    jv_str(v, fi, p, "file", true, sc->inv_file, sizeof sc->inv_file) ||
	    jv_str(v, fi, p, "format", true, fmt, sizeof fmt) ||
	    jv_num(v, fi, p, "mem_gib", false, 0.001, 1e9, &mem_gib) ||
	    jv_int(v, fi, p, "nodes_per_rack", false, 1, INV_RACK_NODES_MAX, &npr) ||
	    jv_num(v, fi, p, "rack_kw", false, 0.001, INV_RACK_KW_MAX, &sc->inv_rack_kw))
		return -1;
	if (inv_format_parse(fmt, &sc->inv_format))
		return jv_fail(v, "$.from_inventory.format", "expected \"openb\", \"pai\" or \"spot\", got \"%s\"", fmt);
	json_t *gm = json_object_get(fi, "gpu_models");
	if (!gm)
		return jv_fail(v, "$.from_inventory.gpu_models", "missing (expected an object of inventory model: catalog GPU)");
	if (!json_is_object(gm))
		return jv_fail(v, "$.from_inventory.gpu_models", "expected an object, got %s", jtype(gm));
	const char *k;
	json_t *e;
	json_object_foreach(gm, k, e) {
		char msg[384];
		snprintf(q, sizeof q, "$.from_inventory.gpu_models.%s", k);
		if (!json_is_string(e))
			return jv_fail(v, q, "expected a catalog GPU name, got %s", jtype(e));
		if (inv_map_add(&sc->inv_map, k, json_string_value(e), msg, sizeof msg))
			return jv_fail(v, q, "%s", msg);
		if (catalog_find_gpu(&sc->cl.cat, json_string_value(e)) < 0)
			return jv_fail(v, q, "unknown catalog GPU \"%s\" (define it under $.catalog.gpus; "
			               "docs/traces.md, Node inventories)", json_string_value(e));
	}
	sc->inv_map.mem_mib = (int64_t)llround(mem_gib * 1024);
	sc->inv_nodes_per_rack = (int32_t)npr;
	sc->from_inventory = true;
	return 0;
}

static int load_root(struct jv *v, struct scenario *sc, const json_t *root)
{
	long long seed = 1;
	double sample_s = 600, horizon_d = 0;
	if (jv_object(v, root, "$", top_keys) ||
	    jv_str(v, root, "$", "name", true, sc->name, sizeof sc->name) ||
	    jv_int(v, root, "$", "seed", false, 0, LLONG_MAX, &seed) ||
	    jv_str(v, root, "$", "policy", false, sc->policy, sizeof sc->policy) ||
	    jv_num(v, root, "$", "sample_interval_s", false, 0, 1e9, &sample_s) ||
	    jv_num(v, root, "$", "horizon_days", false, 0, 1e5, &horizon_d))
		return -1;
	json_t *d = json_object_get(root, "description");
	if (d && !json_is_string(d))
		return jv_fail(v, "$.description", "expected a string, got %s", jtype(d));
	sc->seed = (uint64_t)seed;
	sc->sample_every_us = simtime_from_s(sample_s);
	sc->horizon_us = horizon_d > 0 ? simtime_from_s(horizon_d * 86400) : SIMTIME_INF;
	if (!sc->policy[0])
		snprintf(sc->policy, sizeof sc->policy, "easy");

	json_t *pp = json_object_get(root, "policy_params");
	if (pp) {
		if (!json_is_object(pp))
			return jv_fail(v, "$.policy_params", "expected an object, got %s", jtype(pp));
		const char *k;
		json_t *e;
		json_object_foreach(pp, k, e) {
			struct scn_param *sp = &sc->params[sc->nparams];
			if (sc->nparams == SCN_MAX_PARAMS)
				return jv_fail(v, "$.policy_params", "too many parameters");
			snprintf(sp->path, sizeof sp->path, "$.policy_params.%s", k);
			if (!json_is_number(e))
				return jv_fail(v, sp->path, "expected a number, got %s", jtype(e));
			snprintf(sp->name, sizeof sp->name, "%s", k);
			sp->value = json_number_value(e);
			sc->nparams++;
		}
	}

	json_t *cat = json_object_get(root, "catalog");
	if (cat) {
		static const char *const ck[] = { "gpus", "cpus", NULL };
		if (jv_object(v, cat, "$.catalog", ck) || catalog_merge(v, &sc->cl.cat, cat, "$.catalog"))
			return -1;
	}
	json_t *fi = json_object_get(root, "from_inventory");
	json_t *types = jv_array(v, root, "$", "node_types", !fi), *e;
	if (!types && (!fi || json_object_get(root, "node_types")))
		return -1;
	size_t i;
	json_array_foreach(types, i, e) {
		char p[64];
		idxpath(p, sizeof p, "$.node_types", i);
		if (load_type(v, &sc->cl, e, p))
			return -1;
	}
	json_t *racks = json_object_get(root, "racks"), *ft = json_object_get(root, "from_trace");
	if ((racks != NULL) + (ft != NULL) + (fi != NULL) != 1)
		return jv_fail(v, "$", "expected exactly one of \"racks\", \"from_trace\" or \"from_inventory\"");
	if (fi) {
		if (load_inventory(v, sc, fi))
			return -1;
	} else if (racks) {
		if (!json_is_array(racks) || json_array_size(racks) == 0)
			return jv_fail(v, "$.racks", "expected a non-empty array");
		json_array_foreach(racks, i, e) {
			char p[64];
			idxpath(p, sizeof p, "$.racks", i);
			if (load_rack(v, &sc->cl, e, p))
				return -1;
		}
		if (sc->cl.nnodes == 0)
			return jv_fail(v, "$.racks", "no nodes");
	} else {
		long long npr = 32;
		sc->ft_rack_kw = 15;
		if (jv_object(v, ft, "$.from_trace", ft_keys) ||
		    jv_str(v, ft, "$.from_trace", "type", true, sc->ft_type, sizeof sc->ft_type) ||
		    jv_int(v, ft, "$.from_trace", "nodes_per_rack", false, 1, 100000, &npr) ||
		    jv_num(v, ft, "$.from_trace", "rack_kw", false, 0.001, 1e4, &sc->ft_rack_kw))
			return -1;
		if (find_type(&sc->cl, sc->ft_type) < 0)
			return jv_fail(v, "$.from_trace.type", "unknown node type \"%s\"", sc->ft_type);
		sc->ft_nodes_per_rack = (int32_t)npr;
		sc->from_trace = true;
	}
	json_t *wl = json_object_get(root, "workload");
	if (!wl)
		return jv_fail(v, "$", "missing key \"workload\"");
	if (load_workload(v, sc, wl))
		return -1;
	if (sc->from_trace && sc->workload != SCN_TRACE)
		return jv_fail(v, "$.from_trace", "needs a \"trace\" workload to size the cluster from");
	return 0;
}

int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen)
{
	struct jv v = { .err = err, .errlen = errlen };
	json_t *root = NULL;
	json_error_t je;
	memset(sc, 0, sizeof *sc);
	cluster_init(&sc->cl);
	if (path) {
		snprintf(sc->file, sizeof sc->file, "%s", path);
		const char *slash = strrchr(path, '/');
		if (slash)
			snprintf(sc->dir, sizeof sc->dir, "%.*s", (int)(slash - path), path);
		else
			snprintf(sc->dir, sizeof sc->dir, ".");
		root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
		if (!root) {
			if (je.line <= 0)
				snprintf(err, errlen, "%s: %s", path, je.text);
			else
				snprintf(err, errlen, "%s:%d:%d: %s", path, je.line, je.column, je.text);
			goto fail;
		}
	} else {
		snprintf(sc->file, sizeof sc->file, "scenarios/guian.json (embedded)");
		snprintf(sc->dir, sizeof sc->dir, ".");
		if (!(root = parse_text(hl_embed_guian, sc->file, err, errlen)))
			goto fail;
	}
	v.file = sc->file;
	if (catalog_load_builtin(&sc->cl.cat, err, errlen))
		goto fail;
	if (load_root(&v, sc, root))
		goto fail;
	if (!sc->from_trace && !sc->from_inventory && cluster_finish(&sc->cl)) {
		snprintf(err, errlen, "%s: out of memory", sc->file);
		goto fail;
	}
	json_decref(root);
	return 0;
fail:
	json_decref(root);
	scenario_free(sc);
	return -1;
}

void scenario_free(struct scenario *sc)
{
	cluster_fini(&sc->cl);
}

void scenario_trace_path(const struct scenario *sc, const char *traces_dir, char *out, size_t len)
{
	if (strncmp(sc->trace, "$TRACES/", 8) == 0)
		snprintf(out, len, "%s/%s", traces_dir, sc->trace + 8);
	else if (sc->trace[0] == '/')
		snprintf(out, len, "%s", sc->trace);
	else
		snprintf(out, len, "%s/%s", sc->dir, sc->trace);
}

int scenario_build_inventory(struct scenario *sc, const char *traces_dir, char *err, size_t errlen)
{
	char path[PATH_MAX + 64], msg[1024];
	if (strncmp(sc->inv_file, "$TRACES/", 8) == 0)
		snprintf(path, sizeof path, "%s/%s", traces_dir, sc->inv_file + 8);
	else if (sc->inv_file[0] == '/')
		snprintf(path, sizeof path, "%s", sc->inv_file);
	else
		snprintf(path, sizeof path, "%s/%s", sc->dir, sc->inv_file);
	if (inventory_cluster_build(path, sc->inv_format, &sc->inv_map, sc->inv_nodes_per_rack,
	                            sc->inv_rack_kw, &sc->cl, msg, sizeof msg)) {
		snprintf(err, errlen, "%s: %s", sc->file, msg);
		return -1;
	}
	return 0;
}

int scenario_size_from_trace(struct scenario *sc, const struct workload *w, char *err, size_t errlen)
{
	int t = find_type(&sc->cl, sc->ft_type);
	int64_t procs = w->max_procs, nodes = w->max_nodes, cores = sc->cl.types[t].cores;
	if (procs <= 0 && nodes <= 0) {
		snprintf(err, errlen, "%s: $.from_trace: the trace has neither MaxProcs nor MaxNodes in its header",
		         sc->file);
		return -1;
	}
	if (procs > 0 && nodes > 0) {
		/* Both known: the header decides the cores of a node. */
		if (procs % nodes) {
			snprintf(err, errlen, "%s: $.from_trace: the trace's MaxProcs %lld is not a multiple of its MaxNodes %lld",
			         sc->file, (long long)procs, (long long)nodes);
			return -1;
		}
		cores = procs / nodes;
	} else if (procs > 0) {
		/* Only MaxProcs: as many nodes of the type's cores as make it up. */
		if (procs % cores) {
			snprintf(err, errlen, "%s: $.from_trace: the trace's MaxProcs %lld is not a multiple of "
			         "node type \"%s\"'s %lld cores (the header has no MaxNodes)",
			         sc->file, (long long)procs, sc->ft_type, (long long)cores);
			return -1;
		}
		nodes = procs / cores;
	}
	if (nodes > 1000000 || cores > INT32_MAX) {
		snprintf(err, errlen, "%s: $.from_trace: the trace header asks for %lld nodes of %lld cores, more than hetlab models",
		         sc->file, (long long)nodes, (long long)cores);
		return -1;
	}
	sc->cl.types[t].cores = (int32_t)cores;
	for (int64_t left = nodes, r = 0; left > 0; r++) {
		char name[HL_NAME_MAX];
		int n = left < sc->ft_nodes_per_rack ? (int)left : sc->ft_nodes_per_rack;
		snprintf(name, sizeof name, "r%02lld", (long long)r + 1);
		int rk = cluster_add_rack(&sc->cl, name, sc->ft_rack_kw * 1000, COOL_AIR);
		if (rk < 0 || cluster_add_nodes(&sc->cl, rk, t, n)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		left -= n;
	}
	if (cluster_finish(&sc->cl)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}
