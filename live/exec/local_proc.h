/* exec_local — live mode's local executor: runs jobs as child processes of
 * this host and finds out how they ended, even across a daemon that was
 * SIGKILLed and restarted. It knows nothing of the engine: a job is an
 * integer key, a program and its resources.
 *
 * Each job has files in a state directory DIR:
 *   KEY.lock    created and flock'ed by lx_launch before it forks; the shim
 *               inherits the lock and holds it for its whole life, so "the
 *               lock is taken" means "the shim is alive" (immune to pid reuse)
 *   KEY.pid     "SHIM_PID JOB_PID\n", written atomically by the shim
 *   KEY.exit    "exited CODE\n" or "signaled SIGNO\n", written atomically
 *               (and fsync'ed) by the shim when the job ends, before the lock
 *               goes
 *   KEY.cgroup  the path of the job's cgroup, when it was given one
 *   KEY.out     the job's stdout and stderr (unless lx_spec.out_path), also
 *               where the executor's own warnings about the job go
 *
 * Processes: the daemon forks a shim (its own session, so it outlives the
 * daemon; named "hetlab-shim"), the shim forks the job (its own process
 * group; it dies with the shim by PR_SET_PDEATHSIG) and execvp's the program
 * with stdin from /dev/null, no inherited descriptors but 0/1/2, default
 * signal dispositions and an empty signal mask. The shim forwards SIGTERM,
 * SIGINT, SIGHUP, SIGUSR1 and SIGUSR2 to the job's process group, waits for
 * the job, then SIGKILLs whatever is left of that process group (as a batch
 * system does at job end), writes KEY.exit and _exits. A program that cannot
 * be started (not found, bad cwd, affinity refused) writes "hetlab: ..." to
 * the output file and ends as "exited 127".
 *
 * Status comes from the files only (lx_poll), never from being the parent:
 * KEY.exit present: EXITED; else the lock taken: RUNNING; else KEY.lock
 * present: LOST (the shim died without writing KEY.exit: the node rebooted or
 * the shim was SIGKILLed, and the job died with it); else NEVER. A launch that
 * the daemon did not see return (it died mid-launch) reads RUNNING or LOST.
 *
 * Reaping: shims are children of the process that called lx_launch and turn
 * into zombies when they end (a zombie holds no lock, so status is right
 * regardless). lx_poll reaps the key's shim once the job has ended;
 * lx_reap_shim reaps one shim; lx_reap reaps every ended child of the process,
 * shims or not, so a daemon with other children should use the other two.
 *
 * Threads: lx_launch may be called from a multi-threaded daemon; the forked
 * shim and job call only async-signal-safe functions, and everything they
 * need (paths, environment, affinity mask) is prepared before the fork. Calls
 * for the same key must not run concurrently.
 *
 * Ownership: everything is borrowed; lx_launch copies what it needs before it
 * returns. Nothing here keeps state between calls. Linux only. */
#ifndef HL_EXEC_LOCAL_H
#define HL_EXEC_LOCAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct lx_spec {
	const char *const *argv;     /* NULL-terminated, argv[0] found on PATH (execvp); required */
	const char *const *env;      /* extra "NAME=VALUE" entries (NULL-terminated, may be NULL), set on top of the inherited environment */
	const char *cwd;             /* NULL: dir */
	const int *cpus; int ncpus;  /* CPU affinity (logical CPU numbers); ncpus 0: inherit */
	const char *cuda_visible;    /* CUDA_VISIBLE_DEVICES value (GPU indexes or MIG UUIDs, comma-separated); NULL: the variable is removed, "" sets it empty (no GPU) */
	const char *out_path;        /* NULL: dir/<key>.out */
	const char *cgroup_parent;   /* cgroup v2 directory under which a per-job "hetlab-<key>" child is made (e.g. /sys/fs/cgroup/hetlab); NULL: no cgroup */
	int64_t mem_max_bytes;       /* cgroup memory.max (0: none) */
	int cpu_max_cores;           /* cgroup cpu.max quota in whole cores (0: none) */
	/* Added fields (zero: the default). */
	int out_append;              /* nonzero: append to the output file; 0: truncate it */
	int run_as;                  /* nonzero: the job runs as uid/gid, never as the daemon's user */
	uid_t uid;
	gid_t gid;
	const char *user;            /* run_as: whose supplementary groups it gets (the group database's); NULL: gid only */
	const char *user_out;        /* run_as: the job's own output, opened by the job once it is that user
	                                (relative: to cwd; appended; 0600; never through a link); NULL: out_path */
	int clean_env;               /* nonzero: env alone, the daemon's environment is not inherited */
};
/* Notes on lx_spec:
 * - run_as: after its cgroup and affinity (which need the daemon's
 *   rights), the job sets its groups (user's, from getgrouplist before
 *   the fork), then gid, then uid, checks that it cannot get its old ids
 *   back, and only then changes to cwd, opens user_out and executes: so a
 *   job of another user never runs a single instruction of its program
 *   with the daemon's rights, and what it opens, it opens as that user.
 *   A step that fails ends the job as exited 127, with the reason in
 *   out_path (the shim's side). The shim stays the daemon's user (it
 *   writes KEY.exit in dir). Setting ids needs the daemon to be root.
 * - An env entry without '=' or with an empty name is bad input (lx_launch
 *   fails). An entry replaces an inherited variable of the same name. PATH
 *   set there is the one execvp searches. cuda_visible always decides
 *   CUDA_VISIBLE_DEVICES: an env entry of that name is ignored.
 * - cpus must be in [0, CPU_SETSIZE); a set the kernel refuses (all offline)
 *   makes the job end as exited 127.
 * - cgroup: when cgroup_parent is given and lx_cgroup_available says yes, the
 *   job (before exec) makes PARENT/hetlab-KEY, writes memory.max and cpu.max
 *   ("CORES*100000 100000") and moves itself in; when the parent is not
 *   usable, or a step fails, the job runs anyway without that limit and a
 *   "hetlab: warning: ..." line goes to its output file. */

struct lx_handle { pid_t shim, job; };
enum lx_status { LX_RUNNING, LX_EXITED, LX_LOST, LX_NEVER };
/* exited: code (0..255), sig 0; signaled: sig, code -1; otherwise code -1, sig 0. */
struct lx_result { enum lx_status st; int code; int sig; };

/* Launches job KEY. Returns 0 with h filled (the job's pid is read back from
 * the shim before return, and KEY.pid is written by then), or -1 with a
 * message in err: bad spec, DIR or the output file not writable, fork failed,
 * the key is RUNNING, or the key has an EXITED record the caller has not
 * lx_remove'd yet. A LOST or NEVER key may be launched. A program that cannot
 * be executed is not an error here: the job ends as exited 127. */
int lx_launch(const char *dir, int64_t key, const struct lx_spec *sp, struct lx_handle *h, char *err, size_t errlen);
/* The key's status into r (see the top of this file); reaps the key's shim if
 * it is an ended child of this process. 0, or -1 on an I/O error (errno).
 * An unreadable KEY.exit (cannot happen short of disk corruption) reads LOST. */
int lx_poll(const char *dir, int64_t key, struct lx_result *r);
/* Sends sig to the job's process group, pids from KEY.pid, only when the lock
 * says RUNNING. 0, or -1 (errno ESRCH: not running or already ended). */
int lx_signal(const char *dir, int64_t key, int sig);
/* SIGKILL to the job's process group; as lx_signal. */
int lx_kill(const char *dir, int64_t key);
/* Reaps every ended child of this process (not only shims), non-blocking. */
void lx_reap(void);
/* Reaps the shim `shim` if it has ended: 1 reaped, 0 still running, -1 not a
 * child of this process (ECHILD). Non-blocking; leaves other children alone. */
int lx_reap_shim(pid_t shim);
/* Removes KEY's lock, pid, exit and cgroup files (not the output), and its
 * cgroup directory (killing what is left in it), once the daemon has recorded
 * the end; the key then reads NEVER. 0, or -1 with errno: EBUSY when RUNNING or
 * when the cgroup would not empty; the files are then left as they were. */
int lx_remove(const char *dir, int64_t key);
/* 1 if parent is a writable cgroup v2 directory whose children get the memory
 * and cpu controllers (enabling them in its cgroup.subtree_control if need
 * be), else 0 with the reason in why. */
int lx_cgroup_available(const char *parent, char *why, size_t n);

#endif
