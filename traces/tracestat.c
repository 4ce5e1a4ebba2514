/* tracestat — statistics of a workload (see tracestat.h, docs/traces.md). */
#include "traces/tracestat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *tracestat_dow_name(bool utc, int d)
{
	static const char *const wd[7] = { "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun" };
	static const char *const rel[7] = { "day 0", "day 1", "day 2", "day 3", "day 4",
	                                    "day 5", "day 6" };
	if (d < 0 || d > 6)
		return "?";
	return utc ? wd[d] : rel[d];
}

void tracestat_bucket_label(int k, char *buf, size_t len)
{
	if (k <= 1)
		snprintf(buf, len, "%d", 1 << k);
	else
		snprintf(buf, len, "%lld-%lld", (1LL << (k - 1)) + 1, 1LL << k);
}

void tracestat_free(struct tracestat *s)
{
	free(s->run_sorted_us);
	free(s->model_gpu_h);
	free(s->groups);
	memset(s, 0, sizeof *s);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Nearest rank: the value at rank ceil(p n) of sorted v. */
static int64_t rank_pct(const int64_t *v, int64_t n, double p)
{
	int64_t r = (int64_t)ceil(p * (double)n - 1e-9);
	return v[r < 1 ? 0 : r - 1];
}

/* Percentiles of v (sorted in place), scaled by `unit`. */
static void pct_fill(struct tracestat_pct *p, int64_t *v, int64_t n, double unit)
{
	memset(p, 0, sizeof *p);
	p->n = n;
	if (n == 0)
		return;
	qsort(v, (size_t)n, sizeof *v, cmp_i64);
	double sum = 0;
	for (int64_t i = 0; i < n; i++)
		sum += (double)v[i];
	p->mean = sum / (double)n / unit;
	p->p50 = (double)rank_pct(v, n, 0.50) / unit;
	p->p90 = (double)rank_pct(v, n, 0.90) / unit;
	p->p95 = (double)rank_pct(v, n, 0.95) / unit;
	p->p99 = (double)rank_pct(v, n, 0.99) / unit;
	p->max = (double)v[n - 1] / unit;
}

static void size_add(struct tracestat_sizes *d, int64_t size)
{
	int k = 0;
	while (k < TRACESTAT_BUCKETS - 1 && ((int64_t)1 << k) < size)
		k++;
	d->bucket[k]++;
	d->pow2 += size > 0 && (size & (size - 1)) == 0;
	d->njobs++;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Integers s in [a, b] with (s + shift) mod m == r. */
static int64_t count_mod(int64_t a, int64_t b, int64_t m, int64_t shift, int64_t r)
{
	if (b < a)
		return 0;
	int64_t h = r - shift;
	return floor_div(b - h, m) - floor_div(a - 1 - h, m);
}

/* The UTC offset (s) of zone tz at Unix time t, from the system's zone
 * database; 0 when the zone is unknown (tz_ok false). TZ is set for the
 * call and restored. */
struct zone {
	bool on;
	char *saved;
	bool had;
};

static bool zone_enter(struct zone *z, const char *tz)
{
	char path[256];
	const char *dir = getenv("TZDIR");
	memset(z, 0, sizeof *z);
	snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", tz);
	if (!tz[0] || tz[0] == '/' || strstr(tz, "..") || access(path, R_OK) != 0)
		return false;
	const char *old = getenv("TZ");
	z->had = old != NULL;
	z->saved = old ? strdup(old) : NULL;
	if ((z->had && !z->saved) || setenv("TZ", tz, 1) != 0) {
		free(z->saved);
		return false;
	}
	tzset();
	z->on = true;
	return true;
}

static void zone_leave(struct zone *z)
{
	if (!z->on)
		return;
	if (z->had)
		setenv("TZ", z->saved, 1);
	else
		unsetenv("TZ");
	tzset();
	free(z->saved);
	z->on = false;
}

static int64_t zone_offset_s(const struct zone *z, simtime t_us)
{
	if (!z->on)
		return 0;
	time_t t = (time_t)floor_div(t_us, SIMTIME_SEC);
	struct tm tm;
	return localtime_r(&t, &tm) ? (int64_t)tm.tm_gmtoff : 0;
}

/* Arrivals by hour of day and day of week: UTC from UnixStartTime, or the
 * log's local time when its TimeZoneString names a zone this system knows
 * (daylight saving included: each arrival gets the offset of its time). */
static void profile(const struct workload *w, const uint8_t *skip, struct tracestat *s)
{
	struct zone z;
	s->utc = w->unix_start >= 0;
	if (s->utc && zone_enter(&z, w->tz))
		snprintf(s->tz, sizeof s->tz, "%s", w->tz);
	else
		z.on = false;
	simtime origin = s->utc ? w->unix_start * SIMTIME_SEC : 0;
	/* 1970-01-01 was a Thursday: day d since the epoch is weekday (d + 3) mod 7. */
	int64_t dshift = s->utc ? 3 : 0;
	for (int32_t i = 0; i < w->n; i++) {
		if (skip && skip[i])
			continue;
		simtime t = origin + w->jobs[i].submit_us;
		t += zone_offset_s(&z, t) * SIMTIME_SEC;
		s->hour_n[floor_div(t, SIMTIME_HOUR) % 24]++;
		s->dow_n[(floor_div(t, SIMTIME_DAY) + dshift) % 7]++;
	}
	/* The window's hour and day slots, in the zone of its first arrival. */
	origin += zone_offset_s(&z, origin + s->afirst_us) * SIMTIME_SEC;
	zone_leave(&z);
	if (s->arrivals == 0)
		return;
	int64_t ha = floor_div(origin + s->afirst_us, SIMTIME_HOUR);
	int64_t hb = floor_div(origin + s->alast_us, SIMTIME_HOUR);
	int64_t da = floor_div(origin + s->afirst_us, SIMTIME_DAY);
	int64_t db = floor_div(origin + s->alast_us, SIMTIME_DAY);
	for (int h = 0; h < 24; h++) {
		s->hour_slots[h] = count_mod(ha, hb, 24, 0, h);
		s->hour_rate[h] = s->hour_slots[h] ? (double)s->hour_n[h] / (double)s->hour_slots[h] : 0;
	}
	for (int d = 0; d < 7; d++) {
		s->dow_slots[d] = count_mod(da, db, 7, dshift, d);
		s->dow_rate[d] = s->dow_slots[d] ? (double)s->dow_n[d] / (double)s->dow_slots[d] : 0;
	}
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* The demand groups: every class, or the distinct queues in ascending order. */
static int groups_init(const struct workload *w, struct tracestat *s)
{
	if (s->by == TRACESTAT_BY_CLASS) {
		s->groups = calloc(JOB_NCLASS, sizeof *s->groups);
		if (!s->groups)
			return -1;
		s->ngroups = JOB_NCLASS;
		for (int c = 0; c < JOB_NCLASS; c++)
			s->groups[c].key = c;
		return 0;
	}
	int32_t *q = malloc((size_t)(w->n ? w->n : 1) * sizeof *q);
	if (!q)
		return -1;
	for (int32_t i = 0; i < w->n; i++)
		q[i] = w->jobs[i].queue;
	qsort(q, (size_t)w->n, sizeof *q, cmp_i32);
	int32_t k = 0;
	for (int32_t i = 0; i < w->n; i++)
		if (i == 0 || q[i] != q[i - 1])
			q[k++] = q[i];
	s->groups = calloc((size_t)(k ? k : 1), sizeof *s->groups);
	if (!s->groups) {
		free(q);
		return -1;
	}
	for (int32_t i = 0; i < k; i++)
		s->groups[i].key = q[i];
	s->ngroups = k;
	free(q);
	return 0;
}

static struct tracestat_group *group_of(struct tracestat *s, const struct job *j)
{
	if (s->by == TRACESTAT_BY_CLASS)
		return j->cls < JOB_NCLASS ? &s->groups[j->cls] : NULL;
	int32_t lo = 0, hi = s->ngroups - 1;
	while (lo <= hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (s->groups[mid].key == j->queue)
			return &s->groups[mid];
		if (s->groups[mid].key < j->queue)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

static void add_gpu_hours(struct tracestat *s, uint64_t mask, double gpu_h)
{
	if (mask == 0 || s->nmodels == 0) {
		s->any_gpu_h += gpu_h;
		return;
	}
	int bit = __builtin_ctzll(mask);
	if ((mask & (mask - 1)) == 0 && bit < s->nmodels)
		s->model_gpu_h[bit] += gpu_h;
	else
		s->several_gpu_h += gpu_h;
}

/* Everything that is one pass over the jobs. */
static void per_job(const struct workload *w, const uint8_t *skip, struct tracestat *s,
                    int64_t *cores, int64_t *gpus)
{
	double ratio_sum = 0, work = 0;
	int64_t nratio = 0;
	for (int32_t i = 0; i < w->n; i++) {
		const struct job *j = &w->jobs[i];
		const struct job_truth *t = &w->truth[i];
		int64_t nc = job_req_cores(&j->req), ng = job_req_gpus(&j->req);
		double run_h = simtime_to_s(t->run_us) / 3600.0;
		cores[i] = nc;
		size_add(&s->cores, nc);
		if (ng > 0) {
			gpus[s->gpus.njobs] = ng;
			size_add(&s->gpus, ng);
			add_gpu_hours(s, j->req.gpu_models, (double)ng * run_h);
		}
		work += (double)nc * run_h * 3600.0;
		s->core_h += (double)nc * run_h;
		s->gpu_h += (double)ng * run_h;
		struct tracestat_group *g = group_of(s, j);
		if (g) {
			g->jobs++;
			g->core_h += (double)nc * run_h;
			g->gpu_h += (double)ng * run_h;
		}
		if (j->walltime_us != SIMTIME_INF) {
			s->with_estimate++;
			if (t->run_us > 0) {
				ratio_sum += (double)j->walltime_us / (double)t->run_us;
				nratio++;
			}
		}
		s->failed += t->fails != 0;
		if (j->cls < JOB_NCLASS)
			s->per_class[j->cls]++;
		if (!(skip && skip[i])) {
			if (s->arrivals == 0 || j->submit_us < s->afirst_us)
				s->afirst_us = j->submit_us;
			if (s->arrivals == 0 || j->submit_us > s->alast_us)
				s->alast_us = j->submit_us;
			s->arrivals++;
		}
	}
	s->est_ratio_mean = nratio ? ratio_sum / (double)nratio : 0;
	double span_s = simtime_to_s(s->last_us - s->first_us);
	s->capacity = w->max_procs > 0 ? w->max_procs : w->max_nodes > 0 ? w->max_nodes : 0;
	s->capacity_from = w->max_procs > 0 ? "MaxProcs" : "MaxNodes";
	if (s->capacity > 0 && span_s > 0)
		s->load = work / (span_s * (double)s->capacity);
}

int tracestat_compute(const struct workload *w, const struct tracestat_opts *o,
                      struct tracestat *s, char *err, size_t errlen)
{
	static const struct tracestat_opts none = { .by = TRACESTAT_BY_CLASS };
	if (!o)
		o = &none;
	memset(s, 0, sizeof *s);
	s->n = w->n;
	s->load = -1;
	s->by = o->by;
	s->capacity_from = "MaxProcs";
	size_t n = (size_t)(w->n ? w->n : 1);
	int64_t *cores = malloc(n * sizeof *cores);
	int64_t *gpus = malloc(n * sizeof *gpus);
	s->run_sorted_us = malloc(n * sizeof *s->run_sorted_us);
	s->nmodels = o->cat ? o->cat->ngpus : 0;
	s->model_gpu_h = calloc((size_t)(s->nmodels ? s->nmodels : 1), sizeof *s->model_gpu_h);
	if (!cores || !gpus || !s->run_sorted_us || !s->model_gpu_h || groups_init(w, s) != 0) {
		free(cores);
		free(gpus);
		tracestat_free(s);
		snprintf(err, errlen, "trace statistics: out of memory");
		return -1;
	}
	if (w->n > 0) {
		s->first_us = w->jobs[0].submit_us;
		s->last_us = w->jobs[0].submit_us;
		for (int32_t i = 1; i < w->n; i++) {
			if (w->jobs[i].submit_us < s->first_us)
				s->first_us = w->jobs[i].submit_us;
			if (w->jobs[i].submit_us > s->last_us)
				s->last_us = w->jobs[i].submit_us;
		}
	}
	s->span_days = simtime_to_s(s->last_us - s->first_us) / 86400.0;
	per_job(w, o->not_arrival, s, cores, gpus);
	double aspan_h = simtime_to_s(s->alast_us - s->afirst_us) / 3600.0;
	s->arrivals_per_h = aspan_h > 0 ? (double)s->arrivals / aspan_h : 0;
	profile(w, o->not_arrival, s);
	pct_fill(&s->cores.pct, cores, s->cores.njobs, 1);
	pct_fill(&s->gpus.pct, gpus, s->gpus.njobs, 1);
	for (int32_t i = 0; i < w->n; i++)
		s->run_sorted_us[i] = w->truth[i].run_us;
	pct_fill(&s->run_s, s->run_sorted_us, w->n, (double)SIMTIME_SEC);
	/* Distinct tenants: sort the ids and count the changes. */
	for (int32_t i = 0; i < w->n; i++)
		cores[i] = w->jobs[i].tenant;
	qsort(cores, (size_t)w->n, sizeof *cores, cmp_i64);
	for (int32_t i = 0; i < w->n; i++) {
		if (cores[i] < 0)
			s->tenant_unknown++;
		else if (i == 0 || cores[i] != cores[i - 1])
			s->tenants++;
	}
	free(cores);
	free(gpus);
	return 0;
}
