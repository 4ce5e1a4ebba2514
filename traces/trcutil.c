/* trcutil — see trcutil.h. */
#include "traces/trcutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int trc_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int trc_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Writes text to path through a temporary file renamed over it. */
int trc_write_atomic(const char *path, const char *text, char *err, size_t errlen)
{
	size_t len = strlen(path) + 32;
	char *tmp = malloc(len);
	if (!tmp)
		return trc_fail(err, errlen, "%s: out of memory", path);
	snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0) {
		trc_fail(err, errlen, "%s: cannot create the temporary file %s beside it: %s", path, tmp,
		      strerror(errno));
		goto fail_open;
	}
	size_t n = strlen(text), off = 0;
	while (off < n) {
		ssize_t wr = write(fd, text + off, n - off);
		if (wr < 0 && errno == EINTR)
			continue;
		if (wr <= 0) {
			trc_fail(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
			goto fail_write;
		}
		off += (size_t)wr;
	}
	if (fsync(fd) != 0) {
		trc_fail(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
		goto fail_write;
	}
	if (close(fd) != 0) {
		fd = -1;
		trc_fail(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
		goto fail_write;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		trc_fail(err, errlen, "%s: cannot rename %s over it: %s", path, tmp, strerror(errno));
		goto fail_write;
	}
	free(tmp);
	return 0;
fail_write:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
fail_open:
	free(tmp);
	return -1;
}
