/* fuzz_openb_nodes — the openb node lists (traces/openb.c), their summary,
 * and the same file as a node inventory (traces/nodelist.c) grouped into
 * shapes: every node is in one shape, the shapes' counts add up. */
#include "tests/fuzz/fuzz.h"
#include "traces/nodelist.h"
#include "traces/openb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = fz_file(0, data, size, ".csv");
	char err[1024] = "";
	struct openb_nodes l;
	openb_nodes_init(&l);
	if (trace_openb_nodes_read(p, &l, err, sizeof err) == 0) {
		struct openb_node_summary s = { 0 };
		if (openb_node_summary(&l, &s, err, sizeof err) == 0) {
			if (s.all.nodes != l.n)
				fz_fail("the summary counts %d nodes of %d", s.all.nodes, l.n);
			openb_node_summary_free(&s);
		}
	} else {
		fz_names(err, p);
	}
	openb_nodes_free(&l);
	struct inv_nodes in;
	inv_nodes_init(&in);
	if (inv_nodes_read(p, INV_OPENB, &in, err, sizeof err) == 0) {
		struct inv_shapes sh = { 0 };
		if (inv_group(&in, &sh, err, sizeof err) == 0) {
			int64_t sum = 0;
			for (int32_t k = 0; k < sh.n; k++)
				sum += sh.s[k].nodes;
			for (int32_t i = 0; i < in.n; i++)
				if (sh.of[i] < 0 || sh.of[i] >= sh.n)
					fz_fail("node %d has shape %d of %d", i, sh.of[i], sh.n);
			if (sum != in.n)
				fz_fail("shapes hold %lld nodes of %d", (long long)sum, in.n);
			inv_shapes_free(&sh);
		}
	} else {
		fz_names(err, p);
	}
	inv_nodes_free(&in);
	return 0;
}
