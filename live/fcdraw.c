/* fcdraw — a forecast's draws, one process each (fcdraw.h,
 * docs/forecast.md). */
#include "live/fcdraw.h"
#include "live/predict.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

struct draw {
	const struct pred *pred;
	uint64_t seed;
	bool limit;                  /* every job runs to its limit */
	int32_t *slot;               /* per engine job: its index among the targets, -1 */
	simtime *start;              /* per target: its first start in this draw (-1 none) */
	char (*why)[FCDRAW_WHY];     /* per target: the policy's reason (draw 0), or NULL */
	int32_t left;                /* targets not started yet */
	simtime at;                  /* the forecast's time (every event up to it handled) */
	simtime t0;
};

static simtime draw_runtime(void *ctx, const struct sim *s, int32_t id, simtime elapsed)
{
	const struct draw *d = ctx;
	const struct job *j = &s->jobs[id];
	double lim = j->walltime_us == SIMTIME_INF ? 0 : simtime_to_s(j->walltime_us);
	if (d->limit && lim > 0)
		return j->walltime_us;
	/* The same job draws the same in a draw whatever the order of starts. */
	uint64_t rng = d->seed ^ ((uint64_t)j->num * 0xd1b54a32d192ed03ULL) ^ ((uint64_t)j->restarts << 48);
	return simtime_from_s(pred_draw(d->pred, j->tenant, j->cls, lim, simtime_to_s(elapsed), &rng, NULL));
}

static void draw_event(void *ctx, simtime t, enum rec_kind kind, int32_t job, int32_t node, int state,
                       const char *detail)
{
	(void)node, (void)state, (void)detail;
	struct draw *d = ctx;
	if (kind != REC_START || job < 0 || d->slot[job] < 0 || d->start[d->slot[job]] >= 0)
		return;
	d->start[d->slot[job]] = t;
	d->left--;
}

static void draw_note(void *ctx, const struct sim *s, int32_t job, const char *why)
{
	struct draw *d = ctx;
	if (s->now != d->t0 || !d->why || d->slot[job] < 0)
		return;
	snprintf(d->why[d->slot[job]], FCDRAW_WHY, "%s", why);
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int read_all(int fd, void *p, size_t n)
{
	char *c = p;
	while (n > 0) {
		ssize_t r = read(fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

/* In a draw's process: runs draw d on its copy of the run and writes the
 * targets' starts (and, with d->why, their reasons) to fd. Never returns. */
static void run_draw(struct sim *s, struct draw *d, int32_t n, int fd)
{
	struct sim_recorder r = { .ctx = d, .event = draw_event };
	sim_set_recorder(s, &r);
	if (d->why)
		sim_set_note(s, draw_note, d);
	d->t0 = d->at > s->now && sim_next_time(s) >= d->at ? d->at : s->now;
	s->cfg.horizon_us = d->t0 + FCDRAW_HORIZON_US;
	int rc = sim_live_detach(s, d->at, draw_runtime, d) ? -1 : 1;
	while (rc > 0 && d->left > 0)
		rc = sim_step(s);
	if (rc < 0 || write_all(fd, d->start, (size_t)n * sizeof *d->start) ||
	    (d->why && write_all(fd, d->why, (size_t)n * sizeof *d->why)))
		_exit(1);
	_exit(0);
}

static int cmp_time(const void *a, const void *b)
{
	simtime x = *(const simtime *)a, y = *(const simtime *)b;
	/* -1 (not within the horizon) sorts last */
	if (x < 0)
		x = SIMTIME_INF;
	if (y < 0)
		y = SIMTIME_INF;
	return (x > y) - (x < y);
}

static simtime quantile(const simtime *v, int n, double q)
{
	int k = (int)(q * n + 0.999999) - 1;   /* nearest rank */
	if (k < 0)
		k = 0;
	if (k >= n)
		k = n - 1;
	return v[k] == SIMTIME_INF ? -1 : v[k];
}

int fcdraw_run(const struct fcdraw *f, struct fcdraw_q *q, char (*why)[FCDRAW_WHY])
{
	struct sim *s = f->s;
	int32_t n = f->ntarget;
	int K = f->draws;
	int rc = -1;
	int32_t *slot = malloc((size_t)(s->njobs + 1) * sizeof *slot);
	simtime *all = malloc((size_t)(K + 1) * (size_t)(n + 1) * sizeof *all);
	simtime *col = malloc((size_t)(K + 1) * sizeof *col);
	char(*w0)[FCDRAW_WHY] = why ? why : calloc((size_t)n + 1, sizeof *w0);
	if (!slot || !all || !col || !w0 || K < 1)
		goto out;
	for (int32_t i = 0; i < s->njobs; i++)
		slot[i] = -1;
	for (int32_t t = 0; t < n; t++) {
		slot[f->target[t]] = t;
		w0[t][0] = 0;
	}
	for (int k = 0; k <= K; k++) {
		int p[2];
		if (pipe(p))
			goto out;
		fflush(NULL);   /* nothing buffered is written twice */
		pid_t g = fork();
		if (g < 0) {
			close(p[0]);
			close(p[1]);
			goto out;
		}
		simtime *st = all + (size_t)k * (size_t)(n + 1);
		for (int32_t t = 0; t < n; t++)
			st[t] = -1;
		if (g == 0) {
			close(p[0]);
			if (f->close_fd >= 0)
				close(f->close_fd);   /* the caller's pipe ends with the caller, not with its draws */
			prctl(PR_SET_PDEATHSIG, SIGKILL);   /* alarms are not inherited */
			alarm((unsigned)(f->limit_s > 0 ? f->limit_s : 60));
			struct draw d = { .pred = f->pred, .seed = f->seq * 1000003u + (uint64_t)k * 0x9e3779b97f4a7c15ULL,
			                  .limit = k == 0, .slot = slot, .start = st, .why = k == 0 ? w0 : NULL, .left = n,
			                  .at = f->at };
			run_draw(s, &d, n, p[1]);
		}
		close(p[1]);
		int ok = read_all(p[0], st, (size_t)n * sizeof *st) == 0 &&
		         (k != 0 || read_all(p[0], w0, (size_t)n * sizeof *w0) == 0);
		close(p[0]);
		int wst = 0;
		while (waitpid(g, &wst, 0) < 0 && errno == EINTR)
			;
		if (!ok || !WIFEXITED(wst) || WEXITSTATUS(wst) != 0)
			goto out;
	}
	for (int32_t t = 0; t < n; t++) {
		for (int k = 1; k <= K; k++)
			col[k - 1] = all[(size_t)k * (size_t)(n + 1) + (size_t)t];
		qsort(col, (size_t)K, sizeof *col, cmp_time);
		q[t] = (struct fcdraw_q){ .p10 = quantile(col, K, 0.1), .p50 = quantile(col, K, 0.5),
		                          .p90 = quantile(col, K, 0.9), .lim = all[t] };
	}
	rc = 0;
out:
	free(slot);
	free(all);
	free(col);
	if (!why)
		free(w0);
	return rc;
}
