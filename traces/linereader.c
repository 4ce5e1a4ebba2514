/* linereader — lines of a plain or gzip file, one at a time (see trace.h).
 *
 * zlib's gzopen reads both: a file without the gzip magic is passed through
 * unchanged. The file is read in chunks (gzread) and cut at newlines; a line
 * inside a chunk is returned in place, a line across chunks is gathered in
 * a buffer that grows up to TRACE_LINE_MAX bytes: a longer line is an error
 * as soon as it passes the limit (a 1 GiB line must not take 2 GB and
 * minutes before the reader says it is not a trace).
 *
 * A regular gzip file is inflated by a thread of its own, a few chunks
 * ahead of the lines: inflating is half of reading a compressed trace, and
 * the engine's thread has the parsing to do meanwhile. Anything else (a
 * plain file, a FIFO, which may block for ever) is read on the caller's
 * thread. Both go through the same chunks, in the same order.
 *
 * The reader keeps the err buffer handed to linereader_open and writes
 * read errors (I/O, truncated gzip, NUL bytes) there, naming the line they
 * cut short. */
#include "traces/trace.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

enum {
	LR_INITIAL = 4096,
	LR_GZBUF = 128 * 1024,
	LR_CHUNK = 256 * 1024,
	LR_NCHUNK = 4,          /* chunks in flight with the inflating thread */
};

/* A chunk: len bytes of the file, then (end != 0) the end of the file
 * (end 1) or a read error (end -1, msg). */
struct lr_chunk {
	char *data;
	size_t len;
	int end;
	char msg[224];
};

struct linereader {
	gzFile gz;
	struct lr_chunk ch[LR_NCHUNK];
	int nch;                /* 1 read on the caller's thread, else LR_NCHUNK */
	struct lr_chunk *cur;   /* the chunk being cut, NULL before the first */
	size_t pos;             /* in cur */
	int head, filled;       /* the next chunk to cut; chunks filled, not cut */
	bool stop, started, mu_ok;   /* started: a thread inflates the file */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *buf;              /* a line across chunks */
	size_t cap;
	int64_t lineno;
	int error;
	char *err;
	size_t errlen;
	char path[];
};

/* Fills c from the file: up to LR_CHUNK bytes, and the end or error that
 * stopped it short. */
static void fill(gzFile gz, struct lr_chunk *c)
{
	c->len = 0;
	c->end = 0;
	while (c->len < LR_CHUNK) {
		int n = gzread(gz, c->data + c->len, (unsigned)(LR_CHUNK - c->len));
		if (n > 0)
			c->len += (size_t)n;
		if (n > 0 && c->len == LR_CHUNK)
			return;
		int code = Z_OK;
		const char *msg = gzerror(gz, &code);
		if (code != Z_OK) {
			if (code == Z_ERRNO)
				msg = strerror(errno);
			c->end = -1;
			snprintf(c->msg, sizeof c->msg, "read error: %s%s", msg,
			         code == Z_BUF_ERROR ? " (truncated gzip file?)" : "");
			return;
		}
		if (n <= 0 || gzeof(gz)) {
			c->end = 1;
			return;
		}
	}
}

static void *inflater(void *arg)
{
	struct linereader *lr = arg;
	int tail = 0;
	for (;;) {
		pthread_mutex_lock(&lr->mu);
		while (!lr->stop && lr->filled == lr->nch)
			pthread_cond_wait(&lr->cv, &lr->mu);
		bool stop = lr->stop;
		pthread_mutex_unlock(&lr->mu);
		if (stop)
			return NULL;
		struct lr_chunk *c = &lr->ch[tail];
		fill(lr->gz, c);
		tail = (tail + 1) % lr->nch;
		pthread_mutex_lock(&lr->mu);
		lr->filled++;
		pthread_cond_broadcast(&lr->cv);
		pthread_mutex_unlock(&lr->mu);
		if (c->end)
			return NULL;
	}
}

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
		goto fail;
	}
	struct stat st;
	bool found = stat(path, &st) == 0;
	if (found && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: is a directory (expected a file)", path);
		goto fail;
	}
	errno = 0;
	lr->gz = gzopen(path, "rb");
	if (!lr->gz) {
		snprintf(err, errlen, "%s: %s", path,
		         errno ? strerror(errno) : "cannot open (out of memory)");
		goto fail;
	}
	gzbuffer(lr->gz, LR_GZBUF);
	/* (gzdirect reads the header to tell) */
	bool threaded = found && S_ISREG(st.st_mode) && !gzdirect(lr->gz);
	lr->nch = threaded ? LR_NCHUNK : 1;
	for (int i = 0; i < lr->nch; i++)
		if (!(lr->ch[i].data = malloc(LR_CHUNK))) {
			snprintf(err, errlen, "%s: out of memory", path);
			goto fail;
		}
	if (threaded) {
		if (pthread_mutex_init(&lr->mu, NULL) == 0) {
			if (pthread_cond_init(&lr->cv, NULL) == 0)
				lr->mu_ok = true;
			else
				pthread_mutex_destroy(&lr->mu);
		}
		/* Without a thread the file is read on the caller's thread. */
		lr->started = lr->mu_ok && pthread_create(&lr->th, NULL, inflater, lr) == 0;
		if (!lr->started)
			lr->nch = 1;
	}
	return lr;

fail:
	linereader_close(lr);
	return NULL;
}

static void lr_fail(struct linereader *lr, const char *what)
{
	lr->error = 1;
	snprintf(lr->err, lr->errlen, "%s:%lld: %s", lr->path,
	         (long long)lr->lineno + 1, what);
}

/* The next chunk to cut (the current one handed back). */
static struct lr_chunk *next_chunk(struct linereader *lr)
{
	if (!lr->started) {
		fill(lr->gz, &lr->ch[0]);
		return &lr->ch[0];
	}
	pthread_mutex_lock(&lr->mu);
	if (lr->cur) {
		lr->filled--;
		lr->head = (lr->head + 1) % lr->nch;
		pthread_cond_broadcast(&lr->cv);
	}
	while (lr->filled == 0)
		pthread_cond_wait(&lr->cv, &lr->mu);
	struct lr_chunk *c = &lr->ch[lr->head];
	pthread_mutex_unlock(&lr->mu);
	return c;
}

static void fail_long(struct linereader *lr)
{
	char what[160];
	snprintf(what, sizeof what, "line longer than %d bytes, the most a line may hold "
	         "(docs/traces.md, \"Limits\")", TRACE_LINE_MAX);
	lr_fail(lr, what);
}

/* Appends n bytes of a line across chunks to lr->buf. */
static int gather(struct linereader *lr, size_t have, const char *p, size_t n)
{
	if (have + n > TRACE_LINE_MAX + (size_t)1) {
		fail_long(lr);
		return -1;
	}
	if (have + n + 1 > lr->cap) {
		size_t ncap = lr->cap;
		while (ncap < have + n + 1)
			ncap *= 2;
		char *nb = realloc(lr->buf, ncap);
		if (!nb) {
			lr_fail(lr, "out of memory (line too long)");
			return -1;
		}
		lr->buf = nb;
		lr->cap = ncap;
	}
	memcpy(lr->buf + have, p, n);
	return 0;
}

const char *linereader_next(struct linereader *lr, size_t *len)
{
	if (lr->error)
		return NULL;
	char *line = NULL;
	size_t n = 0;           /* bytes gathered in lr->buf */
	bool across = false;
	for (;;) {
		struct lr_chunk *c = lr->cur;
		if (!c || lr->pos == c->len) {
			if (c && c->end < 0) {
				lr_fail(lr, c->msg);
				return NULL;
			}
			if (c && c->end > 0) {
				if (!across)
					return NULL;   /* clean end of file */
				break;             /* last line without a newline */
			}
			lr->cur = c = next_chunk(lr);
			lr->pos = 0;
			continue;
		}
		char *p = c->data + lr->pos;
		size_t avail = c->len - lr->pos;
		char *nl = memchr(p, '\n', avail);
		if (nl && !across) {
			line = p;
			n = (size_t)(nl - p);
			lr->pos += n + 1;
			if (n > TRACE_LINE_MAX) {
				fail_long(lr);
				return NULL;
			}
			break;
		}
		size_t take = nl ? (size_t)(nl - p) : avail;
		if (gather(lr, n, p, take))
			return NULL;
		n += take;
		across = true;
		lr->pos += take + (nl ? 1 : 0);
		if (nl)
			break;
	}
	if (!line)
		line = lr->buf;
	line[n] = '\0';
	if (n > TRACE_LINE_MAX) {
		fail_long(lr);
		return NULL;
	}
	if (strlen(line) != n) {
		lr_fail(lr, "NUL byte in line (binary file?)");
		return NULL;
	}
	if (n > 0 && line[n - 1] == '\r')
		line[--n] = '\0';
	lr->lineno++;
	if (len)
		*len = n;
	return line;
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
	if (lr->started) {
		pthread_mutex_lock(&lr->mu);
		lr->stop = true;
		pthread_cond_broadcast(&lr->cv);
		pthread_mutex_unlock(&lr->mu);
		pthread_join(lr->th, NULL);
	}
	if (lr->mu_ok) {
		pthread_cond_destroy(&lr->cv);
		pthread_mutex_destroy(&lr->mu);
	}
	if (lr->gz)
		gzclose(lr->gz);
	for (int i = 0; i < LR_NCHUNK; i++)
		free(lr->ch[i].data);
	free(lr->buf);
	free(lr);
}
