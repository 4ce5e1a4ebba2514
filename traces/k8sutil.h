/* k8sutil — what the Kubernetes pod and node readers share (k8spods.c,
 * k8snodes.c; the public part is traces/k8s.h): loading the file, and
 * walking a json_t with a JSON path kept for messages. Private to
 * traces/: json_t never leaves the two readers. */
#ifndef HL_K8SUTIL_H
#define HL_K8SUTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The file (plain or gzip, at most JSONFILE_MAX bytes, a byte-order mark
 * skipped) parsed; NULL with "path:LINE:COL: message" in err. */
json_t *k8s_load(const char *path, char *err, size_t errlen);

/* Whose items a List holds. */
enum k8s_list { K8S_LIST_PODS, K8S_LIST_NODES };
/* The items of root, a List of `want` (or one such object, which is put in
 * *one); NULL with "path: what it is instead" in err. */
json_t *k8s_items(const char *path, json_t *root, enum k8s_list want, json_t **one,
                  char *err, size_t errlen);

/* A JSON path being walked, and the file it is in: errors read
 * "FILE: PATH: message". */
struct kpath {
	const char *file;
	char p[512];
	size_t n;
	char *err;
	size_t errlen;
};
/* Appends ".key" (or ["key"] when the key is not a plain word, as label
 * keys with '/' are) or "[i]"; kp_pop returns to the length before. */
size_t kp_key(struct kpath *k, const char *key);
size_t kp_idx(struct kpath *k, size_t i);
void kp_pop(struct kpath *k, size_t n);
/* Writes the error (the path as it is now, with ".key" when key is not
 * NULL) and returns -1. */
int kp_fail(struct kpath *k, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The JSON type of v, for messages: "a string", "an object", ... */
const char *kp_type(const json_t *v);
/* Member key of obj as a string (NULL when absent or null); -1 when it is
 * there but not a string. */
int kp_str(struct kpath *k, const json_t *obj, const char *key, bool required, const char **out);
/* Member key of obj as an object or array (NULL when absent or null);
 * -1 when it is of another type. */
int kp_obj(struct kpath *k, const json_t *obj, const char *key, bool required, json_t **out);
int kp_arr(struct kpath *k, const json_t *obj, const char *key, bool required, json_t **out);
/* A quantity member (a string, or a JSON number as some tools write):
 * what = "cpu" (milli-units), anything else (whole units, rounded up). */
int kp_quantity(struct kpath *k, const json_t *obj, const char *key, bool milli,
                const char *want, int64_t *out);
/* An RFC 3339 time member; *us = -1 when absent and not required. */
int kp_time(struct kpath *k, const json_t *obj, const char *key, bool required, int64_t *us);

/* ---- a pod's node constraints (traces/k8ssel.c) ----------------------------- */

struct k8s_opts;
struct workload;
/* A reader's state: where it is, its options, the workload it fills. */
struct kctx {
	struct kpath k;
	const struct k8s_opts *o;
	struct workload *w;
};
/* The nodeSelector and node affinity of a pod's spec: *sel_req and
 * *sel_pref the interned expressions + 1 (0 none), *models the catalog
 * bits of the GPU products asked for (0 any). 0, or -1 with the error. */
int k8s_constraints(struct kctx *c, const json_t *spec, int16_t *sel_req, int16_t *sel_pref,
                    uint64_t *models);

/* spec.tolerations as sim/taint.h toleration text ("key=value:NoSchedule,
 * key:NoExecute, *"), checked and interned: *tolerate index + 1, 0 none. */
int k8s_tolerations(struct kctx *c, const json_t *spec, int16_t *tolerate);

#endif
