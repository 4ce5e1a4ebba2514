/* fuzz_sinfo — the `sinfo --json` parser of the Slurm executor
 * (live/slurm_json.c, sx_parse_nodes), for every job or node and for one
 * partition: a partition's list is a part of the whole. */
#include "tests/fuzz/fuzz.h"
#include "live/exec/slurm_cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_string(data, size);
	char err[1024] = "";
	struct sx_nodeinfo *all = NULL, *part = NULL;
	int nall = 0, npart = 0;
	int ra = sx_parse_nodes(text, NULL, &all, &nall, err, sizeof err);
	int rp = sx_parse_nodes(text, "debug", &part, &npart, err, sizeof err);
	if (ra == 0 && (rp != 0 || npart > nall))
		fz_fail("%d nodes, %d in debug (rc %d)", nall, npart, rp);
	for (int i = 0; i < nall; i++)
		if (!memchr(all[i].name, '\0', sizeof all[i].name) || all[i].gpus_used < 0)
			fz_fail("node %d: name not terminated or negative GPUs used", i);
	free(all);
	free(part);
	free(text);
	return 0;
}
