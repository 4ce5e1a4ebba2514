/* Every queue policy says why a job waits (view.h decide_note, issue 32
 * item 2): small scenarios where jobs wait for each reason a policy gives,
 * run with a note listener; the last note each job got at one time is
 * checked. docs/forecast.md "Why a job waits" lists the same words. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/runasm.h"
#include "config/scenario.h"
#include "sim/engine.h"
#include "tests/testutil.h"

#define MAXJ 16

struct notes {
	simtime at;
	int passes;               /* passes at `at` that gave any note */
	char why[MAXJ][512];
};

static void on_note(void *ctx, const struct sim *s, int32_t job, const char *why)
{
	struct notes *n = ctx;
	if (s->now != n->at || job < 0 || job >= MAXJ)
		return;
	snprintf(n->why[job], sizeof n->why[job], "%s", why);
}

/* Runs scenario text `scn` (its "workload" a trace file "t.jsonl" of
 * `jobs`, one job a line) under `policy` with `params`, listening to the
 * notes made at `at_s`. */
static void run_notes(const char *scn, const char *jobs, const char *policy, char *const *params, int nparams,
                      double at_s, struct notes *n)
{
	char *dir = tu_tmpdir_new("why");
	char path[512];
	snprintf(path, sizeof path, "%s/t.jsonl", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(jobs, f);
	fclose(f);
	snprintf(path, sizeof path, "%s/s.json", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(scn, f);
	fclose(f);
	struct scenario sc;
	struct run r;
	char err[1024] = "";
	if (scenario_load(path, &sc, err, sizeof err))
		fail_msg("%s", err);
	struct run_opts o = { .policy = policy, .params = params, .nparams = nparams, .traces_dir = tu_traces() };
	if (run_assemble(&r, &sc, &o, err, sizeof err))
		fail_msg("%s", err);
	memset(n, 0, sizeof *n);
	n->at = simtime_from_s(at_s);
	sim_set_note(r.s, on_note, n);
	if (run_go(&r, err, sizeof err))
		fail_msg("%s", err);
	run_free(&r);
	scenario_free(&sc);
	tu_tmpdir_free(dir);
}

static void has(const struct notes *n, int job, const char *want)
{
	if (getenv("WHY_SHOW"))
		fprintf(stderr, "job %d: %s\n", job, n->why[job]);
	if (!strstr(n->why[job], want))
		fail_msg("job %d: note \"%s\" lacks \"%s\"", job, n->why[job], want);
}

/* One node of 4 cores. A (t=0, 3 cores, 100 s) runs; at t=1 come B (4
 * cores, limit 100 s), C (1 core, limit 500 s) and D (2 cores, limit 10 s). */
static const char *cpu4 =
	"{ \"name\": \"why\", \"seed\": 1, \"sample_interval_s\": 0,\n"
	"  \"node_types\": [ { \"name\": \"c4\", \"cpu\": \"Xeon-6348\", \"sockets\": 1, \"cores\": 4, \"mem_gib\": 8 } ],\n"
	"  \"racks\": [ { \"name\": \"r1\", \"power_kw\": 15, \"nodes\": [ { \"type\": \"c4\", \"count\": 1 } ] } ],\n"
	"  \"workload\": { \"trace\": \"t.jsonl\" } }\n";
static const char *abcd =
	"{\"submit_us\":0,\"walltime_us\":100000000,\"req\":{\"nodes\":1,\"cores\":3},\"run_us\":100000000}\n"
	"{\"submit_us\":1000000,\"walltime_us\":100000000,\"req\":{\"nodes\":1,\"cores\":4},\"run_us\":50000000}\n"
	"{\"submit_us\":1000000,\"walltime_us\":500000000,\"req\":{\"nodes\":1,\"cores\":1},\"run_us\":50000000}\n"
	"{\"submit_us\":1000000,\"walltime_us\":10000000,\"req\":{\"nodes\":1,\"cores\":2},\"run_us\":5000000}\n";

/* fairshare: priority order (all of one user: by submit time), the head's
 * reservation, a job that would delay it, a job behind it. */
static void test_fairshare(void **st)
{
	(void)st;
	struct notes n;
	run_notes(cpu4, abcd, "fairshare", NULL, 0, 1, &n);
	has(&n, 1, "first by priority; 4 cores: no node with 4 free cores");
	has(&n, 1, "; reserved from t=100 s");
	has(&n, 2, "1 job of higher priority ahead; would delay the reservation of job 1 (reserved from t=100 s)");
	has(&n, 3, "2 jobs of higher priority ahead; 2 cores: no node with 2 free cores");
	has(&n, 3, "behind the reservation of job 1");
}

/* fairshare with bf_max_job_test=1: the third job is not tried. */
static void test_fairshare_max_test(void **st)
{
	(void)st;
	struct notes n;
	char p1[] = "bf_max_job_test=1", *params[] = { p1 };
	run_notes(cpu4, abcd, "fairshare", params, 1, 1, &n);
	has(&n, 2, "would delay the reservation of job 1");
	has(&n, 3, "2 jobs of higher priority ahead; not tried this pass (bf_max_job_test=1 reached)");
}

/* conservative: every job's reservation, and whose reservations it waits
 * behind. B from 100 (when A ends); C from 200 (behind B); D from 200
 * (behind B and C). */
static void test_conservative(void **st)
{
	(void)st;
	struct notes n;
	run_notes(cpu4, abcd, "conservative", NULL, 0, 1, &n);
	has(&n, 1, "4 cores: no node with 4 free cores");
	has(&n, 1, "reserved from t=100 s, when running jobs end (by their estimates)");
	has(&n, 2, "fits now but would delay an earlier reservation; reserved from t=200 s, behind the reservation of job 1");
	has(&n, 3, "reserved from t=200 s, behind the reservations of jobs 1, 2");
}

/* conservative with bf_max_job_test=2: D is not tried. */
static void test_conservative_max_test(void **st)
{
	(void)st;
	struct notes n;
	char p1[] = "bf_max_job_test=2", *params[] = { p1 };
	run_notes(cpu4, abcd, "conservative", params, 1, 1, &n);
	has(&n, 2, "reserved from t=200 s");
	has(&n, 3, "not tried this pass: bf_max_job_test=2 jobs were tested before it");
}

/* conservative with bf_window=1 (minute): no job gets a reservation (A
 * ends at 100), so C (1 core) starts at once and D finds no start. */
static void test_conservative_window(void **st)
{
	(void)st;
	struct notes n;
	char p1[] = "bf_window=1", *params[] = { p1 };
	run_notes(cpu4, abcd, "conservative", params, 1, 1, &n);
	has(&n, 1, "4 cores: no node with 4 free cores");
	has(&n, 1, "; no reservation: no start within bf_window (1 min) that delays no earlier reservation");
	has(&n, 3, "2 cores: no node with 2 free cores");
	has(&n, 3, "; no reservation: no start within bf_window (1 min)");
	assert_string_equal(n.why[2], "");   /* C starts: nothing holds it back */
}

/* tiered on one node of 2 A100s; tenant q has a GPU-hour quota of 1 over
 * a day. At t=1: q's second training job would pass it (held); a 2-GPU
 * training job of tenant o is the offline head, reserved from t=3000 when
 * q's first job ends; o's batch job would delay it; o's inference job finds
 * no victim (q's job started within preempt_exempt_s); a dev job over its
 * runtime limit is held. */
static const char *gpu2 =
	"{ \"name\": \"why\", \"seed\": 1, \"sample_interval_s\": 0,\n"
	"  \"org\": { \"tenants\": [ { \"name\": \"q\", \"shares\": 1, \"quota\": { \"gpu_hours\": 1, \"window_days\": 1 } },\n"
	"                          { \"name\": \"o\", \"shares\": 1 } ] },\n"
	"  \"tiered\": { \"dev\": { \"max_gpus_per_tenant\": 1, \"max_runtime_s\": 3600 } },\n"
	"  \"node_types\": [ { \"name\": \"g2\", \"gpu\": \"A100-SXM-80GB\", \"gpus\": 2, \"cpu\": \"Xeon-8380\", \"sockets\": 1, \"mem_gib\": 64 } ],\n"
	"  \"racks\": [ { \"name\": \"r1\", \"power_kw\": 15, \"nodes\": [ { \"type\": \"g2\", \"count\": 1 } ] } ],\n"
	"  \"workload\": { \"trace\": \"t.jsonl\" } }\n";
static const char *tiered_jobs =
	"{\"submit_us\":0,\"class\":\"training\",\"tenant\":0,\"walltime_us\":3000000000,\"req\":{\"nodes\":1,\"cores\":1,\"gpus\":1},\"run_us\":3000000000}\n"
	"{\"submit_us\":1000000,\"class\":\"training\",\"tenant\":0,\"walltime_us\":3600000000,\"req\":{\"nodes\":1,\"cores\":1,\"gpus\":1},\"run_us\":100000000}\n"
	"{\"submit_us\":1000000,\"class\":\"training\",\"tenant\":1,\"walltime_us\":100000000,\"req\":{\"nodes\":1,\"cores\":1,\"gpus\":2},\"run_us\":100000000}\n"
	"{\"submit_us\":1000000,\"class\":\"batch\",\"tenant\":1,\"walltime_us\":9000000000,\"req\":{\"nodes\":1,\"cores\":1,\"gpus\":1},\"run_us\":100000000}\n"
	"{\"submit_us\":1000000,\"class\":\"inference\",\"tenant\":1,\"walltime_us\":100000000,\"req\":{\"nodes\":1,\"cores\":1,\"gpus\":2},\"run_us\":100000000}\n"
	"{\"submit_us\":1000000,\"class\":\"dev\",\"tenant\":1,\"walltime_us\":7200000000,\"req\":{\"nodes\":1,\"cores\":1,\"gpus\":1},\"run_us\":100000000}\n";

static void test_tiered(void **st)
{
	(void)st;
	struct notes n;
	run_notes(gpu2, tiered_jobs, "tiered", NULL, 0, 1, &n);
	has(&n, 1, "held for the GPU-hour quota of tenant q: 0.833 of its 1 GPU-hours in 1 days used, running and queued "
	           "ahead of it; it needs 1 more (hetlab approve releases it)");
	has(&n, 2, "training, first by priority; 1 core, 2 GPUs: no node with 2 free GPUs");
	has(&n, 2, "; reserved from t=3000 s");
	has(&n, 3, "batch, 1 job of higher priority ahead; would delay the reservation of job 2 (reserved from t=3000 s)");
	has(&n, 4, "inference: ");
	has(&n, 4, "; no preemption: the jobs it may preempt started less than preempt_exempt_s ago");
	has(&n, 5, "held: a dev job's time limit may be at most 3600 s (dev max runtime); it asks 7200 s");
}

/* The same with preempt_exempt_s=0: the inference job preempts q's
 * running training job and waits for it to stop. */
static void test_tiered_preempt(void **st)
{
	(void)st;
	struct notes n;
	char p1[] = "preempt_exempt_s=0", *params[] = { p1 };
	run_notes(gpu2, tiered_jobs, "tiered", params, 1, 1, &n);
	has(&n, 4, "inference: preempting job 0 to checkpoint and stop for it (preempted at t=1 s)");
}

/* slurm on one node of 4 cores; QOS normal's MaxTRESPerJob is cpu=3. A
 * (t=0, 3 cores, 1000 s) runs; at t=1 come B (4 cores: over the limit), C
 * (2 cores: Resources) and D (2 cores: Priority behind C); E at t=100 is
 * the pass looked at, with F, whose limit is over the partition's MaxTime. Limits apply with enforce_limits=1
 * (AccountingStorageEnforce=limits). */
static const char *slurm4 =
	"{ \"name\": \"why\", \"seed\": 1, \"sample_interval_s\": 0,\n"
	"  \"slurm\": { \"partitions\": [ { \"name\": \"batch\", \"nodes\": [\"ALL\"], \"max_time_s\": 5000 } ],\n"
	"             \"qos\": [ { \"name\": \"normal\", \"limits\": { \"max_tres_per_job\": { \"cpu\": 3 } } } ] },\n"
	"  \"node_types\": [ { \"name\": \"c4\", \"cpu\": \"Xeon-6348\", \"sockets\": 1, \"cores\": 4, \"mem_gib\": 8 } ],\n"
	"  \"racks\": [ { \"name\": \"r1\", \"power_kw\": 15, \"nodes\": [ { \"type\": \"c4\", \"count\": 1 } ] } ],\n"
	"  \"workload\": { \"trace\": \"t.jsonl\" } }\n";
static const char *slurm_jobs =
	"{\"submit_us\":0,\"walltime_us\":1000000000,\"req\":{\"nodes\":1,\"cores\":3},\"run_us\":1000000000}\n"
	"{\"submit_us\":1000000,\"walltime_us\":100000000,\"req\":{\"nodes\":1,\"cores\":4},\"run_us\":50000000}\n"
	"{\"submit_us\":1000000,\"walltime_us\":100000000,\"req\":{\"nodes\":1,\"cores\":2},\"run_us\":50000000}\n"
	"{\"submit_us\":1000000,\"walltime_us\":100000000,\"req\":{\"nodes\":1,\"cores\":2},\"run_us\":50000000}\n"
	"{\"submit_us\":100000000,\"walltime_us\":10000000,\"req\":{\"nodes\":1,\"cores\":1},\"run_us\":5000000}\n"
	"{\"submit_us\":100000000,\"walltime_us\":6000000000,\"req\":{\"nodes\":1,\"cores\":1},\"run_us\":5000000}\n";

static void test_slurm(void **st)
{
	(void)st;
	struct notes n;
	char p1[] = "enforce_limits=1", *params[] = { p1 };
	run_notes(slurm4, slurm_jobs, "slurm", params, 1, 100, &n);
	has(&n, 1, "QOSMaxCpuPerJobLimit: QOS normal's MaxTRESPerJob cpu=3, the job asks 4");
	has(&n, 2, "Resources: 2 cores: no node with 2 free cores");
	has(&n, 3, "Priority: a job of higher priority waits for resources in partition batch");
	has(&n, 5, "PartitionTimeLimit: its time limit 6000 s is over partition batch's MaxTime 5000 s; held");
	/* Without limits B is the first waiting for resources, with the
	 * start backfill plans (A ends at 1003: Slurm started it at t=3). */
	run_notes(slurm4, slurm_jobs, "slurm", NULL, 0, 100, &n);
	has(&n, 1, "Resources: 4 cores: no node with 4 free cores");
	has(&n, 1, "; backfill plans its start at t=1003 s");
	has(&n, 2, "Priority: a job of higher priority waits for resources in partition batch");
}

/* slurm: the node drained at t=50 while A runs; a 1-core job submitted at
 * t=100 waits for a node in service (Slurm's ReqNodeNotAvail), as the
 * pass at t=200 (another submission) shows; that job is not seen yet. */
static void test_slurm_drained(void **st)
{
	(void)st;
	char scn[2048];
	snprintf(scn, sizeof scn, "%s", slurm4);
	char *w = strstr(scn, "  \"workload\"");
	assert_non_null(w);
	snprintf(w, sizeof scn - (size_t)(w - scn), "%s",
	         "  \"events\": [ { \"at\": \"50s\", \"node_drain\": \"r1-n1\" } ],\n"
	         "  \"workload\": { \"trace\": \"t.jsonl\" } }\n");
	struct notes n;
	run_notes(scn,
	          "{\"submit_us\":0,\"walltime_us\":1000000000,\"req\":{\"nodes\":1,\"cores\":3},\"run_us\":1000000000}\n"
	          "{\"submit_us\":100000000,\"walltime_us\":10000000,\"req\":{\"nodes\":1,\"cores\":1},\"run_us\":5000000}\n"
	          "{\"submit_us\":200000000,\"walltime_us\":10000000,\"req\":{\"nodes\":1,\"cores\":1},\"run_us\":5000000}\n",
	          "slurm", NULL, 0, 200, &n);
	has(&n, 1, "ReqNodeNotAvail, UnavailableNodes:r1-n1: 1 core: 1 of the 1 nodes that could hold it are out of service");
	has(&n, 2, "None: no scheduling pass has reached it yet");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fairshare),
		cmocka_unit_test(test_fairshare_max_test),
		cmocka_unit_test(test_conservative),
		cmocka_unit_test(test_conservative_max_test),
		cmocka_unit_test(test_conservative_window),
		cmocka_unit_test(test_tiered),
		cmocka_unit_test(test_tiered_preempt),
		cmocka_unit_test(test_slurm),
		cmocka_unit_test(test_slurm_drained),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
