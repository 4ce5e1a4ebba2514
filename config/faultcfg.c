/* faultcfg — the scenario's "failures" and "health" blocks and its fault,
 * join and leave events. See faultcfg.h; docs/scenario.md "failures",
 * "health" and "events" document every key. */
#include "config/faultcfg.h"
#include "config/orgcfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOURS_MAX 1e7             /* mtbf_h, weibull.scale_h */
#define SHAPE_MAX 100.0           /* weibull.shape */
#define REPAIR_H_MAX 1e5
#define WINDOW_H_MAX 1e5          /* the health monitor's windows */
#define RACK_KW_MAX 1e4           /* as a rack's power_kw */
#define RACK_NAME_LEN 32          /* as $.racks[].name: room for "-n<k>" in a node name */
#define JOIN_COUNT_MAX 100000     /* as a rack's nodes[].count */

static const char *const failures_keys[] = { "migrate", "node_crash", "gpu_xid", "gpu_degrade", "nic",
	"smart", "driver", NULL };
static const char *const kinds_list = "node_crash, gpu_xid, gpu_degrade, nic, smart, driver";
static const char *const proc_keys[] = { "mtbf_h", "weibull", "repair_h", "value", NULL };
static const char *const weibull_keys[] = { "shape", "scale_h", NULL };
static const char *const health_keys[] = { "fail_jobs", "fail_window_h", "flaps", "flap_window_h",
	"min_gpu_speed", "max_nic_loss", "smart", NULL };
static const char *const migrate_names[] = { [MIGRATE_NONE] = "none",
	[MIGRATE_CHECKPOINTED] = "checkpointed", [MIGRATE_ALL] = "all" };

/* The entries of "events" read here, and their keys. */
enum { EK_FAIL, EK_JOIN, EK_LEAVE, EK_DRAIN, EK_N };
static const char *const kind_keys[EK_N] = { "fail", "node_join", "node_leave", "node_drain" };
static const char *const fail_keys[] = { "at", "fail", "node", "gpu", "value", "repair_h", NULL };
static const char *const join_ev_keys[] = { "at", "node_join", NULL };
static const char *const join_keys[] = { "rack", "power_kw", "cooling", "type", "count", NULL };
static const char *const leave_keys[] = { "at", "node_leave", NULL };
static const char *const drain_keys[] = { "at", "node_drain", "hours", NULL };

static bool kind_has_value(int k) { return k == FAULT_GPU_DEGRADE || k == FAULT_NIC; }
static bool kind_on_gpu(int k) { return k == FAULT_GPU_XID || k == FAULT_GPU_DEGRADE; }

/* o.key, when present, must be a number in (0, max]. */
static int pos_num(struct jv *v, const json_t *o, const char *path, const char *key, bool required,
                   double max, double *out)
{
	char p[256];
	json_t *x = json_object_get(o, key);
	jv_subpath(p, sizeof p, path, key);
	if (!x) {
		if (required)
			return jv_fail(v, p, "missing (expected a number in (0, %g])", max);
		return 0;
	}
	if (!json_is_number(x))
		return jv_fail(v, p, "expected a number in (0, %g], got %s", max, jv_type(x));
	double d = json_number_value(x);
	if (!(d > 0 && d <= max))
		return jv_fail(v, p, "expected a number in (0, %g], got %g", max, d);
	*out = d;
	return 0;
}

/* ---- "failures" ----------------------------------------------------------------- */

static int load_proc(struct jv *v, const json_t *o, const char *p, int k, struct fault_proc *pr)
{
	char q[256];
	if (!json_is_object(o))
		return jv_fail(v, p, "expected an object ({\"mtbf_h\": H} or {\"weibull\": {\"shape\": k, "
		               "\"scale_h\": H}}, and repair_h%s), got %s", kind_has_value(k) ? ", value" : "",
		               jv_type(o));
	if (!kind_has_value(k) && json_object_get(o, "value")) {
		jv_subpath(q, sizeof q, p, "value");
		return jv_fail(v, q, "a %s fault has no value (only gpu_degrade and nic have one)", fault_kind_name(k));
	}
	if (jv_object(v, o, p, proc_keys))
		return -1;
	json_t *wb = json_object_get(o, "weibull");
	if (wb && json_object_get(o, "mtbf_h"))
		return jv_fail(v, p, "expected either \"mtbf_h\" (exponential) or \"weibull\", not both");
	double h = 0;
	if (json_object_get(o, "mtbf_h")) {
		if (pos_num(v, o, p, "mtbf_h", true, HOURS_MAX, &h))
			return -1;
		pr->dist = FDIST_EXP;
		pr->mtbf_s = h * 3600;
	} else if (wb) {
		jv_subpath(q, sizeof q, p, "weibull");
		double shape = 0;
		if (!json_is_object(wb))
			return jv_fail(v, q, "expected an object {\"shape\": k, \"scale_h\": H}, got %s", jv_type(wb));
		if (jv_object(v, wb, q, weibull_keys) || pos_num(v, wb, q, "shape", true, SHAPE_MAX, &shape) ||
		    pos_num(v, wb, q, "scale_h", true, HOURS_MAX, &h))
			return -1;
		pr->dist = FDIST_WEIBULL;
		pr->shape = shape;
		pr->scale_s = h * 3600;
	}
	h = pr->repair_s / 3600;
	if (pos_num(v, o, p, "repair_h", false, REPAIR_H_MAX, &h) ||
	    (kind_has_value(k) && pos_num(v, o, p, "value", false, 1, &pr->value)))
		return -1;
	pr->repair_s = h * 3600;
	return 0;
}

static int load_failures(struct jv *v, const json_t *x, struct fault_cfg *c)
{
	const char *p = "$.failures";
	if (!json_is_object(x))
		return jv_fail(v, p, "expected an object of \"migrate\" and fault kinds (%s), got %s", kinds_list,
		               jv_type(x));
	if (jv_object(v, x, p, failures_keys))
		return -1;
	json_t *m = json_object_get(x, "migrate");
	if (m) {
		int found = -1;
		for (int k = 0; k <= MIGRATE_ALL && json_is_string(m) && found < 0; k++)
			if (strcmp(json_string_value(m), migrate_names[k]) == 0)
				found = k;
		if (found < 0) {
			if (json_is_string(m))
				return jv_fail(v, "$.failures.migrate", "expected \"none\", \"checkpointed\" or \"all\", got \"%s\"",
				               json_string_value(m));
			return jv_fail(v, "$.failures.migrate", "expected \"none\", \"checkpointed\" or \"all\", got %s",
			               jv_type(m));
		}
		c->migrate = found;
	}
	for (int k = 0; k < FAULT_NKIND; k++) {
		json_t *o = json_object_get(x, fault_kind_name(k));
		char q[64];
		jv_subpath(q, sizeof q, p, fault_kind_name(k));
		if (o && load_proc(v, o, q, k, &c->proc[k]))
			return -1;
	}
	return 0;
}

/* ---- "health" ------------------------------------------------------------------- */

static int load_health(struct jv *v, const json_t *x, struct health_cfg *h)
{
	const char *p = "$.health";
	if (!json_is_object(x))
		return jv_fail(v, p, "expected an object (fail_jobs, fail_window_h, flaps, flap_window_h, "
		               "min_gpu_speed, max_nic_loss, smart), got %s", jv_type(x));
	long long fail_jobs = h->fail_jobs, flaps = h->flaps;
	double fail_h = simtime_to_s(h->fail_window_us) / 3600, flap_h = simtime_to_s(h->flap_window_us) / 3600;
	if (jv_object(v, x, p, health_keys) ||
	    jv_int(v, x, p, "fail_jobs", false, 0, HEALTH_RING, &fail_jobs) ||
	    pos_num(v, x, p, "fail_window_h", false, WINDOW_H_MAX, &fail_h) ||
	    jv_int(v, x, p, "flaps", false, 0, HEALTH_RING, &flaps) ||
	    pos_num(v, x, p, "flap_window_h", false, WINDOW_H_MAX, &flap_h) ||
	    jv_num(v, x, p, "min_gpu_speed", false, 0, 1, &h->min_gpu_speed) ||
	    jv_num(v, x, p, "max_nic_loss", false, 0, 1, &h->max_nic_loss) ||
	    jv_bool(v, x, p, "smart", &h->smart))
		return -1;
	h->fail_jobs = (int32_t)fail_jobs;
	h->flaps = (int32_t)flaps;
	h->fail_window_us = simtime_from_s(fail_h * 3600);
	h->flap_window_us = simtime_from_s(flap_h * 3600);
	h->enabled = true;
	return 0;
}

/* ---- "events" ------------------------------------------------------------------- */

struct tmp_event {
	struct fault_event e;
	size_t idx;               /* its entry in "events" */
	bool join;                /* joins sort first among equal times */
};

/* What one node has had happen to it, for the order checks. */
struct node_life {
	simtime join_us;          /* 0 for the scenario's own nodes */
	simtime leave_us;         /* -1 stays */
	int64_t join_src, leave_src;   /* their entries in "events", -1 none */
};

struct byname {
	const char *name;
	int32_t node;
};

/* Everything the event pass works on. */
struct evload {
	struct jv *v;
	struct cluster *cl;
	const struct fault_cfg *c;
	struct tmp_event *ev;
	size_t nev, cap;
	struct byname *idx;       /* every node, by name */
	struct node_life *life;   /* per node */
	int64_t joined;           /* nodes added by node_join */
};

static int cmp_event(const void *x, const void *y)
{
	const struct tmp_event *a = x, *b = y;
	if (a->e.at_us != b->e.at_us)
		return a->e.at_us < b->e.at_us ? -1 : 1;
	if (a->join != b->join)
		return a->join ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int byname_cmp(const void *a, const void *b)
{
	return strcmp(((const struct byname *)a)->name, ((const struct byname *)b)->name);
}

/* A time for a message: "2d", "36h", "90m" or seconds. */
static const char *fmt_at(char *buf, size_t len, simtime t)
{
	if (t % SIMTIME_DAY == 0)
		snprintf(buf, len, "%lldd", (long long)(t / SIMTIME_DAY));
	else if (t % SIMTIME_HOUR == 0)
		snprintf(buf, len, "%lldh", (long long)(t / SIMTIME_HOUR));
	else if (t % SIMTIME_MIN == 0)
		snprintf(buf, len, "%lldm", (long long)(t / SIMTIME_MIN));
	else
		snprintf(buf, len, "%gs", simtime_to_s(t));
	return buf;
}

static int push(struct evload *L, const struct fault_event *e, size_t idx, bool join)
{
	if (L->nev == L->cap) {
		size_t cap = L->cap ? 2 * L->cap : 64;
		struct tmp_event *n = realloc(L->ev, cap * sizeof *n);
		if (!n)
			return jv_fail(L->v, "$.events", "out of memory");
		L->ev = n;
		L->cap = cap;
	}
	L->ev[L->nev++] = (struct tmp_event){ .e = *e, .idx = idx, .join = join };
	return 0;
}

/* The kind of entry e: EK_*, -2 when it is not one of these (another
 * loader's, or not an object: that loader says so), -1 on two kinds. */
static int event_kind(struct jv *v, const json_t *e, const char *p)
{
	int kind = -2;
	for (int k = 0; k < EK_N; k++) {
		if (!json_object_get(e, kind_keys[k]))   /* NULL for a non-object */
			continue;
		if (kind >= 0)
			return jv_fail(v, p, "expected one event kind, got both \"%s\" and \"%s\"", kind_keys[kind],
			               kind_keys[k]);
		kind = k;
	}
	return kind;
}

static int load_at(struct jv *v, const json_t *e, const char *p, simtime *at)
{
	char q[128];
	json_t *x = json_object_get(e, "at");
	jv_subpath(q, sizeof q, p, "at");
	if (!x)
		return jv_fail(v, q, "missing (expected a time: seconds, or a string such as \"2d\", \"36h\")");
	return org_parse_at(v, x, q, at);
}

/* Says which nodes there are, for an unknown name: the rack's when the
 * name's "<rack>" part is a rack, else the first racks' ranges. */
static int unknown_node(struct jv *v, const struct cluster *cl, const char *q, const char *name)
{
	char hint[512] = "";
	size_t off = 0;
	const char *dash = strrchr(name, '-');
	int32_t rk = -1;
	if (dash && dash[1] == 'n')
		for (int32_t k = 0; k < cl->nracks && rk < 0; k++)
			if (strlen(cl->racks[k].name) == (size_t)(dash - name) &&
			    strncmp(cl->racks[k].name, name, (size_t)(dash - name)) == 0)
				rk = k;
	if (cl->nnodes == 0)
		return jv_fail(v, q, "unknown node \"%s\" (the cluster has no nodes)", name);
	if (rk >= 0) {
		const struct rack *r = &cl->racks[rk];
		if (r->nnodes == 0)
			return jv_fail(v, q, "unknown node \"%s\" (rack \"%s\" has no nodes)", name, r->name);
		return jv_fail(v, q, "unknown node \"%s\" (rack \"%s\" has %s ... %s)", name, r->name,
		               cl->nodes[r->first_node].name, cl->nodes[r->first_node + r->nnodes - 1].name);
	}
	int32_t shown = 0;
	for (int32_t k = 0; k < cl->nracks && shown < 4 && off < sizeof hint; k++) {
		const struct rack *r = &cl->racks[k];
		if (r->nnodes == 0)
			continue;
		if (r->nnodes == 1)
			off += (size_t)snprintf(hint + off, sizeof hint - off, "%s%s", shown ? ", " : "",
			                        cl->nodes[r->first_node].name);
		else
			off += (size_t)snprintf(hint + off, sizeof hint - off, "%s%s ... %s", shown ? ", " : "",
			                        cl->nodes[r->first_node].name, cl->nodes[r->first_node + r->nnodes - 1].name);
		shown++;
	}
	if (shown < cl->nracks && off < sizeof hint)
		snprintf(hint + off, sizeof hint - off, ", ... (%d racks)", (int)cl->nracks);
	return jv_fail(v, q, "unknown node \"%s\" (nodes are named <rack>-n<k>; the cluster has %s)", name, hint);
}

/* The node named by string x (at path q), or -1 with v failed. */
static int32_t find_node(struct evload *L, const json_t *x, const char *q)
{
	if (!x)
		return jv_fail(L->v, q, "missing (expected a node name, \"<rack>-n<k>\")");
	if (!json_is_string(x))
		return jv_fail(L->v, q, "expected a node name (a string), got %s", jv_type(x));
	struct byname key = { json_string_value(x), -1 };
	const struct byname *hit = L->cl->nnodes > 0
	        ? bsearch(&key, L->idx, (size_t)L->cl->nnodes, sizeof *L->idx, byname_cmp) : NULL;
	if (!hit)
		return unknown_node(L->v, L->cl, q, key.name);
	return hit->node;
}

/* A fault or leave at `at` on a node that joins later is refused. */
static int check_joined(struct evload *L, int32_t node, simtime at, const char *p)
{
	const struct node_life *l = &L->life[node];
	char a[32], b[32];
	if (l->join_src < 0 || at >= l->join_us)
		return 0;
	return jv_fail(L->v, p, "node \"%s\" joins at %s ($.events[%lld]); this event at %s comes before that",
	               L->cl->nodes[node].name, fmt_at(a, sizeof a, l->join_us), (long long)l->join_src,
	               fmt_at(b, sizeof b, at));
}

static int load_join(struct evload *L, const json_t *e, const char *p, size_t i)
{
	struct jv *v = L->v;
	struct cluster *cl = L->cl;
	char q[128], q2[160], rack[RACK_NAME_LEN] = "", type[HL_NAME_MAX] = "", cooling[16] = "air";
	double kw = 0;
	long long count = 1;
	simtime at;
	if (jv_object(v, e, p, join_ev_keys) || load_at(v, e, p, &at))
		return -1;
	json_t *x = json_object_get(e, "node_join");
	jv_subpath(q, sizeof q, p, "node_join");
	if (!json_is_object(x))
		return jv_fail(v, q, "expected an object (rack, power_kw, cooling, type, count), got %s", jv_type(x));
	if (jv_object(v, x, q, join_keys) || jv_str(v, x, q, "rack", true, rack, sizeof rack) ||
	    jv_num(v, x, q, "power_kw", true, 0.001, RACK_KW_MAX, &kw) ||
	    jv_str(v, x, q, "cooling", false, cooling, sizeof cooling) ||
	    jv_str(v, x, q, "type", true, type, sizeof type) ||
	    jv_int(v, x, q, "count", false, 1, JOIN_COUNT_MAX, &count))
		return -1;
	jv_subpath(q2, sizeof q2, q, "rack");
	if (!rack[0])
		return jv_fail(v, q2, "expected a non-empty string");
	if (cluster_find_rack(cl, rack) >= 0)
		return jv_fail(v, q2, "rack \"%s\" already exists (node_join adds a new rack)", rack);
	int cool = strcmp(cooling, "air") == 0 ? COOL_AIR : strcmp(cooling, "liquid") == 0 ? COOL_LIQUID : -1;
	if (cool < 0) {
		jv_subpath(q2, sizeof q2, q, "cooling");
		return jv_fail(v, q2, "expected \"air\" or \"liquid\", got \"%s\"", cooling);
	}
	int t = cluster_find_type(cl, type);
	if (t < 0) {
		char known[512] = "";
		size_t off = 0;
		for (int32_t k = 0; k < cl->ntypes && off < sizeof known; k++)
			off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", k ? ", " : "", cl->types[k].name);
		jv_subpath(q2, sizeof q2, q, "type");
		if (cl->ntypes == 0)
			return jv_fail(v, q2, "unknown node type \"%s\" (the scenario has no node_types)", type);
		return jv_fail(v, q2, "unknown node type \"%s\" ($.node_types has: %s)", type, known);
	}
	if (L->joined + count > FAULT_JOIN_NODES_MAX)
		return jv_fail(v, q, "too many joining nodes (at most %d in all node_join events)", FAULT_JOIN_NODES_MAX);
	if (cl->nnodes + count > HL_MAX_NODES || cl->nracks >= HL_MAX_RACKS)
		return jv_fail(v, q, "the cluster would have more than %d nodes or %d racks with this join "
		               "(the most one scenario may hold)", HL_MAX_NODES, HL_MAX_RACKS);
	int rk = cluster_add_rack(cl, rack, kw * 1000, cool);
	if (rk < 0 || cluster_add_nodes(cl, rk, t, (int)count))
		return jv_fail(v, q, "out of memory");
	L->joined += count;
	for (int32_t n = cl->racks[rk].first_node; n < cl->nnodes; n++) {
		struct fault_event fe = { .at_us = at, .kind = FEV_JOIN, .fault = -1, .node = n, .gpu = -1,
		                          .value = 0, .repair_s = -1 };
		if (push(L, &fe, i, true))
			return -1;
	}
	return 0;
}

static int load_fail(struct evload *L, const json_t *e, const char *p, size_t i)
{
	struct jv *v = L->v;
	char q[128];
	struct fault_event fe = { .kind = FEV_FAULT, .gpu = -1, .repair_s = -1 };
	if (jv_object(v, e, p, fail_keys) || load_at(v, e, p, &fe.at_us))
		return -1;
	json_t *x = json_object_get(e, "fail");
	jv_subpath(q, sizeof q, p, "fail");
	if (!json_is_string(x))
		return jv_fail(v, q, "expected a fault kind (one of: %s), got %s", kinds_list, jv_type(x));
	int k = fault_kind_parse(json_string_value(x));
	if (k < 0)
		return jv_fail(v, q, "unknown fault kind \"%s\" (expected one of: %s)", json_string_value(x), kinds_list);
	fe.fault = k;
	jv_subpath(q, sizeof q, p, "node");
	if ((fe.node = find_node(L, json_object_get(e, "node"), q)) < 0 || check_joined(L, fe.node, fe.at_us, p))
		return -1;
	const struct node *nd = &L->cl->nodes[fe.node];
	if (kind_on_gpu(k)) {
		long long g = 0;
		if (nd->ngpus <= 0)
			return jv_fail(v, q, "node \"%s\" has no GPUs (a %s fault hits one)", nd->name, fault_kind_name(k));
		jv_subpath(q, sizeof q, p, "gpu");
		json_t *gx = json_object_get(e, "gpu");
		if (gx && json_is_integer(gx) && (json_integer_value(gx) < 0 || json_integer_value(gx) >= nd->ngpus))
			return jv_fail(v, q, "expected an integer in [0, %d] (node \"%s\" has %d GPUs), got %lld",
			               (int)nd->ngpus - 1, nd->name, (int)nd->ngpus, (long long)json_integer_value(gx));
		if (jv_int(v, e, p, "gpu", false, 0, nd->ngpus - 1, &g))
			return -1;
		fe.gpu = (int32_t)g;
	} else if (json_object_get(e, "gpu")) {
		jv_subpath(q, sizeof q, p, "gpu");
		return jv_fail(v, q, "a %s fault hits the whole node (gpu is only for gpu_xid and gpu_degrade)",
		               fault_kind_name(k));
	}
	if (kind_has_value(k)) {
		fe.value = L->c->proc[k].value;
		if (pos_num(v, e, p, "value", false, 1, &fe.value))
			return -1;
	} else if (json_object_get(e, "value")) {
		jv_subpath(q, sizeof q, p, "value");
		return jv_fail(v, q, "a %s fault has no value (only gpu_degrade and nic have one)", fault_kind_name(k));
	}
	double h = -1;
	if (pos_num(v, e, p, "repair_h", false, REPAIR_H_MAX, &h))
		return -1;
	fe.repair_s = h > 0 ? h * 3600 : -1;
	return push(L, &fe, i, false);
}

static int load_leave(struct evload *L, const json_t *e, const char *p, size_t i)
{
	char q[128], a[32];
	struct fault_event fe = { .kind = FEV_LEAVE, .fault = -1, .gpu = -1, .value = 0, .repair_s = -1 };
	if (jv_object(L->v, e, p, leave_keys) || load_at(L->v, e, p, &fe.at_us))
		return -1;
	jv_subpath(q, sizeof q, p, "node_leave");
	if ((fe.node = find_node(L, json_object_get(e, "node_leave"), q)) < 0 ||
	    check_joined(L, fe.node, fe.at_us, p))
		return -1;
	struct node_life *l = &L->life[fe.node];
	if (l->leave_src >= 0)
		return jv_fail(L->v, q, "node \"%s\" already leaves at %s ($.events[%lld])", L->cl->nodes[fe.node].name,
		               fmt_at(a, sizeof a, l->leave_us), (long long)l->leave_src);
	l->leave_us = fe.at_us;
	l->leave_src = (int64_t)i;
	return push(L, &fe, i, false);
}

/* A drain: the node takes no new job from at for hours (to the end of the
 * run without), its running jobs go on; then it is back in service. */
static int load_drain(struct evload *L, const json_t *e, const char *p, size_t i)
{
	char q[128];
	struct fault_event fe = { .kind = FEV_DRAIN, .fault = -1, .gpu = -1, .value = 0, .repair_s = -1 };
	if (jv_object(L->v, e, p, drain_keys) || load_at(L->v, e, p, &fe.at_us))
		return -1;
	jv_subpath(q, sizeof q, p, "node_drain");
	if ((fe.node = find_node(L, json_object_get(e, "node_drain"), q)) < 0 || check_joined(L, fe.node, fe.at_us, p))
		return -1;
	double h = -1;
	if (pos_num(L->v, e, p, "hours", false, REPAIR_H_MAX, &h))
		return -1;
	fe.repair_s = h > 0 ? h * 3600 : -1;
	if (push(L, &fe, i, false))
		return -1;
	if (h <= 0)
		return 0;
	struct fault_event re = fe;
	re.kind = FEV_RESUME;
	re.at_us = fe.at_us + simtime_from_s(h * 3600);
	return push(L, &re, i, false);
}

/* Builds the name index and per-node record once every node exists. */
static int index_nodes(struct evload *L)
{
	const struct cluster *cl = L->cl;
	L->idx = malloc((size_t)cl->nnodes * sizeof *L->idx + 1);
	L->life = malloc((size_t)cl->nnodes * sizeof *L->life + 1);
	if (!L->idx || !L->life)
		return jv_fail(L->v, "$.events", "out of memory");
	for (int32_t k = 0; k < cl->nnodes; k++) {
		L->idx[k] = (struct byname){ cl->nodes[k].name, k };
		L->life[k] = (struct node_life){ .join_us = 0, .leave_us = -1, .join_src = -1, .leave_src = -1 };
	}
	qsort(L->idx, (size_t)cl->nnodes, sizeof *L->idx, byname_cmp);
	for (size_t k = 0; k < L->nev; k++) {   /* only joins so far */
		struct node_life *l = &L->life[L->ev[k].e.node];
		l->join_us = L->ev[k].e.at_us;
		l->join_src = (int64_t)L->ev[k].idx;
	}
	return 0;
}

static int load_events(struct jv *v, struct cluster *cl, const json_t *root, struct fault_cfg *c)
{
	json_t *arr = jv_array(v, root, "$", "events", false), *e;
	if (v->failed)
		return -1;
	size_t n = json_array_size(arr), i;
	if (n == 0)
		return 0;
	if (n > FAULT_EVENTS_MAX)
		return jv_fail(v, "$.events", "too many events (at most %d)", FAULT_EVENTS_MAX);
	struct evload L = { .v = v, .cl = cl, .c = c };
	char p[64], a[32], b[32];
	/* Joins first, so that other events may name the nodes they add. */
	json_array_foreach(arr, i, e) {
		jv_idxpath(p, sizeof p, "$.events", i);
		int kind = event_kind(v, e, p);
		if (kind == -1 || (kind == EK_JOIN && load_join(&L, e, p, i)))
			goto fail;
	}
	if (index_nodes(&L))
		goto fail;
	json_array_foreach(arr, i, e) {
		jv_idxpath(p, sizeof p, "$.events", i);
		int kind = event_kind(v, e, p);
		if ((kind == EK_FAIL && load_fail(&L, e, p, i)) || (kind == EK_LEAVE && load_leave(&L, e, p, i)) ||
		    (kind == EK_DRAIN && load_drain(&L, e, p, i)))
			goto fail;
	}
	/* No fault after the node has left (every leave is known now). */
	for (size_t k = 0; k < L.nev; k++) {
		const struct fault_event *fe = &L.ev[k].e;
		const struct node_life *l = &L.life[fe->node];
		if ((fe->kind != FEV_FAULT && fe->kind != FEV_DRAIN) || l->leave_src < 0 || fe->at_us < l->leave_us)
			continue;
		jv_idxpath(p, sizeof p, "$.events", L.ev[k].idx);
		jv_fail(v, p, "node \"%s\" leaves at %s ($.events[%lld]); a %s at %s comes at or after that",
		        cl->nodes[fe->node].name, fmt_at(a, sizeof a, l->leave_us), (long long)l->leave_src,
		        fe->kind == FEV_DRAIN ? "drain" : "fault",
		        fmt_at(b, sizeof b, fe->at_us));
		goto fail;
	}
	if (L.nev > 0) {
		qsort(L.ev, L.nev, sizeof *L.ev, cmp_event);
		/* one drain of a node at a time (sorted: in time order) */
		simtime *until = malloc((size_t)cl->nnodes * sizeof *until + 1);
		int64_t *src = malloc((size_t)cl->nnodes * sizeof *src + 1);
		if (!until || !src) {
			free(until);
			free(src);
			jv_fail(v, "$.events", "out of memory");
			goto fail;
		}
		for (int32_t k = 0; k < cl->nnodes; k++)
			src[k] = -1;
		for (size_t k = 0; k < L.nev; k++) {
			const struct fault_event *fe = &L.ev[k].e;
			if (fe->kind != FEV_DRAIN)
				continue;
			if (src[fe->node] >= 0 && until[fe->node] > fe->at_us) {
				jv_idxpath(p, sizeof p, "$.events", L.ev[k].idx);
				jv_fail(v, p, "node \"%s\" is still drained at %s by $.events[%lld] (%s%s): one drain of a "
				        "node at a time", cl->nodes[fe->node].name, fmt_at(a, sizeof a, fe->at_us),
				        (long long)src[fe->node], until[fe->node] == SIMTIME_INF ? "no end" : "until ",
				        until[fe->node] == SIMTIME_INF ? "" : fmt_at(b, sizeof b, until[fe->node]));
				free(until);
				free(src);
				goto fail;
			}
			src[fe->node] = (int64_t)L.ev[k].idx;
			until[fe->node] = fe->repair_s >= 0 ? fe->at_us + simtime_from_s(fe->repair_s) : SIMTIME_INF;
		}
		free(until);
		free(src);
		if (!(c->ev = malloc(L.nev * sizeof *c->ev))) {
			jv_fail(v, "$.events", "out of memory");
			goto fail;
		}
		for (size_t k = 0; k < L.nev; k++)
			c->ev[k] = L.ev[k].e;
		c->nev = (int32_t)L.nev;
	}
	free(L.ev);
	free(L.idx);
	free(L.life);
	return 0;
fail:
	free(L.ev);
	free(L.idx);
	free(L.life);
	return -1;
}

int fault_load(struct jv *v, struct cluster *cl, const json_t *root, struct fault_cfg *c)
{
	fault_cfg_init(c);
	if (v->failed)
		return -1;
	int32_t nracks = cl->nracks, nnodes = cl->nnodes, nleaves = cl->nleaves;
	json_t *x;
	if ((x = json_object_get(root, "failures")) && load_failures(v, x, c))
		goto fail;
	if ((x = json_object_get(root, "health")) && load_health(v, x, &c->health))
		goto fail;
	if (load_events(v, cl, root, c))
		goto fail;
	return 0;
fail:
	/* Take the joined racks and nodes back off (their arrays keep their
	 * size; cluster_fini frees them). */
	cl->nracks = nracks;
	cl->nnodes = nnodes;
	cl->nleaves = nleaves;
	fault_cfg_fini(c);
	return -1;
}
