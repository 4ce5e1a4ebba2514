/* hetlab sweep — a grid of scenario variants × seeds, run N at a time.
 *
 * Each run is its own process: fork + execv of this binary (/proc/self/exe)
 * as `hetlab run POINT/scenario.json --seed N --out POINT/seed-N.db --quiet`,
 * never through a shell. A run whose database already exists and reads as a
 * finished run is skipped (hetlab run writes it only on success, through a
 * temporary name), so a re-run resumes an interrupted sweep. The summary is
 * written at the end from the databases, sorted by point and seed, so it
 * does not depend on which runs finished first. docs/sweep.md. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis/sweep.h"
#include "cli/cmd.h"
#include "traces/scenario.h"
#include "traces/sweepload.h"

#define USAGE "usage: hetlab sweep SWEEP.json [-j N] [--out DIR] [--traces DIR] [--dry-run]\n"

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
	FILE *f = fopen(tmp, "wb");
	if (!f)
		return -1;
	size_t n = strlen(text);
	int bad = fwrite(text, 1, n, f) != n;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) < 0) {
		int e = errno;
		unlink(tmp);
		errno = e ? e : EIO;
		return -1;
	}
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

/* Loads one point's scenario file, so that a value the scenario rejects is
 * reported with the point before anything runs. */
static int check_point(const struct sweep_grid *g, size_t i, const char *path)
{
	char err[1024], label[512];
	struct scenario sc;
	int r = scenario_load(path, &sc, err, sizeof err);
	if (r < 0) {
		point_label(g, i, label, sizeof label);
		fprintf(stderr, "hetlab sweep: %s: point %zu (%s): %s\n", g->file, i, label, err);
	}
	scenario_free(&sc);
	return r < 0 ? -1 : 0;
}

/* Writes (or checks) each point's scenario.json and loads it once, so a
 * value the scenario rejects is reported before anything runs. */
static int prepare_points(const struct sweep_grid *g)
{
	for (size_t i = 0; i < g->npoint; i++) {
		char *dir = sweep_point_dir(g, i), path[PATH_MAX + 32];
		if (!dir) {
			fprintf(stderr, "hetlab sweep: out of memory\n");
			return -1;
		}
		snprintf(path, sizeof path, "%s/scenario.json", dir);
		if (make_dirs(dir) < 0) {
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
		if (!old && write_atomic(path, g->point[i].scenario) < 0) {
			fprintf(stderr, "hetlab sweep: cannot write %s: %s\n", path, strerror(errno));
			return -1;
		}
		free(old);
		if (check_point(g, i, path) < 0)
			return -1;
	}
	return 0;
}

/* --dry-run: each point's scenario checked from a temporary file. */
static int check_points_tmp(const struct sweep_grid *g)
{
	const char *td = getenv("TMPDIR");
	char path[PATH_MAX];
	for (size_t i = 0; i < g->npoint; i++) {
		snprintf(path, sizeof path, "%s/hetlab-sweep-XXXXXX", td && *td ? td : "/tmp");
		int fd = mkstemp(path);
		if (fd < 0) {
			fprintf(stderr, "hetlab sweep: cannot create a temporary file: %s\n", strerror(errno));
			return -1;
		}
		size_t n = strlen(g->point[i].scenario);
		int bad = write(fd, g->point[i].scenario, n) != (ssize_t)n;
		bad |= close(fd) != 0;
		int r = bad ? -1 : check_point(g, i, path);
		if (bad)
			fprintf(stderr, "hetlab sweep: cannot write %s\n", path);
		unlink(path);
		if (r < 0)
			return -1;
	}
	return 0;
}

struct sw_job {
	size_t point;
	uint64_t seed;
	char *db;
	char *scenario;
	pid_t pid;
	struct timespec t0;
};

static pid_t spawn(const char *exe, const struct sw_job *j, const char *traces)
{
	char seed[32];
	snprintf(seed, sizeof seed, "%" PRIu64, j->seed);
	char *av[] = { (char *)"hetlab", (char *)"run", j->scenario, (char *)"--seed", seed,
		(char *)"--out", j->db, (char *)"--quiet", (char *)"--traces", (char *)traces, NULL };
	if (!traces)
		av[8] = NULL;
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		execv(exe, av);
		fprintf(stderr, "hetlab sweep: cannot run %s: %s\n", exe, strerror(errno));
		_exit(127);
	}
	return pid;
}

static double since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static void usage_err(const char *fmt, const char *arg)
{
	fprintf(stderr, "hetlab sweep: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n" USAGE);
}

int cmd_sweep(int argc, char **argv)
{
	const char *file = NULL, *out = NULL, *traces = NULL;
	long par = 1;
	bool dry = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			printf(USAGE);
			return 0;
		} else if (strcmp(a, "--dry-run") == 0) {
			dry = true;
		} else if (strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0 || strncmp(a, "-j", 2) == 0) {
			const char *v = a[2] && a[1] == 'j' ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
			char *end;
			if (!v) {
				usage_err("%s needs a number", a);
				return 2;
			}
			errno = 0;
			par = strtol(v, &end, 10);
			if (errno || *end || end == v || par < 1 || par > 1024) {
				usage_err("-j: expected an integer in [1, 1024], got '%s'", v);
				return 2;
			}
		} else if (strcmp(a, "--out") == 0 || strcmp(a, "--traces") == 0) {
			if (i + 1 >= argc) {
				usage_err("%s needs a value", a);
				return 2;
			}
			*(a[2] == 'o' ? &out : &traces) = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			usage_err("unknown option '%s'", a);
			return 2;
		} else if (file) {
			usage_err("one sweep file only (also got '%s')", a);
			return 2;
		} else {
			file = a;
		}
	}
	if (!file) {
		usage_err("%s", "missing SWEEP.json");
		return 2;
	}

	char err[1024];
	struct sweep_grid g;
	if (sweep_load(file, out, &g, err, sizeof err) < 0) {
		fprintf(stderr, "hetlab sweep: %s\n", err);
		return 1;
	}
	int rc = 1;
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
			if (sweep_result_load(j->db, i, g.seed[s], &res[k], lerr, sizeof lerr) == 0) {
				have[k] = true;
				ndone++;
			} else {
				queue[nq++] = k;
			}
		}

	if (dry) {
		if (check_points_tmp(&g) < 0)
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

	if (make_dirs(g.out) < 0) {
		fprintf(stderr, "hetlab sweep: cannot create %s: %s\n", g.out, strerror(errno));
		goto out;
	}
	if (prepare_points(&g) < 0)
		goto out;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n < 0) {
		fprintf(stderr, "hetlab sweep: /proc/self/exe: %s\n", strerror(errno));
		goto out;
	}
	exe[n] = '\0';
	fprintf(stderr, "hetlab sweep: %s: %zu points x %zu seeds = %zu runs, %zu already done, "
	        "running %zu, %ld at a time -> %s\n", file, g.npoint, g.nseed, nrun, ndone, nq, par,
	        g.out);

	size_t next = 0, running = 0, finished = 0;
	while (next < nq || running > 0) {
		while (running < (size_t)par && next < nq) {
			struct sw_job *j = &jobs[queue[next]];
			clock_gettime(CLOCK_MONOTONIC, &j->t0);
			j->pid = spawn(exe, j, traces);
			if (j->pid < 0) {
				fprintf(stderr, "hetlab sweep: fork: %s\n", strerror(errno));
				if (running == 0)
					goto out;
				break;   /* wait for one to end and try again */
			}
			next++;
			running++;
		}
		int st;
		pid_t pid = waitpid(-1, &st, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "hetlab sweep: waitpid: %s\n", strerror(errno));
			goto out;
		}
		size_t k = nrun;
		for (size_t q = 0; q < next; q++)
			if (jobs[queue[q]].pid == pid) {
				k = queue[q];
				break;
			}
		if (k == nrun)
			continue;   /* not one of ours */
		struct sw_job *j = &jobs[k];
		j->pid = 0;
		running--;
		finished++;
		char note[640];
		int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
		int r;
		if (code == 0 && sweep_result_load(j->db, j->point, j->seed, &res[k], note,
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
		        res[k].status == SWEEP_OK ? "ok" : res[k].note, since(&j->t0));
	}

	char created[32], sumpath[PATH_MAX + 16];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(sumpath, sizeof sumpath, "%s/summary.db", g.out);
	if (sweep_summary_write(&g, res, nrun, sumpath, created, err, sizeof err) < 0) {
		fprintf(stderr, "hetlab sweep: %s\n", err);
		goto out;
	}
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
	free(res);
	sweep_grid_fini(&g);
	return rc;
}
