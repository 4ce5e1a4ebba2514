/* exec-driver — a command line over live/exec_slurm for tests/slurm/exec.sh,
 * which compiles it against BUILD/libhetlab.a. One action per run:
 *
 *   exec-driver submit KEY NODES CPUS GPUS [--at N1,N2] -- ARGV...
 *                                       prints the Slurm job id; held unless --at
 *   exec-driver start ID NODE[,NODE...]
 *   exec-driver signal ID SIGNUM | requeuehold ID | hold ID | cancel ID
 *   exec-driver drain NODE REASON | resume NODE
 *   exec-driver info ID                 one line: ID STATE key= held= exit= sig= nodes= reason=
 *   exec-driver wait ID STATE SECONDS   polls info (0.2 s) until STATE; exit 1 at the deadline
 *   exec-driver jobs ID... | nodes      one line per job known to slurmctld / node
 *
 * The context: workdir $SX_WORKDIR (default .), partition $SX_PARTITION,
 * the state id $SX_STATE (default 0123456789abcdef), memory per node
 * $SX_MEM MiB (default 500), the jobs' environment $SX_EXPORT ("login":
 * SX_EXPORT_LOGIN, else SX_EXPORT_MINIMAL), the job's env entries
 * $SX_JOBENV (NAME=VALUE lines), SLURM_CONF from the environment. Errors go
 * to stderr with exit status 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live/exec/slurm_cmd.h"

static void print_job(const struct sx_jobinfo *j)
{
	printf("%lld %s key=%lld held=%d exit=%d sig=%d restarts=%d nodes=%s reason=%s\n",
	       (long long)j->id, sx_state_name(j->st), (long long)j->key, j->held, j->exit_code,
	       j->exit_sig, j->restarts, j->nodes[0] ? j->nodes : "-", j->reason[0] ? j->reason : "-");
}

/* One job by id: SX_GONE when slurmctld does not list it. */
static int job_info(const struct sx_ctx *c, int64_t id, struct sx_jobinfo *out, char *err, size_t n)
{
	struct sx_jobinfo *v;
	int nv;
	memset(out, 0, sizeof *out);
	out->id = id;
	out->st = SX_GONE;
	out->exit_code = out->exit_sig = -1;
	out->key = -1;
	if (sx_jobs_by_id(c, &id, 1, &v, &nv, err, n) < 0)
		return -1;
	for (int k = 0; k < nv; k++)
		if (v[k].id == id)
			*out = v[k];
	free(v);
	return 0;
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
	const char *ex = getenv("SX_EXPORT");
	c.export_env = ex && strcmp(ex, "login") == 0 ? SX_EXPORT_LOGIN : SX_EXPORT_MINIMAL;
	if (argc < 2)
		return usage();
	const char *cmd = argv[1];
	int64_t id = argc > 2 ? strtoll(argv[2], NULL, 10) : 0;
	int rc = -1;

	if (strcmp(cmd, "submit") == 0 && argc >= 8) {
		const char *st = getenv("SX_STATE"), *mem = getenv("SX_MEM");
		const char *at[64], *env[16];
		int nat = 0, nenv = 0, a = 6;
		char envbuf[4096] = "";
		const char *je = getenv("SX_JOBENV");
		snprintf(envbuf, sizeof envbuf, "%s", je ? je : "");
		for (char *tok = strtok(envbuf, "\n"); tok && nenv < 15; tok = strtok(NULL, "\n"))
			env[nenv++] = tok;
		env[nenv] = NULL;
		char list[1024] = "", gres[32] = "";
		if (strcmp(argv[a], "--at") == 0 && argc > a + 2) {
			snprintf(list, sizeof list, "%s", argv[a + 1]);
			for (char *tok = strtok(list, ","); tok && nat < 64; tok = strtok(NULL, ","))
				at[nat++] = tok;
			a += 2;
		}
		if (strcmp(argv[a], "--") != 0)
			return usage();
		if (atoi(argv[5]) > 0)
			snprintf(gres, sizeof gres, "gpu:%d", atoi(argv[5]));
		struct sx_job j = {
			.state_id = st && st[0] ? st : "0123456789abcdef", .key = id, .nodes = atoi(argv[3]),
			.cpus_per_node = atoi(argv[4]), .gres = gres[0] ? gres : NULL,
			.mem_mib_per_node = mem && mem[0] ? atoll(mem) : 500, .argv = (const char *const *)argv + a + 1,
			.nodelist = nat ? at : NULL, .uid = -1, .gid = -1, .ckpt_sig = 10, .env = nenv ? env : NULL,
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
		rc = job_info(&c, id, &j, err, sizeof err);
		if (rc == 0)
			print_job(&j);
	} else if (strcmp(cmd, "wait") == 0 && argc == 5) {
		struct sx_jobinfo j = { 0 };
		struct timespec t0, t, nap = { 0, 200 * 1000 * 1000 };
		double limit = atof(argv[4]);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (;;) {
			if (job_info(&c, id, &j, err, sizeof err) < 0)
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
	} else if (strcmp(cmd, "jobs") == 0 && argc >= 3) {
		struct sx_jobinfo *v;
		int nv;
		int64_t ids[64];
		int n = 0;
		for (int k = 2; k < argc && n < 64; k++)
			ids[n++] = strtoll(argv[k], NULL, 10);
		rc = sx_jobs_by_id(&c, ids, n, &v, &nv, err, sizeof err);
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
