/* fuzz_squeue — the text parsers of the Slurm executor (live/slurm_text.c):
 * the lines of `squeue -h -O SX_SQUEUE_FORMAT` (sx_parse_squeue), of the
 * shadow's SX_SQUEUE_FULL_FORMAT (sx_parse_squeue_full) and, from the
 * same input, `sacct -n -P --format=SX_SACCT_FORMAT` (sx_parse_sacct) and
 * `scontrol show config` (sx_parse_config). A refusal has a message, every
 * string a parser keeps is NUL-terminated within its field, and a job it
 * accepts has an id > 0. */
#include "tests/fuzz/fuzz.h"
#include "live/exec/slurm_cmd.h"

#include <string.h>

#define TERMINATED(a) (memchr((a), 0, sizeof (a)) != NULL)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_string(data, size);
	char err[1024] = "";
	struct sx_jobinfo *jobs = NULL;
	struct sx_acct *runs = NULL;
	struct sx_config cfg;
	int nj = 0, na = 0;
	if (sx_parse_squeue(text, &jobs, &nj, err, sizeof err) == 0) {
		for (int i = 0; i < nj; i++) {
			const struct sx_jobinfo *j = &jobs[i];
			if (j->id <= 0)
				fz_fail("squeue: job %d kept with id %lld", i, (long long)j->id);
			if (!TERMINATED(j->nodes) || !TERMINATED(j->name) || !TERMINATED(j->reason) ||
			    !TERMINATED(j->comment) || !TERMINATED(j->user) || !TERMINATED(j->partition) ||
			    !TERMINATED(j->state_id))
				fz_fail("squeue: job %lld has an unterminated field", (long long)j->id);
		}
	} else if (!err[0])
		fz_fail("squeue: refused without a message");
	free(jobs);
	jobs = NULL;
	err[0] = 0;
	if (sx_parse_squeue_full(text, &jobs, &nj, err, sizeof err) == 0) {
		for (int i = 0; i < nj; i++) {
			const struct sx_jobinfo *j = &jobs[i];
			if (j->id <= 0 || !j->full || j->limit_s < -1 || j->nnodes < 0 || j->ncpus < 0 || j->gpus < 0 ||
			    j->mem_mib < 0)
				fz_fail("squeue full: job %d kept with id %lld or a negative count", i, (long long)j->id);
			if (!TERMINATED(j->nodes) || !TERMINATED(j->reason) || !TERMINATED(j->account) || !TERMINATED(j->qos))
				fz_fail("squeue full: job %lld has an unterminated field", (long long)j->id);
		}
	} else if (!err[0])
		fz_fail("squeue full: refused without a message");
	err[0] = 0;
	if (sx_parse_sacct(text, &runs, &na, err, sizeof err) == 0) {
		for (int i = 0; i < na; i++)
			if (runs[i].id <= 0 || !TERMINATED(runs[i].nodes) || !TERMINATED(runs[i].name))
				fz_fail("sacct: run %d kept with id %lld or an unterminated field", i,
				        (long long)runs[i].id);
	} else if (!err[0])
		fz_fail("sacct: refused without a message");
	err[0] = 0;
	if (sx_parse_config(text, &cfg, err, sizeof err) == 0 && !TERMINATED(cfg.select_params))
		fz_fail("scontrol show config: SelectTypeParameters unterminated");
	free(jobs);
	free(runs);
	free(text);
	return 0;
}
