/* cmdtab — the table of hetlab's commands: for each, its synopsis, its
 * description and its options. The parser (cli/args.c), `hetlab help`,
 * `hetlab CMD --help`, the man pages and the shell completions all read
 * this one table (cli/helpgen.c), so they cannot disagree. A new option is
 * one line here and one case in the command's option loop. */
#include "cli/args.h"
#include "cli/cmd.h"

#include <string.h>

#define F CLI_C_FILE
#define D CLI_C_DIR
#define W CLI_C_WORDS
#define END { 0 }

#define O_LENIENT { OPT_LENIENT, "lenient", 0, NULL, "skip malformed trace lines (counted and reported) instead of stopping at the first; run a Slurm dump whose jobs need a partition or GPU type no node has (rejected at submit)", 0, 0, NULL }
#define O_TRACES { OPT_TRACES, "traces", 0, "DIR", "the trace directory that $TRACES/ paths and bare trace names are relative to (default $HETLAB_TRACES, else ../shared/traces)", 0, D, NULL }
#define O_QUIET { OPT_QUIET, "quiet", 'q', NULL, "print less: no progress line, no per-run lines", 0, 0, NULL }
#define O_JSON(h) { OPT_JSON, "json", 0, NULL, h, 0, 0, NULL }
#define O_OUT(m, h, c) { OPT_OUT, "out", 'o', m, h, 0, c, NULL }
#define O_JOBS { OPT_JOBS, "jobs", 'j', "N", "run N `hetlab run` processes at a time (1-1024, default 1)", 0, 0, NULL }
#define O_STATE { OPT_STATE, "state", 0, "DIR", "the daemon's state directory (its state.db)", 0, D, NULL }
#define O_WINDOW \
	{ OPT_WARMUP, "warmup", 0, "DUR", "measure from DUR after the start (12h, 1d, 90m, seconds; default the run's recorded window)", 0, 0, NULL }, \
	{ OPT_COOLDOWN, "cooldown", 0, "DUR", "measure until DUR before the end", 0, 0, NULL }, \
	{ OPT_ARRIVALS_ONLY, "arrivals-only", 0, NULL, "measure until the last arrival (not with --cooldown)", 0, 0, NULL }
#define O_CONFIG { OPT_CONFIG, "config", 0, "LIVE.json", "the daemon's configuration, for its state directory", 0, F, NULL }
#define O_SOCKET { OPT_SOCKET, "socket", 0, "PATH", "the daemon's Unix socket (default STATE_DIR/hetlab.sock, or the config's socket)", 0, F, NULL }

static const struct cli_opt run_opts[] = {
	{ OPT_POLICY, "policy", 0, "P", "the scheduling policy (default the scenario's $.policy; `hetlab policies` lists them)", 0, CLI_C_POLICY, NULL },
	{ OPT_SEED, "seed", 0, "N", "the random seed (default the scenario's $.seed)", 0, 0, NULL },
	{ OPT_SEEDS, "seeds", 0, "A-B", "one run per seed A..B into --out DIR/seed-N.db", 0, 0, NULL },
	{ OPT_TRACE, "trace", 0, "FILE", "replay this trace (SWF, JSON Lines, sacct, openb or Kubernetes pods; plain or .gz) instead of the scenario's workload", 0, F, NULL },
	{ OPT_NODES, "nodes", 0, "FILE", "the cluster of a Kubernetes node list (kubectl get nodes -o json): the scenario's from_inventory file, or without a scenario the cluster that replays --trace", 0, F, NULL },
	O_OUT("DB|DIR", "the results database (default run.db); a directory with --seeds", F),
	O_TRACES,
	O_LENIENT,
	{ OPT_PARAM, "param", 0, "NAME=VALUE", "set a policy parameter (`hetlab policies` lists them)", CLI_REPEAT, 0, NULL },
	O_QUIET,
	{ OPT_SCALE_RATE, "scale-rate", 0, "X", "demand x X: a synthetic workload's arrival rates; a trace replay's arrivals thinned (X < 1) or replicated (X > 1), see docs/traces.md", 0, 0, NULL },
	{ OPT_SCALE_SIZE, "scale-size", 0, "X", "a synthetic workload's GPU and core counts x X", 0, 0, NULL },
	{ OPT_SCALE_CLASS, "scale-class", 0, "CLASS=X", "one class's arrival rate x X (training, inference, batch, dev)", CLI_REPEAT, 0, NULL },
	{ OPT_PLACEMENT, "placement", 0, "STRATEGY", "the placement strategy of the policy (`hetlab policies` lists them)", 0, 0, NULL },
	{ OPT_LABEL_BLIND, "label-blind", 0, NULL, "place ignoring the jobs' label constraints (to measure what they cost)", 0, 0, NULL },
	{ OPT_RECORD, "record", 0, "LEVEL", "what the database keeps: summary, jobs, events (the default: jobs and the hash-chained event log) or full (docs/results.md)", 0, 0, NULL },
	{ OPT_AUDIT_KEY, "audit-key", 0, "FILE", "authenticate the audit head with an HMAC key file or an Ed25519 PEM key (or $HETLAB_AUDIT_KEY); docs/audit.md", 0, F, NULL },
	{ OPT_STORE_METRICS, "store-metrics", 0, "WINDOW", "also store every metric in table run_metric, within WINDOW: own (the run's window) or {\"warmup\": S, \"cooldown\": S, \"until\": \"end\"} (what `hetlab sweep` passes its runs; docs/results.md)", 0, 0, NULL },
	{ OPT_THREADS, "threads", 0, "N", "2 (the default): the results database is written by a thread of its own beside the engine; 1: by the engine's thread (what `hetlab sweep` gives its runs when it runs one per core)", 0, W, "1 2" },
	END,
};

static const struct cli_opt report_opts[] = {
	{ OPT_FORMAT, "format", 0, "FMT", "text (default), json, markdown or html", 0, W, "text json markdown html" },
	O_OUT("FILE", "write the report to FILE (atomically) instead of standard output", F),
	{ OPT_METRIC, "metric", 0, "M", "a sweep summary: report this metric (default the headline metrics)", CLI_REPEAT, 0, NULL },
	O_WINDOW,
	END,
};

static const struct cli_opt bill_opts[] = {
	{ OPT_PERIOD, "period", 0, "P", "the billing period: month (default), week or day", 0, W, "month week day" },
	{ OPT_FORMAT, "format", 0, "FMT", "text (default), json or csv", 0, W, "text json csv" },
	{ OPT_RECORDS, "records", 0, NULL, "list the usage records instead of the invoices", 0, 0, NULL },
	END,
};

static const struct cli_opt convert_opts[] = {
	O_LENIENT,
	O_TRACES,
	END,
};

static const struct cli_opt inspect_opts[] = {
	O_JSON("print the statistics as JSON"),
	{ OPT_BY, "by", 0, "GROUP", "group by class (default) or queue", 0, W, "class queue" },
	{ OPT_PLOT, "plot", 0, "DIR", "draw the statistics with gnuplot (PNG and SVG) into DIR", 0, D, NULL },
	O_LENIENT,
	O_TRACES,
	END,
};

static const struct cli_opt fit_opts[] = {
	O_OUT("MODEL.json", "the fitted model (required): a scenario's workload.synthetic block", F),
	{ OPT_DIST, "dist", 0, "D", "force the duration law: lognormal, weibull, gamma or empirical (default the best by AIC)", 0, W, "lognormal weibull gamma empirical" },
	{ OPT_EMPIRICAL, "empirical", 0, NULL, "durations from the empirical distribution (same as --dist empirical)", 0, 0, NULL },
	{ OPT_INDEPENDENT, "independent", 0, NULL, "fit durations apart from sizes and Poisson arrivals (the class-wide fit) instead of the joint model", 0, 0, NULL },
	{ OPT_BY, "by", 0, "GROUP", "fit per class (default) or per queue", 0, W, "class queue" },
	{ OPT_BURST_GAP, "burst-gap", 0, "S", "arrivals closer than S seconds form one burst (default: no bursts)", 0, 0, NULL },
	O_LENIENT,
	O_TRACES,
	END,
};

static const struct cli_opt synth_opts[] = {
	O_OUT("T.jsonl", "write the generated trace as JSON Lines", F),
	{ OPT_DAYS, "days", 0, "N", "days to generate (default the model's span)", 0, 0, NULL },
	{ OPT_SEED, "seed", 0, "S", "the random seed", 0, 0, NULL },
	{ OPT_SCALE_RATE, "scale-rate", 0, "X", "arrival rate x X", 0, 0, NULL },
	{ OPT_COMPARE, "compare", 0, "TRACE", "the trace to compare with (default the model's source)", 0, F, NULL },
	{ OPT_NO_COMPARE, "no-compare", 0, NULL, "print no Kolmogorov-Smirnov distances", 0, 0, NULL },
	O_LENIENT,
	O_TRACES,
	END,
};

static const struct cli_cmd trace_subs[] = {
	{ "convert", "IN OUT", "convert a trace or a run to JSON Lines or SWF",
	  "Converts SWF, JSON Lines or the Alibaba DLRM CSV to native JSON Lines\n"
	  "(OUT.jsonl). IN may also be a results database (run.db): its jobs as they\n"
	  "ran are written as JSON Lines (OUT.jsonl) or as a Standard Workload Format\n"
	  "trace (OUT.swf) with the SWF header comments, for other schedulers'\n"
	  "tools. IN: SWF (plain or .gz), .jsonl, .csv (.csv.gz: an Alibaba openb pod\n"
	  "list, else the Alibaba DLRM trace), a Slurm accounting dump (sacct -P) or\n"
	  "a results database; a relative path not found here is looked up in the\n"
	  "trace directory.",
	  convert_opts, NULL, F, "docs/traces.md" },
	{ "inspect", "FILE", "print a trace's statistics",
	  "Prints a trace's statistics: arrivals by hour and weekday, size and\n"
	  "duration percentiles, GPU-hours per model, per class or queue. An openb\n"
	  "node list gets its node and GPU summary. FILE: SWF (plain or .gz),\n"
	  ".jsonl, .csv (an Alibaba openb pod or node list, else the DLRM trace); a\n"
	  "relative path not found here is looked up in the trace directory. Hours\n"
	  "and weekdays are UTC from the SWF UnixStartTime, in the log's own zone\n"
	  "when its TimeZoneString names one.",
	  inspect_opts, NULL, F, "docs/traces.md" },
	{ "fit", "TRACE", "fit the synthetic generator to a trace",
	  "Fits the synthetic generator to a trace: arrival rate by hour of week,\n"
	  "a joint model by default (durations per size class, dur_by_size, and\n"
	  "arrival gaps in profile time, zero gaps included, gap_quantiles_s),\n"
	  "size mixes, durations by maximum likelihood (lognormal, Weibull or gamma,\n"
	  "the best by AIC; --empirical: 101 quantiles). MODEL.json is a scenario's\n"
	  "workload.synthetic block; with --by queue, one model per queue,\n"
	  "MODEL-qN.json. --burst-gap S: a job submitted at most S seconds after the\n"
	  "previous one joins its burst (fits burst_p, burst_mean, burst_gap_s).",
	  fit_opts, NULL, F, "docs/workloads.md" },
	{ "synth", "MODEL.json", "generate a trace from a fitted model",
	  "Generates a trace from a model (what `hetlab trace fit` writes) and prints\n"
	  "two-sample Kolmogorov-Smirnov distances to the original (durations,\n"
	  "inter-arrival times, sizes): --compare TRACE, by default the model's\n"
	  "fitted_from when that file exists.",
	  synth_opts, NULL, F, "docs/workloads.md" },
	END,
};

static const struct cli_opt frag_opts[] = {
	{ OPT_NODES, "nodes", 0, "FILE", "the openb node list (default TRACE_DIR's)", 0, F, NULL },
	{ OPT_PODS, "pods", 0, "FILE", "the openb pod list (default TRACE_DIR's)", 0, F, NULL },
	{ OPT_POLICIES, "policies", 0, "LIST", "comma-separated placement policies (default random,dotprod,clustering,packing,bestfit,fgd)", 0, 0, NULL },
	{ OPT_SEEDS, "seeds", 0, "A-B", "the seeds (default 42-51; at most 1000)", 0, 0, NULL },
	{ OPT_INFLATE, "inflate", 0, "X", "pods inflated to X times the cluster's capacity (default 1.3)", 0, 0, NULL },
	O_OUT("DB", "the results database (default frag.db)", F),
	{ OPT_PLOT, "plot", 0, "DIR", "draw the allocation curves into DIR", 0, D, NULL },
	{ OPT_JOBS, "jobs", 'j', "N", "run N worker processes (1-64, default 1)", 0, 0, NULL },
	END,
};

static const struct cli_opt compare_opts[] = {
	{ OPT_METRIC, "metric", 0, "M", "compare this metric only, NAME or NAME{LABEL=VALUE} such as p95_wait{class=training} (default all; --list-metrics lists them)", CLI_REPEAT, 0, NULL },
	{ OPT_LEVEL, "level", 0, "L", "the confidence level of the intervals, in (0, 1) (default 0.95)", 0, 0, NULL },
	{ OPT_FORMAT, "format", 0, "FMT", "text (default), json or html", 0, W, "text json html" },
	O_OUT("FILE", "write the comparison to FILE instead of standard output", F),
	O_WINDOW,
	{ OPT_LIST_METRICS, "list-metrics", 0, NULL, "list the metrics and exit", 0, 0, NULL },
	END,
};

static const struct cli_opt plot_opts[] = {
	O_OUT("DIR", "the folder for the figures (required)", D),
	{ OPT_METRIC, "metric", 0, "M", "a sweep summary: draw this metric (default the headline metrics)", CLI_REPEAT, 0, NULL },
	END,
};

static const struct cli_opt sweep_opts[] = {
	O_JOBS,
	O_OUT("DIR", "the sweep's folder (default the sweep file's $.out, else its name without .json)", D),
	O_TRACES,
	{ OPT_DRY_RUN, "dry-run", 0, NULL, "list the points without running them", 0, 0, NULL },
	{ OPT_POINT, "point", 0, "I", "run point I only (what a Slurm array task does)", 0, 0, NULL },
	{ OPT_MERGE, "merge", 0, NULL, "rebuild OUT/summary.db from the finished runs", 0, 0, NULL },
	{ OPT_SLURM, "slurm", 0, NULL, "submit the points as a Slurm job array (sbatch) instead of running here", 0, 0, NULL },
	{ OPT_PARTITION, "partition", 0, "P", "--slurm: the partition", 0, 0, NULL },
	{ OPT_MAX_PARALLEL, "max-parallel", 0, "K", "--slurm: at most K array tasks at a time", 0, 0, NULL },
	{ OPT_SBATCH_ARG, "sbatch-arg", 0, "ARG", "--slurm: one more argument for sbatch", CLI_REPEAT, 0, NULL },
	{ OPT_WAIT, "wait", 0, NULL, "--slurm: wait for the array and merge", 0, 0, NULL },
	O_WINDOW,
	END,
};

static const struct cli_opt plan_opts[] = {
	O_JOBS,
	O_OUT("DIR", "the plan's folder (default the plan file's name without .json)", D),
	{ OPT_EXHAUSTIVE, "exhaustive", 0, NULL, "evaluate every candidate instead of climbing", 0, 0, NULL },
	O_JSON("print the answer as JSON"),
	O_WINDOW,
	END,
};

static const struct cli_opt catalog_opts[] = {
	O_JSON("print the catalog as JSON"),
	{ OPT_SPEED, "speed", 0, NULL, "print the relative-speed matrix (per job kind and precision)", 0, 0, NULL },
	{ OPT_MIG, "mig", 0, "CARD", "print the MIG profiles (of CARD only, with its number of full layouts)", CLI_OPTARG, 0, NULL },
	END,
};

static const struct cli_opt verify_opts[] = {
	{ OPT_ARCHIVE, "archive", 0, "FILE.jsonl.gz", "an archive of pruned records, verified with the database as one chain", CLI_REPEAT, F, NULL },
	{ OPT_KEY, "key", 0, "FILE", "the HMAC key file (or Ed25519 key) the head was authenticated with: a head not made with it fails", 0, F, NULL },
	{ OPT_PUBKEY, "pubkey", 0, "FILE", "the Ed25519 public key (PEM) the head's signature must verify with", 0, F, NULL },
	{ OPT_EXPECT_HEAD, "expect-head", 0, "HASH", "the head hash kept elsewhere (hetlab run prints it): the file's must be it", 0, 0, NULL },
	END,
};

static const struct cli_opt prune_opts[] = {
	{ OPT_OLDER_THAN, "older-than", 0, "DAYS", "move the records older than DAYS (default 190, never under 183)", 0, 0, NULL },
	{ OPT_BEFORE, "before", 0, "DAYS", "the same as --older-than", CLI_HIDDEN, 0, NULL },
	{ OPT_ARCHIVE, "archive", 0, "FILE.jsonl.gz", "the archive to write (default beside the database)", 0, F, NULL },
	{ OPT_KEY, "key", 0, "FILE", "the key a keyed file was written with: the anchor is authenticated with it", 0, F, NULL },
	END,
};

static const struct cli_opt aexport_opts[] = {
	O_OUT("FILE.jsonl", "write to FILE instead of standard output", F),
	END,
};

static const struct cli_cmd audit_subs[] = {
	{ "verify", "RUN.DB", "verify a run's hash-chained audit log",
	  "Recomputes the results file's hash-chained audit log (from the first\n"
	  "record, or from the anchor a prune sealed; with --archive, across the\n"
	  "archives and the database as one chain) and prints OK with the count,\n"
	  "or the first broken record's seq and what is wrong (exit status 1).\n"
	  "Every table the reports read is sealed with it; --key, --pubkey and\n"
	  "--expect-head check the head against a key or a head kept elsewhere.",
	  verify_opts, NULL, F, "docs/audit.md" },
	{ "prune", "RUN.DB", "archive the audit records older than a retention",
	  "Moves the records older than DAYS (default 190, never under 183) before\n"
	  "the newest, in simulated time, to a gzip JSON Lines archive and seals an\n"
	  "anchor so that verify continues from it.",
	  prune_opts, NULL, F, "docs/audit.md" },
	{ "export", "RUN.DB", "write the audit records as JSON Lines",
	  "Writes the records as JSON Lines (standard output by default) for a\n"
	  "mirror.",
	  aexport_opts, NULL, F, "docs/audit.md" },
	END,
};

static const struct cli_opt probe_opts[] = {
	{ OPT_SYSFS_ROOT, "sysfs-root", 0, "DIR", "read /proc and /sys below DIR (default /)", 0, D, NULL },
	{ OPT_DISK, "disk", 0, "PATH", "the file system whose free space is read (default /)", 0, D, NULL },
	O_JSON("print labels and readings as JSON"),
	{ OPT_INTERVAL_MS, "interval-ms", 0, "N", "the CPU utilisation and RAPL window in ms (0-600000, default 200)", 0, 0, NULL },
	{ OPT_TOPOLOGY_XML, "topology-xml", 0, "FILE", "read the CPU topology from an hwloc XML export", 0, F, NULL },
	{ OPT_READING, "reading", 0, NULL, "print the one-line reading a \"file:\" probe gives the live daemon", 0, 0, NULL },
	END,
};

static const struct cli_opt live_opts[] = {
	{ OPT_CONFIG, "config", 0, "LIVE.json", "the daemon's configuration (required; docs/live.md)", 0, F, NULL },
	{ OPT_EXECUTOR, "executor", 0, "E", "the executor by name (default the config's; docs/executors.md lists them: local runs jobs on this host, slurm on a Slurm cluster)", 0, CLI_C_EXECUTOR, NULL },
	{ OPT_POLICY, "policy", 0, "P", "the scheduling policy (default the scenario's)", 0, CLI_C_POLICY, NULL },
	{ OPT_STATE, "state", 0, "DIR", "the state directory (default the config's state_dir)", 0, D, NULL },
	{ OPT_METRICS_ADDR, "metrics-addr", 0, "A", "the address of /metrics and /healthz (default 127.0.0.1)", 0, 0, NULL },
	{ OPT_METRICS_PORT, "metrics-port", 0, "N", "serve /metrics and /healthz on port N (0-65535; 0 picks one)", 0, 0, NULL },
	{ OPT_METRICS_PUBLIC, "metrics-public", 0, NULL, "allow a non-loopback --metrics-addr", 0, 0, NULL },
	{ OPT_EXIT_WHEN_IDLE, "exit-when-idle", 0, NULL, "exit once every submitted job has ended", 0, 0, NULL },
	{ OPT_MAX_S, "max-s", 0, "S", "exit after S seconds", 0, 0, NULL },
	O_QUIET,
	END,
};

static const struct cli_opt submit_opts[] = {
	O_STATE, O_CONFIG, O_SOCKET,
	{ OPT_JOB, "job", 0, "JSON", "one job as a JSON object (instead of a JOBS.jsonl file)", 0, 0, NULL },
	{ OPT_DRY_RUN, "dry-run", 0, NULL, "submit nothing: what would hold the job and when it would start (one job; a running daemon)", 0, 0, NULL },
	END,
};

static const struct cli_opt queue_opts[] = {
	O_STATE, O_CONFIG, O_SOCKET,
	{ OPT_ALL, "all", 0, NULL, "list finished jobs too", 0, 0, NULL },
	O_JSON("print the jobs as JSON"),
	END,
};

static const struct cli_opt forecast_opts[] = {
	O_STATE, O_CONFIG, O_SOCKET,
	O_JSON("print the forecast as JSON (Unix times)"),
	END,
};

static const struct cli_opt stateonly_opts[] = {
	O_STATE, O_CONFIG, O_SOCKET,
	END,
};

static const struct cli_opt replay_opts[] = {
	{ OPT_RESULTS, "results", 0, "FILE", "also write the replay's results database", 0, F, NULL },
	{ OPT_NO_COMPARE, "no-compare", 0, NULL, "with --results: write the results database only, without replaying the decisions to compare them (what the daemon runs every results_every_s)", 0, 0, NULL },
	{ OPT_FROM_SNAPSHOT, "from-snapshot", 0, NULL, "start from the state's snapshot: replay and compare only what follows it", 0, 0, NULL },
	{ OPT_SNAPSHOT, "snapshot", 0, "FILE", "start from this snapshot (a kept one, STATE_DIR/snapshots/...): replay and compare only what follows it", 0, F, NULL },
	O_QUIET,
	END,
};

static const struct cli_opt sprune_opts[] = {
	{ OPT_BEFORE, "before", 0, "DATE", "archive what was recorded before DATE (YYYY-MM-DD[THH:MM[:SS]] UTC, or @UNIX_SECONDS)", 0, 0, NULL },
	{ OPT_KEEP_DAYS, "keep-days", 0, "N", "archive what was recorded more than N days ago", 0, 0, NULL },
	O_QUIET,
	END,
};

static const struct cli_opt jobs_opts[] = {
	{ OPT_FORMAT, "format", 'o', "FIELDS", "the comma-separated fields to print, each optionally FIELD%WIDTH (--helpformat lists them)", 0, 0, NULL },
	{ OPT_PARSABLE, "parsable", 'p', NULL, "'|'-separated output, with a '|' at the end of each line", 0, 0, NULL },
	{ OPT_PARSABLE2, "parsable2", 'P', NULL, "'|'-separated output, no '|' at the end", 0, 0, NULL },
	{ OPT_NOHEADER, "noheader", 'n', NULL, "no header line", 0, 0, NULL },
	{ OPT_STATE, "state", 's', "LIST", "only jobs in these states (comma-separated: COMPLETED, FAILED, CANCELLED, OUT_OF_MEMORY, TIMEOUT, PREEMPTED, NODE_FAIL, PENDING, RUNNING; short forms CD, F, CA, OOM, TO, PR, NF, PD, R)", 0, 0, NULL },
	{ OPT_STARTTIME, "starttime", 'S', "TIME", "only jobs still eligible or running at or after TIME (default the run's start)", 0, 0, NULL },
	{ OPT_ENDTIME, "endtime", 'E', "TIME", "only jobs eligible or running before TIME (default the run's end)", 0, 0, NULL },
	{ OPT_TENANTS, "accounts", 'A', "LIST", "only these accounts (comma-separated, as the Account field prints them: the trace's account names, else tenant indexes)", 0, 0, NULL },
	{ OPT_ORIGIN, "origin", 0, "TIME", "the UTC time of the run's simulated start (default the replayed trace's start when the run has it, else the run's recorded creation time)", 0, 0, NULL },
	{ OPT_HELPFORMAT, "helpformat", 'e', NULL, "list the fields --format takes", 0, 0, NULL },
	END,
};

static const struct cli_opt openmetrics_opts[] = {
	O_OUT("FILE", "write to FILE (atomically) instead of standard output", F),
	{ OPT_ORIGIN, "origin", 0, "TIME", "the UTC time of the run's simulated start, YYYY-MM-DD[THH:MM[:SS]] (default: the run's recorded creation time)", 0, 0, NULL },
	END,
};

static const struct cli_cmd export_subs[] = {
	{ "openmetrics", "RUN.DB", "write a run's samples as OpenMetrics for Prometheus",
	  "Writes a run's time series (the sample table: utilisation, queue,\n"
	  "power, per tenant) in the OpenMetrics text format with a timestamp on\n"
	  "every sample, the simulated time mapped onto the run's recorded start,\n"
	  "under the metric names of the live daemon's /metrics where they mean\n"
	  "the same. Import it into Prometheus with\n"
	  "  promtool tsdb create-blocks-from openmetrics FILE DATA_DIR\n"
	  "and look at it on the live Grafana dashboard (docs/grafana/).",
	  openmetrics_opts, NULL, F, "docs/metrics.md" },
	END,
};

static const struct cli_cmd scenario_subs[] = {
	{ "list", NULL, "list the embedded scenarios", "Lists the embedded scenarios, one a line.",
	  NULL, NULL, 0, NULL },
	{ "show", "[NAME]", "print an embedded scenario",
	  "Prints the embedded scenario NAME (default \"default\", the default scenario).",
	  NULL, NULL, 0, NULL },
	{ "check", "FILE", "load a scenario file and report its first error",
	  "Loads a scenario file and prints its node types, racks and nodes, or its\n"
	  "first error (naming the file and JSON path; exit status 1).",
	  NULL, NULL, F, NULL },
	END,
};

static const struct cli_opt shadow_opts[] = {
	{ OPT_SLURM_CONF, "slurm-conf", 0, "FILE", "the cluster's slurm.conf (required; read as hetlab twin build reads it)", 0, F, NULL },
	{ OPT_GRES_CONF, "gres-conf", 0, "FILE", "its gres.conf: GPU types where slurm.conf's Gres= gives none", 0, F, NULL },
	{ OPT_STATE, "state", 0, "DIR", "the shadow's directory: its results shadow.db and the twin's scenario (default ./shadow)", 0, D, NULL },
	{ OPT_EVERY, "every", 0, "S", "poll Slurm every S seconds (default 30)", 0, 0, NULL },
	{ OPT_DRAWS, "draws", 0, "N", "draws of run times per forecast, 1-1000 (default 20)", 0, 0, NULL },
	{ OPT_POLLS, "polls", 0, "N", "stop after N polls (default: until SIGINT or SIGTERM)", 0, 0, NULL },
	{ OPT_MAX_S, "max-s", 0, "S", "stop after S seconds", 0, 0, NULL },
	{ OPT_METRICS_PORT, "metrics-port", 0, "PORT", "serve /metrics on this loopback port (0: any free port; default none)", 0, 0, NULL },
	{ OPT_METRICS_ADDR, "metrics-addr", 0, "ADDR", "the loopback address of /metrics (default 127.0.0.1)", 0, 0, NULL },
	END,
};

static const struct cli_opt twin_build_opts[] = {
	{ OPT_SLURM_CONF, "slurm-conf", 0, "FILE", "the site's slurm.conf (required; Include lines are followed)", 0, F, NULL },
	{ OPT_GRES_CONF, "gres-conf", 0, "FILE", "its gres.conf: GPU types where slurm.conf's Gres= gives none", 0, F, NULL },
	{ OPT_ASSOC, "assoc", 0, "FILE", "a `sacctmgr -P show assoc` dump, with the columns docs/slurm-twin.md lists: accounts, users, shares, limits", 0, F, NULL },
	{ OPT_QOS, "qos", 0, "FILE", "a `sacctmgr -P show qos` dump: QOS priorities, preemption, limits", 0, F, NULL },
	{ OPT_EVENTS, "events", 0, "FILE", "a `sacctmgr -P show event` dump: nodes' DOWN periods become node_crash events", 0, F, NULL },
	{ OPT_SACCT, "sacct", 0, "FILE", "the site's history, a `sacct -P` dump (required; docs/traces.md): the twin's workload", 0, F, NULL },
	{ OPT_CTLD_LOG, "ctld-log", 0, "FILE", "slurmctld's log (LogTimeFormat iso8601_ms): each job's submission to the millisecond where sacct keeps seconds", 0, F, NULL },
	{ OPT_GPU_MODEL, "gpu-model", 0, "TYPE=MODEL", "the catalog GPU model of a GRES type (default the catalog model the type names, else a placeholder)", CLI_REPEAT, 0, NULL },
	{ OPT_NAME, "name", 0, "NAME", "the scenario's name (default slurm.conf's ClusterName)", 0, 0, NULL },
	O_OUT("TWIN.json", "the scenario to write (required; atomically)", F),
	END,
};

static const struct cli_opt twin_check_opts[] = {
	{ OPT_BY, "by", 0, "KEY", "match jobs by jobid (JobID, the run's trace id; the default) or name (JobName, the run's job names)", 0, W, "jobid name" },
	{ OPT_BF_INTERVAL, "bf-interval", 0, "S", "the bf_interval of the figures in bf_intervals, seconds (default the run's policy parameter bf_interval_s, else 30)", 0, 0, NULL },
	O_JSON("print the figures as JSON, with each matched job's waits and start difference"),
	END,
};

static const struct cli_cmd twin_subs[] = {
	{ "build", NULL, "build a Slurm site's digital twin as a scenario",
	  "Reads a site's slurm.conf (and gres.conf, sacctmgr dumps of its QOS,\n"
	  "associations and node events) and its sacct history, and writes a\n"
	  "scenario that replays that history under the policy slurm: the nodes\n"
	  "of slurm.conf with Slurm's names, the partitions, QOS and association\n"
	  "tree, the scheduling parameters slurm.conf sets. Keys that change\n"
	  "scheduling but are not modelled are warned about (FILE:LINE: KEY ...)\n"
	  "on stderr; exit status 1 on bad input, naming file, line and key.",
	  twin_build_opts, NULL, 0, "docs/slurm-twin.md" },
	{ "check", "REAL.sacct (RUN.DB | OTHER.sacct)", "compare a twin's run (or another real run) with a real Slurm run",
	  "Matches the jobs of a real run's sacct dump (sacct -P, -D for requeued\n"
	  "jobs) with a twin's run database, or with a second dump of the same\n"
	  "workload, by JobID or JobName, and prints how far their starts are\n"
	  "apart: jobs matched and unmatched; the mean wait of each side and the\n"
	  "error; the median and p90 of |start difference| in seconds and in\n"
	  "bf_intervals and the share within one; Kendall's tau-b of the two\n"
	  "start orders; the preemptions of each side. Exit status 1 when a file\n"
	  "cannot be read or no job matched.",
	  twin_check_opts, NULL, F, "docs/slurm-twin.md" },
	END,
};

static const struct cli_opt help_opts[] = {
	{ OPT_MAN, "man", 0, NULL, "print the man page (roff) of hetlab or of COMMAND instead", 0, 0, NULL },
	{ OPT_COMPLETION, "completion", 0, "SHELL", "print the completion script for bash or zsh", 0, W, "bash zsh" },
	{ OPT_LIST, "list", 0, NULL, "print the command names, one a line (sub-commands as \"trace convert\")", 0, 0, NULL },
	END,
};

const struct cli_cmd cli_commands[] = {
	{ "run", "[SCENARIO]", "run a scenario and write its results database",
	  "Runs a scenario (default: the embedded scenarios/default.json) and writes\n"
	  "one SQLite database (default run.db). --trace replaces the scenario's\n"
	  "workload with a trace file (SWF, plain or .gz, .jsonl, a Slurm sacct dump,\n"
	  "an openb pod list, or a Kubernetes pod list: kubectl get pods -A -o json;\n"
	  "its nodes, kubectl get nodes -o json, are the cluster with --nodes, or a\n"
	  "scenario's from_inventory of format \"k8s\": `hetlab run --trace pods.json\n"
	  "--nodes nodes.json` needs no scenario). --param sets a policy parameter. A\n"
	  "progress line is shown on a terminal for runs over a second. The --scale-*\n"
	  "knobs grow a synthetic workload for planning: every arrival rate x X, GPU\n"
	  "and core counts x X, or one class's rate x X (\"what if demand grows 40 %?\"\n"
	  "is --scale-rate 1.4); on a trace replay --scale-rate thins or replicates\n"
	  "the trace's arrivals. --seeds A-B --out DIR runs once per seed into\n"
	  "DIR/seed-N.db: the same seed is the same workload under every policy, so\n"
	  "two such directories pair up for `hetlab compare`. --record chooses what\n"
	  "the database keeps; with --audit-key its audit head is authenticated and\n"
	  "printed, to be kept elsewhere. SIGINT or SIGTERM stops a run without\n"
	  "leaving its temporary file.",
	  run_opts, NULL, F, "docs/scenario.md, docs/results.md, docs/audit.md" },
	{ "report", "RUN.DB | SWEEP_OUT | PLAN_OUT | FRAG.DB", "summarise a run, a sweep, a plan or a frag experiment",
	  "Summarises a run database: jobs, makespan, utilisation, waits,\n"
	  "bounded slowdown, per class. markdown gives the same tables in Markdown;\n"
	  "html one self-contained page with the figures of `hetlab plot` inlined\n"
	  "as SVG (gnuplot needed for the figures; without it the page has the\n"
	  "tables and a warning). --out writes FILE atomically. --warmup,\n"
	  "--cooldown and --arrivals-only set the measurement window. Also reads a\n"
	  "sweep's summary.db (or its folder; --metric picks metrics) and a plan's\n"
	  "plan.json (or its folder), as text or html (with the figures), and a\n"
	  "frag database (as text or json).",
	  report_opts, NULL, F, "docs/results.md" },
	{ "jobs", "RUN.DB", "list a run's jobs like sacct",
	  "Lists the jobs of a run database the way Slurm's sacct lists a\n"
	  "cluster's: sacct's field names (JobID, JobName, Account, Partition,\n"
	  "State, ExitCode, Submit, Eligible, Start, End, Elapsed, Timelimit,\n"
	  "AllocTRES, NodeList, ...), its --format syntax, its -p/-P parsable\n"
	  "output and its --state, --starttime and --endtime filters, so that\n"
	  "scripts written for sacct read a simulated run. A replayed Slurm\n"
	  "dump lists with its JobIDs, job names, users, accounts, partitions\n"
	  "and QOS. Times are the run's simulated clock laid on the trace's\n"
	  "start (else the run's recorded start), as YYYY-MM-DDTHH:MM:SS (UTC);\n"
	  "TIME arguments take that form, a date, or +SECONDS from the run's\n"
	  "start.",
	  jobs_opts, NULL, F, "docs/results.md" },
	{ "bill", "RUN.DB", "invoice a run per tenant and period",
	  "Invoices per tenant and billing period from a run database, priced by\n"
	  "the scenario's \"billing\" block (or a default price list when the file\n"
	  "has none): GPU by model, MIG and share pricing, cores, memory, energy;\n"
	  "reserved and elastic plans; a reconciliation footer (exit 1 when it\n"
	  "does not reconcile). --records lists the usage records instead.",
	  bill_opts, NULL, F, "docs/billing.md" },
	{ "trace", "COMMAND ...", "convert, inspect, fit and synthesise traces",
	  "Works on job traces: convert between formats (and export a run as SWF),\n"
	  "inspect their statistics, fit the synthetic generator to one and\n"
	  "generate a trace from the fit. FILE and TRACE may be relative to the\n"
	  "trace directory (--traces DIR, $HETLAB_TRACES, ../shared/traces).",
	  NULL, trace_subs, 0, "docs/traces.md, docs/workloads.md" },
	{ "twin", "COMMAND ...", "build a Slurm site's digital twin and check it",
	  "Builds a scenario from a Slurm site's own files (slurm.conf, sacctmgr\n"
	  "and sacct dumps) that replays its history under Slurm's scheduler, and\n"
	  "checks the twin's start times against the recorded ones.",
	  NULL, twin_subs, 0, "docs/slurm-twin.md" },
	{ "export", "COMMAND ...", "export a run for other tools (OpenMetrics)",
	  "Exports a run database in the formats of other tools.",
	  NULL, export_subs, 0, "docs/metrics.md" },
	{ "frag", "[TRACE_DIR]", "run the FGD paper's fragmentation experiment",
	  "Runs the FGD paper's fragmentation experiment (openb GPU cluster, pods\n"
	  "inflated to 1.3x capacity, shuffled, placed one at a time) for each policy\n"
	  "and seed, writes frag.db and prints the allocation ratio at 100 % arrived\n"
	  "beside the paper's.",
	  frag_opts, NULL, D, "docs/policies.md" },
	{ "compare", "DIR_A DIR_B", "compare two policies over paired seeds",
	  "Compares two policies run over the same seeds (hetlab run --seeds A-B\n"
	  "--out DIR): pairs the runs by seed and gives, per metric, the mean\n"
	  "difference B - A with a Student-t (or bootstrap, for skewed differences)\n"
	  "interval, the Wilcoxon signed-rank p-value and a verdict (better, worse,\n"
	  "no significant difference). --metric picks metrics (default all), --level\n"
	  "the interval's level; --warmup, --cooldown and --arrivals-only set the\n"
	  "measurement window.",
	  compare_opts, NULL, D, "docs/compare.md" },
	{ "plot", "RUN.DB | SWEEP_OUT | PLAN_OUT | FRAG.DB", "draw the figures of a run, a sweep, a plan or a frag experiment",
	  "Draws a run's figures with gnuplot into DIR, each as NAME.png and\n"
	  "NAME.svg beside its data (NAME.dat) and script (NAME.gp, redraw with\n"
	  "`gnuplot NAME.gp` in DIR): utilisation and queue length over time\n"
	  "(utilisation, queue), modelled IT power over time (power), each rack's\n"
	  "power against its cap (rack_power), the hottest node of each rack\n"
	  "(node_temp), the waiting-time CDF per class (wait_cdf) and core-hours per\n"
	  "tenant stacked over time (tenants); the power and thermal figures need a\n"
	  "run with the power model. It prints each file it wrote. Also draws a\n"
	  "sweep's summary (each metric against each parameter; the sweep's\n"
	  "summary.db or folder), a plan's frontier (plan.json or its folder) and\n"
	  "a frag database's allocation curves.",
	  plot_opts, NULL, F, "docs/results.md" },
	{ "sweep", "SWEEP.json", "run a grid of scenario variants x seeds",
	  "Runs a grid of scenario variants x seeds: SWEEP.json names a scenario,\n"
	  "seeds and parameters (JSON paths into the scenario, such as\n"
	  "$.racks[0].count or $.policy, each with a list of values). Every point of\n"
	  "the Cartesian product gets OUT/point-<id>/scenario.json and one\n"
	  "seed-<N>.db per seed, each from its own `hetlab run` process, -j at a\n"
	  "time. Finished runs are skipped, so a re-run resumes. OUT/summary.db holds\n"
	  "one row per run with every headline metric. --dry-run lists the points;\n"
	  "--slurm submits them as a job array; --point runs one; --merge rebuilds\n"
	  "the summary.",
	  sweep_opts, NULL, F, "docs/sweep.md" },
	{ "plan", "PLAN.json", "search for the cheapest cluster that meets targets",
	  "Searches for the cheapest cluster that meets targets: integer variables\n"
	  "(JSON paths such as $.racks[0].count, each with a range and a capex per\n"
	  "unit added to what the site owns), replicated runs per candidate,\n"
	  "greedy climb then trim (or every candidate with --exhaustive). Prints\n"
	  "the candidates explored and the answer with its confidence and its\n"
	  "yearly cost of ownership. A plan without targets is a what-if costing:\n"
	  "every candidate's cost.",
	  plan_opts, NULL, F, "docs/planning.md" },
	{ "scenario", "COMMAND ...", "print, list and check scenarios",
	  "Prints an embedded scenario to start a scenario, sweep or plan file\n"
	  "from (an installed hetlab has no source tree), lists them, or loads a\n"
	  "scenario file and reports its first error.",
	  NULL, scenario_subs, 0, "docs/planning.md, docs/scenario.md" },
	{ "policies", "[POLICY]", "list the scheduling policies",
	  "Lists the scheduling policies and their parameters (a policy with many,\n"
	  "such as slurm, by count: name it to list them), the placement\n"
	  "strategies and the GPU-sharing scores. With a POLICY, that policy's\n"
	  "parameters only, with their defaults and meanings.",
	  NULL, NULL, CLI_C_POLICY, "docs/policies.md, docs/slurm-twin.md" },
	{ "catalog", NULL, "list the hardware catalog",
	  "Lists the built-in hardware catalog: the GPU and CPU model names a\n"
	  "scenario's node types use, with their memory, power, throughput and\n"
	  "MIG support (sources in docs/catalog.md). --mig prints each MIG-capable\n"
	  "card's profiles with their slices and valid start positions; with a CARD,\n"
	  "also its number of valid full layouts.",
	  catalog_opts, NULL, 0, "docs/catalog.md" },
	{ "audit", "COMMAND RUN.DB ...", "verify, prune and export the audit log",
	  "Works on a results database's hash-chained audit log.",
	  NULL, audit_subs, 0, "docs/audit.md" },
	{ "probe", NULL, "print what this host exposes to live mode",
	  "Prints what this host exposes to live mode, to check a node before it\n"
	  "joins: labels (CPU cores, memory, NICs, InfiniBand/RoCE ports with rate\n"
	  "and link layer, GPUs through NVML) and readings (CPU utilisation and RAPL\n"
	  "power over --interval-ms; hwmon temperatures; NIC and IB error counters;\n"
	  "disk free of --disk). NVML is loaded at run time from $HETLAB_NVML_LIB,\n"
	  "else libnvidia-ml.so.1; without it, no GPUs. Invalid readings are listed\n"
	  "as problems; the exit status is 0 when the probe ran.",
	  probe_opts, NULL, 0, "docs/live.md" },
	{ "live", NULL, "run the scheduling policy against real nodes",
	  "Runs the scheduling policy against real nodes: jobs from `hetlab submit`\n"
	  "run on this host (local) or a Slurm cluster, placed where the policy\n"
	  "says; probes read power, temperature and GPU health; the health monitor\n"
	  "drains failing or hot nodes. State, recording and decision log are in\n"
	  "STATE_DIR/state.db: a restart (even after kill -9) recovers every job.\n"
	  "Prometheus metrics on a loopback port (/metrics, /healthz) when configured.",
	  live_opts, NULL, 0, "docs/live.md" },
	{ "submit", "[JOBS.jsonl | -]", "queue jobs for the live daemon",
	  "Queues jobs for the live daemon: each a JSON Lines trace line (req, class,\n"
	  "tenant, walltime_us, ...) with \"argv\" (the program and its arguments,\n"
	  "never a shell string), optional \"env\", \"cwd\" and \"name\". The request\n"
	  "is checked against the daemon's cluster before it is queued. Give\n"
	  "--state DIR or --config LIVE.json. --dry-run queues nothing: the daemon\n"
	  "forecasts the job as if it were submitted now (docs/forecast.md).",
	  submit_opts, NULL, F, "docs/live.md" },
	{ "queue", NULL, "list the live daemon's jobs",
	  "Lists the live daemon's jobs (unfinished ones unless --all): state,\n"
	  "attempt, where they run, reason, the executor's reference.",
	  queue_opts, NULL, 0, "docs/live.md" },
	{ "forecast", "[ID]", "when the live daemon's waiting jobs will start",
	  "Prints the live daemon's last forecast: for each waiting job (one's own;\n"
	  "an operator's: all), its predicted start as p10 / p50 / p90 relative to\n"
	  "the forecast's time, from simulations forked from the daemon's state with\n"
	  "run times learned from the state's history; LIMIT is the start if every\n"
	  "job ran to its time limit; WHY is what holds it now.",
	  forecast_opts, NULL, 0, "docs/forecast.md" },
	{ "shadow", "[report DB]", "forecast a Slurm cluster's waiting jobs, read-only, and score the forecasts",
	  "Runs beside a Slurm cluster that hetlab does not control, read-only: it\n"
	  "only ever runs squeue, sinfo and sacct. Every --every seconds it builds\n"
	  "the Slurm twin's state from what Slurm reports (slurm.conf read as twin\n"
	  "build reads it), forecasts each waiting job's start (p10 / p50 / p90, run\n"
	  "times learned from the jobs it saw end) and records each forecast, what\n"
	  "squeue --start said then and each job's actual start in DIR/shadow.db.\n"
	  "`hetlab shadow report DB` prints the forecasts' accuracy by wait length.",
	  shadow_opts, NULL, 0, "docs/forecast.md" },
	{ "why", "ID", "what holds a waiting live job, and when it will start",
	  "Prints what holds a waiting job of the live daemon now, as its policy\n"
	  "says (quota, no node with the resources free, the reservation of another\n"
	  "job, ...), and its forecast start (p10 / p50 / p90).",
	  forecast_opts, NULL, 0, "docs/forecast.md" },
	{ "cancel", "ID...", "cancel live jobs",
	  "Cancels live jobs: pending ones leave the queue, running ones are killed.",
	  stateonly_opts, NULL, 0, "docs/live.md" },
	{ "approve", "TENANT...", "release a tenant's jobs held for quota",
	  "Approves, in a live daemon, the jobs of each tenant (a name from the\n"
	  "scenario's org, or its index) held for quota: they are released and run\n"
	  "over quota (the scenario's timed \"approve\" events, live).",
	  stateonly_opts, NULL, 0, "docs/live.md" },
	{ "replay", "STATE_DIR", "re-run a live recording in the simulator",
	  "Runs the simulator on a live daemon's recording (job arrivals, exits,\n"
	  "cancels, probe readings) with the same policy and compares its decisions\n"
	  "with the daemon's decision log: prints the differences (none when the\n"
	  "same code made the same decisions at the same times; exit 1 otherwise).\n"
	  "--results also writes the run's results database (hetlab report reads it).\n"
	  "--from-snapshot starts from the daemon's snapshot of its engine and\n"
	  "compares the decisions after it (in the time of the jobs since).",
	  replay_opts, NULL, D, "docs/live.md" },
	{ "state-prune", "STATE_DIR", "archive a live state's old history",
	  "Moves the rows a live state recorded before the latest kept snapshot\n"
	  "(STATE_DIR/snapshots) at or before the cutoff — the recording, the\n"
	  "decision log and the ended jobs — into an archive beside the state\n"
	  "(STATE_DIR/archive/FROM-TO, written and flushed first), then deletes\n"
	  "them, so that state.db stays the size of a window. `hetlab replay` and\n"
	  "results.db read the archives with the state; `hetlab replay\n"
	  "STATE_DIR/archive/FROM-TO` proves an archived window. Only the state's\n"
	  "owner may prune it; the daemon may run meanwhile.",
	  sprune_opts, NULL, D, "docs/live.md" },
	{ "version", NULL, "print the version", "Prints the version.", NULL, NULL, 0, NULL },
	{ "help", "[COMMAND [SUBCOMMAND]]", "print help for a command",
	  "Prints the help of a command, the same text as `hetlab COMMAND --help`;\n"
	  "without a COMMAND, the list of commands.",
	  help_opts, NULL, CLI_C_COMMAND, NULL },
	END,
};

const struct cli_cmd *cli_cmd_find(const char *path)
{
	const struct cli_cmd *tab = cli_commands, *hit = NULL;
	const char *s = path;
	while (tab && *s) {
		size_t n = strcspn(s, " ");
		hit = NULL;
		for (const struct cli_cmd *c = tab; c->name; c++)
			if (strlen(c->name) == n && strncmp(c->name, s, n) == 0) {
				hit = c;
				break;
			}
		if (!hit)
			return NULL;
		s += n;
		while (*s == ' ')
			s++;
		tab = hit->subs;
	}
	return *s ? NULL : hit;
}
