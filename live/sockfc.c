/* sockfc — the socket's forecast and dry-run requests (sock.h, sock_int.h;
 * docs/forecast.md): the daemon's loop publishes its last forecast here
 * and takes the open dry run from here; the socket's thread answers. */
#include "live/sock_int.h"
#include "live/daemon.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A dry run: the job line checked as a submission's is, then handed to
 * the daemon's loop (lsock_dry_take); the connection waits for its
 * answer (lsock_dry_answer). *defer gets the request's number. */
json_t *lsock_do_dryrun(struct lsock *s, const struct peer *p, json_t *req, uint64_t *defer)
{
	(void)p;
	json_t *text = json_object_get(req, "text");
	if (!json_is_string(text))
		return lsock_refuse("request: $.text: expected a job line");
	char err[2048];
	char *norm = live_job_norm("dry run", 1, json_string_value(text), json_string_length(text),
	                           s->have_sc ? &s->sc.cl : NULL, err, sizeof err);
	if (!norm)
		return lsock_refuse("%s", err);
	pthread_mutex_lock(&s->fc_mu);
	bool busy = s->dry_seq != 0;
	if (!busy) {
		static uint64_t seq;   /* only this thread numbers dry runs */
		s->dry_seq = ++seq;
		s->dry_text = norm;
		s->dry_taken = false;
		*defer = s->dry_seq;
		norm = NULL;
	}
	pthread_mutex_unlock(&s->fc_mu);
	free(norm);
	return busy ? lsock_refuse("another dry run is being made: try again in a few seconds") : NULL;
}

int lsock_dry_take(struct lsock *s, char **text, uint64_t *seq)
{
	int got = 0;
	pthread_mutex_lock(&s->fc_mu);
	if (s->dry_seq && !s->dry_taken && s->dry_text && (*text = strdup(s->dry_text))) {
		s->dry_taken = true;
		*seq = s->dry_seq;
		got = 1;
	}
	pthread_mutex_unlock(&s->fc_mu);
	return got;
}

void lsock_dry_answer(struct lsock *s, uint64_t seq, const char *json)
{
	json_t *v = json_loads(json, 0, NULL);
	if (!v)
		v = lsock_refuse("the dry run failed");
	pthread_mutex_lock(&s->fc_mu);
	if (seq == s->dry_seq) {
		json_decref(s->dry_ans);
		s->dry_ans = v;
		v = NULL;
	}
	pthread_mutex_unlock(&s->fc_mu);
	json_decref(v);
	ssize_t w = write(s->dwake[1], "x", 1);
	(void)w;
}

/* Ends the open dry run (its connection is gone, or answered). */
void lsock_dry_close(struct lsock *s, uint64_t seq)
{
	pthread_mutex_lock(&s->fc_mu);
	if (seq == s->dry_seq) {
		s->dry_seq = 0;
		free(s->dry_text);
		s->dry_text = NULL;
		json_decref(s->dry_ans);
		s->dry_ans = NULL;
	}
	pthread_mutex_unlock(&s->fc_mu);
}

/* The last forecast, its rows cut to the peer's own jobs (an operator:
 * all) and, with "job", to that one. */
json_t *lsock_do_forecast(struct lsock *s, const struct peer *p, json_t *req)
{
	json_t *want = json_object_get(req, "job");
	if (want && !json_is_integer(want))
		return lsock_refuse("request: $.job: expected a job id");
	pthread_mutex_lock(&s->fc_mu);
	json_t *fc = s->fc ? json_deep_copy(s->fc) : NULL;
	pthread_mutex_unlock(&s->fc_mu);
	if (!fc)
		return lsock_refuse("no forecast yet: the daemon makes one within seconds of its start while jobs wait");
	json_t *jobs = json_object_get(fc, "jobs"), *keep = json_array();
	size_t k;
	json_t *row;
	json_array_foreach(jobs, k, row) {
		json_int_t uid = json_integer_value(json_object_get(row, "uid"));
		bool mine = p->op || uid == (json_int_t)p->uid || (uid < 0 && p->uid == s->self);
		if (!mine || (want && json_integer_value(json_object_get(row, "id")) != json_integer_value(want)))
			continue;
		json_object_del(row, "uid");
		json_array_append(keep, row);
	}
	json_object_set_new(fc, "jobs", keep);
	json_t *rep = json_pack("{sb so}", "ok", 1, "forecast", fc);
	return rep;
}

/* The daemon answered the open dry run: its connection gets the answer. */
void lsock_dry_reply(struct lsock *s)
{
	char b[64];
	while (read(s->dwake[0], b, sizeof b) > 0)
		;
	pthread_mutex_lock(&s->fc_mu);
	uint64_t seq = s->dry_ans ? s->dry_seq : 0;
	json_t *ans = s->dry_ans;
	s->dry_ans = NULL;
	pthread_mutex_unlock(&s->fc_mu);
	for (int k = 0; seq && k < s->nc; k++) {
		if (s->c[k].dry != seq)
			continue;
		s->c[k].deadline_ms = lsock_now_ms() + s->deadline_ms;
		lsock_reply(&s->c[k], ans);
		lsock_conn_close(s, k);
		break;
	}
	json_decref(ans);
	if (seq)
		lsock_dry_close(s, seq);
}

void lsock_forecast_set(struct lsock *s, const char *json)
{
	json_t *v = json_loads(json, 0, NULL);
	if (!v)
		return;
	pthread_mutex_lock(&s->fc_mu);
	json_t *old = s->fc;
	s->fc = v;
	pthread_mutex_unlock(&s->fc_mu);
	json_decref(old);
}
