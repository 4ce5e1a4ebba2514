/* fuzz_audit — the audit archive (analysis/audit.h, audit_verify): the
 * input is the archive of a pruned results file, verified against that
 * file's remaining chain ($HETLAB_FUZZ_AUDIT_DB, which tests/fuzz/run.sh
 * makes with `hetlab run` and `hetlab audit prune`). Only the public
 * entry point: whatever the archive holds, a verdict or an error, never a
 * crash; a verdict of OK counts every record it read. */
#include "tests/fuzz/fuzz.h"
#include "analysis/audit.h"

static const char *db;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	db = getenv("HETLAB_FUZZ_AUDIT_DB");
	if (!db || access(db, R_OK) != 0) {
		fprintf(stderr, "fuzz_audit: set HETLAB_FUZZ_AUDIT_DB to a pruned results file "
		        "(tests/fuzz/run.sh makes one)\n");
		exit(1);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *a = fz_file(0, data, size, ".jsonl");
	const char *archives[1] = { a };
	char err[1024] = "";
	static struct audit_verdict v;
	memset(&v, 0, sizeof v);
	if (audit_verify(db, archives, 1, &v, err, sizeof err) != 0)
		return 0;
	if (v.what == AUDIT_OK && (v.narchived < 0 || v.narchived > v.count))
		fz_fail("verdict OK with %lld archived of %lld records", (long long)v.narchived,
		        (long long)v.count);
	return 0;
}
