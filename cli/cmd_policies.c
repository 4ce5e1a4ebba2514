/* hetlab policies — lists the registered policies and their parameters, the
 * placement strategies, and the FGD-paper GPU-sharing scores. */
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "policies/gpushare.h"
#include "policies/placement.h"
#include "policies/policy.h"

/* A policy with more parameters than this lists them only when named. */
#define POLICIES_INLINE 16

static int name_width(const struct policy_ops *const *all)
{
	int w = 18;   /* the parameters' column: the longest name */
	for (int i = 0; all[i]; i++)
		for (int k = 0; all[i]->params && all[i]->params[k].name; k++)
			if ((int)strlen(all[i]->params[k].name) > w)
				w = (int)strlen(all[i]->params[k].name);
	return w;
}

static void print_params(const struct policy_ops *p, int w)
{
	for (int k = 0; p->params && p->params[k].name; k++)
		printf("    %-*s default %-8g %s\n", w, p->params[k].name, p->params[k].def, p->params[k].doc);
}

static int nparams(const struct policy_ops *p)
{
	int n = 0;
	while (p->params && p->params[n].name)
		n++;
	return n;
}

int cmd_policies(int argc, char **argv)
{
	struct cli_args ap;
	int c;
	const char *only = NULL;
	cli_args_init(&ap, "policies", argc, argv);
	while ((c = cli_next(&ap)) != CLI_END)
		switch (c) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case CLI_POS:
			if (only)
				return cli_usage(&ap, "takes one policy ('%s' after '%s')", ap.val, only);
			only = ap.val;
			break;
		default: return cli_usage(&ap, "unknown option '%s'", ap.val);
		}
	const struct policy_ops *const *all = policy_all();
	if (only) {
		const struct policy_ops *p = policy_find(only);
		if (!p) {
			fprintf(stderr, "hetlab policies: unknown policy '%s' (known:", only);
			for (int i = 0; all[i]; i++)
				fprintf(stderr, " %s", all[i]->name);
			fprintf(stderr, ")\n");
			return CLI_USAGE;
		}
		printf("%s: %s\n", p->name, p->summary);
		if (nparams(p) == 0)
			printf("    (no parameters)\n");
		else
			printf("parameters (hetlab run --param NAME=VALUE, or the scenario's \"policy_params\"):\n");
		const struct policy_ops *one[2] = { p, NULL };
		print_params(p, name_width(one));
		return 0;
	}
	printf("Queue disciplines (hetlab run --policy P; parameters with --param NAME=VALUE):\n\n");
	int w = 18;
	for (int i = 0; all[i]; i++)
		if (nparams(all[i]) <= POLICIES_INLINE) {
			const struct policy_ops *one[2] = { all[i], NULL };
			if (name_width(one) > w)
				w = name_width(one);
		}
	for (int i = 0; all[i]; i++) {
		printf("%-14s %s\n", all[i]->name, all[i]->summary);
		if (nparams(all[i]) > POLICIES_INLINE)
			printf("    %d parameters: hetlab policies %s\n", nparams(all[i]), all[i]->name);
		else
			print_params(all[i], w);
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
