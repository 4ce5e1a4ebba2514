/* cmd — the hetlab subcommands. One file per subcommand in cli/, each an
 * int cmd_X(int argc, char **argv) that parses its arguments (argv[0] is the
 * subcommand's name), prints errors as "hetlab X: ..." on stderr and returns
 * the process exit status: 0 ok, 1 failure, 2 usage error. */
#ifndef HL_CMD_H
#define HL_CMD_H

#include <stdbool.h>

int cmd_run(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_trace(int argc, char **argv);
/* `hetlab trace fit` and `hetlab trace synth` (argv[0] is "fit" / "synth"). */
int cmd_trace_fit(int argc, char **argv);
int cmd_trace_synth(int argc, char **argv);
int cmd_policies(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_frag(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_catalog(int argc, char **argv);
int cmd_bill(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_live(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_queue(int argc, char **argv);
int cmd_forecast(int argc, char **argv);
int cmd_shadow(int argc, char **argv);
int cmd_why(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_state_prune(int argc, char **argv);
int cmd_approve(int argc, char **argv);
int cmd_jobs(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_scenario(int argc, char **argv);
/* `hetlab twin build` and `hetlab twin check` (argv[0] is "build" / "check"). */
int cmd_twin(int argc, char **argv);
int cmd_twin_check(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_help(int argc, char **argv);

/* The trace directory: --traces, else $HETLAB_TRACES, else ../shared/traces. */
const char *cli_traces_dir(const char *flag);

/* a and b name one existing file (same device and inode): an output that
 * would replace an input. */
bool cli_same_file(const char *a, const char *b);

#define HETLAB_VERSION "0.1.0"

#endif
