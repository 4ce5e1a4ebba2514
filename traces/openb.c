/* openb — the Alibaba v2023 GPU-sharing ("openb") pod and node lists (see
 * openb.h, docs/traces.md).
 *
 * Both lists are CSV with a fixed header and no quoting. Rows are read one
 * at a time, validated field by field and become jobs (pods) or node
 * records; the per-pod extras go to a parallel array that is permuted with
 * the jobs when they are sorted by submit time, as in the DLRM reader.
 * A pod sharing one GPU (0 < gpu_milli < 1000) becomes a time-sliced share
 * request (job_req.gpu_milli); `hetlab frag` reads the pod lists on its own
 * path (experiments/frag.c), which this does not change.
 *
 * The released files hold integers only (milli-cores, MiB, whole seconds),
 * so every number must be a plain non-negative integer; times may also
 * carry a decimal fraction, which a re-export (12.0) tends to add. */
#include "traces/csv.h"
#include "traces/openb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char OPENB_POD_HEADER[] =
	"name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
	"creation_time,deletion_time,scheduled_time";
const char OPENB_POD_HEADER_UNTIMED[] = "name,cpu_milli,memory_mib,num_gpu,gpu_milli";
const char OPENB_NODE_HEADER[] = "sn,cpu_milli,memory_mib,gpu,model";

/* Pod columns, 0-based here and 1-based in messages. */
enum {
	P_NAME, P_CPU, P_MEM, P_NGPU, P_MILLI, P_SPEC, P_QOS, P_PHASE, P_CREATE, P_DELETE,
	P_SCHED, P_NCOLS
};
static const char *const pod_cols[P_NCOLS] = {
	"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos",
	"pod_phase", "creation_time", "deletion_time", "scheduled_time",
};
/* Node columns. */
enum { N_SN, N_CPU, N_MEM, N_GPU, N_MODEL, N_NCOLS };
static const char *const node_cols[N_NCOLS] = {
	"sn", "cpu_milli", "memory_mib", "gpu", "model",
};

#define OPENB_MAX_REQ 1000000000000LL   /* largest milli-cores or MiB (10^12) */
#define OPENB_MAX_TIME_S ((double)TRACE_MAX_TIME_S)   /* largest time, s (trace.h) */

static const char *const qos_names[OPENB_NQOS] = { "LS", "BE", "Burstable", "Guaranteed" };
static const char *const phase_names[OPENB_NPHASE] = {
	"Running", "Succeeded", "Failed", "Pending",
};

/* ---- fields ----------------------------------------------------------------- */

/* A plain non-negative integer of at most `max`. */
static int scan_uint(const char *s, size_t n, int64_t max, int64_t *out)
{
	int64_t v = 0;
	if (n == 0 || n > 18)   /* 18 digits cannot overflow */
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v > max)
		return -1;
	*out = v;
	return 0;
}

/* Seconds: digits, optionally a '.' and more digits; at most 10^9. */
static int scan_secs(const char *s, size_t n, double *out)
{
	char tmp[40];
	size_t i = 0, digits = 0;
	if (n == 0 || n >= sizeof tmp)
		return -1;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
	if (i != n || !digits)
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	*out = strtod(tmp, NULL);
	return *out <= OPENB_MAX_TIME_S ? 0 : -1;
}

/* gpu_spec: empty, or model names joined by '|'. */
static bool spec_ok(const char *s, size_t n)
{
	if (n >= OPENB_SPEC_MAX)
		return false;
	for (size_t i = 0, start = 0; i <= n; i++) {
		if (i < n && s[i] != '|')
			continue;
		if (n > 0 && !csv_name_ok(s + start, i - start, OPENB_MODEL_MAX, false))
			return false;
		start = i + 1;
	}
	return true;
}

/* The value for a message: at most 40 characters, "..." when cut. */
#define SHOWN(s, n) (int)((n) > 40 ? 40 : (n)), (s), (n) > 40 ? "..." : ""

/* ---- headers ---------------------------------------------------------------- */

enum openb_kind openb_sniff(const char *path)
{
	char err[256];
	struct linereader *lr = linereader_open(path, err, sizeof err);
	if (!lr)
		return OPENB_NONE;
	const char *line = linereader_next(lr, NULL);
	enum openb_kind k = OPENB_NONE;
	if (line) {
		line = csv_skip_bom(line);
		if (strcmp(line, OPENB_POD_HEADER) == 0)
			k = OPENB_PODS;
		else if (strcmp(line, OPENB_POD_HEADER_UNTIMED) == 0)
			k = OPENB_PODS_UNTIMED;
		else if (strcmp(line, OPENB_NODE_HEADER) == 0)
			k = OPENB_NODES;
	}
	linereader_close(lr);
	return k;
}

/* The header must be `want` exactly; msg names the list the line is
 * instead, or the first column that differs. */
static int check_header(const char *line, const char *want, const char *const *cols, int ncols,
                        const char *what, char *msg, size_t msglen)
{
	line = csv_skip_bom(line);
	if (strcmp(line, want) == 0)
		return 0;
	if (strcmp(line, OPENB_POD_HEADER_UNTIMED) == 0) {
		snprintf(msg, msglen, "an openb pod list without times (%s): it has no creation, "
		         "deletion or scheduling times to replay", OPENB_POD_HEADER_UNTIMED);
		return -1;
	}
	if (want != OPENB_NODE_HEADER && strcmp(line, OPENB_NODE_HEADER) == 0) {
		snprintf(msg, msglen, "an openb node list, not a list of jobs "
		         "(`hetlab trace inspect` summarises it)");
		return -1;
	}
	if (want == OPENB_NODE_HEADER && strcmp(line, OPENB_POD_HEADER) == 0) {
		snprintf(msg, msglen, "an openb pod list, not a node list");
		return -1;
	}
	const char *s = line;
	for (int c = 0; c < ncols; c++) {
		size_t n = strcspn(s, ",");
		if (n != strlen(cols[c]) || strncmp(s, cols[c], n) != 0) {
			snprintf(msg, msglen, "not the %s header: column %d is '%.*s%s', expected '%s' "
			         "(the header is %s)", what, c + 1, SHOWN(s, n), cols[c], want);
			return -1;
		}
		s += n;
		if (*s)
			s++;
	}
	snprintf(msg, msglen, "not the %s header: more than %d columns (the header is %s)", what,
	         ncols, want);
	return -1;
}

/* ---- one pod row ------------------------------------------------------------- */

struct prow {
	int64_t cpu_milli, mem_mib, ngpu, milli;
	const char *spec;
	size_t spec_len;
	int qos, phase;
	double t[P_NCOLS];      /* the times, -1 when empty */
};

static int parse_enum(const char *s, size_t n, const char *const *names, int count)
{
	for (int k = 0; k < count; k++)
		if (strlen(names[k]) == n && memcmp(s, names[k], n) == 0)
			return k;
	return -1;
}

/* Field c of a pod row; 0 ok, -1 with *want set. */
static int pod_field(int c, const char *s, size_t n, struct prow *r, const char **want)
{
	switch (c) {
	case P_NAME:
		*want = "a name of 1 to 63 letters, digits, '_', '-', '.' or ':'";
		return csv_name_ok(s, n, OPENB_NAME_MAX, true) ? 0 : -1;
	case P_CPU:
		*want = "a non-negative integer (milli-cores, at most 10^12)";
		return scan_uint(s, n, OPENB_MAX_REQ, &r->cpu_milli);
	case P_MEM:
		*want = "a non-negative integer (MiB, at most 10^12)";
		return scan_uint(s, n, OPENB_MAX_REQ, &r->mem_mib);
	case P_NGPU:
		*want = "an integer in 0..64";
		return scan_uint(s, n, OPENB_MAX_GPUS, &r->ngpu);
	case P_MILLI:
		*want = "an integer in 0..1000";
		if (scan_uint(s, n, OPENB_MILLI, &r->milli) != 0)
			return -1;
		if (r->ngpu == 0 && r->milli != 0) {
			*want = "0 for a pod without GPUs (num_gpu 0)";
			return -1;
		}
		if (r->ngpu > 0 && r->milli == 0) {
			*want = "1..1000 for a pod with GPUs";
			return -1;
		}
		if (r->ngpu > 1 && r->milli != OPENB_MILLI) {
			*want = "1000 (only a one-GPU pod shares a GPU)";
			return -1;
		}
		return 0;
	case P_SPEC:
		*want = "empty or GPU model names (1 to 31 letters, digits, '_', '-' or '.') "
		        "separated by '|'";
		r->spec = s;
		r->spec_len = n;
		return spec_ok(s, n) ? 0 : -1;
	case P_QOS:
		*want = "LS, BE, Burstable or Guaranteed";
		return (r->qos = parse_enum(s, n, qos_names, OPENB_NQOS)) < 0 ? -1 : 0;
	case P_PHASE:
		*want = "Running, Succeeded, Failed or Pending";
		return (r->phase = parse_enum(s, n, phase_names, OPENB_NPHASE)) < 0 ? -1 : 0;
	case P_CREATE:
		*want = "a time in seconds (>= 0, at most 10^9)";
		return scan_secs(s, n, &r->t[c]);
	case P_DELETE:
		r->t[c] = -1;
		if (n == 0 && (r->phase == OPENB_SUCCEEDED || r->phase == OPENB_FAILED)) {
			*want = r->phase == OPENB_FAILED ? "a time (a Failed pod has ended)"
			                                 : "a time (a Succeeded pod has ended)";
			return -1;
		}
		*want = "empty or a time in seconds (>= 0, at most 10^9)";
		return n == 0 ? 0 : scan_secs(s, n, &r->t[c]);
	case P_SCHED:
		r->t[c] = -1;
		if (r->phase == OPENB_PENDING) {
			*want = "empty (a Pending pod was never scheduled)";
			return n == 0 ? 0 : -1;
		}
		*want = "a time in seconds (>= 0, at most 10^9; only a Pending pod has none)";
		return scan_secs(s, n, &r->t[c]);
	}
	return -1;
}

static int parse_pod(const char *line, struct prow *r, char *msg, size_t msglen)
{
	const char *tok[P_NCOLS];
	size_t len[P_NCOLS];
	int n = csv_split(line, tok, len, P_NCOLS);
	if (n > P_NCOLS) {
		snprintf(msg, msglen, "expected %d comma-separated fields, got %d", P_NCOLS, n);
		return -1;
	}
	if (n < P_NCOLS) {
		snprintf(msg, msglen, "expected %d comma-separated fields, got %d (field %d (%s) "
		         "is missing)", P_NCOLS, n, n + 1, pod_cols[n]);
		return -1;
	}
	for (int c = 0; c < P_NCOLS; c++) {
		const char *want = "";
		if (pod_field(c, tok[c], len[c], r, &want) != 0) {
			snprintf(msg, msglen, "field %d (%s): expected %s, got '%.*s%s'", c + 1,
			         pod_cols[c], want, SHOWN(tok[c], len[c]));
			return -1;
		}
	}
	/* Times in order: scheduled and deleted no earlier than created, deleted
	 * no earlier than scheduled. */
	static const int after[][2] = {
		{ P_SCHED, P_CREATE }, { P_DELETE, P_CREATE }, { P_DELETE, P_SCHED },
	};
	for (size_t k = 0; k < sizeof after / sizeof after[0]; k++) {
		int c = after[k][0], b = after[k][1];
		if (r->t[c] >= 0 && r->t[b] >= 0 && r->t[c] < r->t[b]) {
			snprintf(msg, msglen, "field %d (%s): expected a time >= %s (%.17g), got '%.*s%s'",
			         c + 1, pod_cols[c], pod_cols[b], r->t[b], SHOWN(tok[c], len[c]));
			return -1;
		}
	}
	return 0;
}

/* ---- the pod reader -------------------------------------------------------- */

void openb_pods_init(struct openb_pods *p)
{
	memset(p, 0, sizeof *p);
}

void openb_pods_free(struct openb_pods *p)
{
	free(p->pod);
	free(p->specs);
	openb_pods_init(p);
}

/* Growth of the reader's arrays. */
struct podbuf {
	int32_t pod_cap, spec_cap, row_cap;
	int64_t *rowidx;        /* rowidx[k]: the data row of pod k */
};

/* The array a (room for *cap elements of `size` bytes) with twice the room:
 * the new pointer, or NULL with a and *cap unchanged. */
static void *grow(void *a, int32_t *cap, size_t size)
{
	if (*cap >= INT32_MAX / 2)
		return NULL;
	int32_t ncap = *cap ? *cap * 2 : 1024;
	void *na = realloc(a, (size_t)ncap * size);
	if (na)
		*cap = ncap;
	return na;
}

/* The index of the spec text, added when new; -1 when empty, -2 on ENOMEM.
 * A linear search: the released files have no spec at all, and a cluster
 * has a handful of model combinations. */
static int32_t spec_intern(struct openb_pods *p, struct podbuf *b, const char *s, size_t n)
{
	if (n == 0)
		return -1;
	for (int32_t k = 0; k < p->nspecs; k++)
		if (strlen(p->specs[k]) == n && memcmp(p->specs[k], s, n) == 0)
			return k;
	if (p->nspecs == b->spec_cap) {
		void *ns = grow(p->specs, &b->spec_cap, sizeof *p->specs);
		if (!ns)
			return -2;
		p->specs = ns;
	}
	memcpy(p->specs[p->nspecs], s, n);
	p->specs[p->nspecs][n] = '\0';
	return p->nspecs++;
}

/* The file-wide counts of a valid row. */
static void count_row(struct openb_pods *p, const struct prow *r)
{
	p->pods++;
	p->by_gpus[r->ngpu]++;
	p->sharing += r->milli > 0 && r->milli < OPENB_MILLI;
	p->nphase[r->phase]++;
	p->nqos[r->qos]++;
	p->gpu_milli_sum += r->ngpu * r->milli;
}

/* The job of a usable row; 0 when the row is unusable (Pending, or asks for
 * nothing). trace_id is left to the caller. */
static int pod_to_job(const struct prow *r, struct job *j, struct job_truth *t)
{
	if (r->phase == OPENB_PENDING || (r->cpu_milli == 0 && r->ngpu == 0))
		return 0;
	simtime create_us = simtime_from_s(r->t[P_CREATE]);
	job_init(j, 0, create_us);
	j->cls = r->qos == OPENB_LS ? JOB_INFERENCE : r->ngpu > 0 ? JOB_TRAINING : JOB_BATCH;
	j->tenant = -1;
	j->group = -1;
	j->queue = r->qos;
	j->walltime_us = SIMTIME_INF;
	j->req.nodes = 1;
	j->req.cores = (int32_t)((r->cpu_milli + OPENB_MILLI - 1) / OPENB_MILLI);
	j->req.gpus = (int32_t)r->ngpu;
	j->req.mem_mib = r->mem_mib;
	/* A pod sharing its one GPU asks for that share of it, time-sliced. */
	if (r->ngpu == 1 && r->milli > 0 && r->milli < OPENB_MILLI)
		j->req.gpu_milli = (int32_t)r->milli;
	memset(t, 0, sizeof *t);
	/* Without a deletion time: fixed up once the end is known. */
	t->run_us = r->t[P_DELETE] >= 0 ? simtime_from_s(r->t[P_DELETE]) - create_us : 0;
	t->fails = r->phase == OPENB_FAILED;
	return 1;
}

/* After the read: runs of Running pods without a deletion time, the sort by
 * submit time, and the pods permuted to job order. trace_id holds the index
 * into p->pod until then, and the pod's data row afterwards. */
static int pods_finish(struct workload *w, struct openb_pods *p, const int64_t *rowidx)
{
	for (int32_t i = 0; i < w->n; i++) {
		struct openb_pod *d = &p->pod[i];
		if (d->flags & OPENB_NO_DELETION)
			w->truth[i].run_us = p->end_us - w->jobs[i].submit_us;
		if (d->phase == OPENB_RUNNING &&
		    w->jobs[i].submit_us + w->truth[i].run_us == p->end_us)
			d->flags |= OPENB_AT_END;
	}
	workload_sort(w);
	struct openb_pod *np = malloc((size_t)(w->n ? w->n : 1) * sizeof *np);
	if (!np)
		return -1;
	for (int32_t i = 0; i < w->n; i++) {
		int64_t k = w->jobs[i].trace_id;
		np[i] = p->pod[k];
		w->jobs[i].trace_id = rowidx[k];
		p->at_end += (np[i].flags & OPENB_AT_END) != 0;
	}
	free(p->pod);
	p->pod = np;
	p->n = w->n;
	return 0;
}

/* The catalog bits of a gpu_spec's names (see openb_opts.gpu_model); -1
 * when none of them maps. */
static int spec_models(const struct openb_opts *o, const char *s, size_t n, uint64_t *mask)
{
	*mask = 0;
	for (size_t a = 0; a < n;) {
		size_t b = a;
		while (b < n && s[b] != '|')
			b++;
		if (b > a && b - a < 64) {
			char name[64];
			memcpy(name, s + a, b - a);
			name[b - a] = '\0';
			int k = o->gpu_model(o->gpu_model_ctx, name);
			if (k >= 0 && k < 64)
				*mask |= UINT64_C(1) << k;
		}
		a = b + 1;
	}
	return *mask ? 0 : -1;
}

int trace_openb_pods_read(const char *path, const struct openb_opts *o, struct workload *w,
                          struct openb_pods *extra, char *err, size_t errlen)
{
	bool lenient = o && o->lenient;
	struct openb_pods local;
	struct openb_pods *p = extra ? extra : &local;
	struct podbuf b = { 0 };
	workload_init(w);
	openb_pods_init(p);
	struct linereader *lr = linereader_open(path, err, errlen);
	if (!lr)
		return -1;
	const char *line;
	char msg[512];
	struct prow r;
	struct job j;
	struct job_truth t;
	int64_t data_rows = 0;
	double end_s = 0;
	if (!(line = linereader_next(lr, NULL))) {
		if (!linereader_error(lr))
			snprintf(err, errlen, "%s: empty file, expected the openb pod list header %s",
			         path, OPENB_POD_HEADER);
		goto fail;
	}
	if (check_header(line, OPENB_POD_HEADER, pod_cols, P_NCOLS, "openb pod list", msg,
	                 sizeof msg) != 0) {
		snprintf(err, errlen, "%s:1: %s", path, msg);
		goto fail;
	}
	while ((line = linereader_next(lr, NULL))) {
		if (!*line)
			continue;
		int64_t rowno = data_rows++;
		if (parse_pod(line, &r, msg, sizeof msg) != 0) {
			if (!lenient) {
				snprintf(err, errlen, "%s:%lld: %s", path,
				         (long long)linereader_lineno(lr), msg);
				goto fail;
			}
			w->skipped_malformed++;
			continue;
		}
		count_row(p, &r);
		for (int c = P_CREATE; c <= P_SCHED; c++)
			end_s = r.t[c] > end_s ? r.t[c] : end_s;
		if (!pod_to_job(&r, &j, &t)) {
			w->skipped_unusable++;
			continue;
		}
		if (o && o->gpu_model && r.spec_len > 0 && j.req.gpus > 0 &&
		    spec_models(o, r.spec, r.spec_len, &j.req.gpu_models) != 0) {
			snprintf(err, errlen, "%s:%lld: pod %lld asks for GPU model %.*s, which the "
			         "cluster does not have", path, (long long)linereader_lineno(lr),
			         (long long)rowno, (int)r.spec_len, r.spec);
			goto fail;
		}
		int32_t spec = spec_intern(p, &b, r.spec, r.spec_len);
		if (spec == -2)
			goto nomem;
		if (w->n == b.pod_cap) {
			void *np = grow(p->pod, &b.pod_cap, sizeof *p->pod);
			if (!np)
				goto nomem;
			p->pod = np;
		}
		if (w->n == b.row_cap) {
			void *nr = grow(b.rowidx, &b.row_cap, sizeof *b.rowidx);
			if (!nr)
				goto nomem;
			b.rowidx = nr;
		}
		p->pod[w->n] = (struct openb_pod){
			.sched_us = simtime_from_s(r.t[P_SCHED]),
			.gpu_milli = (int32_t)r.milli,
			.spec = spec,
			.qos = (uint8_t)r.qos,
			.phase = (uint8_t)r.phase,
			.flags = r.t[P_DELETE] < 0 ? OPENB_NO_DELETION : 0,
		};
		b.rowidx[w->n] = rowno;
		j.trace_id = w->n; /* the pod's index until pods_finish() */
		if (workload_add(w, &j, &t) != 0)
			goto nomem;
	}
	if (linereader_error(lr))
		goto fail; /* err set by the reader */
	w->lines = linereader_lineno(lr);
	p->end_us = simtime_from_s(end_s);
	if (pods_finish(w, p, b.rowidx) != 0)
		goto nomem;
	linereader_close(lr);
	free(b.rowidx);
	if (!extra)
		openb_pods_free(p);
	return 0;

nomem:
	snprintf(err, errlen, "%s:%lld: out of memory after %d pods", path,
	         (long long)linereader_lineno(lr), w->n);
fail:
	linereader_close(lr);
	free(b.rowidx);
	openb_pods_free(p);
	workload_free(w);
	return -1;
}

/* ---- node lists -------------------------------------------------------------- */

void openb_nodes_init(struct openb_nodes *l)
{
	memset(l, 0, sizeof *l);
}

void openb_nodes_free(struct openb_nodes *l)
{
	free(l->node);
	openb_nodes_init(l);
}

static int parse_node(const char *line, struct openb_node *nd, char *msg, size_t msglen)
{
	const char *tok[N_NCOLS];
	size_t len[N_NCOLS];
	int n = csv_split(line, tok, len, N_NCOLS);
	if (n != N_NCOLS) {
		if (n > N_NCOLS)
			snprintf(msg, msglen, "expected %d comma-separated fields, got %d", N_NCOLS, n);
		else
			snprintf(msg, msglen, "expected %d comma-separated fields, got %d (field %d "
			         "(%s) is missing)", N_NCOLS, n, n + 1, node_cols[n]);
		return -1;
	}
	int64_t gpus = 0;
	for (int c = 0; c < N_NCOLS; c++) {
		const char *s = tok[c], *want = "";
		size_t m = len[c];
		int bad = 0;
		switch (c) {
		case N_SN:
			want = "a name of 1 to 63 letters, digits, '_', '-', '.' or ':'";
			if (!(bad = !csv_name_ok(s, m, OPENB_NAME_MAX, true))) {
				memcpy(nd->name, s, m);
				nd->name[m] = '\0';
			}
			break;
		case N_CPU:
			want = "a non-negative integer (milli-cores, at most 10^12)";
			bad = scan_uint(s, m, OPENB_MAX_REQ, &nd->cpu_milli);
			break;
		case N_MEM:
			want = "a non-negative integer (MiB, at most 10^12)";
			bad = scan_uint(s, m, OPENB_MAX_REQ, &nd->memory_mib);
			break;
		case N_GPU:
			want = "an integer in 0..64";
			bad = scan_uint(s, m, OPENB_MAX_GPUS, &gpus);
			nd->gpus = (int32_t)gpus;
			break;
		case N_MODEL:
			if (gpus == 0) {
				want = "empty (a node without GPUs has no model)";
				bad = m != 0;
			} else {
				want = "a GPU model name (1 to 31 letters, digits, '_', '-' or '.')";
				bad = !csv_name_ok(s, m, OPENB_MODEL_MAX, false);
			}
			if (!bad) {
				memcpy(nd->model, s, m);
				nd->model[m] = '\0';
			}
			break;
		}
		if (bad) {
			snprintf(msg, msglen, "field %d (%s): expected %s, got '%.*s%s'", c + 1,
			         node_cols[c], want, SHOWN(s, m));
			return -1;
		}
	}
	return 0;
}

int trace_openb_nodes_read(const char *path, struct openb_nodes *out, char *err, size_t errlen)
{
	int32_t cap = 0;
	char msg[512];
	const char *line;
	openb_nodes_init(out);
	struct linereader *lr = linereader_open(path, err, errlen);
	if (!lr)
		return -1;
	if (!(line = linereader_next(lr, NULL))) {
		if (!linereader_error(lr))
			snprintf(err, errlen, "%s: empty file, expected the openb node list header %s",
			         path, OPENB_NODE_HEADER);
		goto fail;
	}
	if (check_header(line, OPENB_NODE_HEADER, node_cols, N_NCOLS, "openb node list", msg,
	                 sizeof msg) != 0) {
		snprintf(err, errlen, "%s:1: %s", path, msg);
		goto fail;
	}
	while ((line = linereader_next(lr, NULL))) {
		if (!*line)
			continue;
		if (out->n == cap) {
			void *nn = grow(out->node, &cap, sizeof *out->node);
			if (!nn) {
				snprintf(err, errlen, "%s:%lld: out of memory after %d nodes", path,
				         (long long)linereader_lineno(lr), out->n);
				goto fail;
			}
			out->node = nn;
		}
		struct openb_node *nd = &out->node[out->n];
		memset(nd, 0, sizeof *nd);
		if (parse_node(line, nd, msg, sizeof msg) != 0) {
			snprintf(err, errlen, "%s:%lld: %s", path, (long long)linereader_lineno(lr), msg);
			goto fail;
		}
		out->n++;
	}
	if (linereader_error(lr))
		goto fail; /* err set by the reader */
	out->lines = linereader_lineno(lr);
	linereader_close(lr);
	return 0;

fail:
	linereader_close(lr);
	openb_nodes_free(out);
	return -1;
}

/* ---- the per-model summary ------------------------------------------------- */

static int cmp_shape(const void *a, const void *b)
{
	const struct openb_node *x = *(const struct openb_node *const *)a;
	const struct openb_node *y = *(const struct openb_node *const *)b;
	int c = strcmp(x->model, y->model);
	if (c)
		return c;
	if (x->gpus != y->gpus)
		return x->gpus < y->gpus ? -1 : 1;
	if (x->cpu_milli != y->cpu_milli)
		return x->cpu_milli < y->cpu_milli ? -1 : 1;
	return (x->memory_mib > y->memory_mib) - (x->memory_mib < y->memory_mib);
}

static int cmp_model(const void *a, const void *b)
{
	const struct openb_model_sum *x = a, *y = b;
	if (x->nodes != y->nodes)
		return x->nodes > y->nodes ? -1 : 1;
	return strcmp(x->model, y->model);
}

void openb_node_summary_free(struct openb_node_summary *s)
{
	free(s->m);
	memset(s, 0, sizeof *s);
}

int openb_node_summary(const struct openb_nodes *l, struct openb_node_summary *s,
                       char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	size_t n = (size_t)(l->n ? l->n : 1);
	const struct openb_node **idx = malloc(n * sizeof *idx);
	s->m = malloc(n * sizeof *s->m);
	if (!idx || !s->m) {
		free(idx);
		openb_node_summary_free(s);
		snprintf(err, errlen, "node summary: out of memory");
		return -1;
	}
	for (int32_t i = 0; i < l->n; i++)
		idx[i] = &l->node[i];
	/* Sorted by model, then shape: each model's nodes are a run, and each
	 * shape a run inside it. */
	qsort(idx, (size_t)l->n, sizeof *idx, cmp_shape);
	struct openb_model_sum *all = &s->all;
	for (int32_t i = 0; i < l->n; i++) {
		const struct openb_node *nd = idx[i];
		bool new_model = i == 0 || strcmp(nd->model, idx[i - 1]->model) != 0;
		if (new_model) {
			struct openb_model_sum *m = &s->m[s->nmodels++];
			memset(m, 0, sizeof *m);
			snprintf(m->model, sizeof m->model, "%s", nd->model);
		}
		struct openb_model_sum *m = &s->m[s->nmodels - 1];
		bool new_shape = new_model || cmp_shape(&idx[i], &idx[i - 1]) != 0;
		m->shapes += new_shape;
		all->shapes += new_shape;
		m->nodes++;
		m->gpus += nd->gpus;
		m->cpu_milli += nd->cpu_milli;
		m->memory_mib += nd->memory_mib;
		all->nodes++;
		all->gpus += nd->gpus;
		all->cpu_milli += nd->cpu_milli;
		all->memory_mib += nd->memory_mib;
		s->cpu_only += nd->gpus == 0;
	}
	qsort(s->m, (size_t)s->nmodels, sizeof *s->m, cmp_model);
	free(idx);
	return 0;
}
