/* scale — the guian scenario grown: wall time, CPU time, peak memory and
 * cost per job of `hetlab run` with the power and thermal model, faults and
 * the default results file, at several cluster sizes with the same load per
 * node.
 *
 *   scale HETLAB [--points N,N,...] [--runs R] [--big-runs R] [--scenario FILE]
 *         [--fixed-nodes N]
 *
 * With --fixed-nodes N the nodes are held at N and only the jobs grow: a
 * point P is then run at N nodes (racks and rates x N / 44) with the
 * workload's days x P / N, so about as many jobs as at P nodes and the
 * same load per node (the job-count effect apart from the node-count one).
 *
 * The scenario is bench/scale.json (scenarios/guian.json with 12 days of
 * arrivals, about 100 jobs a node, and its day-1 node join in a rack of its
 * own name). For a point of N nodes the factor is f = N / (the scenario's
 * rack nodes, 44): every rack entry's count is multiplied by f (rounded),
 * and every arrival rate by f (--scale-rate), so that the load per node
 * stays that of the default. The grown scenario and the results file go to
 * a temporary directory, removed on exit whatever happens. Points default
 * to 1000,10000,100000 (about 100k, 1M and 10M jobs).
 *
 * Each point is run R times (--runs, default 1), points of 50,000 nodes or
 * more --big-runs times (default R: such a run takes minutes); the figures
 * are medians. Each run is a child process, so its peak RSS and CPU time
 * are its own (wait4). Cost per job = CPU seconds / jobs, also split into
 * user space and the kernel (on a VM the kernel's part grows with the
 * memory a run touches first: its page faults and the results file's page
 * cache). Targets: at 100,000 nodes,
 * under 600 s wall and 16 GiB; the cost per job at the largest point within
 * 30 % of that at the smallest.
 *
 * Exit status 0 whether or not the targets are met; 1 when a run fails or
 * the scenario cannot be read or written; 2 on bad arguments. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/benchutil.h"
#include "bench/spawn.h"

#define USAGE "usage: scale HETLAB [--points N,N,...] [--runs R] [--big-runs R] [--scenario FILE] [--fixed-nodes N]\n"
#define BIG 50000
#define MAX_POINTS 8

/* Nodes in the racks of scenario root (count x the nodes of one rack). */
static long rack_nodes(json_t *root)
{
	long n = 0;
	size_t i, k;
	json_t *r, *nd;
	json_array_foreach(json_object_get(root, "racks"), i, r) {
		long per = 0;
		json_array_foreach(json_object_get(r, "nodes"), k, nd)
			per += (long)json_integer_value(json_object_get(nd, "count"));
		json_t *c = json_object_get(r, "count");
		n += per * (c ? (long)json_integer_value(c) : 1);
	}
	return n;
}

/* Writes root with every rack count x f and the synthetic workload's days x d
 * to path. */
static int write_scaled(json_t *root, double f, double d, const char *path)
{
	json_t *copy = json_deep_copy(root);
	if (!copy)
		return -1;
	json_t *syn = json_object_get(json_object_get(copy, "workload"), "synthetic");
	json_t *days = json_object_get(syn, "days");
	if (d != 1.0 && days) {
		long n = lround((double)json_integer_value(days) * d);
		json_object_set_new(syn, "days", json_integer(n > 0 ? n : 1));
	}
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(copy, "racks"), i, r) {
		json_t *c = json_object_get(r, "count");
		long n = c ? (long)json_integer_value(c) : 1;
		long m = lround((double)n * f);
		json_object_set_new(r, "count", json_integer(m > 0 ? m : 1));
	}
	int rc = json_dump_file(copy, path, JSON_INDENT(1));
	json_decref(copy);
	return rc;
}

struct counts {
	long nodes, jobs, events;
};

static int db_counts(const char *path, struct counts *c)
{
	sqlite3 *db;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		fprintf(stderr, "scale: %s: %s\n", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return -1;
	}
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "SELECT (SELECT nodes FROM run), (SELECT count(*) FROM job), "
	                            "(SELECT count(*) FROM event)", -1, &st, NULL);
	if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
		c->nodes = sqlite3_column_int64(st, 0);
		c->jobs = sqlite3_column_int64(st, 1);
		c->events = sqlite3_column_int64(st, 2);
		rc = 0;
	} else {
		fprintf(stderr, "scale: %s: %s\n", path, sqlite3_errmsg(db));
		rc = -1;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, USAGE);
		return 2;
	}
	const char *hetlab = argv[1], *scn = "bench/scale.json", *pts = "1000,10000,100000";
	int runs = 1, big_runs = -1;
	long fixed = 0;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--points") == 0 && i + 1 < argc)
			pts = argv[++i];
		else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (strcmp(argv[i], "--big-runs") == 0 && i + 1 < argc)
			big_runs = atoi(argv[++i]);
		else if (strcmp(argv[i], "--scenario") == 0 && i + 1 < argc)
			scn = argv[++i];
		else if (strcmp(argv[i], "--fixed-nodes") == 0 && i + 1 < argc) {
			fixed = atol(argv[++i]);
			if (fixed < 1) {
				fprintf(stderr, "scale: --fixed-nodes: expected a node count of 1 or more, got '%s'\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "scale: unknown argument '%s'\n" USAGE, argv[i]);
			return 2;
		}
	}
	if (big_runs < 0)
		big_runs = runs;
	if (runs < 1 || runs > BENCH_MAX_RUNS || big_runs < 1 || big_runs > BENCH_MAX_RUNS) {
		fprintf(stderr, "scale: --runs, --big-runs: expected 1 to %d\n", BENCH_MAX_RUNS);
		return 2;
	}
	long points[MAX_POINTS];
	int np = 0;
	for (const char *p = pts; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || v < 1 || np == MAX_POINTS || (*end && *end != ',')) {
			fprintf(stderr, "scale: --points: expected up to %d node counts, comma-separated, got '%s'\n",
			        MAX_POINTS, pts);
			return 2;
		}
		points[np++] = v;
		p = *end ? end + 1 : end;
	}
	json_error_t jerr;
	json_t *root = json_load_file(scn, 0, &jerr);
	if (!root) {
		fprintf(stderr, "scale: %s:%d: %s\n", scn, jerr.line, jerr.text);
		return 1;
	}
	long base = rack_nodes(root);
	if (base <= 0) {
		fprintf(stderr, "scale: %s: no rack nodes\n", scn);
		json_decref(root);
		return 1;
	}
	const char *tmpdir = bench_tmpdir("scale");
	if (!tmpdir) {
		json_decref(root);
		return 1;
	}

	printf("scale: %s grown (rack counts and arrival rates x f = nodes / %ld), power, thermal, faults and "
	       "the results file on; median of %d run(s) a point (%d at %d nodes or more)\n", scn, base, runs,
	       big_runs, BIG);
	printf("  %9s %9s %11s %11s %9s %9s %9s %10s %12s %11s %11s %11s\n", "f", "nodes", "jobs", "events", "wall s",
	       "CPU s", "RSS MiB", "file MiB", "CPU us/job", "user us/job", "sys us/job", "faults/job");
	double cost[MAX_POINTS], ucost[MAX_POINTS], wall_at[MAX_POINTS], rss_at[MAX_POINTS];
	long nodes_at[MAX_POINTS], jobs_at[MAX_POINTS];
	for (int k = 0; k < np; k++) {
		double f = (double)(fixed ? fixed : points[k]) / (double)base;
		double d = fixed ? (double)points[k] / (double)fixed : 1.0;
		char path[300], db[300], rate[32];
		snprintf(path, sizeof path, "%s/scale.json", tmpdir);
		snprintf(db, sizeof db, "%s/run.db", tmpdir);
		snprintf(rate, sizeof rate, "%.6f", f);
		if (write_scaled(root, f, d, path)) {
			fprintf(stderr, "scale: cannot write %s\n", path);
			json_decref(root);
			return 1;
		}
		double wall[BENCH_MAX_RUNS], cpu[BENCH_MAX_RUNS], rss[BENCH_MAX_RUNS], flt[BENCH_MAX_RUNS], file_mib = 0;
		double usr[BENCH_MAX_RUNS], sys[BENCH_MAX_RUNS];
		struct counts c = { 0, 0, 0 };
		int nr = points[k] >= BIG ? big_runs : runs; /* big in jobs, with or without --fixed-nodes */
		for (int r = 0; r < nr; r++) {
			char run_[] = "run", sr[] = "--scale-rate", out[] = "--out", quiet[] = "--quiet";
			char *av[] = { (char *)hetlab, run_, path, sr, rate, out, db, quiet, NULL };
			unlink(db);
			struct bench_run br = bench_spawn(av, 1);
			if (br.status != 0) {
				fprintf(stderr, "scale: %s run %s --scale-rate %s failed (status %d)\n", hetlab, path, rate,
				        br.status);
				json_decref(root);
				return 1;
			}
			wall[r] = br.wall_s;
			cpu[r] = br.cpu_s;
			usr[r] = br.user_s;
			sys[r] = br.sys_s;
			rss[r] = br.rss_mib;
			flt[r] = (double)br.minflt;
			struct stat sb;
			file_mib = stat(db, &sb) == 0 ? (double)sb.st_size / 1048576.0 : 0;
			if (db_counts(db, &c)) {
				json_decref(root);
				return 1;
			}
		}
		unlink(db);
		double w = bench_median(wall, nr), u = bench_median(cpu, nr), m = bench_median(rss, nr);
		double fl = bench_median(flt, nr), us = bench_median(usr, nr), sy = bench_median(sys, nr);
		cost[k] = c.jobs > 0 ? u / (double)c.jobs * 1e6 : 0;
		ucost[k] = c.jobs > 0 ? us / (double)c.jobs * 1e6 : 0;
		wall_at[k] = w;
		rss_at[k] = m;
		nodes_at[k] = c.nodes;
		jobs_at[k] = c.jobs;
		printf("  %9.2f %9ld %11ld %11ld %9.2f %9.2f %9.0f %10.0f %12.2f %11.2f %11.2f %11.3f\n", f, c.nodes, c.jobs,
		       c.events, w, u, m, file_mib, cost[k], ucost[k], c.jobs > 0 ? sy / (double)c.jobs * 1e6 : 0,
		       c.jobs > 0 ? fl / (double)c.jobs : 0);
		fflush(stdout);
	}
	json_decref(root);
	if (np > 1 && fixed)
		printf("  cost per job at %ld jobs / at %ld jobs (%ld nodes held): %.2f; target <= 1.30: %s\n",
		       jobs_at[np - 1], jobs_at[0], nodes_at[0], cost[np - 1] / cost[0],
		       cost[np - 1] / cost[0] <= 1.30 ? "met" : "NOT met");
	else if (np > 1)
		printf("  cost per job at %ld nodes / at %ld nodes: %.2f; target <= 1.30: %s\n", nodes_at[np - 1],
		       nodes_at[0], cost[np - 1] / cost[0], cost[np - 1] / cost[0] <= 1.30 ? "met" : "NOT met");
	if (np > 1 && ucost[0] > 0)
		printf("  the same in user space only (the kernel's part is mostly first touches of memory: the "
		       "results file's page cache and the run's own): %.2f\n", ucost[np - 1] / ucost[0]);
	for (int k = 0; k < np; k++)
		if (nodes_at[k] >= 99000)
			printf("  at %ld nodes: %.0f s wall, %.0f MiB; target under 600 s and 16384 MiB: %s\n", nodes_at[k],
			       wall_at[k], rss_at[k], wall_at[k] < 600 && rss_at[k] < 16384 ? "met" : "NOT met");
	return 0;
}
