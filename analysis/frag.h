/* frag — the FGD paper's fragmentation experiment (Weng et al., ATC'23) as
 * its simulator runs it: the pod list is inflated by sampling pods uniformly
 * with replacement until the next one would push the GPU request above
 * inflate × the cluster's GPU capacity, the whole list is shuffled, and the
 * pods are placed one at a time with no departures (a pod that fits nowhere
 * fails and is skipped). At each 1 % step of arrived GPU request (as a share
 * of capacity) the state is recorded: GPU allocation ratio (milli-GPUs
 * allocated / capacity) and GPU fragmentation (the typical-pod measure of
 * policies/gpushare.h; ratio = fragmented / idle milli-GPUs).
 *
 * The node and pod lists are the openb CSVs, read here by a small parser of
 * their own (every pod row is used, Pending ones too, as the reference
 * does). One GSL RNG (mt19937) per (policy, seed) drives inflation, shuffle
 * and the random policy, so a (policy, seed) run is reproducible bit for
 * bit. Among nodes of equal score the first in node-file order wins, as in
 * the reference (its scheduler takes the smallest node name).
 *
 * Results go to SQLite (docs/results.md, "frag databases"): meta (kind=frag),
 * frag_run, frag_step; written in one transaction to a temporary file that is
 * renamed over the target. frag_report prints them; frag_plot draws
 * allocation ratio vs arrived %.
 *
 * Ownership: the caller owns struct frag_input and struct frag_result and
 * frees them with frag_input_free / frag_result_free (both accept zeroed
 * structs). Errors: 0 or -1 with a message in err naming the file (and line). */
#ifndef HL_FRAG_H
#define HL_FRAG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "policies/gpushare.h"

#define FRAG_MAX_STEPS 400      /* arrived % steps recorded at most */

struct frag_input {
	int32_t nnodes;
	struct gs_node *node;   /* initial (idle) state */
	int32_t npods;
	struct gs_req *pod;     /* the pod list, in file order */
	int64_t gpu_milli_cap;  /* Σ GPUs × 1000 */
	struct gs_typical typ;  /* built from the pod list (95 % popularity) */
};

int frag_input_load(const char *nodes_csv, const char *pods_csv, struct frag_input *in,
                    char *err, size_t errlen);
/* Builds the input from arrays (tests): nodes get cpu_cap = cpu_free. */
int frag_input_make(const struct gs_node *nodes, int32_t nnodes, const struct gs_req *pods,
                    int32_t npods, struct frag_input *in);
void frag_input_free(struct frag_input *in);

struct frag_step {
	int32_t pct;            /* arrived GPU request ≥ pct % of capacity */
	int64_t arrived_milli;
	int64_t alloc_milli;
	double frag_milli;
	int32_t placed, failed;
};

struct frag_result {
	const char *policy;
	uint64_t seed;
	int32_t npods;          /* after inflation */
	int32_t placed, failed;
	int64_t arrived_milli, alloc_milli;
	int64_t cpu_alloc, mem_alloc;
	double wall_s;
	int32_t nsteps;
	struct frag_step step[FRAG_MAX_STEPS];
};

/* The inflated, shuffled sequence of pod indices for a seed (tests and the
 * run). *seq is allocated; n set. */
int frag_sequence(const struct frag_input *in, double inflate, void *gsl_rng_state,
                  int32_t **seq, int32_t *n);

/* One (policy, seed) run. */
int frag_run(const struct frag_input *in, const struct gpu_placement *gp, double inflate,
             uint64_t seed, struct frag_result *out, char *err, size_t errlen);

struct frag_meta {
	const char *nodes, *pods;
	double inflate;
	int64_t gpu_milli_cap;
};
int frag_write_db(const char *path, const struct frag_meta *m, int n, const struct frag_result *r,
                  char *err, size_t errlen);

/* 1 when path is a frag database (meta kind=frag), 0 when not, -1 error. */
int frag_db_is(const char *path);
int frag_report(const char *path, int json, FILE *out, char *err, size_t errlen);
/* Table at pct % arrived: per policy mean and sample sd over seeds of the
 * allocation ratio (percent), for the CLI's comparison with the paper. */
struct frag_cell {
	char policy[32];
	int n;
	double alloc_mean, alloc_sd, frag_mean, frag_sd;
};
int frag_table_at(const char *path, int pct, struct frag_cell *cells, int max, int *ncells,
                  char *err, size_t errlen);
int frag_plot(const char *path, const char *dir, char *err, size_t errlen);

#endif
