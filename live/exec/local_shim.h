/* exec_shim — the half of exec_local that runs after lx_launch forks: the
 * shim (lx_shim_main), which forks the job, forwards signals to it and
 * records how it ended, and the job itself up to its execvp. Internal to
 * live/exec/local_proc.c and live/exec/local_shim.c; not for other modules.
 *
 * lx_launch fills a struct lx_launch_args on the heap before the fork; after it the
 * child only reads it, runs only async-signal-safe code (no malloc, no stdio,
 * no strerror) and never returns into the caller's code. The file writers
 * here are async-signal-safe, and lx_launch and the cgroup code use them too. */
#ifndef HL_EXEC_SHIM_H
#define HL_EXEC_SHIM_H

#include <sched.h>
#include <stddef.h>
#include <sys/types.h>

enum { LX_PATH = 4096, LX_TEXT = 512 };

/* The shim's process name; lx_poll checks it before reaping a pid. */
static const char LX_SHIM_NAME[] = "hetlab-shim";

/* Everything the shim and the job need, made before the fork. */
struct lx_launch_args {
	char dir[LX_PATH];
	char lock[LX_PATH], pid[LX_PATH], pidtmp[LX_PATH];
	char exit[LX_PATH], exittmp[LX_PATH], cgfile[LX_PATH];
	char out[LX_PATH];
	char cg[LX_PATH];                 /* "" when the job gets no cgroup */
	char cg_mem[LX_PATH], cg_cpu[LX_PATH], cg_procs[LX_PATH];
	char mem_val[32], cpu_val[48];    /* "" when not limited */
	const char *cwd;
	char *const *argv;
	char **envp;
	char *cuda_entry;
	cpu_set_t cpus;
	int set_cpus;
	int run_as;                       /* drop to uid/gid with groups[ngroups] before exec */
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	int ngroups;
	char user_out[LX_PATH];           /* "" none: the output is outfd */
	int lockfd, outfd, nullfd, pipe_r, pipe_w;
};

/* What the shim tells lx_launch through the pipe. */
struct lx_launch_msg {
	int err;                          /* errno of the failed step, 0 when launched */
	int step;
	pid_t job;
};
enum { LX_STEP_OK, LX_STEP_FORK, LX_STEP_PIDFILE };

/* The shim, in the child of lx_launch's fork: forks and runs the job, reports
 * through L->pipe_w, waits for the job and writes KEY.exit. Never returns. */
_Noreturn void lx_shim_main(const struct lx_launch_args *L);
/* Writes all n bytes to fd (again on EINTR): 0, or -1 (errno). */
int lx_write_all(int fd, const char *p, size_t n);
/* Writes data to tmp, then renames it to path. With syncdir, fsyncs the file
 * before the rename and the directory after, so the record survives a crash.
 * 0, or -1 (errno). */
int lx_write_atomic(const char *tmp, const char *path, const char *data, size_t n, const char *syncdir);
/* Writes a short value to a cgroup (or any) file: 0, or -1 (errno). */
int lx_write_file(const char *path, const char *text);

#endif
