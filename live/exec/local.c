/* local — the local executor as the daemon drives it (lx_executor,
 * registered as "local"; the contract is live/exec/executor.h): the
 * engine's decisions (start, signal, stop, drain) turned into calls of the
 * low-level process runner (live/exec/local_proc.c), and its observations
 * turned back into job ends.
 *
 * Every node of the scenario runs its jobs on this host (a one-node
 * scenario is this host; more nodes are a test or demo set-up).
 * Core k of a node is host CPU k mod the host's CPU count; a node's NUMA
 * domains are contiguous ranges of its cores, as the model splits them, so
 * the cores a job gets in domain d are CPUs of that range. The job's
 * files are STATE_DIR/jobs/KEY.* with KEY = id × 256 + attempt mod 256
 * (one set per attempt); its output STATE_DIR/jobs/ID.out (appended), ID
 * the job's id in the state (live_sid), never the engine's index. */
#include "live/exec/executor.h"
#include "live/exec/local_proc.h"
#include "live/nvml.h"
#include "sim/mig.h"
#include "live/topo.h"
#include "live/statedir.h"

#include <errno.h>
#include <pwd.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

static int64_t job_key(const struct live *L, int32_t id)
{
	return live_sid(L, id) * 256 + (L->s.jobs[id].restarts & 0xff);
}

static const struct alloc_part *job_parts(const struct live *L, int32_t id)
{
	return &L->s.cl.pool.p[L->s.jobs[id].parts];
}

/* ---- local ---- */

struct lxc {
	int ncpu;
	int words;               /* per node in busy */
	uint64_t *busy;          /* nnodes × words: cores in use */
	struct topo *topo;       /* this host's (hwloc), NULL when unknown */
};

/* The host CPUs (PUs) of core `core` of node `node`: with the host's
 * topology, the core-th core of the host's NUMA node d for a core of the
 * model's domain d (every PU of it: a job gets whole cores); else CPU
 * core mod the host's CPU count. Returns how many were written. */
static int host_pus(const struct live *L, const struct lxc *c, int32_t node, int core, int *out, int cap)
{
	const struct node *n = &L->s.cl.nodes[node];
	int nd = n->numa > 0 ? n->numa : 1;
	if (c->topo && c->topo->nnuma >= nd && cap > 0) {
		int d = (int)((int64_t)core * nd / (n->cores > 0 ? n->cores : 1));
		while (d + 1 < nd && core >= (int)((int64_t)(d + 1) * n->cores / nd))
			d++;
		while (d > 0 && core < (int)((int64_t)d * n->cores / nd))
			d--;
		int j = core - (int)((int64_t)d * n->cores / nd);
		/* Host NUMA nodes with CPUs, in order: the d-th of them. */
		int seen = -1, hd = -1;
		for (int k = 0; k < c->topo->nnuma && hd < 0; k++)
			if (c->topo->numa[k].ncores > 0 && ++seen == d)
				hd = k;
		for (int k = 0, m = 0; hd >= 0 && k < c->topo->ncores; k++) {
			const struct topo_core *tc = &c->topo->core[k];
			if (tc->numa != hd)
				continue;
			if (m++ == j % (c->topo->numa[hd].ncores > 0 ? c->topo->numa[hd].ncores : 1)) {
				int w = 0;
				for (int p = 0; p < tc->npus && w < cap; p++)
					out[w++] = tc->pus[p];
				return w;
			}
		}
	}
	if (cap < 1)
		return 0;
	out[0] = core % c->ncpu;
	return 1;
}

static int local_init(struct live *L, char *err, size_t errlen)
{
	struct lxc *c = calloc(1, sizeof *c);
	if (!c)
		goto oom;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	c->ncpu = n > 0 ? (int)n : 1;
	int maxc = 1;
	for (int32_t i = 0; i < L->s.cl.nnodes; i++)
		if (L->s.cl.nodes[i].cores > maxc)
			maxc = L->s.cl.nodes[i].cores;
	c->words = (maxc + 63) / 64;
	if (!(c->busy = calloc((size_t)L->s.cl.nnodes * (size_t)c->words + 1, sizeof *c->busy)))
		goto oom;
	snprintf(L->jobdir, sizeof L->jobdir, "%s/jobs", L->cfg.state_dir);
	if (lsdir_subdir(L->cfg.state_dir, "jobs", err, errlen)) {
		free(c->busy);
		free(c);
		return -1;
	}
	/* The host's topology maps the model's NUMA domains onto the real
	 * ones; without it, cores map to CPUs by number. */
	if ((c->topo = malloc(sizeof *c->topo)) && topo_read_host(c->topo) != 0) {
		live_log(L, "no CPU topology (%s): core k is CPU k mod %d", c->topo->err, c->ncpu);
		free(c->topo);
		c->topo = NULL;
	}
	L->xctx = c;
	return 0;
oom:
	if (c)
		free(c->busy);
	free(c);
	snprintf(err, errlen, "out of memory");
	return -1;
}

static void local_mark(struct live *L, int32_t id, bool on)
{
	struct lxc *c = L->xctx;
	const struct job *j = &L->s.jobs[id];
	const struct jobx *x = &L->jx[id];
	/* cpus[] hold node-local core numbers of the first part (the host). */
	if (j->nparts < 1)
		return;
	uint64_t *b = &c->busy[(size_t)job_parts(L, id)[0].node * (size_t)c->words];
	for (int k = 0; k < x->ncpus; k++) {
		int core = x->cpus[k];
		if (on)
			b[core / 64] |= 1ull << (core % 64);
		else
			b[core / 64] &= ~(1ull << (core % 64));
	}
}

/* Room for n cores in x->cpus. */
static int cpus_room(struct jobx *x, int n)
{
	if (n <= x->capcpus)
		return 0;
	int *c = realloc(x->cpus, (size_t)n * sizeof *c);
	if (!c)
		return -1;
	x->cpus = c;
	x->capcpus = n;
	return 0;
}

/* Picks the cores of part p on its node: per NUMA domain, the free cores of
 * the domain's range. */
static int local_pick(struct live *L, int32_t id)
{
	struct lxc *c = L->xctx;
	struct jobx *x = &L->jx[id];
	const struct alloc_part *p = &job_parts(L, id)[0];
	const struct node *n = &L->s.cl.nodes[p->node];
	uint64_t *b = &c->busy[(size_t)p->node * (size_t)c->words];
	int nd = n->numa > 0 ? n->numa : 1, want_total = p->cores;
	x->ncpus = 0;
	if (cpus_room(x, p->cores > 0 ? p->cores : 1))
		return -1;
	int sum = 0;
	for (int d = 0; d < nd && d < HL_NUMA_MAX; d++)
		sum += p->numa_cores[d];
	for (int d = 0; d < nd; d++) {
		int lo = (int)((int64_t)d * n->cores / nd), hi = (int)((int64_t)(d + 1) * n->cores / nd);
		int want = sum > 0 ? (d < HL_NUMA_MAX ? p->numa_cores[d] : 0) : want_total - x->ncpus;
		for (int core = lo; core < hi && want > 0 && x->ncpus < x->capcpus; core++)
			if (!((b[core / 64] >> (core % 64)) & 1)) {
				x->cpus[x->ncpus++] = core;
				want--;
			}
	}
	return 0;
}

static int read_cpus_file(struct live *L, int32_t id)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%" PRId64 ".cpus", L->jobdir, job_key(L, id));
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	struct jobx *x = &L->jx[id];
	if (!f && fd >= 0)
		close(fd);
	x->ncpus = 0;
	if (!f)
		return -1;
	int v;
	while (fscanf(f, "%d", &v) == 1 && v >= 0) {
		if (x->ncpus == x->capcpus && cpus_room(x, x->capcpus ? 2 * x->capcpus : 16))
			break;
		x->cpus[x->ncpus++] = v;
	}
	fclose(f);
	return 0;
}

static void local_adopt(struct live *L, int32_t id)
{
	if (read_cpus_file(L, id) == 0)
		local_mark(L, id, true);
}

/* The UUID of the MIG device the model's instance (p: its card and start
 * memory slice) is, from NVML (the host probe's session, else one read),
 * into cuda. When there is none (the card is not in MIG mode, its layout
 * is not the scenario's, NVML lacks the placement), cuda stays the card's
 * index and a warning goes to the job's output. */
static void mig_device(struct live *L, const struct alloc_part *p, const char *out, char *cuda, size_t len)
{
	struct nvml_probe *own = NULL;
	const struct nvml_probe *gp = L->nvs ? L->gpus : NULL;
	if (!gp && (own = malloc(sizeof *own))) {
		const char *lib = getenv("HETLAB_NVML_LIB");
		nvml_probe_read(lib && lib[0] ? lib : L->cfg.nvml_lib[0] ? L->cfg.nvml_lib : NULL, own);
		gp = own;
	}
	int card = p->gpus ? __builtin_ctzll(p->gpus) : -1;
	const struct nvml_mig *m = NULL;
	if (gp && card >= 0 && card < gp->ngpus && gp->gpu[card].mig_on)
		m = nvml_mig_at(&gp->gpu[card], (unsigned)p->mig_start);
	if (m && m->uuid[0]) {
		snprintf(cuda, len, "%s", m->uuid);
	} else {
		int fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
		FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
		if (!f && fd >= 0)
			close(fd);
		if (f) {
			fprintf(f, "hetlab: warning: no MIG device of GPU %d starts at memory slice %d (%s); "
			        "CUDA_VISIBLE_DEVICES is the card\n", card, p->mig_start,
			        !gp || !gp->loaded ? "no NVML" : card >= gp->ngpus ? "no such GPU"
			        : !gp->gpu[card].mig_on ? "MIG is off on it" : "its MIG layout is not the scenario's");
			fclose(f);
		}
	}
	free(own);
}

/* Who a job runs as on this host: its submitter when that is not the
 * daemon's user (then the daemon must be root; a job of another user is
 * never run as the daemon's user), with that user's home, shell and names
 * and without the daemon's environment. */
struct runas {
	bool other;
	uid_t uid;
	gid_t gid;
	char user[64], home[4096], shell[256];
	char out[64];                 /* the job's own output, in its cwd */
};

static int local_runas(struct live *L, int32_t id, struct runas *ra, char *err, size_t errlen)
{
	const struct jobx *x = &L->jx[id];
	memset(ra, 0, sizeof *ra);
	if (x->uid < 0 || (uid_t)x->uid == geteuid())
		return 0;
	if (geteuid() != 0) {
		snprintf(err, errlen, "job %lld of %s (uid %d): this daemon runs as uid %ld, not as root: it cannot run a job "
		         "as another user", (long long)live_sid(L, id), x->user[0] ? x->user : "?", x->uid, (long)geteuid());
		return -1;
	}
	struct passwd pw, *res = NULL;
	char buf[8192];
	if (getpwuid_r((uid_t)x->uid, &pw, buf, sizeof buf, &res) != 0 || !res) {
		snprintf(err, errlen, "job %lld: its submitter uid %d has no passwd entry any more: not run",
		         (long long)live_sid(L, id), x->uid);
		return -1;
	}
	ra->other = true;
	ra->uid = (uid_t)x->uid;
	ra->gid = (gid_t)x->gid;
	snprintf(ra->user, sizeof ra->user, "%s", res->pw_name);
	snprintf(ra->home, sizeof ra->home, "%s", res->pw_dir && res->pw_dir[0] ? res->pw_dir : "/");
	snprintf(ra->shell, sizeof ra->shell, "%s", res->pw_shell && res->pw_shell[0] ? res->pw_shell : "/bin/sh");
	snprintf(ra->out, sizeof ra->out, "hetlab-%lld.out", (long long)live_sid(L, id));
	return 0;
}

/* The environment of another user's job: its own and hetlab's (env),
 * its user's names, home and shell, and a PATH. */
static char **runas_env(char **env, const struct runas *ra)
{
	int n = 0;
	while (env && env[n])
		n++;
	char **e = realloc(env, ((size_t)n + 6) * sizeof *e);
	if (!e)
		return env;
	const char *path = getenv("PATH");
	char *add[5] = { NULL };
	if (asprintf(&add[0], "HOME=%s", ra->home) < 0 || asprintf(&add[1], "USER=%s", ra->user) < 0 ||
	    asprintf(&add[2], "LOGNAME=%s", ra->user) < 0 || asprintf(&add[3], "SHELL=%s", ra->shell) < 0 ||
	    asprintf(&add[4], "PATH=%s", path && path[0] ? path : "/usr/local/bin:/usr/bin:/bin") < 0) {
		e[n] = NULL;
		return e;
	}
	/* The job's own env comes after, so that it wins (lx_spec: the last
	 * of a repeated name). */
	memmove(e + 5, e, (size_t)n * sizeof *e);
	for (int k = 0; k < 5; k++)
		e[k] = add[k];
	e[n + 5] = NULL;
	return e;
}

static int local_start(struct live *L, int32_t id, char *err, size_t errlen)
{
	struct lxc *c = L->xctx;
	struct jobx *x = &L->jx[id];
	int64_t key = job_key(L, id);
	struct lx_result r;
	if (lx_poll(L->jobdir, key, &r) == 0 && r.st != LX_NEVER) {
		local_adopt(L, id);   /* launched before a crash: it is that run */
		return 0;
	}
	if (!x->argv) {
		snprintf(err, errlen, "job %lld has no argv to run", (long long)live_sid(L, id));
		return -1;
	}
	struct runas ra;
	if (local_runas(L, id, &ra, err, errlen))
		return -1;
	if (local_pick(L, id)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	char path[4200];
	snprintf(path, sizeof path, "%s/%" PRId64 ".cpus", L->jobdir, key);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	for (int k = 0; k < x->ncpus; k++)
		fprintf(f, "%d\n", x->cpus[k]);
	if (fclose(f) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	local_mark(L, id, true);
	int hcpus[4096], nh = 0;
	for (int k = 0; k < x->ncpus; k++)
		nh += host_pus(L, c, job_parts(L, id)[0].node, x->cpus[k], hcpus + nh, (int)(sizeof hcpus / sizeof hcpus[0]) - nh);
	/* GPUs: whole cards and shares by index; a MIG instance by the UUID of
	 * its MIG device, with its card, profile and start slice in HETLAB_MIG. */
	const struct alloc_part *p = &job_parts(L, id)[0];
	char cuda[256] = "", extra[128] = "";
	size_t off = 0;
	for (int g = 0; g < 64 && off < sizeof cuda; g++)
		if ((p->gpus >> g) & 1)
			off += (size_t)snprintf(cuda + off, sizeof cuda - off, "%s%d", off ? "," : "", g);
	char out[4200];
	snprintf(out, sizeof out, "%s/%lld.out", L->jobdir, (long long)live_sid(L, id));
	if (p->mig_profile >= 0) {
		const struct node *nd = &L->s.cl.nodes[p->node];
		const struct gpustate *gs = p->gpus ? &L->s.cl.gpu[nd->gpu0 + __builtin_ctzll(p->gpus)] : NULL;
		snprintf(extra, sizeof extra, "HETLAB_MIG=%s:%s:%d", cuda,
		         gs && gs->mig ? gs->mig->card->profiles[p->mig_profile].name : "?", p->mig_start);
		mig_device(L, p, out, cuda, sizeof cuda);
	} else if (p->milli > 0) {
		snprintf(extra, sizeof extra, "HETLAB_GPU_MILLI=%d", p->milli);
	}
	char **env = exec_job_env(L, id, extra[0] ? extra : NULL, false);
	if (ra.other)
		env = runas_env(env, &ra);
	struct lx_spec sp = {
		.argv = (const char *const *)x->argv,
		.env = (const char *const *)env,
		.cwd = x->cwd ? x->cwd : ra.other ? ra.home : NULL,
		.cpus = hcpus,
		.ncpus = nh,
		.cuda_visible = L->s.cl.nodes[p->node].ngpus > 0 ? cuda : NULL,
		.out_path = out,
		.out_append = 1,
		.cgroup_parent = L->cfg.cgroup_parent[0] ? L->cfg.cgroup_parent : NULL,
		.mem_max_bytes = L->cfg.cgroup_parent[0] ? p->mem_mib * 1048576 : 0,
		.cpu_max_cores = L->cfg.cgroup_parent[0] ? p->cores : 0,
		/* Another user's job: as that user, its output in its cwd (the
		 * launcher's own messages stay in out). */
		.run_as = ra.other,
		.uid = ra.uid,
		.gid = ra.gid,
		.user = ra.other ? ra.user : NULL,
		.user_out = ra.other ? ra.out : NULL,
		.clean_env = ra.other,
	};
	struct lx_handle h;
	int rc = lx_launch(L->jobdir, key, &sp, &h, err, errlen);
	exec_strv_free(env);
	if (rc)
		local_mark(L, id, false);
	else
		snprintf(x->ref, sizeof x->ref, "pid %d", (int)h.job);
	return rc;
}

static int local_signal(struct live *L, int32_t id)
{
	return lx_signal(L->jobdir, job_key(L, id), L->cfg.sig);
}

static int local_stop(struct live *L, int32_t id, enum exec_stop how)
{
	(void)how;
	int64_t key = job_key(L, id);
	struct lx_result r;
	if (lx_poll(L->jobdir, key, &r) == 0 && r.st == LX_RUNNING)
		lx_kill(L->jobdir, key);
	local_mark(L, id, false);
	return 0;
}

static int local_node_state(struct live *L, int32_t node, bool drain, const char *reason)
{
	live_log(L, "node %s %s%s%s", L->s.cl.nodes[node].name, drain ? "drained" : "resumed",
	         reason && reason[0] ? ": " : "", reason ? reason : "");
	return 0;
}

static int local_poll(struct live *L, int32_t id, enum job_state *st, enum end_reason *why, char *msg, size_t len)
{
	struct lx_result r;
	int64_t key = job_key(L, id);
	if (lx_poll(L->jobdir, key, &r) < 0)
		return 0;
	switch (r.st) {
	case LX_RUNNING:
		return 0;
	case LX_EXITED:
		if (r.sig == 0 && r.code == 0) {
			*st = JOB_DONE;
			*why = END_NONE;
			snprintf(msg, len, "exit 0");
		} else {
			*st = JOB_FAILED;
			*why = END_EXIT;
			if (r.sig)
				snprintf(msg, len, "signal %d", r.sig);
			else
				snprintf(msg, len, "exit %d", r.code);
		}
		break;
	default:
		*st = JOB_FAILED;
		*why = END_NODE_FAIL;
		snprintf(msg, len, r.st == LX_LOST ? "lost: its shim died" : "lost: never launched");
		break;
	}
	local_mark(L, id, false);
	return 1;
}

static void local_ended(struct live *L, int32_t id, int32_t attempt)
{
	int64_t key = live_sid(L, id) * 256 + (attempt & 0xff);
	char path[4200];
	snprintf(path, sizeof path, "%s/%" PRId64 ".cpus", L->jobdir, key);
	if (lx_remove(L->jobdir, key) == 0)
		unlink(path);
}

static void local_fini(struct live *L)
{
	struct lxc *c = L->xctx;
	if (c) {
		free(c->busy);
		free(c->topo);
	}
	free(c);
	L->xctx = NULL;
}

const struct live_executor lx_executor = {
	.name = "local",
	.flags = EXEC_COMPACT,   /* it names jobs by state id, keeps nothing by index outside L->jx */
	.init = local_init,
	.start = local_start,
	.signal = local_signal,
	.stop = local_stop,
	.node_state = local_node_state,
	.poll = local_poll,
	.adopt = local_adopt,
	.ended = local_ended,
	.fini = local_fini,
};
