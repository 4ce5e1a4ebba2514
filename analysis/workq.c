/* workq — a single background worker with a bounded FIFO. See workq.h. */
#include "analysis/workq.h"

#include <signal.h>
#include <string.h>

static void *worker(void *arg)
{
	struct workq *q = arg;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (!q->head && !q->stop)
			pthread_cond_wait(&q->work, &q->mu);
		if (!q->head)
			break;
		struct workq_item *it = q->head;
		q->head = it->next;
		if (!q->head)
			q->tail = NULL;
		q->n--;
		q->busy = true;
		pthread_cond_signal(&q->space);
		pthread_mutex_unlock(&q->mu);
		it->fn(q->ctx, it);
		pthread_mutex_lock(&q->mu);
		q->busy = false;
		if (!q->head)
			pthread_cond_broadcast(&q->idle);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

int workq_init(struct workq *q, int max, void *ctx)
{
	memset(q, 0, sizeof *q);
	q->max = max < 1 ? 1 : max;
	q->ctx = ctx;
	if (pthread_mutex_init(&q->mu, NULL) != 0)
		return -1;
	if (pthread_cond_init(&q->work, NULL) != 0 || pthread_cond_init(&q->space, NULL) != 0 ||
	    pthread_cond_init(&q->idle, NULL) != 0) {
		pthread_mutex_destroy(&q->mu);
		return -1;
	}
	return 0;
}

/* The worker takes no signal: the command's handlers run in the main thread. */
static int start(struct workq *q)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(&q->th, NULL, worker, q);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

void workq_push(struct workq *q, struct workq_item *it)
{
	it->next = NULL;
	if (!q->started && !q->inline_only) {
		if (start(q) == 0)
			q->started = true;
		else
			q->inline_only = true;
	}
	if (q->inline_only) {
		it->fn(q->ctx, it);
		return;
	}
	pthread_mutex_lock(&q->mu);
	while (q->n >= q->max)
		pthread_cond_wait(&q->space, &q->mu);
	if (q->tail)
		q->tail->next = it;
	else
		q->head = it;
	q->tail = it;
	q->n++;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->mu);
}

void workq_drain(struct workq *q)
{
	if (!q->started)
		return;
	pthread_mutex_lock(&q->mu);
	while (q->head || q->busy)
		pthread_cond_wait(&q->idle, &q->mu);
	pthread_mutex_unlock(&q->mu);
}

void workq_fini(struct workq *q)
{
	if (q->started) {
		pthread_mutex_lock(&q->mu);
		q->stop = true;
		pthread_cond_signal(&q->work);
		pthread_mutex_unlock(&q->mu);
		pthread_join(q->th, NULL);   /* it runs what is queued first */
		q->started = false;
	}
	pthread_cond_destroy(&q->work);
	pthread_cond_destroy(&q->space);
	pthread_cond_destroy(&q->idle);
	pthread_mutex_destroy(&q->mu);
}
