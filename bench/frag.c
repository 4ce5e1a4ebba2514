/* bench/frag — the whole FGD fragmentation protocol (6 policies × seeds
 * 42-51 on the default openb trace), wall time and peak RSS.
 * usage: frag [--runs N] [--traces DIR]; exit 77 when the trace is missing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "analysis/frag.h"
#include "bench/benchutil.h"

int main(int argc, char **argv)
{
	int runs = 1;
	const char *dir = "traces/data/alibaba-gpu-v2023-openb";
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--runs") == 0)
			runs = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--traces") == 0)
			dir = argv[i + 1];
	}
	if (runs < 1 || runs > BENCH_MAX_RUNS)
		runs = 1;
	char np[4096], pp[4096], err[1024];
	snprintf(np, sizeof np, "%s/openb_node_list_gpu_node.csv", dir);
	snprintf(pp, sizeof pp, "%s/openb_pod_list_default.csv", dir);
	if (access(np, R_OK) || access(pp, R_OK))
		return 77;
	double t[BENCH_MAX_RUNS];
	static struct frag_result res;
	double alloc = 0;
	int n = 0;
	for (int k = 0; k < runs; k++) {
		double t0 = bench_now_s();
		struct frag_input in;
		if (frag_input_load(np, pp, &in, err, sizeof err) < 0) {
			fprintf(stderr, "frag: %s\n", err);
			return 1;
		}
		alloc = 0;
		n = 0;
		for (int p = 0; gpushare_table[p]; p++)
			for (uint64_t s = 42; s <= 51; s++) {
				if (frag_run(&in, gpushare_table[p], 1.3, s, &res, err, sizeof err) < 0) {
					fprintf(stderr, "frag: %s\n", err);
					return 1;
				}
				alloc += (double)res.alloc_milli;
				n++;
			}
		frag_input_free(&in);
		t[k] = bench_now_s() - t0;
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("frag: FGD protocol, %d runs (6 policies x seeds 42-51, default openb trace)\n", n);
	printf("  wall %.2f s (median of %d), peak RSS %.1f MiB, checksum %.0f\n",
	       bench_median(t, runs), runs, (double)ru.ru_maxrss / 1024, alloc);
	return 0;
}
