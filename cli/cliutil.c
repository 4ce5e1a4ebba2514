/* cliutil — what the commands share besides the parser (cli/args.c): the
 * trace directory, a same-file test, the "unknown command, did you mean"
 * message and the lookup of a sub-command (trace, audit, export, scenario).
 * Below every command file and cli/main.c, which dispatches to them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/metric_labels.h"
#include "cli/args.h"
#include "cli/cmd.h"

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

/* One line naming the unknown word, and a hint. */
int cli_unknown(const char *prog, const char *what, const char *word, const struct cli_cmd *tab)
{
	const char *best = NULL;
	int bd = 3;
	for (const struct cli_cmd *c = tab; c->name; c++) {
		int d = metric_edit_distance(word, c->name, false);
		if (d < bd || (strncmp(c->name, word, strlen(word)) == 0 && strlen(word) >= 2 && bd > 1)) {
			bd = d < bd ? d : 1;
			best = c->name;
		}
	}
	if (best)
		fprintf(stderr, "hetlab%s%s: unknown %s '%s'; did you mean '%s'? ('hetlab%s%s --help' lists them)\n",
		        prog ? " " : "", prog ? prog : "", what, word, best, prog ? " " : "", prog ? prog : "");
	else
		fprintf(stderr, "hetlab%s%s: unknown %s '%s' ('hetlab%s%s --help' lists them)\n",
		        prog ? " " : "", prog ? prog : "", what, word, prog ? " " : "", prog ? prog : "");
	return CLI_USAGE;
}

/* For the commands with sub-commands (trace, audit, export): the table entry
 * of argv[1], or NULL after printing help (*rc 0) or a usage error (*rc 2). */
const struct cli_cmd *cli_sub_find(const char *cmd, int argc, char **argv, int *rc)
{
	const struct cli_cmd *top = cli_cmd_find(cmd);
	*rc = CLI_USAGE;
	if (argc < 2) {
		fprintf(stderr, "hetlab %s: which command? ('hetlab %s --help' lists them)\n", cmd, cmd);
		return NULL;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		cli_print_help(stdout, top, cmd);
		*rc = CLI_OK;
		return NULL;
	}
	for (const struct cli_cmd *s = top->subs; s->name; s++)
		if (strcmp(s->name, argv[1]) == 0)
			return s;
	if (argv[1][0] == '-') {
		fprintf(stderr, "hetlab %s: unknown option %s (give the command first)\nTry 'hetlab %s --help'.\n",
		        cmd, argv[1], cmd);
		return NULL;
	}
	cli_unknown(cmd, "command", argv[1], top->subs);
	return NULL;
}
