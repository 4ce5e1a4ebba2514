/* sacct: the Slurm accounting dumps captured on the local test cluster
 * (tests/data/sacct/SOURCE.md) and malformed dumps: names, the runs of a
 * requeued job (sacct -D) as one job, the sign of requeues in a dump
 * without -D, and the partitions and GPU types a scenario lacks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/scenario.h"
#include "sim/label.h"
#include "tests/testutil.h"
#include "traces/anytrace.h"
#include "traces/sacct.h"

static void data_path(const char *name, char *out, size_t n)
{
	snprintf(out, n, "%s/tests/data/sacct/%s", tu_root(), name);
}

/* The job whose JobName-ordered index we want: by trace_id (JobIDRaw). */
static int32_t by_id(const struct workload *w, int64_t id)
{
	for (int32_t i = 0; i < w->n; i++)
		if (w->jobs[i].trace_id == id)
			return i;
	fail_msg("no job %lld", (long long)id);
	return -1;
}

static void test_capture_alloc(void **st)
{
	(void)st;
	char p[4096], err[512] = "";
	data_path("local-alloc.txt", p, sizeof p);
	assert_int_equal(trace_format_of(p), TRACE_SACCT);
	struct workload w;
	struct sacct_jobs x;
	struct sacct_opts o = { .partition_label = "partition", .gpu_type_label = "gpu.type" };
	if (trace_sacct_read(p, &o, &w, &x, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 20);
	assert_int_equal(x.n, 20);
	assert_int_equal(x.steps, 0);
	assert_true(w.unix_start > 1700000000);
	/* mpi-two: 2 nodes x 2 CPUs, 1000 MiB per node (ReqMem 2000M is the total). */
	const struct job *j = &w.jobs[by_id(&w, 2)];
	assert_int_equal(j->req.nodes, 2);
	assert_int_equal(j->req.cores, 2);
	assert_int_equal(j->req.mem_mib, 1000);
	assert_int_equal(w.truth[j->id].run_us, 3 * SIMTIME_SEC);
	assert_int_equal(j->walltime_us, 300 * SIMTIME_SEC);
	assert_string_equal(x.qos.name[x.job[j->id].qos], "high");
	assert_string_equal(x.accounts.name[x.job[j->id].account], "bio");
	assert_string_equal(x.partitions.name[x.job[j->id].partition], "cpu");
	assert_string_equal(w.str[j->req.sel_req - 1], "partition = \"cpu\"");
	/* train-v100x2: 2 nodes, 4 GPUs of type v100 in all -> 2 per node. */
	j = &w.jobs[by_id(&w, 8)];
	assert_int_equal(j->req.nodes, 2);
	assert_int_equal(j->req.gpus, 2);
	assert_int_equal(j->cls, JOB_TRAINING);
	assert_string_equal(x.job[j->id].gpu_type, "v100");
	assert_string_equal(w.str[j->req.sel_req - 1], "partition = \"gpu\", gpu.type = \"v100\"");
	/* infer-any asked any GPU; AllocTRES says it got an a100. */
	assert_string_equal(x.job[by_id(&w, 9)].gpu_type, "a100");
	/* States: FAILED and CANCELLED fail; TIMEOUT ran its minute. */
	assert_int_equal(w.truth[by_id(&w, 3)].fails, 1);
	assert_string_equal(x.job[by_id(&w, 3)].exit_code, "3:0");
	assert_int_equal(w.truth[by_id(&w, 4)].fails, 1);
	assert_string_equal(x.job[by_id(&w, 4)].state, "CANCELLED by 0");
	int32_t ov = by_id(&w, 6);
	assert_int_equal(w.truth[ov].fails, 0);
	assert_int_equal(w.truth[ov].run_us, 60 * SIMTIME_SEC);
	assert_int_equal(w.jobs[ov].walltime_us, 60 * SIMTIME_SEC);
	assert_string_equal(x.job[ov].state, "TIMEOUT");
	assert_string_equal(x.partitions.name[x.job[ov].partition], "short");
	/* The array's tasks by JobIDRaw (11_0 is 18). */
	assert_int_equal(w.jobs[by_id(&w, 18)].req.cores, 1);
	/* The names: the workload's tables, job.tenant / group / queue / qos
	 * their indexes; JobName and the GPU type per job. */
	j = &w.jobs[by_id(&w, 2)];
	assert_string_equal(workload_name(&w, WL_USER, j->tenant), "root");
	assert_string_equal(workload_name(&w, WL_ACCOUNT, j->group), "bio");
	assert_string_equal(workload_name(&w, WL_PARTITION, j->queue), "cpu");
	assert_string_equal(workload_name(&w, WL_QOS, j->qos), "high");
	assert_string_equal(workload_job_name(&w, j->id), "mpi-two");
	assert_null(workload_job_gpu_type(&w, j->id));
	assert_string_equal(workload_job_gpu_type(&w, by_id(&w, 8)), "v100");
	assert_string_equal(workload_job_gpu_type(&w, by_id(&w, 9)), "a100");
	assert_string_equal(workload_job_name(&w, by_id(&w, 18)), "sweep");
	assert_int_equal(w.names[WL_QOS].n, 3);
	assert_int_equal(x.qos.n, 3);
	/* One line a job: no runs merged, no job submitted after a higher JobID. */
	assert_int_equal(x.job[j->id].runs, 1);
	assert_int_equal(x.job[j->id].requeues, 0);
	assert_int_equal(w.sacct_merged, 0);
	assert_int_equal(w.sacct_late, 0);
	/* Sorted by submit; ids are indexes. */
	for (int32_t i = 0; i < w.n; i++) {
		assert_int_equal(w.jobs[i].id, i);
		assert_true(i == 0 || w.jobs[i].submit_us >= w.jobs[i - 1].submit_us);
	}
	workload_free(&w);
	sacct_jobs_free(&x);
}

static void test_capture_steps_and_minimal(void **st)
{
	(void)st;
	char p[4096], err[512] = "";
	data_path("local-steps.txt", p, sizeof p);
	struct workload w;
	struct sacct_jobs x;
	if (trace_sacct_read(p, NULL, &w, &x, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 20);
	assert_int_equal(x.steps, 22);          /* .batch, .extern and the two srun steps */
	assert_int_equal(w.jobs[by_id(&w, 2)].req.sel_req, 0);   /* no label options */
	workload_free(&w);
	sacct_jobs_free(&x);
	/* Another column set: no user, account or QOS columns. */
	data_path("local-minimal.txt", p, sizeof p);
	if (trace_read_any(p, false, &w, NULL, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 20);
	assert_int_equal(w.jobs[0].tenant, -1);
	assert_int_equal(w.jobs[by_id(&w, 2)].req.cores, 2);
	assert_int_equal(w.jobs[by_id(&w, 2)].req.mem_mib, 0);
	workload_free(&w);
}

static const char hdr[] = "JobID|Partition|State|Submit|Start|End|Timelimit|NNodes|NCPUS|ReqMem\n";

static void test_malformed(void **st)
{
	(void)st;
	static const struct { const char *text, *want; } bad[] = {
		{ "JobID|Submit|End|NCPUS\n1|2026-01-01T00:00:00|2026-01-01T00:00:01|1\n",
		  ":1: the header has no Start column" },
		{ "1|cpu|COMPLETED|yesterday|2026-01-01T00:00:00|2026-01-01T00:00:01|00:05:00|1|1|1G\n",
		  ":2: Submit: expected a time YYYY-MM-DDTHH:MM:SS, got 'yesterday'" },
		{ "1|cpu|COMPLETED|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:01|1|1|1G\n",
		  ":2: expected 10 '|'-separated fields as in the header, got 9" },
		{ "1|cpu|COMPLETED|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:01|five|1|1|1G\n",
		  ":2: Timelimit: expected a duration [D-]HH:MM:SS, got 'five'" },
		{ "1|cpu|COMPLETED|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:01|5|0|1|1G\n",
		  ":2: NNodes: expected a node count >= 1, got '0'" },
		{ "1|cpu|COMPLETED|2026-01-01T00:00:00|2026-01-01T00:00:09|2026-01-01T00:00:01|5|1|1|1G\n",
		  ":2: End is before Start" },
		{ "1|cpu|COMPLETED|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:00:01|5|1|1|lots\n",
		  ":2: ReqMem: expected a size like 500M" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char text[1024];
		snprintf(text, sizeof text, "%s%s", strncmp(bad[i].text, "JobID", 5) ? hdr : "",
		         bad[i].text);
		char *p = tu_write_tmp(".sacct", text);
		struct workload w;
		char err[512] = "";
		if (trace_sacct_read(p, NULL, &w, NULL, err, sizeof err) != -1 || !strstr(err, bad[i].want))
			fail_msg("case %zu: %s\nexpected %s", i, err, bad[i].want);
		assert_int_equal(w.n, 0);
		assert_non_null(strstr(err, p));
		unlink(p);
		free(p);
	}
}

static void test_never_ran_and_lenient(void **st)
{
	(void)st;
	char *p = tu_write_tmp(".sacct",
		"JobID|Partition|State|Submit|Start|End|Timelimit|NNodes|NCPUS|ReqMem\n"
		"1|cpu|COMPLETED|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|1-00:00:00|1|4|100Mc\n"
		"2|cpu|CANCELLED by 0|2026-01-01T00:00:05|None|2026-01-01T00:00:09|UNLIMITED|1|0|1G\n"
		"3|gpu,cpu|RUNNING|2026-01-01T00:00:06|2026-01-01T00:00:07|Unknown|10|1|2|2Gn\n"
		"4|cpu|COMPLETED|bad|2026-01-01T00:00:00|2026-01-01T00:01:00|5|1|1|1G\n"
		"5|cpu|COMPLETED|2026-01-01T00:00:03|2026-01-01T00:00:04|2026-01-01T00:00:05|Partition_Limit|2|8|2Gn\n");
	struct workload w;
	struct sacct_jobs x;
	char err[512] = "";
	struct sacct_opts o = { .lenient = true };
	assert_int_equal(trace_sacct_read(p, &o, &w, &x, err, sizeof err), 0);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.skipped_unusable, 2);        /* never started; still running */
	assert_int_equal(x.never_ran, 2);
	assert_int_equal(w.skipped_malformed, 1);
	assert_int_equal(w.jobs[0].walltime_us, 86400 * SIMTIME_SEC);
	assert_int_equal(w.jobs[0].req.mem_mib, 400);    /* 100 MiB per CPU x 4 */
	assert_int_equal(w.jobs[1].req.mem_mib, 2048);   /* 2G per node */
	assert_int_equal(w.jobs[1].req.cores, 4);
	assert_int_equal(w.jobs[1].walltime_us, SIMTIME_INF);
	assert_int_equal(w.jobs[1].submit_us, 3 * SIMTIME_SEC);
	workload_free(&w);
	sacct_jobs_free(&x);
	unlink(p);
	free(p);
}

/* The dumps of one workload captured with and without -D (SOURCE.md):
 * b-requeue requeued once by scontrol, d-twice twice, low-1 preempted by
 * high-1 (PreemptMode=REQUEUE), pend-cancel cancelled while pending. */
static void test_requeue_dumps(void **st)
{
	(void)st;
	char p[4096], err[512] = "", notes[1024];
	data_path("local-requeue-D.txt", p, sizeof p);
	struct workload w;
	struct sacct_jobs x;
	if (trace_sacct_read(p, NULL, &w, &x, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 9);               /* 10 jobs, pend-cancel never ran */
	assert_int_equal(x.never_ran, 1);
	assert_int_equal(w.skipped_unusable, 1);
	assert_int_equal(w.sacct_merged, 4);    /* 2 + 3 + 5 + 5 of 14 lines */
	/* b-requeue: the Submit of its first run (the first of the dump), the
	 * rest of the second, one requeue. */
	int32_t b = by_id(&w, 2);
	assert_int_equal(w.jobs[b].submit_us, 0);
	assert_int_equal(w.truth[b].run_us, 8 * SIMTIME_SEC);
	assert_int_equal(x.job[b].runs, 2);
	assert_int_equal(x.job[b].requeues, 1);
	assert_string_equal(x.job[b].state, "COMPLETED");
	/* d-twice: three runs, two requeues, submitted first too. */
	int32_t d = by_id(&w, 3);
	assert_int_equal(w.jobs[d].submit_us, 0);
	assert_int_equal(w.truth[d].run_us, 8 * SIMTIME_SEC);
	assert_int_equal(x.job[d].runs, 3);
	assert_int_equal(x.job[d].requeues, 2);
	assert_string_equal(workload_name(&w, WL_QOS, w.jobs[d].qos), "hi");
	/* low-1: PREEMPTED then COMPLETED: it did not fail. */
	int32_t l = by_id(&w, 5);
	assert_int_equal(w.jobs[l].submit_us, 3 * SIMTIME_SEC);
	assert_int_equal(w.truth[l].run_us, 12 * SIMTIME_SEC);
	assert_int_equal(w.truth[l].fails, 0);
	assert_int_equal(x.job[l].requeues, 1);
	assert_int_equal(x.job[by_id(&w, 6)].requeues, 0);
	assert_string_equal(workload_job_name(&w, by_id(&w, 4)), "gpu job");
	assert_int_equal(w.sacct_late, 0);
	sacct_notes(&w, notes, sizeof notes);
	assert_non_null(strstr(notes, "4 lines were further runs of a requeued or preempted job (sacct -D)"));
	workload_free(&w);
	sacct_jobs_free(&x);
	/* Without -D: each requeued job's last run only, submitted at its
	 * requeue; three jobs submitted after a job of a higher JobID. */
	data_path("local-requeue.txt", p, sizeof p);
	if (trace_sacct_read(p, NULL, &w, &x, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 9);
	assert_int_equal(w.sacct_merged, 0);
	assert_int_equal(w.jobs[by_id(&w, 2)].submit_us, 3 * SIMTIME_SEC);
	assert_int_equal(x.job[by_id(&w, 3)].requeues, 0);
	assert_int_equal(w.sacct_late, 3);      /* 2, 3 and 5 */
	assert_int_equal(w.sacct_late_id[0], 2);
	assert_int_equal(w.sacct_late_id[1], 4);
	sacct_notes(&w, notes, sizeof notes);
	assert_string_equal(notes, "3 jobs were submitted later than a job of a higher JobID (first JobID 2, "
	                    "after JobID 4): requeued jobs in a dump made without -D, which keeps only a "
	                    "requeued job's last run, submitted when it was requeued (dump with sacct -D)");
	workload_free(&w);
	sacct_jobs_free(&x);
}

/* The runs of a job in any order: the latest Start is the run kept, the
 * earliest Submit the job's; a job whose first line never ran runs when
 * a later one did; one whose last line never ran keeps its last run. */
static void test_runs_merged(void **st)
{
	(void)st;
	char *p = tu_write_tmp(".sacct",
		"JobID|JobIDRaw|State|Submit|Start|End|NCPUS|Timelimit\n"
		"7|7|COMPLETED|2026-01-01T00:10:00|2026-01-01T00:10:00|2026-01-01T00:15:00|4|10\n"
		"7|7|PREEMPTED|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:05:00|2|10\n"
		"8|8|REQUEUED|2026-01-01T00:01:00|None|2026-01-01T00:02:00|1|10\n"
		"8|8|COMPLETED|2026-01-01T00:02:00|2026-01-01T00:03:00|2026-01-01T00:04:00|1|10\n"
		"9|9|REQUEUED|2026-01-01T00:01:00|2026-01-01T00:01:00|2026-01-01T00:02:00|1|10\n"
		"9|9|CANCELLED by 0|2026-01-01T00:02:00|None|2026-01-01T00:03:00|1|10\n"
		"10|10|CANCELLED by 0|2026-01-01T00:02:00|None|2026-01-01T00:03:00|1|10\n");
	struct workload w;
	struct sacct_jobs x;
	char err[512] = "";
	if (trace_sacct_read(p, NULL, &w, &x, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.n, 3);
	assert_int_equal(x.never_ran, 1);       /* 10 only: 8 ran at its second try */
	assert_int_equal(w.skipped_unusable, 1);
	assert_int_equal(w.sacct_merged, 3);
	int32_t a = by_id(&w, 7), b = by_id(&w, 8), c = by_id(&w, 9);
	assert_int_equal(w.jobs[a].submit_us, 0);
	assert_int_equal(w.jobs[a].req.cores, 4);
	assert_int_equal(w.truth[a].run_us, 300 * SIMTIME_SEC);
	assert_int_equal(w.truth[a].fails, 0);
	assert_int_equal(x.job[a].requeues, 1);
	assert_int_equal(w.jobs[b].submit_us, 60 * SIMTIME_SEC);
	assert_int_equal(w.truth[b].run_us, 60 * SIMTIME_SEC);
	assert_int_equal(x.job[b].requeues, 1);
	assert_int_equal(w.jobs[c].submit_us, 60 * SIMTIME_SEC);
	assert_string_equal(x.job[c].state, "REQUEUED");
	assert_int_equal(x.job[c].requeues, 0);  /* its REQUEUED run is the one kept */
	assert_int_equal(x.job[c].runs, 2);
	workload_free(&w);
	sacct_jobs_free(&x);
	unlink(p);
	free(p);
}

/* Jobs cancelled by a preemption (estimate_preempted): the mean run of the
 * completed jobs of their account that ran longer, scaled to their limit;
 * all jobs where the account has fewer than 20; the limit when none ran
 * longer. */
static void test_estimate_preempted(void **st)
{
	(void)st;
	char text[8192];
	size_t off = (size_t)snprintf(text, sizeof text, "JobID|JobIDRaw|Account|State|Submit|Start|End|NCPUS|Timelimit\n");
	/* account a: 20 completed jobs of a 10-minute limit, runs 1..20 x 30 s */
	for (int i = 1; i <= 20; i++)
		off += (size_t)snprintf(text + off, sizeof text - off,
		                        "%d|%d|a|COMPLETED|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:%02d:%02d|1|10\n",
		                        i, i, i * 30 / 60, i * 30 % 60);
	/* b: 1 completed job of 5 minutes' limit that ran 4 */
	off += (size_t)snprintf(text + off, sizeof text - off,
	                        "30|30|b|COMPLETED|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:04:00|1|5\n"
	                        /* a, 20 min limit, ran 7 min: ratios over 0.35 of a (0.4..1.0): mean 0.7 -> 14 min */
	                        "40|40|a|PREEMPTED|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:07:00|1|20\n"
	                        /* b (1 sample: all jobs), 10 min, ran 9: ratios > 0.9 are 0.95 and 1.0 -> 9.75 min */
	                        "41|41|b|PREEMPTED|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:09:00|1|10\n"
	                        /* a, 10 min, ran its whole limit: none outlived it -> the limit */
	                        "42|42|a|PREEMPTED|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:10:00|1|10\n"
	                        /* requeued, then completed: not estimated */
	                        "43|43|a|PREEMPTED|2026-01-01T00:00:00|2026-01-01T00:00:00|2026-01-01T00:01:00|1|10\n"
	                        "43|43|a|COMPLETED|2026-01-01T00:01:00|2026-01-01T00:02:00|2026-01-01T00:03:00|1|10\n");
	char *p = tu_write_tmp(".sacct", text);
	struct workload w;
	struct sacct_jobs x;
	char err[512] = "";
	if (trace_sacct_read(p, NULL, &w, &x, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.sacct_estimated, 0);   /* off by default: the part they ran */
	assert_int_equal(w.truth[by_id(&w, 40)].run_us, 420 * SIMTIME_SEC);
	assert_true(w.truth[by_id(&w, 40)].fails);
	workload_free(&w);
	sacct_jobs_free(&x);
	struct sacct_opts o = { .estimate_preempted = true };
	if (trace_sacct_read(p, &o, &w, &x, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.sacct_estimated, 3);
	/* ratios of a: 0.05..1.0 in steps of 0.05, of all: those and 0.8 */
	assert_int_equal(w.truth[by_id(&w, 40)].run_us, 840 * SIMTIME_SEC);
	assert_false(w.truth[by_id(&w, 40)].fails);
	assert_int_equal(w.truth[by_id(&w, 41)].run_us, 585 * SIMTIME_SEC);
	assert_int_equal(w.truth[by_id(&w, 42)].run_us, 600 * SIMTIME_SEC);
	assert_int_equal(w.truth[by_id(&w, 43)].run_us, 60 * SIMTIME_SEC);
	char notes[512];
	sacct_notes(&w, notes, sizeof notes);
	assert_non_null(strstr(notes, "3 jobs cancelled by a preemption"));
	workload_free(&w);
	sacct_jobs_free(&x);
	unlink(p);
	free(p);
	/* the real preempt runs of tests/data/twin-real: every cancelled job
	 * runs at least what it ran and at most its limit */
	char q[4096];
	snprintf(q, sizeof q, "%s/tests/data/twin-real/preempt/run1/run.sacct.gz", tu_root());
	struct workload a, b;
	if (trace_sacct_read(q, NULL, &a, NULL, err, sizeof err) != 0 || trace_sacct_read(q, &o, &b, &x, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(a.n, b.n);
	assert_int_equal(b.sacct_estimated, 35);
	int64_t more = 0;
	for (int32_t i = 0; i < b.n; i++) {
		assert_true(b.truth[i].run_us >= a.truth[i].run_us);
		if (strncmp(x.job[i].state, "PREEMPTED", 9) == 0) {
			assert_true(b.truth[i].run_us <= b.jobs[i].walltime_us);
			more += b.truth[i].run_us - a.truth[i].run_us;
		} else {
			assert_int_equal(b.truth[i].run_us, a.truth[i].run_us);
		}
	}
	assert_true(more > 0);
	workload_free(&a);
	workload_free(&b);
	sacct_jobs_free(&x);
}

/* Submissions to the millisecond from slurmctld's log (ctld_log): in the
 * Submit's second, whatever the log's hours; a line of another second, or
 * without milliseconds, is left alone; a log without any is an error. */
static void test_ctld_ms(void **st)
{
	(void)st;
	char *p = tu_write_tmp(".sacct",
		"JobID|JobIDRaw|State|Submit|Start|End|NCPUS|Timelimit\n"
		"5|5|COMPLETED|2026-01-01T10:00:07|2026-01-01T10:00:09|2026-01-01T10:01:00|1|10\n"
		"6|6|COMPLETED|2026-01-01T10:00:07|2026-01-01T10:00:09|2026-01-01T10:01:00|1|10\n"
		"7|7|COMPLETED|2026-01-01T10:00:08|2026-01-01T10:00:09|2026-01-01T10:01:00|1|10\n"
		"8|8|COMPLETED|2026-01-01T10:00:09|2026-01-01T10:00:09|2026-01-01T10:01:00|1|10\n");
	/* the log in local time, an hour ahead of UTC */
	char *log = tu_write_tmp(".log",
		"[2026-01-01T11:00:07.250] _slurm_rpc_submit_batch_job: JobId=5 InitPrio=100 usec=300\n"
		"[2026-01-01T11:00:07.900] _slurm_rpc_submit_batch_job: JobId=6 InitPrio=100 usec=300\n"
		"[2026-01-01T11:00:09.001] _slurm_rpc_submit_batch_job: JobId=7 InitPrio=100 usec=300\n"
		"[2026-01-01T11:00:09] _slurm_rpc_submit_batch_job: JobId=8 InitPrio=100 usec=300\n"
		"[2026-01-01T11:00:09.500] sched: Allocate JobId=5 NodeList=n1 #CPUs=1 Partition=batch\n");
	struct sacct_opts o = { .ctld_log = log };
	struct workload w;
	char err[512] = "";
	if (trace_sacct_read(p, &o, &w, NULL, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(w.sacct_ms, 2);
	assert_int_equal(w.unix_start % 60, 7);
	assert_int_equal(w.jobs[by_id(&w, 5)].submit_us, 250000);
	assert_int_equal(w.jobs[by_id(&w, 6)].submit_us, 900000);
	assert_int_equal(w.jobs[by_id(&w, 7)].submit_us, 1 * SIMTIME_SEC);   /* logged a second later */
	assert_int_equal(w.jobs[by_id(&w, 8)].submit_us, 2 * SIMTIME_SEC);   /* no milliseconds */
	workload_free(&w);
	char *bad = tu_write_tmp(".log", "[2026-01-01T11:00:09] _slurm_rpc_submit_batch_job: JobId=8 InitPrio=1\n");
	o.ctld_log = bad;
	assert_int_equal(trace_sacct_read(p, &o, &w, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, bad));
	assert_non_null(strstr(err, "no submission line has a millisecond time stamp"));
	o.ctld_log = "/nonexistent/slurmctld.log";
	assert_int_equal(trace_sacct_read(p, &o, &w, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent/slurmctld.log"));
	unlink(bad);
	free(bad);
	unlink(log);
	free(log);
	unlink(p);
	free(p);
}

/* The scenario of the capture (tests/data/sacct/local.json) has every
 * partition and GPU type of local-alloc.txt; without some, the jobs that
 * need them are named. */
static void test_check_labels(void **st)
{
	(void)st;
	char p[4096], err[1024] = "", msg[1024];
	data_path("local.json", p, sizeof p);
	struct scenario sc;
	if (scenario_load(p, &sc, err, sizeof err) != 0)
		fail_msg("%s", err);
	data_path("local-alloc.txt", p, sizeof p);
	struct workload w;
	if (trace_read_shaped(p, false, &sc.swf_shape, &w, NULL, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_int_equal(sacct_check_labels(&w, &sc.swf_shape, &sc.cl, msg, sizeof msg), 0);
	assert_string_equal(msg, "");
	/* Another GPU type label, which no node has: the four GPU jobs (the first three named). */
	struct swf_shape sh = sc.swf_shape;
	snprintf(sh.gpu_type_label, sizeof sh.gpu_type_label, "gpu.kind");
	assert_int_equal(sacct_check_labels(&w, &sh, &sc.cl, msg, sizeof msg), 4);
	assert_non_null(strstr(msg, "4 jobs need a partition or GPU type that no node of the scenario has "
	                       "(node labels: partition = cpu, gpu, short; gpu.kind = (none)): JobID 7 needs "
	                       "GPU type 'a100'; JobID 8 needs GPU type 'v100'; JobID 9 needs GPU type 'a100'; ..."));
	/* The v100 nodes out of partition gpu: each term is on some node, the
	 * two together on none. */
	for (int32_t n = 2; n < 4; n++)
		assert_int_equal(labels_set(sc.cl.labels, n, "partition", "cpu,short"), 0);
	assert_int_equal(sacct_check_labels(&w, &sc.swf_shape, &sc.cl, msg, sizeof msg), 1);
	assert_string_equal(msg, "JobID 8 needs partition 'gpu' with GPU type 'v100', which no node of the "
	                    "scenario has (node labels: partition = cpu, gpu, short; gpu.type = a100, v100)");
	/* Without the label options nothing is checked. */
	sh.gpu_type_label[0] = sh.partition_label[0] = '\0';
	assert_int_equal(sacct_check_labels(&w, &sh, &sc.cl, msg, sizeof msg), 0);
	workload_free(&w);
	scenario_free(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_alloc),
		cmocka_unit_test(test_capture_steps_and_minimal),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_never_ran_and_lenient),
		cmocka_unit_test(test_requeue_dumps),
		cmocka_unit_test(test_runs_merged),
		cmocka_unit_test(test_estimate_preempted),
		cmocka_unit_test(test_ctld_ms),
		cmocka_unit_test(test_check_labels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
