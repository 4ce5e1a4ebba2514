/* catalog — the hardware catalog: the built-in GPU and CPU models
 * (scenarios/catalog/ gpus.json and cpus.json, compiled into the binary) and a scenario's
 * additions ("catalog"), into struct catalog (sim/cluster.h). See
 * catalog.h and docs/catalog.md. */
#include "config/catalog.h"
#include "config/speedcfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most CPU models in the catalog, built-in and the scenario's together. */
#define CAT_MAX_CPUS 1024

extern const char hl_embed_gpus[], hl_embed_cpus[];


static const char *const gpu_keys[] = { "name", "vendor_name", "mem_gib", "tdp_w", "idle_w",
	"fp16_tflops", "fp8_tflops", "rel_speed", "mig", "gfd", "source", "speed", "speed_source", NULL };
static const char *const gfd_keys[] = { "product", "family", "compute_capability", "pci_class", NULL };

/* "gfd": what GPU Feature Discovery labels a node with this card. */
static int load_gfd(struct jv *v, const json_t *o, const char *p, struct gpu_model *g)
{
	const json_t *f = json_object_get(o, "gfd");
	if (!f)
		return 0;
	char q[256], cc[16] = "";
	snprintf(q, sizeof q, "%s.gfd", p);
	if (jv_object(v, f, q, gfd_keys) || jv_str(v, f, q, "product", true, g->product, sizeof g->product) ||
	    jv_str(v, f, q, "family", true, g->family, sizeof g->family) ||
	    jv_str(v, f, q, "compute_capability", true, cc, sizeof cc) ||
	    jv_str(v, f, q, "pci_class", true, g->pci_class, sizeof g->pci_class))
		return -1;
	int used = 0;
	if (sscanf(cc, "%d.%d%n", &g->cc_major, &g->cc_minor, &used) != 2 || cc[used] || g->cc_major < 1 ||
	    g->cc_major > 99 || g->cc_minor < 0 || g->cc_minor > 99) {
		snprintf(q, sizeof q, "%s.gfd.compute_capability", p);
		return jv_fail(v, q, "expected MAJOR.MINOR (CUDA's, such as \"9.0\"), got \"%s\"", cc);
	}
	if (strlen(g->pci_class) != 4 || strspn(g->pci_class, "0123456789abcdefABCDEF") != 4) {
		snprintf(q, sizeof q, "%s.gfd.pci_class", p);
		return jv_fail(v, q, "expected 4 hex digits (0302: 3D controller, 0300: VGA), got \"%s\"", g->pci_class);
	}
	for (char *c = g->product; *c; c++)
		if (*c == ' ') {
			snprintf(q, sizeof q, "%s.gfd.product", p);
			return jv_fail(v, q, "expected NVML's name with blanks made '-' (as GFD writes it), got \"%s\"",
			               g->product);
		}
	return 0;
}
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
	return load_gfd(v, o, p, g) || catalog_speed_load(v, o, p, g) ? -1 : 0;
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
int catalog_merge_json(struct jv *v, struct catalog *cat, const json_t *o, const char *path)
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
				if (cat->ncpus >= CAT_MAX_CPUS)
					return jv_fail(v, p, "too many CPU models (at most %d)", CAT_MAX_CPUS);
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
	    jv_object(&v, g, "$", top_gpu) || catalog_merge_json(&v, cat, g, "$"))
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
	    jv_object(&v, c, "$", top_cpu) || catalog_merge_json(&v, cat, c, "$"))
		goto out;
	rc = 0;
out:
	json_decref(g);
	json_decref(c);
	if (rc)
		catalog_fini(cat);
	return rc;
}

