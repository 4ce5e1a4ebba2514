/* hetlab sweep — a grid of scenario variants × seeds, run N at a time.
 *
 * Each run is its own process: fork + execv of this binary (/proc/self/exe)
 * as `hetlab run POINT/scenario.json --seed N --out POINT/seed-N.db --quiet`,
 * never through a shell. A run whose database already exists and reads as a
 * finished run is skipped (hetlab run writes it only on success, through a
 * temporary name), so a re-run resumes an interrupted sweep. Runs start
 * longest expected first (analysis/sweepq.h). The summary is
 * written at the end from the databases, sorted by point and seed, so it
 * does not depend on which runs finished first. docs/sweep.md. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis/sweep.h"
#include "analysis/sweepq.h"
#include "analysis/tmpclean.h"
#include "cli/args.h"
#include "cli/cmd.h"
#include "config/scenario.h"
#include "config/scnlabels.h"
#include "config/sweepcfg.h"

/* mkdir -p */
static int make_dirs(const char *path)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0777) < 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	if (mkdir(buf, 0777) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* The whole file, or NULL (errno set). */
static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *s = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 8192;
			char *ns = realloc(s, cap);
			if (!ns) {
				free(s);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			s = ns;
		}
		size_t r = fread(s + n, 1, 4096, f);
		n += r;
		if (r < 4096)
			break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(s);
		errno = EIO;
		return NULL;
	}
	s[n] = '\0';
	return s;
}

/* Writes text to path through a temporary sibling. */
static int write_atomic(const char *path, const char *text)
{
	char tmp[PATH_MAX + 32];
	snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
	tmpclean_stale(path, NULL, 0);   /* those of dead processes */
	int slot = tmpclean_add(tmp);   /* removed on SIGINT/SIGTERM */
	FILE *f = fopen(tmp, "wb");
	if (!f)
		return tmpclean_drop(slot), -1;
	size_t n = strlen(text);
	int bad = fwrite(text, 1, n, f) != n;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		tmpclean_drop(slot);
		errno = e ? e : EIO;
		return -1;
	}
	tmpclean_drop(slot);
	return 0;
}

/* "$.a=1 $.b=\"x\"" for messages. */
static void point_label(const struct sweep_grid *g, size_t i, char *out, size_t len)
{
	size_t off = 0;
	out[0] = '\0';
	for (size_t k = 0; k < g->nparam && off < len; k++)
		off += (size_t)snprintf(out + off, len - off, "%s%s=%s", k ? " " : "", g->param[k].path,
		                        g->param[k].value[g->point[i].vidx[k]]);
}

/* Loads point i's scenario: from the file at path, or (text) from its text
 * as if it were at path (--dry-run writes nothing), so that a value the
 * scenario rejects is reported with the point before anything runs. Its
 * label values go into L when given. */
static int check_point(const struct sweep_grid *g, size_t i, const char *path, const char *text,
                       struct metric_labels *L)
{
	char err[1024], label[512], dir[PATH_MAX];
	struct scenario sc;
	int r;
	if (text) {
		const char *slash = strrchr(path, '/');
		snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
		r = scenario_load_text(text, path, dir, &sc, err, sizeof err);
	} else
		r = scenario_load(path, &sc, err, sizeof err);
	if (r < 0) {
		point_label(g, i, label, sizeof label);
		fprintf(stderr, "hetlab sweep: %s: point %zu (%s): %s\n", g->file, i, label, err);
	} else if (L) {
		scn_labels_add(L, &sc);
	}
	scenario_free(&sc);
	return r < 0 ? -1 : 0;
}

/* Writes (or checks) each point's scenario.json and loads it once, so a
 * value the scenario rejects is reported before anything runs. */
static int prepare_points(const struct sweep_grid *g, size_t only, bool write)
{
	for (size_t i = 0; i < g->npoint; i++) {
		if (only != SIZE_MAX && i != only)
			continue;
		char *dir = sweep_point_dir(g, i), path[PATH_MAX + 32];
		if (!dir) {
			fprintf(stderr, "hetlab sweep: out of memory\n");
			return -1;
		}
		snprintf(path, sizeof path, "%s/scenario.json", dir);
		if (write && make_dirs(dir) < 0) {
			fprintf(stderr, "hetlab sweep: cannot create %s: %s\n", dir, strerror(errno));
			free(dir);
			return -1;
		}
		free(dir);
		char *old = read_all(path);
		if (old && strcmp(old, g->point[i].scenario) != 0) {
			fprintf(stderr, "hetlab sweep: %s: %s differs from point %zu of this sweep (the "
			        "sweep file or its scenario changed since those runs): use another --out, "
			        "or remove %s\n", g->file, path, i, g->out);
			free(old);
			return -1;
		}
		if (!write) {
			free(old);
			continue;
		}
		if (!old && write_atomic(path, g->point[i].scenario) < 0) {
			fprintf(stderr, "hetlab sweep: cannot write %s: %s\n", path, strerror(errno));
			return -1;
		}
		free(old);
		if (check_point(g, i, path, NULL, NULL) < 0)
			return -1;
	}
	return 0;
}

/* --dry-run: each point's scenario checked from its text, named as the
 * file a run would write (OUT/point-N/scenario.json), nothing written;
 * their label values go into L when given. */
static int check_points_text(const struct sweep_grid *g, struct metric_labels *L)
{
	for (size_t i = 0; i < g->npoint; i++) {
		char *dir = sweep_point_dir(g, i), path[PATH_MAX + 32];
		if (!dir) {
			fprintf(stderr, "hetlab sweep: out of memory\n");
			return -1;
		}
		snprintf(path, sizeof path, "%s/scenario.json", dir);
		free(dir);
		if (check_point(g, i, path, g->point[i].scenario, L) < 0)
			return -1;
	}
	return 0;
}

/* The label value of each of the grid's "metrics" must be one that some
 * point's scenario has (`gpu_util{gpu=H100}` for H100-SXM-80GB would give
 * NaN after every run): checked on the points' texts before anything is
 * written. */
static int check_metric_labels(const struct sweep_grid *g)
{
	bool any = false;
	for (size_t k = 0; k < g->nmetric; k++)
		any |= strchr(g->metric[k], '{') != NULL;
	if (!any)
		return 0;
	struct metric_labels L;
	metric_labels_init(&L);
	int r = check_points_text(g, &L);
	for (size_t k = 0; r == 0 && k < g->nmetric; k++) {
		char why[1200];
		if (metric_labels_check(&L, g->metric[k], why, sizeof why) < 0) {
			fprintf(stderr, "hetlab sweep: %s: $.metrics[%zu]: %s\n", g->file, k, why);
			r = -1;
		}
	}
	metric_labels_fini(&L);
	return r;
}

struct sw_job {
	size_t point;
	uint64_t seed;
	char *db;
	char *scenario;
	pid_t pid;
	struct timespec t0;
};

/* The run stores its metrics within the sweep's window (mwin: "own" or
 * the window's JSON) for the summary, which then reads a few rows instead
 * of the whole database (analysis/runmetric.h). A run that shares every
 * core with other runs (one_thread: the sweep runs at least as many at
 * once as it has CPUs) writes its results on its engine's thread: a
 * writer thread of its own would only compete. */
static pid_t spawn(const char *exe, const struct sw_job *j, const char *mwin, const char *traces, bool one_thread)
{
	char seed[32];
	snprintf(seed, sizeof seed, "%" PRIu64, j->seed);
	char *av[16] = { (char *)"hetlab", (char *)"run", j->scenario, (char *)"--seed", seed,
		(char *)"--out", j->db, (char *)"--quiet", (char *)"--store-metrics", (char *)mwin };
	int n = 10;
	if (traces) {
		av[n++] = (char *)"--traces";
		av[n++] = (char *)traces;
	}
	if (one_thread) {
		av[n++] = (char *)"--threads";
		av[n++] = (char *)"1";
	}
	av[n] = NULL;
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		execv(exe, av);
		fprintf(stderr, "hetlab sweep: cannot run %s: %s\n", exe, strerror(errno));
		_exit(127);
	}
	tmpclean_child(pid);   /* gets the SIGINT/SIGTERM that ends the sweep */
	return pid;
}

/* The CPUs this process may run on (its affinity mask), at least 1. */
static size_t cpus_usable(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		return (size_t)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (size_t)n : 1;
}

/* Starts queued runs, longest expected first (analysis/sweepq.h), while
 * fewer than par run; rslot[] holds the running ones' job ids. -1 when none
 * runs and none could be started (a fork failure is retried after the next
 * run ends). */
static int fill_slots(struct sw_job *jobs, struct sweepq *q, size_t *rslot, size_t *running,
                      size_t par, bool one_thread, const char *exe, const char *mwin, const char *traces)
{
	while (*running < par && q->left > 0) {
		size_t k = sweepq_next(q);
		struct sw_job *j = &jobs[k];
		clock_gettime(CLOCK_MONOTONIC, &j->t0);
		j->pid = spawn(exe, j, mwin, traces, one_thread);
		if (j->pid < 0) {
			fprintf(stderr, "hetlab sweep: fork: %s\n", strerror(errno));
			sweepq_undo(q, k);
			return *running == 0 ? -1 : 0;   /* else wait for one to end and try again */
		}
		rslot[(*running)++] = k;
	}
	return 0;
}

static double since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* Where a sweep's time went: its wall time from the first run on, the
 * run slots left idle (fewer runs than min(-j, runs) going: the tail, a
 * failed fork), and at the end the CPU time of the runs and of this
 * process (starting runs, reading their results, the summary). */
struct sw_times {
	struct timespec t0, last;
	size_t par;             /* the slots that could be busy: min(-j, runs to run) */
	double idle;            /* slot-seconds idle */
};

/* A run ended: the time since the last one ended, `running` going. */
static void times_tick(struct sw_times *t, size_t running)
{
	double dt = since(&t->last);
	if (running < t->par)
		t->idle += (double)(t->par - running) * dt;
	clock_gettime(CLOCK_MONOTONIC, &t->last);
}

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec * 1e-6;
}

static void times_print(const struct sw_times *t, size_t nq)
{
	if (!nq)
		return;
	struct rusage self, kids;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	fprintf(stderr, "hetlab sweep: [time] %zu runs in %.2f s, %zu at a time; CPU s: the runs %.2f, "
	        "this process %.2f; run slots idle %.2f s\n", nq, since(&t->t0), t->par,
	        tv_s(&kids.ru_utime) + tv_s(&kids.ru_stime), tv_s(&self.ru_utime) + tv_s(&self.ru_stime),
	        t->idle);
}

/* How the finished runs' metrics were read: from their own run_metric
 * table, or computed from the whole database (older runs, another build,
 * another window). */
static void loads_print(const struct sweep_result *res, const bool *have, size_t nrun)
{
	size_t ok = 0, stored = 0;
	for (size_t k = 0; k < nrun; k++)
		if (have[k] && res[k].status == SWEEP_OK) {
			ok++;
			stored += res[k].stored;
		}
	if (ok)
		fprintf(stderr, "hetlab sweep: [load] metrics of %zu runs: %zu from their run_metric "
		        "table, %zu computed from the whole database\n", ok, stored, ok - stored);
}

/* ---- Slurm: one job array, one task per point ---------------------------------- */

/* Appends 'text' shell-quoted to buf (single quotes). -1 when the text holds a
 * single quote (refused) or buf is too small. */
static int sh_quote(char *buf, size_t len, const char *text)
{
	if (strchr(text, '\'')) {
		fprintf(stderr, "hetlab sweep: --slurm: refusing a path with a single quote: %s\n", text);
		return -1;
	}
	size_t off = strlen(buf);
	if (off + strlen(text) + 3 >= len) {
		fprintf(stderr, "hetlab sweep: --slurm: path too long: %s\n", text);
		return -1;
	}
	snprintf(buf + off, len - off, " '%s'", text);
	return 0;
}

/* Runs argv (execvp, no shell) with stdout (and stderr too when `both`)
 * read into out. The exit status, 127 when it could not run; -1 when fork
 * or pipe fails. */
static int run_capture(char *const *argv, bool both, char *out, size_t outlen)
{
	int fd[2];
	out[0] = '\0';
	if (pipe(fd) < 0)
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], 1);
		if (both)
			dup2(fd[1], 2);
		close(fd[1]);
		execvp(argv[0], argv);
		fprintf(stderr, "hetlab sweep: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	size_t n = 0;
	for (;;) {
		char tmp[512];
		ssize_t r = read(fd[0], tmp, sizeof tmp);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (ssize_t q = 0; q < r && n + 1 < outlen; q++)
			out[n++] = tmp[q];
	}
	out[n] = '\0';
	close(fd[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

struct slurm_opts {
	const char *partition;
	long max_parallel;      /* 0 = no limit */
	const char **extra;     /* --sbatch-arg values, in order */
	size_t nextra;
	bool wait;
};

/* The measurement window as the options that give it (" --warmup 86400s
 * --arrivals-only"), empty when none was given: the array's runs store
 * their metrics within the sweep's window, and the merge printed for later
 * summarises within it. */
static void window_opts(const struct metric_window *w, char *buf, size_t n)
{
	buf[0] = '\0';
	if (!w->given)
		return;
	size_t off = 0;
	if (w->warmup_s > 0 || (w->cooldown_s <= 0 && w->until != METRIC_UNTIL_ARRIVALS))
		off += (size_t)snprintf(buf + off, n - off, " --warmup %.17gs", w->warmup_s);
	if (off < n && w->cooldown_s > 0)
		off += (size_t)snprintf(buf + off, n - off, " --cooldown %.17gs", w->cooldown_s);
	if (off < n && w->until == METRIC_UNTIL_ARRIVALS)
		snprintf(buf + off, n - off, " --arrivals-only");
}

/* Submits the grid as one job array; the job id into id. 0, or -1. */
static int slurm_submit(const struct sweep_grid *g, const char *exe, const char *file,
                        const char *traces, long par, const struct metric_window *win,
                        const struct slurm_opts *so, char *id, size_t idlen)
{
	char *afile = realpath(file, NULL), *aout = realpath(g->out, NULL);
	char *atr = traces ? realpath(traces, NULL) : NULL;
	int rc = -1;
	char wrap[4 * PATH_MAX + 256] = "exec", array[64], outopt[PATH_MAX + 64];
	char part[256], ans[4096];
	const char **av = NULL;
	if (!afile || !aout || (traces && !atr)) {
		fprintf(stderr, "hetlab sweep: --slurm: cannot resolve %s: %s\n",
		        !afile ? file : !aout ? g->out : traces, strerror(errno));
		goto out;
	}
	if (sh_quote(wrap, sizeof wrap, exe) < 0)
		goto out;
	strcat(wrap, " sweep");
	if (sh_quote(wrap, sizeof wrap, afile) < 0)
		goto out;
	strcat(wrap, " --out");
	if (sh_quote(wrap, sizeof wrap, aout) < 0)
		goto out;
	if (atr) {
		strcat(wrap, " --traces");
		if (sh_quote(wrap, sizeof wrap, atr) < 0)
			goto out;
	}
	size_t off = strlen(wrap);
	if (par > 1)
		off += (size_t)snprintf(wrap + off, sizeof wrap - off, " -j %ld", par);
	char wopts[160];
	window_opts(win, wopts, sizeof wopts);
	snprintf(wrap + off, sizeof wrap - off, "%s --point \"$SLURM_ARRAY_TASK_ID\"", wopts);
	if (so->max_parallel > 0)
		snprintf(array, sizeof array, "--array=0-%zu%%%ld", g->npoint - 1, so->max_parallel);
	else
		snprintf(array, sizeof array, "--array=0-%zu", g->npoint - 1);
	snprintf(outopt, sizeof outopt, "--output=%s/slurm-%%A_%%a.out", aout);
	if (so->partition)
		snprintf(part, sizeof part, "--partition=%s", so->partition);
	if (!(av = calloc(so->nextra + 12, sizeof *av))) {
		fprintf(stderr, "hetlab sweep: out of memory\n");
		goto out;
	}
	size_t n = 0;
	av[n++] = "sbatch";
	av[n++] = "--parsable";
	av[n++] = "--job-name=hetlab-sweep";
	av[n++] = array;
	av[n++] = outopt;
	if (so->partition)
		av[n++] = part;
	for (size_t k = 0; k < so->nextra; k++)
		av[n++] = so->extra[k];
	av[n++] = "--wrap";
	av[n++] = wrap;
	av[n] = NULL;
	int st = run_capture((char *const *)av, false, ans, sizeof ans);
	ans[strcspn(ans, ";\n")] = '\0';
	if (st != 0 || !ans[0] || strspn(ans, "0123456789") != strlen(ans)) {
		fprintf(stderr, "hetlab sweep: sbatch failed (%s%d)%s%s\n",
		        st < 0 ? "fork: " : "exit status ", st < 0 ? errno : st, ans[0] ? ": " : "", ans);
		goto out;
	}
	snprintf(id, idlen, "%s", ans);
	rc = 0;
out:
	free(av);
	free(afile);
	free(aout);
	free(atr);
	return rc;
}

/* Polls `squeue -h -j ID` every second until the array is gone. 0, or -1
 * when squeue keeps failing. */
static int slurm_wait(const char *id)
{
	char *av[] = { (char *)"squeue", (char *)"-h", (char *)"-j", (char *)id, NULL };
	char ans[8192];
	int bad = 0;
	for (;;) {
		int st = run_capture(av, true, ans, sizeof ans);
		if (st == 0 && ans[strspn(ans, " \t\n")] == '\0')
			return 0;
		if (st != 0 && strstr(ans, "Invalid job id"))
			return 0;   /* already purged */
		if (st != 0 && ++bad >= 30) {
			fprintf(stderr, "hetlab sweep: squeue -j %s keeps failing: %s\n", id, ans);
			return -1;
		}
		if (st == 0)
			bad = 0;
		struct timespec ts = { 1, 0 };
		nanosleep(&ts, NULL);
	}
}

int cmd_sweep(int argc, char **argv)
{
	const char *file = NULL, *out = NULL, *traces = NULL;
	long par = 1, pointarg = -1;
	bool dry = false, merge = false, slurm = false, slurm_only = false;
	struct slurm_opts so = { 0 };
	const char **extra = calloc((size_t)argc + 1, sizeof *extra);
	tmpclean_install();   /* SIGINT, SIGTERM: temporary files removed, the runs stopped */
	if (!extra) {
		fprintf(stderr, "hetlab sweep: out of memory\n");
		return 1;
	}
	so.extra = extra;
	struct metric_window win = { 0 };
	struct cli_args p;
	int c;
	long long v;
	cli_args_init(&p, "sweep", argc, argv);
	while ((c = cli_next(&p)) != CLI_END)
		switch (c) {
		case CLI_HELP: free(extra); return CLI_OK;
		case CLI_ERR: goto bad;
		case OPT_WARMUP:
		case OPT_COOLDOWN:
		case OPT_ARRIVALS_ONLY:
			if (cli_window_opt(&p, c, &win))
				goto bad;
			break;
		case OPT_DRY_RUN: dry = true; break;
		case OPT_MERGE: merge = true; break;
		case OPT_SLURM: slurm = true; break;
		case OPT_WAIT: so.wait = slurm_only = true; break;
		case OPT_POINT:
			if (cli_long(&p, 0, LONG_MAX - 1, &v))
				goto bad;
			pointarg = (long)v;
			break;
		case OPT_MAX_PARALLEL:
			if (cli_long(&p, 1, 1000000, &v))
				goto bad;
			so.max_parallel = (long)v;
			slurm_only = true;
			break;
		case OPT_PARTITION: so.partition = p.val; slurm_only = true; break;
		case OPT_SBATCH_ARG: extra[so.nextra++] = p.val; slurm_only = true; break;
		case OPT_JOBS:
			if (cli_long(&p, 1, 1024, &v))
				goto bad;
			par = (long)v;
			break;
		case OPT_OUT: out = p.val; break;
		case OPT_TRACES: traces = p.val; break;
		case CLI_POS:
			if (file) {
				cli_usage(&p, "one sweep file only (also got '%s')", p.val);
				goto bad;
			}
			file = p.val;
			break;
		}
	if (!file) {
		cli_usage(&p, "missing SWEEP.json");
		goto bad;
	}
	if (dry + merge + slurm + (pointarg >= 0) > 1) {
		cli_usage(&p, "--dry-run, --merge, --slurm and --point exclude each other");
		goto bad;
	}
	if (slurm_only && !slurm) {
		cli_usage(&p, "--partition, --max-parallel, --sbatch-arg and --wait need --slurm");
		goto bad;
	}

	char err[1024];
	struct sweep_grid g;
	if (sweep_load(file, out, &g, err, sizeof err) < 0) {
		fprintf(stderr, "hetlab sweep: %s\n", err);
		free(extra);
		return 1;
	}
	int rc = 1;
	size_t only = SIZE_MAX;
	char *mwin = NULL;   /* --store-metrics of the runs */
	if (pointarg >= 0) {
		if ((unsigned long)pointarg >= g.npoint) {
			fprintf(stderr, "hetlab sweep: %s: --point %ld: the sweep has points 0 to %zu\n",
			        file, pointarg, g.npoint - 1);
			sweep_grid_fini(&g);
			free(extra);
			return 2;
		}
		only = (size_t)pointarg;
	}
	size_t nrun = g.npoint * g.nseed, ndone = 0, nq = 0, nfailed = 0;
	struct sweep_result *res = calloc(nrun, sizeof *res);
	bool *have = calloc(nrun, sizeof *have);
	struct sw_job *jobs = calloc(nrun, sizeof *jobs);
	size_t *queue = calloc(nrun, sizeof *queue);
	if (!res || !have || !jobs || !queue) {
		fprintf(stderr, "hetlab sweep: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < g.npoint; i++)
		for (size_t s = 0; s < g.nseed; s++) {
			size_t k = i * g.nseed + s;
			struct sw_job *j = &jobs[k];
			j->point = i;
			j->seed = g.seed[s];
			j->db = sweep_run_db(&g, i, g.seed[s]);
			char *dir = sweep_point_dir(&g, i);
			if (!j->db || !dir || asprintf(&j->scenario, "%s/scenario.json", dir) < 0) {
				j->scenario = NULL;
				free(dir);
				fprintf(stderr, "hetlab sweep: out of memory\n");
				goto out;
			}
			free(dir);
			char lerr[512];
			if (sweep_result_load(j->db, i, g.seed[s], &win, &res[k], lerr, sizeof lerr) == 0) {
				have[k] = true;
				ndone++;
			} else if (only == SIZE_MAX || i == only) {
				queue[nq++] = k;
			}
		}

	if (check_metric_labels(&g) < 0)
		goto out;
	if (dry) {
		if (check_points_text(&g, NULL) < 0)
			goto out;
		printf("hetlab sweep: %s: %zu points x %zu seeds = %zu runs, %zu done, %zu to run -> %s\n",
		       file, g.npoint, g.nseed, nrun, ndone, nq, g.out);
		for (size_t i = 0; i < g.npoint; i++) {
			char label[1024];
			size_t d = 0;
			for (size_t s = 0; s < g.nseed; s++)
				d += have[i * g.nseed + s];
			point_label(&g, i, label, sizeof label);
			printf("  point-%-4zu %zu/%zu done  %s\n", i, d, g.nseed, label);
		}
		rc = 0;
		goto out;
	}

	if (merge) {
		struct stat sb;
		if (stat(g.out, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
			fprintf(stderr, "hetlab sweep: --merge: %s: no such directory, nothing to merge\n",
			        g.out);
			goto out;
		}
		if (prepare_points(&g, SIZE_MAX, false) < 0)
			goto out;
		nq = 0;   /* nothing runs */
	} else {
		if (make_dirs(g.out) < 0) {
			fprintf(stderr, "hetlab sweep: cannot create %s: %s\n", g.out, strerror(errno));
			goto out;
		}
		if (prepare_points(&g, only, true) < 0)
			goto out;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n < 0) {
		fprintf(stderr, "hetlab sweep: /proc/self/exe: %s\n", strerror(errno));
		goto out;
	}
	exe[n] = '\0';
	if (!(mwin = win.given ? metric_window_to_json_text(&win) : strdup("own"))) {
		fprintf(stderr, "hetlab sweep: out of memory\n");
		goto out;
	}

	if (slurm) {
		char id[64];
		if (slurm_submit(&g, exe, file, traces, par, &win, &so, id, sizeof id) < 0)
			goto out;
		printf("hetlab sweep: %s: submitted job array %s: %zu points x %zu seeds = %zu runs, "
		       "%zu already done -> %s\n", file, id, g.npoint, g.nseed, nrun, ndone, g.out);
		if (!so.wait) {
			char wopts[160];
			window_opts(&win, wopts, sizeof wopts);
			printf("when it is done: hetlab sweep %s --out %s%s --merge\n", file, g.out, wopts);
			rc = 0;
			goto out;
		}
		fflush(stdout);
		if (slurm_wait(id) < 0)
			goto out;
		fprintf(stderr, "hetlab sweep: job array %s is done, merging\n", id);
		nq = 0;
		merge = true;
	} else if (!merge) {
		if (only == SIZE_MAX)
			fprintf(stderr, "hetlab sweep: %s: %zu points x %zu seeds = %zu runs, %zu already "
			        "done, running %zu, %ld at a time -> %s\n", file, g.npoint, g.nseed, nrun,
			        ndone, nq, par, g.out);
		else
			fprintf(stderr, "hetlab sweep: %s: point %zu of %zu: %zu seeds, %zu already done, "
			        "running %zu, %ld at a time -> %s\n", file, only, g.npoint, g.nseed,
			        g.nseed - nq, nq, par, g.out);
	}

	struct sweepq sq;
	size_t *rslot = calloc((size_t)par, sizeof *rslot);
	if (!rslot || sweepq_init(&sq, g.npoint, g.nseed, queue, nq) < 0) {
		free(rslot);
		fprintf(stderr, "hetlab sweep: out of memory\n");
		goto out;
	}
	struct sw_times tw = { .par = (size_t)par < nq ? (size_t)par : nq };
	clock_gettime(CLOCK_MONOTONIC, &tw.t0);
	tw.last = tw.t0;
	size_t running = 0, finished = 0;
	bool loop_ok = false;
	bool one_thread = (size_t)par >= cpus_usable();
	while (sq.left > 0 || running > 0) {
		if (fill_slots(jobs, &sq, rslot, &running, (size_t)par, one_thread, exe, mwin, traces) < 0)
			goto loop_out;
		int st;
		pid_t pid = waitpid(-1, &st, 0);
		tmpclean_child_done(pid);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "hetlab sweep: waitpid: %s\n", strerror(errno));
			goto loop_out;
		}
		size_t q = 0;
		while (q < running && jobs[rslot[q]].pid != pid)
			q++;
		if (q == running)
			continue;   /* not one of ours */
		size_t k = rslot[q];
		struct sw_job *j = &jobs[k];
		double secs = since(&j->t0);
		times_tick(&tw, running);
		j->pid = 0;
		rslot[q] = rslot[--running];
		finished++;
		sweepq_done(&sq, k, secs);
		/* The next run starts before this one's results are read: no
		 * core waits on the parent. */
		if (fill_slots(jobs, &sq, rslot, &running, (size_t)par, one_thread, exe, mwin, traces) < 0)
			goto loop_out;
		char note[640];
		int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
		int r;
		if (code == 0 && sweep_result_load(j->db, j->point, j->seed, &win, &res[k], note,
		                                   sizeof note) == 0) {
			r = 0;
		} else {
			if (code != 0 && WIFSIGNALED(st))
				snprintf(note, sizeof note, "killed by signal %d", WTERMSIG(st));
			else if (code != 0)
				snprintf(note, sizeof note, "exit status %d", code);
			r = sweep_result_failed(&res[k], j->point, j->seed, code, note);
			nfailed++;
		}
		if (r < 0) {
			fprintf(stderr, "hetlab sweep: out of memory\n");
			goto out;
		}
		have[k] = true;
		fprintf(stderr, "hetlab sweep: [%zu/%zu] point %zu seed %" PRIu64 ": %s (%.2f s)\n",
		        finished, nq, j->point, j->seed,
		        res[k].status == SWEEP_OK ? "ok" : res[k].note, secs);
	}
	loop_ok = true;
loop_out:
	sweepq_fini(&sq);
	free(rslot);
	if (!loop_ok)
		goto out;

	if (only != SIZE_MAX) {
		/* One point of a distributed sweep: no summary (--merge writes it). */
		loads_print(res, have, nrun);
		times_print(&tw, nq);
		fprintf(stderr, "hetlab sweep: %s: point %zu: %zu runs, %zu ok, %zu failed -> %s\n",
		        file, only, g.nseed, g.nseed - nfailed, nfailed, g.out);
		rc = nfailed ? 1 : 0;
		goto out;
	}
	if (merge) {
		/* Every run without a finished database is recorded as failed. */
		for (size_t k = 0; k < nrun; k++) {
			if (have[k])
				continue;
			char lerr[512], note[640];
			if (sweep_result_load(jobs[k].db, jobs[k].point, jobs[k].seed, &win, &res[k], lerr,
			                      sizeof lerr) == 0) {
				have[k] = true;   /* finished since the start (--slurm --wait) */
				continue;
			}
			snprintf(note, sizeof note, "not finished: %s", lerr);
			if (sweep_result_failed(&res[k], jobs[k].point, jobs[k].seed, -1, note) < 0) {
				fprintf(stderr, "hetlab sweep: out of memory\n");
				goto out;
			}
			have[k] = true;
			nfailed++;
		}
	}

	char created[32], sumpath[PATH_MAX + 16];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(sumpath, sizeof sumpath, "%s/summary.db", g.out);
	tmpclean_stale(sumpath, err, sizeof err);
	int slot = tmpclean_watch(sumpath);
	int wrc = sweep_summary_write(&g, res, nrun, sumpath, created, err, sizeof err);
	tmpclean_drop(slot);
	if (wrc < 0) {
		fprintf(stderr, "hetlab sweep: %s\n", err);
		goto out;
	}
	loads_print(res, have, nrun);
	times_print(&tw, nq);
	printf("hetlab sweep: %s: %zu runs, %zu ok, %zu failed -> %s\n\n", file, nrun,
	       nrun - nfailed, nfailed, sumpath);
	if (sweep_print_table(&g, res, nrun, stdout) < 0)
		goto out;
	rc = nfailed ? 1 : 0;
out:
	for (size_t k = 0; jobs && k < nrun; k++) {
		if (jobs[k].pid > 0)
			waitpid(jobs[k].pid, NULL, 0);
		free(jobs[k].db);
		free(jobs[k].scenario);
		if (have && have[k])
			sweep_result_fini(&res[k]);
	}
	free(jobs);
	free(queue);
	free(have);
	free(mwin);
	free(res);
	sweep_grid_fini(&g);
	free(extra);
	return rc;
bad:
	free(extra);
	return 2;
}
