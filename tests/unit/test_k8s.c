/* Tests of the Kubernetes readers (traces/k8s.h): quantities and times as
 * the API server writes them; the pod list of tests/data/k8s read job by
 * job (requests, limits, init containers, MIG, HAMi, node selectors and
 * affinities, a Volcano PodGroup as a gang, phases and times, namespaces
 * and names); format detection; bad input named by file and JSON path,
 * never a crash; the node list read and built into a cluster (GFD
 * products mapped to the catalog, MIG cards, control-plane nodes left out)
 * and its errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "tests/testutil.h"
#include "config/catalog.h"
#include "config/migcfg.h"
#include "sim/label.h"
#include "sim/mig.h"
#include "traces/anytrace.h"
#include "traces/invcluster.h"
#include "traces/k8s.h"

static char *repo_path(const char *rel)
{
	size_t n = strlen(tu_root()) + strlen(rel) + 2;
	char *p = malloc(n);
	assert_non_null(p);
	snprintf(p, n, "%s/%s", tu_root(), rel);
	return p;
}

/* ---- quantities and times ------------------------------------------------------- */

static void test_quantities(void **state)
{
	(void)state;
	static const struct { const char *s; int64_t milli; } cpu[] = {
		{ "500m", 500 }, { "2", 2000 }, { "0.5", 500 }, { "1.5", 1500 }, { "+3", 3000 },
		{ "100u", 1 }, { "250000000n", 250 }, { "1e3", 1000000 }, { "0.0001", 1 }, { "7910m", 7910 },
	};
	for (size_t i = 0; i < sizeof cpu / sizeof cpu[0]; i++) {
		int64_t v = -1;
		if (k8s_quantity_milli(cpu[i].s, &v) != 0 || v != cpu[i].milli)
			fail_msg("cpu \"%s\": %lld, expected %lld", cpu[i].s, (long long)v, (long long)cpu[i].milli);
	}
	static const struct { const char *s; int64_t v; } mem[] = {
		{ "1Ki", 1024 }, { "64Gi", INT64_C(64) << 30 }, { "16G", 16000000000 }, { "129e6", 129000000 },
		{ "1E", 1000000000000000000 }, { "1.5Gi", INT64_C(3) << 29 }, { "1056645068Ki", INT64_C(1056645068) << 10 },
		{ "128974848", 128974848 }, { "0", 0 }, { "1m", 1 }, { "1Ei", INT64_C(1) << 60 },
	};
	for (size_t i = 0; i < sizeof mem / sizeof mem[0]; i++) {
		int64_t v = -1;
		if (k8s_quantity_int(mem[i].s, &v) != 0 || v != mem[i].v)
			fail_msg("memory \"%s\": %lld, expected %lld", mem[i].s, (long long)v, (long long)mem[i].v);
	}
	static const char *const bad[] = {
		"abc", "-1", "", "1Kb", "1e", "5mi", "1.2.3", "m", "1 Gi", "8Ei", "1e50", ".",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int64_t v;
		if (k8s_quantity_int(bad[i], &v) == 0)
			fail_msg("\"%s\" read as %lld", bad[i], (long long)v);
	}
}

static void test_times(void **state)
{
	(void)state;
	int64_t us;
	assert_int_equal(k8s_time_us("2024-05-01T10:00:00Z", &us), 0);
	assert_int_equal(us, INT64_C(1714557600) * 1000000);
	assert_int_equal(k8s_time_us("2024-05-01T10:00:00.123456Z", &us), 0);
	assert_int_equal(us, INT64_C(1714557600) * 1000000 + 123456);
	assert_int_equal(k8s_time_us("2024-05-01T12:00:00.5+02:00", &us), 0);
	assert_int_equal(us, INT64_C(1714557600) * 1000000 + 500000);
	assert_int_equal(k8s_time_us("1970-01-01T00:00:00Z", &us), 0);
	assert_int_equal(us, 0);
	assert_int_equal(k8s_time_us("2024-02-29T00:00:00Z", &us), 0);
	static const char *const bad[] = {
		"2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2024-05-01 10:00:00", "2024-05-01T10:00:00",
		"2024-05-01T25:00:00Z", "2024-05-01T10:00:00Zjunk", "yesterday", "", "2024-05-01T10:00:00.Z",
		"0014-05-01T11:00:00Z", "1969-12-31T23:59:59Z", "1970-01-01T00:30:00+01:00",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (k8s_time_us(bad[i], &us) == 0)
			fail_msg("\"%s\" read as a time", bad[i]);
}

/* ---- the fixture's pods ------------------------------------------------------------ */

static int by_name(const struct workload *w, const char *name)
{
	for (int32_t i = 0; i < w->n; i++)
		if (strcmp(workload_job_name(w, i), name) == 0)
			return i;
	fail_msg("no job %s", name);
	return -1;
}

static const char *expr(const struct workload *w, int16_t ref)
{
	return ref ? w->str[ref - 1] : "";
}

static void test_pods_fixture(void **state)
{
	(void)state;
	char *p = repo_path("tests/data/k8s/pods.json"), err[1024] = "";
	struct workload w;
	assert_int_equal(trace_format_of(p), TRACE_K8S);
	assert_string_equal(trace_format_name(TRACE_K8S), "Kubernetes pods");
	if (trace_k8s_pods_read(p, NULL, &w, err, sizeof err) != 0)
		fail_msg("%s", err);
	/* 9 pods: one Pending, two in one PodGroup */
	assert_int_equal(w.n, 7);
	assert_int_equal(w.skipped_unusable, 1);
	assert_int_equal(w.skipped_malformed, 0);
	assert_int_equal(w.unix_start, 1714557600);
	assert_string_equal(workload_name(&w, WL_USER, w.jobs[0].tenant), "ml-team");
	assert_string_equal(workload_name(&w, WL_ACCOUNT, w.jobs[0].group), "ml-team");
	for (int32_t i = 1; i < w.n; i++)
		assert_true(w.jobs[i].submit_us >= w.jobs[i - 1].submit_us);

	int j = by_name(&w, "ml-team/train-resnet-0");
	const struct job *x = &w.jobs[j];
	assert_int_equal(x->submit_us, 0);
	assert_int_equal(x->req.nodes, 1);
	assert_int_equal(x->req.cores, 16);
	assert_int_equal(x->req.gpus, 4);
	assert_int_equal(x->req.mem_mib, 64 * 1024);
	assert_int_equal(x->cls, JOB_TRAINING);
	assert_int_equal(w.truth[j].run_us, 7200 * SIMTIME_SEC);   /* startTime to finishedAt */
	assert_false(w.truth[j].fails);
	assert_string_equal(expr(&w, x->req.sel_req), "nvidia.com/gpu.product = NVIDIA-A100-SXM4-80GB");
	assert_string_equal(expr(&w, x->tolerate), "node.kubernetes.io/not-ready:NoExecute, "
	                    "node.kubernetes.io/unreachable:NoExecute, nvidia.com/gpu:NoSchedule");

	j = by_name(&w, "ml-team/finetune-llama-x7k2p");
	x = &w.jobs[j];
	assert_int_equal(x->req.gpus, 1);      /* from limits */
	assert_int_equal(x->req.cores, 8);
	assert_true(w.truth[j].fails);
	assert_int_equal(w.truth[j].run_us, 1800 * SIMTIME_SEC);
	assert_string_equal(expr(&w, x->req.sel_req),
	                    "nvidia.com/gpu.product in (NVIDIA-H100-80GB-HBM3), nvidia.com/gpu.memory > 40000");

	j = by_name(&w, "inference/llm-server-7f9c8d6b5-abcde");
	x = &w.jobs[j];
	assert_int_equal(x->cls, JOB_INFERENCE);
	assert_int_equal(x->req.gpus, 1);
	assert_int_equal(x->req.mig_g, 1);
	assert_int_equal(x->req.gpu_mem_mib, 10 * 1024);
	assert_int_equal(x->req.cores, 1);     /* 500m */
	assert_false(w.truth[j].fails);
	/* Running: to the last time the file tells of (eval-h100's container start, 14:30:12) */
	assert_int_equal(w.truth[j].run_us, (3 * 3600 + 30 * 60 + 9) * SIMTIME_SEC);

	j = by_name(&w, "research/notebook-alice");
	x = &w.jobs[j];
	assert_int_equal(x->req.gpus, 1);
	assert_int_equal(x->req.gpu_milli, 300);
	assert_int_equal(x->req.gpu_mem_mib, 8000);
	assert_int_equal(x->req.mem_mib, 4096);

	j = by_name(&w, "data/etl-nightly-28571234-q8xz2");
	x = &w.jobs[j];
	assert_int_equal(x->req.cores, 8);     /* the init container's, larger than the app's 4 */
	assert_int_equal(x->req.gpus, 0);
	assert_int_equal(x->req.mem_mib, (16000000000 + (1 << 20) - 1) >> 20);
	assert_int_equal(x->cls, JOB_BATCH);
	assert_string_equal(expr(&w, x->tolerate), "node.kubernetes.io/not-ready:NoExecute, "
	                    "node.kubernetes.io/unreachable:NoExecute");

	j = by_name(&w, "ml-team/pytorch-ddp-1b0c6f5e");
	x = &w.jobs[j];
	assert_int_equal(x->req.nodes, 2);
	assert_int_equal(x->req.gpus, 8);
	assert_int_equal(x->req.cores, 32);
	assert_int_equal(x->submit_us, 2 * 3600 * SIMTIME_SEC + 10 * 60 * SIMTIME_SEC);
	assert_int_equal(w.truth[j].run_us, (2 * 3600 + 1) * SIMTIME_SEC);   /* to the later member's end */

	j = by_name(&w, "ml-team/eval-h100");
	assert_int_equal(w.jobs[j].req.gpus, 2);
	assert_int_equal(w.truth[j].run_us, 0);   /* running since the last time the file tells of */
	/* what the run notes */
	assert_int_equal(w.k8s_not_run, 1);
	assert_int_equal(w.k8s_empty, 0);
	assert_int_equal(w.k8s_running, 2);
	assert_int_equal(w.k8s_gangs, 1);
	assert_int_equal(w.k8s_gang_pods, 2);
	char notes[2048];
	trace_notes_of(&w, notes, sizeof notes);
	assert_string_equal(notes,
	                    "1 pods never ran (Pending or Unknown, or without a start time): skipped\n"
	                    "2 pods were Running: each runs until 2024-05-01T14:30:12Z, the last time the "
	                    "file tells of (a pod list keeps no time of its own), and ends there\n"
	                    "1 PodGroups made gangs of their 2 pods (one node each, the members' largest "
	                    "request)");
	workload_free(&w);

	/* With a catalog, the products become the model set. */
	struct catalog cat = { 0 };
	assert_int_equal(catalog_load_builtin(&cat, err, sizeof err), 0);
	struct swf_shape sh = { .cat = &cat };
	if (trace_read_shaped(p, false, &sh, &w, NULL, err, sizeof err) != 0)
		fail_msg("%s", err);
	j = by_name(&w, "ml-team/train-resnet-0");
	assert_int_equal(w.jobs[j].req.gpu_models, UINT64_C(1) << catalog_find_gpu(&cat, "A100-SXM-80GB"));
	assert_int_equal(w.jobs[j].req.sel_req, 0);
	j = by_name(&w, "ml-team/finetune-llama-x7k2p");
	assert_int_equal(w.jobs[j].req.gpu_models, UINT64_C(1) << catalog_find_gpu(&cat, "H100-SXM-80GB"));
	assert_string_equal(expr(&w, w.jobs[j].req.sel_req), "nvidia.com/gpu.memory > 40000");
	workload_free(&w);
	catalog_fini(&cat);
	free(p);
}

/* The fixture gzipped reads the same. */
static void test_pods_gzip(void **state)
{
	(void)state;
	char *p = repo_path("tests/data/k8s/pods.json"), *gz = tu_tmpath(".json.gz"), err[512];
	FILE *in = fopen(p, "rb");
	gzFile out = gzopen(gz, "wb");
	assert_non_null(in);
	assert_non_null(out);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		assert_int_equal(gzwrite(out, buf, (unsigned)n), (int)n);
	fclose(in);
	gzclose(out);
	struct workload w;
	assert_int_equal(trace_format_of(gz), TRACE_K8S);
	if (trace_read_any(gz, false, &w, NULL, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 7);
	workload_free(&w);
	unlink(gz);
	free(gz);
	free(p);
}

/* ---- bad input --------------------------------------------------------------------- */

#define GOOD_POD \
	"{\"kind\": \"Pod\", \"metadata\": {\"name\": \"ok\", \"namespace\": \"a\", " \
	"\"creationTimestamp\": \"2024-05-01T10:00:00Z\"}, \"spec\": {\"containers\": [{\"name\": \"c\", " \
	"\"resources\": {\"requests\": {\"cpu\": \"1\"}}}]}, \"status\": {\"phase\": \"Succeeded\", " \
	"\"startTime\": \"2024-05-01T10:00:01Z\", \"containerStatuses\": [{\"state\": {\"terminated\": " \
	"{\"exitCode\": 0, \"startedAt\": \"2024-05-01T10:00:02Z\", \"finishedAt\": \"2024-05-01T11:00:00Z\"}}}]}}"

/* A List of three good pods and `pod` (items[3]); its text. */
static char *list_with(const char *pod)
{
	size_t n = 4 * strlen(GOOD_POD) + strlen(pod) + 128;
	char *t = malloc(n);
	assert_non_null(t);
	snprintf(t, n, "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [%s, %s, %s, %s]}",
	         GOOD_POD, GOOD_POD, GOOD_POD, pod);
	return t;
}

/* A pod whose spec is `spec` and status `status` (NULL: a Succeeded one). */
static char *pod_with(const char *spec, const char *status)
{
	size_t n = strlen(spec) + 1024;
	char *t = malloc(n);
	assert_non_null(t);
	snprintf(t, n, "{\"kind\": \"Pod\", \"metadata\": {\"name\": \"bad\", \"namespace\": \"b\", "
	         "\"creationTimestamp\": \"2024-05-01T10:00:00Z\"}, \"spec\": %s, \"status\": %s}", spec,
	         status ? status : "{\"phase\": \"Succeeded\", \"startTime\": \"2024-05-01T10:00:01Z\", "
	         "\"containerStatuses\": [{\"state\": {\"terminated\": {\"exitCode\": 0, \"finishedAt\": "
	         "\"2024-05-01T11:00:00Z\"}}}]}");
	return t;
}

/* Reading `text` fails with exactly "PATH: want"; read leniently, the
 * three good pods are jobs and one is skipped (when `lenient_skips`). */
static void expect_pods_error(const char *text, const char *want, bool lenient_skips)
{
	char *p = tu_write_tmp(".json", text), err[1024] = "", full[1536];
	struct workload w;
	if (trace_read_any(p, false, &w, NULL, err, sizeof err) == 0)
		fail_msg("read without error: %s", text);
	assert_int_equal(w.n, 0);
	assert_null(w.jobs);
	snprintf(full, sizeof full, want[0] == ':' ? "%s%s" : "%s: %s", p, want);
	if (strcmp(err, full) != 0)
		fail_msg("error\n  '%s', expected\n  '%s'", err, full);
	if (lenient_skips) {
		struct k8s_opts o = { .lenient = true };
		if (trace_k8s_pods_read(p, &o, &w, err, sizeof err) != 0)
			fail_msg("lenient: %s", err);
		assert_int_equal(w.n, 3);
		assert_int_equal(w.skipped_malformed, 1);
		workload_free(&w);
	}
	unlink(p);
	free(p);
}

static void expect_spec_error(const char *spec, const char *want)
{
	char *pod = pod_with(spec, NULL), *t = list_with(pod);
	expect_pods_error(t, want, true);
	free(t);
	free(pod);
}

static void test_pods_bad(void **state)
{
	(void)state;
	expect_spec_error("{\"containers\": [{\"name\": \"c\", \"resources\": {\"requests\": {\"cpu\": \"abc\"}}}]}",
	                  "items[3].spec.containers[0].resources.requests.cpu: expected a CPU quantity "
	                  "such as \"500m\" or \"2\", got \"abc\"");
	expect_spec_error("{\"containers\": [{\"name\": \"c\"}, {\"name\": \"d\", \"resources\": {\"limits\": "
	                  "{\"memory\": \"12Q\"}}}]}",
	                  "items[3].spec.containers[1].resources.limits.memory: expected a memory quantity "
	                  "such as \"512Mi\" or \"4Gi\", got \"12Q\"");
	expect_spec_error("{\"containers\": [{\"name\": \"c\", \"resources\": {\"limits\": {\"nvidia.com/gpu\": "
	                  "\"1.5\"}}}]}",
	                  "items[3].spec.containers[0].resources.limits[\"nvidia.com/gpu\"]: expected a whole "
	                  "number of GPUs such as \"1\" (0 to 64), got 1.5");
	expect_spec_error("{\"containers\": [{\"name\": \"c\", \"resources\": {\"limits\": "
	                  "{\"nvidia.com/mig-9g.1gb\": \"1\"}}}]}",
	                  "items[3].spec.containers[0].resources.limits[\"nvidia.com/mig-9g.1gb\"]: expected a "
	                  "MIG resource such as nvidia.com/mig-1g.10gb (slices g . memory gb)");
	expect_spec_error("{\"containers\": [{\"name\": \"c\", \"resources\": {\"limits\": "
	                  "{\"nvidia.com/mig-1g.10gb\": \"2\"}}}]}",
	                  "items[3].spec: 2 MIG instances: a job takes one MIG instance");
	expect_spec_error("{\"containers\": [{\"name\": \"c\", \"resources\": {\"limits\": "
	                  "{\"nvidia.com/mig-1g.10gb\": \"1\", \"nvidia.com/gpu\": \"1\"}}}]}",
	                  "items[3].spec: both whole GPUs (nvidia.com/gpu) and a MIG instance: a job takes one "
	                  "or the other");
	expect_spec_error("{\"containers\": [{\"name\": \"c\", \"resources\": {\"limits\": "
	                  "{\"nvidia.com/gpucores\": \"150\"}}}]}",
	                  "items[3].spec.containers[0].resources.limits[\"nvidia.com/gpucores\"]: expected a "
	                  "percentage of one GPU's cores, 0 to 100 (HAMi), got 150");
	expect_spec_error("{\"containers\": []}", "items[3].spec.containers: expected at least one container");
	expect_spec_error("{\"containers\": {}}", "items[3].spec.containers: expected an array, got an object");
	expect_spec_error("{\"containers\": [{\"name\": \"c\"}], \"nodeSelector\": {\"disk\": 1}}",
	                  "items[3].spec.nodeSelector.disk: expected a string, got an integer");
	expect_spec_error("{\"containers\": [{\"name\": \"c\"}], \"affinity\": {\"nodeAffinity\": "
	                  "{\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": "
	                  "[{\"matchExpressions\": [{\"key\": \"zone\", \"operator\": \"Near\", \"values\": [\"a\"]}]}]}}}}",
	                  "items[3].spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
	                  ".nodeSelectorTerms[0].matchExpressions[0].operator: expected In, NotIn, Exists, "
	                  "DoesNotExist, Gt or Lt, got \"Near\"");
	expect_spec_error("{\"containers\": [{\"name\": \"c\"}], \"affinity\": {\"nodeAffinity\": "
	                  "{\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": "
	                  "[{\"matchExpressions\": [{\"key\": \"n\", \"operator\": \"Gt\", \"values\": [\"x\"]}]}]}}}}",
	                  "items[3].spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
	                  ".nodeSelectorTerms[0].matchExpressions[0].values: expected an integer for operator "
	                  "Gt, got \"x\"");
	expect_spec_error("{\"containers\": [{\"name\": \"c\"}], \"tolerations\": [{\"key\": \"a\", "
	                  "\"operator\": \"Near\"}]}",
	                  "items[3].spec.tolerations[0].operator: expected Equal or Exists, got \"Near\"");
	expect_spec_error("{\"containers\": [{\"name\": \"c\"}], \"tolerations\": [{\"effect\": \"NoSchedule\"}]}",
	                  "items[3].spec.tolerations[0].operator: an empty key tolerates every taint with "
	                  "Exists only");
	expect_spec_error("{\"containers\": [{\"name\": \"c\"}], \"tolerations\": [{\"key\": \"a\", "
	                  "\"operator\": \"Exists\", \"effect\": \"Sometimes\"}]}",
	                  "items[3].spec.tolerations: toleration \"a:Sometimes\": unknown effect \"Sometimes\" "
	                  "(expected NoSchedule, PreferNoSchedule or NoExecute)");
	expect_spec_error("{\"containers\": [{\"name\": \"c\"}], \"activeDeadlineSeconds\": -5}",
	                  "items[3].spec.activeDeadlineSeconds: expected an integer of seconds in 1..1000000000");

	/* metadata and status */
	char *t = list_with("{\"kind\": \"Pod\", \"metadata\": {\"name\": \"x\", \"creationTimestamp\": "
	                    "\"May 1st\"}, \"spec\": {\"containers\": [{}]}}");
	expect_pods_error(t, "items[3].metadata.creationTimestamp: expected an RFC 3339 time such as "
	                  "\"2024-05-01T10:00:00Z\" (1970 or later), got \"May 1st\"", true);
	free(t);
	t = list_with("{\"kind\": \"Pod\", \"spec\": {\"containers\": [{}]}}");
	expect_pods_error(t, "items[3].metadata: missing (expected an object)", true);
	free(t);
	t = list_with("{\"kind\": \"Service\"}");
	expect_pods_error(t, "items[3].kind: expected \"Pod\", got \"Service\"", true);
	free(t);
	t = list_with("[]");
	expect_pods_error(t, "items[3]: expected a Pod object, got an array", true);
	free(t);
	char *pod = pod_with("{\"containers\": [{\"name\": \"c\", \"resources\": {\"requests\": {\"cpu\": \"1\"}}}]}",
	                     "{\"phase\": \"Done\"}");
	t = list_with(pod);
	expect_pods_error(t, "items[3].status.phase: expected Pending, Running, Succeeded, Failed or "
	                  "Unknown, got \"Done\"", true);
	free(t);
	free(pod);
	pod = pod_with("{\"containers\": [{\"name\": \"c\"}]}", "{\"phase\": \"Failed\", \"containerStatuses\": "
	               "[{\"state\": {\"terminated\": {\"exitCode\": \"137\"}}}]}");
	t = list_with(pod);
	expect_pods_error(t, "items[3].status.containerStatuses[0].state.terminated.exitCode: expected an "
	                  "integer, got a string", true);
	free(t);
	free(pod);

	/* the file as a whole */
	expect_pods_error("{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": {}}",
	                  "items: expected an array of Pod objects, got an object", false);
	expect_pods_error("{\"apiVersion\": \"v1\", \"kind\": \"Deployment\"}",
	                  "kind: expected \"List\" or \"PodList\" (kubectl get pods -A -o json), got \"Deployment\"",
	                  false);
	expect_pods_error("{\"kind\": \"NodeList\", \"items\": []}",
	                  "a Kubernetes Node list (kubectl get nodes -o json), not a Pod list: give it as the "
	                  "cluster (the scenario's \"from_inventory\": {\"file\": ..., \"format\": \"k8s\"})", false);
	expect_pods_error("{\"id\": 1, \"submit\": 0}\n{\"id\": 2, \"submit\": 5}\n",
	                  ":2:1: end of file expected near '{' (a JSON Lines trace must be named .jsonl) (a file "
	                  "that starts with '{' is read as a Kubernetes pod list, kubectl get pods -A -o json)", false);
	expect_pods_error("{\"kind\": \"List\", \"items\": [",
	                  ":1:27: ']' expected near end of file (a file that starts with '{' is read as a "
	                  "Kubernetes pod list, kubectl get pods -A -o json)", false);

	/* an unknown product, with a catalog */
	struct catalog cat = { 0 };
	char err[1024];
	assert_int_equal(catalog_load_builtin(&cat, err, sizeof err), 0);
	struct swf_shape sh = { .cat = &cat };
	pod = pod_with("{\"containers\": [{\"name\": \"c\", \"resources\": {\"limits\": {\"nvidia.com/gpu\": 1}}}], "
	               "\"nodeSelector\": {\"nvidia.com/gpu.product\": \"NVIDIA-A30\"}}", NULL);
	t = list_with(pod);
	char *p = tu_write_tmp(".json", t);
	struct workload w;
	assert_int_equal(trace_read_shaped(p, false, &sh, &w, NULL, err, sizeof err), -1);
	if (!strstr(err, "items[3].spec.nodeSelector[\"nvidia.com/gpu.product\"]: unknown GPU product "
	            "\"NVIDIA-A30\" (products the catalog knows: NVIDIA-H100-80GB-HBM3, "))
		fail_msg("%s", err);
	unlink(p);
	free(p);
	free(t);
	free(pod);
	catalog_fini(&cat);
}

/* Selectors and affinities as expressions; a gang of unlike members; a
 * sidecar and the pod overhead; a single Pod object. */
static void test_pods_shapes(void **state)
{
	(void)state;
	char *pod = pod_with(
		"{\"containers\": [{\"name\": \"c\", \"resources\": {\"requests\": {\"cpu\": \"1\"}}}], "
		"\"nodeSelector\": {\"zone\": \"a b\"}, \"affinity\": {\"nodeAffinity\": {"
		"\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": ["
		"{\"matchExpressions\": [{\"key\": \"nvidia.com/gpu.product\", \"operator\": \"In\", \"values\": "
		"[\"NVIDIA-H100-80GB-HBM3\"]}, {\"key\": \"rdma\", \"operator\": \"Exists\"}]}, "
		"{\"matchExpressions\": [{\"key\": \"spot\", \"operator\": \"DoesNotExist\"}, {\"key\": \"tier\", "
		"\"operator\": \"NotIn\", \"values\": [\"low\", \"in\"]}], \"matchFields\": [{\"key\": "
		"\"metadata.name\", \"operator\": \"In\", \"values\": [\"n1\"]}]}]}, "
		"\"preferredDuringSchedulingIgnoredDuringExecution\": [{\"weight\": 50, \"preference\": "
		"{\"matchExpressions\": [{\"key\": \"nvidia.com/gpu.family\", \"operator\": \"In\", \"values\": "
		"[\"hopper\"]}]}}, {\"weight\": 10, \"preference\": {\"matchExpressions\": [{\"key\": "
		"\"nvidia.com/gpu.count\", \"operator\": \"Gt\", \"values\": [\"4\"]}]}}]}}}", NULL);
	char *text = list_with(pod), err[1024];
	char *p = tu_write_tmp(".json", text);
	struct workload w;
	if (trace_read_any(p, false, &w, NULL, err, sizeof err) != 0)
		fail_msg("%s", err);
	int j = by_name(&w, "b/bad");
	assert_string_equal(expr(&w, w.jobs[j].req.sel_req),
	                    "zone = \"a b\", nvidia.com/gpu.product in (NVIDIA-H100-80GB-HBM3), rdma | "
	                    "zone = \"a b\", !spot, tier notin (low, \"in\")");
	assert_string_equal(expr(&w, w.jobs[j].req.sel_pref),
	                    "nvidia.com/gpu.family in (hopper) | nvidia.com/gpu.count > 4");
	workload_free(&w);
	unlink(p);
	free(p);
	free(text);
	free(pod);

	/* a coscheduling PodGroup: a CPU launcher and two GPU workers (one
	 * Pending, left out), with a sidecar and the pod overhead */
#define MEMBER(name, res, status) \
	"{\"kind\": \"Pod\", \"metadata\": {\"name\": \"" name "\", \"namespace\": \"g\", " \
	"\"creationTimestamp\": \"2024-05-01T10:00:00Z\", \"labels\": {\"scheduling.x-k8s.io/pod-group\": " \
	"\"job1\"}}, \"spec\": {\"containers\": [{\"name\": \"c\", \"resources\": " res "}]}, " \
	"\"status\": " status "}"
#define RAN(s, f) "{\"phase\": \"Succeeded\", \"startTime\": \"" s "\", \"containerStatuses\": [{\"state\": " \
	"{\"terminated\": {\"exitCode\": 0, \"finishedAt\": \"" f "\"}}}]}"
	static const char gang[] = "{\"kind\": \"PodList\", \"items\": ["
		MEMBER("launcher", "{\"requests\": {\"cpu\": \"4\", \"memory\": \"8Gi\"}}",
		       RAN("2024-05-01T10:01:00Z", "2024-05-01T11:00:00Z")) ", "
		MEMBER("worker-0", "{\"limits\": {\"cpu\": \"2\", \"memory\": \"64Gi\", \"nvidia.com/gpu\": \"4\"}}",
		       RAN("2024-05-01T10:00:30Z", "2024-05-01T11:30:00Z")) ", "
		MEMBER("worker-1", "{\"limits\": {\"nvidia.com/gpu\": \"4\"}}", "{\"phase\": \"Pending\"}") ", "
		"{\"kind\": \"Pod\", \"metadata\": {\"name\": \"side\", \"creationTimestamp\": \"2024-05-01T12:00:00Z\"}, "
		"\"spec\": {\"overhead\": {\"cpu\": \"250m\", \"memory\": \"120Mi\"}, \"containers\": [{\"name\": \"c\", "
		"\"resources\": {\"requests\": {\"cpu\": \"1\", \"memory\": \"1Gi\"}}}], \"initContainers\": "
		"[{\"name\": \"proxy\", \"restartPolicy\": \"Always\", \"resources\": {\"requests\": {\"cpu\": \"1\", "
		"\"memory\": \"1Gi\"}}}, {\"name\": \"init\", \"resources\": {\"requests\": {\"cpu\": \"3\"}}}]}, "
		"\"status\": " RAN("2024-05-01T12:00:00Z", "2024-05-01T12:10:00Z") "}]}";
	p = tu_write_tmp(".json", gang);
	if (trace_read_any(p, false, &w, NULL, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.skipped_unusable, 1);
	j = by_name(&w, "g/job1");
	assert_int_equal(w.jobs[j].req.nodes, 2);
	assert_int_equal(w.jobs[j].req.cores, 4);
	assert_int_equal(w.jobs[j].req.gpus, 4);
	assert_int_equal(w.jobs[j].req.mem_mib, 64 * 1024);
	assert_int_equal(w.truth[j].run_us, (3600 - 30 + 1800) * SIMTIME_SEC);
	j = by_name(&w, "default/side");
	assert_int_equal(w.jobs[j].req.cores, 4);   /* max(1 + the sidecar's 1, init's 3) + 250m overhead */
	assert_int_equal(w.jobs[j].req.mem_mib, 2048 + 120);
	assert_string_equal(workload_name(&w, WL_USER, w.jobs[j].tenant), "default");
	workload_free(&w);
	unlink(p);
	free(p);

	/* one Pod object, as kubectl get pod NAME -o json prints it */
	p = tu_write_tmp(".json", GOOD_POD);
	if (trace_read_any(p, false, &w, NULL, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 1);
	assert_string_equal(workload_job_name(&w, 0), "a/ok");
	workload_free(&w);
	unlink(p);
	free(p);
}

/* No input crashes the reader: every prefix of the fixture, and the
 * fixture with each byte in turn replaced, read or refused. */
static void test_pods_truncated(void **state)
{
	(void)state;
	char *fx = repo_path("tests/data/k8s/pods.json"), err[1024];
	FILE *f = fopen(fx, "rb");
	assert_non_null(f);
	static char text[65536];
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	assert_true(n > 1000 && n < sizeof text - 1);
	char *p = tu_tmpath(".json");
	for (size_t cut = 0; cut < n; cut += 97) {
		FILE *o = fopen(p, "wb");
		assert_non_null(o);
		fwrite(text, 1, cut, o);
		fclose(o);
		struct workload w;
		if (trace_k8s_pods_read(p, NULL, &w, err, sizeof err) == 0)
			workload_free(&w);
		else
			assert_int_equal(strncmp(err, p, strlen(p)), 0);
	}
	unlink(p);
	free(p);
	free(fx);
}

/* ---- nodes ------------------------------------------------------------------------- */

static void test_nodes_fixture(void **state)
{
	(void)state;
	char *p = repo_path("tests/data/k8s/nodes.json"), err[1024] = "";
	struct inv_nodes l;
	if (inv_nodes_read(p, INV_K8S, &l, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(l.n, 5);   /* the control-plane node left out */
	assert_int_equal(l.fmt, INV_K8S);
	assert_string_equal(l.node[0].name, "gpu-a100-0");
	assert_string_equal(l.node[0].model, "NVIDIA-A100-SXM4-80GB");
	assert_int_equal(l.node[0].gpus, 8);
	assert_int_equal(l.node[0].cpu_cores, 127);                 /* 127500m */
	assert_int_equal(l.node[0].mem_mib, 1056542668 / 1024);     /* Ki, rounded down */
	assert_int_equal(l.node[0].mig_cards, 0);
	assert_int_equal(l.node[0].item, 1);
	assert_string_equal(l.node[0].taints, "nvidia.com/gpu=present:NoSchedule");
	assert_int_equal(l.node[2].mig_cards, 4);                   /* mixed: 8 cards, 4 offered whole */
	assert_string_equal(l.node[3].model, "NVIDIA-H100-80GB-HBM3");
	assert_int_equal(l.node[3].cpu_cores, 223);
	assert_int_equal(l.node[4].gpus, 0);
	assert_string_equal(l.node[4].model, "");
	assert_null(l.node[4].taints);
	inv_nodes_free(&l);

	/* the cluster: products mapped by the catalog, MIG cards kept */
	struct cluster cl;
	cluster_init(&cl);
	assert_int_equal(catalog_load_builtin(&cl.cat, err, sizeof err), 0);
	assert_non_null(cl.mig = calloc(1, sizeof *cl.mig));
	assert_int_equal(mig_load_builtin(cl.mig, err, sizeof err), 0);
	struct inv_map map;
	inv_map_init(&map);
	if (inventory_cluster_build(p, INV_K8S, &map, 4, 40, &cl, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(cl.nnodes, 5);
	assert_int_equal(cl.nracks, 2);
	assert_int_equal(cl.nodes[0].gpu_model, catalog_find_gpu(&cl.cat, "A100-SXM-80GB"));
	assert_int_equal(cl.nodes[3].gpu_model, catalog_find_gpu(&cl.cat, "H100-SXM-80GB"));
	assert_int_equal(cl.nodes[2].mig_cards, 4);
	assert_int_equal(cl.nodes[0].mig_cards, 0);
	assert_int_equal(cl.nodes[4].ngpus, 0);
	/* the GPU nodes' taint keeps the CPU job off them */
	assert_int_equal(cluster_label_nodes(&cl, err, sizeof err), 0);
	assert_string_equal(labels_get(cl.labels, 0, "node.taints"), "nvidia.com/gpu=present:NoSchedule");
	assert_null(labels_get(cl.labels, 4, "node.taints"));
	cluster_fini(&cl);
	free(p);
}

static void expect_nodes_error(const char *text, bool build, const char *want)
{
	char *p = tu_write_tmp(".json", text), err[1024] = "", full[1536];
	int rc;
	if (build) {
		struct cluster cl;
		struct inv_map map;
		cluster_init(&cl);
		inv_map_init(&map);
		assert_int_equal(catalog_load_builtin(&cl.cat, err, sizeof err), 0);
		rc = inventory_cluster_build(p, INV_K8S, &map, 4, 40, &cl, err, sizeof err);
		cluster_fini(&cl);
	} else {
		struct inv_nodes l;
		rc = inv_nodes_read(p, INV_K8S, &l, err, sizeof err);
		if (rc == 0)
			inv_nodes_free(&l);
	}
	if (rc == 0)
		fail_msg("read without error: %s", text);
	snprintf(full, sizeof full, "%s: %s", p, want);
	if (strncmp(err, full, strlen(full)) != 0)
		fail_msg("error\n  '%s', expected\n  '%s...'", err, full);
	unlink(p);
	free(p);
}

#define NODE(labels, alloc) \
	"{\"kind\": \"NodeList\", \"items\": [{\"kind\": \"Node\", \"metadata\": {\"name\": \"n1\", " \
	"\"labels\": {" labels "}}, \"status\": {\"allocatable\": {" alloc "}}}]}"

static void test_nodes_bad(void **state)
{
	(void)state;
	expect_nodes_error(NODE("", "\"cpu\": \"abc\", \"memory\": \"1Gi\""), false,
	                   "items[0].status.allocatable.cpu: expected a CPU quantity such as \"96\" or "
	                   "\"95500m\", got \"abc\"");
	expect_nodes_error(NODE("", "\"cpu\": \"500m\", \"memory\": \"1Gi\""), false,
	                   "items[0].status.allocatable: cpu: expected at least one whole core");
	expect_nodes_error("{\"kind\": \"NodeList\", \"items\": [{\"metadata\": {\"name\": \"n1\"}, \"spec\": "
	                   "{\"taints\": [{\"key\": \"gpu\"}]}, \"status\": {\"allocatable\": {\"cpu\": \"4\", "
	                   "\"memory\": \"1Gi\"}}}]}", false,
	                   "items[0].spec.taints[0].effect: missing (expected a string)");
	expect_nodes_error(NODE("", "\"cpu\": \"4\""), false,
	                   "items[0].status.allocatable: memory: missing");
	expect_nodes_error(NODE("", "\"cpu\": \"4\", \"memory\": \"1Gi\", \"nvidia.com/gpu\": \"8\""), false,
	                   "items[0].metadata: labels: a node with 8 GPUs needs the GPU Feature Discovery "
	                   "label nvidia.com/gpu.product");
	expect_nodes_error(NODE("\"nvidia.com/gpu.product\": \"NVIDIA-A100-SXM4-80GB\", \"nvidia.com/gpu.count\": "
	                        "\"eight\"", "\"cpu\": \"4\", \"memory\": \"1Gi\""), false,
	                   "items[0].metadata.labels[\"nvidia.com/gpu.count\"]: expected an integer in 0..64, "
	                   "got \"eight\"");
	expect_nodes_error(NODE("\"nvidia.com/gpu.product\": \"NVIDIA-A100-SXM4-80GB\", \"nvidia.com/mig.strategy\": "
	                        "\"single\"", "\"cpu\": \"4\", \"memory\": \"1Gi\", \"nvidia.com/gpu\": \"56\""), false,
	                   "items[0].metadata.labels[\"nvidia.com/mig.strategy\"]: single without the label "
	                   "nvidia.com/gpu.count");
	expect_nodes_error(NODE("\"nvidia.com/gpu.product\": \"NVIDIA-A30\"",
	                        "\"cpu\": \"4\", \"memory\": \"1Gi\", \"nvidia.com/gpu\": \"4\""), true,
	                   "items[0] (node 'n1'): GPU product \"NVIDIA-A30\" (label nvidia.com/gpu.product) is "
	                   "not in the catalog, whose products are: NVIDIA-H100-80GB-HBM3, ");
	expect_nodes_error(NODE("\"nvidia.com/gpu.product\": \"NVIDIA-A100-SXM4-80GB\", \"nvidia.com/gpu.memory\": "
	                        "\"40960\"", "\"cpu\": \"4\", \"memory\": \"1Gi\", \"nvidia.com/gpu\": \"4\""), true,
	                   "items[0] (node 'n1'): label nvidia.com/gpu.memory says 40960 MiB, but the catalog's "
	                   "A100-SXM-80GB (product NVIDIA-A100-SXM4-80GB) has 81920 MiB");
	char *pods = repo_path("tests/data/k8s/pods.json"), err[1024];
	struct inv_nodes l;
	assert_int_equal(inv_nodes_read(pods, INV_K8S, &l, err, sizeof err), -1);
	char want[1536];
	snprintf(want, sizeof want, "%s: a Kubernetes Pod list (kubectl get pods -A -o json), not a Node "
	         "list: give it as the trace", pods);
	if (strncmp(err, want, strlen(want)) != 0)
		fail_msg("%s", err);
	free(pods);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantities),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_pods_fixture),
		cmocka_unit_test(test_pods_gzip),
		cmocka_unit_test(test_pods_bad),
		cmocka_unit_test(test_pods_shapes),
		cmocka_unit_test(test_pods_truncated),
		cmocka_unit_test(test_nodes_fixture),
		cmocka_unit_test(test_nodes_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
