/* hetlab scenario list | show [NAME] | check FILE — the embedded scenarios,
 * so that an installed hetlab (no source tree) can print one to start a
 * planning file from, and a check of a scenario file (docs/planning.md). */
#include "cli/args.h"
#include "cli/cmd.h"

#include <stdio.h>
#include <string.h>

#include "config/scenario.h"

/* Declared in cli/main.c too (cli/cmd.h belongs to another change). */
int cmd_scenario(int argc, char **argv);

/* The embedded scenarios: name, text, one line. */
static const struct {
	const char *name;
	const char *(*text)(void);
	const char *what;
} embedded[] = {
	{ "default", scenario_default_text, "what `hetlab run` runs: guian under pressure, tiered policy, quotas, a rack's power cut" },
	{ "guian", scenario_guian_text, "48 GPU and CPU nodes in 9 racks, one synthetic week, power and faults (plans, sweeps)" },
	{ NULL, NULL, NULL },
};

int cmd_scenario(int argc, char **argv)
{
	int rc;
	const struct cli_cmd *cmd = cli_sub_find("scenario", argc, argv, &rc);
	if (!cmd)
		return rc;
	/* the sub-command's arguments, from the shared parser */
	const char *sub = cmd->name, *args[2] = { NULL, NULL };
	int nargs = 0;
	char path[32];
	snprintf(path, sizeof path, "scenario %s", sub);
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, path, argc - 1, argv + 1);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case CLI_POS:
			if (nargs == 2)
				return cli_usage(&ap, "too many arguments ('%s')", ap.val);
			args[nargs++] = ap.val;
			break;
		}
	/* argv as the checks below read it: the sub-command and its arguments */
	char *av[4] = { argv[0], (char *)sub, (char *)args[0], (char *)args[1] };
	argc = 2 + nargs;
	argv = av;
	if (strcmp(sub, "list") == 0 && argc == 2) {
		for (int i = 0; embedded[i].name; i++)
			printf("%-10s %s\n", embedded[i].name, embedded[i].what);
		return 0;
	}
	if (strcmp(sub, "show") == 0 && argc <= 3) {
		const char *name = argc == 3 ? argv[2] : "default";
		for (int i = 0; embedded[i].name; i++)
			if (strcmp(embedded[i].name, name) == 0) {
				fputs(embedded[i].text(), stdout);
				return fflush(stdout) == 0 ? 0 : 1;
			}
		fprintf(stderr, "hetlab scenario: no embedded scenario '%s' (hetlab scenario list)\n", name);
		return 1;
	}
	if (strcmp(sub, "check") == 0 && argc == 3) {
		struct scenario sc;
		char err[2048];
		int r = scenario_load(argv[2], &sc, err, sizeof err);
		if (r < 0)
			fprintf(stderr, "hetlab scenario: %s\n", err);
		else
			printf("%s: scenario %s: %d node types, %d racks, %d nodes\n", argv[2], sc.name,
			       sc.cl.ntypes, sc.cl.nracks, sc.cl.nnodes);
		scenario_free(&sc);
		return r < 0 ? 1 : 0;
	}
	return cli_usage(&ap, "%s", strcmp(sub, "list") == 0 ? "takes no arguments" :
	                 strcmp(sub, "show") == 0 ? "at most one NAME" : "which FILE? (one scenario file)");
}
