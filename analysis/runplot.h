/* runplot — the figures of one run, drawn from its results file (run.db).
 *
 * runplot_write() opens a run database read-only and writes, through
 * analysis/plot, one figure per thing the database can show (NAME.dat and
 * NAME.gp in DIR); runplot_draw() also runs gnuplot on them (NAME.png,
 * NAME.svg). The figures, in this order, each written only when the
 * database has the rows it needs:
 *
 *   utilisation  allocated cores and GPUs as shares of those in service, over
 *                time (table sample)
 *   gpu_models   each GPU model's allocated share of its GPUs present, over
 *                time (every run of every job; the metric registry's model)
 *   wait_time    the mean wait of the jobs submitted in each interval, per
 *                class (job)
 *   queue        jobs pending and running over time (sample)
 *   power        modelled IT power over time (sample.power_w)
 *   energy       cumulative IT and facility energy and its cost over time
 *                (sample; the cost at the run's mean price per kWh)
 *   rack_power   each rack's power as a share of its cap (every rack up to
 *                16, else the 16 closest to it, the others named in the
 *                caption), with each rack's cap over time dashed in its colour
 *                when the power model recorded it (rack, rack_sample)
 *   node_temp    a heat map of the hottest node of each rack over time (one
 *                row per rack; rack_sample.temp_max, power model runs only)
 *   wait_cdf     the waiting time's empirical CDF per job class (job)
 *   tenants      allocated GPU-hours (core-hours on a cluster without GPUs)
 *                per tenant per day (per hour for runs under two days), the 8
 *                largest tenants by name and "other" stacked (job)
 *
 * docs/results.md lists the figures; keep it in step.
 *
 * Ownership: arguments are borrowed; the set is caller-owned storage.
 * Errors: 0 on success; -1 with a message naming the file in err;
 * runplot_draw returns PLOT_NOPROG (analysis/plot.h) when gnuplot is not on
 * PATH, after the data and scripts are written. */
#ifndef HL_RUNPLOT_H
#define HL_RUNPLOT_H

#include <stddef.h>

enum { RUNPLOT_MAX_FIGS = 12 };

struct runplot_set {
	int n;                                  /* figures written */
	struct {
		char name[32];                  /* file stem in the folder */
		char caption[640];              /* one sentence for a report */
	} fig[RUNPLOT_MAX_FIGS];
	char note[512];                         /* what could not be drawn and why ("" when none) */
};

/* Writes the figures' data and scripts into dir (created when missing). */
int runplot_write(const char *db, const char *dir, struct runplot_set *set, char *err,
                  size_t errlen);
/* runplot_write, then gnuplot (prog; NULL: "gnuplot" from PATH) on the
 * scripts. With no figure to draw it writes nothing more and returns 0. */
int runplot_draw(const char *db, const char *dir, const char *prog, struct runplot_set *set,
                 char *err, size_t errlen);
/* Inside runplot: the figures drawn from the registry's model of the run
 * (gpu_models, wait_time, energy), appended to the set (runplot_m.c). */
struct mrun;
int runplot_model_figs(struct mrun *r, const char *dir, struct runplot_set *set, char *err,
                       size_t errlen);
/* Removes the files runplot wrote into dir for the set (.dat .gp .png .svg). */
void runplot_remove(const char *dir, const struct runplot_set *set);

#endif
