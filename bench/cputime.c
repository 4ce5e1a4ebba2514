/* cputime — a command's wall and CPU time, for the benchmark scripts.
 *
 *   cputime FILE PROGRAM [ARG...]
 *
 * Runs PROGRAM (a path: no search of $PATH) with its standard streams
 * those of cputime, waits for it, and writes one line to FILE:
 * "WALL CPU USER SYS" in seconds, CPU being user + system time of the
 * process and every thread of it (wait4), with microsecond resolution
 * (the shell's `times` has the clock tick's). Exits with the program's
 * exit status (1 when it could not run or died of a signal; 2 on bad
 * arguments). bench/peer.sh and bench/cpu.sh use it. */
#include <stdio.h>

#include "bench/spawn.h"

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: cputime FILE PROGRAM [ARG...]\n");
		return 2;
	}
	struct bench_run r = bench_spawn(argv + 2, 0);
	if (r.status < 0) {
		fprintf(stderr, "cputime: %s did not run to its end\n", argv[2]);
		return 1;
	}
	FILE *f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%.6f %.6f %.6f %.6f\n", r.wall_s, r.cpu_s, r.user_s, r.sys_s) < 0 || fclose(f) != 0) {
		fprintf(stderr, "cputime: cannot write %s\n", argv[1]);
		return 1;
	}
	return r.status;
}
