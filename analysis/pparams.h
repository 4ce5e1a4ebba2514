/* pparams — a run's policy parameters as the recorder keeps them (run.
 * policy_params: "name=value" for every parameter, space-separated) read
 * for people: only those not at the policy's defaults, and what differs
 * between two runs. */
#ifndef HL_PPARAMS_H
#define HL_PPARAMS_H

#include <stddef.h>

/* "NAME=VALUE ..." of the parameters of `params` whose value is not the
 * registered policy's default, then "; N more at their defaults" (or
 * "its defaults" when all are); `params` as it is when the policy is
 * not registered (a run of another version). */
void pparams_brief(const char *policy, const char *params, char *out, size_t len);
/* "NAME A -> B, ..." for each parameter whose value differs between a and
 * b (a name on one side only is "(unset)" on the other); "" when none. */
void pparams_diff(const char *a, const char *b, char *out, size_t len);

#endif
