/* sockio — the socket's lowest layer (sock_int.h): the clock, refusals,
 * writing a reply, closing a connection; called by sock.c and sockfc.c. */
#include "live/sock_int.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int64_t lsock_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

json_t *lsock_refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
json_t *lsock_refuse(const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return json_pack("{sb ss}", "ok", 0, "error", msg);
}

/* Writes the whole reply line within the connection's deadline. */
void lsock_reply(struct conn *c, json_t *rep)
{
	char *t = rep ? json_dumps(rep, JSON_COMPACT) : NULL;
	static const char oom[] = "{\"ok\": false, \"error\": \"out of memory\"}";
	const char *p = t ? t : oom;
	size_t n = strlen(p), off = 0;
	bool nl = false;
	while (off < n || !nl) {
		int64_t left = c->deadline_ms - lsock_now_ms();
		if (left <= 0)
			break;
		ssize_t w = off < n ? send(c->fd, p + off, n - off, MSG_NOSIGNAL) : send(c->fd, "\n", 1, MSG_NOSIGNAL);
		if (w > 0) {
			if (off < n)
				off += (size_t)w;
			else
				nl = true;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			break;
		struct pollfd pf = { .fd = c->fd, .events = POLLOUT };
		poll(&pf, 1, (int)left);
	}
	free(t);
}

void lsock_conn_close(struct lsock *s, int k)
{
	close(s->c[k].fd);
	s->buffered[s->c[k].p.op] -= s->c[k].cap;
	free(s->c[k].buf);
	s->c[k] = s->c[--s->nc];
}
