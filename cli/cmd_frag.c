/* hetlab frag — the FGD paper's fragmentation experiment (analysis/frag.h). */
#include "cli/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/frag.h"
#include "analysis/tmpclean.h"

static const char usage[] =
	"usage: hetlab frag [TRACE_DIR] [--nodes FILE] [--pods FILE] [--policies LIST]\n"
	"                   [--seeds A-B] [--inflate 1.3] [--out frag.db] [--plot DIR] [-j N]\n";

int cmd_frag(int argc, char **argv)
{
	const char *dir = "traces/data/alibaba-gpu-v2023-openb", *nodes = NULL, *pods = NULL;
	const char *policies = "random,dotprod,clustering,packing,bestfit,fgd";
	const char *out = "frag.db", *plot = NULL;
	long s0 = 42, s1 = 51, jobs = 1;
	double inflate = 1.3;
	tmpclean_install();   /* SIGINT, SIGTERM: the results file being written is removed */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (a[0] == '-' && !v) {
			fprintf(stderr, "hetlab frag: %s needs a value\n%s", a, usage);
			return 2;
		}
		if (strcmp(a, "--nodes") == 0)
			nodes = argv[++i];
		else if (strcmp(a, "--pods") == 0)
			pods = argv[++i];
		else if (strcmp(a, "--policies") == 0)
			policies = argv[++i];
		else if (strcmp(a, "--out") == 0)
			out = argv[++i];
		else if (strcmp(a, "--plot") == 0)
			plot = argv[++i];
		else if (strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0) {
			char *e;
			jobs = strtol(argv[++i], &e, 10);
			if (*e || jobs < 1 || jobs > 64) {
				fprintf(stderr, "hetlab frag: -j wants a number of processes 1..64, not '%s'\n",
				        argv[i]);
				return 2;
			}
		}
		else if (strcmp(a, "--inflate") == 0) {
			char *e;
			inflate = strtod(argv[++i], &e);
			if (*e || !(inflate > 0 && inflate < 100)) {
				fprintf(stderr, "hetlab frag: --inflate wants a number in (0, 100), not '%s'\n",
				        argv[i]);
				return 2;
			}
		} else if (strcmp(a, "--seeds") == 0) {
			char *e;
			s0 = strtol(argv[++i], &e, 10);
			s1 = s0;
			if (*e == '-')
				s1 = strtol(e + 1, &e, 10);
			if (*e || s0 < 0 || s1 < s0 || s1 - s0 >= 1000) {
				fprintf(stderr, "hetlab frag: --seeds wants A or A-B (A <= B, at most 1000), "
				        "not '%s'\n", argv[i]);
				return 2;
			}
		} else if (a[0] == '-') {
			fprintf(stderr, "hetlab frag: unknown option '%s'\n%s", a, usage);
			return 2;
		} else {
			dir = a;
		}
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
