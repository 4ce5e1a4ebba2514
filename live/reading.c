/* reading — a node's reading: its text form and the host's. See reading.h. */
#include "live/reading.h"
#include "live/hostprobe.h"
#include "live/nvml.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const keys[] = { "power_w", "temp_c", "util", "gpu_errors", "bad_gpu", "down", NULL };

int reading_parse(const char *src, const char *text, size_t len, struct sim_reading *out,
                  char *err, size_t errlen)
{
	*out = (struct sim_reading){ .power_w = NAN, .temp_c = NAN, .util = NAN, .bad_gpu = -1, .down = -1 };
	json_error_t je;
	json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!o) {
		/* Without jansson's "near '...'": the words of a file that is
		 * not a reading are not for the log. */
		char *near = strstr(je.text, " near '");
		if (near)
			*near = '\0';
		snprintf(err, errlen, "%s:%d:%d: %s", src, je.line, je.column, je.text);
		return -1;
	}
	int rc = -1;
	if (!json_is_object(o) || json_object_size(o) == 0) {
		snprintf(err, errlen, "%s: $: expected a non-empty object of readings", src);
		goto out;
	}
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		int i = 0;
		while (keys[i] && strcmp(keys[i], k) != 0)
			i++;
		if (!keys[i]) {
			snprintf(err, errlen, "%s: $.%.60s: unknown key (expected power_w, temp_c, util, gpu_errors, bad_gpu, down)",
			         src, k);
			goto out;
		}
		if (json_is_null(v))
			continue;
		if (i == 5) {
			if (!json_is_boolean(v)) {
				snprintf(err, errlen, "%s: $.down: expected true or false", src);
				goto out;
			}
			out->down = json_is_true(v) ? 1 : 0;
			continue;
		}
		if (!json_is_number(v)) {
			snprintf(err, errlen, "%s: $.%s: expected a number, got something else", src, k);
			goto out;
		}
		double x = json_number_value(v);
		static const double lo[] = { 0, -100, 0, 0, -1 }, hi[] = { 1e7, 300, 1, 1e6, 63 };
		if (!(x >= lo[i] && x <= hi[i])) {
			snprintf(err, errlen, "%s: $.%s: expected a number in [%g, %g], got %g", src, k, lo[i], hi[i], x);
			goto out;
		}
		if ((i == 3 || i == 4) && x != floor(x)) {
			snprintf(err, errlen, "%s: $.%s: expected a whole number, got %g", src, k, x);
			goto out;
		}
		switch (i) {
		case 0: out->power_w = x; break;
		case 1: out->temp_c = x; break;
		case 2: out->util = x; break;
		case 3: out->gpu_errors = (int32_t)x; break;
		default: out->bad_gpu = (int16_t)x; break;
		}
	}
	out->ok = true;
	rc = 0;
out:
	json_decref(o);
	return rc;
}

int reading_format(const struct sim_reading *r, char *buf, size_t len)
{
	size_t off = 0;
	const double v[3] = { r->power_w, r->temp_c, r->util };
	const char *const k[3] = { "power_w", "temp_c", "util" };
	off += (size_t)snprintf(buf + off, len - off, "{");
	for (int i = 0; i < 3 && off < len; i++)
		if (isfinite(v[i]))
			off += (size_t)snprintf(buf + off, len - off, "\"%s\": %.17g, ", k[i], v[i]);
	if (off < len)
		off += (size_t)snprintf(buf + off, len - off, "\"gpu_errors\": %d, \"bad_gpu\": %d%s}", (int)r->gpu_errors,
		                        (int)r->bad_gpu, r->down < 0 ? "" : r->down ? ", \"down\": true" : ", \"down\": false");
	return off < len ? (int)off : -1;
}

void reading_from_host(const struct hp_host *a, const struct hp_host *b, int64_t dt_us,
                       const struct nvml_probe *gpus, struct sim_reading *out)
{
	*out = (struct sim_reading){ .power_w = NAN, .temp_c = NAN, .util = NAN, .bad_gpu = -1, .down = -1, .ok = true };
	double p = 0;
	bool have_p = false;
	if (a) {
		double u = hp_cpu_util(&a->cpu, &b->cpu);
		if (u >= 0)
			out->util = u;
		/* Package zones only ("intel-rapl:N"): their subzones are inside them. */
		for (int i = 0; i < b->rapl.n; i++) {
			const struct hp_rapl_zone *z = &b->rapl.z[i];
			if (strchr(z->dir + strlen("intel-rapl"), ':') != strrchr(z->dir, ':'))
				continue;
			for (int k = 0; k < a->rapl.n; k++)
				if (strcmp(a->rapl.z[k].dir, z->dir) == 0) {
					double w = hp_rapl_power_w(&a->rapl.z[k], z, dt_us);
					if (w >= 0) {
						p += w;
						have_p = true;
					}
				}
		}
	}
	double t = -1e9;
	for (int i = 0; i < b->temps.n; i++)
		if (b->temps.t[i].st == HP_OK && b->temps.t[i].temp_c > t)
			t = b->temps.t[i].temp_c;
	for (int g = 0; gpus && g < gpus->ngpus; g++) {
		const struct nvml_gpu *x = &gpus->gpu[g];
		if (x->have_power) {
			p += x->power_w;
			have_p = true;
		}
		if (x->have_temp && x->temp_c > t)
			t = x->temp_c;
		if (x->health_events > 0) {
			if (out->bad_gpu < 0)
				out->bad_gpu = (int16_t)g;
			out->gpu_errors += (int32_t)x->health_events;
		}
	}
	if (have_p)
		out->power_w = p;
	if (t > -1e9)
		out->temp_c = t;
}

int reading_read_file(const char *path, double stale_s, struct sim_reading *out, char *err, size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO would wait for a writer. O_NOFOLLOW: a
	 * reading is the agent's own file, never what a link points at (the
	 * daemon may read as root what the agent may not). */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		if (errno == ELOOP) {
			snprintf(err, errlen, "%s: a symbolic link (not followed): a reading is a file the node's agent "
			         "writes", path);
			return -1;
		}
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	int rc = -1;
	char *buf = NULL;
	struct stat sb;
	if (fstat(fd, &sb) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (%s): a reading is a file the node's agent writes", path,
		         S_ISFIFO(sb.st_mode) ? "a FIFO" : S_ISDIR(sb.st_mode) ? "a directory" : S_ISCHR(sb.st_mode) ||
		         S_ISBLK(sb.st_mode) ? "a device" : S_ISSOCK(sb.st_mode) ? "a socket" : "not a file");
		goto out;
	}
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	double age = (double)(now.tv_sec - sb.st_mtim.tv_sec) + (double)(now.tv_nsec - sb.st_mtim.tv_nsec) / 1e9;
	if (age > stale_s) {
		rc = 1;
		goto out;
	}
	if (sb.st_size > READING_MAX_BYTES) {
		snprintf(err, errlen, "%s: %lld bytes: a reading is at most %d bytes", path, (long long)sb.st_size,
		         READING_MAX_BYTES);
		goto out;
	}
	if (!(buf = malloc(READING_MAX_BYTES + 1))) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	/* Never more than the cap, even from a file that grows meanwhile. */
	size_t n = 0;
	for (;;) {
		ssize_t r = read(fd, buf + n, READING_MAX_BYTES + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (r == 0 || (n += (size_t)r) > READING_MAX_BYTES)
			break;
	}
	if (n > READING_MAX_BYTES) {
		snprintf(err, errlen, "%s: more than %d bytes: a reading is at most that", path, READING_MAX_BYTES);
		goto out;
	}
	rc = reading_parse(path, buf, n, out, err, errlen);
out:
	free(buf);
	close(fd);
	return rc;
}
