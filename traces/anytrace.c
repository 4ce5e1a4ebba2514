/* anytrace — see anytrace.h. */
#include "traces/anytrace.h"
#include "traces/openb.h"
#include "traces/sacct.h"
#include "traces/swfext.h"
#include "traces/invcluster.h"
#include "sim/cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	default: return "SWF";
	}
}

int trace_read_any(const char *path, bool lenient, struct workload *w,
                   struct dlrm_services *svc, char *err, size_t errlen)
{
	return trace_read_shaped(path, lenient, NULL, w, svc, err, errlen);
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

int trace_read_shaped(const char *path, bool lenient, const struct swf_shape *shape,
                      struct workload *w, struct dlrm_services *svc, char *err, size_t errlen)
{
	switch (trace_format_of(path)) {
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
	swfext_notes(w, buf, len);
	size_t off = strlen(buf), sep = off > 0;
	if (off + sep >= len)
		return;
	sacct_notes(w, buf + off + sep, len - off - sep);
	if (sep && buf[off + 1])
		buf[off] = '\n';
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
