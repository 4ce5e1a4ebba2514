/* frag — the FGD paper's fragmentation experiment (Weng et al., ATC'23) as
 * its simulator (hkust-adsl/kubernetes-scheduler-simulator) runs it: the
 * pod list is shuffled, then tuned to inflate × the cluster's GPU capacity
 * (pods drawn uniformly with replacement are appended until the next one
 * would push the GPU request above it, or random pods removed when the
 * list is over it), and the pods are placed one at a time in that order
 * with no departures (a pod that fits nowhere fails and is skipped). After
 * each pod the state is an event: arrived GPU request, GPU allocation
 * (milli-GPUs allocated) and GPU fragmentation (the typical-pod measure of
 * policies/gpushare.h). Step k % of the results is the mean over the events
 * whose arrived request, rounded to a whole percent of capacity, is k (the
 * events of k−1..k+1 when none is), as the reference's analysis does; steps
 * run from 0 to round(inflate × 100), so 130 at the paper's 1.3.
 *
 * The node and pod lists are the openb CSVs, read here by a small parser of
 * their own (every pod row is used, Pending ones too, as the reference
 * does); a pod's gpu_spec (allowed GPU models, '|'-separated) restricts it
 * to nodes of those models, and a pod none of whose models the node list
 * has is an error naming it. One GSL RNG (mt19937) per (policy, seed)
 * drives the shuffle, the tuning, the node order and the random policy, so
 * a (policy, seed) run is reproducible bit for bit. Among nodes of equal
 * score the one first in a random order of the nodes, drawn once per run,
 * wins: the reference prefixes every node name with its place in a seeded
 * permutation and then takes the smallest name among equal scores.
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
#define FRAG_MAX_MODELS 32      /* distinct GPU models in a node list */

struct frag_input {
	int32_t nnodes;
	struct gs_node *node;   /* initial (idle) state */
	int32_t npods;
	struct gs_req *pod;     /* the pod list, in file order */
	int64_t gpu_milli_cap;  /* Σ GPUs × 1000 */
	struct gs_typical typ;  /* built from the pod list (95 % popularity) */
	int32_t nmodels;        /* node models: gs_node.model_bit = 1 << index */
	char model[FRAG_MAX_MODELS][32];
	int32_t nspec;          /* distinct gpu_spec strings, ascending; spec[0] = "" */
	char **spec;
	int32_t constrained;    /* pods with a gpu_spec */
};

int frag_input_load(const char *nodes_csv, const char *pods_csv, struct frag_input *in,
                    char *err, size_t errlen);
/* Builds the input from arrays (tests): nodes get cpu_cap = cpu_free. */
int frag_input_make(const struct gs_node *nodes, int32_t nnodes, const struct gs_req *pods,
                    int32_t npods, struct frag_input *in);
void frag_input_free(struct frag_input *in);

struct frag_step {
	int32_t pct;            /* arrived GPU request, rounded to a whole % of capacity */
	int32_t events;         /* events averaged (those of pct±1 when pct has none) */
	int64_t arrived_milli;  /* at the last of them */
	int64_t alloc_milli;    /* at the last of them */
	double alloc_ratio;     /* means over the events: allocated / capacity */
	double frag_milli;      /* fragmented milli-GPUs */
	double frag_ratio;      /* fragmented / idle */
	int32_t placed, failed; /* at the last of them */
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

/* The shuffled, tuned sequence of pod indices for a seed (tests and the
 * run). *seq is allocated; n set. */
int frag_sequence(const struct frag_input *in, double inflate, void *gsl_rng_state,
                  int32_t **seq, int32_t *n);

/* One (policy, seed) run. */
int frag_run(const struct frag_input *in, const struct gpu_placement *gp, double inflate,
             uint64_t seed, struct frag_result *out, char *err, size_t errlen);

/* The runs of every (policy, seed), on jobs worker processes (1: in this
 * one); res[p * nseeds + s] is policy gp[p] with seed seeds[s]. */
int frag_run_all(const struct frag_input *in, const struct gpu_placement *const *gp, int ngp,
                 const uint64_t *seeds, int nseeds, double inflate, int jobs,
                 struct frag_result *res, char *err, size_t errlen);

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
/* The table at 100 % and at the end point (the last step recorded) with
 * the published reference beside each cell where experiments/fragref.h knows
 * the pod list, and no reference column where it does not. For the CLI
 * (`hetlab frag`) and `hetlab report` on a frag database. */
int frag_print_table(const char *path, FILE *out, char *err, size_t errlen);
int frag_plot(const char *path, const char *dir, char *err, size_t errlen);

#endif
