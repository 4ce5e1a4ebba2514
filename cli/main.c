/* hetlab — the command-line front end: dispatch to one subcommand per file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"

struct subcmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *help;
};

static const struct subcmd cmds[] = {
	{ "run", cmd_run,
	  "hetlab run [SCENARIO] [--policy P] [--seed N] [--trace FILE] [--out DB] [--traces DIR] [--lenient] [--param K=V]\n"
	  "             [--scale-rate X] [--scale-size X] [--scale-class CLASS=X]",
	  "Runs a scenario (default: the embedded scenarios/guian.json) and writes\n"
	  "one SQLite database (default run.db). --trace replaces the scenario's\n"
	  "workload with a trace file (SWF, plain or .gz, or .jsonl). --param sets a\n"
	  "policy parameter. A progress line is shown on a terminal for runs over a\n"
	  "second. The --scale-* knobs grow a synthetic workload for planning: every\n"
	  "arrival rate × X, GPU and core counts × X, or one class's rate × X\n"
	  "(\"what if demand grows 40 %?\" is --scale-rate 1.4)." },
	{ "report", cmd_report, "hetlab report RUN.DB [--format text|json]",
	  "Summarises a run database: jobs, makespan, utilisation, waits,\n"
	  "bounded slowdown, per class." },
	{ "trace", cmd_trace, "hetlab trace convert IN OUT [--lenient] | hetlab trace inspect FILE [--json] [--lenient]",
	  "Converts a trace to native JSON Lines, or prints its statistics." },
	{ "policies", cmd_policies, "hetlab policies",
	  "Lists the scheduling policies and their parameters." },
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
