/* slurmconf — slurm.conf and gres.conf. See slurmconf.h and
 * docs/slurm-twin.md. The global keys are slurmglob.c's. */
#include "config/slurmconf.h"
#include "config/slurmconf_int.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/cluster.h"
#include "traces/trace.h"

#define SC_MAX_PAIRS 256
#define SC_MAX_DEPTH 16             /* Include nesting */
#define SC_LINE_MAX (1 << 20)       /* a logical line, continuations joined */

/* ---- the struct ---------------------------------------------------------- */

void sconf_init(struct sconf *c)
{
	memset(c, 0, sizeof *c);
	c->cr_memory = true;
}

static void part_free(struct slurm_part *p)
{
	for (int32_t k = 0; k < p->nnode_names; k++)
		free(p->node_names[k]);
	free(p->node_names);
	free(p->nodes);
	p->node_names = NULL;
	p->nodes = NULL;
	p->nnode_names = p->nnodes = 0;
}

void sconf_fini(struct sconf *c)
{
	for (int32_t i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->files);
	for (int32_t i = 0; i < c->nnodelines; i++)
		free(c->nodeline[i].expr);
	free(c->nodeline);
	free(c->node);
	for (int32_t i = 0; i < c->nparts; i++)
		part_free(&c->part[i].p);
	free(c->part);
	slurm_msgs_free(&c->warn);
	strset_fini(&c->node_set);
	sconf_init(c);
}

static const char *node_key(const void *ctx, int32_t idx)
{
	return ((const struct sconf *)ctx)->node[idx].name;
}

int32_t sconf_find_node(const struct sconf *c, const char *name)
{
	return strset_find(&c->node_set, name, node_key, c);
}

/* ---- lines and pairs ----------------------------------------------------- */

struct pair {
	char *key, *val;
};

struct reader;
typedef int (*line_fn)(struct reader *r, const struct sc_at *a, char *text);

/* One read: the file's line handler and the DEFAULT lines in force. */
struct reader {
	struct sconf *c;
	line_fn fn;
	int depth;
	char *err;
	size_t errlen;
	/* NodeName=DEFAULT and PartitionName=DEFAULT */
	struct nraw {
		int64_t cpus, boards, sockets, cores, threads, mem, weight, spec_cores, spec_mem;
		char features[256], gres[256], state[32];
	} ndef;
	struct praw {
		struct sconf_part sp;
		char *nodes;
	} pdef;
};

/* Splits text into key=value pairs (values may be "quoted"). */
static int split_pairs(const struct sc_at *a, char *s, struct pair *p, int *n)
{
	*n = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return 0;
		char *key = s;
		while (*s && *s != '=' && *s != ' ' && *s != '\t')
			s++;
		if (*s != '=' || s == key) {
			char tok[64];
			snprintf(tok, sizeof tok, "%.*s", (int)strcspn(key, " \t"), key);
			snprintf(a->err, a->errlen, "%s:%d: expected KEY=VALUE pairs, got '%s'", a->c->files[a->file],
			         a->line, tok);
			return -1;
		}
		*s++ = '\0';
		char *val = s;
		if (*s == '"') {
			val = ++s;
			while (*s && *s != '"')
				s++;
			if (!*s) {
				snprintf(a->err, a->errlen, "%s:%d: %s: a quoted value without its closing '\"'",
				         a->c->files[a->file], a->line, key);
				return -1;
			}
		} else {
			while (*s && *s != ' ' && *s != '\t')
				s++;
		}
		if (*n == SC_MAX_PAIRS) {
			snprintf(a->err, a->errlen, "%s:%d: more than %d KEY=VALUE pairs on one line",
			         a->c->files[a->file], a->line, SC_MAX_PAIRS);
			return -1;
		}
		p[(*n)++] = (struct pair){ key, val };
		if (*s)
			*s++ = '\0';
	}
}

static int add_file(struct sconf *c, const char *path)
{
	char **f = realloc(c->files, ((size_t)c->nfiles + 1) * sizeof *f);
	if (!f)
		return -1;
	c->files = f;
	if (!(f[c->nfiles] = strdup(path)))
		return -1;
	return c->nfiles++;
}

/* Reads path a logical line at a time into r->fn. */
static int read_file(struct reader *r, const char *path)
{
	struct sconf *c = r->c;
	int32_t fi = add_file(c, path);
	if (fi < 0) {
		snprintf(r->err, r->errlen, "%s: out of memory", path);
		return -1;
	}
	struct linereader *lr = linereader_open(path, r->err, r->errlen);
	if (!lr)
		return -1;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int32_t first = 0;
	int rc = 0;
	const char *l;
	size_t n;
	while (rc == 0 && (l = linereader_next(lr, &n))) {
		int32_t ln = (int32_t)linereader_lineno(lr);
		const char *hash = memchr(l, '#', n);
		if (hash)
			n = (size_t)(hash - l);
		while (n > 0 && isspace((unsigned char)l[n - 1]))
			n--;
		bool more = n > 0 && l[n - 1] == '\\';
		if (more)
			n--;
		if (len == 0)
			first = ln;
		if (len + n + 2 > SC_LINE_MAX) {
			snprintf(r->err, r->errlen, "%s:%d: a line longer than %d bytes", path, first, SC_LINE_MAX);
			rc = -1;
			break;
		}
		if (len + n + 2 > cap) {
			size_t nc = (len + n + 2) * 2;
			char *nb = realloc(buf, nc);
			if (!nb) {
				snprintf(r->err, r->errlen, "%s:%d: out of memory", path, ln);
				rc = -1;
				break;
			}
			buf = nb;
			cap = nc;
		}
		memcpy(buf + len, l, n);
		len += n;
		buf[len] = '\0';
		if (more)
			continue;
		struct sc_at a = { c, fi, first, r->err, r->errlen };
		if (strspn(buf, " \t") < len)
			rc = r->fn(r, &a, buf);
		len = 0;
	}
	if (rc == 0 && linereader_error(lr))
		rc = -1;
	if (rc == 0 && len > 0) {   /* a '\' on the last line */
		struct sc_at a = { c, fi, first, r->err, r->errlen };
		rc = r->fn(r, &a, buf);
	}
	free(buf);
	linereader_close(lr);
	return rc;
}

/* "Include FILE": relative to the including file's directory; %c the
 * cluster's name. */
static int include(struct reader *r, const struct sc_at *a, const char *arg)
{
	char name[PATH_MAX], path[PATH_MAX * 2];
	size_t o = 0;
	for (const char *s = arg; *s && o + 1 < sizeof name; s++) {
		if (s[0] == '%' && s[1] == 'c') {
			o += (size_t)snprintf(name + o, sizeof name - o, "%s", r->c->cluster);
			s++;
		} else {
			name[o++] = *s;
		}
	}
	name[o < sizeof name ? o : sizeof name - 1] = '\0';
	const char *cur = r->c->files[a->file], *slash = strrchr(cur, '/');
	if (name[0] == '/' || !slash)
		snprintf(path, sizeof path, "%s", name);
	else
		snprintf(path, sizeof path, "%.*s/%s", (int)(slash - cur), cur, name);
	if (r->depth >= SC_MAX_DEPTH) {
		snprintf(r->err, r->errlen, "%s:%d: Include: more than %d files deep (an Include loop?)",
		         r->c->files[a->file], a->line, SC_MAX_DEPTH);
		return -1;
	}
	r->depth++;
	int rc = read_file(r, path);
	r->depth--;
	return rc;
}

/* ---- NodeName lines ------------------------------------------------------ */

struct add_ctx {
	struct sconf *c;
	const struct sc_at *a;
	int32_t nl;
};

static int add_node(const char *name, void *vctx)
{
	struct add_ctx *x = vctx;
	struct sconf *c = x->c;
	int32_t dup = sconf_find_node(c, name);
	if (dup >= 0) {
		const struct sconf_nodeline *d = &c->nodeline[c->node[dup].nl];
		snprintf(x->a->err, x->a->errlen, "%s:%d: NodeName: node '%s' is defined twice (first at %s:%d)",
		         c->files[x->a->file], x->a->line, name, c->files[d->file], d->line);
		return -1;
	}
	if (c->nnodes >= HL_MAX_NODES) {
		snprintf(x->a->err, x->a->errlen, "%s:%d: NodeName: more than %d nodes", c->files[x->a->file],
		         x->a->line, HL_MAX_NODES);
		return -1;
	}
	if ((c->nnodes & (c->nnodes - 1)) == 0) {   /* grown at powers of two */
		struct sconf_node *nn = realloc(c->node, ((size_t)c->nnodes * 2 + 1) * sizeof *nn);
		if (!nn)
			goto oom;
		c->node = nn;
	}
	struct sconf_node *nd = &c->node[c->nnodes];
	const struct sconf_nodeline *ln = &c->nodeline[x->nl];
	memset(nd, 0, sizeof *nd);
	snprintf(nd->name, sizeof nd->name, "%s", name);
	nd->nl = x->nl;
	snprintf(nd->gpu_type, sizeof nd->gpu_type, "%s", ln->gpu_type);
	nd->gpus = ln->gpus;
	if (strset_add(&c->node_set, nd->name, c->nnodes))
		goto oom;
	c->nnodes++;
	return 0;
oom:
	snprintf(x->a->err, x->a->errlen, "%s:%d: out of memory", c->files[x->a->file], x->a->line);
	return -1;
}

/* Gres=gpu:TYPE:N,... : the GPUs (one type); other GRES warn. */
static int node_gres(const struct sc_at *a, const char *gres, struct sconf_nodeline *nl)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", gres);
	for (char *save = NULL, *g = strtok_r(buf, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
		char *paren = strchr(g, '(');   /* gpu:a100:4(S:0-1): the socket binding */
		if (paren)
			*paren = '\0';
		char *f[4];
		int nf = 0;
		for (char *s2 = NULL, *t = strtok_r(g, ":", &s2); t && nf < 4; t = strtok_r(NULL, ":", &s2))
			f[nf++] = t;
		if (nf == 0)
			continue;
		if (strcasecmp(f[0], "gpu") != 0) {
			sc_warn(a, "Gres", "'%s' is not modelled: only GPUs are (gres/%s is ignored)", f[0], f[0]);
			continue;
		}
		int64_t cnt = 1;
		const char *type = "";
		if (nf >= 2 && isdigit((unsigned char)f[nf - 1][0])) {
			if (sc_int(a, "Gres", f[nf - 1], 0, HL_MAX_GPUS_PER_NODE, false, 0, &cnt))
				return -1;
			nf--;
		}
		if (nf >= 2)
			type = f[1];
		if (nf > 2)
			sc_warn(a, "Gres", "gpu:%s:%s: the flag '%s' is not modelled", f[1], f[2], f[2]);
		if (nl->gpus > 0 && strcmp(nl->gpu_type, type) != 0) {
			sc_warn(a, "Gres", "lists GPUs of two types (%s and %s): a node of the twin has one "
			        "type; the %d GPUs of type '%s' are left out", nl->gpu_type[0] ? nl->gpu_type : "untyped",
			        type[0] ? type : "untyped", (int)cnt, type);
			continue;
		}
		if (nl->gpus + cnt > HL_MAX_GPUS_PER_NODE)
			return sc_bad(a, "Gres", "at most 64 GPUs on a node", gres);
		snprintf(nl->gpu_type, sizeof nl->gpu_type, "%s", type);
		nl->gpus += (int32_t)cnt;
	}
	return 0;
}

/* The pairs of a NodeName line into raw values (a DEFAULT line's into ndef). */
static int node_pairs(const struct sc_at *a, const struct pair *p, int n, struct nraw *w)
{
	static const char *const quiet[] = { "NodeHostname", "NodeAddr", "BcastAddr", "Port", "Reason",
		"TmpDisk", "CpuBind", "Topology", "Parameters", "Procs", NULL };
	for (int i = 1; i < n; i++) {
		const char *k = p[i].key, *v = p[i].val;
		int64_t *num = NULL, max = INT32_MAX;
		if (!strcasecmp(k, "CPUs") || !strcasecmp(k, "Procs"))
			num = &w->cpus;
		else if (!strcasecmp(k, "Boards"))
			num = &w->boards;
		else if (!strcasecmp(k, "Sockets") || !strcasecmp(k, "SocketsPerBoard"))
			num = &w->sockets;
		else if (!strcasecmp(k, "CoresPerSocket"))
			num = &w->cores;
		else if (!strcasecmp(k, "ThreadsPerCore"))
			num = &w->threads;
		else if (!strcasecmp(k, "CoreSpecCount"))
			num = &w->spec_cores;
		else if (!strcasecmp(k, "RealMemory"))
			num = &w->mem, max = INT64_C(1) << 40;
		else if (!strcasecmp(k, "MemSpecLimit"))
			num = &w->spec_mem, max = INT64_C(1) << 40;
		else if (!strcasecmp(k, "Weight"))
			num = &w->weight, max = UINT32_MAX - 1;
		if (num) {
			if (sc_int(a, k, v, num == &w->spec_cores || num == &w->spec_mem ? 0 : 1, max, false, 0, num))
				return -1;
			continue;
		}
		if (!strcasecmp(k, "Feature") || !strcasecmp(k, "Features"))
			snprintf(w->features, sizeof w->features, "%s", v);
		else if (!strcasecmp(k, "Gres"))
			snprintf(w->gres, sizeof w->gres, "%s", v);
		else if (!strcasecmp(k, "State"))
			snprintf(w->state, sizeof w->state, "%s", v);
		else if (!strcasecmp(k, "CpuSpecList"))
			sc_warn(a, k, "is not modelled: the node's CPUs are all the jobs'");
		else if (!sc_listed(quiet, k))
			sc_warn(a, k, "is not a NodeName key the twin knows: ignored");
	}
	return 0;
}

/* A finished NodeName line: its shape, then its nodes. */
static int node_line(struct reader *r, const struct sc_at *a, const struct pair *p, int n)
{
	struct sconf *c = r->c;
	bool is_def = strcasecmp(p[0].val, "DEFAULT") == 0;
	struct nraw w = r->ndef;
	if (node_pairs(a, p, n, is_def ? &r->ndef : &w))
		return -1;
	if (is_def)
		return 0;
	struct sconf_nodeline *nl = realloc(c->nodeline, ((size_t)c->nnodelines + 1) * sizeof *nl);
	if (!nl)
		goto oom;
	c->nodeline = nl;
	nl = &c->nodeline[c->nnodelines];
	memset(nl, 0, sizeof *nl);
	if (!(nl->expr = strdup(p[0].val)))
		goto oom;
	c->nnodelines++;
	nl->file = a->file;
	nl->line = a->line;
	int64_t boards = w.boards ? w.boards : 1, sockets = w.sockets ? w.sockets : 1;
	int64_t cores = w.cores ? w.cores : 1, threads = w.threads ? w.threads : 1;
	int64_t cpus = w.cpus ? w.cpus : boards * sockets * cores * threads;
	if (w.spec_cores > 0) {
		cpus -= w.spec_cores * threads;
		if (cpus < 1)
			return sc_bad(a, "CoreSpecCount", "fewer specialised cores than the node has", "");
	}
	if (threads > 1)
		sc_warn(a, "ThreadsPerCore", "is %lld: not modelled (a job's CPUs are taken as cores)",
		        (long long)threads);
	nl->cpus = (int32_t)(cpus > INT32_MAX ? INT32_MAX : cpus);
	nl->sockets = (int32_t)(boards * sockets > 64 ? 1 : boards * sockets);
	nl->cores_per_socket = (int32_t)cores;
	nl->threads_per_core = (int32_t)threads;
	nl->mem_mib = w.mem ? w.mem : 1;
	if (w.spec_mem > 0)
		nl->mem_mib = nl->mem_mib > w.spec_mem ? nl->mem_mib - w.spec_mem : 1;
	nl->weight = w.weight ? w.weight : 1;
	snprintf(nl->features, sizeof nl->features, "%s", w.features);
	if (w.features[0])
		sc_warn(a, "Feature", "is not modelled: jobs' --constraint is not in sacct dumps (the nodes carry "
		        "it as the label slurm.features)");
	if (w.gres[0] && node_gres(a, w.gres, nl))
		return -1;
	if (w.state[0] && (!strncasecmp(w.state, "DOWN", 4) || !strncasecmp(w.state, "DRAIN", 5) ||
	                   !strncasecmp(w.state, "FUTURE", 6))) {
		nl->down = true;
		sc_warn(a, "State", "=%s is not modelled: the twin's nodes start up (node events replay "
		        "outages, sacctmgr show event)", w.state);
	}
	char why[256];
	struct add_ctx x = { c, a, c->nnodelines - 1 };
	nl->first = c->nnodes;
	int rc = hostexpr_each(nl->expr, add_node, &x, why, sizeof why);
	if (rc < 0 && !a->err[0])
		return sc_bad(a, "NodeName", why, nl->expr);
	if (rc)
		return -1;
	c->nodeline[x.nl].n = c->nnodes - c->nodeline[x.nl].first;
	return 0;
oom:
	snprintf(a->err, a->errlen, "%s:%d: out of memory", c->files[a->file], a->line);
	return -1;
}

/* ---- PartitionName lines ------------------------------------------------- */

static void praw_init(struct praw *w)
{
	memset(w, 0, sizeof *w);
	struct slurm_part *p = &w->sp.p;
	p->prio_tier = 1;
	p->prio_job_factor = 1;
	p->max_time_s = SLURM_UNLIMITED;
	p->default_time_s = SLURM_UNLIMITED;
	p->max_nodes = SLURM_UNLIMITED;
	p->over_time_limit_min = SLURM_UNLIMITED;
	p->qos = -1;
	p->up = true;
}

/* Partition keys whose value the twin needs no more of: the trace's jobs
 * passed them at submit, or they name things outside scheduling. */
static const char *const part_quiet[] = { "AllocNodes", "AllowAccounts", "AllowGroups", "AllowQos",
	"AllowUsers", "DenyAccounts", "DenyQos", "DenyUsers", "DisableRootJobs", "Hidden", "RootOnly",
	"ReqResv", "Alternate", "CpuBind", "TRESBillingWeights", "MaxMemPerCPU", "MaxMemPerNode",
	"MinNodes", "ResumeTimeout", "SuspendTimeout", "MaxCPUsPerSocket", NULL };

/* Keys that change scheduling unless given their default value. */
static const struct sc_warned part_warn[] = {
	{ "LLN", "NO", "least-loaded node selection is not modelled" },
	{ "MaxCPUsPerNode", "UNLIMITED", "is not modelled: a job may use every CPU of a node" },
	{ "ExclusiveUser", "NO", "is not modelled: jobs of several users share nodes" },
	{ "SelectTypeParameters", "NONE", "per partition is not modelled: the global one applies" },
	{ "SuspendTime", "NONE", "(power saving) is not modelled: nodes never power down" },
	{ "PowerDownOnIdle", "NO", "is not modelled: nodes never power down" },
	{ "DefCpuPerGPU", "", "is not modelled: the dump's allocated CPUs are replayed" },
	{ "DefMemPerGPU", "", "is not modelled: the dump's allocated memory is replayed" },
	{ "PreemptMode", "", "on a partition is not modelled: preempt/qos takes the QOS's mode, else the global one" },
	{ "GraceTime", "0", "on a partition is not modelled: preempt/qos takes the QOS's GraceTime" },
	{ NULL, NULL, NULL },
};

static int part_key(struct reader *r, const struct sc_at *a, const char *k, const char *v, struct praw *w)
{
	struct slurm_part *p = &w->sp.p;
	int64_t x;
	bool b;
	if (!strcasecmp(k, "Nodes")) {
		free(w->nodes);
		if (!(w->nodes = strdup(v))) {
			snprintf(a->err, a->errlen, "%s:%d: out of memory", r->c->files[a->file], a->line);
			return -1;
		}
	} else if (!strcasecmp(k, "Default")) {
		if (sc_bool(a, k, v, &b))
			return -1;
		p->is_default = b;
	} else if (!strcasecmp(k, "MaxTime")) {
		return sc_time_min(a, k, v, &x) ? -1 : (p->max_time_s = x < 0 ? x : x * 60, 0);
	} else if (!strcasecmp(k, "DefaultTime")) {
		return sc_time_min(a, k, v, &x) ? -1 : (p->default_time_s = x < 0 ? x : x * 60, 0);
	} else if (!strcasecmp(k, "PriorityTier") || !strcasecmp(k, "PriorityJobFactor") ||
	           !strcasecmp(k, "Priority")) {
		if (sc_int(a, k, v, 0, 65533, false, 0, &x))
			return -1;
		if (strcasecmp(k, "PriorityJobFactor"))
			p->prio_tier = (uint16_t)x;
		if (strcasecmp(k, "PriorityTier"))
			p->prio_job_factor = (uint16_t)x;
	} else if (!strcasecmp(k, "DefMemPerCPU") || !strcasecmp(k, "DefMemPerNode")) {
		if (sc_int(a, k, v, 0, INT64_C(1) << 40, true, 0, &x))
			return -1;
		*(strcasecmp(k, "DefMemPerCPU") ? &p->def_mem_per_node_mib : &p->def_mem_per_cpu_mib) = x;
	} else if (!strcasecmp(k, "MaxNodes")) {
		if (sc_int(a, k, v, 0, INT32_MAX, true, SLURM_UNLIMITED, &x))
			return -1;
		p->max_nodes = (int32_t)x;
	} else if (!strcasecmp(k, "OverTimeLimit")) {
		if (sc_int(a, k, v, 0, 65533, true, 1000000, &x))
			return -1;
		p->over_time_limit_min = (int32_t)x;
	} else if (!strcasecmp(k, "QOS")) {
		snprintf(w->sp.qos, sizeof w->sp.qos, "%s", v);
	} else if (!strcasecmp(k, "State")) {
		if (strcasecmp(v, "UP") && strcasecmp(v, "DOWN") && strcasecmp(v, "DRAIN") && strcasecmp(v, "INACTIVE"))
			return sc_bad(a, k, "UP, DOWN, DRAIN or INACTIVE", v);
		p->up = strcasecmp(v, "UP") == 0;
	} else if (!strcasecmp(k, "OverSubscribe") || !strcasecmp(k, "Shared")) {
		p->exclusive = strcasecmp(v, "EXCLUSIVE") == 0;
		if (!p->exclusive && strcasecmp(v, "NO"))
			sc_warn(a, k, "=%s is not modelled: jobs do not share cores (OverSubscribe=NO)", v);
	} else if (!sc_listed(part_quiet, k) && !sc_warn_table(a, part_warn, k, v)) {
		sc_warn(a, k, "is not a PartitionName key the twin knows: ignored");
	}
	return 0;
}

/* The Nodes= host lists of a partition, split at commas outside brackets. */
static int part_nodes(const char *s, struct slurm_part *p)
{
	while (*s) {
		size_t len = 0;
		int depth = 0;
		while (s[len] && (depth > 0 || s[len] != ',')) {
			depth += s[len] == '[' ? 1 : s[len] == ']' ? -1 : 0;
			len++;
		}
		char **nn = realloc(p->node_names, ((size_t)p->nnode_names + 1) * sizeof *nn);
		if (!nn)
			return -1;
		p->node_names = nn;
		if (!(nn[p->nnode_names] = strndup(s, len)))
			return -1;
		p->nnode_names++;
		s += len + (s[len] == ',');
	}
	return 0;
}

static int part_line(struct reader *r, const struct sc_at *a, const struct pair *p, int n)
{
	struct sconf *c = r->c;
	bool is_def = strcasecmp(p[0].val, "DEFAULT") == 0;
	struct praw w = r->pdef;
	w.nodes = NULL;
	struct praw *t = is_def ? &r->pdef : &w;
	if (!is_def && r->pdef.nodes && !(w.nodes = strdup(r->pdef.nodes)))
		goto oom;
	for (int i = 1; i < n; i++)
		if (part_key(r, a, p[i].key, p[i].val, t)) {
			free(w.nodes);
			return -1;
		}
	if (is_def)
		return 0;
	if (strlen(p[0].val) >= SLURM_NAME_MAX) {
		free(w.nodes);
		return sc_bad(a, "PartitionName", "a name of at most 63 bytes", p[0].val);
	}
	for (int32_t i = 0; i < c->nparts; i++)
		if (!strcmp(c->part[i].p.name, p[0].val)) {
			free(w.nodes);
			snprintf(a->err, a->errlen, "%s:%d: PartitionName: '%s' is defined twice (first at %s:%d)",
			         c->files[a->file], a->line, p[0].val, c->files[c->part[i].file], c->part[i].line);
			return -1;
		}
	struct sconf_part *np = realloc(c->part, ((size_t)c->nparts + 1) * sizeof *np);
	if (!np)
		goto oom;
	c->part = np;
	np = &c->part[c->nparts++];
	*np = w.sp;
	np->p.node_names = NULL;
	np->p.nnode_names = 0;
	snprintf(np->p.name, sizeof np->p.name, "%s", p[0].val);
	np->file = a->file;
	np->line = a->line;
	if (w.nodes && part_nodes(w.nodes, &np->p))
		goto oom;
	free(w.nodes);
	return 0;
oom:
	free(w.nodes);
	snprintf(a->err, a->errlen, "%s:%d: out of memory", c->files[a->file], a->line);
	return -1;
}

/* ---- slurm.conf ------------------------------------------------------------ */

static int conf_line(struct reader *r, const struct sc_at *a, char *text)
{
	while (*text == ' ' || *text == '\t')
		text++;
	if (!strncasecmp(text, "include", 7) && (text[7] == ' ' || text[7] == '\t')) {
		char *arg = text + 8;
		while (*arg == ' ' || *arg == '\t')
			arg++;
		return include(r, a, arg);
	}
	struct pair p[SC_MAX_PAIRS];
	int n;
	if (split_pairs(a, text, p, &n))
		return -1;
	if (n == 0)
		return 0;
	if (!strcasecmp(p[0].key, "NodeName"))
		return node_line(r, a, p, n);
	if (!strcasecmp(p[0].key, "PartitionName"))
		return part_line(r, a, p, n);
	if (!strcasecmp(p[0].key, "NodeSet") || !strcasecmp(p[0].key, "FrontendName") ||
	    !strcasecmp(p[0].key, "DownNodes") || !strcasecmp(p[0].key, "SwitchName")) {
		sc_warn(a, p[0].key, "lines are not modelled: the line is ignored");
		return 0;
	}
	for (int i = 0; i < n; i++) {
		if (!strcasecmp(p[i].key, "ClusterName"))
			snprintf(r->c->cluster, sizeof r->c->cluster, "%s", p[i].val);
		if (sc_global(a, p[i].key, p[i].val))
			return -1;
	}
	return 0;
}

struct check_ctx {
	const struct sconf *c;
	const struct sconf_part *sp;
	char *err;
	size_t errlen;
};

static int check_node(const char *name, void *vctx)
{
	struct check_ctx *x = vctx;
	if (sconf_find_node(x->c, name) >= 0)
		return 0;
	snprintf(x->err, x->errlen, "%s:%d: Nodes: partition '%s' names node '%s', which no NodeName line "
	         "defines", x->c->files[x->sp->file], x->sp->line, x->sp->p.name, name);
	return 1;
}

/* After the last line: partitions name defined nodes, one default. */
static int conf_check(struct sconf *c, char *err, size_t errlen)
{
	if (c->nnodes == 0)
		return snprintf(err, errlen, "%s: no NodeName line defines a node", c->files[0]), -1;
	if (c->nparts == 0)
		return snprintf(err, errlen, "%s: no PartitionName line defines a partition", c->files[0]), -1;
	int32_t last_def = -1;
	for (int32_t i = 0; i < c->nparts; i++) {
		struct sconf_part *sp = &c->part[i];
		struct check_ctx x = { c, sp, err, errlen };
		char why[256];
		for (int32_t k = 0; k < sp->p.nnode_names; k++) {
			if (!strcasecmp(sp->p.node_names[k], "ALL"))
				continue;
			int rc = hostexpr_each(sp->p.node_names[k], check_node, &x, why, sizeof why);
			if (rc < 0)
				snprintf(err, errlen, "%s:%d: Nodes: %s", c->files[sp->file], sp->line, why);
			if (rc)
				return -1;
		}
		if (sp->p.is_default) {
			if (last_def >= 0) {
				struct sc_at a = { c, sp->file, sp->line, err, errlen };
				sc_warn(&a, "Default", "=YES on partition '%s' too: '%s' is no longer the default (Slurm "
				        "takes the last)", sp->p.name, c->part[last_def].p.name);
				c->part[last_def].p.is_default = false;
			}
			last_def = i;
		}
	}
	return 0;
}

int sconf_read(const char *path, struct sconf *c, char *err, size_t errlen)
{
	sconf_init(c);
	struct reader r = { .c = c, .fn = conf_line, .err = err, .errlen = errlen };
	praw_init(&r.pdef);
	err[0] = '\0';
	int rc = read_file(&r, path);
	free(r.pdef.nodes);
	if (rc == 0)
		rc = conf_check(c, err, errlen);
	if (rc)
		sconf_fini(c);
	return rc;
}

/* ---- gres.conf ------------------------------------------------------------- */

/* How many device files a File= list names: its last path part's count. */
static int64_t file_count(const char *files, char *why, size_t whylen)
{
	int64_t n = 0;
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", files);
	for (char *save = NULL, *f = strtok_r(buf, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
		const char *base = strrchr(f, '/');
		int64_t k = hostexpr_count(base ? base + 1 : f, why, whylen);
		if (k < 0)
			return -1;
		n += k;
	}
	return n;
}

struct gres_line {
	const struct sc_at *a;
	const char *type;
	int64_t count;
	int32_t hits;
};

static int gres_node(const char *name, void *vctx)
{
	struct gres_line *g = vctx;
	struct sconf *c = g->a->c;
	int32_t i = sconf_find_node(c, name);
	if (i < 0) {
		sc_warn(g->a, "NodeName", "'%s' is not a node of slurm.conf: the line is ignored for it", name);
		return 0;
	}
	struct sconf_node *nd = &c->node[i];
	g->hits++;
	if (g->type[0] && !nd->gpu_type[0] && nd->gpus > 0)
		snprintf(nd->gpu_type, sizeof nd->gpu_type, "%s", g->type);
	else if (g->type[0] && strcmp(nd->gpu_type, g->type))
		sc_warn(g->a, "Type", "=%s disagrees with slurm.conf's Gres= of node %s (type '%s'): slurm.conf's "
		        "is kept", g->type, name, nd->gpu_type);
	if (g->count >= 0 && g->count != nd->gpus)
		sc_warn(g->a, "Count", "%lld GPUs disagree with slurm.conf's Gres= of node %s (%d): slurm.conf's "
		        "are kept", (long long)g->count, name, nd->gpus);
	return 0;
}

static int gres_line(struct reader *r, const struct sc_at *a, char *text)
{
	struct pair p[SC_MAX_PAIRS];
	int n;
	if (split_pairs(a, text, p, &n))
		return -1;
	const char *name = "", *type = "", *nodes = NULL;
	int64_t count = -1;
	char why[256];
	for (int i = 0; i < n; i++) {
		const char *k = p[i].key, *v = p[i].val;
		if (!strcasecmp(k, "AutoDetect")) {
			if (strcasecmp(v, "off"))
				sc_warn(a, k, "=%s: slurmd detects the GPUs on each node; the twin takes their types and "
				        "counts from slurm.conf's Gres= (and this file's explicit lines)", v);
		} else if (!strcasecmp(k, "Name")) {
			name = v;
		} else if (!strcasecmp(k, "Type")) {
			type = v;
		} else if (!strcasecmp(k, "NodeName")) {
			nodes = v;
		} else if (!strcasecmp(k, "Count")) {
			if (sc_int(a, k, v, 0, HL_MAX_GPUS_PER_NODE, false, 0, &count))
				return -1;
		} else if (!strcasecmp(k, "File") || !strcasecmp(k, "MultipleFiles")) {
			int64_t f = file_count(v, why, sizeof why);
			if (f < 0)
				return sc_bad(a, k, why, v);
			if (count < 0)
				count = f;
		} else if (strcasecmp(k, "Cores") && strcasecmp(k, "CPUs") && strcasecmp(k, "Links") &&
		           strcasecmp(k, "Flags")) {
			sc_warn(a, k, "is not a gres.conf key the twin knows: ignored");
		}
	}
	if (!name[0])
		return 0;
	if (strcasecmp(name, "gpu")) {
		sc_warn(a, "Name", "=%s is not modelled: only GPUs are", name);
		return 0;
	}
	struct gres_line g = { a, type, count, 0 };
	if (!nodes) {   /* every node: the line is each slurmd's own */
		for (int32_t i = 0; i < r->c->nnodes; i++)
			gres_node(r->c->node[i].name, &g);
		return 0;
	}
	int rc = hostexpr_each(nodes, gres_node, &g, why, sizeof why);
	return rc < 0 ? sc_bad(a, "NodeName", why, nodes) : rc;
}

int sconf_read_gres(const char *path, struct sconf *c, char *err, size_t errlen)
{
	struct reader r = { .c = c, .fn = gres_line, .err = err, .errlen = errlen };
	err[0] = '\0';
	c->gres_read = true;
	return read_file(&r, path);
}
