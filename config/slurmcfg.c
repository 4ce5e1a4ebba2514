/* slurmcfg — the scenario's "slurm" block into struct slurm_cfg. See
 * slurmcfg.h and docs/scenario.md "slurm"; the bind is slurmbind.c. */
#include "config/slurmcfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLURM_MAX_ENTRIES 1000000   /* partitions, QOS, accounts, users, weights each */

static const char *const top_keys[] = { "cr_memory", "def_mem_per_cpu_mib", "def_mem_per_node_mib",
	"partitions", "qos", "accounts", "users", "node_weights", NULL };
static const char *const part_keys[] = { "name", "nodes", "default", "priority_tier",
	"priority_job_factor", "max_time_s", "default_time_s", "def_mem_per_cpu_mib",
	"def_mem_per_node_mib", "max_nodes", "over_time_limit_min", "qos", "exclusive", "state", NULL };
static const char *const qos_keys[] = { "name", "priority", "preempt", "preempt_mode", "grace_s",
	"preempt_exempt_s", "usage_factor", "flags", "limits", NULL };
static const char *const acct_keys[] = { "name", "parent", "shares", "priority", "default_qos", "limits", NULL };
static const char *const user_keys[] = { "name", "account", "shares", "priority", "default_qos", "limits", NULL };
static const char *const lim_keys[] = { "grp_tres", "grp_jobs", "max_tres_per_user", "max_tres_per_job",
	"max_jobs", "max_submit", "max_wall_s", NULL };
static const char *const tres_keys[] = { "cpu", "mem_mib", "node", "gpu", NULL };   /* enum slurm_tres order */
static const char *const flag_names[] = { "DenyOnLimit", "NoReserve", "OverPartQOS", "PartitionTimeLimit", NULL };

void slurm_cfg_init(struct slurm_cfg *c)
{
	memset(c, 0, sizeof *c);
	c->cr_memory = true;
}

void slurm_cfg_fini(struct slurm_cfg *c)
{
	for (int32_t i = 0; i < c->npart; i++) {
		for (int32_t k = 0; k < c->part[i].nnode_names; k++)
			free(c->part[i].node_names[k]);
		free(c->part[i].node_names);
		free(c->part[i].nodes);
	}
	free(c->part);
	for (int32_t i = 0; i < c->nqos; i++)
		free(c->qos[i].preempt);
	free(c->qos);
	free(c->assoc);
	free(c->users);
	free(c->accounts);
	free(c->node_weight);
	for (int32_t i = 0; i < c->nweights; i++)
		free(c->weight_nodes[i]);
	free(c->weight_nodes);
	free(c->weight_of);
	free(c->part_of);
	free(c->qos_of);
	free(c->user_of);
	free(c->acct_of);
	slurm_cfg_init(c);
}

static void limits_init(struct slurm_limits *l)
{
	for (int t = 0; t < STRES_N; t++)
		l->max_tres_pu[t] = l->max_tres_pj[t] = l->grp_tres[t] = SLURM_UNLIMITED;
	l->max_jobs_pu = l->grp_jobs = l->max_submit_pu = SLURM_UNLIMITED;
	l->max_wall_s = SLURM_UNLIMITED;
}

/* A name of 1 to SLURM_NAME_MAX - 1 bytes at o.key. */
static int load_name(struct jv *v, const json_t *o, const char *p, const char *key, bool required, char *out)
{
	out[0] = '\0';
	if (jv_str(v, o, p, key, required, out, SLURM_NAME_MAX))
		return -1;
	if (json_object_get(o, key) && !out[0]) {
		char q[320];
		jv_subpath(q, sizeof q, p, key);
		return jv_fail(v, q, "expected a name (1 to %d bytes), got \"\"", SLURM_NAME_MAX - 1);
	}
	return 0;
}

static int32_t find_in(const char (*names)[SLURM_NAME_MAX], int32_t n, const char *s)
{
	for (int32_t i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

static int32_t find_qos(const struct slurm_cfg *c, const char *s)
{
	for (int32_t i = 0; i < c->nqos; i++)
		if (strcmp(c->qos[i].name, s) == 0)
			return i;
	return -1;
}

static void qos_list(const struct slurm_cfg *c, char *out, size_t len)
{
	size_t off = 0;
	out[0] = '\0';
	for (int32_t i = 0; i < c->nqos && off < len; i++)
		off += (size_t)snprintf(out + off, len - off, "%s%s", i ? ", " : "", c->qos[i].name);
}

/* o.key names a QOS: its index into *out (-1 when absent). */
static int qos_ref(struct jv *v, const struct slurm_cfg *c, const json_t *o, const char *p,
                   const char *key, int32_t *out)
{
	char name[SLURM_NAME_MAX], q[320], all[512];
	*out = -1;
	if (load_name(v, o, p, key, false, name))
		return -1;
	if (!name[0])
		return 0;
	if ((*out = find_qos(c, name)) >= 0)
		return 0;
	jv_subpath(q, sizeof q, p, key);
	qos_list(c, all, sizeof all);
	return jv_fail(v, q, "unknown QOS \"%s\" (the \"qos\" list has: %s)", name, all);
}

static int load_tres(struct jv *v, const json_t *o, const char *p, const char *key, int64_t *out)
{
	char q[320];
	const json_t *t = json_object_get(o, key);
	if (!t)
		return 0;
	jv_subpath(q, sizeof q, p, key);
	if (jv_object(v, t, q, tres_keys))
		return -1;
	for (int k = 0; k < STRES_N; k++) {
		long long x = SLURM_UNLIMITED;
		if (jv_int(v, t, q, tres_keys[k], false, 0, 1000000000000000LL, &x))
			return -1;
		out[k] = x;
	}
	return 0;
}

static int load_limits(struct jv *v, const json_t *e, const char *p, bool qos, struct slurm_limits *l)
{
	char q[320];
	limits_init(l);
	const json_t *o = json_object_get(e, "limits");
	if (!o)
		return 0;
	jv_subpath(q, sizeof q, p, "limits");
	long long gj = -1, mj = -1, ms = -1, mw = -1;
	if (jv_object(v, o, q, lim_keys) ||
	    load_tres(v, o, q, "grp_tres", l->grp_tres) || load_tres(v, o, q, "max_tres_per_job", l->max_tres_pj) ||
	    load_tres(v, o, q, "max_tres_per_user", l->max_tres_pu) ||
	    jv_int(v, o, q, "grp_jobs", false, 0, INT32_MAX, &gj) ||
	    jv_int(v, o, q, "max_jobs", false, 0, INT32_MAX, &mj) ||
	    jv_int(v, o, q, "max_submit", false, 0, INT32_MAX, &ms) ||
	    jv_int(v, o, q, "max_wall_s", false, 0, 1000000000000LL, &mw))
		return -1;
	if (!qos && json_object_get(o, "max_tres_per_user")) {
		char r[360];
		jv_subpath(r, sizeof r, q, "max_tres_per_user");
		return jv_fail(v, r, "a QOS limit (MaxTRESPerUser): an association has none");
	}
	l->grp_jobs = (int32_t)gj;
	l->max_jobs_pu = (int32_t)mj;
	l->max_submit_pu = (int32_t)ms;
	l->max_wall_s = mw;
	return 0;
}

/* An array at o.key of at most SLURM_MAX_ENTRIES entries, its length in *n. */
static json_t *entries(struct jv *v, const json_t *o, const char *key, bool required, size_t *n)
{
	char p[64];
	json_t *a = jv_array(v, o, "$.slurm", key, required);
	*n = a ? json_array_size(a) : 0;
	if (a && *n > SLURM_MAX_ENTRIES) {
		jv_subpath(p, sizeof p, "$.slurm", key);
		jv_fail(v, p, "more than %d entries", SLURM_MAX_ENTRIES);
		return NULL;
	}
	return a;
}

/* ---- qos --------------------------------------------------------------- */

static int load_qos_one(struct jv *v, struct slurm_cfg *c, const json_t *e, const char *p, struct slurm_qos *q)
{
	char mode[16] = "", r[320];
	long long prio = 0, grace = 0, exempt = SLURM_UNLIMITED;
	double uf = 1;
	memset(q, 0, sizeof *q);
	if (jv_object(v, e, p, qos_keys) || load_name(v, e, p, "name", true, q->name) ||
	    jv_int(v, e, p, "priority", false, 0, UINT32_MAX - 1, &prio) ||
	    jv_str(v, e, p, "preempt_mode", false, mode, sizeof mode) ||
	    jv_int(v, e, p, "grace_s", false, 0, 1000000000, &grace) ||
	    jv_int(v, e, p, "preempt_exempt_s", false, 0, 1000000000, &exempt) ||
	    jv_num(v, e, p, "usage_factor", false, 0, 1e6, &uf) ||
	    load_limits(v, e, p, true, &q->lim))
		return -1;
	if (find_qos(c, q->name) >= 0) {
		jv_subpath(r, sizeof r, p, "name");
		return jv_fail(v, r, "QOS \"%s\" is listed twice", q->name);
	}
	q->priority = (uint32_t)prio;
	q->grace_s = grace;
	q->preempt_exempt_s = exempt;
	q->usage_factor = uf;
	q->preempt_mode = !mode[0] ? SLURM_PM_UNSET : !strcmp(mode, "off") ? SLURM_PM_OFF
	                  : !strcmp(mode, "cancel") ? SLURM_PM_CANCEL : !strcmp(mode, "requeue") ? SLURM_PM_REQUEUE : -1;
	if (q->preempt_mode < 0) {
		jv_subpath(r, sizeof r, p, "preempt_mode");
		return jv_fail(v, r, "expected \"off\", \"cancel\" or \"requeue\", got \"%s\"", mode);
	}
	const json_t *fl = jv_array(v, e, p, "flags", false), *f;
	size_t i;
	jv_subpath(r, sizeof r, p, "flags");
	json_array_foreach(fl, i, f) {
		char s[360];
		jv_idxpath(s, sizeof s, r, i);
		int k = 0;
		while (flag_names[k] && !(json_is_string(f) && !strcmp(flag_names[k], json_string_value(f))))
			k++;
		if (!flag_names[k])
			return jv_fail(v, s, "expected one of DenyOnLimit, NoReserve, OverPartQOS, PartitionTimeLimit, "
			               "got %s%s%s", json_is_string(f) ? "\"" : "",
			               json_is_string(f) ? json_string_value(f) : jv_type(f), json_is_string(f) ? "\"" : "");
		q->flags |= 1u << k;
	}
	return v->failed ? -1 : 0;
}

/* The "preempt" lists, once every QOS is known. */
static int load_preempt(struct jv *v, struct slurm_cfg *c, const json_t *arr)
{
	char p[64], r[128], s[160], all[512];
	for (int32_t i = 0; i < c->nqos; i++) {
		jv_idxpath(p, sizeof p, "$.slurm.qos", (size_t)i);
		const json_t *pl = jv_array(v, json_array_get(arr, (size_t)i), p, "preempt", false), *x;
		if (v->failed)
			return -1;
		if (!pl || !json_array_size(pl))
			continue;
		jv_subpath(r, sizeof r, p, "preempt");
		if (!(c->qos[i].preempt = malloc(json_array_size(pl) * sizeof *c->qos[i].preempt)))
			return jv_fail(v, r, "out of memory");
		size_t k;
		json_array_foreach(pl, k, x) {
			jv_idxpath(s, sizeof s, r, k);
			int32_t j = json_is_string(x) ? find_qos(c, json_string_value(x)) : -1;
			if (j < 0) {
				qos_list(c, all, sizeof all);
				return jv_fail(v, s, "unknown QOS %s%s%s (the \"qos\" list has: %s)", json_is_string(x) ? "\"" : "",
				               json_is_string(x) ? json_string_value(x) : jv_type(x),
				               json_is_string(x) ? "\"" : "", all);
			}
			c->qos[i].preempt[c->qos[i].npreempt++] = j;
		}
	}
	return 0;
}

static int load_qos(struct jv *v, const json_t *o, struct slurm_cfg *c)
{
	size_t n;
	const json_t *arr = entries(v, o, "qos", false, &n);
	if (v->failed)
		return -1;
	if (!(c->qos = calloc(n ? n : 1, sizeof *c->qos)))
		return jv_fail(v, "$.slurm.qos", "out of memory");
	if (n == 0) {   /* Slurm's one QOS */
		snprintf(c->qos[0].name, sizeof c->qos[0].name, "normal");
		c->qos[0].preempt_exempt_s = SLURM_UNLIMITED;
		c->qos[0].usage_factor = 1;
		limits_init(&c->qos[0].lim);
		c->nqos = 1;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		char p[64];
		jv_idxpath(p, sizeof p, "$.slurm.qos", i);
		if (load_qos_one(v, c, json_array_get(arr, i), p, &c->qos[i]))
			return -1;
		c->nqos++;
	}
	c->default_qos = find_qos(c, "normal") >= 0 ? find_qos(c, "normal") : 0;
	return load_preempt(v, c, arr);
}

/* ---- partitions ---------------------------------------------------------- */

static int load_part_nodes(struct jv *v, const json_t *e, const char *p, struct slurm_part *sp)
{
	char q[320], r[360];
	const json_t *nodes = jv_array(v, e, p, "nodes", true), *x;
	if (!nodes)
		return -1;
	jv_subpath(q, sizeof q, p, "nodes");
	if (!json_array_size(nodes))
		return jv_fail(v, q, "expected a non-empty array of host lists (\"n[1-4]\", or \"ALL\")");
	if (!(sp->node_names = calloc(json_array_size(nodes), sizeof *sp->node_names)))
		return jv_fail(v, q, "out of memory");
	size_t k;
	json_array_foreach(nodes, k, x) {
		jv_idxpath(r, sizeof r, q, k);
		if (!json_is_string(x) || !json_string_length(x))
			return jv_fail(v, r, "expected a host list (a non-empty string), got %s", jv_type(x));
		if (!(sp->node_names[k] = strdup(json_string_value(x))))
			return jv_fail(v, r, "out of memory");
		sp->nnode_names++;
	}
	return 0;
}

static int load_part(struct jv *v, struct slurm_cfg *c, const json_t *e, const char *p, struct slurm_part *sp)
{
	long long tier = 1, factor = 1, maxt = SLURM_UNLIMITED, deft = SLURM_UNLIMITED, mpc = 0, mpn = 0;
	long long maxn = SLURM_UNLIMITED, otl = SLURM_UNLIMITED;
	char state[16] = "up", q[320];
	sp->up = true;
	if (jv_object(v, e, p, part_keys) || load_name(v, e, p, "name", true, sp->name) ||
	    load_part_nodes(v, e, p, sp) ||
	    jv_bool(v, e, p, "default", &sp->is_default) ||
	    jv_int(v, e, p, "priority_tier", false, 0, 65533, &tier) ||
	    jv_int(v, e, p, "priority_job_factor", false, 0, 65533, &factor) ||
	    jv_int(v, e, p, "max_time_s", false, 0, 1000000000000LL, &maxt) ||
	    jv_int(v, e, p, "default_time_s", false, 0, 1000000000000LL, &deft) ||
	    jv_int(v, e, p, "def_mem_per_cpu_mib", false, 0, 1LL << 40, &mpc) ||
	    jv_int(v, e, p, "def_mem_per_node_mib", false, 0, 1LL << 40, &mpn) ||
	    jv_int(v, e, p, "max_nodes", false, 0, INT32_MAX, &maxn) ||
	    jv_int(v, e, p, "over_time_limit_min", false, 0, 1000000, &otl) ||
	    qos_ref(v, c, e, p, "qos", &sp->qos) ||
	    jv_bool(v, e, p, "exclusive", &sp->exclusive) ||
	    jv_str(v, e, p, "state", false, state, sizeof state))
		return -1;
	if (strcmp(state, "up") && strcmp(state, "down") && strcmp(state, "drain") && strcmp(state, "inactive")) {
		jv_subpath(q, sizeof q, p, "state");
		return jv_fail(v, q, "expected \"up\", \"down\", \"drain\" or \"inactive\", got \"%s\"", state);
	}
	sp->up = strcmp(state, "up") == 0;
	sp->prio_tier = (uint16_t)tier;
	sp->prio_job_factor = (uint16_t)factor;
	sp->max_time_s = maxt;
	sp->default_time_s = deft;
	sp->def_mem_per_cpu_mib = mpc;
	sp->def_mem_per_node_mib = mpn;
	sp->max_nodes = (int32_t)maxn;
	sp->over_time_limit_min = (int32_t)otl;
	return 0;
}

static int load_parts(struct jv *v, const json_t *o, struct slurm_cfg *c)
{
	size_t n;
	const json_t *arr = entries(v, o, "partitions", true, &n);
	if (!arr)
		return -1;
	if (n == 0)
		return jv_fail(v, "$.slurm.partitions", "expected at least one partition");
	if (!(c->part = calloc(n, sizeof *c->part)))
		return jv_fail(v, "$.slurm.partitions", "out of memory");
	int32_t def = -1;
	for (size_t i = 0; i < n; i++) {
		char p[64], q[96];
		jv_idxpath(p, sizeof p, "$.slurm.partitions", i);
		struct slurm_part *sp = &c->part[c->npart++];
		sp->qos = -1;
		if (load_part(v, c, json_array_get(arr, i), p, sp))
			return -1;
		for (int32_t k = 0; k + 1 < c->npart; k++)
			if (!strcmp(c->part[k].name, sp->name)) {
				jv_subpath(q, sizeof q, p, "name");
				return jv_fail(v, q, "partition \"%s\" is listed twice", sp->name);
			}
		if (sp->is_default) {
			if (def >= 0) {
				jv_subpath(q, sizeof q, p, "default");
				return jv_fail(v, q, "\"%s\" is the default partition already", c->part[def].name);
			}
			def = (int32_t)i;
		}
	}
	c->default_part = def >= 0 ? def : 0;
	return 0;
}

/* ---- accounts and users -------------------------------------------------- */

/* shares, priority, default_qos and limits of an association. */
static int load_assoc_fields(struct jv *v, const struct slurm_cfg *c, const json_t *e, const char *p,
                             struct slurm_assoc *a)
{
	char q[320];
	long long prio = 0;
	a->shares = 1;
	const json_t *sh = json_object_get(e, "shares");
	jv_subpath(q, sizeof q, p, "shares");
	if (json_is_string(sh) && !strcmp(json_string_value(sh), "parent"))
		a->shares = SLURM_FS_PARENT;
	else if (sh && (!json_is_integer(sh) || json_integer_value(sh) < 0 ||
	                json_integer_value(sh) >= (long long)SLURM_FS_PARENT))
		return jv_fail(v, q, "expected an integer in [0, %u] or \"parent\", got %s", SLURM_FS_PARENT - 1,
		               jv_type(sh));
	else if (sh)
		a->shares = (uint32_t)json_integer_value(sh);
	if (jv_int(v, e, p, "priority", false, 0, UINT32_MAX - 1, &prio) ||
	    qos_ref(v, c, e, p, "default_qos", &a->def_qos) || load_limits(v, e, p, false, &a->lim))
		return -1;
	a->priority = (uint32_t)prio;
	return 0;
}

static int add_name(char (**tab)[SLURM_NAME_MAX], int32_t *n, const char *s)
{
	int32_t i = find_in((const char (*)[SLURM_NAME_MAX])*tab, *n, s);
	if (i >= 0)
		return i;
	void *t = realloc(*tab, ((size_t)*n + 1) * sizeof **tab);
	if (!t)
		return -1;
	*tab = t;
	snprintf((*tab)[*n], SLURM_NAME_MAX, "%s", s);
	return (*n)++;
}

/* Accounts in an order where a parent comes first: assoc[0] is root. */
static int load_accounts(struct jv *v, const json_t *o, struct slurm_cfg *c, int32_t **acct_assoc)
{
	size_t n;
	const json_t *arr = entries(v, o, "accounts", false, &n);
	char p[64], q[96];
	if (v->failed)
		return -1;
	c->accounts = calloc(n + 1, sizeof *c->accounts);
	c->assoc = calloc(n + 1, sizeof *c->assoc);
	int32_t *at = *acct_assoc = malloc((n + 1) * sizeof *at);   /* account -> assoc */
	int32_t *parent_acct = malloc((n + 1) * sizeof *parent_acct);
	int32_t *entry = malloc((n + 1) * sizeof *entry);           /* account -> JSON entry, -1 root */
	if (!c->accounts || !c->assoc || !at || !parent_acct || !entry) {
		free(parent_acct);
		free(entry);
		return jv_fail(v, "$.slurm.accounts", "out of memory");
	}
	snprintf(c->accounts[0], SLURM_NAME_MAX, "root");
	c->naccounts = 1;
	entry[0] = -1;
	parent_acct[0] = -1;
	int rc = 0;
	/* names first (a parent may come after its child in the file) */
	for (size_t i = 0; i < n && rc == 0; i++) {
		char name[SLURM_NAME_MAX];
		jv_idxpath(p, sizeof p, "$.slurm.accounts", i);
		const json_t *e = json_array_get(arr, i);
		if (jv_object(v, e, p, acct_keys) || load_name(v, e, p, "name", true, name)) {
			rc = -1;
			break;
		}
		int32_t k = !strcmp(name, "root") ? 0 : find_in((const char (*)[SLURM_NAME_MAX])c->accounts, c->naccounts, name);
		if (k > 0 || (k == 0 && entry[0] >= 0)) {
			jv_subpath(q, sizeof q, p, "name");
			rc = jv_fail(v, q, "account \"%s\" is listed twice", name);
		} else if (k == 0) {
			entry[0] = (int32_t)i;
		} else {
			snprintf(c->accounts[c->naccounts], SLURM_NAME_MAX, "%s", name);
			entry[c->naccounts++] = (int32_t)i;
		}
	}
	for (int32_t a = 0; a < c->naccounts && rc == 0; a++) {
		char par[SLURM_NAME_MAX] = "root";
		if (entry[a] < 0)
			continue;
		jv_idxpath(p, sizeof p, "$.slurm.accounts", (size_t)entry[a]);
		const json_t *e = json_array_get(arr, (size_t)entry[a]);
		if (load_name(v, e, p, "parent", false, par))
			rc = -1;
		else if (a == 0 && json_object_get(e, "parent"))
			rc = jv_fail(v, p, "the account root has no parent");
		else if (a > 0 && (parent_acct[a] = find_in((const char (*)[SLURM_NAME_MAX])c->accounts,
		                                            c->naccounts, par[0] ? par : "root")) < 0) {
			jv_subpath(q, sizeof q, p, "parent");
			rc = jv_fail(v, q, "unknown account \"%s\" (not in \"accounts\")", par);
		}
	}
	/* root, then every account whose parent is placed, until none is left */
	for (int32_t a = 0; a < c->naccounts; a++)
		at[a] = -1;
	at[0] = 0;
	c->nassoc = 1;
	c->assoc[0] = (struct slurm_assoc){ .parent = -1, .account = 0, .user = -1, .shares = 1, .def_qos = -1 };
	limits_init(&c->assoc[0].lim);
	if (rc == 0 && entry[0] >= 0) {
		jv_idxpath(p, sizeof p, "$.slurm.accounts", (size_t)entry[0]);
		rc = load_assoc_fields(v, c, json_array_get(arr, (size_t)entry[0]), p, &c->assoc[0]);
	}
	for (bool more = true; rc == 0 && more; ) {
		more = false;
		for (int32_t a = 1; a < c->naccounts && rc == 0; a++) {
			if (at[a] >= 0 || at[parent_acct[a]] < 0)
				continue;
			struct slurm_assoc *s = &c->assoc[c->nassoc];
			*s = (struct slurm_assoc){ .parent = at[parent_acct[a]], .account = a, .user = -1 };
			jv_idxpath(p, sizeof p, "$.slurm.accounts", (size_t)entry[a]);
			rc = load_assoc_fields(v, c, json_array_get(arr, (size_t)entry[a]), p, s);
			at[a] = c->nassoc++;
			more = true;
		}
	}
	for (int32_t a = 1; a < c->naccounts && rc == 0; a++)
		if (at[a] < 0) {
			jv_idxpath(p, sizeof p, "$.slurm.accounts", (size_t)entry[a]);
			jv_subpath(q, sizeof q, p, "parent");
			rc = jv_fail(v, q, "account \"%s\" is its own ancestor (the parents form a circle)", c->accounts[a]);
		}
	free(parent_acct);
	free(entry);
	return rc;
}

static int load_users(struct jv *v, const json_t *o, struct slurm_cfg *c, const int32_t *acct_assoc)
{
	size_t n;
	const json_t *arr = entries(v, o, "users", false, &n);
	if (v->failed)
		return -1;
	if (n == 0)
		return 0;
	void *na = realloc(c->assoc, ((size_t)c->nassoc + n) * sizeof *c->assoc);
	if (!na)
		return jv_fail(v, "$.slurm.users", "out of memory");
	c->assoc = na;
	int32_t first = c->nassoc;
	for (size_t i = 0; i < n; i++) {
		char p[64], q[96], name[SLURM_NAME_MAX], acct[SLURM_NAME_MAX];
		jv_idxpath(p, sizeof p, "$.slurm.users", i);
		const json_t *e = json_array_get(arr, i);
		if (jv_object(v, e, p, user_keys) || load_name(v, e, p, "name", true, name) ||
		    load_name(v, e, p, "account", true, acct))
			return -1;
		int32_t a = find_in((const char (*)[SLURM_NAME_MAX])c->accounts, c->naccounts, acct);
		if (a < 0) {
			jv_subpath(q, sizeof q, p, "account");
			return jv_fail(v, q, "unknown account \"%s\" (not in \"accounts\")", acct);
		}
		int32_t u = add_name(&c->users, &c->nusers, name);
		if (u < 0)
			return jv_fail(v, p, "out of memory");
		for (int32_t k = first; k < c->nassoc; k++)
			if (c->assoc[k].user == u && c->assoc[k].account == a)
				return jv_fail(v, p, "user \"%s\" is listed twice under account \"%s\"", name, acct);
		struct slurm_assoc *s = &c->assoc[c->nassoc];
		*s = (struct slurm_assoc){ .parent = acct_assoc[a], .account = a, .user = u };
		if (load_assoc_fields(v, c, e, p, s))
			return -1;
		c->nassoc++;
	}
	return 0;
}

/* ---- node weights --------------------------------------------------------- */

static int load_weights(struct jv *v, const json_t *o, struct slurm_cfg *c)
{
	const json_t *w = json_object_get(o, "node_weights"), *x;
	if (!w)
		return 0;
	if (!json_is_object(w))
		return jv_fail(v, "$.slurm.node_weights", "expected an object of host list: weight, got %s", jv_type(w));
	size_t n = json_object_size(w);
	c->weight_nodes = calloc(n ? n : 1, sizeof *c->weight_nodes);
	c->weight_of = calloc(n ? n : 1, sizeof *c->weight_of);
	if (!c->weight_nodes || !c->weight_of)
		return jv_fail(v, "$.slurm.node_weights", "out of memory");
	const char *k;
	json_object_foreach((json_t *)w, k, x) {
		char p[320];
		snprintf(p, sizeof p, "$.slurm.node_weights.\"%.200s\"", k);
		if (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > UINT32_MAX - 1)
			return jv_fail(v, p, "expected an integer in [0, %u], got %s", UINT32_MAX - 1, jv_type(x));
		if (!(c->weight_nodes[c->nweights] = strdup(k)))
			return jv_fail(v, p, "out of memory");
		c->weight_of[c->nweights++] = json_integer_value(x);
	}
	return 0;
}

int slurm_cfg_load(struct jv *v, const json_t *root, struct slurm_cfg *c)
{
	slurm_cfg_init(c);
	if (v->failed)
		return -1;
	const json_t *o = json_object_get(root, "slurm");
	if (!o)
		return 0;
	long long mpc = 0, mpn = 0;
	if (jv_object(v, o, "$.slurm", top_keys) ||
	    jv_bool(v, o, "$.slurm", "cr_memory", &c->cr_memory) ||
	    jv_int(v, o, "$.slurm", "def_mem_per_cpu_mib", false, 0, 1LL << 40, &mpc) ||
	    jv_int(v, o, "$.slurm", "def_mem_per_node_mib", false, 0, 1LL << 40, &mpn))
		return -1;
	c->def_mem_per_cpu_mib = mpc;
	c->def_mem_per_node_mib = mpn;
	int32_t *acct_assoc = NULL;
	int rc = load_qos(v, o, c) || load_parts(v, o, c) || load_accounts(v, o, c, &acct_assoc) ||
	         load_users(v, o, c, acct_assoc) || load_weights(v, o, c) ? -1 : 0;
	free(acct_assoc);
	return rc;
}
