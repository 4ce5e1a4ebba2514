/* hetlab frag — the FGD paper's fragmentation experiment (experiments/frag.h). */
#include "cli/args.h"
#include "cli/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments/frag.h"
#include "analysis/tmpclean.h"

int cmd_frag(int argc, char **argv)
{
	const char *dir = "traces/data/alibaba-gpu-v2023-openb", *nodes = NULL, *pods = NULL;
	const char *policies = "random,dotprod,clustering,packing,bestfit,fgd";
	const char *out = "frag.db", *plot = NULL;
	long s0 = 42, s1 = 51, jobs = 1;
	double inflate = 1.3;
	struct cli_args ap;
	int c;
	bool have_dir = false;
	long long jn;
	tmpclean_install();   /* SIGINT, SIGTERM: temporary files removed, the runs stopped */
	cli_args_init(&ap, "frag", argc, argv);
	while ((c = cli_next(&ap)) != CLI_END)
		switch (c) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_NODES: nodes = ap.val; break;
		case OPT_PODS: pods = ap.val; break;
		case OPT_POLICIES: policies = ap.val; break;
		case OPT_OUT: out = ap.val; break;
		case OPT_PLOT: plot = ap.val; break;
		case OPT_JOBS:
			if (cli_long(&ap, 1, 64, &jn))
				return CLI_USAGE;
			jobs = (long)jn;
			break;
		case OPT_INFLATE: {
			char *e;
			inflate = strtod(ap.val, &e);
			if (*e || !(inflate > 0 && inflate < 100))
				return cli_usage(&ap, "--inflate wants a number in (0, 100), not '%s'", ap.val);
			break;
		}
		case OPT_SEEDS: {
			char *e;
			s0 = strtol(ap.val, &e, 10);
			s1 = s0;
			if (*e == '-')
				s1 = strtol(e + 1, &e, 10);
			if (*e || s0 < 0 || s1 < s0 || s1 - s0 >= 1000)
				return cli_usage(&ap, "--seeds wants A or A-B (A <= B, at most 1000), not '%s'", ap.val);
			break;
		}
		case CLI_POS:
			if (have_dir)
				return cli_usage(&ap, "one trace directory ('%s', '%s')", dir, ap.val);
			dir = ap.val;
			have_dir = true;
			break;
		}
	char np[4096], pp[4096], err[1024];
	if (!nodes) {
		snprintf(np, sizeof np, "%s/openb_node_list_gpu_node.csv", dir);
		nodes = np;
	}
	if (!pods) {
		snprintf(pp, sizeof pp, "%s/openb_pod_list_default.csv", dir);
		pods = pp;
	}
	const struct gpu_placement *gp[16];
	int ngp = 0;
	char list[512];
	snprintf(list, sizeof list, "%s", policies);
	for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct gpu_placement *g = gpushare_find(t);
		if (!g || ngp >= 16) {
			fprintf(stderr, "hetlab frag: unknown policy '%s' (known:", t);
			for (int k = 0; gpushare_table[k]; k++)
				fprintf(stderr, " %s", gpushare_table[k]->name);
			fprintf(stderr, ")\n");
			return 2;
		}
		gp[ngp++] = g;
	}
	struct frag_input in;
	if (frag_input_load(nodes, pods, &in, err, sizeof err) < 0) {
		fprintf(stderr, "hetlab frag: %s\n", err);
		return 1;
	}
	int nseeds = (int)(s1 - s0 + 1), nr = ngp * nseeds, rc = 1;
	struct frag_result *res = calloc((size_t)nr, sizeof *res);
	uint64_t *seeds = calloc((size_t)nseeds, sizeof *seeds);
	if (!res || !seeds) {
		fprintf(stderr, "hetlab frag: out of memory\n");
		goto out;
	}
	for (int k = 0; k < nseeds; k++)
		seeds[k] = (uint64_t)(s0 + k);
	fprintf(stderr, "hetlab frag: %d nodes, %lld GPUs, %d pods (%d with a gpu_spec), "
	        "%d typical pod shapes\n", in.nnodes, (long long)(in.gpu_milli_cap / 1000), in.npods,
	        in.constrained, in.typ.n);
	if (frag_run_all(&in, gp, ngp, seeds, nseeds, inflate, (int)jobs, res, err, sizeof err) < 0) {
		fprintf(stderr, "hetlab frag: %s\n", err);
		goto out;
	}
	struct frag_meta m = { .nodes = nodes, .pods = pods, .inflate = inflate,
	                       .gpu_milli_cap = in.gpu_milli_cap };
	tmpclean_stale(out, err, sizeof err);
	int slot = tmpclean_watch(out);   /* its temporary file, removed on SIGINT/SIGTERM */
	int wrc = frag_write_db(out, &m, nr, res, err, sizeof err);
	tmpclean_drop(slot);
	if (wrc < 0) {
		fprintf(stderr, "hetlab frag: %s\n", err);
		goto out;
	}
	printf("seeds %ld-%ld, %s\n", s0, s1, out);
	if (frag_print_table(out, stdout, err, sizeof err) < 0) {
		fprintf(stderr, "hetlab frag: %s\n", err);
		goto out;
	}
	if (plot && frag_plot(out, plot, err, sizeof err) < 0) {
		fprintf(stderr, "hetlab frag: %s\n", err);
		goto out;
	}
	rc = 0;
out:
	free(res);
	free(seeds);
	frag_input_free(&in);
	return rc;
}
