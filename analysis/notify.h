/* notify — the operator hook on preemptions (scenario "notify"): a log line
 * on standard error and/or a command run for each preemption, as
 * operators of the modelled cluster need to know.
 *
 * The command is an argv (never a shell string); each run appends four
 * arguments: the event ("preempt"), the simulated time in seconds, the
 * job's trace id and the reason. It runs synchronously; a command that
 * cannot start or exits non-zero is counted and reported once at the end,
 * it does not stop the run.
 *
 * The notifier sits in front of whatever recorder is installed: attach it
 * after recorder_attach, and it forwards every hook call. */
#ifndef HL_NOTIFY_H
#define HL_NOTIFY_H

#include <stdbool.h>
#include <stdio.h>
#include "sim/engine.h"

struct notifier {
	struct sim_recorder inner;   /* forwarded to */
	const struct sim *s;         /* the run reported on */
	char *const *argv;           /* NULL-terminated, borrowed; NULL = no command */
	bool log;                    /* one line per preemption on `out` */
	FILE *out;
	long fired, failed;          /* commands run, and those that failed */
	char first_error[256];
};

/* Installs n in front of s's current recorder hooks. */
void notify_attach(struct notifier *n, struct sim *s);

#endif
