/* sweep — how well `hetlab sweep -j N` uses N cores: the 40-run grid of
 * bench/sweep40.json (the default scenario, EASY and conservative, two
 * arrival rates, 10 seeds) run with -j 1 and with -j N, one after the other
 * in each round; efficiency = T(-j 1) / (N x T(-j N)), wall time (target:
 * at least 90 %).
 *
 *   sweep HETLAB [--runs R] [-j N]
 *
 * Each sweep writes into a fresh temporary directory, removed on exit. The
 * machine's load average is printed beside the figures: on a shared machine
 * other processes take cores too, and the efficiency measured is then that
 * of the cores the sweep could get; the CPU time of each sweep (itself and
 * every run) shows whether running N at a time adds work. Exit status 0 whether or not the target
 * is met; 1 when a sweep fails; 2 on bad arguments. Run from the repository
 * root. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benchutil.h"
#include "bench/spawn.h"

#define USAGE "usage: sweep HETLAB [--runs R] [-j N]\n"

/* One sweep: its wall seconds (-1 on failure), its CPU seconds (the sweep
 * and every run it waited for) in *cpu. */
static double one(const char *tmpdir, const char *hetlab, int j, int round, double *cpu)
{
	char out[300], jv[16];
	snprintf(out, sizeof out, "%s/j%d-r%d", tmpdir, j, round);
	snprintf(jv, sizeof jv, "%d", j);
	char *av[] = { (char *)hetlab, (char *)"sweep", (char *)"bench/sweep40.json", (char *)"-j", jv,
	               (char *)"--out", out, NULL };
	struct bench_run r = bench_spawn(av, 2);
	*cpu = r.cpu_s;
	if (r.status != 0) {
		fprintf(stderr, "sweep: %s sweep bench/sweep40.json -j %d failed (status %d)\n", hetlab, j, r.status);
		return -1;
	}
	return r.wall_s;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, USAGE);
		return 2;
	}
	const char *hetlab = argv[1];
	int runs = 3, n = 2;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (strcmp(argv[i], "-j") == 0 && i + 1 < argc)
			n = atoi(argv[++i]);
		else {
			fprintf(stderr, "sweep: unknown argument '%s'\n" USAGE, argv[i]);
			return 2;
		}
	}
	if (runs < 1 || runs > BENCH_MAX_RUNS || n < 2 || n > 64) {
		fprintf(stderr, "sweep: --runs 1 to %d, -j 2 to 64\n", BENCH_MAX_RUNS);
		return 2;
	}
	const char *tmpdir = bench_tmpdir("sweep");
	if (!tmpdir)
		return 1;
	double load[3] = { 0, 0, 0 };
	if (getloadavg(load, 3) < 0)
		load[0] = -1;
	double t1[BENCH_MAX_RUNS], tn[BENCH_MAX_RUNS], eff[BENCH_MAX_RUNS], c1[BENCH_MAX_RUNS], cn[BENCH_MAX_RUNS];
	for (int r = 0; r < runs; r++) {
		if ((t1[r] = one(tmpdir, hetlab, 1, r, &c1[r])) < 0 || (tn[r] = one(tmpdir, hetlab, n, r, &cn[r])) < 0)
			return 1;
		eff[r] = t1[r] / (n * tn[r]);
	}
	double e = bench_median(eff, runs);
	printf("sweep: bench/sweep40.json (40 runs of the default scenario), -j 1 against -j %d, %d round(s); "
	       "load average at the start %.2f\n", n, runs, load[0]);
	printf("  -j 1 %.2f s, -j %d %.2f s (medians): speed-up %.2fx, efficiency %.0f %% (median of the rounds); "
	       "target >= 90 %%: %s\n", bench_median(t1, runs), n, bench_median(tn, runs),
	       bench_median(t1, runs) / bench_median(tn, runs), 100 * e, e >= 0.9 ? "met" : "NOT met");
	printf("  CPU s of the sweep and its runs: -j 1 %.2f, -j %d %.2f (work does not grow with -j; where the "
	       "machine's other load leaves fewer than %d cores free, the wall-time efficiency above is bounded by "
	       "them)\n", bench_median(c1, runs), n, bench_median(cn, runs), n);
	return 0;
}
