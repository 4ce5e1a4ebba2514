/* jv — the JSON validation helpers every loader shares (scenario, catalog,
 * workload models). Each checks one key of an object against a type and
 * bounds, and on the first problem writes "FILE: $.path: what was expected,
 * got what" into the caller's buffer and returns -1; later calls then fail
 * at once, so a chain of checks stops at the first error. Absent optional
 * keys leave the output as it was. json_t stays inside traces/. */
#ifndef HL_JV_H
#define HL_JV_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "traces/jsonfile.h"

/* Validation context: the file and the first error. */
struct jv {
	const char *file;
	char *err;
	size_t errlen;
	bool failed;
};

__attribute__((format(printf, 3, 4)))
int jv_fail(struct jv *v, const char *path, const char *fmt, ...);
/* "an object", "a string", ... for messages. */
const char *jv_type(const json_t *j);
/* o must be an object whose keys are all in the NULL-terminated list. */
int jv_object(struct jv *v, const json_t *o, const char *path, const char *const *keys);
void jv_subpath(char *out, size_t len, const char *path, const char *key);
void jv_idxpath(char *out, size_t len, const char *path, size_t i);
int jv_num(struct jv *v, const json_t *o, const char *path, const char *key, bool required,
           double min, double max, double *out);
int jv_int(struct jv *v, const json_t *o, const char *path, const char *key, bool required,
           long long min, long long max, long long *out);
int jv_str(struct jv *v, const json_t *o, const char *path, const char *key, bool required,
           char *out, size_t len);
int jv_bool(struct jv *v, const json_t *o, const char *path, const char *key, bool *out);
/* The array at o.key, or NULL (absent, or not an array: then v has failed). */
json_t *jv_array(struct jv *v, const json_t *o, const char *path, const char *key, bool required);

#endif
