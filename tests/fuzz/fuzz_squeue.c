/* fuzz_squeue — the `squeue --json` parser of the Slurm executor
 * (live/slurm_json.c, sx_parse_jobs), for every job or node and for one
 * partition: a partition's list is a part of the whole. */
#include "tests/fuzz/fuzz.h"
#include "live/exec_slurm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_string(data, size);
	char err[1024] = "";
	struct sx_jobinfo *all = NULL, *part = NULL, *mine = NULL;
	int nall = 0, npart = 0, nmine = 0;
	int ra = sx_parse_jobs(text, NULL, false, &all, &nall, err, sizeof err);
	int rp = sx_parse_jobs(text, "debug", false, &part, &npart, err, sizeof err);
	int rm = sx_parse_jobs(text, NULL, true, &mine, &nmine, err, sizeof err);
	if (ra == 0 && (rp != 0 || rm != 0 || npart > nall || nmine > nall))
		fz_fail("%d jobs, %d in debug, %d hetlab-* (rc %d %d)", nall, npart, nmine, rp, rm);
	for (int i = 0; i < nmine; i++)
		if (strncmp(mine[i].name, "hetlab-", 7) != 0)
			fz_fail("job %lld named %s kept as hetlab's", (long long)mine[i].id, mine[i].name);
	free(all);
	free(part);
	free(mine);
	free(text);
	return 0;
}
