/* hetlab scenario list | show [NAME] | check FILE — the embedded scenarios,
 * so that an installed hetlab (no source tree) can print one to start a
 * planning file from, and a check of a scenario file (docs/planning.md). */
#include "cli/cmd.h"

#include <stdio.h>
#include <string.h>

#include "traces/scenario.h"

/* Declared in cli/main.c too (cli/cmd.h belongs to another change). */
int cmd_scenario(int argc, char **argv);

static const char usage[] =
	"usage: hetlab scenario list\n"
	"       hetlab scenario show [NAME]     (default: guian, the embedded default)\n"
	"       hetlab scenario check FILE\n";

/* The embedded scenarios: name, text, one line. */
static const struct {
	const char *name;
	const char *(*text)(void);
	const char *what;
} embedded[] = {
	{ "guian", scenario_default_text, "the default: 48 GPU and CPU nodes in 9 racks, one synthetic week, power and faults" },
	{ NULL, NULL, NULL },
};

int cmd_scenario(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;
	if (!sub || strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
		fputs(usage, sub ? stdout : stderr);
		return sub ? 0 : 2;
	}
	if (strcmp(sub, "list") == 0 && argc == 2) {
		for (int i = 0; embedded[i].name; i++)
			printf("%-10s %s\n", embedded[i].name, embedded[i].what);
		return 0;
	}
	if (strcmp(sub, "show") == 0 && argc <= 3) {
		const char *name = argc == 3 ? argv[2] : "guian";
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
	fprintf(stderr, "hetlab scenario: unknown use\n%s", usage);
	return 2;
}
