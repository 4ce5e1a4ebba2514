/* hetlab — the command-line front end: dispatch to one subcommand per file
 * (the command's row in cli/cmdtab.c, its entry point here), and the `help`
 * and `version` commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/args.h"
#include "cli/cmd.h"

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
			return cli_unknown(NULL, "command", words[0], cli_commands);
		snprintf(path, sizeof path, "%s", words[0]);
	}
	if (nw == 2) {
		if (!cmd->subs)
			return cli_usage(&p, "'%s' has no sub-commands", words[0]);
		snprintf(path, sizeof path, "%s %s", words[0], words[1]);
		if (!(cmd = cli_cmd_find(path))) {
			char prog[64];
			snprintf(prog, sizeof prog, "help %s", words[0]);
			return cli_unknown(prog, "command", words[1], cli_cmd_find(words[0])->subs);
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

/* Each command's entry point, by the name of its row in the command table
 * (cli/cmdtab.c, which holds no code: the commands read their options from
 * it). tests/cli/run.sh runs every command of the table through here. */
static const struct { const char *name; int (*fn)(int argc, char **argv); } entry[] = {
	{ "run", cmd_run },
	{ "report", cmd_report },
	{ "jobs", cmd_jobs },
	{ "bill", cmd_bill },
	{ "trace", cmd_trace },
	{ "export", cmd_export },
	{ "frag", cmd_frag },
	{ "compare", cmd_compare },
	{ "plot", cmd_plot },
	{ "sweep", cmd_sweep },
	{ "plan", cmd_plan },
	{ "scenario", cmd_scenario },
	{ "twin", cmd_twin },
	{ "policies", cmd_policies },
	{ "catalog", cmd_catalog },
	{ "audit", cmd_audit },
	{ "probe", cmd_probe },
	{ "live", cmd_live },
	{ "submit", cmd_submit },
	{ "queue", cmd_queue },
	{ "forecast", cmd_forecast },
	{ "why", cmd_why },
	{ "shadow", cmd_shadow },
	{ "cancel", cmd_cancel },
	{ "approve", cmd_approve },
	{ "replay", cmd_replay },
	{ "state-prune", cmd_state_prune },
	{ "version", cmd_version },
	{ "help", cmd_help },
};

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
		if (strcmp(c->name, a) == 0) {
			for (size_t k = 0; k < sizeof entry / sizeof entry[0]; k++)
				if (strcmp(entry[k].name, a) == 0)
					return entry[k].fn(argc - 1, argv + 1);
			fprintf(stderr, "hetlab: internal error: the command '%s' has no entry point\n", a);
			return 70;
		}
	if (a[0] == '-') {
		fprintf(stderr, "hetlab: unknown option '%s' (options go after the command; 'hetlab --help')\n", a);
		return CLI_USAGE;
	}
	return cli_unknown(NULL, "command", a, cli_commands);
}
