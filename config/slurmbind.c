/* slurmbind — struct slurm_cfg bound to the cluster and the trace: node
 * names to indexes, the trace's names to the configuration's, every job
 * checked. See slurmcfg.h. */
#include "config/slurmcfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/label.h"
#include "sim/strset.h"
#include "traces/hostexpr.h"

struct nodes_ctx {
	const struct cluster *cl;
	struct strset set;          /* cluster node by name */
	int32_t *mark;              /* per node: the last entry that took it + 1 */
	int32_t *out, nout;         /* the nodes of the current entry */
	int32_t entry;
	const char *path;           /* the current entry's JSON path */
	char *err;
	size_t errlen;
};

static const char *node_key(const void *ctx, int32_t idx)
{
	return ((const struct cluster *)ctx)->nodes[idx].name;
}

/* "a, b, c, ... (N nodes)": the first names of the cluster, for messages. */
static void some_nodes(const struct cluster *cl, char *out, size_t len)
{
	size_t off = 0;
	out[0] = '\0';
	for (int32_t i = 0; i < cl->nnodes && i < 6 && off < len; i++)
		off += (size_t)snprintf(out + off, len - off, "%s%s", i ? ", " : "", cl->nodes[i].name);
	if (cl->nnodes > 6 && off < len)
		snprintf(out + off, len - off, ", ... (%d nodes)", cl->nnodes);
}

static int take_node(const char *name, void *vctx)
{
	struct nodes_ctx *x = vctx;
	int32_t i = strset_find(&x->set, name, node_key, x->cl);
	if (i < 0) {
		char some[320];
		some_nodes(x->cl, some, sizeof some);
		snprintf(x->err, x->errlen, "%s: node \"%s\" is not in the cluster (it has: %s)", x->path, name, some);
		return 1;
	}
	if (x->mark[i] == x->entry + 1)
		return 0;               /* named twice in one entry: once is enough */
	x->mark[i] = x->entry + 1;
	x->out[x->nout++] = i;
	return 0;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* The nodes of host lists exprs[0 .. n) into x->out (sorted). */
static int expand(struct nodes_ctx *x, char **exprs, int32_t n, const char *path)
{
	char why[256], p[320];
	x->nout = 0;
	for (int32_t k = 0; k < n; k++) {
		snprintf(p, sizeof p, "%s[%d]", path, k);
		x->path = p;
		if (!strcmp(exprs[k], "ALL")) {
			for (int32_t i = 0; i < x->cl->nnodes; i++)
				if (x->mark[i] != x->entry + 1) {
					x->mark[i] = x->entry + 1;
					x->out[x->nout++] = i;
				}
			continue;
		}
		int rc = hostexpr_each(exprs[k], take_node, x, why, sizeof why);
		if (rc < 0)
			snprintf(x->err, x->errlen, "%s: %s", p, why);
		if (rc)
			return -1;
	}
	qsort(x->out, (size_t)x->nout, sizeof *x->out, cmp_i32);
	return 0;
}

/* The weights' host lists to node_weight; a node in two entries is an error. */
static int bind_weights(struct slurm_cfg *c, struct nodes_ctx *x)
{
	const struct cluster *cl = x->cl;
	int rc = 0;
	int32_t *owner = calloc((size_t)cl->nnodes + 1, sizeof *owner);
	if (!owner) {
		snprintf(x->err, x->errlen, "$.slurm: out of memory");
		return -1;
	}
	memset(x->mark, 0, (size_t)cl->nnodes * sizeof *x->mark);
	for (int32_t i = 0; i < cl->nnodes; i++)
		c->node_weight[i] = 1;
	for (int32_t w = 0; w < c->nweights && rc == 0; w++) {
		char path[320];
		snprintf(path, sizeof path, "$.slurm.node_weights.\"%.200s\"", c->weight_nodes[w]);
		x->entry = w;
		char *one[1] = { c->weight_nodes[w] };
		if (expand(x, one, 1, path)) {
			char *br = strstr(x->err, "\"[0]");   /* the path names a key, not an element */
			if (br)
				memmove(br + 1, br + 4, strlen(br + 4) + 1);
			rc = -1;
		}
		for (int32_t k = 0; k < x->nout && rc == 0; k++) {
			int32_t i = x->out[k];
			if (owner[i])
				rc = -1, snprintf(x->err, x->errlen, "%s: node \"%s\" has a weight already (from \"%s\")",
				                  path, cl->nodes[i].name, c->weight_nodes[owner[i] - 1]);
			owner[i] = w + 1;
			c->node_weight[i] = c->weight_of[w];
		}
	}
	free(owner);
	return rc;
}

static int bind_nodes(struct slurm_cfg *c, const struct cluster *cl, char *err, size_t errlen)
{
	struct nodes_ctx x = { .cl = cl, .err = err, .errlen = errlen };
	int rc = -1;
	x.mark = calloc((size_t)cl->nnodes + 1, sizeof *x.mark);
	x.out = malloc(((size_t)cl->nnodes + 1) * sizeof *x.out);
	c->node_weight = malloc(((size_t)cl->nnodes + 1) * sizeof *c->node_weight);
	if (!x.mark || !x.out || !c->node_weight)
		goto oom;
	for (int32_t i = 0; i < cl->nnodes; i++)
		if (strset_add(&x.set, cl->nodes[i].name, i))
			goto oom;
	c->nnodes = cl->nnodes;
	for (int32_t p = 0; p < c->npart; p++) {
		struct slurm_part *sp = &c->part[p];
		char path[96];
		snprintf(path, sizeof path, "$.slurm.partitions[%d].nodes", p);
		x.entry = p;
		if (expand(&x, sp->node_names, sp->nnode_names, path))
			goto out;
		free(sp->nodes);
		if (!(sp->nodes = malloc(((size_t)x.nout + 1) * sizeof *sp->nodes)))
			goto oom;
		memcpy(sp->nodes, x.out, (size_t)x.nout * sizeof *x.out);
		sp->nnodes = x.nout;
	}
	rc = bind_weights(c, &x);
	goto out;
oom:
	snprintf(err, errlen, "$.slurm: out of memory");
	rc = -1;
out:
	free(x.mark);
	free(x.out);
	strset_fini(&x.set);
	return rc;
}

/* ---- names ---------------------------------------------------------------- */

/* A map from the trace's names of kind k to indexes of names[0 .. n). */
static int name_map(const struct workload *w, enum wl_name_kind k, const char *names, size_t stride,
                    int32_t n, int32_t **map, int32_t *nmap)
{
	int32_t nt = w->names[k].n;
	*map = NULL;
	*nmap = 0;
	if (nt == 0)
		return 0;
	if (!(*map = malloc((size_t)nt * sizeof **map)))
		return -1;
	*nmap = nt;
	for (int32_t t = 0; t < nt; t++) {
		const char *s = workload_name(w, k, t);
		(*map)[t] = -1;
		for (int32_t i = 0; i < n && s; i++)
			if (!strcmp(names + (size_t)i * stride, s)) {
				(*map)[t] = i;
				break;
			}
	}
	return 0;
}

/* "a, b, c" of a name table, for messages. */
static void list_names(const char *names, size_t stride, int32_t n, char *out, size_t len)
{
	size_t off = 0;
	out[0] = '\0';
	for (int32_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(out + off, len - off, "%s%s", i ? ", " : "", names + (size_t)i * stride);
	if (off >= len && len > 4)
		snprintf(out + len - 5, 5, "...");
}

/* One kind of name a job carries, and where the twin's names came from. */
struct kind {
	enum wl_name_kind k;
	const char *what, *src;
	const char *names;          /* the configuration's table: n entries, stride bytes apart */
	size_t stride;
	int32_t n;
	const int32_t *map;
	int32_t nmap;
};

/* The configuration's index of the job's name idx into *out (unchanged
 * when there is no map or no name); -1 with err when it lacks the name. */
static int mapped(const struct kind *k, const struct workload *w, const struct job *j, int32_t idx,
                  int32_t *out, char *err, size_t errlen)
{
	if (!k->map || idx < 0 || idx >= k->nmap)
		return 0;
	if ((*out = k->map[idx]) >= 0)
		return 0;
	char all[768];
	list_names(k->names, k->stride, k->n, all, sizeof all);
	snprintf(err, errlen, "JobID %lld: %s '%s' is not in the twin (%s has: %s)", (long long)j->trace_id,
	         k->what, workload_name(w, k->k, idx), k->src, all);
	return -1;
}

/* The partition's nodes carry the GPU type (the label). */
static bool part_has_type(const struct slurm_part *sp, const struct cluster *cl, const char *type)
{
	for (int32_t k = 0; k < sp->nnodes; k++) {
		const char *t = cl->labels ? labels_get(cl->labels, sp->nodes[k], SLURM_GPU_TYPE_LABEL) : NULL;
		if (t && !strcmp(t, type))
			return true;
	}
	return false;
}

static bool cluster_has_types(const struct cluster *cl)
{
	for (int32_t i = 0; i < cl->nnodes && cl->labels; i++)
		if (labels_get(cl->labels, i, SLURM_GPU_TYPE_LABEL))
			return true;
	return false;
}

static int check_jobs(const struct slurm_cfg *c, const struct cluster *cl, const struct workload *w,
                      char *err, size_t errlen)
{
	bool types = cluster_has_types(cl);
	const struct kind kind[4] = {
		{ WL_PARTITION, "partition", "slurm.conf", c->part[0].name, sizeof c->part[0], c->npart,
		  c->part_of, c->npart_of },
		{ WL_QOS, "QOS", "sacctmgr show qos", c->qos[0].name, sizeof c->qos[0], c->nqos, c->qos_of, c->nqos_of },
		{ WL_USER, "user", "sacctmgr show assoc", c->users ? c->users[0] : "", sizeof c->users[0], c->nusers,
		  c->user_of, c->nuser_of },
		{ WL_ACCOUNT, "account", "sacctmgr show assoc", c->accounts[0], sizeof c->accounts[0], c->naccounts,
		  c->acct_of, c->nacct_of },
	};
	for (int32_t i = 0; i < w->n; i++) {
		const struct job *j = &w->jobs[i];
		int32_t part = c->default_part, qos = -1, user = -1, acct = -1;
		if (mapped(&kind[0], w, j, j->queue, &part, err, errlen) ||
		    mapped(&kind[1], w, j, j->qos, &qos, err, errlen) ||
		    mapped(&kind[2], w, j, j->tenant, &user, err, errlen) ||
		    mapped(&kind[3], w, j, j->group, &acct, err, errlen))
			return -1;
		if (user >= 0 && acct >= 0) {
			int32_t a = 0;
			while (a < c->nassoc && !(c->assoc[a].user == user && c->assoc[a].account == acct))
				a++;
			if (a == c->nassoc) {
				snprintf(err, errlen, "JobID %lld: user '%s' has no association under account '%s' in the twin",
				         (long long)j->trace_id, c->users[user], c->accounts[acct]);
				return -1;
			}
		}
		const char *type = j->req.gpus > 0 ? workload_job_gpu_type(w, i) : NULL;
		if (types && type && type[0] && !part_has_type(&c->part[part], cl, type)) {
			snprintf(err, errlen, "JobID %lld: GPU type '%s' is on no node of partition '%s'",
			         (long long)j->trace_id, type, c->part[part].name);
			return -1;
		}
	}
	return 0;
}

int slurm_cfg_bind(struct slurm_cfg *c, const struct cluster *cl, const struct workload *w,
                   char *err, size_t errlen)
{
	free(c->node_weight);
	c->node_weight = NULL;
	free(c->part_of);
	free(c->qos_of);
	free(c->user_of);
	free(c->acct_of);
	c->part_of = c->qos_of = c->user_of = c->acct_of = NULL;
	c->npart_of = c->nqos_of = c->nuser_of = c->nacct_of = 0;
	if (bind_nodes(c, cl, err, errlen))
		return -1;
	c->unix_start = w->unix_start > 0 ? w->unix_start : 0;
	bool tree = c->nusers > 0 || c->naccounts > 1;
	if (name_map(w, WL_PARTITION, c->part[0].name, sizeof c->part[0], c->npart, &c->part_of, &c->npart_of) ||
	    name_map(w, WL_QOS, c->qos[0].name, sizeof c->qos[0], c->nqos, &c->qos_of, &c->nqos_of) ||
	    (tree && name_map(w, WL_USER, c->users ? c->users[0] : "", sizeof c->users[0], c->nusers,
	                      &c->user_of, &c->nuser_of)) ||
	    (tree && name_map(w, WL_ACCOUNT, c->accounts[0], sizeof c->accounts[0], c->naccounts,
	                      &c->acct_of, &c->nacct_of))) {
		snprintf(err, errlen, "$.slurm: out of memory");
		return -1;
	}
	return check_jobs(c, cl, w, err, errlen);
}
