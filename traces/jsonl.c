/* jsonl — the native trace format: JSON Lines, one job object per line
 * (see trace.h and docs/traces.md for the fields). Parsed with jansson a
 * line at a time; json_t never leaves this file. Reading validates every
 * key: an unknown key, a wrong type, a missing required field or a negative
 * count is an error naming the line and the JSON path. The request's plane,
 * pool and label expressions go into the workload's string table; the
 * expressions are compiled once on reading to catch syntax errors. The
 * writer emits a request field beyond counts only when it is set, so traces
 * without them keep their bytes. */
#include "traces/trace.h"
#include "sim/label.h"
#include "sim/prioclass.h"
#include "sim/taint.h"

#include <errno.h>
#include <stdarg.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- reading ---------------------------------------------------------- */

/* What a field may hold. */
enum jk {
	JK_ID,        /* integer >= 0, read and ignored (ids are indexes) */
	JK_INT64,     /* integer >= 0 */
	JK_TIME,      /* integer microseconds, 0 .. TRACE_MAX_TIME_US */
	JK_INT32M1,   /* integer >= -1 that fits in int32 */
	JK_COUNT,     /* integer >= 0 that fits in int32 */
	JK_WALLTIME,  /* integer > 0, or null for none */
	JK_CLASS,     /* a class name */
	JK_STATE,     /* "pending" */
	JK_BOOL,
	JK_REQ,       /* the request object */
	JK_EXT,       /* a request field with its own reader (get_req_ext) */
};

struct jfield {
	const char *key;
	enum jk kind;
	bool required;
};

enum { T_ID, T_TRACE_ID, T_CLASS, T_STATE, T_TENANT, T_GROUP, T_QUEUE, T_SUBMIT,
       T_WALLTIME, T_CKPT, T_REQ, T_RUN, T_FAILS, T_PRIOCLASS, T_NTOP };
static const struct jfield top_fields[T_NTOP] = {
	[T_ID] = { "id", JK_ID, false },
	[T_TRACE_ID] = { "trace_id", JK_INT64, false },
	[T_CLASS] = { "class", JK_CLASS, false },
	[T_PRIOCLASS] = { "priority_class", JK_CLASS, false },
	[T_STATE] = { "state", JK_STATE, false },
	[T_TENANT] = { "tenant", JK_INT32M1, false },
	[T_GROUP] = { "group", JK_INT32M1, false },
	[T_QUEUE] = { "queue", JK_INT32M1, false },
	[T_SUBMIT] = { "submit_us", JK_TIME, true },
	[T_WALLTIME] = { "walltime_us", JK_WALLTIME, false },
	[T_CKPT] = { "ckpt_every_us", JK_TIME, false },
	[T_REQ] = { "req", JK_REQ, true },
	[T_RUN] = { "run_us", JK_TIME, true },
	[T_FAILS] = { "fails", JK_BOOL, false },
};

/* The integer fields come first (R_NINT of them); the rest are read one
 * by one in get_req_ext. */
enum { R_NODES, R_CORES, R_GPUS, R_MEM, R_GPU_MEM, R_MODELS, R_NINT = R_MODELS + 1,
       R_MILLI = R_NINT, R_MIG, R_PREC, R_FP8, R_NUMA, R_ISA, R_PLANE, R_POOL, R_IO,
       R_STORAGE, R_REQUIRE, R_PREFER, R_TOLERATIONS, R_NREQ };
static const struct jfield req_fields[R_NREQ] = {
	[R_NODES] = { "nodes", JK_COUNT, false },
	[R_CORES] = { "cores", JK_COUNT, false },
	[R_GPUS] = { "gpus", JK_COUNT, false },
	[R_MEM] = { "mem_mib", JK_INT64, false },
	[R_GPU_MEM] = { "gpu_mem_mib", JK_INT64, false },
	[R_MODELS] = { "gpu_models_mask", JK_INT64, false },
	[R_MILLI] = { "gpu_milli", JK_EXT, false },
	[R_MIG] = { "mig", JK_EXT, false },
	[R_PREC] = { "precision", JK_EXT, false },
	[R_FP8] = { "fp8", JK_EXT, false },
	[R_NUMA] = { "numa_local", JK_EXT, false },
	[R_ISA] = { "isa", JK_EXT, false },
	[R_PLANE] = { "plane", JK_EXT, false },
	[R_POOL] = { "pool", JK_EXT, false },
	[R_IO] = { "io_mbps", JK_EXT, false },
	[R_STORAGE] = { "storage_gib", JK_EXT, false },
	[R_REQUIRE] = { "require", JK_EXT, false },
	[R_PREFER] = { "prefer", JK_EXT, false },
	[R_TOLERATIONS] = { "tolerations", JK_EXT, false },
};

/* Largest storage_gib a trace may ask for (an exabyte). */
#define JSONL_MAX_GIB 1e9
/* thousandths of a GPU in a whole card; most compute slices of a MIG instance. */
#define JSONL_MILLI 1000
#define JSONL_MIG_MAX 7

struct jctx {
	const char *path;
	int64_t line;
	char *err;
	size_t errlen;
	/* checked[k]: string k of the workload compiles as a label expression
	 * (so a trace's expressions are compiled once each). */
	uint8_t *checked;
	int32_t ncheck;
};

/* Sets "path:LINE: JSONPATH: what" and returns -1. */
__attribute__((format(printf, 3, 4)))
static int jfail(const struct jctx *c, const char *jpath, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s:%lld: %s: %s", c->path, (long long)c->line, jpath, what);
	return -1;
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number with a fraction";
	case JSON_TRUE: case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "?";
}

/* Finds each key of obj in the table; unknown keys are errors. */
static int match_keys(const struct jctx *c, json_t *obj, const char *prefix,
                      const struct jfield *tab, int ntab, json_t **vals)
{
	const char *key;
	json_t *v;
	for (int i = 0; i < ntab; i++)
		vals[i] = NULL;
	json_object_foreach(obj, key, v) {
		int i = 0;
		while (i < ntab && strcmp(key, tab[i].key) != 0)
			i++;
		if (i == ntab) {
			char jp[160];
			snprintf(jp, sizeof jp, "%s.%.100s", prefix, key);
			return jfail(c, jp, "unknown key");
		}
		vals[i] = v;
	}
	for (int i = 0; i < ntab; i++)
		if (tab[i].required && !vals[i]) {
			char jp[160];
			snprintf(jp, sizeof jp, "%s.%s", prefix, tab[i].key);
			return jfail(c, jp, "missing (required)");
		}
	return 0;
}

/* Reads an integer field of kind k into *out; absent leaves *out. */
static int get_int(const struct jctx *c, const char *prefix, const struct jfield *f,
                   json_t *v, int64_t *out)
{
	if (!v)
		return 0;
	char jp[160];
	snprintf(jp, sizeof jp, "%s.%s", prefix, f->key);
	const char *want;
	int64_t lo, hi = INT64_MAX;
	switch (f->kind) {
	case JK_INT32M1: want = "an integer >= -1"; lo = -1; hi = INT32_MAX; break;
	case JK_COUNT: want = "a non-negative integer"; lo = 0; hi = INT32_MAX; break;
	case JK_WALLTIME: want = "a positive integer (microseconds) or null"; lo = 1; hi = TRACE_MAX_TIME_US; break;
	case JK_TIME: want = "a non-negative integer (microseconds)"; lo = 0; hi = TRACE_MAX_TIME_US; break;
	default: want = "a non-negative integer"; lo = 0; break;
	}
	if (f->kind == JK_WALLTIME && json_is_null(v)) {
		*out = SIMTIME_INF;
		return 0;
	}
	if (!json_is_integer(v)) {
		return jfail(c, jp, "expected %s, got %s", want, type_name(v));
	}
	json_int_t x = json_integer_value(v);
	if (x < lo || x > hi) {
		if (x > hi && hi == TRACE_MAX_TIME_US)
			return jfail(c, jp, "expected %s of at most %lld (%lld s, about 31.7 years), got %lld",
			             want, (long long)hi, (long long)TRACE_MAX_TIME_S, (long long)x);
		return jfail(c, jp, "expected %s, got %lld%s", want, (long long)x,
		             x > hi ? " (too large)" : "");
	}
	*out = x;
	return 0;
}

static int get_string(const struct jctx *c, const char *jp, json_t *v, const char **out)
{
	if (!json_is_string(v)) {
		return jfail(c, jp, "expected a string, got %s", type_name(v));
	}
	*out = json_string_value(v);
	return 0;
}

/* A boolean request field: sets bit in *flags when true. */
static int get_flag(const struct jctx *c, const char *jp, json_t *v, unsigned bit, uint8_t *flags)
{
	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return jfail(c, jp, "expected true or false, got %s", type_name(v));
	if (json_is_true(v))
		*flags |= (uint8_t)bit;
	return 0;
}

/* A number >= 0 and <= max, rounded up to a whole unit. */
static int get_amount(const struct jctx *c, const char *jp, json_t *v, double max, int64_t *out)
{
	if (!v)
		return 0;
	if (!json_is_number(v))
		return jfail(c, jp, "expected a number >= 0, got %s", type_name(v));
	double x = json_number_value(v);
	if (!(x >= 0) || x > max)
		return jfail(c, jp, "expected a number in [0, %.0f], got %.17g", max, x);
	*out = (int64_t)ceil(x);
	return 0;
}

/* "mig": compute slices as a number, or a profile name such as "3g" or
 * "3g.40gb" whose leading digits are the slices. */
static int get_mig(const struct jctx *c, json_t *v, int8_t *out)
{
	const char *jp = "$.req.mig";
	const char *want = "compute slices 1..7 as a number, or a MIG profile such as \"3g\" "
	                   "or \"3g.40gb\"";
	long long g = 0;
	if (json_is_integer(v)) {
		g = json_integer_value(v);
		if (g < 1 || g > JSONL_MIG_MAX)
			return jfail(c, jp, "expected %s, got %lld", want, g);
	} else if (json_is_string(v)) {
		const char *s = json_string_value(v);
		size_t n = 0;
		while (s[n] >= '0' && s[n] <= '9' && n < 3)
			g = g * 10 + (s[n++] - '0');
		if (n == 0 || s[n] != 'g' || (s[n + 1] != '\0' && s[n + 1] != '.') ||
		    g < 1 || g > JSONL_MIG_MAX)
			return jfail(c, jp, "expected %s, got '%.60s'", want, s);
	} else {
		return jfail(c, jp, "expected %s, got %s", want, type_name(v));
	}
	*out = (int8_t)g;
	return 0;
}

/* A non-empty name or a label expression, interned into w's string table;
 * *out gets its index + 1. An expression is compiled to check it the first
 * time the trace names it. */
static int get_str_ref(struct jctx *c, const char *jp, json_t *v, bool expr,
                       struct workload *w, int16_t *out)
{
	if (!v)
		return 0;
	if (!json_is_string(v))
		return jfail(c, jp, "expected a %s string, got %s", expr ? "label expression" : "name",
		             type_name(v));
	const char *s = json_string_value(v);
	if (!expr && !*s)
		return jfail(c, jp, "expected a non-empty name");
	int k = workload_intern(w, s);
	if (k < 0)
		return jfail(c, jp, "cannot keep '%.60s': out of memory, or more than 32000 distinct "
		             "names and expressions in the trace", s);
	if (expr && (k >= c->ncheck || !c->checked[k])) {
		char msg[200];
		struct selector *S = sel_compile(s, msg, sizeof msg);
		if (!S)
			return jfail(c, jp, "bad label expression '%.60s': %s", s, msg);
		sel_free(S);
		if (k >= c->ncheck) {
			int32_t n = w->capstr > k ? w->capstr : k + 1;
			uint8_t *nc = realloc(c->checked, (size_t)n);
			if (!nc)
				return jfail(c, jp, "out of memory");
			memset(nc + c->ncheck, 0, (size_t)(n - c->ncheck));
			c->checked = nc;
			c->ncheck = n;
		}
		c->checked[k] = 1;
	}
	*out = (int16_t)(k + 1);
	return 0;
}

/* The request fields beyond counts and memory (see docs/traces.md). */
static int get_req_ext(struct jctx *c, json_t **v, struct workload *w, struct job_req *r, int16_t *tolerate)
{
	if (v[R_MILLI]) {
		json_t *m = v[R_MILLI];
		if (!json_is_integer(m))
			return jfail(c, "$.req.gpu_milli", "expected an integer in 1..1000 (thousandths "
			             "of one GPU), got %s", type_name(m));
		if (json_integer_value(m) < 1 || json_integer_value(m) > JSONL_MILLI)
			return jfail(c, "$.req.gpu_milli", "expected an integer in 1..1000 (thousandths "
			             "of one GPU), got %lld", (long long)json_integer_value(m));
		r->gpu_milli = (int32_t)json_integer_value(m);
	}
	if (v[R_MIG] && get_mig(c, v[R_MIG], &r->mig_g) != 0)
		return -1;
	if (r->gpu_milli && r->mig_g)
		return jfail(c, "$.req.mig", "a MIG instance and a time-sliced share (gpu_milli) "
		             "exclude each other");
	if (job_req_shared(r) && (r->nodes != 1 || r->gpus != 1))
		return jfail(c, r->mig_g ? "$.req.mig" : "$.req.gpu_milli", "a share of one GPU needs "
		             "nodes 1 and gpus 1, got nodes %d and gpus %d", (int)r->nodes, (int)r->gpus);
	if (v[R_PREC]) {
		const char *s = "";
		if (get_string(c, "$.req.precision", v[R_PREC], &s) != 0)
			return -1;
		int p = precision_parse(s);
		if (p < 0)
			return jfail(c, "$.req.precision", "expected fp16, bf16, fp8 or fp32, got '%.60s'", s);
		r->precision = (uint8_t)p;
	}
	if (get_flag(c, "$.req.fp8", v[R_FP8], REQ_FP8, &r->flags) != 0 ||
	    get_flag(c, "$.req.numa_local", v[R_NUMA], REQ_NUMA_LOCAL, &r->flags) != 0)
		return -1;
	if ((r->flags & REQ_FP8) && r->gpus == 0)
		return jfail(c, "$.req.fp8", "requiring FP8 GPUs needs a GPU request (gpus > 0)");
	if (v[R_ISA]) {
		json_t *a = v[R_ISA], *e;
		size_t i;
		if (!json_is_array(a))
			return jfail(c, "$.req.isa", "expected an array of \"avx512\" and \"amx\", got %s",
			             type_name(a));
		json_array_foreach(a, i, e) {
			char jp[64];
			snprintf(jp, sizeof jp, "$.req.isa[%zu]", i);
			const char *s = json_is_string(e) ? json_string_value(e) : NULL;
			if (s && strcmp(s, "avx512") == 0)
				r->flags |= REQ_AVX512;
			else if (s && strcmp(s, "amx") == 0)
				r->flags |= REQ_AMX;
			else if (s)
				return jfail(c, jp, "expected \"avx512\" or \"amx\", got '%.60s'", s);
			else
				return jfail(c, jp, "expected \"avx512\" or \"amx\", got %s", type_name(e));
		}
	}
	int64_t io = 0, gib = 0;
	if (get_str_ref(c, "$.req.plane", v[R_PLANE], false, w, &r->plane) != 0 ||
	    get_str_ref(c, "$.req.pool", v[R_POOL], false, w, &r->pool) != 0 ||
	    get_amount(c, "$.req.io_mbps", v[R_IO], INT32_MAX, &io) != 0 ||
	    get_amount(c, "$.req.storage_gib", v[R_STORAGE], JSONL_MAX_GIB, &gib) != 0)
		return -1;
	r->io_mbps = (int32_t)io;
	r->storage_gib = gib;
	if ((io > 0 || gib > 0) && !r->pool)
		return jfail(c, io > 0 ? "$.req.io_mbps" : "$.req.storage_gib", "storage bandwidth "
		             "and capacity are taken on a pool: give \"pool\" too");
	if (get_str_ref(c, "$.req.require", v[R_REQUIRE], true, w, &r->sel_req) != 0 ||
	    get_str_ref(c, "$.req.prefer", v[R_PREFER], true, w, &r->sel_pref) != 0)
		return -1;
	if (v[R_TOLERATIONS]) {
		/* Kubernetes tolerations (sim/taint.h), checked here, kept as text */
		const char *s = json_is_string(v[R_TOLERATIONS]) ? json_string_value(v[R_TOLERATIONS]) : NULL;
		struct toleration *tl = NULL;
		int32_t ntl = 0;
		char msg[300];
		if (!s)
			return jfail(c, "$.req.tolerations", "expected a string of tolerations (\"key=value:NoSchedule, "
			             "key:NoExecute, *\"), got %s", type_name(v[R_TOLERATIONS]));
		if (toleration_parse(s, &tl, &ntl, msg, sizeof msg))
			return jfail(c, "$.req.tolerations", "%s", msg);
		toleration_free(tl, ntl);
		int k = ntl ? workload_intern(w, s) : -2;
		if (k == -1)
			return jfail(c, "$.req.tolerations", "out of memory, or more than 32000 distinct names and "
			             "expressions in the trace");
		*tolerate = (int16_t)(k + 1 > 0 ? k + 1 : 0);
	}
	return 0;
}

static int get_req(struct jctx *c, json_t *obj, struct workload *w, struct job_req *r, int16_t *tolerate)
{
	if (!json_is_object(obj)) {
		return jfail(c, "$.req", "expected an object, got %s", type_name(obj));
	}
	json_t *v[R_NREQ];
	if (match_keys(c, obj, "$.req", req_fields, R_NREQ, v) != 0)
		return -1;
	int64_t x[R_NINT] = { 0 };
	for (int i = 0; i < R_NINT; i++)
		if (get_int(c, "$.req", &req_fields[i], v[i], &x[i]) != 0)
			return -1;
	memset(r, 0, sizeof *r);
	r->nodes = (int32_t)x[R_NODES];
	r->cores = (int32_t)x[R_CORES];
	r->gpus = (int32_t)x[R_GPUS];
	r->mem_mib = x[R_MEM];
	r->gpu_mem_mib = x[R_GPU_MEM];
	r->gpu_models = (uint64_t)x[R_MODELS];
	if (r->nodes == 0 && r->gpus > 0)
		return jfail(c, "$.req.gpus", "a spread request (nodes 0) cannot ask for GPUs; "
		             "give nodes > 0");
	if (r->cores == 0 && r->gpus == 0)
		return jfail(c, "$.req", "expected cores > 0 or gpus > 0");
	return get_req_ext(c, v, w, r, tolerate);
}

/* trace_id defaults to the job's position in the input (w->n_taken + w->n); strings the
 * request names go into w's table. */
static int obj_to_job(struct jctx *c, json_t *obj, struct workload *w, struct job *j,
                      struct job_truth *t)
{
	json_t *v[T_NTOP];
	if (match_keys(c, obj, "$", top_fields, T_NTOP, v) != 0)
		return -1;
	int64_t x[T_NTOP] = { 0 };
	x[T_TRACE_ID] = w->n_taken + w->n;
	x[T_TENANT] = x[T_GROUP] = x[T_QUEUE] = -1;
	x[T_WALLTIME] = SIMTIME_INF;
	for (int i = 0; i < T_NTOP; i++) {
		enum jk k = top_fields[i].kind;
		if (k == JK_ID || k == JK_INT64 || k == JK_TIME || k == JK_INT32M1 || k == JK_WALLTIME)
			if (get_int(c, "$", &top_fields[i], v[i], &x[i]) != 0)
				return -1;
	}
	job_init(j, 0, x[T_SUBMIT]);
	j->trace_id = x[T_TRACE_ID];
	j->tenant = (int32_t)x[T_TENANT];
	j->group = (int32_t)x[T_GROUP];
	j->queue = (int32_t)x[T_QUEUE];
	j->walltime_us = x[T_WALLTIME];
	j->ckpt_every_us = x[T_CKPT];
	if (v[T_CLASS]) {
		const char *s = "";
		if (get_string(c, "$.class", v[T_CLASS], &s) != 0)
			return -1;
		int cls = job_class_parse(s);
		if (cls < 0)
			return jfail(c, "$.class", "expected training, inference, batch or dev, "
			             "got '%.60s'", s);
		j->cls = (uint8_t)cls;
	}
	if (v[T_PRIOCLASS]) {
		/* a Kubernetes PriorityClass name: the class it maps to (sim/prioclass.h) */
		const char *s = "";
		if (get_string(c, "$.priority_class", v[T_PRIOCLASS], &s) != 0)
			return -1;
		int cls = prioclass_parse(s);
		if (cls < 0)
			return jfail(c, "$.priority_class", "unknown priority class '%.60s' (known: %s)", s,
			             prioclass_list());
		if (v[T_CLASS] && cls != j->cls)
			return jfail(c, "$.priority_class", "'%.60s' is class %s, but $.class says %s", s,
			             job_class_name((enum job_class)cls), job_class_name((enum job_class)j->cls));
		j->cls = (uint8_t)cls;
	}
	if (v[T_STATE]) {
		const char *s = "";
		if (get_string(c, "$.state", v[T_STATE], &s) != 0)
			return -1;
		if (strcmp(s, job_state_name(JOB_PENDING)) != 0)
			return jfail(c, "$.state", "expected \"pending\" (a trace holds jobs not yet "
			             "submitted), got '%.60s'", s);
	}
	if (get_req(c, v[T_REQ], w, &j->req, &j->tolerate) != 0)
		return -1;
	memset(t, 0, sizeof *t);
	t->run_us = x[T_RUN];
	if (v[T_FAILS]) {
		if (!json_is_boolean(v[T_FAILS])) {
			return jfail(c, "$.fails", "expected true or false, got %s",
			             type_name(v[T_FAILS]));
		}
		t->fails = json_is_true(v[T_FAILS]);
	}
	return 0;
}

/* The optional first line {"header": {"max_procs": N, "max_nodes": N,
 * "unix_start": S}} keeps an SWF header's sizing across a conversion. */
static int get_header(const struct jctx *c, json_t *obj, json_t *hdr, struct workload *w)
{
	static const char *const keys[] = { "max_procs", "max_nodes", "unix_start" };
	if (json_object_size(obj) != 1)
		return jfail(c, "$", "a header line holds only \"header\"");
	if (!json_is_object(hdr))
		return jfail(c, "$.header", "expected an object, got %s", type_name(hdr));
	const char *k;
	json_t *v;
	json_object_foreach(hdr, k, v) {
		int i = 0;
		while (i < 3 && strcmp(keys[i], k) != 0)
			i++;
		char jp[64];
		snprintf(jp, sizeof jp, "$.header.%s", k);
		if (i == 3)
			return jfail(c, jp, "unknown key (expected max_procs, max_nodes or unix_start)");
		if (!json_is_integer(v) || json_integer_value(v) < -1 ||
		    (i < 2 && json_integer_value(v) > INT32_MAX))
			return jfail(c, jp, "expected an integer >= -1, got %s", type_name(v));
		if (i == 0)
			w->max_procs = (int32_t)json_integer_value(v);
		else if (i == 1)
			w->max_nodes = (int32_t)json_integer_value(v);
		else
			w->unix_start = json_integer_value(v);
	}
	return 0;
}

int trace_jsonl_read(const char *path, struct workload *w, char *err, size_t errlen)
{
	workload_init(w);
	struct linereader *lr = linereader_open(path, err, errlen);
	if (!lr)
		return -1;
	struct jctx c = { .path = path, .err = err, .errlen = errlen };
	const char *line;
	size_t len;
	while ((line = linereader_next(lr, &len))) {
		c.line = linereader_lineno(lr);
		size_t i = 0;
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len)
			continue; /* blank line */
		json_error_t je;
		json_t *obj = json_loadb(line, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
		if (!obj) {
			snprintf(err, errlen, "%s:%lld:%d: %s", path, (long long)c.line,
			         je.column, je.text);
			goto fail;
		}
		struct job j;
		struct job_truth t;
		int rc;
		json_t *hdr = json_is_object(obj) ? json_object_get(obj, "header") : NULL;
		if (hdr) {
			rc = w->n > 0 ? jfail(&c, "$.header", "a header line must come before the jobs")
			              : get_header(&c, obj, hdr, w);
			json_decref(obj);
			if (rc != 0)
				goto fail;
			continue;
		}
		if (!json_is_object(obj)) {
			rc = jfail(&c, "$", "expected a job object, got %s", type_name(obj));
		} else {
			rc = obj_to_job(&c, obj, w, &j, &t);
		}
		json_decref(obj);
		if (rc != 0)
			goto fail;
		if (workload_add(w, &j, &t) != 0) {
			snprintf(err, errlen, "%s:%lld: out of memory after %d jobs", path,
			         (long long)c.line, w->n);
			goto fail;
		}
	}
	if (linereader_error(lr))
		goto fail;
	w->lines = linereader_lineno(lr);
	linereader_close(lr);
	free(c.checked);
	workload_sort(w);
	return 0;

fail:
	linereader_close(lr);
	free(c.checked);
	workload_free(w);
	return -1;
}

int trace_jsonl_parse_job(const char *src, int64_t line, const char *text, size_t len,
                          const char *const *ignore, struct workload *w, char *err, size_t errlen)
{
	struct jctx c = { .path = src, .line = line, .err = err, .errlen = errlen };
	json_error_t je;
	json_t *obj = json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
	if (!obj) {
		snprintf(err, errlen, "%s:%lld:%d: %s", src, (long long)line, je.column, je.text);
		return -1;
	}
	struct job j;
	struct job_truth t;
	int rc;
	if (!json_is_object(obj)) {
		rc = jfail(&c, "$", "expected a job object, got %s", type_name(obj));
	} else {
		for (int k = 0; ignore && ignore[k]; k++)
			json_object_del(obj, ignore[k]);
		rc = obj_to_job(&c, obj, w, &j, &t);
	}
	json_decref(obj);
	free(c.checked);
	if (rc == 0 && workload_add(w, &j, &t) != 0) {
		snprintf(err, errlen, "%s:%lld: out of memory", src, (long long)line);
		rc = -1;
	}
	return rc;
}

/* ---- writing ---------------------------------------------------------- */

/* The string that a request's index + 1 names, or NULL when k1 is out of
 * the table. */
static const char *str_of(const struct workload *w, int k1)
{
	return k1 >= 1 && k1 <= w->nstr ? w->str[k1 - 1] : NULL;
}

/* Adds the request fields beyond counts and memory, each only when set, so
 * that a trace without them is written as it always was. 0, or -1 on
 * ENOMEM. */
static int put_req_ext(json_t *req, const struct workload *w, const struct job_req *r, int16_t tolerate)
{
	int rc = 0;
	if (r->gpu_milli)
		rc |= json_object_set_new(req, "gpu_milli", json_integer(r->gpu_milli));
	if (r->mig_g)
		rc |= json_object_set_new(req, "mig", json_integer(r->mig_g));
	if (r->precision != PREC_FP16)
		rc |= json_object_set_new(req, "precision",
		                          json_string(precision_name((enum precision)r->precision)));
	if (r->flags & REQ_FP8)
		rc |= json_object_set_new(req, "fp8", json_true());
	if (r->flags & REQ_NUMA_LOCAL)
		rc |= json_object_set_new(req, "numa_local", json_true());
	if (r->flags & (REQ_AVX512 | REQ_AMX)) {
		json_t *isa = json_array();
		if (isa && (r->flags & REQ_AVX512))
			rc |= json_array_append_new(isa, json_string("avx512"));
		if (isa && (r->flags & REQ_AMX))
			rc |= json_array_append_new(isa, json_string("amx"));
		rc |= json_object_set_new(req, "isa", isa);
	}
	if (r->plane)
		rc |= json_object_set_new(req, "plane", json_string(str_of(w, r->plane)));
	if (r->pool)
		rc |= json_object_set_new(req, "pool", json_string(str_of(w, r->pool)));
	if (r->io_mbps)
		rc |= json_object_set_new(req, "io_mbps", json_integer(r->io_mbps));
	if (r->storage_gib)
		rc |= json_object_set_new(req, "storage_gib", json_integer(r->storage_gib));
	if (r->sel_req)
		rc |= json_object_set_new(req, "require", json_string(str_of(w, r->sel_req)));
	if (r->sel_pref)
		rc |= json_object_set_new(req, "prefer", json_string(str_of(w, r->sel_pref)));
	if (tolerate && str_of(w, tolerate))
		rc |= json_object_set_new(req, "tolerations", json_string(str_of(w, tolerate)));
	return rc ? -1 : 0;
}

static json_t *job_to_obj(const struct workload *w, const struct job *j, const struct job_truth *t)
{
	json_t *req = json_pack("{s:i, s:i, s:i, s:I, s:I, s:I}",
	                        "nodes", (int)j->req.nodes, "cores", (int)j->req.cores,
	                        "gpus", (int)j->req.gpus, "mem_mib", (json_int_t)j->req.mem_mib,
	                        "gpu_mem_mib", (json_int_t)j->req.gpu_mem_mib,
	                        "gpu_models_mask", (json_int_t)j->req.gpu_models);
	if (!req)
		return NULL;
	if (put_req_ext(req, w, &j->req, j->tolerate) != 0) {
		json_decref(req);
		return NULL;
	}
	json_t *wall = j->walltime_us == SIMTIME_INF ? json_null()
	                                             : json_integer(j->walltime_us);
	/* "o" steals req and wall, also when json_pack fails. */
	return json_pack("{s:i, s:I, s:s, s:s, s:i, s:i, s:i, s:I, s:o, s:I, s:o, s:I, s:b}",
	                 "id", (int)j->id, "trace_id", (json_int_t)j->trace_id,
	                 "class", job_class_name((enum job_class)j->cls),
	                 "state", job_state_name((enum job_state)j->state),
	                 "tenant", (int)j->tenant, "group", (int)j->group, "queue", (int)j->queue,
	                 "submit_us", (json_int_t)j->submit_us, "walltime_us", wall,
	                 "ckpt_every_us", (json_int_t)j->ckpt_every_us,
	                 "req", req, "run_us", (json_int_t)t->run_us, "fails", (int)(t->fails != 0));
}

int trace_jsonl_write(const char *path, const struct workload *w, char *err, size_t errlen)
{
	size_t tlen = strlen(path) + 32;
	char *tmp = malloc(tlen);
	if (!tmp) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	snprintf(tmp, tlen, "%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		snprintf(err, errlen, "%s: cannot create %s: %s", path, tmp, strerror(errno));
		goto free_tmp;
	}
	if (w->max_procs > 0 || w->max_nodes > 0 || w->unix_start > 0) {
		json_t *h = json_pack("{s:{s:i, s:i, s:I}}", "header", "max_procs", (int)w->max_procs,
		                      "max_nodes", (int)w->max_nodes, "unix_start", (json_int_t)w->unix_start);
		int rc = h ? json_dumpf(h, f, JSON_COMPACT) : -1;
		json_decref(h);
		if (rc != 0 || fputc('\n', f) == EOF) {
			snprintf(err, errlen, "%s: write failed: %s", tmp, strerror(errno));
			goto remove_tmp;
		}
	}
	for (int32_t i = 0; i < w->n; i++) {
		const struct job *j = &w->jobs[i];
		if (j->req.gpu_models > (uint64_t)INT64_MAX) {
			snprintf(err, errlen, "%s: job %d: gpu_models_mask uses bit 63, which JSON "
			         "integers here cannot carry", path, i);
			goto remove_tmp;
		}
		const struct job_req *r = &j->req;
		const int16_t refs[] = { r->plane, r->pool, r->sel_req, r->sel_pref };
		static const char *const ref_names[] = { "plane", "pool", "require", "prefer" };
		for (int k = 0; k < 4; k++)
			if (refs[k] && !str_of(w, refs[k])) {
				snprintf(err, errlen, "%s: job %d: req.%s refers to string %d, but the "
				         "workload has %d", path, i, ref_names[k], refs[k] - 1, (int)w->nstr);
				goto remove_tmp;
			}
		json_t *obj = job_to_obj(w, j, &w->truth[i]);
		if (!obj) {
			snprintf(err, errlen, "%s: job %d: out of memory", path, i);
			goto remove_tmp;
		}
		int rc = json_dumpf(obj, f, JSON_COMPACT);
		json_decref(obj);
		if (rc != 0 || fputc('\n', f) == EOF) {
			snprintf(err, errlen, "%s: write failed: %s", tmp, strerror(errno));
			goto remove_tmp;
		}
	}
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		snprintf(err, errlen, "%s: write failed: %s", tmp, strerror(errno));
		goto remove_tmp;
	}
	if (fclose(f) != 0) {
		f = NULL;
		snprintf(err, errlen, "%s: write failed: %s", tmp, strerror(errno));
		goto remove_tmp;
	}
	f = NULL;
	if (rename(tmp, path) != 0) {
		snprintf(err, errlen, "%s: cannot rename %s into place: %s", path, tmp,
		         strerror(errno));
		goto remove_tmp;
	}
	free(tmp);
	return 0;

remove_tmp:
	if (f)
		fclose(f);
	unlink(tmp);
free_tmp:
	free(tmp);
	return -1;
}
