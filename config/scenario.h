/* scenario — loading a scenario file (JSON) and the hardware catalog into
 * plain structs: a cluster, a workload description and run settings.
 *
 * config/ holds the configuration loaders — the scenario and its blocks,
 * the catalog (config/catalog.h), sweep, plan and live files — so that
 * sim/ stays free of file formats. json_t never leaves this module.
 *
 * Errors name the file and, for syntax errors, line and column; for
 * everything else the JSON path ($.racks[2].nodes[0].count) and what was
 * expected. */
#ifndef HL_SCENARIO_H
#define HL_SCENARIO_H

#include <limits.h>
#include <stdbool.h>
#include "sim/cluster.h"
#include "sim/engine.h"
#include "sim/power.h"
#include "sim/fault.h"
#include "traces/trace.h"
#include "traces/invcluster.h"
#include "config/scnres.h"
#include "config/catalog.h"
#include "analysis/metric.h"

#define SCN_MAX_PARAMS 64

struct scn_param {
	char name[HL_NAME_MAX];
	double value;
	char path[96];         /* JSON path, for error messages */
};

enum scn_workload { SCN_TRACE, SCN_SYNTH };

struct scenario {
	char file[PATH_MAX];           /* where it came from ("(embedded)" for the default) */
	char dir[PATH_MAX];            /* relative paths are resolved against it */
	char name[64];
	uint64_t seed;
	char policy[HL_NAME_MAX];
	struct scn_param params[SCN_MAX_PARAMS];
	int nparams;
	simtime sample_every_us;
	simtime horizon_us;            /* SIMTIME_INF: until every job ends */
	enum scn_workload workload;
	bool has_workload;             /* "workload" given (live mode's scenarios omit it) */
	char trace[PATH_MAX];          /* as written; "$TRACES/..." is under the trace dir */
	bool lenient;
	bool enforce_walltime;         /* kill jobs at their walltime (default true) */
	struct swf_shape swf_shape;    /* "workload.swf": SWF request shapes (config/swfcfg.c) */
	bool speed_model;              /* runtimes are reference-device work ("runtime") */
	struct scn_place place;        /* placement strategy and label-blindness */
	struct ckpt_cfg ckpt[JOB_NCLASS];   /* "checkpoint": per class */
	struct org org;                /* "org" and its "events" (config/orgcfg.c) */
	struct scn_notify notify;      /* "notify": the preemption hook */
	struct power_cfg power;        /* "power" (config/powercfg.c); power.enabled when present */
	struct env_event *env;         /* environment "events" (owned), time order */
	struct fault_cfg fault;        /* "failures", "health", fault and join "events" */
	bool faults;                   /* any of them present: the engine models faults */
	int32_t nenv;
	struct tiered_cfg *tiered;     /* "tiered" (config/tieredcfg.c); NULL when absent */
	struct slurm_cfg *slurm;       /* "slurm" (config/slurmcfg.c); NULL when absent */
	struct metric_window measure;  /* "measure" (given false when absent) */
	char *billing_json;            /* "billing" normalised by config/billcfg.c (owned), for
	                                * recorder_set_billing; NULL when absent */
	char *cost_json;               /* "cost" as compact JSON (config/costcfg.c; owned), the
	                                * results' meta row "cost"; NULL when absent */
	struct synth_cfg synth;
	/* Cluster sized from the trace header instead of "racks". */
	bool from_trace;
	char ft_type[HL_NAME_MAX];
	int32_t ft_nodes_per_rack;
	double ft_rack_kw;
	/* Cluster built from a node inventory instead of "racks"
	 * (scenario_build_inventory, once the trace directory is known). */
	bool from_inventory;
	char inv_file[PATH_MAX];       /* as written; "$TRACES/..." is under the trace dir */
	enum inv_format inv_format;
	struct inv_map inv_map;
	int32_t inv_nodes_per_rack;
	double inv_rack_kw;
	struct cluster cl;             /* catalog + types (+ racks/nodes unless from_trace
	                                * or from_inventory) */
};

/* Loads `path` (NULL: the embedded default scenario). 0 or -1 with err. */
int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen);
/* Loads a scenario from its text; `name` is what messages call it, `dir`
 * what relative paths are resolved against. */
int scenario_load_text(const char *text, const char *name, const char *dir, struct scenario *sc,
                       char *err, size_t errlen);
void scenario_free(struct scenario *sc);
/* Resolves the trace path: "$TRACES/x" under traces_dir, else relative to
 * the scenario's directory. */
void scenario_trace_path(const struct scenario *sc, const char *traces_dir, char *out, size_t len);
/* Builds the cluster of a "from_inventory" scenario from its node list;
 * traces_dir is where "$TRACES/..." paths are looked up. */
int scenario_build_inventory(struct scenario *sc, const char *traces_dir, char *err, size_t errlen);
/* Sizes the cluster from an SWF header for "from_trace" scenarios. */
int scenario_size_from_trace(struct scenario *sc, const struct workload *w, char *err, size_t errlen);
/* Loads a workload model file: a JSON object with the keys of a scenario's
 * "workload": {"synthetic": {...}} block (what `hetlab trace fit` writes);
 * errors name the file and the JSON path from "$". */
int synth_load_file(const char *path, struct synth_cfg *out, char *err, size_t errlen);
/* The embedded default scenario's text (scenarios/default.json: what `hetlab
 * run` runs without a scenario) and the guian scenario's
 * (scenarios/guian.json: what a plan or a sweep without "scenario" varies). */
const char *scenario_default_text(void);
const char *scenario_guian_text(void);

#endif
