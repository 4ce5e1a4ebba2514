/* shadow — `hetlab shadow`: hetlab read-only beside a Slurm cluster it
 * does not control (docs/forecast.md "The shadow"). Every poll it reads
 * what Slurm reports (squeue for every job, sinfo for the nodes, sacct for
 * the starts of jobs that came and went between two polls), builds the
 * Slurm twin's engine state from it (running jobs on their nodes since
 * their start, waiting jobs in Slurm's priority order, the policy `slurm`
 * with the parameters slurm.conf gives), forecasts every waiting job with
 * the daemon's forecast draws (live/fcdraw.h) and run times from the
 * predictor (live/predict.h) learned from the jobs it saw end, and records
 * each forecast, what `squeue --start` said then and each job's actual
 * start in its results (analysis/shadowdb.h), with its own accuracy.
 *
 * It never writes to Slurm: its Slurm context is read-only (sx_ctx
 * read_only: only squeue, sinfo and sacct ever run). A poll that fails
 * (a command, output that does not parse, a job on a node slurm.conf does
 * not name) is said on the log and recorded as failed; nothing else of it
 * is recorded, and the next poll tries again.
 *
 * Ownership: the options are borrowed for the call. */
#ifndef HL_LIVE_SHADOW_H
#define HL_LIVE_SHADOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct shadow_opts {
	const char *slurm_conf;      /* required: read through the twin's reader */
	const char *gres_conf;       /* NULL: none */
	const char *state_dir;       /* required: twin.json and shadow.db go there */
	double every_s;              /* between polls (default 30) */
	int draws;                   /* draws with predicted run times (default 20) */
	int64_t polls;               /* stop after this many polls; 0: until SIGINT / SIGTERM */
	double max_s;                /* stop after this long; 0: no limit */
	const char *bindir;          /* the Slurm commands' directory; NULL: PATH */
	int timeout_s;               /* per command (default 30) */
	const char *metrics_addr;    /* NULL: 127.0.0.1 */
	int metrics_port;            /* < 0: no /metrics; 0: any free port */
	const char *version;
};

/* Runs the shadow (see above); progress lines on log. 0 when it stopped
 * as asked; -1 with err when it could not start (a bad slurm.conf, the
 * state directory, the metrics port). */
int shadow_run(const struct shadow_opts *o, FILE *log, char *err, size_t errlen);

/* ---- the engine of one poll (live/shadow_eng.c) ---- */

#include "config/runasm.h"
#include "config/scenario.h"
#include "sim/engine.h"
#include "traces/trace.h"

struct shadow_eng {
	struct scenario sc;
	bool have_sc, have_run;
	struct run run;
	struct sim *s;
	struct workload w;
	int32_t *selmap;
	int32_t nselmap;
};

/* A live run of the twin's scenario (its text; name and dir for messages
 * and paths) with room for max_jobs jobs and an executor that does
 * nothing (Slurm runs the jobs). 0, or -1 with err. */
int shadow_eng_build(struct shadow_eng *e, const char *scn_text, const char *name, const char *dir,
                     int32_t max_jobs, char *err, size_t errlen);
/* Adds the job of a JSON Lines job line (docs/traces.md), submitted at
 * submit_us (≥ every earlier one's). Its engine id, or -1 with err. */
int32_t shadow_eng_add(struct shadow_eng *e, const char *line, simtime submit_us, char *err, size_t errlen);
/* The index of the node called name, or -1. */
int32_t shadow_eng_node(const struct shadow_eng *e, const char *name);
void shadow_eng_free(struct shadow_eng *e);

#endif
