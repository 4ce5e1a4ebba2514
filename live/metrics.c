/* metrics — see metrics.h; docs/metrics.md lists the metrics. */
#include "live/metrics.h"
#include "sim/live.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <microhttpd.h>

#include "sim/engine.h"
#include "sim/fault.h"
#include "sim/power.h"

/* ---- the families ---- */

enum fam {
	F_UP, F_START_TIME, F_ENGINE_TIME,
	F_GPUS_TOTAL, F_GPUS_ALLOC, F_GPUS_RATIO, F_CORES_TOTAL, F_CORES_ALLOC, F_CORES_RATIO,
	F_JOBS, F_JOB_GPUS,
	F_NODES, F_NODE_UP, F_NODE_DRAINED, F_NODE_DRAINING, F_NODE_GPUS_UNHEALTHY, F_NODE_HOT,
	F_NODE_POWER, F_NODE_TEMP, F_NODE_UTIL, F_NODE_GPU_ERRORS, F_NODE_READING_AGE,
	F_NODE_FOREIGN_CORES, F_NODE_FOREIGN_GPUS,
	F_RACK_POWER, F_RACK_CAP, F_RACK_WARNING, F_RACK_TEMP_MAX,
	F_SUBMITS, F_STARTS, F_ENDS, F_CANCELS, F_PREEMPTIONS, F_REQUEUES, F_PASSES, F_PASS_SECONDS,
	F_WAIT_HIST, F_PASS_HIST, F_TENANT_GPUS, F_TENANT_CORES,
	F_N
};

#define G METRICS_GAUGE
#define C METRICS_COUNTER
#define H METRICS_HISTOGRAM
const struct metrics_family metrics_families[] = {
	[F_UP] = { "hetlab_up", G, "", "1 while the hetlab live daemon serves metrics." },
	[F_START_TIME] = { "hetlab_start_time_seconds", G, "", "When the daemon started, unix seconds." },
	[F_ENGINE_TIME] = { "hetlab_engine_time_seconds", G, "", "The engine's clock, seconds since its start." },
	[F_GPUS_TOTAL] = { "hetlab_gpus_total", G, "model", "GPUs in the cluster (nodes not absent), by GPU model." },
	[F_GPUS_ALLOC] = { "hetlab_gpus_allocated", G, "model",
	                   "GPUs holding a job (whole, time-sliced or MIG), by GPU model." },
	[F_GPUS_RATIO] = { "hetlab_gpus_allocated_ratio", G, "", "Allocated GPUs over total GPUs (0 without GPUs)." },
	[F_CORES_TOTAL] = { "hetlab_cores_total", G, "", "CPU cores in the cluster (nodes not absent)." },
	[F_CORES_ALLOC] = { "hetlab_cores_allocated", G, "", "CPU cores allocated to jobs." },
	[F_CORES_RATIO] = { "hetlab_cores_allocated_ratio", G, "", "Allocated cores over total cores (0 without cores)." },
	[F_JOBS] = { "hetlab_jobs", G, "class,state", "Submitted jobs not yet ended, by class and state." },
	[F_JOB_GPUS] = { "hetlab_job_gpus", G, "class,state",
	                 "GPUs the jobs of hetlab_jobs ask for (a shared or MIG request counts one card)." },
	[F_NODES] = { "hetlab_nodes", G, "state", "Nodes by service state (up, draining, drained, down, absent)." },
	[F_NODE_UP] = { "hetlab_node_up", G, "node,rack",
	                "1 when the node is in service or draining/drained, 0 when down. Absent nodes have no series." },
	[F_NODE_DRAINED] = { "hetlab_node_drained", G, "node,rack", "1 when the node is drained (takes no work, is empty)." },
	[F_NODE_DRAINING] = { "hetlab_node_draining", G, "node,rack",
	                      "1 when the node is draining (takes no new work, jobs still on it)." },
	[F_NODE_GPUS_UNHEALTHY] = { "hetlab_node_gpus_unhealthy", G, "node,rack",
	                            "GPUs of the node fallen off the bus or degraded (health record; only with faults on)." },
	[F_NODE_HOT] = { "hetlab_node_hot", G, "node,rack",
	                 "1 while the node's readings are at or above the daemon's hot_c (the health monitor drains it)." },
	[F_NODE_POWER] = { "hetlab_node_power_watts", G, "node,rack", "Measured node power from its last reading." },
	[F_NODE_TEMP] = { "hetlab_node_temperature_celsius", G, "node,rack",
	                  "Hottest sensor (CPU/GPU) of the node's last reading." },
	[F_NODE_UTIL] = { "hetlab_node_utilization_ratio", G, "node,rack", "Measured busy fraction 0..1 of the node's last reading." },
	[F_NODE_GPU_ERRORS] = { "hetlab_node_gpu_errors", G, "node,rack",
	                        "GPU health events (XID, uncorrected ECC) in the node's last reading." },
	[F_NODE_READING_AGE] = { "hetlab_node_reading_age_seconds", G, "node,rack",
	                         "Age of the node's last reading on the engine's clock." },
	[F_NODE_FOREIGN_CORES] = { "hetlab_node_foreign_cores", G, "node,rack",
	                           "Cores of the node that jobs not hetlab's hold (Slurm executor): not for the policy." },
	[F_NODE_FOREIGN_GPUS] = { "hetlab_node_foreign_gpus", G, "node,rack",
	                          "GPUs of the node that jobs not hetlab's hold (Slurm executor)." },
	[F_RACK_POWER] = { "hetlab_rack_power_watts", G, "rack",
	                   "Rack power: the sum of its nodes' readings; the power model's when none has one." },
	[F_RACK_CAP] = { "hetlab_rack_power_cap_watts", G, "rack", "Rack power cap (racks without a cap have no series)." },
	[F_RACK_WARNING] = { "hetlab_rack_warning", G, "rack",
	                     "1 when the rack is in power warning: flagged by the power model, or measured power at or above the warning fraction of its cap." },
	[F_RACK_TEMP_MAX] = { "hetlab_rack_temperature_max_celsius", G, "rack",
	                      "Hottest node of the rack: from readings; the thermal model's when none has one." },
	[F_SUBMITS] = { "hetlab_job_submits_total", C, "", "Jobs submitted." },
	[F_STARTS] = { "hetlab_job_starts_total", C, "", "Job starts (a requeued job counts each start)." },
	[F_ENDS] = { "hetlab_job_ends_total", C, "state", "Jobs ended, by final state." },
	[F_CANCELS] = { "hetlab_job_cancels_total", C, "", "Jobs cancelled by an operator." },
	[F_PREEMPTIONS] = { "hetlab_preemptions_total", C, "", "Preemptions decided." },
	[F_REQUEUES] = { "hetlab_requeues_total", C, "", "Preempted jobs requeued to pending." },
	[F_PASSES] = { "hetlab_scheduling_passes_total", C, "", "Scheduling passes run." },
	[F_PASS_SECONDS] = { "hetlab_scheduling_pass_seconds", G, "", "Wall time of the last scheduling pass." },
	[F_WAIT_HIST] = { "hetlab_job_wait_seconds", H, "le",
	                  "Time from submit to (last) start of the submitted jobs that have started." },
	[F_PASS_HIST] = { "hetlab_scheduling_pass_duration_seconds", H, "le", "Wall time of every scheduling pass." },
	[F_TENANT_GPUS] = { "hetlab_tenant_gpus_allocated", G, "tenant",
	                    "GPUs held by the tenant's running jobs (a shared or MIG request counts one card)." },
	[F_TENANT_CORES] = { "hetlab_tenant_cores_allocated", G, "tenant", "CPU cores held by the tenant's running jobs." },
	[F_N] = { NULL, 0, NULL, NULL },
};
#undef G
#undef C
#undef H

/* The same bounds as analysis/openmetrics.c's (tests/unit/test_openmetrics.c). */
const double metrics_wait_buckets_s[] = { 1, 10, 60, 300, 900, 3600, 4 * 3600, 12 * 3600, 86400, 7 * 86400 };
const int metrics_nwait_buckets = (int)(sizeof metrics_wait_buckets_s / sizeof metrics_wait_buckets_s[0]);
const double metrics_pass_buckets_s[] = { 1e-5, 1e-4, 1e-3, 0.01, 0.1, 1, 10 };
const int metrics_npass_buckets = (int)(sizeof metrics_pass_buckets_s / sizeof metrics_pass_buckets_s[0]);

static void hist_add(struct metrics_hist *h, const double *bounds, int nb, double x)
{
	int k = 0;
	while (k < nb && !(x <= bounds[k]))
		k++;
	h->bucket[k]++;
	h->count++;
	h->sum += x;
}

void metrics_observe_left_wait(struct metrics_counters *c, double seconds)
{
	hist_add(&c->left_waits, metrics_wait_buckets_s, metrics_nwait_buckets, seconds);
}

void metrics_observe_pass(struct metrics_counters *c, double seconds)
{
	c->passes++;
	c->last_pass_s = seconds;
	hist_add(&c->pass_hist, metrics_pass_buckets_s, metrics_npass_buckets, seconds);
}

/* ---- the output buffer ---- */

struct out {
	char **buf;
	size_t *cap;
	size_t len;
	bool oom;
};

/* Room for n more bytes and the NUL. */
static bool reserve(struct out *o, size_t n)
{
	if (o->oom)
		return false;
	if (o->len + n + 1 <= *o->cap)
		return true;
	size_t nc = *o->cap > 0 ? *o->cap : 16384;
	while (nc < o->len + n + 1)
		nc *= 2;
	char *p = realloc(*o->buf, nc);
	if (!p) {
		o->oom = true;
		return false;
	}
	*o->buf = p;
	*o->cap = nc;
	return true;
}

static void put(struct out *o, const char *s, size_t n)
{
	if (!reserve(o, n))
		return;
	memcpy(*o->buf + o->len, s, n);
	o->len += n;
}

static void puts0(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_escaped(struct out *o, const char *v, size_t n)
{
	if (!reserve(o, 2 * n))
		return;
	char *d = *o->buf + o->len;
	for (size_t i = 0; i < n; i++) {
		char ch = v[i];
		if (ch == '\\' || ch == '"') {
			*d++ = '\\';
			*d++ = ch;
		} else if (ch == '\n') {
			*d++ = '\\';
			*d++ = 'n';
		} else {
			*d++ = ch;
		}
	}
	o->len = (size_t)(d - *o->buf);
}

size_t metrics_escape_label(char *dst, size_t dstlen, const char *v, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = v[i];
		char e[2] = { ch, 0 };
		int w = 1;
		if (ch == '\\' || ch == '"' || ch == '\n') {
			e[0] = '\\';
			e[1] = ch == '\n' ? 'n' : ch;
			w = 2;
		}
		for (int j = 0; j < w; j++, k++)
			if (dstlen > 0 && k < dstlen - 1)
				dst[k] = e[j];
	}
	if (dstlen > 0)
		dst[k < dstlen - 1 ? k : dstlen - 1] = '\0';
	return k;
}

/* A formatted value: its text in a small buffer. */
struct val {
	char s[40];
};

static struct val vf(double x)
{
	struct val v;
	if (isinf(x))
		snprintf(v.s, sizeof v.s, "%s", x > 0 ? "+Inf" : "-Inf");
	else
		snprintf(v.s, sizeof v.s, "%.15g", x);
	return v;
}

static struct val vi(int64_t x)
{
	struct val v;
	snprintf(v.s, sizeof v.s, "%" PRId64, x);
	return v;
}

static struct val vu(uint64_t x)
{
	struct val v;
	snprintf(v.s, sizeof v.s, "%" PRIu64, x);
	return v;
}

struct lab {
	const char *k;
	const char *v;
	size_t n;
};

static void header(struct out *o, int f)
{
	const struct metrics_family *m = &metrics_families[f];
	puts0(o, "# HELP ");
	puts0(o, m->name);
	put(o, " ", 1);
	puts0(o, m->help);
	puts0(o, "\n# TYPE ");
	puts0(o, m->name);
	puts0(o, m->type == METRICS_COUNTER ? " counter\n" : m->type == METRICS_HISTOGRAM ? " histogram\n" : " gauge\n");
}

static void sample(struct out *o, int f, const struct lab *l, int nl, const struct val *v)
{
	puts0(o, metrics_families[f].name);
	if (nl > 0) {
		put(o, "{", 1);
		for (int i = 0; i < nl; i++) {
			if (i > 0)
				put(o, ",", 1);
			puts0(o, l[i].k);
			put(o, "=\"", 2);
			put_escaped(o, l[i].v, l[i].n);
			put(o, "\"", 1);
		}
		put(o, "}", 1);
	}
	put(o, " ", 1);
	puts0(o, v->s);
	put(o, "\n", 1);
}

static struct lab lab_s(const char *k, const char *v)
{
	return (struct lab){ k, v, strlen(v) };
}

static struct lab lab_name(const char *k, const char *v, size_t max)
{
	return (struct lab){ k, v, strnlen(v, max) };
}

/* ---- what is rendered ---- */

static const char *const svc_names[] = {
	[NODE_UP] = "up", [NODE_DRAINING] = "draining", [NODE_DRAINED] = "drained",
	[NODE_DOWN] = "down", [NODE_ABSENT] = "absent",
};
enum { NSVC = (int)(sizeof svc_names / sizeof svc_names[0]) };

static int node_svc(const struct cluster *cl, int32_t i)
{
	int v = cl->svc ? cl->svc[i] : NODE_UP;
	return v >= 0 && v < NSVC ? v : NODE_DOWN;
}

/* A GPU holds a job when it is shared or MIG and has a tenant, or is a
 * whole card out of the free mask that has not fallen off the bus (the
 * engine's gpus_busy counts the same way). */
static void node_gpus(const struct cluster *cl, int32_t i, int64_t *busy)
{
	const struct node *n = &cl->nodes[i];
	const struct nodefree *f = &cl->free[i];
	int64_t b = 0;
	for (int g = 0; g < n->ngpus; g++) {
		const struct gpustate *gs = &cl->gpu[n->gpu0 + g];
		if (gs->nshare > 0)
			b++;
		else if (!gs->mig && !((f->gpu_free >> g) & 1u) && !(cl->health && cl->health[i].gpu_speed[g] <= 0))
			b++;
	}
	*busy = b;
}

static void render_gpus(struct out *o, const struct cluster *cl)
{
	enum { NM = 64 };   /* catalog models tallied in one pass; the rest (none today) one pass each */
	int64_t tot[NM] = { 0 }, used[NM] = { 0 };
	bool any[NM] = { false }, more = false;
	for (int32_t i = 0; i < cl->nnodes; i++) {
		const struct node *n = &cl->nodes[i];
		if (n->gpu_model < 0 || n->ngpus <= 0 || node_svc(cl, i) == NODE_ABSENT)
			continue;
		if (n->gpu_model >= NM) {
			more = true;
			continue;
		}
		int64_t b;
		node_gpus(cl, i, &b);
		any[n->gpu_model] = true;
		tot[n->gpu_model] += n->ngpus;
		used[n->gpu_model] += b;
	}
	for (int pass = 0; pass < 2; pass++) {
		int f = pass == 0 ? F_GPUS_TOTAL : F_GPUS_ALLOC;
		header(o, f);
		for (int m = 0; m < cl->cat.ngpus; m++) {
			int64_t t = 0, u = 0;
			bool have = false;
			if (m < NM) {
				have = any[m], t = tot[m], u = used[m];
			} else if (more) {
				for (int32_t i = 0; i < cl->nnodes; i++) {
					const struct node *n = &cl->nodes[i];
					if (n->gpu_model != m || n->ngpus <= 0 || node_svc(cl, i) == NODE_ABSENT)
						continue;
					int64_t b;
					node_gpus(cl, i, &b);
					have = true, t += n->ngpus, u += b;
				}
			}
			if (!have)
				continue;
			struct lab l = lab_name("model", cl->cat.gpus[m].name, HL_NAME_MAX);
			struct val v = vi(pass == 0 ? t : u);
			sample(o, f, &l, 1, &v);
		}
	}
	struct val v = vf(cl->total_gpus > 0 ? (double)cl->gpus_busy / (double)cl->total_gpus : 0);
	header(o, F_GPUS_RATIO);
	sample(o, F_GPUS_RATIO, NULL, 0, &v);
	int64_t cores_alloc = cl->total_cores - cl->free_cores;
	header(o, F_CORES_TOTAL);
	v = vi(cl->total_cores);
	sample(o, F_CORES_TOTAL, NULL, 0, &v);
	header(o, F_CORES_ALLOC);
	v = vi(cores_alloc);
	sample(o, F_CORES_ALLOC, NULL, 0, &v);
	header(o, F_CORES_RATIO);
	v = vf(cl->total_cores > 0 ? (double)cores_alloc / (double)cl->total_cores : 0);
	sample(o, F_CORES_RATIO, NULL, 0, &v);
}

/* Jobs by class and state: one walk over the submitted jobs (held jobs
 * are on no engine list, so the lists alone would miss them). */
static void render_jobs(struct out *o, const struct sim *s)
{
	int64_t n[JOB_NCLASS][JOB_NSTATE] = { { 0 } }, g[JOB_NCLASS][JOB_NSTATE] = { { 0 } };
	int32_t upto = s->next_submit < s->njobs ? s->next_submit : s->njobs;
	for (int32_t i = 0; i < upto; i++) {
		const struct job *j = &s->jobs[i];
		if (j->cls >= JOB_NCLASS || j->state >= JOB_NSTATE || job_state_final(j->state))
			continue;
		n[j->cls][j->state]++;
		g[j->cls][j->state] += job_req_gpus(&j->req);
	}
	for (int pass = 0; pass < 2; pass++) {
		int f = pass == 0 ? F_JOBS : F_JOB_GPUS;
		header(o, f);
		for (int c = 0; c < JOB_NCLASS; c++)
			for (int st = 0; st < JOB_NSTATE; st++) {
				if (job_state_final(st))
					continue;
				struct lab l[2] = { lab_s("class", job_class_name(c)), lab_s("state", job_state_name(st)) };
				struct val v = vi(pass == 0 ? n[c][st] : g[c][st]);
				sample(o, f, l, 2, &v);
			}
	}
}

static bool reading_ok(const struct live_reading *rd, int32_t i)
{
	return rd && rd[i].ok;
}

/* The value of per-node family f for node i; false when it has none. */
static bool node_value(const struct sim *s, const struct live_reading *rd, int f, int32_t i, double *v)
{
	const struct cluster *cl = &s->cl;
	int svc = node_svc(cl, i);
	if (svc == NODE_ABSENT)
		return false;
	switch (f) {
	case F_NODE_UP:
		*v = svc == NODE_DOWN ? 0 : 1;
		return true;
	case F_NODE_DRAINED:
		*v = svc == NODE_DRAINED;
		return true;
	case F_NODE_DRAINING:
		*v = svc == NODE_DRAINING;
		return true;
	case F_NODE_GPUS_UNHEALTHY: {
		if (!cl->health)
			return false;
		int bad = 0;
		for (int g = 0; g < cl->nodes[i].ngpus && g < 64; g++)
			bad += cl->health[i].gpu_speed[g] < 1;
		*v = bad;
		return true;
	}
	case F_NODE_HOT:
		if (!cl->health)
			return false;
		*v = cl->health[i].hot;
		return true;
	case F_NODE_POWER:
		*v = reading_ok(rd, i) ? rd[i].power_w : NAN;
		break;
	case F_NODE_TEMP:
		*v = reading_ok(rd, i) ? rd[i].temp_c : NAN;
		break;
	case F_NODE_UTIL:
		*v = reading_ok(rd, i) ? rd[i].util : NAN;
		break;
	case F_NODE_GPU_ERRORS:
		*v = reading_ok(rd, i) ? rd[i].gpu_errors : NAN;
		break;
	case F_NODE_READING_AGE:
		*v = reading_ok(rd, i) ? simtime_to_s(s->now > rd[i].at_us ? s->now - rd[i].at_us : 0) : NAN;
		break;
	case F_NODE_FOREIGN_CORES:
		*v = s->live ? s->live->foreign[i].cores : NAN;
		break;
	case F_NODE_FOREIGN_GPUS:
		*v = s->live ? hl_popcount64(s->live->foreign[i].gpus) : NAN;
		break;
	default:
		return false;
	}
	return isfinite(*v);
}

static void render_nodes(struct out *o, const struct sim *s, const struct live_reading *rd)
{
	const struct cluster *cl = &s->cl;
	int64_t by[NSVC] = { 0 };
	for (int32_t i = 0; i < cl->nnodes; i++)
		by[node_svc(cl, i)]++;
	header(o, F_NODES);
	for (int k = 0; k < NSVC; k++) {
		struct lab l = lab_s("state", svc_names[k]);
		struct val v = vi(by[k]);
		sample(o, F_NODES, &l, 1, &v);
	}
	for (int f = F_NODE_UP; f <= F_NODE_FOREIGN_GPUS; f++) {
		header(o, f);
		for (int32_t i = 0; i < cl->nnodes; i++) {
			double x;
			if (!node_value(s, rd, f, i, &x))
				continue;
			const struct node *n = &cl->nodes[i];
			struct lab l[2] = { lab_name("node", n->name, HL_NAME_MAX),
			                    lab_name("rack", cl->racks[n->rack].name, HL_NAME_MAX) };
			struct val v = vf(x);
			sample(o, f, l, 2, &v);
		}
	}
}

/* One rack's figures from its nodes' readings, else from the models. */
struct rackfig {
	bool have_power, have_cap, have_temp;
	double power_w, cap_w, temp_c;
	bool warning;
};

static struct rackfig rack_fig(const struct sim *s, const struct live_reading *rd, int32_t k, bool want_temp)
{
	const struct cluster *cl = &s->cl;
	const struct rack *r = &cl->racks[k];
	const struct power_state *pw = cl->pw;
	struct rackfig x = { .power_w = 0, .temp_c = -INFINITY };
	int np = 0, nt = 0;
	for (int32_t i = r->first_node; i < r->first_node + r->nnodes; i++) {
		if (!reading_ok(rd, i))
			continue;
		if (isfinite(rd[i].power_w)) {
			x.power_w += rd[i].power_w;
			np++;
		}
		if (isfinite(rd[i].temp_c)) {
			x.temp_c = rd[i].temp_c > x.temp_c ? rd[i].temp_c : x.temp_c;
			nt++;
		}
	}
	x.have_power = np > 0;
	if (!x.have_power && pw) {
		x.power_w = pw->rack[k].power_w;
		x.have_power = isfinite(x.power_w);
	}
	if (nt == 0 && pw && want_temp) {   /* the thermal model costs an exp() per node */
		for (int32_t i = r->first_node; i < r->first_node + r->nnodes; i++) {
			if (node_svc(cl, i) == NODE_ABSENT)
				continue;
			double t = power_node_temp_at(cl, i, s->now);
			if (isfinite(t)) {
				x.temp_c = t > x.temp_c ? t : x.temp_c;
				nt++;
			}
		}
	}
	x.have_temp = nt > 0;
	x.cap_w = pw ? pw->rack[k].cap_w : r->cap_w;
	x.have_cap = isfinite(x.cap_w) && x.cap_w > 0;
	double warn_frac = pw ? pw->cfg.warn_frac : 0.9;
	x.warning = (pw && (pw->rack[k].flags & (PW_RACK_WARN | PW_RACK_OVER))) ||
	            (np > 0 && x.have_cap && x.power_w >= warn_frac * x.cap_w);
	return x;
}

static void render_racks(struct out *o, const struct sim *s, const struct live_reading *rd)
{
	const struct cluster *cl = &s->cl;
	for (int f = F_RACK_POWER; f <= F_RACK_TEMP_MAX; f++) {
		header(o, f);
		for (int32_t k = 0; k < cl->nracks; k++) {
			struct rackfig x = rack_fig(s, rd, k, f == F_RACK_TEMP_MAX);
			double v;
			if (f == F_RACK_POWER && x.have_power)
				v = x.power_w;
			else if (f == F_RACK_CAP && x.have_cap)
				v = x.cap_w;
			else if (f == F_RACK_WARNING)
				v = x.warning;
			else if (f == F_RACK_TEMP_MAX && x.have_temp)
				v = x.temp_c;
			else
				continue;
			struct lab l = lab_name("rack", cl->racks[k].name, HL_NAME_MAX);
			struct val vv = vf(v);
			sample(o, f, &l, 1, &vv);
		}
	}
}

/* A histogram's samples: NAME_bucket{le=...} cumulative, _sum, _count. */
static void histogram(struct out *o, int f, const struct metrics_hist *h, const double *bounds, int nb)
{
	const char *name = metrics_families[f].name;
	uint64_t cum = 0;
	header(o, f);
	for (int k = 0; k <= nb; k++) {
		char le[40];
		cum += h->bucket[k];
		struct val v = k < nb ? vf(bounds[k]) : vf(INFINITY);
		snprintf(le, sizeof le, "%s", v.s);
		puts0(o, name);
		puts0(o, "_bucket{le=\"");
		puts0(o, le);
		puts0(o, "\"} ");
		puts0(o, vu(cum).s);
		put(o, "\n", 1);
	}
	puts0(o, name);
	puts0(o, "_sum ");
	puts0(o, vf(h->sum).s);
	put(o, "\n", 1);
	puts0(o, name);
	puts0(o, "_count ");
	puts0(o, vu(h->count).s);
	put(o, "\n", 1);
}

/* The wait histogram over the submitted jobs that have started, and the
 * allocation per tenant of the running ones: one walk each, no allocation
 * (tenants past TENANTS_MAX are summed as tenant="other"). */
#define TENANTS_MAX 256
static void render_waits_tenants(struct out *o, const struct sim *s, const struct metrics_counters *c)
{
	struct metrics_hist h;
	if (c)
		h = c->left_waits;   /* the jobs no longer in the engine's tables */
	else
		memset(&h, 0, sizeof h);
	int32_t upto = s->next_submit < s->njobs ? s->next_submit : s->njobs;
	for (int32_t i = 0; i < upto; i++) {
		const struct job *j = &s->jobs[i];
		if (j->start_us >= 0 && j->start_us >= j->submit_us)
			hist_add(&h, metrics_wait_buckets_s, metrics_nwait_buckets,
			         simtime_to_s(j->start_us - j->submit_us));
	}
	histogram(o, F_WAIT_HIST, &h, metrics_wait_buckets_s, metrics_nwait_buckets);

	int64_t gpus[TENANTS_MAX + 1] = { 0 }, cores[TENANTS_MAX + 1] = { 0 };
	bool seen[TENANTS_MAX + 1] = { false };
	for (int32_t k = 0; k < s->nrunning; k++) {
		const struct job *j = &s->jobs[s->running[k]];
		int t = j->tenant >= 0 && j->tenant < TENANTS_MAX ? j->tenant : TENANTS_MAX;
		seen[t] = true;
		gpus[t] += job_req_gpus(&j->req);
		cores[t] += job_req_cores(&j->req);
	}
	const struct org *org = s->cfg.org;
	/* every tenant of the org has a series (0 when idle); others when running */
	for (int t = 0; org && t < org->nt && t < TENANTS_MAX; t++)
		seen[t] = true;
	for (int pass = 0; pass < 2; pass++) {
		int f = pass == 0 ? F_TENANT_GPUS : F_TENANT_CORES;
		header(o, f);
		for (int t = 0; t <= TENANTS_MAX; t++) {
			if (!seen[t])
				continue;
			char idx[16];
			snprintf(idx, sizeof idx, "%d", t);
			const char *name = t == TENANTS_MAX ? "other" : org && t < org->nt && org->t[t].name[0]
			                   ? org->t[t].name : idx;
			struct lab l = lab_name("tenant", name, ORG_NAME_MAX);
			struct val v = vi(pass == 0 ? gpus[t] : cores[t]);
			sample(o, f, &l, 1, &v);
		}
	}
}

static void counter(struct out *o, int f, uint64_t x)
{
	header(o, f);
	struct val v = vu(x);
	sample(o, f, NULL, 0, &v);
}

static void render_counters(struct out *o, const struct metrics_counters *c)
{
	counter(o, F_SUBMITS, c->submits);
	counter(o, F_STARTS, c->starts);
	header(o, F_ENDS);
	for (int st = 0; st < JOB_NSTATE && st < 8; st++) {
		if (!job_state_final(st))
			continue;
		struct lab l = lab_s("state", job_state_name(st));
		struct val v = vu(c->ends[st]);
		sample(o, F_ENDS, &l, 1, &v);
	}
	counter(o, F_CANCELS, c->cancels);
	counter(o, F_PREEMPTIONS, c->preemptions);
	counter(o, F_REQUEUES, c->requeues);
	counter(o, F_PASSES, c->passes);
	header(o, F_PASS_SECONDS);
	if (isfinite(c->last_pass_s)) {
		struct val v = vf(c->last_pass_s);
		sample(o, F_PASS_SECONDS, NULL, 0, &v);
	}
	histogram(o, F_PASS_HIST, &c->pass_hist, metrics_pass_buckets_s, metrics_npass_buckets);
}

long metrics_render(char **buf, size_t *cap, const struct sim *s, const struct live_reading *rd,
                    const struct metrics_counters *c)
{
	struct out o = { .buf = buf, .cap = cap };
	struct val v = vi(1);
	header(&o, F_UP);
	sample(&o, F_UP, NULL, 0, &v);
	if (c) {
		header(&o, F_START_TIME);
		v = vi(c->started_unix);
		sample(&o, F_START_TIME, NULL, 0, &v);
	}
	header(&o, F_ENGINE_TIME);
	v = vf(simtime_to_s(s->now));
	sample(&o, F_ENGINE_TIME, NULL, 0, &v);
	render_gpus(&o, &s->cl);
	render_jobs(&o, s);
	render_nodes(&o, s, rd);
	render_racks(&o, s, rd);
	render_waits_tenants(&o, s, c);
	if (c)
		render_counters(&o, c);
	if (!reserve(&o, 0))
		return -1;
	(*buf)[o.len] = '\0';
	return (long)o.len;
}

/* ---- the server ---- */

struct metrics_srv {
	struct MHD_Daemon *d;
	pthread_mutex_t mu;          /* guards everything below */
	char *text;
	size_t len, cap;
	bool published, healthy;
	char why[256];
	char log[256];               /* libmicrohttpd's last error message */
	int port;
};

static const char ctype_metrics[] = "text/plain; version=0.0.4; charset=utf-8";
static const char ctype_text[] = "text/plain; charset=utf-8";

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *body, size_t len,
                             const char *ctype)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)(len ? body : ""),
	                                                         MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	enum MHD_Result ok = MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	if (ok == MHD_YES && status == MHD_HTTP_METHOD_NOT_ALLOWED)
		ok = MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (ok == MHD_YES)
		ok = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size,
                              void **con_cls)
{
	struct metrics_srv *m = cls;
	(void)version, (void)upload_data, (void)upload_data_size, (void)con_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		static const char msg[] = "method not allowed\n";
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, msg, sizeof msg - 1, ctype_text);
	}
	enum MHD_Result ok;
	if (strcmp(url, "/metrics") == 0) {
		pthread_mutex_lock(&m->mu);
		if (m->published) {
			ok = reply(conn, MHD_HTTP_OK, m->text, m->len, ctype_metrics);
		} else {
			static const char msg[] = "no metrics published yet\n";
			ok = reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE, msg, sizeof msg - 1, ctype_text);
		}
		pthread_mutex_unlock(&m->mu);
		return ok;
	}
	if (strcmp(url, "/healthz") == 0) {
		char body[sizeof m->why + 1];
		pthread_mutex_lock(&m->mu);
		bool good = m->published && m->healthy;
		int n = snprintf(body, sizeof body, "%s\n", good ? "ok" : !m->published ? "starting" : m->why);
		pthread_mutex_unlock(&m->mu);
		return reply(conn, good ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE, body,
		             n < (int)sizeof body ? (size_t)n : sizeof body - 1, ctype_text);
	}
	static const char msg[] = "not found\n";
	return reply(conn, MHD_HTTP_NOT_FOUND, msg, sizeof msg - 1, ctype_text);
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct metrics_srv *m = cls;
	pthread_mutex_lock(&m->mu);
	vsnprintf(m->log, sizeof m->log, fmt, ap);
	size_t n = strlen(m->log);
	while (n > 0 && (m->log[n - 1] == '\n' || m->log[n - 1] == '\r'))
		m->log[--n] = '\0';
	pthread_mutex_unlock(&m->mu);
}

/* The listen address: 0, or -1 with err. */
static int parse_addr(const char *addr, int port, bool allow_public, struct sockaddr_storage *ss, bool *v6,
                      char *err, size_t errlen)
{
	memset(ss, 0, sizeof *ss);
	if (strcmp(addr, "localhost") == 0)
		addr = "127.0.0.1";
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	bool loopback;
	if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		loopback = (ntohl(a4->sin_addr.s_addr) >> 24) == 127;
		*v6 = false;
	} else if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
		if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr)) {
			/* ::ffff:a.b.c.d is the IPv4 address: an IPv6-only socket
			 * cannot bind it, so it is served as that. */
			struct in_addr v4;
			memcpy(&v4, a6->sin6_addr.s6_addr + 12, sizeof v4);
			memset(ss, 0, sizeof *ss);
			a4->sin_family = AF_INET;
			a4->sin_port = htons((uint16_t)port);
			a4->sin_addr = v4;
			loopback = (ntohl(v4.s_addr) >> 24) == 127;
			*v6 = false;
		} else {
			a6->sin6_family = AF_INET6;
			a6->sin6_port = htons((uint16_t)port);
			loopback = IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr);
			*v6 = true;
		}
	} else {
		snprintf(err, errlen, "metrics address \"%s\": expected a numeric IPv4 or IPv6 address or \"localhost\"",
		         addr);
		return -1;
	}
	if (!loopback && !allow_public) {
		snprintf(err, errlen,
		         "metrics address %s is not a loopback address: the endpoint has no authentication, "
		         "so serving it beyond this host needs allow_public",
		         addr);
		return -1;
	}
	return 0;
}

int metrics_start(struct metrics_srv **out, const char *addr, int port, bool allow_public, char *err,
                  size_t errlen)
{
	*out = NULL;
	if (!addr)
		addr = "127.0.0.1";
	if (port < 0 || port > 65535) {
		snprintf(err, errlen, "metrics port %d: expected 0..65535", port);
		return -1;
	}
	struct sockaddr_storage ss;
	bool v6;
	if (parse_addr(addr, port, allow_public, &ss, &v6, err, errlen))
		return -1;
	struct metrics_srv *m = calloc(1, sizeof *m);
	if (!m) {
		snprintf(err, errlen, "out of memory starting the metrics server");
		return -1;
	}
	if (pthread_mutex_init(&m->mu, NULL)) {
		snprintf(err, errlen, "cannot create the metrics server's mutex");
		goto free_srv;
	}
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0);
	errno = 0;
	m->d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, answer, m,
	                        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
	                        MHD_OPTION_CONNECTION_LIMIT, (unsigned)64,
	                        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10,
	                        MHD_OPTION_EXTERNAL_LOGGER, mhd_log, m,
	                        MHD_OPTION_END);
	if (!m->d) {
		int e = errno;
		snprintf(err, errlen, "cannot serve metrics on %s%s%s:%d: %s", v6 ? "[" : "", addr, v6 ? "]" : "",
		         port, m->log[0] ? m->log : e ? strerror(e) : "libmicrohttpd failed to start");
		goto destroy_mutex;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(m->d, MHD_DAEMON_INFO_BIND_PORT);
	m->port = info && info->port ? info->port : port;
	*out = m;
	return 0;

destroy_mutex:
	pthread_mutex_destroy(&m->mu);
free_srv:
	free(m);
	return -1;
}

int metrics_port(const struct metrics_srv *m)
{
	return m ? m->port : -1;
}

int metrics_publish(struct metrics_srv *m, const char *text, size_t len, bool healthy, const char *why)
{
	int rc = 0;
	pthread_mutex_lock(&m->mu);
	if (len + 1 > m->cap) {
		size_t nc = m->cap ? m->cap : 16384;
		while (nc < len + 1)
			nc *= 2;
		char *p = realloc(m->text, nc);
		if (!p) {
			rc = -1;
			goto unlock;
		}
		m->text = p;
		m->cap = nc;
	}
	if (len)
		memcpy(m->text, text, len);
	m->text[len] = '\0';
	m->len = len;
	m->published = true;
	m->healthy = healthy;
	snprintf(m->why, sizeof m->why, "%s", healthy ? "" : why && *why ? why : "unhealthy");
unlock:
	pthread_mutex_unlock(&m->mu);
	return rc;
}

void metrics_stop(struct metrics_srv *m)
{
	if (!m)
		return;
	MHD_stop_daemon(m->d);
	pthread_mutex_destroy(&m->mu);
	free(m->text);
	free(m);
}
