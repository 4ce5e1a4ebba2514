/* report — the summary of one run printed: as aligned text for a person
 * and as JSON for a program (the Markdown and HTML documents are
 * report_doc.c's), and the entry points that read (report_load.c) and
 * compute (report_compute.c) the report first. See report.h; the formulas
 * are in docs/results.md, keep the two in step. */
#include "analysis/pparams.h"
#include "analysis/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sqlite3.h>

int report_format_parse(const char *name)
{
	if (strcmp(name, "text") == 0)
		return REPORT_TEXT;
	if (strcmp(name, "json") == 0)
		return REPORT_JSON;
	if (strcmp(name, "markdown") == 0 || strcmp(name, "md") == 0)
		return REPORT_MARKDOWN;
	if (strcmp(name, "html") == 0)
		return REPORT_HTML;
	return -1;
}

/* ---- text ---------------------------------------------------------------- */

/* `v` with `prec` decimals, or "-" when it is NaN. */
static const char *fnum(char *buf, size_t len, double v, int prec)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", prec, v);
	return buf;
}

static const char *fpct(char *buf, size_t len, double share)
{
	if (isnan(share))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f %%", 100.0 * share);
	return buf;
}

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

static void print_duration(FILE *out, double s)
{
	if (isnan(s)) {
		fputs("-", out);
		return;
	}
	int64_t t = (int64_t)llround(s);
	fprintf(out, "%.1f s (", s);
	if (t >= 86400)
		fprintf(out, "%" PRId64 "d ", t / 86400);
	fprintf(out, "%02d:%02d:%02d)", (int)(t % 86400 / 3600), (int)(t % 3600 / 60), (int)(t % 60));
}

static void text_wait_row(FILE *out, const char *name, const struct report_group *g)
{
	char b[5][32];
	fprintf(out, "  %-14s %10" PRId64 " %10" PRId64 " %11s %11s %11s %11s %11s\n", name,
	        g->jobs, g->started, fnum(b[0], 32, g->wait.mean, 1), fnum(b[1], 32, g->wait.p50, 1),
	        fnum(b[2], 32, g->wait.p95, 1), fnum(b[3], 32, g->wait.p99, 1),
	        fnum(b[4], 32, g->wait.max, 1));
}

static void text_done_row(FILE *out, const char *name, const struct report_group *g)
{
	char b[6][32];
	fprintf(out, "  %-14s %10" PRId64 " %11s %11s %11s %10s %10s %10s\n", name, g->ended,
	        fnum(b[0], 32, g->jct.mean, 1), fnum(b[1], 32, g->jct.p50, 1),
	        fnum(b[2], 32, g->jct.p95, 1), fnum(b[3], 32, g->bsld, 2),
	        fpct(b[4], 32, g->core_util), fpct(b[5], 32, g->gpu_util));
}

/* The lost-work columns when the run has any preemption, lost work or
 * checkpoint time; the hold columns when it has any hold. */
static void text_lost_head(FILE *out, const struct report *rp)
{
	if (rp->any_lost)
		fprintf(out, " %8s %11s %8s", "preempt", "lost GPU-h", "ckpt h");
	if (rp->any_hold)
		fprintf(out, " %11s %8s", "quota holds", "held h");
	fputc('\n', out);
}

static void text_lost_cells(FILE *out, const struct report *rp, const struct report_group *g)
{
	char b[3][32];
	if (rp->any_lost)
		fprintf(out, " %8" PRId64 " %11s %8s", g->preemptions,
		        fnum(b[0], 32, g->lost_gpu_s / 3600, 2), fnum(b[1], 32, g->ckpt_s / 3600, 2));
	if (rp->any_hold)
		fprintf(out, " %11" PRId64 " %8s", g->quota_holds, fnum(b[2], 32, g->held_s / 3600, 2));
	fputc('\n', out);
}

static void text_tenant_row(FILE *out, const struct report *rp, int64_t tenant,
                            const struct report_group *g)
{
	char b[6][32], nb[32];
	fprintf(out, "  %-14s %8" PRId64 " %10s %9s %9s %9s %10s %7s",
	        report_tenant_name(rp, tenant, nb, sizeof nb), g->jobs,
	        fnum(b[0], 32, g->wait.mean, 1), fnum(b[1], 32, g->wait.p50, 1),
	        fnum(b[2], 32, g->wait.p95, 1), fnum(b[3], 32, g->wait.p99, 1),
	        fnum(b[4], 32, g->jct.mean, 1), fnum(b[5], 32, g->bsld, 2));
	text_lost_cells(out, rp, g);
}

/* The sections after the samples: lost work and holds per class, the
 * tenants, the inference services, reserved and shared GPU use. */
static void print_text_org(const struct report *rp, FILE *out)
{
	if (rp->any_lost || rp->any_hold) {
		fprintf(out, "\n  %-14s %8s", "lost and held", "jobs");
		text_lost_head(out, rp);
		fprintf(out, "  %-14s %8" PRId64, "all", rp->all.jobs);
		text_lost_cells(out, rp, &rp->all);
		for (int k = 0; rp->classes.n > 1 && k < rp->classes.n; k++) {
			int i = rp->classes.order[k];
			fprintf(out, "  %-14s %8" PRId64, rp->classes.v[i], rp->per_class[i].jobs);
			text_lost_cells(out, rp, &rp->per_class[i]);
		}
	}
	if (rp->ntenants > 0) {
		fprintf(out, "\n  %-14s %8s %10s %9s %9s %9s %10s %7s", "by tenant (s)", "jobs",
		        "wait mean", "p50", "p95", "p99", "JCT mean", "bsld");
		text_lost_head(out, rp);
		for (int t = 0; t < rp->ntenants; t++)
			text_tenant_row(out, rp, rp->tenants[t], &rp->per_tenant[t]);
	}
	if (rp->nservices > 0) {
		fprintf(out, "\n  %-14s %8s %8s %14s %14s %14s\n", "service (s)", "replicas",
		        "started", "SLO violation", "delay mean", "delay max");
		for (int k = 0; k < rp->nservices; k++) {
			const struct report_service *sv = &rp->services[k];
			char b[3][32], nb[32];
			fprintf(out, "  %-14s %8" PRId64 " %8" PRId64 " %14s %14s %14s\n",
			        report_service_name(rp, sv->grp, nb, sizeof nb),
			        sv->replicas, sv->started, fnum(b[0], 32, sv->slo_violation_s, 1),
			        fnum(b[1], 32, sv->delay_mean_s, 1), fnum(b[2], 32, sv->delay_max_s, 1));
		}
	}
	const struct report_gpu_split *sp = &rp->gpu_split;
	if (!isnan(sp->inference_util)) {
		char b[4][32];
		fprintf(out, "\n  %-24s %10s %12s\n", "GPU use", "GPU-hours", "utilisation");
		fprintf(out, "  %-24s %10s %12s\n", "inference (reserved)",
		        fnum(b[0], 32, sp->inference_s / 3600, 2), fpct(b[1], 32, sp->inference_util));
		fprintf(out, "  %-24s %10s %12s\n", "offline + dev (shared)",
		        fnum(b[2], 32, sp->shared_s / 3600, 2), fpct(b[3], 32, sp->shared_util));
		if (!sp->all_runs)
			fprintf(out, "  (the last run of each job only: this file records no gpu_s)\n");
	}
}

static double share_of(double a, double b)
{
	return b > 0 ? a / b : NAN;
}

/* A row of the energy tables; jobs < 0 leaves its cell empty. */
static void text_energy_row(FILE *out, const char *name, int64_t jobs, double kwh, double cost)
{
	char b[3][32] = { "" };
	if (jobs >= 0)
		snprintf(b[0], 32, "%" PRId64, jobs);
	fprintf(out, "  %-14s %8s %12s %12s\n", name, b[0], fnum(b[1], 32, kwh, 2),
	        fnum(b[2], 32, cost, 2));
}

/* The power model's section: totals, racks, energy per tenant and class. */
static void print_text_power(const struct report *rp, FILE *out)
{
	const struct report_power *pw = &rp->power;
	if (!pw->on)
		return;
	char b[9][32];
	fprintf(out, "\n  %-13s IT energy %s kWh, facility %s kWh (PUE %s), idle %s of IT\n", "power",
	        fnum(b[0], 32, pw->it_kwh, 2), fnum(b[1], 32, pw->facility_kwh, 2),
	        fnum(b[2], 32, pw->pue, 3), fpct(b[3], 32, pw->idle_share));
	if (isnan(pw->carbon_kg))
		snprintf(b[5], 32, "not tracked");
	else
		snprintf(b[5], 32, "%.1f kg", pw->carbon_kg);
	fprintf(out, "  %-13s energy cost %s, carbon %s\n", "", fnum(b[4], 32, pw->cost, 2), b[5]);
	if (pw->nracks > 0)
		fprintf(out, "\n  %-14s %9s %9s %9s %9s %9s %10s %11s %10s\n", "rack (power)", "cap kW",
		        "peak kW", "peak/cap", "warn min", "over min", "thr GPU-h", "energy kWh",
		        "max temp C");
	for (int k = 0; k < pw->nracks; k++) {
		const struct report_rack_power *r = &pw->racks[k];
		fprintf(out, "  %-14s %9s %9s %9s %9s %9s %10s %11s %10s\n", r->name,
		        fnum(b[0], 32, r->cap_w / 1000, 2), fnum(b[1], 32, r->peak_w / 1000, 2),
		        fpct(b[2], 32, share_of(r->peak_w, r->cap_w)), fnum(b[3], 32, r->warn_s / 60, 1),
		        fnum(b[4], 32, r->over_s / 60, 1), fnum(b[5], 32, r->throttled_gpu_h, 2),
		        fnum(b[6], 32, r->energy_kwh, 2), fnum(b[7], 32, r->temp_max_c, 1));
	}
	if (!(rp->have & REPORT_HAVE_ENERGY))
		return;
	fprintf(out, "\n  %-14s %8s %12s %12s\n", "energy/tenant", "jobs", "kWh", "cost");
	for (int t = 0; t < rp->ntenants; t++)
		text_energy_row(out, report_tenant_name(rp, rp->tenants[t], b[8], 32),
		                rp->per_tenant[t].jobs, rp->per_tenant[t].energy_kwh,
		                rp->per_tenant[t].energy_cost);
	text_energy_row(out, "no job (idle)", -1, pw->idle_kwh, pw->cost - pw->jobs_cost);
	fprintf(out, "\n  %-14s %8s %12s %12s\n", "energy/class", "jobs", "kWh", "cost");
	for (int k = 0; k < rp->classes.n; k++) {
		int i = rp->classes.order[k];
		text_energy_row(out, rp->classes.v[i], rp->per_class[i].jobs,
		                rp->per_class[i].energy_kwh, rp->per_class[i].energy_cost);
	}
}

/* The operations section (the text report's last). */
static void print_text_ops(const struct report *rp, FILE *out)
{
	const struct report_ops *ops = &rp->ops;
	if (!ops->on)
		return;
	char b[5][32];
	fprintf(out, "\n  %-13s failures:", "operations");
	for (int k = 0; k < ops->nfaults; k++)
		fprintf(out, "%s %s %" PRId64, k ? "," : "", ops->faults[k].name, ops->faults[k].n);
	if (ops->nfaults == 0)
		fputs(" none", out);
	fprintf(out, "\n  %-13s node availability %s of %s node-hours present (%" PRId64 " nodes;"
	        " down %s, drained %s)\n", "", fpct(b[0], 32, ops->availability),
	        fnum(b[1], 32, ops->present_s / 3600, 2), ops->nodes,
	        fnum(b[2], 32, ops->down_s / 3600, 2), fnum(b[3], 32, ops->drained_s / 3600, 2));
	fprintf(out, "  %-13s %" PRId64 " jobs migrated by faults, %s hours of work lost", "",
	        ops->migrations, fnum(b[4], 32, ops->migration_lost_s / 3600, 2));
	if (ops->node_fail_jobs >= 0)
		fprintf(out, "; %" PRId64 " jobs failed (node_fail)", ops->node_fail_jobs);
	fprintf(out, "\n  %-13s nodes joined %" PRId64 ", left %" PRId64 "\n", "", ops->joined, ops->left);
	if (ops->ndrains > 0)
		fprintf(out, "\n  %-28s %8s %12s\n", "drained (reason)", "drains", "node-hours");
	for (int k = 0; k < ops->ndrains; k++)
		fprintf(out, "  %-28s %8" PRId64 " %12s\n", ops->drains[k].name, ops->drains[k].n,
		        fnum(b[0], 32, ops->drains[k].node_s / 3600, 2));
	if (ops->billing)
		fprintf(out, "  (invoices: hetlab bill)\n");
}

static void print_text(const struct report *rp, FILE *out)
{
	const struct report_run *r = &rp->run;
	char b[2][32];
	fprintf(out, "hetlab report: %s\n\n", rp->path);
	fprintf(out, "  %-13s %s\n", "scenario", or_dash(r->scenario));
	if (r->policy_params && r->policy_params[0]) {
		char pb[1024];
		pparams_brief(r->policy, r->policy_params, pb, sizeof pb);
		fprintf(out, "  %-13s %s (%s)\n", "policy", or_dash(r->policy), pb);
	} else
		fprintf(out, "  %-13s %s\n", "policy", or_dash(r->policy));
	if (r->placement)
		fprintf(out, "  %-13s %s\n", "placement", r->placement);
	fprintf(out, "  %-13s %s\n", "seed", or_dash(r->seed));
	fprintf(out, "  %-13s %s\n", "version", or_dash(r->version));
	fprintf(out, "  %-13s %s (skipped lines: %" PRId64 " malformed, %" PRId64 " unusable)\n",
	        "trace", or_dash(r->trace), r->skipped_malformed, r->skipped_unusable);
	fprintf(out, "  %-13s %" PRId64 " nodes, %" PRId64 " cores, %" PRId64 " GPUs\n", "cluster",
	        r->nodes, r->total_cores, r->total_gpus);
	fprintf(out, "  %-13s %.3f s, %" PRId64 " events, %" PRId64 " scheduling passes\n",
	        "wall time", r->wall_s, r->events, r->passes);
	fprintf(out, "  %-13s %s\n", "created", or_dash(r->created));
	fprintf(out, "  %-13s %s\n\n", "window", rp->window);

	fprintf(out, "  %-13s %zu:", "jobs", rp->nrows);
	for (int k = 0; k < rp->states.n; k++) {
		int i = rp->states.order[k];
		fprintf(out, "%s %s %" PRId64, k ? "," : "", rp->states.v[i], rp->states.count[i]);
	}
	if (r->rejected > 0)
		fprintf(out, " (%" PRId64 " of the killed rejected at submit: larger than the cluster)", r->rejected);
	if (r->reasons)
		fprintf(out, "\n  %-13s %s", "reasons", r->reasons);
	fprintf(out, "\n  %-13s", "classes");
	for (int k = 0; k < rp->classes.n; k++) {
		int i = rp->classes.order[k];
		fprintf(out, "%s %s %" PRId64, k ? "," : "", rp->classes.v[i], rp->classes.count[i]);
	}
	if (rp->classes.n == 0)
		fputs(" -", out);
	fprintf(out, "\n  %-13s ", "makespan");
	print_duration(out, rp->makespan_s);
	fprintf(out, "\n  %-13s cores %s, GPUs %s\n", "utilisation",
	        fpct(b[0], 32, rp->all.core_util), fpct(b[1], 32, rp->all.gpu_util));
	/* GPU utilisation per model, of the GPUs present (the registry's gpu_util{gpu=M}). */
	int nmodel = 0;
	for (size_t i = 0; i < rp->ms.n; i++)
		if (strncmp(rp->ms.v[i].name, "gpu_util{gpu=", 13) == 0) {
			const char *m = rp->ms.v[i].name + 13;
			fprintf(out, "%s%.*s %s", nmodel++ ? ", " : "  GPU models    ", (int)strlen(m) - 1, m,
			        fpct(b[0], 32, rp->ms.v[i].v));
		}
	fputs(nmodel ? "\n\n" : "\n", out);

	bool split = rp->classes.n > 1;
	fprintf(out, "  %-14s %10s %10s %11s %11s %11s %11s %11s\n", "wait (s)", "jobs", "started",
	        "mean", "p50", "p95", "p99", "max");
	text_wait_row(out, "all", &rp->all);
	for (int k = 0; split && k < rp->classes.n; k++) {
		int i = rp->classes.order[k];
		text_wait_row(out, rp->classes.v[i], &rp->per_class[i]);
	}
	fprintf(out, "\n  %-14s %10s %11s %11s %11s %10s %10s %10s\n", "completion (s)", "ended",
	        "JCT mean", "p50", "p95", "bsld", "core util", "GPU util");
	text_done_row(out, "all", &rp->all);
	for (int k = 0; split && k < rp->classes.n; k++) {
		int i = rp->classes.order[k];
		text_done_row(out, rp->classes.v[i], &rp->per_class[i]);
	}

	const struct report_samples *s = &rp->smp;
	if (s->n > 0) {
		char c[5][32];
		fprintf(out, "\n  %-13s %" PRId64 " rows, means: pending %s, running %s, core share %s,"
		        " GPU share %s, IT power %s W\n", "samples", s->n,
		        fnum(c[0], 32, s->pending, 1), fnum(c[1], 32, s->running, 1),
		        fpct(c[2], 32, s->core_share), fpct(c[3], 32, s->gpu_share),
		        fnum(c[4], 32, s->power_w, 1));
	}
	print_text_org(rp, out);
	print_text_power(rp, out);
	if (rp->cost.on) {
		char l[3][400];
		report_cost_lines(&rp->cost, l);
		fprintf(out, "\n  %-13s %s\n  %-13s %s\n  %-13s %s\n", "cost", l[0], "", l[1], "", l[2]);
	}
	print_text_ops(rp, out);
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *jreal(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *jdist(const struct report_dist *d, bool tail)
{
	json_t *o = json_object();
	json_object_set_new(o, "n", json_integer((json_int_t)d->n));
	json_object_set_new(o, "mean", jreal(d->mean));
	json_object_set_new(o, "p50", jreal(d->p50));
	json_object_set_new(o, "p95", jreal(d->p95));
	if (tail) {
		json_object_set_new(o, "p99", jreal(d->p99));
		json_object_set_new(o, "max", jreal(d->max));
	}
	return o;
}

/* An integer, or null when the file lacks the column it comes from. */
static json_t *jcount(const struct report *rp, unsigned have, int64_t v)
{
	return rp->have & have ? json_integer(v) : json_null();
}

static json_t *jhours(const struct report *rp, unsigned have, double s)
{
	return rp->have & have ? jreal(s / 3600) : json_null();
}

static json_t *jgroup(const struct report_group *g, const struct report *rp)
{
	const struct report_run *r = &rp->run;
	json_t *o = json_object();
	json_object_set_new(o, "jobs", json_integer(g->jobs));
	json_object_set_new(o, "started", json_integer(g->started));
	json_object_set_new(o, "ended", json_integer(g->ended));
	json_object_set_new(o, "core_seconds", jreal(g->core_s));
	json_object_set_new(o, "core_utilisation", jreal(g->core_util));
	if (r->total_gpus > 0) {
		json_object_set_new(o, "gpu_seconds", jreal(g->gpu_s));
		json_object_set_new(o, "gpu_utilisation", jreal(g->gpu_util));
	}
	json_object_set_new(o, "wait_s", jdist(&g->wait, true));
	json_object_set_new(o, "jct_s", jdist(&g->jct, false));
	json_object_set_new(o, "bounded_slowdown", jreal(g->bsld));
	json_object_set_new(o, "preemptions", jcount(rp, REPORT_HAVE_PREEMPTIONS, g->preemptions));
	json_object_set_new(o, "lost_gpu_hours", jhours(rp, REPORT_HAVE_LOST_GPU_S, g->lost_gpu_s));
	json_object_set_new(o, "checkpoint_hours", jhours(rp, REPORT_HAVE_CKPT_S, g->ckpt_s));
	json_object_set_new(o, "quota_holds", jcount(rp, REPORT_HAVE_HOLD_WHY, g->quota_holds));
	json_object_set_new(o, "held_hours", jhours(rp, REPORT_HAVE_HELD_S, g->held_s));
	return o;
}

/* by_tenant, services and gpu_util_split. */
static void json_org(const struct report *rp, json_t *root)
{
	char key[24];
	json_t *bt = json_object();
	for (int t = 0; t < rp->ntenants; t++) {
		char nb[32];
		snprintf(key, sizeof key, "%" PRId64, rp->tenants[t]);
		json_t *g = jgroup(&rp->per_tenant[t], rp);
		json_object_set_new(g, "name", json_string(report_tenant_name(rp, rp->tenants[t], nb, sizeof nb)));
		json_object_set_new(bt, key, g);
	}
	json_object_set_new(root, "by_tenant", bt);
	json_t *svs = json_object();
	for (int k = 0; k < rp->nservices; k++) {
		const struct report_service *sv = &rp->services[k];
		json_t *o = json_object();
		char nb[32];
		json_object_set_new(o, "name", json_string(report_service_name(rp, sv->grp, nb, sizeof nb)));
		json_object_set_new(o, "replicas", json_integer(sv->replicas));
		json_object_set_new(o, "started", json_integer(sv->started));
		json_object_set_new(o, "slo_violation_s", jreal(sv->slo_violation_s));
		json_object_set_new(o, "scale_up_delay_mean_s", jreal(sv->delay_mean_s));
		json_object_set_new(o, "scale_up_delay_max_s", jreal(sv->delay_max_s));
		snprintf(key, sizeof key, "%" PRId64, sv->grp);
		json_object_set_new(svs, key, o);
	}
	json_object_set_new(root, "services", svs);
	if (rp->run.total_gpus > 0) {
		const struct report_gpu_split *sp = &rp->gpu_split;
		json_t *o = json_object(), *a = json_object(), *b = json_object();
		json_object_set_new(a, "gpu_seconds", jreal(sp->inference_s));
		json_object_set_new(a, "utilisation", jreal(sp->inference_util));
		json_object_set_new(b, "gpu_seconds", jreal(sp->shared_s));
		json_object_set_new(b, "utilisation", jreal(sp->shared_util));
		json_object_set_new(o, "inference_reserved", a);
		json_object_set_new(o, "offline_dev_shared", b);
		json_object_set_new(o, "all_runs", json_boolean(sp->all_runs));
		json_object_set_new(root, "gpu_util_split", o);
	}
}

static json_t *jenergy(int64_t jobs, double kwh, double cost)
{
	json_t *o = json_object();
	if (jobs >= 0)
		json_object_set_new(o, "jobs", json_integer(jobs));
	json_object_set_new(o, "energy_kwh", jreal(kwh));
	json_object_set_new(o, "energy_cost", jreal(cost));
	return o;
}

/* "cost": the run's cost a year at its rate (only when priced). */
static void json_cost(const struct report *rp, json_t *root)
{
	const struct report_cost *rc = &rp->cost;
	if (!rc->on)
		return;
	json_t *o = json_object();
	json_object_set_new(o, "window_s", jreal(rc->window_s));
	json_object_set_new(o, "energy_cost", jreal(rc->energy_cost));
	json_object_set_new(o, "facility_kwh_year", jreal(rc->kwh_year));
	json_object_set_new(o, "energy_year", jreal(rc->energy_year));
	json_object_set_new(o, "maintenance_year", rc->terms ? jreal(rc->maint_year) : json_null());
	json_object_set_new(o, "space_year", rc->terms ? jreal(rc->space_year) : json_null());
	json_object_set_new(o, "nodes", jreal(rc->nodes));
	json_object_set_new(o, "racks", jreal(rc->racks));
	json_object_set_new(o, "year", jreal(rc->year));
	json_object_set_new(root, "cost", o);
}

/* "power": the power model's section (only when the run had it). */
static void json_power(const struct report *rp, json_t *root)
{
	const struct report_power *pw = &rp->power;
	if (!pw->on)
		return;
	json_t *o = json_object();
	json_object_set_new(o, "it_energy_kwh", jreal(pw->it_kwh));
	json_object_set_new(o, "facility_energy_kwh", jreal(pw->facility_kwh));
	json_object_set_new(o, "pue", jreal(pw->pue));
	json_object_set_new(o, "idle_energy_kwh", jreal(pw->idle_kwh));
	json_object_set_new(o, "idle_energy_share", jreal(pw->idle_share));
	json_object_set_new(o, "energy_cost", jreal(pw->cost));
	json_object_set_new(o, "carbon_kg", jreal(pw->carbon_kg));
	json_t *racks = json_object();
	for (int k = 0; k < pw->nracks; k++) {
		const struct report_rack_power *r = &pw->racks[k];
		json_t *x = json_object();
		json_object_set_new(x, "cap_kw", jreal(r->cap_w / 1000));
		json_object_set_new(x, "peak_kw", jreal(r->peak_w / 1000));
		json_object_set_new(x, "peak_cap_share", jreal(share_of(r->peak_w, r->cap_w)));
		json_object_set_new(x, "warn_minutes", jreal(r->warn_s / 60));
		json_object_set_new(x, "over_minutes", jreal(r->over_s / 60));
		json_object_set_new(x, "throttled_gpu_hours", jreal(r->throttled_gpu_h));
		json_object_set_new(x, "energy_kwh", jreal(r->energy_kwh));
		json_object_set_new(x, "facility_kwh", jreal(r->facility_kwh));
		json_object_set_new(x, "cost", jreal(r->cost));
		json_object_set_new(x, "temp_max_c", jreal(r->temp_max_c));
		json_object_set_new(racks, r->name, x);
	}
	json_object_set_new(o, "racks", racks);
	if (rp->have & REPORT_HAVE_ENERGY) {
		char key[24];
		json_t *bt = json_object(), *bc = json_object();
		for (int t = 0; t < rp->ntenants; t++) {
			const struct report_group *g = &rp->per_tenant[t];
			snprintf(key, sizeof key, "%" PRId64, rp->tenants[t]);
			json_object_set_new(bt, key, jenergy(g->jobs, g->energy_kwh, g->energy_cost));
		}
		for (int k = 0; k < rp->classes.n; k++) {
			int i = rp->classes.order[k];
			const struct report_group *g = &rp->per_class[i];
			json_object_set_new(bc, rp->classes.v[i], jenergy(g->jobs, g->energy_kwh, g->energy_cost));
		}
		json_object_set_new(o, "by_tenant", bt);
		json_object_set_new(o, "by_class", bc);
		json_object_set_new(o, "idle", jenergy(-1, pw->idle_kwh, pw->cost - pw->jobs_cost));
	}
	json_object_set_new(root, "power", o);
}

/* "operations": failures, availability, drains, migrations (only when
 * the file has operations events). */
static void json_ops(const struct report *rp, json_t *root)
{
	const struct report_ops *ops = &rp->ops;
	if (!ops->on)
		return;
	json_t *o = json_object(), *f = json_object(), *d = json_object();
	for (int k = 0; k < ops->nfaults; k++)
		json_object_set_new(f, ops->faults[k].name, json_integer(ops->faults[k].n));
	json_object_set_new(o, "failures", f);
	json_object_set_new(o, "nodes", json_integer(ops->nodes));
	json_object_set_new(o, "node_hours_present", jreal(ops->present_s / 3600));
	json_object_set_new(o, "node_hours_down", jreal(ops->down_s / 3600));
	json_object_set_new(o, "node_hours_drained", jreal(ops->drained_s / 3600));
	json_object_set_new(o, "node_hours_unavailable", jreal(ops->unavail_s / 3600));
	json_object_set_new(o, "node_availability", jreal(ops->availability));
	for (int k = 0; k < ops->ndrains; k++) {
		json_t *x = json_object();
		json_object_set_new(x, "drains", json_integer(ops->drains[k].n));
		json_object_set_new(x, "node_hours", jreal(ops->drains[k].node_s / 3600));
		json_object_set_new(d, ops->drains[k].name, x);
	}
	json_object_set_new(o, "drained_by_reason", d);
	json_object_set_new(o, "fault_migrations", json_integer(ops->migrations));
	json_object_set_new(o, "fault_lost_work_hours", jreal(ops->migration_lost_s / 3600));
	json_object_set_new(o, "node_fail_jobs", ops->node_fail_jobs >= 0
	                                         ? json_integer(ops->node_fail_jobs) : json_null());
	json_object_set_new(o, "nodes_joined", json_integer(ops->joined));
	json_object_set_new(o, "nodes_left", json_integer(ops->left));
	if (ops->billing)
		json_object_set_new(o, "note", json_string("invoices: hetlab bill"));
	json_object_set_new(root, "operations", o);
}

static json_t *json_report(const struct report *rp)
{
	const struct report_run *r = &rp->run;
	json_t *root = json_object();
	json_object_set_new(root, "file", json_string(rp->path));
	json_object_set_new(root, "schema_version", json_integer(rp->schema_version));

	json_t *run = json_object();
	json_object_set_new(run, "scenario", jstr(r->scenario));
	json_object_set_new(run, "policy", jstr(r->policy));
	json_object_set_new(run, "policy_params", jstr(r->policy_params));
	json_object_set_new(run, "rejected", json_integer(r->rejected));
	json_object_set_new(run, "placement", jstr(r->placement));
	json_object_set_new(run, "end_reasons", jstr(r->reasons));
	/* A seed of 2^63 or more is kept as a string of digits. */
	json_object_set_new(run, "seed", r->seed_int ? json_integer(strtoll(r->seed, NULL, 10))
	                                             : jstr(r->seed));
	json_object_set_new(run, "version", jstr(r->version));
	json_object_set_new(run, "trace", jstr(r->trace));
	json_object_set_new(run, "created", jstr(r->created));
	json_object_set_new(run, "wall_s", jreal(r->wall_s));
	json_object_set_new(run, "events", json_integer(r->events));
	json_object_set_new(run, "passes", json_integer(r->passes));
	json_object_set_new(run, "jobs", json_integer(r->jobs));
	json_object_set_new(run, "nodes", json_integer(r->nodes));
	json_object_set_new(run, "total_cores", json_integer(r->total_cores));
	json_object_set_new(run, "total_gpus", json_integer(r->total_gpus));
	json_object_set_new(run, "skipped_malformed", json_integer(r->skipped_malformed));
	json_object_set_new(run, "skipped_unusable", json_integer(r->skipped_unusable));
	json_object_set_new(root, "run", run);

	json_t *states = json_object();
	for (int k = 0; k < rp->states.n; k++) {
		int i = rp->states.order[k];
		json_object_set_new(states, rp->states.v[i], json_integer(rp->states.count[i]));
	}
	json_object_set_new(root, "states", states);
	json_t *classes = json_object();
	for (int k = 0; k < rp->classes.n; k++) {
		int i = rp->classes.order[k];
		json_object_set_new(classes, rp->classes.v[i], json_integer(rp->classes.count[i]));
	}
	json_object_set_new(root, "classes", classes);
	json_object_set_new(root, "makespan_s", jreal(rp->makespan_s));
	json_object_set_new(root, "all", jgroup(&rp->all, rp));
	if (rp->classes.n > 1) {
		json_t *pc = json_object();
		for (int k = 0; k < rp->classes.n; k++) {
			int i = rp->classes.order[k];
			json_object_set_new(pc, rp->classes.v[i], jgroup(&rp->per_class[i], rp));
		}
		json_object_set_new(root, "per_class", pc);
	}
	const struct report_samples *s = &rp->smp;
	if (s->n > 0) {
		json_t *so = json_object();
		json_object_set_new(so, "rows", json_integer(s->n));
		json_object_set_new(so, "mean_pending", jreal(s->pending));
		json_object_set_new(so, "mean_running", jreal(s->running));
		json_object_set_new(so, "mean_core_share", jreal(s->core_share));
		json_object_set_new(so, "mean_gpu_share", jreal(s->gpu_share));
		json_object_set_new(so, "mean_power_w", jreal(s->power_w));
		json_object_set_new(root, "samples", so);
	}
	json_org(rp, root);
	json_power(rp, root);
	json_cost(rp, root);
	json_ops(rp, root);
	json_object_set_new(root, "window", json_string(rp->window));
	json_t *ms = json_object();
	for (size_t i = 0; i < rp->ms.n; i++)
		json_object_set_new(ms, rp->ms.v[i].name, jreal(rp->ms.v[i].v));
	json_object_set_new(root, "metrics", ms);
	return root;
}

/* ---- entry --------------------------------------------------------------- */

int report_print(const char *db, enum report_format fmt, FILE *out, char *err, size_t errlen)
{
	return report_write(db, fmt, out, NULL, 0, err, errlen);
}

int report_write(const char *db, enum report_format fmt, FILE *out, char *warn, size_t warnlen,
                 char *err, size_t errlen)
{
	return report_write_window(db, fmt, NULL, out, warn, warnlen, err, errlen);
}

int report_write_window(const char *db, enum report_format fmt, const struct metric_window *w,
                        FILE *out, char *warn, size_t warnlen, char *err, size_t errlen)
{
	struct report rp = { .path = db, .err = err, .errlen = errlen };
	if (warn && warnlen)
		warn[0] = '\0';
	int ret = -1;
	if (report_load(&rp, w) < 0 || report_compute(&rp) < 0)
		goto out_db;

	if (fmt == REPORT_JSON) {
		json_t *root = json_report(&rp);
		int jrc = root ? json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
		                                       JSON_REAL_PRECISION(15)) : -1;
		json_decref(root);
		if (jrc < 0 || fputc('\n', out) == EOF) {
			report_failf(&rp, "cannot write the JSON report");
			goto out_db;
		}
	} else if (fmt == REPORT_MARKDOWN) {
		report_doc_markdown(&rp, out);
	} else if (fmt == REPORT_HTML) {
		if (report_doc_html(&rp, out, warn, warnlen) < 0)
			goto out_db;
	} else {
		print_text(&rp, out);
	}
	if (ferror(out) || fflush(out) == EOF) {
		report_failf(&rp, "cannot write the report");
		goto out_db;
	}
	ret = 0;
out_db:
	report_compute_fini(&rp);
	report_load_fini(&rp);
	return ret;
}
