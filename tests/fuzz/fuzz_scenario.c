/* fuzz_scenario — the scenario loader (config/scenario.c and the loaders it
 * calls: catalog, node types, racks, resources, org, power, failures,
 * tiered, billing, the synthetic workload). The input is a scenario file;
 * an accepted one is a consistent cluster, a refused one names the file. */
#include "tests/fuzz/fuzz.h"
#include "config/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = fz_file(0, data, size, ".json");
	char err[1024] = "";
	struct scenario sc;
	if (scenario_load(p, &sc, err, sizeof err) != 0) {
		fz_names(err, p);
		return 0;
	}
	const struct cluster *cl = &sc.cl;
	if (cl->nnodes > HL_MAX_NODES || cl->nracks > HL_MAX_RACKS || cl->ntypes > HL_MAX_TYPES)
		fz_fail("%d nodes, %d racks, %d types: past the limits", cl->nnodes, cl->nracks, cl->ntypes);
	for (int32_t i = 0; i < cl->nnodes; i++)
		if (cl->nodes[i].rack < 0 || cl->nodes[i].rack >= cl->nracks || cl->nodes[i].type < 0 ||
		    cl->nodes[i].type >= cl->ntypes)
			fz_fail("node %d: rack %d, type %d out of range", i, cl->nodes[i].rack, cl->nodes[i].type);
	if (sc.sample_every_us != 0 && sc.sample_every_us < SIMTIME_SEC)
		fz_fail("sample interval %lld us below the floor", (long long)sc.sample_every_us);
	scenario_free(&sc);
	return 0;
}
