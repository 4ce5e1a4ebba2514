/* hetlab policies — lists the registered policies and their parameters, the
 * placement strategies, and the FGD-paper GPU-sharing scores. */
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "policies/gpushare.h"
#include "policies/placement.h"
#include "policies/policy.h"

int cmd_policies(int argc, char **argv)
{
	struct cli_args ap;
	int c;
	cli_args_init(&ap, "policies", argc, argv);
	while ((c = cli_next(&ap)) != CLI_END)
		switch (c) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		default: return cli_usage(&ap, "takes no arguments ('%s')", ap.val);
		}
	printf("Queue disciplines (hetlab run --policy P; parameters with --param NAME=VALUE):\n\n");
	const struct policy_ops *const *all = policy_all();
	int w = 18;   /* the parameters' column: the longest name */
	for (int i = 0; all[i]; i++)
		for (int k = 0; all[i]->params && all[i]->params[k].name; k++)
			if ((int)strlen(all[i]->params[k].name) > w)
				w = (int)strlen(all[i]->params[k].name);
	for (int i = 0; all[i]; i++) {
		printf("%-14s %s\n", all[i]->name, all[i]->summary);
		for (int k = 0; all[i]->params && all[i]->params[k].name; k++) {
			const struct policy_param *p = &all[i]->params[k];
			printf("    %-*s default %-8g %s\n", w, p->name, p->def, p->doc);
		}
	}
	printf("\nPlacement strategies (with any queue discipline; scenario \"placement\" or --placement S):\n\n");
	const struct placement_ops *const *pl = placement_all();
	for (int i = 0; pl[i]; i++)
		printf("%-14s %s\n", pl[i]->name, pl[i]->summary);
	printf("\nGPU-sharing placement scores (hetlab frag --policies LIST; docs/policies.md):\n\n");
	for (int i = 0; gpushare_table[i]; i++)
		printf("%-14s %s (%s)\n", gpushare_table[i]->name, gpushare_table[i]->summary,
		       gpushare_table[i]->paper);
	return 0;
}
