/* args — the one argument parser of every hetlab subcommand, and the table
 * that describes each command (cli/cmdtab.c). The same table produces the
 * parser's behaviour, `hetlab help CMD` (= `hetlab CMD --help`), the man
 * pages and the shell completions, so that they cannot drift apart.
 *
 * Conventions, the same for every command (docs/cli.md):
 *   --opt=value and --opt value; -o value and -ovalue; -ab for two flags;
 *   -- ends the options; a lone - is an argument (stdin);
 *   -h/--help prints the command's help on stdout and exits 0;
 *   exit status 0 success, 1 the work failed, 2 usage error.
 *
 * A command's option loop:
 *     struct cli_args p;
 *     int c;
 *     cli_args_init(&p, "run", argc, argv);
 *     while ((c = cli_next(&p)) != CLI_END) switch (c) {
 *     case CLI_HELP: return 0;
 *     case CLI_ERR:  return 2;
 *     case CLI_POS:  ... p.val is the argument ...; break;
 *     case 'p':      policy = p.val; break;
 *     ...
 *     }
 * Tables are static and borrowed; the parser allocates nothing. */
#ifndef HL_ARGS_H
#define HL_ARGS_H

#include <stdbool.h>
#include <stdio.h>

/* What cli_next returns besides an option's key. */
enum {
	CLI_END = -1,  /* no more arguments */
	CLI_POS = -2,  /* a positional argument, in p->val */
	CLI_HELP = -3, /* --help was printed on stdout: return 0 */
	CLI_ERR = -4,  /* a usage error was printed on stderr: return 2 */
};

/* Exit statuses of every command. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* The option keys: one per long option name, the same key for the same
 * name in every command (so --out means one thing everywhere). */
enum cli_key {
	OPT_NONE = 0,
	OPT_ALL = 256, OPT_ARCHIVE, OPT_BEFORE, OPT_BURST_GAP, OPT_BY, OPT_COMPARE, OPT_COMPLETION,
	OPT_CONFIG, OPT_DAYS, OPT_DISK, OPT_DIST, OPT_DRY_RUN, OPT_EMPIRICAL, OPT_ENDTIME,
	OPT_EXECUTOR, OPT_EXHAUSTIVE, OPT_EXIT_WHEN_IDLE, OPT_FORMAT, OPT_HELPFORMAT, OPT_INFLATE,
	OPT_INTERVAL_MS, OPT_JOB, OPT_JOBS, OPT_JSON, OPT_LABEL_BLIND, OPT_LENIENT, OPT_LEVEL,
	OPT_MAN, OPT_MAX_PARALLEL, OPT_MAX_S, OPT_MERGE, OPT_METRIC, OPT_METRICS_ADDR,
	OPT_METRICS_PORT, OPT_METRICS_PUBLIC, OPT_MIG, OPT_NO_COMPARE, OPT_NODES, OPT_NOHEADER,
	OPT_OLDER_THAN, OPT_OUT, OPT_PARAM, OPT_PARSABLE, OPT_PARSABLE2, OPT_PARTITION, OPT_PERIOD,
	OPT_PLACEMENT, OPT_PLOT, OPT_POD, OPT_PODS, OPT_POINT, OPT_POLICIES, OPT_POLICY, OPT_QUIET,
	OPT_READING, OPT_RECORDS, OPT_RESULTS, OPT_SBATCH_ARG, OPT_SCALE_CLASS, OPT_SCALE_RATE,
	OPT_SCALE_SIZE, OPT_SEED, OPT_SEEDS, OPT_SLURM, OPT_SPEED, OPT_STARTTIME, OPT_STATE,
	OPT_SYSFS_ROOT, OPT_TENANTS, OPT_TOPOLOGY_XML, OPT_TRACE, OPT_TRACES, OPT_WAIT, OPT_LIST,
	OPT_VERSION, OPT_ORIGIN, OPT_WARMUP, OPT_COOLDOWN, OPT_ARRIVALS_ONLY, OPT_LIST_METRICS, OPT_INDEPENDENT,
	OPT_RECORD, OPT_AUDIT_KEY, OPT_KEY, OPT_PUBKEY, OPT_EXPECT_HEAD, OPT_SOCKET,
	OPT_STORE_METRICS, OPT_THREADS, OPT_FROM_SNAPSHOT, OPT_SNAPSHOT, OPT_KEEP_DAYS,
	OPT_SLURM_CONF, OPT_GRES_CONF, OPT_ASSOC, OPT_QOS, OPT_EVENTS, OPT_SACCT, OPT_CTLD_LOG, OPT_GPU_MODEL, OPT_NAME, OPT_BF_INTERVAL,
	OPT_EVERY, OPT_POLLS, OPT_DRAWS,
};

/* Option flags. */
#define CLI_OPTARG 1u /* the value is optional: --opt=V, or the next argument unless it starts with '-' */
#define CLI_REPEAT 2u /* may be given more than once (for the help text) */
#define CLI_HIDDEN 4u /* accepted (an old spelling) but not listed */

/* Completion hints for an option's value or the positional arguments. */
enum cli_comp { CLI_C_NONE, CLI_C_FILE, CLI_C_DIR, CLI_C_WORDS, CLI_C_POLICY, CLI_C_COMMAND,
                CLI_C_EXECUTOR /* the executors' registry's names */ };

struct cli_opt {
	int key;               /* what cli_next returns: the short letter, or a value >= 256 */
	const char *lng;       /* long name without "--" */
	char shrt;             /* short letter, or 0 */
	const char *arg;       /* the value's metavariable ("FILE"), NULL for a flag */
	const char *help;      /* one sentence; wrapped by the printer */
	unsigned flags;        /* CLI_OPTARG | CLI_REPEAT | CLI_HIDDEN */
	enum cli_comp comp;    /* what completes the value */
	const char *words;     /* CLI_C_WORDS: the space-separated choices */
};

struct cli_cmd {
	const char *name;           /* "run"; a sub-command's own name ("convert") */
	const char *args;           /* positional synopsis: "[SCENARIO]", or NULL */
	const char *summary;        /* one line, for `hetlab help` and the man page's NAME */
	const char *desc;           /* paragraphs, wrapped at 76 columns by hand */
	const struct cli_opt *opts; /* ends with { 0 }; may be NULL */
	const struct cli_cmd *subs; /* sub-commands (trace convert ...), ends with { 0 }; or NULL */
	enum cli_comp pos_comp;     /* what completes a positional argument */
	const char *see;            /* docs page(s), "docs/live.md", or NULL */
};

/* The command table (cli/cmdtab.c), ending with { 0 }. */
extern const struct cli_cmd cli_commands[];

/* The command "run" or the sub-command "trace convert"; NULL if none. */
const struct cli_cmd *cli_cmd_find(const char *path);

struct cli_args {
	const struct cli_cmd *cmd;
	char prog[64];       /* "run", "trace convert": for messages */
	int argc;
	char **argv;
	int i;               /* the next argv index */
	const char *shortp;  /* inside a bundle of short flags */
	bool dashdash;       /* after "--": positional only */
	const char *val;     /* the option's value or the positional argument */
	const char *opt;     /* the option as written, for messages: "--seed" */
	char optbuf[64];
	const struct cli_opt *cur;
};

/* argv[0] is the command's name; parsing starts at argv[1]. path names the
 * table entry ("run", "trace convert"); it must exist. */
void cli_args_init(struct cli_args *p, const char *path, int argc, char **argv);
int cli_next(struct cli_args *p);

/* Prints "hetlab PROG: MESSAGE" and a hint to --help on stderr; returns
 * CLI_USAGE (2), so that `return cli_usage(&p, ...)` exits with it. */
int cli_usage(const struct cli_args *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Value parsers for the current option: 0 ok, else a usage error printed
 * (return 2). */
int cli_long(const struct cli_args *p, long long lo, long long hi, long long *out);
int cli_double(const struct cli_args *p, double lo, double hi, double *out);
/* The value must be one of the space-separated words; *out its index. */
int cli_choice(const struct cli_args *p, const char *words, int *out);

/* For a command with sub-commands (trace, audit, export), from its argv:
 * the sub-command's table entry, or NULL after printing its help (*rc 0)
 * or a usage error (*rc 2). Then cli_args_init(&p, "trace convert",
 * argc - 1, argv + 1). (cli/main.c) */
const struct cli_cmd *cli_sub_find(const char *cmd, int argc, char **argv, int *rc);
/* "hetlab PROG: unknown WHAT 'word'" with the nearest names of tab as a
 * suggestion, on stderr; returns CLI_USAGE. prog NULL: hetlab itself. */
int cli_unknown(const char *prog, const char *what, const char *word, const struct cli_cmd *tab);

/* The measurement-window options (OPT_WARMUP, OPT_COOLDOWN,
 * OPT_ARRIVALS_ONLY) into w: 0, or a usage error printed (2). cli/argwin.c */
struct metric_window;
int cli_window_opt(const struct cli_args *p, int key, struct metric_window *w);

/* Help, man pages and completions (cli/helpgen.c). */
void cli_print_help(FILE *out, const struct cli_cmd *cmd, const char *prog);
void cli_print_overview(FILE *out);
int cli_print_man(FILE *out, const char *path);
int cli_print_completion(FILE *out, const char *shell);
/* "Docs: ..." for this copy: the installed documentation or the source tree. */
void cli_docs_line(char *buf, size_t len);

#endif
