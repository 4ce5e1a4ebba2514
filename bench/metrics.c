/* metrics — how long one render of the Prometheus endpoint takes on a
 * large cluster (the figure that tests/unit/test_metrics.c used to assert,
 * which failed under valgrind: a speed figure belongs here, not in a test).
 *
 *   metrics [--runs N] [--nodes N]
 *
 * The cluster: --nodes (default 10,000) nodes of 8 H100-SXM-80GB, 112
 * cores and 2 TiB each, 20 to a rack, each node with a reading. The median
 * of --runs (default 5) renders is shown, with the size of the text.
 *
 * Exit status: 0; 1 on any error; 2 on bad arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benchutil.h"
#include "live/metrics.h"
#include "sim/engine.h"
#include "config/scenario.h"

#define USAGE "usage: metrics [--runs N] [--nodes N]\n"
#define PER_RACK 20

int main(int argc, char **argv)
{
	int runs = 5, nodes = 10000;
	for (int i = 1; i < argc; i++) {
		int *dst = strcmp(argv[i], "--runs") == 0 ? &runs : strcmp(argv[i], "--nodes") == 0 ? &nodes : NULL;
		if (!dst || i + 1 >= argc || (*dst = atoi(argv[++i])) <= 0) {
			fputs(USAGE, stderr);
			return 2;
		}
	}
	if (runs > BENCH_MAX_RUNS)
		runs = BENCH_MAX_RUNS;
	nodes = (nodes + PER_RACK - 1) / PER_RACK * PER_RACK;
	char text[1024], err[1024];
	snprintf(text, sizeof text,
	         "{ \"name\": \"big\", \"sample_interval_s\": 0,\n"
	         "  \"node_types\": [ { \"name\": \"h\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 8, \"cores\": 112, \"mem_gib\": 2048 } ],\n"
	         "  \"racks\": [ { \"name\": \"r\", \"count\": %d, \"power_kw\": 200,\n"
	         "                \"nodes\": [ { \"type\": \"h\", \"count\": %d } ] } ] }\n",
	         nodes / PER_RACK, PER_RACK);
	struct scenario sc;
	if (scenario_load_text(text, "metrics-bench", ".", &sc, err, sizeof err)) {
		fprintf(stderr, "metrics: %s\n", err);
		return 1;
	}
	struct sim s;
	struct sim_cfg cfg = { .horizon_us = SIMTIME_INF };
	if (sim_init(&s, &cfg, &sc.cl, NULL, NULL, 0)) {
		fprintf(stderr, "metrics: out of memory\n");
		return 1;
	}
	struct live_reading *rd = calloc((size_t)s.cl.nnodes, sizeof *rd);
	if (!rd)
		return 1;
	for (int i = 0; i < s.cl.nnodes; i++)
		rd[i] = (struct live_reading){ .ok = true, .power_w = 4000 + i % 1000, .temp_c = 40 + i % 30,
		                               .util = (i % 100) / 100.0 };
	struct metrics_counters c = { .starts = 7, .submits = 9, .started_unix = 1700000000 };
	char *buf = NULL;
	size_t cap = 0;
	double ms[BENCH_MAX_RUNS];
	long len = 0;
	for (int r = 0; r < runs; r++) {
		double t0 = bench_now_s();
		len = metrics_render(&buf, &cap, &s, rd, &c);
		ms[r] = (bench_now_s() - t0) * 1e3;
		if (len < 0) {
			fprintf(stderr, "metrics: out of memory\n");
			return 1;
		}
	}
	printf("metrics render: %d nodes, %ld bytes: %.2f ms (median of %d)\n", s.cl.nnodes, len,
	       bench_median(ms, runs), runs);
	free(buf);
	free(rd);
	sim_fini(&s);
	scenario_free(&sc);
	return 0;
}
