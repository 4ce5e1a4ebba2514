/* sweep — how well `hetlab sweep -j N` uses N cores: the 40-run grid of
 * bench/sweep40.json (the default scenario, EASY and conservative, two
 * arrival rates, 10 seeds) run with -j 1 and with -j N in each round;
 * efficiency = T(-j 1) / (N x T(-j N)), wall time, taken per round, and
 * the median of the rounds (target: at least 90 %). The speed-up printed
 * is the median of the rounds' speed-ups, the same figure times N (a
 * ratio of the two medians of the wall times could disagree with it: the
 * medians may come from different rounds).
 *
 *   sweep HETLAB [--runs R] [-j N]
 *
 * The two sweeps of a round run one after the other, -j 1 first in even
 * rounds and -j N first in odd ones, so that a load that grows or falls
 * during the benchmark weighs on both alike. Each sweep writes into a fresh
 * temporary directory, removed on exit.
 *
 * On a shared machine other processes take cores too, and the efficiency
 * measured is then that of the cores the sweep could get: the load average
 * is printed at the start and at the end, and so is the CPU time of each
 * sweep (wait4: itself and every run), which shows whether running N at a
 * time adds work. On a machine with N cores, -j 1 also leaves a core to the
 * sweep's own process (reading each finished run's stored metrics) and to
 * each run's writer thread; with -j N that work competes with the runs.
 * Where the sweep prints
 * its closing "[time]" line (the CPU of its runs and of itself, and the
 * idle slot-seconds of the tail), those figures are printed too: the
 * sweep's own CPU and the idle tail are its serial part. Exit status 0
 * whether or not the target is met; 1 when a sweep fails; 2 on bad
 * arguments. Run from the repository root. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benchutil.h"
#include "bench/spawn.h"

#define USAGE "usage: sweep HETLAB [--runs R] [-j N]\n"

struct sweep_fig {
	double wall, cpu;           /* wait4 */
	double runs, self, idle;    /* its [time] line; -1 without one */
};

/* The sweep's "[time]" line, from its stderr in errfile. */
static void read_times(const char *errfile, struct sweep_fig *f)
{
	f->runs = f->self = f->idle = -1;
	FILE *in = fopen(errfile, "r");
	if (!in)
		return;
	char line[1024];
	while (fgets(line, sizeof line, in)) {
		const char *p = strstr(line, "CPU s: the runs ");
		double a, b, c;
		if (strncmp(line, "hetlab sweep: [time] ", 21) != 0)
			continue;
		if (p && sscanf(p, "CPU s: the runs %lf, this process %lf; run slots idle %lf", &a, &b, &c) == 3) {
			f->runs = a;
			f->self = b;
			f->idle = c;
		}
	}
	fclose(in);
}

/* One sweep into f. 0, or -1 when it failed. */
static int one(const char *tmpdir, const char *hetlab, int j, int round, struct sweep_fig *f)
{
	char out[300], err[320], jv[16];
	snprintf(out, sizeof out, "%s/j%d-r%d", tmpdir, j, round);
	snprintf(err, sizeof err, "%s/j%d-r%d.err", tmpdir, j, round);
	snprintf(jv, sizeof jv, "%d", j);
	char *av[] = { (char *)hetlab, (char *)"sweep", (char *)"bench/sweep40.json", (char *)"-j", jv,
	               (char *)"--out", out, NULL };
	struct bench_run r = bench_spawn_err(av, 1, err);
	f->wall = r.wall_s;
	f->cpu = r.cpu_s;
	if (r.status != 0) {
		fprintf(stderr, "sweep: %s sweep bench/sweep40.json -j %d failed (status %d)\n", hetlab, j, r.status);
		return -1;
	}
	read_times(err, f);
	return 0;
}

static double med(const struct sweep_fig *f, int n, size_t off)
{
	double v[BENCH_MAX_RUNS];
	for (int i = 0; i < n; i++)
		v[i] = *(const double *)((const char *)&f[i] + off);
	return bench_median(v, n);
}

/* "-j J: CPU s of the runs R, of the sweep itself S, idle slot-s I" or what
 * the sweep did not say. */
static void print_parts(int j, const struct sweep_fig *f, int n)
{
	if (med(f, n, offsetof(struct sweep_fig, runs)) < 0) {
		printf("    -j %d: no [time] line (a hetlab before it): the split is not known\n", j);
		return;
	}
	double runs = med(f, n, offsetof(struct sweep_fig, runs)), self = med(f, n, offsetof(struct sweep_fig, self));
	double idle = med(f, n, offsetof(struct sweep_fig, idle));
	printf("    -j %d: the runs %.2f, the sweep itself %.2f (%.0f %% of the work), idle slot-s at the "
	       "end %.2f\n", j, runs, self, 100 * self / (runs + self), idle);
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
	double load[3] = { -1, -1, -1 }, load1[3] = { -1, -1, -1 };
	if (getloadavg(load, 3) < 0)
		load[0] = -1;
	struct sweep_fig f1[BENCH_MAX_RUNS], fn[BENCH_MAX_RUNS];
	double eff[BENCH_MAX_RUNS], sp[BENCH_MAX_RUNS];
	for (int r = 0; r < runs; r++) {
		int bad = r % 2 == 0 ? one(tmpdir, hetlab, 1, r, &f1[r]) || one(tmpdir, hetlab, n, r, &fn[r])
		                     : one(tmpdir, hetlab, n, r, &fn[r]) || one(tmpdir, hetlab, 1, r, &f1[r]);
		if (bad)
			return 1;
		sp[r] = f1[r].wall / fn[r].wall;
		eff[r] = sp[r] / n;
	}
	if (getloadavg(load1, 3) < 0)
		load1[0] = -1;
	double e = bench_median(eff, runs);
	printf("sweep: bench/sweep40.json (40 runs of the default scenario), -j 1 against -j %d, %d round(s); "
	       "load average %.2f at the start, %.2f at the end\n", n, runs, load[0], load1[0]);
	for (int r = 0; r < runs; r++)
		printf("  round %d (-j %s first): -j 1 %.2f s, -j %d %.2f s: speed-up %.2fx, efficiency %.0f %%\n",
		       r + 1, r % 2 == 0 ? "1" : "N", f1[r].wall, n, fn[r].wall, sp[r], 100 * eff[r]);
	printf("  -j 1 %.2f s, -j %d %.2f s (medians of the wall times); speed-up %.2fx, efficiency %.0f %% "
	       "(medians of the rounds); target >= 90 %%: %s\n", med(f1, runs, offsetof(struct sweep_fig, wall)), n,
	       med(fn, runs, offsetof(struct sweep_fig, wall)), bench_median(sp, runs), 100 * e,
	       e >= 0.9 ? "met" : "NOT met");
	printf("  CPU s of the sweep and its runs: -j 1 %.2f, -j %d %.2f (work does not grow with -j; where the "
	       "machine's other load leaves fewer than %d cores free, the wall-time efficiency above is bounded by "
	       "them)\n", med(f1, runs, offsetof(struct sweep_fig, cpu)), n, med(fn, runs, offsetof(struct sweep_fig, cpu)), n);
	double wk[BENCH_MAX_RUNS];
	for (int r = 0; r < runs; r++)
		wk[r] = f1[r].cpu / (n * fn[r].wall);
	printf("  against the work: CPU s of -j 1 / (%d x T(-j %d)) %.0f %% (median of the rounds; not the target's "
	       "figure: -j 1 gets a second core for the sweep's own part, this counts that part as work)\n", n, n,
	       100 * bench_median(wk, runs));
	printf("  of which (medians; the sweep's own part and the idle tail are its serial part):\n");
	print_parts(1, f1, runs);
	print_parts(n, fn, runs);
	return 0;
}
