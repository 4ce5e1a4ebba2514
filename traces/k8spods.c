/* k8spods — `kubectl get pods -A -o json` as a trace (k8s.h; the mapping
 * is docs/traces.md, "Kubernetes").
 *
 * Two passes. The first reads every pod of the List into a struct kpod:
 * its times (Unix µs), phase, the pod's effective request (as the
 * scheduler computes it: the app containers summed, native sidecars
 * included, against the largest init container, plus the pod overhead;
 * a container's limit stands in for a request it does not give), and its
 * node constraints as label expressions interned in the workload. The
 * second makes the jobs: times relative to the earliest creation, a
 * Running pod's end at the last time the file tells of, the members of a
 * PodGroup joined into one gang job. The node constraints are k8ssel.c's. */
#include "traces/k8s.h"
#include "traces/k8sutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/prioclass.h"

#define K_MAX_GPUS 64
#define MIB (INT64_C(1) << 20)

enum kphase { KP_PENDING, KP_RUNNING, KP_SUCCEEDED, KP_FAILED, KP_UNKNOWN, KP_N };
static const char *const phase_names[KP_N] = { "Pending", "Running", "Succeeded", "Failed", "Unknown" };

/* A container's or the pod's resources. */
struct kres {
	int64_t cpu_milli, mem_bytes, gpus;
	int64_t gpumem_mib, gpucores;       /* HAMi; gpucores -1 when not given */
	int64_t mig_n;                      /* MIG instances of profile mig_g / mig_gib */
	int32_t mig_g, mig_gib;
};

struct kpod {
	char *name;             /* "namespace/name" (owned) */
	char *group;            /* "namespace/podgroup" (owned), NULL none */
	int32_t tenant;         /* the namespace, in WL_USER */
	int32_t item;           /* index in items */
	int64_t create_us, start_us, end_us;   /* Unix µs; -1 unknown */
	int phase;              /* enum kphase */
	int cls;
	int16_t sel_req, sel_pref;
	int16_t tolerate;       /* spec.tolerations, interned + 1; 0 none */
	uint64_t models;
	simtime walltime_us;
	struct kres r;
};

/* ---- resources ------------------------------------------------------------------ */

#define MIG_PREFIX "nvidia.com/mig-"

/* a + b for quantities of at most 2^62 each, held at 2^62: never overflows. */
static int64_t qadd(int64_t a, int64_t b)
{
	const int64_t max = INT64_C(1) << 62;
	return a > max - b ? max : a + b;
}

/* "1g.10gb", "3g.40gb", "1c.3g.40gb" (a compute instance of a 3g GPU
 * instance: the card gives 3 slices), with "+me" or ".me": slices and GB. */
static int mig_profile(const char *s, int32_t *g, int32_t *gib)
{
	int c = 0, a = 0, m = 0, used = 0;
	if (sscanf(s, "%dc.%dg.%dgb%n", &c, &a, &m, &used) == 3 && c >= 1 && c <= a) {
		/* a compute instance: the GPU instance's slices */
	} else if (sscanf(s, "%dg.%dgb%n", &a, &m, &used) != 2) {
		return -1;
	}
	const char *rest = s + used;
	if (*rest && strcmp(rest, "+me") != 0 && strcmp(rest, ".me") != 0)
		return -1;
	if (a < 1 || a > 7 || m < 1 || m > 1024)
		return -1;
	*g = a;
	*gib = m;
	return 0;
}

/* One resource of a container's requests (or limits) into r. */
static int one_resource(struct kpath *k, const json_t *o, const char *key, struct kres *r)
{
	int64_t v;
	if (strcmp(key, "cpu") == 0) {
		if (kp_quantity(k, o, key, true, "a CPU quantity such as \"500m\" or \"2\"", &v))
			return -1;
		r->cpu_milli = v;
	} else if (strcmp(key, "memory") == 0) {
		if (kp_quantity(k, o, key, false, "a memory quantity such as \"512Mi\" or \"4Gi\"", &v))
			return -1;
		r->mem_bytes = v;
	} else if (strcmp(key, "nvidia.com/gpu") == 0) {
		const char *want = "a whole number of GPUs such as \"1\" (0 to 64)";
		if (kp_quantity(k, o, key, true, want, &v))
			return -1;
		if (v % 1000 || v / 1000 > K_MAX_GPUS)
			return kp_fail(k, key, "expected %s, got %.3g", want, (double)v / 1000);
		r->gpus = v / 1000;
	} else if (strncmp(key, MIG_PREFIX, strlen(MIG_PREFIX)) == 0) {
		int32_t g, gib;
		if (mig_profile(key + strlen(MIG_PREFIX), &g, &gib))
			return kp_fail(k, key, "expected a MIG resource such as nvidia.com/mig-1g.10gb "
			               "(slices g . memory gb)");
		const char *want = "a whole number of MIG instances (0 to 7)";
		if (kp_quantity(k, o, key, true, want, &v))
			return -1;
		if (v % 1000 || v / 1000 > 7)
			return kp_fail(k, key, "expected %s, got %.3g", want, (double)v / 1000);
		if (v == 0)
			return 0;
		if (r->mig_n && (r->mig_g != g || r->mig_gib != gib))
			return kp_fail(k, key, "a second MIG profile in one container: a job takes one "
			               "MIG instance of one profile");
		r->mig_n = qadd(r->mig_n, v / 1000);
		r->mig_g = g;
		r->mig_gib = gib;
	} else if (strcmp(key, "nvidia.com/gpumem") == 0) {
		if (kp_quantity(k, o, key, false, "GPU memory in MiB such as \"8000\" (HAMi)", &v))
			return -1;
		r->gpumem_mib = v;
	} else if (strcmp(key, "nvidia.com/gpucores") == 0) {
		const char *want = "a percentage of one GPU's cores, 0 to 100 (HAMi)";
		if (kp_quantity(k, o, key, false, want, &v))
			return -1;
		if (v > 100)
			return kp_fail(k, key, "expected %s, got %lld", want, (long long)v);
		r->gpucores = v;
	}
	/* Anything else (ephemeral-storage, hugepages-*, other devices) is not modelled. */
	return 0;
}

/* A container's resources: requests, and limits where a request is not given. */
static int container_res(struct kpath *k, const json_t *c, struct kres *r)
{
	json_t *res, *req = NULL, *lim = NULL;
	memset(r, 0, sizeof *r);
	r->gpucores = -1;
	if (!json_is_object(c))
		return kp_fail(k, NULL, "expected a container object, got %s", kp_type(c));
	if (kp_obj(k, c, "resources", false, &res))
		return -1;
	if (!res)
		return 0;
	size_t at = kp_key(k, "resources");
	if (kp_obj(k, res, "requests", false, &req) || kp_obj(k, res, "limits", false, &lim))
		goto fail;
	const char *key;
	json_t *v;
	for (int pass = 0; pass < 2; pass++) {
		json_t *o = pass ? lim : req;
		if (!o)
			continue;
		size_t at2 = kp_key(k, pass ? "limits" : "requests");
		json_object_foreach(o, key, v) {
			if (pass && req && json_object_get(req, key))
				continue;
			if (one_resource(k, o, key, r))
				goto fail;
		}
		kp_pop(k, at2);
	}
	kp_pop(k, at);
	return 0;
fail:
	kp_pop(k, at);
	return -1;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static void res_add(struct kres *s, const struct kres *c)
{
	s->cpu_milli = qadd(s->cpu_milli, c->cpu_milli);
	s->mem_bytes = qadd(s->mem_bytes, c->mem_bytes);
	s->gpus = qadd(s->gpus, c->gpus);
	s->gpumem_mib = max64(s->gpumem_mib, c->gpumem_mib);
	s->gpucores = max64(s->gpucores, c->gpucores);
}

static void res_max(struct kres *s, const struct kres *c)
{
	s->cpu_milli = max64(s->cpu_milli, c->cpu_milli);
	s->mem_bytes = max64(s->mem_bytes, c->mem_bytes);
	s->gpus = max64(s->gpus, c->gpus);
	s->gpumem_mib = max64(s->gpumem_mib, c->gpumem_mib);
	s->gpucores = max64(s->gpucores, c->gpucores);
}

/* The MIG instances of container c joined to the pod's p. */
static int res_mig(struct kpath *k, struct kres *p, const struct kres *c)
{
	if (!c->mig_n)
		return 0;
	if (p->mig_n && (p->mig_g != c->mig_g || p->mig_gib != c->mig_gib))
		return kp_fail(k, NULL, "MIG instances of two profiles in one pod: a job takes one "
		               "MIG instance");
	p->mig_n = qadd(p->mig_n, c->mig_n);
	p->mig_g = c->mig_g;
	p->mig_gib = c->mig_gib;
	return 0;
}

/* The pod's effective request (see the file's comment). */
static int pod_res(struct kpath *k, const json_t *spec, struct kres *pod)
{
	json_t *cs, *ics, *ov, *c;
	struct kres sum, init, one;
	size_t i;
	memset(&sum, 0, sizeof sum);
	memset(&init, 0, sizeof init);
	sum.gpucores = init.gpucores = -1;
	if (kp_arr(k, spec, "containers", true, &cs) || kp_arr(k, spec, "initContainers", false, &ics) ||
	    kp_obj(k, spec, "overhead", false, &ov))
		return -1;
	if (json_array_size(cs) == 0)
		return kp_fail(k, "containers", "expected at least one container");
	size_t at = kp_key(k, "containers");
	json_array_foreach(cs, i, c) {
		size_t at2 = kp_idx(k, i);
		if (container_res(k, c, &one) || res_mig(k, &sum, &one))
			goto fail;
		res_add(&sum, &one);
		kp_pop(k, at2);
	}
	kp_pop(k, at);
	at = kp_key(k, "initContainers");
	json_array_foreach(ics, i, c) {
		size_t at2 = kp_idx(k, i);
		if (container_res(k, c, &one))
			goto fail;
		/* A native sidecar (restartPolicy Always) runs beside the app containers. */
		json_t *rp = json_object_get(c, "restartPolicy");
		bool sidecar = json_is_string(rp) && strcmp(json_string_value(rp), "Always") == 0;
		if (res_mig(k, sidecar ? &sum : &init, &one))
			goto fail;
		if (sidecar)
			res_add(&sum, &one);
		else
			res_max(&init, &one);
		kp_pop(k, at2);
	}
	kp_pop(k, at);
	if (init.mig_n > sum.mig_n) {
		sum.mig_n = init.mig_n;
		sum.mig_g = init.mig_g;
		sum.mig_gib = init.mig_gib;
	}
	res_max(&sum, &init);
	if (ov) {
		size_t at2 = kp_key(k, "overhead");
		int64_t cpu = 0, mem = 0;
		if ((json_object_get(ov, "cpu") &&
		     kp_quantity(k, ov, "cpu", true, "a CPU quantity such as \"250m\"", &cpu)) ||
		    (json_object_get(ov, "memory") &&
		     kp_quantity(k, ov, "memory", false, "a memory quantity such as \"120Mi\"", &mem)))
			goto fail;
		sum.cpu_milli = qadd(sum.cpu_milli, cpu);
		sum.mem_bytes = qadd(sum.mem_bytes, mem);
		kp_pop(k, at2);
	}
	*pod = sum;
	return 0;
fail:
	return -1;
}

/* ---- one pod ----------------------------------------------------------------------- */

static const char *const group_keys[][2] = {
	{ "annotations", "scheduling.k8s.io/group-name" },         /* Volcano */
	{ "annotations", "scheduling.volcano.sh/group-name" },     /* Volcano, before 1.0 */
	{ "labels", "scheduling.x-k8s.io/pod-group" },             /* scheduler-plugins coscheduling */
	{ "labels", "pod-group.scheduling.sigs.k8s.io" },          /* its older name */
};

static int pod_meta(struct kctx *c, const json_t *pod, struct kpod *p)
{
	struct kpath *k = &c->k;
	json_t *md, *m;
	const char *name, *ns;
	if (kp_obj(k, pod, "metadata", true, &md))
		return -1;
	size_t at = kp_key(k, "metadata");
	if (kp_str(k, md, "name", true, &name) || kp_str(k, md, "namespace", false, &ns) ||
	    kp_time(k, md, "creationTimestamp", true, &p->create_us))
		return -1;
	if (!*name)
		return kp_fail(k, "name", "expected a pod name, got \"\"");
	if (!ns || !*ns)
		ns = "default";
	size_t n = strlen(ns) + strlen(name) + 2;
	if (!(p->name = malloc(n)))
		return kp_fail(k, NULL, "out of memory");
	snprintf(p->name, n, "%s/%s", ns, name);
	int32_t t = workload_name_add(c->w, WL_USER, ns);
	if (t < 0 || workload_name_add(c->w, WL_ACCOUNT, ns) != t)
		return kp_fail(k, "namespace", "out of memory");
	p->tenant = t;
	for (size_t g = 0; g < sizeof group_keys / sizeof group_keys[0] && !p->group; g++) {
		const char *gname;
		if (kp_obj(k, md, group_keys[g][0], false, &m))
			return -1;
		if (!m)
			continue;
		size_t at2 = kp_key(k, group_keys[g][0]);
		if (kp_str(k, m, group_keys[g][1], false, &gname))
			return -1;
		kp_pop(k, at2);
		if (gname && *gname) {
			n = strlen(ns) + strlen(gname) + 2;
			if (!(p->group = malloc(n)))
				return kp_fail(k, NULL, "out of memory");
			snprintf(p->group, n, "%s/%s", ns, gname);
		}
	}
	/* A controller's pods (ReplicaSet, StatefulSet, DaemonSet) are services. */
	json_t *own = json_object_get(md, "ownerReferences");
	json_t *kind = json_is_array(own) ? json_object_get(json_array_get(own, 0), "kind") : NULL;
	const char *ok = json_is_string(kind) ? json_string_value(kind) : "";
	p->cls = strcmp(ok, "ReplicaSet") == 0 || strcmp(ok, "StatefulSet") == 0 ||
	         strcmp(ok, "DaemonSet") == 0 ? JOB_INFERENCE : -1;
	kp_pop(k, at);
	return 0;
}

/* status: phase, start and end. */
static int pod_status(struct kctx *c, const json_t *pod, struct kpod *p)
{
	struct kpath *k = &c->k;
	json_t *st, *css, *cs;
	const char *phase;
	p->start_us = p->end_us = -1;
	p->phase = KP_PENDING;
	if (kp_obj(k, pod, "status", false, &st))
		return -1;
	if (!st)
		return 0;
	size_t at = kp_key(k, "status");
	if (kp_str(k, st, "phase", false, &phase) || kp_time(k, st, "startTime", false, &p->start_us) ||
	    kp_arr(k, st, "containerStatuses", false, &css))
		return -1;
	if (phase) {
		int ph = 0;
		while (ph < KP_N && strcmp(phase, phase_names[ph]) != 0)
			ph++;
		if (ph == KP_N)
			return kp_fail(k, "phase", "expected Pending, Running, Succeeded, Failed or Unknown, "
			               "got \"%.40s\"", phase);
		p->phase = ph;
	}
	int64_t first = -1;
	size_t i;
	kp_key(k, "containerStatuses");
	json_array_foreach(css, i, cs) {
		size_t at2 = kp_idx(k, i);
		json_t *state, *run = NULL, *term = NULL;
		if (!json_is_object(cs))
			return kp_fail(k, NULL, "expected a container status object, got %s", kp_type(cs));
		if (kp_obj(k, cs, "state", false, &state))
			return -1;
		kp_key(k, "state");
		if (state && (kp_obj(k, state, "running", false, &run) ||
		              kp_obj(k, state, "terminated", false, &term)))
			return -1;
		int64_t s = -1, f = -1;
		if (run) {
			kp_key(k, "running");
			if (kp_time(k, run, "startedAt", false, &s))
				return -1;
		} else if (term) {
			kp_key(k, "terminated");
			json_t *ec = json_object_get(term, "exitCode");
			if (ec && !json_is_integer(ec))
				return kp_fail(k, "exitCode", "expected an integer, got %s", kp_type(ec));
			if (kp_time(k, term, "startedAt", false, &s) || kp_time(k, term, "finishedAt", false, &f))
				return -1;
		}
		if (s >= 0 && (first < 0 || s < first))
			first = s;
		if (f > p->end_us)
			p->end_us = f;
		kp_pop(k, at2);
	}
	/* The pod holds its resources from startTime (images pulled within);
	 * the first container's start when the kubelet did not say. */
	if (p->start_us < 0)
		p->start_us = first;
	kp_pop(k, at);
	return 0;
}

static int parse_pod(struct kctx *c, const json_t *pod, struct kpod *p)
{
	struct kpath *k = &c->k;
	json_t *spec;
	const char *kind, *pc;
	if (!json_is_object(pod))
		return kp_fail(k, NULL, "expected a Pod object, got %s", kp_type(pod));
	if (kp_str(k, pod, "kind", false, &kind))
		return -1;
	if (kind && strcmp(kind, "Pod") != 0)
		return kp_fail(k, "kind", "expected \"Pod\", got \"%.40s\"", kind);
	if (pod_meta(c, pod, p) || kp_obj(k, pod, "spec", true, &spec))
		return -1;
	size_t at = kp_key(k, "spec");
	if (pod_res(k, spec, &p->r) || k8s_constraints(c, spec, &p->sel_req, &p->sel_pref, &p->models) ||
	    k8s_tolerations(c, spec, &p->tolerate) ||
	    kp_str(k, spec, "priorityClassName", false, &pc))
		return -1;
	json_t *ads = json_object_get(spec, "activeDeadlineSeconds");
	p->walltime_us = SIMTIME_INF;
	if (ads) {
		if (!json_is_integer(ads) || json_integer_value(ads) < 1 ||
		    json_integer_value(ads) > TRACE_MAX_TIME_S)
			return kp_fail(k, "activeDeadlineSeconds", "expected an integer of seconds in 1..%lld",
			               TRACE_MAX_TIME_S);
		p->walltime_us = json_integer_value(ads) * SIMTIME_SEC;
	}
	int pcls = pc ? prioclass_parse(pc) : -1;
	if (pcls >= 0)
		p->cls = pcls;
	kp_pop(k, at);
	if (p->r.mig_n > 1)
		return kp_fail(k, "spec", "%lld MIG instances: a job takes one MIG instance",
		               (long long)p->r.mig_n);
	if (p->r.mig_n && p->r.gpus)
		return kp_fail(k, "spec", "both whole GPUs (nvidia.com/gpu) and a MIG instance: a job "
		               "takes one or the other");
	if (p->r.cpu_milli / 1000 >= INT32_MAX)
		return kp_fail(k, "spec", "%lld cores: more than a node may have",
		               (long long)(p->r.cpu_milli / 1000));
	if (p->r.gpus > K_MAX_GPUS)
		return kp_fail(k, "spec", "%lld GPUs: more than %d on one node", (long long)p->r.gpus,
		               K_MAX_GPUS);
	return pod_status(c, pod, p);
}

/* ---- the jobs ------------------------------------------------------------------- */

static bool usable(const struct kpod *p)
{
	const struct kres *r = &p->r;
	if (r->cpu_milli == 0 && r->gpus == 0 && r->mig_n == 0)
		return false;   /* asks for nothing a node counts */
	if (p->phase == KP_PENDING || p->phase == KP_UNKNOWN || p->start_us < 0)
		return false;   /* never ran, or cannot be told */
	return p->phase == KP_RUNNING || p->end_us >= 0;
}

/* The request of one pod (nodes 1). */
static void pod_req(const struct kpod *p, struct job_req *q)
{
	const struct kres *r = &p->r;
	memset(q, 0, sizeof *q);
	q->nodes = 1;
	q->cores = (int32_t)((r->cpu_milli + 999) / 1000);
	q->mem_mib = (r->mem_bytes + MIB - 1) / MIB;
	q->gpu_models = p->models;
	q->sel_req = p->sel_req;
	q->sel_pref = p->sel_pref;
	if (r->mig_n) {
		q->gpus = 1;
		q->mig_g = (int8_t)r->mig_g;
		q->gpu_mem_mib = (int64_t)r->mig_gib * 1024;
		return;
	}
	q->gpus = (int32_t)r->gpus;
	q->gpu_mem_mib = r->gpumem_mib;
	/* HAMi: one GPU with a memory or core limit is a time-sliced share;
	 * without gpucores it reserves no compute (the share limit and the
	 * card's memory bound it), with 100 it takes the card's compute. */
	if (r->gpus == 1 && (r->gpumem_mib > 0 || (r->gpucores >= 0 && r->gpucores < 100)))
		q->gpu_milli = r->gpucores > 0 ? (int32_t)r->gpucores * 10 : 1;
}

static int add_job(struct kctx *c, const struct kpod *p, int32_t nodes, const struct job_req *q,
                   int64_t t0, int64_t start, int64_t end, bool fails, const char *name)
{
	struct job j;
	struct job_truth t;
	int64_t sub = p->create_us - t0;
	job_init(&j, 0, sub);
	j.tenant = p->tenant;
	j.group = p->tenant;
	j.queue = -1;
	j.trace_id = p->item;
	j.walltime_us = p->walltime_us;
	j.tolerate = p->tolerate;
	j.req = *q;
	j.req.nodes = nodes;
	j.cls = (uint8_t)(p->cls >= 0 ? p->cls : q->gpus > 0 ? JOB_TRAINING : JOB_BATCH);
	memset(&t, 0, sizeof t);
	t.run_us = end > start ? end - start : 0;
	t.fails = fails;
	if (sub > TRACE_MAX_TIME_US || t.run_us > TRACE_MAX_TIME_US) {
		kp_pop(&c->k, 0);
		kp_key(&c->k, "items");
		kp_idx(&c->k, (size_t)p->item);
		return kp_fail(&c->k, "metadata", "a time more than %lld s after the first pod's "
		               "creation (at most about 31.7 years)", TRACE_MAX_TIME_S);
	}
	if (workload_add(c->w, &j, &t) || workload_job_set(c->w, WL_JOB_NAME, c->w->n - 1, name))
		return kp_fail(&c->k, NULL, "out of memory");
	return 0;
}

static int cmp_group(const void *a, const void *b)
{
	const struct kpod *x = *(const struct kpod *const *)a, *y = *(const struct kpod *const *)b;
	int g = strcmp(x->group ? x->group : "", y->group ? y->group : "");
	return g ? g : (x->item > y->item) - (x->item < y->item);
}

static int make_jobs(struct kctx *c, struct kpod *pods, int32_t n)
{
	int64_t t0 = -1, end = -1;
	struct workload *w = c->w;
	for (int32_t i = 0; i < n; i++) {
		const struct kpod *p = &pods[i];
		end = max64(end, max64(p->create_us, max64(p->start_us, p->end_us)));
		if (usable(p) && (t0 < 0 || p->create_us < t0))
			t0 = p->create_us;
		if (!usable(p)) {
			w->skipped_unusable++;
			if (p->r.cpu_milli == 0 && p->r.gpus == 0 && p->r.mig_n == 0)
				w->k8s_empty++;
			else
				w->k8s_not_run++;
		}
		w->k8s_running += usable(p) && p->phase == KP_RUNNING;
	}
	w->k8s_end = end / SIMTIME_SEC;
	if (t0 < 0)
		return 0;
	t0 -= ((t0 % SIMTIME_SEC) + SIMTIME_SEC) % SIMTIME_SEC;   /* a whole second */
	w->unix_start = t0 / SIMTIME_SEC;
	struct kpod **by = malloc((size_t)(n ? n : 1) * sizeof *by);
	if (!by)
		return kp_fail(&c->k, NULL, "out of memory");
	int32_t m = 0;
	for (int32_t i = 0; i < n; i++)
		if (usable(&pods[i]))
			by[m++] = &pods[i];
	qsort(by, (size_t)m, sizeof *by, cmp_group);
	int rc = 0;
	for (int32_t i = 0, e; i < m && rc == 0; i = e) {
		e = i + 1;
		while (by[i]->group && e < m && by[e]->group && strcmp(by[e]->group, by[i]->group) == 0)
			e++;
		const struct kpod *p = by[i];
		struct job_req q;
		pod_req(p, &q);
		int64_t s = p->start_us, f = p->phase == KP_RUNNING ? end : p->end_us;
		bool fails = p->phase == KP_FAILED;
		if (e - i == 1) {
			rc = add_job(c, p, 1, &q, t0, max64(s, p->create_us), f, fails, p->name);
			continue;
		}
		/* A PodGroup: one gang of e - i nodes, each the members' largest
		 * request in every dimension; shares become whole cards. */
		struct kpod first = *p;
		for (int32_t k = i + 1; k < e; k++) {
			const struct kpod *x = by[k];
			struct job_req xq;
			pod_req(x, &xq);
			q.cores = q.cores > xq.cores ? q.cores : xq.cores;
			q.mem_mib = max64(q.mem_mib, xq.mem_mib);
			q.gpus = q.gpus > xq.gpus ? q.gpus : xq.gpus;
			q.gpu_mem_mib = max64(q.gpu_mem_mib, xq.gpu_mem_mib);
			first.create_us = x->create_us < first.create_us ? x->create_us : first.create_us;
			first.walltime_us = max64(first.walltime_us, x->walltime_us);
			s = x->start_us < s ? x->start_us : s;
			f = max64(f, x->phase == KP_RUNNING ? end : x->end_us);
			fails |= x->phase == KP_FAILED;
			if (first.cls < 0)
				first.cls = x->cls;
		}
		q.gpu_milli = 0;
		q.mig_g = 0;
		w->k8s_gangs++;
		w->k8s_gang_pods += e - i;
		rc = add_job(c, &first, e - i, &q, t0, max64(s, first.create_us), f, fails, p->group);
	}
	free(by);
	return rc;
}

int trace_k8s_pods_read(const char *path, const struct k8s_opts *o, struct workload *w,
                        char *err, size_t errlen)
{
	static const struct k8s_opts none = { 0 };
	struct kctx c = { .k = { .file = path, .err = err, .errlen = errlen }, .o = o ? o : &none, .w = w };
	json_t *one = NULL, *items, *pod;
	struct kpod *pods = NULL;
	int32_t n = 0;
	int rc = -1;
	size_t i;
	workload_init(w);
	json_t *root = k8s_load(path, err, errlen);
	if (!root) {
		size_t m = strlen(err);
		snprintf(err + m, errlen - m, " (a file that starts with '{' is read as a Kubernetes pod "
		         "list, kubectl get pods -A -o json)");
		return -1;
	}
	if (!(items = k8s_items(path, root, K8S_LIST_PODS, &one, err, errlen)))
		goto out;
	if (json_array_size(items) > INT32_MAX / 2 ||
	    !(pods = calloc(json_array_size(items) + 1, sizeof *pods))) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	json_array_foreach(items, i, pod) {
		struct kpod *p = &pods[n];
		kp_pop(&c.k, 0);
		if (!one) {
			kp_key(&c.k, "items");
			kp_idx(&c.k, i);
		}
		p->item = (int32_t)i;
		p->cls = -1;
		if (parse_pod(&c, pod, p) == 0) {
			n++;
			continue;
		}
		free(p->name);
		free(p->group);
		memset(p, 0, sizeof *p);
		if (!c.o->lenient)
			goto out;
		w->skipped_malformed++;
	}
	kp_pop(&c.k, 0);
	if (make_jobs(&c, pods, n))
		goto out;
	workload_sort(w);
	w->lines = (int64_t)json_array_size(items);
	rc = 0;
out:
	for (int32_t k = 0; k < n; k++) {
		free(pods[k].name);
		free(pods[k].group);
	}
	free(pods);
	json_decref(one);
	json_decref(root);
	if (rc)
		workload_free(w);
	return rc;
}

#define NOTE(...) \
	do { \
		if (off < len) { \
			int k_ = snprintf(buf + off, len - off, __VA_ARGS__); \
			off += k_ > 0 ? (size_t)k_ : 0; \
		} \
	} while (0)

void k8s_notes(const struct workload *w, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	if (w->k8s_not_run)
		NOTE("%lld pods never ran (Pending or Unknown, or without a start time): skipped",
		     (long long)w->k8s_not_run);
	if (w->k8s_empty)
		NOTE("%s%lld pods ask for no CPU and no GPU: skipped", off ? "\n" : "",
		     (long long)w->k8s_empty);
	if (w->k8s_running) {
		char when[32] = "";
		time_t t = (time_t)w->k8s_end;
		struct tm tm;
		if (gmtime_r(&t, &tm))
			strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
		NOTE("%s%lld pods were Running: each runs until %s, the last time the file tells of "
		     "(a pod list keeps no time of its own), and ends there", off ? "\n" : "",
		     (long long)w->k8s_running, when);
	}
	if (w->k8s_gangs)
		NOTE("%s%lld PodGroups made gangs of their %lld pods (one node each, the members' "
		     "largest request)", off ? "\n" : "", (long long)w->k8s_gangs,
		     (long long)w->k8s_gang_pods);
}
