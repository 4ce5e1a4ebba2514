/* scale — the default scenario scaled to about 10,000 nodes and 1,000,000
 * jobs with the power and thermal model on and the results file written:
 * wall time and peak memory of `hetlab run` (target: under 60 s and 2 GiB).
 *
 *   scale HETLAB [--runs N]
 *
 * The scaled scenario is made from the embedded default: every rack entry's
 * count × 227.5 (44 → 10,010 nodes), the arrival window 7 → 13 days, every
 * rate × 227.5 (the same load per node as the default), written to a
 * temporary file; the run goes to a temporary database. Each run is a
 * child process, so its peak RSS is its own (wait4's ru_maxrss). */
#include "bench/benchutil.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Replaces every occurrence of from by to in s (malloc'd result). */
static char *replace_all(const char *s, const char *from, const char *to)
{
	size_t n = 0, lf = strlen(from), lt = strlen(to);
	for (const char *p = s; (p = strstr(p, from)); p += lf)
		n++;
	char *out = malloc(strlen(s) + n * (lt > lf ? lt - lf : 0) + 1), *o = out;
	if (!out)
		return NULL;
	for (const char *p = s, *q; ; p = q + lf) {
		q = strstr(p, from);
		size_t k = q ? (size_t)(q - p) : strlen(p);
		memcpy(o, p, k);
		o += k;
		if (!q)
			break;
		memcpy(o, to, lt);
		o += lt;
	}
	*o = 0;
	return out;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: scale HETLAB SCENARIO [--runs N]\n");
		return 2;
	}
	const char *hetlab = argv[1], *scn = argv[2];
	int runs = argc > 4 && strcmp(argv[3], "--runs") == 0 ? atoi(argv[4]) : 1;
	if (runs < 1 || runs > BENCH_MAX_RUNS)
		runs = 1;
	FILE *f = fopen(scn, "r");
	if (!f) {
		fprintf(stderr, "scale: %s: %s\n", scn, strerror(errno));
		return 1;
	}
	char *text = calloc(1, 1 << 20);
	size_t len = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
	fclose(f);
	if (!text || len == 0) {
		fprintf(stderr, "scale: %s: empty or unreadable\n", scn);
		return 1;
	}
	char *a = replace_all(text, "\"count\": 2, \"power_kw\"", "\"count\": 455, \"power_kw\"");
	char *b = a ? replace_all(a, "\"days\": 7,", "\"days\": 13,") : NULL;
	char path[] = "/tmp/hetlab-scale-XXXXXX.json", db[] = "/tmp/hetlab-scale-XXXXXX.db";
	int fd = mkstemps(path, 5), fd2 = mkstemps(db, 3);
	if (!b || fd < 0 || fd2 < 0 || write(fd, b, strlen(b)) != (ssize_t)strlen(b)) {
		fprintf(stderr, "scale: cannot write the scaled scenario\n");
		return 1;
	}
	close(fd);
	close(fd2);
	double wall[BENCH_MAX_RUNS], rss[BENCH_MAX_RUNS];
	for (int r = 0; r < runs; r++) {
		char run_[] = "run", sr[] = "--scale-rate", rate[] = "227.5", out[] = "--out", quiet[] = "--quiet";
		char *av[] = { (char *)hetlab, run_, path, sr, rate, out, db, quiet, NULL };
		pid_t pid;
		double t0 = bench_now_s();
		if (posix_spawn(&pid, hetlab, NULL, NULL, av, environ) != 0) {
			fprintf(stderr, "scale: cannot run %s\n", hetlab);
			return 1;
		}
		int st;
		struct rusage ru;
		if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "scale: hetlab run failed\n");
			return 1;
		}
		wall[r] = bench_now_s() - t0;
		rss[r] = ru.ru_maxrss / 1024.0;
	}
	char q[512];
	snprintf(q, sizeof q, "sqlite3 -batch -noheader %s \"SELECT (SELECT nodes FROM run), (SELECT count(*) FROM job), "
	         "(SELECT count(*) FROM event), (SELECT printf('%%.0f', it_energy_kwh) FROM run)\"", db);
	FILE *p = popen(q, "r");
	char line[256] = "?";
	if (p) {
		if (!fgets(line, sizeof line, p))
			snprintf(line, sizeof line, "?");
		pclose(p);
	}
	line[strcspn(line, "\n")] = 0;
	printf("scale: the default scenario at 10k nodes, power and thermal on, results recorded (median of %d)\n", runs);
	printf("  nodes|jobs|events|IT kWh: %s\n", line);
	double w = bench_median(wall, runs), m = bench_median(rss, runs);
	printf("  wall %.2f s, peak RSS %.0f MiB; target under 60 s and 2048 MiB: %s\n", w, m,
	       w < 60 && m < 2048 ? "met" : "NOT met");
	unlink(path);
	unlink(db);
	free(text);
	free(a);
	free(b);
	return 0;
}
