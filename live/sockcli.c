/* sockcli — the client's half of the daemon's socket: one request, one
 * reply (lsock_call). See sock.h. */
#include "live/sock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* A reply is at most this (the queue of a full job table). */
#define LSOCK_REPLY_MAX ((size_t)512 << 20)
/* How long a client waits for the daemon's answer. */
enum { LSOCK_CLIENT_WAIT_MS = 60000 };

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for fd to be ready for ev until the deadline: 0, or -1 timed out. */
static int wait_fd(int fd, short ev, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - mono_ms();
		if (left <= 0)
			return -1;
		struct pollfd pf = { .fd = fd, .events = ev };
		int r = poll(&pf, 1, (int)left);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

char *lsock_call(const char *path, const char *req, bool *absent, char *err, size_t errlen)
{
	if (absent)
		*absent = false;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof a.sun_path) {
		snprintf(err, errlen, "%s: a socket path is at most %zu bytes", path, sizeof a.sun_path - 1);
		return NULL;
	}
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return NULL;
	}
	int64_t deadline = mono_ms() + LSOCK_CLIENT_WAIT_MS;
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		int e = errno;
		if (absent)
			*absent = e == ENOENT || e == ECONNREFUSED;
		snprintf(err, errlen, "%s: no daemon answers on this socket (%s)%s", path, strerror(e),
		         e == EACCES ? ": its directory is not open to you (see the daemon's state_group and socket)" : "");
		close(fd);
		return NULL;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	char *buf = NULL;
	size_t len = strlen(req), off = 0, cap = 0, n = 0;
	/* The request and its newline. */
	while (off <= len) {
		ssize_t w = off < len ? send(fd, req + off, len - off, MSG_NOSIGNAL) : send(fd, "\n", 1, MSG_NOSIGNAL);
		if (w > 0) {
			off += (size_t)w;
			continue;
		}
		if ((w < 0 && errno != EAGAIN && errno != EINTR) || wait_fd(fd, POLLOUT, deadline) < 0) {
			/* The daemon may have answered early (a refusal) and closed. */
			break;
		}
	}
	shutdown(fd, SHUT_WR);
	for (;;) {
		if (n + 1 >= cap) {
			size_t nc = cap ? 2 * cap : 65536;
			char *nb = nc <= LSOCK_REPLY_MAX ? realloc(buf, nc) : NULL;
			if (!nb) {
				snprintf(err, errlen, "%s: the daemon's reply is too long", path);
				goto fail;
			}
			buf = nb;
			cap = nc;
		}
		ssize_t r = recv(fd, buf + n, cap - 1 - n, 0);
		if (r > 0) {
			n += (size_t)r;
			if (memchr(buf + n - (size_t)r, '\n', (size_t)r))
				break;
			continue;
		}
		if (r == 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN || wait_fd(fd, POLLIN, deadline) < 0) {
			snprintf(err, errlen, "%s: %s", path, errno == EAGAIN ? "the daemon did not answer within 60 s"
			         : strerror(errno));
			goto fail;
		}
	}
	close(fd);
	if (n == 0) {
		snprintf(err, errlen, "%s: the daemon closed the connection without an answer", path);
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return buf;
fail:
	close(fd);
	free(buf);
	return NULL;
}
