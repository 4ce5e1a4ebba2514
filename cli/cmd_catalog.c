/* hetlab catalog — lists the built-in hardware catalog (docs/catalog.md):
 * the names a scenario's node types use, with the figures the models read. */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "traces/scenario.h"

#define CATALOG_USAGE "usage: hetlab catalog [--json]\n"

static int print_json(const struct catalog *cat)
{
	json_t *root = json_object(), *gpus = json_array(), *cpus = json_array();
	for (int i = 0; i < cat->ngpus; i++) {
		const struct gpu_model *g = &cat->gpus[i];
		json_array_append_new(gpus, json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:b, s:s}",
		    "name", g->name, "vendor_name", g->vendor_name, "mem_gib", (double)g->mem_mib / 1024,
		    "tdp_w", g->tdp_w, "idle_w", g->idle_w, "fp16_tflops", g->fp16_tflops,
		    "fp8_tflops", g->fp8_tflops, "rel_speed", g->rel_speed, "mig", g->mig, "source", g->source));
	}
	for (int i = 0; i < cat->ncpus; i++) {
		const struct cpu_model *c = &cat->cpus[i];
		json_array_append_new(cpus, json_pack("{s:s, s:s, s:i, s:i, s:f, s:f, s:f, s:b, s:b, s:s}",
		    "name", c->name, "vendor_name", c->vendor_name, "cores", c->cores, "threads", c->threads,
		    "base_ghz", c->base_ghz, "tdp_w", c->tdp_w, "idle_w", c->idle_w, "avx512", c->avx512,
		    "amx", c->amx, "source", c->source));
	}
	json_object_set_new(root, "gpus", gpus);
	json_object_set_new(root, "cpus", cpus);
	int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) == 0 ? 0 : 1;
	putchar('\n');
	json_decref(root);
	return rc;
}

int cmd_catalog(int argc, char **argv)
{
	bool as_json = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			as_json = true;
		} else {
			fprintf(stderr, "hetlab catalog: unknown argument '%s'\n" CATALOG_USAGE, argv[i]);
			return 2;
		}
	}
	struct catalog cat;
	char err[512];
	if (catalog_load_builtin(&cat, err, sizeof err)) {
		fprintf(stderr, "hetlab catalog: %s\n", err);
		return 1;
	}
	int rc = 0;
	if (as_json) {
		rc = print_json(&cat);
	} else {
		printf("GPUs (per card; FP16/FP8 dense tensor TFLOPS; speed relative to A100-SXM-80GB)\n");
		printf("  %-16s %7s %7s %7s %8s %8s %6s %4s\n", "name", "mem GiB", "TDP W", "idle W",
		       "FP16", "FP8", "speed", "MIG");
		for (int i = 0; i < cat.ngpus; i++) {
			const struct gpu_model *g = &cat.gpus[i];
			printf("  %-16s %7.0f %7.0f %7.0f %8.1f %8.1f %6.3g %4s\n", g->name,
			       (double)g->mem_mib / 1024, g->tdp_w, g->idle_w, g->fp16_tflops,
			       g->fp8_tflops, g->rel_speed, g->mig ? "yes" : "no");
		}
		printf("\nCPUs (per socket)\n");
		printf("  %-14s %6s %8s %6s %7s %7s %8s %4s\n", "name", "cores", "threads", "GHz",
		       "TDP W", "idle W", "AVX-512", "AMX");
		for (int i = 0; i < cat.ncpus; i++) {
			const struct cpu_model *c = &cat.cpus[i];
			printf("  %-14s %6d %8d %6.2f %7.0f %7.0f %8s %4s\n", c->name, c->cores, c->threads,
			       c->base_ghz, c->tdp_w, c->idle_w, c->avx512 ? "yes" : "no", c->amx ? "yes" : "no");
		}
		printf("\nSources: docs/catalog.md; a scenario's \"catalog\" block adds or replaces models.\n");
	}
	catalog_fini(&cat);
	return rc;
}
