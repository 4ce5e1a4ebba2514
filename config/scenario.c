/* scenario — JSON scenario and catalog loader. See scenario.h and
 * docs/scenario.md for the format. */
#include "config/scenario.h"
#include "config/catalog.h"
#include "config/swfcfg.h"
#include "config/jv.h"
#include "config/speedcfg.h"
#include "config/synthcfg.h"
#include "config/scnres.h"
#include "config/orgcfg.h"
#include "config/tieredcfg.h"
#include "config/slurmcfg.h"
#include "config/powercfg.h"
#include "config/billcfg.h"
#include "config/costcfg.h"
#include "config/faultcfg.h"
#include "config/migcfg.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The shortest sample interval (docs/scenario.md): below it a run's sample
 * table outgrows everything else it records. */
#define SCN_MIN_SAMPLE_S 1.0

extern const char hl_embed_default[], hl_embed_guian[];

const char *scenario_default_text(void) { return hl_embed_default; }
const char *scenario_guian_text(void) { return hl_embed_guian; }

/* A JSON document from text; NULL with "FILE:LINE:COL: what" in err. */
static json_t *parse_text(const char *text, const char *file, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		snprintf(err, errlen, "%s:%d:%d: %s", file, je.line, je.column, je.text);
	return root;
}

/* ---- scenario ---- */

static const char *const top_keys[] = { "name", "description", "seed", "policy", "policy_params",
	"sample_interval_s", "horizon_days", "catalog", "node_types", "racks", "from_trace",
	"from_inventory", "storage_pools", "gpu_sharing", "network", "oom_after_s", "placement", "checkpoint", "notify", "org", "events", "tiered", "slurm", "power", "failures", "health",
	"workload", "billing", "measure", "cost", NULL };
static const char *const type_keys[] = { "name", "gpu", "gpus", "cpu", "sockets", "cores",
	"mem_gib", "plane", "base_w", "numa", "storage", "mig", "labels", NULL };
static const char *const rack_keys[] = { "name", "count", "power_kw", "cooling", "nodes", "leaf",
	"labels", NULL };
static const char *const rnode_keys[] = { "type", "count", "names", NULL };
static const char *const ft_keys[] = { "type", "nodes_per_rack", "rack_kw", NULL };
static const char *const fi_keys[] = { "file", "format", "gpu_models", "mem_gib", "nodes_per_rack",
	"rack_kw", NULL };
static const char *const wl_keys[] = { "trace", "lenient", "enforce_walltime", "synthetic", "runtime",
	"swf", "slurm", NULL };
static int load_type(struct jv *v, struct cluster *cl, const json_t *o, const char *p)
{
	struct node_type t;
	char gpu[HL_NAME_MAX] = "", cpu[HL_NAME_MAX] = "";
	long long gpus = 0, sockets = 1, cores = -1;
	double mem = 0, base = 0;
	memset(&t, 0, sizeof t);
	if (jv_object(v, o, p, type_keys) ||
	    jv_str(v, o, p, "name", true, t.name, sizeof t.name) ||
	    jv_str(v, o, p, "gpu", false, gpu, sizeof gpu) ||
	    jv_int(v, o, p, "gpus", false, 0, HL_MAX_GPUS_PER_NODE, &gpus) ||
	    jv_str(v, o, p, "cpu", false, cpu, sizeof cpu) ||
	    jv_int(v, o, p, "sockets", false, 1, 64, &sockets) ||
	    jv_int(v, o, p, "cores", false, 1, HL_NUMA_MAX * HL_NUMA_CORES_MAX, &cores) ||
	    jv_num(v, o, p, "mem_gib", true, 0, 1e9, &mem) ||
	    jv_str(v, o, p, "plane", false, t.plane, sizeof t.plane) ||
	    jv_num(v, o, p, "base_w", false, 0, 1e6, &base))
		return -1;
	if (cluster_find_type(cl, t.name) >= 0)
		return jv_fail(v, p, "node type \"%s\" defined twice", t.name);
	if (cl->ntypes >= HL_MAX_TYPES)
		return jv_fail(v, p, "too many node types (at most %d)", HL_MAX_TYPES);
	if (t.plane[0] && cluster_plane_index(cl, t.plane) < 0 && cl->nplanes >= HL_MAX_PLANES)
		return jv_fail(v, p, "too many network planes (at most %d distinct names)", HL_MAX_PLANES);
	t.gpu_model = -1;
	if (gpu[0] && (t.gpu_model = catalog_find_gpu(&cl->cat, gpu)) < 0) {
		char known[1024] = "";
		size_t off = 0;
		for (int i = 0; i < cl->cat.ngpus && off < sizeof known; i++)
			off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", i ? ", " : "", cl->cat.gpus[i].name);
		return jv_fail(v, p, "unknown GPU model \"%s\" (the catalog has: %s)", gpu, known);
	}
	if (gpu[0] && gpus == 0)
		return jv_fail(v, p, "GPU model given but \"gpus\" is missing or 0");
	if (!gpu[0] && gpus > 0)
		return jv_fail(v, p, "\"gpus\" given without a \"gpu\" model");
	t.gpus = (int32_t)gpus;
	t.cpu_model = -1;
	if (cpu[0] && (t.cpu_model = catalog_find_cpu(&cl->cat, cpu)) < 0)
		return jv_fail(v, p, "unknown CPU model \"%s\" (see docs/catalog.md)", cpu);
	t.sockets = (int32_t)sockets;
	if (cores < 0) {
		if (t.cpu_model < 0)
			return jv_fail(v, p, "needs \"cpu\" (a catalog CPU model) or \"cores\"");
		cores = (long long)sockets * cl->cat.cpus[t.cpu_model].cores;
	}
	t.cores = (int32_t)cores;
	t.mem_mib = (int64_t)llround(mem * 1024);
	t.base_w = base;
	if (scnres_load_type(v, cl, o, p, &t) || cluster_add_type(cl, &t) < 0) {
		free(t.labels);
		return v->failed ? -1 : jv_fail(v, p, "out of memory");
	}
	return 0;
}

static int find_type(const struct cluster *cl, const char *name)
{
	return cluster_find_type(cl, name);
}

/* Node names given with "names", checked against every node before them
 * (hashed: a cluster may have HL_MAX_NODES). */
struct node_names {
	struct strset set;
	int32_t upto;            /* nodes [0, upto) are in set */
};

static const char *node_key(const void *ctx, int32_t i)
{
	return ((const struct cluster *)ctx)->nodes[i].name;
}

/* Adds the nodes before `first` to the set. 0 or -1 on ENOMEM. */
static int names_upto(struct node_names *nn, const struct cluster *cl, int32_t first)
{
	for (; nn->upto < first; nn->upto++)
		if (strset_add(&nn->set, cl->nodes[nn->upto].name, nn->upto))
			return -1;
	return 0;
}

/* A whole number of at least 1 at o.key (1 when absent), or 0 when it is
 * not one (the loader says why later). */
static long long count_of(const json_t *o, const char *key)
{
	json_t *x = json_is_object(o) ? json_object_get(o, key) : NULL;
	if (!x)
		return 1;
	return json_is_integer(x) && json_integer_value(x) >= 1 ? (long long)json_integer_value(x) : 0;
}

/* The racks and nodes that $.racks asks for, against HL_MAX_RACKS and
 * HL_MAX_NODES, before any is built (counts are multiplied: 10^5 racks of
 * 10^5 nodes must fail at once). */
static int check_sizes(struct jv *v, const json_t *racks)
{
	long long nracks = 0, nnodes = 0;
	size_t i, k;
	json_t *r, *e;
	json_array_foreach(racks, i, r) {
		long long count = count_of(r, "count"), per = 0;
		char p[64];
		jv_idxpath(p, sizeof p, "$.racks", i);
		if (count > HL_MAX_RACKS) {   /* as load_rack would say, before the products below */
			char q[80];
			jv_subpath(q, sizeof q, p, "count");
			return jv_fail(v, q, "expected an integer in [0, %d], got %lld", HL_MAX_RACKS, count);
		}
		json_t *nodes = json_is_object(r) ? json_object_get(r, "nodes") : NULL;
		json_array_foreach(nodes, k, e) {
			long long n = json_is_object(e) && json_object_get(e, "count") ? count_of(e, "count") : 0;
			per += n < HL_MAX_NODES ? n : HL_MAX_NODES;
		}
		nracks += count;
		nnodes += count * (per < HL_MAX_NODES ? per : HL_MAX_NODES);
		if (nracks > HL_MAX_RACKS)
			return jv_fail(v, p, "the racks up to here number %lld: more than one scenario may hold "
			               "(at most %d racks)", nracks, HL_MAX_RACKS);
		if (nnodes > HL_MAX_NODES)
			return jv_fail(v, p, "the racks up to here hold %lld nodes: more than one scenario may hold "
			               "(at most %d nodes)", nnodes, HL_MAX_NODES);
	}
	return 0;
}

static int load_rack(struct jv *v, struct cluster *cl, struct node_names *nn, const json_t *o,
                     const char *p)
{
	char name[HL_NAME_MAX], cooling[16] = "air", q[256], q2[256];
	long long count = 1;
	double kw = 0;
	if (jv_object(v, o, p, rack_keys) ||
	    jv_str(v, o, p, "name", true, name, 32) ||   /* room for a count suffix and "-n<k>" */
	    jv_int(v, o, p, "count", false, 0, HL_MAX_RACKS, &count) ||
	    jv_num(v, o, p, "power_kw", true, 0.001, 1e4, &kw) ||
	    jv_str(v, o, p, "cooling", false, cooling, sizeof cooling))
		return -1;
	int cool = strcmp(cooling, "air") == 0 ? COOL_AIR : strcmp(cooling, "liquid") == 0 ? COOL_LIQUID : -1;
	if (cool < 0) {
		jv_subpath(q, sizeof q, p, "cooling");
		return jv_fail(v, q, "expected \"air\" or \"liquid\", got \"%s\"", cooling);
	}
	json_t *nodes = jv_array(v, o, p, "nodes", true), *e;
	if (!nodes)
		return -1;
	jv_subpath(q, sizeof q, p, "nodes");
	/* A rack entry with "count" names its racks NAME01, NAME02, ... whatever
	 * the count, so that a sweep or plan setting the count to 1 keeps the
	 * names events refer to; without "count" the one rack is NAME. */
	bool numbered = json_object_get(o, "count") != NULL;
	for (long long r = 0; r < count; r++) {
		char rname[HL_NAME_MAX];
		if (numbered)
			snprintf(rname, sizeof rname, "%s%02lld", name, r + 1);
		else
			snprintf(rname, sizeof rname, "%s", name);
		if (cluster_find_rack(cl, rname) >= 0)
			return jv_fail(v, p, "rack name \"%s\" used twice", rname);
		int rk = cluster_add_rack(cl, rname, kw * 1000, cool);
		if (rk < 0)
			return jv_fail(v, p, "out of memory");
		if (scnres_load_rack(v, cl, o, p, rk))
			return -1;
		size_t i;
		json_array_foreach(nodes, i, e) {
			char tname[HL_NAME_MAX];
			long long n = 0;
			jv_idxpath(q2, sizeof q2, q, i);
			if (jv_object(v, e, q2, rnode_keys) ||
			    jv_str(v, e, q2, "type", true, tname, sizeof tname) ||
			    jv_int(v, e, q2, "count", true, 1, 100000, &n))
				return -1;
			int t = find_type(cl, tname);
			if (t < 0)
				return jv_fail(v, q2, "unknown node type \"%s\" (not in $.node_types)", tname);
			if (cluster_add_nodes(cl, rk, t, (int)n))
				return jv_fail(v, q2, "out of memory");
			/* "names": the site's own host names (Slurm's node names in
			 * live mode), one per node, instead of RACK-nK. */
			json_t *nm = json_object_get(e, "names");
			if (nm) {
				char q3[320];
				jv_subpath(q3, sizeof q3, q2, "names");
				if (!json_is_array(nm) || (long long)json_array_size(nm) != n)
					return jv_fail(v, q3, "expected an array of %lld node names (one per node)", n);
				if (names_upto(nn, cl, cl->nnodes - (int)n))
					return jv_fail(v, q3, "out of memory");
				for (size_t k = 0; k < json_array_size(nm); k++) {
					json_t *x = json_array_get(nm, k);
					char q4[340];
					jv_idxpath(q4, sizeof q4, q3, k);
					if (!json_is_string(x) || !json_string_length(x) ||
					    json_string_length(x) >= sizeof cl->nodes[0].name || strpbrk(json_string_value(x), " ,\t\n"))
						return jv_fail(v, q4, "expected a host name (no spaces or commas, under %zu characters)",
						               sizeof cl->nodes[0].name);
					int32_t id = cl->nnodes - (int)n + (int)k;
					struct node *nd = &cl->nodes[id];
					snprintf(nd->name, sizeof nd->name, "%s", json_string_value(x));
					if (strset_find(&nn->set, nd->name, node_key, cl) >= 0)
						return jv_fail(v, q4, "node name \"%s\" is used twice", nd->name);
					if (names_upto(nn, cl, id + 1))
						return jv_fail(v, q4, "out of memory");
				}
			}
		}
	}
	return 0;
}

static int load_workload(struct jv *v, struct scenario *sc, const json_t *o)
{
	const char *p = "$.workload";
	if (jv_object(v, o, p, wl_keys) ||
	    jv_str(v, o, p, "trace", false, sc->trace, sizeof sc->trace) ||
	    jv_bool(v, o, p, "lenient", &sc->lenient))
		return -1;
	sc->enforce_walltime = true;
	char rt[16] = "";
	if (jv_bool(v, o, p, "enforce_walltime", &sc->enforce_walltime) ||
	    jv_str(v, o, p, "runtime", false, rt, sizeof rt))
		return -1;
	if (rt[0] && strcmp(rt, "reference") != 0 && strcmp(rt, "recorded") != 0)
		return jv_fail(v, "$.workload.runtime", "expected \"reference\" or \"recorded\", got \"%s\"", rt);
	const json_t *swf = json_object_get(o, "swf"), *slurm = json_object_get(o, "slurm");
	if ((swf && swf_shape_load(v, swf, "$.workload.swf", &sc->swf_shape)) ||
	    (slurm && slurm_labels_load(v, slurm, "$.workload.slurm", &sc->swf_shape)))
		return -1;
	char *log = sc->swf_shape.ctld_log;
	if (log[0] && log[0] != '/') {
		char tmp[sizeof sc->swf_shape.ctld_log];
		if (strncmp(log, "$TRACES/", 8) == 0)
			return jv_fail(v, "$.workload.slurm.ctld_log", "expected a path (absolute, or relative to the "
			               "scenario's directory), got \"%s\"", log);
		if ((size_t)snprintf(tmp, sizeof tmp, "%s/%s", sc->dir, log) >= sizeof tmp)
			return jv_fail(v, "$.workload.slurm.ctld_log", "a path too long");
		memcpy(log, tmp, sizeof tmp);
	}
	/* Synthetic work is for the reference device; a trace's runtimes were
	 * recorded on its own machines, so they replay as they are by default. */
	sc->speed_model = rt[0] ? strcmp(rt, "reference") == 0 : json_object_get(o, "synthetic") != NULL;
	json_t *syn = json_object_get(o, "synthetic");
	if ((syn != NULL) == (sc->trace[0] != 0))
		return jv_fail(v, p, "expected exactly one of \"trace\" or \"synthetic\"");
	if (!syn) {
		sc->workload = SCN_TRACE;
		return 0;
	}
	sc->workload = SCN_SYNTH;
	return synth_load_json(v, &sc->cl.cat, syn, "$.workload.synthetic", &sc->synth);
}

static int load_inventory(struct jv *v, struct scenario *sc, const json_t *fi)
{
	const char *p = "$.from_inventory";
	char fmt[16] = "", q[256];
	long long npr = 32;
	double mem_gib = 0;
	sc->inv_rack_kw = 15;
	inv_map_init(&sc->inv_map);
	if (jv_object(v, fi, p, fi_keys) ||
	    jv_str(v, fi, p, "file", true, sc->inv_file, sizeof sc->inv_file) ||
	    jv_str(v, fi, p, "format", true, fmt, sizeof fmt) ||
	    jv_num(v, fi, p, "mem_gib", false, 0.001, 1e9, &mem_gib) ||
	    jv_int(v, fi, p, "nodes_per_rack", false, 1, INV_RACK_NODES_MAX, &npr) ||
	    jv_num(v, fi, p, "rack_kw", false, 0.001, INV_RACK_KW_MAX, &sc->inv_rack_kw))
		return -1;
	if (inv_format_parse(fmt, &sc->inv_format))
		return jv_fail(v, "$.from_inventory.format", "expected \"openb\", \"pai\", \"spot\" or \"k8s\", got \"%s\"", fmt);
	json_t *gm = json_object_get(fi, "gpu_models");
	/* A Kubernetes node list names its GPUs by the products the catalog knows. */
	if (!gm && sc->inv_format != INV_K8S)
		return jv_fail(v, "$.from_inventory.gpu_models", "missing (expected an object of inventory model: catalog GPU)");
	if (gm && !json_is_object(gm))
		return jv_fail(v, "$.from_inventory.gpu_models", "expected an object, got %s", jv_type(gm));
	const char *k;
	json_t *e;
	json_object_foreach(gm, k, e) {
		char msg[384];
		snprintf(q, sizeof q, "$.from_inventory.gpu_models.%s", k);
		if (!json_is_string(e))
			return jv_fail(v, q, "expected a catalog GPU name, got %s", jv_type(e));
		if (inv_map_add(&sc->inv_map, k, json_string_value(e), msg, sizeof msg))
			return jv_fail(v, q, "%s", msg);
		if (catalog_find_gpu(&sc->cl.cat, json_string_value(e)) < 0)
			return jv_fail(v, q, "unknown catalog GPU \"%s\" (define it under $.catalog.gpus; "
			               "docs/traces.md, Node inventories)", json_string_value(e));
	}
	sc->inv_map.mem_mib = (int64_t)llround(mem_gib * 1024);
	sc->inv_nodes_per_rack = (int32_t)npr;
	sc->from_inventory = true;
	return 0;
}

static int load_root(struct jv *v, struct scenario *sc, const json_t *root)
{
	long long seed = 1;
	double sample_s = 600, horizon_d = 0;
	if (jv_object(v, root, "$", top_keys) ||
	    jv_str(v, root, "$", "name", true, sc->name, sizeof sc->name) ||
	    jv_int(v, root, "$", "seed", false, 0, LLONG_MAX, &seed) ||
	    jv_str(v, root, "$", "policy", false, sc->policy, sizeof sc->policy) ||
	    jv_num(v, root, "$", "sample_interval_s", false, 0, 1e9, &sample_s) ||
	    jv_num(v, root, "$", "horizon_days", false, 0, 1e5, &horizon_d))
		return -1;
	json_t *d = json_object_get(root, "description");
	if (d && !json_is_string(d))
		return jv_fail(v, "$.description", "expected a string, got %s", jv_type(d));
	if (sample_s > 0 && sample_s < SCN_MIN_SAMPLE_S)
		return jv_fail(v, "$.sample_interval_s", "expected 0 (no samples) or at least %g s, got %g",
		               SCN_MIN_SAMPLE_S, sample_s);
	sc->seed = (uint64_t)seed;
	sc->sample_every_us = simtime_from_s(sample_s);
	sc->horizon_us = horizon_d > 0 ? simtime_from_s(horizon_d * 86400) : SIMTIME_INF;
	if (!sc->policy[0])
		snprintf(sc->policy, sizeof sc->policy, "easy");

	json_t *pp = json_object_get(root, "policy_params");
	if (pp) {
		if (!json_is_object(pp))
			return jv_fail(v, "$.policy_params", "expected an object, got %s", jv_type(pp));
		const char *k;
		json_t *e;
		json_object_foreach(pp, k, e) {
			struct scn_param *sp = &sc->params[sc->nparams];
			if (sc->nparams == SCN_MAX_PARAMS)
				return jv_fail(v, "$.policy_params", "too many parameters");
			snprintf(sp->path, sizeof sp->path, "$.policy_params.%s", k);
			if (!json_is_number(e))
				return jv_fail(v, sp->path, "expected a number, got %s", jv_type(e));
			snprintf(sp->name, sizeof sp->name, "%s", k);
			sp->value = json_number_value(e);
			sc->nparams++;
		}
	}

	if (scnres_load_top(v, &sc->cl, root, &sc->place) || scnres_load_ckpt(v, &sc->cl, root, sc->ckpt) ||
	    scnres_load_notify(v, root, &sc->notify))
		return -1;
	json_t *cat = json_object_get(root, "catalog");
	if (cat) {
		static const char *const ck[] = { "gpus", "cpus", NULL };
		if (jv_object(v, cat, "$.catalog", ck) || catalog_merge_json(v, &sc->cl.cat, cat, "$.catalog"))
			return -1;
	}
	if (org_load(v, &sc->cl.cat, root, &sc->org) || power_load(v, root, &sc->power))
		return -1;
	/* "measure": the window every metric of the run counts (analysis/metric.h). */
	json_t *ms = json_object_get(root, "measure");
	if (ms) {
		char *t = json_dumps(ms, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(17)), why[256];
		bool oom = !t;
		int bad = oom || metric_window_from_json_text(t, &sc->measure, why, sizeof why) < 0;
		free(t);
		if (bad)
			return jv_fail(v, "$.measure", "%s", oom ? "out of memory" : why);
	}
	if (json_object_get(root, "tiered")) {
		if (!(sc->tiered = malloc(sizeof *sc->tiered)))
			return jv_fail(v, "$.tiered", "out of memory");
		tiered_cfg_init(sc->tiered);
		if (tiered_load(v, &sc->cl.cat, root, sc->tiered))
			return -1;
	}
	if (json_object_get(root, "slurm")) {
		if (!(sc->slurm = malloc(sizeof *sc->slurm)))
			return jv_fail(v, "$.slurm", "out of memory");
		if (slurm_cfg_load(v, root, sc->slurm))
			return -1;
	}
	json_t *fi = json_object_get(root, "from_inventory");
	json_t *types = jv_array(v, root, "$", "node_types", !fi), *e;
	if (!types && (!fi || json_object_get(root, "node_types")))
		return -1;
	size_t i;
	json_array_foreach(types, i, e) {
		char p[64];
		jv_idxpath(p, sizeof p, "$.node_types", i);
		if (load_type(v, &sc->cl, e, p))
			return -1;
	}
	json_t *racks = json_object_get(root, "racks"), *ft = json_object_get(root, "from_trace");
	if ((racks != NULL) + (ft != NULL) + (fi != NULL) != 1)
		return jv_fail(v, "$", "expected exactly one of \"racks\", \"from_trace\" or \"from_inventory\"");
	if (fi) {
		if (load_inventory(v, sc, fi))
			return -1;
	} else if (racks) {
		if (!json_is_array(racks) || json_array_size(racks) == 0)
			return jv_fail(v, "$.racks", "expected a non-empty array");
		if (check_sizes(v, racks))
			return -1;
		struct node_names nn = { 0 };
		json_array_foreach(racks, i, e) {
			char p[64];
			jv_idxpath(p, sizeof p, "$.racks", i);
			if (load_rack(v, &sc->cl, &nn, e, p)) {
				strset_fini(&nn.set);
				return -1;
			}
		}
		strset_fini(&nn.set);
		if (power_events_load(v, &sc->cl, root, &sc->env, &sc->nenv) ||
		    fault_load(v, &sc->cl, root, &sc->fault))
			return -1;
		sc->faults = sc->fault.nev > 0 || sc->fault.health.enabled || json_object_get(root, "failures");
		if (sc->cl.nnodes == 0)
			return jv_fail(v, "$.racks", "no nodes");
	} else {
		long long npr = 32;
		sc->ft_rack_kw = 15;
		if (jv_object(v, ft, "$.from_trace", ft_keys) ||
		    jv_str(v, ft, "$.from_trace", "type", true, sc->ft_type, sizeof sc->ft_type) ||
		    jv_int(v, ft, "$.from_trace", "nodes_per_rack", false, 1, 100000, &npr) ||
		    jv_num(v, ft, "$.from_trace", "rack_kw", false, 0.001, 1e4, &sc->ft_rack_kw))
			return -1;
		if (find_type(&sc->cl, sc->ft_type) < 0)
			return jv_fail(v, "$.from_trace.type", "unknown node type \"%s\"", sc->ft_type);
		sc->ft_nodes_per_rack = (int32_t)npr;
		sc->from_trace = true;
	}
	if (bill_load(v, &sc->cl, &sc->org, root, &sc->billing_json) ||
	    costcfg_scenario(v, root, &sc->cost_json))
		return -1;
	json_t *wl = json_object_get(root, "workload");
	if (!wl)
		return 0;   /* live mode's scenarios; hetlab run needs one (sc->has_workload) */
	sc->has_workload = true;
	if (load_workload(v, sc, wl))
		return -1;
	if (sc->from_trace && sc->workload != SCN_TRACE)
		return jv_fail(v, "$.from_trace", "needs a \"trace\" workload to size the cluster from");
	return 0;
}

static int load_parsed(struct scenario *sc, json_t *root, char *err, size_t errlen);

int scenario_load_text(const char *text, const char *name, const char *dir, struct scenario *sc,
                       char *err, size_t errlen)
{
	memset(sc, 0, sizeof *sc);
	cluster_init(&sc->cl);
	org_init(&sc->org);
	power_cfg_defaults(&sc->power);
	fault_cfg_init(&sc->fault);
	snprintf(sc->file, sizeof sc->file, "%s", name);
	snprintf(sc->dir, sizeof sc->dir, "%s", dir && dir[0] ? dir : ".");
	json_t *root = parse_text(text, sc->file, err, errlen);
	if (!root) {
		scenario_free(sc);
		return -1;
	}
	return load_parsed(sc, root, err, errlen);
}

int scenario_load(const char *path, struct scenario *sc, char *err, size_t errlen)
{
	json_t *root = NULL;
	memset(sc, 0, sizeof *sc);
	cluster_init(&sc->cl);
	org_init(&sc->org);
	power_cfg_defaults(&sc->power);
	fault_cfg_init(&sc->fault);
	if (path) {
		snprintf(sc->file, sizeof sc->file, "%s", path);
		const char *slash = strrchr(path, '/');
		if (slash)
			snprintf(sc->dir, sizeof sc->dir, "%.*s", (int)(slash - path), path);
		else
			snprintf(sc->dir, sizeof sc->dir, ".");
		if (!(root = jsonfile_load(path, err, errlen)))
			goto fail;
	} else {
		snprintf(sc->file, sizeof sc->file, "scenarios/default.json (embedded)");
		snprintf(sc->dir, sizeof sc->dir, ".");
		if (!(root = parse_text(hl_embed_default, sc->file, err, errlen)))
			goto fail;
	}
	return load_parsed(sc, root, err, errlen);
fail:
	json_decref(root);
	scenario_free(sc);
	return -1;
}

/* Loads a parsed scenario (takes root). */
static int load_parsed(struct scenario *sc, json_t *root, char *err, size_t errlen)
{
	struct jv v = { .err = err, .errlen = errlen };
	v.file = sc->file;
	sc->enforce_walltime = true;   /* load_workload may say otherwise */
	if (catalog_load_builtin(&sc->cl.cat, err, errlen))
		goto fail;
	if (load_root(&v, sc, root))
		goto fail;
	if (!sc->from_trace && !sc->from_inventory) {
		char why[256];
		if (cluster_finish(&sc->cl, why, sizeof why)) {
			snprintf(err, errlen, "%s: %s", sc->file, why);
			goto fail;
		}
	}
	json_decref(root);
	return 0;
fail:
	json_decref(root);
	scenario_free(sc);
	return -1;
}

void scenario_free(struct scenario *sc)
{
	cluster_fini(&sc->cl);
	scnres_notify_free(&sc->notify);
	org_fini(&sc->org);
	free(sc->env);
	sc->env = NULL;
	free(sc->billing_json);
	sc->billing_json = NULL;
	free(sc->cost_json);
	sc->cost_json = NULL;
	fault_cfg_fini(&sc->fault);
	if (sc->tiered) {
		tiered_cfg_fini(sc->tiered);
		free(sc->tiered);
		sc->tiered = NULL;
	}
	if (sc->slurm) {
		slurm_cfg_fini(sc->slurm);
		free(sc->slurm);
		sc->slurm = NULL;
	}
}

void scenario_trace_path(const struct scenario *sc, const char *traces_dir, char *out, size_t len)
{
	if (strncmp(sc->trace, "$TRACES/", 8) == 0)
		snprintf(out, len, "%s/%s", traces_dir, sc->trace + 8);
	else if (sc->trace[0] == '/')
		snprintf(out, len, "%s", sc->trace);
	else
		snprintf(out, len, "%s/%s", sc->dir, sc->trace);
}

int scenario_build_inventory(struct scenario *sc, const char *traces_dir, char *err, size_t errlen)
{
	char path[PATH_MAX + 64], msg[1024];
	if (strncmp(sc->inv_file, "$TRACES/", 8) == 0)
		snprintf(path, sizeof path, "%s/%s", traces_dir, sc->inv_file + 8);
	else if (sc->inv_file[0] == '/')
		snprintf(path, sizeof path, "%s", sc->inv_file);
	else
		snprintf(path, sizeof path, "%s/%s", sc->dir, sc->inv_file);
	/* Kubernetes nodes may run MIG (nvidia.com/mig.strategy): the geometry. */
	if (sc->inv_format == INV_K8S && !sc->cl.mig) {
		if (!(sc->cl.mig = calloc(1, sizeof *sc->cl.mig))) {
			snprintf(err, errlen, "%s: out of memory", sc->file);
			return -1;
		}
		if (mig_load_builtin(sc->cl.mig, msg, sizeof msg)) {
			snprintf(err, errlen, "%s: MIG geometry: %s", sc->file, msg);
			return -1;
		}
	}
	if (inventory_cluster_build(path, sc->inv_format, &sc->inv_map, sc->inv_nodes_per_rack,
	                            sc->inv_rack_kw, &sc->cl, msg, sizeof msg)) {
		snprintf(err, errlen, "%s: %s", sc->file, msg);
		return -1;
	}
	return 0;
}

int scenario_size_from_trace(struct scenario *sc, const struct workload *w, char *err, size_t errlen)
{
	int t = find_type(&sc->cl, sc->ft_type);
	int64_t procs = w->max_procs, nodes = w->max_nodes, cores = sc->cl.types[t].cores;
	if (procs <= 0 && nodes <= 0) {
		snprintf(err, errlen, "%s: $.from_trace: the trace has neither MaxProcs nor MaxNodes in its header",
		         sc->file);
		return -1;
	}
	if (procs > 0 && nodes > 0) {
		/* Both known: the header decides the cores of a node. */
		if (procs % nodes) {
			snprintf(err, errlen, "%s: $.from_trace: the trace's MaxProcs %lld is not a multiple of its MaxNodes %lld",
			         sc->file, (long long)procs, (long long)nodes);
			return -1;
		}
		cores = procs / nodes;
	} else if (procs > 0) {
		/* Only MaxProcs: as many nodes of the type's cores as make it up. */
		if (procs % cores) {
			snprintf(err, errlen, "%s: $.from_trace: the trace's MaxProcs %lld is not a multiple of "
			         "node type \"%s\"'s %lld cores (the header has no MaxNodes)",
			         sc->file, (long long)procs, sc->ft_type, (long long)cores);
			return -1;
		}
		nodes = procs / cores;
	}
	if (nodes > 1000000 || cores > INT32_MAX) {
		snprintf(err, errlen, "%s: $.from_trace: the trace header asks for %lld nodes of %lld cores, more than hetlab models",
		         sc->file, (long long)nodes, (long long)cores);
		return -1;
	}
	sc->cl.types[t].cores = (int32_t)cores;
	for (int64_t left = nodes, r = 0; left > 0; r++) {
		char name[HL_NAME_MAX];
		int n = left < sc->ft_nodes_per_rack ? (int)left : sc->ft_nodes_per_rack;
		snprintf(name, sizeof name, "r%02lld", (long long)r + 1);
		int rk = cluster_add_rack(&sc->cl, name, sc->ft_rack_kw * 1000, COOL_AIR);
		if (rk < 0 || cluster_add_nodes(&sc->cl, rk, t, n)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		left -= n;
	}
	if (cluster_finish(&sc->cl, err, errlen))
		return -1;
	return 0;
}
