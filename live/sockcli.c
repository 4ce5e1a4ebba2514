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
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* A reply is at most this (the queue of a full job table). */
#define LSOCK_REPLY_MAX ((size_t)512 << 20)
/* How long a client waits for the daemon's answer; how often and after
 * how long (doubled each time) it tries again when the daemon went away
 * mid-request (lsock_call_again). */
enum { LSOCK_CLIENT_WAIT_MS = 60000, LSOCK_TRIES = 6, LSOCK_BACKOFF_MS = 100 };

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

/* The daemon's side of a connected fd is root's, the caller's own user's
 * or the user's who owns the socket's directory (the daemon refuses a
 * directory others may write): else someone took the path. 0, or -1 with
 * err. */
void lsock_dir(const char *path, char *dir, size_t len)
{
	snprintf(dir, len, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, len, ".");
	else if (slash == dir)
		slash[1] = 0;
	else
		*slash = 0;
}

static int check_peer(int fd, const char *path, char *err, size_t errlen)
{
	struct ucred cr;
	socklen_t len = sizeof cr;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0) {
		snprintf(err, errlen, "%s: cannot tell who answers on this socket: %s", path, strerror(errno));
		return -1;
	}
	if (cr.uid == 0 || cr.uid == geteuid())
		return 0;
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path) + 2];
	lsock_dir(path, dir, sizeof dir);
	struct stat sb;
	if (stat(dir, &sb) == 0 && sb.st_uid == cr.uid && !(sb.st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	snprintf(err, errlen, "%s: answered by uid %ld (pid %ld), who is neither root, nor you, nor the owner of %s: "
	         "refused (someone may have taken the daemon's socket path; ask its operator)", path, (long)cr.uid,
	         (long)cr.pid, dir);
	return -1;
}

/* One try. *gone: the daemon was reached and went away before it answered
 * (the request may or may not have been applied); *absent: nothing
 * listens there. */
static char *call_once(const char *path, const char *req, bool *absent, bool *gone, char *err, size_t errlen)
{
	*absent = *gone = false;
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
		*absent = e == ENOENT || e == ECONNREFUSED;
		snprintf(err, errlen, "%s: no daemon answers on this socket (%s)%s", path, strerror(e),
		         e == EACCES ? ": its directory is not open to you (see the daemon's state_group and socket)" : "");
		close(fd);
		return NULL;
	}
	if (check_peer(fd, path, err, errlen)) {
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
		if (errno == ECONNRESET || errno == EPIPE) {
			*gone = true;
			snprintf(err, errlen, "%s: the daemon closed the connection without an answer (%s)", path,
			         strerror(errno));
			goto fail;
		}
		if (errno != EAGAIN || wait_fd(fd, POLLIN, deadline) < 0) {
			snprintf(err, errlen, "%s: %s", path, errno == EAGAIN ? "the daemon did not answer within 60 s"
			         : strerror(errno));
			goto fail;
		}
	}
	close(fd);
	if (n == 0 || !memchr(buf, '\n', n)) {
		*gone = true;
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

char *lsock_call(const char *path, const char *req, bool *absent, char *err, size_t errlen)
{
	bool a, gone;
	char *r = call_once(path, req, &a, &gone, err, errlen);
	if (absent)
		*absent = a;
	return r;
}

char *lsock_call_again(const char *path, const char *req, bool *absent, char *err, size_t errlen)
{
	bool a = false, gone = false, met = false;
	char *r = NULL;
	for (int k = 0; k < LSOCK_TRIES; k++) {
		if (k > 0) {
			int64_t ms = (int64_t)LSOCK_BACKOFF_MS << (k - 1);
			struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000 };
			nanosleep(&ts, NULL);
		}
		if ((r = call_once(path, req, &a, &gone, err, errlen)))
			break;
		met |= gone;
		/* Only a daemon that went away is waited for: one that is not
		 * there at all, or answered, is said at once. */
		if (!gone && !(met && a))
			break;
	}
	if (absent)
		*absent = !r && a;
	if (!r && met && !a) {
		size_t n = strlen(err);
		snprintf(err + n, errlen - n, " (tried %d times)", LSOCK_TRIES);
	}
	return r;
}
