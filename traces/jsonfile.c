/* jsonfile — reading a JSON input file whole, as every reader of one does
 * (scenarios, configurations, fitted models): a directory or an oversized
 * file refused by name, a byte-order mark skipped, duplicate keys refused
 * (see jsonfile.h). Below config/ and traces/' JSON readers alike. */
#include "traces/jsonfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads all of fd into a malloc'd buffer of at most JSONFILE_MAX bytes. 0,
 * -1 (errno set), or -2 when the file is larger. */
static int slurp(int fd, char **out, size_t *len)
{
	size_t cap = 64 * 1024, n = 0;
	char *buf = malloc(cap);
	if (!buf)
		return -1;
	for (;;) {
		if (n == cap) {
			if (cap > JSONFILE_MAX) {
				free(buf);
				return -2;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return -1;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int e = errno;
			free(buf);
			errno = e;
			return -1;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (n > JSONFILE_MAX) {
		free(buf);
		return -2;
	}
	*out = buf;
	*len = n;
	return 0;
}

json_t *jsonfile_load(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: is a directory (expected a JSON file)", path);
		close(fd);
		return NULL;
	}
	char *buf = NULL;
	size_t len = 0;
	int rc = S_ISREG(st.st_mode) && st.st_size > JSONFILE_MAX ? -2 : slurp(fd, &buf, &len);
	int e = errno;
	close(fd);
	if (rc == -2) {
		snprintf(err, errlen, "%s: larger than %d MiB, the most a JSON input file may be",
		         path, JSONFILE_MAX >> 20);
		return NULL;
	}
	if (rc != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return NULL;
	}
	/* A UTF-8 byte-order mark, as editors on some systems write (the CSV
	 * readers accept one too). */
	size_t skip = len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
	json_error_t je;
	json_t *root = json_loadb(buf + skip, len - skip, JSON_REJECT_DUPLICATES, &je);
	free(buf);
	if (!root) {
		if (je.line <= 0)
			snprintf(err, errlen, "%s: %s", path, je.text);
		else
			snprintf(err, errlen, "%s:%d:%d: %s", path, je.line, je.column, je.text);
	}
	return root;
}
