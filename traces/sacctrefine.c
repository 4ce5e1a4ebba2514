/* sacctrefine — what a Slurm dump does not keep, estimated or read from
 * elsewhere (traces/sacct.h, struct sacct_opts; docs/traces.md, "Slurm
 * accounting (sacct)"):
 *
 * - the run a job cancelled by a preemption would have had: sacct keeps the
 *   part it ran. A replay that runs only that part, where the job is not
 *   cancelled again, runs less work than the site had (a twin of a
 *   preemption-heavy site then waits too little). Estimated as the mean run
 *   of the jobs of its account that completed and ran longer than that
 *   part: survival-conditioned, from the dump's own history;
 * - a submission's milliseconds: sacct keeps whole seconds; slurmctld's log
 *   stamps "_slurm_rpc_submit_batch_job: JobId=N" to the millisecond. */
#include "traces/sacctrefine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- runs of jobs cancelled by a preemption ----------------------------------------- */

struct ratio {
	int32_t group;          /* account index, -1 none */
	double r;               /* run / time limit */
};

static int by_group_ratio(const void *a, const void *b)
{
	const struct ratio *x = a, *y = b;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return (x->r > y->r) - (x->r < y->r);
}

/* The mean of the ratios of r[0..n) (ascending, suffix sums in suf) above
 * q; -1 when none is. */
static double tail_mean(const struct ratio *r, const double *suf, int32_t n, double q)
{
	int32_t lo = 0, hi = n;
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (r[mid].r > q)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < n ? suf[lo] / (double)(n - lo) : -1;
}

/* The first index of r[0..n) (sorted by group) whose group is at least
 * g (after: above g). */
static int32_t group_bound(const struct ratio *r, int32_t n, int32_t g, bool after)
{
	int32_t lo = 0, hi = n;
	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;
		if (r[mid].group < g || (after && r[mid].group == g))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#define SACCT_MIN_GROUP 20

static bool completed(const char *state)
{
	return strncmp(state, "COMPLETED", 9) == 0;
}

static bool cancelled_by_preemption(const char *state)
{
	return strncmp(state, "PREEMPTED", 9) == 0;
}

int sacct_estimate_preempted(struct workload *w, struct sacct_jobs *x)
{
	int32_t n = 0, ncancel = 0;
	for (int32_t i = 0; i < w->n; i++) {
		if (w->jobs[i].walltime_us == SIMTIME_INF || w->jobs[i].walltime_us <= 0)
			continue;
		n += completed(x->job[i].state);
		ncancel += cancelled_by_preemption(x->job[i].state);
	}
	if (ncancel == 0)
		return 0;
	/* the ratios of every completed job, by account (sorted), and of all
	 * (group INT32_MAX, after them) */
	struct ratio *r = malloc((size_t)(2 * n + 1) * sizeof *r);
	double *suf = malloc((size_t)(2 * n + 1) * sizeof *suf);
	if (!r || !suf) {
		free(r);
		free(suf);
		return -1;
	}
	int32_t k = 0;
	for (int32_t i = 0; i < w->n; i++) {
		simtime lim = w->jobs[i].walltime_us;
		if (lim == SIMTIME_INF || lim <= 0 || !completed(x->job[i].state))
			continue;
		double q = (double)w->truth[i].run_us / (double)lim;
		r[k++] = (struct ratio){ x->job[i].account, q };
		r[k++] = (struct ratio){ INT32_MAX, q };
	}
	qsort(r, (size_t)k, sizeof *r, by_group_ratio);
	for (int32_t a = k - 1; a >= 0; a--)
		suf[a] = r[a].r + (a + 1 < k && r[a + 1].group == r[a].group ? suf[a + 1] : 0);
	int32_t all = group_bound(r, k, INT32_MAX, false);
	for (int32_t i = 0; i < w->n; i++) {
		simtime lim = w->jobs[i].walltime_us;
		if (!cancelled_by_preemption(x->job[i].state))
			continue;
		simtime ran = w->truth[i].run_us, est = lim;
		if (lim != SIMTIME_INF && lim > 0) {
			/* the job's account, else all jobs */
			int32_t a = group_bound(r, all, x->job[i].account, false);
			int32_t b = group_bound(r, all, x->job[i].account, true);
			double q = (double)ran / (double)lim, m;
			if (b - a >= SACCT_MIN_GROUP && x->job[i].account >= 0)
				m = tail_mean(r + a, suf + a, b - a, q);
			else
				m = tail_mean(r + all, suf + all, k - all, q);
			if (m > 0)
				est = (simtime)(m * (double)lim / SIMTIME_SEC + 0.5) * SIMTIME_SEC;
		} else {
			est = ran;      /* no limit: nothing to scale; the part it ran */
		}
		w->truth[i].run_us = est > ran ? est : ran;
		w->truth[i].fails = false;
		w->sacct_estimated++;
	}
	free(r);
	free(suf);
	return 0;
}

/* ---- submissions to the millisecond ------------------------------------------------- */

struct stamp {
	int64_t id;
	int32_t mmss;           /* minutes and seconds of the hour: 0..3599 */
	int32_t ms;
};

static int by_id(const void *a, const void *b)
{
	const struct stamp *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

/* "[YYYY-MM-DDTHH:MM:SS.mmm" (its optional zone and "]" after) at the
 * line's start: 1 with the minutes, seconds and milliseconds; 0 not so. */
static int line_stamp(const char *s, int32_t *mmss, int32_t *ms)
{
	int y, mo, d, h, mi, sec, msec, used = 0;
	if (s[0] != '[' ||
	    sscanf(s + 1, "%4d-%2d-%2dT%2d:%2d:%2d.%3d%n", &y, &mo, &d, &h, &mi, &sec, &msec, &used) != 7 ||
	    used != 23 || mi > 59 || sec > 60 || msec < 0 || msec > 999)
		return 0;
	*mmss = mi * 60 + (sec > 59 ? 59 : sec);
	*ms = msec;
	return 1;
}

static const char SUBMIT_MARK[] = "_slurm_rpc_submit_batch_job: JobId=";

int sacct_ctld_ms(const char *log, struct workload *w, const int64_t *jobid, char *err, size_t errlen)
{
	struct linereader *lr = linereader_open(log, err, errlen);
	if (!lr)
		return -1;
	struct stamp *st = NULL;
	int64_t n = 0, cap = 0, lines = 0;
	const char *line;
	size_t len;
	while ((line = linereader_next(lr, &len))) {
		const char *m = strstr(line, SUBMIT_MARK);
		if (!m)
			continue;
		lines++;
		struct stamp s;
		char *e;
		s.id = strtoll(m + sizeof SUBMIT_MARK - 1, &e, 10);
		if (e == m + sizeof SUBMIT_MARK - 1 || !line_stamp(line, &s.mmss, &s.ms))
			continue;
		if (n == cap) {
			int64_t nc = cap ? 2 * cap : 1024;
			struct stamp *ns = realloc(st, (size_t)nc * sizeof *ns);
			if (!ns) {
				snprintf(err, errlen, "%s: out of memory", log);
				goto fail;
			}
			st = ns;
			cap = nc;
		}
		st[n++] = s;
	}
	if (linereader_error(lr))
		goto fail;
	linereader_close(lr);
	lr = NULL;
	if (n == 0) {
		snprintf(err, errlen, "%s: %s (expected slurmctld's log with LogTimeFormat=iso8601_ms, "
		         "lines '[YYYY-MM-DDTHH:MM:SS.mmm] _slurm_rpc_submit_batch_job: JobId=N ...')", log,
		         lines ? "no submission line has a millisecond time stamp" : "no submission line");
		goto fail;
	}
	qsort(st, (size_t)n, sizeof *st, by_id);
	for (int32_t i = 0; i < w->n; i++) {
		struct stamp key = { .id = jobid[i] };
		const struct stamp *f = bsearch(&key, st, (size_t)n, sizeof *st, by_id);
		if (!f)
			continue;
		while (f > st && f[-1].id == f->id)
			f--;    /* the first of a JobID the log has twice */
		int64_t sub = w->jobs[i].submit_us / SIMTIME_SEC;
		/* the log's local hours differ from UTC by whole quarter hours */
		if ((sub % 900 + 900) % 900 != f->mmss % 900)
			continue;
		w->jobs[i].submit_us = sub * SIMTIME_SEC + (simtime)f->ms * 1000;
		w->sacct_ms++;
	}
	free(st);
	return 0;
fail:
	linereader_close(lr);
	free(st);
	return -1;
}
