/* nodelist — node inventories (openb, PAI, spot) read into struct inv_node,
 * and grouped into shapes. See nodelist.h and docs/traces.md.
 *
 * The PAI and spot files are CSV without quoting; each row is split at
 * commas and checked field by field, as in the openb reader. The openb
 * lists go through trace_openb_nodes_read and are converted. */
#include "traces/csv.h"
#include "traces/nodelist.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/k8s.h"
#include "traces/openb.h"
#include "traces/trace.h"

const char INV_PAI_HEADER[] = "machine,gpu_type,cap_cpu,cap_mem,cap_gpu";
const char INV_SPOT_HEADER[] = "gpu_model,gpu_capacity_num,cpu_num,node_name";

static const char *const format_names[INV_NFORMATS] = { "openb", "pai", "spot", "k8s" };

/* Columns, 0-based here and 1-based in messages. */
enum { PAI_MACHINE, PAI_TYPE, PAI_CPU, PAI_MEM, PAI_GPU, PAI_NCOLS };
static const char *const pai_cols[PAI_NCOLS] = {
	"machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu",
};
enum { SPOT_MODEL, SPOT_GPU, SPOT_CPU, SPOT_NAME, SPOT_NCOLS };
static const char *const spot_cols[SPOT_NCOLS] = {
	"gpu_model", "gpu_capacity_num", "cpu_num", "node_name",
};
#define MAX_COLS 5

#define PAI_CPU_TYPE "CPU"      /* gpu_type of a CPU-only machine */
#define MAX_MEM_GIB 1000000000LL

const char *inv_format_name(enum inv_format f)
{
	return (unsigned)f < INV_NFORMATS ? format_names[f] : "?";
}

int inv_format_parse(const char *s, enum inv_format *out)
{
	for (int f = 0; f < INV_NFORMATS; f++)
		if (strcmp(s, format_names[f]) == 0) {
			*out = (enum inv_format)f;
			return 0;
		}
	return -1;
}

void inv_nodes_init(struct inv_nodes *l)
{
	memset(l, 0, sizeof *l);
}

void inv_nodes_free(struct inv_nodes *l)
{
	for (int32_t i = 0; l->node && i < l->n; i++)
		free(l->node[i].taints);
	free(l->node);
	inv_nodes_init(l);
}

void inv_shapes_free(struct inv_shapes *s)
{
	free(s->s);
	free(s->of);
	memset(s, 0, sizeof *s);
}

/* ---- fields ------------------------------------------------------------------ */

/* A plain integer in [lo, hi]. */
static int scan_int(const char *s, size_t n, int64_t lo, int64_t hi, int64_t *out)
{
	int64_t v = 0;
	if (n == 0 || n > 18)   /* 18 digits cannot overflow */
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static void copy_field(char *dst, const char *s, size_t n)
{
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* The value for a message: at most 40 characters, "..." when cut. */
#define SHOWN(s, n) (int)((n) > 40 ? 40 : (n)), (s), (n) > 40 ? "..." : ""

#define WANT_NAME "a name of 1 to 63 letters, digits, '_', '-', '.' or ':'"
#define WANT_MODEL "a GPU model name (1 to 31 letters, digits, '_', '-' or '.')"
#define WANT_CORES "an integer in 1..1048576 (cores)"
#define WANT_GPUS "an integer in 0..64"

/* When line is the header of another format: says which, in msg. */
static bool other_header(const char *line, enum inv_format fmt, char *msg, size_t msglen)
{
	line = csv_skip_bom(line);
	enum inv_format is = INV_NFORMATS;
	if (strcmp(line, OPENB_NODE_HEADER) == 0)
		is = INV_OPENB;
	else if (strcmp(line, INV_PAI_HEADER) == 0)
		is = INV_PAI;
	else if (strcmp(line, INV_SPOT_HEADER) == 0)
		is = INV_SPOT;
	if (is == INV_NFORMATS || is == fmt)
		return false;
	snprintf(msg, msglen, "this is the header of a%s %s node list, not of a %s one "
	         "(give format \"%s\")", is == INV_OPENB ? "n" : "", inv_format_name(is),
	         inv_format_name(fmt), inv_format_name(is));
	return true;
}

/* The header must be `want` exactly; msg names the first column that differs. */
static int check_header(const char *line, const char *want, const char *const *cols, int ncols,
                        enum inv_format fmt, char *msg, size_t msglen)
{
	if (other_header(line, fmt, msg, msglen))
		return -1;
	line = csv_skip_bom(line);
	if (strcmp(line, want) == 0)
		return 0;
	const char *s = line;
	for (int c = 0; c < ncols; c++) {
		size_t n = strcspn(s, ",");
		if (n != strlen(cols[c]) || strncmp(s, cols[c], n) != 0) {
			snprintf(msg, msglen, "not the %s node list header: column %d is '%.*s%s', "
			         "expected '%s' (the header is %s)", inv_format_name(fmt), c + 1,
			         SHOWN(s, n), cols[c], want);
			return -1;
		}
		s += n;
		if (*s)
			s++;
	}
	snprintf(msg, msglen, "not the %s node list header: more than %d columns (the header is %s)",
	         inv_format_name(fmt), ncols, want);
	return -1;
}

static int field_count(int n, int ncols, const char *const *cols, char *msg, size_t msglen)
{
	if (n == ncols)
		return 0;
	if (n > ncols)
		snprintf(msg, msglen, "expected %d comma-separated fields, got %d", ncols, n);
	else
		snprintf(msg, msglen, "expected %d comma-separated fields, got %d (field %d (%s) is "
		         "missing)", ncols, n, n + 1, cols[n]);
	return -1;
}

static int bad_field(int c, const char *const *cols, const char *want, const char *s, size_t n,
                     char *msg, size_t msglen)
{
	snprintf(msg, msglen, "field %d (%s): expected %s, got '%.*s%s'", c + 1, cols[c], want,
	         SHOWN(s, n));
	return -1;
}

/* ---- one row ------------------------------------------------------------------- */

static int parse_pai(const char *line, struct inv_node *nd, char *msg, size_t msglen)
{
	const char *tok[MAX_COLS];
	size_t len[MAX_COLS];
	int n = csv_split(line, tok, len, PAI_NCOLS);
	if (field_count(n, PAI_NCOLS, pai_cols, msg, msglen))
		return -1;
	int64_t v;
	bool cpu_only = false;
	for (int c = 0; c < PAI_NCOLS; c++) {
		const char *s = tok[c];
		size_t m = len[c];
		switch (c) {
		case PAI_MACHINE:
			if (!csv_name_ok(s, m, INV_NAME_MAX, true))
				return bad_field(c, pai_cols, WANT_NAME, s, m, msg, msglen);
			copy_field(nd->name, s, m);
			break;
		case PAI_TYPE:
			if (!csv_name_ok(s, m, INV_MODEL_MAX, false))
				return bad_field(c, pai_cols, WANT_MODEL " or CPU", s, m, msg, msglen);
			cpu_only = m == strlen(PAI_CPU_TYPE) && memcmp(s, PAI_CPU_TYPE, m) == 0;
			if (!cpu_only)
				copy_field(nd->model, s, m);
			break;
		case PAI_CPU:
			if (scan_int(s, m, 1, INV_MAX_CORES, &v))
				return bad_field(c, pai_cols, WANT_CORES, s, m, msg, msglen);
			nd->cpu_cores = (int32_t)v;
			break;
		case PAI_MEM:
			if (scan_int(s, m, 0, MAX_MEM_GIB, &v))
				return bad_field(c, pai_cols, "an integer in 0..10^9 (GB)", s, m, msg, msglen);
			nd->mem_mib = v * 1024;
			break;
		case PAI_GPU:
			if (cpu_only) {
				if (scan_int(s, m, 0, 0, &v))
					return bad_field(c, pai_cols, "0 (gpu_type is CPU)", s, m, msg, msglen);
			} else if (scan_int(s, m, 1, INV_MAX_GPUS, &v)) {
				return bad_field(c, pai_cols, "an integer in 1..64 (gpu_type is a GPU; "
				                 "CPU-only machines have gpu_type CPU)", s, m, msg, msglen);
			}
			nd->gpus = (int32_t)v;
			break;
		}
	}
	return 0;
}

static int parse_spot(const char *line, struct inv_node *nd, char *msg, size_t msglen)
{
	const char *tok[MAX_COLS];
	size_t len[MAX_COLS];
	int n = csv_split(line, tok, len, SPOT_NCOLS);
	if (field_count(n, SPOT_NCOLS, spot_cols, msg, msglen))
		return -1;
	int64_t v;
	for (int c = 0; c < SPOT_NCOLS; c++) {
		const char *s = tok[c];
		size_t m = len[c];
		switch (c) {
		case SPOT_MODEL:
			if (m > 0 && !csv_name_ok(s, m, INV_MODEL_MAX, false))
				return bad_field(c, spot_cols, WANT_MODEL " or empty", s, m, msg, msglen);
			copy_field(nd->model, s, m);
			break;
		case SPOT_GPU:
			if (scan_int(s, m, 0, INV_MAX_GPUS, &v))
				return bad_field(c, spot_cols, WANT_GPUS, s, m, msg, msglen);
			if (v == 0 && nd->model[0])
				return bad_field(c, spot_cols, "1..64 (the node has a GPU model)", s, m,
				                 msg, msglen);
			if (v > 0 && !nd->model[0])
				return bad_field(c, spot_cols, "0 (the node has no GPU model)", s, m, msg,
				                 msglen);
			nd->gpus = (int32_t)v;
			break;
		case SPOT_CPU:
			if (scan_int(s, m, 1, INV_MAX_CORES, &v))
				return bad_field(c, spot_cols, "an integer in 1..1048576 (vCPUs)", s, m,
				                 msg, msglen);
			nd->cpu_cores = (int32_t)v;
			break;
		case SPOT_NAME:
			if (!csv_name_ok(s, m, INV_NAME_MAX, true))
				return bad_field(c, spot_cols, WANT_NAME, s, m, msg, msglen);
			copy_field(nd->name, s, m);
			break;
		}
	}
	nd->mem_mib = INV_MEM_UNKNOWN;
	return 0;
}

/* ---- files --------------------------------------------------------------------- */

static int push(struct inv_nodes *out, int32_t *cap, struct inv_node **slot)
{
	if (out->n == *cap) {
		if (*cap >= INV_MAX_NODES)
			return -1;
		int32_t ncap = *cap ? *cap * 2 : 1024;
		void *nn = realloc(out->node, (size_t)ncap * sizeof *out->node);
		if (!nn)
			return -1;
		out->node = nn;
		*cap = ncap;
	}
	*slot = &out->node[out->n];
	memset(*slot, 0, sizeof **slot);
	return 0;
}

/* The PAI .header file beside path, when there is one: its first line must
 * be INV_PAI_HEADER. */
static int check_pai_sidecar(const char *path, char *err, size_t errlen)
{
	size_t n = strlen(path), stem;
	if (n > 7 && strcmp(path + n - 7, ".csv.gz") == 0)
		stem = n - 7;
	else if (n > 4 && strcmp(path + n - 4, ".csv") == 0)
		stem = n - 4;
	else
		return 0;
	char *hp = malloc(stem + sizeof ".header");
	if (!hp) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	memcpy(hp, path, stem);
	memcpy(hp + stem, ".header", sizeof ".header");
	FILE *f = fopen(hp, "r");
	int rc = 0;
	if (f) {
		char line[512] = "";
		if (!fgets(line, sizeof line, f))
			line[0] = '\0';
		line[strcspn(line, "\r\n")] = '\0';
		const char *l = csv_skip_bom(line);
		if (strcmp(l, INV_PAI_HEADER) != 0) {
			snprintf(err, errlen, "%s:1: expected the PAI machine spec header %s, got '%.*s%s' "
			         "(is %s a PAI machine spec?)", hp, INV_PAI_HEADER, SHOWN(l, strlen(l)),
			         path);
			rc = -1;
		}
		fclose(f);
	}
	free(hp);
	return rc;
}

static int cmp_name(const void *a, const void *b)
{
	const struct inv_node *x = *(const struct inv_node *const *)a;
	const struct inv_node *y = *(const struct inv_node *const *)b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x < y ? -1 : x > y);
}

/* Every name once; the message names the second use (in file order). */
static int check_unique(const char *path, const struct inv_nodes *l, char *err, size_t errlen)
{
	if (l->n < 2)
		return 0;
	const struct inv_node **idx = malloc((size_t)l->n * sizeof *idx);
	if (!idx) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	for (int32_t i = 0; i < l->n; i++)
		idx[i] = &l->node[i];
	qsort(idx, (size_t)l->n, sizeof *idx, cmp_name);
	/* Each name is a run in file order: its second node is the second use. */
	const struct inv_node *dup = NULL, *orig = NULL;
	for (int32_t i = 1; i < l->n; i++)
		if (strcmp(idx[i]->name, idx[i - 1]->name) == 0 &&
		    (i == 1 || strcmp(idx[i - 1]->name, idx[i - 2]->name) != 0) &&
		    (!dup || idx[i] < dup)) {
			dup = idx[i];
			orig = idx[i - 1];
		}
	free(idx);
	if (!dup)
		return 0;
	if (dup->line > 0)
		snprintf(err, errlen, "%s:%lld: node name '%s' is already used at line %lld "
		         "(node names must be unique)", path, (long long)dup->line, dup->name,
		         (long long)orig->line);
	else
		snprintf(err, errlen, "%s: node name '%s' is used by nodes %d and %d (node names must "
		         "be unique)", path, dup->name, (int)(orig - l->node) + 1,
		         (int)(dup - l->node) + 1);
	return -1;
}

static int read_openb(const char *path, struct inv_nodes *out, char *err, size_t errlen)
{
	struct openb_nodes ob;
	if (trace_openb_nodes_read(path, &ob, err, errlen) != 0)
		return -1;
	int32_t cap = 0;
	for (int32_t i = 0; i < ob.n; i++) {
		const struct openb_node *o = &ob.node[i];
		struct inv_node *nd;
		if (push(out, &cap, &nd)) {
			snprintf(err, errlen, "%s: out of memory (or more than %d nodes)", path,
			         INV_MAX_NODES);
			goto fail;
		}
		if (o->cpu_milli % OPENB_MILLI != 0 || o->cpu_milli < OPENB_MILLI ||
		    o->cpu_milli > (int64_t)INV_MAX_CORES * OPENB_MILLI) {
			snprintf(err, errlen, "%s: node '%s': cpu_milli %lld is not a whole number of "
			         "cores in 1..%d (a node has whole cores: 1000 milli-cores each)", path,
			         o->name, (long long)o->cpu_milli, INV_MAX_CORES);
			goto fail;
		}
		snprintf(nd->name, sizeof nd->name, "%s", o->name);
		snprintf(nd->model, sizeof nd->model, "%s", o->model);
		nd->gpus = o->gpus;
		nd->cpu_cores = (int32_t)(o->cpu_milli / OPENB_MILLI);
		nd->mem_mib = o->memory_mib;
		nd->line = 0;
		out->n++;
	}
	if (out->n == 0) {
		snprintf(err, errlen, "%s: no nodes", path);
		goto fail;
	}
	out->lines = ob.lines;
	openb_nodes_free(&ob);
	return 0;
fail:
	openb_nodes_free(&ob);
	return -1;
}

int inv_nodes_read(const char *path, enum inv_format fmt, struct inv_nodes *out,
                   char *err, size_t errlen)
{
	inv_nodes_init(out);
	out->fmt = fmt;
	if (fmt == INV_OPENB || fmt == INV_K8S) {
		if ((fmt == INV_OPENB ? read_openb(path, out, err, errlen)
		                      : k8s_nodes_read(path, out, err, errlen)) ||
		    check_unique(path, out, err, errlen))
			goto fail_nolr;
		out->fmt = fmt;
		return 0;
	}
	if (fmt != INV_PAI && fmt != INV_SPOT) {
		snprintf(err, errlen, "%s: unknown inventory format %d", path, (int)fmt);
		return -1;
	}
	if (fmt == INV_PAI && check_pai_sidecar(path, err, errlen))
		return -1;
	struct linereader *lr = linereader_open(path, err, errlen);
	if (!lr)
		return -1;
	const char *line;
	char msg[512];
	int32_t cap = 0;
	bool first = true;
	while ((line = linereader_next(lr, NULL))) {
		int64_t lineno = linereader_lineno(lr);
		if (first) {
			first = false;
			if (fmt == INV_SPOT) {
				if (check_header(line, INV_SPOT_HEADER, spot_cols, SPOT_NCOLS, fmt, msg,
				                 sizeof msg) != 0)
					goto bad;
				continue;
			}
			if (other_header(line, fmt, msg, sizeof msg))
				goto bad;
			if (strcmp(csv_skip_bom(line), INV_PAI_HEADER) == 0)
				continue;
			line = csv_skip_bom(line);
		}
		if (!*line)
			continue;
		struct inv_node *nd;
		if (push(out, &cap, &nd)) {
			snprintf(err, errlen, "%s:%lld: out of memory (or more than %d nodes)", path,
			         (long long)lineno, INV_MAX_NODES);
			goto fail;
		}
		if ((fmt == INV_PAI ? parse_pai : parse_spot)(line, nd, msg, sizeof msg) != 0)
			goto bad;
		nd->line = lineno;
		out->n++;
	}
	if (linereader_error(lr))
		goto fail; /* err set by the reader */
	if (first) {
		if (fmt == INV_SPOT)
			snprintf(err, errlen, "%s: empty file, expected the spot node list header %s",
			         path, INV_SPOT_HEADER);
		else
			snprintf(err, errlen, "%s: empty file, expected PAI machine rows (%s)", path,
			         INV_PAI_HEADER);
		goto fail;
	}
	if (out->n == 0) {
		snprintf(err, errlen, "%s: no nodes", path);
		goto fail;
	}
	out->lines = linereader_lineno(lr);
	linereader_close(lr);
	if (check_unique(path, out, err, errlen))
		goto fail_nolr;
	return 0;

bad:
	snprintf(err, errlen, "%s:%lld: %s", path, (long long)linereader_lineno(lr), msg);
fail:
	linereader_close(lr);
fail_nolr:
	inv_nodes_free(out);
	return -1;
}

/* ---- shapes ------------------------------------------------------------------ */

static int cmp_node_shape(const struct inv_node *x, const struct inv_node *y)
{
	int c = strcmp(x->model, y->model);
	if (c)
		return c;
	if (x->gpus != y->gpus)
		return x->gpus < y->gpus ? -1 : 1;
	if (x->cpu_cores != y->cpu_cores)
		return x->cpu_cores < y->cpu_cores ? -1 : 1;
	if (x->mig_cards != y->mig_cards)
		return x->mig_cards < y->mig_cards ? -1 : 1;
	int t = strcmp(x->taints ? x->taints : "", y->taints ? y->taints : "");
	if (t)
		return t;
	return (x->mem_mib > y->mem_mib) - (x->mem_mib < y->mem_mib);
}

/* By shape, then file order: each shape is a run, its first node first. */
static int cmp_shape_idx(const void *a, const void *b)
{
	const struct inv_node *x = *(const struct inv_node *const *)a;
	const struct inv_node *y = *(const struct inv_node *const *)b;
	int c = cmp_node_shape(x, y);
	return c ? c : (x < y ? -1 : x > y);
}

static int cmp_first(const void *a, const void *b)
{
	const struct inv_shape *x = a, *y = b;
	return (x->first > y->first) - (x->first < y->first);
}

int inv_group(const struct inv_nodes *l, struct inv_shapes *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	size_t n = (size_t)(l->n > 0 ? l->n : 1);
	const struct inv_node **idx = malloc(n * sizeof *idx);
	int32_t *rank = malloc(n * sizeof *rank);
	out->s = malloc(n * sizeof *out->s);
	out->of = malloc(n * sizeof *out->of);
	if (!idx || !rank || !out->s || !out->of) {
		snprintf(err, errlen, "grouping nodes: out of memory");
		goto fail;
	}
	for (int32_t i = 0; i < l->n; i++)
		idx[i] = &l->node[i];
	qsort(idx, (size_t)l->n, sizeof *idx, cmp_shape_idx);
	/* Shapes in sorted order first; of[] holds that order for now. */
	for (int32_t i = 0; i < l->n; i++) {
		const struct inv_node *nd = idx[i];
		int32_t at = (int32_t)(nd - l->node);
		if (i == 0 || cmp_node_shape(nd, idx[i - 1]) != 0) {
			struct inv_shape *s = &out->s[out->n++];
			memset(s, 0, sizeof *s);
			snprintf(s->model, sizeof s->model, "%s", nd->model);
			s->gpus = nd->gpus;
			s->cpu_cores = nd->cpu_cores;
			s->mem_mib = nd->mem_mib;
			s->mig_cards = nd->mig_cards;
			s->taints = nd->taints;
			s->first = at;
		}
		out->s[out->n - 1].nodes++;
		out->of[at] = out->n - 1;
	}
	/* Then in order of first appearance, and of[] renumbered to match. */
	qsort(out->s, (size_t)out->n, sizeof *out->s, cmp_first);
	for (int32_t k = 0; k < out->n; k++)
		rank[out->of[out->s[k].first]] = k;
	for (int32_t i = 0; i < l->n; i++)
		out->of[i] = rank[out->of[i]];
	free(idx);
	free(rank);
	return 0;
fail:
	free(idx);
	free(rank);
	inv_shapes_free(out);
	return -1;
}
