/* fuzz_k8s — the Kubernetes readers (traces/k8s.h): the input as a pod
 * list, without and with the catalog's GPU products, and as a node list
 * grouped into shapes. A read either fails naming the file or gives jobs
 * sorted by submit time, each with a job name and a tenant; every node is
 * in one shape. */
#include "tests/fuzz/fuzz.h"
#include "config/catalog.h"
#include "traces/anytrace.h"
#include "traces/k8s.h"
#include "traces/nodelist.h"

static void check_pods(const struct workload *w)
{
	for (int32_t i = 0; i < w->n; i++) {
		const struct job *j = &w->jobs[i];
		if (i && j->submit_us < w->jobs[i - 1].submit_us)
			fz_fail("job %d submitted before job %d", i, i - 1);
		if (j->submit_us < 0 || w->truth[i].run_us < 0)
			fz_fail("job %d: submit %lld, run %lld", i, (long long)j->submit_us,
			        (long long)w->truth[i].run_us);
		if (!workload_job_name(w, i) || !workload_name(w, WL_USER, j->tenant))
			fz_fail("job %d has no name or no namespace", i);
		if (j->req.nodes < 1 || j->req.gpus < 0 || j->req.gpus > 64 || j->req.cores < 0)
			fz_fail("job %d: nodes %d, gpus %d, cores %d", i, j->req.nodes, j->req.gpus,
			        j->req.cores);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct catalog cat;
	static int have_cat = -1;
	char err[1024] = "";
	if (have_cat < 0)
		have_cat = catalog_load_builtin(&cat, err, sizeof err) == 0;
	const char *p = fz_file(0, data, size, ".json");
	struct workload w;
	if (trace_k8s_pods_read(p, NULL, &w, err, sizeof err) == 0) {
		check_pods(&w);
		workload_free(&w);
	} else {
		fz_names(err, p);
	}
	if (have_cat) {
		struct swf_shape sh = { .cat = &cat };
		if (trace_read_shaped(p, true, &sh, &w, NULL, err, sizeof err) == 0) {
			check_pods(&w);
			workload_free(&w);
		} else {
			fz_names(err, p);
		}
	}
	struct inv_nodes in;
	if (inv_nodes_read(p, INV_K8S, &in, err, sizeof err) == 0) {
		struct inv_shapes sh = { 0 };
		if (inv_group(&in, &sh, err, sizeof err) == 0) {
			int64_t sum = 0;
			for (int32_t k = 0; k < sh.n; k++)
				sum += sh.s[k].nodes;
			if (sum != in.n)
				fz_fail("shapes hold %lld nodes of %d", (long long)sum, in.n);
			inv_shapes_free(&sh);
		}
		for (int32_t i = 0; i < in.n; i++)
			if (in.node[i].mig_cards < 0 || in.node[i].mig_cards > in.node[i].gpus)
				fz_fail("node %d: %d MIG cards of %d", i, in.node[i].mig_cards, in.node[i].gpus);
		inv_nodes_free(&in);
	} else {
		fz_names(err, p);
	}
	return 0;
}
