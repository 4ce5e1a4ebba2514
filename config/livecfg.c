/* livecfg — LIVE.json. See livecfg.h; docs/live.md "Configuration". */
#include "config/livecfg.h"
#include "config/jv.h"

#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const top_keys[] = { "scenario", "policy", "executor", "state_dir", "tick_s",
	"probe_every_s", "record_every_s", "results_every_s", "max_jobs", "keep_ended", "snapshot_every", "snapshot_keep", "snapshot_keep_every_s", "prune_keep_days", "prune_every_s", "hot_c", "cool_c", "xid_repair_s",
	"stale_s", "probes", "local", "slurm", "metrics", "socket", "operators", "state_group", "audit_key",
	"max_pending_per_user", NULL };
static const char *const local_keys[] = { "signal", "cgroup_parent", "nvml_lib", "sysfs_root", NULL };
static const char *const slurm_keys[] = { "bindir", "partition", "class_partition", "qos", "accounts",
	"account", "gres_types", "mig_gres", "shards_per_gpu", "mem_mib_default", "start_timeout_s", "parallel",
	"timeout_s", "workdir", "export", NULL };
static const char *const metrics_keys[] = { "addr", "port", "allow_public", NULL };

static const struct { const char *name; int sig; } signals[] = {
	{ "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "TERM", SIGTERM }, { "INT", SIGINT },
	{ "HUP", SIGHUP }, { "QUIT", SIGQUIT },
};

/* A path from the file: absolute, or relative to the config's directory. */
static void resolve(const struct live_cfg *c, const char *p, char *out, size_t len)
{
	if (p[0] == '/' || !p[0]) {
		snprintf(out, len, "%s", p);
		return;
	}
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s", c->file);
	snprintf(out, len, "%s/%s", dirname(tmp), p);
}

static int load_probe(struct jv *v, struct live_cfg *c, const char *node, const json_t *x, const char *path)
{
	if (c->nprobe >= LIVE_MAX_PROBES)
		return jv_fail(v, path, "more than %d probe entries", LIVE_MAX_PROBES);
	struct live_probe_src *p = &c->probe[c->nprobe];
	if (!json_is_string(x))
		return jv_fail(v, path, "expected \"host\", \"none\" or \"file:PATH\", got %s", jv_type(x));
	const char *s = json_string_value(x);
	snprintf(p->node, sizeof p->node, "%s", node);
	if (strcmp(s, "host") == 0)
		p->kind = LIVE_PROBE_HOST;
	else if (strcmp(s, "none") == 0)
		p->kind = LIVE_PROBE_NONE;
	else if (strncmp(s, "file:", 5) == 0 && s[5]) {
		p->kind = LIVE_PROBE_FILE;
		resolve(c, s + 5, p->path, sizeof p->path);
	} else
		return jv_fail(v, path, "expected \"host\", \"none\" or \"file:PATH\", got \"%.80s\"", s);
	c->nprobe++;
	return 0;
}

/* An object of strings at path.key into m. */
static int load_map(struct jv *v, const json_t *o, const char *path, const char *key, struct live_map *m)
{
	json_t *x = json_object_get(o, key);
	char p[256];
	snprintf(p, sizeof p, "%s.%s", path, key);
	m->n = 0;
	if (!x)
		return 0;
	if (!json_is_object(x))
		return jv_fail(v, p, "expected an object of strings, got %s", jv_type(x));
	const char *k;
	json_t *val;
	json_object_foreach((json_t *)x, k, val) {
		char q[320];
		snprintf(q, sizeof q, "%s.%s", p, k);
		if (m->n == LIVE_MAP_MAX)
			return jv_fail(v, p, "more than %d entries", LIVE_MAP_MAX);
		if (!json_is_string(val))
			return jv_fail(v, q, "expected a string, got %s", jv_type(val));
		const char *sv = json_string_value(val);
		if (strlen(k) >= sizeof m->e[0].k || strlen(sv) >= sizeof m->e[0].v || !sv[0])
			return jv_fail(v, q, "expected a non-empty name of at most %zu characters", sizeof m->e[0].v - 1);
		for (const char *c = sv; *c; c++)
			if ((unsigned char)*c <= ' ' || *c == ',' || *c == '\'' || *c == '"' || *c == 0x7f)
				return jv_fail(v, q, "\"%.60s\": expected a Slurm name (no spaces, commas or quotes)", sv);
		snprintf(m->e[m->n].k, sizeof m->e[0].k, "%s", k);
		snprintf(m->e[m->n].v, sizeof m->e[0].v, "%s", sv);
		m->n++;
	}
	return 0;
}


static int load_slurm(struct jv *v, struct live_cfg *c, const json_t *sl)
{
	struct live_slurm_cfg *s = &c->slurm;
	const char *P = "$.slurm";
	char tmp[PATH_MAX] = "";
	long long ll;
	if (jv_object(v, sl, P, slurm_keys) || jv_str(v, sl, P, "bindir", false, s->bindir, sizeof s->bindir))
		return -1;
	json_t *pa = json_object_get(sl, "partition");
	if (json_is_string(pa)) {
		if (jv_str(v, sl, P, "partition", false, s->partition[0], sizeof s->partition[0]))
			return -1;
		s->npartition = s->partition[0][0] ? 1 : 0;
	} else if (json_is_array(pa)) {
		size_t i;
		json_t *x;
		json_array_foreach(pa, i, x) {
			char q[64];
			snprintf(q, sizeof q, "$.slurm.partition[%zu]", i);
			if (i >= LIVE_MAX_PARTITIONS)
				return jv_fail(v, "$.slurm.partition", "more than %d partitions", LIVE_MAX_PARTITIONS);
			if (!json_is_string(x) || !json_string_value(x)[0] || strlen(json_string_value(x)) >= 64)
				return jv_fail(v, q, "expected a partition name of 1 to 63 characters");
			snprintf(s->partition[s->npartition++], 64, "%s", json_string_value(x));
		}
	} else if (pa) {
		return jv_fail(v, "$.slurm.partition", "expected a partition name or an array of them, got %s", jv_type(pa));
	}
	if (load_map(v, sl, P, "class_partition", &s->class_partition) || load_map(v, sl, P, "qos", &s->qos) ||
	    load_map(v, sl, P, "accounts", &s->accounts) || load_map(v, sl, P, "gres_types", &s->gres_types) ||
	    load_map(v, sl, P, "mig_gres", &s->mig_gres) ||
	    jv_str(v, sl, P, "account", false, s->account, sizeof s->account) ||
	    jv_num(v, sl, P, "start_timeout_s", false, 1, 86400, &s->start_timeout_s) ||
	    jv_str(v, sl, P, "workdir", false, tmp, sizeof tmp))
		return -1;
	if (tmp[0])
		resolve(c, tmp, s->workdir, sizeof s->workdir);
	tmp[0] = 0;
	if (jv_str(v, sl, P, "export", false, tmp, sizeof tmp))
		return -1;
	/* "login" by default: it gives the job its user's login environment
	 * (profile, modules), which site scripts expect; "minimal" starts jobs
	 * 4 to 13 times faster (docs/slurm.md; the races it once exposed are
	 * fixed). */
	if (!tmp[0] || strcmp(tmp, "login") == 0)
		s->export_env = LIVE_SLURM_EXPORT_LOGIN;
	else if (strcmp(tmp, "minimal") == 0)
		s->export_env = LIVE_SLURM_EXPORT_MINIMAL;
	else
		return jv_fail(v, "$.slurm.export", "expected \"minimal\" or \"login\", got \"%.60s\"", tmp);
	ll = 0;
	if (jv_int(v, sl, P, "shards_per_gpu", false, 0, 100000, &ll))
		return -1;
	s->shards_per_gpu = (int)ll;
	ll = 0;
	if (jv_int(v, sl, P, "mem_mib_default", false, 0, (long long)1 << 40, &ll))
		return -1;
	s->mem_mib_default = ll;
	ll = s->parallel;
	if (jv_int(v, sl, P, "parallel", false, 1, 64, &ll))
		return -1;
	s->parallel = (int)ll;
	ll = s->timeout_s;
	if (jv_int(v, sl, P, "timeout_s", false, 1, 3600, &ll))
		return -1;
	s->timeout_s = (int)ll;
	return 0;
}

int livecfg_load(const char *path, struct live_cfg *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	snprintf(c->file, sizeof c->file, "%s", path);
	c->tick_s = 1;
	c->probe_every_s = 10;
	c->record_every_s = 60;
	c->results_every_s = 300;
	c->max_jobs = 100000;
	c->keep_ended = 1000;
	c->snapshot_every = 1000;
	c->snapshot_keep = 48;
	c->snapshot_keep_every_s = 3600;
	c->prune_keep_days = -1;
	c->prune_every_s = 3600;
	c->max_pending_per_user = 10000;
	c->xid_repair_s = 86400;
	c->sig = SIGUSR1;
	snprintf(c->sysfs_root, sizeof c->sysfs_root, "/");
	json_t *root = jsonfile_load(path, err, errlen);
	if (!root)
		return -1;
	struct jv v = { .file = path, .err = err, .errlen = errlen };
	char s[PATH_MAX], tmp[PATH_MAX];
	long long ll;
	if (jv_object(&v, root, "$", top_keys))
		goto fail;
	if (jv_str(&v, root, "$", "scenario", true, tmp, sizeof tmp))
		goto fail;
	resolve(c, tmp, c->scenario, sizeof c->scenario);
	if (jv_str(&v, root, "$", "policy", false, c->policy, sizeof c->policy))
		goto fail;
	s[0] = 0;
	if (jv_str(&v, root, "$", "executor", false, s, sizeof s))
		goto fail;
	const struct live_executor *ex = exec_find(s);
	if (!ex) {
		char names[256];
		exec_names(names, sizeof names, "\"");
		jv_fail(&v, "$.executor", "expected %s, got \"%.60s\"", names, s);
		goto fail;
	}
	snprintf(c->exec, sizeof c->exec, "%s", exec_name(ex));
	snprintf(tmp, sizeof tmp, "hetlab-state");
	if (jv_str(&v, root, "$", "state_dir", false, tmp, sizeof tmp))
		goto fail;
	resolve(c, tmp, c->state_dir, sizeof c->state_dir);
	tmp[0] = 0;
	if (jv_str(&v, root, "$", "socket", false, tmp, sizeof tmp) ||
	    jv_str(&v, root, "$", "operators", false, c->operators, sizeof c->operators) ||
	    jv_str(&v, root, "$", "state_group", false, c->state_group, sizeof c->state_group) ||
	    jv_str(&v, root, "$", "audit_key", false, c->audit_key, sizeof c->audit_key))
		goto fail;
	if (json_object_get(root, "audit_key") && !c->audit_key[0]) {
		jv_fail(&v, "$.audit_key", "expected the path of a key file (docs/audit.md), got \"\"");
		goto fail;
	}
	if (tmp[0]) {
		resolve(c, tmp, c->socket, sizeof c->socket);
		if (strlen(c->socket) >= 108) {
			jv_fail(&v, "$.socket", "expected a path of at most 107 bytes (a Unix socket's limit), got %zu",
			        strlen(c->socket));
			goto fail;
		}
	}
	if (jv_num(&v, root, "$", "tick_s", false, 0.001, 3600, &c->tick_s) ||
	    jv_num(&v, root, "$", "probe_every_s", false, 0.01, 86400, &c->probe_every_s) ||
	    jv_num(&v, root, "$", "record_every_s", false, 0, 86400 * 7, &c->record_every_s) ||
	    jv_num(&v, root, "$", "results_every_s", false, 0, 86400 * 7, &c->results_every_s) ||
	    jv_num(&v, root, "$", "hot_c", false, 0, 200, &c->hot_c) ||
	    jv_num(&v, root, "$", "cool_c", false, 0, 200, &c->cool_c) ||
	    jv_num(&v, root, "$", "xid_repair_s", false, 1, 86400 * 365, &c->xid_repair_s))
		goto fail;
	c->stale_s = 3 * c->probe_every_s;
	if (jv_num(&v, root, "$", "stale_s", false, 0.01, 86400 * 7, &c->stale_s))
		goto fail;
	ll = c->max_jobs;
	if (jv_int(&v, root, "$", "max_jobs", false, 1, 100000000, &ll))
		goto fail;
	c->max_jobs = (int32_t)ll;
	ll = c->keep_ended;
	if (jv_int(&v, root, "$", "keep_ended", false, 0, 100000000, &ll))
		goto fail;
	c->keep_ended = (int32_t)ll;
	ll = c->snapshot_every;
	if (jv_int(&v, root, "$", "snapshot_every", false, 0, 100000000, &ll))
		goto fail;
	c->snapshot_every = (int32_t)ll;
	ll = c->snapshot_keep;
	if (jv_int(&v, root, "$", "snapshot_keep", false, 0, 100000, &ll) ||
	    jv_num(&v, root, "$", "snapshot_keep_every_s", false, 0, 1e9, &c->snapshot_keep_every_s))
		goto fail;
	c->snapshot_keep = (int32_t)ll;
	if (jv_num(&v, root, "$", "prune_keep_days", false, 0, 1e6, &c->prune_keep_days) ||
	    jv_num(&v, root, "$", "prune_every_s", false, 0.01, 86400 * 365, &c->prune_every_s))
		goto fail;
	/* a prune cuts at a kept snapshot at or before its cutoff: one that
	 * old must be kept */
	if (c->prune_keep_days >= 0 && (c->snapshot_keep <= 0 || c->snapshot_every <= 0)) {
		jv_fail(&v, "$.prune_keep_days", "expected snapshot_every and snapshot_keep above 0 (a prune cuts the "
		        "state at a kept snapshot), got %d and %d", c->snapshot_every, c->snapshot_keep);
		goto fail;
	}
	double span = (double)c->snapshot_keep * c->snapshot_keep_every_s;
	if (c->prune_keep_days >= 0 && c->snapshot_keep_every_s > 0 && c->prune_keep_days * 86400 >= span) {
		jv_fail(&v, "$.prune_keep_days", "expected fewer days than the kept snapshots span (snapshot_keep %d x "
		        "snapshot_keep_every_s %g s = %g days: a prune cuts at a kept snapshot at or before its cutoff), got %g",
		        c->snapshot_keep, c->snapshot_keep_every_s, span / 86400, c->prune_keep_days);
		goto fail;
	}
	ll = c->max_pending_per_user;
	if (jv_int(&v, root, "$", "max_pending_per_user", false, 0, 100000000, &ll))
		goto fail;
	c->max_pending_per_user = (int32_t)ll;
	if (c->hot_c > 0 && c->cool_c >= c->hot_c) {
		jv_fail(&v, "$.cool_c", "expected a temperature below hot_c (%g), got %g", c->hot_c, c->cool_c);
		goto fail;
	}
	json_t *pr = json_object_get(root, "probes");
	if (pr) {
		if (json_is_string(pr)) {
			if (load_probe(&v, c, "", pr, "$.probes"))
				goto fail;
		} else if (json_is_object(pr)) {
			const char *k;
			json_t *x;
			json_object_foreach(pr, k, x) {
				char p[256];
				jv_subpath(p, sizeof p, "$.probes", k);
				if (strlen(k) >= sizeof c->probe[0].node) {
					jv_fail(&v, p, "node name too long");
					goto fail;
				}
				if (load_probe(&v, c, strcmp(k, "default") == 0 ? "" : k, x, p))
					goto fail;
			}
		} else {
			jv_fail(&v, "$.probes", "expected a string or an object of node → source, got %s", jv_type(pr));
			goto fail;
		}
	}
	json_t *lo = json_object_get(root, "local");
	if (lo) {
		if (jv_object(&v, lo, "$.local", local_keys))
			goto fail;
		s[0] = 0;
		if (jv_str(&v, lo, "$.local", "signal", false, s, sizeof s))
			goto fail;
		if (s[0]) {
			const char *n = strncmp(s, "SIG", 3) == 0 ? s + 3 : s;
			size_t i = 0;
			while (i < sizeof signals / sizeof signals[0] && strcmp(signals[i].name, n) != 0)
				i++;
			if (i == sizeof signals / sizeof signals[0]) {
				jv_fail(&v, "$.local.signal", "expected USR1, USR2, TERM, INT, HUP or QUIT, got \"%.40s\"", s);
				goto fail;
			}
			c->sig = signals[i].sig;
		}
		tmp[0] = 0;
		if (jv_str(&v, lo, "$.local", "cgroup_parent", false, c->cgroup_parent, sizeof c->cgroup_parent) ||
		    jv_str(&v, lo, "$.local", "nvml_lib", false, c->nvml_lib, sizeof c->nvml_lib) ||
		    jv_str(&v, lo, "$.local", "sysfs_root", false, tmp, sizeof tmp))
			goto fail;
		if (tmp[0])
			resolve(c, tmp, c->sysfs_root, sizeof c->sysfs_root);
	}
	json_t *sl = json_object_get(root, "slurm");
	c->slurm.start_timeout_s = 30;
	c->slurm.parallel = 16;
	c->slurm.timeout_s = 30;
	if (sl && load_slurm(&v, c, sl))
		goto fail;
	json_t *me = json_object_get(root, "metrics");
	if (me) {
		if (jv_object(&v, me, "$.metrics", metrics_keys))
			goto fail;
		snprintf(c->metrics_addr, sizeof c->metrics_addr, "127.0.0.1");
		c->metrics_port = 9464;
		ll = c->metrics_port;
		if (jv_str(&v, me, "$.metrics", "addr", false, c->metrics_addr, sizeof c->metrics_addr) ||
		    jv_int(&v, me, "$.metrics", "port", false, 0, 65535, &ll) ||
		    jv_bool(&v, me, "$.metrics", "allow_public", &c->metrics_public))
			goto fail;
		c->metrics_port = (int)ll;
	}
	json_decref(root);
	return 0;
fail:
	json_decref(root);
	return -1;
}
