/* twinbuild — `hetlab twin build`: a Slurm site's files into a scenario.
 * See twinbuild.h and docs/slurm-twin.md. */
#include "config/twinbuild.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config/catalog.h"
#include "config/sacctmgr.h"
#include "config/scenario.h"
#include "config/slurmcfg.h"
#include "traces/sacct.h"
#include "traces/trcutil.h"

#define TWIN_RACK_NODES 32          /* nodes a rack of the twin holds */

/* A node shape: one node type of the twin. */
struct shape {
	int32_t cpus, sockets, gpus;
	int64_t mem_mib;
	const char *features, *gpu_type;
	char model[HL_NAME_MAX];        /* the catalog GPU model ("" none) */
	double gpu_w;                   /* the model's TDP, for the rack's power */
	char name[HL_NAME_MAX];
};

struct build {
	const struct twin_opts *o;
	struct sconf sc;
	struct catalog cat;
	struct workload w;
	struct twin_sum *sum;
	struct slurm_msgs *warn;
	json_t *root, *cat_gpus, *qos, *accounts, *users;
	struct shape *shape;
	int32_t nshapes;
	int32_t *shape_of;              /* per sconf node */
	char *err;
	size_t errlen;
};

static int fail(struct build *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct build *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->err, b->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int set(json_t *o, const char *key, json_t *v)
{
	return v && json_object_set_new(o, key, v) == 0 ? 0 : -1;
}

static int oom(struct build *b)
{
	return fail(b, "%s: out of memory", b->o->out);
}

/* ---- GPU types to catalog models ------------------------------------------ */

/* The unique catalog model a GPU type names: the same name, or a name that
 * starts with it and a '-' (a100 -> A100-SXM-80GB), ignoring case. */
static int auto_model(const struct catalog *cat, const char *type, char *cands, size_t len)
{
	int found = -1, n = 0;
	size_t tl = strlen(type), off = 0;
	cands[0] = '\0';
	for (int i = 0; i < cat->ngpus; i++) {
		const char *m = cat->gpus[i].name;
		if (!strcasecmp(m, type))
			return i;
		if (strncasecmp(m, type, tl) || m[tl] != '-')
			continue;
		found = i;
		n++;
		if (off < len)
			off += (size_t)snprintf(cands + off, len - off, "%s%s", n > 1 ? ", " : "", m);
	}
	return n == 1 ? found : n > 1 ? -2 : -1;
}

/* A catalog entry for a GPU type no model matches: placeholder figures
 * (scheduling never reads them; docs/catalog.md has the fields). */
static int placeholder(struct build *b, const char *key, char *model)
{
	snprintf(model, HL_NAME_MAX, "gres-%.40s", key);
	for (char *s = model; *s; s++)
		if (*s == ' ' || *s == ',')
			*s = '_';
	if (catalog_find_gpu(&b->cat, model) >= 0)
		return 0;
	char vendor[96], source[160];
	snprintf(vendor, sizeof vendor, "Slurm GRES type %.40s (placeholder)", key);
	snprintf(source, sizeof source, "placeholder of hetlab twin build: the GRES type %.40s matched no catalog "
	         "model; figures of an A100-SXM-80GB", key);
	json_t *g = json_pack("{s:s, s:s, s:i, s:i, s:i, s:f, s:f, s:f, s:b, s:s}", "name", model,
	                      "vendor_name", vendor, "mem_gib", 80, "tdp_w", 400, "idle_w", 60, "fp16_tflops", 312.0,
	                      "fp8_tflops", 0.0, "rel_speed", 1.0, "mig", 0, "source", source);
	struct jv v = { .file = b->o->out, .err = b->err, .errlen = b->errlen };
	json_t *one = json_pack("{s:[O]}", "gpus", g);
	int rc = !g || !one || json_array_append(b->cat_gpus, g) ||
	         catalog_merge_json(&v, &b->cat, one, "$.catalog") ? -1 : 0;
	json_decref(g);
	json_decref(one);
	return rc ? (v.failed ? -1 : oom(b)) : 0;
}

/* The catalog model of GPU type `type` ("" untyped: key "gpu"). */
static int gpu_model(struct build *b, const char *type, char *model)
{
	const char *key = type[0] ? type : "gpu";
	char cands[256];
	for (int32_t s = 0; s < b->nshapes; s++)   /* a type seen before */
		if (b->shape[s].gpus && !strcmp(b->shape[s].gpu_type, type)) {
			snprintf(model, HL_NAME_MAX, "%s", b->shape[s].model);
			return 0;
		}
	for (int i = 0; i < b->o->ngpu_map; i++)
		if (!strcmp(b->o->gpu_map[i].type, key)) {
			if (catalog_find_gpu(&b->cat, b->o->gpu_map[i].model) < 0)
				return fail(b, "--gpu-model %s=%s: no such catalog GPU model (hetlab catalog lists them)", key,
				            b->o->gpu_map[i].model);
			snprintf(model, HL_NAME_MAX, "%s", b->o->gpu_map[i].model);
			slurm_msgs_add(&b->sum->notes, "GPU type %s -> %s (--gpu-model)", key, model);
			return 0;
		}
	int m = auto_model(&b->cat, key, cands, sizeof cands);
	if (m >= 0) {
		snprintf(model, HL_NAME_MAX, "%s", b->cat.gpus[m].name);
		slurm_msgs_add(&b->sum->notes, "GPU type %s -> %s (the catalog model of that name)", key, model);
		return 0;
	}
	if (placeholder(b, key, model))
		return -1;
	if (m == -2)
		slurm_msgs_add(&b->sum->notes, "GPU type %s -> %s, a placeholder: '%s' matches %s (choose with "
		               "--gpu-model %s=MODEL)", key, model, key, cands, key);
	else
		slurm_msgs_add(&b->sum->notes, "GPU type %s -> %s, a placeholder: no catalog model matches '%s' "
		               "(--gpu-model %s=MODEL names one)", key, model, key, key);
	return 0;
}

/* ---- the cluster -------------------------------------------------------------- */

static int shape_of(struct build *b, int32_t i)
{
	const struct sconf_node *nd = &b->sc.node[i];
	const struct sconf_nodeline *nl = &b->sc.nodeline[nd->nl];
	for (int32_t s = 0; s < b->nshapes; s++) {
		const struct shape *h = &b->shape[s];
		if (h->cpus == nl->cpus && h->sockets == nl->sockets && h->mem_mib == nl->mem_mib &&
		    h->gpus == nd->gpus && !strcmp(h->features, nl->features) &&
		    !strcmp(h->gpu_type, nd->gpus ? nd->gpu_type : ""))
			return s;
	}
	struct shape *ns = realloc(b->shape, ((size_t)b->nshapes + 1) * sizeof *ns);
	if (!ns)
		return oom(b);
	b->shape = ns;
	struct shape *h = &b->shape[b->nshapes];
	*h = (struct shape){ .cpus = nl->cpus, .sockets = nl->sockets, .gpus = nd->gpus, .mem_mib = nl->mem_mib,
	                     .features = nl->features, .gpu_type = nd->gpus ? nd->gpu_type : "" };
	if (h->gpus > 0) {
		if (gpu_model(b, h->gpu_type, h->model))
			return -1;
		h->gpu_w = b->cat.gpus[catalog_find_gpu(&b->cat, h->model)].tdp_w;
	}
	char name[96];
	int len = snprintf(name, sizeof name, "%dc-%lldm", h->cpus, (long long)h->mem_mib);
	if (h->gpus)
		len += snprintf(name + len, sizeof name - (size_t)len, "-%dx%s", h->gpus, h->gpu_type[0] ? h->gpu_type : "gpu");
	bool taken = false;   /* by a shape that differs only in its features */
	for (int32_t s = 0; s < b->nshapes; s++)
		taken |= !strncmp(b->shape[s].name, name, (size_t)len) && (!b->shape[s].name[len] || b->shape[s].name[len] == '-');
	if (taken)
		len += snprintf(name + len, sizeof name - (size_t)len, "-f%d", b->nshapes);
	if (len >= HL_NAME_MAX)
		snprintf(name, sizeof name, "type%d", b->nshapes + 1);
	snprintf(h->name, sizeof h->name, "%s", name);
	return b->nshapes++;
}

static json_t *node_type_json(const struct shape *h)
{
	json_t *t = json_pack("{s:s, s:i}", "name", h->name, "cores", h->cpus), *labels = json_object();
	int bad = !t || !labels;
	if (!bad && h->sockets > 1)
		bad = set(t, "sockets", json_integer(h->sockets));
	if (!bad)
		bad = set(t, "mem_gib", json_real((double)h->mem_mib / 1024));
	if (!bad && h->gpus)
		bad = set(t, "gpu", json_string(h->model)) || set(t, "gpus", json_integer(h->gpus));
	if (!bad && h->gpus && h->gpu_type[0])
		bad = set(labels, SLURM_GPU_TYPE_LABEL, json_string(h->gpu_type));
	if (!bad && h->features[0])
		bad = set(labels, "slurm.features", json_string(h->features));
	if (!bad && json_object_size(labels))
		bad = set(t, "labels", json_incref(labels));
	json_decref(labels);
	if (bad) {
		json_decref(t);
		return NULL;
	}
	return t;
}

/* Node types, and racks of TWIN_RACK_NODES nodes in slurm.conf's order. */
static int cluster_json(struct build *b)
{
	json_t *types = json_array(), *racks = json_array();
	if (!types || !racks || set(b->root, "node_types", types) || set(b->root, "racks", racks))
		return oom(b);
	if (!(b->shape_of = malloc((size_t)b->sc.nnodes * sizeof *b->shape_of)))
		return oom(b);
	for (int32_t i = 0; i < b->sc.nnodes; i++) {
		int s = shape_of(b, i);
		if (s < 0)
			return -1;
		b->shape_of[i] = s;
		b->sum->gpus += b->shape[s].gpus;
	}
	for (int32_t s = 0; s < b->nshapes; s++)
		if (json_array_append_new(types, node_type_json(&b->shape[s])))
			return oom(b);
	for (int32_t first = 0, r = 1; first < b->sc.nnodes; first += TWIN_RACK_NODES, r++) {
		int32_t end = first + TWIN_RACK_NODES < b->sc.nnodes ? first + TWIN_RACK_NODES : b->sc.nnodes;
		char name[32];
		double w = 0;
		snprintf(name, sizeof name, "rack%02d", r);
		json_t *rack = json_pack("{s:s, s:f, s:[]}", "name", name, "power_kw", 1.0, "nodes"), *grp = NULL;
		if (!rack || json_array_append_new(racks, rack))
			return oom(b);
		for (int32_t i = first; i < end; i++) {
			const struct shape *h = &b->shape[b->shape_of[i]];
			w += 500 + h->gpus * h->gpu_w;   /* a rough figure: the power model is off */
			if (!grp || b->shape_of[i] != b->shape_of[i - 1]) {
				grp = json_pack("{s:s, s:i, s:[]}", "type", h->name, "count", 0, "names");
				if (!grp || json_array_append_new(json_object_get(rack, "nodes"), grp))
					return oom(b);
			}
			json_t *cnt = json_object_get(grp, "count");
			if (json_integer_set(cnt, json_integer_value(cnt) + 1) ||
			    json_array_append_new(json_object_get(grp, "names"), json_string(b->sc.node[i].name)))
				return oom(b);
		}
		if (set(rack, "power_kw", json_real(fmin(1e4, ceil(w / 100) / 10))))
			return oom(b);
	}
	b->sum->nodes = b->sc.nnodes;
	b->sum->node_types = b->nshapes;
	return 0;
}

/* ---- the "slurm" block ------------------------------------------------------------ */

/* A QOS that slurm.conf or the trace names, without a QOS dump: Slurm's defaults. */
static int need_qos(struct build *b, const char *name, const char *where)
{
	if (sacctmgr_find(b->qos, name))
		return 0;
	if (b->o->qos)
		return fail(b, "%s: QOS '%s' is not in the QOS dump %s", where, name, b->o->qos);
	slurm_msgs_add(b->warn, "%s: QOS '%s': no QOS dump was given (--qos); the twin's has Slurm's defaults",
	               where, name);
	return json_array_append_new(b->qos, json_pack("{s:s}", "name", name)) ? oom(b) : 0;
}

static json_t *part_json(struct build *b, const struct sconf_part *sp)
{
	const struct slurm_part *p = &sp->p;
	char where[PATH_MAX + 32];
	json_t *e = json_pack("{s:s, s:[]}", "name", p->name, "nodes"), *nodes = json_object_get(e, "nodes");
	int bad = !e;
	for (int32_t k = 0; !bad && k < p->nnode_names; k++)
		bad = json_array_append_new(nodes, json_string(p->node_names[k]));
	snprintf(where, sizeof where, "%s:%d", b->sc.files[sp->file], sp->line);
	bad = bad || (p->is_default && set(e, "default", json_true())) ||
	      (p->prio_tier != 1 && set(e, "priority_tier", json_integer(p->prio_tier))) ||
	      (p->prio_job_factor != 1 && set(e, "priority_job_factor", json_integer(p->prio_job_factor))) ||
	      (p->max_time_s >= 0 && set(e, "max_time_s", json_integer(p->max_time_s))) ||
	      (p->default_time_s >= 0 && set(e, "default_time_s", json_integer(p->default_time_s))) ||
	      (p->def_mem_per_cpu_mib && set(e, "def_mem_per_cpu_mib", json_integer(p->def_mem_per_cpu_mib))) ||
	      (p->def_mem_per_node_mib && set(e, "def_mem_per_node_mib", json_integer(p->def_mem_per_node_mib))) ||
	      (p->max_nodes >= 0 && set(e, "max_nodes", json_integer(p->max_nodes))) ||
	      (p->over_time_limit_min >= 0 && set(e, "over_time_limit_min", json_integer(p->over_time_limit_min))) ||
	      (p->exclusive && set(e, "exclusive", json_true())) ||
	      (!p->up && set(e, "state", json_string("down")));
	if (bad) {
		json_decref(e);
		oom(b);
		return NULL;
	}
	if (sp->qos[0] && (need_qos(b, sp->qos, where) || set(e, "qos", json_string(sp->qos)))) {
		json_decref(e);
		return NULL;
	}
	return e;
}

static int slurm_json(struct build *b)
{
	json_t *s = json_object(), *parts = json_array(), *weights = json_object();
	if (!s || !parts || !weights || set(b->root, "slurm", s)) {
		json_decref(parts);
		json_decref(weights);
		return oom(b);
	}
	if (set(s, "cr_memory", json_boolean(b->sc.cr_memory)) ||
	    (b->sc.def_mem_per_cpu_mib && set(s, "def_mem_per_cpu_mib", json_integer(b->sc.def_mem_per_cpu_mib))) ||
	    (b->sc.def_mem_per_node_mib && set(s, "def_mem_per_node_mib", json_integer(b->sc.def_mem_per_node_mib))) ||
	    set(s, "partitions", parts)) {
		json_decref(weights);
		return oom(b);
	}
	for (int32_t i = 0; i < b->sc.nparts; i++) {
		json_t *e = part_json(b, &b->sc.part[i]);
		if (!e || json_array_append_new(parts, e)) {
			json_decref(weights);
			return -1;
		}
	}
	/* the trace's QOS names, when no dump lists the QOS */
	for (int32_t q = 0; q < b->w.names[WL_QOS].n; q++)
		if (need_qos(b, workload_name(&b->w, WL_QOS, q), b->o->sacct)) {
			json_decref(weights);
			return -1;
		}
	if (json_array_size(b->qos) && set(s, "qos", json_incref(b->qos)))
		return json_decref(weights), oom(b);
	if (json_array_size(b->accounts) && set(s, "accounts", json_incref(b->accounts)))
		return json_decref(weights), oom(b);
	if (json_array_size(b->users) && set(s, "users", json_incref(b->users)))
		return json_decref(weights), oom(b);
	for (int32_t i = 0; i < b->sc.nnodelines; i++)
		if (b->sc.nodeline[i].weight != 1 &&
		    set(weights, b->sc.nodeline[i].expr, json_integer(b->sc.nodeline[i].weight)))
			return json_decref(weights), oom(b);
	if (json_object_size(weights) && set(s, "node_weights", json_incref(weights)))
		return json_decref(weights), oom(b);
	json_decref(weights);
	b->sum->partitions = b->sc.nparts;
	b->sum->qos = json_array_size(b->qos) ? (int32_t)json_array_size(b->qos) : 1;
	b->sum->accounts = (int32_t)json_array_size(b->accounts);
	for (size_t i = 0; i < json_array_size(b->users); i++) {   /* users, not associations */
		const char *u = json_string_value(json_object_get(json_array_get(b->users, i), "name"));
		size_t k = 0;
		while (k < i && strcmp(u, json_string_value(json_object_get(json_array_get(b->users, k), "name"))))
			k++;
		b->sum->users += k == i;
	}
	return 0;
}

/* ---- the workload and node events ---------------------------------------------------- */

/* dir of path (realpath'd) into out; -1 when it does not exist. */
static int real_dir(const char *path, char *out)
{
	char d[PATH_MAX];
	const char *slash = strrchr(path, '/');
	snprintf(d, sizeof d, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1, slash ? path : ".");
	return realpath(d, out) ? 0 : -1;
}

/* The directory of path as absolute segments, "." and ".." resolved as
 * written (not through links, so that a relative path stays one). */
static int dir_segs(const char *path, char (*seg)[NAME_MAX + 1], int max)
{
	char buf[PATH_MAX * 2] = "", cwd[PATH_MAX];
	if (path[0] != '/' && getcwd(cwd, sizeof cwd))
		snprintf(buf, sizeof buf, "%s/", cwd);
	snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s", path);
	char *slash = strrchr(buf, '/');
	*slash = '\0';   /* buf holds a '/' at least: the cwd's or path's */
	int n = 0;
	for (char *save = NULL, *t = strtok_r(buf, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		if (!strcmp(t, "."))
			continue;
		if (!strcmp(t, "..")) {
			n -= n > 0;
			continue;
		}
		if (n == max)
			return -1;
		snprintf(seg[n++], NAME_MAX + 1, "%s", t);
	}
	return n;
}

/* An input's path (the trace, slurmctld's log) relative to the output
 * file's directory. */
static int input_rel(struct build *b, const char *path, char *rel, size_t len)
{
	static char od[64][NAME_MAX + 1], td[64][NAME_MAX + 1];
	char real[PATH_MAX];
	if (real_dir(b->o->out, real))
		return fail(b, "%s: its directory does not exist", b->o->out);
	int no = dir_segs(b->o->out, od, 64), nt = dir_segs(path, td, 64), k = 0;
	if (no < 0 || nt < 0)
		return fail(b, "%s: a path over 64 directories deep", no < 0 ? b->o->out : path);
	while (k < no && k < nt && !strcmp(od[k], td[k]))
		k++;
	const char *base = strrchr(path, '/');
	size_t off = 0;
	rel[0] = '\0';
	for (int i = k; i < no && off < len; i++)
		off += (size_t)snprintf(rel + off, len - off, "../");
	for (int i = k; i < nt && off < len; i++)
		off += (size_t)snprintf(rel + off, len - off, "%s/", td[i]);
	if (off < len)
		snprintf(rel + off, len - off, "%s", base ? base + 1 : path);
	return 0;
}

/* Events by start, then as the dump lists them. */
static int by_start(const void *x, const void *y)
{
	const struct sm_event *a = x, *b = y;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->line > b->line) - (a->line < b->line);
}

/* The dump's DOWN periods within the trace's span as node_crash events,
 * its DRAIN periods as node_drain events (one at a time per node: a
 * period that overlaps the node's previous one is merged into it). */
static int events_json(struct build *b, int64_t t0, int64_t t1)
{
	struct sm_events ev = { 0 };
	if (sacctmgr_read_events(b->o->events, b->sc.cluster, &ev, b->warn, b->err, b->errlen))
		return sm_events_free(&ev), -1;
	qsort(ev.v, (size_t)ev.n, sizeof *ev.v, by_start);
	json_t *arr = json_array();
	int rc = arr ? 0 : oom(b);
	/* per node, the last drain kept: its entry and end (-1 open) */
	int32_t nn = b->sc.nnodes;
	json_t **last = calloc((size_t)nn + 1, sizeof *last);
	int64_t *last_end = calloc((size_t)nn + 1, sizeof *last_end);
	if (!last || !last_end)
		rc = oom(b);
	for (int32_t i = 0; i < ev.n && rc == 0; i++) {
		const struct sm_event *e = &ev.v[i];
		int32_t node = sconf_find_node(&b->sc, e->node);
		if (node < 0) {
			slurm_msgs_add(b->warn, "%s:%d: NodeName %s is not a node of slurm.conf: the event is ignored",
			               b->o->events, e->line, e->node);
			continue;
		}
		int64_t s = e->start > t0 ? e->start : t0, end = e->end < 0 || e->end > t1 ? t1 : e->end;
		if (end <= s)
			continue;
		json_t *x;
		if (e->drain) {
			bool open = e->end < 0 || e->end > t1;
			if (last[node] && (last_end[node] < 0 || last_end[node] >= s)) {
				/* overlapping the node's previous drain: one longer drain */
				if (last_end[node] >= 0 && (open || end > last_end[node])) {
					int64_t from = (int64_t)json_integer_value(json_object_get(last[node], "at")) + t0;
					last_end[node] = open ? -1 : end;
					if (open)
						json_object_del(last[node], "hours");
					else if (json_object_set_new(last[node], "hours", json_real(fmin(1e5, (double)(end - from) / 3600))))
						rc = oom(b);
				}
				continue;
			}
			x = open ? json_pack("{s:I, s:s}", "at", (json_int_t)(s - t0), "node_drain", e->node)
			         : json_pack("{s:I, s:s, s:f}", "at", (json_int_t)(s - t0), "node_drain", e->node, "hours",
			                     fmin(1e5, (double)(end - s) / 3600));
			last[node] = x;
			last_end[node] = open ? -1 : end;
		} else {
			x = json_pack("{s:I, s:s, s:s, s:f}", "at", (json_int_t)(s - t0), "fail", "node_crash", "node", e->node,
			              "repair_h", fmin(1e5, (double)(end - s) / 3600));
		}
		if (!x || json_array_append_new(arr, x))
			rc = oom(b);
		else
			b->sum->node_events++;
	}
	free(last);
	free(last_end);
	if (rc == 0 && json_array_size(arr) && set(b->root, "events", json_incref(arr)))
		rc = oom(b);
	json_decref(arr);
	sm_events_free(&ev);
	return rc;
}

static int workload_json(struct build *b)
{
	char rel[PATH_MAX * 2], logrel[PATH_MAX * 2];
	if (input_rel(b, b->o->sacct, rel, sizeof rel) ||
	    (b->o->ctld_log && input_rel(b, b->o->ctld_log, logrel, sizeof logrel)))
		return -1;
	int64_t t0 = b->w.unix_start, t1 = t0;
	for (int32_t i = 0; i < b->w.n; i++) {
		int64_t end = t0 + (b->w.jobs[i].submit_us + b->w.truth[i].run_us) / SIMTIME_SEC;
		t1 = end > t1 ? end : t1;
	}
	/* about 500 samples over the trace, a whole minute, 1 min to 1 h */
	int64_t every = (t1 - t0) / 500 / 60 * 60;
	/* jobs cancelled by a preemption: their runs estimated (sacctrefine.c) */
	json_t *wl = json_pack("{s:s, s:b, s:{s:s, s:s}}", "trace", rel, "enforce_walltime", 0, "slurm",
	                       "gpu_type_label", SLURM_GPU_TYPE_LABEL, "preempted_run", "estimate");
	if (wl && b->o->ctld_log && set(json_object_get(wl, "slurm"), "ctld_log", json_string(logrel)))
		return oom(b);
	if (!wl || set(b->root, "workload", wl) ||
	    set(b->root, "sample_interval_s", json_integer(every < 60 ? 60 : every > 3600 ? 3600 : every)))
		return oom(b);
	return b->o->events ? events_json(b, t0, t1) : 0;
}

/* ---- the whole ------------------------------------------------------------------------ */

static int params_json(struct build *b)
{
	json_t *p = json_object();
	if (!p || set(b->root, "policy", json_string("slurm")) || set(b->root, "policy_params", p))
		return oom(b);
	for (int32_t i = 0; i < b->sc.nparams; i++)
		if (set(p, b->sc.param[i].name, json_real(b->sc.param[i].value)))
			return oom(b);
	/* sacct keeps whole seconds: the jobs of one second arrive over it,
	 * at fractions drawn from the run's seed (a replay is one draw) */
	if (set(p, "submit_offset_s", json_real(0.5)) || set(p, "arrival_draw", json_real(1)))
		return oom(b);
	return 0;
}

static int read_inputs(struct build *b)
{
	const struct twin_opts *o = b->o;
	if (sconf_read(o->slurm_conf, &b->sc, b->err, b->errlen) ||
	    (o->gres_conf && sconf_read_gres(o->gres_conf, &b->sc, b->err, b->errlen)))
		return -1;
	for (int32_t i = 0; i < b->sc.warn.n; i++)
		slurm_msgs_add(b->warn, "%s", b->sc.warn.v[i]);
	if (catalog_load_builtin(&b->cat, b->err, b->errlen))
		return -1;
	if ((o->qos && sacctmgr_read_qos(o->qos, b->qos, b->warn, b->err, b->errlen)) ||
	    (o->assoc && sacctmgr_read_assoc(o->assoc, b->sc.cluster, b->qos, o->qos != NULL, b->accounts,
	                                     b->users, b->warn, b->err, b->errlen)))
		return -1;
	if (!o->assoc)
		slurm_msgs_add(b->warn, "no association dump (--assoc): no accounts or users; fair share sees one "
		               "account per trace account, one user per trace user");
	struct sacct_opts so = { .gpu_type_label = SLURM_GPU_TYPE_LABEL, .estimate_preempted = true,
	                         .ctld_log = o->ctld_log };
	if (trace_sacct_read(o->sacct, &so, &b->w, NULL, b->err, b->errlen))
		return -1;
	if (b->w.sacct_estimated)
		slurm_msgs_add(&b->sum->notes, "%lld jobs cancelled by a preemption: their runs estimated from "
		               "the jobs of their account that outlived them (sacct keeps the part they ran)",
		               (long long)b->w.sacct_estimated);
	if (o->ctld_log)
		slurm_msgs_add(&b->sum->notes, "%lld of %d jobs submitted to the millisecond (%s); the others "
		               "spread over their second", (long long)b->w.sacct_ms, (int)b->w.n, o->ctld_log);
	b->sum->jobs = b->w.n;
	b->sum->trace_lines = b->w.lines;
	return 0;
}

/* The scenario loaded back as `hetlab run` will, and bound to the jobs. */
static int check(struct build *b, const char *text)
{
	struct scenario sc;
	char dir[PATH_MAX];
	if (real_dir(b->o->out, dir))
		return fail(b, "%s: its directory does not exist", b->o->out);
	if (scenario_load_text(text, b->o->out, dir, &sc, b->err, b->errlen))
		return -1;   /* a failed load has freed sc */
	int rc = 0;
	if (sc.slurm && slurm_cfg_bind(sc.slurm, &sc.cl, &b->w, b->err, b->errlen)) {
		char msg[1024];
		snprintf(msg, sizeof msg, "%s: %s", b->o->sacct, b->err);
		snprintf(b->err, b->errlen, "%s", msg);
		rc = -1;
	}
	scenario_free(&sc);
	return rc;
}

int twin_build(const struct twin_opts *o, struct twin_sum *sum, struct slurm_msgs *warn, char *err,
               size_t errlen)
{
	struct build b = { .o = o, .sum = sum, .warn = warn, .err = err, .errlen = errlen };
	sconf_init(&b.sc);
	workload_init(&b.w);
	b.root = json_object();
	b.cat_gpus = json_array();
	b.qos = json_array();
	b.accounts = json_array();
	b.users = json_array();
	char *text = NULL;
	int rc = -1;
	if (!b.root || !b.cat_gpus || !b.qos || !b.accounts || !b.users) {
		oom(&b);
		goto out;
	}
	if (read_inputs(&b))
		goto out;
	snprintf(sum->name, sizeof sum->name, "%s", o->name ? o->name : b.sc.cluster[0] ? b.sc.cluster : "twin");
	char desc[512];
	snprintf(desc, sizeof desc, "Slurm twin of cluster %s, built by hetlab twin build from %s", sum->name,
	         o->slurm_conf);
	if (set(b.root, "name", json_string(sum->name)) || set(b.root, "description", json_string(desc)) ||
	    params_json(&b) || cluster_json(&b)) {
		if (!err[0])
			oom(&b);
		goto out;
	}
	if (json_array_size(b.cat_gpus) && set(b.root, "catalog", json_pack("{s:O}", "gpus", b.cat_gpus))) {
		oom(&b);
		goto out;
	}
	if (slurm_json(&b) || workload_json(&b))
		goto out;
	if (!(text = json_dumps(b.root, JSON_INDENT(2) | JSON_REAL_PRECISION(17)))) {
		oom(&b);
		goto out;
	}
	size_t len = strlen(text);
	char *t2 = realloc(text, len + 2);
	if (!t2) {
		oom(&b);
		goto out;
	}
	text = t2;
	memcpy(text + len, "\n", 2);
	if (check(&b, text) || trc_write_atomic(o->out, text, err, errlen))
		goto out;
	rc = 0;
out:
	free(text);
	json_decref(b.root);
	json_decref(b.cat_gpus);
	json_decref(b.qos);
	json_decref(b.accounts);
	json_decref(b.users);
	free(b.shape);
	free(b.shape_of);
	catalog_fini(&b.cat);
	workload_free(&b.w);
	sconf_fini(&b.sc);
	return rc;
}
