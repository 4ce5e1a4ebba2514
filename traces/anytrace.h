/* anytrace — reading a trace file of any supported format, chosen by its
 * name and, for CSV, its header: `.jsonl` / `.jsonl.gz` native JSON Lines;
 * `.csv` / `.csv.gz` an Alibaba openb pod list when its first line is an
 * openb header (traces/openb.h), else the Alibaba DLRM instance list; a
 * file that starts with a JSON object a Kubernetes pod list (kubectl get
 * pods -A -o json, traces/k8s.h); a Slurm sacct dump by its header;
 * anything else SWF (plain or gzip). And the lookup every command shares: a
 * path as given when it exists, else under the trace directory. */
#ifndef HL_ANYTRACE_H
#define HL_ANYTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include "traces/dlrm.h"
#include "traces/trace.h"

enum trace_fmt { TRACE_SWF, TRACE_JSONL, TRACE_DLRM, TRACE_OPENB, TRACE_SACCT, TRACE_K8S };

/* For a .csv name, reads the file's first line (an unreadable file is
 * TRACE_DLRM, whose reader then reports why). An openb node list or a pod
 * list without times is TRACE_OPENB too: its reader says it has no jobs. */
enum trace_fmt trace_format_of(const char *path);
const char *trace_format_name(enum trace_fmt f);
/* svc may be NULL; it is filled only for the DLRM CSV (the openb per-pod
 * extras are dropped: call trace_openb_pods_read for them). 0 or -1 with err. */
int trace_read_any(const char *path, bool lenient, struct workload *w,
                   struct dlrm_services *svc, char *err, size_t errlen);
/* trace_read_any with the request shape for SWF jobs (NULL: the default,
 * cores anywhere); other formats ignore it. */
int trace_read_shaped(const char *path, bool lenient, const struct swf_shape *shape,
                      struct workload *w, struct dlrm_services *svc, char *err, size_t errlen);
/* trace_read_shaped that says which format it read (fmt may be NULL). A
 * trace that is not a regular file (a pipe: `--trace <(zcat x.gz)`, a
 * named FIFO) is read once, through a temporary copy that keeps the
 * suffix its format is told by; errors name the path as given. */
int trace_read_as(const char *path, bool lenient, const struct swf_shape *shape, struct workload *w,
                  struct dlrm_services *svc, enum trace_fmt *fmt, char *err, size_t errlen);
/* A trace that is not a regular file (a pipe, as `--trace <(...)` gives,
 * a named FIFO, a character device) can be read once only, and its format
 * is told from its first line before it is read: trace_spool copies it to
 * a temporary file ($TMPDIR, else /tmp) that keeps the suffix its format
 * is told by. 0 with the copy's path in tmp, which the caller unlinks (""
 * when path is read as it is: a regular file, or one the reader will say
 * it cannot read); -1 with err. trace_own_name makes every mention of the
 * copy in err the trace's own path. */
int trace_spool(const char *path, char *tmp, size_t len, char *err, size_t errlen);
void trace_own_name(char *err, size_t errlen, const char *tmp, const char *path);
/* What a reader did to a trace that a user should know, one note a line,
 * into buf ("" none): an extended SWF log's (swfext_notes), a Slurm
 * dump's (sacct_notes), a Kubernetes pod list's (k8s_notes). */
void trace_notes_of(const struct workload *w, char *buf, size_t len);
/* The path to read: as given when it exists (or is absolute), else under
 * tdir. A string the caller frees, or NULL with a message in err. */
char *trace_resolve(const char *path, const char *tdir, char *err, size_t errlen);

#endif
