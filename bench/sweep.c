/* sweep — how well `hetlab sweep -j N` uses N cores: the 40-run grid of
 * bench/sweep40.json (scenarios/guian.json, EASY and conservative, two
 * arrival rates, 10 seeds) run with -j 1 on one core (the bench's own
 * affinity set to one CPU for it, so the sweep and its runs have that
 * one), with -j N, and with -j 1 on every core, in each round;
 * efficiency = T(-j 1 on one core) / (N x T(-j N)), wall time, taken per
 * round, and the median of the rounds (target: at least 90 %). The
 * speed-up printed is the median of the rounds' speed-ups, the same figure
 * times N (a ratio of the two medians of the wall times could disagree
 * with it: the medians may come from different rounds). The efficiency
 * against -j 1 on every core is printed too: there each run's results
 * writer thread (`hetlab run --threads 2`, the default) has a core of its
 * own beside the engine, so that run is not a one-core run; a sweep that
 * runs one run per core gives its runs --threads 1.
 *
 *   sweep HETLAB [--runs R] [-j N]
 *
 * The sweeps of a round run one after another, the one-core sweep first
 * in even rounds and last in odd ones, so that a load that grows or falls
 * during the benchmark weighs on all alike. Each sweep writes into a fresh
 * temporary directory, removed on exit.
 *
 * On a shared machine other processes take cores too, and the efficiency
 * measured is then that of the cores the sweep could get: the load average
 * is printed at the start and at the end, and so is the CPU time of each
 * sweep (wait4: itself and every run), which shows whether running N at a
 * time adds work. Where the sweep prints its closing "[time]" line (the
 * CPU of its runs and of itself, and the idle slot-seconds of the tail),
 * those figures are printed too: the sweep's own CPU and the idle tail
 * are its serial part. The CPU per run at -j N against -j 1 on one core
 * is a target too (at most 5 % more): a run's results writer thread must
 * not cost CPU when the runs share the cores. Exit status 0 whether or not the target is met; 1
 * when a sweep fails; 2 on bad arguments. Run from the repository root. */
#include <sched.h>
#include <stdbool.h>
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

/* One sweep into f; pinned: on one CPU (the first this process may use),
 * its runs too. 0, or -1 when it failed. */
static int one(const char *tmpdir, const char *hetlab, int j, bool pinned, int round, struct sweep_fig *f)
{
	char out[300], err[320], jv[16];
	snprintf(out, sizeof out, "%s/j%d%s-r%d", tmpdir, j, pinned ? "p" : "", round);
	snprintf(err, sizeof err, "%s/j%d%s-r%d.err", tmpdir, j, pinned ? "p" : "", round);
	snprintf(jv, sizeof jv, "%d", j);
	char *av[] = { (char *)hetlab, (char *)"sweep", (char *)"bench/sweep40.json", (char *)"-j", jv,
	               (char *)"--out", out, NULL };
	cpu_set_t all, first;
	bool pin = pinned && sched_getaffinity(0, sizeof all, &all) == 0;
	if (pin) {
		CPU_ZERO(&first);
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &all)) {
				CPU_SET(c, &first);
				break;
			}
		pin = sched_setaffinity(0, sizeof first, &first) == 0;   /* the child inherits it */
	}
	struct bench_run r = bench_spawn_err(av, 1, err);
	if (pin)
		sched_setaffinity(0, sizeof all, &all);
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
	/* T(1 core): -j 1 on one CPU, the baseline of the efficiency; -j 1
	 * on every core too (its runs' writer threads get the other cores). */
	struct sweep_fig f1[BENCH_MAX_RUNS], fn[BENCH_MAX_RUNS], fa[BENCH_MAX_RUNS];
	double eff[BENCH_MAX_RUNS], sp[BENCH_MAX_RUNS], effa[BENCH_MAX_RUNS];
	for (int r = 0; r < runs; r++) {
		int bad = r % 2 == 0 ? one(tmpdir, hetlab, 1, true, r, &f1[r]) || one(tmpdir, hetlab, n, false, r, &fn[r]) ||
		                       one(tmpdir, hetlab, 1, false, r, &fa[r])
		                     : one(tmpdir, hetlab, 1, false, r, &fa[r]) || one(tmpdir, hetlab, n, false, r, &fn[r]) ||
		                       one(tmpdir, hetlab, 1, true, r, &f1[r]);
		if (bad)
			return 1;
		sp[r] = f1[r].wall / fn[r].wall;
		eff[r] = sp[r] / n;
		effa[r] = fa[r].wall / fn[r].wall / n;
	}
	if (getloadavg(load1, 3) < 0)
		load1[0] = -1;
	double e = bench_median(eff, runs);
	printf("sweep: bench/sweep40.json (40 runs of scenarios/guian.json), -j 1 on one core against -j %d, %d "
	       "round(s); load average %.2f at the start, %.2f at the end\n", n, runs, load[0], load1[0]);
	for (int r = 0; r < runs; r++)
		printf("  round %d (%s first): -j 1 on one core %.2f s, -j %d %.2f s: speed-up %.2fx, efficiency %.0f %%; "
		       "-j 1 on every core %.2f s (%.0f %%)\n", r + 1, r % 2 == 0 ? "one core" : "every core", f1[r].wall,
		       n, fn[r].wall, sp[r], 100 * eff[r], fa[r].wall, 100 * effa[r]);
	printf("  -j 1 %.2f s on one core, -j %d %.2f s (medians of the wall times); speed-up %.2fx, efficiency %.0f %% "
	       "(medians of the rounds); target >= 90 %%: %s\n", med(f1, runs, offsetof(struct sweep_fig, wall)), n,
	       med(fn, runs, offsetof(struct sweep_fig, wall)), bench_median(sp, runs), 100 * e,
	       e >= 0.9 ? "met" : "NOT met");
	printf("  against -j 1 on every core (%.2f s: each run's results writer has a core of its own there): "
	       "efficiency %.0f %% (median of the rounds)\n", med(fa, runs, offsetof(struct sweep_fig, wall)),
	       100 * bench_median(effa, runs));
	printf("  CPU s of the sweep and its runs: -j 1 on one core %.2f, -j %d %.2f (work does not grow with -j; where the "
	       "machine's other load leaves fewer than %d cores free, the wall-time efficiency above is bounded by "
	       "them)\n", med(f1, runs, offsetof(struct sweep_fig, cpu)), n, med(fn, runs, offsetof(struct sweep_fig, cpu)), n);
	double wk[BENCH_MAX_RUNS];
	for (int r = 0; r < runs; r++)
		wk[r] = f1[r].cpu / (n * fn[r].wall);
	/* Issue 34: a sweep's CPU per run at -j N within 5 % of -j 1 on one core
	 * (the same 40 runs: the ratio of the totals; per round, median). */
	double cr[BENCH_MAX_RUNS];
	for (int r = 0; r < runs; r++)
		cr[r] = fn[r].cpu / f1[r].cpu;
	double c = bench_median(cr, runs);
	printf("  CPU per run: -j 1 on one core %.3f s, -j %d %.3f s (medians); -j %d / -j 1 %.3f (median of the "
	       "rounds); target <= 1.05: %s\n", med(f1, runs, offsetof(struct sweep_fig, cpu)) / 40, n,
	       med(fn, runs, offsetof(struct sweep_fig, cpu)) / 40, n, c, c <= 1.05 ? "met" : "NOT met");
	printf("  against the work: CPU s of -j 1 on one core / (%d x T(-j %d)) %.0f %% (median of the rounds)\n", n, n,
	       100 * bench_median(wk, runs));
	printf("  of which (medians; the sweep's own part and the idle tail are its serial part):\n");
	print_parts(1, f1, runs);
	print_parts(n, fn, runs);
	return 0;
}
