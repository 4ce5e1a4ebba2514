/* report_doc — the run report as a document: Markdown tables, or one
 * self-contained HTML page with the figures inlined as SVG (see report.h).
 *
 * Both formats come from one walk over the report (doc_body) through a
 * tiny writer (struct doc) that knows how each format spells a heading, a
 * paragraph and a table. The HTML page needs no network and runs no script:
 * its CSS is inline and each figure is gnuplot's SVG file copied into the
 * page without its XML prolog and namespace declarations, its ids prefixed
 * with the figure's name so that two figures' ids never clash. */
#include "analysis/pparams.h"
#include "analysis/report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/htmlpage.h"
#include "analysis/plot.h"
#include "analysis/runplot.h"

enum { CELL = 64, MAX_COLS = 14 };

struct doc {
	FILE *out;
	bool html;
	/* HTML: the figures drawn for the page, placed next to their tables. */
	const struct runplot_set *figs;
	const char *figdir;
	bool used[RUNPLOT_MAX_FIGS];
	char *warn;
	size_t warnlen;
};

static void doc_figure(struct doc *d, const char *name);

/* The summary table's rows (report.h). */
const struct report_headline report_headlines[] = {
	{ "p95_wait", "p95 wait (s)", 0 },
	{ "p95_wait{class=training}", "p95 wait of training (s)", 0 },
	{ "mean_wait", "mean wait (s)", 0 },
	{ "mean_jct", "mean job completion time (s)", 0 },
	{ "mean_bsld", "mean bounded slowdown", 0 },
	{ "gpu_util", "GPU utilisation", 'p' },
	{ "core_util", "core utilisation", 'p' },
	{ "killed", "jobs killed", 0 },
	{ "failed", "jobs failed", 0 },
	{ "slo_violation_s", "SLO violation, all services (s)", 0 },
	{ "lost_gpu_h", "lost GPU-hours", 0 },
	{ "facility_energy_kwh", "facility energy (kWh)", 0 },
	{ "energy_cost", "energy cost", 0 },
	{ "pue", "PUE", 0 },
	{ "peak_cap", "highest rack peak / cap", 'p' },
	{ "throttled_gpu_h", "throttled GPU-hours", 0 },
	{ NULL, NULL, 0 },
};

/* ---- escaping ------------------------------------------------------------ */

static void put_html(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

/* Markdown table cell or text: a '|' would end the cell, a newline the row. */
static void put_md(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}

static void put_text(struct doc *d, const char *s)
{
	if (d->html)
		put_html(d->out, s);
	else
		put_md(d->out, s);
}

/* ---- the writer ---------------------------------------------------------- */

static void doc_heading(struct doc *d, int level, const char *text)
{
	if (d->html) {
		fprintf(d->out, "<h%d>", level);
		put_html(d->out, text);
		fprintf(d->out, "</h%d>\n", level);
	} else {
		fprintf(d->out, "%.*s ", level, "######");
		put_md(d->out, text);
		fputs("\n\n", d->out);
	}
}

static void doc_para(struct doc *d, const char *text)
{
	fputs(d->html ? "<p>" : "", d->out);
	put_text(d, text);
	fputs(d->html ? "</p>\n" : "\n\n", d->out);
}

/* A table's header; `num` says which columns are numbers (right-aligned). */
static void doc_table(struct doc *d, int ncol, const char *const *head, const bool *num)
{
	if (d->html) {
		fputs("<table>\n<tr>", d->out);
		for (int i = 0; i < ncol; i++) {
			fputs("<th>", d->out);
			put_html(d->out, head[i]);
			fputs("</th>", d->out);
		}
		fputs("</tr>\n", d->out);
		return;
	}
	for (int i = 0; i < ncol; i++) {
		fputs("| ", d->out);
		put_md(d->out, head[i]);
		fputc(' ', d->out);
	}
	fputs("|\n", d->out);
	for (int i = 0; i < ncol; i++)
		fputs(num && num[i] ? "| ---: " : "| --- ", d->out);
	fputs("|\n", d->out);
}

static void doc_row(struct doc *d, int ncol, const char *const *cell, const bool *num)
{
	if (d->html) {
		fputs("<tr>", d->out);
		for (int i = 0; i < ncol; i++) {
			fputs(num && num[i] ? "<td class=\"num\">" : "<td>", d->out);
			put_html(d->out, cell[i]);
			fputs("</td>", d->out);
		}
		fputs("</tr>\n", d->out);
		return;
	}
	for (int i = 0; i < ncol; i++) {
		fputs("| ", d->out);
		put_md(d->out, cell[i]);
		fputc(' ', d->out);
	}
	fputs("|\n", d->out);
}

static void doc_table_end(struct doc *d)
{
	fputs(d->html ? "</table>\n" : "\n", d->out);
}

/* ---- numbers ------------------------------------------------------------- */

static const char *fnum(char *buf, double v, int prec)
{
	if (isnan(v))
		snprintf(buf, CELL, "-");
	else
		snprintf(buf, CELL, "%.*f", prec, v);
	return buf;
}

static const char *fpct(char *buf, double share)
{
	if (isnan(share))
		snprintf(buf, CELL, "-");
	else
		snprintf(buf, CELL, "%.2f %%", 100.0 * share);
	return buf;
}

static const char *fint(char *buf, int64_t v)
{
	snprintf(buf, CELL, "%" PRId64, v);
	return buf;
}

static const char *fdur(char *buf, double s)
{
	if (isnan(s)) {
		snprintf(buf, CELL, "-");
		return buf;
	}
	int64_t t = (int64_t)llround(s);
	char days[24] = "";
	if (t >= 86400)
		snprintf(days, sizeof days, "%" PRId64 "d ", t / 86400);
	snprintf(buf, CELL, "%.1f s (%s%02d:%02d:%02d)", s, days, (int)(t % 86400 / 3600),
	         (int)(t % 3600 / 60), (int)(t % 60));
	return buf;
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

/* ---- the sections (the text report's, in its order) --------------------- */

static void kv(struct doc *d, const char *k, const char *v)
{
	const char *cell[2] = { k, v };
	doc_row(d, 2, cell, NULL);
}

static void run_section(struct doc *d, const struct report *rp)
{
	const struct report_run *r = &rp->run;
	char b[512];
	static const char *const head[] = { "run", "" };
	doc_table(d, 2, head, NULL);
	kv(d, "scenario", or_dash(r->scenario));
	if (r->policy_params && r->policy_params[0]) {
		char pb[448];
		pparams_brief(r->policy, r->policy_params, pb, sizeof pb);
		snprintf(b, sizeof b, "%s (%s)", or_dash(r->policy), pb);
	} else
		snprintf(b, sizeof b, "%s", or_dash(r->policy));
	kv(d, "policy", b);
	if (r->placement)
		kv(d, "placement", r->placement);
	kv(d, "seed", or_dash(r->seed));
	kv(d, "version", or_dash(r->version));
	snprintf(b, sizeof b, "%s (skipped lines: %" PRId64 " malformed, %" PRId64 " unusable)",
	         or_dash(r->trace), r->skipped_malformed, r->skipped_unusable);
	kv(d, "trace", b);
	snprintf(b, sizeof b, "%" PRId64 " nodes, %" PRId64 " cores, %" PRId64 " GPUs", r->nodes,
	         r->total_cores, r->total_gpus);
	kv(d, "cluster", b);
	snprintf(b, sizeof b, "%.3f s, %" PRId64 " events, %" PRId64 " scheduling passes",
	         r->wall_s, r->events, r->passes);
	kv(d, "wall time", b);
	kv(d, "created", or_dash(r->created));
	if (r->reasons)
		kv(d, "end reasons", r->reasons);
	doc_table_end(d);
}

static void jobs_section(struct doc *d, const struct report *rp)
{
	char b[3][CELL];
	static const bool num[] = { false, true };
	doc_heading(d, 2, "Jobs");
	static const char *const hs[] = { "state", "jobs" };
	doc_table(d, 2, hs, num);
	for (int k = 0; k < rp->states.n; k++) {
		int i = rp->states.order[k];
		const char *cell[2] = { rp->states.v[i], fint(b[0], rp->states.count[i]) };
		doc_row(d, 2, cell, num);
	}
	const char *all[2] = { "all", fint(b[0], (int64_t)rp->nrows) };
	doc_row(d, 2, all, num);
	doc_table_end(d);
	if (rp->run.rejected > 0) {
		char p[160];
		snprintf(p, sizeof p, "%" PRId64 " of the killed jobs were rejected at submit: larger "
		         "than the cluster.", rp->run.rejected);
		doc_para(d, p);
	}
	static const char *const hc[] = { "class", "jobs" };
	doc_table(d, 2, hc, num);
	for (int k = 0; k < rp->classes.n; k++) {
		int i = rp->classes.order[k];
		const char *cell[2] = { rp->classes.v[i], fint(b[0], rp->classes.count[i]) };
		doc_row(d, 2, cell, num);
	}
	doc_table_end(d);
	static const char *const hm[] = { "makespan", "core utilisation", "GPU utilisation" };
	static const bool nm[] = { true, true, true };
	doc_table(d, 3, hm, nm);
	const char *cell[3] = { fdur(b[0], rp->makespan_s), fpct(b[1], rp->all.core_util),
	                        fpct(b[2], rp->all.gpu_util) };
	doc_row(d, 3, cell, nm);
	doc_table_end(d);
	doc_figure(d, "utilisation");
	doc_figure(d, "gpu_models");
}

static void wait_row(struct doc *d, const char *name, const struct report_group *g,
                     const bool *num)
{
	char b[7][CELL];
	const char *cell[8] = { name, fint(b[0], g->jobs), fint(b[1], g->started),
	                        fnum(b[2], g->wait.mean, 1), fnum(b[3], g->wait.p50, 1),
	                        fnum(b[4], g->wait.p95, 1), fnum(b[5], g->wait.p99, 1),
	                        fnum(b[6], g->wait.max, 1) };
	doc_row(d, 8, cell, num);
}

static void done_row(struct doc *d, const char *name, const struct report_group *g,
                     const bool *num)
{
	char b[7][CELL];
	const char *cell[8] = { name, fint(b[0], g->ended), fnum(b[1], g->jct.mean, 1),
	                        fnum(b[2], g->jct.p50, 1), fnum(b[3], g->jct.p95, 1),
	                        fnum(b[4], g->bsld, 2), fpct(b[5], g->core_util),
	                        fpct(b[6], g->gpu_util) };
	doc_row(d, 8, cell, num);
}

static void metric_sections(struct doc *d, const struct report *rp)
{
	static const bool num[] = { false, true, true, true, true, true, true, true };
	bool split = rp->classes.n > 1;
	doc_heading(d, 2, "Waiting time (s)");
	static const char *const hw[] = { "jobs of", "jobs", "started", "mean", "p50", "p95",
	                                  "p99", "max" };
	doc_table(d, 8, hw, num);
	wait_row(d, "all", &rp->all, num);
	for (int k = 0; split && k < rp->classes.n; k++) {
		int i = rp->classes.order[k];
		wait_row(d, rp->classes.v[i], &rp->per_class[i], num);
	}
	doc_table_end(d);
	doc_figure(d, "wait_time");
	doc_figure(d, "wait_cdf");
	doc_heading(d, 2, "Completion (s)");
	static const char *const hd[] = { "jobs of", "ended", "JCT mean", "p50", "p95",
	                                  "bounded slowdown", "core util", "GPU util" };
	doc_table(d, 8, hd, num);
	done_row(d, "all", &rp->all, num);
	for (int k = 0; split && k < rp->classes.n; k++) {
		int i = rp->classes.order[k];
		done_row(d, rp->classes.v[i], &rp->per_class[i], num);
	}
	doc_table_end(d);

	const struct report_samples *s = &rp->smp;
	if (s->n > 0) {
		char b[6][CELL];
		doc_heading(d, 2, "Monitoring samples (means)");
		static const char *const hs[] = { "rows", "pending", "running", "core share",
		                                  "GPU share", "IT power (W)" };
		doc_table(d, 6, hs, num + 1);
		const char *cell[6] = { fint(b[0], s->n), fnum(b[1], s->pending, 1),
		                        fnum(b[2], s->running, 1), fpct(b[3], s->core_share),
		                        fpct(b[4], s->gpu_share), fnum(b[5], s->power_w, 1) };
		doc_row(d, 6, cell, num + 1);
		doc_table_end(d);
	}
	doc_figure(d, "queue");
}

/* Appends the lost-work columns (when the run has any preemption, lost
 * work or checkpoint time) and the hold columns (when it has any hold)
 * to a header; returns the new count. */
static int lost_head(const struct report *rp, const char **head, bool *num, int n)
{
	static const char *const lost[] = { "preemptions", "lost GPU-hours", "checkpoint hours" };
	static const char *const hold[] = { "quota holds", "held hours" };
	for (int i = 0; rp->any_lost && i < 3; i++, n++) {
		head[n] = lost[i];
		num[n] = true;
	}
	for (int i = 0; rp->any_hold && i < 2; i++, n++) {
		head[n] = hold[i];
		num[n] = true;
	}
	return n;
}

/* The same columns' cells of group g, formatted into b[0 .. 4]. */
static int lost_cells(const struct report *rp, const struct report_group *g, const char **cell,
                      char (*b)[CELL], int n)
{
	if (rp->any_lost) {
		cell[n++] = fint(b[0], g->preemptions);
		cell[n++] = fnum(b[1], g->lost_gpu_s / 3600, 2);
		cell[n++] = fnum(b[2], g->ckpt_s / 3600, 2);
	}
	if (rp->any_hold) {
		cell[n++] = fint(b[3], g->quota_holds);
		cell[n++] = fnum(b[4], g->held_s / 3600, 2);
	}
	return n;
}

static void lost_row(struct doc *d, const struct report *rp, const char *name,
                     const struct report_group *g, const bool *num)
{
	char b[6][CELL];
	const char *cell[MAX_COLS] = { name, fint(b[5], g->jobs) };
	int n = lost_cells(rp, g, cell, b, 2);
	doc_row(d, n, cell, num);
}

static void tenant_row(struct doc *d, const struct report *rp, int64_t tenant,
                       const struct report_group *g, const bool *num)
{
	char b[13][CELL];
	const char *cell[MAX_COLS] = { report_tenant_name(rp, tenant, b[5], CELL), fint(b[6], g->jobs),
	                               fnum(b[7], g->wait.mean, 1), fnum(b[8], g->wait.p50, 1),
	                               fnum(b[9], g->wait.p95, 1), fnum(b[10], g->wait.p99, 1),
	                               fnum(b[11], g->jct.mean, 1), fnum(b[12], g->bsld, 2) };
	int n = lost_cells(rp, g, cell, b, 8);
	doc_row(d, n, cell, num);
}

/* The sections after the text report's first ones, in its order: lost
 * work and holds per class, the tenants, the inference services,
 * reserved and shared GPU use. */
static void org_sections(struct doc *d, const struct report *rp)
{
	const char *head[MAX_COLS];
	bool num[MAX_COLS];
	for (int i = 0; i < MAX_COLS; i++)
		num[i] = i > 0;
	if (rp->any_lost || rp->any_hold) {
		doc_heading(d, 2, "Lost work and holds");
		head[0] = "jobs of";
		head[1] = "jobs";
		int n = lost_head(rp, head, num, 2);
		doc_table(d, n, head, num);
		lost_row(d, rp, "all", &rp->all, num);
		for (int k = 0; rp->classes.n > 1 && k < rp->classes.n; k++) {
			int i = rp->classes.order[k];
			lost_row(d, rp, rp->classes.v[i], &rp->per_class[i], num);
		}
		doc_table_end(d);
	}
	if (rp->ntenants > 0) {
		static const char *const ht[] = { "tenant", "jobs", "wait mean (s)", "p50", "p95",
		                                  "p99", "JCT mean (s)", "bounded slowdown" };
		doc_heading(d, 2, "Per tenant");
		memcpy(head, ht, sizeof ht);
		int n = lost_head(rp, head, num, 8);
		doc_table(d, n, head, num);
		for (int t = 0; t < rp->ntenants; t++)
			tenant_row(d, rp, rp->tenants[t], &rp->per_tenant[t], num);
		doc_table_end(d);
		doc_figure(d, "tenants");
	}
	if (rp->nservices > 0) {
		static const char *const hs[] = { "service", "replicas", "started",
		                                  "SLO violation (s)", "scale-up delay mean (s)",
		                                  "max delay (s)" };
		doc_heading(d, 2, "Inference services");
		doc_table(d, 6, hs, num);
		for (int k = 0; k < rp->nservices; k++) {
			const struct report_service *sv = &rp->services[k];
			char b[6][CELL];
			const char *cell[6] = { report_service_name(rp, sv->grp, b[0], CELL), fint(b[1], sv->replicas),
			                        fint(b[2], sv->started), fnum(b[3], sv->slo_violation_s, 1),
			                        fnum(b[4], sv->delay_mean_s, 1),
			                        fnum(b[5], sv->delay_max_s, 1) };
			doc_row(d, 6, cell, num);
		}
		doc_table_end(d);
	}
	const struct report_gpu_split *sp = &rp->gpu_split;
	if (!isnan(sp->inference_util)) {
		static const char *const hg[] = { "GPU capacity", "GPU-hours", "utilisation" };
		char b[4][CELL];
		doc_heading(d, 2, "GPU use: reserved and shared");
		doc_table(d, 3, hg, num);
		const char *ci[3] = { "inference (reserved)", fnum(b[0], sp->inference_s / 3600, 2),
		                      fpct(b[1], sp->inference_util) };
		doc_row(d, 3, ci, num);
		const char *cs[3] = { "offline + dev (shared)", fnum(b[2], sp->shared_s / 3600, 2),
		                      fpct(b[3], sp->shared_util) };
		doc_row(d, 3, cs, num);
		doc_table_end(d);
		if (!sp->all_runs)
			doc_para(d, "The last run of each job only: this file records no gpu_s.");
	}
}

static void energy_row(struct doc *d, const char *name, const char *jobs, double kwh,
                       double cost, const bool *num)
{
	char b[2][CELL];
	const char *cell[4] = { name, jobs, fnum(b[0], kwh, 2), fnum(b[1], cost, 2) };
	doc_row(d, 4, cell, num);
}

/* The power model's section (the text report's last): totals, racks, and
 * the energy per tenant and class. */
static void power_sections(struct doc *d, const struct report *rp)
{
	const struct report_power *pw = &rp->power;
	if (!pw->on)
		return;
	static const bool num[] = { false, true, true, true, true, true, true, true, true };
	char b[9][CELL];
	doc_heading(d, 2, "Power and energy");
	static const char *const ht[] = { "IT energy (kWh)", "facility energy (kWh)", "PUE",
	                                  "idle energy share", "energy cost", "carbon (kg)" };
	doc_table(d, 6, ht, num + 1);
	const char *tot[6] = { fnum(b[0], pw->it_kwh, 2), fnum(b[1], pw->facility_kwh, 2),
	                       fnum(b[2], pw->pue, 3), fpct(b[3], pw->idle_share),
	                       fnum(b[4], pw->cost, 2), fnum(b[5], pw->carbon_kg, 1) };
	doc_row(d, 6, tot, num + 1);
	doc_table_end(d);
	doc_figure(d, "power");
	doc_figure(d, "energy");
	if (pw->nracks > 0) {
		static const char *const hr[] = { "rack", "cap (kW)", "peak (kW)", "peak / cap",
		                                  "minutes in warning", "minutes over cap",
		                                  "throttled GPU-hours", "energy (kWh)",
		                                  "hottest node (°C)" };
		doc_table(d, 9, hr, num);
		for (int k = 0; k < pw->nracks; k++) {
			const struct report_rack_power *r = &pw->racks[k];
			const char *cell[9] = { r->name, fnum(b[0], r->cap_w / 1000, 2),
			                        fnum(b[1], r->peak_w / 1000, 2),
			                        fpct(b[2], r->cap_w > 0 ? r->peak_w / r->cap_w : NAN),
			                        fnum(b[3], r->warn_s / 60, 1), fnum(b[4], r->over_s / 60, 1),
			                        fnum(b[5], r->throttled_gpu_h, 2),
			                        fnum(b[6], r->energy_kwh, 2), fnum(b[7], r->temp_max_c, 1) };
			doc_row(d, 9, cell, num);
		}
		doc_table_end(d);
		doc_figure(d, "rack_power");
		doc_figure(d, "node_temp");
	}
	if (!(rp->have & REPORT_HAVE_ENERGY))
		return;
	static const char *const he[] = { "tenant", "jobs", "energy (kWh)", "energy cost" };
	doc_heading(d, 3, "Energy per tenant");
	doc_table(d, 4, he, num);
	for (int t = 0; t < rp->ntenants; t++)
		energy_row(d, report_tenant_name(rp, rp->tenants[t], b[0], CELL), fint(b[1], rp->per_tenant[t].jobs),
		           rp->per_tenant[t].energy_kwh, rp->per_tenant[t].energy_cost, num);
	energy_row(d, "no job (idle)", "", pw->idle_kwh, pw->cost - pw->jobs_cost, num);
	doc_table_end(d);
	static const char *const hc[] = { "class", "jobs", "energy (kWh)", "energy cost" };
	doc_heading(d, 3, "Energy per class");
	doc_table(d, 4, hc, num);
	for (int k = 0; k < rp->classes.n; k++) {
		int i = rp->classes.order[k];
		energy_row(d, rp->classes.v[i], fint(b[0], rp->per_class[i].jobs),
		           rp->per_class[i].energy_kwh, rp->per_class[i].energy_cost, num);
	}
	doc_table_end(d);
}

/* The operations section (the text report's last): failures by kind,
 * node availability, drained node-hours by reason, migrations. */
static void ops_sections(struct doc *d, const struct report *rp)
{
	const struct report_ops *ops = &rp->ops;
	if (!ops->on)
		return;
	static const bool num[] = { false, true, true, true, true, true, true };
	char b[6][CELL];
	doc_heading(d, 2, "Operations");
	if (ops->nfaults > 0) {
		static const char *const hf[] = { "failure", "faults" };
		doc_table(d, 2, hf, num);
		for (int k = 0; k < ops->nfaults; k++) {
			const char *cell[2] = { ops->faults[k].name, fint(b[0], ops->faults[k].n) };
			doc_row(d, 2, cell, num);
		}
		doc_table_end(d);
	}
	static const char *const ha[] = { "nodes", "node-hours present", "down", "drained",
	                                  "node availability" };
	doc_table(d, 5, ha, num + 1);
	const char *ca[5] = { fint(b[0], ops->nodes), fnum(b[1], ops->present_s / 3600, 2),
	                      fnum(b[2], ops->down_s / 3600, 2), fnum(b[3], ops->drained_s / 3600, 2),
	                      fpct(b[4], ops->availability) };
	doc_row(d, 5, ca, num + 1);
	doc_table_end(d);
	if (ops->ndrains > 0) {
		static const char *const hd[] = { "drained (reason)", "drains", "node-hours" };
		doc_table(d, 3, hd, num);
		for (int k = 0; k < ops->ndrains; k++) {
			const char *cell[3] = { ops->drains[k].name, fint(b[0], ops->drains[k].n),
			                        fnum(b[1], ops->drains[k].node_s / 3600, 2) };
			doc_row(d, 3, cell, num);
		}
		doc_table_end(d);
	}
	static const char *const hm[] = { "jobs migrated by faults", "work lost (hours)",
	                                  "jobs failed (node_fail)", "nodes joined", "nodes left" };
	doc_table(d, 5, hm, num + 1);
	const char *cm[5] = { fint(b[0], ops->migrations), fnum(b[1], ops->migration_lost_s / 3600, 2),
	                      ops->node_fail_jobs >= 0 ? fint(b[2], ops->node_fail_jobs) : "-",
	                      fint(b[3], ops->joined), fint(b[4], ops->left) };
	doc_row(d, 5, cm, num + 1);
	doc_table_end(d);
	if (ops->billing)
		doc_para(d, "invoices: hetlab bill");
}

/* The answer first: the headline figures with their units and window. */
static void summary_section(struct doc *d, const struct report *rp)
{
	char p[640], b[2][CELL];
	const struct report_run *r = &rp->run;
	doc_heading(d, 2, "Summary");
	snprintf(p, sizeof p, "Scenario %s, policy %s, seed %s: %zu jobs on %" PRId64 " nodes (%" PRId64
	         " cores, %" PRId64 " GPUs). Measured over the %s.", or_dash(r->scenario),
	         or_dash(r->policy), or_dash(r->seed), rp->nrows, r->nodes, r->total_cores,
	         r->total_gpus, rp->window);
	doc_para(d, p);
	if (rp->ms.n == 0)
		return;
	static const char *const h[] = { "headline", "value", "unit" };
	static const bool num[] = { false, true, false };
	doc_table(d, 3, h, num);
	for (int i = 0; report_headlines[i].metric; i++) {
		double v = metric_get(&rp->ms, report_headlines[i].metric);
		if (isnan(v))
			continue;
		const char *unit = metric_unit(report_headlines[i].metric);
		if (report_headlines[i].fmt == 'p') {
			fpct(b[0], v);
			unit = "% of capacity";
		} else {
			fnum(b[0], v, v == floor(v) && fabs(v) < 1e15 ? 0 : fabs(v) < 10 ? 3 : 1);
		}
		const char *cell[3] = { report_headlines[i].label, b[0], unit };
		doc_row(d, 3, cell, num);
	}
	/* The GPU models: what decides a heterogeneous purchase. */
	for (size_t i = 0; i < rp->ms.n; i++)
		if (strncmp(rp->ms.v[i].name, "gpu_util{gpu=", 13) == 0) {
			char label[96];
			snprintf(label, sizeof label, "GPU utilisation of %.*s",
			         (int)strlen(rp->ms.v[i].name + 13) - 1, rp->ms.v[i].name + 13);
			const char *cell[3] = { label, fpct(b[1], rp->ms.v[i].v), "% of its GPUs present" };
			doc_row(d, 3, cell, num);
		}
	doc_table_end(d);
}

/* The run's cost at its rate (the plan's cost model over this run), the
 * text report's three lines. */
static void cost_section(struct doc *d, const struct report *rp)
{
	if (!rp->cost.on)
		return;
	char l[3][400];
	report_cost_lines(&rp->cost, l);
	doc_heading(d, 2, "Cost");
	for (int k = 0; k < 3; k++)
		doc_para(d, l[k]);
}

static void doc_body(struct doc *d, const struct report *rp)
{
	summary_section(d, rp);
	run_section(d, rp);
	jobs_section(d, rp);
	metric_sections(d, rp);
	org_sections(d, rp);
	power_sections(d, rp);
	cost_section(d, rp);
	ops_sections(d, rp);
}

void report_doc_markdown(const struct report *rp, FILE *out)
{
	struct doc d = { .out = out, .html = false };
	fputs("# hetlab report: ", out);
	put_md(out, rp->path);
	fputs("\n\n", out);
	doc_body(&d, rp);
	fputs("Undefined figures are shown as `-`. Definitions: docs/results.md "
	      "(\"Report metrics\").\n", out);
}

/* ---- HTML ---------------------------------------------------------------- */

static const char css[] =
	"body { font-family: sans-serif; margin: 2em auto; max-width: 70em; color: #222; "
	"padding: 0 1em; }\n"
	"table { border-collapse: collapse; margin: 0.5em 0 1.2em; }\n"
	"th, td { padding: 0.25em 0.7em; border: 1px solid #ccc; text-align: left; }\n"
	"td.num { text-align: right; font-variant-numeric: tabular-nums; }\n"
	"th { background: #f0f0f0; }\n"
	"figure { margin: 1.5em 0; }\n"
	"figure svg { width: 100%; height: auto; max-width: 1000px; display: block; }\n"
	"figure svg image { image-rendering: pixelated; image-rendering: crisp-edges; }\n"
	"h2 { border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 1.6em; }\n"
	"figcaption { color: #444; font-size: 0.95em; }\n"
	".warn { color: #9c5700; }\n"
	".note { color: #555; }\n";

static void set_warn(char *warn, size_t warnlen, const char *msg)
{
	if (warn && warnlen)
		snprintf(warn, warnlen, "%s", msg);
}

/* Puts figure `name` here, when it was drawn and not placed yet. */
static void doc_figure(struct doc *d, const char *name)
{
	if (!d->html || !d->figs)
		return;
	for (int i = 0; i < d->figs->n; i++) {
		if (d->used[i] || strcmp(d->figs->fig[i].name, name) != 0)
			continue;
		d->used[i] = true;
		char path[4200], msg[4400];
		snprintf(path, sizeof path, "%s/%s.svg", d->figdir, name);
		char *svg = htmlpage_read_all(path);
		fprintf(d->out, "<figure id=\"fig-%s\">\n", name);
		if (svg && strstr(svg, "<svg")) {
			htmlpage_svg(d->out, svg, name);
			fputc('\n', d->out);
		} else {
			snprintf(msg, sizeof msg, "%s: cannot read the figure", path);
			set_warn(d->warn, d->warnlen, msg);
			fputs("<p class=\"warn\">This figure could not be read.</p>\n", d->out);
		}
		free(svg);
		fputs("<figcaption>", d->out);
		put_html(d->out, d->figs->fig[i].caption);
		fputs("</figcaption>\n</figure>\n", d->out);
	}
}

int report_doc_html(const struct report *rp, FILE *out, char *warn, size_t warnlen)
{
	struct doc d = { .out = out, .html = true, .warn = warn, .warnlen = warnlen };
	char dir[4096], err[1024], msg[1400] = "";
	const char *tmp = getenv("TMPDIR");
	struct runplot_set set = { 0 };
	bool made = false;
	snprintf(dir, sizeof dir, "%s/hetlab-report-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		snprintf(msg, sizeof msg, "the figures could not be drawn: %s: %s", dir, strerror(errno));
	} else {
		made = true;
		int rc = runplot_draw(rp->path, dir, NULL, &set, err, sizeof err);
		if (rc == PLOT_NOPROG)
			snprintf(msg, sizeof msg, "the figures could not be drawn: gnuplot is not on PATH "
			         "(Debian: apt-get install gnuplot-nox; scripts/deps.sh does it)");
		else if (rc < 0)
			snprintf(msg, sizeof msg, "the figures could not be drawn: %s", err);
		if (rc >= 0) {
			d.figs = &set;
			d.figdir = dir;
		}
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>hetlab "
	      "report: ", out);
	put_html(out, rp->path);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>hetlab report: ", css);
	put_html(out, rp->path);
	fputs("</h1>\n", out);
	if (msg[0]) {
		set_warn(warn, warnlen, msg);
		fputs("<p class=\"warn\">The tables are complete, but ", out);
		put_html(out, msg);
		fputs(".</p>\n", out);
	}
	doc_body(&d, rp);
	/* Figures no section took (none is dropped). */
	bool more = false;
	for (int i = 0; d.figs && i < set.n; i++)
		if (!d.used[i]) {
			if (!more)
				fputs("<h2>More figures</h2>\n", out);
			more = true;
			doc_figure(&d, set.fig[i].name);
		}
	if (set.note[0]) {
		fputs("<p class=\"note\">", out);
		put_html(out, set.note);
		fputs("</p>\n", out);
	}
	fputs("<p class=\"note\">Undefined figures are shown as -. The metrics are defined in "
	      "docs/results.md (Report metrics) and docs/compare.md (Metrics).</p>\n", out);
	fputs("</body>\n</html>\n", out);
	if (made) {
		runplot_remove(dir, &set);
		rmdir(dir);
	}
	return 0;
}
