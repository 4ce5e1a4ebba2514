/* exec-driver — a command line over live/exec_slurm for tests/slurm/exec.sh,
 * which compiles it against BUILD/libhetlab.a. One action per run:
 *
 *   exec-driver submit KEY NODES CPUS GPUS -- ARGV...   prints the Slurm job id
 *   exec-driver start ID NODE[,NODE...]
 *   exec-driver signal ID SIGNUM | requeuehold ID | hold ID | cancel ID
 *   exec-driver drain NODE REASON | resume NODE
 *   exec-driver info ID                 one line: ID STATE key= held= exit= sig= nodes= reason=
 *   exec-driver wait ID STATE SECONDS   polls info (0.2 s) until STATE; exit 1 at the deadline
 *   exec-driver jobs | nodes            one line per hetlab job / node
 *
 * The context: workdir $SX_WORKDIR (default .), partition $SX_PARTITION,
 * SLURM_CONF from the environment. Errors go to stderr with exit status 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live/exec_slurm.h"

static void print_job(const struct sx_jobinfo *j)
{
	printf("%lld %s key=%lld held=%d exit=%d sig=%d restarts=%d nodes=%s req=%s reason=%s\n",
	       (long long)j->id, sx_state_name(j->st), (long long)j->key, j->held, j->exit_code,
	       j->exit_sig, j->restarts, j->nodes[0] ? j->nodes : "-",
	       j->req_nodes[0] ? j->req_nodes : "-", j->reason[0] ? j->reason : "-");
}

static int usage(void)
{
	fprintf(stderr, "usage: exec-driver submit|start|signal|requeuehold|hold|cancel|drain|resume|"
	        "info|wait|jobs|nodes ... (see tests/slurm/exec-driver.c)\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct sx_ctx c = { .timeout_s = 30 };
	char err[2048] = "";
	const char *wd = getenv("SX_WORKDIR"), *part = getenv("SX_PARTITION");
	snprintf(c.workdir, sizeof c.workdir, "%s", wd && wd[0] ? wd : ".");
	snprintf(c.partition, sizeof c.partition, "%s", part ? part : "");
	if (argc < 2)
		return usage();
	const char *cmd = argv[1];
	int64_t id = argc > 2 ? strtoll(argv[2], NULL, 10) : 0;
	int rc = -1;

	if (strcmp(cmd, "submit") == 0 && argc >= 8 && strcmp(argv[6], "--") == 0) {
		struct sx_job j = {
			.key = id, .nodes = atoi(argv[3]), .cpus_per_node = atoi(argv[4]),
			.gpus_per_node = atoi(argv[5]), .argv = (const char *const *)argv + 7,
		};
		int64_t sid;
		rc = sx_submit(&c, &j, &sid, err, sizeof err);
		if (rc == 0)
			printf("%lld\n", (long long)sid);
	} else if (strcmp(cmd, "start") == 0 && argc == 4) {
		const char *nodes[64];
		int nn = 0;
		for (char *tok = strtok(argv[3], ","); tok && nn < 64; tok = strtok(NULL, ","))
			nodes[nn++] = tok;
		rc = sx_start(&c, id, nodes, nn, err, sizeof err);
	} else if (strcmp(cmd, "signal") == 0 && argc == 4) {
		rc = sx_signal(&c, id, atoi(argv[3]), err, sizeof err);
	} else if (strcmp(cmd, "requeuehold") == 0 && argc == 3) {
		rc = sx_requeue_hold(&c, id, err, sizeof err);
	} else if (strcmp(cmd, "hold") == 0 && argc == 3) {
		rc = sx_hold(&c, id, err, sizeof err);
	} else if (strcmp(cmd, "cancel") == 0 && argc == 3) {
		rc = sx_cancel(&c, id, err, sizeof err);
	} else if (strcmp(cmd, "drain") == 0 && argc == 4) {
		rc = sx_drain(&c, argv[2], argv[3], err, sizeof err);
	} else if (strcmp(cmd, "resume") == 0 && argc == 3) {
		rc = sx_resume(&c, argv[2], err, sizeof err);
	} else if (strcmp(cmd, "info") == 0 && argc == 3) {
		struct sx_jobinfo j;
		rc = sx_job_info(&c, id, &j, err, sizeof err);
		if (rc == 0)
			print_job(&j);
	} else if (strcmp(cmd, "wait") == 0 && argc == 5) {
		struct sx_jobinfo j = { 0 };
		struct timespec t0, t, nap = { 0, 200 * 1000 * 1000 };
		double limit = atof(argv[4]);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (;;) {
			if (sx_job_info(&c, id, &j, err, sizeof err) < 0)
				break;
			if (strcmp(sx_state_name(j.st), argv[3]) == 0) {
				rc = 0;
				break;
			}
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 > limit) {
				snprintf(err, sizeof err, "job %lld not %s within %s s (%s)", (long long)id,
				         argv[3], argv[4], sx_state_name(j.st));
				break;
			}
			nanosleep(&nap, NULL);
		}
		if (j.id)
			print_job(&j);
	} else if (strcmp(cmd, "jobs") == 0 && argc == 2) {
		struct sx_jobinfo *v;
		int nv;
		rc = sx_jobs(&c, &v, &nv, err, sizeof err);
		for (int k = 0; rc == 0 && k < nv; k++)
			print_job(&v[k]);
		free(rc == 0 ? v : NULL);
	} else if (strcmp(cmd, "nodes") == 0 && argc == 2) {
		struct sx_nodeinfo *v;
		int nv;
		rc = sx_nodes(&c, &v, &nv, err, sizeof err);
		for (int k = 0; rc == 0 && k < nv; k++)
			printf("%s %s drain=%d down=%d idle=%d cpus=%d/%d mem=%lld gpus=%d/%d reason=%s\n",
			       v[k].name, v[k].state, v[k].drain, v[k].down, v[k].idle, v[k].alloc_cpus,
			       v[k].cpus, (long long)v[k].mem_mib, v[k].gpus_used, v[k].gpus,
			       v[k].reason[0] ? v[k].reason : "-");
		free(rc == 0 ? v : NULL);
	} else {
		return usage();
	}
	if (rc < 0) {
		fprintf(stderr, "exec-driver %s: %s\n", cmd, err);
		return 1;
	}
	return 0;
}
