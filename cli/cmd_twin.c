/* cmd_twin — `hetlab twin build|check`: a Slurm site's digital twin
 * (docs/slurm-twin.md). build is config/twinbuild.c's; check is
 * cli/cmd_twin_check.c. */
#include "cli/args.h"
#include "cli/cmd.h"

#include <stdio.h>
#include <string.h>

#include "config/twinbuild.h"

static int twin_build_cmd(int argc, char **argv)
{
	struct twin_opts o = { 0 };
	struct cli_args ap;
	int opt;
	cli_args_init(&ap, "twin build", argc, argv);
	while ((opt = cli_next(&ap)) != CLI_END)
		switch (opt) {
		case CLI_HELP: return CLI_OK;
		case CLI_ERR: return CLI_USAGE;
		case CLI_POS: return cli_usage(&ap, "takes no arguments ('%s'): the files are options", ap.val);
		case OPT_SLURM_CONF: o.slurm_conf = ap.val; break;
		case OPT_GRES_CONF: o.gres_conf = ap.val; break;
		case OPT_ASSOC: o.assoc = ap.val; break;
		case OPT_QOS: o.qos = ap.val; break;
		case OPT_EVENTS: o.events = ap.val; break;
		case OPT_SACCT: o.sacct = ap.val; break;
		case OPT_CTLD_LOG: o.ctld_log = ap.val; break;
		case OPT_NAME:
			if (!ap.val[0] || strlen(ap.val) > 63)
				return cli_usage(&ap, "--name: 1 to 63 bytes, got '%s'", ap.val);
			o.name = ap.val;
			break;
		case OPT_OUT: o.out = ap.val; break;
		case OPT_GPU_MODEL: {
			const char *eq = strchr(ap.val, '=');
			if (!eq || eq == ap.val || !eq[1] || (size_t)(eq - ap.val) >= sizeof o.gpu_map[0].type ||
			    strlen(eq + 1) >= sizeof o.gpu_map[0].model)
				return cli_usage(&ap, "--gpu-model: expected TYPE=MODEL (a GRES type and a catalog GPU "
				                 "model), got '%s'", ap.val);
			if (o.ngpu_map == TWIN_MAX_GPU_MAP)
				return cli_usage(&ap, "--gpu-model: at most %d", TWIN_MAX_GPU_MAP);
			snprintf(o.gpu_map[o.ngpu_map].type, sizeof o.gpu_map[0].type, "%.*s", (int)(eq - ap.val), ap.val);
			snprintf(o.gpu_map[o.ngpu_map].model, sizeof o.gpu_map[0].model, "%s", eq + 1);
			o.ngpu_map++;
			break;
		}
		}
	if (!o.slurm_conf || !o.sacct || !o.out)
		return cli_usage(&ap, "needs --slurm-conf FILE, --sacct FILE and --out TWIN.json");
	struct twin_sum sum = { 0 };
	struct slurm_msgs warn = { 0 };
	char err[2048] = "";
	int rc = twin_build(&o, &sum, &warn, err, sizeof err);
	for (int32_t i = 0; i < warn.n; i++)
		fprintf(stderr, "hetlab twin build: warning: %s\n", warn.v[i]);
	if (rc) {
		fprintf(stderr, "hetlab twin build: %s\n", err);
	} else {
		printf("hetlab twin build: cluster %s: %d nodes (%d node types, %d GPUs), %d partitions, %d QOS, "
		       "%d accounts, %d users; %d jobs of %s; node outages: %d -> %s\n", sum.name, sum.nodes,
		       sum.node_types, sum.gpus, sum.partitions, sum.qos, sum.accounts, sum.users, sum.jobs, o.sacct,
		       sum.node_events, o.out);
		for (int32_t i = 0; i < sum.notes.n; i++)
			printf("  %s\n", sum.notes.v[i]);
		if (warn.n)
			printf("  not modelled: %d warnings (on stderr)\n", warn.n);
	}
	slurm_msgs_free(&warn);
	slurm_msgs_free(&sum.notes);
	return rc ? CLI_FAIL : CLI_OK;
}

int cmd_twin(int argc, char **argv)
{
	int rc;
	const struct cli_cmd *sub = cli_sub_find("twin", argc, argv, &rc);
	if (!sub)
		return rc;
	if (strcmp(sub->name, "build") == 0)
		return twin_build_cmd(argc - 1, argv + 1);
	return cmd_twin_check(argc - 1, argv + 1);
}
