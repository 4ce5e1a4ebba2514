/* cons — conservative backfilling against EASY on the same workloads: the
 * time of `hetlab run` (with its results file, as users run it) under
 * each, and their ratio (target: conservative at most 3x EASY).
 *
 *   cons HETLAB [--runs N] [--base HETLAB]
 *
 * Workloads:
 *   gang      bench/gang.json: 68 nodes of two shapes (16 and 8 cores, two
 *             planes), the whole KTH-SP2 log (28,475 jobs, in the
 *             repository) as node x ppn gangs (bench/gang-workload.sh);
 *   guian1.4  scenarios/guian.json with every arrival rate x1.4.
 * Each of the N rounds (default 3) runs EASY then conservative on each
 * workload; the figures are medians, the ratio the median of the rounds'
 * ratios, so that the two are compared in one run on a shared machine.
 * Times are CPU seconds of the child (user + system; the run is one
 * thread), wall seconds beside them. --base times the conservative policy of
 * another build (e.g. the commit before this profile, built in a scratch
 * worktree) on guian1.4 in the same rounds; on gang it needs minutes a run
 * and is left out.
 *
 * Exit status 0 whether or not the target is met; 1 when a run fails; 2 on
 * bad arguments. Run from the repository root. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benchutil.h"
#include "bench/spawn.h"

#define KTH "traces/data/swf-kth-sp2-1996/KTH-SP2-1996-2.1-cln.swf.gz"
#define TARGET 3.0

/* One hetlab run; its CPU and wall seconds. -1 on failure (reported). */
static int one(const char *tmpdir, const char *hetlab, const char *const *args, int nargs, const char *policy,
               struct bench_run *out)
{
	char db[300];
	snprintf(db, sizeof db, "%s/run.db", tmpdir);
	char *av[32];
	int n = 0;
	av[n++] = (char *)hetlab;
	av[n++] = (char *)"run";
	for (int i = 0; i < nargs; i++)
		av[n++] = (char *)args[i];
	av[n++] = (char *)"--policy";
	av[n++] = (char *)policy;
	av[n++] = (char *)"--out";
	av[n++] = db;
	av[n++] = (char *)"--quiet";
	av[n] = NULL;
	unlink(db);
	*out = bench_spawn(av, 1);
	unlink(db);
	if (out->status != 0) {
		fprintf(stderr, "cons: %s run --policy %s failed (status %d)\n", hetlab, policy, out->status);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: cons HETLAB [--runs N] [--base HETLAB]\n");
		return 2;
	}
	const char *hetlab = argv[1], *base = NULL;
	int runs = 3;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (strcmp(argv[i], "--base") == 0 && i + 1 < argc)
			base = argv[++i];
		else {
			fprintf(stderr, "cons: unknown argument '%s'\nusage: cons HETLAB [--runs N] [--base HETLAB]\n",
			        argv[i]);
			return 2;
		}
	}
	if (runs < 1 || runs > BENCH_MAX_RUNS) {
		fprintf(stderr, "cons: --runs: expected 1 to %d\n", BENCH_MAX_RUNS);
		return 2;
	}
	const char *tmpdir = bench_tmpdir("cons");
	if (!tmpdir)
		return 1;
	char gang[300], cmd[700];
	snprintf(gang, sizeof gang, "%s/gang.jsonl", tmpdir);
	snprintf(cmd, sizeof cmd, "sh bench/gang-workload.sh %s > '%s'", KTH, gang);
	if (system(cmd) != 0) {
		fprintf(stderr, "cons: bench/gang-workload.sh failed (run from the repository root)\n");
		return 1;
	}
	struct wl {
		const char *name, *desc;
		const char *args[6];
		int nargs;
	} wls[] = {
		{ "gang", "bench/gang.json, 28,475 KTH-SP2 jobs as gangs on 68 nodes of two shapes",
		  { "bench/gang.json", "--trace", gang }, 3 },
		{ "guian1.4", "scenarios/guian.json, arrivals x1.4", { "scenarios/guian.json", "--scale-rate", "1.4" }, 3 },
	};
	printf("cons: conservative backfilling against EASY, hetlab run with its results file, "
	       "%d rounds (medians; CPU s of the run, wall s in brackets)\n", runs);
	for (size_t w = 0; w < sizeof wls / sizeof *wls; w++) {
		double ec[BENCH_MAX_RUNS], ew[BENCH_MAX_RUNS], cc[BENCH_MAX_RUNS], cw[BENCH_MAX_RUNS];
		double ratio[BENCH_MAX_RUNS], bc[BENCH_MAX_RUNS], bratio[BENCH_MAX_RUNS];
		bool with_base = base && strcmp(wls[w].name, "guian1.4") == 0;
		for (int r = 0; r < runs; r++) {
			struct bench_run e, c, b;
			if (one(tmpdir, hetlab, wls[w].args, wls[w].nargs, "easy", &e) ||
			    one(tmpdir, hetlab, wls[w].args, wls[w].nargs, "conservative", &c))
				return 1;
			ec[r] = e.cpu_s;
			ew[r] = e.wall_s;
			cc[r] = c.cpu_s;
			cw[r] = c.wall_s;
			ratio[r] = c.cpu_s / e.cpu_s;
			if (with_base) {
				if (one(tmpdir, base, wls[w].args, wls[w].nargs, "conservative", &b))
					return 1;
				bc[r] = b.cpu_s;
				bratio[r] = b.cpu_s / e.cpu_s;
			}
		}
		double q = bench_median(ratio, runs);
		printf("  %-9s %s\n", wls[w].name, wls[w].desc);
		printf("            easy %.2f s (%.2f), conservative %.2f s (%.2f): %.2fx EASY; target <= %.0fx: %s\n",
		       bench_median(ec, runs), bench_median(ew, runs), bench_median(cc, runs),
		       bench_median(cw, runs), q, TARGET, q <= TARGET ? "met" : "NOT met");
		if (with_base)
			printf("            conservative of %s: %.2f s, %.1fx EASY\n", base, bench_median(bc, runs),
			       bench_median(bratio, runs));
	}
	return 0;
}
