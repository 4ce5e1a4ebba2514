/* hetlab — the command-line front end: dispatch to one subcommand per file
 * through the command table (cli/cmdtab.c), and the `help` and `version`
 * commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

int cmd_version(int argc, char **argv)
{
	struct cli_args p;
	int c;
	cli_args_init(&p, "version", argc, argv);
	while ((c = cli_next(&p)) != CLI_END)
		switch (c) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		default: return cli_usage(&p, "takes no arguments ('%s')", p.val ? p.val : p.opt);
		}
	printf("hetlab %s\n", HETLAB_VERSION);
	return CLI_OK;
}

/* Edit distance, for "did you mean". */
static int distance(const char *a, const char *b)
{
	int n = (int)strlen(b), row[64];
	if (n >= 63 || strlen(a) >= 63)
		return 99;
	for (int j = 0; j <= n; j++)
		row[j] = j;
	for (int i = 1; a[i - 1]; i++) {
		int diag = row[0];
		row[0] = i;
		for (int j = 1; j <= n; j++) {
			int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[n];
}

/* One line naming the unknown word, and a hint. */
static int unknown(const char *prog, const char *what, const char *word, const struct cli_cmd *tab)
{
	const char *best = NULL;
	int bd = 3;
	for (const struct cli_cmd *c = tab; c->name; c++) {
		int d = distance(word, c->name);
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
	unknown(cmd, "command", argv[1], top->subs);
	return NULL;
}

static void list_commands(void)
{
	for (const struct cli_cmd *c = cli_commands; c->name; c++) {
		printf("%s\n", c->name);
		for (const struct cli_cmd *s = c->subs; s && s->name; s++)
			printf("%s %s\n", c->name, s->name);
	}
}

int cmd_help(int argc, char **argv)
{
	struct cli_args p;
	const char *words[2] = { NULL, NULL }, *shell = NULL;
	int nw = 0, c, k;
	bool man = false, list = false;
	cli_args_init(&p, "help", argc, argv);
	while ((c = cli_next(&p)) != CLI_END)
		switch (c) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case OPT_MAN: man = true; break;
		case OPT_LIST: list = true; break;
		case OPT_COMPLETION:
			if (cli_choice(&p, "bash zsh", &k))
				return CLI_USAGE;
			shell = p.val;
			break;
		case CLI_POS:
			if (nw == 2)
				return cli_usage(&p, "at most a command and a sub-command ('%s')", p.val);
			words[nw++] = p.val;
			break;
		}
	if (shell || list) {
		if (nw || man || (shell && list))
			return cli_usage(&p, "--completion and --list take nothing else");
		if (list)
			list_commands();
		else
			cli_print_completion(stdout, shell);
		return CLI_OK;
	}
	char path[128] = "";
	const struct cli_cmd *cmd = NULL;
	if (nw) {
		if (!(cmd = cli_cmd_find(words[0])))
			return unknown(NULL, "command", words[0], cli_commands);
		snprintf(path, sizeof path, "%s", words[0]);
	}
	if (nw == 2) {
		if (!cmd->subs)
			return cli_usage(&p, "'%s' has no sub-commands", words[0]);
		snprintf(path, sizeof path, "%s %s", words[0], words[1]);
		if (!(cmd = cli_cmd_find(path))) {
			char prog[64];
			snprintf(prog, sizeof prog, "help %s", words[0]);
			return unknown(prog, "command", words[1], cli_cmd_find(words[0])->subs);
		}
	}
	if (man) {
		if (nw == 2)
			return cli_usage(&p, "--man: one page per command ('hetlab help --man %s')", words[0]);
		return cli_print_man(stdout, path) == 0 ? CLI_OK : CLI_FAIL;
	}
	if (!cmd)
		cli_print_overview(stdout);
	else
		cli_print_help(stdout, cmd, path);
	return CLI_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "hetlab: which command? ('hetlab --help' lists them)\n");
		return CLI_USAGE;
	}
	const char *a = argv[1];
	if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
		return cmd_help(argc - 1, argv + 1);
	if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0)
		return cmd_version(argc - 1, argv + 1);
	for (const struct cli_cmd *c = cli_commands; c->name; c++)
		if (strcmp(c->name, a) == 0)
			return c->fn(argc - 1, argv + 1);
	if (a[0] == '-') {
		fprintf(stderr, "hetlab: unknown option '%s' (options go after the command; 'hetlab --help')\n", a);
		return CLI_USAGE;
	}
	return unknown(NULL, "command", a, cli_commands);
}
