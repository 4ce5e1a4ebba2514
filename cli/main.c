/* hetlab — the command-line front end: dispatch to one subcommand per file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cmd.h"

/* cli/cmd_bill.c (declared here rather than in cmd.h, which that change did not own). */
int cmd_bill(int argc, char **argv);

struct subcmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *help;
};

/* cli/cmd_audit.c (declared here rather than in cmd.h, which that change did not own). */
int cmd_audit(int argc, char **argv);

/* cli/cmd_live.c */
int cmd_live(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_queue(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_approve(int argc, char **argv);

/* cli/cmd_probe.c (declared here rather than in cmd.h, which that change did not own). */
int cmd_probe(int argc, char **argv);

static const struct subcmd cmds[] = {
	{ "run", cmd_run,
	  "hetlab run [SCENARIO] [--policy P] [--seed N | --seeds A-B] [--trace FILE] [--out DB|DIR] [--traces DIR]\n"
	  "             [--lenient] [--param K=V] [--scale-rate X] [--scale-size X] [--scale-class CLASS=X]\n"
	  "             [--placement STRATEGY] [--label-blind]",
	  "Runs a scenario (default: the embedded scenarios/guian.json) and writes\n"
	  "one SQLite database (default run.db). --trace replaces the scenario's\n"
	  "workload with a trace file (SWF, plain or .gz, or .jsonl). --param sets a\n"
	  "policy parameter. A progress line is shown on a terminal for runs over a\n"
	  "second. The --scale-* knobs grow a synthetic workload for planning: every\n"
	  "arrival rate × X, GPU and core counts × X, or one class's rate × X\n"
	  "(\"what if demand grows 40 %?\" is --scale-rate 1.4). --seeds A-B --out DIR\n"
	  "runs once per seed into DIR/seed-N.db: the same seed is the same workload\n"
	  "under every policy, so two such directories pair up for `hetlab compare`." },
	{ "report", cmd_report, "hetlab report RUN.DB [--format text|json|markdown|html] [--out FILE]",
	  "Summarises a run database: jobs, makespan, utilisation, waits,\n"
	  "bounded slowdown, per class. markdown gives the same tables in Markdown;\n"
	  "html one self-contained page with the figures of `hetlab plot` inlined\n"
	  "as SVG (gnuplot needed for the figures; without it the page has the\n"
	  "tables and a warning). --out writes FILE atomically." },
	{ "bill", cmd_bill, "hetlab bill RUN.DB [--period month|week|day] [--format text|json|csv] [--records]",
	  "Invoices per tenant and billing period from a run database, priced by\n"
	  "the scenario's \"billing\" block (or a default price list when the file\n"
	  "has none): GPU by model, MIG and share pricing, cores, memory, energy;\n"
	  "reserved and elastic plans; a reconciliation footer (exit 1 when it\n"
	  "does not reconcile). --records lists the usage records instead. See\n"
	  "docs/billing.md." },
	{ "trace", cmd_trace, "hetlab trace convert|inspect|fit|synth ...",
	  "hetlab trace convert IN OUT.jsonl [--lenient]\n"
	  "    converts SWF, JSON Lines or the Alibaba DLRM CSV to native JSON Lines.\n"
	  "hetlab trace inspect FILE [--json] [--by class|queue] [--plot DIR] [--lenient]\n"
	  "    prints a trace's statistics: arrivals by hour and weekday, size and\n"
	  "    duration percentiles, GPU-hours per model, per class or queue; --plot\n"
	  "    draws them with gnuplot (PNG and SVG) into DIR.\n"
	  "hetlab trace fit TRACE --out MODEL.json [--dist D | --empirical] [--burst-gap S]\n"
	  "    fits the synthetic generator to a trace: arrival rate by hour of week,\n"
	  "    size mixes, durations by maximum likelihood (lognormal, Weibull or gamma,\n"
	  "    the best by AIC). MODEL.json is a scenario's workload.synthetic block.\n"
	  "hetlab trace synth MODEL.json [--days N] [--seed S] [--scale-rate X] [--out T.jsonl]\n"
	  "                  [--compare TRACE]\n"
	  "    generates a trace from a model and prints Kolmogorov-Smirnov distances\n"
	  "    to the original (durations, inter-arrivals, sizes).\n"
	  "FILE and TRACE may be relative to the trace directory (--traces DIR,\n"
	  "$HETLAB_TRACES, ../shared/traces)." },
	{ "frag", cmd_frag,
	  "hetlab frag [TRACE_DIR] [--policies LIST] [--seeds A-B] [--inflate 1.3] [--out frag.db] [--plot DIR]",
	  "Runs the FGD paper's fragmentation experiment (openb GPU cluster, pods\n"
	  "inflated to 1.3x capacity, shuffled, placed one at a time) for each policy\n"
	  "and seed, writes frag.db and prints the allocation ratio at 100 % arrived\n"
	  "beside the paper's. Also --nodes FILE, --pods FILE." },
	{ "compare", cmd_compare, "hetlab compare DIR_A DIR_B [--metric M]... [--level L] [--format text|json|html] [--out FILE]",
	  "Compares two policies run over the same seeds (hetlab run --seeds A-B\n"
	  "--out DIR): pairs the runs by seed and gives, per metric, the mean\n"
	  "difference B - A with a Student-t (or bootstrap, for skewed differences)\n"
	  "interval, the Wilcoxon signed-rank p-value and a verdict (better, worse,\n"
	  "no significant difference). --metric picks metrics (default all), --level\n"
	  "the interval's level. See docs/compare.md." },
	{ "plot", cmd_plot, "hetlab plot RUN.DB -o DIR",
	  "Draws a run's figures with gnuplot into DIR, each as NAME.png and\n"
	  "NAME.svg beside its data (NAME.dat) and script (NAME.gp, redraw with\n"
	  "`gnuplot NAME.gp` in DIR): utilisation and queue length over time, the\n"
	  "waiting-time CDF per class, modelled IT power over time and core-hours\n"
	  "per tenant stacked over time. See docs/results.md." },
	{ "sweep", cmd_sweep, "hetlab sweep SWEEP.json [-j N] [--out DIR] [--traces DIR] [--dry-run]",
	  "Runs a grid of scenario variants x seeds: SWEEP.json names a scenario,\n"
	  "seeds and parameters (JSON paths into the scenario, such as\n"
	  "$.racks[0].count or $.policy, each with a list of values). Every point of\n"
	  "the Cartesian product gets OUT/point-<id>/scenario.json and one\n"
	  "seed-<N>.db per seed, each from its own `hetlab run` process, -j at a\n"
	  "time. Finished runs are skipped, so a re-run resumes. OUT/summary.db holds\n"
	  "one row per run with every headline metric. --dry-run lists the points.\n"
	  "See docs/sweep.md." },
	{ "plan", cmd_plan, "hetlab plan PLAN.json [-j N] [--out DIR] [--exhaustive] [--json]",
	  "Searches for the cheapest cluster that meets targets: integer variables\n"
	  "(JSON paths such as $.racks[0].count, each with a range and a capex per\n"
	  "unit), replicated runs per candidate, greedy climb then trim (or every\n"
	  "candidate with --exhaustive). Prints the candidates explored and the\n"
	  "answer with its confidence. See docs/planning.md." },
	{ "policies", cmd_policies, "hetlab policies",
	  "Lists the scheduling policies and their parameters." },
	{ "catalog", cmd_catalog, "hetlab catalog [--json] [--speed] [--mig [CARD]]",
	  "Lists the built-in hardware catalog: the GPU and CPU model names a\n"
	  "scenario's node types use, with their memory, power, throughput and\n"
	  "MIG support (sources in docs/catalog.md). --mig prints each MIG-capable\n"
	  "card's profiles with their slices and valid start positions; with a CARD,\n"
	  "also its number of valid full layouts." },
	{ "audit", cmd_audit, "hetlab audit verify|prune|export RUN.DB ...",
	  "hetlab audit verify [--archive FILE.jsonl.gz]... RUN.DB\n"
	  "    recomputes the results file's hash-chained audit log (from the first\n"
	  "    record, or from the anchor a prune sealed; with --archive, across the\n"
	  "    archives and the database as one chain) and prints OK with the count,\n"
	  "    or the first broken record's seq and what is wrong (exit status 1).\n"
	  "hetlab audit prune RUN.DB [--older-than DAYS | --before DAYS] [--archive FILE.jsonl.gz]\n"
	  "    moves the records older than DAYS (default 190, never under 183) before\n"
	  "    the newest, in simulated time, to a gzip JSON Lines archive and seals an\n"
	  "    anchor so that verify continues from it.\n"
	  "hetlab audit export RUN.DB [--out FILE.jsonl]\n"
	  "    writes the records as JSON Lines (stdout by default) for a mirror.\n"
	  "See docs/audit.md." },
	{ "probe", cmd_probe, "hetlab probe [--sysfs-root DIR] [--disk PATH] [--json] [--interval-ms N] [--topology-xml FILE]\n"
	  "             [--reading]",
	  "Prints what this host exposes to live mode, to check a node before it\n"
	  "joins: labels (CPU cores, memory, NICs, InfiniBand/RoCE ports with rate\n"
	  "and link layer, GPUs through NVML) and readings (CPU utilisation and RAPL\n"
	  "power over --interval-ms, default 200; hwmon temperatures; NIC and IB\n"
	  "error counters; disk free of --disk, default the root). Reads /proc and\n"
	  "/sys below --sysfs-root (default /). NVML is loaded at run time from\n"
	  "$HETLAB_NVML_LIB, else libnvidia-ml.so.1; without it, no GPUs. Invalid\n"
	  "readings are listed as problems; the exit status is 0 when the probe ran.\n"
	  "--topology-xml reads the CPU topology from an hwloc XML export. --reading\n"
	  "prints one line, the reading the live daemon takes from a \"file:\" probe\n"
	  "(power, hottest temperature, CPU utilisation, new GPU health events).\n"
	  "See docs/live.md." },
	{ "live", cmd_live,
	  "hetlab live --config LIVE.json [--executor local|slurm] [--policy P] [--state DIR]\n"
	  "            [--metrics-addr A] [--metrics-port N] [--metrics-public] [--exit-when-idle] [--max-s S]",
	  "Runs the scheduling policy against real nodes: jobs from `hetlab submit`\n"
	  "run on this host (local) or a Slurm cluster, placed where the policy\n"
	  "says; probes read power, temperature and GPU health; the health monitor\n"
	  "drains failing or hot nodes. State, recording and decision log are in\n"
	  "STATE_DIR/state.db: a restart (even after kill -9) recovers every job.\n"
	  "Prometheus metrics on a loopback port (/metrics, /healthz) when configured.\n"
	  "See docs/live.md." },
	{ "submit", cmd_submit, "hetlab submit (--state DIR | --config LIVE.json) (--job '{...}' | JOBS.jsonl | -)",
	  "Queues jobs for the live daemon: each a JSON Lines trace line (req, class,\n"
	  "tenant, walltime_us, ...) with \"argv\" (the program and its arguments,\n"
	  "never a shell string), optional \"env\", \"cwd\" and \"name\". The request\n"
	  "is checked against the daemon's cluster before it is queued." },
	{ "queue", cmd_queue, "hetlab queue (--state DIR | --config LIVE.json) [--all] [--json]",
	  "Lists the live daemon's jobs (unfinished ones unless --all): state,\n"
	  "attempt, where they run, reason, the executor's reference." },
	{ "cancel", cmd_cancel, "hetlab cancel (--state DIR | --config LIVE.json) ID...",
	  "Cancels live jobs: pending ones leave the queue, running ones are killed." },
	{ "approve", cmd_approve, "hetlab approve (--state DIR | --config LIVE.json) TENANT...",
	  "Approves, in a live daemon, the jobs of each tenant (a name from the\n"
	  "scenario's org, or its index) held for quota: they are released and run\n"
	  "over quota (the scenario's timed \"approve\" events, live)." },
	{ "replay", cmd_replay, "hetlab replay STATE_DIR [--results FILE] [--quiet]",
	  "Runs the simulator on a live daemon's recording (job arrivals, exits,\n"
	  "cancels, probe readings) with the same policy and compares its decisions\n"
	  "with the daemon's decision log: prints the differences (none when the\n"
	  "same code made the same decisions at the same times; exit 1 otherwise).\n"
	  "--results also writes the run's results database (hetlab report reads it)." },
	{ "version", cmd_version, "hetlab version", "Prints the version." },
	{ "help", cmd_help, "hetlab help [COMMAND]", "Prints help for a command." },
	{ NULL, NULL, NULL, NULL },
};

const char *cli_traces_dir(const char *flag)
{
	const char *env = getenv("HETLAB_TRACES");
	if (flag && *flag)
		return flag;
	if (env && *env)
		return env;
	return "../shared/traces";
}

bool cli_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	if (!a || !b || stat(a, &sa) != 0 || stat(b, &sb) != 0)
		return false;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("hetlab %s\n", HETLAB_VERSION);
	return 0;
}

static void usage_all(FILE *out)
{
	fprintf(out, "hetlab %s — discrete-event simulator and policy lab for heterogeneous clusters\n\n"
	             "usage:\n", HETLAB_VERSION);
	for (int i = 0; cmds[i].name; i++)
		fprintf(out, "  %s\n", cmds[i].usage);
	fprintf(out, "\n'hetlab help COMMAND' tells more. Docs: docs/ in the source tree.\n");
}

int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		usage_all(stdout);
		return 0;
	}
	for (int i = 0; cmds[i].name; i++)
		if (strcmp(cmds[i].name, argv[1]) == 0) {
			printf("usage: %s\n\n%s\n", cmds[i].usage, cmds[i].help);
			return 0;
		}
	fprintf(stderr, "hetlab help: unknown command '%s'\n", argv[1]);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage_all(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cmd_help(1, argv + 1);
	if (strcmp(argv[1], "--version") == 0)
		return cmd_version(1, argv + 1);
	for (int i = 0; cmds[i].name; i++)
		if (strcmp(cmds[i].name, argv[1]) == 0)
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "hetlab: unknown command '%s'\n\n", argv[1]);
	usage_all(stderr);
	return 2;
}
