/* forecast — the daemon's forecasts of when waiting jobs start, and why
 * they wait (forecast.h, docs/forecast.md). */
#include "live/forecast.h"
#include "live/fcdraw.h"
#include "live/live_int.h"
#include "live/predict.h"
#include "live/sock.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum {
	FCST_DRAWS = 20,             /* draws with predicted run times (p10 / p50 / p90 over them) */
	FCST_CHILD_S = 60,           /* a forecast that takes longer is given up */
	FCST_WHY = FCDRAW_WHY,
};
#define FCST_EVERY_S 2.0         /* a new forecast at most this often while jobs wait */
#define FCST_DUTY 4.0            /* ... and after FCST_DUTY times as long as the last one took
                                    (forecasts keep to about a fifth of a core) */
enum { FCST_METRICS_MAX = 1000 };   /* waiting jobs with /metrics series (the first, by id) */

struct fc_row {
	int64_t sid, uid;
	simtime p10, p50, p90, lim;  /* engine time; -1: not within the horizon */
	char why[FCST_WHY];
};

struct fcst {
	struct pred pred;
	struct sim_recorder fwd;     /* the daemon's recorder, behind ours */
	int draws;
	pid_t pid;
	int fd;
	char *in;
	size_t nin, capin;
	double started, last;        /* monotonic s */
	double took;                 /* how long the last forecast took (s) */
	simtime at_us;               /* the engine time of the running child's fork */
	struct fc_row *rows;         /* the last forecast */
	int32_t nrows;
	simtime rows_at;             /* its engine time (-1 none yet) */
	int64_t epoch_unix_us;
	uint64_t seq;
	/* the running child's dry run (`hetlab submit --dry-run`), if any */
	char *dry_text;
	uint64_t dry_seq;
	int64_t dry_sid;             /* the id the job would get */
};

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the recorder: the predictor learns from every end ---- */

static void fc_event(void *ctx, simtime t, enum rec_kind kind, int32_t job, int32_t node, int state, const char *detail)
{
	struct fcst *f = ctx;
	if (f->fwd.event)
		f->fwd.event(f->fwd.ctx, t, kind, job, node, state, detail);
}

static void fc_job_end(void *ctx, const struct sim *s, const struct job *j)
{
	struct fcst *f = ctx;
	/* A job that ended by itself, or at its limit: what it took. */
	bool own = j->state == JOB_DONE || j->state == JOB_FAILED ||
	           (j->state == JOB_KILLED && j->reason == END_WALLTIME);
	if (own && j->start_us >= 0 && j->end_us >= j->start_us)
		pred_add(&f->pred, j->tenant, j->cls, simtime_to_s(j->end_us - j->start_us),
		         j->walltime_us == SIMTIME_INF ? 0 : simtime_to_s(j->walltime_us));
	if (f->fwd.job_end)
		f->fwd.job_end(f->fwd.ctx, s, j);
}

static void fc_sample(void *ctx, const struct sim_sample *smp)
{
	struct fcst *f = ctx;
	f->fwd.sample(f->fwd.ctx, smp);
}

int fcst_open(struct fcst **out, struct live *L)
{
	struct fcst *f = calloc(1, sizeof *f);
	if (!f)
		return -1;
	pred_init(&f->pred, PRED_MIN_N);
	f->draws = FCST_DRAWS;
	f->fd = -1;
	f->rows_at = -1;
	f->last = -1e9;
	f->epoch_unix_us = L->epoch_unix_us;
	f->fwd = L->s.rec;
	struct sim_recorder r = { .ctx = f, .event = fc_event, .job_end = fc_job_end,
	                          .sample = f->fwd.sample ? fc_sample : NULL };
	sim_set_recorder(&L->s, &r);
	*out = f;
	return 0;
}

/* The child: its draws, one grandchild each, then the answer on fd as
 * lines "sid uid p10 p50 p90 limit\twhy". Never returns. */
static void run_child(struct fcst *f, struct live *L, int fd)
{
	struct sim *s = &L->s;
	int32_t n = 0;
	int32_t dry = -1;
	if (f->dry_text) {
		/* The dry run's job, submitted now to this copy of the run, as the
		 * daemon would take it (live_inject: parsed, bound, added). */
		if (s->njobs >= L->cfg.max_jobs)
			_exit(2);
		struct rec_row r = { .t_us = f->at_us, .after_us = f->at_us, .kind = RIN_SUBMIT, .job = live_njobs(L),
		                     .node = -1, .data = f->dry_text };
		if (live_inject(L, &r))
			_exit(1);
		dry = s->njobs - 1;
	}
	int32_t *target = malloc((size_t)(s->njobs + 1) * sizeof *target);
	if (!target)
		_exit(1);
	for (int32_t i = 0; i < s->njobs; i++) {
		const struct job *j = &s->jobs[i];
		bool waits = i == dry || ((j->state == JOB_PENDING || j->state == JOB_HELD || j->state == JOB_PREEMPTED) &&
		                          j->submit_us <= s->now);
		if (waits)
			target[n++] = i;
	}
	struct fcdraw_q *q = malloc(((size_t)n + 1) * sizeof *q);
	char(*why)[FCST_WHY] = calloc((size_t)n + 1, sizeof *why);
	if (!q || !why)
		_exit(1);
	struct fcdraw fd_ = { .s = s, .pred = &f->pred, .at = f->at_us, .draws = f->draws, .seq = f->seq,
	                      .limit_s = FCST_CHILD_S, .target = target, .ntarget = n, .close_fd = fd };
	if (fcdraw_run(&fd_, q, why))
		_exit(1);
	/* Jobs the policy said nothing of: held (why the engine keeps), or
	 * what the cluster lacks now (sim/cluster_why.c). */
	for (int32_t t = 0; t < n; t++) {
		const struct job *j = &s->jobs[target[t]];
		if (target[t] == dry && q[t].lim >= 0 && q[t].lim <= f->at_us)
			why[t][0] = 0;   /* the dry run's job starts at once: nothing holds it */
		if (why[t][0] || target[t] == dry)
			continue;
		const struct org *org = s->cfg.org;
		if (j->state == JOB_HELD && j->hold_why == HOLD_QUOTA && org && j->tenant >= 0 && j->tenant < org->nt)
			snprintf(why[t], FCST_WHY, "held for the quota of tenant %s (hetlab approve releases it)",
			         org->t[j->tenant].name);
		else if (j->state == JOB_HELD)
			snprintf(why[t], FCST_WHY, "held (%s)", j->hold_why == HOLD_QUOTA ? "quota" : "by the policy");
		else if (cluster_why(&s->cl, s->cl.free, &j->req, why[t], FCST_WHY))
			snprintf(why[t], FCST_WHY, "fits now: the policy has not started it (its order or its rules)");
	}
	FILE *out = fdopen(fd, "w");
	if (!out)
		_exit(1);
	for (int32_t t = 0; t < n; t++) {
		int32_t id = target[t];
		char *w = why[t];
		for (char *c = w; *c; c++)
			if (*c == '\n' || *c == '\t')
				*c = ' ';
		fprintf(out, "%lld %lld %lld %lld %lld %lld\t%s\n", (long long)live_sid(L, id), (long long)L->jx[id].uid,
		        (long long)q[t].p10, (long long)q[t].p50, (long long)q[t].p90, (long long)q[t].lim, w);
	}
	if (fputs("end\n", out) < 0 || fflush(out))
		_exit(1);
	_exit(0);
}

/* ---- the daemon's side ---- */

static void publish(struct fcst *f, struct live *L)
{
	json_t *jobs = json_array(), *o = NULL;
	if (!jobs)
		return;
	for (int32_t k = 0; k < f->nrows; k++) {
		const struct fc_row *r = &f->rows[k];
		json_t *row = json_object();
		if (!row)
			break;
		json_object_set_new(row, "id", json_integer(r->sid));
		json_object_set_new(row, "uid", json_integer(r->uid));
		const simtime v[4] = { r->p10, r->p50, r->p90, r->lim };
		static const char *const key[4] = { "p10", "p50", "p90", "limit" };
		for (int q = 0; q < 4; q++)
			json_object_set_new(row, key[q], v[q] < 0 ? json_null()
			                                          : json_real((double)(v[q] + f->epoch_unix_us) / 1e6));
		json_object_set_new(row, "why", json_string(r->why));
		json_array_append_new(jobs, row);
	}
	o = json_pack("{sf si so}", "at", (double)(f->rows_at + f->epoch_unix_us) / 1e6, "draws", f->draws, "jobs", jobs);
	char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
	if (text && L->sock)
		lsock_forecast_set(L->sock, text);
	free(text);
	json_decref(o);
}

/* Answers the dry run of the child that ended (ans NULL: it failed). */
static void dry_answer(struct fcst *f, struct live *L, json_t *ans)
{
	if (!f->dry_text)
		return;
	if (!ans)
		ans = json_pack("{sb ss}", "ok", 0, "error", "the dry run failed (the engine's table is full, or the job "
		                                              "could not be added): see the daemon's log");
	char *text = ans ? json_dumps(ans, JSON_COMPACT) : NULL;
	if (L->sock)
		lsock_dry_answer(L->sock, f->dry_seq, text ? text : "");
	free(text);
	json_decref(ans);
	free(f->dry_text);
	f->dry_text = NULL;
}

static void parse(struct fcst *f, struct live *L)
{
	int32_t n = 0;
	for (size_t k = 0; k < f->nin; k++)
		n += f->in[k] == '\n';
	struct fc_row *rows = calloc((size_t)n + 1, sizeof *rows);
	if (!rows)
		return;
	int32_t m = 0;
	char *line = f->in, *end = f->in + f->nin;
	while (line < end && m < n) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			break;
		*nl = 0;
		struct fc_row *r = &rows[m];
		long long a[6];
		char *tab = strchr(line, '\t');
		if (tab && sscanf(line, "%lld %lld %lld %lld %lld %lld", &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]) == 6) {
			*r = (struct fc_row){ .sid = a[0], .uid = a[1], .p10 = a[2], .p50 = a[3], .p90 = a[4], .lim = a[5] };
			snprintf(r->why, sizeof r->why, "%s", tab + 1);
			m++;
		}
		line = nl + 1;
	}
	if (f->dry_text) {
		/* The dry run's row answers its client; the rest is the forecast. */
		json_t *ans = NULL;
		for (int32_t k = 0; k < m; k++) {
			if (rows[k].sid != f->dry_sid)
				continue;
			const struct fc_row *r = &rows[k];
			const simtime v[4] = { r->p10, r->p50, r->p90, r->lim };
			static const char *const key[4] = { "p10", "p50", "p90", "limit" };
			json_t *o = json_pack("{sf si ss}", "at", (double)(f->at_us + f->epoch_unix_us) / 1e6, "draws", f->draws,
			                      "why", r->why);
			for (int q = 0; o && q < 4; q++)
				json_object_set_new(o, key[q], v[q] < 0 ? json_null()
				                                        : json_real((double)(v[q] + f->epoch_unix_us) / 1e6));
			ans = o ? json_pack("{sb so}", "ok", 1, "dry_run", o) : NULL;
			memmove(&rows[k], &rows[k + 1], (size_t)(m - k - 1) * sizeof *rows);   /* rows stay in id order */
			m--;
			break;
		}
		dry_answer(f, L, ans);
	}
	free(f->rows);
	f->rows = rows;
	f->nrows = m;
	f->rows_at = f->at_us;
	publish(f, L);
}

static void reap(struct fcst *f, bool kill_it)
{
	if (f->pid > 0) {
		if (kill_it)
			kill(f->pid, SIGKILL);
		waitpid(f->pid, NULL, kill_it ? 0 : WNOHANG);   /* or the loop's waitpid(-1) reaps it */
	}
	if (f->fd >= 0)
		close(f->fd);
	f->pid = 0;
	f->fd = -1;
	f->nin = 0;
}

static void spawn(struct fcst *f, struct live *L)
{
	int p[2];
	if (pipe(p))
		return;
	f->seq++;
	f->at_us = L->after_us > L->s.now ? L->after_us : L->s.now;
	fflush(NULL);   /* nothing buffered is written twice */
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		/* The child touches nothing the daemon owns: no state, no socket,
		 * no executor; it dies with the daemon, and within FCST_CHILD_S. */
		close(p[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(FCST_CHILD_S);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		run_child(f, L, p[1]);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	fcntl(p[0], F_SETFD, FD_CLOEXEC);
	f->pid = pid;
	f->fd = p[0];
	f->nin = 0;
	f->started = mono_s();
}

static bool waiting(const struct live *L)
{
	const struct sim *s = &L->s;
	for (int32_t i = 0; i < s->njobs; i++) {
		uint8_t st = s->jobs[i].state;
		if ((st == JOB_PENDING || st == JOB_HELD) && s->jobs[i].submit_us <= s->now)
			return true;
	}
	return false;
}

void fcst_tick(struct fcst *f, struct live *L)
{
	if (!f)
		return;
	if (f->pid > 0) {
		for (;;) {
			if (f->nin + 4096 > f->capin) {
				size_t cap = f->capin ? 2 * f->capin : 65536;
				char *b = realloc(f->in, cap + 1);
				if (!b) {
					reap(f, true);
					dry_answer(f, L, NULL);
					return;
				}
				f->in = b;
				f->capin = cap;
			}
			ssize_t r = read(f->fd, f->in + f->nin, f->capin - f->nin);
			if (r > 0) {
				f->nin += (size_t)r;
				continue;
			}
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0 && errno == EAGAIN) {
				if (mono_s() - f->started > FCST_CHILD_S) {
					live_logl(L, LIVE_WARN, "forecast: gave up a forecast after %d s", FCST_CHILD_S);
					reap(f, true);
					dry_answer(f, L, NULL);
				}
				return;
			}
			break;   /* EOF (or an error): the child is done */
		}
		int wst = 0;
		pid_t w = waitpid(f->pid, &wst, 0);
		/* Reaped by the loop already (w != pid): its last line says it finished. */
		bool ok = (w != f->pid || (WIFEXITED(wst) && WEXITSTATUS(wst) == 0)) && f->nin >= 4 &&
		          memcmp(f->in + f->nin - 4, "end\n", 4) == 0;
		if (ok) {
			parse(f, L);
		} else {
			live_logl(L, LIVE_WARN, "forecast: the forecast's process failed; the last forecast stays");
			dry_answer(f, L, NULL);
		}
		f->pid = 0;
		reap(f, false);
		f->last = mono_s();
		f->took = f->last - f->started;
	}
	if (L->mode != LIVE_DAEMON)
		return;
	/* A dry run goes first, whenever one waits; it is a forecast too. */
	char *dry;
	uint64_t seq;
	if (L->sock && lsock_dry_take(L->sock, &dry, &seq)) {
		f->dry_text = dry;
		f->dry_seq = seq;
		f->dry_sid = live_njobs(L);
		spawn(f, L);
		if (f->pid <= 0)
			dry_answer(f, L, NULL);
		return;
	}
	if (mono_s() - f->last < FCST_EVERY_S || mono_s() - f->last < FCST_DUTY * f->took)
		return;
	if (!waiting(L)) {
		if (f->nrows > 0 || f->rows_at < 0) {
			f->nrows = 0;
			f->rows_at = L->s.now;
			publish(f, L);
		}
		f->last = mono_s();
		return;
	}
	spawn(f, L);
}

long fcst_metrics(const struct fcst *f, char **buf, size_t *cap, long n)
{
	if (!f || n < 0 || f->rows_at < 0)
		return n;
	size_t need = (size_t)n + 512 + (size_t)(f->nrows < FCST_METRICS_MAX ? f->nrows : FCST_METRICS_MAX) * 400;
	if (need > *cap) {
		char *b = realloc(*buf, need);
		if (!b)
			return n;
		*buf = b;
		*cap = need;
	}
	char *p = *buf + n;
	size_t left = *cap - (size_t)n;
	int w = snprintf(p, left,
	                 "# HELP hetlab_forecast_start_seconds Predicted start of a waiting job (Unix time), by quantile "
	                 "of the forecast's draws; limit: every job running to its time limit.\n"
	                 "# TYPE hetlab_forecast_start_seconds gauge\n");
	p += w, left -= (size_t)w;
	for (int32_t k = 0; k < f->nrows && k < FCST_METRICS_MAX; k++) {
		const struct fc_row *r = &f->rows[k];
		const simtime v[4] = { r->p10, r->p50, r->p90, r->lim };
		static const char *const q[4] = { "0.1", "0.5", "0.9", "limit" };
		for (int i = 0; i < 4; i++) {
			if (v[i] < 0)
				continue;
			w = snprintf(p, left, "hetlab_forecast_start_seconds{job=\"%lld\",quantile=\"%s\"} %.3f\n",
			             (long long)r->sid, q[i], (double)(v[i] + f->epoch_unix_us) / 1e6);
			p += w, left -= (size_t)w;
		}
	}
	w = snprintf(p, left,
	             "# HELP hetlab_forecast_time_seconds When the last forecast was made (Unix time).\n"
	             "# TYPE hetlab_forecast_time_seconds gauge\n"
	             "hetlab_forecast_time_seconds %.3f\n",
	             (double)(f->rows_at + f->epoch_unix_us) / 1e6);
	p += w;
	return (long)(p - *buf);
}

void fcst_close(struct fcst *f, struct live *L)
{
	if (!f)
		return;
	reap(f, true);
	free(f->dry_text);
	sim_set_recorder(&L->s, &f->fwd);
	pred_fini(&f->pred);
	free(f->rows);
	free(f->in);
	free(f);
}
