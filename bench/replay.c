/* replay — how long a trace replay takes, against how long reading the trace
 * takes.
 *
 *   replay SCENARIO.json [POLICY] [--runs N] [--traces DIR] [--levels]
 *
 * Three things are timed, each `--runs` times (default 5), and the median is
 * reported:
 *   parse      trace_swf_read of the scenario's trace, then free;
 *   replay     exactly what `hetlab run` does, through the same
 *              composition root (run_assemble, config/runasm.h), without a
 *              results file: scenario_load, the policy and its parameters,
 *              trace read, cluster sized from the trace, labels and blocks
 *              bound, policy init, sim_init, the health monitor when the
 *              scenario has one, sim_run, teardown (the time inside sim_run
 *              is shown beside it);
 *   +sqlite    the same with the results file, as `hetlab run --out`
 *              writes it, to a temporary file at the default recording
 *              level (with --levels: at every level), removed afterwards.
 * The replays with and without the recorder alternate, so that a change
 * of the machine's load touches both. Each is timed in wall-clock seconds,
 * in CPU seconds of the process (the recorder's writer thread included),
 * and in CPU seconds of the engine's thread alone (what a run takes when
 * the writer has a core of its own). The recorder's cost is printed as the
 * ratio of the medians, with the results file's size.
 * The policy is POLICY, else the scenario's (which is easy when it names
 * none), with the scenario's policy_params, as `hetlab run --policy`. The trace directory for "$TRACES/..." paths is --traces, else
 * $HETLAB_TRACES, else ../shared/traces, as for `hetlab run`.
 *
 * Peak RSS (getrusage ru_maxrss) is read after each phase; it only grows, so
 * each figure is the peak up to the end of that phase.
 *
 * Each round runs the parse, the replay without the recorder, with it, and
 * with it written on the engine's thread (`--threads 1`), one after the
 * other; the CPU ratios are taken per round and their medians printed.
 *
 * Targets (issue 34, in CPU time: user + system of the process), printed
 * for any scenario, set for LANL-CM5 with easy: the replay with its
 * results file at the default level takes at most 3x the CPU of the parse
 * alone, and at most 1.5x the CPU of the replay without one; its file is
 * at most 40 % of the 109.4 MiB that the recorder of schema 1 wrote for it
 * (43.8 MiB). Wall-clock ratios are printed beside them.
 *
 * Exit status: 0 (whether or not the target is met); 1 on any error;
 * 2 on bad arguments; 77 when the trace file is missing (bench/run.sh then
 * skips the benchmark). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench/benchutil.h"
#include "analysis/recorder.h"
#include "config/runasm.h"
#include "config/scenario.h"
#include "policies/policy.h"
#include "sim/engine.h"
#include "traces/trace.h"

#define USAGE "usage: replay SCENARIO.json [POLICY] [--runs N] [--traces DIR] [--levels]\n"
#define TARGET_RATIO 3.0             /* replay with the results file / parse, CPU */
#define TARGET_RECORDER 1.5          /* with / without the recorder, default level, CPU */
#define SCHEMA1_LANL_MIB 109.4       /* the LANL-CM5 file of schema 1 (docs/audit.md) */
#define TARGET_FILE_SHARE 0.40
#define MAX_RUNS BENCH_MAX_RUNS
#define EXIT_SKIP 77

struct opts {
	const char *scenario, *policy, *traces;
	int runs;
	bool levels;
};

/* What one replay measured. */
struct outcome {
	double total_s, cpu_s, main_s, sim_s;
	int32_t njobs, nnodes;
	uint64_t nevents, npasses;
	simtime end;
};


static double cpu_now_s(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* CPU seconds of the calling thread: the engine's (the recorder's writer
 * thread is the rest of the process's). */
static double thread_cpu_s(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double peak_rss_mib(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return -1;
	return (double)ru.ru_maxrss / 1024.0;   /* KiB on Linux */
}

static const char *traces_dir(const struct opts *o)
{
	const char *env = getenv("HETLAB_TRACES");
	if (o->traces && *o->traces)
		return o->traces;
	if (env && *env)
		return env;
	return "../shared/traces";
}

static int read_trace(const char *path, bool lenient, struct workload *w, char *err, size_t errlen)
{
	struct swf_opts so = { .lenient = lenient };
	return trace_swf_read(path, &so, w, err, errlen);
}

/* Loads the scenario and resolves its trace; the caller frees sc. */
static int load(const struct opts *o, struct scenario *sc, char *tpath, size_t tlen,
                char *err, size_t errlen)
{
	if (scenario_load(o->scenario, sc, err, errlen))
		return -1;
	if (sc->from_inventory && scenario_build_inventory(sc, traces_dir(o), err, errlen)) {
		scenario_free(sc);
		return -1;
	}
	if (sc->workload != SCN_TRACE) {
		snprintf(err, errlen, "%s: the scenario has a synthetic workload; replay needs a trace",
		         sc->file);
		scenario_free(sc);
		return -1;
	}
	scenario_trace_path(sc, traces_dir(o), tpath, tlen);
	return 0;
}

/* One parse-only run: seconds (its CPU seconds in *cpu), or -1. */
static double time_parse(const char *tpath, bool lenient, int32_t *njobs, double *cpu, char *err,
                         size_t errlen)
{
	struct workload w;
	workload_init(&w);
	double t0 = bench_now_s(), c0 = cpu_now_s();
	int r = read_trace(tpath, lenient, &w, err, errlen);
	*njobs = w.n;
	workload_free(&w);
	double dt = bench_now_s() - t0;
	*cpu = cpu_now_s() - c0;
	return r ? -1 : dt;
}

/* One full replay, with a recorder writing to db_path at `level` when
 * db_path is not NULL: the scenario loaded, then the run assembled, run
 * and sealed by the composition root exactly as `hetlab run` does
 * (config/runasm.h). 0 and *out filled, or -1 with err. */
static int time_replay(const struct opts *o, const char *db_path, enum record_level level,
                       bool one_thread, struct outcome *out, char *err, size_t errlen)
{
	struct scenario sc;
	struct run r;
	int rc = -1;

	double t0 = bench_now_s(), c0 = cpu_now_s(), m0 = thread_cpu_s();
	if (scenario_load(o->scenario, &sc, err, errlen))
		goto fail_load;
	struct recorder_opts ro = { .level = level, .one_thread = one_thread };
	struct run_opts ropt = { .policy = o->policy, .traces_dir = traces_dir(o),
	                         .out = db_path, .rec = &ro, .version = "bench" };
	if (run_assemble(&r, &sc, &ropt, err, errlen))
		goto fail_run;
	out->njobs = r.njobs;
	out->nnodes = r.nnodes;
	double ts = bench_now_s();
	if (run_go(&r, err, errlen)) {
		char msg[1024];
		snprintf(msg, sizeof msg, "%s: %s", sc.file, err);
		snprintf(err, errlen, "%s", msg);
		goto fail_run;
	}
	out->sim_s = bench_now_s() - ts;
	out->nevents = r.s->nevents;
	out->npasses = r.s->npasses;
	out->end = r.s->now;
	if (run_finish(&r, err, errlen))
		goto fail_run;
	rc = 0;

fail_run:
	run_free(&r);
	scenario_free(&sc);
fail_load:
	out->total_s = bench_now_s() - t0;
	out->cpu_s = cpu_now_s() - c0;
	out->main_s = thread_cpu_s() - m0;
	return rc;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof *o);
	o->runs = 5;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--levels") == 0) {
			o->levels = true;
			continue;
		}
		if (strcmp(a, "--runs") == 0 || strcmp(a, "--traces") == 0) {
			if (!val) {
				fprintf(stderr, "replay: %s needs a value\n" USAGE, a);
				return -1;
			}
			i++;
			if (a[2] == 't') {
				o->traces = val;
				continue;
			}
			char *end;
			long n = strtol(val, &end, 10);
			if (end == val || *end || n < 1 || n > MAX_RUNS) {
				fprintf(stderr, "replay: --runs: expected an integer in [1, %d], got '%s'\n",
				        MAX_RUNS, val);
				return -1;
			}
			o->runs = (int)n;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "replay: unknown option %s\n" USAGE, a);
			return -1;
		} else if (!o->scenario) {
			o->scenario = a;
		} else if (!o->policy) {
			o->policy = a;
		} else {
			fprintf(stderr, "replay: too many arguments ('%s')\n" USAGE, a);
			return -1;
		}
	}
	if (!o->scenario) {
		fprintf(stderr, "replay: no scenario given\n" USAGE);
		return -1;
	}
	return 0;
}

static off_t file_size(const char *path)
{
	off_t n = -1;
	FILE *f = fopen(path, "rb");
	if (f) {
		if (fseeko(f, 0, SEEK_END) == 0)
			n = ftello(f);
		fclose(f);
	}
	return n;
}

/* The medians of one phase over the runs. */
struct phase {
	double total_s[MAX_RUNS], cpu_s[MAX_RUNS], main_s[MAX_RUNS], sim_s[MAX_RUNS];
	double rss_mib;
	off_t bytes;
};

static void phase_add(struct phase *p, int r, const struct outcome *o)
{
	p->total_s[r] = o->total_s;
	p->cpu_s[r] = o->cpu_s;
	p->main_s[r] = o->main_s;
	p->sim_s[r] = o->sim_s;
	double rss = peak_rss_mib();
	p->rss_mib = rss > p->rss_mib ? rss : p->rss_mib;
}

static void phase_print(const char *name, const struct phase *p, int runs, uint64_t nevents)
{
	double sim = bench_median(p->sim_s, runs);
	printf("  %-26s %9.3f %8.3f %9.3f %9.3f %11.3f %13.1f\n", name, bench_median(p->total_s, runs),
	       bench_median(p->cpu_s, runs), bench_median(p->main_s, runs), sim,
	       (double)nevents / sim / 1e6, p->rss_mib);
}

int main(int argc, char **argv)
{
	struct opts o;
	char err[1024] = "", tpath[PATH_MAX + 64], db[PATH_MAX];
	struct scenario sc;
	struct outcome out;
	static struct phase plain, rec[RECORD_NLEVEL], rec1;
	double parse_s[MAX_RUNS], parse_c[MAX_RUNS], rss_parse = 0;
	double r_rec[MAX_RUNS], r_rec1[MAX_RUNS], r_parse[MAX_RUNS], r_parse0[MAX_RUNS];
	int32_t njobs = 0;

	if (parse_args(argc, argv, &o))
		return 2;
	if (load(&o, &sc, tpath, sizeof tpath, err, sizeof err)) {
		fprintf(stderr, "replay: %s\n", err);
		return 1;
	}
	bool lenient = sc.lenient;
	char pname[HL_NAME_MAX];
	snprintf(pname, sizeof pname, "%s", o.policy ? o.policy : sc.policy);
	bool in_trace_dir = strncmp(sc.trace, "$TRACES/", 8) == 0;
	scenario_free(&sc);
	if (!policy_find(pname)) {
		char names[256];
		policy_names(names, sizeof names);
		fprintf(stderr, "replay: unknown policy '%s' (known: %s)\n", pname, names);
		return 2;
	}
	if (access(tpath, R_OK) != 0) {
		fprintf(stderr, "replay: %s: trace %s: %s", o.scenario, tpath, strerror(errno));
		if (in_trace_dir)
			fprintf(stderr, " (point --traces or HETLAB_TRACES at a copy of the shared traces)");
		fputc('\n', stderr);
		return EXIT_SKIP;
	}

	/* A temporary name for the recorder's output; recorder_finish renames
	 * its own temporary file over it. */
	const char *tmpdir = getenv("TMPDIR");
	snprintf(db, sizeof db, "%s/hetlab-bench-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	int fd = mkstemp(db);
	if (fd < 0) {
		fprintf(stderr, "replay: cannot create a temporary file %s: %s\n", db, strerror(errno));
		return 1;
	}
	close(fd);

	/* Each round: the parse alone, the replay without a results file, with
	 * it (its writer thread beside the engine, as `hetlab run` by default),
	 * with it written by the engine's thread (--threads 1), one after the
	 * other, so that the machine's load weighs on all alike; the ratios
	 * are taken per round and their medians printed. */
	struct outcome first = { 0 };
	for (int r = 0; r < o.runs; r++) {
		if ((parse_s[r] = time_parse(tpath, lenient, &njobs, &parse_c[r], err, sizeof err)) < 0)
			goto fail;
		if (r == 0)
			rss_parse = peak_rss_mib();
		if (time_replay(&o, NULL, RECORD_DEFAULT, false, &out, err, sizeof err))
			goto fail;
		phase_add(&plain, r, &out);
		if (r == 0)
			first = out;
		for (int l = 0; l < RECORD_NLEVEL; l++) {
			if (l != RECORD_DEFAULT && !o.levels)
				continue;
			if (time_replay(&o, db, (enum record_level)l, false, &out, err, sizeof err))
				goto fail;
			phase_add(&rec[l], r, &out);
			rec[l].bytes = file_size(db);
		}
		if (time_replay(&o, db, RECORD_DEFAULT, true, &out, err, sizeof err))
			goto fail;
		phase_add(&rec1, r, &out);
		r_rec[r] = rec[RECORD_DEFAULT].cpu_s[r] / plain.cpu_s[r];
		r_rec1[r] = rec1.cpu_s[r] / plain.cpu_s[r];
		r_parse[r] = rec[RECORD_DEFAULT].cpu_s[r] / parse_c[r];
		r_parse0[r] = plain.cpu_s[r] / parse_c[r];
	}
	unlink(db);

	double mp = bench_median(parse_s, o.runs), mr = bench_median(plain.total_s, o.runs);
	double mrc = bench_median(plain.cpu_s, o.runs), mrm = bench_median(plain.main_s, o.runs);
	printf("replay %s, policy %s: %d jobs on %d nodes, %.1f simulated days, %llu events, "
	       "%llu passes; median of %d run(s)\n",
	       o.scenario, pname, first.njobs, first.nnodes, simtime_to_s(first.end) / 86400.0,
	       (unsigned long long)first.nevents, (unsigned long long)first.npasses, o.runs);
	printf("  trace %s (%d jobs)\n", tpath, njobs);
	printf("  %-26s %9s %8s %9s %9s %11s %13s\n", "phase", "total s", "cpu s", "engine s",
	       "sim_run s", "M events/s", "peak RSS MiB");
	printf("  %-26s %9.3f %8.3f %9s %9s %11s %13.1f\n", "parse only", mp, bench_median(parse_c, o.runs),
	       "-", "-", "-", rss_parse);
	phase_print("replay, no recorder", &plain, o.runs, first.nevents);
	for (int l = 0; l < RECORD_NLEVEL; l++) {
		if (l != RECORD_DEFAULT && !o.levels)
			continue;
		char name[64];
		snprintf(name, sizeof name, "replay, recorder (%s)", record_level_name((enum record_level)l));
		phase_print(name, &rec[l], o.runs, first.nevents);
	}
	phase_print("  the same, --threads 1", &rec1, o.runs, first.nevents);
	for (int l = 0; l < RECORD_NLEVEL; l++) {
		if (l != RECORD_DEFAULT && !o.levels)
			continue;
		printf("  recorder (%s): %.2fx the replay without it (wall), %.2fx (CPU), %.2fx (the"
		       " engine's thread); results file %.1f MiB\n", record_level_name((enum record_level)l),
		       bench_median(rec[l].total_s, o.runs) / mr, bench_median(rec[l].cpu_s, o.runs) / mrc,
		       bench_median(rec[l].main_s, o.runs) / mrm, (double)rec[l].bytes / (1024.0 * 1024.0));
	}
	double with = bench_median(rec[RECORD_DEFAULT].total_s, o.runs) / mr;
	double mib = (double)rec[RECORD_DEFAULT].bytes / (1024.0 * 1024.0);
	double cr = bench_median(r_rec, o.runs), cp = bench_median(r_parse, o.runs);
	printf("  recorder (%s) written by the engine's thread (--threads 1): %.2fx the replay without it"
	       " (CPU; medians of the rounds' ratios)\n", record_level_name(RECORD_DEFAULT),
	       bench_median(r_rec1, o.runs));
	printf("  replay / parse: %.2fx without recorder, %.2fx with it (wall); %.2fx and %.2fx (CPU, medians of"
	       " the rounds' ratios)\n", mr / mp, bench_median(rec[RECORD_DEFAULT].total_s, o.runs) / mp,
	       bench_median(r_parse0, o.runs), cp);
	/* The targets are in CPU time (user + system of the process, the
	 * writer thread included): what a sweep or a shared machine pays. */
	printf("  target: the results file (%s) at most %.1fx the CPU of the replay without it (set for LANL-CM5,"
	       " easy): %.2fx (wall %.2fx), %s\n", record_level_name(RECORD_DEFAULT), TARGET_RECORDER, cr, with,
	       cr <= TARGET_RECORDER ? "met" : "NOT met");
	printf("  target: the replay with its results file at most %.0fx the CPU of the parse alone (set for"
	       " LANL-CM5, easy): %.2fx, %s\n", TARGET_RATIO, cp, cp <= TARGET_RATIO ? "met" : "NOT met");
	printf("  target: results file within %.0f %% of schema 1's %.1f MiB (set for LANL-CM5, easy):"
	       " %.0f %%, %s\n", TARGET_FILE_SHARE * 100, SCHEMA1_LANL_MIB, mib / SCHEMA1_LANL_MIB * 100,
	       mib <= TARGET_FILE_SHARE * SCHEMA1_LANL_MIB ? "met" : "NOT met");
	return 0;

fail:
	unlink(db);
	fprintf(stderr, "replay: %s\n", err);
	return 1;
}
