/* cmd_twin_check — `hetlab twin check`: a stub until its own change lands
 * (docs/slurm-twin.md). */
#include "cli/args.h"
#include "cli/cmd.h"

#include <stdio.h>

int cmd_twin_check(int argc, char **argv)
{
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "twin check", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		}
	fprintf(stderr, "hetlab twin check: not built yet\n");
	return CLI_FAIL;
}
