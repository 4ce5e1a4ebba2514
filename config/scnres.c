/* scnres — heterogeneous-resource blocks of a scenario. See scnres.h. */
#include "config/scnres.h"
#include "sim/engine.h"
#include "sim/mig.h"
#include "config/migcfg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const pool_keys[] = { "name", "kind", "capacity_tib", "bandwidth_gbps", "admit",
	"io_fraction", "exclusive_class", NULL };
static const char *const share_keys[] = { "limit", "admit", "switch_cost", "mig_create_s",
	"mig_reslice_s", NULL };
static const char *const net_keys[] = { "spine_penalty", "mixed_penalty", NULL };
static const char *const spine_keys[] = { "ib", "roce", "eth", NULL };
static const char *const place_keys[] = { "strategy", "label_blind", NULL };
static const char *const mig_keys[] = { "cards", "layout", NULL };
static const char *const ckpt_keys[] = { "every_s", "cost_s", "size_gib", "pool", "restart_s", "grace_s", NULL };

static int load_pool(struct jv *v, struct cluster *cl, const json_t *o, const char *p)
{
	struct storage_pool sp;
	char kind[16] = "", cls[16] = "";
	double tib = 0, gbps = 0;
	memset(&sp, 0, sizeof sp);
	sp.admit = 1.0;
	sp.io_fraction = 0.3;
	sp.exclusive_class = -1;
	if (jv_object(v, o, p, pool_keys) ||
	    jv_str(v, o, p, "name", true, sp.name, sizeof sp.name) ||
	    jv_str(v, o, p, "kind", true, kind, sizeof kind) ||
	    jv_num(v, o, p, "capacity_tib", true, 0, 1e9, &tib) ||
	    jv_num(v, o, p, "bandwidth_gbps", true, 1e-6, 1e9, &gbps) ||
	    jv_num(v, o, p, "admit", false, 1, 100, &sp.admit) ||
	    jv_num(v, o, p, "io_fraction", false, 0, 1, &sp.io_fraction) ||
	    jv_str(v, o, p, "exclusive_class", false, cls, sizeof cls))
		return -1;
	char q[256];
	static const char *const kinds[POOL_NKIND] = { "nvme", "hdd", "backup" };
	sp.kind = -1;
	for (int k = 0; k < POOL_NKIND; k++)
		if (strcmp(kind, kinds[k]) == 0)
			sp.kind = k;
	if (sp.kind < 0) {
		jv_subpath(q, sizeof q, p, "kind");
		return jv_fail(v, q, "expected \"nvme\", \"hdd\" or \"backup\", got \"%s\"", kind);
	}
	if (cls[0] && (sp.exclusive_class = job_class_parse(cls)) < 0) {
		jv_subpath(q, sizeof q, p, "exclusive_class");
		return jv_fail(v, q, "expected a job class (training, inference, batch, dev), got \"%s\"", cls);
	}
	if (cluster_pool_index(cl, sp.name) >= 0)
		return jv_fail(v, p, "storage pool \"%s\" defined twice", sp.name);
	sp.cap_gib = (int64_t)llround(tib * 1024);
	sp.bw_mbps = gbps * 1000;
	if (cluster_add_pool(cl, &sp) < 0)
		return jv_fail(v, p, "too many storage pools (at most %d)", HL_POOLS_MAX);
	return 0;
}

static int load_sharing(struct jv *v, struct cluster *cl, const json_t *o)
{
	const char *p = "$.gpu_sharing";
	long long limit = cl->share.limit;
	double create_s = simtime_to_s(cl->share.mig_create_us), reslice_s = simtime_to_s(cl->share.mig_reslice_us);
	if (jv_object(v, o, p, share_keys) ||
	    jv_int(v, o, p, "limit", false, 1, HL_SHARE_MAX, &limit) ||
	    jv_num(v, o, p, "admit", false, 1, 16, &cl->share.admit) ||
	    jv_num(v, o, p, "switch_cost", false, 0, 0.5, &cl->share.switch_cost) ||
	    jv_num(v, o, p, "mig_create_s", false, 0, 86400, &create_s) ||
	    jv_num(v, o, p, "mig_reslice_s", false, 0, 86400, &reslice_s))
		return -1;
	cl->share.limit = (int32_t)limit;
	cl->share.mig_create_us = simtime_from_s(create_s);
	cl->share.mig_reslice_us = simtime_from_s(reslice_s);
	return 0;
}

static int load_network(struct jv *v, struct cluster *cl, const json_t *o)
{
	const char *p = "$.network";
	if (jv_object(v, o, p, net_keys) ||
	    jv_num(v, o, p, "mixed_penalty", false, 0, 100, &cl->net.mixed))
		return -1;
	json_t *sp = json_object_get(o, "spine_penalty");
	if (!sp)
		return 0;
	const char *q = "$.network.spine_penalty";
	if (!json_is_object(sp))
		return jv_fail(v, q, "expected an object of plane kind: penalty, got %s", jv_type(sp));
	return jv_object(v, sp, q, spine_keys) ||
	       jv_num(v, sp, q, "ib", false, 0, 100, &cl->net.spine[PLANE_IB]) ||
	       jv_num(v, sp, q, "roce", false, 0, 100, &cl->net.spine[PLANE_ROCE]) ||
	       jv_num(v, sp, q, "eth", false, 0, 100, &cl->net.spine[PLANE_ETH]) ? -1 : 0;
}

static int load_placement(struct jv *v, const json_t *o, struct scn_place *pl)
{
	const char *p = "$.placement";
	if (json_is_string(o)) {
		snprintf(pl->strategy, sizeof pl->strategy, "%s", json_string_value(o));
		return 0;
	}
	if (!json_is_object(o))
		return jv_fail(v, p, "expected a strategy name or {\"strategy\": ..., \"label_blind\": ...}, got %s",
		               jv_type(o));
	return jv_object(v, o, p, place_keys) ||
	       jv_str(v, o, p, "strategy", false, pl->strategy, sizeof pl->strategy) ||
	       jv_bool(v, o, p, "label_blind", &pl->label_blind) ? -1 : 0;
}

int scnres_load_top(struct jv *v, struct cluster *cl, const json_t *root, struct scn_place *pl)
{
	json_t *pools = jv_array(v, root, "$", "storage_pools", false), *e;
	size_t i;
	if (v->failed)
		return -1;
	json_array_foreach(pools, i, e) {
		char p[64];
		jv_idxpath(p, sizeof p, "$.storage_pools", i);
		if (load_pool(v, cl, e, p))
			return -1;
	}
	json_t *o;
	if ((o = json_object_get(root, "gpu_sharing"))) {
		if (!json_is_object(o))
			return jv_fail(v, "$.gpu_sharing", "expected an object, got %s", jv_type(o));
		if (load_sharing(v, cl, o))
			return -1;
	}
	if ((o = json_object_get(root, "network"))) {
		if (!json_is_object(o))
			return jv_fail(v, "$.network", "expected an object, got %s", jv_type(o));
		if (load_network(v, cl, o))
			return -1;
	}
	double oom_s = simtime_to_s(cl->oom_after_us);
	if (jv_num(v, root, "$", "oom_after_s", false, 0, 86400, &oom_s))
		return -1;
	cl->oom_after_us = simtime_from_s(oom_s);
	if ((o = json_object_get(root, "placement")) && load_placement(v, o, pl))
		return -1;
	return 0;
}

/* Free-form labels: an object of string / number / bool values, kept as
 * "k=v\0k=v\0\0" (the form node_type.labels and rack.labels hold). */
static int load_labels(struct jv *v, const json_t *o, const char *path, char **out)
{
	json_t *lb = json_object_get(o, "labels");
	char q[256];
	if (!lb)
		return 0;
	jv_subpath(q, sizeof q, path, "labels");
	if (!json_is_object(lb))
		return jv_fail(v, q, "expected an object of label: value, got %s", jv_type(lb));
	size_t len = 0;
	const char *k;
	json_t *e;
	json_object_foreach(lb, k, e) {
		char val[256];
		if (json_is_string(e))
			snprintf(val, sizeof val, "%s", json_string_value(e));
		else if (json_is_number(e))
			snprintf(val, sizeof val, "%g", json_number_value(e));
		else if (json_is_boolean(e))
			snprintf(val, sizeof val, "%s", json_is_true(e) ? "true" : "false");
		else {
			char q2[300];
			snprintf(q2, sizeof q2, "%s.%s", q, k);
			return jv_fail(v, q2, "expected a string, number or boolean, got %s", jv_type(e));
		}
		if (!k[0] || strchr(k, '='))
			return jv_fail(v, q, "label name \"%s\" is empty or holds '='", k);
		/* "k=v\0" appended, and the list's final \0 after it */
		size_t need = strlen(k) + 1 + strlen(val) + 1;
		char *nb = realloc(*out, len + need + 1);
		if (!nb)
			return jv_fail(v, q, "out of memory");
		*out = nb;
		snprintf(nb + len, need, "%s=%s", k, val);
		len += need;
		nb[len] = 0;
	}
	return 0;
}

int scnres_load_type(struct jv *v, struct cluster *cl, const json_t *o, const char *path,
                     struct node_type *t)
{
	long long numa = 0;
	char q[256];
	if (jv_int(v, o, path, "numa", false, 1, HL_NUMA_MAX, &numa))
		return -1;
	t->numa = (int32_t)numa;
	json_t *st = jv_array(v, o, path, "storage", false), *e;
	size_t i;
	if (v->failed)
		return -1;
	jv_subpath(q, sizeof q, path, "storage");
	json_array_foreach(st, i, e) {
		char q2[300];
		jv_idxpath(q2, sizeof q2, q, i);
		int k = json_is_string(e) ? cluster_pool_index(cl, json_string_value(e)) : -1;
		if (!json_is_string(e))
			return jv_fail(v, q2, "expected a storage pool name, got %s", jv_type(e));
		if (k < 0)
			return jv_fail(v, q2, "unknown storage pool \"%s\" (not in $.storage_pools)", json_string_value(e));
		t->pools |= 1u << k;
	}
	json_t *mig = json_object_get(o, "mig");
	if (mig) {
		char mp[256];
		jv_subpath(mp, sizeof mp, path, "mig");
		if (!json_is_object(mig))
			return jv_fail(v, mp, "expected {\"cards\": N or \"all\", \"layout\": [profile, ...]}, got %s",
			               jv_type(mig));
		if (jv_object(v, mig, mp, mig_keys))
			return -1;
		if (t->gpu_model < 0 || !cl->cat.gpus[t->gpu_model].mig)
			return jv_fail(v, mp, "the node type's GPU is not MIG capable");
		if (!cl->mig) {
			char why[512];
			if (!(cl->mig = calloc(1, sizeof *cl->mig)))
				return jv_fail(v, mp, "out of memory");
			if (mig_load_builtin(cl->mig, why, sizeof why))
				return jv_fail(v, mp, "MIG geometry: %s", why);
		}
		const char *gname = cl->cat.gpus[t->gpu_model].name;
		const struct mig_card *card = mig_find_card(cl->mig, gname);
		if (!card)
			return jv_fail(v, mp, "no MIG geometry for %s (scenarios/catalog/mig.json)", gname);
		json_t *c = json_object_get(mig, "cards");
		char cq[300];
		jv_subpath(cq, sizeof cq, mp, "cards");
		if (!c || (json_is_string(c) && strcmp(json_string_value(c), "all") == 0))
			t->mig_cards = t->gpus;
		else if (json_is_integer(c) && json_integer_value(c) >= 0 && json_integer_value(c) <= t->gpus)
			t->mig_cards = (int32_t)json_integer_value(c);
		else
			return jv_fail(v, cq, "expected \"all\" or a count from 0 to %d", t->gpus);
		json_t *lay = jv_array(v, mig, mp, "layout", false);
		if (v->failed)
			return -1;
		char lq[300];
		jv_subpath(lq, sizeof lq, mp, "layout");
		struct mig_layout probe;
		mig_layout_init(&probe, card, 0);
		json_array_foreach(lay, i, e) {
			char eq[320];
			jv_idxpath(eq, sizeof eq, lq, i);
			int prof = json_is_string(e) ? mig_find_profile(card, json_string_value(e)) : -1;
			if (prof < 0) {
				char known[512] = "";
				size_t off = 0;
				for (int k = 0; k < card->nprofiles && off < sizeof known; k++)
					off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", k ? ", " : "",
					                        card->profiles[k].name);
				return jv_fail(v, eq, "expected a MIG profile of %s (%s)", gname, known);
			}
			int stt = mig_first_fit(&probe, prof);
			if (i >= 8 || stt < 0 || mig_place(&probe, prof, stt) < 0)
				return jv_fail(v, eq, "%s does not fit beside the profiles before it on one %s",
				               json_string_value(e), gname);
			t->mig_layout[t->mig_nlayout++] = (int8_t)prof;
		}
	}
	return load_labels(v, o, path, &t->labels);
}

int scnres_load_rack(struct jv *v, struct cluster *cl, const json_t *o, const char *path, int rk)
{
	char leaf[HL_NAME_MAX] = "";
	if (jv_str(v, o, path, "leaf", false, leaf, sizeof leaf))
		return -1;
	if (leaf[0] && cluster_set_leaf(cl, rk, leaf) < 0)
		return jv_fail(v, path, "out of memory");
	return load_labels(v, o, path, &cl->racks[rk].labels);
}

int scnres_load_ckpt(struct jv *v, const struct cluster *cl, const json_t *root, struct ckpt_cfg *out)
{
	/* Defaults: a grace of 60 s (Slurm GraceTime is per partition/QOS; a
	 * minute lets a small checkpoint finish), no periodic checkpoints. */
	for (int c = 0; c < JOB_NCLASS; c++)
		out[c] = (struct ckpt_cfg){ .grace_us = 60 * SIMTIME_SEC };
	json_t *o = json_object_get(root, "checkpoint");
	if (!o)
		return 0;
	const char *p = "$.checkpoint";
	if (!json_is_object(o))
		return jv_fail(v, p, "expected an object of job class: settings, got %s", jv_type(o));
	const char *k;
	json_t *e;
	json_object_foreach(o, k, e) {
		char q[128];
		snprintf(q, sizeof q, "%s.%s", p, k);
		int c = job_class_parse(k);
		if (c < 0)
			return jv_fail(v, q, "unknown job class \"%s\" (expected training, inference, batch or dev)", k);
		if (!json_is_object(e))
			return jv_fail(v, q, "expected an object, got %s", jv_type(e));
		double every = 0, cost = -1, size = 0, restart = 0, grace = 60;
		char pool[HL_NAME_MAX] = "";
		if (jv_object(v, e, q, ckpt_keys) ||
		    jv_num(v, e, q, "every_s", false, 0, 1e9, &every) ||
		    jv_num(v, e, q, "cost_s", false, 0, 1e7, &cost) ||
		    jv_num(v, e, q, "size_gib", false, 0, 1e9, &size) ||
		    jv_str(v, e, q, "pool", false, pool, sizeof pool) ||
		    jv_num(v, e, q, "restart_s", false, 0, 1e7, &restart) ||
		    jv_num(v, e, q, "grace_s", false, 0, 1e7, &grace))
			return -1;
		if (cost >= 0 && (size > 0 || pool[0]))
			return jv_fail(v, q, "give either \"cost_s\" or \"size_gib\" with \"pool\", not both");
		if (cost < 0 && size > 0) {
			int pi = pool[0] ? cluster_pool_index(cl, pool) : -1;
			if (pi < 0)
				return jv_fail(v, q, "\"size_gib\" needs \"pool\", a storage pool of $.storage_pools%s%s%s",
				               pool[0] ? " (not \"" : "", pool, pool[0] ? "\")" : "");
			/* Written at the pool's full bandwidth: GiB → MB / (MB/s). */
			cost = size * 1073.741824 / cl->pools[pi].bw_mbps;
		}
		out[c].every_us = simtime_from_s(every);
		out[c].cost_us = simtime_from_s(cost > 0 ? cost : 0);
		out[c].restart_us = simtime_from_s(restart);
		out[c].grace_us = simtime_from_s(grace);
	}
	return 0;
}

int scnres_load_notify(struct jv *v, const json_t *root, struct scn_notify *n)
{
	static const char *const keys[] = { "log", "command", NULL };
	const char *p = "$.notify";
	json_t *o = json_object_get(root, "notify");
	memset(n, 0, sizeof *n);
	if (!o)
		return 0;
	if (!json_is_object(o))
		return jv_fail(v, p, "expected {\"log\": true, \"command\": [\"prog\", ...]}, got %s", jv_type(o));
	if (jv_object(v, o, p, keys) || jv_bool(v, o, p, "log", &n->log))
		return -1;
	json_t *cmd = jv_array(v, o, p, "command", false), *e;
	if (v->failed)
		return -1;
	if (!cmd)
		return 0;
	size_t i, len = json_array_size(cmd);
	if (len == 0 || len > 32)
		return jv_fail(v, "$.notify.command", "expected 1 to 32 strings (program and arguments), got %zu", len);
	if (!(n->argv = calloc(len + 1, sizeof *n->argv)))
		return jv_fail(v, p, "out of memory");
	json_array_foreach(cmd, i, e) {
		char q[64];
		jv_idxpath(q, sizeof q, "$.notify.command", i);
		if (!json_is_string(e) || !json_string_value(e)[0])
			return jv_fail(v, q, "expected a non-empty string, got %s", jv_type(e));
		if (!(n->argv[i] = strdup(json_string_value(e))))
			return jv_fail(v, p, "out of memory");
	}
	return 0;
}

void scnres_notify_free(struct scn_notify *n)
{
	for (size_t i = 0; n->argv && n->argv[i]; i++)
		free(n->argv[i]);
	free(n->argv);
	n->argv = NULL;
}
