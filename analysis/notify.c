/* notify — the preemption hook. See notify.h. */
#include "analysis/notify.h"

#include <errno.h>
#include <inttypes.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;


static void run_command(struct notifier *n, double t_s, int64_t trace_id, const char *reason)
{
	char targ[32], jarg[32];
	char *argv[64];
	int k = 0;
	for (; n->argv[k] && k < 59; k++)
		argv[k] = n->argv[k];
	snprintf(targ, sizeof targ, "%.6f", t_s);
	snprintf(jarg, sizeof jarg, "%" PRId64, trace_id);
	argv[k++] = (char *)"preempt";
	argv[k++] = targ;
	argv[k++] = jarg;
	argv[k++] = (char *)(reason ? reason : "");
	argv[k] = NULL;
	pid_t pid;
	int st = 0, rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
	n->fired++;
	if (rc == 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return;
	if (n->failed++ == 0)
		snprintf(n->first_error, sizeof n->first_error, "%s: %s", argv[0],
		         rc ? strerror(rc) : WIFEXITED(st) ? "exited non-zero" : "killed by a signal");
}

static void hook_event(void *ctx, simtime t, enum rec_kind kind, int32_t job, int32_t node, int state,
                       const char *detail)
{
	struct notifier *n = ctx;
	if (n->inner.event)
		n->inner.event(n->inner.ctx, t, kind, job, node, state, detail);
	if (kind != REC_PREEMPT)
		return;
	int64_t tid = n->s && job >= 0 ? n->s->jobs[job].trace_id : job;
	if (n->log && n->out)
		fprintf(n->out, "hetlab: t=%.3f s: preempted job %" PRId64 " (%s)\n", simtime_to_s(t), tid,
		        detail ? detail : "no reason");
	if (n->argv && n->argv[0])
		run_command(n, simtime_to_s(t), tid, detail);
}

static void hook_job_end(void *ctx, const struct sim *s, const struct job *j)
{
	struct notifier *n = ctx;
	if (n->inner.job_end)
		n->inner.job_end(n->inner.ctx, s, j);
}

static void hook_sample(void *ctx, const struct sim_sample *smp)
{
	struct notifier *n = ctx;
	if (n->inner.sample)
		n->inner.sample(n->inner.ctx, smp);
}

void notify_attach(struct notifier *n, struct sim *s)
{
	n->inner = s->rec;
	n->s = s;
	struct sim_recorder rec = {
		.ctx = n,
		.event = hook_event,
		.job_end = n->inner.job_end ? hook_job_end : NULL,
		.sample = n->inner.sample ? hook_sample : NULL,
	};
	sim_set_recorder(s, &rec);
}
