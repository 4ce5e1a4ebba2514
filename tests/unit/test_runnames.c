/* runnames: the names a replayed trace gives, in the results file (tables
 * name and job_name, meta unix_start, job.qos; recorder_set_names) and as
 * `hetlab jobs` lists them (analysis/joblist.c): JobID the trace's id,
 * JobName, User, Account, Partition and QOS the names, times on the
 * trace's dates; a run without names as before. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/joblist.h"
#include "analysis/recorder.h"
#include "tests/testutil.h"
#include "tests/unit/db_fixture.h"

/* The recorder takes the tables as a workload holds them (char **). */
#define N(s) ((char *)(s))
static char *const users[] = { N("alice"), N("bob") };
static char *const accounts[] = { N("physics") };
static char *const partitions[] = { N("cpu"), N("gpu") };
static char *const qos[] = { N("normal"), N("high") };
static char *const gpu_types[] = { N("a100") };
static char *const job_names[] = { N("train"), N("eval") };
static const int32_t job_name[] = { 1, -1, 0 };

/* Three jobs (trace ids 101-103) in a results file, with the names or
 * without (then the recorder is given none). The path, caller frees. */
static char *write_run(bool named)
{
	char *path = tu_tmpath(".db"), err[512] = "";
	struct recorder *r = recorder_open(path, err, sizeof err);
	if (!r)
		fail_msg("%s", err);
	struct recorder_names nm = { .unix_start = -1 };
	if (named)
		nm = (struct recorder_names){
			.kind = { "user", "account", "partition", "qos", "gpu_type" },
			.v = { users, accounts, partitions, qos, gpu_types },
			.n = { 2, 1, 2, 2, 1 },
			.job_names = job_names, .njob_names = 2, .job_name = job_name, .njobs = 3,
			.unix_start = 1767571200,   /* 2026-01-05T00:00:00Z */
		};
	assert_int_equal(recorder_set_names(r, &nm), 0);
	assert_int_equal(recorder_exec(r,
		"INSERT INTO job(id, trace_id, class, tenant, grp, queue, qos, state, submit_us, start_us,"
		" end_us, nodes, cores, gpus, mem_mib, req_cores, req_gpus, preemptions, restarts) VALUES"
		" (0, 101, 'training', 1, 0, 1, 1, 'done', 0, 60000000, 3660000000, 1, 4, 1, 100, 4, 1, 0, 0),"
		" (1, 102, 'batch', 0, 0, 0, NULL, 'failed', 5000000, 5000000, 6000000, 1, 1, 0, 100, 1, 0, 0, 0),"
		" (2, 103, 'batch', 0, NULL, NULL, 0, 'done', 7000000, 8000000, 9000000, 1, 2, 0, 100, 2, 0, 0, 0)",
		"the jobs"), 0);
	struct run_info ri = { .scenario = "t", .policy = "easy", .version = "test", .trace = "t.sacct" };
	if (recorder_finish(r, &ri, 0, 0, 0, err, sizeof err))
		fail_msg("%s", err);
	return path;
}

/* `hetlab jobs DB -P -n -o FORMAT` (with --origin and -A) prints want. */
static void expect_jobs(const char *db, const char *format, const char *origin, const char *acct,
                        const char *want)
{
	char *text = NULL, err[512] = "";
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	struct joblist_opts o = { .format = format, .parsable = 2, .noheader = true, .origin = origin,
	                          .accounts = acct };
	if (joblist_print(db, &o, f, err, sizeof err))
		fail_msg("%s", err);
	fclose(f);
	assert_string_equal(text, want);
	free(text);
}

static void drop(char *path)
{
	unlink(path);
	free(path);
}

static void test_tables(void **state)
{
	(void)state;
	char *path = write_run(true);
	sqlite3 *db = db_open(path);
	assert_int_equal(q_int(db, "SELECT count(*) FROM name"), 8);
	assert_int_equal(q_int(db, "SELECT count(*) FROM name WHERE kind = 'qos' AND idx = 1 AND name = 'high'"), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM name WHERE kind = 'gpu_type' AND name = 'a100'"), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM job_name"), 2);   /* job 1 has none */
	assert_int_equal(q_int(db, "SELECT count(*) FROM job_name WHERE id = 0 AND name = 'eval'"), 1);
	assert_int_equal(q_int(db, "SELECT value FROM meta WHERE key = 'unix_start'"), 1767571200);
	assert_int_equal(q_int(db, "SELECT count(*) FROM job WHERE qos IS NULL"), 1);
	/* The tables are sealed with the others (docs/audit.md). */
	assert_int_equal(q_int(db, "SELECT count(*) FROM audit_seal WHERE tbl IN ('name', 'job_name')"), 2);
	sqlite3_close(db);
	drop(path);
	/* No names: neither table, no unix_start. */
	path = write_run(false);
	db = db_open(path);
	assert_int_equal(q_int(db, "SELECT count(*) FROM sqlite_master WHERE name IN ('name', 'job_name')"), 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM meta WHERE key = 'unix_start'"), 0);
	sqlite3_close(db);
	drop(path);
}

static void test_jobs_named(void **state)
{
	(void)state;
	char *path = write_run(true);
	expect_jobs(path, "JobID,JobName,User,Account,Partition,QOS,Group,Submit,Start,End,State", NULL, NULL,
		"101|eval|bob|physics|gpu|high|0|2026-01-05T00:00:00|2026-01-05T00:01:00|2026-01-05T01:01:00|COMPLETED\n"
		"102|batch|alice|physics|cpu||0|2026-01-05T00:00:05|2026-01-05T00:00:05|2026-01-05T00:00:06|FAILED\n"
		"103|train|alice||batch|normal||2026-01-05T00:00:07|2026-01-05T00:00:08|2026-01-05T00:00:09|COMPLETED\n");
	/* --origin still lays the run elsewhere; -A takes account names. */
	expect_jobs(path, "JobIDRaw,Submit", "2030-01-01", "physics",
	            "101|2030-01-01T00:00:00\n102|2030-01-01T00:00:05\n");
	drop(path);
}

static void test_jobs_unnamed(void **state)
{
	(void)state;
	char *path = write_run(false);
	/* As before: the class as JobName and Partition (-qN), the tenant as
	 * Account and User, dates from the run's creation (here --origin). */
	expect_jobs(path, "JobID,JobName,User,Account,Partition,QOS,Submit", "2026-01-05", NULL,
		"101|training|1|1|training-q1|1|2026-01-05T00:00:00\n"
		"102|batch|0|0|batch-q0||2026-01-05T00:00:05\n"
		"103|batch|0|0|batch|0|2026-01-05T00:00:07\n");
	expect_jobs(path, "JobID", "2026-01-05", "1", "101\n");
	drop(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_jobs_named),
		cmocka_unit_test(test_jobs_unnamed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
