/* hetlab catalog — lists the built-in hardware catalog (docs/catalog.md):
 * the names a scenario's node types use, with the figures the models read.
 * --mig [CARD] lists the MIG geometry instead (docs/catalog.md "MIG
 * geometry"): each MIG-capable card's GPU-instance profiles, and for one
 * CARD its source and its number of full layouts. --speed prints the GPUs'
 * relative-speed table by job class and precision instead (docs/catalog.md
 * "Speed table"); --json always carries it, as "speed" of each GPU. */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "sim/mig.h"
#include "config/migcfg.h"
#include "config/scenario.h"


/* A GPU's speed table: {"training": {"fp16": x, "fp8": y, "fp32": z}, ...};
 * null for a cell the catalog leaves out (rel_speed applies there). */
static json_t *speed_json(const struct gpu_model *g)
{
	json_t *o = json_object();
	for (int c = 0; c < JOB_NCLASS; c++) {
		json_t *row = json_object();
		for (int p = 0; p < PREC_N; p++)
			json_object_set_new(row, precision_name((enum precision)p),
			                    g->speed[c][p] > 0 ? json_real(g->speed[c][p]) : json_null());
		json_object_set_new(o, job_class_name((enum job_class)c), row);
	}
	return o;
}

/* hetlab catalog --speed: models x class/precision. */
static void print_speed(const struct catalog *cat)
{
	printf("GPU relative speed by job class and precision (A100-SXM-80GB = 1; \"-\": not given,\n"
	       "rel_speed applies; on a card without FP8 an fp8 job runs in fp16)\n");
	printf("  %-16s", "");
	for (int c = 0; c < JOB_NCLASS; c++)   /* each class spans three 6-wide columns */
		printf(c < JOB_NCLASS - 1 ? " %-17s" : " %s", job_class_name((enum job_class)c));
	printf("\n  %-16s", "name");
	for (int c = 0; c < JOB_NCLASS; c++)
		for (int p = 0; p < PREC_N; p++)
			printf(" %5s", precision_name((enum precision)p));
	putchar('\n');
	for (int i = 0; i < cat->ngpus; i++) {
		const struct gpu_model *g = &cat->gpus[i];
		printf("  %-16s", g->name);
		for (int c = 0; c < JOB_NCLASS; c++)
			for (int p = 0; p < PREC_N; p++) {
				if (g->speed[c][p] > 0)
					printf(" %5.3g", g->speed[c][p]);
				else
					printf(" %5s", "-");
			}
		putchar('\n');
	}
	printf("\nSources of every figure: docs/catalog.md (Speed table) and each entry's \"speed_source\"\n"
	       "in scenarios/catalog/gpus.json.\n");
}

static int print_json(const struct catalog *cat)
{
	json_t *root = json_object(), *gpus = json_array(), *cpus = json_array();
	for (int i = 0; i < cat->ngpus; i++) {
		const struct gpu_model *g = &cat->gpus[i];
		json_array_append_new(gpus, json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:b, s:s}",
		    "name", g->name, "vendor_name", g->vendor_name, "mem_gib", (double)g->mem_mib / 1024,
		    "tdp_w", g->tdp_w, "idle_w", g->idle_w, "fp16_tflops", g->fp16_tflops,
		    "fp8_tflops", g->fp8_tflops, "rel_speed", g->rel_speed, "mig", g->mig, "source", g->source));
		json_object_set_new(json_array_get(gpus, json_array_size(gpus) - 1), "speed", speed_json(g));
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

static void starts_text(const struct mig_profile *p, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int s = 0; s < MIG_SLICES_MAX && off < len; s++)
		if (p->start_mask >> s & 1)
			off += (size_t)snprintf(buf + off, len - off, "%s%d", off ? "," : "", s);
}

static json_t *mig_card_json(const struct mig_card *c, bool one)
{
	json_t *profiles = json_array();
	for (int i = 0; i < c->nprofiles; i++) {
		const struct mig_profile *p = &c->profiles[i];
		json_t *starts = json_array();
		for (int s = 0; s < MIG_SLICES_MAX; s++)
			if (p->start_mask >> s & 1)
				json_array_append_new(starts, json_integer(s));
		json_array_append_new(profiles, json_pack("{s:s, s:i, s:i, s:f, s:i, s:o, s:b}",
		    "name", p->name, "compute_slices", p->compute_slices, "memory_slices", p->memory_slices,
		    "mem_gib", p->mem_gib, "max_instances", p->max_instances, "starts", starts,
		    "media_ext", p->media_ext));
	}
	json_t *o = json_pack("{s:s, s:i, s:i, s:o, s:s}", "gpu", c->gpu, "compute_slices", c->compute_slices,
	                      "memory_slices", c->memory_slices, "profiles", profiles, "source", c->source);
	if (one) {
		json_object_set_new(o, "full_layouts", json_integer(mig_enumerate(c, false, NULL, NULL)));
		json_object_set_new(o, "full_layouts_with_media_ext", json_integer(mig_enumerate(c, true, NULL, NULL)));
	}
	return o;
}

static void mig_card_text(const struct mig_card *c, bool one)
{
	printf("%s (%d compute slices, %d memory slices)\n", c->gpu, c->compute_slices, c->memory_slices);
	printf("  %-12s %7s %6s %7s %4s  %s\n", "profile", "compute", "memory", "mem GiB", "max", "starts");
	for (int i = 0; i < c->nprofiles; i++) {
		const struct mig_profile *p = &c->profiles[i];
		char starts[32];
		starts_text(p, starts, sizeof starts);
		printf("  %-12s %7d %6d %7g %4d  %s\n", p->name, p->compute_slices, p->memory_slices,
		       p->mem_gib, p->max_instances, starts);
	}
	if (one) {
		printf("  full layouts: %ld (%ld counting the +me variants)\n", mig_enumerate(c, false, NULL, NULL),
		       mig_enumerate(c, true, NULL, NULL));
		printf("  source: %s\n", c->source);
	}
}

/* hetlab catalog --mig [CARD] [--json] */
static int print_mig(const char *only, bool as_json)
{
	static struct mig_geometry geo;   /* about 40 KB: kept off the stack */
	char err[512];
	if (mig_load_builtin(&geo, err, sizeof err)) {
		fprintf(stderr, "hetlab catalog: %s\n", err);
		return 1;
	}
	const struct mig_card *one = NULL;
	if (only && !(one = mig_find_card(&geo, only))) {
		char known[512] = "";
		size_t off = 0;
		for (int i = 0; i < geo.ncards && off < sizeof known; i++)
			off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", i ? ", " : "", geo.cards[i].gpu);
		fprintf(stderr, "hetlab catalog: --mig: no MIG geometry for \"%s\" (cards: %s)\n", only, known);
		return 1;
	}
	if (as_json) {
		json_t *cards = json_array();
		for (int i = 0; i < geo.ncards; i++)
			if (!one || one == &geo.cards[i])
				json_array_append_new(cards, mig_card_json(&geo.cards[i], one != NULL));
		json_t *root = json_pack("{s:o}", "mig", cards);
		int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) == 0 ? 0 : 1;
		putchar('\n');
		json_decref(root);
		return rc;
	}
	printf("MIG geometry: a profile takes its compute slices and consecutive memory slices\n"
	       "from one of its starts (memory-slice positions)\n");
	for (int i = 0; i < geo.ncards; i++)
		if (!one || one == &geo.cards[i]) {
			putchar('\n');
			mig_card_text(&geo.cards[i], one != NULL);
		}
	printf("\nSources and layout rules: docs/catalog.md (MIG geometry)%s.\n",
	       one ? "" : "; `hetlab catalog --mig CARD` adds a card's source and full-layout count");
	return 0;
}

int cmd_catalog(int argc, char **argv)
{
	bool as_json = false, mig = false, speed = false;
	const char *mig_card = NULL;
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "catalog", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_JSON: as_json = true; break;
		case OPT_SPEED: speed = true; break;
		case OPT_MIG:
			mig = true;
			mig_card = ap.val;   /* NULL: every card */
			break;
		case CLI_POS: return cli_usage(&ap, "unknown argument '%s'", ap.val);
		}
	if (mig && speed)
		return cli_usage(&ap, "--speed and --mig are exclusive");
	if (mig)
		return print_mig(mig_card, as_json);
	struct catalog cat;
	char err[512];
	if (catalog_load_builtin(&cat, err, sizeof err)) {
		fprintf(stderr, "hetlab catalog: %s\n", err);
		return 1;
	}
	int rc = 0;
	if (as_json) {
		rc = print_json(&cat);
	} else if (speed) {
		print_speed(&cat);
	} else {
		printf("GPUs (per card; FP16/FP8: dense tensor TFLOPS, \"-\": no FP8)\n"
		       "  train: what an fp16 training job runs at, relative to A100-SXM-80GB (the speed\n"
		       "         table; --speed has every class and precision)\n"
		       "  peak:  rel_speed, the FP16 peak ratio, used only where the table has no cell\n");
		printf("  %-16s %7s %7s %7s %8s %8s %6s %6s %4s\n", "name", "mem GiB", "TDP W", "idle W",
		       "FP16", "FP8", "train", "peak", "MIG");
		for (int i = 0; i < cat.ngpus; i++) {
			const struct gpu_model *g = &cat.gpus[i];
			char fp8[16], train[16];
			if (g->fp8_tflops > 0)
				snprintf(fp8, sizeof fp8, "%.1f", g->fp8_tflops);
			else
				snprintf(fp8, sizeof fp8, "-");
			double tr = g->speed[JOB_TRAINING][PREC_FP16];
			snprintf(train, sizeof train, "%.3g", tr > 0 ? tr : g->rel_speed);
			printf("  %-16s %7.0f %7.0f %7.0f %8.1f %8s %6s %6.3g %4s\n", g->name,
			       (double)g->mem_mib / 1024, g->tdp_w, g->idle_w, g->fp16_tflops, fp8, train,
			       g->rel_speed, g->mig ? "yes" : "no");
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
