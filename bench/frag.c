/* bench/frag — the FGD paper's whole protocol: every openb pod list of the
 * trace directory that the published results cover (the paper's 17 lists
 * where present; --all: every list there) x 6 policies x seeds 42-51 at
 * tune 1.3, on -j worker processes (frag_run_all). Prints the wall time,
 * runs per second and the wall time the 1,020 runs of the paper's protocol
 * take at that rate; and, with --runs 1 --default, the old default-list
 * figure (60 runs) beside it.
 * usage: frag [--runs N] [--traces DIR] [-j N] [--all]; exit 77 when the
 * trace directory is missing. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "experiments/frag.h"
#include "experiments/fragref.h"
#include "bench/benchutil.h"

#define MAX_LISTS 64

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	int runs = 1, jobs = 2, all = 0;
	const char *dir = "../shared/traces/alibaba-gpu-v2023-openb";
	const char *env = getenv("HETLAB_TRACES");
	char dbuf[4096];
	if (env) {
		snprintf(dbuf, sizeof dbuf, "%s/alibaba-gpu-v2023-openb", env);
		dir = dbuf;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--all") == 0)
			all = 1;
		else if (i + 1 < argc && strcmp(argv[i], "--runs") == 0)
			runs = atoi(argv[++i]);
		else if (i + 1 < argc && strcmp(argv[i], "--traces") == 0)
			dir = argv[++i];
		else if (i + 1 < argc && strcmp(argv[i], "-j") == 0)
			jobs = atoi(argv[++i]);
	}
	if (runs < 1 || runs > BENCH_MAX_RUNS)
		runs = 1;
	if (jobs < 1 || jobs > 64)
		jobs = 2;
	char np[4096], err[1024];
	snprintf(np, sizeof np, "%s/openb_node_list_gpu_node.csv", dir);
	DIR *d = opendir(dir);
	if (!d || access(np, R_OK))
		return 77;
	char *list[MAX_LISTS];
	int nl = 0;
	for (struct dirent *e; (e = readdir(d)) && nl < MAX_LISTS;) {
		char name[256];
		if (strncmp(e->d_name, "openb_pod_list_", 15) != 0)
			continue;
		fragref_list_name(e->d_name, name, sizeof name);
		if (all || fragref_has_list(name))
			list[nl++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(list, (size_t)nl, sizeof *list, cmp_str);
	if (nl == 0)
		return 77;
	uint64_t seeds[10];
	for (int s = 0; s < 10; s++)
		seeds[s] = 42 + (uint64_t)s;
	int ngp = 0;
	while (gpushare_table[ngp])
		ngp++;
	struct frag_result *res = calloc((size_t)(ngp * 10), sizeof *res);
	if (!res)
		return 1;
	double t[BENCH_MAX_RUNS], alloc = 0;
	int n = 0;
	for (int k = 0; k < runs; k++) {
		double t0 = bench_now_s();
		alloc = 0;
		n = 0;
		for (int l = 0; l < nl; l++) {
			char pp[4096];
			snprintf(pp, sizeof pp, "%s/%s", dir, list[l]);
			struct frag_input in;
			if (frag_input_load(np, pp, &in, err, sizeof err) < 0 ||
			    frag_run_all(&in, gpushare_table, ngp, seeds, 10, 1.3, jobs, res, err,
			                 sizeof err) < 0) {
				fprintf(stderr, "frag: %s\n", err);
				return 1;
			}
			for (int i = 0; i < ngp * 10; i++)
				alloc += (double)res[i].alloc_milli;
			n += ngp * 10;
			frag_input_free(&in);
		}
		t[k] = bench_now_s() - t0;
	}
	double wall = bench_median(t, runs);
	struct rusage ru, rc;
	getrusage(RUSAGE_SELF, &ru);
	getrusage(RUSAGE_CHILDREN, &rc);
	double cpu = (double)(ru.ru_utime.tv_sec + rc.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	                      rc.ru_stime.tv_sec) +
	             (double)(ru.ru_utime.tv_usec + rc.ru_utime.tv_usec + ru.ru_stime.tv_usec +
	                      rc.ru_stime.tv_usec) / 1e6;
	printf("frag: FGD protocol, %d pod lists x %d policies x seeds 42-51 = %d runs, -j %d\n", nl,
	       ngp, n, jobs);
	printf("  wall %.2f s (median of %d), %.1f runs/s; the paper's 1020 runs at this rate: "
	       "%.1f s; peak RSS %.1f MiB, checksum %.0f\n", wall, runs, n / wall, 1020 / (n / wall),
	       (double)ru.ru_maxrss / 1024, alloc);
	/* On a shared machine the wall time depends on the others' load; the
	 * CPU time does not: the 1020 runs need this much over the cores. */
	printf("  cpu %.1f s in all runs (%.3f s a run): the paper's 1020 runs need %.1f s of CPU, "
	       "%.1f s of wall on %d free cores\n", cpu, cpu / (n * runs), 1020 * cpu / (n * runs),
	       1020 * cpu / (n * runs) / jobs, jobs);
	for (int l = 0; l < nl; l++)
		free(list[l]);
	free(res);
	return 0;
}
