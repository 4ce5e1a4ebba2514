/* anytrace — see anytrace.h. */
#include "traces/anytrace.h"
#include "traces/k8s.h"
#include "traces/openb.h"
#include "traces/sacct.h"
#include "traces/swfext.h"
#include "traces/invcluster.h"
#include "sim/cluster.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

enum trace_fmt trace_format_of(const char *path)
{
	if (ends_with(path, ".jsonl") || ends_with(path, ".jsonl.gz"))
		return TRACE_JSONL;
	if (ends_with(path, ".csv") || ends_with(path, ".csv.gz"))
		return openb_sniff(path) != OPENB_NONE ? TRACE_OPENB : TRACE_DLRM;
	/* kubectl's JSON: one object (no other format starts with '{'). */
	if (k8s_sniff(path))
		return TRACE_K8S;
	/* A Slurm accounting dump (sacct -P) is told by its header line. */
	return sacct_sniff(path) ? TRACE_SACCT : TRACE_SWF;
}

const char *trace_format_name(enum trace_fmt f)
{
	switch (f) {
	case TRACE_JSONL: return "JSON Lines";
	case TRACE_DLRM: return "DLRM CSV";
	case TRACE_OPENB: return "openb pods";
	case TRACE_SACCT: return "Slurm sacct";
	case TRACE_K8S: return "Kubernetes pods";
	default: return "SWF";
	}
}

int trace_read_any(const char *path, bool lenient, struct workload *w,
                   struct dlrm_services *svc, char *err, size_t errlen)
{
	return trace_read_shaped(path, lenient, NULL, w, svc, err, errlen);
}

/* A trace that is not a regular file is read once: see anytrace.h. */
int trace_spool(const char *path, char *tmp, size_t len, char *err, size_t errlen)
{
	static const char *const suffixes[] = { ".jsonl.gz", ".jsonl", ".csv.gz", ".csv", ".gz", "" };
	struct stat st;
	tmp[0] = '\0';
	if (stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		return 0;
	const char *suf = "";
	for (int i = 0; suffixes[i][0]; i++)
		if (ends_with(path, suffixes[i])) {
			suf = suffixes[i];
			break;
		}
	const char *dir = getenv("TMPDIR");
	snprintf(tmp, len, "%s/hetlab-trace-XXXXXX%s", dir && dir[0] ? dir : "/tmp", suf);
	int out = mkostemps(tmp, (int)strlen(suf), O_CLOEXEC);
	if (out < 0) {
		snprintf(err, errlen, "%s: cannot make a copy to read (%s): %s", path, tmp, strerror(errno));
		tmp[0] = '\0';
		return -1;
	}
	int in = open(path, O_RDONLY | O_CLOEXEC);
	const char *fail = in < 0 ? "cannot open it" : NULL;
	char buf[1 << 16];
	while (!fail) {
		ssize_t n = read(in, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail = "cannot read it";
		if (n <= 0)
			break;
		for (ssize_t off = 0; off < n && !fail;) {
			ssize_t k = write(out, buf + off, (size_t)(n - off));
			if (k < 0 && errno != EINTR)
				fail = "cannot copy it";
			off += k > 0 ? k : 0;
		}
	}
	int e = errno;
	if (in >= 0)
		close(in);
	if (close(out) != 0 && !fail) {
		e = errno;
		fail = "cannot copy it";
	}
	if (fail) {
		snprintf(err, errlen, "%s: %s (a %s, copied to %s to be read): %s", path, fail,
		         S_ISFIFO(st.st_mode) ? "pipe" : "special file", tmp, strerror(e));
		unlink(tmp);
		tmp[0] = '\0';
		return -1;
	}
	return 0;
}


void trace_own_name(char *err, size_t errlen, const char *tmp, const char *path)
{
	char out[2048];
	size_t tl = strlen(tmp), o = 0;
	for (const char *s = err; *s && o + 1 < sizeof out;) {
		if (strncmp(s, tmp, tl) == 0) {
			o += (size_t)snprintf(out + o, sizeof out - o, "%s", path);
			s += tl;
		} else {
			out[o++] = *s++;
		}
	}
	out[o < sizeof out ? o : sizeof out - 1] = '\0';
	snprintf(err, errlen, "%s", out);
}

/* openb gpu_spec names -> catalog index, through the inventory's map. */
static int map_model(void *ctx, const char *name)
{
	const struct swf_shape *sh = ctx;
	const char *gpu = name;
	if (sh->inv) {
		gpu = NULL;
		for (int32_t i = 0; i < sh->inv->n && !gpu; i++)
			if (strcmp(sh->inv->e[i].model, name) == 0)
				gpu = sh->inv->e[i].gpu;
		if (!gpu)
			return -1;
	}
	return catalog_find_gpu(sh->cat, gpu);
}

/* GPU products of a Kubernetes pod list -> catalog index, through the
 * inventory's map, else the catalog's products. */
static int map_product(void *ctx, const char *product)
{
	const struct swf_shape *sh = ctx;
	return inv_k8s_gpu(sh->cat, sh->inv, product);
}

int trace_read_shaped(const char *path, bool lenient, const struct swf_shape *shape,
                      struct workload *w, struct dlrm_services *svc, char *err, size_t errlen)
{
	return trace_read_as(path, lenient, shape, w, svc, NULL, err, errlen);
}

static int read_format(enum trace_fmt fmt, const char *path, bool lenient, const struct swf_shape *shape,
                       struct workload *w, struct dlrm_services *svc, char *err, size_t errlen);

int trace_read_as(const char *path, bool lenient, const struct swf_shape *shape, struct workload *w,
                  struct dlrm_services *svc, enum trace_fmt *fmt, char *err, size_t errlen)
{
	char tmp[4096];
	if (trace_spool(path, tmp, sizeof tmp, err, errlen))
		return -1;
	const char *rd = tmp[0] ? tmp : path;
	enum trace_fmt f = trace_format_of(rd);
	if (fmt)
		*fmt = f;
	int rc = read_format(f, rd, lenient, shape, w, svc, err, errlen);
	if (tmp[0]) {
		if (rc)
			trace_own_name(err, errlen, tmp, path);
		unlink(tmp);
	}
	return rc;
}

static int read_format(enum trace_fmt fmt, const char *path, bool lenient, const struct swf_shape *shape,
                       struct workload *w, struct dlrm_services *svc, char *err, size_t errlen)
{
	switch (fmt) {
	case TRACE_JSONL:
		return trace_jsonl_read(path, w, err, errlen);
	case TRACE_DLRM: {
		struct dlrm_opts o = { .lenient = lenient };
		struct dlrm_services tmp;
		int rc = trace_dlrm_read(path, &o, w, svc ? svc : &tmp, err, errlen);
		if (rc == 0 && !svc)
			dlrm_services_free(&tmp);
		return rc;
	}
	case TRACE_OPENB: {
		struct openb_opts o = { .lenient = lenient };
		if (shape && shape->cat) {
			o.gpu_model = map_model;
			o.gpu_model_ctx = (void *)shape;
		}
		return trace_openb_pods_read(path, &o, w, NULL, err, errlen);
	}
	case TRACE_K8S: {
		struct k8s_opts o = { .lenient = lenient };
		char known[1024];
		if (shape && shape->cat) {
			inv_k8s_products(shape->cat, known, sizeof known);
			o.gpu_model = map_product;
			o.gpu_model_ctx = (void *)shape;
			o.known = known;
		}
		return trace_k8s_pods_read(path, &o, w, err, errlen);
	}
	case TRACE_SACCT: {
		struct sacct_opts o = { .lenient = lenient };
		if (shape && shape->partition_label[0])
			o.partition_label = shape->partition_label;
		if (shape && shape->gpu_type_label[0])
			o.gpu_type_label = shape->gpu_type_label;
		if (shape) {
			o.estimate_preempted = shape->estimate_preempted;
			o.ctld_log = shape->ctld_log[0] ? shape->ctld_log : NULL;
		}
		return trace_sacct_read(path, &o, w, NULL, err, errlen);
	}
	default: {
		struct swf_opts o = { .lenient = lenient, .shape = shape };
		return trace_swf_read(path, &o, w, err, errlen);
	}
	}
}

void trace_notes_of(const struct workload *w, char *buf, size_t len)
{
	void (*const of[])(const struct workload *, char *, size_t) = { swfext_notes, sacct_notes, k8s_notes };
	size_t off = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < sizeof of / sizeof of[0]; k++) {
		size_t sep = off > 0;
		if (off + sep >= len)
			return;
		of[k](w, buf + off + sep, len - off - sep);
		if (!buf[off + sep])
			continue;   /* nothing from this one */
		if (sep)
			buf[off] = '\n';
		off += sep + strlen(buf + off + sep);
	}
}

char *trace_resolve(const char *path, const char *tdir, char *err, size_t errlen)
{
	if (access(path, F_OK) == 0 || path[0] == '/')
		return strdup(path);
	size_t n = strlen(tdir) + strlen(path) + 2;
	char *p = malloc(n);
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(p, n, "%s/%s", tdir, path);
	if (access(p, F_OK) == 0)
		return p;
	free(p);
	snprintf(err, errlen, "%s: no such file (also looked in the trace directory %s; "
	         "set it with --traces DIR or $HETLAB_TRACES)", path, tdir);
	return NULL;
}
