/* Live mode's engine, below the daemon: the engine in live mode driven
 * through a fake executor that logs every call: jobs added and started,
 * observed ends (and stale ones ignored), walltime kills, cancels,
 * preemption with and without an exit inside the grace, a hot reading that
 * drains a node until it cools, and the same inputs giving the same
 * schedule twice. The LIVE.json loader, readings and the state database
 * are tests/unit/test_live_state.c; the fake executor and the engine set-up
 * are tests/unit/live_fixture.h. */
#include "tests/unit/live_fixture.h"

static void test_live_start_end(void **state)
{
	(void)state;
	struct lt *t = lt_new("fcfs", 0, 0);
	const simtime T0 = S(1000);
	assert_int_equal(lt_add(t, T0, JOB_BATCH, 2, 0), 0);
	assert_int_equal(lt_add(t, T0, JOB_BATCH, 2, 0), 1);
	assert_int_equal(sim_next_time(&t->s), T0);
	lt_step_to(t, T0 - 1);
	assert_int_equal(t->x.n, 0);
	lt_step_to(t, T0);
	assert_int_equal(t->s.now, T0);
	assert_int_equal(t->x.n, 2);
	assert_int_equal(t->x.c[0].op, X_START);
	assert_int_equal(t->x.c[0].id, 0);
	assert_int_equal(t->x.c[1].op, X_START);
	assert_int_equal(t->x.c[1].id, 1);
	assert_int_equal(t->x.c[0].t, T0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(t->s.jobs[i].state, JOB_RUNNING);
		assert_int_equal(t->s.jobs[i].start_us, T0);
		assert_int_equal(t->s.jobs[i].restarts, 0);
	}
	assert_int_not_equal(job_node(t, 0), job_node(t, 1));
	assert_int_equal(t->s.nrunning, 2);
	/* nothing is modelled: no end comes by itself */
	assert_int_equal(sim_next_time(&t->s), SIMTIME_INF);

	/* an observed end, and one for an attempt that never ran */
	const simtime T1 = T0 + S(5);
	assert_int_equal(sim_inject_end(&t->s, T1, 0, 0, JOB_DONE, END_NONE), 0);
	assert_int_equal(sim_inject_end(&t->s, T1, 1, 1, JOB_FAILED, END_EXIT), 0);
	lt_step_to(t, T1);
	assert_int_equal(t->s.jobs[0].state, JOB_DONE);
	assert_int_equal(t->s.jobs[0].end_us, T1);
	assert_int_equal(t->s.jobs[0].reason, END_NONE);
	assert_int_equal(t->s.jobs[1].state, JOB_RUNNING);
	assert_int_equal(t->s.jobs[1].end_us, -1);
	assert_int_equal(t->s.nfinished, 1);
	assert_int_equal(t->s.nrunning, 1);
	assert_int_equal(t->x.n, 2);   /* an exit needs no stop */
	/* a second end of the same attempt changes nothing */
	assert_int_equal(sim_inject_end(&t->s, T1 + 1, 0, 0, JOB_FAILED, END_EXIT), 0);
	assert_int_equal(sim_inject_end(&t->s, T1 + 2, 1, 0, JOB_FAILED, END_EXIT), 0);
	lt_step_to(t, T1 + 2);
	assert_int_equal(t->s.jobs[0].state, JOB_DONE);
	assert_int_equal(t->s.jobs[0].end_us, T1);
	assert_int_equal(t->s.jobs[1].state, JOB_FAILED);
	assert_int_equal(t->s.jobs[1].reason, END_EXIT);
	assert_int_equal(t->s.jobs[1].end_us, T1 + 2);
	assert_int_equal(t->s.nfinished, 2);
	assert_int_equal(t->s.nrunning, 0);
	assert_int_equal(t->s.cl.free_cores, 4);
	assert_int_equal(t->x.n, 2);
	/* ends for jobs that do not exist are ignored */
	assert_int_equal(sim_inject_end(&t->s, T1 + 3, 7, 0, JOB_DONE, END_NONE), 0);
	assert_int_equal(sim_inject_end(&t->s, T1 + 3, -1, 0, JOB_DONE, END_NONE), 0);
	lt_step_to(t, T1 + 3);
	assert_int_equal(t->s.nfinished, 2);
	/* a job added later, while idle, starts at its submit time */
	const simtime T2 = T1 + S(100);
	assert_int_equal(lt_add(t, T2, JOB_BATCH, 1, 0), 2);
	lt_step_to(t, T2);
	assert_int_equal(t->s.jobs[2].state, JOB_RUNNING);
	assert_int_equal(t->s.jobs[2].start_us, T2);
	assert_int_equal(xfind(&t->x, 2, X_START, 2), 2);
	/* submit times never go back: not before now, not before the job before */
	assert_int_equal(lt_add(t, T2 + S(10), JOB_BATCH, 2, 0), 3);
	assert_int_equal(lt_add(t, T2 + S(5), JOB_BATCH, 2, 0), 4);
	assert_int_equal(t->s.jobs[4].submit_us, T2 + S(10));
	lt_step_to(t, T2 + S(10));
	assert_int_equal(t->s.jobs[3].state, JOB_RUNNING);
	assert_int_equal(t->s.jobs[4].state, JOB_PENDING);   /* job 2 holds a core of the other node */
	assert_int_equal(sim_inject_end(&t->s, T2 + S(11), 2, 0, JOB_DONE, END_NONE), 0);
	lt_step_to(t, T2 + S(11));
	assert_int_equal(t->s.jobs[4].state, JOB_RUNNING);
	assert_int_equal(t->s.jobs[4].start_us, T2 + S(11));
	assert_int_equal(lt_add(t, 0, JOB_BATCH, 2, 0), 5);
	assert_int_equal(t->s.jobs[5].submit_us, T2 + S(11));
	assert_int_equal(sim_next_time(&t->s), T2 + S(11));
	lt_step_to(t, T2 + S(11));
	assert_int_equal(t->s.jobs[5].state, JOB_PENDING);
	assert_int_equal(t->s.npending, 1);
	lt_free(t);
}

/* The Slurm executor's view of starts: a start runs (and uses) only from
 * the executor's start time; its end's times are the executor's; a start
 * the executor never made goes back to pending as if never started; a
 * requeue by the executor itself; what jobs not ours hold of a node. */
/* Jobs 0 and 1, two cores each, started at `at` by fcfs: both nodes busy. */
static void lt_two_jobs(struct lt *t, simtime at)
{
	assert_int_equal(lt_add(t, at, JOB_BATCH, 2, 0), 0);
	assert_int_equal(lt_add(t, at, JOB_BATCH, 2, 0), 1);
	lt_step_to(t, at);
}

static void test_live_async_start(void **state)
{
	(void)state;
	struct lt *t = lt_new_x("fcfs", 0, 0, true);
	const simtime T0 = S(1000);
	lt_two_jobs(t, T0);
	assert_int_equal(t->s.jobs[0].state, JOB_RUNNING);
	assert_false(t->s.live->run[0].confirmed);
	/* Job 0 runs since 0.4 s before the decision (the executor's clock
	 * counts seconds), job 1 since long before (clamped to 1 s before). */
	assert_int_equal(sim_inject_running(&t->s, T0 + S(1), 0, 0, T0 - S(0.4)), 0);
	assert_int_equal(sim_inject_running(&t->s, T0 + S(1), 1, 0, T0 - S(30)), 0);
	lt_step_to(t, T0 + S(1));
	assert_true(t->s.live->run[0].confirmed);
	/* Usage counts from the executor's start; the start time (the end of
	 * the wait) is never before the job came. */
	assert_int_equal(t->s.live->run[0].acct_start, T0 - S(0.4));
	assert_int_equal(t->s.jobs[0].start_us, T0);
	assert_int_equal(t->s.live->run[1].acct_start, T0 - 999999);
	assert_int_equal(t->s.jobs[1].start_us, T0);
	/* It ended at T0 + 10 by the executor's clock, seen at T0 + 12. */
	assert_int_equal(sim_inject_end_at(&t->s, T0 + S(12), 0, 0, JOB_DONE, END_NONE, -1, T0 + S(10)), 0);
	lt_step_to(t, T0 + S(12));
	assert_int_equal(t->s.jobs[0].state, JOB_DONE);
	assert_int_equal(t->s.jobs[0].end_us, T0 + S(10));
	assert_true(fabs(t->s.jobs[0].core_s - 2 * 10.4) < 1e-6);
	/* Job 1's attempt is taken back before it ran: no: it ran (confirmed),
	 * so an unstart is stale. */
	assert_int_equal(sim_inject_unstart(&t->s, T0 + S(13), 1, 0, "late"), 0);
	lt_step_to(t, T0 + S(13));
	assert_int_equal(t->s.jobs[1].state, JOB_RUNNING);
	/* The executor requeued it by itself (a node failure): it ran to T0 + 14. */
	assert_int_equal(sim_inject_requeue(&t->s, T0 + S(15), 1, 0, -1, T0 + S(14), "Slurm requeued it"), 0);
	lt_step_to(t, T0 + S(15));
	/* fcfs starts it again at once, as attempt 1, not yet running. */
	assert_int_equal(t->s.jobs[1].state, JOB_RUNNING);
	assert_int_equal(t->s.jobs[1].restarts, 1);
	assert_false(t->s.live->run[1].confirmed);
	assert_true(fabs(t->s.jobs[1].core_s - 2 * (15 - 1 + 0.999999)) < 1e-5);
	/* This attempt never starts: taken back, pending, still attempt 0 of
	 * its next start... its restarts go back to 0? No: its first attempt
	 * ran: attempt 1 again, and no usage for the taken-back one. */
	double used = t->s.jobs[1].core_s;
	assert_int_equal(sim_inject_unstart(&t->s, T0 + S(20), 1, 1, "Resources"), 0);
	t->s.cl.free_cores += 0;
	lt_step_to(t, T0 + S(20));
	assert_int_equal(t->s.jobs[1].core_s, used);
	assert_int_equal(t->s.jobs[1].state, JOB_RUNNING);   /* fcfs placed it again, same pass */
	assert_int_equal(t->s.jobs[1].restarts, 1);
	/* A foreign hold of all of both nodes' cores: nothing else starts. */
	assert_int_equal(sim_inject_foreign(&t->s, T0 + S(21), 0, 2, 0, 0), 0);
	assert_int_equal(sim_inject_foreign(&t->s, T0 + S(21), 1, 2, 0, 0), 0);
	assert_int_equal(lt_add(t, T0 + S(22), JOB_BATCH, 1, 0), 2);
	lt_step_to(t, T0 + S(22));
	assert_int_equal(t->s.jobs[2].state, JOB_PENDING);   /* job 1 holds one node, others the other */
	assert_int_equal(t->s.cl.free_cores, 0);
	/* The hold on job 1's node took only what was free (nothing). */
	int other = 1 - job_node(t, 1);
	assert_int_equal(t->s.live->foreign[job_node(t, 1)].cores, 0);
	assert_int_equal(t->s.live->foreign[other].cores, 2);
	/* The others' jobs end: job 2 runs there. */
	assert_int_equal(sim_inject_foreign(&t->s, T0 + S(23), other, 0, 0, 0), 0);
	lt_step_to(t, T0 + S(23));
	assert_int_equal(t->s.jobs[2].state, JOB_RUNNING);
	assert_int_equal(job_node(t, 2), other);
	/* A cancel asks the executor and waits for it: the job holds its cores
	 * until the executor says it ended, and is killed (cancelled) then. */
	assert_int_equal(sim_inject_running(&t->s, T0 + S(24), 2, 0, T0 + S(23)), 0);
	assert_int_equal(sim_inject_cancel(&t->s, T0 + S(30), 2), 0);
	lt_step_to(t, T0 + S(30));
	assert_int_equal(t->s.jobs[2].state, JOB_RUNNING);
	assert_true(t->s.live->run[2].killing);
	int kills = 0;
	for (int k = 0; k < t->x.n; k++)
		kills += t->x.c[k].op == X_STOP && t->x.c[k].id == 2 && t->x.c[k].how == EXEC_STOP_KILL;
	assert_int_equal(kills, 1);
	assert_int_equal(sim_inject_end_at(&t->s, T0 + S(32), 2, 0, JOB_KILLED, END_CANCELLED, -1, T0 + S(31)), 0);
	lt_step_to(t, T0 + S(32));
	assert_int_equal(t->s.jobs[2].state, JOB_KILLED);
	assert_int_equal(t->s.jobs[2].reason, END_CANCELLED);
	assert_int_equal(t->s.jobs[2].end_us, T0 + S(31));
	assert_true(fabs(t->s.jobs[2].core_s - 8.0) < 1e-6);
	lt_free(t);
}

/* A foreign job Slurm runs on the cores the engine gave to a job of its
 * own that Slurm has not started: the hold takes nothing then, and the
 * rest as soon as that job is taken back; the job is not placed there
 * again. (The hold stayed empty, and fcfs placed the job on the same
 * node at once, where Slurm would not start it either.) */
static void test_live_foreign_topup(void **state)
{
	(void)state;
	struct lt *t = lt_new_x("fcfs", 0, 0, true);
	const simtime T0 = S(1000);
	lt_two_jobs(t, T0);
	assert_int_equal(sim_inject_running(&t->s, T0 + S(1), 0, 0, T0), 0);
	lt_step_to(t, T0 + S(1));
	int n1 = job_node(t, 1);
	assert_int_equal(sim_inject_foreign(&t->s, T0 + S(2), n1, 2, 0, 0), 0);
	lt_step_to(t, T0 + S(2));
	assert_int_equal(t->s.live->foreign[n1].cores, 0);   /* job 1 holds them in the engine */
	assert_int_equal(t->s.live->foreign_short, 1);
	assert_int_equal(sim_inject_unstart(&t->s, T0 + S(3), 1, 0, "Resources"), 0);
	lt_step_to(t, T0 + S(3));
	assert_int_equal(t->s.live->foreign[n1].cores, 2);
	assert_int_equal(t->s.live->foreign_short, 0);
	assert_int_equal(t->s.jobs[1].state, JOB_PENDING);
	assert_int_equal(t->s.cl.free_cores, 0);
	/* The foreign job ends: job 1 runs there. */
	assert_int_equal(sim_inject_foreign(&t->s, T0 + S(4), n1, 0, 0, 0), 0);
	lt_step_to(t, T0 + S(4));
	assert_int_equal(t->s.jobs[1].state, JOB_RUNNING);
	assert_int_equal(job_node(t, 1), n1);
	lt_free(t);
}

/* While the executor cannot read the world (sim_inject_blind) the policy
 * starts nothing: a job that arrives waits, and starts once it can read
 * again. */
static void test_live_blind(void **state)
{
	(void)state;
	struct lt *t = lt_new_x("fcfs", 0, 0, true);
	const simtime T0 = S(1000);
	assert_int_equal(sim_inject_blind(&t->s, T0, true), 0);
	int32_t a = lt_add(t, T0 + S(1), JOB_BATCH, 1, 0);
	lt_step_to(t, T0 + S(5));
	assert_int_equal(t->s.jobs[a].state, JOB_PENDING);
	assert_int_equal(xcount(&t->x, X_START), 0);
	assert_int_equal(sim_inject_blind(&t->s, T0 + S(6), false), 0);
	lt_step_to(t, T0 + S(6));
	assert_int_equal(t->s.jobs[a].state, JOB_RUNNING);
	assert_int_equal(t->s.jobs[a].start_us, T0 + S(6));
	assert_int_equal(xcount(&t->x, X_START), 1);
	lt_free(t);
}

static void test_live_walltime(void **state)
{
	(void)state;
	struct lt *t = lt_new("fcfs", 0, 0);
	const simtime T0 = S(10);
	assert_int_equal(lt_add(t, T0, JOB_BATCH, 2, 5), 0);
	assert_int_equal(lt_add(t, T0, JOB_BATCH, 2, 5), 1);
	lt_step_to(t, T0);
	assert_int_equal(t->x.n, 2);
	/* job 1 exits in time: its walltime event is void */
	assert_int_equal(sim_inject_end(&t->s, T0 + S(3), 1, 0, JOB_DONE, END_NONE), 0);
	lt_step_to(t, T0 + S(5) - 1);
	assert_int_equal(t->s.jobs[0].state, JOB_RUNNING);
	assert_int_equal(t->s.jobs[1].state, JOB_DONE);
	assert_int_equal(t->x.n, 2);
	lt_step_to(t, T0 + S(5));
	assert_int_equal(t->x.n, 3);
	assert_int_equal(t->x.c[2].op, X_STOP);
	assert_int_equal(t->x.c[2].id, 0);
	assert_int_equal(t->x.c[2].how, EXEC_STOP_KILL);
	assert_int_equal(t->x.c[2].t, T0 + S(5));
	assert_int_equal(t->s.jobs[0].state, JOB_KILLED);
	assert_int_equal(t->s.jobs[0].reason, END_WALLTIME);
	assert_int_equal(t->s.jobs[0].end_us, T0 + S(5));
	/* the executor then reports the kill: stale, ignored */
	assert_int_equal(sim_inject_end(&t->s, T0 + S(6), 0, 0, JOB_KILLED, END_EXIT), 0);
	lt_step_to(t, T0 + S(6));
	assert_int_equal(t->s.jobs[0].reason, END_WALLTIME);
	assert_int_equal(t->s.jobs[0].end_us, T0 + S(5));
	assert_int_equal(t->x.n, 3);
	assert_int_equal(t->s.nfinished, 2);
	lt_free(t);
}

static void test_live_cancel(void **state)
{
	(void)state;
	struct lt *t = lt_new("fcfs", 0, 0);
	const simtime T0 = S(10);
	for (int i = 0; i < 4; i++)
		assert_int_equal(lt_add(t, T0, JOB_BATCH, 2, 0), i);
	lt_step_to(t, T0);
	assert_int_equal(t->s.nrunning, 2);
	assert_int_equal(t->s.npending, 2);
	assert_int_equal(t->x.n, 2);
	/* a pending job: killed, out of the queue, the executor not told */
	assert_int_equal(sim_inject_cancel(&t->s, T0 + S(1), 2), 0);
	lt_step_to(t, T0 + S(1));
	assert_int_equal(t->s.jobs[2].state, JOB_KILLED);
	assert_int_equal(t->s.jobs[2].reason, END_CANCELLED);
	assert_int_equal(t->s.jobs[2].end_us, T0 + S(1));
	assert_int_equal(t->s.jobs[2].start_us, -1);
	assert_int_equal(t->s.npending, 1);
	assert_int_equal(t->s.pending[0], 3);
	assert_int_equal(t->s.nfinished, 1);
	assert_int_equal(t->x.n, 2);
	/* a running job: stopped (kill), killed; job 3 takes its node */
	int node0 = job_node(t, 0);
	assert_int_equal(sim_inject_cancel(&t->s, T0 + S(2), 0), 0);
	lt_step_to(t, T0 + S(2));
	assert_int_equal(t->x.n, 4);
	assert_int_equal(t->x.c[2].op, X_STOP);
	assert_int_equal(t->x.c[2].id, 0);
	assert_int_equal(t->x.c[2].how, EXEC_STOP_KILL);
	assert_int_equal(t->s.jobs[0].state, JOB_KILLED);
	assert_int_equal(t->s.jobs[0].reason, END_CANCELLED);
	assert_int_equal(t->s.jobs[0].end_us, T0 + S(2));
	assert_int_equal(t->x.c[3].op, X_START);
	assert_int_equal(t->x.c[3].id, 3);
	assert_int_equal(job_node(t, 3), node0);
	assert_int_equal(t->s.npending, 0);
	/* cancelling what has ended, or what does not exist: nothing */
	assert_int_equal(sim_inject_cancel(&t->s, T0 + S(3), 0), 0);
	assert_int_equal(sim_inject_cancel(&t->s, T0 + S(3), 2), 0);
	assert_int_equal(sim_inject_cancel(&t->s, T0 + S(3), 99), 0);
	lt_step_to(t, T0 + S(3));
	assert_int_equal(t->x.n, 4);
	assert_int_equal(t->s.nfinished, 2);
	assert_int_equal(t->s.jobs[0].end_us, T0 + S(2));
	lt_free(t);
}

/* A cancel that reaches the engine before the job's submit event, at the
 * same time (a job added behind another one still to be submitted). */
static void test_live_cancel_before_submit(void **state)
{
	(void)state;
	struct lt *t = lt_new("fcfs", 0, 0);
	assert_int_equal(lt_add(t, S(5), JOB_BATCH, 2, 0), 0);
	assert_int_equal(lt_add(t, S(10), JOB_BATCH, 2, 0), 1);
	assert_int_equal(sim_inject_cancel(&t->s, S(10), 1), 0);
	lt_step_to(t, S(10));
	/* Job 1's submit is due at 10 s, as the cancel: it is submitted first,
	 * then cancelled, and never starts. */
	assert_int_equal(t->s.jobs[1].state, JOB_KILLED);
	assert_int_equal(t->s.jobs[1].reason, END_CANCELLED);
	assert_int_equal(xfind(&t->x, 0, X_START, 1), -1);
	lt_free(t);
}

/* Two training jobs fill the cluster; an inference job arrives at T1 and
 * tiered preempts one of them. */
static int32_t preempt_setup(struct lt *t, simtime T0, simtime T1)
{
	assert_int_equal(lt_add(t, T0, JOB_TRAINING, 2, 0), 0);
	assert_int_equal(lt_add(t, T0, JOB_TRAINING, 2, 0), 1);
	lt_step_to(t, T0);
	assert_int_equal(t->s.nrunning, 2);
	assert_int_equal(lt_add(t, T1, JOB_INFERENCE, 2, 0), 2);
	lt_step_to(t, T1);
	int32_t v = -1;
	for (int32_t i = 0; i < 2; i++)
		if (t->s.jobs[i].state == JOB_CHECKPOINTING) {
			assert_int_equal(v, -1);
			v = i;
		}
	if (v < 0)
		fail_msg("no job checkpointing at %.3f s (states %s, %s)", simtime_to_s(T1),
		         job_state_name((enum job_state)t->s.jobs[0].state), job_state_name((enum job_state)t->s.jobs[1].state));
	assert_int_equal(t->s.jobs[v].preemptions, 1);
	assert_int_equal(t->s.jobs[v].signalled_us, T1);
	assert_int_equal(t->s.jobs[1 - v].state, JOB_RUNNING);
	assert_int_equal(t->s.jobs[2].state, JOB_PENDING);
	assert_int_equal(t->x.n, 3);
	assert_int_equal(t->x.c[2].op, X_SIGNAL);
	assert_int_equal(t->x.c[2].id, v);
	assert_int_equal(t->x.c[2].t, T1);
	return v;
}

static void test_live_preempt_exit(void **state)
{
	(void)state;
	struct lt *t = lt_new("tiered", 0, 0);
	const simtime T0 = S(10), T1 = S(20);
	int32_t v = preempt_setup(t, T0, T1);
	int vnode = job_node(t, v);
	/* it checkpoints and exits 1 s into its 2 s grace */
	assert_int_equal(sim_inject_end(&t->s, T1 + S(1), v, 0, JOB_KILLED, END_EXIT), 0);
	lt_step_to(t, T1 + S(1));
	assert_int_equal(t->x.n, 5);
	assert_int_equal(t->x.c[3].op, X_STOP);
	assert_int_equal(t->x.c[3].id, v);
	assert_int_equal(t->x.c[3].how, EXEC_STOP_PREEMPT);
	assert_int_equal(t->s.jobs[v].state, JOB_PENDING);
	assert_int_equal(t->s.jobs[v].end_us, -1);
	assert_int_equal(t->s.jobs[v].restarts, 0);
	assert_int_equal(t->s.nfinished, 0);
	/* the inference job takes its place at once */
	assert_int_equal(t->x.c[4].op, X_START);
	assert_int_equal(t->x.c[4].id, 2);
	assert_int_equal(t->s.jobs[2].start_us, T1 + S(1));
	assert_int_equal(job_node(t, 2), vnode);
	/* the end of the grace passes without another stop */
	lt_step_to(t, T1 + S(3));
	assert_int_equal(t->x.n, 5);
	assert_int_equal(t->s.jobs[v].state, JOB_PENDING);
	/* the inference job ends: the victim starts again, attempt 1 */
	assert_int_equal(sim_inject_end(&t->s, T1 + S(4), 2, 0, JOB_DONE, END_NONE), 0);
	lt_step_to(t, T1 + S(4));
	assert_int_equal(t->s.jobs[2].state, JOB_DONE);
	assert_int_equal(t->s.jobs[v].state, JOB_RUNNING);
	assert_int_equal(t->s.jobs[v].restarts, 1);
	assert_int_equal(t->s.jobs[v].start_us, T1 + S(4));
	assert_int_equal(xfind(&t->x, 5, X_START, v), 5);
	/* attempt 0's end, reported late, is stale; attempt 1's counts */
	assert_int_equal(sim_inject_end(&t->s, T1 + S(5), v, 0, JOB_FAILED, END_EXIT), 0);
	lt_step_to(t, T1 + S(5));
	assert_int_equal(t->s.jobs[v].state, JOB_RUNNING);
	assert_int_equal(sim_inject_end(&t->s, T1 + S(6), v, 1, JOB_DONE, END_NONE), 0);
	lt_step_to(t, T1 + S(6));
	assert_int_equal(t->s.jobs[v].state, JOB_DONE);
	assert_int_equal(t->s.jobs[v].end_us, T1 + S(6));
	assert_int_equal(t->s.jobs[v].preemptions, 1);
	assert_int_equal(xcount(&t->x, X_SIGNAL), 1);
	assert_int_equal(xcount(&t->x, X_STOP), 1);
	lt_free(t);
}

static void test_live_preempt_grace(void **state)
{
	(void)state;
	struct lt *t = lt_new("tiered", 0, 0);
	const simtime T0 = S(10), T1 = S(20);
	int32_t v = preempt_setup(t, T0, T1);
	int vnode = job_node(t, v);
	lt_step_to(t, T1 + S(2) - 1);
	assert_int_equal(t->x.n, 3);
	assert_int_equal(t->s.jobs[v].state, JOB_CHECKPOINTING);
	lt_step_to(t, T1 + S(2));
	assert_int_equal(t->x.n, 5);
	assert_int_equal(t->x.c[3].op, X_STOP);
	assert_int_equal(t->x.c[3].id, v);
	assert_int_equal(t->x.c[3].how, EXEC_STOP_PREEMPT);
	assert_int_equal(t->x.c[3].t, T1 + S(2));
	assert_int_equal(t->s.jobs[v].state, JOB_PENDING);
	assert_int_equal(t->x.c[4].op, X_START);
	assert_int_equal(t->x.c[4].id, 2);
	assert_int_equal(job_node(t, 2), vnode);
	/* the exit the stop caused is reported after: stale */
	assert_int_equal(sim_inject_end(&t->s, T1 + S(3), v, 0, JOB_KILLED, END_EXIT), 0);
	lt_step_to(t, T1 + S(3));
	assert_int_equal(t->s.jobs[v].state, JOB_PENDING);
	assert_int_equal(t->x.n, 5);
	/* cancelling the requeued victim: no executor call */
	assert_int_equal(sim_inject_cancel(&t->s, T1 + S(4), v), 0);
	lt_step_to(t, T1 + S(4));
	assert_int_equal(t->s.jobs[v].state, JOB_KILLED);
	assert_int_equal(t->s.jobs[v].reason, END_CANCELLED);
	assert_int_equal(t->s.npending, 0);
	assert_int_equal(t->x.n, 5);
	lt_free(t);
}

/* An executor that times its ends (Slurm): a victim that ends without
 * requeuing itself never checkpointed (the daemon died before the signal
 * went out, or the job finished first): it is done, not run again; one
 * that requeues itself after the signal is requeued. */
static void test_live_preempt_timed(void **state)
{
	(void)state;
	const simtime T0 = S(10), T1 = S(20);
	for (int requeue = 0; requeue < 2; requeue++) {
		struct lt *t = lt_new("tiered", 0, 0);
		int32_t v = preempt_setup(t, T0, T1);
		if (requeue)
			assert_int_equal(sim_inject_requeue(&t->s, T1 + S(1), v, 0, -1, T1 + S(0.5), "checkpointed"), 0);
		else
			assert_int_equal(sim_inject_end_at(&t->s, T1 + S(1), v, 0, JOB_DONE, END_NONE, -1, T1 + S(0.5)), 0);
		lt_step_to(t, T1 + S(1));
		assert_int_equal(t->s.jobs[v].state, requeue ? JOB_PENDING : JOB_DONE);
		assert_int_equal(t->s.jobs[v].end_us, requeue ? -1 : T1 + S(0.5));
		assert_int_equal(t->s.nfinished, requeue ? 0 : 1);
		assert_int_equal(t->s.jobs[2].state, JOB_RUNNING);   /* the inference job, at once */
		lt_step_to(t, T1 + S(5));
		assert_int_equal(t->s.jobs[v].restarts, 0);
		assert_int_equal(xcount(&t->x, X_START), 3);
		lt_free(t);
	}
}

/* Cancelled in its grace: killed at once, no stop at the grace's end. */
static void test_live_preempt_cancel(void **state)
{
	(void)state;
	struct lt *t = lt_new("tiered", 0, 0);
	const simtime T0 = S(10), T1 = S(20);
	int32_t v = preempt_setup(t, T0, T1);
	assert_int_equal(sim_inject_cancel(&t->s, T1 + S(1), v), 0);
	lt_step_to(t, T1 + S(5));
	assert_int_equal(t->x.n, 5);
	assert_int_equal(t->x.c[3].op, X_STOP);
	assert_int_equal(t->x.c[3].id, v);
	assert_int_equal(t->x.c[3].how, EXEC_STOP_KILL);
	assert_int_equal(t->x.c[3].t, T1 + S(1));
	assert_int_equal(t->s.jobs[v].state, JOB_KILLED);
	assert_int_equal(t->s.jobs[v].reason, END_CANCELLED);
	assert_int_equal(t->s.jobs[v].end_us, T1 + S(1));
	assert_int_equal(t->x.c[4].op, X_START);
	assert_int_equal(t->x.c[4].id, 2);
	assert_int_equal(t->s.jobs[2].start_us, T1 + S(1));
	/* its exit, reported after, is stale */
	assert_int_equal(sim_inject_end(&t->s, T1 + S(6), v, 0, JOB_KILLED, END_EXIT), 0);
	lt_step_to(t, T1 + S(6));
	assert_int_equal(t->s.jobs[v].reason, END_CANCELLED);
	assert_int_equal(t->s.nfinished, 1);
	lt_free(t);
}

/* The executor says a node is down (a reading's "down"): its job is
 * stopped and fails, nothing starts there until a reading says it is up. */
static void test_live_down(void **state)
{
	(void)state;
	struct lt *t = lt_new("fcfs", 0, 0);
	const simtime T0 = S(10);
	lt_two_jobs(t, T0);
	assert_int_equal(job_node(t, 1), 1);
	struct sim_reading r = { .power_w = NAN, .temp_c = NAN, .util = NAN, .bad_gpu = -1, .down = 1, .ok = true };
	assert_int_equal(sim_inject_reading(&t->s, T0 + S(1), 1, &r), 0);
	lt_step_to(t, T0 + S(1));
	assert_int_equal(t->s.cl.svc[1], NODE_DOWN);
	assert_int_equal(t->s.cl.svc[0], NODE_UP);
	assert_int_equal(t->s.jobs[1].state, JOB_FAILED);
	assert_int_equal(t->s.jobs[1].reason, END_NODE_FAIL);
	assert_int_equal(t->s.jobs[1].end_us, T0 + S(1));
	assert_int_equal(t->s.jobs[0].state, JOB_RUNNING);
	int k = xfind(&t->x, 2, X_STOP, 1);
	assert_true(k >= 2);
	assert_int_equal(t->x.c[k].how, EXEC_STOP_KILL);
	assert_int_equal(xcount(&t->x, X_STOP), 1);
	/* a job that needs a whole node waits */
	assert_int_equal(lt_add(t, T0 + S(2), JOB_BATCH, 2, 0), 2);
	lt_step_to(t, T0 + S(2));
	assert_int_equal(t->s.jobs[2].state, JOB_PENDING);
	/* still down: nothing new */
	int n = t->x.n;
	assert_int_equal(sim_inject_reading(&t->s, T0 + S(3), 1, &r), 0);
	lt_step_to(t, T0 + S(3));
	assert_int_equal(t->s.cl.svc[1], NODE_DOWN);
	assert_int_equal(t->x.n, n);
	/* a reading that says nothing about it changes nothing */
	r.down = -1;
	assert_int_equal(sim_inject_reading(&t->s, T0 + S(4), 1, &r), 0);
	lt_step_to(t, T0 + S(4));
	assert_int_equal(t->s.cl.svc[1], NODE_DOWN);
	assert_int_equal(t->s.jobs[2].state, JOB_PENDING);
	/* up again: job 2 starts there */
	r.down = 0;
	assert_int_equal(sim_inject_reading(&t->s, T0 + S(5), 1, &r), 0);
	lt_step_to(t, T0 + S(5));
	assert_int_equal(t->s.cl.svc[1], NODE_UP);
	assert_int_equal(t->s.jobs[2].state, JOB_RUNNING);
	assert_int_equal(t->s.jobs[2].start_us, T0 + S(5));
	assert_int_equal(job_node(t, 2), 1);
	lt_free(t);
}

/* Under an executor that owns its jobs' fates (Slurm), a node seen down
 * keeps its job: Slurm requeues it (or ends it) and observe says so. The
 * engine used to kill it at once, so a job Slurm was requeueing (squeue
 * showed it completing, the node already DOWN) ended failed. */
static void test_live_down_exec_fates(void **state)
{
	(void)state;
	struct lt *t = lt_new_xf("fcfs", 0, 0, true, true);
	const simtime T0 = S(10);
	lt_two_jobs(t, T0);
	assert_int_equal(job_node(t, 1), 1);
	assert_int_equal(sim_inject_running(&t->s, T0 + S(0.5), 0, 0, T0), 0);
	assert_int_equal(sim_inject_running(&t->s, T0 + S(0.5), 1, 0, T0), 0);
	struct sim_reading r = { .power_w = NAN, .temp_c = NAN, .util = NAN, .bad_gpu = -1, .down = 1, .ok = true };
	assert_int_equal(sim_inject_reading(&t->s, T0 + S(1), 1, &r), 0);
	lt_step_to(t, T0 + S(1));
	assert_int_equal(t->s.cl.svc[1], NODE_DOWN);
	assert_int_equal(t->s.jobs[1].state, JOB_RUNNING);
	assert_int_equal(xcount(&t->x, X_STOP), 0);
	/* Slurm requeued it: pending again, and not placed on the down node
	 * (node 0 is busy). */
	assert_int_equal(sim_inject_requeue(&t->s, T0 + S(2), 1, 0, -1, T0 + S(1), "Slurm requeued it"), 0);
	lt_step_to(t, T0 + S(2));
	assert_int_equal(t->s.jobs[1].state, JOB_PENDING);
	assert_int_equal(t->s.cl.svc[1], NODE_DOWN);
	/* Up again: it runs there, as attempt 1. */
	r.down = 0;
	assert_int_equal(sim_inject_reading(&t->s, T0 + S(3), 1, &r), 0);
	lt_step_to(t, T0 + S(3));
	assert_int_equal(t->s.jobs[1].state, JOB_RUNNING);
	assert_int_equal(t->s.jobs[1].restarts, 1);
	assert_int_equal(job_node(t, 1), 1);
	/* A job that Slurm ended on a down node ends as Slurm says, and frees
	 * its cores on the node, which stays down. */
	r.down = 1;
	assert_int_equal(sim_inject_reading(&t->s, T0 + S(4), 0, &r), 0);
	assert_int_equal(sim_inject_end_at(&t->s, T0 + S(5), 0, 0, JOB_FAILED, END_NODE_FAIL, -1, T0 + S(4)), 0);
	assert_int_equal(lt_add(t, T0 + S(5), JOB_BATCH, 2, 0), 2);
	lt_step_to(t, T0 + S(5));
	assert_int_equal(t->s.jobs[0].state, JOB_FAILED);
	assert_int_equal(t->s.jobs[0].reason, END_NODE_FAIL);
	assert_int_equal(t->s.cl.svc[0], NODE_DOWN);
	assert_int_equal(t->s.jobs[2].state, JOB_PENDING);
	assert_int_equal(xcount(&t->x, X_STOP), 0);
	lt_free(t);
}

/* A run the executor started and requeued between two of its reads (never
 * seen running): with its start (from sacct) it is a restart whose seconds
 * count; without one, a start that never happened (the same attempt). */
static void test_live_requeue_unseen(void **state)
{
	(void)state;
	struct lt *t = lt_new_xf("fcfs", 0, 0, true, true);
	const simtime T0 = S(10);
	lt_two_jobs(t, T0);
	assert_false(t->s.live->run[0].confirmed);
	assert_int_equal(sim_inject_requeue(&t->s, T0 + S(3), 0, 0, T0 + S(1), T0 + S(2), "Slurm requeued it"), 0);
	assert_int_equal(sim_inject_requeue(&t->s, T0 + S(3), 1, 0, -1, T0 + S(2), "Slurm requeued it"), 0);
	lt_step_to(t, T0 + S(3));
	/* Both placed again by fcfs: job 0 as attempt 1, 2 cores for 1 s
	 * counted; job 1 still attempt 0, nothing counted. */
	assert_int_equal(t->s.jobs[0].state, JOB_RUNNING);
	assert_int_equal(t->s.jobs[0].restarts, 1);
	assert_true(fabs(t->s.jobs[0].core_s - 2.0) < 1e-6);
	assert_int_equal(t->s.jobs[1].state, JOB_RUNNING);
	assert_int_equal(t->s.jobs[1].restarts, 0);
	assert_true(t->s.jobs[1].core_s == 0);
	lt_free(t);
}

static void test_live_hot(void **state)
{
	(void)state;
	struct lt *t = lt_new("fcfs", 85, 70);
	struct sim_reading r = { .power_w = 300, .temp_c = 95, .util = 0.5, .bad_gpu = -1, .down = -1, .ok = true };
	assert_int_equal(sim_inject_reading(&t->s, S(1), 1, &r), 0);
	lt_step_to(t, S(1));
	assert_true(t->s.cl.health[1].hot);
	assert_false(t->s.cl.health[0].hot);
	assert_true(t->s.live->rd[1].ok);
	assert_true(t->s.live->rd[1].temp_c == 95);
	assert_int_equal(t->s.live->rd[1].at, S(1));
	assert_int_equal(t->x.n, 1);
	assert_int_equal(t->x.c[0].op, X_NODE);
	assert_int_equal(t->x.c[0].id, 1);
	assert_int_equal(t->x.c[0].how, 1);
	assert_int_equal(strncmp(t->x.c[0].reason, "hot", 3), 0);
	assert_string_equal(t->x.c[0].reason, "hot: 95 C");
	assert_int_equal(t->s.cl.svc[1], NODE_DRAINED);
	assert_int_equal(t->s.cl.svc[0], NODE_UP);
	/* two jobs that each fill a node: only h1 takes one */
	assert_int_equal(lt_add(t, S(2), JOB_BATCH, 2, 0), 0);
	assert_int_equal(lt_add(t, S(2), JOB_BATCH, 2, 0), 1);
	lt_step_to(t, S(2));
	assert_int_equal(t->s.jobs[0].state, JOB_RUNNING);
	assert_int_equal(job_node(t, 0), 0);
	assert_int_equal(t->s.jobs[1].state, JOB_PENDING);
	/* still above cool_c: stays hot; a reading that did not arrive changes nothing */
	r.temp_c = 80;
	assert_int_equal(sim_inject_reading(&t->s, S(3), 1, &r), 0);
	struct sim_reading bad = { .temp_c = 20, .bad_gpu = -1, .down = 1, .ok = false };
	assert_int_equal(sim_inject_reading(&t->s, S(3), 1, &bad), 0);
	assert_int_equal(sim_inject_reading(&t->s, S(3), 5, &r), 0);    /* no such node */
	assert_int_equal(sim_inject_reading(&t->s, S(3), -1, &r), 0);
	lt_step_to(t, S(3));
	assert_true(t->s.cl.health[1].hot);
	assert_int_equal(t->s.cl.svc[1], NODE_DRAINED);
	assert_int_equal(t->s.jobs[1].state, JOB_PENDING);
	assert_int_equal(xcount(&t->x, X_NODE), 1);
	/* below cool_c: resumed, and the waiting job starts there */
	r.temp_c = 69.5;
	assert_int_equal(sim_inject_reading(&t->s, S(4), 1, &r), 0);
	lt_step_to(t, S(4));
	assert_false(t->s.cl.health[1].hot);
	assert_int_equal(t->s.cl.svc[1], NODE_UP);
	int k = xfind(&t->x, 0, X_NODE, 1);
	k = xfind(&t->x, k + 1, X_NODE, 1);
	assert_true(k > 0);
	assert_int_equal(t->x.c[k].how, 0);
	assert_int_equal(t->x.c[k].t, S(4));
	assert_int_equal(t->s.jobs[1].state, JOB_RUNNING);
	assert_int_equal(job_node(t, 1), 1);
	assert_true(xfind(&t->x, k + 1, X_START, 1) > k);
	/* hot again while a job runs there: draining, the job left alone */
	r.temp_c = 90;
	assert_int_equal(sim_inject_reading(&t->s, S(5), 1, &r), 0);
	lt_step_to(t, S(5));
	assert_int_equal(t->s.cl.svc[1], NODE_DRAINING);
	assert_int_equal(t->s.jobs[1].state, JOB_RUNNING);
	assert_int_equal(xcount(&t->x, X_STOP), 0);
	assert_string_equal(t->x.c[t->x.n - 1].reason, "hot: 90 C");
	/* many readings in flight at once (their buffer grows) */
	for (int i = 0; i < 100; i++) {
		struct sim_reading m = r;
		m.power_w = i;
		assert_int_equal(sim_inject_reading(&t->s, S(6) + i, i % 2, &m), 0);
	}
	lt_step_to(t, S(7));
	assert_true(t->s.live->rd[0].power_w == 98);
	assert_true(t->s.live->rd[1].power_w == 99);
	assert_int_equal(t->s.live->rd[1].at, S(6) + 99);
	lt_free(t);
}

/* The same inputs on a fresh engine: the same schedule. Enough jobs that
 * the job table grows while the engine runs. */
struct trace_out {
	simtime start[64], end[64];
	int state[64], restarts[64];
	struct fake x;
};

static void scripted(struct trace_out *o)
{
	struct lt *t = lt_new("tiered", 85, 70);
	int32_t n = 0;
	int nsig = 0;
	for (int i = 0; i < 40; i++) {
		simtime at = S(10) + S(i / 4);
		/* four one-core training jobs fill the cluster first */
		int cls = i < 4 ? JOB_TRAINING : i % 7 == 3 ? JOB_INFERENCE : i % 3 == 0 ? JOB_BATCH : JOB_TRAINING;
		n = lt_add(t, at, cls, i < 4 ? 1 : 1 + i % 2, i % 5 == 0 ? 30 : 0) + 1;
		if (i % 4 == 3) {
			lt_step_to(t, at);
			/* end whatever has run longest; every other victim exits in its grace */
			for (int32_t k = 0; k < t->s.nrunning; k++) {
				int32_t id = t->s.running[k];
				if (t->s.jobs[id].state == JOB_RUNNING && at - t->s.jobs[id].start_us >= S(3)) {
					assert_int_equal(sim_inject_end(&t->s, at + S(1) / 2, id, t->s.jobs[id].restarts,
					                                JOB_DONE, END_NONE), 0);
					break;
				}
			}
			for (int32_t k = 0; k < t->s.nrunning; k++) {
				int32_t id = t->s.running[k];
				if (t->s.jobs[id].state == JOB_CHECKPOINTING && t->s.jobs[id].signalled_us == at && nsig++ % 2 == 0)
					assert_int_equal(sim_inject_end(&t->s, at + S(1) / 5, id, t->s.jobs[id].restarts,
					                                JOB_KILLED, END_EXIT), 0);
			}
			if (t->s.npending > 1)
				assert_int_equal(sim_inject_cancel(&t->s, at + S(1) / 3, t->s.pending[t->s.npending - 1]), 0);
			struct sim_reading r = { .power_w = 100, .temp_c = i % 8 == 3 ? 90 : 60, .util = NAN, .bad_gpu = -1,
			                         .down = -1, .ok = true };
			assert_int_equal(sim_inject_reading(&t->s, at + S(1) / 4, (i / 4) % 2, &r), 0);
		}
	}
	/* then everything ends, one job a second */
	simtime at = S(30);
	for (int round = 0; round < 80 && t->s.nfinished < n; round++) {
		lt_step_to(t, at);
		for (int32_t k = 0; k < t->s.nrunning; k++) {
			int32_t id = t->s.running[k];
			if (t->s.jobs[id].state == JOB_RUNNING) {
				assert_int_equal(sim_inject_end(&t->s, at + S(1), id, t->s.jobs[id].restarts, JOB_DONE,
				                                END_NONE), 0);
				break;
			}
		}
		struct sim_reading r = { .power_w = 100, .temp_c = 50, .util = NAN, .bad_gpu = -1, .down = -1,
		                         .ok = true };
		assert_int_equal(sim_inject_reading(&t->s, at + 1, round % 2, &r), 0);
		at += S(1);
	}
	lt_step_to(t, at + S(10));
	assert_int_equal(t->s.njobs, 40);
	assert_int_equal(t->s.nfinished, 40);
	for (int32_t i = 0; i < n; i++) {
		o->start[i] = t->s.jobs[i].start_us;
		o->end[i] = t->s.jobs[i].end_us;
		o->state[i] = t->s.jobs[i].state;
		o->restarts[i] = t->s.jobs[i].restarts;
	}
	o->x = t->x;
	lt_free(t);
}

static void test_live_deterministic(void **state)
{
	(void)state;
	struct trace_out *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
	scripted(a);
	scripted(b);
	int preempted = 0, cancelled = 0, started = 0;
	for (int i = 0; i < 40; i++) {
		assert_int_equal(a->start[i], b->start[i]);
		assert_int_equal(a->end[i], b->end[i]);
		assert_int_equal(a->state[i], b->state[i]);
		assert_int_equal(a->restarts[i], b->restarts[i]);
		assert_true(job_state_final((enum job_state)a->state[i]));
		preempted += a->restarts[i] > 0;
		cancelled += a->start[i] < 0;
		started += a->start[i] >= 0;
	}
	/* the script exercises what it means to */
	assert_true(preempted > 0);
	assert_true(cancelled > 0);
	assert_true(started > 20);
	assert_true(xcount(&a->x, X_NODE) > 0);
	assert_int_equal(a->x.n, b->x.n);
	for (int k = 0; k < a->x.n; k++) {
		assert_int_equal(a->x.c[k].op, b->x.c[k].op);
		assert_int_equal(a->x.c[k].id, b->x.c[k].id);
		assert_int_equal(a->x.c[k].how, b->x.c[k].how);
		assert_int_equal(a->x.c[k].t, b->x.c[k].t);
		assert_string_equal(a->x.c[k].reason, b->x.c[k].reason);
	}
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_start_end),
		cmocka_unit_test(test_live_async_start),
		cmocka_unit_test(test_live_foreign_topup),
		cmocka_unit_test(test_live_blind),
		cmocka_unit_test(test_live_walltime),
		cmocka_unit_test(test_live_cancel),
		cmocka_unit_test(test_live_cancel_before_submit),
		cmocka_unit_test(test_live_preempt_exit),
		cmocka_unit_test(test_live_preempt_grace),
		cmocka_unit_test(test_live_preempt_timed),
		cmocka_unit_test(test_live_preempt_cancel),
		cmocka_unit_test(test_live_down),
		cmocka_unit_test(test_live_down_exec_fates),
		cmocka_unit_test(test_live_requeue_unseen),
		cmocka_unit_test(test_live_hot),
		cmocka_unit_test(test_live_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
