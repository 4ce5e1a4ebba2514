/* linereader — lines of a plain or gzip file, one at a time (see trace.h).
 *
 * zlib's gzopen reads both: a file without the gzip magic is passed through
 * unchanged. gzgets fills the buffer up to a newline; a line longer than the
 * buffer is read in several calls and the buffer doubles until it fits, up
 * to TRACE_LINE_MAX bytes: a longer line is an error (a 1 GiB line must not
 * take 2 GB and minutes before the reader says it is not a trace).
 *
 * The reader keeps the err buffer handed to linereader_open and writes
 * read errors (I/O, truncated gzip, NUL bytes) there. */
#include "traces/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

/* The buffer holds a line of TRACE_LINE_MAX bytes, its newline and a NUL. */
enum { LR_INITIAL = 4096, LR_GZBUF = 128 * 1024, LR_MAXCAP = TRACE_LINE_MAX + 2 };

struct linereader {
	gzFile gz;
	char *buf;
	size_t cap;
	int64_t lineno;
	int error;
	char *err;
	size_t errlen;
	char path[];
};

struct linereader *linereader_open(const char *path, char *err, size_t errlen)
{
	size_t plen = strlen(path);
	struct linereader *lr = calloc(1, sizeof *lr + plen + 1);
	if (!lr) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	memcpy(lr->path, path, plen + 1);
	lr->err = err;
	lr->errlen = errlen;
	lr->cap = LR_INITIAL;
	lr->buf = malloc(lr->cap);
	if (!lr->buf) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto free_lr;
	}
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: is a directory (expected a file)", path);
		goto free_buf;
	}
	errno = 0;
	lr->gz = gzopen(path, "rb");
	if (!lr->gz) {
		snprintf(err, errlen, "%s: %s", path,
		         errno ? strerror(errno) : "cannot open (out of memory)");
		goto free_buf;
	}
	gzbuffer(lr->gz, LR_GZBUF);
	return lr;

free_buf:
	free(lr->buf);
free_lr:
	free(lr);
	return NULL;
}

static void lr_fail(struct linereader *lr, const char *what)
{
	lr->error = 1;
	snprintf(lr->err, lr->errlen, "%s:%lld: %s", lr->path,
	         (long long)lr->lineno + 1, what);
}

/* Sets an error from gzerror() when zlib reports one; returns 1 if so. */
static int lr_check_gz(struct linereader *lr)
{
	int code = Z_OK;
	const char *msg = gzerror(lr->gz, &code);
	if (code == Z_OK)
		return 0;
	if (code == Z_ERRNO)
		msg = strerror(errno);
	char what[256];
	snprintf(what, sizeof what, "read error: %s%s", msg,
	         code == Z_BUF_ERROR ? " (truncated gzip file?)" : "");
	lr_fail(lr, what);
	return 1;
}

const char *linereader_next(struct linereader *lr, size_t *len)
{
	if (lr->error)
		return NULL;
	size_t n = 0;
	for (;;) {
		if (lr->cap - n < 2) {
			if (lr->cap >= LR_MAXCAP) {
				char what[160];
				snprintf(what, sizeof what, "line longer than %d bytes, the most a line may hold "
				         "(docs/traces.md, \"Limits\")", TRACE_LINE_MAX);
				lr_fail(lr, what);
				return NULL;
			}
			size_t ncap = lr->cap * 2 < LR_MAXCAP ? lr->cap * 2 : LR_MAXCAP;
			char *nb = realloc(lr->buf, ncap);
			if (!nb) {
				lr_fail(lr, "out of memory (line too long)");
				return NULL;
			}
			lr->buf = nb;
			lr->cap = ncap;
		}
		size_t room = lr->cap - n;
		/* gzgets takes an int length; very long lines just take more calls. */
		int ask = room > (size_t)1 << 30 ? 1 << 30 : (int)room;
		if (!gzgets(lr->gz, lr->buf + n, ask)) {
			if (lr_check_gz(lr))
				return NULL;
			if (n == 0)
				return NULL; /* clean end of file */
			break;           /* last line without a newline */
		}
		size_t got = strlen(lr->buf + n);
		n += got;
		if (n > 0 && lr->buf[n - 1] == '\n')
			break;
		if (got + 1 < (size_t)ask) {
			/* gzgets stopped short of the buffer without a newline:
			 * end of file, an error, or a NUL byte in the line. */
			if (lr_check_gz(lr))
				return NULL;
			if (!gzeof(lr->gz)) {
				lr_fail(lr, "NUL byte in line (binary file?)");
				return NULL;
			}
			break;
		}
	}
	if (n > 0 && lr->buf[n - 1] == '\n')
		lr->buf[--n] = '\0';
	if (n > 0 && lr->buf[n - 1] == '\r')
		lr->buf[--n] = '\0';
	lr->lineno++;
	if (len)
		*len = n;
	return lr->buf;
}

int64_t linereader_lineno(const struct linereader *lr)
{
	return lr->lineno;
}

int linereader_error(const struct linereader *lr)
{
	return lr->error;
}

void linereader_close(struct linereader *lr)
{
	if (!lr)
		return;
	gzclose(lr->gz);
	free(lr->buf);
	free(lr);
}
